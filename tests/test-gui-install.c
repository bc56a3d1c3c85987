/* test-gui-install.c — dropping a folder or an archive on the window: the
 * install flow with its answers scripted, through the same handlers as the
 * dialog's buttons. It installs for the project or for every project and
 * reloads; a broken folder or archive installs nothing and leaves nothing
 * behind, the unpacking directory included. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "zot-archive.h"
#include "zot-error.h"
#include "zot-host.h"
#include "zot-install-dialog.h"
#include "zot-install-dialog-private.h"
#include "zot-paths.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GtkWindow  *window;
  char       *user_dir;
  char       *project_dir;
} Fixture;

typedef struct
{
  gboolean  done;
  gboolean  ok;
  char     *name;
  GError   *error;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->name, g_free);
  g_clear_error (&run->error);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  zot_test_env_setup (&f->env);

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);

  f->user_dir = zot_paths_get_extensions_dir ();
  f->project_dir = zot_paths_get_project_extensions_dir (f->env.cwd);

  /* Toasts go to the overlay of the parent window. */
  f->window = GTK_WINDOW (adw_window_new ());
  adw_window_set_content (ADW_WINDOW (f->window), adw_toast_overlay_new ());
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (f->window);

  zot_test_finalize_host (&f->host);

  g_clear_pointer (&f->user_dir, g_free);
  g_clear_pointer (&f->project_dir, g_free);
  zot_test_env_teardown (&f->env);
}

static void
run_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  Run *run = user_data;

  run->ok = _zot_install_dialog_run_finish (result, &run->name, &run->error);
  run->done = TRUE;
}

static void
install (Fixture    *f,
         const char *path,
         const char *scope,
         Run        *run)
{
  g_autoptr(GFile) source = g_file_new_for_path (path);

  run_clear (run);
  run->done = FALSE;
  _zot_install_dialog_run (f->window, source, f->host, scope, run_cb, run);
  zot_test_wait_for (&run->done, 60000);
}

/* Missing, or empty: nothing installed, no staging directory left. */
static void
assert_nothing_in (const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);

  if (listing != NULL)
    g_assert_null (g_dir_read_name (listing));
}

static void
assert_nothing_installed (Fixture *f)
{
  assert_nothing_in (f->user_dir);
  assert_nothing_in (f->project_dir);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (zot_host_get_manager (f->host))), ==, 0);
}

static void
assert_installed_ready (Fixture           *f,
                        const char        *name,
                        const char        *parent,
                        ZotExtensionScope  scope)
{
  g_autofree char *manifest = g_build_filename (parent, name, "extension.json", NULL);
  ZotExtension *extension;

  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));

  /* The reload happened before the run completed. */
  extension = zot_extension_manager_find (zot_host_get_manager (f->host), name);
  g_assert_nonnull (extension);
  g_assert_cmpint (zot_extension_get_scope (extension), ==, scope);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
}

static void
assert_temp_dir_gone (void)
{
  const char *temp = _zot_install_dialog_get_last_temp_dir ();

  g_assert_nonnull (temp);
  g_assert_false (g_file_test (temp, G_FILE_TEST_EXISTS));
}

/* A folder with a fake extension named @name, under @parent. */
static char *
make_fake (Fixture    *f,
           const char *parent,
           const char *name)
{
  g_autofree char *where = g_build_filename (f->env.root, parent, NULL);

  g_mkdir_with_parents (where, 0700);
  return zot_test_make_fake_args (where, name, "--command", "hi", NULL);
}

static void
spawn (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);
}

static void
test_folder_user (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "src", "for-everyone");
  g_auto(Run) run = { 0 };

  install (f, dir, "user", &run);
  g_assert_no_error (run.error);
  g_assert_true (run.ok);
  g_assert_cmpstr (run.name, ==, "for-everyone");
  assert_installed_ready (f, "for-everyone", f->user_dir, ZOT_EXTENSION_SCOPE_USER);
  assert_nothing_in (f->project_dir);

  /* The source stays where it was. */
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
}

