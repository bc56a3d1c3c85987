/* zot-manager-approvals.c — whether a tool call may run.
 *
 * The approval policy, the approvals the user chose to remember for the
 * session, the question put to a view through ::approval-requested, and
 * the `permission_decision` event that reports every decision
 * (PROTOCOL.md §6).
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-extension-manager-private.h"

void
zot_decision_free (ZotDecision *decision)
{
  if (decision == NULL)
    return;
  g_free (decision->reason);
  g_free (decision);
}

void
zot_extension_manager_set_policy (ZotExtensionManager *self,
                                  ZotApprovalPolicy    policy)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  if (self->policy == policy)
    return;

  self->policy = policy;
  g_object_notify_by_pspec (G_OBJECT (self), _zot_manager_properties [ZOT_MANAGER_PROP_POLICY]);
}

ZotApprovalPolicy
zot_extension_manager_get_policy (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), ZOT_APPROVAL_POLICY_ASK);
  return self->policy;
}

/* Remembered approvals last one session: /new forgets them. */
void
zot_extension_manager_forget_approvals (ZotExtensionManager *self)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  g_hash_table_remove_all (self->remembered_tools);
  self->remember_all = FALSE;
}

void
zot_extension_manager_emit_permission_decision (ZotExtensionManager *self,
                                                const char          *tool_id,
                                                const char          *tool_name,
                                                const char          *decision,
                                                const char          *source,
                                                const char          *stage,
                                                const char          *reason,
                                                const ZotCallOrigin *origin)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  json_object_set_string_member (payload, "tool_id", tool_id);
  json_object_set_string_member (payload, "tool_name", tool_name);
  json_object_set_string_member (payload, "decision", decision);
  json_object_set_string_member (payload, "source", source);
  json_object_set_string_member (payload, "stage", stage);
  if (reason != NULL)
    json_object_set_string_member (payload, "reason", reason);
  zot_call_origin_describe (origin, payload);

  zot_extension_manager_emit_event (self, "permission_decision", payload);
}

/**
 * zot_call_origin_describe:
 * @origin: (nullable): who the call is for
 * @payload: an event's members
 *
 * Adds `origin_extension` and `agent_id` to @payload as @origin says.
 */
void
zot_call_origin_describe (const ZotCallOrigin *origin,
                          JsonObject          *payload)
{
  if (origin == NULL)
    return;
  if (origin->extension != NULL)
    json_object_set_string_member (payload, "origin_extension", origin->extension);
  if (origin->agent_id != NULL)
    json_object_set_string_member (payload, "agent_id", origin->agent_id);
  if (origin->script)
    json_object_set_boolean_member (payload, "origin_script", TRUE);
}

typedef struct
{
  ZotApproval  *approval;
  gulong        resolved_id;
  GSource      *cancel_source;
  gboolean      waiting;
  ZotApprovalFlags flags;
} AuthorizeData;

static void
authorize_data_free (AuthorizeData *data)
{
  if (data->resolved_id != 0)
    g_signal_handler_disconnect (data->approval, data->resolved_id);
  /* A view may hold the question still: it ends unanswered. */
  zot_approval_withdraw (data->approval);
  if (data->cancel_source != NULL)
    {
      g_source_destroy (data->cancel_source);
      g_source_unref (data->cancel_source);
    }
  g_clear_object (&data->approval);
  g_free (data);
}

static void
decide (GTask      *task,
        const char *decision,
        const char *source,
        const char *reason)
{
  ZotExtensionManager *self = g_task_get_source_object (task);
  AuthorizeData *data = g_task_get_task_data (task);
  ZotDecision *result = g_new0 (ZotDecision, 1);

  result->approved = g_str_equal (decision, "approved");
  result->decision = decision;
  result->source = source;
  result->reason = g_strdup (reason);

  zot_extension_manager_emit_permission_decision (self,
                                                  zot_approval_get_tool_id (data->approval),
                                                  zot_approval_get_tool_name (data->approval),
                                                  decision, source, "pre_execution", reason,
                                                  &(ZotCallOrigin) {
                                                    zot_approval_get_origin_extension (data->approval),
                                                    zot_approval_get_agent_id (data->approval),
                                                    zot_approval_get_agent_name (data->approval),
                                                  });

  g_task_return_pointer (task, result, (GDestroyNotify) zot_decision_free);

  /* Drop the reference that kept the task alive while the user thought. */
  if (data->waiting)
    {
      data->waiting = FALSE;
      g_object_unref (task);
    }
}

