/* test-ext-check.c — `zot ext check` end to end: the hand-written scenario
 * passes, each broken fixture shows exactly its own violation and fails,
 * every SDK's scenario extension passes, and --json has its shape.
 *
 * Deadlines the fixtures must run into are shortened through
 * ZOT_TEST_TIMEOUTS, never waited out; each run of the binary has a
 * deadline of its own.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "zot-json.h"
#include "zot-test-util.h"

/* A run of zot on a loaded machine; the safety net, not the measure. */
#define RUN_DEADLINE_MS (240 * 1000)

/* Runs a program with @timeouts as ZOT_TEST_TIMEOUTS (or none) in @cwd
 * (or here), to its end. */
static void
run_argv (ZotTestRun         *run,
          const char         *timeouts,
          const char         *cwd,
          const char * const *env,
          const char * const *argv)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  g_ptr_array_add (all, (gpointer) "ZOT_TEST_TIMEOUTS");
  g_ptr_array_add (all, (gpointer) timeouts);
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    g_ptr_array_add (all, (gpointer) env[i]);
  g_ptr_array_add (all, NULL);
  zot_test_run_argv (run, cwd, (const char * const *) all->pdata, NULL, RUN_DEADLINE_MS, argv);
}

static void
run_check_durable (ZotTestRun *run,
                   const char *timeouts,
                   const char *dir,
                   gboolean    scenario,
                   gboolean    durable,
                   gboolean    json)
{
  const char *argv[8];
  guint n = 0;

  argv[n++] = g_getenv ("ZOT_BIN");
  argv[n++] = "ext";
  argv[n++] = "check";
  if (scenario)
    argv[n++] = "--scenario";
  if (durable)
    argv[n++] = "--durable";
  if (json)
    argv[n++] = "--json";
  argv[n++] = dir;
  argv[n] = NULL;
  run_argv (run, timeouts, NULL, NULL, argv);
}

static void
run_check (ZotTestRun *run,
           const char *timeouts,
           const char *dir,
           gboolean    scenario,
           gboolean    json)
{
  run_check_durable (run, timeouts, dir, scenario, FALSE, json);
}

static JsonObject *
parse_report (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* A clean scenario run: exit 0, no violation, every step ok, both sessions. */
static void
assert_scenario_clean (ZotTestRun *run,
                       const char *dir)
{
  g_autoptr(JsonObject) report = NULL;
  JsonArray *steps;
  JsonArray *violations;
  gboolean durable_nested = FALSE;

  report = parse_report (run->out);
  steps = json_object_get_array_member (report, "steps");
  violations = json_object_get_array_member (report, "violations");

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);
      const char *name = json_object_get_string_member (step, "name");

      if (!g_str_equal (json_object_get_string_member (step, "status"), "ok"))
        g_test_message ("%s: %s: %s", dir, name, zot_json_get_string_or (step, "detail", ""));
      g_assert_cmpstr (json_object_get_string_member (step, "status"), ==, "ok");
      durable_nested |= g_str_has_prefix (name, "durable: scenario: sc_nested");
    }
  for (guint i = 0; i < json_array_get_length (violations); i++)
    g_test_message ("%s: %s", dir,
                    json_object_get_string_member (json_array_get_object_element (violations, i), "text"));
  g_assert_cmpuint (json_array_get_length (violations), ==, 0);
  g_assert_true (durable_nested);
  g_assert_cmpuint (json_array_get_length (steps), >=, 28);
  g_assert_true (json_object_get_boolean_member (report, "ok"));
  g_assert_cmpint (run->status, ==, 0);
}

static void
test_scenario_raw (void)
{
  g_autofree char *dir = zot_test_fixture_dir ("ext-check/scenario-raw");
  g_auto(ZotTestRun) run = { 0 };

  run_check (&run, NULL, dir, TRUE, TRUE);
  assert_scenario_clean (&run, dir);
}

/* The person's report of the same run: a line per step and a summary. */
static void
test_human_report (void)
{
  g_autofree char *dir = zot_test_fixture_dir ("ext-check/scenario-raw");
  g_auto(ZotTestRun) run = { 0 };

  run_check (&run, NULL, dir, TRUE, FALSE);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "ok    handshake: 8 tools, 8 commands"));
  g_assert_nonnull (strstr (run.out, "\nok    scenario: sc_ask answered with enter\n"));
  g_assert_nonnull (strstr (run.out, "\nok    durable: scenario: sc_nested {}\n"));
  g_assert_nonnull (strstr (run.out, "\nclean: 33 steps, 0 failed, 0 skipped, 0 violations\n"));
  g_assert_null (strstr (run.out, "violation:"));
}

