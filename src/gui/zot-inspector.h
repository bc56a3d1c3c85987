/* zot-inspector.h — what the extensions and the host say to each other:
 * the lifecycle events as emitted, and the raw frames of each extension,
 * timestamped and filterable. Tracing costs only while it shows: it is on
 * while the inspector is mapped. */
#pragma once

#include <gtk/gtk.h>

#include "zot-extension-manager.h"

G_BEGIN_DECLS

#define ZOT_TYPE_INSPECTOR (zot_inspector_get_type ())
G_DECLARE_FINAL_TYPE (ZotInspector, zot_inspector, ZOT, INSPECTOR, GtkWidget)

GtkWidget           *zot_inspector_new         (void);
void                 zot_inspector_set_manager (ZotInspector        *self,
                                                ZotExtensionManager *manager);
ZotExtensionManager *zot_inspector_get_manager (ZotInspector        *self);
void                 zot_inspector_clear       (ZotInspector        *self);

G_END_DECLS
