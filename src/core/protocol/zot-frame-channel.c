/* zot-frame-channel.c — newline-delimited JSON over a pair of GIO streams.
 *
 * The reader enforces the frame cap while the line is still arriving, so a
 * peer that never sends a newline cannot make the host buffer more than
 * ZOT_FRAME_MAX_BYTES. The writer coalesces whatever is queued into one
 * writev, which keeps event fan-out at one system call per extension per
 * main loop iteration instead of one per frame.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <gio/gfiledescriptorbased.h>
#include <string.h>

#include "zot-armed-source.h"
#include "zot-error.h"
#include "zot-frame-channel-private.h"
#include "zot-limits.h"
#include "zot-json.h"

/* The vectors go to writev(2) as they are. */
G_STATIC_ASSERT (sizeof (GOutputVector) == sizeof (struct iovec));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GOutputVector, buffer) == G_STRUCT_OFFSET (struct iovec, iov_base));
G_STATIC_ASSERT (G_STRUCT_OFFSET (GOutputVector, size) == G_STRUCT_OFFSET (struct iovec, iov_len));

#define READ_CHUNK_SIZE   (256 * 1024)
#define PIPE_SIZE         (1024 * 1024)
#define MAX_BATCH_VECTORS 1024

/* Below GTK's redraw priority (G_PRIORITY_HIGH_IDLE + 20): an extension
 * that keeps its pipe full would otherwise keep the window from ever
 * painting again. Input events and timers still come first. */
#define READ_PRIORITY     G_PRIORITY_DEFAULT_IDLE

/* The queue link is part of the record: one allocation per frame and
 * subscriber, which is what event fan-out pays for. */
typedef struct
{
  GList     link;
  GBytes   *bytes;
  gint64    enqueued_at;
  gboolean  is_request;
} QueuedFrame;

struct _ZotFrameChannel
{
  GObject        parent_instance;

  GInputStream  *input;
  GOutputStream *output;
  GCancellable  *cancellable;
  JsonParser    *parser;
  JsonGenerator *generator;

  /* reading */
  GSource       *read_source;
  int            input_fd;
  int            input_fd_flags;   /* as found, restored on close; -1 when untouched */
  int            output_fd;
  guint8        *read_buffer;
  gsize          max_frame_bytes; /* ZOT_FRAME_MAX_BYTES but in the fuzzer */
  gsize          chunk_pos;      /* what of read_buffer is not handled yet */
  gsize          chunk_len;
  GSource       *resume_source;  /* handles the rest of a chunk next turn */
  gint64         turn;
  guint          turn_budget;
  GByteArray    *partial;

  /* writing */
  GQueue         queue;
  gsize          queued_bytes;
  gsize          batch_extra_bytes;
  GPtrArray     *batch;
  GList         *spare_frames;
  guint          n_spare_frames;
  GOutputVector *vectors;
  guint          vector_first;   /* own writer: the batch's first unwritten vector */
  guint          vector_count;
  GSource       *write_source;   /* own writer: waits for room in the pipe */
  GError        *write_error;    /* writing failed: closes at the end of the output */
  GSource       *write_error_source;
  GSource       *deadline;
  GSource       *flush_source;
  GQueue         flush_waiters;

  guint          started : 1;
  guint          reading : 1;
  guint          writing : 1;
  guint          closed : 1;
  guint          close_output_requested : 1;
  guint          output_closed : 1;
  guint          trace : 1;
  guint          nonblocking : 1;
  guint          flush_armed : 1;
  guint          in_reader : 1;
  guint          reader_stale : 1;
  guint          skip_oversized : 1;
  guint          discarding : 1;
};

enum {
  FRAME_RECEIVED,
  BAD_LINE,
  CLOSED,
  TRAFFIC,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotFrameChannel, zot_frame_channel, G_TYPE_OBJECT)

static void close_with_error (ZotFrameChannel *self,
                              GError          *error);
static void start_read       (ZotFrameChannel *self);
static void start_write      (ZotFrameChannel *self);
static void clear_flush_source (ZotFrameChannel *self);
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

static void
clear_queue (ZotFrameChannel *self)
{
  GList *link;

  while ((link = g_queue_pop_head_link (&self->queue)) != NULL)
    queued_frame_release (self, link->data);
}

