/* test-codemode.c — codemode scripts (PROTOCOL.md §4a) run for real:
 * the demo model sends a codemode call, gjs runs the script in its
 * sandbox, and the script's tool calls go through the agent to the
 * scripted fake extension, the weather example and the built-in tools.
 * The results, the events, the limits at their edges, the sandbox and the
 * tool lists of each mode. Tests that need the sandbox are skipped, with
 * the reason, where bubblewrap cannot make its namespaces. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "zot-agent.h"
#include "zot-codemode-private.h"
#include "zot-codemode-runtime.h"
#include "zot-codemode-tool.h"
#include "zot-host.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-session.h"
#include "zot-test-util.h"
#include "zot-tool-registry.h"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *events;     /* every lifecycle event frame */
  GPtrArray  *calls;      /* ::extension-call: "tool_id parent name origin" */
  guint       running;    /* script calls started and not finished */
  guint       most_running;
  char       *codemode;   /* --codemode, NULL for the default */
  gboolean    abort_on_call;
  ZotCodemodeTool *tool;  /* set to note its spare at each call */
  guint       spare_at_call;  /* calls that saw a spare ready or starting */
  ZotCodemodeSpareState spare_at_result;  /* as the codemode result came */
  ZotToolResult *result;  /* the last codemode result */
} Fixture;

static char *sandbox_problem;

/* A 1×1 PNG, and a GIF's first bytes. */
#define PNG_BASE64 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
#define GIF_BASE64 "R0lGODlhAQABAAAAACw="

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->calls = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->host != NULL)
    {
      g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
      g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), f);
      zot_test_finalize_host (&f->host);
    }

  for (ZotTimeout t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);
  _zot_codemode_runtime_set_programs_for_testing (NULL, NULL);
  _zot_codemode_runtime_set_limits_for_testing (0, 0);

  g_clear_pointer (&f->result, zot_tool_result_free);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  g_clear_pointer (&f->calls, g_ptr_array_unref);
  g_clear_pointer (&f->codemode, g_free);
  zot_test_env_teardown (&f->env);
}

static gboolean
need_sandbox (void)
{
  if (sandbox_problem == NULL)
    return TRUE;
  g_test_skip (sandbox_problem);
  return FALSE;
}

static void
on_lifecycle_event (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *frame,
                    Fixture             *f)
{
  g_ptr_array_add (f->events, json_object_ref (frame));
}

static void
on_tool_result (ZotAgent      *agent,
                const char    *id,
                const char    *name,
                ZotToolResult *result,
                Fixture       *f)
{
  if (g_str_equal (name, ZOT_CODEMODE_TOOL_NAME))
    {
      if (f->tool != NULL)
        f->spare_at_result = _zot_codemode_tool_get_spare_state_for_testing (f->tool);
      g_clear_pointer (&f->result, zot_tool_result_free);
      f->result = zot_tool_result_copy (result);
    }
}

static void
on_extension_call (ZotAgent   *agent,
                   const char *tool_id,
                   const char *parent_id,
                   const char *name,
                   JsonObject *args,
                   const char *origin,
                   Fixture    *f)
{
  g_ptr_array_add (f->calls, g_strdup_printf ("%s %s %s %s", tool_id, parent_id ? parent_id : "-",
                                              name, origin));
  f->running++;
  f->most_running = MAX (f->most_running, f->running);
  if (f->tool != NULL && _zot_codemode_tool_get_spare_state_for_testing (f->tool) != ZOT_CODEMODE_SPARE_NONE)
    f->spare_at_call++;
  if (f->abort_on_call)
    zot_agent_abort (agent);
}

static void
on_extension_call_result (ZotAgent      *agent,
                          const char    *tool_id,
                          const char    *name,
                          ZotToolResult *result,
                          Fixture       *f)
{
  f->running--;
}

static void
start_host (Fixture            *f,
            const char * const *paths)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  ZotAgent *agent;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.codemode = g_strcmp0 (f->codemode, "off") == 0 ? ZOT_CODEMODE_OFF
                     : g_strcmp0 (f->codemode, "only") == 0 ? ZOT_CODEMODE_ONLY
                     : ZOT_CODEMODE_ON;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  agent = zot_host_get_agent (f->host);
  g_signal_connect (zot_host_get_manager (f->host), "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
  g_signal_connect (agent, "tool-result", G_CALLBACK (on_tool_result), f);
  g_signal_connect (agent, "extension-call", G_CALLBACK (on_extension_call), f);
  g_signal_connect (agent, "extension-call-result", G_CALLBACK (on_extension_call_result), f);

  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
}

#define fake(f, name, ...) zot_test_make_recording_fake (&(f)->env, name, __VA_ARGS__)

static char *
register_tool_json (const char *name,
                    const char *extra)
{
  return g_strdup_printf ("{\"type\":\"register_tool\",\"name\":\"%s\",\"description\":\"the %s tool\","
                          "\"schema\":{\"type\":\"object\"}%s%s}",
                          name, name, extra ? "," : "", extra ? extra : "");
}

/* The demo model's line for a codemode call of @code. */
static char *
codemode_prompt (const char *code)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *json = NULL;

  json_object_set_string_member (args, "code", code);
  json = zot_json_object_to_string (args);
  return g_strdup_printf ("tool: codemode %s", json);
}

static ZotCodemodeTool *
codemode_tool (Fixture *f)
{
  ZotToolRegistry *registry = zot_agent_get_registry (zot_host_get_agent (f->host));

  return ZOT_CODEMODE_TOOL (zot_tool_registry_lookup (registry, ZOT_CODEMODE_TOOL_NAME));
}

/* Runs @code as the model's codemode call; returns the text of its
 * result (borrowed from the fixture). */
static const char *
run_script (Fixture    *f,
            const char *code)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  g_autofree char *prompt = codemode_prompt (code);

  g_clear_pointer (&f->result, zot_tool_result_free);
  zot_test_submit (f->host, prompt, &submit);
  g_assert_no_error (submit.error);
  g_assert_nonnull (f->result);
  return zot_test_json_string_at (json_array_get_object_element (f->result->content, 0), "text");
}

static void
assert_contains (const char *text,
                 const char *needle)
{
  if (text == NULL || strstr (text, needle) == NULL)
    g_error ("\"%s\" does not say \"%s\"", text, needle);
}

static void
assert_completed (Fixture    *f,
                  const char *text)
{
  if (!g_str_has_prefix (text, "Script completed"))
    g_error ("the script failed: %s", text);
  g_assert_false (f->result->is_error);
}

static void
assert_failed (Fixture    *f,
               const char *text,
               const char *needle)
{
  if (!g_str_has_prefix (text, "Script failed"))
    g_error ("the script did not fail: %s", text);
  g_assert_true (f->result->is_error);
  assert_contains (text, needle);
}

/* The script's output: what follows the first line and a blank line. */
static const char *
output_of (const char *text)
{
  const char *start = strstr (text, "\n\n");

  return start != NULL ? start + 2 : "";
}

static const char *
codemode_call_id (Fixture *f)
{
  return zot_test_model_call_id (f->events, ZOT_CODEMODE_TOOL_NAME);
}

