/* zot-extension.c — one extension process and its side of the protocol.
 *
 * The object is a GAsyncInitable: initialising it spawns the process, waits
 * for `hello`, answers `hello_ack` and takes registrations until `ready`
 * (or the legacy idle/cap timers). One object is one process lifetime; the
 * manager makes a new one to restart an extension.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <gio/gunixoutputstream.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "zot-armed-source.h"
#include "zot-error.h"
#include "zot-extension-private.h"
#include "zot-extension-tool.h"
#include "zot-json.h"
#include "zot-key-grants.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-names.h"
#include "zot-paths.h"
#include "zot-provider.h"

typedef struct
{
  ZotExtension *self;
  char         *id;
  GTask        *task;
  GSource      *cancel_source;
  guint         timeout_ms;
  gint64        due;          /* monotonic µs, 0 for no deadline */
  GList         link;         /* in the extension's deadlines, by due */
} PendingRequest;

struct _ZotExtension
{
  GObject              parent_instance;

  ZotManifest         *manifest;
  char                *name;
  char                *directory;
  ZotExtensionScope    scope;
  ZotExtensionState    state;
  char                *last_error;
  char                *log_path;
  int                  log_fd;

  JsonObject          *hello_ack;
  char                *hello_version;
  GStrv                capabilities;
  GPtrArray           *commands;
  GPtrArray           *tools;
  GHashTable          *command_keys;   /* lower-cased name → command, for conflicts */
  GHashTable          *tool_names;     /* name → tool */
  guint                n_command_frames;
  guint                n_tool_frames;
  GPtrArray           *problems;
  GHashTable          *events;
  guint32              event_ids;
  GQueue               deadlines;      /* PendingRequest with a deadline, earliest first */
  GSource             *deadline_source;
  GHashTable          *intercepts;

  GSubprocess         *subprocess;
  ZotFrameChannel     *channel;
  GCancellable        *cancellable;

  GTask               *init_task;
  GSource             *hello_timeout;
  GSource             *idle_timeout;
  GSource             *cap_timeout;
  GSource             *eof_timeout;
  GSource             *drain_timeout;  /* exited: what it wrote is still read */
  guint                save_id;

  GHashTable          *pending;
  guint64              next_request;

  GSource             *ladder_timeout;
  GQueue               stop_waiters;
  int                  ladder_step;

  char                *exit_description;
  guint                exited : 1;
  guint                got_hello : 1;
  guint                channel_closed : 1;
  guint                draining : 1;
  GPid                 group;           /* its process group: the process's pid */
  guint                stopping : 1;
  guint                trace : 1;
};

enum {
  PROP_0,
  PROP_STATE,
  PROP_LAST_ERROR,
  N_PROPS
};

enum {
  NOTIFY_RECEIVED,
  NOTES_CLEARED,
  REGISTRATION_CHANGED,
  CRASHED,
  UNHANDLED_FRAME,
  TRAFFIC,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static void async_initable_iface_init (GAsyncInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (ZotExtension, zot_extension, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_ASYNC_INITABLE, async_initable_iface_init))

static void save_state        (ZotExtension *self);
static void terminate_process (ZotExtension *self,
                               gboolean      polite);

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

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static GSource *
add_timeout (guint       ms,
             GSourceFunc func,
             gpointer    data,
             const char *name)
{
  GSource *source = g_timeout_source_new (ms);

  g_source_set_callback (source, func, data, NULL);
  g_source_set_static_name (source, name);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

static void
set_state (ZotExtension      *self,
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

static void
set_last_error (ZotExtension *self,
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
  clear_source (&request->cancel_source);
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

static void
fail_all_requests (ZotExtension *self,
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
              PendingRequest *request)
{
  GList *after;

  request->due = g_get_monotonic_time () + (gint64) request->timeout_ms * 1000;
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

  if (self->state != ZOT_EXTENSION_STATE_READY &&
      self->state != ZOT_EXTENSION_STATE_REGISTERING)
    {
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                               _("%s is %s and cannot take requests"),
                               self->name, zot_extension_state_to_string (self->state));
      return;
    }

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
    add_deadline (self, request);

  if (cancellable != NULL)
    {
      request->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (request->cancel_source, G_SOURCE_FUNC (request_cancelled_cb), request, NULL);
      g_source_attach (request->cancel_source, g_main_context_get_thread_default ());
    }

  if (!zot_frame_channel_send (self->channel, frame, ZOT_FRAME_REQUEST, &error))
    {
      g_autofree char *failed_id = g_strdup (id);
      fail_request (self, failed_id, g_steal_pointer (&error));
    }
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

static void
complete_request (ZotExtension *self,
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

  if (self->channel == NULL || !zot_extension_is_running (self))
    {
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                   _("%s is not running"), self->name);
      return FALSE;
    }

  return zot_frame_channel_send (self->channel, frame, ZOT_FRAME_NONE, error);
}

/* Registration */

static void
finish_init (ZotExtension *self,
             GError       *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->init_task);

  clear_source (&self->hello_timeout);
  clear_source (&self->idle_timeout);
  clear_source (&self->cap_timeout);

  if (task == NULL)
    {
      g_clear_error (&error);
      return;
    }

  if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s (log: %s)", error->message, self->log_path);

      zot_extension_log (self, "load failed: %s", error->message);
      set_last_error (self, message);
      set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_error (task, error);
      return;
    }

  set_state (self, ZOT_EXTENSION_STATE_READY);
  save_state (self);
  g_task_return_boolean (task, TRUE);
}

static gboolean
idle_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->idle_timeout, g_source_unref);
  zot_extension_log (self, "no \"ready\" frame and no frame for %u ms: treated as ready",
                     zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_IDLE));
  finish_init (self, NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
cap_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->cap_timeout, g_source_unref);
  zot_extension_log (self, "no \"ready\" frame within %u ms of hello: treated as ready",
                     zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_MAX));
  finish_init (self, NULL);
  return G_SOURCE_REMOVE;
}

