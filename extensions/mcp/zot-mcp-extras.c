/* zot-mcp-extras.c — MCP servers' resources and prompts. Resources are
 * listed and read through two tools, mcp_resources and
 * mcp_read_resource, registered once a server offers any; each prompt is
 * the slash command /mcp:SERVER:PROMPT, whose answer is the server's
 * messages as the prompt to send. */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-bridge.h"

#define RESOURCES_TOOL "mcp_resources"
#define READ_RESOURCE_TOOL "mcp_read_resource"

typedef struct
{
  Server *server;
  char   *name;
  GStrv   arguments;  /* the names it takes, in order */
  GStrv   required;
} Prompt;

void
_zot_mcp_prompt_free (gpointer data)
{
  Prompt *prompt = data;

  g_free (prompt->name);
  g_strfreev (prompt->arguments);
  g_strfreev (prompt->required);
  g_free (prompt);
}

static gboolean
server_usable (Server *server)
{
  /* A stopped server starts again for the request (zot-mcp-lifecycle.c). */
  return server->failure == NULL;
}

static Server *
find_server (Bridge     *bridge,
             const char *name)
{
  for (guint i = 0; name != NULL && i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);

      if (g_str_equal (server->name, name))
        return server;
    }
  return NULL;
}

/* mcp_resources: every server's list, or one server's */

typedef struct
{
  ZotExtInvocation *invocation;
  GPtrArray        *servers;  /* Server, unowned */
  guint             index;
  guint             pages;
  GString          *text;
  JsonArray        *items;
} Listing;

static void
listing_free (Listing *listing)
{
  g_object_unref (listing->invocation);
  g_ptr_array_unref (listing->servers);
  g_string_free (listing->text, TRUE);
  json_array_unref (listing->items);
  g_free (listing);
}

static void list_next (Listing *listing, const char *cursor);

static void
resources_listed_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Listing *listing = user_data;
  Server *server = g_ptr_array_index (listing->servers, listing->index);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = zot_mcp_client_request_finish (ZOT_MCP_CLIENT (object), result, &error);
  JsonArray *resources;
  const char *cursor = NULL;

  if (answer == NULL)
    g_string_append_printf (listing->text, "%s\n", error->message);
  else if ((resources = _zot_mcp_array_member (answer, "resources")) != NULL)
    {
      for (guint i = 0; i < json_array_get_length (resources); i++)
        {
          JsonNode *node = json_array_get_element (resources, i);
          JsonObject *resource = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
          JsonObject *item;
          const char *uri = resource != NULL ? json_object_get_string_member_with_default (resource, "uri", NULL) : NULL;

          if (uri == NULL)
            continue;
          item = json_object_new ();
          json_object_set_string_member (item, "server", server->name);
          json_object_set_string_member (item, "uri", uri);
          json_object_set_string_member (item, "name", json_object_get_string_member_with_default (resource, "name", ""));
          json_object_set_string_member (item, "mime_type",
                                         json_object_get_string_member_with_default (resource, "mimeType", ""));
          json_object_set_string_member (item, "description",
                                         json_object_get_string_member_with_default (resource, "description", ""));
          g_string_append_printf (listing->text, "%s %s %s%s%s\n", server->name, uri,
                                  json_object_get_string_member (item, "name"),
                                  *json_object_get_string_member (item, "description") != '\0' ? " — " : "",
                                  json_object_get_string_member (item, "description"));
          json_array_add_object_element (listing->items, item);
        }
      cursor = _zot_mcp_next_cursor (answer, listing->pages);
    }
  if (cursor != NULL)
    {
      list_next (listing, cursor);
      return;
    }
  listing->index++;
  listing->pages = 0;
  list_next (listing, NULL);
}

