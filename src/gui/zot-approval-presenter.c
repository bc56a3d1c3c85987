/* zot-approval-presenter.c — the open questions, oldest first
 *
 * Every ::approval-requested is taken (the handler returns TRUE), queued
 * and handed on through ::approval-added to whoever shows it (the
 * window's transcript, in the call's row). The approval's ::resolved
 * signal is what ends a question, wherever the answer came from: the row,
 * a notification button through zot_approval_presenter_resolve(), or
 * someone else holding the approval. A question whose approval goes away
 * unanswered (the run was cancelled and the core dropped it) ends too.
 * Ending withdraws the notification.
 */
#define G_LOG_DOMAIN "zot-approval-presenter"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-approval-presenter.h"
#include "zot-approval-presenter-private.h"
#include "zot-limits.h"

typedef struct _Item Item;

struct _ZotApprovalPresenter
{
  GObject              parent_instance;

  GWeakRef             parent;
  ZotExtensionManager *manager;
  gulong               requested_id;

  GQueue               waiting;       /* Items open, oldest first */
};

struct _Item
{
  ZotApprovalPresenter *self;
  ZotApproval          *approval;     /* weak: the core owns it */
  char                 *id;
  gulong                resolved_id;
  gboolean              notified;
};

G_DEFINE_FINAL_TYPE (ZotApprovalPresenter, zot_approval_presenter, G_TYPE_OBJECT)

enum {
  APPROVAL_ADDED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

static guint last_serial;

static void finish_item (ZotApprovalPresenter *self,
                         Item                 *item);

static GApplication *
get_application (ZotApprovalPresenter *self)
{
  g_autoptr(GtkWindow) parent = g_weak_ref_get (&self->parent);
  GApplication *app = NULL;

  if (parent != NULL)
    app = G_APPLICATION (gtk_window_get_application (parent));
  if (app == NULL)
    app = g_application_get_default ();

  /* Notifications need a registered, primary instance on the session bus. */
  if (app == NULL || !g_application_get_is_registered (app) || g_application_get_is_remote (app) ||
      g_application_get_dbus_connection (app) == NULL)
    return NULL;
  return app;
}

static void
on_approval_resolved_cb (ZotApproval *approval,
                         int          choice,
                         Item        *item)
{
  finish_item (item->self, item);
}

static void
on_approval_finalized_cb (gpointer  data,
                          GObject  *where_the_object_was)
{
  Item *item = data;

  /* Its handlers went with it. */
  item->approval = NULL;
  item->resolved_id = 0;
  finish_item (item->self, item);
}

static Item *
item_new (ZotApprovalPresenter *self,
          ZotApproval          *approval)
{
  Item *item = g_new0 (Item, 1);

  item->self = self;
  item->approval = approval;
  item->id = g_strdup_printf ("approval-%u", ++last_serial);
  item->resolved_id = g_signal_connect (approval, "resolved",
                                        G_CALLBACK (on_approval_resolved_cb), item);
  g_object_weak_ref (G_OBJECT (approval), on_approval_finalized_cb, item);
  return item;
}

/* Forgets the approval and the notification; frees @item. */
static void
item_release (Item *item)
{
  if (item->approval != NULL)
    {
      g_clear_signal_handler (&item->resolved_id, item->approval);
      g_object_weak_unref (G_OBJECT (item->approval), on_approval_finalized_cb, item);
      item->approval = NULL;
    }

  if (item->notified)
    {
      GApplication *app = get_application (item->self);

      if (app != NULL)
        g_application_withdraw_notification (app, item->id);
    }

  g_free (item->id);
  g_free (item);
}

static void
send_notification (ZotApprovalPresenter *self,
                   Item                 *item)
{
  GApplication *app = get_application (self);
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *title = NULL;
  g_autofree char *body = NULL;
  gboolean cut = FALSE;

  if (app == NULL)
    return;

  /* Translators: a desktop notification's title asking to approve a tool call; %s is the tool's
   * name, such as bash */
  title = g_strdup_printf (_("%s wants to run"), zot_approval_get_tool_name (item->approval));
  notification = g_notification_new (title);
  /* A notification is short by nature: it shows the head of the command
   * on one line, and a cut one says where the rest is. */
  body = zot_approval_escape_text (zot_approval_get_detail (item->approval), FALSE,
                                   ZOT_APPROVAL_PREVIEW_MAX_CHARS, &cut);
  if (cut)
    {
      g_autofree char *head = g_steal_pointer (&body);

      /* Translators: ends the shortened command in an approval's notification; the window's
       * row shows all of it */
      body = g_strconcat (head, _("… (open the window to see all of it)"), NULL);
    }
  g_notification_set_body (notification, body);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
  /* Translators: a button of the notification: let the tool call run */
  g_notification_add_button_with_target (notification, _("Allow"),
                                         ZOT_APPROVAL_ALLOW_ACTION, "s", item->id);
  /* Translators: a button of the notification: refuse the tool call */
  g_notification_add_button_with_target (notification, _("Deny"),
                                         ZOT_APPROVAL_DENY_ACTION, "s", item->id);

  g_application_send_notification (app, item->id, notification);
  item->notified = TRUE;
}

/* The question of @item is over: answered here or elsewhere, or dropped. */
static void
finish_item (ZotApprovalPresenter *self,
             Item                 *item)
{
  g_queue_remove (&self->waiting, item);
  item_release (item);
}

/* The parent window is not active while another of our windows (the
 * preferences) is, and the user is still here then: notify only when no
 * window of the application is active. */
static gboolean
any_window_active (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n_items = g_list_model_get_n_items (toplevels);

  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (gtk_window_is_active (window))
        return TRUE;
    }
  return FALSE;
}

