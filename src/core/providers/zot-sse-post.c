/* zot-sse-post.c — the HTTP plumbing of the providers.
 *
 * The poster (SsePost) runs the first try and up to max_retries more
 * (zot-sse-retry.c says which failures and how long it waits); each
 * attempt owns a cancellable that is handed to libsoup and is cancelled when
 * the attempt ends, so an abandoned body (an error, a stall, a stop before
 * EOF) drops its connection instead of letting the stream's close block on
 * the rest of the body. The body itself is read by zot_sse_read_async().
 * Error bodies become one-line summaries, and Retry-After is honoured.
 */
#define G_LOG_DOMAIN "zot-sse"

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "zot-limits.h"
#include "zot-provider.h"
#include "zot-source.h"
#include "zot-sse.h"
#include "zot-sse-private.h"
#include "zot-json.h"

#define ERROR_BODY_MAX_BYTES   ((gsize) 64 * 1024)
#define ERROR_SUMMARY_MAX_CHARS 300

/* Not in libsoup 3.2's SoupStatus. */
#define HTTP_TOO_MANY_REQUESTS 429

/* ------------------------------------------------------------------ */
/* Error bodies and retry-after                                        */
/* ------------------------------------------------------------------ */

static char *
first_line (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_auto(GStrv) lines = NULL;

  g_strstrip (valid);
  if (*valid == '\0')
    return NULL;

  lines = g_strsplit_set (valid, "\r\n", 2);
  g_strstrip (lines[0]);
  if (g_utf8_strlen (lines[0], -1) > ERROR_SUMMARY_MAX_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (lines[0], 0, ERROR_SUMMARY_MAX_CHARS);

      return g_strconcat (cut, "…", NULL);
    }
  return g_strdup (lines[0]);
}

static const char *
json_message (JsonNode *root)
{
  JsonObject *object;
  JsonNode *error;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  object = json_node_get_object (root);
  error = json_object_get_member (object, "error");
  if (error != NULL && JSON_NODE_HOLDS_OBJECT (error))
    {
      JsonNode *message = json_object_get_member (json_node_get_object (error), "message");

      if (message != NULL && JSON_NODE_HOLDS_VALUE (message) &&
          json_node_get_value_type (message) == G_TYPE_STRING)
        return json_node_get_string (message);
    }
  if (error != NULL && JSON_NODE_HOLDS_VALUE (error) &&
      json_node_get_value_type (error) == G_TYPE_STRING)
    return json_node_get_string (error);

  for (guint i = 0; i < 2; i++)
    {
      const char *name = i == 0 ? "message" : "detail";
      JsonNode *node = json_object_get_member (object, name);

      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          json_node_get_value_type (node) == G_TYPE_STRING)
        return json_node_get_string (node);
    }

  return NULL;
}

/**
 * zot_http_error_summary:
 * @status: the HTTP status
 * @body: (nullable): the error body
 *
 * Returns: one line for an error message: the provider's
 *   `{"error":{"message":…}}`, else the first line of the body, else the
 *   status phrase
 */
char *
zot_http_error_summary (guint   status,
                        GBytes *body)
{
  g_autofree char *text = NULL;
  const char *phrase;

  if (body != NULL && g_bytes_get_size (body) > 0)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      gsize size;
      const char *bytes = g_bytes_get_data (body, &size);
      char *line = NULL;

      text = g_strndup (bytes, size);
      if (zot_json_parser_load (parser, text, -1, NULL))
        {
          const char *message = json_message (json_parser_get_root (parser));

          if (message != NULL)
            line = first_line (message);
        }
      if (line == NULL)
        line = first_line (text);
      if (line != NULL)
        return line;
    }

  phrase = soup_status_get_phrase (status);
  return g_strdup (phrase != NULL ? phrase : _("no details"));
}

/**
 * zot_http_parse_retry_after:
 * @value: (nullable): a `retry-after` value: seconds or an HTTP date
 * @now: (nullable): the time to count from, %NULL for now
 *
 * Returns: the wait in milliseconds, or -1 when @value is missing or bad
 */
