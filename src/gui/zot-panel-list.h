/* zot-panel-list.h — a panel's list widget, recycled rows for long lists. */
#pragma once

#include <gtk/gtk.h>

#include "zot-panel-widgets.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PANEL_LIST (zot_panel_list_get_type ())
G_DECLARE_FINAL_TYPE (ZotPanelList, zot_panel_list, ZOT, PANEL_LIST, GtkWidget)

GtkWidget   *zot_panel_list_new       (void);
void         zot_panel_list_update    (ZotPanelList *self,
                                       ZotPanelNode *node);
GListModel  *zot_panel_list_get_model (ZotPanelList *self);
GtkListView *zot_panel_list_get_view  (ZotPanelList *self);

G_END_DECLS
