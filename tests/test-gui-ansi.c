/* test-gui-ansi.c — SGR escapes to Pango attributes (zot-ansi.h): every
 * SGR code the panels use, the escapes that must vanish, byte offsets,
 * truncated and hostile input, invalid UTF-8. */
#include "config.h"

#include <string.h>

#include "zot-ansi.h"
#include "zot-gui-test-util.h"

#define DEFAULT_FG 0x241f31
#define DEFAULT_BG 0xf6f5f4

/* Finds an attribute of @type covering exactly [start, end). */
static PangoAttribute *
find_attr (PangoAttrList  *attrs,
           PangoAttrType   type,
           guint           start,
           guint           end)
{
  g_autoptr(GSList) list = pango_attr_list_get_attributes (attrs);
  PangoAttribute *found = NULL;

  for (GSList *l = list; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;

      if (found == NULL && attr->klass->type == type &&
          attr->start_index == start && attr->end_index == end)
        found = pango_attribute_copy (attr);
    }
  g_slist_free_full (g_steal_pointer (&list), (GDestroyNotify) pango_attribute_destroy);
  return found;
}

static guint
count_attrs (PangoAttrList *attrs)
{
  g_autoptr(GSList) list = pango_attr_list_get_attributes (attrs);
  guint n = g_slist_length (list);

  g_slist_free_full (g_steal_pointer (&list), (GDestroyNotify) pango_attribute_destroy);
  return n;
}

static guint32
color_of (PangoAttribute *attr)
{
  PangoColor *c = &((PangoAttrColor *) attr)->color;

  return ((guint32) (c->red >> 8) << 16) | ((guint32) (c->green >> 8) << 8) | (c->blue >> 8);
}

static void
assert_color (PangoAttrList *attrs,
              PangoAttrType  type,
              guint          start,
              guint          end,
              guint32        expected)
{
  PangoAttribute *attr = find_attr (attrs, type, start, end);

  g_assert_nonnull (attr);
  g_assert_cmphex (color_of (attr), ==, expected);
  pango_attribute_destroy (attr);
}

static void
assert_has (PangoAttrList *attrs,
            PangoAttrType  type,
            guint          start,
            guint          end)
{
  PangoAttribute *attr = find_attr (attrs, type, start, end);

  g_assert_nonnull (attr);
  pango_attribute_destroy (attr);
}

static void
assert_lacks (PangoAttrList *attrs,
              PangoAttrType  type,
              guint          start,
              guint          end)
{
  g_assert_null (find_attr (attrs, type, start, end));
}

/* Every attribute lies within the text, on character boundaries. */
static void
assert_sane (const char    *text,
             PangoAttrList *attrs)
{
  g_autoptr(GSList) list = pango_attr_list_get_attributes (attrs);
  gsize len = strlen (text);

  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_null (strchr (text, 0x1b));

  for (GSList *l = list; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;

      g_assert_cmpuint (attr->start_index, <, attr->end_index);
      g_assert_cmpuint (attr->end_index, <=, len);
      g_assert_true (attr->start_index == len || (text[attr->start_index] & 0xc0) != 0x80);
      g_assert_true (attr->end_index == len || (text[attr->end_index] & 0xc0) != 0x80);
    }
  g_slist_free_full (g_steal_pointer (&list), (GDestroyNotify) pango_attribute_destroy);
}

static char *
convert (const char     *line,
         PangoAttrList **attrs)
{
  char *text = zot_ansi_to_pango (line, attrs);

  assert_sane (text, *attrs);
  return text;
}

static void
test_plain (void)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = convert ("just text\twith a tab", &attrs);
  g_autofree char *empty = zot_ansi_to_pango (NULL, NULL);

  g_assert_cmpstr (text, ==, "just text\twith a tab");
  g_assert_cmpuint (count_attrs (attrs), ==, 0);
  g_assert_cmpstr (empty, ==, "");
}

