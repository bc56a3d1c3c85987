/* zot-markdown-walk.c — Markdown parsed and walked into blocks.
 *
 * cmark-gfm parses (plain cmark when built without it, which leaves
 * GitHub's tables, strikethrough, task lists and autolinks as text); this
 * file walks the tree with a cmark_iter and hands each
 * block to a sink (zot-markdown-private.h). Inline content becomes Pango
 * markup in which every piece of text from the model is escaped with
 * g_markup_escape_text, so "<b>" in a reply is shown as it is, never
 * interpreted. That text is first made safe for Pango 1.50's word and
 * character wrapping (zot-wrap-safe.h), piece by piece, each piece seen
 * after the text before it, so that no repair lands inside a tag.
 *
 * Model output is untrusted input, so the walk is bounded: containers
 * nested deeper than MAX_BLOCK_DEPTH are flattened (GTK measures widget
 * trees recursively), inline styles deeper than MAX_INLINE_DEPTH are
 * dropped, text too long for a label goes to a text view with its long
 * lines broken, and after MAX_BLOCKS blocks the rest of the source is
 * shown as plain text. No widget is made here, so the fuzzer runs it
 * without a display.
 */
#define G_LOG_DOMAIN "zot-markdown"

#include "config.h"

#include <string.h>

#ifdef HAVE_CMARK_GFM
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#else
#include <cmark.h>
#endif

#include "zot-markdown-private.h"
#include "zot-wrap-safe.h"

#define MAX_BLOCK_DEPTH  12
#define MAX_INLINE_DEPTH 24
#define MAX_BLOCKS       1500
#define MAX_PLAIN_TAIL   (1024 * 1024)
/* GtkLabel lays out long text in superlinear time (a 64 KiB label takes
 * seconds); longer text goes into a read-only GtkTextView instead. */
#define MAX_LABEL_CHARS  4096
#define MAX_LINE_CHARS   2048

/* One open container while walking the tree. */
typedef struct
{
  gpointer container;
  int      list_type;   /* cmark_list_type, for lists */
  int      delim;       /* cmark_delim_type, for ordered lists */
  gint64   number;      /* the next item's number, for ordered lists */
} Frame;

typedef struct
{
  const ZotMarkdownSink *sink;
  gpointer               user_data;
  gpointer               root;
  const char            *markdown;
  GArray                *frames;   /* Frame */
  GArray                *closers;  /* const char *, one per open inline node */
  GString               *markup;   /* the paragraph or heading being built */
  GString               *plain;    /* the same, as text */
  guint                  in_link;
  guint                  n_blocks;
  gpointer               table;    /* the table whose cells are walked */
  int                    table_row;
  int                    table_column;
} Builder;

static const char *
bullet_for_level (guint level)
{
  static const char * const bullets[] = { "•", "◦", "▪" };

  return bullets[level % G_N_ELEMENTS (bullets)];
}

static void
append_escaped (GString    *string,
                const char *text)
{
  g_autofree char *escaped = NULL;

  if (text == NULL || *text == '\0')
    return;

  escaped = g_markup_escape_text (text, -1);
  g_string_append (string, escaped);
}

static void
string_free (GString *string)
{
  g_string_free (string, TRUE);
}

/**
 * _zot_markdown_break_long_lines:
 * @text: valid UTF-8
 *
 * Pango lays out a paragraph as one unit, and a single line of hundreds of
 * kilobytes (minified JSON, say) would stall the window for seconds. The
 * breaks go at a space when there is one near the limit.
 *
 * Returns: (transfer full): a copy of @text in which no line is longer
 *   than about @max_chars characters
 */
char *
_zot_markdown_break_long_lines (const char *text,
                                glong       max_chars)
{
  GString *out = g_string_sized_new (strlen (text) + 16);
  const char *p = text;
  const char *line_start = text;
  const char *last_space = NULL;
  glong column = 0;

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char (p);
      const char *next = g_utf8_next_char (p);

      if (c == '\n')
        {
          g_string_append_len (out, line_start, next - line_start);
          line_start = next;
          last_space = NULL;
          column = 0;
        }
      else
        {
          if (c == ' ' || c == '\t')
            last_space = p;
          column++;

          if (column >= max_chars)
            {
              /* Break after the last space if it is not too far back. */
              const char *cut = (last_space != NULL && p - last_space < 256) ? last_space + 1 : next;

              g_string_append_len (out, line_start, cut - line_start);
              g_string_append_c (out, '\n');
              line_start = cut;
              last_space = NULL;
              column = g_utf8_pointer_to_offset (cut, next);
            }
        }

      p = next;
    }

  g_string_append (out, line_start);
  return g_string_free (out, FALSE);
}

