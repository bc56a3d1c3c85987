/* zot-ext-extension.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "zot-ext"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>

#include "zot-ext-private.h"

/**
 * ZotExtExtension:
 *
 * One zot extension: what it registers and its connection to the host.
 *
 * Create it with [ctor@ZotExt.Extension.new], register tools, commands,
 * subscriptions and interceptions, connect to the signals that answer
 * them, then call [method@ZotExt.Extension.run] (stdin and stdout) or
 * [method@ZotExt.Extension.run_async] (any pair of streams).
 *
 * Everything happens on the thread-default [struct@GLib.MainContext] of
 * the thread that called `run`; the library starts no threads. Handlers
 * run on the read loop, so they must not block: reply later from a
 * callback when the work is asynchronous.
 *
 * The library keeps the protocol's rules for you: `hello` is built from
 * what was registered (`tool_cancel` is added with the first tool),
 * registrations follow `hello_ack` and end with `ready`; only live
 * invocations are answered; ids are unique; nested calls carry their
 * `parent_id`; a frame over %ZOT_EXT_FRAME_MAX_BYTES is never written and
 * an inbound line over it is skipped with a line on stderr, its memory
 * bounded; `shutdown` cancels every handler and is answered with
 * `shutdown_ack`; the end of input cancels every handler and ends `run`.
 */

#define READ_CHUNK_BYTES (64 * 1024)

typedef enum
{
  PHASE_IDLE,
  PHASE_HELLO_SENT,
  PHASE_READY,
  PHASE_CLOSING,
  PHASE_CLOSED,
} Phase;

typedef struct
{
  ZotExtExtension *extension;
  char            *id;
  GTask           *task;
  GCancellable    *parent;
  GCancellable    *cancellable;
  gulong           parent_handler;
  gulong           cancellable_handler;
} Call;

struct _ZotExtExtension
{
  GObject        parent_instance;

  char          *name;
  char          *version;

  /* What the extension registers, as the frames that announce it. */
  GPtrArray     *registrations;
  GHashTable    *tools;
  GHashTable    *commands;
  GPtrArray     *events;
  GPtrArray     *intercepts;
  GPtrArray     *extra_capabilities;
  char         **hello_capabilities;

  GInputStream  *input;
  GOutputStream *output;
  GCancellable  *read_cancellable;
  GSource       *read_source;
  GCancellable  *run_cancellable;
  gulong         run_cancelled_handler;
  GTask         *run_task;
  Phase          phase;
  gboolean       failed;

  guint8        *read_buffer;
  GByteArray    *line;
  gboolean       skipping;
  gsize          skipped;
  JsonParser    *parser;

  GQueue         write_queue;
  GBytes        *in_flight;

  JsonObject    *hello_ack;
  char         **host_capabilities;

  GHashTable    *invocations;
  GHashTable    *live_intercepts;
  GHashTable    *calls;
  GPtrArray     *to_dispatch;
  guint64        last_call;
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_VERSION,
  N_PROPS
};

enum {
  HELLO,
  TOOL_CALL,
  COMMAND,
  EVENT,
  INTERCEPT,
  PANEL_KEY,
  PANEL_CLOSE,
  PANEL_EVENT,
  PANEL_RESIZE,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotExtExtension, zot_ext_extension, G_TYPE_OBJECT)

/**
 * zot_ext_error_quark:
 *
 * Gets the quark of the %ZOT_EXT_ERROR domain.
 *
 * Returns: the error domain's quark
 */
G_DEFINE_QUARK (zot-ext-error-quark, zot_ext_error)

static void close_connection (ZotExtExtension *self,
                              gboolean         shutdown,
                              const GError    *error);

/* JSON helpers */

JsonNode *
_zot_ext_parse_json (const char    *json,
                     JsonNodeType   type,
                     const char    *what,
                     GError       **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  if (!json_parser_load_from_data (parser, json, -1, &local_error))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_JSON,
                   "%s is not valid JSON: %s", what, local_error->message);
      return NULL;
    }
  root = json_parser_steal_root (parser);
  if (root == NULL)
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_JSON, "%s is empty", what);
      return NULL;
    }
  if (type != JSON_NODE_NULL && JSON_NODE_TYPE (root) != type)
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_JSON,
                   "%s must be a JSON %s", what, type == JSON_NODE_OBJECT ? "object" : "array");
      json_node_unref (root);
      return NULL;
    }
  return root;
}

static const char *
member_string (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static JsonNode *
string_array_node (const char * const *strings)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strings != NULL && strings[i] != NULL; i++)
    json_array_add_string_element (array, strings[i]);
  return json_node_init_array (json_node_alloc (), array);
}

JsonNode *
_zot_ext_open_panel_node (const char         *panel_id,
                          const char         *title,
                          const char * const *lines,
                          JsonNode           *widgets,
                          const char         *footer)
{
  JsonObject *panel = json_object_new ();

  json_object_set_string_member (panel, "id", panel_id);
  json_object_set_string_member (panel, "title", title != NULL ? title : "");
  if (widgets != NULL)
    json_object_set_member (panel, "widgets", widgets);
  else
    json_object_set_member (panel, "lines", string_array_node (lines));
  json_object_set_string_member (panel, "footer", footer != NULL ? footer : "");
  return json_node_init_object (json_node_alloc (), panel);
}

gboolean
_zot_ext_frame_fits (JsonNode  *frame,
                     char     **out_text,
                     gsize     *out_len)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  gsize len = 0;

  json_generator_set_root (generator, frame);
  *out_text = json_generator_to_data (generator, &len);
  *out_len = len;
  return len <= ZOT_EXT_FRAME_MAX_BYTES;
}

/* Writing: one queue, one write in flight, frames in the order queued.
 * Whatever queued up while a write was in flight goes out as one write. */

static void pump_writes (ZotExtExtension *self);

static void
maybe_finish_run (ZotExtExtension *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->phase != PHASE_CLOSING || self->in_flight != NULL || !g_queue_is_empty (&self->write_queue))
    return;

  self->phase = PHASE_CLOSED;
  if (self->run_cancellable != NULL && self->run_cancelled_handler != 0)
    g_signal_handler_disconnect (self->run_cancellable, self->run_cancelled_handler);
  self->run_cancelled_handler = 0;
  g_clear_object (&self->run_cancellable);

  task = g_steal_pointer (&self->run_task);
  if (task == NULL)
    return;
  if (self->failed)
    g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_CLOSED,
                             "the connection to the host failed");
  else
    g_task_return_boolean (task, TRUE);
}

static void
write_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(ZotExtExtension) self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->in_flight, g_bytes_unref);

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      g_printerr ("[%s] writing to the host failed: %s\n", self->name, error->message);
      g_queue_clear_full (&self->write_queue, (GDestroyNotify) g_bytes_unref);
      if (self->phase < PHASE_CLOSING)
        {
          self->failed = TRUE;
          close_connection (self, FALSE, error);
        }
      maybe_finish_run (self);
      return;
    }

  pump_writes (self);
}

static void
pump_writes (ZotExtExtension *self)
{
  GBytes *bytes;

  if (self->in_flight != NULL)
    return;

  if (g_queue_is_empty (&self->write_queue))
    {
      maybe_finish_run (self);
      return;
    }

  if (g_queue_get_length (&self->write_queue) == 1)
    bytes = g_queue_pop_head (&self->write_queue);
  else
    {
      GByteArray *joined = g_byte_array_new ();
      GBytes *part;

      while ((part = g_queue_pop_head (&self->write_queue)) != NULL)
        {
          gsize size;
          gconstpointer data = g_bytes_get_data (part, &size);

          g_byte_array_append (joined, data, size);
          g_bytes_unref (part);
        }
      bytes = g_byte_array_free_to_bytes (joined);
    }

  /* Most frames fit the pipe at once: writing them right away saves a
   * GTask and a main-loop round per frame. What does not fit goes out
   * asynchronously, still in order. */
  if (G_IS_POLLABLE_OUTPUT_STREAM (self->output) &&
      g_pollable_output_stream_can_poll (G_POLLABLE_OUTPUT_STREAM (self->output)))
    {
      GPollableOutputStream *pollable = G_POLLABLE_OUTPUT_STREAM (self->output);
      const guint8 *data = g_bytes_get_data (bytes, NULL);
      g_autoptr(GError) error = NULL;
      gsize size = g_bytes_get_size (bytes);
      gsize done = 0;

      while (done < size)
        {
          gssize n = g_pollable_output_stream_write_nonblocking (pollable, data + done, size - done,
                                                                 NULL, &error);
          if (n <= 0)
            break;
          done += n;
        }

      if (done == size)
        {
          g_bytes_unref (bytes);
          maybe_finish_run (self);
          return;
        }
      if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          /* Finishing the run may drop the caller's last reference. */
          G_GNUC_UNUSED g_autoptr(ZotExtExtension) hold = g_object_ref (self);

          g_bytes_unref (bytes);
          g_printerr ("[%s] writing to the host failed: %s\n", self->name, error->message);
          g_queue_clear_full (&self->write_queue, (GDestroyNotify) g_bytes_unref);
          if (self->phase < PHASE_CLOSING)
            {
              self->failed = TRUE;
              close_connection (self, FALSE, error);
            }
          maybe_finish_run (self);
          return;
        }
      if (done > 0)
        {
          GBytes *rest = g_bytes_new_from_bytes (bytes, done, size - done);

          g_bytes_unref (bytes);
          bytes = rest;
        }
    }

  self->in_flight = bytes;
  g_output_stream_write_all_async (self->output,
                                   g_bytes_get_data (bytes, NULL),
                                   g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT,
                                   NULL,
                                   write_cb,
                                   g_object_ref (self));
}

