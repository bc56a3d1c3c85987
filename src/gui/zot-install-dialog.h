/* zot-install-dialog.h — install a dropped folder or archive, after
 * showing its manifest and asking where. */
#pragma once

#include <adwaita.h>

#include "zot-host.h"

G_BEGIN_DECLS

void       zot_install_dialog_present     (GtkWindow  *parent,
                                           GFile      *source,
                                           ZotHost    *host);
void       zot_install_dialog_present_url (GtkWindow  *parent,
                                           const char *url,
                                           ZotHost    *host);
GtkWidget *zot_install_dialog_choose      (GtkWindow  *parent,
                                           ZotHost    *host);

G_END_DECLS
