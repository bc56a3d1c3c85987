/* zot-extension-frames.c — what an extension sends, and its registration.
 *
 * Frames from the extension arrive here from its channel: the handshake
 * (`hello`, answered with `hello_ack`), the registrations until `ready` or
 * the legacy idle/cap timers, notes, and replies to the host's requests.
 * Frames this object does not handle go to the manager. Two tables say
 * which frames are taken, and sent, in which state.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-error.h"
#include "zot-extension-private.h"
#include "zot-source.h"
#include "zot-extension-tool.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-names.h"

/* Registration */

void
_zot_extension_finish_init (ZotExtension *self,
                            GError       *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->init_task);

  zot_clear_source (&self->hello_timeout);
  zot_clear_source (&self->idle_timeout);
  zot_clear_source (&self->cap_timeout);

  if (task == NULL)
    {
      g_clear_error (&error);
      return;
    }

  if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf ("%s (log: %s)", error->message, self->log_path);

      zot_extension_log (self, "load failed: %s", error->message);
      _zot_extension_set_last_error (self, message);
      _zot_extension_set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_error (task, error);
      return;
    }

  _zot_extension_set_state (self, ZOT_EXTENSION_STATE_READY);
  _zot_extension_save_state (self);
  g_task_return_boolean (task, TRUE);
}

static gboolean
idle_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->idle_timeout, g_source_unref);
  zot_extension_log (self, "no \"ready\" frame and no frame for %u ms: treated as ready",
                     zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_IDLE));
  _zot_extension_finish_init (self, NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
cap_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->cap_timeout, g_source_unref);
  zot_extension_log (self, "no \"ready\" frame within %u ms of hello: treated as ready",
                     zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_MAX));
  _zot_extension_finish_init (self, NULL);
  return G_SOURCE_REMOVE;
}

static void
restart_idle_timer (ZotExtension *self)
{
  if (self->state != ZOT_EXTENSION_STATE_REGISTERING)
    return;

  zot_clear_source (&self->idle_timeout);
  self->idle_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_REGISTRATION_IDLE, idle_timeout_cb,
                                                   self, "[zot] registration idle");
}

static void
handle_hello (ZotExtension *self,
              JsonObject   *frame)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GStrvBuilder) caps = g_strv_builder_new ();
  const char *name = zot_json_get_string (frame, "name");
  JsonNode *node;

  if (name != NULL && g_strcmp0 (name, self->name) != 0)
    zot_extension_log (self, "hello name \"%s\" differs from the manifest's \"%s\"; using the manifest's",
                       name, self->name);

  g_free (self->hello_version);
  self->hello_version = g_strdup (zot_json_get_string (frame, "version"));

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
  zot_clear_source (&self->hello_timeout);

  json_object_set_string_member (self->hello_ack, "extension_dir", self->directory);
  json_object_set_string_member (self->hello_ack, "data_dir", self->directory);

  if (!_zot_extension_send (self, self->hello_ack, &error))
    {
      _zot_extension_finish_init (self,
                                  g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE,
                                               _("%s: cannot send hello_ack: %s"),
                                               self->name, error->message));
      _zot_extension_terminate_process (self, TRUE);
      return;
    }

  _zot_extension_set_state (self, ZOT_EXTENSION_STATE_REGISTERING);
  self->cap_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_REGISTRATION_MAX, cap_timeout_cb,
                                                  self, "[zot] registration cap");
  restart_idle_timer (self);
}

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
      /* Translators: %u is a number, %s is "commands" or "tools" (translated below) */
      g_autofree char *problem = g_strdup_printf (_("more than %u %s registered; the rest are "
                                                    "ignored (the limit is per extension)"),
                                                  cap, what);
      _zot_extension_record_problem (self, problem);
    }
  return TRUE;
}

/**
 * zot_extension_check_command_name:
 * @name: a `register_command` name, without its leading slashes
 *
 * The rule the host applies to a command's name, shared with `zot ext
 * check`.
 *
 * Returns: whether the host accepts the name; %FALSE with @error saying why
 */
gboolean
zot_extension_check_command_name (const char  *name,
                                  GError     **error)
{
  g_autofree char *shown = NULL;

  if (name != NULL && zot_name_is_command_name (name))
    return TRUE;

  shown = zot_name_excerpt (name != NULL ? name : "");
  g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
               _("command \"%s\" rejected: a command name is one word of "
                 "at most %u printable characters, not starting with \"-\""),
               shown, ZOT_COMMAND_NAME_MAX_CHARS);
  return FALSE;
}

