/* zot-mcp-panel.c — the /mcp panel, in native widgets (docs/mcp.md):
 * each server with its state, transport, what it offers and what last
 * went wrong, with Start, Stop and Restart; each stdio server's box
 * (files and network), saved to its entry's "permissions" for its next
 * start; "Import from…" other apps' servers as `zot mcp import` does;
 * and a form that adds a server to $ZOT_HOME/mcp.json as `zot mcp add`
 * does. An added or imported server starts at once. */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-bridge.h"
#include "zot-mcp-edit.h"
#include "zot-mcp-import.h"

#define PANEL_ID "mcp"

static void
add_text (JsonBuilder *builder,
          const char  *member,
          const char  *value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_string_value (builder, value);
}

static void
begin_widget (JsonBuilder *builder,
              const char  *type,
              const char  *id)
{
  json_builder_begin_object (builder);
  add_text (builder, "type", type);
  add_text (builder, "id", id);
}

/* A server's state in a few words, as /mcp says it without a window too. */
char *
_zot_mcp_server_describe (Server *server)
{
  if (server->failure != NULL)
    /* Translators: %s is why a server stopped */
    return g_strdup_printf (_("failed: %s"), server->failure);
  if (server->stopped)
    return g_strdup (_("stopped, starts on the next call"));
  if (!server->ready)
    return g_strdup (_("starting"));
  /* Translators: a server's state: its tools, resources and prompts */
  return g_strdup_printf (_("ready, %u tools, %u resources, %u prompts"),
                          MIN (server->tools, (guint) ZOT_MCP_TOOLS_MAX), server->resource_count,
                          _zot_mcp_count_prompts (server));
}

static void
add_button (JsonBuilder *builder,
            const char  *id,
            const char  *label,
            const char  *icon)
{
  json_builder_begin_object (builder);
  add_text (builder, "id", id);
  add_text (builder, "label", label);
  add_text (builder, "icon", icon);
  json_builder_end_object (builder);
}

