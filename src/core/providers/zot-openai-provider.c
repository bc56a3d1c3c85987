/* zot-openai-provider.c — OpenAI Chat Completions, streamed.
 *
 * Also any server that speaks the same API (ollama, llama.cpp server, vLLM)
 * through --base-url; such servers often need no key. The request is
 * translated from the zot-message.h shape, the answer is read as SSE
 * "chat.completion.chunk" objects: text deltas, tool-call fragments keyed by
 * their index, a finish_reason, an optional usage chunk, then "[DONE]".
 */
#define G_LOG_DOMAIN "zot-openai"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "zot-openai-provider.h"
#include "zot-sse.h"
#include "zot-json.h"

#define DEFAULT_BASE_URL "https://api.openai.com/v1"
#define DEFAULT_MODEL    "gpt-4o-mini"

/* A tool call index past this is a broken stream, not a big message. */
#define MAX_TOOL_CALLS   1024

struct _ZotOpenaiProvider
{
  ZotProvider  parent_instance;

  SoupSession *session;
  char        *url;
  char        *api_key;
  char        *api_key_source;
};

G_DEFINE_FINAL_TYPE (ZotOpenaiProvider, zot_openai_provider, ZOT_TYPE_PROVIDER)

typedef struct
{
  char    *id;
  char    *name;
  GString *arguments;
} ToolCall;

typedef struct
{
  ZotProvider *provider;
  GString     *text;
  GPtrArray   *calls;
  char        *finish_reason;
  gboolean     done;
  gint64       input_tokens;
  gint64       output_tokens;
} Stream;

static void
tool_call_free (gpointer user_data)
{
  ToolCall *call = user_data;

  if (call == NULL)
    return;

  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

static void
stream_free (gpointer user_data)
{
  Stream *stream = user_data;

  g_string_free (stream->text, TRUE);
  g_ptr_array_unref (stream->calls);
  g_free (stream->finish_reason);
  g_free (stream);
}

/* ------------------------------------------------------------------ */
/* JSON helpers                                                        */
/* ------------------------------------------------------------------ */

static const char *
get_string (JsonObject *object,
            const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static const char *
get_string_or (JsonObject *object,
               const char *name,
               const char *fallback)
{
  const char *value = get_string (object, name);

  return value != NULL ? value : fallback;
}

static JsonObject *
get_object (JsonObject *object,
            const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static JsonArray *
get_array (JsonObject *object,
           const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

static gint64
get_int (JsonObject *object,
         const char *name,
         gint64      fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (node);
  return fallback;
}

static JsonObject *
array_get_object (JsonArray *array,
                  guint      index)
{
  JsonNode *node = json_array_get_element (array, index);

  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static char *
node_to_string (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

static char *
object_to_string (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  return node_to_string (node);
}

/* A tool_use block; arguments that are not a JSON object are kept as text
 * in "input_raw" next to an empty "input" (zot-message.h). */
static JsonObject *
new_tool_use (const char *id,
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

/* ------------------------------------------------------------------ */
/* The request                                                         */
/* ------------------------------------------------------------------ */

static JsonObject *
text_part (const char *text)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "type", "text");
  json_object_set_string_member (part, "text", text);
  return part;
}

static JsonObject *
image_part (JsonObject *block)
{
  JsonObject *part = json_object_new ();
  JsonObject *image_url = json_object_new ();
  const char *mime = get_string (block, "mime_type");
  g_autofree char *url = g_strdup_printf ("data:%s;base64,%s",
                                          mime != NULL ? mime : "image/png",
                                          get_string_or (block, "data", ""));

  json_object_set_string_member (image_url, "url", url);
  json_object_set_string_member (part, "type", "image_url");
  json_object_set_object_member (part, "image_url", image_url);
  return part;
}

/* The text of a tool_result's content; images cannot go into a "tool"
 * message, so they become a note. */
static char *
tool_result_text (JsonObject *block)
{
  GString *text = g_string_new (NULL);
  JsonNode *content = json_object_get_member (block, "content");

  if (json_object_get_boolean_member_with_default (block, "is_error", FALSE))
    g_string_append (text, "Error: ");

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content) &&
      json_node_get_value_type (content) == G_TYPE_STRING)
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);
      gboolean first = TRUE;

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonObject *part = array_get_object (parts, i);
          const char *type = get_string (part, "type");

          if (type == NULL)
            continue;
          if (!first)
            g_string_append_c (text, '\n');
          first = FALSE;
          if (g_str_equal (type, "text"))
            g_string_append (text, get_string_or (part, "text", ""));
          else if (g_str_equal (type, "image"))
            g_string_append_printf (text, "[an image (%s) was returned here; this API cannot show "
                                    "images in tool results]",
                                    get_string_or (part, "mime_type", "image"));
        }
    }

  return g_string_free (text, FALSE);
}

