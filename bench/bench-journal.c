/* bench-journal.c - what continuous mode adds to a tool call.
 *
 * A journaled call writes two task entries to the session file, its start
 * before it runs and its result before anyone sees it, each written and
 * fsynced on the session's worker thread while the main loop waits for
 * it (PROTOCOL.md §5). This measures that pair per call, with a result of
 * about 150 bytes, with 1 and 8 calls journaling at once, on the session
 * directory's filesystem ($ZOT_BENCH_DIR, default a temporary directory:
 * the figure is the disk's fsync more than the host's code). Compare with
 * the call_tool rows of bench-roundtrip, which journal nothing.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <glib/gstdio.h>

#include "bench-common.h"
#include "zot-session.h"

#define REPS 5

typedef struct
{
  ZotSession *session;
  guint       target;
  guint       started;
  guint       done;
  guint       in_flight;
  gboolean    finished;
} Journal;

static void journal_next (Journal *journal);

static void
finished_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Journal *journal = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    g_error ("journal: %s", error->message);

  journal->done++;
  journal->in_flight--;
  if (journal->done == journal->target)
    journal->finished = TRUE;
  else
    journal_next (journal);
}

static void
started_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Journal *journal = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) block = json_object_new ();
  g_autoptr(ZotToolResult) tool_result = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autofree char *id = g_strdup_printf ("toolu_%u/k=step-%u", journal->done, journal->done);

  if (!zot_session_append_finish (ZOT_SESSION (object), result, &error))
    g_error ("journal: %s", error->message);

  /* The tool ran here; its result goes to disk before the extension. */
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", "a result of about one hundred and fifty bytes, as the "
                                                "round-trip benchmark sends: 0123456789 0123456789");
  json_array_add_object_element (content, g_steal_pointer (&block));
  tool_result = zot_tool_result_new (content, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
  entry = zot_session_task_finished_entry (id, tool_result);
  zot_session_append_async (journal->session, entry, NULL, finished_cb, journal);
}

static void
journal_next (Journal *journal)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonObject) entry = NULL;
  g_autofree char *id = NULL;

  if (journal->started == journal->target)
    return;

  id = g_strdup_printf ("toolu_%u/k=step-%u", journal->started, journal->started);
  json_object_set_string_member (args, "path", "notes.txt");
  entry = zot_session_task_started_entry (id, "read", args, args, NULL);
  journal->started++;
  journal->in_flight++;
  zot_session_append_async (journal->session, entry, NULL, started_cb, journal);
}

static double
journal_run (const char *dir,
             guint       in_flight,
             guint       n)
{
  g_autofree char *path = g_build_filename (dir, "journal.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  Journal journal = { 0 };
  double start;
  double elapsed;

  g_unlink (path);
  journal.session = zot_session_new (dir, path, &error);
  if (journal.session == NULL)
    g_error ("%s", error->message);
  zot_session_set_continuous (journal.session, TRUE);
  journal.target = n;

  start = bench_now ();
  for (guint i = 0; i < in_flight; i++)
    journal_next (&journal);
  bench_wait_for (&journal.finished, 300, "the journal");
  elapsed = bench_now () - start;

  g_clear_object (&journal.session);
  return elapsed;
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  const char *dir;
  const guint in_flights[] = { 1, 8 };
  guint n = bench_scaled (400, 50);

  bench_env_init (&env, argv[0]);
  dir = g_getenv ("ZOT_BENCH_DIR") != NULL ? g_getenv ("ZOT_BENCH_DIR") : env.root;

  bench_print_header ("bench-journal",
                      "continuous mode: the two journal entries (start, result; each fsynced) of a call");

  g_print ("session file in %s; median of %d runs of %u calls\n\n", dir, REPS, n);
  g_print ("%-10s %12s %12s\n", "in flight", "us per call", "calls/s");
  for (guint i = 0; i < G_N_ELEMENTS (in_flights); i++)
    {
      double runs[REPS];
      double median;

      journal_run (dir, in_flights[i], n / 10 + 1);
      for (guint r = 0; r < REPS; r++)
        runs[r] = journal_run (dir, in_flights[i], n);
      median = bench_median (runs, REPS);
      g_print ("%-10u %12.1f %12.0f\n", in_flights[i], median * 1e6 / n, n / median);
    }

  g_print ("\nEach call writes and fsyncs its start before it runs and its result before the\n"
           "extension sees it; the writes go in order through the session's one worker thread.\n"
           "The figure is what a continuous conversation adds to a call_tool round trip\n"
           "(bench-roundtrip's call_tool rows journal nothing).\n");

  bench_env_clear (&env);
  return 0;
}
