/* zot-find-text.c — where the find bar's text is, and its marks.
 *
 * Matching folds case (g_utf8_casefold) a character at a time, keeping
 * where each folded character came from, so that a match's range is in
 * the bytes of the text as shown, whatever folding did to its length.
 *
 * The marks are on the text itself, not on the message around it: a
 * label gets Pango background attributes over each match, a text view
 * (long text, code) text tags. Every match in view is marked; the
 * current one in a stronger colour. The colours are fixed, with dark
 * text on them, as a printed highlighter's: readable in light and dark.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <string.h>

#include "zot-find-text.h"

#define MARKED_KEY      "zot-find-marked"
#define WALKED_KEY      "zot-find-walked"
#define MATCH_TAG       "zot-find-match"
#define CURRENT_TAG     "zot-find-current"
/* Yellow 2 and Orange 2 of the GNOME palette; Dark 5 on them. */
#define MATCH_COLOR     "#f9f06b"
#define CURRENT_COLOR   "#ffa348"
#define TEXT_COLOR      "#000000"

/**
 * zot_find_text_ranges:
 * @text: (nullable): where to look
 * @needle: what to look for, already case folded
 *
 * Returns: (transfer full) (element-type ZotFindRange): the matches, in
 *   order, none overlapping
 */
GArray *
zot_find_text_ranges (const char *text,
                      const char *needle)
{
  GArray *ranges = g_array_new (FALSE, FALSE, sizeof (ZotFindRange));
  g_autoptr(GString) folded = NULL;
  g_autoptr(GArray) origin = NULL;     /* folded byte → text byte of its character */
  gsize needle_len;
  const char *p;

  if (text == NULL || needle == NULL || *needle == '\0' || !g_utf8_validate (text, -1, NULL))
    return ranges;

  needle_len = strlen (needle);
  folded = g_string_sized_new (strlen (text));
  origin = g_array_sized_new (FALSE, FALSE, sizeof (gsize), strlen (text) + 1);
  for (p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      const char *next = g_utf8_next_char (p);
      g_autofree char *one = g_utf8_casefold (p, next - p);
      gsize at = p - text;

      g_string_append (folded, one);
      for (gsize i = 0; one[i] != '\0'; i++)
        g_array_append_val (origin, at);
    }
  {
    gsize end = p - text;

    g_array_append_val (origin, end);
  }

  for (const char *hit = strstr (folded->str, needle); hit != NULL; hit = strstr (hit + needle_len, needle))
    {
      gsize first = hit - folded->str;
      gsize last = first + needle_len;   /* the folded byte after the match */
      ZotFindRange range;

      range.start = g_array_index (origin, gsize, first);
      /* The end is the start of the text's next character, unless the
       * match ended inside one character's folding. */
      range.end = g_array_index (origin, gsize, last);
      if (last < folded->len && range.end == g_array_index (origin, gsize, last - 1))
        range.end = g_utf8_next_char (text + range.end) - text;
      g_array_append_val (ranges, range);
    }

  return ranges;
}

guint
zot_find_text_count (const char *text,
                     const char *needle)
{
  g_autoptr(GArray) ranges = zot_find_text_ranges (text, needle);

  return ranges->len;
}

static void
clear_label (GtkLabel *label)
{
  if (g_object_get_data (G_OBJECT (label), MARKED_KEY) == NULL)
    return;
  gtk_label_set_attributes (label, NULL);
  g_object_set_data (G_OBJECT (label), MARKED_KEY, NULL);
}

static void
mark_label (GtkLabel   *label,
            const char *needle,
            int        *current)
{
  g_autoptr(GArray) ranges = NULL;
  g_autoptr(PangoAttrList) attrs = NULL;

  clear_label (label);
  ranges = zot_find_text_ranges (gtk_label_get_text (label), needle);
  if (ranges->len == 0)
    return;

  attrs = pango_attr_list_new ();
  for (guint i = 0; i < ranges->len; i++)
    {
      ZotFindRange *range = &g_array_index (ranges, ZotFindRange, i);
      PangoColor color;
      PangoAttribute *background;
      PangoAttribute *foreground;

      pango_color_parse (&color, *current == 0 ? CURRENT_COLOR : MATCH_COLOR);
      background = pango_attr_background_new (color.red, color.green, color.blue);
      pango_color_parse (&color, TEXT_COLOR);
      foreground = pango_attr_foreground_new (color.red, color.green, color.blue);
      background->start_index = foreground->start_index = range->start;
      background->end_index = foreground->end_index = range->end;
      pango_attr_list_insert (attrs, background);
      pango_attr_list_insert (attrs, foreground);
      (*current)--;
    }
  gtk_label_set_attributes (label, attrs);
  g_object_set_data (G_OBJECT (label), MARKED_KEY, GINT_TO_POINTER (TRUE));
}