static void
test_styles (void)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = convert ("\x1b[1mB\x1b[0m\x1b[2mD\x1b[0m\x1b[3mI\x1b[0m\x1b[4mU\x1b[0m"
                                   "\x1b[9mS\x1b[0mplain", &attrs);
  PangoAttribute *attr;

  g_assert_cmpstr (text, ==, "BDIUSplain");

  attr = find_attr (attrs, PANGO_ATTR_WEIGHT, 0, 1);
  g_assert_nonnull (attr);
  g_assert_cmpint (((PangoAttrInt *) attr)->value, ==, PANGO_WEIGHT_BOLD);
  pango_attribute_destroy (attr);

  assert_has (attrs, PANGO_ATTR_FOREGROUND_ALPHA, 1, 2);

  attr = find_attr (attrs, PANGO_ATTR_STYLE, 2, 3);
  g_assert_nonnull (attr);
  g_assert_cmpint (((PangoAttrInt *) attr)->value, ==, PANGO_STYLE_ITALIC);
  pango_attribute_destroy (attr);

  attr = find_attr (attrs, PANGO_ATTR_UNDERLINE, 3, 4);
  g_assert_nonnull (attr);
  g_assert_cmpint (((PangoAttrInt *) attr)->value, ==, PANGO_UNDERLINE_SINGLE);
  pango_attribute_destroy (attr);

  attr = find_attr (attrs, PANGO_ATTR_STRIKETHROUGH, 4, 5);
  g_assert_nonnull (attr);
  g_assert_true (((PangoAttrInt *) attr)->value);
  pango_attribute_destroy (attr);

  /* Nothing on "plain", and nothing else at all. */
  g_assert_cmpuint (count_attrs (attrs), ==, 5);
}

static void
test_resets (void)
{
  /* Each reset ends exactly its own attribute: "X" has all, then one
   * code at a time switches one off. */
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = convert ("\x1b[1;3;4;7;9;31;42mA"
                                   "\x1b[22mB\x1b[23mC\x1b[24mD\x1b[27mE"
                                   "\x1b[29mF\x1b[39mG\x1b[49mH",
                                   &attrs);

  g_assert_cmpstr (text, ==, "ABCDEFGH");

  /* A: everything; reverse swaps red and green. */
  assert_has (attrs, PANGO_ATTR_WEIGHT, 0, 1);
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 0, 1, 0x2ec27e);
  assert_color (attrs, PANGO_ATTR_BACKGROUND, 0, 1, 0xc01c28);
  /* B: no bold (22). */
  assert_lacks (attrs, PANGO_ATTR_WEIGHT, 1, 2);
  assert_has (attrs, PANGO_ATTR_STYLE, 1, 2);
  /* C: no italic (23). */
  assert_lacks (attrs, PANGO_ATTR_STYLE, 2, 3);
  assert_has (attrs, PANGO_ATTR_UNDERLINE, 2, 3);
  /* D: no underline (24), still reversed. */
  assert_lacks (attrs, PANGO_ATTR_UNDERLINE, 3, 4);
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 3, 4, 0x2ec27e);
  /* E: not reversed (27). */
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 4, 5, 0xc01c28);
  assert_color (attrs, PANGO_ATTR_BACKGROUND, 4, 5, 0x2ec27e);
  assert_has (attrs, PANGO_ATTR_STRIKETHROUGH, 4, 5);
  /* F: no strikethrough (29). */
  assert_lacks (attrs, PANGO_ATTR_STRIKETHROUGH, 5, 6);
  assert_has (attrs, PANGO_ATTR_FOREGROUND, 5, 6);
  /* G: default foreground (39), background still there. */
  assert_lacks (attrs, PANGO_ATTR_FOREGROUND, 6, 7);
  assert_color (attrs, PANGO_ATTR_BACKGROUND, 6, 7, 0x2ec27e);
  /* H: nothing left (49). */
  assert_lacks (attrs, PANGO_ATTR_BACKGROUND, 7, 8);
  g_assert_cmpuint (count_attrs (attrs), ==, 6 + 5 + 4 + 3 + 3 + 2 + 1);
}

static void
test_reset_forms (void)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autoptr(PangoAttrList) attrs2 = NULL;
  g_autoptr(PangoAttrList) attrs3 = NULL;
  g_autofree char *text = convert ("\x1b[1ma\x1b[mb", &attrs);
  g_autofree char *text2 = convert ("\x1b[1;2mab\x1b[22mc", &attrs2);
  g_autofree char *text3 = convert ("\x1b[1;mab", &attrs3);

  /* ESC [ m resets. */
  g_assert_cmpstr (text, ==, "ab");
  assert_has (attrs, PANGO_ATTR_WEIGHT, 0, 1);
  g_assert_cmpuint (count_attrs (attrs), ==, 1);

  /* 22 ends both bold and dim. */
  assert_has (attrs2, PANGO_ATTR_WEIGHT, 0, 2);
  assert_has (attrs2, PANGO_ATTR_FOREGROUND_ALPHA, 0, 2);
  g_assert_cmpuint (count_attrs (attrs2), ==, 2);

  /* An empty parameter is 0. */
  g_assert_cmpstr (text3, ==, "ab");
  g_assert_cmpuint (count_attrs (attrs3), ==, 0);
}