static void
queue_text (ZotExtExtension *self,
            char            *text,
            gsize            len)
{
  text = g_realloc (text, len + 1);
  text[len] = '\n';
  g_queue_push_tail (&self->write_queue, g_bytes_new_take (text, len + 1));
  pump_writes (self);
}

/* Takes @text. Frames for a connection that is not up (not started, or
 * after shutdown and end of input) have nowhere to go and are dropped. */
gboolean
_zot_ext_extension_send_text (ZotExtExtension *self,
                              char            *text,
                              gsize            len)
{
  g_assert (ZOT_EXT_IS_EXTENSION (self));

  if (self->phase == PHASE_IDLE || self->phase >= PHASE_CLOSING)
    {
      g_debug ("not connected; frame dropped: %.*s", (int) MIN (len, 200), text);
      g_free (text);
      return FALSE;
    }

  queue_text (self, text, len);
  return TRUE;
}

gboolean
_zot_ext_extension_send (ZotExtExtension  *self,
                         JsonNode         *frame,
                         GError          **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;

  g_assert (ZOT_EXT_IS_EXTENSION (self));

  if (!_zot_ext_frame_fits (frame, &text, &len))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_TOO_LARGE,
                   "the frame is %" G_GSIZE_FORMAT " bytes, over the %" G_GSIZE_FORMAT
                   " byte (4 MiB) frame limit", len, ZOT_EXT_FRAME_MAX_BYTES);
      return FALSE;
    }
  _zot_ext_extension_send_text (self, g_steal_pointer (&text), len);
  return TRUE;
}

static void
send_logged (ZotExtExtension *self,
             JsonNode        *frame)
{
  g_autoptr(JsonNode) owned = frame;
  g_autoptr(GError) error = NULL;

  if (!_zot_ext_extension_send (self, owned, &error))
    g_printerr ("[%s] frame not sent: %s\n", self->name, error->message);
}

static JsonObject *
new_frame (const char *type)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  return object;
}

static JsonNode *
frame_node (JsonObject *object)
{
  return json_node_init_object (json_node_alloc (), object);
}

/* Nested calls */

static void
call_free (Call *call)
{
  if (call->parent != NULL && call->parent_handler != 0)
    g_signal_handler_disconnect (call->parent, call->parent_handler);
  if (call->cancellable != NULL && call->cancellable_handler != 0)
    g_signal_handler_disconnect (call->cancellable, call->cancellable_handler);
  g_clear_object (&call->parent);
  g_clear_object (&call->cancellable);
  g_clear_object (&call->task);
  g_clear_pointer (&call->id, g_free);
  g_free (call);
}

/* Takes @result or @error. */
static void
complete_call (Call             *call,
               ZotExtToolResult *result,
               GError           *error)
{
  g_autoptr(GTask) task = g_object_ref (call->task);

  g_hash_table_steal (call->extension->calls, call->id);
  call_free (call);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, g_object_unref);
}

static void
call_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  Call *call = user_data;
  JsonObject *frame = new_frame ("call_tool_cancel");

  json_object_set_string_member (frame, "id", call->id);
  send_logged (call->extension, frame_node (frame));
  complete_call (call, NULL,
                 g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED, "the tool call was cancelled"));
}

static gboolean
key_is_valid (const char *key)
{
  gsize len = strlen (key);

  return len > 0 && len <= ZOT_EXT_CALL_KEY_MAX_BYTES && strchr (key, '/') == NULL;
}

void
_zot_ext_extension_call_tool (ZotExtExtension     *self,
                              gpointer             source_object,
                              gpointer             source_tag,
                              const char          *name,
                              const char          *args_json,
                              const char          *key,
                              const char          *parent_id,
                              GCancellable        *parent_cancellable,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) args = NULL;
  g_autofree char *id = NULL;
  g_autofree char *text = NULL;
  JsonObject *frame;
  gsize len = 0;
  Call *call;

  task = g_task_new (source_object, NULL, callback, user_data);
  g_task_set_source_tag (task, source_tag);
  g_task_set_name (task, "[zot-ext] call_tool");

  if (self->phase >= PHASE_CLOSING)
    {
      g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_CLOSED,
                               "call_tool %s: the connection to the host is closed", name);
      return;
    }
  if (self->phase != PHASE_READY)
    {
      g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED,
                               "call_tool %s: the extension is not connected to a host yet", name);
      return;
    }
  if (!zot_ext_extension_has_host_capability (self, "call_tool"))
    {
      g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED,
                               "call_tool %s: the host does not offer call_tool", name);
      return;
    }
  if (!g_strv_contains ((const char * const *) self->hello_capabilities, "call_tool"))
    {
      g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED,
                               "call_tool %s: the extension did not advertise call_tool "
                               "(register a tool or command, or add the capability)", name);
      return;
    }
  if (*name == '\0')
    {
      g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME,
                               "call_tool: the tool name is empty");
      return;
    }
  if (key != NULL && !key_is_valid (key))
    {
      g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT,
                               "call_tool %s: a key has 1 to %d bytes and no '/'",
                               name, ZOT_EXT_CALL_KEY_MAX_BYTES);
      return;
    }
  args = _zot_ext_parse_json (args_json != NULL ? args_json : "{}", JSON_NODE_OBJECT,
                              "call_tool args", &error);
  if (args == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if ((parent_cancellable != NULL && g_cancellable_is_cancelled (parent_cancellable)) ||
      (cancellable != NULL && g_cancellable_is_cancelled (cancellable)))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               "call_tool %s: cancelled before it started", name);
      return;
    }

  id = g_strdup_printf ("call-%" G_GUINT64_FORMAT, ++self->last_call);
  frame = new_frame ("call_tool");
  json_object_set_string_member (frame, "id", id);
  json_object_set_string_member (frame, "name", name);
  json_object_set_member (frame, "args", g_steal_pointer (&args));
  if (parent_id != NULL)
    json_object_set_string_member (frame, "parent_id", parent_id);
  if (key != NULL && zot_ext_extension_has_host_capability (self, "call_tool_durable"))
    json_object_set_string_member (frame, "key", key);

  {
    g_autoptr(JsonNode) node = frame_node (frame);

    if (!_zot_ext_frame_fits (node, &text, &len))
      {
        g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_TOO_LARGE,
                                 "call_tool %s: the request is %" G_GSIZE_FORMAT
                                 " bytes, over the 4 MiB frame limit", name, len);
        return;
      }
  }

  call = g_new0 (Call, 1);
  call->extension = self;
  call->id = g_strdup (id);
  call->task = g_steal_pointer (&task);
  g_hash_table_insert (self->calls, call->id, call);
  if (parent_cancellable != NULL)
    {
      call->parent = g_object_ref (parent_cancellable);
      call->parent_handler = g_signal_connect (parent_cancellable, "cancelled",
                                               G_CALLBACK (call_cancelled_cb), call);
    }
  if (cancellable != NULL && cancellable != parent_cancellable)
    {
      call->cancellable = g_object_ref (cancellable);
      call->cancellable_handler = g_signal_connect (cancellable, "cancelled",
                                                    G_CALLBACK (call_cancelled_cb), call);
    }

  _zot_ext_extension_send_text (self, g_steal_pointer (&text), len);
}

/* Inbound frames */

static void
handle_hello_ack (ZotExtExtension *self,
                  JsonObject      *frame)
{
  JsonNode *caps;
  g_autoptr(GPtrArray) host_caps = g_ptr_array_new ();

  if (self->hello_ack != NULL)
    {
      g_debug ("second hello_ack ignored");
      return;
    }

  self->hello_ack = json_object_ref (frame);
  caps = json_object_get_member (frame, "capabilities");
  if (caps != NULL && JSON_NODE_HOLDS_ARRAY (caps))
    {
      JsonArray *array = json_node_get_array (caps);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
            g_ptr_array_add (host_caps, g_strdup (json_node_get_string (element)));
        }
    }
  g_ptr_array_add (host_caps, NULL);
  g_strfreev (self->host_capabilities);
  self->host_capabilities = (char **) g_ptr_array_free (g_steal_pointer (&host_caps), FALSE);

  /* Handlers of ::hello may still register: that is what it is for. */
  g_signal_emit (self, signals[HELLO], 0);
  if (self->phase != PHASE_HELLO_SENT)
    return;

  self->phase = PHASE_READY;
  for (guint i = 0; i < self->registrations->len; i++)
    send_logged (self, json_node_ref (g_ptr_array_index (self->registrations, i)));
  if (self->events->len > 0 || self->intercepts->len > 0)
    {
      JsonObject *subscribe = new_frame ("subscribe");

      if (self->events->len > 0)
        json_object_set_member (subscribe, "events",
                                string_array_node ((const char * const *) self->events->pdata));
      if (self->intercepts->len > 0)
        json_object_set_member (subscribe, "intercept",
                                string_array_node ((const char * const *) self->intercepts->pdata));
      send_logged (self, frame_node (subscribe));
    }
  send_logged (self, frame_node (new_frame ("ready")));
}

