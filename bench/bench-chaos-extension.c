/* bench-chaos-extension.c — an extension killed or stopped with calls pending.
 *
 * One ZotExtensionManager runs two extensions: "held", whose tool "hold"
 * never answers (it only says that each call arrived), and "spare", an
 * ordinary echo extension.
 *
 * a. SIGKILL, 20 times: 8 calls to "hold" are in flight when the process
 *    is killed. Measured: the time from the kill until every one of them
 *    has failed, and until the manager reports the crash. Then the manager
 *    must still serve a call to "spare", and "held" is restarted through
 *    the manager for the next run.
 *
 * b. SIGSTOP, 5 rounds, with the tool deadline shortened to 500 ms in this
 *    process: 8 calls pending when the process is stopped and 8 more made
 *    25 ms apart while it is, so that their deadlines fall one after the
 *    other. Measured: how late each deadline fired, and the longest gap
 *    between the ticks of a 10 ms timeout on the same main loop, while a
 *    call to "spare" is served. Then SIGCONT, and once the extension has
 *    read every call, the next round; at the end the manager stops both
 *    extensions the ordinary way.
 *
 * Like the other benchmarks it prints figures and never fails on them.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-common.h"
#include "zot-limits-private.h"

#define KILL_RUNS         20
#define STOP_ROUNDS       5
#define IN_FLIGHT         8
#define STAGGER_MS        25
#define DEADLINE_MS       500
#define TICK_MS           10
#define KILL_TARGET_S     1.0
#define LATE_S            0.05

typedef struct
{
  BenchEnv            *env;
  ZotExtensionManager *manager;
  ZotTool             *hold;
  guint64              sent;         /* calls made to this "held" process */
  guint64              held;         /* calls it said had arrived */
  guint64              wanted;       /* bench_wait_for: held == wanted */
  gboolean             arrived;
  guint                restarts;
  guint                freed;        /* "held" objects finalized after a restart */
  guint                fds_loaded;   /* open descriptors with both extensions ready */
  guint                fds_before_stop;
  gboolean             crashed;
  double               crashed_at;
  gboolean             spare_done;
  gboolean             spare_served;

  /* One batch of calls to "hold" */
  guint                expected;
  guint                finished;
  guint                failed;       /* FAILED in a, TIMED_OUT in b */
  double               last;
  GArray              *lateness;     /* seconds past each deadline */
  gboolean             done;

  /* b: the ticking timeout and the staggered calls */
  double               last_tick;
  double               longest_gap;
  guint                to_stagger;
} Chaos;

typedef struct
{
  Chaos  *chaos;
  double  due;
} Call;

/* The pid of our child started with --name @name. */
static GPid
find_extension_pid (const char *name)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/task/%d/children", getpid ());
  g_autofree char *wanted = g_strdup_printf (" --name %s ", name);
  g_autofree char *children = NULL;
  g_auto(GStrv) pids = NULL;

  if (!g_file_get_contents (path, &children, NULL, NULL))
    g_error ("cannot read %s", path);

  pids = g_strsplit (g_strstrip (children), " ", -1);
  for (guint i = 0; pids[i] != NULL; i++)
    {
      g_autofree char *cmdline_path = g_strdup_printf ("/proc/%s/cmdline", pids[i]);
      g_autofree char *cmdline = NULL;
      gsize length = 0;

      if (!g_file_get_contents (cmdline_path, &cmdline, &length, NULL))
        continue;
      /* The arguments end with NULs: make them one line. */
      for (gsize j = 0; j < length; j++)
        if (cmdline[j] == '\0')
          cmdline[j] = ' ';
      if (strstr (cmdline, wanted) != NULL)
        return (GPid) atoi (pids[i]);
    }

  g_error ("no child process runs the extension %s", name);
}

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               Chaos               *chaos)
{
  if (g_str_has_prefix (message, "held "))
    chaos->held = g_ascii_strtoull (message + 5, NULL, 10);
  chaos->arrived = chaos->held >= chaos->wanted;
}