static void
restart_idle_timer (ZotExtension *self)
{
  if (self->state != ZOT_EXTENSION_STATE_REGISTERING)
    return;

  clear_source (&self->idle_timeout);
  self->idle_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_IDLE),
                                    idle_timeout_cb, self, "[zot] registration idle");
}

static const char *
get_string (JsonObject *object,
            const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

static void
handle_hello (ZotExtension *self,
              JsonObject   *frame)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GStrvBuilder) caps = g_strv_builder_new ();
  const char *name = get_string (frame, "name");
  JsonNode *node;

  if (name != NULL && g_strcmp0 (name, self->name) != 0)
    zot_extension_log (self, "hello name \"%s\" differs from the manifest's \"%s\"; using the manifest's",
                       name, self->name);

  g_free (self->hello_version);
  self->hello_version = g_strdup (get_string (frame, "version"));

  node = json_object_get_member (frame, "capabilities");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
            g_strv_builder_add (caps, json_node_get_string (element));
        }
    }
  g_clear_pointer (&self->capabilities, g_strfreev);
  self->capabilities = g_strv_builder_end (caps);

  self->got_hello = TRUE;
  clear_source (&self->hello_timeout);

  json_object_set_string_member (self->hello_ack, "extension_dir", self->directory);
  json_object_set_string_member (self->hello_ack, "data_dir", self->directory);

  if (!zot_frame_channel_send (self->channel, self->hello_ack, ZOT_FRAME_REQUEST, &error))
    {
      finish_init (self, g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE,
                                      _("%s: cannot send hello_ack: %s"), self->name, error->message));
      return;
    }

  set_state (self, ZOT_EXTENSION_STATE_REGISTERING);
  self->cap_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_MAX),
                                   cap_timeout_cb, self, "[zot] registration cap");
  restart_idle_timer (self);
}

static void add_problem (ZotExtension *self,
                         const char   *problem);

/* Past the cap, one problem says so; the rest are ignored quietly. */
static gboolean
over_registration_cap (ZotExtension *self,
                       guint         count,
                       guint         cap,
                       const char   *what)
{
  if (count < cap)
    return FALSE;

  if (count == cap)
    {
      g_autofree char *problem = g_strdup_printf (_("more than %u %s registered; the rest are "
                                                    "ignored (the limit is per extension)"),
                                                  cap, what);
      add_problem (self, problem);
    }
  return TRUE;
}

