/* zot-cli-ext-build.c — what `zot ext install` says once the copy is in
 * place: where --build's output went (the installer built the staged
 * copy, zot-installer-build.c), or, without --build, how to build a
 * program that is not there yet. Also the main loop the `ext` commands
 * wait on.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <signal.h>

#include <glib-unix.h>
#include <glib/gi18n.h>

#include "zot-cli-private.h"
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

/* After the copy is in place (and built, with --build). */
void
zot_cli_ext_install_build (ZotManifest *manifest,
                           const char  *source,
                           gboolean     build)
{
  const char * const *argv = zot_manifest_get_build (manifest);
  g_autofree char *exec = NULL;
  g_autoptr(GError) error = NULL;

  if (build && argv == NULL)
    /* Translators: %s is the extension's name; "build" is a field of extension.json */
    g_printerr (_("zot: warning: %s has no \"build\" in extension.json; --build had nothing to run\n"),
                zot_manifest_get_name (manifest));
  else if (build)
    {
      g_autofree char *command = g_strjoinv (" ", (char **) argv);
      g_autofree char *log_path = zot_paths_get_log_file (zot_manifest_get_name (manifest));

      /* Translators: the build command, then the log its output went to */
      g_print (_("built with %s (output in %s)\n"), command, log_path);
    }

  /* Installed all the same: the program may arrive later (a build step, a
   * package), and zot ext list will show it as failed until then. */
  exec = zot_manifest_resolve_exec (manifest, &error);
  if (exec != NULL)
    return;
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
}
