/* zot-archive.c — unpacking an extension archive with libarchive.
 *
 * An archive comes from anywhere (a download, a drop on the window), so
 * every entry is checked before it reaches the disk: its name stays
 * relative and never climbs with `..`; a symbolic link points inside the
 * archive and not through another link; a hard link names a file unpacked
 * before it; devices, fifos and sockets are refused; and the entry count,
 * each entry's size and the total size have caps (zot-limits.h). The format
 * and compression are told from the content, not the file's name.
 *
 * Links through other links are checked once every link is known: a link
 * written early may only become dangerous through one written later. The
 * caller unpacks into a fresh directory and deletes it on any failure, and
 * libarchive's own ARCHIVE_EXTRACT_SECURE_SYMLINKS keeps every write from
 * passing through a link in the meantime.
 */
#define G_LOG_DOMAIN "zot-archive"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n.h>

#include "zot-archive.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-names.h"

/* macOS puts resource forks beside the real content of a zip. */
#define MACOS_METADATA_DIR "__MACOSX"

/* What libarchive's errno is when no format took the data (its private
 * ARCHIVE_ERRNO_FILE_FORMAT, EILSEQ on POSIX systems). */
#define ARCHIVE_FILE_FORMAT_ERRNO EILSEQ

#define READ_BLOCK_BYTES   ((size_t) 64 * 1024)
#define MIB                ((guint64) 1024 * 1024)

G_DEFINE_QUARK (zot-archive-error-quark, zot_archive_error)

typedef struct
{
  const char *display_name;
  char       *dest;            /* canonical, without symbolic links */
  GHashTable *symlinks;        /* clean path → target */
  GHashTable *files;           /* clean paths of regular files, for hard links */
  guint       n_entries;
  guint64     total_bytes;
} Extraction;

static void
extraction_clear (Extraction *ex)
{
  g_clear_pointer (&ex->dest, g_free);
  g_clear_pointer (&ex->symlinks, g_hash_table_unref);
  g_clear_pointer (&ex->files, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Extraction, extraction_clear)

/* Fails @error for entry @name: "ARCHIVE: entry "NAME" REASON". */
G_GNUC_PRINTF (5, 6)
static void
set_entry_error (GError          **error,
                 ZotArchiveError   code,
                 Extraction       *ex,
                 const char       *name,
                 const char       *format,
                 ...)
{
  g_autofree char *shown = zot_name_excerpt (name);
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  /* Translators: the archive's name, the entry's name, and why it was refused */
  g_set_error (error, ZOT_ARCHIVE_ERROR, code, _("%s: entry \"%s\" %s"),
               ex->display_name, shown, reason);
}

/* The components of @path, without empty ones and ".". Sets @climbs
 * when one of them is "..". */
static GStrv
split_path (const char *path,
            gboolean   *climbs)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);
  g_autoptr(GStrvBuilder) kept = g_strv_builder_new ();

  *climbs = FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        *climbs = TRUE;
      g_strv_builder_add (kept, parts[i]);
    }

  return g_strv_builder_end (kept);
}

/* @name as a clean relative path ("" for the archive's top), or NULL with
 * @error when it is absolute or climbs. */
static char *
clean_entry_path (Extraction  *ex,
                  const char  *name,
                  GError     **error)
{
  g_auto(GStrv) parts = NULL;
  gboolean climbs;

  if (g_path_is_absolute (name))
    {
      set_entry_error (error, ZOT_ARCHIVE_ERROR_UNSAFE_PATH, ex, name,
                       _("has an absolute path; an extension archive holds relative paths only"));
      return NULL;
    }

  parts = split_path (name, &climbs);
  if (climbs)
    {
      set_entry_error (error, ZOT_ARCHIVE_ERROR_UNSAFE_PATH, ex, name,
                       _("climbs out with \"..\"; an extension archive stays inside itself"));
      return NULL;
    }

  return g_strjoinv ("/", parts);
}

/* The link at @path to @target stays inside the archive, reading @target
 * as plain directories. Sets @through to the first component that is
 * itself a link (when @links is given) and then returns FALSE too. */
