/* zot-extension.c — one extension process and its side of the protocol.
 *
 * The object is a GAsyncInitable: initialising it spawns the process, waits
 * for `hello`, answers `hello_ack` and takes registrations until `ready`
 * (or the legacy idle/cap timers). One object is one process lifetime; the
 * manager makes a new one to restart an extension.
 *
 * This file holds the object, its requests and the state file; the frames
 * and the registration are in zot-extension-frames.c, the process's start,
 * exit and shutdown in zot-extension-process.c.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zot-armed-source.h"
#include "zot-error.h"
#include "zot-extension-meter-private.h"
#include "zot-extension-private.h"
#include "zot-source.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-tool.h"
#include "zot-tool-invocation.h"

typedef struct
{
  ZotExtension *self;
  char         *id;
  GTask        *task;
  GSource      *cancel_source;
  guint         timeout_ms;
  gint64        due;          /* monotonic µs, 0 for no deadline or held */
  gint64        remaining;    /* µs left when the deadline was held */
  guint         holds;
  GList         link;         /* in the extension's deadlines, by due */
} PendingRequest;

enum {
  PROP_0,
  PROP_STATE,
  PROP_LAST_ERROR,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];
guint _zot_extension_signals [ZOT_EXTENSION_N_SIGNALS];

G_DEFINE_FINAL_TYPE_WITH_CODE (ZotExtension, zot_extension, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_ASYNC_INITABLE,
                                                      _zot_extension_async_initable_iface_init))

const char *
zot_extension_state_to_string (ZotExtensionState state)
{
  switch (state)
    {
    case ZOT_EXTENSION_STATE_DISABLED:    return "disabled";
    case ZOT_EXTENSION_STATE_STARTING:    return "starting";
    case ZOT_EXTENSION_STATE_REGISTERING: return "registering";
    case ZOT_EXTENSION_STATE_READY:       return "ready";
    case ZOT_EXTENSION_STATE_STOPPING:    return "stopping";
    case ZOT_EXTENSION_STATE_EXITED:      return "exited";
    case ZOT_EXTENSION_STATE_FAILED:      return "failed";
    case ZOT_EXTENSION_STATE_NEEDS_APPROVAL: return "needs_approval";
    default:                              g_return_val_if_reached ("unknown");
    }
}

static void
zot_extension_command_free (ZotExtensionCommand *command)
{
  g_free (command->name);
  g_free (command->description);
  g_free (command->conflict);
  g_free (command);
}

GSource *
_zot_extension_add_timeout (ZotTimeout   timeout,
                            GSourceFunc  func,
                            gpointer     data,
                            const char  *name)
{
  GSource *source = g_timeout_source_new (zot_timeout_get_ms (timeout));

  g_source_set_callback (source, func, data, NULL);
  g_source_set_static_name (source, name);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

void
_zot_extension_set_state (ZotExtension      *self,
                          ZotExtensionState  state)
{
  if (self->state == state)
    return;

  g_debug ("%s: %s → %s", self->name,
           zot_extension_state_to_string (self->state),
           zot_extension_state_to_string (state));
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_STATE]);
}

void
_zot_extension_set_last_error (ZotExtension *self,
                               const char   *message)
{
  if (g_strcmp0 (self->last_error, message) == 0)
    return;

  g_free (self->last_error);
  self->last_error = g_strdup (message);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LAST_ERROR]);
}

void
zot_extension_log (ZotExtension *self,
                   const char   *format,
                   ...)
{
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *message = NULL;
  g_autofree char *stamp = NULL;
  g_autofree char *line = NULL;
  va_list args;

  g_return_if_fail (ZOT_IS_EXTENSION (self));

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_debug ("%s: %s", self->name, message);

  if (self->log_fd < 0)
    return;

  now = g_date_time_new_now_local ();
  stamp = g_date_time_format (now, "%H:%M:%S");
  line = g_strdup_printf ("[zot %s] %s\n", stamp, message);

  /* A short append to a local file: the page cache takes it at once. */
  if (write (self->log_fd, line, strlen (line)) < 0)
    g_debug ("%s: cannot write to %s: %s", self->name, self->log_path, g_strerror (errno));
}

