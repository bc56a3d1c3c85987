#define G_LOG_DOMAIN "zot-paths"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-flatpak.h"
#include "zot-paths.h"

/* $ZOT_HOME, else $XDG_STATE_HOME/zot, else ~/.local/state/zot: the same
 * place the upstream host uses, so extensions it installed are found.
 * Inside Flatpak $XDG_STATE_HOME is the app's own (~/.var/app/…); the
 * host's, which the command-line zot uses, is in $HOST_XDG_STATE_HOME. */
char *
zot_paths_get_home (void)
{
  const char *env = g_getenv ("ZOT_HOME");
  const char *state;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  state = g_getenv (zot_flatpak_is_sandboxed () ? "HOST_XDG_STATE_HOME" : "XDG_STATE_HOME");
  if (state != NULL && g_path_is_absolute (state))
    return g_build_filename (state, "zot", NULL);

  return g_build_filename (g_get_home_dir (), ".local", "state", "zot", NULL);
}

char *
zot_paths_get_extensions_dir (void)
{
  g_autofree char *home = zot_paths_get_home ();

  return g_build_filename (home, "extensions", NULL);
}

char *
zot_paths_get_project_extensions_dir (const char *cwd)
{
  g_autofree char *current = NULL;

  if (cwd == NULL)
    cwd = current = g_get_current_dir ();

  return g_build_filename (cwd, ".zot", "extensions", NULL);
}

char *
zot_paths_get_logs_dir (void)
{
  g_autofree char *home = zot_paths_get_home ();

  return g_build_filename (home, "logs", NULL);
}

char *
zot_paths_get_log_file (const char *extension_name)
{
  g_autofree char *logs = zot_paths_get_logs_dir ();
  g_autofree char *base = g_strdup_printf ("ext-%s.log", extension_name);

  return g_build_filename (logs, base, NULL);
}

/* What an extension registered at its last start, and what was wrong
 * with it, for `zot ext list` to show without starting it. */
char *
zot_paths_get_state_file (const char *extension_name)
{
  g_autofree char *home = zot_paths_get_home ();
  g_autofree char *base = g_strdup_printf ("ext-%s.json", extension_name);

  return g_build_filename (home, "state", base, NULL);
}

/**
 * zot_paths_canonicalize:
 * @path: (nullable): a path, absolute or relative to the current
 *   directory; %NULL for the current directory
 *
 * The one spelling of a directory that keys and comparisons use, so that
 * a symbolic link to a project and the project itself are the same place.
 *
 * Returns: (transfer full): @path made absolute, with `.`, `..` and
 *   symbolic links resolved; a path that does not exist is only made
 *   absolute, with `.` and `..` taken out
 */
char *
zot_paths_canonicalize (const char *path)
{
  g_autofree char *absolute = g_canonicalize_filename (path != NULL ? path : ".", NULL);
  char *real = realpath (absolute, NULL);
  char *result;

  if (real == NULL)
    return g_steal_pointer (&absolute);

  result = g_strdup (real);
  free (real);
  return result;
}

/**
 * zot_fsync_directory:
 * @dir: a directory
 *
 * Makes the names in @dir (a file just created or renamed into it) as
 * durable as the files' contents. Callers treat a failure as a debug
 * message, not an error: the files are in place either way.
 *
 * Returns: whether the directory could be opened and synced, with errno
 *   saying why not
 */
gboolean
zot_fsync_directory (const char *dir)
{
  int errsv;
  int fd;

  g_return_val_if_fail (dir != NULL, FALSE);

  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;

  if (fsync (fd) != 0)
    {
      errsv = errno;
      close (fd);
      errno = errsv;
      return FALSE;
    }

  close (fd);
  return TRUE;
}

/**
 * zot_file_get_contents_bounded:
 * @max_bytes: the largest file accepted
 * @contents: (out): the file's bytes, nul-terminated
 * @length: (out) (optional): their length
 *
 * Like g_file_get_contents() for files that someone else wrote: a FIFO
 * would block the read forever and a link to a device would never end, so
 * the file is opened without blocking, must be a regular file, and may be
 * at most @max_bytes long (checked again while reading: it may grow).
 * Errors are %G_FILE_ERROR, worded for the user; %G_FILE_ERROR_NOENT
 * when it does not exist.
 */
