/* test-retries.c — a busy provider is asked again: which answers, how
 * often, how long it waits (Retry-After in seconds and as a date, the
 * backoff with its jitter, the budget), what the caller is told before
 * each wait, and what is never retried. A busy provider that says so
 * inside a 200 stream (Anthropic's error event, OpenRouter's and vLLM's
 * error object with a status, Gemini's) before any output counts as that
 * status; after output it ends the turn. Against the fake server, with
 * the deadlines shortened through the override. */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "zot-anthropic-provider.h"
#include "zot-gemini-provider.h"
#include "zot-openai-provider.h"
#include "zot-limits-private.h"
#include "zot-sse.h"
#include "zot-test-util.h"

#define SAFETY_MS 10000

typedef struct
{
  ZotTestProvider  base;
  GPtrArray       *notices;   /* each ::retrying's message */
  GArray          *delays;    /* and its delay_ms */
  GArray          *statuses;  /* and its status */
  gboolean         cancel_on_retry;
} Fixture;

static void
on_retrying (ZotProvider *provider,
             guint        retry,
             guint        max_retries,
             gint64       delay_ms,
             guint        status,
             const char  *message,
             gpointer     user_data)
{
  Fixture *fixture = user_data;

  g_assert_cmpuint (retry, ==, fixture->notices->len + 1);
  g_assert_cmpuint (max_retries, ==, zot_provider_get_max_retries (provider));
  g_ptr_array_add (fixture->notices, g_strdup (message));
  g_array_append_val (fixture->delays, delay_ms);
  g_array_append_val (fixture->statuses, status);
  if (fixture->cancel_on_retry)
    g_cancellable_cancel (fixture->base.cancellable);
}

/* @data: the provider's name; Anthropic's unless a case names another. */
static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  if (g_strcmp0 (data, "openai") == 0)
    zot_test_provider_setup (&fixture->base, "openai", ZOT_TYPE_OPENAI_PROVIDER,
                             zot_openai_provider_new, "sk-test");
  else if (g_strcmp0 (data, "gemini") == 0)
    zot_test_provider_setup (&fixture->base, "gemini", ZOT_TYPE_GEMINI_PROVIDER,
                             zot_gemini_provider_new, "gm-test");
  else
    zot_test_provider_setup (&fixture->base, "anthropic", ZOT_TYPE_ANTHROPIC_PROVIDER,
                             zot_anthropic_provider_new, "sk-ant-test");
  fixture->notices = g_ptr_array_new_with_free_func (g_free);
  fixture->delays = g_array_new (FALSE, FALSE, sizeof (gint64));
  fixture->statuses = g_array_new (FALSE, FALSE, sizeof (guint));
  g_signal_connect (fixture->base.provider, "retrying", G_CALLBACK (on_retrying), fixture);

  /* Short waits unless a case says otherwise; no case waits on these. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_BUDGET, 0);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_signal_handlers_disconnect_by_data (fixture->base.provider, fixture);
  zot_test_provider_teardown (&fixture->base);
  g_ptr_array_unref (fixture->notices);
  g_array_unref (fixture->delays);
  g_array_unref (fixture->statuses);
  for (ZotTimeout t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);
}

static void
push_text (Fixture    *fixture,
           const char *text)
{
  zot_test_provider_push_events (&fixture->base, zot_fake_server_anthropic_text (text, 50), FALSE);
}

/* One request with "hi", after what the last one left is cleared. */
static void
run (Fixture *fixture)
{
  g_clear_pointer (&fixture->base.reply, zot_provider_reply_free);
  g_clear_error (&fixture->base.error);
  g_ptr_array_set_size (fixture->notices, 0);
  g_array_set_size (fixture->delays, 0);
  g_array_set_size (fixture->statuses, 0);
  zot_test_provider_run (&fixture->base);
}

static guint
n_requests (Fixture *fixture)
{
  return zot_fake_server_get_n_requests (fixture->base.server);
}

/* ------------------------------------------------------------------ */

static const guint retryable[] = { 408, 409, 429, 500, 502, 503, 504, 529 };
static const guint not_retryable[] = { 400, 404, 413, 422, 501, 505 };

static void
test_statuses (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (retryable); i++)
    g_assert_true (zot_http_status_is_retryable (retryable[i]));
  for (guint i = 0; i < G_N_ELEMENTS (not_retryable); i++)
    g_assert_false (zot_http_status_is_retryable (not_retryable[i]));
  g_assert_false (zot_http_status_is_retryable (401));
  g_assert_false (zot_http_status_is_retryable (200));
}

