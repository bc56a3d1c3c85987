/* zot-panel-list-row.c — one row of a panel's list: [check] [icon]
 * title/subtitle [buttons].
 *
 * The labels, the icon and the check box are bound to the item's
 * properties. What the user does goes to the list as actions with the
 * row's id: "panel-list.toggle" ((sb): row, checked) and
 * "panel-list.button" ((ss): row, button), so one row widget serves
 * whichever item the list view gives it.
 */
#define G_LOG_DOMAIN "zot-panel"

#include "config.h"

#include "zot-panel-list-row.h"
#include "zot-tooltip.h"

struct _ZotPanelListRow
{
  GtkWidget        parent_instance;

  /* template */
  GtkCheckButton  *check_button;
  GtkImage        *icon_image;
  GtkLabel        *title_label;
  GtkLabel        *subtitle_label;
  GtkBox          *buttons_box;

  ZotPanelRowItem *item;
  GBindingGroup   *bindings;
  guint            binding;     /* the item, not the user, sets the check box */
};

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotPanelListRow, zot_panel_list_row, GTK_TYPE_WIDGET)

static gboolean
string_or_empty (GBinding     *binding,
                 const GValue *from,
                 GValue       *to,
                 gpointer      user_data)
{
  const char *text = g_value_get_string (from);

  g_value_set_string (to, text != NULL ? text : "");
  return TRUE;
}

static gboolean
string_is_set (GBinding     *binding,
               const GValue *from,
               GValue       *to,
               gpointer      user_data)
{
  const char *text = g_value_get_string (from);

  g_value_set_boolean (to, text != NULL && *text != '\0');
  return TRUE;
}

static gboolean
checked_has_box (GBinding     *binding,
                 const GValue *from,
                 GValue       *to,
                 gpointer      user_data)
{
  g_value_set_boolean (to, g_value_get_int (from) >= 0);
  return TRUE;
}

static gboolean
checked_is_active (GBinding     *binding,
                   const GValue *from,
                   GValue       *to,
                   gpointer      user_data)
{
  g_value_set_boolean (to, g_value_get_int (from) > 0);
  return TRUE;
}

static void
on_check_button_toggled_cb (GtkCheckButton  *check,
                            ZotPanelListRow *self)
{
  ZotPanelRow *row = self->item != NULL ? zot_panel_row_item_get_row (self->item) : NULL;

  if (self->binding > 0 || row == NULL)
    return;

  gtk_widget_activate_action (GTK_WIDGET (self), "panel-list.toggle", "(sb)",
                              row->id, gtk_check_button_get_active (check));
}

/* Rows are rebound often while a long list scrolls: the buttons of the
 * previous row are reused, and only their number changes the widgets. */
static void
bind_buttons (ZotPanelListRow *self,
              ZotPanelRow     *row)
{
  GtkWidget *box = GTK_WIDGET (self->buttons_box);
  GtkWidget *button = gtk_widget_get_first_child (box);

  for (guint i = 0; row != NULL && i < row->buttons->len; i++)
    {
      ZotPanelRowButton *spec = g_ptr_array_index (row->buttons, i);
      g_autofree char *name = g_strdup_printf ("%s: %s", spec->label, row->title);

      if (button == NULL)
        {
          button = gtk_button_new ();
          gtk_widget_add_css_class (button, "flat");
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
      /* The target first: an action name with no target yet is a mismatch. */
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "(ss)", row->id, spec->id);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "panel-list.button");
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
zot_panel_list_row_dispose (GObject *object)
{
  ZotPanelListRow *self = ZOT_PANEL_LIST_ROW (object);
  GtkWidget *child;

  if (self->bindings != NULL)
    g_binding_group_set_source (self->bindings, NULL);
  g_clear_object (&self->bindings);
  g_clear_object (&self->item);
  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_PANEL_LIST_ROW);
  /* The template's unnamed boxes too: a plain GtkWidget keeps its children. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (zot_panel_list_row_parent_class)->dispose (object);
}

static void
zot_panel_list_row_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  ZotPanelListRow *self = ZOT_PANEL_LIST_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_list_row_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  ZotPanelListRow *self = ZOT_PANEL_LIST_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      zot_panel_list_row_set_item (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_list_row_class_init (ZotPanelListRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_panel_list_row_dispose;
  object_class->get_property = zot_panel_list_row_get_property;
  object_class->set_property = zot_panel_list_row_set_property;

  /**
   * ZotPanelListRow:item:
   *
   * The row of the list shown.
   */
  properties [PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, ZOT_TYPE_PANEL_ROW_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-panel-list-row.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotPanelListRow, check_button);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelListRow, icon_image);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelListRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelListRow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPanelListRow, buttons_box);
  gtk_widget_class_bind_template_callback (widget_class, on_check_button_toggled_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
}

static void
zot_panel_list_row_init (ZotPanelListRow *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 12);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->bindings, "checked", self->check_button, "visible",
                             G_BINDING_SYNC_CREATE, checked_has_box, NULL, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "checked", self->check_button, "active",
                             G_BINDING_SYNC_CREATE, checked_is_active, NULL, NULL, NULL);
  g_binding_group_bind (self->bindings, "icon-name", self->icon_image, "icon-name",
                        G_BINDING_SYNC_CREATE);
  g_binding_group_bind_full (self->bindings, "icon-name", self->icon_image, "visible",
                             G_BINDING_SYNC_CREATE, string_is_set, NULL, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "title", self->title_label, "label",
                             G_BINDING_SYNC_CREATE, string_or_empty, NULL, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "subtitle", self->subtitle_label, "label",
                             G_BINDING_SYNC_CREATE, string_or_empty, NULL, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "subtitle", self->subtitle_label, "visible",
                             G_BINDING_SYNC_CREATE, string_is_set, NULL, NULL, NULL);
}

GtkWidget *
zot_panel_list_row_new (void)
{
  return g_object_new (ZOT_TYPE_PANEL_LIST_ROW, NULL);
}

/**
 * zot_panel_list_row_get_item:
 *
 * Returns: (transfer none) (nullable): the row shown
 */
ZotPanelRowItem *
zot_panel_list_row_get_item (ZotPanelListRow *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL_LIST_ROW (self), NULL);
  return self->item;
}

void
zot_panel_list_row_set_item (ZotPanelListRow *self,
                             ZotPanelRowItem *item)
{
  ZotPanelRow *row;

  g_return_if_fail (ZOT_IS_PANEL_LIST_ROW (self));
  g_return_if_fail (item == NULL || ZOT_IS_PANEL_ROW_ITEM (item));

  if (!g_set_object (&self->item, item))
    return;

  row = item != NULL ? zot_panel_row_item_get_row (item) : NULL;

  self->binding++;
  g_binding_group_set_source (self->bindings, item);

  /* What no property carries: a class, a tooltip, accessible names. */
  if (row != NULL && row->checked > 0)
    gtk_widget_add_css_class (GTK_WIDGET (self->title_label), "dim-label");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->title_label), "dim-label");
  zot_tooltip_set (GTK_WIDGET (self->title_label), row != NULL ? row->title : NULL);
  if (row != NULL)
    {
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->check_button),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, row->title, -1);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, row->title,
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      row->subtitle ? row->subtitle : "",
                                      -1);
    }
  bind_buttons (self, row);
  self->binding--;

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ITEM]);
}
