/* test-flatpak.c — the sandbox marker and how host programs are started
 * from inside a sandbox: the flatpak-spawn command line, the exit status
 * read back, $ZOT_HOME and exec resolution. The bash tool and extensions
 * under a pretend sandbox are tested in test-tools.c and test-manager.c. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "zot-error.h"
#include "zot-flatpak.h"
#include "zot-manifest.h"
#include "zot-paths.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  char       *log;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->log = zot_test_fake_sandbox_begin (f->env.root);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_test_fake_sandbox_end ();
  g_clear_pointer (&f->log, g_free);
  zot_test_env_teardown (&f->env);
}

static void
test_marker (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->env.root, "no-such-marker", NULL);
  g_autofree char *build = g_build_filename (f->env.root, "build-info", NULL);

  g_assert_true (zot_flatpak_is_sandboxed ());

  _zot_flatpak_set_info_path_for_testing (missing);
  g_assert_false (zot_flatpak_is_sandboxed ());

  /* flatpak-builder's sandbox has no host to reach: the build's own tests
   * run their programs where they are. */
  g_assert_true (g_file_set_contents (build, "[Application]\nname=dev.zot.Zot\n\n"
                                             "[Instance]\nbuild=true\n", -1, NULL));
  _zot_flatpak_set_info_path_for_testing (build);
  g_assert_false (zot_flatpak_is_sandboxed ());

  /* The real marker: this test does not run inside Flatpak. */
  _zot_flatpak_set_info_path_for_testing (NULL);
  g_assert_cmpint (zot_flatpak_is_sandboxed (), ==, g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS));
}

static void
test_host_argv (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  const char *names[] = { "ZOT_SET", "ZOT_UNSET", NULL };
  const char *argv[] = { "python3", "--version", NULL };
  const char *expected[] = {
    "flatpak-spawn", "--host", "--watch-bus", "--directory=/some/project",
    "--env=ZOT_SET=a=b c", "--unset-env=ZOT_UNSET", "--", "python3", "--version", NULL
  };
  const char *without_cwd[] = {
    "flatpak-spawn", "--host", "--watch-bus", "--", "python3", "--version", NULL
  };
  g_auto(GStrv) built = NULL;
  g_auto(GStrv) bare = NULL;

  g_subprocess_launcher_setenv (launcher, "ZOT_SET", "a=b c", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "ZOT_UNSET");

  built = zot_flatpak_build_host_argv (launcher, "/some/project", names, argv);
  g_assert_cmpstrv (built, expected);

  bare = zot_flatpak_build_host_argv (launcher, NULL, NULL, argv);
  g_assert_cmpstrv (bare, without_cwd);
}

static char *
run_to_end (GSubprocessLauncher *launcher,
            const char          *cwd,
            const char * const  *names,
            const char * const  *argv,
            GSubprocess        **out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) subprocess = NULL;
  char *output = NULL;

  subprocess = zot_flatpak_spawnv (launcher, cwd, names, argv, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (subprocess, NULL, NULL, &output, NULL, &error));
  g_assert_no_error (error);
  *out = g_steal_pointer (&subprocess);
  return output;
}

/* Through the fake: the directory and variables arrive, the status and a
 * signal come back. */
static void
test_spawn_sandboxed (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) first = NULL;
  g_autoptr(GSubprocess) second = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *output = NULL;
  g_autofree char *signalled = NULL;
  g_autofree char *real_cwd = realpath (f->env.cwd, NULL);
  g_autofree char *expected = g_strdup_printf ("%s\nhere unset\n", real_cwd);
  const char *names[] = { "ZOT_SET", "ZOT_UNSET", NULL };
  const char *argv[] = { "sh", "-c", "pwd -P; echo $ZOT_SET ${ZOT_UNSET-unset}; exit 7", NULL };
  const char *kill_argv[] = { "sh", "-c", "kill -INT $$", NULL };

  g_setenv ("ZOT_UNSET", "leaked", TRUE);
  g_subprocess_launcher_setenv (launcher, "ZOT_SET", "here", TRUE);
  output = run_to_end (launcher, f->env.cwd, names, argv, &first);
  g_unsetenv ("ZOT_UNSET");

  g_assert_cmpstr (output, ==, expected);
  g_assert_true (g_subprocess_get_if_exited (first));
  g_assert_cmpint (g_subprocess_get_exit_status (first), ==, 7);
  g_assert_cmpint (zot_flatpak_get_host_term_sig (first), ==, 0);

  signalled = run_to_end (launcher, NULL, NULL, kill_argv, &second);
  g_assert_cmpint (g_subprocess_get_exit_status (second), ==, 128 + SIGINT);
  g_assert_cmpint (zot_flatpak_get_host_term_sig (second), ==, SIGINT);

  calls = zot_test_read_frames (f->log);
  g_assert_cmpuint (calls->len, ==, 2);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (calls, 0), "directory"), ==,
                   f->env.cwd);
}

