/* zot-frame-channel-write.c — the channel's writer: a bounded queue of
 * frames, coalesced into writev(2) batches.
 *
 * Notifications of one main loop turn leave in one write; a request goes
 * out at once, with whatever queued before it, and has a write deadline.
 * The queue is bounded (ZOT_QUEUE_MAX_FRAMES, ZOT_QUEUE_MAX_BYTES): past
 * it the channel closes rather than drop a frame. A non-blocking pipe is
 * written by the channel itself, other streams with GIO's asynchronous
 * writes.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>
#include <string.h>

#include "zot-armed-source.h"
#include "zot-error.h"
#include "zot-frame-channel-private.h"
#include "zot-limits.h"
#include "zot-source.h"

/* The vectors go to writev(2) as they are. */
G_STATIC_ASSERT (sizeof (GOutputVector) == sizeof (struct iovec));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GOutputVector, buffer) == G_STRUCT_OFFSET (struct iovec, iov_base));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GOutputVector, size) == G_STRUCT_OFFSET (struct iovec, iov_len));

#define MAX_BATCH_VECTORS 1024

/* The queue link is part of the record: one allocation per frame and
 * subscriber, which is what event fan-out pays for. */
typedef struct
{
  GList     link;
  GBytes   *bytes;
  gint64    enqueued_at;
  gboolean  is_request;
} QueuedFrame;

static void start_write      (ZotFrameChannel *self);
static void disarm_flush     (ZotFrameChannel *self);
static void batch_written    (ZotFrameChannel *self);
static void fail_writing     (ZotFrameChannel *self,
                              GError          *error);

/* Records of written frames are kept for the next ones: fanning events
 * out allocated and freed one per delivery. */
static QueuedFrame *
queued_frame_new (ZotFrameChannel *self)
{
  GList *link = self->spare_frames;

  if (link == NULL)
    return g_new (QueuedFrame, 1);

  self->spare_frames = link->next;
  self->n_spare_frames--;
  return link->data;
}

static void
queued_frame_release (ZotFrameChannel *self,
                      QueuedFrame     *frame)
{
  g_clear_pointer (&frame->bytes, g_bytes_unref);

  if (self->n_spare_frames >= ZOT_QUEUE_MAX_FRAMES)
    {
      g_free (frame);
      return;
    }

  frame->link.data = frame;
  frame->link.prev = NULL;
  frame->link.next = self->spare_frames;
  self->spare_frames = &frame->link;
  self->n_spare_frames++;
}

void
_zot_frame_channel_clear_queue (ZotFrameChannel *self)
{
  GList *link;

  while ((link = g_queue_pop_head_link (&self->queue)) != NULL)
    queued_frame_release (self, link->data);
}

/* The batch array stays allocated between writes; only its records go. */
void
_zot_frame_channel_clear_batch (ZotFrameChannel *self)
{
  if (self->batch == NULL)
    return;

  for (guint i = 0; i < self->batch->len; i++)
    queued_frame_release (self, g_ptr_array_index (self->batch, i));
  g_ptr_array_set_size (self->batch, 0);
  self->batch_extra_bytes = 0;
}

void
_zot_frame_channel_complete_flush_waiters (ZotFrameChannel *self,
                                           const GError    *error)
{
  GTask *task;

  while ((task = g_queue_pop_head (&self->flush_waiters)))
    {
      if (error != NULL)
        g_task_return_error (task, g_error_copy (error));
      else
        g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
}

static gboolean
deadline_cb (gpointer user_data)
{
  ZotFrameChannel *self = user_data;

  g_clear_pointer (&self->deadline, g_source_unref);
  _zot_frame_channel_close_with_error (self,
                                       g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_WRITE_TIMEOUT,
                                                    _("a request could not be written within %u ms; the input pipe was closed"),
                                                    zot_timeout_get_ms (ZOT_TIMEOUT_WRITE)));
  return G_SOURCE_REMOVE;
}

/* The write deadline covers the oldest request that is not yet written,
 * counted from when it was queued. Notifications have no deadline: the
 * queue bound is what stops a consumer that never reads. */
