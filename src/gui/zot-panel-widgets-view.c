/* zot-panel-widgets-view.c — the factory of a panel's native widgets.
 *
 * STYLE.md rule 15: an extension never hands the window a UI description
 * to load. It sends a tree that the core validated (zot-panel-widgets.h);
 * this view builds a GTK widget per node, from a fixed set, and nothing
 * else. Every widget is kept by its id: a re-render updates the widget of
 * an id in place when its type is the same, so focus, scroll positions and
 * what the user typed survive (an entry's text changes only when the new
 * tree sets its `value`). Widgets whose ids are gone are dropped.
 *
 * What the user does goes to the extension as `panel_event`: clicks,
 * toggles and selections at once, typing once it pauses
 * (%ZOT_PANEL_ENTRY_DEBOUNCE_MS). Changes the view makes itself while
 * rendering are never reported.
 *
 * Error nodes show as a row with a warning icon and the problem, where the
 * bad widget would have been; the core has written the problem to the
 * extension's log.
 */
#define G_LOG_DOMAIN "zot-panel"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-accessible.h"
#include "zot-ansi.h"
#include "zot-bounded-text.h"
#include "zot-extension.h"
#include "zot-image-bounds.h"
#include "zot-limits.h"
#include "zot-panel-list.h"
#include "zot-panel-widgets-view.h"
#include "zot-tooltip.h"
#include "zot-wrap-safe-gtk.h"

typedef struct _Item Item;

struct _ZotPanelWidgetsView
{
  GtkWidget   parent_instance;

  ZotPanel   *panel;
  GtkBox     *root;
  GHashTable *items;       /* id → Item */
  GPtrArray  *anonymous;   /* Items of error nodes without an id */
  guint       updating;
};

struct _Item
{
  ZotPanelWidgetsView *view;
  char                *id;
  ZotPanelNodeType     type;
  GtkWidget           *widget;    /* the one placed in a box; a reference is held */
  GtkWidget           *control;   /* the one the user operates */
  GtkWidget           *label;     /* a field's visible label */
  GtkWidget           *extra;     /* an entry's submit button */
  GStrv                option_values;
  char                *full_text;  /* a text's whole, when it shows less */
  guint                debounce;
  guint                pulse;
};

G_DEFINE_FINAL_TYPE (ZotPanelWidgetsView, zot_panel_widgets_view, GTK_TYPE_WIDGET)

static void
item_free (Item *item)
{
  g_clear_handle_id (&item->debounce, g_source_remove);
  g_clear_handle_id (&item->pulse, g_source_remove);
  if (item->type == ZOT_PANEL_NODE_TEXTAREA)
    g_signal_handlers_disconnect_by_data (gtk_text_view_get_buffer (GTK_TEXT_VIEW (item->control)),
                                          item);
  if (item->control != NULL)
    g_signal_handlers_disconnect_by_data (item->control, item);
  if (item->extra != NULL)
    g_signal_handlers_disconnect_by_data (item->extra, item);
  if (item->widget != NULL && gtk_widget_get_parent (item->widget) != NULL)
    gtk_box_remove (GTK_BOX (gtk_widget_get_parent (item->widget)), item->widget);
  g_clear_object (&item->widget);
  g_clear_pointer (&item->option_values, g_strfreev);
  g_clear_pointer (&item->full_text, g_free);
  g_free (item->id);
  g_free (item);
}

/* Events */

static void
on_show_all_clicked_cb (GtkButton *button,
                        Item      *item)
{
  if (item->full_text != NULL)
    zot_bounded_text_show_all (GTK_WIDGET (button), item->id, item->full_text);
}

static void
send_event (Item       *item,
            const char *event,
            JsonNode   *value)
{
  ZotPanelWidgetsView *self = item->view;

  if (self->updating > 0 || self->panel == NULL || !zot_panel_is_open (self->panel))
    return;

  zot_panel_send_event (self->panel, item->id, event, value);
}

static void
send_string_event (Item       *item,
                   const char *event,
                   const char *text)
{
  g_autoptr(JsonNode) value = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (value, text);
  send_event (item, event, value);
}

static void
send_boolean_event (Item       *item,
                    const char *event,
                    gboolean    active)
{
  g_autoptr(JsonNode) value = json_node_new (JSON_NODE_VALUE);

  json_node_set_boolean (value, active);
  send_event (item, event, value);
}

