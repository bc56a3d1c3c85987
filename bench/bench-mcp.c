/* bench-mcp.c — the MCP bridge (extensions/mcp, docs/mcp.md).
 *
 * A call: tools/call of the fake server's echo (tests/fake-mcp-server.py)
 * made by the host through the bridge (host → bridge → server and back),
 * against the same call made straight to the same server by a minimal
 * JSON-RPC client in this process: a blocking write and a blocking read
 * of one line. Both run in the same process run, alternating in rounds.
 *
 * Start-up: the bridge with 10 configured servers, against the bridge
 * with none. "Ready" is when the host's load completes — what a first
 * prompt waits for; "all tools" is when the last server's tools are
 * registered, which nothing waits for.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include "bench-common.h"
#include "zot-extension-manager.h"
#include "zot-mcp-config.h"

#define CALLS   200
#define ROUNDS  5
#define REPS    5
#define SERVERS 10
#define TARGET  1.3

static char *fake_script;

static void
configure (BenchEnv *env,
           guint     servers)
{
  g_autofree char *path = g_build_filename (env->home, "mcp.json", NULL);
  g_autoptr(GString) json = g_string_new ("{\"mcpServers\": {");
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < servers; i++)
    g_string_append_printf (json, "%s\"s%u\": {\"command\": \"python3\", \"args\": [\"%s\", \"normal\"]}",
                            i > 0 ? ", " : "", i, fake_script);
  g_string_append (json, "}}");
  if (!g_file_set_contents (path, json->str, -1, &error))
    g_error ("cannot write %s: %s", path, error->message);
}

/* The baseline: a minimal JSON-RPC client over the server's stdio. */

typedef struct
{
  GSubprocess      *process;
  GOutputStream    *input;
  GDataInputStream *output;
  guint             id;
} Direct;

static char *
direct_request (Direct     *direct,
                const char *method,
                const char *params)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\",\"params\":%s}\n",
                                           ++direct->id, method, params);
  g_autoptr(GError) error = NULL;
  char *answer;

  if (!g_output_stream_write_all (direct->input, line, strlen (line), NULL, NULL, &error))
    g_error ("cannot write to the server: %s", error->message);
  answer = g_data_input_stream_read_line (direct->output, NULL, NULL, &error);
  if (answer == NULL)
    g_error ("no answer to %s: %s", method, error != NULL ? error->message : "end of file");
  return answer;
}

static void
direct_start (Direct *direct)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *answer = NULL;
  const char *note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

  direct->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                      "python3", fake_script, "normal", NULL);
  if (direct->process == NULL)
    g_error ("cannot start the fake server: %s", error->message);
  direct->input = g_subprocess_get_stdin_pipe (direct->process);
  direct->output = g_data_input_stream_new (g_subprocess_get_stdout_pipe (direct->process));
  answer = direct_request (direct, "initialize",
                           "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}");
  g_output_stream_write_all (direct->input, note, strlen (note), NULL, NULL, NULL);
}

static void
direct_stop (Direct *direct)
{
  g_output_stream_close (direct->input, NULL, NULL);
  g_subprocess_wait (direct->process, NULL, NULL);
  g_clear_object (&direct->output);
  g_clear_object (&direct->process);
}

static double
direct_round (Direct *direct)
{
  double start = bench_now ();

  for (guint i = 0; i < CALLS; i++)
    {
      g_autofree char *answer = direct_request (direct, "tools/call",
                                                "{\"name\":\"echo\",\"arguments\":{\"text\":\"ping\"}}");
    }
  return (bench_now () - start) / CALLS;
}

/* Through the bridge */

typedef struct
{
  ZotTool *tool;
  guint    left;
  gboolean done;
  char    *cwd;
} Calls;

static void call_next (Calls *calls);

static void
called_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Calls *calls = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotToolResult) answer = zot_tool_execute_finish (ZOT_TOOL (object), result, &error);

  if (answer == NULL || answer->is_error)
    g_error ("the call through the bridge failed: %s", error != NULL ? error->message : "an error result");
  call_next (calls);
}

static void
call_next (Calls *calls)
{
  if (calls->left == 0)
    {
      calls->done = TRUE;
      return;
    }
  calls->left--;
  bench_call_tool (calls->tool, calls->cwd, called_cb, calls);
}

static double
bridge_round (ZotTool    *tool,
              const char *cwd)
{
  Calls calls = { tool, CALLS, FALSE, (char *) cwd };
  double start = bench_now ();

  call_next (&calls);
  bench_wait_for (&calls.done, 60, "the calls through the bridge");
  return (bench_now () - start) / CALLS;
}

static gboolean
has_tools (ZotExtensionManager *manager,
           guint                servers)
{
  for (guint i = 0; i < servers; i++)
    {
      g_autofree char *name = g_strdup_printf ("mcp__s%u__echo", i);
      g_autoptr(GPtrArray) tools = zot_extension_manager_list_tools (manager);
      gboolean found = FALSE;

      for (guint t = 0; t < tools->len && !found; t++)
        found = g_str_equal (zot_tool_get_name (g_ptr_array_index (tools, t)), name);
      if (!found)
        return FALSE;
    }
  return TRUE;
}

