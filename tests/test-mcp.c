/* test-mcp.c — the MCP bridge (extensions/mcp, docs/mcp.md): its
 * configuration files, the built-in folder it is found in, the tools of
 * a fake server (tests/fake-mcp-server.py) called through the host with
 * the demo model, each way a server can go wrong, and a real server
 * (@modelcontextprotocol/server-filesystem, installed by tools/deps.sh). */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

#include "zot-discovery.h"
#include "zot-grants.h"
#include "zot-example-host.h"
#include "zot-extension-secrets.h"
#include "zot-limits.h"
#include "zot-mcp-config.h"
#include "zot-mcp-test-util.h"

/* ---- configuration ---- */

static void
test_config_formats (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *user = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *project = g_build_filename (f->env.cwd, ".zot", "mcp.json", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) servers = NULL;
  ZotMcpServer *server;

  write_file (user, "{\"mcpServers\": {"
                    "\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"server\"], \"env\": {\"A\": \"1\"}},"
                    "\"web\": {\"url\": \"https://example.com/mcp\", \"headers\": {\"Authorization\": \"Bearer x\"}},"
                    "\"off\": {\"command\": \"x\", \"disabled\": true},"
                    "\"broken\": {\"command\": \"x\", \"args\": \"not an array\"}},"
                    "\"other\": 1}");
  write_file (project, "{\"servers\": {\"fs\": {\"type\": \"stdio\", \"command\": \"project-fs\"}}}");

  /* Untrusted, the project's file is not read, and the note says how to trust it. */
  servers = zot_mcp_config_load (f->env.cwd, notes);
  g_assert_cmpuint (servers->len, ==, 2);
  server = g_ptr_array_index (servers, 0);
  g_assert_cmpstr (server->name, ==, "fs");
  g_assert_cmpstr (server->command, ==, "npx");
  g_assert_cmpstr (server->args[1], ==, "server");
  g_assert_cmpstr (server->env[0], ==, "A=1");
  server = g_ptr_array_index (servers, 1);
  g_assert_cmpstr (server->name, ==, "web");
  g_assert_cmpint (server->transport, ==, ZOT_MCP_TRANSPORT_HTTP);
  g_assert_cmpstr (server->headers[0], ==, "Authorization: Bearer x");
  g_assert_cmpuint (notes->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), "mcpServers.broken.args"));
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), user));
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 1), "zot mcp trust"));

  /* Trusted, the project's server replaces the user's of its name. */
  g_assert_true (zot_mcp_trust_project (f->env.cwd, NULL));
  g_ptr_array_set_size (notes, 0);
  g_clear_pointer (&servers, g_ptr_array_unref);
  servers = zot_mcp_config_load (f->env.cwd, notes);
  g_assert_cmpuint (servers->len, ==, 2);
  server = g_ptr_array_index (servers, 0);
  g_assert_cmpstr (server->command, ==, "project-fs");
  g_assert_cmpstr (server->origin, ==, project);
}

static void
test_config_bad_files (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) servers = NULL;
  g_autoptr(GString) many = g_string_new ("{\"servers\": {");

  write_file (path, "{\"mcpServers\": ");
  servers = zot_mcp_config_read (path, notes);
  g_assert_cmpuint (servers->len, ==, 0);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), "not valid JSON"));

  /* At the edge: the most servers a file may have, then one more. */
  for (guint i = 0; i <= ZOT_MCP_SERVERS_MAX; i++)
    g_string_append_printf (many, "%s\"s%03u\": {\"command\": \"x\"}", i > 0 ? "," : "", i);
  g_string_append (many, "}}");
  write_file (path, many->str);
  g_ptr_array_set_size (notes, 0);
  g_clear_pointer (&servers, g_ptr_array_unref);
  servers = zot_mcp_config_read (path, notes);
  g_assert_cmpuint (servers->len, ==, ZOT_MCP_SERVERS_MAX);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), "the rest are skipped"));

  /* The most arguments a server may have, then one more. */
  g_string_assign (many, "{\"mcpServers\": {\"edge\": {\"command\": \"x\", \"args\": [\"a\"");
  for (guint i = 1; i < ZOT_MCP_SERVER_ARGS_MAX; i++)
    g_string_append (many, ", \"a\"");
  g_string_append (many, "]}, \"over\": {\"command\": \"x\", \"args\": [\"a\"");
  for (guint i = 1; i <= ZOT_MCP_SERVER_ARGS_MAX; i++)
    g_string_append (many, ", \"a\"");
  g_string_append (many, "]}}}");
  write_file (path, many->str);
  g_ptr_array_set_size (notes, 0);
  g_clear_pointer (&servers, g_ptr_array_unref);
  servers = zot_mcp_config_read (path, notes);
  g_assert_cmpuint (servers->len, ==, 1);
  g_assert_cmpuint (g_strv_length (((ZotMcpServer *) g_ptr_array_index (servers, 0))->args), ==,
                    ZOT_MCP_SERVER_ARGS_MAX);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), "mcpServers.over.args"));

  /* A file over the size is not read at all: one note names it. */
  g_string_assign (many, "{\"mcpServers\": {\"x\": {\"command\": \"x\"}}, \"pad\": \"");
  while (many->len < ZOT_MCP_CONFIG_MAX_BYTES)
    g_string_append_c (many, ' ');
  g_string_append (many, "\"}");
  write_file (path, many->str);
  g_ptr_array_set_size (notes, 0);
  g_clear_pointer (&servers, g_ptr_array_unref);
  servers = zot_mcp_config_read (path, notes);
  g_assert_cmpuint (servers->len, ==, 0);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (notes, 0), path));
}

