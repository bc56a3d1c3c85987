/* zot-flatpak.c — whether the host runs inside a Flatpak sandbox, and how
 * it starts the programs that live outside it.
 *
 * Flatpak puts /.flatpak-info in every sandbox it starts; its presence is
 * the documented way to tell. Inside, host programs (extensions, bash,
 * git) are reached through `flatpak-spawn --host`, and confined scripts
 * through the portal's sub-sandbox.
 *
 * flatpak-spawn passes its stdin, stdout and stderr on to the host
 * program, exits with the program's status (128 + N when signal N killed
 * it, as shells do) and forwards SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1
 * and SIGUSR2 (SIGINT to the program's whole process group). SIGKILL ends
 * flatpak-spawn alone; with --watch-bus the session helper then sends
 * SIGINT to the host program's process group. So stopping a host program
 * forwards SIGINT and SIGTERM first, and kills flatpak-spawn only after
 * ZOT_FLATPAK_FORWARD_GRACE_MS.
 */
#define G_LOG_DOMAIN "zot-flatpak"

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "zot-flatpak.h"
#include "zot-limits.h"

#define FLATPAK_INFO_PATH "/.flatpak-info"
#define FLATPAK_SPAWN     "flatpak-spawn"
#define FORWARD_FDS_KEY   "zot-flatpak-forward-fds"

static char *info_path_override;
/* -1 until the marker has been read; it does not change while we run. */
static int sandboxed_cache = -1;

static gboolean
read_marker (const char *path)
{
  g_autoptr(GKeyFile) info = g_key_file_new ();

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return FALSE;

  /* `flatpak build` (flatpak-builder, and the tests it runs) marks its
   * sandbox as a build one: there is no host to reach from it, and
   * programs run inside as they would outside. */
  if (g_key_file_load_from_file (info, path, G_KEY_FILE_NONE, NULL) &&
      g_key_file_get_boolean (info, "Instance", "build", NULL))
    return FALSE;

  return TRUE;
}

/**
 * zot_flatpak_is_sandboxed:
 *
 * Returns: whether the host runs in a Flatpak sandbox from which host
 *   programs are reached through flatpak-spawn: /.flatpak-info exists and
 *   is not a `flatpak build` sandbox's
 */
gboolean
zot_flatpak_is_sandboxed (void)
{
  int cached = g_atomic_int_get (&sandboxed_cache);

  if (cached < 0)
    {
      cached = read_marker (info_path_override ? info_path_override : FLATPAK_INFO_PATH);
      g_atomic_int_set (&sandboxed_cache, cached);
    }

  return cached;
}

/* Adds the concatenation of the strings up to NULL as one argument. */
G_GNUC_NULL_TERMINATED
static void
add_option (GStrvBuilder *builder,
            const char   *first,
            ...)
{
  g_autoptr(GString) option = g_string_new (first);
  const char *part;
  va_list args;

  va_start (args, first);
  while ((part = va_arg (args, const char *)) != NULL)
    g_string_append (option, part);
  va_end (args);

  g_strv_builder_add (builder, option->str);
}

/**
 * zot_flatpak_build_host_argv:
 * @launcher: the launcher the program is started with
 * @cwd: (nullable): the program's working directory; %NULL for ours
 * @env_names: (nullable): variables the caller set or unset on @launcher
 * @argv: the program and its arguments
 *
 * The command line that starts @argv on the host from inside the sandbox.
 * The host program gets the session's environment, not the sandbox's:
 * only the variables named in @env_names are passed, each as @launcher
 * has it (set, or unset), and of our descriptors those given by
 * zot_flatpak_take_fd().
 *
 * Returns: (transfer full): `flatpak-spawn --host … -- @argv`
 */
GStrv
zot_flatpak_build_host_argv (GSubprocessLauncher *launcher,
                             const char          *cwd,
                             const char * const  *env_names,
                             const char * const  *argv)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (G_IS_SUBPROCESS_LAUNCHER (launcher), NULL);
  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  g_strv_builder_add (builder, FLATPAK_SPAWN);
  g_strv_builder_add (builder, "--host");
  /* The host program ends when flatpak-spawn does, SIGKILL included. */
  g_strv_builder_add (builder, "--watch-bus");
  if (cwd != NULL)
    add_option (builder, "--directory=", cwd, NULL);
  for (GSList *l = g_object_get_data (G_OBJECT (launcher), FORWARD_FDS_KEY); l != NULL; l = l->next)
    {
      g_autofree char *fd = g_strdup_printf ("%d", GPOINTER_TO_INT (l->data));

      add_option (builder, "--forward-fd=", fd, NULL);
    }

  for (guint i = 0; env_names != NULL && env_names[i] != NULL; i++)
    {
      const char *value = g_subprocess_launcher_getenv (launcher, env_names[i]);

      if (value != NULL)
        add_option (builder, "--env=", env_names[i], "=", value, NULL);
      else
        add_option (builder, "--unset-env=", env_names[i], NULL);
    }

  /* The program's own options are never read as flatpak-spawn's. */
  g_strv_builder_add (builder, "--");
  g_strv_builder_addv (builder, (const char **) argv);

  return g_strv_builder_end (builder);
}