static gboolean
deadline_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
wait_for_tools (ZotExtensionManager *manager,
                guint                servers)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add_seconds (30, deadline_cb, &expired);

  while (!has_tools (manager, servers) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (expired)
    g_error ("the servers' tools did not come within 30 s");
  g_source_remove (id);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

/* Ready and all-tools times, in seconds, of the bridge with @servers. */
static void
start_run (BenchEnv   *env,
           const char *bridge,
           guint       servers,
           double     *ready,
           double     *all_tools)
{
  g_autoptr(ZotExtensionManager) manager = zot_extension_manager_new ();
  const char *paths[] = { bridge, NULL };
  gboolean loaded = FALSE;
  double start;

  configure (env, servers);
  zot_extension_manager_set_cwd (manager, env->root);
  zot_extension_manager_set_no_ext (manager, TRUE);
  zot_extension_manager_set_explicit_paths (manager, paths);
  start = bench_now ();
  zot_extension_manager_load_async (manager, NULL, loaded_cb, &loaded);
  bench_wait_for (&loaded, 30, "the bridge to be ready");
  *ready = bench_now () - start;
  wait_for_tools (manager, servers);
  *all_tools = bench_now () - start;
  bench_stop_extensions (manager);
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  g_autofree char *bridge = g_strdup (g_getenv ("ZOT_BENCH_MCP_BRIDGE"));
  g_autoptr(ZotExtensionManager) manager = NULL;
  g_autoptr(ZotTool) tool = NULL;
  const char *paths[2] = { NULL, NULL };
  double direct[ROUNDS], through[ROUNDS];
  double ready0[REPS], ready10[REPS], tools10[REPS], unused;
  double direct_us, through_us;
  Direct client = { 0 };

  fake_script = g_strdup (g_getenv ("ZOT_BENCH_FAKE_MCP"));
  if (bridge == NULL || fake_script == NULL)
    g_error ("set ZOT_BENCH_MCP_BRIDGE (the bridge's folder) and ZOT_BENCH_FAKE_MCP (tests/fake-mcp-server.py)");
  bench_env_init (&env, argv[0]);
  bench_print_header ("bench-mcp", "a tools/call through the bridge vs straight to the server; "
                                   "start-up with 10 servers");

  configure (&env, 1);
  paths[0] = bridge;
  manager = bench_load_extensions (&env, paths);
  wait_for_tools (manager, 1);
  tool = bench_find_tool (manager, "mcp__s0__echo");
  direct_start (&client);
  /* Warm both paths. */
  direct_round (&client);
  bridge_round (tool, env.root);
  for (guint r = 0; r < ROUNDS; r++)
    {
      direct[r] = direct_round (&client);
      through[r] = bridge_round (tool, env.root);
    }
  direct_stop (&client);
  g_clear_object (&tool);
  bench_stop_extensions (manager);
  direct_us = bench_median (direct, ROUNDS) * 1e6;
  through_us = bench_median (through, ROUNDS) * 1e6;

  for (guint r = 0; r < REPS; r++)
    {
      start_run (&env, bridge, 0, &ready0[r], &unused);
      start_run (&env, bridge, SERVERS, &ready10[r], &tools10[r]);
    }

  g_print ("a call: median of %d rounds of %d sequential calls of echo {\"text\":\"ping\"}\n\n", ROUNDS, CALLS);
  g_print ("%-34s %12s\n", "", "per call");
  g_print ("%-34s %9.1f us\n", "straight to the server (baseline)", direct_us);
  g_print ("%-34s %9.1f us\n", "host -> bridge -> server", through_us);
  g_print ("%-34s %10.2fx\n", "ratio", through_us / direct_us);
  g_print ("target: within %.1fx of the direct call: %s\n\n", TARGET, bench_verdict (through_us / direct_us <= TARGET));

  g_print ("start-up: median of %d interleaved runs\n\n", REPS);
  g_print ("%-22s %16s %20s\n", "servers", "bridge ready", "all tools listed");
  g_print ("%-22s %13.1f ms %20s\n", "0 (baseline)", bench_median (ready0, REPS) * 1e3, "-");
  g_print ("%-22u %13.1f ms %17.1f ms\n", SERVERS, bench_median (ready10, REPS) * 1e3,
           bench_median (tools10, REPS) * 1e3);
  g_print ("target: the bridge is ready as soon with %d servers as with none (the first prompt never "
           "waits): %.2fx (%s)\n", SERVERS, bench_median (ready10, REPS) / bench_median (ready0, REPS),
           bench_verdict (bench_median (ready10, REPS) <= TARGET * bench_median (ready0, REPS)));

  bench_env_clear (&env);
  g_free (fake_script);
  return 0;
}
