/* test-mcp-tools.c — the MCP bridge's tools as they change
 * (extensions/mcp/zot-mcp-tools.c, docs/mcp.md): a server's
 * notifications/tools/list_changed applied without a reload, and never
 * more than one listing waiting however often it comes; its
 * notifications/progress as the call's progress; its annotations as the
 * tools' hints, a destructive tool asked for each call; many tools
 * deferred behind the tool search, at the edge. With the fake server
 * (tests/fake-mcp-server.py) and @modelcontextprotocol/server-everything. */
#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-extension-tool.h"
#include "zot-limits.h"
#include "zot-mcp-test-util.h"

static guint
count (const char *text,
       const char *part)
{
  guint n = 0;

  for (const char *at = strstr (text, part); at != NULL; at = strstr (at + 1, part))
    n++;
  return n;
}

typedef struct
{
  Fixture    *f;
  const char *name;
  const char *description;
} Described;

static gboolean
changes_applied (gpointer data)
{
  Described *want = data;
  g_autoptr(ZotTool) echo = find_tool (want->f, want->name);
  g_autoptr(ZotTool) added = find_tool (want->f, "mcp__changing__added");
  g_autoptr(ZotTool) fail = find_tool (want->f, "mcp__changing__fail");

  return echo != NULL && added != NULL && fail == NULL &&
         g_strcmp0 (zot_tool_get_description (echo), want->description) == 0;
}

/* A server that says its tools changed, fifty times at once: the bridge
 * lists them again once, and once more for the notifications that came
 * while it listed; the gone tool goes, the new one comes, the changed one
 * is registered again and the unchanged one is left alone. */
static void
test_list_changed (Fixture       *f,
                   gconstpointer  data)
{
  const char *modes[] = { "changing", NULL };
  g_autofree char *log = g_build_filename (f->env.root, "fake-mcp.log", NULL);
  g_autofree char *logged = NULL;
  g_autoptr(ZotTool) picture = NULL;
  g_autoptr(ZotTool) picture_after = NULL;
  Described want = { f, "mcp__changing__echo", "Repeats text, listing 3" };

  g_setenv ("FAKE_MCP_LOG", log, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  wait_for_tool (f, "mcp__changing__fail");
  picture = find_tool (f, "mcp__changing__picture");
  g_assert_nonnull (picture);

  zot_example_expect_result (f, "mcp__changing__change", "{\"times\":50}", FALSE, "changed");
  zot_test_wait_until (changes_applied, &want, 20000);
  /* An answer comes after every request sent before it. */
  zot_example_expect_result (f, "mcp__changing__added", "{}", FALSE, "called added");
  zot_example_expect_result (f, "mcp__changing__fail", "{}", TRUE, "mcp__changing__fail");
  logged = zot_test_read_file (log);
  g_assert_cmpuint (count (logged, "\"method\": \"tools/list\""), ==, 3);
  picture_after = find_tool (f, "mcp__changing__picture");
  g_assert_true (picture_after == picture);
  g_unsetenv ("FAKE_MCP_LOG");
}

static void
on_tool_progress (ZotAgent   *agent,
                  const char *id,
                  const char *text,
                  GPtrArray  *lines)
{
  g_ptr_array_add (lines, g_strdup (text));
}

/* notifications/progress as the running call's progress lines: "3/10 —
 * message", without a total or a message when the server gives none; a
 * token of no running call is dropped. */
static void
test_progress (Fixture       *f,
               gconstpointer  data)
{
  const char *modes[] = { "progress", NULL };
  g_autofree char *log = g_build_filename (f->env.root, "fake-mcp.log", NULL);
  g_autofree char *logged = NULL;
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  g_setenv ("FAKE_MCP_LOG", log, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  g_signal_connect (zot_host_get_agent (f->host), "tool-progress", G_CALLBACK (on_tool_progress), lines);
  wait_for_tool (f, "mcp__progress__slow");

  zot_example_expect_result (f, "mcp__progress__slow",
                             "{\"steps\":[{\"progress\":1,\"total\":3,\"message\":\"one\"},"
                             "{\"progress\":2.5,\"total\":3},{\"progress\":3,\"message\":\"three\"}]}",
                             FALSE, "done");
  g_assert_cmpuint (lines->len, >=, 2);
  g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, "1/3 — one");
  g_assert_cmpstr (g_ptr_array_index (lines, lines->len - 1), ==, "3 — three");

  g_ptr_array_set_size (lines, 0);
  zot_example_expect_result (f, "mcp__progress__slow", "{\"steps\":[{\"progress\":2.5,\"total\":3}]}", FALSE, "done");
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, "2.5/3");

  g_ptr_array_set_size (lines, 0);
  zot_example_expect_result (f, "mcp__progress__slow", "{\"steps\":[{\"progress\":1,\"token\":999}]}", FALSE, "done");
  g_assert_cmpuint (lines->len, ==, 0);

  logged = zot_test_read_file (log);
  g_assert_cmpuint (count (logged, "\"_meta\": {\"progressToken\": "), ==, 3);
  g_unsetenv ("FAKE_MCP_LOG");
}

/* server-everything's long-running operation reports each step. */
static void
test_real_progress (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  if (!configure_everything (f))
    return;
  start_bridge (f);
  g_signal_connect (zot_host_get_agent (f->host), "tool-progress", G_CALLBACK (on_tool_progress), lines);
  wait_for_tool (f, "mcp__every__trigger-long-running-operation");
  zot_example_expect_result (f, "mcp__every__trigger-long-running-operation", "{\"duration\":0.3,\"steps\":3}",
                             FALSE, "Long running operation completed. Duration: 0.3 seconds, Steps: 3.");
  g_assert_cmpuint (lines->len, >=, 2);
  g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, "1/3");
  g_assert_cmpstr (g_ptr_array_index (lines, lines->len - 1), ==, "3/3");
}

