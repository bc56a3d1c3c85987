/* zot-manager-panels.c — the panels extensions have open (PROTOCOL.md §10).
 *
 * A panel belongs to one extension and is found by its id within it; it is
 * closed from either side, and when its extension stops.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include "zot-extension-manager-private.h"
#include "zot-json.h"

ZotPanel *
_zot_manager_find_panel (ZotExtensionManager *self,
                         ZotExtension        *extension,
                         const char          *id)
{
  for (guint i = 0; i < self->panels->len; i++)
    {
      ZotPanel *panel = g_ptr_array_index (self->panels, i);

      if (g_strcmp0 (zot_panel_get_id (panel), id) == 0 &&
          g_strcmp0 (zot_panel_get_extension_name (panel), zot_extension_get_name (extension)) == 0)
        return panel;
    }
  return NULL;
}

static void
on_panel_closed (ZotPanel            *panel,
                 const char          *reason,
                 ZotExtensionManager *self)
{
  G_GNUC_UNUSED g_autoptr(ZotPanel) hold = g_object_ref (panel);
  g_autoptr(ZotExtension) extension = zot_panel_dup_extension (panel);

  g_signal_handlers_disconnect_by_data (panel, self);
  g_ptr_array_remove (self->panels, panel);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_PANEL_CLOSED], 0, extension, panel);
}

/* Opens the panel @description describes, or updates it when @extension
 * has one by that id open already; returns it (transfer none). */
ZotPanel *
_zot_manager_open_panel (ZotExtensionManager *self,
                         ZotExtension        *extension,
                         JsonObject          *description)
{
  const char *id = zot_json_get_string_or (description, "id", "panel");
  ZotPanel *panel = _zot_manager_find_panel (self, extension, id);

  if (panel != NULL)
    {
      _zot_panel_adopt (panel, extension);
      zot_panel_update (panel, description);
      g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_PANEL_UPDATED], 0, extension, panel);
      return panel;
    }

  panel = zot_panel_new (extension, description);
  g_ptr_array_add (self->panels, panel);
  g_signal_connect (panel, "closed", G_CALLBACK (on_panel_closed), self);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_PANEL_OPENED], 0, extension, panel);
  return panel;
}

/* The interactive tool call of @extension that waits for the user: the one
 * @description names in `tool_call_id`, else the newest one running. */
static const char *
waiting_tool_id (ZotExtension *extension,
                 JsonObject   *description)
{
  const char *named = zot_json_get_string_or (description, "tool_call_id", NULL);
  g_auto(GStrv) ids = NULL;
  GPtrArray *tools;

  if (!zot_extension_has_invocations (extension))
    return NULL;

  ids = zot_extension_dup_invocation_ids (extension);
  tools = zot_extension_get_tools (extension);
  for (guint i = g_strv_length (ids); i > 0; i--)
    {
      ZotToolInvocation *invocation = zot_extension_lookup_invocation (extension, ids[i - 1]);
      const char *name = zot_tool_invocation_get_name (invocation);

      if (named != NULL && !g_str_equal (named, ids[i - 1]))
        continue;

      for (guint j = 0; tools != NULL && j < tools->len; j++)
        {
          ZotTool *tool = g_ptr_array_index (tools, j);

          if (zot_tool_get_interactive (tool) && g_strcmp0 (zot_tool_get_name (tool), name) == 0)
            return zot_tool_invocation_get_tool_id (invocation);
        }
    }
  return NULL;
}

/* Links @panel to the interactive call waiting for the user, if any. */
static void
link_waiting_call (ZotExtensionManager *self,
                   ZotExtension        *extension,
                   ZotPanel            *panel,
                   JsonObject          *description)
{
  const char *tool_id = waiting_tool_id (extension, description);

  if (tool_id == NULL || g_strcmp0 (tool_id, zot_panel_get_waiting_tool_id (panel)) == 0)
    return;

  _zot_panel_set_waiting_tool_id (panel, tool_id);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_PANEL_WAITING], 0,
                 extension, panel, tool_id);
}

/* `open_panel` sent on its own (PROTOCOL.md §5a): a tool handler or a timer
 * opens or updates a panel. Only the window has panels. */
void
_zot_manager_open_panel_frame (ZotExtensionManager *self,
                               ZotExtension        *extension,
                               JsonObject          *frame)
{
  JsonObject *description = zot_json_get_object (frame, "panel");
  ZotPanel *panel;

  if (!self->interactive)
    {
      zot_extension_log (extension, "open_panel ignored: this host has no window "
                         "(print, JSON or RPC mode); check for \"panels\" in hello_ack");
      return;
    }

  if (description == NULL)
    {
      zot_extension_log (extension, "open_panel without a \"panel\" object, ignored; send "
                         "{\"type\":\"open_panel\",\"panel\":{\"id\",\"title\",\"lines\"}}");
      return;
    }

  panel = _zot_manager_open_panel (self, extension, description);
  link_waiting_call (self, extension, panel, description);
}

void
_zot_manager_close_panels_of (ZotExtensionManager *self,
                              ZotExtension        *extension,
                              const char          *reason)
{
  for (guint i = self->panels->len; i > 0; i--)
    {
      ZotPanel *panel = g_ptr_array_index (self->panels, i - 1);

      if (i - 1 < self->panels->len &&
          g_strcmp0 (zot_panel_get_extension_name (panel), zot_extension_get_name (extension)) == 0)
        _zot_panel_closed_by_extension (panel, reason);
    }
}

/* @extension is being reloaded in watch mode: its panels stay, marked,
 * for the new process to take over by id. */
void
_zot_manager_mark_panels_reloaded (ZotExtensionManager *self,
                                   ZotExtension        *extension)
{
  for (guint i = 0; i < self->panels->len; i++)
    {
      ZotPanel *panel = g_ptr_array_index (self->panels, i);

      if (g_strcmp0 (zot_panel_get_extension_name (panel), zot_extension_get_name (extension)) == 0)
        _zot_panel_mark_reloaded (panel);
    }
}

/**
 * zot_extension_manager_list_panels:
 *
 * Returns: (transfer none) (element-type ZotPanel): the open panels
 */
GPtrArray *
zot_extension_manager_list_panels (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);
  return self->panels;
}

/* The panel a panel_render or panel_close frame names, or NULL when
 * @extension has none by that id, which the extension's log is told. */
static ZotPanel *
frame_panel (ZotExtensionManager *self,
             ZotExtension        *extension,
             JsonObject          *frame)
{
  const char *id = zot_json_get_string_or (frame, "panel_id", NULL);
  ZotPanel *panel = id ? _zot_manager_find_panel (self, extension, id) : NULL;

  if (panel == NULL)
    zot_extension_log (extension, "%s for unknown panel \"%s\", ignored",
                       json_object_get_string_member (frame, "type"), id ? id : "(none)");
  return panel;
}

void
_zot_manager_panel_render_frame (ZotExtensionManager *self,
                                 ZotExtension        *extension,
                                 JsonObject          *frame)
{
  ZotPanel *panel = frame_panel (self, extension, frame);

  if (panel == NULL)
    return;

  _zot_panel_adopt (panel, extension);
  zot_panel_update (panel, frame);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_PANEL_UPDATED], 0, extension, panel);
}

void
_zot_manager_panel_close_frame (ZotExtensionManager *self,
                                ZotExtension        *extension,
                                JsonObject          *frame)
{
  ZotPanel *panel = frame_panel (self, extension, frame);

  if (panel != NULL)
    _zot_panel_closed_by_extension (panel, NULL);
}
