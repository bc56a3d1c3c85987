/* zot-fake-server.c — a scripted HTTP server for the provider and agent tests.
 *
 * Streams use chunked encoding on a paused SoupServerMessage: an idle
 * source appends one event and unpauses; libsoup pauses the message again
 * when it runs out of body, and its ::wrote-chunk schedules the next event.
 * A cut stream writes, after the last event, the start of a chunk that never
 * completes and shuts the socket down, so the client's read fails as it
 * would when a server dies.
 */
#define G_LOG_DOMAIN "zot-fake-server"

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "zot-fake-server.h"

typedef enum
{
  SCRIPT_JSON,
  SCRIPT_SSE,
  SCRIPT_CUT,
  SCRIPT_HANG,
  SCRIPT_ENDLESS,
  SCRIPT_RESET,
} ScriptKind;

typedef struct
{
  ScriptKind  kind;
  guint       status;
  char       *body;
  char       *retry_after;
  GStrv       events;
  char       *repeat;       /* SCRIPT_ENDLESS: sent again and again after events */
} Script;

typedef struct
{
  char               *path;
  char               *query;
  SoupMessageHeaders *headers;
  JsonObject         *body;
} Request;

typedef struct
{
  SoupServerMessage *msg;
  Script            *script;
  guint              next;
  GSource           *idle;
  gulong             wrote_chunk_id;
  gulong             finished_id;
  gboolean           finished;
} Stream;

struct _ZotFakeServer
{
  SoupServer *soup;
  char       *url;
  GQueue      scripts;
  GPtrArray  *requests;
  GPtrArray  *streams;
};

static void
script_free (Script *script)
{
  g_free (script->body);
  g_free (script->retry_after);
  g_strfreev (script->events);
  g_free (script->repeat);
  g_free (script);
}

static void
request_free (gpointer user_data)
{
  Request *request = user_data;

  g_free (request->path);
  g_free (request->query);
  g_clear_pointer (&request->headers, soup_message_headers_unref);
  g_clear_pointer (&request->body, json_object_unref);
  g_free (request);
}

static void
stream_stop (Stream *stream)
{
  if (stream->idle != NULL)
    {
      g_source_destroy (stream->idle);
      g_clear_pointer (&stream->idle, g_source_unref);
    }
  g_clear_signal_handler (&stream->wrote_chunk_id, stream->msg);
  g_clear_signal_handler (&stream->finished_id, stream->msg);
  stream->finished = TRUE;
}

static void
stream_free (gpointer user_data)
{
  Stream *stream = user_data;

  stream_stop (stream);
  g_clear_object (&stream->msg);
  g_clear_pointer (&stream->script, script_free);
  g_free (stream);
}

static void
stream_close_now (Stream *stream)
{
  /* A chunk header promising more than follows, then the end of the
   * connection: a server that died mid-write. This goes to the socket
   * itself, past libsoup, which would otherwise end the chunked body
   * properly ("0\r\n\r\n") as it lets go of the connection. */
  static const char partial[] = "40\r\ndata: {\"cut";
  GSocket *socket = soup_server_message_get_socket (stream->msg);

  stream_stop (stream);
  if (socket != NULL)
    {
      g_socket_send (socket, partial, strlen (partial), NULL, NULL);
      g_socket_shutdown (socket, TRUE, TRUE, NULL);
    }
}

