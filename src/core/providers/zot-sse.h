/* zot-sse.h — Server-Sent Events and the HTTP plumbing of the providers.
 *
 * zot_sse_read_async() reads a text/event-stream body from any GInputStream
 * and hands each event to a callback as it completes. Every read has a
 * deadline (ZOT_TIMEOUT_PROVIDER_IDLE): a server that goes silent ends the
 * stream with ZOT_PROVIDER_ERROR_BAD_STREAM instead of hanging the turn.
 *
 * zot_sse_post_async() is what the providers use: it POSTs a JSON body with
 * libsoup, retries a busy server (see ZOT_PROVIDER_MAX_RETRIES: the
 * statuses, the backoff with jitter, `retry-after`, the budget), tells its
 * caller of each wait through ZotSsePost's @on_retry, turns error answers into
 * ZOT_PROVIDER_ERROR codes with the server's one-line message, and then
 * reads the body with zot_sse_read_async(). Cancelling the cancellable ends
 * either operation promptly with G_IO_ERROR_CANCELLED, also while waiting
 * between tries.
 */
#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "zot-limits.h"

G_BEGIN_DECLS


/**
 * ZotSseEventFunc:
 * @event: the event name, "message" when the server gave none
 * @data: the data lines of the event joined with "\n", valid UTF-8
 * @user_data: the data passed with the function
 * @error: where to put an error
 *
 * Called once per event, in order, as the events arrive.
 *
 * Returns: %TRUE to read on; %FALSE to stop reading, which is a failure
 *   when @error was set and the normal end of the stream otherwise
 */
typedef gboolean (*ZotSseEventFunc) (const char  *event,
                                     const char  *data,
                                     gpointer     user_data,
                                     GError     **error);

void     zot_sse_read_async   (GInputStream        *stream,
                               ZotSseEventFunc      func,
                               gpointer             func_data,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data);
gboolean zot_sse_read_finish  (GAsyncResult        *result,
                               GError             **error);

/**
 * ZotSseRetry:
 * @retry: which retry this is, from 1
 * @max_retries: how many there may be
 * @delay_ms: the wait before it
 * @status: the HTTP status that asked for it, 0 for a failed connection
 * @message: one line for the user: "Anthropic is overloaded (529) —
 *   retrying in 4 s (attempt 2 of 4)"
 *
 * What ZotSsePost's @on_retry is told, before each wait.
 */
typedef struct
{
  guint       retry;
  guint       max_retries;
  gint64      delay_ms;
  guint       status;
  const char *message;
} ZotSseRetry;

typedef void (*ZotSseRetryFunc) (const ZotSseRetry *retry,
                                 gpointer           user_data);

/**
 * ZotSsePost:
 * @url: the absolute URL to POST to
 * @headers: (nullable): extra request headers as name, value, name, value,
 *   …, %NULL
 * @body: the JSON request body
 * @has_key: whether @headers carry an API key
 * @key_source: (nullable): where the key came from ("--api-key",
 *   "$OPENAI_API_KEY"), named when the server rejects it
 * @key_env: the environment variable to suggest when the server wants a key
 *   and none was sent ("OPENAI_API_KEY")
 * @label: (nullable): the provider's name for messages ("Anthropic"), %NULL
 *   for the URL's host
 * @max_retries: how often a busy server is asked again, 0 for never
 * @on_retry: (nullable): told of each retry before its wait
 * @retry_data: data for @on_retry; must outlive the operation
 *
 * One request of zot_sse_post_async(); the strings are copied.
 */
typedef struct
{
  const char         *url;
  const char * const *headers;
  GBytes             *body;
  gboolean            has_key;
  const char         *key_source;
  const char         *key_env;
  const char         *label;
  guint               max_retries;
  ZotSseRetryFunc     on_retry;
  gpointer            retry_data;
} ZotSsePost;

void     zot_sse_post_async   (SoupSession         *session,
                               const ZotSsePost    *post,
                               ZotSseEventFunc      func,
                               gpointer             func_data,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data);
gboolean zot_sse_post_finish  (GAsyncResult        *result,
                               GError             **error);

/**
 * ZOT_SSE_RETRYABLE_ERROR:
 *
 * The domain of an error a stream's event function sets for an error event
 * that came before any output ("overloaded_error" in a 200 answer): the
 * code is the HTTP status it stands for, and zot_sse_post_async() treats
 * it like that status, retrying it. Once retries run out it becomes
 * ZOT_PROVIDER_ERROR_RATE_LIMITED (429) or ZOT_PROVIDER_ERROR_SERVER.
 */
#define ZOT_SSE_RETRYABLE_ERROR (zot_sse_retryable_error_quark ())
GQuark   zot_sse_retryable_error_quark (void);
guint    zot_sse_stream_error_status (const char *type,
                                      gint64      code);

/* The pieces of the above, shared so the providers' tests can check them. */
char    *zot_http_error_summary     (guint               status,
                                     GBytes             *body);
gint64   zot_http_parse_retry_after (const char         *value,
                                     GDateTime          *now);
gboolean zot_http_status_is_retryable (guint             status);
gint64   zot_http_backoff_ms        (guint               retry,
                                     double              random);

SoupSession *zot_sse_session_new (void);

G_END_DECLS
