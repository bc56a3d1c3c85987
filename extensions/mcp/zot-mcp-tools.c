/* zot-mcp-tools.c — the bridge's tools as the servers list them: registered
 * with their annotations, listed again on notifications/tools/list_changed
 * (the difference applied: gone and changed tools unregistered, new and
 * changed ones registered), deferred behind the host's tool search when
 * the servers offer many, and notifications/progress shown as the running
 * call's progress (docs/mcp.md). */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include "zot-limits.h"
#include "zot-mcp-bridge.h"
#include "zot-mcp-config.h"

static char *
member_json (JsonObject   *object,
             const char   *member,
             JsonNodeType  type)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_TYPE (node) != type)
    return NULL;
  return json_to_string (node, FALSE);
}

/* MCP's annotations are hints from the server. Its defaults are followed:
 * readOnlyHint false, and destructiveHint true, which counts only for a
 * tool that is not read-only. So a tool that says nothing is destructive:
 * the host asks for each of its calls. */
static ZotExtToolFlags
annotation_flags (JsonObject *tool)
{
  JsonNode *node = json_object_get_member (tool, "annotations");
  JsonObject *hints = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  JsonNode *read_only = hints != NULL ? json_object_get_member (hints, "readOnlyHint") : NULL;
  JsonNode *destructive = hints != NULL ? json_object_get_member (hints, "destructiveHint") : NULL;

  if (read_only != NULL && JSON_NODE_HOLDS_VALUE (read_only) &&
      json_node_get_value_type (read_only) == G_TYPE_BOOLEAN && json_node_get_boolean (read_only))
    return ZOT_EXT_TOOL_READ_ONLY;
  if (destructive != NULL && JSON_NODE_HOLDS_VALUE (destructive) &&
      json_node_get_value_type (destructive) == G_TYPE_BOOLEAN && !json_node_get_boolean (destructive))
    return ZOT_EXT_TOOL_NONE;
  return ZOT_EXT_TOOL_DESTRUCTIVE;
}

static gboolean
declare (Bridge     *bridge,
         const char *zot_name,
         Tool       *entry,
         GError    **error)
{
  Server *server = entry->server;
  g_autofree char *schema = member_json (entry->json, "inputSchema", JSON_NODE_OBJECT);
  g_autofree char *output_schema = member_json (entry->json, "outputSchema", JSON_NODE_OBJECT);

  return zot_ext_extension_add_tool_full (bridge->ext, zot_name,
                                          json_object_get_string_member_with_default (entry->json, "description", ""),
                                          schema != NULL ? schema : "{\"type\":\"object\"}", output_schema,
                                          server->namespace_, NULL, server->instructions,
                                          bridge->deferred ? ZOT_EXT_EXPOSURE_DEFERRED : ZOT_EXT_EXPOSURE_DEFAULT,
                                          annotation_flags (entry->json), error);
}

static void
register_tool (Server     *server,
               JsonObject *tool)
{
  Bridge *bridge = server->bridge;
  const char *name = json_object_get_string_member_with_default (tool, "name", NULL);
  g_autofree char *zot_name = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *signal = NULL;
  Tool *entry;

  if (name == NULL || *name == '\0')
    return;
  zot_name = zot_mcp_tool_name (server->name, name);
  if (g_hash_table_contains (bridge->tools, zot_name))
    {
      g_printerr ("MCP server %s: tool %s is named %s, as an earlier tool; the earlier one is kept\n",
                  server->name, name, zot_name);
      return;
    }
  if (++server->tools > ZOT_MCP_TOOLS_MAX)
    {
      if (server->tools == ZOT_MCP_TOOLS_MAX + 1)
        g_printerr ("MCP server %s: more than %d tools; the rest are left out\n", server->name, ZOT_MCP_TOOLS_MAX);
      return;
    }
  if (g_hash_table_size (bridge->tools) >= ZOT_MAX_TOOLS_PER_EXTENSION)
    {
      g_printerr ("MCP server %s: tool %s left out: the servers offer more than %d tools together\n",
                  server->name, name, ZOT_MAX_TOOLS_PER_EXTENSION);
      return;
    }
  entry = g_new0 (Tool, 1);
  entry->server = server;
  entry->mcp_name = g_strdup (name);
  entry->json = json_object_ref (tool);
  if (!declare (bridge, zot_name, entry, &error))
    {
      g_printerr ("MCP server %s: tool %s left out: %s\n", server->name, name, error->message);
      json_object_unref (entry->json);
      g_free (entry->mcp_name);
      g_free (entry);
      return;
    }
  /* The library answers only calls with a handler for their name. */
  signal = g_strconcat ("tool-call::", zot_name, NULL);
  entry->handler = g_signal_connect (bridge->ext, signal, G_CALLBACK (_zot_mcp_tool_call_cb), bridge);
  g_hash_table_insert (bridge->tools, g_strdup (zot_name), entry);
}

