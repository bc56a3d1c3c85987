/* zot-ext-check-generic.c — the checker's run for any extension: each
 * tool called with example arguments, two cancels, each command, the
 * events and an intercept round (docs/ext-check.md).
 */
#define G_LOG_DOMAIN "zot-ext-check"

#include "config.h"

#include "zot-command-reply.h"
#include "zot-error.h"
#include "zot-ext-check-private.h"
#include "zot-extension.h"
#include "zot-json.h"
#include "zot-limits.h"

/* How long the first tool runs before the cancel-after-start step sends
 * its cancel. A checker's choice, not a protocol number: long enough for
 * a handler to have started, short enough not to slow the run. */
#define CHECK_CANCEL_GRACE_MS       200


static JsonNode *
example_value (JsonObject *property)
{
  JsonArray *values = zot_json_get_array (property, "enum");
  const char *type = zot_json_get_string (property, "type");
  JsonNode *node;

  if (values != NULL && json_array_get_length (values) > 0)
    return json_node_copy (json_array_get_element (values, 0));

  if (g_strcmp0 (type, "number") == 0 || g_strcmp0 (type, "integer") == 0)
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (node, 1);
    }
  else if (g_strcmp0 (type, "boolean") == 0)
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (node, TRUE);
    }
  else if (g_strcmp0 (type, "object") == 0)
    node = json_node_init_object (json_node_alloc (), json_object_new ());
  else if (g_strcmp0 (type, "array") == 0)
    node = json_node_init_array (json_node_alloc (), json_array_new ());
  else
    node = json_node_init_string (json_node_alloc (), "example");
  return node;
}

/* The manifest's example for @tool, or the schema's required properties
 * filled by type. */
static JsonObject *
example_args (Check      *check,
              JsonObject *tool)
{
  const char *name = zot_json_get_string (tool, "name");
  JsonObject *schema = zot_json_get_object (tool, "schema");
  JsonObject *properties = schema != NULL ? zot_json_get_object (schema, "properties") : NULL;
  JsonArray *required = schema != NULL ? zot_json_get_array (schema, "required") : NULL;
  JsonObject *example = check->examples != NULL ? zot_json_get_object (check->examples, name) : NULL;
  JsonObject *args;

  if (example != NULL)
    return json_object_ref (example);

  args = json_object_new ();
  for (guint i = 0; required != NULL && i < json_array_get_length (required); i++)
    {
      JsonNode *element = json_array_get_element (required, i);
      JsonObject *property = NULL;
      const char *member;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        continue;
      member = json_node_get_string (element);
      if (properties != NULL)
        property = zot_json_get_object (properties, member);
      if (property != NULL)
        json_object_set_member (args, member, example_value (property));
      else
        json_object_set_string_member (args, member, "example");
    }
  return args;
}

static gboolean
tool_is_interactive (JsonObject *tool)
{
  JsonNode *node = json_object_get_member (tool, "interactive");

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node);
}

static gboolean
answered_or_panel (Check    *check,
                   gpointer  data)
{
  CheckRequest *request = data;

  return request->state != CHECK_REQUEST_PENDING || _zot_ext_check_inbox_has (check, "open_panel");
}

/**
 * _zot_ext_check_call_tool:
 * @out_request: (out) (optional): the request, owned by the session
 *
 * Calls a tool and waits for its result within the tool deadline. An
 * interactive tool's panel is answered with `enter`. A call that does not
 * answer in time is cancelled, when the extension takes cancels.
 *
 * Returns: (transfer none) (nullable): the result
 */
JsonObject *
_zot_ext_check_call_tool (Check          *check,
                          const char     *name,
                          JsonObject     *args,
                          CheckRequest  **out_request)
{
  g_autoptr(JsonObject) frame = json_object_new ();
  JsonObject *tool = _zot_ext_check_find_tool (check, name);
  guint deadline = zot_timeout_get_ms (ZOT_TIMEOUT_TOOL);
  CheckRequest *request;
  JsonObject *reply;

  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", name);
  json_object_set_object_member (frame, "args", json_object_ref (args));
  request = _zot_ext_check_request (check, CHECK_REQUEST_TOOL, name, frame, TRUE);
  if (out_request != NULL)
    *out_request = request;

  if (tool != NULL && tool_is_interactive (tool))
    {
      if (_zot_ext_check_wait_until (check, answered_or_panel, request, deadline) &&
          request->state == CHECK_REQUEST_PENDING)
        {
          g_autoptr(JsonObject) panel_frame = _zot_ext_check_expect (check, "open_panel", NULL, NULL, 0);
          JsonObject *panel = zot_json_get_object (panel_frame, "panel");
          g_autoptr(JsonObject) key = json_object_new ();

          json_object_set_string_member (key, "type", "panel_key");
          json_object_set_string_member (key, "panel_id", panel ? zot_json_get_string (panel, "id") : "");
          json_object_set_string_member (key, "key", "enter");
          _zot_ext_check_send (check, key, TRUE);
        }
    }

  reply = _zot_ext_check_wait_reply (check, request, deadline);
  if (reply == NULL && request->state == CHECK_REQUEST_PENDING)
    {
      if (_zot_ext_check_has_capability (check, "tool_cancel"))
        _zot_ext_check_cancel (check, request, TRUE);
      else
        request->state = CHECK_REQUEST_ABANDONED;
    }
  return reply;
}

