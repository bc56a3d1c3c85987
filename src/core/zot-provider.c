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
void
zot_provider_resolve_config (ZotProviderConfig *config)
{
  const char *anthropic = g_getenv ("ANTHROPIC_API_KEY");
  const char *openai = g_getenv ("OPENAI_API_KEY");

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
      config->api_key_source = g_strdup ("$ANTHROPIC_API_KEY");
    }
  else if (g_str_equal (config->name, "openai") && openai != NULL && *openai != '\0')
    {
      config->api_key = g_strdup (openai);
      config->api_key_source = g_strdup ("$OPENAI_API_KEY");
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
