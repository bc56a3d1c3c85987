/* zot-agent-tools.c — one tool call's way through the agent, and the tool
 * calls of one step of a run.
 *
 * A call is prepared (checks, the `tool_call` interceptors, approval),
 * executed with a GCancellable of its own, and reported (the tool_result
 * event and a signal); every call ends with a result, failures and
 * cancellations included. The model's calls and the calls extensions ask
 * for (zot-agent-calls.c) take this same way; their owners differ in what
 * happens between the stages (ToolCallHooks).
 *
 * The calls of an assistant message run in groups: consecutive tools that
 * may run concurrently together, each tool that changes state on its own,
 * in order. Each call of a group is prepared in turn, then the group's
 * ready calls run, and their "tool" message goes to the session before the
 * next step.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-extension-tool.h"
#include "zot-message.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-observation.h"
#include "zot-source.h"
#include "zot-tool-invocation.h"

ToolCall *
_zot_tool_call_new (ZotAgent            *agent,
                    ZotSession          *session,
                    const ToolCallHooks *hooks,
                    gpointer             owner,
                    GCancellable        *outer,
                    const char          *id,
                    const char          *name,
                    JsonObject          *args)
{
  ToolCall *call = g_new0 (ToolCall, 1);

  call->agent = agent;
  call->session = g_object_ref (session);
  call->hooks = hooks;
  call->owner = owner;
  call->outer = outer != NULL ? g_object_ref (outer) : NULL;
  call->id = g_strdup (id);
  call->name = g_strdup (name);
  call->args = args != NULL ? json_object_ref (args) : json_object_new ();
  call->effective_args = json_object_ref (call->args);
  call->tool = zot_tool_registry_lookup (agent->registry, name);
  if (call->tool != NULL)
    g_object_ref (call->tool);
  return call;
}

static void
close_progress (ToolCall *call)
{
  if (call->progress == NULL)
    return;

  zot_tool_progress_close (call->progress);
  g_clear_pointer (&call->progress, zot_tool_progress_unref);
}

static void
on_progress (const char *text,
             gpointer    user_data)
{
  ToolCall *call = user_data;

  g_signal_emit (call->agent, _zot_agent_signals [ZOT_AGENT_TOOL_PROGRESS], 0, call->id, text);
}

void
_zot_tool_call_free (ToolCall *call)
{
  close_progress (call);
  zot_clear_source (&call->outer_link);
  g_clear_object (&call->outer);
  g_free (call->origin_extension);
  g_clear_pointer (&call->parent, zot_tool_invocation_unref);
  g_clear_pointer (&call->invocation, zot_tool_invocation_unref);
  g_free (call->id);
  g_free (call->use_id);
  g_free (call->name);
  g_clear_pointer (&call->args, json_object_unref);
  g_clear_pointer (&call->effective_args, json_object_unref);
  g_free (call->args_raw);
  g_clear_object (&call->tool);
  g_clear_pointer (&call->result, zot_tool_result_free);
  g_clear_object (&call->cancellable);
  g_free (call->task_id);
  g_free (call->operation_key);
  g_clear_object (&call->session);
  g_free (call);
}

/* Continuous mode: a call is a durable task (PROTOCOL.md §5) */

/**
 * _zot_tool_call_set_task:
 * @task_id: the call's durable identity
 *
 * Journals the call in a continuous conversation: its start before it
 * runs and its result before anyone sees it.
 */
void
_zot_tool_call_set_task (ToolCall   *call,
                         const char *task_id)
{
  ZotSession *session = call->session;

  if (task_id == NULL || !zot_session_get_continuous (session) || zot_session_is_read_only (session))
    return;

  call->task_id = g_strdup (task_id);
  /* An idempotent tool gets the same key when the call is replayed, a
   * reconcile tool when it is asked about. */
  if (call->tool != NULL && (zot_tool_get_replay (call->tool) == ZOT_TOOL_REPLAY_IDEMPOTENT ||
                             zot_tool_get_replay (call->tool) == ZOT_TOOL_REPLAY_RECONCILE))
    call->operation_key = g_strdup_printf ("%s:%s", zot_session_get_id (session), task_id);
}