static void
run_tools (Check *check)
{
  for (guint i = 0; i < check->tools->len && !check->fatal; i++)
    {
      JsonObject *tool = g_ptr_array_index (check->tools, i);
      const char *name = zot_json_get_string (tool, "name");
      g_autoptr(JsonObject) args = example_args (check, tool);
      JsonObject *reply;

      _zot_ext_check_step_begin (check, "tool %s", name);
      reply = _zot_ext_check_call_tool (check, name, args, NULL);
      if (reply == NULL && check->channel_closed)
        _zot_ext_check_step_end (check, FALSE, "no tool_result: the extension's output ended");
      else if (reply == NULL)
        _zot_ext_check_step_end (check, FALSE, "no tool_result within %u ms",
                                 zot_timeout_get_ms (ZOT_TIMEOUT_TOOL));
      else if (zot_json_get_array (reply, "content") == NULL)
        _zot_ext_check_step_end (check, FALSE, "tool_result without a content array");
      else
        {
          g_autofree char *text = _zot_ext_check_result_text (reply);
          gboolean is_error = zot_json_get_boolean_or (reply, "is_error", FALSE);

          _zot_ext_check_step_end (check, TRUE, "%s%.60s", is_error ? "error result: " : "", text);
        }
    }
}

static JsonObject *
first_plain_tool (Check *check)
{
  for (guint i = 0; i < check->tools->len; i++)
    {
      JsonObject *tool = g_ptr_array_index (check->tools, i);

      if (!tool_is_interactive (tool))
        return tool;
    }
  return NULL;
}

/* Two cancels: one sent with its call, one after a grace. */
static void
run_cancels (Check *check)
{
  JsonObject *tool = first_plain_tool (check);
  const char *name;
  g_autoptr(JsonObject) args = NULL;
  g_autoptr(JsonObject) frame = NULL;
  CheckRequest *request;

  if (check->fatal)
    return;
  if (!_zot_ext_check_has_capability (check, "tool_cancel") || tool == NULL)
    {
      _zot_ext_check_step_skip (check, "cancel", tool == NULL ? "no tool to cancel" : "no tool_cancel capability");
      return;
    }

  name = zot_json_get_string (tool, "name");
  args = example_args (check, tool);

  _zot_ext_check_step_begin (check, "cancel after start (%s)", name);
  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", name);
  json_object_set_object_member (frame, "args", json_object_ref (args));
  request = _zot_ext_check_request (check, CHECK_REQUEST_TOOL, name, frame, TRUE);
  if (_zot_ext_check_wait_reply (check, request, CHECK_CANCEL_GRACE_MS) != NULL)
    _zot_ext_check_step_end (check, TRUE, "answered within %u ms, before a cancel", CHECK_CANCEL_GRACE_MS);
  else
    {
      /* A tool that takes just this long answers as the cancel goes out:
       * a reply then proves nothing, so only a note says so. The tool
       * deadline's cancel, in run_tools(), is the one held strictly. */
      request->cancel_raced = TRUE;
      _zot_ext_check_cancel (check, request, TRUE);
      _zot_ext_check_step_end (check, TRUE, "cancelled after %u ms", CHECK_CANCEL_GRACE_MS);
    }

  _zot_ext_check_step_begin (check, "cancel before start (%s)", name);
  g_clear_pointer (&frame, json_object_unref);
  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", name);
  json_object_set_object_member (frame, "args", json_object_ref (args));
  /* Queued together: one write carries both. */
  request = _zot_ext_check_request (check, CHECK_REQUEST_TOOL, name, frame, FALSE);
  request->cancel_raced = TRUE;
  _zot_ext_check_cancel (check, request, TRUE);
  _zot_ext_check_step_end (check, TRUE, NULL);
}

/**
 * _zot_ext_check_run_command:
 *
 * Invokes a command and checks its response as the window would take it.
 *
 * Returns: (transfer none) (nullable): the response, when it came
 */
