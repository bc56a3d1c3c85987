/* zot-frame-channel-private.h — what the files of ZotFrameChannel share,
 * and a hook for tests.
 */
#pragma once

#include "zot-frame-channel.h"

G_BEGIN_DECLS

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

  /* what went each way, for the extension meter: a few adds per frame */
  ZotFrameCounts counts;

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

enum
{
  ZOT_FRAME_CHANNEL_FRAME_RECEIVED,
  ZOT_FRAME_CHANNEL_BAD_LINE,
  ZOT_FRAME_CHANNEL_CLOSED,
  ZOT_FRAME_CHANNEL_TRAFFIC,
  ZOT_FRAME_CHANNEL_N_SIGNALS
};

extern guint _zot_frame_channel_signals[ZOT_FRAME_CHANNEL_N_SIGNALS];

void _zot_frame_channel_close_with_error       (ZotFrameChannel *self,
                                                GError          *error);
void _zot_frame_channel_clear_queue            (ZotFrameChannel *self);
void _zot_frame_channel_clear_batch            (ZotFrameChannel *self);
void _zot_frame_channel_clear_flush_source     (ZotFrameChannel *self);
void _zot_frame_channel_complete_flush_waiters (ZotFrameChannel *self,
                                                const GError    *error);
void _zot_frame_channel_free_queue             (ZotFrameChannel *self);

/* Test-only: read lines up to @max_bytes (at most ZOT_FRAME_MAX_BYTES)
 * instead of ZOT_FRAME_MAX_BYTES; what happens past the cap is the same. */
void _zot_frame_channel_set_max_frame_bytes_for_testing (ZotFrameChannel *self,
                                                         gsize            max_bytes);

G_END_DECLS
