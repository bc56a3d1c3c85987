/* zot-context-gauge.h — how full the model's context window is, for the
 * header bar. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ZOT_TYPE_CONTEXT_GAUGE (zot_context_gauge_get_type ())
G_DECLARE_FINAL_TYPE (ZotContextGauge, zot_context_gauge, ZOT, CONTEXT_GAUGE, GtkWidget)

GtkWidget  *zot_context_gauge_new          (void);
void        zot_context_gauge_set          (ZotContextGauge *self,
                                            gint64           tokens,
                                            guint64          window);
gint64      zot_context_gauge_get_tokens   (ZotContextGauge *self);
guint64     zot_context_gauge_get_window   (ZotContextGauge *self);
double      zot_context_gauge_get_fraction (ZotContextGauge *self);
gboolean    zot_context_gauge_get_warning  (ZotContextGauge *self);
const char *zot_context_gauge_get_description (ZotContextGauge *self);
const char *zot_context_gauge_get_label    (ZotContextGauge *self);

G_END_DECLS
