/* bench-soak.c — does the host grow over many calls and events?
 *
 * One ZotExtensionManager runs one echo extension that registers the tool
 * "echo", intercepts tool_call, subscribes to every event and
 * acknowledges every ACK_EVERY events with a notify. Through the real core
 * objects, as the agent does: 10,000 tool calls (8 in flight), each
 * intercepted by the extension and then run through its ZotTool, then
 * 100,000 lifecycle events through zot_extension_manager_emit_event, at
 * most WINDOW ahead of the extension's acknowledgements so that its pipe
 * never fills (a consumer that falls too far behind is disconnected by
 * design).
 *
 * After a warm-up of 500 calls and 5,000 events, so that one-time
 * allocations do not count, it prints this process's resident memory
 * (VmRSS) and open file descriptors, after the calls and after the
 * events, and the growth. Like the other benchmarks it never fails on a
 * number.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <signal.h>

#include "bench-common.h"

#define CALLS          10000
#define EVENTS         100000
#define WARMUP_CALLS   500
#define WARMUP_EVENTS  5000
#define IN_FLIGHT      8
#define ACK_EVERY      50
#define WINDOW         200
#define TARGET_GROWTH  5.0

static const char * const event_names[] = {
  "turn_start", "tool_call", "tool_result", "turn_end",
};

typedef struct
{
  guint64 rss_kib;
  guint   fds;
} Usage;

typedef struct
{
  BenchEnv            *env;
  ZotExtensionManager *manager;
  ZotTool             *echo;

  guint                calls_target;
  guint                calls_started;
  guint                calls_done;
  guint                call_errors;

  guint64              events_target;
  guint64              emitted;
  guint64              acked;
  guint                emit_id;

  gboolean             done;
} Soak;

/* Calls */

static void start_call (Soak *soak);

static void
called_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Soak *soak = user_data;
  g_autoptr(ZotToolResult) tool_result = zot_tool_execute_finish (ZOT_TOOL (object), result, NULL);

  if (tool_result == NULL || tool_result->is_error)
    soak->call_errors++;

  soak->calls_done++;
  if (soak->calls_started < soak->calls_target)
    start_call (soak);
  else if (soak->calls_done == soak->calls_target)
    soak->done = TRUE;
}

static void
intercepted_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Soak *soak = user_data;
  g_autoptr(ZotInterception) interception = NULL;

  interception = zot_extension_manager_intercept_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  if (interception == NULL || interception->blocked)
    g_error ("the interception of a call failed");

  bench_call_tool (soak->echo, soak->env->root, called_cb, soak);
}

static void
start_call (Soak *soak)
{
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autofree char *tool_id = g_strdup_printf ("call-%u", soak->calls_started++);

  json_object_set_string_member (payload, "tool_id", tool_id);
  json_object_set_string_member (payload, "tool_name", "echo");
  json_object_set_object_member (payload, "tool_args", json_object_new ());
  zot_extension_manager_intercept_async (soak->manager, "tool_call", payload, NULL,
                                         intercepted_cb, soak);
}

static void
run_calls (Soak  *soak,
           guint  n)
{
  soak->calls_target = n;
  soak->calls_started = 0;
  soak->calls_done = 0;
  soak->done = FALSE;

  while (soak->calls_started < MIN (IN_FLIGHT, n))
    start_call (soak);
  bench_wait_for (&soak->done, 120, "the tool calls");
}

/* Events */

static gboolean
emit_cb (gpointer user_data)
{
  Soak *soak = user_data;

  while (soak->emitted < soak->events_target && soak->emitted - soak->acked < WINDOW)
    {
      g_autoptr(JsonObject) payload = json_object_new ();
      g_autofree char *tool_id = g_strdup_printf ("toolu_%08" G_GUINT64_FORMAT, soak->emitted);

      json_object_set_string_member (payload, "tool_id", tool_id);
      json_object_set_string_member (payload, "tool_name", "read");
      zot_extension_manager_emit_event (soak->manager,
                                        event_names[soak->emitted % G_N_ELEMENTS (event_names)],
                                        payload);
      soak->emitted++;
    }

  /* Until an acknowledgement makes room. */
  soak->emit_id = 0;
  return G_SOURCE_REMOVE;
}

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               Soak                *soak)
{
  if (!g_str_has_prefix (message, "ack "))
    return;

  soak->acked = g_ascii_strtoull (message + 4, NULL, 10);
  if (soak->acked >= soak->events_target)
    soak->done = TRUE;
  else if (soak->emit_id == 0)
    soak->emit_id = g_idle_add (emit_cb, soak);
}

