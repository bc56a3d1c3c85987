/* test-integration.c — extensions inside the agent: extension tools and
 * their exposure, interception chains, before_agent_start, lifecycle
 * events and permissions, through ZotHost with the demo model and the
 * scripted fake extension (its --record file shows what it received). */
#include "config.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "zot-agent.h"
#include "zot-error.h"
#include "zot-extension-tool.h"
#include "zot-grants.h"
#include "zot-host.h"
#include "zot-message.h"
#include "zot-model-facts.h"
#include "zot-names.h"
#include "zot-session.h"
#include "zot-test-util.h"
#include "zot-tool-search.h"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *warnings;
  GPtrArray  *shown;       /* visible assistant texts */
  GPtrArray  *results;     /* "name outcome" */
  GPtrArray  *approvals;   /* ZotApproval, unresolved, for the test to answer */
  gboolean    interactive;
  const char *codemode;
  gboolean    abort_on_tool_call;
  gboolean    headless;    /* as -p and --json: no zot_host_begin_session() at start */
  int         answer;      /* -1: keep pending; else ZotApprovalChoice */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->warnings = g_ptr_array_new_with_free_func (g_free);
  f->shown = g_ptr_array_new_with_free_func (g_free);
  f->results = g_ptr_array_new_with_free_func (g_free);
  f->approvals = g_ptr_array_new_with_free_func (g_object_unref);
  f->interactive = data != NULL;
  f->answer = ZOT_APPROVAL_ALLOW;
}

static void
shutdown_host (Fixture *f)
{
  if (f->host == NULL)
    return;

  g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
  g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), f);
  zot_test_finalize_host (&f->host);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_ptr_array_set_size (f->approvals, 0);
  shutdown_host (f);
  g_clear_pointer (&f->warnings, g_ptr_array_unref);
  g_clear_pointer (&f->shown, g_ptr_array_unref);
  g_clear_pointer (&f->results, g_ptr_array_unref);
  g_clear_pointer (&f->approvals, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

static void
on_warning (ZotExtensionManager *manager,
            ZotExtension        *extension,
            const char          *message,
            Fixture             *f)
{
  g_ptr_array_add (f->warnings, g_strdup (message));
}

static void
on_assistant_message (ZotAgent   *agent,
                      JsonObject *message,
                      Fixture    *f)
{
  g_ptr_array_add (f->shown, zot_message_get_text (message));
}

static void
on_tool_call (ZotAgent   *agent,
              const char *id,
              const char *name,
              JsonObject *args,
              Fixture    *f)
{
  if (f->abort_on_tool_call)
    zot_agent_abort (agent);
}

static void
on_tool_result (ZotAgent      *agent,
                const char    *id,
                const char    *name,
                ZotToolResult *result,
                Fixture       *f)
{
  g_ptr_array_add (f->results, g_strdup_printf ("%s %s", name, zot_tool_outcome_to_string (result->outcome)));
}

static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       Fixture             *f)
{
  if (f->answer >= 0)
    zot_approval_resolve (approval, f->answer);
  else
    g_ptr_array_add (f->approvals, g_object_ref (approval));
  return TRUE;
}

/* Starts a host with @paths (NULL-terminated) as explicit extensions. */
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
  options.codemode = g_strcmp0 (f->codemode, "off") == 0 ? ZOT_CODEMODE_OFF
                     : g_strcmp0 (f->codemode, "only") == 0 ? ZOT_CODEMODE_ONLY
                     : ZOT_CODEMODE_ON;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  g_signal_connect (zot_host_get_manager (f->host), "warning", G_CALLBACK (on_warning), f);
  g_signal_connect (zot_host_get_agent (f->host), "assistant-message", G_CALLBACK (on_assistant_message), f);
  g_signal_connect (zot_host_get_agent (f->host), "tool-call", G_CALLBACK (on_tool_call), f);
  g_signal_connect (zot_host_get_agent (f->host), "tool-result", G_CALLBACK (on_tool_result), f);
  if (f->interactive)
    g_signal_connect (zot_host_get_manager (f->host), "approval-requested",
                      G_CALLBACK (on_approval_requested), f);

  zot_test_load_host (f->host);
  if (!f->headless)
    zot_host_begin_session (f->host);
}

static void
submit (Fixture       *f,
        const char    *text,
        ZotTestSubmit *out)
{
  zot_test_submit (f->host, text, out);
}

static char *
record_path (Fixture    *f,
             const char *name)
{
  return zot_test_record_path (&f->env, name);
}

#define FAKE(f, name, ...) zot_test_make_recording_fake (&f->env, name, __VA_ARGS__)

static GPtrArray *
frames_of (Fixture    *f,
           const char *name,
           const char *type)
{
  g_autofree char *path = record_path (f, name);
  g_autoptr(GPtrArray) all = zot_test_read_frames (path);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  for (guint i = 0; i < all->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (all, i);
      if (type == NULL || g_str_equal (json_object_get_string_member_with_default (frame, "type", ""), type))
        g_ptr_array_add (frames, json_object_ref (frame));
    }
  return frames;
}

static JsonObject *
event_named (GPtrArray  *events,
             const char *name,
             guint       nth)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);
      if (g_str_equal (json_object_get_string_member_with_default (event, "event", ""), name) && nth-- == 0)
        return event;
    }
  return NULL;
}

static const char *all_events =
  "{\"type\":\"subscribe\",\"events\":[\"session_start\",\"session_end\",\"user_prompt_submit\","
  "\"turn_start\",\"turn_end\",\"tool_call\",\"tool_result\",\"tool_confirmation_requested\","
  "\"permission_decision\",\"assistant_message\",\"pre_compact\",\"post_compact\","
  "\"subagent_start\",\"subagent_stop\"]}";

static const char *echo_tool =
  "{\"type\":\"register_tool\",\"name\":\"echo_tool\",\"description\":\"Echoes\",\"schema\":{\"type\":\"object\"}}";

/* Extension tools */

static void
test_extension_tool (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "toolbox", "--register-json", echo_tool, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) calls = NULL;
  ZotToolRegistry *registry;
  ZotTool *tool;
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  registry = zot_agent_get_registry (zot_host_get_agent (f->host));
  tool = zot_tool_registry_lookup (registry, "echo_tool");
  g_assert_nonnull (tool);
  g_assert_cmpstr (zot_tool_get_origin (tool), ==, "toolbox");
  g_assert_cmpstr (zot_tool_get_namespace (tool), ==, "toolbox");
  g_assert_cmpint (zot_tool_get_exposure (tool), ==, ZOT_TOOL_EXPOSURE_DIRECT);

  submit (f, "tool: echo_tool {\"reply\":\"pong from the extension\"}", &s);
  g_assert_no_error (s.error);
  g_assert_nonnull (strstr (s.text, "pong from the extension"));
  g_assert_cmpstr (g_ptr_array_index (f->results, 0), ==, "echo_tool completed");

  calls = frames_of (f, "toolbox", "tool_call");
  g_assert_cmpuint (calls->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (calls, 0), "name"), ==, "echo_tool");
}

static void
execute_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ZotToolResult **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = zot_tool_execute_finish (ZOT_TOOL (object), result, &error);
  g_assert_no_error (error);
}

static gboolean
result_ready (gpointer data)
{
  return *(ZotToolResult **) data != NULL;
}

static ZotToolResult *
execute (Fixture    *f,
         const char *tool_name,
         const char *args_json)
{
  ZotTool *tool = zot_tool_registry_lookup (zot_agent_get_registry (zot_host_get_agent (f->host)), tool_name);
  g_autoptr(JsonObject) args = zot_json_object_from_string (args_json, NULL);
  ZotToolContext context = { .cwd = f->env.cwd, .call_id = "direct-1", .interactive = f->interactive };
  ZotToolResult *result = NULL;

  g_assert_nonnull (tool);
  zot_tool_execute_async (tool, args, &context, NULL, execute_cb, &result);
  zot_test_wait_until (result_ready, &result, 60000);
  return result;
}

static void
test_tool_result_blocks (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "blocks", "--register-json", echo_tool, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) failed = NULL;
  JsonObject *image;

  start_host (f, paths);

  result = execute (f, "echo_tool", "{\"reply\":\"text\",\"image\":true,\"structured\":{\"temperature\":20}}");
  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_cmpuint (json_array_get_length (result->content), ==, 2);
  image = json_array_get_object_element (result->content, 1);
  g_assert_cmpstr (json_object_get_string_member (image, "type"), ==, "image");
  g_assert_cmpstr (json_object_get_string_member (image, "mime_type"), ==, "image/png");
  g_assert_nonnull (result->structured_content);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (result->structured_content), "temperature"), ==, 20);

  failed = execute (f, "echo_tool", "{\"error\":\"no weather today\"}");
  g_assert_true (failed->is_error);
  g_assert_cmpint (failed->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
}

static void
test_tool_validation (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "picky",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"s_string\",\"schema\":\"object\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"s_missing\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"s_array\",\"schema\":[]}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"weird\",\"schema\":{},\"exposure\":\"sometimes\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"legacy\",\"schema\":{},\"deferred\":true}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"explicit\",\"schema\":{},\"deferred\":true,\"exposure\":\"direct\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"scripted\",\"schema\":{},\"exposure\":\"codemode\",\"namespace\":\"weather\",\"namespace_description\":\"Weather data\",\"output_schema\":{\"type\":\"object\"}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"modelonly\",\"schema\":{},\"exposure\":\"model-only\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"read\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"has space\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"new\\nline\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"9lives\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"esc\\u001b]52;c;aGk=\\u0007\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"bad_ns\",\"schema\":{},\"namespace\":\"a b\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"a234567890123456789012345678901234567890123456789012345678901234\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"a2345678901234567890123456789012345678901234567890123456789012345\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_command\",\"name\":\"--force\"}",
    "--register-json", "{\"type\":\"register_command\",\"name\":\"evil\\u202eexe\"}",
    NULL);
  const char *paths[] = { dir, NULL };
  ZotExtension *extension;
  ZotToolRegistry *registry;
  GPtrArray *problems;
  g_autoptr(JsonArray) definitions = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *joined = NULL;

  start_host (f, paths);
  extension = zot_extension_manager_find (zot_host_get_manager (f->host), "picky");
  registry = zot_agent_get_registry (zot_host_get_agent (f->host));
  problems = zot_extension_get_problems (extension);
  g_ptr_array_add (problems, NULL);
  joined = g_strjoinv ("\n", (char **) problems->pdata);
  g_ptr_array_set_size (problems, problems->len - 1);

  g_assert_nonnull (strstr (joined, "\"s_string\" rejected: \"schema\" must be a JSON object"));
  g_assert_nonnull (strstr (joined, "\"s_missing\" rejected"));
  g_assert_nonnull (strstr (joined, "\"s_array\" rejected"));
  g_assert_nonnull (strstr (joined, "\"weird\" rejected: unknown exposure"));
  /* Built-ins win. */
  g_assert_nonnull (strstr (joined, "tool \"read\" is a built-in tool"));
  g_assert_null (zot_tool_get_origin (zot_tool_registry_lookup (registry, "read")));

  /* Names every provider accepts, or nothing (PROTOCOL.md §4 as this
   * host reads it: ^[A-Za-z_][A-Za-z0-9_-]{0,63}$). */
  g_assert_nonnull (strstr (joined, "tool \"has space\" rejected: a tool name is"));
  g_assert_nonnull (strstr (joined, "tool \"new\\u000Aline\" rejected"));
  g_assert_nonnull (strstr (joined, "tool \"9lives\" rejected"));
  g_assert_nonnull (strstr (joined, "tool \"esc\\u001B]52;c;aGk=\\u0007\" rejected"));
  g_assert_nonnull (strstr (joined, "namespace \"a b\" must follow"));
  g_assert_nonnull (zot_tool_registry_lookup (registry, "a234567890123456789012345678901234567890123456789012345678901234"));
  g_assert_null (zot_tool_registry_lookup (registry, "a2345678901234567890123456789012345678901234567890123456789012345"));
  g_assert_nonnull (strstr (joined, "command \"--force\" rejected"));
  g_assert_nonnull (strstr (joined, "command \"evil\\u202Eexe\" rejected"));
  g_assert_cmpuint (zot_extension_get_commands (extension)->len, ==, 0);
  for (guint i = 0; i < problems->len; i++)
    g_assert_false (zot_text_has_hidden_chars (g_ptr_array_index (problems, i)));

  g_assert_null (zot_tool_registry_lookup (registry, "s_string"));
  g_assert_null (zot_tool_registry_lookup (registry, "weird"));
  g_assert_cmpint (zot_tool_get_exposure (zot_tool_registry_lookup (registry, "legacy")), ==, ZOT_TOOL_EXPOSURE_DEFERRED);
  g_assert_cmpint (zot_tool_get_exposure (zot_tool_registry_lookup (registry, "explicit")), ==, ZOT_TOOL_EXPOSURE_DIRECT);
  g_assert_cmpstr (zot_tool_get_namespace (zot_tool_registry_lookup (registry, "scripted")), ==, "weather");
  g_assert_nonnull (zot_tool_get_output_schema (zot_tool_registry_lookup (registry, "scripted")));
  g_assert_false (zot_tool_is_script_callable (zot_tool_registry_lookup (registry, "modelonly")));
  g_assert_true (zot_tool_is_script_callable (zot_tool_registry_lookup (registry, "scripted")));

  /* The model's list: direct and model-only inline; codemode and deferred not. */
  definitions = zot_tool_registry_definitions (registry);
  listed = zot_json_to_string (json_node_init_array (json_node_alloc (), definitions));
  g_assert_nonnull (strstr (listed, "\"explicit\""));
  g_assert_nonnull (strstr (listed, "\"modelonly\""));
  g_assert_nonnull (strstr (listed, "\"tool_search\""));
  g_assert_null (strstr (listed, "\"legacy\""));
  g_assert_null (strstr (listed, "\"scripted\""));
}

