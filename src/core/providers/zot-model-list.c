/* zot-model-list.c — a provider's list of models, fetched and cached.
 *
 * The whole fetch runs in a worker thread with its own blocking libsoup
 * session: read the cache, ask the server when the cache is older than a
 * day (or a refresh was asked for), write the answer back. The caller's
 * main loop only holds the deadline: a timer that cancels the worker's
 * I/O after %ZOT_TIMEOUT_MODEL_LIST, as the caller's cancellable does.
 */
#define G_LOG_DOMAIN "zot-models"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-model-list.h"
#include "zot-paths.h"
#include "zot-provider-table.h"

/* How much of a refusal's body goes into the message. */
#define ERROR_BODY_MAX_BYTES 4096

typedef struct
{
  const ZotProviderInfo *info;
  char                  *url;
  char                  *api_key;
  char                  *key_hint;
  ZotModelListFlags      flags;
  GCancellable          *io_cancellable;  /* the worker's: deadline or caller */
  gulong                 cancelled_id;
  GCancellable          *caller_cancellable;
  GSource               *deadline;
  gint                   timed_out;
} Fetch;

static void
fetch_free (gpointer user_data)
{
  Fetch *fetch = user_data;

  if (fetch->deadline != NULL)
    {
      g_source_destroy (fetch->deadline);
      g_source_unref (fetch->deadline);
    }
  if (fetch->caller_cancellable != NULL)
    g_cancellable_disconnect (fetch->caller_cancellable, fetch->cancelled_id);
  g_clear_object (&fetch->caller_cancellable);
  g_clear_object (&fetch->io_cancellable);
  g_free (fetch->url);
  g_free (fetch->api_key);
  g_free (fetch->key_hint);
  g_free (fetch);
}

static ZotModelList *
model_list_new (const char *provider,
                const char *url)
{
  ZotModelList *self = g_new0 (ZotModelList, 1);

  self->provider = g_strdup (provider);
  self->url = g_strdup (url);
  self->ids = g_ptr_array_new_with_free_func (g_free);
  self->user_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return self;
}

/**
 * zot_model_list_free:
 */
