/* zot-mcp-secrets.h — `${secret:NAME}` in an MCP server's env or headers
 * (docs/mcp.md): the bridge's own secret mcp/SERVER/NAME, in the keyring. */
#pragma once

#include "zot-mcp-config.h"

G_BEGIN_DECLS

GStrv         zot_mcp_secret_keys      (GPtrArray          *servers);
GStrv         zot_mcp_secret_keys_configured (const char   *cwd);
ZotMcpServer *zot_mcp_server_with_secrets (const ZotMcpServer *server,
                                           GHashTable         *secrets,
                                           GError            **error);

G_END_DECLS