static void
test_folder_project (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *fixture = zot_test_fixture_dir ("py-echo");
  g_auto(Run) run = { 0 };

  install (f, fixture, "project", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.name, ==, "py-echo");
  assert_installed_ready (f, "py-echo", f->project_dir, ZOT_EXTENSION_SCOPE_PROJECT);
  assert_nothing_in (f->user_dir);
}

static void
test_replace (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "src", "twice");
  g_autofree char *marker = g_build_filename (dir, "NEW", NULL);
  g_autofree char *installed_marker = g_build_filename (f->user_dir, "twice", "NEW", NULL);
  g_auto(Run) run = { 0 };

  install (f, dir, "user", &run);
  g_assert_true (run.ok);

  /* Installed already: "Replace?" is answered yes, and the copy is new. */
  g_file_set_contents (marker, "", 0, NULL);
  install (f, dir, "user", &run);
  g_assert_no_error (run.error);
  g_assert_true (run.ok);
  g_assert_true (g_file_test (installed_marker, G_FILE_TEST_EXISTS));
  assert_installed_ready (f, "twice", f->user_dir, ZOT_EXTENSION_SCOPE_USER);
}

static void
test_tar_gz (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "pkg", "tarred");
  g_autofree char *pkg = g_build_filename (f->env.root, "pkg", NULL);
  g_autofree char *archive = g_build_filename (f->env.root, "tarred-1.0.tar.gz", NULL);
  const char *argv[] = { "tar", "-czf", archive, "-C", pkg, "tarred", NULL };
  g_auto(Run) run = { 0 };

  spawn (argv);
  install (f, archive, "user", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.name, ==, "tarred");
  assert_installed_ready (f, "tarred", f->user_dir, ZOT_EXTENSION_SCOPE_USER);
  assert_temp_dir_gone ();
}

static void
test_tgz_at_root (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "pkg", "rooted");
  g_autofree char *archive = g_build_filename (f->env.root, "rooted.tgz", NULL);
  const char *argv[] = { "tar", "-czf", archive, "-C", dir, ".", NULL };
  g_auto(Run) run = { 0 };

  /* extension.json at the top of the archive: the unpacked directory is the
   * extension. */
  spawn (argv);
  install (f, archive, "project", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.name, ==, "rooted");
  assert_installed_ready (f, "rooted", f->project_dir, ZOT_EXTENSION_SCOPE_PROJECT);
  assert_temp_dir_gone ();
}

static void
test_zip (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "pkg", "zipped");
  g_autofree char *pkg = g_build_filename (f->env.root, "pkg", NULL);
  g_autofree char *archive = g_build_filename (f->env.root, "zipped.zip", NULL);
  g_autofree char *top = g_build_filename (pkg, "zipped", NULL);
  const char *argv[] = { "python3", "-m", "zipfile", "-c", archive, top, NULL };
  g_auto(Run) run = { 0 };

  spawn (argv);

  install (f, archive, "user", &run);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.name, ==, "zipped");
  assert_installed_ready (f, "zipped", f->user_dir, ZOT_EXTENSION_SCOPE_USER);
  assert_temp_dir_gone ();
}

static void
test_broken_folder (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *fixture = zot_test_fixture_dir ("no-exec");
  g_auto(Run) run = { 0 };

  install (f, fixture, "user", &run);
  g_assert_false (run.ok);
  g_test_message ("%s", run.error->message);
  g_assert_error (run.error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID);
  g_assert_nonnull (strstr (run.error->message, "exec"));
  g_assert_null (strchr (run.error->message, '\n'));
  assert_nothing_installed (f);
}

