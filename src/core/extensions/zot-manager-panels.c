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
