/* zot-panel-list.c — a panel's list widget: rows of title, subtitle, icon,
 * check box and buttons.
 *
 * Long lists must not stall the window, so the rows live in a GListStore
 * shown by a GtkListView, which builds widgets only for the rows on screen
 * and recycles them while scrolling. A re-render keeps the items of the
 * unchanged rows at both ends and splices only the middle, so the scroll
 * position and the focused row survive an update of a few rows.
 *
 * What the user does comes out as ::row-event with the protocol's event
 * and value: "activated" (the row id), "toggled" ({row, checked}) and
 * "button" ({row, button}); the rows (zot-panel-list-row.c) tell the list
 * through its "panel-list.toggle" and "panel-list.button" actions.
 */
#define G_LOG_DOMAIN "zot-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-panel-list.h"
#include "zot-panel-list-row.h"
#include "zot-panel-row-item.h"

struct _ZotPanelList
{
  GtkWidget          parent_instance;

  GListStore        *rows;
  GtkBox            *box;
  GtkLabel          *placeholder;
  GtkScrolledWindow *scroller;
  GtkListView       *view;
};

enum {
  ROW_EVENT,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotPanelList, zot_panel_list, GTK_TYPE_WIDGET)

static void
emit_row_event (ZotPanelList *self,
                const char   *event,
                JsonNode     *value)
{
  g_signal_emit (self, signals [ROW_EVENT], 0, event, value);
}

static void
toggle_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ZotPanelList *self = ZOT_PANEL_LIST (widget);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) value = NULL;
  const char *row_id;
  gboolean checked;

  g_variant_get (parameter, "(&sb)", &row_id, &checked);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "row");
  json_builder_add_string_value (builder, row_id);
  json_builder_set_member_name (builder, "checked");
  json_builder_add_boolean_value (builder, checked);
  json_builder_end_object (builder);
  value = json_builder_get_root (builder);
  emit_row_event (self, "toggled", value);
}

static void
button_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ZotPanelList *self = ZOT_PANEL_LIST (widget);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) value = NULL;
  const char *row_id;
  const char *button_id;

  g_variant_get (parameter, "(&s&s)", &row_id, &button_id);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "row");
  json_builder_add_string_value (builder, row_id);
  json_builder_set_member_name (builder, "button");
  json_builder_add_string_value (builder, button_id);
  json_builder_end_object (builder);
  value = json_builder_get_root (builder);
  emit_row_event (self, "button", value);
}

/* The row widget follows the list item's item; whether the list view
 * activates it follows the item's "activatable". */
static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *list_item,
          ZotPanelList             *self)
{
  GtkWidget *row = zot_panel_list_row_new ();
  GtkExpression *item = gtk_property_expression_new (ZOT_TYPE_PANEL_LIST_ROW, NULL, "item");
  GtkExpression *activatable = gtk_property_expression_new (ZOT_TYPE_PANEL_ROW_ITEM, item, "activatable");

  g_object_bind_property (list_item, "item", row, "item", G_BINDING_SYNC_CREATE);
  /* Evaluated on the row: GTK 4.8 trips over an expression bound with the
   * list item as both its object and its target. */
  gtk_expression_bind (activatable, list_item, "activatable", row);
  gtk_list_item_set_child (list_item, row);
}

static void
on_view_activate_cb (GtkListView  *view,
                     guint         position,
                     ZotPanelList *self)
{
  g_autoptr(ZotPanelRowItem) item = g_list_model_get_item (G_LIST_MODEL (self->rows), position);
  g_autoptr(JsonNode) value = NULL;
  ZotPanelRow *row;

  if (item == NULL)
    return;
  row = zot_panel_row_item_get_row (item);
  if (!row->activatable)
    return;

  value = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (value, row->id);
  emit_row_event (self, "activated", value);
}

static void
zot_panel_list_dispose (GObject *object)
{
  ZotPanelList *self = (ZotPanelList *)object;

  if (self->box != NULL)
    gtk_widget_unparent (GTK_WIDGET (g_steal_pointer (&self->box)));
  g_clear_object (&self->rows);

  G_OBJECT_CLASS (zot_panel_list_parent_class)->dispose (object);
}

