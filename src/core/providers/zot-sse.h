/* zot-sse.h — Server-Sent Events and the HTTP plumbing of the providers.
 *
 * zot_sse_read_async() reads a text/event-stream body from any GInputStream
 * and hands each event to a callback as it completes. Every read has a
 * deadline (ZOT_TIMEOUT_PROVIDER_IDLE): a server that goes silent ends the
 * stream with ZOT_PROVIDER_ERROR_BAD_STREAM instead of hanging the turn.
 *
 * zot_sse_post_async() is what the providers use: it POSTs a JSON body with
 * libsoup, retries 429 and 5xx answers (ZOT_PROVIDER_MAX_TRIES, exponential
 * backoff from ZOT_TIMEOUT_PROVIDER_RETRY, `retry-after` honoured, every
 * wait capped at ZOT_TIMEOUT_PROVIDER_RETRY_MAX), turns error answers into
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

/* The pieces of the above, shared so the providers' tests can check them. */
char    *zot_http_error_summary     (guint               status,
                                     GBytes             *body);
gint64   zot_http_parse_retry_after (const char         *value,
                                     GDateTime          *now);

SoupSession *zot_sse_session_new (void);

G_END_DECLS
