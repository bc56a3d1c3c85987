/* zot-extension-row.h — one extension on the extensions page: its state,
 * its details, the tail of its log, and what can be done to it. */
#pragma once

#include <adwaita.h>

#include "zot-extension.h"

G_BEGIN_DECLS

#define ZOT_TYPE_EXTENSION_ROW (zot_extension_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtensionRow, zot_extension_row, ZOT, EXTENSION_ROW, AdwExpanderRow)

GtkWidget    *zot_extension_row_new             (ZotExtension    *extension);
ZotExtension *zot_extension_row_get_extension   (ZotExtensionRow *self);
void          zot_extension_row_rebuild_details (ZotExtensionRow *self);
void          zot_extension_row_set_gave_up_note (ZotExtensionRow *self,
                                                  const char      *note);

G_END_DECLS
