/* zot-panel-widgets-view.h — the factory of a panel's native widgets. */
#pragma once

#include <gtk/gtk.h>

#include "zot-panel.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PANEL_WIDGETS_VIEW (zot_panel_widgets_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotPanelWidgetsView, zot_panel_widgets_view, ZOT, PANEL_WIDGETS_VIEW, GtkWidget)

GtkWidget *zot_panel_widgets_view_new          (ZotPanel            *panel);
void       zot_panel_widgets_view_render       (ZotPanelWidgetsView *self,
                                                ZotPanelNode        *root);
GtkWidget *zot_panel_widgets_view_lookup       (ZotPanelWidgetsView *self,
                                                const char          *id);
guint      zot_panel_widgets_view_get_n_errors (ZotPanelWidgetsView *self);

G_END_DECLS
