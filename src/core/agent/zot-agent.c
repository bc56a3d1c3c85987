/* zot-agent.c — the loop: model, tools, results, again.
 *
 * One run at a time; prompts submitted during a run wait in a queue. A run
 * owns a GCancellable and every tool call a child of it, so an abort ends
 * the stream and every running tool, each tool still giving a terminal
 * result so that the transcript stays valid.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-limits.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-observation.h"
#include "zot-system-prompt.h"

typedef struct _Run Run;

typedef struct
{
  Run           *run;
  char          *id;
  char          *name;
  JsonObject    *args;
  JsonObject    *effective_args;
  char          *args_raw;
  ZotTool       *tool;
  ZotToolResult *result;
  GCancellable  *cancellable;
  gboolean       preparing;
  gboolean       ready;
  gboolean       executed;
  gboolean       done;
} ToolCall;

struct _Run
{
  ZotAgent     *agent;
  GTask        *task;
  GCancellable *cancellable;
  gulong        cancel_id;
  gulong        cancelled_id;
  char         *text;
  guint         step;
  GString      *streamed;
  GPtrArray    *calls;
  guint         group_start;
  guint         group_end;
  guint         preparing;
  guint         running;
  char         *final_text;
  JsonObject   *message;
  char         *stop;
  JsonObject   *synthetic;
};

typedef struct
{
  char       *text;
  JsonArray  *images;
  JsonObject *synthetic;
} PromptData;

static void
prompt_data_free (PromptData *data)
{
  g_free (data->text);
  g_clear_pointer (&data->images, json_array_unref);
  g_clear_pointer (&data->synthetic, json_object_unref);
  g_free (data);
}

struct _ZotAgent
{
  GObject              parent_instance;

  ZotProvider         *provider;
  ZotToolRegistry     *registry;
  ZotSession          *session;
  ZotExtensionManager *manager;
  char                *cwd;
  guint                max_steps;
  char                *system_prompt_override;
  GStrv                append_system_prompt;
  char                *system_prompt;
  gboolean             system_prompt_built;
  guint                prompt_generation;
  gboolean             interactive;
  /* A subagent: only its tool calls reach the manager (PROTOCOL.md §11). */
  char                *subagent_id;
  char                *subagent_name;

  Run                 *run;
  GQueue               queue;
  gulong               text_delta_id;
  GCancellable        *cancellable;
};

enum {
  USER_MESSAGE,
  TURN_START,
  ASSISTANT_START,
  TEXT_DELTA,
  TOOL_CALL,
  TOOL_RESULT,
  ASSISTANT_MESSAGE,
  USAGE,
  TURN_END,
  WARNING,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_QUARK (zot-agent-error-quark, zot_agent_error)
G_DEFINE_FINAL_TYPE (ZotAgent, zot_agent, G_TYPE_OBJECT)

static void run_step        (Run *run);
static void run_group       (Run *run);
static void start_next_run  (ZotAgent *self);

void
zot_compaction_free (ZotCompaction *compaction)
{
  if (compaction == NULL)
    return;
  g_free (compaction->id);
  g_free (compaction);
}

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

static void
run_free (Run *run)
{
  if (run->cancel_id != 0)
    g_cancellable_disconnect (g_task_get_cancellable (run->task), run->cancel_id);
  if (run->cancelled_id != 0)
    g_cancellable_disconnect (run->cancellable, run->cancelled_id);
  g_clear_object (&run->task);
  g_clear_object (&run->cancellable);
  g_free (run->text);
  if (run->streamed != NULL)
    g_string_free (run->streamed, TRUE);
  g_clear_pointer (&run->calls, g_ptr_array_unref);
  g_free (run->final_text);
  g_clear_pointer (&run->message, json_object_unref);
  g_clear_pointer (&run->synthetic, json_object_unref);
  g_free (run->stop);
  g_free (run);
}

/* Who the agent's calls are for, when it is a subagent. */
static const ZotCallOrigin *
call_origin (ZotAgent      *self,
             ZotCallOrigin *origin)
{
  if (self->subagent_id == NULL)
    return NULL;

  origin->extension = NULL;
  origin->agent_id = self->subagent_id;
  origin->agent_name = self->subagent_name;
  return origin;
}

static void
emit_event (ZotAgent   *self,
            const char *name,
            JsonObject *payload)
{
  if (self->manager == NULL)
    return;

  /* A subagent's run is announced by subagent_start/stop; its tool calls
   * are observed like the parent's, saying whose they are. */
  if (self->subagent_id != NULL)
    {
      if (!g_str_equal (name, "tool_call") && !g_str_equal (name, "tool_result"))
        return;
      json_object_set_string_member (payload, "agent_id", self->subagent_id);
    }

  zot_extension_manager_emit_event (self->manager, name, payload);
}

/* The manager for the hooks that shape a run (turn_start, assistant
 * message, before_agent_start): the parent's run owns those, not its
 * subagents. */
static ZotExtensionManager *
hooks_manager (ZotAgent *self)
{
  return self->subagent_id == NULL ? self->manager : NULL;
}

/* System prompt */

static char *
build_base_prompt (ZotAgent *self)
{
  g_autoptr(GPtrArray) tools = zot_tool_registry_list_for_model (self->registry);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  ZotSystemPromptOptions options = { 0 };

  for (guint i = 0; i < tools->len; i++)
    g_ptr_array_add (names, (gpointer) zot_tool_get_name (g_ptr_array_index (tools, i)));

  options.cwd = self->cwd;
  options.system_prompt = self->system_prompt_override;
  options.append = (const char * const *) self->append_system_prompt;
  options.tool_names = names;
  options.include_skills = zot_tool_registry_lookup (self->registry, "skill") != NULL;

  return zot_system_prompt_build (&options, NULL);
}

static const char *
ensure_system_prompt (ZotAgent *self)
{
  if (!self->system_prompt_built)
    {
      g_free (self->system_prompt);
      self->system_prompt = build_base_prompt (self);
      self->system_prompt_built = TRUE;
    }

  return self->system_prompt;
}

/**
 * zot_agent_reset_system_prompt:
 *
 * Forgets the assembled prompt: the next model call builds it again from
 * the base, and runs `before_agent_start` again. Model and session
 * changes, clearing and reloads do this. A chain still running when this
 * is called is discarded when it ends.
 */
void
zot_agent_reset_system_prompt (ZotAgent *self)
{
  g_return_if_fail (ZOT_IS_AGENT (self));

  self->system_prompt_built = FALSE;
  self->prompt_generation++;
  g_clear_pointer (&self->system_prompt, g_free);
}

/* Run completion */

static void
finish_run (Run    *run,
            GError *error)
{
  ZotAgent *self = run->agent;

  g_assert (self->run == run);
  self->run = NULL;

  if (error != NULL)
    g_task_return_error (run->task, error);
  else
    g_task_return_pointer (run->task, g_strdup (run->final_text ? run->final_text : ""), g_free);

  run_free (run);

  start_next_run (self);
}

static void
emit_turn_end (Run        *run,
               const char *stop,
               const char *error)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  json_object_set_string_member (payload, "stop", stop);
  if (error != NULL)
    json_object_set_string_member (payload, "error", error);
  emit_event (run->agent, "turn_end", payload);

