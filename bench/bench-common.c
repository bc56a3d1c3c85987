#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bench-common.h"

static int
remove_entry (const char        *path,
              const struct stat *sb,
              int                flag,
              struct FTW        *ftwbuf)
{
  if (g_remove (path) < 0)
    g_printerr ("bench: cannot remove %s: %s\n", path, g_strerror (errno));
  return 0;
}

/**
 * bench_find_program:
 * @program: argv[0]
 * @variable: the environment variable meson sets to the program's path
 * @relative: where it is from this benchmark's directory in the build
 *
 * Returns: (transfer full): the path of a program of the build, such as
 *   the echo extension or `zot`, for a run by meson or by hand
 */
char *
bench_find_program (const char *program,
                    const char *variable,
                    const char *relative)
{
  const char *env = g_getenv (variable);
  g_autofree char *self = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  self = g_file_read_link ("/proc/self/exe", NULL);
  dir = g_path_get_dirname (self != NULL ? self : program);
  path = g_build_filename (dir, relative, NULL);
  return g_canonicalize_filename (path, NULL);
}

void
bench_env_init (BenchEnv   *env,
                const char *program)
{
  g_autoptr(GError) error = NULL;

  env->echo_path = bench_find_program (program, "ZOT_BENCH_ECHO_EXTENSION", "bench-echo-extension");
  if (!g_file_test (env->echo_path, G_FILE_TEST_IS_EXECUTABLE))
    g_error ("the echo extension %s is missing; set ZOT_BENCH_ECHO_EXTENSION", env->echo_path);

  env->root = g_dir_make_tmp ("zot-bench-XXXXXX", &error);
  if (env->root == NULL)
    g_error ("cannot make a temporary directory: %s", error->message);

  env->home = g_build_filename (env->root, "home", NULL);
  g_mkdir_with_parents (env->home, 0700);
  g_setenv ("ZOT_HOME", env->home, TRUE);
}

void
bench_env_clear (BenchEnv *env)
{
  if (env->root != NULL)
    nftw (env->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

  g_clear_pointer (&env->root, g_free);
  g_clear_pointer (&env->home, g_free);
  g_clear_pointer (&env->echo_path, g_free);
}

/* Writes ROOT/ext/NAME/extension.json running the echo extension as NAME
 * with @args, and returns the directory. */
char *
bench_make_extension (BenchEnv           *env,
                      const char         *name,
                      const char * const *args)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_build_filename (env->root, "ext", name, NULL);
  g_autofree char *path = g_build_filename (dir, "extension.json", NULL);
  g_autofree char *json = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "exec");
  json_builder_add_string_value (builder, env->echo_path);
  json_builder_set_member_name (builder, "args");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "--name");
  json_builder_add_string_value (builder, name);
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    json_builder_add_string_value (builder, args[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json = json_generator_to_data (generator, NULL);

  g_mkdir_with_parents (dir, 0700);
  if (!g_file_set_contents (path, json, -1, &error))
    g_error ("cannot write %s: %s", path, error->message);

  return g_steal_pointer (&dir);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

static void
stopped_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

/* A manager running the extensions of @dirs (from bench_make_extension()),
 * every one of them ready. */
ZotExtensionManager *
bench_load_extensions (BenchEnv           *env,
                       const char * const *dirs)
{
  g_autoptr(ZotExtensionManager) manager = zot_extension_manager_new ();
  gboolean loaded = FALSE;
  guint n;

  zot_extension_manager_set_cwd (manager, env->root);
  zot_extension_manager_set_no_ext (manager, TRUE);
  zot_extension_manager_set_explicit_paths (manager, dirs);
  zot_extension_manager_load_async (manager, NULL, loaded_cb, &loaded);
  bench_wait_for (&loaded, 30, "the extensions to load");

  n = g_list_model_get_n_items (G_LIST_MODEL (manager));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        g_error ("%s did not start: %s", zot_extension_get_name (extension),
                 zot_extension_get_last_error (extension));
    }

  return g_steal_pointer (&manager);
}

void
bench_stop_extensions (ZotExtensionManager *manager)
{
  gboolean stopped = FALSE;

  zot_extension_manager_shutdown_async (manager, NULL, stopped_cb, &stopped);
  bench_wait_for (&stopped, 30, "the extensions to stop");
}

/* Returns: (transfer full): the tool @name of a ready extension */
ZotTool *
bench_find_tool (ZotExtensionManager *manager,
                 const char          *name)
{
  g_autoptr(GPtrArray) tools = zot_extension_manager_list_tools (manager);

  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (zot_tool_get_name (g_ptr_array_index (tools, i)), name))
      return g_object_ref (g_ptr_array_index (tools, i));

  g_error ("no ready extension has the tool %s", name);
}

/* Calls @tool with {"text":"ping"} as the agent would, outside a window;
 * @callback calls zot_tool_execute_finish(). */
void
bench_call_tool (ZotTool             *tool,
                 const char          *cwd,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  static guint64 calls;
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *call_id = g_strdup_printf ("call-%" G_GUINT64_FORMAT, ++calls);
  ZotToolContext context = { .cwd = cwd, .call_id = call_id, .interactive = FALSE };

  json_object_set_string_member (args, "text", "ping");
  zot_tool_execute_async (tool, args, &context, NULL, callback, user_data);
}

