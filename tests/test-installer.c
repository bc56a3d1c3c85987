#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "zot-error.h"
#include "zot-installer.h"
#include "zot-manifest.h"
#include "zot-test-util.h"

/* How long a test waits for a line from a running `zot ext logs -f`: a
 * deadline that turns a hang into a failure, not a sleep. */
#define FOLLOW_DEADLINE_SECONDS 20

typedef struct
{
  char *tmp;
  char *home;     /* $ZOT_HOME */
  char *ext_dir;  /* $ZOT_HOME/extensions */
  char *work;     /* sources, upstream repos, and the CLI's working directory */
} Fixture;

/* Helpers ------------------------------------------------------------------ */

static void
fixture_setup (Fixture       *f,
               gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  f->tmp = g_dir_make_tmp ("zot-test-installer-XXXXXX", &error);
  g_assert_no_error (error);
  f->home = g_build_filename (f->tmp, "zot-home", NULL);
  f->ext_dir = g_build_filename (f->home, "extensions", NULL);
  f->work = g_build_filename (f->tmp, "work", NULL);
  g_assert_cmpint (g_mkdir_with_parents (f->work, 0755), ==, 0);

  /* Neither this test nor the zot it spawns may see the user's setup. */
  g_setenv ("ZOT_HOME", f->home, TRUE);
  g_setenv ("HOME", f->tmp, TRUE);
  g_setenv ("XDG_CONFIG_HOME", f->tmp, TRUE);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  user_data)
{
  g_assert_true (zot_test_remove_tree (f->tmp));
  g_clear_pointer (&f->tmp, g_free);
  g_clear_pointer (&f->home, g_free);
  g_clear_pointer (&f->ext_dir, g_free);
  g_clear_pointer (&f->work, g_free);
}

static void
write_file (const char *path,
            const char *contents,
            int         mode)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
}

static char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

/* An extension whose directory name differs from its manifest name, with a
 * nested directory, a symbolic link and an executable. */
static char *
make_extension (Fixture    *f,
                const char *dirname,
                const char *name,
                const char *version)
{
  char *dir = g_build_filename (f->work, dirname, NULL);
  g_autofree char *manifest = g_build_filename (dir, "extension.json", NULL);
  g_autofree char *run = g_build_filename (dir, "run.sh", NULL);
  g_autofree char *nested = g_build_filename (dir, "lib", "deep", "nested.txt", NULL);
  g_autofree char *data = g_build_filename (dir, "data.txt", NULL);
  g_autofree char *link = g_build_filename (dir, "link", NULL);
  g_autofree char *json = g_strdup_printf ("{\n"
                                           "  \"name\": \"%s\",\n"
                                           "  \"exec\": \"./run.sh\",\n"
                                           "  \"version\": \"%s\",\n"
                                           "  \"description\": \"A test extension\",\n"
                                           "  \"language\": \"shell\"\n"
                                           "}\n", name, version);

  write_file (manifest, json, 0644);
  write_file (run, "#!/bin/sh\nexit 0\n", 0755);
  write_file (nested, "nested\n", 0644);
  write_file (data, version, 0644);
  g_assert_cmpint (symlink ("run.sh", link), ==, 0);

  return dir;
}

static void
run_git (const char *dir,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *arg;
  int status = 0;
  va_list args;

  g_ptr_array_add (argv, (char *) "git");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) "user.email=t@t");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) "user.name=t");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) "init.defaultBranch=main");
  g_ptr_array_add (argv, (char *) "-C");
  g_ptr_array_add (argv, (char *) dir);
  va_start (args, dir);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("git in %s failed: %s", dir, err);
}

/* An upstream repository holding an extension, committed. */
static char *
make_repo (Fixture    *f,
           const char *dirname,
           const char *name,
           const char *version)
{
  char *dir = make_extension (f, dirname, name, version);

  run_git (dir, "init", "-q", NULL);
  run_git (dir, "add", "-A", NULL);
  run_git (dir, "commit", "-q", "-m", "init", NULL);
  return dir;
}

static char *
file_url (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *url = g_filename_to_uri (path, NULL, &error);

  g_assert_no_error (error);
  return url;
}

static void
on_done_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static GAsyncResult *
wait_for_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static ZotManifest *
install (const char    *source,
         const char    *target_parent,
         gboolean       force,
         GCancellable  *cancellable,
         GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  zot_installer_install_async (source, target_parent, force, cancellable, on_done_cb, &result);
  return zot_installer_install_finish (wait_for_result (&result), error);
}

