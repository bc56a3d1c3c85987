/* zot-mcp-test-util.c — what the MCP bridge's tests share: the fixture,
 * configuration files naming the fake server (tests/fake-mcp-server.py)
 * or a real one of tests/node_modules, and waiting for tools and notes. */
#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-test-util.h"

void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_example_setup (f);
  /* Deadlines long enough for a loaded machine; the failures test
   * shortens them. */
  g_setenv ("ZOT_TEST_TIMEOUTS", "mcp-connect=20000,mcp-request=20000", TRUE);
}

void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_example_teardown (f);
  g_unsetenv ("ZOT_TEST_TIMEOUTS");
}

char *
fake_server (void)
{
  return g_test_build_filename (G_TEST_DIST, "fake-mcp-server.py", NULL);
}

void
write_file (const char *path,
            const char *text)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* $ZOT_HOME/mcp.json with a fake server per mode. */
void
configure_fakes (Fixture            *f,
                 const char * const *modes)
{
  g_autofree char *script = fake_server ();
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autoptr(GString) json = g_string_new ("{\"mcpServers\": {");

  for (guint i = 0; modes[i] != NULL; i++)
    g_string_append_printf (json, "%s\"%s\": {\"command\": \"python3\", \"args\": [\"%s\", \"%s\"]}",
                            i > 0 ? ", " : "", modes[i], script, modes[i]);
  g_string_append (json, "}}");
  write_file (path, json->str);
}

char *
bridge_dir (void)
{
  g_autofree char *builtin = g_strdup (g_getenv ("ZOT_BUILTIN_EXTENSIONS_DIR"));

  g_assert_nonnull (builtin);
  return g_build_filename (builtin, "mcp", NULL);
}

ZotTool *
find_tool (Fixture    *f,
           const char *name)
{
  g_autoptr(GPtrArray) tools = zot_extension_manager_list_tools (zot_host_get_manager (f->host));

  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (zot_tool_get_name (g_ptr_array_index (tools, i)), name))
      return g_object_ref (g_ptr_array_index (tools, i));
  return NULL;
}

typedef struct
{
  Fixture    *f;
  const char *name;
} ToolWait;

static gboolean
has_tool (gpointer data)
{
  ToolWait *wait = data;
  g_autoptr(ZotTool) tool = find_tool (wait->f, wait->name);

  return tool != NULL;
}

/* Tools come as the servers list them, after the bridge is ready. */
void
wait_for_tool (Fixture    *f,
               const char *name)
{
  ToolWait wait = { f, name };

  zot_test_wait_until (has_tool, &wait, 20000);
}

static gboolean
has_note (gpointer data)
{
  void **pair = data;
  GPtrArray *notes = pair[0];

  for (guint i = 0; i < notes->len; i++)
    if (strstr (g_ptr_array_index (notes, i), pair[1]) != NULL)
      return TRUE;
  return FALSE;
}

void
wait_for_note (Fixture    *f,
               const char *part)
{
  void *pair[] = { f->notes, (void *) part };

  zot_test_wait_until (has_note, pair, 20000);
}

void
start_bridge (Fixture *f)
{
  g_autofree char *dir = bridge_dir ();

  zot_example_start (f, dir, ZOT_MCP_EXTENSION_NAME, FALSE);
}

/* node and a server of tests/node_modules, or %NULL and the test skipped. */
char *
real_server (const char *package,
             char      **node)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "node_modules", "@modelcontextprotocol",
                                                   package, "dist", "index.js", NULL);

  *node = g_find_program_in_path ("node");
  if (*node == NULL || !g_file_test (script, G_FILE_TEST_EXISTS))
    {
      g_autofree char *why = g_strdup_printf ("@modelcontextprotocol/%s is not in tests/node_modules "
                                              "(or node is missing): run bash tools/deps.sh, "
                                              "which installs it with npm", package);

      g_test_skip (why);
      return NULL;
    }
  return g_steal_pointer (&script);
}


void
keep_result_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

JsonNode *
tool_structured (Fixture    *f,
                 const char *tool_name,
                 const char *args_json)
{
  g_autoptr(ZotTool) tool = find_tool (f, tool_name);
  g_autoptr(JsonObject) args = zot_test_json_object_from (args_json);
  g_autoptr(ZotToolResult) result = NULL;
  ZotToolContext context = { .cwd = f->env.cwd };
  GAsyncResult *async = NULL;

  g_assert_nonnull (tool);
  zot_tool_execute_async (tool, args, &context, NULL, keep_result_cb, &async);
  while (async == NULL)
    g_main_context_iteration (NULL, TRUE);
  result = zot_tool_execute_finish (tool, async, NULL);
  g_object_unref (async);
  g_assert_nonnull (result);
  g_assert_false (result->is_error);
  g_assert_nonnull (result->structured_content);
  return json_node_copy (result->structured_content);
}

