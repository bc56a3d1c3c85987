/* zot-http-provider.c — the shared half of the HTTP providers.
 *
 * A stream is one GTask with the subclass's state as its task data: the
 * body is built, the POST goes through zot_sse_post_async() (retries,
 * deadlines, the response cap, error mapping, cancellation), each event
 * reaches the subclass as it arrives, and at the end of the body the
 * subclass turns its state into the reply.
 */
#define G_LOG_DOMAIN "zot-provider"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "zot-http-provider.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-sse.h"

typedef struct
{
  SoupSession *session;
  char        *url;
  char        *api_key;
  char        *api_key_source;
  /* The row it was made for: its class's, or a preset's that shares the
   * class (OpenRouter, Ollama and the others are OpenAI's). */
  const ZotProviderInfo *info;
} ZotHttpProviderPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (ZotHttpProvider, zot_http_provider, ZOT_TYPE_PROVIDER)

static void
stream_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHttpProvider *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  ZotProviderReply *reply;

  if (!zot_sse_post_finish (result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  reply = ZOT_HTTP_PROVIDER_GET_CLASS (self)->stream_end (g_task_get_task_data (task), &error);
  if (reply == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) zot_provider_reply_free);
}

static void
on_retry (const ZotSseRetry *retry,
          gpointer           user_data)
{
  zot_provider_emit_retrying (user_data, retry->retry, retry->max_retries, retry->delay_ms,
                              retry->status, retry->message);
}

static const char *
zot_http_provider_get_name (ZotProvider *provider)
{
  return zot_http_provider_get_info (ZOT_HTTP_PROVIDER (provider))->name;
}

static const char *
zot_http_provider_get_default_model (ZotProvider *provider)
{
  return zot_http_provider_get_info (ZOT_HTTP_PROVIDER (provider))->default_model;
}

static void
zot_http_provider_stream_async (ZotProvider         *provider,
                                ZotProviderRequest  *request,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  ZotHttpProvider *self = ZOT_HTTP_PROVIDER (provider);
  ZotHttpProviderPrivate *priv = zot_http_provider_get_instance_private (self);
  ZotHttpProviderClass *klass = ZOT_HTTP_PROVIDER_GET_CLASS (self);
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) headers = NULL;
  g_autofree char *url = NULL;
  ZotSsePost post = { 0 };
  gpointer stream;
  char *text;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_http_provider_stream_async);

  stream = klass->stream_new (self);
  g_task_set_task_data (task, stream, klass->stream_free);

  object = klass->build_body (self, request);
  text = zot_json_object_to_string (object);
  body = g_bytes_new_take (text, strlen (text));

  klass->add_headers (self, builder);
  headers = g_strv_builder_end (builder);

  if (klass->request_url != NULL)
    url = klass->request_url (self, priv->url, request);

  post.url = url != NULL ? url : priv->url;
  post.headers = (const char * const *) headers;
  post.body = body;
  post.has_key = priv->api_key != NULL;
  post.key_source = priv->api_key_source;
  post.key_env = priv->info->key_variable;
  post.label = zot_provider_info_get_label (priv->info);
  post.max_retries = zot_provider_get_max_retries (provider);
  post.on_retry = on_retry;
  post.retry_data = self;

  zot_sse_post_async (priv->session, &post, klass->stream_event, stream, cancellable,
                      stream_cb, g_steal_pointer (&task));
}

