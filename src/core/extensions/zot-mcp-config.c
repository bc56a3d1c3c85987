#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-grants.h"
#include "zot-limits.h"
#include "zot-mcp-config.h"
#include "zot-paths.h"

void
zot_mcp_server_free (ZotMcpServer *server)
{
  if (server == NULL)
    return;
  g_free (server->name);
  g_free (server->command);
  g_strfreev (server->args);
  g_strfreev (server->env);
  g_free (server->url);
  g_strfreev (server->headers);
  g_free (server->origin);
  g_clear_pointer (&server->permissions, zot_permissions_free);
  g_free (server);
}

const char *
zot_mcp_transport_to_string (ZotMcpTransport transport)
{
  return transport == ZOT_MCP_TRANSPORT_HTTP ? "http" : "stdio";
}

char *
zot_mcp_config_user_path (void)
{
  g_autofree char *home = zot_paths_get_home ();

  return g_build_filename (home, ZOT_MCP_CONFIG_FILENAME, NULL);
}

char *
zot_mcp_config_project_path (const char *cwd)
{
  g_autofree char *current = NULL;

  if (cwd == NULL)
    cwd = current = g_get_current_dir ();
  return g_build_filename (cwd, ".zot", ZOT_MCP_CONFIG_FILENAME, NULL);
}

static void
note (GPtrArray  *notes,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static void
note (GPtrArray  *notes,
      const char *format,
      ...)
{
  va_list args;

  va_start (args, format);
  if (notes != NULL)
    g_ptr_array_add (notes, g_strdup_vprintf (format, args));
  va_end (args);
}

/* An array of strings, or an object of strings as "NAME<sep>VALUE". */
static gboolean
read_strings (JsonNode    *node,
              const char  *separator,
              GStrv       *out)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint count = 0;

  if (node == NULL)
    {
      *out = g_strv_builder_end (builder);
      return TRUE;
    }
  if (separator == NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING ||
              ++count > ZOT_MCP_SERVER_ARGS_MAX)
            return FALSE;
          g_strv_builder_add (builder, json_node_get_string (element));
        }
    }
  else if (separator != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &name, &value))
        {
          g_autofree char *pair = NULL;

          if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING ||
              ++count > ZOT_MCP_SERVER_ARGS_MAX || *name == '\0' || strchr (name, '=') != NULL)
            return FALSE;
          pair = g_strconcat (name, separator, json_node_get_string (value), NULL);
          g_strv_builder_add (builder, pair);
        }
    }
  else
    return FALSE;

  *out = g_strv_builder_end (builder);
  return TRUE;
}

static const char *
string_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* One entry; %NULL with a note naming the field when it cannot be used. */
static ZotMcpServer *
read_server (const char *path,
             const char *section,
             const char *name,
             JsonNode   *node,
             GPtrArray  *notes)
{
  g_autoptr(ZotMcpServer) server = g_new0 (ZotMcpServer, 1);
  JsonObject *entry;
  const char *type;
  const char *field = NULL;
  g_autoptr(GError) error = NULL;

  if (*name == '\0' || strlen (name) > ZOT_TOOL_NAME_MAX_CHARS)
    {
      note (notes, _("%s: %s: a server name must have 1 to %d characters; that server is skipped"),
            path, section, ZOT_TOOL_NAME_MAX_CHARS);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      note (notes, _("%s: %s.%s: must be an object; that server is skipped"), path, section, name);
      return NULL;
    }
  entry = json_node_get_object (node);
  if (json_object_get_boolean_member_with_default (entry, "disabled", FALSE))
    return NULL;

  server->name = g_strdup (name);
  server->origin = g_strdup (path);
  server->command = g_strdup (string_member (entry, "command"));
  server->url = g_strdup (string_member (entry, "url"));
  type = string_member (entry, "type");
  if (type == NULL)
    type = server->url != NULL && server->command == NULL ? "http" : "stdio";

  if (g_str_equal (type, "stdio"))
    {
      server->transport = ZOT_MCP_TRANSPORT_STDIO;
      if (server->command == NULL || *server->command == '\0')
        field = "command";
      else if (!read_strings (json_object_get_member (entry, "args"), NULL, &server->args))
        field = "args";
      else if (!read_strings (json_object_get_member (entry, "env"), "=", &server->env))
        field = "env";
      else if (!zot_permissions_read (entry, path, &server->permissions, &error))
        {
          /* Translators: why, then the server's name */
          note (notes, _("%s; server %s is skipped"), error->message, name);
          return NULL;
        }
    }
  else if (g_str_equal (type, "http") || g_str_equal (type, "sse") || g_str_equal (type, "streamable-http"))
    {
      server->transport = ZOT_MCP_TRANSPORT_HTTP;
      if (server->url == NULL || !g_str_has_prefix (server->url, "http"))
        field = "url";
      else if (!read_strings (json_object_get_member (entry, "headers"), ": ", &server->headers))
        field = "headers";
    }
  else
    field = "type";

  if (field != NULL)
    {
      /* Translators: the first %s is a file, then the JSON path of a field. */
      note (notes, _("%s: %s.%s.%s: missing or not valid (command: a string; args: strings; "
                     "env, headers: an object of strings; url: http(s); type: stdio or http); "
                     "that server is skipped"),
            path, section, name, field);
      return NULL;
    }
  return g_steal_pointer (&server);
}

