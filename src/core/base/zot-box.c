/* zot-box.c — the one bubblewrap box, for extensions and codemode.
 *
 * The box is built from a fixed base (read-only /usr and the system's
 * libraries, the few files of /etc programs read, a private /tmp, its own
 * /proc and a minimal /dev, every namespace unshared but the network when
 * asked for) plus what the caller binds. Environment values are the
 * caller's to pass: --setenv puts them on bwrap's command line, which
 * every process of the user can read, so secrets go in its environment,
 * or, where that is not handed on (flatpak-spawn), in a sealed memfd
 * bwrap reads its --setenv options from (--args).
 *
 * Measuring: the box has its own pid namespace and mounts its own /proc, in which
 * only its processes are; the host reads it through the root of the
 * box's first process (/proc/PID/root/proc). No cgroup is needed, and
 * the count holds for root too, which RLIMIT_NPROC does not. */
#define G_LOG_DOMAIN "zot-box"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include <glib/gstdio.h>

#include "zot-box.h"
#include "zot-limits.h"
#include "zot-proc.h"

struct _ZotBox
{
  ZotBoxFlags   flags;
  GStrvBuilder *args;  /* after the base, in the order given */
  GStrvBuilder *env;   /* --setenv NAME VALUE, after them */
};

ZotBox *
zot_box_new (ZotBoxFlags flags)
{
  ZotBox *self = g_new0 (ZotBox, 1);

  self->flags = flags;
  self->args = g_strv_builder_new ();
  self->env = g_strv_builder_new ();
  return self;
}

void
zot_box_free (ZotBox *self)
{
  if (self == NULL)
    return;
  g_strv_builder_unref (self->args);
  g_strv_builder_unref (self->env);
  g_free (self);
}

/* Binds are mounted in the order given: a read-only file bound after its
 * writable folder stays read-only. */
void
zot_box_bind (ZotBox     *self,
              const char *path,
              gboolean    writable)
{
  g_strv_builder_add_many (self->args, writable ? "--bind" : "--ro-bind", path, path, NULL);
}

/* Read-only, when it exists. */
void
zot_box_bind_try (ZotBox     *self,
                  const char *path)
{
  g_strv_builder_add_many (self->args, "--ro-bind-try", path, path, NULL);
}

void
zot_box_setenv (ZotBox     *self,
                const char *name,
                const char *value)
{
  g_strv_builder_add_many (self->env, "--setenv", name, value, NULL);
}

void
zot_box_add_args (ZotBox *self,
                  ...)
{
  va_list args;
  const char *arg;

  va_start (args, self);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_strv_builder_add (self->args, arg);
  va_end (args);
}

/* What programs read in /etc: the loader's cache, users and groups for
 * getpwuid(), alternatives (Debian's awk, editor, … are links there),
 * certificates; name resolution only with the network. */
static const char * const etc_files[] = {
  "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/passwd", "/etc/group",
  "/etc/nsswitch.conf", "/etc/localtime", "/etc/alternatives", "/etc/ssl", "/etc/ca-certificates",
  "/etc/pki", "/etc/mime.types",
};
static const char * const etc_network_files[] = {
  "/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/services",
  "/etc/protocols",
};
static const char * const top_dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };

/* /bin, /lib and the like as the host has them: links into /usr on a
 * merged-/usr system, folders of their own elsewhere. */
static void
add_top_dirs (GStrvBuilder *builder)
{
  for (guint i = 0; i < G_N_ELEMENTS (top_dirs); i++)
    {
      g_autofree char *target = g_file_read_link (top_dirs[i], NULL);

      if (target != NULL)
        g_strv_builder_add_many (builder, "--symlink", target, top_dirs[i], NULL);
      else if (g_file_test (top_dirs[i], G_FILE_TEST_IS_DIR))
        g_strv_builder_add_many (builder, "--ro-bind", top_dirs[i], top_dirs[i], NULL);
    }
}

