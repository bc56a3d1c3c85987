/* zot-ext-intercept-invocation.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "zot-ext"

#include <string.h>

#include "zot-ext-private.h"

/**
 * ZotExtInterceptInvocation:
 *
 * One interception request (`event_intercept`), handed to the
 * [signal@ZotExt.Extension::intercept] handlers.
 *
 * The host waits %ZOT_EXT_INTERCEPT_DEADLINE_MSEC (5 s) for the answer and
 * then allows. The library makes sure an answer is always sent in time:
 * one not given within %ZOT_EXT_INTERCEPT_REPLY_MSEC is sent for the
 * handler as allow (logged to stderr), and a handler that returned %FALSE
 * without answering (a failure, or an exception in gjs or Python) blocks
 * with a reason naming the extension and the event (for
 * `before_agent_start`, which cannot block, the prompt is kept).
 *
 * Answers by event: `tool_call` — allow, block, modify_args;
 * `turn_start` — allow, block; `assistant_message` — allow, block,
 * replace_text; `before_agent_start` — allow (keep), set_system_prompt.
 */
struct _ZotExtInterceptInvocation
{
  GObject          parent_instance;

  ZotExtExtension *extension;
  char            *id;
  char            *event;
  JsonObject      *frame;
  GSource         *deadline;
  gboolean         finished;
};

G_DEFINE_FINAL_TYPE (ZotExtInterceptInvocation, zot_ext_intercept_invocation, G_TYPE_OBJECT)

/* The source lives on the thread-default context, which g_source_remove()
 * (default context only) would not find. */
static void
clear_deadline (ZotExtInterceptInvocation *self)
{
  if (self->deadline == NULL)
    return;
  g_source_destroy (self->deadline);
  g_clear_pointer (&self->deadline, g_source_unref);
}

/* @member and @value may be NULL: a plain allow. Takes @value. */
static void
respond (ZotExtInterceptInvocation *self,
         gboolean                   block,
         const char                *reason,
         const char                *member,
         JsonNode                  *value)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) frame = NULL;
  g_autoptr(GError) error = NULL;

  if (self->finished)
    {
      g_printerr ("[%s] late or second reply to %s interception %s dropped\n",
                  zot_ext_extension_get_name (self->extension), self->event, self->id);
      if (value != NULL)
        json_node_unref (value);
      return;
    }
  self->finished = TRUE;
  clear_deadline (self);

  builder = json_builder_new_immutable ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "event_intercept_response");
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, self->id);
  if (block)
    {
      json_builder_set_member_name (builder, "block");
      json_builder_add_boolean_value (builder, TRUE);
      json_builder_set_member_name (builder, "reason");
      json_builder_add_string_value (builder, reason != NULL ? reason : "");
    }
  if (member != NULL)
    {
      json_builder_set_member_name (builder, member);
      json_builder_add_value (builder, value);
    }
  json_builder_end_object (builder);
  frame = json_builder_get_root (builder);

  if (!_zot_ext_extension_send (self->extension, frame, &error))
    {
      g_autoptr(JsonBuilder) allow = json_builder_new_immutable ();
      g_autoptr(JsonNode) allow_frame = NULL;

      g_printerr ("[%s] %s interception %s: %s; allowing instead\n",
                  zot_ext_extension_get_name (self->extension), self->event, self->id,
                  error->message);
      json_builder_begin_object (allow);
      json_builder_set_member_name (allow, "type");
      json_builder_add_string_value (allow, "event_intercept_response");
      json_builder_set_member_name (allow, "id");
      json_builder_add_string_value (allow, self->id);
      json_builder_end_object (allow);
      allow_frame = json_builder_get_root (allow);
      _zot_ext_extension_send (self->extension, allow_frame, NULL);
    }

  _zot_ext_extension_forget_intercept (self->extension, self->id);
}

static gboolean
deadline_cb (gpointer user_data)
{
  ZotExtInterceptInvocation *self = user_data;

  clear_deadline (self);
  g_printerr ("[%s] %s interception %s not answered within %d ms; allowing\n",
              zot_ext_extension_get_name (self->extension), self->event, self->id,
              ZOT_EXT_INTERCEPT_REPLY_MSEC);
  respond (self, FALSE, NULL, NULL, NULL);
  return G_SOURCE_REMOVE;
}

static void
zot_ext_intercept_invocation_dispose (GObject *object)
{
  ZotExtInterceptInvocation *self = (ZotExtInterceptInvocation *)object;

  clear_deadline (self);
  g_clear_object (&self->extension);

  G_OBJECT_CLASS (zot_ext_intercept_invocation_parent_class)->dispose (object);
}

static void
zot_ext_intercept_invocation_finalize (GObject *object)
{
  ZotExtInterceptInvocation *self = (ZotExtInterceptInvocation *)object;

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->event, g_free);
  g_clear_pointer (&self->frame, json_object_unref);

  G_OBJECT_CLASS (zot_ext_intercept_invocation_parent_class)->finalize (object);
}