static gboolean
same_args (JsonObject *a,
           JsonObject *b)
{
  g_autoptr(JsonNode) x = json_node_init_object (json_node_alloc (), a);
  g_autoptr(JsonNode) y = json_node_init_object (json_node_alloc (), b);

  return json_node_equal (x, y);
}

static void complete_call (ToolCall      *call,
                           ZotToolResult *result);
static ZotToolResult *new_interrupted_result (ToolCall *call);

/**
 * _zot_tool_call_answer_from_journal:
 *
 * What the journal says of a call that ran before under the same
 * identity: its recorded result; a refusal when that identity was a
 * different call (another tool, other arguments); an `interrupted` result
 * when it started and never finished and its tool may not run twice.
 *
 * Returns: %TRUE when the call is done that way; %FALSE when it is to run
 */
gboolean
_zot_tool_call_answer_from_journal (ToolCall *call)
{
  ZotSession *session = call->session;
  g_autoptr(ZotToolResult) recorded = NULL;
  JsonObject *task;
  JsonNode *args;

  if (call->task_id == NULL)
    return FALSE;

  if (g_hash_table_contains (call->agent->running_tasks, call->task_id))
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED,
                                                      _("A call with the same key (%s) is running; "
                                                        "give each call of a parent its own key."),
                                                      call->task_id));
      return TRUE;
    }

  task = zot_session_lookup_task (session, call->task_id);
  if (task == NULL)
    return FALSE;

  args = json_object_get_member (task, "args");
  if (g_strcmp0 (zot_json_get_string (task, "tool"), call->name) != 0 ||
      args == NULL || !JSON_NODE_HOLDS_OBJECT (args) || !same_args (json_node_get_object (args), call->args))
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED,
                                                      /* Translators: the model reads this: the
                                                       * key given, then the tool whose earlier
                                                       * call used it */
                                                      _("The key of this call (%s) was used before for "
                                                        "another call (%s with other arguments); "
                                                        "a key names one call: use a new key."),
                                                      call->task_id,
                                                      zot_json_get_string (task, "tool") ?
                                                        zot_json_get_string (task, "tool") : "?"));
      return TRUE;
    }

  recorded = zot_session_task_get_result (task);
  if (recorded != NULL)
    {
      g_debug ("%s answered from the journal", call->task_id);
      complete_call (call, g_steal_pointer (&recorded));
      return TRUE;
    }

  /* Started, never finished: the tool's replay contract decides. */
  if (call->tool == NULL || zot_tool_get_replay (call->tool) == ZOT_TOOL_REPLAY_NEVER)
    {
      complete_call (call, new_interrupted_result (call));
      return TRUE;
    }

  /* Whether it ran is the extension's to say, with the key it was given;
   * once it said "not started", the call runs. */
  if (zot_tool_get_replay (call->tool) == ZOT_TOOL_REPLAY_RECONCILE && !call->reconciled)
    {
      const char *key = zot_json_get_string (task, "operation_key");

      if (key != NULL)
        {
          g_free (call->operation_key);
          call->operation_key = g_strdup (key);
        }
      call->reconcile = TRUE;
    }

  return FALSE;
}

/* Who the call is for, when it is not the conversation's own model: a
 * subagent's, an extension's, or both. */
const ZotCallOrigin *
_zot_tool_call_origin (ToolCall      *call,
                       ZotCallOrigin *origin)
{
  const ZotCallOrigin *agent_origin = _zot_agent_call_origin (call->agent, origin);

  if (call->origin_extension == NULL)
    return agent_origin;

  if (agent_origin == NULL)
    *origin = (ZotCallOrigin) { 0 };
  origin->extension = call->origin_extension;
  origin->script = call->script;
  return origin;
}