static gboolean
state_has_problem (gpointer data)
{
  g_autofree char *contents = zot_test_read_file (data);
  return strstr (contents, "unknown exposure") != NULL;
}

static void
test_ext_list_shows_problems (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *project = g_build_filename (f->env.cwd, ".zot", "extensions", NULL);
  g_autofree char *dir = zot_test_make_fake_args (project, "listed", "--register-json",
                                                  "{\"type\":\"register_tool\",\"name\":\"odd\",\"schema\":{},\"exposure\":\"sideways\"}",
                                                  NULL);
  g_autofree char *state = g_build_filename (f->env.home, "state", "ext-listed.json", NULL);
  const char *argv[] = { g_getenv ("ZOT_BIN"), "ext", "list", "--cwd", f->env.cwd, NULL };
  const char *paths[] = { NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (dir, NULL);

  /* The host records what went wrong at start; `zot ext list` shows it
   * without starting the extension. */
  g_assert_true (zot_grants_trust_project (dir, manifest, NULL));
  start_host (f, paths);
  zot_test_wait_until (state_has_problem, state, 10000);
  shutdown_host (f);

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "listed"));
  g_assert_nonnull (strstr (out, "at last start: tool \"odd\" rejected: unknown exposure"));
  (void) dir;
}

static void
test_tool_discovery_activation (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "hidden",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"forecast\",\"description\":\"Weather forecast\",\"schema\":{},\"exposure\":\"deferred\"}",
    NULL);
  const char *paths[] = { dir, NULL };
  ZotToolRegistry *registry;
  g_auto(ZotTestSubmit) s = { 0 };
  g_autoptr(JsonArray) definitions = NULL;
  g_autofree char *listed = NULL;

  start_host (f, paths);
  registry = zot_agent_get_registry (zot_host_get_agent (f->host));

  /* The model searches, activates it, and may call it from then on. */
  submit (f, "tool: tool_search {\"query\":\"weather\",\"activate\":[\"forecast\"]}", &s);
  g_assert_no_error (s.error);
  g_assert_nonnull (strstr (s.text, "forecast"));

  definitions = zot_tool_registry_definitions (registry);
  listed = zot_json_to_string (json_node_init_array (json_node_alloc (), definitions));
  g_assert_nonnull (strstr (listed, "\"forecast\""));

  submit (f, "tool: forecast {\"reply\":\"sunny\"}", &s);
  g_assert_nonnull (strstr (s.text, "sunny"));
}

static char *
definitions_text (Fixture *f)
{
  g_autoptr(JsonArray) definitions =
    zot_tool_registry_definitions (zot_agent_get_registry (zot_host_get_agent (f->host)));
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), definitions);

  return zot_json_to_string (node);
}

static char *
codemode_fake (Fixture *f)
{
  return FAKE (f, "modes",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"plain\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"scriptish\",\"schema\":{},\"exposure\":\"codemode\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"later\",\"schema\":{},\"exposure\":\"deferred\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"modelish\",\"schema\":{},\"exposure\":\"model-only\"}",
    NULL);
}

static void
test_codemode_on (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = codemode_fake (f);
  const char *paths[] = { dir, NULL };
  g_autofree char *listed = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  listed = definitions_text (f);
  g_assert_nonnull (strstr (listed, "\"plain\""));
  g_assert_nonnull (strstr (listed, "\"modelish\""));
  g_assert_null (strstr (listed, "\"scriptish\""));
  g_assert_null (strstr (listed, "\"later\""));

  /* Codemode tools are for scripts: discovery does not activate them. */
  submit (f, "tool: tool_search {\"query\":\"scriptish\",\"activate\":[\"scriptish\"]}", &s);
  g_clear_pointer (&listed, g_free);
  listed = definitions_text (f);
  g_assert_null (strstr (listed, "\"scriptish\""));
}

static void
test_codemode_off (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = codemode_fake (f);
  const char *paths[] = { dir, NULL };
  g_autofree char *listed = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  /* Without a script runtime, codemode tools behave like deferred ones. */
  f->codemode = "off";
  start_host (f, paths);
  submit (f, "tool: tool_search {\"query\":\"\",\"activate\":[\"scriptish\"]}", &s);
  listed = definitions_text (f);
  g_assert_nonnull (strstr (listed, "\"scriptish\""));
  submit (f, "tool: scriptish {\"reply\":\"ran without scripts\"}", &s);
  g_assert_nonnull (strstr (s.text, "ran without scripts"));
}

static void
test_codemode_only (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = codemode_fake (f);
  const char *paths[] = { dir, NULL };
  g_autofree char *listed = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  /* Direct extension tools are hidden; model-only stay; deferred stay
   * activatable; built-ins are not extension tools and stay. */
  f->codemode = "only";
  start_host (f, paths);
  listed = definitions_text (f);
  g_assert_null (strstr (listed, "\"plain\""));
  g_assert_nonnull (strstr (listed, "\"modelish\""));
  g_assert_nonnull (strstr (listed, "\"read\""));

  submit (f, "tool: tool_search {\"query\":\"\",\"activate\":[\"later\"]}", &s);
  g_clear_pointer (&listed, g_free);
  listed = definitions_text (f);
  g_assert_nonnull (strstr (listed, "\"later\""));
}

static void
test_tool_conflict_load_order (Fixture       *f,
                               gconstpointer  data)
{
  const char *dup = "{\"type\":\"register_tool\",\"name\":\"dup\",\"schema\":{}}";
  g_autofree char *slow = FAKE (f, "slow", "--hello-delay-ms", "300", "--register-json", dup, NULL);
  g_autofree char *fast = FAKE (f, "fast", "--register-json", dup, NULL);
  const char *paths[] = { slow, fast, NULL };
  ZotTool *tool;
  GPtrArray *problems;

  start_host (f, paths);
  tool = zot_tool_registry_lookup (zot_agent_get_registry (zot_host_get_agent (f->host)), "dup");
  g_assert_cmpstr (zot_tool_get_origin (tool), ==, "slow");
  problems = zot_extension_get_problems (zot_extension_manager_find (zot_host_get_manager (f->host), "fast"));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (problems, 0), "taken by slow"));
}

static void
test_observation_truncated (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "big", "--register-json", echo_tool, "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  GPtrArray *messages;
  JsonObject *result;
  JsonObject *tool_message;
  JsonArray *blocks;
  const char *text;

  start_host (f, paths);
  submit (f, "tool: echo_tool {\"size\":307200}", &s);
  g_assert_no_error (s.error);

  messages = zot_agent_get_messages (zot_host_get_agent (f->host));
  tool_message = json_object_ref (g_ptr_array_index (messages, 2));
  shutdown_host (f);

  /* The event's copy is cut to the budget and says so... */
  events = frames_of (f, "big", "event");
  result = json_object_get_object_member (event_named (events, "tool_result", 0), "result");
  g_assert_true (json_object_get_boolean_member (result, "truncated"));
  text = json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (result, "content"), 0), "text");
  g_assert_cmpuint (strlen (text), ==, 256 * 1024);

  /* ...while the model gets the whole result. */
  blocks = json_object_get_array_member (json_array_get_object_element (json_object_get_array_member (tool_message, "content"), 0), "content");
  g_assert_cmpuint (strlen (json_object_get_string_member (json_array_get_object_element (blocks, 0), "text")), ==, 307200);
  json_object_unref (tool_message);
}

static gboolean
has_tool_cancel (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  const char *name = ((gpointer *) data)[1];
  g_autoptr(GPtrArray) cancels = frames_of (f, name, "tool_cancel");
  return cancels->len > 0;
}

static void
test_tool_timeout_and_cancel (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *polite = FAKE (f, "polite", "--capabilities", "tools,tool_cancel", "--register-json",
                                  "{\"type\":\"register_tool\",\"name\":\"slow_a\",\"schema\":{}}", NULL);
  g_autofree char *legacy = FAKE (f, "legacy", "--register-json",
                                  "{\"type\":\"register_tool\",\"name\":\"slow_b\",\"schema\":{}}", NULL);
  const char *paths[] = { polite, legacy, NULL };
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) cancels = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  gpointer wait[] = { f, "polite" };

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 300);
  start_host (f, paths);

  submit (f, "tool: slow_a {\"hang\":true}\ntool: slow_b {\"hang\":true}", &s);
  g_assert_no_error (s.error);
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "slow_a timed_out", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "slow_b timed_out", g_str_equal, NULL));

  /* tool_cancel goes only to the extension that advertised exactly it,
   * with the id of the abandoned tool_call. */
  zot_test_wait_until (has_tool_cancel, wait, 5000);
  calls = frames_of (f, "polite", "tool_call");
  cancels = frames_of (f, "polite", "tool_cancel");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (cancels, 0), "id"), ==,
                   json_object_get_string_member (g_ptr_array_index (calls, 0), "id"));
  none = frames_of (f, "legacy", "tool_cancel");
  g_assert_cmpuint (none->len, ==, 0);
}

static void
test_late_result_dropped (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "tardy", "--register-json", echo_tool, NULL);
  const char *paths[] = { dir, NULL };
  g_auto(ZotTestSubmit) s = { 0 };

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 200);
  start_host (f, paths);

  submit (f, "tool: echo_tool {\"late_ms\":500,\"reply\":\"too late\"}", &s);
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "echo_tool timed_out", g_str_equal, NULL));
  g_assert_null (strstr (s.text, "too late"));

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 30000);
  submit (f, "tool: echo_tool {\"reply\":\"on time\"}", &s);
  g_assert_nonnull (strstr (s.text, "on time"));
  g_assert_null (strstr (s.text, "too late"));
}

