/* zot-agent-private.h — what the files of ZotAgent share.
 *
 * Only for zot-agent*.c.
 */
#pragma once

#include "zot-agent.h"
#include "zot-tool-invocation.h"

G_BEGIN_DECLS

typedef struct _Run Run;
typedef struct _ToolCall ToolCall;

/* What the owner of a call does when the call leaves a stage. The owner is
 * the run, for the calls of a model step, or an extension's call_tool
 * request (zot-agent-calls.c). */
typedef struct
{
  /* Preparation (interception, approval) that went on past
   * _zot_tool_call_prepare() has ended: the call is ready or done. */
  void (*prepared) (ToolCall *call);
  /* Execution has ended; the call is done and reported. */
  void (*executed) (ToolCall *call);
} ToolCallHooks;

struct _ToolCall
{
  ZotAgent            *agent;
  /* The conversation the call belongs to, kept when the agent's changes. */
  ZotSession          *session;
  const ToolCallHooks *hooks;
  gpointer             owner;
  /* Abandons the call: the run's cancellable or the request's. */
  GCancellable        *outer;
  GSource             *outer_link;
  /* For a call an extension asked for: who asked, and from which call. */
  char                *origin_extension;
  gboolean             script;
  ZotToolInvocation   *parent;
  /* This call, as the calls it asks for see it, while it runs. */
  ZotToolInvocation   *invocation;
  guint                depth;         /* of the real chain, when more than the parent's + 1 */
  char                *id;
  char                *use_id;        /* the model's id, for the transcript; NULL: @id */
  char                *name;
  JsonObject          *args;
  JsonObject          *effective_args;
  char                *args_raw;
  ZotTool             *tool;
  ZotToolResult       *result;
  GCancellable        *cancellable;
  gboolean             preparing;
  gboolean             ready;
  gboolean             executed;
  gboolean             done;
  gboolean             timed_out;
  /* Continuous mode: the call's durable identity in the journal, and
   * whether it belongs to a step the host stopped in the middle of. */
  char                *task_id;
  char                *operation_key;
  gboolean             resumed;
  gboolean             journaling;
  /* Interrupted, of a reconcile tool: to be asked about before it may
   * run (reconcile), and asked already (reconciled). */
  gboolean             reconcile;
  gboolean             reconciled;
  /* While it executes: where its progress lines go. */
  ZotToolProgress     *progress;
};

struct _Run
{
  ZotAgent     *agent;
  /* The conversation the run started in: all it writes goes there, even
   * when the agent has gone on to another one meanwhile. */
  ZotSession   *session;
  GTask        *task;
  GCancellable *cancellable;
  gulong        cancel_id;
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
  /* Finishing a step the host stopped in the middle of, then (unless
   * that is all it was asked) the prompt's own turn. */
  gboolean      resuming;
  gboolean      prompt_after_resume;
  JsonArray    *images;
  char         *origin_extension;
  /* Automatic compaction: one is running (its summary is not the
   * answer), the threshold's failed (not tried again this run), the one
   * after a "too long" answer was spent. */
  gboolean      compacting;
  gboolean      compact_failed;
  gboolean      overflow_retried;
};

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
  ZotUsage             usage;
  GQueue               queue;
  gulong               text_delta_id;
  GCancellable        *cancellable;
  guint                n_extension_calls;
  guint                n_subagent_calls;
  GHashTable          *running_tasks;   /* task ids of journaled calls running now */
  /* The compaction in progress: cancelled by zot_agent_abort(). */
  GCancellable        *compaction;
  /* Automatic compaction: the share of the context window, in percent,
   * past which it compacts (0: never), and the input of the last model
   * call (-1: none since the conversation began or was compacted). */
  guint                auto_compact;
  gint64               context_tokens;
};

enum
{
  ZOT_AGENT_USER_MESSAGE,
  ZOT_AGENT_TURN_START,
  ZOT_AGENT_ASSISTANT_START,
  ZOT_AGENT_TEXT_DELTA,
  ZOT_AGENT_TOOL_CALL,
  ZOT_AGENT_TOOL_RESULT,
  ZOT_AGENT_EXTENSION_CALL,
  ZOT_AGENT_EXTENSION_CALL_RESULT,
  ZOT_AGENT_ASSISTANT_MESSAGE,
  ZOT_AGENT_USAGE,
  ZOT_AGENT_TURN_END,
  ZOT_AGENT_WARNING,
  ZOT_AGENT_TOOL_PROGRESS,
  ZOT_AGENT_COMPACTION_START,
  ZOT_AGENT_COMPACTION_END,
  ZOT_AGENT_AUTO_COMPACTION,
  ZOT_AGENT_RETRYING,
  ZOT_AGENT_REASONING_DELTA,
  ZOT_AGENT_N_SIGNALS
};

