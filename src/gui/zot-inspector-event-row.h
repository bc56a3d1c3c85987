/* zot-inspector-event-row.h — one lifecycle event in the inspector. */
#pragma once

#include <gtk/gtk.h>

#include "zot-inspector-private.h"

G_BEGIN_DECLS

#define ZOT_TYPE_INSPECTOR_EVENT_ROW (zot_inspector_event_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotInspectorEventRow, zot_inspector_event_row, ZOT, INSPECTOR_EVENT_ROW, GtkWidget)

GtkWidget         *zot_inspector_event_row_new       (void);
ZotInspectorEntry *zot_inspector_event_row_get_entry (ZotInspectorEventRow *self);
void               zot_inspector_event_row_set_entry (ZotInspectorEventRow *self,
                                                      ZotInspectorEntry    *entry);

G_END_DECLS
