/* zot-frame-channel.c — newline-delimited JSON over a pair of GIO streams.
 *
 * The reader enforces the frame cap while the line is still arriving, so a
 * peer that never sends a newline cannot make the host buffer more than
 * ZOT_FRAME_MAX_BYTES. The writer coalesces whatever is queued into one
 * writev, which keeps event fan-out at one system call per extension per
 * main loop iteration instead of one per frame.
 *
 * This file holds the object: making a channel from its streams, closing
 * it, and its signals. Reading is in zot-frame-channel-read.c, writing in
 * zot-frame-channel-write.c.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <gio/gfiledescriptorbased.h>

#include "zot-error.h"
#include "zot-frame-channel-private.h"
#include "zot-limits.h"
#include "zot-source.h"

#define PIPE_SIZE         (1024 * 1024)

guint _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotFrameChannel, zot_frame_channel, G_TYPE_OBJECT)

void
_zot_frame_channel_close_with_error (ZotFrameChannel *self,
                                     GError          *error)
{
  g_autoptr(GError) owned = error;

  if (self->closed)
    return;

  g_object_ref (self);

  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);

  /* A pipe that outlives the channel (zot rpc's stdin, shared with whoever
   * started it) goes back to blocking, as it was found. */
  if (self->input_fd_flags >= 0)
    {
      (void) fcntl (self->input_fd, F_SETFL, self->input_fd_flags);
      self->input_fd_flags = -1;
    }

  _zot_frame_channel_clear_queue (self);
  self->queued_bytes = 0;
  _zot_frame_channel_clear_flush_source (self);
  g_clear_error (&self->write_error);
  zot_clear_source (&self->write_error_source);
  zot_clear_source (&self->deadline);
  zot_clear_source (&self->read_source);
  zot_clear_source (&self->resume_source);

  /* The own writer has no operation to cancel: its batch goes now. */
  if (self->writing && self->nonblocking)
    {
      zot_clear_source (&self->write_source);
      self->writing = FALSE;
      _zot_frame_channel_clear_batch (self);
    }

  /* With no operation pending the streams can be closed now; otherwise the
   * cancelled operation's callback closes them. */
  if (!self->writing && !self->output_closed)
    {
      self->output_closed = TRUE;
      g_output_stream_close (self->output, NULL, NULL);
    }
  if (!self->reading && self->started)
    g_input_stream_close (self->input, NULL, NULL);

  if (owned != NULL)
    _zot_frame_channel_complete_flush_waiters (self, owned);
  else
    {
      g_autoptr(GError) closed = g_error_new_literal (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED,
                                                      _("the channel was closed"));
      _zot_frame_channel_complete_flush_waiters (self, closed);
    }

  g_signal_emit (self, _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_CLOSED], 0, owned);

  g_object_unref (self);
}

static void
zot_frame_channel_dispose (GObject *object)
{
  ZotFrameChannel *self = (ZotFrameChannel *)object;

  if (!self->closed)
    {
      /* Nobody can be listening any more: close quietly. */
      g_signal_handlers_destroy (self);
      _zot_frame_channel_close_with_error (self, NULL);
    }

  G_OBJECT_CLASS (zot_frame_channel_parent_class)->dispose (object);
}

static void
zot_frame_channel_finalize (GObject *object)
{
  ZotFrameChannel *self = (ZotFrameChannel *)object;

  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->parser);
  g_clear_object (&self->generator);
  g_clear_pointer (&self->read_buffer, g_free);
  g_clear_pointer (&self->partial, g_byte_array_unref);
  _zot_frame_channel_free_queue (self);
  G_OBJECT_CLASS (zot_frame_channel_parent_class)->finalize (object);
}

