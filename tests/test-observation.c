/* test-observation.c — the observation limit on tool results (PROTOCOL.md §6). */
#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-message.h"
#include "zot-observation.h"

#define BUDGET ZOT_OBSERVATION_MAX_BYTES

/* U+20AC EURO SIGN (3 bytes) and U+1F600 GRINNING FACE (4 bytes). */
#define EURO    "\xe2\x82\xac"
#define GRIN    "\xf0\x9f\x98\x80"

static char *
repeat (char  c,
        gsize n)
{
  char *text = g_malloc (n + 1);

  memset (text, c, n);
  text[n] = '\0';
  return text;
}

static void
add_image (JsonArray  *content,
           const char *mime_type,
           const char *data)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "image");
  json_object_set_string_member (block, "mime_type", mime_type);
  json_object_set_string_member (block, "data", data);
  json_array_add_object_element (content, block);
}

static char *
serialize (JsonArray *array)
{
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), array);

  return zot_json_to_string (node);
}

static JsonObject *
block_at (JsonArray *array,
          guint      index)
{
  return json_array_get_object_element (array, index);
}

static const char *
text_at (JsonArray *array,
         guint      index)
{
  JsonObject *block = block_at (array, index);

  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "text");
  return json_object_get_string_member (block, "text");
}

static void
test_small_unchanged (void)
{
  g_autoptr(JsonArray) content = zot_content_new_text ("hello");
  g_autoptr(JsonArray) limited = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gboolean truncated = TRUE;

  zot_content_add_text (content, "");
  add_image (content, "image/png", "iVBORw0KGgo=");
  limited = zot_observation_limit (content, &truncated);

  g_assert_false (truncated);
  before = serialize (content);
  after = serialize (limited);
  g_assert_cmpstr (before, ==, after);
  g_assert_true (limited != content);
}

static void
test_empty_and_null (void)
{
  g_autoptr(JsonArray) empty = json_array_new ();
  g_autoptr(JsonArray) limited = NULL;
  g_autoptr(JsonArray) from_null = NULL;
  gboolean truncated = TRUE;

  limited = zot_observation_limit (empty, &truncated);
  g_assert_false (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 0);

  truncated = TRUE;
  from_null = zot_observation_limit (NULL, &truncated);
  g_assert_false (truncated);
  g_assert_cmpuint (json_array_get_length (from_null), ==, 0);

  /* @truncated is optional. */
  g_clear_pointer (&limited, json_array_unref);
  limited = zot_observation_limit (empty, NULL);
  g_assert_cmpuint (json_array_get_length (limited), ==, 0);
}

static void
test_exact_budget (void)
{
  g_autofree char *text = repeat ('a', BUDGET);
  g_autofree char *half = repeat ('b', BUDGET / 2);
  g_autofree char *data = NULL;
  g_autoptr(JsonArray) content = zot_content_new_text (text);
  g_autoptr(JsonArray) mixed = zot_content_new_text (half);
  g_autoptr(JsonArray) limited = NULL;
  gboolean truncated = TRUE;

  limited = zot_observation_limit (content, &truncated);
  g_assert_false (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 1);
  g_assert_cmpuint (strlen (text_at (limited, 0)), ==, BUDGET);

  /* text + base64 data + mime type, exactly the budget. */
  data = repeat ('A', BUDGET - BUDGET / 2 - strlen ("image/png"));
  add_image (mixed, "image/png", data);
  g_clear_pointer (&limited, json_array_unref);
  truncated = TRUE;
  limited = zot_observation_limit (mixed, &truncated);
  g_assert_false (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 2);
}

static void
test_one_byte_over (void)
{
  g_autofree char *text = repeat ('a', BUDGET + 1);
  g_autoptr(JsonArray) content = zot_content_new_text (text);
  g_autoptr(JsonArray) limited = NULL;
  gboolean truncated = FALSE;

  limited = zot_observation_limit (content, &truncated);
  g_assert_true (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 1);
  g_assert_cmpuint (strlen (text_at (limited, 0)), ==, BUDGET);
  g_assert_true (strncmp (text_at (limited, 0), text, BUDGET) == 0);
}

static void
test_large_text (void)
{
  g_autofree char *text = repeat ('x', 300 * 1024);
  g_autoptr(JsonArray) content = zot_content_new_text (text);
  g_autoptr(JsonObject) result = NULL;
  JsonArray *limited;

  result = zot_observation_result (content, FALSE);
  g_assert_true (json_object_get_boolean_member (result, "truncated"));
  limited = json_object_get_array_member (result, "content");
  g_assert_cmpuint (json_array_get_length (limited), ==, 1);
  g_assert_cmpuint (strlen (text_at (limited, 0)), ==, BUDGET);
}

/* @prefix ASCII bytes, then @character repeated: the budget lands
 * @offset bytes into a character. */
