/* zot-mcp-resources.c — MCP servers' resources and resource templates.
 * Each server's are listed when it is ready and again when it sends
 * notifications/resources/list_changed, and kept: mcp_resources answers
 * from that list without waking a server stopped while idle, and
 * mcp_read_resource finds the server of a URI it lists or that matches
 * one of its templates (docs/mcp.md). */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-bridge.h"

#define RESOURCES_TOOL "mcp_resources"
#define READ_RESOURCE_TOOL "mcp_read_resource"

static const char *
string_member (JsonObject *object,
               const char *member)
{
  return json_object_get_string_member_with_default (object, member, "");
}

/* mcp_resources: the lists kept, of every server or of one */

static void
add_item (GString    *text,
          JsonArray  *items,
          Server     *server,
          JsonObject *listed,
          const char *uri_member,
          const char *uri_key)
{
  JsonObject *item = json_object_new ();
  const char *description = string_member (listed, "description");

  json_object_set_string_member (item, "server", server->name);
  json_object_set_string_member (item, uri_key, string_member (listed, uri_member));
  json_object_set_string_member (item, "name", string_member (listed, "name"));
  json_object_set_string_member (item, "mime_type", string_member (listed, "mimeType"));
  json_object_set_string_member (item, "description", description);
  g_string_append_printf (text, "%s %s %s%s%s\n", server->name, string_member (listed, uri_member),
                          string_member (listed, "name"), *description != '\0' ? " — " : "", description);
  json_array_add_object_element (items, item);
}

static gboolean
resources_cb (ZotExtExtension  *ext,
              ZotExtInvocation *invocation,
              Bridge           *bridge)
{
  const char *wanted = zot_ext_invocation_get_string_arg (invocation, "server");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) templates_text = g_string_new (NULL);
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *structured = NULL;
  JsonArray *items = json_array_new ();
  JsonArray *templates = json_array_new ();
  JsonObject *object = json_object_new ();
  gboolean any = FALSE;

  for (guint i = 0; i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);

      if (!server->resources || !_zot_mcp_server_usable (server) || (wanted != NULL && !g_str_equal (wanted, server->name)))
        continue;
      any = TRUE;
      for (guint j = 0; server->resource_list != NULL && j < server->resource_list->len; j++)
        add_item (text, items, server, g_ptr_array_index (server->resource_list, j), "uri", "uri");
      for (guint j = 0; server->template_list != NULL && j < server->template_list->len; j++)
        add_item (templates_text, templates, server, g_ptr_array_index (server->template_list, j),
                  "uriTemplate", "uri_template");
    }
  json_object_set_array_member (object, "resources", items);
  json_object_set_array_member (object, "templates", templates);
  root = _zot_mcp_object_node (object);
  if (wanted != NULL && !any)
    {
      zot_ext_invocation_return_error_printf (invocation, _("no running MCP server “%s” offers resources"), wanted);
      return TRUE;
    }
  if (text->len == 0)
    g_string_append_printf (text, "%s\n", _("No resources"));
  if (templates_text->len > 0)
    /* Translators: before the list of resource templates, each a server, a URI template and a name */
    g_string_append_printf (text, "%s\n%s", _("Templates (read any URI that matches one):"), templates_text->str);
  structured = json_to_string (root, FALSE);
  zot_ext_invocation_return_structured (invocation, text->str, structured);
  return TRUE;
}

/* mcp_read_resource */

/* An RFC 6570 URI template as an anchored pattern: a {var} is one path
 * segment, {+var} and {#var} anything, {?…} and {&…} an optional query,
 * {/var}, {.var} and {;var} an optional part with that prefix. */
static GRegex *
template_regex (const char *uri_template)
{
  g_autoptr(GString) pattern = g_string_new ("^");
  const char *at = uri_template;

  while (*at != '\0')
    {
      const char *open = strchr (at, '{');
      const char *close = open != NULL ? strchr (open, '}') : NULL;
      g_autofree char *literal = g_strndup (at, close != NULL ? (gsize) (open - at) : strlen (at));
      g_autofree char *escaped = g_regex_escape_string (literal, -1);

      g_string_append (pattern, escaped);
      if (close == NULL)
        break;
      switch (open[1])
        {
        case '+': case '#': g_string_append (pattern, ".*"); break;
        case '?': case '&': g_string_append (pattern, "(?:[?&].*)?"); break;
        case '/': g_string_append (pattern, "(?:/[^?#]*)?"); break;
        case '.': g_string_append (pattern, "(?:\\.[^/?#]*)?"); break;
        case ';': g_string_append (pattern, "(?:;[^/?#]*)?"); break;
        default:  g_string_append (pattern, "[^/?#]+"); break;
        }
      at = close + 1;
    }
  g_string_append (pattern, "$");
  return g_regex_new (pattern->str, G_REGEX_DEFAULT, G_REGEX_MATCH_DEFAULT, NULL);
}

