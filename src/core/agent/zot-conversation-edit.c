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

#include <glib/gi18n.h>

#include "zot-conversation-edit.h"
#include "zot-json.h"
#include "zot-message.h"

static const char *
role_of (GPtrArray *messages,
         guint      index)
{
  return index < messages->len ? zot_message_get_role (g_ptr_array_index (messages, index)) : NULL;
}

static gboolean
calls_tools (JsonObject *message)
{
  JsonArray *content = zot_json_get_array (message, "content");

  if (g_strcmp0 (zot_message_get_role (message), "assistant") != 0)
    return FALSE;
  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *block = json_array_get_element (content, i);

      if (JSON_NODE_HOLDS_OBJECT (block) &&
          g_strcmp0 (zot_json_get_string (json_node_get_object (block), "type"), "tool_use") == 0)
        return TRUE;
    }
  return FALSE;
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
  if (calls_tools (g_ptr_array_index (messages, index)) &&
      g_strcmp0 (role_of (messages, index + 1), "tool") == 0)
    {
      guint results = index + 1;

      g_array_append_val (set, results);
    }
  else if (g_strcmp0 (role_of (messages, index), "tool") == 0 && index > 0 &&
           calls_tools (g_ptr_array_index (messages, index - 1)))
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
  ZotSession *fork;
  char       *path;
} Fork;

static void
fork_free (gpointer data)
{
  Fork *fork = data;

  g_clear_object (&fork->fork);
  g_free (fork->path);
  g_free (fork);
}

/* A name of its own beside the origin, in the form of the session ids. */
static char *
fork_path (const char *origin_path)
{
  g_autofree char *dir = g_path_get_dirname (origin_path);

  for (guint attempt = 0; ; attempt++)
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");
      g_autofree char *name = g_strdup_printf ("%s-%06x.jsonl", stamp, g_random_int () & 0xffffff);
      char *path = g_build_filename (dir, name, NULL);

      if (attempt >= 16 || !g_file_test (path, G_FILE_TEST_EXISTS))
        return path;
      g_free (path);
    }
}

static void
fork_flushed_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Fork *fork = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  /* Its lock goes with it, for the fork to be opened. */
  g_clear_object (&fork->fork);
  if (!zot_session_flush_finish (ZOT_SESSION (object), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, g_strdup (fork->path), g_free);
}

/**
 * zot_conversation_fork_async:
 * @origin: a stored conversation, between turns
 * @index: the prompt the fork replaces, in zot_session_get_messages()
 * @cancellable: (nullable): stops the wait, not the writes
 * @callback: called once the fork is on disk
 * @user_data: data for @callback
 *
 * Writes a new conversation beside @origin: a header with
 * `"forked_from":{"file":<origin's file name>,"entry":@index}`, then the
 * messages before @index. @origin is not touched. Sending the edited
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
  g_autoptr(GError) error = NULL;
  g_autofree char *origin_name = NULL;
  g_autoptr(JsonObject) tools = json_object_new ();
  g_autoptr(JsonArray) names = json_array_new ();
  const char * const *activated;
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

  fork = g_new0 (Fork, 1);
  g_task_set_task_data (task, fork, fork_free);
  fork->path = fork_path (zot_session_get_path (origin));
  fork->fork = zot_session_new (zot_session_get_cwd (origin), fork->path, &error);
  if (fork->fork == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  origin_name = g_path_get_basename (zot_session_get_path (origin));
  zot_session_set_forked_from (fork->fork, origin_name, index);

  /* Always one entry, so that a fork of the first prompt has its file. */
  activated = zot_session_get_activated_tools (origin);
  for (guint i = 0; activated != NULL && activated[i] != NULL; i++)
    json_array_add_string_element (names, activated[i]);
  json_object_set_string_member (tools, "type", "activated_tools");
  json_object_set_array_member (tools, "names", g_steal_pointer (&names));
  zot_session_append_async (fork->fork, tools, NULL, NULL, NULL);

  for (guint i = 0; i < index; i++)
    {
      g_autoptr(JsonObject) entry = json_object_new ();

      json_object_set_string_member (entry, "type", "message");
      json_object_set_object_member (entry, "message", json_object_ref (g_ptr_array_index (messages, i)));
      zot_session_append_async (fork->fork, entry, NULL, NULL, NULL);
    }

  zot_session_flush_async (fork->fork, cancellable, fork_flushed_cb, g_steal_pointer (&task));
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