static gboolean
echo_tool_gone (gpointer data)
{
  Fixture *f = data;
  return zot_tool_registry_lookup (zot_agent_get_registry (zot_host_get_agent (f->host)), "echo_tool") == NULL;
}

static void
test_crash_fails_pending_at_once (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "brittle", "--register-json", echo_tool, NULL);
  const char *paths[] = { dir, NULL };
  g_auto(ZotTestSubmit) s = { 0 };
  gint64 start;

  start_host (f, paths);
  start = g_get_monotonic_time ();
  submit (f, "tool: echo_tool {\"crash\":4}", &s);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "echo_tool failed", g_str_equal, NULL));
  /* Its tools leave the registry once its exit is known. */
  zot_test_wait_until (echo_tool_gone, f, 10000);
}

static void
test_interactive_tool_headless (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "asker", "--register-json",
                               "{\"type\":\"register_tool\",\"name\":\"ask_user\",\"schema\":{},\"interactive\":true}", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) calls = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, "tool: ask_user {\"hang\":true}", &s);
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "ask_user failed", g_str_equal, NULL));
  g_assert_nonnull (strstr (s.text, "needs the window"));
  /* Answered at once: the extension never saw the call. */
  calls = frames_of (f, "asker", "tool_call");
  g_assert_cmpuint (calls->len, ==, 0);
}

static gboolean
two_tool_calls (gpointer data)
{
  g_autoptr(GPtrArray) calls = frames_of (data, "asker", "tool_call");
  return calls->len >= 2;
}

static void
test_interactive_tool_waits (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "asker", "--capabilities", "tool_cancel", "--register-json",
                               "{\"type\":\"register_tool\",\"name\":\"ask_user\",\"schema\":{},\"interactive\":true}", NULL);
  const char *paths[] = { dir, NULL };
  g_auto(ZotTestSubmit) s = { 0 };
  gpointer wait[] = { f, "asker" };

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 100);
  start_host (f, paths);
  zot_extension_manager_set_policy (zot_host_get_manager (f->host), ZOT_APPROVAL_POLICY_YOLO);

  /* No host deadline: the 100 ms tool deadline does not end it; the
   * answer after 600 ms does. */
  submit (f, "tool: ask_user {\"late_ms\":600,\"reply\":\"the user said yes\"}", &s);
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "ask_user completed", g_str_equal, NULL));
  g_assert_nonnull (strstr (s.text, "the user said yes"));

  /* Cancellation still ends the wait, and tells the extension. */
  zot_test_submit_clear (&s);
  s.done = FALSE;
  zot_host_submit_async (f->host, "tool: ask_user {\"hang\":true}", NULL, zot_test_submit_cb, &s);
  zot_test_wait_until (two_tool_calls, f, 10000);
  zot_agent_abort (zot_host_get_agent (f->host));
  zot_test_wait_for (&s.done, 10000);
  g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  zot_test_wait_until (has_tool_cancel, wait, 5000);
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "ask_user cancelled", g_str_equal, NULL));
}

/* Interception */

static void
test_rewrite_chain (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "guard_a", "--register-json", echo_tool,
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"],\"events\":[\"tool_result\"]}",
                             "--intercept-reply", "tool_call={\"modified_args\":{\"reply\":\"from A\"}}", NULL);
  g_autofree char *b = FAKE (f, "guard_b",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call={\"modified_args\":{\"reply\":\"from B\"}}", NULL);
  const char *paths[] = { a, b, NULL };
  g_autoptr(GPtrArray) seen_by_b = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *result_event;

  start_host (f, paths);
  submit (f, "tool: echo_tool {\"reply\":\"original\"}", &s);
  g_assert_no_error (s.error);
  g_assert_nonnull (strstr (s.text, "from B"));

  /* B saw A's rewrite. */
  seen_by_b = frames_of (f, "guard_b", "event_intercept");
  g_assert_cmpuint (seen_by_b->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (g_ptr_array_index (seen_by_b, 0), "tool_args"), "reply"), ==,
                   "from A");

  /* tool_result reports the effective arguments. */
  shutdown_host (f);
  events = frames_of (f, "guard_a", "event");
  result_event = event_named (events, "tool_result", 0);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result_event, "tool_args"), "reply"), ==,
                   "from B");
  g_assert_cmpstr (json_object_get_string_member (result_event, "status"), ==, "completed");
  g_assert_true (json_object_get_boolean_member (result_event, "executed"));
}

static void
test_block_beats_rewrite (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "blocker", "--register-json", echo_tool, "--register-json", all_events,
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call={\"block\":true,\"reason\":\"not on my watch\"}", NULL);
  g_autofree char *b = FAKE (f, "rewriter",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call={\"modified_args\":{\"reply\":\"rewritten\"}}", NULL);
  const char *paths[] = { a, b, NULL };
  g_autoptr(GPtrArray) seen_by_b = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *decision;
  JsonObject *result;

  start_host (f, paths);
  submit (f, "tool: echo_tool {\"reply\":\"original\"}", &s);
  g_assert_nonnull (strstr (s.text, "not on my watch"));
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "echo_tool blocked", g_str_equal, NULL));

  seen_by_b = frames_of (f, "rewriter", "event_intercept");
  g_assert_cmpuint (seen_by_b->len, ==, 0);
  calls = frames_of (f, "blocker", "tool_call");
  g_assert_cmpuint (calls->len, ==, 0);

  shutdown_host (f);
  events = frames_of (f, "blocker", "event");
  decision = event_named (events, "permission_decision", 0);
  g_assert_cmpstr (json_object_get_string_member (decision, "decision"), ==, "denied");
  g_assert_cmpstr (json_object_get_string_member (decision, "source"), ==, "policy");
  g_assert_cmpstr (json_object_get_string_member (decision, "stage"), ==, "pre_execution");
  g_assert_cmpstr (json_object_get_string_member (decision, "reason"), ==, "not on my watch");
  result = event_named (events, "tool_result", 0);
  g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "blocked");
  g_assert_false (json_object_get_boolean_member (result, "executed"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "tool_args"), "reply"), ==,
                   "original");
}

static void
test_block_after_rewrite (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "rewrites_first", "--register-json", echo_tool, "--register-json", all_events,
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call={\"modified_args\":{\"reply\":\"rewritten\"}}", NULL);
  g_autofree char *b = FAKE (f, "blocks_second",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call={\"block\":true,\"reason\":\"no\"}", NULL);
  const char *paths[] = { a, b, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *result;

  /* A refusal reports the last proposed arguments. */
  start_host (f, paths);
  submit (f, "tool: echo_tool {\"reply\":\"original\"}", &s);
  shutdown_host (f);

  events = frames_of (f, "rewrites_first", "event");
  result = event_named (events, "tool_result", 0);
  g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "blocked");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "tool_args"), "reply"), ==,
                   "rewritten");
}

static void
test_interceptor_silent (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "mute", "--register-json", echo_tool,
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call=hang", NULL);
  const char *paths[] = { a, NULL };
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *log = NULL;

  /* Silence is consent, after the (shortened) 5 s. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_INTERCEPT, 200);
  start_host (f, paths);
  submit (f, "tool: echo_tool {\"reply\":\"allowed anyway\"}", &s);
  g_assert_nonnull (strstr (s.text, "allowed anyway"));
  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (zot_host_get_manager (f->host), "mute")));
  g_assert_nonnull (strstr (log, "tool_call interception"));
  g_assert_nonnull (strstr (log, "allowed"));
}

static gboolean
has_result (Fixture    *f,
            const char *result)
{
  return g_ptr_array_find_with_equal_func (f->results, result, g_str_equal, NULL);
}

/* 300 read calls and one bash in one model message: the batch's events
 * are queued in one go, past the 256-frame bound, to a guard that reads.
 * It used to be disconnected before a frame reached its pipe, and the
 * bash it would have blocked ran. */
static void
test_event_batch_keeps_guard (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "guard", "--register-json", all_events,
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--block-tool", "bash", NULL);
  const char *paths[] = { a, NULL };
  g_autofree char *pwned = g_build_filename (f->env.cwd, "pwned", NULL);
  g_autoptr(GString) prompt = g_string_new (NULL);
  g_auto(ZotTestSubmit) s = { 0 };
  guint n_read = 0;

  for (guint i = 0; i < 300; i++)
    g_string_append_printf (prompt, "tool: read {\"path\":\"missing-%u\"}\n", i);
  g_string_append (prompt, "tool: bash {\"command\":\"touch pwned\"}\n");

  start_host (f, paths);
  submit (f, prompt->str, &s);
  g_assert_no_error (s.error);

  g_assert_true (has_result (f, "bash blocked"));
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
  for (guint i = 0; i < f->results->len; i++)
    n_read += g_str_has_prefix (g_ptr_array_index (f->results, i), "read ");
  g_assert_cmpuint (n_read, ==, 300);
  g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (zot_host_get_manager (f->host), "guard")),
                   ==, ZOT_EXTENSION_STATE_READY);
  g_assert_cmpuint (f->warnings->len, ==, 0);
}

/* A guard that crashes while it judges is skipped, and the user is told
 * once, not once per call. */
static void
test_failed_guard_skipped (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "flaky",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call=crash", NULL);
  const char *paths[] = { a, NULL };
  g_autofree char *one = g_build_filename (f->env.cwd, "one", NULL);
  g_autofree char *two = g_build_filename (f->env.cwd, "two", NULL);
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, "tool: bash {\"command\":\"touch one\"}\ntool: bash {\"command\":\"touch two\"}", &s);
  g_assert_no_error (s.error);

  g_assert_true (g_file_test (one, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (two, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (f->warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->warnings, 0), "flaky no longer checks tool_call"));
}

/* "intercept_failure": "block": while the guard is not running, every
 * call it would judge is refused, with a denied permission_decision. Here
 * it crashes in its first judgement, and refuses the next call too. */
static void
test_failed_guard_blocks (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "strict",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                             "--intercept-reply", "tool_call=crash", NULL);
  g_autofree char *b = FAKE (f, "watcher", "--register-json", all_events, NULL);
  const char *paths[] = { a, b, NULL };
  g_autofree char *one = g_build_filename (f->env.cwd, "one", NULL);
  g_autofree char *two = g_build_filename (f->env.cwd, "two", NULL);
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *decision;
  g_auto(ZotTestSubmit) s = { 0 };

  zot_test_manifest_set_string (a, "intercept_failure", "block");
  start_host (f, paths);
  submit (f, "tool: bash {\"command\":\"touch one\"}\ntool: bash {\"command\":\"touch two\"}", &s);
  g_assert_no_error (s.error);

  g_assert_false (g_file_test (one, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (two, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (f->results->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->results, 0), ==, "bash blocked");
  g_assert_cmpstr (g_ptr_array_index (f->results, 1), ==, "bash blocked");

  /* Shutdown drains the watcher's queue: every event is recorded. */
  shutdown_host (f);
  events = frames_of (f, "watcher", "event");
  for (guint i = 0; i < 2; i++)
    {
      decision = event_named (events, "permission_decision", i);
      g_assert_nonnull (decision);
      g_assert_cmpstr (json_object_get_string_member (decision, "decision"), ==, "denied");
      g_assert_cmpstr (json_object_get_string_member (decision, "source"), ==, "policy");
      g_assert_nonnull (strstr (json_object_get_string_member (decision, "reason"), "strict must check every tool call"));
    }
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "tool_result", 1), "status"), ==,
                   "blocked");
}

/* A blocking guard that never got to subscribe (it died before hello)
 * still refuses tool calls: its manifest says it is a guard. */
