/* zot-extension-row-secrets.h — a field per declared secret in an
 * extension's row (zot-extension-row-secrets.c). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef void (*ZotSecretRowAddFunc)   (gpointer    owner,
                                       GtkWidget  *row);
typedef void (*ZotSecretRowToastFunc) (gpointer    owner,
                                       const char *text);

/* Adds, through @add, a password row for each of @keys; its messages go
 * to @toast while @owner (a GObject) lives. */
void zot_extension_secret_rows_add (gpointer               owner,
                                    const char            *extension,
                                    const char * const    *keys,
                                    ZotSecretRowAddFunc    add,
                                    ZotSecretRowToastFunc  toast);

G_END_DECLS
