/* zot-approval-presenter.h — asks the user whether a tool call may run.
 *
 * Takes every ::approval-requested of its manager, keeps the open
 * questions in order and hands each on through ::approval-added to the
 * view that shows it (the window's transcript, inline in the call's row).
 * While no window of the application is active it also sends a
 * GNotification with "Allow" and "Deny" buttons.
 *
 * The notification's buttons activate two application actions with the
 * approval's id (a string) as target; the application defines them and
 * calls zot_approval_presenter_resolve():
 *
 * |[<!-- language="C" -->
 * static void
 * approval_allow_cb (GSimpleAction *action, GVariant *id, gpointer user_data)
 * {
 *   // for each window's presenter: unknown ids are ignored
 *   zot_approval_presenter_resolve (presenter, g_variant_get_string (id, NULL),
 *                                   ZOT_APPROVAL_ALLOW);
 * }
 *
 * static const GActionEntry app_entries[] = {
 *   { "approval-allow", approval_allow_cb, "s" },
 *   { "approval-deny", approval_deny_cb, "s" },   // same, with ZOT_APPROVAL_DENY
 * };
 * ]|
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-approval.h"
#include "zot-extension-manager.h"

G_BEGIN_DECLS

#define ZOT_APPROVAL_ALLOW_ACTION "app.approval-allow"
#define ZOT_APPROVAL_DENY_ACTION  "app.approval-deny"

#define ZOT_TYPE_APPROVAL_PRESENTER (zot_approval_presenter_get_type ())
G_DECLARE_FINAL_TYPE (ZotApprovalPresenter, zot_approval_presenter,
                      ZOT, APPROVAL_PRESENTER, GObject)

ZotApprovalPresenter *zot_approval_presenter_new     (GtkWindow            *parent,
                                                      ZotExtensionManager  *manager);
void                  zot_approval_presenter_resolve (ZotApprovalPresenter *self,
                                                      const char           *id,
                                                      ZotApprovalChoice     choice);
ZotApproval          *zot_approval_presenter_get_oldest (ZotApprovalPresenter *self);

G_END_DECLS
