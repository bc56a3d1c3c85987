#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
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

static char *
find_echo_extension (const char *program)
{
  const char *env = g_getenv ("ZOT_BENCH_ECHO_EXTENSION");
  g_autofree char *self = NULL;
  g_autofree char *dir = NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  /* Run by hand from the build directory: the fixture sits beside us. */
  self = g_file_read_link ("/proc/self/exe", NULL);
  dir = g_path_get_dirname (self != NULL ? self : program);
  return g_build_filename (dir, "bench-echo-extension", NULL);
}

void
bench_env_init (BenchEnv   *env,
                const char *program)
{
  g_autoptr(GError) error = NULL;

  env->echo_path = find_echo_extension (program);
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

void
bench_print_header (const char *title,
                    const char *what)
{
  g_print ("%s - %s\n", title, what);
  g_print ("zot %s, GLib %u.%u.%u, json-glib %s, %u CPUs\n\n",
           PACKAGE_VERSION, glib_major_version, glib_minor_version, glib_micro_version,
           JSON_VERSION_S, g_get_num_processors ());
}

const char *
bench_verdict (gboolean met)
{
  return met ? "met" : "MISSED";
}
