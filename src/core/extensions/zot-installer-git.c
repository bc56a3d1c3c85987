/* zot-installer-git.c — git runs for the installer: the clone an install
 * from a URL starts with, and `zot ext update`, which pulls every installed
 * checkout in turn.
 */
#define G_LOG_DOMAIN "zot-installer"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-error.h"
#include "zot-flatpak.h"
#include "zot-grants.h"
#include "zot-installer.h"
#include "zot-installer-private.h"

/* git explains a failure over several lines; a message is one line. */
#define GIT_MESSAGE_MAX_CHARS 300

typedef struct
{
  GPtrArray *directories;
  GPtrArray *results;
  guint      index;
  char      *head_before;
  char      *head_after;
  char      *refusal;
  ZotInstallConsentFunc consent;   /* nullable */
  gpointer   consent_data;
  ZotPermissions *before;          /* what the previous version asked for */
  gboolean   had_manifest;         /* whether @before was read */
} UpdateData;

typedef struct
{
  GSubprocess *subprocess;
  GError      *error;       /* held while a cancelled git is reaped */
} GitRun;

static void
update_data_free (UpdateData *data)
{
  g_clear_pointer (&data->directories, g_ptr_array_unref);
  g_clear_pointer (&data->results, g_ptr_array_unref);
  g_free (data->head_before);
  g_free (data->head_after);
  g_free (data->refusal);
  g_clear_pointer (&data->before, zot_permissions_free);
  g_free (data);
}

static void
git_run_free (GitRun *run)
{
  g_clear_object (&run->subprocess);
  g_clear_error (&run->error);
  g_free (run);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* git's stderr: "Cloning…", then "fatal: …" and some hints. The first fatal
 * or error line says what went wrong; hints would break the one-line rule. */
static char *
summarize_git_stderr (GBytes      *stderr_bytes,
                      GSubprocess *subprocess)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  const char *first = NULL;
  const char *chosen = NULL;
  gsize length = 0;
  const char *bytes = NULL;

  if (stderr_bytes != NULL)
    bytes = g_bytes_get_data (stderr_bytes, &length);
  text = length > 0 ? g_utf8_make_valid (bytes, (gssize) length) : g_strdup ("");
  lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (*line == '\0')
        continue;
      if (first == NULL)
        first = line;
      if (g_str_has_prefix (line, "fatal:") || g_str_has_prefix (line, "error:"))
        {
          chosen = g_strchug (line + strlen ("fatal:"));
          break;
        }
    }

  if (chosen == NULL)
    chosen = first;

  if (chosen == NULL)
    {
      if (g_subprocess_get_if_exited (subprocess))
        return g_strdup_printf (_("git exited with status %d"),
                                g_subprocess_get_exit_status (subprocess));
      return g_strdup_printf (_("git was killed by signal %d"),
                              g_subprocess_get_term_sig (subprocess));
    }

  if (g_utf8_strlen (chosen, -1) > GIT_MESSAGE_MAX_CHARS)
    {
      g_autofree char *shortened = g_utf8_substring (chosen, 0, GIT_MESSAGE_MAX_CHARS);

      return g_strconcat (shortened, "…", NULL);
    }

  return g_strdup (chosen);
}

static void
git_reaped_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GitRun *run = g_task_get_task_data (task);

  /* It was killed; how it ended says nothing new. */
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  g_task_return_error (task, g_steal_pointer (&run->error));
}

static void
git_communicated_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GitRun *run = g_task_get_task_data (task);
  g_autoptr(GBytes) stdout_bytes = NULL;
  g_autoptr(GBytes) stderr_bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  gsize length = 0;

  if (!g_subprocess_communicate_finish (run->subprocess, result,
                                        &stdout_bytes, &stderr_bytes, &error))
    {
      /* Reap git before reporting, so that whoever deletes a cancelled
       * clone does not race a process still writing into it. */
      zot_flatpak_kill (run->subprocess, 0);
      run->error = g_steal_pointer (&error);
      g_subprocess_wait_async (run->subprocess, NULL, git_reaped_cb, g_steal_pointer (&task));
      return;
    }

  if (!g_subprocess_get_successful (run->subprocess))
    {
      g_autofree char *summary = summarize_git_stderr (stderr_bytes, run->subprocess);

      g_task_return_new_error (task, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_GIT, "%s", summary);
      return;
    }

  data = stdout_bytes != NULL ? g_bytes_get_data (stdout_bytes, &length) : NULL;
  g_task_return_pointer (task,
                         length > 0 ? g_utf8_make_valid (data, (gssize) length) : g_strdup (""),
                         g_free);
}

