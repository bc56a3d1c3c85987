/* zot-transcript-private.h — the transcript's model and rows, for the
 * window's tests and the benchmark. */
#pragma once

#include "zot-transcript.h"
#include "zot-transcript-item.h"
#include "zot-session.h"
#include "zot-tool-registry.h"

G_BEGIN_DECLS

/* An opened conversation shows its last TRANSCRIPT_TAIL_ROWS rows in its
 * first frame, enough to fill a tall window, and the earlier ones from
 * the next frame on. GTK 4.8's list view makes a row widget for each of
 * up to 200 items around the one in view, so showing all of a long
 * conversation at once would make, measure and lay out 200 rows before
 * the first frame. */
#define TRANSCRIPT_TAIL_ROWS    24

/* Rows at most, in view or kept bound to their items out of view, to be
 * shown again without laying out their text again (zot-transcript.c says
 * why). The list view's range swings between 200 items before its anchor
 * and 200 after, 2 more each side: the rows kept cover all of that, for
 * any height of window and of rows. */
#define TRANSCRIPT_ROW_CACHE    420

/* zot-transcript-history.c: stored messages as rows. */
typedef struct
{
  ZotSession      *session;     /* nullable: whose journal nests calls */
  ZotToolRegistry *registry;    /* nullable: says where tools come from */
  GPtrArray       *items;       /* ZotTranscriptItem, out */
  GHashTable      *tools;       /* call id → ZotTranscriptItem, in and out */
} ZotHistoryBuilder;

void           _zot_history_builder_add           (ZotHistoryBuilder  *builder,
                                                   JsonObject         *message);
void           _zot_history_builder_add_session   (ZotHistoryBuilder  *builder);

void           _zot_transcript_append_items       (ZotTranscript      *self,
                                                   ZotTranscriptItem **items,
                                                   guint               n_items);
GListModel    *_zot_transcript_get_items          (ZotTranscript      *self);
guint          _zot_transcript_get_n_hidden       (ZotTranscript      *self);
guint          _zot_transcript_get_n_rows_created (ZotTranscript      *self);
GtkWidget     *_zot_transcript_get_row            (ZotTranscript      *self,
                                                   ZotTranscriptItem  *item);
GtkWidget     *_zot_transcript_peek_kept_row      (ZotTranscript      *self,
                                                   ZotTranscriptItem  *item);
GtkAdjustment *_zot_transcript_get_vadjustment    (ZotTranscript      *self);
void           _zot_transcript_show_match         (ZotTranscript      *self,
                                                   ZotTranscriptItem  *item);
ZotTranscriptItem *_zot_transcript_get_match      (ZotTranscript      *self);

G_END_DECLS
