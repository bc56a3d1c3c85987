/* bench-codemode.c — a codemode script's tool calls against the same
 * calls made without a script.
 *
 * Through a real ZotHost (no session, headless approvals) with the echo
 * extension's "echo" tool:
 *
 *   a. the model path: a model that answers at once asks for echo 100
 *      times, one call per turn, the way a model without codemode makes
 *      sequential calls (each turn: request, reply, the call, its result
 *      added to the conversation);
 *   b. the tool call path alone: 100 sequential calls of echo through the
 *      agent's tool call path (ZotToolRunner: checks, approval, execution,
 *      events) with no model turn around them, a lower bound;
 *   c. the script path: one codemode script awaiting the same 100 calls in
 *      turn, timed inside the script (from before its first call to after
 *      its last), so the runtime's start is not counted;
 *   d. the time from asking for a script to its first tool call arriving,
 *      from a cold start (no spare runtime) and with a spare runtime ready;
 *   e. for reference, the floor of the machine: a byte sent round a chain
 *      of two processes over pipes (the model path's host and extension)
 *      and of three (with the script's runtime in between).
 *
 * The target: per call, c within 1.5× of a. c against b shows what the
 * script's own round trip through gjs adds to a call, and e what part of
 * that one more process on the way costs by itself.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-common.h"
#include "zot-agent.h"
#include "zot-codemode-tool.h"
#include "zot-host.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-session.h"
#include "zot-tool-invocation.h"
#include "zot-tool-registry.h"

#define CALLS         100
#define MODEL_STEPS   (CALLS + 10)
#define REPS          5
#define FIRST_REPS    5
#define TARGET        1.5
#define PING_ROUNDS   2000
#define PING_REPS     5

typedef struct
{
  ZotHost  *host;
  ZotCodemodeTool *tool;
  gboolean  loaded;
  gboolean  stopped;
  gboolean  done;
  guint     remaining;
  double    first_call_at;
  ZotToolResult *result;
} Bench;

/* A model that answers at once: echo while calls remain, then a word. */
#define BENCH_TYPE_LOOP_PROVIDER (bench_loop_provider_get_type ())
G_DECLARE_FINAL_TYPE (BenchLoopProvider, bench_loop_provider, BENCH, LOOP_PROVIDER, ZotProvider)

struct _BenchLoopProvider
{
  ZotProvider parent_instance;
  guint       remaining;
  guint       n_replies;
};

G_DEFINE_FINAL_TYPE (BenchLoopProvider, bench_loop_provider, ZOT_TYPE_PROVIDER)

static const char *
bench_loop_provider_get_name (ZotProvider *provider)
{
  return "bench";
}

static const char *
bench_loop_provider_get_default_model (ZotProvider *provider)
{
  return "bench";
}

static void
bench_loop_provider_stream_async (ZotProvider         *provider,
                                  ZotProviderRequest  *request,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  BenchLoopProvider *self = BENCH_LOOP_PROVIDER (provider);
  g_autoptr(GTask) task = g_task_new (provider, cancellable, callback, user_data);
  ZotProviderReply *reply = zot_provider_reply_new ();
  JsonArray *content = json_array_new ();
  JsonObject *message = json_object_new ();

  self->n_replies++;
  if (self->remaining > 0)
    {
      JsonObject *block = json_object_new ();
      JsonObject *input = json_object_new ();
      g_autofree char *id = g_strdup_printf ("bench_%u", self->n_replies);

      self->remaining--;
      json_object_set_string_member (input, "text", "hello");
      json_object_set_string_member (block, "type", "tool_use");
      json_object_set_string_member (block, "id", id);
      json_object_set_string_member (block, "name", "echo");
      json_object_set_object_member (block, "input", input);
      json_array_add_object_element (content, block);
      reply->stop_reason = g_strdup ("tool_use");
    }
  else
    {
      zot_content_add_text (content, "done");
      reply->stop_reason = g_strdup ("end_turn");
    }
  json_object_set_string_member (message, "role", "assistant");
  json_object_set_array_member (message, "content", content);
  reply->message = message;
  g_task_return_pointer (task, reply, (GDestroyNotify) zot_provider_reply_free);
}

