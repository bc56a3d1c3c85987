/* scenario.c: the shared scenario (sdk/SCENARIO.md) written with libzot-ext
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <math.h>
#include <string.h>

#include <zot-ext.h>

#define ASK_PANEL "sc-ask"
#define MENU_PANEL "sc-panel"

static const char *echo_schema =
  "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}";
static const char *add_schema =
  "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},"
  "\"required\":[\"a\",\"b\"]}";
static const char *add_output_schema =
  "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}}}";
static const char *nested_schema =
  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}";
static const char *ask_schema =
  "{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}}}";

/* The shortest text that reads back as the same double, as Go, Python
 * and JavaScript print numbers (3 for 1+2, 0.3 rather than 0.2999…). */
static char *
format_number (double value)
{
  for (int precision = 1; precision <= 17; precision++)
    {
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buffer, sizeof buffer, format, value);
      if (g_ascii_strtod (buffer, NULL) == value)
        return g_strdup (buffer);
    }
  return g_strdup_printf ("%.17g", value);
}

static gboolean
on_echo (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         gpointer          data)
{
  const char *text = zot_ext_invocation_get_string_arg (inv, "text");

  zot_ext_invocation_return_text (inv, text != NULL ? text : "");
  return TRUE;
}

static gboolean
on_add (ZotExtExtension  *ext,
        ZotExtInvocation *inv,
        gpointer          data)
{
  JsonObject *args = json_node_get_object (zot_ext_invocation_get_args (inv));
  g_autofree char *text = NULL;
  g_autofree char *structured = NULL;
  double sum;

  if (!json_object_has_member (args, "a") || !json_object_has_member (args, "b"))
    {
      zot_ext_invocation_return_error (inv, "sc_add needs numbers a and b");
      return TRUE;
    }
  sum = json_object_get_double_member (args, "a") + json_object_get_double_member (args, "b");
  if (!isfinite (sum))
    {
      zot_ext_invocation_return_error (inv, "sc_add: the sum is not a finite number");
      return TRUE;
    }
  text = format_number (sum);
  structured = g_strdup_printf ("{\"sum\":%s}", text);
  zot_ext_invocation_return_structured (inv, text, structured);
  return TRUE;
}

static gboolean
on_fail (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         gpointer          data)
{
  zot_ext_invocation_return_error (inv, "sc_fail always fails");
  return TRUE;
}

static gboolean
on_progress (ZotExtExtension  *ext,
             ZotExtInvocation *inv,
             gpointer          data)
{
  zot_ext_invocation_report_progress (inv, "sc_progress half way");
  zot_ext_invocation_return_text (inv, "sc_progress done");
  return TRUE;
}

/* C has no exceptions: a handler fails by returning FALSE without an
 * answer, and the library answers with an error result "sc_panic: …". */
static gboolean
on_panic (ZotExtExtension  *ext,
          ZotExtInvocation *inv,
          gpointer          data)
{
  return FALSE;
}

static void
on_wait_cancelled (GCancellable     *cancellable,
                   ZotExtInvocation *inv)
{
  /* The library drops this: the call was cancelled. */
  zot_ext_invocation_return_error (inv, "cancelled");
}

static gboolean
on_wait (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         gpointer          data)
{
  GCancellable *cancellable = zot_ext_invocation_get_cancellable (inv);

  zot_ext_extension_notify (ext, "info", "sc_wait started");
  if (g_cancellable_is_cancelled (cancellable))
    on_wait_cancelled (cancellable, inv);
  else
    g_signal_connect_data (cancellable, "cancelled", G_CALLBACK (on_wait_cancelled),
                           g_object_ref (inv), (GClosureNotify) (void (*) (void)) g_object_unref, 0);
  return TRUE;
}

static void
nested_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  ZotExtInvocation *inv = ZOT_EXT_INVOCATION (source);
  g_autoptr(ZotExtToolResult) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  reply = zot_ext_invocation_call_tool_finish (inv, result, &error);
  if (reply == NULL)
    {
      zot_ext_invocation_return_error_printf (inv, "nested failed: %s", error->message);
      return;
    }
  text = zot_ext_tool_result_get_text (reply);
  if (zot_ext_tool_result_get_is_error (reply))
    zot_ext_invocation_return_error_printf (inv, "nested failed: %s", text);
  else
    {
      g_autofree char *answer = g_strconcat ("nested: ", text, NULL);

      zot_ext_invocation_return_text (inv, answer);
    }
}

