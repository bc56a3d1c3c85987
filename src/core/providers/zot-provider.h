/* zot-provider.h — a model API.
 *
 * One ZotProvider streams one model call at a time: deltas arrive as the
 * ::text-delta, ::reasoning-delta and ::tool-call-delta signals while the
 * call runs, and the
 * whole assistant message (zot-message.h shape) comes from _finish. An
 * agent owns its provider; a subagent makes its own. The providers there
 * are, and what is known of them, are in zot-provider-table.h; those that
 * talk HTTP derive from ZotHttpProvider (zot-http-provider.h).
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ZOT_PROVIDER_ERROR (zot_provider_error_quark ())

/**
 * ZotProviderError:
 * @ZOT_PROVIDER_ERROR_AUTH: 401/403; the message names where the key came from
 * @ZOT_PROVIDER_ERROR_RATE_LIMITED: 429 after every retry
 * @ZOT_PROVIDER_ERROR_SERVER: 5xx after every retry
 * @ZOT_PROVIDER_ERROR_HTTP: another HTTP error status
 * @ZOT_PROVIDER_ERROR_NETWORK: no connection, DNS, TLS
 * @ZOT_PROVIDER_ERROR_BAD_STREAM: a malformed, truncated or error-carrying stream
 * @ZOT_PROVIDER_ERROR_CONFIG: no key, an unknown provider, a bad base URL
 * @ZOT_PROVIDER_ERROR_REFUSED: the API withheld the answer (a safety or
 *   recitation block); the message names the reason
 */
typedef enum
{
  ZOT_PROVIDER_ERROR_AUTH,
  ZOT_PROVIDER_ERROR_RATE_LIMITED,
  ZOT_PROVIDER_ERROR_SERVER,
  ZOT_PROVIDER_ERROR_HTTP,
  ZOT_PROVIDER_ERROR_NETWORK,
  ZOT_PROVIDER_ERROR_BAD_STREAM,
  ZOT_PROVIDER_ERROR_CONFIG,
  ZOT_PROVIDER_ERROR_REFUSED,
} ZotProviderError;

GQuark zot_provider_error_quark (void);

/**
 * ZotReasoning:
 * @ZOT_REASONING_DEFAULT: nothing was asked: the request carries no
 *   reasoning setting and the API's own default applies
 * @ZOT_REASONING_OFF: no reasoning, or the least a model allows
 * @ZOT_REASONING_MINIMUM: the smallest budget or effort
 * @ZOT_REASONING_LOW: low
 * @ZOT_REASONING_MEDIUM: medium
 * @ZOT_REASONING_HIGH: high
 * @ZOT_REASONING_XHIGH: more than high, where an API has it
 * @ZOT_REASONING_MAX: the most a model allows
 *
 * How much a model thinks before it answers (`--reasoning`, RPC's
 * `set_reasoning`). Each provider maps a level to its own setting and
 * clamps it to what the model supports; see zot_provider_get_reasoning().
 */
typedef enum
{
  ZOT_REASONING_DEFAULT,
  ZOT_REASONING_OFF,
  ZOT_REASONING_MINIMUM,
  ZOT_REASONING_LOW,
  ZOT_REASONING_MEDIUM,
  ZOT_REASONING_HIGH,
  ZOT_REASONING_XHIGH,
  ZOT_REASONING_MAX,
} ZotReasoning;

gboolean    zot_reasoning_from_string (const char    *name,
                                       ZotReasoning  *level);
const char *zot_reasoning_to_string   (ZotReasoning   level);

/**
 * ZotProviderRequest:
 * @model: the model id
 * @system_prompt: (nullable): the system prompt, %NULL or "" for none
 * @messages: the conversation, zot-message.h shape
 * @tools: (nullable): `[{"name","description","input_schema"}]`
 * @max_tokens: the output budget; 0 for the provider's default
 * @reasoning: the reasoning level; zot_provider_stream_async() fills it
 *   in from zot_provider_get_reasoning() when it is
 *   %ZOT_REASONING_DEFAULT
 */
typedef struct
{
  char         *model;
  char         *system_prompt;
  JsonArray    *messages;
  JsonArray    *tools;
  guint         max_tokens;
  ZotReasoning  reasoning;
} ZotProviderRequest;

ZotProviderRequest *zot_provider_request_new  (void);
void                zot_provider_request_free (ZotProviderRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotProviderRequest, zot_provider_request_free)

/**
 * ZotProviderReply:
 * @message: the assistant message, zot-message.h shape
 * @stop_reason: "end_turn", "tool_use" or "length"
 * @input_tokens: input tokens as reported, not counting those read from or
 *   written to the prompt cache, or -1
 * @output_tokens: as reported (reasoning included), or -1
 * @reasoning_tokens: the part of @output_tokens spent reasoning, or -1
 *   when the API does not say
 * @cache_read_tokens: input tokens read from the prompt cache, or -1
 * @cache_write_tokens: input tokens written to the prompt cache, or -1
 */