/* /mcp (without a window: in words) until it says @part. */
void
wait_for_status (Fixture    *f,
                 const char *part)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  for (;;)
    {
      g_autoptr(ZotCommandReply) status = zot_example_command (f, "mcp", "", ZOT_COMMAND_REPLY_DISPLAY);

      if (strstr (zot_command_reply_get_text (status), part) != NULL)
        return;
      if (g_get_monotonic_time () > deadline)
        g_error ("/mcp never said “%s”; it says “%s”", part, zot_command_reply_get_text (status));
      g_main_context_iteration (NULL, FALSE);
    }
}

ZotPanelRow *
list_row (ZotPanel   *panel,
          const char *list_id,
          const char *id)
{
  ZotPanelNode *list = zot_panel_node_find (zot_panel_get_widgets (panel), list_id);

  for (guint i = 0; list != NULL && i < list->rows->len; i++)
    if (g_str_equal (((ZotPanelRow *) g_ptr_array_index (list->rows, i))->id, id))
      return g_ptr_array_index (list->rows, i);
  return NULL;
}

ZotPanelRow *
server_row (ZotPanel   *panel,
            const char *name)
{
  return list_row (panel, "servers", name);
}

ZotPanelRow *
wait_for_row (ZotPanel   *panel,
              const char *name,
              const char *part)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  ZotPanelRow *row;

  while ((row = server_row (panel, name)) == NULL || strstr (row->subtitle, part) == NULL)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the /mcp panel's row %s never said “%s”; it says “%s”", name, part,
                 row != NULL ? row->subtitle : "(no row)");
      g_main_context_iteration (NULL, TRUE);
    }
  return row;
}

const char *
row_button (ZotPanelRow *row,
            guint        i)
{
  return i < row->buttons->len ? ((ZotPanelRowButton *) g_ptr_array_index (row->buttons, i))->id : NULL;
}

gboolean
bwrap_works (void)
{
  const char *probe[] = { "bwrap", "--ro-bind", "/", "/", "true", NULL };
  int status = -1;

  return g_spawn_sync (NULL, (char **) probe, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                       G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) && status == 0;
}

gboolean
configure_everything (Fixture *f)
{
  g_autofree char *node = NULL;
  g_autofree char *server = real_server ("server-everything", &node);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *json = NULL;

  if (server == NULL)
    return FALSE;
  json = g_strdup_printf ("{\"mcpServers\": {\"every\": {\"command\": \"%s\", \"args\": [\"%s\", \"stdio\"]}}}",
                          node, server);
  write_file (path, json);
  return TRUE;
}

char *
project_script (Fixture *f)
{
  g_autofree char *source = fake_server ();
  g_autofree char *code = zot_test_read_file (source);
  char *script = g_build_filename (f->env.cwd, "fake-mcp-server.py", NULL);

  write_file (script, code);
  return script;
}

typedef struct
{
  ZotPanel   *panel;
  const char *id;
  const char *part;
  int         active;
} WidgetWait;

static gboolean
widget_says (gpointer data)
{
  WidgetWait *wait = data;
  ZotPanelNode *node = zot_panel_node_find (zot_panel_get_widgets (wait->panel), wait->id);

  if (node == NULL)
    return FALSE;
  if (wait->part == NULL)
    return node->active == wait->active;
  return (node->text != NULL && strstr (node->text, wait->part) != NULL) ||
         (node->value != NULL && g_str_equal (node->value, wait->part));
}

void
wait_for_widget (ZotPanel   *panel,
                 const char *id,
                 const char *part,
                 int         active)
{
  WidgetWait wait = { panel, id, part, active };

  zot_test_wait_until (widget_says, &wait, 20000);
}

static gboolean
row_there (gpointer data)
{
  WidgetWait *wait = data;

  return list_row (wait->panel, wait->id, wait->part) != NULL;
}

ZotPanelRow *
wait_for_list_row (ZotPanel   *panel,
                   const char *list_id,
                   const char *id)
{
  WidgetWait wait = { panel, list_id, id, 0 };

  zot_test_wait_until (row_there, &wait, 20000);
  return list_row (panel, list_id, id);
}
