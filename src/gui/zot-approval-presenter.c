/* zot-approval-presenter.c — one question at a time
 *
 * Every ::approval-requested is taken (the handler returns TRUE) and
 * queued. The head of the queue gets an AdwMessageDialog; its response
 * resolves the ZotApproval, and the approval's ::resolved signal is what
 * ends a question, wherever the answer came from: the dialog, a
 * notification button through zot_approval_presenter_resolve(), or someone
 * else holding the approval. A question whose approval goes away unanswered
 * (the run was cancelled and the core dropped it) ends too. Ending closes
 * the dialog, withdraws the notification and shows the next question.
 */
#define G_LOG_DOMAIN "zot-approval-presenter"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-approval-presenter.h"
#include "zot-approval-presenter-private.h"
#include "zot-bounded-text.h"
#include "zot-limits.h"
#include "zot-wrap-safe-gtk.h"

/* The command's view grows with it up to this height, then scrolls. */
#define PREVIEW_MAX_HEIGHT 320

typedef struct _Item Item;

struct _ZotApprovalPresenter
{
  GObject              parent_instance;

  GWeakRef             parent;
  ZotExtensionManager *manager;
  gulong               requested_id;

  GQueue               waiting;       /* Items not shown yet, oldest first */
  Item                *current;       /* the one the dialog asks */
  AdwMessageDialog    *dialog;        /* weak */
  gulong               response_id;
  guint                next_source;
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
       * dialog shows all of it */
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

static ZotApprovalChoice
choice_for_response (const char *response)
{
  if (g_strcmp0 (response, "allow") == 0)
    return ZOT_APPROVAL_ALLOW;
  if (g_strcmp0 (response, "allow-tool") == 0)
    return ZOT_APPROVAL_ALLOW_TOOL;
  if (g_strcmp0 (response, "allow-all") == 0)
    return ZOT_APPROVAL_ALLOW_ALL;
  return ZOT_APPROVAL_DENY;
}

static void
on_dialog_response_cb (AdwMessageDialog     *dialog,
                       const char           *response,
                       ZotApprovalPresenter *self)
{
  Item *item = self->current;

  if (item == NULL || item->approval == NULL)
    return;

  /* ::resolved ends the question; nothing after this line may touch @item. */
  zot_approval_resolve (item->approval, choice_for_response (response));
}

static gboolean
destroy_dialog_cb (gpointer data)
{
  gtk_window_destroy (GTK_WINDOW (data));
  return G_SOURCE_REMOVE;
}

static void
close_dialog (ZotApprovalPresenter *self)
{
  AdwMessageDialog *dialog = self->dialog;

  if (dialog == NULL)
    return;

  g_clear_signal_handler (&self->response_id, dialog);
  g_clear_weak_pointer (&self->dialog);

  /* Not now: this may run inside the dialog's own ::response. */
  g_idle_add_full (G_PRIORITY_DEFAULT, destroy_dialog_cb, g_object_ref (dialog), g_object_unref);
}

/* The whole command, never cut: its size first, so that a user knows how
 * much there is to read, then all of it in a monospace view that scrolls
 * past PREVIEW_MAX_HEIGHT, line breaks, tabs and control characters
 * visible (zot_approval_escape_text()). */
static GtkWidget *
build_preview (ZotApproval *approval)
{
  const char *detail = zot_approval_get_detail (approval);
  g_autofree char *shown = zot_approval_escape_text (detail, TRUE, 0, NULL);
  g_autofree char *chars_text = NULL;
  g_autofree char *size_text = NULL;
  GtkWidget *box;
  GtkWidget *size;
  GtkWidget *scroller;
  GtkWidget *view;
  guint chars;
  guint lines;

  zot_approval_count_text (detail, &chars, &lines);
  /* Translators: the size of the command an approval shows; followed by the number of its
   * lines, as in "312 characters, 61 lines" */
  chars_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u character", "%u characters",
                                             chars), chars);
  /* Translators: %s is the number of characters ("312 characters"), %u the number of lines */
  size_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %u line", "%s, %u lines",
                                            lines), chars_text, lines);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  size = gtk_label_new (size_text);
  gtk_label_set_xalign (GTK_LABEL (size), 0);
  gtk_widget_add_css_class (size, "dim-label");
  gtk_widget_add_css_class (size, "caption");
  gtk_widget_add_css_class (size, "approval-size");
  gtk_box_append (GTK_BOX (box), size);

  view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  zot_wrap_safe_text_view_set_text (GTK_TEXT_VIEW (view), shown, -1);
  /* A long run without white space (a blob of base64) would take Pango
   * minutes to wrap by word and character. */
  if (zot_bounded_text_wrap_mode (shown) == PANGO_WRAP_CHAR)
    gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_CHAR);
  gtk_widget_add_css_class (view, "approval-preview");

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller),
                                  GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), PREVIEW_MAX_HEIGHT);
  /* A scrollbar that stays shows that there is more below. */
  gtk_scrolled_window_set_overlay_scrolling (GTK_SCROLLED_WINDOW (scroller), FALSE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_box_append (GTK_BOX (box), scroller);

  return box;
}

