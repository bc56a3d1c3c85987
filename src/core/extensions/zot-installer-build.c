/* zot-installer-build.c — `zot ext install --build`: the manifest's
 * `build` runs in the staged copy, before it is moved into place.
 *
 * So a build that fails, is killed at ZOT_INSTALL_BUILD_TIMEOUT_MS or is
 * cancelled leaves nothing behind, and an installed version that --force
 * would have replaced stays as it was. It runs on the install's worker
 * thread, which waits for it on a main context of its own; the runner is
 * watch mode's (zot-extension-build.c), its output in the extension's log.
 */
#define G_LOG_DOMAIN "zot-installer"

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-error.h"
#include "zot-extension-build.h"
#include "zot-installer-private.h"
#include "zot-limits.h"
#include "zot-paths.h"

static void
built_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Worker thread. Without a `build` there is nothing to run. */
gboolean
_zot_installer_build (InstallData   *data,
                      ZotManifest   *staged,
                      GCancellable  *cancellable,
                      GError       **error)
{
  const char * const *argv = zot_manifest_get_build (staged);
  const char *name = zot_manifest_get_name (staged);
  g_autoptr(GMainContext) context = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *logs = zot_paths_get_logs_dir ();
  g_autofree char *log_path = zot_paths_get_log_file (name);

  if (argv == NULL)
    return TRUE;
  if (g_mkdir_with_parents (logs, 0700) != 0)
    g_clear_pointer (&log_path, g_free);

  context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  zot_extension_build_async (data->staging, argv, name, log_path, ZOT_TIMEOUT_INSTALL_BUILD,
                             cancellable, built_cb, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  if (zot_extension_build_finish (result, &local_error))
    return TRUE;
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* Translators: the extension's name, why its build failed, then the log with its output */
  g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_BUILD,
               _("building %s failed: %s; nothing was installed (the build's output is in %s)"),
               name, local_error->message, log_path != NULL ? log_path : "-");
  return FALSE;
}