static char *
example_dir (const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "examples", "extensions", name, NULL);
}

/* Tests */

static void
test_promise_all (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *alpha = register_tool_json ("alpha", NULL);
  g_autofree char *beta = register_tool_json ("beta", NULL);
  g_autofree char *dir = fake (f, "pair", "--register-json", alpha, "--register-json", beta, NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  const char *text;
  const char *id;
  JsonObject *event;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  text = run_script (f, "const [a, b] = await Promise.all([tools.alpha({reply: '6'}), tools.beta({reply: '7'})])\n"
                        "return Number(a) * Number(b)");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "42");

  /* Real calls, children of the codemode call, from a script. */
  id = codemode_call_id (f);
  first = g_strdup_printf ("%s/1", id);
  second = g_strdup_printf ("%s/2", id);
  event = zot_test_find_event (f->events, "tool_call", first);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "tool_name"), ==, "alpha");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "codemode");
  g_assert_true (json_object_get_boolean_member (event, "origin_script"));
  event = zot_test_find_event (f->events, "tool_result", second);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "tool_name"), ==, "beta");
  g_assert_cmpstr (json_object_get_string_member (event, "status"), ==, "completed");
  g_assert_cmpuint (f->calls->len, ==, 2);
  for (guint i = 0; i < f->calls->len; i++)
    {
      g_autofree char *parent = g_strdup_printf (" %s ", id);
      assert_contains (g_ptr_array_index (f->calls, i), parent);
    }
}

static void
test_seed_example (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *weather = example_dir ("weather");
  g_autofree char *python = g_find_program_in_path ("python3");
  const char *paths[] = { weather, NULL };
  const char *text;

  if (!need_sandbox ())
    return;
  if (python == NULL)
    {
      g_test_skip ("python3 is not installed");
      return;
    }
  start_host (f, paths);

  text = run_script (f, "const result = await tools.weather({})\nreturn result.temperature");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "20");
}

#define WEATHER_TOOL "{\"type\":\"register_tool\",\"name\":\"weather\",\"description\":\"Get synthetic weather data\"," \
  "\"schema\":{\"type\":\"object\"},\"output_schema\":{\"type\":\"object\",\"properties\":{\"temperature\":{\"type\":\"number\"}}}," \
  "\"namespace\":\"weather\",\"namespace_description\":\"Weather observations\"," \
  "\"namespace_instructions\":\"Temperatures are in Celsius\",\"exposure\":\"codemode\"}"

static void
test_structured (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *plain = register_tool_json ("plain", NULL);
  g_autofree char *dir = fake (f, "kinds", "--register-json", WEATHER_TOOL, "--register-json", plain, NULL);
  const char *paths[] = { dir, NULL };
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  /* With an output schema: the structured content; without: the text. */
  text = run_script (f, "const w = await tools.weather({reply: 'Temperature: 20 C', structured: {temperature: 20}})\n"
                        "const p = await tools.plain({reply: 'some text', structured: {temperature: 20}})\n"
                        "return [w.temperature, p]");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "[\n  20,\n  \"some text\"\n]");

  /* Text blocks are joined with newlines. */
  text = run_script (f, "return await tools.plain({reply: 'one', error: 'two', refuse: 'x'}).catch(e => e.message)");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "one\ntwo\nx");
}

static void
test_error_as_data (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *plain = register_tool_json ("plain", NULL);
  g_autofree char *dir = fake (f, "kinds", "--register-json", WEATHER_TOOL, "--register-json", plain, NULL);
  const char *paths[] = { dir, NULL };
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  /* A failure with structured content resolves to it... */
  text = run_script (f, "const w = await tools.weather({error: 'no sensor', structured: {failed: true, why: 'no sensor'}})\n"
                        "return w");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "{\n  \"failed\": true,\n  \"why\": \"no sensor\"\n}");

  /* ...one without rejects with an Error carrying the text. */
  text = run_script (f, "try { await tools.plain({error: 'boom'}); return 'resolved' }\n"
                        "catch (e) { return `${e instanceof Error} ${e.message}` }");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "true boom");

  /* Uncaught, it fails the script, and the output before it stays. */
  text = run_script (f, "text('before'); await tools.plain({error: 'boom'})");
  assert_failed (f, text, "Error: boom");
  g_assert_cmpstr (output_of (text), ==, "before");
}

static void
test_discovery (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *modelonly = register_tool_json ("secretive", "\"exposure\":\"model-only\"");
  g_autofree char *deferred = register_tool_json ("later", "\"exposure\":\"deferred\"");
  g_autofree char *dir = fake (f, "kinds", "--register-json", WEATHER_TOOL, "--register-json", modelonly,
                               "--register-json", deferred, NULL);
  const char *paths[] = { dir, NULL };
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  text = run_script (f, "const names = ALL_TOOLS.map(t => t.name)\n"
                        "const found = await searchTools('celsius')\n"
                        "const ns = await describeNamespace('weather')\n"
                        "const tool = await describeTool('weather')\n"
                        "return {\n"
                        "  weather: names.includes('weather'), later: names.includes('later'),\n"
                        "  secretive: names.includes('secretive'), codemode: names.includes('codemode'),\n"
                        "  search: names.includes('tool_search'), read: names.includes('read'),\n"
                        "  described: ALL_TOOLS.find(t => t.name === 'weather').description,\n"
                        "  found: found.map(t => t.name), limited: (await searchTools('', {limit: 1})).length,\n"
                        "  inNamespace: (await searchTools('', {namespace: 'weather'})).map(t => t.name),\n"
                        "  ns, output: tool.output_schema.properties.temperature.type,\n"
                        "  missingTool: await describeTool('secretive'), missingNs: await describeNamespace('nope'),\n"
                        "  has: ['weather' in tools, 'later' in tools, 'secretive' in tools],\n"
                        "}");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==,
                   "{\n"
                   "  \"weather\": true,\n  \"later\": true,\n  \"secretive\": false,\n  \"codemode\": false,\n"
                   "  \"search\": false,\n  \"read\": true,\n"
                   "  \"described\": \"Get synthetic weather data\",\n"
                   "  \"found\": [\n    \"weather\"\n  ],\n  \"limited\": 1,\n"
                   "  \"inNamespace\": [\n    \"weather\"\n  ],\n"
                   "  \"ns\": {\n    \"name\": \"weather\",\n    \"description\": \"Weather observations\",\n"
                   "    \"instructions\": \"Temperatures are in Celsius\",\n    \"tools\": [\n      \"weather\"\n    ]\n  },\n"
                   "  \"output\": \"number\",\n"
                   "  \"has\": [\n    true,\n    true,\n    false\n  ]\n"
                   "}");
}

