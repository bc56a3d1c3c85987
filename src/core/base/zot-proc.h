/* zot-proc.h — what /proc says about a process: its CPU time and its
 * memory. Shared by the extension meter and the codemode box. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean zot_proc_read_cpu_time   (GPid         pid,
                                   guint64     *cpu_us);
gboolean zot_proc_read_status_kib (GPid         pid,
                                   const char  *field,
                                   guint64     *kib);
gsize    zot_proc_read_statm_resident (const char *path);

G_END_DECLS