static void
test_broken_archive (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *archive = g_build_filename (f->env.root, "broken.tar.gz", NULL);
  g_auto(Run) run = { 0 };

  g_file_set_contents (archive, "this is not an archive\n", -1, NULL);

  install (f, archive, "user", &run);
  g_assert_false (run.ok);
  g_test_message ("%s", run.error->message);
  /* Its name says tar.gz; its content says otherwise, and wins. */
  g_assert_error (run.error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_NOT_ARCHIVE);
  g_assert_nonnull (strstr (run.error->message, "broken.tar.gz"));
  g_assert_null (strchr (run.error->message, '\n'));
  assert_nothing_installed (f);
  assert_temp_dir_gone ();
}

static void
test_archive_without_manifest (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *content = g_build_filename (f->env.root, "pkg", "empty", NULL);
  g_autofree char *readme = g_build_filename (content, "README", NULL);
  g_autofree char *pkg = g_build_filename (f->env.root, "pkg", NULL);
  g_autofree char *archive = g_build_filename (f->env.root, "empty.tar.xz", NULL);
  const char *argv[] = { "tar", "-cJf", archive, "-C", pkg, "empty", NULL };
  g_auto(Run) run = { 0 };
  const char *temp;

  g_mkdir_with_parents (content, 0700);
  g_file_set_contents (readme, "no manifest here\n", -1, NULL);
  spawn (argv);

  install (f, archive, "user", &run);
  g_assert_false (run.ok);
  g_test_message ("%s", run.error->message);
  g_assert_error (run.error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND);

  /* The message names the archive, not the unpacking directory. */
  temp = _zot_install_dialog_get_last_temp_dir ();
  g_assert_nonnull (temp);
  g_assert_null (strstr (run.error->message, temp));
  g_assert_nonnull (strstr (run.error->message, "empty.tar.xz"));
  assert_nothing_installed (f);
  assert_temp_dir_gone ();
}

static void
test_not_an_archive (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->env.root, "notes.txt", NULL);
  g_auto(Run) run = { 0 };

  g_file_set_contents (path, "hello\n", -1, NULL);

  install (f, path, "user", &run);
  g_assert_false (run.ok);
  g_test_message ("%s", run.error->message);
  g_assert_error (run.error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_NOT_ARCHIVE);
  g_assert_nonnull (strstr (run.error->message, "notes.txt"));
  assert_nothing_installed (f);
}

static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "pkg", "unwanted");
  g_autofree char *pkg = g_build_filename (f->env.root, "pkg", NULL);
  g_autofree char *archive = g_build_filename (f->env.root, "unwanted.tar.gz", NULL);
  const char *argv[] = { "tar", "-czf", archive, "-C", pkg, "unwanted", NULL };
  g_auto(Run) run = { 0 };

  install (f, dir, "cancel", &run);
  g_assert_false (run.ok);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  assert_nothing_installed (f);

  spawn (argv);
  install (f, archive, "cancel", &run);
  g_assert_false (run.ok);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  assert_nothing_installed (f);
  assert_temp_dir_gone ();
}

static AdwMessageDialog *
find_install_dialog (void)
{
  return (AdwMessageDialog *) zot_test_find_window (ADW_TYPE_MESSAGE_DIALOG);
}

static gboolean
install_dialog_shown (gpointer data)
{
  return find_install_dialog () != NULL;
}

/* Opens the dialog on a folder holding @manifest, as the user sees it, and
 * returns its text; cancels it. */
static char *
shown_before_install (Fixture    *f,
                      const char *name,
                      const char *manifest)
{
  g_autofree char *dir = g_build_filename (f->env.root, "shown", name, NULL);
  g_autofree char *path = g_build_filename (dir, "extension.json", NULL);
  g_autoptr(GFile) source = g_file_new_for_path (dir);
  g_auto(Run) run = { 0 };
  AdwMessageDialog *dialog;
  char *text;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, manifest, -1, NULL));
  _zot_install_dialog_run (f->window, source, f->host, NULL, run_cb, &run);
  zot_test_wait_until (install_dialog_shown, NULL, 30000);
  dialog = find_install_dialog ();
  text = zot_test_widget_text (GTK_WIDGET (dialog));
  /* As a click on Cancel does: the response, then the dialog closes. */
  g_object_ref (dialog);
  adw_message_dialog_response (dialog, "cancel");
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_object_unref (dialog);
  zot_test_wait_for (&run.done, 30000);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  assert_nothing_installed (f);
  return text;
}

