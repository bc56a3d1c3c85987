/* zot-panel-view-private.h — for the window and the tests. */
#pragma once

#include "zot-panel-view.h"
#include "zot-panel-widgets-view.h"

G_BEGIN_DECLS

gboolean   _zot_panel_view_handle_key       (ZotPanelView    *self,
                                             guint            keyval,
                                             GdkModifierType  state);
ZotPanelWidgetsView *_zot_panel_view_get_widgets (ZotPanelView *self);
GtkLabel  *_zot_panel_view_get_body         (ZotPanelView    *self);
GtkWidget *_zot_panel_view_get_close_button (ZotPanelView    *self);
void       _zot_panel_view_get_cells        (ZotPanelView    *self,
                                             guint           *columns,
                                             guint           *rows);

G_END_DECLS