static void
on_approval_resolved (ZotApproval *approval,
                      int          choice,
                      GTask       *task)
{
  ZotExtensionManager *self = g_task_get_source_object (task);
  AuthorizeData *data = g_task_get_task_data (task);

  g_object_ref (task);
  g_clear_signal_handler (&data->resolved_id, approval);

  switch ((ZotApprovalChoice) choice)
    {
    case ZOT_APPROVAL_ALLOW_TOOL:
      if (!(data->flags & ZOT_APPROVAL_FLAG_NOT_REMEMBERED))
        g_hash_table_add (self->remembered_tools, g_strdup (zot_approval_get_tool_name (approval)));
      decide (task, "approved", "user", NULL);
      break;

    case ZOT_APPROVAL_ALLOW_ALL:
      self->remember_all = TRUE;
      decide (task, "approved", "user", NULL);
      break;

    case ZOT_APPROVAL_ALLOW:
      decide (task, "approved", "user", NULL);
      break;

    case ZOT_APPROVAL_DENY:
    default:
      if (zot_approval_get_reason (approval) != NULL)
        {
          /* Translators: what the model reads when the user denied a tool call and said why;
           * %s is the user's words */
          g_autofree char *reason = g_strdup_printf (_("the user denied the call: %s"),
                                                     zot_approval_get_reason (approval));

          decide (task, "denied", "user", reason);
        }
      else
        decide (task, "denied", "user", _("the user denied the call"));
      break;
    }

  g_object_unref (task);
}

static gboolean
authorize_cancelled_cb (GCancellable *cancellable,
                        gpointer      user_data)
{
  GTask *task = user_data;
  AuthorizeData *data = g_task_get_task_data (task);

  g_object_ref (task);
  g_clear_pointer (&data->cancel_source, g_source_unref);
  g_clear_signal_handler (&data->resolved_id, data->approval);
  decide (task, "cancelled", "user", _("the run was cancelled while waiting for approval"));
  zot_approval_withdraw (data->approval);
  g_object_unref (task);

  return G_SOURCE_REMOVE;
}

/**
 * zot_extension_manager_authorize_async:
 * @flags: whether an interactive host asks for this tool, and whether a
 *   remembered approval may answer for the user
 *
 * Decides whether a call may run, asking the user through
 * ::approval-requested where the host is interactive, the policy is "ask",
 * the tool needs it and nothing was remembered. Emits
 * `tool_confirmation_requested` just before asking and
 * `permission_decision` (pre_execution) once decided. Headless hosts never
 * ask: their approvals have source "yolo".
 */
void
zot_extension_manager_authorize_async (ZotExtensionManager *self,
                                       const char          *tool_id,
                                       const char          *tool_name,
                                       JsonObject          *args,
                                       ZotApprovalFlags     flags,
                                       const ZotCallOrigin *origin,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) payload = NULL;
  AuthorizeData *data;
  gboolean handled = FALSE;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (tool_name != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_authorize_async);

  data = g_new0 (AuthorizeData, 1);
  data->approval = zot_approval_new (tool_id, tool_name, args, NULL, origin);
  data->flags = flags;
  zot_approval_set_can_remember (data->approval, !(flags & ZOT_APPROVAL_FLAG_NOT_REMEMBERED));
  g_task_set_task_data (task, data, (GDestroyNotify) authorize_data_free);

  if (!self->interactive || self->policy == ZOT_APPROVAL_POLICY_YOLO)
    {
      decide (task, "approved", "yolo", NULL);
      return;
    }

  if (!(flags & ZOT_APPROVAL_FLAG_REQUIRED))
    {
      decide (task, "approved", "policy", NULL);
      return;
    }

  if (!(flags & ZOT_APPROVAL_FLAG_NOT_REMEMBERED) &&
      (self->remember_all || g_hash_table_contains (self->remembered_tools, tool_name)))
    {
      decide (task, "approved", "remembered", NULL);
      return;
    }

  if (!g_signal_has_handler_pending (self, _zot_manager_signals[ZOT_MANAGER_APPROVAL_REQUESTED],
                                     0, TRUE))
    {
      decide (task, "denied", "policy", _("no one is there to confirm the call"));
      return;
    }

  payload = json_object_new ();
  json_object_set_string_member (payload, "tool_id", tool_id);
  json_object_set_string_member (payload, "tool_name", tool_name);
  json_object_set_string_member (payload, "tool_preview", zot_approval_get_preview (data->approval));
  zot_call_origin_describe (origin, payload);
  zot_extension_manager_emit_event (self, "tool_confirmation_requested", payload);

  data->waiting = TRUE;
  g_object_ref (task);
  data->resolved_id = g_signal_connect (data->approval, "resolved", G_CALLBACK (on_approval_resolved), task);
  if (cancellable != NULL)
    {
      data->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (data->cancel_source, G_SOURCE_FUNC (authorize_cancelled_cb), task, NULL);
      g_source_attach (data->cancel_source, g_main_context_get_thread_default ());
    }

  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_APPROVAL_REQUESTED], 0,
                 data->approval, &handled);

  if (!handled && !zot_approval_is_resolved (data->approval) && data->resolved_id != 0)
    {
      g_clear_signal_handler (&data->resolved_id, data->approval);
      decide (task, "denied", "policy", _("no one is there to confirm the call"));
    }
}

/**
 * zot_extension_manager_authorize_finish:
 *
 * Returns: (transfer full): the decision
 */
ZotDecision *
zot_extension_manager_authorize_finish (ZotExtensionManager  *self,
                                        GAsyncResult         *result,
                                        GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
