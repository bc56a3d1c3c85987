/* zot-panel-list-row.h — one row of a panel's list. */
#pragma once

#include <gtk/gtk.h>

#include "zot-panel-row-item.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PANEL_LIST_ROW (zot_panel_list_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotPanelListRow, zot_panel_list_row, ZOT, PANEL_LIST_ROW, GtkWidget)

GtkWidget       *zot_panel_list_row_new      (void);
ZotPanelRowItem *zot_panel_list_row_get_item (ZotPanelListRow *self);
void             zot_panel_list_row_set_item (ZotPanelListRow *self,
                                              ZotPanelRowItem *item);

G_END_DECLS