static void
handle_tool_call (ZotExtExtension *self,
                  JsonObject      *frame)
{
  g_autoptr(ZotExtInvocation) invocation = NULL;
  const char *id = member_string (frame, "id");
  const char *name = member_string (frame, "name");
  gboolean reconcile;

  if (id == NULL || name == NULL)
    {
      g_printerr ("[%s] tool_call without id or name ignored\n", self->name);
      return;
    }
  if (g_hash_table_contains (self->invocations, id))
    {
      g_printerr ("[%s] tool_call %s reuses a running call's id; ignored\n", self->name, id);
      return;
    }

  reconcile = json_object_get_boolean_member_with_default (frame, "reconcile", FALSE);
  invocation = _zot_ext_invocation_new (self, id, name, json_object_get_member (frame, "args"),
                                        member_string (frame, "operation_key"), reconcile);
  g_hash_table_insert (self->invocations, g_strdup (id), g_object_ref (invocation));

  if (!g_hash_table_contains (self->tools, name))
    {
      zot_ext_invocation_return_error_printf (invocation, "unknown tool %s", name);
      return;
    }

  /* Handlers run once the whole chunk read has been parsed, so a
   * tool_cancel that came with its tool_call is seen before they start. */
  g_ptr_array_add (self->to_dispatch, g_steal_pointer (&invocation));
}

static void
dispatch_tool_calls (ZotExtExtension *self)
{
  g_autoptr(GPtrArray) batch = NULL;

  if (self->to_dispatch->len == 0)
    return;

  batch = g_steal_pointer (&self->to_dispatch);
  self->to_dispatch = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < batch->len; i++)
    {
      ZotExtInvocation *invocation = g_ptr_array_index (batch, i);
      gboolean handled = FALSE;

      GQuark detail = g_quark_from_string (zot_ext_invocation_get_name (invocation));

      if (!g_signal_has_handler_pending (self, signals[TOOL_CALL], detail, FALSE))
        {
          if (!zot_ext_invocation_is_finished (invocation))
            zot_ext_invocation_return_error_printf (invocation,
                                                    "%s: no handler is connected to tool-call::%s",
                                                    zot_ext_invocation_get_name (invocation),
                                                    zot_ext_invocation_get_name (invocation));
          continue;
        }

      g_signal_emit (self, signals[TOOL_CALL], detail, invocation, &handled);
      if (!handled)
        _zot_ext_invocation_take_unhandled (invocation);
    }
}

static void
handle_tool_cancel (ZotExtExtension *self,
                    JsonObject      *frame)
{
  const char *id = member_string (frame, "id");
  ZotExtInvocation *found;
  g_autoptr(ZotExtInvocation) invocation = NULL;
  g_autofree char *key = NULL;

  if (id == NULL ||
      !g_hash_table_steal_extended (self->invocations, id, (gpointer *) &key, (gpointer *) &found))
    {
      g_debug ("tool_cancel for an unknown or finished call ignored");
      return;
    }

  invocation = found;
  _zot_ext_invocation_cancel (invocation);
}

static void
handle_tool_result (ZotExtExtension *self,
                    JsonObject      *frame)
{
  const char *id = member_string (frame, "id");
  Call *call;

  if (id == NULL || (call = g_hash_table_lookup (self->calls, id)) == NULL)
    {
      g_debug ("tool_result for an unknown or cancelled call ignored");
      return;
    }
  complete_call (call, _zot_ext_tool_result_new (frame), NULL);
}

static void
handle_command (ZotExtExtension *self,
                JsonObject      *frame)
{
  g_autoptr(ZotExtCommandInvocation) invocation = NULL;
  const char *id = member_string (frame, "id");
  const char *name = member_string (frame, "name");
  const char *registered;
  g_autofree char *folded = NULL;
  gboolean handled = FALSE;

  if (id == NULL || name == NULL)
    {
      g_printerr ("[%s] command_invoked without id or name ignored\n", self->name);
      return;
    }

  folded = g_utf8_casefold (name, -1);
  registered = g_hash_table_lookup (self->commands, folded);
  invocation = _zot_ext_command_invocation_new (self, id, registered != NULL ? registered : name,
                                                member_string (frame, "args"));
  if (registered == NULL)
    {
      g_autofree char *message = g_strdup_printf ("unknown command %s", name);

      zot_ext_command_invocation_return_error (invocation, message);
      return;
    }

  g_signal_emit (self, signals[COMMAND], g_quark_from_string (registered), invocation, &handled);
  if (!handled && !zot_ext_command_invocation_is_finished (invocation))
    {
      g_autofree char *message = g_strdup_printf ("%s: the command handler failed "
                                                  "(it returned FALSE without answering)",
                                                  registered);

      g_printerr ("[%s] %s\n", self->name, message);
      zot_ext_command_invocation_return_error (invocation, message);
    }
}

static void
handle_event (ZotExtExtension *self,
              JsonObject      *frame)
{
  g_autoptr(ZotExtEvent) event = _zot_ext_event_new (frame);

  g_signal_emit (self, signals[EVENT], g_quark_from_string (zot_ext_event_get_name (event)), event);
}

static void
handle_intercept (ZotExtExtension *self,
                  JsonObject      *frame)
{
  g_autoptr(ZotExtInterceptInvocation) invocation = NULL;
  const char *id = member_string (frame, "id");
  const char *event = member_string (frame, "event");
  GQuark detail;
  gboolean handled = FALSE;

  if (id == NULL || event == NULL)
    {
      g_printerr ("[%s] event_intercept without id or event ignored\n", self->name);
      return;
    }

  invocation = _zot_ext_intercept_invocation_new (self, id, event, frame);
  g_hash_table_replace (self->live_intercepts, g_strdup (id), g_object_ref (invocation));

  detail = g_quark_from_string (event);
  if (!g_signal_has_handler_pending (self, signals[INTERCEPT], detail, FALSE))
    {
      zot_ext_intercept_invocation_allow (invocation);
      return;
    }

  g_signal_emit (self, signals[INTERCEPT], detail, invocation, &handled);
  if (!handled && !zot_ext_intercept_invocation_is_finished (invocation))
    _zot_ext_intercept_invocation_fail (invocation, "the handler returned FALSE without answering");
}

static void
handle_panel (ZotExtExtension *self,
              const char      *type,
              JsonObject      *frame)
{
  const char *panel_id = member_string (frame, "panel_id");
  GQuark detail;

  if (panel_id == NULL)
    return;

  detail = g_quark_from_string (panel_id);
  if (strcmp (type, "panel_key") == 0)
    {
      const char *key = member_string (frame, "key");

      g_signal_emit (self, signals[PANEL_KEY], detail, panel_id, key != NULL ? key : "",
                     member_string (frame, "text"));
    }
  else if (strcmp (type, "panel_close") == 0)
    g_signal_emit (self, signals[PANEL_CLOSE], detail, panel_id);
  else if (strcmp (type, "panel_event") == 0)
    {
      g_autofree char *value = NULL;
      JsonNode *node = json_object_get_member (frame, "value");
      const char *widget_id = member_string (frame, "widget_id");
      const char *event = member_string (frame, "event");

      value = node != NULL ? json_to_string (node, FALSE) : g_strdup ("null");
      g_signal_emit (self, signals[PANEL_EVENT], detail, panel_id,
                     widget_id != NULL ? widget_id : "", event != NULL ? event : "", value);
    }
  else if (strcmp (type, "panel_resize") == 0)
    g_signal_emit (self, signals[PANEL_RESIZE], detail, panel_id,
                   (int) json_object_get_int_member_with_default (frame, "width", 0),
                   (int) json_object_get_int_member_with_default (frame, "height", 0));
}

static void
handle_line (ZotExtExtension *self,
             const char      *data,
             gsize            len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *frame;
  const char *type;

  if (len == 0 || (len == 1 && data[0] == '\r'))
    return;

  if (!json_parser_load_from_data (self->parser, data, len, &error))
    {
      g_printerr ("[%s] skipping an inbound line that is not JSON: %s\n", self->name, error->message);
      return;
    }
  root = json_parser_steal_root (self->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_printerr ("[%s] skipping an inbound line that is not a JSON object\n", self->name);
      return;
    }
  frame = json_node_get_object (root);
  type = member_string (frame, "type");
  if (type == NULL)
    {
      g_printerr ("[%s] skipping an inbound frame without a type\n", self->name);
      return;
    }

  if (strcmp (type, "tool_call") == 0)
    handle_tool_call (self, frame);
  else if (strcmp (type, "tool_cancel") == 0)
    handle_tool_cancel (self, frame);
  else if (strcmp (type, "tool_result") == 0)
    handle_tool_result (self, frame);
  else if (strcmp (type, "event") == 0)
    handle_event (self, frame);
  else if (strcmp (type, "event_intercept") == 0)
    handle_intercept (self, frame);
  else if (strcmp (type, "command_invoked") == 0)
    handle_command (self, frame);
  else if (g_str_has_prefix (type, "panel_"))
    handle_panel (self, type, frame);
  else if (strcmp (type, "hello_ack") == 0)
    handle_hello_ack (self, frame);
  else if (strcmp (type, "shutdown") == 0)
    close_connection (self, TRUE, NULL);
  else
    g_debug ("unknown frame type %s ignored", type);
}

/* Splits what was read into lines. A line over the frame bound is not
 * kept: its bytes are counted and dropped until its newline, so memory
 * stays bounded whatever the host sends. */
static void
feed (ZotExtExtension *self,
      const guint8    *data,
      gsize            len)
{
  while (len > 0 && self->phase < PHASE_CLOSING)
    {
      const guint8 *newline = memchr (data, '\n', len);
      gsize part = newline != NULL ? (gsize) (newline - data) : len;

      if (self->skipping)
        self->skipped += part;
      else if (self->line->len + part > ZOT_EXT_FRAME_MAX_BYTES)
        {
          self->skipping = TRUE;
          self->skipped = self->line->len + part;
          g_byte_array_set_size (self->line, 0);
        }
      else if (newline != NULL && self->line->len == 0)
        handle_line (self, (const char *) data, part);
      else
        g_byte_array_append (self->line, data, part);

      if (newline == NULL)
        break;

      if (self->skipping)
        {
          g_printerr ("[%s] skipped an inbound line of %" G_GSIZE_FORMAT
                      " bytes, over the %" G_GSIZE_FORMAT " byte (4 MiB) frame limit\n",
                      self->name, self->skipped, ZOT_EXT_FRAME_MAX_BYTES);
          self->skipping = FALSE;
          self->skipped = 0;
        }
      else if (self->line->len > 0)
        {
          handle_line (self, (const char *) self->line->data, self->line->len);
          g_byte_array_set_size (self->line, 0);
        }

      data = newline + 1;
      len -= part + 1;
    }
}