static void
test_reverse_defaults (void)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autoptr(PangoAttrList) themed = NULL;
  g_autofree char *text = convert ("\x1b[7mrev\x1b[27m", &attrs);
  g_autofree char *text2 = zot_ansi_to_pango_with_defaults ("\x1b[7mrev", 0xffffff, 0x000000,
                                                            &themed);

  g_assert_cmpstr (text, ==, "rev");
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 0, 3, DEFAULT_BG);
  assert_color (attrs, PANGO_ATTR_BACKGROUND, 0, 3, DEFAULT_FG);

  /* A dark theme passes its own colours. */
  assert_color (themed, PANGO_ATTR_FOREGROUND, 0, 3, 0x000000);
  assert_color (themed, PANGO_ATTR_BACKGROUND, 0, 3, 0xffffff);
}

static void
test_colors_16 (void)
{
  static const guint32 normal[8] = {
    0x241f31, 0xc01c28, 0x2ec27e, 0xf5c211, 0x1e78e4, 0x9841bb, 0x0ab9dc, 0xc0bfbc
  };
  static const guint32 bright[8] = {
    0x5e5c64, 0xed333b, 0x57e389, 0xf8e45c, 0x51a1ff, 0xc061cb, 0x4fd2fd, 0xf6f5f4
  };

  for (guint i = 0; i < 8; i++)
    {
      g_autoptr(PangoAttrList) attrs = NULL;
      g_autofree char *line = g_strdup_printf ("\x1b[%um1\x1b[%um2\x1b[0m\x1b[%um3\x1b[%um4",
                                               30 + i, 90 + i, 40 + i, 100 + i);
      g_autofree char *text = convert (line, &attrs);

      g_assert_cmpstr (text, ==, "1234");
      assert_color (attrs, PANGO_ATTR_FOREGROUND, 0, 1, normal[i]);
      assert_color (attrs, PANGO_ATTR_FOREGROUND, 1, 2, bright[i]);
      assert_color (attrs, PANGO_ATTR_BACKGROUND, 2, 3, normal[i]);
      assert_color (attrs, PANGO_ATTR_BACKGROUND, 3, 4, bright[i]);
    }
}

static void
test_colors_256 (void)
{
  static const struct { guint n; guint32 rgb; } cases[] = {
    { 0, 0x241f31 }, { 9, 0xed333b }, { 15, 0xf6f5f4 },
    { 16, 0x000000 }, { 21, 0x0000ff }, { 46, 0x00ff00 }, { 196, 0xff0000 },
    { 110, 0x87afd7 }, { 231, 0xffffff },
    { 232, 0x080808 }, { 244, 0x808080 }, { 255, 0xeeeeee },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PangoAttrList) attrs = NULL;
      g_autofree char *line = g_strdup_printf ("\x1b[38;5;%umf\x1b[0m"
                                               "\x1b[48;5;%umb\x1b[0m"
                                               "\x1b[38:5:%umc",
                                               cases[i].n, cases[i].n, cases[i].n);
      g_autofree char *text = convert (line, &attrs);

      g_assert_cmpstr (text, ==, "fbc");
      assert_color (attrs, PANGO_ATTR_FOREGROUND, 0, 1, cases[i].rgb);
      assert_color (attrs, PANGO_ATTR_BACKGROUND, 1, 2, cases[i].rgb);
      assert_color (attrs, PANGO_ATTR_FOREGROUND, 2, 3, cases[i].rgb);
      g_assert_cmpuint (count_attrs (attrs), ==, 3);
    }

  /* Out of range or incomplete: ignored, the text stays. */
  {
    g_autoptr(PangoAttrList) attrs = NULL;
    g_autofree char *text = convert ("\x1b[38;5;256mx\x1b[38;5my\x1b[48;5;300mz", &attrs);

    g_assert_cmpstr (text, ==, "xyz");
    g_assert_cmpuint (count_attrs (attrs), ==, 0);
  }
}

