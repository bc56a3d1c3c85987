/* zot-session-journal.c — continuous mode's journal of tool calls.
 *
 * A conversation started in continuous mode (its header says
 * "mode":"continuous") journals every tool call as a durable task
 * (PROTOCOL.md §5): one entry when the call starts, after its approval,
 * and one when it finishes, with the full result:
 *
 *   {"type":"task","event":"started","id":"toolu_1/k=step-1","tool":"read",
 *    "args":{…},"effective_args":{…},"operation_key":"…"}
 *   {"type":"task","event":"finished","id":"toolu_1/k=step-1",
 *    "result":{"content":[…],"is_error":false,"outcome":"completed",
 *              "structured_content":…}}
 *
 * A model's call is the task of its tool_use id; a call an extension asks
 * for is its parent's task id, "/", and "k=" with its key or "n=" with its
 * ordinal among the parent's calls. Entries are applied like the others,
 * on load and on append, into a table of tasks by id; a damaged one is
 * skipped with the rest of the session's damaged lines.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-json.h"
#include "zot-message.h"
#include "zot-session.h"
#include "zot-session-private.h"

static const char * const outcomes[] = {
  "completed", "failed", "blocked", "cancelled", "timed_out",
};

gboolean
_zot_session_check_task (JsonObject  *entry,
                         GError     **error)
{
  const char *id = zot_json_get_string (entry, "id");
  const char *event = zot_json_get_string (entry, "event");
  JsonNode *node;

  if (id == NULL || *id == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("a task entry needs an \"id\""));
      return FALSE;
    }

  if (g_strcmp0 (event, "started") == 0)
    {
      node = json_object_get_member (entry, "args");
      if (zot_json_get_string (entry, "tool") == NULL || node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("a started task needs a \"tool\" and \"args\""));
          return FALSE;
        }
      return TRUE;
    }

  if (g_strcmp0 (event, "finished") == 0)
    {
      JsonObject *result;

      node = json_object_get_member (entry, "result");
      result = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      if (result == NULL || zot_json_get_array (result, "content") == NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("a finished task needs a \"result\" with \"content\""));
          return FALSE;
        }
      return TRUE;
    }

  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("a task entry is \"started\" or \"finished\""));
  return FALSE;
}

/* The record of a task is its started entry, with the result of its
 * finished one once that came. */
void
_zot_session_apply_task (ZotSession *self,
                         JsonObject *entry)
{
  const char *id = json_object_get_string_member (entry, "id");
  JsonObject *task;

  if (self->tasks == NULL)
    self->tasks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) json_object_unref);
  if (self->task_order == NULL)
    self->task_order = g_ptr_array_new_with_free_func (g_free);

  task = g_hash_table_lookup (self->tasks, id);
  if (task == NULL)
    g_ptr_array_add (self->task_order, g_strdup (id));
  if (g_str_equal (json_object_get_string_member (entry, "event"), "started"))
    {
      /* Started again (a replay): the old record goes. */
      task = json_object_new ();
      json_object_set_string_member (task, "id", id);
      json_object_set_member (task, "tool", json_object_dup_member (entry, "tool"));
      json_object_set_member (task, "args", json_object_dup_member (entry, "args"));
      if (json_object_has_member (entry, "effective_args"))
        json_object_set_member (task, "effective_args", json_object_dup_member (entry, "effective_args"));
      if (json_object_has_member (entry, "operation_key"))
        json_object_set_member (task, "operation_key", json_object_dup_member (entry, "operation_key"));
      g_hash_table_replace (self->tasks, g_strdup (id), task);
      return;
    }

  /* A result without its start is still a result: the call ran. */
  if (task == NULL)
    {
      task = json_object_new ();
      json_object_set_string_member (task, "id", id);
      g_hash_table_replace (self->tasks, g_strdup (id), task);
    }
  json_object_set_member (task, "result", json_object_dup_member (entry, "result"));
}

/**
 * zot_session_get_continuous:
 *
 * Returns: whether the conversation journals its tool calls
 */
gboolean
zot_session_get_continuous (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), FALSE);
  return self->continuous;
}

/**
 * zot_session_set_continuous:
 *
 * Chooses continuous mode for a conversation that has not started: the
 * header written with the first entry says so. A conversation that has
 * started keeps the mode its header gave it.
 */
void
zot_session_set_continuous (ZotSession *self,
                            gboolean    continuous)
{
  g_return_if_fail (ZOT_IS_SESSION (self));
  g_return_if_fail (self->messages->len == 0);

  self->continuous = !!continuous;
}

/**
 * zot_session_lookup_task:
 *
 * Returns: (transfer none) (nullable): the journal's record of @task_id:
 *   "tool", "args", "effective_args" once it started, "result" once it
 *   finished
 */