static void start_read (ZotExtExtension *self);

/* Takes what one read returned: data, the end of input (0) or an error. */
static void
handle_read (ZotExtExtension *self,
             gssize           n,
             const GError    *error)
{
  if (n < 0)
    {
      g_printerr ("[%s] reading from the host failed: %s\n", self->name, error->message);
      self->failed = TRUE;
      close_connection (self, FALSE, error);
      return;
    }

  if (n == 0)
    {
      if (self->line->len > 0 && !self->skipping)
        handle_line (self, (const char *) self->line->data, self->line->len);
      dispatch_tool_calls (self);
      close_connection (self, FALSE, NULL);
      return;
    }

  feed (self, self->read_buffer, n);
  dispatch_tool_calls (self);
}

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(ZotExtExtension) self = user_data;
  g_autoptr(GError) error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  handle_read (self, n, error);
  if (self->phase < PHASE_CLOSING)
    start_read (self);
}

static gboolean
readable_cb (GObject  *stream,
             gpointer  user_data)
{
  g_autoptr(ZotExtExtension) self = g_object_ref (user_data);
  g_autoptr(GError) error = NULL;
  gssize n;

  n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (stream),
                                                self->read_buffer, READ_CHUNK_BYTES,
                                                NULL, &error);
  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return G_SOURCE_CONTINUE;

  handle_read (self, n, error);
  return self->phase < PHASE_CLOSING ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
stop_reading (ZotExtExtension *self)
{
  g_cancellable_cancel (self->read_cancellable);
  if (self->read_source != NULL)
    {
      g_source_destroy (self->read_source);
      g_clear_pointer (&self->read_source, g_source_unref);
    }
}

/* A pollable stream (pipes, sockets) is read from one source that lives
 * as long as the connection, rather than one GTask per read. */
static void
start_read (ZotExtExtension *self)
{
  if (self->read_source == NULL &&
      G_IS_POLLABLE_INPUT_STREAM (self->input) &&
      g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (self->input)))
    {
      self->read_source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (self->input),
                                                                 NULL);
      g_source_set_callback (self->read_source, G_SOURCE_FUNC (readable_cb), self, NULL);
      g_source_set_static_name (self->read_source, "[zot-ext] read");
      g_source_attach (self->read_source, g_main_context_get_thread_default ());
      return;
    }

  g_input_stream_read_async (self->input,
                             self->read_buffer,
                             READ_CHUNK_BYTES,
                             G_PRIORITY_DEFAULT,
                             self->read_cancellable,
                             read_cb,
                             g_object_ref (self));
}

static GPtrArray *
steal_values (GHashTable *table)
{
  GPtrArray *values = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (values, g_object_ref (value));
  g_hash_table_remove_all (table);
  return values;
}

/* Shutdown, end of input, a failed stream or the caller's cancellable:
 * every handler is cancelled (none may answer any more), nested calls
 * fail, and run completes once the queued frames are written. */
static void
close_connection (ZotExtExtension *self,
                  gboolean         shutdown,
                  const GError    *error)
{
  g_autoptr(GList) calls = NULL;
  g_autoptr(GPtrArray) invocations = NULL;
  g_autoptr(GPtrArray) intercepts = NULL;

  if (self->phase >= PHASE_CLOSING || self->phase == PHASE_IDLE)
    return;

  self->phase = PHASE_CLOSING;
  stop_reading (self);

  calls = g_hash_table_get_values (self->calls);
  for (GList *l = calls; l != NULL; l = l->next)
    complete_call (l->data, NULL,
                   g_error_new (ZOT_EXT_ERROR, ZOT_EXT_ERROR_CLOSED,
                                "the connection to the host closed"));

  invocations = steal_values (self->invocations);
  for (guint i = 0; i < invocations->len; i++)
    _zot_ext_invocation_cancel (g_ptr_array_index (invocations, i));

  intercepts = steal_values (self->live_intercepts);
  for (guint i = 0; i < intercepts->len; i++)
    _zot_ext_intercept_invocation_close (g_ptr_array_index (intercepts, i));

  if (shutdown)
    {
      g_autofree char *ack = g_strdup ("{\"type\":\"shutdown_ack\"}");

      queue_text (self, g_steal_pointer (&ack), strlen ("{\"type\":\"shutdown_ack\"}"));
    }

  maybe_finish_run (self);
}

static void
run_cancelled_cb (GCancellable *cancellable,
                  gpointer      user_data)
{
  ZotExtExtension *self = user_data;

  close_connection (self, FALSE, NULL);
}

void
_zot_ext_extension_forget_invocation (ZotExtExtension *self,
                                      const char      *id)
{
  g_assert (ZOT_EXT_IS_EXTENSION (self));

  g_hash_table_remove (self->invocations, id);
}

void
_zot_ext_extension_forget_intercept (ZotExtExtension *self,
                                     const char      *id)
{
  g_assert (ZOT_EXT_IS_EXTENSION (self));

  g_hash_table_remove (self->live_intercepts, id);
}

/* Registration */

static gboolean
tool_name_is_valid (const char *name)
{
  gsize i;

  for (i = 0; name[i] != '\0'; i++)
    {
      if (i >= ZOT_EXT_TOOL_NAME_MAX_CHARS)
        return FALSE;
      if (!g_ascii_isalnum (name[i]) && name[i] != '_' && name[i] != '-')
        return FALSE;
    }
  return i > 0;
}

static void
add_registration (ZotExtExtension *self,
                  JsonObject      *frame)
{
  JsonNode *node = frame_node (frame);

  g_ptr_array_add (self->registrations, node);
  if (self->phase == PHASE_READY)
    send_logged (self, json_node_ref (node));
}

static const char *
exposure_name (ZotExtExposure exposure)
{
  switch (exposure)
    {
    case ZOT_EXT_EXPOSURE_DIRECT:
      return "direct";
    case ZOT_EXT_EXPOSURE_CODEMODE:
      return "codemode";
    case ZOT_EXT_EXPOSURE_DEFERRED:
      return "deferred";
    case ZOT_EXT_EXPOSURE_MODEL_ONLY:
      return "model-only";
    case ZOT_EXT_EXPOSURE_DEFAULT:
    default:
      return NULL;
    }
}

static void
zot_ext_extension_dispose (GObject *object)
{
  ZotExtExtension *self = (ZotExtExtension *)object;

  stop_reading (self);
  if (self->run_cancellable != NULL && self->run_cancelled_handler != 0)
    g_signal_handler_disconnect (self->run_cancellable, self->run_cancelled_handler);
  self->run_cancelled_handler = 0;
  g_clear_object (&self->run_cancellable);
  g_hash_table_remove_all (self->invocations);
  g_hash_table_remove_all (self->live_intercepts);
  g_ptr_array_set_size (self->to_dispatch, 0);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->run_task);

  G_OBJECT_CLASS (zot_ext_extension_parent_class)->dispose (object);
}

static void
zot_ext_extension_finalize (GObject *object)
{
  ZotExtExtension *self = (ZotExtExtension *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->version, g_free);
  g_clear_pointer (&self->registrations, g_ptr_array_unref);
  g_clear_pointer (&self->tools, g_hash_table_unref);
  g_clear_pointer (&self->commands, g_hash_table_unref);
  g_clear_pointer (&self->events, g_ptr_array_unref);
  g_clear_pointer (&self->intercepts, g_ptr_array_unref);
  g_clear_pointer (&self->extra_capabilities, g_ptr_array_unref);
  g_clear_pointer (&self->hello_capabilities, g_strfreev);
  g_clear_object (&self->read_cancellable);
  g_clear_pointer (&self->read_buffer, g_free);
  g_clear_pointer (&self->line, g_byte_array_unref);
  g_clear_object (&self->parser);
  g_queue_clear_full (&self->write_queue, (GDestroyNotify) g_bytes_unref);
  g_clear_pointer (&self->in_flight, g_bytes_unref);
  g_clear_pointer (&self->hello_ack, json_object_unref);
  g_clear_pointer (&self->host_capabilities, g_strfreev);
  g_clear_pointer (&self->invocations, g_hash_table_unref);
  g_clear_pointer (&self->live_intercepts, g_hash_table_unref);
  g_clear_pointer (&self->calls, g_hash_table_unref);
  g_clear_pointer (&self->to_dispatch, g_ptr_array_unref);

  G_OBJECT_CLASS (zot_ext_extension_parent_class)->finalize (object);
}