static void
test_failed_guard_blocks_from_start (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "stillborn", "--exit-before-hello", "3", NULL);
  const char *paths[] = { a, NULL };
  g_autofree char *one = g_build_filename (f->env.cwd, "one", NULL);
  g_auto(ZotTestSubmit) s = { 0 };

  zot_test_manifest_set_string (a, "intercept_failure", "block");
  start_host (f, paths);
  submit (f, "tool: bash {\"command\":\"touch one\"}", &s);
  g_assert_no_error (s.error);
  g_assert_false (g_file_test (one, G_FILE_TEST_EXISTS));
  g_assert_true (has_result (f, "bash blocked"));
  g_assert_nonnull (strstr (s.text, "stillborn"));
}

static void
test_turn_start_block (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "gate",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"turn_start\"]}",
                             "--intercept-reply", "turn_start={\"block\":true,\"reason\":\"budget exhausted\"}", NULL);
  const char *paths[] = { a, NULL };
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, "hello", &s);
  g_assert_error (s.error, ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_BLOCKED);
  g_assert_nonnull (strstr (s.error->message, "budget exhausted"));
  g_assert_nonnull (strstr (s.error->message, "gate"));
  g_assert_cmpuint (f->shown->len, ==, 0);
}

static void
test_assistant_message_rewrite (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "editor",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"assistant_message\"]}",
                             "--intercept-reply", "assistant_message={\"replace_text\":\"[redacted] {{text}}\"}", NULL);
  const char *paths[] = { a, NULL };
  GPtrArray *messages;
  g_autofree char *kept = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, "my secret", &s);
  g_assert_cmpuint (f->shown->len, ==, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (f->shown, 0), "[redacted] [demo model"));
  g_assert_true (g_str_has_prefix (s.text, "[redacted]"));

  /* The transcript keeps the original. */
  messages = zot_agent_get_messages (zot_host_get_agent (f->host));
  kept = zot_message_get_text (g_ptr_array_index (messages, 1));
  g_assert_true (g_str_has_prefix (kept, "[demo model"));
}

static void
test_assistant_message_block (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "censor",
                             "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"assistant_message\"]}",
                             "--intercept-reply", "assistant_message={\"block\":true}", NULL);
  const char *paths[] = { a, NULL };
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, "anything", &s);
  g_assert_no_error (s.error);
  g_assert_cmpuint (f->shown->len, ==, 0);
  g_assert_cmpuint (zot_agent_get_messages (zot_host_get_agent (f->host))->len, ==, 2);
}

/* before_agent_start */

static char *
prompt_fake (Fixture    *f,
             const char *name,
             const char *reply)
{
  g_autofree char *arg = g_strdup_printf ("before_agent_start=%s", reply);

  return FAKE (f, name, "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"before_agent_start\"]}",
               "--intercept-reply", arg, NULL);
}

static void
test_before_agent_start_chain (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *a = prompt_fake (f, "first", "{\"system_prompt\":\"{{system_prompt}} +A\"}");
  g_autofree char *bad = prompt_fake (f, "broken", "{\"system_prompt\":42}");
  g_autofree char *b = prompt_fake (f, "second", "{\"system_prompt\":\"{{system_prompt}} +B\"}");
  const char *paths[] = { a, bad, b, NULL };
  g_autoptr(GPtrArray) seen_a = NULL;
  g_autoptr(GPtrArray) seen_b = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotAgent *agent;
  const char *prompt;
  JsonObject *frame_a;
  JsonObject *frame_b;
  g_autofree char *first_run_id = NULL;

  start_host (f, paths);
  agent = zot_host_get_agent (f->host);

  /* Two model calls, one chain. */
  submit (f, "tool: read {\"path\":\"nowhere\"}", &s);
  prompt = zot_agent_get_system_prompt (agent);
  g_assert_true (g_str_has_suffix (prompt, " +A +B"));
  g_assert_cmpuint (f->warnings->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->warnings, 0), "broken"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->warnings, 0), "not a string"));

  seen_a = frames_of (f, "first", "event_intercept");
  seen_b = frames_of (f, "second", "event_intercept");
  g_assert_cmpuint (seen_a->len, ==, 1);
  g_assert_cmpuint (seen_b->len, ==, 1);
  frame_a = g_ptr_array_index (seen_a, 0);
  frame_b = g_ptr_array_index (seen_b, 0);
  /* Each sees the previous result, and one pass shares its run id. */
  g_assert_true (g_str_has_suffix (json_object_get_string_member (frame_b, "system_prompt"), " +A"));
  g_assert_cmpstr (json_object_get_string_member (frame_a, "agent_run_id"), ==,
                   json_object_get_string_member (frame_b, "agent_run_id"));
  g_assert_cmpstr (json_object_get_string_member (frame_a, "provider"), ==, "demo");
  g_assert_cmpstr (json_object_get_string_member (frame_a, "cwd"), ==, f->env.cwd);
  g_assert_nonnull (json_object_get_string_member (frame_a, "session_id"));

  /* A rebuild starts from the unmodified base, with a new run id. */
  first_run_id = g_strdup (json_object_get_string_member (frame_a, "agent_run_id"));
  zot_agent_reset_system_prompt (agent);
  submit (f, "again", &s);
  g_clear_pointer (&seen_a, g_ptr_array_unref);
  seen_a = frames_of (f, "first", "event_intercept");
  g_assert_cmpuint (seen_a->len, ==, 2);
  g_assert_false (g_str_has_suffix (json_object_get_string_member (g_ptr_array_index (seen_a, 1), "system_prompt"), "+B"));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (seen_a, 1), "agent_run_id"), !=,
                   first_run_id);
  g_assert_true (g_str_has_suffix (zot_agent_get_system_prompt (agent), " +A +B"));
}

static void
test_before_agent_start_rules (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *empty = prompt_fake (f, "eraser", "{\"system_prompt\":\"\"}");
  const char *paths[] = { empty, NULL };
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, "hi", &s);
  /* "" removes the prompt, exactly. */
  g_assert_cmpstr (zot_agent_get_system_prompt (zot_host_get_agent (f->host)), ==, "");
  g_assert_cmpuint (f->warnings->len, ==, 0);
}

static void
test_before_agent_start_failures (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *keep = prompt_fake (f, "keeper", "{}");
  g_autofree char *hang = prompt_fake (f, "sleeper", "hang");
  g_autofree char *crash = prompt_fake (f, "crasher", "crash");
  g_autofree char *garbage = prompt_fake (f, "garbler", "garbage");
  g_autofree char *huge = NULL;
  g_autofree char *reply = NULL;
  g_autofree char *big = g_strnfill (ZOT_SYSTEM_PROMPT_MAX_BYTES, 'x');
  g_autofree char *reply_path = NULL;
  g_autofree char *reply_arg = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  const char *base;
  const char *paths[6];

  reply = g_strdup_printf ("{\"system_prompt\":\"%s\"}", big);
  reply_path = g_build_filename (f->env.root, "huge-reply.json", NULL);
  g_assert_true (g_file_set_contents (reply_path, reply, -1, NULL));
  reply_arg = g_strdup_printf ("@%s", reply_path);
  huge = prompt_fake (f, "huge", reply_arg);
  /* Down for the rest of the test: a restart would ask it again. */
  zot_test_manifest_set_string (crash, "restart", "never");
  paths[0] = keep; paths[1] = hang; paths[2] = crash; paths[3] = garbage; paths[4] = huge; paths[5] = NULL;

  /* Long enough for the 1 MiB reply to cross on a loaded machine under
   * the sanitizers; the hanging one still times out. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_BEFORE_AGENT_START, 2000);
  start_host (f, paths);
  base = zot_agent_get_system_prompt (zot_host_get_agent (f->host));
  g_assert_nonnull (base);
  {
    g_autofree char *expected = g_strdup (base);

    zot_agent_reset_system_prompt (zot_host_get_agent (f->host));
    submit (f, "hi", &s);
    g_assert_no_error (s.error);
    /* Every failure kept the prompt and warned; the omission did not warn. */
    g_assert_cmpstr (zot_agent_get_system_prompt (zot_host_get_agent (f->host)), ==, expected);
  }
  for (guint i = 0; i < f->warnings->len; i++)
    g_test_message ("warning: %s", (char *) g_ptr_array_index (f->warnings, i));
  g_assert_cmpuint (f->warnings->len, ==, 4);
  {
    g_autofree char *all = NULL;

    g_ptr_array_add (f->warnings, NULL);
    all = g_strjoinv ("\n", (char **) f->warnings->pdata);
    g_ptr_array_set_size (f->warnings, f->warnings->len - 1);
    g_assert_nonnull (strstr (all, "sleeper"));
    g_assert_nonnull (strstr (all, "crasher"));
    g_assert_nonnull (strstr (all, "garbler"));
    g_assert_nonnull (strstr (all, "over the 1 MiB limit"));
    g_assert_null (strstr (all, "keeper"));
  }
}

static void
reset_on_first_hook (ZotExtensionManager *manager,
                     ZotExtension        *extension,
                     int                  direction,
                     const char          *line,
                     ZotAgent            *agent)
{
  if (direction == ZOT_FRAME_DIRECTION_OUT && strstr (line, "\"before_agent_start\"") != NULL &&
      g_object_get_data (G_OBJECT (agent), "reset") == NULL)
    {
      g_object_set_data (G_OBJECT (agent), "reset", GINT_TO_POINTER (TRUE));
      zot_agent_reset_system_prompt (agent);
    }
}

static void
test_before_agent_start_reset_pending (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *slow = FAKE (f, "slowpoke",
                                "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"before_agent_start\"]}",
                                "--intercept-delay-ms", "300",
                                "--intercept-reply", "before_agent_start={\"system_prompt\":\"{{system_prompt}} +S\"}",
                                NULL);
  const char *paths[] = { slow, NULL };
  g_autoptr(GPtrArray) seen = NULL;
  ZotTestSubmit s = { 0 };
  ZotAgent *agent;

  start_host (f, paths);
  agent = zot_host_get_agent (f->host);

  /* Reset while the hook is pending, the moment its request goes out:
   * the stale answer is discarded and the chain runs again. */
  zot_extension_manager_set_trace_traffic (zot_host_get_manager (f->host), TRUE);
  g_signal_connect (zot_host_get_manager (f->host), "frame-traffic", G_CALLBACK (reset_on_first_hook), agent);
  zot_host_submit_async (f->host, "hi", NULL, zot_test_submit_cb, &s);
  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);

  seen = frames_of (f, "slowpoke", "event_intercept");
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_true (g_str_has_suffix (zot_agent_get_system_prompt (agent), " +S"));
  g_assert_false (g_str_has_suffix (zot_agent_get_system_prompt (agent), " +S +S"));
  zot_test_submit_clear (&s);
}

/* Lifecycle events */

static char *
event_names (GPtrArray *events)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      if (names->len > 0)
        g_string_append_c (names, ' ');
      g_string_append (names, json_object_get_string_member (g_ptr_array_index (events, i), "event"));
    }
  return g_string_free (names, FALSE);
}