gint64
zot_http_parse_retry_after (const char *value,
                            GDateTime  *now)
{
  g_autofree char *copy = NULL;
  g_autoptr(GDateTime) date = NULL;
  g_autoptr(GDateTime) current = NULL;
  guint64 seconds;
  GTimeSpan span;

  if (value == NULL)
    return -1;

  copy = g_strstrip (g_strdup (value));
  if (*copy == '\0')
    return -1;

  if (g_ascii_isdigit (*copy))
    {
      if (!g_ascii_string_to_unsigned (copy, 10, 0, G_MAXUINT64, &seconds, NULL))
        return -1;
      return seconds > G_MAXINT64 / 1000 ? G_MAXINT64 : (gint64) seconds * 1000;
    }

  date = soup_date_time_new_from_http_string (copy);
  if (date == NULL)
    return -1;

  current = now != NULL ? g_date_time_ref (now) : g_date_time_new_now_utc ();
  span = g_date_time_difference (date, current);
  return span <= 0 ? 0 : span / G_TIME_SPAN_MILLISECOND;
}

/* OpenAI also sends "retry-after-ms", which is finer. */
static gint64
retry_after_ms (SoupMessageHeaders *headers)
{
  const char *ms = soup_message_headers_get_one (headers, "retry-after-ms");

  if (ms != NULL)
    {
      char *end = NULL;
      double value = g_ascii_strtod (ms, &end);

      if (end != ms && value >= 0 && value < (double) G_MAXINT64)
        return (gint64) value;
    }

  return zot_http_parse_retry_after (soup_message_headers_get_one (headers, "retry-after"), NULL);
}

/* ------------------------------------------------------------------ */
/* The poster                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  SoupSession     *session;
  GUri            *uri;
  char            *url;
  GStrv            headers;
  GBytes          *body;
  gboolean         has_key;
  char            *key_source;
  char            *key_env;
  ZotSseEventFunc  func;
  gpointer         func_data;
  char            *label;
  guint            max_retries;
  ZotSseRetryFunc  on_retry;
  gpointer         retry_data;
  gint64           started;
  guint            events;      /* of this attempt that reached func */

  guint            attempt;
  guint            status;
  SoupMessage     *message;
  GInputStream    *stream;
  GCancellable    *io_cancellable;
  gulong           cancel_id;
  GSource         *timer;
  GSource         *cancel_source;
  guint            timer_ms;
  gboolean         timed_out;
  gboolean         not_a_stream;
  GByteArray      *error_body;
  guint8           buffer[4096];
} SsePost;

static void
sse_post_end_attempt (GTask *task)
{
  SsePost *data = g_task_get_task_data (task);

  zot_clear_source (&data->timer);
  zot_clear_source (&data->cancel_source);

  /* Cancel before the stream goes: its close would otherwise wait for the
   * rest of a body we no longer want. */
  if (data->io_cancellable != NULL)
    g_cancellable_cancel (data->io_cancellable);
  if (data->cancel_id != 0)
    {
      g_cancellable_disconnect (g_task_get_cancellable (task), data->cancel_id);
      data->cancel_id = 0;
    }
  g_clear_object (&data->stream);
  g_clear_object (&data->message);
  g_clear_object (&data->io_cancellable);
  g_clear_pointer (&data->error_body, g_byte_array_unref);
  data->timed_out = FALSE;
  data->not_a_stream = FALSE;
}

static void
sse_post_free (gpointer user_data)
{
  SsePost *data = user_data;

  g_assert (data->io_cancellable == NULL);
  g_assert (data->timer == NULL);

  g_clear_object (&data->session);
  g_clear_pointer (&data->uri, g_uri_unref);
  g_free (data->url);
  g_strfreev (data->headers);
  g_clear_pointer (&data->body, g_bytes_unref);
  g_free (data->key_source);
  g_free (data->key_env);
  g_free (data->label);
  g_free (data);
}

