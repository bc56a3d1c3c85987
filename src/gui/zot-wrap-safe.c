/* zot-wrap-safe.c — degenerate clusters found and repaired.
 *
 * Pango 1.50.12 asserts in process_line() (pango-layout.c:4560) when it
 * wraps by word and character a paragraph holding a mark or a format
 * character that has no base: after white space, after a line break or at
 * the start ("Y\u063F \u032DR", "a\u06E7 \u200D\u06A1"). The grapheme
 * cluster and the line break rules then disagree on where such a
 * character may be split from what precedes it. A fuzzer of 50,000 mixed
 * scripts found no abort once each such character is given a base (a
 * mark) or left out (a format character), which is what this file does;
 * marks after letters, as in Arabic with harakat, Devanagari or accented
 * Latin, are never touched. GLib only: see zot-wrap-safe.h.
 */
#define G_LOG_DOMAIN "zot-wrap-safe"

#include "config.h"

#include <string.h>

#include "zot-wrap-safe.h"

/* The placeholder base that Unicode gives a mark shown alone. */
#define DOTTED_CIRCLE 0x25CC

typedef enum
{
  FIX_NONE,
  FIX_DROP,
  FIX_ADD_BASE,
} Fix;

/* @c: 0 for the start of the text */
static gboolean
is_line_start (gunichar c)
{
  return c == 0 || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
         c == 0x85 || c == 0x2028 || c == 0x2029;
}

/* The fuzzer saw space, tab, NBSP, U+2000 to U+200A and U+3000: every
 * space separator is taken, a superset of those. */
static gboolean
is_blank (gunichar c)
{
  return c == '\t' || g_unichar_type (c) == G_UNICODE_SPACE_SEPARATOR;
}

static Fix
fix_for (gunichar previous,
         gunichar c)
{
  if (!is_line_start (previous) && !is_blank (previous))
    return FIX_NONE;

  switch (g_unichar_type (c))
    {
    case G_UNICODE_FORMAT:
      return FIX_DROP;

    case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK:
    case G_UNICODE_SPACING_MARK:
      return FIX_ADD_BASE;

    default:
      return FIX_NONE;
    }
}

/**
 * zot_wrap_safe_text_after:
 * @previous: the character shown right before @text, or 0 when @text
 *   starts a paragraph
 * @text: (nullable): UTF-8 text; invalid sequences are repaired
 * @len: the length of @text in bytes, or -1 if it ends with a nul byte
 *
 * Gives each mark (Mn, Me, Mc) that follows white space or a line break,
 * or starts the text, U+25CC DOTTED CIRCLE as its base, and leaves out
 * each format character (Cf) found there. "Follows" looks past the
 * characters left out: every format character of a run after a space
 * goes.
 *
 * Returns: (transfer full): valid UTF-8 that PANGO_WRAP_WORD_CHAR can
 *   wrap; what is shown, never what is copied or sent
 */
char *
zot_wrap_safe_text_after (gunichar    previous,
                          const char *text,
                          gssize      len)
{
  g_autofree char *valid = NULL;
  GString *out;
  const char *end;

  if (text == NULL)
    return g_strdup ("");

  if (len < 0)
    len = (gssize) strlen (text);

  if (!g_utf8_validate_len (text, (gsize) len, NULL))
    {
      valid = g_utf8_make_valid (text, len);
      text = valid;
      len = (gssize) strlen (valid);
    }

  out = g_string_sized_new ((gsize) len + 1);
  end = text + len;

  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      Fix fix = fix_for (previous, c);

      if (fix == FIX_DROP)
        continue;
      if (fix == FIX_ADD_BASE)
        g_string_append_unichar (out, DOTTED_CIRCLE);

      g_string_append_len (out, p, g_utf8_next_char (p) - p);
      previous = c;
    }

  return g_string_free (out, FALSE);
}

/**
 * zot_wrap_safe_text:
 * @text: (nullable): UTF-8 text; invalid sequences are repaired
 * @len: the length of @text in bytes, or -1 if it ends with a nul byte
 *
 * zot_wrap_safe_text_after() for a whole text.
 *
 * Returns: (transfer full): valid UTF-8 that PANGO_WRAP_WORD_CHAR can wrap
 */
char *
zot_wrap_safe_text (const char *text,
                    gssize      len)
{
  return zot_wrap_safe_text_after (0, text, len);
}

/**
 * zot_wrap_safe_check_after:
 * @previous: the character shown right before @text, or 0 when @text
 *   starts a paragraph
 * @text: (nullable): UTF-8 text
 * @len: the length of @text in bytes, or -1 if it ends with a nul byte
 *
 * Whether zot_wrap_safe_text_after() would leave @text as it is: no mark
 * or format character without a base. Invalid UTF-8 is never safe.
 *
 * Returns: %TRUE if PANGO_WRAP_WORD_CHAR can wrap @text as it is
 */
gboolean
zot_wrap_safe_check_after (gunichar    previous,
                           const char *text,
                           gssize      len)
{
  const char *end;

  if (text == NULL)
    return TRUE;

  if (len < 0)
    len = (gssize) strlen (text);

  if (!g_utf8_validate_len (text, (gsize) len, NULL))
    return FALSE;

  end = text + len;
  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (fix_for (previous, c) != FIX_NONE)
        return FALSE;
      previous = c;
    }

  return TRUE;
}

/**
 * zot_wrap_safe_check:
 * @text: (nullable): UTF-8 text
 * @len: the length of @text in bytes, or -1 if it ends with a nul byte
 *
 * zot_wrap_safe_check_after() for a whole text.
 *
 * Returns: %TRUE if PANGO_WRAP_WORD_CHAR can wrap @text as it is
 */
gboolean
zot_wrap_safe_check (const char *text,
                     gssize      len)
{
  return zot_wrap_safe_check_after (0, text, len);
}