static gboolean
stream_idle_cb (gpointer user_data)
{
  Stream *stream = user_data;
  SoupMessageBody *body = soup_server_message_get_response_body (stream->msg);
  const char *event;

  g_clear_pointer (&stream->idle, g_source_unref);
  if (stream->finished)
    return G_SOURCE_REMOVE;

  event = stream->script->events != NULL ? stream->script->events[stream->next] : NULL;
  if (event != NULL)
    {
      char *text = g_strconcat (event, "\n\n", NULL);

      stream->next++;
      soup_message_body_append (body, SOUP_MEMORY_TAKE, text, strlen (text));
      soup_server_message_unpause (stream->msg);
      return G_SOURCE_REMOVE;
    }

  switch (stream->script->kind)
    {
    case SCRIPT_SSE:
      soup_message_body_complete (body);
      soup_server_message_unpause (stream->msg);
      /* Nothing more to write; libsoup finishes the message. */
      stream_stop (stream);
      break;

    case SCRIPT_CUT:
      stream_close_now (stream);
      break;

    case SCRIPT_ENDLESS:
      soup_message_body_append (body, SOUP_MEMORY_TAKE, g_strconcat (stream->script->repeat, "\n\n", NULL),
                                strlen (stream->script->repeat) + 2);
      soup_server_message_unpause (stream->msg);
      break;

    case SCRIPT_HANG:
    case SCRIPT_JSON:
    default:
      /* Stay paused until the client gives up or the server is freed. */
      break;
    }

  return G_SOURCE_REMOVE;
}

static void
stream_schedule (Stream *stream)
{
  if (stream->finished || stream->idle != NULL)
    return;

  stream->idle = g_idle_source_new ();
  g_source_set_callback (stream->idle, stream_idle_cb, stream, NULL);
  g_source_set_static_name (stream->idle, "[zot-fake-server] stream");
  g_source_attach (stream->idle, g_main_context_get_thread_default ());
}

static void
stream_wrote_chunk_cb (SoupServerMessage *msg,
                       gpointer           user_data)
{
  stream_schedule (user_data);
}

static void
stream_finished_cb (SoupServerMessage *msg,
                    gpointer           user_data)
{
  stream_stop (user_data);
}

static void
record_request (ZotFakeServer     *self,
                SoupServerMessage *msg)
{
  Request *request = g_new0 (Request, 1);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);

  request->path = g_strdup (g_uri_get_path (soup_server_message_get_uri (msg)));
  request->query = g_strdup (g_uri_get_query (soup_server_message_get_uri (msg)));
  request->headers = soup_message_headers_ref (soup_server_message_get_request_headers (msg));
  if (size > 0 && json_parser_load_from_data (parser, data, size, NULL) &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    request->body = json_object_ref (json_node_get_object (json_parser_get_root (parser)));

  g_ptr_array_add (self->requests, request);
}

static void
server_cb (SoupServer        *soup,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  ZotFakeServer *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  Script *script;
  Stream *stream;

  record_request (self, msg);

  script = g_queue_pop_head (&self->scripts);
  if (script == NULL)
    {
      static const char body[] = "{\"error\":{\"message\":\"no scripted response left\"}}";

      soup_server_message_set_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        body, strlen (body));
      return;
    }

  if (script->kind == SCRIPT_RESET)
    {
      GSocket *socket = soup_server_message_get_socket (msg);

      /* Nothing of an answer, not even its status line: a server that
       * dropped the connection. */
      g_socket_shutdown (socket, TRUE, TRUE, NULL);
      soup_server_message_set_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
      script_free (script);
      return;
    }

  if (script->kind == SCRIPT_JSON)
    {
      soup_server_message_set_status (msg, script->status, NULL);
      if (script->retry_after != NULL)
        soup_message_headers_replace (headers, "Retry-After", script->retry_after);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                        script->body, strlen (script->body));
      script_free (script);
      return;
    }

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);

  stream = g_new0 (Stream, 1);
  stream->msg = g_object_ref (msg);
  stream->script = script;
  stream->wrote_chunk_id = g_signal_connect (msg, "wrote-chunk",
                                             G_CALLBACK (stream_wrote_chunk_cb), stream);
  stream->finished_id = g_signal_connect (msg, "finished",
                                          G_CALLBACK (stream_finished_cb), stream);
  g_ptr_array_add (self->streams, stream);

  soup_server_message_pause (msg);
  stream_schedule (stream);
}

