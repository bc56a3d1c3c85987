/* bench-box.c — a confined extension's start against an unconfined one's.
 *
 * The same trivial extension, once with "permissions" (started in its
 * bubblewrap box) and once without, each loaded by a manager until it
 * is ready: manifest read, process started, hello answered, ready. The
 * two are interleaved in the same run; the figure is the ratio of the
 * medians. Twice: the C echo extension, which starts in about as long as
 * bwrap itself takes to set a box up, and a Python one, as most
 * extensions are, when /usr/bin/python3 is there.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include "bench-common.h"
#include "zot-extension-manager.h"

#define REPS   15
#define TARGET 1.5

static void
add_permissions (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "extension.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *permissions = json_object_new ();

  if (!json_parser_load_from_file (parser, path, &error))
    g_error ("%s: %s", path, error->message);
  json_object_set_string_member (permissions, "filesystem", "project:ro");
  json_object_set_object_member (json_node_get_object (json_parser_get_root (parser)), "permissions", permissions);
  json_generator_set_root (generator, json_parser_get_root (parser));
  if (!json_generator_to_file (generator, path, &error))
    g_error ("%s: %s", path, error->message);
}

#define PYTHON "/usr/bin/python3"
#define PYTHON_MAIN \
  "import sys\n" \
  "print('{\"type\":\"hello\",\"name\":\"%s\",\"version\":\"1.0.0\",\"capabilities\":[]}', flush=True)\n" \
  "print('{\"type\":\"ready\"}', flush=True)\n" \
  "for line in sys.stdin:\n" \
  "    if '\"shutdown\"' in line:\n" \
  "        print('{\"type\":\"shutdown_ack\"}', flush=True)\n" \
  "        break\n"

static char *
make_python (BenchEnv   *env,
             const char *name,
             gboolean    boxed)
{
  g_autofree char *dir = g_build_filename (env->root, "ext", name, NULL);
  g_autofree char *manifest = g_build_filename (dir, "extension.json", NULL);
  g_autofree char *main_py = g_build_filename (dir, "main.py", NULL);
  g_autofree char *json = g_strdup_printf ("{\"name\": \"%s\", \"exec\": \"" PYTHON "\", \"args\": [\"main.py\"]%s}",
                                           name, boxed ? ", \"permissions\": {\"filesystem\": \"project:ro\"}" : "");
  g_autofree char *source = g_strdup_printf (PYTHON_MAIN, name);

  g_mkdir_with_parents (dir, 0700);
  if (!g_file_set_contents (manifest, json, -1, NULL) || !g_file_set_contents (main_py, source, -1, NULL))
    g_error ("cannot write %s", dir);
  return g_steal_pointer (&dir);
}

static double
start_once (BenchEnv   *env,
            const char *dir)
{
  const char *dirs[] = { dir, NULL };
  g_autoptr(ZotExtensionManager) manager = NULL;
  double start = bench_now ();
  double elapsed;

  manager = bench_load_extensions (env, dirs);
  elapsed = bench_now () - start;
  bench_stop_extensions (g_steal_pointer (&manager));
  return elapsed;
}

int
main (int   argc,
      char *argv[])
{
  BenchEnv env = { 0 };
  g_autofree char *open = NULL;
  g_autofree char *boxed = NULL;
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");
  double open_ms[REPS];
  double boxed_ms[REPS];
  double open_median;
  double boxed_median;
  gboolean python = g_file_test (PYTHON, G_FILE_TEST_IS_EXECUTABLE);
  g_autofree char *py_open = NULL;
  g_autofree char *py_boxed = NULL;
  double py_open_ms[REPS];
  double py_boxed_ms[REPS];

  bench_env_init (&env, argv[0]);
  bench_print_header ("bench-box", "one extension until ready: confined in its box vs unconfined");
  if (bwrap == NULL)
    {
      g_print ("bwrap is not installed: nothing to compare (apt install bubblewrap)\n");
      bench_env_clear (&env);
      return 0;
    }

  open = bench_make_extension (&env, "open", NULL);
  boxed = bench_make_extension (&env, "boxed", NULL);
  add_permissions (boxed);

  if (python)
    {
      py_open = make_python (&env, "py-open", FALSE);
      py_boxed = make_python (&env, "py-boxed", TRUE);
      start_once (&env, py_open);
      start_once (&env, py_boxed);
    }

  /* Warm the page cache for both, bwrap included. */
  start_once (&env, open);
  start_once (&env, boxed);

  for (guint r = 0; r < REPS; r++)
    {
      open_ms[r] = start_once (&env, open) * 1e3;
      boxed_ms[r] = start_once (&env, boxed) * 1e3;
      if (python)
        {
          py_open_ms[r] = start_once (&env, py_open) * 1e3;
          py_boxed_ms[r] = start_once (&env, py_boxed) * 1e3;
        }
    }
  open_median = bench_median (open_ms, REPS);
  boxed_median = bench_median (boxed_ms, REPS);

  g_print ("median of %d interleaved runs\n\n", REPS);
  g_print ("%-10s %14s %24s %8s\n", "extension", "unconfined", "confined (project:ro)", "ratio");
  g_print ("%-10s %11.2f ms %21.2f ms %7.2fx\n", "C echo", open_median, boxed_median, boxed_median / open_median);
  if (python)
    {
      double py_open_median = bench_median (py_open_ms, REPS);
      double py_boxed_median = bench_median (py_boxed_ms, REPS);

      g_print ("%-10s %11.2f ms %21.2f ms %7.2fx\n", "Python", py_open_median, py_boxed_median,
               py_boxed_median / py_open_median);
      g_print ("\ntarget: a confined start within %.1fx of an unconfined one: Python %.2fx (%s), C %.2fx (%s)\n",
               TARGET, py_boxed_median / py_open_median, bench_verdict (py_boxed_median / py_open_median <= TARGET),
               boxed_median / open_median, bench_verdict (boxed_median / open_median <= TARGET));
    }
  else
    g_print ("\ntarget: a confined start within %.1fx of an unconfined one: C %.2fx (%s)\n",
             TARGET, boxed_median / open_median, bench_verdict (boxed_median / open_median <= TARGET));

  bench_env_clear (&env);
  return 0;
}
