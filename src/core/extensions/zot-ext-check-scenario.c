/* zot-ext-check-scenario.c — `zot ext check --scenario`: the behaviour
 * sdk/SCENARIO.md asks of every SDK's test extension, checked exactly.
 *
 * It replaces the generic calls of zot-ext-check.c; every protocol rule
 * of the engine still applies to each frame. Each step collects what did
 * not match into one line, so that a failing SDK sees all its differences
 * at once.
 */
#define G_LOG_DOMAIN "zot-ext-check"

#include "config.h"

#include <string.h>

#include "zot-ext-check-private.h"
#include "zot-json.h"
#include "zot-limits.h"

/* Frames the scenario sends of its own come back at once: these bound
 * only a broken extension's silence. */
#define SCENARIO_FRAME_TIMEOUT (zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND))

static const char * const scenario_tool_names[] = {
  "sc_echo", "sc_add", "sc_fail", "sc_panic", "sc_wait", "sc_nested", "sc_ask", "sc_progress",
};

static const char * const scenario_command_names[] = {
  "sc-prompt", "sc-insert", "sc-display", "sc-noop", "sc-error", "sc-tool-prompt", "sc-panel",
  "sc-submit",
};

static void
problem (GString    *problems,
         const char *format,
         ...) G_GNUC_PRINTF (2, 3);

static void
problem (GString    *problems,
         const char *format,
         ...)
{
  va_list args;

  if (problems->len > 0)
    g_string_append (problems, "; ");
  va_start (args, format);
  g_string_append_vprintf (problems, format, args);
  va_end (args);
}

static void
expect_string (GString    *problems,
               JsonObject *object,
               const char *member,
               const char *expected)
{
  const char *value = object != NULL ? zot_json_get_string (object, member) : NULL;

  if (g_strcmp0 (value, expected) != 0)
    problem (problems, "%s is %s%s%s, expected \"%s\"", member,
             value != NULL ? "\"" : "", value != NULL ? value : "missing", value != NULL ? "\"" : "",
             expected);
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_data (parser, text, -1, NULL))
    g_assert_not_reached ();
  return json_node_copy (json_parser_get_root (parser));
}

static void
expect_json (GString    *problems,
             JsonObject *object,
             const char *member,
             const char *expected_text)
{
  g_autoptr(JsonNode) expected = parse_json (expected_text);
  JsonNode *value = object != NULL ? json_object_get_member (object, member) : NULL;

  if (value == NULL || !json_node_equal (value, expected))
    {
      g_autofree char *shown = value != NULL ? json_to_string (value, FALSE) : g_strdup ("missing");
      problem (problems, "%s is %s, expected %s", member, shown, expected_text);
    }
}

/* A registered tool's schema, exactly as the scenario's table gives it. */
static void
expect_schema (GString    *problems,
               Check      *check,
               const char *tool_name,
               const char *expected_text)
{
  g_autoptr(JsonNode) expected = parse_json (expected_text);
  JsonObject *tool = _zot_ext_check_find_tool (check, tool_name);
  JsonNode *value = tool != NULL ? json_object_get_member (tool, "schema") : NULL;

  if (tool != NULL && (value == NULL || !json_node_equal (value, expected)))
    {
      g_autofree char *shown = value != NULL ? json_to_string (value, FALSE) : g_strdup ("missing");
      problem (problems, "%s's schema is %s, expected %s", tool_name, shown, expected_text);
    }
}

static void
expect_result (GString    *problems,
               JsonObject *reply,
               gboolean    is_error,
               const char *text,
               gboolean    prefix)
{
  g_autofree char *got = NULL;

  if (reply == NULL)
    {
      problem (problems, "no tool_result");
      return;
    }

  got = _zot_ext_check_result_text (reply);
  if (zot_json_get_boolean_or (reply, "is_error", FALSE) != is_error)
    problem (problems, "is_error is %s, expected %s", is_error ? "false" : "true",
             is_error ? "true" : "false");
  if (prefix ? !g_str_has_prefix (got, text) : g_strcmp0 (got, text) != 0)
    problem (problems, "text is \"%s\", expected %s\"%s\"", got, prefix ? "one starting with " : "", text);
}

static void
step_finish (Check   *check,
             GString *problems)
{
  if (problems->len == 0)
    _zot_ext_check_step_end (check, TRUE, NULL);
  else
    _zot_ext_check_step_end (check, FALSE, "%s", problems->str);
}