static GStrv
build_argv (ZotBox             *self,
            const char         *bwrap,
            const char         *chdir,
            const char * const *command,
            const char * const *env)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) added = g_strv_builder_end (self->args);

  self->args = g_strv_builder_new ();
  g_strv_builder_add_many (builder, bwrap, "--unshare-all", "--die-with-parent", "--new-session",
                           "--cap-drop", "ALL", NULL);
  if (self->flags & ZOT_BOX_NETWORK)
    g_strv_builder_add (builder, "--share-net");
  if (self->flags & ZOT_BOX_PID_1)
    g_strv_builder_add (builder, "--as-pid-1");

  if (self->flags & ZOT_BOX_HOST)
    g_strv_builder_add_many (builder, "--bind", "/", "/", NULL);
  else
    {
      g_strv_builder_add_many (builder, "--ro-bind", "/usr", "/usr", NULL);
      add_top_dirs (builder);
      for (guint i = 0; i < G_N_ELEMENTS (etc_files); i++)
        g_strv_builder_add_many (builder, "--ro-bind-try", etc_files[i], etc_files[i], NULL);
      for (guint i = 0; (self->flags & ZOT_BOX_NETWORK) && i < G_N_ELEMENTS (etc_network_files); i++)
        g_strv_builder_add_many (builder, "--ro-bind-try", etc_network_files[i], etc_network_files[i], NULL);
    }
  g_strv_builder_add_many (builder, "--proc", "/proc", NULL);
  if (self->flags & ZOT_BOX_DEVICES)
    g_strv_builder_add_many (builder, "--dev-bind", "/dev", "/dev", NULL);
  else
    g_strv_builder_add_many (builder, "--dev", "/dev", NULL);
  g_strv_builder_add_many (builder, "--tmpfs", "/tmp", NULL);

  g_strv_builder_addv (builder, (const char **) added);
  g_strv_builder_addv (builder, (const char **) env);
  if (chdir != NULL)
    g_strv_builder_add_many (builder, "--chdir", chdir, NULL);
  g_strv_builder_add (builder, "--");
  g_strv_builder_addv (builder, (const char **) command);
  return g_strv_builder_end (builder);
}

/* The variables, scrubbed from memory when freed: they may hold secrets. */
static void
forget_env (GStrv env)
{
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    memset (env[i], 0, strlen (env[i]));
  g_strfreev (env);
}

/**
 * zot_box_build_argv:
 * @bwrap: the bwrap program
 * @chdir: (nullable): the working directory inside the box
 * @command: what runs in the box
 *
 * Returns: (transfer full): bwrap's whole command line, the variables of
 *   zot_box_setenv() on it
 */
GStrv
zot_box_build_argv (ZotBox             *self,
                    const char         *bwrap,
                    const char         *chdir,
                    const char * const *command)
{
  GStrv env = g_strv_builder_end (self->env);
  GStrv argv;

  self->env = g_strv_builder_new ();
  argv = build_argv (self, bwrap, chdir, command, (const char * const *) env);
  forget_env (env);
  return argv;
}

/* A memfd holding @env NUL-separated, sealed and read from its start.
 * The copy is made at its full size at once, so that no reallocation
 * leaves a value behind in freed memory. */
static int
env_memfd (const char * const  *env,
           GError             **error)
{
  g_autoptr(GString) data = NULL;
  gsize length = 0;
  gsize written = 0;
  int saved = 0;
  int fd;

  for (guint i = 0; env[i] != NULL; i++)
    length += strlen (env[i]) + 1;
  if (length > ZOT_BOX_ENV_MAX_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   /* Translators: %u is the bound in KiB; "env" is the manifest's key, keep it */
                   _("the box's variables take more than %u KiB: declare fewer or smaller \"env\" "
                     "variables and secrets"), (guint) (ZOT_BOX_ENV_MAX_BYTES / 1024));
      return -1;
    }
  data = g_string_sized_new (length + 1);
  for (guint i = 0; env[i] != NULL; i++)
    g_string_append_len (data, env[i], strlen (env[i]) + 1);

  fd = memfd_create ("zot-box-env", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  while (fd >= 0 && written < data->len && saved == 0)
    {
      gssize n = write (fd, data->str + written, data->len - written);

      if (n > 0)
        written += n;
      else if (n < 0 && errno != EINTR)
        saved = errno;
      else if (n == 0)
        saved = EIO;
    }
  memset (data->str, 0, data->len);
  if (fd < 0 || (saved == 0 && (fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
                                       F_SEAL_SEAL) != 0 || lseek (fd, 0, SEEK_SET) != 0)))
    saved = errno;
  if (saved != 0)
    {
      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   /* Translators: the system's error message */
                   _("cannot pass the box its variables: %s"), g_strerror (saved));
      return -1;
    }
  return fd;
}

/**
 * zot_box_build_argv_env_fd:
 * @target_fd: the descriptor bwrap will find @env_fd at
 * @env_fd: (out): a sealed memfd with the variables of zot_box_setenv(),
 *   for the caller to give bwrap as @target_fd and close
 *
 * As zot_box_build_argv(), but no variable is on the command line: bwrap
 * reads them through `--args @target_fd`, in their place. At most
 * %ZOT_BOX_ENV_MAX_BYTES of them.
 *
 * Returns: (transfer full): bwrap's whole command line, or %NULL with
 *   @error set
 */
