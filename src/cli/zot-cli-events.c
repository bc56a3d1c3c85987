/* zot-cli-events.c — the JSON event stream of `--json` and `zot rpc`:
 * one object per line on stdout, from the host's signals. */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "zot-cli-private.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-provider-table.h"

struct _ZotCliEvents
{
  ZotHost  *host;
  FILE     *out;
  gboolean  rpc;
};

static void
write_event (ZotCliEvents *events,
             JsonObject   *event)
{
  g_autofree char *line = zot_json_object_to_string (event);

  fputs (line, events->out);
  fputc ('\n', events->out);
  fflush (events->out);
}

static JsonObject *
new_event (const char *type)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "type", type);
  return event;
}

void
zot_cli_events_emit_error (ZotCliEvents *events,
                           const char   *message)
{
  g_autoptr(JsonObject) event = new_event ("error");

  json_object_set_string_member (event, "message", message);
  write_event (events, event);
}

void
zot_cli_events_emit_simple (ZotCliEvents *events,
                            const char   *type)
{
  g_autoptr(JsonObject) event = new_event (type);

  write_event (events, event);
}

void
zot_cli_events_write (ZotCliEvents *events,
                      JsonObject   *object)
{
  write_event (events, object);
}

/* The message shape of the RPC schema */

static void add_wire_blocks (JsonArray *out,
                             JsonNode  *content);

/* The bytes a base64 text decodes to, without decoding it. */
static gint64
base64_decoded_size (const char *data)
{
  gsize len = strlen (data);

  while (len > 0 && (data[len - 1] == '=' || g_ascii_isspace (data[len - 1])))
    len--;
  return (gint64) (len * 3 / 4);
}

static JsonObject *
wire_block (JsonObject *block)
{
  const char *type = zot_json_get_string (block, "type");
  JsonObject *out;

  if (type == NULL)
    return NULL;

  out = json_object_new ();
  if (g_str_equal (type, "text"))
    {
      json_object_set_string_member (out, "type", "text");
      json_object_set_string_member (out, "text", zot_json_get_string_or (block, "text", ""));
    }
  else if (g_str_equal (type, "image"))
    {
      json_object_set_string_member (out, "type", "image");
      json_object_set_string_member (out, "mime_type", zot_json_get_string_or (block, "mime_type", ""));
      json_object_set_int_member (out, "bytes", base64_decoded_size (zot_json_get_string_or (block, "data", "")));
    }
  else if (g_str_equal (type, "tool_use"))
    {
      JsonObject *input = zot_json_get_object (block, "input");

      json_object_set_string_member (out, "type", "tool_call");
      json_object_set_string_member (out, "id", zot_json_get_string_or (block, "id", ""));
      json_object_set_string_member (out, "name", zot_json_get_string_or (block, "name", ""));
      json_object_set_object_member (out, "args", input != NULL ? json_object_ref (input) : json_object_new ());
    }
  else if (g_str_equal (type, "tool_result"))
    {
      JsonArray *content = json_array_new ();

      json_object_set_string_member (out, "type", "tool_result");
      json_object_set_string_member (out, "call_id", zot_json_get_string_or (block, "tool_use_id", ""));
      json_object_set_boolean_member (out, "is_error",
                                      json_object_get_boolean_member_with_default (block, "is_error", FALSE));
      add_wire_blocks (content, json_object_get_member (block, "content"));
      json_object_set_array_member (out, "content", content);
    }
  else
    {
      /* Thinking blocks and whatever else a provider keeps: not part of
       * the schema. */
      g_clear_pointer (&out, json_object_unref);
    }

  return out;
}

