/* zot-conversation-edit.h — changing a stored conversation after the fact:
 * deleting a message, retrying the last reply, forking at a prompt.
 *
 * The session file stays append-only. Deleting and retrying append a
 * `{"type":"remove","messages":[i,…],"reason":"delete"|"retry"}` entry
 * (indices into the transcript as it stood before the entry); forking
 * writes a new file whose header carries `"forked_from":{"file":…,
 * "entry":N}` and leaves the original as it was.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-session.h"

G_BEGIN_DECLS

GArray      *zot_conversation_edit_delete_set (GPtrArray     *messages,
                                               guint          index);
gboolean     zot_conversation_edit_delete     (ZotSession    *session,
                                               guint          index,
                                               GError       **error);
JsonObject  *zot_conversation_edit_retry      (ZotSession    *session,
                                               GError       **error);
gint         zot_conversation_edit_last_prompt (GPtrArray    *messages);

void         zot_conversation_fork_async      (ZotSession          *origin,
                                               guint                index,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
char        *zot_conversation_fork_finish     (ZotSession          *origin,
                                               GAsyncResult        *result,
                                               GError             **error);

gboolean     zot_session_fork_read            (JsonObject          *header,
                                               char               **file,
                                               gint64              *entry,
                                               GError             **error);

G_END_DECLS