static void
sse_post_return (GTask  *task,
                 GError *error)
{
  GCancellable *cancellable = g_task_get_cancellable (task);

  sse_post_end_attempt (task);

  if (error != NULL && g_cancellable_is_cancelled (cancellable) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Whatever broke, the caller asked to stop: say so. */
      g_clear_error (&error);
      g_cancellable_set_error_if_cancelled (cancellable, &error);
    }

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static gboolean
sse_post_timer_cb (gpointer user_data)
{
  SsePost *data = user_data;

  data->timed_out = TRUE;
  g_cancellable_cancel (data->io_cancellable);
  g_clear_pointer (&data->timer, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void
sse_post_arm (GTask *task)
{
  SsePost *data = g_task_get_task_data (task);

  zot_clear_source (&data->timer);
  data->timer_ms = zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_IDLE);
  data->timer = _zot_sse_add_timeout (task, data->timer_ms, sse_post_timer_cb, data);
}

/* The error for a failed libsoup operation of this attempt. */
static GError *
sse_post_io_error (GTask    *task,
                   GError   *error,
                   gboolean  reading)
{
  SsePost *data = g_task_get_task_data (task);
  GError *result = NULL;

  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &result))
    return result;

  if (data->timed_out)
    {
      g_autofree char *wait = _zot_sse_format_ms (data->timer_ms);

      return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK,
                          /* Translators: the server's name, then a duration such as "30 s" */
                          _("%s did not answer within %s"), data->url, wait);
    }

  if (reading)
    return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK,
                        _("could not read the answer of %s: %s"), data->url, error->message);

  return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK,
                      _("could not reach %s: %s"), data->url, error->message);
}

static GError *
sse_post_status_error (SsePost *data,
                       GBytes  *body)
{
  g_autofree char *summary = zot_http_error_summary (data->status, body);
  guint status = data->status;

  if (data->not_a_stream)
    {
      SoupMessageHeaders *headers = soup_message_get_response_headers (data->message);
      const char *type = soup_message_headers_get_content_type (headers, NULL);

      return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM,
                          /* Translators: the server's name, the MIME type it answered with, then
                           * the start of its answer */
                          _("%s answered with %s instead of an event stream: %s"),
                          data->url, type, summary);
    }

  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    {
      if (data->has_key && data->key_source != NULL)
        return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH,
                            /* Translators: where the key came from (the keyring or an
                             * environment variable), the HTTP status code, then the server's
                             * message */
                            _("the API key from %s was rejected (%u): %s; check the key"),
                            data->key_source, status, summary);
      if (data->has_key)
        return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH,
                            /* Translators: the HTTP status code, then the server's message */
                            _("the API key was rejected (%u): %s; check the key"),
                            status, summary);
      return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH,
                          /* Translators: the provider's name, the HTTP status code, the server's
                           * message, then an environment variable such as ANTHROPIC_API_KEY;
                           * keep "$" and --api-key */
                          _("%s wants an API key (%u): %s; set $%s or pass --api-key"),
                          data->url, status, summary, data->key_env);
    }

  if (status == HTTP_TOO_MANY_REQUESTS)
    return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_RATE_LIMITED,
                        /* Translators: the HTTP status code (429), how many times zot tried,
                         * then the server's message */
                        g_dngettext (GETTEXT_PACKAGE,
                                     "rate limited (%u) after %u try: %s",
                                     "rate limited (%u) after %u tries: %s",
                                     data->attempt),
                        status, data->attempt, summary);

  if (status >= 500 && status < 600)
    return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER,
                        /* Translators: the HTTP status code, how many times zot tried, then the
                         * server's message */
                        g_dngettext (GETTEXT_PACKAGE,
                                     "the server failed (%u) after %u try: %s",
                                     "the server failed (%u) after %u tries: %s",
                                     data->attempt),
                        status, data->attempt, summary);

  return g_error_new (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_HTTP,
                      /* Translators: the server's name, the HTTP status code, then its message */
                      _("%s answered %u: %s"), data->url, status, summary);
}

static void sse_post_start_attempt (GTask *task);

static gboolean
sse_post_retry_cb (gpointer user_data)
{
  GTask *task = user_data;
  SsePost *data = g_task_get_task_data (task);

  g_clear_pointer (&data->timer, g_source_unref);
  zot_clear_source (&data->cancel_source);
  sse_post_start_attempt (task);
  return G_SOURCE_REMOVE;
}

