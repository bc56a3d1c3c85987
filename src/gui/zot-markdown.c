/* zot-markdown.c — Markdown rendered into GTK widgets.
 *
 * cmark parses; this file walks the tree with a cmark_iter and builds a
 * vertical box of blocks. Inline content becomes Pango markup in which
 * every piece of text from the model is escaped with g_markup_escape_text,
 * so "<b>" in a reply is shown as it is, never interpreted.
 *
 * Model output is untrusted input, so the renderer is bounded: containers
 * nested deeper than MAX_BLOCK_DEPTH are flattened (GTK measures widget
 * trees recursively), inline styles deeper than MAX_INLINE_DEPTH are
 * dropped, text too long for a label goes into a text view, and after
 * MAX_BLOCKS blocks the rest of the source is shown as plain text.
 */
#define G_LOG_DOMAIN "zot-markdown"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <adwaita.h>
#include <cmark.h>
#include <gtksourceview/gtksource.h>

#include "zot-markdown.h"

#define MAX_BLOCK_DEPTH  12
#define MAX_INLINE_DEPTH 24
#define MAX_BLOCKS       1500
#define MAX_PLAIN_TAIL   (1024 * 1024)
/* GtkLabel lays out long text in superlinear time (a 64 KiB label takes
 * seconds); longer text goes into a read-only GtkTextView instead. */
#define MAX_LABEL_CHARS  4096
#define MAX_LINE_CHARS   2048

struct _ZotMarkdownView
{
  GtkWidget  parent_instance;

  GtkWidget *box;
  char      *markdown;
};

G_DEFINE_FINAL_TYPE (ZotMarkdownView, zot_markdown_view, GTK_TYPE_WIDGET)

/* One open container while walking the tree. */
typedef struct
{
  GtkWidget *box;
  int        list_type;   /* cmark_list_type, for lists */
  int        delim;       /* cmark_delim_type, for ordered lists */
  gint64     number;      /* the next item's number, for ordered lists */
} Frame;

typedef struct
{
  ZotMarkdownView *self;
  GArray          *frames;   /* Frame */
  GArray          *closers;  /* const char *, one per open inline node */
  GString         *markup;   /* the paragraph or heading being built */
  GString         *plain;    /* the same, as text */
  guint            in_link;
  guint            n_blocks;
} Builder;

static const char *
bullet_for_level (guint level)
{
  static const char * const bullets[] = { "•", "◦", "▪" };

  return bullets[level % G_N_ELEMENTS (bullets)];
}

static gboolean
uri_is_openable (const char *uri)
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

static gboolean
on_label_activate_link_cb (GtkLabel   *label,
                           const char *uri,
                           gpointer    user_data)
{
  GtkRoot *root;

  /* Handled either way: the default handler would open any scheme. */
  if (!uri_is_openable (uri))
    return TRUE;

  root = gtk_widget_get_root (GTK_WIDGET (label));
  gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);
  return TRUE;
}

static GtkWidget *
create_label (void)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_set_halign (label, GTK_ALIGN_FILL);
  gtk_widget_set_hexpand (label, TRUE);

  return label;
}

/* A copy of @text in which no line is longer than about @max_chars: Pango
 * lays out a paragraph as one unit, and a single line of hundreds of
 * kilobytes (minified JSON, say) would stall the window for seconds. The
 * breaks go at a space when there is one near the limit. */
static char *
break_long_lines (const char *text,
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

static GtkWidget *
create_text_view (const char *text)
{
  GtkWidget *view = gtk_text_view_new ();
  g_autofree char *broken = break_long_lines (text, MAX_LINE_CHARS);

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), broken, -1);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_widget_set_hexpand (view, TRUE);
  gtk_widget_add_css_class (view, "plain-text");

  return view;
}

static GtkWidget *
create_markup_label (const char *markup)
{
  GtkWidget *label = create_label ();

  gtk_label_set_markup (GTK_LABEL (label), markup);
  g_signal_connect (label, "activate-link", G_CALLBACK (on_label_activate_link_cb), NULL);

  return label;
}

/* Code blocks */