/* The batch array stays allocated between writes; only its records go. */
static void
clear_batch (ZotFrameChannel *self)
{
  if (self->batch == NULL)
    return;

  for (guint i = 0; i < self->batch->len; i++)
    queued_frame_release (self, g_ptr_array_index (self->batch, i));
  g_ptr_array_set_size (self->batch, 0);
  self->batch_extra_bytes = 0;
}

/**
 * zot_frame_excerpt:
 *
 * Returns: a short, printable, valid UTF-8 excerpt of a line, for logs
 */
char *
zot_frame_excerpt (const char *data,
                   gsize       length)
{
  g_autofree char *valid = NULL;
  g_autofree char *head = NULL;
  gsize take = MIN (length, 120);

  valid = g_utf8_make_valid (data, (gssize) take);
  head = g_strescape (valid, "\xff");
  if (take < length)
    return g_strdup_printf ("%s… (%" G_GSIZE_FORMAT " bytes)", head, length);
  return g_steal_pointer (&head);
}

static void
emit_bad_line (ZotFrameChannel *self,
               const char      *data,
               gsize            length,
               const char      *reason)
{
  g_autofree char *excerpt = zot_frame_excerpt (data, length);
  g_autofree char *message = g_strdup_printf ("%s: %s", reason, excerpt);

  g_signal_emit (self, signals[BAD_LINE], 0, message);
}

static void
process_line (ZotFrameChannel *self,
              const char      *data,
              gsize            length)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  JsonObject *object;
  JsonNode *type;

  if (length > 0 && data[length - 1] == '\r')
    length--;
  if (length == 0)
    return;

  if G_UNLIKELY (self->trace)
    {
      g_autofree char *line = g_strndup (data, length);
      g_signal_emit (self, signals[TRAFFIC], 0, ZOT_FRAME_DIRECTION_IN, line);
    }

  /* json-glib checks UTF-8 itself; the check here only words the error. */
  if (!zot_json_parser_load (self->parser, data, (gssize) length, &error))
    {
      g_autofree char *reason = NULL;

      if (!g_utf8_validate_len (data, length, NULL))
        reason = g_strdup (_("line is not valid UTF-8, skipped"));
      else
        reason = g_strdup_printf (_("line is not JSON (%s), skipped"), error->message);
      emit_bad_line (self, data, length, reason);
      return;
    }

  root = json_parser_get_root (self->parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      emit_bad_line (self, data, length, _("line is not a JSON object, skipped"));
      return;
    }

  object = json_node_get_object (root);
  type = json_object_get_member (object, "type");
  if (type == NULL || !JSON_NODE_HOLDS_VALUE (type) ||
      json_node_get_value_type (type) != G_TYPE_STRING)
    {
      emit_bad_line (self, data, length, _("frame has no string \"type\", skipped"));
      return;
    }

  /* Keep the object alive across the emission even if the parser is reused
   * by a handler that feeds the channel synchronously. */
  json_object_ref (object);
  g_signal_emit (self, signals[FRAME_RECEIVED], 0, object);
  json_object_unref (object);
}

static void
frame_too_large (ZotFrameChannel *self)
{
  close_with_error (self,
                    g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE,
                                 _("a frame exceeded the %u MiB limit; the read loop was disconnected"),
                                 (guint) (ZOT_FRAME_MAX_BYTES / (1024 * 1024))));
}

/* Handles complete lines of @data until @budget runs out; keeps a line's
 * beginning in self->partial. Returns how much of @data it used. */
static void
skip_too_large (ZotFrameChannel *self)
{
  g_autofree char *message = NULL;

  message = g_strdup_printf (_("a line exceeded the %u MiB limit, skipped"),
                             (guint) (ZOT_FRAME_MAX_BYTES / (1024 * 1024)));
  g_byte_array_set_size (self->partial, 0);
  self->discarding = TRUE;
  g_signal_emit (self, signals[BAD_LINE], 0, message);
}