static void
test_two_tool_step_order (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "observer", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *names = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *first_call;

  start_host (f, paths);
  submit (f, "tool: read {\"path\":\"a\"}\ntool: bash {\"command\":\"true\"}", &s);
  shutdown_host (f);

  events = frames_of (f, "observer", "event");
  names = event_names (events);
  g_assert_cmpstr (names, ==,
                   "session_start user_prompt_submit turn_start assistant_message tool_call tool_call turn_end "
                   "permission_decision permission_decision tool_result tool_result "
                   "turn_start assistant_message turn_end session_end");

  first_call = event_named (events, "tool_call", 0);
  g_assert_cmpstr (json_object_get_string_member (first_call, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (first_call, "tool_args"), "path"), ==, "a");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "turn_end", 0), "stop"), ==, "tool_use");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "turn_end", 1), "stop"), ==, "end_turn");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "permission_decision", 0), "source"), ==, "yolo");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "session_end", 0), "reason"), ==, "shutdown");
  g_assert_cmpint (json_object_get_int_member (event_named (events, "user_prompt_submit", 0), "image_count"), ==, 0);

  /* Common members everywhere. */
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);
      g_assert_true (json_object_has_member (event, "session_id"));
      g_assert_cmpstr (json_object_get_string_member (event, "cwd"), ==, f->env.cwd);
    }
}

static void
test_sequence_two_subscribers (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *a = FAKE (f, "sub_a", "--register-json", all_events, NULL);
  g_autofree char *b = FAKE (f, "sub_b", "--register-json",
                             "{\"type\":\"subscribe\",\"events\":[\"turn_start\",\"tool_result\"]}", NULL);
  const char *paths[] = { a, b, NULL };
  g_autoptr(GPtrArray) events_a = NULL;
  g_autoptr(GPtrArray) events_b = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  gint64 last = 0;

  start_host (f, paths);
  submit (f, "tool: read {\"path\":\"x\"}", &s);
  submit (f, "second prompt", &s);
  shutdown_host (f);

  events_a = frames_of (f, "sub_a", "event");
  events_b = frames_of (f, "sub_b", "event");
  g_assert_cmpuint (events_b->len, ==, 4);

  for (guint i = 0; i < events_a->len; i++)
    {
      gint64 sequence = json_object_get_int_member (g_ptr_array_index (events_a, i), "sequence");
      g_assert_cmpint (sequence, >, last);
      last = sequence;
    }
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (events_a, 0), "sequence"), ==, 1);

  /* One numbering for everyone: B's events carry the same numbers as A's
   * copies of them, and gaps in B prove nothing. */
  last = 0;
  for (guint i = 0; i < events_b->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events_b, i);
      gint64 sequence = json_object_get_int_member (event, "sequence");
      gboolean found = FALSE;

      g_assert_cmpint (sequence, >, last);
      last = sequence;
      for (guint j = 0; j < events_a->len; j++)
        if (json_object_get_int_member (g_ptr_array_index (events_a, j), "sequence") == sequence)
          {
            g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (events_a, j), "event"), ==,
                             json_object_get_string_member (event, "event"));
            found = TRUE;
          }
      g_assert_true (found);
    }
}

static JsonObject *
result_for (GPtrArray  *events,
            const char *tool_name)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);

      if (g_str_equal (json_object_get_string_member (event, "event"), "tool_result") &&
          g_str_equal (json_object_get_string_member (event, "tool_name"), tool_name))
        return event;
    }
  g_error ("no tool_result for %s", tool_name);
  return NULL;
}

static void
test_tool_result_args (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "argwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *empty;
  JsonObject *raw;
  JsonObject *unknown;

  start_host (f, paths);
  submit (f, "tool: bash\ntool: read {not json\ntool: nosuchtool {}", &s);

  shutdown_host (f);
  events = frames_of (f, "argwatch", "event");
  empty = result_for (events, "bash");
  raw = result_for (events, "read");
  unknown = result_for (events, "nosuchtool");

  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (empty, "tool_args")), ==, 0);
  g_assert_false (json_object_has_member (raw, "tool_args"));
  g_assert_cmpstr (json_object_get_string_member (raw, "tool_args_raw"), ==, "{not json");
  g_assert_cmpstr (json_object_get_string_member (raw, "status"), ==, "failed");
  g_assert_false (json_object_get_boolean_member (raw, "executed"));
  g_assert_cmpstr (json_object_get_string_member (unknown, "status"), ==, "failed");
  g_assert_false (json_object_get_boolean_member (unknown, "executed"));
}

static void
test_status_cancelled (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "cancelwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *result;

  start_host (f, paths);
  f->abort_on_tool_call = TRUE;
  submit (f, "tool: bash {\"command\":\"sleep 30\"}", &s);
  g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  shutdown_host (f);
  events = frames_of (f, "cancelwatch", "event");
  result = event_named (events, "tool_result", 0);
  g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "cancelled");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "turn_end", 1), "stop"), ==, "aborted");
}

static void
test_compaction_events (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "compactwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *pre;
  JsonObject *post;

  start_host (f, paths);
  submit (f, "/compact", &s);            /* empty transcript: still paired */
  submit (f, "something to remember", &s);
  submit (f, "/compact", &s);

  shutdown_host (f);
  events = frames_of (f, "compactwatch", "event");
  for (guint i = 0; i < 2; i++)
    {
      pre = event_named (events, "pre_compact", i);
      post = event_named (events, "post_compact", i);
      g_assert_nonnull (pre);
      g_assert_nonnull (post);
      g_assert_cmpstr (json_object_get_string_member (pre, "compaction_id"), ==,
                       json_object_get_string_member (post, "compaction_id"));
      g_assert_cmpstr (json_object_get_string_member (post, "status"), ==, "completed");
    }
  pre = event_named (events, "pre_compact", 1);
  post = event_named (events, "post_compact", 1);
  g_assert_cmpint (json_object_get_int_member (pre, "message_count"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (post, "message_count"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (pre, "token_estimate"), >, 0);
  g_assert_cmpint (json_object_get_int_member (event_named (events, "pre_compact", 0), "message_count"), ==, 0);
}

static void
on_host_info (ZotHost    *host,
              const char *text,
              GPtrArray  *infos)
{
  g_ptr_array_add (infos, g_strdup (text));
}

/* Automatic compaction has the same paired events as /compact, and a
 * line for the user: with a context window of 1 token (models.json),
 * the second prompt compacts before its model call. */
static void
test_auto_compaction_events (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "compactwatch", "--register-json", all_events, NULL);
  g_autofree char *models = g_build_filename (f->env.home, "models.json", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) infos = g_ptr_array_new_with_free_func (g_free);
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *pre;
  JsonObject *post;

  g_assert_true (g_file_set_contents (models, "{\"models\": [{\"provider\": \"demo\", \"id\": \"demo\", "
                                      "\"context_window\": 1}]}", -1, NULL));
  zot_model_facts_reload ();
  start_host (f, paths);
  g_signal_connect (f->host, "info", G_CALLBACK (on_host_info), infos);
  submit (f, "remember the red door", &s);
  g_assert_cmpuint (infos->len, ==, 0);
  submit (f, "and the blue key", &s);
  g_assert_no_error (s.error);
  g_assert_cmpuint (infos->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (infos, 0), "context window"));

  shutdown_host (f);
  zot_model_facts_reload ();
  events = frames_of (f, "compactwatch", "event");
  pre = event_named (events, "pre_compact", 0);
  post = event_named (events, "post_compact", 0);
  g_assert_nonnull (pre);
  g_assert_nonnull (post);
  g_assert_null (event_named (events, "pre_compact", 1));
  g_assert_cmpstr (json_object_get_string_member (pre, "compaction_id"), ==,
                   json_object_get_string_member (post, "compaction_id"));
  g_assert_cmpstr (json_object_get_string_member (post, "status"), ==, "completed");
  /* Two messages summarized, the prompt kept after the summary. */
  g_assert_cmpint (json_object_get_int_member (pre, "message_count"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (post, "message_count"), ==, 2);
}

/* `zot -p /compact` begins no prompt: the compaction must still happen
 * inside a session, as any prompt's events do. */
static void
test_headless_compaction_in_session (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "compactwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *names = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  f->headless = TRUE;
  start_host (f, paths);
  submit (f, "/compact", &s);
  g_assert_no_error (s.error);
  shutdown_host (f);

  events = frames_of (f, "compactwatch", "event");
  names = event_names (events);
  g_assert_cmpstr (names, ==, "session_start pre_compact post_compact session_end");
}

static void
test_session_switch (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "sessionwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autofree char *names = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  const char *first_id;
  const char *second_id;

  start_host (f, paths);
  submit (f, "/new", &s);
  submit (f, "/clear", &s);
  shutdown_host (f);

  events = frames_of (f, "sessionwatch", "event");
  names = event_names (events);
  /* /new ends the old before starting the new; /clear ends nothing. */
  g_assert_cmpstr (names, ==, "session_start session_end session_start session_end");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "session_end", 0), "reason"), ==, "session_switch");
  first_id = json_object_get_string_member (event_named (events, "session_start", 0), "session_id");
  second_id = json_object_get_string_member (event_named (events, "session_start", 1), "session_id");
  g_assert_cmpstr (first_id, !=, second_id);

  /* The last event was queued before shutdown and drained before it. */
  all = frames_of (f, "sessionwatch", NULL);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (all, all->len - 1), "type"), ==, "shutdown");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (all, all->len - 2), "event"), ==, "session_end");
}

static void
on_host_warning (ZotHost    *host,
                 const char *message,
                 Fixture    *f)
{
  g_ptr_array_add (f->warnings, g_strdup (message));
}

/* A session another process writes: a headless host refuses it, the
 * window's (read_only_if_locked) shows it read-only and says why. */
static void
test_session_read_only_if_locked (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->env.root, "busy.jsonl", NULL);
  const char *contents = "{\"type\":\"session\",\"version\":1,\"id\":\"b\",\"cwd\":\"/\"}\n"
                         "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[]}}\n";
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *after = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotSession *session;
  ZotHost *refused;
  int fd;

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.session_path = g_strdup (path);
  options.no_ext = TRUE;

  refused = zot_host_new (&options, &error);
  g_assert_null (refused);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED);
  g_clear_error (&error);

  options.read_only_if_locked = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  session = zot_agent_get_session (zot_host_get_agent (f->host));
  g_assert_true (zot_session_is_read_only (session));
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 1);

  g_signal_connect (f->host, "warning", G_CALLBACK (on_host_warning), f);
  zot_test_load_host (f->host);
  expected = g_strdup_printf ("the session %s is open in another zot process, so it is shown read-only "
                              "here; start a new conversation (/new) to go on", path);
  g_assert_cmpuint (f->warnings->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->warnings, 0), ==, expected);

  submit (f, "hello", &s);
  g_assert_false (s.ok);
  g_assert_error (s.error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_READ_ONLY);

  /* /new goes on in a session of its own. */
  submit (f, "/new", &s);
  g_assert_true (s.ok);
  submit (f, "hello", &s);
  g_assert_true (s.ok);

  after = zot_test_read_file (path);
  g_assert_cmpstr (after, ==, contents);
  close (fd);
}

/* Permissions (interactive host) */

