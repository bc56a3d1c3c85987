/* zot-conversation-edit.c — deleting a message, retrying the last reply
 * and forking at a prompt, for the window (and anything else) to call
 * between turns.
 *
 * What goes to the model must stay a transcript every provider takes:
 * each assistant message that calls tools is answered by the "tool"
 * message right after it, and the first message is the user's. So a
 * call and its results go together, and deleting the first prompt takes
 * the replies that would be left leading with it, up to the next prompt.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-conversation-edit.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-session-private.h"

static const char *
role_of (GPtrArray *messages,
         guint      index)
{
  return index < messages->len ? zot_message_get_role (g_ptr_array_index (messages, index)) : NULL;
}

static gboolean
is_prompt (JsonObject *message)
{
  return g_strcmp0 (zot_message_get_role (message), "user") == 0 &&
         !json_object_get_boolean_member_with_default (message, "summary", FALSE);
}

/* Adds @index and, for a call or its results, the other of the pair. */
static void
add_with_pair (GArray    *set,
               GPtrArray *messages,
               guint      index)
{
  g_array_append_val (set, index);
  if (zot_message_calls_tools (g_ptr_array_index (messages, index)) &&
      g_strcmp0 (role_of (messages, index + 1), "tool") == 0)
    {
      guint results = index + 1;

      g_array_append_val (set, results);
    }
  else if (g_strcmp0 (role_of (messages, index), "tool") == 0 && index > 0 &&
           zot_message_calls_tools (g_ptr_array_index (messages, index - 1)))
    {
      guint calls = index - 1;

      g_array_prepend_val (set, calls);
    }
}

/**
 * zot_conversation_edit_delete_set:
 * @messages: (element-type JsonObject): a transcript
 * @index: the message to delete
 *
 * Returns: (transfer full) (element-type guint) (nullable): the messages
 *   deleting @index takes out, ascending; %NULL when @index is not there
 */
GArray *
zot_conversation_edit_delete_set (GPtrArray *messages,
                                  guint      index)
{
  g_autoptr(GArray) set = g_array_new (FALSE, FALSE, sizeof (guint));
  guint next;

  g_return_val_if_fail (messages != NULL, NULL);

  if (index >= messages->len)
    return NULL;

  add_with_pair (set, messages, index);

  /* What would lead once the first message is gone goes with it, as far
   * as the next prompt. */
  next = g_array_index (set, guint, set->len - 1) + 1;
  if (g_array_index (set, guint, 0) == 0)
    while (next < messages->len && !is_prompt (g_ptr_array_index (messages, next)))
      {
        g_array_append_val (set, next);
        next++;
      }

  return g_steal_pointer (&set);
}

static JsonObject *
remove_entry (GArray     *set,
              const char *reason)
{
  JsonObject *entry = json_object_new ();
  JsonArray *indices = json_array_new ();

  for (guint i = 0; i < set->len; i++)
    json_array_add_int_element (indices, g_array_index (set, guint, i));
  json_object_set_string_member (entry, "type", "remove");
  json_object_set_array_member (entry, "messages", indices);
  json_object_set_string_member (entry, "reason", reason);
  return entry;
}

static gboolean
check_writable (ZotSession  *session,
                GError     **error)
{
  if (!zot_session_is_read_only (session))
    return TRUE;

  g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_READ_ONLY,
               _("the conversation %s is open read-only here, so it cannot be changed; "
                 "open it where it is written"), zot_session_get_path (session));
  return FALSE;
}

/**
 * zot_conversation_edit_delete:
 * @session: the conversation, between turns
 * @index: the message to delete, in zot_session_get_messages()
 * @error: return location for a #GError
 *
 * Takes the message out of what the model is sent from now on, with the
 * other half of its tool call pair (zot_conversation_edit_delete_set()),
 * and appends a "remove" entry saying so. A write error shows up in the
 * next append.
 *
 * Returns: whether the message was there to delete
 */
