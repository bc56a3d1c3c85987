/* zot-approval-row.c — a tool call's approval, inline in its row
 *
 * The approval dialog this replaces took the keyboard with "Allow once"
 * focused, so that a space typed for the next message approved a shell
 * command. Here nothing takes the focus: the buttons are reached by the
 * pointer, by Tab, or by Alt+A / Alt+D, which first only bring the row
 * into view and focus it (zot-window-approvals.c).
 */
#define G_LOG_DOMAIN "zot-approval-row"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-approval-row.h"
#include "zot-bounded-text.h"
#include "zot-limits.h"

/* The preview grows with what it shows up to this height, then scrolls. */
#define PREVIEW_MAX_HEIGHT 240

struct _ZotApprovalRow
{
  GtkWidget    parent_instance;

  ZotApproval *approval;
  gulong       resolved_id;

  GtkWidget   *heading;
  GtkWidget   *preview;
  GtkWidget   *scroller;
  GtkWidget   *cwd;
  GtkWidget   *answers;
  GtkWidget   *allow;
  GtkWidget   *remember;
  GtkWidget   *deny;
  GtkWidget   *reason;
  GtkWidget   *outcome;
};

G_DEFINE_FINAL_TYPE (ZotApprovalRow, zot_approval_row, GTK_TYPE_WIDGET)

/* The tools whose every call a person must see: a remembered approval
 * would let the model run any command or change any file unseen. */
static const char * const never_remembered[] = { "bash", "write", "edit", NULL };

/**
 * zot_approval_offers_remember:
 *
 * Returns: whether "Always allow this tool in this conversation" is
 *   offered for @approval: never for bash, write or edit, nor for a tool
 *   whose extension calls it destructive
 */
gboolean
zot_approval_offers_remember (ZotApproval *approval)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (approval), FALSE);

  return zot_approval_get_can_remember (approval) &&
         !g_strv_contains (never_remembered, zot_approval_get_tool_name (approval));
}

/**
 * zot_approval_describe_state:
 *
 * Returns: (transfer full): "waiting for your approval", or what the
 *   answer was, for the row's status
 */
char *
zot_approval_describe_state (ZotApproval *approval)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL (approval), NULL);

  if (!zot_approval_is_resolved (approval))
    /* Translators: a tool call's state while it waits for the user to allow or deny it */
    return g_strdup (_("waiting for your approval"));
  if (zot_approval_get_withdrawn (approval))
    /* Translators: a tool call's approval: the call was cancelled before the user answered */
    return g_strdup (_("cancelled before an answer"));

  switch (zot_approval_get_choice (approval))
    {
    case ZOT_APPROVAL_ALLOW:
      /* Translators: a tool call's approval: the user allowed this one call */
      return g_strdup (_("allowed once"));
    case ZOT_APPROVAL_ALLOW_TOOL:
      /* Translators: a tool call's approval: the user allowed the tool until the conversation
       * ends */
      return g_strdup (_("allowed for this conversation"));
    case ZOT_APPROVAL_ALLOW_ALL:
      /* Translators: a tool call's approval: the user allowed every tool until the conversation
       * ends */
      return g_strdup (_("all tools allowed for this conversation"));
    case ZOT_APPROVAL_DENY:
    default:
      if (zot_approval_get_reason (approval) != NULL)
        /* Translators: a tool call's approval: the user denied it; %s is the reason they gave */
        return g_strdup_printf (_("denied: %s"), zot_approval_get_reason (approval));
      /* Translators: a tool call's approval: the user denied it */
      return g_strdup (_("denied"));
    }
}

static const char *
args_string (ZotApproval *approval,
             const char  *key)
{
  JsonObject *args = zot_approval_get_args (approval);
  JsonNode *node = args != NULL ? json_object_get_member (args, key) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static void
append_prefixed (GString    *out,
                 const char *prefix,
                 const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *shown = zot_approval_escape_text (lines[i], FALSE, 0, NULL);

      if (out->len > 0)
        g_string_append_c (out, '\n');
      g_string_append (out, prefix);
      g_string_append (out, shown);
    }
}

/* What the call will do, whole and with every control character visible
 * (zot_approval_escape_text()): the command for bash, the path and a
 * diff for edit, the path and the content for write, the detail the core
 * picked for any other tool. */
