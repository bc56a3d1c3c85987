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

enum {
  PROP_0,
  PROP_ID,
  PROP_TITLE,
  PROP_SUBTITLE,
  PROP_ICON_NAME,
  PROP_CHECKED,
  PROP_ACTIVATABLE,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotPanelRowItem, zot_panel_row_item, G_TYPE_OBJECT)

static void
zot_panel_row_item_finalize (GObject *object)
{
  ZotPanelRowItem *self = (ZotPanelRowItem *)object;

  g_clear_pointer (&self->row, zot_panel_row_unref);

  G_OBJECT_CLASS (zot_panel_row_item_parent_class)->finalize (object);
}

static void
zot_panel_row_item_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  ZotPanelRowItem *self = ZOT_PANEL_ROW_ITEM (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->row->id);
      break;

    case PROP_TITLE:
      g_value_set_string (value, self->row->title);
      break;

    case PROP_SUBTITLE:
      g_value_set_string (value, self->row->subtitle);
      break;

    case PROP_ICON_NAME:
      g_value_set_string (value, self->row->icon);
      break;

    case PROP_CHECKED:
      g_value_set_int (value, self->row->checked);
      break;

    case PROP_ACTIVATABLE:
      g_value_set_boolean (value, self->row->activatable);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_row_item_class_init (ZotPanelRowItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = zot_panel_row_item_finalize;
  object_class->get_property = zot_panel_row_item_get_property;

  /* The row's fields, for the list's row widgets to bind to. A row never
   * changes, so these never notify. */
  properties [PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties [PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties [PROP_SUBTITLE] =
    g_param_spec_string ("subtitle", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties [PROP_ICON_NAME] =
    g_param_spec_string ("icon-name", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * ZotPanelRowItem:checked:
   *
   * -1 for a row without a check box, else 0 or 1.
   */
  properties [PROP_CHECKED] =
    g_param_spec_int ("checked", NULL, NULL, -1, 1, -1, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties [PROP_ACTIVATABLE] =
    g_param_spec_boolean ("activatable", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
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
