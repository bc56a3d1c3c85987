/* bench-codemode.c — a codemode script's tool calls against the same
 * calls made without a script.
 *
 * Through a real ZotHost (the demo model, no session, headless approvals)
 * with the echo extension's "echo" tool:
 *
 *   a. the direct path: 100 sequential calls of echo through the agent's
 *      tool call path (ZotToolRunner: checks, approval, execution, events),
 *      the way the model's calls and call_tool requests run;
 *   b. the script path: one codemode script awaiting the same 100 calls in
 *      turn, timed inside the script (from before its first call to after
 *      its last), so the runtime's start is not counted;
 *   c. the time from asking for a script to its first tool call arriving,
 *      from a cold start (no spare runtime) and with a spare runtime ready.
 *
 * Per-call overhead of the script path is b/100 against a/100; the target
 * is 1.5× or less.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bench-common.h"
#include "zot-agent.h"
#include "zot-codemode-tool.h"
#include "zot-host.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-tool-invocation.h"
#include "zot-tool-registry.h"

#define CALLS         100
#define REPS          5
#define FIRST_REPS    5
#define TARGET        1.5

typedef struct
{
  ZotHost  *host;
  gboolean  loaded;
  gboolean  stopped;
  gboolean  done;
  guint     remaining;
  double    first_call_at;
  ZotToolResult *result;
} Bench;

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Bench *bench = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_host_load_finish (ZOT_HOST (object), result, &error))
    g_error ("the host did not load: %s", error->message);
  bench->loaded = TRUE;
}

static void
stopped_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Bench *bench = user_data;

  zot_host_shutdown_finish (ZOT_HOST (object), result, NULL);
  bench->stopped = TRUE;
}

static void
on_extension_call (ZotAgent   *agent,
                   const char *tool_id,
                   const char *parent_id,
                   const char *name,
                   JsonObject *args,
                   const char *origin,
                   Bench      *bench)
{
  if (bench->first_call_at == 0 && g_str_equal (name, "echo"))
    bench->first_call_at = bench_now ();
}

static ZotToolRunner *
runner_of (Bench *bench)
{
  return ZOT_TOOL_RUNNER (zot_host_get_agent (bench->host));
}

static void call_next (Bench *bench);

static void
direct_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Bench *bench = user_data;
  g_autoptr(ZotToolResult) tool_result = zot_tool_runner_call_finish (ZOT_TOOL_RUNNER (object), result);

  if (tool_result->is_error)
    g_error ("echo failed: %s", zot_content_get_text (tool_result->content));
  call_next (bench);
}

static void
call_next (Bench *bench)
{
  g_autoptr(JsonObject) args = json_object_new ();
  ZotToolRequest request = { 0 };

  if (bench->remaining == 0)
    {
      bench->done = TRUE;
      return;
    }
  bench->remaining--;
  json_object_set_string_member (args, "text", "hello");
  request.name = "echo";
  request.args = args;
  request.origin_extension = "bench";
  zot_tool_runner_call_async (runner_of (bench), &request, NULL, direct_done_cb, bench);
}

static double
direct_run (Bench *bench)
{
  double start = bench_now ();

  bench->done = FALSE;
  bench->remaining = CALLS;
  call_next (bench);
  bench_wait_for (&bench->done, 60, "the direct calls");
  return bench_now () - start;
}

static void
script_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Bench *bench = user_data;

  bench->result = zot_tool_runner_call_finish (ZOT_TOOL_RUNNER (object), result);
  bench->done = TRUE;
}

/* Runs @code as a codemode call; returns the script's output. */
static char *
run_script (Bench      *bench,
            const char *code)
{
  g_autoptr(JsonObject) args = json_object_new ();
  ZotToolRequest request = { 0 };
  g_autofree char *text = NULL;
  const char *output;

  json_object_set_string_member (args, "code", code);
  request.name = ZOT_CODEMODE_TOOL_NAME;
  request.args = args;
  request.origin_extension = "bench";
  bench->done = FALSE;
  bench->first_call_at = 0;
  g_clear_pointer (&bench->result, zot_tool_result_free);
  zot_tool_runner_call_async (runner_of (bench), &request, NULL, script_done_cb, bench);
  bench_wait_for (&bench->done, 120, "the script");

  text = zot_content_get_text (bench->result->content);
  if (bench->result->is_error)
    g_error ("the script failed: %s", text);
  output = strstr (text, "\n\n");
  return g_strdup (output != NULL ? output + 2 : "");
}

