/* test-frame-channel.c — ZotFrameChannel over real pipes.
 *
 * Each test owns two pipes: one the test writes and the channel reads, one
 * the channel writes and the test reads. Everything is driven by the default
 * main context; waits are "iterate until a condition holds", bounded by a
 * safety timeout that fails the test, never a sleep.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "zot-error.h"
#include "zot-frame-channel.h"
#include "zot-limits-private.h"
#include "zot-test-util.h"

#define SAFETY_SECONDS 30

static gboolean
flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the default main context until @cond holds; a safety timeout
 * turns a hang into a failure that names the condition. */
#define WAIT_UNTIL(cond)                                                      \
  G_STMT_START {                                                              \
    gboolean timed_out_ = FALSE;                                              \
    guint safety_ = g_timeout_add_seconds (SAFETY_SECONDS, flag_cb, &timed_out_); \
    while (!(cond) && !timed_out_)                                            \
      g_main_context_iteration (NULL, TRUE);                                  \
    if (timed_out_)                                                           \
      g_error ("timed out after %d s waiting for: %s", SAFETY_SECONDS, #cond); \
    g_source_remove (safety_);                                                \
  } G_STMT_END

/* Lets the loop run for @ms; used only to show that something does NOT
 * happen within a window, never to wait for something to happen. */
static void
iterate_for_ms (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, flag_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* Dispatches whatever is ready right now, without blocking. */
static void
iterate_ready (void)
{
  for (guint i = 0; i < 1000 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

typedef struct
{
  ZotFrameDirection  direction;
  char              *line;
} Traffic;

static void
traffic_free (Traffic *traffic)
{
  g_free (traffic->line);
  g_free (traffic);
}

typedef struct
{
  ZotFrameChannel *channel;

  int        to_channel;       /* the test writes here, the channel reads */
  int        channel_in_fd;    /* the channel's end, owned by its input stream */
  int        from_channel;     /* the channel writes, the test reads here */
  int        channel_out_fd;   /* the channel's end, owned by its output stream */

  GPtrArray *frames;           /* JsonObject */
  GPtrArray *bad_lines;        /* char * */
  GPtrArray *traffic;          /* Traffic */
  guint      n_closed;
  GError    *closed_error;
  gboolean   closed_with_null;
  gsize      fed_at_close;

  /* what the channel wrote; the first @filler bytes are the test's own */
  GString   *received;
  gboolean   received_eof;
  guint      reader_id;
  gsize      filler;

  /* feeds a buffer to the channel without ever blocking the loop */
  GBytes    *feed;
  gsize      fed;
  int        feed_errno;
  guint      feeder_id;
} Harness;

static void
on_frame_received (ZotFrameChannel *channel G_GNUC_UNUSED,
                   JsonObject      *frame,
                   Harness         *h)
{
  g_ptr_array_add (h->frames, json_object_ref (frame));
}

static void
on_bad_line (ZotFrameChannel *channel G_GNUC_UNUSED,
             const char      *message,
             Harness         *h)
{
  g_ptr_array_add (h->bad_lines, g_strdup (message));
}

static void
on_closed (ZotFrameChannel *channel G_GNUC_UNUSED,
           const GError    *error,
           Harness         *h)
{
  h->n_closed++;
  h->fed_at_close = h->fed;
  g_clear_error (&h->closed_error);
  if (error != NULL)
    h->closed_error = g_error_copy (error);
  else
    h->closed_with_null = TRUE;
}

static void
on_traffic (ZotFrameChannel *channel G_GNUC_UNUSED,
            int              direction,
            const char      *line,
            Harness         *h)
{
  Traffic *traffic = g_new0 (Traffic, 1);

  traffic->direction = direction;
  traffic->line = g_strdup (line);
  g_ptr_array_add (h->traffic, traffic);
}

static void
set_nonblocking (int fd)
{
  g_autoptr(GError) error = NULL;

  g_unix_set_fd_nonblocking (fd, TRUE, &error);
  g_assert_no_error (error);
}

static Harness *
harness_new (gboolean start)
{
  Harness *h = g_new0 (Harness, 1);
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  int in_fds[2];
  int out_fds[2];

  g_assert_cmpint (pipe2 (in_fds, O_CLOEXEC), ==, 0);
  g_assert_cmpint (pipe2 (out_fds, O_CLOEXEC), ==, 0);

  h->channel_in_fd = in_fds[0];
  h->to_channel = in_fds[1];
  h->from_channel = out_fds[0];
  h->channel_out_fd = out_fds[1];

  /* The test side never blocks; nor does the channel's writer, so that a
   * full pipe shows up as a pending write rather than a stuck loop. */
  set_nonblocking (h->to_channel);
  set_nonblocking (h->from_channel);
  set_nonblocking (h->channel_out_fd);

  h->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  h->bad_lines = g_ptr_array_new_with_free_func (g_free);
  h->traffic = g_ptr_array_new_with_free_func ((GDestroyNotify) traffic_free);
  h->received = g_string_new (NULL);

  input = g_unix_input_stream_new (h->channel_in_fd, TRUE);
  output = g_unix_output_stream_new (h->channel_out_fd, TRUE);
  h->channel = zot_frame_channel_new (input, output);
  g_assert_true (ZOT_IS_FRAME_CHANNEL (h->channel));

  g_signal_connect (h->channel, "frame-received", G_CALLBACK (on_frame_received), h);
  g_signal_connect (h->channel, "bad-line", G_CALLBACK (on_bad_line), h);
  g_signal_connect (h->channel, "closed", G_CALLBACK (on_closed), h);
  g_signal_connect (h->channel, "traffic", G_CALLBACK (on_traffic), h);

  if (start)
    zot_frame_channel_start (h->channel);

  return h;
}

static guint
channel_refcount (ZotFrameChannel *channel)
{
  return g_atomic_int_get (&G_OBJECT (channel)->ref_count);
}

/* Closes the channel, lets its cancelled operations (which hold references)
 * complete, then checks that dropping the last reference finalizes it. */
static void
finalize_channel (ZotFrameChannel **channel_ptr)
{
  ZotFrameChannel *channel = g_steal_pointer (channel_ptr);

  zot_frame_channel_close (channel);
  WAIT_UNTIL (channel_refcount (channel) == 1);
  g_assert_finalize_object (channel);
}

static void
harness_free (Harness *h)
{
  g_clear_handle_id (&h->feeder_id, g_source_remove);
  g_clear_handle_id (&h->reader_id, g_source_remove);

  if (h->channel != NULL)
    {
      g_signal_handlers_disconnect_by_data (h->channel, h);
      finalize_channel (&h->channel);
    }

  if (h->to_channel >= 0)
    close (h->to_channel);
  close (h->from_channel);

  g_clear_pointer (&h->feed, g_bytes_unref);
  g_clear_pointer (&h->frames, g_ptr_array_unref);
  g_clear_pointer (&h->bad_lines, g_ptr_array_unref);
  g_clear_pointer (&h->traffic, g_ptr_array_unref);
  g_clear_error (&h->closed_error);
  g_string_free (h->received, TRUE);
  g_free (h);

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WRITE, 0);
}

/* --- the test's reading side --------------------------------------------- */

/* Reads what is available now. Returns FALSE at end of file. */
static gboolean
read_available (Harness *h)
{
  char buffer[64 * 1024];

  for (;;)
    {
      gssize n = read (h->from_channel, buffer, sizeof buffer);

      if (n > 0)
        g_string_append_len (h->received, buffer, n);
      else if (n == 0)
        {
          h->received_eof = TRUE;
          return FALSE;
        }
      else if (errno == EINTR)
        continue;
      else if (errno == EAGAIN)
        return TRUE;
      else
        g_error ("reading from the channel's pipe: %s", g_strerror (errno));
    }
}

static gboolean
reader_cb (int           fd G_GNUC_UNUSED,
           GIOCondition  condition G_GNUC_UNUSED,
           gpointer      user_data)
{
  Harness *h = user_data;

  if (!read_available (h))
    {
      h->reader_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
reader_start (Harness *h)
{
  g_assert_cmpuint (h->reader_id, ==, 0);
  h->reader_id = g_unix_fd_add (h->from_channel, G_IO_IN | G_IO_HUP | G_IO_ERR, reader_cb, h);
}

static const char *
received_after_filler (Harness *h)
{
  g_assert_cmpuint (h->received->len, >=, h->filler);
  for (gsize i = 0; i < h->filler; i++)
    g_assert_cmpint (h->received->str[i], ==, 'f');
  return h->received->str + h->filler;
}

static guint
count_received_lines (Harness *h)
{
  guint n = 0;

  if (h->received->len < h->filler)
    return 0;

  for (gsize i = h->filler; i < h->received->len; i++)
    if (h->received->str[i] == '\n')
      n++;
  return n;
}

/* The lines the channel wrote, each checked to end with exactly "\n". */
static GStrv
received_lines (Harness *h)
{
  const char *data = received_after_filler (h);
  gsize length = strlen (data);
  GStrv lines;
  guint n;

  g_assert_cmpuint (length, ==, h->received->len - h->filler);
  if (length == 0)
    return g_new0 (char *, 1);

  g_assert_cmpint (data[length - 1], ==, '\n');
  lines = g_strsplit (data, "\n", -1);
  n = g_strv_length (lines);
  g_assert_cmpstr (lines[n - 1], ==, "");
  g_clear_pointer (&lines[n - 1], g_free);

  for (guint i = 0; lines[i] != NULL; i++)
    g_assert_null (strchr (lines[i], '\r'));

  return lines;
}

static JsonObject *
parse_object (const char *line)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  json_parser_load_from_data (parser, line, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_nonnull (root);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_object_ref (json_node_get_object (root));
}

/* Makes the channel's output pipe completely full, so that its next write
 * stays pending until the test reads. The filler bytes are 'f', no '\n'. */
static void
fill_pipe (Harness *h)
{
  char block[4096];
  struct pollfd pfd = { .fd = h->channel_out_fd, .events = POLLOUT };

  memset (block, 'f', sizeof block);

  for (gsize size = sizeof block; size > 0; size /= 2)
    {
      for (;;)
        {
          gssize n = write (h->channel_out_fd, block, size);

          if (n > 0)
            h->filler += (gsize) n;
          else if (n < 0 && errno == EINTR)
            continue;
          else
            {
              g_assert_cmpint (n, <, 0);
              g_assert_cmpint (errno, ==, EAGAIN);
              break;
            }
        }
    }

  g_assert_cmpuint (h->filler, >, 0);
  g_assert_cmpint (poll (&pfd, 1, 0), ==, 0);
}

/* --- the test's writing side --------------------------------------------- */

static void
write_now (Harness    *h,
           const char *data,
           gsize       length)
{
  gsize done = 0;

  while (done < length)
    {
      gssize n = write (h->to_channel, data + done, length - done);

      if (n > 0)
        done += (gsize) n;
      else if (n < 0 && errno == EINTR)
        continue;
      else
        g_error ("writing to the channel's pipe: %s", g_strerror (errno));
    }
}

static void
write_str (Harness    *h,
           const char *str)
{
  write_now (h, str, strlen (str));
}

static guint
pending_input (Harness *h)
{
  int n = -1;

  g_assert_cmpint (ioctl (h->channel_in_fd, FIONREAD, &n), ==, 0);
  return (guint) n;
}

static gboolean
feeder_cb (int           fd G_GNUC_UNUSED,
           GIOCondition  condition G_GNUC_UNUSED,
           gpointer      user_data)
{
  Harness *h = user_data;
  gsize size;
  const guint8 *data = g_bytes_get_data (h->feed, &size);

  while (h->fed < size)
    {
      gssize n = write (h->to_channel, data + h->fed, MIN (size - h->fed, 1024 * 1024));

      if (n > 0)
        h->fed += (gsize) n;
      else if (n < 0 && errno == EINTR)
        continue;
      else if (n < 0 && errno == EAGAIN)
        return G_SOURCE_CONTINUE;
      else
        {
          h->feed_errno = errno;
          break;
        }
    }

  h->feeder_id = 0;
  return G_SOURCE_REMOVE;
}

static void
feed (Harness *h,
      GBytes  *bytes)
{
  g_assert_null (h->feed);
  h->feed = g_bytes_ref (bytes);
  h->fed = 0;
  h->feeder_id = g_unix_fd_add (h->to_channel, G_IO_OUT | G_IO_ERR, feeder_cb, h);
}

static gboolean
feed_done (Harness *h)
{
  return h->feeder_id == 0;
}

/* A JSON object line of exactly @total bytes, padded with a long string. */
static char *
make_padded_line (const char *type,
                  gsize       total)
{
  g_autofree char *prefix = g_strdup_printf ("{\"type\":\"%s\",\"pad\":\"", type);
  const char *suffix = "\"}";
  gsize prefix_len = strlen (prefix);
  gsize suffix_len = strlen (suffix);
  char *line;

  g_assert_cmpuint (total, >=, prefix_len + suffix_len);

  line = g_malloc (total + 1);
  memcpy (line, prefix, prefix_len);
  memset (line + prefix_len, 'x', total - prefix_len - suffix_len);
  memcpy (line + total - suffix_len, suffix, suffix_len);
  line[total] = '\0';

  return line;
}

static const char *
frame_type (Harness *h,
            guint    index)
{
  g_assert_cmpuint (index, <, h->frames->len);
  return json_object_get_string_member (g_ptr_array_index (h->frames, index), "type");
}

static JsonObject *
make_frame (const char *type)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  return object;
}

/* --- inbound ------------------------------------------------------------- */

static void
test_split_chunks (void)
{
  Harness *h = harness_new (TRUE);
  const char *one = "{\"type\":\"one\",\"name\":\"h\xc3\xa9llo \xe2\x98\x83\",\"n\":1}\n";
  gsize one_len = strlen (one);

  /* One byte per read: the multibyte characters are split too. */
  for (gsize i = 0; i < one_len; i++)
    {
      write_now (h, one + i, 1);
      WAIT_UNTIL (pending_input (h) == 0);
      if (i + 1 < one_len)
        g_assert_cmpuint (h->frames->len, ==, 0);
    }
  WAIT_UNTIL (h->frames->len == 1 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 0), ==, "one");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (h->frames, 0), "name"),
                   ==, "h\xc3\xa9llo \xe2\x98\x83");

  /* Three frames in one write arrive whole and in order. */
  write_str (h, "{\"type\":\"a\"}\n{\"type\":\"b\"}\n{\"type\":\"c\"}\n");
  WAIT_UNTIL (h->frames->len == 4 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 1), ==, "a");
  g_assert_cmpstr (frame_type (h, 2), ==, "b");
  g_assert_cmpstr (frame_type (h, 3), ==, "c");

  /* A frame that ends in the middle of the next one's write. */
  write_str (h, "{\"type\":\"d\"}\n{\"ty");
  WAIT_UNTIL (h->frames->len == 5 || h->n_closed > 0);
  WAIT_UNTIL (pending_input (h) == 0);
  iterate_ready ();
  g_assert_cmpuint (h->frames->len, ==, 5);
  write_str (h, "pe\":\"e\"}\n");
  WAIT_UNTIL (h->frames->len == 6 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 4), ==, "d");
  g_assert_cmpstr (frame_type (h, 5), ==, "e");

  /* CRLF, including a CR and its LF split across two reads. */
  write_str (h, "{\"type\":\"crlf\"}\r\n");
  WAIT_UNTIL (h->frames->len == 7 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 6), ==, "crlf");
  write_str (h, "{\"type\":\"split-crlf\"}\r");
  WAIT_UNTIL (pending_input (h) == 0);
  write_str (h, "\n");
  WAIT_UNTIL (h->frames->len == 8 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 7), ==, "split-crlf");

  /* Empty lines, bare or CRLF, are skipped without a bad-line. */
  write_str (h, "\n\n\r\n{\"type\":\"after-empty\"}\n\n");
  WAIT_UNTIL (h->frames->len == 9 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 8), ==, "after-empty");

  g_assert_cmpuint (h->bad_lines->len, ==, 0);
  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_false (zot_frame_channel_is_closed (h->channel));

  harness_free (h);
}

