#pragma once

#include "zot-extension.h"

G_BEGIN_DECLS

void _zot_extension_set_command_conflict (ZotExtension *self,
                                          guint         index,
                                          const char   *conflict);

void _zot_extension_add_problem          (ZotExtension *self,
                                          const char   *problem);

G_END_DECLS
