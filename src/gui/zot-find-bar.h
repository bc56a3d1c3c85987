/* zot-find-bar.h — find in the conversation (Ctrl+F). */
#pragma once

#include <gtk/gtk.h>

#include "zot-transcript.h"

G_BEGIN_DECLS

#define ZOT_TYPE_FIND_BAR (zot_find_bar_get_type ())
G_DECLARE_FINAL_TYPE (ZotFindBar, zot_find_bar, ZOT, FIND_BAR, GtkWidget)

GtkWidget *zot_find_bar_new          (ZotTranscript *transcript);
void       zot_find_bar_open         (ZotFindBar    *self);
void       zot_find_bar_close        (ZotFindBar    *self);
void       zot_find_bar_set_text     (ZotFindBar    *self,
                                      const char    *text);
void       zot_find_bar_next         (ZotFindBar    *self);
void       zot_find_bar_previous     (ZotFindBar    *self);
guint      zot_find_bar_get_n_matches (ZotFindBar   *self);
guint      zot_find_bar_get_current  (ZotFindBar    *self);
const char *zot_find_bar_get_count_text (ZotFindBar *self);

G_END_DECLS
