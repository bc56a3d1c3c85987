/* zot-mcp-import.h — other apps' MCP servers copied into an mcp.json, and
 * a server's "permissions" edited there, as `zot mcp import` and the
 * bridge's /mcp panel do (docs/mcp.md). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Every server entry of Claude Desktop's, Cursor's, VS Code's and
 * Windsurf's files, and of @cwd's .vscode/mcp.json: name → entry, the
 * first of a name kept; @origins gets "NAME\tFILE" for each, in order. */
JsonObject *zot_mcp_import_find            (const char  *cwd,
                                            GPtrArray   *origins);
/* Adds @entry as @name to @path's mcpServers; a stdio server without its
 * own "permissions" gets the project and the network. */
gboolean    zot_mcp_config_import          (const char  *path,
                                            const char  *name,
                                            JsonNode    *entry,
                                            GError     **error);
/* Sets the "filesystem" and "network" of server @name's "permissions" in
 * @path, keeping its other rights; @filesystem %NULL removes
 * "permissions", so that it runs unconfined. */
gboolean    zot_mcp_config_set_permissions (const char  *path,
                                            const char  *name,
                                            const char  *filesystem,
                                            gboolean     network,
                                            GError     **error);

G_END_DECLS
