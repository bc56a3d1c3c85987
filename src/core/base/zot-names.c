/* zot-names.c — the rules for tool, command and extension names. */
#define G_LOG_DOMAIN "zot-names"

#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-names.h"

/**
 * zot_name_is_tool_name:
 *
 * `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`: what every provider here accepts as a
 * function name (Gemini's leading letter or underscore included). Tool
 * namespaces follow the same rule.
 */
gboolean
zot_name_is_tool_name (const char *name)
{
  gsize length;

  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;

  length = strlen (name);
  if (length > ZOT_TOOL_NAME_MAX_CHARS)
    return FALSE;

  for (gsize i = 1; i < length; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '_' && name[i] != '-')
      return FALSE;

  return TRUE;
}

/**
 * zot_text_has_hidden_chars:
 *
 * Whether @text (UTF-8) holds a character that is not shown as itself:
 * C0 and C1 controls, and format characters such as the bidirectional
 * overrides that make a name read differently from what it is.
 */
gboolean
zot_text_has_hidden_chars (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      GUnicodeType type = g_unichar_type (c);

      if (type == G_UNICODE_CONTROL || type == G_UNICODE_FORMAT ||
          type == G_UNICODE_LINE_SEPARATOR || type == G_UNICODE_PARAGRAPH_SEPARATOR)
        return TRUE;
    }

  return FALSE;
}

/* Printable UTF-8, nothing hidden, not an option; blanks only inside
 * when @spaces allows them. */
static gboolean
is_plain_name (const char *name,
               gsize       max_chars,
               gboolean    spaces)
{
  if (name == NULL || *name == '\0' || name[0] == '-')
    return FALSE;
  if (!g_utf8_validate (name, -1, NULL) || g_utf8_strlen (name, -1) > (glong) max_chars)
    return FALSE;
  if (zot_text_has_hidden_chars (name))
    return FALSE;

  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gboolean edge = p == name || *g_utf8_next_char (p) == '\0';

      if (g_unichar_isspace (g_utf8_get_char (p)) && (!spaces || edge))
        return FALSE;
    }

  return TRUE;
}

/**
 * zot_name_is_command_name:
 *
 * One printable word of at most %ZOT_COMMAND_NAME_MAX_CHARS characters,
 * not starting with `-`, without controls or bidirectional overrides: it
 * is typed after a slash and shown in lists and terminals.
 */
gboolean
zot_name_is_command_name (const char *name)
{
  return is_plain_name (name, ZOT_COMMAND_NAME_MAX_CHARS, FALSE);
}

/**
 * zot_name_is_extension_name:
 *
 * The name becomes a directory and a log file name and is typed in
 * `zot ext` commands: at most 128 characters, none hidden (controls,
 * bidirectional overrides), blanks only inside, not starting with `-`
 * (it would read as an option), without `/` or `\`, not `.` or `..`.
 */
gboolean
zot_name_is_extension_name (const char *name)
{
  if (!is_plain_name (name, ZOT_EXTENSION_NAME_MAX_CHARS, TRUE))
    return FALSE;
  if (g_str_equal (name, ".") || g_str_equal (name, ".."))
    return FALSE;

  return strchr (name, '/') == NULL && strchr (name, '\\') == NULL;
}

/**
 * zot_name_excerpt:
 *
 * A refused name as it may be shown in a log line or a list: escaped,
 * and cut to its first 64 characters.
 *
 * Returns: (transfer full): printable text
 */
char *
zot_name_excerpt (const char *name)
{
  g_autofree char *valid = g_utf8_make_valid (name, -1);
  g_autofree char *head = g_utf8_substring (valid, 0, MIN (g_utf8_strlen (valid, -1), 64));
  GString *shown = g_string_new (NULL);

  for (const char *p = head; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      GUnicodeType type = g_unichar_type (c);

      if (type == G_UNICODE_CONTROL || type == G_UNICODE_FORMAT ||
          type == G_UNICODE_LINE_SEPARATOR || type == G_UNICODE_PARAGRAPH_SEPARATOR)
        g_string_append_printf (shown, "\\u%04X", c);
      else
        g_string_append_unichar (shown, c);
    }
  if (g_utf8_strlen (valid, -1) > 64)
    g_string_append (shown, "…");

  return g_string_free (shown, FALSE);
}

/**
 * zot_name_is_existing_directory:
 *
 * Whether a name given to `zot ext remove`, `enable`, `disable` or `logs`
 * may be looked up as one directory of the extensions folder: it may name
 * an extension installed before its name was refused (one starting with
 * "-"), but never reach outside the folder or a hidden entry.
 */
gboolean
zot_name_is_existing_directory (const char *name)
{
  return name != NULL && *name != '\0' && *name != '.' &&
         strchr (name, '/') == NULL && g_utf8_validate (name, -1, NULL);
}

/* Bidirectional embeddings, overrides and isolates: they make text read
 * in another order than it runs. */
static gboolean
is_bidi_control (gunichar c)
{
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

/**
 * zot_text_for_terminal:
 * @text: what an extension, a model or a manifest said
 * @length: its length in bytes, or -1
 *
 * The text with everything a terminal would act on made visible: C0
 * controls other than newline and tab become caret notation (`^[` for
 * ESC, so no clipboard write, title change or screen clear gets through),
 * DEL `^?`, C1 controls and bidirectional overrides `<U+009B>`; a carriage
 * return before a newline is dropped, any other shows as `^M`. Invalid
 * UTF-8 becomes U+FFFD.
 *
 * Returns: (transfer full): text safe to print
 */
char *
zot_text_for_terminal (const char *text,
                       gssize      length)
{
  g_autofree char *valid = g_utf8_make_valid (text, length);
  GString *out = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '\n' || c == '\t')
        g_string_append_c (out, (char) c);
      else if (c == '\r' && p[1] == '\n')
        continue;
      else if (c < 0x20)
        {
          g_string_append_c (out, '^');
          g_string_append_c (out, (char) (c + 0x40));
        }
      else if (c == 0x7F)
        g_string_append (out, "^?");
      else if ((c >= 0x80 && c <= 0x9F) || is_bidi_control (c))
        g_string_append_printf (out, "<U+%04X>", c);
      else
        g_string_append_unichar (out, c);
    }

  return g_string_free (out, FALSE);
}

/**
 * zot_split_slash_command:
 * @name: (out): the command name without the slash
 * @args: (out): the rest, trimmed
 *
 * Returns: whether @text has the shape of a slash command ("/word …"); a
 *   first word holding another "/" is a path, not a command
 */
gboolean
zot_split_slash_command (const char  *text,
                         char       **name,
                         char       **args)
{
  const char *p = text;
  const char *end;

  *name = NULL;
  *args = NULL;

  while (g_ascii_isspace (*p))
    p++;
  if (*p != '/')
    return FALSE;
  p++;

  end = p;
  while (*end != '\0' && !g_ascii_isspace (*end))
    {
      if (*end == '/')
        return FALSE;
      end++;
    }
  if (end == p)
    return FALSE;

  *name = g_strndup (p, (gsize) (end - p));
  *args = g_strstrip (g_strdup (end));
  return TRUE;
}
