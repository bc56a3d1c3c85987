/* zot-wrap-safe-gtk.h — labels and text views that Pango 1.50 can wrap.
 *
 * See zot-wrap-safe.h for the Pango assertion these avoid. Text that is
 * only shown is repaired; text that someone copies or sends as it is
 * stays as it is, and its widget wraps by character (never affected)
 * while it holds a degenerate cluster, by word and character otherwise.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-wrap-safe.h"

G_BEGIN_DECLS

void zot_wrap_safe_label_set_text      (GtkLabel    *label,
                                        const char  *text);
void zot_wrap_safe_label_set_markup    (GtkLabel    *label,
                                        const char  *markup);
void zot_wrap_safe_label_set_verbatim  (GtkLabel    *label,
                                        const char  *text);
void zot_wrap_safe_text_view_set_text  (GtkTextView *view,
                                        const char  *text,
                                        gssize       len);
void zot_wrap_safe_text_view_watch     (GtkTextView *view);

G_END_DECLS