static char *
build_preview_text (ZotApproval *approval)
{
  const char *name = zot_approval_get_tool_name (approval);
  const char *path = args_string (approval, "path");
  const char *old_text = args_string (approval, "old_text");
  const char *new_text = args_string (approval, "new_text");
  const char *content = args_string (approval, "content");
  GString *out = g_string_new (NULL);

  if (g_str_equal (name, "edit") && path != NULL && old_text != NULL && new_text != NULL)
    {
      g_autofree char *shown = zot_approval_escape_text (path, FALSE, 0, NULL);

      g_string_append_printf (out, "--- %s\n+++ %s", shown, shown);
      append_prefixed (out, "-", old_text);
      append_prefixed (out, "+", new_text);
    }
  else if (g_str_equal (name, "write") && path != NULL && content != NULL)
    {
      g_autofree char *shown = zot_approval_escape_text (path, FALSE, 0, NULL);

      g_string_append_printf (out, "+++ %s", shown);
      append_prefixed (out, "+", content);
    }
  else
    {
      g_autofree char *shown = zot_approval_escape_text (zot_approval_get_detail (approval), TRUE, 0, NULL);

      g_string_append (out, shown);
    }

  return g_string_free (out, FALSE);
}

static char *
build_heading (ZotApproval *approval)
{
  const char *name = zot_approval_get_tool_name (approval);
  const char *agent_id = zot_approval_get_agent_id (approval);
  const char *agent_name = zot_approval_get_agent_name (approval);
  const char *origin = zot_approval_get_origin_extension (approval);

  if (agent_id != NULL)
    /* Translators: above an approval: %s is a tool's name, such as bash; a subagent is a second
     * agent the model started for a part of the task, and the second %s its name */
    return g_strdup_printf (_("Allow %s? Requested by the subagent “%s”"), name,
                            agent_name != NULL && *agent_name != '\0' ? agent_name : agent_id);
  if (zot_approval_get_from_script (approval))
    /* Translators: above an approval: %s is a tool's name; codemode lets the model write a short
     * script that calls tools */
    return g_strdup_printf (_("Allow %s? Requested by a codemode script"), name);
  if (origin != NULL && *origin != '\0')
    /* Translators: above an approval: %s is a tool's name, the second %s an extension's name */
    return g_strdup_printf (_("Allow %s? Requested by the extension “%s”"), name, origin);
  /* Translators: above an approval: %s is a tool's name, such as bash */
  return g_strdup_printf (_("Allow %s?"), name);
}

static void
update (ZotApprovalRow *self)
{
  gboolean pending = self->approval != NULL && !zot_approval_is_resolved (self->approval);

  gtk_widget_set_visible (self->heading, pending);
  gtk_widget_set_visible (self->scroller, pending);
  gtk_widget_set_visible (self->cwd, pending && *gtk_label_get_text (GTK_LABEL (self->cwd)) != '\0');
  gtk_widget_set_visible (self->answers, pending);
  gtk_widget_set_visible (self->outcome, self->approval != NULL && !pending);
  if (self->approval != NULL && !pending)
    {
      g_autofree char *state = zot_approval_describe_state (self->approval);
      g_autofree char *shown = g_strdup_printf ("%c%s", g_ascii_toupper (*state), state + 1);

      gtk_label_set_text (GTK_LABEL (self->outcome), shown);
    }
}

static void
on_resolved_cb (ZotApproval    *approval,
                int             choice,
                ZotApprovalRow *self)
{
  update (self);
}

/**
 * zot_approval_row_answer:
 *
 * Answers the approval shown, as its buttons do; a denial carries what
 * the reason field holds.
 */
void
zot_approval_row_answer (ZotApprovalRow    *self,
                         ZotApprovalChoice  choice)
{
  g_autoptr(ZotApproval) approval = NULL;

  g_return_if_fail (ZOT_IS_APPROVAL_ROW (self));

  if (self->approval == NULL || zot_approval_is_resolved (self->approval))
    return;
  /* Offered or not, a remembered approval is never given where the
   * button is not shown. */
  if (choice == ZOT_APPROVAL_ALLOW_TOOL && !zot_approval_offers_remember (self->approval))
    return;

  approval = g_object_ref (self->approval);
  zot_approval_resolve_with_reason (approval, choice,
                                    choice == ZOT_APPROVAL_DENY
                                      ? gtk_editable_get_text (GTK_EDITABLE (self->reason)) : NULL);
}

static void
on_allow_clicked_cb (GtkButton      *button,
                     ZotApprovalRow *self)
{
  zot_approval_row_answer (self, ZOT_APPROVAL_ALLOW);
}

static void
on_remember_clicked_cb (GtkButton      *button,
                        ZotApprovalRow *self)
{
  zot_approval_row_answer (self, ZOT_APPROVAL_ALLOW_TOOL);
}

static void
on_deny_clicked_cb (GtkButton      *button,
                    ZotApprovalRow *self)
{
  zot_approval_row_answer (self, ZOT_APPROVAL_DENY);
}