static JsonObject *
args_from (const char *text)
{
  g_autoptr(JsonNode) node = parse_json (text);

  return json_object_ref (json_node_get_object (node));
}

/* Registrations ------------------------------------------------------------ */

void
_zot_ext_check_scenario_registrations (Check *check)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  const char * const wanted_caps[] = { "commands", "tools", "panels", "tool_cancel", "call_tool" };
  JsonObject *tool;

  _zot_ext_check_step_begin (check, "scenario: registrations");

  for (guint i = 0; i < G_N_ELEMENTS (wanted_caps); i++)
    if (!_zot_ext_check_has_capability (check, wanted_caps[i]))
      problem (problems, "hello.capabilities lacks %s", wanted_caps[i]);
  if (!check->got_ready)
    problem (problems, "no ready");

  for (guint i = 0; i < G_N_ELEMENTS (scenario_tool_names); i++)
    if (_zot_ext_check_find_tool (check, scenario_tool_names[i]) == NULL)
      problem (problems, "tool %s not registered", scenario_tool_names[i]);
  for (guint i = 0; i < G_N_ELEMENTS (scenario_command_names); i++)
    {
      gboolean found = FALSE;

      for (guint j = 0; j < check->commands->len && !found; j++)
        found = g_str_equal (g_ptr_array_index (check->commands, j), scenario_command_names[i]);
      if (!found)
        problem (problems, "command %s not registered", scenario_command_names[i]);
    }

  expect_schema (problems, check, "sc_echo",
                 "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}");
  if ((tool = _zot_ext_check_find_tool (check, "sc_add")) != NULL)
    {
      JsonObject *schema = zot_json_get_object (tool, "schema");
      JsonObject *properties = schema != NULL ? zot_json_get_object (schema, "properties") : NULL;
      JsonArray *required = schema != NULL ? zot_json_get_array (schema, "required") : NULL;
      gboolean a_required = FALSE, b_required = FALSE;

      for (guint i = 0; required != NULL && i < json_array_get_length (required); i++)
        {
          const char *name = json_array_get_string_element (required, i);

          a_required |= g_strcmp0 (name, "a") == 0;
          b_required |= g_strcmp0 (name, "b") == 0;
        }
      if (properties == NULL ||
          g_strcmp0 (zot_json_get_string (zot_json_get_object (properties, "a"), "type"), "number") != 0 ||
          g_strcmp0 (zot_json_get_string (zot_json_get_object (properties, "b"), "type"), "number") != 0 ||
          !a_required || !b_required)
        problem (problems, "sc_add's schema needs numbers a and b, both required");
      expect_string (problems, tool, "namespace", "scenario");
      expect_string (problems, tool, "namespace_description", "Scenario arithmetic");
      expect_string (problems, tool, "exposure", "codemode");
      expect_json (problems, tool, "output_schema",
                   "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}}}");
    }
  if ((tool = _zot_ext_check_find_tool (check, "sc_ask")) != NULL &&
      !zot_json_get_boolean_or (tool, "interactive", FALSE))
    problem (problems, "sc_ask is not interactive");
  expect_schema (problems, check, "sc_fail", "{\"type\":\"object\"}");
  expect_schema (problems, check, "sc_progress", "{\"type\":\"object\"}");
  if ((tool = _zot_ext_check_find_tool (check, "sc_progress")) != NULL)
    expect_json (problems, tool, "annotations", "{\"read_only\":true}");
  expect_schema (problems, check, "sc_panic", "{\"type\":\"object\"}");
  expect_schema (problems, check, "sc_wait", "{\"type\":\"object\"}");
  expect_schema (problems, check, "sc_nested",
                 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}");
  expect_schema (problems, check, "sc_ask",
                 "{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}}}");

  if (!g_hash_table_contains (check->events, "turn_end"))
    problem (problems, "not subscribed to turn_end");
  if (!g_hash_table_contains (check->intercepts, "tool_call"))
    problem (problems, "does not intercept tool_call");
  if (!g_hash_table_contains (check->intercepts, "before_agent_start"))
    problem (problems, "does not intercept before_agent_start");

  step_finish (check, problems);
}

/* Tools ------------------------------------------------------------------------ */

