/* test-stream-error-retries.c — a busy provider that says so inside a 200
 * answer. Anthropic sends "overloaded" as an SSE error event, OpenRouter
 * and vLLM as an error object with a status, Gemini with its own: before any output that is
 * the status it stands for, retried with a row for the user; after output
 * it ends the turn. Against the fake server, deadlines shortened. */
#include "config.h"

#include <string.h>

#include "zot-anthropic-provider.h"
#include "zot-gemini-provider.h"
#include "zot-limits-private.h"
#include "zot-openai-provider.h"
#include "zot-sse.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestProvider  base;
  GPtrArray       *notices;
  GArray          *statuses;
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

  g_ptr_array_add (fixture->notices, g_strdup (message));
  g_array_append_val (fixture->statuses, status);
}

static void
setup_common (Fixture *fixture)
{
  fixture->notices = g_ptr_array_new_with_free_func (g_free);
  fixture->statuses = g_array_new (FALSE, FALSE, sizeof (guint));
  g_signal_connect (fixture->base.provider, "retrying", G_CALLBACK (on_retrying), fixture);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);
}

static void
anthropic_setup (Fixture       *fixture,
                 gconstpointer  data)
{
  zot_test_provider_setup (&fixture->base, "anthropic", ZOT_TYPE_ANTHROPIC_PROVIDER,
                           zot_anthropic_provider_new, "sk-ant-test");
  setup_common (fixture);
}

static void
openai_setup (Fixture       *fixture,
              gconstpointer  data)
{
  zot_test_provider_setup (&fixture->base, "openai", ZOT_TYPE_OPENAI_PROVIDER,
                           zot_openai_provider_new, "sk-test");
  setup_common (fixture);
}

static void
gemini_setup (Fixture       *fixture,
              gconstpointer  data)
{
  zot_test_provider_setup (&fixture->base, "gemini", ZOT_TYPE_GEMINI_PROVIDER,
                           zot_gemini_provider_new, "gm-test");
  setup_common (fixture);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_signal_handlers_disconnect_by_data (fixture->base.provider, fixture);
  zot_test_provider_teardown (&fixture->base);
  g_ptr_array_unref (fixture->notices);
  g_array_unref (fixture->statuses);
  for (ZotTimeout t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);
}

static guint
n_requests (Fixture *fixture)
{
  return zot_fake_server_get_n_requests (fixture->base.server);
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
test_statuses (void)
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

      g_clear_pointer (&fixture->base.reply, zot_provider_reply_free);
      g_ptr_array_set_size (fixture->notices, 0);
      g_array_set_size (fixture->statuses, 0);
      push_anthropic_error (fixture, kinds[i].type);
      zot_test_provider_push_events (&fixture->base,
                                     zot_fake_server_anthropic_text ("second try", 50), FALSE);
      zot_test_provider_run (&fixture->base);

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
  zot_test_provider_run (&fixture->base);

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
  zot_test_provider_run (&fixture->base);

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
  zot_fake_server_push_sse (fixture->base.server, events, FALSE);
  zot_test_provider_push_events (&fixture->base,
                                 zot_fake_server_anthropic_text ("must not be asked for", 50),
                                 FALSE);
  zot_test_provider_run (&fixture->base);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->base.error->message, "Overloaded"));
  g_assert_cmpuint (fixture->base.text_deltas->len, >, 0);
  g_assert_cmpuint (n_requests (fixture), ==, 1);
  g_assert_cmpuint (fixture->notices->len, ==, 0);
}

/* OpenRouter's form: a status in "code"; OpenAI's: a kind in "type". */
static void
test_openai_before_output (Fixture       *fixture,
                           gconstpointer  data)
{
  static const char * const status_code[] = {
    "data: {\"error\":{\"code\":502,\"message\":\"Provider returned error\"}}", NULL };
  static const char * const kind[] = {
    "data: {\"error\":{\"type\":\"server_error\",\"code\":null,\"message\":\"Busy\"}}", NULL };

  zot_fake_server_push_sse (fixture->base.server, status_code, FALSE);
  zot_fake_server_push_sse (fixture->base.server, kind, FALSE);
  zot_test_provider_push_events (&fixture->base, zot_fake_server_openai_text ("third try", 50),
                                 FALSE);
  zot_test_provider_run (&fixture->base);

  g_assert_no_error (fixture->base.error);
  g_assert_cmpuint (n_requests (fixture), ==, 3);
  g_assert_cmpuint (fixture->statuses->len, ==, 2);
  g_assert_cmpuint (g_array_index (fixture->statuses, guint, 0), ==, 502);
  g_assert_cmpuint (g_array_index (fixture->statuses, guint, 1), ==, 500);
  g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (&fixture->base, 0),
                                            "text"), ==, "third try");
}

