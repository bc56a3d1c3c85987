/* zot-mcp-config.h — MCP server configurations (docs/mcp.md): the
 * `mcpServers` format of Claude Desktop and Cursor and the `servers`
 * format of VS Code, from $ZOT_HOME/mcp.json and a project's
 * .zot/mcp.json. Read by the bridge (extensions/mcp) and by `zot mcp`. */
#pragma once

#include <json-glib/json-glib.h>

#include "zot-permissions.h"

G_BEGIN_DECLS

#define ZOT_MCP_CONFIG_FILENAME "mcp.json"
/* The bridge's name: its built-in folder, its grants and its log. */
#define ZOT_MCP_EXTENSION_NAME  "mcp"

typedef enum
{
  ZOT_MCP_TRANSPORT_STDIO,
  ZOT_MCP_TRANSPORT_HTTP,
} ZotMcpTransport;

typedef struct
{
  char            *name;
  ZotMcpTransport  transport;
  char            *command;  /* stdio */
  GStrv            args;     /* stdio */
  GStrv            env;      /* stdio: NAME=VALUE */
  char            *url;      /* http */
  GStrv            headers;  /* http: "Name: value" */
  char            *origin;   /* the file it came from */
  ZotPermissions  *permissions;  /* stdio: its box; NULL runs it unconfined */
} ZotMcpServer;

void          zot_mcp_server_free        (ZotMcpServer *server);
const char   *zot_mcp_transport_to_string (ZotMcpTransport transport);

char         *zot_mcp_config_user_path   (void);
char         *zot_mcp_config_project_path (const char *cwd);

JsonNode     *zot_mcp_config_parse       (const char   *path,
                                          GError      **error);
GPtrArray    *zot_mcp_config_read        (const char   *path,
                                          GPtrArray    *notes);
gboolean      zot_mcp_project_trusted    (const char   *cwd);
gboolean      zot_mcp_trust_project      (const char   *cwd,
                                          GError      **error);
GPtrArray    *zot_mcp_config_load        (const char   *cwd,
                                          GPtrArray    *notes);

char         *zot_mcp_tool_name          (const char   *server,
                                          const char   *tool);
char         *zot_mcp_namespace          (const char   *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotMcpServer, zot_mcp_server_free)

G_END_DECLS