typedef struct
{
  Harness  *h;
  guint     seen_while_nested;
  gsize     unread_after_nesting;
  gboolean  nested;
} Nesting;

/* On the first frame, feeds the next and runs a nested main loop, as a
 * handler showing a modal prompt might. */
static void
on_frame_nest (ZotFrameChannel *channel G_GNUC_UNUSED,
               JsonObject      *frame,
               Nesting         *nesting)
{
  guint before;

  if (nesting->nested)
    return;
  nesting->nested = TRUE;

  before = nesting->h->frames->len;
  write_str (nesting->h, "{\"type\":\"inner\"}\n");
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  nesting->seen_while_nested = nesting->h->frames->len - before;
  nesting->unread_after_nesting = pending_input (nesting->h);
}

/* The reader may recurse (to spare GLib's block and unblock of its fd on
 * every dispatch), but a nested loop in a handler must neither read the
 * next frame ahead of the current one's handlers nor spin on the pipe. */
static void
test_nested_loop (void)
{
  Harness *h = harness_new (TRUE);
  Nesting nesting = { .h = h };

  g_signal_connect (h->channel, "frame-received", G_CALLBACK (on_frame_nest), &nesting);
  write_str (h, "{\"type\":\"outer\"}\n");
  WAIT_UNTIL (h->frames->len == 2 || h->n_closed > 0);

  g_assert_true (nesting.nested);
  g_assert_cmpuint (nesting.seen_while_nested, ==, 0);
  g_assert_cmpuint (nesting.unread_after_nesting, >, 0);
  g_assert_cmpstr (frame_type (h, 0), ==, "outer");
  g_assert_cmpstr (frame_type (h, 1), ==, "inner");

  /* The reader attached after the nesting keeps going. */
  write_str (h, "{\"type\":\"later\"}\n");
  WAIT_UNTIL (h->frames->len == 3 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 2), ==, "later");
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

