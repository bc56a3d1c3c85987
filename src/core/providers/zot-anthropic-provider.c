/* zot-anthropic-provider.c — the Anthropic Messages API, streamed.
 *
 * The request is translated from the zot-message.h shape ("tool" messages
 * become "user" messages of tool_result blocks, and neighbours of the same
 * role are merged, since the API wants them alternating). The answer is
 * read as SSE events: message_start, content_block_start/delta/stop for
 * text and tool_use blocks, message_delta with the stop reason and usage,
 * message_stop; an "error" event ends the call with its message.
 *
 * A reasoning level turns on extended thinking with a budget; the thinking
 * streams as ::reasoning-delta, and its blocks are kept in the message,
 * signature and all, since the API wants them back before the tool results
 * that follow.
 */
#define G_LOG_DOMAIN "zot-anthropic"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-anthropic-provider.h"
#include "zot-json.h"
#include "zot-provider-table.h"
#include "zot-sse.h"

/* The output budget of a request that sets none: the API requires one. */
#define DEFAULT_MAX_TOKENS 8192
#define API_VERSION        "2023-06-01"

/* A block index past this is a broken stream, not a big message. */
#define MAX_BLOCKS         1024

/* Extended thinking budgets per reasoning level, in tokens; the API's
 * least is 1024, and the answer gets DEFAULT_MAX_TOKENS on top. */
#define MIN_THINKING_BUDGET 1024
static const guint thinking_budgets[] = {
  [ZOT_REASONING_DEFAULT] = 0,
  [ZOT_REASONING_OFF] = 0,
  [ZOT_REASONING_MINIMUM] = MIN_THINKING_BUDGET,
  [ZOT_REASONING_LOW] = 4096,
  [ZOT_REASONING_MEDIUM] = 10000,
  [ZOT_REASONING_HIGH] = 16000,
  [ZOT_REASONING_XHIGH] = 32000,
  [ZOT_REASONING_MAX] = 64000,
};

struct _ZotAnthropicProvider
{
  ZotHttpProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotAnthropicProvider, zot_anthropic_provider, ZOT_TYPE_HTTP_PROVIDER)

typedef enum
{
  BLOCK_OTHER,
  BLOCK_TEXT,
  BLOCK_TOOL_USE,
  BLOCK_THINKING,
  BLOCK_REDACTED_THINKING,
} BlockKind;

typedef struct
{
  BlockKind  kind;
  char      *id;
  char      *name;
  GString   *text;
  GString   *signature;
  guint      call_index;
} Block;

typedef struct
{
  ZotProvider *provider;
  GPtrArray   *blocks;
  guint        n_calls;
  gsize        reasoning_bytes;
  char        *stop_reason;
  gboolean     started;
  gboolean     stopped;
  gint64       input_tokens;
  gint64       output_tokens;
  gint64       cache_read_tokens;
  gint64       cache_write_tokens;
} Stream;

static void
block_free (gpointer user_data)
{
  Block *block = user_data;

  if (block == NULL)
    return;

  g_free (block->id);
  g_free (block->name);
  g_string_free (block->text, TRUE);
  if (block->signature != NULL)
    g_string_free (block->signature, TRUE);
  g_free (block);
}

static void
stream_free (gpointer user_data)
{
  Stream *stream = user_data;

  g_ptr_array_unref (stream->blocks);
  g_free (stream->stop_reason);
  g_free (stream);
}

/* ------------------------------------------------------------------ */
/* The request                                                         */
/* ------------------------------------------------------------------ */

static JsonObject *
text_block (const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  return block;
}

static JsonObject *
image_block (JsonObject *image)
{
  JsonObject *block = json_object_new ();
  JsonObject *source = json_object_new ();
  const char *mime = zot_json_get_string (image, "mime_type");

  json_object_set_string_member (source, "type", "base64");
  json_object_set_string_member (source, "media_type", mime != NULL ? mime : "image/png");
  json_object_set_string_member (source, "data", zot_json_get_string_or (image, "data", ""));
  json_object_set_string_member (block, "type", "image");
  json_object_set_object_member (block, "source", source);
  return block;
}