static void
handle_register_command (ZotExtension *self,
                         JsonObject   *frame)
{
  const char *name = get_string (frame, "name");
  const char *description = get_string (frame, "description");
  g_autofree char *key = NULL;
  ZotExtensionCommand *command;
  ZotExtensionCommand *existing;

  if (over_registration_cap (self, self->n_command_frames++, ZOT_MAX_COMMANDS_PER_EXTENSION,
                             _("commands")))
    return;

  if (name != NULL)
    {
      while (*name == '/')
        name++;
    }

  if (name == NULL || *name == '\0')
    {
      zot_extension_log (self, "register_command without a usable \"name\" (a non-empty word), ignored");
      return;
    }

  if (!zot_name_is_command_name (name))
    {
      g_autofree char *shown = zot_name_excerpt (name);
      g_autofree char *problem = g_strdup_printf (_("command \"%s\" rejected: a command name is one word of "
                                                    "at most %u printable characters, not starting with \"-\""),
                                                  shown, ZOT_COMMAND_NAME_MAX_CHARS);
      add_problem (self, problem);
      return;
    }

  /* As the manager routes them: case-insensitive in ASCII. */
  key = g_ascii_strdown (name, -1);
  existing = g_hash_table_lookup (self->command_keys, key);
  if (existing != NULL)
    {
      zot_extension_log (self, "register_command \"%s\" conflicts with \"%s\" registered earlier by this extension; the first stays",
                         name, existing->name);
      return;
    }

  command = g_new0 (ZotExtensionCommand, 1);
  command->name = g_strdup (name);
  command->description = g_strdup (description);
  g_ptr_array_add (self->commands, command);
  g_hash_table_insert (self->command_keys, g_steal_pointer (&key), command);

  g_signal_emit (self, signals[REGISTRATION_CHANGED], 0);
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
static void
save_state (ZotExtension *self)
{
  /* No reference: dispose removes the source. */
  if (self->save_id == 0)
    self->save_id = g_idle_add_full (G_PRIORITY_LOW, save_state_now, self, NULL);
}

static void
add_problem (ZotExtension *self,
             const char   *problem)
{
  zot_extension_log (self, "%s", problem);
  g_ptr_array_add (self->problems, g_strdup (problem));
  save_state (self);
}

static void
handle_register_tool (ZotExtension *self,
                      JsonObject   *frame)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotTool) tool = NULL;

  if (over_registration_cap (self, self->n_tool_frames++, ZOT_MAX_TOOLS_PER_EXTENSION, _("tools")))
    return;

  tool = zot_extension_tool_new_from_frame (self, frame, &error);
  if (tool == NULL)
    {
      add_problem (self, error->message);
      g_signal_emit (self, signals[REGISTRATION_CHANGED], 0);
      return;
    }

  if (g_hash_table_contains (self->tool_names, zot_tool_get_name (tool)))
    {
      g_autofree char *problem = g_strdup_printf (_("tool \"%s\" registered twice; the first stays"),
                                                  zot_tool_get_name (tool));
      add_problem (self, problem);
      return;
    }

  g_hash_table_add (self->tool_names, (gpointer) zot_tool_get_name (tool));
  g_ptr_array_add (self->tools, g_steal_pointer (&tool));
  g_signal_emit (self, signals[REGISTRATION_CHANGED], 0);
}

/* PROTOCOL.md §6, in its order. An event's id is its index plus one; the
 * event path tests a bit instead of hashing a name per subscriber. */
static const char * const lifecycle_events[] = {
  "session_start", "session_end", "user_prompt_submit", "turn_start", "turn_end",
  "tool_call", "tool_confirmation_requested", "permission_decision", "tool_result",
  "assistant_message", "pre_compact", "post_compact", "subagent_start", "subagent_stop",
};

G_STATIC_ASSERT (G_N_ELEMENTS (lifecycle_events) <= 32);

/**
 * zot_lifecycle_event_id:
 * @name: an event name
 *
 * Returns: a number from 1 for an event of PROTOCOL.md §6, 0 for any other name
 */
guint
zot_lifecycle_event_id (const char *name)
{
  g_return_val_if_fail (name != NULL, 0);

  for (guint i = 0; i < G_N_ELEMENTS (lifecycle_events); i++)
    if (strcmp (lifecycle_events[i], name) == 0)
      return i + 1;

  return 0;
}

static void
add_names (ZotExtension *self,
           GHashTable   *set,
           guint32      *ids,
           JsonObject   *frame,
           const char   *member)
{
  JsonNode *node = json_object_get_member (frame, member);
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      zot_extension_log (self, "subscribe: \"%s\" is not an array, ignored", member);
      return;
    }

  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        {
          const char *name = json_node_get_string (element);
          guint id = zot_lifecycle_event_id (name);

          g_hash_table_add (set, g_strdup (name));
          if (ids != NULL && id > 0)
            *ids |= 1u << (id - 1);
        }
    }
}