GStrv
zot_box_build_argv_env_fd (ZotBox              *self,
                           const char          *bwrap,
                           const char          *chdir,
                           const char * const  *command,
                           int                  target_fd,
                           int                 *env_fd,
                           GError             **error)
{
  GStrv env = g_strv_builder_end (self->env);
  g_autofree char *target = g_strdup_printf ("%d", target_fd);
  const char * const args[] = { "--args", target, NULL };

  self->env = g_strv_builder_new ();
  *env_fd = env_memfd ((const char * const *) env, error);
  forget_env (env);
  if (*env_fd < 0)
    {
      g_strfreev (g_strv_builder_end (self->args));
      self->args = g_strv_builder_new ();
      return NULL;
    }
  return build_argv (self, bwrap, chdir, command, args);
}

static char *bwrap_override;

/* Tests point this at a program of their own, or at one that is not
 * there; NULL restores the search on the PATH. */
void
_zot_box_set_bwrap_for_testing (const char *path)
{
  g_free (bwrap_override);
  bwrap_override = g_strdup (path);
}

/**
 * zot_box_find_bwrap:
 * @what: what runs in the box, for the message ("codemode scripts run")
 *
 * Returns: (transfer full) (nullable): the bwrap program
 */
char *
zot_box_find_bwrap (const char  *what,
                    GError     **error)
{
  char *bwrap;

  if (bwrap_override != NULL)
    bwrap = g_file_test (bwrap_override, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (bwrap_override) : NULL;
  else
    bwrap = g_find_program_in_path ("bwrap");
  if (bwrap == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 /* Translators: %s says what is confined, e.g. "codemode scripts run";
                  * bubblewrap, bwrap and the command are names */
                 _("%s confined by bubblewrap, which is not installed: install it "
                   "(apt install bubblewrap)"), what);
  return bwrap;
}

/**
 * zot_box_first_process:
 * @bwrap: the host's pid of the bwrap process that was started
 *
 * Returns: the host's pid of the box's first process (pid 1 in the box,
 *   bwrap's only child), or 0 while there is none
 */
GPid
zot_box_first_process (GPid bwrap)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/task/%d/children", (int) bwrap, (int) bwrap);
  g_autofree char *children = NULL;

  if (!g_file_get_contents (path, &children, NULL, NULL))
    return 0;
  return (GPid) g_ascii_strtoll (children, NULL, 10);
}

/* Cgroups: where the session may make one (PROTOCOL.md §12's limits). */

static char *self_cgroup_override;
static char *cgroup_root_override;

/* Tests: a /proc/self/cgroup and a cgroup v2 mount of their own; NULL
 * restores the real ones. */
void
_zot_box_set_cgroup_paths_for_testing (const char *self_cgroup,
                                       const char *root)
{
  g_free (self_cgroup_override);
  g_free (cgroup_root_override);
  self_cgroup_override = g_strdup (self_cgroup);
  cgroup_root_override = g_strdup (root);
}

/* The v2 line of /proc/self/cgroup, "0::/PATH". */
static char *
own_cgroup (void)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (self_cgroup_override ? self_cgroup_override : "/proc/self/cgroup",
                            &contents, NULL, NULL))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "0::/"))
      return g_build_filename (cgroup_root_override ? cgroup_root_override : "/sys/fs/cgroup",
                               lines[i] + strlen ("0::/"), NULL);
  return NULL;
}

/* A cgroup whose children get @controllers and that this user may add
 * to. Our own, when it is the root (only the root may hold processes
 * and hand controllers down), else its parent: on a systemd session the
 * user's app.slice, which is the user's. */
static gboolean
can_hold_boxes (const char         *dir,
                const char * const *controllers)
{
  g_autofree char *path = g_build_filename (dir, "cgroup.subtree_control", NULL);
  g_autofree char *enabled = NULL;
  g_auto(GStrv) words = NULL;

  if (access (dir, W_OK) != 0 || !g_file_get_contents (path, &enabled, NULL, NULL))
    return FALSE;
  words = g_strsplit_set (g_strstrip (enabled), " \n", -1);
  for (guint i = 0; controllers[i] != NULL; i++)
    if (!g_strv_contains ((const char * const *) words, controllers[i]))
      return FALSE;
  return TRUE;
}

static gboolean
write_value (const char *dir,
             const char *file,
             guint64     value)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT "\n", value);

  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE, 0644, NULL);
}

