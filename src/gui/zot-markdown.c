/* zot-markdown.c — Markdown rendered into GTK widgets.
 *
 * zot-markdown-walk.c parses and decides the blocks (see its bounds on
 * untrusted input); this file makes the widgets: a vertical box of
 * selectable, wrapping labels for text blocks, boxes for lists and quotes,
 * grids for items, read-only text views for long text, and highlighted
 * GtkSourceViews with a copy button for code blocks.
 */
#define G_LOG_DOMAIN "zot-markdown"

#include "config.h"

#include <glib/gi18n.h>
#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "zot-accessible.h"
#include "zot-markdown.h"
#include "zot-markdown-private.h"
#include "zot-tooltip.h"
#include "zot-wrap-safe-gtk.h"

struct _ZotMarkdownView
{
  GtkWidget            parent_instance;

  GtkWidget           *box;
  ZotMarkdownDocument *document;
};

G_DEFINE_FINAL_TYPE (ZotMarkdownView, zot_markdown_view, GTK_TYPE_WIDGET)

static gboolean
on_label_activate_link_cb (GtkLabel   *label,
                           const char *uri,
                           gpointer    user_data)
{
  GtkRoot *root;

  /* Handled either way: the default handler would open any scheme. */
  if (!_zot_markdown_uri_is_openable (uri))
    return TRUE;

  root = gtk_widget_get_root (GTK_WIDGET (label));
  gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);
  return TRUE;
}

/**
 * _zot_markdown_label_new:
 *
 * Returns: (transfer floating): an empty label as the view shows text:
 *   selectable, wrapping, aligned to the start
 */
GtkWidget *
_zot_markdown_label_new (void)
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

/**
 * _zot_markdown_text_view_new:
 * @text: (nullable): its text, lines already broken
 *
 * The text is kept as it is, to be copied: the view wraps by character
 * if it holds a cluster that Pango cannot wrap by word (zot-wrap-safe.h).
 *
 * Returns: (transfer floating): a read-only text view for text too long
 *   for a label
 */
GtkWidget *
_zot_markdown_text_view_new (const char *text)
{
  GtkWidget *view = gtk_text_view_new ();

  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  if (text != NULL)
    zot_wrap_safe_text_view_set_text (GTK_TEXT_VIEW (view), text, -1);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_widget_set_hexpand (view, TRUE);
  gtk_widget_add_css_class (view, "plain-text");

  return view;
}

static GtkWidget *
create_markup_label (const char *markup)
{
  GtkWidget *label = _zot_markdown_label_new ();

  zot_wrap_safe_label_set_markup (GTK_LABEL (label), markup);
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

/* @word: the first word of the fence info, lower case, or NULL */
static GtkSourceLanguage *
guess_language (const char *word)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
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

/* A read-only view of @text, highlighted as @language (or plain when
 * NULL), that follows the light or dark style for as long as it lives.
 * Long lines do not wrap: code is read with its lines whole. */
GtkWidget *
_zot_source_view_new (const char        *text,
                      GtkSourceLanguage *language)
{
  g_autoptr(GtkSourceBuffer) buffer = gtk_source_buffer_new (NULL);
  GtkWidget *view;

  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (buffer), text, -1);
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
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_NONE);
  return view;
}

static void
on_copy_button_clicked_cb (GtkButton *button,
                           gpointer   user_data)
{
  const char *code = user_data;

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), code ? code : "");
}

/* A scroller inside a message that scrolls sideways only. GtkScrolledWindow
 * stops every scroll event once it can scroll on either axis, so a wheel
 * turned over a code block would stop the transcript; with its scroll
 * controller told to see horizontal scrolling only, vertical scrolling
 * goes on to the transcript. */
GtkWidget *
_zot_sideways_scroller_new (void)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (scroller);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller))
        gtk_event_controller_scroll_set_flags (GTK_EVENT_CONTROLLER_SCROLL (controller),
                                               GTK_EVENT_CONTROLLER_SCROLL_HORIZONTAL |
                                               GTK_EVENT_CONTROLLER_SCROLL_KINETIC);
    }

  return scroller;
}

