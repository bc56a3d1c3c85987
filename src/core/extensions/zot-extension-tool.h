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
gboolean      zot_extension_tool_check_frame    (JsonObject        *frame,
                                                 GError           **error);
const char   *zot_tool_exposure_to_string       (ZotToolExposure    exposure);
gboolean      zot_extension_tool_get_read_only  (ZotExtensionTool  *self);
gboolean      zot_extension_tool_get_destructive (ZotExtensionTool *self);

/**
 * ZotReconcileOutcome:
 * @ZOT_RECONCILE_NOT_STARTED: the extension says the call never started
 * @ZOT_RECONCILE_COMPLETED: it finished; its result comes with the answer
 * @ZOT_RECONCILE_UNKNOWN: anything else: no answer, a malformed one,
 *   "unknown"
 *
 * What an extension answers about an interrupted call of a tool that
 * declared `replay: "reconcile"` (zot-extension-reconcile.c).
 */
typedef enum
{
  ZOT_RECONCILE_NOT_STARTED,
  ZOT_RECONCILE_COMPLETED,
  ZOT_RECONCILE_UNKNOWN,
} ZotReconcileOutcome;

void                zot_extension_tool_reconcile_async  (ZotExtensionTool     *self,
                                                         JsonObject           *args,
                                                         const char           *operation_key,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
ZotReconcileOutcome zot_extension_tool_reconcile_finish (ZotExtensionTool     *self,
                                                         GAsyncResult         *result,
                                                         ZotToolResult       **out_result);

G_END_DECLS