static JsonObject *
build_tool_message (Run *run)
{
  g_autoptr(JsonArray) content = json_array_new ();
  JsonObject *message = json_object_new ();

  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      JsonObject *block = json_object_new ();

      json_object_set_string_member (block, "type", "tool_result");
      json_object_set_string_member (block, "tool_use_id", call->use_id != NULL ? call->use_id : call->id);
      json_object_set_boolean_member (block, "is_error", call->result->is_error);
      json_object_set_array_member (block, "content", json_array_ref (call->result->content));
      json_array_add_object_element (content, block);
    }

  json_object_set_string_member (message, "role", "tool");
  json_object_set_array_member (message, "content", g_steal_pointer (&content));
  return message;
}

static void
tool_message_appended_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    {
      _zot_agent_fail_run (run, g_steal_pointer (&error));
      return;
    }

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      _zot_agent_abort_run (run);
      return;
    }

  g_clear_pointer (&run->calls, g_ptr_array_unref);
  _zot_agent_run_step (run);
}

static void
all_tools_done (Run *run)
{
  g_autoptr(JsonObject) message = build_tool_message (run);

  zot_session_append_message_async (run->session, message, NULL,
                                    tool_message_appended_cb, run);
}

static void
report_call (ToolCall *call)
{
  ZotAgent *self = call->agent;
  ZotToolResult *result = call->result;
  ZotCallOrigin origin;

  /* A tool that refused after it was approved: a second decision. */
  if (call->executed && result->outcome == ZOT_TOOL_OUTCOME_BLOCKED && self->manager != NULL)
    {
      g_autofree char *reason = zot_content_get_text (result->content);

      zot_extension_manager_emit_permission_decision (self->manager, call->id, call->name,
                                                      "denied", "policy", "tool_execution",
                                                      reason, _zot_tool_call_origin (call, &origin));
    }

  if (self->manager != NULL)
    {
      g_autoptr(JsonObject) payload = json_object_new ();

      json_object_set_string_member (payload, "tool_id", call->id);
      json_object_set_string_member (payload, "tool_name", call->name);
      if (call->args_raw != NULL)
        json_object_set_string_member (payload, "tool_args_raw", call->args_raw);
      else
        json_object_set_object_member (payload, "tool_args",
                                       json_object_ref (call->effective_args ? call->effective_args : call->args));
      json_object_set_string_member (payload, "status", zot_tool_outcome_to_string (result->outcome));
      json_object_set_boolean_member (payload, "executed", call->executed);
      json_object_set_object_member (payload, "result", zot_observation_result (result->content, result->is_error));
      zot_call_origin_describe (_zot_tool_call_origin (call, &origin), payload);
      _zot_agent_emit_event (self, "tool_result", payload);
    }

  /* A call an extension asked for is no tool use of the conversation. */
  if (call->origin_extension != NULL)
    g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_EXTENSION_CALL_RESULT], 0,
                   call->id, call->name, result);
  else
    g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_TOOL_RESULT], 0, call->id, call->name, result);
}

static void
complete_call (ToolCall      *call,
               ZotToolResult *result)
{
  g_assert (!call->done);
  call->done = TRUE;
  call->result = result;
  report_call (call);
}

/* A failed write makes the session read-only, and the user hears of it
 * there; the call itself goes on all the same. */
static void
journaled (ToolCall     *call,
           GObject      *object,
           GAsyncResult *result)
{
  g_autoptr(GError) error = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    g_debug ("the journal of %s could not be written: %s", call->task_id, error->message);
}

static void
finished_journaled_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  ToolCall *call = user_data;

  journaled (call, object, result);

  g_hash_table_remove (call->agent->running_tasks, call->task_id);
  complete_call (call, g_steal_pointer (&call->result));
  call->hooks->executed (call);
}

/* The result is on disk before anyone sees it: an extension that got it
 * gets the same one when its call is replayed. */
static void
finish_execution (ToolCall      *call,
                  ZotToolResult *result)
{
  g_autoptr(JsonObject) entry = NULL;

  if (!call->journaling)
    {
      complete_call (call, result);
      call->hooks->executed (call);
      return;
    }

  entry = zot_session_task_finished_entry (call->task_id, result);
  call->result = result;
  zot_session_append_async (call->session, entry, NULL, finished_journaled_cb, call);
}

