/* zot-bounded-text.c — see zot-bounded-text.h. */
#define G_LOG_DOMAIN "zot-bounded-text"

#include "config.h"

#include "zot-bounded-text.h"
#include "zot-limits.h"

/**
 * zot_bounded_text_head:
 * @text: (nullable): text from outside
 * @max_chars: the most characters to keep
 * @out_cut: (out) (optional): set to whether any were left out
 *
 * Returns: (transfer full): @text, or its first @max_chars characters
 *   and "…"
 */
char *
zot_bounded_text_head (const char *text,
                       guint       max_chars,
                       gboolean   *out_cut)
{
  g_autofree char *head = NULL;
  const char *end;

  if (text == NULL)
    text = "";

  end = text;
  for (guint i = 0; i < max_chars && *end != '\0'; i++)
    end = g_utf8_next_char (end);

  if (out_cut != NULL)
    *out_cut = *end != '\0';
  if (*end == '\0')
    return g_strdup (text);
  head = g_strndup (text, end - text);
  return g_strconcat (head, "…", NULL);
}

/**
 * zot_bounded_text_wrap_mode:
 * @text: (nullable): text a label shows
 *
 * Returns: %PANGO_WRAP_CHAR when @text has a run of more than
 *   ZOT_TEXT_UNBROKEN_MAX_CHARS characters without white space, which
 *   Pango cannot wrap by word and character in reasonable time;
 *   %PANGO_WRAP_WORD_CHAR otherwise
 */
PangoWrapMode
zot_bounded_text_wrap_mode (const char *text)
{
  guint run = 0;

  for (const char *p = text; p != NULL && *p != '\0'; p = g_utf8_next_char (p))
    {
      if (g_unichar_isspace (g_utf8_get_char (p)))
        run = 0;
      else if (++run > ZOT_TEXT_UNBROKEN_MAX_CHARS)
        return PANGO_WRAP_CHAR;
    }
  return PANGO_WRAP_WORD_CHAR;
}

/**
 * zot_bounded_text_show_all:
 * @from: the widget whose window the new one belongs to
 * @title: the new window's title
 * @text: all of the text
 *
 * Opens a window with all of @text, monospace, in a view that scrolls
 * both ways and does not wrap: a line laid out once, whatever its length.
 */
void
zot_bounded_text_show_all (GtkWidget  *from,
                           const char *title,
                           const char *text)
{
  GtkRoot *root = gtk_widget_get_root (from);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_text_view_new ();

  gtk_window_set_title (GTK_WINDOW (window), title);
  if (GTK_IS_WINDOW (root))
    gtk_window_set_transient_for (GTK_WINDOW (window), GTK_WINDOW (root));
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (window), TRUE);

  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_NONE);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), text, -1);
  gtk_widget_add_css_class (view, "bounded-text-all");

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_present (GTK_WINDOW (window));
}
