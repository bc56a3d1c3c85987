/* zot-mcp-import.c — other apps' MCP servers copied into an mcp.json,
 * and a server's "permissions" edited in place (docs/mcp.md). Shared by
 * `zot mcp import` (src/cli/zot-cli-mcp.c) and the /mcp panel
 * (extensions/mcp/zot-mcp-panel.c). */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-mcp-config.h"
#include "zot-mcp-edit.h"
#include "zot-mcp-import.h"

/* Where other apps keep their MCP servers, below $HOME; and VS Code's
 * file of the project. */
static const char * const import_sources[] = {
  ".config/Claude/claude_desktop_config.json",
  ".cursor/mcp.json",
  ".config/Code/User/mcp.json",
  ".codeium/windsurf/mcp_config.json",
};

JsonObject *
zot_mcp_import_find (const char *cwd,
                     GPtrArray  *origins)
{
  JsonObject *entries = json_object_new ();
  g_autofree char *project = g_build_filename (cwd != NULL ? cwd : ".", ".vscode", "mcp.json", NULL);

  for (guint i = 0; i <= G_N_ELEMENTS (import_sources); i++)
    {
      g_autofree char *path = i < G_N_ELEMENTS (import_sources)
                              ? g_build_filename (g_get_home_dir (), import_sources[i], NULL)
                              : g_canonicalize_filename (project, NULL);
      g_autoptr(JsonNode) root = zot_mcp_config_parse (path, NULL);
      const char *sections[] = { "mcpServers", "servers" };

      for (guint j = 0; root != NULL && j < G_N_ELEMENTS (sections); j++)
        {
          JsonNode *section = json_object_get_member (json_node_get_object (root), sections[j]);
          JsonObjectIter iter;
          const char *name;
          JsonNode *entry;

          if (section == NULL || !JSON_NODE_HOLDS_OBJECT (section))
            continue;
          json_object_iter_init (&iter, json_node_get_object (section));
          while (json_object_iter_next (&iter, &name, &entry))
            if (!json_object_has_member (entries, name) && JSON_NODE_HOLDS_OBJECT (entry))
              {
                json_object_set_member (entries, name, json_node_copy (entry));
                g_ptr_array_add (origins, g_strdup_printf ("%s\t%s", name, path));
              }
        }
    }
  return entries;
}

/* An imported stdio server gets the project read-write and the
 * network, unless it says what it may: the user edits that. */
static void
default_box (JsonObject *object)
{
  JsonObject *permissions;

  if (!json_object_has_member (object, "command") || json_object_has_member (object, "permissions"))
    return;
  permissions = json_object_new ();
  json_object_set_string_member (permissions, "filesystem", "project");
  json_object_set_boolean_member (permissions, "network", TRUE);
  json_object_set_object_member (object, "permissions", permissions);
}

gboolean
zot_mcp_config_import (const char  *path,
                       const char  *name,
                       JsonNode    *entry,
                       GError     **error)
{
  g_autoptr(JsonNode) root = zot_mcp_config_load_root (path, error);
  JsonObject *object;
  JsonNode *copy;

  if (root == NULL)
    return FALSE;
  object = json_node_get_object (root);
  if (zot_mcp_config_section_with (object, name) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("%s: a server named “%s” is there already; zot mcp remove %s first"), path, name, name);
      return FALSE;
    }
  if (!json_object_has_member (object, "mcpServers"))
    json_object_set_object_member (object, "mcpServers", json_object_new ());
  if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "mcpServers")) || !JSON_NODE_HOLDS_OBJECT (entry))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: %s is not an object, left as it is"),
                   path, "mcpServers");
      return FALSE;
    }
  copy = json_node_copy (entry);
  default_box (json_node_get_object (copy));
  json_object_set_member (json_object_get_object_member (object, "mcpServers"), name, copy);
  return zot_mcp_config_save_root (path, root, error);
}

gboolean
zot_mcp_config_set_permissions (const char  *path,
                                const char  *name,
                                const char  *filesystem,
                                gboolean     network,
                                GError     **error)
{
  g_autoptr(JsonNode) root = zot_mcp_config_load_root (path, error);
  JsonObject *section;
  JsonNode *entry;
  JsonNode *permissions;

  if (root == NULL)
    return FALSE;
  section = zot_mcp_config_section_with (json_node_get_object (root), name);
  entry = section != NULL ? json_object_get_member (section, name) : NULL;
  if (entry == NULL || !JSON_NODE_HOLDS_OBJECT (entry))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s: no server named “%s” (zot mcp list shows them)"), path, name);
      return FALSE;
    }
  if (filesystem == NULL)
    json_object_remove_member (json_node_get_object (entry), "permissions");
  else
    {
      permissions = json_object_get_member (json_node_get_object (entry), "permissions");
      if (permissions == NULL || !JSON_NODE_HOLDS_OBJECT (permissions))
        json_object_set_object_member (json_node_get_object (entry), "permissions", json_object_new ());
      permissions = json_object_get_member (json_node_get_object (entry), "permissions");
      json_object_set_string_member (json_node_get_object (permissions), "filesystem", filesystem);
      json_object_set_boolean_member (json_node_get_object (permissions), "network", network);
    }
  return zot_mcp_config_save_root (path, root, error);
}
