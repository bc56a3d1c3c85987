/* zot-conversation-row.h — one stored conversation in the sidebar. */
#pragma once

#include <gtk/gtk.h>

#include "zot-conversation.h"

G_BEGIN_DECLS

#define ZOT_TYPE_CONVERSATION_ROW (zot_conversation_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotConversationRow, zot_conversation_row, ZOT, CONVERSATION_ROW, GtkWidget)

GtkWidget       *zot_conversation_row_new              (void);
ZotConversation *zot_conversation_row_get_conversation (ZotConversationRow *self);
void             zot_conversation_row_set_conversation (ZotConversationRow *self,
                                                        ZotConversation    *conversation);

const char         *zot_conversation_row_get_cost_text      (ZotConversationRow *self);
char               *zot_conversation_format_time            (gint64              modified);

G_END_DECLS
