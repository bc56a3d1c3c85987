/* zot-provider-table.h — what the host knows about each provider and its
 * models, in one place.
 *
 * One row per provider: the name used on the command line, in settings and
 * in the keyring, the label the window shows, the variable its key comes
 * from, its default model, whether it takes a base URL and how to make
 * one. Everything that lists providers or names a key variable reads it
 * from here: a new provider is its own file plus its row, and a new
 * service speaking an API the host has (OpenAI's, mostly) is one row, its
 * departures from that API in the row's quirks (docs/providers.md). What
 * its models can do and cost is zot-model-facts.h.
 */
#pragma once

#include <gio/gio.h>

#include "zot-model-facts.h"
#include "zot-provider.h"

G_BEGIN_DECLS

/**
 * ZotProviderAuth:
 * @ZOT_PROVIDER_AUTH_BEARER: `Authorization: Bearer KEY`
 * @ZOT_PROVIDER_AUTH_API_KEY: `api-key: KEY` (Azure OpenAI)
 * @ZOT_PROVIDER_AUTH_ANTHROPIC: `x-api-key: KEY` with `anthropic-version`
 * @ZOT_PROVIDER_AUTH_GOOGLE: `x-goog-api-key: KEY`
 *
 * How a provider's API takes its key; the OpenAI provider reads the first
 * two, the list of models (zot-model-list.c) all of them.
 */
typedef enum
{
  ZOT_PROVIDER_AUTH_BEARER,
  ZOT_PROVIDER_AUTH_API_KEY,
  ZOT_PROVIDER_AUTH_ANTHROPIC,
  ZOT_PROVIDER_AUTH_GOOGLE,
} ZotProviderAuth;

/**
 * ZotProviderQuirks:
 * @auth: how the key is sent
 * @headers: (nullable) (array zero-terminated=1): more headers, name then
 *   value, sent with every request (OpenRouter's HTTP-Referer and X-Title)
 * @query: (nullable): a query appended to every URL, "api-version=…"
 *   (Azure); one the base URL carries itself wins
 * @no_stream_options: the server refuses `stream_options` (and so reports
 *   usage without being asked, or not at all)
 * @max_completion_tokens: the output limit goes in `max_completion_tokens`
 *   rather than the older `max_tokens`
 * @no_reasoning_effort: the server refuses `reasoning_effort`
 * @tool_result_name: each "tool" message also names its tool (Mistral
 *   wants the `name`)
 * @short_tool_ids: tool call ids must be nine letters or digits
 *   (Mistral): the ids of other providers are mapped to such, the same
 *   way every time so that a call and its result still match
 * @needs_base_url: there is no default API root; the user names theirs
 *   (Azure's deployment URL)
 * @models_path: (nullable): the path of the list of models under the
 *   base URL, "/models" when %NULL
 *
 * What sets an OpenAI-compatible server apart from OpenAI's own API; the
 * OpenAI provider reads these instead of asking which server it talks to.
 */
typedef struct
{
  ZotProviderAuth     auth;
  const char * const *headers;
  const char         *query;
  gboolean            no_stream_options;
  gboolean            max_completion_tokens;
  gboolean            no_reasoning_effort;
  gboolean            tool_result_name;
  gboolean            short_tool_ids;
  gboolean            needs_base_url;
  const char         *models_path;
} ZotProviderQuirks;

/**
 * ZotProviderNewFunc:
 * @config: a resolved configuration (zot_provider_resolve_config())
 *
 * Returns: (transfer full) (nullable): the provider, or %NULL with
 *   %ZOT_PROVIDER_ERROR_CONFIG
 */
typedef ZotProvider *(*ZotProviderNewFunc) (const ZotProviderConfig  *config,
                                            GError                  **error);

/**
 * ZotProviderInfo:
 * @name: the id: `--provider NAME`, the "provider" setting, the keyring's
 *   attribute, what zot_provider_get_name() returns
 * @label: the name the window shows, marked with N_() (see
 *   zot_provider_info_get_label())
 * @key_variable: (nullable): the environment variable its key comes from;
 *   %NULL when it needs none
 * @default_model: the model when none is given; one of data/models/models.json
 *   when it lists the provider's models
 * @accepts_base_url: whether `--base-url` points it elsewhere
 * @default_base_url: (nullable): its API root otherwise; %NULL when it
 *   takes none
 * @compatible_servers: whether a base URL makes it a client of any server
 *   speaking the same API (ollama, llama.cpp, vLLM): with one its key is
 *   optional, and the window offers the base URL for it
 * @offline: it answers without a network or a key: the pick when no key
 *   is found, and the window says plainly that it is a demo
 * @new_func: makes one
 * @quirks: how its API departs from the one its provider speaks (only the
 *   OpenAI-compatible rows have any)
 * @local: a server on this machine: no key, a local default URL
 *
 * One row of the table. Automatic choice (zot_provider_resolve_config())
 * tries the rows with a key variable in table order, then takes the first
 * offline one.
 */
typedef struct
{
  const char          *name;
  const char          *label;
  const char          *key_variable;
  const char          *default_model;
  gboolean             accepts_base_url;
  const char          *default_base_url;
  gboolean             compatible_servers;
  gboolean             offline;
  ZotProviderNewFunc   new_func;
  ZotProviderQuirks    quirks;
  gboolean             local;
} ZotProviderInfo;

guint                  zot_provider_table_get_n_providers   (void);
const ZotProviderInfo *zot_provider_table_get_nth           (guint                   index);
const ZotProviderInfo *zot_provider_table_lookup            (const char             *name);
const ZotProviderInfo *zot_provider_table_lookup_checked    (const char             *name,
                                                             GError                **error);
const ZotProviderInfo *zot_provider_table_get_fallback      (void);
char                  *zot_provider_table_describe_names    (void);
const char * const    *zot_provider_table_get_key_variables (void);
const char            *zot_provider_table_get_key_variable  (const char             *name);

const char            *zot_provider_info_get_label          (const ZotProviderInfo  *info);

G_END_DECLS