/**
 * zot_box_cgroup_new:
 * @name: part of the cgroup's name, to tell boxes apart
 * @memory_max: bytes, 0 for no limit
 * @pids_max: processes, 0 for no limit
 *
 * Makes a cgroup v2 for a box where the session can: a child of its own
 * cgroup or of that one's parent, with the memory and process limits
 * written. The box's first process moves itself into it (writing "0" to
 * its cgroup.procs before it runs bwrap), so nothing it starts escapes.
 *
 * Returns: (transfer full) (nullable): the cgroup's folder; %NULL where
 *   none can be made (cgroup v1, no delegation), and the caller watches
 *   the box instead
 */
char *
zot_box_cgroup_new (const char *name,
                    guint64     memory_max,
                    guint       pids_max)
{
  static guint serial;
  g_autofree char *own = own_cgroup ();
  g_autoptr(GStrvBuilder) wanted = g_strv_builder_new ();
  g_auto(GStrv) controllers = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *leaf = NULL;
  char *dir;

  if (own == NULL)
    return NULL;
  if (memory_max > 0)
    g_strv_builder_add (wanted, "memory");
  if (pids_max > 0)
    g_strv_builder_add (wanted, "pids");
  controllers = g_strv_builder_end (wanted);

  if (can_hold_boxes (own, (const char * const *) controllers))
    parent = g_strdup (own);
  else
    {
      g_autofree char *up = g_path_get_dirname (own);

      if (can_hold_boxes (up, (const char * const *) controllers))
        parent = g_steal_pointer (&up);
    }
  if (parent == NULL)
    return NULL;

  leaf = g_strdup_printf ("zot-box-%d-%u-%s", (int) getpid (), ++serial, name);
  dir = g_build_filename (parent, leaf, NULL);
  if (g_mkdir (dir, 0755) != 0)
    {
      g_debug ("cannot make the cgroup %s: %s", dir, g_strerror (errno));
      g_free (dir);
      return NULL;
    }
  if ((memory_max > 0 && (!write_value (dir, "memory.max", memory_max) ||
                          !write_value (dir, "memory.swap.max", 0))) ||
      (pids_max > 0 && !write_value (dir, "pids.max", pids_max)))
    {
      g_debug ("cannot set the limits of the cgroup %s", dir);
      (void) g_rmdir (dir);
      g_free (dir);
      return NULL;
    }
  return dir;
}

/**
 * zot_box_cgroup_read_event:
 * @dir: a cgroup from zot_box_cgroup_new()
 * @file: "memory.events" or "pids.events"
 * @key: the counter, such as "oom_kill" or "max"
 *
 * Returns: the counter, 0 when it cannot be read
 */
guint64
zot_box_cgroup_read_event (const char *dir,
                           const char *file,
                           const char *key)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  gsize key_len = strlen (key);

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return 0;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strncmp (lines[i], key, key_len) == 0 && lines[i][key_len] == ' ')
      return g_ascii_strtoull (lines[i] + key_len + 1, NULL, 10);
  return 0;
}

static gboolean
is_pid (const char *name)
{
  if (*name == '\0')
    return FALSE;
  for (; *name != '\0'; name++)
    if (!g_ascii_isdigit (*name))
      return FALSE;
  return TRUE;
}

static gsize
read_resident (const char *proc,
               const char *pid)
{
  g_autofree char *path = g_build_filename (proc, pid, "statm", NULL);

  return zot_proc_read_statm_resident (path);
}

/**
 * zot_box_measure:
 * @first: the host's pid of the box's first process (pid 1 inside)
 * @max_processes: the count stops past this: more is more
 * @usage: (out): what the box's processes use together
 *
 * Returns: %FALSE when the box cannot be seen (not set up yet, or ended)
 */
gboolean
zot_box_measure (GPid                 first,
                          guint                max_processes,
                          ZotBoxUsage *usage)
{
  g_autofree char *proc = g_strdup_printf ("/proc/%d/root/proc", (int) first);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_autofree char *self = g_strdup_printf ("%s/self", proc);

  usage->resident = 0;
  usage->processes = 0;
  /* Until bwrap has moved into the box's root, the first process still
   * sees the host's /proc, which lists every process of the host. A /proc
   * of the box's own pid namespace has no "self" for us, who are not in
   * it: only that one is measured. */
  if (g_file_test (self, G_FILE_TEST_EXISTS))
    return FALSE;
  dir = g_dir_open (proc, 0, NULL);
  if (dir == NULL)
    return FALSE;

  while ((name = g_dir_read_name (dir)) != NULL && usage->processes <= max_processes)
    {
      if (!is_pid (name))
        continue;
      usage->processes++;
      usage->resident += read_resident (proc, name);
    }
  return usage->processes > 0;
}