JsonObject *
zot_session_lookup_task (ZotSession *self,
                         const char *task_id)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);
  g_return_val_if_fail (task_id != NULL, NULL);

  return self->tasks != NULL ? g_hash_table_lookup (self->tasks, task_id) : NULL;
}

/**
 * zot_session_list_child_tasks:
 * @parent_id: a task id: a tool_use id, or a nested call's task id
 *
 * The calls that the call @parent_id made (an extension's call_tool, a
 * codemode script's), as the journal recorded them, to show them under
 * their parent.
 *
 * Returns: (transfer container) (element-type JsonObject): the records of
 *   the tasks `<parent_id>/<key>`, in the order they started
 */
GPtrArray *
zot_session_list_child_tasks (ZotSession *self,
                              const char *parent_id)
{
  GPtrArray *children = g_ptr_array_new ();
  gsize prefix_length;

  g_return_val_if_fail (ZOT_IS_SESSION (self), children);
  g_return_val_if_fail (parent_id != NULL, children);

  prefix_length = strlen (parent_id);
  for (guint i = 0; self->task_order != NULL && i < self->task_order->len; i++)
    {
      const char *id = g_ptr_array_index (self->task_order, i);

      if (strncmp (id, parent_id, prefix_length) == 0 && id[prefix_length] == '/' &&
          strchr (id + prefix_length + 1, '/') == NULL)
        g_ptr_array_add (children, g_hash_table_lookup (self->tasks, id));
    }

  return children;
}

/**
 * zot_session_task_started_entry:
 * @operation_key: (nullable): what an idempotent tool was given
 *
 * Returns: (transfer full): the entry that says a call started
 */
JsonObject *
zot_session_task_started_entry (const char *task_id,
                                const char *tool,
                                JsonObject *args,
                                JsonObject *effective_args,
                                const char *operation_key)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "type", "task");
  json_object_set_string_member (entry, "event", "started");
  json_object_set_string_member (entry, "id", task_id);
  json_object_set_string_member (entry, "tool", tool);
  json_object_set_object_member (entry, "args", json_object_ref (args));
  json_object_set_object_member (entry, "effective_args", json_object_ref (effective_args));
  if (operation_key != NULL)
    json_object_set_string_member (entry, "operation_key", operation_key);
  return entry;
}

/**
 * zot_session_task_finished_entry:
 *
 * Returns: (transfer full): the entry that records a call's result
 */
JsonObject *
zot_session_task_finished_entry (const char          *task_id,
                                 const ZotToolResult *result)
{
  JsonObject *entry = json_object_new ();
  JsonObject *record = json_object_new ();

  json_object_set_array_member (record, "content", json_array_ref (result->content));
  json_object_set_boolean_member (record, "is_error", result->is_error);
  json_object_set_string_member (record, "outcome", zot_tool_outcome_to_string (result->outcome));
  if (result->structured_content != NULL)
    json_object_set_member (record, "structured_content", json_node_copy (result->structured_content));

  json_object_set_string_member (entry, "type", "task");
  json_object_set_string_member (entry, "event", "finished");
  json_object_set_string_member (entry, "id", task_id);
  json_object_set_object_member (entry, "result", record);
  return entry;
}

/**
 * zot_session_task_get_result:
 * @task: a record from zot_session_lookup_task()
 *
 * Returns: (transfer full) (nullable): its result, if it finished
 */
ZotToolResult *
zot_session_task_get_result (JsonObject *task)
{
  JsonNode *node;
  JsonObject *record;
  ZotToolResult *result;
  const char *outcome;
  ZotToolOutcome value = ZOT_TOOL_OUTCOME_COMPLETED;

  g_return_val_if_fail (task != NULL, NULL);

  node = json_object_get_member (task, "result");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  record = json_node_get_object (node);

  outcome = zot_json_get_string (record, "outcome");
  for (guint i = 0; outcome != NULL && i < G_N_ELEMENTS (outcomes); i++)
    if (g_str_equal (outcome, outcomes[i]))
      value = (ZotToolOutcome) i;

  result = zot_tool_result_new (zot_json_get_array (record, "content"),
                                zot_json_get_boolean_or (record, "is_error", FALSE), value);
  node = json_object_get_member (record, "structured_content");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    result->structured_content = json_node_copy (node);
  return result;
}

/**
 * zot_session_has_pending_step:
 *
 * Returns: whether the transcript ends with tool calls that have no
 *   results: a continuous conversation whose host stopped in the middle of
 *   a step, which the agent finishes before anything else
 */
gboolean
zot_session_has_pending_step (ZotSession *self)
{
  JsonObject *last;

  g_return_val_if_fail (ZOT_IS_SESSION (self), FALSE);

  if (self->messages->len == 0)
    return FALSE;

  last = g_ptr_array_index (self->messages, self->messages->len - 1);
  return zot_message_calls_tools (last);
}
