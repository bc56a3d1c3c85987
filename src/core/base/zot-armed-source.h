/* zot-armed-source.h — a main loop source armed by a time stored in it.
 *
 * g_source_set_ready_time() writes to the context's wakeup descriptor on
 * every change, so a source armed and disarmed once per frame or per
 * request costs a system call and an extra poll round each time. This one
 * keeps its due time in the source and answers from prepare(), which the
 * owning thread's next iteration calls anyway. It must be armed from the
 * thread that iterates its context.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define ZOT_ARMED_SOURCE_NOW      0
#define ZOT_ARMED_SOURCE_DISARMED (-1)

GSource *zot_armed_source_new     (GSourceFunc  callback,
                                   gpointer     user_data,
                                   int          priority,
                                   const char  *name);
void     zot_armed_source_set_due (GSource     *source,
                                   gint64       due);
gint64   zot_armed_source_get_due (GSource     *source);

G_END_DECLS
