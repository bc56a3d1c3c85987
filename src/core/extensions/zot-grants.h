/* zot-grants.h — the rights the user accepted for each extension.
 *
 * Grants live in $ZOT_HOME/grants/<name>.json, outside the extension's own
 * folder, so an extension cannot raise its own rights by rewriting a file
 * it may write. A grant records the permissions accepted at install (or
 * that running it unconfined was accepted) and, for extensions found in a
 * project's .zot/extensions/, each project folder it is trusted in.
 */
#pragma once

#include <glib.h>

#include "zot-discovery.h"
#include "zot-permissions.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean        unconfined;   /* running it without a box was accepted */
  ZotPermissions *permissions;  /* NULL when unconfined */
  GStrv           projects;     /* never NULL; folders it is trusted in */
} ZotGrant;

ZotGrant       *zot_grant_new             (const ZotPermissions  *declared);
void            zot_grant_free            (ZotGrant              *self);
ZotGrant       *zot_grant_load            (const char            *extension);
gboolean        zot_grant_save            (const char            *extension,
                                           const ZotGrant        *self,
                                           GError               **error);
gboolean        zot_grant_covers          (const ZotGrant        *self,
                                           const ZotPermissions  *declared);
gboolean        zot_grant_trusts_project  (const ZotGrant        *self,
                                           const char            *project);
void            zot_grant_add_project     (ZotGrant              *self,
                                           const char            *project);
gboolean        zot_permissions_change    (ZotPermissions        *granted,
                                           const char            *what,
                                           gboolean               allow,
                                           GError               **error);
gboolean        zot_grants_change         (const char            *extension,
                                           const char * const    *whats,
                                           gboolean               allow,
                                           GError               **error);
GStrv           zot_grant_describe_wider  (const ZotGrant        *self,
                                           const ZotPermissions  *declared);
ZotPermissions *zot_permissions_copy      (const ZotPermissions  *self);
ZotPermissions *zot_permissions_intersect (const ZotPermissions  *declared,
                                           const ZotPermissions  *granted);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotGrant, zot_grant_free)

G_END_DECLS

G_BEGIN_DECLS

/* Project extensions (found in a project's .zot/extensions/) */
char           *zot_grants_project_of     (const char            *directory);
gboolean        zot_grants_may_start      (const char            *directory,
                                           ZotExtensionScope      scope,
                                           ZotManifest           *manifest);
gboolean        zot_grants_accept         (ZotManifest           *manifest,
                                           const char            *project,
                                           GError               **error);
gboolean        zot_grants_trust_project  (const char            *directory,
                                           ZotManifest           *manifest,
                                           GError               **error);
ZotPermissions *zot_grants_applied        (ZotManifest           *manifest);
GError         *zot_grants_approval_error (const char            *directory,
                                           ZotManifest           *manifest);

G_END_DECLS