static void
install_ok (const char *source,
            const char *target_parent)
{
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = install (source, target_parent, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (manifest);
}

static GPtrArray *
update (const char  *extensions_dir,
        GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  zot_installer_update_async (extensions_dir, NULL, on_done_cb, &result);
  return zot_installer_update_finish (wait_for_result (&result), error);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The names in @dir, sorted, joined by spaces; "" when empty or missing. */
static char *
list_dir (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);

  return g_strjoinv (" ", (char **) names->pdata);
}

static void
assert_one_line (const char *message)
{
  g_assert_nonnull (message);
  g_assert_null (strchr (message, '\n'));
}

/* Runs the built zot with @first and what follows as its arguments, in the
 * fixture's work directory. Returns the exit status, or -1 when the test is
 * skipped because $ZOT_BIN is not set. */
static int
run_zot (Fixture     *f,
         char       **out,
         char       **err,
         const char  *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *zot = g_getenv ("ZOT_BIN");
  g_autofree char *own_out = NULL;
  g_autofree char *own_err = NULL;
  const char *arg;
  int status = 0;
  va_list args;

  /* Always captured: what zot prints must not reach the TAP stream. */
  if (out == NULL)
    out = &own_out;
  if (err == NULL)
    err = &own_err;

  if (zot == NULL)
    {
      g_test_skip ("ZOT_BIN is not set; run through meson test");
      return -1;
    }

  g_ptr_array_add (argv, (char *) zot);
  va_start (args, first);
  for (arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  /* Never the test's terminal: zot asks questions only on one. */
  g_spawn_sync (f->work, (char **) argv->pdata, NULL, G_SPAWN_STDIN_FROM_DEV_NULL,
                NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));

  g_test_message ("zot %s: exit %d\nstdout: %s\nstderr: %s", first, WEXITSTATUS (status), *out, *err);
  return WEXITSTATUS (status);
}

/* Library ------------------------------------------------------------------ */

static void
test_source_is_url (void)
{
  g_assert_true (zot_installer_source_is_url ("https://github.com/someone/zot-weather"));
  g_assert_true (zot_installer_source_is_url ("https://github.com/someone/zot-weather.git"));
  g_assert_true (zot_installer_source_is_url ("ssh://git@example.com/repo.git"));
  g_assert_true (zot_installer_source_is_url ("git://example.com/repo"));
  g_assert_true (zot_installer_source_is_url ("file:///tmp/repo"));
  g_assert_true (zot_installer_source_is_url ("git+ssh://example.com/repo"));
  g_assert_true (zot_installer_source_is_url ("git@github.com:someone/zot-weather.git"));
  g_assert_true (zot_installer_source_is_url ("me@host:repo"));

  g_assert_false (zot_installer_source_is_url (""));
  g_assert_false (zot_installer_source_is_url ("weather"));
  g_assert_false (zot_installer_source_is_url ("./weather"));
  g_assert_false (zot_installer_source_is_url ("../weather"));
  g_assert_false (zot_installer_source_is_url ("/home/me/weather"));
  g_assert_false (zot_installer_source_is_url ("~/weather"));
  g_assert_false (zot_installer_source_is_url ("dir:with:colons"));
  g_assert_false (zot_installer_source_is_url ("./me@host:repo"));
  g_assert_false (zot_installer_source_is_url ("me@host"));
  g_assert_false (zot_installer_source_is_url ("@host:repo"));
  g_assert_false (zot_installer_source_is_url ("1http://x"));
  g_assert_false (zot_installer_source_is_url ("http:/x"));
}

static void
test_install_directory (Fixture       *f,
                        gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "checkout-dir", "hello", "1.0");
  g_autofree char *target = g_build_filename (f->ext_dir, "hello", NULL);
  g_autofree char *run = g_build_filename (target, "run.sh", NULL);
  g_autofree char *nested = g_build_filename (target, "lib", "deep", "nested.txt", NULL);
  g_autofree char *link = g_build_filename (target, "link", NULL);
  g_autofree char *link_target = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *entries = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = install (source, f->ext_dir, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (manifest);

  /* The manifest's name decides the directory, not the source's name. */
  g_assert_cmpstr (zot_manifest_get_name (manifest), ==, "hello");
  g_assert_cmpstr (zot_manifest_get_version (manifest), ==, "1.0");
  g_assert_cmpstr (zot_manifest_get_directory (manifest), ==, target);
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "hello");

  g_assert_true (g_file_test (run, G_FILE_TEST_IS_EXECUTABLE));
  contents = read_file (nested);
  g_assert_cmpstr (contents, ==, "nested\n");

  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  link_target = g_file_read_link (link, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (link_target, ==, "run.sh");

  /* The source is untouched. */
  g_assert_true (g_file_test (source, G_FILE_TEST_IS_DIR));
}

static void
test_install_exists (Fixture       *f,
                     gconstpointer  user_data)
{
  g_autofree char *first = make_extension (f, "first", "hello", "1.0");
  g_autofree char *second = make_extension (f, "second", "hello", "2.0");
  g_autofree char *old_only = g_build_filename (f->ext_dir, "hello", "old-only.txt", NULL);
  g_autofree char *data = g_build_filename (f->ext_dir, "hello", "data.txt", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *entries = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(ZotManifest) refused = NULL;
  g_autoptr(ZotManifest) replaced = NULL;
  g_autoptr(GError) error = NULL;

  manifest = install (first, f->ext_dir, FALSE, NULL, &error);
  g_assert_no_error (error);
  write_file (old_only, "old\n", 0644);

  refused = install (second, f->ext_dir, FALSE, NULL, &error);
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_EXISTS);
  g_assert_null (refused);
  assert_one_line (error->message);
  g_assert_nonnull (strstr (error->message, "hello"));
  g_assert_nonnull (strstr (error->message, "--force"));
  g_clear_error (&error);

  /* Refused: the installed one is as it was, and nothing was left staged. */
  contents = read_file (data);
  g_assert_cmpstr (contents, ==, "1.0");
  g_assert_true (g_file_test (old_only, G_FILE_TEST_EXISTS));
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "hello");

  replaced = install (second, f->ext_dir, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zot_manifest_get_version (replaced), ==, "2.0");

  /* Replaced as a whole: nothing of the old copy survives, nothing aside. */
  g_clear_pointer (&contents, g_free);
  contents = read_file (data);
  g_assert_cmpstr (contents, ==, "2.0");
  g_assert_false (g_file_test (old_only, G_FILE_TEST_EXISTS));
  g_clear_pointer (&entries, g_free);
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "hello");
}

static void
check_invalid_install (Fixture    *f,
                       const char *source,
                       gint        code,
                       const char *field)
{
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *entries = NULL;

  manifest = install (source, f->ext_dir, FALSE, NULL, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_MANIFEST_ERROR, code);
  assert_one_line (error->message);
  g_test_message ("%s", error->message);

  /* Names the source's own file, and the field when one is at fault. */
  g_assert_nonnull (strstr (error->message, source));
  g_assert_nonnull (strstr (error->message, "extension.json"));
  if (field != NULL)
    g_assert_nonnull (strstr (error->message, field));
  g_assert_null (strstr (error->message, ".install-"));

  /* Neither an installed directory nor a staging one. */
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");
}

