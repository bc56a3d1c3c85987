/* zot-panel-row-item.c — one row of a panel's list, as a list model item.
 *
 * The row itself is the core's validated, refcounted ZotPanelRow: the item
 * only holds it, so a list of 10,000 rows costs 10,000 small objects and no
 * copies. A row never changes; a re-render that changes one replaces its
 * item. */
#define G_LOG_DOMAIN "zot-panel"

#include "config.h"

#include "zot-panel-row-item.h"

struct _ZotPanelRowItem
{
  GObject      parent_instance;

  ZotPanelRow *row;
};

G_DEFINE_FINAL_TYPE (ZotPanelRowItem, zot_panel_row_item, G_TYPE_OBJECT)

static void
zot_panel_row_item_finalize (GObject *object)
{
  ZotPanelRowItem *self = (ZotPanelRowItem *)object;

  g_clear_pointer (&self->row, zot_panel_row_unref);

  G_OBJECT_CLASS (zot_panel_row_item_parent_class)->finalize (object);
}

static void
zot_panel_row_item_class_init (ZotPanelRowItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zot_panel_row_item_finalize;
}

static void
zot_panel_row_item_init (ZotPanelRowItem *self)
{
}

ZotPanelRowItem *
zot_panel_row_item_new (ZotPanelRow *row)
{
  ZotPanelRowItem *self;

  g_return_val_if_fail (row != NULL, NULL);

  self = g_object_new (ZOT_TYPE_PANEL_ROW_ITEM, NULL);
  self->row = zot_panel_row_ref (row);
  return self;
}

ZotPanelRow *
zot_panel_row_item_get_row (ZotPanelRowItem *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_ROW_ITEM (self), NULL);
  return self->row;
}
