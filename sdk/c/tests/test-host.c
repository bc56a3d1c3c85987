/* test-host.c: the host's side of the wire, for the SDK's tests
 *
 * Reads the extension's frames line by line and writes host frames
 * through one ordered queue, never blocking the main context the
 * extension under test may share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>

#include "test-host.h"

struct _TestHost
{
  GDataInputStream *lines;
  GOutputStream    *out;
  GQueue            queue;
  gboolean          writing;
  gboolean          close_when_flushed;
  gboolean          at_eof;
};

static void pump (TestHost *host);

static void
write_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  TestHost *host = user_data;
  g_autoptr(GError) error = NULL;

  host->writing = FALSE;
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      /* The extension may be gone on purpose (shutdown, EOF tests). */
      g_queue_clear_full (&host->queue, (GDestroyNotify) g_bytes_unref);
    }
  pump (host);
}

static void
pump (TestHost *host)
{
  GBytes *bytes;

  if (host->writing)
    return;
  bytes = g_queue_pop_head (&host->queue);
  if (bytes == NULL)
    {
      if (host->close_when_flushed && host->out != NULL)
        {
          g_output_stream_close (host->out, NULL, NULL);
          g_clear_object (&host->out);
        }
      return;
    }
  host->writing = TRUE;
  g_output_stream_write_all_async (host->out, g_bytes_get_data (bytes, NULL),
                                   g_bytes_get_size (bytes), G_PRIORITY_DEFAULT, NULL,
                                   write_cb, host);
  /* The data stays alive in the closure of the queue entry below. */
  g_object_set_data_full (G_OBJECT (host->out), "in-flight", bytes, (GDestroyNotify) g_bytes_unref);
}

TestHost *
test_host_new (GInputStream  *from_extension,
               GOutputStream *to_extension)
{
  TestHost *host = g_new0 (TestHost, 1);

  host->lines = g_data_input_stream_new (from_extension);
  g_buffered_input_stream_set_buffer_size (G_BUFFERED_INPUT_STREAM (host->lines), 1 << 20);
  host->out = g_object_ref (to_extension);
  g_queue_init (&host->queue);
  return host;
}

void
test_host_free (TestHost *host)
{
  /* Let a write in flight finish before its stream goes. */
  if (host->writing)
    test_host_wait_until ((gboolean (*) (gpointer)) NULL, host);
  g_queue_clear_full (&host->queue, (GDestroyNotify) g_bytes_unref);
  g_clear_object (&host->lines);
  g_clear_object (&host->out);
  g_free (host);
}

void
test_host_send_bytes (TestHost *host,
                      GBytes   *bytes)
{
  g_assert_nonnull (host->out);
  g_queue_push_tail (&host->queue, g_bytes_ref (bytes));
  pump (host);
}

void
test_host_send (TestHost   *host,
                const char *lines)
{
  g_autofree char *text = g_strconcat (lines, "\n", NULL);
  g_autoptr(GBytes) bytes = NULL;
  gsize len = strlen (text);

  bytes = g_bytes_new_take (g_steal_pointer (&text), len);
  test_host_send_bytes (host, bytes);
}

void
test_host_send_printf (TestHost   *host,
                       const char *format,
                       ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  test_host_send (host, text);
}

void
test_host_close (TestHost *host)
{
  host->close_when_flushed = TRUE;
  pump (host);
}

/* Closes the host's end of the extension's output, as a host that went
 * away would. */
void
test_host_stop_reading (TestHost *host)
{
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (host->lines));

  g_input_stream_close (base, NULL, NULL);
}

typedef struct
{
  char     *line;
  gboolean  done;
  GError   *error;
} LineRead;

static void
line_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  LineRead *read = user_data;
  gsize len = 0;

  read->line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result,
                                                          &len, &read->error);
  read->done = TRUE;
}

