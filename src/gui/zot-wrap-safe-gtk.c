/* zot-wrap-safe-gtk.c — zot-wrap-safe.c applied to labels and text views.
 *
 * Each function here owns the wrap mode of its widget: word and character
 * when the text is safe, character when it is not (Pango's character
 * wrapping never aborts). A watched text view is edited, so it is checked
 * around each change rather than whole on each keystroke.
 */
#define G_LOG_DOMAIN "zot-wrap-safe"

#include "config.h"

#include "zot-wrap-safe-gtk.h"

/* A watched buffer holding a degenerate cluster is scanned whole after
 * each change, to see whether the last one went; not past this size,
 * where it keeps wrapping by character. */
#define WATCH_RESCAN_MAX_CHARS (64 * 1024)

static void
set_label_safe (GtkLabel *label,
                gboolean  safe)
{
  gtk_label_set_wrap_mode (label, safe ? PANGO_WRAP_WORD_CHAR : PANGO_WRAP_CHAR);
}

static void
set_text_view_safe (GtkTextView *view,
                    gboolean     safe)
{
  GtkWrapMode mode = safe ? GTK_WRAP_WORD_CHAR : GTK_WRAP_CHAR;

  if (gtk_text_view_get_wrap_mode (view) != mode)
    gtk_text_view_set_wrap_mode (view, mode);
}

/**
 * zot_wrap_safe_label_set_text:
 * @label: a label that wraps by word and character
 * @text: (nullable): text to show, which may come from anywhere
 *
 * Shows @text repaired by zot_wrap_safe_text(): for labels that are only
 * read, never copied from as a source of exact text.
 */
void
zot_wrap_safe_label_set_text (GtkLabel   *label,
                              const char *text)
{
  g_autofree char *safe = NULL;

  g_return_if_fail (GTK_IS_LABEL (label));

  safe = zot_wrap_safe_text (text, -1);
  gtk_label_set_text (label, safe);
}

/**
 * zot_wrap_safe_label_set_markup:
 * @label: a label that wraps
 * @markup: Pango markup, its text already repaired where it was escaped
 *
 * Sets @markup as it is. Markup is never rewritten: if its text still
 * holds a degenerate cluster (written as an entity, say), @label wraps by
 * character.
 */
void
zot_wrap_safe_label_set_markup (GtkLabel   *label,
                                const char *markup)
{
  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_label_set_markup (label, markup);
  set_label_safe (label, zot_wrap_safe_check (gtk_label_get_text (label), -1));
}

/**
 * zot_wrap_safe_label_set_verbatim:
 * @label: a label that wraps
 * @text: (nullable): text to show exactly, such as a tool's output
 *
 * Shows @text unchanged, wrapped by character if it holds a degenerate
 * cluster.
 */
void
zot_wrap_safe_label_set_verbatim (GtkLabel   *label,
                                  const char *text)
{
  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_label_set_text (label, text ? text : "");
  set_label_safe (label, zot_wrap_safe_check (gtk_label_get_text (label), -1));
}

/**
 * zot_wrap_safe_text_view_set_text:
 * @view: a text view that wraps
 * @text: (nullable): valid UTF-8 to show exactly, such as code to copy
 * @len: the length of @text in bytes, or -1 if it ends with a nul byte
 *
 * Replaces the buffer's text with @text unchanged, and wraps by character
 * if it holds a degenerate cluster.
 */
void
zot_wrap_safe_text_view_set_text (GtkTextView *view,
                                  const char  *text,
                                  gssize       len)
{
  g_return_if_fail (GTK_IS_TEXT_VIEW (view));

  if (text == NULL)
    {
      text = "";
      len = 0;
    }
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (view), text, (int) len);
  set_text_view_safe (view, zot_wrap_safe_check (text, len));
}

/* Watched text views */

static gunichar
char_before (const GtkTextIter *iter)
{
  GtkTextIter before = *iter;

  if (!gtk_text_iter_backward_char (&before))
    return 0;
  return gtk_text_iter_get_char (&before);
}

static gboolean
buffer_is_safe (GtkTextBuffer *buffer)
{
  GtkTextIter start;
  GtkTextIter end;
  g_autofree char *text = NULL;

  if (gtk_text_buffer_get_char_count (buffer) > WATCH_RESCAN_MAX_CHARS)
    return FALSE;

  /* A slice, as the view lays it out: U+FFFC stands for each child. */
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_slice (buffer, &start, &end, TRUE);
  return zot_wrap_safe_check (text, -1);
}

/* @start, @end: the changed range, now holding @inserted (empty after a
 * deletion). A change makes new neighbours only at its two ends, so a safe
 * buffer needs only those checked. An unsafe one is scanned whole: the
 * change may have taken its last degenerate cluster. */
static void
watch_update (GtkTextView       *view,
              GtkTextBuffer     *buffer,
              const GtkTextIter *start,
              const char        *inserted,
              int                len,
              const GtkTextIter *end)
{
  g_autoptr(GString) around = NULL;

  if (gtk_text_view_get_wrap_mode (view) != GTK_WRAP_WORD_CHAR)
    {
      set_text_view_safe (view, buffer_is_safe (buffer));
      return;
    }

  around = g_string_new_len (inserted, len);
  if (!gtk_text_iter_is_end (end))
    g_string_append_unichar (around, gtk_text_iter_get_char (end));
  set_text_view_safe (view, zot_wrap_safe_check_after (char_before (start), around->str,
                                                       (gssize) around->len));
}

static void
on_watched_insert_text_cb (GtkTextBuffer *buffer,
                           GtkTextIter   *location,
                           const char    *text,
                           int            len,
                           GtkTextView   *view)
{
  GtkTextIter start = *location;

  /* After the default handler: @location is the end of the insertion. */
  gtk_text_iter_backward_chars (&start, (int) g_utf8_strlen (text, len));
  watch_update (view, buffer, &start, text, len, location);
}

static void
on_watched_delete_range_cb (GtkTextBuffer *buffer,
                            GtkTextIter   *start,
                            GtkTextIter   *end,
                            GtkTextView   *view)
{
  watch_update (view, buffer, start, "", 0, end);
}

/**
 * zot_wrap_safe_text_view_watch:
 * @view: an editable text view, with the buffer it keeps
 *
 * Keeps @view's wrap mode right as its buffer is edited: by character
 * while the buffer holds a degenerate cluster, by word and character
 * otherwise. The text itself is never changed: what the user typed is
 * what is sent.
 */
void
zot_wrap_safe_text_view_watch (GtkTextView *view)
{
  GtkTextBuffer *buffer;

  g_return_if_fail (GTK_IS_TEXT_VIEW (view));

  buffer = gtk_text_view_get_buffer (view);
  g_signal_connect_object (buffer, "insert-text", G_CALLBACK (on_watched_insert_text_cb),
                           view, G_CONNECT_AFTER);
  g_signal_connect_object (buffer, "delete-range", G_CALLBACK (on_watched_delete_range_cb),
                           view, G_CONNECT_AFTER);
  set_text_view_safe (view, buffer_is_safe (buffer));
}
