#pragma once

#include <gio/gio.h>

#include "zot-permissions.h"

G_BEGIN_DECLS

#define ZOT_MANIFEST_FILENAME "extension.json"

#define ZOT_TYPE_MANIFEST (zot_manifest_get_type ())
G_DECLARE_FINAL_TYPE (ZotManifest, zot_manifest, ZOT, MANIFEST, GObject)

ZotManifest        *zot_manifest_new_for_directory (const char   *directory,
                                                    GError      **error);
ZotManifest        *zot_manifest_new_from_data     (const char   *directory,
                                                    const char   *data,
                                                    gssize        length,
                                                    GError      **error);
const char         *zot_manifest_get_directory     (ZotManifest  *self);
const char         *zot_manifest_get_path          (ZotManifest  *self);
const char         *zot_manifest_get_name          (ZotManifest  *self);
const char         *zot_manifest_get_exec          (ZotManifest  *self);
const char * const *zot_manifest_get_args          (ZotManifest  *self);
const char         *zot_manifest_get_version       (ZotManifest  *self);
const char         *zot_manifest_get_description   (ZotManifest  *self);
const char         *zot_manifest_get_language      (ZotManifest  *self);
gboolean            zot_manifest_get_enabled       (ZotManifest  *self);
gboolean            zot_manifest_get_intercept_failure_blocks (ZotManifest *self);
gboolean            zot_manifest_get_restart_never (ZotManifest  *self);
const char * const *zot_manifest_get_env           (ZotManifest  *self);
const char * const *zot_manifest_get_build         (ZotManifest  *self);
const char * const *zot_manifest_get_watch         (ZotManifest  *self);
const char * const *zot_manifest_get_watch_ignore  (ZotManifest  *self);
char               *zot_manifest_resolve_exec      (ZotManifest  *self,
                                                    GError      **error);
const ZotPermissions *zot_manifest_get_permissions (ZotManifest *self);
gboolean            zot_manifest_name_is_valid     (const char   *name);

G_END_DECLS
