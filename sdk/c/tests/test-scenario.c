/* test-scenario.c: the C scenario extension against sdk/SCENARIO.md
 *
 * Spawns the built scenario program and plays the host over its pipes,
 * checking the behaviour the shared scenario lists.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include <gio/gio.h>

#include "test-host.h"

typedef struct
{
  GSubprocess *process;
  TestHost    *host;
  gboolean     exited;
  gboolean     exit_ok;
  int          status;
} Fixture;

static void
exited_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *f = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  f->exit_ok = g_subprocess_get_if_exited (G_SUBPROCESS (source));
  f->status = f->exit_ok ? g_subprocess_get_exit_status (G_SUBPROCESS (source)) : -1;
  f->exited = TRUE;
}

static void
handshake (Fixture    *f,
           const char *host_caps)
{
  g_autoptr(JsonObject) hello = test_host_expect (f->host, "hello");

  g_assert_cmpstr (test_str (hello, "name"), ==, "scenario-c");
  for (const char * const *cap = (const char * const[]) { "commands", "tools", "panels",
                                                         "tool_cancel", "call_tool", NULL };
       *cap != NULL; cap++)
    g_assert_true (test_strv_has (hello, "capabilities", *cap));

  test_host_send_printf (f->host, "{\"type\":\"hello_ack\",\"protocol_version\":1,"
                         "\"capabilities\":[%s]}", host_caps);
  for (;;)
    {
      g_autoptr(JsonObject) frame = test_host_next (f->host);
      const char *type;

      g_assert_nonnull (frame);
      type = test_str (frame, "type");
      if (g_strcmp0 (type, "ready") == 0)
        break;
      g_assert_true (g_str_equal (type, "register_tool") || g_str_equal (type, "register_command") ||
                     g_str_equal (type, "subscribe"));
    }
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  const char *program = g_getenv ("SDK_C_SCENARIO");
  g_autofree char *dir = NULL;

  g_assert_nonnull (program);
  dir = g_path_get_dirname (program);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  /* As the host runs it: in its own directory. */
  g_subprocess_launcher_set_cwd (launcher, dir);
  f->process = g_subprocess_launcher_spawn (launcher, &error, program, NULL);
  g_assert_no_error (error);
  f->host = test_host_new (g_subprocess_get_stdout_pipe (f->process),
                           g_subprocess_get_stdin_pipe (f->process));
  g_subprocess_wait_async (f->process, NULL, exited_cb, f);
  handshake (f, data != NULL ? data : "\"call_tool\"");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (!f->exited)
    {
      test_host_close (f->host);
      test_host_wait_for (&f->exited);
    }
  g_assert_true (f->exit_ok);
  g_assert_cmpint (f->status, ==, 0);
  g_clear_pointer (&f->host, test_host_free);
  g_clear_object (&f->process);
}

static JsonObject *
call (Fixture    *f,
      const char *id,
      const char *name,
      const char *args)
{
  JsonObject *result;

  test_host_send_printf (f->host, "{\"type\":\"tool_call\",\"id\":\"%s\",\"name\":\"%s\",\"args\":%s}",
                         id, name, args);
  result = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (result, "id"), ==, id);
  return result;
}

static char *
call_text (Fixture    *f,
           const char *name,
           const char *args,
           gboolean    is_error)
{
  g_autoptr(JsonObject) result = call (f, name, name, args);

  g_assert_cmpint (json_object_get_boolean_member_with_default (result, "is_error", FALSE), ==, is_error);
  return test_first_text (result);
}

static void
probe (Fixture *f)
{
  g_autofree char *text = call_text (f, "sc_echo", "{\"text\":\"probe\"}", FALSE);

  g_assert_cmpstr (text, ==, "probe");
}

