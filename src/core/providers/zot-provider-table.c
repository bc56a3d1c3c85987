/* zot-provider-table.c — the providers and their models.
 *
 * THE MODEL ROWS ARE A TABLE TO UPDATE. Context windows, output limits and
 * prices are the figures Anthropic, OpenAI and Google published for each
 * model as of late 2025 (standard tier, no batch discounts, prompts within
 * the base context window), with the prices of prompt-cache reads and
 * writes. Vendors change them; when they do, change the
 * rows here and nothing else. A model missing from a table still works: it
 * is only priced at 0 and listed without limits.
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

/* https://docs.anthropic.com/en/docs/about-claude/models and /pricing */
static const ZotModelInfo anthropic_models[] = {
  /* Cache reads cost a tenth of input, 5-minute cache writes 1.25 times it.
   * id                         context  output  reasoning  $ in   $ out  $ c.read  $ c.write */
  { "claude-opus-4-5",          200000,  64000,  TRUE,       5.00, 25.00,  0.50,     6.25 },
  { "claude-opus-4-1",          200000,  32000,  TRUE,      15.00, 75.00,  1.50,    18.75 },
  { "claude-opus-4-0",          200000,  32000,  TRUE,      15.00, 75.00,  1.50,    18.75 },
  { "claude-sonnet-4-5",        200000,  64000,  TRUE,       3.00, 15.00,  0.30,     3.75 },
  { "claude-sonnet-4-0",        200000,  64000,  TRUE,       3.00, 15.00,  0.30,     3.75 },
  { "claude-3-7-sonnet-latest", 200000,  64000,  TRUE,       3.00, 15.00,  0.30,     3.75 },
  { "claude-haiku-4-5",         200000,  64000,  TRUE,       1.00,  5.00,  0.10,     1.25 },
  { "claude-3-5-haiku-latest",  200000,   8192,  FALSE,      0.80,  4.00,  0.08,     1.00 },
};

/* https://platform.openai.com/docs/models and /pricing */
static const ZotModelInfo openai_models[] = {
  /* Caching is automatic: cached input has its price, writing costs
   * nothing extra.
   * id              context  output  reasoning  $ in   $ out  $ c.read  $ c.write */
  { "gpt-5",          400000, 128000, TRUE,       1.25, 10.00,  0.125,    0.0 },
  { "gpt-5-mini",     400000, 128000, TRUE,       0.25,  2.00,  0.025,    0.0 },
  { "gpt-5-nano",     400000, 128000, TRUE,       0.05,  0.40,  0.005,    0.0 },
  { "gpt-4.1",       1047576,  32768, FALSE,      2.00,  8.00,  0.50,     0.0 },
  { "gpt-4.1-mini",  1047576,  32768, FALSE,      0.40,  1.60,  0.10,     0.0 },
  { "gpt-4.1-nano",  1047576,  32768, FALSE,      0.10,  0.40,  0.025,    0.0 },
  { "gpt-4o",         128000,  16384, FALSE,      2.50, 10.00,  1.25,     0.0 },
  { "gpt-4o-mini",    128000,  16384, FALSE,      0.15,  0.60,  0.075,    0.0 },
  { "o3",             200000, 100000, TRUE,       2.00,  8.00,  0.50,     0.0 },
  { "o4-mini",        200000, 100000, TRUE,       1.10,  4.40,  0.275,    0.0 },
};

/* https://ai.google.dev/gemini-api/docs/models and /pricing; the prices
 * of prompts up to 200k tokens where they are tiered. */
static const ZotModelInfo gemini_models[] = {
  /* Cached input at the context-caching price; the cache's storage is
   * billed by the hour, not per request, and is not counted.
   * id                       context  output  reasoning  $ in   $ out  $ c.read  $ c.write */
  { "gemini-3-pro-preview",   1048576, 65536,  TRUE,       2.00, 12.00,  0.20,     0.0 },
  { "gemini-2.5-pro",         1048576, 65536,  TRUE,       1.25, 10.00,  0.125,    0.0 },
  { "gemini-2.5-flash",       1048576, 65536,  TRUE,       0.30,  2.50,  0.03,     0.0 },
  { "gemini-2.5-flash-lite",  1048576, 65536,  TRUE,       0.10,  0.40,  0.01,     0.0 },
  { "gemini-2.0-flash",       1048576,  8192,  FALSE,      0.10,  0.40,  0.025,    0.0 },
  { "gemini-2.0-flash-lite",  1048576,  8192,  FALSE,      0.075, 0.30,  0.01875,  0.0 },
};