static void
test_true_color (void)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = convert ("\x1b[38;2;10;20;30ma\x1b[48;2;255;128;0mb\x1b[0m"
                                   "\x1b[38:2::1:2:3mc\x1b[38:2:4:5:6md\x1b[38;2;300;0;999me"
                                   "\x1b[0;38;2;1;2mf", &attrs);

  g_assert_cmpstr (text, ==, "abcdef");
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 0, 1, 0x0a141e);
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 1, 2, 0x0a141e);
  assert_color (attrs, PANGO_ATTR_BACKGROUND, 1, 2, 0xff8000);
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 2, 3, 0x010203);
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 3, 4, 0x040506);
  /* Clamped. */
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 4, 5, 0xff00ff);
  /* Too few components: ignored, after the reset that came before it. */
  assert_lacks (attrs, PANGO_ATTR_FOREGROUND, 5, 6);
}

static void
test_combined_and_offsets (void)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = convert ("é \x1b[1;31;44mñandú\x1b[0m 日本\x1b[4m語\x1b[24m!",
                                   &attrs);
  const char *bold_part = strstr (text, "ñandú");
  const char *underlined = strstr (text, "語");
  guint start = bold_part - text;
  guint ustart = underlined - text;

  g_assert_cmpstr (text, ==, "é ñandú 日本語!");
  assert_has (attrs, PANGO_ATTR_WEIGHT, start, start + strlen ("ñandú"));
  assert_color (attrs, PANGO_ATTR_FOREGROUND, start, start + strlen ("ñandú"), 0xc01c28);
  assert_color (attrs, PANGO_ATTR_BACKGROUND, start, start + strlen ("ñandú"), 0x1e78e4);
  assert_has (attrs, PANGO_ATTR_UNDERLINE, ustart, ustart + strlen ("語"));
  g_assert_cmpuint (count_attrs (attrs), ==, 4);
}

static void
test_other_escapes (void)
{
  static const struct { const char *in; const char *out; } cases[] = {
    { "\x1b[2J\x1b[Hhi\x1b[?25l", "hi" },                       /* other CSI */
    { "a\x1b[10;20Hb\x1b[K", "ab" },
    { "\x1b]0;window title\x07text", "text" },                   /* OSC, BEL */
    { "\x1b]8;;http://example.com\x1b\\link\x1b]8;;\x1b\\", "link" }, /* OSC, ST */
    { "\x1bP1$r\x1b\\dcs", "dcs" },                              /* DCS */
    { "\x1b(Bcharset", "charset" },                              /* ESC ( B */
    { "\x1b" "7saved\x1b" "8", "saved" },                        /* ESC 7 / ESC 8 */
    { "\x1b\x1b[1mx", "x" },                                     /* stray ESC */
    { "a\x1b[1\x01mb", "amb" },                                  /* broken CSI */
    { "bell\x07 and \rreturn", "bell and return" },              /* controls */
    { "c1\xc2\x9b" "31m", "c131m" },                             /* 8-bit CSI dropped */
    { "\x1b[>4;1mx\x1b[=5m", "x" },                              /* private SGR-like */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PangoAttrList) attrs = NULL;
      g_autofree char *text = convert (cases[i].in, &attrs);

      g_assert_cmpstr (text, ==, cases[i].out);
    }
}

static void
test_truncated (void)
{
  static const char *cases[] = {
    "abc\x1b", "abc\x1b[", "abc\x1b[3", "abc\x1b[38;5", "abc\x1b[38;2;1;2",
    "abc\x1b]0;title", "abc\x1b]0;title\x1b", "abc\x1bP", "abc\x1b(",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PangoAttrList) attrs = NULL;
      g_autofree char *text = convert (cases[i], &attrs);

      g_assert_cmpstr (text, ==, "abc");
      g_assert_cmpuint (count_attrs (attrs), ==, 0);
    }

  /* A style set before the cut still applies to the text before it. */
  {
    g_autoptr(PangoAttrList) attrs = NULL;
    g_autofree char *text = convert ("\x1b[1mbold\x1b[0", &attrs);

    g_assert_cmpstr (text, ==, "bold");
    assert_has (attrs, PANGO_ATTR_WEIGHT, 0, 4);
  }
}