static void
tool_executed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  ToolCall *call = user_data;
  g_autoptr(GError) error = NULL;
  ZotToolResult *tool_result;

  /* Nothing is reported after the result. */
  close_progress (call);
  tool_result = zot_tool_execute_finish (ZOT_TOOL (object), result, &error);
  if (tool_result == NULL)
    {
      if (call->timed_out)
        tool_result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_TIMED_OUT,
                                                 /* Translators: the tool's name, then a number
                                                  * of seconds */
                                                 _("%s did not finish within %u s."), call->name,
                                                 (zot_timeout_get_ms (ZOT_TIMEOUT_CALL_TOOL) + 999) / 1000);
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        tool_result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                 _("The call of %s was cancelled."), call->name);
      else
        tool_result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                 /* Translators: the tool's name, then the error;
                                                  * "no result" below stands in for a missing
                                                  * error */
                                                 _("%s failed: %s"), call->name,
                                                 error ? error->message : _("no result"));
    }
  else
    _zot_agent_apply_activations (call->agent, call->tool, tool_result);

  zot_clear_source (&call->outer_link);

  finish_execution (call, tool_result);
}

/**
 * _zot_tool_call_execute:
 *
 * Runs a prepared, ready call. The owner's executed hook runs once it has
 * ended.
 *
 * Returns: %FALSE when the call was abandoned before it could start: it is
 *   done already, and no hook will run
 */
static void
start_execution (ToolCall *call)
{
  ZotAgent *self = call->agent;
  ZotToolContext context = { 0 };

  context.cwd = self->cwd;
  context.call_id = call->id;
  /* A call an extension asked for has a deadline, even in the window. */
  context.interactive = self->interactive && call->origin_extension == NULL;
  context.invocation = call->invocation;
  context.operation_key = call->operation_key;
  /* The conversation's own calls report progress; an extension's do not. */
  if (call->origin_extension == NULL && call->parent == NULL)
    {
      call->progress = zot_tool_progress_new (on_progress, call);
      context.progress = call->progress;
    }
  zot_tool_execute_async (call->tool, call->effective_args, &context, call->cancellable,
                          tool_executed_cb, call);
}

static void
started_journaled_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  ToolCall *call = user_data;

  journaled (call, object, result);
  start_execution (call);
}

gboolean
_zot_tool_call_execute (ToolCall *call)
{
  ZotAgent *self = call->agent;
  g_autoptr(JsonObject) entry = NULL;

  g_assert (call->ready && !call->done && !call->executed);

  if (call->outer != NULL && g_cancellable_is_cancelled (call->outer))
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                      _("The call of %s was cancelled before it ran."),
                                                      call->name));
      return FALSE;
    }

  call->cancellable = g_cancellable_new ();
  /* Not g_cancellable_connect(): a tool that ends at once when cancelled
   * would come back here from inside the outer cancellation, and the
   * disconnect would deadlock. */
  if (call->outer != NULL)
    call->outer_link = zot_cancellable_follow (call->cancellable, call->outer);
  call->invocation = zot_tool_invocation_new (call->parent, call->id, call->name, call->cancellable,
                                              ZOT_TOOL_RUNNER (self));
  zot_tool_invocation_raise_depth (call->invocation, call->depth);
  call->executed = TRUE;

  if (call->task_id == NULL)
    {
      start_execution (call);
      return TRUE;
    }

  /* Journaled: the start is on disk before the tool runs, so a call the
   * journal does not name never ran. */
  call->journaling = TRUE;
  zot_tool_invocation_set_task_id (call->invocation, call->task_id);
  g_hash_table_add (self->running_tasks, g_strdup (call->task_id));
  entry = zot_session_task_started_entry (call->task_id, call->name, call->args, call->effective_args,
                                          call->operation_key);
  zot_session_append_async (call->session, entry, NULL, started_journaled_cb, call);
  return TRUE;
}