/* The first word of a fence info string, lower case, or NULL when it is
 * empty or has characters no language id has. */
static char *
info_to_word (const char *info)
{
  gsize len = 0;

  if (info == NULL)
    return NULL;

  while (g_ascii_isspace (*info))
    info++;

  while (info[len] != '\0' && !g_ascii_isspace (info[len]) && info[len] != '{' && len <= 64)
    {
      char c = info[len];

      if (!g_ascii_isalnum (c) && strchr ("+#._-", c) == NULL)
        return NULL;
      len++;
    }

  if (len == 0 || len > 64)
    return NULL;

  return g_ascii_strdown (info, (gssize) len);
}

static Frame *
builder_top (Builder *builder)
{
  g_assert (builder->frames->len > 0);
  return &g_array_index (builder->frames, Frame, builder->frames->len - 1);
}

static void
builder_push (Builder  *builder,
              gpointer  container)
{
  Frame frame = { container, 0, 0, 0 };

  g_array_append_val (builder->frames, frame);
}

static void
builder_pop (Builder *builder)
{
  /* The document frame stays until the end. */
  if (builder->frames->len > 1)
    g_array_set_size (builder->frames, builder->frames->len - 1);
}

static gboolean
builder_can_nest (Builder *builder)
{
  return builder->frames->len < MAX_BLOCK_DEPTH;
}

/* The container that the next block goes to; counts the block. */
static gpointer
builder_parent (Builder *builder)
{
  builder->n_blocks++;
  return builder_top (builder)->container;
}

static void
builder_text_view (Builder  *builder,
                   gpointer  parent,
                   char     *text,
                   gboolean  monospace)
{
  g_autofree char *broken = _zot_markdown_break_long_lines (text, MAX_LINE_CHARS);

  builder->sink->add_text_view (parent, broken, monospace, builder->user_data);
}

static guint
builder_list_level (Builder *builder)
{
  guint level = 0;

  for (guint i = 0; i < builder->frames->len; i++)
    if (g_array_index (builder->frames, Frame, i).list_type != CMARK_NO_LIST)
      level++;

  return level;
}

static void
builder_open_inline (Builder    *builder,
                     const char *open,
                     const char *close)
{
  const char *closer = "";

  if (builder->markup != NULL && builder->closers->len < MAX_INLINE_DEPTH)
    {
      g_string_append (builder->markup, open);
      closer = close;
    }

  g_array_append_val (builder->closers, closer);
}

static void
builder_close_inline (Builder *builder)
{
  const char *closer;

  if (builder->closers->len == 0)
    return;

  closer = g_array_index (builder->closers, const char *, builder->closers->len - 1);
  g_array_set_size (builder->closers, builder->closers->len - 1);
  if (builder->markup != NULL)
    g_string_append (builder->markup, closer);
}

static void
builder_text (Builder    *builder,
              const char *text)
{
  g_autofree char *safe = NULL;
  gunichar previous = 0;

  if (builder->markup == NULL || text == NULL)
    return;

  if (builder->plain->len > 0)
    previous = g_utf8_get_char (g_utf8_find_prev_char (builder->plain->str,
                                                       builder->plain->str + builder->plain->len));
  safe = zot_wrap_safe_text_after (previous, text, -1);
  append_escaped (builder->markup, safe);
  g_string_append (builder->plain, safe);
}

static void
builder_link (Builder    *builder,
              cmark_node *node,
              gboolean    entering)
{
  const char *url = cmark_node_get_url (node);
  const char *title = cmark_node_get_title (node);

  if (!entering)
    {
      if (builder->closers->len > 0 &&
          g_str_equal (g_array_index (builder->closers, const char *, builder->closers->len - 1), "</a>"))
        builder->in_link--;
      builder_close_inline (builder);
      return;
    }

  if (builder->in_link > 0 || !_zot_markdown_uri_is_openable (url) || builder->markup == NULL ||
      builder->closers->len >= MAX_INLINE_DEPTH)
    {
      builder_open_inline (builder, "", "");
      if (cmark_node_first_child (node) == NULL)
        builder_text (builder, url);
      return;
    }

  {
    g_autoptr(GString) open = g_string_new ("<a href=\"");

    append_escaped (open, url);
    g_string_append_c (open, '"');
    if (title != NULL && *title != '\0')
      {
        g_string_append (open, " title=\"");
        append_escaped (open, title);
        g_string_append_c (open, '"');
      }
    g_string_append_c (open, '>');

    builder_open_inline (builder, open->str, "</a>");
    builder->in_link++;

    /* A link with no text would be an empty, unclickable range. */
    if (cmark_node_first_child (node) == NULL)
      builder_text (builder, url);
  }
}