static const struct
{
  const char *alias;
  const char *id;
} language_aliases[] = {
  { "js", "js" },
  { "javascript", "js" },
  { "mjs", "js" },
  { "node", "js" },
  { "ts", "typescript" },
  { "tsx", "typescript-jsx" },
  { "sh", "sh" },
  { "bash", "sh" },
  { "shell", "sh" },
  { "zsh", "sh" },
  { "console", "sh" },
  { "shell-session", "sh" },
  { "py", "python3" },
  { "python", "python3" },
  { "c++", "cpp" },
  { "cxx", "cpp" },
  { "cc", "cpp" },
  { "hpp", "cpp" },
  { "h", "chdr" },
  { "rs", "rust" },
  { "rb", "ruby" },
  { "yml", "yaml" },
  { "md", "markdown" },
  { "golang", "go" },
  { "cs", "csharp" },
  { "c#", "csharp" },
  { "kt", "kotlin" },
  { "make", "makefile" },
  { "dockerfile", "docker" },
  { "patch", "diff" },
  { "hs", "haskell" },
  { "pl", "perl" },
  { "tex", "latex" },
  { "ps1", "powershell" },
  { "vb", "vbnet" },
  { "htm", "html" },
};

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

static GtkSourceLanguage *
guess_language (const char *info)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
  g_autofree char *word = info_to_word (info);
  g_autofree char *filename = NULL;
  GtkSourceLanguage *language;

  if (word == NULL)
    return NULL;

  for (guint i = 0; i < G_N_ELEMENTS (language_aliases); i++)
    {
      if (g_str_equal (word, language_aliases[i].alias))
        {
          language = gtk_source_language_manager_get_language (manager, language_aliases[i].id);
          if (language != NULL)
            return language;
          break;
        }
    }

  language = gtk_source_language_manager_get_language (manager, word);
  if (language != NULL)
    return language;

  filename = g_strconcat ("file.", word, NULL);
  return gtk_source_language_manager_guess_language (manager, filename, NULL);
}

static void
update_style_scheme (GtkSourceBuffer *buffer)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme;

  scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita");
  if (scheme == NULL)
    scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "classic-dark" : "classic");
  if (scheme != NULL)
    gtk_source_buffer_set_style_scheme (buffer, scheme);
}

static void
on_style_manager_dark_cb (AdwStyleManager *style_manager,
                          GParamSpec      *pspec,
                          GtkSourceBuffer *buffer)
{
  update_style_scheme (buffer);
}

static void
on_copy_button_clicked_cb (GtkButton *button,
                           gpointer   user_data)
{
  const char *code = g_object_get_data (G_OBJECT (button), "zot-code");

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), code ? code : "");
}

static GtkWidget *
create_code_block (const char *literal,
                   const char *info)
{
  g_autoptr(GtkSourceBuffer) buffer = NULL;
  g_autofree char *code = g_strdup (literal ? literal : "");
  g_autofree char *shown = NULL;
  GtkSourceLanguage *language;
  GtkWidget *overlay;
  GtkWidget *view;
  GtkWidget *button;
  gsize len = strlen (code);

  /* cmark keeps the newline that ends the last line. */
  if (len > 0 && code[len - 1] == '\n')
    code[len - 1] = '\0';

  /* What is shown may have extra line breaks (break_long_lines); what is
   * copied is the code as it was. */
  shown = break_long_lines (code, MAX_LINE_CHARS);
  buffer = gtk_source_buffer_new (NULL);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (buffer), shown, -1);
  language = guess_language (info);
  gtk_source_buffer_set_language (buffer, language);
  gtk_source_buffer_set_highlight_syntax (buffer, language != NULL);
  gtk_source_buffer_set_highlight_matching_brackets (buffer, FALSE);
  update_style_scheme (buffer);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_style_manager_dark_cb), buffer, 0);

  view = gtk_source_view_new_with_buffer (buffer);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  /* Wrapped rather than scrolled sideways: a nested scroller would fight
   * the transcript's, and an unwrapped view would widen the window. */
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 10);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 36);
  gtk_widget_set_hexpand (view, TRUE);
  gtk_widget_add_css_class (view, "markdown-code");

  button = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  gtk_widget_set_tooltip_text (button, _("Copy"));
  gtk_widget_set_halign (button, GTK_ALIGN_END);
  gtk_widget_set_valign (button, GTK_ALIGN_START);
  gtk_widget_set_margin_top (button, 4);
  gtk_widget_set_margin_end (button, 4);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "circular");
  gtk_widget_add_css_class (button, "markdown-copy");
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Copy code"),
                                  -1);
  g_signal_connect (button, "clicked", G_CALLBACK (on_copy_button_clicked_cb), NULL);
  g_object_set_data_full (G_OBJECT (button), "zot-code", g_steal_pointer (&code), g_free);

  overlay = gtk_overlay_new ();
  gtk_widget_add_css_class (overlay, "markdown-code-block");
  gtk_widget_set_overflow (overlay, GTK_OVERFLOW_HIDDEN);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), view);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), button);

  return overlay;
}

