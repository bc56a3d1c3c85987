#define G_LOG_DOMAIN "zot-provider"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-limits.h"
#include "zot-provider.h"
#include "zot-provider-secrets.h"
#include "zot-provider-table.h"

typedef struct
{
  char         *model;
  ZotReasoning  reasoning;
  guint         max_retries;
} ZotProviderPrivate;

enum {
  TEXT_DELTA,
  REASONING_DELTA,
  TOOL_CALL_DELTA,
  RETRYING,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_QUARK (zot-provider-error-quark, zot_provider_error)
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (ZotProvider, zot_provider, G_TYPE_OBJECT)

static const char * const reasoning_names[] = {
  [ZOT_REASONING_DEFAULT] = "default",
  [ZOT_REASONING_OFF] = "off",
  [ZOT_REASONING_MINIMUM] = "minimum",
  [ZOT_REASONING_LOW] = "low",
  [ZOT_REASONING_MEDIUM] = "medium",
  [ZOT_REASONING_HIGH] = "high",
  [ZOT_REASONING_XHIGH] = "xhigh",
  [ZOT_REASONING_MAX] = "max",
};

/**
 * zot_reasoning_from_string:
 * @name: (nullable): "off", "minimum", "low", "medium", "high", "xhigh",
 *   "max" or "default"
 * @level: (out): the level
 *
 * Returns: whether @name is one of them (case-insensitive)
 */
gboolean
zot_reasoning_from_string (const char   *name,
                           ZotReasoning *level)
{
  g_return_val_if_fail (level != NULL, FALSE);

  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (reasoning_names); i++)
    if (g_ascii_strcasecmp (name, reasoning_names[i]) == 0)
      {
        *level = (ZotReasoning) i;
        return TRUE;
      }
  return FALSE;
}

const char *
zot_reasoning_to_string (ZotReasoning level)
{
  g_return_val_if_fail ((guint) level < G_N_ELEMENTS (reasoning_names), NULL);

  return reasoning_names[level];
}

ZotProviderRequest *
zot_provider_request_new (void)
{
  return g_new0 (ZotProviderRequest, 1);
}

void
zot_provider_request_free (ZotProviderRequest *request)
{
  if (request == NULL)
    return;

  g_free (request->model);
  g_free (request->system_prompt);
  g_clear_pointer (&request->messages, json_array_unref);
  g_clear_pointer (&request->tools, json_array_unref);
  g_free (request);
}

ZotProviderReply *
zot_provider_reply_new (void)
{
  ZotProviderReply *reply = g_new0 (ZotProviderReply, 1);

  reply->input_tokens = -1;
  reply->output_tokens = -1;
  reply->reasoning_tokens = -1;
  reply->cache_read_tokens = -1;
  reply->cache_write_tokens = -1;
  return reply;
}

void
zot_provider_reply_free (ZotProviderReply *reply)
{
  if (reply == NULL)
    return;

  g_clear_pointer (&reply->message, json_object_unref);
  g_free (reply->stop_reason);
  g_free (reply);
}

void
zot_provider_config_clear (ZotProviderConfig *config)
{
  g_clear_pointer (&config->name, g_free);
  g_clear_pointer (&config->model, g_free);
  g_clear_pointer (&config->base_url, g_free);
  g_clear_pointer (&config->api_key, g_free);
  g_clear_pointer (&config->api_key_source, g_free);
}

static void
zot_provider_finalize (GObject *object)
{
  ZotProvider *self = (ZotProvider *)object;
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_clear_pointer (&priv->model, g_free);

  G_OBJECT_CLASS (zot_provider_parent_class)->finalize (object);
}