static void
test_store_load (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *edge = NULL;
  ZotSession *session;
  const char *text;
  gsize filler;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);
  session = zot_agent_get_session (zot_host_get_agent (f->host));

  text = run_script (f, "store('count', 41); store('gone', 1); store('gone', undefined); return load('count')");
  assert_completed (f, text);
  g_assert_cmpint (json_object_get_int_member (zot_session_get_script_state (session), "count"), ==, 41);
  g_assert_false (json_object_has_member (zot_session_get_script_state (session), "gone"));

  text = run_script (f, "return load('count') + 1");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "42");

  /* A failed script's writes are dropped. */
  text = run_script (f, "store('count', 0); throw new Error('no')");
  assert_failed (f, text, "Error: no");
  text = run_script (f, "return [load('count'), load('nothing')]");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "[\n  41,\n  null\n]");

  /* At the cap: {"count":41,"k":"…"} of exactly the cap fits, one more
   * byte is a RangeError. */
  filler = ZOT_CODEMODE_STATE_MAX_BYTES - strlen ("{\"count\":41,\"k\":\"\"}");
  edge = g_strdup_printf ("store('k', 'x'.repeat(%" G_GSIZE_FORMAT "))\n"
                          "try { store('k', 'x'.repeat(%" G_GSIZE_FORMAT ")) } catch (e) { text(e.name) }\n"
                          "return load('k').length",
                          filler, filler + 1);
  text = run_script (f, edge);
  assert_completed (f, text);
  g_free (edge);
  edge = g_strdup_printf ("RangeError\n%" G_GSIZE_FORMAT, filler);
  g_assert_cmpstr (output_of (text), ==, edge);
  g_assert_cmpuint (strlen (zot_json_get_string (zot_session_get_script_state (session), "k")), ==, filler);
}

static void
test_model_only_refused (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *modelonly = register_tool_json ("secretive", "\"exposure\":\"model-only\"");
  g_autofree char *dir = fake (f, "kinds", "--register-json", modelonly, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) listed = NULL;
  gboolean inline_listed = FALSE;
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  text = run_script (f, "return ['secretive' in tools, typeof tools.secretive]");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "[\n  false,\n  \"undefined\"\n]");

  /* Asked for past the API, the host refuses it. */
  text = run_script (f, "const Gio = (await import('gi://Gio')).default\n"
                        "const out = new Gio.UnixOutputStream({fd: 1, close_fd: false})\n"
                        "out.write_all(new TextEncoder().encode(JSON.stringify({type: 'call', id: 999, name: 'secretive', args: {}}) + '\\n'), null)\n"
                        "return 'sent'");
  assert_completed (f, text);
  for (guint i = 0; i < f->events->len; i++)
    g_assert_cmpstr (json_object_get_string_member_with_default (g_ptr_array_index (f->events, i), "tool_name", ""),
                     !=, "secretive");

  /* It stays inline for the model. */
  listed = zot_tool_registry_list_for_model (zot_agent_get_registry (zot_host_get_agent (f->host)));
  for (guint i = 0; i < listed->len; i++)
    inline_listed |= g_str_equal (zot_tool_get_name (g_ptr_array_index (listed, i)), "secretive");
  g_assert_true (inline_listed);
}

static void
test_guard_blocks_bash (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *guard = fake (f, "guard", "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                                 "--block-tool", "bash", NULL);
  g_autofree char *marker = g_build_filename (f->env.cwd, "ran", NULL);
  const char *paths[] = { guard, NULL };
  g_autofree char *child = NULL;
  JsonObject *decision;
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  text = run_script (f, "try { await tools.bash({command: 'touch ran'}); return 'ran' }\n"
                        "catch (e) { return e.message }");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "blocked by the fake guard");
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));

  child = g_strdup_printf ("%s/1", codemode_call_id (f));
  decision = zot_test_find_event (f->events, "permission_decision", child);
  g_assert_nonnull (decision);
  g_assert_cmpstr (json_object_get_string_member (decision, "decision"), ==, "denied");
  g_assert_cmpstr (json_object_get_string_member (decision, "origin_extension"), ==, "codemode");
}

/* A script's bash call resolves to {output, truncated, exit_code,
 * wall_time_seconds} whatever the exit status, as upstream's does; a
 * command past its time still rejects. */
static void
test_bash_result (Fixture       *f,
                  gconstpointer  data)
{
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);

  text = run_script (f, "const ok = await tools.bash({command: 'printf hi'})\n"
                        "const bad = await tools.bash({command: 'echo oops >&2; exit 3'})\n"
                        "return [ok.output, ok.exit_code, ok.truncated, bad.output.trim(), bad.exit_code,\n"
                        "        bad.truncated, typeof bad.wall_time_seconds, bad.wall_time_seconds >= 0].join('|')");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "hi|0|false|oops|3|false|number|true");

  text = run_script (f, "try { await tools.bash({command: 'sleep 30', timeout_ms: 50}); return 'resolved' }\n"
                        "catch (e) { return `rejected: ${e.message}` }");
  assert_completed (f, text);
  assert_contains (output_of (text), "rejected: ");
  assert_contains (output_of (text), "Timed out after 50 ms");
}

static void
test_sandbox (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *secret = g_build_filename (f->env.cwd, "secret.txt", NULL);
  g_autofree char *code = NULL;
  const char *text;

  if (!need_sandbox ())
    return;
  g_assert_true (g_file_set_contents (secret, "TOPSECRET-7f3a\n", -1, NULL));
  start_host (f, NULL);

  {
    g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), secret);
    g_autofree char *quoted = zot_json_to_string (node);

    code = g_strdup_printf (
      "const path = %s\n"
      "const tries = []\n"
      "try { tries.push(typeof imports.gi.Gio) } catch (e) { tries.push('imports: ' + e.name) }\n"
      "tries.push('global: ' + typeof globalThis.imports)\n"
      "const GLib = (await import('gi://GLib')).default\n"
      "const Gio = (await import('gi://Gio')).default\n"
      "try { tries.push(new TextDecoder().decode(GLib.file_get_contents(path)[1])) } catch (e) { tries.push('GLib read failed') }\n"
      "try { tries.push(new TextDecoder().decode(Gio.File.new_for_path(path).load_contents(null)[1])) } catch (e) { tries.push('Gio read failed') }\n"
      "try { const [, out, err] = GLib.spawn_command_line_sync('cat ' + path); tries.push('spawn: ' + new TextDecoder().decode(out) + new TextDecoder().decode(err)) } catch (e) { tries.push('spawn failed') }\n"
      "return tries.join('\\n')",
      quoted);
  }

  text = run_script (f, code);
  assert_completed (f, text);
  g_assert_null (strstr (text, "TOPSECRET"));
  assert_contains (text, "imports: TypeError");
  assert_contains (text, "global: undefined");
  assert_contains (text, "GLib read failed");
  assert_contains (text, "Gio read failed");
  assert_contains (text, "No such file");
}

