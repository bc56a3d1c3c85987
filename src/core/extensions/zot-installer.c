#define G_LOG_DOMAIN "zot-installer"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "zot-archive.h"
#include "zot-error.h"
#include "zot-flatpak.h"
#include "zot-installer.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-names.h"
#include "zot-paths.h"

/* Both start with a dot, so discovery and update never see them. */
#define STAGING_TEMPLATE  ".install-XXXXXX"
#define REMOVING_TEMPLATE ".remove-XXXXXX"

/* git explains a failure over several lines; a message is one line. */
#define GIT_MESSAGE_MAX_CHARS 300

#define COPY_ATTRIBUTES                         \
  G_FILE_ATTRIBUTE_STANDARD_NAME ","            \
  G_FILE_ATTRIBUTE_STANDARD_TYPE ","            \
  G_FILE_ATTRIBUTE_STANDARD_SYMLINK_TARGET ","  \
  G_FILE_ATTRIBUTE_UNIX_MODE

typedef struct
{
  char     *source;         /* as the caller gave it, for messages */
  char     *source_dir;     /* absolute, for a directory source */
  char     *target_parent;  /* absolute */
  char     *staging;        /* ours to delete while set */
  gboolean  force;
  GError   *clone_error;
} InstallData;

typedef struct
{
  GPtrArray *directories;
  GPtrArray *results;
  guint      index;
  char      *head_before;
} UpdateData;

typedef struct
{
  GSubprocess *subprocess;
  GError      *error;       /* held while a cancelled git is reaped */
} GitRun;

G_DEFINE_BOXED_TYPE (ZotUpdateResult, zot_update_result,
                     zot_update_result_copy, zot_update_result_free)

static void
install_data_free (InstallData *data)
{
  g_free (data->source);
  g_free (data->source_dir);
  g_free (data->target_parent);
  g_free (data->staging);
  g_clear_error (&data->clone_error);
  g_free (data);
}

static void
update_data_free (UpdateData *data)
{
  g_clear_pointer (&data->directories, g_ptr_array_unref);
  g_clear_pointer (&data->results, g_ptr_array_unref);
  g_free (data->head_before);
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

static void
set_error_from_errno (GError     **error,
                      int          saved_errno,
                      const char  *format,
                      const char  *path)
{
  g_assert (format != NULL);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               format, path, g_strerror (saved_errno));
}

/* Deletes a tree without following symbolic links: a link to a developer's
 * checkout goes, the checkout stays. Safe to call from a worker thread. */
static gboolean
remove_tree (const char  *path,
             GError     **error)
{
  GStatBuf st;

  g_assert (path != NULL);

  if (g_lstat (path, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT)
        return TRUE;
      set_error_from_errno (error, saved_errno, _("cannot delete %s (%s)"), path);
      return FALSE;
    }

  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GDir) dir = NULL;
      const char *name;

      /* A directory without write permission cannot be emptied. */
      if ((st.st_mode & S_IRWXU) != S_IRWXU)
        g_chmod (path, (st.st_mode & 07777) | S_IRWXU);

      dir = g_dir_open (path, 0, error);
      if (dir == NULL)
        return FALSE;

      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (!remove_tree (child, error))
            return FALSE;
        }

      if (g_rmdir (path) != 0)
        {
          set_error_from_errno (error, errno, _("cannot delete %s (%s)"), path);
          return FALSE;
        }
      return TRUE;
    }

  if (g_unlink (path) != 0)
    {
      set_error_from_errno (error, errno, _("cannot delete %s (%s)"), path);
      return FALSE;
    }
  return TRUE;
}

static void
remove_tree_quietly (const char *path)
{
  g_autoptr(GError) error = NULL;

  if (!remove_tree (path, &error))
    g_debug ("Leaving %s behind: %s", path, error->message);
}

static gboolean
name_can_be_installed (const char *name)
{
  /* Discovery skips hidden directories, and staging directories are hidden:
   * a name with a leading dot would never load and could collide. */
  return zot_manifest_name_is_valid (name) && name[0] != '.';
}

