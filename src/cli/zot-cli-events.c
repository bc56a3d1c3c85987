/* zot-cli-events.c — the JSON event stream of `--json` and `zot rpc`:
 * one object per line on stdout, from the host's signals. */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <stdio.h>

#include "zot-cli-private.h"
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

static void
on_user_message (ZotAgent     *agent,
                 JsonObject   *message,
                 ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("user_message");

  json_object_set_member (event, "content", json_node_copy (json_object_get_member (message, "content")));
  write_event (events, event);
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
on_text_delta (ZotAgent     *agent,
               const char   *delta,
               ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("text_delta");

  json_object_set_string_member (event, "delta", delta);
  write_event (events, event);
}

static void
on_tool_call (ZotAgent     *agent,
              const char   *id,
              const char   *name,
              JsonObject   *args,
              ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("tool_call");

  json_object_set_string_member (event, "id", id);
  json_object_set_string_member (event, "name", name);
  json_object_set_object_member (event, "args", json_object_ref (args));
  write_event (events, event);
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

static void
on_assistant_message (ZotAgent     *agent,
                      JsonObject   *message,
                      ZotCliEvents *events)
{
  g_autoptr(JsonObject) event = new_event ("assistant_message");

  json_object_set_member (event, "content", json_node_copy (json_object_get_member (message, "content")));
  write_event (events, event);
}

static void
on_usage (ZotAgent     *agent,
          gint64        input_tokens,
          gint64        output_tokens,
          ZotCliEvents *events)
{
  ZotProvider *provider = zot_agent_get_provider (agent);
  const ZotModelInfo *model = zot_model_info_lookup (zot_provider_get_name (provider),
                                                     zot_provider_get_model (provider));
  g_autoptr(JsonObject) event = new_event ("usage");

  if (input_tokens >= 0)
    json_object_set_int_member (event, "input_tokens", input_tokens);
  if (output_tokens >= 0)
    json_object_set_int_member (event, "output_tokens", output_tokens);
  /* From the table's prices; 0 for a model it does not know. */
  json_object_set_double_member (event, "cost_usd",
                                 zot_model_info_get_cost (model, input_tokens, output_tokens));
  write_event (events, event);
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
  g_signal_connect (agent, "tool-call", G_CALLBACK (on_tool_call), events);
  g_signal_connect (agent, "tool-result", G_CALLBACK (on_tool_result), events);
  g_signal_connect (agent, "assistant-message", G_CALLBACK (on_assistant_message), events);
  g_signal_connect (agent, "usage", G_CALLBACK (on_usage), events);
  g_signal_connect (agent, "turn-end", G_CALLBACK (on_turn_end), events);
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
