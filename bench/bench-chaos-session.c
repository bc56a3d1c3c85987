/* bench-chaos-session.c — killing zot in the middle of a run, 100 times.
 *
 * Each run starts the real `zot` binary in print mode on the demo model,
 * with --session FILE and a prompt that makes four tool calls (one of them
 * takes 0.1 s, so calls wait for their results for part of the run), and
 * sends it SIGKILL at a moment spread over the length of a normal run,
 * measured first. Then the file is loaded with zot_session_open(), as
 * --continue would: every file must load, and after loading every tool
 * call must have its result in the message right after it.
 *
 * Like the other benchmarks it prints figures and never fails on them:
 * how many runs were killed before they finished, how many in the middle
 * of a write (a torn last line), how many files loaded, how many needed
 * mending and how, and how many were whole after loading.
 *
 * A child that zot had just forked, and that had not yet started its
 * program, still shares the descriptor that holds the session's lock, so
 * the file can stay locked a moment after zot itself was reaped. This
 * process is the subreaper of zot's children: a load refused as locked
 * is counted, then tried again once every one of them has ended.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "bench-common.h"
#include "zot-message.h"
#include "zot-session.h"

#define RUNS           100
#define NORMAL_RUNS    3
#define RUN_TIMEOUT_S  30
/* Stop starting runs after this long, so the whole stays under a minute. */
#define BUDGET_S       50

static const char *prompt =
  "tool: bash {\"command\":\"echo one\"}\n"
  "tool: write {\"path\":\"notes.txt\",\"content\":\"chaos\"}\n"
  "tool: bash {\"command\":\"sleep 0.1; echo two\"}\n"
  "tool: read {\"path\":\"notes.txt\"}";

typedef struct
{
  guint runs;
  guint killed;          /* ended by the SIGKILL, not on their own */
  guint torn;            /* the file ended in part of a line */
  guint no_file;         /* killed before the first write */
  guint held;            /* still locked by a child when zot was reaped */
  guint loaded;
  guint mended;          /* loading had something to say */
  guint interrupted;     /* runs with calls marked interrupted */
  guint interrupted_calls;
  guint skipped;         /* runs with lines skipped */
  guint whole;           /* every call answered after loading */
} Tally;

/* Running zot */

typedef struct
{
  gboolean done;
  gboolean killed;
} Run;

static void
waited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GSubprocess *process = G_SUBPROCESS (object);
  Run *run = user_data;

  g_subprocess_wait_finish (process, result, NULL);
  run->killed = g_subprocess_get_if_signaled (process) &&
                g_subprocess_get_term_sig (process) == SIGKILL;
  run->done = TRUE;
}

static gboolean
kill_cb (gpointer data)
{
  /* Race-free: a process that has ended is not signalled. */
  g_subprocess_send_signal (G_SUBPROCESS (data), SIGKILL);
  return G_SOURCE_REMOVE;
}

/* Runs zot with its session in @path, killed after @kill_ms unless that
 * is 0; returns how long it ran, in seconds. */
static double
run_zot (const char *zot,
         const char *cwd,
         const char *path,
         guint       kill_ms,
         gboolean   *killed)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) kill_source = NULL;
  Run run = { 0 };
  double start;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_cwd (launcher, cwd);

  start = bench_now ();
  process = g_subprocess_launcher_spawn (launcher, &error, zot, "--provider", "demo", "--no-ext",
                                         "--session", path, "-p", prompt, NULL);
  if (process == NULL)
    g_error ("cannot start %s: %s", zot, error->message);

  g_subprocess_wait_async (process, NULL, waited_cb, &run);
  if (kill_ms > 0)
    {
      kill_source = g_timeout_source_new (kill_ms);
      g_source_set_priority (kill_source, G_PRIORITY_HIGH);
      g_source_set_callback (kill_source, kill_cb, g_object_ref (process), g_object_unref);
      g_source_attach (kill_source, NULL);
    }
  bench_wait_for (&run.done, RUN_TIMEOUT_S, "zot to end");

  if (kill_source != NULL)
    g_source_destroy (kill_source);
  if (killed != NULL)
    *killed = run.killed;
  return bench_now () - start;
}

/* Checking the file */

static gboolean
ends_torn (const char *path)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &contents, &length, NULL))
    return FALSE;
  return length > 0 && contents[length - 1] != '\n';
}

static JsonArray *
get_content (JsonObject *message)
{
  return json_object_get_array_member (message, "content");
}

/* The ids of the tool_use blocks of @message. */
static GPtrArray *
get_call_ids (JsonObject *message)
{
  GPtrArray *ids = g_ptr_array_new ();
  JsonArray *content = get_content (message);

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = json_array_get_object_element (content, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (block, "type", NULL), "tool_use") == 0)
        g_ptr_array_add (ids, (gpointer) json_object_get_string_member_with_default (block, "id", ""));
    }

  return ids;
}

/* Whether @results (the next message, or NULL) answers the calls of
 * @message, one result each, in order; counts the interrupted ones. */
static gboolean
answers_calls (JsonObject *message,
               JsonObject *results,
               guint      *interrupted)
{
  g_autoptr(GPtrArray) ids = get_call_ids (message);
  JsonArray *answers;

  if (ids->len == 0)
    return TRUE;
  if (results == NULL || g_strcmp0 (zot_message_get_role (results), "tool") != 0)
    return FALSE;

  answers = get_content (results);
  if (json_array_get_length (answers) != ids->len)
    return FALSE;

  for (guint i = 0; i < ids->len; i++)
    {
      JsonObject *result = json_array_get_object_element (answers, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (result, "tool_use_id", NULL),
                     g_ptr_array_index (ids, i)) != 0)
        return FALSE;
      if (json_object_get_boolean_member_with_default (result, "interrupted", FALSE))
        (*interrupted)++;
    }

  return TRUE;
}

