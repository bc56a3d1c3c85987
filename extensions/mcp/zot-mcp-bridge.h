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
  guint         resource_count;
  GPtrArray    *resource_list;    /* JsonObject: its resources as last listed (zot-mcp-resources.c) */
  GPtrArray    *template_list;    /* JsonObject: its resource templates */
  GPtrArray    *resource_listing; /* of a listing under way */
  GPtrArray    *template_listing;
  gboolean      resources_again;  /* resources/list_changed came while listing */
  gboolean      resources_left_out;
  gboolean      prompts;          /* it offers prompts */
  GPtrArray    *prompt_listing;   /* prompts of a prompts/list under way (zot-mcp-extras.c) */
  gboolean      prompts_again;
  const ZotMcpServer *config;  /* in Bridge.configs */
  char         *cwd;
  guint         idle_id;
  gboolean      stopped;       /* stopped while idle: the next call starts it */
  gboolean      listed_once;   /* its tools, resources and prompts were listed once */
  GQueue        waiting;       /* Waiter (zot-mcp-lifecycle.c) */
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
  GPtrArray       *configs;  /* ZotMcpServer */
  char            *cwd;
  GHashTable      *secrets;  /* mcp/SERVER/NAME → value, from the keyring */
  /* the /mcp panel (zot-mcp-panel.c) */
  gboolean         panel_open;
  gboolean         panel_signals;
  char            *add_name;
  char            *add_target;
  char            *panel_message;
  gboolean         panel_message_error;
  JsonObject      *import_entries;  /* "Import from…": other apps' servers, by name */
  GPtrArray       *import_origins;  /* "NAME\tFILE" */
};

/* A stopped server starts again for the request (zot-mcp-lifecycle.c);
 * a failed one waits for a start from the panel. */
static inline gboolean
_zot_mcp_server_usable (Server *server)
{
  return server->failure == NULL;
}

void      _zot_mcp_start_server        (Bridge             *bridge,
                                        const ZotMcpServer *config,
                                        const char         *cwd);
void      _zot_mcp_flatpak_init        (void);
char     *_zot_mcp_box_describe        (const ZotMcpServer *config);
guint     _zot_mcp_count_prompts       (Server          *server);
char     *_zot_mcp_server_describe     (Server          *server);
gboolean  _zot_mcp_panel_open          (Bridge                  *bridge,
                                        ZotExtCommandInvocation *invocation);
void      _zot_mcp_panel_refresh       (Bridge          *bridge);
void      _zot_mcp_panel_free          (Bridge          *bridge);

/* zot-mcp-lifecycle.c: a server stops when idle and starts on the next
 * call; @failure is NULL once it is ready, else why it is not. */
typedef void (*ZotMcpReadyFunc) (Server     *server,
                                 const char *failure,
                                 gpointer    data);
void      _zot_mcp_start_all           (Bridge          *bridge);
void      _zot_mcp_server_connect      (Server          *server);
void      _zot_mcp_server_when_ready   (Server          *server,
                                        ZotMcpReadyFunc  func,
                                        gpointer         data);
void      _zot_mcp_server_ready        (Server          *server);
void      _zot_mcp_server_start        (Server          *server);
/* Within the request deadline, once @server is ready. */
void      _zot_mcp_server_request      (Server *server, const char *method, JsonNode *params,
                                        GCancellable *cancellable, GAsyncReadyCallback callback,
                                        gpointer user_data);
void      _zot_mcp_server_failed       (Server          *server,
                                        const char      *why);
void      _zot_mcp_server_stop         (Server          *server,
                                        const char      *why);
void      _zot_mcp_server_lifecycle_free (Server        *server);

/* The server answered `initialize` with @capabilities. */
void      _zot_mcp_extras_server_ready (Server     *server,
                                        JsonObject *capabilities);
void      _zot_mcp_prompt_free         (gpointer    prompt);
void      _zot_mcp_add_status_command  (Bridge     *bridge);
JsonNode *_zot_mcp_object_node         (JsonObject *object);
JsonArray *_zot_mcp_array_member       (JsonObject *object,
                                        const char *member);
void      _zot_mcp_add_text_block      (JsonBuilder *builder,
                                        const char  *text);
void      _zot_mcp_add_image_block     (JsonBuilder *builder,
                                        const char  *mime_type,
                                        const char  *data);
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

/* zot-mcp-resources.c */
void      _zot_mcp_resources_server_ready (Server        *server);
void      _zot_mcp_resources_changed   (Server           *server);
void      _zot_mcp_resources_free      (Server           *server);
/* zot-mcp-extras.c: notifications/prompts/list_changed */
void      _zot_mcp_prompts_changed     (Server           *server);
gboolean  _zot_mcp_same_json           (JsonObject       *a,
                                        JsonObject       *b);

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