static void
check_utf8_cut (const char *character,
                gsize       offset)
{
  gsize char_len = strlen (character);
  gsize prefix = BUDGET - offset;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(JsonArray) content = NULL;
  g_autoptr(JsonArray) limited = NULL;
  gboolean truncated = FALSE;
  const char *cut;

  for (gsize i = 0; i < prefix; i++)
    g_string_append_c (text, 'a');
  for (guint i = 0; i < 4; i++)
    g_string_append (text, character);
  g_assert_true (g_utf8_validate (text->str, -1, NULL));
  g_assert_cmpuint (offset, <, char_len);

  content = zot_content_new_text (text->str);
  limited = zot_observation_limit (content, &truncated);

  g_assert_true (truncated);
  cut = text_at (limited, 0);
  g_assert_true (g_utf8_validate (cut, -1, NULL));
  g_assert_cmpuint (strlen (cut), <=, BUDGET);
  /* Backed off to the start of the split character, no further. */
  g_assert_cmpuint (strlen (cut), ==, offset == 0 ? BUDGET : prefix);
}

static void
test_utf8_three_bytes (void)
{
  check_utf8_cut (EURO, 1);
  check_utf8_cut (EURO, 2);
  check_utf8_cut (EURO, 0);
}

static void
test_utf8_four_bytes (void)
{
  check_utf8_cut (GRIN, 1);
  check_utf8_cut (GRIN, 2);
  check_utf8_cut (GRIN, 3);
  check_utf8_cut (GRIN, 0);
}

static void
test_max_blocks (void)
{
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonArray) limited = NULL;
  gboolean truncated = FALSE;

  for (guint i = 0; i < ZOT_OBSERVATION_MAX_BLOCKS; i++)
    zot_content_add_text (content, "x");

  limited = zot_observation_limit (content, &truncated);
  g_assert_false (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, ZOT_OBSERVATION_MAX_BLOCKS);

  zot_content_add_text (content, "one too many");
  g_clear_pointer (&limited, json_array_unref);
  limited = zot_observation_limit (content, &truncated);
  g_assert_true (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, ZOT_OBSERVATION_MAX_BLOCKS);
  g_assert_cmpstr (text_at (limited, ZOT_OBSERVATION_MAX_BLOCKS - 1), ==, "x");
}

static void
test_image_fits (void)
{
  g_autofree char *data = repeat ('Q', 100 * 1024);
  g_autoptr(JsonArray) content = zot_content_new_text ("a picture:");
  g_autoptr(JsonArray) limited = NULL;
  gboolean truncated = TRUE;
  JsonObject *image;

  add_image (content, "image/jpeg", data);
  limited = zot_observation_limit (content, &truncated);

  g_assert_false (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 2);
  image = block_at (limited, 1);
  g_assert_cmpstr (json_object_get_string_member (image, "type"), ==, "image");
  g_assert_cmpstr (json_object_get_string_member (image, "mime_type"), ==, "image/jpeg");
  g_assert_cmpstr (json_object_get_string_member (image, "data"), ==, data);
}

/* The rule: an image that does not fit is omitted whole and later blocks
 * are still considered. */
static void
test_image_oversized (void)
{
  g_autofree char *big = repeat ('Q', BUDGET);
  g_autofree char *exact = repeat ('Q', BUDGET - strlen ("image/png"));
  g_autoptr(JsonArray) content = zot_content_new_text ("before");
  g_autoptr(JsonArray) limited = NULL;
  gboolean truncated = FALSE;

  /* Data alone is the budget: with the mime type it is over. */
  add_image (content, "image/png", big);
  zot_content_add_text (content, "after");
  add_image (content, "image/gif", "R0lGOD==");

  limited = zot_observation_limit (content, &truncated);
  g_assert_true (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 3);
  g_assert_cmpstr (text_at (limited, 0), ==, "before");
  g_assert_cmpstr (text_at (limited, 1), ==, "after");
  g_assert_cmpstr (json_object_get_string_member (block_at (limited, 2), "data"), ==, "R0lGOD==");

  /* data + mime type exactly the budget: kept, not cut. */
  g_clear_pointer (&content, json_array_unref);
  g_clear_pointer (&limited, json_array_unref);
  content = json_array_new ();
  add_image (content, "image/png", exact);
  limited = zot_observation_limit (content, &truncated);
  g_assert_false (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (block_at (limited, 0), "data"), ==, exact);
}

/* The other rule: a cut text fills the budget and ends the observation. */
static void
test_cut_text_ends (void)
{
  g_autofree char *text = repeat ('a', BUDGET + 10);
  g_autoptr(JsonArray) content = zot_content_new_text (text);
  g_autoptr(JsonArray) limited = NULL;
  gboolean truncated = FALSE;

  zot_content_add_text (content, "later");
  add_image (content, "image/png", "");

  limited = zot_observation_limit (content, &truncated);
  g_assert_true (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 1);
  g_assert_cmpuint (strlen (text_at (limited, 0)), ==, BUDGET);
}