static char *
item_text (Item *item)
{
  GtkTextBuffer *buffer;
  GtkTextIter start;
  GtkTextIter end;

  if (item->type == ZOT_PANEL_NODE_ENTRY)
    return g_strdup (gtk_editable_get_text (GTK_EDITABLE (item->control)));

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (item->control));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static gboolean
debounce_cb (gpointer data)
{
  Item *item = data;
  g_autofree char *text = item_text (item);

  item->debounce = 0;
  send_string_event (item, "changed", text);
  return G_SOURCE_REMOVE;
}

static void
on_text_changed_cb (gpointer  object,
                    Item     *item)
{
  if (item->view->updating > 0)
    return;

  g_clear_handle_id (&item->debounce, g_source_remove);
  item->debounce = g_timeout_add (ZOT_PANEL_ENTRY_DEBOUNCE_MS, debounce_cb, item);
}

/* The typing still waiting for its pause goes first, then the submit. */
static void
submit (Item *item)
{
  g_autofree char *text = item_text (item);

  if (item->debounce != 0)
    {
      g_clear_handle_id (&item->debounce, g_source_remove);
      send_string_event (item, "changed", text);
    }
  send_string_event (item, "submit", text);
}

static void
on_entry_activate_cb (GtkEntry *entry,
                      Item     *item)
{
  submit (item);
}

static void
on_submit_clicked_cb (GtkButton *button,
                      Item      *item)
{
  submit (item);
}

static gboolean
on_textarea_key_cb (GtkEventControllerKey *controller,
                    guint                  keyval,
                    guint                  keycode,
                    GdkModifierType        state,
                    Item                  *item)
{
  if ((state & GDK_CONTROL_MASK) &&
      (keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter))
    {
      submit (item);
      return TRUE;
    }
  return FALSE;
}

static void
on_button_clicked_cb (GtkButton *button,
                      Item      *item)
{
  send_event (item, "clicked", NULL);
}

static void
on_switch_active_cb (GtkSwitch  *button,
                     GParamSpec *pspec,
                     Item       *item)
{
  send_boolean_event (item, "toggled", gtk_switch_get_active (button));
}

static void
on_check_toggled_cb (GtkCheckButton *button,
                     Item           *item)
{
  send_boolean_event (item, "toggled", gtk_check_button_get_active (button));
}

static void
on_dropdown_selected_cb (GtkDropDown *dropdown,
                         GParamSpec  *pspec,
                         Item        *item)
{
  guint selected = gtk_drop_down_get_selected (dropdown);

  if (item->option_values != NULL && selected < g_strv_length (item->option_values))
    send_string_event (item, "selected", item->option_values[selected]);
}

static void
on_list_row_event_cb (ZotPanelList *list,
                      const char   *event,
                      JsonNode     *value,
                      Item         *item)
{
  send_event (item, event, value);
}

static gboolean
pulse_cb (gpointer data)
{
  Item *item = data;

  gtk_progress_bar_pulse (GTK_PROGRESS_BAR (item->control));
  return G_SOURCE_CONTINUE;
}

/* Building */

static GtkWidget *
field_label (Item *item)
{
  item->label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (item->label), 0);
  gtk_label_set_wrap (GTK_LABEL (item->label), TRUE);
  return item->label;
}

static void
create_entry (Item *item)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  item->widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_append (GTK_BOX (item->widget), field_label (item));
  item->control = gtk_entry_new ();
  gtk_widget_set_hexpand (item->control, TRUE);
  gtk_label_set_mnemonic_widget (GTK_LABEL (item->label), item->control);
  g_signal_connect (item->control, "changed", G_CALLBACK (on_text_changed_cb), item);
  g_signal_connect (item->control, "activate", G_CALLBACK (on_entry_activate_cb), item);
  item->extra = gtk_button_new ();
  g_signal_connect (item->extra, "clicked", G_CALLBACK (on_submit_clicked_cb), item);
  gtk_box_append (GTK_BOX (row), item->control);
  gtk_box_append (GTK_BOX (row), item->extra);
  gtk_box_append (GTK_BOX (item->widget), row);
}