static void
block_call (ToolCall   *call,
            const char *reason,
            const char *message)
{
  ZotAgent *self = call->agent;
  ZotCallOrigin origin;

  if (self->manager != NULL)
    zot_extension_manager_emit_permission_decision (self->manager, call->id, call->name,
                                                    "denied", "policy", "pre_execution", reason,
                                                    _zot_tool_call_origin (call, &origin));
  complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED, "%s", message));
}

/* A call leaves the preparing stage (interception, approval) either
 * ready to run or already completed. */
static void
finish_preparing (ToolCall *call)
{
  call->preparing = FALSE;
  call->hooks->prepared (call);
}

/* The arguments an interceptor left in @payload become the call's own,
 * whether it rewrote them or blocked the call after an earlier rewrite. */
static void
adopt_intercepted_args (ToolCall   *call,
                        JsonObject *payload)
{
  JsonNode *node = json_object_get_member (payload, "tool_args");

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      g_clear_pointer (&call->effective_args, json_object_unref);
      call->effective_args = json_object_ref (json_node_get_object (node));
    }
}

static void
authorized_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  ToolCall *call = user_data;
  g_autoptr(ZotDecision) decision = NULL;
  g_autoptr(GError) error = NULL;

  decision = zot_extension_manager_authorize_finish (ZOT_EXTENSION_MANAGER (object), result, &error);
  if (call->parent != NULL)
    zot_tool_invocation_release (call->parent);

  if (decision == NULL || g_str_equal (decision->decision, "cancelled"))
    complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                    _("The call of %s was cancelled."), call->name));
  else if (!decision->approved)
    complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED,
                                                    /* Translators: the model reads this: the
                                                     * tool's name, then why, such as "denied";
                                                     * "denied" below is that reason when none
                                                     * was given */
                                                    _("The call of %s was not allowed: %s."), call->name,
                                                    decision->reason ? decision->reason : _("denied")));
  else
    call->ready = TRUE;

  finish_preparing (call);
}

static void
authorize_call (ToolCall *call)
{
  ZotAgent *self = call->agent;
  ZotCallOrigin origin;
  ZotApprovalFlags flags = zot_tool_get_requires_approval (call->tool) ? ZOT_APPROVAL_FLAG_REQUIRED : 0;

  /* An extension's hint that can only make the user asked more often. */
  if (ZOT_IS_EXTENSION_TOOL (call->tool) && zot_extension_tool_get_destructive (ZOT_EXTENSION_TOOL (call->tool)))
    flags |= ZOT_APPROVAL_FLAG_NOT_REMEMBERED;

  /* The user may take a while: the calls above this one wait without
   * running out of time (PROTOCOL.md §5). */
  if (call->parent != NULL)
    zot_tool_invocation_hold (call->parent);

  zot_extension_manager_authorize_async (self->manager, call->id, call->name, call->effective_args,
                                         flags, _zot_tool_call_origin (call, &origin),
                                         call->outer, authorized_cb, call);
}

static void
intercepted_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  ToolCall *call = user_data;
  g_autoptr(ZotInterception) interception = NULL;
  g_autoptr(GError) error = NULL;

  interception = zot_extension_manager_intercept_finish (ZOT_EXTENSION_MANAGER (object), result, &error);

  if (interception == NULL)
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                      _("The call of %s was cancelled."), call->name));
      finish_preparing (call);
      return;
    }

  if (interception->blocked)
    {
      /* A refused call reports the last proposed arguments: those an
       * earlier interceptor rewrote them to. */
      adopt_intercepted_args (call, interception->payload);

      /* The reason is what the model reads as the tool's error. */
      block_call (call, interception->reason, interception->reason);
      finish_preparing (call);
      return;
    }

  if (interception->rewritten)
    adopt_intercepted_args (call, interception->payload);

  authorize_call (call);
}

/* Reconciling an interrupted call of a reconcile tool */