static void
test_timeout (Fixture       *f,
              gconstpointer  data)
{
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);

  text = run_script (f, "// @options: {\"timeout_ms\": 300}\ntext('looping'); while (true) {}");
  assert_failed (f, text, "time limit of 300 ms");
  g_assert_cmpstr (output_of (text), ==, "looping");

  /* The default, and the cap on what timeout_ms asks. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_CODEMODE, 300);
  text = run_script (f, "for (;;) {}");
  assert_failed (f, text, "time limit of 300 ms");

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_CODEMODE_MAX, 400);
  text = run_script (f, "// @options: {\"timeout_ms\": 100000000}\nfor (;;) {}");
  assert_failed (f, text, "time limit of 400 ms");

  text = run_script (f, "// @options: [1]\nreturn 1");
  assert_failed (f, text, "must hold a JSON object");
}

static void
test_memory_bomb (Fixture       *f,
                  gconstpointer  data)
{
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);

  /* Well under the cap is fine... */
  text = run_script (f, "const a = new Array(8 * 1024 * 1024).fill(1.5); return a.length");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "8388608");

  /* ...past it the script ends, whatever it catches. */
  text = run_script (f, "const hoard = []\n"
                        "try { for (;;) hoard.push(new Array(1024 * 1024).fill(1.5)) }\n"
                        "catch (e) { hoard.length = 0 }\n"
                        "return 'survived'");
  assert_failed (f, text, "the script's processes used more than 256 MiB in all; the box was stopped");
  g_assert_null (strstr (text, "survived"));
}

/* How a box script ends once its processes are running. */
typedef enum
{
  BOX_RETURNS,  /* at once: only the look at its end can catch it */
  BOX_WAITS,    /* never: only the watchdog can end it */
} BoxEnd;

/* Starts @n processes in the box, each holding @megabytes of memory
 * (0: a plain sleep), and waits until each has it. */
static char *
box_script (guint  n,
            guint  megabytes,
            BoxEnd ending)
{
  return g_strdup_printf (
    "const Gio = (await import('gi://Gio')).default\n"
    "const hold = %u\n"
    "const command = hold > 0 ? `a=$(head -c ${hold * 1024 * 1024} /dev/zero | tr '\\\\0' a); echo ready; sleep 60`\n"
    "                         : 'echo ready; exec sleep 60'\n"
    "for (let i = 0; i < %u; i++) {\n"
    "  const p = Gio.Subprocess.new(['sh', '-c', command], Gio.SubprocessFlags.STDOUT_PIPE)\n"
    "  new Gio.DataInputStream({base_stream: p.get_stdout_pipe()}).read_line(null)\n"
    "}\n"
    "%s\n"
    "return 'survived'", megabytes, n,
    ending == BOX_WAITS ? "await new Promise(() => {})" : "");
}

/* Everything a script starts is in its box, and the box is held to one
 * number of processes: at the edge it runs, one more and the whole box is
 * killed (the reviewer's script had started 300). A script that only
 * waits is ended by the watchdog; one that returns at once, faster than
 * the watchdog looks, by the look at its end. */
static void
test_box_processes (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *at_edge = box_script (3, 0, BOX_RETURNS);
  g_autofree char *over_waiting = box_script (4, 0, BOX_WAITS);
  g_autofree char *over_returning = box_script (4, 0, BOX_RETURNS);
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);
  zot_codemode_tool_set_spare (codemode_tool (f), FALSE);
  /* gjs and three shells: four processes. */
  _zot_codemode_runtime_set_limits_for_testing (0, 4);

  text = run_script (f, at_edge);
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "survived");

  text = run_script (f, over_waiting);
  assert_failed (f, text, "the script's box ran more than 4 processes at once; the box was stopped");

  text = run_script (f, over_returning);
  assert_failed (f, text, "the script's box ran more than 4 processes at once; the box was stopped");
}

/* The memory cap counts every process of the box together (the
 * reviewer's children had 1.43 GB in all while gjs stayed small). */
static void
test_box_memory (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *small = box_script (2, 1, BOX_RETURNS);
  g_autofree char *large_waiting = box_script (2, 48, BOX_WAITS);
  g_autofree char *large_returning = box_script (2, 48, BOX_RETURNS);
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);
  zot_codemode_tool_set_spare (codemode_tool (f), FALSE);
  /* Each child alone stays under it; gjs too. */
  _zot_codemode_runtime_set_limits_for_testing (80 * 1024 * 1024, 0);

  text = run_script (f, small);
  assert_completed (f, text);

  text = run_script (f, large_waiting);
  assert_failed (f, text, "the script's processes used more than 80 MiB in all; the box was stopped");

  text = run_script (f, large_returning);
  assert_failed (f, text, "the script's processes used more than 80 MiB in all; the box was stopped");
}

/* The contents of the file a result's last line names after @before;
 * the file and its directory are removed. */
static char *
take_spill_file (const char *text,
                 const char *before)
{
  const char *start = strrchr (text, '\n');
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  char *contents = NULL;
  struct stat info;

  g_assert_nonnull (start);
  start = strstr (start, before);
  g_assert_nonnull (start);
  start += strlen (before);
  g_assert_true (g_str_has_suffix (start, "]"));
  path = g_strndup (start, strlen (start) - 1);
  dir = g_path_get_dirname (path);
  /* Private: this user's alone. */
  g_assert_cmpint (g_stat (dir, &info), ==, 0);
  g_assert_cmpint (info.st_mode & 0077, ==, 0);
  g_assert_cmpint (g_stat (path, &info), ==, 0);
  g_assert_cmpint (info.st_mode & 0077, ==, 0);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  return contents;
}

static void
test_output_capped (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *exact = NULL;
  g_autofree char *over = NULL;
  g_autofree char *spilled = NULL;
  g_autofree char *needle = NULL;
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);

  /* 10 MiB of console.log: head and tail kept, a marker between. */
  text = run_script (f, "const line = 'x'.repeat(1023)\n"
                        "console.log('first')\n"
                        "for (let i = 0; i < 10240; i++) console.log(line)\n"
                        "console.log('last')");
  assert_completed (f, text);
  g_assert_cmpuint (strlen (text), <, ZOT_CODEMODE_OUTPUT_MAX_BYTES + 400);
  g_assert_true (g_str_has_prefix (output_of (text), "first\n"));
  assert_contains (text, "\nlast\n[The whole output, 10485771 bytes, is in ");
  assert_contains (text, "bytes of output omitted");
  /* ...and the whole of it in the file the result names. */
  spilled = take_spill_file (text, "is in ");
  g_assert_cmpuint (strlen (spilled), ==, 10485771);
  g_assert_true (g_str_has_prefix (spilled, "first\nxxx"));
  g_assert_true (g_str_has_suffix (spilled, "xxx\nlast\n"));
  g_clear_pointer (&spilled, g_free);

  /* The file keeps at most ZOT_CODEMODE_SPILL_MAX_BYTES, and says so. */
  exact = g_strdup_printf ("text('s'.repeat(%" G_GSIZE_FORMAT "))", ZOT_CODEMODE_SPILL_MAX_BYTES - 1);
  text = run_script (f, exact);
  assert_completed (f, text);
  spilled = take_spill_file (text, "is in ");
  g_assert_cmpuint (strlen (spilled), ==, ZOT_CODEMODE_SPILL_MAX_BYTES);
  g_clear_pointer (&spilled, g_free);
  g_clear_pointer (&exact, g_free);
  over = g_strdup_printf ("text('s'.repeat(%" G_GSIZE_FORMAT "))", ZOT_CODEMODE_SPILL_MAX_BYTES);
  text = run_script (f, over);
  assert_completed (f, text);
  needle = g_strdup_printf ("[The first %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes of output are in ",
                            ZOT_CODEMODE_SPILL_MAX_BYTES, ZOT_CODEMODE_SPILL_MAX_BYTES + 1);
  assert_contains (text, needle);
  spilled = take_spill_file (text, "are in ");
  g_assert_cmpuint (strlen (spilled), ==, ZOT_CODEMODE_SPILL_MAX_BYTES);
  g_clear_pointer (&over, g_free);

  /* At the edge: the cap passes whole, one byte more does not. */
  exact = g_strdup_printf ("text('y'.repeat(%" G_GSIZE_FORMAT "))", ZOT_CODEMODE_OUTPUT_MAX_BYTES - 1);
  text = run_script (f, exact);
  assert_completed (f, text);
  g_assert_null (strstr (text, "omitted"));
  g_assert_cmpuint (strlen (output_of (text)), ==, ZOT_CODEMODE_OUTPUT_MAX_BYTES - 1);

  g_assert_null (strstr (text, "[The whole output"));
  over = g_strdup_printf ("text('y'.repeat(%" G_GSIZE_FORMAT "))", ZOT_CODEMODE_OUTPUT_MAX_BYTES);
  text = run_script (f, over);
  assert_completed (f, text);
  assert_contains (text, "[1 bytes of output omitted]");
  g_free (take_spill_file (text, "is in "));

  /* max_output_tokens changes the cap. */
  text = run_script (f, "// @options: {\"max_output_tokens\": 100}\ntext('z'.repeat(1000))");
  assert_completed (f, text);
  assert_contains (text, "bytes of output omitted");
  g_assert_cmpuint (strlen (output_of (text)), <, 100 * ZOT_CODEMODE_BYTES_PER_TOKEN + 200);
  g_clear_pointer (&spilled, g_free);
  spilled = take_spill_file (text, "is in ");
  g_assert_cmpuint (strlen (spilled), ==, 1001);
}

