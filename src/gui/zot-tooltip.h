/* zot-tooltip.h — tooltips that cost nothing until they are shown.
 *
 * gtk_widget_set_tooltip_text() on a visible widget asks the display
 * where the pointer is, in case the tooltip under it must change. On X11
 * that is three round trips to the server, and a transcript row sets a
 * few tooltips each time it is made or bound: hundreds of round trips
 * before a long conversation's first frame. These tooltips are given
 * when GTK asks for them instead, and are the widget's accessible
 * description all the same.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void        zot_tooltip_set  (GtkWidget  *widget,
                              const char *text);
const char *zot_tooltip_get  (GtkWidget  *widget);

G_END_DECLS