static void
test_names (void)
{
  g_autofree char *plain = zot_mcp_tool_name ("fs", "read_file");
  g_autofree char *dotted = zot_mcp_tool_name ("my server", "a.b");
  g_autofree char *edge = zot_mcp_tool_name ("s", "12345678901234567890123456789012345678901234567890123456");
  g_autofree char *over = zot_mcp_tool_name ("s", "123456789012345678901234567890123456789012345678901234567");
  g_autofree char *over2 = zot_mcp_tool_name ("s", "123456789012345678901234567890123456789012345678901234568");
  g_autofree char *space = zot_mcp_namespace ("my.server");

  g_assert_cmpstr (plain, ==, "mcp__fs__read_file");
  g_assert_cmpstr (dotted, ==, "mcp__my_server__a_b");
  g_assert_cmpuint (strlen (edge), ==, ZOT_TOOL_NAME_MAX_CHARS);
  g_assert_true (g_str_has_suffix (edge, "56"));
  g_assert_cmpuint (strlen (over), ==, ZOT_TOOL_NAME_MAX_CHARS);
  g_assert_cmpuint (strlen (over2), ==, ZOT_TOOL_NAME_MAX_CHARS);
  g_assert_cmpstr (over, !=, over2);
  g_assert_cmpstr (space, ==, "mcp_my_server");
}

/* ---- zot mcp ---- */

static int
run_zot_mcp (Fixture            *f,
             const char * const *args,
             char              **out,
             char              **err)
{
  g_auto(ZotTestRun) run = { 0 };
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;

  g_strv_builder_add_many (builder, g_getenv ("ZOT_BIN"), "mcp", NULL);
  g_strv_builder_addv (builder, (const char **) args);
  argv = g_strv_builder_end (builder);
  zot_test_run_argv (&run, f->env.cwd, NULL, NULL, 20000, (const char * const *) argv);
  if (out != NULL)
    {
      g_free (*out);
      *out = g_steal_pointer (&run.out);
    }
  if (err != NULL)
    {
      g_free (*err);
      *err = g_steal_pointer (&run.err);
    }
  return run.status;
}

static void
test_cli (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  const char *add_stdio[] = { "add", "files", "--", "npx", "-y", "server", "/tmp", NULL };
  const char *add_http[] = { "add", "web", "--url", "https://example.com/mcp", "--header", "X-Key: a:b", NULL };
  const char *list[] = { "list", NULL };
  const char *remove[] = { "remove", "files", NULL };
  const char *bad_name[] = { "add", "a b", "--", "x", NULL };
  const char *neither[] = { "add", "x", NULL };
  const char *trust[] = { "trust", NULL };
  g_autoptr(GPtrArray) servers = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *text = NULL;
  ZotMcpServer *server;

  /* What the file holds besides servers stays. */
  write_file (path, "{\"theme\": {\"keep\": true}}");
  g_assert_cmpint (run_zot_mcp (f, add_stdio, NULL, NULL), ==, 0);
  g_assert_cmpint (run_zot_mcp (f, add_http, NULL, NULL), ==, 0);
  g_assert_cmpint (run_zot_mcp (f, add_stdio, NULL, &err), ==, 1);
  g_assert_nonnull (strstr (err, "zot mcp remove files first"));
  g_assert_cmpint (run_zot_mcp (f, bad_name, NULL, NULL), ==, 2);
  g_assert_cmpint (run_zot_mcp (f, neither, NULL, NULL), ==, 2);

  servers = zot_mcp_config_read (path, NULL);
  g_assert_cmpuint (servers->len, ==, 2);
  server = g_ptr_array_index (servers, 0);
  g_assert_cmpstr (server->name, ==, "files");
  g_assert_cmpstr (server->command, ==, "npx");
  g_assert_cmpuint (g_strv_length (server->args), ==, 3);
  server = g_ptr_array_index (servers, 1);
  g_assert_cmpstr (server->url, ==, "https://example.com/mcp");
  g_assert_cmpstr (server->headers[0], ==, "X-Key: a:b");
  text = zot_test_read_file (path);
  g_assert_nonnull (strstr (text, "\"keep\" : true"));

  g_assert_cmpint (run_zot_mcp (f, list, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "files"));
  g_assert_nonnull (strstr (out, "npx -y server /tmp"));
  g_assert_nonnull (strstr (out, "https://example.com/mcp"));

  g_assert_cmpint (run_zot_mcp (f, remove, NULL, NULL), ==, 0);
  g_assert_cmpint (run_zot_mcp (f, remove, NULL, &err), ==, 1);
  g_clear_pointer (&servers, g_ptr_array_unref);
  servers = zot_mcp_config_read (path, NULL);
  g_assert_cmpuint (servers->len, ==, 1);

  g_assert_false (zot_mcp_project_trusted (f->env.cwd));
  g_assert_cmpint (run_zot_mcp (f, trust, NULL, NULL), ==, 0);
  g_assert_true (zot_mcp_project_trusted (f->env.cwd));

  /* A file it cannot read is left as it is. */
  write_file (path, "{not json");
  g_assert_cmpint (run_zot_mcp (f, add_stdio, NULL, NULL), ==, 1);
  g_clear_pointer (&text, g_free);
  text = zot_test_read_file (path);
  g_assert_cmpstr (text, ==, "{not json");
}

