#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each takes argv starting at the subcommand ("ext", "update") and returns
 * the process exit status: 0 ok, 1 failed, 2 usage error. */
int zot_cli_ext_main    (int    argc,
                         char **argv);
int zot_cli_update_main (int    argc,
                         char **argv);

G_END_DECLS