static void
test_fresh_runtime (Fixture       *f,
                    gconstpointer  data)
{
  ZotCodemodeTool *tool;
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);
  tool = codemode_tool (f);

  text = run_script (f, "globalThis.leak = 42; Array.prototype.leak = 1; return typeof leak");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "number");

  /* The next script runs in the spare started meanwhile: fresh too. */
  zot_test_wait_until ((gboolean (*) (gpointer)) zot_codemode_tool_has_spare, tool, 60000);
  text = run_script (f, "return [typeof globalThis.leak, typeof [].leak]");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "[\n  \"undefined\",\n  \"undefined\"\n]");
}

/* A script's list of the numbers its runtime was given in its
 * environment, and what it should be. */
#define RUNTIME_ENV_SCRIPT \
  "const GLib = (await import('gi://GLib')).default\n" \
  "return ['JIT_OPTION_baselineInterpreterWarmUpThreshold', 'JIT_OPTION_baselineJitWarmUpThreshold',\n" \
  "        'JIT_OPTION_normalIonWarmUpThreshold', 'ZOT_WARM_UP_CALLS'].map(name => GLib.getenv(name))"
#define RUNTIME_ENV_EXPECTED \
  G_STRINGIFY (ZOT_CODEMODE_JIT_BASELINE_INTERPRETER_AFTER) " " \
  G_STRINGIFY (ZOT_CODEMODE_JIT_BASELINE_AFTER) " " G_STRINGIFY (ZOT_CODEMODE_JIT_OPTIMISED_AFTER) " " \
  G_STRINGIFY (ZOT_CODEMODE_WARM_UP_CALLS)

/* The runtime's gjs compiles a script's code only after the counts in
 * zot-limits.h, and the runtime warms up with the calls there: both reach
 * it through its environment. */
static void
test_jit_options (Fixture       *f,
                  gconstpointer  data)
{
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);

  text = run_script (f, RUNTIME_ENV_SCRIPT ".join(' ')");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, RUNTIME_ENV_EXPECTED);
}

/* A stand-in for gjs that warms up with @n_calls calls, each answered
 * before the next, then runs any script by saying how many it made. */
static char *
fake_warming_runtime (Fixture *f,
                      guint    n_calls)
{
  g_autofree char *name = g_strdup_printf ("gjs-warming-%u", n_calls);
  char *path = g_build_filename (f->env.root, name, NULL);
  g_autofree char *script = g_strdup_printf (
    "#!/bin/sh\n"
    "i=0\n"
    "while [ $i -lt %u ]; do\n"
    "  i=$((i + 1))\n"
    "  printf '{\"type\":\"call\",\"id\":%%d,\"name\":\"warm-up\",\"args\":{}}\\n' $i\n"
    "  read -r answer || exit 1\n"
    "  case \"$answer\" in *'\"type\":\"result\",\"id\":'$i','*'\"ok\":true'*) ;; *) exit 1 ;; esac\n"
    "done\n"
    "printf '{\"type\":\"ready\"}\\n'\n"
    "read -r start\n"
    "printf '{\"type\":\"output\",\"text\":\"warmed up with %%d\"}\\n' $i\n"
    "printf '{\"type\":\"done\",\"ok\":true}\\n'\n"
    "cat >/dev/null\n",
    n_calls);

  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return path;
}

/* The host answers a runtime's calls before it is ready, at most
 * ZOT_CODEMODE_WARM_UP_CALLS of them. */
static void
test_warm_up (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *most = fake_warming_runtime (f, ZOT_CODEMODE_WARM_UP_CALLS);
  g_autofree char *over = fake_warming_runtime (f, ZOT_CODEMODE_WARM_UP_CALLS + 1);
  g_autofree char *expected = g_strdup_printf ("warmed up with %u", ZOT_CODEMODE_WARM_UP_CALLS);
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);
  zot_codemode_tool_set_spare (codemode_tool (f), FALSE);

  _zot_codemode_runtime_set_programs_for_testing (NULL, most);
  text = run_script (f, "return 1");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, expected);

  _zot_codemode_runtime_set_programs_for_testing (NULL, over);
  text = run_script (f, "return 1");
  assert_failed (f, text, "the script runtime did not start properly");
}

/* A stand-in for gjs that, for any script, sends the image frames a
 * runtime should never pass on: too large, not base64, not the type it
 * says, a type no provider takes; then one good PNG. */
static char *
fake_forging_runtime (Fixture *f)
{
  char *path = g_build_filename (f->env.root, "gjs-forging", NULL);
  g_autofree char *script = g_strdup_printf (
    "#!/bin/sh\n"
    "image () { printf '{\"type\":\"image\",\"mime_type\":\"%%s\",\"data\":\"%%s\"}\\n' \"$1\" \"$2\"; }\n"
    "printf '{\"type\":\"ready\"}\\n'\n"
    "read -r start\n"
    "printf '{\"type\":\"image\",\"mime_type\":\"image/png\",\"data\":\"'\n"
    "head -c %" G_GSIZE_FORMAT " /dev/zero | tr '\\0' 'A'\n"
    "printf '\"}\\n'\n"
    "image image/png '!!!!'\n"
    "image image/png " GIF_BASE64 "\n"
    "image image/svg+xml PHN2Zy8+\n"
    "image image/png " PNG_BASE64 "\n"
    "printf '{\"type\":\"done\",\"ok\":true}\\n'\n"
    "cat >/dev/null\n",
    ZOT_CODEMODE_IMAGE_MAX_BYTES + 4);

  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return path;
}