  g_signal_emit (run->agent, signals [TURN_END], 0, stop, error);
}

static void
abort_run (Run *run)
{
  emit_turn_end (run, "aborted", NULL);
  finish_run (run, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("the run was aborted")));
}

static void
fail_run (Run    *run,
          GError *error)
{
  emit_turn_end (run, "error", error->message);
  finish_run (run, error);
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
      fail_run (run, g_steal_pointer (&error));
      return;
    }

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      abort_run (run);
      return;
    }

  g_clear_pointer (&run->calls, g_ptr_array_unref);
  run_step (run);
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
                                                      reason, call_origin (self, &origin));
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
      emit_event (self, "tool_result", payload);
    }

  g_signal_emit (self, signals [TOOL_RESULT], 0, call->id, call->name, result);
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
  run_group (run);
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
                                                    call_origin (self, &origin));
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
                                         call_origin (self, &origin),
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
static void
run_group (Run *run)
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

static void
on_run_cancelled (GCancellable *cancellable,
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

static void
collect_calls (Run        *run,
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

/* Model step */

/* After the assistant message: announce the calls, end the turn, run them. */
static void
end_model_turn (Run *run)
{
  ZotAgent *self = run->agent;
  gboolean has_tools;

  collect_calls (run, run->message);
  has_tools = run->calls->len > 0;

  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_autoptr(JsonObject) payload = json_object_new ();

      json_object_set_string_member (payload, "tool_id", call->id);
      json_object_set_string_member (payload, "tool_name", call->name);
      json_object_set_object_member (payload, "tool_args", json_object_ref (call->args));
      if (call->args_raw != NULL)
        json_object_set_string_member (payload, "tool_args_raw", call->args_raw);
      emit_event (self, "tool_call", payload);
    }

  emit_turn_end (run, has_tools ? "tool_use" : run->stop, NULL);

  /* Every call of the batch is announced before any runs. */
  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_signal_emit (self, signals [TOOL_CALL], 0, call->id, call->name, call->args);
    }

  if (has_tools)
    {
      run_group (run);
      return;
    }

  g_clear_pointer (&run->calls, g_ptr_array_unref);
  if (g_cancellable_is_cancelled (run->cancellable))
    abort_run (run);
  else
    finish_run (run, NULL);
}

