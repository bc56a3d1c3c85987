/* zot-cli-ext-build.c — what `zot ext install` does once the copy is in
 * place: with --build, the manifest's `build` runs in it (the runner watch
 * mode uses, bounded by ZOT_INSTALL_BUILD_TIMEOUT_MS, its output in the
 * extension's log) and a failed build removes the copy again; without, a
 * program that is not there yet is a warning saying how to build it.
 * Also the main loop the `ext` commands wait on.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <signal.h>

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-cli-private.h"
#include "zot-extension-build.h"
#include "zot-installer.h"
#include "zot-limits.h"
#include "zot-paths.h"

void
zot_cli_async_wait_done_cb (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  ZotCliAsyncWait *wait = user_data;

  wait->result = g_object_ref (result);
  g_main_loop_quit (wait->loop);
}

static gboolean
on_interrupt_cancel_cb (gpointer user_data)
{
  ZotCliAsyncWait *wait = user_data;

  /* The installer then removes what it staged, and a build is killed;
   * dying here would do neither. */
  g_cancellable_cancel (wait->cancellable);
  return G_SOURCE_CONTINUE;
}

void
zot_cli_async_wait_init (ZotCliAsyncWait *wait)
{
  wait->loop = g_main_loop_new (NULL, FALSE);
  wait->cancellable = g_cancellable_new ();
  wait->result = NULL;
}

void
zot_cli_async_wait_run (ZotCliAsyncWait *wait)
{
  guint sigint_id = g_unix_signal_add (SIGINT, on_interrupt_cancel_cb, wait);
  guint sigterm_id = g_unix_signal_add (SIGTERM, on_interrupt_cancel_cb, wait);

  g_main_loop_run (wait->loop);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
}

void
zot_cli_async_wait_clear (ZotCliAsyncWait *wait)
{
  g_clear_pointer (&wait->loop, g_main_loop_unref);
  g_clear_object (&wait->cancellable);
  g_clear_object (&wait->result);
}

/* Runs @argv in the installed copy; on failure removes the copy. */
static gboolean
run_build (ZotManifest        *manifest,
           const char         *extensions_dir,
           const char * const *argv)
{
  const char *name = zot_manifest_get_name (manifest);
  const char *directory = zot_manifest_get_directory (manifest);
  g_autofree char *logs = zot_paths_get_logs_dir ();
  g_autofree char *log_path = zot_paths_get_log_file (name);
  g_autofree char *command = g_strjoinv (" ", (char **) argv);
  g_autofree char *basename = g_path_get_basename (directory);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) remove_error = NULL;
  ZotCliAsyncWait wait;

  if (g_mkdir_with_parents (logs, 0700) != 0)
    g_clear_pointer (&log_path, g_free);
  /* Translators: the extension's name, its build command, then the log its output goes to */
  g_print (_("building %s: %s (output in %s)\n"), name, command, log_path ? log_path : "-");

  zot_cli_async_wait_init (&wait);
  zot_extension_build_async (directory, argv, name, log_path, ZOT_TIMEOUT_INSTALL_BUILD,
                             wait.cancellable, zot_cli_async_wait_done_cb, &wait);
  zot_cli_async_wait_run (&wait);
  zot_extension_build_finish (wait.result, &error);
  zot_cli_async_wait_clear (&wait);
  if (error == NULL)
    return TRUE;

  /* A copy that does not run is not what was asked for. */
  if (!zot_installer_remove (extensions_dir, basename, &remove_error))
    /* Translators: the extension's name, why its build failed, then why its copy stayed */
    g_printerr (_("zot: building %s failed: %s; its copy could not be removed either (%s)\n"),
                name, error->message, remove_error->message);
  else
    /* Translators: the extension's name, why its build failed, then the log with the build's output */
    g_printerr (_("zot: building %s failed: %s; nothing was installed (the build's output is in %s)\n"),
                name, error->message, log_path ? log_path : "-");
  return FALSE;
}

/* After the copy is in place: %TRUE when the install stands. */
gboolean
zot_cli_ext_install_build (ZotManifest *manifest,
                           const char  *source,
                           const char  *extensions_dir,
                           gboolean     build)
{
  const char * const *argv = zot_manifest_get_build (manifest);
  g_autofree char *exec = NULL;
  g_autoptr(GError) error = NULL;

  if (build && argv == NULL)
    /* Translators: %s is the extension's name; "build" is a field of extension.json */
    g_printerr (_("zot: warning: %s has no \"build\" in extension.json; --build had nothing to run\n"),
                zot_manifest_get_name (manifest));
  else if (build && !run_build (manifest, extensions_dir, argv))
    return FALSE;

  /* Installed all the same: the program may arrive later (a build step, a
   * package), and zot ext list will show it as failed until then. */
  exec = zot_manifest_resolve_exec (manifest, &error);
  if (exec != NULL)
    return TRUE;
  if (argv != NULL && !build)
    {
      g_autofree char *command = g_strjoinv (" ", (char **) argv);

      /* Translators: why the program is missing, the path or URL installed from, the build
       * command, then the installed folder */
      g_printerr (_("zot: warning: %s; build it with zot ext install --force --build %s, "
                    "or run \"%s\" in %s\n"),
                  error->message, source, command, zot_manifest_get_directory (manifest));
    }
  else
    /* Translators: %s is a problem that does not stop the install, such as a missing program */
    g_printerr (_("zot: warning: %s\n"), error->message);
  return TRUE;
}