/* Requests */

static void
pending_request_free (PendingRequest *request)
{
  /* The deadline source is left armed for a request that went away early:
   * it re-arms itself for the next one when it fires. */
  if (request->due > 0)
    g_queue_unlink (&request->self->deadlines, &request->link);
  zot_clear_source (&request->cancel_source);
  g_clear_object (&request->task);
  g_free (request->id);
  g_free (request);
}

static void
fail_request (ZotExtension *self,
              const char   *id,
              GError       *error)
{
  PendingRequest *request;
  GTask *task;

  request = g_hash_table_lookup (self->pending, id);
  if (request == NULL)
    {
      g_error_free (error);
      return;
    }

  task = g_steal_pointer (&request->task);
  g_hash_table_remove (self->pending, id);
  g_task_return_error (task, error);
  g_object_unref (task);
}

void
_zot_extension_fail_all_requests (ZotExtension *self,
                                  const GError *error)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key;

  /* Failing a request runs its callback, which may add or end others. */
  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (ids, g_strdup (key));

  for (guint i = 0; i < ids->len; i++)
    fail_request (self, g_ptr_array_index (ids, i), g_error_copy (error));
}

static void
arm_deadlines (ZotExtension *self)
{
  PendingRequest *first = g_queue_peek_head (&self->deadlines);

  if (first != NULL)
    zot_armed_source_set_due (self->deadline_source, first->due);
  else if (self->deadline_source != NULL)
    zot_armed_source_set_due (self->deadline_source, ZOT_ARMED_SOURCE_DISARMED);
}

/* One source for every request deadline of the extension: a timeout
 * source per request cost a set-up and a tear-down on every call. */
static gboolean
deadlines_cb (gpointer user_data)
{
  ZotExtension *self = user_data;
  g_autoptr(GPtrArray) expired = g_ptr_array_new_with_free_func (g_free);
  gint64 now = g_get_monotonic_time ();
  PendingRequest *request;

  g_object_ref (self);

  while ((request = g_queue_peek_head (&self->deadlines)) != NULL && request->due <= now)
    {
      g_queue_unlink (&self->deadlines, &request->link);
      request->due = 0;
      g_ptr_array_add (expired, g_strdup (request->id));
    }
  arm_deadlines (self);

  /* Failing a request runs its callback, which may send or end others. */
  for (guint i = 0; i < expired->len; i++)
    {
      const char *id = g_ptr_array_index (expired, i);

      request = g_hash_table_lookup (self->pending, id);
      if (request == NULL)
        continue;

      zot_extension_log (self, "request %s got no reply within %u ms", id, request->timeout_ms);
      fail_request (self, id,
                    g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT,
                                 _("%s did not answer within %u s"), self->name,
                                 (request->timeout_ms + 999) / 1000));
    }

  g_object_unref (self);
  return G_SOURCE_CONTINUE;
}

static void
add_deadline (ZotExtension   *self,
              PendingRequest *request,
              gint64          due)
{
  GList *after;

  request->due = due;
  request->link.data = request;

  /* Deadlines mostly come in order: look from the end. */
  for (after = self->deadlines.tail; after != NULL; after = after->prev)
    if (((PendingRequest *) after->data)->due <= request->due)
      break;

  if (after == NULL)
    g_queue_push_head_link (&self->deadlines, &request->link);
  else
    g_queue_insert_after_link (&self->deadlines, after, &request->link);

  if (self->deadline_source == NULL)
    self->deadline_source = zot_armed_source_new (deadlines_cb, self, G_PRIORITY_DEFAULT,
                                                  "[zot] request deadlines");

  if (self->deadlines.head == &request->link)
    arm_deadlines (self);
  else if (zot_armed_source_get_due (self->deadline_source) == ZOT_ARMED_SOURCE_DISARMED)
    arm_deadlines (self);
}