static gboolean
link_stays_inside (const char  *path,
                   const char  *target,
                   GHashTable  *links,
                   char       **through)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) own = NULL;
  g_auto(GStrv) parts = NULL;
  gboolean climbs;
  guint n_parts;

  own = split_path (path, &climbs);
  g_assert (!climbs);
  /* The link's own directory is where its target starts. */
  for (guint i = 0; own[i] != NULL && own[i + 1] != NULL; i++)
    g_ptr_array_add (stack, g_strdup (own[i]));

  parts = split_path (target, &climbs);
  n_parts = g_strv_length (parts);
  for (guint i = 0; i < n_parts; i++)
    {
      if (g_str_equal (parts[i], ".."))
        {
          if (stack->len == 0)
            return FALSE;
          g_ptr_array_remove_index (stack, stack->len - 1);
          continue;
        }

      g_ptr_array_add (stack, g_strdup (parts[i]));

      /* A link as the last component is checked on its own; one earlier
       * would be followed, and its ".." would leave from where it points. */
      if (links != NULL && i + 1 < n_parts)
        {
          g_autofree char *so_far = NULL;

          g_ptr_array_add (stack, NULL);
          so_far = g_strjoinv ("/", (char **) stack->pdata);
          g_ptr_array_remove_index (stack, stack->len - 1);
          if (g_hash_table_contains (links, so_far))
            {
              *through = g_steal_pointer (&so_far);
              return FALSE;
            }
        }
    }

  return TRUE;
}

/* The first directory above @path that is a link unpacked before, if any. */
static const char *
find_link_above (Extraction *ex,
                 const char *path)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, ex->symlinks);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      gsize length = strlen (key);

      if (strncmp (path, key, length) == 0 && path[length] == '/')
        return key;
    }

  return NULL;
}

static gboolean
check_kind (Extraction            *ex,
            struct archive_entry  *entry,
            const char            *name,
            const char            *path,
            GError               **error)
{
  const char *hardlink = archive_entry_hardlink (entry);
  const char *link_above = find_link_above (ex, path);

  if (link_above != NULL)
    {
      set_entry_error (error, ZOT_ARCHIVE_ERROR_UNSAFE_LINK, ex, name,
                       /* Translators: said of an archive entry named before this part of the
                        * message; %s is a path inside the archive */
                       _("lies inside the symbolic link \"%s\"; links must not lead "
                         "entries elsewhere"), link_above);
      return FALSE;
    }

  if (hardlink != NULL)
    {
      g_autofree char *target = NULL;
      g_autoptr(GError) local_error = NULL;

      target = clean_entry_path (ex, hardlink, &local_error);
      if (target == NULL || !g_hash_table_contains (ex->files, target))
        {
          set_entry_error (error, ZOT_ARCHIVE_ERROR_UNSAFE_LINK, ex, name,
                           /* Translators: said of an archive entry named before this part of the
                            * message; %s is a path inside the archive */
                           _("is a hard link to \"%s\", which is not a file earlier in the "
                             "archive; links must stay inside it"), hardlink);
          return FALSE;
        }
      return TRUE;
    }

  switch (archive_entry_filetype (entry))
    {
    case AE_IFREG:
    case AE_IFDIR:
      return TRUE;

    case AE_IFLNK:
      {
        const char *target = archive_entry_symlink (entry);

        if (target == NULL || *target == '\0' || g_path_is_absolute (target) ||
            !link_stays_inside (path, target, NULL, NULL))
          {
            set_entry_error (error, ZOT_ARCHIVE_ERROR_UNSAFE_LINK, ex, name,
                             /* Translators: said of an archive entry named before this part of
                              * the message; %s is where the link points */
                             _("is a symbolic link to \"%s\", outside the archive; "
                               "links must stay inside it"),
                             target != NULL ? target : "");
            return FALSE;
          }
        return TRUE;
      }

    case AE_IFCHR:
    case AE_IFBLK:
      set_entry_error (error, ZOT_ARCHIVE_ERROR_SPECIAL_FILE, ex, name,
                       _("is a device; an extension archive holds files, folders and "
                         "links only"));
      return FALSE;

    case AE_IFIFO:
      set_entry_error (error, ZOT_ARCHIVE_ERROR_SPECIAL_FILE, ex, name,
                       _("is a fifo; an extension archive holds files, folders and "
                         "links only"));
      return FALSE;

    case AE_IFSOCK:
      set_entry_error (error, ZOT_ARCHIVE_ERROR_SPECIAL_FILE, ex, name,
                       _("is a socket; an extension archive holds files, folders and "
                         "links only"));
      return FALSE;

    default:
      set_entry_error (error, ZOT_ARCHIVE_ERROR_SPECIAL_FILE, ex, name,
                       _("is of an unknown kind; an extension archive holds files, "
                         "folders and links only"));
      return FALSE;
    }
}