static void
create_textarea (Item *item)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkEventController *keys = gtk_event_controller_key_new ();

  item->widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_append (GTK_BOX (item->widget), field_label (item));
  item->control = gtk_text_view_new ();
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (item->control), GTK_WRAP_WORD_CHAR);
  /* What the user types is sent as it is: the wrap mode follows the text. */
  zot_wrap_safe_text_view_watch (GTK_TEXT_VIEW (item->control));
  /* Tab leaves the text area, so that the keyboard can reach what follows. */
  gtk_text_view_set_accepts_tab (GTK_TEXT_VIEW (item->control), FALSE);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (item->control), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (item->control), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (item->control), 6);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (item->control), 6);
  gtk_label_set_mnemonic_widget (GTK_LABEL (item->label), item->control);
  g_signal_connect (gtk_text_view_get_buffer (GTK_TEXT_VIEW (item->control)), "changed",
                    G_CALLBACK (on_text_changed_cb), item);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_textarea_key_cb), item);
  gtk_widget_add_controller (item->control, keys);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_has_frame (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 72);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), item->control);
  gtk_box_append (GTK_BOX (item->widget), scroller);
}

static void
create_labelled (Item      *item,
                 GtkWidget *control)
{
  item->widget = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_hexpand (field_label (item), TRUE);
  gtk_box_append (GTK_BOX (item->widget), item->label);
  item->control = control;
  gtk_widget_set_valign (control, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (item->widget), control);
}

static void
create_code (Item *item)
{
  item->widget = gtk_scrolled_window_new ();
  item->control = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (item->control), 0);
  gtk_label_set_yalign (GTK_LABEL (item->control), 0);
  gtk_label_set_selectable (GTK_LABEL (item->control), TRUE);
  gtk_widget_set_valign (item->control, GTK_ALIGN_START);
  gtk_widget_set_halign (item->control, GTK_ALIGN_START);
  gtk_widget_add_css_class (item->control, "monospace");
  gtk_widget_set_margin_start (item->control, 6);
  gtk_widget_set_margin_end (item->control, 6);
  gtk_widget_set_margin_top (item->control, 6);
  gtk_widget_set_margin_bottom (item->control, 6);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (item->widget),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_has_frame (GTK_SCROLLED_WINDOW (item->widget), TRUE);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (item->widget), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (item->widget), item->control);
  gtk_widget_add_css_class (item->widget, "view");
  gtk_widget_add_css_class (item->widget, "panel-code");
}