static void
test_tools (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *echo = call_text (f, "sc_echo", "{\"text\":\"a \\\"b\\\" ü\"}", FALSE);
  g_autofree char *fail = call_text (f, "sc_fail", "{}", TRUE);
  g_autofree char *panic = call_text (f, "sc_panic", "{}", TRUE);
  g_autoptr(JsonObject) add = call (f, "add", "sc_add", "{\"a\":1,\"b\":2}");
  g_autofree char *add_text = test_first_text (add);
  g_autoptr(JsonObject) add2 = call (f, "add2", "sc_add", "{\"a\":1.5,\"b\":2}");
  g_autofree char *add2_text = test_first_text (add2);

  g_assert_cmpstr (echo, ==, "a \"b\" ü");
  g_assert_cmpstr (fail, ==, "sc_fail always fails");
  g_assert_true (g_str_has_prefix (panic, "sc_panic:"));
  g_assert_cmpstr (add_text, ==, "3");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (add, "structured_content"), "sum"), ==, 3);
  g_assert_cmpstr (add2_text, ==, "3.5");
  /* The extension keeps running after the panic. */
  probe (f);
}

static void
test_wait_cancel (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(JsonObject) note = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w\",\"name\":\"sc_wait\",\"args\":{}}");
  note = test_host_expect (f->host, "notify");
  g_assert_cmpstr (test_str (note, "level"), ==, "info");
  g_assert_cmpstr (test_str (note, "message"), ==, "sc_wait started");
  test_host_send (f->host, "{\"type\":\"tool_cancel\",\"id\":\"w\"}");
  /* No result for w: the next frame answers the probe. */
  probe (f);
}

static void
test_wait_cancel_before_start (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(JsonObject) note = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w\",\"name\":\"sc_wait\",\"args\":{}}\n"
                           "{\"type\":\"tool_cancel\",\"id\":\"w\"}");
  note = test_host_expect (f->host, "notify");
  probe (f);
}

static void
test_nested (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(JsonObject) request = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) request2 = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"n1\",\"name\":\"sc_nested\",\"args\":{}}");
  request = test_host_expect (f->host, "call_tool");
  g_assert_cmpstr (test_str (request, "name"), ==, "read");
  g_assert_cmpstr (test_str (request, "parent_id"), ==, "n1");
  g_assert_cmpstr (test_str (request, "key"), ==, "k1");
  g_assert_cmpstr (test_str (json_object_get_object_member (request, "args"), "path"), ==, "scenario.txt");
  test_host_send_printf (f->host, "{\"type\":\"tool_result\",\"id\":\"%s\",\"name\":\"read\",\"content\":"
                         "[{\"type\":\"text\",\"text\":\"contents\"}],\"is_error\":false}",
                         test_str (request, "id"));
  result = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (result, "id"), ==, "n1");
  text = test_first_text (result);
  g_assert_cmpstr (text, ==, "nested: contents");
  g_clear_pointer (&result, json_object_unref);

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"n2\",\"name\":\"sc_nested\",\"args\":{\"path\":\"x\"}}");
  request2 = test_host_expect (f->host, "call_tool");
  g_assert_cmpstr (test_str (json_object_get_object_member (request2, "args"), "path"), ==, "x");
  g_assert_cmpstr (test_str (request2, "id"), !=, test_str (request, "id"));
  test_host_send_printf (f->host, "{\"type\":\"tool_result\",\"id\":\"%s\",\"content\":"
                         "[{\"type\":\"text\",\"text\":\"missing\"}],\"is_error\":true}",
                         test_str (request2, "id"));
  result = test_host_expect (f->host, "tool_result");
  text2 = test_first_text (result);
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  g_assert_cmpstr (text2, ==, "nested failed: missing");
}

static void
test_nested_without_durable (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(JsonObject) request = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"n1\",\"name\":\"sc_nested\",\"args\":{}}");
  request = test_host_expect (f->host, "call_tool");
  g_assert_false (json_object_has_member (request, "key"));
  test_host_send_printf (f->host, "{\"type\":\"tool_result\",\"id\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}",
                         test_str (request, "id"));
  json_object_unref (test_host_expect (f->host, "tool_result"));
}

static void
test_nested_refused (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *text = call_text (f, "sc_nested", "{}", TRUE);

  g_assert_true (g_str_has_prefix (text, "nested failed: "));
}