gboolean
zot_conversation_edit_delete (ZotSession  *session,
                              guint        index,
                              GError     **error)
{
  g_autoptr(GArray) set = NULL;
  g_autoptr(JsonObject) entry = NULL;

  g_return_val_if_fail (ZOT_IS_SESSION (session), FALSE);

  if (!check_writable (session, error))
    return FALSE;

  set = zot_conversation_edit_delete_set (zot_session_get_messages (session), index);
  if (set == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("message %u is not in the conversation (it has %u); reopen it and try again"),
                   index, zot_session_get_messages (session)->len);
      return FALSE;
    }

  entry = remove_entry (set, "delete");
  zot_session_append_async (session, entry, NULL, NULL, NULL);
  return TRUE;
}

/**
 * zot_conversation_edit_last_prompt:
 * @messages: (element-type JsonObject): a transcript
 *
 * Returns: the index of the last prompt the user wrote (not a summary),
 *   or -1
 */
gint
zot_conversation_edit_last_prompt (GPtrArray *messages)
{
  g_return_val_if_fail (messages != NULL, -1);

  for (guint i = messages->len; i > 0; i--)
    if (is_prompt (g_ptr_array_index (messages, i - 1)))
      return (gint) (i - 1);
  return -1;
}

/**
 * zot_conversation_edit_retry:
 * @session: the conversation, between turns
 * @error: return location for a #GError
 *
 * Takes the last turn out: the last prompt and everything after it (the
 * reply, its tool calls and their results), with a "remove" entry whose
 * reason is "retry". The caller sends the prompt again, which runs the
 * turn again.
 *
 * Returns: (transfer full) (nullable): the prompt taken out
 */
JsonObject *
zot_conversation_edit_retry (ZotSession  *session,
                             GError     **error)
{
  GPtrArray *messages;
  g_autoptr(GArray) set = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(JsonObject) entry = NULL;
  JsonObject *prompt;
  gint last;

  g_return_val_if_fail (ZOT_IS_SESSION (session), NULL);

  if (!check_writable (session, error))
    return NULL;

  messages = zot_session_get_messages (session);
  last = zot_conversation_edit_last_prompt (messages);
  if (last < 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("there is no prompt to retry in this conversation; write one"));
      return NULL;
    }

  for (guint i = (guint) last; i < messages->len; i++)
    g_array_append_val (set, i);
  prompt = json_object_ref (g_ptr_array_index (messages, last));
  entry = remove_entry (set, "retry");
  zot_session_append_async (session, entry, NULL, NULL, NULL);
  return prompt;
}

/* Forking */

typedef struct
{
  char   *path;
  GBytes *contents;
} Fork;

static void
fork_free (gpointer data)
{
  Fork *fork = data;

  g_free (fork->path);
  g_clear_pointer (&fork->contents, g_bytes_unref);
  g_free (fork);
}

/* A name of its own beside the origin, in the form of the session ids;
 * the file is created exclusively, so a clash fails rather than writes
 * over another conversation. */
static char *
fork_id (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");

  return g_strdup_printf ("%s-%06x", stamp, g_random_int () & 0xffffff);
}

/* The fork's whole file: its header, the tools the origin had activated,
 * and the messages before @index. */