static gboolean
deadline_cb (gpointer user_data)
{
  gboolean *expired = user_data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

static void
wait_flag (gboolean   *flag,
           gboolean  (*predicate) (gpointer),
           gpointer    data)
{
  gboolean expired = FALSE;
  GSource *deadline = g_timeout_source_new_seconds (TEST_HOST_DEADLINE_SECONDS);

  g_source_set_callback (deadline, deadline_cb, &expired, NULL);
  g_source_attach (deadline, g_main_context_get_thread_default ());

  for (;;)
    {
      if (flag != NULL && *flag)
        break;
      if (predicate != NULL && predicate (data))
        break;
      if (flag == NULL && predicate == NULL && !((TestHost *) data)->writing)
        break;
      if (expired)
        {
          g_source_destroy (deadline);
          g_source_unref (deadline);
          g_error ("test deadline of %d s reached", TEST_HOST_DEADLINE_SECONDS);
        }
      g_main_context_iteration (g_main_context_get_thread_default (), TRUE);
    }

  g_source_destroy (deadline);
  g_source_unref (deadline);
}

void
test_host_wait_for (gboolean *flag)
{
  wait_flag (flag, NULL, NULL);
}

void
test_host_wait_until (gboolean (*predicate) (gpointer),
                      gpointer   data)
{
  wait_flag (NULL, predicate, data);
}

JsonObject *
test_host_next (TestHost *host)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  LineRead read = { NULL, FALSE, NULL };
  JsonNode *root;

  g_data_input_stream_read_line_async (host->lines, G_PRIORITY_DEFAULT, NULL, line_cb, &read);
  test_host_wait_for (&read.done);
  g_assert_no_error (read.error);
  line = read.line;
  if (line == NULL)
    {
      host->at_eof = TRUE;
      return NULL;
    }
  if (!json_parser_load_from_data (parser, line, -1, &error))
    g_error ("the extension wrote a line that is not JSON: %s: %.200s", error->message, line);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_object_ref (json_node_get_object (root));
}

gboolean
test_host_at_eof (TestHost *host)
{
  JsonObject *frame = test_host_next (host);

  if (frame != NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), frame);
      g_autofree char *text = json_to_string (node, FALSE);

      g_printerr ("unexpected frame: %.300s\n", text);
      json_object_unref (frame);
      return FALSE;
    }
  return host->at_eof;
}

JsonObject *
test_host_expect (TestHost   *host,
                  const char *type)
{
  JsonObject *frame = test_host_next (host);

  if (frame == NULL)
    g_error ("expected a %s frame, got the end of output", type);
  if (g_strcmp0 (test_str (frame, "type"), type) != 0)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), frame);
      g_autofree char *text = json_to_string (node, FALSE);

      g_error ("expected a %s frame, got %.400s", type, text);
    }
  return frame;
}

void
test_host_open_pipes (GInputStream  **extension_in,
                      GOutputStream **host_out,
                      GInputStream  **host_in,
                      GOutputStream **extension_out)
{
  int to_ext[2];
  int from_ext[2];
  g_autoptr(GError) error = NULL;

  g_unix_open_pipe (to_ext, FD_CLOEXEC, &error);
  g_assert_no_error (error);
  g_unix_open_pipe (from_ext, FD_CLOEXEC, &error);
  g_assert_no_error (error);
  /* Non-blocking, so a large write in one direction never stalls the
   * main context both sides share. */
  for (int i = 0; i < 2; i++)
    {
      g_unix_set_fd_nonblocking (to_ext[i], TRUE, NULL);
      g_unix_set_fd_nonblocking (from_ext[i], TRUE, NULL);
    }

  *extension_in = g_unix_input_stream_new (to_ext[0], TRUE);
  *host_out = g_unix_output_stream_new (to_ext[1], TRUE);
  *host_in = g_unix_input_stream_new (from_ext[0], TRUE);
  *extension_out = g_unix_output_stream_new (from_ext[1], TRUE);
}

const char *
test_str (JsonObject *object,
          const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

char *
test_first_text (JsonObject *tool_result)
{
  JsonNode *content = json_object_get_member (tool_result, "content");
  JsonArray *array;
  JsonObject *block;

  g_assert_nonnull (content);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (content));
  array = json_node_get_array (content);
  g_assert_cmpuint (json_array_get_length (array), >=, 1);
  block = json_array_get_object_element (array, 0);
  g_assert_cmpstr (test_str (block, "type"), ==, "text");
  return g_strdup (test_str (block, "text"));
}

gboolean
test_strv_has (JsonObject *object,
               const char *member,
               const char *value)
{
  JsonNode *node = json_object_get_member (object, member);
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (g_strcmp0 (json_array_get_string_element (array, i), value) == 0)
      return TRUE;
  return FALSE;
}