static void
add_wire_blocks (JsonArray *out,
                 JsonNode  *content)
{
  JsonArray *blocks;

  if (content == NULL)
    return;

  /* A plain string is one text block. */
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    {
      JsonObject *text = json_object_new ();

      json_object_set_string_member (text, "type", "text");
      json_object_set_string_member (text, "text", json_node_get_string (content));
      json_array_add_object_element (out, text);
      return;
    }

  if (!JSON_NODE_HOLDS_ARRAY (content))
    return;

  blocks = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (blocks); i++)
    {
      JsonObject *block = zot_json_array_get_object (blocks, i);
      JsonObject *converted = block != NULL ? wire_block (block) : NULL;

      if (converted != NULL)
        json_array_add_object_element (out, converted);
    }
}

static void
set_time (JsonObject *object,
          JsonObject *message)
{
  const char *time = zot_json_get_string (message, "time");

  if (time != NULL)
    json_object_set_string_member (object, "time", time);
  else
    json_object_set_null_member (object, "time");
}

/**
 * zot_cli_message_to_wire:
 * @message: a message of the conversation (zot-message.h)
 *
 * Returns: (transfer full): it in the RPC message shape: role, content
 *   (text, image with its byte count, tool_call, tool_result) and time
 */
JsonObject *
zot_cli_message_to_wire (JsonObject *message)
{
  JsonObject *wire = json_object_new ();
  JsonArray *content = json_array_new ();

  json_object_set_string_member (wire, "role", zot_json_get_string_or (message, "role", ""));
  add_wire_blocks (content, json_object_get_member (message, "content"));
  json_object_set_array_member (wire, "content", content);
  set_time (wire, message);
  return wire;
}

/* user_message and assistant_message: the content and time of the message
 * shape. */
static void
emit_message (ZotCliEvents *events,
              const char   *type,
              JsonObject   *message)
{
  g_autoptr(JsonObject) event = new_event (type);
  g_autoptr(JsonObject) wire = zot_cli_message_to_wire (message);

  json_object_set_member (event, "content", json_node_copy (json_object_get_member (wire, "content")));
  set_time (event, message);
  write_event (events, event);
}

static void
on_user_message (ZotAgent     *agent,
                 JsonObject   *message,
                 ZotCliEvents *events)
{
  emit_message (events, "user_message", message);
}

static void
on_turn_start (ZotAgent     *agent,
               guint         step,
               ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("turn_start");

  json_object_set_int_member (event, "step", step);
  write_event (events, event);
}

static void
on_assistant_start (ZotAgent     *agent,
                    ZotCliEvents *events)
{
  zot_cli_events_emit_simple (events, "assistant_start");
}

static void
write_delta (ZotCliEvents *events,
             const char   *type,
             const char   *delta)
{
  g_autoptr(JsonObject) event = new_event (type);

  json_object_set_string_member (event, "delta", delta);
  write_event (events, event);
}

static void
on_text_delta (ZotAgent     *agent,
               const char   *delta,
               ZotCliEvents *events)
{
  write_delta (events, "text_delta", delta);
}

static void
on_reasoning_delta (ZotAgent     *agent,
                    const char   *delta,
                    ZotCliEvents *events)
{
  write_delta (events, "reasoning_delta", delta);
}

/* The model's calls have neither a parent nor an extension that asked. */
static void
emit_tool_call (ZotCliEvents *events,
                const char   *id,
                const char   *name,
                JsonObject   *args,
                const char   *parent_id,
                const char   *origin_extension)
{
  g_autoptr(JsonObject) event = new_event ("tool_call");

  json_object_set_string_member (event, "id", id);
  json_object_set_string_member (event, "name", name);
  json_object_set_object_member (event, "args", json_object_ref (args));
  if (parent_id != NULL)
    json_object_set_string_member (event, "parent_id", parent_id);
  if (origin_extension != NULL)
    json_object_set_string_member (event, "origin_extension", origin_extension);
  write_event (events, event);
}

static void
on_tool_call (ZotAgent     *agent,
              const char   *id,
              const char   *name,
              JsonObject   *args,
              ZotCliEvents *events)
{
  emit_tool_call (events, id, name, args, NULL, NULL);
}

