/* zot-transcript-follow.c — the host's stored conversation in the
 * transcript: shown from its start when the host opens it, and, when
 * another process writes it, followed as the file grows. */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include "zot-limits.h"
#include "zot-transcript-private.h"

static ZotToolRegistry *
get_registry (ZotTranscript *self)
{
  return self->host != NULL ? zot_agent_get_registry (zot_host_get_agent (self->host)) : NULL;
}

static guint
count_stored (ZotSession *session)
{
  return zot_session_get_earlier_messages (session)->len + zot_session_get_messages (session)->len;
}

void
_zot_transcript_stop_following (ZotTranscript *self)
{
  g_clear_handle_id (&self->follow_source, g_source_remove);
  if (self->follow_cancellable != NULL)
    g_cancellable_cancel (self->follow_cancellable);
  g_clear_object (&self->follow_cancellable);
  self->follow_reading = FALSE;
  self->follow_again = FALSE;
  if (self->follow_monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->follow_monitor, self);
      g_file_monitor_cancel (self->follow_monitor);
      g_clear_object (&self->follow_monitor);
    }
  g_clear_object (&self->followed);
}

static void follow_start (ZotTranscript *self);

/* Shows what the other process wrote since: the new messages, and the
 * results of calls already shown. A file that shrank or was compacted
 * is shown again from the start. */
static void
show_followed (ZotTranscript *self,
               ZotSession    *session)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  ZotHistoryBuilder builder = { session, get_registry (self), items, self->tool_items };
  GPtrArray *earlier = zot_session_get_earlier_messages (session);
  GPtrArray *messages = zot_session_get_messages (session);

  if (count_stored (session) < self->n_shown)
    {
      g_list_store_remove_all (self->items);
      g_hash_table_remove_all (self->tool_items);
      self->n_shown = 0;
    }

  for (guint i = self->n_shown; i < earlier->len + messages->len; i++)
    _zot_history_builder_add (&builder,
                              i < earlier->len ? g_ptr_array_index (earlier, i)
                                               : g_ptr_array_index (messages, i - earlier->len));
  self->n_shown = count_stored (session);
  g_set_object (&self->followed, session);

  _zot_transcript_append_items (self, (ZotTranscriptItem **) items->pdata, items->len);
}

/* The file is read on a worker thread: it may be large, and the window
 * must not wait for it. A session made there belongs to the main
 * context, the thread's default. */
static void
read_followed_thread (GTask        *task,
                      gpointer      source_object,
                      gpointer      task_data,
                      GCancellable *cancellable)
{
  GError *error = NULL;
  ZotSession *session = zot_session_open_read_only (task_data, &error);

  if (session == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, session, g_object_unref);
}

static void
followed_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(ZotTranscript) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotSession) session = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->followed == NULL)
    return;

  self->follow_reading = FALSE;
  if (session != NULL)
    show_followed (self, session);
  else
    g_debug ("not following %s: %s", zot_session_get_path (self->followed), error->message);

  if (self->follow_again)
    {
      self->follow_again = FALSE;
      follow_start (self);
    }
}

static void
follow_start (ZotTranscript *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->follow_reading)
    {
      self->follow_again = TRUE;
      return;
    }

  self->follow_reading = TRUE;
  task = g_task_new (NULL, self->follow_cancellable, followed_read_cb, g_object_ref (self));
  g_task_set_source_tag (task, follow_start);
  g_task_set_task_data (task, g_strdup (zot_session_get_path (self->followed)), g_free);
  g_task_run_in_thread (task, read_followed_thread);
}

static gboolean
follow_cb (gpointer user_data)
{
  ZotTranscript *self = user_data;

  self->follow_source = 0;
  follow_start (self);
  return G_SOURCE_REMOVE;
}

static void
on_follow_monitor_changed_cb (GFileMonitor      *monitor,
                              GFile             *file,
                              GFile             *other_file,
                              GFileMonitorEvent  event,
                              ZotTranscript     *self)
{
  if (self->follow_source == 0)
    self->follow_source = g_timeout_add (ZOT_CONVERSATION_RESCAN_DELAY_MS, follow_cb, self);
}

/* Shows the host's conversation from its start, after the rows there
 * are unless @clear; one that another process writes is followed as it
 * grows. */
void
_zot_transcript_show_session (ZotTranscript *self,
                              gboolean       clear)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  ZotHistoryBuilder builder = { NULL, get_registry (self), items, self->tool_items };
  ZotSession *session = NULL;

  _zot_transcript_stop_following (self);
  if (clear)
    zot_transcript_clear (self);
  if (self->host != NULL)
    session = zot_agent_get_session (zot_host_get_agent (self->host));
  if (session == NULL)
    return;

  builder.session = session;
  _zot_history_builder_add_session (&builder);
  self->n_shown = count_stored (session);
  _zot_transcript_append_items (self, (ZotTranscriptItem **) items->pdata, items->len);

  if (zot_session_is_read_only (session) && zot_session_get_path (session) != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_path (zot_session_get_path (session));

      self->followed = g_object_ref (session);
      self->follow_cancellable = g_cancellable_new ();
      self->follow_monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, NULL);
      if (self->follow_monitor != NULL)
        g_signal_connect (self->follow_monitor, "changed", G_CALLBACK (on_follow_monitor_changed_cb), self);
    }
}
