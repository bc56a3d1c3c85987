/* zot-host-model.c — the provider and model in use, and switching them:
 * /model, Preferences' provider, key and base URL.
 */
#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-host-private.h"
#include "zot-provider-table.h"

/* Model and conversation */

/* A new provider @name with @model (%NULL for its default), the host's
 * base URL, and @api_key or else the key the host would pick for it, in
 * use from now on. On error the one in use stays. */
/* The provider or its model may have changed. */
static void
update_model (ZotHost *self)
{
  ZotProvider *provider = zot_agent_get_provider (self->agent);
  g_autofree char *key = g_strdup_printf ("%s\n%s", zot_provider_get_name (provider),
                                          zot_provider_get_model (provider));

  zot_extension_manager_set_model (self->manager, zot_provider_get_name (provider),
                                   zot_provider_get_model (provider));
  if (g_strcmp0 (key, self->model_key) == 0)
    return;

  g_free (self->model_key);
  self->model_key = g_steal_pointer (&key);
  g_object_notify_by_pspec (G_OBJECT (self), _zot_host_properties [ZOT_HOST_PROP_MODEL]);
}

static gboolean
install_provider (ZotHost     *self,
                  const char  *name,
                  const char  *model,
                  const char  *api_key,
                  GError     **error)
{
  g_autoptr(ZotProvider) provider = NULL;
  g_auto(ZotProviderConfig) config = { 0 };

  config.name = g_strdup (name);
  config.model = g_strdup (model);
  config.base_url = g_strdup (self->options.provider.base_url);
  if (api_key != NULL)
    {
      config.api_key = g_strdup (api_key);
      config.api_key_source = g_strdup (_("the key set in Preferences"));
    }
  else if (g_strcmp0 (name, self->options.provider.name) == 0)
    {
      config.api_key = g_strdup (self->options.provider.api_key);
      config.api_key_source = g_strdup (self->options.provider.api_key_source);
    }
  zot_provider_resolve_config (&config);

  provider = zot_provider_new_for_config (&config, error);
  if (provider == NULL)
    return FALSE;

  /* The reasoning level and the retries are the user's, not the model's:
   * they carry over. */
  zot_provider_set_reasoning (provider, zot_provider_get_reasoning (zot_agent_get_provider (self->agent)));
  zot_provider_set_max_retries (provider,
                                zot_provider_get_max_retries (zot_agent_get_provider (self->agent)));
  zot_agent_set_provider (self->agent, provider);
  update_model (self);
  return TRUE;
}

gboolean
zot_host_set_model (ZotHost     *self,
                    const char  *provider_name,
                    const char  *model,
                    GError     **error)
{
  ZotProvider *current;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  current = zot_agent_get_provider (self->agent);

  if (provider_name == NULL || g_str_equal (provider_name, zot_provider_get_name (current)))
    {
      zot_provider_set_model (current, model);
      zot_agent_reset_system_prompt (self->agent);
      update_model (self);
      return TRUE;
    }

  return install_provider (self, provider_name, model, NULL, error);
}

/* The provider in use again (same name and model), with the host's
 * current base URL, and @api_key or else the key it would pick. */
static gboolean
rebuild_provider (ZotHost     *self,
                  const char  *api_key,
                  GError     **error)
{
  ZotProvider *current = zot_agent_get_provider (self->agent);

  return install_provider (self, zot_provider_get_name (current), zot_provider_get_model (current),
                           api_key, error);
}

/**
 * zot_host_set_base_url:
 * @base_url: (nullable): the API root of a compatible server, %NULL or ""
 *   for the default
 *
 * Points the providers that talk to compatible servers (the table's
 * compatible_servers: the OpenAI-compatible one) elsewhere from now on:
 * the one in use at once, the next switch to one otherwise. A run in
 * progress finishes with the provider it started with. On error nothing
 * changes.
 */
gboolean
zot_host_set_base_url (ZotHost     *self,
                       const char  *base_url,
                       GError     **error)
{
  g_autofree char *before = NULL;
  const ZotProviderInfo *info;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  before = g_steal_pointer (&self->options.provider.base_url);
  self->options.provider.base_url = base_url != NULL && *base_url != '\0' ? g_strdup (base_url) : NULL;

  info = zot_provider_table_lookup (zot_provider_get_name (zot_agent_get_provider (self->agent)));
  if (info == NULL || !info->compatible_servers)
    return TRUE;

  if (!rebuild_provider (self, NULL, error))
    {
      g_free (self->options.provider.base_url);
      self->options.provider.base_url = g_steal_pointer (&before);
      return FALSE;
    }

  return TRUE;
}

/**
 * zot_host_set_api_key:
 * @provider: the provider the key is for
 * @api_key: the key
 *
 * Uses @api_key for @provider from now on: at once when @provider is in
 * use, replacing a key given on the command line for it. A switch to
 * another provider later takes that one's key from the environment, as it
 * did. On error nothing changes.
 */
gboolean
zot_host_set_api_key (ZotHost     *self,
                      const char  *provider,
                      const char  *api_key,
                      GError     **error)
{
  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);
  g_return_val_if_fail (provider != NULL, FALSE);
  g_return_val_if_fail (api_key != NULL, FALSE);

  if (g_str_equal (zot_provider_get_name (zot_agent_get_provider (self->agent)), provider) &&
      !rebuild_provider (self, api_key, error))
    return FALSE;

  if (g_strcmp0 (provider, self->options.provider.name) == 0)
    {
      g_free (self->options.provider.api_key);
      g_free (self->options.provider.api_key_source);
      self->options.provider.api_key = g_strdup (api_key);
      self->options.provider.api_key_source = g_strdup (_("the key set in Preferences"));
    }

  return TRUE;
}