static void
handle_register_command (ZotExtension *self,
                         JsonObject   *frame)
{
  const char *name = zot_json_get_string (frame, "name");
  const char *description = zot_json_get_string (frame, "description");
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  ZotExtensionCommand *command;
  ZotExtensionCommand *existing;

  if (over_registration_cap (self, self->n_command_frames++, ZOT_MAX_COMMANDS_PER_EXTENSION,
                             /* Translators: used in "more than 64 commands registered" */
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

  if (!zot_extension_check_command_name (name, &error))
    {
      _zot_extension_record_problem (self, error->message);
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

  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_REGISTRATION_CHANGED], 0);
}

static void
handle_register_tool (ZotExtension *self,
                      JsonObject   *frame)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotTool) tool = NULL;

  /* Translators: used in "more than 64 tools registered" */
  if (over_registration_cap (self, self->n_tool_frames++, ZOT_MAX_TOOLS_PER_EXTENSION, _("tools")))
    return;

  tool = zot_extension_tool_new_from_frame (self, frame, &error);
  if (tool == NULL)
    {
      _zot_extension_record_problem (self, error->message);
      g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_REGISTRATION_CHANGED], 0);
      return;
    }

  if (g_hash_table_contains (self->tool_names, zot_tool_get_name (tool)))
    {
      g_autofree char *problem = g_strdup_printf (_("tool \"%s\" registered twice; the first stays"),
                                                  zot_tool_get_name (tool));
      _zot_extension_record_problem (self, problem);
      return;
    }

  g_hash_table_add (self->tool_names, (gpointer) zot_tool_get_name (tool));
  g_ptr_array_add (self->tools, g_steal_pointer (&tool));
  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_REGISTRATION_CHANGED], 0);
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
  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_REGISTRATION_CHANGED], 0);
}

static void
handle_notify (ZotExtension *self,
               JsonObject   *frame)
{
  const char *level = zot_json_get_string (frame, "level");
  const char *message = zot_json_get_string (frame, "message");
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

  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_NOTIFY_RECEIVED], 0,
                 level, message);
}

static void
handle_ready (ZotExtension *self,
              JsonObject   *frame)
{
  _zot_extension_finish_init (self, NULL);
}

static void
handle_clear_notes (ZotExtension *self,
                    JsonObject   *frame)
{
  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_NOTES_CLEARED], 0);
}

static void
handle_shutdown_ack (ZotExtension *self,
                     JsonObject   *frame)
{
  zot_extension_log (self, "shutdown acknowledged");
}

/**
 * _zot_extension_end_unknown_window:
 *
 * Ends the window of unknown frame types: what was counted and not logged
 * in it is logged now, in one line.
 */
void
_zot_extension_end_unknown_window (ZotExtension *self)
{
  zot_clear_source (&self->unknown_window);

  if (self->n_unknown_suppressed > 0)
    zot_extension_log (self, "unknown frame types: %u more ignored without a log line",
                       self->n_unknown_suppressed);
  self->n_unknown_logged = 0;
  self->n_unknown_suppressed = 0;
}

static gboolean
unknown_window_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->unknown_window, g_source_unref);
  _zot_extension_end_unknown_window (self);
  return G_SOURCE_REMOVE;
}

/* PROTOCOL.md §0: an unknown type is ignored, and logged with its type;
 * a burst per window at most (ZOT_UNKNOWN_FRAME_LOG_BURST), so that a
 * flood of them cannot fill the disk. */
static void
log_unknown_frame (ZotExtension *self,
                   const char   *type)
{
  g_autofree char *shown = NULL;

  if (self->unknown_window == NULL)
    self->unknown_window = _zot_extension_add_timeout (ZOT_TIMEOUT_UNKNOWN_FRAME_WINDOW,
                                                       unknown_window_cb, self,
                                                       "[zot] unknown frame window");

  if (self->n_unknown_logged >= ZOT_UNKNOWN_FRAME_LOG_BURST)
    {
      self->n_unknown_suppressed++;
      return;
    }

  self->n_unknown_logged++;
  shown = zot_name_excerpt (type);
  if (self->n_unknown_logged < ZOT_UNKNOWN_FRAME_LOG_BURST)
    zot_extension_log (self, "frame type \"%s\" is unknown, ignored", shown);
  else
    zot_extension_log (self, "frame type \"%s\" is unknown, ignored; more unknown frames in the "
                       "next %u s are only counted", shown,
                       (zot_timeout_get_ms (ZOT_TIMEOUT_UNKNOWN_FRAME_WINDOW) + 999) / 1000);
}

/* Panels and call_tool are the manager's, as is any type not known here:
 * the frame goes out as ::unhandled-frame. */
