/* zot-archive.h — unpack an extension archive, refusing what could
 * reach outside the directory it goes into. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define ZOT_ARCHIVE_ERROR (zot_archive_error_quark ())

/**
 * ZotArchiveError:
 * @ZOT_ARCHIVE_ERROR_NOT_ARCHIVE: the content is no archive format zot reads
 * @ZOT_ARCHIVE_ERROR_CORRUPT: the archive cannot be read to its end
 * @ZOT_ARCHIVE_ERROR_UNSAFE_PATH: an entry's name is absolute or climbs with `..`
 * @ZOT_ARCHIVE_ERROR_UNSAFE_LINK: a link points outside, or through another link
 * @ZOT_ARCHIVE_ERROR_SPECIAL_FILE: a device, fifo, socket or unknown kind of entry
 * @ZOT_ARCHIVE_ERROR_TOO_MANY_ENTRIES: more than %ZOT_ARCHIVE_MAX_ENTRIES entries
 * @ZOT_ARCHIVE_ERROR_TOO_LARGE: an entry or the whole passed its expanded size cap
 * @ZOT_ARCHIVE_ERROR_WRITE: the disk refused a file
 * @ZOT_ARCHIVE_ERROR_NO_EXTENSION: no extension.json at the top or in the only folder
 */
typedef enum
{
  ZOT_ARCHIVE_ERROR_NOT_ARCHIVE,
  ZOT_ARCHIVE_ERROR_CORRUPT,
  ZOT_ARCHIVE_ERROR_UNSAFE_PATH,
  ZOT_ARCHIVE_ERROR_UNSAFE_LINK,
  ZOT_ARCHIVE_ERROR_SPECIAL_FILE,
  ZOT_ARCHIVE_ERROR_TOO_MANY_ENTRIES,
  ZOT_ARCHIVE_ERROR_TOO_LARGE,
  ZOT_ARCHIVE_ERROR_WRITE,
  ZOT_ARCHIVE_ERROR_NO_EXTENSION,
} ZotArchiveError;

GQuark    zot_archive_error_quark         (void);

gboolean  zot_archive_extract             (const char    *archive,
                                           const char    *display_name,
                                           const char    *dest_dir,
                                           GCancellable  *cancellable,
                                           GError       **error);

char     *zot_archive_find_extension_dir  (const char    *dir,
                                           const char    *display_name,
                                           GError       **error);

G_END_DECLS
