/* zot-manager-frames.c — the frames an extension sends that are the
 * manager's to handle.
 *
 * ZotExtension handles the frames of its own life (hello, registrations,
 * replies to its requests, notes) and passes every other type to the
 * manager through ::unhandled-frame; the manager looks the type up here.
 * A type that is not in the table stays unhandled: ZotExtension logs it
 * with its type (rate-limited) and ignores it.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include "zot-extension-manager-private.h"

static const struct {
  const char             *type;
  ZotManagerFrameHandler  handle;
} frame_handlers[] = {
  { "panel_render",     _zot_manager_panel_render_frame },
  { "panel_close",      _zot_manager_panel_close_frame },
  { "open_panel",       _zot_manager_open_panel_frame },
  { "call_tool",        _zot_manager_call_tool_frame },
  { "call_tool_cancel", _zot_manager_call_tool_cancel_frame },
  { "submit",           _zot_manager_submit_frame },
  { "submit_slash",     _zot_manager_submit_slash_frame },
};

/**
 * _zot_manager_handle_frame:
 * @extension: who sent @frame
 * @frame: a frame that @extension did not handle itself
 *
 * Returns: %TRUE when the frame's type is the manager's, handled or
 *   refused; %FALSE when nobody here knows it
 */
gboolean
_zot_manager_handle_frame (ZotExtensionManager *self,
                           ZotExtension        *extension,
                           JsonObject          *frame)
{
  const char *type = json_object_get_string_member (frame, "type");

  for (guint i = 0; i < G_N_ELEMENTS (frame_handlers); i++)
    {
      if (g_str_equal (type, frame_handlers[i].type))
        {
          frame_handlers[i].handle (self, extension, frame);
          return TRUE;
        }
    }

  return FALSE;
}