static guint
count_frames_of (Harness    *h,
                 const char *type)
{
  guint n = 0;

  for (guint i = 0; i < h->frames->len; i++)
    if (g_str_equal (frame_type (h, i), type))
      n++;
  return n;
}

/* One read of a flood of small frames is handled ZOT_FRAMES_PER_TURN at a
 * time, a main loop turn each, in order, even once the pipe is empty. */
static void
test_frames_per_turn (void)
{
  Harness *h = harness_new (TRUE);
  const guint total = ZOT_FRAMES_PER_TURN * 3 + 5;
  g_autoptr(GString) flood = g_string_new (NULL);
  guint previous = 0;
  guint turns = 0;

  for (guint i = 0; i < total; i++)
    g_string_append_printf (flood, "{\"type\":\"f\",\"n\":%u}\n", i);
  g_assert_cmpuint (flood->len, <, 64 * 1024);
  write_now (h, flood->str, flood->len);

  /* The whole flood is in one read. */
  WAIT_UNTIL (pending_input (h) == 0);
  g_assert_cmpuint (h->frames->len, ==, ZOT_FRAMES_PER_TURN);

  previous = h->frames->len;
  while (h->frames->len < total)
    {
      g_main_context_iteration (NULL, TRUE);
      g_assert_cmpuint (h->frames->len - previous, <=, ZOT_FRAMES_PER_TURN);
      previous = h->frames->len;
      g_assert_cmpuint (++turns, <, 100);
    }

  for (guint i = 0; i < total; i++)
    g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (h->frames, i), "n"), ==, i);
  g_assert_cmpuint (count_frames_of (h, "f"), ==, total);

  /* Reading goes on after the backlog. */
  write_str (h, "{\"type\":\"after\"}\n");
  WAIT_UNTIL (h->frames->len == total + 1 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, total), ==, "after");
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

/* A channel over any input stream, with the harness's recording. */
static Harness *
harness_new_for_input (GInputStream *input)
{
  Harness *h = g_new0 (Harness, 1);
  g_autoptr(GOutputStream) output = g_memory_output_stream_new_resizable ();

  h->to_channel = h->channel_in_fd = h->from_channel = h->channel_out_fd = -1;
  h->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  h->bad_lines = g_ptr_array_new_with_free_func (g_free);
  h->traffic = g_ptr_array_new_with_free_func ((GDestroyNotify) traffic_free);
  h->received = g_string_new (NULL);
  h->channel = zot_frame_channel_new (input, output);
  g_signal_connect (h->channel, "frame-received", G_CALLBACK (on_frame_received), h);
  g_signal_connect (h->channel, "bad-line", G_CALLBACK (on_bad_line), h);
  g_signal_connect (h->channel, "closed", G_CALLBACK (on_closed), h);
  zot_frame_channel_start (h->channel);
  return h;
}

static void
harness_free_for_input (Harness *h)
{
  finalize_channel (&h->channel);
  g_ptr_array_unref (h->frames);
  g_ptr_array_unref (h->bad_lines);
  g_ptr_array_unref (h->traffic);
  g_string_free (h->received, TRUE);
  g_clear_error (&h->closed_error);
  g_free (h);
}

static GString *
numbered_frames (guint n)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "{\"type\":\"f\",\"n\":%u}\n", i);
  return text;
}

/* Iterates until the channel closes, checking no turn handles more than
 * ZOT_FRAMES_PER_TURN frames; returns the most any turn handled. */
static guint
drain_until_closed (Harness *h)
{
  gboolean timed_out = FALSE;
  guint safety = g_timeout_add_seconds (SAFETY_SECONDS, flag_cb, &timed_out);
  guint most = 0;

  while (h->n_closed == 0 && !timed_out)
    {
      guint before = h->frames->len;

      g_main_context_iteration (NULL, TRUE);
      g_assert_cmpuint (h->frames->len - before, <=, ZOT_FRAMES_PER_TURN);
      most = MAX (most, h->frames->len - before);
    }
  if (timed_out)
    g_error ("timed out waiting for the channel to close");
  g_source_remove (safety);
  return most;
}

static void
assert_numbered (Harness *h,
                 guint    n)
{
  g_assert_cmpuint (h->frames->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (h->frames, i), "n"), ==, i);
}

/* A stream that cannot be polled (zot rpc reading a file) is read
 * asynchronously, with the same per-turn bound and order. */
static void
test_file_input (void)
{
  const guint total = ZOT_FRAMES_PER_TURN * 3 + 5;
  g_autoptr(GString) text = numbered_frames (total);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInputStream) input = NULL;
  g_autoptr(GError) error = NULL;
  Harness *h;
  int fd;

  fd = g_file_open_tmp ("zot-channel-XXXXXX", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, text->str, (gssize) text->len, &error);
  g_assert_no_error (error);
  file = g_file_new_for_path (path);
  input = g_file_read (file, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (G_IS_POLLABLE_INPUT_STREAM (input) &&
                  g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (input)));

  h = harness_new_for_input (G_INPUT_STREAM (input));
  g_assert_cmpuint (drain_until_closed (h), ==, ZOT_FRAMES_PER_TURN);
  assert_numbered (h, total);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);

  harness_free_for_input (h);
  g_unlink (path);
}

/* A pollable stream that is not a pipe goes through its own source and
 * keeps its blocking mode: a terminal's is shared with the shell. */