static gboolean
path_is_inside (const char *path,
                const char *ancestor)
{
  gsize length = strlen (ancestor);

  if (g_str_equal (ancestor, "/"))
    return TRUE;

  return strncmp (path, ancestor, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

/* Replaces the staging directory in a message by what the user named, so that
 * "…/.install-Ab12Cd/extension.json" reads as the source's own file. */
static void
error_replace_path (GError     *error,
                    const char *path,
                    const char *replacement)
{
  GString *message;

  g_assert (error != NULL);

  message = g_string_new (error->message);
  g_string_replace (message, path, replacement, 0);
  g_free (error->message);
  error->message = g_string_free (message, FALSE);
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
static void
git_run_async (const char * const  *argv,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GBytes) stdin_bytes = NULL;
  g_autoptr(GError) error = NULL;
  GitRun *run;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, git_run_async);
  run = g_new0 (GitRun, 1);
  g_task_set_task_data (task, run, (GDestroyNotify) git_run_free);

  /* stdin is a pipe closed at once: git never waits on the caller's. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  /* Inside Flatpak, the host's git: the paths it is given are the same there. */
  run->subprocess = zot_flatpak_spawnv (launcher, NULL, NULL, argv, &error);
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
static char *
git_run_finish (GAsyncResult  *result,
                GError       **error)
{
  g_assert (g_task_is_valid (result, NULL));
  g_assert (g_task_get_source_tag (G_TASK (result)) == git_run_async);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Install ----------------------------------------------------------------- */

static gboolean
install_prepare_target (InstallData  *data,
                        GError      **error)
{
  if (g_mkdir_with_parents (data->target_parent, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("%s: cannot create %s (%s); check its permissions"),
                   data->source, data->target_parent, g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

static gboolean
install_prepare_staging (InstallData  *data,
                         GError      **error)
{
  g_autofree char *staging = g_build_filename (data->target_parent, STAGING_TEMPLATE, NULL);

  g_assert (data->staging == NULL);

  if (g_mkdtemp (staging) == NULL)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("%s: cannot create a staging directory in %s (%s); check its permissions"),
                   data->source, data->target_parent, g_strerror (saved_errno));
      return FALSE;
    }

  data->staging = g_steal_pointer (&staging);
  return TRUE;
}

static gboolean
copy_mode (GFileInfo     *info,
           GFile         *target,
           GCancellable  *cancellable,
           GError       **error)
{
  guint32 mode;

  if (!g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_UNIX_MODE))
    return TRUE;

  mode = g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_UNIX_MODE) & 07777;
  return g_file_set_attribute_uint32 (target, G_FILE_ATTRIBUTE_UNIX_MODE, mode,
                                      G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, error);
}

/* Copies the children of @source into the existing directory @dest. Symbolic
 * links stay links; modes are kept, so exec stays executable. */
static gboolean
copy_tree (GFile         *source,
           GFile         *dest,
           GCancellable  *cancellable,
           GError       **error)
{
  g_autoptr(GFileEnumerator) enumerator = NULL;

  enumerator = g_file_enumerate_children (source, COPY_ATTRIBUTES,
                                          G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                          cancellable, error);
  if (enumerator == NULL)
    return FALSE;

  for (;;)
    {
      g_autoptr(GFile) target = NULL;
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (enumerator, &info, &child, cancellable, error))
        return FALSE;
      if (info == NULL)
        break;

      target = g_file_get_child (dest, g_file_info_get_name (info));

      switch (g_file_info_get_file_type (info))
        {
        case G_FILE_TYPE_SYMBOLIC_LINK:
          if (!g_file_make_symbolic_link (target, g_file_info_get_symlink_target (info),
                                          cancellable, error))
            return FALSE;
          break;

        case G_FILE_TYPE_DIRECTORY:
          if (!g_file_make_directory (target, cancellable, error) ||
              !copy_tree (child, target, cancellable, error) ||
              !copy_mode (info, target, cancellable, error))
            return FALSE;
          break;

        case G_FILE_TYPE_REGULAR:
          if (!g_file_copy (child, target,
                            G_FILE_COPY_NOFOLLOW_SYMLINKS | G_FILE_COPY_ALL_METADATA,
                            cancellable, NULL, NULL, error))
            return FALSE;
          break;

        case G_FILE_TYPE_UNKNOWN:
        case G_FILE_TYPE_SPECIAL:
        case G_FILE_TYPE_SHORTCUT:
        case G_FILE_TYPE_MOUNTABLE:
        default:
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("%s is not a regular file, directory or symbolic link"),
                       g_file_peek_path (child));
          return FALSE;
        }
    }

  return TRUE;
}