static void
ask (Fixture    *f,
     const char *id,
     const char *answer_frame,
     const char *expected,
     gboolean    is_error)
{
  g_autoptr(JsonObject) open = NULL;
  g_autoptr(JsonObject) close = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *text = NULL;
  JsonObject *panel;

  test_host_send_printf (f->host, "{\"type\":\"tool_call\",\"id\":\"%s\",\"name\":\"sc_ask\","
                         "\"args\":{\"question\":\"Proceed?\"}}", id);
  open = test_host_expect (f->host, "open_panel");
  panel = json_object_get_object_member (open, "panel");
  g_assert_cmpstr (test_str (panel, "id"), ==, "sc-ask");
  g_assert_cmpstr (test_str (panel, "title"), ==, "Question");
  g_assert_cmpstr (test_str (panel, "footer"), ==, "enter answers, esc dismisses");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (panel, "lines")), ==, 1);
  g_assert_true (test_strv_has (panel, "lines", "Proceed?"));

  test_host_send (f->host, answer_frame);
  close = test_host_expect (f->host, "panel_close");
  g_assert_cmpstr (test_str (close, "panel_id"), ==, "sc-ask");
  result = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (result, "id"), ==, id);
  g_assert_cmpint (json_object_get_boolean_member_with_default (result, "is_error", FALSE), ==, is_error);
  text = test_first_text (result);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_ask (Fixture       *f,
          gconstpointer  data)
{
  ask (f, "a1", "{\"type\":\"panel_key\",\"panel_id\":\"sc-ask\",\"key\":\"enter\"}", "yes", FALSE);
  ask (f, "a2", "{\"type\":\"panel_key\",\"panel_id\":\"sc-ask\",\"key\":\"esc\"}", "dismissed", TRUE);
  ask (f, "a3", "{\"type\":\"panel_close\",\"panel_id\":\"sc-ask\"}", "dismissed", TRUE);
}

static void
test_ask_cancelled (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(JsonObject) open = NULL;
  g_autoptr(JsonObject) close = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"a\",\"name\":\"sc_ask\",\"args\":{\"question\":\"?\"}}");
  open = test_host_expect (f->host, "open_panel");
  test_host_send (f->host, "{\"type\":\"tool_cancel\",\"id\":\"a\"}");
  close = test_host_expect (f->host, "panel_close");
  probe (f);
}

static JsonObject *
command (Fixture    *f,
         const char *name,
         const char *args,
         const char *action)
{
  JsonObject *response;

  test_host_send_printf (f->host, "{\"type\":\"command_invoked\",\"id\":\"%s\",\"name\":\"%s\",\"args\":\"%s\"}",
                         name, name, args);
  response = test_host_expect (f->host, "command_response");
  g_assert_cmpstr (test_str (response, "id"), ==, name);
  g_assert_cmpstr (test_str (response, "action"), ==, action);
  return response;
}

static void
test_commands (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(JsonObject) prompt = command (f, "sc-prompt", "world", "prompt");
  g_autoptr(JsonObject) insert = command (f, "sc-insert", "as is", "insert");
  g_autoptr(JsonObject) display = command (f, "sc-display", "it", "display");
  g_autoptr(JsonObject) noop = command (f, "sc-noop", "", "noop");
  g_autoptr(JsonObject) error = command (f, "sc-error", "why", "noop");
  g_autoptr(JsonObject) tool_prompt = command (f, "sc-tool-prompt", "hi", "tool_prompt");
  G_GNUC_UNUSED g_autoptr(JsonObject) submit_response = command (f, "sc-submit", "this", "noop");
  g_autoptr(JsonObject) submit = test_host_expect (f->host, "submit");

  g_assert_cmpstr (test_str (prompt, "prompt"), ==, "hello world");
  g_assert_cmpstr (test_str (insert, "insert"), ==, "as is");
  g_assert_cmpstr (test_str (display, "display"), ==, "shown: it");
  g_assert_false (json_object_has_member (noop, "error"));
  g_assert_cmpstr (test_str (error, "error"), ==, "failed: why");
  g_assert_cmpstr (test_str (tool_prompt, "prompt"), ==, "run echo");
  g_assert_cmpstr (test_str (tool_prompt, "tool_name"), ==, "sc_echo");
  g_assert_cmpstr (test_str (json_object_get_object_member (tool_prompt, "tool_args"), "text"), ==, "hi");
  g_assert_cmpstr (test_str (submit, "text"), ==, "submitted this");
}

