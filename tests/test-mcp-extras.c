/* test-mcp-extras.c — MCP servers' resources and prompts as they change
 * (extensions/mcp/zot-mcp-resources.c, zot-mcp-extras.c, docs/mcp.md):
 * notifications/resources/list_changed refreshes the resources the bridge
 * keeps, notifications/prompts/list_changed the /mcp:SERVER:PROMPT
 * commands; resource templates are listed and a URI that matches one is
 * read without naming its server; the kept resources stop at
 * ZOT_MCP_RESOURCES_MAX. With the fake server (tests/fake-mcp-server.py)
 * and @modelcontextprotocol/server-everything. */
#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-test-util.h"

static gboolean
has_command (Fixture    *f,
             const char *name)
{
  return zot_extension_manager_lookup_command (zot_host_get_manager (f->host), name, NULL) != NULL;
}

static gboolean
command_appears (gpointer data)
{
  void **pair = data;

  return has_command (pair[0], pair[1]);
}

static const char *
resources_text (Fixture    *f,
                JsonObject *result)
{
  g_assert_false (json_node_get_boolean (zot_test_json_node_at (result, "result/is_error")));
  return zot_test_json_string_at (result, "result/content/0/text");
}

/* mcp_resources of server "every", once its text holds @part. */
static JsonObject *
wait_for_resource (Fixture    *f,
                   const char *part)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  for (;;)
    {
      JsonObject *result = zot_example_model_calls (f, "mcp_resources", "{\"server\":\"every\"}");

      if (strstr (resources_text (f, result), part) != NULL)
        return result;
      if (g_get_monotonic_time () > deadline)
        g_error ("mcp_resources never listed “%s”: %s", part, resources_text (f, result));
      g_main_context_iteration (NULL, FALSE);
    }
}

/* A server that says its resources and prompts changed, twenty times at
 * once: the bridge lists each again once, and once more for the
 * notifications that came while it listed. The gone resource and prompt
 * go, the new ones come; the template stays. */
static void
test_list_changed (Fixture       *f,
                   gconstpointer  data)
{
  const char *modes[] = { "shifting", NULL };
  g_autofree char *log = g_build_filename (f->env.root, "fake-mcp.log", NULL);
  g_autofree char *logged = NULL;
  g_autoptr(ZotCommandReply) greet = NULL;
  void *welcome[] = { f, "mcp:shifting:welcome" };
  void *bye[] = { f, "mcp:shifting:bye" };
  g_autoptr(JsonNode) structured = NULL;
  JsonObject *result;
  const char *text;

  g_setenv ("FAKE_MCP_LOG", log, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  wait_for_tool (f, "mcp_read_resource");
  zot_test_wait_until (command_appears, bye, 20000);
  wait_for_status (f, "shifting (stdio): ready, 1 tools, 1 resources, 2 prompts");

  result = zot_example_model_calls (f, "mcp_resources", "{}");
  text = resources_text (f, result);
  g_assert_nonnull (strstr (text, "shifting fake://one one — The first\n"));
  g_assert_nonnull (strstr (text, "shifting fake://notes/{id} note — A note by id"));
  structured = tool_structured (f, "mcp_resources", "{}");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (json_node_get_object (structured), "templates"), 0), "uri_template"),
                   ==, "fake://notes/{id}");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (json_node_get_object (structured), "resources"), 0), "uri"),
                   ==, "fake://one");

  /* A URI that matches the template is read without naming the server;
   * one that matches nothing says so. */
  zot_example_expect_result (f, "mcp_read_resource", "{\"uri\":\"fake://notes/7\"}", FALSE, "note 7");
  zot_example_expect_result (f, "mcp_read_resource", "{\"uri\":\"fake://one\"}", FALSE, "contents of fake://one");
  zot_example_expect_result (f, "mcp_read_resource", "{\"uri\":\"fake://notes/7/more\"}", TRUE,
                             "no MCP server lists “fake://notes/7/more” or a template it matches");
  zot_example_expect_result (f, "mcp_read_resource", "{\"server\":\"shifting\",\"uri\":\"fake://unlisted\"}", FALSE,
                             "contents of fake://unlisted");

  zot_example_expect_result (f, "mcp__shifting__shift", "{\"times\":20}", FALSE, "shifted");
  zot_test_wait_until (command_appears, welcome, 20000);
  wait_for_status (f, "shifting (stdio): ready, 1 tools, 2 resources, 2 prompts");
  g_assert_false (has_command (f, "mcp:shifting:bye"));
  /* greet changed: it takes name now. */
  zot_example_command_fails (f, "mcp:shifting:greet", "", "/mcp:shifting:greet needs name=…");
  greet = zot_example_command (f, "mcp:shifting:greet", "name=you", ZOT_COMMAND_REPLY_PROMPT);
  g_assert_cmpstr (zot_command_reply_get_text (greet), ==, "greet you");

  result = zot_example_model_calls (f, "mcp_resources", "{\"server\":\"shifting\"}");
  text = resources_text (f, result);
  g_assert_null (strstr (text, "fake://one"));
  g_assert_nonnull (strstr (text, "shifting fake://two two\n"));
  g_assert_nonnull (strstr (text, "shifting fake://notes/{id} note"));
  zot_example_expect_result (f, "mcp_read_resource", "{\"uri\":\"fake://one\"}", TRUE,
                             "no MCP server lists “fake://one”");
  zot_example_expect_result (f, "mcp_read_resource", "{\"uri\":\"fake://two\"}", FALSE, "contents of fake://two");

  logged = zot_test_read_file (log);
  g_assert_cmpuint (zot_test_count (logged, "\"method\": \"resources/list\""), ==, 3);
  g_assert_cmpuint (zot_test_count (logged, "\"method\": \"prompts/list\""), ==, 3);
  g_unsetenv ("FAKE_MCP_LOG");
  g_unsetenv ("FAKE_MCP_RESOURCES");
}