static void
builder_start_text (Builder *builder)
{
  g_clear_pointer (&builder->markup, string_free);
  g_clear_pointer (&builder->plain, string_free);
  builder->markup = g_string_new (NULL);
  builder->plain = g_string_new (NULL);
}

static void
builder_finish_text_block (Builder *builder,
                           int      heading_level)
{
  g_autoptr(GString) markup = g_steal_pointer (&builder->markup);
  g_autoptr(GString) plain = g_steal_pointer (&builder->plain);
  gpointer parent;

  /* Unbalanced only if cmark were; close whatever is open. */
  while (builder->closers->len > 0)
    {
      const char *closer = g_array_index (builder->closers, const char *, builder->closers->len - 1);

      g_string_append (markup, closer);
      g_array_set_size (builder->closers, builder->closers->len - 1);
    }
  builder->in_link = 0;

  parent = builder_parent (builder);
  if (g_utf8_strlen (plain->str, -1) > MAX_LABEL_CHARS)
    builder_text_view (builder, parent, plain->str, FALSE);
  else
    builder->sink->add_text (parent, markup->str, heading_level, builder->user_data);
}

static void
builder_item (Builder    *builder,
              cmark_node *node,
              gboolean    entering)
{
  Frame *list;
  g_autofree char *marker = NULL;
  gpointer content;

  if (!entering)
    {
      builder_pop (builder);
      return;
    }

  list = builder_top (builder);
  if (list->list_type == CMARK_ORDERED_LIST)
    marker = g_strdup_printf ("%" G_GINT64_FORMAT "%s", list->number++,
                              list->delim == CMARK_PAREN_DELIM ? ")" : ".");
  else
    marker = g_strdup (bullet_for_level (builder_list_level (builder) - 1));
#ifndef HAVE_CMARK_GFM
  (void) node;
#else
  if (g_str_equal (cmark_node_get_type_string (node), "tasklist"))
    {
      g_free (marker);
      marker = g_strdup (cmark_gfm_extensions_get_tasklist_item_checked (node) ? "☑" : "☐");
    }
#endif

  if (!builder_can_nest (builder))
    {
      builder_push (builder, list->container);
      return;
    }

  content = builder->sink->add_item (builder_parent (builder), marker, builder->user_data);
  builder_push (builder, content);
}

static void
builder_list (Builder    *builder,
              cmark_node *node,
              gboolean    entering)
{
  gpointer container;
  Frame *frame;

  if (!entering)
    {
      builder_pop (builder);
      return;
    }

  container = builder_top (builder)->container;
  if (builder_can_nest (builder))
    container = builder->sink->add_list (builder_parent (builder), cmark_node_get_list_tight (node),
                                         builder->user_data);

  builder_push (builder, container);
  frame = builder_top (builder);
  frame->list_type = cmark_node_get_list_type (node);
  if (frame->list_type == CMARK_NO_LIST)
    frame->list_type = CMARK_BULLET_LIST;
  frame->delim = cmark_node_get_list_delim (node);
  frame->number = cmark_node_get_list_start (node);
}

static void
builder_block_quote (Builder  *builder,
                     gboolean  entering)
{
  gpointer container;

  if (!entering)
    {
      builder_pop (builder);
      return;
    }

  container = builder_top (builder)->container;
  if (builder_can_nest (builder))
    container = builder->sink->add_quote (builder_parent (builder), builder->user_data);
  builder_push (builder, container);
}

static void
builder_literal_block (Builder    *builder,
                       const char *literal)
{
  g_autofree char *text = g_strdup (literal ? literal : "");
  gpointer parent = builder_parent (builder);

  g_strchomp (text);
  if (g_utf8_strlen (text, -1) > MAX_LABEL_CHARS)
    builder_text_view (builder, parent, text, TRUE);
  else
    builder->sink->add_literal (parent, text, builder->user_data);
}

static void
builder_code_block (Builder    *builder,
                    const char *literal,
                    const char *info)
{
  g_autofree char *code = g_strdup (literal ? literal : "");
  g_autofree char *shown = NULL;
  g_autofree char *language = info_to_word (info);
  gsize len = strlen (code);

  /* cmark keeps the newline that ends the last line. */
  if (len > 0 && code[len - 1] == '\n')
    code[len - 1] = '\0';

  /* What is shown may have extra line breaks; what is copied is the code
   * as it was. */
  shown = _zot_markdown_break_long_lines (code, MAX_LINE_CHARS);
  builder->sink->add_code (builder_parent (builder), code, shown, language, builder->user_data);
}