static void
show_assistant_message (Run        *run,
                        const char *visible_text,
                        gboolean    suppressed)
{
  ZotAgent *self = run->agent;
  JsonObject *usage = zot_json_get_object (run->message, "usage");

  if (!suppressed)
    {
      g_autoptr(JsonObject) shown = NULL;

      if (visible_text != NULL)
        {
          /* Only what the user sees changes; the transcript keeps the original. */
          JsonArray *content = json_object_get_array_member (run->message, "content");
          g_autoptr(JsonArray) replaced = zot_content_new_text (visible_text);

          for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
            {
              JsonObject *block = json_array_get_object_element (content, i);
              if (g_strcmp0 (json_object_get_string_member_with_default (block, "type", ""), "text") != 0)
                json_array_add_element (replaced, json_node_copy (json_array_get_element (content, i)));
            }
          shown = json_object_new ();
          json_object_set_string_member (shown, "role", "assistant");
          json_object_set_array_member (shown, "content", g_steal_pointer (&replaced));

          g_free (run->final_text);
          run->final_text = g_strdup (visible_text);
        }
      else
        shown = json_object_ref (run->message);

      g_signal_emit (self, signals [ASSISTANT_MESSAGE], 0, shown);
    }
  else
    {
      g_free (run->final_text);
      run->final_text = g_strdup ("");
    }

  g_signal_emit (self, signals [USAGE], 0,
                 usage ? json_object_get_int_member_with_default (usage, "input_tokens", -1) : (gint64) -1,
                 usage ? json_object_get_int_member_with_default (usage, "output_tokens", -1) : (gint64) -1);

  end_model_turn (run);
}

static void
assistant_intercepted_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(ZotInterception) interception = NULL;
  g_autoptr(GError) error = NULL;

  interception = zot_extension_manager_intercept_finish (ZOT_EXTENSION_MANAGER (object), result, &error);

  if (interception == NULL)
    show_assistant_message (run, NULL, FALSE);
  else if (interception->blocked)
    show_assistant_message (run, NULL, TRUE);
  else if (interception->rewritten)
    show_assistant_message (run, json_object_get_string_member_with_default (interception->payload, "text", ""),
                            FALSE);
  else
    show_assistant_message (run, NULL, FALSE);
}

static void
assistant_appended_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;
  ZotAgent *self = run->agent;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    {
      fail_run (run, g_steal_pointer (&error));
      return;
    }

  text = zot_message_get_text (run->message);
  g_free (run->final_text);
  run->final_text = g_strdup (text);

  if (*text == '\0')
    {
      show_assistant_message (run, NULL, FALSE);
      return;
    }

  {
    g_autoptr(JsonObject) payload = json_object_new ();

    json_object_set_string_member (payload, "text", text);
    emit_event (self, "assistant_message", payload);

    if (hooks_manager (self) != NULL &&
        zot_extension_manager_has_interceptors (self->manager, "assistant_message"))
      {
        zot_extension_manager_intercept_async (self->manager, "assistant_message", payload,
                                               run->cancellable, assistant_intercepted_cb, run);
        return;
      }
  }

  show_assistant_message (run, NULL, FALSE);
}

static void
streamed_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  ZotAgent *self = run->agent;
  g_autoptr(ZotProviderReply) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_provider_stream_finish (ZOT_PROVIDER (object), result, &error);

  if (reply == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* Keep what was said before the abort, without half a tool call. */
          if (run->streamed->len > 0)
            {
              g_autoptr(JsonObject) partial = zot_message_new_assistant_text (run->streamed->str);
              zot_session_append_message_async (self->session, partial, NULL, NULL, NULL);
            }
          abort_run (run);
          return;
        }

      fail_run (run, g_steal_pointer (&error));
      return;
    }

  if (reply->input_tokens >= 0 || reply->output_tokens >= 0)
    {
      JsonObject *usage = json_object_new ();

      json_object_set_int_member (usage, "input_tokens", MAX (reply->input_tokens, 0));
      json_object_set_int_member (usage, "output_tokens", MAX (reply->output_tokens, 0));
      json_object_set_object_member (reply->message, "usage", usage);
    }

  g_clear_pointer (&run->message, json_object_unref);
  run->message = json_object_ref (reply->message);
  g_free (run->stop);
  run->stop = g_strdup (reply->stop_reason ? reply->stop_reason : "end_turn");

  zot_session_append_message_async (self->session, reply->message, NULL, assistant_appended_cb, run);
}

static void
on_text_delta (ZotProvider *provider,
               const char  *delta,
               ZotAgent    *self)
{
  if (self->run == NULL)
    return;

  g_string_append (self->run->streamed, delta);
  g_signal_emit (self, signals [TEXT_DELTA], 0, delta);
}

static void
call_model (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(ZotProviderRequest) request = NULL;
  GPtrArray *messages;

  request = zot_provider_request_new ();
  request->model = g_strdup (zot_provider_get_model (self->provider));
  request->system_prompt = g_strdup (self->system_prompt);
  request->tools = zot_tool_registry_definitions (self->registry);
  request->messages = json_array_new ();
  messages = zot_session_get_messages (self->session);
  for (guint i = 0; i < messages->len; i++)
    json_array_add_object_element (request->messages, json_object_ref (g_ptr_array_index (messages, i)));

  g_signal_emit (self, signals [ASSISTANT_START], 0);
  zot_provider_stream_async (self->provider, request, run->cancellable, streamed_cb, run);
}

