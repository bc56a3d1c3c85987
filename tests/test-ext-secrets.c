/* test-ext-secrets.c — an extension's declared secrets: `zot ext secret`
 * and their way into that extension's process, and nowhere else.
 *
 * ZOT_TEST_EXTENSION_SECRETS_FILE stands in for the keyring (there is no
 * Secret Service on the test machines, and a test must not touch one).
 */
#include "config.h"

#include <string.h>

#include "zot-extension-manager.h"
#include "zot-extension-private.h"
#include "zot-extension-secrets.h"
#include "zot-limits.h"
#include "zot-test-util.h"

#define VALUE "s3cr3t-value-for-the-holder"

static gboolean bwrap_works;

typedef struct
{
  ZotTestEnv           env;
  ZotExtensionManager *manager;
  char                *store;
  char                *holder_dir;
  char                *other_dir;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->store = g_build_filename (f->env.root, "secrets.ini", NULL);
  g_setenv ("ZOT_TEST_EXTENSION_SECRETS_FILE", f->store, TRUE);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->manager != NULL)
    zot_test_shutdown_manager (f->manager);
  g_unsetenv ("ZOT_TEST_EXTENSION_SECRETS_FILE");
  g_free (f->store);
  g_free (f->holder_dir);
  g_free (f->other_dir);
  zot_test_env_teardown (&f->env);
}

static char *
make_probe (const char *parent,
            const char *name,
            const char *permissions)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "secret-probe.sh", NULL);
  g_autofree char *json = g_strdup_printf ("{\"name\": \"%s\", \"exec\": \"%s\", \"args\": [\"%s\"]%s%s}",
                                           name, script, name, *permissions ? ", " : "", permissions);

  return zot_test_make_manifest (parent, name, json);
}

static void
make_probes (Fixture *f)
{
  g_autofree char *parent = g_build_filename (f->env.home, "extensions", NULL);

  f->holder_dir = make_probe (parent, "holder", "\"permissions\": {\"secrets\": [\"HOLDER_TOKEN\"]}");
  f->other_dir = make_probe (parent, "other", "\"permissions\": {\"env\": [\"HOLDER_TOKEN\"]}");
}