static void
add_server_row (JsonBuilder *builder,
                Server      *server)
{
  g_autofree char *state = _zot_mcp_server_describe (server);
  g_autofree char *box = _zot_mcp_box_describe (server->config);
  g_autofree char *subtitle = g_strdup_printf ("%s · %s%s%s", zot_mcp_transport_to_string (server->transport),
                                               state, box != NULL ? " · " : "", box != NULL ? box : "");
  gboolean running = server->client != NULL && server->failure == NULL;

  json_builder_begin_object (builder);
  add_text (builder, "id", server->name);
  add_text (builder, "title", server->name);
  add_text (builder, "subtitle", subtitle);
  json_builder_set_member_name (builder, "activatable");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_set_member_name (builder, "buttons");
  json_builder_begin_array (builder);
  if (running)
    {
      add_button (builder, "stop", _("Stop"), "media-playback-stop-symbolic");
      add_button (builder, "restart", _("Restart"), "view-refresh-symbolic");
    }
  else
    add_button (builder, "start", _("Start"), "media-playback-start-symbolic");
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

static void
add_entry (JsonBuilder *builder,
           const char  *id,
           const char  *label,
           const char  *placeholder,
           gboolean     clear)
{
  begin_widget (builder, "entry", id);
  add_text (builder, "label", label);
  add_text (builder, "placeholder", placeholder);
  if (clear)
    add_text (builder, "value", "");
  json_builder_end_object (builder);
}

static void
add_heading (JsonBuilder *builder,
             const char  *id,
             const char  *text)
{
  begin_widget (builder, "heading", id);
  add_text (builder, "text", text);
  json_builder_set_member_name (builder, "level");
  json_builder_add_int_value (builder, 3);
  json_builder_end_object (builder);
}

/* The value "unconfined" stands for no "permissions" at all. */
#define UNCONFINED "unconfined"

static void
add_option (JsonBuilder *builder,
            const char  *value,
            const char  *label)
{
  json_builder_begin_object (builder);
  add_text (builder, "value", value);
  add_text (builder, "label", label);
  json_builder_end_object (builder);
}

/* Each stdio server's files and network, as its entry says them. */
static void
add_permissions (JsonBuilder *builder,
                 Bridge      *bridge)
{
  gboolean heading = FALSE;

  for (guint i = 0; i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);
      const ZotPermissions *permissions = server->config->permissions;
      g_autofree char *box_id = g_strconcat ("perm-", server->name, NULL);
      g_autofree char *files_id = g_strconcat ("perm-fs-", server->name, NULL);
      g_autofree char *network_id = g_strconcat ("perm-net-", server->name, NULL);
      /* Translators: the label of a server's files setting; %s is its name */
      g_autofree char *files_label = g_strdup_printf (_("%s: files"), server->name);

      if (server->transport != ZOT_MCP_TRANSPORT_STDIO)
        continue;
      if (!heading)
        {
          add_heading (builder, "perm-heading", _("Permissions"));
          begin_widget (builder, "text", "perm-note");
          add_text (builder, "text", _("Saved to the server's entry in mcp.json; applied on its next start"));
          add_text (builder, "style", "dim");
          json_builder_end_object (builder);
          heading = TRUE;
        }
      begin_widget (builder, "box", box_id);
      add_text (builder, "orientation", "horizontal");
      json_builder_set_member_name (builder, "spacing");
      json_builder_add_int_value (builder, 12);
      json_builder_set_member_name (builder, "children");
      json_builder_begin_array (builder);
      begin_widget (builder, "dropdown", files_id);
      add_text (builder, "label", files_label);
      json_builder_set_member_name (builder, "options");
      json_builder_begin_array (builder);
      /* Translators: a server's files setting: no box at all */
      add_option (builder, UNCONFINED, _("unconfined"));
      for (ZotFilesystemAccess access = ZOT_FILESYSTEM_NONE; access <= ZOT_FILESYSTEM_HOST; access++)
        add_option (builder, zot_filesystem_access_to_string (access), zot_filesystem_access_describe_words (access));
      json_builder_end_array (builder);
      add_text (builder, "value", permissions != NULL ? zot_filesystem_access_to_string (permissions->filesystem)
                                                      : UNCONFINED);
      json_builder_end_object (builder);
      begin_widget (builder, "switch", network_id);
      add_text (builder, "label", _("Network"));
      json_builder_set_member_name (builder, "value");
      json_builder_add_boolean_value (builder, permissions == NULL || permissions->network);
      json_builder_end_object (builder);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
}

static gboolean
configured (Bridge     *bridge,
            const char *name)
{
  for (guint i = 0; i < bridge->configs->len; i++)
    if (g_str_equal (((ZotMcpServer *) g_ptr_array_index (bridge->configs, i))->name, name))
      return TRUE;
  return FALSE;
}

/* "Import from…", and once pressed the servers other apps have. */
static void
add_import (JsonBuilder *builder,
            Bridge      *bridge)
{
  add_heading (builder, "import-heading", _("Import from other apps"));
  begin_widget (builder, "button", "import");
  add_text (builder, "label", bridge->import_origins == NULL ? _("Import from…") : _("Look again"));
  add_text (builder, "description", _("Lists the servers of Claude Desktop, Cursor, VS Code and Windsurf"));
  json_builder_end_object (builder);
  if (bridge->import_origins == NULL)
    return;
  begin_widget (builder, "list", "import-list");
  add_text (builder, "placeholder", _("No MCP servers found in Claude Desktop's, Cursor's, VS Code's or "
                                      "Windsurf's files"));
  json_builder_set_member_name (builder, "rows");
  json_builder_begin_array (builder);
  for (guint i = 0; i < bridge->import_origins->len; i++)
    {
      g_auto(GStrv) pair = g_strsplit (g_ptr_array_index (bridge->import_origins, i), "\t", 2);
      gboolean there = configured (bridge, pair[0]);
      /* Translators: the file an importable server comes from, and that it is configured already */
      g_autofree char *subtitle = there ? g_strdup_printf (_("%s · added already"), pair[1]) : g_strdup (pair[1]);

      json_builder_begin_object (builder);
      add_text (builder, "id", pair[0]);
      add_text (builder, "title", pair[0]);
      add_text (builder, "subtitle", subtitle);
      json_builder_set_member_name (builder, "activatable");
      json_builder_add_boolean_value (builder, FALSE);
      json_builder_set_member_name (builder, "buttons");
      json_builder_begin_array (builder);
      if (!there)
        add_button (builder, "import", _("Import"), "list-add-symbolic");
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

static char *
widgets_json (Bridge   *bridge,
              gboolean  clear_form)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_array (builder);
  begin_widget (builder, "list", "servers");
  add_text (builder, "placeholder", _("No MCP servers are configured yet: add one below"));
  json_builder_set_member_name (builder, "rows");
  json_builder_begin_array (builder);
  for (guint i = 0; i < bridge->servers->len; i++)
    add_server_row (builder, g_ptr_array_index (bridge->servers, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  /* A row's subtitle is cut to one line: why a server failed is shown
   * whole, with its stderr's last words. */
  for (guint i = 0; i < bridge->servers->len; i++)
    {
      Server *server = g_ptr_array_index (bridge->servers, i);
      g_autofree char *id = NULL;
      g_autofree char *text = NULL;

      if (server->failure == NULL)
        continue;
      id = g_strconcat ("error-", server->name, NULL);
      /* Translators: a server's name, then why it failed */
      text = g_strdup_printf (_("%s: %s"), server->name, server->failure);
      begin_widget (builder, "text", id);
      add_text (builder, "text", text);
      add_text (builder, "style", "error");
      json_builder_end_object (builder);
    }

  add_permissions (builder, bridge);
  add_import (builder, bridge);
  begin_widget (builder, "separator", "add-separator");
  json_builder_end_object (builder);
  add_heading (builder, "add-heading", _("Add server"));
  add_entry (builder, "add-name", _("Name"), "files", clear_form);
  add_entry (builder, "add-target", _("Command or URL"),
             "npx -y @modelcontextprotocol/server-filesystem ~/Documents", clear_form);
  begin_widget (builder, "button", "add");
  add_text (builder, "label", _("Add server"));
  add_text (builder, "style", "suggested");
  json_builder_end_object (builder);
  begin_widget (builder, "text", "add-result");
  add_text (builder, "text", bridge->panel_message != NULL ? bridge->panel_message : "");
  add_text (builder, "style", bridge->panel_message_error ? "error" : "dim");
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

/* Shows the servers as they are now, when the panel is open. */
void
_zot_mcp_panel_refresh (Bridge *bridge)
{
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;

  if (!bridge->panel_open)
    return;
  json = widgets_json (bridge, FALSE);
  if (!zot_ext_extension_render_panel_widgets (bridge->ext, PANEL_ID, _("MCP servers"), json, NULL, &error))
    g_printerr ("/mcp: %s\n", error->message);
}

static void
set_message (Bridge     *bridge,
             gboolean    is_error,
             const char *message)
{
  g_free (bridge->panel_message);
  bridge->panel_message = g_strdup (message);
  bridge->panel_message_error = is_error;
}

/* @name as @path has it now, or %NULL. */
static ZotMcpServer *
read_config (const char *path,
             const char *name)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) configs = zot_mcp_config_read (path, notes);

  for (guint i = 0; configs != NULL && i < configs->len; i++)
    if (g_str_equal (((ZotMcpServer *) g_ptr_array_index (configs, i))->name, name))
      return g_ptr_array_steal_index (configs, i);
  return NULL;
}

/* A server just written to @path starts. */
static void
start_added (Bridge     *bridge,
             const char *path,
             const char *name)
{
  ZotMcpServer *config = read_config (path, name);

  if (config == NULL)
    return;
  g_ptr_array_add (bridge->configs, config);
  _zot_mcp_start_server (bridge, config, bridge->cwd);
}

/* The form's server: written to the user's file, then started. */
static gboolean
add_server (Bridge *bridge)
{
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) command = NULL;
  const char *target = bridge->add_target != NULL ? g_strstrip (bridge->add_target) : "";
  ZotMcpNewServer server = { .name = bridge->add_name != NULL ? g_strstrip (bridge->add_name) : "" };

  if (g_str_has_prefix (target, "http://") || g_str_has_prefix (target, "https://"))
    server.url = target;
  else if (*target != '\0' && !g_shell_parse_argv (target, NULL, &command, &error))
    {
      g_autofree char *why = g_strdup_printf (_("The command cannot be read: %s"), error->message);

      set_message (bridge, TRUE, why);
      return FALSE;
    }
  server.command = (const char * const *) command;
  if (!zot_mcp_config_add (path, &server, &error))
    {
      set_message (bridge, TRUE, error->message);
      return FALSE;
    }
  start_added (bridge, path, server.name);
  {
    /* Translators: %s is a server's name, then the file it was added to */
    g_autofree char *done = g_strdup_printf (_("Added %s to %s"), server.name, path);

    set_message (bridge, FALSE, done);
  }
  return TRUE;
}

static Server *
find_server (Bridge     *bridge,
             const char *name)
{
  for (guint i = 0; name != NULL && i < bridge->servers->len; i++)
    if (g_str_equal (((Server *) g_ptr_array_index (bridge->servers, i))->name, name))
      return g_ptr_array_index (bridge->servers, i);
  return NULL;
}

static void
server_button (Bridge     *bridge,
               const char *value_json)
{
  g_autoptr(JsonNode) value = json_from_string (value_json, NULL);
  JsonObject *object = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  Server *server = object != NULL ? find_server (bridge, json_object_get_string_member_with_default (object, "row", NULL)) : NULL;
  const char *button = object != NULL ? json_object_get_string_member_with_default (object, "button", "") : "";
  g_autofree char *why = NULL;

  if (server == NULL)
    return;
  why = g_strdup_printf ("MCP server %s stopped from the panel", server->name);
  if (g_str_equal (button, "stop") || g_str_equal (button, "restart"))
    _zot_mcp_server_stop (server, why);
  if (g_str_equal (button, "start") || g_str_equal (button, "restart"))
    _zot_mcp_server_start (server);
}

static void
import_server (Bridge     *bridge,
               const char *value_json)
{
  g_autoptr(JsonNode) value = json_from_string (value_json, NULL);
  JsonObject *object = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  const char *name = object != NULL ? json_object_get_string_member_with_default (object, "row", NULL) : NULL;
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autoptr(GError) error = NULL;
  g_autofree char *done = NULL;

  if (name == NULL || bridge->import_entries == NULL || !json_object_has_member (bridge->import_entries, name))
    return;
  if (!zot_mcp_config_import (path, name, json_object_get_member (bridge->import_entries, name), &error))
    {
      set_message (bridge, TRUE, error->message);
      return;
    }
  start_added (bridge, path, name);
  /* Translators: %s is a server's name, then the file it was added to */
  done = g_strdup_printf (_("Added %s to %s"), name, path);
  set_message (bridge, FALSE, done);
}

static void
find_importable (Bridge *bridge)
{
  g_clear_pointer (&bridge->import_entries, json_object_unref);
  g_clear_pointer (&bridge->import_origins, g_ptr_array_unref);
  bridge->import_origins = g_ptr_array_new_with_free_func (g_free);
  bridge->import_entries = zot_mcp_import_find (bridge->cwd, bridge->import_origins);
}

/* A box's files or network changed: written to the server's own file,
 * and kept for its next start. */
static void
edit_permissions (Bridge     *bridge,
                  const char *widget_id,
                  JsonNode   *value)
{
  gboolean files = g_str_has_prefix (widget_id, "perm-fs-");
  Server *server = find_server (bridge, widget_id + (files ? strlen ("perm-fs-") : strlen ("perm-net-")));
  const ZotPermissions *now;
  const char *filesystem;
  gboolean network;
  g_autoptr(GError) error = NULL;
  ZotMcpServer *config;

  if (server == NULL || value == NULL || !JSON_NODE_HOLDS_VALUE (value) ||
      json_node_get_value_type (value) != (files ? G_TYPE_STRING : G_TYPE_BOOLEAN))
    return;
  now = server->config->permissions;
  filesystem = now != NULL ? zot_filesystem_access_to_string (now->filesystem) : NULL;
  network = now == NULL || now->network;
  if (files)
    filesystem = g_str_equal (json_node_get_string (value), UNCONFINED) ? NULL : json_node_get_string (value);
  else
    {
      network = json_node_get_boolean (value);
      /* An unconfined server keeps all its files when only its network changes. */
      if (filesystem == NULL)
        filesystem = zot_filesystem_access_to_string (ZOT_FILESYSTEM_HOST);
    }
  if (!zot_mcp_config_set_permissions (server->config->origin, server->name, filesystem, network, &error) ||
      (config = read_config (server->config->origin, server->name)) == NULL)
    {
      set_message (bridge, TRUE, error != NULL ? error->message : _("The server's entry could not be read again"));
      return;
    }
  /* The running server keeps its box (its client used it only to start);
   * the next start takes this one. */
  for (guint i = 0; i < bridge->configs->len; i++)
    {
      ZotMcpServer *kept = g_ptr_array_index (bridge->configs, i);

      if (kept == server->config)
        {
          ZotPermissions *old = kept->permissions;

          kept->permissions = g_steal_pointer (&config->permissions);
          g_clear_pointer (&old, zot_permissions_free);
        }
    }
  zot_mcp_server_free (config);
  {
    /* Translators: %s is a server's name */
    g_autofree char *done = g_strdup_printf (_("Saved the permissions of %s: they apply on its next start"),
                                             server->name);

    set_message (bridge, FALSE, done);
  }
}

static void
panel_event_cb (ZotExtExtension *ext,
                const char      *panel_id,
                const char      *widget_id,
                const char      *event,
                const char      *value_json,
                Bridge          *bridge)
{
  g_autoptr(JsonNode) value = json_from_string (value_json, NULL);
  const char *text = value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
                     json_node_get_value_type (value) == G_TYPE_STRING ? json_node_get_string (value) : NULL;
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  gboolean clear = FALSE;

  if (g_str_equal (widget_id, "servers") && g_str_equal (event, "button"))
    server_button (bridge, value_json);
  else if (g_str_equal (widget_id, "import") && g_str_equal (event, "clicked"))
    find_importable (bridge);
  else if (g_str_equal (widget_id, "import-list") && g_str_equal (event, "button"))
    import_server (bridge, value_json);
  else if (g_str_has_prefix (widget_id, "perm-fs-") || g_str_has_prefix (widget_id, "perm-net-"))
    edit_permissions (bridge, widget_id, value);
  else if (g_str_equal (widget_id, "add-name") && text != NULL)
    {
      g_free (bridge->add_name);
      bridge->add_name = g_strdup (text);
    }
  else if (g_str_equal (widget_id, "add-target") && text != NULL)
    {
      g_free (bridge->add_target);
      bridge->add_target = g_strdup (text);
    }
  if ((g_str_equal (widget_id, "add") && g_str_equal (event, "clicked")) ||
      (g_str_equal (widget_id, "add-target") && g_str_equal (event, "submit")))
    clear = add_server (bridge);
  if (clear)
    {
      g_clear_pointer (&bridge->add_name, g_free);
      g_clear_pointer (&bridge->add_target, g_free);
    }
  json = widgets_json (bridge, clear);
  if (!zot_ext_extension_render_panel_widgets (ext, PANEL_ID, _("MCP servers"), json, NULL, &error))
    g_printerr ("/mcp: %s\n", error->message);
}

static void
panel_close_cb (ZotExtExtension *ext,
                const char      *panel_id,
                Bridge          *bridge)
{
  bridge->panel_open = FALSE;
}

/**
 * _zot_mcp_panel_open:
 *
 * Answers /mcp with the panel, in a host that has panel widgets.
 */
gboolean
_zot_mcp_panel_open (Bridge                  *bridge,
                     ZotExtCommandInvocation *invocation)
{
  g_autofree char *json = widgets_json (bridge, FALSE);
  g_autoptr(GError) error = NULL;

  if (!bridge->panel_signals)
    {
      bridge->panel_signals = TRUE;
      g_signal_connect (bridge->ext, "panel-event::" PANEL_ID, G_CALLBACK (panel_event_cb), bridge);
      g_signal_connect (bridge->ext, "panel-close::" PANEL_ID, G_CALLBACK (panel_close_cb), bridge);
    }
  if (!zot_ext_command_invocation_return_open_panel_widgets (invocation, PANEL_ID, _("MCP servers"), json, NULL, &error))
    {
      zot_ext_command_invocation_return_error (invocation, error->message);
      return TRUE;
    }
  bridge->panel_open = TRUE;
  return TRUE;
}

void
_zot_mcp_panel_free (Bridge *bridge)
{
  g_free (bridge->add_name);
  g_free (bridge->add_target);
  g_free (bridge->panel_message);
  g_clear_pointer (&bridge->import_entries, json_object_unref);
  g_clear_pointer (&bridge->import_origins, g_ptr_array_unref);
  g_free (bridge->cwd);
  g_clear_pointer (&bridge->secrets, g_hash_table_unref);
}
