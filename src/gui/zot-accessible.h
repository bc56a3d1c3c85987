/* zot-accessible.h — accessible names where GTK 4.8 cannot give them. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void zot_accessible_label_drop_down (GtkDropDown *drop_down,
                                     const char  *label);

G_END_DECLS