static gboolean
all_calls_answered (GPtrArray *messages,
                    guint     *interrupted)
{
  for (guint i = 0; i < messages->len; i++)
    {
      JsonObject *message = g_ptr_array_index (messages, i);
      JsonObject *next = i + 1 < messages->len ? g_ptr_array_index (messages, i + 1) : NULL;

      if (g_strcmp0 (zot_message_get_role (message), "assistant") == 0 &&
          !answers_calls (message, next, interrupted))
        return FALSE;
    }

  return TRUE;
}

static gboolean
has_warning (ZotSession *session,
             const char *start)
{
  const char * const *warnings = zot_session_get_warnings (session);

  for (guint i = 0; warnings[i] != NULL; i++)
    if (g_str_has_prefix (warnings[i], start))
      return TRUE;
  return FALSE;
}

/* Waits for every orphaned child of zot to end; they are ours to reap. */
static void
reap_orphans (void)
{
  for (;;)
    {
      if (waitpid (-1, NULL, 0) > 0 || errno == EINTR)
        continue;
      break;
    }
}

static ZotSession *
open_session (const char  *path,
              Tally       *tally,
              GError     **error)
{
  ZotSession *session = zot_session_open (path, error);

  if (session != NULL || !g_error_matches (*error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED))
    return session;

  tally->held++;
  g_clear_error (error);
  reap_orphans ();
  return zot_session_open (path, error);
}

static void
check_file (const char *path,
            Tally      *tally)
{
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  guint interrupted = 0;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      tally->no_file++;
      return;
    }

  if (ends_torn (path))
    tally->torn++;

  session = open_session (path, tally, &error);
  if (session == NULL)
    {
      g_printerr ("did not load: %s\n", error->message);
      return;
    }

  tally->loaded++;
  if (zot_session_get_warnings (session)[0] != NULL)
    tally->mended++;
  if (has_warning (session, "skipped"))
    tally->skipped++;
  if (all_calls_answered (zot_session_get_messages (session), &interrupted))
    tally->whole++;
  if (interrupted > 0)
    tally->interrupted++;
  tally->interrupted_calls += interrupted;
}

/* The runs */

static double
measure_normal_run (const char *zot,
                    const char *cwd,
                    const char *dir)
{
  double seconds[NORMAL_RUNS];

  for (guint i = 0; i < NORMAL_RUNS; i++)
    {
      g_autofree char *name = g_strdup_printf ("normal-%u.jsonl", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      seconds[i] = run_zot (zot, cwd, path, 0, NULL);
      reap_orphans ();
    }

  return bench_median (seconds, NORMAL_RUNS);
}

static void
print_tally (const Tally *tally,
             double       elapsed)
{
  g_print ("runs:                                   %u\n", tally->runs);
  g_print ("killed before they finished:            %u\n", tally->killed);
  g_print ("killed in the middle of a write (torn): %u\n", tally->torn);
  g_print ("no session file yet:                    %u\n", tally->no_file);
  g_print ("still locked by a child of the dead zot: %u (loaded once it ended)\n", tally->held);
  g_print ("sessions that loaded:                   %u of %u\n", tally->loaded,
           tally->runs - tally->no_file);
  g_print ("needed mending:                         %u\n", tally->mended);
  g_print ("  with calls marked interrupted:        %u (%u calls)\n", tally->interrupted,
           tally->interrupted_calls);
  g_print ("  with lines skipped:                   %u\n", tally->skipped);
  g_print ("  with a torn last line dropped:        %u\n", tally->torn);
  g_print ("every call answered after loading:      %u of %u\n", tally->whole, tally->loaded);
  g_print ("\ntotal time: %.1f s\n", elapsed);
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  g_autofree char *zot = NULL;
  g_autofree char *cwd = NULL;
  g_autofree char *dir = NULL;
  guint runs = bench_scaled (RUNS, 1);
  Tally tally = { 0 };
  double start = bench_now ();
  double normal;

  bench_env_init (&env, argv[0]);
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) != 0)
    g_printerr ("cannot become the subreaper of zot's children: %s\n", g_strerror (errno));
  zot = bench_find_program (argv[0], "ZOT_BENCH_ZOT", "../src/zot");
  if (!g_file_test (zot, G_FILE_TEST_IS_EXECUTABLE))
    g_error ("the zot binary %s is missing; set ZOT_BENCH_ZOT", zot);

  cwd = g_build_filename (env.root, "project", NULL);
  dir = g_build_filename (env.root, "sessions", NULL);
  g_mkdir_with_parents (cwd, 0700);
  g_mkdir_with_parents (dir, 0700);

  bench_print_header ("bench-chaos-session", "zot -p killed with SIGKILL mid-run, then its session loaded");

  normal = measure_normal_run (zot, cwd, dir);
  g_print ("a normal run: %.0f ms (median of %d); kill times spread evenly over it\n\n",
           normal * 1e3, NORMAL_RUNS);

  for (guint i = 0; i < runs && bench_now () - start < BUDGET_S; i++)
    {
      g_autofree char *name = g_strdup_printf ("run-%03u.jsonl", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      guint kill_ms = MAX (1, (guint) (normal * 1e3 * (i + 0.5) / runs));
      gboolean killed = FALSE;

      run_zot (zot, cwd, path, kill_ms, &killed);
      tally.runs++;
      if (killed)
        tally.killed++;
      check_file (path, &tally);
      reap_orphans ();
    }

  print_tally (&tally, bench_now () - start);
  bench_env_clear (&env);
  return 0;
}