static void
test_panel_command (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(JsonObject) open = command (f, "sc-panel", "", "open_panel");
  JsonObject *panel = json_object_get_object_member (open, "open_panel");
  JsonArray *lines;

  g_assert_cmpstr (test_str (panel, "id"), ==, "sc-panel");
  g_assert_cmpstr (test_str (panel, "title"), ==, "Scenario");
  g_assert_cmpstr (test_str (panel, "footer"), ==, "esc closes");
  lines = json_object_get_array_member (panel, "lines");
  g_assert_cmpstr (json_array_get_string_element (lines, 0), ==, "> one");
  g_assert_cmpstr (json_array_get_string_element (lines, 1), ==, "  two");

  test_host_send (f->host, "{\"type\":\"panel_key\",\"panel_id\":\"sc-panel\",\"key\":\"down\"}");
  {
    g_autoptr(JsonObject) render = test_host_expect (f->host, "panel_render");

    lines = json_object_get_array_member (render, "lines");
    g_assert_cmpstr (test_str (render, "panel_id"), ==, "sc-panel");
    g_assert_cmpstr (json_array_get_string_element (lines, 0), ==, "  one");
    g_assert_cmpstr (json_array_get_string_element (lines, 1), ==, "> two");
  }
  test_host_send (f->host, "{\"type\":\"panel_key\",\"panel_id\":\"sc-panel\",\"key\":\"up\"}");
  {
    g_autoptr(JsonObject) render = test_host_expect (f->host, "panel_render");

    lines = json_object_get_array_member (render, "lines");
    g_assert_cmpstr (json_array_get_string_element (lines, 0), ==, "> one");
  }
  test_host_send (f->host, "{\"type\":\"panel_key\",\"panel_id\":\"sc-panel\",\"key\":\"esc\"}");
  {
    g_autoptr(JsonObject) close = test_host_expect (f->host, "panel_close");

    g_assert_cmpstr (test_str (close, "panel_id"), ==, "sc-panel");
  }
}

static JsonObject *
intercept (Fixture    *f,
           const char *id,
           const char *payload)
{
  JsonObject *reply;

  test_host_send_printf (f->host, "{\"type\":\"event_intercept\",\"id\":\"%s\",%s}", id, payload);
  reply = test_host_expect (f->host, "event_intercept_response");
  g_assert_cmpstr (test_str (reply, "id"), ==, id);
  return reply;
}

static void
test_events_and_interception (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(JsonObject) note = NULL;
  g_autoptr(JsonObject) guard = intercept (f, "i1", "\"event\":\"tool_call\",\"tool_id\":\"t\",\"tool_name\":\"bash\",\"tool_args\":{\"command\":\"cd / && rm -rf x\"}");
  g_autoptr(JsonObject) safe = intercept (f, "i2", "\"event\":\"tool_call\",\"tool_name\":\"bash\",\"tool_args\":{\"command\":\"ls\"}");
  g_autoptr(JsonObject) rewrite = intercept (f, "i3", "\"event\":\"tool_call\",\"tool_name\":\"sc_echo\",\"tool_args\":{\"text\":\"rewrite\"}");
  g_autoptr(JsonObject) keep = intercept (f, "i4", "\"event\":\"tool_call\",\"tool_name\":\"sc_echo\",\"tool_args\":{\"text\":\"other\"}");
  g_autoptr(JsonObject) prompt = intercept (f, "i5", "\"event\":\"before_agent_start\",\"session_id\":\"s\",\"system_prompt\":\"You help.\"");

  g_assert_true (json_object_get_boolean_member (guard, "block"));
  g_assert_cmpstr (test_str (guard, "reason"), ==, "scenario guard: refused");
  g_assert_cmpuint (json_object_get_size (safe), ==, 2);
  g_assert_cmpstr (test_str (json_object_get_object_member (rewrite, "modified_args"), "text"), ==, "rewritten");
  g_assert_false (json_object_has_member (rewrite, "block"));
  g_assert_cmpuint (json_object_get_size (keep), ==, 2);
  g_assert_cmpstr (test_str (prompt, "system_prompt"), ==, "You help.\n(scenario)");

  test_host_send (f->host, "{\"type\":\"event\",\"event\":\"turn_end\",\"session_id\":\"s\",\"sequence\":3,\"stop\":\"end_turn\"}");
  note = test_host_expect (f->host, "notify");
  g_assert_cmpstr (test_str (note, "level"), ==, "info");
  g_assert_cmpstr (test_str (note, "message"), ==, "turn ended: end_turn");
}

