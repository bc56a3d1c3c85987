/* test-mcp-flatpak.c — MCP servers inside the Flatpak (extensions/mcp/
 * zot-mcp-client.c, zot-mcp-box.c, docs/mcp.md): the built-in bridge runs
 * in the sandbox, and starts each stdio server on the host through
 * `flatpak-spawn --host`, a boxed one as bwrap there with its variables
 * through a descriptor. Against tests/fake-flatpak-spawn.py, as
 * test-box.c does for extensions; the bridge is told it is sandboxed by
 * $ZOT_TEST_FLATPAK_INFO. */
#include "config.h"

#include <string.h>

#include "zot-mcp-test-util.h"

typedef struct
{
  char *log;
  char *marker;
} Sandbox;

static void
sandbox_begin (Fixture *f,
               Sandbox *sandbox)
{
  sandbox->log = zot_test_fake_sandbox_begin (f->env.root);
  sandbox->marker = g_build_filename (f->env.root, "flatpak-info", NULL);
  g_setenv ("ZOT_TEST_FLATPAK_INFO", sandbox->marker, TRUE);
}

static void
sandbox_end (Sandbox *sandbox)
{
  zot_test_fake_sandbox_end ();
  g_unsetenv ("ZOT_TEST_FLATPAK_INFO");
  g_free (sandbox->log);
  g_free (sandbox->marker);
}

/* The host as the app runs it: the bridge found as a built-in extension
 * ($ZOT_BUILTIN_EXTENSIONS_DIR), not named by a path. */
static void
start_builtin (Fixture *f)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  ZotExtensionManager *manager;
  ZotExtension *bridge;

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  manager = zot_host_get_manager (f->host);
  zot_test_record_events (manager, f->events);
  zot_test_record_notes (manager, f->notes);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
  zot_extension_manager_set_policy (manager, ZOT_APPROVAL_POLICY_YOLO);
  bridge = zot_extension_manager_find (manager, ZOT_MCP_EXTENSION_NAME);
  g_assert_nonnull (bridge);
  g_assert_true (zot_extension_get_scope (bridge) == ZOT_EXTENSION_SCOPE_BUILTIN);
  g_assert_true (zot_extension_get_state (bridge) == ZOT_EXTENSION_STATE_READY);
}

/* The calls flatpak-spawn got, one JSON line each. */
static char *
calls (Sandbox *sandbox)
{
  char *text = NULL;

  if (!g_file_get_contents (sandbox->log, &text, NULL, NULL))
    return g_strdup ("");
  return text;
}

/* An unconfined server: the host's, through flatpak-spawn --host, with
 * the entry's variables as --env; the bridge itself stays in the
 * sandbox. */
static void
test_host (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *script = fake_server ();
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *json = NULL;
  g_autofree char *logged = NULL;
  g_autofree char *directory = NULL;
  Sandbox sandbox = { 0 };

  sandbox_begin (f, &sandbox);
  json = g_strdup_printf ("{\"mcpServers\": {\"hosted\": {\"command\": \"python3\", \"args\": [\"%s\", \"normal\"], "
                          "\"env\": {\"FAKE_WORD\": \"from the entry\"}}}}", script);
  write_file (path, json);
  start_builtin (f);
  wait_for_tool (f, "mcp__hosted__echo");
  zot_example_expect_result (f, "mcp__hosted__echo", "{\"text\":\"$FAKE_WORD\"}", FALSE, "from the entry\n(echoed)");
  logged = calls (&sandbox);
  g_test_message ("flatpak-spawn calls:\n%s", logged);
  g_assert_cmpuint (zot_test_count (logged, "\"--host\""), ==, 1);
  g_assert_nonnull (strstr (logged, "\"--watch-bus\""));
  g_assert_nonnull (strstr (logged, "\"--env=FAKE_WORD=from the entry\""));
  directory = g_strdup_printf ("\"--directory=%s\"", f->env.cwd);
  g_assert_nonnull (strstr (logged, directory));
  g_assert_nonnull (strstr (logged, "\"--\", \"python3\""));
  g_assert_null (strstr (logged, "zot-mcp-bridge"));

  sandbox_end (&sandbox);
}

/* A boxed server: bwrap on the host, its variables in a descriptor, none
 * on flatpak-spawn's or bwrap's command line. */
static void
test_boxed (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *script = NULL;
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *json = NULL;
  g_autofree char *logged = NULL;
  JsonObject *result;
  Sandbox sandbox = { 0 };

  if (!bwrap_works () || !g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("bwrap cannot create namespaces here, or there is no /usr/bin/python3");
      return;
    }
  script = project_script (f);
  sandbox_begin (f, &sandbox);
  json = g_strdup_printf ("{\"mcpServers\": {\"boxed\": {\"command\": \"python3\", \"args\": [\"%s\", \"normal\"], "
                          "\"env\": {\"FAKE_WORD\": \"secret words\"}, "
                          "\"permissions\": {\"filesystem\": \"project\"}}}}", script);
  write_file (path, json);
  start_builtin (f);
  wait_for_tool (f, "mcp__boxed__echo");
  zot_example_expect_result (f, "mcp__boxed__echo", "{\"text\":\"$FAKE_WORD\"}", FALSE, "secret words\n(echoed)");
  result = zot_example_model_calls (f, "mcp__boxed__echo", "{\"text\":\"$HOME\"}");
  g_assert_nonnull (strstr (zot_test_json_string_at (result, "result/content/0/text"), "/box/mcp/boxed/home"));
  logged = calls (&sandbox);
  g_test_message ("flatpak-spawn calls:\n%s", logged);
  g_assert_nonnull (strstr (logged, "\"--host\""));
  g_assert_nonnull (strstr (logged, "\"--forward-fd=3\""));
  g_assert_nonnull (strstr (logged, "\"--\", \"bwrap\""));
  g_assert_nonnull (strstr (logged, "\"--clearenv\""));
  g_assert_nonnull (strstr (logged, "\"--args\", \"3\""));
  g_assert_null (strstr (logged, "secret words"));
  g_assert_null (strstr (logged, "--env="));
  sandbox_end (&sandbox);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/mcp/flatpak/host", Fixture, NULL, fixture_setup, test_host, fixture_teardown);
  g_test_add ("/mcp/flatpak/boxed", Fixture, NULL, fixture_setup, test_boxed, fixture_teardown);
  return g_test_run ();
}