typedef struct
{
  const char *rule;
  const char *line;       /* how its line starts */
  const char *timeouts;   /* the deadline it runs into, shortened */
  gboolean    scenario;   /* a rule only --scenario reaches */
  gboolean    durable;    /* one only a durable host sees */
} Broken;

static const Broken broken[] = {
  { "no-hello", "violation: no hello (PROTOCOL.md §2): ", "hello=300" },
  { "invalid-registration", "violation: invalid registration (PROTOCOL.md §3, §4): {\"type\":\"", NULL },
  { "unknown-id", "violation: reply to an unknown id (PROTOCOL.md §0): {\"type\":\"tool_result\"", NULL },
  { "second-reply", "violation: second reply (PROTOCOL.md §0): {\"type\":\"tool_result\"", NULL },
  { "reply-after-cancel", "violation: reply after cancel (PROTOCOL.md §4): "
    "{\"type\":\"tool_result\",\"id\":\"check-1\"", "tool=300" },
  { "frame-too-large", "violation: frame over 4 MiB (PROTOCOL.md §0): ", NULL },
  { "not-a-frame", "violation: write to stdout that is not a frame (PROTOCOL.md §0): ", NULL },
  { "no-shutdown-ack", "violation: no shutdown_ack (PROTOCOL.md §9)", NULL },
  { "slow-interceptor", "violation: interceptor slower than its deadline (PROTOCOL.md §7): "
    "{\"type\":\"event_intercept\",\"event\":\"tool_call\"", "intercept=300" },
  { "nested-without-parent", "violation: nested call without parent_id (PROTOCOL.md §5): "
    "{\"type\":\"call_tool\"", NULL },
  { "nested-dead-parent", "violation: nested call with a dead parent_id (PROTOCOL.md §5): "
    "{\"type\":\"call_tool\"", NULL },
  { "key-without-durable", "violation: key sent to a host without call_tool_durable (PROTOCOL.md §5): "
    "{\"type\":\"call_tool\"", NULL },
  { "unknown-action", "violation: command response with an unknown action (PROTOCOL.md §3): "
    "{\"type\":\"command_response\"", NULL },
  /* The scenario with its sc_wait answering when shutdown comes. */
  { "reply-after-shutdown", "violation: reply after shutdown (PROTOCOL.md §9): {\"type\":\"tool_result\"",
    NULL, TRUE },
  /* The grace is the host's own: shortened, a loaded machine could make
   * the ack itself late. */
  { "no-exit", "violation: no exit within the shutdown grace (PROTOCOL.md §9): ", NULL },
  { "early-exit", "violation: exit before shutdown (PROTOCOL.md §9): ", NULL },
  { "bad-intercept-reply", "violation: malformed intercept reply (PROTOCOL.md §7): "
    "{\"type\":\"event_intercept_response\"", NULL },
  { "no-call-tool-capability", "violation: call_tool without the call_tool capability (PROTOCOL.md §5): "
    "{\"type\":\"call_tool\"", NULL },
  { "bad-key", "violation: invalid key (PROTOCOL.md §5): {\"type\":\"call_tool\"", NULL, FALSE, TRUE },
  { "bad-command-response", "violation: command response without what its action needs (PROTOCOL.md §3): "
    "{\"type\":\"command_response\"", NULL },
};

/* Each fixture breaks one rule: its violation, and no other, is found, in
 * the report and in the JSON document; the exit status says it failed. */