static gsize
process_chunk (ZotFrameChannel *self,
               const guint8    *data,
               gsize            length,
               guint           *budget)
{
  gsize pos = 0;

  while (pos < length && !self->closed && *budget > 0)
    {
      const guint8 *newline = memchr (data + pos, '\n', length - pos);
      gsize segment;

      if (self->discarding)
        {
          /* The rest of an over-long line that was skipped. */
          if (newline == NULL)
            return length;
          self->discarding = FALSE;
          pos = (gsize) (newline - data) + 1;
          continue;
        }

      if (newline == NULL)
        {
          segment = length - pos;
          if (self->partial->len + segment > self->max_frame_bytes)
            {
              if (self->skip_oversized)
                {
                  skip_too_large (self);
                  continue;
                }
              frame_too_large (self);
              return length;
            }
          g_byte_array_append (self->partial, data + pos, (guint) segment);
          return length;
        }

      segment = (gsize) (newline - (data + pos));

      if (self->partial->len + segment > self->max_frame_bytes)
        {
          if (self->skip_oversized)
            {
              (*budget)--;
              skip_too_large (self);
              continue;
            }
          frame_too_large (self);
          return length;
        }

      (*budget)--;
      if (self->partial->len == 0)
        {
          /* The common case: the whole line is in this chunk, parse it in place. */
          process_line (self, (const char *) data + pos, segment);
        }
      else
        {
          g_autoptr(GByteArray) line = NULL;

          g_byte_array_append (self->partial, data + pos, (guint) segment);
          line = g_steal_pointer (&self->partial);
          self->partial = g_byte_array_new ();
          process_line (self, (const char *) line->data, line->len);
        }

      pos += segment + 1;
    }

  return pos;
}

static gboolean resume_cb (gpointer user_data);

/* Handles up to ZOT_FRAMES_PER_TURN lines of the buffered chunk; what is
 * left waits for the next main loop turn, through the resume source, so
 * that a flood cannot keep the loop from redrawing. */
static void
drain_chunk (ZotFrameChannel *self)
{
  GSource *current = g_main_current_source ();
  gint64 turn = current != NULL ? g_source_get_time (current) : g_get_monotonic_time ();

  /* The reader and the resume source may both run in one turn: they share
   * the turn's budget, told apart by the time GLib caches for a turn. */
  if (turn != self->turn)
    {
      self->turn = turn;
      self->turn_budget = ZOT_FRAMES_PER_TURN;
    }

  if (self->chunk_pos < self->chunk_len)
    self->chunk_pos += process_chunk (self, self->read_buffer + self->chunk_pos,
                                      self->chunk_len - self->chunk_pos, &self->turn_budget);

  if (self->chunk_pos >= self->chunk_len || self->closed)
    {
      self->chunk_pos = self->chunk_len = 0;
      if (self->resume_source != NULL)
        zot_armed_source_set_due (self->resume_source, ZOT_ARMED_SOURCE_DISARMED);
      return;
    }

  if (self->resume_source == NULL)
    self->resume_source = zot_armed_source_new (resume_cb, self, READ_PRIORITY,
                                                "[zot] frame reader, rest of a read");
  zot_armed_source_set_due (self->resume_source, ZOT_ARMED_SOURCE_NOW);
}

/* What a read returned: EOF, an error or a chunk. Returns whether to keep
 * reading. */
static gboolean
handle_read (ZotFrameChannel *self,
             gssize           n_read,
             GError          *error)
{
  if (n_read < 0)
    {
      g_prefix_error (&error, _("reading failed: "));
      close_with_error (self, error);
      return FALSE;
    }

  if (n_read == 0)
    {
      if (self->partial->len > 0)
        emit_bad_line (self, (const char *) self->partial->data, self->partial->len,
                       _("incomplete line at end of stream, discarded"));
      /* A broken pipe was the extension going away; its end says more. */
      if (self->write_error != NULL &&
          !g_error_matches (self->write_error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE))
        close_with_error (self, g_steal_pointer (&self->write_error));
      else
        close_with_error (self, g_error_new_literal (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED,
                                                     _("the extension closed its output")));
      return FALSE;
    }

  self->chunk_pos = 0;
  self->chunk_len = (gsize) n_read;
  drain_chunk (self);
  return !self->closed;
}

static void attach_reader (ZotFrameChannel *self);