static ZotProviderReply *
bench_loop_provider_stream_finish (ZotProvider   *provider,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
bench_loop_provider_class_init (BenchLoopProviderClass *klass)
{
  ZotProviderClass *provider_class = ZOT_PROVIDER_CLASS (klass);

  provider_class->get_name = bench_loop_provider_get_name;
  provider_class->get_default_model = bench_loop_provider_get_default_model;
  provider_class->stream_async = bench_loop_provider_stream_async;
  provider_class->stream_finish = bench_loop_provider_stream_finish;
}

static void
bench_loop_provider_init (BenchLoopProvider *self)
{
}

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
prompted_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Bench *bench = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *reply = zot_agent_prompt_finish (ZOT_AGENT (object), result, &error);

  if (reply == NULL)
    g_error ("the model path failed: %s", error->message);
  bench->done = TRUE;
}

/* A fresh conversation each time, so that every run sends the same. */
static double
model_run (Bench             *bench,
           BenchLoopProvider *provider)
{
  ZotAgent *agent = zot_host_get_agent (bench->host);
  double start;

  g_autoptr(GPtrArray) none = g_ptr_array_new ();

  zot_session_replace_messages (zot_agent_get_session (agent), none);
  provider->remaining = CALLS;
  bench->done = FALSE;
  start = bench_now ();
  zot_agent_prompt_async (agent, "go", NULL, prompted_cb, bench);
  bench_wait_for (&bench->done, 60, "the model path");
  if (provider->remaining != 0)
    g_error ("the model path made %u calls too few", provider->remaining);
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

/* The spare for the next script starts when a script ends. A model takes
 * longer than that to ask for the next script, so the bench waits for it
 * before and after each timed script, as one would in use, so that it does
 * not start beside what is timed next. */
static void
wait_for_spare (Bench *bench)
{
  double deadline = bench_now () + 30;

  zot_codemode_tool_prestart (bench->tool);
  while (!zot_codemode_tool_has_spare (bench->tool))
    {
      if (bench_now () > deadline)
        g_error ("no spare runtime started");
      g_main_context_iteration (NULL, TRUE);
    }
}

#define SCRIPT \
  "const GLib = (await import('gi://GLib')).default\n" \
  "const start = GLib.get_monotonic_time()\n" \
  "for (let i = 0; i < 100; i++) await tools.echo({text: 'hello'})\n" \
  "return GLib.get_monotonic_time() - start"

static double
script_run (Bench *bench)
{
  g_autofree char *output = NULL;

  wait_for_spare (bench);
  output = run_script (bench, SCRIPT);
  wait_for_spare (bench);

  return g_ascii_strtod (output, NULL) / G_USEC_PER_SEC;
}

/* The floor under all of the above: one byte sent round a chain of
 * @n_processes over pipes, each waiting in poll(2) like the host, the
 * runtime and the extension do. Two processes are the model path's host
 * and extension; three add the script's runtime. Only read, write, poll
 * and _exit run in the children, so forking this threaded program is
 * safe. Returns the median time of one round trip, in seconds. */
static void
ping_wait_read (int fd)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  char byte;

  while (poll (&pfd, 1, -1) < 0 && errno == EINTR)
    ;
  if (read (fd, &byte, 1) != 1)
    _exit (1);
}

static void
ping_write (int fd)
{
  if (write (fd, "x", 1) != 1)
    _exit (1);
}

static double
ping_chain (guint n_processes)
{
  int down[2][2];
  int up[2][2];
  pid_t children[2];
  double rounds[PING_REPS];

  g_assert (n_processes >= 2 && n_processes <= 3);
  for (guint i = 0; i + 1 < n_processes; i++)
    if (pipe (down[i]) != 0 || pipe (up[i]) != 0)
      g_error ("pipe: %s", g_strerror (errno));

  for (guint p = 1; p < n_processes; p++)
    {
      children[p - 1] = fork ();
      if (children[p - 1] < 0)
        g_error ("fork: %s", g_strerror (errno));
      if (children[p - 1] == 0)
        {
          for (guint n = 0; n < PING_REPS * PING_ROUNDS; n++)
            {
              ping_wait_read (down[p - 1][0]);
              if (p + 1 < n_processes)
                {
                  ping_write (down[p][1]);
                  ping_wait_read (up[p][0]);
                }
              ping_write (up[p - 1][1]);
            }
          _exit (0);
        }
    }

  for (guint r = 0; r < PING_REPS; r++)
    {
      double start = bench_now ();

      for (guint n = 0; n < PING_ROUNDS; n++)
        {
          ping_write (down[0][1]);
          ping_wait_read (up[0][0]);
        }
      rounds[r] = (bench_now () - start) / PING_ROUNDS;
    }

  for (guint p = 1; p < n_processes; p++)
    waitpid (children[p - 1], NULL, 0);
  for (guint i = 0; i + 1 < n_processes; i++)
    {
      close (down[i][0]);
      close (down[i][1]);
      close (up[i][0]);
      close (up[i][1]);
    }
  return bench_median (rounds, PING_REPS);
}