static void
scenario_tool (Check      *check,
               const char *name,
               const char *args_text,
               gboolean    is_error,
               const char *text,
               gboolean    prefix)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(JsonObject) args = args_from (args_text);
  JsonObject *reply;

  _zot_ext_check_step_begin (check, "scenario: %s %s", name, args_text);
  reply = _zot_ext_check_call_tool (check, name, args, NULL);
  expect_result (problems, reply, is_error, text, prefix);

  if (reply != NULL && g_str_equal (name, "sc_add"))
    {
      JsonObject *structured = zot_json_get_object (reply, "structured_content");
      JsonNode *sum = structured != NULL ? json_object_get_member (structured, "sum") : NULL;

      if (sum == NULL || !JSON_NODE_HOLDS_VALUE (sum) ||
          (json_node_get_value_type (sum) != G_TYPE_INT64 && json_node_get_value_type (sum) != G_TYPE_DOUBLE) ||
          json_node_get_double (sum) != 3.0)
        problem (problems, "structured_content is not {\"sum\":3}");
    }
  step_finish (check, problems);
}

/* sc_progress: one tool_progress for the call, before its result. */
static void
scenario_progress (Check *check)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(JsonObject) args = args_from ("{}");
  g_autoptr(JsonObject) progress = NULL;
  JsonObject *reply;

  _zot_ext_check_step_begin (check, "scenario: sc_progress {}");
  reply = _zot_ext_check_call_tool (check, "sc_progress", args, NULL);
  expect_result (problems, reply, FALSE, "sc_progress done", FALSE);
  /* It came before the result, so it is in already. */
  progress = _zot_ext_check_expect (check, "tool_progress", "text", "sc_progress half way", 0);
  if (progress == NULL)
    problem (problems, "no tool_progress \"sc_progress half way\" before the result");
  else if (reply != NULL && g_strcmp0 (zot_json_get_string (progress, "id"), zot_json_get_string (reply, "id")) != 0)
    problem (problems, "tool_progress names another call");
  step_finish (check, problems);
}

static void
scenario_nested (Check      *check,
                 const char *args_text,
                 const char *path,
                 gboolean    is_error,
                 const char *text)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(JsonObject) args = args_from (args_text);
  guint before = check->nested->len;
  CheckRequest *request = NULL;
  JsonObject *reply;

  _zot_ext_check_step_begin (check, "scenario: sc_nested %s", args_text);
  reply = _zot_ext_check_call_tool (check, "sc_nested", args, &request);
  expect_result (problems, reply, is_error, text, FALSE);

  if (check->nested->len != before + 1)
    problem (problems, "%u call_tool frames, expected 1", check->nested->len - before);
  else
    {
      JsonObject *call = g_ptr_array_index (check->nested, before);
      JsonObject *call_args = zot_json_get_object (call, "args");

      expect_string (problems, call, "name", "read");
      expect_string (problems, call, "parent_id", request->id);
      expect_string (problems, call_args, "path", path);
      if (check->durable)
        expect_string (problems, call, "key", "k1");
      else if (json_object_has_member (call, "key"))
        problem (problems, "a key was sent to a host without call_tool_durable");
    }
  step_finish (check, problems);
}

static CheckRequest *
send_tool_call (Check      *check,
                const char *name,
                const char *args_text,
                gboolean    now)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", name);
  json_object_set_object_member (frame, "args", args_from (args_text));
  return _zot_ext_check_request (check, CHECK_REQUEST_TOOL, name, frame, now);
}

static void
send_panel_key (Check      *check,
                const char *panel_id,
                const char *key)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  json_object_set_string_member (frame, "type", "panel_key");
  json_object_set_string_member (frame, "panel_id", panel_id);
  json_object_set_string_member (frame, "key", key);
  _zot_ext_check_send (check, frame, TRUE);
}