/* The host checks each image the runtime sends: what a script forged
 * past the runtime's own checks never reaches the result or the session. */
static void
test_forged_images (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *forging = fake_forging_runtime (f);
  g_autofree char *too_large = g_strdup_printf ("[image left out: the image is %" G_GSIZE_FORMAT
                                                " bytes of base64; at most %" G_GSIZE_FORMAT " are shown]",
                                                ZOT_CODEMODE_IMAGE_MAX_BYTES + 4, ZOT_CODEMODE_IMAGE_MAX_BYTES);
  JsonObject *image;
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);
  zot_codemode_tool_set_spare (codemode_tool (f), FALSE);

  _zot_codemode_runtime_set_programs_for_testing (NULL, forging);
  text = run_script (f, "return 1");
  assert_completed (f, text);
  assert_contains (text, too_large);
  assert_contains (text, "[image left out: the image's data is not valid base64");
  assert_contains (text, "[image left out: the image's data is not image/png; it is image/gif]");
  assert_contains (text, "[image left out: image/svg+xml is not PNG, JPEG, GIF or WebP]");
  g_assert_cmpuint (json_array_get_length (f->result->content), ==, 2);
  image = json_array_get_object_element (f->result->content, 1);
  g_assert_cmpstr (zot_test_json_string_at (image, "data"), ==, PNG_BASE64);
}

/* A stand-in for gjs that, for any script, sends frame types the host
 * does not know, some more than once, and asks what the host cannot
 * answer, then ends well. */
static char *
fake_unknown_runtime (Fixture *f)
{
  char *path = g_build_filename (f->env.root, "gjs-unknown", NULL);
  const char *script =
    "#!/bin/sh\n"
    "printf '{\"type\":\"ready\"}\\n'\n"
    "read -r start\n"
    "for i in 1 2 3; do printf '{\"type\":\"mystery\",\"n\":%d}\\n' $i; done\n"
    "printf '{\"type\":\"enigma\"}\\n'\n"
    "for i in 1 2; do\n"
    "  printf '{\"type\":\"ask\",\"id\":%d,\"what\":\"riddle\"}\\n' $i\n"
    "  read -r reply || exit 1\n"
    "  case \"$reply\" in *'\"value\":null'*) ;; *) exit 1 ;; esac\n"
    "done\n"
    "printf '{\"type\":\"output\",\"text\":\"still here\"}\\n'\n"
    "printf '{\"type\":\"done\",\"ok\":true}\\n'\n"
    "cat >/dev/null\n";

  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return path;
}

static void
count_message_cb (const char     *domain,
                  GLogLevelFlags  level,
                  const char     *message,
                  gpointer        user_data)
{
  GPtrArray *messages = user_data;

  g_ptr_array_add (messages, g_strdup (message));
}

static guint
count_containing (GPtrArray  *messages,
                  const char *text)
{
  guint n = 0;

  for (guint i = 0; i < messages->len; i++)
    n += strstr (g_ptr_array_index (messages, i), text) != NULL;
  return n;
}

/* A frame type or an ask the host does not know is logged the first
 * time, not for each frame, and the script goes on. */
static void
test_unknown_frames (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *unknown = fake_unknown_runtime (f);
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func (g_free);
  const char *text;
  guint handler;

  if (!need_sandbox ())
    return;
  start_host (f, NULL);
  zot_codemode_tool_set_spare (codemode_tool (f), FALSE);

  handler = g_log_set_handler ("zot-codemode", G_LOG_LEVEL_MESSAGE, count_message_cb, messages);
  _zot_codemode_runtime_set_programs_for_testing (NULL, unknown);
  text = run_script (f, "return 1");
  assert_completed (f, text);
  assert_contains (text, "still here");

  /* A second script, with the same tool: nothing new to say. */
  text = run_script (f, "return 1");
  assert_completed (f, text);
  g_log_remove_handler ("zot-codemode", handler);

  g_assert_cmpuint (count_containing (messages, "unknown frame type \"mystery\""), ==, 1);
  g_assert_cmpuint (count_containing (messages, "unknown frame type \"enigma\""), ==, 1);
  g_assert_cmpuint (count_containing (messages, "unknown ask \"riddle\""), ==, 1);
  g_assert_cmpuint (messages->len, ==, 3);
}

/* The checks at their edges, one at a time. */
static void
test_image_checks (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GString) largest = g_string_new ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB");
  g_autofree char *problem = NULL;

  while (largest->len < ZOT_CODEMODE_IMAGE_MAX_BYTES)
    g_string_append_c (largest, 'A');
  g_assert_null (zot_codemode_check_image ("image/png", largest->str));
  g_string_append (largest, "AAAA");
  problem = zot_codemode_check_image ("image/png", largest->str);
  assert_contains (problem, "at most 2097152");
  g_clear_pointer (&problem, g_free);

  g_assert_null (zot_codemode_check_image ("image/png", PNG_BASE64));
  g_assert_null (zot_codemode_check_image ("image/gif", GIF_BASE64));
#define REFUSED(mime, data, says) \
  problem = zot_codemode_check_image (mime, data); \
  assert_contains (problem, says); \
  g_clear_pointer (&problem, g_free)
  REFUSED (NULL, PNG_BASE64, "needs a mime_type");
  REFUSED ("image/png", NULL, "needs a mime_type");
  REFUSED ("image/bmp", PNG_BASE64, "is not PNG");
  REFUSED ("image/png", "", "not valid base64");
  REFUSED ("image/png", "iVBORw0KGgo", "not valid base64");        /* not a multiple of 4 */
  REFUSED ("image/png", "iVBO Rw0KGgo", "not valid base64");
  REFUSED ("image/png", "iVBORw0KGgo=AAA", "not valid base64");    /* padding inside */
  REFUSED ("image/png", "iVBORw0KGgoAAAANSUhEUgAAAAAAAAAB", "no valid header");  /* width 0 */
  REFUSED ("image/png", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAA", "no valid header");  /* height 0 */
  REFUSED ("image/png", "iVBORw0KGgo=", "no valid header");        /* the signature alone */
  REFUSED ("image/jpeg", PNG_BASE64, "not image/jpeg; it is image/png");
#undef REFUSED
}

/* Inside Flatpak the runtime runs in the portal's sub-sandbox: no
 * network, none of the app's environment, and the same JIT counts. */
