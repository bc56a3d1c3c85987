#pragma once

#include "zot-extension.h"

G_BEGIN_DECLS

void _zot_extension_set_command_conflict (ZotExtension *self,
                                          guint         index,
                                          const char   *conflict);

G_END_DECLS
