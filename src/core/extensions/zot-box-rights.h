/* zot-box-rights.h — a box (zot-box.h) with the rights of a "permissions"
 * object (zot-permissions.h): for extensions and for MCP servers. */
#pragma once

#include "zot-box.h"
#include "zot-permissions.h"

G_BEGIN_DECLS

ZotBox *zot_box_new_for_rights (const ZotPermissions *permissions,
                                const char           *project,
                                const char           *program,
                                const char           *own_dir);

G_END_DECLS
