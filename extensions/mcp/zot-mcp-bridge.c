/* zot-mcp-bridge.c — the built-in extension that brings MCP servers'
 * tools into zot (docs/mcp.md). Each configured stdio server runs as a
 * child of this process; its tools are registered as they are listed,
 * named mcp__SERVER__TOOL, so the first prompt never waits for a server.
 * Written on libzot-ext-1 (sdk/c). */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <zot-ext.h>

#include "zot-limits.h"
#include "zot-mcp-bridge.h"
#include "zot-mcp-config.h"
#include "zot-mcp-secrets.h"

/* The newest protocol revision first: it is the one asked for. */
static const char * const protocol_versions[] = { "2025-06-18", "2025-03-26", "2024-11-05" };

static void
server_free (Server *server)
{
  _zot_mcp_server_lifecycle_free (server);
  _zot_mcp_resources_free (server);
  g_clear_pointer (&server->prompt_listing, g_ptr_array_unref);
  if (server->client != NULL)
    {
      g_signal_handlers_disconnect_by_data (server->client, server);
      zot_mcp_client_stop (server->client);
      g_object_unref (server->client);
    }
  g_free (server->name);
  g_free (server->namespace_);
  g_free (server->instructions);
  g_free (server->failure);
  g_free (server->cwd);
  g_free (server);
}

static void
tool_free (Tool *tool)
{
  g_free (tool->mcp_name);
  g_clear_pointer (&tool->json, json_object_unref);
  g_free (tool);
}

/* One note per server: the first thing that went wrong with it. */
static void
server_failed (Server     *server,
               const char *why)
{
  if (server->noted)
    return;
  server->noted = TRUE;
  server->failure = g_strdup (why);
  g_printerr ("%s\n", why);
  zot_ext_extension_notify (server->bridge->ext, "error", why);
  if (server->client != NULL)
    zot_mcp_client_stop (server->client);
  _zot_mcp_server_failed (server, why);
}

static void
closed_cb (ZotMcpClient *client,
           Server       *server)
{
  server_failed (server, zot_mcp_client_get_failure (client));
}

JsonNode *
_zot_mcp_object_node (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

/* Tools: zot-mcp-tools.c registers them. */

typedef struct
{
  Server         *server;
  const char     *method;
  const char     *member;
  ZotMcpItemFunc  each;
  gboolean        fail_server;  /* an error is the server's note, else a line in the log */
  guint           pages;
  ZotMcpListDoneFunc done;
} Lister;

static void list_page (Lister *lister, const char *cursor);

static void
listed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Lister *lister = user_data;
  Server *server = lister->server;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = zot_mcp_client_request_finish (ZOT_MCP_CLIENT (object), result, &error);
  JsonArray *items;
  const char *cursor;

  if (answer == NULL)
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

      if (!cancelled && lister->fail_server)
        server_failed (server, error->message);
      else if (!cancelled)
        g_printerr ("%s\n", error->message);
      if (lister->done != NULL)
        lister->done (server, FALSE);
      g_free (lister);
      return;
    }
  items = _zot_mcp_array_member (answer, lister->member);
  for (guint i = 0; items != NULL && i < json_array_get_length (items); i++)
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (items, i)))
      lister->each (server, json_array_get_object_element (items, i));
  cursor = _zot_mcp_next_cursor (answer, lister->pages);
  if (cursor != NULL)
    {
      list_page (lister, cursor);
      return;
    }
  g_printerr ("MCP server %s: %s listed\n", server->name, lister->member);
  if (lister->done != NULL)
    lister->done (server, TRUE);
  g_free (lister);
  _zot_mcp_panel_refresh (server->bridge);
}

static void
list_page (Lister     *lister,
           const char *cursor)
{
  JsonObject *params = json_object_new ();

  lister->pages++;
  if (cursor != NULL)
    json_object_set_string_member (params, "cursor", cursor);
  zot_mcp_client_request (lister->server->client, lister->method, _zot_mcp_object_node (params),
                          zot_timeout_get_ms (ZOT_TIMEOUT_MCP_CONNECT), NULL, listed_cb, lister);
}