static void
test_install_invalid (Fixture       *f,
                      gconstpointer  user_data)
{
  g_autofree char *missing = make_extension (f, "missing", "missing", "1.0");
  g_autofree char *missing_manifest = g_build_filename (missing, "extension.json", NULL);
  g_autofree char *not_json = make_extension (f, "not-json", "not-json", "1.0");
  g_autofree char *not_json_manifest = g_build_filename (not_json, "extension.json", NULL);
  g_autofree char *no_exec = make_extension (f, "no-exec", "no-exec", "1.0");
  g_autofree char *no_exec_manifest = g_build_filename (no_exec, "extension.json", NULL);
  g_autofree char *hidden = make_extension (f, "hidden", ".hidden", "1.0");
  g_autofree char *selfish = make_extension (f, "selfish", "selfish", "1.0");
  g_autofree char *inside = g_build_filename (selfish, ".zot", "extensions", NULL);
  g_autofree char *nowhere = g_build_filename (f->work, "does-not-exist", NULL);
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *entries = NULL;
  g_autofree char *inside_entries = NULL;

  g_assert_cmpint (g_unlink (missing_manifest), ==, 0);
  write_file (not_json_manifest, "{ \"name\": \"not-json\", ", 0644);
  write_file (no_exec_manifest, "{ \"name\": \"no-exec\", \"version\": \"1\" }", 0644);

  check_invalid_install (f, missing, ZOT_MANIFEST_ERROR_NOT_FOUND, NULL);
  check_invalid_install (f, not_json, ZOT_MANIFEST_ERROR_PARSE, "JSON");
  check_invalid_install (f, no_exec, ZOT_MANIFEST_ERROR_INVALID, "\"exec\"");
  check_invalid_install (f, hidden, ZOT_MANIFEST_ERROR_INVALID, "\"name\"");

  manifest = install (nowhere, f->ext_dir, FALSE, NULL, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE);
  assert_one_line (error->message);
  g_assert_nonnull (strstr (error->message, nowhere));
  g_clear_error (&error);

  /* A directory cannot be installed into itself: the copy would not end. */
  manifest = install (selfish, inside, FALSE, NULL, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE);
  assert_one_line (error->message);
  g_clear_error (&error);
  inside_entries = list_dir (inside);
  g_assert_cmpstr (inside_entries, ==, "");

  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");
}

static void
test_install_git (Fixture       *f,
                  gconstpointer  user_data)
{
  g_autofree char *repo = make_repo (f, "upstream", "weather", "1.0");
  g_autofree char *url = file_url (repo);
  g_autofree char *target = g_build_filename (f->ext_dir, "weather", NULL);
  g_autofree char *git_dir = g_build_filename (target, ".git", NULL);
  g_autofree char *link = g_build_filename (target, "link", NULL);
  g_autofree char *run = g_build_filename (target, "run.sh", NULL);
  g_autofree char *entries = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_installer_source_is_url (url));
  manifest = install (url, f->ext_dir, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zot_manifest_get_name (manifest), ==, "weather");
  g_assert_cmpstr (zot_manifest_get_directory (manifest), ==, target);

  g_assert_true (g_file_test (git_dir, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (run, G_FILE_TEST_IS_EXECUTABLE));
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "weather");
}

static void
test_install_git_failure (Fixture       *f,
                          gconstpointer  user_data)
{
  g_autofree char *repo = make_repo (f, "broken-upstream", "broken", "1.0");
  g_autofree char *repo_manifest = g_build_filename (repo, "extension.json", NULL);
  g_autofree char *url = file_url (repo);
  g_autofree char *entries = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = install ("file:///nonexistent", f->ext_dir, FALSE, NULL, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_GIT);
  assert_one_line (error->message);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "file:///nonexistent"));
  g_clear_error (&error);

  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");

  /* Cloned fine, but the manifest lacks exec: the clone goes again. */
  write_file (repo_manifest, "{ \"name\": \"broken\" }", 0644);
  run_git (repo, "commit", "-q", "-a", "-m", "break it", NULL);

  manifest = install (url, f->ext_dir, FALSE, NULL, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID);
  assert_one_line (error->message);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, url));
  g_assert_nonnull (strstr (error->message, "extension.json"));
  g_assert_nonnull (strstr (error->message, "\"exec\""));
  g_assert_null (strstr (error->message, ".install-"));
  g_clear_error (&error);

  g_clear_pointer (&entries, g_free);
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");
}

static void
test_install_cancelled (Fixture       *f,
                        gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "plain", "plain", "1.0");
  g_autofree char *repo = make_repo (f, "upstream", "cloned", "1.0");
  g_autofree char *url = file_url (repo);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *entries = NULL;

  g_cancellable_cancel (cancellable);

  manifest = install (source, f->ext_dir, FALSE, cancellable, &error);
  g_assert_null (manifest);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  manifest = install (url, f->ext_dir, FALSE, cancellable, &error);
  g_assert_null (manifest);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");
}

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} RemoveWait;

static void
removed_async_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  RemoveWait *wait = user_data;

  wait->ok = zot_installer_remove_finish (result, &wait->error);
  wait->done = TRUE;
}

static void
test_remove_async (Fixture       *f,
                   gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "source", "hello", "1.0");
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *entries = NULL;
  RemoveWait wait = { 0 };

  manifest = install (source, f->ext_dir, FALSE, NULL, &error);
  g_assert_no_error (error);

  zot_installer_remove_async (f->ext_dir, "hello", NULL, removed_async_cb, &wait);
  zot_test_wait_for (&wait.done, 20000);
  g_assert_no_error (wait.error);
  g_assert_true (wait.ok);
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");

  wait.done = FALSE;
  zot_installer_remove_async (f->ext_dir, "hello", NULL, removed_async_cb, &wait);
  zot_test_wait_for (&wait.done, 20000);
  g_assert_false (wait.ok);
  g_assert_error (wait.error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED);
  g_clear_error (&wait.error);
}