static void
zot_ext_extension_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  ZotExtExtension *self = ZOT_EXT_EXTENSION (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_VERSION:
      g_value_set_string (value, self->version);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_ext_extension_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  ZotExtExtension *self = ZOT_EXT_EXTENSION (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_free (self->name);
      self->name = g_value_dup_string (value);
      break;
    case PROP_VERSION:
      g_free (self->version);
      self->version = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_ext_extension_class_init (ZotExtExtensionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_ext_extension_dispose;
  object_class->finalize = zot_ext_extension_finalize;
  object_class->get_property = zot_ext_extension_get_property;
  object_class->set_property = zot_ext_extension_set_property;

  /**
   * ZotExtExtension:name:
   *
   * The extension's name, as in its `extension.json`.
   */
  properties [PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "extension",
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotExtExtension:version:
   *
   * The extension's version, sent in `hello`.
   */
  properties [PROP_VERSION] =
    g_param_spec_string ("version", NULL, NULL, "0.0.0",
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotExtExtension::hello:
   * @self: the extension
   *
   * Emitted when `hello_ack` arrives, before the registrations are sent:
   * the host's details ([method@ZotExt.Extension.get_host_info]) are known
   * and handlers may still register tools, commands and subscriptions.
   *
   * `hello` is already on the wire by then, with capabilities derived from
   * what was registered before [method@ZotExt.Extension.run]: an extension
   * whose first tool or command is registered here declares the
   * capabilities it needs up front with
   * [method@ZotExt.Extension.add_capability].
   */
  signals [HELLO] =
    g_signal_new ("hello",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtExtension::tool-call:
   * @self: the extension
   * @invocation: the call; keep a reference to answer later
   *
   * Emitted, with the tool's name as detail (`tool-call::weather`), when
   * the host calls a registered tool. Return %TRUE when the handler took
   * the call (answered it or will). If every handler returns %FALSE and
   * none answered (a failure, or an exception in gjs or Python), the call
   * is answered with an error result whose text starts with the tool's
   * name.
   *
   * Returns: %TRUE when the call was taken
   */
  signals [TOOL_CALL] =
    g_signal_new ("tool-call",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, ZOT_EXT_TYPE_INVOCATION);

  /**
   * ZotExtExtension::command:
   * @self: the extension
   * @invocation: the command run; keep a reference to answer later
   *
   * Emitted, with the command's registered name as detail, when the user
   * runs a slash command. Return %TRUE when the handler took it; an
   * untaken command is answered with an error line.
   *
   * Returns: %TRUE when the command was taken
   */
  signals [COMMAND] =
    g_signal_new ("command",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, ZOT_EXT_TYPE_COMMAND_INVOCATION);

  /**
   * ZotExtExtension::event:
   * @self: the extension
   * @event: the notification
   *
   * Emitted, with the event name as detail (`event::turn_end`), for each
   * lifecycle notification subscribed with
   * [method@ZotExt.Extension.subscribe].
   */
  signals [EVENT] =
    g_signal_new ("event",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_EXT_TYPE_EVENT);

  /**
   * ZotExtExtension::intercept:
   * @self: the extension
   * @invocation: the interception request; answer within 5 s
   *
   * Emitted, with the event name as detail (`intercept::tool_call`), for
   * each interception registered with [method@ZotExt.Extension.intercept].
   * With no handler connected the library allows. Return %TRUE when the
   * handler took the request; see [class@ZotExt.InterceptInvocation] for
   * what happens otherwise and for the deadline.
   *
   * Returns: %TRUE when the request was taken
   */
  signals [INTERCEPT] =
    g_signal_new ("intercept",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, ZOT_EXT_TYPE_INTERCEPT_INVOCATION);

  /**
   * ZotExtExtension::panel-key:
   * @self: the extension
   * @panel_id: the panel
   * @key: `up`, `down`, `left`, `right`, `enter`, `esc`, `tab`, `pageup`,
   *   `pagedown`, `home`, `end`, `backspace`, `delete` or `rune`
   * @text: (nullable): the character, for `rune`
   *
   * Emitted, with the panel id as detail, for a key pressed in a line panel.
   */
  signals [PANEL_KEY] =
    g_signal_new ("panel-key",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * ZotExtExtension::panel-close:
   * @self: the extension
   * @panel_id: the panel
   *
   * Emitted, with the panel id as detail, when the user closed a panel.
   */
  signals [PANEL_CLOSE] =
    g_signal_new ("panel-close",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotExtExtension::panel-event:
   * @self: the extension
   * @panel_id: the panel
   * @widget_id: the widget
   * @event: `clicked`, `changed`, `submit`, `toggled`, `selected`,
   *   `activated`, `button`
   * @value_json: the event's value as JSON (`null` when there is none)
   *
   * Emitted, with the panel id as detail, for what the user does in a
   * panel of native widgets.
   */
  signals [PANEL_EVENT] =
    g_signal_new ("panel-event",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * ZotExtExtension::panel-resize:
   * @self: the extension
   * @panel_id: the panel
   * @width: columns
   * @height: rows
   *
   * Emitted, with the panel id as detail, when a line panel's size changed.
   */
  signals [PANEL_RESIZE] =
    g_signal_new ("panel-resize",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_INT, G_TYPE_INT);
}

static void
zot_ext_extension_init (ZotExtExtension *self)
{
  self->registrations = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->commands = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->events = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->intercepts = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->extra_capabilities = g_ptr_array_new_with_free_func (g_free);
  self->read_cancellable = g_cancellable_new ();
  self->read_buffer = g_malloc (READ_CHUNK_BYTES);
  self->line = g_byte_array_new ();
  self->parser = json_parser_new_immutable ();
  g_queue_init (&self->write_queue);
  self->host_capabilities = g_new0 (char *, 1);
  self->invocations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->live_intercepts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->calls = g_hash_table_new (g_str_hash, g_str_equal);
  self->to_dispatch = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * zot_ext_extension_new:
 * @name: the extension's name (its `extension.json` name)
 * @version: its version
 *
 * Creates a new extension with nothing registered.
 *
 * Returns: (transfer full): a new extension with nothing registered
 */
ZotExtExtension *
zot_ext_extension_new (const char *name,
                       const char *version)
{
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (version != NULL, NULL);

  return g_object_new (ZOT_EXT_TYPE_EXTENSION, "name", name, "version", version, NULL);
}

/**
 * zot_ext_extension_get_name:
 * @self: a #ZotExtExtension
 *
 * Gets the extension's name.
 *
 * Returns: the extension's name
 */
const char *
zot_ext_extension_get_name (ZotExtExtension *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), NULL);

  return self->name;
}

/**
 * zot_ext_extension_get_version:
 * @self: a #ZotExtExtension
 *
 * Gets the extension's version.
 *
 * Returns: the extension's version
 */
const char *
zot_ext_extension_get_version (ZotExtExtension *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), NULL);

  return self->version;
}

/**
 * zot_ext_extension_add_tool:
 * @self: a #ZotExtExtension
 * @name: the tool's name, matching `^[A-Za-z0-9_-]{1,64}$`
 * @description: (nullable): what it does, for the model
 * @schema_json: its parameters' JSON schema; must be a JSON object
 * @flags: #ZotExtToolFlags
 * @error: return location for a #GError
 *
 * Registers a tool; answer its calls in a
 * [signal@ZotExt.Extension::tool-call] handler connected with the tool's
 * name as detail. See [method@ZotExt.Extension.add_tool_full].
 *
 * Returns: %TRUE when registered
 */
gboolean
zot_ext_extension_add_tool (ZotExtExtension  *self,
                            const char       *name,
                            const char       *description,
                            const char       *schema_json,
                            ZotExtToolFlags   flags,
                            GError          **error)
{
  return zot_ext_extension_add_tool_full (self, name, description, schema_json, NULL, NULL, NULL,
                                          NULL, ZOT_EXT_EXPOSURE_DEFAULT, flags, error);
}

/**
 * zot_ext_extension_add_tool_full:
 * @self: a #ZotExtExtension
 * @name: the tool's name, matching `^[A-Za-z0-9_-]{1,64}$`
 * @description: (nullable): what it does, for the model
 * @schema_json: its parameters' JSON schema; must be a JSON object
 * @output_schema_json: (nullable): the schema of its `structured_content`
 *   (a JSON object; described, not validated)
 * @namespace_: (nullable): its namespace (the host defaults to the
 *   extension's name)
 * @namespace_description: (nullable): for codemode discovery
 * @namespace_instructions: (nullable): for codemode discovery
 * @exposure: where the model sees it
 * @flags: #ZotExtToolFlags
 * @error: return location for a #GError
 *
 * Registers a tool with every option of `register_tool`. Nothing reaches
 * the wire when the name breaks the host's rule, is already registered,
 * or a schema is not a JSON object: the call fails with a #GError that
 * names the tool and the rule.
 *
 * Returns: %TRUE when registered
 */
gboolean
zot_ext_extension_add_tool_full (ZotExtExtension  *self,
                                 const char       *name,
                                 const char       *description,
                                 const char       *schema_json,
                                 const char       *output_schema_json,
                                 const char       *namespace_,
                                 const char       *namespace_description,
                                 const char       *namespace_instructions,
                                 ZotExtExposure    exposure,
                                 ZotExtToolFlags   flags,
                                 GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) schema = NULL;
  g_autoptr(JsonNode) output_schema = NULL;
  JsonObject *frame;
  const char *exposure_value;
  guint replay;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (!tool_name_is_valid (name))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME,
                   "tool \"%s\": invalid name; tool names must match ^[A-Za-z0-9_-]{1,64}$", name);
      return FALSE;
    }
  if (g_hash_table_contains (self->tools, name))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME,
                   "tool \"%s\": already registered; tool names are unique", name);
      return FALSE;
    }
  if (schema_json == NULL)
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_SCHEMA,
                   "tool \"%s\": the schema is missing; it must be a JSON object", name);
      return FALSE;
    }
  schema = _zot_ext_parse_json (schema_json, JSON_NODE_OBJECT, "the schema", &local_error);
  if (schema == NULL)
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_SCHEMA,
                   "tool \"%s\": %s", name, local_error->message);
      return FALSE;
    }
  if (output_schema_json != NULL)
    {
      output_schema = _zot_ext_parse_json (output_schema_json, JSON_NODE_OBJECT,
                                           "the output schema", &local_error);
      if (output_schema == NULL)
        {
          g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_SCHEMA,
                       "tool \"%s\": %s", name, local_error->message);
          return FALSE;
        }
    }
  replay = flags & (ZOT_EXT_TOOL_REPLAY_SAFE | ZOT_EXT_TOOL_REPLAY_IDEMPOTENT |
                   ZOT_EXT_TOOL_REPLAY_RECONCILE);
  if (replay != 0 && (replay & (replay - 1)) != 0)
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT,
                   "tool \"%s\": more than one replay flag; a tool has one replay contract", name);
      return FALSE;
    }
  exposure_value = exposure_name (exposure);
  if (exposure != ZOT_EXT_EXPOSURE_DEFAULT && exposure_value == NULL)
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT,
                   "tool \"%s\": unknown exposure %d", name, (int) exposure);
      return FALSE;
    }

  frame = new_frame ("register_tool");
  json_object_set_string_member (frame, "name", name);
  json_object_set_string_member (frame, "description", description != NULL ? description : "");
  json_object_set_member (frame, "schema", g_steal_pointer (&schema));
  if (output_schema != NULL)
    json_object_set_member (frame, "output_schema", g_steal_pointer (&output_schema));
  if (namespace_ != NULL)
    json_object_set_string_member (frame, "namespace", namespace_);
  if (namespace_description != NULL)
    json_object_set_string_member (frame, "namespace_description", namespace_description);
  if (namespace_instructions != NULL)
    json_object_set_string_member (frame, "namespace_instructions", namespace_instructions);
  if (exposure_value != NULL)
    json_object_set_string_member (frame, "exposure", exposure_value);
  if (flags & ZOT_EXT_TOOL_DEFERRED)
    json_object_set_boolean_member (frame, "deferred", TRUE);
  if (flags & ZOT_EXT_TOOL_INTERACTIVE)
    json_object_set_boolean_member (frame, "interactive", TRUE);
  if (replay == ZOT_EXT_TOOL_REPLAY_SAFE)
    json_object_set_string_member (frame, "replay", "safe");
  else if (replay == ZOT_EXT_TOOL_REPLAY_IDEMPOTENT)
    json_object_set_string_member (frame, "replay", "idempotent");
  else if (replay == ZOT_EXT_TOOL_REPLAY_RECONCILE)
    json_object_set_string_member (frame, "replay", "reconcile");
  if (flags & (ZOT_EXT_TOOL_READ_ONLY | ZOT_EXT_TOOL_DESTRUCTIVE))
    {
      JsonObject *annotations = json_object_new ();

      if (flags & ZOT_EXT_TOOL_READ_ONLY)
        json_object_set_boolean_member (annotations, "read_only", TRUE);
      if (flags & ZOT_EXT_TOOL_DESTRUCTIVE)
        json_object_set_boolean_member (annotations, "destructive", TRUE);
      json_object_set_object_member (frame, "annotations", annotations);
    }

  g_hash_table_add (self->tools, g_strdup (name));
  add_registration (self, frame);
  return TRUE;
}