static GtkTextTag *
ensure_tag (GtkTextBuffer *buffer,
            const char    *name,
            const char    *color)
{
  GtkTextTagTable *table = gtk_text_buffer_get_tag_table (buffer);
  GtkTextTag *tag = gtk_text_tag_table_lookup (table, name);

  if (tag == NULL)
    tag = gtk_text_buffer_create_tag (buffer, name, "background", color, "foreground", TEXT_COLOR, NULL);
  /* Over the syntax highlighting, whose tags come later. */
  gtk_text_tag_set_priority (tag, gtk_text_tag_table_get_size (table) - 1);
  return tag;
}

static void
clear_text_view (GtkTextView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextTagTable *table = gtk_text_buffer_get_tag_table (buffer);
  GtkTextIter start;
  GtkTextIter end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  if (gtk_text_tag_table_lookup (table, MATCH_TAG) != NULL)
    gtk_text_buffer_remove_tag_by_name (buffer, MATCH_TAG, &start, &end);
  if (gtk_text_tag_table_lookup (table, CURRENT_TAG) != NULL)
    gtk_text_buffer_remove_tag_by_name (buffer, CURRENT_TAG, &start, &end);
}

static void
mark_text_view (GtkTextView *view,
                const char  *needle,
                int         *current)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter start;
  GtkTextIter end;
  g_autofree char *text = NULL;
  g_autoptr(GArray) ranges = NULL;

  clear_text_view (view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  ranges = zot_find_text_ranges (text, needle);
  for (guint i = 0; i < ranges->len; i++)
    {
      ZotFindRange *range = &g_array_index (ranges, ZotFindRange, i);
      GtkTextTag *tag = *current == 0 ? ensure_tag (buffer, CURRENT_TAG, CURRENT_COLOR)
                                      : ensure_tag (buffer, MATCH_TAG, MATCH_COLOR);

      gtk_text_buffer_get_iter_at_offset (buffer, &start, g_utf8_pointer_to_offset (text, text + range->start));
      gtk_text_buffer_get_iter_at_offset (buffer, &end, g_utf8_pointer_to_offset (text, text + range->end));
      gtk_text_buffer_apply_tag (buffer, tag, &start, &end);
      (*current)--;
    }
}

static void
mark (GtkWidget  *widget,
      const char *needle,
      int        *current,
      guint      *n_marked)
{
  int before = *current;

  if (GTK_IS_LABEL (widget))
    {
      if (needle != NULL && gtk_widget_get_visible (widget))
        mark_label (GTK_LABEL (widget), needle, current);
      else
        clear_label (GTK_LABEL (widget));
      *n_marked += before - *current;
      return;
    }
  if (GTK_IS_TEXT_VIEW (widget))
    {
      if (needle != NULL && gtk_widget_get_visible (widget))
        mark_text_view (GTK_TEXT_VIEW (widget), needle, current);
      else
        clear_text_view (GTK_TEXT_VIEW (widget));
      *n_marked += before - *current;
      return;
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    mark (child, gtk_widget_get_visible (widget) ? needle : NULL, current, n_marked);
}

/**
 * zot_find_text_mark:
 * @widget: a message's row, or any widget
 * @needle: (nullable): what to mark, case folded; %NULL takes the marks away
 * @current: which match is the current one, counted from 0 through the
 *   labels and text views under @widget in order; -1 for none
 *
 * Marks every match of @needle in the text that @widget's shown labels
 * and text views show, and takes away the marks of an earlier call.
 *
 * Returns: how many matches it marked
 */
guint
zot_find_text_mark (GtkWidget  *widget,
                    const char *needle,
                    int         current)
{
  guint n_marked = 0;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), 0);

  if (needle != NULL && *needle == '\0')
    needle = NULL;
  /* Every row the view binds comes here: one never marked has nothing
   * to take away, and its widgets need no walk. */
  if (needle == NULL && g_object_get_data (G_OBJECT (widget), WALKED_KEY) == NULL)
    return 0;
  mark (widget, needle, &current, &n_marked);
  g_object_set_data (G_OBJECT (widget), WALKED_KEY, needle != NULL ? GINT_TO_POINTER (TRUE) : NULL);
  return n_marked;
}