static void
present_dialog (ZotApprovalPresenter *self,
                Item                 *item)
{
  g_autoptr(GtkWindow) parent = g_weak_ref_get (&self->parent);
  const char *origin = zot_approval_get_origin_extension (item->approval);
  const char *agent_id = zot_approval_get_agent_id (item->approval);
  const char *agent_name = zot_approval_get_agent_name (item->approval);
  g_autofree char *tool_name = NULL;
  g_autofree char *requester = NULL;
  AdwMessageDialog *dialog;

  /* The dialog's heading and body wrap by word and character too. */
  tool_name = zot_wrap_safe_text (zot_approval_get_tool_name (item->approval), -1);
  if (agent_id != NULL && agent_name != NULL && *agent_name != '\0')
    requester = zot_wrap_safe_text (agent_name, -1);
  else if (agent_id != NULL)
    requester = zot_wrap_safe_text (agent_id, -1);
  else if (origin != NULL && *origin != '\0')
    requester = zot_wrap_safe_text (origin, -1);

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (parent, NULL, NULL));
  /* Translators: dialog heading asking to approve a tool call; %s is the tool's name, such as
   * bash */
  adw_message_dialog_format_heading (dialog, _("Allow %s?"), tool_name);
  if (agent_id != NULL)
    /* Translators: a subagent is a second agent the model started for a part of the task; %s is
     * its name */
    adw_message_dialog_format_body (dialog, _("Requested by the subagent “%s”"), requester);
  else if (zot_approval_get_from_script (item->approval))
    /* Translators: codemode lets the model write a short script that calls tools; a codemode
     * script is such a script */
    adw_message_dialog_format_body (dialog, _("Requested by a codemode script"));
  else if (requester != NULL)
    /* Translators: %s is the extension's name */
    adw_message_dialog_format_body (dialog, _("Requested by the extension “%s”"), requester);

  adw_message_dialog_set_extra_child (dialog, build_preview (item->approval));

  adw_message_dialog_add_responses (dialog,
                                    /* Translators: the answer that refuses this tool call */
                                    "deny", _("_Deny"),
                                    /* Translators: answers to the approval dialog: allow every
                                     * tool call until the conversation ends; allow this tool
                                     * from now on; allow only this call */
                                    "allow-all", _("Always this _session"),
                                    "allow-tool", _("Always for this _tool"),
                                    /* Translators: the answer that lets only this one tool call
                                     * run */
                                    "allow", _("_Allow once"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "deny", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "allow", ADW_RESPONSE_SUGGESTED);
  /* Escape or closing the dialog is a no. */
  adw_message_dialog_set_close_response (dialog, "deny");

  gtk_window_set_modal (GTK_WINDOW (dialog), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);

  self->response_id = g_signal_connect (dialog, "response",
                                        G_CALLBACK (on_dialog_response_cb), self);
  g_set_weak_pointer (&self->dialog, dialog);

  gtk_window_present (GTK_WINDOW (dialog));
}

static void
show_next (ZotApprovalPresenter *self)
{
  Item *item;

  if (self->current != NULL)
    return;

  while ((item = g_queue_pop_head (&self->waiting)) != NULL)
    {
      if (item->approval != NULL && !zot_approval_is_resolved (item->approval))
        {
          self->current = item;
          present_dialog (self, item);
          return;
        }
      item_release (item);
    }
}

static gboolean
show_next_cb (gpointer data)
{
  ZotApprovalPresenter *self = data;

  self->next_source = 0;
  show_next (self);
  return G_SOURCE_REMOVE;
}

/* The question of @item is over: answered here or elsewhere, or dropped. */
static void
finish_item (ZotApprovalPresenter *self,
             Item                 *item)
{
  if (item == self->current)
    {
      self->current = NULL;
      close_dialog (self);
      if (self->next_source == 0)
        self->next_source = g_idle_add (show_next_cb, self);
    }
  else
    {
      g_queue_remove (&self->waiting, item);
    }

  item_release (item);
}

/* The parent window is not active while our own dialog (or the
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

  if (self->current == NULL && self->next_source == 0)
    show_next (self);

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
  g_clear_handle_id (&self->next_source, g_source_remove);

  if (self->dialog != NULL)
    {
      AdwMessageDialog *dialog = self->dialog;

      g_clear_signal_handler (&self->response_id, dialog);
      g_clear_weak_pointer (&self->dialog);
      gtk_window_destroy (GTK_WINDOW (dialog));
    }

  /* Nobody is left to answer: every open question is a no. */
  if (self->current != NULL)
    g_queue_push_head (&self->waiting, g_steal_pointer (&self->current));
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
}

static void
zot_approval_presenter_init (ZotApprovalPresenter *self)
{
  g_weak_ref_init (&self->parent, NULL);
  g_queue_init (&self->waiting);
}

/**
 * zot_approval_presenter_new:
 * @parent: (nullable): the window the dialogs belong to
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
  if (self->current != NULL && g_strcmp0 (self->current->id, id) == 0)
    return self->current;

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

/**
 * _zot_approval_presenter_get_current:
 *
 * Returns: (transfer none) (nullable): the approval the dialog asks about
 */
ZotApproval *
_zot_approval_presenter_get_current (ZotApprovalPresenter *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL_PRESENTER (self), NULL);
  return self->current ? self->current->approval : NULL;
}

const char *
_zot_approval_presenter_get_current_id (ZotApprovalPresenter *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL_PRESENTER (self), NULL);
  return self->current ? self->current->id : NULL;
}

AdwMessageDialog *
_zot_approval_presenter_get_dialog (ZotApprovalPresenter *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL_PRESENTER (self), NULL);
  return self->dialog;
}

guint
_zot_approval_presenter_get_n_waiting (ZotApprovalPresenter *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL_PRESENTER (self), 0);
  return self->waiting.length;
}

/**
 * _zot_approval_presenter_respond:
 * @response_id: "allow", "allow-tool", "allow-all" or "deny"
 *
 * What clicking that button of the current dialog does.
 */
void
_zot_approval_presenter_respond (ZotApprovalPresenter *self,
                                 const char           *response_id)
{
  g_return_if_fail (ZOT_IS_APPROVAL_PRESENTER (self));
  g_return_if_fail (response_id != NULL);

  if (self->dialog != NULL)
    adw_message_dialog_response (self->dialog, response_id);
}
