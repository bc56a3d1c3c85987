#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  ZOT_FRAME_DIRECTION_IN,
  ZOT_FRAME_DIRECTION_OUT,
} ZotFrameDirection;

/**
 * ZotFrameFlags:
 * @ZOT_FRAME_NONE: a notification; it may wait in the queue
 * @ZOT_FRAME_REQUEST: a request whose write is bounded by the write deadline
 * @ZOT_FRAME_NOW: a notification someone is waiting for: it goes out at
 *   once, with whatever queued before it, rather than at the end of the
 *   main loop turn; like a notification it has no write deadline
 */
typedef enum
{
  ZOT_FRAME_NONE    = 0,
  ZOT_FRAME_REQUEST = 1 << 0,
  ZOT_FRAME_NOW     = 1 << 1,
} ZotFrameFlags;

/**
 * ZotFrameCounts:
 * @frames_in: lines read, empty ones aside (malformed ones included)
 * @bytes_in: their bytes, newlines included
 * @frames_out: frames queued to be written
 * @bytes_out: their bytes, newlines included
 */
typedef struct
{
  guint64 frames_in;
  guint64 bytes_in;
  guint64 frames_out;
  guint64 bytes_out;
} ZotFrameCounts;

#define ZOT_TYPE_FRAME_CHANNEL (zot_frame_channel_get_type ())
G_DECLARE_FINAL_TYPE (ZotFrameChannel, zot_frame_channel, ZOT, FRAME_CHANNEL, GObject)

ZotFrameChannel *zot_frame_channel_new              (GInputStream         *input,
                                                     GOutputStream        *output);
void             zot_frame_channel_start            (ZotFrameChannel      *self);
gboolean         zot_frame_channel_send             (ZotFrameChannel      *self,
                                                     JsonObject           *frame,
                                                     ZotFrameFlags         flags,
                                                     GError              **error);
gboolean         zot_frame_channel_send_line        (ZotFrameChannel      *self,
                                                     const char           *line,
                                                     gsize                 length,
                                                     ZotFrameFlags         flags,
                                                     GError              **error);
gboolean         zot_frame_channel_send_bytes       (ZotFrameChannel      *self,
                                                     GBytes               *bytes,
                                                     ZotFrameFlags         flags,
                                                     GError              **error);
void             zot_frame_channel_flush_async      (ZotFrameChannel      *self,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
gboolean         zot_frame_channel_flush_finish     (ZotFrameChannel      *self,
                                                     GAsyncResult         *result,
                                                     GError              **error);
void             zot_frame_channel_close_output     (ZotFrameChannel      *self);
void             zot_frame_channel_close            (ZotFrameChannel      *self);
void             zot_frame_channel_set_skip_oversized (ZotFrameChannel *self,
                                                       gboolean         skip);
gboolean         zot_frame_channel_is_closed        (ZotFrameChannel      *self);
guint            zot_frame_channel_get_queued_frames (ZotFrameChannel     *self);
gsize            zot_frame_channel_get_queued_bytes (ZotFrameChannel      *self);
void             zot_frame_channel_get_counts       (ZotFrameChannel      *self,
                                                     ZotFrameCounts       *counts);
void             zot_frame_channel_set_trace        (ZotFrameChannel      *self,
                                                     gboolean              trace);

char            *zot_frame_excerpt                  (const char           *data,
                                                     gsize                 length);

G_END_DECLS
