/* fuzz-markdown.c — a model's reply through the Markdown view's walk:
 * cmark's parse and the walk that decides the blocks, which is all of
 * ZotMarkdownView but the widgets (zot-markdown-private.h). No display.
 *
 * Besides not crashing, every block must be what a widget takes without
 * complaint: paragraph and heading markup that a GtkLabel parses (an
 * invalid one leaves the label empty, with a warning), valid UTF-8 text, language
 * words as the code block reads them, and containers no deeper than the
 * walk's bound.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pango/pango.h>

#include "zot-fuzz-util.h"
#include "zot-markdown-private.h"

/* The walk flattens past 12 open containers; an item is two of them. */
#define MAX_CONTAINER_DEPTH 24

typedef struct
{
  guint depth;
} Container;

/* @containers: a GPtrArray that owns what this returns */
static gpointer
add_container (gpointer  parent,
               gpointer  containers)
{
  Container *container = g_new0 (Container, 1);

  container->depth = ((Container *) parent)->depth + 1;
  g_assert_cmpuint (container->depth, <=, MAX_CONTAINER_DEPTH);
  g_ptr_array_add (containers, container);
  return container;
}

static gpointer
add_list (gpointer parent,
          gboolean tight,
          gpointer user_data)
{
  return add_container (parent, user_data);
}

static gpointer
add_item (gpointer    parent,
          const char *marker,
          gpointer    user_data)
{
  zot_fuzz_assert_utf8 ("a list marker", marker, -1);
  g_assert_cmpuint (strlen (marker), >, 0);
  return add_container (parent, user_data);
}

static gpointer
add_quote (gpointer parent,
           gpointer user_data)
{
  return add_container (parent, user_data);
}

/* GtkLabel takes links out of the markup itself, then hands the rest to
 * Pango: so does this, refusing what GtkLabel refuses (a link without an
 * href, other attributes, a link in a link). */
typedef struct
{
  GString *pango;
  guint    in_link;
} LinkPass;

static void
link_pass_start (GMarkupParseContext  *context,
                 const char           *element,
                 const char          **names,
                 const char          **values,
                 gpointer              user_data,
                 GError              **error)
{
  LinkPass *pass = user_data;

  if (g_str_equal (element, "markup"))
    return;

  if (g_str_equal (element, "a"))
    {
      gboolean has_href = FALSE;

      if (pass->in_link > 0)
        {
          g_set_error_literal (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "a link in a link");
          return;
        }
      for (guint i = 0; names[i] != NULL; i++)
        {
          if (g_str_equal (names[i], "href"))
            has_href = TRUE;
          else if (!g_str_equal (names[i], "title"))
            {
              g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_UNKNOWN_ATTRIBUTE,
                           "a link with \"%s\"", names[i]);
              return;
            }
        }
      if (!has_href)
        {
          g_set_error_literal (error, G_MARKUP_ERROR, G_MARKUP_ERROR_MISSING_ATTRIBUTE, "a link without href");
          return;
        }
      pass->in_link++;
      g_string_append (pass->pango, "<span>");
      return;
    }

  g_string_append_printf (pass->pango, "<%s", element);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *value = g_markup_escape_text (values[i], -1);

      g_string_append_printf (pass->pango, " %s=\"%s\"", names[i], value);
    }
  g_string_append_c (pass->pango, '>');
}

static void
link_pass_end (GMarkupParseContext  *context,
               const char           *element,
               gpointer              user_data,
               GError              **error)
{
  LinkPass *pass = user_data;

  if (g_str_equal (element, "markup"))
    return;

  if (g_str_equal (element, "a"))
    {
      pass->in_link--;
      g_string_append (pass->pango, "</span>");
      return;
    }

  g_string_append_printf (pass->pango, "</%s>", element);
}

static void
link_pass_text (GMarkupParseContext  *context,
                const char           *text,
                gsize                 length,
                gpointer              user_data,
                GError              **error)
{
  LinkPass *pass = user_data;
  g_autofree char *escaped = g_markup_escape_text (text, (gssize) length);

  g_string_append (pass->pango, escaped);
}