static gboolean
server_offers (Server     *server,
               const char *uri)
{
  for (guint i = 0; server->resource_list != NULL && i < server->resource_list->len; i++)
    if (g_str_equal (string_member (g_ptr_array_index (server->resource_list, i), "uri"), uri))
      return TRUE;
  for (guint i = 0; server->template_list != NULL && i < server->template_list->len; i++)
    {
      g_autoptr(GRegex) regex = template_regex (string_member (g_ptr_array_index (server->template_list, i),
                                                               "uriTemplate"));

      if (regex != NULL && g_regex_match (regex, uri, G_REGEX_MATCH_DEFAULT, NULL))
        return TRUE;
    }
  return FALSE;
}

/* The server named, else the first whose resources or templates have
 * @uri. */
static Server *
resource_server (Bridge     *bridge,
                 const char *name,
                 const char *uri)
{
  for (guint i = 0; i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);

      if (!server->resources || !_zot_mcp_server_usable (server))
        continue;
      if (name != NULL ? g_str_equal (server->name, name) : server_offers (server, uri))
        return server;
    }
  return NULL;
}

static void
resource_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(ZotExtInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = zot_mcp_client_request_finish (ZOT_MCP_CLIENT (object), result, &error);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *content = NULL;
  JsonArray *contents;

  if (zot_ext_invocation_is_finished (invocation))
    return;
  if (answer == NULL)
    {
      zot_ext_invocation_return_error (invocation, error->message);
      return;
    }
  json_builder_begin_array (builder);
  contents = _zot_mcp_array_member (answer, "contents");
  for (guint i = 0; contents != NULL && i < json_array_get_length (contents); i++)
    {
      JsonNode *node = json_array_get_element (contents, i);
      JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *mime = part != NULL ? json_object_get_string_member_with_default (part, "mimeType", "") : "";
      const char *body = part != NULL ? json_object_get_string_member_with_default (part, "text", NULL) : NULL;
      const char *blob = part != NULL ? json_object_get_string_member_with_default (part, "blob", NULL) : NULL;

      if (body != NULL)
        g_string_append_printf (text, "%s%s", text->len > 0 ? "\n" : "", body);
      else if (blob != NULL && g_str_has_prefix (mime, "image/"))
        _zot_mcp_add_image_block (builder, mime, blob);
      else if (blob != NULL)
        g_string_append_printf (text, "%s[binary %s, left out]", text->len > 0 ? "\n" : "",
                                *mime != '\0' ? mime : "content");
    }
  _zot_mcp_add_text_block (builder, text->str);
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  content = json_to_string (root, FALSE);
  zot_ext_invocation_return_result_json (invocation, content, NULL, FALSE);
}

static gboolean
read_resource_cb (ZotExtExtension  *ext,
                  ZotExtInvocation *invocation,
                  Bridge           *bridge)
{
  const char *name = zot_ext_invocation_get_string_arg (invocation, "server");
  const char *uri = zot_ext_invocation_get_string_arg (invocation, "uri");
  Server *server = uri != NULL ? resource_server (bridge, name, uri) : NULL;
  JsonObject *params;

  if (server == NULL)
    {
      if (uri != NULL && name == NULL)
        zot_ext_invocation_return_error_printf (invocation,
                                                _("no MCP server lists “%s” or a template it matches: "
                                                  "name its \"server\" (mcp_resources lists them)"), uri);
      else
        zot_ext_invocation_return_error_printf (invocation,
                                                _("mcp_read_resource needs \"server\", a running MCP server "
                                                  "that offers resources, and \"uri\" (mcp_resources lists them)"));
      return TRUE;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "uri", uri);
  _zot_mcp_server_request (server, "resources/read", _zot_mcp_object_node (params),
                          zot_ext_invocation_get_cancellable (invocation),
                          resource_read_cb, g_object_ref (invocation));
  return TRUE;
}