JsonObject *
_zot_ext_check_run_command (Check      *check,
                            const char *name,
                            const char *args)
{
  g_autoptr(JsonObject) frame = json_object_new ();
  g_autoptr(GError) error = NULL;
  CheckRequest *request;
  JsonObject *reply;

  json_object_set_string_member (frame, "type", "command_invoked");
  json_object_set_string_member (frame, "name", name);
  json_object_set_string_member (frame, "args", args);
  request = _zot_ext_check_request (check, CHECK_REQUEST_COMMAND, name, frame, TRUE);
  reply = _zot_ext_check_wait_reply (check, request, zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND));
  if (reply == NULL)
    {
      request->state = CHECK_REQUEST_ABANDONED;
      return NULL;
    }

  if (!zot_command_reply_check_frame (reply, name, &error))
    _zot_ext_check_violation (check,
                              g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION)
                              ? "unknown-action" : "bad-command-response",
                              reply, error->message);
  return reply;
}

static void
run_commands (Check *check)
{
  for (guint i = 0; i < check->commands->len && !check->fatal; i++)
    {
      const char *name = g_ptr_array_index (check->commands, i);
      JsonObject *reply;
      JsonObject *panel;
      const char *action;

      _zot_ext_check_step_begin (check, "command %s", name);
      reply = _zot_ext_check_run_command (check, name, "example");
      if (reply == NULL)
        {
          _zot_ext_check_step_end (check, FALSE, "no command_response within %u ms",
                                   zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND));
          continue;
        }

      action = zot_json_get_string (reply, "action");
      panel = zot_json_get_object (reply, "open_panel");
      if (g_strcmp0 (action, "open_panel") == 0 && panel != NULL)
        {
          /* The user closes it at once. */
          g_autoptr(JsonObject) key = json_object_new ();

          json_object_set_string_member (key, "type", "panel_key");
          json_object_set_string_member (key, "panel_id", zot_json_get_string (panel, "id"));
          json_object_set_string_member (key, "key", "esc");
          _zot_ext_check_send (check, key, TRUE);
        }
      _zot_ext_check_step_end (check, TRUE, "action %s", action != NULL ? action : "(none)");
    }
}

static JsonObject *
event_frame (const char *type,
             const char *event,
             JsonObject *payload)
{
  JsonObject *frame = json_object_new ();
  g_autofree char *cwd = g_get_current_dir ();

  /* type and event first, so that a shortened frame still names them */
  json_object_set_string_member (frame, "type", type);
  json_object_set_string_member (frame, "event", event);
  if (payload != NULL)
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *node;

      json_object_iter_init (&iter, payload);
      while (json_object_iter_next (&iter, &member, &node))
        json_object_set_member (frame, member, json_node_copy (node));
    }
  if (!json_object_has_member (frame, "session_id"))
    json_object_set_string_member (frame, "session_id", "check-session");
  if (!json_object_has_member (frame, "cwd"))
    json_object_set_string_member (frame, "cwd", cwd);
  return frame;
}

void
_zot_ext_check_event (Check      *check,
                      const char *event,
                      JsonObject *payload)
{
  g_autoptr(JsonObject) frame = event_frame ("event", event, payload);
  static gint64 sequence;

  json_object_set_int_member (frame, "sequence", ++sequence);
  _zot_ext_check_send (check, frame, TRUE);
}

/**
 * _zot_ext_check_intercept:
 *
 * Sends an `event_intercept` and waits for its answer within the
 * interceptor's deadline; a late one is a violation.
 *
 * Returns: (transfer none) (nullable): the answer
 */
JsonObject *
_zot_ext_check_intercept (Check      *check,
                          const char *event,
                          JsonObject *payload,
                          const char *label)
{
  g_autoptr(JsonObject) frame = event_frame ("event_intercept", event, payload);
  gboolean before_start = g_str_equal (event, "before_agent_start");
  guint deadline = zot_timeout_get_ms (before_start ? ZOT_TIMEOUT_BEFORE_AGENT_START : ZOT_TIMEOUT_INTERCEPT);
  CheckRequest *request;
  JsonObject *reply;
  JsonNode *node;

  request = _zot_ext_check_request (check, CHECK_REQUEST_INTERCEPT, event, frame, TRUE);
  reply = _zot_ext_check_wait_reply (check, request, deadline);
  if (reply == NULL)
    {
      g_autofree char *detail = g_strdup_printf ("%s: no answer within %u ms", label, deadline);

      request->state = CHECK_REQUEST_ABANDONED;
      if (!check->fatal)
        _zot_ext_check_violation (check, "slow-interceptor", request->sent, detail);
      return NULL;
    }

  node = json_object_get_member (reply, "modified_args");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node) && !JSON_NODE_HOLDS_OBJECT (node))
    _zot_ext_check_violation (check, "bad-intercept-reply", reply, "modified_args must be a JSON object");
  node = json_object_get_member (reply, "system_prompt");
  if (before_start && node != NULL && !JSON_NODE_HOLDS_NULL (node) &&
      !(JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING))
    _zot_ext_check_violation (check, "bad-intercept-reply", reply, "system_prompt must be a string");
  return reply;
}

