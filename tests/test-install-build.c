/* test-install-build.c — `zot ext install --build`: the manifest's build
 * runs in the copy before it is put in place, with its output in the
 * extension's log; after a failed or overlong build nothing is installed
 * or replaced, and one line says why; without --build, a missing program
 * is a warning naming the ways to build it. The builds are small shell scripts; tests/test-examples-go.c
 * installs a Go example this way. */
#include "config.h"

#include <string.h>

#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  char       *source;     /* the extension to install */
  char       *installed;  /* where it goes */
  char       *out;
  char       *err;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->installed = g_build_filename (f->env.home, "extensions", "built", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_unsetenv ("ZOT_TEST_TIMEOUTS");
  g_free (f->source);
  g_free (f->installed);
  g_free (f->out);
  g_free (f->err);
  zot_test_env_teardown (&f->env);
}

/* An extension "built" whose program ./prog comes from its build.sh,
 * @script. */
static void
make_source (Fixture    *f,
             const char *script)
{
  g_autofree char *build = NULL;

  f->source = zot_test_make_manifest (f->env.root, "built-src",
                                      "{\"name\": \"built\", \"version\": \"1.0.0\", \"exec\": \"./prog\","
                                      " \"build\": [\"sh\", \"build.sh\"]}");
  build = g_build_filename (f->source, "build.sh", NULL);
  g_assert_true (g_file_set_contents (build, script, -1, NULL));
}

static int
install_with (Fixture    *f,
              const char *flag,
              const char *other)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_clear_pointer (&f->out, g_free);
  g_clear_pointer (&f->err, g_free);
  g_spawn_sync (f->env.cwd, (char *[]) { (char *) g_getenv ("ZOT_BIN"), (char *) "ext", (char *) "install",
                                          (char *) "--yes", (char *) flag, other != NULL ? (char *) other : f->source,
                                          other != NULL ? f->source : NULL, NULL },
                NULL, G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL, &f->out, &f->err, &status, &error);
  g_assert_no_error (error);
  g_test_message ("zot ext install %s: %d\nstdout: %s\nstderr: %s", flag, status, f->out, f->err);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static int
install (Fixture    *f,
         const char *flag)
{
  return install_with (f, flag, NULL);
}

static char *
read_log (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->env.home, "logs", "ext-built.log", NULL);

  return zot_test_read_file (path);
}

static void
test_success (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *program = NULL;
  g_autofree char *log = NULL;

  make_source (f, "printf '#!/bin/sh\\n' > prog && chmod +x prog\necho compiled it\necho a warning >&2\n");
  g_assert_cmpint (install (f, "--build"), ==, 0);
  g_assert_nonnull (strstr (f->out, "installed built 1.0.0 into "));
  g_assert_nonnull (strstr (f->out, "\nbuilt with sh build.sh (output in "));
  g_assert_cmpstr (f->err, ==, "");

  program = g_build_filename (f->installed, "prog", NULL);
  g_assert_true (g_file_test (program, G_FILE_TEST_IS_EXECUTABLE));
  /* Built in the copy, not in the source. */
  g_clear_pointer (&program, g_free);
  program = g_build_filename (f->source, "prog", NULL);
  g_assert_false (g_file_test (program, G_FILE_TEST_EXISTS));

  log = read_log (f);
  g_assert_nonnull (log);
  g_assert_nonnull (strstr (log, "=== built: build: sh build.sh (in "));
  g_assert_nonnull (strstr (log, "compiled it\n"));
  g_assert_nonnull (strstr (log, "a warning\n"));
}

static guint
count (const char *text,
       const char *part)
{
  guint n = 0;

  for (const char *at = strstr (text, part); at != NULL; at = strstr (at + 1, part))
    n++;
  return n;
}

/* A failed build of a new version leaves the installed one as it was,
 * --force or not; without --force an installed name is refused before
 * anything is built. */
