/* bench-sdk.c - a tool call through each language's SDK against a
 * hand-written loop in the same language.
 *
 * For each sdk/<lang>/bench/{sdk,raw} folder there is (each an extension
 * registering `bench_echo`, which answers a text block equal to its `text`
 * argument), the host's own path calls bench_echo 10,000 times one after
 * the other, then with 64 in flight, and prints the time per call of the
 * SDK, of the raw loop and their ratio. The C raw loop of bench/sdk-raw-c
 * stands in for sdk/c/bench/raw until that exists. In the same run, the
 * host's round trip with bench-echo-extension (what bench-roundtrip calls
 * "zot tool call") is the reference: no extension in any language can
 * answer faster through this host.
 *
 * The folders come from $ZOT_BENCH_SDK_DIRS ("lang/kind=DIR;...", set by
 * bench/meson.build). A Go folder (a go.mod beside the manifest, exec
 * "./NAME") is built first, offline, with $ZOT_BENCH_GO_CACHE.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "bench-common.h"
#include "zot-manifest.h"
#include "zot-tool.h"

#define REPS           3
#define WARMUP         200
#define PIPELINED      64
#define TARGET_RATIO   1.30

static const char * const languages[] = { "c", "go", "python", "node" };

typedef struct
{
  char                *label;
  ZotExtensionManager *manager;
  ZotTool             *tool;
  const char          *cwd;

  /* one run */
  guint                n;
  guint                sent;
  guint                answered;
  guint                in_flight;
  gboolean             done;
  gboolean             checked;
} Subject;

static void start_call (Subject *subject);

static void
call_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Subject *subject = user_data;
  g_autoptr(ZotToolResult) tool_result = zot_tool_execute_finish (ZOT_TOOL (object), result, NULL);

  /* The first answer is read, so that a wrong extension is not timed (the
   * reference's echo answers a text of its own). */
  if (!subject->checked && g_str_equal (zot_tool_get_name (ZOT_TOOL (object)), "bench_echo"))
    {
      JsonObject *block = tool_result != NULL && json_array_get_length (tool_result->content) > 0
                          ? json_array_get_object_element (tool_result->content, 0) : NULL;
      const char *text = block != NULL ? json_object_get_string_member_with_default (block, "text", "") : "";

      if (tool_result == NULL || tool_result->is_error || g_strcmp0 (text, "ping") != 0)
        g_error ("%s: bench_echo did not answer \"ping\" (got \"%s\")", subject->label, text);
      subject->checked = TRUE;
    }

  subject->answered++;
  if (subject->sent < subject->n)
    start_call (subject);
  else if (subject->answered == subject->n)
    subject->done = TRUE;
}

static void
start_call (Subject *subject)
{
  subject->sent++;
  bench_call_tool (subject->tool, subject->cwd, call_done_cb, subject);
}

/* Returns the seconds @n calls took, @in_flight at a time. */
static double
subject_run (Subject *subject,
             guint    in_flight,
             guint    n)
{
  double start;

  subject->n = n;
  subject->sent = subject->answered = 0;
  subject->done = FALSE;

  start = bench_now ();
  for (guint i = 0; i < in_flight && subject->sent < n; i++)
    start_call (subject);
  bench_wait_for (&subject->done, 600, subject->label);
  return bench_now () - start;
}

static gboolean
subject_start (Subject    *subject,
               BenchEnv   *env,
               const char *label,
               const char *dir,
               const char *tool)
{
  const char *dirs[] = { dir, NULL };

  subject->label = g_strdup (label);
  subject->cwd = env->root;
  subject->manager = bench_load_extensions (env, dirs);
  subject->tool = bench_find_tool (subject->manager, tool);
  subject_run (subject, 1, WARMUP);
  return TRUE;
}

static void
subject_stop (Subject *subject)
{
  if (subject->manager != NULL)
    bench_stop_extensions (subject->manager);
  g_clear_object (&subject->tool);
  g_clear_object (&subject->manager);
  g_clear_pointer (&subject->label, g_free);
}

/* The median time per call, in microseconds, of REPS runs of each subject,
 * interleaved so that a change of the machine's load hits them alike. */
