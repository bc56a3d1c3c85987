/* The nesting bound in front of every parse of outside JSON. */
#include "config.h"

#include <string.h>

#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-test-util.h"

static gboolean
check (const char *text,
       guint       max_depth)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = zot_json_check_depth (text, strlen (text), max_depth, &error);

  if (ok)
    g_assert_no_error (error);
  else
    g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  return ok;
}

static void
test_depth_edge (void)
{
  g_autofree char *at_limit = zot_test_nested_json ("", ZOT_JSON_MAX_DEPTH, "");
  g_autofree char *past_limit = zot_test_nested_json ("", ZOT_JSON_MAX_DEPTH + 1, "");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (check (at_limit, ZOT_JSON_MAX_DEPTH));
  g_assert_false (check (past_limit, ZOT_JSON_MAX_DEPTH));

  g_assert_true (zot_json_parser_load (parser, at_limit, -1, &error));
  g_assert_no_error (error);
  g_assert_false (zot_json_parser_load (parser, past_limit, -1, &error));
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "nested deeper than 256 levels"));

  /* Objects count like arrays, and depth is the deepest point, not a sum. */
  g_assert_true (check ("{\"a\":{\"b\":1}}", 2));
  g_assert_false (check ("{\"a\":{\"b\":[1]}}", 2));
  g_assert_true (check ("[[1],[2],[3],[4],[5],[6]]", 2));
}

static void
test_strings_do_not_count (void)
{
  /* Brackets inside strings, escaped quotes, escaped backslashes. */
  g_assert_true (check ("{\"a\":\"[[[[[[[[[[[[[[[[\"}", 1));
  g_assert_true (check ("{\"a\":\"\\\"[[[[[[[[[[[[[[[[\"}", 1));
  g_assert_false (check ("{\"a\":\"\\\\\",\"b\":[[[[[[[1]]]]]]]}", 4));
  g_assert_true (check ("[\"\\\\\\\\\",\"\\\\\\\"]]]]]]]]]]]\"]", 1));
  /* An unterminated string ends the scan: the parser says what is wrong. */
  g_assert_true (check ("[\"[[[[[[[[[[[[[[[[[[[[", 1));
}

/* json-glib also reads single-quoted strings and /comments/, and a double
 * quote inside one must not hide the brackets after it: these lines got
 * past the bound and overflowed the stack. */
static void
test_quotes_in_comments_count (void)
{
  g_autofree char *deep = zot_test_nested_json ("{\"type\":\"x\",\"v\":['\"',", 80000, "]}");
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (check ("['\"',[[[1]]]]", 3));
  g_assert_false (check ("[/\"/[[[1]]]]", 3));
  g_assert_false (check ("[/*\"*/[[[1]]]]", 3));
  /* A comment ends at the next slash, star or not. (Found by
   * fuzz/fuzz-json.c.) */
  g_assert_false (check ("[[/*/[[", 3));

  /* What they hold does not count, as in strings. */
  g_assert_true (check ("['[[[[[[', 1]", 1));
  g_assert_true (check ("[/*[[[[[[*/ 1]", 1));
  g_assert_true (check ("[/[[[[[[/ 1]", 1));
  g_assert_true (check ("[\"'\", \"/\", \"/*\", [1]]", 2));

  object = zot_json_object_from_string (deep, &error);
  g_assert_null (object);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
}

static void
count_in (guint *depth)
{
  depth[0]++;
  depth[1] = MAX (depth[1], depth[0]);
}

static void
count_out (guint *depth)
{
  depth[0]--;
}

/* How deep json-glib itself goes into @text before it stops. */
static guint
json_glib_depth (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  guint depth[2] = { 0, 0 };

  g_signal_connect_swapped (parser, "array-start", G_CALLBACK (count_in), depth);
  g_signal_connect_swapped (parser, "object-start", G_CALLBACK (count_in), depth);
  g_signal_connect_swapped (parser, "array-end", G_CALLBACK (count_out), depth);
  g_signal_connect_swapped (parser, "object-end", G_CALLBACK (count_out), depth);
  (void) json_parser_load_from_data (parser, text, -1, NULL);
  return depth[1];
}

