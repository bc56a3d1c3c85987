/* test-sse.c — the server-sent events reader and the HTTP helpers the
 * providers share, on their own: event parsing, stopping, the event size
 * cap, UTF-8, error summaries and retry-after. */
#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-provider.h"
#include "zot-sse.h"
#include "zot-test-util.h"

#define SAFETY_MS 10000

typedef struct
{
  GPtrArray *events;
  gboolean   done;
  gboolean   ok;
  GError    *error;
  guint      stop_after;
} SseRun;

static gboolean
collect_event (const char  *event,
               const char  *data,
               gpointer     user_data,
               GError     **error)
{
  SseRun *run_data = user_data;

  g_ptr_array_add (run_data->events, g_strdup_printf ("%s=%s", event, data));
  return run_data->stop_after == 0 || run_data->events->len < run_data->stop_after;
}

static void
sse_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  SseRun *run_data = user_data;

  run_data->ok = zot_sse_read_finish (result, &run_data->error);
  run_data->done = TRUE;
}

static void
read_sse (SseRun     *run_data,
          const char *text,
          gsize       length)
{
  g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_data (g_memdup2 (text, length),
                                                                         length, g_free);

  run_data->events = g_ptr_array_new_with_free_func (g_free);
  zot_sse_read_async (stream, collect_event, run_data, NULL, sse_read_cb, run_data);
  zot_test_wait_for (&run_data->done, SAFETY_MS);
}

static void
sse_run_clear (SseRun *run_data)
{
  g_clear_pointer (&run_data->events, g_ptr_array_unref);
  g_clear_error (&run_data->error);
}

static void
test_sse_parse (void)
{
  const char text[] =
    ": comment\r\n"
    "event: first\r\n"
    "data: one\r\n"
    "data:two\r\n"
    "id: 7\r\n"
    "\r\n"
    "data: {\"a\": 1}\n"
    "\n"
    "event: lonely\n"
    "\n"
    "data:  spaced\r"
    "\r"
    "event: last\n"
    "data: no blank line";
  SseRun run_data = { 0 };

  read_sse (&run_data, text, strlen (text));

  g_assert_no_error (run_data.error);
  g_assert_true (run_data.ok);
  g_assert_cmpuint (run_data.events->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 0), ==, "first=one\ntwo");
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 1), ==, "message={\"a\": 1}");
  /* An event without data is not dispatched; one leading space goes. */
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 2), ==, "message= spaced");
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 3), ==, "last=no blank line");
  sse_run_clear (&run_data);
}

static void
test_sse_stop (void)
{
  const char text[] = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
  SseRun run_data = { 0 };

  run_data.stop_after = 2;
  read_sse (&run_data, text, strlen (text));

  g_assert_no_error (run_data.error);
  g_assert_true (run_data.ok);
  g_assert_cmpuint (run_data.events->len, ==, 2);
  sse_run_clear (&run_data);
}

static void
test_sse_too_large (void)
{
  gsize length = ZOT_SSE_MAX_EVENT_BYTES + 64;
  g_autofree char *text = g_malloc (length);
  SseRun run_data = { 0 };

  memcpy (text, "data: ", 6);
  memset (text + 6, 'x', length - 6);
  read_sse (&run_data, text, length);

  g_assert_error (run_data.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (run_data.error->message, "larger than"));
  g_assert_cmpuint (run_data.events->len, ==, 0);
  sse_run_clear (&run_data);
}

static void
test_sse_invalid_utf8 (void)
{
  const char text[] = "data: \xff\xfe\n\n";
  SseRun run_data = { 0 };

  read_sse (&run_data, text, strlen (text));

  g_assert_error (run_data.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  sse_run_clear (&run_data);
}

static void
test_http_helpers (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_utc (2024, 1, 1, 12, 0, 0);
  const char *json_text = "{\"error\":{\"message\":\"nope\\nmore\"}}";
  const char *plain_text = "\n  Bad gateway  \nsecond line";
  g_autoptr(GBytes) json = g_bytes_new_static (json_text, strlen (json_text));
  g_autoptr(GBytes) plain = g_bytes_new_static (plain_text, strlen (plain_text));
  g_autofree char *summary = NULL;

  g_assert_cmpint (zot_http_parse_retry_after ("5", now), ==, 5000);
  g_assert_cmpint (zot_http_parse_retry_after (" 0 ", now), ==, 0);
  g_assert_cmpint (zot_http_parse_retry_after ("Mon, 01 Jan 2024 12:00:30 GMT", now), ==, 30000);
  g_assert_cmpint (zot_http_parse_retry_after ("Mon, 01 Jan 2024 11:00:00 GMT", now), ==, 0);
  g_assert_cmpint (zot_http_parse_retry_after ("soon", now), ==, -1);
  g_assert_cmpint (zot_http_parse_retry_after (NULL, now), ==, -1);

  summary = zot_http_error_summary (400, json);
  g_assert_cmpstr (summary, ==, "nope");
  g_free (summary);
  summary = zot_http_error_summary (502, plain);
  g_assert_cmpstr (summary, ==, "Bad gateway");
  g_free (summary);
  summary = zot_http_error_summary (503, NULL);
  g_assert_cmpstr (summary, ==, "Service Unavailable");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/provider/sse/parse", test_sse_parse);
  g_test_add_func ("/zot/provider/sse/stop", test_sse_stop);
  g_test_add_func ("/zot/provider/sse/too-large", test_sse_too_large);
  g_test_add_func ("/zot/provider/sse/invalid-utf8", test_sse_invalid_utf8);
  g_test_add_func ("/zot/provider/sse/http-helpers", test_http_helpers);

  return g_test_run ();
}
