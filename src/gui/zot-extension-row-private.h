/* zot-extension-row-private.h — for the tests: what the row's details say.
 * Its widgets are template children (gtk_widget_get_template_child()). */
#pragma once

#include "zot-extension-row.h"

G_BEGIN_DECLS

char *_zot_extension_row_dup_details (ZotExtensionRow *self);

G_END_DECLS