ZotFakeServer *
zot_fake_server_new (void)
{
  ZotFakeServer *self = g_new0 (ZotFakeServer, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;
  char *url;
  gsize len;

  self->soup = soup_server_new (NULL, NULL);
  self->requests = g_ptr_array_new_with_free_func (request_free);
  self->streams = g_ptr_array_new_with_free_func (stream_free);
  g_queue_init (&self->scripts);

  soup_server_add_handler (self->soup, NULL, server_cb, self, NULL);
  soup_server_listen_local (self->soup, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (self->soup);
  g_assert_nonnull (uris);
  url = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  len = strlen (url);
  while (len > 0 && url[len - 1] == '/')
    url[--len] = '\0';
  self->url = url;

  return self;
}

void
zot_fake_server_free (ZotFakeServer *self)
{
  if (self == NULL)
    return;

  /* Stop writing before the connections go, then drop them. */
  for (guint i = 0; i < self->streams->len; i++)
    stream_stop (g_ptr_array_index (self->streams, i));
  soup_server_disconnect (self->soup);
  g_ptr_array_unref (self->streams);
  g_clear_object (&self->soup);
  g_ptr_array_unref (self->requests);
  g_queue_clear_full (&self->scripts, (GDestroyNotify) script_free);
  g_free (self->url);
  g_free (self);
}

const char *
zot_fake_server_get_url (ZotFakeServer *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->url;
}

void
zot_fake_server_push_json (ZotFakeServer *self,
                           guint          status,
                           const char    *body,
                           const char    *retry_after)
{
  Script *script;

  g_return_if_fail (self != NULL);
  g_return_if_fail (body != NULL);

  script = g_new0 (Script, 1);
  script->kind = SCRIPT_JSON;
  script->status = status;
  script->body = g_strdup (body);
  script->retry_after = g_strdup (retry_after);
  g_queue_push_tail (&self->scripts, script);
}

void
zot_fake_server_push_reset (ZotFakeServer *self)
{
  Script *script = g_new0 (Script, 1);

  script->kind = SCRIPT_RESET;
  g_queue_push_tail (&self->scripts, script);
}

void
zot_fake_server_push_sse (ZotFakeServer      *self,
                          const char * const *events,
                          gboolean            cut_before_end)
{
  Script *script;

  g_return_if_fail (self != NULL);

  script = g_new0 (Script, 1);
  script->kind = cut_before_end ? SCRIPT_CUT : SCRIPT_SSE;
  script->status = SOUP_STATUS_OK;
  script->events = g_strdupv ((GStrv) events);
  g_queue_push_tail (&self->scripts, script);
}

void
zot_fake_server_push_hang (ZotFakeServer      *self,
                           const char * const *events)
{
  Script *script;

  g_return_if_fail (self != NULL);

  script = g_new0 (Script, 1);
  script->kind = SCRIPT_HANG;
  script->status = SOUP_STATUS_OK;
  script->events = g_strdupv ((GStrv) events);
  g_queue_push_tail (&self->scripts, script);
}

/* @events, then @repeat again and again until the client goes. */
void
zot_fake_server_push_endless (ZotFakeServer      *self,
                              const char * const *events,
                              const char         *repeat)
{
  Script *script;

  g_return_if_fail (self != NULL);
  g_return_if_fail (repeat != NULL);

  script = g_new0 (Script, 1);
  script->kind = SCRIPT_ENDLESS;
  script->status = SOUP_STATUS_OK;
  script->events = g_strdupv ((GStrv) events);
  script->repeat = g_strdup (repeat);
  g_queue_push_tail (&self->scripts, script);
}

guint
zot_fake_server_get_n_requests (ZotFakeServer *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->requests->len;
}

static Request *
get_request (ZotFakeServer *self,
             guint          index)
{
  g_assert (self != NULL);
  g_assert_cmpuint (index, <, self->requests->len);

  return g_ptr_array_index (self->requests, index);
}

JsonObject *
zot_fake_server_get_request_body (ZotFakeServer *self,
                                  guint          index)
{
  return get_request (self, index)->body;
}

const char *
zot_fake_server_get_request_header (ZotFakeServer *self,
                                    guint          index,
                                    const char    *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  return soup_message_headers_get_one (get_request (self, index)->headers, name);
}

const char *
zot_fake_server_get_request_path (ZotFakeServer *self,
                                  guint          index)
{
  return get_request (self, index)->path;
}

const char *
zot_fake_server_get_request_query (ZotFakeServer *self,
                                   guint          index)
{
  return get_request (self, index)->query;
}

/* ------------------------------------------------------------------ */
/* Scripts                                                             */
/* ------------------------------------------------------------------ */

/* Splits @text every @chunk bytes without cutting a UTF-8 character. */
static GPtrArray *
split_text (const char *text,
            gsize       chunk)
{
  GPtrArray *pieces = g_ptr_array_new_with_free_func (g_free);
  gsize len = strlen (text);
  gsize start = 0;

  if (chunk == 0)
    chunk = len > 0 ? len : 1;

  while (start < len)
    {
      gsize end = MIN (start + chunk, len);

      while (end < len && ((guchar) text[end] & 0xC0) == 0x80)
        end++;
      g_ptr_array_add (pieces, g_strndup (text + start, end - start));
      start = end;
    }

  return pieces;
}

static char *
node_to_string (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

/* "data: <builder's object>" (or "event: NAME\ndata: …"), added to @events. */
static void
add_event (GPtrArray   *events,
           const char  *name,
           JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  g_autofree char *json = node_to_string (root);

  if (name != NULL)
    g_ptr_array_add (events, g_strdup_printf ("event: %s\ndata: %s", name, json));
  else
    g_ptr_array_add (events, g_strdup_printf ("data: %s", json));
}

static GStrv
finish_events (GPtrArray *events)
{
  g_ptr_array_add (events, NULL);
  return (GStrv) g_ptr_array_free (events, FALSE);
}

/* The frame of an OpenAI chunk up to "delta": {...}; the caller fills the
 * delta and calls openai_end(). */
static JsonBuilder *
openai_begin (void)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, "chatcmpl-fake");
  json_builder_set_member_name (builder, "object");
  json_builder_add_string_value (builder, "chat.completion.chunk");
  json_builder_set_member_name (builder, "created");
  json_builder_add_int_value (builder, 0);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, "fake-model");
  json_builder_set_member_name (builder, "choices");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "index");
  json_builder_add_int_value (builder, 0);
  json_builder_set_member_name (builder, "delta");
  json_builder_begin_object (builder);
  return builder;
}

