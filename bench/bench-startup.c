/* bench-startup.c — starting 1, 8 and 32 trivial extensions.
 *
 * zot: from zot_extension_manager_load_async to its completion, when every
 * extension has said hello, registered its tool and sent ready (manifests
 * read, logs opened, hello_ack answered). The time load_async itself holds
 * the main loop is shown apart: that is what the window waits for.
 *
 * Baseline, in the same run and interleaved with it: spawning the same
 * binary with GSubprocess in --hello-only mode, all at once, and reading
 * one line from each.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include "bench-common.h"
#include "zot-extension-manager.h"

#define REPS   9
#define TARGET 1.3

/* Baseline */

typedef struct
{
  guint    outstanding;
  gboolean done;
} Spawned;

static void
line_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Spawned *spawned = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object), result, NULL, &error);
  if (line == NULL)
    g_error ("no hello line: %s", error ? error->message : "end of file");

  if (--spawned->outstanding == 0)
    spawned->done = TRUE;
}

static double
baseline_run (BenchEnv  *env,
              GPtrArray *dirs,
              guint      n)
{
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  Spawned spawned = { n, FALSE };
  double start;
  double elapsed;

  start = bench_now ();
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GSubprocessLauncher) launcher = NULL;
      g_autoptr(GError) error = NULL;
      GSubprocess *process;
      GDataInputStream *input;

      launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
      g_subprocess_launcher_set_cwd (launcher, g_ptr_array_index (dirs, i));
      process = g_subprocess_launcher_spawn (launcher, &error, env->echo_path, "--hello-only", NULL);
      if (process == NULL)
        g_error ("cannot start %s: %s", env->echo_path, error->message);

      input = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
      g_data_input_stream_read_line_async (input, G_PRIORITY_DEFAULT, NULL, line_read_cb, &spawned);
      g_ptr_array_add (processes, process);
      g_ptr_array_add (inputs, input);
    }
  bench_wait_for (&spawned.done, 30, "the hello lines");
  elapsed = bench_now () - start;

  /* EOF on stdin ends them. */
  for (guint i = 0; i < n; i++)
    g_output_stream_close (g_subprocess_get_stdin_pipe (g_ptr_array_index (processes, i)), NULL, NULL);
  for (guint i = 0; i < n; i++)
    g_subprocess_wait (g_ptr_array_index (processes, i), NULL, NULL);

  return elapsed;
}

/* zot */

typedef struct
{
  gboolean done;
} Flag;

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Flag *flag = user_data;

  zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  flag->done = TRUE;
}

static void
stopped_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Flag *flag = user_data;

  zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  flag->done = TRUE;
}

static double
zot_run (BenchEnv  *env,
         GPtrArray *dirs,
         guint      n,
         double    *blocked)
{
  g_autoptr(ZotExtensionManager) manager = zot_extension_manager_new ();
  g_autoptr(GPtrArray) paths = g_ptr_array_new ();
  Flag loaded = { FALSE };
  Flag stopped = { FALSE };
  double start;
  double elapsed;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (paths, g_ptr_array_index (dirs, i));
  g_ptr_array_add (paths, NULL);

  zot_extension_manager_set_cwd (manager, env->root);
  zot_extension_manager_set_no_ext (manager, TRUE);
  zot_extension_manager_set_explicit_paths (manager, (const char * const *) paths->pdata);

  start = bench_now ();
  zot_extension_manager_load_async (manager, NULL, loaded_cb, &loaded);
  *blocked = bench_now () - start;
  bench_wait_for (&loaded.done, 30, "the extensions to be ready");
  elapsed = bench_now () - start;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        g_error ("%s is not ready: %s", zot_extension_get_name (extension),
                 zot_extension_get_last_error (extension));
    }

  zot_extension_manager_shutdown_async (manager, NULL, stopped_cb, &stopped);
  bench_wait_for (&stopped.done, 30, "the extensions to stop");

  return elapsed;
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  const guint sizes[] = { 1, 8, 32 };
  double zot_ms[G_N_ELEMENTS (sizes)];
  double blocked_ms[G_N_ELEMENTS (sizes)];
  double base_ms[G_N_ELEMENTS (sizes)];

  bench_env_init (&env, argv[0]);

  bench_print_header ("bench-startup", "N trivial extensions until all are ready vs GSubprocess + one line each");

  for (guint i = 0; i < 32; i++)
    {
      g_autofree char *name = g_strdup_printf ("start-%02u", i);
      g_ptr_array_add (dirs, bench_make_extension (&env, name, NULL));
    }

  /* Warm the page cache and the dynamic loader's view of the binary. */
  baseline_run (&env, dirs, 2);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      double zot[REPS];
      double blocked[REPS];
      double base[REPS];

      for (guint r = 0; r < REPS; r++)
        {
          base[r] = baseline_run (&env, dirs, sizes[s]) * 1e3;
          zot[r] = zot_run (&env, dirs, sizes[s], &blocked[r]) * 1e3;
          blocked[r] *= 1e3;
        }

      zot_ms[s] = bench_median (zot, REPS);
      blocked_ms[s] = bench_median (blocked, REPS);
      base_ms[s] = bench_median (base, REPS);
    }

  g_print ("median of %d interleaved runs; \"load_async returns\" is how long the call itself holds the "
           "main loop\n\n", REPS);
  g_print ("%-11s %22s %18s %21s %8s\n", "extensions", "baseline (GSubprocess)", "zot (all ready)",
           "load_async returns", "ratio");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    g_print ("%-11u %19.2f ms %15.2f ms %18.2f ms %7.2fx\n",
             sizes[s], base_ms[s], zot_ms[s], blocked_ms[s], zot_ms[s] / base_ms[s]);

  g_print ("\ntarget: within %.1fx of spawning the same programs with GSubprocess and reading one line\n",
           TARGET);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    g_print ("  %2u extensions: %.2fx (%s)\n", sizes[s], zot_ms[s] / base_ms[s],
             bench_verdict (zot_ms[s] / base_ms[s] <= TARGET));

  bench_env_clear (&env);
  return 0;
}