static gboolean
sse_post_retry_cancelled_cb (GCancellable *cancellable,
                             gpointer      user_data)
{
  GTask *task = user_data;
  SsePost *data = g_task_get_task_data (task);
  GError *error = NULL;

  g_clear_pointer (&data->cancel_source, g_source_unref);
  zot_clear_source (&data->timer);
  g_cancellable_set_error_if_cancelled (cancellable, &error);
  sse_post_return (task, error);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Waits @after_ms (the server's Retry-After, or -1 for the backoff) and
 * tries again, telling the caller first; or, when no retry is left or the
 * wait would pass the budget, ends the task with @final. */
static void
sse_post_retry_or_fail (GTask  *task,
                        guint   status,
                        gint64  after_ms,
                        GError *final)
{
  SsePost *data = g_task_get_task_data (task);
  guint retry = data->attempt;
  gint64 budget = zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_RETRY_BUDGET);
  gint64 remaining = budget - (g_get_monotonic_time () - data->started) / 1000;
  g_autofree char *message = NULL;
  ZotSseRetry notice = { 0 };
  gint64 delay;

  if (retry > data->max_retries)
    {
      sse_post_return (task, final);
      g_object_unref (task);
      return;
    }

  delay = after_ms >= 0 ? after_ms : zot_http_backoff_ms (retry, g_random_double ());
  if (delay > remaining)
    {
      if (after_ms >= 0)
        {
          g_autofree char *wait = _zot_sse_format_ms ((guint) MIN (after_ms, G_MAXUINT));
          g_autofree char *limit = _zot_sse_format_ms ((guint) budget);
          GError *error = g_error_new (final->domain, final->code,
                                       /* Translators: an error message, then two durations:
                                        * the wait the server asks for, and how long zot keeps
                                        * retrying */
                                       _("%s; the server asks to wait %s, longer than the %s "
                                         "zot retries for: try again later"),
                                       final->message, wait, limit);

          g_error_free (final);
          final = error;
        }
      sse_post_return (task, final);
      g_object_unref (task);
      return;
    }
  g_error_free (final);

  message = _zot_sse_retry_message (data->label, status, retry, data->max_retries, delay);
  g_debug ("%s", message);

  sse_post_end_attempt (task);

  notice.retry = retry;
  notice.max_retries = data->max_retries;
  notice.delay_ms = delay;
  notice.status = status;
  notice.message = message;
  if (data->on_retry != NULL)
    data->on_retry (&notice, data->retry_data);

  /* The wait is two sources, a timer and the caller's cancellable; never a
   * sleep. The task reference goes to whichever fires first. */
  data->timer = _zot_sse_add_timeout (task, (guint) delay, sse_post_retry_cb, task);
  if (g_task_get_cancellable (task) != NULL)
    {
      data->cancel_source = g_cancellable_source_new (g_task_get_cancellable (task));
      g_source_set_callback (data->cancel_source, G_SOURCE_FUNC (sse_post_retry_cancelled_cb),
                             task, NULL);
      g_source_attach (data->cancel_source, g_task_get_context (task));
    }
}

static void
sse_post_handle_status (GTask *task)
{
  SsePost *data = g_task_get_task_data (task);
  g_autoptr(GBytes) body = NULL;
  GError *error;

  body = g_byte_array_free_to_bytes (g_steal_pointer (&data->error_body));
  error = sse_post_status_error (data, body);

  if (data->not_a_stream || !zot_http_status_is_retryable (data->status))
    {
      sse_post_return (task, error);
      g_object_unref (task);
      return;
    }

  sse_post_retry_or_fail (task, data->status,
                          retry_after_ms (soup_message_get_response_headers (data->message)),
                          error);
}

static void
sse_post_error_body_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  GTask *task = user_data;
  SsePost *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gssize n;

  zot_clear_source (&data->timer);
  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  if (n < 0 && (g_cancellable_is_cancelled (g_task_get_cancellable (task)) || data->timed_out))
    {
      sse_post_return (task, sse_post_io_error (task, error, TRUE));
      g_object_unref (task);
      return;
    }

  /* A broken error body still leaves the status to go by. */
  if (n > 0)
    g_byte_array_append (data->error_body, data->buffer, n);

  if (n <= 0 || data->error_body->len >= ERROR_BODY_MAX_BYTES)
    {
      sse_post_handle_status (task);
      return;
    }

  sse_post_arm (task);
  g_input_stream_read_async (data->stream, data->buffer,
                             MIN (sizeof data->buffer,
                                  ERROR_BODY_MAX_BYTES - data->error_body->len),
                             G_PRIORITY_DEFAULT, data->io_cancellable,
                             sse_post_error_body_cb, task);
}