/* Walking the tree */

static Frame *
builder_top (Builder *builder)
{
  g_assert (builder->frames->len > 0);
  return &g_array_index (builder->frames, Frame, builder->frames->len - 1);
}

static void
builder_push (Builder   *builder,
              GtkWidget *box)
{
  Frame frame = { box, 0, 0, 0 };

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

static void
builder_append (Builder   *builder,
                GtkWidget *widget)
{
  gtk_box_append (GTK_BOX (builder_top (builder)->box), widget);
  builder->n_blocks++;
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
  if (builder->markup != NULL && text != NULL)
    {
      append_escaped (builder->markup, text);
      g_string_append (builder->plain, text);
    }
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

  if (builder->in_link > 0 || !uri_is_openable (url) || builder->markup == NULL ||
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
builder_finish_text_block (Builder *builder,
                           int      heading_level)
{
  g_autoptr(GString) markup = g_steal_pointer (&builder->markup);
  g_autoptr(GString) plain = g_steal_pointer (&builder->plain);
  GtkWidget *label;

  /* Unbalanced only if cmark were; close whatever is open. */
  while (builder->closers->len > 0)
    {
      const char *closer = g_array_index (builder->closers, const char *, builder->closers->len - 1);

      g_string_append (markup, closer);
      g_array_set_size (builder->closers, builder->closers->len - 1);
    }
  builder->in_link = 0;

  if (g_utf8_strlen (plain->str, -1) > MAX_LABEL_CHARS)
    {
      builder_append (builder, create_text_view (plain->str));
      return;
    }

  label = create_markup_label (markup->str);

  if (heading_level > 0)
    {
      static const char * const classes[] = { "title-1", "title-2", "title-3", "title-4", "heading", "heading" };
      int index = CLAMP (heading_level, 1, 6) - 1;

      gtk_widget_add_css_class (label, classes[index]);
      gtk_widget_add_css_class (label, "markdown-heading");
      if (heading_level == 6)
        gtk_widget_add_css_class (label, "dim-label");
    }
  else
    gtk_widget_add_css_class (label, "markdown-paragraph");

  builder_append (builder, label);
}

static void
builder_item (Builder  *builder,
              gboolean  entering)
{
  Frame *list;
  g_autofree char *marker = NULL;
  GtkWidget *row;
  GtkWidget *marker_label;
  GtkWidget *content;

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

  if (!builder_can_nest (builder))
    {
      builder_push (builder, list->box);
      return;
    }

  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class (row, "markdown-item");

  marker_label = gtk_label_new (marker);
  gtk_label_set_xalign (GTK_LABEL (marker_label), 1.0);
  gtk_widget_set_valign (marker_label, GTK_ALIGN_START);
  gtk_widget_add_css_class (marker_label, "markdown-marker");
  gtk_box_append (GTK_BOX (row), marker_label);

  content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_hexpand (content, TRUE);
  gtk_box_append (GTK_BOX (row), content);

  builder_append (builder, row);
  builder_push (builder, content);
}

static void
builder_list (Builder    *builder,
              cmark_node *node,
              gboolean    entering)
{
  GtkWidget *box;
  Frame *frame;

  if (!entering)
    {
      builder_pop (builder);
      return;
    }

  box = builder_top (builder)->box;
  if (builder_can_nest (builder))
    {
      box = gtk_box_new (GTK_ORIENTATION_VERTICAL, cmark_node_get_list_tight (node) ? 4 : 8);
      gtk_widget_add_css_class (box, "markdown-list");
      builder_append (builder, box);
    }

  builder_push (builder, box);
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
  GtkWidget *box;

  if (!entering)
    {
      builder_pop (builder);
      return;
    }

  box = builder_top (builder)->box;
  if (builder_can_nest (builder))
    {
      box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
      gtk_widget_add_css_class (box, "markdown-quote");
      builder_append (builder, box);
    }
  builder_push (builder, box);
}

static void
builder_literal_block (Builder    *builder,
                       const char *literal)
{
  g_autofree char *text = g_strdup (literal ? literal : "");
  GtkWidget *label;

  g_strchomp (text);
  if (g_utf8_strlen (text, -1) > MAX_LABEL_CHARS)
    {
      label = create_text_view (text);
      gtk_text_view_set_monospace (GTK_TEXT_VIEW (label), TRUE);
    }
  else
    {
      label = create_label ();
      gtk_label_set_text (GTK_LABEL (label), text);
      gtk_widget_add_css_class (label, "monospace");
    }
  builder_append (builder, label);
}

/* The source from @line (1-based) on, as plain text: what is left when
 * the block budget runs out. */
static void
builder_plain_tail (Builder *builder,
                    int      line)
{
  const char *text = builder->self->markdown;
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

  gtk_box_append (GTK_BOX (builder->self->box), create_text_view (tail));
}

static void
render (ZotMarkdownView *self)
{
  Builder builder = { 0 };
  cmark_node *document;
  cmark_iter *iter;
  cmark_event_type event;

  document = cmark_parse_document (self->markdown, strlen (self->markdown),
                                   CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8);
  if (document == NULL)
    return;

  builder.self = self;
  builder.frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  builder.closers = g_array_new (FALSE, FALSE, sizeof (const char *));
  builder_push (&builder, self->box);

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
          builder_item (&builder, entering);
          break;

        case CMARK_NODE_CODE_BLOCK:
          builder_append (&builder, create_code_block (cmark_node_get_literal (node),
                                                       cmark_node_get_fence_info (node)));
          break;

        case CMARK_NODE_HTML_BLOCK:
        case CMARK_NODE_CUSTOM_BLOCK:
          builder_literal_block (&builder, cmark_node_get_literal (node));
          break;

        case CMARK_NODE_THEMATIC_BREAK:
          {
            GtkWidget *separator = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);

            gtk_widget_set_margin_top (separator, 6);
            gtk_widget_set_margin_bottom (separator, 6);
            builder_append (&builder, separator);
          }
          break;

        case CMARK_NODE_PARAGRAPH:
        case CMARK_NODE_HEADING:
          if (entering)
            {
              g_clear_pointer (&builder.markup, string_free);
              g_clear_pointer (&builder.plain, string_free);
              builder.markup = g_string_new (NULL);
              builder.plain = g_string_new (NULL);
            }
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

static void
zot_markdown_view_dispose (GObject *object)
{
  ZotMarkdownView *self = ZOT_MARKDOWN_VIEW (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (zot_markdown_view_parent_class)->dispose (object);
}

static void
zot_markdown_view_finalize (GObject *object)
{
  ZotMarkdownView *self = ZOT_MARKDOWN_VIEW (object);

  g_clear_pointer (&self->markdown, g_free);

  G_OBJECT_CLASS (zot_markdown_view_parent_class)->finalize (object);
}

static void
zot_markdown_view_class_init (ZotMarkdownViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_markdown_view_dispose;
  object_class->finalize = zot_markdown_view_finalize;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "markdown");
}

static void
zot_markdown_view_init (ZotMarkdownView *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  self->markdown = g_strdup ("");
}

/**
 * zot_markdown_view_new:
 *
 * Returns: (transfer floating): an empty Markdown view
 */
GtkWidget *
zot_markdown_view_new (void)
{
  return g_object_new (ZOT_TYPE_MARKDOWN_VIEW, NULL);
}

/**
 * zot_markdown_view_set_markdown:
 * @self: a #ZotMarkdownView
 * @markdown: (nullable): CommonMark text; invalid UTF-8 is repaired
 *
 * Replaces what the view shows.
 */
void
zot_markdown_view_set_markdown (ZotMarkdownView *self,
                                const char      *markdown)
{
  GtkWidget *child;

  g_return_if_fail (ZOT_IS_MARKDOWN_VIEW (self));

  g_free (self->markdown);
  self->markdown = g_utf8_make_valid (markdown ? markdown : "", -1);

  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);

  render (self);
}

/**
 * zot_markdown_view_get_markdown:
 * @self: a #ZotMarkdownView
 *
 * Returns: the text last set, made valid UTF-8
 */
const char *
zot_markdown_view_get_markdown (ZotMarkdownView *self)
{
  g_return_val_if_fail (ZOT_IS_MARKDOWN_VIEW (self), NULL);

  return self->markdown;
}