static void
test_socket_input (void)
{
  const guint total = ZOT_FRAMES_PER_TURN * 2 + 3;
  g_autoptr(GString) text = numbered_frames (total);
  g_autoptr(GInputStream) input = NULL;
  Harness *h;
  int fds[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
  input = g_unix_input_stream_new (fds[0], TRUE);
  h = harness_new_for_input (input);
  g_assert_cmpint (fcntl (fds[0], F_GETFL) & O_NONBLOCK, ==, 0);

  /* After the reader has run, the descriptor is still blocking. */
  g_assert_cmpint (write (fds[1], "{\"type\":\"first\"}\n", 17), ==, 17);
  WAIT_UNTIL (h->frames->len == 1 || h->n_closed > 0);
  g_assert_cmpint (fcntl (fds[0], F_GETFL) & O_NONBLOCK, ==, 0);
  g_ptr_array_set_size (h->frames, 0);

  g_assert_cmpint (write (fds[1], text->str, text->len), ==, (gssize) text->len);
  close (fds[1]);
  g_assert_cmpuint (drain_until_closed (h), ==, ZOT_FRAMES_PER_TURN);
  assert_numbered (h, total);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);

  harness_free_for_input (h);
}

/* A pipe the channel does not own (zot rpc's stdin) is made non-blocking
 * for reading and found blocking again once the channel closes. */
static void
test_pipe_mode_restored (void)
{
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = g_memory_output_stream_new_resizable ();
  g_autoptr(ZotFrameChannel) channel = NULL;
  int fds[2];

  g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  input = g_unix_input_stream_new (fds[0], FALSE);
  channel = zot_frame_channel_new (input, output);
  zot_frame_channel_start (channel);
  g_assert_cmpint (fcntl (fds[0], F_GETFL) & O_NONBLOCK, !=, 0);

  zot_frame_channel_close (channel);
  g_assert_cmpint (fcntl (fds[0], F_GETFL) & O_NONBLOCK, ==, 0);

  g_clear_object (&channel);
  close (fds[0]);
  close (fds[1]);
}

static void
test_frame_max_size (void)
{
  Harness *h = harness_new (TRUE);
  g_autofree char *line = make_padded_line ("big", ZOT_FRAME_MAX_BYTES);
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GBytes) bytes = NULL;
  const char *after = "\n{\"type\":\"after\"}\n";
  JsonObject *big;

  g_assert_cmpuint (strlen (line), ==, ZOT_FRAME_MAX_BYTES);
  g_byte_array_append (data, (const guint8 *) line, ZOT_FRAME_MAX_BYTES);
  g_byte_array_append (data, (const guint8 *) after, strlen (after));
  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&data));

  feed (h, bytes);
  WAIT_UNTIL (h->frames->len == 2 || h->n_closed > 0);

  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_cmpuint (h->bad_lines->len, ==, 0);
  big = g_ptr_array_index (h->frames, 0);
  g_assert_cmpstr (json_object_get_string_member (big, "type"), ==, "big");
  g_assert_cmpuint (strlen (json_object_get_string_member (big, "pad")), ==,
                    ZOT_FRAME_MAX_BYTES - strlen ("{\"type\":\"big\",\"pad\":\"\"}"));
  g_assert_cmpstr (frame_type (h, 1), ==, "after");

  harness_free (h);
}

static void
test_frame_too_large (void)
{
  Harness *h = harness_new (TRUE);
  g_autofree char *line = make_padded_line ("big", ZOT_FRAME_MAX_BYTES + 1);
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GBytes) bytes = NULL;
  const char *after = "\n{\"type\":\"after\"}\n";

  g_byte_array_append (data, (const guint8 *) line, ZOT_FRAME_MAX_BYTES + 1);
  g_byte_array_append (data, (const guint8 *) after, strlen (after));
  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&data));

  feed (h, bytes);
  WAIT_UNTIL (h->n_closed > 0);

  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE);
  g_assert_true (zot_frame_channel_is_closed (h->channel));
  g_assert_cmpuint (h->frames->len, ==, 0);

  /* Nothing after the oversized line is read any more. */
  iterate_ready ();
  g_assert_cmpuint (h->frames->len, ==, 0);
  g_assert_cmpuint (h->n_closed, ==, 1);

  harness_free (h);
}

static void
test_frame_no_newline (void)
{
  Harness *h = harness_new (TRUE);
  /* Twice the cap: more than the cap plus what the (1 MiB) pipe holds. */
  const gsize total = 8 * 1024 * 1024;
  g_autofree char *line = make_padded_line ("endless", total);
  g_autoptr(GBytes) bytes = NULL;

  /* No newline anywhere: the pad never ends. */
  line[total - 2] = 'x';
  line[total - 1] = 'x';
  bytes = g_bytes_new_take (g_steal_pointer (&line), total);

  feed (h, bytes);
  WAIT_UNTIL (h->n_closed > 0);

  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE);
  /* The channel gave up past the cap and well before the writer was done. */
  g_assert_cmpuint (h->fed_at_close, >, ZOT_FRAME_MAX_BYTES);
  g_assert_cmpuint (h->fed_at_close, <, total);

  /* The read end was closed: the writer fails instead of blocking forever. */
  WAIT_UNTIL (feed_done (h));
  g_assert_cmpint (h->feed_errno, ==, EPIPE);
  g_assert_cmpuint (h->fed, <, total);
  g_assert_cmpuint (h->frames->len, ==, 0);

  harness_free (h);
}

/* json-glib recurses per level: a deep line must be refused before it
 * parses, and the channel goes on. The frame itself is one level. */
static void
test_nesting_bound (void)
{
  g_autofree char *at_limit = zot_test_nested_json ("{\"type\":\"deep\",\"v\":",
                                                    ZOT_JSON_MAX_DEPTH - 1, "}\n");
  g_autofree char *past_limit = zot_test_nested_json ("{\"type\":\"deeper\",\"v\":",
                                                      ZOT_JSON_MAX_DEPTH, "}\n");
  g_autofree char *crash = zot_test_nested_json ("{\"type\":\"crash\",\"v\":", 80000, "}\n");
  Harness *h = harness_new (TRUE);

  write_str (h, at_limit);
  WAIT_UNTIL (h->frames->len == 1 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 0), ==, "deep");
  g_assert_cmpuint (h->bad_lines->len, ==, 0);

  write_str (h, past_limit);
  write_str (h, crash);
  write_str (h, "{\"type\":\"after\"}\n");
  WAIT_UNTIL (h->frames->len == 2 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 1), ==, "after");
  g_assert_cmpuint (h->bad_lines->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    g_assert_nonnull (strstr (g_ptr_array_index (h->bad_lines, i), "nested deeper than 256 levels"));
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

static void
test_bad_lines (void)
{
  static const struct {
    const char *line;
    const char *reason;
  } cases[] = {
    { "this is not json", "not JSON" },
    { "{\"type\":\"unterminated\"", "not JSON" },
    { "[{\"type\":\"in-an-array\"}]", "not a JSON object" },
    { "\"just a string\"", "not a JSON object" },
    { "42", "not a JSON object" },
    { "{\"id\":\"1\",\"name\":\"no type\"}", "\"type\"" },
    { "{\"type\":42}", "\"type\"" },
    { "{\"type\":null}", "\"type\"" },
    { "{\"type\":[\"a\"]}", "\"type\"" },
    { "{\"type\":{\"nested\":true}}", "\"type\"" },
    { "{\"type\":\"bad \xff\xfe bytes\"}", "UTF-8" },
    { "{\"type\":\"cut \xc3\"}", "UTF-8" },
    { "{\"type\":\"overlong \xc0\xaf\"}", "UTF-8" },
  };
  Harness *h = harness_new (TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *good = g_strdup_printf ("{\"type\":\"good\",\"n\":%u}\n", i);
      g_autofree char *printable = g_strescape (cases[i].line, NULL);
      const char *message;

      g_test_message ("bad line %u: %s", i, printable);
      write_str (h, cases[i].line);
      write_str (h, "\n");
      write_str (h, good);
      WAIT_UNTIL (h->frames->len == i + 1 || h->n_closed > 0);

      g_assert_cmpuint (h->n_closed, ==, 0);
      g_assert_cmpuint (h->bad_lines->len, ==, i + 1);
      message = g_ptr_array_index (h->bad_lines, i);
      g_assert_true (g_utf8_validate (message, -1, NULL));
      if (strstr (message, cases[i].reason) == NULL)
        g_error ("bad-line message \"%s\" does not mention \"%s\"", message, cases[i].reason);

      g_assert_cmpstr (frame_type (h, i), ==, "good");
      g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (h->frames, i), "n"), ==, i);
    }

  /* The excerpt lets a reader of the log find the line. */
  g_assert_nonnull (strstr (g_ptr_array_index (h->bad_lines, 0), "this is not json"));

  harness_free (h);
}

