/* zot-subagent-tool.c — a child agent per call, kept for resumes.
 *
 * One GTask per call carries a Runner (one run of one child). The run's
 * end, however it ends, is the only place that emits subagent_stop,
 * answers the call and lets waiting hosts go on.
 */
#define G_LOG_DOMAIN "zot-subagent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-message.h"
#include "zot-source.h"
#include "zot-subagent-tool.h"
#include "zot-tool-search.h"

/* Read by the model, so untranslated. */
#define SUBAGENT_DESCRIPTION \
  "Run a subagent: a separate agent with its own conversation and the same tools as you " \
  "(except subagent), that works on `task` on its own, under the same guards and approvals, for " \
  "at most " G_STRINGIFY (ZOT_SUBAGENT_MAX_STEPS) " steps, and answers with its final text and " \
  "an `agent_id` line. Pass that agent_id back with a new task to continue the same " \
  "subagent's conversation. Several " \
  "subagent calls in one message run side by side. Give the task everything it needs: the " \
  "subagent does not see this conversation."

#define SUBAGENT_SCHEMA \
  "{\"type\":\"object\",\"properties\":{" \
    "\"task\":{\"type\":\"string\",\"description\":" \
      "\"What the subagent should do, with everything it needs to know.\"}," \
    "\"name\":{\"type\":\"string\",\"description\":\"A short label for the subagent.\"}," \
    "\"agent_id\":{\"type\":\"string\",\"description\":" \
      "\"The agent_id of an earlier subagent, to continue its conversation.\"}}," \
  "\"required\":[\"task\"]}"

typedef struct
{
  char            *agent_id;
  char            *label;
  ZotAgent        *agent;
  ZotToolRegistry *registry;
  ZotTool         *search;      /* the child's own tool_search, once needed */
  gboolean         running;
} Child;

struct _ZotSubagentTool
{
  ZotTool            parent_instance;

  ZotProviderConfig  config;
  /* The registry owns this tool and the host owns the manager: a strong
   * reference to either would be a cycle. */
  GWeakRef           registry;
  GWeakRef           manager;
  char              *cwd;

  GHashTable        *children;  /* agent_id → Child, for the process lifetime */
  guint              n_running;
  GPtrArray         *waiters;   /* GTask of wait_async */
};

/* One run of one child: the task data of a call. */
typedef struct
{
  Child        *child;
  char         *agent_run_id;
  char         *session_id;
  gulong        cancel_id;
  gboolean      done;
} Runner;

typedef struct
{
  GSource *timeout_source;
  GSource *cancel_source;
} WaitData;

G_DEFINE_FINAL_TYPE (ZotSubagentTool, zot_subagent_tool, ZOT_TYPE_TOOL)

static void
child_free (Child *child)
{
  g_free (child->agent_id);
  g_free (child->label);
  g_clear_object (&child->agent);
  g_clear_object (&child->registry);
  g_clear_object (&child->search);
  g_free (child);
}

static void
runner_free (Runner *runner)
{
  g_assert (runner->cancel_id == 0);

  g_free (runner->agent_run_id);
  g_free (runner->session_id);
  g_free (runner);
}

static void
wait_data_free (WaitData *data)
{
  zot_clear_source (&data->timeout_source);
  zot_clear_source (&data->cancel_source);
  g_free (data);
}

static void
return_result (GTask         *task,
               ZotToolResult *result)
{
  g_task_return_pointer (task, result, (GDestroyNotify) zot_tool_result_free);
}

/* A call that starts no run: an error result for the model. */
static void G_GNUC_PRINTF (2, 3)
refuse_call (GTask      *task,
             const char *format,
             ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  return_result (task, zot_tool_result_new_text (text, TRUE, ZOT_TOOL_OUTCOME_FAILED));
}

/* Waiting */

