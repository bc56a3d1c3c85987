/* zot-gui-test-util.h — what the window's tests share: finding widgets. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Every widget under @root (not @root itself), depth first, of @type
 * (G_TYPE_NONE for any) carrying @css_class (NULL for any). */
GPtrArray *zot_test_find_widgets (GtkWidget  *root,
                                  GType       type,
                                  const char *css_class);

/* The first of them, @root itself included, or NULL. */
GtkWidget *zot_test_find_widget  (GtkWidget  *root,
                                  GType       type,
                                  const char *css_class);

G_END_DECLS
