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
 * "button" ({row, button}).
 */
#define G_LOG_DOMAIN "zot-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-panel-list.h"
#include "zot-panel-row-item.h"
#include "zot-tooltip.h"

struct _ZotPanelList
{
  GtkWidget          parent_instance;

  GListStore        *rows;
  GtkBox            *box;
  GtkLabel          *placeholder;
  GtkScrolledWindow *scroller;
  GtkListView       *view;
  guint              binding;
};

enum {
  ROW_EVENT,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotPanelList, zot_panel_list, GTK_TYPE_WIDGET)

static ZotPanelRow *
widget_row (GtkWidget *widget)
{
  ZotPanelRowItem *item = g_object_get_data (G_OBJECT (widget), "zot-row-item");

  return item != NULL ? zot_panel_row_item_get_row (item) : NULL;
}

static void
emit_row_event (ZotPanelList *self,
                const char   *event,
                JsonNode     *value)
{
  g_signal_emit (self, signals [ROW_EVENT], 0, event, value);
}

static void
on_check_toggled_cb (GtkCheckButton *check,
                     ZotPanelList   *self)
{
  ZotPanelRow *row = widget_row (gtk_widget_get_parent (GTK_WIDGET (check)));
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) value = NULL;

  if (self->binding > 0 || row == NULL)
    return;

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "row");
  json_builder_add_string_value (builder, row->id);
  json_builder_set_member_name (builder, "checked");
  json_builder_add_boolean_value (builder, gtk_check_button_get_active (check));
  json_builder_end_object (builder);
  value = json_builder_get_root (builder);
  emit_row_event (self, "toggled", value);
}

static void
on_button_clicked_cb (GtkButton    *button,
                      ZotPanelList *self)
{
  GtkWidget *row_widget = gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (button)));
  ZotPanelRow *row = widget_row (row_widget);
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) value = NULL;

  if (row == NULL)
    return;

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "row");
  json_builder_add_string_value (builder, row->id);
  json_builder_set_member_name (builder, "button");
  json_builder_add_string_value (builder, g_object_get_data (G_OBJECT (button), "zot-button-id"));
  json_builder_end_object (builder);
  value = json_builder_get_root (builder);
  emit_row_event (self, "button", value);
}

/* A row widget: [check] [icon] title/subtitle [buttons]. */
static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *list_item,
          ZotPanelList             *self)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *check = gtk_check_button_new ();
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *labels = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *subtitle = gtk_label_new (NULL);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  gtk_widget_add_css_class (row, "panel-row");
  gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
  g_signal_connect (check, "toggled", G_CALLBACK (on_check_toggled_cb), self);
  gtk_widget_set_hexpand (labels, TRUE);
  gtk_widget_set_valign (labels, GTK_ALIGN_CENTER);
  /* One line each: rows of one height keep a long list cheap to scroll
   * (no height-for-width per row); the tooltip shows a cut title. */
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0);
  gtk_label_set_ellipsize (GTK_LABEL (subtitle), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (subtitle, "caption");
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_widget_set_valign (buttons, GTK_ALIGN_CENTER);

  gtk_box_append (GTK_BOX (labels), title);
  gtk_box_append (GTK_BOX (labels), subtitle);
  gtk_box_append (GTK_BOX (row), check);
  gtk_box_append (GTK_BOX (row), icon);
  gtk_box_append (GTK_BOX (row), labels);
  gtk_box_append (GTK_BOX (row), buttons);
  gtk_list_item_set_child (list_item, row);
}

/* Rows are rebound often while a long list scrolls: the buttons of the
 * previous row are reused, and only their number changes the widgets. */
static void
bind_buttons (ZotPanelList *self,
              GtkWidget    *box,
              ZotPanelRow  *row)
{
  GtkWidget *button = gtk_widget_get_first_child (box);

  for (guint i = 0; i < row->buttons->len; i++)
    {
      ZotPanelRowButton *spec = g_ptr_array_index (row->buttons, i);
      g_autofree char *name = g_strdup_printf ("%s: %s", spec->label, row->title);

      if (button == NULL)
        {
          button = gtk_button_new ();
          gtk_widget_add_css_class (button, "flat");
          g_signal_connect (button, "clicked", G_CALLBACK (on_button_clicked_cb), self);
          gtk_box_append (GTK_BOX (box), button);
        }

      if (spec->icon != NULL)
        {
          gtk_button_set_icon_name (GTK_BUTTON (button), spec->icon);
          zot_tooltip_set (button, spec->label);
        }
      else
        {
          gtk_button_set_label (GTK_BUTTON (button), spec->label);
          zot_tooltip_set (button, NULL);
        }

      if (spec->style == ZOT_PANEL_STYLE_SUGGESTED)
        gtk_widget_add_css_class (button, "suggested-action");
      else
        gtk_widget_remove_css_class (button, "suggested-action");
      if (spec->style == ZOT_PANEL_STYLE_DESTRUCTIVE)
        gtk_widget_add_css_class (button, "destructive-action");
      else
        gtk_widget_remove_css_class (button, "destructive-action");
      gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
      g_object_set_data_full (G_OBJECT (button), "zot-button-id", g_strdup (spec->id), g_free);
      button = gtk_widget_get_next_sibling (button);
    }

  while (button != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (button);

      gtk_box_remove (GTK_BOX (box), button);
      button = next;
    }
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *list_item,
         ZotPanelList             *self)
{
  ZotPanelRowItem *item = gtk_list_item_get_item (list_item);
  ZotPanelRow *row = zot_panel_row_item_get_row (item);
  GtkWidget *widget = gtk_list_item_get_child (list_item);
  GtkWidget *check = gtk_widget_get_first_child (widget);
  GtkWidget *icon = gtk_widget_get_next_sibling (check);
  GtkWidget *labels = gtk_widget_get_next_sibling (icon);
  GtkWidget *buttons = gtk_widget_get_next_sibling (labels);
  GtkWidget *title = gtk_widget_get_first_child (labels);
  GtkWidget *subtitle = gtk_widget_get_next_sibling (title);

  self->binding++;
  g_object_set_data_full (G_OBJECT (widget), "zot-row-item", g_object_ref (item), g_object_unref);

  gtk_widget_set_visible (check, row->checked >= 0);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), row->checked > 0);
  gtk_accessible_update_property (GTK_ACCESSIBLE (check),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, row->title, -1);

  gtk_widget_set_visible (icon, row->icon != NULL);
  gtk_image_set_from_icon_name (GTK_IMAGE (icon), row->icon);

  gtk_label_set_text (GTK_LABEL (title), row->title);
  zot_tooltip_set (title, row->title);
  gtk_label_set_text (GTK_LABEL (subtitle), row->subtitle ? row->subtitle : "");
  gtk_widget_set_visible (subtitle, row->subtitle != NULL && *row->subtitle != '\0');
  if (row->checked > 0)
    gtk_widget_add_css_class (title, "dim-label");
  else
    gtk_widget_remove_css_class (title, "dim-label");

  bind_buttons (self, buttons, row);

  gtk_list_item_set_activatable (list_item, row->activatable);
  gtk_accessible_update_property (GTK_ACCESSIBLE (widget),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, row->title,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  row->subtitle ? row->subtitle : "",
                                  -1);
  self->binding--;
}

static void
unbind_cb (GtkSignalListItemFactory *factory,
           GtkListItem              *list_item,
           ZotPanelList             *self)
{
  GtkWidget *widget = gtk_list_item_get_child (list_item);

  g_object_set_data (G_OBJECT (widget), "zot-row-item", NULL);
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
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_cb), self);
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