static void
test_eof (void)
{
  Harness *h = harness_new (TRUE);

  write_str (h, "{\"type\":\"last\"}\n");
  close (h->to_channel);
  h->to_channel = -1;

  WAIT_UNTIL (h->n_closed > 0);
  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);
  g_assert_cmpuint (h->frames->len, ==, 1);
  g_assert_cmpstr (frame_type (h, 0), ==, "last");
  g_assert_cmpuint (h->bad_lines->len, ==, 0);
  g_assert_true (zot_frame_channel_is_closed (h->channel));

  harness_free (h);
}

static void
test_eof_unterminated (void)
{
  Harness *h = harness_new (TRUE);
  const char *message;

  write_str (h, "{\"type\":\"last\"}\n{\"type\":\"unterminated\"}");
  close (h->to_channel);
  h->to_channel = -1;

  WAIT_UNTIL (h->n_closed > 0);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);
  g_assert_cmpuint (h->frames->len, ==, 1);
  g_assert_cmpstr (frame_type (h, 0), ==, "last");
  g_assert_cmpuint (h->bad_lines->len, ==, 1);
  message = g_ptr_array_index (h->bad_lines, 0);
  g_assert_nonnull (strstr (message, "incomplete"));
  g_assert_nonnull (strstr (message, "unterminated"));

  /* The bad line came before the closed signal, which fires once. */
  iterate_ready ();
  g_assert_cmpuint (h->n_closed, ==, 1);

  harness_free (h);
}

/* --- outbound ------------------------------------------------------------ */