static void
read_section (const char *path,
              JsonObject *root,
              const char *section,
              GPtrArray  *servers,
              GPtrArray  *notes)
{
  JsonNode *node = json_object_get_member (root, section);
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (node == NULL)
    return;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      note (notes, _("%s: %s: must be an object of servers by name"), path, section);
      return;
    }
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &name, &value))
    {
      ZotMcpServer *server;

      if (servers->len >= ZOT_MCP_SERVERS_MAX)
        {
          note (notes, _("%s: more than %d servers; the rest are skipped"), path, ZOT_MCP_SERVERS_MAX);
          return;
        }
      server = read_server (path, section, name, value, notes);
      if (server != NULL)
        g_ptr_array_add (servers, server);
    }
}

/**
 * zot_mcp_config_parse:
 * @path: an mcp.json
 *
 * Reads @path, bounded, as a JSON object. A missing file is
 * %G_FILE_ERROR_NOENT; the other errors start with @path.
 *
 * Returns: (transfer full) (nullable): the object's node
 */
JsonNode *
zot_mcp_config_parse (const char  *path,
                      GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length;
  JsonNode *root;

  if (!zot_file_get_contents_bounded (path, ZOT_MCP_CONFIG_MAX_BYTES, &contents, &length, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, G_FILE_ERROR, local_error->code, "%s: %s", path, local_error->message);
      return NULL;
    }
  if (!json_parser_load_from_data (parser, contents, (gssize) length, &local_error))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not valid JSON: %s"), path,
                   local_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s: must be a JSON object with \"mcpServers\" or \"servers\""), path);
      return NULL;
    }
  return json_node_ref (root);
}

/**
 * zot_mcp_config_read:
 * @path: an mcp.json
 * @notes: (element-type utf8): one line per problem, naming the file and
 *   the field
 *
 * Returns: (transfer full) (element-type ZotMcpServer): the usable
 *   servers of @path, empty when it does not exist
 */
GPtrArray *
zot_mcp_config_read (const char *path,
                     GPtrArray  *notes)
{
  g_autoptr(GPtrArray) servers = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_mcp_server_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = zot_mcp_config_parse (path, &error);

  if (root == NULL)
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        note (notes, "%s", error->message);
      return g_steal_pointer (&servers);
    }
  read_section (path, json_node_get_object (root), "servers", servers, notes);
  read_section (path, json_node_get_object (root), "mcpServers", servers, notes);
  return g_steal_pointer (&servers);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  const ZotMcpServer *first = *(ZotMcpServer * const *) a;
  const ZotMcpServer *second = *(ZotMcpServer * const *) b;

  return strcmp (first->name, second->name);
}

/**
 * zot_mcp_project_trusted:
 *
 * A cloned repository must not run code on open: a project's servers
 * start only once the user trusted the bridge in it (`zot mcp trust`),
 * as a project's extensions do.
 */