static void
test_permissions_shown (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *confined =
    shown_before_install (f, "boxed",
                          "{\"name\": \"boxed\", \"exec\": \"sh\", \"permissions\": {\"filesystem\": "
                          "\"project:ro\", \"network\": true, \"env\": [\"LANG\"], \"secrets\": [\"TOKEN\"], "
                          "\"devices\": true}, \"limits\": {\"memory_mb\": 256}}");
  g_autofree char *unconfined =
    shown_before_install (f, "free", "{\"name\": \"free\", \"exec\": \"sh\"}");

  g_assert_nonnull (strstr (confined, "Install boxed?"));
  g_assert_nonnull (strstr (confined, "Asks for"));
  g_assert_nonnull (strstr (confined, "\nconfined: project read-only, network\n"));
  g_assert_nonnull (strstr (confined, "\nenvironment: LANG\n"));
  g_assert_nonnull (strstr (confined, "\nsecrets: TOKEN\n"));
  g_assert_nonnull (strstr (confined, "\ndevices (/dev)\n"));
  g_assert_nonnull (strstr (confined, "\nmemory limit: 256 MB\n"));
  g_assert_null (strstr (confined, "unconfined"));

  g_assert_nonnull (strstr (unconfined, "\nunconfined\n"));
  g_assert_nonnull (strstr (unconfined, "\nit runs with all your rights: every file, the network\n"));
  g_assert_null (strstr (unconfined, "confined:"));
}

/* No archiver program is needed: with none on $PATH, a zip and a tar.gz
 * still install, each told apart by its content. */
static void
test_without_archivers (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "pkg", "plain");
  g_autofree char *other = make_fake (f, "pkg", "zipped");
  g_autofree char *pkg = g_build_filename (f->env.root, "pkg", NULL);
  g_autofree char *archive = g_build_filename (f->env.root, "plain.tar.gz", NULL);
  g_autofree char *zip = g_build_filename (f->env.root, "zipped.tgz", NULL);
  g_autofree char *bin = g_build_filename (f->env.root, "bin", NULL);
  g_autofree char *saved_path = g_strdup (g_getenv ("PATH"));
  const char *tar_argv[] = { "tar", "-czf", archive, "-C", pkg, "plain", NULL };
  const char *zip_argv[] = { "python3", "-m", "zipfile", "-c", zip, other, NULL };
  g_auto(Run) run = { 0 };
  g_auto(Run) zipped = { 0 };

  spawn (tar_argv);
  spawn (zip_argv);

  g_mkdir_with_parents (bin, 0700);
  g_setenv ("PATH", bin, TRUE);
  install (f, archive, "user", &run);
  install (f, zip, "user", &zipped);
  g_setenv ("PATH", saved_path, TRUE);

  g_assert_no_error (run.error);
  g_assert_cmpstr (run.name, ==, "plain");
  g_assert_no_error (zipped.error);
  g_assert_cmpstr (zipped.name, ==, "zipped");
  assert_installed_ready (f, "plain", f->user_dir, ZOT_EXTENSION_SCOPE_USER);
  assert_temp_dir_gone ();
}

