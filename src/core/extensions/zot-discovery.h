#pragma once

#include "zot-manifest.h"

G_BEGIN_DECLS

typedef enum
{
  ZOT_EXTENSION_SCOPE_EXPLICIT,
  ZOT_EXTENSION_SCOPE_PROJECT,
  ZOT_EXTENSION_SCOPE_USER,
  ZOT_EXTENSION_SCOPE_BUILTIN,
} ZotExtensionScope;

/**
 * ZotDiscovered:
 * @directory: the extension directory, absolute
 * @scope: where it was found
 * @manifest: (nullable): the parsed manifest, or %NULL when @error is set
 * @error: (nullable): why the manifest could not be used
 *
 * One entry of the load order. Entries whose manifest failed stay in the
 * list so that they can be shown; they take part in no name conflict.
 */
typedef struct
{
  char              *directory;
  ZotExtensionScope  scope;
  ZotManifest       *manifest;
  GError            *error;
} ZotDiscovered;

void       zot_discovered_free       (ZotDiscovered      *discovered);
ZotDiscovered *zot_discovered_copy   (const ZotDiscovered *discovered);
const char *zot_extension_scope_to_string (ZotExtensionScope scope);

GPtrArray *zot_discover_extensions   (const char         *cwd,
                                      const char * const *explicit_paths,
                                      gboolean            no_ext);
char      *zot_discover_builtin_dir  (void);
GPtrArray *zot_discover_in_directory (const char         *parent,
                                      ZotExtensionScope   scope);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotDiscovered, zot_discovered_free)

G_END_DECLS