JsonObject *
_zot_ext_check_bash_args (const char *command)
{
  JsonObject *payload = json_object_new ();
  JsonObject *args = json_object_new ();

  json_object_set_string_member (args, "command", command);
  json_object_set_string_member (payload, "tool_id", "check-tool-1");
  json_object_set_string_member (payload, "tool_name", "bash");
  json_object_set_object_member (payload, "tool_args", args);
  return payload;
}

/* A plausible payload for each event of PROTOCOL.md §6. */
static JsonObject *
event_payload (const char *event)
{
  JsonObject *payload = json_object_new ();

  if (g_str_equal (event, "turn_end"))
    json_object_set_string_member (payload, "stop", "end_turn");
  else if (g_str_equal (event, "turn_start"))
    json_object_set_int_member (payload, "step", 1);
  else if (g_str_equal (event, "session_end"))
    json_object_set_string_member (payload, "reason", "shutdown");
  else if (g_str_equal (event, "user_prompt_submit"))
    {
      json_object_set_string_member (payload, "text", "example");
      json_object_set_int_member (payload, "image_count", 0);
    }
  else if (g_str_equal (event, "assistant_message"))
    json_object_set_string_member (payload, "text", "example");
  else if (g_str_equal (event, "tool_call"))
    {
      json_object_unref (payload);
      payload = _zot_ext_check_bash_args ("ls");
    }
  return payload;
}

static void
run_events (Check *check)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree const char **subscribed = NULL;

  if (check->fatal)
    return;

  g_ptr_array_add (names, g_strdup ("turn_end"));
  subscribed = (const char **) g_hash_table_get_keys_as_array (check->events, NULL);
  for (guint i = 0; subscribed[i] != NULL; i++)
    if (!g_str_equal (subscribed[i], "turn_end") && zot_lifecycle_event_id (subscribed[i]) > 0)
      g_ptr_array_add (names, g_strdup (subscribed[i]));

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(JsonObject) payload = event_payload (name);

      _zot_ext_check_step_begin (check, "event %s", name);
      _zot_ext_check_event (check, name, payload);
      _zot_ext_check_step_end (check, TRUE, NULL);
    }
}

static void
run_intercept (Check      *check,
               const char *event,
               JsonObject *payload,
               const char *label)
{
  guint before = json_array_get_length (check->violations);

  if (check->fatal || !g_hash_table_contains (check->intercepts, event))
    return;

  _zot_ext_check_step_begin (check, "intercept %s", label);
  if (_zot_ext_check_intercept (check, event, payload, label) == NULL)
    _zot_ext_check_step_end (check, FALSE, "no answer in time");
  else
    _zot_ext_check_step_end (check, json_array_get_length (check->violations) == before, NULL);
}

static void
run_intercepts (Check *check)
{
  g_autoptr(JsonObject) harmless = _zot_ext_check_bash_args ("ls");
  g_autoptr(JsonObject) dangerous = _zot_ext_check_bash_args ("rm -rf /");
  g_autoptr(JsonObject) turn = event_payload ("turn_start");
  g_autoptr(JsonObject) message = event_payload ("assistant_message");
  g_autoptr(JsonObject) start = json_object_new ();

  json_object_set_string_member (start, "agent_run_id", "check-run-1");
  json_object_set_string_member (start, "provider", "check");
  json_object_set_string_member (start, "model", "check");
  json_object_set_string_member (start, "system_prompt", "You are a checker.");

  run_intercept (check, "tool_call", harmless, "tool_call (harmless bash)");
  run_intercept (check, "tool_call", dangerous, "tool_call (dangerous bash)");
  run_intercept (check, "turn_start", turn, "turn_start");
  run_intercept (check, "assistant_message", message, "assistant_message");
  run_intercept (check, "before_agent_start", start, "before_agent_start");
}

void
_zot_ext_check_generic_run (Check *check)
{
  run_tools (check);
  run_cancels (check);
  run_commands (check);
  run_events (check);
  run_intercepts (check);
}
