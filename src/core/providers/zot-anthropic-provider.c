/* zot-anthropic-provider.c — the Anthropic Messages API, streamed.
 *
 * The request is translated from the zot-message.h shape ("tool" messages
 * become "user" messages of tool_result blocks, and neighbours of the same
 * role are merged, since the API wants them alternating). The answer is
 * read as SSE events: message_start, content_block_start/delta/stop for
 * text and tool_use blocks, message_delta with the stop reason and usage,
 * message_stop; an "error" event ends the call with its message.
 */
#define G_LOG_DOMAIN "zot-anthropic"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "zot-anthropic-provider.h"
#include "zot-sse.h"
#include "zot-json.h"

#define DEFAULT_BASE_URL   "https://api.anthropic.com"
#define DEFAULT_MODEL      "claude-sonnet-4-5"
#define DEFAULT_MAX_TOKENS 8192
#define API_VERSION        "2023-06-01"

/* A block index past this is a broken stream, not a big message. */
#define MAX_BLOCKS         1024

struct _ZotAnthropicProvider
{
  ZotProvider  parent_instance;

  SoupSession *session;
  char        *url;
  char        *api_key;
  char        *api_key_source;
};

G_DEFINE_FINAL_TYPE (ZotAnthropicProvider, zot_anthropic_provider, ZOT_TYPE_PROVIDER)

typedef enum
{
  BLOCK_OTHER,
  BLOCK_TEXT,
  BLOCK_TOOL_USE,
} BlockKind;

typedef struct
{
  BlockKind  kind;
  char      *id;
  char      *name;
  GString   *text;
  guint      call_index;
} Block;

typedef struct
{
  ZotProvider *provider;
  GPtrArray   *blocks;
  guint        n_calls;
  char        *stop_reason;
  gboolean     started;
  gboolean     stopped;
  gint64       input_tokens;
  gint64       output_tokens;
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
get_string_or_empty (JsonObject *object,
                     const char *name)
{
  const char *value = get_string (object, name);

  return value != NULL ? value : "";
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
  const char *mime = get_string (image, "mime_type");

  json_object_set_string_member (source, "type", "base64");
  json_object_set_string_member (source, "media_type", mime != NULL ? mime : "image/png");
  json_object_set_string_member (source, "data", get_string_or_empty (image, "data"));
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
          JsonObject *part = array_get_object (parts, i);
          const char *type = get_string (part, "type");

          /* The API refuses empty text blocks. */
          if (g_strcmp0 (type, "text") == 0 && *get_string_or_empty (part, "text") != '\0')
            json_array_add_object_element (content, text_block (get_string (part, "text")));
          else if (g_strcmp0 (type, "image") == 0)
            json_array_add_object_element (content, image_block (part));
        }
    }

  json_object_set_string_member (block, "type", "tool_result");
  json_object_set_string_member (block, "tool_use_id", get_string_or_empty (result, "tool_use_id"));
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
      JsonObject *block = array_get_object (content, i);
      const char *type = get_string (block, "type");

      if (type == NULL)
        continue;

      if (g_str_equal (type, "text"))
        {
          if (*get_string_or_empty (block, "text") != '\0')
            json_array_add_object_element (out, text_block (get_string (block, "text")));
        }
      else if (g_str_equal (type, "image"))
        json_array_add_object_element (out, image_block (block));
      else if (g_str_equal (type, "tool_use"))
        {
          JsonObject *use = json_object_new ();
          JsonObject *input = get_object (block, "input");

          json_object_set_string_member (use, "type", "tool_use");
          json_object_set_string_member (use, "id", get_string_or_empty (block, "id"));
          json_object_set_string_member (use, "name", get_string_or_empty (block, "name"));
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
  JsonObject *last = NULL;

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = array_get_object (messages, i);
      const char *role = get_string (message, "role");
      JsonArray *content = get_array (message, "content");
      g_autoptr(JsonArray) blocks = NULL;
      const char *api_role;

      if (message == NULL)
        continue;

      api_role = g_strcmp0 (role, "assistant") == 0 ? "assistant" : "user";

      if (content != NULL)
        blocks = translate_content (content);
      else
        {
          /* Be lenient with a plain string content. */
          blocks = json_array_new ();
          if (*get_string_or_empty (message, "content") != '\0')
            json_array_add_object_element (blocks, text_block (get_string (message, "content")));
        }

      /* An empty message is refused; dropping it loses nothing. */
      if (json_array_get_length (blocks) == 0)
        continue;

      if (last != NULL && g_str_equal (get_string (last, "role"), api_role))
        {
          JsonArray *into = json_object_get_array_member (last, "content");

          for (guint j = 0; j < json_array_get_length (blocks); j++)
            json_array_add_element (into, json_node_copy (json_array_get_element (blocks, j)));
          continue;
        }

      last = json_object_new ();
      json_object_set_string_member (last, "role", api_role);
      json_object_set_array_member (last, "content", g_steal_pointer (&blocks));
      json_array_add_object_element (out, last);
    }

  return out;
}