static void
set_entry_too_large (GError     **error,
                     Extraction  *ex,
                     const char  *name)
{
  set_entry_error (error, ZOT_ARCHIVE_ERROR_TOO_LARGE, ex, name,
                   /* Translators: said of an archive entry named before this part of the
                    * message; %u is a number of mebibytes */
                   _("expands to more than %u MiB; an extension archive's files are "
                     "smaller"),
                   (guint) (ZOT_ARCHIVE_MAX_ENTRY_BYTES / MIB));
}

static void
set_total_too_large (GError     **error,
                     Extraction  *ex)
{
  g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_TOO_LARGE,
               _("%s: expands to more than %u MiB in all; an extension archive is smaller"),
               ex->display_name, (guint) (ZOT_ARCHIVE_MAX_TOTAL_BYTES / MIB));
}

/* Copies the entry's data, counting what it expands to: a size the header
 * did not declare (or declared wrong) is caught within one block. */
static gboolean
copy_data (Extraction      *ex,
           struct archive  *in,
           struct archive  *out,
           const char      *name,
           GCancellable    *cancellable,
           GError         **error)
{
  guint64 entry_bytes = 0;

  for (;;)
    {
      const void *buffer;
      size_t size;
      la_int64_t offset;
      guint64 end;
      int status;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;

      status = archive_read_data_block (in, &buffer, &size, &offset);
      if (status == ARCHIVE_EOF)
        return TRUE;
      if (status < ARCHIVE_WARN)
        {
          set_entry_error (error, ZOT_ARCHIVE_ERROR_CORRUPT, ex, name,
                           /* Translators: said of an archive entry named before this part of the
                            * message; %s is libarchive's error message */
                           _("cannot be read (%s); is the archive whole?"),
                           archive_error_string (in));
          return FALSE;
        }

      /* Sparse entries skip ahead: the file still grows to the offset. */
      end = (guint64) MAX (offset, 0) + size;
      if (end > ZOT_ARCHIVE_MAX_ENTRY_BYTES)
        {
          set_entry_too_large (error, ex, name);
          return FALSE;
        }
      if (end > entry_bytes)
        {
          ex->total_bytes += end - entry_bytes;
          entry_bytes = end;
        }
      if (ex->total_bytes > ZOT_ARCHIVE_MAX_TOTAL_BYTES)
        {
          set_total_too_large (error, ex);
          return FALSE;
        }

      if (archive_write_data_block (out, buffer, size, offset) < ARCHIVE_WARN)
        {
          set_entry_error (error, ZOT_ARCHIVE_ERROR_WRITE, ex, name,
                           /* Translators: said of an archive entry named before this part of the
                            * message; %s is the system's error message */
                           _("cannot be written (%s); check the disk's room and permissions"),
                           archive_error_string (out));
          return FALSE;
        }
    }
}

