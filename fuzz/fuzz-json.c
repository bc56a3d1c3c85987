/* fuzz-json.c — the nesting bound in front of json-glib.
 *
 * json-glib's parser recurses once per level, so zot_json_check_depth()
 * is what keeps a hostile line from overflowing the stack. The check here
 * is stronger than "does not crash": whenever the bound lets text through,
 * the parser must never go deeper than the bound. json-glib's own
 * object-start and array-start signals count how deep it went, on success
 * and on failure alike. A small bound keeps the inputs small.
 *
 * Input: one byte for the bound (1 to 32 levels), then the text.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "zot-fuzz-util.h"
#include "zot-json.h"

typedef struct
{
  guint depth;
  guint deepest;
} Depth;

static void
on_start (JsonParser *parser,
          Depth      *depth)
{
  depth->depth++;
  depth->deepest = MAX (depth->deepest, depth->depth);
}

static void
on_end (JsonParser *parser,
        gpointer    node,
        Depth      *depth)
{
  g_assert_cmpuint (depth->depth, >, 0);
  depth->depth--;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(JsonParser) bounded = NULL;
  g_autoptr(GError) error = NULL;
  const char *text;
  Depth depth = { 0 };
  guint max_depth;
  gsize length;

  if (size < 1)
    return 0;

  max_depth = 1 + data[0] % 32;
  text = (const char *) data + 1;
  length = size - 1;

  /* The host's own path, with the real bound. */
  bounded = json_parser_new ();
  if (!zot_json_parser_load (bounded, text, (gssize) length, &error))
    g_assert_nonnull (error);
  g_clear_error (&error);

  if (!zot_json_check_depth (text, length, max_depth, &error))
    {
      g_assert_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE);
      return 0;
    }
  g_assert_no_error (error);

  parser = json_parser_new ();
  g_signal_connect (parser, "object-start", G_CALLBACK (on_start), &depth);
  g_signal_connect (parser, "array-start", G_CALLBACK (on_start), &depth);
  g_signal_connect (parser, "object-end", G_CALLBACK (on_end), &depth);
  g_signal_connect (parser, "array-end", G_CALLBACK (on_end), &depth);
  (void) json_parser_load_from_data (parser, text, (gssize) length, NULL);

  if (depth.deepest > max_depth)
    {
      g_autofree char *copy = g_strndup (text, MIN (length, 300));
      g_autofree char *shown = g_strescape (copy, NULL);

      fprintf (stderr, "zot_json_check_depth() let through JSON %u levels deep with a bound of %u: \"%s\"\n",
               depth.deepest, max_depth, shown);
      abort ();
    }

  return 0;
}