static gboolean
request_cancelled_cb (GCancellable *cancellable,
                      gpointer      user_data)
{
  PendingRequest *request = user_data;
  ZotExtension *self = request->self;
  g_autofree char *id = g_strdup (request->id);

  g_clear_pointer (&request->cancel_source, g_source_unref);
  fail_request (self, id, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                               _("the request was cancelled")));
  return G_SOURCE_REMOVE;
}

/**
 * zot_extension_request_async:
 * @frame: a request frame without `id`; the extension picks one
 * @timeout_ms: the reply deadline, or 0 for none
 *
 * Sends a request and waits for the frame that answers it. A crash, a
 * disconnect or a stop fails it at once; a late reply after the deadline
 * or a cancellation is dropped.
 */
void
zot_extension_request_async (ZotExtension        *self,
                             JsonObject          *frame,
                             guint                timeout_ms,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  PendingRequest *request;
  const char *type;
  char *id;

  g_return_if_fail (ZOT_IS_EXTENSION (self));
  g_return_if_fail (frame != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_request_async);

  if (g_task_return_error_if_cancelled (task))
    return;

  type = zot_json_get_string_or (frame, "type", "request");
  id = g_strdup_printf ("%c%" G_GUINT64_FORMAT, type[0], ++self->next_request);
  json_object_set_string_member (frame, "id", id);

  request = g_new0 (PendingRequest, 1);
  request->self = self;
  request->id = id;
  request->task = g_steal_pointer (&task);
  request->timeout_ms = timeout_ms;
  g_hash_table_insert (self->pending, request->id, request);

  if (timeout_ms > 0)
    add_deadline (self, request, g_get_monotonic_time () + (gint64) timeout_ms * 1000);

  if (cancellable != NULL)
    {
      request->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (request->cancel_source, G_SOURCE_FUNC (request_cancelled_cb), request, NULL);
      g_source_attach (request->cancel_source, g_main_context_get_thread_default ());
    }

  /* A state that takes no requests fails it here. */
  if (!_zot_extension_send (self, frame, &error))
    {
      g_autofree char *failed_id = g_strdup (id);
      fail_request (self, failed_id, g_steal_pointer (&error));
    }
}

/**
 * zot_extension_hold_request:
 * @id: the `id` of a pending request
 * @held: %TRUE to stop its deadline, %FALSE to let it go on
 *
 * Stops a request's reply deadline, keeping the time left, until as many
 * calls with %FALSE: a tool call whose child waits for the user's approval
 * must not time out meanwhile (PROTOCOL.md §5).
 */
void
zot_extension_hold_request (ZotExtension *self,
                            const char   *id,
                            gboolean      held)
{
  PendingRequest *request;

  g_return_if_fail (ZOT_IS_EXTENSION (self));
  g_return_if_fail (id != NULL);

  request = g_hash_table_lookup (self->pending, id);
  if (request == NULL || request->timeout_ms == 0)
    return;

  if (held)
    {
      if (request->holds++ > 0)
        return;
      request->remaining = MAX (request->due - g_get_monotonic_time (), 0);
      g_queue_unlink (&self->deadlines, &request->link);
      request->due = 0;
      arm_deadlines (self);
    }
  else
    {
      g_return_if_fail (request->holds > 0);
      if (--request->holds > 0)
        return;
      add_deadline (self, request, g_get_monotonic_time () + request->remaining);
    }
}

/**
 * zot_extension_request_is_held:
 *
 * Returns: whether the pending request @id has its deadline stopped
 */
gboolean
zot_extension_request_is_held (ZotExtension *self,
                               const char   *id)
{
  PendingRequest *request;

  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);

  request = g_hash_table_lookup (self->pending, id);
  return request != NULL && request->holds > 0;
}