static void
add_tool_results (JsonArray *out,
                  JsonArray *content)
{
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = array_get_object (content, i);
      g_autofree char *text = NULL;
      JsonObject *message;

      if (g_strcmp0 (get_string (block, "type"), "tool_result") != 0)
        continue;

      text = tool_result_text (block);
      message = json_object_new ();
      json_object_set_string_member (message, "role", "tool");
      json_object_set_string_member (message, "tool_call_id",
                                     get_string_or (block, "tool_use_id", ""));
      json_object_set_string_member (message, "content", text);
      json_array_add_object_element (out, message);
    }
}

static void
add_user_message (JsonArray *out,
                  JsonArray *content)
{
  JsonArray *parts = json_array_new ();
  JsonObject *message;

  /* Tool results belong in their own "tool" messages, which must follow
   * the assistant message directly: they go first. */
  add_tool_results (out, content);

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = array_get_object (content, i);
      const char *type = get_string (block, "type");

      if (g_strcmp0 (type, "text") == 0)
        json_array_add_object_element (parts, text_part (get_string_or (block, "text", "")));
      else if (g_strcmp0 (type, "image") == 0)
        json_array_add_object_element (parts, image_part (block));
    }

  if (json_array_get_length (parts) == 0)
    {
      json_array_unref (parts);
      return;
    }

  message = json_object_new ();
  json_object_set_string_member (message, "role", "user");
  json_object_set_array_member (message, "content", parts);
  json_array_add_object_element (out, message);
}

static void
add_assistant_message (JsonArray *out,
                       JsonArray *content)
{
  JsonObject *message = json_object_new ();
  JsonArray *calls = json_array_new ();
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = array_get_object (content, i);
      const char *type = get_string (block, "type");

      if (g_strcmp0 (type, "text") == 0)
        g_string_append (text, get_string_or (block, "text", ""));
      else if (g_strcmp0 (type, "tool_use") == 0)
        {
          JsonObject *call = json_object_new ();
          JsonObject *function = json_object_new ();
          JsonObject *input = get_object (block, "input");
          g_autofree char *arguments = input != NULL ? object_to_string (input) : g_strdup ("{}");

          json_object_set_string_member (function, "name",
                                         get_string_or (block, "name", ""));
          json_object_set_string_member (function, "arguments", arguments);
          json_object_set_string_member (call, "id", get_string_or (block, "id", ""));
          json_object_set_string_member (call, "type", "function");
          json_object_set_object_member (call, "function", function);
          json_array_add_object_element (calls, call);
        }
    }

  json_object_set_string_member (message, "role", "assistant");
  if (text->len > 0 || json_array_get_length (calls) == 0)
    json_object_set_string_member (message, "content", text->str);
  else
    json_object_set_null_member (message, "content");
  if (json_array_get_length (calls) > 0)
    json_object_set_array_member (message, "tool_calls", calls);
  else
    json_array_unref (calls);

  json_array_add_object_element (out, message);
  g_string_free (text, TRUE);
}

