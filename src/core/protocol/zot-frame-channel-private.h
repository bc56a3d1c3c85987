#pragma once

#include "zot-frame-channel.h"

G_BEGIN_DECLS

/* Test-only: read lines up to @max_bytes (at most ZOT_FRAME_MAX_BYTES)
 * instead of ZOT_FRAME_MAX_BYTES; what happens past the cap is the same. */
void _zot_frame_channel_set_max_frame_bytes_for_testing (ZotFrameChannel *self,
                                                         gsize            max_bytes);

G_END_DECLS