/* Worker thread: an archive unpacked into a fresh staging directory,
 * which then is the extension's folder (the archive's top, or its only
 * folder moved up into a staging directory of its own). */
static gboolean
install_unpack_archive (InstallData   *data,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autofree char *root = NULL;

  if (!install_prepare_target (data, error) || !install_prepare_staging (data, error))
    return FALSE;

  if (!zot_archive_extract (data->source_dir, data->source, data->staging, cancellable, error))
    return FALSE;

  root = zot_archive_find_extension_dir (data->staging, data->source, error);
  if (root == NULL)
    return FALSE;

  if (g_str_equal (root, data->staging))
    {
      /* g_mkdtemp() made it private; an installed extension is not. */
      g_chmod (data->staging, 0755);
      return TRUE;
    }

  {
    g_autofree char *unpacked = g_steal_pointer (&data->staging);
    gboolean moved;

    if (!install_prepare_staging (data, error))
      {
        remove_tree_quietly (unpacked);
        return FALSE;
      }

    /* rename(2) replaces the empty directory g_mkdtemp() just made. */
    moved = g_rename (root, data->staging) == 0;
    if (!moved)
      set_error_from_errno (error, errno, _("cannot move the unpacked %s into place (%s)"),
                            data->source);
    remove_tree_quietly (unpacked);
    return moved;
  }
}

/* Worker thread: the source directory into a fresh staging directory. */
static gboolean
install_copy_directory (InstallData   *data,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GFile) from = NULL;
  g_autoptr(GFile) to = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *real_source = NULL;
  g_autofree char *real_parent = NULL;
  GStatBuf st;

  if (g_stat (data->source_dir, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT || saved_errno == ENOTDIR)
        g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE,
                     _("%s: no such directory; give an extension directory or a git URL"),
                     data->source);
      else
        g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE,
                     _("%s: cannot be read (%s); check its permissions"),
                     data->source, g_strerror (saved_errno));
      return FALSE;
    }

  if (S_ISREG (st.st_mode))
    return install_unpack_archive (data, cancellable, error);

  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE,
                   _("%s: not a directory; give the extension's directory, an archive "
                     "of one or a git URL"),
                   data->source);
      return FALSE;
    }

  /* Fail before copying anything, naming the source's own extension.json. */
  manifest = zot_manifest_new_for_directory (data->source_dir, error);
  if (manifest == NULL)
    return FALSE;

  if (!install_prepare_target (data, error))
    return FALSE;

  /* The copy would otherwise copy itself, without end. */
  real_source = realpath (data->source_dir, NULL);
  real_parent = realpath (data->target_parent, NULL);
  if (real_source != NULL && real_parent != NULL && path_is_inside (real_parent, real_source))
    {
      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE,
                   _("%s: cannot be installed into %s, which lies inside it; "
                     "install from a copy elsewhere"),
                   data->source, data->target_parent);
      return FALSE;
    }

  if (!install_prepare_staging (data, error))
    return FALSE;

  from = g_file_new_for_path (data->source_dir);
  to = g_file_new_for_path (data->staging);
  if (!copy_tree (from, to, cancellable, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                     _("%s: copying into %s failed (%s); "
                       "check that every file is readable and the disk has room"),
                     data->source, data->target_parent, local_error->message);
      return FALSE;
    }

  g_chmod (data->staging, st.st_mode & 07777);
  return TRUE;
}

/* Worker thread: validates the staged tree and moves it into place. Once the
 * staging directory has been renamed, the install is done, cancelled or not. */
