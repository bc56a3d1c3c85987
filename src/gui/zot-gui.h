#pragma once

#include <glib.h>

G_BEGIN_DECLS

int zot_gui_main (int    argc,
                  char **argv);

G_END_DECLS
