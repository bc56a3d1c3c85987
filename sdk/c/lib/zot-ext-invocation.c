/* zot-ext-invocation.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "zot-ext"

#include <stdio.h>

#include "zot-ext-private.h"

/**
 * ZotExtInvocation:
 *
 * One call of a tool the extension provides, handed to the
 * [signal@ZotExt.Extension::tool-call] handlers.
 *
 * Like `GDBusMethodInvocation`, a handler replies now or keeps a
 * reference and replies later, exactly once, with one of the `return_`
 * methods. The invocation owns a [class@Gio.Cancellable] that is
 * cancelled when the host sends `tool_cancel`, `shutdown` or closes the
 * connection; after that no reply goes out (one that comes anyway is
 * written to stderr and dropped, as is a second reply). A cancel that
 * arrives before the handler runs is already visible when it does.
 *
 * Nested calls started with [method@ZotExt.Invocation.call_tool_async]
 * carry this invocation's id as their `parent_id` and end with it.
 */

typedef enum
{
  STATE_LIVE,
  STATE_REPLIED,
  STATE_CANCELLED,
} State;

struct _ZotExtInvocation
{
  GObject          parent_instance;

  ZotExtExtension *extension;
  char            *id;
  char            *name;
  JsonNode        *args;
  char            *operation_key;
  gboolean         reconcile;
  GCancellable    *cancellable;
  char           **activate_tools;
  State            state;
};

G_DEFINE_FINAL_TYPE (ZotExtInvocation, zot_ext_invocation, G_TYPE_OBJECT)

static void
log_dropped (ZotExtInvocation *self,
             const char       *what)
{
  g_printerr ("[%s] %s reply to tool call %s (%s) dropped: %s\n",
              zot_ext_extension_get_name (self->extension), self->name, self->id,
              what,
              self->state == STATE_REPLIED ? "it was already answered"
                                           : "it was cancelled");
}

static JsonNode *
result_node (ZotExtInvocation *self,
             JsonNode         *content,
             JsonNode         *structured,
             gboolean          is_error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "tool_result");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, self->id);
  json_builder_set_member_name (builder, "content");
  json_builder_add_value (builder, json_node_ref (content));
  if (structured != NULL)
    {
      json_builder_set_member_name (builder, "structured_content");
      json_builder_add_value (builder, json_node_ref (structured));
    }
  json_builder_set_member_name (builder, "is_error");
  json_builder_add_boolean_value (builder, is_error);
  if (self->activate_tools != NULL && self->activate_tools[0] != NULL)
    {
      json_builder_set_member_name (builder, "activate_tools");
      json_builder_begin_array (builder);
      for (guint i = 0; self->activate_tools[i] != NULL; i++)
        json_builder_add_string_value (builder, self->activate_tools[i]);
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static JsonNode *
text_content (const char *text)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();

  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text != NULL ? text : "");
  json_builder_end_object (builder);
  json_builder_end_array (builder);

  return json_builder_get_root (builder);
}

/* Takes @content and @structured. The only place a tool_result leaves. */
static void
reply (ZotExtInvocation *self,
       const char       *what,
       JsonNode         *content,
       JsonNode         *structured,
       gboolean          is_error)
{
  g_autoptr(JsonNode) owned_content = content;
  g_autoptr(JsonNode) owned_structured = structured;
  g_autoptr(JsonNode) frame = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;

  if (self->state != STATE_LIVE)
    {
      log_dropped (self, what);
      return;
    }

  self->state = STATE_REPLIED;

  frame = result_node (self, owned_content, owned_structured, is_error);
  if (!_zot_ext_frame_fits (frame, &text, &len))
    {
      g_autofree char *message = NULL;

      message = g_strdup_printf ("%s: the tool result is %" G_GSIZE_FORMAT " bytes, over the "
                                 "%" G_GSIZE_FORMAT " byte (4 MiB) frame limit; it was not sent",
                                 self->name, len, ZOT_EXT_FRAME_MAX_BYTES);
      g_printerr ("[%s] %s\n", zot_ext_extension_get_name (self->extension), message);
      g_clear_pointer (&frame, json_node_unref);
      frame = result_node (self, text_content (message), NULL, TRUE);
      g_clear_pointer (&text, g_free);
      _zot_ext_frame_fits (frame, &text, &len);
    }

  _zot_ext_extension_send_text (self->extension, g_steal_pointer (&text), len);
  _zot_ext_extension_forget_invocation (self->extension, self->id);
}

static void
zot_ext_invocation_dispose (GObject *object)
{
  ZotExtInvocation *self = (ZotExtInvocation *)object;

  g_clear_object (&self->extension);

  G_OBJECT_CLASS (zot_ext_invocation_parent_class)->dispose (object);
}