/**
 * _zot_mcp_list_all:
 * @method: `tools/list` or `prompts/list`
 * @member: the array of the answer that holds the items
 * @each: called with each item
 *
 * Lists all the pages, up to ZOT_MCP_LIST_PAGES_MAX.
 */
void
_zot_mcp_list_all (Server         *server,
                   const char     *method,
                   const char     *member,
                   ZotMcpItemFunc  each,
                   gboolean        fail_server)
{
  _zot_mcp_list_all_then (server, method, member, each, fail_server, NULL);
}

/* As _zot_mcp_list_all(), then @done says whether all pages came. */
void
_zot_mcp_list_all_then (Server             *server,
                        const char         *method,
                        const char         *member,
                        ZotMcpItemFunc      each,
                        gboolean            fail_server,
                        ZotMcpListDoneFunc  done)
{
  Lister *lister = g_new0 (Lister, 1);

  lister->done = done;

  lister->server = server;
  lister->method = method;
  lister->member = member;
  lister->each = each;
  lister->fail_server = fail_server;
  list_page (lister, NULL);
}

/* The next page's cursor, when there is one and the pages allow it. */
const char *
_zot_mcp_next_cursor (JsonObject *answer,
                      guint       pages)
{
  const char *cursor = json_object_get_string_member_with_default (answer, "nextCursor", NULL);

  return cursor != NULL && *cursor != '\0' && pages < ZOT_MCP_LIST_PAGES_MAX ? cursor : NULL;
}

JsonArray *
_zot_mcp_array_member (JsonObject *object,
                       const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/* Content blocks of a zot tool result (the host's zot-message.h shape). */
void
_zot_mcp_add_text_block (JsonBuilder *builder,
                         const char  *text)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
}

void
_zot_mcp_add_image_block (JsonBuilder *builder,
                          const char  *mime_type,
                          const char  *data)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "image");
  json_builder_set_member_name (builder, "mime_type");
  json_builder_add_string_value (builder, mime_type);
  json_builder_set_member_name (builder, "data");
  json_builder_add_string_value (builder, data);
  json_builder_end_object (builder);
}

/* The handshake */

static void
initialized_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Server *server = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = zot_mcp_client_request_finish (ZOT_MCP_CLIENT (object), result, &error);
  const char *version;
  const char *instructions;
  JsonNode *capabilities;

  if (answer == NULL)
    {
      server_failed (server, error->message);
      return;
    }
  version = json_object_get_string_member_with_default (answer, "protocolVersion", "");
  if (!g_strv_contains (protocol_versions, version))
    {
      g_autofree char *known = g_strjoinv (", ", (char **) protocol_versions);
      g_autofree char *why = g_strdup_printf (_("MCP server %s speaks protocol version “%s”; zot knows %s"),
                                              server->name, version, known);

      server_failed (server, why);
      return;
    }
  server->ready = TRUE;
  zot_mcp_client_set_protocol_version (server->client, version);
  zot_mcp_client_notify (server->client, "notifications/initialized", NULL);
  _zot_mcp_server_ready (server);
  /* Started again after a stop: what it offers was listed at load. */
  if (server->listed_once)
    return;
  server->listed_once = TRUE;
  instructions = json_object_get_string_member_with_default (answer, "instructions", NULL);
  if (instructions != NULL && *instructions != '\0')
    server->instructions = g_strdup (instructions);
  /* A server without tools (only resources or prompts) is not asked for them. */
  capabilities = json_object_get_member (answer, "capabilities");
  if (capabilities != NULL && JSON_NODE_HOLDS_OBJECT (capabilities))
    _zot_mcp_extras_server_ready (server, json_node_get_object (capabilities));
  _zot_mcp_tools_server_ready (server, capabilities == NULL || !JSON_NODE_HOLDS_OBJECT (capabilities) ||
                                       json_object_has_member (json_node_get_object (capabilities), "tools"));
}