static ZotToolResult *
new_interrupted_result (ToolCall *call)
{
  return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                    _("The call of %s was interrupted: the host stopped "
                                      "while it ran, and %s must not run twice."),
                                    call->name, call->name);
}

static void
reconciled_journaled_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  ToolCall *call = user_data;

  journaled (call, object, result);
  complete_call (call, g_steal_pointer (&call->result));
  finish_preparing (call);
}

static void
reconciled_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  ToolCall *call = user_data;
  g_autoptr(ZotToolResult) tool_result = NULL;
  g_autoptr(JsonObject) entry = NULL;

  switch (zot_extension_tool_reconcile_finish (ZOT_EXTENSION_TOOL (object), result, &tool_result))
    {
    case ZOT_RECONCILE_NOT_STARTED:
      /* It never ran: it runs now, through interception and a fresh
       * approval like any call. */
      g_debug ("%s: the extension says it never started; it runs", call->task_id);
      call->preparing = FALSE;
      _zot_tool_call_prepare (call);
      if (!call->preparing)
        finish_preparing (call);
      return;

    case ZOT_RECONCILE_COMPLETED:
      /* Its result, on disk before anyone sees it, as if it had run. */
      g_debug ("%s: the extension says it completed", call->task_id);
      entry = zot_session_task_finished_entry (call->task_id, tool_result);
      call->result = g_steal_pointer (&tool_result);
      zot_session_append_async (call->agent->session, entry, NULL, reconciled_journaled_cb, call);
      return;

    case ZOT_RECONCILE_UNKNOWN:
    default:
      /* Never a blind run again. */
      complete_call (call, new_interrupted_result (call));
      finish_preparing (call);
      return;
    }
}

static void
reconcile_call (ToolCall *call)
{
  call->reconcile = FALSE;
  call->reconciled = TRUE;

  if (!ZOT_IS_EXTENSION_TOOL (call->tool) || call->operation_key == NULL)
    {
      complete_call (call, new_interrupted_result (call));
      return;
    }

  call->preparing = TRUE;
  zot_extension_tool_reconcile_async (ZOT_EXTENSION_TOOL (call->tool), call->args, call->operation_key,
                                      call->outer, reconciled_cb, call);
}

/**
 * _zot_tool_call_prepare:
 *
 * Checks the call, and runs the interceptors and the approval. Afterwards
 * the call is done (refused, failed, cancelled), ready, or still
 * preparing: then the owner's prepared hook runs once that ends.
 */
void
_zot_tool_call_prepare (ToolCall *call)
{
  ZotAgent *self = call->agent;
  g_autoptr(JsonObject) payload = NULL;
  ZotCallOrigin origin;

  if (call->outer != NULL && g_cancellable_is_cancelled (call->outer))
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                      _("The call of %s was cancelled before it ran."),
                                                      call->name));
      return;
    }

  /* A step the host stopped in: what finished answers from the journal. */
  if (call->resumed && _zot_tool_call_answer_from_journal (call))
    return;

  if (call->reconcile)
    {
      reconcile_call (call);
      return;
    }

  if (call->args_raw != NULL)
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                      _("The arguments for %s were not a valid JSON object: %s"),
                                                      call->name, call->args_raw));
      return;
    }

  if (call->tool == NULL)
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                      _("There is no tool named \"%s\"."), call->name));
      return;
    }

  if (!zot_tool_registry_is_allowed (self->registry, call->name))
    {
      g_autofree char *message = g_strdup_printf (_("The tool \"%s\" is not enabled for this run."), call->name);
      block_call (call, message, message);
      return;
    }

  if (zot_tool_get_interactive (call->tool) && !self->interactive)
    {
      /* Nobody could answer the panel it would open. */
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                      _("%s needs the window to answer, and this host has none."),
                                                      call->name));
      return;
    }

  if (self->manager == NULL)
    {
      call->ready = TRUE;
      return;
    }

  call->preparing = TRUE;

  if (!zot_extension_manager_has_interceptors (self->manager, "tool_call"))
    {
      authorize_call (call);
      return;
    }

  payload = json_object_new ();
  json_object_set_string_member (payload, "tool_id", call->id);
  json_object_set_string_member (payload, "tool_name", call->name);
  json_object_set_object_member (payload, "tool_args", json_object_ref (call->effective_args));
  zot_call_origin_describe (_zot_tool_call_origin (call, &origin), payload);
  zot_extension_manager_intercept_async (self->manager, "tool_call", payload, call->outer,
                                         intercepted_cb, call);
}