static void
zot_ext_invocation_finalize (GObject *object)
{
  ZotExtInvocation *self = (ZotExtInvocation *)object;

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->args, json_node_unref);
  g_clear_pointer (&self->operation_key, g_free);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->activate_tools, g_strfreev);

  G_OBJECT_CLASS (zot_ext_invocation_parent_class)->finalize (object);
}

static void
zot_ext_invocation_class_init (ZotExtInvocationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_ext_invocation_dispose;
  object_class->finalize = zot_ext_invocation_finalize;
}

static void
zot_ext_invocation_init (ZotExtInvocation *self)
{
  self->cancellable = g_cancellable_new ();
}

ZotExtInvocation *
_zot_ext_invocation_new (ZotExtExtension *extension,
                         const char      *id,
                         const char      *name,
                         JsonNode        *args,
                         const char      *operation_key,
                         gboolean         reconcile)
{
  ZotExtInvocation *self = g_object_new (ZOT_EXT_TYPE_INVOCATION, NULL);

  self->extension = g_object_ref (extension);
  self->id = g_strdup (id);
  self->name = g_strdup (name);
  self->operation_key = g_strdup (operation_key);
  self->reconcile = reconcile;
  if (args != NULL && JSON_NODE_HOLDS_OBJECT (args))
    self->args = json_node_ref (args);
  else
    self->args = json_node_init_object (json_node_alloc (), json_object_new ());

  return self;
}

void
_zot_ext_invocation_cancel (ZotExtInvocation *self)
{
  g_assert (ZOT_EXT_IS_INVOCATION (self));

  if (self->state != STATE_LIVE)
    return;

  /* The state changes first so that a handler answering from its
   * cancelled callback is dropped rather than sent. */
  self->state = STATE_CANCELLED;
  g_cancellable_cancel (self->cancellable);
}

/* A handler that returned FALSE without replying has failed: the C
 * counterpart of a panic, and what a gjs or Python handler that throws
 * leaves behind. */
gboolean
_zot_ext_invocation_take_unhandled (ZotExtInvocation *self)
{
  g_autofree char *message = NULL;

  g_assert (ZOT_EXT_IS_INVOCATION (self));

  if (self->state != STATE_LIVE)
    return FALSE;

  message = g_strdup_printf ("%s: the handler failed (it threw, or returned FALSE without replying)",
                             self->name);
  g_printerr ("[%s] %s\n", zot_ext_extension_get_name (self->extension), message);
  zot_ext_invocation_return_error (self, message);
  return TRUE;
}

/**
 * zot_ext_invocation_get_name:
 * @self: a #ZotExtInvocation
 *
 * Gets the tool's name.
 *
 * Returns: the tool's name
 */
const char *
zot_ext_invocation_get_name (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), NULL);

  return self->name;
}

/**
 * zot_ext_invocation_get_id:
 * @self: a #ZotExtInvocation
 *
 * Gets the host's opaque correlation id of this call.
 *
 * Returns: the host's opaque correlation id of this call
 */
const char *
zot_ext_invocation_get_id (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), NULL);

  return self->id;
}

/**
 * zot_ext_invocation_get_args_json:
 * @self: a #ZotExtInvocation
 *
 * Gets the arguments, a JSON object.
 *
 * Returns: (transfer full): the arguments, a JSON object
 */
char *
zot_ext_invocation_get_args_json (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), NULL);

  return json_to_string (self->args, FALSE);
}

/**
 * zot_ext_invocation_get_args: (skip)
 * @self: a #ZotExtInvocation
 *
 * Gets the arguments, a JSON object node.
 *
 * Returns: (transfer none): the arguments, a JSON object node
 */
JsonNode *
zot_ext_invocation_get_args (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), NULL);

  return self->args;
}

/**
 * zot_ext_invocation_get_string_arg:
 * @self: a #ZotExtInvocation
 * @member: an argument name
 *
 * Gets the string argument @member, or %NULL when it is absent or not a
 * string.
 *
 * Returns: (nullable): the string argument @member, or %NULL when it is
 *   absent or not a string
 */
const char *
zot_ext_invocation_get_string_arg (ZotExtInvocation *self,
                                   const char       *member)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), NULL);
  g_return_val_if_fail (member != NULL, NULL);

  node = json_object_get_member (json_node_get_object (self->args), member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/**
 * zot_ext_invocation_get_operation_key:
 * @self: a #ZotExtInvocation
 *
 * Gets the `operation_key` a continuous host sends with every call of an
 * idempotent or reconcile tool: the same key for the same call, when it
 * is replayed too.
 *
 * Returns: (nullable): the operation key, or %NULL
 */
const char *
zot_ext_invocation_get_operation_key (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), NULL);

  return self->operation_key;
}

