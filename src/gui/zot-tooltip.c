/* zot-tooltip.c — tooltips that cost nothing until they are shown. */
#include "config.h"

#include "zot-tooltip.h"

static GQuark
tooltip_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("zot-tooltip");
  return quark;
}

static gboolean
on_query_tooltip_cb (GtkWidget  *widget,
                     int         x,
                     int         y,
                     gboolean    keyboard_mode,
                     GtkTooltip *tooltip,
                     gpointer    user_data)
{
  const char *text = zot_tooltip_get (widget);

  if (text == NULL)
    return FALSE;

  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/**
 * zot_tooltip_set:
 * @text: (nullable): the tooltip, or %NULL or "" for none
 *
 * Like gtk_widget_set_tooltip_text(), without asking the display where
 * the pointer is unless the tooltip may be showing now.
 */
void
zot_tooltip_set (GtkWidget  *widget,
                 const char *text)
{
  const char *old;

  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (text != NULL && *text == '\0')
    text = NULL;

  old = zot_tooltip_get (widget);
  if (g_strcmp0 (old, text) == 0)
    return;

  if (old == NULL && !g_signal_handler_find (widget, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, on_query_tooltip_cb, NULL))
    g_signal_connect (widget, "query-tooltip", G_CALLBACK (on_query_tooltip_cb), NULL);

  g_object_set_qdata_full (G_OBJECT (widget), tooltip_quark (), g_strdup (text), g_free);
  gtk_widget_set_has_tooltip (widget, text != NULL);
  if (text != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  else
    gtk_accessible_reset_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);

  /* Only a mapped widget can be under the pointer with its old tooltip
   * showing; a copy button saying "Copied" is one. */
  if (gtk_widget_get_mapped (widget))
    gtk_widget_trigger_tooltip_query (widget);
}

/**
 * zot_tooltip_get:
 *
 * Returns: (nullable): the tooltip zot_tooltip_set() gave @widget
 */
const char *
zot_tooltip_get (GtkWidget *widget)
{
  g_return_val_if_fail (GTK_IS_WIDGET (widget), NULL);

  return g_object_get_qdata (G_OBJECT (widget), tooltip_quark ());
}
