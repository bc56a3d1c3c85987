/* zot-extension-box.h — a confined extension's box (zot-extension-box.c). */
#pragma once

#include "zot-extension-private.h"

G_BEGIN_DECLS

gboolean _zot_extension_box_wrap    (ZotExtension         *self,
                                     GSubprocessLauncher  *launcher,
                                     GStrv                *argv,
                                     GStrv                *env_names,
                                     GError              **error);
gboolean _zot_extension_box_wrap_build (ZotExtension         *self,
                                        GSubprocessLauncher  *launcher,
                                        GStrv                *argv,
                                        GError              **error);
void     _zot_extension_box_started (ZotExtension         *self);
void     _zot_extension_box_exited  (ZotExtension         *self,
                                     GSubprocess          *subprocess);

/* An extension's declared secrets (zot-extension-box-secrets.c): fetched
 * before its spawn, then @then is called with @task; FALSE when it
 * declares none and @then was not scheduled. */
typedef void (*ZotExtensionSpawnFunc) (ZotExtension *self,
                                       GTask        *task);
gboolean _zot_extension_secrets_fetch (ZotExtension          *self,
                                       GTask                 *task,
                                       ZotExtensionSpawnFunc  then);
/* Adds the fetched values to @env and forgets them. */
void     _zot_extension_secrets_take  (ZotExtension          *self,
                                       GStrvBuilder          *env);

/* Tests: the poll interval of the limits' watch (0 restores it). */
void     _zot_extension_box_set_watch_interval_for_testing (guint ms);
guint    _zot_extension_box_get_watch_count_for_testing    (void);

G_END_DECLS