static void
openai_end (GPtrArray   *events,
            JsonBuilder *builder,
            const char  *finish_reason)
{
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "finish_reason");
  if (finish_reason != NULL)
    json_builder_add_string_value (builder, finish_reason);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  add_event (events, NULL, builder);
  g_object_unref (builder);
}

static void
openai_add_role (GPtrArray *events)
{
  JsonBuilder *builder = openai_begin ();

  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "assistant");
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, "");
  openai_end (events, builder, NULL);
}

static void
openai_add_tail (GPtrArray  *events,
                 const char *finish_reason)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  openai_end (events, openai_begin (), finish_reason);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, "chatcmpl-fake");
  json_builder_set_member_name (builder, "object");
  json_builder_add_string_value (builder, "chat.completion.chunk");
  json_builder_set_member_name (builder, "choices");
  json_builder_begin_array (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "usage");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "prompt_tokens");
  json_builder_add_int_value (builder, ZOT_FAKE_SERVER_INPUT_TOKENS);
  json_builder_set_member_name (builder, "completion_tokens");
  json_builder_add_int_value (builder, ZOT_FAKE_SERVER_OUTPUT_TOKENS);
  json_builder_set_member_name (builder, "total_tokens");
  json_builder_add_int_value (builder,
                              ZOT_FAKE_SERVER_INPUT_TOKENS + ZOT_FAKE_SERVER_OUTPUT_TOKENS);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  add_event (events, NULL, builder);

  g_ptr_array_add (events, g_strdup ("data: [DONE]"));
}