static Item *
item_new (ZotPanelWidgetsView *self,
          ZotPanelNode        *node,
          gboolean             in_row)
{
  Item *item = g_new0 (Item, 1);

  item->view = self;
  item->id = g_strdup (node->id);
  item->type = node->type;

  switch (node->type)
    {
    case ZOT_PANEL_NODE_BOX:
      item->widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      break;

    case ZOT_PANEL_NODE_TEXT:
      /* The label, and a "Show all" button when it shows only the head. */
      item->widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      item->control = gtk_label_new (NULL);
      gtk_label_set_wrap (GTK_LABEL (item->control), TRUE);
      gtk_label_set_xalign (GTK_LABEL (item->control), 0);
      gtk_box_append (GTK_BOX (item->widget), item->control);
      /* Translators: a button under a long text in a panel that opens all of it */
      item->extra = gtk_button_new_with_label (_("Show all"));
      gtk_widget_set_halign (item->extra, GTK_ALIGN_START);
      gtk_widget_add_css_class (item->extra, "panel-text-show-all");
      g_signal_connect (item->extra, "clicked", G_CALLBACK (on_show_all_clicked_cb), item);
      gtk_box_append (GTK_BOX (item->widget), item->extra);
      break;

    case ZOT_PANEL_NODE_HEADING:
      item->widget = g_object_new (GTK_TYPE_LABEL,
                                   "accessible-role", GTK_ACCESSIBLE_ROLE_HEADING,
                                   "wrap", TRUE, "xalign", 0.0f, NULL);
      break;

    case ZOT_PANEL_NODE_BUTTON:
      item->widget = item->control = gtk_button_new ();
      g_signal_connect (item->control, "clicked", G_CALLBACK (on_button_clicked_cb), item);
      break;

    case ZOT_PANEL_NODE_ENTRY:
      create_entry (item);
      break;

    case ZOT_PANEL_NODE_TEXTAREA:
      create_textarea (item);
      break;

    case ZOT_PANEL_NODE_SWITCH:
      create_labelled (item, gtk_switch_new ());
      g_signal_connect (item->control, "notify::active", G_CALLBACK (on_switch_active_cb), item);
      break;

    case ZOT_PANEL_NODE_CHECK:
      item->widget = item->control = gtk_check_button_new ();
      g_signal_connect (item->control, "toggled", G_CALLBACK (on_check_toggled_cb), item);
      break;

    case ZOT_PANEL_NODE_DROPDOWN:
      create_labelled (item, gtk_drop_down_new (NULL, NULL));
      g_signal_connect (item->control, "notify::selected", G_CALLBACK (on_dropdown_selected_cb), item);
      break;

    case ZOT_PANEL_NODE_LIST:
      item->widget = item->control = zot_panel_list_new ();
      g_signal_connect (item->control, "row-event", G_CALLBACK (on_list_row_event_cb), item);
      break;

    case ZOT_PANEL_NODE_PROGRESS:
      item->widget = item->control = gtk_progress_bar_new ();
      break;

    case ZOT_PANEL_NODE_SPINNER:
      item->widget = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      item->control = gtk_spinner_new ();
      gtk_spinner_start (GTK_SPINNER (item->control));
      gtk_box_append (GTK_BOX (item->widget), item->control);
      gtk_box_append (GTK_BOX (item->widget), field_label (item));
      break;

    case ZOT_PANEL_NODE_SEPARATOR:
      item->widget = gtk_separator_new (in_row ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL);
      break;

    case ZOT_PANEL_NODE_CODE:
      create_code (item);
      break;

    case ZOT_PANEL_NODE_IMAGE:
      /* The picture, or the note saying why it is not shown. */
      item->widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      item->control = gtk_picture_new ();
      gtk_picture_set_can_shrink (GTK_PICTURE (item->control), TRUE);
      gtk_picture_set_content_fit (GTK_PICTURE (item->control), GTK_CONTENT_FIT_CONTAIN);
      gtk_box_append (GTK_BOX (item->widget), item->control);
      item->label = gtk_label_new (NULL);
      gtk_label_set_wrap (GTK_LABEL (item->label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (item->label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_xalign (GTK_LABEL (item->label), 0);
      gtk_widget_add_css_class (item->label, "dim-label");
      gtk_widget_add_css_class (item->label, "panel-image-note");
      gtk_box_append (GTK_BOX (item->widget), item->label);
      break;

    case ZOT_PANEL_NODE_ERROR:
    default:
      item->widget = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      gtk_widget_add_css_class (item->widget, "panel-widget-error");
      gtk_box_append (GTK_BOX (item->widget), gtk_image_new_from_icon_name ("dialog-warning-symbolic"));
      gtk_box_append (GTK_BOX (item->widget), field_label (item));
      gtk_widget_add_css_class (item->label, "error");
      gtk_accessible_update_property (GTK_ACCESSIBLE (item->widget),
                                      /* Translators: the name screen readers give the error
                                       * shown in place of a broken part of an extension's panel */
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("Panel error"), -1);
      break;
    }

  g_object_ref_sink (item->widget);
  return item;
}

static void
set_style_classes (GtkWidget     *widget,
                   ZotPanelStyle  style)
{
  static const char * const classes[] = {
    [ZOT_PANEL_STYLE_PLAIN] = NULL,
    [ZOT_PANEL_STYLE_DIM] = "dim-label",
    [ZOT_PANEL_STYLE_BOLD] = "panel-text-bold",
    [ZOT_PANEL_STYLE_ITALIC] = "panel-text-italic",
    [ZOT_PANEL_STYLE_CAPTION] = "caption",
    [ZOT_PANEL_STYLE_SUCCESS] = "success",
    [ZOT_PANEL_STYLE_WARNING] = "warning",
    [ZOT_PANEL_STYLE_ERROR] = "error",
    [ZOT_PANEL_STYLE_SUGGESTED] = "suggested-action",
    [ZOT_PANEL_STYLE_DESTRUCTIVE] = "destructive-action",
    [ZOT_PANEL_STYLE_FLAT] = "flat",
  };

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    if (classes[i] != NULL)
      {
        if (i == style)
          gtk_widget_add_css_class (widget, classes[i]);
        else
          gtk_widget_remove_css_class (widget, classes[i]);
      }
}

static void
update_text (Item         *item,
             ZotPanelNode *node)
{
  g_autoptr(PangoAttrList) attrs = pango_attr_list_new ();
  g_autofree char *head = NULL;
  gboolean cut = FALSE;

  if (node->style == ZOT_PANEL_STYLE_BOLD)
    pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  else if (node->style == ZOT_PANEL_STYLE_ITALIC)
    pango_attr_list_insert (attrs, pango_attr_style_new (PANGO_STYLE_ITALIC));

  /* A panel may not make the window lay out more than the head. */
  head = zot_bounded_text_head (node->text, ZOT_PANEL_TEXT_SHOWN_MAX_CHARS, &cut);
  g_clear_pointer (&item->full_text, g_free);
  if (cut)
    item->full_text = g_strdup (node->text);
  gtk_widget_set_visible (item->extra, cut);

  /* The attributes span the whole text, so a repair does not move them. */
  zot_wrap_safe_label_set_text (GTK_LABEL (item->control), head);
  gtk_label_set_wrap_mode (GTK_LABEL (item->control), zot_bounded_text_wrap_mode (head));
  gtk_label_set_attributes (GTK_LABEL (item->control), attrs);
  set_style_classes (item->control, node->style);
}

static void
update_heading (Item         *item,
                ZotPanelNode *node)
{
  static const char * const levels[] = { "title-2", "title-4", "heading" };

  gtk_label_set_text (GTK_LABEL (item->widget), node->text);
  for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
    {
      if (i + 1 == node->level)
        gtk_widget_add_css_class (item->widget, levels[i]);
      else
        gtk_widget_remove_css_class (item->widget, levels[i]);
    }
}

static void
update_button (Item         *item,
               ZotPanelNode *node)
{
  if (node->icon != NULL)
    {
      GtkWidget *content = gtk_button_get_child (GTK_BUTTON (item->control));

      if (!ADW_IS_BUTTON_CONTENT (content))
        {
          content = adw_button_content_new ();
          gtk_button_set_child (GTK_BUTTON (item->control), content);
        }
      adw_button_content_set_icon_name (ADW_BUTTON_CONTENT (content), node->icon);
      adw_button_content_set_label (ADW_BUTTON_CONTENT (content), node->label);
    }
  else
    gtk_button_set_label (GTK_BUTTON (item->control), node->label);

  set_style_classes (item->control, node->style);
}

static void
update_entry (Item         *item,
              ZotPanelNode *node)
{
  gtk_label_set_text (GTK_LABEL (item->label), node->label);
  gtk_entry_set_placeholder_text (GTK_ENTRY (item->control), node->placeholder);
  gtk_entry_set_visibility (GTK_ENTRY (item->control), !node->secret);
  gtk_widget_set_visible (item->extra, node->submit_label != NULL);
  gtk_button_set_label (GTK_BUTTON (item->extra), node->submit_label ? node->submit_label : "");
  gtk_widget_add_css_class (item->extra, "suggested-action");

  /* What the user typed stays unless the extension says otherwise. */
  if (node->value != NULL &&
      g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (item->control)), node->value) != 0)
    {
      g_clear_handle_id (&item->debounce, g_source_remove);
      gtk_editable_set_text (GTK_EDITABLE (item->control), node->value);
    }
}

static void
update_textarea (Item         *item,
                 ZotPanelNode *node)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (item->control));
  GtkWidget *scroller = gtk_widget_get_ancestor (item->control, GTK_TYPE_SCROLLED_WINDOW);
  g_autofree char *text = item_text (item);

  gtk_label_set_text (GTK_LABEL (item->label), node->label);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), node->max_height);
  if (node->value != NULL && g_strcmp0 (text, node->value) != 0)
    {
      g_clear_handle_id (&item->debounce, g_source_remove);
      gtk_text_buffer_set_text (buffer, node->value, -1);
    }
}