static void
turn_intercepted_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(ZotInterception) interception = NULL;
  g_autoptr(GError) error = NULL;

  interception = zot_extension_manager_intercept_finish (ZOT_EXTENSION_MANAGER (object), result, &error);

  if (interception == NULL)
    {
      abort_run (run);
      return;
    }

  if (interception->blocked)
    {
      fail_run (run, g_error_new (ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_BLOCKED,
                                  _("%s blocked the turn: %s"),
                                  interception->blocked_by, interception->reason));
      return;
    }

  call_model (run);
}

static void
intercept_turn (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) payload = NULL;

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      abort_run (run);
      return;
    }

  if (hooks_manager (self) == NULL || !zot_extension_manager_has_interceptors (self->manager, "turn_start"))
    {
      call_model (run);
      return;
    }

  payload = json_object_new ();
  json_object_set_int_member (payload, "step", run->step);
  zot_extension_manager_intercept_async (self->manager, "turn_start", payload, run->cancellable,
                                         turn_intercepted_cb, run);
}

static void prepare_system_prompt (Run *run);

typedef struct
{
  Run   *run;
  guint  generation;
} PromptPass;

static void
before_agent_start_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  PromptPass *pass = user_data;
  Run *run = pass->run;
  ZotAgent *self = run->agent;
  g_autofree char *prompt = NULL;
  g_autoptr(GError) error = NULL;
  guint generation = pass->generation;

  g_free (pass);
  prompt = zot_extension_manager_before_agent_start_finish (ZOT_EXTENSION_MANAGER (object), result, &error);

  if (prompt == NULL)
    {
      /* Cancellation does not commit a pending replacement. */
      abort_run (run);
      return;
    }

  if (generation != self->prompt_generation)
    {
      /* Reset while the chain ran: this result is stale, run it again. */
      prepare_system_prompt (run);
      return;
    }

  g_free (self->system_prompt);
  self->system_prompt = g_steal_pointer (&prompt);
  self->system_prompt_built = TRUE;
  intercept_turn (run);
}

/* The first model call of a run (and the first after a rebuild) assembles
 * the prompt and passes it through the `before_agent_start` chain; the
 * result is reused until the next rebuild. */
static void
prepare_system_prompt (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) context = NULL;
  g_autofree char *run_id = NULL;
  g_autofree char *base = NULL;
  PromptPass *pass;

  if (self->system_prompt_built)
    {
      intercept_turn (run);
      return;
    }

  base = build_base_prompt (self);

  if (hooks_manager (self) == NULL ||
      !zot_extension_manager_has_interceptors (self->manager, "before_agent_start"))
    {
      g_free (self->system_prompt);
      self->system_prompt = g_steal_pointer (&base);
      self->system_prompt_built = TRUE;
      intercept_turn (run);
      return;
    }

  run_id = g_uuid_string_random ();
  context = json_object_new ();
  json_object_set_string_member (context, "session_id", zot_extension_manager_get_session_id (self->manager));
  json_object_set_string_member (context, "agent_run_id", run_id);
  json_object_set_string_member (context, "cwd", self->cwd);
  json_object_set_string_member (context, "provider", zot_provider_get_name (self->provider));
  json_object_set_string_member (context, "model", zot_provider_get_model (self->provider));

  pass = g_new0 (PromptPass, 1);
  pass->run = run;
  pass->generation = self->prompt_generation;
  zot_extension_manager_before_agent_start_async (self->manager, context, base, run->cancellable,
                                                  before_agent_start_cb, pass);
}

static void
run_step (Run *run)
{
  ZotAgent *self = run->agent;
  g_autoptr(JsonObject) payload = NULL;

  if (g_cancellable_is_cancelled (run->cancellable))
    {
      abort_run (run);
      return;
    }

  if (run->step >= self->max_steps)
    {
      g_autofree char *message = g_strdup_printf (_("stopped after %u steps (--max-steps)"), self->max_steps);

      emit_turn_end (run, "max_steps", message);
      finish_run (run, g_error_new_literal (ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_MAX_STEPS, message));
      return;
    }

  run->step++;
  g_string_truncate (run->streamed, 0);

  payload = json_object_new ();
  json_object_set_int_member (payload, "step", run->step);
  emit_event (self, "turn_start", payload);
  g_signal_emit (self, signals [TURN_START], 0, run->step);

  prepare_system_prompt (run);
}

static void
synthetic_appended_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Run *run = user_data;
  ZotAgent *self = run->agent;
  g_autoptr(GError) error = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    {
      finish_run (run, g_steal_pointer (&error));
      return;
    }

  g_clear_pointer (&run->message, json_object_unref);
  run->message = json_object_ref (run->synthetic);
  collect_calls (run, run->message);

  for (guint i = 0; i < run->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (run->calls, i);
      g_autoptr(JsonObject) payload = json_object_new ();

      json_object_set_string_member (payload, "tool_id", call->id);
      json_object_set_string_member (payload, "tool_name", call->name);
      json_object_set_object_member (payload, "tool_args", json_object_ref (call->args));
      json_object_set_string_member (payload, "origin_extension",
                                     json_object_get_string_member_with_default (run->synthetic, "origin_extension", ""));
      emit_event (self, "tool_call", payload);
      g_signal_emit (self, signals [TOOL_CALL], 0, call->id, call->name, call->args);
    }

  run_group (run);
}