static gboolean
on_approval_requested_cb (ZotExtensionManager  *manager,
                          ZotApproval          *approval,
                          ZotApprovalPresenter *self)
{
  Item *item;

  if (zot_approval_is_resolved (approval))
    return FALSE;

  item = item_new (self, approval);
  g_queue_push_tail (&self->waiting, item);

  /* Someone looking elsewhere hears of it. */
  if (!any_window_active ())
    send_notification (self, item);

  g_signal_emit (self, signals [APPROVAL_ADDED], 0, approval);

  return TRUE;
}

static void
zot_approval_presenter_dispose (GObject *object)
{
  ZotApprovalPresenter *self = (ZotApprovalPresenter *)object;
  g_autoptr(GPtrArray) approvals = g_ptr_array_new_with_free_func (g_object_unref);
  Item *item;

  if (self->manager != NULL)
    g_clear_signal_handler (&self->requested_id, self->manager);

  /* Nobody is left to answer: every open question is a no. */
  while ((item = g_queue_pop_head (&self->waiting)) != NULL)
    {
      if (item->approval != NULL)
        g_ptr_array_add (approvals, g_object_ref (item->approval));
      item_release (item);
    }
  for (guint i = 0; i < approvals->len; i++)
    zot_approval_resolve (g_ptr_array_index (approvals, i), ZOT_APPROVAL_DENY);

  g_clear_object (&self->manager);

  G_OBJECT_CLASS (zot_approval_presenter_parent_class)->dispose (object);
}

static void
zot_approval_presenter_finalize (GObject *object)
{
  ZotApprovalPresenter *self = (ZotApprovalPresenter *)object;

  g_weak_ref_clear (&self->parent);

  G_OBJECT_CLASS (zot_approval_presenter_parent_class)->finalize (object);
}

static void
zot_approval_presenter_class_init (ZotApprovalPresenterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_approval_presenter_dispose;
  object_class->finalize = zot_approval_presenter_finalize;

  /**
   * ZotApprovalPresenter::approval-added:
   * @approval: a new open question
   *
   * For the view that shows it; answering it is up to that view (or the
   * notification).
   */
  signals [APPROVAL_ADDED] =
    g_signal_new ("approval-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_APPROVAL);
}

static void
zot_approval_presenter_init (ZotApprovalPresenter *self)
{
  g_weak_ref_init (&self->parent, NULL);
  g_queue_init (&self->waiting);
}

/**
 * zot_approval_presenter_new:
 * @parent: (nullable): the window whose application notifies
 * @manager: whose questions to ask
 *
 * Returns: (transfer full): a presenter answering every approval request
 *   of @manager until it is disposed; disposing it denies what is still open
 */
ZotApprovalPresenter *
zot_approval_presenter_new (GtkWindow           *parent,
                            ZotExtensionManager *manager)
{
  ZotApprovalPresenter *self;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (manager), NULL);

  self = g_object_new (ZOT_TYPE_APPROVAL_PRESENTER, NULL);
  g_weak_ref_set (&self->parent, parent);
  self->manager = g_object_ref (manager);
  self->requested_id = g_signal_connect_object (manager, "approval-requested",
                                                G_CALLBACK (on_approval_requested_cb), self, 0);
  return self;
}

static Item *
find_item (ZotApprovalPresenter *self,
           const char           *id)
{
  for (GList *l = self->waiting.head; l != NULL; l = l->next)
    {
      Item *item = l->data;

      if (g_strcmp0 (item->id, id) == 0)
        return item;
    }
  return NULL;
}

/**
 * zot_approval_presenter_resolve:
 * @id: the target of the notification's action
 * @choice: the answer
 *
 * Answers the question @id, as the "app.approval-allow" and
 * "app.approval-deny" actions do. An unknown or already answered @id is
 * ignored, so the application may pass it to every window's presenter.
 */
void
zot_approval_presenter_resolve (ZotApprovalPresenter *self,
                                const char           *id,
                                ZotApprovalChoice     choice)
{
  Item *item;

  g_return_if_fail (ZOT_IS_APPROVAL_PRESENTER (self));
  g_return_if_fail (id != NULL);

  item = find_item (self, id);
  if (item == NULL || item->approval == NULL)
    return;

  zot_approval_resolve (item->approval, choice);
}

static Item *
oldest (ZotApprovalPresenter *self)
{
  for (GList *l = self->waiting.head; l != NULL; l = l->next)
    {
      Item *item = l->data;

      if (item->approval != NULL && !zot_approval_is_resolved (item->approval))
        return item;
    }
  return NULL;
}

/**
 * zot_approval_presenter_get_oldest:
 *
 * Returns: (transfer none) (nullable): the open question asked first,
 *   the one Alt+A and Alt+D go to
 */
ZotApproval *
zot_approval_presenter_get_oldest (ZotApprovalPresenter *self)
{
  Item *item;

  g_return_val_if_fail (ZOT_IS_APPROVAL_PRESENTER (self), NULL);

  item = oldest (self);
  return item != NULL ? item->approval : NULL;
}

const char *
_zot_approval_presenter_get_oldest_id (ZotApprovalPresenter *self)
{
  Item *item;

  g_return_val_if_fail (ZOT_IS_APPROVAL_PRESENTER (self), NULL);

  item = oldest (self);
  return item != NULL ? item->id : NULL;
}

guint
_zot_approval_presenter_get_n_open (ZotApprovalPresenter *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL_PRESENTER (self), 0);
  return self->waiting.length;
}