static GtkWidget *
create_code_block (const char *code,
                   const char *shown,
                   const char *word)
{
  GtkWidget *overlay;
  GtkWidget *scroller;
  GtkWidget *view;
  GtkWidget *button;
  g_autofree char *name = zot_accessible_code_block_name (word);

  /* Long lines scroll sideways inside the block, as code is read. */
  view = _zot_source_view_new (shown, guess_language (word));
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 10);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 36);
  gtk_widget_set_hexpand (view, TRUE);
  gtk_widget_add_css_class (view, "markdown-code");
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);

  button = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  /* Translators: tooltip of the button that copies a code block of the conversation */
  zot_tooltip_set (button, _("Copy"));
  gtk_widget_set_halign (button, GTK_ALIGN_END);
  gtk_widget_set_valign (button, GTK_ALIGN_START);
  gtk_widget_set_margin_top (button, 4);
  gtk_widget_set_margin_end (button, 4);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "circular");
  gtk_widget_add_css_class (button, "markdown-copy");
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  /* Translators: the name screen readers give the button that
                                   * copies a code block */
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Copy code"),
                                  -1);
  g_signal_connect_data (button, "clicked", G_CALLBACK (on_copy_button_clicked_cb),
                         g_strdup (code), (GClosureNotify) (void (*) (void)) g_free, 0);

  scroller = _zot_sideways_scroller_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);

  overlay = gtk_overlay_new ();
  gtk_widget_add_css_class (overlay, "markdown-code-block");
  gtk_widget_set_overflow (overlay, GTK_OVERFLOW_HIDDEN);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), scroller);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), button);

  return overlay;
}

/* The widgets of the blocks */

static GtkWidget *
append_box (gpointer    parent,
            int         spacing,
            const char *css_class)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, spacing);

  gtk_widget_add_css_class (box, css_class);
  gtk_box_append (GTK_BOX (parent), box);
  return box;
}

static gpointer
add_list (gpointer  parent,
          gboolean  tight,
          gpointer  user_data)
{
  return append_box (parent, tight ? 4 : 8, "markdown-list");
}

/* A grid, not a horizontal box. A box finds its height for a width by
 * searching for the height at which its children's widths fit, so it asks
 * the wrapping labels of the content for their width at a given height.
 * GtkLabel answers from Pango layouts, and Pango lets white space hang
 * past the wrap width (a tab reaches to its next stop): a label's width at
 * any height can be more than the minimum width it reports (the text
 * _""= then a tab then " x" reports 43 px and needs 64). An item
 * given its minimum width, as in a window at its narrowest, then fails
 * with "Expect overlapping widgets". A grid gives the content the width
 * the marker leaves and asks only its height for that width. */
static gpointer
add_item (gpointer    parent,
          const char *marker,
          gpointer    user_data)
{
  GtkWidget *row;
  GtkWidget *marker_label;
  GtkWidget *content;

  row = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (row), 6);
  gtk_widget_add_css_class (row, "markdown-item");

  marker_label = gtk_label_new (marker);
  gtk_label_set_xalign (GTK_LABEL (marker_label), 1.0);
  gtk_widget_set_valign (marker_label, GTK_ALIGN_START);
  gtk_widget_add_css_class (marker_label, "markdown-marker");
  gtk_grid_attach (GTK_GRID (row), marker_label, 0, 0, 1, 1);

  content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_hexpand (content, TRUE);
  gtk_grid_attach (GTK_GRID (row), content, 1, 0, 1, 1);

  gtk_box_append (GTK_BOX (parent), row);
  return content;
}

static gpointer
add_quote (gpointer parent,
           gpointer user_data)
{
  return append_box (parent, 8, "markdown-quote");
}

