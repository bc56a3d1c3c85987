/* fuzz-sse.c — a model server's event stream through zot_sse_read_async(),
 * the parser the providers read every reply with, and the other two
 * readers of what a server sends: zot_http_error_summary() over an error
 * body and zot_http_parse_retry_after().
 *
 * Input: two option bytes, then the body.
 *   byte 0: how the body is cut into reads (zot-fuzz-util.h), so that
 *     lines, "\r\n" pairs and UTF-8 sequences are split across reads
 *   byte 1: stop after this many events (0: read to the end)
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <json-glib/json-glib.h>

#include "zot-fuzz-util.h"
#include "zot-json.h"
#include "zot-sse.h"

typedef struct
{
  guint     n_events;
  guint     stop_after;
  gboolean  done;
  JsonParser *parser;
} State;

static gboolean
on_event (const char  *event,
          const char  *data,
          gpointer     user_data,
          GError     **error)
{
  State *state = user_data;

  /* What ZotSseEventFunc promises the providers. */
  g_assert_nonnull (event);
  g_assert_nonnull (data);
  zot_fuzz_assert_utf8 ("an event name", event, -1);
  zot_fuzz_assert_utf8 ("event data", data, -1);

  /* The providers parse every data field as JSON. */
  (void) zot_json_parser_load (state->parser, data, -1, NULL);

  state->n_events++;
  return state->stop_after == 0 || state->n_events < state->stop_after;
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  State *state = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_sse_read_finish (result, &error))
    {
      g_assert_nonnull (error);
      zot_fuzz_assert_utf8 ("a stream error", error->message, -1);
    }
  state->done = TRUE;
}

static gboolean
is_done (gpointer user_data)
{
  State *state = user_data;

  return state->done;
}

static void
check_error_body (const guint8 *data,
                  size_t        size)
{
  g_autoptr(GBytes) body = g_bytes_new (data, size);
  g_autofree char *summary = zot_http_error_summary (500, body);
  g_autofree char *value = g_strndup ((const char *) data, MIN (size, 256));
  g_autoptr(GDateTime) now = g_date_time_new_utc (2024, 6, 1, 12, 0, 0);

  g_assert_nonnull (summary);
  zot_fuzz_assert_utf8 ("an error summary", summary, -1);
  g_assert_cmpint (g_utf8_strlen (summary, -1), <=, 301);

  g_assert_cmpint (zot_http_parse_retry_after (value, now), >=, -1);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GMainContext) context = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(JsonParser) parser = NULL;
  State state = { 0 };
  guint8 split;
  int fds[2];

  if (size < 2)
    return 0;

  split = data[0];
  state.stop_after = data[1];
  data += 2;
  size -= 2;

  check_error_body (data, size);

  context = g_main_context_new ();
  g_main_context_push_thread_default (context);

  parser = json_parser_new ();
  state.parser = parser;

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, NULL))
    g_error ("no pipe");
  input = g_unix_input_stream_new (fds[0], TRUE);

  zot_sse_read_async (input, on_event, &state, NULL, read_cb, &state);
  zot_fuzz_feed_pipe (fds[1], data, size, split, context, is_done, &state);
  close (fds[1]);

  while (!state.done)
    g_main_context_iteration (context, TRUE);

  g_clear_object (&input);
  zot_fuzz_drain (context, NULL, NULL);
  g_main_context_pop_thread_default (context);

  return 0;
}