static void
forward_frame (ZotExtension *self,
               JsonObject   *frame)
{
  gboolean handled = FALSE;

  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_UNHANDLED_FRAME], 0,
                 frame, &handled);
  if (!handled)
    log_unknown_frame (self, json_object_get_string_member (frame, "type"));
}

#define IN(state) ZOT_EXTENSION_STATE_BIT (ZOT_EXTENSION_STATE_##state)
#define RUNNING   (IN (REGISTERING) | IN (READY))

/* Frames from the extension, and the states in which each is taken
 * ("Frames by state" in docs/protocol.md). A frame in another state is
 * logged and dropped: registrations and replies from an extension that is
 * being stopped change nothing any more, and hello comes once. Notes are
 * still shown while it stops (its last words); shutdown_ack answers
 * shutdown, which a stop during registration sends too, once the load has
 * failed. Before hello, any other frame fails the load. A type without a
 * row goes to the manager in any state after hello. */
static const ZotExtensionIncomingFrame incoming_frames[] = {
  { "hello",                    IN (STARTING),                handle_hello },
  { "register_command",         RUNNING,                      handle_register_command },
  { "register_tool",            RUNNING,                      handle_register_tool },
  { "subscribe",                RUNNING,                      handle_subscribe },
  { "unregister_tool",          RUNNING,                      _zot_extension_handle_unregister_tool },
  { "unregister_command",       RUNNING,                      _zot_extension_handle_unregister_command },
  { "ready",                    IN (REGISTERING),             handle_ready },
  { "command_response",         RUNNING,                      _zot_extension_complete_request },
  { "tool_result",              RUNNING,                      _zot_extension_complete_request },
  { "event_intercept_response", RUNNING,                      _zot_extension_complete_request },
  { "tool_progress",            RUNNING,                      _zot_extension_handle_tool_progress },
  { "notify",                   RUNNING | IN (STOPPING),      handle_notify },
  { "clear_notes",              RUNNING | IN (STOPPING),      handle_clear_notes },
  { "shutdown_ack",             IN (STOPPING) | IN (FAILED),  handle_shutdown_ack },
  { "panel_render",             RUNNING,                      forward_frame },
  { "panel_close",              RUNNING,                      forward_frame },
  { "open_panel",               RUNNING,                      forward_frame },
  { "call_tool",                RUNNING,                      forward_frame },
  { "call_tool_cancel",         RUNNING,                      forward_frame },
  { "submit",                   RUNNING,                      forward_frame },
  { "submit_slash",             RUNNING,                      forward_frame },
};

/* Frames the host sends, the states in which each may go out, and
 * whether its write has the request deadline. Every frame but events goes
 * out through _zot_extension_send(); events, which the manager serializes
 * once for all subscribers, go to _zot_extension_event_channel(), which
 * asks their row. */
#define EVENT_STATES RUNNING

static const ZotExtensionOutgoingFrame outgoing_frames[] = {
  { "hello_ack",       IN (STARTING),               ZOT_FRAME_REQUEST, NULL },
  { "command_invoked", RUNNING,                     ZOT_FRAME_REQUEST, "command_response" },
  { "tool_call",       RUNNING,                     ZOT_FRAME_REQUEST, "tool_result" },
  { "event_intercept", RUNNING,                     ZOT_FRAME_REQUEST, "event_intercept_response" },
  { "event",           EVENT_STATES,                ZOT_FRAME_NONE,    NULL },
  { "tool_cancel",     RUNNING,                     ZOT_FRAME_NONE,    NULL },
  { "tool_result",     RUNNING,                     ZOT_FRAME_NONE,    NULL },
  { "panel_key",       RUNNING,                     ZOT_FRAME_NONE,    NULL },
  { "panel_resize",    RUNNING,                     ZOT_FRAME_NONE,    NULL },
  { "panel_close",     RUNNING,                     ZOT_FRAME_NONE,    NULL },
  { "panel_event",     RUNNING,                     ZOT_FRAME_NONE,    NULL },
  { "shutdown",        IN (STOPPING) | IN (FAILED), ZOT_FRAME_NONE,    NULL },
};

const ZotExtensionIncomingFrame *
_zot_extension_incoming_frames (guint *n_frames)
{
  *n_frames = G_N_ELEMENTS (incoming_frames);
  return incoming_frames;
}

const ZotExtensionOutgoingFrame *
_zot_extension_outgoing_frames (guint *n_frames)
{
  *n_frames = G_N_ELEMENTS (outgoing_frames);
  return outgoing_frames;
}