static void
zot_panel_list_class_init (ZotPanelListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_panel_list_dispose;

  /**
   * ZotPanelList::row-event:
   * @event: "activated", "toggled" or "button"
   * @value: the event's value for `panel_event`
   */
  signals [ROW_EVENT] =
    g_signal_new ("row-event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, JSON_TYPE_NODE);

  gtk_widget_class_install_action (widget_class, "panel-list.toggle", "(sb)", toggle_action);
  gtk_widget_class_install_action (widget_class, "panel-list.button", "(ss)", button_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "panellist");
}

static void
zot_panel_list_init (ZotPanelList *self)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkNoSelection *selection;

  self->rows = g_list_store_new (ZOT_TYPE_PANEL_ROW_ITEM);
  self->box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 0));
  gtk_widget_set_parent (GTK_WIDGET (self->box), GTK_WIDGET (self));

  self->placeholder = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->placeholder, 0);
  gtk_label_set_wrap (self->placeholder, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->placeholder), "dim-label");
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder), FALSE);
  gtk_box_append (self->box, GTK_WIDGET (self->placeholder));

  g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), self);
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->rows)));
  self->view = GTK_LIST_VIEW (gtk_list_view_new (GTK_SELECTION_MODEL (selection), factory));
  gtk_list_view_set_show_separators (self->view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->view), "panel-list");
  g_signal_connect (self->view, "activate", G_CALLBACK (on_view_activate_cb), self);

  self->scroller = GTK_SCROLLED_WINDOW (gtk_scrolled_window_new ());
  gtk_scrolled_window_set_policy (self->scroller, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (self->scroller, TRUE);
  gtk_scrolled_window_set_has_frame (self->scroller, TRUE);
  gtk_scrolled_window_set_child (self->scroller, GTK_WIDGET (self->view));
  gtk_box_append (self->box, GTK_WIDGET (self->scroller));
}

GtkWidget *
zot_panel_list_new (void)
{
  return g_object_new (ZOT_TYPE_PANEL_LIST, NULL);
}

/**
 * zot_panel_list_update:
 * @node: a validated list node
 *
 * Shows @node's rows, keeping the items of unchanged rows at both ends.
 */
void
zot_panel_list_update (ZotPanelList *self,
                       ZotPanelNode *node)
{
  GListModel *model;
  guint old_n;
  guint new_n;
  guint prefix = 0;
  guint suffix = 0;
  g_autoptr(GPtrArray) items = NULL;

  g_return_if_fail (ZOT_IS_PANEL_LIST (self));
  g_return_if_fail (node != NULL && node->type == ZOT_PANEL_NODE_LIST);

  model = G_LIST_MODEL (self->rows);
  old_n = g_list_model_get_n_items (model);
  new_n = node->rows->len;

  while (prefix < old_n && prefix < new_n)
    {
      g_autoptr(ZotPanelRowItem) item = g_list_model_get_item (model, prefix);

      if (!zot_panel_row_equal (zot_panel_row_item_get_row (item),
                                g_ptr_array_index (node->rows, prefix)))
        break;
      prefix++;
    }
  while (suffix < old_n - prefix && suffix < new_n - prefix)
    {
      g_autoptr(ZotPanelRowItem) item = g_list_model_get_item (model, old_n - 1 - suffix);

      if (!zot_panel_row_equal (zot_panel_row_item_get_row (item),
                                g_ptr_array_index (node->rows, new_n - 1 - suffix)))
        break;
      suffix++;
    }

  if (prefix + suffix < old_n || prefix + suffix < new_n)
    {
      items = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = prefix; i < new_n - suffix; i++)
        g_ptr_array_add (items, zot_panel_row_item_new (g_ptr_array_index (node->rows, i)));
      g_list_store_splice (self->rows, prefix, old_n - prefix - suffix, items->pdata, items->len);
    }

  gtk_scrolled_window_set_max_content_height (self->scroller, node->max_height);
  gtk_label_set_text (self->placeholder, node->placeholder ? node->placeholder : "");
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder),
                          new_n == 0 && node->placeholder != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->scroller), new_n > 0);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  /* Translators: the name screen readers give a list in an
                                   * extension's panel that has no label of its own */
                                  node->label ? node->label : _("List"), -1);
}

GListModel *
zot_panel_list_get_model (ZotPanelList *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_LIST (self), NULL);
  return G_LIST_MODEL (self->rows);
}

GtkListView *
zot_panel_list_get_view (ZotPanelList *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_LIST (self), NULL);
  return self->view;
}