static GBytes *
build_body (ZotAnthropicProvider *self,
            ZotProviderRequest   *request)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonNode) root = NULL;
  const char *model = request->model != NULL && *request->model != '\0'
                      ? request->model : zot_provider_get_model (ZOT_PROVIDER (self));
  char *text;

  json_object_set_string_member (body, "model", model);
  json_object_set_int_member (body, "max_tokens",
                              request->max_tokens > 0 ? request->max_tokens : DEFAULT_MAX_TOKENS);
  if (request->system_prompt != NULL && *request->system_prompt != '\0')
    json_object_set_string_member (body, "system", request->system_prompt);
  json_object_set_array_member (body, "messages", translate_messages (request->messages));

  if (request->tools != NULL && json_array_get_length (request->tools) > 0)
    {
      JsonArray *tools = json_array_new ();

      for (guint i = 0; i < json_array_get_length (request->tools); i++)
        {
          JsonObject *tool = array_get_object (request->tools, i);
          JsonObject *entry;
          JsonNode *schema;

          if (tool == NULL || get_string (tool, "name") == NULL)
            continue;

          entry = json_object_new ();
          json_object_set_string_member (entry, "name", get_string (tool, "name"));
          if (get_string (tool, "description") != NULL)
            json_object_set_string_member (entry, "description", get_string (tool, "description"));
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

  root = json_node_init_object (json_node_alloc (), body);
  text = node_to_string (root);
  return g_bytes_new_take (text, strlen (text));
}

/* ------------------------------------------------------------------ */
/* The stream                                                          */
/* ------------------------------------------------------------------ */

static Block *
get_block (Stream      *stream,
           JsonObject  *event,
           GError     **error)
{
  gint64 index = get_int (event, "index", -1);

  if (index < 0 || index >= MAX_BLOCKS)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent a content block with index %" G_GINT64_FORMAT), index);
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
  JsonObject *content_block = get_object (event, "content_block");
  const char *type = get_string (content_block, "type");
  Block *block = get_block (stream, event, error);

  if (block == NULL)
    return FALSE;

  if (g_strcmp0 (type, "text") == 0)
    {
      const char *text = get_string (content_block, "text");

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
      block->id = g_strdup (get_string (content_block, "id"));
      g_free (block->name);
      block->name = g_strdup (get_string (content_block, "name"));
      block->call_index = stream->n_calls++;
      zot_provider_emit_tool_call_delta (stream->provider, block->call_index,
                                         block->id, block->name, "");
    }
  else
    {
      /* thinking, redacted_thinking, server tools: not ours to show. */
      block->kind = BLOCK_OTHER;
    }

  return TRUE;
}

static gboolean
handle_block_delta (Stream      *stream,
                    JsonObject  *event,
                    GError     **error)
{
  JsonObject *delta = get_object (event, "delta");
  const char *type = get_string (delta, "type");
  Block *block = get_block (stream, event, error);

  if (block == NULL)
    return FALSE;

  if (g_strcmp0 (type, "text_delta") == 0 && block->kind == BLOCK_TEXT)
    {
      const char *text = get_string_or_empty (delta, "text");

      g_string_append (block->text, text);
      zot_provider_emit_text_delta (stream->provider, text);
    }
  else if (g_strcmp0 (type, "input_json_delta") == 0 && block->kind == BLOCK_TOOL_USE)
    {
      const char *partial = get_string_or_empty (delta, "partial_json");

      g_string_append (block->text, partial);
      zot_provider_emit_tool_call_delta (stream->provider, block->call_index,
                                         block->id, block->name, partial);
    }
  else if (g_strcmp0 (type, "text_delta") == 0 || g_strcmp0 (type, "input_json_delta") == 0)
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent a %s for a block that did not start as one"), type);
      return FALSE;
    }

  return TRUE;
}