static void
update_dropdown (Item         *item,
                 ZotPanelNode *node)
{
  g_autoptr(GStrvBuilder) values = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) labels = g_strv_builder_new ();
  g_auto(GStrv) label_strv = NULL;
  g_auto(GStrv) value_strv = NULL;
  GtkStringList *model = GTK_STRING_LIST (gtk_drop_down_get_model (GTK_DROP_DOWN (item->control)));
  gboolean same = model != NULL && item->option_values != NULL;

  for (guint i = 0; i < node->options->len; i++)
    {
      ZotPanelOption *option = g_ptr_array_index (node->options, i);

      g_strv_builder_add (values, option->value);
      g_strv_builder_add (labels, option->label);
    }
  value_strv = g_strv_builder_end (values);
  label_strv = g_strv_builder_end (labels);

  gtk_label_set_text (GTK_LABEL (item->label), node->label);

  if (same)
    {
      same = g_strv_equal ((const char * const *) item->option_values,
                           (const char * const *) value_strv) &&
             g_list_model_get_n_items (G_LIST_MODEL (model)) == node->options->len;
      for (guint i = 0; same && i < node->options->len; i++)
        same = g_str_equal (gtk_string_list_get_string (model, i), label_strv[i]);
    }
  if (!same)
    {
      g_autoptr(GtkStringList) list = gtk_string_list_new ((const char * const *) label_strv);

      gtk_drop_down_set_model (GTK_DROP_DOWN (item->control), G_LIST_MODEL (list));
      g_strfreev (item->option_values);
      item->option_values = g_steal_pointer (&value_strv);
    }

  for (guint i = 0; node->value != NULL && item->option_values[i] != NULL; i++)
    if (g_str_equal (item->option_values[i], node->value))
      gtk_drop_down_set_selected (GTK_DROP_DOWN (item->control), i);
}