static void
on_extension_crashed (ZotExtensionManager *manager,
                      ZotExtension        *extension,
                      const char          *message,
                      Chaos               *chaos)
{
  chaos->crashed = TRUE;
  chaos->crashed_at = bench_now ();
}

/* Waits until "held" has said that every call made so far arrived. */
static void
wait_until_held (Chaos *chaos)
{
  chaos->wanted = chaos->sent;
  chaos->arrived = chaos->held >= chaos->wanted;
  bench_wait_for (&chaos->arrived, 10, "the held calls to arrive");
}

static void
batch_reset (Chaos *chaos,
             guint  expected)
{
  chaos->expected = expected;
  chaos->finished = 0;
  chaos->failed = 0;
  chaos->done = FALSE;
}

static void
held_call_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autofree Call *call = user_data;
  Chaos *chaos = call->chaos;
  g_autoptr(ZotToolResult) tool_result = zot_tool_execute_finish (ZOT_TOOL (object), result, NULL);
  ZotToolOutcome wanted = call->due > 0 ? ZOT_TOOL_OUTCOME_TIMED_OUT : ZOT_TOOL_OUTCOME_FAILED;

  chaos->last = bench_now ();
  if (tool_result != NULL && tool_result->is_error && tool_result->outcome == wanted)
    chaos->failed++;
  if (call->due > 0)
    {
      double late = chaos->last - call->due;
      g_array_append_val (chaos->lateness, late);
    }

  chaos->done = ++chaos->finished == chaos->expected;
}

/* @deadline_ms: what the tool's deadline is, or 0 when it does not count */
static void
call_held (Chaos *chaos,
           guint  deadline_ms)
{
  Call *call = g_new0 (Call, 1);

  call->chaos = chaos;
  if (deadline_ms > 0)
    call->due = bench_now () + deadline_ms / 1e3;
  chaos->sent++;
  bench_call_tool (chaos->hold, chaos->env->root, held_call_cb, call);
}

static void
spare_call_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(ZotToolResult) tool_result = zot_tool_execute_finish (ZOT_TOOL (object), result, NULL);
  Chaos *chaos = user_data;

  chaos->spare_served = tool_result != NULL && !tool_result->is_error;
  chaos->spare_done = TRUE;
}

/* Whether the manager served a call to "spare"; its time in @seconds. */
static gboolean
call_spare (Chaos  *chaos,
            double *seconds)
{
  g_autoptr(ZotTool) echo = bench_find_tool (chaos->manager, "echo");
  double start = bench_now ();

  chaos->spare_done = FALSE;
  bench_call_tool (echo, chaos->env->root, spare_call_cb, chaos);
  bench_wait_for (&chaos->spare_done, 30, "the call to \"spare\"");
  *seconds = bench_now () - start;
  return chaos->spare_served;
}

static void
restarted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  zot_extension_manager_restart_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

static void
freed_cb (gpointer  data,
          GObject  *where_the_object_was)
{
  (*(guint *) data)++;
}

static void
restart_held (Chaos *chaos)
{
  ZotExtension *held = zot_extension_manager_find (chaos->manager, "held");
  gboolean restarted = FALSE;

  g_object_weak_ref (G_OBJECT (held), freed_cb, &chaos->freed);
  chaos->restarts++;

  zot_extension_manager_restart_async (chaos->manager, held, NULL, restarted_cb, &restarted);
  bench_wait_for (&restarted, 30, "\"held\" to restart");

  g_clear_object (&chaos->hold);
  chaos->hold = bench_find_tool (chaos->manager, "hold");
  chaos->sent = 0;
  chaos->held = 0;
}

static void
print_seconds (const char   *label,
               const double *values,
               guint         n)
{
  double min = values[0];
  double max = values[0];

  for (guint i = 1; i < n; i++)
    {
      min = MIN (min, values[i]);
      max = MAX (max, values[i]);
    }
  g_print ("%s min %.2f ms, median %.2f ms, max %.2f ms\n", label,
           min * 1e3, bench_median (values, n) * 1e3, max * 1e3);
}

/* a: SIGKILL */