static void
user_appended_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    {
      finish_run (run, g_steal_pointer (&error));
      return;
    }

  if (run->synthetic != NULL)
    {
      /* tool_prompt: the extension's call is stored as the assistant's,
       * then runs through the same checks, interception and approval. */
      zot_session_append_message_async (run->agent->session, run->synthetic, NULL,
                                        synthetic_appended_cb, run);
      return;
    }

  run_step (run);
}

static void
start_run (ZotAgent *self,
           GTask    *task)
{
  g_autoptr(JsonObject) message = NULL;
  Run *run;

  PromptData *data = g_task_get_task_data (task);

  run = g_new0 (Run, 1);
  run->agent = self;
  run->task = task;
  run->text = g_strdup (data->text);
  if (data->synthetic != NULL)
    run->synthetic = json_object_ref (data->synthetic);
  run->streamed = g_string_new (NULL);
  run->cancellable = g_cancellable_new ();
  self->run = run;

  if (g_task_get_cancellable (task) != NULL)
    run->cancel_id = g_cancellable_connect (g_task_get_cancellable (task),
                                            G_CALLBACK (g_cancellable_cancel),
                                            g_object_ref (run->cancellable),
                                            g_object_unref);
  run->cancelled_id = g_cancellable_connect (run->cancellable, G_CALLBACK (on_run_cancelled), run, NULL);

  message = zot_message_new_user (run->text, data->images);
  g_signal_emit (self, signals [USER_MESSAGE], 0, message);
  zot_session_append_message_async (self->session, message, NULL, user_appended_cb, run);
}

static void
start_next_run (ZotAgent *self)
{
  GTask *task;

  if (self->run != NULL)
    return;

  while ((task = g_queue_pop_head (&self->queue)) != NULL)
    {
      if (g_task_return_error_if_cancelled (task))
        {
          g_object_unref (task);
          continue;
        }
      start_run (self, task);
      return;
    }
}

/* Announced once, at acceptance; a queued prompt says so. */
static void
accept_prompt (ZotAgent   *self,
               GTask      *task,
               const char *text)
{
  PromptData *data = g_task_get_task_data (task);

  if (self->manager != NULL)
    {
      g_autoptr(JsonObject) payload = json_object_new ();

      json_object_set_string_member (payload, "text", text);
      if (self->run != NULL || self->queue.length > 0)
        json_object_set_boolean_member (payload, "queued", TRUE);
      json_object_set_int_member (payload, "image_count",
                                  data->images != NULL ? json_array_get_length (data->images) : 0);
      emit_event (self, "user_prompt_submit", payload);
    }

  g_queue_push_tail (&self->queue, task);
  start_next_run (self);
}

/**
 * zot_agent_prompt_async:
 *
 * Submits a user message. When a run is in progress, it waits in the queue
 * and starts when the run before it ends. Completes with the final text
 * of the run.
 */
void
zot_agent_prompt_async (ZotAgent            *self,
                        const char          *text,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  zot_agent_prompt_with_images_async (self, text, NULL, cancellable, callback, user_data);
}

/**
 * zot_agent_prompt_with_images_async:
 * @text: the message's text, "" for images alone
 * @images: (nullable): image blocks from zot_image_block_new(), shown to
 *   the model after the text
 *
 * Like zot_agent_prompt_async(), with images; complete with
 * zot_agent_prompt_finish().
 */
void
zot_agent_prompt_with_images_async (ZotAgent            *self,
                                    const char          *text,
                                    JsonArray           *images,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  PromptData *data;
  GTask *task;

  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (text != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_agent_prompt_async);
  data = g_new0 (PromptData, 1);
  data->text = g_strdup (text);
  if (images != NULL && json_array_get_length (images) > 0)
    data->images = json_array_ref (images);
  g_task_set_task_data (task, data, (GDestroyNotify) prompt_data_free);

  accept_prompt (self, task, text);
}

/**
 * zot_agent_prompt_finish:
 *
 * Returns: (transfer full): the text of the last assistant message
 */
