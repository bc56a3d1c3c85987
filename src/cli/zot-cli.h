#pragma once

#include <glib.h>

G_BEGIN_DECLS

int      zot_cli_main         (int    argc,
                               char **argv);
gboolean zot_cli_wants_window (int    argc,
                               char **argv);

G_END_DECLS