static void
run_events (Soak    *soak,
            guint64  n)
{
  g_assert (n % ACK_EVERY == 0 && soak->acked == soak->emitted);

  soak->events_target = soak->emitted + n;
  soak->done = FALSE;
  soak->emit_id = g_idle_add (emit_cb, soak);
  bench_wait_for (&soak->done, 120, "the extension to acknowledge every event");
}

/* Printing */

static Usage
measure_usage (void)
{
  return (Usage) { .rss_kib = bench_rss_kib (), .fds = bench_open_fds () };
}

static double
growth (guint64 before,
        guint64 after)
{
  return before == 0 ? 0 : 100.0 * ((double) after - (double) before) / (double) before;
}

static void
print_usage (const char  *label,
             const Usage *usage,
             const Usage *before)
{
  g_print ("%-34s %10" G_GUINT64_FORMAT " KiB %+7.2f %%   %4u fds %+7.2f %%\n", label,
           usage->rss_kib, growth (before->rss_kib, usage->rss_kib),
           usage->fds, growth (before->fds, usage->fds));
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  const char *args[] = { "--subscribe", "--ack-every", G_STRINGIFY (ACK_EVERY), NULL };
  g_autofree char *dir = NULL;
  guint calls = bench_scaled (CALLS, IN_FLIGHT);
  guint events = bench_scaled (EVENTS, ACK_EVERY);
  Soak soak = { 0 };
  Usage before;
  Usage after_calls;
  Usage after_events;
  double start = bench_now ();
  double rss_growth;
  double fd_growth;

  signal (SIGPIPE, SIG_IGN);
  bench_env_init (&env, argv[0]);
  bench_print_header ("bench-soak", "many tool calls and lifecycle events through one manager");

  dir = bench_make_extension (&env, "soak", args);
  soak.env = &env;
  soak.manager = bench_load_extensions (&env, (const char *[]) { dir, NULL });
  soak.echo = bench_find_tool (soak.manager, "echo");
  if (!zot_extension_manager_has_interceptors (soak.manager, "tool_call"))
    g_error ("the extension does not intercept tool_call");
  g_signal_connect (soak.manager, "note-added", G_CALLBACK (on_note_added), &soak);

  run_calls (&soak, WARMUP_CALLS);
  run_events (&soak, WARMUP_EVENTS);
  before = measure_usage ();

  run_calls (&soak, calls);
  after_calls = measure_usage ();
  run_events (&soak, events);
  after_events = measure_usage ();

  g_print ("warm-up: %d calls, %d events; then %u calls (%d in flight) and %u events "
           "(%d at most ahead of the extension)\n\n", WARMUP_CALLS, WARMUP_EVENTS, calls,
           IN_FLIGHT, events, WINDOW);
  g_print ("%-34s %14s %9s %8s %9s\n", "", "VmRSS", "growth", "", "growth");
  print_usage ("after the warm-up", &before, &before);
  print_usage ("after the calls", &after_calls, &before);
  print_usage ("after the events", &after_events, &before);
  g_print ("\ncalls that failed: %u\n", soak.call_errors);

  rss_growth = growth (before.rss_kib, after_events.rss_kib);
  fd_growth = growth (before.fds, after_events.fds);
  g_print ("target: under %.0f %% growth: memory %s, descriptors %s\n", TARGET_GROWTH,
           bench_verdict (rss_growth < TARGET_GROWTH), bench_verdict (fd_growth < TARGET_GROWTH));

  bench_stop_extensions (soak.manager);
  g_print ("total time: %.1f s\n", bench_now () - start);

  g_clear_object (&soak.echo);
  g_clear_object (&soak.manager);
  bench_env_clear (&env);
  return 0;
}
