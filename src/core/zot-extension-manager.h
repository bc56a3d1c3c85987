#pragma once

#include <gio/gio.h>

#include "zot-extension.h"

G_BEGIN_DECLS

/**
 * ZotCommandInfo:
 * @name: the canonical spelling, without the slash
 * @description: (nullable): what it does
 * @extension: (nullable): the extension that answers it, %NULL for a built-in
 */
typedef struct
{
  char         *name;
  char         *description;
  ZotExtension *extension;
} ZotCommandInfo;

void zot_command_info_free (ZotCommandInfo *info);

#define ZOT_TYPE_EXTENSION_MANAGER (zot_extension_manager_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtensionManager, zot_extension_manager, ZOT, EXTENSION_MANAGER, GObject)

ZotExtensionManager *zot_extension_manager_new                  (void);
void                 zot_extension_manager_set_cwd              (ZotExtensionManager  *self,
                                                                 const char           *cwd);
const char          *zot_extension_manager_get_cwd              (ZotExtensionManager  *self);
void                 zot_extension_manager_set_explicit_paths   (ZotExtensionManager  *self,
                                                                 const char * const   *paths);
void                 zot_extension_manager_set_no_ext           (ZotExtensionManager  *self,
                                                                 gboolean              no_ext);
void                 zot_extension_manager_set_model            (ZotExtensionManager  *self,
                                                                 const char           *provider,
                                                                 const char           *model);
void                 zot_extension_manager_set_interactive      (ZotExtensionManager  *self,
                                                                 gboolean              interactive);
gboolean             zot_extension_manager_get_interactive      (ZotExtensionManager  *self);

void                 zot_extension_manager_load_async           (ZotExtensionManager  *self,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_load_finish          (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_reload_async         (ZotExtensionManager  *self,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_reload_finish        (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_restart_async        (ZotExtensionManager  *self,
                                                                 ZotExtension         *extension,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_restart_finish       (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_shutdown_async       (ZotExtensionManager  *self,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_shutdown_finish      (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);

ZotExtension        *zot_extension_manager_find                 (ZotExtensionManager  *self,
                                                                 const char           *name);
GPtrArray           *zot_extension_manager_list_commands        (ZotExtensionManager  *self);
ZotExtension        *zot_extension_manager_lookup_command       (ZotExtensionManager  *self,
                                                                 const char           *name,
                                                                 const char          **canonical);
gboolean             zot_extension_manager_is_builtin_command   (const char           *name);
void                 zot_extension_manager_run_command_async    (ZotExtensionManager  *self,
                                                                 const char           *name,
                                                                 const char           *args,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_run_command_finish   (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_set_trace_traffic    (ZotExtensionManager  *self,
                                                                 gboolean              trace);

G_END_DECLS