static void
test_keeps_installed (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *build = NULL;
  g_autofree char *installed_build = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *log = NULL;
  g_autofree char *program = NULL;

  make_source (f, "printf '#!/bin/sh\\n' > prog && chmod +x prog\n");
  g_assert_cmpint (install (f, "--build"), ==, 0);

  build = g_build_filename (f->source, "build.sh", NULL);
  g_assert_true (g_file_set_contents (build, "echo 'version 2 does not build' >&2\nexit 1\n", -1, NULL));
  g_assert_cmpint (install (f, "--build"), ==, 1);
  g_assert_nonnull (strstr (f->err, "already installed"));

  g_assert_cmpint (install_with (f, "--build", "--force"), ==, 1);
  g_assert_true (g_str_has_prefix (f->err, "zot: building built failed: version 2 does not build; "));

  program = g_build_filename (f->installed, "prog", NULL);
  g_assert_true (g_file_test (program, G_FILE_TEST_IS_EXECUTABLE));
  installed_build = g_build_filename (f->installed, "build.sh", NULL);
  kept = zot_test_read_file (installed_build);
  g_assert_nonnull (strstr (kept, "chmod +x prog"));
  /* Built twice: the refused install ran nothing. */
  log = read_log (f);
  g_assert_cmpuint (count (log, "=== built: build: "), ==, 2);
}

static void
test_failure (Fixture       *f,
              gconstpointer  data)
{
  make_source (f, "echo 'build.sh: the compiler is missing' >&2\necho more >&2\nexit 3\n");
  g_assert_cmpint (install (f, "--build"), ==, 1);
  g_assert_true (g_str_has_prefix (f->err, "zot: building built failed: build.sh: the compiler is missing; "
                                   "nothing was installed (the build's output is in "));
  /* One line. */
  g_assert_true (strchr (f->err, '\n') == f->err + strlen (f->err) - 1);
  g_assert_false (g_file_test (f->installed, G_FILE_TEST_EXISTS));
}

/* A compiler that reports on stdout (tsc does) is quoted all the same;
 * a build silent on both says how it ended. */
static void
test_failure_on_stdout (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *build = NULL;

  make_source (f, "echo 'main.mts(3,1): error TS1005: ; expected'\necho more\nexit 2\n");
  g_assert_cmpint (install (f, "--build"), ==, 1);
  g_assert_true (g_str_has_prefix (f->err, "zot: building built failed: main.mts(3,1): error TS1005: ; expected; "));

  build = g_build_filename (f->source, "build.sh", NULL);
  g_assert_true (g_file_set_contents (build, "exit 4\n", -1, NULL));
  g_assert_cmpint (install (f, "--build"), ==, 1);
  g_assert_true (g_str_has_prefix (f->err, "zot: building built failed: exit status 4; "));
}

/* The deadline, shortened: a build that does not end is killed. */
static void
test_deadline (Fixture       *f,
               gconstpointer  data)
{
  make_source (f, "exec sleep 60\n");
  g_setenv ("ZOT_TEST_TIMEOUTS", "install-build=300", TRUE);
  g_assert_cmpint (install (f, "--build"), ==, 1);
  g_assert_true (g_str_has_prefix (f->err, "zot: building built failed: no end after 300 ms, stopped; "));
  g_assert_false (g_file_test (f->installed, G_FILE_TEST_EXISTS));
}

/* Without --build: installed, and told how to build it. */
static void
test_missing_program (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *expected = NULL;

  make_source (f, "exit 0\n");
  g_assert_cmpint (install (f, "--force"), ==, 0);
  g_assert_true (g_file_test (f->installed, G_FILE_TEST_IS_DIR));
  expected = g_strdup_printf ("does not exist (looked for %s/prog); build it with zot ext install --force "
                              "--build %s, or run \"sh build.sh\" in %s\n", f->installed, f->source, f->installed);
  g_assert_true (g_str_has_prefix (f->err, "zot: warning: "));
  if (!g_str_has_suffix (f->err, expected))
    g_error ("\"%s\" does not end with \"%s\"", f->err, expected);
}

/* --build without a build command: installed, with a warning. */
static void
test_nothing_to_build (Fixture       *f,
                       gconstpointer  data)
{
  f->source = zot_test_make_manifest (f->env.root, "built-src",
                                      "{\"name\": \"built\", \"version\": \"1.0.0\", \"exec\": \"sh\"}");
  g_assert_cmpint (install (f, "--build"), ==, 0);
  g_assert_cmpstr (f->err, ==, "zot: warning: built has no \"build\" in extension.json; "
                               "--build had nothing to run\n");
  g_assert_true (g_file_test (f->installed, G_FILE_TEST_IS_DIR));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) \
  g_test_add ("/zot/install-build/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)

  ADD ("success", test_success);
  ADD ("failure", test_failure);
  ADD ("failure-on-stdout", test_failure_on_stdout);
  ADD ("keeps-installed", test_keeps_installed);
  ADD ("deadline", test_deadline);
  ADD ("missing-program", test_missing_program);
  ADD ("nothing-to-build", test_nothing_to_build);

  return g_test_run ();
}