static void
kill_runs (Chaos *chaos,
           guint  runs)
{
  g_autofree double *seconds = g_new0 (double, runs);
  g_autofree double *crash_seconds = g_new0 (double, runs);
  g_autofree double *spare_seconds = g_new0 (double, runs);
  guint all_failed = 0;
  guint served = 0;
  guint slow = 0;

  for (guint r = 0; r < runs; r++)
    {
      GPid pid;
      double killed_at;

      batch_reset (chaos, IN_FLIGHT);
      for (guint i = 0; i < IN_FLIGHT; i++)
        call_held (chaos, 0);
      wait_until_held (chaos);

      chaos->crashed = FALSE;
      pid = find_extension_pid ("held");
      killed_at = bench_now ();
      kill (pid, SIGKILL);
      bench_wait_for (&chaos->done, 30, "the pending calls to fail");
      bench_wait_for (&chaos->crashed, 30, "the crash to be reported");

      seconds[r] = chaos->last - killed_at;
      crash_seconds[r] = chaos->crashed_at - killed_at;
      slow += seconds[r] > KILL_TARGET_S;
      all_failed += chaos->failed == IN_FLIGHT;
      served += call_spare (chaos, &spare_seconds[r]);
      restart_held (chaos);
    }

  g_print ("a. SIGKILL with %d calls in flight, %u runs\n", IN_FLIGHT, runs);
  print_seconds ("   kill to every pending call failed:", seconds, runs);
  g_print ("   runs over %.0f s: %u (target: all under %.0f s: %s)\n", KILL_TARGET_S, slow,
           KILL_TARGET_S, bench_verdict (slow == 0));
  g_print ("   runs whose %d calls all failed as FAILED: %u of %u\n", IN_FLIGHT, all_failed, runs);
  print_seconds ("   kill to the crash reported:", crash_seconds, runs);
  g_print ("   the same manager then served a call to another extension: %u of %u\n", served, runs);
  print_seconds ("   that call:", spare_seconds, runs);
  g_print ("   killed extensions' objects freed once restarted: %u of %u\n", chaos->freed, chaos->restarts);
  g_print ("\n");
}

/* b: SIGSTOP */

static gboolean
tick_cb (gpointer user_data)
{
  Chaos *chaos = user_data;
  double now = bench_now ();

  chaos->longest_gap = MAX (chaos->longest_gap, now - chaos->last_tick);
  chaos->last_tick = now;
  return G_SOURCE_CONTINUE;
}

static gboolean
set_flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The longest gap between ticks over @ms of a main loop with nothing
 * else to do: what the timeout itself allows on this machine. */
static double
idle_tick_gap (Chaos *chaos,
               guint  ms)
{
  gboolean over = FALSE;
  guint tick_id;

  chaos->longest_gap = 0;
  chaos->last_tick = bench_now ();
  tick_id = g_timeout_add (TICK_MS, tick_cb, chaos);
  g_timeout_add (ms, set_flag_cb, &over);
  bench_wait_for (&over, 10, "the idle ticks");
  g_source_remove (tick_id);
  return chaos->longest_gap;
}