static void
test_approval_choices (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "permwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) decisions = g_ptr_array_new_with_free_func (g_free);
  g_auto(ZotTestSubmit) s = { 0 };
  guint confirmations = 0;
  static const int answers[] = { ZOT_APPROVAL_DENY, ZOT_APPROVAL_ALLOW, ZOT_APPROVAL_ALLOW_TOOL, -2,
                                 ZOT_APPROVAL_ALLOW_ALL, -2 };

  start_host (f, paths);

  for (guint i = 0; i < G_N_ELEMENTS (answers); i++)
    {
      /* -2: answers no, so that a remembered decision shows. */
      f->answer = answers[i] == -2 ? ZOT_APPROVAL_DENY : answers[i];
      submit (f, i < 3 ? "tool: bash {\"command\":\"true\"}" : "tool: write {\"path\":\"w\",\"content\":\"x\"}\ntool: bash {\"command\":\"true\"}", &s);
    }

  shutdown_host (f);
  events = frames_of (f, "permwatch", "event");
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);
      const char *name = json_object_get_string_member (event, "event");

      if (g_str_equal (name, "tool_confirmation_requested"))
        {
          confirmations++;
          g_assert_nonnull (json_object_get_string_member (event, "tool_preview"));
          g_assert_true (g_str_has_prefix (json_object_get_string_member (event, "tool_preview"),
                                           json_object_get_string_member (event, "tool_name")));
        }
      else if (g_str_equal (name, "permission_decision"))
        g_ptr_array_add (decisions, g_strdup_printf ("%s %s %s %s",
                                                     json_object_get_string_member (event, "tool_name"),
                                                     json_object_get_string_member (event, "decision"),
                                                     json_object_get_string_member (event, "source"),
                                                     json_object_get_string_member (event, "stage")));
    }

  g_ptr_array_add (decisions, NULL);
  {
    g_autofree char *joined = g_strjoinv ("\n", (char **) decisions->pdata);

    g_assert_cmpstr (joined, ==,
                     "bash denied user pre_execution\n"
                     "bash approved user pre_execution\n"
                     "bash approved user pre_execution\n"     /* always this tool */
                     "write denied user pre_execution\n"      /* asked: write is another tool */
                     "bash approved remembered pre_execution\n"
                     "write approved user pre_execution\n"    /* always this session */
                     "bash approved remembered pre_execution\n"
                     "write approved remembered pre_execution\n"
                     "bash approved remembered pre_execution");
  }
  /* Asked for: bash ×3, write ×2; remembered ones are not announced. */
  g_assert_cmpuint (confirmations, ==, 5);
}

static void
test_approval_policies (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "policywatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotExtensionManager *manager;

  start_host (f, paths);
  manager = zot_host_get_manager (f->host);

  /* read needs no approval: approved by policy, without asking. */
  submit (f, "tool: read {\"path\":\"x\"}", &s);
  zot_extension_manager_set_policy (manager, ZOT_APPROVAL_POLICY_YOLO);
  submit (f, "tool: bash {\"command\":\"true\"}", &s);
  zot_extension_manager_set_policy (manager, ZOT_APPROVAL_POLICY_ASK);
  g_signal_handlers_disconnect_by_func (manager, on_approval_requested, f);
  submit (f, "tool: bash {\"command\":\"true\"}", &s);
  g_assert_true (g_ptr_array_find_with_equal_func (f->results, "bash blocked", g_str_equal, NULL));

  shutdown_host (f);
  events = frames_of (f, "policywatch", "event");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "permission_decision", 0), "source"), ==, "policy");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "permission_decision", 1), "source"), ==, "yolo");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "permission_decision", 2), "decision"), ==, "denied");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "permission_decision", 2), "source"), ==, "policy");
  g_assert_null (event_named (events, "tool_confirmation_requested", 0));
}

static gboolean
approval_pending (gpointer data)
{
  return ((Fixture *) data)->approvals->len > 0;
}

static void
test_approval_cancelled (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "waitwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  ZotTestSubmit s = { 0 };
  JsonObject *decision;

  start_host (f, paths);
  f->answer = -1;
  zot_host_submit_async (f->host, "tool: bash {\"command\":\"true\"}", NULL, zot_test_submit_cb, &s);
  zot_test_wait_until (approval_pending, f, 10000);
  zot_agent_abort (zot_host_get_agent (f->host));
  zot_test_wait_for (&s.done, 10000);
  g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  shutdown_host (f);
  events = frames_of (f, "waitwatch", "event");
  decision = event_named (events, "permission_decision", 0);
  g_assert_cmpstr (json_object_get_string_member (decision, "decision"), ==, "cancelled");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "tool_result", 0), "status"), ==, "cancelled");
  zot_test_submit_clear (&s);
}

/* A tool that refuses after it was approved. */

#define TEST_TYPE_REFUSING_TOOL (test_refusing_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestRefusingTool, test_refusing_tool, TEST, REFUSING_TOOL, ZotTool)

struct _TestRefusingTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (TestRefusingTool, test_refusing_tool, ZOT_TYPE_TOOL)

static void
refusing_execute_async (ZotTool              *tool,
                        JsonObject           *args,
                        const ZotToolContext *context,
                        GCancellable         *cancellable,
                        GAsyncReadyCallback   callback,
                        gpointer              user_data)
{
  g_autoptr(GTask) task = g_task_new (tool, cancellable, callback, user_data);

  g_task_return_pointer (task,
                         zot_tool_result_new_error (ZOT_TOOL_OUTCOME_BLOCKED, "outside the jail"),
                         (GDestroyNotify) zot_tool_result_free);
}

static ZotToolResult *
refusing_execute_finish (ZotTool       *tool,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_refusing_tool_class_init (TestRefusingToolClass *klass)
{
  ZOT_TOOL_CLASS (klass)->execute_async = refusing_execute_async;
  ZOT_TOOL_CLASS (klass)->execute_finish = refusing_execute_finish;
}

static void
test_refusing_tool_init (TestRefusingTool *self)
{
}

static void
test_second_decision (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "jailwatch", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(ZotTool) jail = g_object_new (TEST_TYPE_REFUSING_TOOL, "name", "jailed", "requires-approval", TRUE, NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *names = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *second;
  JsonObject *result;

  start_host (f, paths);
  zot_tool_registry_add (zot_agent_get_registry (zot_host_get_agent (f->host)), jail, NULL);
  submit (f, "tool: jailed {}", &s);

  shutdown_host (f);
  events = frames_of (f, "jailwatch", "event");
  second = event_named (events, "permission_decision", 1);
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "permission_decision", 0), "decision"), ==, "approved");
  g_assert_cmpstr (json_object_get_string_member (second, "decision"), ==, "denied");
  g_assert_cmpstr (json_object_get_string_member (second, "source"), ==, "policy");
  g_assert_cmpstr (json_object_get_string_member (second, "stage"), ==, "tool_execution");
  result = event_named (events, "tool_result", 0);
  g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "blocked");
  g_assert_true (json_object_get_boolean_member (result, "executed"));
}

/* Typed command replies through the host */

static void
on_command_replied (ZotHost         *host,
                    ZotCommandReply *reply,
                    GString         *seen)
{
  const GError *error = zot_command_reply_get_error (reply);
  const char *text = zot_command_reply_get_text (reply);

  g_string_append_printf (seen, "%d|%s|%s|%s\n", zot_command_reply_get_kind (reply),
                          zot_extension_get_name (zot_command_reply_get_extension (reply)),
                          text ? text : "-", error ? error->message : "-");
}

static void
on_user_message (ZotAgent   *agent,
                 JsonObject *message,
                 GString    *seen)
{
  g_string_append (seen, "user message\n");
}

/* The host hands every reply of an extension command to its views,
 * typed, before the turn a prompt asks for; its error is the
 * submission's. */
static void
test_command_replies (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "answers", "--command", "ask", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GString) seen = g_string_new (NULL);
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *expected = NULL;

  start_host (f, paths);
  g_signal_connect (f->host, "command-replied", G_CALLBACK (on_command_replied), seen);
  g_signal_connect (zot_host_get_agent (f->host), "user-message",
                    G_CALLBACK (on_user_message), seen);

  submit (f, "/ask display shown", &s);
  g_assert_true (s.ok);
  submit (f, "/ASK insert typed", &s);
  g_assert_true (s.ok);
  submit (f, "/ask noop", &s);
  g_assert_true (s.ok);
  g_assert_null (s.text);

  submit (f, "/ask prompt write a poem", &s);
  g_assert_true (s.ok);
  g_assert_nonnull (strstr (s.text, "write a poem"));

  submit (f, "/ask error the disk is on fire", &s);
  g_assert_error (s.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_COMMAND_FAILED);
  submit (f, "/ask badaction", &s);
  g_assert_error (s.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION);

  expected = g_strdup_printf ("%d|answers|shown|-\n"
                              "%d|answers|typed|-\n"
                              "%d|answers|-|-\n"
                              "%d|answers|write a poem|-\n"
                              "user message\n"
                              "%d|answers|-|/ask: the disk is on fire\n"
                              "%d|answers|-|/ask: unknown command action \"frobnicate\"\n",
                              ZOT_COMMAND_REPLY_DISPLAY, ZOT_COMMAND_REPLY_INSERT,
                              ZOT_COMMAND_REPLY_NOOP, ZOT_COMMAND_REPLY_PROMPT,
                              ZOT_COMMAND_REPLY_ERROR, ZOT_COMMAND_REPLY_ERROR);
  g_assert_cmpstr (seen->str, ==, expected);

  g_signal_handlers_disconnect_by_data (f->host, seen);
  g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), seen);
}

static void
test_tool_prompt (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "committer", "--command", "commit", "--register-json", all_events, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  GPtrArray *messages;
  JsonObject *assistant;
  JsonObject *call;
  JsonObject *event;

  /* The window runs tool_prompt: the prompt, then the extension's tool call
   * through the usual path, then the model's turn with the full result. */
  start_host (f, paths);
  zot_extension_manager_set_policy (zot_host_get_manager (f->host), ZOT_APPROVAL_POLICY_YOLO);
  submit (f, "/commit toolprompt bash {\"command\":\"echo pushed\"}", &s);
  g_assert_no_error (s.error);
  g_assert_nonnull (strstr (s.text, "pushed"));

  messages = zot_agent_get_messages (zot_host_get_agent (f->host));
  g_assert_cmpuint (messages->len, ==, 4);
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 0)), ==, "user");
  assistant = g_ptr_array_index (messages, 1);
  call = json_array_get_object_element (json_object_get_array_member (assistant, "content"), 0);
  g_assert_cmpstr (json_object_get_string_member (call, "name"), ==, "bash");
  g_assert_cmpstr (json_object_get_string_member (call, "origin_extension"), ==, "committer");
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 2)), ==, "tool");

  shutdown_host (f);
  events = frames_of (f, "committer", "event");
  event = event_named (events, "tool_call", 0);
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "committer");
  g_assert_cmpstr (json_object_get_string_member (event_named (events, "tool_result", 0), "status"), ==, "completed");
}

static void
test_tool_prompt_invalid (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "sloppy", "--command", "bad", NULL);
  const char *paths[] = { dir, NULL };
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, "/bad toolprompt bash not-an-object", &s);
  g_assert_error (s.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY);
  g_assert_nonnull (strstr (s.error->message, "tool_args as a JSON object"));
}

/* Provider endpoint and key */

static void
count_cb (guint *count)
{
  (*count)++;
}

static void
push_reply (ZotFakeServer *server,
            const char    *text)
{
  g_auto(GStrv) events = zot_fake_server_openai_text (text, 64);

  zot_fake_server_push_sse (server, (const char * const *) events, FALSE);
}

/* The OpenAI-compatible provider in use moves to a new base URL, or takes
 * a new key, at once; a bad URL changes nothing; a key for a provider not
 * in use waits for a switch. */