static void
test_remove (Fixture       *f,
             gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "source", "hello", "1.0");
  g_autofree char *linked = make_extension (f, "linked", "linked", "1.0");
  g_autofree char *link = g_build_filename (f->ext_dir, "linked", NULL);
  g_autofree char *entries = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = install (source, f->ext_dir, FALSE, NULL, &error);
  g_assert_no_error (error);

  g_assert_true (zot_installer_remove (f->ext_dir, "hello", &error));
  g_assert_no_error (error);
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");

  g_assert_false (zot_installer_remove (f->ext_dir, "hello", &error));
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED);
  assert_one_line (error->message);
  g_clear_error (&error);

  g_assert_false (zot_installer_remove (f->ext_dir, "never-installed", &error));
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED);
  g_clear_error (&error);

  g_assert_false (zot_installer_remove (f->ext_dir, "../work", &error));
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_INVALID_NAME);
  g_clear_error (&error);
  g_assert_false (zot_installer_remove (f->ext_dir, "..", &error));
  g_assert_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_INVALID_NAME);
  g_clear_error (&error);
  g_assert_true (g_file_test (f->work, G_FILE_TEST_IS_DIR));

  /* A developer's checkout linked in: the link goes, the checkout stays. */
  g_assert_cmpint (symlink (linked, link), ==, 0);
  g_assert_true (zot_installer_remove (f->ext_dir, "linked", &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (link, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (linked, G_FILE_TEST_IS_DIR));
}

static JsonObject *
load_object (const char *path,
             JsonParser *parser)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_node_get_object (root);
}

static void
assert_same_members_except_enabled (JsonObject *before,
                                    JsonObject *after)
{
  g_autoptr(GList) names_before = json_object_get_members (before);
  g_autoptr(GList) names_after = json_object_get_members (after);
  GList *a = names_before;
  GList *b = names_after;

  /* Same members, same order; only "enabled" may be new (at the end). */
  for (; a != NULL; a = a->next, b = b->next)
    {
      g_assert_nonnull (b);
      g_assert_cmpstr (a->data, ==, b->data);
      if (g_str_equal (a->data, "enabled"))
        continue;
      g_assert_true (json_node_equal (json_object_get_member (before, a->data),
                                      json_object_get_member (after, a->data)));
    }
  if (b != NULL)
    {
      g_assert_cmpstr (b->data, ==, "enabled");
      g_assert_null (b->next);
    }
}

static void
test_set_enabled (Fixture       *f,
                  gconstpointer  user_data)
{
  g_autofree char *dir = g_build_filename (f->work, "rich", NULL);
  g_autofree char *path = g_build_filename (dir, "extension.json", NULL);
  g_autofree char *broken = g_build_filename (f->work, "broken", NULL);
  g_autofree char *broken_path = g_build_filename (broken, "extension.json", NULL);
  g_autoptr(JsonParser) original_parser = json_parser_new ();
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *broken_contents = NULL;
  JsonObject *original;
  JsonObject *object;

  write_file (path,
              "{\n"
              "  \"name\": \"rich\",\n"
              "  \"exec\": \"python3\",\n"
              "  \"args\": [\"main.py\", \"--verbose\"],\n"
              "  \"version\": \"3.1.4\",\n"
              "  \"description\": \"Unicode stays: h\xc3\xa9llo \xe2\x9c\x93\",\n"
              "  \"x-custom\": { \"nested\": [1, 2.5, null, { \"deep\": true }] },\n"
              "  \"count\": 42\n"
              "}\n", 0644);
  original = load_object (path, original_parser);

  g_assert_true (zot_installer_set_enabled (dir, FALSE, &error));
  g_assert_no_error (error);
  manifest = zot_manifest_new_for_directory (dir, &error);
  g_assert_no_error (error);
  g_assert_false (zot_manifest_get_enabled (manifest));
  g_assert_cmpstr (zot_manifest_get_version (manifest), ==, "3.1.4");

  parser = json_parser_new ();
  object = load_object (path, parser);
  assert_same_members_except_enabled (original, object);
  g_assert_false (json_object_get_boolean_member (object, "enabled"));
  g_clear_object (&parser);
  g_clear_object (&manifest);

  g_assert_true (zot_installer_set_enabled (dir, TRUE, &error));
  g_assert_no_error (error);
  manifest = zot_manifest_new_for_directory (dir, &error);
  g_assert_no_error (error);
  g_assert_true (zot_manifest_get_enabled (manifest));

  parser = json_parser_new ();
  object = load_object (path, parser);
  assert_same_members_except_enabled (original, object);
  g_assert_true (json_object_get_boolean_member (object, "enabled"));

  /* A broken manifest is reported, and left exactly as it was. */
  write_file (broken_path, "{ \"name\": \"broken\" ", 0644);
  g_assert_false (zot_installer_set_enabled (broken, FALSE, &error));
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_PARSE);
  g_clear_error (&error);
  broken_contents = read_file (broken_path);
  g_assert_cmpstr (broken_contents, ==, "{ \"name\": \"broken\" ");

  g_assert_false (zot_installer_set_enabled (f->work, FALSE, &error));
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND);
}