static void
test_unknown_blocks (void)
{
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonArray) content = NULL;
  g_autoptr(JsonArray) limited = NULL;
  g_autoptr(GError) error = NULL;
  gboolean truncated = FALSE;

  result = zot_json_object_from_string (
    "{\"content\":["
      "{\"type\":\"text\",\"text\":\"one\"},"
      "{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"x\",\"input\":{}},"
      "\"a bare string\","
      "42,"
      "{\"text\":\"no type\"},"
      "{\"type\":7,\"text\":\"a number type\"},"
      "{\"type\":\"text\"},"
      "{\"type\":\"text\",\"text\":[\"not\",\"a string\"]},"
      "{\"type\":\"image\",\"data\":\"AAAA\"},"
      "{\"type\":\"image\",\"mime_type\":\"image/png\"},"
      "{\"type\":\"audio\",\"mime_type\":\"audio/wav\",\"data\":\"AAAA\"},"
      "{\"type\":\"text\",\"text\":\"two\",\"annotations\":{\"x\":1}}"
    "]}", &error);
  g_assert_no_error (error);
  content = json_array_ref (json_object_get_array_member (result, "content"));

  limited = zot_observation_limit (content, &truncated);
  g_assert_true (truncated);
  g_assert_cmpuint (json_array_get_length (limited), ==, 2);
  g_assert_cmpstr (text_at (limited, 0), ==, "one");
  g_assert_cmpstr (text_at (limited, 1), ==, "two");
  /* Only the members of the shape are copied. */
  g_assert_false (json_object_has_member (block_at (limited, 1), "annotations"));
}

static void
test_input_untouched (void)
{
  g_autofree char *text = repeat ('z', BUDGET + 100);
  g_autofree char *big = repeat ('Q', BUDGET + 1);
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonArray) limited = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gboolean truncated = FALSE;

  zot_content_add_text (content, "short");
  add_image (content, "image/png", big);
  json_array_add_string_element (content, "stray");
  zot_content_add_text (content, text);
  zot_content_add_text (content, "tail");
  before = serialize (content);

  limited = zot_observation_limit (content, &truncated);
  g_assert_true (truncated);
  after = serialize (content);
  g_assert_cmpstr (before, ==, after);

  /* Nothing shared: changing the copy leaves the original alone. */
  g_assert_true (block_at (limited, 0) != block_at (content, 0));
  json_object_set_string_member (block_at (limited, 0), "text", "changed");
  g_assert_cmpstr (text_at (content, 0), ==, "short");
  g_clear_pointer (&after, g_free);
  after = serialize (content);
  g_assert_cmpstr (before, ==, after);
}

static void
test_result_shape (void)
{
  g_autofree char *text = repeat ('a', BUDGET + 1);
  g_autoptr(JsonArray) small = zot_content_new_text ("ok");
  g_autoptr(JsonArray) large = zot_content_new_text (text);
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *json = NULL;

  result = zot_observation_result (small, FALSE);
  json = zot_json_object_to_string (result);
  g_assert_cmpstr (json, ==, "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"is_error\":false}");
  g_assert_false (json_object_has_member (result, "truncated"));

  g_clear_pointer (&result, json_object_unref);
  result = zot_observation_result (small, TRUE);
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  g_assert_false (json_object_has_member (result, "truncated"));

  g_clear_pointer (&result, json_object_unref);
  result = zot_observation_result (large, TRUE);
  g_assert_cmpuint (json_object_get_size (result), ==, 3);
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  g_assert_true (json_object_get_boolean_member (result, "truncated"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "content")), ==, 1);

  g_clear_pointer (&result, json_object_unref);
  result = zot_observation_result (NULL, FALSE);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "content")), ==, 0);
  g_assert_false (json_object_has_member (result, "truncated"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/observation/small-unchanged", test_small_unchanged);
  g_test_add_func ("/zot/observation/empty-and-null", test_empty_and_null);
  g_test_add_func ("/zot/observation/exact-budget", test_exact_budget);
  g_test_add_func ("/zot/observation/one-byte-over", test_one_byte_over);
  g_test_add_func ("/zot/observation/large-text", test_large_text);
  g_test_add_func ("/zot/observation/utf8-three-bytes", test_utf8_three_bytes);
  g_test_add_func ("/zot/observation/utf8-four-bytes", test_utf8_four_bytes);
  g_test_add_func ("/zot/observation/max-blocks", test_max_blocks);
  g_test_add_func ("/zot/observation/image-fits", test_image_fits);
  g_test_add_func ("/zot/observation/image-oversized", test_image_oversized);
  g_test_add_func ("/zot/observation/cut-text-ends", test_cut_text_ends);
  g_test_add_func ("/zot/observation/unknown-blocks", test_unknown_blocks);
  g_test_add_func ("/zot/observation/input-untouched", test_input_untouched);
  g_test_add_func ("/zot/observation/result-shape", test_result_shape);

  return g_test_run ();
}
