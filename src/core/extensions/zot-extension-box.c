/* zot-extension-box.c — a confined extension runs in a bubblewrap box.
 *
 * The manifest's "permissions" (PROTOCOL.md §12) become the box's binds,
 * network and environment (zot-box.c builds the command line); "limits"
 * become RLIMIT_NOFILE for open files and a watch on the box's own
 * process namespace for resident memory and processes, which kills the
 * box past either. An unconfined extension passes through untouched.
 * What the box allows is written to the extension's log when it starts,
 * and a confined extension that fails gets told which permission would
 * have allowed more, since its own error is only the kernel's EACCES.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-box.h"
#include "zot-box-rights.h"
#include "zot-extension-box.h"
#include "zot-flatpak.h"
#include "zot-grants.h"
#include "zot-limits.h"
#include "zot-paths.h"
#include "zot-permissions.h"
#include "zot-provider.h"
#include "zot-source.h"

#define BOX_KEY "zot-extension-box"

typedef struct
{
  ZotExtension *extension;  /* unowned: the data is the extension's */
  GSource      *watch;
  GPid          bwrap;
  guint         memory_mb;
  guint         processes;
  guint         open_files;
  char         *cgroup;        /* NULL: the limits are watched */
  char         *cgroup_procs;
  gboolean      killed;
} Box;

static guint watch_interval_override;
static guint watch_count;

/* Tests: how often a box was looked at, to know a limit was not passed. */
guint
_zot_extension_box_get_watch_count_for_testing (void)
{
  return watch_count;
}

void
_zot_extension_box_set_watch_interval_for_testing (guint ms)
{
  watch_interval_override = ms;
}

static void
box_free (gpointer data)
{
  Box *box = data;

  zot_clear_source (&box->watch);
  /* Empty once the box is gone; a box still dying keeps it a moment. */
  if (box->cgroup != NULL && g_rmdir (box->cgroup) != 0)
    g_debug ("cannot remove the cgroup %s: %s", box->cgroup, g_strerror (errno));
  g_free (box->cgroup);
  g_free (box->cgroup_procs);
  g_free (box);
}

/* Between fork and exec, async-signal-safe: the extension's own process
 * group, as setup_child() in zot-extension-process.c; its open-files
 * limit and its cgroup, which bwrap and everything in the box inherit. */
