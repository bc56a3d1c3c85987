/* zot-transcript-view.h — the scrolling list that shows the transcript.
 *
 * A GtkScrollable that shows a GListModel of ZotTranscriptItem as
 * ZotTranscriptRow widgets, making rows only for the items in view and
 * keeping a bounded number of them bound to their items when they scroll
 * away. zot-transcript-view.c says why it is not a GtkListView.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-transcript-item.h"

G_BEGIN_DECLS

#define ZOT_TYPE_TRANSCRIPT_VIEW (zot_transcript_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotTranscriptView, zot_transcript_view, ZOT, TRANSCRIPT_VIEW, GtkWidget)

/* Called each time a row is bound to an item, to mark it. */
typedef void (*ZotTranscriptViewBindFunc) (GtkWidget         *row,
                                           ZotTranscriptItem *item,
                                           gpointer           user_data);

GtkWidget *zot_transcript_view_new                 (void);
void       zot_transcript_view_set_model           (ZotTranscriptView         *self,
                                                    GListModel                *model);
void       zot_transcript_view_set_bind_func       (ZotTranscriptView         *self,
                                                    ZotTranscriptViewBindFunc  func,
                                                    gpointer                   user_data);
void       zot_transcript_view_scroll_to           (ZotTranscriptView         *self,
                                                    guint                      position,
                                                    double                     page_fraction);
void       zot_transcript_view_scroll_to_end       (ZotTranscriptView         *self);
gboolean   zot_transcript_view_get_at_end          (ZotTranscriptView         *self);
GtkWidget *zot_transcript_view_get_shown_row       (ZotTranscriptView         *self,
                                                    ZotTranscriptItem         *item);
GtkWidget *zot_transcript_view_peek_row            (ZotTranscriptView         *self,
                                                    ZotTranscriptItem         *item);
guint      zot_transcript_view_get_n_rows_created  (ZotTranscriptView         *self);
guint      zot_transcript_view_get_n_rows_shown    (ZotTranscriptView         *self);

G_END_DECLS
