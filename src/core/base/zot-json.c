/* zot-json.c — a nesting bound in front of json-glib's parser. */
#define G_LOG_DOMAIN "zot-json"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-json.h"
#include "zot-limits.h"

/* json-glib 1.6 reads the digits of a \u escape one character at a time,
 * up to four, and takes the first one that is not a hex digit with it:
 * "\ud" followed by a quote swallows the quote, and the string goes on.
 * Returns the code unit read, its missing digits as zeroes. */
static guint
read_code_unit (const char **pp,
                const char  *end)
{
  const char *p = *pp;
  guint unit = 0;
  guint i;

  for (i = 0; i < 4 && p < end; i++)
    {
      char c = *p++;

      if (!g_ascii_isxdigit (c))
        break;
      unit |= (guint) g_ascii_xdigit_value (c) << ((3 - i) * 4);
    }

  *pp = p;
  return unit;
}

/* Returns the byte after the string that starts after @p (just past its
 * opening quote), or NULL when json-glib finds no end to it. The scan
 * follows json-glib's reading of escapes rather than JSON's grammar, since
 * what counts is where json-glib sees the string end: a bracket it reads
 * outside a string nests, whatever the standard says. */
static const char *
skip_string (const char *p,
             const char *end)
{
  /* Where the next quote is, or @end; kept across escapes, so that a long
   * string full of them costs one pass rather than one per escape. */
  const char *stop = NULL;

  while (p < end)
    {
      const char *backslash;
      const char *nul;
      char c;

      if (stop == NULL || stop < p)
        {
          stop = memchr (p, '"', (gsize) (end - p));
          if (stop == NULL)
            stop = end;
        }

      /* Long strings (base64 images, file contents) are mostly runs with
       * nothing to read in them. */
      backslash = memchr (p, '\\', (gsize) (stop - p));
      nul = memchr (p, '\0', (gsize) ((backslash != NULL ? backslash : stop) - p));
      if (nul == NULL && backslash == NULL)
        return stop < end ? stop + 1 : NULL;
      p = nul != NULL ? nul : backslash;

      c = *p++;
      /* An unescaped NUL reads as the end of the input. */
      if (c == '\0')
        return NULL;
      if (c != '\\' || p == end)
        continue;

      c = *p++;
      if (c != 'u' || p == end || !g_ascii_isxdigit (*p))
        continue;

      /* A surrogate is followed by whatever two characters come next, and
       * by a second code unit's digits if those two were a \u. */
      if ((read_code_unit (&p, end) & 0xf800) != 0xd800 || p == end)
        continue;
      if (*p++ == '\\' && p < end && *p++ == 'u')
        (void) read_code_unit (&p, end);
    }

  return NULL;
}

/**
 * zot_json_check_depth:
 * @data: JSON text, not necessarily valid
 * @length: its length in bytes
 * @max_depth: the deepest nesting of objects and arrays allowed
 *
 * Counts brackets outside strings, and outside what json-glib reads as
 * strings or comments beyond JSON (see below). Malformed text that stays within the
 * bound passes: the parser reports what is wrong with it.
 *
 * Returns: %FALSE with a %JSON_PARSER_ERROR when @data nests deeper
 */
gboolean
zot_json_check_depth (const char  *data,
                      gsize        length,
                      guint        max_depth,
                      GError     **error)
{
  const char *p = data;
  const char *end = data + length;
  guint depth = 0;

  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  /* Every level takes at least one byte. */
  if (length <= max_depth)
    return TRUE;

  while (p < end)
    {
      switch (*p++)
        {
        case '"':
          p = skip_string (p, end);
          if (p == NULL)
            return TRUE;
          break;

        /* json-glib's scanner also takes single-quoted strings (without
         * escapes) and comments, which run from a slash to the next slash
         * (so slash-star-slash is a whole one). A double quote in them
         * opens no string, so they are skipped as json-glib skips them;
         * otherwise a quote in a comment would hide every bracket after it
         * from the count. */
        case '\'':
        case '/':
          p = memchr (p, p[-1], (gsize) (end - p));
          if (p == NULL)
            return TRUE;
          p++;
          break;

        case '{':
        case '[':
          if (++depth > max_depth)
            {
              g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                           _("JSON nested deeper than %u levels"), max_depth);
              return FALSE;
            }
          break;

        case '}':
        case ']':
          if (depth > 0)
            depth--;
          break;

        default:
          break;
        }
    }

  return TRUE;
}