static void
zot_provider_class_init (ZotProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = zot_provider_finalize;

  /**
   * ZotProvider::text-delta:
   * @delta: text as it arrives
   */
  signals [TEXT_DELTA] =
    g_signal_new ("text-delta",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotProvider::reasoning-delta:
   * @delta: reasoning (thinking) text as it arrives
   */
  signals [REASONING_DELTA] =
    g_signal_new ("reasoning-delta",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotProvider::tool-call-delta:
   * @index: which call of the message
   * @id: (nullable): the call id, once known
   * @name: (nullable): the tool name, once known
   * @arguments_delta: a fragment of the JSON arguments
   */
  signals [TOOL_CALL_DELTA] =
    g_signal_new ("tool-call-delta",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 4, G_TYPE_UINT,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotProvider::retrying:
   * @retry: which retry comes next, from 1
   * @max_retries: how many there may be
   * @delay_ms: how long the provider waits before it
   * @status: the HTTP status that asked for it, 0 for a failed connection
   * @message: one line for the user, the numbers included
   *
   * The provider was busy and is asked again after a wait; cancelling the
   * call ends the wait.
   */
  signals [RETRYING] =
    g_signal_new ("retrying",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 5, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_INT64, G_TYPE_UINT,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
zot_provider_init (ZotProvider *self)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  priv->max_retries = ZOT_PROVIDER_MAX_RETRIES;
}

const char *
zot_provider_get_name (ZotProvider *self)
{
  g_return_val_if_fail (ZOT_IS_PROVIDER (self), NULL);

  return ZOT_PROVIDER_GET_CLASS (self)->get_name (self);
}

const char *
zot_provider_get_model (ZotProvider *self)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_return_val_if_fail (ZOT_IS_PROVIDER (self), NULL);

  if (priv->model != NULL)
    return priv->model;
  return ZOT_PROVIDER_GET_CLASS (self)->get_default_model (self);
}

void
zot_provider_set_model (ZotProvider *self,
                        const char  *model)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_return_if_fail (ZOT_IS_PROVIDER (self));

  g_free (priv->model);
  priv->model = (model != NULL && *model != '\0') ? g_strdup (model) : NULL;
}

/**
 * zot_provider_get_reasoning:
 *
 * The reasoning level of this provider's requests: each implementation
 * reads it from #ZotProviderRequest.reasoning and maps it to its API
 * (Anthropic: an extended thinking budget; OpenAI: `reasoning_effort`),
 * clamped to what the model supports, and sends nothing for a model the
 * table knows cannot reason.
 *
 * Returns: the level, %ZOT_REASONING_DEFAULT until one is set
 */
ZotReasoning
zot_provider_get_reasoning (ZotProvider *self)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_return_val_if_fail (ZOT_IS_PROVIDER (self), ZOT_REASONING_DEFAULT);

  return priv->reasoning;
}

/**
 * zot_provider_set_reasoning:
 * @level: the level for the requests from now on
 */
void
zot_provider_set_reasoning (ZotProvider  *self,
                            ZotReasoning  level)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_return_if_fail (ZOT_IS_PROVIDER (self));
  g_return_if_fail ((guint) level < G_N_ELEMENTS (reasoning_names));

  priv->reasoning = level;
}

/**
 * zot_provider_set_max_retries:
 * @max_retries: how often a busy provider is asked again (0 for never), at
 *   most %ZOT_PROVIDER_MAX_RETRIES_LIMIT
 */
void
zot_provider_set_max_retries (ZotProvider *self,
                              guint        max_retries)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_return_if_fail (ZOT_IS_PROVIDER (self));

  priv->max_retries = MIN (max_retries, ZOT_PROVIDER_MAX_RETRIES_LIMIT);
}

guint
zot_provider_get_max_retries (ZotProvider *self)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_return_val_if_fail (ZOT_IS_PROVIDER (self), 0);

  return priv->max_retries;
}

void
zot_provider_stream_async (ZotProvider         *self,
                           ZotProviderRequest  *request,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  ZotProviderPrivate *priv = zot_provider_get_instance_private (self);

  g_return_if_fail (ZOT_IS_PROVIDER (self));
  g_return_if_fail (request != NULL);

  if (request->reasoning == ZOT_REASONING_DEFAULT)
    request->reasoning = priv->reasoning;

  ZOT_PROVIDER_GET_CLASS (self)->stream_async (self, request, cancellable, callback, user_data);
}

ZotProviderReply *
zot_provider_stream_finish (ZotProvider   *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (ZOT_IS_PROVIDER (self), NULL);

  return ZOT_PROVIDER_GET_CLASS (self)->stream_finish (self, result, error);
}

void
zot_provider_emit_text_delta (ZotProvider *self,
                              const char  *delta)
{
  g_return_if_fail (ZOT_IS_PROVIDER (self));

  if (delta != NULL && *delta != '\0')
    g_signal_emit (self, signals [TEXT_DELTA], 0, delta);
}