static void
wait_complete (GTask  *waiter,
               GError *error)
{
  g_autoptr(GTask) task = g_object_ref (waiter);
  ZotSubagentTool *self = g_task_get_source_object (task);
  WaitData *data = g_task_get_task_data (task);

  zot_clear_source (&data->timeout_source);
  zot_clear_source (&data->cancel_source);
  g_ptr_array_remove (self->waiters, task);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
complete_waiters (ZotSubagentTool *self)
{
  while (self->waiters->len > 0 && self->n_running == 0)
    wait_complete (g_ptr_array_index (self->waiters, 0), NULL);
}

static gboolean
wait_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  ZotSubagentTool *self = g_task_get_source_object (task);

  wait_complete (task, g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                    /* Translators: %u is how many subagents (second agents the
                                     * model started for a part of the task) are still working */
                                    g_dngettext (GETTEXT_PACKAGE,
                                                 "%u subagent still running",
                                                 "%u subagents still running",
                                                 self->n_running),
                                    self->n_running));
  return G_SOURCE_REMOVE;
}

static gboolean
wait_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  GTask *task = user_data;

  wait_complete (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                            _("the wait for the subagents was cancelled")));
  return G_SOURCE_REMOVE;
}

/* Events */

static void
emit_event (ZotSubagentTool *self,
            Runner          *runner,
            const char      *name,
            const char      *status,
            const char      *error)
{
  g_autoptr(ZotExtensionManager) manager = g_weak_ref_get (&self->manager);
  g_autoptr(JsonObject) payload = NULL;

  if (manager == NULL)
    return;

  payload = json_object_new ();
  /* The task's conversation, even when the parent switched since. */
  if (runner->session_id != NULL)
    json_object_set_string_member (payload, "session_id", runner->session_id);
  json_object_set_string_member (payload, "agent_id", runner->child->agent_id);
  json_object_set_string_member (payload, "agent_run_id", runner->agent_run_id);
  json_object_set_string_member (payload, "name", runner->child->agent_id);
  if (status != NULL)
    json_object_set_string_member (payload, "status", status);
  if (error != NULL)
    json_object_set_string_member (payload, "error", error);
  zot_extension_manager_emit_event (manager, name, payload);
}

/* Children */

static Child *
child_new (ZotSubagentTool  *self,
           const char       *cwd,
           const char       *label,
           GError          **error)
{
  g_autoptr(ZotProvider) provider = NULL;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(ZotExtensionManager) manager = NULL;
  Child *child;

  provider = zot_provider_new_for_config (&self->config, error);
  if (provider == NULL)
    return NULL;

  session = zot_session_new_in_memory (cwd);

  child = g_new0 (Child, 1);
  child->agent_id = g_uuid_string_random ();
  child->label = g_strdup (label);
  child->registry = zot_tool_registry_new ();
  child->agent = zot_agent_new (provider, child->registry, session);
  zot_agent_set_cwd (child->agent, cwd);
  zot_agent_set_max_steps (child->agent, ZOT_SUBAGENT_MAX_STEPS);
  /* A swarm child has no window of its own (interactive tools fail), but
   * its tool calls pass the parent's guards and approvals. */
  zot_agent_set_interactive (child->agent, FALSE);
  manager = g_weak_ref_get (&self->manager);
  zot_agent_set_subagent (child->agent, manager, child->agent_id, label);

  return child;
}

/* The parent's allowed tools, in order, without this one; tool_search
 * becomes the child's own so that activations land in the child's
 * registry. Taken again at every run: extension tools come and go. */
static void
sync_registry (Child           *child,
               ZotToolRegistry *parent)
{
  g_autoptr(GPtrArray) before = zot_tool_registry_list (child->registry);
  g_autoptr(GPtrArray) tools = zot_tool_registry_list (parent);
  g_autoptr(GPtrArray) after = NULL;
  gboolean changed;

  for (guint i = 0; i < before->len; i++)
    zot_tool_registry_remove (child->registry, zot_tool_get_name (g_ptr_array_index (before, i)));
  zot_tool_registry_set_codemode (child->registry, zot_tool_registry_get_codemode (parent));

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      const char *name = zot_tool_get_name (tool);

      if (ZOT_IS_SUBAGENT_TOOL (tool) || g_strcmp0 (name, ZOT_SUBAGENT_TOOL_NAME) == 0)
        continue;
      if (!zot_tool_registry_is_allowed (parent, name))
        continue;

      if (ZOT_IS_TOOL_SEARCH (tool))
        {
          if (child->search == NULL)
            child->search = zot_tool_search_new (child->registry);
          tool = child->search;
        }

      zot_tool_registry_add (child->registry, tool, NULL);
    }

  /* The child's prompt names its tools: rebuild it when they changed. */
  after = zot_tool_registry_list (child->registry);
  changed = before->len != after->len;
  for (guint i = 0; !changed && i < before->len; i++)
    changed = g_ptr_array_index (before, i) != g_ptr_array_index (after, i);
  if (changed)
    zot_agent_reset_system_prompt (child->agent);
}