static void
list_next (Listing    *listing,
           const char *cursor)
{
  JsonObject *params;
  Server *server;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *structured = NULL;
  JsonObject *object;

  if (listing->index < listing->servers->len && !zot_ext_invocation_is_finished (listing->invocation))
    {
      server = g_ptr_array_index (listing->servers, listing->index);
      params = json_object_new ();
      if (cursor != NULL)
        json_object_set_string_member (params, "cursor", cursor);
      listing->pages++;
      _zot_mcp_server_request (server, "resources/list", _zot_mcp_object_node (params),
                              zot_ext_invocation_get_cancellable (listing->invocation),
                              resources_listed_cb, listing);
      return;
    }
  object = json_object_new ();
  json_object_set_array_member (object, "resources", json_array_ref (listing->items));
  root = _zot_mcp_object_node (object);
  structured = json_to_string (root, FALSE);
  if (listing->text->len == 0)
    g_string_append (listing->text, _("No resources"));
  if (!zot_ext_invocation_is_finished (listing->invocation))
    zot_ext_invocation_return_structured (listing->invocation, listing->text->str, structured);
  listing_free (listing);
}

static gboolean
resources_cb (ZotExtExtension  *ext,
              ZotExtInvocation *invocation,
              Bridge           *bridge)
{
  const char *wanted = zot_ext_invocation_get_string_arg (invocation, "server");
  Listing *listing = g_new0 (Listing, 1);

  listing->invocation = g_object_ref (invocation);
  listing->servers = g_ptr_array_new ();
  listing->text = g_string_new (NULL);
  listing->items = json_array_new ();
  for (guint i = 0; i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);

      if (server->resources && server_usable (server) && (wanted == NULL || g_str_equal (wanted, server->name)))
        g_ptr_array_add (listing->servers, server);
    }
  if (wanted != NULL && listing->servers->len == 0)
    {
      zot_ext_invocation_return_error_printf (invocation, _("no running MCP server “%s” offers resources"), wanted);
      listing_free (listing);
      return TRUE;
    }
  list_next (listing, NULL);
  return TRUE;
}

/* mcp_read_resource */

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
        {
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "image");
          json_builder_set_member_name (builder, "mime_type");
          json_builder_add_string_value (builder, mime);
          json_builder_set_member_name (builder, "data");
          json_builder_add_string_value (builder, blob);
          json_builder_end_object (builder);
        }
      else if (blob != NULL)
        g_string_append_printf (text, "%s[binary %s, left out]", text->len > 0 ? "\n" : "",
                                *mime != '\0' ? mime : "content");
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text->str);
  json_builder_end_object (builder);
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
  Server *server = find_server (bridge, name);
  JsonObject *params;

  if (uri == NULL || server == NULL || !server->resources || !server_usable (server))
    {
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
                                   "or of one server: each with its server, URI, name and description",
                                   "{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\","
                                   "\"description\":\"one server's name; all when left out\"}}}",
                                   ZOT_EXT_TOOL_NONE, &error) ||
      !zot_ext_extension_add_tool (bridge->ext, READ_RESOURCE_TOOL,
                                   "Read one resource of an MCP server, by its server and URI (from mcp_resources)",
                                   "{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\"},"
                                   "\"uri\":{\"type\":\"string\"}},\"required\":[\"server\",\"uri\"]}",
                                   ZOT_EXT_TOOL_NONE, &error))
    {
      g_printerr ("the resource tools were not registered: %s\n", error->message);
      return;
    }
  g_signal_connect (bridge->ext, "tool-call::" RESOURCES_TOOL, G_CALLBACK (resources_cb), bridge);
  g_signal_connect (bridge->ext, "tool-call::" READ_RESOURCE_TOOL, G_CALLBACK (read_resource_cb), bridge);
}

/* Prompts as slash commands */

/* ARGS is NAME=VALUE words when every word is one with a name the prompt
 * takes; otherwise all of it is the first argument. */