static void
update_progress (Item         *item,
                 ZotPanelNode *node)
{
  GtkProgressBar *bar = GTK_PROGRESS_BAR (item->control);

  gtk_progress_bar_set_show_text (bar, node->text != NULL);
  gtk_progress_bar_set_text (bar, node->text);
  if (node->fraction >= 0)
    {
      g_clear_handle_id (&item->pulse, g_source_remove);
      gtk_progress_bar_set_fraction (bar, node->fraction);
    }
  else if (item->pulse == 0)
    item->pulse = g_timeout_add (100, pulse_cb, item);
}

static void
update_code (Item         *item,
             ZotPanelNode *node)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = zot_ansi_to_pango (node->text, &attrs);

  gtk_label_set_text (GTK_LABEL (item->control), text);
  gtk_label_set_attributes (GTK_LABEL (item->control), attrs);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (item->widget), node->max_height);
}

static void
update_image (ZotPanelWidgetsView *self,
              Item                *item,
              ZotPanelNode        *node)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;

  texture = zot_image_texture_new (node->image, &error);
  gtk_picture_set_paintable (GTK_PICTURE (item->control), GDK_PAINTABLE (texture));
  gtk_picture_set_alternative_text (GTK_PICTURE (item->control), node->label);
  gtk_widget_set_visible (item->control, texture != NULL);
  gtk_widget_set_size_request (item->control, -1,
                               texture != NULL && node->max_height > 0 ? (int) node->max_height : -1);
  /* A refused image says why where it would be. */
  gtk_label_set_text (GTK_LABEL (item->label), error != NULL ? error->message : "");
  gtk_widget_set_visible (item->label, texture == NULL);

  if (texture == NULL && self->panel != NULL)
    {
      g_autoptr(ZotExtension) extension = zot_panel_dup_extension (self->panel);

      if (extension != NULL)
        zot_extension_log (extension, "panel \"%s\": image \"%s\" cannot be shown: %s",
                           zot_panel_get_id (self->panel), node->id, error->message);
    }
}

static void
update_error (Item         *item,
              ZotPanelNode *node)
{
  g_autofree char *text = NULL;

  if (*node->id != '\0')
    /* Translators: %s is the id an extension gave a widget of its panel, then what is wrong with
     * it */
    text = g_strdup_printf (_("Widget “%s”: %s"), node->id, node->text);
  else
    text = g_strdup (node->text);
  gtk_label_set_text (GTK_LABEL (item->label), text);
}

/* Names and descriptions for assistive technologies, from the tree. */
static void
update_accessible (Item         *item,
                   ZotPanelNode *node)
{
  GtkAccessible *target = GTK_ACCESSIBLE (item->control != NULL ? item->control : item->widget);
  const char *name = node->label;

  if (name == NULL && (node->type == ZOT_PANEL_NODE_PROGRESS || node->type == ZOT_PANEL_NODE_CODE))
    /* Translators: the name screen readers give a progress bar or a block of program output in
     * an extension's panel */
    name = node->text != NULL && node->type == ZOT_PANEL_NODE_PROGRESS ? node->text : _("Output");

  if (node->type == ZOT_PANEL_NODE_DROPDOWN)
    zot_accessible_label_drop_down (GTK_DROP_DOWN (target), name);
  else if (name != NULL)
    /* Alone: the field's visible label labels it too. */
    zot_accessible_set_label (GTK_WIDGET (target), name);
  else if (node->type != ZOT_PANEL_NODE_ERROR)
    gtk_accessible_reset_property (target, GTK_ACCESSIBLE_PROPERTY_LABEL);

  if (node->description != NULL)
    gtk_accessible_update_property (target, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                    node->description, -1);
  else
    gtk_accessible_reset_property (target, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);

  zot_tooltip_set (GTK_WIDGET (target), node->description);
}

