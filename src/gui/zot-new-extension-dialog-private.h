/* zot-new-extension-dialog-private.h — for the tests: the dialog's
 * controls, to fill in and press as a person would. */
#pragma once

#include "zot-new-extension-dialog.h"

G_BEGIN_DECLS

AdwEntryRow *_zot_new_extension_dialog_get_name_row      (ZotNewExtensionDialog *self);
AdwComboRow *_zot_new_extension_dialog_get_language_row  (ZotNewExtensionDialog *self);
GtkWidget   *_zot_new_extension_dialog_get_create_button (ZotNewExtensionDialog *self);
GtkLabel    *_zot_new_extension_dialog_get_error_label   (ZotNewExtensionDialog *self);

G_END_DECLS