static double
first_call (Bench    *bench,
            gboolean  spare)
{
  g_autofree char *output = NULL;
  double start;

  /* A spare ready, so none is starting beside the one timed; without
   * one wanted, it goes. */
  wait_for_spare (bench);
  zot_codemode_tool_set_spare (bench->tool, spare);

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
  double model[REPS];
  double direct[REPS];
  double script[REPS];
  double cold[FIRST_REPS];
  double warm[FIRST_REPS];
  g_autoptr(ZotProvider) demo = NULL;
  g_autoptr(BenchLoopProvider) loop = g_object_new (BENCH_TYPE_LOOP_PROVIDER, NULL);
  ZotAgent *agent;
  double per_model;
  double per_direct;
  double per_script;
  double ping_two;
  double ping_three;

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
  bench.tool = ZOT_CODEMODE_TOOL (zot_tool_registry_lookup (zot_agent_get_registry (zot_host_get_agent (bench.host)),
                                                            ZOT_CODEMODE_TOOL_NAME));

  agent = zot_host_get_agent (bench.host);
  zot_agent_set_max_steps (agent, MODEL_STEPS);
  demo = g_object_ref (zot_agent_get_provider (agent));

  /* Warm every path up once. */
  zot_agent_set_provider (agent, ZOT_PROVIDER (loop));
  model_run (&bench, loop);
  zot_agent_set_provider (agent, demo);
  direct_run (&bench);
  script_run (&bench);

  for (guint i = 0; i < REPS; i++)
    {
      zot_agent_set_provider (agent, ZOT_PROVIDER (loop));
      model[i] = model_run (&bench, loop);
      zot_agent_set_provider (agent, demo);
      direct[i] = direct_run (&bench);
      script[i] = script_run (&bench);
    }
  for (guint i = 0; i < FIRST_REPS; i++)
    {
      cold[i] = first_call (&bench, FALSE);
      warm[i] = first_call (&bench, TRUE);
    }

  ping_two = ping_chain (2);
  ping_three = ping_chain (3);

  per_model = bench_median (model, REPS) / CALLS;
  per_direct = bench_median (direct, REPS) / CALLS;
  per_script = bench_median (script, REPS) / CALLS;

  printf ("%-44s %10.1f µs\n", "model path (a turn per call), per call", per_model * 1e6);
  printf ("%-44s %10.1f µs\n", "tool call path alone, per call", per_direct * 1e6);
  printf ("%-44s %10.1f µs\n", "call from a script, per call", per_script * 1e6);
  printf ("%-44s %10.2f×   target ≤ %.1f× %s\n", "script / model path", per_script / per_model,
          TARGET, bench_verdict (per_script / per_model <= TARGET));
  printf ("%-44s %10.2f×\n", "script / tool call path alone", per_script / per_direct);
  printf ("%-44s %10.1f µs\n", "bare pipe round trip, 2 processes", ping_two * 1e6);
  printf ("%-44s %10.1f µs\n", "bare pipe round trip, 3 processes", ping_three * 1e6);
  printf ("%-44s %10.1f ms\n", "first call, cold runtime (median)", bench_median (cold, FIRST_REPS) * 1e3);
  printf ("%-44s %10.1f ms\n", "first call, spare runtime ready (median)", bench_median (warm, FIRST_REPS) * 1e3);

  g_clear_pointer (&bench.result, zot_tool_result_free);
  zot_host_shutdown_async (bench.host, NULL, stopped_cb, &bench);
  bench_wait_for (&bench.stopped, 10, "the host to stop");
  g_clear_object (&bench.host);
  bench_env_clear (&env);
  return 0;
}