static GtkWidget *
answer_button_new (const char *label,
                   const char *tooltip,
                   const char *css_class)
{
  GtkWidget *button = gtk_button_new_with_label (label);

  gtk_widget_set_tooltip_text (button, tooltip);
  if (css_class != NULL)
    gtk_widget_add_css_class (button, css_class);
  /* A click answers; it does not leave the focus behind for the next
   * space or Enter to answer another question. */
  gtk_widget_set_focus_on_click (button, FALSE);
  return button;
}

static void
zot_approval_row_dispose (GObject *object)
{
  ZotApprovalRow *self = ZOT_APPROVAL_ROW (object);
  GtkWidget *child;

  if (self->approval != NULL)
    g_clear_signal_handler (&self->resolved_id, self->approval);
  g_clear_object (&self->approval);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (zot_approval_row_parent_class)->dispose (object);
}

static void
zot_approval_row_class_init (ZotApprovalRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_approval_row_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "approvalrow");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
zot_approval_row_init (ZotApprovalRow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);

  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (widget)),
                                  GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (widget)), 6);
  gtk_widget_add_css_class (widget, "approval-row");
  gtk_widget_set_margin_top (widget, 6);
  gtk_widget_set_margin_start (widget, 24);

  self->heading = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->heading), 0);
  gtk_label_set_wrap (GTK_LABEL (self->heading), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->heading), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (self->heading, "heading");
  gtk_widget_set_parent (self->heading, widget);

  self->preview = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->preview), 0);
  gtk_label_set_yalign (GTK_LABEL (self->preview), 0);
  gtk_label_set_wrap (GTK_LABEL (self->preview), TRUE);
  gtk_widget_add_css_class (self->preview, "monospace");
  gtk_widget_add_css_class (self->preview, "approval-preview");
  gtk_widget_set_margin_start (self->preview, 8);
  gtk_widget_set_margin_end (self->preview, 8);
  gtk_widget_set_margin_top (self->preview, 6);
  gtk_widget_set_margin_bottom (self->preview, 6);
  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->scroller), PREVIEW_MAX_HEIGHT);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), self->preview);
  gtk_widget_add_css_class (self->scroller, "card");
  gtk_widget_set_parent (self->scroller, widget);

  self->cwd = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->cwd), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->cwd), PANGO_ELLIPSIZE_START);
  gtk_widget_add_css_class (self->cwd, "caption");
  gtk_widget_add_css_class (self->cwd, "dim-label");
  gtk_widget_set_parent (self->cwd, widget);

  self->answers = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  /* Translators: a button under a tool call waiting for approval: let this one call run; the
   * tooltip names its shortcut */
  self->allow = answer_button_new (_("Allow once"), _("Allow this call once (Alt+A)"), "suggested-action");
  /* Translators: a button under a tool call waiting for approval: let every call of this tool run
   * until the conversation ends */
  self->remember = answer_button_new (_("Always allow this tool in this conversation"),
                                      /* Translators: tooltip of the button above */
                                      _("Calls of this tool run without asking until the conversation ends"),
                                      NULL);
  /* Translators: a button under a tool call waiting for approval: refuse it; the tooltip names its
   * shortcut */
  self->deny = answer_button_new (_("Deny"), _("Deny this call, with the reason if given (Alt+D)"),
                                  "destructive-action");
  self->reason = gtk_entry_new ();
  /* Translators: placeholder of the field under a tool call waiting for approval */
  gtk_entry_set_placeholder_text (GTK_ENTRY (self->reason), _("Reason (the model reads it)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->reason), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Reason for denying"), -1);
  gtk_widget_set_hexpand (self->reason, TRUE);
  gtk_box_append (GTK_BOX (self->answers), self->allow);
  gtk_box_append (GTK_BOX (self->answers), self->remember);
  gtk_box_append (GTK_BOX (self->answers), self->deny);
  gtk_box_append (GTK_BOX (self->answers), self->reason);
  gtk_widget_set_parent (self->answers, widget);
  g_signal_connect (self->allow, "clicked", G_CALLBACK (on_allow_clicked_cb), self);
  g_signal_connect (self->remember, "clicked", G_CALLBACK (on_remember_clicked_cb), self);
  g_signal_connect (self->deny, "clicked", G_CALLBACK (on_deny_clicked_cb), self);
  /* Enter in the reason field, where only Alt+D or a click brings the
   * focus, denies with that reason. */
  g_signal_connect_swapped (self->reason, "activate", G_CALLBACK (on_deny_clicked_cb), self);

  self->outcome = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->outcome), 0);
  gtk_label_set_wrap (GTK_LABEL (self->outcome), TRUE);
  gtk_widget_add_css_class (self->outcome, "caption");
  gtk_widget_add_css_class (self->outcome, "approval-outcome");
  gtk_widget_set_parent (self->outcome, widget);
}

