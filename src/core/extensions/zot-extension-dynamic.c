/* zot-extension-dynamic.c — what changes while an extension runs: it
 * withdraws a tool or a command it registered (`unregister_tool`,
 * `unregister_command`), and reports the progress of a call of one of its
 * tools (`tool_progress`).
 *
 * A bridge to servers whose tool lists change (MCP) needs both: it
 * registers and withdraws tools as its servers come and go, and passes on
 * their progress notifications while a call runs.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <string.h>

#include "zot-extension-private.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-names.h"
#include "zot-source.h"
#include "zot-tool.h"

/* Withdrawing registrations */

/* The name an unregister frame carries, or NULL (logged) when it has none. */
static const char *
frame_name (ZotExtension *self,
            JsonObject   *frame,
            const char   *type)
{
  const char *name = zot_json_get_string (frame, "name");

  if (name == NULL || *name == '\0')
    zot_extension_log (self, "%s without a string \"name\", ignored", type);
  return name != NULL && *name != '\0' ? name : NULL;
}

static void
log_not_registered (ZotExtension *self,
                    const char   *type,
                    const char   *what,
                    const char   *name)
{
  g_autofree char *shown = zot_name_excerpt (name);

  zot_extension_log (self, "%s \"%s\": this extension registered no %s of that name, ignored",
                     type, shown, what);
}

/* The registration cap counts what is registered, so that an extension
 * whose servers come and go does not run out of registrations. */
static void
registration_gone (ZotExtension *self,
                   guint        *n_frames)
{
  if (*n_frames > 0)
    (*n_frames)--;
  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_REGISTRATION_CHANGED], 0);
}

/* A call of the tool that runs keeps its own reference to the tool and
 * its request goes on: it finishes as it would have. */
void
_zot_extension_handle_unregister_tool (ZotExtension *self,
                                       JsonObject   *frame)
{
  const char *name = frame_name (self, frame, "unregister_tool");
  g_autoptr(ZotTool) tool = NULL;

  if (name == NULL)
    return;

  for (guint i = 0; i < self->tools->len && tool == NULL; i++)
    if (g_str_equal (zot_tool_get_name (g_ptr_array_index (self->tools, i)), name))
      tool = g_ptr_array_steal_index (self->tools, i);

  if (tool == NULL)
    {
      log_not_registered (self, "unregister_tool", "tool", name);
      return;
    }

  g_hash_table_remove (self->tool_names, zot_tool_get_name (tool));
  registration_gone (self, &self->n_tool_frames);
}

void
_zot_extension_handle_unregister_command (ZotExtension *self,
                                          JsonObject   *frame)
{
  const char *name = frame_name (self, frame, "unregister_command");
  g_autofree char *key = NULL;
  ZotExtensionCommand *command;

  if (name == NULL)
    return;

  while (*name == '/')
    name++;

  /* Matched as commands are: case-insensitive in ASCII. */
  key = g_ascii_strdown (name, -1);
  command = g_hash_table_lookup (self->command_keys, key);
  if (command == NULL)
    {
      log_not_registered (self, "unregister_command", "command", name);
      return;
    }

  g_hash_table_remove (self->command_keys, key);
  g_ptr_array_remove (self->commands, command);
  registration_gone (self, &self->n_command_frames);
}

/* Progress of a running call */

typedef struct
{
  ZotToolProgress *sink;
  char            *latest;    /* a text waiting for its turn */
  gint64           sent_at;   /* when a text last went out; 0: never */
  GSource         *timer;
} CallProgress;

static void
call_progress_free (CallProgress *progress)
{
  zot_clear_source (&progress->timer);
  zot_tool_progress_unref (progress->sink);
  g_free (progress->latest);
  g_free (progress);
}

static void
deliver (CallProgress *progress)
{
  g_autofree char *text = g_steal_pointer (&progress->latest);

  progress->sent_at = g_get_monotonic_time ();
  zot_tool_progress_report (progress->sink, text, -1);
}

