/* zot-inspector-frame-row.h — one frame in the inspector's traffic. */
#pragma once

#include <gtk/gtk.h>

#include "zot-inspector-private.h"

G_BEGIN_DECLS

#define ZOT_TYPE_INSPECTOR_FRAME_ROW (zot_inspector_frame_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotInspectorFrameRow, zot_inspector_frame_row, ZOT, INSPECTOR_FRAME_ROW, GtkWidget)

GtkWidget         *zot_inspector_frame_row_new       (void);
ZotInspectorEntry *zot_inspector_frame_row_get_entry (ZotInspectorFrameRow *self);
void               zot_inspector_frame_row_set_entry (ZotInspectorFrameRow *self,
                                                      ZotInspectorEntry    *entry);

G_END_DECLS