static void
initialize (Server *server)
{
  JsonObject *params = json_object_new ();
  JsonObject *client_info = json_object_new ();

  json_object_set_string_member (params, "protocolVersion", protocol_versions[0]);
  json_object_set_object_member (params, "capabilities", json_object_new ());
  json_object_set_string_member (client_info, "name", "zot");
  json_object_set_string_member (client_info, "version", PACKAGE_VERSION);
  json_object_set_object_member (params, "clientInfo", client_info);
  zot_mcp_client_request (server->client, "initialize", _zot_mcp_object_node (params),
                          zot_timeout_get_ms (ZOT_TIMEOUT_MCP_CONNECT), NULL, initialized_cb, server);
}

void
_zot_mcp_server_connect (Server *server)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotMcpServer) config = zot_mcp_server_with_secrets (server->config, server->bridge->secrets, &error);

  if (config == NULL)
    {
      server_failed (server, error->message);
      return;
    }
  server->client = zot_mcp_client_new (config, server->cwd);
  zot_mcp_client_set_permissions (server->client, server->config->permissions);
  g_signal_connect (server->client, "closed", G_CALLBACK (closed_cb), server);
  if (!zot_mcp_client_start (server->client, &error))
    {
      server_failed (server, error->message);
      return;
    }
  initialize (server);
}

void
_zot_mcp_start_server (Bridge             *bridge,
                       const ZotMcpServer *config,
                       const char         *cwd)
{
  Server *server = g_new0 (Server, 1);

  server->bridge = bridge;
  server->name = g_strdup (config->name);
  server->namespace_ = zot_mcp_namespace (config->name);
  server->transport = config->transport;
  server->config = config;
  server->cwd = g_strdup (cwd);
  g_queue_init (&server->waiting);
  g_ptr_array_add (bridge->servers, server);
  _zot_mcp_server_connect (server);
}

static gboolean
start_servers_cb (gpointer data)
{
  _zot_mcp_start_all (data);
  return G_SOURCE_REMOVE;
}

static void
hello_cb (ZotExtExtension *ext,
          Bridge          *bridge)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *current = g_get_current_dir ();
  const char *cwd = zot_ext_extension_get_host_info (ext, "cwd");

  if (cwd == NULL)
    cwd = current;
  bridge->cwd = g_strdup (cwd);
  bridge->configs = zot_mcp_config_load (cwd, notes);
  for (guint i = 0; i < notes->len; i++)
    {
      g_printerr ("%s\n", (char *) g_ptr_array_index (notes, i));
      zot_ext_extension_notify (ext, "warn", g_ptr_array_index (notes, i));
    }
  /* Spawning them takes milliseconds each: `ready` goes first, so that
   * the host's load never waits for them. */
  g_idle_add (start_servers_cb, bridge);
}

/* Calls */

/* MCP content as zot's: text parts joined, images as images, the rest
 * described in words. */