static JsonObject *
prompt_arguments (Prompt     *prompt,
                  const char *args)
{
  JsonObject *arguments = json_object_new ();
  g_auto(GStrv) words = NULL;
  gboolean named = TRUE;

  if (args == NULL || *args == '\0' || prompt->arguments[0] == NULL)
    return arguments;
  words = g_strsplit_set (args, " \t", -1);
  for (guint i = 0; words[i] != NULL && named; i++)
    {
      g_autofree char *key = g_strndup (words[i], strcspn (words[i], "="));

      named = *words[i] == '\0' || (strchr (words[i], '=') != NULL &&
                                     g_strv_contains ((const char * const *) prompt->arguments, key));
    }
  if (!named)
    {
      json_object_set_string_member (arguments, prompt->arguments[0], args);
      return arguments;
    }
  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0')
      {
        g_autofree char *key = g_strndup (words[i], strcspn (words[i], "="));

        json_object_set_string_member (arguments, key, words[i] + strlen (key) + 1);
      }
  return arguments;
}

static void
prompt_got_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(ZotExtCommandInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = zot_mcp_client_request_finish (ZOT_MCP_CLIENT (object), result, &error);
  g_autoptr(GString) text = g_string_new (NULL);
  JsonArray *messages;

  if (answer == NULL)
    {
      zot_ext_command_invocation_return_error (invocation, error->message);
      return;
    }
  messages = _zot_mcp_array_member (answer, "messages");
  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      JsonObject *message = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *content = message != NULL ? json_object_get_member (message, "content") : NULL;
      JsonObject *part = content != NULL && JSON_NODE_HOLDS_OBJECT (content) ? json_node_get_object (content) : NULL;
      const char *body = part != NULL ? json_object_get_string_member_with_default (part, "text", NULL) : NULL;

      if (body != NULL)
        g_string_append_printf (text, "%s%s", text->len > 0 ? "\n\n" : "", body);
    }
  if (text->len == 0)
    {
      zot_ext_command_invocation_return_error (invocation, _("the MCP prompt has no text"));
      return;
    }
  zot_ext_command_invocation_return_prompt (invocation, text->str);
}

static gboolean
prompt_command_cb (ZotExtExtension         *ext,
                   ZotExtCommandInvocation *invocation,
                   Bridge                  *bridge)
{
  Prompt *prompt = g_hash_table_lookup (bridge->prompts, zot_ext_command_invocation_get_name (invocation));
  JsonObject *arguments;
  JsonObject *params;
  g_autoptr(GString) missing = g_string_new (NULL);

  if (prompt == NULL)
    return FALSE;
  if (!server_usable (prompt->server))
    {
      zot_ext_command_invocation_return_error (invocation, prompt->server->failure);
      return TRUE;
    }
  arguments = prompt_arguments (prompt, zot_ext_command_invocation_get_args (invocation));
  for (guint i = 0; prompt->required[i] != NULL; i++)
    if (!json_object_has_member (arguments, prompt->required[i]))
      g_string_append_printf (missing, " %s=…", prompt->required[i]);
  if (missing->len > 0)
    {
      /* Translators: a command, then the arguments it lacks, each as " NAME=…" */
      g_autofree char *why = g_strdup_printf (_("/%s needs%s"), zot_ext_command_invocation_get_name (invocation),
                                              missing->str);

      json_object_unref (arguments);
      zot_ext_command_invocation_return_error (invocation, why);
      return TRUE;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "name", prompt->name);
  json_object_set_object_member (params, "arguments", arguments);
  _zot_mcp_server_request (prompt->server, "prompts/get", _zot_mcp_object_node (params),
                          NULL, prompt_got_cb, g_object_ref (invocation));
  return TRUE;
}

