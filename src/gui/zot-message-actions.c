/* zot-message-actions.c — the actions of one transcript row: its flat
 * buttons, shown on hover and focus, its context menu and its shortcuts.
 *
 * The buttons stay laid out while hidden (only transparent and out of the
 * pointer's way), so that a row does not change height under the pointer.
 * Rows are recycled: everything follows the item bound last.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-message-actions.h"
#include "zot-transcript-private.h"
#include "zot-tooltip.h"

struct _ZotMessageActions
{
  GtkWidget          parent_instance;

  GtkWidget         *row;          /* not owned: the row this belongs to */
  ZotTranscriptItem *item;
  gulong             notify_handler;
  GSimpleActionGroup *group;
  GtkWidget         *copy_button;
  GtkWidget         *edit_button;
  GtkWidget         *retry_button;
  GtkWidget         *delete_button;
  GtkWidget         *menu;         /* the context menu, a popover of this */
  gboolean           hovered;
  gboolean           focused;
};

G_DEFINE_FINAL_TYPE (ZotMessageActions, zot_message_actions, GTK_TYPE_WIDGET)

static gboolean
is_message (ZotTranscriptItem *item)
{
  int kind = item != NULL ? (int) zot_transcript_item_get_kind (item) : -1;

  if (kind == ZOT_TRANSCRIPT_ITEM_ASSISTANT)
    return !zot_transcript_item_get_streaming (item);
  return kind == ZOT_TRANSCRIPT_ITEM_USER || kind == ZOT_TRANSCRIPT_ITEM_SUMMARY;
}

static void
set_enabled (ZotMessageActions *self,
             const char        *name,
             GtkWidget         *button,
             gboolean           enabled)
{
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self->group), name)),
                               enabled);
  if (button != NULL)
    gtk_widget_set_visible (button, enabled);
}

static void
update (ZotMessageActions *self)
{
  ZotTranscriptItem *item = self->item;
  int kind = item != NULL ? (int) zot_transcript_item_get_kind (item) : -1;
  gboolean message = is_message (item);
  gboolean revealed = self->hovered || self->focused;

  set_enabled (self, "copy-markdown", self->copy_button, message);
  set_enabled (self, "copy-text", NULL, message);
  set_enabled (self, "edit", self->edit_button, kind == ZOT_TRANSCRIPT_ITEM_USER);
  set_enabled (self, "retry", self->retry_button, kind == ZOT_TRANSCRIPT_ITEM_ASSISTANT && message);
  set_enabled (self, "delete", self->delete_button,
               (kind == ZOT_TRANSCRIPT_ITEM_USER || (kind == ZOT_TRANSCRIPT_ITEM_ASSISTANT && message) ||
                (kind == ZOT_TRANSCRIPT_ITEM_TOOL && zot_transcript_item_get_parent_id (item) == NULL)));
  gtk_widget_set_visible (GTK_WIDGET (self), message || kind == ZOT_TRANSCRIPT_ITEM_TOOL);

  gtk_widget_set_opacity (GTK_WIDGET (self), revealed ? 1.0 : 0.0);
  gtk_widget_set_can_target (GTK_WIDGET (self), revealed);
  if (revealed)
    gtk_widget_add_css_class (GTK_WIDGET (self), "revealed");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "revealed");
}

/* The text of the row as shown: what its labels and text views hold. */
static void
collect_text (GtkWidget *widget,
              GString   *out)
{
  const char *text = NULL;
  g_autofree char *buffer_text = NULL;

  if (ZOT_IS_MESSAGE_ACTIONS (widget) || GTK_IS_POPOVER (widget) || !gtk_widget_get_visible (widget))
    return;

  if (GTK_IS_LABEL (widget))
    text = gtk_label_get_text (GTK_LABEL (widget));
  else if (GTK_IS_TEXT_VIEW (widget))
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
      GtkTextIter start, end;

      gtk_text_buffer_get_bounds (buffer, &start, &end);
      text = buffer_text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
    }

  if (text != NULL && *text != '\0')
    {
      if (out->len > 0)
        g_string_append (out, "\n\n");
      g_string_append (out, text);
      return;
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_text (child, out);
}

static void
copy (ZotMessageActions *self,
      gboolean           markdown)
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (self->item == NULL)
    return;

  /* A prompt is plain text already; a reply is copied as its Markdown,
   * or as the text its rendering shows. */
  if (markdown || zot_transcript_item_get_kind (self->item) != ZOT_TRANSCRIPT_ITEM_ASSISTANT)
    g_string_append (text, zot_transcript_item_get_text (self->item));
  else
    collect_text (self->row, text);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text->str);
  zot_tooltip_set (self->copy_button, _("Copied"));
}

static void
on_copy_markdown (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  copy (user_data, TRUE);
}

static void
on_copy_text (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  copy (user_data, FALSE);
}