static char *
convert_content (JsonObject *answer)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GPtrArray) images = g_ptr_array_new ();
  JsonArray *parts = _zot_mcp_array_member (answer, "content");

  for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *type = part != NULL ? json_object_get_string_member_with_default (part, "type", "") : "";
      g_autofree char *piece = NULL;

      if (g_str_equal (type, "text"))
        piece = g_strdup (json_object_get_string_member_with_default (part, "text", ""));
      else if (g_str_equal (type, "image") && json_object_has_member (part, "data"))
        g_ptr_array_add (images, part);
      else if (g_str_equal (type, "resource_link"))
        piece = g_strdup_printf ("[resource %s]", json_object_get_string_member_with_default (part, "uri", ""));
      else if (g_str_equal (type, "resource") && json_object_has_member (part, "resource") &&
               JSON_NODE_HOLDS_OBJECT (json_object_get_member (part, "resource")))
        {
          JsonObject *resource = json_object_get_object_member (part, "resource");
          const char *body = json_object_get_string_member_with_default (resource, "text", NULL);

          piece = body != NULL ? g_strdup (body)
                               : g_strdup_printf ("[resource %s: binary, left out]",
                                                  json_object_get_string_member_with_default (resource, "uri", ""));
        }
      else if (*type != '\0')
        piece = g_strdup_printf ("[%s content, left out]", type);
      if (piece != NULL)
        {
          if (text->len > 0)
            g_string_append_c (text, '\n');
          g_string_append (text, piece);
        }
    }
  if (text->len == 0 && images->len == 0 && json_object_has_member (answer, "structuredContent"))
    {
      g_autofree char *json = json_to_string (json_object_get_member (answer, "structuredContent"), FALSE);

      g_string_append (text, json);
    }

  json_builder_begin_array (builder);
  if (text->len > 0 || images->len == 0)
    _zot_mcp_add_text_block (builder, text->str);
  for (guint i = 0; i < images->len; i++)
    {
      JsonObject *image = g_ptr_array_index (images, i);

      _zot_mcp_add_image_block (builder,
                                json_object_get_string_member_with_default (image, "mimeType", "image/png"),
                                json_object_get_string_member_with_default (image, "data", ""));
    }
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static void
called_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(ZotExtInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = zot_mcp_client_request_finish (ZOT_MCP_CLIENT (object), result, &error);
  g_autofree char *content = NULL;
  g_autofree char *structured = NULL;

  _zot_mcp_progress_end (invocation);
  if (zot_ext_invocation_is_finished (invocation))
    return;
  if (answer == NULL)
    {
      zot_ext_invocation_return_error (invocation, error->message);
      return;
    }
  content = convert_content (answer);
  if (json_object_has_member (answer, "structuredContent"))
    structured = json_to_string (json_object_get_member (answer, "structuredContent"), FALSE);
  zot_ext_invocation_return_result_json (invocation, content, structured,
                                         json_object_get_boolean_member_with_default (answer, "isError", FALSE));
}

gboolean
_zot_mcp_tool_call_cb (ZotExtExtension  *ext,
                       ZotExtInvocation *invocation,
                       Bridge           *bridge)
{
  Tool *tool = g_hash_table_lookup (bridge->tools, zot_ext_invocation_get_name (invocation));
  JsonObject *params;
  JsonNode *args;

  if (tool == NULL)
    return FALSE;
  params = json_object_new ();
  args = zot_ext_invocation_get_args (invocation);
  json_object_set_string_member (params, "name", tool->mcp_name);
  json_object_set_member (params, "arguments", args != NULL && JSON_NODE_HOLDS_OBJECT (args)
                                                ? json_node_copy (args) : _zot_mcp_object_node (json_object_new ()));
  json_object_set_object_member (params, "_meta", _zot_mcp_progress_begin (bridge, invocation));
  /* A stopped server starts again for the call. */
  _zot_mcp_server_request (tool->server, "tools/call", _zot_mcp_object_node (params),
                           zot_ext_invocation_get_cancellable (invocation), called_cb, g_object_ref (invocation));
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  Bridge bridge = { 0 };
  int status;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  _zot_mcp_flatpak_init ();

  bridge.ext = zot_ext_extension_new (ZOT_MCP_EXTENSION_NAME, PACKAGE_VERSION);
  bridge.servers = g_ptr_array_new_with_free_func ((GDestroyNotify) server_free);
  bridge.tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tool_free);
  bridge.prompts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, _zot_mcp_prompt_free);
  _zot_mcp_tools_init (&bridge);
  /* Tools come after `ready`, as servers list them: say now that calls
   * can be cancelled. */
  zot_ext_extension_add_capability (bridge.ext, "tool_cancel");
  g_signal_connect (bridge.ext, "hello", G_CALLBACK (hello_cb), &bridge);
  _zot_mcp_add_status_command (&bridge);
  status = zot_ext_extension_run (bridge.ext);

  g_hash_table_unref (bridge.tools);
  g_hash_table_unref (bridge.prompts);
  _zot_mcp_tools_clear (&bridge);
  g_ptr_array_unref (bridge.servers);
  g_clear_pointer (&bridge.configs, g_ptr_array_unref);
  _zot_mcp_panel_free (&bridge);
  g_object_unref (bridge.ext);
  return status;
}
