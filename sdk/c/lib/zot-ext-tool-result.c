/* zot-ext-tool-result.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "zot-ext"

#include "zot-ext-private.h"

/**
 * ZotExtToolResult:
 *
 * The host's answer to a nested tool call made with
 * [method@ZotExt.Invocation.call_tool_async] or
 * [method@ZotExt.Extension.call_tool_async].
 *
 * `is_error` covers unknown tools, refusals and failures of the tool; the
 * host shortens what it returns to 256 KiB of text and image data and then
 * sets `truncated`.
 */
struct _ZotExtToolResult
{
  GObject     parent_instance;

  char       *name;
  JsonArray  *content;
  JsonNode   *structured;
  gboolean    is_error;
  gboolean    truncated;
};

G_DEFINE_FINAL_TYPE (ZotExtToolResult, zot_ext_tool_result, G_TYPE_OBJECT)

static void
zot_ext_tool_result_finalize (GObject *object)
{
  ZotExtToolResult *self = (ZotExtToolResult *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->content, json_array_unref);
  g_clear_pointer (&self->structured, json_node_unref);

  G_OBJECT_CLASS (zot_ext_tool_result_parent_class)->finalize (object);
}

static void
zot_ext_tool_result_class_init (ZotExtToolResultClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zot_ext_tool_result_finalize;
}

static void
zot_ext_tool_result_init (ZotExtToolResult *self)
{
}

ZotExtToolResult *
_zot_ext_tool_result_new (JsonObject *frame)
{
  ZotExtToolResult *self = g_object_new (ZOT_EXT_TYPE_TOOL_RESULT, NULL);
  JsonNode *node;

  node = json_object_get_member (frame, "name");
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    self->name = g_strdup (json_node_get_string (node));

  node = json_object_get_member (frame, "content");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    self->content = json_array_ref (json_node_get_array (node));
  else
    self->content = json_array_new ();

  node = json_object_get_member (frame, "structured_content");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    self->structured = json_node_copy (node);

  self->is_error = json_object_get_boolean_member_with_default (frame, "is_error", FALSE);
  self->truncated = json_object_get_boolean_member_with_default (frame, "truncated", FALSE);

  return self;
}

/**
 * zot_ext_tool_result_get_name:
 * @self: a #ZotExtToolResult
 *
 * Gets the tool name the host echoed, if any.
 *
 * Returns: (nullable): the tool name the host echoed, if any
 */
const char *
zot_ext_tool_result_get_name (ZotExtToolResult *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_TOOL_RESULT (self), NULL);

  return self->name;
}

/**
 * zot_ext_tool_result_get_text:
 * @self: a #ZotExtToolResult
 *
 * Joins the text blocks of the result with newlines, as codemode does.
 *
 * Returns: (transfer full): the text, empty when there is none
 */
char *
zot_ext_tool_result_get_text (ZotExtToolResult *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint n;

  g_return_val_if_fail (ZOT_EXT_IS_TOOL_RESULT (self), NULL);

  n = json_array_get_length (self->content);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *block = json_array_get_element (self->content, i);
      JsonObject *obj;
      const char *type;
      const char *value;

      if (!JSON_NODE_HOLDS_OBJECT (block))
        continue;
      obj = json_node_get_object (block);
      type = json_object_get_string_member_with_default (obj, "type", "");
      if (g_strcmp0 (type, "text") != 0)
        continue;
      value = json_object_get_string_member_with_default (obj, "text", "");
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, value);
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

/**
 * zot_ext_tool_result_get_is_error:
 * @self: a #ZotExtToolResult
 *
 * Tells whether the call failed or was refused.
 *
 * Returns: whether the call failed or was refused
 */
gboolean
zot_ext_tool_result_get_is_error (ZotExtToolResult *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_TOOL_RESULT (self), TRUE);

  return self->is_error;
}

/**
 * zot_ext_tool_result_get_truncated:
 * @self: a #ZotExtToolResult
 *
 * Tells whether the host shortened the reply to its observation limit.
 *
 * Returns: whether the host shortened the reply to its observation limit
 */
gboolean
zot_ext_tool_result_get_truncated (ZotExtToolResult *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_TOOL_RESULT (self), FALSE);

  return self->truncated;
}

/**
 * zot_ext_tool_result_get_content_json:
 * @self: a #ZotExtToolResult
 *
 * Gets the `content` blocks as a JSON array.
 *
 * Returns: (transfer full): the `content` blocks as a JSON array
 */
char *
zot_ext_tool_result_get_content_json (ZotExtToolResult *self)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (ZOT_EXT_IS_TOOL_RESULT (self), NULL);

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, self->content);
  return json_to_string (node, FALSE);
}

/**
 * zot_ext_tool_result_get_structured_json:
 * @self: a #ZotExtToolResult
 *
 * Gets `structured_content` as JSON, or %NULL.
 *
 * Returns: (transfer full) (nullable): `structured_content` as JSON, or %NULL
 */
char *
zot_ext_tool_result_get_structured_json (ZotExtToolResult *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_TOOL_RESULT (self), NULL);

  if (self->structured == NULL)
    return NULL;
  return json_to_string (self->structured, FALSE);
}

/**
 * zot_ext_tool_result_get_content: (skip)
 * @self: a #ZotExtToolResult
 *
 * Gets the `content` blocks.
 *
 * Returns: (transfer none): the `content` blocks
 */
JsonArray *
zot_ext_tool_result_get_content (ZotExtToolResult *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_TOOL_RESULT (self), NULL);

  return self->content;
}