/**
 * zot_ext_extension_add_command:
 * @self: a #ZotExtExtension
 * @name: the command's name, without the slash
 * @description: (nullable): what it does
 * @error: return location for a #GError
 *
 * Registers a slash command; answer it in a
 * [signal@ZotExt.Extension::command] handler connected with the name as
 * detail. Names match case-insensitively, so two that differ only by
 * case conflict.
 *
 * Returns: %TRUE when registered
 */
gboolean
zot_ext_extension_add_command (ZotExtExtension  *self,
                               const char       *name,
                               const char       *description,
                               GError          **error)
{
  g_autofree char *folded = NULL;
  JsonObject *frame;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (*name == '\0' || *name == '/' || strpbrk (name, " \t\r\n") != NULL ||
      !g_utf8_validate (name, -1, NULL))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME,
                   "command \"%s\": invalid name; a command name is one word without the "
                   "leading slash", name);
      return FALSE;
    }
  folded = g_utf8_casefold (name, -1);
  if (g_hash_table_contains (self->commands, folded))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME,
                   "command \"%s\": already registered; names differing only by case conflict",
                   name);
      return FALSE;
    }

  frame = new_frame ("register_command");
  json_object_set_string_member (frame, "name", name);
  json_object_set_string_member (frame, "description", description != NULL ? description : "");
  g_hash_table_insert (self->commands, g_steal_pointer (&folded), g_strdup (name));
  add_registration (self, frame);
  return TRUE;
}

/* Withdraws the registration frame of @type for @name (compared with
 * @equal), and tells the host once it has seen the registrations. */
static void
remove_registration (ZotExtExtension *self,
                     const char      *type,
                     const char      *name,
                     gboolean       (*equal) (const char *, const char *))
{
  JsonObject *frame;

  for (guint i = 0; i < self->registrations->len; i++)
    {
      JsonObject *registration = json_node_get_object (g_ptr_array_index (self->registrations, i));

      if (g_strcmp0 (json_object_get_string_member (registration, "type"), type) == 0 &&
          equal (json_object_get_string_member (registration, "name"), name))
        {
          g_ptr_array_remove_index (self->registrations, i);
          break;
        }
    }

  if (self->phase != PHASE_READY)
    return;

  frame = new_frame (g_str_equal (type, "register_tool") ? "unregister_tool" : "unregister_command");
  json_object_set_string_member (frame, "name", name);
  send_logged (self, frame_node (frame));
}

static gboolean
same_tool (const char *a,
           const char *b)
{
  return g_strcmp0 (a, b) == 0;
}

static gboolean
same_command (const char *a,
              const char *b)
{
  g_autofree char *folded_a = g_utf8_casefold (a, -1);
  g_autofree char *folded_b = g_utf8_casefold (b, -1);

  return g_str_equal (folded_a, folded_b);
}

/**
 * zot_ext_extension_unregister_tool:
 * @self: a #ZotExtExtension
 * @name: a tool registered with [method@ZotExt.Extension.add_tool] or
 *   [method@ZotExt.Extension.add_tool_full]
 * @error: return location for a #GError
 *
 * Withdraws a tool (`unregister_tool`): the host drops it from the model's
 * list, and a call of it that runs finishes. The name may then be
 * registered again, with another schema.
 *
 * Returns: %TRUE when withdrawn; %FALSE with %ZOT_EXT_ERROR_INVALID_NAME
 *   when no tool of that name is registered

 */
gboolean
zot_ext_extension_unregister_tool (ZotExtExtension  *self,
                                   const char       *name,
                                   GError          **error)
{
  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (!g_hash_table_remove (self->tools, name))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME,
                   "tool \"%s\": not registered", name);
      return FALSE;
    }
  remove_registration (self, "register_tool", name, same_tool);
  return TRUE;
}

/**
 * zot_ext_extension_unregister_command:
 * @self: a #ZotExtExtension
 * @name: a command registered with [method@ZotExt.Extension.add_command],
 *   in any case, without the slash
 * @error: return location for a #GError
 *
 * Withdraws a slash command (`unregister_command`).
 *
 * Returns: %TRUE when withdrawn; %FALSE with %ZOT_EXT_ERROR_INVALID_NAME
 *   when no command of that name is registered

 */
gboolean
zot_ext_extension_unregister_command (ZotExtExtension  *self,
                                      const char       *name,
                                      GError          **error)
{
  g_autofree char *folded = NULL;
  g_autofree char *key = NULL;
  g_autofree char *registered = NULL;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  folded = g_utf8_casefold (name, -1);
  if (!g_hash_table_steal_extended (self->commands, folded, (gpointer *) &key, (gpointer *) &registered))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME,
                   "command \"%s\": not registered", name);
      return FALSE;
    }
  remove_registration (self, "register_command", registered, same_command);
  return TRUE;
}

static void
add_subscription (ZotExtExtension *self,
                  GPtrArray       *list,
                  const char      *member,
                  const char      *event)
{
  for (guint i = 0; i < list->len; i++)
    if (g_strcmp0 (g_ptr_array_index (list, i), event) == 0)
      return;

  g_ptr_array_add (list, g_strdup (event));
  if (self->phase == PHASE_READY)
    {
      const char *one[] = { event, NULL };
      JsonObject *frame = new_frame ("subscribe");

      json_object_set_member (frame, member, string_array_node (one));
      send_logged (self, frame_node (frame));
    }
}

/**
 * zot_ext_extension_subscribe:
 * @self: a #ZotExtExtension
 * @event: a lifecycle event, such as `turn_end` or `tool_result`
 *
 * Subscribes to a lifecycle notification, delivered by
 * [signal@ZotExt.Extension::event].
 */
void
zot_ext_extension_subscribe (ZotExtExtension *self,
                             const char      *event)
{
  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (event != NULL);

  add_subscription (self, self->events, "events", event);
}

/**
 * zot_ext_extension_intercept:
 * @self: a #ZotExtExtension
 * @event: `tool_call`, `turn_start`, `assistant_message` or
 *   `before_agent_start`
 *
 * Asks the host to wait for this extension's answer before @event goes
 * on; answer in a [signal@ZotExt.Extension::intercept] handler.
 */
void
zot_ext_extension_intercept (ZotExtExtension *self,
                             const char      *event)
{
  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (event != NULL);

  add_subscription (self, self->intercepts, "intercept", event);
}

/**
 * zot_ext_extension_add_capability:
 * @self: a #ZotExtExtension
 * @capability: an extra `hello` capability
 *
 * Adds a capability to `hello` beyond the ones the library derives from
 * what was registered. Only useful before [method@ZotExt.Extension.run].
 */
void
zot_ext_extension_add_capability (ZotExtExtension *self,
                                  const char      *capability)
{
  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (capability != NULL);

  g_ptr_array_add (self->extra_capabilities, g_strdup (capability));
}

