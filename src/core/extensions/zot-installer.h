#pragma once

#include <gio/gio.h>

#include "zot-manifest.h"

G_BEGIN_DECLS

/**
 * ZotUpdateStatus:
 * @ZOT_UPDATE_STATUS_UP_TO_DATE: the checkout already had the upstream head
 * @ZOT_UPDATE_STATUS_UPDATED: the checkout was fast-forwarded
 * @ZOT_UPDATE_STATUS_NOT_GIT: the directory is not a git checkout; skipped
 * @ZOT_UPDATE_STATUS_FAILED: git failed; see the message
 * @ZOT_UPDATE_STATUS_REFUSED: the new version asks for more than was
 *   granted and that was not accepted; the checkout was reset to the
 *   previous commit, the message says why
 */
typedef enum
{
  ZOT_UPDATE_STATUS_UP_TO_DATE,
  ZOT_UPDATE_STATUS_UPDATED,
  ZOT_UPDATE_STATUS_NOT_GIT,
  ZOT_UPDATE_STATUS_FAILED,
  ZOT_UPDATE_STATUS_REFUSED,
} ZotUpdateStatus;

/**
 * ZotUpdateResult:
 * @name: the directory's name under the extensions directory
 * @directory: the extension directory, absolute
 * @status: what happened
 * @message: (nullable): for %ZOT_UPDATE_STATUS_FAILED, why (one line); for
 *   %ZOT_UPDATE_STATUS_UPDATED, the old and new commit as `OLD..NEW`;
 *   otherwise %NULL
 *
 * The outcome of updating one installed extension.
 */
typedef struct
{
  char            *name;
  char            *directory;
  ZotUpdateStatus  status;
  char            *message;
} ZotUpdateResult;

#define ZOT_TYPE_UPDATE_RESULT (zot_update_result_get_type ())

GType            zot_update_result_get_type   (void) G_GNUC_CONST;
ZotUpdateResult *zot_update_result_copy       (const ZotUpdateResult  *result);
void             zot_update_result_free       (ZotUpdateResult        *result);

/* Asked in a worker thread with the staged copy's manifest, before its
 * build runs or anything is replaced; %FALSE with @error installs nothing. */
typedef gboolean (*ZotInstallConsentFunc) (ZotManifest  *staged,
                                           gpointer      user_data,
                                           GError      **error);

gboolean         zot_installer_source_is_url  (const char             *source);
void             zot_installer_install_consent_async (const char      *source,
                                                      const char      *target_parent,
                                                      gboolean         force,
                                                      gboolean         build,
                                                      ZotInstallConsentFunc consent,
                                                      gpointer         consent_data,
                                                      GCancellable    *cancellable,
                                                      GAsyncReadyCallback callback,
                                                      gpointer         user_data);

void             zot_installer_install_async  (const char             *source,
                                               const char             *target_parent,
                                               gboolean                force,
                                               GCancellable           *cancellable,
                                               GAsyncReadyCallback     callback,
                                               gpointer                user_data);
void             zot_installer_install_build_async (const char          *source,
                                                    const char          *target_parent,
                                                    gboolean             force,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
ZotManifest     *zot_installer_install_finish (GAsyncResult           *result,
                                               GError                **error);

gboolean         zot_installer_remove         (const char             *extensions_dir,
                                               const char             *name,
                                               GError                **error);

void             zot_installer_remove_async   (const char             *extensions_dir,
                                               const char             *name,
                                               GCancellable           *cancellable,
                                               GAsyncReadyCallback     callback,
                                               gpointer                user_data);
gboolean         zot_installer_remove_finish  (GAsyncResult           *result,
                                               GError                **error);

gboolean         zot_installer_set_enabled    (const char             *extension_dir,
                                               gboolean                enabled,
                                               GError                **error);

void             zot_installer_update_async   (const char             *extensions_dir,
                                               GCancellable           *cancellable,
                                               GAsyncReadyCallback     callback,
                                               gpointer                user_data);
void             zot_installer_update_consent_async (const char            *extensions_dir,
                                                     ZotInstallConsentFunc  consent,
                                                     gpointer               consent_data,
                                                     GCancellable          *cancellable,
                                                     GAsyncReadyCallback    callback,
                                                     gpointer               user_data);
GPtrArray       *zot_installer_update_finish  (GAsyncResult           *result,
                                               GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotUpdateResult, zot_update_result_free)

G_END_DECLS