static void
test_send (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) event = make_frame ("event");
  g_autoptr(JsonObject) request = make_frame ("request");
  g_autoptr(JsonObject) note = make_frame ("note");
  g_autoptr(GError) error = NULL;
  const char *raw = "{\"type\":\"raw\",\"n\":4}";
  g_auto(GStrv) lines = NULL;
  g_autoptr(JsonObject) back0 = NULL;
  g_autoptr(JsonObject) back1 = NULL;
  g_autoptr(JsonObject) back2 = NULL;
  g_autoptr(JsonObject) back3 = NULL;

  json_object_set_string_member (event, "text", "line one\nline two\r\n");
  json_object_set_int_member (event, "n", 1);
  json_object_set_string_member (request, "id", "r1");
  json_object_set_string_member (request, "name", "h\xc3\xa9llo \xe2\x98\x83");

  reader_start (h);

  /* All in one main loop iteration. */
  g_assert_true (zot_frame_channel_send (h->channel, event, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  g_assert_true (zot_frame_channel_send (h->channel, request, ZOT_FRAME_REQUEST, &error));
  g_assert_no_error (error);
  g_assert_true (zot_frame_channel_send (h->channel, note, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  g_assert_true (zot_frame_channel_send_line (h->channel, raw, strlen (raw), ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);

  WAIT_UNTIL (count_received_lines (h) == 4 || h->n_closed > 0);
  iterate_ready ();

  lines = received_lines (h);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);

  back0 = parse_object (lines[0]);
  back1 = parse_object (lines[1]);
  back2 = parse_object (lines[2]);
  back3 = parse_object (lines[3]);

  g_assert_cmpstr (json_object_get_string_member (back0, "type"), ==, "event");
  g_assert_cmpstr (json_object_get_string_member (back0, "text"), ==, "line one\nline two\r\n");
  g_assert_cmpint (json_object_get_int_member (back0, "n"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (back1, "type"), ==, "request");
  g_assert_cmpstr (json_object_get_string_member (back1, "id"), ==, "r1");
  g_assert_cmpstr (json_object_get_string_member (back1, "name"), ==, "h\xc3\xa9llo \xe2\x98\x83");
  g_assert_cmpstr (json_object_get_string_member (back2, "type"), ==, "note");
  g_assert_cmpstr (json_object_get_string_member (back3, "type"), ==, "raw");
  g_assert_cmpstr (lines[3], ==, raw);

  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), ==, 0);
  g_assert_cmpuint (zot_frame_channel_get_queued_bytes (h->channel), ==, 0);

  harness_free (h);
}

static void
test_send_too_large (void)
{
  Harness *h = harness_new (TRUE);
  g_autofree char *max_line = make_padded_line ("big", ZOT_FRAME_MAX_BYTES);
  g_autofree char *over_line = make_padded_line ("over", ZOT_FRAME_MAX_BYTES + 1);
  g_autoptr(JsonObject) over_object = make_frame ("over");
  g_autoptr(JsonObject) after = make_frame ("after");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;

  reader_start (h);

  g_assert_false (zot_frame_channel_send_line (h->channel, over_line, ZOT_FRAME_MAX_BYTES + 1,
                                               ZOT_FRAME_NONE, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE);
  g_clear_error (&error);

  /* Through the object API: the serialized form is what counts. */
  over_line[ZOT_FRAME_MAX_BYTES - 2] = '\0';
  json_object_set_string_member (over_object, "pad", over_line);
  g_assert_false (zot_frame_channel_send (h->channel, over_object, ZOT_FRAME_REQUEST, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE);
  g_clear_error (&error);

  /* Refused, not fatal. */
  g_assert_false (zot_frame_channel_is_closed (h->channel));
  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), ==, 0);

  /* Exactly the limit is fine and arrives intact. */
  g_assert_true (zot_frame_channel_send_line (h->channel, max_line, ZOT_FRAME_MAX_BYTES,
                                              ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  g_assert_true (zot_frame_channel_send (h->channel, after, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);

  WAIT_UNTIL (count_received_lines (h) == 2 || h->n_closed > 0);
  lines = received_lines (h);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  g_assert_cmpuint (strlen (lines[0]), ==, ZOT_FRAME_MAX_BYTES);
  g_assert_true (memcmp (lines[0], max_line, ZOT_FRAME_MAX_BYTES) == 0);
  g_assert_cmpstr (lines[1], ==, "{\"type\":\"after\"}");
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

static void
test_queue_frame_bound (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) frame = make_frame ("event");
  g_autoptr(GError) error = NULL;

  fill_pipe (h);

  /* The first frame is in flight, not queued. */
  g_assert_true (zot_frame_channel_send (h->channel, frame, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), ==, 0);

  for (guint i = 0; i < ZOT_QUEUE_MAX_FRAMES; i++)
    {
      if (!zot_frame_channel_send (h->channel, frame, ZOT_FRAME_NONE, &error))
        g_error ("queued frame %u of %u refused: %s", i + 1, ZOT_QUEUE_MAX_FRAMES, error->message);
    }
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), ==, ZOT_QUEUE_MAX_FRAMES);
  g_assert_cmpuint (zot_frame_channel_get_queued_bytes (h->channel), ==,
                    ZOT_QUEUE_MAX_FRAMES * strlen ("{\"type\":\"event\"}"));
  g_assert_cmpuint (h->n_closed, ==, 0);

  g_assert_false (zot_frame_channel_send (h->channel, frame, ZOT_FRAME_NONE, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW);
  g_clear_error (&error);

  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW);
  g_assert_true (zot_frame_channel_is_closed (h->channel));

  /* Disconnected means the consumer's input is closed. */
  reader_start (h);
  WAIT_UNTIL (h->received_eof);
  g_assert_cmpuint (h->n_closed, ==, 1);

  harness_free (h);
}

/* PROTOCOL.md §6: the bound counts frames the extension has not taken.
 * A batch of events produced in one go (300 tool calls in one model
 * message) goes into the pipe as it has room before anything is counted,
 * so a reading extension is never disconnected for it. */
static void
test_queue_bound_counts_untaken (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) request = make_frame ("request");
  g_autoptr(GError) error = NULL;
  guint n_events = 4 * ZOT_QUEUE_MAX_FRAMES;

  /* Idle: every frame of the batch waits for the end of the turn. */
  for (guint i = 0; i < n_events; i++)
    {
      g_autoptr(JsonObject) frame = make_frame ("event");

      json_object_set_int_member (frame, "n", i);
      if (!zot_frame_channel_send (h->channel, frame, ZOT_FRAME_NONE, &error))
        g_error ("event %u of one batch refused: %s", i, error->message);
    }
  g_assert_cmpuint (h->n_closed, ==, 0);
  reader_start (h);
  WAIT_UNTIL (count_received_lines (h) == n_events || h->n_closed > 0);
  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_true (g_str_has_prefix (h->received->str, "{\"type\":\"event\",\"n\":0}\n"));
  g_clear_handle_id (&h->reader_id, g_source_remove);
  g_string_truncate (h->received, 0);

  /* Writing: a request waits for a full pipe, the extension then reads
   * (without the channel's loop turning), and another batch comes. */
  fill_pipe (h);
  g_assert_true (zot_frame_channel_send (h->channel, request, ZOT_FRAME_REQUEST, &error));
  g_assert_no_error (error);
  g_assert_true (read_available (h));

  for (guint i = 0; i < n_events; i++)
    {
      g_autoptr(JsonObject) frame = make_frame ("event");

      json_object_set_int_member (frame, "n", n_events + i);
      if (!zot_frame_channel_send (h->channel, frame, ZOT_FRAME_NONE, &error))
        g_error ("event %u after the pipe drained refused: %s", i, error->message);
    }
  g_assert_cmpuint (h->n_closed, ==, 0);

  reader_start (h);
  WAIT_UNTIL (count_received_lines (h) == n_events + 1 || h->n_closed > 0);
  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_nonnull (strstr (h->received->str, "{\"type\":\"request\"}\n{\"type\":\"event\",\"n\":1024}\n"));

  harness_free (h);
}

static void
test_queue_byte_bound (void)
{
  Harness *h = harness_new (TRUE);
  g_autofree char *max_line = make_padded_line ("big", ZOT_FRAME_MAX_BYTES);
  const char *small = "{\"type\":\"x\"}";
  const char *tiny = "1";
  g_autoptr(GError) error = NULL;
  guint n_big = (guint) (ZOT_QUEUE_MAX_BYTES / ZOT_FRAME_MAX_BYTES);

  g_assert_cmpuint (n_big * ZOT_FRAME_MAX_BYTES, ==, ZOT_QUEUE_MAX_BYTES);

  fill_pipe (h);

  g_assert_true (zot_frame_channel_send_line (h->channel, small, strlen (small), ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (zot_frame_channel_get_queued_bytes (h->channel), ==, 0);

  for (guint i = 0; i < n_big; i++)
    {
      if (!zot_frame_channel_send_line (h->channel, max_line, ZOT_FRAME_MAX_BYTES, ZOT_FRAME_NONE, &error))
        g_error ("big frame %u of %u refused: %s", i + 1, n_big, error->message);
    }
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), ==, n_big);
  g_assert_cmpuint (zot_frame_channel_get_queued_bytes (h->channel), ==, ZOT_QUEUE_MAX_BYTES);
  g_assert_cmpuint (h->n_closed, ==, 0);

  /* One more byte of content is one too many. */
  g_assert_false (zot_frame_channel_send_line (h->channel, tiny, 1, ZOT_FRAME_NONE, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW);
  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW);
  g_assert_true (zot_frame_channel_is_closed (h->channel));
  g_assert_cmpuint (zot_frame_channel_get_queued_bytes (h->channel), ==, 0);

  harness_free (h);
}

/* Reads what is available, but never past @limit bytes in total.
 * Returns TRUE once @limit is reached. */
static gboolean
read_up_to (Harness *h,
            gsize    limit)
{
  char buffer[64 * 1024];

  while (h->received->len < limit)
    {
      gssize n = read (h->from_channel, buffer, MIN (sizeof buffer, limit - h->received->len));

      if (n > 0)
        g_string_append_len (h->received, buffer, n);
      else if (n < 0 && errno == EINTR)
        continue;
      else if (n < 0 && errno == EAGAIN)
        return FALSE;
      else
        g_error ("reading from the channel's pipe: %s", n == 0 ? "end of file" : g_strerror (errno));
    }

  return TRUE;
}

/* The bound is "256 frames or 16 MiB queued, plus one frame in flight".
 * The writer coalesces the whole queue into one writev, so once the first
 * frame is written, everything queued moves "in flight" at once; those
 * frames must still count, or a consumer that reads one frame and stops
 * makes the host hold twice the bound. */
static void
test_queue_bound_counts_batch (void)
{
  Harness *h = harness_new (TRUE);
  const gsize big = 32 * 1024;
  g_autofree char *line = make_padded_line ("big", big);
  const char *first = "{\"type\":\"first\"}";
  g_autoptr(GError) error = NULL;
  guint accepted = 0;

  fill_pipe (h);

  g_assert_true (zot_frame_channel_send_line (h->channel, first, strlen (first), ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < ZOT_QUEUE_MAX_FRAMES; i++)
    {
      if (!zot_frame_channel_send_line (h->channel, line, big, ZOT_FRAME_NONE, &error))
        g_error ("queued frame %u of %u refused: %s", i + 1, ZOT_QUEUE_MAX_FRAMES, error->message);
    }
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), ==, ZOT_QUEUE_MAX_FRAMES);

  /* The consumer reads the filler and the first frame, then stops. */
  WAIT_UNTIL (read_up_to (h, h->filler + strlen (first) + 1) || h->n_closed > 0);
  g_assert_cmpstr (received_after_filler (h), ==, "{\"type\":\"first\"}\n");
  WAIT_UNTIL (zot_frame_channel_get_queued_frames (h->channel) == 0 || h->n_closed > 0);
  g_assert_cmpuint (h->n_closed, ==, 0);

  /* At most two 32 KiB frames fit in the 64 KiB pipe, so the host still
   * holds about 254 unread frames plus one in flight: nearly at the bound. */
  for (guint i = 0; i < ZOT_QUEUE_MAX_FRAMES; i++)
    {
      if (!zot_frame_channel_send_line (h->channel, line, big, ZOT_FRAME_NONE, &error))
        break;
      accepted++;
    }

  g_test_message ("accepted %u more frames while ~%u were still unwritten",
                  accepted, ZOT_QUEUE_MAX_FRAMES);

  g_assert_cmpuint (accepted, <, 8);
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW);
  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW);

  harness_free (h);
}

/* --- write deadline ------------------------------------------------------ */

