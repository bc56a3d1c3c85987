/* zot-provider-table.h — what the host knows about each provider and its
 * models, in one place.
 *
 * One row per provider: the name used on the command line, in settings and
 * in the keyring, the label the window shows, the variable its key comes
 * from, its default model, whether it takes a base URL and how to make
 * one. Everything that lists providers or names a key variable reads it
 * from here: a new provider is its own file plus its row. What its models
 * can do and cost is zot-model-facts.h.
 */
#pragma once

#include <gio/gio.h>

#include "zot-model-facts.h"
#include "zot-provider.h"

G_BEGIN_DECLS

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