static JsonObject *
tool_result_block (JsonObject *result)
{
  JsonObject *block = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonNode *node = json_object_get_member (result, "content");

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    {
      if (*json_node_get_string (node) != '\0')
        json_array_add_object_element (content, text_block (json_node_get_string (node)));
    }
  else if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *parts = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonObject *part = zot_json_array_get_object (parts, i);
          const char *type = zot_json_get_string (part, "type");

          /* The API refuses empty text blocks. */
          if (g_strcmp0 (type, "text") == 0 && *zot_json_get_string_or (part, "text", "") != '\0')
            json_array_add_object_element (content, text_block (zot_json_get_string (part, "text")));
          else if (g_strcmp0 (type, "image") == 0)
            json_array_add_object_element (content, image_block (part));
        }
    }

  json_object_set_string_member (block, "type", "tool_result");
  json_object_set_string_member (block, "tool_use_id", zot_json_get_string_or (result, "tool_use_id", ""));
  json_object_set_array_member (block, "content", content);
  if (json_object_get_boolean_member_with_default (result, "is_error", FALSE))
    json_object_set_boolean_member (block, "is_error", TRUE);
  return block;
}

/* The API blocks of one message, in its order. */
static JsonArray *
translate_content (JsonArray *content)
{
  JsonArray *out = json_array_new ();

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = zot_json_array_get_object (content, i);
      const char *type = zot_json_get_string (block, "type");

      if (type == NULL)
        continue;

      if (g_str_equal (type, "text"))
        {
          if (*zot_json_get_string_or (block, "text", "") != '\0')
            json_array_add_object_element (out, text_block (zot_json_get_string (block, "text")));
        }
      else if (g_str_equal (type, "image"))
        json_array_add_object_element (out, image_block (block));
      /* Reasoning another provider wrote has no signature the API takes. */
      else if (g_str_equal (type, "thinking") &&
               *zot_json_get_string_or (block, "signature", "") != '\0')
        {
          const char *text = zot_json_get_string_or (block, "thinking", "");
          JsonObject *thinking = zot_provider_new_thinking_block (text);

          json_object_set_string_member (thinking, "signature", zot_json_get_string (block, "signature"));
          json_array_add_object_element (out, thinking);
        }
      else if (g_str_equal (type, "redacted_thinking") && zot_json_get_string (block, "data") != NULL)
        {
          JsonObject *redacted = json_object_new ();

          json_object_set_string_member (redacted, "type", "redacted_thinking");
          json_object_set_string_member (redacted, "data", zot_json_get_string (block, "data"));
          json_array_add_object_element (out, redacted);
        }
      else if (g_str_equal (type, "tool_use"))
        {
          JsonObject *use = json_object_new ();
          JsonObject *input = zot_json_get_object (block, "input");

          json_object_set_string_member (use, "type", "tool_use");
          json_object_set_string_member (use, "id", zot_json_get_string_or (block, "id", ""));
          json_object_set_string_member (use, "name", zot_json_get_string_or (block, "name", ""));
          json_object_set_object_member (use, "input",
                                         input != NULL ? json_object_ref (input)
                                                       : json_object_new ());
          json_array_add_object_element (out, use);
        }
      else if (g_str_equal (type, "tool_result"))
        json_array_add_object_element (out, tool_result_block (block));
    }

  return out;
}

static JsonArray *
translate_messages (JsonArray *messages)
{
  JsonArray *out = json_array_new ();

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = zot_json_array_get_object (messages, i);
      const char *role = zot_json_get_string (message, "role");
      JsonArray *content = zot_json_get_array (message, "content");
      g_autoptr(JsonArray) blocks = NULL;

      if (message == NULL)
        continue;

      if (content != NULL)
        blocks = translate_content (content);
      else
        {
          /* Be lenient with a plain string content. */
          blocks = json_array_new ();
          if (*zot_json_get_string_or (message, "content", "") != '\0')
            json_array_add_object_element (blocks, text_block (zot_json_get_string (message, "content")));
        }

      zot_http_provider_add_turn (out, g_strcmp0 (role, "assistant") == 0 ? "assistant" : "user",
                                  "content", blocks);
    }

  return out;
}

