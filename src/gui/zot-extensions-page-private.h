/* zot-extensions-page-private.h — for the tests: the widgets of one row,
 * and the remove confirmation's response handler. */
#pragma once

#include "zot-extensions-page.h"

G_BEGIN_DECLS

GtkWidget        *_zot_extensions_page_get_row           (ZotExtensionsPage *self,
                                                          ZotExtension      *extension);
ZotExtension     *_zot_extensions_page_row_get_extension (GtkWidget         *row);
const char       *_zot_extensions_page_row_get_state     (GtkWidget         *row);
GtkWidget        *_zot_extensions_page_row_get_widget    (GtkWidget         *row,
                                                          const char        *name);
char             *_zot_extensions_page_row_get_details   (GtkWidget         *row);
GtkWidget        *_zot_extensions_page_get_reload_button (ZotExtensionsPage *self);
AdwMessageDialog *_zot_extensions_page_get_remove_dialog (ZotExtensionsPage *self);
void              _zot_extensions_page_remove_response   (ZotExtensionsPage *self,
                                                          ZotExtension      *extension,
                                                          const char        *response);

G_END_DECLS