/**
 * zot_ext_extension_dup_capabilities:
 * @self: a #ZotExtExtension
 *
 * The `hello` capabilities: `commands` with a command, `tools` and
 * `tool_cancel` with a tool, `events` with a subscription or
 * interception, `panels` and `call_tool` with a tool or a command (their
 * handlers may open panels and call tools), then the extra ones.
 *
 * Returns: (transfer full) (array zero-terminated=1): the capabilities
 */
char **
zot_ext_extension_dup_capabilities (ZotExtExtension *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean tools, commands;
  const char *derived[8];
  guint n = 0;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), NULL);

  tools = g_hash_table_size (self->tools) > 0;
  commands = g_hash_table_size (self->commands) > 0;
  if (commands)
    derived[n++] = "commands";
  if (tools)
    {
      derived[n++] = "tools";
      derived[n++] = "tool_cancel";
    }
  if (self->events->len > 0 || self->intercepts->len > 0)
    derived[n++] = "events";
  if (tools || commands)
    {
      derived[n++] = "panels";
      derived[n++] = "call_tool";
    }

  for (guint i = 0; i < n; i++)
    if (g_hash_table_add (seen, (gpointer) derived[i]))
      g_strv_builder_add (builder, derived[i]);
  for (guint i = 0; i < self->extra_capabilities->len; i++)
    {
      const char *cap = g_ptr_array_index (self->extra_capabilities, i);

      if (g_hash_table_add (seen, (gpointer) cap))
        g_strv_builder_add (builder, cap);
    }

  return g_strv_builder_end (builder);
}

/**
 * zot_ext_extension_get_host_capabilities:
 * @self: a #ZotExtExtension
 *
 * Gets the capabilities of `hello_ack` (empty before it arrives).
 *
 * Returns: (transfer none) (array zero-terminated=1): the capabilities of
 *   `hello_ack` (empty before it arrives)
 */
const char * const *
zot_ext_extension_get_host_capabilities (ZotExtExtension *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), NULL);

  return (const char * const *) self->host_capabilities;
}

/**
 * zot_ext_extension_has_host_capability:
 * @self: a #ZotExtExtension
 * @capability: such as `call_tool`, `call_tool_durable`, `panel_widgets`
 *
 * Tells whether the host advertised @capability in `hello_ack`.
 *
 * Returns: whether the host advertised @capability in `hello_ack`
 */
gboolean
zot_ext_extension_has_host_capability (ZotExtExtension *self,
                                       const char      *capability)
{
  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (capability != NULL, FALSE);

  return g_strv_contains ((const char * const *) self->host_capabilities, capability);
}

/**
 * zot_ext_extension_get_host_info:
 * @self: a #ZotExtExtension
 * @member: a string field of `hello_ack`: `zot_version`, `provider`,
 *   `model`, `cwd`, `extension_dir` or `data_dir`
 *
 * Gets its value, or %NULL before `hello_ack` or when absent.
 *
 * Returns: (nullable): its value, or %NULL before `hello_ack` or when absent
 */
const char *
zot_ext_extension_get_host_info (ZotExtExtension *self,
                                 const char      *member)
{
  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), NULL);
  g_return_val_if_fail (member != NULL, NULL);

  if (self->hello_ack == NULL)
    return NULL;
  return member_string (self->hello_ack, member);
}

/**
 * zot_ext_extension_get_hello_ack_json:
 * @self: a #ZotExtExtension
 *
 * Gets the whole `hello_ack` frame as JSON, or %NULL before it arrived.
 *
 * Returns: (transfer full) (nullable): the whole `hello_ack` frame as
 *   JSON, or %NULL before it arrived
 */
char *
zot_ext_extension_get_hello_ack_json (ZotExtExtension *self)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), NULL);

  if (self->hello_ack == NULL)
    return NULL;
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, self->hello_ack);
  return json_to_string (node, FALSE);
}

/**
 * zot_ext_extension_run_async:
 * @self: a #ZotExtExtension
 * @input: what the host writes (the extension's stdin)
 * @output: where frames go (the extension's stdout)
 * @cancellable: (nullable): cancels the run as the end of input would
 * @callback: called when the run ends
 * @user_data: data for @callback
 *
 * Sends `hello` and serves the host until `shutdown` (answered with
 * `shutdown_ack`), the end of @input, a stream error or @cancellable.
 * Everything runs on the thread-default main context. An extension runs
 * once.
 */
void
zot_ext_extension_run_async (ZotExtExtension     *self,
                             GInputStream        *input,
                             GOutputStream       *output,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_auto(GStrv) caps = NULL;
  JsonObject *hello;

  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (G_IS_INPUT_STREAM (input));
  g_return_if_fail (G_IS_OUTPUT_STREAM (output));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_ext_extension_run_async);
  g_task_set_name (task, "[zot-ext] run");

  if (self->phase != PHASE_IDLE)
    {
      g_task_return_new_error (task, ZOT_EXT_ERROR, ZOT_EXT_ERROR_BUSY,
                               "the extension %s runs already or has run", self->name);
      return;
    }

  self->input = g_object_ref (input);
  self->output = g_object_ref (output);
  self->run_task = g_steal_pointer (&task);
  self->phase = PHASE_HELLO_SENT;

  caps = zot_ext_extension_dup_capabilities (self);
  self->hello_capabilities = g_strdupv (caps);
  hello = new_frame ("hello");
  json_object_set_string_member (hello, "name", self->name);
  json_object_set_string_member (hello, "version", self->version);
  json_object_set_member (hello, "capabilities", string_array_node ((const char * const *) caps));
  send_logged (self, frame_node (hello));

  start_read (self);

  if (cancellable != NULL)
    {
      self->run_cancellable = g_object_ref (cancellable);
      if (g_cancellable_is_cancelled (cancellable))
        close_connection (self, FALSE, NULL);
      else
        self->run_cancelled_handler = g_signal_connect (cancellable, "cancelled",
                                                        G_CALLBACK (run_cancelled_cb), self);
    }
}

/**
 * zot_ext_extension_run_finish:
 * @self: a #ZotExtExtension
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes the call started with the matching `_async` function.
 *
 * Returns: %TRUE when the run ended normally (`shutdown`, end of input);
 *   %FALSE with %G_IO_ERROR_CANCELLED when the run's cancellable was
 *   cancelled, or with %ZOT_EXT_ERROR_CLOSED when a stream failed
 */
gboolean
zot_ext_extension_run_finish (ZotExtExtension  *self,
                              GAsyncResult     *result,
                              GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct
{
  GMainLoop *loop;
  int        status;
} RunState;

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunState *state = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_ext_extension_run_finish (ZOT_EXT_EXTENSION (source), result, &error))
    {
      g_printerr ("[%s] %s\n", ZOT_EXT_EXTENSION (source)->name, error->message);
      state->status = 1;
    }
  g_main_loop_quit (state->loop);
}

/**
 * zot_ext_extension_run:
 * @self: a #ZotExtExtension
 *
 * Serves the host over stdin and stdout, spinning the thread-default
 * main context until `shutdown` or the end of input.
 *
 * While it runs, the process's file descriptor 1 points at stderr, so a
 * stray `printf()` cannot corrupt the frames (the library writes them to
 * a private copy of the original stdout); SIGPIPE is ignored so a host
 * that went away ends the run instead of the process.
 *
 * Returns: the exit status for main(): 0 after `shutdown` or the end of
 *   input, 1 when a stream failed
 */
int
zot_ext_extension_run (ZotExtExtension *self)
{
  g_autoptr(GMainContext) context = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  RunState state = { NULL, 0 };
  gboolean nonblocking;
  struct stat st;
  int saved_stdout;
  int wire;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), 1);

  signal (SIGPIPE, SIG_IGN);

  saved_stdout = dup (STDOUT_FILENO);
  wire = dup (STDOUT_FILENO);
  if (saved_stdout < 0 || wire < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
    {
      g_printerr ("[%s] cannot set up stdout: %s\n", self->name, g_strerror (errno));
      return 1;
    }

  /* Non-blocking, so a frame larger than the pipe never stalls the
   * main loop. Only for a pipe or socket: a terminal's flags are shared
   * with the shell. The flag is undone below, as the descriptor is
   * shared with the restored stdout. */
  nonblocking = fstat (wire, &st) == 0 && (S_ISFIFO (st.st_mode) || S_ISSOCK (st.st_mode));
  if (nonblocking)
    g_unix_set_fd_nonblocking (wire, TRUE, NULL);

  context = g_main_context_ref_thread_default ();
  loop = g_main_loop_new (context, FALSE);
  state.loop = loop;
  input = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  output = g_unix_output_stream_new (wire, TRUE);

  zot_ext_extension_run_async (self, input, output, NULL, run_done_cb, &state);
  g_main_loop_run (loop);

  if (nonblocking)
    g_unix_set_fd_nonblocking (wire, FALSE, NULL);
  g_clear_object (&output);
  fflush (stdout);
  dup2 (saved_stdout, STDOUT_FILENO);
  close (saved_stdout);

  return state.status;
}

/**
 * zot_ext_extension_log: (skip)
 * @self: a #ZotExtExtension
 * @format: a printf() format
 * @...: its arguments
 *
 * Writes a line to stderr, which the host appends to the extension's log.
 * Never print to stdout: it carries the frames.
 */
void
zot_ext_extension_log (ZotExtExtension *self,
                       const char      *format,
                       ...)
{
  g_autofree char *message = NULL;
  va_list args;

  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  zot_ext_extension_log_message (self, message);
}

