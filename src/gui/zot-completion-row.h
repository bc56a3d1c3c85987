/* zot-completion-row.h — one slash command in the prompt's completion list. */
#pragma once

#include <gtk/gtk.h>

#include "zot-extension-manager.h"

G_BEGIN_DECLS

#define ZOT_TYPE_COMPLETION_ROW (zot_completion_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotCompletionRow, zot_completion_row, ZOT, COMPLETION_ROW, GtkListBoxRow)

GtkWidget  *zot_completion_row_new      (const ZotCommandInfo *info);
const char *zot_completion_row_get_name (ZotCompletionRow     *self);

G_END_DECLS