static char *
format_answer (Child      *child,
               const char *text)
{
  GString *answer = g_string_new (NULL);

  if (text != NULL && *text != '\0')
    g_string_append (answer, text);
  else
    g_string_append (answer, "(The subagent finished without a final answer.)");

  g_string_append (answer, "\n\n");
  if (child->label != NULL && *child->label != '\0')
    g_string_append_printf (answer, "name: %s\n", child->label);
  g_string_append_printf (answer, "agent_id: %s", child->agent_id);

  return g_string_free (answer, FALSE);
}

/* Execution */

static gboolean
abort_child_cb (gpointer user_data)
{
  GTask *task = user_data;
  Runner *runner = g_task_get_task_data (task);

  /* One run per child at a time: a child whose run is not done is still
   * running this call's task. */
  if (!runner->done)
    zot_agent_abort (runner->child->agent);
  return G_SOURCE_REMOVE;
}

static void
on_call_cancelled (GCancellable *cancellable,
                   GTask        *task)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  /* Not from inside the handler: the child could return at once, and its
   * return disconnects this handler, which would deadlock here. */
  g_source_set_callback (source, abort_child_cb, g_object_ref (task), g_object_unref);
  g_source_set_static_name (source, "[zot] abort subagent");
  g_source_attach (source, g_task_get_context (task));
}

static void
child_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotSubagentTool *self = g_task_get_source_object (task);
  Runner *runner = g_task_get_task_data (task);
  Child *child = runner->child;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *answer = NULL;

  text = zot_agent_prompt_finish (ZOT_AGENT (object), result, &error);

  runner->done = TRUE;
  child->running = FALSE;
  if (runner->cancel_id != 0)
    g_cancellable_disconnect (g_task_get_cancellable (task), runner->cancel_id);
  runner->cancel_id = 0;

  if (text != NULL)
    {
      emit_event (self, runner, "subagent_stop", "completed", NULL);
      answer = format_answer (child, text);
      return_result (task, zot_tool_result_new_text (answer, FALSE, ZOT_TOOL_OUTCOME_COMPLETED));
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      emit_event (self, runner, "subagent_stop", "cancelled", NULL);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("the subagent was cancelled"));
    }
  else
    {
      gboolean timed_out = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
      g_autofree char *message = NULL;

      emit_event (self, runner, "subagent_stop", timed_out ? "timed_out" : "failed",
                  error->message);
      message = g_strdup_printf ("The subagent %s: %s", timed_out ? "timed out" : "failed",
                                 error->message);
      answer = format_answer (child, message);
      return_result (task, zot_tool_result_new_text (answer, TRUE,
                                                     timed_out ? ZOT_TOOL_OUTCOME_TIMED_OUT
                                                               : ZOT_TOOL_OUTCOME_FAILED));
    }

  g_assert (self->n_running > 0);
  self->n_running--;
  complete_waiters (self);
}