/* The source from @line (1-based) on, as plain text: what is left when
 * the block budget runs out. It goes at the end of the document. */
static void
builder_plain_tail (Builder *builder,
                    int      line)
{
  const char *text = builder->markdown;
  g_autofree char *tail = NULL;

  for (int i = 1; i < line && text != NULL; i++)
    {
      text = strchr (text, '\n');
      if (text != NULL)
        text++;
    }

  if (text == NULL || *text == '\0')
    return;

  if (strlen (text) > MAX_PLAIN_TAIL)
    {
      const char *end = text + MAX_PLAIN_TAIL;

      /* Cut on a character boundary. */
      end = g_utf8_find_prev_char (text, end + 1);
      tail = g_strdup_printf ("%.*s\n…", (int) (end - text), text);
    }
  else
    tail = g_strdup (text);

  builder_text_view (builder, builder->root, tail, FALSE);
}

#ifdef HAVE_CMARK_GFM
static void
builder_finish_cell (Builder *builder,
                     gboolean header)
{
  g_autoptr(GString) markup = NULL;
  g_autoptr(GString) plain = NULL;

  while (builder->closers->len > 0)
    builder_close_inline (builder);
  builder->in_link = 0;
  markup = g_steal_pointer (&builder->markup);
  plain = g_steal_pointer (&builder->plain);
  if (markup == NULL || builder->table == NULL)
    return;

  /* A cell is one line of a grid: too long a line is cut, not moved to a
   * text view that would break the grid. */
  if (g_utf8_strlen (plain->str, -1) > MAX_LABEL_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (plain->str, 0, MAX_LABEL_CHARS);

      g_string_truncate (markup, 0);
      append_escaped (markup, cut);
      g_string_append (markup, "…");
    }

  builder->n_blocks++;
  builder->sink->add_table_cell (builder->table, builder->table_row, builder->table_column++,
                                 markup->str, header, builder->user_data);
}

/* The nodes of cmark-gfm's extensions, which have no fixed type: TRUE when
 * @node was one and is handled. */
static gboolean
builder_extension (Builder    *builder,
                   cmark_node *node,
                   gboolean    entering)
{
  const char *type = cmark_node_get_type_string (node);

  if (g_str_equal (type, "strikethrough"))
    {
      if (entering)
        builder_open_inline (builder, "<s>", "</s>");
      else
        builder_close_inline (builder);
    }
  else if (g_str_equal (type, "table"))
    {
      if (entering)
        {
          builder->table = builder->sink->add_table (builder_parent (builder),
                                                     cmark_gfm_extensions_get_table_columns (node),
                                                     builder->user_data);
          builder->table_row = -1;
        }
      else
        builder->table = NULL;
    }
  else if (g_str_equal (type, "table_header") || g_str_equal (type, "table_row"))
    {
      if (entering)
        {
          builder->table_row++;
          builder->table_column = 0;
        }
    }
  else if (g_str_equal (type, "table_cell"))
    {
      if (entering)
        builder_start_text (builder);
      else
        builder_finish_cell (builder, g_str_equal (cmark_node_get_type_string (cmark_node_parent (node)),
                                                   "table_header"));
    }
  else
    return FALSE;

  return TRUE;
}
#endif

gboolean
_zot_markdown_uri_is_openable (const char *uri)
{
  g_autofree char *scheme = NULL;

  if (uri == NULL || *uri == '\0')
    return FALSE;

  scheme = g_uri_parse_scheme (uri);
  if (scheme == NULL)
    return FALSE;

  return g_ascii_strcasecmp (scheme, "http") == 0 ||
         g_ascii_strcasecmp (scheme, "https") == 0 ||
         g_ascii_strcasecmp (scheme, "mailto") == 0;
}

static cmark_node *
parse (const char *markdown)
{
  int options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8;
#ifdef HAVE_CMARK_GFM
  static const char * const extensions[] = { "table", "strikethrough", "tasklist", "autolink" };
  static gsize registered = 0;
  cmark_parser *parser;
  cmark_node *document;

  /* cmark-gfm registers its extensions in a global list without a lock. */
  if (g_once_init_enter (&registered))
    {
      cmark_gfm_core_extensions_ensure_registered ();
      g_once_init_leave (&registered, 1);
    }

  parser = cmark_parser_new (options);
  for (guint i = 0; i < G_N_ELEMENTS (extensions); i++)
    {
      cmark_syntax_extension *extension = cmark_find_syntax_extension (extensions[i]);

      if (extension != NULL)
        cmark_parser_attach_syntax_extension (parser, extension);
    }
  cmark_parser_feed (parser, markdown, strlen (markdown));
  document = cmark_parser_finish (parser);
  cmark_parser_free (parser);
  return document;
#else
  return cmark_parse_document (markdown, strlen (markdown), options);
#endif
}

