/* zot-ext.h: the zot extension SDK for C and GObject Introspection
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#define ZOT_EXT_INSIDE

#include "zot-ext-types.h"
#include "zot-ext-enums.h"
#include "zot-ext-tool-result.h"
#include "zot-ext-event.h"
#include "zot-ext-invocation.h"
#include "zot-ext-command-invocation.h"
#include "zot-ext-intercept-invocation.h"
#include "zot-ext-extension.h"

#undef ZOT_EXT_INSIDE