/* Extended thinking for @request's level, clamped to the model's output
 * limit where the table knows it; none for a model it knows cannot think. */
static void
add_thinking (JsonObject         *body,
              const char         *model_id,
              ZotProviderRequest *request)
{
  const ZotModelInfo *model = zot_model_info_lookup ("anthropic", model_id);
  guint budget = thinking_budgets[request->reasoning];
  guint max_tokens = request->max_tokens > 0 ? request->max_tokens : DEFAULT_MAX_TOKENS;
  JsonObject *thinking;

  if (budget == 0 || (model != NULL && !model->reasoning))
    return;

  max_tokens = MAX (max_tokens, budget + DEFAULT_MAX_TOKENS);
  if (model != NULL && model->max_output > 0 && max_tokens > model->max_output)
    {
      max_tokens = model->max_output;
      budget = MAX (MIN (budget, max_tokens - MIN_THINKING_BUDGET), MIN_THINKING_BUDGET);
    }

  thinking = json_object_new ();
  json_object_set_string_member (thinking, "type", "enabled");
  json_object_set_int_member (thinking, "budget_tokens", budget);
  json_object_set_object_member (body, "thinking", thinking);
  json_object_set_int_member (body, "max_tokens", max_tokens);
}

static JsonObject *
build_body (ZotHttpProvider    *self,
            ZotProviderRequest *request)
{
  JsonObject *body = json_object_new ();
  const char *model = zot_http_provider_request_model (self, request);

  json_object_set_string_member (body, "model", model);
  json_object_set_int_member (body, "max_tokens",
                              request->max_tokens > 0 ? request->max_tokens : DEFAULT_MAX_TOKENS);
  add_thinking (body, model, request);
  if (request->system_prompt != NULL && *request->system_prompt != '\0')
    json_object_set_string_member (body, "system", request->system_prompt);
  json_object_set_array_member (body, "messages", translate_messages (request->messages));

  if (request->tools != NULL && json_array_get_length (request->tools) > 0)
    {
      JsonArray *tools = json_array_new ();

      for (guint i = 0; i < json_array_get_length (request->tools); i++)
        {
          JsonObject *tool = zot_json_array_get_object (request->tools, i);
          JsonObject *entry;
          JsonNode *schema;

          if (tool == NULL || zot_json_get_string (tool, "name") == NULL)
            continue;

          entry = json_object_new ();
          json_object_set_string_member (entry, "name", zot_json_get_string (tool, "name"));
          if (zot_json_get_string (tool, "description") != NULL)
            json_object_set_string_member (entry, "description", zot_json_get_string (tool, "description"));
          schema = json_object_get_member (tool, "input_schema");
          if (schema != NULL && JSON_NODE_HOLDS_OBJECT (schema))
            json_object_set_member (entry, "input_schema", json_node_copy (schema));
          else
            {
              JsonObject *input_schema = json_object_new ();

              json_object_set_string_member (input_schema, "type", "object");
              json_object_set_object_member (input_schema, "properties", json_object_new ());
              json_object_set_object_member (entry, "input_schema", input_schema);
            }
          json_array_add_object_element (tools, entry);
        }
      json_object_set_array_member (body, "tools", tools);
    }

  json_object_set_boolean_member (body, "stream", TRUE);

  return body;
}

/* ------------------------------------------------------------------ */
/* The stream                                                          */
/* ------------------------------------------------------------------ */

static Block *
get_block (Stream      *stream,
           JsonObject  *event,
           GError     **error)
{
  gint64 index = zot_json_get_int_or (event, "index", -1);

  if (index < 0 || index >= MAX_BLOCKS)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent a content block with index %lld"), (long long) index);
      return NULL;
    }

  if ((guint) index >= stream->blocks->len)
    g_ptr_array_set_size (stream->blocks, index + 1);

  if (g_ptr_array_index (stream->blocks, index) == NULL)
    {
      Block *block = g_new0 (Block, 1);

      block->text = g_string_new (NULL);
      g_ptr_array_index (stream->blocks, index) = block;
    }

  return g_ptr_array_index (stream->blocks, index);
}