static void
test_flatpak (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *log = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  JsonArray *argv;
  const char *text;

  if (!need_sandbox ())
    return;
  log = zot_test_fake_sandbox_begin (f->env.root);
  start_host (f, NULL);
  /* No spare after it: the pretend sandbox ends with the script. */
  zot_codemode_tool_set_spare (codemode_tool (f), FALSE);

  text = run_script (f, RUNTIME_ENV_SCRIPT
    ".concat([GLib.getenv('HOME'), GLib.getenv('ZOT_FAKE_FLATPAK_SPAWN_LOG') ?? 'none']).join(' ')");
  zot_test_fake_sandbox_end ();
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, RUNTIME_ENV_EXPECTED " /tmp none");

  calls = zot_test_read_frames (log);
  g_assert_cmpuint (calls->len, >=, 1);
  argv = json_object_get_array_member (g_ptr_array_index (calls, 0), "argv");
  g_assert_cmpstr (json_array_get_string_element (argv, 0), ==, "--sandbox");
  g_assert_cmpstr (json_array_get_string_element (argv, 1), ==, "--no-network");
  g_assert_cmpstr (json_array_get_string_element (argv, 2), ==, "--watch-bus");
  g_assert_cmpstr (json_array_get_string_element (argv, 3), ==, "--clear-env");
}

/* The next spare starts when a script ends, not while it runs: gjs
 * starting beside a script would slow each of its calls. Nor before the
 * script's result has gone: starting it forks the host. */
static void
test_spare_after_script (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *alpha = register_tool_json ("alpha", NULL);
  g_autofree char *dir = fake (f, "spared", "--register-json", alpha, NULL);
  const char *paths[] = { dir, NULL };
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);
  f->tool = codemode_tool (f);

  /* The first script starts its own runtime; the spare comes after it. */
  text = run_script (f, "await tools.alpha({reply: 'a'}); return await tools.alpha({reply: 'b'})");
  assert_completed (f, text);
  g_assert_cmpuint (f->calls->len, ==, 2);
  g_assert_cmpuint (f->spare_at_call, ==, 0);
  g_assert_cmpint (f->spare_at_result, ==, ZOT_CODEMODE_SPARE_SOON);

  /* The second takes the spare; no other starts until it ends. */
  zot_test_wait_until ((gboolean (*) (gpointer)) zot_codemode_tool_has_spare, f->tool, 60000);
  text = run_script (f, "await tools.alpha({reply: 'a'}); return await tools.alpha({reply: 'b'})");
  assert_completed (f, text);
  g_assert_cmpuint (f->calls->len, ==, 4);
  g_assert_cmpuint (f->spare_at_call, ==, 0);
  g_assert_cmpint (f->spare_at_result, ==, ZOT_CODEMODE_SPARE_SOON);
  zot_test_wait_until ((gboolean (*) (gpointer)) zot_codemode_tool_has_spare, f->tool, 60000);
}

/* The runtime reads the host's answers with a blocking read while a
 * script waits only for them; timers must still fire, whether or not a
 * call is out meanwhile, and cleared ones must not. */
static void
test_timers (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *alpha = register_tool_json ("alpha", NULL);
  g_autofree char *dir = fake (f, "timed", "--register-json", alpha, NULL);
  const char *paths[] = { dir, NULL };
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  text = run_script (f,
    "const order = []\n"
    "const cleared = setTimeout(() => order.push('cleared'), 0)\n"
    "clearTimeout(cleared)\n"
    "const timer = new Promise(resolve => setTimeout(() => { order.push('timer'); resolve() }, 1))\n"
    "const call = tools.alpha({reply: 'call'}).then(reply => order.push(reply))\n"
    "await Promise.all([timer, call])\n"
    "let ticks = 0\n"
    "await new Promise(resolve => { const id = setInterval(() => { if (++ticks === 3) { clearInterval(id); resolve() } }, 1) })\n"
    "await new Promise(resolve => setTimeout(resolve, 5))\n"
    "return [order.sort().join(','), ticks].join(' ')");
  assert_completed (f, text);
  g_assert_cmpstr (output_of (text), ==, "call,timer 3");
}

static void
test_calls_per_script (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->env.cwd, "small.txt", NULL);
  g_autofree char *code = NULL;
  const char *text;

  if (!need_sandbox ())
    return;
  g_assert_true (g_file_set_contents (file, "s", -1, NULL));
  start_host (f, NULL);

  code = g_strdup_printf ("let ok = 0\n"
                          "for (let i = 0; i < %u; i += 10)\n"
                          "  ok += (await Promise.all(Array.from({length: 10}, () => tools.read({path: 'small.txt'})))).length\n"
                          "try { await tools.read({path: 'small.txt'}) } catch (e) { return `${ok} ${e.message}` }",
                          ZOT_CODEMODE_MAX_CALLS);
  text = run_script (f, code);
  assert_completed (f, text);
  g_free (code);
  code = g_strdup_printf ("%u a script makes at most %u tool calls", ZOT_CODEMODE_MAX_CALLS, ZOT_CODEMODE_MAX_CALLS);
  g_assert_cmpstr (output_of (text), ==, code);
}