/* Subscriptions accumulate over several frames. */
static void
handle_subscribe (ZotExtension *self,
                  JsonObject   *frame)
{
  add_names (self, self->events, &self->event_ids, frame, "events");
  add_names (self, self->intercepts, NULL, frame, "intercept");
  g_signal_emit (self, signals[REGISTRATION_CHANGED], 0);
}

static void
handle_notify (ZotExtension *self,
               JsonObject   *frame)
{
  const char *level = get_string (frame, "level");
  const char *message = get_string (frame, "message");
  static const char * const levels[] = { "info", "success", "warn", "error", NULL };

  if (message == NULL)
    {
      zot_extension_log (self, "notify without a string \"message\", ignored");
      return;
    }

  if (level == NULL || !g_strv_contains (levels, level))
    {
      zot_extension_log (self, "notify with unknown level \"%s\", shown as info", level ? level : "(none)");
      level = "info";
    }

  g_signal_emit (self, signals[NOTIFY_RECEIVED], 0, level, message);
}

static void
on_frame_received (ZotExtension    *self,
                   JsonObject      *frame,
                   ZotFrameChannel *channel)
{
  const char *type = json_object_get_string_member (frame, "type");

  if (!self->got_hello)
    {
      if (g_str_equal (type, "hello"))
        handle_hello (self, frame);
      else
        finish_init (self, g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE,
                                        _("%s sent \"%s\" before \"hello\"; the first frame must be hello"),
                                        self->name, type));
      if (self->state == ZOT_EXTENSION_STATE_FAILED)
        terminate_process (self, TRUE);
      return;
    }

  restart_idle_timer (self);

  if (g_str_equal (type, "register_command"))
    handle_register_command (self, frame);
  else if (g_str_equal (type, "register_tool"))
    handle_register_tool (self, frame);
  else if (g_str_equal (type, "subscribe"))
    handle_subscribe (self, frame);
  else if (g_str_equal (type, "ready"))
    {
      if (self->state == ZOT_EXTENSION_STATE_REGISTERING)
        finish_init (self, NULL);
    }
  else if (g_str_equal (type, "command_response") ||
           g_str_equal (type, "tool_result") ||
           g_str_equal (type, "event_intercept_response"))
    complete_request (self, frame);
  else if (g_str_equal (type, "notify"))
    handle_notify (self, frame);
  else if (g_str_equal (type, "clear_notes"))
    g_signal_emit (self, signals[NOTES_CLEARED], 0);
  else if (g_str_equal (type, "shutdown_ack"))
    zot_extension_log (self, "shutdown acknowledged");
  else if (g_str_equal (type, "hello"))
    zot_extension_log (self, "second hello ignored");
  else
    {
      gboolean handled = FALSE;

      g_signal_emit (self, signals[UNHANDLED_FRAME], 0, frame, &handled);
      if (!handled)
        g_debug ("%s: frame type \"%s\" ignored", self->name, type);
    }
}

static void
on_bad_line (ZotExtension    *self,
             const char      *message,
             ZotFrameChannel *channel)
{
  zot_extension_log (self, "%s", message);
}

static void
on_traffic (ZotExtension    *self,
            int              direction,
            const char      *line,
            ZotFrameChannel *channel)
{
  g_signal_emit (self, signals[TRAFFIC], 0, direction, line);
}

/* Process lifetime */

static void
complete_stop_waiters (ZotExtension *self)
{
  GTask *task;

  while ((task = g_queue_pop_head (&self->stop_waiters)))
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
}

static char *
describe_exit (GSubprocess *subprocess)
{
  if (g_subprocess_get_if_signaled (subprocess))
    {
      int sig = g_subprocess_get_term_sig (subprocess);
      return g_strdup_printf (_("killed by signal %d (%s)"), sig, g_strsignal (sig));
    }

  return g_strdup_printf (_("exited with status %d"), g_subprocess_get_exit_status (subprocess));
}

static void
handle_crash (ZotExtension *self,
              const char   *reason)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (self->state == ZOT_EXTENSION_STATE_FAILED ||
      self->state == ZOT_EXTENSION_STATE_EXITED)
    return;

  message = g_strdup_printf (_("%s stopped unexpectedly: %s (log: %s)"), self->name, reason, self->log_path);
  zot_extension_log (self, "crashed: %s", reason);

  error = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                       _("%s stopped unexpectedly: %s"), self->name, reason);
  fail_all_requests (self, error);

  set_last_error (self, message);
  set_state (self, ZOT_EXTENSION_STATE_FAILED);
  g_signal_emit (self, signals[CRASHED], 0, message);
}