/* Runs git with captured output. Fails with ZOT_INSTALL_ERROR_GIT and the
 * gist of stderr when git fails, with G_SPAWN_ERROR when it cannot start. */
void
_zot_installer_git_run_async (const char * const  *argv,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GBytes) stdin_bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GStrvBuilder) hardened = g_strv_builder_new ();
  g_auto(GStrv) command = NULL;
  GitRun *run;

  /* A checkout is the extension's own to write: hooks it planted or an
   * fsmonitor command in its config would run as the user, outside any box. */
  g_strv_builder_add_many (hardened, argv[0], "-c", "core.hooksPath=/dev/null",
                           "-c", "core.fsmonitor=false", NULL);
  g_strv_builder_addv (hardened, (const char **) argv + 1);
  command = g_strv_builder_end (hardened);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, _zot_installer_git_run_async);
  run = g_new0 (GitRun, 1);
  g_task_set_task_data (task, run, (GDestroyNotify) git_run_free);

  /* stdin is a pipe closed at once: git never waits on the caller's. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  /* Inside Flatpak, the host's git: the paths it is given are the same there. */
  run->subprocess = zot_flatpak_spawnv (launcher, NULL, NULL, (const char * const *) command, &error);
  if (run->subprocess == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  stdin_bytes = g_bytes_new_static ("", 0);
  g_subprocess_communicate_async (run->subprocess, stdin_bytes, cancellable,
                                  git_communicated_cb, g_steal_pointer (&task));
}

/* Returns git's stdout. */
char *
_zot_installer_git_run_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_assert (g_task_is_valid (result, NULL));
  g_assert (g_task_get_source_tag (G_TASK (result)) == _zot_installer_git_run_async);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Update ------------------------------------------------------------------ */

static ZotUpdateResult *
update_result_new (const char      *directory,
                   ZotUpdateStatus  status,
                   char            *message)
{
  ZotUpdateResult *result = g_new0 (ZotUpdateResult, 1);

  result->name = g_path_get_basename (directory);
  result->directory = g_strdup (directory);
  result->status = status;
  result->message = message;

  return result;
}

static const char *
update_current_directory (UpdateData *data)
{
  g_assert (data->index < data->directories->len);

  return g_ptr_array_index (data->directories, data->index);
}

static void update_next (GTask *task);

/* Records a failed git step for the current directory and moves on, or ends
 * the whole update when it was cancelled. */
static void
update_step_failed (GTask        *task,
                    const char   *step,
                    const GError *error)
{
  UpdateData *data = g_task_get_task_data (task);
  const char *directory;
  char *message;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_error_copy (error));
      return;
    }

  directory = update_current_directory (data);
  if (error->domain == G_SPAWN_ERROR)
    message = g_strdup_printf (_("cannot run git (%s); install git"), error->message);
  else
    message = g_strdup_printf (_("git %s failed (%s); check the checkout in %s"),
                               step, error->message, directory);
  g_ptr_array_add (data->results,
                   update_result_new (directory, ZOT_UPDATE_STATUS_FAILED, message));
  data->index++;
  update_next (g_object_ref (task));
}

static void
update_add_updated (UpdateData *data,
                    const char *head)
{
  g_autofree char *before = g_strndup (data->head_before, 7);
  g_autofree char *after = g_strndup (head, 7);

  g_ptr_array_add (data->results,
                   update_result_new (update_current_directory (data), ZOT_UPDATE_STATUS_UPDATED,
                                      g_strdup_printf ("%s..%s", before, after)));
}

/* The previous version ran with what its manifest asked for when nothing
 * was ever granted (it was installed before grants were kept): that is the
 * grant the new one is held to. */
static void
update_seed_grant (UpdateData  *data,
                   const char  *name)
{
  g_autoptr(ZotGrant) grant = zot_grant_load (name);
  g_autoptr(GError) error = NULL;

  if (grant != NULL || !data->had_manifest)
    return;
  grant = zot_grant_new (data->before);
  if (!zot_grant_save (name, grant, &error))
    g_warning ("%s", error->message);
}