static void
scenario_ask (Check      *check,
              const char *key,
              gboolean    is_error,
              const char *text)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(JsonObject) open = NULL;
  g_autoptr(JsonObject) close = NULL;
  CheckRequest *request;
  JsonObject *panel;
  JsonObject *reply;

  _zot_ext_check_step_begin (check, "scenario: sc_ask answered with %s", key);
  request = send_tool_call (check, "sc_ask", "{\"question\":\"Proceed?\"}", TRUE);
  open = _zot_ext_check_expect (check, "open_panel", NULL, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_TOOL));
  panel = open != NULL ? zot_json_get_object (open, "panel") : NULL;
  if (panel == NULL)
    {
      problem (problems, "no open_panel frame with a panel");
      _zot_ext_check_cancel (check, request, TRUE);
      step_finish (check, problems);
      return;
    }

  expect_string (problems, panel, "id", "sc-ask");
  expect_string (problems, panel, "title", "Question");
  expect_json (problems, panel, "lines", "[\"Proceed?\"]");
  expect_string (problems, panel, "footer", "enter answers, esc dismisses");

  if (g_str_equal (key, "panel_close"))
    {
      /* The user closed the panel. */
      g_autoptr(JsonObject) frame = json_object_new ();

      json_object_set_string_member (frame, "type", "panel_close");
      json_object_set_string_member (frame, "panel_id", "sc-ask");
      _zot_ext_check_send (check, frame, TRUE);
    }
  else
    send_panel_key (check, "sc-ask", key);
  reply = _zot_ext_check_wait_reply (check, request, zot_timeout_get_ms (ZOT_TIMEOUT_TOOL));
  expect_result (problems, reply, is_error, text, FALSE);

  /* Frames are read in order: a close sent before the result is here. */
  close = _zot_ext_check_expect (check, "panel_close", "panel_id", "sc-ask", 0);
  if (close == NULL)
    problem (problems, "no panel_close of sc-ask before the result");
  if (reply == NULL && request->state == CHECK_REQUEST_PENDING)
    _zot_ext_check_cancel (check, request, TRUE);
  step_finish (check, problems);
}

static void
scenario_wait (Check *check)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(JsonObject) started = NULL;
  CheckRequest *request;

  _zot_ext_check_step_begin (check, "scenario: sc_wait cancelled after it started");
  request = send_tool_call (check, "sc_wait", "{}", TRUE);
  started = _zot_ext_check_expect (check, "notify", "message", "sc_wait started",
                                   zot_timeout_get_ms (ZOT_TIMEOUT_TOOL));
  if (started == NULL)
    problem (problems, "no notify \"sc_wait started\"");
  else
    expect_string (problems, started, "level", "info");
  if (request->state != CHECK_REQUEST_PENDING)
    problem (problems, "answered before it was cancelled");
  else
    _zot_ext_check_cancel (check, request, TRUE);
  step_finish (check, problems);

  /* Any reply to either call is a violation, seen whenever it comes. */
  _zot_ext_check_step_begin (check, "scenario: sc_wait cancelled as it was sent");
  request = send_tool_call (check, "sc_wait", "{}", FALSE);
  _zot_ext_check_cancel (check, request, TRUE);
  _zot_ext_check_step_end (check, TRUE, NULL);
}

/* A handler still running when shutdown comes is cancelled by it: no
 * reply, seen by the engine's rule until the process has gone. */
static void
scenario_wait_at_shutdown (Check *check)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(JsonObject) started = NULL;

  _zot_ext_check_step_begin (check, "scenario: sc_wait running at shutdown");
  /* The note of a call cancelled as it was sent may still wait here. */
  while ((started = _zot_ext_check_expect (check, "notify", "message", "sc_wait started", 0)) != NULL)
    g_clear_pointer (&started, json_object_unref);
  send_tool_call (check, "sc_wait", "{}", TRUE);
  started = _zot_ext_check_expect (check, "notify", "message", "sc_wait started",
                                   zot_timeout_get_ms (ZOT_TIMEOUT_TOOL));
  if (started == NULL)
    problem (problems, "no notify \"sc_wait started\"");
  step_finish (check, problems);
}

/* Commands ------------------------------------------------------------------ */

static JsonObject *
scenario_command_begin (Check      *check,
                        const char *name,
                        const char *args,
                        GString    *problems)
{
  JsonObject *reply;

  _zot_ext_check_step_begin (check, "scenario: /%s%s%s", name, *args != '\0' ? " " : "", args);
  reply = _zot_ext_check_run_command (check, name, args);
  if (reply == NULL)
    problem (problems, "no command_response");
  return reply;
}

static void
scenario_text_command (Check      *check,
                       const char *name,
                       const char *args,
                       const char *action,
                       const char *member,
                       const char *text)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  JsonObject *reply = scenario_command_begin (check, name, args, problems);

  if (reply != NULL)
    {
      expect_string (problems, reply, "action", action);
      if (member != NULL)
        expect_string (problems, reply, member, text);
    }
  step_finish (check, problems);
}