/* A pipe is read through one source that lives as long as the channel:
 * each wake-up is a single read(2), where an asynchronous read would set up
 * a task and a new source per chunk and poll once more before each. The
 * source only fires when the descriptor is readable, so the read returns at
 * once with what the pipe holds, or 0 at the end. */
/* One read(2), or the rest of the last one. Returns whether to keep
 * reading. */
static gboolean
read_some (ZotFrameChannel *self)
{
  GError *error = NULL;
  gssize n_read;

  /* The rest of the last read comes before anything new. */
  if (self->chunk_len > 0)
    {
      drain_chunk (self);
      return !self->closed;
    }

  if (self->input_fd >= 0)
    {
      /* read(2) itself: GUnixInputStream polls before every read. */
      do
        n_read = read (self->input_fd, self->read_buffer, READ_CHUNK_SIZE);
      while (n_read < 0 && errno == EINTR);

      if (n_read < 0)
        {
          int errsv = errno;

          if (errsv == EAGAIN || errsv == EWOULDBLOCK)
            return TRUE;
          g_set_error_literal (&error, G_IO_ERROR, g_io_error_from_errno (errsv), g_strerror (errsv));
        }
    }
  else
    {
      n_read = g_input_stream_read (self->input, self->read_buffer, READ_CHUNK_SIZE, NULL, &error);
      if (n_read < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          g_error_free (error);
          return TRUE;
        }
    }

  return handle_read (self, n_read, error);
}

/* Ends a call of the reader: replaces the fd source if a nested main loop
 * dropped it. Returns what the fd source's callback returns. */
static gboolean
end_reading (ZotFrameChannel *self,
             gboolean         more)
{
  self->in_reader = FALSE;

  if (self->reader_stale)
    {
      self->reader_stale = FALSE;
      g_clear_pointer (&self->read_source, g_source_unref);
      if (more && !self->closed)
        attach_reader (self);
      return G_SOURCE_REMOVE;
    }

  return more ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* A pipe is read through one source that lives as long as the channel:
 * each wake-up is a single read(2), where an asynchronous read would set up
 * a task and a new source per chunk and poll once more before each. The
 * source only fires when the descriptor is readable, so the read returns at
 * once with what the pipe holds, or 0 at the end. */
static gboolean
read_ready (ZotFrameChannel *self)
{
  if (self->closed)
    return G_SOURCE_REMOVE;

  /* The source may recurse (see attach_reader); if a frame handler runs a
   * nested main loop, this source must not read again while the outer call
   * is still parsing the buffer. It goes away, and a new one is attached
   * when the outer call is done, so frames keep their order and the nested
   * loop does not spin on a readable pipe. */
  if (self->in_reader)
    {
      self->reader_stale = TRUE;
      return G_SOURCE_REMOVE;
    }

  self->in_reader = TRUE;
  return end_reading (self, read_some (self));
}

/* The rest of a read, when the pipe itself has nothing new to wake the
 * reader with. */
static gboolean
resume_cb (gpointer user_data)
{
  ZotFrameChannel *self = user_data;
  gboolean more;

  /* In a nested loop: the outer call re-arms this when it is done. */
  if (self->in_reader || self->closed)
    {
      zot_armed_source_set_due (self->resume_source, ZOT_ARMED_SOURCE_DISARMED);
      return G_SOURCE_CONTINUE;
    }

  g_object_ref (self);
  self->in_reader = TRUE;
  drain_chunk (self);
  more = !self->closed;
  (void) end_reading (self, more);

  /* An asynchronous reader waits for the chunk to be handled. */
  if (more && !self->closed && self->chunk_len == 0 && self->read_source == NULL && !self->reading)
    start_read (self);

  g_object_unref (self);
  return G_SOURCE_CONTINUE;
}

static gboolean
fd_readable_cb (int           fd,
                GIOCondition  condition,
                gpointer      user_data)
{
  return read_ready (user_data);
}

static gboolean
stream_readable_cb (GObject  *stream,
                    gpointer  user_data)
{
  return read_ready (user_data);
}

/* GLib blocks a source while dispatching it unless it may recurse, and
 * blocking takes its descriptor out of the poll set and puts it back, each
 * time writing to the context's wakeup fd: two more system calls and one
 * more poll for every read. A pollable stream's source dispatches a child
 * source that is blocked in the same way, so a pipe gets a plain fd source
 * of its own. read_ready() guards against recursion itself. */
static void
attach_reader (ZotFrameChannel *self)
{
  if (self->input_fd >= 0)
    {
      self->read_source = g_unix_fd_source_new (self->input_fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
      g_source_set_callback (self->read_source, G_SOURCE_FUNC (fd_readable_cb),
                             g_object_ref (self), g_object_unref);
    }
  else
    {
      self->read_source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (self->input), NULL);
      g_source_set_callback (self->read_source, G_SOURCE_FUNC (stream_readable_cb),
                             g_object_ref (self), g_object_unref);
    }

  g_source_set_static_name (self->read_source, "[zot] frame reader");
  g_source_set_priority (self->read_source, READ_PRIORITY);
  g_source_set_can_recurse (self->read_source, TRUE);
  g_source_attach (self->read_source, g_main_context_get_thread_default ());
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(ZotFrameChannel) self = user_data;
  GError *error = NULL;
  gssize n_read;

  n_read = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);
  self->reading = FALSE;

  if (self->closed)
    {
      g_clear_error (&error);
      g_input_stream_close (self->input, NULL, NULL);
      return;
    }

  /* With a chunk still to handle, resume_cb() starts the next read. */
  if (handle_read (self, n_read, error) && self->chunk_len == 0)
    start_read (self);
}

