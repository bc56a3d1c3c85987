/* test-mcp-panel.c — the /mcp panel's editing (extensions/mcp/
 * zot-mcp-panel.c, docs/mcp.md): each stdio server's files and network,
 * saved to its entry's "permissions" and applied on its next start; and
 * "Import from…", which lists the servers other apps' files hold and
 * copies the chosen one to $ZOT_HOME/mcp.json, as `zot mcp import` does,
 * and starts it. Driven through the host's panel events, with the fake
 * server (tests/fake-mcp-server.py). */
#include "config.h"

#include <string.h>

#include "zot-mcp-test-util.h"

static JsonObject *
entry_permissions (const char *path,
                   const char *name)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *servers;
  JsonObject *entry;

  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  servers = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "mcpServers");
  entry = json_object_get_object_member (servers, name);
  return json_object_has_member (entry, "permissions")
         ? json_object_ref (json_object_get_object_member (entry, "permissions")) : NULL;
}

/* A server's box edited on the panel: written to mcp.json at once, the
 * running server left as it is, the box applied when it starts again. */
static void
test_permissions (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *script = NULL;
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *dir = bridge_dir ();
  g_autofree char *json = NULL;
  g_autoptr(JsonObject) permissions = NULL;
  g_autoptr(JsonObject) after = NULL;
  g_autofree char *home_echoed = g_strconcat (g_get_home_dir (), "\n(echoed)", NULL);
  JsonObject *result;
  ZotPanel *panel;

  if (!bwrap_works () || !g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("bwrap cannot create namespaces here, or there is no /usr/bin/python3");
      return;
    }
  script = project_script (f);
  json = g_strdup_printf ("{\"mcpServers\": {\"normal\": {\"command\": \"/usr/bin/python3\", "
                          "\"args\": [\"%s\", \"normal\"], \"env\": {\"KEEP\": \"1\"}}}}", script);
  write_file (path, json);
  zot_example_start (f, dir, ZOT_MCP_EXTENSION_NAME, TRUE);
  panel = zot_example_open_panel (f, "mcp");
  wait_for_row (panel, "normal", "ready, 5 tools, 0 resources, 0 prompts · unconfined");
  g_assert_cmpstr (zot_example_widget (panel, "perm-fs-normal")->value, ==, "unconfined");
  g_assert_cmpint (zot_example_widget (panel, "perm-net-normal")->active, ==, 1);
  /* Unconfined, it sees the real $HOME. */
  result = zot_example_model_calls (f, "mcp__normal__echo", "{\"text\":\"$HOME\"}");
  g_assert_cmpstr (zot_test_json_string_at (result, "result/content/0/text"), ==, home_echoed);

  zot_example_panel_event (f, panel, "perm-fs-normal", "selected", "\"project:ro\"");
  wait_for_widget (panel, "add-result", "Saved the permissions of normal: they apply on its next start", 0);
  wait_for_widget (panel, "perm-fs-normal", "project:ro", 0);
  permissions = entry_permissions (path, "normal");
  g_assert_nonnull (permissions);
  g_assert_cmpstr (json_object_get_string_member (permissions, "filesystem"), ==, "project:ro");
  g_assert_true (json_object_get_boolean_member (permissions, "network"));
  zot_example_panel_event (f, panel, "perm-net-normal", "toggled", "false");
  wait_for_widget (panel, "perm-net-normal", NULL, 0);
  after = entry_permissions (path, "normal");
  g_assert_cmpstr (json_object_get_string_member (after, "filesystem"), ==, "project:ro");
  g_assert_false (json_object_get_boolean_member (after, "network"));
  g_assert_cmpstr (zot_example_widget (panel, "perm-fs-normal")->value, ==, "project:ro");
  g_assert_cmpint (zot_example_widget (panel, "perm-net-normal")->active, ==, 0);

  /* The running server keeps its rights until it starts again. */
  zot_example_expect_result (f, "mcp__normal__echo", "{\"text\":\"$KEEP\"}", FALSE, "1\n(echoed)");
  result = zot_example_model_calls (f, "mcp__normal__echo", "{\"text\":\"$HOME\"}");
  g_assert_cmpstr (zot_test_json_string_at (result, "result/content/0/text"), ==, home_echoed);
  zot_example_panel_event (f, panel, "servers", "button", "{\"row\":\"normal\",\"button\":\"restart\"}");
  wait_for_row (panel, "normal", "ready, 5 tools");
  result = zot_example_model_calls (f, "mcp__normal__echo", "{\"text\":\"$HOME\"}");
  g_assert_nonnull (strstr (zot_test_json_string_at (result, "result/content/0/text"), "/box/mcp/normal/home"));

  /* Back to unconfined: "permissions" goes. */
  zot_example_panel_event (f, panel, "perm-fs-normal", "selected", "\"unconfined\"");
  wait_for_widget (panel, "perm-fs-normal", "unconfined", 0);
  g_clear_pointer (&permissions, json_object_unref);
  permissions = entry_permissions (path, "normal");
  g_assert_null (permissions);
}