static void
scenario_panel_command (Check *check)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  JsonObject *reply = scenario_command_begin (check, "sc-panel", "", problems);
  JsonObject *panel = reply != NULL ? zot_json_get_object (reply, "open_panel") : NULL;
  const struct { const char *key; const char *lines; } moves[] = {
    { "down", "[\"  one\",\"> two\"]" },
    { "up",   "[\"> one\",\"  two\"]" },
  };
  g_autoptr(JsonObject) close = NULL;

  if (reply != NULL)
    expect_string (problems, reply, "action", "open_panel");
  if (panel == NULL)
    {
      if (reply != NULL)
        problem (problems, "no open_panel object");
      step_finish (check, problems);
      return;
    }

  expect_string (problems, panel, "id", "sc-panel");
  expect_string (problems, panel, "title", "Scenario");
  expect_json (problems, panel, "lines", "[\"> one\",\"  two\"]");
  expect_string (problems, panel, "footer", "esc closes");

  for (guint i = 0; i < G_N_ELEMENTS (moves); i++)
    {
      g_autoptr(JsonObject) render = NULL;

      send_panel_key (check, "sc-panel", moves[i].key);
      render = _zot_ext_check_expect (check, "panel_render", "panel_id", "sc-panel", SCENARIO_FRAME_TIMEOUT);
      if (render == NULL)
        problem (problems, "no panel_render after %s", moves[i].key);
      else
        expect_json (problems, render, "lines", moves[i].lines);
    }

  send_panel_key (check, "sc-panel", "esc");
  close = _zot_ext_check_expect (check, "panel_close", "panel_id", "sc-panel", SCENARIO_FRAME_TIMEOUT);
  if (close == NULL)
    problem (problems, "no panel_close after esc");
  step_finish (check, problems);
}

static void
scenario_commands (Check *check)
{
  g_autoptr(GString) problems = NULL;
  g_autoptr(JsonObject) submit = NULL;
  JsonObject *reply;

  scenario_text_command (check, "sc-prompt", "world", "prompt", "prompt", "hello world");
  scenario_text_command (check, "sc-insert", "some text", "insert", "insert", "some text");
  scenario_text_command (check, "sc-display", "world", "display", "display", "shown: world");
  scenario_text_command (check, "sc-noop", "", "noop", NULL, NULL);
  scenario_text_command (check, "sc-error", "world", "noop", "error", "failed: world");

  problems = g_string_new (NULL);
  reply = scenario_command_begin (check, "sc-tool-prompt", "world", problems);
  if (reply != NULL)
    {
      expect_string (problems, reply, "action", "tool_prompt");
      expect_string (problems, reply, "prompt", "run echo");
      expect_string (problems, reply, "tool_name", "sc_echo");
      expect_json (problems, reply, "tool_args", "{\"text\":\"world\"}");
    }
  step_finish (check, problems);

  scenario_panel_command (check);

  g_string_truncate (problems, 0);
  reply = scenario_command_begin (check, "sc-submit", "world", problems);
  if (reply != NULL)
    expect_string (problems, reply, "action", "noop");
  submit = _zot_ext_check_expect (check, "submit", NULL, NULL, SCENARIO_FRAME_TIMEOUT);
  if (submit == NULL)
    problem (problems, "no submit frame");
  else
    expect_string (problems, submit, "text", "submitted world");
  step_finish (check, problems);
}

/* Events and interception ------------------------------------------------------ */

static void
scenario_events (Check *check)
{
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(JsonObject) note = NULL;

  _zot_ext_check_step_begin (check, "scenario: event turn_end");
  json_object_set_string_member (payload, "stop", "end_turn");
  _zot_ext_check_event (check, "turn_end", payload);
  note = _zot_ext_check_expect (check, "notify", "message", "turn ended: end_turn", SCENARIO_FRAME_TIMEOUT);
  if (note == NULL)
    problem (problems, "no notify \"turn ended: end_turn\"");
  else
    expect_string (problems, note, "level", "info");
  step_finish (check, problems);
}

static JsonObject *
scenario_intercept_begin (Check      *check,
                          const char *event,
                          JsonObject *payload,
                          const char *label,
                          GString    *problems)
{
  JsonObject *reply;

  _zot_ext_check_step_begin (check, "scenario: intercept %s", label);
  reply = _zot_ext_check_intercept (check, event, payload, label);
  if (reply == NULL)
    problem (problems, "no answer in time");
  return reply;
}

static gboolean
blocks (JsonObject *reply)
{
  return zot_json_get_boolean_or (reply, "block", FALSE);
}