static gboolean
handle_block_start (Stream      *stream,
                    JsonObject  *event,
                    GError     **error)
{
  JsonObject *content_block = zot_json_get_object (event, "content_block");
  const char *type = zot_json_get_string (content_block, "type");
  Block *block = get_block (stream, event, error);

  if (block == NULL)
    return FALSE;

  if (g_strcmp0 (type, "text") == 0)
    {
      const char *text = zot_json_get_string (content_block, "text");

      block->kind = BLOCK_TEXT;
      if (text != NULL && *text != '\0')
        {
          g_string_append (block->text, text);
          zot_provider_emit_text_delta (stream->provider, text);
        }
    }
  else if (g_strcmp0 (type, "tool_use") == 0)
    {
      block->kind = BLOCK_TOOL_USE;
      g_free (block->id);
      block->id = g_strdup (zot_json_get_string (content_block, "id"));
      g_free (block->name);
      block->name = g_strdup (zot_json_get_string (content_block, "name"));
      block->call_index = stream->n_calls++;
      zot_provider_emit_tool_call_delta (stream->provider, block->call_index,
                                         block->id, block->name, "");
    }
  else if (g_strcmp0 (type, "thinking") == 0)
    {
      block->kind = BLOCK_THINKING;
      if (block->signature == NULL)
        block->signature = g_string_new (NULL);
      g_string_append (block->signature, zot_json_get_string_or (content_block, "signature", ""));
      return zot_provider_add_reasoning (stream->provider, block->text, &stream->reasoning_bytes,
                                         zot_json_get_string (content_block, "thinking"), error);
    }
  else if (g_strcmp0 (type, "redacted_thinking") == 0)
    {
      block->kind = BLOCK_REDACTED_THINKING;
      g_string_append (block->text, zot_json_get_string_or (content_block, "data", ""));
    }
  else
    {
      /* Server tools: not ours to show. */
      block->kind = BLOCK_OTHER;
    }

  return TRUE;
}

static gboolean
handle_block_delta (Stream      *stream,
                    JsonObject  *event,
                    GError     **error)
{
  JsonObject *delta = zot_json_get_object (event, "delta");
  const char *type = zot_json_get_string (delta, "type");
  Block *block = get_block (stream, event, error);

  if (block == NULL)
    return FALSE;

  if (g_strcmp0 (type, "text_delta") == 0 && block->kind == BLOCK_TEXT)
    {
      const char *text = zot_json_get_string_or (delta, "text", "");

      g_string_append (block->text, text);
      zot_provider_emit_text_delta (stream->provider, text);
    }
  else if (g_strcmp0 (type, "input_json_delta") == 0 && block->kind == BLOCK_TOOL_USE)
    {
      const char *partial = zot_json_get_string_or (delta, "partial_json", "");

      g_string_append (block->text, partial);
      zot_provider_emit_tool_call_delta (stream->provider, block->call_index,
                                         block->id, block->name, partial);
    }
  else if (g_strcmp0 (type, "thinking_delta") == 0 && block->kind == BLOCK_THINKING)
    return zot_provider_add_reasoning (stream->provider, block->text, &stream->reasoning_bytes,
                                       zot_json_get_string (delta, "thinking"), error);
  else if (g_strcmp0 (type, "signature_delta") == 0 && block->kind == BLOCK_THINKING)
    g_string_append (block->signature, zot_json_get_string_or (delta, "signature", ""));
  else if (g_strcmp0 (type, "text_delta") == 0 || g_strcmp0 (type, "input_json_delta") == 0)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   /* Translators: %s is the kind of data the stream sent (not translated), e.g.
                    * text_delta */
                   _("the stream sent a %s for a block that did not start as one"), type);
      return FALSE;
    }

  return TRUE;
}

/* Anthropic sends "overloaded" also as an event of a 200 answer. Before
 * any block began it is the 529 it stands for and is asked again; after,
 * part of the answer was shown and the turn ends. */