GStrv
zot_fake_server_openai_text (const char *text,
                             gsize       chunk)
{
  GPtrArray *events = g_ptr_array_new ();
  g_autoptr(GPtrArray) pieces = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  pieces = split_text (text, chunk);
  openai_add_role (events);
  for (guint i = 0; i < pieces->len; i++)
    {
      JsonBuilder *builder = openai_begin ();

      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, g_ptr_array_index (pieces, i));
      openai_end (events, builder, NULL);
    }
  openai_add_tail (events, "stop");

  return finish_events (events);
}

static void
openai_add_tool_call (GPtrArray  *events,
                      guint       index,
                      const char *name,
                      const char *args,
                      gsize       chunk)
{
  g_autoptr(GPtrArray) pieces = split_text (args, chunk);
  g_autofree char *id = g_strdup_printf ("call_%u", index + 1);

  for (guint i = 0; i <= pieces->len; i++)
    {
      JsonBuilder *builder = openai_begin ();

      json_builder_set_member_name (builder, "tool_calls");
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "index");
      json_builder_add_int_value (builder, index);
      if (i == 0)
        {
          json_builder_set_member_name (builder, "id");
          json_builder_add_string_value (builder, id);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "function");
        }
      json_builder_set_member_name (builder, "function");
      json_builder_begin_object (builder);
      if (i == 0)
        {
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, name);
        }
      json_builder_set_member_name (builder, "arguments");
      json_builder_add_string_value (builder, i == 0 ? "" : g_ptr_array_index (pieces, i - 1));
      json_builder_end_object (builder);
      json_builder_end_object (builder);
      json_builder_end_array (builder);
      openai_end (events, builder, NULL);
    }
}

GStrv
zot_fake_server_openai_tool_calls (const char *first_name,
                                   const char *first_args,
                                   const char *second_name,
                                   const char *second_args,
                                   gsize       chunk)
{
  GPtrArray *events = g_ptr_array_new ();

  g_return_val_if_fail (first_name != NULL, NULL);
  g_return_val_if_fail (first_args != NULL, NULL);

  openai_add_role (events);
  openai_add_tool_call (events, 0, first_name, first_args, chunk);
  if (second_name != NULL)
    openai_add_tool_call (events, 1, second_name, second_args != NULL ? second_args : "{}", chunk);
  openai_add_tail (events, "tool_calls");

  return finish_events (events);
}

static void
anthropic_add_start (GPtrArray *events)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "message_start");
  json_builder_set_member_name (builder, "message");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, "msg_fake");
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "message");
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "assistant");
  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, "fake-model");
  json_builder_set_member_name (builder, "stop_reason");
  json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "usage");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "input_tokens");
  json_builder_add_int_value (builder, ZOT_FAKE_SERVER_INPUT_TOKENS);
  json_builder_set_member_name (builder, "output_tokens");
  json_builder_add_int_value (builder, 1);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  add_event (events, "message_start", builder);

  g_ptr_array_add (events, g_strdup ("event: ping\ndata: {\"type\": \"ping\"}"));
}