char *
zot_agent_prompt_finish (ZotAgent      *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * zot_agent_tool_prompt_async:
 * @prompt: the user message to append
 * @tool_name: the tool to run before the model turn
 * @tool_args: its arguments
 * @origin_extension: the extension whose command asked for it
 *
 * What an extension command's `tool_prompt` answer does in a window: the
 * prompt is appended as a user message, the tool runs through the usual
 * checks, interception and approval, the pair is stored (the call records
 * its origin), then the model takes its turn with the full result.
 */
void
zot_agent_tool_prompt_async (ZotAgent            *self,
                             const char          *prompt,
                             const char          *tool_name,
                             JsonObject          *tool_args,
                             const char          *origin_extension,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(JsonArray) content = json_array_new ();
  g_autofree char *uuid = g_uuid_string_random ();
  g_autofree char *id = g_strdup_printf ("prompt_%.8s", uuid);
  JsonObject *block = json_object_new ();
  PromptData *data;
  GTask *task;

  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (prompt != NULL && tool_name != NULL && tool_args != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_agent_prompt_async);

  json_object_set_string_member (block, "type", "tool_use");
  json_object_set_string_member (block, "id", id);
  json_object_set_string_member (block, "name", tool_name);
  json_object_set_object_member (block, "input", json_object_ref (tool_args));
  if (origin_extension != NULL)
    json_object_set_string_member (block, "origin_extension", origin_extension);
  json_array_add_object_element (content, block);

  data = g_new0 (PromptData, 1);
  data->text = g_strdup (prompt);
  data->synthetic = json_object_new ();
  json_object_set_string_member (data->synthetic, "role", "assistant");
  json_object_set_array_member (data->synthetic, "content", g_steal_pointer (&content));
  if (origin_extension != NULL)
    json_object_set_string_member (data->synthetic, "origin_extension", origin_extension);
  g_task_set_task_data (task, data, (GDestroyNotify) prompt_data_free);

  accept_prompt (self, task, prompt);
}

guint
zot_agent_get_queue_length (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), 0);
  return self->queue.length;
}

/**
 * zot_agent_abort:
 *
 * Cancels the running run (the stream and every running tool) and every
 * queued prompt.
 */
void
zot_agent_abort (ZotAgent *self)
{
  GTask *task;

  g_return_if_fail (ZOT_IS_AGENT (self));

  while ((task = g_queue_pop_head (&self->queue)) != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("the run was aborted"));
      g_object_unref (task);
    }

  if (self->run != NULL)
    g_cancellable_cancel (self->run->cancellable);
}

gboolean
zot_agent_is_running (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), FALSE);
  return self->run != NULL;
}

/* Compaction */

typedef struct
{
  ZotCompaction *compaction;
  guint          count;
} CompactData;

static void
emit_compaction (ZotAgent      *self,
                 const char    *name,
                 ZotCompaction *compaction,
                 guint          message_count,
                 guint64        token_estimate,
                 const char    *status,
                 const char    *error)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  json_object_set_string_member (payload, "compaction_id", compaction->id);
  json_object_set_int_member (payload, "message_count", message_count);
  json_object_set_int_member (payload, "token_estimate", (gint64) token_estimate);
  if (status != NULL)
    json_object_set_string_member (payload, "status", status);
  if (error != NULL)
    json_object_set_string_member (payload, "error", error);
  emit_event (self, name, payload);
}

static void
compact_data_free (CompactData *data)
{
  zot_compaction_free (data->compaction);
  g_free (data);
}

static guint64
estimate_tokens (GPtrArray *messages)
{
  guint64 bytes = 0;

  for (guint i = 0; i < messages->len; i++)
    bytes += zot_message_estimate_bytes (g_ptr_array_index (messages, i));
  return bytes / 4;
}

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotAgent *self = g_task_get_source_object (task);
  CompactData *data = g_task_get_task_data (task);
  g_autoptr(ZotProviderReply) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) replacement = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *text = NULL;
  JsonObject *message;

  self->text_delta_id = 0;
  reply = zot_provider_stream_finish (ZOT_PROVIDER (object), result, &error);
  if (reply == NULL)
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

      /* Every attempt gets its post_compact; the transcript is unchanged. */
      emit_compaction (self, "post_compact", data->compaction, data->compaction->message_count,
                       data->compaction->token_estimate, cancelled ? "cancelled" : "failed",
                       error->message);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  summary = zot_message_get_text (reply->message);
  if (*g_strstrip (summary) == '\0')
    {
      emit_compaction (self, "post_compact", data->compaction, data->compaction->message_count,
                       data->compaction->token_estimate, "failed", "the model returned an empty summary");
      g_task_return_new_error (task, ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_EMPTY,
                               _("the model returned an empty summary; the conversation was kept"));
      return;
    }

  text = g_strdup_printf (_("Summary of the conversation so far:\n\n%s"), summary);
  message = zot_message_new_user_text (text);
  json_object_set_boolean_member (message, "summary", TRUE);

  replacement = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_ptr_array_add (replacement, message);
  zot_session_replace_messages (self->session, replacement);
  zot_agent_reset_system_prompt (self);

  data->compaction->after_count = replacement->len;
  data->compaction->after_token_estimate = estimate_tokens (replacement);
  emit_compaction (self, "post_compact", data->compaction, data->compaction->after_count,
                   data->compaction->after_token_estimate, "completed", NULL);
  g_task_return_pointer (task, g_steal_pointer (&data->compaction), (GDestroyNotify) zot_compaction_free);
}