static gboolean
handle_error_event (JsonObject  *event,
                    const char  *data,
                    GError     **error)
{
  JsonObject *error_object = get_object (event, "error");
  const char *type = get_string (error_object, "type");
  const char *message = get_string (error_object, "message");
  ZotProviderError code = ZOT_PROVIDER_ERROR_BAD_STREAM;

  if (g_strcmp0 (type, "overloaded_error") == 0 || g_strcmp0 (type, "api_error") == 0)
    code = ZOT_PROVIDER_ERROR_SERVER;
  else if (g_strcmp0 (type, "rate_limit_error") == 0)
    code = ZOT_PROVIDER_ERROR_RATE_LIMITED;

  g_set_error (error, ZOT_PROVIDER_ERROR, code,
               _("the server reported an error in the stream: %s (%s)"),
               message != NULL ? message : data, type != NULL ? type : "error");
  return FALSE;
}

static gboolean
on_event (const char  *event_name,
          const char  *data,
          gpointer     user_data,
          GError     **error)
{
  Stream *stream = user_data;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  JsonObject *event;
  const char *type;

  if (!zot_json_parser_load (parser, data, -1, &local_error) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                   _("the stream sent malformed JSON in a “%s” event: %s"), event_name,
                   local_error != NULL ? local_error->message : _("not an object"));
      return FALSE;
    }

  event = json_node_get_object (json_parser_get_root (parser));
  type = get_string (event, "type");
  if (type == NULL)
    type = event_name;

  if (g_str_equal (type, "error"))
    return handle_error_event (event, data, error);

  if (g_str_equal (type, "message_start"))
    {
      JsonObject *usage = get_object (get_object (event, "message"), "usage");

      stream->started = TRUE;
      stream->input_tokens = get_int (usage, "input_tokens", stream->input_tokens);
      stream->output_tokens = get_int (usage, "output_tokens", stream->output_tokens);
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
      JsonObject *delta = get_object (event, "delta");
      JsonObject *usage = get_object (event, "usage");
      const char *stop_reason = get_string (delta, "stop_reason");

      if (stop_reason != NULL)
        {
          g_free (stream->stop_reason);
          stream->stop_reason = g_strdup (stop_reason);
        }
      stream->output_tokens = get_int (usage, "output_tokens", stream->output_tokens);
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
  ZotProviderReply *reply = zot_provider_reply_new ();
  JsonArray *content = json_array_new ();

  reply->message = json_object_new ();
  json_object_set_string_member (reply->message, "role", "assistant");
  json_object_set_array_member (reply->message, "content", content);

  for (guint i = 0; i < stream->blocks->len; i++)
    {
      Block *block = g_ptr_array_index (stream->blocks, i);

      if (block == NULL)
        continue;

      if (block->kind == BLOCK_TEXT && block->text->len > 0)
        json_array_add_object_element (content, text_block (block->text->str));
      else if (block->kind == BLOCK_TOOL_USE)
        {
          g_autofree char *id = NULL;

          if (block->id != NULL)
            id = g_strdup (block->id);
          else
            id = g_strdup_printf ("toolu_%u", block->call_index + 1);

          json_array_add_object_element (content,
                                         new_tool_use (id, block->name != NULL ? block->name : "",
                                                       block->text->str));
        }
    }

  if (g_strcmp0 (stream->stop_reason, "max_tokens") == 0)
    reply->stop_reason = g_strdup ("length");
  else if (stream->n_calls > 0)
    reply->stop_reason = g_strdup ("tool_use");
  else
    reply->stop_reason = g_strdup ("end_turn");

  reply->input_tokens = stream->input_tokens;
  reply->output_tokens = stream->output_tokens;
  return reply;
}