/**
 * zot_flatpak_spawnv:
 * @launcher: the launcher, with its flags, fds, child setup and environment
 * @cwd: (nullable): the program's working directory; %NULL for ours
 * @env_names: (nullable): variables the caller set or unset on @launcher,
 *   which the program must see that way on the host too
 * @argv: the program (a bare name is looked up in the $PATH of where it
 *   runs) and its arguments
 * @error: return location for a #GError
 *
 * Starts a host program: directly outside a sandbox, and through
 * `flatpak-spawn --host` inside one (see zot_flatpak_build_host_argv()).
 * Inside, the returned subprocess is flatpak-spawn's: its pipes, exit
 * status and forwarded signals are the host program's; stop it with
 * zot_flatpak_kill().
 *
 * Returns: (transfer full): the subprocess, or %NULL with @error set
 */
GSubprocess *
zot_flatpak_spawnv (GSubprocessLauncher  *launcher,
                    const char           *cwd,
                    const char * const   *env_names,
                    const char * const   *argv,
                    GError              **error)
{
  g_auto(GStrv) host_argv = NULL;

  g_return_val_if_fail (G_IS_SUBPROCESS_LAUNCHER (launcher), NULL);
  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  if (!zot_flatpak_is_sandboxed ())
    {
      if (cwd != NULL)
        g_subprocess_launcher_set_cwd (launcher, cwd);
      return g_subprocess_launcher_spawnv (launcher, argv, error);
    }

  host_argv = zot_flatpak_build_host_argv (launcher, cwd, env_names, argv);
  return g_subprocess_launcher_spawnv (launcher, (const char * const *) host_argv, error);
}

/**
 * zot_flatpak_take_fd:
 * @source_fd: (transfer full): a descriptor of ours
 * @target_fd: where the program finds it
 *
 * As g_subprocess_launcher_take_fd(); flatpak-spawn passes on only the
 * descriptors it is told to (--forward-fd), which @target_fd then is.
 */
void
zot_flatpak_take_fd (GSubprocessLauncher *launcher,
                     int                  source_fd,
                     int                  target_fd)
{
  GSList *targets;

  g_return_if_fail (G_IS_SUBPROCESS_LAUNCHER (launcher));

  targets = g_object_steal_data (G_OBJECT (launcher), FORWARD_FDS_KEY);
  g_subprocess_launcher_take_fd (launcher, source_fd, target_fd);
  targets = g_slist_append (targets, GINT_TO_POINTER (target_fd));
  g_object_set_data_full (G_OBJECT (launcher), FORWARD_FDS_KEY, targets, (GDestroyNotify) g_slist_free);
}

static gboolean
forward_grace_cb (gpointer user_data)
{
  GSubprocess *subprocess = user_data;

  /* A no-op once it has been reaped, so no stranger's pid is hit. */
  g_subprocess_force_exit (subprocess);
  return G_SOURCE_REMOVE;
}

/**
 * zot_flatpak_kill:
 * @subprocess: a program started by zot_flatpak_spawnv()
 * @group: the process group it leads, or 0
 *
 * Ends the program and everything in its process group. Outside a
 * sandbox that is SIGKILL to the group at once. Inside one SIGKILL would
 * end flatpak-spawn only: SIGINT (which flatpak-spawn sends to the host
 * program's group) and SIGTERM go first, and SIGKILL follows after
 * %ZOT_FLATPAK_FORWARD_GRACE_MS unless it has exited by then.
 */
void
zot_flatpak_kill (GSubprocess *subprocess,
                  GPid         group)
{
  g_autoptr(GSource) source = NULL;

  g_return_if_fail (G_IS_SUBPROCESS (subprocess));

  if (!zot_flatpak_is_sandboxed ())
    {
      if (group > 1 && kill (-group, SIGKILL) != 0 && errno != ESRCH)
        g_debug ("Could not kill process group %d: %s", (int) group, g_strerror (errno));
      g_subprocess_force_exit (subprocess);
      return;
    }

  g_subprocess_send_signal (subprocess, SIGINT);
  g_subprocess_send_signal (subprocess, SIGTERM);

  source = g_timeout_source_new (ZOT_FLATPAK_FORWARD_GRACE_MS);
  g_source_set_callback (source, forward_grace_cb, g_object_ref (subprocess), g_object_unref);
  g_source_set_static_name (source, "[zot] flatpak-spawn kill grace");
  g_source_attach (source, g_main_context_get_thread_default ());
}

/**
 * zot_flatpak_get_host_term_sig:
 * @subprocess: a program started by zot_flatpak_spawnv() that has exited
 *
 * Returns: the signal that killed the program, or 0. Inside the sandbox
 *   flatpak-spawn reports that as an exit status of 128 + the signal,
 *   which is read back here (a program that exits with such a status
 *   itself is told the same way, as shells do).
 */
int
zot_flatpak_get_host_term_sig (GSubprocess *subprocess)
{
  int status;

  g_return_val_if_fail (G_IS_SUBPROCESS (subprocess), 0);

  if (g_subprocess_get_if_signaled (subprocess))
    return g_subprocess_get_term_sig (subprocess);

  if (!zot_flatpak_is_sandboxed () || !g_subprocess_get_if_exited (subprocess))
    return 0;

  status = g_subprocess_get_exit_status (subprocess);
  return status > 128 && status < 128 + NSIG ? status - 128 : 0;
}

void
_zot_flatpak_set_info_path_for_testing (const char *path)
{
  g_clear_pointer (&info_path_override, g_free);
  info_path_override = g_strdup (path);
  g_atomic_int_set (&sandboxed_cache, -1);
}