/* Outside a sandbox the program starts directly, in its directory. */
static void
test_spawn_outside (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) subprocess = NULL;
  g_autoptr(GSubprocess) killed = NULL;
  g_autofree char *missing = g_build_filename (f->env.root, "no-such-marker", NULL);
  g_autofree char *output = NULL;
  g_autofree char *nothing = NULL;
  g_autofree char *real_cwd = realpath (f->env.cwd, NULL);
  g_autofree char *expected = g_strdup_printf ("%s\n", real_cwd);
  const char *argv[] = { "sh", "-c", "pwd -P; exit 130", NULL };
  const char *kill_argv[] = { "sh", "-c", "kill -INT $$", NULL };

  _zot_flatpak_set_info_path_for_testing (missing);
  output = run_to_end (launcher, f->env.cwd, NULL, argv, &subprocess);
  g_assert_cmpstr (output, ==, expected);
  /* A status of 130 is a status here, not a signal. */
  g_assert_cmpint (zot_flatpak_get_host_term_sig (subprocess), ==, 0);

  nothing = run_to_end (launcher, NULL, NULL, kill_argv, &killed);
  g_assert_true (g_subprocess_get_if_signaled (killed));
  g_assert_cmpint (zot_flatpak_get_host_term_sig (killed), ==, SIGINT);

  g_assert_false (g_file_test (f->log, G_FILE_TEST_EXISTS));
}

/* Inside, $XDG_STATE_HOME is the app's; $ZOT_HOME follows the host's. */
static void
test_zot_home (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *home = NULL;
  g_autofree char *fallback = NULL;
  g_autofree char *expected_fallback = g_build_filename (g_get_home_dir (), ".local", "state",
                                                         "zot", NULL);

  g_unsetenv ("ZOT_HOME");
  g_setenv ("XDG_STATE_HOME", "/app-state", TRUE);
  g_setenv ("HOST_XDG_STATE_HOME", "/host-state", TRUE);
  home = zot_paths_get_home ();
  g_assert_cmpstr (home, ==, "/host-state/zot");

  g_unsetenv ("HOST_XDG_STATE_HOME");
  fallback = zot_paths_get_home ();
  g_assert_cmpstr (fallback, ==, expected_fallback);
  g_unsetenv ("XDG_STATE_HOME");
}

/* A bare exec is the host's to find; a path into the extension is checked. */
static void
test_exec_resolution (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(ZotManifest) bare = NULL;
  g_autoptr(ZotManifest) relative = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *bare_dir = zot_test_make_manifest (f->env.root, "bare",
                                                      "{\"name\":\"bare\",\"exec\":\"not-in-this-sandbox\"}");
  g_autofree char *relative_dir = zot_test_make_manifest (f->env.root, "relative",
                                                          "{\"name\":\"relative\",\"exec\":\"./missing\"}");
  g_autofree char *resolved = NULL;

  bare = zot_manifest_new_for_directory (bare_dir, &error);
  g_assert_no_error (error);
  resolved = zot_manifest_resolve_exec (bare, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resolved, ==, "not-in-this-sandbox");

  relative = zot_manifest_new_for_directory (relative_dir, &error);
  g_assert_no_error (error);
  g_assert_null (zot_manifest_resolve_exec (relative, &error));
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/flatpak/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("marker", test_marker);
  ADD ("host-argv", test_host_argv);
  ADD ("spawn-sandboxed", test_spawn_sandboxed);
  ADD ("spawn-outside", test_spawn_outside);
  ADD ("zot-home", test_zot_home);
  ADD ("exec-resolution", test_exec_resolution);

#undef ADD

  return g_test_run ();
}