/**
 * zot_agent_compact_async:
 *
 * Asks the model for a summary and replaces the transcript with it. The
 * compaction's figures are known at once through its id; the finish gives
 * them with the result.
 */
void
zot_agent_compact_async (ZotAgent            *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(ZotProviderRequest) request = NULL;
  GPtrArray *messages;
  CompactData *data;

  g_return_if_fail (ZOT_IS_AGENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_agent_compact_async);

  messages = zot_session_get_messages (self->session);

  data = g_new0 (CompactData, 1);
  data->compaction = g_new0 (ZotCompaction, 1);
  data->compaction->id = g_uuid_string_random ();
  data->compaction->message_count = messages->len;
  data->compaction->token_estimate = estimate_tokens (messages);
  g_task_set_task_data (task, data, (GDestroyNotify) compact_data_free);

  if (self->run != NULL)
    {
      g_task_return_new_error (task, ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_BUSY,
                               _("a run is in progress; wait for it or abort it first"));
      return;
    }

  emit_compaction (self, "pre_compact", data->compaction, data->compaction->message_count,
                   data->compaction->token_estimate, NULL, NULL);

  if (messages->len == 0)
    {
      data->compaction->after_count = 0;
      emit_compaction (self, "post_compact", data->compaction, 0, 0, "completed", NULL);
      g_task_return_pointer (task, g_steal_pointer (&data->compaction), (GDestroyNotify) zot_compaction_free);
      return;
    }

  request = zot_provider_request_new ();
  request->model = g_strdup (zot_provider_get_model (self->provider));
  request->system_prompt = g_strdup (ensure_system_prompt (self));
  request->messages = json_array_new ();
  for (guint i = 0; i < messages->len; i++)
    json_array_add_object_element (request->messages, json_object_ref (g_ptr_array_index (messages, i)));
  json_array_add_object_element (request->messages, zot_message_new_user_text (ZOT_COMPACT_PROMPT));

  zot_provider_stream_async (self->provider, request, cancellable, compacted_cb, g_steal_pointer (&task));
}

/**
 * zot_agent_compact_finish:
 *
 * Returns: (transfer full): the figures before and after
 */
ZotCompaction *
zot_agent_compact_finish (ZotAgent      *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* GObject */

static void
zot_agent_dispose (GObject *object)
{
  ZotAgent *self = (ZotAgent *)object;

  g_cancellable_cancel (self->cancellable);

  if (self->provider != NULL && self->text_delta_id != 0)
    g_clear_signal_handler (&self->text_delta_id, self->provider);

  G_OBJECT_CLASS (zot_agent_parent_class)->dispose (object);
}

static void
zot_agent_finalize (GObject *object)
{
  ZotAgent *self = (ZotAgent *)object;

  g_assert (self->run == NULL);
  g_assert (g_queue_is_empty (&self->queue));

  if (self->provider != NULL)
    g_signal_handlers_disconnect_by_data (self->provider, self);
  g_clear_object (&self->provider);
  g_clear_object (&self->registry);
  g_clear_object (&self->manager);
  g_clear_object (&self->session);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->cwd, g_free);
  g_clear_pointer (&self->subagent_id, g_free);
  g_clear_pointer (&self->subagent_name, g_free);
  g_clear_pointer (&self->system_prompt_override, g_free);
  g_clear_pointer (&self->append_system_prompt, g_strfreev);
  g_clear_pointer (&self->system_prompt, g_free);

  G_OBJECT_CLASS (zot_agent_parent_class)->finalize (object);
}