/* The process is gone and everything it wrote has been read (or the wait
 * for that ran out): now its end can be told. */
static void
finish_exit (ZotExtension *self)
{
  /* Telling the end may drop the last reference to us (a failed load is
   * let go of by its manager), and this may run from the channel's own
   * signal: stay alive until done. */
  g_autoptr(ZotExtension) hold = g_object_ref (self);

  self->draining = FALSE;
  clear_source (&self->drain_timeout);

  if (self->channel != NULL)
    zot_frame_channel_close (self->channel);

  if (self->init_task != NULL)
    {
      finish_init (self, g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                                      self->got_hello
                                        ? _("%s %s before it was ready")
                                        : _("%s %s before saying hello"),
                                      self->name, self->exit_description));
    }
  else if (self->stopping)
    {
      set_state (self, ZOT_EXTENSION_STATE_EXITED);
    }
  else
    {
      handle_crash (self, self->exit_description);
    }

  complete_stop_waiters (self);
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->drain_timeout, g_source_unref);
  zot_extension_log (self, "its output stayed open %u ms after it exited (a child of its own "
                     "may hold it); stopped reading",
                     zot_timeout_get_ms (ZOT_TIMEOUT_EXIT_DRAIN));
  finish_exit (self);
  return G_SOURCE_REMOVE;
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(ZotExtension) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_finish (G_SUBPROCESS (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("%s: waiting for the process failed: %s", self->name, error->message);
      return;
    }

  self->exited = TRUE;
  self->exit_description = describe_exit (G_SUBPROCESS (object));
  zot_extension_log (self, "process %s", self->exit_description);
  clear_source (&self->ladder_timeout);
  clear_source (&self->eof_timeout);

  /* What it started and left behind is nobody's any more. */
  if (self->group > 0 && kill (-self->group, SIGTERM) == 0)
    zot_extension_log (self, "ended the processes it left behind");

  /* A frame written just before the exit (shutdown_ack, a last notify)
   * may still be in the pipe: read to the end of the output first. The
   * exit can be noticed before the data is. */
  if (self->channel != NULL && !self->channel_closed)
    {
      self->draining = TRUE;
      self->drain_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_EXIT_DRAIN),
                                         drain_timeout_cb, self, "[zot] drain after exit");
      return;
    }

  finish_exit (self);
}

/* Provider keys are for the provider: an extension gets one only when its
 * manifest asks for it by name and the user granted it. */
static void
pass_granted_keys (ZotExtension        *self,
                   GSubprocessLauncher *launcher)
{
  const char * const *asked = zot_manifest_get_env (self->manifest);
  g_auto(GStrv) granted = zot_key_grants_for (self->name);
  g_autoptr(GStrvBuilder) keep = g_strv_builder_new ();
  g_auto(GStrv) kept = NULL;

  for (guint i = 0; asked != NULL && asked[i] != NULL; i++)
    {
      g_autofree char *provider = NULL;
      const char *key;

      if (!zot_provider_is_key_variable (asked[i]))
        continue;
      if (!g_strv_contains ((const char * const *) granted, asked[i]))
        {
          zot_extension_log (self, "asks for $%s, which is not granted; grant it with "
                             "zot ext allow-key %s %s", asked[i], self->name, asked[i]);
          continue;
        }

      /* The key this host would use, from the environment or the keyring. */
      provider = g_ascii_strdown (asked[i], strlen (asked[i]) - strlen ("_API_KEY"));
      key = zot_provider_get_key (provider, NULL);
      if (key != NULL)
        g_subprocess_launcher_setenv (launcher, asked[i], key, TRUE);
      g_strv_builder_add (keep, asked[i]);
      zot_extension_log (self, "granted $%s", asked[i]);
    }

  kept = g_strv_builder_end (keep);
  zot_provider_scrub_environment (launcher, (const char * const *) kept);
}

/* Each extension leads a process group of its own (see setup_child()), so
 * that what it started ends with it: signals go to the whole group. */
static void
signal_group (ZotExtension *self,
              int           signum)
{
  if (self->group > 0 && kill (-self->group, signum) == 0)
    return;
  if (self->subprocess != NULL && !self->exited)
    g_subprocess_send_signal (self->subprocess, signum);
}

static void
setup_child (gpointer user_data)
{
  /* Async-signal-safe, between fork and exec. */
  (void) setpgid (0, 0);
}

