/* zot-extension-meter-view.h — an extension's meter on its row: a compact
 * line in the header and the figures in full among the details. */
#pragma once

#include <gtk/gtk.h>

#include "zot-extension.h"

G_BEGIN_DECLS

#define ZOT_TYPE_EXTENSION_METER_VIEW (zot_extension_meter_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtensionMeterView, zot_extension_meter_view, ZOT, EXTENSION_METER_VIEW, GObject)

ZotExtensionMeterView *zot_extension_meter_view_new             (ZotExtension          *extension,
                                                                 GtkWidget             *owner);
GtkWidget             *zot_extension_meter_view_get_label       (ZotExtensionMeterView *self);
GtkWidget             *zot_extension_meter_view_get_details_row (ZotExtensionMeterView *self);
void                   zot_extension_meter_view_refresh         (ZotExtensionMeterView *self);

G_END_DECLS