static void
add_text (gpointer    parent,
          const char *markup,
          int         heading_level,
          gpointer    user_data)
{
  GtkWidget *label = create_markup_label (markup);

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

  gtk_box_append (GTK_BOX (parent), label);
}

static void
add_text_view (gpointer    parent,
               const char *text,
               gboolean    monospace,
               gpointer    user_data)
{
  GtkWidget *view = _zot_markdown_text_view_new (text);

  if (monospace)
    gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_box_append (GTK_BOX (parent), view);
}

static void
add_literal (gpointer    parent,
             const char *text,
             gpointer    user_data)
{
  GtkWidget *label = _zot_markdown_label_new ();

  zot_wrap_safe_label_set_text (GTK_LABEL (label), text);
  gtk_widget_add_css_class (label, "monospace");
  gtk_box_append (GTK_BOX (parent), label);
}

static void
add_code (gpointer    parent,
          const char *code,
          const char *shown,
          const char *language,
          gpointer    user_data)
{
  gtk_box_append (GTK_BOX (parent), create_code_block (code, shown, language));
}

static void
add_separator (gpointer parent,
               gpointer user_data)
{
  GtkWidget *separator = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);

  gtk_widget_set_margin_top (separator, 6);
  gtk_widget_set_margin_bottom (separator, 6);
  gtk_box_append (GTK_BOX (parent), separator);
}

/* A grid in a horizontal scroller: a wide table scrolls inside its block
 * rather than widening the message. */
static gpointer
add_table (gpointer parent,
           int      n_columns,
           gpointer user_data)
{
  GtkWidget *scroller = _zot_sideways_scroller_new ();
  GtkWidget *grid = gtk_grid_new ();

  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_widget_add_css_class (scroller, "markdown-table-block");
  gtk_widget_add_css_class (grid, "markdown-table");
  gtk_widget_set_halign (grid, GTK_ALIGN_START);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), grid);
  gtk_box_append (GTK_BOX (parent), scroller);
  return grid;
}

static void
add_table_cell (gpointer    table,
                int         row,
                int         column,
                const char *markup,
                gboolean    header,
                gpointer    user_data)
{
  GtkWidget *label = create_markup_label (markup);

  /* Cells keep their lines: the grid scrolls instead. */
  gtk_label_set_wrap (GTK_LABEL (label), FALSE);
  gtk_widget_set_hexpand (label, FALSE);
  gtk_widget_add_css_class (label, "markdown-cell");
  if (header)
    gtk_widget_add_css_class (label, "heading");
  gtk_grid_attach (GTK_GRID (table), label, column, row, 1, 1);
}

static const ZotMarkdownSink widget_sink = {
  add_list,
  add_item,
  add_quote,
  add_text,
  add_text_view,
  add_literal,
  add_code,
  add_separator,
  add_table,
  add_table_cell,
};

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

  g_clear_pointer (&self->document, zot_markdown_document_unref);

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
  g_autoptr(ZotMarkdownDocument) document = NULL;

  g_return_if_fail (ZOT_IS_MARKDOWN_VIEW (self));

  document = zot_markdown_document_new (markdown);
  zot_markdown_view_set_document (self, document);
}

/**
 * zot_markdown_view_set_document:
 * @self: a #ZotMarkdownView
 * @document: (nullable): Markdown already walked, or %NULL for nothing
 *
 * Replaces what the view shows without parsing again: the view is built
 * from the blocks @document keeps.
 */
void
zot_markdown_view_set_document (ZotMarkdownView     *self,
                                ZotMarkdownDocument *document)
{
  GtkWidget *child;

  g_return_if_fail (ZOT_IS_MARKDOWN_VIEW (self));

  if (document != NULL)
    zot_markdown_document_ref (document);
  g_clear_pointer (&self->document, zot_markdown_document_unref);
  self->document = document;

  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);

  if (document != NULL)
    zot_markdown_document_replay (document, &widget_sink, self->box, NULL);
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

  return self->document != NULL ? zot_markdown_document_get_text (self->document) : "";
}