static gboolean
on_nested (ZotExtExtension  *ext,
           ZotExtInvocation *inv,
           gpointer          data)
{
  const char *path = zot_ext_invocation_get_string_arg (inv, "path");
  g_autoptr(JsonNode) args = json_node_init_object (json_node_alloc (), json_object_new ());
  g_autofree char *args_json = NULL;

  json_object_set_string_member (json_node_get_object (args), "path",
                                 path != NULL ? path : "scenario.txt");
  args_json = json_to_string (args, FALSE);
  zot_ext_invocation_call_tool_async (inv, "read", args_json, "k1", NULL, nested_done, NULL);
  return TRUE;
}

/* sc_ask: one question at a time, since the panel id is fixed. */
typedef struct
{
  ZotExtExtension  *ext;
  ZotExtInvocation *inv;
  gulong            key_handler;
  gulong            close_handler;
  gulong            cancel_handler;
} Ask;

static Ask *current_ask;

static void
ask_finish (Ask        *ask,
            const char *answer,
            gboolean    is_error)
{
  g_signal_handler_disconnect (ask->ext, ask->key_handler);
  g_signal_handler_disconnect (ask->ext, ask->close_handler);
  g_signal_handler_disconnect (zot_ext_invocation_get_cancellable (ask->inv), ask->cancel_handler);
  if (current_ask == ask)
    current_ask = NULL;

  /* The panel closes before the result goes out, whatever ended it. */
  zot_ext_extension_close_panel (ask->ext, ASK_PANEL);
  if (answer != NULL && is_error)
    zot_ext_invocation_return_error (ask->inv, answer);
  else if (answer != NULL)
    zot_ext_invocation_return_text (ask->inv, answer);

  g_object_unref (ask->inv);
  g_object_unref (ask->ext);
  g_free (ask);
}

static void
on_ask_key (ZotExtExtension *ext,
            const char      *panel_id,
            const char      *key,
            const char      *text,
            Ask             *ask)
{
  if (g_str_equal (key, "enter"))
    ask_finish (ask, "yes", FALSE);
  else if (g_str_equal (key, "esc"))
    ask_finish (ask, "dismissed", TRUE);
}

static void
on_ask_closed (ZotExtExtension *ext,
               const char      *panel_id,
               Ask             *ask)
{
  ask_finish (ask, "dismissed", TRUE);
}

static void
on_ask_cancelled (GCancellable *cancellable,
                  Ask          *ask)
{
  ask_finish (ask, NULL, FALSE);
}

static gboolean
on_ask (ZotExtExtension  *ext,
        ZotExtInvocation *inv,
        gpointer          data)
{
  const char *question = zot_ext_invocation_get_string_arg (inv, "question");
  const char *lines[] = { question != NULL ? question : "", NULL };
  Ask *ask;

  if (current_ask != NULL)
    {
      zot_ext_invocation_return_error (inv, "sc_ask: another question is open");
      return TRUE;
    }

  ask = g_new0 (Ask, 1);
  ask->ext = g_object_ref (ext);
  ask->inv = g_object_ref (inv);
  current_ask = ask;
  zot_ext_extension_open_panel (ext, ASK_PANEL, "Question", lines, "enter answers, esc dismisses");
  ask->key_handler = g_signal_connect (ext, "panel-key::" ASK_PANEL, G_CALLBACK (on_ask_key), ask);
  ask->close_handler = g_signal_connect (ext, "panel-close::" ASK_PANEL, G_CALLBACK (on_ask_closed), ask);
  if (g_cancellable_is_cancelled (zot_ext_invocation_get_cancellable (inv)))
    {
      ask->cancel_handler = 0;
      g_signal_handler_disconnect (ext, ask->key_handler);
      g_signal_handler_disconnect (ext, ask->close_handler);
      current_ask = NULL;
      zot_ext_extension_close_panel (ext, ASK_PANEL);
      g_object_unref (ask->inv);
      g_object_unref (ask->ext);
      g_free (ask);
      return TRUE;
    }
  ask->cancel_handler = g_signal_connect (zot_ext_invocation_get_cancellable (inv), "cancelled",
                                          G_CALLBACK (on_ask_cancelled), ask);
  return TRUE;
}