static void
register_resource_tools (Bridge *bridge)
{
  g_autoptr(GError) error = NULL;

  if (bridge->resource_tools)
    return;
  bridge->resource_tools = TRUE;
  if (!zot_ext_extension_add_tool (bridge->ext, RESOURCES_TOOL,
                                   "List the resources (files, records, documents) of the MCP servers, "
                                   "or of one server: each with its server, URI, name and description; "
                                   "then the resource templates, each a URI template whose matching URIs "
                                   "can be read",
                                   "{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\","
                                   "\"description\":\"one server's name; all when left out\"}}}",
                                   ZOT_EXT_TOOL_NONE, &error) ||
      !zot_ext_extension_add_tool (bridge->ext, READ_RESOURCE_TOOL,
                                   "Read one resource of an MCP server by its URI (from mcp_resources, or "
                                   "matching one of its templates); the server may be left out when a "
                                   "server lists the URI or a template it matches",
                                   "{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\"},"
                                   "\"uri\":{\"type\":\"string\"}},\"required\":[\"uri\"]}",
                                   ZOT_EXT_TOOL_NONE, &error))
    {
      g_printerr ("the resource tools were not registered: %s\n", error->message);
      return;
    }
  g_signal_connect (bridge->ext, "tool-call::" RESOURCES_TOOL, G_CALLBACK (resources_cb), bridge);
  g_signal_connect (bridge->ext, "tool-call::" READ_RESOURCE_TOOL, G_CALLBACK (read_resource_cb), bridge);
}

/* Listing, at start and when the server says its list changed */

static void list_resources (Server *server);

static void
collect (Server     *server,
         GPtrArray  *into,
         JsonObject *item,
         const char *uri_member)
{
  if (json_object_get_string_member_with_default (item, uri_member, NULL) == NULL)
    return;
  if (into->len < ZOT_MCP_RESOURCES_MAX)
    g_ptr_array_add (into, json_object_ref (item));
  else
    server->resources_left_out = TRUE;
}

static void
collect_resource (Server     *server,
                  JsonObject *item)
{
  collect (server, server->resource_listing, item, "uri");
}

static void
collect_template (Server     *server,
                  JsonObject *item)
{
  collect (server, server->template_listing, item, "uriTemplate");
}

static void
templates_listed (Server   *server,
                  gboolean  whole)
{
  /* A server may not know resources/templates/list: then it has none. */
  g_clear_pointer (&server->template_list, g_ptr_array_unref);
  server->template_list = g_steal_pointer (&server->template_listing);
  if (!whole)
    g_ptr_array_set_size (server->template_list, 0);
  /* Counted once both lists are in, so that a count the panel shows
   * means the listing is whole. */
  server->resource_count = server->resource_list->len;
  if (server->resources_left_out)
    g_printerr ("MCP server %s: more than %d resources or templates; the rest are left out\n",
                server->name, ZOT_MCP_RESOURCES_MAX);
  _zot_mcp_panel_refresh (server->bridge);
  if (server->resources_again)
    {
      server->resources_again = FALSE;
      list_resources (server);
    }
}

static void
resources_listed (Server   *server,
                  gboolean  whole)
{
  g_autoptr(GPtrArray) listing = g_steal_pointer (&server->resource_listing);

  if (whole || server->resource_list == NULL)
    {
      g_clear_pointer (&server->resource_list, g_ptr_array_unref);
      server->resource_list = g_steal_pointer (&listing);
    }
  server->template_listing = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  _zot_mcp_list_all_then (server, "resources/templates/list", "resourceTemplates", collect_template, FALSE,
                          templates_listed);
}

/* At most one listing runs for a server and at most one waits, as for
 * its tools (zot-mcp-tools.c). */
static void
list_resources (Server *server)
{
  if (server->resource_listing != NULL || server->template_listing != NULL)
    {
      server->resources_again = TRUE;
      return;
    }
  server->resources_left_out = FALSE;
  server->resource_listing = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  _zot_mcp_list_all_then (server, "resources/list", "resources", collect_resource, FALSE, resources_listed);
}

void
_zot_mcp_resources_server_ready (Server *server)
{
  server->resources = TRUE;
  register_resource_tools (server->bridge);
  list_resources (server);
}

void
_zot_mcp_resources_changed (Server *server)
{
  if (server->resources)
    list_resources (server);
}

void
_zot_mcp_resources_free (Server *server)
{
  g_clear_pointer (&server->resource_list, g_ptr_array_unref);
  g_clear_pointer (&server->template_list, g_ptr_array_unref);
  g_clear_pointer (&server->resource_listing, g_ptr_array_unref);
  g_clear_pointer (&server->template_listing, g_ptr_array_unref);
}
