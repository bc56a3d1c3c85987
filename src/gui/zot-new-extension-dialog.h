/* zot-new-extension-dialog.h — New Extension…: a name, a language and a
 * folder, then the skeleton of zot-ext-new.c written off the main loop. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ZOT_TYPE_NEW_EXTENSION_DIALOG (zot_new_extension_dialog_get_type ())
G_DECLARE_FINAL_TYPE (ZotNewExtensionDialog, zot_new_extension_dialog, ZOT, NEW_EXTENSION_DIALOG, AdwWindow)

GtkWidget  *zot_new_extension_dialog_new        (GtkWindow             *parent,
                                                 const char            *folder);
const char *zot_new_extension_dialog_get_folder (ZotNewExtensionDialog *self);
void        zot_new_extension_dialog_set_folder (ZotNewExtensionDialog *self,
                                                 const char            *folder);

G_END_DECLS
