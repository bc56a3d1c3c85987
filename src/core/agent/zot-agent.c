/* zot-agent.c — the agent object: its settings and properties, the events
 * it sends to extensions, and the system prompt it assembles.
 *
 * A run is in zot-agent-run.c (the loop: model, tools, results, again),
 * the tool calls of one step in zot-agent-tools.c, compaction in
 * zot-agent-compact.c and the token usage in zot-agent-usage.c.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-extension-tool.h"
#include "zot-limits.h"
#include "zot-names.h"
#include "zot-system-prompt.h"

G_DEFINE_QUARK (zot-agent-error-quark, zot_agent_error)
G_DEFINE_FINAL_TYPE_WITH_CODE (ZotAgent, zot_agent, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (ZOT_TYPE_TOOL_RUNNER,
                                                      _zot_agent_tool_runner_iface_init))

guint _zot_agent_signals [ZOT_AGENT_N_SIGNALS];
GParamSpec *_zot_agent_properties [ZOT_AGENT_N_PROPS];

/* Who the agent's calls are for, when it is a subagent. */
const ZotCallOrigin *
_zot_agent_call_origin (ZotAgent      *self,
                        ZotCallOrigin *origin)
{
  if (self->subagent_id == NULL)
    return NULL;

  origin->extension = NULL;
  origin->agent_id = self->subagent_id;
  origin->agent_name = self->subagent_name;
  return origin;
}

