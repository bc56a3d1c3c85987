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

/* Azure's generally available API version of late 2025; a base URL with
 * its own ?api-version= picks another. */
#define ZOT_AZURE_API_VERSION "2024-10-21"

/* OpenRouter's attribution headers: the program, never the user. */
static const char * const openrouter_headers[] = {
  "HTTP-Referer", "https://zot.dev/",
  "X-Title", "Zot Desktop",
  NULL
};

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
    .quirks = { .auth = ZOT_PROVIDER_AUTH_ANTHROPIC, .models_path = "/v1/models?limit=1000" },
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
    .quirks = { .auth = ZOT_PROVIDER_AUTH_GOOGLE, .models_path = "/v1beta/models?pageSize=1000" },
  },
  /* The services below speak OpenAI's Chat Completions API, each with its
   * quirks; their models are whatever `zot models` lists. */
  {
    .name = "openrouter",
    .label = N_("OpenRouter"),
    .key_variable = "OPENROUTER_API_KEY",
    .default_model = "anthropic/claude-sonnet-4.5",
    .accepts_base_url = TRUE,
    .default_base_url = "https://openrouter.ai/api/v1",
    .new_func = zot_openai_provider_new,
    /* It ranks apps by these two; they name the program, nothing else. */
    .quirks = { .headers = openrouter_headers },
  },
  {
    .name = "groq",
    .label = N_("Groq"),
    .key_variable = "GROQ_API_KEY",
    .default_model = "llama-3.3-70b-versatile",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.groq.com/openai/v1",
    .new_func = zot_openai_provider_new,
    .quirks = { .max_completion_tokens = TRUE, .no_reasoning_effort = TRUE },
  },
  {
    .name = "mistral",
    .label = N_("Mistral"),
    .key_variable = "MISTRAL_API_KEY",
    .default_model = "mistral-large-latest",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.mistral.ai/v1",
    .new_func = zot_openai_provider_new,
    .quirks = {
      .no_stream_options = TRUE,
      .no_reasoning_effort = TRUE,
      .tool_result_name = TRUE,
      .short_tool_ids = TRUE,
    },
  },
  {
    .name = "deepseek",
    .label = N_("DeepSeek"),
    .key_variable = "DEEPSEEK_API_KEY",
    .default_model = "deepseek-chat",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.deepseek.com/v1",
    .new_func = zot_openai_provider_new,
    .quirks = { .no_reasoning_effort = TRUE },
  },
  {
    .name = "xai",
    .label = N_("xAI"),
    .key_variable = "XAI_API_KEY",
    .default_model = "grok-4",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.x.ai/v1",
    .new_func = zot_openai_provider_new,
    /* grok-4 reasons always and refuses the effort field. */
    .quirks = { .max_completion_tokens = TRUE, .no_reasoning_effort = TRUE },
  },
  {
    .name = "together",
    .label = N_("Together AI"),
    .key_variable = "TOGETHER_API_KEY",
    .default_model = "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.together.xyz/v1",
    .new_func = zot_openai_provider_new,
    .quirks = { .no_reasoning_effort = TRUE },
  },
  {
    .name = "fireworks",
    .label = N_("Fireworks AI"),
    .key_variable = "FIREWORKS_API_KEY",
    .default_model = "accounts/fireworks/models/llama-v3p3-70b-instruct",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.fireworks.ai/inference/v1",
    .new_func = zot_openai_provider_new,
    .quirks = { .no_reasoning_effort = TRUE },
  },
  {
    .name = "cerebras",
    .label = N_("Cerebras"),
    .key_variable = "CEREBRAS_API_KEY",
    .default_model = "llama-3.3-70b",
    .accepts_base_url = TRUE,
    .default_base_url = "https://api.cerebras.ai/v1",
    .new_func = zot_openai_provider_new,
    .quirks = { .max_completion_tokens = TRUE, .no_stream_options = TRUE, .no_reasoning_effort = TRUE },
  },
  {
    .name = "azure",
    .label = N_("Azure OpenAI"),
    .key_variable = "AZURE_API_KEY",
    /* The deployment in the URL picks the model; the field is ignored. */
    .default_model = "gpt-4o-mini",
    .accepts_base_url = TRUE,
    .new_func = zot_openai_provider_new,
    .quirks = {
      .auth = ZOT_PROVIDER_AUTH_API_KEY,
      .query = "api-version=" ZOT_AZURE_API_VERSION,
      .max_completion_tokens = TRUE,
      .needs_base_url = TRUE,
    },
  },
  /* Servers on this machine: no key, a default URL the user may change. */
  {
    .name = "ollama",
    .label = N_("Ollama"),
    .default_model = "llama3.2",
    .accepts_base_url = TRUE,
    .default_base_url = "http://localhost:11434/v1",
    .compatible_servers = TRUE,
    .local = TRUE,
    .new_func = zot_openai_provider_new,
    .quirks = { .no_reasoning_effort = TRUE },
  },
  {
    .name = "lmstudio",
    .label = N_("LM Studio"),
    /* It answers with the model it has loaded whatever the name. */
    .default_model = "local-model",
    .accepts_base_url = TRUE,
    .default_base_url = "http://localhost:1234/v1",
    .compatible_servers = TRUE,
    .local = TRUE,
    .new_func = zot_openai_provider_new,
    .quirks = { .no_reasoning_effort = TRUE },
  },
  {
    .name = "llamacpp",
    .label = N_("llama.cpp server"),
    /* llama-server serves the one model it was started with. */
    .default_model = "default",
    .accepts_base_url = TRUE,
    .default_base_url = "http://localhost:8080/v1",
    .compatible_servers = TRUE,
    .local = TRUE,
    .new_func = zot_openai_provider_new,
    .quirks = { .no_reasoning_effort = TRUE },
  },
  {
    .name = "vllm",
    .label = N_("vLLM"),
    /* vLLM wants the served name; `zot models --provider vllm` says it. */
    .default_model = "default",
    .accepts_base_url = TRUE,
    .default_base_url = "http://localhost:8000/v1",
    .compatible_servers = TRUE,
    .local = TRUE,
    .new_func = zot_openai_provider_new,
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
