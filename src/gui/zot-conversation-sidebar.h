/* zot-conversation-sidebar.h — the project's stored conversations. */
#pragma once

#include <gtk/gtk.h>

#include "zot-conversation-index.h"

G_BEGIN_DECLS

#define ZOT_TYPE_CONVERSATION_SIDEBAR (zot_conversation_sidebar_get_type ())
G_DECLARE_FINAL_TYPE (ZotConversationSidebar, zot_conversation_sidebar, ZOT, CONVERSATION_SIDEBAR, GtkWidget)

GtkWidget            *zot_conversation_sidebar_new              (void);
void                  zot_conversation_sidebar_set_index        (ZotConversationSidebar *self,
                                                                 ZotConversationIndex   *index);
ZotConversationIndex *zot_conversation_sidebar_get_index        (ZotConversationSidebar *self);
void                  zot_conversation_sidebar_set_current_path (ZotConversationSidebar *self,
                                                                 const char             *path);
void                  zot_conversation_sidebar_set_search       (ZotConversationSidebar *self,
                                                                 const char             *text);
GListModel           *zot_conversation_sidebar_get_shown        (ZotConversationSidebar *self);
gboolean              zot_conversation_sidebar_get_searching    (ZotConversationSidebar *self);
void                  zot_conversation_sidebar_rename           (ZotConversationSidebar *self,
                                                                 const char             *path,
                                                                 const char             *title);
void                  zot_conversation_sidebar_trash            (ZotConversationSidebar *self,
                                                                 const char             *path);

G_END_DECLS