/**
 * zot_extension_track_invocation:
 * @request_id: the `id` of a `tool_call` sent to this extension
 * @invocation: that call, as the calls it asks for see it
 *
 * While tracked, a `call_tool` from this extension may name @request_id as
 * its `parent_id`, and one without a parent is refused.
 */
void
zot_extension_track_invocation (ZotExtension      *self,
                                const char        *request_id,
                                ZotToolInvocation *invocation)
{
  g_return_if_fail (ZOT_IS_EXTENSION (self));
  g_return_if_fail (request_id != NULL && invocation != NULL);

  g_hash_table_replace (self->invocations, g_strdup (request_id),
                        zot_tool_invocation_ref (invocation));
}

void
zot_extension_untrack_invocation (ZotExtension      *self,
                                  const char        *request_id,
                                  ZotToolInvocation *invocation)
{
  g_return_if_fail (ZOT_IS_EXTENSION (self));
  g_return_if_fail (request_id != NULL);

  if (g_hash_table_lookup (self->invocations, request_id) == invocation)
    g_hash_table_remove (self->invocations, request_id);
}

/**
 * zot_extension_lookup_invocation:
 * @request_id: a `tool_call` id, as an extension names its parent
 *
 * Returns: (transfer none) (nullable): the call, while it runs
 */
ZotToolInvocation *
zot_extension_lookup_invocation (ZotExtension *self,
                                 const char   *request_id)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  g_return_val_if_fail (request_id != NULL, NULL);

  return g_hash_table_lookup (self->invocations, request_id);
}

/* Request ids are a letter and a growing number: shorter is older. */
static int
compare_request_ids (gconstpointer a,
                     gconstpointer b)
{
  const char *x = *(const char * const *) a;
  const char *y = *(const char * const *) b;
  gsize lx = strlen (x);
  gsize ly = strlen (y);

  if (lx != ly)
    return lx < ly ? -1 : 1;
  return strcmp (x, y);
}

/**
 * zot_extension_dup_invocation_ids:
 *
 * Returns: (transfer full): the request ids of the tool calls running in
 *   this extension, oldest first
 */
GStrv
zot_extension_dup_invocation_ids (ZotExtension *self)
{
  g_autofree const char **keys = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint n = 0;

  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);

  keys = (const char **) g_hash_table_get_keys_as_array (self->invocations, &n);
  qsort (keys, n, sizeof (char *), compare_request_ids);
  for (guint i = 0; i < n; i++)
    g_strv_builder_add (builder, keys[i]);
  return g_strv_builder_end (builder);
}

/**
 * zot_extension_has_invocations:
 *
 * Returns: whether a tool call the host sent to this extension is running
 */
gboolean
zot_extension_has_invocations (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);
  return g_hash_table_size (self->invocations) > 0;
}

/**
 * zot_extension_request_finish:
 *
 * Returns: (transfer full): the reply frame
 */