static gboolean
ladder_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->ladder_timeout, g_source_unref);

  if (self->exited || self->subprocess == NULL)
    return G_SOURCE_REMOVE;

  if (self->ladder_step == 0)
    {
      zot_extension_log (self, "did not exit within %u ms of shutdown; sending SIGTERM",
                         zot_timeout_get_ms (ZOT_TIMEOUT_SHUTDOWN_GRACE));
      self->ladder_step = 1;
      signal_group (self, SIGTERM);
      self->ladder_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE),
                                          ladder_cb, self, "[zot] sigterm grace");
    }
  else
    {
      zot_extension_log (self, "did not exit within %u ms of SIGTERM; sending SIGKILL",
                         zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE));
      self->ladder_step = 2;
      signal_group (self, SIGKILL);
      g_subprocess_force_exit (self->subprocess);
    }

  return G_SOURCE_REMOVE;
}

/* Ends a process that is of no more use. @polite starts with SIGTERM and
 * its grace; otherwise the caller already waited and SIGKILL follows. */
static void
terminate_process (ZotExtension *self,
                   gboolean      polite)
{
  if (self->subprocess == NULL || self->exited || self->ladder_timeout != NULL)
    return;

  if (self->channel != NULL)
    zot_frame_channel_close (self->channel);

  if (polite)
    {
      zot_extension_log (self, "stopping the process: sending SIGTERM");
      self->ladder_step = 1;
      signal_group (self, SIGTERM);
      self->ladder_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE),
                                          ladder_cb, self, "[zot] sigterm grace");
    }
  else
    {
      self->ladder_step = 1;
      ladder_cb (self);
    }
}

static gboolean
eof_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->eof_timeout, g_source_unref);
  handle_crash (self, _("closed its output but kept running"));
  terminate_process (self, TRUE);
  return G_SOURCE_REMOVE;
}

static void
on_channel_closed (ZotExtension    *self,
                   const GError    *error,
                   ZotFrameChannel *channel)
{
  self->channel_closed = TRUE;

  if (self->draining)
    {
      finish_exit (self);
      return;
    }

  if (error == NULL)
    return;

  if (self->stopping)
    return;

  if (self->init_task != NULL)
    {
      if (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED))
        {
          /* Most likely the process is exiting: let the exit watcher report
           * its status. The hello deadline still bounds the wait. */
          zot_extension_log (self, "%s", error->message);
          return;
        }
      finish_init (self, g_error_new (ZOT_PROTOCOL_ERROR, error->code,
                                      "%s: %s", self->name, error->message));
      terminate_process (self, TRUE);
      return;
    }

  if (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED))
    {
      g_autoptr(GError) gone = NULL;

      if (self->exited)
        return;

      /* No reply can come any more: fail what waits now, and give the
       * process a moment to exit so that its status can be reported. */
      gone = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                          _("%s closed its output"), self->name);
      fail_all_requests (self, gone);
      self->eof_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE),
                                       eof_timeout_cb, self, "[zot] exit after eof");
      return;
    }

  handle_crash (self, error->message);
  terminate_process (self, TRUE);
}

static gboolean
hello_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->hello_timeout, g_source_unref);
  finish_init (self, g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE,
                                  self->channel_closed
                                    ? _("%s closed its output without saying hello")
                                    : _("%s did not say hello within %u s"),
                                  self->name, (zot_timeout_get_ms (ZOT_TIMEOUT_HELLO) + 999) / 1000));
  terminate_process (self, TRUE);
  return G_SOURCE_REMOVE;
}

static int
open_log (ZotExtension  *self,
          GError       **error)
{
  g_autofree char *dir = g_path_get_dirname (self->log_path);
  int fd;

  if (g_mkdir_with_parents (dir, 0700) < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot create the log directory %s: %s"), dir, g_strerror (errsv));
      return -1;
    }

  fd = g_open (self->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot open the log %s: %s"), self->log_path, g_strerror (errsv));
    }

  return fd;
}

static void
write_header (ZotExtension *self,
              const char   *program)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format_iso8601 (now);
  g_autofree char *args = g_strjoinv (" ", (char **) zot_manifest_get_args (self->manifest));
  g_autofree char *header = NULL;

  header = g_strdup_printf ("\n=== %s: started by zot %s at %s: %s%s%s (in %s)\n",
                            self->name, PACKAGE_VERSION, stamp, program,
                            *args ? " " : "", args, self->directory);
  if (write (self->log_fd, header, strlen (header)) < 0)
    g_debug ("%s: cannot write to %s", self->name, self->log_path);
}

