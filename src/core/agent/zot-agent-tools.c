/* zot-agent-tools.c — the tool calls of one step of a run.
 *
 * The calls of an assistant message run in groups: consecutive tools that
 * may run concurrently together, each tool that changes state on its own,
 * in order. Each call is prepared in turn (checks, the `tool_call`
 * interceptors, approval), then the group's ready calls run, each with a
 * GCancellable of its own; every call ends with a result, failures and
 * cancellations included, and their "tool" message goes to the session
 * before the next step.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-message.h"
#include "zot-observation.h"

static void
tool_call_free (ToolCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_clear_pointer (&call->args, json_object_unref);
  g_clear_pointer (&call->effective_args, json_object_unref);
  g_free (call->args_raw);
  g_clear_object (&call->tool);
  g_clear_pointer (&call->result, zot_tool_result_free);
  g_clear_object (&call->cancellable);
  g_free (call);
}

/* Tool calls: prepare (checks, interception, approval) one at a time in
 * order, then execute the group, then report each result. */

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
      json_object_set_string_member (block, "tool_use_id", call->id);
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

  zot_session_append_message_async (run->agent->session, message, NULL,
                                    tool_message_appended_cb, run);
}

static void
report_call (ToolCall *call)
{
  Run *run = call->run;
  ZotAgent *self = run->agent;
  ZotToolResult *result = call->result;

  /* A tool that refused after it was approved: a second decision. */
  if (call->executed && result->outcome == ZOT_TOOL_OUTCOME_BLOCKED && self->manager != NULL)
    {
      g_autofree char *reason = zot_content_get_text (result->content);
      ZotCallOrigin origin;

      zot_extension_manager_emit_permission_decision (self->manager, call->id, call->name,
                                                      "denied", "policy", "tool_execution",
                                                      reason, _zot_agent_call_origin (self, &origin));
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
      _zot_agent_emit_event (self, "tool_result", payload);
    }

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

static void
group_step_done (Run *run)
{
  if (run->preparing > 0 || run->running > 0)
    return;

  run->group_start = run->group_end;
  _zot_agent_run_group (run);
}

static void
tool_executed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  ToolCall *call = user_data;
  Run *run = call->run;
  g_autoptr(GError) error = NULL;
  ZotToolResult *tool_result;

  tool_result = zot_tool_execute_finish (ZOT_TOOL (object), result, &error);
  if (tool_result == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        tool_result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                 _("The call of %s was cancelled."), call->name);
      else
        tool_result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                 _("%s failed: %s"), call->name,
                                                 error ? error->message : _("no result"));
    }
  else
    _zot_agent_apply_activations (run->agent, call->tool, tool_result);

  complete_call (call, tool_result);

  run->running--;
  group_step_done (run);
}

static void
execute_call (Run      *run,
              ToolCall *call)
{
  ZotToolContext context = { 0 };

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                      _("The call of %s was cancelled before it ran."),
                                                      call->name));
      return;
    }

  context.cwd = run->agent->cwd;
  context.call_id = call->id;
  context.interactive = run->agent->interactive;
  call->cancellable = g_cancellable_new ();
  call->executed = TRUE;
  run->running++;
  zot_tool_execute_async (call->tool, call->effective_args, &context, call->cancellable,
                          tool_executed_cb, call);
}

static void prepare_next (Run *run);

static void
block_call (ToolCall   *call,
            const char *reason,
            const char *message)
{
  ZotAgent *self = call->run->agent;
  ZotCallOrigin origin;

  if (self->manager != NULL)
    zot_extension_manager_emit_permission_decision (self->manager, call->id, call->name,
                                                    "denied", "policy", "pre_execution", reason,
                                                    _zot_agent_call_origin (self, &origin));
  complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED, "%s", message));
}

/* A call leaves the preparing stage (interception, approval) either
 * ready to run or already completed; the next one may start. */
static void
finish_preparing (ToolCall *call)
{
  Run *run = call->run;

  call->preparing = FALSE;
  run->preparing--;
  prepare_next (run);
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

  if (decision == NULL || g_str_equal (decision->decision, "cancelled"))
    complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                    _("The call of %s was cancelled."), call->name));
  else if (!decision->approved)
    complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED,
                                                    _("The call of %s was not allowed: %s."), call->name,
                                                    decision->reason ? decision->reason : _("denied")));
  else
    call->ready = TRUE;

  finish_preparing (call);
}

static void
authorize_call (ToolCall *call)
{
  Run *run = call->run;
  ZotAgent *self = run->agent;

  ZotCallOrigin origin;

  zot_extension_manager_authorize_async (self->manager, call->id, call->name, call->effective_args,
                                         zot_tool_get_requires_approval (call->tool),
                                         _zot_agent_call_origin (self, &origin),
                                         run->cancellable, authorized_cb, call);
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

static void
prepare_call (Run      *run,
              ToolCall *call)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) payload = NULL;

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      complete_call (call, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_CANCELLED,
                                                      _("The call of %s was cancelled before it ran."),
                                                      call->name));
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
  run->preparing++;

  if (!zot_extension_manager_has_interceptors (self->manager, "tool_call"))
    {
      authorize_call (call);
      return;
    }

  payload = json_object_new ();
  json_object_set_string_member (payload, "tool_id", call->id);
  json_object_set_string_member (payload, "tool_name", call->name);
  json_object_set_object_member (payload, "tool_args", json_object_ref (call->effective_args));
  if (self->subagent_id != NULL)
    json_object_set_string_member (payload, "agent_id", self->subagent_id);
  zot_extension_manager_intercept_async (self->manager, "tool_call", payload, run->cancellable,
                                         intercepted_cb, call);
}

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

      prepare_call (run, call);
      if (run->preparing > 0)
        return;
    }

  for (guint i = run->group_start; i < run->group_end; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);

      if (call->ready && !call->done && !call->executed)
        execute_call (run, call);
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
_zot_agent_on_run_cancelled (GCancellable *cancellable,
                             Run          *run)
{
  /* The GCancellables of the calls are thread-safe to cancel. */
  if (run->calls != NULL)
    for (guint i = 0; i < run->calls->len; i++)
      {
        ToolCall *call = g_ptr_array_index (run->calls, i);
        if (call->cancellable != NULL)
          g_cancellable_cancel (call->cancellable);
      }
}

void
_zot_agent_collect_calls (Run        *run,
                          JsonObject *message)
{
  ZotAgent *self = run->agent;
  JsonArray *content = json_object_get_array_member (message, "content");

  run->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_call_free);
  run->group_start = 0;

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonObject *block = json_array_get_object_element (content, i);
      ToolCall *call;
      JsonNode *input;

      if (g_strcmp0 (json_object_get_string_member_with_default (block, "type", ""), "tool_use") != 0)
        continue;

      call = g_new0 (ToolCall, 1);
      call->run = run;
      call->id = g_strdup (json_object_get_string_member_with_default (block, "id", ""));
      call->name = g_strdup (json_object_get_string_member_with_default (block, "name", ""));
      input = json_object_get_member (block, "input");
      if (input != NULL && JSON_NODE_HOLDS_OBJECT (input))
        call->args = json_object_ref (json_node_get_object (input));
      else
        call->args = json_object_new ();
      call->effective_args = json_object_ref (call->args);
      if (json_object_has_member (block, "input_raw"))
        call->args_raw = g_strdup (json_object_get_string_member_with_default (block, "input_raw", ""));
      call->tool = zot_tool_registry_lookup (self->registry, call->name);
      if (call->tool != NULL)
        g_object_ref (call->tool);
      g_ptr_array_add (run->calls, call);
    }
}