static void
zot_frame_channel_class_init (ZotFrameChannelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  struct sigaction current;

  /* A write to an extension that just exited must fail with EPIPE, not
   * end the host: the channel writes with writev(2) itself. A handler the
   * program installed stays. */
  if (sigaction (SIGPIPE, NULL, &current) == 0 && current.sa_handler == SIG_DFL)
    signal (SIGPIPE, SIG_IGN);

  object_class->dispose = zot_frame_channel_dispose;
  object_class->finalize = zot_frame_channel_finalize;

  /**
   * ZotFrameChannel::frame-received:
   * @frame: a JSON object with a string "type"
   */
  _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_FRAME_RECEIVED] =
    g_signal_new ("frame-received",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotFrameChannel::bad-line:
   * @message: why the line was skipped, with an excerpt
   */
  _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_BAD_LINE] =
    g_signal_new ("bad-line",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotFrameChannel::closed:
   * @error: (nullable): why, or %NULL when the owner closed the channel
   */
  _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotFrameChannel::traffic:
   * @direction: a #ZotFrameDirection
   * @line: the raw line, without its newline
   *
   * Emitted only while tracing is on, so that nobody pays for it otherwise.
   */
  _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_TRAFFIC] =
    g_signal_new ("traffic",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
zot_frame_channel_init (ZotFrameChannel *self)
{
  self->cancellable = g_cancellable_new ();
  /* Not immutable: sealing hashes every string of a 4 MiB frame again,
   * and nothing changes a received frame. */
  self->parser = json_parser_new ();
  self->partial = g_byte_array_new ();
  self->max_frame_bytes = ZOT_FRAME_MAX_BYTES;
  g_queue_init (&self->queue);
  g_queue_init (&self->flush_waiters);
}

ZotFrameChannel *
zot_frame_channel_new (GInputStream  *input,
                       GOutputStream *output)
{
  ZotFrameChannel *self;

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);

  self = g_object_new (ZOT_TYPE_FRAME_CHANNEL, NULL);
  self->input = g_object_ref (input);
  self->output = g_object_ref (output);

  /* Bigger pipes: a 4 MiB frame crosses in four turns of the main loop
   * rather than sixty-four. Not every descriptor is a pipe; that is fine. */
#ifdef F_SETPIPE_SZ
  if (G_IS_FILE_DESCRIPTOR_BASED (output))
    (void) fcntl (g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (output)), F_SETPIPE_SZ, PIPE_SIZE);
  if (G_IS_FILE_DESCRIPTOR_BASED (input))
    (void) fcntl (g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (input)), F_SETPIPE_SZ, PIPE_SIZE);
#endif

  self->output_fd = -1;

  /* A pipe is read with read(2) on its descriptor, made non-blocking so a
   * spurious wake-up cannot stall the loop. Only a pipe: a terminal (zot
   * rpc run by hand) shares its file description with the shell, which must
   * not find it non-blocking afterwards; other streams are read through
   * their pollable source. */
  self->input_fd = -1;
  self->input_fd_flags = -1;
  if (G_IS_FILE_DESCRIPTOR_BASED (input) && G_IS_POLLABLE_INPUT_STREAM (input) &&
      g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (input)))
    {
      int fd = g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (input));
      int flags = fcntl (fd, F_GETFL);
      struct stat st;

      if (fstat (fd, &st) == 0 && S_ISFIFO (st.st_mode) && flags >= 0)
        {
          if ((flags & O_NONBLOCK) != 0)
            self->input_fd = fd;
          else if (fcntl (fd, F_SETFL, flags | O_NONBLOCK) == 0)
            {
              self->input_fd = fd;
              self->input_fd_flags = flags;
            }
        }
    }

  /* Writing straight away is only safe on a descriptor that cannot block. */
  if (G_IS_FILE_DESCRIPTOR_BASED (output) && G_IS_POLLABLE_OUTPUT_STREAM (output) &&
      g_pollable_output_stream_can_poll (G_POLLABLE_OUTPUT_STREAM (output)))
    {
      int fd = g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (output));
      int flags = fcntl (fd, F_GETFL);

      self->nonblocking = flags >= 0 && (flags & O_NONBLOCK) != 0;
      self->output_fd = self->nonblocking ? fd : -1;
    }

  return self;
}

void
zot_frame_channel_close (ZotFrameChannel *self)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));

  _zot_frame_channel_close_with_error (self, NULL);
}

gboolean
zot_frame_channel_is_closed (ZotFrameChannel *self)
{
  g_return_val_if_fail (ZOT_IS_FRAME_CHANNEL (self), TRUE);

  return self->closed;
}

void
zot_frame_channel_set_trace (ZotFrameChannel *self,
                             gboolean         trace)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));

  self->trace = !!trace;
}

/**
 * zot_frame_channel_get_counts:
 * @counts: (out): the frames and bytes each way since the channel was made
 */
void
zot_frame_channel_get_counts (ZotFrameChannel *self,
                              ZotFrameCounts  *counts)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));
  g_return_if_fail (counts != NULL);

  *counts = self->counts;
}