static GBytes *
build_body (ZotOpenaiProvider  *self,
            ZotProviderRequest *request)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonNode) root = NULL;
  JsonArray *messages = json_array_new ();
  JsonObject *options = json_object_new ();
  const char *model = request->model != NULL && *request->model != '\0'
                      ? request->model : zot_provider_get_model (ZOT_PROVIDER (self));
  char *text;

  json_object_set_string_member (body, "model", model);

  if (request->system_prompt != NULL && *request->system_prompt != '\0')
    {
      JsonObject *system = json_object_new ();

      json_object_set_string_member (system, "role", "system");
      json_object_set_string_member (system, "content", request->system_prompt);
      json_array_add_object_element (messages, system);
    }

  for (guint i = 0; request->messages != NULL && i < json_array_get_length (request->messages); i++)
    {
      JsonObject *message = array_get_object (request->messages, i);
      const char *role = get_string (message, "role");
      JsonArray *content = get_array (message, "content");
      g_autoptr(JsonArray) empty = NULL;

      if (content == NULL)
        {
          /* Be lenient with a plain string content. */
          empty = json_array_new ();
          if (get_string (message, "content") != NULL)
            json_array_add_object_element (empty, text_part (get_string (message, "content")));
          content = empty;
        }

      if (g_strcmp0 (role, "assistant") == 0)
        add_assistant_message (messages, content);
      else if (g_strcmp0 (role, "tool") == 0)
        add_tool_results (messages, content);
      else
        add_user_message (messages, content);
    }
  json_object_set_array_member (body, "messages", messages);

  if (request->tools != NULL && json_array_get_length (request->tools) > 0)
    {
      JsonArray *tools = json_array_new ();

      for (guint i = 0; i < json_array_get_length (request->tools); i++)
        {
          JsonObject *tool = array_get_object (request->tools, i);
          JsonObject *entry;
          JsonObject *function;
          JsonNode *schema;

          if (tool == NULL || get_string (tool, "name") == NULL)
            continue;

          entry = json_object_new ();
          function = json_object_new ();
          json_object_set_string_member (function, "name", get_string (tool, "name"));
          if (get_string (tool, "description") != NULL)
            json_object_set_string_member (function, "description",
                                           get_string (tool, "description"));
          schema = json_object_get_member (tool, "input_schema");
          if (schema != NULL && JSON_NODE_HOLDS_OBJECT (schema))
            json_object_set_member (function, "parameters", json_node_copy (schema));
          else
            {
              JsonObject *parameters = json_object_new ();

              json_object_set_string_member (parameters, "type", "object");
              json_object_set_object_member (parameters, "properties", json_object_new ());
              json_object_set_object_member (function, "parameters", parameters);
            }
          json_object_set_string_member (entry, "type", "function");
          json_object_set_object_member (entry, "function", function);
          json_array_add_object_element (tools, entry);
        }
      json_object_set_array_member (body, "tools", tools);
    }

  if (request->max_tokens > 0)
    json_object_set_int_member (body, "max_tokens", request->max_tokens);

  json_object_set_boolean_member (body, "stream", TRUE);
  json_object_set_boolean_member (options, "include_usage", TRUE);
  json_object_set_object_member (body, "stream_options", options);

  root = json_node_init_object (json_node_alloc (), body);
  text = node_to_string (root);
  return g_bytes_new_take (text, strlen (text));
}

/* ------------------------------------------------------------------ */
/* The stream                                                          */
/* ------------------------------------------------------------------ */

static gboolean
handle_tool_call (Stream      *stream,
                  JsonObject  *delta,
                  guint        position,
                  GError     **error)
{
  JsonObject *function = get_object (delta, "function");
  const char *id = get_string (delta, "id");
  const char *name = get_string (function, "name");
  const char *arguments = get_string (function, "arguments");
  gint64 index = get_int (delta, "index", position);
  ToolCall *call;

  if (index < 0 || index >= MAX_TOOL_CALLS)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent a tool call with index %" G_GINT64_FORMAT), index);
      return FALSE;
    }

  if ((guint) index >= stream->calls->len)
    g_ptr_array_set_size (stream->calls, index + 1);

  call = g_ptr_array_index (stream->calls, index);
  if (call == NULL)
    {
      call = g_new0 (ToolCall, 1);
      call->arguments = g_string_new (NULL);
      g_ptr_array_index (stream->calls, index) = call;
    }

  if (id != NULL && *id != '\0' && call->id == NULL)
    call->id = g_strdup (id);
  if (name != NULL && *name != '\0' && call->name == NULL)
    call->name = g_strdup (name);
  if (arguments != NULL)
    g_string_append (call->arguments, arguments);

  zot_provider_emit_tool_call_delta (stream->provider, index, call->id, call->name,
                                     arguments != NULL ? arguments : "");
  return TRUE;
}