/* Claude Desktop's and a project's VS Code servers, copied by name. */
static void
test_cli_import (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *fake_home = g_build_filename (f->env.root, "user", NULL);
  g_autofree char *claude = g_build_filename (fake_home, ".config", "Claude", "claude_desktop_config.json", NULL);
  g_autofree char *vscode = g_build_filename (f->env.cwd, ".vscode", "mcp.json", NULL);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  const char *env[] = { "HOME", fake_home, NULL };
  const char *list[] = { g_getenv ("ZOT_BIN"), "mcp", "import", NULL };
  const char *copy[] = { g_getenv ("ZOT_BIN"), "mcp", "import", "files", "web", NULL };
  const char *unknown[] = { g_getenv ("ZOT_BIN"), "mcp", "import", "nobody", NULL };
  g_autoptr(GPtrArray) servers = NULL;
  g_auto(ZotTestRun) listed = { 0 };
  g_auto(ZotTestRun) copied = { 0 };
  g_auto(ZotTestRun) again = { 0 };
  g_auto(ZotTestRun) missing = { 0 };

  write_file (claude, "{\"mcpServers\": {\"files\": {\"command\": \"npx\", \"args\": [\"-y\", \"fs\"]}}, "
                      "\"globalShortcut\": \"\"}");
  write_file (vscode, "{\"servers\": {\"web\": {\"type\": \"http\", \"url\": \"https://example.com/mcp\"}}}");
  zot_test_run_argv (&listed, f->env.cwd, env, NULL, 20000, list);
  g_assert_cmpint (listed.status, ==, 0);
  g_assert_nonnull (strstr (listed.out, claude));
  g_assert_nonnull (strstr (listed.out, "web "));
  g_assert_nonnull (strstr (listed.out, ".vscode/mcp.json"));

  zot_test_run_argv (&copied, f->env.cwd, env, NULL, 20000, copy);
  g_assert_cmpint (copied.status, ==, 0);
  servers = zot_mcp_config_read (path, NULL);
  g_assert_cmpuint (servers->len, ==, 2);
  g_assert_cmpstr (((ZotMcpServer *) g_ptr_array_index (servers, 0))->command, ==, "npx");
  g_assert_cmpstr (((ZotMcpServer *) g_ptr_array_index (servers, 1))->url, ==, "https://example.com/mcp");
  /* An imported stdio server is boxed: the project read-write, the network. */
  g_assert_nonnull (((ZotMcpServer *) g_ptr_array_index (servers, 0))->permissions);
  g_assert_cmpint (((ZotMcpServer *) g_ptr_array_index (servers, 0))->permissions->filesystem, ==, ZOT_FILESYSTEM_PROJECT);
  g_assert_true (((ZotMcpServer *) g_ptr_array_index (servers, 0))->permissions->network);

  zot_test_run_argv (&again, f->env.cwd, env, NULL, 20000, copy);
  g_assert_cmpint (again.status, ==, 1);
  g_assert_nonnull (strstr (again.err, "is there already"));
  zot_test_run_argv (&missing, f->env.cwd, env, NULL, 20000, unknown);
  g_assert_cmpint (missing.status, ==, 1);
  g_assert_nonnull (strstr (missing.err, "no server named “nobody” to import"));
}

/* ---- the built-in folder ---- */

static gboolean
order_has_bridge (GPtrArray *order)
{
  for (guint i = 0; i < order->len; i++)
    {
      ZotDiscovered *discovered = g_ptr_array_index (order, i);

      if (discovered->manifest != NULL &&
          g_str_equal (zot_manifest_get_name (discovered->manifest), ZOT_MCP_EXTENSION_NAME))
        {
          g_assert_cmpint (discovered->scope, ==, ZOT_EXTENSION_SCOPE_BUILTIN);
          g_assert_cmpuint (i, ==, order->len - 1);
          return TRUE;
        }
    }
  return FALSE;
}

static void
test_discovery (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autoptr(GPtrArray) without = NULL;
  g_autoptr(GPtrArray) with = NULL;
  g_autoptr(GPtrArray) no_ext = NULL;

  without = zot_discover_extensions (f->env.cwd, NULL, FALSE);
  g_assert_false (order_has_bridge (without));

  write_file (path, "{\"mcpServers\": {}}");
  with = zot_discover_extensions (f->env.cwd, NULL, FALSE);
  g_assert_true (order_has_bridge (with));
  g_assert_cmpstr (zot_extension_scope_to_string (ZOT_EXTENSION_SCOPE_BUILTIN), ==, "built-in");
  no_ext = zot_discover_extensions (f->env.cwd, NULL, TRUE);
  g_assert_false (order_has_bridge (no_ext));
}

/* ---- a fake server ---- */

static void
expect_structured (Fixture    *f,
                   const char *tool_name,
                   const char *args_json,
                   const char *structured)
{
  g_autoptr(JsonNode) node = tool_structured (f, tool_name, args_json);
  g_autofree char *json = json_to_string (node, FALSE);

  g_assert_cmpstr (json, ==, structured);
}