/* Counts what reached the caller: once an event did, a broken stream is
 * never sent again. */
static gboolean
sse_post_event_cb (const char  *event,
                   const char  *data_text,
                   gpointer     user_data,
                   GError     **error)
{
  SsePost *data = user_data;

  data->events++;
  return data->func (event, data_text, data->func_data, error);
}

static void
sse_post_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  SsePost *data = g_task_get_task_data (task);
  GError *error = NULL;
  gboolean ok = zot_sse_read_finish (result, &error);

  if (!ok && error->domain == ZOT_SSE_RETRYABLE_ERROR &&
      !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      guint status = (guint) error->code;
      GError *final = g_error_new_literal (ZOT_PROVIDER_ERROR,
                                           status == HTTP_TOO_MANY_REQUESTS ?
                                           ZOT_PROVIDER_ERROR_RATE_LIMITED :
                                           ZOT_PROVIDER_ERROR_SERVER,
                                           error->message);

      g_error_free (error);
      sse_post_retry_or_fail (task, status, -1, final);
      return;
    }
  if (!ok && data->events == 0 &&
      _zot_sse_read_was_cut (result) &&
      !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      sse_post_retry_or_fail (task, 0, -1, error);
      return;
    }
  if (error != NULL && data->events > 0 && _zot_sse_read_was_cut (result))
    {
      GError *said = g_error_new (error->domain, error->code,
                                  /* Translators: %s is what broke ("the stream ended early: …") */
                                  _("%s; the answer had begun, so it was not retried: send the "
                                    "prompt again"), error->message);

      g_error_free (error);
      error = said;
    }
  sse_post_return (task, error);
  g_object_unref (task);
}

static void
sse_post_sent_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  SsePost *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  zot_clear_source (&data->timer);
  data->stream = soup_session_send_finish (SOUP_SESSION (object), result, &error);

  if (data->stream == NULL)
    {
      gboolean retryable = !data->timed_out &&
                           !g_cancellable_is_cancelled (g_task_get_cancellable (task)) &&
                           _zot_sse_connection_error_is_retryable (error);
      GError *final = sse_post_io_error (task, error, FALSE);

      if (retryable)
        sse_post_retry_or_fail (task, 0, -1, final);
      else
        {
          sse_post_return (task, final);
          g_object_unref (task);
        }
      return;
    }

  data->status = soup_message_get_status (data->message);
  g_debug ("POST %s: %u (try %u)", data->url, data->status, data->attempt);

  /* A JSON or HTML page with 200 is a server that ignored "stream" or a
   * base URL that points at something else: say so rather than "ended
   * early". Other types are read as events, leniently. */
  if (SOUP_STATUS_IS_SUCCESSFUL (data->status))
    {
      SoupMessageHeaders *headers = soup_message_get_response_headers (data->message);
      const char *type = soup_message_headers_get_content_type (headers, NULL);

      data->not_a_stream = type != NULL &&
                           (g_ascii_strcasecmp (type, "application/json") == 0 ||
                            g_ascii_strcasecmp (type, "text/html") == 0);
    }

  if (SOUP_STATUS_IS_SUCCESSFUL (data->status) && !data->not_a_stream)
    {
      data->events = 0;
      zot_sse_read_async (data->stream, sse_post_event_cb, data, data->io_cancellable,
                          sse_post_read_cb, task);
      return;
    }

  data->error_body = g_byte_array_new ();
  sse_post_arm (task);
  g_input_stream_read_async (data->stream, data->buffer, sizeof data->buffer,
                             G_PRIORITY_DEFAULT, data->io_cancellable,
                             sse_post_error_body_cb, task);
}