/* The window acts on the item at its position in the transcript. */
static void
forward (ZotMessageActions *self,
         const char        *window_action)
{
  GtkWidget *transcript = gtk_widget_get_ancestor (GTK_WIDGET (self), ZOT_TYPE_TRANSCRIPT);
  guint position = 0;

  if (transcript == NULL || self->item == NULL ||
      !g_list_store_find (ZOT_TRANSCRIPT (transcript)->items, self->item, &position))
    return;

  gtk_widget_activate_action (GTK_WIDGET (self), window_action, "u", position);
}

static void
on_edit (GSimpleAction *action,
         GVariant      *parameter,
         gpointer       user_data)
{
  forward (user_data, "win.message-edit");
}

static void
on_retry (GSimpleAction *action,
          GVariant      *parameter,
          gpointer       user_data)
{
  forward (user_data, "win.message-retry");
}

static void
on_delete (GSimpleAction *action,
           GVariant      *parameter,
           gpointer       user_data)
{
  forward (user_data, "win.message-delete");
}

static const GActionEntry entries[] = {
  { "copy-markdown", on_copy_markdown, NULL, NULL, NULL },
  { "copy-text", on_copy_text, NULL, NULL, NULL },
  { "edit", on_edit, NULL, NULL, NULL },
  { "retry", on_retry, NULL, NULL, NULL },
  { "delete", on_delete, NULL, NULL, NULL },
};

static GMenuModel *
build_menu (void)
{
  GMenu *menu = g_menu_new ();
  g_autoptr(GMenu) copying = g_menu_new ();
  g_autoptr(GMenu) changing = g_menu_new ();

  g_menu_append (copying, _("Copy as _Markdown"), "message.copy-markdown");
  g_menu_append (copying, _("Copy as _Plain Text"), "message.copy-text");
  g_menu_append (changing, _("_Edit and Resend"), "message.edit");
  g_menu_append (changing, _("_Retry"), "message.retry");
  g_menu_append (changing, _("_Delete from the Conversation"), "message.delete");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (copying));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (changing));
  return G_MENU_MODEL (menu);
}

static GtkWidget *
add_button (ZotMessageActions *self,
            const char        *icon,
            const char        *action,
            const char        *label,
            const char        *css_class)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  zot_tooltip_set (button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, css_class);
  gtk_widget_set_parent (button, GTK_WIDGET (self));
  return button;
}

/* Hover and focus */

static void
on_enter (GtkEventControllerMotion *motion,
          double                    x,
          double                    y,
          ZotMessageActions        *self)
{
  self->hovered = TRUE;
  update (self);
}

static void
on_leave (GtkEventControllerMotion *motion,
          ZotMessageActions        *self)
{
  self->hovered = FALSE;
  update (self);
}

static void
on_focus_enter (GtkEventControllerFocus *focus,
                ZotMessageActions       *self)
{
  self->focused = TRUE;
  update (self);
}

static void
on_focus_leave (GtkEventControllerFocus *focus,
                ZotMessageActions       *self)
{
  self->focused = FALSE;
  update (self);
}

static void
on_right_click (GtkGestureClick   *gesture,
                int                n_press,
                double             x,
                double             y,
                ZotMessageActions *self)
{
  double bx = x, by = y;

  if (self->item == NULL || !gtk_widget_get_visible (GTK_WIDGET (self)))
    return;
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  gtk_widget_translate_coordinates (self->row, GTK_WIDGET (self), x, y, &bx, &by);
  zot_message_actions_popup (self, bx, by);
}

static gboolean
on_menu_key (GtkWidget *widget,
             GVariant  *args,
             gpointer   user_data)
{
  ZotMessageActions *self = user_data;

  if (self->item == NULL || !gtk_widget_get_visible (GTK_WIDGET (self)))
    return FALSE;
  zot_message_actions_popup (self, -1, -1);
  return TRUE;
}

static void
add_shortcut (GtkShortcutController *controller,
              const char            *trigger,
              GtkShortcutAction     *action)
{
  gtk_shortcut_controller_add_shortcut (controller,
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string (trigger), action));
}

/* The row's own controllers: they see the pointer and keys over and in
 * the whole row, message and buttons. */
static void
watch_row (ZotMessageActions *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *focus = gtk_event_controller_focus_new ();
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *keys = gtk_shortcut_controller_new ();

  g_signal_connect_object (motion, "enter", G_CALLBACK (on_enter), self, 0);
  g_signal_connect_object (motion, "leave", G_CALLBACK (on_leave), self, 0);
  gtk_widget_add_controller (self->row, motion);

  g_signal_connect_object (focus, "enter", G_CALLBACK (on_focus_enter), self, 0);
  g_signal_connect_object (focus, "leave", G_CALLBACK (on_focus_leave), self, 0);
  gtk_widget_add_controller (self->row, focus);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect_object (click, "pressed", G_CALLBACK (on_right_click), self, 0);
  gtk_widget_add_controller (self->row, GTK_EVENT_CONTROLLER (click));

  add_shortcut (GTK_SHORTCUT_CONTROLLER (keys), "Menu|<Shift>F10",
                gtk_callback_action_new (on_menu_key, self, NULL));
  add_shortcut (GTK_SHORTCUT_CONTROLLER (keys), "<Control><Shift>c",
                gtk_named_action_new ("message.copy-markdown"));
  add_shortcut (GTK_SHORTCUT_CONTROLLER (keys), "<Control><Shift>e", gtk_named_action_new ("message.edit"));
  add_shortcut (GTK_SHORTCUT_CONTROLLER (keys), "<Control><Shift>r", gtk_named_action_new ("message.retry"));
  add_shortcut (GTK_SHORTCUT_CONTROLLER (keys), "<Control>Delete", gtk_named_action_new ("message.delete"));
  gtk_widget_add_controller (self->row, keys);
}