static void
test_huge_parameters (void)
{
  g_autoptr(GString) line = g_string_new ("\x1b[");
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autoptr(PangoAttrList) attrs2 = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;

  /* 200000 parameters, with extended colours across every window edge. */
  for (guint i = 0; i < 20000; i++)
    g_string_append (line, "1;38;5;2;48;2;1;2;3;0;");
  g_string_append (line, "3;38;2;4;5;6mx\x1b[0my");

  text = convert (line->str, &attrs);
  g_assert_cmpstr (text, ==, "xy");
  /* Read to the end: only what followed the last reset counts. */
  assert_has (attrs, PANGO_ATTR_STYLE, 0, 1);
  assert_color (attrs, PANGO_ATTR_FOREGROUND, 0, 1, 0x040506);
  assert_lacks (attrs, PANGO_ATTR_WEIGHT, 0, 1);
  g_assert_cmpuint (count_attrs (attrs), ==, 2);

  /* Every window offset of a 38;2 code: the colour survives each one. */
  for (guint pad = 0; pad < 70; pad++)
    {
      g_autoptr(GString) padded = g_string_new ("\x1b[");
      g_autoptr(PangoAttrList) padded_attrs = NULL;
      g_autofree char *padded_text = NULL;

      for (guint i = 0; i < pad; i++)
        g_string_append (padded, "22;");
      g_string_append (padded, "38;2;7;8;9;1mp");
      padded_text = convert (padded->str, &padded_attrs);
      g_assert_cmpstr (padded_text, ==, "p");
      assert_color (padded_attrs, PANGO_ATTR_FOREGROUND, 0, 1, 0x070809);
      assert_has (padded_attrs, PANGO_ATTR_WEIGHT, 0, 1);
    }

  text2 = convert ("\x1b[999999999999999999999999999999;1mbig\x1b[38;5;99999999999mz", &attrs2);
  g_assert_cmpstr (text2, ==, "bigz");
  assert_has (attrs2, PANGO_ATTR_WEIGHT, 0, 4);
}

static void
test_invalid_utf8 (void)
{
  static const struct { const char *in; const char *out; } cases[] = {
    { "a\xff\xfe" "b", "a\xef\xbf\xbd\xef\xbf\xbd" "b" },
    { "end\xc3", "end\xef\xbf\xbd" },
    { "\xc0\xaf" "x", "\xef\xbf\xbd\xef\xbf\xbd" "x" },
    { "\xe2\x82" "\x1b[1mb", "\xef\xbf\xbd\xef\xbf\xbd" "b" },
    { "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },   /* a surrogate */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PangoAttrList) attrs = NULL;
      g_autofree char *text = convert (cases[i].in, &attrs);

      g_assert_cmpstr (text, ==, cases[i].out);
    }

  {
    g_autoptr(PangoAttrList) attrs = NULL;
    g_autofree char *text = convert ("\xff\x1b[1mb\xfe\x1b[0m", &attrs);

    g_assert_cmpstr (text, ==, "\xef\xbf\xbd" "b\xef\xbf\xbd");
    assert_has (attrs, PANGO_ATTR_WEIGHT, 3, 7);
  }
}

/* Random bytes, biased towards escapes: never an ESC out, always valid. */
static void
test_random (void)
{
  static const char alphabet[] =
    "\x1b\x1b\x1b[[[;;::0123456789mmmHJ]\x07\\Pab\xc3\xa9\xff\x80\x9b?";

  for (guint round = 0; round < 2000; round++)
    {
      guint len = g_test_rand_int_range (0, 80);
      g_autofree char *line = g_malloc (len + 1);
      g_autoptr(PangoAttrList) attrs = NULL;
      g_autofree char *text = NULL;

      for (guint i = 0; i < len; i++)
        line[i] = alphabet[g_test_rand_int_range (0, sizeof alphabet - 1)];
      line[len] = '\0';

      text = convert (line, &attrs);
      g_assert_cmpuint (strlen (text), <=, 3 * len);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();

  g_test_add_func ("/zot/gui-ansi/plain", test_plain);
  g_test_add_func ("/zot/gui-ansi/styles", test_styles);
  g_test_add_func ("/zot/gui-ansi/resets", test_resets);
  g_test_add_func ("/zot/gui-ansi/reset-forms", test_reset_forms);
  g_test_add_func ("/zot/gui-ansi/reverse-defaults", test_reverse_defaults);
  g_test_add_func ("/zot/gui-ansi/colors-16", test_colors_16);
  g_test_add_func ("/zot/gui-ansi/colors-256", test_colors_256);
  g_test_add_func ("/zot/gui-ansi/true-color", test_true_color);
  g_test_add_func ("/zot/gui-ansi/combined-and-offsets", test_combined_and_offsets);
  g_test_add_func ("/zot/gui-ansi/other-escapes", test_other_escapes);
  g_test_add_func ("/zot/gui-ansi/truncated", test_truncated);
  g_test_add_func ("/zot/gui-ansi/huge-parameters", test_huge_parameters);
  g_test_add_func ("/zot/gui-ansi/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/zot/gui-ansi/random", test_random);

  return g_test_run ();
}
