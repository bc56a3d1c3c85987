/* zot-find-text.h — where the find bar's text is in a string, in any
 * case, and its marks on the labels and text views that show it. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct
{
  gsize start;   /* bytes into the text */
  gsize end;
} ZotFindRange;

GArray *zot_find_text_ranges (const char *text,
                              const char *needle);
guint   zot_find_text_count  (const char *text,
                              const char *needle);
guint   zot_find_text_mark   (GtkWidget  *widget,
                              const char *needle,
                              int         current);

G_END_DECLS