static void
on_tool_result (ZotAgent      *agent,
                const char    *id,
                const char    *name,
                ZotToolResult *result,
                ZotCliEvents  *events)
{
  g_autoptr(JsonObject) event = new_event ("tool_result");

  json_object_set_string_member (event, "id", id);
  json_object_set_boolean_member (event, "is_error", result->is_error);
  json_object_set_array_member (event, "content", json_array_ref (result->content));
  write_event (events, event);
}

/* Calls asked for by a codemode script or an extension's call_tool: the
 * same events as the model's calls, with ids <parent id>/<n> (HOST.md),
 * and who asked. */
static void
on_extension_call (ZotAgent     *agent,
                   const char   *id,
                   const char   *parent_id,
                   const char   *name,
                   JsonObject   *args,
                   const char   *origin_extension,
                   ZotCliEvents *events)
{
  emit_tool_call (events, id, name, args, parent_id, origin_extension);
}

static void
on_extension_call_result (ZotAgent      *agent,
                          const char    *id,
                          const char    *name,
                          ZotToolResult *result,
                          ZotCliEvents  *events)
{
  on_tool_result (agent, id, name, result, events);
}

static void
on_assistant_message (ZotAgent     *agent,
                      JsonObject   *message,
                      ZotCliEvents *events)
{
  emit_message (events, "assistant_message", message);
}

static void
on_retrying (ZotAgent     *agent,
             guint         retry,
             guint         max_retries,
             gint64        delay_ms,
             const char   *message,
             ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("retry");

  json_object_set_int_member (event, "attempt", retry);
  json_object_set_int_member (event, "max_attempts", max_retries);
  json_object_set_int_member (event, "delay_ms", delay_ms);
  json_object_set_string_member (event, "message", message);
  write_event (events, event);
}

static void
on_tool_progress (ZotAgent     *agent,
                  const char   *id,
                  const char   *text,
                  ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("tool_progress");

  json_object_set_string_member (event, "id", id);
  json_object_set_string_member (event, "text", text);
  write_event (events, event);
}

static void
set_count (JsonObject *object,
           const char *member,
           gint64      count)
{
  json_object_set_int_member (object, member, MAX (count, 0));
}

/* The usage fields of the schema: unknown counts are 0, an unknown
 * reasoning count null, an unknown cost 0 with cost_known false. */
static void
set_usage_fields (JsonObject *object,
                  gint64      input,
                  gint64      output,
                  gint64      reasoning,
                  gint64      cache_read,
                  gint64      cache_write,
                  double      cost_usd,
                  gboolean    cost_known)
{
  set_count (object, "input", input);
  set_count (object, "output", output);
  if (reasoning >= 0)
    json_object_set_int_member (object, "reasoning", reasoning);
  else
    json_object_set_null_member (object, "reasoning");
  set_count (object, "cache_read", cache_read);
  set_count (object, "cache_write", cache_write);
  json_object_set_double_member (object, "cost_usd", cost_known ? cost_usd : 0.0);
  json_object_set_boolean_member (object, "cost_known", cost_known);
}

/**
 * zot_cli_usage_totals:
 *
 * Returns: (transfer full): the conversation's usage in the schema's
 *   fields (get_state's `usage`, the usage event's `cumulative`)
 */
JsonObject *
zot_cli_usage_totals (const ZotUsage *usage)
{
  JsonObject *totals = json_object_new ();

  set_usage_fields (totals, usage->total_input_tokens, usage->total_output_tokens,
                    usage->total_reasoning_tokens, usage->total_cache_read_tokens,
                    usage->total_cache_write_tokens, usage->total_cost_usd, usage->total_cost_known);
  return totals;
}