/* The calls of a model step */

static void
group_step_done (Run *run)
{
  if (run->preparing > 0 || run->running > 0)
    return;

  run->group_start = run->group_end;
  _zot_agent_run_group (run);
}

static void prepare_next (Run *run);

static void
run_call_prepared (ToolCall *call)
{
  Run *run = call->owner;

  run->preparing--;
  prepare_next (run);
}

static void
run_call_executed (ToolCall *call)
{
  Run *run = call->owner;

  run->running--;
  group_step_done (run);
}

static const ToolCallHooks run_call_hooks = {
  .prepared = run_call_prepared,
  .executed = run_call_executed,
};

/* Prepares the calls of the current group one after the other (an
 * interceptor or an approval may take a while), then runs those that may
 * run, together. */
static void
prepare_next (Run *run)
{
  if (run->preparing > 0)
    return;

  for (guint i = run->group_start; i < run->group_end; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);

      if (call->done || call->ready)
        continue;

      _zot_tool_call_prepare (call);
      if (call->preparing)
        {
          run->preparing++;
          return;
        }
    }

  for (guint i = run->group_start; i < run->group_end; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);

      if (call->ready && !call->done && !call->executed && _zot_tool_call_execute (call))
        run->running++;
    }

  group_step_done (run);
}

/* Calls run in groups: consecutive concurrent tools together, each tool
 * that changes state on its own, in order. */
void
_zot_agent_run_group (Run *run)
{
  guint i = run->group_start;

  if (i >= run->calls->len)
    {
      all_tools_done (run);
      return;
    }

  do
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      gboolean concurrent = call->tool == NULL || zot_tool_get_concurrent (call->tool);

      if (!concurrent && i > run->group_start)
        break;
      i++;
      if (!concurrent)
        break;
    }
  while (i < run->calls->len);

  run->group_end = i;
  prepare_next (run);
}

void
_zot_agent_collect_calls (Run        *run,
                          JsonObject *message)
{
  ZotAgent *self = run->agent;
  JsonArray *content = json_object_get_array_member (message, "content");

  run->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) _zot_tool_call_free);
  run->group_start = 0;

  /* The message may come back from a session file (a resumed step):
   * every member is checked, none assumed. */
  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block;
      ToolCall *call;
      JsonNode *input;
      const char *id;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      block = json_node_get_object (node);
      if (g_strcmp0 (zot_json_get_string (block, "type"), "tool_use") != 0)
        continue;

      id = zot_json_get_string (block, "id");
      name = zot_json_get_string (block, "name");
      input = json_object_get_member (block, "input");
      call = _zot_tool_call_new (self, run->session, &run_call_hooks, run, run->cancellable,
                                 id != NULL ? id : "", name != NULL ? name : "",
                                 input != NULL && JSON_NODE_HOLDS_OBJECT (input) ?
                                   json_node_get_object (input) : NULL);
      if (zot_json_get_string (block, "input_raw") != NULL)
        call->args_raw = g_strdup (zot_json_get_string (block, "input_raw"));
      /* A subagent's model numbers its calls as the parent's does; the
       * session's events, approvals and nested calls need an id of their
       * own, so they get the child's id and a count. */
      if (self->subagent_id != NULL)
        {
          call->use_id = g_steal_pointer (&call->id);
          call->id = g_strdup_printf ("%s:%u", self->subagent_id, ++self->n_subagent_calls);
        }
      _zot_tool_call_set_task (call, call->id);
      g_ptr_array_add (run->calls, call);
    }
}