/* Each retryable status, answered once, is followed by a second try that
 * succeeds, and the caller heard of the wait. */
static void
test_each_status_retried (Fixture       *fixture,
                          gconstpointer  data)
{
  for (guint i = 0; i < G_N_ELEMENTS (retryable); i++)
    {
      guint before = n_requests (fixture);

      zot_fake_server_push_json (fixture->base.server, retryable[i],
                                 "{\"error\":{\"message\":\"busy\"}}", NULL);
      push_text (fixture, "fine");
      run (fixture);

      g_assert_no_error (fixture->base.error);
      g_assert_cmpuint (n_requests (fixture) - before, ==, 2);
      g_assert_cmpuint (fixture->notices->len, ==, 1);
      g_assert_nonnull (strstr (g_ptr_array_index (fixture->notices, 0), "attempt 1 of 4"));
    }
}

static void
test_other_statuses_not_retried (Fixture       *fixture,
                                 gconstpointer  data)
{
  for (guint i = 0; i < G_N_ELEMENTS (not_retryable); i++)
    {
      guint before = n_requests (fixture);

      zot_fake_server_push_json (fixture->base.server, not_retryable[i],
                                 "{\"error\":{\"message\":\"no\"}}", NULL);
      run (fixture);

      g_assert_nonnull (fixture->base.error);
      g_assert_true (fixture->base.error->domain == ZOT_PROVIDER_ERROR);
      g_assert_cmpuint (n_requests (fixture) - before, ==, 1);
      g_assert_cmpuint (fixture->notices->len, ==, 0);
    }
}

/* The message names the provider and what it said. */
static void
test_message (Fixture       *fixture,
              gconstpointer  data)
{
  zot_fake_server_push_json (fixture->base.server, 529, "{}", "0");
  push_text (fixture, "fine");
  run (fixture);

  g_assert_no_error (fixture->base.error);
  g_assert_cmpstr (g_ptr_array_index (fixture->notices, 0), ==,
                   "Anthropic is overloaded (529) — retrying in 0 ms (attempt 1 of 4)");
}

/* ZOT_PROVIDER_MAX_RETRIES failures then success works; one more fails. */
static void
test_cap (Fixture       *fixture,
          gconstpointer  data)
{
  for (guint i = 0; i < ZOT_PROVIDER_MAX_RETRIES; i++)
    zot_fake_server_push_json (fixture->base.server, 503, "{}", NULL);
  push_text (fixture, "made it");
  run (fixture);
  g_assert_no_error (fixture->base.error);
  g_assert_cmpuint (n_requests (fixture), ==, ZOT_PROVIDER_MAX_RETRIES + 1);
  g_assert_cmpuint (fixture->notices->len, ==, ZOT_PROVIDER_MAX_RETRIES);

  for (guint i = 0; i < ZOT_PROVIDER_MAX_RETRIES + 1; i++)
    zot_fake_server_push_json (fixture->base.server, 503, "{\"error\":{\"message\":\"Overloaded\"}}",
                               NULL);
  push_text (fixture, "never read");
  run (fixture);
  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->base.error->message, "Overloaded"));
  g_assert_nonnull (strstr (fixture->base.error->message, "after 5 tries"));
  g_assert_cmpuint (n_requests (fixture), ==, 2 * (ZOT_PROVIDER_MAX_RETRIES + 1));
}

/* --max-retries: 0 asks once; 2 asks three times. */
static void
test_max_retries_setting (Fixture       *fixture,
                          gconstpointer  data)
{
  zot_provider_set_max_retries (fixture->base.provider, 0);
  zot_fake_server_push_json (fixture->base.server, 429, "{}", "0");
  run (fixture);
  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_RATE_LIMITED);
  g_assert_cmpuint (n_requests (fixture), ==, 1);
  g_assert_cmpuint (fixture->notices->len, ==, 0);

  zot_provider_set_max_retries (fixture->base.provider, 2);
  for (guint i = 0; i < 3; i++)
    zot_fake_server_push_json (fixture->base.server, 429, "{}", "0");
  run (fixture);
  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_RATE_LIMITED);
  g_assert_cmpuint (n_requests (fixture), ==, 4);
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->notices, 1), "attempt 2 of 2"));

  zot_provider_set_max_retries (fixture->base.provider, G_MAXUINT);
  g_assert_cmpuint (zot_provider_get_max_retries (fixture->base.provider), ==,
                    ZOT_PROVIDER_MAX_RETRIES_LIMIT);
}