static void
undeclare (Bridge     *bridge,
           const char *zot_name,
           Tool       *entry)
{
  g_autoptr(GError) error = NULL;

  if (!zot_ext_extension_unregister_tool (bridge->ext, zot_name, &error))
    g_printerr ("MCP server %s: tool %s stays registered: %s\n", entry->server->name, zot_name, error->message);
  g_signal_handler_disconnect (bridge->ext, entry->handler);
}

gboolean
_zot_mcp_same_json (JsonObject *a,
                    JsonObject *b)
{
  g_autoptr(JsonNode) left = json_node_init_object (json_node_alloc (), a);
  g_autoptr(JsonNode) right = json_node_init_object (json_node_alloc (), b);

  return json_node_equal (left, right);
}

/* Each tool declared again, with the exposure the count now asks for. */
static void
redeclare_all (Bridge *bridge)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, bridge->tools);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Tool *entry = value;
      g_autoptr(GError) error = NULL;
      g_autofree char *signal = g_strconcat ("tool-call::", (char *) key, NULL);

      undeclare (bridge, key, entry);
      if (!declare (bridge, key, entry, &error))
        {
          g_printerr ("MCP server %s: tool %s left out: %s\n", entry->server->name, (char *) key, error->message);
          g_hash_table_iter_remove (&iter);
          continue;
        }
      entry->handler = g_signal_connect (bridge->ext, signal, G_CALLBACK (_zot_mcp_tool_call_cb), bridge);
    }
}

static void list_tools (Server *server);

static void
collect_tool (Server     *server,
              JsonObject *tool)
{
  if (server->listing->len < ZOT_MCP_TOOLS_MAX + 1)
    g_ptr_array_add (server->listing, json_object_ref (tool));
}

static void
listed (Server   *server,
        gboolean  whole)
{
  Bridge *bridge = server->bridge;
  g_autoptr(GPtrArray) items = g_steal_pointer (&server->listing);
  g_autoptr(GHashTable) offered = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) kept = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key, value;
  guint total = 0;

  if (whole)
    {
      for (guint i = 0; i < items->len; i++)
        {
          const char *name = json_object_get_string_member_with_default (g_ptr_array_index (items, i), "name", NULL);

          if (name != NULL && !g_hash_table_contains (offered, name))
            g_hash_table_insert (offered, (gpointer) name, g_ptr_array_index (items, i));
        }
      server->tools = 0;
      g_hash_table_iter_init (&iter, bridge->tools);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          Tool *entry = value;
          JsonObject *now = g_hash_table_lookup (offered, entry->mcp_name);

          if (entry->server != server)
            continue;
          if (now != NULL && _zot_mcp_same_json (now, entry->json))
            {
              g_hash_table_add (kept, entry->mcp_name);
              server->tools++;
              continue;
            }
          undeclare (bridge, key, entry);
          g_hash_table_iter_remove (&iter);
        }
      server->listed = items->len;
      for (guint i = 0; i < bridge->servers->len; i++)
        total += ((Server *) g_ptr_array_index (bridge->servers, i))->listed;
      if ((total > ZOT_MCP_DIRECT_TOOLS_MAX) != bridge->deferred)
        {
          bridge->deferred = total > ZOT_MCP_DIRECT_TOOLS_MAX;
          g_printerr ("MCP servers offer %u tools: they are %s\n", total,
                      bridge->deferred ? "deferred behind the tool search" : "declared directly");
          redeclare_all (bridge);
        }
      for (guint i = 0; i < items->len; i++)
        {
          JsonObject *tool = g_ptr_array_index (items, i);
          const char *name = json_object_get_string_member_with_default (tool, "name", NULL);

          if (name == NULL || !g_hash_table_contains (kept, name))
            register_tool (server, tool);
        }
    }
  if (server->list_again)
    {
      server->list_again = FALSE;
      list_tools (server);
    }
}

