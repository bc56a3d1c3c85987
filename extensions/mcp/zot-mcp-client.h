/* zot-mcp-client.h — one MCP server over stdio: the bridge's child, in
 * its own process group, speaking newline-delimited JSON-RPC 2.0; or
 * one over Streamable HTTP (zot-mcp-http.c). */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-mcp-config.h"

G_BEGIN_DECLS

#define ZOT_TYPE_MCP_CLIENT (zot_mcp_client_get_type ())
G_DECLARE_FINAL_TYPE (ZotMcpClient, zot_mcp_client, ZOT, MCP_CLIENT, GObject)

ZotMcpClient *zot_mcp_client_new            (const ZotMcpServer  *server,
                                             const char          *cwd);
const char   *zot_mcp_client_get_name       (ZotMcpClient        *self);
gboolean      zot_mcp_client_start          (ZotMcpClient        *self,
                                             GError             **error);
void          zot_mcp_client_request        (ZotMcpClient        *self,
                                             const char          *method,
                                             JsonNode            *params,
                                             guint                timeout_ms,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
JsonObject   *zot_mcp_client_request_finish (ZotMcpClient        *self,
                                             GAsyncResult        *result,
                                             GError             **error);
void          zot_mcp_client_notify         (ZotMcpClient        *self,
                                             const char          *method,
                                             JsonNode            *params);
char         *zot_mcp_client_dup_stderr_tail (ZotMcpClient       *self);
void          zot_mcp_client_set_protocol_version (ZotMcpClient *self,
                                                   const char   *version);
const char   *zot_mcp_client_get_failure    (ZotMcpClient        *self);
gboolean      zot_mcp_client_is_idle_for   (ZotMcpClient        *self,
                                             guint                ms,
                                             guint               *remaining_ms);
void          zot_mcp_client_set_permissions (ZotMcpClient         *self,
                                               const ZotPermissions *permissions);
void          zot_mcp_client_stop           (ZotMcpClient        *self);

G_END_DECLS