static void
zot_ext_intercept_invocation_class_init (ZotExtInterceptInvocationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_ext_intercept_invocation_dispose;
  object_class->finalize = zot_ext_intercept_invocation_finalize;
}

static void
zot_ext_intercept_invocation_init (ZotExtInterceptInvocation *self)
{
}

ZotExtInterceptInvocation *
_zot_ext_intercept_invocation_new (ZotExtExtension *extension,
                                   const char      *id,
                                   const char      *event,
                                   JsonObject      *frame)
{
  ZotExtInterceptInvocation *self = g_object_new (ZOT_EXT_TYPE_INTERCEPT_INVOCATION, NULL);
  GSource *source;

  self->extension = g_object_ref (extension);
  self->id = g_strdup (id);
  self->event = g_strdup (event);
  self->frame = json_object_ref (frame);

  /* The source holds no reference: the extension's table keeps the
   * invocation alive until it is answered, and answering removes it. */
  source = g_timeout_source_new (ZOT_EXT_INTERCEPT_REPLY_MSEC);
  g_source_set_callback (source, deadline_cb, self, NULL);
  g_source_set_static_name (source, "[zot-ext] intercept deadline");
  g_source_attach (source, g_main_context_get_thread_default ());
  self->deadline = source;

  return self;
}

void
_zot_ext_intercept_invocation_fail (ZotExtInterceptInvocation *self,
                                    const char                *why)
{
  g_autofree char *reason = NULL;

  g_assert (ZOT_EXT_IS_INTERCEPT_INVOCATION (self));

  if (self->finished)
    return;

  reason = g_strdup_printf ("%s: %s interceptor failed: %s",
                            zot_ext_extension_get_name (self->extension), self->event, why);
  g_printerr ("[%s] %s\n", zot_ext_extension_get_name (self->extension), reason);
  if (g_strcmp0 (self->event, "before_agent_start") == 0)
    respond (self, FALSE, NULL, NULL, NULL);
  else
    respond (self, TRUE, reason, NULL, NULL);
}

/* Shutdown or end of input: nobody reads an answer any more. */
void
_zot_ext_intercept_invocation_close (ZotExtInterceptInvocation *self)
{
  g_assert (ZOT_EXT_IS_INTERCEPT_INVOCATION (self));

  self->finished = TRUE;
  clear_deadline (self);
}

/**
 * zot_ext_intercept_invocation_get_event:
 * @self: a #ZotExtInterceptInvocation
 *
 * Gets the intercepted event, such as `tool_call`.
 *
 * Returns: the intercepted event, such as `tool_call`
 */
const char *
zot_ext_intercept_invocation_get_event (ZotExtInterceptInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), NULL);

  return self->event;
}

/**
 * zot_ext_intercept_invocation_get_id:
 * @self: a #ZotExtInterceptInvocation
 *
 * Gets the host's correlation id.
 *
 * Returns: the host's correlation id
 */
const char *
zot_ext_intercept_invocation_get_id (ZotExtInterceptInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), NULL);

  return self->id;
}

/**
 * zot_ext_intercept_invocation_get_json:
 * @self: a #ZotExtInterceptInvocation
 *
 * Gets the whole request frame as JSON.
 *
 * Returns: (transfer full): the whole request frame as JSON
 */
char *
zot_ext_intercept_invocation_get_json (ZotExtInterceptInvocation *self)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), NULL);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, self->frame);
  return json_to_string (node, FALSE);
}

/**
 * zot_ext_intercept_invocation_get_object: (skip)
 * @self: a #ZotExtInterceptInvocation
 *
 * Gets the whole request frame.
 *
 * Returns: (transfer none): the whole request frame
 */
JsonObject *
zot_ext_intercept_invocation_get_object (ZotExtInterceptInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), NULL);

  return self->frame;
}

/**
 * zot_ext_intercept_invocation_get_string:
 * @self: a #ZotExtInterceptInvocation
 * @member: a field of the request, such as `system_prompt` or `text`
 *
 * Gets its string value, or %NULL when absent or not a string.
 *
 * Returns: (nullable): its string value, or %NULL when absent or not a string
 */
const char *
zot_ext_intercept_invocation_get_string (ZotExtInterceptInvocation *self,
                                         const char                *member)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), NULL);
  g_return_val_if_fail (member != NULL, NULL);

  node = json_object_get_member (self->frame, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/**
 * zot_ext_intercept_invocation_get_tool_name:
 * @self: a #ZotExtInterceptInvocation
 *
 * Gets `tool_name` of a `tool_call` interception.
 *
 * Returns: (nullable): `tool_name` of a `tool_call` interception
 */
const char *
zot_ext_intercept_invocation_get_tool_name (ZotExtInterceptInvocation *self)
{
  return zot_ext_intercept_invocation_get_string (self, "tool_name");
}

/**
 * zot_ext_intercept_invocation_get_tool_args: (skip)
 * @self: a #ZotExtInterceptInvocation
 *
 * Gets `tool_args` when it is an object.
 *
 * Returns: (transfer none) (nullable): `tool_args` when it is an object
 */
JsonObject *
zot_ext_intercept_invocation_get_tool_args (ZotExtInterceptInvocation *self)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), NULL);

  node = json_object_get_member (self->frame, "tool_args");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

