/* zot-agent-calls.c — the agent runs the tool calls extensions ask for.
 *
 * ZotAgent is the ZotToolRunner of its calls: a `call_tool` request
 * (PROTOCOL.md §5) whose parent is one of its calls, or that has no parent
 * at all when it is the conversation's agent, comes here from the
 * manager. It takes the way of a model call (zot-agent-tools.c): the
 * agent's registry resolves the name, the `tool_call` interceptors and the
 * approval run, then the tool; the lifecycle events carry
 * `origin_extension`. What differs:
 *
 *  - the lifecycle id is `<parent tool_id>/<n>`, or `<extension>:<n>` for a
 *    call without a parent;
 *  - execution has a deadline of its own (ZOT_TIMEOUT_CALL_TOOL) that starts
 *    after the approval, and stops while a call below this one waits for
 *    the user's;
 *  - nothing enters the transcript: ::extension-call and
 *    ::extension-call-result tell the views, instead of ::tool-call and
 *    ::tool-result.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-limits.h"
#include "zot-source.h"

typedef struct
{
  GTask    *task;
  ToolCall *call;
  GSource  *deadline;
  gint64    due;          /* monotonic µs while running, 0 while held */
  gint64    remaining;    /* µs left when held */
  guint     hold_id;
} ExtensionCall;

static void
extension_call_free (ExtensionCall *ecall)
{
  zot_clear_source (&ecall->deadline);
  if (ecall->hold_id != 0 && ecall->call->invocation != NULL)
    zot_tool_invocation_remove_hold_func (ecall->call->invocation, ecall->hold_id);
  g_clear_pointer (&ecall->call, _zot_tool_call_free);
  g_clear_object (&ecall->task);
  g_free (ecall);
}

static void
extension_call_finish (ExtensionCall *ecall)
{
  GTask *task = g_steal_pointer (&ecall->task);

  g_task_return_pointer (task, zot_tool_result_copy (ecall->call->result),
                         (GDestroyNotify) zot_tool_result_free);
  g_object_unref (task);
  extension_call_free (ecall);
}

static gboolean
deadline_cb (gpointer user_data)
{
  ExtensionCall *ecall = user_data;

  g_clear_pointer (&ecall->deadline, g_source_unref);
  ecall->call->timed_out = TRUE;
  g_cancellable_cancel (ecall->call->cancellable);
  return G_SOURCE_REMOVE;
}

static void
arm_deadline (ExtensionCall *ecall,
              gint64         remaining)
{
  ecall->due = g_get_monotonic_time () + remaining;
  ecall->deadline = g_timeout_source_new ((guint) MAX ((remaining + 999) / 1000, 0));
  g_source_set_callback (ecall->deadline, deadline_cb, ecall, NULL);
  g_source_set_static_name (ecall->deadline, "[zot] call_tool deadline");
  g_source_attach (ecall->deadline, g_main_context_get_thread_default ());
}

/* A call below this one waits for the user: the clock stops. */
static void
on_hold (gboolean held,
         gpointer user_data)
{
  ExtensionCall *ecall = user_data;

  if (ecall->call->done || ecall->call->timed_out)
    return;

  if (held)
    {
      if (ecall->deadline == NULL)
        return;
      ecall->remaining = MAX (ecall->due - g_get_monotonic_time (), 0);
      zot_clear_source (&ecall->deadline);
    }
  else if (ecall->deadline == NULL)
    {
      arm_deadline (ecall, ecall->remaining);
    }
}

static void
extension_call_executed (ToolCall *call)
{
  extension_call_finish (call->owner);
}

static void
extension_call_prepared (ToolCall *call)
{
  ExtensionCall *ecall = call->owner;

  if (call->done || !_zot_tool_call_execute (call))
    {
      extension_call_finish (ecall);
      return;
    }

  /* The approval is behind it: the execution deadline starts now. */
  arm_deadline (ecall, (gint64) zot_timeout_get_ms (ZOT_TIMEOUT_CALL_TOOL) * 1000);
  ecall->hold_id = zot_tool_invocation_add_hold_func (call->invocation, on_hold, ecall);
}

static const ToolCallHooks extension_call_hooks = {
  .prepared = extension_call_prepared,
  .executed = extension_call_executed,
};

static void
zot_agent_call_async (ZotToolRunner        *runner,
                      const ZotToolRequest *request,
                      GCancellable         *cancellable,
                      GAsyncReadyCallback   callback,
                      gpointer              user_data)
{
  ZotAgent *self = ZOT_AGENT (runner);
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autofree char *tool_id = NULL;
  ExtensionCall *ecall;
  ToolCall *call;
  ZotCallOrigin origin;

  ecall = g_new0 (ExtensionCall, 1);
  ecall->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (ecall->task, zot_agent_call_async);
  /* The result says it was cancelled; it is the result all the same. */
  g_task_set_check_cancellable (ecall->task, FALSE);

  if (request->parent != NULL)
    tool_id = zot_tool_invocation_next_child_id (request->parent);
  else
    tool_id = g_strdup_printf ("%s:%u", request->origin_extension, ++self->n_extension_calls);

  call = _zot_tool_call_new (self, self->session, &extension_call_hooks, ecall, cancellable,
                             tool_id, request->name, request->args);
  call->origin_extension = g_strdup (request->origin_extension);
  call->script = request->script;
  if (request->parent != NULL)
    call->parent = zot_tool_invocation_ref (request->parent);
  call->depth = request->depth;
  _zot_tool_call_set_task (call, request->task_id);
  ecall->call = call;

  json_object_set_string_member (payload, "tool_id", call->id);
  json_object_set_string_member (payload, "tool_name", call->name);
  json_object_set_object_member (payload, "tool_args", json_object_ref (call->args));
  zot_call_origin_describe (_zot_tool_call_origin (call, &origin), payload);
  _zot_agent_emit_event (self, "tool_call", payload);
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_EXTENSION_CALL], 0,
                 call->id,
                 request->parent != NULL ? zot_tool_invocation_get_tool_id (request->parent) : NULL,
                 call->name, call->args, call->origin_extension);

  /* A durable call the journal knows: answered from it, refused, or
   * interrupted, without running (PROTOCOL.md §5). */
  if (_zot_tool_call_answer_from_journal (call))
    {
      extension_call_finish (ecall);
      return;
    }

  _zot_tool_call_prepare (call);
  if (!call->preparing)
    extension_call_prepared (call);
}

static ZotToolResult *
zot_agent_call_finish (ZotToolRunner *runner,
                       GAsyncResult  *result)
{
  g_return_val_if_fail (g_task_is_valid (result, runner), NULL);

  return g_task_propagate_pointer (G_TASK (result), NULL);
}

void
_zot_agent_tool_runner_iface_init (ZotToolRunnerInterface *iface)
{
  iface->call_async = zot_agent_call_async;
  iface->call_finish = zot_agent_call_finish;
}