static void
expect_hints (Fixture    *f,
              const char *name,
              gboolean    read_only,
              gboolean    destructive)
{
  g_autoptr(ZotTool) tool = find_tool (f, name);

  g_assert_nonnull (tool);
  g_assert_cmpint (zot_extension_tool_get_read_only (ZOT_EXTENSION_TOOL (tool)), ==, read_only);
  g_assert_cmpint (zot_extension_tool_get_destructive (ZOT_EXTENSION_TOOL (tool)), ==, destructive);
}

static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       guint               *n_asked)
{
  (*n_asked)++;
  zot_approval_resolve (approval, ZOT_APPROVAL_ALLOW_TOOL);
  return TRUE;
}

/* MCP's hints and their defaults: destructiveHint is true unless said
 * otherwise, and counts only for a tool that is not read-only. "Allow
 * this tool" covers later calls of a tool, never of a destructive one. */
static void
test_annotations (Fixture       *f,
                  gconstpointer  data)
{
  const char *modes[] = { "annotated", NULL };
  g_autofree char *dir = bridge_dir ();
  ZotExtensionManager *manager;
  guint n_asked = 0;

  configure_fakes (f, modes);
  zot_example_start (f, dir, ZOT_MCP_EXTENSION_NAME, TRUE);
  manager = zot_host_get_manager (f->host);
  g_signal_connect (manager, "approval-requested", G_CALLBACK (on_approval_requested), &n_asked);
  zot_extension_manager_set_policy (manager, ZOT_APPROVAL_POLICY_ASK);
  wait_for_tool (f, "mcp__annotated__odd");
  expect_hints (f, "mcp__annotated__look", TRUE, FALSE);
  expect_hints (f, "mcp__annotated__add", FALSE, FALSE);
  expect_hints (f, "mcp__annotated__wipe", FALSE, TRUE);
  expect_hints (f, "mcp__annotated__erase", FALSE, TRUE);
  expect_hints (f, "mcp__annotated__odd", TRUE, FALSE);

  zot_example_expect_result (f, "mcp__annotated__add", "{}", FALSE, "called add");
  zot_example_expect_result (f, "mcp__annotated__add", "{}", FALSE, "called add");
  g_assert_cmpuint (n_asked, ==, 1);
  zot_example_expect_result (f, "mcp__annotated__wipe", "{}", FALSE, "called wipe");
  zot_example_expect_result (f, "mcp__annotated__wipe", "{}", FALSE, "called wipe");
  g_assert_cmpuint (n_asked, ==, 3);
}

typedef struct
{
  Fixture        *f;
  ZotToolExposure exposure;
} Exposed;

static gboolean
all_exposed (gpointer data)
{
  Exposed *want = data;
  g_autofree char *last = g_strdup_printf ("mcp__many__t%d", ZOT_MCP_DIRECT_TOOLS_MAX - 6 + (want->exposure == ZOT_TOOL_EXPOSURE_DEFERRED));
  const char *names[] = { "mcp__normal__echo", "mcp__normal__dotted_name", "mcp__many__t1", last };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(ZotTool) tool = find_tool (want->f, names[i]);

      if (tool == NULL || zot_tool_get_exposure (tool) != want->exposure)
        return FALSE;
    }
  return TRUE;
}

/* Two servers offer ZOT_MCP_DIRECT_TOOLS_MAX tools together (normal lists
 * six): all are declared directly; one more, and all are deferred, the
 * first server's too. */
static void
test_deferred_edge (Fixture       *f,
                    gconstpointer  data)
{
  const char *modes[] = { "normal", "many", NULL };
  ZotToolExposure exposure = GPOINTER_TO_INT (data);
  g_autofree char *n = g_strdup_printf ("%d", ZOT_MCP_DIRECT_TOOLS_MAX - 6 + (exposure == ZOT_TOOL_EXPOSURE_DEFERRED));
  Exposed want = { f, exposure };

  g_setenv ("FAKE_MCP_TOOLS", n, TRUE);
  configure_fakes (f, modes);
  start_bridge (f);
  zot_test_wait_until (all_exposed, &want, 20000);
  zot_example_expect_result (f, "mcp__many__t1", "{}", FALSE, "called t1");
  g_unsetenv ("FAKE_MCP_TOOLS");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/mcp/tools/list-changed", Fixture, NULL, fixture_setup, test_list_changed, fixture_teardown);
  g_test_add ("/mcp/tools/progress", Fixture, NULL, fixture_setup, test_progress, fixture_teardown);
  g_test_add ("/mcp/tools/real-progress", Fixture, NULL, fixture_setup, test_real_progress, fixture_teardown);
  g_test_add ("/mcp/tools/annotations", Fixture, NULL, fixture_setup, test_annotations, fixture_teardown);
  g_test_add ("/mcp/tools/deferred-at-edge", Fixture, GINT_TO_POINTER (ZOT_TOOL_EXPOSURE_DIRECT),
              fixture_setup, test_deferred_edge, fixture_teardown);
  g_test_add ("/mcp/tools/deferred-over-edge", Fixture, GINT_TO_POINTER (ZOT_TOOL_EXPOSURE_DEFERRED),
              fixture_setup, test_deferred_edge, fixture_teardown);
  return g_test_run ();
}