double
bench_now (void)
{
  return (double) g_get_monotonic_time () / G_USEC_PER_SEC;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

double
bench_median (const double *values,
              guint         n)
{
  g_autofree double *sorted = g_memdup2 (values, n * sizeof (double));

  g_assert (n > 0);

  qsort (sorted, n, sizeof (double), compare_doubles);
  if (n % 2 == 1)
    return sorted[n / 2];
  return (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* @n scaled by $ZOT_BENCH_SCALE (for a quick smoke run), rounded to a
 * multiple of @multiple and at least @multiple. */
guint
bench_scaled (guint n,
              guint multiple)
{
  const char *env = g_getenv ("ZOT_BENCH_SCALE");
  double scale = env != NULL ? g_ascii_strtod (env, NULL) : 1.0;
  guint scaled;

  if (scale <= 0)
    scale = 1.0;

  scaled = (guint) (n * scale);
  scaled -= scaled % multiple;
  return MAX (scaled, multiple);
}

/* Turns the default main context until *flag is set. The deadline only
 * stops a broken run from hanging forever. */
void
bench_wait_for (gboolean   *flag,
                double      timeout_s,
                const char *what)
{
  double deadline = bench_now () + timeout_s;

  while (!*flag)
    {
      g_main_context_iteration (NULL, TRUE);
      if (!*flag && bench_now () > deadline)
        g_error ("timed out after %.0f s waiting for %s", timeout_s, what);
    }
}

gboolean
bench_write_full (int         fd,
                  const void *data,
                  gsize       len)
{
  const char *p = data;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      p += n;
      len -= (gsize) n;
    }
  return TRUE;
}

gboolean
bench_read_full (int    fd,
                 void  *data,
                 gsize  len)
{
  char *p = data;

  while (len > 0)
    {
      ssize_t n = read (fd, p, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      if (n == 0)
        return FALSE;
      p += n;
      len -= (gsize) n;
    }
  return TRUE;
}

char *
bench_json_to_line (JsonObject *object,
                    gsize      *length)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, length);
}

/* This process's resident memory, VmRSS. */
guint64
bench_rss_kib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) ||
      (line = strstr (status, "\nVmRSS:")) == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen ("\nVmRSS:"), NULL, 10);
}

/* This process's open file descriptors, not counting the one that lists
 * them, nor the files of $ZOT_HOME/state: the host saves each extension's
 * state in the background, with GIO replacing the file in its worker
 * thread, and they are open only while that runs. */
guint
bench_open_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *home = g_getenv ("ZOT_HOME");
  g_autofree char *state = home != NULL ? g_strconcat (home, "/state/", NULL) : NULL;
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);

      if (target == NULL || state == NULL || !g_str_has_prefix (target, state))
        n++;
    }
  return n > 0 ? n - 1 : 0;
}

/* Pins the calling thread, and what it spawns from now on, to @cpu.
 * Returns FALSE, changing nothing, when there are fewer CPUs or when
 * $ZOT_BENCH_NO_PIN is set. */
gboolean
bench_pin_to_cpu (guint cpu)
{
  cpu_set_t set;

  if (g_getenv ("ZOT_BENCH_NO_PIN") != NULL || g_get_num_processors () <= cpu)
    return FALSE;

  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  return sched_setaffinity (0, sizeof set, &set) == 0;
}

/* Busy and total jiffies of the whole machine, from the first line of
 * /proc/stat. */
static gboolean
read_cpu_times (guint64 *busy,
                guint64 *total)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;
  guint64 idle = 0;
  char *newline;

  if (!g_file_get_contents ("/proc/stat", &contents, NULL, NULL) || !g_str_has_prefix (contents, "cpu "))
    return FALSE;

  *contents = ' ';
  newline = strchr (contents, '\n');
  if (newline != NULL)
    *newline = '\0';
  fields = g_strsplit_set (g_strstrip (contents), " ", -1);

  *total = 0;
  for (guint i = 0, column = 0; fields[i] != NULL; i++)
    {
      guint64 value;

      if (*fields[i] == '\0')
        continue;
      value = g_ascii_strtoull (fields[i], NULL, 10);
      /* user nice system idle iowait irq softirq steal: guest time is in user already */
      if (column < 8)
        *total += value;
      if (column == 3 || column == 4)
        idle += value;
      column++;
    }

  *busy = *total - idle;
  return TRUE;
}

/* How busy the machine is before we start, so that a reader can tell a
 * figure taken next to a compiler from a quiet one. */
static double
sample_machine_load (void)
{
  guint64 busy0;
  guint64 total0;
  guint64 busy1;
  guint64 total1;

  if (!read_cpu_times (&busy0, &total0))
    return -1;
  g_usleep (300 * 1000);
  if (!read_cpu_times (&busy1, &total1) || total1 == total0)
    return -1;

  return (double) (busy1 - busy0) / (double) (total1 - total0);
}

void
bench_print_header (const char *title,
                    const char *what)
{
  double load = sample_machine_load ();

  g_print ("%s - %s\n", title, what);
  g_print ("zot %s, GLib %u.%u.%u, json-glib %s, %u CPUs\n",
           PACKAGE_VERSION, glib_major_version, glib_minor_version, glib_micro_version,
           JSON_VERSION_S, g_get_num_processors ());
  if (load >= 0.10)
    g_print ("warning: other processes kept the CPUs %.0f%% busy just before this run; "
             "the figures are noisy\n", load * 100);
  g_print ("\n");
}

const char *
bench_verdict (gboolean met)
{
  return met ? "met" : "MISSED";
}

/* This process's CPU time so far: user and system, or user alone. */
double
bench_cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

double
bench_user_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
}
