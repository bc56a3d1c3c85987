/* zot-markdown-private.h — the Markdown view's tree walk, without widgets.
 *
 * _zot_markdown_walk() parses with cmark-gfm (or cmark) and decides every block: which
 * containers to open (flattened past a depth), the escaped Pango markup
 * of each paragraph and heading, where text is too long for a label, what
 * is left as plain text once the block budget runs out. A sink turns the
 * blocks into something: ZotMarkdownView into widgets, the fuzzer into
 * checks. Nothing here needs a display. The transcript shares the line
 * breaking of long text.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ZotMarkdownSink:
 * @add_list: appends a list to @parent; returns the list, for its items
 * @add_item: appends an item with @marker ("•", "3.") to a list; returns
 *   the item's content, for its blocks
 * @add_quote: appends a block quote; returns it, for its blocks
 * @add_text: a paragraph (@heading_level 0) or heading, as Pango markup
 * @add_text_view: text too long for a label, lines already broken
 * @add_literal: an HTML block, shown as its source
 * @add_code: a code block: @code to copy, @shown with long lines broken,
 *   @language the first word of the info string, lower case, or %NULL
 * @add_separator: a thematic break
 * @add_table: a table of @n_columns columns; returns it, for its cells
 * @add_table_cell: the cell at @row, @column of a table, as Pango markup;
 *   @header for the cells of the first row
 *
 * Each callback gets the container to append to, which is @root or what
 * an add_list(), add_item() or add_quote() returned.
 */
typedef struct
{
  gpointer (*add_list)      (gpointer    parent,
                             gboolean    tight,
                             gpointer    user_data);
  gpointer (*add_item)      (gpointer    parent,
                             const char *marker,
                             gpointer    user_data);
  gpointer (*add_quote)     (gpointer    parent,
                             gpointer    user_data);
  void     (*add_text)      (gpointer    parent,
                             const char *markup,
                             int         heading_level,
                             gpointer    user_data);
  void     (*add_text_view) (gpointer    parent,
                             const char *text,
                             gboolean    monospace,
                             gpointer    user_data);
  void     (*add_literal)   (gpointer    parent,
                             const char *text,
                             gpointer    user_data);
  void     (*add_code)      (gpointer    parent,
                             const char *code,
                             const char *shown,
                             const char *language,
                             gpointer    user_data);
  void     (*add_separator) (gpointer    parent,
                             gpointer    user_data);
  gpointer (*add_table)     (gpointer    parent,
                             int         n_columns,
                             gpointer    user_data);
  void     (*add_table_cell) (gpointer    table,
                              int         row,
                              int         column,
                              const char *markup,
                              gboolean    header,
                              gpointer    user_data);
} ZotMarkdownSink;

void     _zot_markdown_walk            (const char            *markdown,
                                        const ZotMarkdownSink *sink,
                                        gpointer               root,
                                        gpointer               user_data);
gboolean _zot_markdown_uri_is_openable (const char            *uri);
char    *_zot_markdown_break_long_lines (const char           *text,
                                         glong                 max_chars);

G_END_DECLS