static void
register_prompt (Server     *server,
                 JsonObject *object)
{
  Bridge *bridge = server->bridge;
  const char *name = json_object_get_string_member_with_default (object, "name", NULL);
  g_autoptr(GStrvBuilder) arguments = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) required = g_strv_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *command = NULL;
  g_autofree char *signal = NULL;
  JsonArray *list;
  Prompt *prompt;

  if (name == NULL)
    return;
  command = g_strdelimit (g_strdup_printf ("mcp:%s:%s", server->name, name), " \t\r\n/", '_');
  if (g_utf8_strlen (command, -1) > ZOT_COMMAND_NAME_MAX_CHARS || g_hash_table_contains (bridge->prompts, command))
    {
      g_printerr ("MCP server %s: prompt %s left out: /%s is too long or taken\n", server->name, name, command);
      return;
    }
  list = _zot_mcp_array_member (object, "arguments");
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      JsonObject *argument = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *argument_name = argument != NULL ? json_object_get_string_member_with_default (argument, "name", NULL) : NULL;

      if (argument_name == NULL)
        continue;
      g_strv_builder_add (arguments, argument_name);
      if (json_object_get_boolean_member_with_default (argument, "required", FALSE))
        g_strv_builder_add (required, argument_name);
    }
  if (!zot_ext_extension_add_command (bridge->ext, command,
                                      json_object_get_string_member_with_default (object, "description", ""), &error))
    {
      g_printerr ("MCP server %s: prompt %s left out: %s\n", server->name, name, error->message);
      return;
    }
  prompt = g_new0 (Prompt, 1);
  prompt->server = server;
  prompt->name = g_strdup (name);
  prompt->arguments = g_strv_builder_end (arguments);
  prompt->required = g_strv_builder_end (required);
  g_hash_table_insert (bridge->prompts, g_strdup (command), prompt);
  signal = g_strconcat ("command::", command, NULL);
  g_signal_connect (bridge->ext, signal, G_CALLBACK (prompt_command_cb), bridge);
}

guint
_zot_mcp_count_prompts (Server *server)
{
  GHashTableIter iter;
  Prompt *prompt;
  guint prompts = 0;

  g_hash_table_iter_init (&iter, server->bridge->prompts);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &prompt))
    prompts += prompt->server == server;
  return prompts;
}

/* /mcp: the panel in the window, else each server's state in words */

static gboolean
status_cb (ZotExtExtension         *ext,
           ZotExtCommandInvocation *invocation,
           Bridge                  *bridge)
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (zot_ext_extension_has_host_capability (ext, "panel_widgets"))
    return _zot_mcp_panel_open (bridge, invocation);
  if (bridge->servers->len == 0)
    g_string_append (text, _("No MCP servers are configured (zot mcp add, or mcp.json: docs/mcp.md)"));
  for (guint i = 0; i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);
      g_autofree char *state = _zot_mcp_server_describe (server);

      g_string_append_printf (text, "%s%s (%s): %s", i > 0 ? "\n" : "", server->name,
                              zot_mcp_transport_to_string (server->transport), state);
    }
  zot_ext_command_invocation_return_display (invocation, text->str);
  return TRUE;
}

void
_zot_mcp_add_status_command (Bridge *bridge)
{
  g_autoptr(GError) error = NULL;

  if (!zot_ext_extension_add_command (bridge->ext, "mcp", "Show the MCP servers and their state", &error))
    g_error ("/mcp: %s", error->message);
  g_signal_connect (bridge->ext, "command::mcp", G_CALLBACK (status_cb), bridge);
}

static void
count_resource (Server     *server,
                JsonObject *resource)
{
  server->resource_count++;
}

/**
 * _zot_mcp_extras_server_ready:
 *
 * Registers the resource tools when @server is the first with
 * resources, and lists its prompts as commands.
 */
void
_zot_mcp_extras_server_ready (Server     *server,
                              JsonObject *capabilities)
{
  if (json_object_has_member (capabilities, "resources"))
    {
      server->resources = TRUE;
      register_resource_tools (server->bridge);
      _zot_mcp_list_all (server, "resources/list", "resources", count_resource, FALSE);
    }
  if (json_object_has_member (capabilities, "prompts"))
    _zot_mcp_list_all (server, "prompts/list", "prompts", register_prompt, FALSE);
}