/**
 * zot_json_parser_load_bounded:
 * @length: the length of @data, or -1 when it is nul-terminated
 *
 * json_parser_load_from_data() behind zot_json_check_depth().
 */
gboolean
zot_json_parser_load_bounded (JsonParser  *parser,
                              const char  *data,
                              gssize       length,
                              guint        max_depth,
                              GError     **error)
{
  gsize size;

  g_return_val_if_fail (JSON_IS_PARSER (parser), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  size = length < 0 ? strlen (data) : (gsize) length;
  if (!zot_json_check_depth (data, size, max_depth, error))
    return FALSE;

  if (!json_parser_load_from_data (parser, data, (gssize) size, error))
    {
      /* json-glib quotes the token it choked on as it decoded it, and a
       * lone surrogate escape ("\ud800") decodes to bytes that are not
       * UTF-8; the message goes on to labels, logs and JSON events. */
      if (error != NULL && *error != NULL && !g_utf8_validate ((*error)->message, -1, NULL))
        {
          char *valid = g_utf8_make_valid ((*error)->message, -1);

          g_free ((*error)->message);
          (*error)->message = valid;
        }
      return FALSE;
    }

  return TRUE;
}

/**
 * zot_json_parser_load:
 *
 * zot_json_parser_load_bounded() with %ZOT_JSON_MAX_DEPTH: for every line,
 * body and file that comes from outside the host.
 */
gboolean
zot_json_parser_load (JsonParser  *parser,
                      const char  *data,
                      gssize       length,
                      GError     **error)
{
  return zot_json_parser_load_bounded (parser, data, length, ZOT_JSON_MAX_DEPTH, error);
}

/**
 * zot_json_get_object:
 * @object: (nullable): where to look
 *
 * Returns: (transfer none) (nullable): @member when it holds an object
 */
JsonObject *
zot_json_get_object (JsonObject *object,
                     const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/**
 * zot_json_get_array:
 * @object: (nullable): where to look
 *
 * Returns: (transfer none) (nullable): @member when it holds an array
 */
JsonArray *
zot_json_get_array (JsonObject *object,
                    const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/**
 * zot_json_get_string:
 * @object: (nullable): where to look
 *
 * Returns: (transfer none) (nullable): @member when it holds a string
 */
const char *
zot_json_get_string (JsonObject *object,
                     const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/**
 * zot_json_get_string_or:
 *
 * Returns: (transfer none) (nullable): @member when it holds a string,
 *   else @fallback (json-glib's _with_default logs a critical for a member
 *   that is an object or an array)
 */
const char *
zot_json_get_string_or (JsonObject *object,
                        const char *member,
                        const char *fallback)
{
  const char *value = zot_json_get_string (object, member);

  return value != NULL ? value : fallback;
}

/**
 * zot_json_get_boolean_or:
 *
 * Returns: @member when it holds a boolean, else @fallback
 */
gboolean
zot_json_get_boolean_or (JsonObject *object,
                         const char *member,
                         gboolean    fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fallback;
  return json_node_get_boolean (node);
}

/**
 * zot_json_get_int_or:
 *
 * Returns: @member when it holds a number (a double is truncated), else
 *   @fallback
 */
gint64
zot_json_get_int_or (JsonObject *object,
                     const char *member,
                     gint64      fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (node);
  return fallback;
}

/**
 * zot_json_array_get_object:
 * @array: where to look
 * @index: an index below the length of @array
 *
 * Returns: (transfer none) (nullable): element @index when it is an object
 */
JsonObject *
zot_json_array_get_object (JsonArray *array,
                           guint      index)
{
  JsonNode *node = json_array_get_element (array, index);

  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}
