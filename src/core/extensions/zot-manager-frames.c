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
#include "zot-json.h"

/* Every call_tool request gets exactly one terminal result, even from a
 * host that does not offer the capability. */
static void
refuse_call_tool (ZotExtensionManager *self,
                  ZotExtension        *extension,
                  JsonObject          *frame)
{
  g_autoptr(JsonObject) reply = json_object_new ();
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) text = json_object_new ();
  const char *id = zot_json_get_string_or (frame, "id", NULL);
  const char *name = zot_json_get_string_or (frame, "name", "");

  if (id == NULL)
    {
      zot_extension_log (extension, "call_tool without an \"id\", ignored");
      return;
    }

  json_object_set_string_member (text, "type", "text");
  json_object_set_string_member (text, "text",
                                 "call_tool is refused: this host did not advertise call_tool in hello_ack");
  json_array_add_object_element (content, g_steal_pointer (&text));
  json_object_set_string_member (reply, "type", "tool_result");
  json_object_set_string_member (reply, "id", id);
  json_object_set_string_member (reply, "name", name);
  json_object_set_array_member (reply, "content", g_steal_pointer (&content));
  json_object_set_boolean_member (reply, "is_error", TRUE);
  zot_extension_log (extension, "call_tool \"%s\" refused: not advertised by this host", name);
  zot_extension_notify (extension, reply, NULL);
}

static const struct {
  const char             *type;
  ZotManagerFrameHandler  handle;
} frame_handlers[] = {
  { "panel_render", _zot_manager_panel_render_frame },
  { "panel_close",  _zot_manager_panel_close_frame },
  { "call_tool",    refuse_call_tool },
  { "submit",       _zot_manager_submit_frame },
  { "submit_slash", _zot_manager_submit_slash_frame },
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
