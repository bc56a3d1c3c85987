/* zot-markdown-document.c — a Markdown text walked once and kept.
 *
 * The document is the walk of zot-markdown-walk.c recorded by a sink of
 * its own: a tree of blocks with the strings the walk produced (markup
 * already escaped, long lines already broken). Replaying it hands the same
 * calls, in the same order, to another sink. The walk bounds the depth of
 * the tree (it flattens deep containers), so the replay may recurse.
 */
#define G_LOG_DOMAIN "zot-markdown"

#include "config.h"

#include "zot-markdown-document.h"

typedef enum
{
  BLOCK_ROOT,
  BLOCK_LIST,
  BLOCK_ITEM,
  BLOCK_QUOTE,
  BLOCK_TEXT,
  BLOCK_TEXT_VIEW,
  BLOCK_LITERAL,
  BLOCK_CODE,
  BLOCK_SEPARATOR,
  BLOCK_TABLE,
  BLOCK_TABLE_CELL,
} BlockKind;

typedef struct _Block Block;

struct _Block
{
  BlockKind  kind;
  int        number;     /* list: tight; text: heading level; text view: monospace;
                          * table: columns; cell: header */
  int        row;        /* cell */
  int        column;     /* cell */
  char      *text;       /* markup, text, code or marker */
  char      *shown;      /* code: as shown, or NULL when the same as the code */
  char      *language;   /* code */
  GPtrArray *children;   /* Block, for containers */
};

struct _ZotMarkdownDocument
{
  gatomicrefcount  ref_count;
  char            *markdown;
  Block           *root;
};

G_DEFINE_BOXED_TYPE (ZotMarkdownDocument, zot_markdown_document,
                     zot_markdown_document_ref, zot_markdown_document_unref)

static void
block_free (Block *block)
{
  g_clear_pointer (&block->children, g_ptr_array_unref);
  g_free (block->text);
  g_free (block->shown);
  g_free (block->language);
  g_free (block);
}

static Block *
block_append (gpointer   parent,
              BlockKind  kind,
              int        number,
              const char *text)
{
  Block *container = parent;
  Block *block = g_new0 (Block, 1);

  block->kind = kind;
  block->number = number;
  block->text = g_strdup (text);

  if (container->children == NULL)
    container->children = g_ptr_array_new_with_free_func ((GDestroyNotify) block_free);
  g_ptr_array_add (container->children, block);

  return block;
}

/* The recording sink */

static gpointer
record_list (gpointer parent,
             gboolean tight,
             gpointer user_data)
{
  return block_append (parent, BLOCK_LIST, tight, NULL);
}

static gpointer
record_item (gpointer    parent,
             const char *marker,
             gpointer    user_data)
{
  return block_append (parent, BLOCK_ITEM, 0, marker);
}

static gpointer
record_quote (gpointer parent,
              gpointer user_data)
{
  return block_append (parent, BLOCK_QUOTE, 0, NULL);
}

static void
record_text (gpointer    parent,
             const char *markup,
             int         heading_level,
             gpointer    user_data)
{
  block_append (parent, BLOCK_TEXT, heading_level, markup);
}

static void
record_text_view (gpointer    parent,
                  const char *text,
                  gboolean    monospace,
                  gpointer    user_data)
{
  block_append (parent, BLOCK_TEXT_VIEW, monospace, text);
}

static void
record_literal (gpointer    parent,
                const char *text,
                gpointer    user_data)
{
  block_append (parent, BLOCK_LITERAL, 0, text);
}

static void
record_code (gpointer    parent,
             const char *code,
             const char *shown,
             const char *language,
             gpointer    user_data)
{
  Block *block = block_append (parent, BLOCK_CODE, 0, code);

  /* Most code has no line long enough to break: keep one copy. */
  if (g_strcmp0 (code, shown) != 0)
    block->shown = g_strdup (shown);
  block->language = g_strdup (language);
}

static void
record_separator (gpointer parent,
                  gpointer user_data)
{
  block_append (parent, BLOCK_SEPARATOR, 0, NULL);
}