/**
 * zot_extension_get_request_types:
 *
 * The frames the host sends that an extension answers, with a frame of
 * the same "id": what a trace of the traffic can time.
 *
 * Returns: (transfer none) (array zero-terminated=1): their types
 */
const char * const *
zot_extension_get_request_types (void)
{
  static const char **types;

  if (g_once_init_enter (&types))
    {
      GPtrArray *found = g_ptr_array_new ();

      for (guint i = 0; i < G_N_ELEMENTS (outgoing_frames); i++)
        if (outgoing_frames[i].answer != NULL)
          g_ptr_array_add (found, (gpointer) outgoing_frames[i].type);
      g_ptr_array_add (found, NULL);
      g_once_init_leave (&types, (const char **) g_ptr_array_free (found, FALSE));
    }

  return types;
}

static gboolean
state_allows (ZotExtension *self,
              guint         states)
{
  return (states & ZOT_EXTENSION_STATE_BIT (self->state)) != 0;
}

static void
on_frame_received (ZotExtension    *self,
                   JsonObject      *frame,
                   ZotFrameChannel *channel)
{
  const char *type = json_object_get_string_member (frame, "type");
  const ZotExtensionIncomingFrame *row = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (incoming_frames) && row == NULL; i++)
    if (g_str_equal (incoming_frames[i].type, type))
      row = &incoming_frames[i];

  /* The legacy end of registration counts any frame as activity. */
  restart_idle_timer (self);

  if (row != NULL && state_allows (self, row->states))
    {
      row->handle (self, frame);
      return;
    }

  if (row == NULL && self->state != ZOT_EXTENSION_STATE_STARTING)
    {
      forward_frame (self, frame);
      return;
    }

  zot_extension_log (self, "frame \"%s\" in state %s ignored",
                     type, zot_extension_state_to_string (self->state));

  if (self->state == ZOT_EXTENSION_STATE_STARTING)
    {
      _zot_extension_finish_init (self,
                                  g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE,
                                               _("%s sent \"%s\" before \"hello\"; "
                                                 "the first frame must be hello"),
                                               self->name, type));
      _zot_extension_terminate_process (self, TRUE);
    }
}

/**
 * _zot_extension_send:
 * @frame: a frame whose type is in the table of frames the host sends
 *
 * Sends @frame if the extension's state allows its type, with the request
 * deadline if its type has one. A refusal is logged: the state can change
 * under a caller (a crash, a stop) between its check and its send.
 */
gboolean
_zot_extension_send (ZotExtension  *self,
                     JsonObject    *frame,
                     GError       **error)
{
  const char *type = zot_json_get_string_or (frame, "type", NULL);
  const ZotExtensionOutgoingFrame *row = NULL;

  for (guint i = 0; type != NULL && i < G_N_ELEMENTS (outgoing_frames) && row == NULL; i++)
    if (g_str_equal (outgoing_frames[i].type, type))
      row = &outgoing_frames[i];

  /* A frame type the host sends without deciding its states is a bug. */
  if (row == NULL)
    {
      g_critical ("%s: no row for frame type \"%s\" in the host's outgoing frames",
                  G_STRFUNC, type != NULL ? type : "(none)");
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                   "the host does not send \"%s\" frames", type != NULL ? type : "");
      return FALSE;
    }

  if (self->channel == NULL || !state_allows (self, row->states))
    {
      zot_extension_log (self, "frame \"%s\" in state %s not sent",
                         type, zot_extension_state_to_string (self->state));
      if (row->flags & ZOT_FRAME_REQUEST)
        g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                     /* Translators: the extension's name, then its state, such as "starting" or
                      * "stopping" (not translated) */
                     _("%s is %s and cannot take requests"),
                     self->name, zot_extension_state_to_string (self->state));
      else
        g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                     _("%s is not running"), self->name);
      return FALSE;
    }

  return zot_frame_channel_send (self->channel, frame, row->flags, error);
}

ZotFrameChannel *
_zot_extension_event_channel (ZotExtension *self,
                              guint         event_id,
                              const char   *event)
{
  if (self->channel == NULL || !state_allows (self, EVENT_STATES))
    return NULL;

  if (event_id > 0 ? (self->event_ids & (1u << (event_id - 1))) == 0
                   : !g_hash_table_contains (self->events, event))
    return NULL;

  return self->channel;
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
  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_TRAFFIC], 0, direction, line);
}

void
_zot_extension_read_frames (ZotExtension *self)
{
  g_signal_connect_object (self->channel, "frame-received", G_CALLBACK (on_frame_received),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->channel, "bad-line", G_CALLBACK (on_bad_line),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->channel, "traffic", G_CALLBACK (on_traffic),
                           self, G_CONNECT_SWAPPED);
}