static gboolean
interval_over_cb (gpointer user_data)
{
  CallProgress *progress = user_data;

  g_clear_pointer (&progress->timer, g_source_unref);
  if (progress->latest != NULL)
    deliver (progress);
  return G_SOURCE_REMOVE;
}

/**
 * _zot_extension_track_progress:
 * @request_id: the `id` of a `tool_call` sent to this extension
 * @progress: where the call's progress goes
 *
 * Until untracked, `tool_progress` frames naming @request_id go to
 * @progress, at most one per %ZOT_TOOL_PROGRESS_INTERVAL_MS.
 */
void
_zot_extension_track_progress (ZotExtension    *self,
                               const char      *request_id,
                               ZotToolProgress *progress)
{
  CallProgress *entry;

  g_return_if_fail (ZOT_IS_EXTENSION (self));
  g_return_if_fail (request_id != NULL && progress != NULL);

  if (self->progress == NULL)
    self->progress = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) call_progress_free);

  entry = g_new0 (CallProgress, 1);
  entry->sink = zot_tool_progress_ref (progress);
  g_hash_table_replace (self->progress, g_strdup (request_id), entry);
}

/**
 * _zot_extension_untrack_progress:
 * @request_id: a `tool_call` id
 *
 * The call is over. A text still waiting for its turn goes out first: the
 * latest progress is never lost to the rate cap.
 */
void
_zot_extension_untrack_progress (ZotExtension *self,
                                 const char   *request_id)
{
  CallProgress *entry;

  g_return_if_fail (ZOT_IS_EXTENSION (self));

  if (self->progress == NULL || request_id == NULL)
    return;

  entry = g_hash_table_lookup (self->progress, request_id);
  if (entry == NULL)
    return;

  if (entry->latest != NULL)
    deliver (entry);
  g_hash_table_remove (self->progress, request_id);
}

static void
log_stray (ZotExtension *self,
           const char   *format,
           const char   *id)
{
  g_autofree char *shown = zot_name_excerpt (id != NULL ? id : "");

  /* A flood of them must not fill the log. */
  if (self->n_stray_progress >= ZOT_TOOL_PROGRESS_STRAY_LOG_MAX)
    return;

  zot_extension_log (self, format, shown);
  if (++self->n_stray_progress == ZOT_TOOL_PROGRESS_STRAY_LOG_MAX)
    zot_extension_log (self, "more tool_progress frames that cannot be shown; they are not logged any more");
}

void
_zot_extension_handle_tool_progress (ZotExtension *self,
                                     JsonObject   *frame)
{
  const char *id = zot_json_get_string (frame, "id");
  const char *text = zot_json_get_string (frame, "text");
  CallProgress *entry = NULL;
  gint64 now;
  gint64 due;

  if (id == NULL || text == NULL)
    {
      log_stray (self, "tool_progress \"%s\" without a string \"id\" and \"text\", ignored", id);
      return;
    }

  if (self->progress != NULL)
    entry = g_hash_table_lookup (self->progress, id);
  if (entry == NULL)
    {
      /* Finished, cancelled, never sent, or a call whose progress nobody
       * shows (one an extension asked for). */
      log_stray (self, "tool_progress for \"%s\", which is no running call of this extension "
                 "that shows progress, ignored", id);
      return;
    }

  /* A progress text is one line. */
  g_free (entry->latest);
  entry->latest = g_strndup (text, MIN (strlen (text), ZOT_TOOL_PROGRESS_LINE_MAX_BYTES + 8));
  g_strdelimit (entry->latest, "\r\n\t", ' ');

  if (entry->timer != NULL)
    return;

  now = g_get_monotonic_time ();
  due = entry->sent_at + (gint64) ZOT_TOOL_PROGRESS_INTERVAL_MS * 1000;
  if (entry->sent_at == 0 || now >= due)
    {
      deliver (entry);
      return;
    }

  entry->timer = g_timeout_source_new ((guint) ((due - now + 999) / 1000));
  g_source_set_callback (entry->timer, interval_over_cb, entry, NULL);
  g_source_set_static_name (entry->timer, "[zot] tool progress interval");
  g_source_attach (entry->timer, g_main_context_get_thread_default ());
}