static void
test_openai_after_output (Fixture       *fixture,
                          gconstpointer  data)
{
  g_auto(GStrv) text = zot_fake_server_openai_text ("partial answer", 4);
  const char *events[] = { text[0], text[1],
                           "data: {\"error\":{\"code\":502,\"message\":\"Provider returned error\"}}",
                           NULL };

  zot_fake_server_push_sse (fixture->base.server, events, FALSE);
  zot_test_provider_push_events (&fixture->base,
                                 zot_fake_server_openai_text ("must not be asked for", 50), FALSE);
  zot_test_provider_run (&fixture->base);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->base.error->message, "Provider returned error"));
  g_assert_cmpuint (fixture->base.text_deltas->len, >, 0);
  g_assert_cmpuint (n_requests (fixture), ==, 1);
  g_assert_cmpuint (fixture->notices->len, ==, 0);
}

/* Gemini's: a status in "code", or only its name in "status". */
static void
test_gemini (Fixture       *fixture,
             gconstpointer  data)
{
  static const char * const with_code[] = {
    "data: {\"error\":{\"code\":503,\"message\":\"overloaded\",\"status\":\"UNAVAILABLE\"}}", NULL };
  static const char * const with_name[] = {
    "data: {\"error\":{\"message\":\"Quota\",\"status\":\"RESOURCE_EXHAUSTED\"}}", NULL };
  g_auto(GStrv) text = zot_fake_server_gemini_text ("partial answer", 4);
  const char *after[] = { text[0], with_code[0], NULL };

  zot_fake_server_push_sse (fixture->base.server, with_code, FALSE);
  zot_fake_server_push_sse (fixture->base.server, with_name, FALSE);
  zot_test_provider_push_events (&fixture->base, zot_fake_server_gemini_text ("third try", 50),
                                 FALSE);
  zot_test_provider_run (&fixture->base);

  g_assert_no_error (fixture->base.error);
  g_assert_cmpuint (n_requests (fixture), ==, 3);
  g_assert_cmpuint (fixture->statuses->len, ==, 2);
  g_assert_cmpuint (g_array_index (fixture->statuses, guint, 0), ==, 503);
  g_assert_cmpuint (g_array_index (fixture->statuses, guint, 1), ==, 429);

  /* After text, the turn ends. */
  g_clear_pointer (&fixture->base.reply, zot_provider_reply_free);
  zot_fake_server_push_sse (fixture->base.server, after, FALSE);
  zot_test_provider_push_events (&fixture->base, zot_fake_server_gemini_text ("not asked", 50),
                                 FALSE);
  zot_test_provider_run (&fixture->base);

  g_assert_error (fixture->base.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_cmpuint (n_requests (fixture), ==, 4);
  g_assert_cmpuint (fixture->statuses->len, ==, 2);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/stream-error-retries/statuses", test_statuses);
#define ADD(path, setup, func) \
  g_test_add ("/zot/stream-error-retries/" path, Fixture, NULL, setup, func, fixture_teardown)
  ADD ("anthropic/before-output", anthropic_setup, test_anthropic_before_output);
  ADD ("anthropic/cap", anthropic_setup, test_anthropic_cap);
  ADD ("anthropic/other-kind", anthropic_setup, test_anthropic_other_kind);
  ADD ("anthropic/after-output", anthropic_setup, test_anthropic_after_output);
  ADD ("openai/before-output", openai_setup, test_openai_before_output);
  ADD ("openai/after-output", openai_setup, test_openai_after_output);
  ADD ("gemini", gemini_setup, test_gemini);
#undef ADD

  return g_test_run ();
}