/**
 * _zot_markdown_walk:
 * @markdown: CommonMark text, valid UTF-8
 * @sink: what to do with each block
 * @root: the container of the document's blocks
 *
 * Parses @markdown and hands its blocks to @sink, in order.
 */
void
_zot_markdown_walk (const char            *markdown,
                    const ZotMarkdownSink *sink,
                    gpointer               root,
                    gpointer               user_data)
{
  Builder builder = { 0 };
  cmark_node *document;
  cmark_iter *iter;
  cmark_event_type event;

  g_return_if_fail (markdown != NULL);
  g_return_if_fail (sink != NULL);

  document = parse (markdown);
  if (document == NULL)
    return;

  builder.sink = sink;
  builder.user_data = user_data;
  builder.root = root;
  builder.markdown = markdown;
  builder.frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  builder.closers = g_array_new (FALSE, FALSE, sizeof (const char *));
  builder_push (&builder, root);

  iter = cmark_iter_new (document);

  while ((event = cmark_iter_next (iter)) != CMARK_EVENT_DONE)
    {
      cmark_node *node = cmark_iter_get_node (iter);
      gboolean entering = event == CMARK_EVENT_ENTER;
      cmark_node_type type = cmark_node_get_type (node);

      if (entering && builder.n_blocks >= MAX_BLOCKS && builder.markup == NULL &&
          type != CMARK_NODE_DOCUMENT)
        {
          builder_plain_tail (&builder, cmark_node_get_start_line (node));
          break;
        }

#ifdef HAVE_CMARK_GFM
      if (builder_extension (&builder, node, entering))
        continue;
#endif

      switch (type)
        {
        case CMARK_NODE_DOCUMENT:
          break;

        case CMARK_NODE_BLOCK_QUOTE:
          builder_block_quote (&builder, entering);
          break;

        case CMARK_NODE_LIST:
          builder_list (&builder, node, entering);
          break;

        case CMARK_NODE_ITEM:
          builder_item (&builder, node, entering);
          break;

        case CMARK_NODE_CODE_BLOCK:
          builder_code_block (&builder, cmark_node_get_literal (node), cmark_node_get_fence_info (node));
          break;

        case CMARK_NODE_HTML_BLOCK:
        case CMARK_NODE_CUSTOM_BLOCK:
          builder_literal_block (&builder, cmark_node_get_literal (node));
          break;

        case CMARK_NODE_THEMATIC_BREAK:
          sink->add_separator (builder_parent (&builder), user_data);
          break;

        case CMARK_NODE_PARAGRAPH:
        case CMARK_NODE_HEADING:
          if (entering)
            builder_start_text (&builder);
          else if (builder.markup != NULL)
            builder_finish_text_block (&builder,
                                       type == CMARK_NODE_HEADING ? cmark_node_get_heading_level (node) : 0);
          break;

        case CMARK_NODE_TEXT:
        case CMARK_NODE_HTML_INLINE:
        case CMARK_NODE_CUSTOM_INLINE:
          builder_text (&builder, cmark_node_get_literal (node));
          break;

        case CMARK_NODE_SOFTBREAK:
        case CMARK_NODE_LINEBREAK:
          builder_text (&builder, "\n");
          break;

        case CMARK_NODE_CODE:
          builder_open_inline (&builder, "<span font_family=\"monospace\" bgcolor=\"#808080\" bgalpha=\"22%\">",
                               "</span>");
          builder_text (&builder, cmark_node_get_literal (node));
          builder_close_inline (&builder);
          break;

        case CMARK_NODE_EMPH:
          if (entering)
            builder_open_inline (&builder, "<i>", "</i>");
          else
            builder_close_inline (&builder);
          break;

        case CMARK_NODE_STRONG:
          if (entering)
            builder_open_inline (&builder, "<b>", "</b>");
          else
            builder_close_inline (&builder);
          break;

        case CMARK_NODE_LINK:
        case CMARK_NODE_IMAGE:
          /* An image shows its description, linked to the image. */
          builder_link (&builder, node, entering);
          break;

        case CMARK_NODE_NONE:
        default:
          break;
        }
    }

  cmark_iter_free (iter);
  cmark_node_free (document);

  g_clear_pointer (&builder.markup, string_free);
  g_clear_pointer (&builder.plain, string_free);
  g_array_unref (builder.frames);
  g_array_unref (builder.closers);
}