static gboolean
extract_entry (Extraction            *ex,
               struct archive        *in,
               struct archive        *out,
               struct archive_entry  *entry,
               GCancellable          *cancellable,
               GError               **error)
{
  g_autofree char *path = NULL;
  g_autofree char *full = NULL;
  const char *name = archive_entry_pathname (entry);
  const char *hardlink = archive_entry_hardlink (entry);

  if (name == NULL)
    name = archive_entry_pathname_utf8 (entry);
  if (name == NULL)
    {
      g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_CORRUPT,
                   _("%s: entry %u has no readable name; is the archive whole?"),
                   ex->display_name, ex->n_entries);
      return FALSE;
    }

  path = clean_entry_path (ex, name, error);
  if (path == NULL)
    return FALSE;

  /* "./" names the directory unpacked into, which exists. */
  if (*path == '\0')
    return TRUE;

  if (!check_kind (ex, entry, name, path, error))
    return FALSE;

  if (hardlink == NULL && archive_entry_size_is_set (entry))
    {
      la_int64_t size = archive_entry_size (entry);

      if (size > 0 && (guint64) size > ZOT_ARCHIVE_MAX_ENTRY_BYTES)
        {
          set_entry_too_large (error, ex, name);
          return FALSE;
        }
      if (size > 0 && ex->total_bytes + (guint64) size > ZOT_ARCHIVE_MAX_TOTAL_BYTES)
        {
          set_total_too_large (error, ex);
          return FALSE;
        }
    }

  full = g_build_filename (ex->dest, path, NULL);
  archive_entry_copy_pathname (entry, full);
  if (hardlink != NULL)
    {
      g_autofree char *target = clean_entry_path (ex, hardlink, NULL);
      g_autofree char *full_target = g_build_filename (ex->dest, target, NULL);

      archive_entry_copy_hardlink (entry, full_target);
    }

  if (archive_write_header (out, entry) < ARCHIVE_WARN)
    {
      set_entry_error (error, ZOT_ARCHIVE_ERROR_WRITE, ex, name,
                       _("cannot be written (%s); check the disk's room and permissions"),
                       archive_error_string (out));
      return FALSE;
    }

  if (hardlink == NULL && archive_entry_filetype (entry) == AE_IFREG &&
      !copy_data (ex, in, out, name, cancellable, error))
    return FALSE;

  if (archive_write_finish_entry (out) < ARCHIVE_WARN)
    {
      set_entry_error (error, ZOT_ARCHIVE_ERROR_WRITE, ex, name,
                       _("cannot be written (%s); check the disk's room and permissions"),
                       archive_error_string (out));
      return FALSE;
    }

  /* What is at @path now, for the links that come later. */
  g_hash_table_remove (ex->symlinks, path);
  g_hash_table_remove (ex->files, path);
  if (hardlink == NULL && archive_entry_filetype (entry) == AE_IFLNK)
    g_hash_table_insert (ex->symlinks, g_strdup (path), g_strdup (archive_entry_symlink (entry)));
  else if (hardlink == NULL && archive_entry_filetype (entry) == AE_IFREG)
    g_hash_table_add (ex->files, g_strdup (path));

  return TRUE;
}

/* Once all links are known: none may be read through another. */
static gboolean
check_links (Extraction  *ex,
             GError     **error)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, ex->symlinks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *through = NULL;

      if (!link_stays_inside (key, value, ex->symlinks, &through))
        {
          set_entry_error (error, ZOT_ARCHIVE_ERROR_UNSAFE_LINK, ex, key,
                           /* Translators: said of an archive entry named before this part of the
                            * message; where the link points, then the other link it goes through */
                           _("is a symbolic link to \"%s\" through the link \"%s\"; "
                             "links must point inside the archive directly"),
                           (const char *) value, through != NULL ? through : "");
          return FALSE;
        }
    }

  return TRUE;
}

static void
set_not_archive (GError         **error,
                 const char      *display_name,
                 struct archive  *in)
{
  g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_NOT_ARCHIVE,
               _("%s is not an archive zot can read (%s); give a folder, a tar, "
                 "zip or 7z archive, or a git URL"),
               display_name, archive_error_string (in));
}

static struct archive *
open_reader (const char  *archive,
             const char  *display_name,
             GError     **error)
{
  struct archive *in = archive_read_new ();

  /* What extensions are shipped as. Only compressions built into
   * libarchive: none of these starts a helper program. */
  archive_read_support_format_tar (in);
  archive_read_support_format_zip (in);
  archive_read_support_format_7zip (in);
  archive_read_support_filter_gzip (in);
  archive_read_support_filter_bzip2 (in);
  archive_read_support_filter_xz (in);
  archive_read_support_filter_lzma (in);
  archive_read_support_filter_zstd (in);

  /* Opening reads the start of the file and picks the format from it. */
  if (archive_read_open_filename (in, archive, READ_BLOCK_BYTES) != ARCHIVE_OK)
    {
      if (archive_errno (in) == ARCHIVE_FILE_FORMAT_ERRNO)
        set_not_archive (error, display_name, in);
      else
        g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_CORRUPT,
                     _("%s cannot be opened (%s); check that it exists and is readable"),
                     display_name, archive_error_string (in));
      archive_read_free (in);
      return NULL;
    }

  return in;
}

/**
 * zot_archive_extract:
 * @archive: the archive file
 * @display_name: what messages call it (the name the user gave)
 * @dest_dir: an existing, empty directory to unpack into
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError, one line naming the entry and
 *   the rule it broke
 *
 * Unpacks @archive (a tar, compressed or not, a zip or a 7z: told from its
 * content) into @dest_dir, refusing the entries described at the top of
 * this file. Blocks: call it from a worker thread. On failure @dest_dir
 * may hold part of the archive; the caller deletes it.
 *
 * Returns: %TRUE when every entry was unpacked
 */