JsonObject *
zot_extension_request_finish (ZotExtension  *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
_zot_extension_complete_request (ZotExtension *self,
                                 JsonObject   *frame)
{
  const char *id = zot_json_get_string_or (frame, "id", NULL);
  const char *type = json_object_get_string_member (frame, "type");
  PendingRequest *request;
  GTask *task;

  if (id == NULL)
    {
      zot_extension_log (self, "%s without an \"id\", ignored", type);
      return;
    }

  request = g_hash_table_lookup (self->pending, id);
  if (request == NULL)
    {
      /* A late reply after a deadline or a cancellation: dropped. */
      zot_extension_log (self, "%s for unknown or expired request \"%s\", dropped", type, id);
      return;
    }

  task = g_steal_pointer (&request->task);
  g_hash_table_remove (self->pending, id);
  g_task_return_pointer (task, json_object_ref (frame), (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

gboolean
zot_extension_notify (ZotExtension  *self,
                      JsonObject    *frame,
                      GError       **error)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (frame != NULL, FALSE);

  return _zot_extension_send (self, frame, error);
}

static void
state_written_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    g_debug ("cannot write %s: %s", g_file_peek_path (G_FILE (object)), error->message);
}

/* Written asynchronously whenever what `zot ext list` would show changes. */
static gboolean
save_state_now (gpointer user_data)
{
  ZotExtension *self = user_data;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) parent = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *path = NULL;
  g_autofree char *stamp = g_date_time_format_iso8601 (now);
  char *text;

  self->save_id = 0;
  if (self->state != ZOT_EXTENSION_STATE_READY)
    return G_SOURCE_REMOVE;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, self->name);
  json_builder_set_member_name (builder, "updated");
  json_builder_add_string_value (builder, stamp);
  json_builder_set_member_name (builder, "commands");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->commands->len; i++)
    json_builder_add_string_value (builder, ((ZotExtensionCommand *) g_ptr_array_index (self->commands, i))->name);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "tools");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->tools->len; i++)
    json_builder_add_string_value (builder, zot_tool_get_name (g_ptr_array_index (self->tools, i)));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "problems");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->problems->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (self->problems, i));
  for (guint i = 0; i < self->commands->len; i++)
    {
      ZotExtensionCommand *command = g_ptr_array_index (self->commands, i);
      if (command->conflict != NULL)
        {
          g_autofree char *line = g_strdup_printf (_("command /%s is not routed: %s"),
                                                   command->name, command->conflict);
          json_builder_add_string_value (builder, line);
        }
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  text = zot_json_to_string (root);
  bytes = g_bytes_new_take (text, strlen (text));

  path = zot_paths_get_state_file (self->name);
  file = g_file_new_for_path (path);
  parent = g_file_get_parent (file);
  g_file_make_directory_with_parents (parent, NULL, NULL);
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                                       NULL, state_written_cb, NULL);
  return G_SOURCE_REMOVE;
}

/* Changes come in bursts (every conflict of a reload): write once. */
void
_zot_extension_save_state (ZotExtension *self)
{
  /* No reference: dispose removes the source. */
  if (self->save_id == 0)
    self->save_id = g_idle_add_full (G_PRIORITY_LOW, save_state_now, self, NULL);
}

void
_zot_extension_record_problem (ZotExtension *self,
                               const char   *problem)
{
  zot_extension_log (self, "%s", problem);
  g_ptr_array_add (self->problems, g_strdup (problem));
  _zot_extension_save_state (self);
}

/* GObject */

static void
zot_extension_dispose (GObject *object)
{
  ZotExtension *self = (ZotExtension *)object;

  g_cancellable_cancel (self->cancellable);

  zot_clear_source (&self->hello_timeout);
  zot_clear_source (&self->idle_timeout);
  zot_clear_source (&self->cap_timeout);
  zot_clear_source (&self->ladder_timeout);
  zot_clear_source (&self->eof_timeout);
  zot_clear_source (&self->drain_timeout);
  _zot_extension_end_unknown_window (self);
  g_clear_handle_id (&self->save_id, g_source_remove);

  if (self->pending != NULL)
    g_hash_table_remove_all (self->pending);
  zot_clear_source (&self->deadline_source);

  if (self->channel != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->channel, self);
      zot_frame_channel_close (self->channel);
      g_clear_object (&self->channel);
    }

  /* Nobody is left to run the ladder: make sure nothing outlives us. */
  _zot_extension_kill_process (self);
  g_clear_object (&self->subprocess);

  G_OBJECT_CLASS (zot_extension_parent_class)->dispose (object);
}

