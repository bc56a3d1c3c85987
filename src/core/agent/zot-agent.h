/* zot-agent.h — one conversation's agent loop.
 *
 * A run starts with a user message and steps until the model stops, the
 * step budget is spent, or it is aborted: model call (streamed), then the
 * tool calls of that message (concurrently where the tools allow), then
 * their results back to the model. Every message is appended to the
 * session, and fsynced, before the loop goes on.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-extension-manager.h"
#include "zot-provider.h"
#include "zot-session.h"
#include "zot-tool-registry.h"

G_BEGIN_DECLS

#define ZOT_AGENT_ERROR (zot_agent_error_quark ())

/**
 * ZotAgentError:
 * @ZOT_AGENT_ERROR_BUSY: a run is in progress
 * @ZOT_AGENT_ERROR_MAX_STEPS: the run stopped at --max-steps
 * @ZOT_AGENT_ERROR_EMPTY: the model gave an empty summary
 * @ZOT_AGENT_ERROR_BLOCKED: an extension blocked the turn
 */
typedef enum
{
  ZOT_AGENT_ERROR_BUSY,
  ZOT_AGENT_ERROR_MAX_STEPS,
  ZOT_AGENT_ERROR_EMPTY,
  ZOT_AGENT_ERROR_BLOCKED,
} ZotAgentError;

GQuark zot_agent_error_quark (void);

/**
 * ZotCompaction:
 * @id: the compaction id
 * @message_count: messages before
 * @token_estimate: serialized bytes / 4, before
 * @after_count: messages after
 * @after_token_estimate: serialized bytes / 4, after
 * @summary: (nullable): the model's summary; %NULL when there was nothing
 *   to compact
 */
typedef struct
{
  char   *id;
  guint   message_count;
  guint64 token_estimate;
  guint   after_count;
  guint64 after_token_estimate;
  char   *summary;
} ZotCompaction;

void zot_compaction_free (ZotCompaction *compaction);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotCompaction, zot_compaction_free)

/**
 * ZotUsage:
 * @input_tokens: what the model read in the last turn outside the prompt
 *   cache, or -1 when it did not say
 * @output_tokens: what the model wrote in the last turn (reasoning
 *   included), or -1 when it did not say
 * @total_input_tokens: the input tokens of every turn of the conversation that said
 * @total_output_tokens: the output tokens of every turn of the conversation that said
 * @reasoning_tokens: the part of the last turn's output spent reasoning,
 *   or -1 when unknown
 * @cache_read_tokens: the last turn's input read from the prompt cache, or -1
 * @cache_write_tokens: the last turn's input written to the prompt cache, or -1
 * @cost_usd: what the last turn cost, from the price table (0 for a model
 *   it does not know)
 * @total_reasoning_tokens: the sum of the turns that said, or -1 when none did
 * @total_cache_read_tokens: the sum of the turns that said
 * @total_cache_write_tokens: the sum of the turns that said
 * @total_cost_usd: what the conversation's turns cost, those with a known
 *   price
 * @cost_known: whether the last turn's model has known prices; without
 *   them @cost_usd is 0 and means nothing
 * @total_cost_known: whether every turn's cost is known, so that
 *   @total_cost_usd is the whole
 *
 * The tokens the model reported, as #ZotAgent:usage holds them.
 */
typedef struct
{
  gint64 input_tokens;
  gint64 output_tokens;
  gint64 total_input_tokens;
  gint64 total_output_tokens;
  gint64 reasoning_tokens;
  gint64 cache_read_tokens;
  gint64 cache_write_tokens;
  double cost_usd;
  gint64 total_reasoning_tokens;
  gint64 total_cache_read_tokens;
  gint64 total_cache_write_tokens;
  double total_cost_usd;
  gboolean cost_known;
  gboolean total_cost_known;
} ZotUsage;

#define ZOT_TYPE_USAGE (zot_usage_get_type ())

GType     zot_usage_get_type (void) G_GNUC_CONST;
ZotUsage *zot_usage_copy     (const ZotUsage *usage);
void      zot_usage_free     (ZotUsage       *usage);
gboolean  zot_usage_equal    (const ZotUsage *a,
                              const ZotUsage *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotUsage, zot_usage_free)

#define ZOT_TYPE_AGENT (zot_agent_get_type ())
G_DECLARE_FINAL_TYPE (ZotAgent, zot_agent, ZOT, AGENT, GObject)

ZotAgent        *zot_agent_new                    (ZotProvider         *provider,
                                                   ZotToolRegistry     *registry,
                                                   ZotSession          *session);
ZotProvider     *zot_agent_get_provider           (ZotAgent            *self);
void             zot_agent_set_provider           (ZotAgent            *self,
                                                   ZotProvider         *provider);
ZotSession      *zot_agent_get_session            (ZotAgent            *self);
void             zot_agent_set_session            (ZotAgent            *self,
                                                   ZotSession          *session);
ZotToolRegistry *zot_agent_get_registry           (ZotAgent            *self);
void             zot_agent_set_subagent           (ZotAgent            *self,
                                                   ZotExtensionManager *manager,
                                                   const char          *agent_id,
                                                   const char          *name);
void             zot_agent_set_extension_manager  (ZotAgent            *self,
                                                   ZotExtensionManager *manager);
const char      *zot_agent_get_cwd                (ZotAgent            *self);
void             zot_agent_set_cwd                (ZotAgent            *self,
                                                   const char          *cwd);
void             zot_agent_set_max_steps          (ZotAgent            *self,
                                                   guint                max_steps);
void             zot_agent_set_system_prompt_override (ZotAgent        *self,
                                                   const char          *system_prompt,
                                                   const char * const  *append);
void             zot_agent_set_interactive        (ZotAgent            *self,
                                                   gboolean             interactive);
gboolean         zot_agent_get_interactive        (ZotAgent            *self);
gboolean         zot_agent_is_running             (ZotAgent            *self);
gboolean         zot_agent_is_compacting          (ZotAgent            *self);
const ZotUsage  *zot_agent_get_usage              (ZotAgent            *self);
gint64           zot_agent_get_context_tokens     (ZotAgent            *self);
const char      *zot_agent_get_system_prompt      (ZotAgent            *self);
void             zot_agent_reset_system_prompt    (ZotAgent            *self);
GPtrArray       *zot_agent_get_messages           (ZotAgent            *self);

void             zot_agent_prompt_async           (ZotAgent            *self,
                                                   const char          *text,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
void             zot_agent_prompt_with_images_async (ZotAgent            *self,
                                                     const char          *text,
                                                     JsonArray           *images,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
void             zot_agent_prompt_for_extension_async (ZotAgent        *self,
                                                   const char          *text,
                                                   const char          *origin_extension,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
gboolean         zot_agent_has_pending_step       (ZotAgent            *self);
void             zot_agent_resume_async           (ZotAgent            *self,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
char            *zot_agent_prompt_finish          (ZotAgent            *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);
void             zot_agent_tool_prompt_async      (ZotAgent            *self,
                                                   const char          *prompt,
                                                   const char          *tool_name,
                                                   JsonObject          *tool_args,
                                                   const char          *origin_extension,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
guint            zot_agent_get_queue_length       (ZotAgent            *self);
void             zot_agent_abort                  (ZotAgent            *self);

void             zot_agent_compact_async          (ZotAgent            *self,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
ZotCompaction   *zot_agent_compact_finish         (ZotAgent            *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);
void             zot_agent_set_auto_compact       (ZotAgent            *self,
                                                   guint                percent);
guint            zot_agent_get_auto_compact       (ZotAgent            *self);

G_END_DECLS