/* "Import from…" lists Cursor's and the project's VS Code servers;
 * importing one writes it with the default box and starts it; a server
 * that is there already has no Import. */
static void
test_import (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *script = project_script (f);
  g_autofree char *user_home = g_build_filename (f->env.root, "user", NULL);
  g_autofree char *cursor = g_build_filename (user_home, ".cursor", "mcp.json", NULL);
  g_autofree char *vscode = g_build_filename (f->env.cwd, ".vscode", "mcp.json", NULL);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *saved_home = g_strdup (g_getenv ("HOME"));
  g_autofree char *dir = bridge_dir ();
  g_autofree char *json = NULL;
  g_autoptr(JsonObject) permissions = NULL;
  const char *modes[] = { "normal", NULL };
  ZotPanelRow *row;
  ZotPanel *panel;

  json = g_strdup_printf ("{\"mcpServers\": {\"cursorfake\": {\"command\": \"/usr/bin/python3\", \"args\": [\"%s\", \"normal\"]},"
                          " \"normal\": {\"command\": \"python3\", \"args\": [\"%s\", \"normal\"]}}}", script, script);
  write_file (cursor, json);
  write_file (vscode, "{\"servers\": {\"vsfake\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\"}}}");
  configure_fakes (f, modes);
  g_setenv ("HOME", user_home, TRUE);
  zot_example_start (f, dir, ZOT_MCP_EXTENSION_NAME, TRUE);
  panel = zot_example_open_panel (f, "mcp");
  wait_for_row (panel, "normal", "ready");
  g_assert_null (zot_panel_node_find (zot_panel_get_widgets (panel), "import-list"));

  zot_example_panel_event (f, panel, "import", "clicked", NULL);
  row = wait_for_list_row (panel, "import-list", "cursorfake");
  g_assert_nonnull (row);
  g_assert_cmpstr (row->subtitle, ==, cursor);
  g_assert_cmpstr (row_button (row, 0), ==, "import");
  row = list_row (panel, "import-list", "normal");
  g_assert_nonnull (strstr (row->subtitle, "added already"));
  g_assert_null (row_button (row, 0));
  row = list_row (panel, "import-list", "vsfake");
  g_assert_cmpstr (row->subtitle, ==, vscode);

  zot_example_panel_event (f, panel, "import-list", "button", "{\"row\":\"cursorfake\",\"button\":\"import\"}");
  wait_for_widget (panel, "add-result", "Added cursorfake to", 0);
  permissions = entry_permissions (path, "cursorfake");
  g_assert_cmpstr (json_object_get_string_member (permissions, "filesystem"), ==, "project");
  g_assert_true (json_object_get_boolean_member (permissions, "network"));
  g_assert_null (row_button (list_row (panel, "import-list", "cursorfake"), 0));
  if (bwrap_works ())
    {
      wait_for_row (panel, "cursorfake", "ready, 5 tools");
      wait_for_tool (f, "mcp__cursorfake__echo");
    }
  /* One imported twice says so. */
  zot_example_panel_event (f, panel, "import-list", "button", "{\"row\":\"cursorfake\",\"button\":\"import\"}");
  wait_for_widget (panel, "add-result", "a server named “cursorfake” is there already", 0);
  if (saved_home != NULL)
    g_setenv ("HOME", saved_home, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/mcp/panel/permissions", Fixture, NULL, fixture_setup, test_permissions, fixture_teardown);
  g_test_add ("/mcp/panel/import", Fixture, NULL, fixture_setup, test_import, fixture_teardown);
  return g_test_run ();
}
