/* zot-frame-channel-read.c — the channel's reader: lines in, frames out.
 *
 * A pipe is read with read(2) from one source that lives as long as the
 * channel; other streams through their pollable source or asynchronous
 * reads. The frame cap is enforced while a line is still arriving, and at
 * most ZOT_FRAMES_PER_TURN lines are handled per main loop turn, so that a
 * flood cannot keep the window from redrawing. Each line becomes a
 * frame-received, or a bad-line saying why it was skipped.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <errno.h>
#include <unistd.h>
#include <string.h>

#include "zot-armed-source.h"
#include "zot-error.h"
#include "zot-frame-channel-private.h"
#include "zot-limits.h"
#include "zot-json.h"

#define READ_CHUNK_SIZE   (256 * 1024)

/* Below GTK's redraw priority (G_PRIORITY_HIGH_IDLE + 20): an extension
 * that keeps its pipe full would otherwise keep the window from ever
 * painting again. Input events and timers still come first. */
#define READ_PRIORITY     G_PRIORITY_DEFAULT_IDLE

static void start_read (ZotFrameChannel *self);

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

  g_signal_emit (self, _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_BAD_LINE], 0, message);
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

  if (length > 0)
    {
      self->counts.frames_in++;
      self->counts.bytes_in += length + 1;
    }
  if (length > 0 && data[length - 1] == '\r')
    length--;
  if (length == 0)
    return;

  if G_UNLIKELY (self->trace)
    {
      g_autofree char *line = g_strndup (data, length);
      g_signal_emit (self, _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_TRAFFIC], 0, ZOT_FRAME_DIRECTION_IN, line);
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
  g_signal_emit (self, _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_FRAME_RECEIVED], 0, object);
  json_object_unref (object);
}

static void
frame_too_large (ZotFrameChannel *self)
{
  _zot_frame_channel_close_with_error (self,
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
  g_signal_emit (self, _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_BAD_LINE], 0, message);
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
      /* Translators: put before the system's error message, as "reading failed: Broken pipe" */
      g_prefix_error (&error, _("reading failed: "));
      _zot_frame_channel_close_with_error (self, error);
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
        _zot_frame_channel_close_with_error (self, g_steal_pointer (&self->write_error));
      else
        _zot_frame_channel_close_with_error (self, g_error_new_literal (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED,
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
