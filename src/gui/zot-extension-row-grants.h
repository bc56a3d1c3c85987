/* zot-extension-row-grants.h — a switch per granted right in a confined
 * extension's row (zot-extension-row-grants.c). */
#pragma once

#include <gtk/gtk.h>

#include "zot-extension.h"
#include "zot-extension-row-secrets.h"

G_BEGIN_DECLS

typedef void (*ZotGrantRowChangedFunc) (gpointer owner);

/* Adds, through @add, a switch per right @extension was granted (the
 * files as a drop-down); a change is written to the grant and then
 * @changed is called while @owner (a GObject) lives, to restart it. */
void zot_extension_grant_rows_add (gpointer                owner,
                                   ZotExtension           *extension,
                                   ZotSecretRowAddFunc     add,
                                   ZotSecretRowToastFunc   toast,
                                   ZotGrantRowChangedFunc  changed);

G_END_DECLS