void
zot_provider_emit_reasoning_delta (ZotProvider *self,
                                   const char  *delta)
{
  g_return_if_fail (ZOT_IS_PROVIDER (self));

  if (delta != NULL && *delta != '\0')
    g_signal_emit (self, signals [REASONING_DELTA], 0, delta);
}

/**
 * zot_provider_add_reasoning:
 * @self: the provider
 * @reasoning: where the text of the current reasoning block goes
 * @total: the reasoning bytes of the whole response so far, updated
 * @delta: the piece the stream sent
 * @error: set past ZOT_PROVIDER_REASONING_MAX_BYTES
 *
 * Appends and emits ::reasoning-delta.
 *
 * Returns: %FALSE when the response has too much reasoning
 */
gboolean
zot_provider_add_reasoning (ZotProvider  *self,
                            GString      *reasoning,
                            gsize        *total,
                            const char   *delta,
                            GError      **error)
{
  gsize len;

  g_return_val_if_fail (ZOT_IS_PROVIDER (self), FALSE);

  if (delta == NULL || *delta == '\0')
    return TRUE;

  len = strlen (delta);
  if (len > ZOT_PROVIDER_REASONING_MAX_BYTES - *total)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the model's reasoning is longer than %u KiB; ask for a lower "
                     "reasoning level"),
                   (guint) (ZOT_PROVIDER_REASONING_MAX_BYTES / 1024));
      return FALSE;
    }

  *total += len;
  g_string_append_len (reasoning, delta, len);
  zot_provider_emit_reasoning_delta (self, delta);
  return TRUE;
}

/**
 * zot_provider_new_thinking_block:
 * @text: the reasoning of a response
 *
 * Returns: (transfer full): a "thinking" block without a signature: it is
 *   kept and shown, and sent back to no API (zot-message.h)
 */
JsonObject *
zot_provider_new_thinking_block (const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "thinking");
  json_object_set_string_member (block, "thinking", text);
  return block;
}

void
zot_provider_emit_tool_call_delta (ZotProvider *self,
                                   guint        index,
                                   const char  *id,
                                   const char  *name,
                                   const char  *arguments_delta)
{
  g_return_if_fail (ZOT_IS_PROVIDER (self));

  g_signal_emit (self, signals [TOOL_CALL_DELTA], 0, index, id, name, arguments_delta);
}

void
zot_provider_emit_retrying (ZotProvider *self,
                            guint        retry,
                            guint        max_retries,
                            gint64       delay_ms,
                            guint        status,
                            const char  *message)
{
  g_return_if_fail (ZOT_IS_PROVIDER (self));

  g_signal_emit (self, signals [RETRYING], 0, retry, max_retries, delay_ms, status, message);
}

/* Provider keys this process got from somewhere other than its
 * environment (the keyring, Preferences): the environment is what every
 * child inherits, so keys stay out of it. */
static GHashTable *stored_keys;
static GHashTable *chosen_keys;   /* typed in Preferences: before the environment */

/**
 * zot_provider_store_key:
 * @provider: a provider name with a key variable in the table
 * @key: (nullable): the key, or %NULL to forget it
 * @chosen: %TRUE for a key the user just gave (it comes before the
 *   environment's); %FALSE for one found in the keyring (after it, as on
 *   the command line)
 *
 * Keeps a key for the providers this process makes. Only providers read
 * it: no child process inherits it.
 */
void
zot_provider_store_key (const char *provider,
                        const char *key,
                        gboolean    chosen)
{
  GHashTable **table = chosen ? &chosen_keys : &stored_keys;

  g_return_if_fail (provider != NULL);

  if (*table == NULL)
    *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  if (key != NULL && *key != '\0')
    g_hash_table_replace (*table, g_strdup (provider), g_strdup (key));
  else
    g_hash_table_remove (*table, provider);
}

/**
 * zot_provider_get_key:
 * @provider: a provider name: a row of the table, or another agent's
 *   provider whose key variable the table knows ("google")
 * @source: (out) (optional): where it comes from: "Preferences", the
 *   variable's name, or "the keyring"
 *
 * Returns: (nullable): the key a new provider of that name would use
 */