static ZotProviderReply *
zot_http_provider_stream_finish (ZotProvider   *provider,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        zot_http_provider_stream_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
zot_http_provider_dispose (GObject *object)
{
  ZotHttpProvider *self = (ZotHttpProvider *)object;
  ZotHttpProviderPrivate *priv = zot_http_provider_get_instance_private (self);

  if (priv->session != NULL)
    soup_session_abort (priv->session);
  g_clear_object (&priv->session);

  G_OBJECT_CLASS (zot_http_provider_parent_class)->dispose (object);
}

static void
zot_http_provider_finalize (GObject *object)
{
  ZotHttpProvider *self = (ZotHttpProvider *)object;
  ZotHttpProviderPrivate *priv = zot_http_provider_get_instance_private (self);

  g_clear_pointer (&priv->url, g_free);
  g_clear_pointer (&priv->api_key, g_free);
  g_clear_pointer (&priv->api_key_source, g_free);

  G_OBJECT_CLASS (zot_http_provider_parent_class)->finalize (object);
}

static void
zot_http_provider_class_init (ZotHttpProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  ZotProviderClass *provider_class = ZOT_PROVIDER_CLASS (klass);

  object_class->dispose = zot_http_provider_dispose;
  object_class->finalize = zot_http_provider_finalize;

  provider_class->get_name = zot_http_provider_get_name;
  provider_class->get_default_model = zot_http_provider_get_default_model;
  provider_class->stream_async = zot_http_provider_stream_async;
  provider_class->stream_finish = zot_http_provider_stream_finish;
}

static void
zot_http_provider_init (ZotHttpProvider *self)
{
  ZotHttpProviderPrivate *priv = zot_http_provider_get_instance_private (self);

  priv->session = zot_sse_session_new ();
}

/* The base URL without surrounding space and trailing slashes, checked
 * to be http(s). */
static char *
normalize_base_url (const char  *base_url,
                    GError     **error)
{
  g_autofree char *url = g_strstrip (g_strdup (base_url));
  g_autoptr(GUri) uri = NULL;
  gsize len = strlen (url);

  while (len > 0 && url[len - 1] == '/')
    url[--len] = '\0';

  uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL ||
      (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 &&
       g_strcmp0 (g_uri_get_scheme (uri), "https") != 0) ||
      g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0')
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                   _("the base URL “%s” is not an http or https URL"), base_url);
      return NULL;
    }

  return g_steal_pointer (&url);
}

/**
 * zot_http_provider_new:
 * @type: a subclass of #ZotHttpProvider
 * @config: the configuration
 *
 * Makes a provider of @type: with the key of @config, which its table row
 * requires unless it talks to compatible servers and @config names a base
 * URL; at @config's base URL or the row's default; with @config's model.
 *
 * Returns: (transfer full): the provider, or %NULL with
 *   %ZOT_PROVIDER_ERROR_CONFIG
 */
ZotProvider *
zot_http_provider_new (GType                     type,
                       const ZotProviderConfig  *config,
                       GError                  **error)
{
  g_autoptr(GTypeClass) type_class = NULL;

  g_return_val_if_fail (g_type_is_a (type, ZOT_TYPE_HTTP_PROVIDER), NULL);

  type_class = g_type_class_ref (type);
  return zot_http_provider_new_for_info (type, ZOT_HTTP_PROVIDER_CLASS (type_class)->info,
                                         config, error);
}

/**
 * zot_http_provider_new_for_info:
 * @type: a subclass of #ZotHttpProvider
 * @info: the table row to take the name, key variable, default model and
 *   URL from: @type's own or a preset of the same API
 * @config: the configuration
 *
 * Like zot_http_provider_new(), for the row @info.
 *
 * Returns: (transfer full): the provider, or %NULL with
 *   %ZOT_PROVIDER_ERROR_CONFIG
 */
