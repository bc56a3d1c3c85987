/* zot-sse-retry.c — when the poster asks a busy provider again, how long
 * it waits, and what it tells the user meanwhile.
 *
 * The statuses are those a server sends when a later try may well work:
 * a timeout (408), a conflict of its own state (409), rate limits (429),
 * overload (503, Anthropic's 529) and a failing or unreachable upstream
 * (500, 502, 504). 501 and the other 4xx are the request's fault and would
 * fail the same way again. A connection that was refused, or broke before
 * any event of the answer reached the provider, is tried again too; once
 * one did, the user has seen part of an answer and nothing is retried.
 */
#define G_LOG_DOMAIN "zot-sse"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-limits.h"
#include "zot-sse.h"
#include "zot-sse-private.h"

/**
 * zot_http_status_is_retryable:
 * @status: an HTTP status
 *
 * Returns: whether an answer with @status is worth another try
 */
gboolean
zot_http_status_is_retryable (guint status)
{
  switch (status)
    {
    case 408: case 409: case 429:
    case 500: case 502: case 503: case 504: case 529:
      return TRUE;
    default:
      return FALSE;
    }
}

/**
 * zot_http_backoff_ms:
 * @retry: which retry, from 1
 * @random: a number in [0, 1) that picks the jitter
 *
 * Returns: the wait before @retry when the server named none: the
 *   ZOT_TIMEOUT_PROVIDER_RETRY doubled for each retry before, at most
 *   ZOT_TIMEOUT_PROVIDER_RETRY_MAX, then stretched by up to
 *   ZOT_PROVIDER_RETRY_JITTER_PERCENT
 */
gint64
zot_http_backoff_ms (guint  retry,
                     double random)
{
  gint64 cap = zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_RETRY_MAX);
  gint64 delay = zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_RETRY);

  for (guint i = 1; i < retry && delay < cap; i++)
    delay *= 2;
  delay = MIN (delay, cap);

  random = CLAMP (random, 0.0, 1.0);
  return delay + (gint64) (delay * ZOT_PROVIDER_RETRY_JITTER_PERCENT / 100.0 * random);
}

G_DEFINE_QUARK (zot-sse-retryable-error-quark, zot_sse_retryable_error)

/**
 * zot_sse_stream_error_status:
 * @type: (nullable): the error event's kind: Anthropic's "type"
 *   ("overloaded_error"), OpenAI's "type" or "code" ("server_error",
 *   "rate_limit_exceeded")
 * @code: the numeric status some servers (OpenRouter, vLLM) put in the
 *   error object instead, 0 for none
 *
 * Returns: the retryable HTTP status an error event of this kind stands
 *   for, or 0 when another try would fail the same way
 */
guint
zot_sse_stream_error_status (const char *type,
                             gint64      code)
{
  static const struct { const char *type; guint status; } kinds[] = {
    { "overloaded_error", 529 },
    { "rate_limit_error", 429 },
    { "rate_limit_exceeded", 429 },
    { "api_error", 500 },
    { "server_error", 500 },
  };

  if (code > 0 && code <= G_MAXUINT && zot_http_status_is_retryable ((guint) code))
    return (guint) code;
  for (guint i = 0; type != NULL && i < G_N_ELEMENTS (kinds); i++)
    if (g_str_equal (type, kinds[i].type))
      return kinds[i].status;
  return 0;
}

/* Whether a request that got no answer at all may be sent again: the
 * server refused or dropped the connection before it said anything. */
gboolean
_zot_sse_connection_error_is_retryable (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT);
}

/* "Anthropic is overloaded (529)", "the connection to Anthropic was lost". */
char *
_zot_sse_retry_reason (const char *label,
                       guint       status)
{
  switch (status)
    {
    case 0:
      /* Translators: the provider's name ("Anthropic") */
      return g_strdup_printf (_("the connection to %s failed"), label);
    case 408:
      /* Translators: the provider's name, then the HTTP status */
      return g_strdup_printf (_("%s timed out (%u)"), label, status);
    case 429:
      /* Translators: the provider's name, then the HTTP status */
      return g_strdup_printf (_("%s is rate limiting (%u)"), label, status);
    case 503: case 529:
      /* Translators: the provider's name, then the HTTP status */
      return g_strdup_printf (_("%s is overloaded (%u)"), label, status);
    default:
      /* Translators: the provider's name, then the HTTP status */
      return g_strdup_printf (_("%s is having trouble (%u)"), label, status);
    }
}

/* The line ZotSseRetry carries. */
char *
_zot_sse_retry_message (const char *label,
                        guint       status,
                        guint       retry,
                        guint       max_retries,
                        gint64      delay_ms)
{
  g_autofree char *reason = _zot_sse_retry_reason (label, status);
  g_autofree char *wait = NULL;

  /* Whole seconds read better than the jitter's tenths. */
  if (delay_ms >= 1000)
    delay_ms = (delay_ms + 999) / 1000 * 1000;
  wait = _zot_sse_format_ms ((guint) MIN (delay_ms, G_MAXUINT));

  /* Translators: what went wrong ("Anthropic is overloaded (529)"), a duration ("4 s"), then
   * which retry this is and how many there may be */
  return g_strdup_printf (_("%s — retrying in %s (attempt %u of %u)"),
                          reason, wait, retry, max_retries);
}