static void
stream_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Stream *stream = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (!zot_sse_post_finish (result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (!stream->stopped)
    {
      g_task_return_new_error (task, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                               _("the stream ended early"));
      return;
    }

  g_task_return_pointer (task, build_reply (stream), (GDestroyNotify) zot_provider_reply_free);
}

/* ------------------------------------------------------------------ */
/* ZotProvider                                                         */
/* ------------------------------------------------------------------ */

static const char *
zot_anthropic_provider_get_name (ZotProvider *provider)
{
  return "anthropic";
}

static const char *
zot_anthropic_provider_get_default_model (ZotProvider *provider)
{
  return DEFAULT_MODEL;
}

static void
zot_anthropic_provider_stream_async (ZotProvider         *provider,
                                     ZotProviderRequest  *request,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  ZotAnthropicProvider *self = (ZotAnthropicProvider *)provider;
  g_autoptr(GTask) task = NULL;
  g_autoptr(GBytes) body = NULL;
  const char *headers[] = {
    "x-api-key", self->api_key,
    "anthropic-version", API_VERSION,
    NULL
  };
  ZotSsePost post = { 0 };
  Stream *stream;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_anthropic_provider_stream_async);

  stream = g_new0 (Stream, 1);
  stream->provider = provider;
  stream->blocks = g_ptr_array_new_with_free_func (block_free);
  stream->input_tokens = -1;
  stream->output_tokens = -1;
  g_task_set_task_data (task, stream, stream_free);

  body = build_body (self, request);

  post.url = self->url;
  post.headers = headers;
  post.body = body;
  post.has_key = TRUE;
  post.key_source = self->api_key_source;
  post.key_env = "ANTHROPIC_API_KEY";

  zot_sse_post_async (self->session, &post, on_event, stream, cancellable,
                      stream_cb, g_steal_pointer (&task));
}

static ZotProviderReply *
zot_anthropic_provider_stream_finish (ZotProvider   *provider,
                                      GAsyncResult  *result,
                                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        zot_anthropic_provider_stream_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
zot_anthropic_provider_dispose (GObject *object)
{
  ZotAnthropicProvider *self = (ZotAnthropicProvider *)object;

  if (self->session != NULL)
    soup_session_abort (self->session);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (zot_anthropic_provider_parent_class)->dispose (object);
}

static void
zot_anthropic_provider_finalize (GObject *object)
{
  ZotAnthropicProvider *self = (ZotAnthropicProvider *)object;

  g_clear_pointer (&self->url, g_free);
  g_clear_pointer (&self->api_key, g_free);
  g_clear_pointer (&self->api_key_source, g_free);

  G_OBJECT_CLASS (zot_anthropic_provider_parent_class)->finalize (object);
}

static void
zot_anthropic_provider_class_init (ZotAnthropicProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  ZotProviderClass *provider_class = ZOT_PROVIDER_CLASS (klass);

  object_class->dispose = zot_anthropic_provider_dispose;
  object_class->finalize = zot_anthropic_provider_finalize;

  provider_class->get_name = zot_anthropic_provider_get_name;
  provider_class->get_default_model = zot_anthropic_provider_get_default_model;
  provider_class->stream_async = zot_anthropic_provider_stream_async;
  provider_class->stream_finish = zot_anthropic_provider_stream_finish;
}

static void
zot_anthropic_provider_init (ZotAnthropicProvider *self)
{
  self->session = zot_sse_session_new ();
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
  g_autoptr(ZotAnthropicProvider) self = NULL;
  g_autofree char *base = NULL;
  g_autoptr(GUri) uri = NULL;
  gsize len;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (config->api_key == NULL || *config->api_key == '\0')
    {
      g_set_error_literal (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                           _("no Anthropic API key: set $ANTHROPIC_API_KEY or pass --api-key"));
      return NULL;
    }

  base = g_strstrip (g_strdup (config->base_url != NULL && *config->base_url != '\0'
                               ? config->base_url : DEFAULT_BASE_URL));
  len = strlen (base);
  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';

  uri = g_uri_parse (base, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL ||
      (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 &&
       g_strcmp0 (g_uri_get_scheme (uri), "https") != 0) ||
      g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0')
    {
      g_set_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                   _("the base URL “%s” is not an http or https URL"), config->base_url);
      return NULL;
    }

  self = g_object_new (ZOT_TYPE_ANTHROPIC_PROVIDER, NULL);
  /* Accept a base that already ends in "/v1" or names the endpoint. */
  if (g_str_has_suffix (base, "/v1/messages"))
    self->url = g_steal_pointer (&base);
  else if (g_str_has_suffix (base, "/v1"))
    self->url = g_strconcat (base, "/messages", NULL);
  else
    self->url = g_strconcat (base, "/v1/messages", NULL);

  self->api_key = g_strdup (config->api_key);
  self->api_key_source = g_strdup (config->api_key_source);

  if (config->model != NULL && *config->model != '\0')
    zot_provider_set_model (ZOT_PROVIDER (self), config->model);

  return ZOT_PROVIDER (g_steal_pointer (&self));
}
