/* zot-window-approvals.c — approvals in the window
 *
 * The presenter hands each open question to the transcript, which shows
 * it in the call's row. Alt+A and Alt+D go to the oldest open question:
 * the first press scrolls to its row and focuses it, a press while it is
 * in view and focused answers (zot_transcript_focus_approval()).
 */
#define G_LOG_DOMAIN "zot-window"

#include "config.h"

#include "zot-window-private.h"

static void
on_approval_added_cb (ZotApprovalPresenter *presenter,
                      ZotApproval          *approval,
                      ZotWindow            *self)
{
  zot_transcript_show_approval (self->transcript, approval);
}

void
_zot_window_watch_approvals (ZotWindow *self)
{
  g_signal_connect_object (self->approvals, "approval-added", G_CALLBACK (on_approval_added_cb), self, 0);
}

static void
answer_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  ZotApproval *oldest = self->approvals != NULL ? zot_approval_presenter_get_oldest (self->approvals) : NULL;

  if (oldest == NULL)
    return;

  zot_transcript_focus_approval (self->transcript, oldest,
                                 g_str_equal (action_name, "win.approval-deny")
                                   ? ZOT_APPROVAL_DENY : ZOT_APPROVAL_ALLOW);
}

void
_zot_window_class_approvals_init (ZotWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.approval-allow", NULL, answer_action);
  gtk_widget_class_install_action (widget_class, "win.approval-deny", NULL, answer_action);
  /* On the window itself too, not only the application's accelerators:
   * a window without the application (the tests) has them as well. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, GDK_ALT_MASK, "win.approval-allow", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_d, GDK_ALT_MASK, "win.approval-deny", NULL);
}