static ZotManifest *
install_place (InstallData   *data,
               const char    *display_source,
               GCancellable  *cancellable,
               GError       **error)
{
  g_autoptr(ZotManifest) staged = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *target = NULL;
  g_autofree char *aside = NULL;
  const char *name;
  GStatBuf st;

  staged = zot_manifest_new_for_directory (data->staging, &local_error);
  if (staged == NULL)
    {
      error_replace_path (local_error, data->staging, display_source);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  name = zot_manifest_get_name (staged);
  if (!name_can_be_installed (name))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s/%s: field \"name\" (\"%s\") starts with a dot, "
                     "so it would never be loaded; rename the extension"),
                   display_source, ZOT_MANIFEST_FILENAME, name);
      return NULL;
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  target = g_build_filename (data->target_parent, name, NULL);

  if (g_lstat (target, &st) == 0)
    {
      if (!data->force)
        {
          g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_EXISTS,
                       _("%s: an extension named \"%s\" is already installed in %s; "
                         "remove it first or use --force to replace it"),
                       data->source, name, data->target_parent);
          return NULL;
        }

      /* The staging name is unique, so its ".old" sibling is free. */
      aside = g_strconcat (data->staging, ".old", NULL);
      if (g_rename (target, aside) != 0)
        {
          int saved_errno = errno;

          g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                       _("%s: cannot move the installed %s aside (%s); "
                         "check the permissions of %s"),
                       data->source, target, g_strerror (saved_errno), data->target_parent);
          return NULL;
        }

      if (g_rename (data->staging, target) != 0)
        {
          int saved_errno = errno;

          if (g_rename (aside, target) != 0)
            g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                         _("%s: cannot move the new copy to %s (%s), nor the old one back; "
                           "it is at %s"),
                         data->source, target, g_strerror (saved_errno), aside);
          else
            g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                         _("%s: cannot move the new copy to %s (%s); the old one was kept, "
                           "check the permissions of %s"),
                         data->source, target, g_strerror (saved_errno), data->target_parent);
          return NULL;
        }

      remove_tree_quietly (aside);
    }
  else if (errno != ENOENT)
    {
      int saved_errno = errno;

      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                   _("%s: cannot look at %s (%s); check the permissions of %s"),
                   data->source, target, g_strerror (saved_errno), data->target_parent);
      return NULL;
    }
  else if (g_rename (data->staging, target) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                   _("%s: cannot move the new copy to %s (%s); check the permissions of %s"),
                   data->source, target, g_strerror (saved_errno), data->target_parent);
      return NULL;
    }

  /* Installed: the staging directory is no longer ours to delete. */
  g_clear_pointer (&data->staging, g_free);

  return zot_manifest_new_for_directory (target, error);
}

static void
install_return (GTask       *task,
                InstallData *data,
                ZotManifest *manifest,
                GError      *error)
{
  if (manifest == NULL)
    {
      g_assert (error != NULL);

      /* Whatever failed, no half-installed tree stays behind. */
      if (data->staging != NULL)
        remove_tree_quietly (data->staging);
      g_clear_pointer (&data->staging, g_free);

      g_task_return_error (task, error);
      return;
    }

  g_task_return_pointer (task, manifest, g_object_unref);
}

static void
install_directory_thread (GTask        *task,
                          gpointer      source_object,
                          gpointer      task_data,
                          GCancellable *cancellable)
{
  InstallData *data = task_data;
  ZotManifest *manifest = NULL;
  GError *error = NULL;

  if (install_copy_directory (data, cancellable, &error))
    manifest = install_place (data, data->source_dir, cancellable, &error);

  install_return (task, data, manifest, error);
}

static void
install_clone_thread (GTask        *task,
                      gpointer      source_object,
                      gpointer      task_data,
                      GCancellable *cancellable)
{
  InstallData *data = task_data;
  ZotManifest *manifest = NULL;
  GError *error = NULL;

  if (data->clone_error != NULL)
    {
      error = g_steal_pointer (&data->clone_error);
    }
  else
    {
      g_autofree char *git_dir = g_build_filename (data->staging, ".git", NULL);
      GStatBuf st;

      /* git made .git honouring the umask; the checkout's top should match
       * it rather than keep the staging directory's private 0700. */
      if (g_stat (git_dir, &st) == 0)
        g_chmod (data->staging, st.st_mode & 07777);

      manifest = install_place (data, data->source, cancellable, &error);
    }

  install_return (task, data, manifest, error);
}