/* Content block @index; a tool_use block is call @index + 1 ("toolu_1"). */
static void
anthropic_add_block (GPtrArray  *events,
                     guint       index,
                     const char *type,
                     const char *name,
                     const char *text,
                     gsize       chunk)
{
  g_autoptr(JsonBuilder) start = json_builder_new ();
  g_autoptr(JsonBuilder) stop = json_builder_new ();
  g_autoptr(GPtrArray) pieces = split_text (text, chunk);
  g_autofree char *id = g_strdup_printf ("toolu_%u", index + 1);
  gboolean tool = g_str_equal (type, "tool_use");

  json_builder_begin_object (start);
  json_builder_set_member_name (start, "type");
  json_builder_add_string_value (start, "content_block_start");
  json_builder_set_member_name (start, "index");
  json_builder_add_int_value (start, index);
  json_builder_set_member_name (start, "content_block");
  json_builder_begin_object (start);
  json_builder_set_member_name (start, "type");
  json_builder_add_string_value (start, type);
  if (tool)
    {
      json_builder_set_member_name (start, "id");
      json_builder_add_string_value (start, id);
      json_builder_set_member_name (start, "name");
      json_builder_add_string_value (start, name);
      json_builder_set_member_name (start, "input");
      json_builder_begin_object (start);
      json_builder_end_object (start);
    }
  else
    {
      json_builder_set_member_name (start, "text");
      json_builder_add_string_value (start, "");
    }
  json_builder_end_object (start);
  json_builder_end_object (start);
  add_event (events, "content_block_start", start);

  for (guint i = 0; i < pieces->len; i++)
    {
      g_autoptr(JsonBuilder) delta = json_builder_new ();

      json_builder_begin_object (delta);
      json_builder_set_member_name (delta, "type");
      json_builder_add_string_value (delta, "content_block_delta");
      json_builder_set_member_name (delta, "index");
      json_builder_add_int_value (delta, index);
      json_builder_set_member_name (delta, "delta");
      json_builder_begin_object (delta);
      json_builder_set_member_name (delta, "type");
      json_builder_add_string_value (delta, tool ? "input_json_delta" : "text_delta");
      json_builder_set_member_name (delta, tool ? "partial_json" : "text");
      json_builder_add_string_value (delta, g_ptr_array_index (pieces, i));
      json_builder_end_object (delta);
      json_builder_end_object (delta);
      add_event (events, "content_block_delta", delta);
    }

  json_builder_begin_object (stop);
  json_builder_set_member_name (stop, "type");
  json_builder_add_string_value (stop, "content_block_stop");
  json_builder_set_member_name (stop, "index");
  json_builder_add_int_value (stop, index);
  json_builder_end_object (stop);
  add_event (events, "content_block_stop", stop);
}

static void
anthropic_add_end (GPtrArray  *events,
                   const char *stop_reason)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "message_delta");
  json_builder_set_member_name (builder, "delta");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "stop_reason");
  json_builder_add_string_value (builder, stop_reason);
  json_builder_set_member_name (builder, "stop_sequence");
  json_builder_add_null_value (builder);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "usage");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "output_tokens");
  json_builder_add_int_value (builder, ZOT_FAKE_SERVER_OUTPUT_TOKENS);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  add_event (events, "message_delta", builder);

  g_ptr_array_add (events, g_strdup ("event: message_stop\ndata: {\"type\":\"message_stop\"}"));
}

GStrv
zot_fake_server_anthropic_text (const char *text,
                                gsize       chunk)
{
  GPtrArray *events = g_ptr_array_new ();

  g_return_val_if_fail (text != NULL, NULL);

  anthropic_add_start (events);
  anthropic_add_block (events, 0, "text", NULL, text, chunk);
  anthropic_add_end (events, "end_turn");

  return finish_events (events);
}

GStrv
zot_fake_server_anthropic_tool_uses (const char *first_name,
                                     const char *first_args,
                                     const char *second_name,
                                     const char *second_args,
                                     gsize       chunk)
{
  GPtrArray *events = g_ptr_array_new ();

  g_return_val_if_fail (first_name != NULL, NULL);
  g_return_val_if_fail (first_args != NULL, NULL);

  anthropic_add_start (events);
  anthropic_add_block (events, 0, "tool_use", first_name, first_args, chunk);
  if (second_name != NULL)
    anthropic_add_block (events, 1, "tool_use", second_name,
                         second_args != NULL ? second_args : "{}", chunk);
  anthropic_add_end (events, "tool_use");

  return finish_events (events);
}

/* One GenerateContentResponse event of a single candidate whose parts the
 * caller adds (none when @add_parts is NULL), with a finishReason and the
 * usage when @finish_reason is given. */
