/* zot-mcp-edit.h — adding a server to an mcp.json, as `zot mcp add`
 * and the bridge's /mcp panel do (docs/mcp.md). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char         *name;
  const char * const *command;  /* stdio: the program and its arguments */
  const char         *url;      /* or http */
  const char * const *headers;  /* http: "Name: value" */
  const char * const *env;      /* stdio: NAME=VALUE */
} ZotMcpNewServer;

gboolean   zot_mcp_server_name_valid (const char            *name);
JsonNode  *zot_mcp_config_load_root  (const char            *path,
                                      GError               **error);
gboolean   zot_mcp_config_save_root  (const char            *path,
                                      JsonNode              *root,
                                      GError               **error);
JsonObject *zot_mcp_config_section_with (JsonObject         *root,
                                         const char         *name);
gboolean   zot_mcp_config_add        (const char            *path,
                                      const ZotMcpNewServer *server,
                                      GError               **error);

G_END_DECLS
