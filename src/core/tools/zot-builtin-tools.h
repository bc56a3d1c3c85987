/* zot-builtin-tools.h — the tools every agent has: read, write, edit, bash, skill, glob.
 *
 * Each is a final ZotTool subclass. Like every ZotTool, they complete with a
 * ZotToolResult, failures included; only a cancellation completes with
 * G_IO_ERROR_CANCELLED. File work runs on a GTask worker thread; bash runs
 * `bash -c` in its own process group and never blocks the main loop.
 */
#pragma once

#include "zot-tool.h"

G_BEGIN_DECLS

#define ZOT_TYPE_READ_TOOL (zot_read_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotReadTool, zot_read_tool, ZOT, READ_TOOL, ZotTool)

#define ZOT_TYPE_WRITE_TOOL (zot_write_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotWriteTool, zot_write_tool, ZOT, WRITE_TOOL, ZotTool)

#define ZOT_TYPE_EDIT_TOOL (zot_edit_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotEditTool, zot_edit_tool, ZOT, EDIT_TOOL, ZotTool)

#define ZOT_TYPE_BASH_TOOL (zot_bash_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotBashTool, zot_bash_tool, ZOT, BASH_TOOL, ZotTool)

#define ZOT_TYPE_GLOB_TOOL (zot_glob_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotGlobTool, zot_glob_tool, ZOT, GLOB_TOOL, ZotTool)

#define ZOT_TYPE_SKILL_TOOL (zot_skill_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotSkillTool, zot_skill_tool, ZOT, SKILL_TOOL, ZotTool)

GPtrArray *zot_builtin_tools_new (void);

G_END_DECLS
