/* zot-provider-table.c — the providers.
 *
 * Their models' limits and prices are data, in data/models/models.json
 * (see zot-model-facts.c).
 */
#define G_LOG_DOMAIN "zot-provider"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-anthropic-provider.h"
#include "zot-demo-provider.h"
#include "zot-gemini-provider.h"
#include "zot-openai-provider.h"
#include "zot-provider-table.h"

static ZotProvider *
new_demo (const ZotProviderConfig  *config,
          GError                  **error)
{
  return zot_demo_provider_new ();
}

static const ZotProviderInfo providers[] = {
  {
    .name = "anthropic",
    .label = N_("Anthropic"),
    .key_variable = "ANTHROPIC_API_KEY",
    .default_model = "claude-sonnet-4-5",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.anthropic.com",
    .new_func = zot_anthropic_provider_new,
  },
  {
    .name = "openai",
    /* Translators: a provider: any server that speaks OpenAI's API, such as a local one */
    .label = N_("OpenAI-compatible"),
    .key_variable = "OPENAI_API_KEY",
    .default_model = "gpt-4o-mini",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.openai.com/v1",
    .compatible_servers = TRUE,
    .new_func = zot_openai_provider_new,
  },
  {
    .name = "gemini",
    .label = N_("Google Gemini"),
    .key_variable = "GEMINI_API_KEY",
    .default_model = "gemini-2.5-flash",
    .accepts_base_url = TRUE,
    .default_base_url = "https://generativelanguage.googleapis.com",
    .new_func = zot_gemini_provider_new,
  },
  {
    .name = "demo",
    /* Translators: the name of the built-in offline model, which answers with canned text and
     * needs no API key */
    .label = N_("Demo"),
    .default_model = "demo",
    .offline = TRUE,
    .new_func = new_demo,
  },
};

/* Keys of providers that other agents use and this host does not: a user
 * may have them set, and they are kept from children all the same. */
static const struct
{
  const char *name;
  const char *key_variable;
} other_keys[] = {
  { "google", "GOOGLE_API_KEY" },
};

/**
 * zot_provider_table_get_n_providers:
 *
 * Returns: how many providers there are
 */
guint
zot_provider_table_get_n_providers (void)
{
  return G_N_ELEMENTS (providers);
}

/**
 * zot_provider_table_get_nth:
 * @index: below zot_provider_table_get_n_providers()
 *
 * Returns: (transfer none): the row, in table order
 */
const ZotProviderInfo *
zot_provider_table_get_nth (guint index)
{
  g_return_val_if_fail (index < G_N_ELEMENTS (providers), NULL);

  return &providers[index];
}

/**
 * zot_provider_table_lookup:
 * @name: (nullable): a provider name, such as "openai"
 *
 * Returns: (transfer none) (nullable): its row, or %NULL
 */
const ZotProviderInfo *
zot_provider_table_lookup (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (providers); i++)
    if (g_str_equal (name, providers[i].name))
      return &providers[i];
  return NULL;
}

/**
 * zot_provider_table_describe_names:
 *
 * Returns: (transfer full): the names for a message, "anthropic, openai
 *   or demo"
 */
char *
zot_provider_table_describe_names (void)
{
  g_autoptr(GString) head = g_string_new (NULL);
  guint last = G_N_ELEMENTS (providers) - 1;

  if (last == 0)
    return g_strdup (providers[0].name);

  for (guint i = 0; i < last; i++)
    {
      if (i > 0)
        g_string_append (head, ", ");
      g_string_append (head, providers[i].name);
    }

  /* Translators: the end of a list of names, "anthropic, openai or demo" */
  return g_strdup_printf (_("%s or %s"), head->str, providers[last].name);
}

/**
 * zot_provider_table_lookup_checked:
 * @name: a provider name
 *
 * Returns: (transfer none) (nullable): its row, or %NULL with
 *   %ZOT_PROVIDER_ERROR_CONFIG naming the providers there are
 */
const ZotProviderInfo *
zot_provider_table_lookup_checked (const char  *name,
                                   GError     **error)
{
  const ZotProviderInfo *info = zot_provider_table_lookup (name);
  g_autofree char *names = NULL;

  if (info != NULL)
    return info;

  names = zot_provider_table_describe_names ();
  g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
               _("unknown provider \"%s\"; use %s"), name != NULL ? name : "", names);
  return NULL;
}

/**
 * zot_provider_table_get_fallback:
 *
 * Returns: (transfer none): the first offline row: what runs when no key
 *   is found
 */
const ZotProviderInfo *
zot_provider_table_get_fallback (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    if (providers[i].offline)
      return &providers[i];

  g_return_val_if_reached (NULL);
}

/**
 * zot_provider_table_get_key_variables:
 *
 * Every provider key variable: those of the rows, then those of providers
 * this host does not have but a user may have set (GOOGLE_API_KEY). None
 * of them reaches a child process unless the user allows it.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names
 */
const char * const *
zot_provider_table_get_key_variables (void)
{
  static const char **variables;

  if (g_once_init_enter (&variables))
    {
      GPtrArray *all = g_ptr_array_new ();

      for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
        if (providers[i].key_variable != NULL)
          g_ptr_array_add (all, (gpointer) providers[i].key_variable);
      for (guint i = 0; i < G_N_ELEMENTS (other_keys); i++)
        g_ptr_array_add (all, (gpointer) other_keys[i].key_variable);
      g_ptr_array_add (all, NULL);

      g_once_init_leave (&variables, (const char **) g_ptr_array_free (all, FALSE));
    }

  return variables;
}

/**
 * zot_provider_table_get_key_variable:
 * @name: a provider name, of a row or of another agent's provider
 *   ("google")
 *
 * Returns: (nullable): the variable its key comes from
 */
const char *
zot_provider_table_get_key_variable (const char *name)
{
  const ZotProviderInfo *info = zot_provider_table_lookup (name);

  if (info != NULL)
    return info->key_variable;

  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (other_keys); i++)
    if (g_str_equal (name, other_keys[i].name))
      return other_keys[i].key_variable;
  return NULL;
}

/**
 * zot_provider_info_get_label:
 *
 * Returns: the row's label, translated
 */
const char *
zot_provider_info_get_label (const ZotProviderInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);

  return _(info->label);
}