static GtkWidget *build (ZotPanelWidgetsView *self,
                         ZotPanelNode        *node,
                         GHashTable          *old,
                         gboolean             in_row);

/* Puts the widgets of @node's children into @box, in order, moving the box's
 * children only when the order changed. */
static void
sync_box (ZotPanelWidgetsView *self,
          GtkBox              *box,
          ZotPanelNode        *node,
          GHashTable          *old)
{
  g_autoptr(GPtrArray) wanted = g_ptr_array_new ();
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (box));
  gboolean same = TRUE;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (box),
                                  node->horizontal ? GTK_ORIENTATION_HORIZONTAL
                                                   : GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (box, node->spacing);

  for (guint i = 0; node->children != NULL && i < node->children->len; i++)
    g_ptr_array_add (wanted, build (self, g_ptr_array_index (node->children, i), old,
                                    node->horizontal));

  for (guint i = 0; i < wanted->len; i++, child = child ? gtk_widget_get_next_sibling (child) : NULL)
    if (child != g_ptr_array_index (wanted, i))
      same = FALSE;
  if (child != NULL)
    same = FALSE;
  if (same)
    return;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (box))) != NULL)
    gtk_box_remove (box, child);
  for (guint i = 0; i < wanted->len; i++)
    {
      GtkWidget *widget = g_ptr_array_index (wanted, i);
      GtkWidget *parent = gtk_widget_get_parent (widget);

      if (parent != NULL)
        gtk_box_remove (GTK_BOX (parent), widget);
      gtk_box_append (box, widget);
    }
}

static GtkWidget *
build (ZotPanelWidgetsView *self,
       ZotPanelNode        *node,
       GHashTable          *old,
       gboolean             in_row)
{
  Item *item = NULL;

  if (*node->id != '\0')
    {
      item = g_hash_table_lookup (old, node->id);
      if (item != NULL && item->type == node->type)
        g_hash_table_steal (old, node->id);
      else
        item = NULL;
    }
  if (item == NULL)
    item = item_new (self, node, in_row);

  if (*node->id != '\0')
    g_hash_table_insert (self->items, item->id, item);
  else
    g_ptr_array_add (self->anonymous, item);

  switch (node->type)
    {
    case ZOT_PANEL_NODE_BOX:
      sync_box (self, GTK_BOX (item->widget), node, old);
      break;
    case ZOT_PANEL_NODE_TEXT:
      update_text (item, node);
      /* In a row, text takes the room the controls beside it leave. */
      gtk_widget_set_hexpand (item->widget, in_row);
      break;
    case ZOT_PANEL_NODE_HEADING:
      update_heading (item, node);
      break;
    case ZOT_PANEL_NODE_BUTTON:
      update_button (item, node);
      break;
    case ZOT_PANEL_NODE_ENTRY:
      update_entry (item, node);
      break;
    case ZOT_PANEL_NODE_TEXTAREA:
      update_textarea (item, node);
      break;
    case ZOT_PANEL_NODE_SWITCH:
      gtk_label_set_text (GTK_LABEL (item->label), node->label);
      if (node->active >= 0)
        gtk_switch_set_active (GTK_SWITCH (item->control), node->active);
      break;
    case ZOT_PANEL_NODE_CHECK:
      gtk_check_button_set_label (GTK_CHECK_BUTTON (item->control), node->label);
      if (node->active >= 0)
        gtk_check_button_set_active (GTK_CHECK_BUTTON (item->control), node->active);
      break;
    case ZOT_PANEL_NODE_DROPDOWN:
      update_dropdown (item, node);
      break;
    case ZOT_PANEL_NODE_LIST:
      zot_panel_list_update (ZOT_PANEL_LIST (item->control), node);
      break;
    case ZOT_PANEL_NODE_PROGRESS:
      update_progress (item, node);
      break;
    case ZOT_PANEL_NODE_SPINNER:
      gtk_label_set_text (GTK_LABEL (item->label), node->text ? node->text : "");
      gtk_widget_set_visible (item->label, node->text != NULL);
      break;
    case ZOT_PANEL_NODE_CODE:
      update_code (item, node);
      break;
    case ZOT_PANEL_NODE_IMAGE:
      update_image (self, item, node);
      break;
    case ZOT_PANEL_NODE_SEPARATOR:
      break;
    case ZOT_PANEL_NODE_ERROR:
    default:
      update_error (item, node);
      break;
    }

  gtk_widget_set_sensitive (item->widget, node->sensitive);
  update_accessible (item, node);
  return item->widget;
}