static void
setup_child (gpointer user_data)
{
  Box *box = user_data;
  struct rlimit limit = { box->open_files, box->open_files };
  int fd;

  (void) setpgid (0, 0);
  if (box->open_files > 0)
    (void) setrlimit (RLIMIT_NOFILE, &limit);
  /* O_CREAT opens a cgroup's own file as it is, and a test's plain one. */
  if (box->cgroup_procs != NULL && (fd = open (box->cgroup_procs, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
    {
      (void) write (fd, "0", 1);
      close (fd);
    }
}

static const char *
project_dir (ZotExtension *self)
{
  if (self->hello_ack != NULL && json_object_has_member (self->hello_ack, "cwd"))
    return json_object_get_string_member (self->hello_ack, "cwd");
  return NULL;
}

/* The box's private HOME: under $ZOT_HOME, not in the extension's folder,
 * which may be a git checkout. */
static char *
private_home (ZotExtension  *self,
              GError       **error)
{
  g_autofree char *zot_home = zot_paths_get_home ();
  g_autofree char *home = g_build_filename (zot_home, "box", self->name, "home", NULL);

  if (g_mkdir_with_parents (home, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   /* Translators: the folder, then the system's error message */
                   _("cannot create the box's home %s: %s"), home, g_strerror (saved));
      return NULL;
    }
  return g_steal_pointer (&home);
}

static ZotBox *
new_box (ZotExtension         *self,
         const ZotPermissions *permissions,
         const char           *program)
{
  const char *project = project_dir (self);
  g_autofree char *cwd = project == NULL ? g_get_current_dir () : NULL;
  g_autofree char *manifest = g_build_filename (self->directory, "extension.json", NULL);
  g_autofree char *git = g_build_filename (self->directory, ".git", NULL);
  ZotBox *box = zot_box_new_for_rights (permissions, project != NULL ? project : cwd, program, self->directory);

  /* Its own folder, but not the manifest that says what it may, nor git
   * hooks that would run outside the box. */
  zot_box_bind (box, self->directory, TRUE);
  zot_box_bind (box, manifest, FALSE);
  zot_box_bind_try (box, git);
  return box;
}

/* PROTOCOL.md §12: a fixed base, then the declared names; provider keys
 * are the provider's alone. */
static GStrv
box_environment (ZotExtension         *self,
                 const ZotPermissions *permissions,
                 const char           *home,
                 gboolean              secrets)
{
  g_auto(GStrv) host = g_get_environ ();
  g_autoptr(GStrvBuilder) env = g_strv_builder_new ();
  g_autofree char *home_variable = g_strconcat ("HOME=", home, NULL);

  g_strv_builder_add_many (env, "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=/tmp", home_variable, NULL);
  for (guint i = 0; host[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (host[i], strcspn (host[i], "="));

      if (g_str_equal (name, "PATH") || g_str_equal (name, "HOME") || g_str_equal (name, "TMPDIR"))
        continue;
      if (zot_provider_is_key_variable (name))
        {
          if (g_strv_contains ((const char * const *) permissions->env, name))
            zot_extension_log (self, "box: $%s is a provider key and stays out of the box", name);
          continue;
        }
      if (g_str_equal (name, "LANG") || g_str_has_prefix (name, "LC_") || g_str_equal (name, "TERM") ||
          g_str_has_prefix (name, "ZOT_") ||
          (permissions->devices && g_str_equal (name, "XDG_RUNTIME_DIR")) ||
          g_strv_contains ((const char * const *) permissions->env, name))
        g_strv_builder_add (env, host[i]);
    }
  if (secrets)
    _zot_extension_secrets_take (self, env);
  return g_strv_builder_end (env);
}

static void
log_allowed (ZotExtension         *self,
             const ZotPermissions *permissions,
             const char           *home)
{
  g_autofree char *env = g_strjoinv (" ", permissions->env);

  zot_extension_log (self, "box: filesystem %s, network %s, devices %s, env [%s], home %s",
                     zot_filesystem_access_to_string (permissions->filesystem),
                     permissions->network ? "on" : "off", permissions->devices ? "on" : "off", env, home);
  if (permissions->memory_mb || permissions->processes || permissions->open_files)
    zot_extension_log (self, "box: limits memory_mb %u, processes %u, open_files %u (0: none)",
                       permissions->memory_mb, permissions->processes, permissions->open_files);
}

/* The box's command line around @argv, and its environment on @launcher,
 * the same for the extension and its watch-mode build; @secrets only for
 * the former. Outside a sandbox bwrap hands its own environment on, which
 * keeps the values off its command line. flatpak-spawn gives the host's
 * session environment and would put any other on its own command line:
 * there the box is cleared and bwrap reads the variables from a memfd. */
static gboolean
wrap_argv (ZotExtension          *self,
           const ZotPermissions  *permissions,
           gboolean               secrets,
           GSubprocessLauncher   *launcher,
           GStrv                 *argv,
           GStrv                 *env_names,
           GError               **error)
{
  g_autoptr(ZotBox) box = NULL;
  g_autofree char *bwrap = NULL;
  g_autofree char *home = NULL;
  g_auto(GStrv) environment = NULL;
  g_autoptr(GStrvBuilder) names = NULL;
  gboolean in_flatpak = zot_flatpak_is_sandboxed ();
  GStrv wrapped;
  int env_fd = -1;

  /* Inside the Flatpak the box is the host's: flatpak-spawn --host runs
   * bwrap there. */
  if (in_flatpak)
    bwrap = g_strdup ("bwrap");
  else if ((bwrap = zot_box_find_bwrap (_("extensions with \"permissions\" run"), error)) == NULL)
    return FALSE;
  home = private_home (self, error);
  if (home == NULL)
    return FALSE;

  box = new_box (self, permissions, (*argv)[0]);
  zot_box_bind (box, home, TRUE);

  environment = box_environment (self, permissions, home, secrets);
  names = g_strv_builder_new ();
  if (in_flatpak)
    zot_box_add_args (box, "--clearenv", NULL);
  for (guint i = 0; environment[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (environment[i], strcspn (environment[i], "="));

      if (in_flatpak)
        zot_box_setenv (box, name, environment[i] + strlen (name) + 1);
      else
        g_strv_builder_add (names, name);
    }

  if (in_flatpak)
    wrapped = zot_box_build_argv_env_fd (box, bwrap, self->directory, (const char * const *) *argv,
                                         ZOT_BOX_ENV_FD, &env_fd, error);
  else
    wrapped = zot_box_build_argv (box, bwrap, self->directory, (const char * const *) *argv);
  if (wrapped != NULL && in_flatpak)
    zot_flatpak_take_fd (launcher, env_fd, ZOT_BOX_ENV_FD);
  else if (wrapped != NULL)
    g_subprocess_launcher_set_environ (launcher, environment);
  for (guint i = 0; environment[i] != NULL; i++)
    memset (environment[i], 0, strlen (environment[i]));
  if (wrapped == NULL)
    return FALSE;
  *env_names = g_strv_builder_end (names);
  g_strfreev (*argv);
  *argv = wrapped;
  log_allowed (self, permissions, home);
  return TRUE;
}

/**
 * _zot_extension_box_wrap:
 * @argv: (inout): the extension's command line, replaced by bwrap's
 * @env_names: (out): the variables set on @launcher, for
 *   zot_flatpak_spawnv(); left alone for an unconfined extension
 *
 * Puts a confined extension's command in its box, with the box's
 * environment on @launcher. An unconfined one is left as it is.
 *
 * Returns: %FALSE with a one-line error naming the fix
 */
gboolean
_zot_extension_box_wrap (ZotExtension         *self,
                         GSubprocessLauncher  *launcher,
                         GStrv                *argv,
                         GStrv                *env_names,
                         GError              **error)
{
  g_autoptr(ZotPermissions) permissions = zot_grants_applied (self->manifest);
  gboolean in_flatpak = zot_flatpak_is_sandboxed ();
  Box *state;

  g_object_set_data (G_OBJECT (self), BOX_KEY, NULL);
  if (permissions == NULL)
    return TRUE;
  if (!wrap_argv (self, permissions, TRUE, launcher, argv, env_names, error))
    return FALSE;

  state = g_new0 (Box, 1);
  state->extension = self;
  state->memory_mb = permissions->memory_mb;
  state->processes = permissions->processes;
  state->open_files = permissions->open_files;
  if ((state->memory_mb > 0 || state->processes > 0) && !in_flatpak)
    state->cgroup = zot_box_cgroup_new (self->name, (guint64) state->memory_mb * 1024 * 1024, state->processes);
  if (state->cgroup != NULL)
    state->cgroup_procs = g_build_filename (state->cgroup, "cgroup.procs", NULL);
  g_object_set_data_full (G_OBJECT (self), BOX_KEY, state, box_free);
  g_subprocess_launcher_set_child_setup (launcher, setup_child, state, NULL);
  if (state->memory_mb > 0 || state->processes > 0)
    zot_extension_log (self, "box: memory and processes limited by %s%s",
                       state->cgroup != NULL ? "the cgroup " : "watching the box",
                       state->cgroup != NULL ? state->cgroup : "");
  return TRUE;
}

/**
 * _zot_extension_box_wrap_build:
 * @launcher: what the build is started with, given the box's environment
 * @argv: (inout): the manifest's `build`, replaced by the box's command
 *   line (inside the Flatpak, flatpak-spawn's around it)
 *
 * A watch-mode build of a confined extension runs in the extension's own
 * box, its folder writable: rebuilding on every save must not be a way
 * around the box. Its secrets are not given to the build. An unconfined
 * extension's build runs as it always has.
 *
 * Returns: %FALSE with a one-line error naming the fix
 */
gboolean
_zot_extension_box_wrap_build (ZotExtension         *self,
                               GSubprocessLauncher  *launcher,
                               GStrv                *argv,
                               GError              **error)
{
  g_autoptr(ZotPermissions) permissions = zot_grants_applied (self->manifest);
  g_auto(GStrv) names = NULL;
  GStrv host_argv;

  if (permissions == NULL)
    return TRUE;
  zot_extension_log (self, "box: the build runs in the extension's box");
  if (!wrap_argv (self, permissions, FALSE, launcher, argv, &names, error))
    return FALSE;
  if (!zot_flatpak_is_sandboxed ())
    return TRUE;
  host_argv = zot_flatpak_build_host_argv (launcher, self->directory, NULL, (const char * const *) *argv);
  g_strfreev (*argv);
  *argv = host_argv;
  return TRUE;
}

static gboolean
watch_cb (gpointer user_data)
{
  Box *box = user_data;
  GPid first = zot_box_first_process (box->bwrap);
  ZotBoxUsage usage = { 0 };
  guint64 memory_max = (guint64) box->memory_mb * 1024 * 1024;

  if (first <= 0 || !zot_box_measure (first, box->processes > 0 ? box->processes : G_MAXUINT - 1, &usage))
    return G_SOURCE_CONTINUE;
  watch_count++;

  if (box->memory_mb > 0 && usage.resident > memory_max)
    zot_extension_log (box->extension, "box: resident memory %" G_GSIZE_FORMAT " MiB passed limits.memory_mb "
                       "%u; the box is killed", usage.resident / (1024 * 1024), box->memory_mb);
  else if (box->processes > 0 && usage.processes > box->processes)
    zot_extension_log (box->extension, "box: more than limits.processes %u processes; the box is killed",
                       box->processes);
  else
    return G_SOURCE_CONTINUE;

  /* pid 1 of the box takes every process in it along. */
  box->killed = TRUE;
  (void) kill (first, SIGKILL);
  (void) kill (box->bwrap, SIGKILL);
  box->watch = NULL;
  return G_SOURCE_REMOVE;
}

void
_zot_extension_box_started (ZotExtension *self)
{
  Box *box = g_object_get_data (G_OBJECT (self), BOX_KEY);
  const char *identifier;

  if (box == NULL || (box->memory_mb == 0 && box->processes == 0) || box->cgroup != NULL ||
      zot_flatpak_is_sandboxed ())
    return;
  identifier = g_subprocess_get_identifier (self->subprocess);
  box->bwrap = identifier != NULL ? (GPid) g_ascii_strtoll (identifier, NULL, 10) : 0;
  if (box->bwrap <= 0)
    return;
  box->watch = g_timeout_source_new (watch_interval_override ? watch_interval_override : ZOT_BOX_WATCH_MS);
  g_source_set_callback (box->watch, watch_cb, box, NULL);
  g_source_set_static_name (box->watch, "[zot] extension box limits");
  g_source_attach (box->watch, NULL);
}

/* The kernel's refusal says EACCES or ENETUNREACH and nothing of the
 * manifest: say which permission would allow more. */
void
_zot_extension_box_exited (ZotExtension *self,
                           GSubprocess  *subprocess)
{
  Box *box = g_object_get_data (G_OBJECT (self), BOX_KEY);
  const ZotPermissions *permissions = zot_manifest_get_permissions (self->manifest);
  g_autoptr(GString) wider = NULL;

  if (box == NULL)
    return;
  zot_clear_source (&box->watch);
  if (box->cgroup != NULL && box->memory_mb > 0 &&
      zot_box_cgroup_read_event (box->cgroup, "memory.events", "oom_kill") > 0)
    {
      zot_extension_log (self, "box: limits.memory_mb %u was reached; the kernel killed a process in it",
                         box->memory_mb);
      box->killed = TRUE;
    }
  if (box->cgroup != NULL && box->processes > 0 &&
      zot_box_cgroup_read_event (box->cgroup, "pids.events", "max") > 0)
    zot_extension_log (self, "box: limits.processes %u was reached; the kernel refused it more",
                       box->processes);
  /* Stopped on purpose, or by the limits' watch, which said why. */
  if (permissions == NULL || box->killed || self->state == ZOT_EXTENSION_STATE_STOPPING ||
      (g_subprocess_get_if_exited (subprocess) && g_subprocess_get_exit_status (subprocess) == 0))
    return;

  if (g_subprocess_get_if_exited (subprocess) && g_subprocess_get_exit_status (subprocess) == 127 &&
      zot_flatpak_is_sandboxed ())
    zot_extension_log (self, "box: bwrap may be missing on the host: install bubblewrap there "
                       "(apt install bubblewrap)");
  wider = g_string_new (NULL);
  if (permissions->filesystem < ZOT_FILESYSTEM_HOST)
    g_string_append (wider, "a wider \"filesystem\" (project, home, host)");
  if (!permissions->network)
    g_string_append_printf (wider, "%s\"network\": true", wider->len > 0 ? ", " : "");
  if (wider->len > 0)
    zot_extension_log (self, "box: it ended with an error while confined (filesystem %s, network %s); "
                       "if it was refused a file or a connection (EACCES, EROFS, ENETUNREACH), "
                       "\"permissions\" in extension.json would allow it: %s",
                       zot_filesystem_access_to_string (permissions->filesystem),
                       permissions->network ? "on" : "off", wider->str);
}
