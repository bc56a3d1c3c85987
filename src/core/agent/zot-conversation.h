/* zot-conversation.h — one stored conversation, as a list shows it.
 *
 * An immutable summary of a session file: its path, id, title, when it
 * was last written and how large it is. ZotConversationIndex makes them
 * and replaces one with a new one when its file changes.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define ZOT_TYPE_CONVERSATION (zot_conversation_get_type ())
G_DECLARE_FINAL_TYPE (ZotConversation, zot_conversation, ZOT, CONVERSATION, GObject)

ZotConversation *zot_conversation_new            (const char      *path,
                                                  const char      *id,
                                                  const char      *title,
                                                  gboolean         renamed,
                                                  gint64           modified,
                                                  guint64          size);
const char      *zot_conversation_get_path       (ZotConversation *self);
const char      *zot_conversation_get_id         (ZotConversation *self);
const char      *zot_conversation_get_title      (ZotConversation *self);
gboolean         zot_conversation_get_renamed    (ZotConversation *self);
gint64           zot_conversation_get_modified   (ZotConversation *self);
guint64          zot_conversation_get_size       (ZotConversation *self);
char            *zot_conversation_get_title_path (ZotConversation *self);
char            *zot_conversation_title_path_for (const char      *session_path);
const char      *zot_conversation_get_forked_from (ZotConversation *self);
void             zot_conversation_set_forked_from (ZotConversation *self,
                                                   const char      *file);
guint            zot_conversation_get_branch_depth (ZotConversation *self);
void             zot_conversation_group_forks    (GPtrArray       *items);

G_END_DECLS