/* Retry-After in seconds and as an HTTP date is the wait, not the backoff. */
static void
test_retry_after_forms (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) later = g_date_time_add_seconds (now, 3);
  g_autofree char *date = soup_date_time_to_string (later, SOUP_DATE_HTTP);

  /* Both waits are cancelled as they begin: only what was announced counts. */
  fixture->cancel_on_retry = TRUE;

  zot_fake_server_push_json (fixture->base.server, 429, "{}", "7");
  run (fixture);
  g_assert_error (fixture->base.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_array_index (fixture->delays, gint64, 0), ==, 7000);
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->notices, 0), "retrying in 7 s"));

  g_clear_object (&fixture->base.cancellable);
  fixture->base.cancellable = g_cancellable_new ();
  zot_fake_server_push_json (fixture->base.server, 503, "{}", date);
  run (fixture);
  g_assert_error (fixture->base.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_array_index (fixture->delays, gint64, 0), >, 1000);
  g_assert_cmpint (g_array_index (fixture->delays, gint64, 0), <=, 3000);
}

/* A Retry-After past what is left of the budget ends at once, saying so. */
static void
test_retry_after_past_budget (Fixture       *fixture,
                              gconstpointer  data)
{
  gint64 start = g_get_monotonic_time ();

  zot_fake_server_push_json (fixture->base.server, 429,
                             "{\"error\":{\"message\":\"slow down\"}}", "3600");
  push_text (fixture, "never read");
  run (fixture);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_RATE_LIMITED);
  g_assert_nonnull (strstr (fixture->base.error->message, "slow down"));
  g_assert_nonnull (strstr (fixture->base.error->message, "asks to wait 3600 s"));
  g_assert_nonnull (strstr (fixture->base.error->message, "try again later"));
  g_assert_cmpuint (n_requests (fixture), ==, 1);
  g_assert_cmpuint (fixture->notices->len, ==, 0);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

/* The budget counts from the first try: waits of 1 s within 2.5 s allow
 * two retries, not a third. */
static void
test_budget (Fixture       *fixture,
             gconstpointer  data)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_BUDGET, 2500);

  for (guint i = 0; i < 4; i++)
    zot_fake_server_push_json (fixture->base.server, 503, "{}", "1");
  run (fixture);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->base.error->message, "longer than the 2.5 s"));
  g_assert_cmpuint (n_requests (fixture), ==, 3);
  g_assert_cmpuint (fixture->notices->len, ==, 2);
}

/* Backoff without Retry-After: doubling from RETRY, capped at RETRY_MAX,
 * stretched by at most the jitter. */
static void
test_backoff (void)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 1000);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 6000);

  g_assert_cmpint (zot_http_backoff_ms (1, 0.0), ==, 1000);
  g_assert_cmpint (zot_http_backoff_ms (2, 0.0), ==, 2000);
  g_assert_cmpint (zot_http_backoff_ms (3, 0.0), ==, 4000);
  g_assert_cmpint (zot_http_backoff_ms (4, 0.0), ==, 6000);
  g_assert_cmpint (zot_http_backoff_ms (40, 0.0), ==, 6000);
  g_assert_cmpint (zot_http_backoff_ms (1, 0.999999), ==,
                   1000 + 1000 * ZOT_PROVIDER_RETRY_JITTER_PERCENT / 100 - 1);
  g_assert_cmpint (zot_http_backoff_ms (2, 0.5), ==,
                   2000 + 2000 * ZOT_PROVIDER_RETRY_JITTER_PERCENT / 200);

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 0);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 0);
  g_assert_cmpint (zot_http_backoff_ms (1, 0.0), ==, ZOT_PROVIDER_RETRY_MS);
  g_assert_cmpint (zot_timeout_get_ms (ZOT_TIMEOUT_PROVIDER_RETRY_BUDGET), ==, 120000);
  g_assert_cmpint (ZOT_PROVIDER_MAX_RETRIES, ==, 4);
}