gboolean
zot_archive_extract (const char    *archive,
                     const char    *display_name,
                     const char    *dest_dir,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_auto(Extraction) ex = { 0 };
  struct archive *in = NULL;
  struct archive *out = NULL;
  gboolean ok = FALSE;
  char *real;

  g_return_val_if_fail (archive != NULL, FALSE);
  g_return_val_if_fail (dest_dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  ex.display_name = display_name != NULL ? display_name : archive;

  /* libarchive's link check walks every directory of the path it writes,
   * the destination's own included: give it one without links. */
  real = realpath (dest_dir, NULL);
  if (real == NULL)
    {
      g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_WRITE,
                   _("%s cannot be unpacked into %s (%s)"),
                   ex.display_name, dest_dir, g_strerror (errno));
      return FALSE;
    }
  ex.dest = g_strdup (real);
  free (real);
  ex.symlinks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ex.files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  in = open_reader (archive, ex.display_name, error);
  if (in == NULL)
    return FALSE;

  out = archive_write_disk_new ();
  /* No ARCHIVE_EXTRACT_PERM: modes are masked by the umask and lose
   * setuid and setgid; no OWNER: everything belongs to the user. */
  archive_write_disk_set_options (out,
                                  ARCHIVE_EXTRACT_TIME |
                                  ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                  ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                  ARCHIVE_EXTRACT_SPARSE);

  for (;;)
    {
      struct archive_entry *entry;
      int status;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;

      status = archive_read_next_header (in, &entry);
      if (status == ARCHIVE_EOF)
        break;
      if (status < ARCHIVE_WARN)
        {
          if (ex.n_entries == 0 && archive_errno (in) == ARCHIVE_FILE_FORMAT_ERRNO)
            set_not_archive (error, ex.display_name, in);
          else
            g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_CORRUPT,
                         _("%s cannot be read after %u entries (%s); is the archive whole?"),
                         ex.display_name, ex.n_entries, archive_error_string (in));
          goto out;
        }

      if (++ex.n_entries > ZOT_ARCHIVE_MAX_ENTRIES)
        {
          g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_TOO_MANY_ENTRIES,
                       _("%s: has more than %u entries; an extension archive holds fewer"),
                       ex.display_name, (guint) ZOT_ARCHIVE_MAX_ENTRIES);
          goto out;
        }

      if (!extract_entry (&ex, in, out, entry, cancellable, error))
        goto out;
    }

  if (archive_write_close (out) < ARCHIVE_WARN)
    {
      g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_WRITE,
                   _("%s: cannot finish unpacking (%s); check the disk's room and permissions"),
                   ex.display_name, archive_error_string (out));
      goto out;
    }

  ok = check_links (&ex, error);

out:
  archive_write_free (out);
  archive_read_free (in);
  return ok;
}

/**
 * zot_archive_find_extension_dir:
 * @dir: a directory an archive was unpacked into
 * @display_name: what messages call the archive
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the folder in @dir that holds extension.json:
 *   @dir itself, or its only folder (macOS's __MACOSX aside); %NULL with
 *   %ZOT_ARCHIVE_ERROR_NO_EXTENSION when there is none
 */
char *
zot_archive_find_extension_dir (const char  *dir,
                                const char  *display_name,
                                GError     **error)
{
  g_autofree char *manifest = g_build_filename (dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *only = NULL;
  g_autoptr(GDir) listing = NULL;
  const char *name;
  guint n_entries = 0;

  g_return_val_if_fail (dir != NULL, NULL);

  if (g_file_test (manifest, G_FILE_TEST_EXISTS))
    return g_strdup (dir);

  listing = g_dir_open (dir, 0, error);
  if (listing == NULL)
    return NULL;

  while ((name = g_dir_read_name (listing)) != NULL)
    {
      if (g_str_equal (name, MACOS_METADATA_DIR))
        continue;
      n_entries++;
      g_free (only);
      only = g_build_filename (dir, name, NULL);
    }

  if (n_entries == 1 && g_file_test (only, G_FILE_TEST_IS_DIR) &&
      !g_file_test (only, G_FILE_TEST_IS_SYMLINK))
    return g_steal_pointer (&only);

  g_set_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_NO_EXTENSION,
               _("%s holds no extension: %s must be at its top or in its only folder"),
               display_name != NULL ? display_name : dir, ZOT_MANIFEST_FILENAME);
  return NULL;
}
