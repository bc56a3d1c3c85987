/* zot-installer-remove.c — uninstalling: the extension's directory leaves
 * the load order in one rename, then its files are deleted.
 */
#define G_LOG_DOMAIN "zot-installer"

#include "config.h"

#include <errno.h>
#include <sys/stat.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-error.h"
#include "zot-installer.h"
#include "zot-installer-private.h"
#include "zot-names.h"
#include "zot-paths.h"

void
_zot_installer_set_error_from_errno (GError     **error,
                                     int          saved_errno,
                                     const char  *format,
                                     const char  *path)
{
  g_assert (format != NULL);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               format, path, g_strerror (saved_errno));
}

void
_zot_installer_remove_tree_quietly (const char *path)
{
  g_autoptr(GError) error = NULL;

  if (!zot_remove_tree (path, &error))
    g_debug ("Leaving %s behind: %s", path, error->message);
}

/* Remove ------------------------------------------------------------------ */

/**
 * zot_installer_remove:
 * @extensions_dir: the directory extensions are installed in
 * @name: the extension's directory name
 * @error: return location for a #GError
 *
 * Deletes @extensions_dir/@name. A symbolic link is removed, not its target.
 * The directory first leaves the load order in one rename, so a failure
 * halfway through the delete leaves no broken extension behind.
 *
 * Returns: %TRUE on success
 */
gboolean
zot_installer_remove (const char  *extensions_dir,
                      const char  *name,
                      GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *doomed = NULL;
  g_autoptr(GError) local_error = NULL;
  GStatBuf st;

  g_return_val_if_fail (extensions_dir != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!zot_name_is_existing_directory (name))
    {
      g_autofree char *shown = zot_name_excerpt (name);

      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_INVALID_NAME,
                   _("\"%s\" is not a valid extension name; give the name that zot ext list shows"),
                   shown);
      return FALSE;
    }

  path = g_build_filename (extensions_dir, name, NULL);

  if (g_lstat (path, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED,
                     _("no extension named \"%s\" is installed in %s; "
                       "zot ext list shows the installed ones"),
                     name, extensions_dir);
      else
        _zot_installer_set_error_from_errno (error, saved_errno,
                                             _("cannot look at %s (%s); check its permissions"),
                                             path);
      return FALSE;
    }

  if (!S_ISDIR (st.st_mode))
    {
      if (g_unlink (path) != 0)
        {
          _zot_installer_set_error_from_errno (error, errno,
                                               _("cannot delete %s (%s); check its permissions"),
                                               path);
          return FALSE;
        }
      return TRUE;
    }

  /* rename(2) replaces an empty directory, which g_mkdtemp() made unique. */
  doomed = g_build_filename (extensions_dir, REMOVING_TEMPLATE, NULL);
  if (g_mkdtemp (doomed) == NULL)
    {
      _zot_installer_set_error_from_errno (error, errno,
                                           _("cannot delete %s (%s); check its permissions"), path);
      return FALSE;
    }

  if (g_rename (path, doomed) != 0)
    {
      int saved_errno = errno;

      g_rmdir (doomed);
      _zot_installer_set_error_from_errno (error, saved_errno,
                                           _("cannot delete %s (%s); check its permissions"), path);
      return FALSE;
    }

  if (!zot_remove_tree (doomed, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("%s was uninstalled, but deleting its files failed (%s); delete %s by hand"),
                   name, local_error->message, doomed);
      return FALSE;
    }

  return TRUE;
}

typedef struct
{
  char *extensions_dir;
  char *name;
} RemoveJob;

static void
remove_job_free (RemoveJob *job)
{
  g_free (job->extensions_dir);
  g_free (job->name);
  g_free (job);
}

static void
remove_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  RemoveJob *job = task_data;
  GError *error = NULL;

  if (zot_installer_remove (job->extensions_dir, job->name, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * zot_installer_remove_async:
 *
 * zot_installer_remove() on a worker thread: a big extension (a
 * node_modules folder) takes a while to delete, and the window must not
 * wait for the disk.
 */
void
zot_installer_remove_async (const char          *extensions_dir,
                            const char          *name,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  RemoveJob *job;

  g_return_if_fail (extensions_dir != NULL);
  g_return_if_fail (name != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_installer_remove_async);

  job = g_new0 (RemoveJob, 1);
  job->extensions_dir = g_strdup (extensions_dir);
  job->name = g_strdup (name);
  g_task_set_task_data (task, job, (GDestroyNotify) remove_job_free);
  g_task_run_in_thread (task, remove_thread);
}

gboolean
zot_installer_remove_finish (GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
