/* zot-usage-label.c — the conversation's tokens, for the header bar.
 *
 * Follows ZotAgent:usage: the sums of the conversation's turns, short in
 * the bar ("12.3k tokens") and in full in the tooltip. Hidden until a
 * model reports any. None of the providers reports a price, so there is
 * no cost to show; the tooltip says the figures are the model's own.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-tooltip.h"
#include "zot-usage-label.h"

struct _ZotUsageLabel
{
  GtkWidget  parent_instance;

  GtkLabel  *label;
  ZotAgent  *agent;
};

G_DEFINE_FINAL_TYPE (ZotUsageLabel, zot_usage_label, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_AGENT,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

/**
 * zot_usage_format_count:
 *
 * Returns: (transfer full): @count short: "950", "12.3k", "4.1M"
 */
char *
zot_usage_format_count (gint64 count)
{
  count = MAX (count, 0);
  if (count < 1000)
    return g_strdup_printf ("%" G_GINT64_FORMAT, count);
  if (count < 1000000)
    return g_strdup_printf ("%.1fk", count / 1000.0);
  return g_strdup_printf ("%.1fM", count / 1000000.0);
}

static void
update (ZotUsageLabel *self)
{
  const ZotUsage *usage = self->agent != NULL ? zot_agent_get_usage (self->agent) : NULL;
  gint64 total;
  g_autofree char *total_text = NULL;
  g_autofree char *input_text = NULL;
  g_autofree char *output_text = NULL;
  g_autofree char *text = NULL;
  g_autofree char *tooltip = NULL;

  total = usage != NULL ? usage->total_input_tokens + usage->total_output_tokens : 0;
  gtk_widget_set_visible (GTK_WIDGET (self), total > 0);
  if (total <= 0)
    {
      gtk_label_set_text (self->label, "");
      return;
    }

  total_text = zot_usage_format_count (total);
  input_text = zot_usage_format_count (usage->total_input_tokens);
  output_text = zot_usage_format_count (usage->total_output_tokens);
  /* Translators: the conversation's tokens so far, e.g. "12.3k tokens" */
  text = g_strdup_printf (_("%s tokens"), total_text);
  /* Translators: the conversation's tokens read and written by the model */
  tooltip = g_strdup_printf (_("This conversation: %s tokens in, %s tokens out, as the model reported them"),
                             input_text, output_text);
  gtk_label_set_text (self->label, text);
  zot_tooltip_set (GTK_WIDGET (self), tooltip);
}

static void
zot_usage_label_dispose (GObject *object)
{
  ZotUsageLabel *self = ZOT_USAGE_LABEL (object);

  g_clear_object (&self->agent);
  if (self->label != NULL)
    gtk_widget_unparent (GTK_WIDGET (g_steal_pointer (&self->label)));

  G_OBJECT_CLASS (zot_usage_label_parent_class)->dispose (object);
}

static void
zot_usage_label_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  ZotUsageLabel *self = ZOT_USAGE_LABEL (object);

  switch (prop_id)
    {
    case PROP_AGENT:
      g_value_set_object (value, self->agent);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_usage_label_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  ZotUsageLabel *self = ZOT_USAGE_LABEL (object);

  switch (prop_id)
    {
    case PROP_AGENT:
      zot_usage_label_set_agent (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_usage_label_class_init (ZotUsageLabelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_usage_label_dispose;
  object_class->get_property = zot_usage_label_get_property;
  object_class->set_property = zot_usage_label_set_property;

  /**
   * ZotUsageLabel:agent:
   *
   * The agent whose token use and cost the label shows.
   */
  properties [PROP_AGENT] =
    g_param_spec_object ("agent", NULL, NULL, ZOT_TYPE_AGENT,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "zot-usage-label");
}

static void
zot_usage_label_init (ZotUsageLabel *self)
{
  self->label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->label), "numeric");
  gtk_widget_set_parent (GTK_WIDGET (self->label), GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
zot_usage_label_new (void)
{
  return g_object_new (ZOT_TYPE_USAGE_LABEL, NULL);
}

void
zot_usage_label_set_agent (ZotUsageLabel *self,
                           ZotAgent      *agent)
{
  g_return_if_fail (ZOT_IS_USAGE_LABEL (self));
  g_return_if_fail (agent == NULL || ZOT_IS_AGENT (agent));

  if (self->agent == agent)
    return;

  if (self->agent != NULL)
    g_signal_handlers_disconnect_by_func (self->agent, update, self);
  g_set_object (&self->agent, agent);
  if (agent != NULL)
    g_signal_connect_object (agent, "notify::usage", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_AGENT]);
}

const char *
zot_usage_label_get_text (ZotUsageLabel *self)
{
  g_return_val_if_fail (ZOT_IS_USAGE_LABEL (self), NULL);

  return gtk_label_get_text (self->label);
}
