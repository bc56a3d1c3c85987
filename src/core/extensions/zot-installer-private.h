/* zot-installer-private.h — what the installer's own files share.
 *
 * The installer is written in several files, one job each: installing
 * (zot-installer.c), fetching a source into a staging directory
 * (zot-installer-fetch.c), running git (zot-installer-git.c) and removing
 * (zot-installer-remove.c). This header holds the install's state and the
 * few functions one of them offers another.
 */
#pragma once

#include <gio/gio.h>

#include "zot-manifest.h"

G_BEGIN_DECLS

/* Both start with a dot, so discovery and update never see them. */
#define STAGING_TEMPLATE  ".install-XXXXXX"
#define REMOVING_TEMPLATE ".remove-XXXXXX"

typedef struct
{
  char     *source;         /* as the caller gave it, for messages */
  char     *source_dir;     /* absolute, for a directory source */
  char     *target_parent;  /* absolute */
  char     *staging;        /* ours to delete while set */
  gboolean  force;
  gboolean  build;          /* run the manifest's build in the staged copy */
  gboolean (*consent) (ZotManifest *, gpointer, GError **);  /* nullable */
  gpointer  consent_data;
  GError   *clone_error;
} InstallData;

/* zot-installer-fetch.c */
gboolean  _zot_installer_prepare_target       (InstallData          *data,
                                               GError              **error);
gboolean  _zot_installer_prepare_staging      (InstallData          *data,
                                               GError              **error);
gboolean  _zot_installer_copy_directory       (InstallData          *data,
                                               GCancellable         *cancellable,
                                               GError              **error);

/* zot-installer-git.c */
void      _zot_installer_git_run_async        (const char * const   *argv,
                                               GCancellable         *cancellable,
                                               GAsyncReadyCallback   callback,
                                               gpointer              user_data);
char     *_zot_installer_git_run_finish       (GAsyncResult         *result,
                                               GError              **error);

/* zot-installer-build.c */
gboolean  _zot_installer_build                (InstallData          *data,
                                               ZotManifest          *staged,
                                               GCancellable         *cancellable,
                                               GError              **error);

/* zot-installer-remove.c */
void      _zot_installer_set_error_from_errno (GError              **error,
                                               int                   saved_errno,
                                               const char           *format,
                                               const char           *path);
void      _zot_installer_remove_tree_quietly  (const char           *path);

G_END_DECLS