/* json-glib reads up to four characters after \u and keeps the first that
 * is not a hex digit, quote or not, and after a surrogate it takes two more
 * characters whatever they are: the string goes on past what looks like its
 * end, and what looks like a string after it holds brackets that nest. (The
 * first line was found by fuzz/fuzz-json.c.) */
static void
test_unicode_escapes_as_json_glib_reads_them (void)
{
  const struct { const char *text; guint depth; } deeper[] = {
    { "[\"[[[[[[\", \"\\]\", [[\"[\\[\\ud\"\\]\", [[\\{\"}] {\"", 5 },
    { "[[\"\\ud\"\\]\", [[1]]]", 4 },
    { "[\"\\u12\"\", [[[1]]]]", 4 },
    { "[\"\\ud800\"\", [[[1]]]]", 4 },
    { "[\"\\ud800\\udc0\"\", [[[1]]]]", 4 },
  };
  const char *shallow[] = {
    /* What json-glib keeps inside the string does not count. */
    "[\"a\\ud\"[[[1]]]\"]",
    "[\"\\ud8\"x[[[]]]\"]",
    "[\"\\ud800\\\"[[[1]]]\"]",
    "[\"\\u\", \"[[[[\"]",
    "[\"\\\\u12\", \"[[[[\"]",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (deeper); i++)
    {
      g_test_message ("%s", deeper[i].text);
      g_assert_cmpuint (json_glib_depth (deeper[i].text), ==, deeper[i].depth);
      g_assert_false (check (deeper[i].text, deeper[i].depth - 1));
    }

  for (gsize i = 0; i < G_N_ELEMENTS (shallow); i++)
    {
      g_test_message ("%s", shallow[i]);
      g_assert_cmpuint (json_glib_depth (shallow[i]), ==, 1);
      g_assert_true (check (shallow[i], 1));
    }
}

/* The line that used to overflow json-glib's stack: 80,000 levels in
 * 160 KB, far under the frame limit. */
static void
test_very_deep (void)
{
  g_autofree char *deep = zot_test_nested_json ("{\"type\":\"x\",\"v\":", 80000, "}");
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;

  object = zot_json_object_from_string (deep, &error);
  g_assert_null (object);
  g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
}

/* json-glib's message quotes the bad token decoded, and a lone surrogate
 * decodes to bytes that are not UTF-8; the message is shown and logged.
 * (Found by fuzz/fuzz-frame-channel.c, through a frame's bad-line.) */
static void
test_error_is_utf8 (void)
{
  static const char * const texts[] = {
    "{\"type\":\"panel_update\\ud800\",\"panel_id\":\"p\"}",
    "[\"\\udfff\\ud800x\"]",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      g_assert_false (zot_json_parser_load (parser, texts[i], -1, &error));
      g_assert_nonnull (error);
      g_assert_true (error->domain == JSON_PARSER_ERROR);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
}

static void
test_get_string (void)
{
  g_autoptr(JsonObject) object = zot_json_object_from_string (
    "{\"s\":\"yes\",\"n\":1,\"o\":{},\"a\":[\"x\"],\"z\":null}", NULL);

  g_assert_nonnull (object);
  g_assert_cmpstr (zot_json_get_string (object, "s"), ==, "yes");
  g_assert_null (zot_json_get_string (object, "n"));
  g_assert_null (zot_json_get_string (object, "o"));
  g_assert_null (zot_json_get_string (object, "a"));
  g_assert_null (zot_json_get_string (object, "z"));
  g_assert_null (zot_json_get_string (object, "missing"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/json/depth-edge", test_depth_edge);
  g_test_add_func ("/zot/json/strings-do-not-count", test_strings_do_not_count);
  g_test_add_func ("/zot/json/very-deep", test_very_deep);
  g_test_add_func ("/zot/json/unicode-escapes", test_unicode_escapes_as_json_glib_reads_them);
  g_test_add_func ("/zot/json/quotes-in-comments-count", test_quotes_in_comments_count);
  g_test_add_func ("/zot/json/error-is-utf8", test_error_is_utf8);
  g_test_add_func ("/zot/json/get-string", test_get_string);

  return g_test_run ();
}