static void
test_write_deadline (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) request = make_frame ("command_invoked");
  g_autoptr(GError) error = NULL;
  gint64 sent_at;

  fill_pipe (h);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WRITE, 50);

  sent_at = g_get_monotonic_time ();
  g_assert_true (zot_frame_channel_send (h->channel, request, ZOT_FRAME_REQUEST, &error));
  g_assert_no_error (error);

  WAIT_UNTIL (h->n_closed > 0);
  g_assert_cmpint (g_get_monotonic_time () - sent_at, >=, 50 * 1000);
  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_error (h->closed_error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_WRITE_TIMEOUT);
  g_assert_true (zot_frame_channel_is_closed (h->channel));

  /* "the input pipe is closed" */
  reader_start (h);
  WAIT_UNTIL (h->received_eof);

  harness_free (h);
  g_assert_cmpuint (zot_timeout_get_ms (ZOT_TIMEOUT_WRITE), ==, ZOT_WRITE_TIMEOUT_MS);
}

static void
test_write_deadline_notification (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) event = make_frame ("event");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;

  fill_pipe (h);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WRITE, 50);

  g_assert_true (zot_frame_channel_send (h->channel, event, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  g_assert_true (zot_frame_channel_send (h->channel, event, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);

  iterate_for_ms (3 * 50 + 10);
  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_false (zot_frame_channel_is_closed (h->channel));
  /* Notifications of one turn leave in one batch: none is left behind it. */
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), <=, 1);

  /* Once the consumer reads, both arrive. */
  reader_start (h);
  WAIT_UNTIL (count_received_lines (h) == 2 || h->n_closed > 0);
  lines = received_lines (h);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

/* A frame someone waits for leaves without waiting for the end of the
 * turn, with the notification queued before it; it has no write deadline. */
static void
test_send_now (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) event = make_frame ("event");
  g_autoptr(JsonObject) answer = make_frame ("answer");
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_frame_channel_send (h->channel, event, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  g_assert_true (read_available (h));
  g_assert_cmpstr (h->received->str, ==, "");

  g_assert_true (zot_frame_channel_send (h->channel, answer, ZOT_FRAME_NOW, &error));
  g_assert_no_error (error);
  g_assert_true (read_available (h));
  g_assert_cmpstr (h->received->str, ==, "{\"type\":\"event\"}\n{\"type\":\"answer\"}\n");
  g_assert_cmpuint (zot_frame_channel_get_queued_frames (h->channel), ==, 0);

  /* Behind a full pipe it waits for the reader however long that takes. */
  g_string_truncate (h->received, 0);
  fill_pipe (h);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WRITE, 50);
  g_assert_true (zot_frame_channel_send (h->channel, answer, ZOT_FRAME_NOW, &error));
  g_assert_no_error (error);
  iterate_for_ms (3 * 50 + 10);
  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_false (zot_frame_channel_is_closed (h->channel));

  reader_start (h);
  WAIT_UNTIL (count_received_lines (h) == 1 || h->n_closed > 0);
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

static void
test_write_deadline_drained (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) request = make_frame ("command_invoked");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  const guint deadline_ms = 400;

  fill_pipe (h);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WRITE, deadline_ms);

  g_assert_true (zot_frame_channel_send (h->channel, request, ZOT_FRAME_REQUEST, &error));
  g_assert_no_error (error);

  /* The consumer catches up well before the deadline. */
  g_assert_true (read_available (h));
  reader_start (h);
  WAIT_UNTIL (count_received_lines (h) == 1 || h->n_closed > 0);
  lines = received_lines (h);
  g_assert_cmpstr (lines[0], ==, "{\"type\":\"command_invoked\"}");

  /* The deadline was disarmed by the completed write. */
  iterate_for_ms (3 * deadline_ms);
  g_assert_cmpuint (h->n_closed, ==, 0);
  g_assert_false (zot_frame_channel_is_closed (h->channel));

  harness_free (h);
}

/* --- flush, close_output, close ------------------------------------------ */

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
  guint     queued_at_completion;
} FlushResult;

static void
flush_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  FlushResult *flush = user_data;

  flush->ok = zot_frame_channel_flush_finish (ZOT_FRAME_CHANNEL (object), result, &flush->error);
  flush->queued_at_completion = zot_frame_channel_get_queued_frames (ZOT_FRAME_CHANNEL (object));
  flush->done = TRUE;
}

static void
test_flush (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  FlushResult flush = { 0 };
  FlushResult empty = { 0 };

  /* Nothing queued: completes at once, successfully. */
  zot_frame_channel_flush_async (h->channel, NULL, flush_cb, &empty);
  WAIT_UNTIL (empty.done);
  g_assert_no_error (empty.error);
  g_assert_true (empty.ok);

  fill_pipe (h);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"type\":\"event\",\"n\":%u}", i);

      g_assert_true (zot_frame_channel_send_line (h->channel, line, strlen (line), ZOT_FRAME_NONE, &error));
      g_assert_no_error (error);
    }

  zot_frame_channel_flush_async (h->channel, NULL, flush_cb, &flush);
  iterate_ready ();
  g_assert_false (flush.done);

  reader_start (h);
  WAIT_UNTIL (flush.done);
  g_assert_no_error (flush.error);
  g_assert_true (flush.ok);
  g_assert_cmpuint (flush.queued_at_completion, ==, 0);

  WAIT_UNTIL (count_received_lines (h) == 3 || h->n_closed > 0);
  lines = received_lines (h);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[2], ==, "{\"type\":\"event\",\"n\":2}");

  harness_free (h);
}

static void
test_flush_closed (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) event = make_frame ("event");
  g_autoptr(GError) error = NULL;
  FlushResult pending = { 0 };
  FlushResult after = { 0 };

  /* Pending when the channel closes: fails. */
  fill_pipe (h);
  g_assert_true (zot_frame_channel_send (h->channel, event, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  zot_frame_channel_flush_async (h->channel, NULL, flush_cb, &pending);
  iterate_ready ();
  g_assert_false (pending.done);

  zot_frame_channel_close (h->channel);
  WAIT_UNTIL (pending.done);
  g_assert_false (pending.ok);
  g_assert_error (pending.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);

  /* Started on a closed channel: fails. */
  zot_frame_channel_flush_async (h->channel, NULL, flush_cb, &after);
  WAIT_UNTIL (after.done);
  g_assert_false (after.ok);
  g_assert_error (after.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);

  g_clear_error (&pending.error);
  g_clear_error (&after.error);
  harness_free (h);
}

static void
test_close_output (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) late = make_frame ("late");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;

  /* Queued behind a full pipe at the moment close_output is asked for. */
  fill_pipe (h);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"type\":\"event\",\"n\":%u}", i);

      g_assert_true (zot_frame_channel_send_line (h->channel, line, strlen (line), ZOT_FRAME_NONE, &error));
      g_assert_no_error (error);
    }
  zot_frame_channel_close_output (h->channel);

  /* No more sends once the input is being closed. */
  g_assert_false (zot_frame_channel_send (h->channel, late, ZOT_FRAME_NONE, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);
  g_clear_error (&error);

  reader_start (h);
  WAIT_UNTIL (h->received_eof || h->n_closed > 0);
  g_assert_true (h->received_eof);

  lines = received_lines (h);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *expected = g_strdup_printf ("{\"type\":\"event\",\"n\":%u}", i);
      g_assert_cmpstr (lines[i], ==, expected);
    }

  /* Reading goes on, so that a final reply can still arrive. */
  g_assert_false (zot_frame_channel_is_closed (h->channel));
  write_str (h, "{\"type\":\"final\"}\n");
  WAIT_UNTIL (h->frames->len == 1 || h->n_closed > 0);
  g_assert_cmpstr (frame_type (h, 0), ==, "final");
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