static void
on_item_notify (ZotTranscriptItem *item,
                GParamSpec        *pspec,
                ZotMessageActions *self)
{
  if (pspec->name == g_intern_static_string ("streaming"))
    update (self);
}

/* GObject */

static void
zot_message_actions_dispose (GObject *object)
{
  ZotMessageActions *self = ZOT_MESSAGE_ACTIONS (object);
  GtkWidget *child;

  zot_message_actions_set_item (self, NULL);
  g_clear_pointer (&self->menu, gtk_widget_unparent);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->group);

  G_OBJECT_CLASS (zot_message_actions_parent_class)->dispose (object);
}

static void
zot_message_actions_class_init (ZotMessageActionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_message_actions_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "messageactions");
}

static void
zot_message_actions_init (ZotMessageActions *self)
{
  g_autoptr(GMenuModel) model = build_menu ();

  self->group = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->group), entries, G_N_ELEMENTS (entries), self);

  gtk_widget_set_halign (GTK_WIDGET (self), GTK_ALIGN_END);
  gtk_widget_add_css_class (GTK_WIDGET (self), "message-actions");
  self->copy_button = add_button (self, "edit-copy-symbolic", "message.copy-markdown",
                                  _("Copy Message"), "copy-button");
  self->edit_button = add_button (self, "document-edit-symbolic", "message.edit",
                                  _("Edit and Resend"), "edit-button");
  self->retry_button = add_button (self, "view-refresh-symbolic", "message.retry",
                                   _("Retry"), "retry-button");
  self->delete_button = add_button (self, "user-trash-symbolic", "message.delete",
                                    _("Delete from the Conversation"), "delete-button");

  self->menu = gtk_popover_menu_new_from_model (model);
  gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
  gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->menu, GTK_WIDGET (self));
}

/* API */

/**
 * zot_message_actions_new:
 * @row: the transcript row whose item the actions act on
 *
 * Returns: (transfer floating): the actions, for @row to hold
 */
GtkWidget *
zot_message_actions_new (GtkWidget *row)
{
  ZotMessageActions *self = g_object_new (ZOT_TYPE_MESSAGE_ACTIONS, NULL);

  g_return_val_if_fail (GTK_IS_WIDGET (row), NULL);

  self->row = row;
  gtk_widget_insert_action_group (row, "message", G_ACTION_GROUP (self->group));
  watch_row (self);
  update (self);
  return GTK_WIDGET (self);
}

/**
 * zot_message_actions_set_item:
 * @item: (nullable): the item the row shows now
 */
void
zot_message_actions_set_item (ZotMessageActions *self,
                              ZotTranscriptItem *item)
{
  g_return_if_fail (ZOT_IS_MESSAGE_ACTIONS (self));

  if (self->item != NULL)
    g_clear_signal_handler (&self->notify_handler, self->item);
  g_set_object (&self->item, item);
  if (item != NULL)
    self->notify_handler = g_signal_connect (item, "notify::streaming", G_CALLBACK (on_item_notify), self);
  if (self->copy_button != NULL)
    zot_tooltip_set (self->copy_button, _("Copy Message"));
  if (self->group != NULL)
    update (self);
}

/**
 * zot_message_actions_get_revealed:
 *
 * Returns: whether the buttons show: the pointer is over the row, or the
 *   focus in it
 */
gboolean
zot_message_actions_get_revealed (ZotMessageActions *self)
{
  g_return_val_if_fail (ZOT_IS_MESSAGE_ACTIONS (self), FALSE);

  return self->hovered || self->focused;
}

/**
 * zot_message_actions_popup:
 * @x: where, in @self's coordinates; -1 for under the buttons
 * @y: likewise
 *
 * Opens the context menu.
 */
void
zot_message_actions_popup (ZotMessageActions *self,
                           double             x,
                           double             y)
{
  g_return_if_fail (ZOT_IS_MESSAGE_ACTIONS (self));

  if (x >= 0 && y >= 0)
    gtk_popover_set_pointing_to (GTK_POPOVER (self->menu),
                                 &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  else
    gtk_popover_set_pointing_to (GTK_POPOVER (self->menu), NULL);
  gtk_popover_popup (GTK_POPOVER (self->menu));
}

/**
 * zot_message_actions_get_menu:
 *
 * Returns: (transfer none): the context menu's popover
 */
GtkWidget *
zot_message_actions_get_menu (ZotMessageActions *self)
{
  g_return_val_if_fail (ZOT_IS_MESSAGE_ACTIONS (self), NULL);

  return self->menu;
}