static gboolean
handle_error_event (Stream      *stream,
                    JsonObject  *event,
                    const char  *data,
                    GError     **error)
{
  JsonObject *error_object = zot_json_get_object (event, "error");
  const char *type = zot_json_get_string (error_object, "type");
  const char *message = zot_json_get_string (error_object, "message");
  guint status = zot_sse_stream_error_status (type, 0);
  GQuark domain = ZOT_PROVIDER_ERROR;
  gint code = ZOT_PROVIDER_ERROR_BAD_STREAM;

  if (status == 429)
    code = ZOT_PROVIDER_ERROR_RATE_LIMITED;
  else if (status != 0)
    code = ZOT_PROVIDER_ERROR_SERVER;
  if (status != 0 && stream->blocks->len == 0)
    {
      domain = ZOT_SSE_RETRYABLE_ERROR;
      code = (gint) status;
    }

  g_set_error (error, domain, code,
               _("the server reported an error in the stream: %s (%s)"),
               message != NULL ? message : data, type != NULL ? type : "error");
  return FALSE;
}

/* message_start has the input side, message_delta the final counts; a
 * figure either leaves out keeps the one before. */
static void
read_usage (Stream     *stream,
            JsonObject *usage)
{
  stream->input_tokens = zot_json_get_int_or (usage, "input_tokens", stream->input_tokens);
  stream->output_tokens = zot_json_get_int_or (usage, "output_tokens", stream->output_tokens);
  stream->cache_read_tokens = zot_json_get_int_or (usage, "cache_read_input_tokens", stream->cache_read_tokens);
  stream->cache_write_tokens = zot_json_get_int_or (usage, "cache_creation_input_tokens",
                                                    stream->cache_write_tokens);
}

static gboolean
on_event (const char  *event_name,
          const char  *data,
          gpointer     user_data,
          GError     **error)
{
  Stream *stream = user_data;
  g_autoptr(JsonObject) event = NULL;
  const char *type;

  event = zot_http_provider_parse_event (event_name, data, error);
  if (event == NULL)
    return FALSE;

  type = zot_json_get_string (event, "type");
  if (type == NULL)
    type = event_name;

  if (g_str_equal (type, "error"))
    return handle_error_event (stream, event, data, error);

  if (g_str_equal (type, "message_start"))
    {
      JsonObject *usage = zot_json_get_object (zot_json_get_object (event, "message"), "usage");

      stream->started = TRUE;
      read_usage (stream, usage);
      return TRUE;
    }

  if (!stream->started && !g_str_equal (type, "ping"))
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent “%s” before message_start"), type);
      return FALSE;
    }

  if (g_str_equal (type, "content_block_start"))
    return handle_block_start (stream, event, error);

  if (g_str_equal (type, "content_block_delta"))
    return handle_block_delta (stream, event, error);

  if (g_str_equal (type, "message_delta"))
    {
      JsonObject *delta = zot_json_get_object (event, "delta");
      JsonObject *usage = zot_json_get_object (event, "usage");
      const char *stop_reason = zot_json_get_string (delta, "stop_reason");

      if (stop_reason != NULL)
        {
          g_free (stream->stop_reason);
          stream->stop_reason = g_strdup (stop_reason);
        }
      read_usage (stream, usage);
      return TRUE;
    }

  if (g_str_equal (type, "message_stop"))
    {
      stream->stopped = TRUE;
      return FALSE;
    }

  /* ping, content_block_stop and whatever a newer API adds. */
  return TRUE;
}

