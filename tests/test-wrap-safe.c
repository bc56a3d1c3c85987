/* test-wrap-safe.c — zot_wrap_safe_text() and zot_wrap_safe_check(): a mark
 * without a base gets U+25CC, a format character without one goes, at the
 * start, after white space and after a line break; text written as it
 * should be is left alone; the result is valid UTF-8, safe, and the same
 * when repaired again. No display: the functions are GLib only. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "zot-wrap-safe.h"

static void
assert_repaired (const char *text,
                 const char *expected)
{
  g_autofree char *repaired = zot_wrap_safe_text (text, -1);

  g_assert_cmpstr (repaired, ==, expected);
  g_assert_true (zot_wrap_safe_check (repaired, -1));
  g_assert_true (zot_wrap_safe_check (text, -1) == g_str_equal (text, expected));
}

static void
test_reproducers (void)
{
  /* The two texts that made Pango 1.50.12 abort a window. */
  assert_repaired ("Y\u063F \u032DR", "Y\u063F \u25CC\u032DR");
  assert_repaired ("a\u06E7 \u200D\u06A1", "a\u06E7 \u06A1");
  g_assert_false (zot_wrap_safe_check ("Y\u063F \u032DR", -1));
  g_assert_false (zot_wrap_safe_check ("a\u06E7 \u200D\u06A1", -1));
}

static void
test_where (void)
{
  /* At the start. */
  assert_repaired ("\u0301a", "\u25CC\u0301a");
  assert_repaired ("\u200Da", "a");
  assert_repaired ("\u20DD", "\u25CC\u20DD");            /* Me */
  assert_repaired ("\u093Eक", "\u25CC\u093Eक");            /* Mc */
  /* After a line break. */
  assert_repaired ("a\n\u0301b", "a\n\u25CC\u0301b");
  assert_repaired ("a\n\u200Bb", "a\nb");
  assert_repaired ("a\r\n\u0301", "a\r\n\u25CC\u0301");
  assert_repaired ("a\u2029\u0301", "a\u2029\u25CC\u0301");
  /* After white space of every kind the fuzzer used. */
  assert_repaired ("a\t\u0301", "a\t\u25CC\u0301");
  assert_repaired ("a\u00A0\u0301", "a\u00A0\u25CC\u0301");
  assert_repaired ("a\u3000\u0301", "a\u3000\u25CC\u0301");
  assert_repaired ("a\u2000\u0301 b\u200A\u00AD", "a\u2000\u25CC\u0301 b\u200A");
  assert_repaired ("a \u202Eb", "a b");
  assert_repaired ("a \uFEFF", "a ");
  /* Only the first of several marks needs the base. */
  assert_repaired (" \u0301\u0302\u0303", " \u25CC\u0301\u0302\u0303");
}

static void
test_runs_of_format (void)
{
  /* "After" looks past what was left out. */
  assert_repaired ("a \u200D\u200C\u2060b", "a b");
  assert_repaired (" \u200D\u0301", " \u25CC\u0301");
  assert_repaired ("\u200B\u200D\u00AD\u0301x", "\u25CC\u0301x");
  assert_repaired ("\u200D\u200D", "");
}

