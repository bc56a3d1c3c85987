/* zot-transcript-history.c — a stored conversation as transcript rows.
 *
 * Opening a conversation shows its whole history with the rows a live run
 * makes: the messages from before its compactions, the summary that
 * replaced them, the user's prompts with their images, the assistant's
 * replies, and a row per tool call with its result. A continuous
 * conversation's journal adds the calls that tools made (an extension's
 * call_tool, a codemode script's), under their parent, as they appeared
 * live.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-json.h"
#include "zot-message.h"
#include "zot-transcript-private.h"

/* Calls nest at most this deep in the journal that is shown; deeper ones
 * are shown at that depth's parent. A bound, since the file is input. */
#define HISTORY_MAX_DEPTH 16

static const char *
tool_origin (ZotToolRegistry *registry,
             const char      *name)
{
  ZotTool *tool;

  if (registry == NULL || name == NULL)
    return NULL;
  tool = zot_tool_registry_lookup (registry, name);
  return tool != NULL ? zot_tool_get_origin (tool) : NULL;
}

static JsonObject *
get_object_or_null (JsonObject *object,
                    const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static JsonArray *
get_array_or_null (JsonObject *object,
                   const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/* The calls @parent made, from the journal, after @parent in @items. */
static void
add_nested_calls (ZotHistoryBuilder *builder,
                  ZotTranscriptItem *parent,
                  const char        *parent_id,
                  guint              depth)
{
  g_autoptr(GPtrArray) children = NULL;

  if (builder->session == NULL || depth > HISTORY_MAX_DEPTH)
    return;

  children = zot_session_list_child_tasks (builder->session, parent_id);
  for (guint i = 0; i < children->len; i++)
    {
      JsonObject *task = g_ptr_array_index (children, i);
      const char *id = zot_json_get_string (task, "id");
      const char *name = zot_json_get_string (task, "tool");
      g_autoptr(ZotTranscriptItem) item = NULL;
      g_autoptr(ZotToolResult) result = NULL;

      item = zot_transcript_item_new_tool (id, name, get_object_or_null (task, "args"),
                                           tool_origin (builder->registry, name), parent_id);
      /* The journal does not say which extension asked: the parent's
       * extension, or the built-in tool (codemode) that ran the script. */
      zot_transcript_item_set_requested_by (item,
                                            zot_transcript_item_get_origin (parent) ?:
                                            zot_transcript_item_get_tool_name (parent) ?: "?",
                                            depth);
      zot_transcript_item_add_child (parent, item);
      result = zot_session_task_get_result (task);
      if (result != NULL)
        zot_transcript_item_set_result (item, result);

      g_ptr_array_add (builder->items, g_object_ref (item));
      g_hash_table_replace (builder->tools, g_strdup (id), g_object_ref (item));
      add_nested_calls (builder, item, id, depth + 1);
    }
}

static void
add_user_message (ZotHistoryBuilder *builder,
                  JsonObject        *message)
{
  g_autofree char *text = zot_message_get_text (message);

  if (json_object_get_boolean_member_with_default (message, "summary", FALSE))
    g_ptr_array_add (builder->items, zot_transcript_item_new_text (ZOT_TRANSCRIPT_ITEM_SUMMARY, NULL, text));
  else
    g_ptr_array_add (builder->items, zot_transcript_item_new_user (text, get_array_or_null (message, "content")));
}

static void
add_assistant_message (ZotHistoryBuilder *builder,
                       JsonObject        *message)
{
  g_autofree char *text = zot_message_get_text (message);
  g_autofree char *stripped = g_strstrip (g_strdup (text));
  g_autofree char *reasoning = zot_reasoning_text_from_message (message);
  JsonArray *content = get_array_or_null (message, "content");

  /* As live: only tool calls leave no reply row, their rows say it all. */
  if (*stripped != '\0' || reasoning != NULL)
    {
      ZotTranscriptItem *item = zot_transcript_item_new_assistant ();

      zot_reasoning_text_set_message (zot_transcript_item_get_reasoning (item), message);
      zot_transcript_item_finish (item, text);
      g_ptr_array_add (builder->items, item);
    }

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autoptr(ZotTranscriptItem) item = NULL;
      const char *id;
      const char *name;

      if (block == NULL || g_strcmp0 (zot_json_get_string (block, "type"), "tool_use") != 0)
        continue;

      id = zot_json_get_string_or (block, "id", "");
      name = zot_json_get_string (block, "name");
      item = zot_transcript_item_new_tool (id, name, get_object_or_null (block, "input"),
                                           tool_origin (builder->registry, name), NULL);
      g_ptr_array_add (builder->items, g_object_ref (item));
      g_hash_table_replace (builder->tools, g_strdup (id), g_object_ref (item));
      add_nested_calls (builder, item, id, 1);
    }
}

/* Results go to the rows of their calls, which came before. */
static void
add_tool_message (ZotHistoryBuilder *builder,
                  JsonObject        *message)
{
  JsonArray *content = get_array_or_null (message, "content");

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autoptr(ZotToolResult) result = NULL;
      ZotTranscriptItem *item;
      gboolean is_error;
      ZotToolOutcome outcome = ZOT_TOOL_OUTCOME_COMPLETED;
      const char *id;

      if (block == NULL || g_strcmp0 (zot_json_get_string (block, "type"), "tool_result") != 0)
        continue;

      id = zot_json_get_string_or (block, "tool_use_id", "");
      item = g_hash_table_lookup (builder->tools, id);
      if (item == NULL)
        {
          item = zot_transcript_item_new_tool (id, NULL, NULL, NULL, NULL);
          g_ptr_array_add (builder->items, item);
          g_hash_table_replace (builder->tools, g_strdup (id), g_object_ref (item));
        }

      is_error = json_object_get_boolean_member_with_default (block, "is_error", FALSE);
      if (json_object_get_boolean_member_with_default (block, "interrupted", FALSE))
        outcome = ZOT_TOOL_OUTCOME_CANCELLED;
      else if (is_error)
        outcome = ZOT_TOOL_OUTCOME_FAILED;
      result = zot_tool_result_new (get_array_or_null (block, "content"), is_error, outcome);
      zot_transcript_item_set_result (item, result);
    }
}

/**
 * _zot_history_builder_add:
 * @builder: where rows go
 * @message: a stored message
 *
 * Adds the rows of @message to @builder->items; results go to the rows of
 * calls before, in @builder->tools, even ones already shown.
 */
void
_zot_history_builder_add (ZotHistoryBuilder *builder,
                          JsonObject        *message)
{
  const char *role = zot_message_get_role (message);

  if (g_strcmp0 (role, "user") == 0)
    add_user_message (builder, message);
  else if (g_strcmp0 (role, "assistant") == 0)
    add_assistant_message (builder, message);
  else if (g_strcmp0 (role, "tool") == 0)
    add_tool_message (builder, message);
}

/**
 * _zot_history_builder_add_session:
 * @builder: where rows go; its session is the one read
 *
 * Adds the rows of the whole conversation: what its compactions
 * replaced, then the messages the agent goes on from.
 */
void
_zot_history_builder_add_session (ZotHistoryBuilder *builder)
{
  GPtrArray *earlier = zot_session_get_earlier_messages (builder->session);
  GPtrArray *messages = zot_session_get_messages (builder->session);

  for (guint i = 0; i < earlier->len; i++)
    _zot_history_builder_add (builder, g_ptr_array_index (earlier, i));
  for (guint i = 0; i < messages->len; i++)
    _zot_history_builder_add (builder, g_ptr_array_index (messages, i));
}
