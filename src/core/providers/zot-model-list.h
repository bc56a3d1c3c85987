/* zot-model-list.h — the models a provider's server has, as its list
 * endpoint says, kept for a day.
 *
 * `zot models` and the window's model picker ask for a provider's list
 * here: the OpenAI-compatible servers' `GET {base}/models`, Anthropic's
 * `/v1/models`, Gemini's `/v1beta/models` (the path is the table row's
 * quirks.models_path). The answer is bounded in time, size and count, and
 * saved per provider under the cache folder; when the server cannot be
 * reached or refuses, the saved list stands in and says how old it is.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-provider.h"

G_BEGIN_DECLS

/**
 * ZotModelList:
 * @provider: the provider's name
 * @url: the list's URL
 * @ids: (element-type utf8): the model ids, sorted, each once
 * @fetched_at: when the server gave the list, in seconds since 1970
 * @cached: it was read from the cache, not from the server just now
 * @truncated: the server listed more than %ZOT_MODEL_LIST_MAX_MODELS; the
 *   rest were dropped
 * @fetch_error: (nullable): why the server did not give the list, when
 *   the cache stands in for it
 *
 * A provider's models.
 */
typedef struct
{
  char       *provider;
  char       *url;
  GPtrArray  *ids;
  gint64      fetched_at;
  gboolean    cached;
  gboolean    truncated;
  char       *fetch_error;
  /*< private >*/
  GHashTable *user_ids;
} ZotModelList;

/**
 * ZotModelListFlags:
 * @ZOT_MODEL_LIST_NONE: a list cached within the day is taken as it is
 * @ZOT_MODEL_LIST_REFRESH: the server is asked even so
 */
typedef enum
{
  ZOT_MODEL_LIST_NONE    = 0,
  ZOT_MODEL_LIST_REFRESH = 1 << 0,
} ZotModelListFlags;

void          zot_model_list_fetch_async     (const ZotProviderConfig  *config,
                                              ZotModelListFlags         flags,
                                              GCancellable             *cancellable,
                                              GAsyncReadyCallback       callback,
                                              gpointer                  user_data);
ZotModelList *zot_model_list_fetch_finish    (GAsyncResult             *result,
                                              GError                  **error);

void          zot_model_list_merge           (ZotModelList             *self,
                                              const char * const       *user_ids);
gboolean      zot_model_list_is_user_model   (ZotModelList             *self,
                                              const char               *id);
char         *zot_model_list_describe_age    (ZotModelList             *self);
JsonObject   *zot_model_list_to_json         (ZotModelList             *self);
void          zot_model_list_free            (ZotModelList             *self);

char         *zot_model_list_get_cache_file  (const char               *provider);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotModelList, zot_model_list_free)

G_END_DECLS
