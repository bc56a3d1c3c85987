/* zot-mcp-lifecycle.c — when the bridge's servers run (docs/mcp.md):
 * each starts at load, to list its tools, resources and prompts; stops
 * once no request has waited on it for the idle deadline; and starts
 * again on the next call, which waits for its handshake. Its tools stay
 * registered while it is stopped. */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-limits.h"
#include "zot-extension-secrets.h"
#include "zot-mcp-bridge.h"
#include "zot-mcp-secrets.h"

typedef struct
{
  ZotMcpReadyFunc func;
  gpointer        data;
} Waiter;

static void
answer_waiters (Server     *server,
                const char *failure)
{
  Waiter *waiter;

  while ((waiter = g_queue_pop_head (&server->waiting)) != NULL)
    {
      waiter->func (server, failure, waiter->data);
      g_free (waiter);
    }
}

static gboolean idle_cb (gpointer data);

static void
watch_idle (Server *server,
            guint   ms)
{
  g_clear_handle_id (&server->idle_id, g_source_remove);
  server->idle_id = g_timeout_add (MAX (ms, 1u), idle_cb, server);
}

static gboolean
idle_cb (gpointer data)
{
  Server *server = data;
  guint idle_ms = zot_timeout_get_ms (ZOT_TIMEOUT_MCP_IDLE);
  guint remaining_ms;
  g_autofree char *why = NULL;

  server->idle_id = 0;
  if (server->client == NULL || !server->ready)
    return G_SOURCE_REMOVE;
  if (!zot_mcp_client_is_idle_for (server->client, idle_ms, &remaining_ms))
    {
      watch_idle (server, remaining_ms);
      return G_SOURCE_REMOVE;
    }
  why = g_strdup_printf ("MCP server %s stopped: idle for %u s", server->name, idle_ms / 1000);
  _zot_mcp_server_stop (server, why);
  return G_SOURCE_REMOVE;
}

/**
 * _zot_mcp_server_stop:
 * @why: the line for the bridge's log
 *
 * Ends @server's process; its waiting requests fail. It starts again on
 * the next call, or from the panel.
 */
void
_zot_mcp_server_stop (Server     *server,
                      const char *why)
{
  g_clear_handle_id (&server->idle_id, g_source_remove);
  if (server->client != NULL)
    {
      g_signal_handlers_disconnect_by_data (server->client, server);
      zot_mcp_client_stop (server->client);
      g_clear_object (&server->client);
    }
  server->ready = FALSE;
  server->stopped = TRUE;
  g_printerr ("%s\n", why);
  answer_waiters (server, why);
  _zot_mcp_panel_refresh (server->bridge);
}

/* It answered `initialize`. */
void
_zot_mcp_server_ready (Server *server)
{
  server->stopped = FALSE;
  watch_idle (server, zot_timeout_get_ms (ZOT_TIMEOUT_MCP_IDLE));
  answer_waiters (server, NULL);
  _zot_mcp_panel_refresh (server->bridge);
}

void
_zot_mcp_server_failed (Server     *server,
                        const char *why)
{
  g_clear_handle_id (&server->idle_id, g_source_remove);
  answer_waiters (server, why);
  _zot_mcp_panel_refresh (server->bridge);
}

/**
 * _zot_mcp_server_when_ready:
 *
 * Calls @func once @server is ready: at once when it is, after its
 * handshake when it is starting or stopped (it is started), with why
 * when it failed.
 */
void
_zot_mcp_server_when_ready (Server          *server,
                            ZotMcpReadyFunc  func,
                            gpointer         data)
{
  Waiter *waiter;

  if (server->ready && server->client != NULL)
    {
      func (server, NULL, data);
      return;
    }
  if (server->failure != NULL && !server->stopped)
    {
      func (server, server->failure, data);
      return;
    }
  waiter = g_new0 (Waiter, 1);
  waiter->func = func;
  waiter->data = data;
  g_queue_push_tail (&server->waiting, waiter);
  if (server->client == NULL)
    _zot_mcp_server_start (server);
}