static gboolean
on_event (const char  *event,
          const char  *data,
          gpointer     user_data,
          GError     **error)
{
  Stream *stream = user_data;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  JsonObject *chunk;
  JsonObject *usage;
  JsonObject *error_object;
  JsonArray *choices;

  if (g_str_equal (data, "[DONE]"))
    {
      stream->done = TRUE;
      return FALSE;
    }

  if (!zot_json_parser_load (parser, data, -1, &local_error) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent malformed JSON: %s"),
                   local_error != NULL ? local_error->message : _("not an object"));
      return FALSE;
    }
  chunk = json_node_get_object (json_parser_get_root (parser));

  /* Errors in the middle of a stream come as {"error":{...}}. */
  error_object = get_object (chunk, "error");
  if (error_object != NULL || g_strcmp0 (event, "error") == 0)
    {
      const char *message = get_string (error_object, "message");

      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the server reported an error in the stream: %s"),
                   message != NULL ? message : data);
      return FALSE;
    }

  usage = get_object (chunk, "usage");
  if (usage != NULL)
    {
      stream->input_tokens = get_int (usage, "prompt_tokens", stream->input_tokens);
      stream->output_tokens = get_int (usage, "completion_tokens", stream->output_tokens);
    }

  choices = get_array (chunk, "choices");
  for (guint i = 0; choices != NULL && i < json_array_get_length (choices); i++)
    {
      JsonObject *choice = array_get_object (choices, i);
      JsonObject *delta = get_object (choice, "delta");
      JsonArray *tool_calls = get_array (delta, "tool_calls");
      const char *content = get_string (delta, "content");
      const char *finish_reason = get_string (choice, "finish_reason");

      /* We ask for one choice; ignore any other. */
      if (choice == NULL || get_int (choice, "index", 0) != 0)
        continue;

      if (content != NULL && *content != '\0')
        {
          g_string_append (stream->text, content);
          zot_provider_emit_text_delta (stream->provider, content);
        }

      for (guint j = 0; tool_calls != NULL && j < json_array_get_length (tool_calls); j++)
        {
          JsonObject *call = array_get_object (tool_calls, j);

          if (call != NULL && !handle_tool_call (stream, call, j, error))
            return FALSE;
        }

      if (finish_reason != NULL)
        {
          g_free (stream->finish_reason);
          stream->finish_reason = g_strdup (finish_reason);
        }
    }

  return TRUE;
}

static ZotProviderReply *
build_reply (Stream  *stream,
             GError **error)
{
  g_autoptr(ZotProviderReply) reply = zot_provider_reply_new ();
  JsonArray *content = json_array_new ();
  guint n_calls = 0;

  reply->message = json_object_new ();
  json_object_set_string_member (reply->message, "role", "assistant");
  json_object_set_array_member (reply->message, "content", content);

  if (stream->text->len > 0)
    {
      JsonObject *block = json_object_new ();

      json_object_set_string_member (block, "type", "text");
      json_object_set_string_member (block, "text", stream->text->str);
      json_array_add_object_element (content, block);
    }

  for (guint i = 0; i < stream->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (stream->calls, i);
      g_autofree char *id = NULL;

      if (call == NULL)
        continue;
      if (call->name == NULL)
        {
          g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                       _("the stream sent a tool call without a name"));
          return NULL;
        }

      id = call->id != NULL ? g_strdup (call->id) : g_strdup_printf ("call_%u", i + 1);
      json_array_add_object_element (content, new_tool_use (id, call->name, call->arguments->str));
      n_calls++;
    }

  /* Some compatible servers say "stop" after tool calls. */
  if (g_str_equal (stream->finish_reason, "length"))
    reply->stop_reason = g_strdup ("length");
  else if (n_calls > 0)
    reply->stop_reason = g_strdup ("tool_use");
  else
    reply->stop_reason = g_strdup ("end_turn");
  reply->input_tokens = stream->input_tokens;
  reply->output_tokens = stream->output_tokens;

  return g_steal_pointer (&reply);
}

static void
stream_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Stream *stream = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  ZotProviderReply *reply;

  if (!zot_sse_post_finish (result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (!stream->done || stream->finish_reason == NULL)
    {
      g_task_return_new_error (task, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                               _("the stream ended early"));
      return;
    }

  reply = build_reply (stream, &error);
  if (reply == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) zot_provider_reply_free);
}

/* ------------------------------------------------------------------ */
/* ZotProvider                                                         */
/* ------------------------------------------------------------------ */

static const char *
zot_openai_provider_get_name (ZotProvider *provider)
{
  return "openai";
}

static const char *
zot_openai_provider_get_default_model (ZotProvider *provider)
{
  return DEFAULT_MODEL;
}