/**
 * zot_ext_intercept_invocation_get_tool_args_json:
 * @self: a #ZotExtInterceptInvocation
 *
 * Gets `tool_args` as JSON (`{}` when absent).
 *
 * Returns: (transfer full): `tool_args` as JSON (`{}` when absent)
 */
char *
zot_ext_intercept_invocation_get_tool_args_json (ZotExtInterceptInvocation *self)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), NULL);

  node = json_object_get_member (self->frame, "tool_args");
  if (node == NULL)
    return g_strdup ("{}");
  return json_to_string (node, FALSE);
}

/**
 * zot_ext_intercept_invocation_is_finished:
 * @self: a #ZotExtInterceptInvocation
 *
 * Tells whether an answer was sent (or the connection ended).
 *
 * Returns: whether an answer was sent (or the connection ended)
 */
gboolean
zot_ext_intercept_invocation_is_finished (ZotExtInterceptInvocation *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), TRUE);

  return self->finished;
}

/**
 * zot_ext_intercept_invocation_allow:
 * @self: a #ZotExtInterceptInvocation
 *
 * Lets the operation go on unchanged (an empty reply).
 */
void
zot_ext_intercept_invocation_allow (ZotExtInterceptInvocation *self)
{
  g_return_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self));

  respond (self, FALSE, NULL, NULL, NULL);
}

/**
 * zot_ext_intercept_invocation_block:
 * @self: a #ZotExtInterceptInvocation
 * @reason: why; the model sees it as the tool's error text
 *
 * Refuses the operation (ignored by the host for `before_agent_start`).
 */
void
zot_ext_intercept_invocation_block (ZotExtInterceptInvocation *self,
                                    const char                *reason)
{
  g_return_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self));

  respond (self, TRUE, reason, NULL, NULL);
}

/**
 * zot_ext_intercept_invocation_modify_args:
 * @self: a #ZotExtInterceptInvocation
 * @args_json: the arguments the tool runs with, a JSON object
 * @error: return location for a #GError
 *
 * Rewrites a `tool_call`'s arguments. Fails without answering when
 * @args_json is not a JSON object.
 *
 * Returns: %TRUE when the answer was sent
 */
gboolean
zot_ext_intercept_invocation_modify_args (ZotExtInterceptInvocation  *self,
                                          const char                 *args_json,
                                          GError                    **error)
{
  JsonNode *args;

  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), FALSE);
  g_return_val_if_fail (args_json != NULL, FALSE);

  args = _zot_ext_parse_json (args_json, JSON_NODE_OBJECT, "modified args", error);
  if (args == NULL)
    return FALSE;
  respond (self, FALSE, NULL, "modified_args", args);
  return TRUE;
}

/**
 * zot_ext_intercept_invocation_replace_text:
 * @self: a #ZotExtInterceptInvocation
 * @text: what the user sees instead of the assistant's text
 *
 * Answers an `assistant_message` interception; the transcript keeps the
 * original.
 */
void
zot_ext_intercept_invocation_replace_text (ZotExtInterceptInvocation *self,
                                           const char                *text)
{
  JsonNode *value;

  g_return_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self));
  g_return_if_fail (text != NULL);

  value = json_node_init_string (json_node_alloc (), text);
  respond (self, FALSE, NULL, "replace_text", value);
}

/**
 * zot_ext_intercept_invocation_set_system_prompt:
 * @self: a #ZotExtInterceptInvocation
 * @prompt: the complete replacement (`""` removes the prompt)
 * @error: return location for a #GError
 *
 * Answers a `before_agent_start` interception with a full replacement of
 * the system prompt. A prompt over %ZOT_EXT_SYSTEM_PROMPT_MAX_BYTES fails
 * without answering.
 *
 * Returns: %TRUE when the answer was sent
 */
gboolean
zot_ext_intercept_invocation_set_system_prompt (ZotExtInterceptInvocation  *self,
                                                const char                 *prompt,
                                                GError                    **error)
{
  g_return_val_if_fail (ZOT_EXT_IS_INTERCEPT_INVOCATION (self), FALSE);
  g_return_val_if_fail (prompt != NULL, FALSE);

  if (strlen (prompt) > ZOT_EXT_SYSTEM_PROMPT_MAX_BYTES)
    {
      g_set_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_TOO_LARGE,
                   "the system prompt is %" G_GSIZE_FORMAT " bytes, over the 1 MiB limit",
                   strlen (prompt));
      return FALSE;
    }
  respond (self, FALSE, NULL, "system_prompt", json_node_init_string (json_node_alloc (), prompt));
  return TRUE;
}
