#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gio/gio.h>

#include "zot-json.h"
#include "zot-limits.h"
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

/**
 * zot_message_new_user:
 * @text: the message's text, "" for none
 * @images: (nullable): image blocks from zot_image_block_new(), after the text
 *
 * Returns: (transfer full): a user message
 */
JsonObject *
zot_message_new_user (const char *text,
                      JsonArray  *images)
{
  JsonObject *message;
  JsonArray *content;

  g_return_val_if_fail (text != NULL, NULL);

  if (images == NULL || json_array_get_length (images) == 0)
    return zot_message_new_user_text (text);

  content = json_array_new ();
  if (*text != '\0')
    zot_content_add_text (content, text);
  for (guint i = 0; i < json_array_get_length (images); i++)
    json_array_add_element (content, json_node_copy (json_array_get_element (images, i)));

  message = json_object_new ();
  json_object_set_string_member (message, "role", "user");
  json_object_set_array_member (message, "content", content);
  return message;
}

/**
 * zot_image_sniff_mime_type:
 * @head: the first bytes of a file
 *
 * Returns: (nullable): "image/png", "image/jpeg", "image/gif" or
 *   "image/webp" from the file's signature, or %NULL for anything else: the
 *   formats every provider takes
 */
const char *
zot_image_sniff_mime_type (const guint8 *head,
                           gsize         length)
{
  if (length >= 8 && memcmp (head, "\x89PNG\r\n\x1a\n", 8) == 0)
    return "image/png";
  if (length >= 3 && memcmp (head, "\xff\xd8\xff", 3) == 0)
    return "image/jpeg";
  if (length >= 6 && (memcmp (head, "GIF87a", 6) == 0 || memcmp (head, "GIF89a", 6) == 0))
    return "image/gif";
  if (length >= 12 && memcmp (head, "RIFF", 4) == 0 && memcmp (head + 8, "WEBP", 4) == 0)
    return "image/webp";
  return NULL;
}

/**
 * zot_image_check_size:
 * @size: an image file's size in bytes
 * @name: what to call it in the error
 *
 * Lets a caller refuse a file before reading it.
 *
 * Returns: whether @size is within %ZOT_READ_IMAGE_MAX_BYTES; if not,
 *   %G_IO_ERROR_MESSAGE_TOO_LARGE naming the file
 */
gboolean
zot_image_check_size (goffset      size,
                      const char  *name,
                      GError     **error)
{
  if (size <= (goffset) ZOT_READ_IMAGE_MAX_BYTES)
    return TRUE;

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
               /* Translators: the image's name, its size in mebibytes, then the largest size
                * allowed in mebibytes */
               _("%s is %.1f MiB; an image can be at most %zu MiB"), name,
               size / (1024.0 * 1024.0), ZOT_READ_IMAGE_MAX_BYTES / (1024 * 1024));
  return FALSE;
}

/**
 * zot_image_block_new:
 * @bytes: the image file's contents
 * @name: what to call it in an error: a file name
 *
 * An image content block, `{"type":"image","mime_type":…,"data":<base64>}`,
 * for a PNG, JPEG, GIF or WebP image of at most %ZOT_READ_IMAGE_MAX_BYTES
 * (the read tool's limit, which keeps a request within what providers take).
 *
 * Returns: (transfer full) (nullable): the block, or %NULL with
 *   %G_IO_ERROR_INVALID_DATA or %G_IO_ERROR_MESSAGE_TOO_LARGE
 */
JsonObject *
zot_image_block_new (GBytes      *bytes,
                     const char  *name,
                     GError     **error)
{
  gsize size = 0;
  const guint8 *data;
  const char *mime_type;
  g_autofree char *encoded = NULL;
  JsonObject *block;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  mime_type = zot_image_sniff_mime_type (data, size);
  if (mime_type == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is not a PNG, JPEG, GIF or WebP image"), name);
      return NULL;
    }

  if (!zot_image_check_size ((goffset) size, name, error))
    return NULL;

  encoded = g_base64_encode (data, size);
  block = json_object_new ();
  json_object_set_string_member (block, "type", "image");
  json_object_set_string_member (block, "mime_type", mime_type);
  json_object_set_string_member (block, "data", encoded);
  return block;
}

/**
 * zot_message_stamp_time:
 *
 * Gives @message a "time" member, now in RFC 3339 UTC, unless it has one:
 * when it entered the conversation.
 */
void
zot_message_stamp_time (JsonObject *message)
{
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *time = NULL;

  g_return_if_fail (message != NULL);

  if (json_object_has_member (message, "time"))
    return;

  now = g_date_time_new_now_utc ();
  time = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  json_object_set_string_member (message, "time", time);
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
  const char *role;

  g_return_val_if_fail (message != NULL, NULL);

  /* Messages come back from session files, where "role" may be anything. */
  role = zot_json_get_string (message, "role");
  return role != NULL ? role : "";
}

/* Whether @message is an assistant turn with a tool_use block: one that
 * a "tool" message must answer. */
gboolean
zot_message_calls_tools (JsonObject *message)
{
  JsonArray *content;

  g_return_val_if_fail (message != NULL, FALSE);

  if (g_strcmp0 (zot_message_get_role (message), "assistant") != 0)
    return FALSE;
  content = zot_json_get_array (message, "content");
  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *block = json_array_get_element (content, i);

      if (JSON_NODE_HOLDS_OBJECT (block) &&
          g_strcmp0 (zot_json_get_string (json_node_get_object (block), "type"), "tool_use") == 0)
        return TRUE;
    }
  return FALSE;
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

static JsonObject *
object_from_string (const char  *text,
                    guint        max_depth,
                    GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (!zot_json_parser_load_bounded (parser, text, -1, max_depth, error))
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

JsonObject *
zot_json_object_copy (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = zot_json_to_string (node);

  /* A deep copy: json_node_copy() shares nested containers. The object is
   * already in memory, however deep it is, so its copy is not bounded. */
  return object_from_string (text, G_MAXUINT, NULL);
}

/* For text from outside: nesting past %ZOT_JSON_MAX_DEPTH is an error. */
JsonObject *
zot_json_object_from_string (const char  *text,
                             GError     **error)
{
  return object_from_string (text, ZOT_JSON_MAX_DEPTH, error);
}