static void
test_broken (gconstpointer data)
{
  const Broken *fixture = data;
  g_autofree char *relative = g_build_filename ("ext-check", "broken", fixture->rule, NULL);
  g_autofree char *dir = zot_test_fixture_dir (relative);
  g_auto(ZotTestRun) human = { 0 };
  g_auto(ZotTestRun) json = { 0 };
  g_autoptr(JsonObject) report = NULL;
  g_auto(GStrv) lines = NULL;
  JsonArray *violations;
  const char *log;
  guint found = 0;

  run_check_durable (&human, fixture->timeouts, dir, fixture->scenario, fixture->durable, FALSE);
  g_assert_cmpint (human.status, ==, 1);
  lines = g_strsplit (human.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (!g_str_has_prefix (lines[i], "violation: "))
        continue;
      if (!g_str_has_prefix (lines[i], fixture->line))
        g_test_message ("unexpected: %s", lines[i]);
      g_assert_true (g_str_has_prefix (lines[i], fixture->line));
      found++;
    }
  g_assert_cmpuint (found, >=, 1);
  g_assert_nonnull (strstr (human.out, "NOT clean: "));
  if (g_str_equal (fixture->rule, "invalid-registration"))
    {
      g_assert_nonnull (strstr (human.out, "{\"type\":\"register_tool\",\"name\":\"bad_schema\""));
      g_assert_nonnull (strstr (human.out, "\"annotations.destructive\" must be true or false"));
      g_assert_nonnull (strstr (human.out, "unregister_tool \"never_registered\": no tool of that name"));
    }

  run_check_durable (&json, fixture->timeouts, dir, fixture->scenario, fixture->durable, TRUE);
  g_assert_cmpint (json.status, ==, 1);
  report = parse_report (json.out);
  g_assert_false (json_object_get_boolean_member (report, "ok"));
  violations = json_object_get_array_member (report, "violations");
  g_assert_cmpuint (json_array_get_length (violations), >=, 1);
  for (guint i = 0; i < json_array_get_length (violations); i++)
    {
      JsonObject *violation = json_array_get_object_element (violations, i);

      g_assert_cmpstr (json_object_get_string_member (violation, "rule"), ==, fixture->rule);
      g_assert_true (g_str_has_prefix (json_object_get_string_member (violation, "section"), "PROTOCOL.md §"));
    }

  /* Where its stderr went, kept for the person to read. */
  log = json_object_get_string_member (report, "log");
  g_assert_true (g_file_test (log, G_FILE_TEST_IS_REGULAR));
  g_unlink (log);
  log = strstr (human.out, "the extension's stderr: ");
  g_assert_nonnull (log);
  {
    g_autofree char *path = g_strchomp (g_strdup (log + strlen ("the extension's stderr: ")));
    g_unlink (path);
  }
}

static void
assert_has_members (JsonObject         *object,
                    const char * const *members)
{
  for (guint i = 0; members[i] != NULL; i++)
    {
      if (!json_object_has_member (object, members[i]))
        g_test_message ("missing member %s", members[i]);
      g_assert_true (json_object_has_member (object, members[i]));
    }
}

/* The document CI reads (docs/ext-check.md). */
static void
test_json_shape (void)
{
  g_autofree char *dir = zot_test_fixture_dir ("ext-check/broken/unknown-action");
  const char * const report_members[] = { "extension", "directory", "scenario", "ok", "log",
                                          "registrations", "steps", "violations", "notes", NULL };
  const char * const registration_members[] = { "hello", "tools", "commands", "events", "intercepts",
                                                "ready", NULL };
  const char * const step_members[] = { "name", "status", "sent", "answered", NULL };
  const char * const violation_members[] = { "rule", "text", "section", "frame", "detail", "step", NULL };
  g_auto(ZotTestRun) run = { 0 };
  g_autoptr(JsonObject) report = NULL;
  JsonObject *registrations;
  JsonArray *steps;
  JsonObject *violation;
  JsonObject *command_step = NULL;

  run_check (&run, NULL, dir, FALSE, TRUE);
  report = parse_report (run.out);
  assert_has_members (report, report_members);
  g_assert_cmpstr (json_object_get_string_member (report, "extension"), ==, "broken-unknown-action");
  g_assert_false (json_object_get_boolean_member (report, "scenario"));

  registrations = json_object_get_object_member (report, "registrations");
  assert_has_members (registrations, registration_members);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (registrations, "tools")), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (registrations, "commands"), 0),
                   ==, "probe");
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (registrations, "intercepts"), 0),
                   ==, "tool_call");

  steps = json_object_get_array_member (report, "steps");
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);

      assert_has_members (step, step_members);
      if (g_str_equal (json_object_get_string_member (step, "name"), "command probe"))
        command_step = step;
    }
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 0), "name"), ==,
                   "handshake");

  /* What was sent and what came back, whole. */
  g_assert_nonnull (command_step);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (command_step, "sent"), 0), "type"), ==, "command_invoked");
  {
    JsonArray *answered = json_object_get_array_member (command_step, "answered");
    gboolean found = FALSE;

    /* The answer to the call cancelled as it was sent may come here too. */
    for (guint i = 0; i < json_array_get_length (answered); i++)
      found |= g_strcmp0 (zot_json_get_string (json_array_get_object_element (answered, i), "action"),
                          "explode") == 0;
    g_assert_true (found);
  }

  violation = json_array_get_object_element (json_object_get_array_member (report, "violations"), 0);
  assert_has_members (violation, violation_members);
  g_assert_cmpstr (json_object_get_string_member (violation, "step"), ==, "command probe");
  g_unlink (json_object_get_string_member (report, "log"));
}

static JsonObject *
find_step (JsonObject *report,
           const char *name)
{
  JsonArray *steps = json_object_get_array_member (report, "steps");

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);

      if (g_str_equal (json_object_get_string_member (step, "name"), name))
        return step;
    }
  g_assert_not_reached ();
}