void
zot_model_list_free (ZotModelList *self)
{
  if (self == NULL)
    return;

  g_free (self->provider);
  g_free (self->url);
  g_ptr_array_unref (self->ids);
  g_free (self->fetch_error);
  g_hash_table_unref (self->user_ids);
  g_free (self);
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Sorted, each once. */
static void
sort_ids (GPtrArray *ids)
{
  guint kept = 0;

  g_ptr_array_sort (ids, compare_ids);
  for (guint i = 0; i < ids->len; i++)
    {
      if (kept > 0 && g_str_equal (g_ptr_array_index (ids, kept - 1), g_ptr_array_index (ids, i)))
        {
          g_free (g_ptr_array_index (ids, i));
          continue;
        }
      ids->pdata[kept++] = ids->pdata[i];
    }
  ids->len = kept;
}

/* ------------------------------------------------------------------ */
/* Where the list is and what it says                                  */
/* ------------------------------------------------------------------ */

/* The base URL without trailing slashes, then the row's path, then the
 * queries of both (Azure's api-version, Anthropic's page size). */
static char *
build_url (const ZotProviderInfo *info,
           const char            *base_url)
{
  const char *path = info->quirks.models_path != NULL ? info->quirks.models_path : "/models";
  const char *mark = strchr (base_url, '?');
  g_autofree char *base = mark != NULL ? g_strndup (base_url, mark - base_url) : g_strdup (base_url);
  const char *base_query = mark != NULL ? mark + 1 : info->quirks.query;
  const char *path_mark = strchr (path, '?');
  g_autofree char *path_only = path_mark != NULL ? g_strndup (path, path_mark - path) : g_strdup (path);
  GString *url;
  gsize len = strlen (base);

  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';

  url = g_string_new (base);
  g_string_append (url, path_only);
  if (base_query != NULL && *base_query != '\0')
    g_string_append_printf (url, "?%s", base_query);
  if (path_mark != NULL)
    g_string_append_printf (url, "%s%s", strchr (url->str, '?') != NULL ? "&" : "?", path_mark + 1);
  return g_string_free (url, FALSE);
}

/* The ids of an answer: `data[].id` (OpenAI, Anthropic and the servers
 * like them) or `models[].name` less its "models/" (Gemini, which also
 * lists models that cannot chat: those are left out). */
static ZotModelList *
parse_list (const ZotProviderInfo  *info,
            const char             *url,
            const char             *data,
            gsize                   length,
            GError                **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(ZotModelList) list = model_list_new (info->name, url);
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;
  JsonObject *object;
  JsonArray *items;
  gboolean gemini;

  if (!zot_json_parser_load (parser, data, length, &local_error) ||
      !JSON_NODE_HOLDS_OBJECT ((root = json_parser_get_root (parser))))
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the list of models at %s is not a JSON object; is the base URL right?"), url);
      return NULL;
    }

  object = json_node_get_object (root);
  items = zot_json_get_array (object, "data");
  gemini = items == NULL;
  if (gemini)
    items = zot_json_get_array (object, "models");
  if (items == NULL)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the list of models at %s has neither a \"data\" nor a \"models\" array"), url);
      return NULL;
    }

  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonObject *item = zot_json_array_get_object (items, i);
      const char *id = zot_json_get_string (item, gemini ? "name" : "id");
      JsonArray *methods = zot_json_get_array (item, "supportedGenerationMethods");
      gboolean chats = methods == NULL;

      for (guint m = 0; methods != NULL && m < json_array_get_length (methods); m++)
        chats |= g_strcmp0 (json_array_get_string_element (methods, m), "generateContent") == 0;
      if (id == NULL || *id == '\0' || !chats || !g_utf8_validate (id, -1, NULL))
        continue;
      if (gemini && g_str_has_prefix (id, "models/"))
        id += strlen ("models/");

      if (list->ids->len == ZOT_MODEL_LIST_MAX_MODELS)
        {
          list->truncated = TRUE;
          break;
        }
      g_ptr_array_add (list->ids, g_strdup (id));
    }

  sort_ids (list->ids);
  return g_steal_pointer (&list);
}

/* ------------------------------------------------------------------ */
/* The cache                                                           */
/* ------------------------------------------------------------------ */

/**
 * zot_model_list_get_cache_file:
 * @provider: a provider name from the table
 *
 * Returns: (transfer full): where its list is kept:
 *   `$ZOT_HOME/cache/models/NAME.json` when $ZOT_HOME is set, else
 *   `$XDG_CACHE_HOME/zot/models/NAME.json`
 */
char *
zot_model_list_get_cache_file (const char *provider)
{
  const char *home = g_getenv ("ZOT_HOME");
  const char *cache = g_getenv ("XDG_CACHE_HOME");
  g_autofree char *file = g_strconcat (provider, ".json", NULL);

  if (home != NULL && *home != '\0')
    return g_build_filename (home, "cache", "models", file, NULL);
  if (cache != NULL && g_path_is_absolute (cache))
    return g_build_filename (cache, "zot", "models", file, NULL);
  return g_build_filename (g_get_home_dir (), ".cache", "zot", "models", file, NULL);
}

/**
 * zot_model_list_to_json:
 *
 * Returns: (transfer full): `{"provider", "url", "fetched_at", "cached",
 *   "truncated", "error"?, "models": [{"id", "user"}]}`, what
 *   `zot models --json` prints
 */