/* At most one listing runs for a server and at most one waits: however
 * often a server says its list changed, the bridge lists it once more. */
static void
list_tools (Server *server)
{
  if (server->listing != NULL)
    {
      server->list_again = TRUE;
      return;
    }
  server->listing = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  _zot_mcp_list_all_then (server, "tools/list", "tools", collect_tool, server->listed == 0, listed);
}

/* Progress */

static char *
format_number (double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%g", value));
}

/* "3/10 — message", "3 — message" without a total, "3/10" without one. */
static char *
progress_text (JsonObject *params)
{
  GString *text = g_string_new (NULL);
  g_autofree char *done = format_number (json_object_get_double_member_with_default (params, "progress", 0));
  const char *message = json_object_get_string_member_with_default (params, "message", NULL);

  g_string_append (text, done);
  if (json_object_has_member (params, "total"))
    {
      g_autofree char *total = format_number (json_object_get_double_member_with_default (params, "total", 0));

      g_string_append_printf (text, "/%s", total);
    }
  if (message != NULL && *message != '\0')
    g_string_append_printf (text, " — %s", message);
  return g_string_free (text, FALSE);
}

static void
progress (Bridge     *bridge,
          JsonObject *params)
{
  JsonNode *token = params != NULL ? json_object_get_member (params, "progressToken") : NULL;
  ZotExtInvocation *invocation;
  g_autofree char *text = NULL;
  gint64 value;

  if (token == NULL || !JSON_NODE_HOLDS_VALUE (token) || json_node_get_value_type (token) != G_TYPE_INT64)
    return;
  value = json_node_get_int (token);
  if (value <= 0 || value > G_MAXUINT)
    return;
  invocation = g_hash_table_lookup (bridge->progress, GUINT_TO_POINTER ((guint) value));
  if (invocation == NULL || zot_ext_invocation_is_finished (invocation))
    return;
  text = progress_text (params);
  zot_ext_invocation_report_progress (invocation, text);
}

/* The `_meta` of a tools/call: a token the server's progress names. */
JsonObject *
_zot_mcp_progress_begin (Bridge           *bridge,
                         ZotExtInvocation *invocation)
{
  JsonObject *meta = json_object_new ();
  guint token;

  do
    token = ++bridge->next_token;
  while (token == 0 || g_hash_table_contains (bridge->progress, GUINT_TO_POINTER (token)));
  g_hash_table_insert (bridge->progress, GUINT_TO_POINTER (token), invocation);
  g_object_set_data (G_OBJECT (invocation), "zot-mcp-bridge", bridge);
  g_object_set_data (G_OBJECT (invocation), "zot-mcp-progress-token", GUINT_TO_POINTER (token));
  json_object_set_int_member (meta, "progressToken", token);
  return meta;
}

void
_zot_mcp_progress_end (ZotExtInvocation *invocation)
{
  Bridge *bridge = g_object_get_data (G_OBJECT (invocation), "zot-mcp-bridge");

  if (bridge != NULL)
    g_hash_table_remove (bridge->progress, g_object_get_data (G_OBJECT (invocation), "zot-mcp-progress-token"));
}

/* The server */

static void
notification_cb (ZotMcpClient *client,
                 const char   *method,
                 JsonObject   *params,
                 Server       *server)
{
  if (g_str_equal (method, "notifications/progress"))
    progress (server->bridge, params);
  else if (g_str_equal (method, "notifications/tools/list_changed") && server->ready)
    list_tools (server);
  else if (g_str_equal (method, "notifications/resources/list_changed") && server->ready)
    _zot_mcp_resources_changed (server);
  else if (g_str_equal (method, "notifications/prompts/list_changed") && server->ready)
    _zot_mcp_prompts_changed (server);
}

/* The server answered initialize: its tools are listed, and listed again
 * when it says they changed. */
void
_zot_mcp_tools_server_ready (Server   *server,
                             gboolean  has_tools)
{
  g_signal_connect (server->client, "notification", G_CALLBACK (notification_cb), server);
  if (!has_tools)
    {
      g_printerr ("MCP server %s offers no tools\n", server->name);
      return;
    }
  list_tools (server);
}

void
_zot_mcp_tools_init (Bridge *bridge)
{
  bridge->progress = g_hash_table_new (g_direct_hash, g_direct_equal);
}

void
_zot_mcp_tools_clear (Bridge *bridge)
{
  g_clear_pointer (&bridge->progress, g_hash_table_unref);
}
