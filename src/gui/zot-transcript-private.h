/* zot-transcript-private.h — the transcript's model and rows, for the
 * window's tests and the benchmark. */
#pragma once

#include "zot-transcript.h"
#include "zot-transcript-item.h"
#include "zot-session.h"
#include "zot-tool-registry.h"
#include "zot-transcript-view.h"

G_BEGIN_DECLS

struct _ZotTranscript
{
  GtkWidget          parent_instance;

  GtkScrolledWindow *scrolled_window;
  ZotTranscriptView *view;

  GListStore        *head;             /* the startup item, when shown */
  GListStore        *items;            /* the conversation: ZotTranscriptItem */
  GListModel        *shown;            /* the startup item, then the conversation */
  ZotTranscriptItem *startup;

  ZotHost           *host;
  GSignalGroup      *host_signals;
  GSignalGroup      *agent_signals;
  GSignalGroup      *manager_signals;

  GHashTable        *tool_items;       /* call id → ZotTranscriptItem */
  ZotTranscriptItem *streaming;        /* the assistant message in flight */
  ZotTranscriptItem *retrying;         /* the retry whose wait lasts */

  ZotSession        *followed;         /* read-only: another process writes it */
  GFileMonitor      *follow_monitor;
  GCancellable      *follow_cancellable;
  guint              follow_source;
  gboolean           follow_reading;
  gboolean           follow_again;
  guint              n_shown;          /* stored messages shown, earlier ones included */

  ZotTranscriptItem *match;            /* the find bar's current match */
  char              *match_needle;     /* what it found, case folded */
  guint              match_index;      /* which of the match item's matches */

  guint              show_startup : 1;
};

/* Rows at most, in view or kept bound to their items out of view, to be
 * shown again without laying out their text again
 * (zot-transcript-view.c). Enough for many pages of rows above and below
 * the view, few enough that the rows of a long conversation stay a small
 * part of the window's memory. */
#define TRANSCRIPT_ROW_CACHE    200

/* Rows made ready between frames on each side of the page, so that a
 * scroll step finds them laid out (zot-transcript-view.c). */
#define TRANSCRIPT_PREFETCH_ROWS 3

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

/* zot-transcript-failures.c */
void           _zot_transcript_watch_load_failures (ZotTranscript     *self,
                                                    GSignalGroup      *manager_signals);

/* zot-transcript-retries.c */
void           _zot_transcript_watch_retries      (ZotTranscript      *self,
                                                   GSignalGroup       *agent_signals);
void           _zot_transcript_install_retry_action (GtkWidgetClass   *widget_class);

guint          _zot_transcript_get_n_rows_created (ZotTranscript      *self);
GtkWidget     *_zot_transcript_get_row            (ZotTranscript      *self,
                                                   ZotTranscriptItem  *item);
GtkWidget     *_zot_transcript_peek_kept_row      (ZotTranscript      *self,
                                                   ZotTranscriptItem  *item);
GtkAdjustment *_zot_transcript_get_vadjustment    (ZotTranscript      *self);
void           _zot_transcript_show_match         (ZotTranscript      *self,
                                                   ZotTranscriptItem  *item);
ZotTranscriptItem *_zot_transcript_get_match      (ZotTranscript      *self);
void           _zot_transcript_show_find          (ZotTranscript      *self,
                                                   const char         *needle,
                                                   ZotTranscriptItem  *item,
                                                   guint               index);

/* zot-transcript-match.c: the view's bind function. */
void           _zot_transcript_mark_row           (GtkWidget          *row,
                                                   ZotTranscriptItem  *item,
                                                   gpointer            user_data);

/* zot-transcript-follow.c */
void           _zot_transcript_show_session       (ZotTranscript      *self,
                                                   gboolean            clear);
void           _zot_transcript_stop_following     (ZotTranscript      *self);

G_END_DECLS