/* Commands */

static const char *menu_first[] = { "> one", "  two", NULL };
static const char *menu_second[] = { "  one", "> two", NULL };

static void
on_menu_key (ZotExtExtension *ext,
             const char      *panel_id,
             const char      *key,
             const char      *text,
             gpointer         data)
{
  if (g_str_equal (key, "down"))
    zot_ext_extension_render_panel (ext, MENU_PANEL, "Scenario", menu_second, "esc closes");
  else if (g_str_equal (key, "up"))
    zot_ext_extension_render_panel (ext, MENU_PANEL, "Scenario", menu_first, "esc closes");
  else if (g_str_equal (key, "esc"))
    zot_ext_extension_close_panel (ext, MENU_PANEL);
}

static gboolean
on_command (ZotExtExtension         *ext,
            ZotExtCommandInvocation *inv,
            gpointer                 data)
{
  const char *name = zot_ext_command_invocation_get_name (inv);
  const char *args = zot_ext_command_invocation_get_args (inv);
  g_autofree char *text = NULL;

  if (g_str_equal (name, "sc-prompt"))
    {
      text = g_strconcat ("hello ", args, NULL);
      zot_ext_command_invocation_return_prompt (inv, text);
    }
  else if (g_str_equal (name, "sc-insert"))
    zot_ext_command_invocation_return_insert (inv, args);
  else if (g_str_equal (name, "sc-display"))
    {
      text = g_strconcat ("shown: ", args, NULL);
      zot_ext_command_invocation_return_display (inv, text);
    }
  else if (g_str_equal (name, "sc-noop"))
    zot_ext_command_invocation_return_noop (inv);
  else if (g_str_equal (name, "sc-error"))
    {
      text = g_strconcat ("failed: ", args, NULL);
      zot_ext_command_invocation_return_error (inv, text);
    }
  else if (g_str_equal (name, "sc-tool-prompt"))
    {
      g_autoptr(JsonNode) tool_args = json_node_init_object (json_node_alloc (), json_object_new ());
      g_autoptr(GError) error = NULL;

      json_object_set_string_member (json_node_get_object (tool_args), "text", args);
      text = json_to_string (tool_args, FALSE);
      if (!zot_ext_command_invocation_return_tool_prompt (inv, "run echo", "sc_echo", text, &error))
        zot_ext_command_invocation_return_error (inv, error->message);
    }
  else if (g_str_equal (name, "sc-panel"))
    zot_ext_command_invocation_return_open_panel (inv, MENU_PANEL, "Scenario", menu_first, "esc closes");
  else if (g_str_equal (name, "sc-submit"))
    {
      text = g_strconcat ("submitted ", args, NULL);
      zot_ext_command_invocation_return_noop (inv);
      zot_ext_extension_submit (ext, text);
    }
  else
    return FALSE;

  return TRUE;
}

/* Events and interception */

static void
on_turn_end (ZotExtExtension *ext,
             ZotExtEvent     *event,
             gpointer         data)
{
  const char *stop = zot_ext_event_get_string (event, "stop");
  g_autofree char *message = g_strconcat ("turn ended: ", stop != NULL ? stop : "", NULL);

  zot_ext_extension_notify (ext, "info", message);
}

static gboolean
on_intercept_tool_call (ZotExtExtension           *ext,
                        ZotExtInterceptInvocation *inv,
                        gpointer                   data)
{
  const char *tool = zot_ext_intercept_invocation_get_tool_name (inv);
  JsonObject *args = zot_ext_intercept_invocation_get_tool_args (inv);
  const char *value = NULL;

  if (args != NULL && g_strcmp0 (tool, "bash") == 0)
    value = json_object_get_string_member_with_default (args, "command", NULL);
  else if (args != NULL && g_strcmp0 (tool, "sc_echo") == 0)
    value = json_object_get_string_member_with_default (args, "text", NULL);

  if (g_strcmp0 (tool, "bash") == 0 && value != NULL && strstr (value, "rm -rf") != NULL)
    zot_ext_intercept_invocation_block (inv, "scenario guard: refused");
  else if (g_strcmp0 (tool, "sc_echo") == 0 && g_strcmp0 (value, "rewrite") == 0)
    zot_ext_intercept_invocation_modify_args (inv, "{\"text\":\"rewritten\"}", NULL);
  else
    zot_ext_intercept_invocation_allow (inv);
  return TRUE;
}

