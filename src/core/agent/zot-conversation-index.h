/* zot-conversation-index.h — the stored conversations of a directory.
 *
 * A GListModel of ZotConversation for the session files of one working
 * directory ($ZOT_HOME/sessions/<cwd-key>/<id>.jsonl), newest first or
 * largest first. Files are read on a worker thread, at most
 * ZOT_CONVERSATION_HEAD_BYTES each, and the list follows the directory
 * (a GFileMonitor), so conversations that other zot processes write
 * appear, grow and go as they do.
 *
 * A conversation's title is the name the user gave it, kept in a small
 * file beside the session (`<id>.title`, UTF-8, one line), else the
 * first line of its first prompt. The session file itself is never
 * written here: another process may hold it.
 */
#pragma once

#include <gio/gio.h>

#include "zot-conversation.h"

G_BEGIN_DECLS

typedef enum
{
  ZOT_CONVERSATION_SORT_MODIFIED,
  ZOT_CONVERSATION_SORT_SIZE,
} ZotConversationSort;

#define ZOT_TYPE_CONVERSATION_INDEX (zot_conversation_index_get_type ())
G_DECLARE_FINAL_TYPE (ZotConversationIndex, zot_conversation_index, ZOT, CONVERSATION_INDEX, GObject)

ZotConversationIndex *zot_conversation_index_new        (const char            *cwd);
const char          *zot_conversation_index_get_directory (ZotConversationIndex *self);
gboolean             zot_conversation_index_get_loading (ZotConversationIndex  *self);
ZotConversationSort  zot_conversation_index_get_sort    (ZotConversationIndex  *self);
void                 zot_conversation_index_set_sort    (ZotConversationIndex  *self,
                                                         ZotConversationSort    sort);
void                 zot_conversation_index_reload      (ZotConversationIndex  *self);
ZotConversation     *zot_conversation_index_lookup      (ZotConversationIndex  *self,
                                                         const char            *path);
void                 zot_conversation_index_rename_async  (ZotConversationIndex *self,
                                                           ZotConversation      *conversation,
                                                           const char           *title,
                                                           GCancellable         *cancellable,
                                                           GAsyncReadyCallback   callback,
                                                           gpointer              user_data);
gboolean             zot_conversation_index_rename_finish (ZotConversationIndex *self,
                                                           GAsyncResult         *result,
                                                           GError              **error);
void                 zot_conversation_index_trash_async   (ZotConversationIndex *self,
                                                           ZotConversation      *conversation,
                                                           GCancellable         *cancellable,
                                                           GAsyncReadyCallback   callback,
                                                           gpointer              user_data);
gboolean             zot_conversation_index_trash_finish  (ZotConversationIndex *self,
                                                           GAsyncResult         *result,
                                                           GError              **error);
void                 zot_conversation_index_search_async  (ZotConversationIndex *self,
                                                           const char           *text,
                                                           GCancellable         *cancellable,
                                                           GAsyncReadyCallback   callback,
                                                           gpointer              user_data);
GHashTable          *zot_conversation_index_search_finish (ZotConversationIndex *self,
                                                           GAsyncResult         *result,
                                                           GError              **error);
char                *zot_conversation_make_title        (const char            *text);

G_END_DECLS