/* A server's resources are kept up to ZOT_MCP_RESOURCES_MAX; the rest
 * are left out. */
static void
test_resources_max (Fixture       *f,
                    gconstpointer  data)
{
  guint offered = GPOINTER_TO_UINT (data);
  const char *modes[] = { "shifting", NULL };
  g_autofree char *number = g_strdup_printf ("%u", offered);
  g_autofree char *state = g_strdup_printf ("ready, 1 tools, %d resources", ZOT_MCP_RESOURCES_MAX);
  g_autofree char *last = g_strdup_printf ("fake://r%d r%d\n", ZOT_MCP_RESOURCES_MAX, ZOT_MCP_RESOURCES_MAX);
  g_autofree char *over = g_strdup_printf ("fake://r%d ", ZOT_MCP_RESOURCES_MAX + 1);
  g_autoptr(JsonNode) structured = NULL;
  JsonObject *result;
  const char *text;

  g_setenv ("FAKE_MCP_RESOURCES", number, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  wait_for_tool (f, "mcp_resources");
  wait_for_status (f, state);
  result = zot_example_model_calls (f, "mcp_resources", "{}");
  text = resources_text (f, result);
  g_assert_nonnull (strstr (text, last));
  g_assert_null (strstr (text, over));
  structured = tool_structured (f, "mcp_resources", "{}");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (structured),
                                                                         "resources")), ==, ZOT_MCP_RESOURCES_MAX);
  g_unsetenv ("FAKE_MCP_RESOURCES");
}

/* server-everything: its templates, a URI that matches one read without
 * naming the server, and a resource it adds while running (its tool
 * gzip-file-as-resource registers one, and it says its list changed). */
static void
test_real_everything (Fixture       *f,
                      gconstpointer  data)
{
  JsonObject *result;

  if (!configure_everything (f))
    return;
  start_bridge (f);
  wait_for_tool (f, "mcp__every__gzip-file-as-resource");
  wait_for_tool (f, "mcp_read_resource");
  /* The templates are listed after the resources. */
  result = wait_for_resource (f, "every demo://resource/dynamic/text/{resourceId} ");
  g_assert_null (strstr (resources_text (f, result), "demo://resource/session/note.txt.gz"));
  result = zot_example_model_calls (f, "mcp_read_resource", "{\"uri\":\"demo://resource/dynamic/text/3\"}");
  g_assert_nonnull (strstr (resources_text (f, result), "3"));

  zot_example_model_calls (f, "mcp__every__gzip-file-as-resource",
                           "{\"name\":\"note.txt.gz\",\"data\":\"data:text/plain;base64,aGVsbG8=\","
                           "\"outputType\":\"resourceLink\"}");
  wait_for_resource (f, "every demo://resource/session/note.txt.gz note.txt.gz");
  result = zot_example_model_calls (f, "mcp_read_resource", "{\"uri\":\"demo://resource/session/note.txt.gz\"}");
  g_assert_nonnull (strstr (resources_text (f, result), "[binary application/gzip, left out]"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/mcp/extras/list-changed", Fixture, NULL, fixture_setup, test_list_changed, fixture_teardown);
  g_test_add ("/mcp/extras/resources-at-edge", Fixture, GUINT_TO_POINTER (ZOT_MCP_RESOURCES_MAX),
              fixture_setup, test_resources_max, fixture_teardown);
  g_test_add ("/mcp/extras/resources-over-edge", Fixture, GUINT_TO_POINTER (ZOT_MCP_RESOURCES_MAX + 1),
              fixture_setup, test_resources_max, fixture_teardown);
  g_test_add ("/mcp/extras/real-everything", Fixture, NULL, fixture_setup, test_real_everything, fixture_teardown);
  return g_test_run ();
}