JsonObject *
zot_model_list_to_json (ZotModelList *self)
{
  JsonObject *object = json_object_new ();
  JsonArray *models = json_array_new ();

  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->ids->len; i++)
    {
      JsonObject *model = json_object_new ();
      const char *id = g_ptr_array_index (self->ids, i);

      json_object_set_string_member (model, "id", id);
      json_object_set_boolean_member (model, "user", zot_model_list_is_user_model (self, id));
      json_array_add_object_element (models, model);
    }

  json_object_set_string_member (object, "provider", self->provider);
  json_object_set_string_member (object, "url", self->url);
  json_object_set_int_member (object, "fetched_at", self->fetched_at);
  json_object_set_boolean_member (object, "cached", self->cached);
  json_object_set_boolean_member (object, "truncated", self->truncated);
  if (self->fetch_error != NULL)
    json_object_set_string_member (object, "error", self->fetch_error);
  json_object_set_array_member (object, "models", models);
  return object;
}

/* The saved list of the same URL, or NULL. */
static ZotModelList *
read_cache (const ZotProviderInfo *info,
            const char            *url)
{
  g_autofree char *path = zot_model_list_get_cache_file (info->name);
  g_autofree char *contents = NULL;
  g_autoptr(ZotModelList) list = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object;
  gsize length;

  if (!zot_file_get_contents_bounded (path, ZOT_MODEL_LIST_MAX_BYTES, &contents, &length, NULL) ||
      !zot_json_parser_load (parser, contents, length, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return NULL;

  object = json_node_get_object (json_parser_get_root (parser));
  if (g_strcmp0 (zot_json_get_string (object, "url"), url) != 0)
    return NULL;

  list = parse_list (info, url, contents, length, NULL);
  if (list == NULL)
    return NULL;
  list->cached = TRUE;
  list->fetched_at = zot_json_get_int_or (object, "fetched_at", 0);
  list->truncated = zot_json_get_boolean_or (object, "truncated", FALSE);
  return g_steal_pointer (&list);
}

/* Written whole or not at all: a reader never sees half a list. */
static void
write_cache (ZotModelList *list)
{
  g_autofree char *path = zot_model_list_get_cache_file (list->provider);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(JsonObject) object = zot_model_list_to_json (list);
  g_autoptr(JsonArray) data = json_array_ref (zot_json_get_array (object, "models"));
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  /* The cache reads like the answer it stands for: `data[].id`. */
  json_object_remove_member (object, "models");
  json_object_remove_member (object, "cached");
  json_object_set_array_member (object, "data", g_steal_pointer (&data));
  text = zot_json_object_to_string (object);

  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    g_debug ("the list of models was not saved in %s: %s", path,
             error != NULL ? error->message : g_strerror (errno));
}

/* ------------------------------------------------------------------ */
/* The server                                                          */
/* ------------------------------------------------------------------ */

static void
add_headers (const Fetch *fetch,
             SoupMessage *message)
{
  SoupMessageHeaders *headers = soup_message_get_request_headers (message);
  const ZotProviderQuirks *quirks = &fetch->info->quirks;

  for (guint i = 0; quirks->headers != NULL && quirks->headers[i] != NULL; i += 2)
    soup_message_headers_replace (headers, quirks->headers[i], quirks->headers[i + 1]);

  if (fetch->api_key == NULL)
    return;

  switch (quirks->auth)
    {
    case ZOT_PROVIDER_AUTH_API_KEY:
      soup_message_headers_replace (headers, "api-key", fetch->api_key);
      break;

    case ZOT_PROVIDER_AUTH_ANTHROPIC:
      soup_message_headers_replace (headers, "x-api-key", fetch->api_key);
      soup_message_headers_replace (headers, "anthropic-version", "2023-06-01");
      break;

    case ZOT_PROVIDER_AUTH_GOOGLE:
      soup_message_headers_replace (headers, "x-goog-api-key", fetch->api_key);
      break;

    case ZOT_PROVIDER_AUTH_BEARER:
    default:
      {
        g_autofree char *bearer = g_strdup_printf ("Bearer %s", fetch->api_key);

        soup_message_headers_replace (headers, "Authorization", bearer);
      }
      break;
    }
}

/* At most @max bytes of @stream; one more means it was larger. */
static GBytes *
read_bounded (GInputStream  *stream,
              gsize          max,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  guint8 buffer[16384];

  while (data->len <= max)
    {
      gssize n = g_input_stream_read (stream, buffer, sizeof buffer, cancellable, error);

      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      g_byte_array_append (data, buffer, n);
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}

/* The message of a refusal: the body's error.message, or its start. */
static char *
refusal_text (GBytes *body)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize size;
  const char *data = g_bytes_get_data (body, &size);
  JsonObject *error_object = NULL;
  const char *message = NULL;
  g_autofree char *text = NULL;

  if (zot_json_parser_load (parser, data, size, NULL) &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      JsonObject *root = json_node_get_object (json_parser_get_root (parser));

      error_object = zot_json_get_object (root, "error");
      message = error_object != NULL ? zot_json_get_string (error_object, "message")
                                     : zot_json_get_string (root, "error");
    }

  text = message != NULL ? g_strdup (message) : g_utf8_make_valid (data, MIN (size, 200));
  return g_strdelimit (g_strstrip (g_steal_pointer (&text)), "\r\n", ' ');
}

static ZotModelList *
fetch_from_server (Fetch   *fetch,
                   GError **error)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options ("user-agent", "zot/" PACKAGE_VERSION,
                                                                  "timeout", 0, NULL);
  g_autoptr(SoupMessage) message = soup_message_new (SOUP_METHOD_GET, fetch->url);
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) local_error = NULL;
  guint status;

  if (message == NULL)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                   _("“%s” is not a URL; check --base-url"), fetch->url);
      return NULL;
    }
  add_headers (fetch, message);

  stream = soup_session_send (session, message, fetch->io_cancellable, &local_error);
  if (stream != NULL)
    body = read_bounded (stream, ZOT_MODEL_LIST_MAX_BYTES, fetch->io_cancellable, &local_error);

  if (body == NULL && g_atomic_int_get (&fetch->timed_out))
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK,
                   _("the list of models at %s did not come within %u seconds"),
                   fetch->url, (zot_timeout_get_ms (ZOT_TIMEOUT_MODEL_LIST) + 999) / 1000);
      return NULL;
    }
  if (body == NULL)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK,
                   _("could not fetch the list of models at %s: %s"), fetch->url, local_error->message);
      return NULL;
    }

  status = soup_message_get_status (message);
  if (status < 200 || status >= 300)
    {
      g_autofree char *text = refusal_text (body);

      if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
        g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH,
                     /* Translators: the URL, the HTTP status, the server's message, how to give a key */
                     _("the list of models at %s was refused (HTTP %u: %s); %s"),
                     fetch->url, status, text, fetch->key_hint);
      else
        g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_HTTP,
                     _("the list of models at %s failed with HTTP %u: %s"), fetch->url, status, text);
      return NULL;
    }

  if (g_bytes_get_size (body) > ZOT_MODEL_LIST_MAX_BYTES)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the list of models at %s is larger than %u MiB"),
                   fetch->url, (guint) (ZOT_MODEL_LIST_MAX_BYTES / (1024 * 1024)));
      return NULL;
    }

  return parse_list (fetch->info, fetch->url, g_bytes_get_data (body, NULL), g_bytes_get_size (body), error);
}