static void
test_provider_endpoint (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(ZotFakeServer) first = zot_fake_server_new ();
  g_autoptr(ZotFakeServer) second = zot_fake_server_new ();
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  guint changes = 0;

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("openai");
  options.provider.model = g_strdup ("gpt-test");
  options.provider.base_url = g_strdup (zot_fake_server_get_url (first));
  options.provider.api_key = g_strdup ("sk-first");
  options.no_session = TRUE;
  options.no_ext = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_host_begin_session (f->host);
  g_signal_connect_swapped (f->host, "notify::model", G_CALLBACK (count_cb), &changes);

  push_reply (first, "one");
  submit (f, "hi", &s);
  g_assert_true (s.ok);
  g_assert_cmpuint (zot_fake_server_get_n_requests (first), ==, 1);
  g_assert_cmpstr (zot_fake_server_get_request_header (first, 0, "Authorization"), ==, "Bearer sk-first");

  /* A provider rebuilt for a new base URL or key serves the same model. */
  g_assert_true (zot_host_set_base_url (f->host, zot_fake_server_get_url (second), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changes, ==, 0);
  push_reply (second, "two");
  submit (f, "again", &s);
  g_assert_true (s.ok);
  g_assert_cmpuint (zot_fake_server_get_n_requests (first), ==, 1);
  g_assert_cmpuint (zot_fake_server_get_n_requests (second), ==, 1);
  g_assert_cmpstr (zot_fake_server_get_request_header (second, 0, "Authorization"), ==, "Bearer sk-first");
  g_assert_cmpstr (json_object_get_string_member (zot_fake_server_get_request_body (second, 0), "model"),
                   ==, "gpt-test");

  g_assert_true (zot_host_set_api_key (f->host, "openai", "sk-second", &error));
  g_assert_no_error (error);
  /* Not in use: nothing to rebuild now. */
  g_assert_true (zot_host_set_api_key (f->host, "anthropic", "sk-ant-later", &error));
  g_assert_no_error (error);

  g_assert_cmpuint (changes, ==, 0);

  g_assert_false (zot_host_set_base_url (f->host, "ftp://example.com/v1", &error));
  g_assert_cmpuint (changes, ==, 0);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "ftp://example.com/v1"));
  g_clear_error (&error);

  push_reply (second, "three");
  submit (f, "once more", &s);
  g_assert_true (s.ok);
  g_assert_cmpuint (zot_fake_server_get_n_requests (second), ==, 2);
  g_assert_cmpstr (zot_fake_server_get_request_header (second, 1, "Authorization"), ==, "Bearer sk-second");
  g_assert_cmpstr (zot_provider_get_model (zot_agent_get_provider (zot_host_get_agent (f->host))), ==, "gpt-test");
}

/* ZotHost:model notifies when the model or provider changes, :session
 * when /new replaces the session, and :cwd holds the working directory. */
static void
test_host_properties (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotSession) first = NULL;
  g_autoptr(ZotSession) second = NULL;
  g_autofree char *model = NULL;
  g_autofree char *cwd = NULL;
  guint model_changes = 0;
  guint session_changes = 0;

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.no_ext = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  g_signal_connect_swapped (f->host, "notify::model", G_CALLBACK (count_cb), &model_changes);
  g_signal_connect_swapped (f->host, "notify::session", G_CALLBACK (count_cb), &session_changes);

  g_object_get (f->host, "cwd", &cwd, "session", &first, NULL);
  g_assert_cmpstr (cwd, ==, f->env.cwd);
  g_assert_true (first == zot_agent_get_session (zot_host_get_agent (f->host)));

  g_assert_true (zot_host_set_model (f->host, NULL, "demo-2", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (model_changes, ==, 1);
  g_object_get (f->host, "model", &model, NULL);
  g_assert_cmpstr (model, ==, "demo-2");

  /* The same model again is no change. */
  g_assert_true (zot_host_set_model (f->host, NULL, "demo-2", &error));
  g_assert_cmpuint (model_changes, ==, 1);

  g_assert_true (zot_host_new_session (f->host, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (session_changes, ==, 1);
  g_object_get (f->host, "session", &second, NULL);
  g_assert_true (second != first);
  g_assert_true (second == zot_agent_get_session (zot_host_get_agent (f->host)));
  g_assert_cmpuint (model_changes, ==, 1);

  g_signal_handlers_disconnect_by_data (f->host, &model_changes);
  g_signal_handlers_disconnect_by_data (f->host, &session_changes);
}

/* Images */

static const char png_head[] = "\x89PNG\r\n\x1a\n";

static GBytes *
fake_png (gsize size)
{
  guint8 *data = g_malloc0 (size);

  memcpy (data, png_head, sizeof png_head - 1);
  for (gsize i = sizeof png_head - 1; i < size; i++)
    data[i] = (guint8) (i * 7);
  return g_bytes_new_take (data, size);
}

static void
submit_images (Fixture    *f,
               const char *text,
               JsonArray  *images,
               ZotTestSubmit *out)
{
  zot_test_submit_clear (out);
  out->done = FALSE;
  zot_host_submit_with_images_async (f->host, text, images, NULL, zot_test_submit_cb, out);
  zot_test_wait_for (&out->done, 60000);
}

/* The user content of the last request, as the OpenAI-compatible API got it. */
static JsonArray *
last_user_content (ZotFakeServer *server)
{
  JsonObject *body = zot_fake_server_get_request_body (server, zot_fake_server_get_n_requests (server) - 1);
  JsonArray *messages = json_object_get_array_member (body, "messages");

  for (guint i = json_array_get_length (messages); i > 0; i--)
    {
      JsonObject *message = json_array_get_object_element (messages, i - 1);

      if (g_str_equal (json_object_get_string_member (message, "role"), "user"))
        return json_object_get_array_member (message, "content");
    }
  g_error ("no user message in the request");
  return NULL;
}

/* Images go to the model with the prompt's text, are kept in the
 * conversation and counted in user_prompt_submit; a command refuses them;
 * only PNG, JPEG, GIF and WebP up to the read tool's limit are taken. */
static void
test_prompt_images (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotFakeServer) server = zot_fake_server_new ();
  g_autofree char *dir = FAKE (f, "eyes", "--register-json", all_events, NULL);
  g_autoptr(GBytes) png = fake_png (64);
  g_autoptr(GBytes) text_bytes = g_bytes_new_static ("just text", 9);
  g_autoptr(GBytes) largest = fake_png (ZOT_READ_IMAGE_MAX_BYTES);
  g_autoptr(GBytes) too_large = fake_png (ZOT_READ_IMAGE_MAX_BYTES + 1);
  g_autoptr(JsonArray) images = json_array_new ();
  g_autoptr(JsonObject) block = NULL;
  g_autoptr(JsonObject) refused = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  const char *paths[] = { dir, NULL };
  JsonArray *content;
  GPtrArray *messages;
  JsonObject *stored;

  /* What is taken, and what is not. */
  block = zot_image_block_new (png, "shot.png", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (block, "mime_type"), ==, "image/png");
  refused = zot_image_block_new (text_bytes, "notes.txt", &error);
  g_assert_null (refused);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "notes.txt"));
  g_clear_error (&error);
  g_clear_pointer (&refused, json_object_unref);
  refused = zot_image_block_new (largest, "largest.png", &error);
  g_assert_no_error (error);
  g_assert_nonnull (refused);
  g_clear_pointer (&refused, json_object_unref);
  refused = zot_image_block_new (too_large, "huge.png", &error);
  g_assert_null (refused);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "huge.png"));
  g_clear_error (&error);

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("openai");
  options.provider.base_url = g_strdup (zot_fake_server_get_url (server));
  options.provider.api_key = g_strdup ("sk-test");
  options.no_session = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_test_load_host (f->host);

  json_array_add_object_element (images, json_object_ref (block));
  push_reply (server, "a picture");
  submit_images (f, "what is this?", images, &s);
  g_assert_no_error (s.error);
  g_assert_true (s.ok);

  url = g_strdup_printf ("data:image/png;base64,%s", json_object_get_string_member (block, "data"));
  content = last_user_content (server);
  g_assert_cmpuint (json_array_get_length (content), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 0), "text"),
                   ==, "what is this?");
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (content, 1), "image_url/url"),
                   ==, url);

  /* The conversation keeps the image, for the next turns and the session. */
  messages = zot_agent_get_messages (zot_host_get_agent (f->host));
  stored = g_ptr_array_index (messages, 0);
  g_assert_cmpstr (zot_test_json_string_at (stored, "content/1/type"), ==, "image");
  g_assert_cmpstr (zot_test_json_string_at (stored, "content/1/data"), ==,
                   json_object_get_string_member (block, "data"));

  /* An image alone. */
  push_reply (server, "the same picture");
  submit_images (f, "", images, &s);
  g_assert_true (s.ok);
  content = last_user_content (server);
  g_assert_cmpuint (json_array_get_length (content), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 0), "type"),
                   ==, "image_url");

  /* A command does not take them, and runs nothing. */
  submit_images (f, "/help", images, &s);
  g_assert_error (s.error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_USAGE);
  g_assert_cmpuint (zot_fake_server_get_n_requests (server), ==, 2);

  shutdown_host (f);
  events = frames_of (f, "eyes", "event");
  g_assert_cmpint (json_object_get_int_member (event_named (events, "user_prompt_submit", 0), "image_count"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (event_named (events, "user_prompt_submit", 1), "image_count"), ==, 1);
}

/* activate_tools (PROTOCOL.md §5a) */

/* A host on the OpenAI-compatible provider talking to @server, with
 * @paths as extensions and the conversation in @session_path. */
static void
start_openai_host (Fixture            *f,
                   ZotFakeServer      *server,
                   const char * const *paths,
                   const char         *session_path)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("openai");
  options.provider.base_url = g_strdup (zot_fake_server_get_url (server));
  options.provider.api_key = g_strdup ("sk-test");
  options.session_path = g_strdup (session_path);
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
}

/* Whether request @index to @server defined tool @name to the model. */
static gboolean
request_defines (ZotFakeServer *server,
                 guint          index,
                 const char    *name)
{
  JsonObject *body = zot_fake_server_get_request_body (server, index);
  JsonArray *tools = json_object_get_array_member (body, "tools");

  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    if (g_strcmp0 (zot_test_json_string_at (json_array_get_object_element (tools, i), "function/name"),
                   name) == 0)
      return TRUE;
  return FALSE;
}

static void
push_tool_call (ZotFakeServer *server,
                const char    *name,
                const char    *args)
{
  g_auto(GStrv) events = zot_fake_server_openai_tool_calls (name, args, NULL, NULL, 64);

  zot_fake_server_push_sse (server, (const char * const *) events, FALSE);
}

/* A tool's result activates a deferred tool: it is in the model's next
 * request and every one after, in the session file and so after a
 * resume, until /clear or /new. Unknown names are logged; a tool that is
 * not deferred stays as it was. */
static void
test_activate_tools (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(ZotFakeServer) server = zot_fake_server_new ();
  g_autofree char *dir = FAKE (f, "acts",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"opener\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"later\",\"schema\":{},\"exposure\":\"deferred\"}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"scripty\",\"schema\":{},\"exposure\":\"codemode\"}",
    NULL);
  g_autofree char *session_path = g_build_filename (f->env.root, "conversation.jsonl", NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *log_path = NULL;
  g_autofree char *log = NULL;
  g_autofree char *file = NULL;
  g_auto(GStrv) active = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  start_openai_host (f, server, paths, session_path);
  log_path = g_strdup (zot_extension_get_log_path (zot_extension_manager_find (zot_host_get_manager (f->host), "acts")));

  push_tool_call (server, "opener",
                  "{\"activate_tools\":[\"later\",\"nope\",\"opener\",\"scripty\",7]}");
  push_reply (server, "done");
  submit (f, "go", &s);
  g_assert_no_error (s.error);
  g_assert_cmpuint (zot_fake_server_get_n_requests (server), ==, 2);
  g_assert_false (request_defines (server, 0, "later"));
  g_assert_true (request_defines (server, 0, "opener"));
  g_assert_true (request_defines (server, 1, "later"));
  g_assert_false (request_defines (server, 1, "scripty"));

  /* Unknown and malformed names are logged; the others say nothing. */
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "activate_tools from opener: no tool \"nope\" the model may use, ignored"),
                    ==, 1);
  g_assert_cmpuint (zot_test_count (log, "1 elements of \"activate_tools\" are not strings"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "activate_tools from opener: no tool"), ==, 1);
  active = zot_tool_registry_dup_activations (zot_agent_get_registry (zot_host_get_agent (f->host)));
  g_assert_cmpstrv (active, ((const char *[]) { "later", NULL }));

  /* For the rest of the conversation. */
  push_reply (server, "still");
  submit (f, "next", &s);
  g_assert_true (request_defines (server, 2, "later"));
  shutdown_host (f);

  file = zot_test_read_file (session_path);
  g_assert_nonnull (strstr (file, "{\"type\":\"activated_tools\",\"names\":[\"later\"]}"));

  /* A resume brings it back before the extension has registered it again. */
  start_openai_host (f, server, paths, session_path);
  push_reply (server, "resumed");
  submit (f, "again", &s);
  g_assert_no_error (s.error);
  g_assert_true (request_defines (server, 3, "later"));

  /* /clear forgets it, in memory and in the file. */
  submit (f, "/clear", &s);
  g_assert_no_error (s.error);
  push_reply (server, "cleared");
  submit (f, "after clear", &s);
  g_assert_false (request_defines (server, 4, "later"));
  shutdown_host (f);

  start_openai_host (f, server, paths, session_path);
  push_reply (server, "resumed after clear");
  submit (f, "and again", &s);
  g_assert_false (request_defines (server, 5, "later"));

  /* /new starts without it. */
  push_tool_call (server, "opener", "{\"activate_tools\":[\"later\"]}");
  push_reply (server, "on");
  submit (f, "on", &s);
  g_assert_true (request_defines (server, 7, "later"));
  submit (f, "/new", &s);
  g_assert_no_error (s.error);
  push_reply (server, "fresh");
  submit (f, "fresh", &s);
  g_assert_false (request_defines (server, 8, "later"));
}

