/* zot-project-row.h — one recent project in the start view. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ZOT_TYPE_PROJECT_ROW (zot_project_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotProjectRow, zot_project_row, ZOT, PROJECT_ROW, AdwActionRow)

GtkWidget  *zot_project_row_new        (const char    *folder);
const char *zot_project_row_get_folder (ZotProjectRow *self);

G_END_DECLS