/**
 * zot_ext_extension_log_message:
 * @self: a #ZotExtExtension
 * @message: the line
 *
 * Writes @message to stderr, prefixed with the extension's name.
 */
void
zot_ext_extension_log_message (ZotExtExtension *self,
                               const char      *message)
{
  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));

  g_printerr ("[%s] %s\n", self->name, message);
}

/**
 * zot_ext_extension_notify:
 * @self: a #ZotExtExtension
 * @level: `info`, `success`, `warn` or `error`
 * @message: the note
 *
 * Pushes a status note attributed to the extension (never sent to the model).
 */
void
zot_ext_extension_notify (ZotExtExtension *self,
                          const char      *level,
                          const char      *message)
{
  JsonObject *frame;

  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (message != NULL);

  frame = new_frame ("notify");
  json_object_set_string_member (frame, "level", level != NULL ? level : "info");
  json_object_set_string_member (frame, "message", message);
  send_logged (self, frame_node (frame));
}

/**
 * zot_ext_extension_clear_notes:
 * @self: a #ZotExtExtension
 *
 * Removes every note this extension pushed.
 */
void
zot_ext_extension_clear_notes (ZotExtExtension *self)
{
  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));

  send_logged (self, frame_node (new_frame ("clear_notes")));
}

/**
 * zot_ext_extension_submit:
 * @self: a #ZotExtExtension
 * @text: the prompt
 *
 * Queues @text as a user prompt (the window only; at most one pending
 * per extension).
 */
void
zot_ext_extension_submit (ZotExtExtension *self,
                          const char      *text)
{
  JsonObject *frame;

  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (text != NULL);

  frame = new_frame ("submit");
  json_object_set_string_member (frame, "text", text);
  send_logged (self, frame_node (frame));
}

/**
 * zot_ext_extension_submit_slash:
 * @self: a #ZotExtExtension
 * @text: `/command args`, naming an extension's command
 * @error: return location for a #GError
 *
 * Runs an extension's slash command as if the user typed it (built-in
 * commands never run this way).
 *
 * Returns: %TRUE when sent; %FALSE when @text does not start with `/`
 */
gboolean
zot_ext_extension_submit_slash (ZotExtExtension  *self,
                                const char       *text,
                                GError          **error)
{
  JsonObject *frame;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  if (text[0] != '/' || text[1] == '\0')
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT,
                   "submit_slash: \"%s\" does not start with / and a command name", text);
      return FALSE;
    }
  frame = new_frame ("submit_slash");
  json_object_set_string_member (frame, "text", text);
  send_logged (self, frame_node (frame));
  return TRUE;
}

/**
 * zot_ext_extension_open_panel:
 * @self: a #ZotExtExtension
 * @panel_id: the panel's id
 * @title: its title
 * @lines: (array zero-terminated=1) (nullable): its lines (ANSI SGR allowed)
 * @footer: (nullable): its footer
 *
 * Opens (or updates) a line panel from anywhere, such as an interactive
 * tool's handler.
 */
void
zot_ext_extension_open_panel (ZotExtExtension    *self,
                              const char         *panel_id,
                              const char         *title,
                              const char * const *lines,
                              const char         *footer)
{
  JsonObject *frame;

  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (panel_id != NULL);

  frame = new_frame ("open_panel");
  json_object_set_member (frame, "panel",
                          _zot_ext_open_panel_node (panel_id, title, lines, NULL, footer));
  send_logged (self, frame_node (frame));
}

static JsonObject *
render_frame (const char *panel_id,
              const char *title,
              const char *footer)
{
  JsonObject *frame = new_frame ("panel_render");

  json_object_set_string_member (frame, "panel_id", panel_id);
  json_object_set_string_member (frame, "title", title != NULL ? title : "");
  json_object_set_string_member (frame, "footer", footer != NULL ? footer : "");
  return frame;
}

/**
 * zot_ext_extension_render_panel:
 * @self: a #ZotExtExtension
 * @panel_id: the panel's id
 * @title: (nullable): its title (%NULL or empty keeps the old one)
 * @lines: (array zero-terminated=1) (nullable): its lines
 * @footer: (nullable): its footer
 *
 * Replaces a line panel's content (`panel_render`).
 */
void
zot_ext_extension_render_panel (ZotExtExtension    *self,
                                const char         *panel_id,
                                const char         *title,
                                const char * const *lines,
                                const char         *footer)
{
  JsonObject *frame;

  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (panel_id != NULL);

  frame = render_frame (panel_id, title, footer);
  json_object_set_member (frame, "lines", string_array_node (lines));
  send_logged (self, frame_node (frame));
}

static gboolean
send_widgets (ZotExtExtension  *self,
              JsonObject       *frame,
              GError          **error)
{
  g_autoptr(JsonNode) node = frame_node (frame);

  return _zot_ext_extension_send (self, node, error);
}

/**
 * zot_ext_extension_open_panel_widgets:
 * @self: a #ZotExtExtension
 * @panel_id: the panel's id
 * @title: its title
 * @widgets_json: the widget tree, a JSON array (see the project's
 *   protocol notes for the widget types)
 * @footer: (nullable): its footer
 * @error: return location for a #GError
 *
 * Opens a panel of native widgets. Fails when the host did not advertise
 * `panel_widgets` (open a line panel then), when @widgets_json is not a
 * JSON array, or when the frame would be over the frame limit.
 *
 * Returns: %TRUE when sent
 */
gboolean
zot_ext_extension_open_panel_widgets (ZotExtExtension  *self,
                                      const char       *panel_id,
                                      const char       *title,
                                      const char       *widgets_json,
                                      const char       *footer,
                                      GError          **error)
{
  JsonObject *frame;
  JsonNode *widgets;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (panel_id != NULL, FALSE);
  g_return_val_if_fail (widgets_json != NULL, FALSE);

  if (!zot_ext_extension_has_host_capability (self, "panel_widgets"))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED,
                   "the host does not offer panel_widgets; open a panel of lines");
      return FALSE;
    }
  widgets = _zot_ext_parse_json (widgets_json, JSON_NODE_ARRAY, "widgets", error);
  if (widgets == NULL)
    return FALSE;

  frame = new_frame ("open_panel");
  json_object_set_member (frame, "panel",
                          _zot_ext_open_panel_node (panel_id, title, NULL, widgets, footer));
  return send_widgets (self, frame, error);
}

/**
 * zot_ext_extension_render_panel_widgets:
 * @self: a #ZotExtExtension
 * @panel_id: the panel's id
 * @title: (nullable): its title (%NULL or empty keeps the old one)
 * @widgets_json: the widget tree, a JSON array; widgets are updated in
 *   place by id
 * @footer: (nullable): its footer
 * @error: return location for a #GError
 *
 * Replaces a widget panel's content. Fails as
 * [method@ZotExt.Extension.open_panel_widgets] does.
 *
 * Returns: %TRUE when sent
 */
gboolean
zot_ext_extension_render_panel_widgets (ZotExtExtension  *self,
                                        const char       *panel_id,
                                        const char       *title,
                                        const char       *widgets_json,
                                        const char       *footer,
                                        GError          **error)
{
  JsonObject *frame;
  JsonNode *widgets;

  g_return_val_if_fail (ZOT_EXT_IS_EXTENSION (self), FALSE);
  g_return_val_if_fail (panel_id != NULL, FALSE);
  g_return_val_if_fail (widgets_json != NULL, FALSE);

  if (!zot_ext_extension_has_host_capability (self, "panel_widgets"))
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED,
                   "the host does not offer panel_widgets; render lines");
      return FALSE;
    }
  widgets = _zot_ext_parse_json (widgets_json, JSON_NODE_ARRAY, "widgets", error);
  if (widgets == NULL)
    return FALSE;

  frame = render_frame (panel_id, title, footer);
  json_object_set_member (frame, "widgets", widgets);
  return send_widgets (self, frame, error);
}

/**
 * zot_ext_extension_close_panel:
 * @self: a #ZotExtExtension
 * @panel_id: the panel's id
 *
 * Closes a panel this extension opened.
 */
void
zot_ext_extension_close_panel (ZotExtExtension *self,
                               const char      *panel_id)
{
  JsonObject *frame;

  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (panel_id != NULL);

  frame = new_frame ("panel_close");
  json_object_set_string_member (frame, "panel_id", panel_id);
  send_logged (self, frame_node (frame));
}

/**
 * zot_ext_extension_call_tool_async:
 * @self: a #ZotExtExtension
 * @name: the host tool to call
 * @args_json: (nullable): its arguments, a JSON object (%NULL for `{}`)
 * @key: (nullable): a durable key, sent only to hosts that advertise
 *   `call_tool_durable`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Calls a host tool without a parent, as a command handler or a timer
 * would. From a tool handler use [method@ZotExt.Invocation.call_tool_async]
 * instead: the host refuses a call without `parent_id` while a tool call
 * of this extension runs. A command has 30 s to answer; give the call a
 * shorter deadline through @cancellable.
 */
void
zot_ext_extension_call_tool_async (ZotExtExtension     *self,
                                   const char          *name,
                                   const char          *args_json,
                                   const char          *key,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (ZOT_EXT_IS_EXTENSION (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  _zot_ext_extension_call_tool (self, self, zot_ext_extension_call_tool_async, name, args_json,
                                key, NULL, NULL, cancellable, callback, user_data);
}

/**
 * zot_ext_extension_call_tool_finish:
 * @self: a #ZotExtExtension
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes the call started with the matching `_async` function.
 *
 * Returns: (transfer full): the host's result
 */
ZotExtToolResult *
zot_ext_extension_call_tool_finish (ZotExtExtension  *self,
                                    GAsyncResult     *result,
                                    GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
