/* zot-mcp-client-private.h — what the stdio client (zot-mcp-client.c)
 * shares with its Streamable HTTP transport (zot-mcp-http.c). */
#pragma once

#include <libsoup/soup.h>

#include "zot-mcp-client.h"

G_BEGIN_DECLS

typedef struct
{
  ZotMcpClient *client;  /* unowned: the client fails its requests before it goes */
  GTask        *task;
  gint64        id;
  char         *method;
  guint         timeout_ms;
  GSource      *timeout;
  GSource      *cancelled;
} Request;

struct _ZotMcpClient
{
  GObject       parent_instance;
  char         *name;
  char         *command;
  GStrv         args;
  GStrv         env;
  char         *cwd;
  const ZotPermissions *permissions;  /* the configuration's, which outlives the client */

  /* stdio */
  GSubprocess  *process;
  GPid          pid;
  GOutputStream *input;
  GCancellable *cancellable;

  GByteArray   *line;
  gboolean      skipping;
  GString      *skipped_head;
  GString      *skipped_tail;
  GString      *stderr_tail;

  GHashTable   *pending;  /* gint64 id → Request */
  gint64        next_id;
  GQueue        writes;   /* GBytes */
  gboolean      writing;
  gint64        last_activity;  /* monotonic µs: the last request sent or answered */

  gboolean      exited;
  gboolean      stderr_done;
  char         *exit_status;
  char         *failure;

  /* Streamable HTTP (zot-mcp-http.c) */
  char         *url;
  GStrv         headers;
  SoupSession  *http;
  char         *session_id;
  char         *protocol_version;
};

/* A whole JSON-RPC message from the server, by either transport. */
void     _zot_mcp_client_handle_line (ZotMcpClient *self,
                                      const char   *text,
                                      gsize         length);
/* Fails the waiting request @id, if any, with @error (taken). */
void     _zot_mcp_client_fail_id     (ZotMcpClient *self,
                                      gint64        id,
                                      GError       *error);

/* zot-mcp-box.c: bwrap's command line for the server, its variables
 * set on @launcher. */
GStrv    _zot_mcp_box_wrap           (ZotMcpClient        *self,
                                      GSubprocessLauncher *launcher,
                                      GError             **error);

gboolean _zot_mcp_http_start         (ZotMcpClient *self,
                                      GError      **error);
void     _zot_mcp_http_post          (ZotMcpClient *self,
                                      gint64        id,
                                      const char   *text);

G_END_DECLS