static gboolean
stagger_cb (gpointer user_data)
{
  Chaos *chaos = user_data;

  call_held (chaos, DEADLINE_MS);
  return --chaos->to_stagger > 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
stop_rounds (Chaos *chaos,
             guint  rounds)
{
  guint tick_id;
  guint expired = 0;
  guint early = 0;
  guint late = 0;
  guint served = 0;
  double spare_max = 0;
  double idle_gap = idle_tick_gap (chaos, 1000);
  double stop_seconds;
  double start;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, DEADLINE_MS);
  chaos->lateness = g_array_new (FALSE, FALSE, sizeof (double));
  chaos->longest_gap = 0;
  chaos->last_tick = bench_now ();
  tick_id = g_timeout_add (TICK_MS, tick_cb, chaos);

  for (guint r = 0; r < rounds; r++)
    {
      GPid pid = find_extension_pid ("held");
      double spare_seconds;

      batch_reset (chaos, 2 * IN_FLIGHT);
      for (guint i = 0; i < IN_FLIGHT; i++)
        call_held (chaos, DEADLINE_MS);
      wait_until_held (chaos);

      kill (pid, SIGSTOP);
      chaos->to_stagger = IN_FLIGHT;
      g_timeout_add (STAGGER_MS, stagger_cb, chaos);
      served += call_spare (chaos, &spare_seconds);
      spare_max = MAX (spare_max, spare_seconds);
      bench_wait_for (&chaos->done, 30, "the deadlines of the stopped extension");
      expired += chaos->failed;

      kill (pid, SIGCONT);
      wait_until_held (chaos);
    }

  g_source_remove (tick_id);
  for (guint i = 0; i < chaos->lateness->len; i++)
    {
      double value = g_array_index (chaos->lateness, double, i);

      early += value < 0;
      late += value > LATE_S;
    }

  g_print ("b. SIGSTOP with calls pending, a %d ms tool deadline, %u rounds of %d calls\n",
           DEADLINE_MS, rounds, 2 * IN_FLIGHT);
  g_print ("   calls that ended TIMED_OUT: %u of %u\n", expired, chaos->lateness->len);
  print_seconds ("   deadline lateness (fire time - deadline):",
                 (double *) (void *) chaos->lateness->data, chaos->lateness->len);
  g_print ("   fired early: %u; more than %.0f ms late: %u\n", early, LATE_S * 1e3, late);
  g_print ("   longest gap between the ticks of a %d ms timeout: %.2f ms (%.2f ms over 1 s of an idle loop)\n",
           TICK_MS, chaos->longest_gap * 1e3, idle_gap * 1e3);
  g_print ("   a call to the other extension while stopped: served %u of %u, the slowest %.2f ms\n",
           served, rounds, spare_max * 1e3);

  chaos->fds_before_stop = bench_open_fds ();
  start = bench_now ();
  bench_stop_extensions (chaos->manager);
  stop_seconds = bench_now () - start;
  g_print ("   after SIGCONT, the manager stopped both extensions in %.1f ms; \"held\" %s\n",
           stop_seconds * 1e3,
           zot_extension_state_to_string (zot_extension_get_state (
             zot_extension_manager_find (chaos->manager, "held"))));

  g_clear_pointer (&chaos->lateness, g_array_unref);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 0);
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  const char *hold_args[] = { "--hold", NULL };
  g_autofree char *held_dir = NULL;
  g_autofree char *spare_dir = NULL;
  Chaos chaos = { 0 };
  double start = bench_now ();
  guint manager_freed = 0;

  signal (SIGPIPE, SIG_IGN);
  bench_env_init (&env, argv[0]);
  bench_print_header ("bench-chaos-extension", "an extension killed or stopped with calls pending");

  held_dir = bench_make_extension (&env, "held", hold_args);
  spare_dir = bench_make_extension (&env, "spare", NULL);
  chaos.env = &env;
  chaos.manager = bench_load_extensions (&env, (const char *[]) { held_dir, spare_dir, NULL });
  chaos.hold = bench_find_tool (chaos.manager, "hold");
  chaos.fds_loaded = bench_open_fds ();
  g_signal_connect (chaos.manager, "note-added", G_CALLBACK (on_note_added), &chaos);
  g_signal_connect (chaos.manager, "extension-crashed", G_CALLBACK (on_extension_crashed), &chaos);

  kill_runs (&chaos, bench_scaled (KILL_RUNS, 1));
  stop_rounds (&chaos, bench_scaled (STOP_ROUNDS, 1));

  g_clear_object (&chaos.hold);
  g_object_weak_ref (G_OBJECT (chaos.manager), freed_cb, &manager_freed);
  g_clear_object (&chaos.manager);
  g_print ("\nopen descriptors of this process with both extensions running: %u at first, %u at the end\n",
           chaos.fds_loaded, chaos.fds_before_stop);
  g_print ("the manager was %s once released\n", manager_freed ? "freed" : "NOT FREED");
  g_print ("total time: %.1f s\n", bench_now () - start);
  bench_env_clear (&env);
  return 0;
}