static void
zot_panel_widgets_view_dispose (GObject *object)
{
  ZotPanelWidgetsView *self = (ZotPanelWidgetsView *)object;

  g_clear_pointer (&self->items, g_hash_table_unref);
  g_clear_pointer (&self->anonymous, g_ptr_array_unref);
  if (self->root != NULL)
    gtk_widget_unparent (GTK_WIDGET (g_steal_pointer (&self->root)));
  g_clear_object (&self->panel);

  G_OBJECT_CLASS (zot_panel_widgets_view_parent_class)->dispose (object);
}

static void
zot_panel_widgets_view_class_init (ZotPanelWidgetsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_panel_widgets_view_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "panelwidgets");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
zot_panel_widgets_view_init (ZotPanelWidgetsView *self)
{
  self->items = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) item_free);
  self->anonymous = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  self->root = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 12));
  gtk_widget_set_parent (GTK_WIDGET (self->root), GTK_WIDGET (self));
}

/**
 * zot_panel_widgets_view_new:
 * @panel: whose widgets, and where their events go
 *
 * Returns: (transfer floating): an empty view; see zot_panel_widgets_view_render()
 */
GtkWidget *
zot_panel_widgets_view_new (ZotPanel *panel)
{
  ZotPanelWidgetsView *self;

  g_return_val_if_fail (ZOT_IS_PANEL (panel), NULL);

  self = g_object_new (ZOT_TYPE_PANEL_WIDGETS_VIEW, NULL);
  self->panel = g_object_ref (panel);
  return GTK_WIDGET (self);
}

/**
 * zot_panel_widgets_view_render:
 * @root: the validated tree (a vertical box)
 *
 * Builds the widgets of @root, reusing those of the ids shown before.
 */
void
zot_panel_widgets_view_render (ZotPanelWidgetsView *self,
                               ZotPanelNode        *root)
{
  g_autoptr(GHashTable) old = NULL;
  g_autoptr(GPtrArray) old_anonymous = NULL;
  g_autoptr(GtkWidget) focus = NULL;
  GtkRoot *window;

  g_return_if_fail (ZOT_IS_PANEL_WIDGETS_VIEW (self));
  g_return_if_fail (root != NULL);

  window = gtk_widget_get_root (GTK_WIDGET (self));
  if (window != NULL && gtk_root_get_focus (window) != NULL)
    focus = g_object_ref (gtk_root_get_focus (window));

  old = g_steal_pointer (&self->items);
  old_anonymous = g_steal_pointer (&self->anonymous);
  self->items = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) item_free);
  self->anonymous = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);

  self->updating++;
  sync_box (self, self->root, root, old);
  self->updating--;

  /* Dropping what is gone removes it from its box. */
  g_clear_pointer (&old, g_hash_table_unref);
  g_clear_pointer (&old_anonymous, g_ptr_array_unref);

  /* A widget that moved within the tree lost the focus on the way. */
  if (focus != NULL && gtk_widget_get_root (focus) == window &&
      gtk_widget_is_ancestor (focus, GTK_WIDGET (self)) && !gtk_widget_has_focus (focus))
    gtk_widget_grab_focus (focus);
}

/**
 * zot_panel_widgets_view_lookup:
 * @id: a widget id of the tree
 *
 * Returns: (transfer none) (nullable): the widget the user operates for
 *   @id (the entry of an entry, the list of a list), or the one shown
 */
GtkWidget *
zot_panel_widgets_view_lookup (ZotPanelWidgetsView *self,
                               const char          *id)
{
  Item *item;

  g_return_val_if_fail (ZOT_IS_PANEL_WIDGETS_VIEW (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  item = g_hash_table_lookup (self->items, id);
  if (item == NULL)
    return NULL;
  return item->control != NULL ? item->control : item->widget;
}

/**
 * zot_panel_widgets_view_get_n_errors:
 *
 * Returns: how many error rows show
 */
guint
zot_panel_widgets_view_get_n_errors (ZotPanelWidgetsView *self)
{
  GHashTableIter iter;
  gpointer value;
  guint n;

  g_return_val_if_fail (ZOT_IS_PANEL_WIDGETS_VIEW (self), 0);

  /* Only error rows can lack an id. */
  n = self->anonymous->len;
  g_hash_table_iter_init (&iter, self->items);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (((Item *) value)->type == ZOT_PANEL_NODE_ERROR)
      n++;
  return n;
}