/* A git URL: asked where, cloned with its .git, then loaded. */
static void
test_git_url (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *dir = make_fake (f, "repo", "cloned");
  g_autofree char *url = g_strconcat ("file://", dir, NULL);
  g_autofree char *git_dir = NULL;
  const char *init[] = { "git", "-C", dir, "init", "--quiet", NULL };
  const char *add[] = { "git", "-C", dir, "add", "extension.json", NULL };
  const char *commit[] = { "git", "-C", dir, "-c", "user.name=zot", "-c", "user.email=zot@localhost",
                           "commit", "--quiet", "-m", "extension", NULL };
  g_auto(Run) run = { 0 };

  spawn (init);
  spawn (add);
  spawn (commit);

  _zot_install_dialog_run_url (f->window, url, f->host, "user", run_cb, &run);
  zot_test_wait_for (&run.done, 60000);
  g_assert_no_error (run.error);
  g_assert_cmpstr (run.name, ==, "cloned");
  assert_installed_ready (f, "cloned", f->user_dir, ZOT_EXTENSION_SCOPE_USER);
  git_dir = g_build_filename (f->user_dir, "cloned", ".git", NULL);
  g_assert_true (g_file_test (git_dir, G_FILE_TEST_IS_DIR));
}

/* "Install Extension…": the clone button waits for a URL. */
static void
test_choose_dialog (Fixture       *f,
                    gconstpointer  data)
{
  GtkWidget *dialog = zot_install_dialog_choose (f->window, f->host);
  AdwMessageDialog *message = ADW_MESSAGE_DIALOG (dialog);
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (message));

  g_assert_true (adw_message_dialog_has_response (message, "folder"));
  g_assert_true (adw_message_dialog_has_response (message, "archive"));
  g_assert_false (adw_message_dialog_get_response_enabled (message, "clone"));

  gtk_editable_set_text (entry, "https://example.org/owner/ext.git");
  g_assert_true (adw_message_dialog_get_response_enabled (message, "clone"));
  gtk_editable_set_text (entry, "./not-a-url");
  g_assert_false (adw_message_dialog_get_response_enabled (message, "clone"));

  adw_message_dialog_response (message, "cancel");
  gtk_window_destroy (GTK_WINDOW (dialog));
  assert_nothing_installed (f);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  g_test_add ("/zot/gui/install/folder-user", Fixture, NULL, fixture_setup, test_folder_user, fixture_teardown);
  g_test_add ("/zot/gui/install/folder-project", Fixture, NULL, fixture_setup, test_folder_project,
              fixture_teardown);
  g_test_add ("/zot/gui/install/replace", Fixture, NULL, fixture_setup, test_replace, fixture_teardown);
  g_test_add ("/zot/gui/install/tar-gz", Fixture, NULL, fixture_setup, test_tar_gz, fixture_teardown);
  g_test_add ("/zot/gui/install/tgz-at-root", Fixture, NULL, fixture_setup, test_tgz_at_root, fixture_teardown);
  g_test_add ("/zot/gui/install/zip", Fixture, NULL, fixture_setup, test_zip, fixture_teardown);
  g_test_add ("/zot/gui/install/broken-folder", Fixture, NULL, fixture_setup, test_broken_folder,
              fixture_teardown);
  g_test_add ("/zot/gui/install/broken-archive", Fixture, NULL, fixture_setup, test_broken_archive,
              fixture_teardown);
  g_test_add ("/zot/gui/install/archive-without-manifest", Fixture, NULL, fixture_setup,
              test_archive_without_manifest, fixture_teardown);
  g_test_add ("/zot/gui/install/not-an-archive", Fixture, NULL, fixture_setup, test_not_an_archive,
              fixture_teardown);
  g_test_add ("/zot/gui/install/git-url", Fixture, NULL, fixture_setup, test_git_url,
              fixture_teardown);
  g_test_add ("/zot/gui/install/choose-dialog", Fixture, NULL, fixture_setup, test_choose_dialog,
              fixture_teardown);
  g_test_add ("/zot/gui/install/without-archivers", Fixture, NULL, fixture_setup, test_without_archivers,
              fixture_teardown);
  g_test_add ("/zot/gui/install/cancel", Fixture, NULL, fixture_setup, test_cancel, fixture_teardown);
  g_test_add ("/zot/gui/install/permissions-shown", Fixture, NULL, fixture_setup, test_permissions_shown,
              fixture_teardown);

  return g_test_run ();
}
