/* zot-openai-provider.c — OpenAI Chat Completions, streamed.
 *
 * Also any server that speaks the same API (ollama, llama.cpp server, vLLM)
 * through --base-url; such servers often need no key. The presets of the
 * provider table (OpenRouter, Groq, Azure, Ollama…) are made here too: what
 * sets each apart is read from its row's quirks, never from its name. The request is
 * translated from the zot-message.h shape, the answer is read as SSE
 * "chat.completion.chunk" objects: text deltas, tool-call fragments keyed by
 * their index, a finish_reason, an optional usage chunk, then "[DONE]".
 * Servers that show the model's reasoning send it in "reasoning_content"
 * (DeepSeek, vLLM, llama.cpp) or "reasoning" (OpenRouter, Ollama) deltas;
 * it is kept as an unsigned "thinking" block, never sent back.
 */
#define G_LOG_DOMAIN "zot-openai"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-openai-provider.h"
#include "zot-json.h"
#include "zot-provider-table.h"
#include "zot-message.h"
#include "zot-sse.h"

/* A tool call index past this is a broken stream, not a big message. */
#define MAX_TOOL_CALLS   1024

struct _ZotOpenaiProvider
{
  ZotHttpProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotOpenaiProvider, zot_openai_provider, ZOT_TYPE_HTTP_PROVIDER)

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
  GString     *reasoning;
  gsize        reasoning_bytes;
  GPtrArray   *calls;
  char        *finish_reason;
  gboolean     done;
  gint64       input_tokens;
  gint64       output_tokens;
  gint64       reasoning_tokens;
  gint64       cache_read_tokens;
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
  g_string_free (stream->reasoning, TRUE);
  g_ptr_array_unref (stream->calls);
  g_free (stream->finish_reason);
  g_free (stream);
}

/* ------------------------------------------------------------------ */
/* The request                                                         */
/* ------------------------------------------------------------------ */

/* What the messages are written for: the server's quirks, and the name of
 * each tool call so far by its id, for servers that want it in results. */
typedef struct
{
  const ZotProviderQuirks *quirks;
  GHashTable              *names;
} Shape;

/* A tool call id as the server takes it: as it is, or for servers that
 * want nine letters or digits the same nine every time for the same id. */
static char *
wire_tool_id (const Shape *shape,
              const char  *id)
{
  g_autofree char *digest = NULL;
  gsize len = strlen (id);
  gboolean fits = len == 9;

  for (gsize i = 0; fits && i < len; i++)
    fits = g_ascii_isalnum (id[i]);
  if (!shape->quirks->short_tool_ids || fits)
    return g_strdup (id);

  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, id, -1);
  return g_strndup (digest, 9);
}

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
  const char *mime = zot_json_get_string (block, "mime_type");
  g_autofree char *url = g_strdup_printf ("data:%s;base64,%s",
                                          mime != NULL ? mime : "image/png",
                                          zot_json_get_string_or (block, "data", ""));

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
          JsonObject *part = zot_json_array_get_object (parts, i);
          const char *type = zot_json_get_string (part, "type");

          if (type == NULL)
            continue;
          if (!first)
            g_string_append_c (text, '\n');
          first = FALSE;
          if (g_str_equal (type, "text"))
            g_string_append (text, zot_json_get_string_or (part, "text", ""));
          else if (g_str_equal (type, "image"))
            g_string_append_printf (text, "[an image (%s) was returned here; this API cannot show "
                                    "images in tool results]",
                                    zot_json_get_string_or (part, "mime_type", "image"));
        }
    }

  return g_string_free (text, FALSE);
}

