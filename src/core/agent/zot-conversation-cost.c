/* zot-conversation-cost.c — the sums of a session file's model turns.
 *
 * Every assistant message the run stored has its "usage", with its cost
 * when the model's prices were known (zot-agent-usage.c). The file keeps
 * the messages a compaction replaced, so the sums are those of the whole
 * conversation. Read in a thread, at most ZOT_CONVERSATION_COST_MAX_BYTES:
 * the conversations list asks for the rows it shows.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <json-glib/json-glib.h>

#include "zot-conversation-cost.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-session-reader.h"

static gint64
figure (JsonObject *usage,
        const char *member)
{
  JsonNode *node = json_object_get_member (usage, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE))
    return 0;
  return MAX (json_node_get_int (node), 0);
}

static void
add_usage (ZotConversationCost *cost,
           JsonObject          *usage)
{
  JsonNode *price = json_object_get_member (usage, "cost_usd");

  cost->turns++;
  cost->input_tokens += figure (usage, "input_tokens");
  cost->output_tokens += figure (usage, "output_tokens");
  cost->cache_read_tokens += figure (usage, "cache_read_tokens");
  cost->cache_write_tokens += figure (usage, "cache_write_tokens");
  if (price != NULL && JSON_NODE_HOLDS_VALUE (price) &&
      (json_node_get_value_type (price) == G_TYPE_DOUBLE || json_node_get_value_type (price) == G_TYPE_INT64))
    cost->cost_usd += MAX (json_node_get_double (price), 0.0);
  else
    cost->cost_known = FALSE;
}

/**
 * zot_conversation_cost_add_data:
 * @cost: the sums so far; start from zeros with @cost_known %TRUE
 * @data: lines of a session file
 *
 * Adds the usage of the assistant messages in @data; other and damaged
 * lines are skipped.
 */
void
zot_conversation_cost_add_data (ZotConversationCost *cost,
                                const char          *data,
                                gsize                length)
{
  ZotSessionReader reader;
  const char *line;
  gsize line_length;

  zot_session_reader_init (&reader, data, length);
  while (zot_session_reader_next_line (&reader, &line, &line_length) == ZOT_SESSION_READ_ENTRY)
    {
      g_autoptr(JsonObject) entry = NULL;
      JsonObject *message;
      JsonObject *usage;

      /* Only lines that can hold a usage are parsed. */
      if (g_strstr_len (line, line_length, "\"usage\"") == NULL)
        continue;
      entry = zot_session_parse_entry (line, line_length, NULL);
      if (entry == NULL || g_strcmp0 (zot_json_get_string (entry, "type"), "message") != 0)
        continue;
      message = zot_json_get_object (entry, "message");
      usage = message != NULL ? zot_json_get_object (message, "usage") : NULL;
      if (usage != NULL && g_strcmp0 (zot_message_get_role (message), "assistant") == 0)
        add_usage (cost, usage);
    }
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  const char *path = task_data;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  ZotConversationCost *cost;
  gsize size;
  gsize length = 0;

  stream = g_file_read (file, cancellable, &error);
  info = stream != NULL ? g_file_input_stream_query_info (stream, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                          cancellable, &error) : NULL;
  if (info == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  size = MIN ((guint64) g_file_info_get_size (info), ZOT_CONVERSATION_COST_MAX_BYTES);
  data = g_malloc (size + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), data, size, &length, cancellable, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  cost = g_new0 (ZotConversationCost, 1);
  cost->cost_known = TRUE;
  zot_conversation_cost_add_data (cost, data, length);
  g_task_return_pointer (task, cost, g_free);
}

/**
 * zot_conversation_cost_read_async:
 * @path: a session file
 *
 * Sums the model turns of @path in a thread.
 */
void
zot_conversation_cost_read_async (const char          *path,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (path != NULL);

  g_task_set_source_tag (task, zot_conversation_cost_read_async);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, read_thread);
}

gboolean
zot_conversation_cost_read_finish (GAsyncResult         *result,
                                   ZotConversationCost  *cost,
                                   GError              **error)
{
  g_autofree ZotConversationCost *sums = g_task_propagate_pointer (G_TASK (result), error);

  if (sums == NULL)
    return FALSE;
  *cost = *sums;
  return TRUE;
}