/* Starts @server again, stopped or failed. */
void
_zot_mcp_server_start (Server *server)
{
  if (server->client != NULL)
    {
      g_signal_handlers_disconnect_by_data (server->client, server);
      zot_mcp_client_stop (server->client);
      g_clear_object (&server->client);
    }
  g_printerr ("MCP server %s: starting again\n", server->name);
  g_clear_pointer (&server->failure, g_free);
  server->noted = FALSE;
  server->stopped = FALSE;
  server->ready = FALSE;
  _zot_mcp_server_connect (server);
  _zot_mcp_panel_refresh (server->bridge);
}

typedef struct
{
  char                *method;
  JsonNode            *params;
  GCancellable        *cancellable;
  GAsyncReadyCallback  callback;
  gpointer             user_data;
} Deferred;

static void
request_when_ready (Server     *server,
                    const char *failure,
                    gpointer    data)
{
  Deferred *deferred = data;

  if (failure != NULL)
    {
      /* Answered as the client answers: its finish function reads the task. */
      g_autoptr(GTask) task = g_task_new (NULL, NULL, deferred->callback, deferred->user_data);

      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, "%s", failure);
      g_clear_pointer (&deferred->params, json_node_unref);
    }
  else
    zot_mcp_client_request (server->client, deferred->method, g_steal_pointer (&deferred->params),
                            zot_timeout_get_ms (ZOT_TIMEOUT_MCP_REQUEST), deferred->cancellable, deferred->callback, deferred->user_data);
  g_clear_object (&deferred->cancellable);
  g_free (deferred->method);
  g_free (deferred);
}

/**
 * _zot_mcp_server_request:
 * @params: (transfer full) (nullable):
 *
 * zot_mcp_client_request() on @server once it is ready: a stopped server
 * is started for it.
 */
void
_zot_mcp_server_request (Server              *server,
                         const char          *method,
                         JsonNode            *params,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  Deferred *deferred = g_new0 (Deferred, 1);

  deferred->method = g_strdup (method);
  deferred->params = params;
  deferred->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  deferred->callback = callback;
  deferred->user_data = user_data;
  _zot_mcp_server_when_ready (server, request_when_ready, deferred);
}

void
_zot_mcp_server_lifecycle_free (Server *server)
{
  g_autofree char *why = g_strdup_printf (_("MCP server %s was stopped"), server->name);

  g_clear_handle_id (&server->idle_id, g_source_remove);
  answer_waiters (server, why);
}

static void
start_each (Bridge *bridge)
{
  for (guint i = 0; i < bridge->configs->len; i++)
    _zot_mcp_start_server (bridge, g_ptr_array_index (bridge->configs, i), bridge->cwd);
}

static void
secrets_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      data)
{
  Bridge *bridge = data;
  g_autoptr(GError) error = NULL;

  bridge->secrets = zot_extension_secrets_lookup_finish (result, &error);
  /* Without them the servers that name a secret fail, saying which. */
  if (bridge->secrets == NULL)
    {
      g_autofree char *why = g_strdup_printf (_("MCP servers: the keyring did not answer: %s"), error->message);

      g_printerr ("%s\n", why);
      zot_ext_extension_notify (bridge->ext, "error", why);
    }
  start_each (bridge);
}

/**
 * _zot_mcp_start_all:
 *
 * Starts the configured servers, once the keyring has given the
 * secrets their env and headers name (ZOT_TIMEOUT_KEYRING at most).
 */
void
_zot_mcp_start_all (Bridge *bridge)
{
  g_auto(GStrv) keys = zot_mcp_secret_keys (bridge->configs);

  if (keys[0] == NULL)
    {
      start_each (bridge);
      return;
    }
  zot_extension_secrets_lookup_async (ZOT_MCP_EXTENSION_NAME, (const char * const *) keys, NULL, secrets_cb, bridge);
}