/**
 * zot_ext_invocation_is_reconcile:
 * @self: a #ZotExtInvocation
 *
 * Tells whether this call is a reconcile question (`"reconcile":true`):
 * nothing is to be run; answer with a result whose `structured_content`
 * has `state` `not_started` (the host then runs the call), `completed`
 * (the content is the call's result) or `unknown`, for example with
 * [method@ZotExt.Invocation.return_result_json] and
 * `{"state":"completed"}`.
 *
 * Returns: whether the host asks what became of the operation
 */
gboolean
zot_ext_invocation_is_reconcile (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), FALSE);

  return self->reconcile;
}

/**
 * zot_ext_invocation_get_cancellable:
 * @self: a #ZotExtInvocation
 *
 * The cancellable is cancelled by `tool_cancel`, `shutdown` and the end
 * of input. Pass it to your own asynchronous work.
 *
 * Returns: (transfer none): the invocation's cancellable
 */
GCancellable *
zot_ext_invocation_get_cancellable (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), NULL);

  return self->cancellable;
}

/**
 * zot_ext_invocation_is_finished:
 * @self: a #ZotExtInvocation
 *
 * Tells whether the invocation was answered or cancelled.
 *
 * Returns: whether the invocation was answered or cancelled
 */
gboolean
zot_ext_invocation_is_finished (ZotExtInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), TRUE);

  return self->state != STATE_LIVE;
}

/**
 * zot_ext_invocation_report_progress:
 * @self: a #ZotExtInvocation
 * @text: where the call got to, one line
 *
 * Sends `tool_progress` for this call: the host shows the latest text as
 * the call's status, at most ten a second (the ones between are dropped
 * in favour of the latest). Nothing is sent once the invocation is
 * answered or cancelled.
 *
 * Returns: whether the frame was sent
 */
gboolean
zot_ext_invocation_report_progress (ZotExtInvocation *self,
                                    const char       *text)
{
  g_autoptr(JsonNode) frame = NULL;
  JsonObject *object;

  g_return_val_if_fail (ZOT_EXT_IS_INVOCATION (self), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  if (self->state != STATE_LIVE)
    return FALSE;

  object = json_object_new ();
  json_object_set_string_member (object, "type", "tool_progress");
  json_object_set_string_member (object, "id", self->id);
  json_object_set_string_member (object, "text", text);
  frame = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);
  return _zot_ext_extension_send (self->extension, frame, NULL);
}

/**
 * zot_ext_invocation_set_activate_tools:
 * @self: a #ZotExtInvocation
 * @names: (nullable) (array zero-terminated=1): deferred tools to activate
 *
 * Names sent as `activate_tools` with the reply: those deferred tools
 * become visible to the model for the rest of the conversation.
 */
void
zot_ext_invocation_set_activate_tools (ZotExtInvocation   *self,
                                       const char * const *names)
{
  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));

  g_clear_pointer (&self->activate_tools, g_strfreev);
  self->activate_tools = g_strdupv ((char **)names);
}

/**
 * zot_ext_invocation_return_text:
 * @self: a #ZotExtInvocation
 * @text: the result text
 *
 * Answers with one text block.
 */
void
zot_ext_invocation_return_text (ZotExtInvocation *self,
                                const char       *text)
{
  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));

  reply (self, "text", text_content (text), NULL, FALSE);
}

/**
 * zot_ext_invocation_return_error:
 * @self: a #ZotExtInvocation
 * @text: what went wrong
 *
 * Answers with an error result (`is_error:true`) of one text block.
 */
void
zot_ext_invocation_return_error (ZotExtInvocation *self,
                                 const char       *text)
{
  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));

  reply (self, "error", text_content (text), NULL, TRUE);
}

/**
 * zot_ext_invocation_return_error_printf: (skip)
 * @self: a #ZotExtInvocation
 * @format: a printf() format
 * @...: its arguments
 *
 * Answers with an error result made from @format.
 */
void
zot_ext_invocation_return_error_printf (ZotExtInvocation *self,
                                        const char       *format,
                                        ...)
{
  g_autofree char *text = NULL;
  va_list args;

  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  zot_ext_invocation_return_error (self, text);
}

/**
 * zot_ext_invocation_return_structured:
 * @self: a #ZotExtInvocation
 * @text: the text the model sees
 * @structured_json: (nullable): `structured_content`, any JSON value,
 *   for codemode scripts when the tool declared an output schema
 *
 * Answers with a text block and structured content. JSON that does not
 * parse becomes an error result naming the problem.
 */