static void
test_shutdown (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(JsonObject) note = NULL;
  g_autoptr(JsonObject) ack = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w\",\"name\":\"sc_wait\",\"args\":{}}");
  note = test_host_expect (f->host, "notify");
  test_host_send (f->host, "{\"type\":\"shutdown\"}");
  /* The running handler does not answer: the ack comes next. */
  ack = test_host_expect (f->host, "shutdown_ack");
  test_host_wait_for (&f->exited);
  g_assert_true (test_host_at_eof (f->host));
}

static void
test_eof (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(JsonObject) note = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w\",\"name\":\"sc_wait\",\"args\":{}}");
  note = test_host_expect (f->host, "notify");
  test_host_close (f->host);
  test_host_wait_for (&f->exited);
  g_assert_true (test_host_at_eof (f->host));
}

static gsize
peak_resident_kib (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents (path, &status, NULL, NULL))
    return 0;
  line = strstr (status, "VmHWM:");
  return line != NULL ? g_ascii_strtoull (line + strlen ("VmHWM:"), NULL, 10) : 0;
}

/* A 48 MiB line is skipped without being kept: the extension's peak
 * memory stays far below the line's size. */
static void
test_oversized_line_bounded (Fixture       *f,
                             gconstpointer  data)
{
  const gsize chunk = 1024 * 1024;
  g_autofree char *junk = g_malloc (chunk);
  g_autoptr(GBytes) bytes = NULL;
  const char *id = g_subprocess_get_identifier (f->process);
  gsize peak;

  if (!g_file_test ("/proc/self/status", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("needs /proc");
      return;
    }

  memset (junk, 'x', chunk);
  junk[0] = '"';
  bytes = g_bytes_new_static (junk, chunk);
  for (guint i = 0; i < 48; i++)
    test_host_send_bytes (f->host, bytes);
  test_host_send (f->host, "\"");
  probe (f);

  peak = peak_resident_kib ((GPid) g_ascii_strtoll (id, NULL, 10));
  g_test_message ("peak resident memory after a 48 MiB line: %" G_GSIZE_FORMAT " KiB", peak);
  g_assert_cmpuint (peak, >, 0);
  g_assert_cmpuint (peak, <, 32 * 1024);
}

#define ADD(path, func, caps) \
  g_test_add ("/sdk-c/scenario/" path, Fixture, caps, fixture_setup, func, fixture_teardown)

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("tools", test_tools, NULL);
  ADD ("wait-cancel", test_wait_cancel, NULL);
  ADD ("wait-cancel-before-start", test_wait_cancel_before_start, NULL);
  ADD ("nested", test_nested, "\"call_tool\",\"call_tool_durable\"");
  ADD ("nested-without-durable", test_nested_without_durable, "\"call_tool\"");
  ADD ("nested-refused", test_nested_refused, "\"panels\"");
  ADD ("ask", test_ask, "\"call_tool\",\"panels\",\"interactive_tools\"");
  ADD ("ask-cancelled", test_ask_cancelled, NULL);
  ADD ("commands", test_commands, NULL);
  ADD ("panel-command", test_panel_command, NULL);
  ADD ("events-and-interception", test_events_and_interception, NULL);
  ADD ("shutdown", test_shutdown, NULL);
  ADD ("eof", test_eof, NULL);
  ADD ("oversized-line-bounded", test_oversized_line_bounded, NULL);

  return g_test_run ();
}
