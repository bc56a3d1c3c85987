/* zot-mcp-panel.c — the /mcp panel, in native widgets (docs/mcp.md):
 * each server with its state, transport, what it offers and what last
 * went wrong, with Start, Stop and Restart; and a form that adds a
 * server to $ZOT_HOME/mcp.json as `zot mcp add` does, and starts it. */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-mcp-bridge.h"
#include "zot-mcp-edit.h"

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

  begin_widget (builder, "separator", "add-separator");
  json_builder_end_object (builder);
  begin_widget (builder, "heading", "add-heading");
  add_text (builder, "text", _("Add server"));
  json_builder_set_member_name (builder, "level");
  json_builder_add_int_value (builder, 3);
  json_builder_end_object (builder);
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

/* The form's server: written to the user's file, then started. */
static gboolean
add_server (Bridge *bridge)
{
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) configs = NULL;
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
  configs = zot_mcp_config_read (path, notes);
  for (guint i = 0; configs != NULL && i < configs->len; i++)
    {
      ZotMcpServer *config = g_ptr_array_index (configs, i);

      if (g_str_equal (config->name, server.name))
        {
          g_ptr_array_add (bridge->configs, g_ptr_array_steal_index (configs, i));
          _zot_mcp_start_server (bridge, config, bridge->cwd);
          break;
        }
    }
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
  g_free (bridge->cwd);
  g_clear_pointer (&bridge->secrets, g_hash_table_unref);
}
