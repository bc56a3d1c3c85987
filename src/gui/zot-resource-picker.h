/* zot-resource-picker.h — "Attach resource…" beside the prompt: the
 * resources of the MCP servers (the bridge's mcp_resources tool), a
 * search over them, and the chosen one's contents attached to the next
 * message (docs/mcp.md). */
#pragma once

#include <gtk/gtk.h>

#include "zot-prompt-editor.h"

G_BEGIN_DECLS

#define ZOT_TYPE_RESOURCE_PICKER (zot_resource_picker_get_type ())
G_DECLARE_FINAL_TYPE (ZotResourcePicker, zot_resource_picker, ZOT, RESOURCE_PICKER, GtkWidget)

/* The picker for @editor's host, shown while a server offers resources. */
GtkWidget      *zot_resource_picker_new          (ZotPromptEditor   *editor);
/* Opens the list and asks the servers for their resources. */
void            zot_resource_picker_popup        (ZotResourcePicker *self);

/* For the tests. */
GtkEditable    *_zot_resource_picker_get_search  (ZotResourcePicker *self);
GtkListBox     *_zot_resource_picker_get_list    (ZotResourcePicker *self);
const char     *_zot_resource_picker_get_status  (ZotResourcePicker *self);
/* Whether a listing or a read is under way. */
gboolean        _zot_resource_picker_is_busy     (ZotResourcePicker *self);

G_END_DECLS
