#define G_LOG_DOMAIN "zot-observation"

#include "config.h"

#include <string.h>

#include "zot-json.h"
#include "zot-limits.h"
#include "zot-observation.h"

/* A UTF-8 character is at most 4 bytes: at most 3 continuation bytes
 * follow its first byte. */
#define UTF8_MAX_CONTINUATION 3

/* The longest prefix of @text no longer than @max bytes that ends on a
 * character boundary. @text is longer than @max. */
static gsize
utf8_cut (const char *text,
          gsize       max)
{
  gsize cut = max;

  /* text[cut] exists; while it continues a character, the character
   * started before the cut and must go. */
  for (guint i = 0; i < UTF8_MAX_CONTINUATION && cut > 0; i++)
    {
      if (((guchar) text[cut] & 0xC0) != 0x80)
        break;
      cut--;
    }
  return cut;
}

/* @text is copied whole unless @len cuts it. */
static void
add_text (JsonArray  *out,
          const char *text,
          gsize       len)
{
  JsonObject *block = json_object_new ();
  g_autofree char *prefix = NULL;

  if (text[len] != '\0')
    text = prefix = g_strndup (text, len);

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (out, block);
}

static void
add_image (JsonArray  *out,
           const char *mime_type,
           const char *data)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "image");
  json_object_set_string_member (block, "mime_type", mime_type);
  json_object_set_string_member (block, "data", data);
  json_array_add_object_element (out, block);
}

/**
 * zot_observation_limit:
 * @content: (nullable): text and image blocks (zot-message.h shape)
 * @truncated: (out) (optional): set to whether anything was cut or omitted
 *
 * Applies the observation limit described in zot-observation.h.
 *
 * Returns: (transfer full): a new array; @content is left untouched
 */
JsonArray *
zot_observation_limit (JsonArray *content,
                       gboolean  *truncated)
{
  JsonArray *out = json_array_new ();
  gsize left = ZOT_OBSERVATION_MAX_BYTES;
  gboolean cut = FALSE;
  guint kept = 0;
  guint n;

  n = content != NULL ? json_array_get_length (content) : 0;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block;
      const char *type;

      if (kept == ZOT_OBSERVATION_MAX_BLOCKS)
        {
          cut = TRUE;
          break;
        }

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          cut = TRUE;
          continue;
        }

      block = json_node_get_object (node);
      type = zot_json_get_string (block, "type");

      if (g_strcmp0 (type, "text") == 0)
        {
          const char *text = zot_json_get_string (block, "text");
          gsize len;

          if (text == NULL)
            {
              cut = TRUE;
              continue;
            }

          /* Bounded: a huge text is never scanned past the budget. */
          len = strnlen (text, left + 1);
          if (len <= left)
            {
              add_text (out, text, len);
              left -= len;
              kept++;
              continue;
            }

          len = utf8_cut (text, left);
          if (len > 0)
            add_text (out, text, len);
          cut = TRUE;
          break;
        }
      else if (g_strcmp0 (type, "image") == 0)
        {
          const char *mime_type = zot_json_get_string (block, "mime_type");
          const char *data = zot_json_get_string (block, "data");
          gsize mime_len;
          gsize data_len;

          if (mime_type == NULL || data == NULL)
            {
              cut = TRUE;
              continue;
            }

          mime_len = strnlen (mime_type, left + 1);
          data_len = mime_len <= left ? strnlen (data, left - mime_len + 1) : 0;
          if (mime_len > left || data_len > left - mime_len)
            {
              cut = TRUE;
              continue;
            }

          add_image (out, mime_type, data);
          left -= mime_len + data_len;
          kept++;
        }
      else
        {
          cut = TRUE;
        }
    }

  if (truncated != NULL)
    *truncated = cut;
  return out;
}

/**
 * zot_observation_result:
 * @content: (nullable): the tool's content blocks
 * @is_error: whether the result is an error
 *
 * Builds the `result` member of a tool_result event (PROTOCOL.md §6):
 * `{"content":[…limited…],"is_error":…}` plus `"truncated":true` only
 * when the limit cut or omitted something.
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
zot_observation_result (JsonArray *content,
                        gboolean   is_error)
{
  JsonObject *result = json_object_new ();
  gboolean truncated = FALSE;

  json_object_set_array_member (result, "content", zot_observation_limit (content, &truncated));
  json_object_set_boolean_member (result, "is_error", !!is_error);
  if (truncated)
    json_object_set_boolean_member (result, "truncated", TRUE);
  return result;
}