#define SCRIPT \
  "const GLib = (await import('gi://GLib')).default\n" \
  "const start = GLib.get_monotonic_time()\n" \
  "for (let i = 0; i < 100; i++) await tools.echo({text: 'hello'})\n" \
  "return GLib.get_monotonic_time() - start"

static double
script_run (Bench *bench)
{
  g_autofree char *output = run_script (bench, SCRIPT);

  return g_ascii_strtod (output, NULL) / G_USEC_PER_SEC;
}

static gboolean
spare_ready (ZotCodemodeTool *tool)
{
  return zot_codemode_tool_has_spare (tool);
}

static double
first_call (Bench           *bench,
            ZotCodemodeTool *tool,
            gboolean         spare)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *output = NULL;
  double start;

  zot_codemode_tool_set_spare (tool, spare);
  if (spare)
    {
      double deadline = bench_now () + 30;

      zot_codemode_tool_prestart (tool);
      while (!spare_ready (tool))
        {
          if (bench_now () > deadline)
            g_error ("no spare runtime started");
          g_main_context_iteration (NULL, TRUE);
        }
    }

  start = bench_now ();
  output = run_script (bench, "await tools.echo({text: 'first'})");
  return bench->first_call_at - start;
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env;
  Bench bench = { 0 };
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");
  g_autofree char *gjs = g_find_program_in_path ("gjs");
  char *paths[2] = { NULL, NULL };
  double direct[REPS];
  double script[REPS];
  double cold[FIRST_REPS];
  double warm[FIRST_REPS];
  ZotCodemodeTool *tool;
  double per_direct;
  double per_script;

  bench_env_init (&env, argv[0]);
  bench_print_header ("Codemode", "100 sequential calls of an extension tool, from a script and directly");

  if (bwrap == NULL || gjs == NULL)
    {
      printf ("skipped: codemode needs bwrap and gjs\n");
      bench_env_clear (&env);
      return 0;
    }

  dir = bench_make_extension (&env, "echo", NULL);
  paths[0] = dir;
  options.cwd = g_strdup (env.root);
  options.ext_paths = g_strdupv (paths);
  options.no_ext = TRUE;
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = FALSE;

  bench.host = zot_host_new (&options, &error);
  if (bench.host == NULL)
    g_error ("cannot make a host: %s", error->message);
  g_signal_connect (zot_host_get_agent (bench.host), "extension-call", G_CALLBACK (on_extension_call), &bench);
  zot_host_load_async (bench.host, NULL, loaded_cb, &bench);
  bench_wait_for (&bench.loaded, 30, "the echo extension to load");
  zot_host_begin_session (bench.host);
  tool = ZOT_CODEMODE_TOOL (zot_tool_registry_lookup (zot_agent_get_registry (zot_host_get_agent (bench.host)),
                                                      ZOT_CODEMODE_TOOL_NAME));

  /* Warm both paths up once. */
  direct_run (&bench);
  script_run (&bench);

  for (guint i = 0; i < REPS; i++)
    {
      direct[i] = direct_run (&bench);
      script[i] = script_run (&bench);
    }
  for (guint i = 0; i < FIRST_REPS; i++)
    {
      cold[i] = first_call (&bench, tool, FALSE);
      warm[i] = first_call (&bench, tool, TRUE);
    }

  per_direct = bench_median (direct, REPS) / CALLS;
  per_script = bench_median (script, REPS) / CALLS;

  printf ("%-44s %10.1f µs\n", "direct call (agent path), per call", per_direct * 1e6);
  printf ("%-44s %10.1f µs\n", "call from a script, per call", per_script * 1e6);
  printf ("%-44s %10.2f×   target ≤ %.1f× %s\n", "script / direct", per_script / per_direct,
          TARGET, bench_verdict (per_script / per_direct <= TARGET));
  printf ("%-44s %10.1f ms\n", "first call, cold runtime (median)", bench_median (cold, FIRST_REPS) * 1e3);
  printf ("%-44s %10.1f ms\n", "first call, spare runtime ready (median)", bench_median (warm, FIRST_REPS) * 1e3);

  g_clear_pointer (&bench.result, zot_tool_result_free);
  zot_host_shutdown_async (bench.host, NULL, stopped_cb, &bench);
  bench_wait_for (&bench.stopped, 10, "the host to stop");
  g_clear_object (&bench.host);
  bench_env_clear (&env);
  return 0;
}