/* A connection dropped before any answer is tried again. */
static void
test_connection_reset (Fixture       *fixture,
                       gconstpointer  data)
{
  zot_fake_server_push_reset (fixture->base.server);
  push_text (fixture, "after the reset");
  run (fixture);

  g_assert_no_error (fixture->base.error);
  g_assert_cmpuint (n_requests (fixture), ==, 2);
  g_assert_cmpuint (fixture->notices->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->notices, 0),
                            "the connection to Anthropic failed"));
  g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (&fixture->base, 0),
                                            "text"), ==, "after the reset");
}

/* A stream that broke before its first event, after a 200 and a comment:
 * nothing reached the caller, so it is asked again too. */
static void
test_cut_before_output (Fixture       *fixture,
                        gconstpointer  data)
{
  static const char * const comment_only[] = { ": keep-alive", NULL };

  zot_fake_server_push_sse (fixture->base.server, comment_only, TRUE);
  push_text (fixture, "after the cut");
  run (fixture);

  g_assert_no_error (fixture->base.error);
  g_assert_cmpuint (n_requests (fixture), ==, 2);
  g_assert_cmpuint (fixture->notices->len, ==, 1);
  g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (&fixture->base, 0),
                                            "text"), ==, "after the cut");
}

/* A refused connection too, until the retries run out. */
static void
test_connection_refused (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *url = NULL;

  /* A port that was bound and is not listened on refuses. */
  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  url = g_strdup_printf ("http://127.0.0.1:%u",
                         g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  g_signal_handlers_disconnect_by_data (fixture->base.provider, fixture);
  g_object_unref (fixture->base.provider);
  fixture->base.provider = zot_test_provider_make (&fixture->base, url, "sk-ant-test", NULL);
  g_signal_connect (fixture->base.provider, "retrying", G_CALLBACK (on_retrying), fixture);

  run (fixture);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK);
  g_assert_cmpuint (fixture->notices->len, ==, ZOT_PROVIDER_MAX_RETRIES);
}

/* Once output streamed, a broken stream ends the turn without a retry. */
static void
test_no_retry_after_output (Fixture       *fixture,
                            gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_anthropic_text ("partial answer", 4);

  zot_test_truncate_events (events, 5);
  zot_fake_server_push_sse (fixture->base.server, (const char * const *) events, TRUE);
  push_text (fixture, "must not be asked for");
  run (fixture);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->base.error->message, "ended early"));
  g_assert_nonnull (strstr (fixture->base.error->message, "the answer had begun, so it was not retried"));
  g_assert_cmpuint (fixture->base.text_deltas->len, >, 0);
  g_assert_cmpuint (n_requests (fixture), ==, 1);
  g_assert_cmpuint (fixture->notices->len, ==, 0);
}