static void
update_deadline (ZotFrameChannel *self)
{
  gint64 oldest = 0;

  for (guint i = 0; self->batch != NULL && i < self->batch->len && oldest == 0; i++)
    {
      QueuedFrame *frame = g_ptr_array_index (self->batch, i);
      if (frame->is_request)
        oldest = frame->enqueued_at;
    }

  for (GList *l = self->queue.head; l != NULL && oldest == 0; l = l->next)
    {
      QueuedFrame *frame = l->data;
      if (frame->is_request)
        oldest = frame->enqueued_at;
    }

  /* The source stays attached between requests, disarmed: creating and
   * destroying one per request showed in the round-trip benchmark. */
  if (oldest == 0)
    {
      if (self->deadline != NULL)
        zot_armed_source_set_due (self->deadline, ZOT_ARMED_SOURCE_DISARMED);
      return;
    }

  if (self->deadline == NULL)
    self->deadline = zot_armed_source_new (deadline_cb, self, G_PRIORITY_DEFAULT, "[zot] write deadline");

  zot_armed_source_set_due (self->deadline,
                        oldest + (gint64) zot_timeout_get_ms (ZOT_TIMEOUT_WRITE) * 1000);
}

static void
maybe_close_output (ZotFrameChannel *self)
{
  if (self->close_output_requested && !self->writing && self->queue.length == 0 && !self->output_closed)
    {
      self->output_closed = TRUE;
      g_output_stream_close (self->output, NULL, NULL);
    }
}

static void
write_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(ZotFrameChannel) self = user_data;
  g_autoptr(GError) error = NULL;

  g_output_stream_writev_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error);
  self->writing = FALSE;
  _zot_frame_channel_clear_batch (self);

  if (self->closed)
    {
      if (!self->output_closed)
        {
          self->output_closed = TRUE;
          g_output_stream_close (self->output, NULL, NULL);
        }
      return;
    }

  if (error != NULL)
    {
      fail_writing (self, g_steal_pointer (&error));
      return;
    }

  batch_written (self);
}

static void
batch_written (ZotFrameChannel *self)
{
  if (self->queue.length > 0)
    {
      start_write (self);
      return;
    }

  update_deadline (self);
  maybe_close_output (self);
  _zot_frame_channel_complete_flush_waiters (self, NULL);
}

static void pump_batch (ZotFrameChannel *self);

static gboolean
write_error_timeout_cb (gpointer user_data)
{
  ZotFrameChannel *self = user_data;

  g_clear_pointer (&self->write_error_source, g_source_unref);
  _zot_frame_channel_close_with_error (self, g_steal_pointer (&self->write_error));
  return G_SOURCE_REMOVE;
}

/* Nothing more can be sent (the extension closed its input, or exited),
 * but what it wrote before is still read: the channel closes with @error
 * at the end of its output, or ZOT_EXIT_DRAIN_MS later at the latest. */
static void
fail_writing (ZotFrameChannel *self,
              GError          *error)
{
  g_prefix_error (&error, _("writing to the extension failed: "));

  if (!self->started || self->write_error != NULL)
    {
      _zot_frame_channel_close_with_error (self, error);
      return;
    }

  self->write_error = error;
  zot_clear_source (&self->write_source);
  self->writing = FALSE;
  _zot_frame_channel_clear_batch (self);
  _zot_frame_channel_clear_queue (self);
  self->queued_bytes = 0;
  disarm_flush (self);
  update_deadline (self);
  if (!self->output_closed)
    {
      self->output_closed = TRUE;
      g_output_stream_close (self->output, NULL, NULL);
    }
  _zot_frame_channel_complete_flush_waiters (self, self->write_error);

  self->write_error_source = g_timeout_source_new (zot_timeout_get_ms (ZOT_TIMEOUT_EXIT_DRAIN));
  g_source_set_callback (self->write_error_source, write_error_timeout_cb, self, NULL);
  g_source_set_static_name (self->write_error_source, "[zot] read after a write failure");
  g_source_attach (self->write_error_source, g_main_context_get_thread_default ());
}

static gboolean
pipe_writable_cb (int           fd,
                  GIOCondition  condition,
                  gpointer      user_data)
{
  ZotFrameChannel *self = user_data;

  g_object_ref (self);
  pump_batch (self);
  g_object_unref (self);
  return G_SOURCE_CONTINUE;
}

/* The own writer, for a non-blocking pipe: writes what the pipe takes of
 * the batch in flight. When the batch is done the next one starts; when
 * the pipe is full, a source waits for room. Since nothing but this
 * function writes, enqueue() may call it at any time to move frames into
 * the pipe before it counts what is waiting. */