static void
zot_agent_class_init (ZotAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_agent_dispose;
  object_class->finalize = zot_agent_finalize;

  signals [USER_MESSAGE] =
    g_signal_new ("user-message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
  signals [TURN_START] =
    g_signal_new ("turn-start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);
  signals [ASSISTANT_START] =
    g_signal_new ("assistant-start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  signals [TEXT_DELTA] =
    g_signal_new ("text-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * ZotAgent::tool-call:
   * @id: the transcript's tool call id
   * @name: the tool
   * @args: the arguments as the model gave them (`{}` when unparsable)
   */
  signals [TOOL_CALL] =
    g_signal_new ("tool-call", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, JSON_TYPE_OBJECT);
  signals [TOOL_RESULT] =
    g_signal_new ("tool-result", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, ZOT_TYPE_TOOL_RESULT);
  signals [ASSISTANT_MESSAGE] =
    g_signal_new ("assistant-message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
  signals [USAGE] =
    g_signal_new ("usage", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_INT64);
  /**
   * ZotAgent::turn-end:
   * @stop: "end_turn", "tool_use", "length", "error", "aborted" or "max_steps"
   * @error: (nullable): what went wrong
   */
  signals [TURN_END] =
    g_signal_new ("turn-end", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals [WARNING] =
    g_signal_new ("warning", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
zot_agent_init (ZotAgent *self)
{
  self->max_steps = ZOT_DEFAULT_MAX_STEPS;
  self->cwd = g_get_current_dir ();
  self->cancellable = g_cancellable_new ();
  g_queue_init (&self->queue);
}

ZotAgent *
zot_agent_new (ZotProvider     *provider,
               ZotToolRegistry *registry,
               ZotSession      *session)
{
  ZotAgent *self;

  g_return_val_if_fail (ZOT_IS_PROVIDER (provider), NULL);
  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (registry), NULL);
  g_return_val_if_fail (ZOT_IS_SESSION (session), NULL);

  self = g_object_new (ZOT_TYPE_AGENT, NULL);
  self->registry = g_object_ref (registry);
  self->session = g_object_ref (session);
  zot_agent_set_provider (self, provider);
  g_free (self->cwd);
  self->cwd = g_strdup (zot_session_get_cwd (session));

  return self;
}

ZotProvider *
zot_agent_get_provider (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return self->provider;
}

/**
 * zot_agent_set_provider:
 *
 * Switches the model (`/model`, `set_model`): takes effect at the next
 * model call, with the system prompt built again.
 */
void
zot_agent_set_provider (ZotAgent    *self,
                        ZotProvider *provider)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (ZOT_IS_PROVIDER (provider));

  if (self->provider == provider)
    return;

  if (self->provider != NULL)
    g_signal_handlers_disconnect_by_data (self->provider, self);
  g_set_object (&self->provider, provider);
  g_signal_connect (provider, "text-delta", G_CALLBACK (on_text_delta), self);
  zot_agent_reset_system_prompt (self);
}

ZotSession *
zot_agent_get_session (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return self->session;
}

void
zot_agent_set_session (ZotAgent   *self,
                       ZotSession *session)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (ZOT_IS_SESSION (session));

  g_set_object (&self->session, session);
  zot_tool_registry_reset_activations (self->registry);
  zot_agent_reset_system_prompt (self);
}

/**
 * zot_agent_set_extension_manager:
 * @manager: (nullable): where lifecycle events, interception and approvals go
 */
void
zot_agent_set_extension_manager (ZotAgent            *self,
                                 ZotExtensionManager *manager)
{
  g_return_if_fail (ZOT_IS_AGENT (self));

  g_set_object (&self->manager, manager);
  zot_agent_reset_system_prompt (self);
}

/**
 * zot_agent_set_subagent:
 * @manager: (nullable): the parent's manager
 * @agent_id: the subagent's id, in every event and approval of its calls
 * @name: (nullable): its label, for the user
 *
 * Makes @self a subagent of the conversation that @manager serves: its
 * tool calls pass the same `tool_call` interceptors and permission
 * decisions as the parent's own (PROTOCOL.md §11), so no guard can be
 * bypassed by delegating; its `tool_call`, `tool_result` and
 * `permission_decision` events carry @agent_id and the parent's
 * `session_id`. Nothing else of its run is emitted or intercepted.
 */
void
zot_agent_set_subagent (ZotAgent            *self,
                        ZotExtensionManager *manager,
                        const char          *agent_id,
                        const char          *name)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (agent_id != NULL);

  g_free (self->subagent_id);
  self->subagent_id = g_strdup (agent_id);
  g_free (self->subagent_name);
  self->subagent_name = g_strdup (name);
  zot_agent_set_extension_manager (self, manager);
}

ZotToolRegistry *
zot_agent_get_registry (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return self->registry;
}

const char *
zot_agent_get_cwd (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return self->cwd;
}

void
zot_agent_set_cwd (ZotAgent   *self,
                   const char *cwd)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (cwd != NULL);

  g_free (self->cwd);
  self->cwd = g_canonicalize_filename (cwd, NULL);
  zot_agent_reset_system_prompt (self);
}

void
zot_agent_set_max_steps (ZotAgent *self,
                         guint     max_steps)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (max_steps > 0);
  self->max_steps = max_steps;
}

void
zot_agent_set_system_prompt_override (ZotAgent           *self,
                                      const char         *system_prompt,
                                      const char * const *append)
{
  g_return_if_fail (ZOT_IS_AGENT (self));

  g_free (self->system_prompt_override);
  self->system_prompt_override = g_strdup (system_prompt);
  g_strfreev (self->append_system_prompt);
  self->append_system_prompt = g_strdupv ((char **) append);
  zot_agent_reset_system_prompt (self);
}

void
zot_agent_set_interactive (ZotAgent *self,
                           gboolean  interactive)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  self->interactive = !!interactive;
}

gboolean
zot_agent_get_interactive (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), FALSE);
  return self->interactive;
}

/**
 * zot_agent_get_system_prompt:
 *
 * Returns: the system prompt the next model call uses, built if needed
 */
const char *
zot_agent_get_system_prompt (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return ensure_system_prompt (self);
}

/**
 * zot_agent_get_messages:
 *
 * Returns: (transfer none) (element-type JsonObject): the transcript
 */
GPtrArray *
zot_agent_get_messages (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return zot_session_get_messages (self->session);
}