/* Offline and free; any model name is taken (demo-2 and so on). */
static const ZotModelInfo demo_models[] = {
  { "demo", 0, 0, FALSE, 0.0, 0.0, 0.0, 0.0 },
};

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
    .models = anthropic_models,
    .n_models = G_N_ELEMENTS (anthropic_models),
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
    .models = openai_models,
    .n_models = G_N_ELEMENTS (openai_models),
  },
  {
    .name = "gemini",
    .label = N_("Google Gemini"),
    .key_variable = "GEMINI_API_KEY",
    .default_model = "gemini-2.5-flash",
    .accepts_base_url = TRUE,
    .default_base_url = "https://generativelanguage.googleapis.com",
    .new_func = zot_gemini_provider_new,
    .models = gemini_models,
    .n_models = G_N_ELEMENTS (gemini_models),
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
    .models = demo_models,
    .n_models = G_N_ELEMENTS (demo_models),
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

/* A dated snapshot of @id: "claude-sonnet-4-5-20250929",
 * "gpt-4o-mini-2024-07-18". */
static gboolean
is_snapshot_of (const char *model,
                const char *id)
{
  gsize len = strlen (id);

  return strncmp (model, id, len) == 0 && model[len] == '-' && g_ascii_isdigit (model[len + 1]);
}

/**
 * zot_provider_info_find_model:
 * @model: (nullable): a model id
 *
 * Finds @model in the row's sub-table, or the model it is a dated
 * snapshot of.
 *
 * Returns: (transfer none) (nullable): its row, or %NULL when unknown
 */
const ZotModelInfo *
zot_provider_info_find_model (const ZotProviderInfo *info,
                              const char            *model)
{
  const ZotModelInfo *best = NULL;

  g_return_val_if_fail (info != NULL, NULL);

  if (model == NULL)
    return NULL;

  for (guint i = 0; i < info->n_models; i++)
    if (g_str_equal (model, info->models[i].id))
      return &info->models[i];

  for (guint i = 0; i < info->n_models; i++)
    if (is_snapshot_of (model, info->models[i].id) &&
        (best == NULL || strlen (info->models[i].id) > strlen (best->id)))
      best = &info->models[i];

  return best;
}

/**
 * zot_model_info_lookup:
 * @provider: (nullable): a provider name
 * @model: (nullable): a model id
 *
 * Returns: (transfer none) (nullable): the model's row, or %NULL
 */
const ZotModelInfo *
zot_model_info_lookup (const char *provider,
                       const char *model)
{
  const ZotProviderInfo *info = zot_provider_table_lookup (provider);

  return info != NULL ? zot_provider_info_find_model (info, model) : NULL;
}

/**
 * zot_model_info_get_cost:
 * @model: (nullable): a model row, %NULL for an unknown model
 * @input_tokens: as reported; negative when unknown
 * @output_tokens: as reported; negative when unknown
 *
 * Returns: what the tokens cost in US dollars; 0 for an unknown model or
 *   count
 */
double
zot_model_info_get_cost (const ZotModelInfo *model,
                         gint64              input_tokens,
                         gint64              output_tokens)
{
  if (model == NULL)
    return 0.0;

  return (MAX (input_tokens, 0) * model->input_price +
          MAX (output_tokens, 0) * model->output_price) / 1e6;
}

/**
 * zot_model_info_get_price:
 * @model: (nullable): a model row, %NULL for an unknown model
 * @counts: the tokens of one call
 *
 * Returns: what the call cost in US dollars, cache reads and writes at
 *   their prices; 0 for an unknown model
 */
double
zot_model_info_get_price (const ZotModelInfo   *model,
                          const ZotTokenCounts *counts)
{
  g_return_val_if_fail (counts != NULL, 0.0);

  if (model == NULL)
    return 0.0;

  return (MAX (counts->input, 0) * model->input_price +
          MAX (counts->output, 0) * model->output_price +
          MAX (counts->cache_read, 0) * model->cache_read_price +
          MAX (counts->cache_write, 0) * model->cache_write_price) / 1e6;
}
