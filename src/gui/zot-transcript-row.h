/* zot-transcript-row.h — the widget that shows one transcript item.
 *
 * The transcript's view makes a few of these and binds each to
 * whichever ZotTranscriptItem scrolls into view. A row follows its item's
 * notifications while bound (streamed text, a tool's result) and shows
 * nothing of a previous item once bound to another.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-transcript-item.h"

G_BEGIN_DECLS

#define ZOT_TYPE_TRANSCRIPT_ROW (zot_transcript_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotTranscriptRow, zot_transcript_row, ZOT, TRANSCRIPT_ROW, GtkWidget)

GtkWidget         *zot_transcript_row_new      (void);
void               zot_transcript_row_bind     (ZotTranscriptRow  *self,
                                                ZotTranscriptItem *item);
void               zot_transcript_row_unbind   (ZotTranscriptRow  *self);
ZotTranscriptItem *zot_transcript_row_get_item (ZotTranscriptRow  *self);

G_END_DECLS