static void
test_close (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) frame = make_frame ("event");
  g_autoptr(GError) error = NULL;

  reader_start (h);

  zot_frame_channel_close (h->channel);
  g_assert_cmpuint (h->n_closed, ==, 1);
  g_assert_true (h->closed_with_null);
  g_assert_null (h->closed_error);
  g_assert_true (zot_frame_channel_is_closed (h->channel));

  zot_frame_channel_close (h->channel);
  WAIT_UNTIL (channel_refcount (h->channel) == 1);
  zot_frame_channel_close (h->channel);
  g_assert_cmpuint (h->n_closed, ==, 1);

  g_assert_false (zot_frame_channel_send (h->channel, frame, ZOT_FRAME_NONE, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);
  g_clear_error (&error);
  g_assert_false (zot_frame_channel_send_line (h->channel, "{\"type\":\"x\"}", 12, ZOT_FRAME_REQUEST, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED);
  g_clear_error (&error);

  /* Both pipes are released: the peer sees EOF on its input. */
  WAIT_UNTIL (h->received_eof);
  g_assert_cmpuint (h->received->len, ==, 0);

  /* The read end is gone too, once the cancelled read has completed. */
  g_assert_cmpint (write (h->to_channel, "x", 1), ==, -1);
  g_assert_cmpint (errno, ==, EPIPE);
  g_assert_cmpuint (h->frames->len, ==, 0);
  g_assert_cmpuint (h->n_closed, ==, 1);

  harness_free (h);
}

/* --- tracing ------------------------------------------------------------- */

static void
test_trace (void)
{
  Harness *h = harness_new (TRUE);
  g_autoptr(JsonObject) out = make_frame ("out");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  Traffic *traffic;

  zot_frame_channel_set_trace (h->channel, TRUE);
  reader_start (h);

  write_str (h, "{\"type\":\"in\",\"n\":1}\n");
  WAIT_UNTIL (h->frames->len == 1 || h->n_closed > 0);
  g_assert_cmpuint (h->traffic->len, ==, 1);
  traffic = g_ptr_array_index (h->traffic, 0);
  g_assert_cmpint (traffic->direction, ==, ZOT_FRAME_DIRECTION_IN);
  g_assert_cmpstr (traffic->line, ==, "{\"type\":\"in\",\"n\":1}");

  json_object_set_string_member (out, "id", "7");
  g_assert_true (zot_frame_channel_send (h->channel, out, ZOT_FRAME_REQUEST, &error));
  g_assert_no_error (error);
  WAIT_UNTIL (count_received_lines (h) == 1 || h->n_closed > 0);
  lines = received_lines (h);
  g_assert_cmpuint (h->traffic->len, ==, 2);
  traffic = g_ptr_array_index (h->traffic, 1);
  g_assert_cmpint (traffic->direction, ==, ZOT_FRAME_DIRECTION_OUT);
  g_assert_cmpstr (traffic->line, ==, lines[0]);

  /* Off: nothing more in either direction. */
  zot_frame_channel_set_trace (h->channel, FALSE);
  write_str (h, "{\"type\":\"in\",\"n\":2}\n");
  WAIT_UNTIL (h->frames->len == 2 || h->n_closed > 0);
  g_assert_true (zot_frame_channel_send (h->channel, out, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  WAIT_UNTIL (count_received_lines (h) == 2 || h->n_closed > 0);
  g_assert_cmpuint (h->traffic->len, ==, 2);
  g_assert_cmpuint (h->n_closed, ==, 0);

  harness_free (h);
}

/* --- lifecycle ----------------------------------------------------------- */

static void
test_new_destroy (void)
{
  Harness *h;
  g_autoptr(JsonObject) frame = make_frame ("event");
  g_autoptr(GError) error = NULL;
  ZotFrameChannel *channel;
  char byte;

  /* Never started. */
  h = harness_new (FALSE);
  channel = g_steal_pointer (&h->channel);
  g_signal_handlers_disconnect_by_data (channel, h);
  g_assert_finalize_object (channel);
  /* It owned both ends: the peer sees them closed. */
  g_assert_cmpint (read (h->from_channel, &byte, 1), ==, 0);
  g_assert_cmpint (write (h->to_channel, "x", 1), ==, -1);
  g_assert_cmpint (errno, ==, EPIPE);
  harness_free (h);

  /* Started, with a write done and a read pending, then closed: the
   * callbacks hold references until they run. */
  h = harness_new (TRUE);
  g_assert_true (zot_frame_channel_send (h->channel, frame, ZOT_FRAME_NONE, &error));
  g_assert_no_error (error);
  write_str (h, "{\"type\":\"hello\"}\n");
  WAIT_UNTIL (h->frames->len == 1 || h->n_closed > 0);
  g_assert_cmpuint (channel_refcount (h->channel), >, 1);

  channel = g_steal_pointer (&h->channel);
  g_signal_handlers_disconnect_by_data (channel, h);
  zot_frame_channel_close (channel);
  WAIT_UNTIL (channel_refcount (channel) == 1);
  g_assert_finalize_object (channel);

  WAIT_UNTIL (!read_available (h));
  g_assert_cmpstr (h->received->str, ==, "{\"type\":\"event\"}\n");
  g_assert_cmpint (write (h->to_channel, "x", 1), ==, -1);
  g_assert_cmpint (errno, ==, EPIPE);
  harness_free (h);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* Writing to a closed pipe must be an EPIPE error, not a signal. */
  signal (SIGPIPE, SIG_IGN);

  g_test_add_func ("/zot/frame-channel/split-chunks", test_split_chunks);
  g_test_add_func ("/zot/frame-channel/nested-loop", test_nested_loop);
  g_test_add_func ("/zot/frame-channel/frames-per-turn", test_frames_per_turn);
  g_test_add_func ("/zot/frame-channel/file-input", test_file_input);
  g_test_add_func ("/zot/frame-channel/socket-input", test_socket_input);
  g_test_add_func ("/zot/frame-channel/pipe-mode-restored", test_pipe_mode_restored);
  g_test_add_func ("/zot/frame-channel/frame-max-size", test_frame_max_size);
  g_test_add_func ("/zot/frame-channel/frame-too-large", test_frame_too_large);
  g_test_add_func ("/zot/frame-channel/frame-no-newline", test_frame_no_newline);
  g_test_add_func ("/zot/frame-channel/bad-lines", test_bad_lines);
  g_test_add_func ("/zot/frame-channel/nesting-bound", test_nesting_bound);
  g_test_add_func ("/zot/frame-channel/eof", test_eof);
  g_test_add_func ("/zot/frame-channel/eof-unterminated", test_eof_unterminated);
  g_test_add_func ("/zot/frame-channel/send", test_send);
  g_test_add_func ("/zot/frame-channel/send-too-large", test_send_too_large);
  g_test_add_func ("/zot/frame-channel/send-now", test_send_now);
  g_test_add_func ("/zot/frame-channel/queue-frame-bound", test_queue_frame_bound);
  g_test_add_func ("/zot/frame-channel/queue-byte-bound", test_queue_byte_bound);
  g_test_add_func ("/zot/frame-channel/queue-bound-counts-untaken", test_queue_bound_counts_untaken);
  g_test_add_func ("/zot/frame-channel/queue-bound-counts-batch", test_queue_bound_counts_batch);
  g_test_add_func ("/zot/frame-channel/write-deadline", test_write_deadline);
  g_test_add_func ("/zot/frame-channel/write-deadline-notification", test_write_deadline_notification);
  g_test_add_func ("/zot/frame-channel/write-deadline-drained", test_write_deadline_drained);
  g_test_add_func ("/zot/frame-channel/flush", test_flush);
  g_test_add_func ("/zot/frame-channel/flush-closed", test_flush_closed);
  g_test_add_func ("/zot/frame-channel/close-output", test_close_output);
  g_test_add_func ("/zot/frame-channel/close", test_close);
  g_test_add_func ("/zot/frame-channel/trace", test_trace);
  g_test_add_func ("/zot/frame-channel/new-destroy", test_new_destroy);

  return g_test_run ();
}