static void
assert_sent_args (JsonObject *report,
                  const char *step_name,
                  const char *expected_text)
{
  JsonObject *step = find_step (report, step_name);
  JsonObject *call = json_array_get_object_element (json_object_get_array_member (step, "sent"), 0);
  g_autoptr(JsonNode) expected = json_from_string (expected_text, NULL);
  JsonNode *args = json_object_get_member (call, "args");

  g_assert_cmpstr (json_object_get_string_member (call, "type"), ==, "tool_call");
  g_assert_true (json_node_equal (args, expected));
  g_assert_cmpstr (json_object_get_string_member (step, "status"), ==, "ok");
}

/* A tool's arguments: the manifest's example, else the schema's required
 * properties filled by type. */
static void
test_example_args (void)
{
  g_autofree char *dir = zot_test_fixture_dir ("ext-check/args");
  g_auto(ZotTestRun) run = { 0 };
  g_autoptr(JsonObject) report = NULL;

  run_check (&run, NULL, dir, FALSE, TRUE);
  g_assert_cmpint (run.status, ==, 0);
  report = parse_report (run.out);
  assert_sent_args (report, "tool filled",
                    "{\"s\":\"example\",\"n\":1,\"i\":1,\"b\":true,\"o\":{},\"a\":[],\"e\":\"first\"}");
  assert_sent_args (report, "tool given", "{\"city\":\"Lisbon\",\"days\":2}");
  /* No tool_cancel capability, no cancel. */
  g_assert_cmpstr (json_object_get_string_member (find_step (report, "cancel"), "status"), ==, "skip");
}

/* Go's scenario is built first, offline, with caches in the build dir. */
static gboolean
build_go (const char *dir)
{
  g_autofree char *go = g_find_program_in_path ("go");
  const char *cache = g_getenv ("ZOT_EXT_CHECK_GO_CACHE");
  g_autofree char *gocache = NULL;
  g_autofree char *gopath = NULL;
  g_auto(ZotTestRun) run = { 0 };

  if (go == NULL)
    {
      g_test_skip ("sdk/go/scenario: go is not on PATH");
      return FALSE;
    }

  gocache = g_build_filename (cache, "cache", NULL);
  gopath = g_build_filename (cache, "path", NULL);
  {
    const char * const env[] = { "GOCACHE", gocache, "GOPATH", gopath, "GO111MODULE", "on",
                                 "GOFLAGS", "", "GOPROXY", "off", NULL };
    const char * const argv[] = { go, "build", "-o", "scenario", ".", NULL };

    run_argv (&run, NULL, dir, env, argv);
  }
  if (run.status != 0)
    g_test_message ("go build: %s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  return TRUE;
}

/* data: "lang=DIR" */
static void
test_sdk_scenario (gconstpointer data)
{
  g_auto(GStrv) entry = g_strsplit (data, "=", 2);
  const char *lang = entry[0];
  const char *dir = entry[1];
  g_autofree char *manifest = g_build_filename (dir, "extension.json", NULL);
  g_auto(ZotTestRun) run = { 0 };

  if (!g_file_test (manifest, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *why = g_strdup_printf ("sdk/%s/scenario: not there yet (%s)", lang, dir);
      g_test_skip (why);
      return;
    }
  if (g_str_equal (lang, "go") && !build_go (dir))
    return;

  run_check (&run, NULL, dir, TRUE, TRUE);
  assert_scenario_clean (&run, dir);

  /* SCENARIO.md names it so. */
  {
    g_autoptr(JsonObject) report = parse_report (run.out);
    g_autofree char *name = g_strdup_printf ("scenario-%s", lang);

    g_assert_cmpstr (json_object_get_string_member (report, "extension"), ==, name);
  }
}

int
main (int    argc,
      char **argv)
{
  g_auto(GStrv) scenarios = NULL;

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ext-check/scenario-raw", test_scenario_raw);
  g_test_add_func ("/ext-check/human-report", test_human_report);
  g_test_add_func ("/ext-check/json-shape", test_json_shape);
  g_test_add_func ("/ext-check/example-args", test_example_args);
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ext-check/broken/%s", broken[i].rule);
      g_test_add_data_func (path, &broken[i], test_broken);
    }

  scenarios = g_strsplit (g_getenv ("ZOT_EXT_CHECK_SCENARIOS") != NULL
                          ? g_getenv ("ZOT_EXT_CHECK_SCENARIOS") : "", ";", -1);
  for (guint i = 0; scenarios[i] != NULL; i++)
    {
      g_autofree char *lang = g_strndup (scenarios[i], strcspn (scenarios[i], "="));
      g_autofree char *path = NULL;

      if (*lang == '\0')
        continue;
      path = g_strdup_printf ("/ext-check/sdk/%s", lang);
      g_test_add_data_func (path, scenarios[i], test_sdk_scenario);
    }

  return g_test_run ();
}