static void
add_tool_results (const Shape *shape,
                  JsonArray   *out,
                  JsonArray   *content)
{
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = zot_json_array_get_object (content, i);
      g_autofree char *text = NULL;
      g_autofree char *id = NULL;
      const char *name;
      JsonObject *message;

      if (g_strcmp0 (zot_json_get_string (block, "type"), "tool_result") != 0)
        continue;

      text = tool_result_text (block);
      id = wire_tool_id (shape, zot_json_get_string_or (block, "tool_use_id", ""));
      message = json_object_new ();
      json_object_set_string_member (message, "role", "tool");
      json_object_set_string_member (message, "tool_call_id", id);
      name = g_hash_table_lookup (shape->names, zot_json_get_string_or (block, "tool_use_id", ""));
      if (shape->quirks->tool_result_name && name != NULL)
        json_object_set_string_member (message, "name", name);
      json_object_set_string_member (message, "content", text);
      json_array_add_object_element (out, message);
    }
}

static void
add_user_message (const Shape *shape,
                  JsonArray   *out,
                  JsonArray   *content)
{
  JsonArray *parts = json_array_new ();
  JsonObject *message;

  /* Tool results belong in their own "tool" messages, which must follow
   * the assistant message directly: they go first. */
  add_tool_results (shape, out, content);

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = zot_json_array_get_object (content, i);
      const char *type = zot_json_get_string (block, "type");

      if (g_strcmp0 (type, "text") == 0)
        json_array_add_object_element (parts, text_part (zot_json_get_string_or (block, "text", "")));
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
add_assistant_message (const Shape *shape,
                       JsonArray   *out,
                       JsonArray   *content)
{
  JsonObject *message = json_object_new ();
  JsonArray *calls = json_array_new ();
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = zot_json_array_get_object (content, i);
      const char *type = zot_json_get_string (block, "type");

      if (g_strcmp0 (type, "text") == 0)
        g_string_append (text, zot_json_get_string_or (block, "text", ""));
      else if (g_strcmp0 (type, "tool_use") == 0)
        {
          JsonObject *call = json_object_new ();
          JsonObject *function = json_object_new ();
          JsonObject *input = zot_json_get_object (block, "input");
          g_autofree char *arguments = input != NULL ? zot_json_object_to_string (input) : g_strdup ("{}");
          const char *id = zot_json_get_string_or (block, "id", "");
          const char *name = zot_json_get_string_or (block, "name", "");
          g_autofree char *wire_id = wire_tool_id (shape, id);

          g_hash_table_replace (shape->names, (gpointer) id, (gpointer) name);
          json_object_set_string_member (function, "name", name);
          json_object_set_string_member (function, "arguments", arguments);
          json_object_set_string_member (call, "id", wire_id);
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

/* `reasoning_effort` for a level: "minimal" is the least of the gpt-5
 * family, "low" of the o-series, "high" the most of either. Nothing for
 * a model the table knows cannot reason (the API refuses the field
 * there), nor for a server that refuses it, nor when no level was asked. */
static void
add_reasoning_effort (const ZotProviderQuirks *quirks,
                      JsonObject              *body,
                      const char              *model_id,
                      ZotReasoning             level)
{
  const ZotModelInfo *model = zot_model_info_lookup ("openai", model_id);
  gboolean has_minimal = model_id != NULL && g_str_has_prefix (model_id, "gpt-5");
  const char *effort;

  if (level == ZOT_REASONING_DEFAULT || (model != NULL && !model->reasoning) ||
      quirks->no_reasoning_effort)
    return;

  switch (level)
    {
    case ZOT_REASONING_OFF:
    case ZOT_REASONING_MINIMUM:
      effort = has_minimal ? "minimal" : "low";
      break;

    case ZOT_REASONING_LOW:
      effort = "low";
      break;

    case ZOT_REASONING_MEDIUM:
      effort = "medium";
      break;

    case ZOT_REASONING_DEFAULT:
    case ZOT_REASONING_HIGH:
    case ZOT_REASONING_XHIGH:
    case ZOT_REASONING_MAX:
    default:
      effort = "high";
      break;
    }

  json_object_set_string_member (body, "reasoning_effort", effort);
}

static JsonObject *
build_body (ZotHttpProvider    *self,
            ZotProviderRequest *request)
{
  const ZotProviderQuirks *quirks = &zot_http_provider_get_info (self)->quirks;
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  Shape shape = { quirks, names };
  JsonObject *body = json_object_new ();
  JsonArray *messages = json_array_new ();

  json_object_set_string_member (body, "model", zot_http_provider_request_model (self, request));

  if (request->system_prompt != NULL && *request->system_prompt != '\0')
    {
      JsonObject *system = json_object_new ();

      json_object_set_string_member (system, "role", "system");
      json_object_set_string_member (system, "content", request->system_prompt);
      json_array_add_object_element (messages, system);
    }

  for (guint i = 0; request->messages != NULL && i < json_array_get_length (request->messages); i++)
    {
      JsonObject *message = zot_json_array_get_object (request->messages, i);
      const char *role = zot_json_get_string (message, "role");
      JsonArray *content = zot_json_get_array (message, "content");
      g_autoptr(JsonArray) empty = NULL;

      if (content == NULL)
        {
          /* Be lenient with a plain string content. */
          empty = json_array_new ();
          if (zot_json_get_string (message, "content") != NULL)
            json_array_add_object_element (empty, text_part (zot_json_get_string (message, "content")));
          content = empty;
        }

      if (g_strcmp0 (role, "assistant") == 0)
        add_assistant_message (&shape, messages, content);
      else if (g_strcmp0 (role, "tool") == 0)
        add_tool_results (&shape, messages, content);
      else
        add_user_message (&shape, messages, content);
    }
  json_object_set_array_member (body, "messages", messages);

  if (request->tools != NULL && json_array_get_length (request->tools) > 0)
    {
      JsonArray *tools = json_array_new ();

      for (guint i = 0; i < json_array_get_length (request->tools); i++)
        {
          JsonObject *tool = zot_json_array_get_object (request->tools, i);
          JsonObject *entry;
          JsonObject *function;
          JsonNode *schema;

          if (tool == NULL || zot_json_get_string (tool, "name") == NULL)
            continue;

          entry = json_object_new ();
          function = json_object_new ();
          json_object_set_string_member (function, "name", zot_json_get_string (tool, "name"));
          if (zot_json_get_string (tool, "description") != NULL)
            json_object_set_string_member (function, "description",
                                           zot_json_get_string (tool, "description"));
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
    json_object_set_int_member (body, quirks->max_completion_tokens ? "max_completion_tokens" : "max_tokens",
                                request->max_tokens);
  add_reasoning_effort (quirks, body, zot_json_get_string (body, "model"), request->reasoning);

  json_object_set_boolean_member (body, "stream", TRUE);
  if (!quirks->no_stream_options)
    {
      JsonObject *options = json_object_new ();

      json_object_set_boolean_member (options, "include_usage", TRUE);
      json_object_set_object_member (body, "stream_options", options);
    }

  return body;
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
  JsonObject *function = zot_json_get_object (delta, "function");
  const char *id = zot_json_get_string (delta, "id");
  const char *name = zot_json_get_string (function, "name");
  const char *arguments = zot_json_get_string (function, "arguments");
  gint64 index = zot_json_get_int_or (delta, "index", position);
  ToolCall *call;

  if (index < 0 || index >= MAX_TOOL_CALLS)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent a tool call with index %lld"), (long long) index);
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
  g_autoptr(JsonObject) chunk = NULL;
  JsonObject *usage;
  JsonObject *error_object;
  JsonArray *choices;

  if (g_str_equal (data, "[DONE]"))
    {
      stream->done = TRUE;
      return FALSE;
    }

  chunk = zot_http_provider_parse_event (NULL, data, error);
  if (chunk == NULL)
    return FALSE;

  /* Errors in the middle of a stream come as {"error":{...}}, some with a
   * status in "code" (OpenRouter, vLLM), some with a kind (OpenAI). A
   * busy server's error before any output is retried like its status. */
  error_object = zot_json_get_object (chunk, "error");
  if (error_object != NULL || g_strcmp0 (event, "error") == 0)
    {
      const char *message = zot_json_get_string (error_object, "message");
      guint status = zot_sse_stream_error_status (zot_json_get_string (error_object, "type"),
                                                  zot_json_get_int_or (error_object, "code", 0));
      gboolean output = stream->text->len > 0 || stream->reasoning->len > 0 ||
                        stream->calls->len > 0;

      if (status == 0)
        status = zot_sse_stream_error_status (zot_json_get_string (error_object, "code"), 0);
      g_set_error (error,
                   status != 0 && !output ? ZOT_SSE_RETRYABLE_ERROR : ZOT_PROVIDER_ERROR,
                   status != 0 && !output ? (gint) status : ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the server reported an error in the stream: %s"),
                   message != NULL ? message : data);
      return FALSE;
    }

  usage = zot_json_get_object (chunk, "usage");
  if (usage != NULL)
    {
      JsonObject *prompt_details = zot_json_get_object (usage, "prompt_tokens_details");
      JsonObject *completion_details = zot_json_get_object (usage, "completion_tokens_details");

      stream->input_tokens = zot_json_get_int_or (usage, "prompt_tokens", stream->input_tokens);
      stream->output_tokens = zot_json_get_int_or (usage, "completion_tokens", stream->output_tokens);
      stream->cache_read_tokens = zot_json_get_int_or (prompt_details, "cached_tokens",
                                                       stream->cache_read_tokens);
      stream->reasoning_tokens = zot_json_get_int_or (completion_details, "reasoning_tokens",
                                                      stream->reasoning_tokens);
    }

  choices = zot_json_get_array (chunk, "choices");
  for (guint i = 0; choices != NULL && i < json_array_get_length (choices); i++)
    {
      JsonObject *choice = zot_json_array_get_object (choices, i);
      JsonObject *delta = zot_json_get_object (choice, "delta");
      JsonArray *tool_calls = zot_json_get_array (delta, "tool_calls");
      const char *content = zot_json_get_string (delta, "content");
      const char *reasoning = zot_json_get_string (delta, "reasoning_content");
      const char *finish_reason = zot_json_get_string (choice, "finish_reason");

      /* We ask for one choice; ignore any other. */
      if (choice == NULL || zot_json_get_int_or (choice, "index", 0) != 0)
        continue;

      /* A server that sends both names sends the same text twice. */
      if (reasoning == NULL)
        reasoning = zot_json_get_string (delta, "reasoning");
      if (!zot_provider_add_reasoning (stream->provider, stream->reasoning,
                                       &stream->reasoning_bytes, reasoning, error))
        return FALSE;

      if (content != NULL && *content != '\0')
        {
          g_string_append (stream->text, content);
          zot_provider_emit_text_delta (stream->provider, content);
        }

      for (guint j = 0; tool_calls != NULL && j < json_array_get_length (tool_calls); j++)
        {
          JsonObject *call = zot_json_array_get_object (tool_calls, j);

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
  JsonArray *content;
  g_autoptr(ZotProviderReply) reply = zot_http_provider_new_reply (&content);
  guint n_calls = 0;

  if (stream->reasoning->len > 0)
    json_array_add_object_element (content,
                                   zot_provider_new_thinking_block (stream->reasoning->str));

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
      json_array_add_object_element (content, zot_http_provider_new_tool_use (id, call->name, call->arguments->str));
      n_calls++;
    }

  zot_http_provider_set_stop_reason (reply, g_str_equal (stream->finish_reason, "length"), n_calls);
  /* prompt_tokens counts the cached ones too; input is what was not. */
  reply->input_tokens = stream->input_tokens;
  if (stream->input_tokens >= 0 && stream->cache_read_tokens >= 0)
    reply->input_tokens = MAX (stream->input_tokens - stream->cache_read_tokens, 0);
  reply->output_tokens = stream->output_tokens;
  reply->reasoning_tokens = stream->reasoning_tokens;
  reply->cache_read_tokens = stream->cache_read_tokens;
  /* Writing the cache is free and not counted. */
  reply->cache_write_tokens = stream->cache_read_tokens >= 0 ? 0 : -1;

  return g_steal_pointer (&reply);
}

static ZotProviderReply *
stream_end (gpointer   user_data,
            GError   **error)
{
  Stream *stream = user_data;

  if (!stream->done || stream->finish_reason == NULL)
    {
      g_set_error_literal (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                           _("the stream ended early"));
      return NULL;
    }

  return build_reply (stream, error);
}

/* ------------------------------------------------------------------ */
/* ZotHttpProvider                                                     */
/* ------------------------------------------------------------------ */

/* "…/v1" and a bare host both take the path after them; a URL that
 * already names the endpoint is used as it is. A query stays at the end:
 * the base URL's own, or else the row's (Azure's api-version). */
static char *
build_url (ZotHttpProvider *self,
           const char      *base)
{
  const char *row_query = zot_http_provider_get_info (self)->quirks.query;
  const char *mark = strchr (base, '?');
  g_autofree char *path = mark != NULL ? g_strndup (base, mark - base) : g_strdup (base);
  const char *query = mark != NULL ? mark + 1 : row_query;

  return g_strconcat (path, g_str_has_suffix (path, "/chat/completions") ? "" : "/chat/completions",
                      query != NULL ? "?" : "", query != NULL ? query : "", NULL);
}

/* A local server often needs no key: then no key header at all. */
static void
add_headers (ZotHttpProvider *self,
             GStrvBuilder    *headers)
{
  const ZotProviderQuirks *quirks = &zot_http_provider_get_info (self)->quirks;
  const char *api_key = zot_http_provider_get_api_key (self);

  for (guint i = 0; quirks->headers != NULL && quirks->headers[i] != NULL; i += 2)
    g_strv_builder_add_many (headers, quirks->headers[i], quirks->headers[i + 1], NULL);

  if (api_key == NULL)
    return;

  if (quirks->auth == ZOT_PROVIDER_AUTH_API_KEY)
    g_strv_builder_add_many (headers, "api-key", api_key, NULL);
  else
    {
      g_autofree char *authorization = g_strdup_printf ("Bearer %s", api_key);

      g_strv_builder_add_many (headers, "Authorization", authorization, NULL);
    }
}

static gpointer
stream_new (ZotHttpProvider *self)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->provider = ZOT_PROVIDER (self);
  stream->text = g_string_new (NULL);
  stream->reasoning = g_string_new (NULL);
  stream->calls = g_ptr_array_new_with_free_func (tool_call_free);
  stream->input_tokens = -1;
  stream->output_tokens = -1;
  stream->reasoning_tokens = -1;
  stream->cache_read_tokens = -1;
  return stream;
}

static void
zot_openai_provider_class_init (ZotOpenaiProviderClass *klass)
{
  ZotHttpProviderClass *http_class = ZOT_HTTP_PROVIDER_CLASS (klass);

  http_class->info = zot_provider_table_lookup ("openai");
  http_class->build_url = build_url;
  http_class->add_headers = add_headers;
  http_class->build_body = build_body;
  http_class->stream_new = stream_new;
  http_class->stream_free = stream_free;
  http_class->stream_event = on_event;
  http_class->stream_end = stream_end;
}

static void
zot_openai_provider_init (ZotOpenaiProvider *self)
{
}

/**
 * zot_openai_provider_new:
 * @config: the configuration; @config->name picks the row (OpenAI's own
 *   or a preset such as "groq" or "ollama"), @config->base_url points it
 *   at any compatible server, in which case a key is optional
 *
 * Returns: (transfer full): the provider, or %NULL with
 *   ZOT_PROVIDER_ERROR_CONFIG
 */
ZotProvider *
zot_openai_provider_new (const ZotProviderConfig  *config,
                         GError                  **error)
{
  const ZotProviderInfo *info;

  g_return_val_if_fail (config != NULL, NULL);

  info = zot_provider_table_lookup (config->name);
  /* Every OpenAI-compatible row is made here; the rest of the table and
   * no name at all mean OpenAI's own. */
  if (info == NULL || info->new_func != zot_openai_provider_new)
    info = zot_provider_table_lookup ("openai");

  return zot_http_provider_new_for_info (ZOT_TYPE_OPENAI_PROVIDER, info, config, error);
}