static void
measure (Subject **subjects,
         guint     n_subjects,
         guint     in_flight,
         guint     n,
         double   *us_per_call)
{
  double times[8][REPS];

  g_assert (n_subjects <= G_N_ELEMENTS (times));

  for (guint rep = 0; rep < REPS; rep++)
    for (guint s = 0; s < n_subjects; s++)
      times[s][rep] = subject_run (subjects[s], in_flight, n) * 1e6 / n;

  for (guint s = 0; s < n_subjects; s++)
    us_per_call[s] = bench_median (times[s], REPS);
}

/* A Go folder is built where its manifest expects the program. */
static gboolean
build_go (const char *dir,
          GString    *problems)
{
  g_autofree char *go_mod = g_build_filename (dir, "go.mod", NULL);
  g_autofree char *go = NULL;
  g_autofree char *output = NULL;
  g_autofree char *errors = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_get_environ ();
  const char *cache = g_getenv ("ZOT_BENCH_GO_CACHE");
  const char *exec;
  int status = 0;

  if (!g_file_test (go_mod, G_FILE_TEST_IS_REGULAR))
    return TRUE;

  manifest = zot_manifest_new_for_directory (dir, &error);
  go = g_find_program_in_path ("go");
  if (manifest == NULL || go == NULL)
    {
      g_string_append_printf (problems, "  %s: %s\n", dir, go == NULL ? "go is not on PATH" : error->message);
      return FALSE;
    }

  exec = zot_manifest_get_exec (manifest);
  if (cache != NULL)
    {
      g_autofree char *gocache = g_build_filename (cache, "cache", NULL);
      g_autofree char *gopath = g_build_filename (cache, "path", NULL);

      envp = g_environ_setenv (envp, "GOCACHE", gocache, TRUE);
      envp = g_environ_setenv (envp, "GOPATH", gopath, TRUE);
    }
  envp = g_environ_setenv (envp, "GOPROXY", "off", TRUE);
  envp = g_environ_setenv (envp, "GO111MODULE", "on", TRUE);

  {
    const char *argv[] = { go, "build", "-o", exec, ".", NULL };

    if (!g_spawn_sync (dir, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &output, &errors, &status,
                       &error) ||
        !g_spawn_check_wait_status (status, &error))
      {
        g_string_append_printf (problems, "  %s: go build: %s %s\n", dir, error->message,
                                errors != NULL ? errors : "");
        return FALSE;
      }
  }
  return TRUE;
}

/* "lang/kind" → DIR, from $ZOT_BENCH_SDK_DIRS */
static GHashTable *
read_dirs (void)
{
  GHashTable *dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) entries = g_strsplit (g_getenv ("ZOT_BENCH_SDK_DIRS") != NULL
                                      ? g_getenv ("ZOT_BENCH_SDK_DIRS") : "", ";", -1);

  for (guint i = 0; entries[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (entries[i], "=", 2);

      if (pair[0] != NULL && pair[1] != NULL)
        g_hash_table_insert (dirs, g_strdup (pair[0]), g_strdup (pair[1]));
    }
  return dirs;
}

static const char *
usable_dir (GHashTable *dirs,
            const char *lang,
            const char *kind,
            GString    *problems)
{
  g_autofree char *key = g_strdup_printf ("%s/%s", lang, kind);
  const char *dir = g_hash_table_lookup (dirs, key);
  g_autofree char *manifest = NULL;

  if (dir == NULL)
    return NULL;
  manifest = g_build_filename (dir, ZOT_MANIFEST_FILENAME, NULL);
  if (!g_file_test (manifest, G_FILE_TEST_IS_REGULAR))
    return NULL;
  if (g_str_equal (lang, "go") && !build_go (dir, problems))
    return NULL;
  return dir;
}

static void
print_cell (double value)
{
  if (value > 0)
    g_print (" %11.1f", value);
  else
    g_print (" %11s", "-");
}