static void
test_update (Fixture       *f,
             gconstpointer  user_data)
{
  g_autofree char *alpha = make_repo (f, "up-alpha", "alpha", "1.0");
  g_autofree char *beta = make_repo (f, "up-beta", "beta", "1.0");
  g_autofree char *delta = make_repo (f, "up-delta", "delta", "1.0");
  g_autofree char *gamma = make_extension (f, "plain-gamma", "gamma", "1.0");
  g_autofree char *alpha_url = file_url (alpha);
  g_autofree char *beta_url = file_url (beta);
  g_autofree char *delta_url = file_url (delta);
  g_autofree char *alpha_data = g_build_filename (alpha, "data.txt", NULL);
  g_autofree char *installed_data = g_build_filename (f->ext_dir, "alpha", "data.txt", NULL);
  g_autofree char *nowhere = g_build_filename (f->tmp, "nowhere", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GError) error = NULL;
  const char *names[] = { "alpha", "beta", "delta", "gamma" };
  const ZotUpdateStatus statuses[] = {
    ZOT_UPDATE_STATUS_UPDATED,
    ZOT_UPDATE_STATUS_UP_TO_DATE,
    ZOT_UPDATE_STATUS_FAILED,
    ZOT_UPDATE_STATUS_NOT_GIT,
  };

  install_ok (alpha_url, f->ext_dir);
  install_ok (beta_url, f->ext_dir);
  install_ok (delta_url, f->ext_dir);
  install_ok (gamma, f->ext_dir);

  /* alpha moves on upstream; delta's upstream disappears. */
  write_file (alpha_data, "2.0", 0644);
  run_git (alpha, "commit", "-q", "-a", "-m", "version 2", NULL);
  g_assert_true (zot_test_remove_tree (delta));

  results = update (f->ext_dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (results->len, ==, G_N_ELEMENTS (names));

  for (guint i = 0; i < results->len; i++)
    {
      ZotUpdateResult *result = g_ptr_array_index (results, i);
      g_autofree char *directory = g_build_filename (f->ext_dir, names[i], NULL);

      g_test_message ("%s: %d %s", result->name, result->status, result->message);
      g_assert_cmpstr (result->name, ==, names[i]);
      g_assert_cmpstr (result->directory, ==, directory);
      g_assert_cmpint (result->status, ==, statuses[i]);

      switch (result->status)
        {
        case ZOT_UPDATE_STATUS_UPDATED:
          g_assert_nonnull (strstr (result->message, ".."));
          break;
        case ZOT_UPDATE_STATUS_FAILED:
          assert_one_line (result->message);
          g_assert_nonnull (strstr (result->message, directory));
          break;
        case ZOT_UPDATE_STATUS_UP_TO_DATE:
        case ZOT_UPDATE_STATUS_NOT_GIT:
        default:
          g_assert_null (result->message);
          break;
        }
    }

  contents = read_file (installed_data);
  g_assert_cmpstr (contents, ==, "2.0");

  /* Nothing new upstream the second time. */
  g_clear_pointer (&results, g_ptr_array_unref);
  results = update (f->ext_dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (((ZotUpdateResult *) g_ptr_array_index (results, 0))->status,
                   ==, ZOT_UPDATE_STATUS_UP_TO_DATE);

  /* Nothing installed at all is not an error. */
  g_clear_pointer (&results, g_ptr_array_unref);
  results = update (nowhere, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (results->len, ==, 0);
}

static void
test_update_result_copy (void)
{
  ZotUpdateResult original = {
    (char *) "name", (char *) "/dir", ZOT_UPDATE_STATUS_FAILED, (char *) "why"
  };
  g_autoptr(ZotUpdateResult) copy = zot_update_result_copy (&original);
  ZotUpdateResult *boxed;

  g_assert_cmpstr (copy->name, ==, "name");
  g_assert_cmpstr (copy->directory, ==, "/dir");
  g_assert_cmpint (copy->status, ==, ZOT_UPDATE_STATUS_FAILED);
  g_assert_cmpstr (copy->message, ==, "why");

  boxed = g_boxed_copy (ZOT_TYPE_UPDATE_RESULT, copy);
  g_assert_cmpstr (boxed->message, ==, "why");
  g_boxed_free (ZOT_TYPE_UPDATE_RESULT, boxed);
}

/* CLI ---------------------------------------------------------------------- */

/* The line of @output that starts with @prefix, or NULL. */
static char *
find_line (const char *output,
           const char *prefix)
{
  g_auto(GStrv) lines = g_strsplit (output, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i]);
  return NULL;
}

static void
assert_error_line (const char *err)
{
  g_assert_nonnull (err);
  g_assert_true (g_str_has_prefix (err, "zot: "));
  g_assert_true (g_str_has_suffix (err, "\n"));
  /* One line: the only newline is the last character. */
  g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
}

static void
test_cli_manage (Fixture       *f,
                 gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "cli-source", "hello", "1.0");
  g_autofree char *project_source = make_extension (f, "cli-project", "proj", "0.1");
  g_autofree char *installed = g_build_filename (f->ext_dir, "hello", NULL);
  g_autofree char *project_installed = g_build_filename (f->work, ".zot", "extensions", "proj",
                                                         NULL);
  g_autofree char *broken = g_build_filename (f->ext_dir, "broken", "extension.json", NULL);
  g_autofree char *noexec = g_build_filename (f->ext_dir, "noexec", "extension.json", NULL);
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  char *err = NULL;
  char *line = NULL;
  int status;

  status = run_zot (f, &out, &err, "ext", "list", NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_str_has_prefix (out, "no extensions installed"));
  g_assert_nonnull (strstr (out, f->ext_dir));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "install", "--yes", source, NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "hello"));
  g_assert_cmpstr (err, ==, "");
  g_assert_true (g_file_test (installed, G_FILE_TEST_IS_DIR));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "list", NULL);
  g_assert_cmpint (status, ==, 0);
  line = find_line (out, "NAME ");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, "STATE"));
  g_clear_pointer (&line, g_free);
  line = find_line (out, "hello ");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, " 1.0 "));
  g_assert_nonnull (strstr (line, " enabled "));
  g_assert_nonnull (strstr (line, " user "));
  g_assert_nonnull (strstr (line, installed));
  g_assert_nonnull (strstr (line, " shell "));
  g_assert_true (g_str_has_suffix (line, "A test extension"));
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "disable", "hello", NULL);
  g_assert_cmpint (status, ==, 0);
  manifest = zot_manifest_new_for_directory (installed, &error);
  g_assert_no_error (error);
  g_assert_false (zot_manifest_get_enabled (manifest));
  g_clear_object (&manifest);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "list", NULL);
  g_assert_cmpint (status, ==, 0);
  line = find_line (out, "hello ");
  g_assert_nonnull (strstr (line, " disabled "));
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "enable", "hello", NULL);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* --project goes to <cwd>/.zot/extensions and lists as project. */
  status = run_zot (f, &out, &err, "ext", "install", "--yes", "--project", project_source, NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_file_test (project_installed, G_FILE_TEST_IS_DIR));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Broken ones are listed as failed, with the reason under them. */
  write_file (broken, "{ not json", 0644);
  write_file (noexec, "{ \"name\": \"noexec\", \"exec\": \"./missing.sh\" }", 0644);

  status = run_zot (f, &out, &err, "ext", "list", NULL);
  g_assert_cmpint (status, ==, 0);
  line = find_line (out, "hello ");
  g_assert_nonnull (strstr (line, " enabled "));
  g_clear_pointer (&line, g_free);
  line = find_line (out, "proj ");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, " project "));
  g_clear_pointer (&line, g_free);
  line = find_line (out, "broken ");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, " failed "));
  g_clear_pointer (&line, g_free);
  line = find_line (out, "noexec ");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, " failed "));
  g_clear_pointer (&line, g_free);
  line = find_line (out, "  error: ");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, "extension.json"));
  g_assert_nonnull (strstr (out, "missing.sh"));
  g_clear_pointer (&line, g_free);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Enabling a broken one fails with the manifest's own message. */
  status = run_zot (f, &out, &err, "ext", "enable", "broken", NULL);
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_assert_nonnull (strstr (err, "extension.json"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "remove", "hello", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_false (g_file_test (installed, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "remove", "hello", NULL);
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_assert_nonnull (strstr (err, "hello"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "disable", "hello", NULL);
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "remove", "--project", "proj", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_false (g_file_test (project_installed, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
}

static gboolean
manifest_enabled (const char *directory)
{
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = zot_manifest_new_for_directory (directory, &error);
  g_assert_no_error (error);
  return zot_manifest_get_enabled (manifest);
}

/* enable and disable find the extension in whichever folder has it. */
static void
test_cli_enable_scope (Fixture       *f,
                       gconstpointer  user_data)
{
  g_autofree char *project_source = make_extension (f, "scope-project", "proj", "0.1");
  g_autofree char *user_source = make_extension (f, "scope-user", "glob", "0.1");
  g_autofree char *both_source = make_extension (f, "scope-both", "both", "0.1");
  g_autofree char *project_dir = g_build_filename (f->work, ".zot", "extensions", NULL);
  g_autofree char *proj = g_build_filename (project_dir, "proj", NULL);
  g_autofree char *glob = g_build_filename (f->ext_dir, "glob", NULL);
  g_autofree char *both_project = g_build_filename (project_dir, "both", NULL);
  g_autofree char *both_user = g_build_filename (f->ext_dir, "both", NULL);
  char *out = NULL;
  char *err = NULL;
  int status;

  status = run_zot (f, &out, &err, "ext", "install", "--yes", "--project", project_source, NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_zot (f, NULL, NULL, "ext", "install", "--yes", user_source, NULL), ==, 0);
  g_assert_cmpint (run_zot (f, NULL, NULL, "ext", "install", "--yes", both_source, NULL), ==, 0);
  g_assert_cmpint (run_zot (f, NULL, NULL, "ext", "install", "--yes", "--project", both_source, NULL),
                   ==, 0);

  /* Only in the project: no --project needed. */
  status = run_zot (f, &out, &err, "ext", "disable", "proj", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_false (manifest_enabled (proj));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  status = run_zot (f, &out, &err, "ext", "enable", "proj", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (manifest_enabled (proj));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Only in the user's folder. */
  status = run_zot (f, &out, &err, "ext", "disable", "glob", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_false (manifest_enabled (glob));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* In both, with no terminal to ask on: nothing changes, and the error
   * says how to choose. */
  status = run_zot (f, &out, &err, "ext", "disable", "both", NULL);
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_assert_nonnull (strstr (err, "--project"));
  g_assert_nonnull (strstr (err, "--global"));
  g_assert_true (manifest_enabled (both_project));
  g_assert_true (manifest_enabled (both_user));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "disable", "--global", "both", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (manifest_enabled (both_project));
  g_assert_false (manifest_enabled (both_user));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "disable", "--project", "both", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_false (manifest_enabled (both_project));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "enable", "--project", "--global", "both", NULL);
  g_assert_cmpint (status, ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* In neither: the error names both folders. */
  status = run_zot (f, &out, &err, "ext", "enable", "nowhere", NULL);
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_assert_nonnull (strstr (err, "nowhere"));
  g_assert_nonnull (strstr (err, f->ext_dir));
  g_assert_nonnull (strstr (err, ".zot/extensions"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
}

static void
test_cli_install_broken (Fixture       *f,
                         gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "cli-broken", "broken", "1.0");
  g_autofree char *manifest = g_build_filename (source, "extension.json", NULL);
  g_autofree char *entries = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  write_file (manifest, "{ \"name\": \"broken\" }", 0644);

  status = run_zot (f, &out, &err, "ext", "install", "--yes", source, NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_assert_nonnull (strstr (err, "extension.json"));
  g_assert_nonnull (strstr (err, "exec"));
  g_assert_cmpstr (out, ==, "");

  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "");
}

/* `zot ext install` takes an archive too, through the same unpacking as a
 * drop on the window: a good one installs, a hostile one is refused in one
 * line that names the entry, and leaves nothing. */
static void
test_cli_install_archive (Fixture       *f,
                          gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "cli-packed", "packed", "2.0");
  g_autofree char *archive = g_build_filename (f->work, "packed.tgz", NULL);
  g_autofree char *hostile = g_build_filename (f->work, "hostile.tar.gz", NULL);
  g_autofree char *escape = g_build_filename (source, "escape", NULL);
  g_autofree char *installed = g_build_filename (f->ext_dir, "packed", "run.sh", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *hostile_out = NULL;
  g_autofree char *hostile_err = NULL;
  g_autofree char *entries = NULL;
  const char *pack[] = { "tar", "-czf", archive, "-C", f->work, "cli-packed", NULL };
  const char *pack_hostile[] = { "tar", "-czf", hostile, "-C", f->work, "cli-packed", NULL };
  g_autoptr(GError) error = NULL;
  int status;

  g_spawn_sync (NULL, (char **) pack, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpint (symlink ("../../../..", escape), ==, 0);
  g_spawn_sync (NULL, (char **) pack_hostile, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  status = run_zot (f, &out, &err, "ext", "install", "--yes", archive, NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_file_test (installed, G_FILE_TEST_IS_EXECUTABLE));

  status = run_zot (f, &hostile_out, &hostile_err, "ext", "install", "--yes", "--force", hostile, NULL);
  g_assert_cmpint (status, ==, 1);
  assert_error_line (hostile_err);
  g_assert_nonnull (strstr (hostile_err, "\"cli-packed/escape\""));
  g_assert_nonnull (strstr (hostile_err, "outside the archive"));

  /* The first install is as it was. */
  entries = list_dir (f->ext_dir);
  g_assert_cmpstr (entries, ==, "packed");
}

static void
test_cli_usage (Fixture       *f,
                gconstpointer  user_data)
{
  const char *usage_errors[][4] = {
    { "ext", NULL, },
    { "ext", "bogus", NULL, },
    { "ext", "install", NULL, },
    { "ext", "list", "--bogus", NULL },
    { "ext", "list", "extra", NULL },
    { "ext", "logs", NULL, },
    { "ext", "remove", "a", "b" },
    { "update", "extra", NULL, },
  };
  char *out = NULL;
  char *err = NULL;
  int status;

  status = run_zot (f, &out, &err, "ext", "--help", NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "install"));
  g_assert_nonnull (strstr (out, "logs"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "install", "--help", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "--force"));
  g_assert_nonnull (strstr (out, "--project"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "update", "--help", NULL);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  for (guint i = 0; i < G_N_ELEMENTS (usage_errors); i++)
    {
      status = run_zot (f, &out, &err, usage_errors[i][0], usage_errors[i][1],
                        usage_errors[i][2], usage_errors[i][3], NULL);
      g_assert_cmpint (status, ==, 2);
      assert_error_line (err);
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
    }
}

static void
test_cli_logs (Fixture       *f,
               gconstpointer  user_data)
{
  g_autofree char *log = g_build_filename (f->home, "logs", "ext-hello.log", NULL);
  const char *text = "[zot] started hello\nsomething on stderr\n";
  char *out = NULL;
  char *err = NULL;
  int status;

  status = run_zot (f, &out, &err, "ext", "logs", "hello", NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_assert_nonnull (strstr (err, "no log"));
  g_assert_nonnull (strstr (err, log));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  write_file (log, text, 0644);
  status = run_zot (f, &out, &err, "ext", "logs", "hello", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, text);
  g_assert_cmpstr (err, ==, "");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "logs", "../hello", NULL);
  g_assert_cmpint (status, ==, 2);
  assert_error_line (err);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
}

static gboolean
on_deadline_cb (gpointer user_data)
{
  gboolean *passed = user_data;

  *passed = TRUE;
  return G_SOURCE_REMOVE;
}

static GAsyncResult *
wait_with_deadline (GAsyncResult **slot)
{
  gboolean passed = FALSE;
  guint deadline = g_timeout_add_seconds (FOLLOW_DEADLINE_SECONDS, on_deadline_cb, &passed);

  while (*slot == NULL && !passed)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (passed);
  g_source_remove (deadline);

  return *slot;
}

static char *
read_line (GDataInputStream *lines)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *line;

  g_data_input_stream_read_line_async (lines, G_PRIORITY_DEFAULT, NULL, on_done_cb, &result);
  line = g_data_input_stream_read_line_finish_utf8 (lines, wait_with_deadline (&result),
                                                    NULL, &error);
  g_assert_no_error (error);
  return line;
}

static void
test_cli_logs_follow (Fixture       *f,
                      gconstpointer  user_data)
{
  g_autofree char *log = g_build_filename (f->home, "logs", "ext-hello.log", NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) zot = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GAsyncResult) waited = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  const char *zot_bin = g_getenv ("ZOT_BIN");
  FILE *appender;

  if (zot_bin == NULL)
    {
      g_test_skip ("ZOT_BIN is not set; run through meson test");
      return;
    }

  write_file (log, "first line\n", 0644);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_cwd (launcher, f->work);
  zot = g_subprocess_launcher_spawn (launcher, &error, zot_bin, "ext", "logs", "hello", "-f", NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (zot));

  /* The existing content comes first; zot watches the file before that. */
  first = read_line (lines);
  g_assert_cmpstr (first, ==, "first line");

  appender = fopen (log, "a");
  g_assert_nonnull (appender);
  g_assert_cmpint (fputs ("second line\n", appender), >=, 0);
  g_assert_cmpint (fclose (appender), ==, 0);

  second = read_line (lines);
  g_assert_cmpstr (second, ==, "second line");

  /* ^C ends a follow, successfully. */
  g_subprocess_send_signal (zot, SIGINT);
  g_subprocess_wait_async (zot, NULL, on_done_cb, &waited);
  g_subprocess_wait_finish (zot, wait_with_deadline (&waited), &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (zot));
  g_assert_cmpint (g_subprocess_get_exit_status (zot), ==, 0);
}

static void
test_cli_update (Fixture       *f,
                 gconstpointer  user_data)
{
  g_autofree char *alpha = make_repo (f, "up-alpha", "alpha", "1.0");
  g_autofree char *delta = make_repo (f, "up-delta", "delta", "1.0");
  g_autofree char *gamma = make_extension (f, "plain-gamma", "gamma", "1.0");
  g_autofree char *alpha_url = file_url (alpha);
  g_autofree char *delta_url = file_url (delta);
  g_autofree char *alpha_data = g_build_filename (alpha, "data.txt", NULL);
  g_autofree char *installed_data = g_build_filename (f->ext_dir, "alpha", "data.txt", NULL);
  g_autofree char *contents = NULL;
  char *out = NULL;
  char *err = NULL;
  int status;

  status = run_zot (f, &out, &err, "update", NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_str_has_prefix (out, "no extensions installed"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "install", "--yes", alpha_url, NULL);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  status = run_zot (f, &out, &err, "ext", "install", "--yes", gamma, NULL);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  write_file (alpha_data, "2.0", 0644);
  run_git (alpha, "commit", "-q", "-a", "-m", "version 2", NULL);

  status = run_zot (f, &out, &err, "update", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, "alpha: updated\n"
                            "gamma: not a git checkout, skipped\n");
  g_assert_cmpstr (err, ==, "");
  contents = read_file (installed_data);
  g_assert_cmpstr (contents, ==, "2.0");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "update", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==, "alpha: already up to date\n"
                            "gamma: not a git checkout, skipped\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* One failure fails the run, and the others are still reported. */
  status = run_zot (f, &out, &err, "ext", "install", "--yes", delta_url, NULL);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_true (zot_test_remove_tree (delta));

  status = run_zot (f, &out, &err, "update", NULL);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (out, "alpha: already up to date\n"));
  g_assert_nonnull (strstr (out, "delta: failed: "));
  g_assert_nonnull (strstr (out, "gamma: not a git checkout, skipped\n"));
  assert_error_line (err);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
}

/* A name that reads as an option is refused at install; one installed
 * before that rule can still be removed, after "--". */
static void
test_cli_dash_names (Fixture       *f,
                     gconstpointer  user_data)
{
  g_autofree char *source = make_extension (f, "dash-source", "--force", "1.0");
  g_autofree char *old = g_build_filename (f->ext_dir, "--force", "extension.json", NULL);
  g_autofree char *old_dir = g_build_filename (f->ext_dir, "--force", NULL);
  char *out = NULL;
  char *err = NULL;
  int status;

  status = run_zot (f, &out, &err, "ext", "install", "--yes", source, NULL);
  if (status < 0)
    return;
  g_assert_cmpint (status, ==, 1);
  assert_error_line (err);
  g_assert_nonnull (strstr (err, "not start with \"-\""));
  g_assert_false (g_file_test (old_dir, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  write_file (old, "{ \"name\": \"--force\", \"exec\": \"sh\" }", 0644);
  status = run_zot (f, &out, &err, "ext", "remove", "--force", NULL);
  g_assert_cmpint (status, ==, 2);
  g_assert_true (g_file_test (old_dir, G_FILE_TEST_IS_DIR));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  status = run_zot (f, &out, &err, "ext", "remove", "--", "--force", NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_false (g_file_test (old_dir, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* "--" never lets a name reach outside the folder. */
  status = run_zot (f, &out, &err, "ext", "remove", "--", "../x", NULL);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (err, "not a valid extension name"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
}

int
main (int   argc,
      char *argv[])
{
  /* Before any thread starts: git must not read the machine's config nor
   * ask for credentials, and messages must not depend on the locale. */
  g_setenv ("GIT_CONFIG_NOSYSTEM", "1", TRUE);
  g_setenv ("GIT_TERMINAL_PROMPT", "0", TRUE);
  g_setenv ("LC_ALL", "C", TRUE);
  g_unsetenv ("ZOT_HOME");

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/installer/source-is-url", test_source_is_url);
  g_test_add_func ("/zot/installer/update-result-copy", test_update_result_copy);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/zot/installer/install-directory", test_install_directory);
  ADD ("/zot/installer/install-exists", test_install_exists);
  ADD ("/zot/installer/install-invalid", test_install_invalid);
  ADD ("/zot/installer/install-git", test_install_git);
  ADD ("/zot/installer/install-git-failure", test_install_git_failure);
  ADD ("/zot/installer/install-cancelled", test_install_cancelled);
  ADD ("/zot/installer/remove", test_remove);
  ADD ("/zot/installer/remove-async", test_remove_async);
  ADD ("/zot/installer/set-enabled", test_set_enabled);
  ADD ("/zot/installer/update", test_update);
  ADD ("/zot/installer/cli/manage", test_cli_manage);
  ADD ("/zot/installer/cli/enable-scope", test_cli_enable_scope);
  ADD ("/zot/installer/cli/install-broken", test_cli_install_broken);
  ADD ("/zot/installer/cli/install-archive", test_cli_install_archive);
  ADD ("/zot/installer/cli/usage", test_cli_usage);
  ADD ("/zot/installer/cli/dash-names", test_cli_dash_names);
  ADD ("/zot/installer/cli/logs", test_cli_logs);
  ADD ("/zot/installer/cli/logs-follow", test_cli_logs_follow);
  ADD ("/zot/installer/cli/update", test_cli_update);

#undef ADD

  return g_test_run ();
}
