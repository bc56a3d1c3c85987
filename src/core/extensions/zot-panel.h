/* zot-panel.h — one extension-owned panel (PROTOCOL.md §10).
 *
 * The core keeps its content and sends what the user does back to the
 * extension; the window shows it. Its content is lines, which may carry
 * ANSI SGR escapes (the view turns them into attributes, zot-ansi.h,
 * never showing the bytes), or a validated tree of native widgets
 * (zot-panel-widgets.h) when the extension sent `widgets`.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "zot-panel-widgets.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PANEL (zot_panel_get_type ())
G_DECLARE_FINAL_TYPE (ZotPanel, zot_panel, ZOT, PANEL, GObject)

typedef struct _ZotExtension ZotExtension;

ZotPanel           *zot_panel_new            (ZotExtension *extension,
                                              JsonObject   *description);
const char         *zot_panel_get_id         (ZotPanel     *self);
const char         *zot_panel_get_title      (ZotPanel     *self);
const char * const *zot_panel_get_lines      (ZotPanel     *self);
const char         *zot_panel_get_footer     (ZotPanel     *self);
ZotPanelNode       *zot_panel_get_widgets    (ZotPanel     *self);
const char         *zot_panel_get_key        (ZotPanel     *self);
const char         *zot_panel_get_waiting_tool_id (ZotPanel *self);
void                _zot_panel_set_waiting_tool_id (ZotPanel   *self,
                                                    const char *tool_id);
ZotExtension       *zot_panel_dup_extension  (ZotPanel     *self);
const char         *zot_panel_get_extension_name (ZotPanel *self);
gboolean            zot_panel_is_open        (ZotPanel     *self);
gboolean            zot_panel_get_reloaded   (ZotPanel     *self);
void                _zot_panel_mark_reloaded (ZotPanel     *self);
void                _zot_panel_adopt         (ZotPanel     *self,
                                              ZotExtension *extension);

void                zot_panel_update         (ZotPanel     *self,
                                              JsonObject   *description);
gboolean            zot_panel_send_key       (ZotPanel     *self,
                                              const char   *key,
                                              const char   *text);
gboolean            zot_panel_send_event     (ZotPanel     *self,
                                              const char   *widget_id,
                                              const char   *event,
                                              JsonNode     *value);
gboolean            zot_panel_resize         (ZotPanel     *self,
                                              guint         columns,
                                              guint         rows);
void                zot_panel_close          (ZotPanel     *self);
void                _zot_panel_closed_by_extension (ZotPanel *self,
                                                    const char *reason);

gboolean            zot_panel_key_is_valid   (const char   *key);

G_END_DECLS
