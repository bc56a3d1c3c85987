/* zot-context-gauge.c — how full the model's context window is.
 *
 * A small level bar of the tokens the conversation fills now (the last
 * model call's prompt and answer, never a sum over turns) against the
 * model's context window, with "42.0k / 200.0k" in its tooltip and
 * accessible description. Past ZOT_CONTEXT_WARNING_PERCENT it takes the
 * warning colour: the conversation will soon be compacted or refused.
 * A model whose window is unknown (the demo, a model models.json does
 * not list) shows the count alone, as a number, without a bar.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-context-gauge.h"
#include "zot-limits.h"
#include "zot-tooltip.h"
#include "zot-usage-label.h"

struct _ZotContextGauge
{
  GtkWidget    parent_instance;

  GtkLevelBar *bar;
  GtkLabel    *count;
  gint64       tokens;
  guint64      window;
  char        *description;
};

G_DEFINE_FINAL_TYPE (ZotContextGauge, zot_context_gauge, GTK_TYPE_WIDGET)

static void
update (ZotContextGauge *self)
{
  g_autofree char *used = zot_usage_format_count (self->tokens);
  double fraction = self->window > 0 ? MIN ((double) self->tokens / (double) self->window, 1.0) : 0.0;
  gboolean warning = self->window > 0 &&
                     (guint64) MAX (self->tokens, 0) * 100 >= self->window * ZOT_CONTEXT_WARNING_PERCENT;

  g_clear_pointer (&self->description, g_free);
  if (self->window > 0)
    {
      g_autofree char *window = zot_usage_format_count ((gint64) self->window);

      /* Translators: tokens the conversation fills of the model's context
       * window, e.g. "42.0k / 200.0k tokens in context (21 %)" */
      self->description = g_strdup_printf (_("%s / %s tokens in context (%d %%)"), used, window,
                                           (int) (fraction * 100.0 + 0.5));
    }
  else
    /* Translators: tokens the conversation fills of a model's context window
     * whose size is unknown, e.g. "42.0k tokens in context" */
    self->description = g_strdup_printf (_("%s tokens in context"), used);

  gtk_level_bar_set_value (self->bar, fraction);
  gtk_widget_set_visible (GTK_WIDGET (self->bar), self->window > 0);
  gtk_label_set_text (self->count, used);
  gtk_widget_set_visible (GTK_WIDGET (self->count), self->window == 0);
  if (warning)
    gtk_widget_add_css_class (GTK_WIDGET (self), "warning");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "warning");

  zot_tooltip_set (GTK_WIDGET (self), self->description);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  self->description, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->bar), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  self->description, -1);
}

static void
zot_context_gauge_dispose (GObject *object)
{
  ZotContextGauge *self = ZOT_CONTEXT_GAUGE (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  self->bar = NULL;
  self->count = NULL;

  G_OBJECT_CLASS (zot_context_gauge_parent_class)->dispose (object);
}

static void
zot_context_gauge_finalize (GObject *object)
{
  ZotContextGauge *self = ZOT_CONTEXT_GAUGE (object);

  g_free (self->description);

  G_OBJECT_CLASS (zot_context_gauge_parent_class)->finalize (object);
}

static void
zot_context_gauge_class_init (ZotContextGaugeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_context_gauge_dispose;
  object_class->finalize = zot_context_gauge_finalize;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "zot-context-gauge");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
zot_context_gauge_init (ZotContextGauge *self)
{
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self))), 6);
  self->bar = GTK_LEVEL_BAR (gtk_level_bar_new_for_interval (0.0, 1.0));
  /* The stock offsets colour a low level as a warning (a battery): here
   * a high one is. */
  gtk_level_bar_remove_offset_value (self->bar, GTK_LEVEL_BAR_OFFSET_LOW);
  gtk_level_bar_remove_offset_value (self->bar, GTK_LEVEL_BAR_OFFSET_HIGH);
  gtk_level_bar_remove_offset_value (self->bar, GTK_LEVEL_BAR_OFFSET_FULL);
  gtk_widget_set_size_request (GTK_WIDGET (self->bar), 36, -1);
  gtk_widget_set_valign (GTK_WIDGET (self->bar), GTK_ALIGN_CENTER);
  gtk_widget_set_parent (GTK_WIDGET (self->bar), GTK_WIDGET (self));

  self->count = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->count), "numeric");
  gtk_widget_set_parent (GTK_WIDGET (self->count), GTK_WIDGET (self));

  update (self);
}

GtkWidget *
zot_context_gauge_new (void)
{
  return g_object_new (ZOT_TYPE_CONTEXT_GAUGE, NULL);
}

/**
 * zot_context_gauge_set:
 * @tokens: what the conversation fills now
 * @window: the model's context window, 0 when unknown
 */
void
zot_context_gauge_set (ZotContextGauge *self,
                       gint64           tokens,
                       guint64          window)
{
  g_return_if_fail (ZOT_IS_CONTEXT_GAUGE (self));

  tokens = MAX (tokens, 0);
  if (self->tokens == tokens && self->window == window)
    return;

  self->tokens = tokens;
  self->window = window;
  update (self);
}

gint64
zot_context_gauge_get_tokens (ZotContextGauge *self)
{
  g_return_val_if_fail (ZOT_IS_CONTEXT_GAUGE (self), 0);
  return self->tokens;
}

guint64
zot_context_gauge_get_window (ZotContextGauge *self)
{
  g_return_val_if_fail (ZOT_IS_CONTEXT_GAUGE (self), 0);
  return self->window;
}

/**
 * zot_context_gauge_get_fraction:
 *
 * Returns: the bar's level, 0 to 1; 0 without a known window
 */
double
zot_context_gauge_get_fraction (ZotContextGauge *self)
{
  g_return_val_if_fail (ZOT_IS_CONTEXT_GAUGE (self), 0.0);
  return gtk_level_bar_get_value (self->bar);
}

gboolean
zot_context_gauge_get_warning (ZotContextGauge *self)
{
  g_return_val_if_fail (ZOT_IS_CONTEXT_GAUGE (self), FALSE);
  return gtk_widget_has_css_class (GTK_WIDGET (self), "warning");
}

/**
 * zot_context_gauge_get_description:
 *
 * Returns: the tooltip and accessible description
 */
const char *
zot_context_gauge_get_description (ZotContextGauge *self)
{
  g_return_val_if_fail (ZOT_IS_CONTEXT_GAUGE (self), NULL);
  return self->description;
}

/**
 * zot_context_gauge_get_label:
 *
 * Returns: the count shown instead of the bar, or %NULL while the bar is
 *   shown
 */
const char *
zot_context_gauge_get_label (ZotContextGauge *self)
{
  g_return_val_if_fail (ZOT_IS_CONTEXT_GAUGE (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->count)) ? gtk_label_get_text (self->count) : NULL;
}