static void
gemini_add_event (GPtrArray   *events,
                  void       (*add_parts) (JsonBuilder *builder,
                                           gconstpointer data),
                  gconstpointer data,
                  const char  *finish_reason)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "candidates");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "content");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "model");
  json_builder_set_member_name (builder, "parts");
  json_builder_begin_array (builder);
  if (add_parts != NULL)
    add_parts (builder, data);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  if (finish_reason != NULL)
    {
      json_builder_set_member_name (builder, "finishReason");
      json_builder_add_string_value (builder, finish_reason);
    }
  json_builder_set_member_name (builder, "index");
  json_builder_add_int_value (builder, 0);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  if (finish_reason != NULL)
    {
      json_builder_set_member_name (builder, "usageMetadata");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "promptTokenCount");
      json_builder_add_int_value (builder, ZOT_FAKE_SERVER_INPUT_TOKENS);
      json_builder_set_member_name (builder, "candidatesTokenCount");
      json_builder_add_int_value (builder, ZOT_FAKE_SERVER_OUTPUT_TOKENS);
      json_builder_set_member_name (builder, "totalTokenCount");
      json_builder_add_int_value (builder,
                                  ZOT_FAKE_SERVER_INPUT_TOKENS + ZOT_FAKE_SERVER_OUTPUT_TOKENS);
      json_builder_end_object (builder);
    }
  json_builder_set_member_name (builder, "modelVersion");
  json_builder_add_string_value (builder, "fake-model");
  json_builder_end_object (builder);
  add_event (events, NULL, builder);
}

static void
gemini_add_text_part (JsonBuilder   *builder,
                      gconstpointer  data)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, data);
  json_builder_end_object (builder);
}

static void
gemini_add_call_part (JsonBuilder   *builder,
                      gconstpointer  data)
{
  const ZotFakeGeminiCall *call = data;
  g_autoptr(GError) error = NULL;
  JsonNode *args = json_from_string (call->args, &error);

  g_assert_no_error (error);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "functionCall");
  json_builder_begin_object (builder);
  if (call->id != NULL)
    {
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, call->id);
    }
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, call->name);
  json_builder_set_member_name (builder, "args");
  json_builder_add_value (builder, args);
  json_builder_end_object (builder);
  if (call->signature != NULL)
    {
      json_builder_set_member_name (builder, "thoughtSignature");
      json_builder_add_string_value (builder, call->signature);
    }
  json_builder_end_object (builder);
}

GStrv
zot_fake_server_gemini_text (const char *text,
                             gsize       chunk)
{
  GPtrArray *events = g_ptr_array_new ();
  g_autoptr(GPtrArray) pieces = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  pieces = split_text (text, chunk);
  for (guint i = 0; i < pieces->len; i++)
    gemini_add_event (events, gemini_add_text_part, g_ptr_array_index (pieces, i), NULL);
  gemini_add_event (events, NULL, NULL, "STOP");

  return finish_events (events);
}

GStrv
zot_fake_server_gemini_calls (const ZotFakeGeminiCall *calls,
                              guint                    n_calls)
{
  GPtrArray *events = g_ptr_array_new ();

  for (guint i = 0; i < n_calls; i++)
    gemini_add_event (events, gemini_add_call_part, &calls[i], NULL);
  gemini_add_event (events, NULL, NULL, "STOP");

  return finish_events (events);
}

GStrv
zot_fake_server_gemini_tool_calls (const char *first_name,
                                   const char *first_args,
                                   const char *second_name,
                                   const char *second_args,
                                   gsize       chunk)
{
  ZotFakeGeminiCall calls[] = {
    { first_name, first_args, "call_1", ZOT_FAKE_SERVER_GEMINI_SIGNATURE },
    { second_name, second_args != NULL ? second_args : "{}", "call_2", NULL },
  };

  g_return_val_if_fail (first_name != NULL, NULL);
  g_return_val_if_fail (first_args != NULL, NULL);

  return zot_fake_server_gemini_calls (calls, second_name != NULL ? 2 : 1);
}