gboolean
zot_file_get_contents_bounded (const char  *path,
                               gsize        max_bytes,
                               char       **contents,
                               gsize       *length,
                               GError     **error)
{
  g_autofree char *buffer = NULL;
  struct stat st;
  gsize filled = 0;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);

  do
    fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);

  if (fd < 0)
    {
      int errsv = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   /* Translators: said of a file named before this part of the message; %s is
                    * the system's error message */
                   _("cannot be opened (%s)"), g_strerror (errsv));
      return FALSE;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_close (fd, NULL);
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           _("is not a regular file"));
      return FALSE;
    }

  if ((guint64) st.st_size > max_bytes)
    {
      g_close (fd, NULL);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("is larger than %zu bytes"), (size_t) max_bytes);
      return FALSE;
    }

  buffer = g_malloc ((gsize) st.st_size + 2);
  for (;;)
    {
      gsize room = (gsize) st.st_size + 1 - filled;
      gssize n;

      /* One byte more than the size: a file that grew is refused, not cut. */
      if (room == 0)
        {
          g_close (fd, NULL);
          g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                               _("changed while it was read"));
          return FALSE;
        }

      n = read (fd, buffer + filled, room);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;

          g_close (fd, NULL);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                       /* Translators: said of a file named before this part of the message; %s
                        * is the system's error message */
                       _("cannot be read (%s)"), g_strerror (errsv));
          return FALSE;
        }
      if (n == 0)
        break;
      filled += (gsize) n;
    }

  g_close (fd, NULL);
  buffer[filled] = '\0';
  *contents = g_steal_pointer (&buffer);
  if (length != NULL)
    *length = filled;
  return TRUE;
}

static void
remove_tree_fail (GError     **error,
                  int          saved_errno,
                  const char  *path)
{
  /* The first failure is the one reported; the delete goes on regardless. */
  if (error == NULL || *error != NULL)
    return;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               _("cannot delete %s (%s)"), path, g_strerror (saved_errno));
}

/* Opens @name in @parent_fd as a directory, never through a symbolic
 * link. A directory we may not read gets u+rwx first: archives and git's
 * object store hold read-only folders, which are still ours to delete. */
static int
remove_tree_open_dir (int           parent_fd,
                      const char   *name,
                      mode_t        mode)
{
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int fd = openat (parent_fd, name, flags);

  if (fd >= 0 || errno != EACCES)
    return fd;

  /* AT_SYMLINK_NOFOLLOW: should @name have become a link meanwhile, its
   * target keeps its mode. Where that cannot be done, the open's own
   * error is the one to report. */
  if (fchmodat (parent_fd, name, (mode & 07777) | S_IRWXU, AT_SYMLINK_NOFOLLOW) != 0)
    {
      errno = EACCES;
      return -1;
    }

  return openat (parent_fd, name, flags);
}

/* Deletes @name in @parent_fd; @path names it in messages. Everything is
 * reached through the directory above it, by name, and opened with
 * O_NOFOLLOW, so a symbolic link (or a folder swapped for one while the
 * delete runs) is removed, never entered. */