extern guint _zot_agent_signals [ZOT_AGENT_N_SIGNALS];

enum
{
  ZOT_AGENT_PROP_0,
  ZOT_AGENT_PROP_RUNNING,
  ZOT_AGENT_PROP_USAGE,
  ZOT_AGENT_N_PROPS
};

extern GParamSpec *_zot_agent_properties [ZOT_AGENT_N_PROPS];

/* zot-agent.c */
const ZotCallOrigin *_zot_agent_call_origin          (ZotAgent        *self,
                                                      ZotCallOrigin   *origin);
void                 _zot_agent_emit_event           (ZotAgent        *self,
                                                      const char      *name,
                                                      JsonObject      *payload);
ZotExtensionManager *_zot_agent_hooks_manager        (ZotAgent        *self);
char                *_zot_agent_build_base_prompt    (ZotAgent        *self);
const char          *_zot_agent_ensure_system_prompt (ZotAgent        *self);
void                 _zot_agent_set_run              (ZotAgent        *self,
                                                      Run             *run);
void                 _zot_agent_apply_activations    (ZotAgent            *self,
                                                      ZotTool             *tool,
                                                      const ZotToolResult *result);

/* zot-agent-run.c */
void                 _zot_agent_on_text_delta        (ZotProvider     *provider,
                                                      const char      *delta,
                                                      ZotAgent        *self);
void                 _zot_agent_on_reasoning_delta   (ZotProvider     *provider,
                                                      const char      *delta,
                                                      ZotAgent        *self);
void                 _zot_agent_run_step             (Run             *run);
void                 _zot_agent_fail_run             (Run             *run,
                                                      GError          *error);
void                 _zot_agent_abort_run            (Run             *run);
void                 _zot_agent_prepare_call         (Run             *run);

/* zot-agent-usage.c */
void                 _zot_agent_message_usage        (JsonObject      *message,
                                                      ZotUsage        *turn);
void                 _zot_agent_usage_to_message     (ZotAgent         *self,
                                                      ZotProviderReply *reply);
void                 _zot_agent_add_turn_usage       (ZotAgent        *self,
                                                      JsonObject      *message);
void                 _zot_agent_reset_usage          (ZotAgent        *self);
void                 _zot_agent_init_usage           (ZotAgent        *self);

/* zot-agent-compact.c */
void                 _zot_agent_abort_compaction     (ZotAgent        *self);
void                 _zot_agent_compact_in_run       (Run                 *run,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);

/* zot-agent-autocompact.c */
gboolean             _zot_agent_auto_compact_before_call (Run          *run);
gboolean             _zot_agent_auto_compact_on_overflow (Run          *run,
                                                          const GError *error);

/* zot-agent-tools.c */
ToolCall            *_zot_tool_call_new              (ZotAgent            *agent,
                                                      ZotSession          *session,
                                                      const ToolCallHooks *hooks,
                                                      gpointer             owner,
                                                      GCancellable        *outer,
                                                      const char          *id,
                                                      const char          *name,
                                                      JsonObject          *args);
void                 _zot_tool_call_free             (ToolCall            *call);
void                 _zot_tool_call_prepare          (ToolCall            *call);
gboolean             _zot_tool_call_execute          (ToolCall            *call);
const ZotCallOrigin *_zot_tool_call_origin           (ToolCall            *call,
                                                      ZotCallOrigin       *origin);
void                 _zot_agent_collect_calls        (Run             *run,
                                                      JsonObject      *message);
void                 _zot_agent_run_group            (Run             *run);
void                 _zot_tool_call_set_task         (ToolCall        *call,
                                                      const char      *task_id);
gboolean             _zot_tool_call_answer_from_journal (ToolCall     *call);

/* zot-agent-calls.c */
void                 _zot_agent_tool_runner_iface_init (ZotToolRunnerInterface *iface);

G_END_DECLS