static gpointer
record_table (gpointer parent,
              int      n_columns,
              gpointer user_data)
{
  return block_append (parent, BLOCK_TABLE, n_columns, NULL);
}

static void
record_table_cell (gpointer    table,
                   int         row,
                   int         column,
                   const char *markup,
                   gboolean    header,
                   gpointer    user_data)
{
  Block *block = block_append (table, BLOCK_TABLE_CELL, header, markup);

  block->row = row;
  block->column = column;
}

static const ZotMarkdownSink recording_sink = {
  record_list,
  record_item,
  record_quote,
  record_text,
  record_text_view,
  record_literal,
  record_code,
  record_separator,
  record_table,
  record_table_cell,
};

static void
replay_children (const Block           *block,
                 const ZotMarkdownSink *sink,
                 gpointer               parent,
                 gpointer               user_data)
{
  if (block->children == NULL)
    return;

  for (guint i = 0; i < block->children->len; i++)
    {
      const Block *child = g_ptr_array_index (block->children, i);

      switch (child->kind)
        {
        case BLOCK_LIST:
          replay_children (child, sink, sink->add_list (parent, child->number, user_data), user_data);
          break;
        case BLOCK_ITEM:
          replay_children (child, sink, sink->add_item (parent, child->text, user_data), user_data);
          break;
        case BLOCK_QUOTE:
          replay_children (child, sink, sink->add_quote (parent, user_data), user_data);
          break;
        case BLOCK_TEXT:
          sink->add_text (parent, child->text, child->number, user_data);
          break;
        case BLOCK_TEXT_VIEW:
          sink->add_text_view (parent, child->text, child->number, user_data);
          break;
        case BLOCK_LITERAL:
          sink->add_literal (parent, child->text, user_data);
          break;
        case BLOCK_CODE:
          sink->add_code (parent, child->text, child->shown ? child->shown : child->text,
                          child->language, user_data);
          break;
        case BLOCK_SEPARATOR:
          sink->add_separator (parent, user_data);
          break;
        case BLOCK_TABLE:
          replay_children (child, sink, sink->add_table (parent, child->number, user_data), user_data);
          break;
        case BLOCK_TABLE_CELL:
          sink->add_table_cell (parent, child->row, child->column, child->text, child->number, user_data);
          break;
        case BLOCK_ROOT:
        default:
          g_assert_not_reached ();
        }
    }
}

/**
 * zot_markdown_document_new:
 * @markdown: (nullable): CommonMark text; invalid UTF-8 is repaired
 *
 * Parses and walks @markdown once.
 *
 * Returns: (transfer full): the document
 */
ZotMarkdownDocument *
zot_markdown_document_new (const char *markdown)
{
  ZotMarkdownDocument *self = g_new0 (ZotMarkdownDocument, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->markdown = g_utf8_make_valid (markdown ? markdown : "", -1);
  self->root = g_new0 (Block, 1);
  self->root->kind = BLOCK_ROOT;
  _zot_markdown_walk (self->markdown, &recording_sink, self->root, NULL);

  return self;
}

ZotMarkdownDocument *
zot_markdown_document_ref (ZotMarkdownDocument *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
zot_markdown_document_unref (ZotMarkdownDocument *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_clear_pointer (&self->root, block_free);
  g_free (self->markdown);
  g_free (self);
}

/**
 * zot_markdown_document_get_text:
 * @self: a #ZotMarkdownDocument
 *
 * Returns: the Markdown it was made from, made valid UTF-8
 */
const char *
zot_markdown_document_get_text (const ZotMarkdownDocument *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->markdown;
}

/**
 * zot_markdown_document_replay:
 * @self: a #ZotMarkdownDocument
 * @sink: what to build with
 * @root: the container for the top-level blocks
 * @user_data: passed to @sink
 *
 * Calls @sink as _zot_markdown_walk() did when @self was made.
 */
void
zot_markdown_document_replay (const ZotMarkdownDocument *self,
                              const ZotMarkdownSink     *sink,
                              gpointer                   root,
                              gpointer                   user_data)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (sink != NULL);

  replay_children (self->root, sink, root, user_data);
}