static void
pump_batch (ZotFrameChannel *self)
{
  g_assert (self->writing);

  while (self->vector_first < self->vector_count)
    {
      gssize written;
      gsize left;

      /* writev(2) itself: GUnixOutputStream polls before every write. */
      written = writev (self->output_fd,
                        (const struct iovec *) self->vectors + self->vector_first,
                        (int) (self->vector_count - self->vector_first));
      if (written < 0 && errno == EINTR)
        continue;

      if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        {
          if (self->write_source == NULL)
            {
              self->write_source = g_unix_fd_source_new (self->output_fd, G_IO_OUT);
              g_source_set_callback (self->write_source, G_SOURCE_FUNC (pipe_writable_cb), self, NULL);
              g_source_set_static_name (self->write_source, "[zot] pipe writable");
              g_source_attach (self->write_source, g_main_context_get_thread_default ());
            }
          /* Only what waits for the pipe needs a deadline. */
          update_deadline (self);
          return;
        }

      if (written < 0)
        {
          int errsv = errno;

          fail_writing (self, g_error_new_literal (G_IO_ERROR, g_io_error_from_errno (errsv),
                                                   g_strerror (errsv)));
          return;
        }

      left = (gsize) written;
      while (self->vector_first < self->vector_count &&
             left >= self->vectors[self->vector_first].size)
        left -= self->vectors[self->vector_first++].size;

      if (left > 0)
        {
          GOutputVector *vector = &self->vectors[self->vector_first];

          vector->buffer = (const guint8 *) vector->buffer + left;
          vector->size -= left;
        }
    }

  zot_clear_source (&self->write_source);
  self->writing = FALSE;
  _zot_frame_channel_clear_batch (self);
  batch_written (self);
}

static void
start_write (ZotFrameChannel *self)
{
  guint n;

  g_assert (!self->writing);
  g_assert (self->queue.length > 0);

  disarm_flush (self);
  n = MIN (self->queue.length, MAX_BATCH_VECTORS);
  if (self->batch == NULL)
    self->batch = g_ptr_array_new ();
  self->vectors = g_renew (GOutputVector, self->vectors, n);

  for (guint i = 0; i < n; i++)
    {
      QueuedFrame *frame = g_queue_pop_head_link (&self->queue)->data;
      gsize size;

      self->vectors[i].buffer = g_bytes_get_data (frame->bytes, &size);
      self->vectors[i].size = size;
      self->queued_bytes -= size - 1;
      if (i > 0)
        self->batch_extra_bytes += size - 1;
      g_ptr_array_add (self->batch, frame);
    }

  self->writing = TRUE;

  /* Write at once what the pipe takes: no main loop turn between queueing
   * a frame and the extension seeing it. Only the rest waits for room. */
  if (self->nonblocking)
    {
      self->vector_first = 0;
      self->vector_count = n;
      pump_batch (self);
      return;
    }

  update_deadline (self);
  g_output_stream_writev_all_async (self->output,
                                    self->vectors,
                                    n,
                                    G_PRIORITY_DEFAULT,
                                    self->cancellable,
                                    write_cb,
                                    g_object_ref (self));
}

static guint
waiting_frames (ZotFrameChannel *self)
{
  if (self->writing)
    return self->queue.length + self->batch->len - 1;
  return self->queue.length > 0 ? self->queue.length - 1 : 0;
}

static gsize
waiting_bytes (ZotFrameChannel *self)
{
  QueuedFrame *head;

  if (self->writing)
    return self->queued_bytes + self->batch_extra_bytes;

  head = g_queue_peek_head (&self->queue);
  if (head == NULL)
    return 0;
  return self->queued_bytes - (g_bytes_get_size (head->bytes) - 1);
}

/* One frame counts as the one in flight (the head of a coalesced batch,
 * or of the queue while its write waits for the end of the turn); the
 * rest count against the queue's bound. */
static gboolean
over_bound (ZotFrameChannel *self,
            gsize            length)
{
  return (self->writing || self->queue.length > 0) &&
         (waiting_frames (self) + 1 > ZOT_QUEUE_MAX_FRAMES ||
          waiting_bytes (self) + length > ZOT_QUEUE_MAX_BYTES);
}

void
_zot_frame_channel_clear_flush_source (ZotFrameChannel *self)
{
  self->flush_armed = FALSE;
  zot_clear_source (&self->flush_source);
}

static gboolean flush_cb (gpointer user_data);

/* The flush source stays attached for the channel's life, disarmed between
 * batches: an idle source per turn cost a set-up and a tear-down for every
 * batch of events. */
