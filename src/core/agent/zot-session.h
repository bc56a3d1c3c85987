/* zot-session.h — one conversation's transcript on disk.
 *
 * JSONL under $ZOT_HOME/sessions/<cwd-key>/<id>.jsonl, append-only: a
 * header line, then one line per entry. Every append is written and
 * fsynced in order on a worker thread, so the main loop never waits for
 * the disk and a crash loses at most the entry in flight.
 *
 *   {"type":"session","version":1,"id":"…","cwd":"…","created":"ISO-8601"}
 *                       (a fork's adds "forked_from":{"file":"<id>.jsonl","entry":N})
 *   {"type":"message","message":{…zot-message.h shape…}}
 *   {"type":"compaction","summary":"…","message_count":N}
 *   {"type":"remove","messages":[i,…],"reason":"delete"|"retry"}
 *                       (messages taken out, zot-conversation-edit.h)
 *   {"type":"activated_tools","names":["…"]}   (the set from then on)
 *   {"type":"script_state","state":{…}}   (codemode's store(), from then on)
 *   {"type":"task","event":"started"|"finished","id":"…",…}
 *                       (continuous mode's journal, zot-session-journal.c)
 *
 * Resuming reads every line and loses nothing it can keep: a torn last
 * line (no newline, or not JSON) is dropped, a bad line elsewhere is
 * skipped, and tool calls left without results (the host died between
 * the two) get results saying they were interrupted, so that every
 * provider takes the transcript; zot_session_get_warnings() says what was
 * mended. Only a first line that is not a session header is an error.
 *
 * One writer per file: a session that writes holds an advisory lock
 * (flock()) on its file from when it opens or creates it until it and its
 * queued writes are done. Another writer, in this process or another,
 * fails with ZOT_SESSION_ERROR_LOCKED; zot_session_open_read_only() reads
 * a session without the lock, and refuses every append.
 *
 * A session belongs to the main context that was the thread default when it
 * was made: call it there; callbacks run there, in the order of the calls.
 * A failed write leaves the file as it was before that write and makes the
 * session read-only (ZOT_SESSION_ERROR_WRITE for every later append), while
 * the in-memory transcript goes on. Queued writes are never dropped, not
 * even when the session is finalized: the worker owns copies of the lines.
 * They do not outlive the process, so flush before exiting.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-tool.h"

G_BEGIN_DECLS

#define ZOT_SESSION_ERROR (zot_session_error_quark ())

/**
 * ZotSessionError:
 * @ZOT_SESSION_ERROR_CORRUPT: the file is not a session (no header), or a newer zot wrote it
 * @ZOT_SESSION_ERROR_NOT_FOUND: no session to continue for this directory
 * @ZOT_SESSION_ERROR_WRITE: the disk refused a write; the session is read-only from then on
 * @ZOT_SESSION_ERROR_TOO_LARGE: the file is over the size zot_session_open() reads (256 MiB)
 * @ZOT_SESSION_ERROR_LOCKED: another writer holds the file
 * @ZOT_SESSION_ERROR_READ_ONLY: an append to a session opened read-only
 */
typedef enum
{
  ZOT_SESSION_ERROR_CORRUPT,
  ZOT_SESSION_ERROR_NOT_FOUND,
  ZOT_SESSION_ERROR_WRITE,
  ZOT_SESSION_ERROR_TOO_LARGE,
  ZOT_SESSION_ERROR_LOCKED,
  ZOT_SESSION_ERROR_READ_ONLY,
} ZotSessionError;

GQuark zot_session_error_quark (void);

#define ZOT_TYPE_SESSION (zot_session_get_type ())
G_DECLARE_FINAL_TYPE (ZotSession, zot_session, ZOT, SESSION, GObject)

char        *zot_session_get_directory_for_cwd (const char     *cwd);
char        *zot_session_find_latest       (const char          *cwd,
                                            GError             **error);

ZotSession  *zot_session_new               (const char          *cwd,
                                            const char          *path,
                                            GError             **error);
ZotSession  *zot_session_new_in_memory     (const char          *cwd);
ZotSession  *zot_session_open              (const char          *path,
                                            GError             **error);
ZotSession  *zot_session_open_read_only    (const char          *path,
                                            GError             **error);

const char  *zot_session_get_id            (ZotSession          *self);
const char  *zot_session_get_path          (ZotSession          *self);
const char  *zot_session_get_cwd           (ZotSession          *self);
GPtrArray   *zot_session_get_messages      (ZotSession          *self);
const char * const *zot_session_get_warnings (ZotSession        *self);
const char * const *zot_session_get_activated_tools (ZotSession *self);
JsonObject  *zot_session_get_script_state    (ZotSession        *self);
void         zot_session_set_script_state    (ZotSession        *self,
                                              JsonObject        *state);
void         zot_session_set_activated_tools (ZotSession        *self,
                                            const char * const  *names);
gboolean     zot_session_is_persistent     (ZotSession          *self);
const char  *zot_session_get_forked_from   (ZotSession          *self,
                                            gint64              *entry);
gboolean     zot_session_is_read_only      (ZotSession          *self);

gboolean     zot_session_get_continuous    (ZotSession          *self);
void         zot_session_set_continuous    (ZotSession          *self,
                                            gboolean             continuous);
JsonObject  *zot_session_lookup_task       (ZotSession          *self,
                                            const char          *task_id);
GPtrArray   *zot_session_list_child_tasks  (ZotSession          *self,
                                            const char          *parent_id);
GPtrArray   *zot_session_get_earlier_messages (ZotSession       *self);
JsonObject  *zot_session_task_started_entry  (const char        *task_id,
                                              const char        *tool,
                                              JsonObject        *args,
                                              JsonObject        *effective_args,
                                              const char        *operation_key);
JsonObject  *zot_session_task_finished_entry (const char        *task_id,
                                              const ZotToolResult *result);
ZotToolResult *zot_session_task_get_result (JsonObject          *task);
gboolean     zot_session_has_pending_step  (ZotSession          *self);

void         zot_session_append_async      (ZotSession          *self,
                                            JsonObject          *entry,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean     zot_session_append_finish     (ZotSession          *self,
                                            GAsyncResult        *result,
                                            GError             **error);
void         zot_session_append_message_async (ZotSession       *self,
                                            JsonObject          *message,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
void         zot_session_replace_messages  (ZotSession          *self,
                                            GPtrArray           *messages);
void         zot_session_flush_async       (ZotSession          *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean     zot_session_flush_finish      (ZotSession          *self,
                                            GAsyncResult        *result,
                                            GError             **error);

G_END_DECLS
