/* zot-transcript-private.h — the transcript's model and rows, for the
 * window's tests and the benchmark. */
#pragma once

#include "zot-transcript.h"
#include "zot-transcript-item.h"

G_BEGIN_DECLS

void           _zot_transcript_append_items       (ZotTranscript      *self,
                                                   ZotTranscriptItem **items,
                                                   guint               n_items);
GListModel    *_zot_transcript_get_items          (ZotTranscript      *self);
guint          _zot_transcript_get_n_rows_created (ZotTranscript      *self);
GtkWidget     *_zot_transcript_get_row            (ZotTranscript      *self,
                                                   ZotTranscriptItem  *item);
GtkAdjustment *_zot_transcript_get_vadjustment    (ZotTranscript      *self);

G_END_DECLS
