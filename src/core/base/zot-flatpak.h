#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean zot_flatpak_is_sandboxed               (void);

/* Tests point the sandbox marker at a file of their own. NULL restores
 * the real one. */
void     _zot_flatpak_set_info_path_for_testing (const char *path);

G_END_DECLS