/* The agent's usage property has the turn's figures by now. */
static void
on_usage (ZotAgent     *agent,
          gint64        input_tokens,
          gint64        output_tokens,
          ZotCliEvents *events)
{
  const ZotUsage *usage = zot_agent_get_usage (agent);
  g_autoptr(JsonObject) event = new_event ("usage");

  set_usage_fields (event, usage->input_tokens, usage->output_tokens, usage->reasoning_tokens,
                    usage->cache_read_tokens, usage->cache_write_tokens, usage->cost_usd,
                    usage->cost_known);
  json_object_set_object_member (event, "cumulative", zot_cli_usage_totals (usage));
  write_event (events, event);
}

static void on_turn_end (ZotAgent     *agent,
                         const char   *stop,
                         const char   *error,
                         ZotCliEvents *events);

/* A compaction is one model call: it starts and ends like a turn, and
 * its summary comes last. */
static void
on_compaction_start (ZotAgent     *agent,
                     ZotCliEvents *events)
{
  on_turn_start (agent, 1, events);
}

static void
on_compaction_end (ZotAgent     *agent,
                   const char   *stop,
                   const char   *error,
                   const char   *summary,
                   ZotCliEvents *events)
{
  on_turn_end (agent, stop, error, events);
  if (summary != NULL)
    {
      g_autoptr(JsonObject) event = new_event ("compact_done");

      json_object_set_string_member (event, "summary", summary);
      write_event (events, event);
    }
}

static void
on_turn_end (ZotAgent     *agent,
             const char   *stop,
             const char   *error,
             ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("turn_end");

  json_object_set_string_member (event, "stop", stop);
  if (error != NULL)
    json_object_set_string_member (event, "error", error);
  write_event (events, event);
}

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               ZotCliEvents        *events)
{
  g_autoptr(JsonObject) event = new_event ("ext_notify");

  json_object_set_string_member (event, "extension", zot_extension_get_name (extension));
  json_object_set_string_member (event, "level", level);
  json_object_set_string_member (event, "message", message);
  write_event (events, event);
}

static void
on_notes_cleared (ZotExtensionManager *manager,
                  ZotExtension        *extension,
                  ZotCliEvents        *events)
{
  g_autoptr(JsonObject) event = new_event ("ext_notes_cleared");

  json_object_set_string_member (event, "extension", zot_extension_get_name (extension));
  write_event (events, event);
}

static void
emit_extension_text (ZotCliEvents *events,
                     const char   *type,
                     ZotExtension *extension,
                     const char   *text)
{
  g_autoptr(JsonObject) event = new_event (type);

  json_object_set_string_member (event, "extension", zot_extension_get_name (extension));
  json_object_set_string_member (event, "text", text);
  write_event (events, event);
}

static void
on_command_replied (ZotHost         *host,
                    ZotCommandReply *reply,
                    ZotCliEvents    *events)
{
  const char *type;

  switch (zot_command_reply_get_kind (reply))
    {
    case ZOT_COMMAND_REPLY_DISPLAY:
      type = "ext_display";
      break;

    case ZOT_COMMAND_REPLY_INSERT:
      type = "ext_insert";
      break;

    default:
      return;
    }

  emit_extension_text (events, type, zot_command_reply_get_extension (reply),
                       zot_command_reply_get_text (reply));
}

static void
on_load_failed (ZotExtensionManager *manager,
                const char          *path,
                const char          *message,
                const char          *log_path,
                ZotCliEvents        *events)
{
  g_autoptr(JsonObject) event = new_event ("ext_load_failed");

  json_object_set_string_member (event, "path", path);
  json_object_set_string_member (event, "message", message);
  if (log_path != NULL)
    json_object_set_string_member (event, "log_path", log_path);
  else
    json_object_set_null_member (event, "log_path");
  write_event (events, event);
}

static void
on_extension_crashed (ZotExtensionManager *manager,
                      ZotExtension        *extension,
                      const char          *message,
                      ZotCliEvents        *events)
{
  g_autoptr(JsonObject) event = new_event ("ext_warning");

  json_object_set_string_member (event, "extension", zot_extension_get_name (extension));
  json_object_set_string_member (event, "message", message);
  write_event (events, event);
}