static void
start_read (ZotFrameChannel *self)
{
  g_assert (!self->reading);

  if (G_IS_POLLABLE_INPUT_STREAM (self->input) &&
      g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (self->input)))
    {
      attach_reader (self);
      return;
    }

  self->reading = TRUE;
  g_input_stream_read_async (self->input,
                             self->read_buffer,
                             READ_CHUNK_SIZE,
                             READ_PRIORITY,
                             self->cancellable,
                             read_cb,
                             g_object_ref (self));
}

static void
complete_flush_waiters (ZotFrameChannel *self,
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
  close_with_error (self,
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
  clear_batch (self);

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
  complete_flush_waiters (self, NULL);
}

static void pump_batch (ZotFrameChannel *self);
static void clear_write_source (ZotFrameChannel *self);

static gboolean
write_error_timeout_cb (gpointer user_data)
{
  ZotFrameChannel *self = user_data;

  g_clear_pointer (&self->write_error_source, g_source_unref);
  close_with_error (self, g_steal_pointer (&self->write_error));
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
      close_with_error (self, error);
      return;
    }

  self->write_error = error;
  clear_write_source (self);
  self->writing = FALSE;
  clear_batch (self);
  clear_queue (self);
  self->queued_bytes = 0;
  disarm_flush (self);
  update_deadline (self);
  if (!self->output_closed)
    {
      self->output_closed = TRUE;
      g_output_stream_close (self->output, NULL, NULL);
    }
  complete_flush_waiters (self, self->write_error);

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

static void
clear_write_source (ZotFrameChannel *self)
{
  if (self->write_source != NULL)
    {
      g_source_destroy (self->write_source);
      g_clear_pointer (&self->write_source, g_source_unref);
    }
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

  clear_write_source (self);
  self->writing = FALSE;
  clear_batch (self);
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

static void
close_with_error (ZotFrameChannel *self,
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

  clear_queue (self);
  self->queued_bytes = 0;
  clear_flush_source (self);
  g_clear_error (&self->write_error);
  if (self->write_error_source != NULL)
    {
      g_source_destroy (self->write_error_source);
      g_clear_pointer (&self->write_error_source, g_source_unref);
    }

  if (self->deadline != NULL)
    {
      g_source_destroy (self->deadline);
      g_clear_pointer (&self->deadline, g_source_unref);
    }

  if (self->read_source != NULL)
    {
      g_source_destroy (self->read_source);
      g_clear_pointer (&self->read_source, g_source_unref);
    }

  if (self->resume_source != NULL)
    {
      g_source_destroy (self->resume_source);
      g_clear_pointer (&self->resume_source, g_source_unref);
    }

  /* The own writer has no operation to cancel: its batch goes now. */
  if (self->writing && self->nonblocking)
    {
      clear_write_source (self);
      self->writing = FALSE;
      clear_batch (self);
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
    complete_flush_waiters (self, owned);
  else
    {
      g_autoptr(GError) closed = g_error_new_literal (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED,
                                                      _("the channel was closed"));
      complete_flush_waiters (self, closed);
    }

  g_signal_emit (self, signals[CLOSED], 0, owned);

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
      close_with_error (self, NULL);
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
  clear_batch (self);
  clear_queue (self);
  g_clear_pointer (&self->batch, g_ptr_array_unref);
  g_clear_pointer (&self->vectors, g_free);
  while (self->spare_frames != NULL)
    {
      QueuedFrame *frame = self->spare_frames->data;

      self->spare_frames = self->spare_frames->next;
      g_free (frame);
    }

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
  signals[FRAME_RECEIVED] =
    g_signal_new ("frame-received",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotFrameChannel::bad-line:
   * @message: why the line was skipped, with an excerpt
   */
  signals[BAD_LINE] =
    g_signal_new ("bad-line",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotFrameChannel::closed:
   * @error: (nullable): why, or %NULL when the owner closed the channel
   */
  signals[CLOSED] =
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
  signals[TRAFFIC] =
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

/**
 * zot_frame_channel_start:
 *
 * Starts the read loop. Frames arrive through #ZotFrameChannel::frame-received.
 */
void
zot_frame_channel_start (ZotFrameChannel *self)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));
  g_return_if_fail (!self->started);

  self->started = TRUE;
  self->read_buffer = g_malloc (READ_CHUNK_SIZE);

  if (!self->closed)
    start_read (self);
}

/**
 * zot_frame_channel_send_line:
 * @line: one serialized frame, without a newline
 *
 * Queues a frame. Never waits: when the queue is past its bound the channel
 * is closed with %ZOT_PROTOCOL_ERROR_QUEUE_OVERFLOW, since dropping a frame
 * silently and going on would lie to the extension.
 */
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

static void
clear_flush_source (ZotFrameChannel *self)
{
  self->flush_armed = FALSE;
  if (self->flush_source != NULL)
    {
      g_source_destroy (self->flush_source);
      g_clear_pointer (&self->flush_source, g_source_unref);
    }
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
                   _("refusing to send a %" G_GSIZE_FORMAT "-byte frame; the limit is %" G_GSIZE_FORMAT),
                   length, ZOT_FRAME_MAX_BYTES);
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
      close_with_error (self, g_steal_pointer (&overflow));
      return FALSE;
    }

  if G_UNLIKELY (self->trace)
    {
      g_autofree char *copy = g_strndup (g_bytes_get_data (bytes, NULL), length);
      g_signal_emit (self, signals[TRAFFIC], 0, ZOT_FRAME_DIRECTION_OUT, copy);
    }

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
  else if (frame->is_request)
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

void
zot_frame_channel_close (ZotFrameChannel *self)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));

  close_with_error (self, NULL);
}

