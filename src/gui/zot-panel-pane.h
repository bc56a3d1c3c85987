/* zot-panel-pane.h — the side pane's panels: one page per open panel. */
#pragma once

#include <gtk/gtk.h>

#include "zot-extension-manager.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PANEL_PANE (zot_panel_pane_get_type ())
G_DECLARE_FINAL_TYPE (ZotPanelPane, zot_panel_pane, ZOT, PANEL_PANE, GtkWidget)

GtkWidget           *zot_panel_pane_new          (void);
void                 zot_panel_pane_set_manager  (ZotPanelPane        *self,
                                                  ZotExtensionManager *manager);
ZotExtensionManager *zot_panel_pane_get_manager  (ZotPanelPane        *self);
guint                zot_panel_pane_get_n_panels (ZotPanelPane        *self);
gboolean             zot_panel_pane_show_panel   (ZotPanelPane        *self,
                                                  const char          *key);

G_END_DECLS
