/* zot-installer-fetch.c — a directory source copied, or an archive
 * unpacked, into a fresh staging directory beside the extensions, on a
 * worker thread. Nothing here is in place yet; zot-installer.c validates
 * the staged tree and renames it.
 */
#define G_LOG_DOMAIN "zot-installer"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-archive.h"
#include "zot-error.h"
#include "zot-installer.h"
#include "zot-installer-private.h"

#define COPY_ATTRIBUTES                         \
  G_FILE_ATTRIBUTE_STANDARD_NAME ","            \
  G_FILE_ATTRIBUTE_STANDARD_TYPE ","            \
  G_FILE_ATTRIBUTE_STANDARD_SYMLINK_TARGET ","  \
  G_FILE_ATTRIBUTE_UNIX_MODE

static gboolean
path_is_inside (const char *path,
                const char *ancestor)
{
  gsize length = strlen (ancestor);

  if (g_str_equal (ancestor, "/"))
    return TRUE;

  return strncmp (path, ancestor, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

gboolean
_zot_installer_prepare_target (InstallData  *data,
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

gboolean
_zot_installer_prepare_staging (InstallData  *data,
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

  if (!_zot_installer_prepare_target (data, error) || !_zot_installer_prepare_staging (data, error))
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

    if (!_zot_installer_prepare_staging (data, error))
      {
        _zot_installer_remove_tree_quietly (unpacked);
        return FALSE;
      }

    /* rename(2) replaces the empty directory g_mkdtemp() just made. */
    moved = g_rename (root, data->staging) == 0;
    if (!moved)
      _zot_installer_set_error_from_errno (error, errno,
                                           _("cannot move the unpacked %s into place (%s)"),
                                           data->source);
    _zot_installer_remove_tree_quietly (unpacked);
    return moved;
  }
}

/* Worker thread: the source directory into a fresh staging directory. */
gboolean
_zot_installer_copy_directory (InstallData   *data,
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

  if (!_zot_installer_prepare_target (data, error))
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

  if (!_zot_installer_prepare_staging (data, error))
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
