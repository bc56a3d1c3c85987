/* zot-gui-test-util.c — what the window's tests share: finding widgets,
 * measuring them. */
#include "config.h"

#include "zot-gui-test-util.h"

static gboolean
matches (GtkWidget  *widget,
         GType       type,
         const char *css_class)
{
  return (type == G_TYPE_NONE || G_TYPE_CHECK_INSTANCE_TYPE (widget, type)) &&
         (css_class == NULL || gtk_widget_has_css_class (widget, css_class));
}

static void
collect_widgets (GtkWidget  *widget,
                 GType       type,
                 const char *css_class,
                 GPtrArray  *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (matches (child, type, css_class))
        g_ptr_array_add (out, child);
      collect_widgets (child, type, css_class, out);
    }
}

GPtrArray *
zot_test_find_widgets (GtkWidget  *root,
                       GType       type,
                       const char *css_class)
{
  GPtrArray *out = g_ptr_array_new ();

  collect_widgets (root, type, css_class, out);
  return out;
}

GtkWidget *
zot_test_find_widget (GtkWidget  *root,
                      GType       type,
                      const char *css_class)
{
  if (matches (root, type, css_class))
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = zot_test_find_widget (child, type, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

void
zot_test_measure_narrowest (GtkWidget *widget)
{
  int min_width;
  int min_height;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  gtk_widget_measure (widget, GTK_ORIENTATION_VERTICAL, min_width, &min_height, NULL, NULL, NULL);
  g_assert_cmpint (min_height, >=, 0);
}