/* JSON mode reports hook failures as ext_warning; RPC, whose client event
 * schema does not change, as ext_notify with level warn. */
static void
on_warning (ZotExtensionManager *manager,
            ZotExtension        *extension,
            const char          *message,
            ZotCliEvents        *events)
{
  g_autoptr(JsonObject) event = new_event (events->rpc ? "ext_notify" : "ext_warning");

  json_object_set_string_member (event, "extension", extension ? zot_extension_get_name (extension) : "");
  if (events->rpc)
    json_object_set_string_member (event, "level", "warn");
  json_object_set_string_member (event, "message", message);
  write_event (events, event);
}

static void
on_info (ZotHost      *host,
         const char   *text,
         ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("info");

  json_object_set_string_member (event, "text", text);
  write_event (events, event);
}

ZotCliEvents *
zot_cli_events_new (ZotHost *host,
                    FILE    *out)
{
  ZotCliEvents *events = g_new0 (ZotCliEvents, 1);
  ZotAgent *agent = zot_host_get_agent (host);
  ZotExtensionManager *manager = zot_host_get_manager (host);

  events->host = g_object_ref (host);
  events->out = out;

  g_signal_connect (agent, "user-message", G_CALLBACK (on_user_message), events);
  g_signal_connect (agent, "turn-start", G_CALLBACK (on_turn_start), events);
  g_signal_connect (agent, "assistant-start", G_CALLBACK (on_assistant_start), events);
  g_signal_connect (agent, "text-delta", G_CALLBACK (on_text_delta), events);
  g_signal_connect (agent, "reasoning-delta", G_CALLBACK (on_reasoning_delta), events);
  g_signal_connect (agent, "tool-call", G_CALLBACK (on_tool_call), events);
  g_signal_connect (agent, "tool-result", G_CALLBACK (on_tool_result), events);
  g_signal_connect (agent, "extension-call", G_CALLBACK (on_extension_call), events);
  g_signal_connect (agent, "extension-call-result", G_CALLBACK (on_extension_call_result), events);
  g_signal_connect (agent, "assistant-message", G_CALLBACK (on_assistant_message), events);
  g_signal_connect (agent, "usage", G_CALLBACK (on_usage), events);
  g_signal_connect (agent, "turn-end", G_CALLBACK (on_turn_end), events);
  g_signal_connect (agent, "tool-progress", G_CALLBACK (on_tool_progress), events);
  g_signal_connect (agent, "retrying", G_CALLBACK (on_retrying), events);
  g_signal_connect (agent, "compaction-start", G_CALLBACK (on_compaction_start), events);
  g_signal_connect (agent, "compaction-end", G_CALLBACK (on_compaction_end), events);
  g_signal_connect (manager, "note-added", G_CALLBACK (on_note_added), events);
  g_signal_connect (manager, "notes-cleared", G_CALLBACK (on_notes_cleared), events);
  g_signal_connect (manager, "load-failed", G_CALLBACK (on_load_failed), events);
  g_signal_connect (manager, "extension-crashed", G_CALLBACK (on_extension_crashed), events);
  g_signal_connect (manager, "warning", G_CALLBACK (on_warning), events);
  g_signal_connect (host, "info", G_CALLBACK (on_info), events);
  g_signal_connect (host, "command-replied", G_CALLBACK (on_command_replied), events);

  return events;
}

void
zot_cli_events_free (ZotCliEvents *events)
{
  if (events == NULL)
    return;

  g_signal_handlers_disconnect_by_data (zot_host_get_agent (events->host), events);
  g_signal_handlers_disconnect_by_data (zot_host_get_manager (events->host), events);
  g_signal_handlers_disconnect_by_data (events->host, events);
  g_clear_object (&events->host);
  g_free (events);
}

void
zot_cli_events_set_rpc (ZotCliEvents *events,
                        gboolean      rpc)
{
  events->rpc = !!rpc;
}
