/* test-ext-dynamic.c — registrations that change while an extension runs
 * (`unregister_tool`, `unregister_command`, a second `register_tool`),
 * the progress of its calls (`tool_progress`: where it goes, its length
 * and rate caps, strays), and the `annotations` of `register_tool`.
 *
 * The fake extension sends what a call's args ask for before its answer
 * ("send": a frame; "progress", "progress_text", "progress_id"), so every
 * change happens at a known point of a call, with no timing involved.
 */

#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-extension-tool.h"
#include "zot-host.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-test-util.h"
#include "zot-tool-registry.h"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  gboolean    interactive;
  GPtrArray  *progress;   /* "ID TEXT" per tool-progress signal */
  guint       n_asked;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->progress = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_test_finalize_host (&f->host);
  g_clear_pointer (&f->progress, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

static void
on_tool_progress (ZotAgent   *agent,
                  const char *id,
                  const char *text,
                  Fixture    *f)
{
  g_ptr_array_add (f->progress, g_strdup_printf ("%s %s", id, text));
}

/* Says yes to every question, remembering the tool when it may. */
static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       Fixture             *f)
{
  f->n_asked++;
  zot_approval_resolve (approval, ZOT_APPROVAL_ALLOW_TOOL);
  return TRUE;
}

static void
start_host (Fixture            *f,
            const char * const *paths)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = f->interactive;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  g_signal_connect (zot_host_get_agent (f->host), "tool-progress", G_CALLBACK (on_tool_progress), f);
  if (f->interactive)
    {
      g_signal_connect (zot_host_get_manager (f->host), "approval-requested",
                        G_CALLBACK (on_approval_requested), f);
    }
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
  if (f->interactive)
    zot_extension_manager_set_policy (zot_host_get_manager (f->host), ZOT_APPROVAL_POLICY_ASK);
}

/* Has the model call @tool with @json (an object) and returns the run's
 * final text. */
static char *
call_json (Fixture    *f,
           const char *tool,
           const char *json)
{
  g_autofree char *prompt = g_strdup_printf ("tool: %s %s", tool, json);
  g_auto(ZotTestSubmit) s = { 0 };

  zot_test_submit (f->host, prompt, &s);
  g_assert_no_error (s.error);
  return g_steal_pointer (&s.text);
}

static char *
call (Fixture    *f,
      const char *tool,
      JsonObject *args)
{
  g_autofree char *json = zot_json_object_to_string (args);

  return call_json (f, tool, json);
}

/* Has the model call @tool, which sends @frame before it answers @reply. */
static char *
call_sending (Fixture    *f,
              const char *tool,
              const char *frame,
              const char *reply)
{
  g_autoptr(JsonObject) args = json_object_new ();

  json_object_set_string_member (args, "send", frame);
  json_object_set_string_member (args, "reply", reply);
  return call (f, tool, args);
}

static ZotToolRegistry *
registry_of (Fixture *f)
{
  return zot_agent_get_registry (zot_host_get_agent (f->host));
}

/* What the model's next request lists. */
static char *
definitions_text (Fixture *f)
{
  g_autoptr(JsonArray) definitions = zot_tool_registry_definitions (registry_of (f));
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), definitions);

  return zot_json_to_string (node);
}

static ZotExtension *
extension_of (Fixture    *f,
              const char *name)
{
  return zot_extension_manager_find (zot_host_get_manager (f->host), name);
}

static char *
log_of (Fixture    *f,
        const char *name)
{
  return zot_test_read_file (zot_extension_get_log_path (extension_of (f, name)));
}

#define PROBE_TOOL "{\"type\":\"register_tool\",\"name\":\"probe\",\"description\":\"probe\",\"schema\":{\"type\":\"object\"}}"
#define OTHER_TOOL "{\"type\":\"register_tool\",\"name\":\"other\",\"description\":\"other\",\"schema\":{\"type\":\"object\"}}"

/* A tool withdrawn during its own call: the call finishes, the tool leaves
 * the model's list and the registry; a later registration of the name
 * brings it back with the new schema. Unknown names and another
 * extension's tools are logged, nothing more. */