const char *
zot_provider_get_key (const char  *provider,
                      const char **source)
{
  const char *variable;
  const char *ignored;
  const char *key;

  g_return_val_if_fail (provider != NULL, NULL);

  if (source == NULL)
    source = &ignored;

  key = chosen_keys != NULL ? g_hash_table_lookup (chosen_keys, provider) : NULL;
  *source = "Preferences";
  if (key != NULL)
    return key;

  variable = zot_provider_table_get_key_variable (provider);
  key = variable != NULL ? zot_provider_get_environment_key (variable) : NULL;
  *source = variable;
  if (key != NULL && *key != '\0')
    return key;

  *source = "the keyring";
  return stored_keys != NULL ? g_hash_table_lookup (stored_keys, provider) : NULL;
}

/**
 * zot_provider_scrub_environment:
 * @launcher: a launcher for an extension, a tool or a helper program
 * @keep: (nullable): variables to leave, such as those an extension asked
 *   for and the user allowed
 *
 * Takes the provider key variables out of what @launcher's children get:
 * a key is for the provider, not for every program an agent runs.
 */
void
zot_provider_scrub_environment (GSubprocessLauncher *launcher,
                                const char * const  *keep)
{
  const char * const *variables = zot_provider_table_get_key_variables ();

  g_return_if_fail (G_IS_SUBPROCESS_LAUNCHER (launcher));

  for (guint i = 0; variables[i] != NULL; i++)
    if (keep == NULL || !g_strv_contains (keep, variables[i]))
      g_subprocess_launcher_unsetenv (launcher, variables[i]);
}

/**
 * zot_provider_is_key_variable:
 *
 * Returns: whether @name is one of the provider key variables
 *   (zot_provider_table_get_key_variables())
 */
gboolean
zot_provider_is_key_variable (const char *name)
{
  return name != NULL && g_strv_contains (zot_provider_table_get_key_variables (), name);
}

/* The key @info's provider would use, with where it came from as an
 * error message names it. */
static const char *
find_key (const ZotProviderInfo  *info,
          char                  **source)
{
  const char *from;
  const char *key = zot_provider_get_key (info->name, &from);

  if (key == NULL || *key == '\0')
    return NULL;

  *source = g_str_equal (from, info->key_variable) ? g_strconcat ("$", from, NULL) : g_strdup (from);
  return key;
}

/**
 * zot_provider_resolve_config:
 *
 * Fills in what the command line left out: the provider (the first in
 * table order whose key is at hand, the first with a key at all for a
 * key given with --api-key, else the offline one) and the key with where
 * it came from.
 */
void
zot_provider_resolve_config (ZotProviderConfig *config)
{
  const ZotProviderInfo *info;

  g_return_if_fail (config != NULL);

  if (config->name == NULL)
    {
      for (guint i = 0; config->name == NULL && i < zot_provider_table_get_n_providers (); i++)
        {
          g_autofree char *source = NULL;

          info = zot_provider_table_get_nth (i);
          if (info->key_variable == NULL)
            continue;
          if (config->api_key != NULL || find_key (info, &source) != NULL)
            config->name = g_strdup (info->name);
        }

      if (config->name == NULL)
        config->name = g_strdup (zot_provider_table_get_fallback ()->name);
    }

  if (config->api_key != NULL)
    {
      if (config->api_key_source == NULL)
        config->api_key_source = g_strdup ("--api-key");
      return;
    }

  info = zot_provider_table_lookup (config->name);
  if (info != NULL && info->key_variable != NULL)
    {
      g_autofree char *source = NULL;
      const char *key = find_key (info, &source);

      if (key != NULL)
        {
          config->api_key = g_strdup (key);
          g_free (config->api_key_source);
          config->api_key_source = g_steal_pointer (&source);
        }
    }
}

/**
 * zot_provider_new_for_config:
 * @config: a resolved configuration
 *
 * Makes the provider its table row names.
 *
 * Returns: (transfer full): the provider, or %NULL with
 *   %ZOT_PROVIDER_ERROR_CONFIG (an unknown provider, a missing key, a bad
 *   base URL)
 */
ZotProvider *
zot_provider_new_for_config (const ZotProviderConfig  *config,
                             GError                  **error)
{
  const ZotProviderInfo *info;
  ZotProvider *provider;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (config->name != NULL, NULL);

  info = zot_provider_table_lookup_checked (config->name, error);
  if (info == NULL)
    return NULL;

  provider = info->new_func (config, error);
  if (provider != NULL && config->model != NULL)
    zot_provider_set_model (provider, config->model);

  return provider;
}