static void
sse_post_start_attempt (GTask *task)
{
  SsePost *data = g_task_get_task_data (task);
  SoupMessageHeaders *headers;
  GError *error = NULL;

  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    {
      sse_post_return (task, error);
      g_object_unref (task);
      return;
    }

  data->attempt++;
  data->io_cancellable = g_cancellable_new ();
  data->cancel_id = _zot_sse_link_cancellable (g_task_get_cancellable (task),
                                               data->io_cancellable);

  data->message = soup_message_new_from_uri (SOUP_METHOD_POST, data->uri);
  headers = soup_message_get_request_headers (data->message);
  for (guint i = 0; data->headers[i] != NULL && data->headers[i + 1] != NULL; i += 2)
    soup_message_headers_replace (headers, data->headers[i], data->headers[i + 1]);
  if (soup_message_headers_get_one (headers, "accept") == NULL)
    soup_message_headers_replace (headers, "accept", "text/event-stream");
  soup_message_set_request_body_from_bytes (data->message, "application/json", data->body);

  sse_post_arm (task);
  soup_session_send_async (data->session, data->message, G_PRIORITY_DEFAULT,
                           data->io_cancellable, sse_post_sent_cb, task);
}

/**
 * zot_sse_post_async:
 * @session: the provider's session
 * @post: the request
 * @func: called for each event of a successful answer
 * @func_data: data for @func; must outlive the operation
 * @cancellable: (nullable): cancels the call, retry waits included
 *
 * POSTs @post and reads the event stream of the answer. Errors are in
 * ZOT_PROVIDER_ERROR: AUTH (401/403, naming @post's key source),
 * RATE_LIMITED and SERVER (429 and 5xx, after @post's retries), HTTP
 * (other statuses), NETWORK (with the URL), CONFIG (a bad URL) and the
 * reader's BAD_STREAM; or G_IO_ERROR_CANCELLED.
 */
void
zot_sse_post_async (SoupSession         *session,
                    const ZotSsePost    *post,
                    ZotSseEventFunc      func,
                    gpointer             func_data,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *headers;
  SsePost *data;

  g_return_if_fail (SOUP_IS_SESSION (session));
  g_return_if_fail (post != NULL);
  g_return_if_fail (post->url != NULL);
  g_return_if_fail (post->body != NULL);
  g_return_if_fail (func != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_sse_post_async);

  data = g_new0 (SsePost, 1);
  data->session = g_object_ref (session);
  data->url = g_strdup (post->url);
  data->body = g_bytes_ref (post->body);
  data->has_key = post->has_key;
  data->key_source = g_strdup (post->key_source);
  data->key_env = g_strdup (post->key_env != NULL ? post->key_env : "API_KEY");
  data->func = func;
  data->func_data = func_data;
  data->max_retries = MIN (post->max_retries, ZOT_PROVIDER_MAX_RETRIES_LIMIT);
  data->on_retry = post->on_retry;
  data->retry_data = post->retry_data;
  data->started = g_get_monotonic_time ();
  headers = g_ptr_array_new ();
  for (guint i = 0; post->headers != NULL && post->headers[i] != NULL; i++)
    g_ptr_array_add (headers, g_strdup (post->headers[i]));
  g_ptr_array_add (headers, NULL);
  data->headers = (GStrv) g_ptr_array_free (headers, FALSE);
  g_task_set_task_data (task, data, sse_post_free);

  data->uri = g_uri_parse (post->url, SOUP_HTTP_URI_FLAGS, &error);
  if (data->uri == NULL ||
      (g_strcmp0 (g_uri_get_scheme (data->uri), "http") != 0 &&
       g_strcmp0 (g_uri_get_scheme (data->uri), "https") != 0) ||
      g_uri_get_host (data->uri) == NULL || *g_uri_get_host (data->uri) == '\0')
    {
      g_task_return_new_error (task, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG,
                               _("“%s” is not an http or https URL"), post->url);
      return;
    }

  data->label = g_strdup (post->label != NULL ? post->label : g_uri_get_host (data->uri));
  sse_post_start_attempt (g_steal_pointer (&task));
}

gboolean
zot_sse_post_finish (GAsyncResult  *result,
                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_sse_post_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * zot_sse_session_new:
 *
 * The HTTP session of a provider. It has no libsoup socket timeout: the
 * providers' own deadlines (%ZOT_TIMEOUT_PROVIDER_IDLE) cover every wait,
 * and a slow model must not trip a shorter one.
 *
 * Returns: (transfer full): a new session
 */
SoupSession *
zot_sse_session_new (void)
{
  return soup_session_new_with_options ("user-agent", "zot/" PACKAGE_VERSION,
                                        "timeout", 0,
                                        NULL);
}
