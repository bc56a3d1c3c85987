#pragma once

#include "zot-limits.h"

G_BEGIN_DECLS

/* Test-only: shorten (or restore, with 0) one deadline for this process.
 * Child processes such as the `zot` binary under test read the same
 * overrides from ZOT_TEST_TIMEOUTS="hello=200,command=300". */
void _zot_timeout_override_for_testing (ZotTimeout timeout,
                                        guint      ms);

G_END_DECLS