static void
arm_flush (ZotFrameChannel *self)
{
  if (self->flush_source == NULL)
    self->flush_source = zot_armed_source_new (flush_cb, self, G_PRIORITY_HIGH, "[zot] coalesced write");

  if (!self->flush_armed)
    {
      self->flush_armed = TRUE;
      zot_armed_source_set_due (self->flush_source, ZOT_ARMED_SOURCE_NOW);
    }
}

static void
disarm_flush (ZotFrameChannel *self)
{
  if (self->flush_armed)
    {
      self->flush_armed = FALSE;
      zot_armed_source_set_due (self->flush_source, ZOT_ARMED_SOURCE_DISARMED);
    }
}

static gboolean
flush_cb (gpointer user_data)
{
  ZotFrameChannel *self = user_data;

  disarm_flush (self);
  if (!self->closed && !self->writing && self->queue.length > 0)
    start_write (self);
  return G_SOURCE_CONTINUE;
}

static gboolean
enqueue (ZotFrameChannel  *self,
         GBytes           *bytes,
         gsize             length,
         ZotFrameFlags     flags,
         GError          **error)
{
  QueuedFrame *frame;

  if (self->closed || self->close_output_requested || self->write_error != NULL)
    {
      g_set_error_literal (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED,
                           _("the extension's input is closed"));
      return FALSE;
    }

  if (length > ZOT_FRAME_MAX_BYTES)
    {
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE,
                   _("refusing to send a %zu-byte frame; the limit is %zu"),
                   (size_t) length, (size_t) ZOT_FRAME_MAX_BYTES);
      return FALSE;
    }

  /* The bound counts frames the extension has not taken (PROTOCOL.md §6):
   * before it is reached, what the pipe has room for goes into it, so a
   * batch of events produced in one go never disconnects a reader. */
  if (self->nonblocking && over_bound (self, length))
    {
      if (self->writing)
        pump_batch (self);
      else if (self->queue.length > 0)
        start_write (self);

      if (self->closed)
        {
          g_set_error_literal (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED,
                               _("the extension's input is closed"));
          return FALSE;
        }
    }

  if (over_bound (self, length))
    {
      g_autoptr(GError) overflow = NULL;

      overflow = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW,
                              _("the extension is not reading its input: more than %u frames or %u MiB queued; disconnected"),
                              ZOT_QUEUE_MAX_FRAMES, (guint) (ZOT_QUEUE_MAX_BYTES / (1024 * 1024)));
      if (error != NULL)
        *error = g_error_copy (overflow);
      _zot_frame_channel_close_with_error (self, g_steal_pointer (&overflow));
      return FALSE;
    }

  if G_UNLIKELY (self->trace)
    {
      g_autofree char *copy = g_strndup (g_bytes_get_data (bytes, NULL), length);
      g_signal_emit (self, _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_TRAFFIC], 0, ZOT_FRAME_DIRECTION_OUT, copy);
    }

  self->counts.frames_out++;
  self->counts.bytes_out += length + 1;

  frame = queued_frame_new (self);
  frame->bytes = g_bytes_ref (bytes);
  frame->is_request = (flags & ZOT_FRAME_REQUEST) != 0;
  /* Only requests have a deadline, so only they need the clock. */
  frame->enqueued_at = frame->is_request ? g_get_monotonic_time () : 0;

  frame->link.data = frame;
  frame->link.prev = frame->link.next = NULL;
  g_queue_push_tail_link (&self->queue, &frame->link);
  self->queued_bytes += length;

  if (self->writing)
    {
      if (frame->is_request)
        update_deadline (self);
    }
  else if (frame->is_request || (flags & ZOT_FRAME_NOW) != 0)
    {
      /* A request goes out at once, with whatever queued before it. */
      start_write (self);
    }
  else
    {
      /* Notifications of one main loop turn leave in one write. */
      arm_flush (self);
    }

  return TRUE;
}

/**
 * zot_frame_channel_send_line:
 * @line: one serialized frame, without a newline
 *
 * Queues a frame. Never waits: when the queue is past its bound the channel
 * is closed with %ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW, since dropping a frame
 * silently and going on would lie to the extension.
 */
gboolean
zot_frame_channel_send_line (ZotFrameChannel  *self,
                             const char       *line,
                             gsize             length,
                             ZotFrameFlags     flags,
                             GError          **error)
{
  g_autoptr(GBytes) bytes = NULL;
  char *data;

  g_return_val_if_fail (ZOT_IS_FRAME_CHANNEL (self), FALSE);
  g_return_val_if_fail (line != NULL, FALSE);

  if (length > ZOT_FRAME_MAX_BYTES || self->closed)
    return enqueue (self, NULL, length, flags, error);

  data = g_malloc (length + 1);
  memcpy (data, line, length);
  data[length] = '\n';
  bytes = g_bytes_new_take (data, length + 1);

  return enqueue (self, bytes, length, flags, error);
}