static void
zot_subagent_tool_execute_async (ZotTool              *tool,
                                 JsonObject           *args,
                                 const ZotToolContext *context,
                                 GCancellable         *cancellable,
                                 GAsyncReadyCallback   callback,
                                 gpointer              user_data)
{
  ZotSubagentTool *self = ZOT_SUBAGENT_TOOL (tool);
  g_autoptr(GTask) task = NULL;
  g_autoptr(ZotToolRegistry) parent = NULL;
  g_autoptr(ZotExtensionManager) manager = NULL;
  g_autoptr(GError) error = NULL;
  const char *text;
  const char *agent_id;
  Child *child;
  Runner *runner;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_subagent_tool_execute_async);
  /* The outcome is the child's: a child that finished before it noticed
   * the cancel gives its answer. */
  g_task_set_check_cancellable (task, FALSE);

  if (g_task_return_error_if_cancelled (task))
    return;

  /* What the model reads, untranslated. */
  text = zot_tool_args_get_string (args, "task");
  if (text == NULL || *text == '\0')
    {
      refuse_call (task, "subagent needs a `task`: a string saying what the subagent should do.");
      return;
    }

  parent = g_weak_ref_get (&self->registry);
  if (parent == NULL)
    {
      refuse_call (task, "No subagent can start: the tool registry is gone.");
      return;
    }

  agent_id = zot_tool_args_get_string (args, "agent_id");
  if (agent_id != NULL && *agent_id != '\0')
    {
      child = g_hash_table_lookup (self->children, agent_id);
      if (child == NULL)
        {
          refuse_call (task, "There is no subagent with agent_id \"%s\". "
                             "Leave agent_id out to start a new one.", agent_id);
          return;
        }
      if (child->running)
        {
          refuse_call (task, "The subagent %s is still working on a task; "
                             "resume it once that has returned.", agent_id);
          return;
        }
    }
  else
    {
      const char *cwd = context->cwd != NULL ? context->cwd : self->cwd;

      child = child_new (self, cwd, zot_tool_args_get_string (args, "name"), &error);
      if (child == NULL)
        {
          refuse_call (task, "The subagent could not start: %s", error->message);
          return;
        }
      g_hash_table_insert (self->children, child->agent_id, child);
    }

  sync_registry (child, parent);

  runner = g_new0 (Runner, 1);
  runner->child = child;
  runner->agent_run_id = g_uuid_string_random ();
  manager = g_weak_ref_get (&self->manager);
  if (manager != NULL)
    runner->session_id = g_strdup (zot_extension_manager_get_session_id (manager));
  g_task_set_task_data (task, runner, (GDestroyNotify) runner_free);

  child->running = TRUE;
  self->n_running++;

  emit_event (self, runner, "subagent_start", NULL, NULL);

  if (cancellable != NULL)
    runner->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_call_cancelled),
                                               task, NULL);

  zot_agent_prompt_async (child->agent, text, NULL, child_done_cb, g_steal_pointer (&task));
}

static ZotToolResult *
zot_subagent_tool_execute_finish (ZotTool       *tool,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, tool), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* GObject */

static void
zot_subagent_tool_finalize (GObject *object)
{
  ZotSubagentTool *self = (ZotSubagentTool *)object;

  /* Every run and every wait holds a reference: none is left. */
  g_assert (self->n_running == 0);
  g_assert (self->waiters->len == 0);

  zot_provider_config_clear (&self->config);
  g_weak_ref_clear (&self->registry);
  g_weak_ref_clear (&self->manager);
  g_clear_pointer (&self->cwd, g_free);
  g_clear_pointer (&self->children, g_hash_table_unref);
  g_clear_pointer (&self->waiters, g_ptr_array_unref);

  G_OBJECT_CLASS (zot_subagent_tool_parent_class)->finalize (object);
}

static void
zot_subagent_tool_class_init (ZotSubagentToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  object_class->finalize = zot_subagent_tool_finalize;

  tool_class->execute_async = zot_subagent_tool_execute_async;
  tool_class->execute_finish = zot_subagent_tool_execute_finish;
}

static void
zot_subagent_tool_init (ZotSubagentTool *self)
{
  g_weak_ref_init (&self->registry, NULL);
  g_weak_ref_init (&self->manager, NULL);
  self->children = g_hash_table_new_full (g_str_hash, g_str_equal,
                                          NULL, (GDestroyNotify) child_free);
  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
}

/* API */

/**
 * zot_subagent_tool_new:
 * @config_template: the provider of every child; copied
 * @registry: the parent's tools; held weakly (it owns this tool)
 * @manager: (nullable): where subagent_start/stop go; held weakly
 * @cwd: the working directory of children when a call has none
 *
 * Returns: (transfer full): the subagent tool, for @registry to own
 */
