/* zot-permissions.h — what a manifest's "permissions" and "limits" allow
 * (PROTOCOL.md §12). A manifest without "permissions" is unconfined. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* In order of what each one adds to the one before. */
typedef enum
{
  ZOT_FILESYSTEM_NONE,
  ZOT_FILESYSTEM_PROJECT_RO,
  ZOT_FILESYSTEM_PROJECT,
  ZOT_FILESYSTEM_HOME_RO,
  ZOT_FILESYSTEM_HOME,
  ZOT_FILESYSTEM_HOST,
} ZotFilesystemAccess;

typedef struct
{
  ZotFilesystemAccess filesystem;
  gboolean            network;
  gboolean            devices;
  GStrv               env;         /* never NULL */
  GStrv               secrets;     /* never NULL */
  guint               memory_mb;   /* 0: no limit */
  guint               processes;   /* 0: no limit */
  guint               open_files;  /* 0: no limit */
} ZotPermissions;

gboolean        zot_permissions_read             (JsonObject            *manifest,
                                                  const char            *path,
                                                  ZotPermissions       **out,
                                                  GError               **error);
void            zot_permissions_free             (ZotPermissions        *self);
const char     *zot_filesystem_access_to_string  (ZotFilesystemAccess    access);
char           *zot_permissions_describe         (const ZotPermissions  *self);
char           *zot_permissions_describe_words   (const ZotPermissions  *self);
const char     *zot_filesystem_access_describe_words (ZotFilesystemAccess access);
GStrv           zot_permissions_describe_details (const ZotPermissions  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotPermissions, zot_permissions_free)

G_END_DECLS