void
zot_ext_invocation_return_structured (ZotExtInvocation *self,
                                      const char       *text,
                                      const char       *structured_json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *structured = NULL;

  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));

  if (structured_json != NULL)
    {
      structured = _zot_ext_parse_json (structured_json, JSON_NODE_NULL,
                                        "structured content", &error);
      if (structured == NULL)
        {
          zot_ext_invocation_return_error_printf (self, "%s: %s", self->name, error->message);
          return;
        }
    }

  reply (self, "structured", text_content (text), structured, FALSE);
}

/**
 * zot_ext_invocation_return_image:
 * @self: a #ZotExtInvocation
 * @text: (nullable): a text block to put before the image
 * @mime_type: the image's type, such as `image/png`
 * @data: the image's bytes (encoded to base64 here)
 *
 * Answers with an image block, after an optional text block.
 */
void
zot_ext_invocation_return_image (ZotExtInvocation *self,
                                 const char       *text,
                                 const char       *mime_type,
                                 GBytes           *data)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();
  g_autofree char *encoded = NULL;
  gsize size = 0;
  gconstpointer bytes;

  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));
  g_return_if_fail (mime_type != NULL);
  g_return_if_fail (data != NULL);

  bytes = g_bytes_get_data (data, &size);
  encoded = g_base64_encode (bytes, size);

  json_builder_begin_array (builder);
  if (text != NULL)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "text");
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, text);
      json_builder_end_object (builder);
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "image");
  json_builder_set_member_name (builder, "mime_type");
  json_builder_add_string_value (builder, mime_type);
  json_builder_set_member_name (builder, "data");
  json_builder_add_string_value (builder, encoded);
  json_builder_end_object (builder);
  json_builder_end_array (builder);

  reply (self, "image", json_builder_get_root (builder), NULL, FALSE);
}

/**
 * zot_ext_invocation_return_result_json:
 * @self: a #ZotExtInvocation
 * @content_json: the `content` blocks, a JSON array such as
 *   `[{"type":"text","text":"…"},{"type":"image","mime_type":"image/png","data":"…"}]`
 * @structured_json: (nullable): `structured_content`, any JSON value
 * @is_error: whether the result is an error
 *
 * Answers with a full result. JSON that does not parse, or a @content_json
 * that is not an array, becomes an error result naming the problem.
 */
void
zot_ext_invocation_return_result_json (ZotExtInvocation *self,
                                       const char       *content_json,
                                       const char       *structured_json,
                                       gboolean          is_error)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) content = NULL;
  JsonNode *structured = NULL;

  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));
  g_return_if_fail (content_json != NULL);

  content = _zot_ext_parse_json (content_json, JSON_NODE_ARRAY, "content", &error);
  if (content != NULL && structured_json != NULL)
    structured = _zot_ext_parse_json (structured_json, JSON_NODE_NULL,
                                      "structured content", &error);
  if (error != NULL)
    {
      zot_ext_invocation_return_error_printf (self, "%s: %s", self->name, error->message);
      return;
    }

  reply (self, "result", g_steal_pointer (&content), structured, is_error);
}

/**
 * zot_ext_invocation_call_tool_async:
 * @self: a #ZotExtInvocation
 * @name: the host tool to call, such as `read`
 * @args_json: (nullable): its arguments, a JSON object (%NULL for `{}`)
 * @key: (nullable): a durable key (at most 128 bytes, no `/`), sent only
 *   to hosts that advertise `call_tool_durable`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the result
 * @user_data: data for @callback
 *
 * Calls a tool of the host (a built-in or another extension's) as a child
 * of this invocation: the request carries this invocation's id as
 * `parent_id`. Cancelling @cancellable or the invocation's own
 * cancellable sends `call_tool_cancel` and fails the call with
 * %G_IO_ERROR_CANCELLED. On a host without `call_tool` the call fails at
 * once with %ZOT_EXT_ERROR_NOT_SUPPORTED.
 */
void
zot_ext_invocation_call_tool_async (ZotExtInvocation    *self,
                                    const char          *name,
                                    const char          *args_json,
                                    const char          *key,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_return_if_fail (ZOT_EXT_IS_INVOCATION (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  _zot_ext_extension_call_tool (self->extension, self, zot_ext_invocation_call_tool_async,
                                name, args_json, key, self->id, self->cancellable,
                                cancellable, callback, user_data);
}

/**
 * zot_ext_invocation_call_tool_finish:
 * @self: a #ZotExtInvocation
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes the call started with the matching `_async` function.
 *
 * Returns: (transfer full): the host's result; check
 *   [method@ZotExt.ToolResult.get_is_error] for a failed tool
 */
ZotExtToolResult *
zot_ext_invocation_call_tool_finish (ZotExtInvocation  *self,
                                     GAsyncResult      *result,
                                     GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