static void
install_cloned_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InstallData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;

  output = git_run_finish (result, &error);
  if (output == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          data->clone_error = g_steal_pointer (&error);
        }
      else if (error->domain == G_SPAWN_ERROR)
        {
          data->clone_error =
            g_error_new (ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_GIT,
                         _("%s: cannot run git (%s); install git to install from a URL"),
                         data->source, error->message);
        }
      else
        {
          data->clone_error =
            g_error_new (ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_GIT,
                         _("%s: git clone failed (%s); check the URL and that you can reach it"),
                         data->source, error->message);
        }
    }

  /* Validating, and deleting a failed clone, take disk time: off the loop. */
  g_task_run_in_thread (task, install_clone_thread);
}

/**
 * zot_installer_install_async:
 * @source: an extension directory, or a git URL (see zot_installer_source_is_url())
 * @target_parent: the directory to install into, such as $ZOT_HOME/extensions;
 *   created when missing
 * @force: replace an installed extension of the same name
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Copies (or clones, keeping `.git`) @source into a staging directory inside
 * @target_parent, validates its extension.json and renames it to
 * @target_parent/<name>, with <name> from the manifest. On any failure the
 * staging directory is deleted and an existing install is left as it was.
 */
void
zot_installer_install_async (const char          *source,
                             const char          *target_parent,
                             gboolean             force,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  InstallData *data;

  g_return_if_fail (source != NULL);
  g_return_if_fail (target_parent != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_installer_install_async);
  /* Once renamed into place the extension is installed; report that. */
  g_task_set_check_cancellable (task, FALSE);

  data = g_new0 (InstallData, 1);
  data->source = g_strdup (source);
  data->target_parent = g_canonicalize_filename (target_parent, NULL);
  data->force = !!force;
  g_task_set_task_data (task, data, (GDestroyNotify) install_data_free);

  if (!zot_installer_source_is_url (source))
    {
      data->source_dir = g_canonicalize_filename (source, NULL);
      g_task_run_in_thread (task, install_directory_thread);
      return;
    }

  /* Two small metadata calls on the caller's thread; git does the rest
   * asynchronously, and validation runs in a worker thread. */
  if (!install_prepare_target (data, &error) || !install_prepare_staging (data, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  {
    const char *argv[] = {
      "git", "clone", "--depth", "1", "--quiet", "--", source, data->staging, NULL
    };

    git_run_async (argv, cancellable, install_cloned_cb, g_steal_pointer (&task));
  }
}

/**
 * zot_installer_install_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the installed extension's manifest, read from
 *   its final directory, or %NULL with @error set
 */
ZotManifest *
zot_installer_install_finish (GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_installer_install_async,
                        NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
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
        set_error_from_errno (error, saved_errno,
                              _("cannot look at %s (%s); check its permissions"), path);
      return FALSE;
    }

  if (!S_ISDIR (st.st_mode))
    {
      if (g_unlink (path) != 0)
        {
          set_error_from_errno (error, errno,
                                _("cannot delete %s (%s); check its permissions"), path);
          return FALSE;
        }
      return TRUE;
    }

  /* rename(2) replaces an empty directory, which g_mkdtemp() made unique. */
  doomed = g_build_filename (extensions_dir, REMOVING_TEMPLATE, NULL);
  if (g_mkdtemp (doomed) == NULL)
    {
      set_error_from_errno (error, errno, _("cannot delete %s (%s); check its permissions"), path);
      return FALSE;
    }

  if (g_rename (path, doomed) != 0)
    {
      int saved_errno = errno;

      g_rmdir (doomed);
      set_error_from_errno (error, saved_errno,
                            _("cannot delete %s (%s); check its permissions"), path);
      return FALSE;
    }

  if (!remove_tree (doomed, &local_error))
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

/* Enable ------------------------------------------------------------------ */

/**
 * zot_installer_set_enabled:
 * @extension_dir: the extension's directory
 * @enabled: the new value of the manifest's "enabled" member
 * @error: return location for a #GError
 *
 * Rewrites extension.json with "enabled" set, keeping every other member,
 * atomically. A manifest that does not validate is left alone and its
 * ZOT_MANIFEST_ERROR returned.
 *
 * Returns: %TRUE on success
 */
gboolean
zot_installer_set_enabled (const char  *extension_dir,
                           gboolean     enabled,
                           GError     **error)
{
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *original = NULL;
  const char *path;
  JsonNode *root;

  g_return_val_if_fail (extension_dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Validation first: the user gets the manifest's own error and its fix. */
  manifest = zot_manifest_new_for_directory (extension_dir, error);
  if (manifest == NULL)
    return FALSE;
  path = zot_manifest_get_path (manifest);

  parser = json_parser_new ();
  if (!zot_file_get_contents_bounded (path, ZOT_MANIFEST_MAX_BYTES, &original, NULL, &local_error) ||
      !zot_json_parser_load (parser, original, -1, &local_error))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_PARSE,
                   _("%s: cannot be read (%s); fix the file and try again"),
                   path, local_error->message);
      return FALSE;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: the top level must be a JSON object"), path);
      return FALSE;
    }

  /* json-glib keeps the members' order, and a replaced member its place. */
  json_object_set_boolean_member (json_node_get_object (root), "enabled", !!enabled);

  generator = json_generator_new ();
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, root);
  json = json_generator_to_data (generator, NULL);
  contents = g_strconcat (json, "\n", NULL);

  if (!g_file_set_contents (path, contents, -1, &local_error))
    {
      g_set_error (error, G_FILE_ERROR, local_error->code,
                   _("%s: cannot be written (%s); check its permissions"),
                   path, local_error->message);
      return FALSE;
    }

  return TRUE;
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
update_head_after_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  UpdateData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *head = NULL;
  const char *directory;

  head = git_run_finish (result, &error);
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
  else
    {
      g_autofree char *before = g_strndup (data->head_before, 7);
      g_autofree char *after = g_strndup (head, 7);

      g_ptr_array_add (data->results,
                       update_result_new (directory, ZOT_UPDATE_STATUS_UPDATED,
                                          g_strdup_printf ("%s..%s", before, after)));
    }

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

  output = git_run_finish (result, &error);
  if (output == NULL)
    {
      update_step_failed (task, "pull --ff-only", error);
      return;
    }

  git_run_async (argv, cancellable, update_head_after_cb, g_steal_pointer (&task));
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

  head = git_run_finish (result, &error);
  if (head == NULL)
    {
      update_step_failed (task, "rev-parse HEAD", error);
      return;
    }

  g_free (data->head_before);
  data->head_before = g_strstrip (g_steal_pointer (&head));

  git_run_async (argv, cancellable, update_pulled_cb, g_steal_pointer (&task));
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

      git_run_async (argv, cancellable, update_head_before_cb, g_steal_pointer (&task));
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

/**
 * zot_installer_source_is_url:
 * @source: what the user asked to install
 *
 * A URL is anything with a scheme followed by "://" (https, ssh, git,
 * file, …) or git's scp-like `user@host:path`; anything else is a path.
 *
 * Returns: %TRUE when @source is to be cloned with git
 */
gboolean
zot_installer_source_is_url (const char *source)
{
  const char *colon;
  const char *at;
  const char *slash;

  g_return_val_if_fail (source != NULL, FALSE);

  if (g_ascii_isalpha (source[0]))
    {
      const char *p = source + 1;

      /* RFC 3986 scheme characters */
      while (g_ascii_isalnum (*p) || *p == '+' || *p == '-' || *p == '.')
        p++;
      if (g_str_has_prefix (p, "://"))
        return TRUE;
    }

  /* As git reads it: a colon before any slash, here with a user part. */
  colon = strchr (source, ':');
  at = strchr (source, '@');
  slash = strchr (source, '/');
  if (colon == NULL || at == NULL || at == source || at > colon || at + 1 == colon)
    return FALSE;

  return slash == NULL || slash > colon;
}