/* Cancelling during a long wait ends the call at once. */
static void
test_cancel_during_wait (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("hi");
  gint64 start;

  zot_fake_server_push_json (fixture->base.server, 529, "{}", "60");
  zot_test_provider_start (&fixture->base, request);
  while (fixture->notices->len == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (fixture->base.done);

  start = g_get_monotonic_time ();
  g_cancellable_cancel (fixture->base.cancellable);
  zot_test_wait_for (&fixture->base.done, SAFETY_MS);

  g_assert_error (fixture->base.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  g_assert_cmpuint (n_requests (fixture), ==, 1);
}

/* Runs @events, an answer that began and then reported an error, with
 * @unasked (transfer full) queued behind: the turn ends with @code and
 * @says, nothing is asked again and no one is told of a retry. */
static void
run_ending_after_output (Fixture            *fixture,
                         const char * const *events,
                         GStrv               unasked,
                         int                 code,
                         const char         *says)
{
  guint before = n_requests (fixture);

  g_ptr_array_set_size (fixture->base.text_deltas, 0);
  zot_fake_server_push_sse (fixture->base.server, events, FALSE);
  zot_test_provider_push_events (&fixture->base, unasked, FALSE);
  run (fixture);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, code);
  g_assert_nonnull (strstr (fixture->base.error->message, says));
  g_assert_cmpuint (fixture->base.text_deltas->len, >, 0);
  g_assert_cmpuint (n_requests (fixture) - before, ==, 1);
  g_assert_cmpuint (fixture->notices->len, ==, 0);
}

/* message_start (Anthropic's first event, not output), then an error event. */
static void
push_anthropic_error (Fixture    *fixture,
                      const char *type)
{
  g_auto(GStrv) text = zot_fake_server_anthropic_text ("unused", 50);
  g_autofree char *error = g_strdup_printf ("event: error\ndata: {\"type\":\"error\","
                                            "\"error\":{\"type\":\"%s\",\"message\":\"Busy\"}}",
                                            type);
  const char * const events[] = { text[0], error, NULL };

  zot_fake_server_push_sse (fixture->base.server, events, FALSE);
}

static void
test_stream_error_statuses (void)
{
  g_assert_cmpuint (zot_sse_stream_error_status ("overloaded_error", 0), ==, 529);
  g_assert_cmpuint (zot_sse_stream_error_status ("rate_limit_error", 0), ==, 429);
  g_assert_cmpuint (zot_sse_stream_error_status ("api_error", 0), ==, 500);
  g_assert_cmpuint (zot_sse_stream_error_status ("server_error", 0), ==, 500);
  g_assert_cmpuint (zot_sse_stream_error_status ("rate_limit_exceeded", 0), ==, 429);
  g_assert_cmpuint (zot_sse_stream_error_status (NULL, 502), ==, 502);
  g_assert_cmpuint (zot_sse_stream_error_status ("invalid_request_error", 0), ==, 0);
  g_assert_cmpuint (zot_sse_stream_error_status (NULL, 400), ==, 0);
  g_assert_cmpuint (zot_sse_stream_error_status (NULL, 0), ==, 0);
}

/* Each retryable kind before output: asked again, the user told why. */
static void
test_anthropic_before_output (Fixture       *fixture,
                              gconstpointer  data)
{
  static const struct { const char *type; guint status; const char *says; } kinds[] = {
    { "overloaded_error", 529, "Anthropic is overloaded (529)" },
    { "rate_limit_error", 429, "Anthropic is rate limiting (429)" },
    { "api_error", 500, "Anthropic is having trouble (500)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      guint before = n_requests (fixture);

      push_anthropic_error (fixture, kinds[i].type);
      zot_test_provider_push_events (&fixture->base,
                                     zot_fake_server_anthropic_text ("second try", 50), FALSE);
      run (fixture);

      g_assert_no_error (fixture->base.error);
      g_assert_cmpuint (n_requests (fixture) - before, ==, 2);
      g_assert_cmpuint (fixture->notices->len, ==, 1);
      g_assert_cmpuint (g_array_index (fixture->statuses, guint, 0), ==, kinds[i].status);
      g_assert_nonnull (strstr (g_ptr_array_index (fixture->notices, 0), kinds[i].says));
      g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (&fixture->base, 0),
                                                "text"), ==, "second try");
    }
}

/* The cap holds for these too, and the end says what the server said. */
static void
test_anthropic_cap (Fixture       *fixture,
                    gconstpointer  data)
{
  for (guint i = 0; i <= ZOT_PROVIDER_MAX_RETRIES; i++)
    push_anthropic_error (fixture, "overloaded_error");
  run (fixture);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->base.error->message, "overloaded_error"));
  g_assert_cmpuint (fixture->notices->len, ==, ZOT_PROVIDER_MAX_RETRIES);
  g_assert_cmpuint (n_requests (fixture), ==, ZOT_PROVIDER_MAX_RETRIES + 1);
}

/* A kind that would fail again is not retried. */
static void
test_anthropic_other_kind (Fixture       *fixture,
                           gconstpointer  data)
{
  push_anthropic_error (fixture, "invalid_request_error");
  run (fixture);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_cmpuint (n_requests (fixture), ==, 1);
  g_assert_cmpuint (fixture->notices->len, ==, 0);
}

/* After a block began the user saw part of an answer: the turn ends. */
static void
test_anthropic_after_output (Fixture       *fixture,
                             gconstpointer  data)
{
  g_auto(GStrv) text = zot_fake_server_anthropic_text ("partial answer", 4);
  const char *error = "event: error\ndata: {\"type\":\"error\","
                      "\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
  const char *events[8] = { NULL };

  for (guint i = 0; i < 4; i++)
    events[i] = text[i];
  events[4] = error;
  run_ending_after_output (fixture, events, zot_fake_server_anthropic_text ("not asked", 50),
                           ZOT_PROVIDER_ERROR_SERVER, "Overloaded");
}

/* Runs two one-event answers that each report an error, then @answer
 * (transfer full) with "third try": both errors were retried, as
 * @first_status and @second_status. */