static GBytes *
fork_contents (ZotSession *origin,
               const char *id,
               guint       index)
{
  GString *lines = g_string_new (NULL);
  GPtrArray *messages = zot_session_get_messages (origin);
  const char * const *activated = zot_session_get_activated_tools (origin);
  g_autofree char *origin_name = g_path_get_basename (zot_session_get_path (origin));
  g_autoptr(JsonObject) header = _zot_session_header_new (id, zot_session_get_cwd (origin));
  g_autoptr(JsonObject) tools = json_object_new ();
  JsonObject *forked_from = json_object_new ();
  JsonArray *names = json_array_new ();

  json_object_set_string_member (forked_from, "file", origin_name);
  json_object_set_int_member (forked_from, "entry", index);
  json_object_set_object_member (header, "forked_from", forked_from);
  _zot_session_append_line (lines, header);

  for (guint i = 0; activated != NULL && activated[i] != NULL; i++)
    json_array_add_string_element (names, activated[i]);
  json_object_set_string_member (tools, "type", "activated_tools");
  json_object_set_array_member (tools, "names", names);
  _zot_session_append_line (lines, tools);

  for (guint i = 0; i < index; i++)
    {
      g_autoptr(JsonObject) entry = json_object_new ();

      json_object_set_string_member (entry, "type", "message");
      json_object_set_object_member (entry, "message", json_object_ref (g_ptr_array_index (messages, i)));
      _zot_session_append_line (lines, entry);
    }

  return g_string_free_to_bytes (lines);
}

static void
write_fork_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  Fork *fork = task_data;
  gsize length = 0;
  const char *data = g_bytes_get_data (fork->contents, &length);
  gsize done = 0;
  int errsv = 0;
  int fd = open (fork->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

  if (fd < 0)
    errsv = errno;
  while (fd >= 0 && errsv == 0 && done < length)
    {
      ssize_t n = write (fd, data + done, length - done);

      if (n < 0 && errno != EINTR)
        errsv = errno;
      else if (n > 0)
        done += (gsize) n;
    }
  if (fd >= 0 && errsv == 0 && fsync (fd) != 0)
    errsv = errno;
  if (fd >= 0)
    close (fd);

  if (errsv != 0)
    {
      if (fd >= 0)
        g_unlink (fork->path);
      g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (errsv),
                               _("cannot write the new branch %s: %s"), fork->path, g_strerror (errsv));
      return;
    }
  g_task_return_pointer (task, g_strdup (fork->path), g_free);
}

/**
 * zot_conversation_fork_async:
 * @origin: a stored conversation, between turns
 * @index: the prompt the fork replaces, in zot_session_get_messages()
 * @cancellable: (nullable): stops the wait, not the write
 * @callback: called once the fork is on disk
 * @user_data: data for @callback
 *
 * Writes a new conversation beside @origin, on a worker thread: a header
 * with `"forked_from":{"file":<origin's file name>,"entry":@index}`, then
 * the messages before @index. @origin is not touched. Sending the edited
 * prompt in the fork makes the new branch.
 */
void
zot_conversation_fork_async (ZotSession          *origin,
                             guint                index,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *id = NULL;
  g_autofree char *name = NULL;
  g_autofree char *dir = NULL;
  GPtrArray *messages;
  Fork *fork;

  g_return_if_fail (ZOT_IS_SESSION (origin));

  task = g_task_new (origin, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_conversation_fork_async);

  messages = zot_session_get_messages (origin);
  if (zot_session_get_path (origin) == NULL)
    {
      g_task_return_new_error (task, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_NOT_FOUND,
                               _("this conversation is not stored (--no-session), so it cannot be "
                                 "forked; start zot with a session"));
      return;
    }
  if (index >= messages->len || !is_prompt (g_ptr_array_index (messages, index)))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("message %u of the conversation is not a prompt of yours; "
                                 "reopen the conversation and edit a prompt"), index);
      return;
    }

  id = fork_id ();
  name = g_strconcat (id, ".jsonl", NULL);
  dir = g_path_get_dirname (zot_session_get_path (origin));
  fork = g_new0 (Fork, 1);
  fork->path = g_build_filename (dir, name, NULL);
  fork->contents = fork_contents (origin, id, index);
  g_task_set_task_data (task, fork, fork_free);
  g_task_run_in_thread (task, write_fork_thread);
}

/**
 * zot_conversation_fork_finish:
 *
 * Returns: (transfer full) (nullable): the path of the fork
 */
char *
zot_conversation_fork_finish (ZotSession    *origin,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, origin), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
