/* zot-window-actions.c — what the window's menu, buttons and shortcuts do.
 *
 * The actions are installed on the window class ("win.new-conversation",
 * "win.reload-extensions", "win.install-extension", "win.preferences",
 * "win.yolo", "win.show-panel", "win.show-side-page"), so the header
 * bar, the primary menu, the key bindings and the host's built-in
 * commands (/settings, /yolo, through ZotHost::activate-action) all reach
 * the same code. Each needs the host: until the window has one (it reads
 * the keyring first), they are disabled, in _zot_window_actions_update().
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-install-dialog.h"
#include "zot-message-actions.h"
#include "zot-preferences-window.h"
#include "zot-window-private.h"

/* Ctrl+N, the header's button (a stray Space on it included) and the
 * sidebar's +: while a turn runs, the window asks first. */
static void
new_conversation_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  _zot_window_new_conversation (ZOT_WINDOW (widget), FALSE);
}

static void
new_continuous_conversation_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *parameter)
{
  _zot_window_new_conversation (ZOT_WINDOW (widget), TRUE);
}

static void
resumed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (self->host == NULL)
    return;
  text = zot_host_resume_finish (self->host, result, &error);
  if (text == NULL && error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    zot_window_show_toast (self, error->message);
}

static void
resume_step_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);

  if (self->host == NULL || !zot_agent_has_pending_step (zot_host_get_agent (self->host)))
    return;

  gtk_revealer_set_reveal_child (self->resume_bar, FALSE);
  zot_host_resume_async (self->host, self->cancellable, resumed_cb, g_object_ref (self));
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  zot_find_bar_open (ZOT_WINDOW (widget)->find_bar);
}

static void
toggle_sidebar_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, !adw_flap_get_reveal_flap (self->flap));
}

static void
reload_extensions_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);

  if (self->host != NULL)
    _zot_window_submit_command (self, "/reload-ext");
}

static void
preferences_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  GtkWidget *preferences;

  if (self->host == NULL)
    return;

  preferences = zot_preferences_window_new (GTK_WINDOW (self), self->host);
  gtk_window_present (GTK_WINDOW (preferences));
}

static void
install_extension_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);

  if (self->host == NULL)
    return;

  zot_install_dialog_choose (GTK_WINDOW (self), self->host);
}

/* Toggles between asking before tool calls that change things and
 * approving every one, for this window and as the preference. */
static void
yolo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  ZotExtensionManager *manager;
  gboolean yolo;

  if (self->host == NULL)
    return;

  /* The window follows ZotExtensionManager:policy for the preference and
   * the toast (see _zot_window_on_policy_notify()). */
  manager = zot_host_get_manager (self->host);
  yolo = zot_extension_manager_get_policy (manager) != ZOT_APPROVAL_POLICY_YOLO;
  zot_extension_manager_set_policy (manager, yolo ? ZOT_APPROVAL_POLICY_YOLO : ZOT_APPROVAL_POLICY_ASK);
}

/* Reveals the side pane's panels and focuses the one named by the
 * parameter, "EXTENSION/ID" (zot_panel_get_key()): how a tool row that
 * waits for the user jumps to its panel. */
static void
show_panel_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  const char *key = g_variant_get_string (parameter, NULL);

  gtk_toggle_button_set_active (self->side_pane_button, TRUE);
  adw_view_stack_set_visible_child_name (self->side_stack, "panels");
  if (!zot_panel_pane_show_panel (self->panel_pane, key))
    zot_window_show_toast (self, _("That panel is closed"));
}

/* Brings the side pane's page named by the parameter ("panels", "notes",
 * "inspector", "extensions") and moves the keyboard focus into it: how
 * Alt+1 to Alt+4 reach the pages without a pointer. */
static void
show_side_page_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  const char *name = g_variant_get_string (parameter, NULL);
  GtkWidget *page = adw_view_stack_get_child_by_name (self->side_stack, name);

  if (page == NULL)
    return;

  gtk_toggle_button_set_active (self->side_pane_button, TRUE);
  adw_view_stack_set_visible_child (self->side_stack, page);
  gtk_widget_child_focus (page, GTK_DIR_TAB_FORWARD);
}

/* However the policy changed, the preference and the user hear of it. */
void
_zot_window_on_policy_notify (ZotExtensionManager *manager,
                              GParamSpec          *pspec,
                              ZotWindow           *self)
{
  ZotApprovalPolicy policy = zot_extension_manager_get_policy (manager);

  g_settings_set_enum (self->settings, "approval-policy", policy);
  zot_window_show_toast (self, policy == ZOT_APPROVAL_POLICY_YOLO
                               /* Translators: toasts after switching "Approve Everything" in the
                                * main menu on and off */
                               ? _("Every tool call is now approved without asking")
                               : _("Tool calls that change things ask first again"));
}

void
_zot_window_class_actions_init (ZotWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  _zot_message_actions_install (widget_class);
  gtk_widget_class_install_action (widget_class, "win.new-conversation", NULL, new_conversation_action);
  gtk_widget_class_install_action (widget_class, "win.new-continuous-conversation", NULL,
                                   new_continuous_conversation_action);
  gtk_widget_class_install_action (widget_class, "win.resume-step", NULL, resume_step_action);
  gtk_widget_class_install_action (widget_class, "win.reload-extensions", NULL, reload_extensions_action);
  gtk_widget_class_install_action (widget_class, "win.install-extension", NULL, install_extension_action);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-sidebar", NULL, toggle_sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.preferences", NULL, preferences_action);
  gtk_widget_class_install_action (widget_class, "win.yolo", NULL, yolo_action);
  gtk_widget_class_install_action (widget_class, "win.show-panel", "s", show_panel_action);
  gtk_widget_class_install_action (widget_class, "win.show-side-page", "s", show_side_page_action);

  /* The shortcuts are the application's (zot-application.c), where the
   * shortcuts window (gtk/help-overlay.ui) reads them. */
}

/**
 * _zot_window_actions_update:
 *
 * Sets which actions can run now: all of them once the window has its
 * host, none before.
 */
void
_zot_window_actions_update (ZotWindow *self)
{
  gboolean has_host;

  g_return_if_fail (ZOT_IS_WINDOW (self));

  has_host = self->host != NULL;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-conversation", has_host);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-continuous-conversation", has_host);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reload-extensions", has_host);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.install-extension", has_host);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.preferences", has_host);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.yolo", has_host);
}