static void
test_unregister_tool (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "dyn",
                                                  "--register-json", PROBE_TOOL,
                                                  "--register-json", OTHER_TOOL, NULL);
  g_autofree char *theirs = zot_test_make_fake_args (f->env.root, "theirs",
    "--register-json",
    "{\"type\":\"register_tool\",\"name\":\"their_tool\",\"description\":\"t\",\"schema\":{\"type\":\"object\"}}",
    NULL);
  const char *paths[] = { dir, theirs, NULL };
  g_autofree char *text = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *log = NULL;
  g_autofree char *schema = NULL;
  ZotTool *tool;

  start_host (f, paths);
  g_assert_nonnull (zot_tool_registry_lookup (registry_of (f), "probe"));
  listed = definitions_text (f);
  g_assert_nonnull (strstr (listed, "\"probe\""));
  g_clear_pointer (&listed, g_free);

  text = call_sending (f, "probe", "{\"type\":\"unregister_tool\",\"name\":\"probe\"}", "still answered");
  g_assert_nonnull (strstr (text, "still answered"));
  g_assert_null (zot_tool_registry_lookup (registry_of (f), "probe"));
  g_assert_nonnull (zot_tool_registry_lookup (registry_of (f), "other"));
  g_assert_cmpuint (zot_extension_get_tools (extension_of (f, "dyn"))->len, ==, 1);
  listed = definitions_text (f);
  g_assert_null (strstr (listed, "\"probe\""));
  g_assert_nonnull (strstr (listed, "\"other\""));
  g_clear_pointer (&listed, g_free);
  g_clear_pointer (&text, g_free);

  /* Unknown, already gone, another extension's: one log line each. */
  g_free (call_sending (f, "other", "{\"type\":\"unregister_tool\",\"name\":\"nosuch\"}", "ok"));
  g_free (call_sending (f, "other", "{\"type\":\"unregister_tool\",\"name\":\"probe\"}", "ok"));
  g_free (call_sending (f, "other", "{\"type\":\"unregister_tool\",\"name\":\"their_tool\"}", "ok"));
  g_free (call_sending (f, "other", "{\"type\":\"unregister_tool\"}", "ok"));
  log = log_of (f, "dyn");
  g_assert_nonnull (strstr (log, "unregister_tool \"nosuch\": this extension registered no tool of that name, ignored"));
  g_assert_nonnull (strstr (log, "unregister_tool \"probe\": this extension registered no tool"));
  g_assert_nonnull (strstr (log, "unregister_tool \"their_tool\": this extension registered no tool"));
  g_assert_nonnull (strstr (log, "unregister_tool without a string \"name\", ignored"));
  g_assert_nonnull (zot_tool_registry_lookup (registry_of (f), "their_tool"));
  g_assert_cmpint (zot_extension_get_state (extension_of (f, "dyn")), ==, ZOT_EXTENSION_STATE_READY);

  /* Registered again, with another schema. */
  g_free (call_sending (f, "other",
                        "{\"type\":\"register_tool\",\"name\":\"probe\",\"description\":\"again\","
                        "\"schema\":{\"type\":\"object\",\"properties\":{\"fresh\":{\"type\":\"string\"}}}}",
                        "ok"));
  tool = zot_tool_registry_lookup (registry_of (f), "probe");
  g_assert_nonnull (tool);
  schema = zot_json_object_to_string (zot_tool_get_schema (tool));
  g_assert_nonnull (strstr (schema, "\"fresh\""));
  text = call_json (f, "probe", "{\"reply\":\"back\"}");
  g_assert_nonnull (strstr (text, "back"));
  g_clear_pointer (&log, g_free);
  log = log_of (f, "dyn");
  g_assert_null (strstr (log, "registered twice"));
}

/* A command withdrawn in any case stops routing; registered again, it
 * routes again. */
static void
test_unregister_command (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "dyn",
                                                  "--register-json", OTHER_TOOL,
                                                  "--register-json", "{\"type\":\"register_command\",\"name\":\"DynCmd\"}",
                                                  NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  g_autofree char *log = NULL;

  start_host (f, paths);
  manager = zot_host_get_manager (f->host);
  g_assert_nonnull (zot_extension_manager_lookup_command (manager, "dyncmd", NULL));

  g_free (call_sending (f, "other", "{\"type\":\"unregister_command\",\"name\":\"/DYNCMD\"}", "ok"));
  g_assert_null (zot_extension_manager_lookup_command (manager, "dyncmd", NULL));
  g_assert_cmpuint (zot_extension_get_commands (extension_of (f, "dyn"))->len, ==, 0);

  g_free (call_sending (f, "other", "{\"type\":\"unregister_command\",\"name\":\"DynCmd\"}", "ok"));
  log = log_of (f, "dyn");
  g_assert_nonnull (strstr (log, "unregister_command \"DynCmd\": this extension registered no command of that name, ignored"));

  g_free (call_sending (f, "other", "{\"type\":\"register_command\",\"name\":\"DynCmd\"}", "ok"));
  g_assert_nonnull (zot_extension_manager_lookup_command (manager, "dyncmd", NULL));
}

