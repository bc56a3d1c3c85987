/* zot-ext-tool-result.h: the host's answer to a nested tool call
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (ZOT_EXT_INSIDE) && !defined (ZOT_EXT_COMPILATION)
# error "Only <zot-ext.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "zot-ext-types.h"

G_BEGIN_DECLS

#define ZOT_EXT_TYPE_TOOL_RESULT (zot_ext_tool_result_get_type ())

ZOT_EXT_PUBLIC
G_DECLARE_FINAL_TYPE (ZotExtToolResult, zot_ext_tool_result, ZOT_EXT, TOOL_RESULT, GObject)

ZOT_EXT_PUBLIC
const char *zot_ext_tool_result_get_name             (ZotExtToolResult *self);
ZOT_EXT_PUBLIC
char       *zot_ext_tool_result_get_text             (ZotExtToolResult *self);
ZOT_EXT_PUBLIC
gboolean    zot_ext_tool_result_get_is_error         (ZotExtToolResult *self);
ZOT_EXT_PUBLIC
gboolean    zot_ext_tool_result_get_truncated        (ZotExtToolResult *self);
ZOT_EXT_PUBLIC
char       *zot_ext_tool_result_get_content_json     (ZotExtToolResult *self);
ZOT_EXT_PUBLIC
char       *zot_ext_tool_result_get_structured_json  (ZotExtToolResult *self);
ZOT_EXT_PUBLIC
JsonArray  *zot_ext_tool_result_get_content          (ZotExtToolResult *self);

G_END_DECLS
