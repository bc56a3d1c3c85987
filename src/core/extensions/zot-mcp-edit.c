/* zot-mcp-edit.c — adding a server to an mcp.json: `zot mcp add` and
 * the /mcp panel's form write the same entry. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-config.h"
#include "zot-mcp-edit.h"

gboolean
zot_mcp_server_name_valid (const char *name)
{
  if (name == NULL || *name == '\0' || strlen (name) > ZOT_TOOL_NAME_MAX_CHARS)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '.')
      return FALSE;
  return TRUE;
}

/* The file as it is, or a new one; %NULL when it is there but cannot be
 * edited without losing what it holds. */
JsonNode *
zot_mcp_config_load_root (const char  *path,
                          GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  JsonNode *root = zot_mcp_config_parse (path, &local_error);

  if (root == NULL && g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      root = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (root, json_object_new ());
    }
  else if (root == NULL)
    /* Translators: the error names the file */
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("%s; the file is left as it is"), local_error->message);
  return root;
}

gboolean
zot_mcp_config_save_root (const char  *path,
                          JsonNode    *root,
                          GError     **error)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);
  line = g_strconcat (text, "\n", NULL);
  /* Headers and env may hold tokens: the file is the user's alone. */
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents_full (path, line, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", path,
                   local_error != NULL ? local_error->message : g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* The section of @root that holds @name, if any. */
JsonObject *
zot_mcp_config_section_with (JsonObject *root,
                             const char *name)
{
  const char *sections[] = { "mcpServers", "servers" };

  for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
    {
      JsonNode *node = json_object_get_member (root, sections[i]);

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
          json_object_has_member (json_node_get_object (node), name))
        return json_node_get_object (node);
    }
  return NULL;
}

static JsonObject *
pairs_object (const char * const *pairs,
              char                separator)
{
  JsonObject *object = json_object_new ();

  for (guint i = 0; pairs != NULL && pairs[i] != NULL; i++)
    {
      const char *at = strchr (pairs[i], separator);
      g_autofree char *key = g_strndup (pairs[i], (gsize) (at - pairs[i]));
      g_autofree char *value = g_strdup (at + 1);

      json_object_set_string_member (object, g_strstrip (key), separator == ':' ? g_strchug (value) : value);
    }
  return object;
}

/**
 * zot_mcp_config_add:
 *
 * Adds @server to the file at @path, in the format the file has.
 */
gboolean
zot_mcp_config_add (const char            *path,
                    const ZotMcpNewServer *server,
                    GError               **error)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *entry;
  JsonObject *object;
  JsonObject *section;
  const char *section_name;
  gboolean vscode;

  if (!zot_mcp_server_name_valid (server->name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a server name: use 1 to %d letters, digits, “_”, “-” or “.”"),
                   server->name != NULL ? server->name : "", ZOT_TOOL_NAME_MAX_CHARS);
      return FALSE;
    }
  if ((server->url == NULL || *server->url == '\0') == (server->command == NULL || server->command[0] == NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("server %s: give either a command or a URL"), server->name);
      return FALSE;
    }
  root = zot_mcp_config_load_root (path, error);
  if (root == NULL)
    return FALSE;
  object = json_node_get_object (root);
  if (zot_mcp_config_section_with (object, server->name) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("%s: a server named “%s” is there already; zot mcp remove %s first"),
                   path, server->name, server->name);
      return FALSE;
    }
  /* A VS Code file stays one. */
  vscode = json_object_has_member (object, "servers") && !json_object_has_member (object, "mcpServers");
  section_name = vscode ? "servers" : "mcpServers";
  if (!json_object_has_member (object, section_name))
    json_object_set_object_member (object, section_name, json_object_new ());
  if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, section_name)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: %s is not an object, left as it is"),
                   path, section_name);
      return FALSE;
    }
  section = json_object_get_object_member (object, section_name);
  entry = json_object_new ();
  if (server->url != NULL && *server->url != '\0')
    {
      if (vscode)
        json_object_set_string_member (entry, "type", "http");
      json_object_set_string_member (entry, "url", server->url);
      if (server->headers != NULL && server->headers[0] != NULL)
        json_object_set_object_member (entry, "headers", pairs_object (server->headers, ':'));
    }
  else
    {
      JsonArray *args = json_array_new ();

      if (vscode)
        json_object_set_string_member (entry, "type", "stdio");
      json_object_set_string_member (entry, "command", server->command[0]);
      for (guint i = 1; server->command[i] != NULL; i++)
        json_array_add_string_element (args, server->command[i]);
      json_object_set_array_member (entry, "args", args);
      if (server->env != NULL && server->env[0] != NULL)
        json_object_set_object_member (entry, "env", pairs_object (server->env, '='));
    }
  json_object_set_object_member (section, server->name, entry);
  return zot_mcp_config_save_root (path, root, error);
}