static ZotProviderReply *
build_reply (Stream *stream)
{
  JsonArray *content;
  ZotProviderReply *reply = zot_http_provider_new_reply (&content);

  for (guint i = 0; i < stream->blocks->len; i++)
    {
      Block *block = g_ptr_array_index (stream->blocks, i);

      if (block == NULL)
        continue;

      if (block->kind == BLOCK_TEXT && block->text->len > 0)
        json_array_add_object_element (content, text_block (block->text->str));
      else if (block->kind == BLOCK_THINKING && (block->signature->len > 0 || block->text->len > 0))
        {
          JsonObject *thinking = zot_provider_new_thinking_block (block->text->str);

          /* Unsigned thinking is still shown, but the API would refuse it back. */
          if (block->signature->len > 0)
            json_object_set_string_member (thinking, "signature", block->signature->str);
          json_array_add_object_element (content, thinking);
        }
      else if (block->kind == BLOCK_REDACTED_THINKING && block->text->len > 0)
        {
          JsonObject *redacted = json_object_new ();

          json_object_set_string_member (redacted, "type", "redacted_thinking");
          json_object_set_string_member (redacted, "data", block->text->str);
          json_array_add_object_element (content, redacted);
        }
      else if (block->kind == BLOCK_TOOL_USE)
        {
          g_autofree char *id = NULL;

          if (block->id != NULL)
            id = g_strdup (block->id);
          else
            id = g_strdup_printf ("toolu_%u", block->call_index + 1);

          json_array_add_object_element (content,
                                         zot_http_provider_new_tool_use (id, block->name != NULL ? block->name : "",
                                                       block->text->str));
        }
    }

  zot_http_provider_set_stop_reason (reply, g_strcmp0 (stream->stop_reason, "max_tokens") == 0,
                                     stream->n_calls);
  reply->input_tokens = stream->input_tokens;
  reply->output_tokens = stream->output_tokens;
  reply->cache_read_tokens = stream->cache_read_tokens;
  reply->cache_write_tokens = stream->cache_write_tokens;
  return reply;
}

static ZotProviderReply *
stream_end (gpointer   user_data,
            GError   **error)
{
  Stream *stream = user_data;

  if (!stream->stopped)
    {
      g_set_error_literal (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                           _("the stream ended early"));
      return NULL;
    }

  return build_reply (stream);
}

/* ------------------------------------------------------------------ */
/* ZotHttpProvider                                                     */
/* ------------------------------------------------------------------ */

/* Accepts a base that already ends in "/v1" or names the endpoint. */
static char *
build_url (ZotHttpProvider *self,
           const char      *base)
{
  if (g_str_has_suffix (base, "/v1/messages"))
    return g_strdup (base);
  if (g_str_has_suffix (base, "/v1"))
    return g_strconcat (base, "/messages", NULL);
  return g_strconcat (base, "/v1/messages", NULL);
}

static void
add_headers (ZotHttpProvider *self,
             GStrvBuilder    *headers)
{
  g_strv_builder_add_many (headers,
                           "x-api-key", zot_http_provider_get_api_key (self),
                           "anthropic-version", API_VERSION,
                           NULL);
}

static gpointer
stream_new (ZotHttpProvider *self)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->provider = ZOT_PROVIDER (self);
  stream->blocks = g_ptr_array_new_with_free_func (block_free);
  stream->input_tokens = -1;
  stream->output_tokens = -1;
  stream->cache_read_tokens = -1;
  stream->cache_write_tokens = -1;
  return stream;
}

static void
zot_anthropic_provider_class_init (ZotAnthropicProviderClass *klass)
{
  ZotHttpProviderClass *http_class = ZOT_HTTP_PROVIDER_CLASS (klass);

  http_class->info = zot_provider_table_lookup ("anthropic");
  http_class->build_url = build_url;
  http_class->add_headers = add_headers;
  http_class->build_body = build_body;
  http_class->stream_new = stream_new;
  http_class->stream_free = stream_free;
  http_class->stream_event = on_event;
  http_class->stream_end = stream_end;
}

static void
zot_anthropic_provider_init (ZotAnthropicProvider *self)
{
}

/**
 * zot_anthropic_provider_new:
 * @config: the configuration; a key is required
 *
 * Returns: (transfer full): the provider, or %NULL with
 *   ZOT_PROVIDER_ERROR_CONFIG
 */
ZotProvider *
zot_anthropic_provider_new (const ZotProviderConfig  *config,
                            GError                  **error)
{
  return zot_http_provider_new (ZOT_TYPE_ANTHROPIC_PROVIDER, config, error);
}