/* Withdrawn registrations leave the per-extension cap: an extension whose
 * tools come and go can register and withdraw more than the cap. */
static void
test_unregister_frees_cap (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "dyn", "--register-json", OTHER_TOOL, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GString) burst = g_string_new (NULL);
  g_autoptr(JsonObject) args = json_object_new ();
  ZotExtension *extension;

  start_host (f, paths);
  extension = extension_of (f, "dyn");

  /* One call sends every frame: register and withdraw the cap's worth,
   * then one more than the cap's room left would allow without it. */
  for (guint i = 0; i < ZOT_MAX_TOOLS_PER_EXTENSION; i++)
    g_string_append_printf (burst, "{\"type\":\"register_tool\",\"name\":\"t%u\",\"schema\":{}}\n"
                            "{\"type\":\"unregister_tool\",\"name\":\"t%u\"}\n", i, i);
  g_string_append (burst, "{\"type\":\"register_tool\",\"name\":\"last\",\"schema\":{}}");
  json_object_set_string_member (args, "send", burst->str);
  json_object_set_string_member (args, "reply", "ok");
  g_free (call (f, "other", args));

  g_assert_cmpuint (zot_extension_get_tools (extension)->len, ==, 2);
  g_assert_nonnull (zot_tool_registry_lookup (registry_of (f), "last"));
  g_assert_cmpuint (zot_extension_get_problems (extension)->len, ==, 0);
}

/* 10,000 progress frames in a burst reach the agent as a handful of
 * signals, the first at once and the latest last: nothing floods the
 * window, nothing hides where the call got to. */
static void
test_progress_rate (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "dyn", "--register-json", PROBE_TOOL, NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *text = NULL;
  const char *first;
  const char *last;
  gint64 start;
  gint64 elapsed_ms;

  start_host (f, paths);

  start = g_get_monotonic_time ();
  text = call_json (f, "probe", "{\"progress\":10000,\"reply\":\"finished\"}");
  elapsed_ms = (g_get_monotonic_time () - start) / 1000;
  g_assert_nonnull (strstr (text, "finished"));

  g_assert_cmpuint (f->progress->len, >=, 2);
  first = g_ptr_array_index (f->progress, 0);
  last = g_ptr_array_index (f->progress, f->progress->len - 1);
  g_assert_true (g_str_has_suffix (first, " step 1"));
  g_assert_true (g_str_has_suffix (last, " step 10000"));
  /* One at once, one per interval at most, the latest at the end. */
  g_assert_cmpuint (f->progress->len, <=, 2 + elapsed_ms / ZOT_TOOL_PROGRESS_INTERVAL_MS + 1);
}

static const char *
last_progress_text (Fixture *f)
{
  const char *line;

  g_assert_cmpuint (f->progress->len, >, 0);
  line = g_ptr_array_index (f->progress, f->progress->len - 1);
  return strchr (line, ' ') + 1;
}

static void
call_with_progress (Fixture    *f,
                    const char *progress_text)
{
  g_autoptr(JsonObject) args = json_object_new ();

  json_object_set_string_member (args, "progress_text", progress_text);
  json_object_set_string_member (args, "reply", "ok");
  g_free (call (f, "probe", args));
}

/* A text is one line, cut at ZOT_TOOL_PROGRESS_LINE_MAX_BYTES; a frame for
 * a call that is not running is logged and shown nowhere. */
static void
test_progress_limits (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "dyn", "--register-json", PROBE_TOOL, NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *at_limit = g_strnfill (ZOT_TOOL_PROGRESS_LINE_MAX_BYTES, 'a');
  g_autofree char *over = g_strconcat (at_limit, "b", NULL);
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *log = NULL;

  start_host (f, paths);

  call_with_progress (f, at_limit);
  g_assert_cmpstr (last_progress_text (f), ==, at_limit);
  call_with_progress (f, over);
  g_assert_cmpstr (last_progress_text (f), ==, at_limit);
  call_with_progress (f, "one\ntwo\r\tthree");
  g_assert_cmpstr (last_progress_text (f), ==, "one two  three");
  g_assert_cmpuint (f->progress->len, ==, 3);

  json_object_set_string_member (args, "progress_id", "nosuch");
  json_object_set_string_member (args, "progress_text", "lost");
  json_object_set_string_member (args, "reply", "ok");
  g_free (call (f, "probe", args));
  g_assert_cmpuint (f->progress->len, ==, 3);
  log = log_of (f, "dyn");
  g_assert_nonnull (strstr (log, "tool_progress for \"nosuch\", which is no running call"));
}