/* Runs zot with @args, @input on its stdin. */
static int
run_zot (const char  *input,
         gsize        input_length,
         char       **out,
         char       **err,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) stdin_bytes = g_bytes_new (input, input_length);
  g_autoptr(GBytes) stdout_bytes = NULL;
  g_autoptr(GBytes) stderr_bytes = NULL;
  const char *arg;
  va_list list;

  g_ptr_array_add (argv, (gpointer) g_getenv ("ZOT_BIN"));
  va_start (list, err);
  while ((arg = va_arg (list, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (list);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                               G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate (process, stdin_bytes, NULL, &stdout_bytes, &stderr_bytes, &error);
  g_assert_no_error (error);
  *out = g_strndup (g_bytes_get_data (stdout_bytes, NULL), g_bytes_get_size (stdout_bytes));
  *err = g_strndup (g_bytes_get_data (stderr_bytes, NULL), g_bytes_get_size (stderr_bytes));
  g_test_message ("stdout: %s\nstderr: %s", *out, *err);
  return g_subprocess_get_exit_status (process);
}

static void
test_cli (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *out = NULL, *err = NULL, *store = NULL;

  make_probes (f);
  g_assert_cmpint (run_zot ("", 0, &out, &err, "ext", "secret", "list", "holder", NULL), ==, 0);
  g_assert_cmpstr (out, ==, "HOLDER_TOKEN\tnot set\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_zot (VALUE "\n", strlen (VALUE "\n"), &out, &err,
                            "ext", "secret", "set", "holder", "HOLDER_TOKEN", NULL), ==, 0);
  g_assert_null (strstr (out, VALUE));
  store = zot_test_read_file (f->store);
  g_assert_nonnull (strstr (store, "HOLDER_TOKEN=" VALUE "\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_zot ("", 0, &out, &err, "ext", "secret", "list", "holder", NULL), ==, 0);
  g_assert_cmpstr (out, ==, "HOLDER_TOKEN\tset\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_zot ("", 0, &out, &err, "ext", "secret", "remove", "holder", "HOLDER_TOKEN", NULL), ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_zot ("", 0, &out, &err, "ext", "secret", "list", "holder", NULL), ==, 0);
  g_assert_cmpstr (out, ==, "HOLDER_TOKEN\tnot set\n");
}

static void
test_undeclared (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *out = NULL, *err = NULL;

  make_probes (f);
  g_assert_cmpint (run_zot (VALUE, strlen (VALUE), &out, &err,
                            "ext", "secret", "set", "other", "HOLDER_TOKEN", NULL), ==, 1);
  g_assert_nonnull (strstr (err, "\"permissions.secrets\""));
  g_assert_cmpuint (zot_test_count (err, "\n"), ==, 1);
  g_assert_false (g_file_test (f->store, G_FILE_TEST_EXISTS));
}

/* At the bound the value is stored; a byte more is refused. */
static void
test_size_bound (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *value = g_malloc (ZOT_EXTENSION_SECRET_MAX_BYTES + 1);
  g_autofree char *out = NULL, *err = NULL;

  make_probes (f);
  memset (value, 'x', ZOT_EXTENSION_SECRET_MAX_BYTES + 1);
  g_assert_cmpint (run_zot (value, ZOT_EXTENSION_SECRET_MAX_BYTES + 1, &out, &err,
                            "ext", "secret", "set", "holder", "HOLDER_TOKEN", NULL), ==, 1);
  g_assert_nonnull (strstr (err, "KiB"));
  g_assert_false (g_file_test (f->store, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_zot (value, ZOT_EXTENSION_SECRET_MAX_BYTES, &out, &err,
                            "ext", "secret", "set", "holder", "HOLDER_TOKEN", NULL), ==, 0);
  g_assert_true (g_file_test (f->store, G_FILE_TEST_EXISTS));
}

/* No Secret Service on the bus: one line naming what to start. A bus
 * address that leads nowhere keeps any real keyring out of it. */
static void
test_keyring_unavailable (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *saved = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));
  int status;

  make_probes (f);
  g_unsetenv ("ZOT_TEST_EXTENSION_SECRETS_FILE");
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/zot-test-bus", TRUE);
  status = run_zot ("", 0, &out, &err, "ext", "secret", "list", "holder", NULL);
  if (saved != NULL)
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", saved, TRUE);
  else
    g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (err, "start a Secret Service"));
  g_assert_cmpuint (zot_test_count (err, "\n"), ==, 1);
}

static void
result_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
store_value (const char *extension,
             const char *key,
             const char *value)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  zot_extension_secrets_store_async (extension, key, value, NULL, result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (zot_extension_secrets_store_finish (result, &error));
  g_assert_no_error (error);
}

static gboolean
has_line (const char *text,
          const char *line)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  return g_strv_contains ((const char * const *) lines, line);
}

static char *
results_of (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "results", NULL);

  return zot_test_read_file (path);
}

static void
load (Fixture *f)
{
  const char *paths[3] = { f->holder_dir, f->other_dir, NULL };

  f->manager = zot_test_load_manager (&f->env, paths);
  g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (f->manager, "holder")), ==,
                   ZOT_EXTENSION_STATE_READY);
  g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (f->manager, "other")), ==,
                   ZOT_EXTENSION_STATE_READY);
}

static void
assert_not_in_file (const char *path)
{
  g_autofree char *text = zot_test_read_file (path);

  g_assert_nonnull (text);
  g_assert_null (strstr (text, VALUE));
}

static void
test_spawn (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *holder = NULL, *other = NULL;
  g_auto(GStrv) environment = NULL;

  if (!bwrap_works)
    {
      g_test_skip ("bwrap cannot create namespaces here");
      return;
    }
  make_probes (f);
  store_value ("holder", "HOLDER_TOKEN", VALUE);
  /* The other one declares the same name as a plain variable: the
   * secret must still not reach it. */
  load (f);

  holder = results_of (f->holder_dir);
  other = results_of (f->other_dir);
  g_test_message ("holder's environment:\n%s", holder);
  g_assert_true (has_line (holder, "HOLDER_TOKEN=" VALUE));
  g_assert_null (strstr (other, VALUE));
  assert_not_in_file (zot_extension_get_log_path (zot_extension_manager_find (f->manager, "holder")));
  assert_not_in_file (zot_extension_get_log_path (zot_extension_manager_find (f->manager, "other")));
  /* The host's own environment is what the bash tool and unconfined
   * extensions inherit. */
  environment = g_get_environ ();
  for (guint i = 0; environment[i] != NULL; i++)
    g_assert_null (strstr (environment[i], VALUE));
}

