/* zot-mcp-http.c — the Streamable HTTP transport of an MCP server: each
 * message is POSTed to the server's URL; a request's answer comes back
 * as one JSON body or as a stream of server-sent events that holds it.
 * Both go through the client's one message handler, so deadlines,
 * cancellation and size limits are the stdio transport's. The session id
 * the server gives with `initialize` goes with every later message. */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-client-private.h"

#define READ_CHUNK_BYTES 65536

/* One POST's answer being read. */
typedef struct
{
  ZotMcpClient *client;
  SoupMessage  *message;
  gint64        id;
  gboolean      events;  /* text/event-stream, else one JSON body */
  GByteArray   *buffer;  /* bytes not yet taken */
  GString      *data;    /* the event being read */
  gboolean      too_big;
} Post;

static void
post_free (Post *post)
{
  g_object_unref (post->client);
  g_clear_object (&post->message);
  g_byte_array_unref (post->buffer);
  g_string_free (post->data, TRUE);
  g_free (post);
}

static void
fail_post (Post       *post,
           const char *format,
           ...) G_GNUC_PRINTF (2, 3);

static void
fail_post (Post       *post,
           const char *format,
           ...)
{
  g_autofree char *text = NULL;
  va_list args;

  if (post->id == 0)
    return;
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  _zot_mcp_client_fail_id (post->client, post->id, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, text));
}

/* A stream's lines: "data:" lines make an event, a blank line ends it. */
static void
take_event_line (Post       *post,
                 const char *line)
{
  if (*line == '\0')
    {
      if (post->data->len > 0)
        _zot_mcp_client_handle_line (post->client, post->data->str, post->data->len);
      g_string_truncate (post->data, 0);
    }
  else if (g_str_has_prefix (line, "data:"))
    {
      const char *value = line + strlen ("data:");

      if (*value == ' ')
        value++;
      if (post->data->len > 0)
        g_string_append_c (post->data, '\n');
      g_string_append (post->data, value);
    }
}

static void
take_events (Post *post)
{
  guint8 *newline;

  while ((newline = memchr (post->buffer->data, '\n', post->buffer->len)) != NULL)
    {
      gsize length = (gsize) (newline - post->buffer->data);
      g_autofree char *line = g_strndup ((const char *) post->buffer->data, length);

      if (length > 0 && line[length - 1] == '\r')
        line[length - 1] = '\0';
      g_byte_array_remove_range (post->buffer, 0, (guint) length + 1);
      take_event_line (post, line);
    }
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Post *post = user_data;
  GInputStream *stream = G_INPUT_STREAM (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (stream, result, &error);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        fail_post (post, _("MCP server %s: reading its answer failed: %s"),
                   zot_mcp_client_get_name (post->client), error->message);
      else if (error == NULL && !post->events && !post->too_big)
        {
          g_byte_array_append (post->buffer, (const guint8 *) "", 1);
          _zot_mcp_client_handle_line (post->client, (const char *) post->buffer->data, post->buffer->len - 1);
        }
      else if (error == NULL && post->events)
        take_event_line (post, "");
      post_free (post);
      return;
    }
  if (!post->too_big)
    g_byte_array_append (post->buffer, g_bytes_get_data (bytes, NULL), (guint) g_bytes_get_size (bytes));
  if (post->events)
    take_events (post);
  /* A JSON body, or one line of a stream, is bounded as a stdio line is. */
  if (!post->too_big && (post->buffer->len > ZOT_MCP_LINE_MAX_BYTES || post->data->len > ZOT_MCP_LINE_MAX_BYTES))
    {
      post->too_big = TRUE;
      fail_post (post, _("MCP server %s answered with more than %u MiB; the answer was dropped"),
                 zot_mcp_client_get_name (post->client), (guint) (ZOT_MCP_LINE_MAX_BYTES / (1024 * 1024)));
      g_byte_array_set_size (post->buffer, 0);
      g_string_truncate (post->data, 0);
      post->events = FALSE;
    }
  g_input_stream_read_bytes_async (stream, READ_CHUNK_BYTES, G_PRIORITY_DEFAULT, post->client->cancellable,
                                   read_cb, post);
}

static void
sent_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Post *post = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) stream = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  SoupMessageHeaders *headers;
  const char *type;
  const char *session;
  guint status;

  if (stream == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        fail_post (post, _("MCP server %s: %s"), zot_mcp_client_get_name (post->client), error->message);
      post_free (post);
      return;
    }
  status = soup_message_get_status (post->message);
  headers = soup_message_get_response_headers (post->message);
  session = soup_message_headers_get_one (headers, "Mcp-Session-Id");
  if (session != NULL && post->client->session_id == NULL)
    post->client->session_id = g_strdup (session);
  if (status < 200 || status >= 300)
    {
      fail_post (post, _("MCP server %s: HTTP %u %s"), zot_mcp_client_get_name (post->client), status,
                 soup_message_get_reason_phrase (post->message));
      post_free (post);
      return;
    }
  type = soup_message_headers_get_content_type (headers, NULL);
  if (status == SOUP_STATUS_ACCEPTED || type == NULL)
    {
      post_free (post);
      return;
    }
  post->events = g_str_equal (type, "text/event-stream");
  g_input_stream_read_bytes_async (stream, READ_CHUNK_BYTES, G_PRIORITY_DEFAULT, post->client->cancellable,
                                   read_cb, post);
}

/**
 * _zot_mcp_http_post:
 * @id: the request's id, 0 for a notification or an answer
 *
 * Sends one message; what comes back goes to the client's handler.
 */
void
_zot_mcp_http_post (ZotMcpClient *self,
                    gint64        id,
                    const char   *text)
{
  g_autoptr(GBytes) body = g_bytes_new (text, strlen (text));
  SoupMessageHeaders *headers;
  Post *post;

  post = g_new0 (Post, 1);
  post->client = g_object_ref (self);
  post->id = id;
  post->buffer = g_byte_array_new ();
  post->data = g_string_new (NULL);
  post->message = soup_message_new (SOUP_METHOD_POST, self->url);
  headers = soup_message_get_request_headers (post->message);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  for (guint i = 0; self->headers != NULL && self->headers[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (self->headers[i], strcspn (self->headers[i], ":"));
      const char *value = self->headers[i] + strlen (name);

      soup_message_headers_replace (headers, name, *value == ':' ? value + 2 : "");
    }
  if (self->session_id != NULL)
    soup_message_headers_replace (headers, "Mcp-Session-Id", self->session_id);
  if (self->protocol_version != NULL)
    soup_message_headers_replace (headers, "MCP-Protocol-Version", self->protocol_version);
  soup_message_set_request_body_from_bytes (post->message, "application/json", body);
  soup_session_send_async (self->http, post->message, G_PRIORITY_DEFAULT, self->cancellable, sent_cb, post);
}

gboolean
_zot_mcp_http_start (ZotMcpClient  *self,
                     GError       **error)
{
  g_autoptr(GUri) uri = g_uri_parse (self->url, SOUP_HTTP_URI_FLAGS, NULL);

  if (uri == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("MCP server %s: “%s” is not a URL"),
                   self->name, self->url);
      self->failure = g_strdup ((*error)->message);
      return FALSE;
    }
  self->http = soup_session_new_with_options ("user-agent", "zot/" PACKAGE_VERSION, NULL);
  return TRUE;
}
