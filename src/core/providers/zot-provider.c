#define G_LOG_DOMAIN "zot-provider"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-anthropic-provider.h"
#include "zot-demo-provider.h"
#include "zot-openai-provider.h"
#include "zot-provider.h"

typedef struct
{
  char *model;
} ZotProviderPrivate;

enum {
  TEXT_DELTA,
  TOOL_CALL_DELTA,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_QUARK (zot-provider-error-quark, zot_provider_error)
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (ZotProvider, zot_provider, G_TYPE_OBJECT)

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
}

static void
zot_provider_init (ZotProvider *self)
{
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

void
zot_provider_stream_async (ZotProvider         *self,
                           ZotProviderRequest  *request,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (ZOT_IS_PROVIDER (self));
  g_return_if_fail (request != NULL);

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
zot_provider_emit_tool_call_delta (ZotProvider *self,
                                   guint        index,
                                   const char  *id,
                                   const char  *name,
                                   const char  *arguments_delta)
{
  g_return_if_fail (ZOT_IS_PROVIDER (self));

  g_signal_emit (self, signals [TOOL_CALL_DELTA], 0, index, id, name, arguments_delta);
}

/**
 * zot_provider_resolve_config:
 *
 * Fills in what the command line left out: the provider (anthropic or
 * openai when their key is in the environment, else demo) and the key with
 * where it came from.
 */
/* Provider keys this process got from somewhere other than its
 * environment (the keyring, Preferences): the environment is what every
 * child inherits, so keys stay out of it. */
static GHashTable *stored_keys;
static GHashTable *chosen_keys;   /* typed in Preferences: before the environment */

static const char * const key_variables[] = {
  "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
};

/**
 * zot_provider_store_key:
 * @provider: "anthropic" or "openai"
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

static const char *
lookup_key (const char  *provider,
            const char  *variable,
            const char **source)
{
  const char *ignored;
  const char *key = chosen_keys != NULL ? g_hash_table_lookup (chosen_keys, provider) : NULL;

  if (source == NULL)
    source = &ignored;

  *source = "Preferences";
  if (key != NULL)
    return key;

  key = g_getenv (variable);
  *source = variable;
  if (key != NULL && *key != '\0')
    return key;

  *source = "the keyring";
  return stored_keys != NULL ? g_hash_table_lookup (stored_keys, provider) : NULL;
}

/**
 * zot_provider_get_key:
 * @provider: "anthropic" or "openai"
 * @source: (out) (optional): where it comes from: "Preferences", the
 *   variable's name, or "the keyring"
 *
 * Returns: (nullable): the key a new provider of that name would use
 */
const char *
zot_provider_get_key (const char  *provider,
                      const char **source)
{
  g_autofree char *variable = NULL;

  g_return_val_if_fail (provider != NULL, NULL);

  variable = g_strdup_printf ("%s_API_KEY", provider);
  for (char *p = variable; *p != '\0'; p++)
    *p = g_ascii_toupper (*p);
  return lookup_key (provider, variable, source);
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
  g_return_if_fail (G_IS_SUBPROCESS_LAUNCHER (launcher));

  for (guint i = 0; i < G_N_ELEMENTS (key_variables); i++)
    if (keep == NULL || !g_strv_contains (keep, key_variables[i]))
      g_subprocess_launcher_unsetenv (launcher, key_variables[i]);
}

/**
 * zot_provider_is_key_variable:
 *
 * Returns: whether @name is one of the provider key variables
 */
gboolean
zot_provider_is_key_variable (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (key_variables); i++)
    if (g_strcmp0 (name, key_variables[i]) == 0)
      return TRUE;
  return FALSE;
}

void
zot_provider_resolve_config (ZotProviderConfig *config)
{
  const char *anthropic_source;
  const char *openai_source;
  const char *anthropic = lookup_key ("anthropic", "ANTHROPIC_API_KEY", &anthropic_source);
  const char *openai = lookup_key ("openai", "OPENAI_API_KEY", &openai_source);

  g_return_if_fail (config != NULL);

  if (config->name == NULL)
    {
      if (config->api_key != NULL || (anthropic != NULL && *anthropic != '\0'))
        config->name = g_strdup ("anthropic");
      else if (openai != NULL && *openai != '\0')
        config->name = g_strdup ("openai");
      else
        config->name = g_strdup ("demo");
    }

  if (config->api_key != NULL)
    {
      if (config->api_key_source == NULL)
        config->api_key_source = g_strdup ("--api-key");
      return;
    }

  if (g_str_equal (config->name, "anthropic") && anthropic != NULL && *anthropic != '\0')
    {
      config->api_key = g_strdup (anthropic);
      config->api_key_source = g_str_has_suffix (anthropic_source, "_KEY")
                               ? g_strconcat ("$", anthropic_source, NULL) : g_strdup (anthropic_source);
    }
  else if (g_str_equal (config->name, "openai") && openai != NULL && *openai != '\0')
    {
      config->api_key = g_strdup (openai);
      config->api_key_source = g_str_has_suffix (openai_source, "_KEY")
                               ? g_strconcat ("$", openai_source, NULL) : g_strdup (openai_source);
    }
}

ZotProvider *
zot_provider_new_for_config (const ZotProviderConfig  *config,
                             GError                  **error)
{
  ZotProvider *provider = NULL;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (config->name != NULL, NULL);

  if (g_str_equal (config->name, "demo"))
    provider = zot_demo_provider_new ();
  else if (g_str_equal (config->name, "anthropic"))
    provider = zot_anthropic_provider_new (config, error);
  else if (g_str_equal (config->name, "openai"))
    provider = zot_openai_provider_new (config, error);
  else
    g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                 _("unknown provider \"%s\"; use anthropic, openai or demo"), config->name);

  if (provider != NULL && config->model != NULL)
    zot_provider_set_model (provider, config->model);

  return provider;
}