static void
test_fake_normal (Fixture       *f,
                  gconstpointer  data)
{
  const char *modes[] = { "normal", NULL };
  g_autofree char *long_name = NULL;
  g_autoptr(ZotTool) echo = NULL;
  JsonObject *result;

  configure_fakes (f, modes);
  start_bridge (f);
  /* The last page's tools: both pages were listed. */
  wait_for_tool (f, "mcp__normal__dotted_name");
  echo = find_tool (f, "mcp__normal__echo");
  g_assert_nonnull (echo);
  g_assert_cmpstr (zot_tool_get_namespace (echo), ==, "mcp_normal");
  g_assert_cmpstr (zot_tool_get_namespace_instructions (echo), ==, "Fake server instructions.");
  g_assert_nonnull (zot_tool_get_output_schema (echo));
  /* It offers no resources: the resource tools are not there. */
  g_assert_null (find_tool (f, "mcp_resources"));

  zot_example_expect_result (f, "mcp__normal__echo", "{\"text\":\"hello\"}", FALSE, "hello\n(echoed)");
  expect_structured (f, "mcp__normal__echo", "{\"text\":\"hi\"}", "{\"echoed\":\"hi\"}");
  zot_example_expect_result (f, "mcp__normal__fail", "{}", TRUE, "it failed on purpose");
  result = zot_example_model_calls (f, "mcp__normal__picture", "{}");
  g_assert_cmpstr (zot_test_json_string_at (result, "result/content/0/type"), ==, "image");

  /* dotted.name and dotted_name are one name: the first listed wins. */
  zot_example_expect_result (f, "mcp__normal__dotted_name", "{}", FALSE, "called dotted.name");

  /* The long name: cut to the host's limit, ending in a hash. */
  long_name = zot_mcp_tool_name ("normal", "a_tool_whose_name_is_much_too_long_for_the_host_"
                                           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
  g_assert_cmpuint (strlen (long_name), ==, ZOT_TOOL_NAME_MAX_CHARS);
  zot_example_expect_result (f, long_name, "{}", FALSE,
                             "called a_tool_whose_name_is_much_too_long_for_the_host_"
                             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
}

/* Each way a server goes wrong is an error result or a note naming it;
 * the bridge and the host go on, and a good server still answers. */
static void
test_fake_failures (Fixture       *f,
                    gconstpointer  data)
{
  const char *modes[] = { "big", "crash", "dies", "hangs", "invalid", "normal", "notools", "silent", NULL };
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *more = NULL;
  g_autoptr(ZotCommandReply) status = NULL;

  /* Short deadlines for the servers that hang or never answer. */
  g_setenv ("ZOT_TEST_TIMEOUTS", "mcp-connect=5000,mcp-request=2000", TRUE);
  configure_fakes (f, modes);
  /* And one whose command does not exist. */
  text = zot_test_read_file (path);
  text[strlen (text) - 2] = '\0';
  more = g_strconcat (text, ", \"missing\": {\"command\": \"/nonexistent/mcp-server\"}, "
                     "\"unreachable\": {\"url\": \"http://127.0.0.1:1/mcp\"}}}", NULL);
  write_file (path, more);
  start_bridge (f);
  wait_for_note (f, "MCP server missing: could not start /nonexistent/mcp-server");
  wait_for_note (f, "MCP server unreachable: ");
  wait_for_note (f, "MCP server dies exited with status 4; its last words: "
                    "fake-mcp-server: cannot start: no such database");
  wait_for_tool (f, "mcp__big__echo");
  wait_for_tool (f, "mcp__crash__echo");
  wait_for_tool (f, "mcp__hangs__echo");
  wait_for_tool (f, "mcp__invalid__echo");
  wait_for_tool (f, "mcp__normal__echo");

  zot_example_expect_result (f, "mcp__big__echo", "{\"text\":\"a\"}", TRUE,
                             "MCP server big answered tools/call with more than 4 MiB");
  zot_example_expect_result (f, "mcp__hangs__echo", "{\"text\":\"a\"}", TRUE,
                             "MCP server hangs did not answer tools/call within 2 s");
  zot_example_expect_result (f, "mcp__invalid__echo", "{\"text\":\"a\"}", TRUE,
                             "MCP server invalid answered tools/call with something that is not JSON-RPC 2.0");
  zot_example_expect_result (f, "mcp__crash__echo", "{\"text\":\"a\"}", TRUE,
                             "MCP server crash exited with status 3; its last words: "
                             "fake-mcp-server: crashing in the middle of a call");
  wait_for_note (f, "MCP server crash exited with status 3");
  /* A later call to the dead server says why at once. */
  zot_example_expect_result (f, "mcp__crash__echo", "{\"text\":\"a\"}", TRUE, "exited with status 3");
  wait_for_note (f, "MCP server silent did not answer initialize within 5 s");
  g_assert_null (find_tool (f, "mcp__silent__echo"));
  /* A server without tools is not asked for them: no note about it. */
  for (guint i = 0; i < f->notes->len; i++)
    g_assert_null (strstr (g_ptr_array_index (f->notes, i), "notools"));

  zot_example_expect_result (f, "mcp__normal__echo", "{\"text\":\"still here\"}", FALSE, "still here\n(echoed)");

  /* /mcp says how each server is; of its six tools two share a name. */
  status = zot_example_command (f, "mcp", "", ZOT_COMMAND_REPLY_DISPLAY);
  g_assert_nonnull (strstr (zot_command_reply_get_text (status), "normal (stdio): ready, 5 tools, 0 resources, 0 prompts"));
  g_assert_nonnull (strstr (zot_command_reply_get_text (status),
                            "silent (stdio): failed: MCP server silent did not answer initialize within 5 s"));
  g_assert_nonnull (strstr (zot_command_reply_get_text (status), "unreachable (http): failed: MCP server unreachable: "));
}

static gboolean
log_has_cancel (gpointer data)
{
  g_autofree char *log = zot_test_read_file (data);

  return log != NULL && strstr (log, "\"notifications/cancelled\"") != NULL &&
         strstr (log, "\"requestId\": 4") != NULL;
}

static gboolean
log_has_call (gpointer data)
{
  g_autofree char *log = zot_test_read_file (data);

  return log != NULL && strstr (log, "\"tools/call\"") != NULL;
}

static void
log_changed_cb (GFileMonitor      *monitor,
                GFile             *file,
                GFile             *other,
                GFileMonitorEvent  event,
                gpointer           user_data)
{
}

/* A cancelled call tells the server which request to drop. */
static void
test_fake_cancel (Fixture       *f,
                  gconstpointer  data)
{
  const char *modes[] = { "hangs", NULL };
  g_autofree char *log = g_build_filename (f->env.root, "fake-mcp.log", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) args = zot_test_json_object_from ("{\"text\":\"a\"}");
  g_autoptr(ZotTool) tool = NULL;
  g_autoptr(ZotToolResult) result = NULL;
  ZotToolContext context = { .cwd = f->env.cwd };
  GAsyncResult *async = NULL;
  g_autoptr(GFile) log_file = g_file_new_for_path (log);
  /* Only the fake server writes the log: the monitor wakes the loop that waits for it. */
  g_autoptr(GFileMonitor) monitor = g_file_monitor_file (log_file, G_FILE_MONITOR_NONE, NULL, NULL);

  g_assert_nonnull (monitor);
  g_file_monitor_set_rate_limit (monitor, 50);
  g_signal_connect (monitor, "changed", G_CALLBACK (log_changed_cb), NULL);
  g_setenv ("FAKE_MCP_LOG", log, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  wait_for_tool (f, "mcp__hangs__echo");
  tool = find_tool (f, "mcp__hangs__echo");
  /* Requests 1 to 3 were initialize and tools/list's two pages: 4 is the call. */
  zot_tool_execute_async (tool, args, &context, cancellable, keep_result_cb, &async);
  zot_test_wait_until (log_has_call, log, 20000);
  g_cancellable_cancel (cancellable);
  while (async == NULL)
    g_main_context_iteration (NULL, TRUE);
  result = zot_tool_execute_finish (tool, async, NULL);
  g_object_unref (async);
  zot_test_wait_until (log_has_cancel, log, 20000);
  g_unsetenv ("FAKE_MCP_LOG");
}

static guint
count_in_file (const char *path,
               const char *part)
{
  g_autofree char *text = zot_test_read_file (path);
  guint count = 0;

  for (const char *at = text; at != NULL && (at = strstr (at, part)) != NULL; at++)
    count++;
  return count;
}

/* A server stops once idle and starts again on the next call, which
 * waits for its handshake; its tools stay registered meanwhile. */
static void
test_fake_idle (Fixture       *f,
                gconstpointer  data)
{
  const char *modes[] = { "normal", NULL };
  g_autofree char *log = g_build_filename (f->env.root, "fake-mcp.log", NULL);

  g_setenv ("ZOT_TEST_TIMEOUTS", "mcp-connect=20000,mcp-request=20000,mcp-idle=200", TRUE);
  g_setenv ("FAKE_MCP_LOG", log, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  wait_for_tool (f, "mcp__normal__echo");
  wait_for_status (f, "normal (stdio): stopped, starts on the next call");
  g_assert_cmpuint (count_in_file (log, "\"initialize\""), ==, 1);
  g_assert_nonnull (find_tool (f, "mcp__normal__echo"));

  zot_example_expect_result (f, "mcp__normal__echo", "{\"text\":\"again\"}", FALSE, "again\n(echoed)");
  g_assert_cmpuint (count_in_file (log, "\"initialize\""), ==, 2);
  wait_for_status (f, "normal (stdio): stopped");
  /* Started again, it was not asked for its tools again (it has stopped
   * since, so all it was asked is in the log). */
  g_assert_cmpuint (count_in_file (log, "\"tools/list\""), ==, 2);
  zot_example_expect_result (f, "mcp__normal__echo", "{\"text\":\"third\"}", FALSE, "third\n(echoed)");
  g_assert_cmpuint (count_in_file (log, "\"initialize\""), ==, 3);
  g_unsetenv ("FAKE_MCP_LOG");
}

/* /mcp in the window: a row per server with its state and buttons, and
 * the form that adds one to mcp.json and starts it. */
static void
test_panel (Fixture       *f,
            gconstpointer  data)
{
  const char *modes[] = { "dies", "normal", NULL };
  g_autofree char *script = fake_server ();
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *target = NULL;
  g_autofree char *dir = bridge_dir ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) configs = NULL;
  ZotPanelRow *row;
  ZotPanel *panel;

  configure_fakes (f, modes);
  zot_example_start (f, dir, ZOT_MCP_EXTENSION_NAME, TRUE);
  panel = zot_example_open_panel (f, "mcp");
  row = wait_for_row (panel, "normal", "stdio · ready, 5 tools, 0 resources, 0 prompts · unconfined");
  g_assert_cmpstr (row_button (row, 0), ==, "stop");
  g_assert_cmpstr (row_button (row, 1), ==, "restart");
  /* A server that did not start says why, with its last words. */
  row = wait_for_row (panel, "dies", "failed: MCP server dies exited with status 4; its last words: "
                                     "fake-mcp-server: cannot start: no such database");
  g_assert_cmpstr (row_button (row, 0), ==, "start");
  g_assert_null (row_button (row, 1));
  g_assert_cmpstr (zot_example_widget (panel, "error-dies")->text, ==,
                   "dies: MCP server dies exited with status 4; its last words: "
                   "fake-mcp-server: cannot start: no such database");

  zot_example_panel_event (f, panel, "servers", "button", "{\"row\":\"normal\",\"button\":\"stop\"}");
  row = wait_for_row (panel, "normal", "stopped, starts on the next call");
  g_assert_cmpstr (row_button (row, 0), ==, "start");
  zot_example_panel_event (f, panel, "servers", "button", "{\"row\":\"normal\",\"button\":\"start\"}");
  wait_for_row (panel, "normal", "ready, 5 tools");
  zot_example_panel_event (f, panel, "servers", "button", "{\"row\":\"normal\",\"button\":\"restart\"}");
  wait_for_row (panel, "normal", "ready, 5 tools");
  zot_example_expect_result (f, "mcp__normal__echo", "{\"text\":\"after\"}", FALSE, "after\n(echoed)");

  /* The form: a bad name is said, and nothing is written. */
  zot_example_panel_event (f, panel, "add-name", "changed", "\"no spaces\"");
  zot_example_panel_event (f, panel, "add", "clicked", NULL);
  g_assert_nonnull (strstr (zot_example_widget (panel, "add-result")->text, "“no spaces” is not a server name"));
  g_assert_null (server_row (panel, "no spaces"));

  target = g_strdup_printf ("python3 '%s' normal", script);
  zot_example_panel_event (f, panel, "add-name", "changed", "\"third\"");
  {
    g_autofree char *json = g_strdup_printf ("\"%s\"", target);

    zot_example_panel_event (f, panel, "add-target", "changed", json);
  }
  zot_example_panel_event (f, panel, "add", "clicked", NULL);
  g_assert_nonnull (strstr (zot_example_widget (panel, "add-result")->text, "Added third to"));
  g_assert_cmpstr (zot_example_widget (panel, "add-name")->value, ==, "");
  configs = zot_mcp_config_read (path, notes);
  g_assert_cmpuint (configs->len, ==, 3);
  g_assert_cmpstr (((ZotMcpServer *) g_ptr_array_index (configs, 2))->name, ==, "third");
  g_assert_cmpstr (((ZotMcpServer *) g_ptr_array_index (configs, 2))->command, ==, "python3");
  wait_for_row (panel, "third", "ready, 5 tools");
  wait_for_tool (f, "mcp__third__echo");
}

static void
stored_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_extension_secrets_store_finish (result, &error));
  g_assert_no_error (error);
  *(gboolean *) data = TRUE;
}

static char *
secret_list (Fixture *f)
{
  g_auto(ZotTestRun) run = { 0 };
  const char *argv[] = { g_getenv ("ZOT_BIN"), "ext", "secret", "list", ZOT_MCP_EXTENSION_NAME, NULL };

  zot_test_run_argv (&run, f->env.cwd, NULL, NULL, 20000, argv);
  g_assert_cmpint (run.status, ==, 0);
  return g_steal_pointer (&run.out);
}

#define SECRET_VALUE "s3cr3t-for-keyed-only"

/* ${secret:NAME} in env is the bridge's secret mcp/SERVER/NAME: that
 * server gets it, the file keeps the reference, another server naming
 * the same NAME does not get it. */
static void
test_secrets (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *script = fake_server ();
  g_autofree char *store = g_build_filename (f->env.root, "secrets", NULL);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  const char *keyed[] = { "add", "keyed", "--env", "TOKEN=Bearer ${secret:TOKEN}", "--env", "PLAIN=1",
                          "--", "python3", script, "normal", NULL };
  const char *other[] = { "add", "other", "--env", "TOKEN=${secret:TOKEN}", "--", "python3", script, "normal", NULL };
  g_autofree char *listed = NULL;
  g_autofree char *added = NULL;
  g_autofree char *text = NULL;
  gboolean stored = FALSE;

  g_setenv ("ZOT_TEST_EXTENSION_SECRETS_FILE", store, TRUE);
  g_assert_cmpint (run_zot_mcp (f, keyed, &added, NULL), ==, 0);
  /* add says how to set the secret it names. */
  g_assert_nonnull (strstr (added, "Set its secret with: zot ext secret set mcp mcp/keyed/TOKEN\n"));
  g_assert_cmpint (run_zot_mcp (f, other, NULL, NULL), ==, 0);
  listed = secret_list (f);
  g_assert_cmpstr (listed, ==, "mcp/keyed/TOKEN\tnot set\nmcp/other/TOKEN\tnot set\n");
  zot_extension_secrets_store_async (ZOT_MCP_EXTENSION_NAME, "mcp/keyed/TOKEN", SECRET_VALUE, NULL, stored_cb, &stored);
  while (!stored)
    g_main_context_iteration (NULL, TRUE);
  g_free (listed);
  listed = secret_list (f);
  g_assert_cmpstr (listed, ==, "mcp/keyed/TOKEN\tset\nmcp/other/TOKEN\tnot set\n");

  start_bridge (f);
  wait_for_tool (f, "mcp__keyed__echo");
  zot_example_expect_result (f, "mcp__keyed__echo", "{\"text\":\"$TOKEN\"}", FALSE, "Bearer " SECRET_VALUE "\n(echoed)");
  zot_example_expect_result (f, "mcp__keyed__echo", "{\"text\":\"$PLAIN\"}", FALSE, "1\n(echoed)");
  wait_for_note (f, "MCP server other: the secret mcp/other/TOKEN is not set; "
                    "set it with: zot ext secret set mcp mcp/other/TOKEN");
  g_assert_null (find_tool (f, "mcp__other__echo"));
  text = zot_test_read_file (path);
  g_assert_nonnull (strstr (text, "Bearer ${secret:TOKEN}"));
  g_assert_null (strstr (text, SECRET_VALUE));
  for (guint i = 0; i < f->notes->len; i++)
    g_assert_null (strstr (g_ptr_array_index (f->notes, i), SECRET_VALUE));
  g_unsetenv ("ZOT_TEST_EXTENSION_SECRETS_FILE");
}

/* A server with "permissions" runs in the box: with the project's rights
 * it reads the project, not the rest of $HOME, which the same server
 * without a box reads. */
static void
test_box (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *source = fake_server ();
  g_autofree char *script = g_build_filename (f->env.cwd, "fake-mcp-server.py", NULL);
  g_autofree char *user_home = g_build_filename (f->env.root, "user", NULL);
  g_autofree char *private_file = g_build_filename (user_home, "private.txt", NULL);
  g_autofree char *inside = g_build_filename (f->env.cwd, "inside.txt", NULL);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *code = NULL;
  g_autofree char *json = NULL;
  g_autofree char *read_private = NULL;
  g_autofree char *read_inside = NULL;
  g_autofree char *saved_home = g_strdup (g_getenv ("HOME"));
  g_autoptr(ZotCommandReply) status = NULL;

  if (!bwrap_works () || !g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("bwrap cannot create namespaces here, or there is no /usr/bin/python3");
      return;
    }
  code = zot_test_read_file (source);
  write_file (script, code);
  write_file (private_file, "private words");
  write_file (inside, "inside words");
  json = g_strdup_printf ("{\"mcpServers\": {"
                          "\"boxed\": {\"command\": \"/usr/bin/python3\", \"args\": [\"%s\", \"normal\"], "
                          "\"permissions\": {\"filesystem\": \"project\"}}, "
                          "\"open\": {\"command\": \"/usr/bin/python3\", \"args\": [\"%s\", \"normal\"]}}}",
                          script, script);
  write_file (path, json);
  g_setenv ("HOME", user_home, TRUE);
  start_bridge (f);
  wait_for_tool (f, "mcp__boxed__echo");
  wait_for_tool (f, "mcp__open__echo");
  read_private = g_strdup_printf ("{\"text\":\"<%s\"}", private_file);
  read_inside = g_strdup_printf ("{\"text\":\"<%s\"}", inside);
  zot_example_expect_result (f, "mcp__boxed__echo", read_private, FALSE, "cannot read: No such file or directory\n(echoed)");
  zot_example_expect_result (f, "mcp__boxed__echo", read_inside, FALSE, "inside words\n(echoed)");
  zot_example_expect_result (f, "mcp__open__echo", read_private, FALSE, "private words\n(echoed)");
  status = zot_example_command (f, "mcp", "", ZOT_COMMAND_REPLY_DISPLAY);
  g_assert_nonnull (strstr (zot_command_reply_get_text (status), "open (stdio): ready"));
  if (saved_home != NULL)
    g_setenv ("HOME", saved_home, TRUE);
}

/* At the edges: the most tools a server may offer, the most pages. */
static void
test_fake_limits (Fixture       *f,
                  gconstpointer  data)
{
  const char *modes[] = { "endless", "many", NULL };
  g_autofree char *log = g_build_filename (f->env.root, "fake-mcp.log", NULL);
  g_autofree char *last = g_strdup_printf ("mcp__many__t%d", ZOT_MCP_TOOLS_MAX);
  g_autofree char *over = g_strdup_printf ("mcp__many__t%d", ZOT_MCP_TOOLS_MAX + 1);
  g_autofree char *last_page = g_strdup_printf ("mcp__endless__t%d", ZOT_MCP_LIST_PAGES_MAX);
  g_autofree char *next_cursor = g_strdup_printf ("\"page-%d\"", ZOT_MCP_LIST_PAGES_MAX + 1);
  g_autofree char *logged = NULL;
  g_autofree char *count = g_strdup_printf ("%d", ZOT_MCP_TOOLS_MAX + 1);
  g_autofree char *last_text = g_strdup_printf ("called t%d", ZOT_MCP_TOOLS_MAX);

  g_setenv ("FAKE_MCP_LOG", log, TRUE);
  g_setenv ("FAKE_MCP_TOOLS", count, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  wait_for_tool (f, last);
  wait_for_tool (f, last_page);
  /* Each answer comes after what the bridge sent before the call: a
   * tool past the limit, or a request for one more page. */
  zot_example_expect_result (f, last, "{}", FALSE, last_text);
  zot_example_expect_result (f, last_page, "{}", FALSE, "called t64");
  g_assert_null (find_tool (f, over));
  logged = zot_test_read_file (log);
  g_assert_null (strstr (logged, next_cursor));
  g_unsetenv ("FAKE_MCP_LOG");
  g_unsetenv ("FAKE_MCP_TOOLS");
}

/* A line of the most bytes is read; one byte more is dropped, and the
 * call says why. The note of a server that ends keeps the whole lines of
 * the last ZOT_MCP_STDERR_TAIL_BYTES of its stderr. */
static void
test_fake_edges (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *at = g_strdup_printf ("sized-%" G_GSIZE_FORMAT, ZOT_MCP_LINE_MAX_BYTES);
  g_autofree char *over = g_strdup_printf ("sized-%" G_GSIZE_FORMAT, ZOT_MCP_LINE_MAX_BYTES + 1);
  g_autofree char *at_tool = g_strdup_printf ("mcp__%s__echo", at);
  g_autofree char *over_tool = g_strdup_printf ("mcp__%s__echo", over);
  g_autofree char *tail = g_strnfill (100, 'b');
  g_autofree char *words = g_strdup_printf ("exited with status 3; its last words: %s\nfinal words", tail);
  const char *modes[] = { at, over, "loud", NULL };

  configure_fakes (f, modes);
  start_bridge (f);
  wait_for_tool (f, at_tool);
  wait_for_tool (f, over_tool);
  wait_for_tool (f, "mcp__loud__echo");
  zot_example_expect_result (f, at_tool, "{}", FALSE, "edge");
  zot_example_expect_result (f, over_tool, "{}", TRUE, "with more than 4 MiB; the answer was dropped");
  zot_example_expect_result (f, "mcp__loud__echo", "{}", TRUE, words);
}

/* ---- a real server ---- */

static gboolean
has_command (gpointer data)
{
  void **pair = data;

  return zot_extension_manager_lookup_command (zot_host_get_manager (((Fixture *) pair[0])->host),
                                               pair[1], NULL) != NULL;
}

/* The server's resources through the two tools, a prompt as a command. */
static void
check_everything_extras (Fixture *f)
{
  void *pair[] = { f, "mcp:every:args-prompt" };
  g_autoptr(ZotCommandReply) named = NULL;
  g_autoptr(ZotCommandReply) plain = NULL;
  g_autoptr(ZotCommandReply) status = NULL;
  JsonObject *result;

  wait_for_tool (f, "mcp_read_resource");
  result = zot_example_model_calls (f, "mcp_resources", "{\"server\":\"every\"}");
  g_assert_false (json_node_get_boolean (zot_test_json_node_at (result, "result/is_error")));
  g_assert_nonnull (strstr (zot_test_json_string_at (result, "result/content/0/text"),
                            "every demo://resource/static/document/architecture.md architecture.md"));
  result = zot_example_model_calls (f, "mcp_read_resource",
                                    "{\"server\":\"every\",\"uri\":\"demo://resource/static/document/architecture.md\"}");
  g_assert_false (json_node_get_boolean (zot_test_json_node_at (result, "result/is_error")));
  g_assert_true (g_str_has_prefix (zot_test_json_string_at (result, "result/content/0/text"),
                                   "# Everything Server"));
  zot_example_expect_result (f, "mcp_read_resource", "{\"server\":\"nobody\",\"uri\":\"x\"}", TRUE,
                             "mcp_resources lists them");

  zot_test_wait_until (has_command, pair, 20000);
  named = zot_example_command (f, "mcp:every:args-prompt", "city=Berlin state=Berlin", ZOT_COMMAND_REPLY_PROMPT);
  g_assert_cmpstr (zot_command_reply_get_text (named), ==, "What's weather in Berlin, Berlin?");
  plain = zot_example_command (f, "mcp:every:args-prompt", "Paris", ZOT_COMMAND_REPLY_PROMPT);
  g_assert_cmpstr (zot_command_reply_get_text (plain), ==, "What's weather in Paris?");
  zot_example_command_fails (f, "mcp:every:args-prompt", "", "/mcp:every:args-prompt needs city=…");

  status = zot_example_command (f, "mcp", "", ZOT_COMMAND_REPLY_DISPLAY);
  g_assert_true (g_str_has_prefix (zot_command_reply_get_text (status), "every (stdio): ready, "));
  g_assert_nonnull (strstr (zot_command_reply_get_text (status), " resources, "));
  g_assert_null (strstr (zot_command_reply_get_text (status), " 0 resources, "));
}

static void
test_real_everything (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *node = NULL;
  g_autofree char *server = real_server ("server-everything", &node);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *json = NULL;
  JsonObject *result;

  if (server == NULL)
    return;
  json = g_strdup_printf ("{\"servers\": {\"every\": {\"type\": \"stdio\", \"command\": \"%s\", "
                          "\"args\": [\"%s\", \"stdio\"]}}}", node, server);
  write_file (path, json);
  g_setenv ("ZOT_TEST_TIMEOUTS", "mcp-connect=20000,mcp-request=20000,mcp-idle=3000", TRUE);
  start_bridge (f);
  wait_for_tool (f, "mcp__every__get-structured-content");
  wait_for_tool (f, "mcp__every__get-tiny-image");
  zot_example_expect_result (f, "mcp__every__echo", "{\"message\":\"hi\"}", FALSE, "Echo: hi");
  expect_structured (f, "mcp__every__get-structured-content", "{\"location\":\"Chicago\"}",
                     "{\"temperature\":36,\"conditions\":\"Light rain / drizzle\",\"humidity\":82}");
  result = zot_example_model_calls (f, "mcp__every__get-tiny-image", "{}");
  g_assert_false (json_node_get_boolean (zot_test_json_node_at (result, "result/is_error")));
  g_assert_cmpstr (zot_test_json_string_at (result, "result/content/1/type"), ==, "image");
  check_everything_extras (f);
  /* Resources and prompts of a server stopped while idle start it again. */
  wait_for_status (f, "every (stdio): stopped");
  check_everything_extras (f);
}

typedef struct
{
  GDataInputStream *stream;
  gboolean          listening;
  gboolean          ended;
} Listening;

static void
server_line_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Listening *state = user_data;
  g_autofree char *line = g_data_input_stream_read_line_finish (state->stream, result, NULL, NULL);

  if (line == NULL)
    state->ended = TRUE;
  else if (strstr (line, "listening on port") != NULL)
    state->listening = TRUE;
  else
    g_data_input_stream_read_line_async (state->stream, G_PRIORITY_DEFAULT, NULL, server_line_cb, state);
}

static gboolean
listening_or_ended (gpointer data)
{
  Listening *state = data;

  return state->listening || state->ended;
}

/* A server the test starts ends with the test, even one that fails. */
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/* The same server over Streamable HTTP, on a port that was free. */
static void
test_real_everything_http (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *node = NULL;
  g_autofree char *server = real_server ("server-everything", &node);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *port_text = NULL;
  g_autofree char *json = NULL;
  Listening state = { 0 };
  guint16 port;

  if (server == NULL)
    return;
  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_close (listener);
  port_text = g_strdup_printf ("%u", port);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "PORT", port_text, TRUE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  process = g_subprocess_launcher_spawn (launcher, &error, node, server, "streamableHttp", NULL);
  g_assert_no_error (error);
  state.stream = g_data_input_stream_new (g_subprocess_get_stderr_pipe (process));
  g_data_input_stream_read_line_async (state.stream, G_PRIORITY_DEFAULT, NULL, server_line_cb, &state);
  zot_test_wait_until (listening_or_ended, &state, 20000);
  g_assert_true (state.listening);

  json = g_strdup_printf ("{\"servers\": {\"web\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:%u/mcp\", "
                          "\"headers\": {\"X-Test\": \"1\"}}}}", port);
  write_file (path, json);
  start_bridge (f);
  wait_for_tool (f, "mcp__web__get-structured-content");
  zot_example_expect_result (f, "mcp__web__echo", "{\"message\":\"over http\"}", FALSE, "Echo: over http");
  expect_structured (f, "mcp__web__get-structured-content", "{\"location\":\"New York\"}",
                     "{\"temperature\":33,\"conditions\":\"Cloudy\",\"humidity\":82}");

  g_subprocess_force_exit (process);
  g_assert_false (g_subprocess_wait (process, NULL, NULL) && g_subprocess_get_successful (process));
  g_object_unref (state.stream);
}

static void
test_real_filesystem (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *node = NULL;
  g_autofree char *server = real_server ("server-filesystem", &node);
  g_autofree char *path = g_build_filename (f->env.home, "mcp.json", NULL);
  g_autofree char *json = NULL;
  g_autofree char *args = NULL;
  g_autofree char *notes = g_build_filename (f->env.cwd, "notes.md", NULL);
  g_autofree char *canonical = g_canonicalize_filename (notes, NULL);

  if (server == NULL)
    return;
  json = g_strdup_printf ("{\"mcpServers\": {\"fs\": {\"command\": \"%s\", \"args\": [\"%s\", \"%s\"]}}}",
                          node, server, f->env.cwd);
  write_file (path, json);
  start_bridge (f);
  wait_for_tool (f, "mcp__fs__read_text_file");
  args = g_strdup_printf ("{\"path\":\"%s\"}", canonical);
  zot_example_expect_result (f, "mcp__fs__read_text_file", args, FALSE, ZOT_EXAMPLE_NOTES_TEXT);
  zot_example_expect_result (f, "mcp__fs__read_text_file", "{\"path\":\"/etc/passwd\"}", TRUE,
                             "Access denied");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp/names", test_names);
  g_test_add ("/mcp/config/formats", Fixture, NULL, fixture_setup, test_config_formats, fixture_teardown);
  g_test_add ("/mcp/config/bad-files", Fixture, NULL, fixture_setup, test_config_bad_files, fixture_teardown);
  g_test_add ("/mcp/cli", Fixture, NULL, fixture_setup, test_cli, fixture_teardown);
  g_test_add ("/mcp/cli-import", Fixture, NULL, fixture_setup, test_cli_import, fixture_teardown);
  g_test_add ("/mcp/discovery", Fixture, NULL, fixture_setup, test_discovery, fixture_teardown);
  g_test_add ("/mcp/fake/normal", Fixture, NULL, fixture_setup, test_fake_normal, fixture_teardown);
  g_test_add ("/mcp/fake/failures", Fixture, NULL, fixture_setup, test_fake_failures, fixture_teardown);
  g_test_add ("/mcp/fake/limits", Fixture, NULL, fixture_setup, test_fake_limits, fixture_teardown);
  g_test_add ("/mcp/fake/edges", Fixture, NULL, fixture_setup, test_fake_edges, fixture_teardown);
  g_test_add ("/mcp/fake/cancel", Fixture, NULL, fixture_setup, test_fake_cancel, fixture_teardown);
  g_test_add ("/mcp/fake/idle", Fixture, NULL, fixture_setup, test_fake_idle, fixture_teardown);
  g_test_add ("/mcp/panel", Fixture, NULL, fixture_setup, test_panel, fixture_teardown);
  g_test_add ("/mcp/secrets", Fixture, NULL, fixture_setup, test_secrets, fixture_teardown);
  g_test_add ("/mcp/box", Fixture, NULL, fixture_setup, test_box, fixture_teardown);
  g_test_add ("/mcp/real/everything", Fixture, NULL, fixture_setup, test_real_everything, fixture_teardown);
  g_test_add ("/mcp/real/everything-http", Fixture, NULL, fixture_setup, test_real_everything_http, fixture_teardown);
  g_test_add ("/mcp/real/filesystem", Fixture, NULL, fixture_setup, test_real_filesystem, fixture_teardown);
  return g_test_run ();
}