void
_zot_agent_emit_event (ZotAgent   *self,
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
ZotExtensionManager *
_zot_agent_hooks_manager (ZotAgent *self)
{
  return self->subagent_id == NULL ? self->manager : NULL;
}

/* System prompt */

char *
_zot_agent_build_base_prompt (ZotAgent *self)
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

const char *
_zot_agent_ensure_system_prompt (ZotAgent *self)
{
  if (!self->system_prompt_built)
    {
      g_free (self->system_prompt);
      self->system_prompt = _zot_agent_build_base_prompt (self);
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

/* Every change of the run in progress goes through here, so that
 * `running` notifies exactly when a run starts and when it ends. */
void
_zot_agent_set_run (ZotAgent *self,
                    Run      *run)
{
  gboolean was_running = self->run != NULL;

  self->run = run;
  if (was_running != (run != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), _zot_agent_properties [ZOT_AGENT_PROP_RUNNING]);
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
  g_clear_pointer (&self->running_tasks, g_hash_table_unref);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->compaction);
  g_clear_pointer (&self->cwd, g_free);
  g_clear_pointer (&self->subagent_id, g_free);
  g_clear_pointer (&self->subagent_name, g_free);
  g_clear_pointer (&self->system_prompt_override, g_free);
  g_clear_pointer (&self->append_system_prompt, g_strfreev);
  g_clear_pointer (&self->system_prompt, g_free);

  G_OBJECT_CLASS (zot_agent_parent_class)->finalize (object);
}

static void
zot_agent_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  ZotAgent *self = ZOT_AGENT (object);

  switch (prop_id)
    {
    case ZOT_AGENT_PROP_RUNNING:
      g_value_set_boolean (value, self->run != NULL);
      break;

    case ZOT_AGENT_PROP_USAGE:
      g_value_set_boxed (value, &self->usage);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_agent_class_init (ZotAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_agent_dispose;
  object_class->finalize = zot_agent_finalize;
  object_class->get_property = zot_agent_get_property;

  /**
   * ZotAgent:running:
   *
   * Whether a run is in progress, wherever its prompt came from (a window,
   * RPC, an extension). Between two queued runs it turns %FALSE and back.
   */
  _zot_agent_properties [ZOT_AGENT_PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotAgent:usage:
   *
   * The tokens the model reported (a #ZotUsage): the last turn's and the
   * conversation's sums. It changes after a model turn of a run (unless
   * that turn and the one before both reported nothing) and when the
   * session changes, and notifies before #ZotAgent::usage is emitted.
   */
  _zot_agent_properties [ZOT_AGENT_PROP_USAGE] =
    g_param_spec_boxed ("usage", NULL, NULL,
                        ZOT_TYPE_USAGE,
                        (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, ZOT_AGENT_N_PROPS, _zot_agent_properties);

  /**
   * ZotAgent::user-message:
   * @self: the agent
   * @message: the user message (`role`, `content`, `time`, and
   *   `origin_extension` when an extension submitted the prompt)
   *
   * A run's prompt becomes the conversation's next user message: emitted
   * just before it is appended to the session, so a view can show it at
   * once. Handlers must not change @message.
   */
  _zot_agent_signals [ZOT_AGENT_USER_MESSAGE] =
    g_signal_new ("user-message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
  /**
   * ZotAgent::turn-start:
   * @self: the agent
   * @step: the step of the run, from 1
   *
   * A model turn of a run begins, after the `turn_start` event went to
   * the extensions and before the system prompt is prepared and the
   * model called.
   */
  _zot_agent_signals [ZOT_AGENT_TURN_START] =
    g_signal_new ("turn-start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);
  /**
   * ZotAgent::assistant-start:
   * @self: the agent
   *
   * The model is called: ::text-delta may follow. A view opens the
   * assistant's row here.
   */
  _zot_agent_signals [ZOT_AGENT_ASSISTANT_START] =
    g_signal_new ("assistant-start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  /**
   * ZotAgent::text-delta:
   * @self: the agent
   * @delta: the next piece of the assistant's text, as the provider
   *   streams it; copy it to keep it
   *
   * Only during a run. What is shown in the end is the message of
   * ::assistant-message, which an `assistant_message` interceptor may
   * have rewritten or suppressed.
   */
  _zot_agent_signals [ZOT_AGENT_TEXT_DELTA] =
    g_signal_new ("text-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * ZotAgent::reasoning-delta:
   * @self: the agent
   * @delta: the next piece of the model's reasoning (thinking), as the
   *   provider streams it, before the text it leads to; copy it to keep it
   *
   * Only during a run. The whole reasoning is kept in the assistant
   * message as "thinking" blocks (zot-message.h).
   */
  _zot_agent_signals [ZOT_AGENT_REASONING_DELTA] =
    g_signal_new ("reasoning-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * ZotAgent::tool-call:
   * @self: the agent
   * @id: the transcript's tool call id
   * @name: the tool
   * @args: the arguments as the model gave them (`{}` when unparsable)
   *
   * A tool call of the conversation is announced, before it is checked,
   * intercepted, approved and run: the model's calls after its turn ended
   * (every call of the batch before any runs), a call an extension's
   * `tool_prompt` made on the model's behalf, or a call of the step a
   * continuous conversation stopped in, when it resumes. ::tool-result
   * ends each one.
   */
  _zot_agent_signals [ZOT_AGENT_TOOL_CALL] =
    g_signal_new ("tool-call", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, JSON_TYPE_OBJECT);
  /**
   * ZotAgent::tool-result:
   * @self: the agent
   * @id: the id ::tool-call announced
   * @name: the tool
   * @result: how it ended: its outcome (completed, failed, blocked,
   *   cancelled or timed out) and the content the model is given
   *
   * A tool call of the conversation ended, whether it ran or not, after
   * the `tool_result` event went to the extensions.
   */
  _zot_agent_signals [ZOT_AGENT_TOOL_RESULT] =
    g_signal_new ("tool-result", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, ZOT_TYPE_TOOL_RESULT);
  /**
   * ZotAgent::extension-call:
   * @self: the agent
   * @tool_id: the call's lifecycle id
   * @parent_id: (nullable): the lifecycle id of the call it was asked from
   * @name: the tool
   * @args: the arguments the extension gave
   * @origin_extension: the extension that asked
   *
   * An extension asked for a tool call (`call_tool`). It is not part of
   * the conversation: the model never sees it. ::extension-call-result
   * ends it.
   */
  _zot_agent_signals [ZOT_AGENT_EXTENSION_CALL] =
    g_signal_new ("extension-call", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 5, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING, JSON_TYPE_OBJECT,
                  G_TYPE_STRING);
  /**
   * ZotAgent::extension-call-result:
   * @self: the agent
   * @tool_id: the id ::extension-call announced
   * @name: the tool
   * @result: how it ended, as for ::tool-result
   *
   * The call ::extension-call announced has ended, whether it ran or not.
   */
  _zot_agent_signals [ZOT_AGENT_EXTENSION_CALL_RESULT] =
    g_signal_new ("extension-call-result", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, ZOT_TYPE_TOOL_RESULT);
  /**
   * ZotAgent::assistant-message:
   * @self: the agent
   * @message: the assistant message as the user is to see it
   *
   * The model's turn is in the session and past the `assistant_message`
   * interceptors: @message is the stored one, or a copy with the text an
   * interceptor rewrote (the session keeps the original). Not emitted when
   * an interceptor suppressed it. Its tool calls follow as ::tool-call.
   */
  _zot_agent_signals [ZOT_AGENT_ASSISTANT_MESSAGE] =
    g_signal_new ("assistant-message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
  /**
   * ZotAgent::usage:
   * @self: the agent
   * @input_tokens: what the model read in this turn, or -1 when it did not
   *   say
   * @output_tokens: what it wrote in this turn, or -1 when it did not say
   *
   * After every model turn of a run, shown or suppressed, once
   * #ZotAgent:usage holds the turn: read it for the sums and the cost.
   */
  _zot_agent_signals [ZOT_AGENT_USAGE] =
    g_signal_new ("usage", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_INT64);
  /**
   * ZotAgent::turn-end:
   * @self: the agent
   * @stop: "end_turn", "tool_use", "length", "error", "aborted" or "max_steps"
   *   (the provider's stop reason when the model ended the turn)
   * @error: (nullable): what went wrong
   *
   * Emitted after the `turn_end` event went to the extensions. The model's
   * answer ends its turn with the provider's stop reason ("tool_use" when
   * it asked for tools, which run next). A run that fails or is aborted
   * says so with "error" or "aborted" wherever it was, so that may follow
   * a "tool_use" of the same step or come between steps; one that reaches
   * the step limit ends with "max_steps" instead of a new ::turn-start.
   */
  _zot_agent_signals [ZOT_AGENT_TURN_END] =
    g_signal_new ("turn-end", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * ZotAgent::warning:
   * @self: the agent
   * @message: one line for the user
   *
   * Room for a warning of the agent's own; nothing emits it at present.
   * What a run has to warn of comes from #ZotExtensionManager::warning
   * and the host's ::warning.
   */
  _zot_agent_signals [ZOT_AGENT_WARNING] =
    g_signal_new ("warning", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * ZotAgent::tool-progress:
   * @self: the agent
   * @id: the transcript's tool call id
   * @text: one line of progress (the bash tool: a line of its output);
   *   copy it to keep it
   *
   * A running tool call of the conversation reported progress, between
   * its ::tool-call and its ::tool-result.
   */
  _zot_agent_signals [ZOT_AGENT_TOOL_PROGRESS] =
    g_signal_new ("tool-progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * ZotAgent::retrying:
   * @self: the agent
   * @retry: which retry comes next, from 1
   * @max_retries: how many there may be
   * @delay_ms: the wait before it
   * @message: one line for the user ("Anthropic is overloaded (529) —
   *   retrying in 4 s (attempt 1 of 4)")
   *
   * The model was busy and is asked again after a wait (ZotProvider's
   * ::retrying); zot_agent_abort() ends the wait and the turn.
   */
  _zot_agent_signals [ZOT_AGENT_RETRYING] =
    g_signal_new ("retrying", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 4, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_INT64,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * ZotAgent::compaction-start:
   * @self: the agent
   *
   * A compaction begins, before `pre_compact` goes to the extensions (one
   * with nothing to summarise starts and ends too). Not emitted when
   * zot_agent_compact_async() is refused because a run or a compaction
   * is in progress. ::compaction-end follows.
   */
  _zot_agent_signals [ZOT_AGENT_COMPACTION_START] =
    g_signal_new ("compaction-start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  /**
   * ZotAgent::compaction-end:
   * @self: the agent
   * @stop: "end_turn", "error" or "aborted"
   * @error: (nullable): what went wrong
   * @summary: (nullable): the summary that replaced the transcript; ""
   *   when there was nothing to compact, %NULL when it failed
   *
   * The compaction ::compaction-start announced is over: the agent may
   * run or compact again.
   */
  _zot_agent_signals [ZOT_AGENT_COMPACTION_END] =
    g_signal_new ("compaction-end", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * ZotAgent::auto-compaction:
   * @self: the agent
   * @message: one line for the user: why the conversation is compacted
   *   now, or why that failed
   *
   * A run compacts the conversation on its own (zot-agent-autocompact.c).
   */
  _zot_agent_signals [ZOT_AGENT_AUTO_COMPACTION] =
    g_signal_new ("auto-compaction", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
zot_agent_init (ZotAgent *self)
{
  self->running_tasks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->max_steps = ZOT_DEFAULT_MAX_STEPS;
  self->auto_compact = ZOT_AUTO_COMPACT_DEFAULT_PERCENT;
  self->context_tokens = -1;
  self->cwd = g_get_current_dir ();
  self->cancellable = g_cancellable_new ();
  _zot_agent_init_usage (self);
  g_queue_init (&self->queue);
}

/* Activations are saved with the conversation (PROTOCOL.md §5a). */
static void
on_activations_changed (ZotAgent        *self,
                        ZotToolRegistry *registry)
{
  g_auto(GStrv) names = zot_tool_registry_dup_activations (registry);

  zot_session_set_activated_tools (self->session, (const char * const *) names);
}

/**
 * _zot_agent_apply_activations:
 * @tool: the tool that answered with @result
 *
 * Makes the deferred tools that @result names (an extension's
 * `activate_tools`) visible to the model from its next request on, for
 * the rest of the conversation. A name of no tool the model may use is
 * written to the log of @tool's extension; a tool that is not deferred
 * changes nothing.
 */
void
_zot_agent_apply_activations (ZotAgent            *self,
                              ZotTool             *tool,
                              const ZotToolResult *result)
{
  g_autoptr(ZotExtension) extension = NULL;

  if (result->activate_tools == NULL)
    return;

  if (ZOT_IS_EXTENSION_TOOL (tool))
    extension = zot_extension_tool_dup_extension (ZOT_EXTENSION_TOOL (tool));

  for (guint i = 0; result->activate_tools[i] != NULL; i++)
    {
      const char *name = result->activate_tools[i];

      if (zot_tool_registry_try_activate (self->registry, name) == ZOT_TOOL_ACTIVATION_UNKNOWN &&
          extension != NULL)
        {
          g_autofree char *shown = zot_name_excerpt (name);

          zot_extension_log (extension, "activate_tools from %s: no tool \"%s\" the model may use, "
                             "ignored", zot_tool_get_name (tool), shown);
        }
    }
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
  /* A resumed conversation keeps the tools it activated. */
  zot_tool_registry_set_activations (registry, zot_session_get_activated_tools (session));
  g_signal_connect_object (registry, "activations-changed", G_CALLBACK (on_activations_changed),
                           self, G_CONNECT_SWAPPED);
  zot_agent_set_provider (self, provider);
  g_free (self->cwd);
  self->cwd = g_strdup (zot_session_get_cwd (session));
  _zot_agent_reset_usage (self);

  return self;
}

ZotProvider *
zot_agent_get_provider (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return self->provider;
}

static void
on_provider_retrying (ZotAgent    *self,
                      guint        retry,
                      guint        max_retries,
                      gint64       delay_ms,
                      guint        status,
                      const char  *message)
{
  if (self->run != NULL)
    g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_RETRYING], 0, retry, max_retries, delay_ms,
                   message);
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
  g_signal_connect (provider, "text-delta", G_CALLBACK (_zot_agent_on_text_delta), self);
  g_signal_connect (provider, "reasoning-delta", G_CALLBACK (_zot_agent_on_reasoning_delta), self);
  g_signal_connect_swapped (provider, "retrying", G_CALLBACK (on_provider_retrying), self);
  zot_agent_reset_system_prompt (self);
}

ZotSession *
zot_agent_get_session (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), NULL);
  return self->session;
}

/**
 * zot_agent_set_session:
 *
 * The conversation the next run works in. A run in progress goes on in the
 * one it started in, to its end: its calls' results and the model's reply
 * never reach @session. (ZotHost refuses the switch while a run is in
 * progress, so that the user decides what becomes of it.)
 */
void
zot_agent_set_session (ZotAgent   *self,
                       ZotSession *session)
{
  g_return_if_fail (ZOT_IS_AGENT (self));
  g_return_if_fail (ZOT_IS_SESSION (session));

  g_set_object (&self->session, session);
  zot_tool_registry_set_activations (self->registry, zot_session_get_activated_tools (session));
  zot_agent_reset_system_prompt (self);
  _zot_agent_reset_usage (self);
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
  return _zot_agent_ensure_system_prompt (self);
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