static void
test_untouched (void)
{
  static const char * const texts[] = {
    "",
    "plain ASCII, with spaces\tand\nlines\n",
    "e\u0301te\u0301 n\u0303",                                   /* accents after letters */
    "\u0645\u064E\u0631\u0652\u062D\u064E\u0628\u064B\u0627",    /* Arabic with harakat */
    "\u0928\u092E\u0938\u094D\u0924\u0947 \u0926\u0941\u0928\u093F\u092F\u093E", /* Devanagari */
    "\u0E2A\u0E27\u0E31\u0E2A\u0E14\u0E35",                       /* Thai */
    "\U0001F469\u200D\U0001F4BB \U0001F44D\U0001F3FD",            /* ZWJ between emoji */
    "a\u200Db\u00ADc\u200Bd",                                     /* format characters in words */
    "x\u0301 \u05E9\u05C1\u05DC\u05D5\u05B9\u05DD",              /* Hebrew points */
    "\u4E2D\u6587 \u65E5\u672C\u8A9E",
    "\u25CC\u0301",                                              /* already repaired */
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    assert_repaired (texts[i], texts[i]);
}

static void
test_after (void)
{
  g_autofree char *after_letter = zot_wrap_safe_text_after ('e', "\u0301\u200D", -1);
  g_autofree char *after_space = zot_wrap_safe_text_after (' ', "\u200D\u0301", -1);
  g_autofree char *at_start = zot_wrap_safe_text_after (0, "\u0301", -1);

  g_assert_cmpstr (after_letter, ==, "\u0301\u200D");
  g_assert_cmpstr (after_space, ==, "\u25CC\u0301");
  g_assert_cmpstr (at_start, ==, "\u25CC\u0301");
  g_assert_true (zot_wrap_safe_check_after ('e', "\u0301", -1));
  g_assert_false (zot_wrap_safe_check_after (' ', "\u0301", -1));
  g_assert_false (zot_wrap_safe_check_after ('\n', "\u200D", -1));
  g_assert_false (zot_wrap_safe_check_after (0, "\u200D", -1));
  g_assert_true (zot_wrap_safe_check_after (' ', "", 0));
}

static void
test_lengths_and_invalid (void)
{
  g_autofree char *cut = zot_wrap_safe_text ("ab \u0301cd", 3);
  g_autofree char *bad = zot_wrap_safe_text ("a \xff\xcc\x81 \xcc\x81\xc3", -1);
  g_autofree char *nul = zot_wrap_safe_text ("a\0\xcc\x81", 4);
  g_autofree char *none = zot_wrap_safe_text (NULL, -1);

  g_assert_cmpstr (cut, ==, "ab ");
  /* Repaired first: the U+FFFD that replaces 0xff is a base. */
  g_assert_true (g_utf8_validate (bad, -1, NULL));
  g_assert_cmpstr (bad, ==, "a \uFFFD\u0301 \u25CC\u0301\uFFFD");
  g_assert_true (g_utf8_validate (nul, -1, NULL));
  g_assert_true (zot_wrap_safe_check (nul, -1));
  g_assert_cmpstr (none, ==, "");

  g_assert_false (zot_wrap_safe_check ("a\xff", -1));
  g_assert_false (zot_wrap_safe_check ("a\xcc", -1));
  g_assert_true (zot_wrap_safe_check ("ab \u0301", 3));
  g_assert_false (zot_wrap_safe_check ("ab \u0301", 5));
  g_assert_true (zot_wrap_safe_check (NULL, -1));
}

/* What the fuzzer that found the bug mixed. */
static const gunichar pool[] = {
  'a', 'Z', '0', '.', ' ', ' ', '\t', '\n', 0xA0, 0x3000, 0x2000, 0x2003, 0x200A,
  0x0627, 0x0644, 0x063F, 0x06A1, 0x064E, 0x0652, 0x06E7,       /* Arabic, harakat */
  0x05E9, 0x05C1, 0x05B9,                                       /* Hebrew, points */
  0x4E2D, 0x6587, 0x0E2A, 0x0E31, 0x0928, 0x094D, 0x093E,       /* CJK, Thai, Devanagari */
  0x1F469, 0x1F4BB, 0x1F3FD,                                    /* emoji */
  0x0300, 0x0301, 0x032D, 0x0345, 0x036F, 0x20DD,               /* marks */
  0x200B, 0x200C, 0x200D, 0x00AD, 0x200E, 0x202B, 0x2067, 0xFEFF, /* format */
};

static char *
random_text (GRand *rand)
{
  GString *text = g_string_new (NULL);
  int len = g_rand_int_range (rand, 0, 40);

  for (int i = 0; i < len; i++)
    {
      /* Now and then a byte that is not UTF-8. */
      if (g_rand_int_range (rand, 0, 50) == 0)
        g_string_append_c (text, (char) g_rand_int_range (rand, 0x80, 0x100));
      else
        g_string_append_unichar (text, pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool))]);
    }

  return g_string_free (text, FALSE);
}

static gunichar
last_char (const char *text)
{
  gsize len = strlen (text);

  return len > 0 ? g_utf8_get_char (g_utf8_find_prev_char (text, text + len)) : 0;
}

static void
test_fuzz (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (g_test_rand_int ());

  for (guint i = 0; i < 20000; i++)
    {
      g_autofree char *text = random_text (rand);
      g_autofree char *more = random_text (rand);
      g_autofree char *repaired = zot_wrap_safe_text (text, -1);
      g_autofree char *again = zot_wrap_safe_text (repaired, -1);
      g_autofree char *both = g_strconcat (text, more, NULL);
      g_autofree char *both_repaired = NULL;
      g_autofree char *more_repaired = NULL;
      g_autofree char *pieces = NULL;

      g_assert_true (g_utf8_validate (repaired, -1, NULL));
      g_assert_true (zot_wrap_safe_check (repaired, -1));
      g_assert_cmpstr (again, ==, repaired);
      if (g_utf8_validate (text, -1, NULL))
        g_assert_true (zot_wrap_safe_check (text, -1) == g_str_equal (text, repaired));
      else
        g_assert_false (zot_wrap_safe_check (text, -1));

      /* Piece by piece, each after the last character shown before it, as
       * the Markdown walk and the stream do, is the same as whole. */
      if (g_utf8_validate (text, -1, NULL) && g_utf8_validate (more, -1, NULL))
        {
          both_repaired = zot_wrap_safe_text (both, -1);
          more_repaired = zot_wrap_safe_text_after (last_char (repaired), more, -1);
          pieces = g_strconcat (repaired, more_repaired, NULL);
          g_assert_cmpstr (pieces, ==, both_repaired);
          g_assert_true (zot_wrap_safe_check (both, -1) ==
                         (zot_wrap_safe_check (text, -1) &&
                          zot_wrap_safe_check_after (last_char (text), more, -1)));
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/wrap-safe/reproducers", test_reproducers);
  g_test_add_func ("/zot/wrap-safe/where", test_where);
  g_test_add_func ("/zot/wrap-safe/runs-of-format", test_runs_of_format);
  g_test_add_func ("/zot/wrap-safe/untouched", test_untouched);
  g_test_add_func ("/zot/wrap-safe/after", test_after);
  g_test_add_func ("/zot/wrap-safe/lengths-and-invalid", test_lengths_and_invalid);
  g_test_add_func ("/zot/wrap-safe/fuzz", test_fuzz);

  return g_test_run ();
}