static void
zot_extension_finalize (GObject *object)
{
  ZotExtension *self = (ZotExtension *)object;

  g_assert (self->init_task == NULL);
  g_assert (g_queue_is_empty (&self->stop_waiters));

  if (self->log_fd >= 0)
    close (self->log_fd);

  g_clear_object (&self->manifest);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->directory, g_free);
  g_clear_pointer (&self->last_error, g_free);
  g_clear_pointer (&self->log_path, g_free);
  g_clear_pointer (&self->hello_ack, json_object_unref);
  g_clear_pointer (&self->hello_version, g_free);
  g_clear_pointer (&self->capabilities, g_strfreev);
  g_clear_pointer (&self->command_keys, g_hash_table_unref);
  g_clear_pointer (&self->tool_names, g_hash_table_unref);
  g_clear_pointer (&self->commands, g_ptr_array_unref);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->progress, g_hash_table_unref);
  g_clear_pointer (&self->problems, g_ptr_array_unref);
  g_clear_pointer (&self->events, g_hash_table_unref);
  g_clear_pointer (&self->intercepts, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->invocations, g_hash_table_unref);
  g_clear_pointer (&self->exit_description, g_free);
  g_clear_pointer (&self->meter, _zot_extension_meter_free);

  G_OBJECT_CLASS (zot_extension_parent_class)->finalize (object);
}

