/* zot-bounded-text.h — text from outside that the window can lay out.
 *
 * Pango wraps a run without a break point by word and character in time
 * that grows much faster than its length (8,000 characters: 13 s; 50 KiB:
 * minutes), and by character in time that still grows with it. A label
 * of outside text shows at most ZOT_PANEL_TEXT_SHOWN_MAX_CHARS of it,
 * wrapped by character when a run passes ZOT_TEXT_UNBROKEN_MAX_CHARS, and
 * the rest is a "Show all" away, in a view that does not wrap.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

char          *zot_bounded_text_head       (const char *text,
                                            guint       max_chars,
                                            gboolean   *out_cut);
PangoWrapMode  zot_bounded_text_wrap_mode  (const char *text);
void           zot_bounded_text_show_all   (GtkWidget  *from,
                                            const char *title,
                                            const char *text);

G_END_DECLS
