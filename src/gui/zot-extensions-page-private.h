/* zot-extensions-page-private.h — for the tests: the row of an extension,
 * and the remove confirmation's response handler. */
#pragma once

#include "zot-extension-row.h"
#include "zot-extensions-page.h"

G_BEGIN_DECLS

ZotExtensionRow  *_zot_extensions_page_get_row           (ZotExtensionsPage *self,
                                                          ZotExtension      *extension);
GtkWidget        *_zot_extensions_page_get_reload_button (ZotExtensionsPage *self);
GtkWidget        *_zot_extensions_page_get_new_button    (ZotExtensionsPage *self);
AdwMessageDialog *_zot_extensions_page_get_remove_dialog (ZotExtensionsPage *self);
void              _zot_extensions_page_remove_response   (ZotExtensionsPage *self,
                                                          ZotExtension      *extension,
                                                          const char        *response);

G_END_DECLS