/**
 * zot_frame_channel_send_bytes:
 * @bytes: one serialized frame, ending with its newline
 *
 * Like zot_frame_channel_send_line(), without copying: one event fanned
 * out to many extensions shares one buffer.
 */
gboolean
zot_frame_channel_send_bytes (ZotFrameChannel  *self,
                              GBytes           *bytes,
                              ZotFrameFlags     flags,
                              GError          **error)
{
  gsize size = 0;
  const char *data;

  g_return_val_if_fail (ZOT_IS_FRAME_CHANNEL (self), FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  data = g_bytes_get_data (bytes, &size);
  g_return_val_if_fail (size > 0 && data[size - 1] == '\n', FALSE);

  return enqueue (self, bytes, size - 1, flags, error);
}

gboolean
zot_frame_channel_send (ZotFrameChannel  *self,
                        JsonObject       *frame,
                        ZotFrameFlags     flags,
                        GError          **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GString *line;
  gsize length;

  g_return_val_if_fail (ZOT_IS_FRAME_CHANNEL (self), FALSE);
  g_return_val_if_fail (frame != NULL, FALSE);

  /* Serialized straight into the buffer that is queued: no second copy. */
  if (self->generator == NULL)
    self->generator = json_generator_new ();
  node = json_node_init_object (json_node_alloc (), frame);
  json_generator_set_root (self->generator, node);
  line = g_string_sized_new (256);
  json_generator_to_gstring (self->generator, line);
  json_generator_set_root (self->generator, NULL);

  /* json-glib escapes control characters, so the line holds no newline. */
  length = line->len;
  g_string_append_c (line, '\n');
  bytes = g_string_free_to_bytes (line);

  return enqueue (self, bytes, length, flags, error);
}

/**
 * zot_frame_channel_flush_async:
 *
 * Completes once everything queued so far has been written, or fails when
 * the channel closes first. Used to drain events before `shutdown`.
 */
void
zot_frame_channel_flush_async (ZotFrameChannel     *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_frame_channel_flush_async);

  if (self->closed)
    {
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED,
                               _("the channel is closed"));
      return;
    }

  if (self->write_error != NULL)
    {
      g_task_return_error (task, g_error_copy (self->write_error));
      return;
    }

  if (!self->writing && self->queue.length == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  g_queue_push_tail (&self->flush_waiters, g_steal_pointer (&task));
}

gboolean
zot_frame_channel_flush_finish (ZotFrameChannel  *self,
                                GAsyncResult     *result,
                                GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * zot_frame_channel_close_output:
 *
 * Closes the peer's input once the queue has drained; reading goes on so
 * that a final reply can still arrive.
 */
void
zot_frame_channel_close_output (ZotFrameChannel *self)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));

  self->close_output_requested = TRUE;
  if (!self->closed)
    maybe_close_output (self);
}

guint
zot_frame_channel_get_queued_frames (ZotFrameChannel *self)
{
  g_return_val_if_fail (ZOT_IS_FRAME_CHANNEL (self), 0);

  /* Frames not yet handed to a write; the head of the queue counts as in
   * flight while its write waits for the end of the turn. */
  if (self->writing)
    return self->queue.length;
  return self->queue.length > 0 ? self->queue.length - 1 : 0;
}

gsize
zot_frame_channel_get_queued_bytes (ZotFrameChannel *self)
{
  g_return_val_if_fail (ZOT_IS_FRAME_CHANNEL (self), 0);

  if (self->writing)
    return self->queued_bytes;
  return waiting_bytes (self);
}

/* For finalize: the queue, the batch and the kept records. */
void
_zot_frame_channel_free_queue (ZotFrameChannel *self)
{
  _zot_frame_channel_clear_batch (self);
  _zot_frame_channel_clear_queue (self);
  g_clear_pointer (&self->batch, g_ptr_array_unref);
  g_clear_pointer (&self->vectors, g_free);
  while (self->spare_frames != NULL)
    {
      QueuedFrame *frame = self->spare_frames->data;

      self->spare_frames = self->spare_frames->next;
      g_free (frame);
    }

}