ZotProvider *
zot_http_provider_new_for_info (GType                     type,
                                const ZotProviderInfo    *info,
                                const ZotProviderConfig  *config,
                                GError                  **error)
{
  g_autoptr(ZotHttpProvider) self = NULL;
  ZotHttpProviderPrivate *priv;
  g_autofree char *base = NULL;
  gboolean custom_base;
  gboolean has_key;

  g_return_val_if_fail (g_type_is_a (type, ZOT_TYPE_HTTP_PROVIDER), NULL);
  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  custom_base = info->accepts_base_url && config->base_url != NULL && *config->base_url != '\0';
  has_key = config->api_key != NULL && *config->api_key != '\0';

  if (!custom_base && info->default_base_url == NULL)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                   /* Translators: the provider's label */
                   _("%s has no default URL: pass --base-url with yours (see docs/providers.md)"),
                   zot_provider_info_get_label (info));
      return NULL;
    }

  if (!has_key && info->key_variable != NULL && !(info->compatible_servers && custom_base))
    {
      if (info->compatible_servers)
        g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                     /* Translators: the provider's label, then its key variable */
                     _("no %s API key: set $%s or pass --api-key "
                       "(or point --base-url at a local server that needs none)"),
                     zot_provider_info_get_label (info), info->key_variable);
      else
        g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                     /* Translators: the provider's label, then its key variable */
                     _("no %s API key: set $%s or pass --api-key"),
                     zot_provider_info_get_label (info), info->key_variable);
      return NULL;
    }

  base = normalize_base_url (custom_base ? config->base_url : info->default_base_url, error);
  if (base == NULL)
    return NULL;

  self = g_object_new (type, NULL);
  priv = zot_http_provider_get_instance_private (self);
  priv->info = info;
  priv->url = ZOT_HTTP_PROVIDER_GET_CLASS (self)->build_url (self, base);

  if (has_key)
    {
      priv->api_key = g_strdup (config->api_key);
      priv->api_key_source = g_strdup (config->api_key_source);
    }

  if (config->model != NULL && *config->model != '\0')
    zot_provider_set_model (ZOT_PROVIDER (self), config->model);

  return ZOT_PROVIDER (g_steal_pointer (&self));
}

/**
 * zot_http_provider_get_info:
 *
 * Returns: (transfer none): the table row it was made for
 */
const ZotProviderInfo *
zot_http_provider_get_info (ZotHttpProvider *self)
{
  ZotHttpProviderPrivate *priv = zot_http_provider_get_instance_private (self);

  g_return_val_if_fail (ZOT_IS_HTTP_PROVIDER (self), NULL);

  return priv->info;
}

/**
 * zot_http_provider_get_api_key:
 *
 * Returns: (nullable): the key, %NULL when there is none
 */
const char *
zot_http_provider_get_api_key (ZotHttpProvider *self)
{
  ZotHttpProviderPrivate *priv = zot_http_provider_get_instance_private (self);

  g_return_val_if_fail (ZOT_IS_HTTP_PROVIDER (self), NULL);

  return priv->api_key;
}

/**
 * zot_http_provider_get_url:
 *
 * Returns: the endpoint the requests go to
 */
const char *
zot_http_provider_get_url (ZotHttpProvider *self)
{
  ZotHttpProviderPrivate *priv = zot_http_provider_get_instance_private (self);

  g_return_val_if_fail (ZOT_IS_HTTP_PROVIDER (self), NULL);

  return priv->url;
}

/**
 * zot_http_provider_request_model:
 *
 * Returns: the model @request asks for, or else the provider's
 */
const char *
zot_http_provider_request_model (ZotHttpProvider    *self,
                                 ZotProviderRequest *request)
{
  g_return_val_if_fail (ZOT_IS_HTTP_PROVIDER (self), NULL);
  g_return_val_if_fail (request != NULL, NULL);

  if (request->model != NULL && *request->model != '\0')
    return request->model;
  return zot_provider_get_model (ZOT_PROVIDER (self));
}

/**
 * zot_http_provider_new_reply:
 * @content: (out) (transfer none): the message's content array, to fill
 *
 * Starts the reply every API's answer is turned into: an assistant
 * message in the host's shape (zot-message.h), content still empty.
 *
 * Returns: (transfer full): the reply
 */
ZotProviderReply *
zot_http_provider_new_reply (JsonArray **content)
{
  ZotProviderReply *reply = zot_provider_reply_new ();

  g_return_val_if_fail (content != NULL, NULL);

  *content = json_array_new ();
  reply->message = json_object_new ();
  json_object_set_string_member (reply->message, "role", "assistant");
  json_object_set_array_member (reply->message, "content", *content);
  return reply;
}

/**
 * zot_http_provider_set_stop_reason:
 * @reply: the reply
 * @hit_limit: the API said the output limit cut the answer short
 * @n_calls: how many tool calls the reply holds
 *
 * Maps an API's own stop reason onto the host's three. A reply with calls
 * is a "tool_use" turn whatever the API said, as some OpenAI-compatible
 * servers say "stop" after tool calls.
 */
