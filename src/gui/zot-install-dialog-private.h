/* zot-install-dialog-private.h — the install flow with its answers given,
 * for the tests. */
#pragma once

#include "zot-install-dialog.h"

G_BEGIN_DECLS

void        _zot_install_dialog_run               (GtkWindow            *parent,
                                                   GFile                *source,
                                                   ZotHost              *host,
                                                   const char           *scope,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
void        _zot_install_dialog_run_url           (GtkWindow            *parent,
                                                   const char           *url,
                                                   ZotHost              *host,
                                                   const char           *scope,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean    _zot_install_dialog_run_finish        (GAsyncResult         *result,
                                                   char                **installed_name,
                                                   GError              **error);
const char *_zot_install_dialog_get_last_temp_dir (void);

G_END_DECLS
