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
  GPtrArray    *listing;       /* tools of a tools/list under way (zot-mcp-tools.c) */
  gboolean      list_again;    /* list_changed came while listing */
  guint         listed;        /* tools the last whole listing offered */
} Server;

typedef struct
{
  Server *server;
  char   *mcp_name;
  JsonObject *json;             /* as listed: a change in it registers the tool again */
  gulong  handler;
} Tool;

struct _Bridge
{
  ZotExtExtension *ext;
  GPtrArray       *servers;  /* Server */
  GHashTable      *tools;    /* zot name → Tool */
  GHashTable      *prompts;  /* command name → Prompt */
  gboolean         resource_tools;
  GHashTable      *progress; /* progressToken → ZotExtInvocation of a running call */
  guint            next_token;
  gboolean         deferred; /* the servers offer too many tools to declare them all */
  GPtrArray       *pending;  /* configured servers, started once `ready` is sent */
  char            *pending_cwd;
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
typedef void (*ZotMcpListDoneFunc) (Server   *server,
                                    gboolean  whole);
void      _zot_mcp_list_all_then       (Server             *server,
                                        const char         *method,
                                        const char         *member,
                                        ZotMcpItemFunc      each,
                                        gboolean            fail_server,
                                        ZotMcpListDoneFunc  done);

/* zot-mcp-tools.c */
void      _zot_mcp_tools_init          (Bridge           *bridge);
void      _zot_mcp_tools_clear         (Bridge           *bridge);
void      _zot_mcp_tools_server_ready  (Server           *server,
                                        gboolean          has_tools);
JsonObject *_zot_mcp_progress_begin    (Bridge           *bridge,
                                        ZotExtInvocation *invocation);
void      _zot_mcp_progress_end        (ZotExtInvocation *invocation);
gboolean  _zot_mcp_tool_call_cb        (ZotExtExtension  *ext,
                                        ZotExtInvocation *invocation,
                                        Bridge           *bridge);
const char *_zot_mcp_next_cursor       (JsonObject *answer,
                                        guint       pages);

G_END_DECLS