static void
test_calls_in_flight (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *slow = register_tool_json ("slow", NULL);
  g_autofree char *dir = fake (f, "slow", "--register-json", slow, NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *code = NULL;
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  /* One more than may run at once: all finish, never more at once. */
  code = g_strdup_printf ("const all = await Promise.all(Array.from({length: %u}, (_, i) => tools.slow({reply: String(i), late_ms: 200})))\n"
                          "return all.length",
                          ZOT_CODEMODE_MAX_CALLS_IN_FLIGHT + 1);
  text = run_script (f, code);
  assert_completed (f, text);
  g_free (code);
  code = g_strdup_printf ("%u", ZOT_CODEMODE_MAX_CALLS_IN_FLIGHT + 1);
  g_assert_cmpstr (output_of (text), ==, code);
  g_assert_cmpuint (f->most_running, ==, ZOT_CODEMODE_MAX_CALLS_IN_FLIGHT);
}

static gboolean
child_ended (gpointer data)
{
  Fixture *f = data;
  g_autofree char *child = g_strdup_printf ("%s/1", codemode_call_id (f));

  return zot_test_find_event (f->events, "tool_result", child) != NULL;
}

static void
test_abort (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *slow = register_tool_json ("slow", NULL);
  g_autofree char *dir = fake (f, "slow", "--register-json", slow, NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *child = NULL;
  const char *text;
  JsonObject *event;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  /* Aborted while its call hangs: the call ends, and so does the script. */
  f->abort_on_call = TRUE;
  {
    g_auto(ZotTestSubmit) submit = { 0 };
    g_autofree char *prompt = codemode_prompt ("await tools.slow({hang: true}); for (;;) {}");

    zot_test_submit (f->host, prompt, &submit);
    g_assert_error (submit.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }
  g_assert_nonnull (f->result);
  text = zot_test_json_string_at (json_array_get_object_element (f->result->content, 0), "text");
  assert_contains (text, "cancelled");
  child = g_strdup_printf ("%s/1", codemode_call_id (f));
  /* The nested call's end follows the script's by a turn or two. */
  zot_test_wait_until (child_ended, f, 30000);
  event = zot_test_find_event (f->events, "tool_result", child);
  g_assert_cmpstr (json_object_get_string_member (event, "status"), ==, "cancelled");
  event = zot_test_find_event (f->events, "tool_result", codemode_call_id (f));
  g_assert_cmpstr (json_object_get_string_member (event, "status"), ==, "cancelled");
}

static void
test_chain (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *outer = register_tool_json ("outer", NULL);
  g_autofree char *dir = fake (f, "nest", "--capabilities", "call_tool", "--register-json", outer, NULL);
  const char *paths[] = { dir, NULL };
  const char *text;

  if (!need_sandbox ())
    return;
  start_host (f, paths);

  /* A tool called from a script may not run codemode again. */
  text = run_script (f, "return await tools.outer({call: [{name: 'codemode', args: {code: 'return 1'}}]})");
  assert_completed (f, text);
  assert_contains (output_of (text), "codemode is already a call of this chain");
}

static void
test_modes (Fixture       *f,
            gconstpointer  data)
{
  const char *mode = data;
  g_autofree char *direct = register_tool_json ("direct_tool", NULL);
  g_autofree char *scripted = register_tool_json ("scripted", "\"exposure\":\"codemode\"");
  g_autofree char *deferred = register_tool_json ("later", "\"exposure\":\"deferred\"");
  g_autofree char *modelonly = register_tool_json ("secretive", "\"exposure\":\"model-only\"");
  g_autofree char *dir = fake (f, "kinds", "--register-json", direct, "--register-json", scripted,
                               "--register-json", deferred, "--register-json", modelonly, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) listed = NULL;
  g_autoptr(GString) names = g_string_new (NULL);
  ZotToolRegistry *registry;

  f->codemode = g_strdup (mode);
  start_host (f, paths);
  registry = zot_agent_get_registry (zot_host_get_agent (f->host));

  listed = zot_tool_registry_list_for_model (registry);
  for (guint i = 0; i < listed->len; i++)
    {
      const char *name = zot_tool_get_name (g_ptr_array_index (listed, i));

      if (g_str_equal (name, "codemode") || g_str_equal (name, "tool_search") || zot_tool_get_origin (g_ptr_array_index (listed, i)) != NULL)
        g_string_append_printf (names, "%s%s", names->len > 0 ? " " : "", name);
    }

  if (g_str_equal (mode, "on"))
    g_assert_cmpstr (names->str, ==, "tool_search codemode direct_tool secretive");
  else if (g_str_equal (mode, "only"))
    g_assert_cmpstr (names->str, ==, "tool_search codemode secretive");
  else
    g_assert_cmpstr (names->str, ==, "tool_search direct_tool secretive");

  /* Deferred tools stay activatable in every mode; codemode tools are
   * only where there is no runtime. */
  g_assert_true (zot_tool_registry_is_activatable (registry, zot_tool_registry_lookup (registry, "later")));
  g_assert_cmpint (zot_tool_registry_is_activatable (registry, zot_tool_registry_lookup (registry, "scripted")),
                   ==, g_str_equal (mode, "off"));
}

static void
test_runtime_missing (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->env.root, "no-such-program", NULL);
  const char *text;

  start_host (f, NULL);

  _zot_codemode_runtime_set_programs_for_testing (missing, NULL);
  text = run_script (f, "return 1");
  assert_failed (f, text, "install bubblewrap");
  g_assert_null (strchr (text, '\n'));

  _zot_codemode_runtime_set_programs_for_testing (NULL, missing);
  text = run_script (f, "return 1");
  assert_failed (f, text, "install gjs");
  g_assert_null (strchr (text, '\n'));

  /* A sandbox that cannot start is an error, never a run without one. */
  _zot_codemode_runtime_set_programs_for_testing ("/bin/false", NULL);
  text = run_script (f, "return 1");
  assert_failed (f, text, "could not start");
  assert_contains (text, "never run unconfined");
  assert_contains (text, "bubblewrap");
  g_assert_null (strchr (text, '\n'));
  _zot_codemode_runtime_set_programs_for_testing (NULL, NULL);

  /* Inside Flatpak: no flatpak-spawn, then no portal to make the sandbox. */
  {
    g_autofree char *log = zot_test_fake_sandbox_begin (f->env.root);
    g_autofree char *path = g_strdup (g_getenv ("PATH"));

    g_setenv ("PATH", "/nonexistent", TRUE);
    text = run_script (f, "return 1");
    g_setenv ("PATH", path, TRUE);
    assert_failed (f, text, "flatpak-spawn is missing");

    g_setenv ("ZOT_FAKE_FLATPAK_SPAWN_FAIL", "1", TRUE);
    text = run_script (f, "return 1");
    g_unsetenv ("ZOT_FAKE_FLATPAK_SPAWN_FAIL");
    zot_test_fake_sandbox_end ();
    assert_failed (f, text, "could not start: flatpak-spawn: Failed to connect to the Flatpak portal");
    assert_contains (text, "Flatpak's portal must be running");
    g_assert_null (strchr (text, '\n'));
  }
}

static char *
check_sandbox (void)
{
  const char *argv[] = {
    "bwrap", "--unshare-all", "--die-with-parent", "--as-pid-1", "--ro-bind", "/usr", "/usr",
    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
    "--proc", "/proc", "--dev", "/dev", "gjs", "-c", "print(1)", NULL,
  };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error))
    return g_strdup_printf ("bubblewrap cannot run here: %s", error->message);
  if (!g_spawn_check_wait_status (status, NULL) || g_strcmp0 (g_strstrip (out), "1") != 0)
    return g_strdup_printf ("bubblewrap cannot confine gjs here: %s", g_strstrip (err));
  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  sandbox_problem = check_sandbox ();

#define add(path, func, data) \
  g_test_add ("/codemode/" path, Fixture, data, fixture_setup, func, fixture_teardown)

  add ("promise-all", test_promise_all, NULL);
  add ("seed-example", test_seed_example, NULL);
  add ("structured", test_structured, NULL);
  add ("error-as-data", test_error_as_data, NULL);
  add ("discovery", test_discovery, NULL);
  add ("store-load", test_store_load, NULL);
  add ("model-only-refused", test_model_only_refused, NULL);
  add ("guard-blocks-bash", test_guard_blocks_bash, NULL);
  add ("bash-result", test_bash_result, NULL);
  add ("sandbox", test_sandbox, NULL);
  add ("timeout", test_timeout, NULL);
  add ("memory-bomb", test_memory_bomb, NULL);
  add ("box-processes", test_box_processes, NULL);
  add ("box-memory", test_box_memory, NULL);
  add ("output-capped", test_output_capped, NULL);
  add ("fresh-runtime", test_fresh_runtime, NULL);
  add ("spare-after-script", test_spare_after_script, NULL);
  add ("jit-options", test_jit_options, NULL);
  add ("flatpak", test_flatpak, NULL);
  add ("warm-up", test_warm_up, NULL);
  add ("forged-images", test_forged_images, NULL);
  add ("unknown-frames", test_unknown_frames, NULL);
  add ("image-checks", test_image_checks, NULL);
  add ("timers", test_timers, NULL);
  add ("calls-per-script", test_calls_per_script, NULL);
  add ("calls-in-flight", test_calls_in_flight, NULL);
  add ("abort", test_abort, NULL);
  add ("chain", test_chain, NULL);
  add ("modes/on", test_modes, "on");
  add ("modes/only", test_modes, "only");
  add ("modes/off", test_modes, "off");
  add ("runtime-missing", test_runtime_missing, NULL);

  return g_test_run ();
}