/* Runs in a worker thread while the update waits: the consent may read a
 * terminal. The main thread touches nothing of @data meanwhile. */
static void
update_consent_thread (GTask        *ask,
                       gpointer      source,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  UpdateData *data = task_data;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = zot_manifest_new_for_directory (update_current_directory (data), &error);
  if (manifest != NULL)
    update_seed_grant (data, zot_manifest_get_name (manifest));
  if (manifest == NULL || !data->consent (manifest, data->consent_data, &error))
    g_task_return_error (ask, g_steal_pointer (&error));
  else
    g_task_return_boolean (ask, TRUE);
}

static void
update_reset_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  UpdateData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *output = _zot_installer_git_run_finish (result, &error);

  if (output == NULL)
    {
      update_step_failed (task, "reset --keep", error);
      return;
    }
  g_ptr_array_add (data->results,
                   update_result_new (update_current_directory (data), ZOT_UPDATE_STATUS_REFUSED,
                                      g_steal_pointer (&data->refusal)));
  data->index++;
  update_next (g_steal_pointer (&task));
}

/* A refused update goes back to the commit it had, so the version the user
 * accepted is the one installed and running; --keep leaves any local
 * change to other files alone. */
static void
update_consent_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  UpdateData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  const char *argv[] = {
    "git", "-C", update_current_directory (data), "reset", "--quiet", "--keep", data->head_before, NULL
  };

  if (g_task_propagate_boolean (G_TASK (result), &error))
    {
      update_add_updated (data, data->head_after);
      data->index++;
      update_next (g_steal_pointer (&task));
      return;
    }
  g_free (data->refusal);
  data->refusal = g_strdup (error->message);
  _zot_installer_git_run_async (argv, NULL, update_reset_cb, g_steal_pointer (&task));
}

static void
update_head_after_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  UpdateData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *head = NULL;
  const char *directory;

  head = _zot_installer_git_run_finish (result, &error);
  if (head == NULL)
    {
      update_step_failed (task, "rev-parse HEAD", error);
      return;
    }
  g_strstrip (head);

  directory = update_current_directory (data);
  if (g_strcmp0 (head, data->head_before) == 0)
    {
      g_ptr_array_add (data->results,
                       update_result_new (directory, ZOT_UPDATE_STATUS_UP_TO_DATE, NULL));
    }
  else if (data->consent != NULL)
    {
      GCancellable *cancellable = g_task_get_cancellable (task);
      GTask *ask = g_task_new (NULL, cancellable, update_consent_cb, g_steal_pointer (&task));

      g_free (data->head_after);
      data->head_after = g_strdup (head);
      g_task_set_task_data (ask, data, NULL);
      g_task_run_in_thread (ask, update_consent_thread);
      g_object_unref (ask);
      return;
    }
  else
    update_add_updated (data, head);

  data->index++;
  update_next (g_steal_pointer (&task));
}

static void
update_pulled_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  UpdateData *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;
  const char *argv[] = { "git", "-C", update_current_directory (data), "rev-parse", "HEAD", NULL };

  output = _zot_installer_git_run_finish (result, &error);
  if (output == NULL)
    {
      update_step_failed (task, "pull --ff-only", error);
      return;
    }

  _zot_installer_git_run_async (argv, cancellable, update_head_after_cb, g_steal_pointer (&task));
}

static void
update_head_before_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  UpdateData *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *head = NULL;
  const char *argv[] = {
    "git", "-C", update_current_directory (data), "pull", "--ff-only", "--quiet", NULL
  };

  head = _zot_installer_git_run_finish (result, &error);
  if (head == NULL)
    {
      update_step_failed (task, "rev-parse HEAD", error);
      return;
    }

  g_free (data->head_before);
  data->head_before = g_strstrip (g_steal_pointer (&head));
  g_clear_pointer (&data->before, zot_permissions_free);
  data->had_manifest = FALSE;
  if (data->consent != NULL)
    {
      /* One small bounded file; the previous version's rights, for an
       * extension that has no grant yet. */
      g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (update_current_directory (data), NULL);

      data->before = manifest != NULL ? zot_permissions_copy (zot_manifest_get_permissions (manifest)) : NULL;
      data->had_manifest = manifest != NULL;
    }

  _zot_installer_git_run_async (argv, cancellable, update_pulled_cb, g_steal_pointer (&task));
}