static void
zot_extension_init_async (GAsyncInitable      *initable,
                          int                  io_priority,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  ZotExtension *self = ZOT_EXTENSION (initable);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) argv = NULL;
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *program = NULL;
  const char *identifier;
  int stderr_fd;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_init_async);

  if (self->state != ZOT_EXTENSION_STATE_STARTING || self->subprocess != NULL)
    {
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                               _("%s cannot be started: it is %s"),
                               self->name, zot_extension_state_to_string (self->state));
      return;
    }

  self->log_fd = open_log (self, &error);
  if (self->log_fd < 0)
    {
      set_last_error (self, error->message);
      set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  program = zot_manifest_resolve_exec (self->manifest, &error);
  if (program == NULL)
    {
      zot_extension_log (self, "%s", error->message);
      set_last_error (self, error->message);
      set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  write_header (self, program);

  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, program);
  g_strv_builder_addv (builder, (const char **) zot_manifest_get_args (self->manifest));
  argv = g_strv_builder_end (builder);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_cwd (launcher, self->directory);
  g_subprocess_launcher_set_child_setup (launcher, setup_child, NULL, NULL);
  pass_granted_keys (self, launcher);
  stderr_fd = dup (self->log_fd);
  if (stderr_fd >= 0)
    g_subprocess_launcher_take_stderr_fd (launcher, stderr_fd);

  self->subprocess = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &error);
  if (self->subprocess == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("%s: cannot start %s: %s"),
                                                  self->name, program, error->message);
      zot_extension_log (self, "%s", message);
      set_last_error (self, message);
      set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_SPAWN, "%s", message);
      return;
    }

  self->init_task = g_steal_pointer (&task);
  /* GLib forgets the pid once its worker thread has reaped the child, and
   * a program that exits at once can get there first; such an extension is
   * gone before it could start anything worth signalling. */
  identifier = g_subprocess_get_identifier (self->subprocess);
  self->group = identifier != NULL ? (GPid) g_ascii_strtoll (identifier, NULL, 10) : 0;

  /* GSubprocess leaves its pipes blocking; a write to an extension that
   * does not read would then stop the main loop, deadline and all. */
  if (!g_unix_set_fd_nonblocking (g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (g_subprocess_get_stdin_pipe (self->subprocess))),
                                  TRUE, &error))
    g_debug ("%s: cannot make its input non-blocking: %s", self->name, error->message);
  g_clear_error (&error);

  self->channel = zot_frame_channel_new (g_subprocess_get_stdout_pipe (self->subprocess),
                                         g_subprocess_get_stdin_pipe (self->subprocess));
  zot_frame_channel_set_trace (self->channel, self->trace);
  g_signal_connect_object (self->channel, "frame-received", G_CALLBACK (on_frame_received),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->channel, "bad-line", G_CALLBACK (on_bad_line),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->channel, "closed", G_CALLBACK (on_channel_closed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->channel, "traffic", G_CALLBACK (on_traffic),
                           self, G_CONNECT_SWAPPED);

  g_subprocess_wait_async (self->subprocess, self->cancellable, wait_cb, g_object_ref (self));

  self->hello_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_HELLO),
                                     hello_timeout_cb, self, "[zot] hello deadline");
  zot_frame_channel_start (self->channel);
}

static gboolean
zot_extension_init_finish (GAsyncInitable  *initable,
                           GAsyncResult    *result,
                           GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, initable), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
async_initable_iface_init (GAsyncInitableIface *iface)
{
  iface->init_async = zot_extension_init_async;
  iface->init_finish = zot_extension_init_finish;
}

/* Shutdown */

static void
stop_flushed_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(ZotExtension) self = user_data;
  g_autoptr(JsonObject) shutdown = NULL;
  g_autoptr(GError) error = NULL;

  if (!zot_frame_channel_flush_finish (ZOT_FRAME_CHANNEL (object), result, &error))
    {
      if (!self->exited)
        zot_extension_log (self, "could not drain queued frames before shutdown: %s", error->message);
      return;
    }

  if (self->exited)
    return;

  shutdown = json_object_new ();
  json_object_set_string_member (shutdown, "type", "shutdown");
  if (zot_frame_channel_send (self->channel, shutdown, ZOT_FRAME_NONE, &error))
    zot_frame_channel_close_output (self->channel);
  else
    zot_extension_log (self, "could not send shutdown: %s", error->message);
}

/**
 * zot_extension_stop_async:
 *
 * Runs the shutdown ladder: drain queued frames and send `shutdown`, wait
 * for the exit within the grace, then SIGTERM, wait, SIGKILL. Completes when
 * the process has exited; never fails.
 */