static void
fetch_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Fetch *fetch = task_data;
  g_autoptr(ZotModelList) cached = read_cache (fetch->info, fetch->url);
  g_autoptr(ZotModelList) list = NULL;
  g_autoptr(GError) error = NULL;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;

  if (cached != NULL && !(fetch->flags & ZOT_MODEL_LIST_REFRESH) &&
      cached->fetched_at <= now && now - cached->fetched_at < ZOT_MODEL_LIST_CACHE_SECONDS)
    {
      g_task_return_pointer (task, g_steal_pointer (&cached), (GDestroyNotify) zot_model_list_free);
      return;
    }

  list = fetch_from_server (fetch, &error);
  if (list != NULL)
    {
      list->fetched_at = now;
      write_cache (list);
      g_task_return_pointer (task, g_steal_pointer (&list), (GDestroyNotify) zot_model_list_free);
      return;
    }

  /* The caller gave up: nothing stands in. */
  if (g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Operation was cancelled"));
      return;
    }

  if (cached == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  cached->fetch_error = g_strdup (error->message);
  g_task_return_pointer (task, g_steal_pointer (&cached), (GDestroyNotify) zot_model_list_free);
}

static gboolean
deadline_cb (gpointer user_data)
{
  Fetch *fetch = user_data;

  g_atomic_int_set (&fetch->timed_out, TRUE);
  g_cancellable_cancel (fetch->io_cancellable);
  g_clear_pointer (&fetch->deadline, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void
caller_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

/**
 * zot_model_list_fetch_async:
 * @config: a resolved configuration (zot_provider_resolve_config()): the
 *   provider, its base URL and key
 * @flags: whether a list cached today will do
 * @cancellable: (nullable): stops the fetch
 *
 * Gets the provider's models: from the cache when it is less than
 * %ZOT_MODEL_LIST_CACHE_SECONDS old, else from the server within
 * %ZOT_TIMEOUT_MODEL_LIST, saving what it says. Failing that, the cache of
 * any age, with the failure in its fetch_error. The offline provider
 * lists its table's models.
 */
void
zot_model_list_fetch_async (const ZotProviderConfig  *config,
                            ZotModelListFlags         flags,
                            GCancellable             *cancellable,
                            GAsyncReadyCallback       callback,
                            gpointer                  user_data)
{
  g_autoptr(GTask) task = NULL;
  const ZotProviderInfo *info;
  g_autoptr(GError) error = NULL;
  const char *base;
  Fetch *fetch;

  g_return_if_fail (config != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_model_list_fetch_async);

  info = zot_provider_table_lookup_checked (config->name, &error);
  if (info == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (info->offline)
    {
      ZotModelList *list = model_list_new (info->name, "");
      g_autoptr(GPtrArray) known = zot_model_facts_list (info->name);

      for (guint i = 0; i < known->len; i++)
        g_ptr_array_add (list->ids, g_strdup (((const ZotModelInfo *) known->pdata[i])->id));
      sort_ids (list->ids);
      list->fetched_at = g_get_real_time () / G_USEC_PER_SEC;
      g_task_return_pointer (task, list, (GDestroyNotify) zot_model_list_free);
      return;
    }

  base = config->base_url != NULL && *config->base_url != '\0' ? config->base_url : info->default_base_url;
  if (base == NULL)
    {
      g_task_return_new_error (task, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                               /* Translators: the provider's label */
                               _("%s has no default URL: pass --base-url with yours (see docs/providers.md)"),
                               zot_provider_info_get_label (info));
      return;
    }

  fetch = g_new0 (Fetch, 1);
  fetch->info = info;
  fetch->url = build_url (info, base);
  fetch->api_key = config->api_key != NULL && *config->api_key != '\0' ? g_strdup (config->api_key) : NULL;
  fetch->key_hint = info->key_variable != NULL
    /* Translators: how to give a key, %s is its variable */
    ? g_strdup_printf (_("check $%s or pass --api-key"), info->key_variable)
    : g_strdup (_("pass --api-key if the server wants a key"));
  fetch->flags = flags;
  fetch->io_cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      fetch->caller_cancellable = g_object_ref (cancellable);
      fetch->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (caller_cancelled_cb),
                                                   g_object_ref (fetch->io_cancellable), g_object_unref);
    }
  fetch->deadline = g_timeout_source_new (zot_timeout_get_ms (ZOT_TIMEOUT_MODEL_LIST));
  g_source_set_callback (fetch->deadline, deadline_cb, fetch, NULL);
  g_source_attach (fetch->deadline, g_main_context_get_thread_default ());
  g_task_set_task_data (task, fetch, fetch_free);

  g_task_run_in_thread (task, fetch_thread);
}

/* The models the user's models.json adds for the provider are listed
 * with the server's, whatever the server says. */
static void
merge_user_models (ZotModelList *list)
{
  g_autoptr(GPtrArray) known = zot_model_facts_list (list->provider);
  g_autoptr(GStrvBuilder) mine = g_strv_builder_new ();
  g_auto(GStrv) ids = NULL;

  for (guint i = 0; i < known->len; i++)
    {
      const ZotModelInfo *model = known->pdata[i];

      if (model->user)
        g_strv_builder_add (mine, model->id);
    }
  ids = g_strv_builder_end (mine);
  zot_model_list_merge (list, (const char * const *) ids);
}

/**
 * zot_model_list_fetch_finish:
 *
 * Returns: (transfer full): the list, or %NULL with a #ZotProviderError
 *   naming the URL and what went wrong, or %G_IO_ERROR_CANCELLED
 */
ZotModelList *
zot_model_list_fetch_finish (GAsyncResult  *result,
                             GError       **error)
{
  ZotModelList *list;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_model_list_fetch_async, NULL);

  list = g_task_propagate_pointer (G_TASK (result), error);
  if (list != NULL)
    merge_user_models (list);
  return list;
}