/* One checkout at a time: git is mostly waiting on the network, and the
 * results come back in the order of the directory names. */
static void
update_next (GTask *task_in)
{
  g_autoptr(GTask) task = task_in;
  UpdateData *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  while (data->index < data->directories->len)
    {
      const char *directory = update_current_directory (data);
      g_autofree char *git_dir = g_build_filename (directory, ".git", NULL);
      const char *argv[] = { "git", "-C", directory, "rev-parse", "HEAD", NULL };

      if (g_task_return_error_if_cancelled (task))
        return;

      /* .git is a directory in a clone, a file in a worktree. */
      if (!g_file_test (git_dir, G_FILE_TEST_EXISTS))
        {
          g_ptr_array_add (data->results,
                           update_result_new (directory, ZOT_UPDATE_STATUS_NOT_GIT, NULL));
          data->index++;
          continue;
        }

      _zot_installer_git_run_async (argv, cancellable, update_head_before_cb,
                                    g_steal_pointer (&task));
      return;
    }

  if (g_task_return_error_if_cancelled (task))
    return;

  g_task_return_pointer (task, g_ptr_array_ref (data->results), (GDestroyNotify) g_ptr_array_unref);
}

/**
 * zot_installer_update_async:
 * @extensions_dir: the directory extensions are installed in
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Runs `git pull --ff-only` in every directory under @extensions_dir that is
 * a git checkout, one after the other. A failing checkout does not stop the
 * others; it is reported in its #ZotUpdateResult.
 */
void
zot_installer_update_async (const char          *extensions_dir,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  zot_installer_update_consent_async (extensions_dir, NULL, NULL, cancellable, callback, user_data);
}

/**
 * zot_installer_update_consent_async:
 * @consent: (nullable): asked, in a worker thread, about each checkout
 *   that moved, with its new manifest; %FALSE resets it to the commit it
 *   had and reports %ZOT_UPDATE_STATUS_REFUSED
 *
 * As zot_installer_update_async().
 */
void
zot_installer_update_consent_async (const char            *extensions_dir,
                                    ZotInstallConsentFunc  consent,
                                    gpointer               consent_data,
                                    GCancellable          *cancellable,
                                    GAsyncReadyCallback    callback,
                                    gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = NULL;
  UpdateData *data;
  const char *name;

  g_return_if_fail (extensions_dir != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_installer_update_async);

  data = g_new0 (UpdateData, 1);
  data->directories = g_ptr_array_new_with_free_func (g_free);
  data->results = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_update_result_free);
  data->consent = consent;
  data->consent_data = consent_data;
  g_task_set_task_data (task, data, (GDestroyNotify) update_data_free);

  parent = g_canonicalize_filename (extensions_dir, NULL);

  /* Listing one directory is quick; the git runs are what must not block. */
  dir = g_dir_open (parent, 0, &error);
  if (dir == NULL && !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               _("cannot list %s (%s); check its permissions"),
                               parent, error->message);
      return;
    }

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (parent, name, NULL);

      /* Hidden entries are installs and removals in progress. */
      if (name[0] != '.' && g_file_test (path, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (data->directories, g_steal_pointer (&path));
    }
  g_ptr_array_sort (data->directories, compare_strings);

  update_next (g_steal_pointer (&task));
}

/**
 * zot_installer_update_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (element-type ZotUpdateResult): one result per
 *   extension directory, sorted by name, or %NULL with @error set when the
 *   update was cancelled or the directory could not be listed
 */
GPtrArray *
zot_installer_update_finish (GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_installer_update_async,
                        NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Misc -------------------------------------------------------------------- */

ZotUpdateResult *
zot_update_result_copy (const ZotUpdateResult *result)
{
  ZotUpdateResult *copy;

  g_return_val_if_fail (result != NULL, NULL);

  copy = g_new0 (ZotUpdateResult, 1);
  copy->name = g_strdup (result->name);
  copy->directory = g_strdup (result->directory);
  copy->status = result->status;
  copy->message = g_strdup (result->message);

  return copy;
}

void
zot_update_result_free (ZotUpdateResult *result)
{
  if (result == NULL)
    return;

  g_free (result->name);
  g_free (result->directory);
  g_free (result->message);
  g_free (result);
}