/**
 * zot_frame_channel_set_skip_oversized:
 *
 * By default a line over %ZOT_FRAME_MAX_BYTES disconnects the read loop
 * (an extension that sends one is treated as crashed). A peer that is a
 * client to be answered, such as `zot rpc`'s, has the line skipped with a
 * bad-line instead, and the channel goes on with the next line.
 */
void
zot_frame_channel_set_skip_oversized (ZotFrameChannel *self,
                                      gboolean         skip)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));

  self->skip_oversized = !!skip;
}

gboolean
zot_frame_channel_is_closed (ZotFrameChannel *self)
{
  g_return_val_if_fail (ZOT_IS_FRAME_CHANNEL (self), TRUE);

  return self->closed;
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

void
zot_frame_channel_set_trace (ZotFrameChannel *self,
                             gboolean         trace)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));

  self->trace = !!trace;
}

/* A cap of a few hundred bytes lets the fuzzer reach the over-long line
 * paths with inputs of a few kilobytes rather than 4 MiB each. */
void
_zot_frame_channel_set_max_frame_bytes_for_testing (ZotFrameChannel *self,
                                                    gsize            max_bytes)
{
  g_return_if_fail (ZOT_IS_FRAME_CHANNEL (self));
  g_return_if_fail (max_bytes > 0 && max_bytes <= ZOT_FRAME_MAX_BYTES);

  self->max_frame_bytes = max_bytes;
}