GtkWidget *
zot_approval_row_new (void)
{
  return g_object_new (ZOT_TYPE_APPROVAL_ROW, NULL);
}

/**
 * zot_approval_row_set_approval:
 * @approval: (nullable): what to ask, %NULL for nothing
 * @cwd: (nullable): the directory the call runs in
 */
void
zot_approval_row_set_approval (ZotApprovalRow *self,
                               ZotApproval    *approval,
                               const char     *cwd)
{
  g_return_if_fail (ZOT_IS_APPROVAL_ROW (self));
  g_return_if_fail (approval == NULL || ZOT_IS_APPROVAL (approval));

  if (self->approval != approval)
    {
      if (self->approval != NULL)
        g_clear_signal_handler (&self->resolved_id, self->approval);
      g_set_object (&self->approval, approval);
      gtk_editable_set_text (GTK_EDITABLE (self->reason), "");
      if (approval != NULL)
        {
          g_autofree char *heading = build_heading (approval);
          g_autofree char *preview = build_preview_text (approval);

          self->resolved_id = g_signal_connect (approval, "resolved", G_CALLBACK (on_resolved_cb), self);
          gtk_label_set_text (GTK_LABEL (self->heading), heading);
          gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, heading, -1);
          /* A long run without white space would take Pango minutes to
           * wrap by word. */
          gtk_label_set_wrap_mode (GTK_LABEL (self->preview), zot_bounded_text_wrap_mode (preview));
          gtk_label_set_text (GTK_LABEL (self->preview), preview);
          gtk_widget_set_visible (self->remember, zot_approval_offers_remember (approval));
        }
    }

  if (cwd != NULL && *cwd != '\0')
    {
      /* Translators: under a tool call waiting for approval: the directory it runs in */
      g_autofree char *text = g_strdup_printf (_("In %s"), cwd);

      gtk_label_set_text (GTK_LABEL (self->cwd), text);
    }
  else
    gtk_label_set_text (GTK_LABEL (self->cwd), "");

  update (self);
}

ZotApproval *
zot_approval_row_get_approval (ZotApprovalRow *self)
{
  g_return_val_if_fail (ZOT_IS_APPROVAL_ROW (self), NULL);
  return self->approval;
}

/**
 * zot_approval_row_focus:
 * @choice: %ZOT_APPROVAL_DENY to focus the reason, anything else the
 *   "Allow once" button
 */
void
zot_approval_row_focus (ZotApprovalRow    *self,
                        ZotApprovalChoice  choice)
{
  g_return_if_fail (ZOT_IS_APPROVAL_ROW (self));

  gtk_widget_grab_focus (choice == ZOT_APPROVAL_DENY ? self->reason : self->allow);
}

/* The transcript item keeps its approval: the row bound to it, whichever
 * that is as rows are recycled, shows it. */

static GQuark
approval_quark (void)
{
  return g_quark_from_static_string ("zot-approval");
}

static GQuark
cwd_quark (void)
{
  return g_quark_from_static_string ("zot-approval-cwd");
}

static void
on_item_approval_resolved_cb (ZotTranscriptItem *item)
{
  /* The rows follow "status": theirs reads what the answer was. */
  g_object_notify (G_OBJECT (item), "status");
}

/**
 * zot_transcript_item_set_approval:
 * @approval: the question about @item's call
 * @cwd: (nullable): where the call runs
 */
void
zot_transcript_item_set_approval (ZotTranscriptItem *item,
                                  ZotApproval       *approval,
                                  const char        *cwd)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (item));
  g_return_if_fail (ZOT_IS_APPROVAL (approval));

  g_object_set_qdata_full (G_OBJECT (item), approval_quark (), g_object_ref (approval), g_object_unref);
  g_object_set_qdata_full (G_OBJECT (item), cwd_quark (), g_strdup (cwd), g_free);
  g_signal_connect_object (approval, "resolved", G_CALLBACK (on_item_approval_resolved_cb), item,
                           G_CONNECT_SWAPPED);
  g_object_notify (G_OBJECT (item), "status");
}

/**
 * zot_transcript_item_get_approval:
 *
 * Returns: (transfer none) (nullable): the approval asked about the call
 */
ZotApproval *
zot_transcript_item_get_approval (ZotTranscriptItem *item)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (item), NULL);
  return g_object_get_qdata (G_OBJECT (item), approval_quark ());
}

const char *
zot_transcript_item_get_approval_cwd (ZotTranscriptItem *item)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (item), NULL);
  return g_object_get_qdata (G_OBJECT (item), cwd_quark ());
}
