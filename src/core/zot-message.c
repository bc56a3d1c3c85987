#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-message.h"

void
zot_content_add_text (JsonArray  *content,
                      const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (content, block);
}

JsonArray *
zot_content_new_text (const char *text)
{
  JsonArray *content = json_array_new ();

  zot_content_add_text (content, text);
  return content;
}

static JsonObject *
new_text_message (const char *role,
                  const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", role);
  json_object_set_array_member (message, "content", zot_content_new_text (text));
  return message;
}

JsonObject *
zot_message_new_user_text (const char *text)
{
  g_return_val_if_fail (text != NULL, NULL);
  return new_text_message ("user", text);
}

JsonObject *
zot_message_new_assistant_text (const char *text)
{
  g_return_val_if_fail (text != NULL, NULL);
  return new_text_message ("assistant", text);
}

/**
 * zot_content_get_text:
 *
 * Returns: the text blocks of @content joined with newlines
 */
char *
zot_content_get_text (JsonArray *content)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      block = json_node_get_object (node);
      if (g_strcmp0 (json_object_get_string_member_with_default (block, "type", ""), "text") != 0)
        continue;
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, json_object_get_string_member_with_default (block, "text", ""));
    }

  return g_string_free (text, FALSE);
}

char *
zot_message_get_text (JsonObject *message)
{
  g_return_val_if_fail (message != NULL, NULL);

  if (!json_object_has_member (message, "content") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (message, "content")))
    return g_strdup ("");

  return zot_content_get_text (json_object_get_array_member (message, "content"));
}

const char *
zot_message_get_role (JsonObject *message)
{
  g_return_val_if_fail (message != NULL, NULL);
  return json_object_get_string_member_with_default (message, "role", "");
}

char *
zot_json_to_string (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

char *
zot_json_object_to_string (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  return zot_json_to_string (node);
}

/* Token estimates count serialized bytes (PROTOCOL.md §6: bytes / 4). */
gsize
zot_message_estimate_bytes (JsonObject *message)
{
  g_autofree char *text = zot_json_object_to_string (message);

  return strlen (text);
}

JsonObject *
zot_json_object_copy (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = zot_json_to_string (node);

  /* A deep copy: json_node_copy() shares nested containers. */
  return zot_json_object_from_string (text, NULL);
}

JsonObject *
zot_json_object_from_string (const char  *text,
                             GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (!json_parser_load_from_data (parser, text, -1, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           _("expected a JSON object"));
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}