static void
zot_extension_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  ZotExtension *self = ZOT_EXTENSION (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_int (value, self->state);
      break;

    case PROP_LAST_ERROR:
      g_value_set_string (value, self->last_error);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_extension_class_init (ZotExtensionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_extension_dispose;
  object_class->finalize = zot_extension_finalize;
  object_class->get_property = zot_extension_get_property;

  /**
   * ZotExtension:state:
   *
   * Where the extension is in its life, a #ZotExtensionState (held as an
   * int): starting, registering, ready, stopping, then exited or failed;
   * or disabled from the start. The manager re-routes commands, closes
   * panels and cancels calls on each change.
   */
  properties [PROP_STATE] =
    g_param_spec_int ("state", NULL, NULL,
                      ZOT_EXTENSION_STATE_DISABLED, ZOT_EXTENSION_STATE_NEEDS_APPROVAL,
                      ZOT_EXTENSION_STATE_STARTING,
                      (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotExtension:last-error: (nullable)
   *
   * Why the extension failed, for the user, with the path of its log where
   * it has one: it could not be spawned, its handshake failed, or it
   * crashed. %NULL until then; a reload makes a new extension, so it is
   * never cleared.
   */
  properties [PROP_LAST_ERROR] =
    g_param_spec_string ("last-error", NULL, NULL,
                         NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotExtension::notify-received:
   * @self: the extension
   * @level: "info", "success", "warn" or "error"; an unknown or missing
   *   level arrives as "info"
   * @message: the note
   *
   * The extension sent `notify` (PROTOCOL.md §8). The manager passes it on
   * as #ZotExtensionManager::note-added.
   */
  _zot_extension_signals[ZOT_EXTENSION_SIGNAL_NOTIFY_RECEIVED] =
    g_signal_new ("notify-received",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * ZotExtension::notes-cleared:
   * @self: the extension
   *
   * The extension sent `clear_notes`; the manager passes it on as
   * #ZotExtensionManager::notes-cleared.
   */
  _zot_extension_signals[ZOT_EXTENSION_SIGNAL_NOTES_CLEARED] =
    g_signal_new ("notes-cleared",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtension::registration-changed:
   * @self: the extension
   *
   * The extension registered a command, a tool (or sent a tool it got
   * wrong, now among its problems) or subscribed to events. The manager
   * resolves command routes again and emits
   * #ZotExtensionManager::tools-changed when the extension is ready;
   * registrations before `ready` count when it becomes ready.
   */
  _zot_extension_signals[ZOT_EXTENSION_SIGNAL_REGISTRATION_CHANGED] =
    g_signal_new ("registration-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtension::crashed:
   * @self: the extension
   * @message: for the user: the name, how the process ended and the log's
   *   path, as in #ZotExtension:last-error
   *
   * The extension stopped after it was ready, without the host asking:
   * its process ended, closed its output but kept running, or broke its
   * channel. It is %ZOT_EXTENSION_STATE_FAILED already and its pending
   * requests have failed. The manager passes it on as
   * #ZotExtensionManager::extension-crashed.
   */
  _zot_extension_signals[ZOT_EXTENSION_SIGNAL_CRASHED] =
    g_signal_new ("crashed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotExtension::unhandled-frame:
   * @self: the extension
   * @frame: a frame this object does not handle itself
   *
   * A frame that belongs to the manager (panels, `call_tool`, `submit`
   * and the like, in the states that take them) or whose type is unknown
   * here (in any state after `hello`). Handlers must not keep @frame past
   * the emission.
   *
   * Returns: %TRUE when a handler took the frame; otherwise it counts as
   *   an unknown type and is logged, a burst at a time
   */
  _zot_extension_signals[ZOT_EXTENSION_SIGNAL_UNHANDLED_FRAME] =
    g_signal_new ("unhandled-frame",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotExtension::traffic:
   * @self: the extension
   * @direction: a #ZotFrameDirection
   * @line: the raw line, without its newline; copy it to keep it
   *
   * Every line read from the extension or queued for it, while
   * zot_extension_set_trace() has tracing on. The manager passes it on as
   * #ZotExtensionManager::frame-traffic.
   */
  _zot_extension_signals[ZOT_EXTENSION_SIGNAL_TRAFFIC] =
    g_signal_new ("traffic",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
zot_extension_init (ZotExtension *self)
{
  self->log_fd = -1;
  self->state = ZOT_EXTENSION_STATE_STARTING;
  self->cancellable = g_cancellable_new ();
  self->commands = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_extension_command_free);
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  self->command_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->tool_names = g_hash_table_new (g_str_hash, g_str_equal);
  self->problems = g_ptr_array_new_with_free_func (g_free);
  self->events = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->intercepts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) pending_request_free);
  self->invocations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) zot_tool_invocation_unref);
  g_queue_init (&self->stop_waiters);
}

static void
copy_member (JsonObject  *object,
             const char  *member,
             JsonNode    *node,
             gpointer     user_data)
{
  json_object_set_member (user_data, member, json_node_copy (node));
}

/**
 * zot_extension_new:
 * @hello_ack: the host's part of `hello_ack`; the extension adds its directories
 */
ZotExtension *
zot_extension_new (ZotManifest       *manifest,
                   ZotExtensionScope  scope,
                   JsonObject        *hello_ack)
{
  ZotExtension *self;

  g_return_val_if_fail (ZOT_IS_MANIFEST (manifest), NULL);
  g_return_val_if_fail (hello_ack != NULL, NULL);

  self = g_object_new (ZOT_TYPE_EXTENSION, NULL);
  self->manifest = g_object_ref (manifest);
  self->name = g_strdup (zot_manifest_get_name (manifest));
  self->directory = g_strdup (zot_manifest_get_directory (manifest));
  self->scope = scope;
  self->log_path = zot_paths_get_log_file (self->name);

  /* Each extension gets its own top-level copy, since it adds its own
   * directories; nested values are shared and never changed. */
  self->hello_ack = json_object_new ();
  json_object_foreach_member (hello_ack, copy_member, self->hello_ack);

  if (!zot_manifest_get_enabled (manifest))
    self->state = ZOT_EXTENSION_STATE_DISABLED;

  return self;
}

/**
 * zot_extension_new_failed:
 *
 * An entry for a directory whose manifest could not be used, so that the
 * failure is listed beside the extensions that did load.
 */
ZotExtension *
zot_extension_new_failed (const char        *directory,
                          ZotExtensionScope  scope,
                          const GError      *error)
{
  ZotExtension *self;

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (error != NULL, NULL);

  self = g_object_new (ZOT_TYPE_EXTENSION, NULL);
  self->name = g_path_get_basename (directory);
  self->directory = g_strdup (directory);
  self->scope = scope;
  self->state = ZOT_EXTENSION_STATE_FAILED;
  self->last_error = g_strdup (error->message);

  return self;
}

ZotManifest *
zot_extension_get_manifest (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->manifest;
}

const char *
zot_extension_get_name (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->name;
}

const char *
zot_extension_get_directory (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->directory;
}

ZotExtensionScope
zot_extension_get_scope (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), ZOT_EXTENSION_SCOPE_USER);
  return self->scope;
}

ZotExtensionState
zot_extension_get_state (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), ZOT_EXTENSION_STATE_FAILED);
  return self->state;
}

const char *
zot_extension_get_last_error (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->last_error;
}

const char *
zot_extension_get_log_path (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->log_path;
}

const char *
zot_extension_get_hello_version (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->hello_version;
}

gboolean
zot_extension_has_capability (ZotExtension *self,
                              const char   *capability)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);

  /* Exact strings: a missing or unknown capability enables nothing. */
  return self->capabilities != NULL &&
         g_strv_contains ((const char * const *) self->capabilities, capability);
}