static void
test_missing (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *log = NULL, *holder = NULL;

  if (!bwrap_works)
    {
      g_test_skip ("bwrap cannot create namespaces here");
      return;
    }
  make_probes (f);
  g_test_expect_message ("zot-extension", G_LOG_LEVEL_WARNING,
                         "holder: secret HOLDER_TOKEN is not set; run zot ext secret set holder HOLDER_TOKEN");
  load (f);
  g_test_assert_expected_messages ();
  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (f->manager, "holder")));
  g_assert_nonnull (strstr (log, "zot ext secret set holder HOLDER_TOKEN"));
  holder = results_of (f->holder_dir);
  g_assert_null (strstr (holder, "HOLDER_TOKEN="));
}

/* Whether any process's command line holds the value. */
static gboolean
value_on_a_command_line (void)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *entry;

  while ((entry = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", entry, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize length = 0;

      if (!g_ascii_isdigit (*entry) || !g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize at = 0; at < length; at += strlen (cmdline + at) + 1)
        if (strstr (cmdline + at, VALUE) != NULL)
          return TRUE;
    }
  return FALSE;
}

/* Whether this process still holds a box's memfd of variables. */
static gboolean
holds_env_memfd (void)
{
  g_autoptr(GDir) fds = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *entry;

  while ((entry = g_dir_read_name (fds)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/fd", entry, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);

      if (target != NULL && g_str_has_prefix (target, "/memfd:zot-box-env"))
        return TRUE;
    }
  return FALSE;
}

/* Inside the Flatpak the box runs on the host through flatpak-spawn,
 * whose command line every process of the user can read: bwrap reads the
 * box's variables, the secret among them, from a descriptor forwarded to
 * it instead. */
static void
test_flatpak (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *calls_log = NULL, *calls = NULL, *holder = NULL, *other = NULL;

  if (!bwrap_works)
    {
      g_test_skip ("bwrap cannot create namespaces here");
      return;
    }
  make_probes (f);
  store_value ("holder", "HOLDER_TOKEN", VALUE);
  calls_log = zot_test_fake_sandbox_begin (f->env.root);
  load (f);
  zot_test_fake_sandbox_end ();

  calls = zot_test_read_file (calls_log);
  g_test_message ("flatpak-spawn calls:\n%s", calls);
  g_assert_nonnull (strstr (calls, "\"--host\""));
  g_assert_nonnull (strstr (calls, "\"--forward-fd=3\""));
  g_assert_nonnull (strstr (calls, "\"--args\", \"3\""));
  g_assert_null (strstr (calls, VALUE));
  /* Both boxes are running, bwrap and flatpak-spawn with them. */
  g_assert_false (value_on_a_command_line ());
  g_assert_false (holds_env_memfd ());
  holder = results_of (f->holder_dir);
  other = results_of (f->other_dir);
  g_assert_true (has_line (holder, "HOLDER_TOKEN=" VALUE));
  g_assert_null (strstr (other, VALUE));
  assert_not_in_file (zot_extension_get_log_path (zot_extension_manager_find (f->manager, "holder")));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");
  const char *probe[] = { "bwrap", "--ro-bind", "/", "/", "true", NULL };
  int status = -1;

  bwrap_works = bwrap != NULL &&
                g_spawn_sync (NULL, (char **) probe, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                              G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) &&
                status == 0;
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/ext-secrets/cli", Fixture, NULL, fixture_setup, test_cli, fixture_teardown);
  g_test_add ("/ext-secrets/undeclared", Fixture, NULL, fixture_setup, test_undeclared, fixture_teardown);
  g_test_add ("/ext-secrets/size-bound", Fixture, NULL, fixture_setup, test_size_bound, fixture_teardown);
  g_test_add ("/ext-secrets/keyring-unavailable", Fixture, NULL, fixture_setup, test_keyring_unavailable,
              fixture_teardown);
  g_test_add ("/ext-secrets/spawn", Fixture, NULL, fixture_setup, test_spawn, fixture_teardown);
  g_test_add ("/ext-secrets/flatpak", Fixture, NULL, fixture_setup, test_flatpak, fixture_teardown);
  g_test_add ("/ext-secrets/missing", Fixture, NULL, fixture_setup, test_missing, fixture_teardown);
  return g_test_run ();
}
