/* zot-codemode-tool.h — codemode, the tool that runs the model's scripts
 * (PROTOCOL.md §4a).
 *
 * Its one argument, `code`, is JavaScript run as the body of an async
 * function in a fresh confined runtime (zot-codemode-runtime.h). The
 * script's tool calls are calls of the agent that runs this tool, made
 * through its ZotToolRunner as children of this call: ids
 * `<codemode call id>/<n>`, origin "codemode" flagged as a script, and
 * every check, interceptor, approval, event and observation limit of any
 * other call. What the script emits, capped, is this tool's result; its
 * store() state goes to the conversation's session when it succeeds.
 *
 * The tool is model-only (scripts cannot call it) and runs alone, never
 * beside another call of the same step. When a script ends it starts a
 * spare runtime for the next one (never reused): not while the script
 * runs, when gjs starting would compete with it for the CPU.
 */
#pragma once

#include "zot-tool.h"

G_BEGIN_DECLS

#define ZOT_CODEMODE_TOOL_NAME "codemode"

#define ZOT_TYPE_CODEMODE_TOOL (zot_codemode_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotCodemodeTool, zot_codemode_tool, ZOT, CODEMODE_TOOL, ZotTool)

ZotTool  *zot_codemode_tool_new           (void);
void      zot_codemode_tool_set_spare     (ZotCodemodeTool *self,
                                           gboolean         spare);
gboolean  zot_codemode_tool_has_spare     (ZotCodemodeTool *self);
void      zot_codemode_tool_prestart      (ZotCodemodeTool *self);

typedef enum
{
  ZOT_CODEMODE_SPARE_NONE,
  ZOT_CODEMODE_SPARE_SOON,      /* to start once the main loop is idle */
  ZOT_CODEMODE_SPARE_STARTING,
  ZOT_CODEMODE_SPARE_READY,
} ZotCodemodeSpareState;

ZotCodemodeSpareState _zot_codemode_tool_get_spare_state_for_testing (ZotCodemodeTool *self);

G_END_DECLS
