/* zot-extensions-page.h — every extension of the host, with its state,
 * commands, tools, problems and log, and what can be done to it. */
#pragma once

#include <adwaita.h>

#include "zot-host.h"

G_BEGIN_DECLS

#define ZOT_TYPE_EXTENSIONS_PAGE (zot_extensions_page_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtensionsPage, zot_extensions_page, ZOT, EXTENSIONS_PAGE, AdwBin)

GtkWidget *zot_extensions_page_new      (void);
void       zot_extensions_page_set_host (ZotExtensionsPage *self,
                                         ZotHost           *host);

G_END_DECLS