void
zot_extension_stop_async (ZotExtension        *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) stopping = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_stop_async);

  if (self->subprocess == NULL || self->exited)
    {
      if (self->state != ZOT_EXTENSION_STATE_DISABLED &&
          self->state != ZOT_EXTENSION_STATE_FAILED)
        set_state (self, ZOT_EXTENSION_STATE_EXITED);
      g_task_return_boolean (task, TRUE);
      return;
    }

  g_queue_push_tail (&self->stop_waiters, g_steal_pointer (&task));

  if (self->stopping)
    return;

  self->stopping = TRUE;
  zot_extension_log (self, "stopping");

  stopping = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                          _("%s is shutting down"), self->name);
  if (self->init_task != NULL)
    finish_init (self, g_error_copy (stopping));
  fail_all_requests (self, stopping);

  if (self->state != ZOT_EXTENSION_STATE_FAILED)
    set_state (self, ZOT_EXTENSION_STATE_STOPPING);

  if (self->ladder_timeout == NULL)
    {
      self->ladder_step = 0;
      self->ladder_timeout = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_SHUTDOWN_GRACE),
                                          ladder_cb, self, "[zot] shutdown grace");
    }

  if (self->channel != NULL && !zot_frame_channel_is_closed (self->channel))
    zot_frame_channel_flush_async (self->channel, NULL, stop_flushed_cb, g_object_ref (self));
}

gboolean
zot_extension_stop_finish (ZotExtension  *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* GObject */

static void
zot_extension_dispose (GObject *object)
{
  ZotExtension *self = (ZotExtension *)object;

  g_cancellable_cancel (self->cancellable);

  clear_source (&self->hello_timeout);
  clear_source (&self->idle_timeout);
  clear_source (&self->cap_timeout);
  clear_source (&self->ladder_timeout);
  clear_source (&self->eof_timeout);
  clear_source (&self->drain_timeout);
  g_clear_handle_id (&self->save_id, g_source_remove);

  if (self->pending != NULL)
    g_hash_table_remove_all (self->pending);
  clear_source (&self->deadline_source);

  if (self->channel != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->channel, self);
      zot_frame_channel_close (self->channel);
      g_clear_object (&self->channel);
    }

  /* Nobody is left to run the ladder: make sure nothing outlives us. */
  if (self->subprocess != NULL && !self->exited)
    {
      signal_group (self, SIGKILL);
      g_subprocess_force_exit (self->subprocess);
    }
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
  g_clear_pointer (&self->problems, g_ptr_array_unref);
  g_clear_pointer (&self->events, g_hash_table_unref);
  g_clear_pointer (&self->intercepts, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->exit_description, g_free);

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

  properties [PROP_STATE] =
    g_param_spec_int ("state", NULL, NULL,
                      ZOT_EXTENSION_STATE_DISABLED, ZOT_EXTENSION_STATE_FAILED,
                      ZOT_EXTENSION_STATE_STARTING,
                      (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties [PROP_LAST_ERROR] =
    g_param_spec_string ("last-error", NULL, NULL,
                         NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals [NOTIFY_RECEIVED] =
    g_signal_new ("notify-received",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  signals [NOTES_CLEARED] =
    g_signal_new ("notes-cleared",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  signals [REGISTRATION_CHANGED] =
    g_signal_new ("registration-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  signals [CRASHED] =
    g_signal_new ("crashed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotExtension::unhandled-frame:
   * @frame: a frame this object does not handle itself
   *
   * Returns: %TRUE when a handler took the frame
   */
  signals [UNHANDLED_FRAME] =
    g_signal_new ("unhandled-frame",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);

  signals [TRAFFIC] =
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
  save_state (self);
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
    add_problem (self, problem);
}

gboolean
zot_extension_is_subscribed (ZotExtension *self,
                             const char   *event)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION (self), FALSE);
  return g_hash_table_contains (self->events, event);
}

ZotFrameChannel *
_zot_extension_event_channel (ZotExtension *self,
                              guint         event_id,
                              const char   *event)
{
  if (self->channel == NULL ||
      (self->state != ZOT_EXTENSION_STATE_REGISTERING && self->state != ZOT_EXTENSION_STATE_READY))
    return NULL;

  if (event_id > 0 ? (self->event_ids & (1u << (event_id - 1))) == 0
                   : !g_hash_table_contains (self->events, event))
    return NULL;

  return self->channel;
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
