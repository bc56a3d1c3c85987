/* zot-extension-tool.h — a tool an extension registered.
 *
 * Calling it sends `tool_call` to the extension and waits for its
 * `tool_result`: 60 s for normal tools, no host deadline for interactive
 * tools in an interactive host. Abandoned calls get a best-effort
 * `tool_cancel` when the extension advertised exactly that capability.
 */
#pragma once

#include "zot-extension.h"
#include "zot-tool.h"

G_BEGIN_DECLS

#define ZOT_TYPE_EXTENSION_TOOL (zot_extension_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtensionTool, zot_extension_tool, ZOT, EXTENSION_TOOL, ZotTool)

ZotTool      *zot_extension_tool_new_from_frame (ZotExtension      *extension,
                                                 JsonObject        *frame,
                                                 GError           **error);
ZotExtension *zot_extension_tool_dup_extension  (ZotExtensionTool  *self);
const char   *zot_tool_exposure_to_string       (ZotToolExposure    exposure);

G_END_DECLS
