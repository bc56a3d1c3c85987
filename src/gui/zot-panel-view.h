/* zot-panel-view.h — one extension panel: its title, its lines with their
 * ANSI attributes, its footer, and the keys the user types into it. */
#pragma once

#include <gtk/gtk.h>

#include "zot-panel.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PANEL_VIEW (zot_panel_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotPanelView, zot_panel_view, ZOT, PANEL_VIEW, GtkWidget)

GtkWidget *zot_panel_view_new       (ZotPanel     *panel);
ZotPanel  *zot_panel_view_get_panel (ZotPanelView *self);

G_END_DECLS