ZotTool *
zot_subagent_tool_new (const ZotProviderConfig *config_template,
                       ZotToolRegistry         *registry,
                       ZotExtensionManager     *manager,
                       const char              *cwd)
{
  g_autoptr(JsonObject) schema = NULL;
  ZotSubagentTool *self;

  g_return_val_if_fail (config_template != NULL, NULL);
  g_return_val_if_fail (ZOT_IS_TOOL_REGISTRY (registry), NULL);
  g_return_val_if_fail (manager == NULL || ZOT_IS_EXTENSION_MANAGER (manager), NULL);
  g_return_val_if_fail (cwd != NULL, NULL);

  schema = zot_json_object_from_string (SUBAGENT_SCHEMA, NULL);
  g_assert (schema != NULL);

  self = g_object_new (ZOT_TYPE_SUBAGENT_TOOL,
                       "name", ZOT_SUBAGENT_TOOL_NAME,
                       "description", SUBAGENT_DESCRIPTION,
                       "schema", schema,
                       "exposure", ZOT_TOOL_EXPOSURE_DIRECT,
                       "concurrent", TRUE,
                       "requires-approval", TRUE,
                       NULL);

  self->config.name = g_strdup (config_template->name);
  self->config.model = g_strdup (config_template->model);
  self->config.base_url = g_strdup (config_template->base_url);
  self->config.api_key = g_strdup (config_template->api_key);
  self->config.api_key_source = g_strdup (config_template->api_key_source);
  g_weak_ref_set (&self->registry, registry);
  g_weak_ref_set (&self->manager, manager);
  self->cwd = g_strdup (cwd);

  return ZOT_TOOL (self);
}

/**
 * zot_subagent_tool_get_n_running:
 *
 * Returns: how many children are running a task now
 */
guint
zot_subagent_tool_get_n_running (ZotTool *tool)
{
  g_return_val_if_fail (ZOT_IS_SUBAGENT_TOOL (tool), 0);

  return ZOT_SUBAGENT_TOOL (tool)->n_running;
}

/**
 * zot_subagent_tool_lookup_agent:
 *
 * Returns: (transfer none) (nullable): the child agent of @agent_id
 */
ZotAgent *
zot_subagent_tool_lookup_agent (ZotTool    *tool,
                                const char *agent_id)
{
  Child *child;

  g_return_val_if_fail (ZOT_IS_SUBAGENT_TOOL (tool), NULL);
  g_return_val_if_fail (agent_id != NULL, NULL);

  child = g_hash_table_lookup (ZOT_SUBAGENT_TOOL (tool)->children, agent_id);
  return child != NULL ? child->agent : NULL;
}

/**
 * zot_subagent_tool_wait_async:
 * @timeout_ms: how long to wait at most
 *
 * Completes when no child runs (at once when none does), or when
 * @timeout_ms passed, whichever comes first. Waiting does not stop a
 * child; cancel its call for that.
 */
void
zot_subagent_tool_wait_async (ZotTool             *tool,
                              guint                timeout_ms,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  ZotSubagentTool *self;
  g_autoptr(GTask) task = NULL;
  WaitData *data;

  g_return_if_fail (ZOT_IS_SUBAGENT_TOOL (tool));

  self = ZOT_SUBAGENT_TOOL (tool);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_subagent_tool_wait_async);

  if (g_task_return_error_if_cancelled (task))
    return;

  if (self->n_running == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  data = g_new0 (WaitData, 1);
  g_task_set_task_data (task, data, (GDestroyNotify) wait_data_free);

  data->timeout_source = g_timeout_source_new (timeout_ms);
  g_source_set_callback (data->timeout_source, wait_timeout_cb, task, NULL);
  g_source_set_static_name (data->timeout_source, "[zot] subagent wait");
  g_source_attach (data->timeout_source, g_task_get_context (task));

  if (cancellable != NULL)
    {
      data->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (data->cancel_source, G_SOURCE_FUNC (wait_cancelled_cb), task, NULL);
      g_source_attach (data->cancel_source, g_task_get_context (task));
    }

  /* The list's reference keeps the task, and so the sources' data, alive
   * until wait_complete() takes it out. */
  g_ptr_array_add (self->waiters, g_steal_pointer (&task));
}

/**
 * zot_subagent_tool_wait_finish:
 *
 * Returns: %TRUE when no child runs; %FALSE with G_IO_ERROR_TIMED_OUT
 *   when the timeout passed first, or G_IO_ERROR_CANCELLED
 */
gboolean
zot_subagent_tool_wait_finish (ZotTool       *tool,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, tool), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