static void
zot_openai_provider_stream_async (ZotProvider         *provider,
                                  ZotProviderRequest  *request,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  ZotOpenaiProvider *self = (ZotOpenaiProvider *)provider;
  g_autoptr(GTask) task = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autofree char *authorization = NULL;
  const char *headers[3] = { NULL };
  ZotSsePost post = { 0 };
  Stream *stream;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_openai_provider_stream_async);

  stream = g_new0 (Stream, 1);
  stream->provider = provider;
  stream->text = g_string_new (NULL);
  stream->calls = g_ptr_array_new_with_free_func (tool_call_free);
  stream->input_tokens = -1;
  stream->output_tokens = -1;
  g_task_set_task_data (task, stream, stream_free);

  body = build_body (self, request);

  if (self->api_key != NULL)
    {
      authorization = g_strdup_printf ("Bearer %s", self->api_key);
      headers[0] = "Authorization";
      headers[1] = authorization;
    }

  post.url = self->url;
  post.headers = headers;
  post.body = body;
  post.has_key = self->api_key != NULL;
  post.key_source = self->api_key_source;
  post.key_env = "OPENAI_API_KEY";

  zot_sse_post_async (self->session, &post, on_event, stream, cancellable,
                      stream_cb, g_steal_pointer (&task));
}

static ZotProviderReply *
zot_openai_provider_stream_finish (ZotProvider   *provider,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        zot_openai_provider_stream_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
zot_openai_provider_dispose (GObject *object)
{
  ZotOpenaiProvider *self = (ZotOpenaiProvider *)object;

  if (self->session != NULL)
    soup_session_abort (self->session);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (zot_openai_provider_parent_class)->dispose (object);
}

static void
zot_openai_provider_finalize (GObject *object)
{
  ZotOpenaiProvider *self = (ZotOpenaiProvider *)object;

  g_clear_pointer (&self->url, g_free);
  g_clear_pointer (&self->api_key, g_free);
  g_clear_pointer (&self->api_key_source, g_free);

  G_OBJECT_CLASS (zot_openai_provider_parent_class)->finalize (object);
}

static void
zot_openai_provider_class_init (ZotOpenaiProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  ZotProviderClass *provider_class = ZOT_PROVIDER_CLASS (klass);

  object_class->dispose = zot_openai_provider_dispose;
  object_class->finalize = zot_openai_provider_finalize;

  provider_class->get_name = zot_openai_provider_get_name;
  provider_class->get_default_model = zot_openai_provider_get_default_model;
  provider_class->stream_async = zot_openai_provider_stream_async;
  provider_class->stream_finish = zot_openai_provider_stream_finish;
}

static void
zot_openai_provider_init (ZotOpenaiProvider *self)
{
  self->session = zot_sse_session_new ();
}

/* The base URL without trailing slashes, checked to be http(s). */
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
 * zot_openai_provider_new:
 * @config: the configuration; @config->base_url points it at any
 *   compatible server, in which case a key is optional
 *
 * Returns: (transfer full): the provider, or %NULL with
 *   ZOT_PROVIDER_ERROR_CONFIG
 */
ZotProvider *
zot_openai_provider_new (const ZotProviderConfig  *config,
                         GError                  **error)
{
  g_autoptr(ZotOpenaiProvider) self = NULL;
  g_autofree char *base = NULL;
  gboolean custom_base;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  custom_base = config->base_url != NULL && *config->base_url != '\0';

  if ((config->api_key == NULL || *config->api_key == '\0') && !custom_base)
    {
      g_set_error_literal (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                           _("no OpenAI API key: set $OPENAI_API_KEY or pass --api-key "
                             "(or point --base-url at a local server that needs none)"));
      return NULL;
    }

  base = normalize_base_url (custom_base ? config->base_url : DEFAULT_BASE_URL, error);
  if (base == NULL)
    return NULL;

  self = g_object_new (ZOT_TYPE_OPENAI_PROVIDER, NULL);
  /* "…/v1" and a bare host both take the path after them; a URL that
   * already names the endpoint is used as it is. */
  if (g_str_has_suffix (base, "/chat/completions"))
    self->url = g_steal_pointer (&base);
  else
    self->url = g_strconcat (base, "/chat/completions", NULL);

  if (config->api_key != NULL && *config->api_key != '\0')
    {
      self->api_key = g_strdup (config->api_key);
      self->api_key_source = g_strdup (config->api_key_source);
    }

  if (config->model != NULL && *config->model != '\0')
    zot_provider_set_model (ZOT_PROVIDER (self), config->model);

  return ZOT_PROVIDER (g_steal_pointer (&self));
}
