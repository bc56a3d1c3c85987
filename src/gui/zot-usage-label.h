/* zot-usage-label.h — the conversation's context and cost, for the header bar. */
#pragma once

#include <gtk/gtk.h>

#include "zot-agent.h"
#include "zot-context-gauge.h"

G_BEGIN_DECLS

#define ZOT_TYPE_USAGE_LABEL (zot_usage_label_get_type ())
G_DECLARE_FINAL_TYPE (ZotUsageLabel, zot_usage_label, ZOT, USAGE_LABEL, GtkWidget)

GtkWidget  *zot_usage_label_new          (void);
void        zot_usage_label_set_agent    (ZotUsageLabel *self,
                                          ZotAgent      *agent);
const char *zot_usage_label_get_text     (ZotUsageLabel *self);
char       *zot_usage_format_count       (gint64         count);
char       *zot_usage_format_cost        (double         usd);
GtkMenuButton *zot_usage_label_get_button (ZotUsageLabel *self);
char       *zot_usage_label_get_breakdown (ZotUsageLabel *self);
void        zot_usage_label_refresh      (ZotUsageLabel *self);
ZotContextGauge *zot_usage_label_get_gauge (ZotUsageLabel *self);

G_END_DECLS