typedef struct
{
  JsonObject *message;
  char       *stop_reason;
  gint64      input_tokens;
  gint64      output_tokens;
  gint64      reasoning_tokens;
  gint64      cache_read_tokens;
  gint64      cache_write_tokens;
} ZotProviderReply;

ZotProviderReply *zot_provider_reply_new  (void);
void              zot_provider_reply_free (ZotProviderReply *reply);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotProviderReply, zot_provider_reply_free)

/**
 * ZotProviderConfig:
 * @name: a provider name of the table (zot-provider-table.h)
 * @model: (nullable): the model id, %NULL for the provider's default
 * @base_url: (nullable): the API root, %NULL for the provider's default
 * @api_key: (nullable): the key
 * @api_key_source: (nullable): where the key came from, for error messages
 *   ("--api-key", "$ANTHROPIC_API_KEY", "the keyring")
 */
typedef struct
{
  char *name;
  char *model;
  char *base_url;
  char *api_key;
  char *api_key_source;
} ZotProviderConfig;

void zot_provider_config_clear (ZotProviderConfig *config);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ZotProviderConfig, zot_provider_config_clear)

#define ZOT_TYPE_PROVIDER (zot_provider_get_type ())
G_DECLARE_DERIVABLE_TYPE (ZotProvider, zot_provider, ZOT, PROVIDER, GObject)

struct _ZotProviderClass
{
  GObjectClass parent_class;

  const char       *(*get_name)      (ZotProvider          *self);
  const char       *(*get_default_model) (ZotProvider      *self);
  void              (*stream_async)  (ZotProvider          *self,
                                      ZotProviderRequest   *request,
                                      GCancellable         *cancellable,
                                      GAsyncReadyCallback   callback,
                                      gpointer              user_data);
  ZotProviderReply *(*stream_finish) (ZotProvider          *self,
                                      GAsyncResult         *result,
                                      GError              **error);

  /*< private >*/
  gpointer padding[8];
};

ZotProvider      *zot_provider_new_for_config    (const ZotProviderConfig  *config,
                                                  GError                  **error);
void              zot_provider_resolve_config    (ZotProviderConfig        *config);
void              zot_provider_store_key         (const char               *provider,
                                                  const char               *key,
                                                  gboolean                  chosen);
void              zot_provider_scrub_environment (GSubprocessLauncher      *launcher,
                                                  const char * const       *keep);
gboolean          zot_provider_is_key_variable   (const char               *name);
const char       *zot_provider_get_key           (const char               *provider,
                                                  const char              **source);
const char       *zot_provider_get_name          (ZotProvider              *self);
const char       *zot_provider_get_model         (ZotProvider              *self);
void              zot_provider_set_model         (ZotProvider              *self,
                                                  const char               *model);
ZotReasoning      zot_provider_get_reasoning     (ZotProvider              *self);
void              zot_provider_set_reasoning     (ZotProvider              *self,
                                                  ZotReasoning              level);
void              zot_provider_set_max_retries   (ZotProvider              *self,
                                                  guint                     max_retries);
guint             zot_provider_get_max_retries   (ZotProvider              *self);
void              zot_provider_stream_async      (ZotProvider              *self,
                                                  ZotProviderRequest       *request,
                                                  GCancellable             *cancellable,
                                                  GAsyncReadyCallback       callback,
                                                  gpointer                  user_data);
ZotProviderReply *zot_provider_stream_finish     (ZotProvider              *self,
                                                  GAsyncResult             *result,
                                                  GError                  **error);

/* For implementations: report deltas as they arrive. */
void              zot_provider_emit_text_delta   (ZotProvider              *self,
                                                  const char               *delta);
void              zot_provider_emit_reasoning_delta (ZotProvider           *self,
                                                     const char            *delta);
gboolean          zot_provider_add_reasoning     (ZotProvider              *self,
                                                  GString                  *reasoning,
                                                  gsize                    *total,
                                                  const char               *delta,
                                                  GError                  **error);
JsonObject       *zot_provider_new_thinking_block (const char              *text);
void              zot_provider_emit_tool_call_delta (ZotProvider           *self,
                                                     guint                  index,
                                                     const char            *id,
                                                     const char            *name,
                                                     const char            *arguments_delta);
void              zot_provider_emit_retrying     (ZotProvider              *self,
                                                  guint                     retry,
                                                  guint                     max_retries,
                                                  gint64                    delay_ms,
                                                  guint                     status,
                                                  const char               *message);

G_END_DECLS
