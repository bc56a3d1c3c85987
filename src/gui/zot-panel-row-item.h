/* zot-panel-row-item.h — one row of a panel's list, as a list model item. */
#pragma once

#include <glib-object.h>

#include "zot-panel-widgets.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PANEL_ROW_ITEM (zot_panel_row_item_get_type ())
G_DECLARE_FINAL_TYPE (ZotPanelRowItem, zot_panel_row_item, ZOT, PANEL_ROW_ITEM, GObject)

ZotPanelRowItem *zot_panel_row_item_new     (ZotPanelRow     *row);
ZotPanelRow     *zot_panel_row_item_get_row (ZotPanelRowItem *self);

G_END_DECLS
