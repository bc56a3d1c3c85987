/* zot-notes-view.h — the extensions' status notes, grouped per extension. */
#pragma once

#include <gtk/gtk.h>

#include "zot-extension-manager.h"

G_BEGIN_DECLS

#define ZOT_TYPE_NOTES_VIEW (zot_notes_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotNotesView, zot_notes_view, ZOT, NOTES_VIEW, GtkWidget)

GtkWidget           *zot_notes_view_new         (void);
void                 zot_notes_view_set_manager (ZotNotesView        *self,
                                                 ZotExtensionManager *manager);
ZotExtensionManager *zot_notes_view_get_manager (ZotNotesView        *self);
guint                zot_notes_view_get_n_notes (ZotNotesView        *self);

G_END_DECLS
