/* zot-mcp-bridge.h — the bridge's servers and what it registered for
 * them, shared by its tools (zot-mcp-bridge.c) and its resources and
 * prompts (zot-mcp-extras.c). */
#pragma once

#include <zot-ext.h>

#include "zot-mcp-client.h"

G_BEGIN_DECLS

typedef struct _Bridge Bridge;

typedef struct
{
  Bridge       *bridge;
  ZotMcpClient *client;
  char         *name;
  char         *namespace_;
  char         *instructions;
  guint         tools;
  gboolean      noted;
  char         *failure;       /* the note it got, once it failed */
  gboolean      ready;         /* it answered initialize */
  ZotMcpTransport transport;
  gboolean      resources;     /* it offers resources */
} Server;

typedef struct
{
  Server *server;
  char   *mcp_name;
} Tool;

struct _Bridge
{
  ZotExtExtension *ext;
  GPtrArray       *servers;  /* Server */
  GHashTable      *tools;    /* zot name → Tool */
  GHashTable      *prompts;  /* command name → Prompt */
  gboolean         resource_tools;
};

/* The server answered `initialize` with @capabilities. */
void      _zot_mcp_extras_server_ready (Server     *server,
                                        JsonObject *capabilities);
void      _zot_mcp_prompt_free         (gpointer    prompt);
void      _zot_mcp_add_status_command  (Bridge     *bridge);
JsonNode *_zot_mcp_object_node         (JsonObject *object);
JsonArray *_zot_mcp_array_member       (JsonObject *object,
                                        const char *member);
typedef void (*ZotMcpItemFunc) (Server     *server,
                                JsonObject *item);
void      _zot_mcp_list_all            (Server         *server,
                                        const char     *method,
                                        const char     *member,
                                        ZotMcpItemFunc  each,
                                        gboolean        fail_server);
const char *_zot_mcp_next_cursor       (JsonObject *answer,
                                        guint       pages);

G_END_DECLS