static void
print_ratio (double sdk,
             double raw)
{
  if (sdk > 0 && raw > 0)
    g_print (" %9.2fx", sdk / raw);
  else
    g_print (" %10s", "-");
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  Subject reference = { 0 };
  g_autoptr(GHashTable) dirs = read_dirs ();
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autoptr(GString) verdicts = g_string_new (NULL);
  g_autofree char *reference_dir = NULL;
  guint n = bench_scaled (10000, 8);
  double reference_us[2];
  gboolean pinned;

  signal (SIGPIPE, SIG_IGN);
  bench_env_init (&env, argv[0]);
  pinned = bench_pin_to_cpu (0);

  bench_print_header ("bench-sdk", "bench_echo through each language's SDK vs a hand-written loop in that "
                      "language");

  reference_dir = bench_make_extension (&env, "bench-reference", NULL);
  subject_start (&reference, &env, "host + bench-echo-extension", reference_dir, "echo");
  {
    Subject *subjects[] = { &reference };

    measure (subjects, 1, 1, n, &reference_us[0]);
    measure (subjects, 1, PIPELINED, n, &reference_us[1]);
  }
  subject_stop (&reference);

  g_print ("%u calls per run, median of %d interleaved runs after %d warm-up calls; us per call through the\n"
           "host's path (zot_tool_execute_async: tool_call out, tool_result parsed); lower is better\n",
           n, REPS, WARMUP);
  g_print ("%s\n\n", pinned ? "this process on CPU 0" : "not pinned: the scheduler places the processes");
  g_print ("%-8s %11s %11s %10s   %11s %11s %10s\n", "language", "raw us", "SDK us", "SDK/raw",
           "raw us @64", "SDK us @64", "SDK/raw");

  for (guint l = 0; l < G_N_ELEMENTS (languages); l++)
    {
      const char *lang = languages[l];
      const char *raw_dir = usable_dir (dirs, lang, "raw", problems);
      const char *sdk_dir = usable_dir (dirs, lang, "sdk", problems);
      Subject raw = { 0 };
      Subject sdk = { 0 };
      Subject *subjects[2];
      guint n_subjects = 0;
      double sequential[2] = { 0, 0 };
      double pipelined[2] = { 0, 0 };
      double raw_seq = 0, sdk_seq = 0, raw_pipe = 0, sdk_pipe = 0;

      if (raw_dir == NULL && sdk_dir == NULL)
        {
          g_print ("%-8s %11s %11s %10s   %11s %11s %10s\n", lang, "-", "-", "-", "-", "-", "-");
          g_string_append_printf (verdicts, "  %s: no sdk/%s/bench folder yet\n", lang, lang);
          continue;
        }

      if (raw_dir != NULL)
        {
          g_autofree char *label = g_strdup_printf ("%s raw loop", lang);

          subject_start (&raw, &env, label, raw_dir, "bench_echo");
          subjects[n_subjects++] = &raw;
        }
      if (sdk_dir != NULL)
        {
          g_autofree char *label = g_strdup_printf ("%s SDK", lang);

          subject_start (&sdk, &env, label, sdk_dir, "bench_echo");
          subjects[n_subjects++] = &sdk;
        }

      measure (subjects, n_subjects, 1, n, sequential);
      measure (subjects, n_subjects, PIPELINED, n, pipelined);

      if (raw_dir != NULL)
        {
          raw_seq = sequential[0];
          raw_pipe = pipelined[0];
        }
      if (sdk_dir != NULL)
        {
          sdk_seq = sequential[n_subjects - 1];
          sdk_pipe = pipelined[n_subjects - 1];
        }

      g_print ("%-8s", lang);
      print_cell (raw_seq);
      print_cell (sdk_seq);
      print_ratio (sdk_seq, raw_seq);
      g_print ("  ");
      print_cell (raw_pipe);
      print_cell (sdk_pipe);
      print_ratio (sdk_pipe, raw_pipe);
      g_print ("\n");

      if (raw_dir != NULL && sdk_dir != NULL)
        g_string_append_printf (verdicts, "  %s: %.2fx one at a time (%s), %.2fx with %d in flight (%s)\n",
                                lang, sdk_seq / raw_seq, bench_verdict (sdk_seq / raw_seq <= TARGET_RATIO),
                                sdk_pipe / raw_pipe, PIPELINED,
                                bench_verdict (sdk_pipe / raw_pipe <= TARGET_RATIO));
      else
        g_string_append_printf (verdicts, "  %s: no %s folder yet, nothing to compare\n", lang,
                                raw_dir == NULL ? "raw" : "SDK");

      subject_stop (&raw);
      subject_stop (&sdk);
    }

  g_print ("\nreference, the host's own round trip (bench-roundtrip's \"zot tool call\", its C echo):\n"
           "  %.1f us per call one at a time, %.1f us with %d in flight\n",
           reference_us[0], reference_us[1], PIPELINED);
  g_print ("target: an SDK's cost per call within %.2fx of its language's raw loop\n%s", TARGET_RATIO,
           verdicts->str);
  if (problems->len > 0)
    g_print ("not measured:\n%s", problems->str);

  bench_env_clear (&env);
  return 0;
}