static const GMarkupParser link_pass_parser = {
  link_pass_start,
  link_pass_end,
  link_pass_text,
  NULL,
  NULL,
};

static void
check_label_markup (const char *markup)
{
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *wrapped = g_strconcat ("<markup>", markup, "</markup>", NULL);
  LinkPass pass = { g_string_new (NULL), 0 };
  g_autofree char *pango = NULL;

  context = g_markup_parse_context_new (&link_pass_parser, 0, &pass, NULL);
  if (g_markup_parse_context_parse (context, wrapped, -1, &error) &&
      g_markup_parse_context_end_parse (context, &error))
    {
      pango = g_string_free (g_steal_pointer (&pass.pango), FALSE);
      (void) pango_parse_markup (pango, -1, 0, NULL, NULL, NULL, &error);
    }
  if (pass.pango != NULL)
    g_string_free (pass.pango, TRUE);

  if (error != NULL)
    {
      g_autofree char *shown = g_strescape (markup, NULL);

      fprintf (stderr, "the walk made markup a GtkLabel refuses (%s): \"%.400s\"\n", error->message, shown);
      abort ();
    }
}

static void
add_text (gpointer    parent,
          const char *markup,
          int         heading_level,
          gpointer    user_data)
{
  g_assert_cmpint (heading_level, >=, 0);
  g_assert_cmpint (heading_level, <=, 6);
  zot_fuzz_assert_utf8 ("paragraph markup", markup, -1);
  check_label_markup (markup);
}

static void
add_text_view (gpointer    parent,
               const char *text,
               gboolean    monospace,
               gpointer    user_data)
{
  zot_fuzz_assert_utf8 ("text view text", text, -1);
}

static void
add_literal (gpointer    parent,
             const char *text,
             gpointer    user_data)
{
  zot_fuzz_assert_utf8 ("an HTML block", text, -1);
}

static void
add_code (gpointer    parent,
          const char *code,
          const char *shown,
          const char *language,
          gpointer    user_data)
{
  zot_fuzz_assert_utf8 ("code", code, -1);
  zot_fuzz_assert_utf8 ("shown code", shown, -1);
  /* Only line breaks are added to what is shown. */
  g_assert_cmpuint (strlen (shown), >=, strlen (code));

  if (language != NULL)
    {
      g_assert_cmpuint (strlen (language), >, 0);
      g_assert_cmpuint (strlen (language), <=, 64);
      for (const char *p = language; *p != '\0'; p++)
        g_assert_true (g_ascii_islower (*p) || g_ascii_isdigit (*p) || strchr ("+#._-", *p) != NULL);
    }
}

static void
add_separator (gpointer parent,
               gpointer user_data)
{
}

static gpointer
add_table (gpointer parent,
           int      n_columns,
           gpointer user_data)
{
  g_assert_cmpint (n_columns, >, 0);
  return add_container (parent, user_data);
}

static void
add_table_cell (gpointer    table,
                int         row,
                int         column,
                const char *markup,
                gboolean    header,
                gpointer    user_data)
{
  g_assert_cmpint (row, >=, 0);
  g_assert_cmpint (column, >=, 0);
  zot_fuzz_assert_utf8 ("table cell markup", markup, -1);
  check_label_markup (markup);
}

static const ZotMarkdownSink checking_sink = {
  .add_table = add_table,
  .add_table_cell = add_table_cell,
  .add_list = add_list,
  .add_item = add_item,
  .add_quote = add_quote,
  .add_text = add_text,
  .add_text_view = add_text_view,
  .add_literal = add_literal,
  .add_code = add_code,
  .add_separator = add_separator,
};

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autofree char *markdown = NULL;
  g_autoptr(GPtrArray) containers = g_ptr_array_new_with_free_func (g_free);
  Container root = { 0 };

  /* As zot_markdown_view_set_markdown() does. */
  markdown = g_utf8_make_valid (text, -1);
  _zot_markdown_walk (markdown, &checking_sink, &root, containers);

  return 0;
}