static void
run_retried_twice (Fixture    *fixture,
                   const char *first,
                   const char *second,
                   GStrv       answer,
                   guint       first_status,
                   guint       second_status)
{
  const char *one[] = { first, NULL };
  const char *two[] = { second, NULL };

  zot_fake_server_push_sse (fixture->base.server, one, FALSE);
  zot_fake_server_push_sse (fixture->base.server, two, FALSE);
  zot_test_provider_push_events (&fixture->base, answer, FALSE);
  run (fixture);

  g_assert_no_error (fixture->base.error);
  g_assert_cmpuint (n_requests (fixture), ==, 3);
  g_assert_cmpuint (fixture->statuses->len, ==, 2);
  g_assert_cmpuint (g_array_index (fixture->statuses, guint, 0), ==, first_status);
  g_assert_cmpuint (g_array_index (fixture->statuses, guint, 1), ==, second_status);
  g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (&fixture->base, 0),
                                            "text"), ==, "third try");
}

/* OpenRouter's form: a status in "code"; OpenAI's: a kind in "type". */
static void
test_openai_before_output (Fixture       *fixture,
                           gconstpointer  data)
{
  run_retried_twice (fixture,
                     "data: {\"error\":{\"code\":502,\"message\":\"Provider returned error\"}}",
                     "data: {\"error\":{\"type\":\"server_error\",\"code\":null,\"message\":\"Busy\"}}",
                     zot_fake_server_openai_text ("third try", 50), 502, 500);
}

static void
test_openai_after_output (Fixture       *fixture,
                          gconstpointer  data)
{
  g_auto(GStrv) text = zot_fake_server_openai_text ("partial answer", 4);
  const char *events[] = { text[0], text[1],
                           "data: {\"error\":{\"code\":502,\"message\":\"Provider returned error\"}}",
                           NULL };

  run_ending_after_output (fixture, events, zot_fake_server_openai_text ("not asked", 50),
                           ZOT_PROVIDER_ERROR_BAD_STREAM, "Provider returned error");
}

/* Gemini's: a status in "code", or only its name in "status". */
static void
test_gemini (Fixture       *fixture,
             gconstpointer  data)
{
  const char *with_code = "data: {\"error\":{\"code\":503,\"message\":\"overloaded\","
                          "\"status\":\"UNAVAILABLE\"}}";
  g_auto(GStrv) text = zot_fake_server_gemini_text ("partial answer", 4);
  const char *after[] = { text[0], with_code, NULL };

  run_retried_twice (fixture, with_code,
                     "data: {\"error\":{\"message\":\"Quota\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
                     zot_fake_server_gemini_text ("third try", 50), 503, 429);

  /* After text, the turn ends. */
  run_ending_after_output (fixture, after, zot_fake_server_gemini_text ("not asked", 50),
                           ZOT_PROVIDER_ERROR_SERVER, "overloaded");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/retries/statuses", test_statuses);
  g_test_add_func ("/zot/retries/backoff", test_backoff);
#define ADD(path, func) \
  g_test_add ("/zot/retries/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("each-status", test_each_status_retried);
  ADD ("other-statuses", test_other_statuses_not_retried);
  ADD ("message", test_message);
  ADD ("cap", test_cap);
  ADD ("max-retries-setting", test_max_retries_setting);
  ADD ("retry-after-forms", test_retry_after_forms);
  ADD ("retry-after-past-budget", test_retry_after_past_budget);
  ADD ("budget", test_budget);
  ADD ("connection-reset", test_connection_reset);
  ADD ("connection-refused", test_connection_refused);
  ADD ("cut-before-output", test_cut_before_output);
  ADD ("no-retry-after-output", test_no_retry_after_output);
  ADD ("cancel-during-wait", test_cancel_during_wait);
#undef ADD
  g_test_add_func ("/zot/retries/stream-error/statuses", test_stream_error_statuses);
#define ADD(path, provider, func) \
  g_test_add ("/zot/retries/stream-error/" path, Fixture, provider, fixture_setup, func, \
              fixture_teardown)
  ADD ("anthropic/before-output", NULL, test_anthropic_before_output);
  ADD ("anthropic/cap", NULL, test_anthropic_cap);
  ADD ("anthropic/other-kind", NULL, test_anthropic_other_kind);
  ADD ("anthropic/after-output", NULL, test_anthropic_after_output);
  ADD ("openai/before-output", "openai", test_openai_before_output);
  ADD ("openai/after-output", "openai", test_openai_after_output);
  ADD ("gemini", "gemini", test_gemini);
#undef ADD

  return g_test_run ();
}