/* A result's list of @n_before copies of "opener" then "later". */
static char *
activate_list (guint n_before)
{
  g_autoptr(GString) args = g_string_new ("{\"activate_tools\":[");

  for (guint i = 0; i < n_before; i++)
    g_string_append (args, "\"opener\",");
  g_string_append (args, "\"later\"]}");
  return g_string_free (g_steal_pointer (&args), FALSE);
}

/* ZOT_ACTIVATE_TOOLS_MAX_NAMES names are read; one more is logged and
 * ignored with everything after it. */
static void
test_activate_tools_cap (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(ZotFakeServer) server = zot_fake_server_new ();
  g_autofree char *dir = FAKE (f, "capped",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"opener\",\"schema\":{}}",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"later\",\"schema\":{},\"exposure\":\"deferred\"}",
    NULL);
  g_autofree char *session_path = g_build_filename (f->env.root, "conversation.jsonl", NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *at_cap = activate_list (ZOT_ACTIVATE_TOOLS_MAX_NAMES - 1);
  g_autofree char *past_cap = activate_list (ZOT_ACTIVATE_TOOLS_MAX_NAMES);
  g_autofree char *log_path = NULL;
  g_autofree char *log = NULL;
  g_auto(GStrv) active = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotToolRegistry *registry;

  start_openai_host (f, server, paths, session_path);
  log_path = g_strdup (zot_extension_get_log_path (zot_extension_manager_find (zot_host_get_manager (f->host), "capped")));
  registry = zot_agent_get_registry (zot_host_get_agent (f->host));

  /* The last name is the cap's: read. */
  push_tool_call (server, "opener", at_cap);
  push_reply (server, "done");
  submit (f, "go", &s);
  g_assert_no_error (s.error);
  active = zot_tool_registry_dup_activations (registry);
  g_assert_cmpstrv (active, ((const char *[]) { "later", NULL }));
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "names more than"), ==, 0);

  /* One past it: not read, and said once. */
  submit (f, "/new", &s);
  g_assert_no_error (s.error);
  push_tool_call (server, "opener", past_cap);
  push_reply (server, "done");
  submit (f, "again", &s);
  g_assert_no_error (s.error);
  g_clear_pointer (&active, g_strfreev);
  active = zot_tool_registry_dup_activations (registry);
  g_assert_true (active == NULL || active[0] == NULL);
  g_free (log);
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "\"activate_tools\" names more than 256 tools; the rest are ignored"),
                    ==, 1);
}

/* submit (PROTOCOL.md §5a), as the window takes it */

typedef struct
{
  Fixture   *f;
  guint      taken;
  guint      finished;
  GPtrArray *submitted;   /* user_prompt_submit payloads */
} Takes;

static void
extension_prompt_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Takes *takes = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_host_submit_finish (ZOT_HOST (object), result, NULL, &error));
  g_assert_no_error (error);
  takes->finished++;
}

static gboolean
take_submit (ZotExtensionManager *manager,
             ZotExtension        *extension,
             const char          *text,
             Takes               *takes)
{
  takes->taken++;
  zot_host_submit_for_extension_async (takes->f->host, extension, text, NULL, extension_prompt_cb, takes);
  return TRUE;
}

static void
keep_prompt_submit (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *payload,
                    Takes               *takes)
{
  if (g_str_equal (name, "user_prompt_submit"))
    g_ptr_array_add (takes->submitted, json_object_ref (payload));
}

static gboolean
takes_finished (gpointer data)
{
  Takes *takes = data;

  return takes->finished == takes->taken;
}

/* A submit while the agent is busy waits in the queue (queued:true) and
 * runs after; another one while it waits is refused and logged; once its
 * message is in the conversation the extension may submit again. */
static void
test_submit_queued (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = FAKE (f, "pusher",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"nudge\",\"schema\":{}}", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) submitted = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  Takes takes = { f, 0, 0, submitted };
  ZotExtensionManager *manager;
  g_autofree char *log = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *queued;
  GPtrArray *messages;

  start_host (f, paths);
  manager = zot_host_get_manager (f->host);
  g_signal_connect (manager, "submit-requested", G_CALLBACK (take_submit), &takes);
  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (keep_prompt_submit), &takes);

  submit (f, "tool: nudge {\"reply\":\"nudged\",\"send\":"
             "\"{\\\"type\\\":\\\"submit\\\",\\\"text\\\":\\\"follow up\\\"}\\n"
             "{\\\"type\\\":\\\"submit\\\",\\\"text\\\":\\\"too many\\\"}\"}", &s);
  g_assert_no_error (s.error);
  zot_test_wait_until (takes_finished, &takes, 30000);
  g_assert_cmpuint (takes.taken, ==, 1);

  g_assert_cmpuint (submitted->len, ==, 2);
  queued = g_ptr_array_index (submitted, 1);
  g_assert_cmpstr (json_object_get_string_member (queued, "text"), ==, "follow up");
  g_assert_true (json_object_get_boolean_member (queued, "queued"));
  g_assert_cmpstr (json_object_get_string_member (queued, "origin_extension"), ==, "pusher");
  g_assert_false (json_object_has_member (g_ptr_array_index (submitted, 0), "queued"));

  /* It ran as a prompt of its own, after the run it waited for. */
  messages = zot_agent_get_messages (zot_host_get_agent (f->host));
  g_assert_cmpstr (zot_test_json_string_at (g_ptr_array_index (messages, messages->len - 2), "content/0/text"),
                   ==, "follow up");
  g_assert_cmpstr (zot_test_json_string_at (g_ptr_array_index (messages, messages->len - 2), "origin_extension"),
                   ==, "pusher");
  g_assert_nonnull (strstr (g_ptr_array_index (f->shown, f->shown->len - 1), "follow up"));

  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (manager, "pusher")));
  g_assert_cmpuint (zot_test_count (log, "submit refused: the prompt or command it submitted before is "
                                         "not done yet"), ==, 1);

  /* Its message is in: the next one is taken. */
  submit (f, "tool: nudge {\"reply\":\"again\",\"send\":\"{\\\"type\\\":\\\"submit\\\",\\\"text\\\":\\\"third\\\"}\"}", &s);
  zot_test_wait_until (takes_finished, &takes, 30000);
  g_assert_cmpuint (takes.taken, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->shown, f->shown->len - 1), "third"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");

#define ADD(path, func) \
  g_test_add ("/zot/integration/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
#define ADD_INTERACTIVE(path, func) \
  g_test_add ("/zot/integration/" path, Fixture, "interactive", fixture_setup, func, fixture_teardown)

  ADD ("extension-tool", test_extension_tool);
  ADD ("tool-result-blocks", test_tool_result_blocks);
  ADD ("tool-validation", test_tool_validation);
  ADD ("tool-discovery-activation", test_tool_discovery_activation);
  ADD ("ext-list-shows-problems", test_ext_list_shows_problems);
  ADD ("tool-conflict-load-order", test_tool_conflict_load_order);
  ADD ("codemode-on", test_codemode_on);
  ADD ("codemode-off", test_codemode_off);
  ADD ("codemode-only", test_codemode_only);
  ADD ("observation-truncated", test_observation_truncated);
  ADD ("tool-timeout-and-cancel", test_tool_timeout_and_cancel);
  ADD ("late-result-dropped", test_late_result_dropped);
  ADD ("crash-fails-pending-at-once", test_crash_fails_pending_at_once);
  ADD ("interactive-tool-headless", test_interactive_tool_headless);
  ADD_INTERACTIVE ("interactive-tool-waits", test_interactive_tool_waits);
  ADD ("rewrite-chain", test_rewrite_chain);
  ADD ("block-beats-rewrite", test_block_beats_rewrite);
  ADD ("interceptor-silent", test_interceptor_silent);
  ADD ("event-batch-keeps-guard", test_event_batch_keeps_guard);
  ADD ("failed-guard-skipped", test_failed_guard_skipped);
  ADD ("failed-guard-blocks", test_failed_guard_blocks);
  ADD ("failed-guard-blocks-from-start", test_failed_guard_blocks_from_start);
  ADD ("block-after-rewrite", test_block_after_rewrite);
  ADD ("turn-start-block", test_turn_start_block);
  ADD ("assistant-message-rewrite", test_assistant_message_rewrite);
  ADD ("assistant-message-block", test_assistant_message_block);
  ADD ("before-agent-start-chain", test_before_agent_start_chain);
  ADD ("before-agent-start-rules", test_before_agent_start_rules);
  ADD ("before-agent-start-failures", test_before_agent_start_failures);
  ADD ("before-agent-start-reset-pending", test_before_agent_start_reset_pending);
  ADD ("two-tool-step-order", test_two_tool_step_order);
  ADD ("sequence-two-subscribers", test_sequence_two_subscribers);
  ADD ("provider-endpoint", test_provider_endpoint);
  ADD ("host-properties", test_host_properties);
  ADD ("prompt-images", test_prompt_images);
  ADD ("tool-result-args", test_tool_result_args);
  ADD ("status-cancelled", test_status_cancelled);
  ADD ("compaction-events", test_compaction_events);
  ADD ("auto-compaction-events", test_auto_compaction_events);
  ADD ("headless-compaction-in-session", test_headless_compaction_in_session);
  ADD ("session-switch", test_session_switch);
  ADD ("activate-tools", test_activate_tools);
  ADD ("activate-tools-cap", test_activate_tools_cap);
  ADD_INTERACTIVE ("submit-queued", test_submit_queued);
  ADD ("session-read-only-if-locked", test_session_read_only_if_locked);
  ADD_INTERACTIVE ("approval-choices", test_approval_choices);
  ADD_INTERACTIVE ("approval-policies", test_approval_policies);
  ADD_INTERACTIVE ("approval-cancelled", test_approval_cancelled);
  ADD_INTERACTIVE ("second-decision", test_second_decision);
  ADD_INTERACTIVE ("command-replies", test_command_replies);
  ADD_INTERACTIVE ("tool-prompt", test_tool_prompt);
  ADD_INTERACTIVE ("tool-prompt-invalid", test_tool_prompt_invalid);

#undef ADD
#undef ADD_INTERACTIVE

  return g_test_run ();
}