void
zot_http_provider_set_stop_reason (ZotProviderReply *reply,
                                   gboolean          hit_limit,
                                   guint             n_calls)
{
  g_return_if_fail (reply != NULL);

  g_free (reply->stop_reason);
  if (hit_limit)
    reply->stop_reason = g_strdup ("length");
  else if (n_calls > 0)
    reply->stop_reason = g_strdup ("tool_use");
  else
    reply->stop_reason = g_strdup ("end_turn");
}

/**
 * zot_http_provider_new_tool_use:
 * @id: the call id
 * @name: the tool name
 * @arguments: the JSON arguments as the model wrote them
 *
 * A tool_use block; arguments that are not a JSON object are kept as text
 * in "input_raw" next to an empty "input" (zot-message.h).
 *
 * Returns: (transfer full): the block
 */
JsonObject *
zot_http_provider_new_tool_use (const char *id,
                                const char *name,
                                const char *arguments)
{
  JsonObject *block = json_object_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *trimmed = g_strstrip (g_strdup (arguments));

  json_object_set_string_member (block, "type", "tool_use");
  json_object_set_string_member (block, "id", id);
  json_object_set_string_member (block, "name", name);

  if (*trimmed == '\0')
    json_object_set_object_member (block, "input", json_object_new ());
  else if (zot_json_parser_load (parser, trimmed, -1, NULL) &&
           JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    json_object_set_member (block, "input", json_node_copy (json_parser_get_root (parser)));
  else
    {
      json_object_set_object_member (block, "input", json_object_new ());
      json_object_set_string_member (block, "input_raw", arguments);
    }

  return block;
}

/**
 * zot_http_provider_add_turn:
 * @turns: the API's list of turns, each `{"role":…, @member:[…]}`
 * @role: the API's name of the speaker
 * @member: the member that holds a turn's blocks ("content", "parts")
 * @blocks: the blocks of one message, in the API's shape
 *
 * Appends a message to @turns for an API that wants the speakers to
 * alternate: a message of the speaker of the last turn joins it (a
 * "tool" message and the user's next words are one user turn), and one
 * without blocks is left out, as such APIs refuse an empty turn.
 */
void
zot_http_provider_add_turn (JsonArray  *turns,
                            const char *role,
                            const char *member,
                            JsonArray  *blocks)
{
  guint n_turns;
  JsonObject *last = NULL;
  JsonObject *turn;

  g_return_if_fail (turns != NULL && role != NULL && member != NULL && blocks != NULL);

  if (json_array_get_length (blocks) == 0)
    return;

  n_turns = json_array_get_length (turns);
  if (n_turns > 0)
    last = json_array_get_object_element (turns, n_turns - 1);

  if (last != NULL && g_str_equal (json_object_get_string_member (last, "role"), role))
    {
      JsonArray *into = json_object_get_array_member (last, member);

      for (guint i = 0; i < json_array_get_length (blocks); i++)
        json_array_add_element (into, json_node_copy (json_array_get_element (blocks, i)));
      return;
    }

  turn = json_object_new ();
  json_object_set_string_member (turn, "role", role);
  json_object_set_array_member (turn, member, json_array_ref (blocks));
  json_array_add_object_element (turns, turn);
}

/**
 * zot_http_provider_parse_event:
 * @event: (nullable): the event's name, to name in an error
 * @data: the event's data
 *
 * Reads the data of a stream event, which must be a JSON object, within
 * the host's nesting bound.
 *
 * Returns: (transfer full) (nullable): the object, or %NULL with
 *   %ZOT_PROVIDER_ERROR_BAD_STREAM
 */
JsonObject *
zot_http_provider_parse_event (const char  *event,
                               const char  *data,
                               GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;

  if (!zot_json_parser_load (parser, data, -1, &local_error) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      const char *reason = local_error != NULL ? local_error->message : _("not an object");

      if (event != NULL)
        g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                     _("the stream sent malformed JSON in a “%s” event: %s"), event, reason);
      else
        g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                     _("the stream sent malformed JSON: %s"), reason);
      return NULL;
    }

  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}