/* ------------------------------------------------------------------ */
/* The user's own                                                      */
/* ------------------------------------------------------------------ */

/**
 * zot_model_list_merge:
 * @user_ids: (array zero-terminated=1) (nullable): models the user named
 *   for this provider ($ZOT_HOME/models.json)
 *
 * Adds the user's models to the list, each once, kept in order; they are
 * marked (zot_model_list_is_user_model()) unless the server has them too.
 */
void
zot_model_list_merge (ZotModelList       *self,
                      const char * const *user_ids)
{
  g_return_if_fail (self != NULL);

  for (guint i = 0; user_ids != NULL && user_ids[i] != NULL; i++)
    {
      gboolean known = FALSE;

      for (guint j = 0; !known && j < self->ids->len; j++)
        known = g_str_equal (g_ptr_array_index (self->ids, j), user_ids[i]);
      if (known)
        continue;

      g_ptr_array_add (self->ids, g_strdup (user_ids[i]));
      g_hash_table_add (self->user_ids, g_strdup (user_ids[i]));
    }

  sort_ids (self->ids);
}

/**
 * zot_model_list_is_user_model:
 *
 * Returns: whether @id came from the user's list, not the server's
 */
gboolean
zot_model_list_is_user_model (ZotModelList *self,
                              const char   *id)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return id != NULL && g_hash_table_contains (self->user_ids, id);
}

/**
 * zot_model_list_describe_age:
 *
 * Returns: (transfer full): how long ago the server gave the list, for a
 *   message: "less than a minute", "5 minutes", "3 hours", "2 days"
 */
char *
zot_model_list_describe_age (ZotModelList *self)
{
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  gint64 age;

  g_return_val_if_fail (self != NULL, NULL);

  /* Translators: the spans below only ever follow "saved … ago" ("zot:
   * showing the list saved %s ago"): inflect them for that place. */
  age = MAX (now - self->fetched_at, 0);
  if (age < 60)
    return g_strdup (_("less than a minute"));
  if (age < 60 * 60)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u minute", "%u minutes", age / 60),
                            (guint) (age / 60));
  if (age < 48 * 60 * 60)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u hour", "%u hours", age / 3600),
                            (guint) (age / 3600));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u day", "%u days", age / 86400),
                          (guint) (age / 86400));
}