static gboolean
on_before_agent_start (ZotExtExtension           *ext,
                       ZotExtInterceptInvocation *inv,
                       gpointer                   data)
{
  const char *prompt = zot_ext_intercept_invocation_get_string (inv, "system_prompt");
  g_autofree char *replacement = g_strconcat (prompt != NULL ? prompt : "", "\n(scenario)", NULL);

  if (!zot_ext_intercept_invocation_set_system_prompt (inv, replacement, NULL))
    zot_ext_intercept_invocation_allow (inv);
  return TRUE;
}

static void
must (gboolean  ok,
      GError   *error)
{
  if (!ok)
    g_error ("registration failed: %s", error->message);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(ZotExtExtension) ext = zot_ext_extension_new ("scenario-c", "1.0.0");
  g_autoptr(GError) error = NULL;
  const char *commands[] = { "sc-prompt", "sc-insert", "sc-display", "sc-noop", "sc-error",
                             "sc-tool-prompt", "sc-panel", "sc-submit", NULL };

  must (zot_ext_extension_add_tool (ext, "sc_echo", "Echo text unchanged", echo_schema, 0, &error), error);
  must (zot_ext_extension_add_tool_full (ext, "sc_add", "Add two numbers", add_schema, add_output_schema,
                                         "scenario", "Scenario arithmetic", NULL,
                                         ZOT_EXT_EXPOSURE_CODEMODE, 0, &error), error);
  must (zot_ext_extension_add_tool (ext, "sc_fail", "Always fails", "{\"type\":\"object\"}", 0, &error), error);
  must (zot_ext_extension_add_tool (ext, "sc_progress", "Reports progress", "{\"type\":\"object\"}",
                                    ZOT_EXT_TOOL_READ_ONLY, &error), error);
  must (zot_ext_extension_add_tool (ext, "sc_panic", "Always panics", "{\"type\":\"object\"}", 0, &error), error);
  must (zot_ext_extension_add_tool (ext, "sc_wait", "Waits until cancelled", "{\"type\":\"object\"}", 0, &error), error);
  must (zot_ext_extension_add_tool (ext, "sc_nested", "Reads a file through the host", nested_schema, 0, &error), error);
  must (zot_ext_extension_add_tool (ext, "sc_ask", "Asks the user", ask_schema, ZOT_EXT_TOOL_INTERACTIVE, &error), error);

  g_signal_connect (ext, "tool-call::sc_echo", G_CALLBACK (on_echo), NULL);
  g_signal_connect (ext, "tool-call::sc_add", G_CALLBACK (on_add), NULL);
  g_signal_connect (ext, "tool-call::sc_fail", G_CALLBACK (on_fail), NULL);
  g_signal_connect (ext, "tool-call::sc_panic", G_CALLBACK (on_panic), NULL);
  g_signal_connect (ext, "tool-call::sc_progress", G_CALLBACK (on_progress), NULL);
  g_signal_connect (ext, "tool-call::sc_wait", G_CALLBACK (on_wait), NULL);
  g_signal_connect (ext, "tool-call::sc_nested", G_CALLBACK (on_nested), NULL);
  g_signal_connect (ext, "tool-call::sc_ask", G_CALLBACK (on_ask), NULL);

  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *detailed = g_strconcat ("command::", commands[i], NULL);

      must (zot_ext_extension_add_command (ext, commands[i], "Scenario command", &error), error);
      g_signal_connect (ext, detailed, G_CALLBACK (on_command), NULL);
    }
  g_signal_connect (ext, "panel-key::" MENU_PANEL, G_CALLBACK (on_menu_key), NULL);

  zot_ext_extension_subscribe (ext, "turn_end");
  zot_ext_extension_intercept (ext, "tool_call");
  zot_ext_extension_intercept (ext, "before_agent_start");
  g_signal_connect (ext, "event::turn_end", G_CALLBACK (on_turn_end), NULL);
  g_signal_connect (ext, "intercept::tool_call", G_CALLBACK (on_intercept_tool_call), NULL);
  g_signal_connect (ext, "intercept::before_agent_start", G_CALLBACK (on_before_agent_start), NULL);

  return zot_ext_extension_run (ext);
}
