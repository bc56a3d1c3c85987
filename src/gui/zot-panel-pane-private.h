/* zot-panel-pane-private.h — for the tests. */
#pragma once

#include "zot-panel-pane.h"
#include "zot-panel-view.h"

G_BEGIN_DECLS

ZotPanelView *_zot_panel_pane_get_view   (ZotPanelPane *self,
                                          ZotPanel     *panel);
const char   *_zot_panel_pane_get_status (ZotPanelPane *self);

G_END_DECLS