/* Bad annotations refuse the tool, naming the field; good ones are kept. */
static void
test_annotations (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "dyn",
    "--register-json",
    "{\"type\":\"register_tool\",\"name\":\"both\",\"schema\":{},\"annotations\":{\"read_only\":true,\"destructive\":true,\"title\":\"x\"}}",
    "--register-json",
    "{\"type\":\"register_tool\",\"name\":\"plain\",\"schema\":{},\"annotations\":{\"read_only\":null}}",
    "--register-json",
    "{\"type\":\"register_tool\",\"name\":\"bad_ro\",\"schema\":{},\"annotations\":{\"read_only\":\"yes\"}}",
    "--register-json",
    "{\"type\":\"register_tool\",\"name\":\"bad_de\",\"schema\":{},\"annotations\":{\"destructive\":1}}",
    "--register-json",
    "{\"type\":\"register_tool\",\"name\":\"bad_an\",\"schema\":{},\"annotations\":[]}",
    NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) bad = NULL;
  GPtrArray *problems;
  g_autoptr(GString) joined = g_string_new (NULL);
  ZotTool *tool;

  start_host (f, paths);

  tool = zot_tool_registry_lookup (registry_of (f), "both");
  g_assert_true (zot_extension_tool_get_read_only (ZOT_EXTENSION_TOOL (tool)));
  g_assert_true (zot_extension_tool_get_destructive (ZOT_EXTENSION_TOOL (tool)));
  tool = zot_tool_registry_lookup (registry_of (f), "plain");
  g_assert_false (zot_extension_tool_get_read_only (ZOT_EXTENSION_TOOL (tool)));
  g_assert_false (zot_extension_tool_get_destructive (ZOT_EXTENSION_TOOL (tool)));
  /* A read-only hint earns no approval of its own: extension tools ask. */
  g_assert_true (zot_tool_get_requires_approval (zot_tool_registry_lookup (registry_of (f), "both")));

  g_assert_null (zot_tool_registry_lookup (registry_of (f), "bad_ro"));
  g_assert_null (zot_tool_registry_lookup (registry_of (f), "bad_de"));
  g_assert_null (zot_tool_registry_lookup (registry_of (f), "bad_an"));
  problems = zot_extension_get_problems (extension_of (f, "dyn"));
  for (guint i = 0; i < problems->len; i++)
    g_string_append_printf (joined, "%s\n", (const char *) g_ptr_array_index (problems, i));
  g_assert_nonnull (strstr (joined->str, "tool \"bad_ro\" rejected: \"annotations.read_only\" must be true or false"));
  g_assert_nonnull (strstr (joined->str, "tool \"bad_de\" rejected: \"annotations.destructive\" must be true or false"));
  g_assert_nonnull (strstr (joined->str, "tool \"bad_an\" rejected: \"annotations\" must be a JSON object"));

  /* zot ext check holds an extension to the same rule. */
  bad = zot_test_json_object_from ("{\"type\":\"register_tool\",\"name\":\"x\",\"schema\":{},"
                                   "\"annotations\":{\"read_only\":0}}");
  g_assert_false (zot_extension_tool_check_frame (bad, &error));
  g_assert_nonnull (strstr (error->message, "annotations.read_only"));
}

/* "Allow this tool" answers for later calls of a tool, never of a
 * destructive one: that asks every time. */
static void
test_destructive_asks (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "dyn",
    "--register-json",
    "{\"type\":\"register_tool\",\"name\":\"wipe\",\"schema\":{},\"annotations\":{\"destructive\":true}}",
    "--register-json", OTHER_TOOL, NULL);
  const char *paths[] = { dir, NULL };

  f->interactive = TRUE;
  start_host (f, paths);

  g_free (call_json (f, "other", "{\"reply\":\"a\"}"));
  g_free (call_json (f, "other", "{\"reply\":\"b\"}"));
  g_assert_cmpuint (f->n_asked, ==, 1);

  g_free (call_json (f, "wipe", "{\"reply\":\"c\"}"));
  g_free (call_json (f, "wipe", "{\"reply\":\"d\"}"));
  g_assert_cmpuint (f->n_asked, ==, 3);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/ext-dynamic/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("unregister-tool", test_unregister_tool);
  ADD ("unregister-command", test_unregister_command);
  ADD ("unregister-frees-cap", test_unregister_frees_cap);
  ADD ("progress-rate", test_progress_rate);
  ADD ("progress-limits", test_progress_limits);
  ADD ("annotations", test_annotations);
  ADD ("destructive-asks", test_destructive_asks);

  return g_test_run ();
}