static gboolean
remove_tree_at (int          parent_fd,
                const char  *name,
                const char  *path,
                guint        depth,
                GError     **error)
{
  g_autoptr(GPtrArray) children = NULL;
  struct stat st;
  struct dirent *entry;
  gboolean ok = TRUE;
  DIR *dir;
  int fd;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      remove_tree_fail (error, errno, path);
      return FALSE;
    }

  if (!S_ISDIR (st.st_mode))
    {
      if (unlinkat (parent_fd, name, 0) != 0 && errno != ENOENT)
        {
          remove_tree_fail (error, errno, path);
          return FALSE;
        }
      return TRUE;
    }

  if (depth > ZOT_REMOVE_TREE_MAX_DEPTH)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                     _("cannot delete %s: it lies more than %u folders deep"),
                     path, (guint) ZOT_REMOVE_TREE_MAX_DEPTH);
      return FALSE;
    }

  fd = remove_tree_open_dir (parent_fd, name, st.st_mode);
  if (fd < 0)
    {
      int saved_errno = errno;

      /* No longer a directory but a link or a file, put there while we
       * looked: removing that name is all that is left to do. */
      if (saved_errno == ENOTDIR || saved_errno == ELOOP)
        {
          if (unlinkat (parent_fd, name, 0) == 0 || errno == ENOENT)
            return TRUE;
          saved_errno = errno;
        }
      if (saved_errno == ENOENT)
        return TRUE;
      remove_tree_fail (error, saved_errno, path);
      return FALSE;
    }

  /* Emptying needs write and search permission, which fchmod() on the open
   * directory grants without a second look-up by name. */
  if (fstat (fd, &st) == 0 && (st.st_mode & S_IRWXU) != S_IRWXU)
    fchmod (fd, (st.st_mode & 07777) | S_IRWXU);

  dir = fdopendir (fd);
  if (dir == NULL)
    {
      remove_tree_fail (error, errno, path);
      close (fd);
      return FALSE;
    }

  /* All names first: entries removed while a directory is read may make
   * readdir() skip others. */
  children = g_ptr_array_new_with_free_func (g_free);
  errno = 0;
  while ((entry = readdir (dir)) != NULL)
    {
      if (!g_str_equal (entry->d_name, ".") && !g_str_equal (entry->d_name, ".."))
        g_ptr_array_add (children, g_strdup (entry->d_name));
      errno = 0;
    }
  if (errno != 0)
    {
      remove_tree_fail (error, errno, path);
      ok = FALSE;
    }

  for (guint i = 0; i < children->len; i++)
    {
      const char *child = g_ptr_array_index (children, i);
      g_autofree char *child_path = g_build_filename (path, child, NULL);

      if (!remove_tree_at (dirfd (dir), child, child_path, depth + 1, error))
        ok = FALSE;
    }

  closedir (dir);

  if (ok && unlinkat (parent_fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
    {
      remove_tree_fail (error, errno, path);
      ok = FALSE;
    }

  return ok;
}

/**
 * zot_remove_tree:
 * @path: a file, directory or symbolic link
 * @error: return location for a #GError
 *
 * Deletes @path and, for a directory, everything in it, without following
 * symbolic links: a link to a developer's checkout goes, the checkout stays.
 * A missing @path is not an error. On a failure the delete goes on with
 * the rest and the first failure is reported; a folder deeper than
 * %ZOT_REMOVE_TREE_MAX_DEPTH below @path is left alone and fails it. Blocks
 * on the disk: call it from a worker thread.
 *
 * Returns: %TRUE when @path is gone
 */
gboolean
zot_remove_tree (const char  *path,
                 GError     **error)
{
  g_autofree char *trimmed = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *name = NULL;
  gsize length;
  gboolean ok;
  int parent_fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* g_path_get_dirname() reads "a/b/" as the folder b itself. */
  trimmed = g_strdup (path);
  length = strlen (trimmed);
  while (length > 1 && trimmed[length - 1] == G_DIR_SEPARATOR)
    trimmed[--length] = '\0';

  parent = g_path_get_dirname (trimmed);
  name = g_path_get_basename (trimmed);
  if (g_str_equal (name, G_DIR_SEPARATOR_S) || g_str_equal (name, ".") ||
      g_str_equal (name, ".."))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("cannot delete %s (%s)"), path, g_strerror (EINVAL));
      return FALSE;
    }

  parent_fd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0)
    {
      if (errno == ENOENT)
        return TRUE;
      remove_tree_fail (error, errno, path);
      return FALSE;
    }

  ok = remove_tree_at (parent_fd, name, path, 0, error);
  close (parent_fd);

  return ok;
}