gboolean
zot_mcp_project_trusted (const char *cwd)
{
  g_autoptr(ZotGrant) grant = zot_grant_load (ZOT_MCP_EXTENSION_NAME);
  g_autofree char *project = g_canonicalize_filename (cwd, NULL);

  return zot_grant_trusts_project (grant, project);
}

/* `zot mcp trust`: the project's servers may start from now on. */
gboolean
zot_mcp_trust_project (const char  *cwd,
                       GError     **error)
{
  g_autoptr(ZotGrant) grant = zot_grant_load (ZOT_MCP_EXTENSION_NAME);
  g_autofree char *project = g_canonicalize_filename (cwd, NULL);

  if (grant == NULL)
    grant = zot_grant_new (NULL);
  zot_grant_add_project (grant, project);
  return zot_grant_save (ZOT_MCP_EXTENSION_NAME, grant, error);
}

/**
 * zot_mcp_config_load:
 * @cwd: (nullable): the project
 * @notes: (element-type utf8): one line per problem
 *
 * Reads $ZOT_HOME/mcp.json and the project's .zot/mcp.json; a project's
 * server replaces the user's of the same name.
 *
 * Returns: (transfer full) (element-type ZotMcpServer): sorted by name
 */
GPtrArray *
zot_mcp_config_load (const char *cwd,
                     GPtrArray  *notes)
{
  g_autofree char *user_path = zot_mcp_config_user_path ();
  g_autofree char *project_path = zot_mcp_config_project_path (cwd);
  g_autoptr(GPtrArray) servers = zot_mcp_config_read (user_path, notes);
  g_autoptr(GPtrArray) project = NULL;
  g_autofree char *current = NULL;

  if (cwd == NULL)
    cwd = current = g_get_current_dir ();
  if (g_strcmp0 (user_path, project_path) != 0 && g_file_test (project_path, G_FILE_TEST_EXISTS))
    {
      if (zot_mcp_project_trusted (cwd))
        project = zot_mcp_config_read (project_path, notes);
      else
        note (notes, _("%s: not read: this project's MCP servers start once you trust them "
                       "(zot mcp trust, in %s)"), project_path, cwd);
    }
  for (guint i = 0; project != NULL && i < project->len; i++)
    {
      ZotMcpServer *server = g_ptr_array_index (project, i);

      for (guint j = 0; j < servers->len; j++)
        if (g_str_equal (((ZotMcpServer *) g_ptr_array_index (servers, j))->name, server->name))
          g_ptr_array_remove_index (servers, j--);
      g_ptr_array_add (servers, g_ptr_array_steal_index (project, i--));
    }
  while (servers->len > ZOT_MCP_SERVERS_MAX)
    g_ptr_array_remove_index (servers, servers->len - 1);
  g_ptr_array_sort (servers, compare_names);
  return g_steal_pointer (&servers);
}

/* The host's rule: ^[A-Za-z0-9_-]{1,64}$. */
static char *
sanitize (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    g_string_append_c (out, g_ascii_isalnum (*p) || *p == '_' || *p == '-' ? *p : '_');
  return g_string_free (out, FALSE);
}

/* Cut to the host's length, ending in a hash of the whole so two long
 * names that share a beginning still differ. */
static char *
fit (char       *name,
     const char *whole)
{
  g_autofree char *hash = NULL;
  char *fitted;

  if (strlen (name) <= ZOT_TOOL_NAME_MAX_CHARS)
    return name;
  hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, whole, -1);
  name[ZOT_TOOL_NAME_MAX_CHARS - ZOT_MCP_NAME_HASH_CHARS - 1] = '\0';
  hash[ZOT_MCP_NAME_HASH_CHARS] = '\0';
  fitted = g_strconcat (name, "_", hash, NULL);
  g_free (name);
  return fitted;
}

/* mcp__SERVER__TOOL, as a host tool name. */
char *
zot_mcp_tool_name (const char *server,
                   const char *tool)
{
  g_autofree char *whole = g_strconcat ("mcp__", server, "__", tool, NULL);

  return fit (sanitize (whole), whole);
}

/* mcp_SERVER, namespaces following the tool-name rule. */
char *
zot_mcp_namespace (const char *server)
{
  g_autofree char *whole = g_strconcat ("mcp_", server, NULL);

  return fit (sanitize (whole), whole);
}