/**
 * zot_extension_get_commands:
 *
 * Returns: (transfer none) (element-type ZotExtensionCommand): the commands
 *   this extension registered, first frame first
 */
GPtrArray *
zot_extension_get_commands (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->commands;
}

gboolean
zot_extension_is_running (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);

  return self->state == ZOT_EXTENSION_STATE_REGISTERING ||
         self->state == ZOT_EXTENSION_STATE_READY;
}

void
zot_extension_set_trace (ZotExtension *self,
                         gboolean      trace)
{
  g_return_if_fail (ZOT_IS_EXTENSION (self));

  self->trace = !!trace;
  if (self->channel != NULL)
    zot_frame_channel_set_trace (self->channel, trace);
}

void
_zot_extension_set_command_conflict (ZotExtension *self,
                                     guint         index,
                                     const char   *conflict)
{
  ZotExtensionCommand *command;

  g_return_if_fail (ZOT_IS_EXTENSION (self));
  g_return_if_fail (index < self->commands->len);

  command = g_ptr_array_index (self->commands, index);
  if (g_strcmp0 (command->conflict, conflict) == 0)
    return;

  g_free (command->conflict);
  command->conflict = g_strdup (conflict);
  if (conflict != NULL)
    zot_extension_log (self, "command \"%s\" is not routed here: %s", command->name, conflict);
  _zot_extension_save_state (self);
}

/**
 * zot_extension_get_tools:
 *
 * Returns: (transfer none) (element-type ZotTool): the tools it registered
 *   that passed validation, first frame first
 */
GPtrArray *
zot_extension_get_tools (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->tools;
}

/**
 * zot_extension_get_problems:
 *
 * Returns: (transfer none) (element-type utf8): rejected registrations and
 *   lost conflicts, for the extension list
 */
GPtrArray *
zot_extension_get_problems (ZotExtension *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);
  return self->problems;
}

void
_zot_extension_add_problem (ZotExtension *self,
                            const char   *problem)
{
  g_return_if_fail (ZOT_IS_EXTENSION (self));

  if (!g_ptr_array_find_with_equal_func (self->problems, problem, g_str_equal, NULL))
    _zot_extension_record_problem (self, problem);
}

gboolean
zot_extension_is_subscribed (ZotExtension *self,
                             const char   *event)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);
  return g_hash_table_contains (self->events, event);
}

gboolean
zot_extension_intercepts (ZotExtension *self,
                          const char   *event)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);
  return g_hash_table_contains (self->intercepts, event);
}

/**
 * zot_extension_flush_async:
 *
 * Completes once what is queued for the extension has been written.
 */
void
zot_extension_flush_async (ZotExtension        *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (ZOT_IS_EXTENSION (self));
  g_return_if_fail (self->channel != NULL);

  zot_frame_channel_flush_async (self->channel, cancellable, callback, user_data);
}
