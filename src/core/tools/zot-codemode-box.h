/* zot-codemode-box.h — what the processes in a script's box use. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gsize resident;   /* bytes, all of the box's processes together */
  guint processes;  /* counted up to the limit given, and one more */
} ZotCodemodeBoxUsage;

gboolean zot_codemode_box_measure (GPid                 first,
                                   guint                max_processes,
                                   ZotCodemodeBoxUsage *usage);

G_END_DECLS