static void
scenario_intercepts (Check *check)
{
  g_autoptr(JsonObject) dangerous = _zot_ext_check_bash_args ("rm -rf /tmp/x");
  g_autoptr(JsonObject) harmless = _zot_ext_check_bash_args ("ls");
  g_autoptr(JsonObject) rewrite = json_object_new ();
  g_autoptr(JsonObject) start = json_object_new ();
  g_autoptr(GString) problems = g_string_new (NULL);
  JsonObject *reply;

  reply = scenario_intercept_begin (check, "tool_call", dangerous, "tool_call bash rm -rf", problems);
  if (reply != NULL)
    {
      if (!blocks (reply))
        problem (problems, "not blocked");
      expect_string (problems, reply, "reason", "scenario guard: refused");
    }
  step_finish (check, problems);

  g_string_truncate (problems, 0);
  reply = scenario_intercept_begin (check, "tool_call", harmless, "tool_call bash ls", problems);
  if (reply != NULL && (blocks (reply) || json_object_has_member (reply, "modified_args")))
    problem (problems, "expected an empty reply (allow)");
  step_finish (check, problems);

  g_string_truncate (problems, 0);
  json_object_set_string_member (rewrite, "tool_id", "check-tool-2");
  json_object_set_string_member (rewrite, "tool_name", "sc_echo");
  json_object_set_object_member (rewrite, "tool_args", args_from ("{\"text\":\"rewrite\"}"));
  reply = scenario_intercept_begin (check, "tool_call", rewrite, "tool_call sc_echo rewrite", problems);
  if (reply != NULL)
    {
      if (blocks (reply))
        problem (problems, "blocked");
      expect_json (problems, reply, "modified_args", "{\"text\":\"rewritten\"}");
    }
  step_finish (check, problems);

  g_string_truncate (problems, 0);
  json_object_set_string_member (start, "agent_run_id", "check-run-1");
  json_object_set_string_member (start, "provider", "check");
  json_object_set_string_member (start, "model", "check");
  json_object_set_string_member (start, "system_prompt", "You are a checker.");
  reply = scenario_intercept_begin (check, "before_agent_start", start, "before_agent_start", problems);
  if (reply != NULL)
    expect_string (problems, reply, "system_prompt", "You are a checker.\n(scenario)");
  step_finish (check, problems);
}

void
_zot_ext_check_scenario_run (Check *check)
{
  const struct { const char *name; const char *args; gboolean is_error; const char *text; gboolean prefix; } calls[] = {
    { "sc_echo",  "{\"text\":\"hello\"}", FALSE, "hello",                FALSE },
    { "sc_add",   "{\"a\":1,\"b\":2}",    FALSE, "3",                    FALSE },
    { "sc_fail",  "{}",                   TRUE,  "sc_fail always fails", FALSE },
    { "sc_panic", "{}",                   TRUE,  "sc_panic:",            TRUE },
    /* Still answering after a panic. */
    { "sc_echo",  "{\"text\":\"again\"}", FALSE, "again",                FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (calls) && !check->fatal; i++)
    scenario_tool (check, calls[i].name, calls[i].args, calls[i].is_error, calls[i].text, calls[i].prefix);

  if (!check->fatal)
    scenario_progress (check);

  if (!check->fatal)
    scenario_nested (check, "{}", "scenario.txt", FALSE, "nested: " ZOT_EXT_CHECK_READ_TEXT);
  if (!check->fatal)
    scenario_nested (check, "{\"path\":\"" ZOT_EXT_CHECK_MISSING_PATH "\"}", ZOT_EXT_CHECK_MISSING_PATH, TRUE,
                     "nested failed: " ZOT_EXT_CHECK_MISSING_PATH ": no such file");
  if (!check->fatal)
    scenario_ask (check, "enter", FALSE, "yes");
  if (!check->fatal)
    scenario_ask (check, "esc", TRUE, "dismissed");
  if (!check->fatal)
    scenario_ask (check, "panel_close", TRUE, "dismissed");
  if (!check->fatal)
    scenario_wait (check);
  if (!check->fatal)
    scenario_commands (check);
  if (!check->fatal)
    scenario_events (check);
  if (!check->fatal)
    scenario_intercepts (check);
  if (!check->fatal)
    scenario_wait_at_shutdown (check);
}

void
_zot_ext_check_scenario_durable (Check *check)
{
  if (!check->fatal)
    scenario_nested (check, "{}", "scenario.txt", FALSE, "nested: " ZOT_EXT_CHECK_READ_TEXT);
}
