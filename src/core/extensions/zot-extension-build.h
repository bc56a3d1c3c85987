/* zot-extension-build.h — running a manifest's `build` command. */
#pragma once

#include <gio/gio.h>

#include "zot-limits.h"

G_BEGIN_DECLS

void     zot_extension_build_async  (const char          *directory,
                                     const char * const  *argv,
                                     const char          *name,
                                     const char          *log_path,
                                     ZotTimeout           timeout,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
void     zot_extension_build_full_async (const char          *directory,
                                         const char * const  *argv,
                                         GSubprocessLauncher *launcher,
                                         const char * const  *shown,
                                         const char          *name,
                                         const char          *log_path,
                                         ZotTimeout           timeout,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
gboolean zot_extension_build_finish (GAsyncResult        *result,
                                     GError             **error);

G_END_DECLS
