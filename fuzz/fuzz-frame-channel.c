/* fuzz-frame-channel.c — the frame reader: arbitrary bytes from an
 * extension through ZotFrameChannel.
 *
 * Input: three option bytes, then what the extension writes.
 *   byte 0, bit 0: skip over-long lines (zot rpc) instead of disconnecting
 *   byte 0, bit 1: a GMemoryInputStream instead of a pipe
 *   byte 0, bit 2: trace traffic
 *   byte 1: the frame cap, 16 + 8 × byte bytes (255: the real 4 MiB)
 *   byte 2: how the bytes are cut into writes (zot-fuzz-util.h)
 * Through a pipe, each write reaches the reader on its own, so lines
 * arrive whole, in pieces and many per read.
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>

#include "zot-fuzz-util.h"
#include "zot-frame-channel-private.h"
#include "zot-limits.h"

#define OPTION_SKIP_OVERSIZED (1 << 0)
#define OPTION_MEMORY_STREAM  (1 << 1)
#define OPTION_TRACE          (1 << 2)

typedef struct
{
  gsize    cap;
  guint    n_frames;
  guint    n_bad_lines;
  gboolean closed;
} State;

static void
on_frame_received (ZotFrameChannel *channel,
                   JsonObject      *frame,
                   State           *state)
{
  /* What the documentation promises every handler. */
  g_assert_nonnull (json_object_get_string_member_with_default (frame, "type", NULL));
  state->n_frames++;
}

static void
on_bad_line (ZotFrameChannel *channel,
             const char      *message,
             State           *state)
{
  /* Shown in the extensions page and written to the log. */
  zot_fuzz_assert_utf8 ("a bad-line message", message, -1);
  state->n_bad_lines++;
}

static void
on_traffic (ZotFrameChannel *channel,
            int              direction,
            const char      *line,
            State           *state)
{
  g_assert_cmpuint (strlen (line), <=, state->cap);
}

static void
on_closed (ZotFrameChannel *channel,
           const GError    *error,
           State           *state)
{
  g_assert_false (state->closed);
  state->closed = TRUE;
}

static gboolean
is_closed (gpointer user_data)
{
  State *state = user_data;

  return state->closed;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GMainContext) context = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(ZotFrameChannel) channel = NULL;
  State state = { 0 };
  guint8 options;
  guint8 split;
  int fds[2] = { -1, -1 };

  if (size < 3)
    return 0;

  options = data[0];
  state.cap = data[1] == 255 ? ZOT_FRAME_MAX_BYTES : 16 + 8 * (gsize) data[1];
  split = data[2];
  data += 3;
  size -= 3;

  context = g_main_context_new ();
  g_main_context_push_thread_default (context);

  if (options & OPTION_MEMORY_STREAM)
    input = g_memory_input_stream_new_from_data (g_memdup2 (data, size), size, g_free);
  else
    {
      if (!g_unix_open_pipe (fds, FD_CLOEXEC, NULL))
        g_error ("no pipe");
      input = g_unix_input_stream_new (fds[0], TRUE);
    }
  output = g_memory_output_stream_new_resizable ();

  channel = zot_frame_channel_new (input, output);
  _zot_frame_channel_set_max_frame_bytes_for_testing (channel, state.cap);
  zot_frame_channel_set_skip_oversized (channel, (options & OPTION_SKIP_OVERSIZED) != 0);
  zot_frame_channel_set_trace (channel, (options & OPTION_TRACE) != 0);
  g_signal_connect (channel, "frame-received", G_CALLBACK (on_frame_received), &state);
  g_signal_connect (channel, "bad-line", G_CALLBACK (on_bad_line), &state);
  g_signal_connect (channel, "traffic", G_CALLBACK (on_traffic), &state);
  g_signal_connect (channel, "closed", G_CALLBACK (on_closed), &state);
  zot_frame_channel_start (channel);

  if (fds[1] >= 0)
    {
      zot_fuzz_feed_pipe (fds[1], data, size, split, context, is_closed, &state);
      close (fds[1]);
    }

  /* The end of the stream closes the channel. */
  while (!state.closed)
    g_main_context_iteration (context, TRUE);
  g_assert_true (zot_frame_channel_is_closed (channel));

  g_clear_object (&channel);
  zot_fuzz_drain (context, NULL, NULL);
  g_main_context_pop_thread_default (context);

  return 0;
}
