/* zot-accessible.h — accessible names where GTK 4.8 cannot give them. */
#pragma once

#include <gtk/gtk.h>

#include "zot-transcript-item.h"

G_BEGIN_DECLS

void  zot_accessible_label_drop_down  (GtkDropDown *drop_down,
                                       const char  *label);
char *zot_accessible_strip_mnemonics  (const char  *text);
void  zot_accessible_set_label        (GtkWidget   *widget,
                                       const char  *label);
void  zot_accessible_fix_mnemonics    (GtkWidget   *root);
void  zot_accessible_fix_preferences  (GtkWidget   *root);
char *zot_accessible_message_name     (ZotTranscriptItem *item);
char *zot_accessible_code_block_name  (const char  *language);

G_END_DECLS
