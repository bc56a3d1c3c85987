/* zot-accessible.c — accessible names where GTK 4.8 cannot give them.
 *
 * GTK 4.8's drop-down takes the keyboard focus in an inner toggle button
 * that has no name of its own, so a screen reader announces "button" on
 * Tab however the drop-down is labelled; the name goes on both.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include "zot-accessible.h"

/**
 * zot_accessible_label_drop_down:
 * @label: (nullable): the name; %NULL takes it away
 */
void
zot_accessible_label_drop_down (GtkDropDown *drop_down,
                                const char  *label)
{
  GtkWidget *targets[2];

  g_return_if_fail (GTK_IS_DROP_DOWN (drop_down));

  targets[0] = GTK_WIDGET (drop_down);
  targets[1] = gtk_widget_get_first_child (GTK_WIDGET (drop_down));
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      if (targets[i] == NULL)
        continue;
      if (label != NULL)
        gtk_accessible_update_property (GTK_ACCESSIBLE (targets[i]), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      else
        gtk_accessible_reset_property (GTK_ACCESSIBLE (targets[i]), GTK_ACCESSIBLE_PROPERTY_LABEL);
    }
}
