/* zot-usage-label.c — the conversation's context and cost, for the header
 * bar.
 *
 * Follows ZotAgent:usage. The bar shows how full the model's context
 * window is (zot-context-gauge.c: what the conversation fills now, not a
 * sum of every turn's input, which grows with each turn and means little)
 * and what the conversation cost ("$0.04") when the prices are known. The
 * popover breaks the sums of the conversation's turns down: input,
 * output, cache reads and writes, each in tokens and dollars. The total
 * is what each turn cost at its model's prices; the lines are priced at
 * the current model's, which is the same unless the model changed. A
 * model without known prices shows tokens only, and the popover says
 * where prices go. Hidden until a model reports any tokens.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-context-gauge.h"
#include "zot-model-facts.h"
#include "zot-tooltip.h"
#include "zot-usage-label.h"

struct _ZotUsageLabel
{
  GtkWidget      parent_instance;

  GtkMenuButton *button;
  ZotContextGauge *gauge;
  GtkLabel      *label;
  GtkGrid       *grid;
  GtkLabel      *note;
  ZotAgent      *agent;
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

/**
 * zot_usage_format_cost:
 *
 * Returns: (transfer full): US dollars, to the cent, or to a hundredth of
 *   a cent below one: "$1.24", "$0.0031", "$0.00"
 */
char *
zot_usage_format_cost (double usd)
{
  usd = MAX (usd, 0.0);
  if (usd > 0.0 && usd < 0.01)
    return g_strdup_printf ("$%.4f", usd);
  return g_strdup_printf ("$%.2f", usd);
}

static void
add_cell (ZotUsageLabel *self,
          const char    *text,
          int            column,
          int            row,
          gboolean       heading)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), column == 0 ? 0.0 : 1.0);
  gtk_widget_add_css_class (label, heading ? "heading" : "numeric");
  gtk_grid_attach (self->grid, label, column, row, 1, 1);
}

static void
add_line (ZotUsageLabel      *self,
          int                 row,
          const char         *name,
          gint64              tokens,
          double              price,
          const ZotModelInfo *model)
{
  g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, MAX (tokens, 0));
  g_autofree char *cost = model != NULL && model->priced ? zot_usage_format_cost (MAX (tokens, 0) * price / 1e6)
                                                         : g_strdup ("—");

  add_cell (self, name, 0, row, FALSE);
  add_cell (self, count, 1, row, FALSE);
  add_cell (self, cost, 2, row, FALSE);
}

static char *
describe_prices (const ZotUsage     *usage,
                 const ZotModelInfo *model,
                 const char         *model_id)
{
  g_autofree char *file = zot_model_facts_get_user_file ();

  if (model == NULL || !model->priced)
    /* Translators: the first %s is a model id, the second a file name */
    return g_strdup_printf (_("No prices are known for %s, so only tokens are counted. "
                              "Its prices can be added to %s."), model_id, file);
  if (!usage->total_cost_known)
    return g_strdup (_("Some turns used a model without known prices: the total leaves them out."));
  if (model->prices_date != NULL)
    /* Translators: the first %s is a model id, the second a date such as "2025-11" */
    return g_strdup_printf (_("Prices of %s as published in %s, per million tokens."), model->id,
                            model->prices_date);
  /* Translators: %s is a model id */
  return g_strdup_printf (_("Prices of %s, per million tokens."), model->id);
}

static void
update_breakdown (ZotUsageLabel  *self,
                  const ZotUsage *usage)
{
  ZotProvider *provider = zot_agent_get_provider (self->agent);
  const char *model_id = zot_provider_get_model (provider);
  const ZotModelInfo *model = zot_model_info_lookup (zot_provider_get_name (provider), model_id);
  gint64 total = usage->total_input_tokens + usage->total_output_tokens + usage->total_cache_read_tokens +
                 usage->total_cache_write_tokens;
  g_autofree char *total_text = g_strdup_printf ("%" G_GINT64_FORMAT, total);
  g_autofree char *total_cost = usage->total_cost_known ? zot_usage_format_cost (usage->total_cost_usd)
                                                        : g_strdup ("—");
  g_autofree char *note = describe_prices (usage, model, model_id);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))) != NULL)
    gtk_grid_remove (self->grid, child);

  /* Translators: column headings of the conversation's token use */
  add_cell (self, _("Tokens"), 1, 0, TRUE);
  add_cell (self, _("Cost"), 2, 0, TRUE);
  add_line (self, 1, _("Input"), usage->total_input_tokens, model ? model->input_price : 0, model);
  add_line (self, 2, _("Output"), usage->total_output_tokens, model ? model->output_price : 0, model);
  /* Translators: input tokens the model read from its prompt cache */
  add_line (self, 3, _("Cache read"), usage->total_cache_read_tokens, model ? model->cache_read_price : 0, model);
  /* Translators: input tokens the model wrote to its prompt cache */
  add_line (self, 4, _("Cache write"), usage->total_cache_write_tokens, model ? model->cache_write_price : 0,
            model);
  add_cell (self, _("Total"), 0, 5, TRUE);
  add_cell (self, total_text, 1, 5, TRUE);
  add_cell (self, total_cost, 2, 5, TRUE);
  gtk_label_set_text (self->note, note);
}

static void
update_gauge (ZotUsageLabel *self)
{
  ZotProvider *provider = zot_agent_get_provider (self->agent);
  const ZotModelInfo *model = zot_model_info_lookup (zot_provider_get_name (provider),
                                                     zot_provider_get_model (provider));

  zot_context_gauge_set (self->gauge, zot_agent_get_context_tokens (self->agent),
                         model != NULL ? model->context_window : 0);
}

static void
update (ZotUsageLabel *self)
{
  const ZotUsage *usage = self->agent != NULL ? zot_agent_get_usage (self->agent) : NULL;
  gint64 total;

  total = usage != NULL ? usage->total_input_tokens + usage->total_output_tokens +
                          usage->total_cache_read_tokens + usage->total_cache_write_tokens : 0;
  gtk_widget_set_visible (GTK_WIDGET (self), total > 0);
  if (total <= 0)
    {
      gtk_label_set_text (self->label, "");
      return;
    }

  update_gauge (self);
  if (usage->total_cost_known)
    {
      g_autofree char *cost = zot_usage_format_cost (usage->total_cost_usd);

      gtk_label_set_text (self->label, cost);
    }
  else
    gtk_label_set_text (self->label, "");
  gtk_widget_set_visible (GTK_WIDGET (self->label), usage->total_cost_known);
  update_breakdown (self, usage);
}

static void
zot_usage_label_dispose (GObject *object)
{
  ZotUsageLabel *self = ZOT_USAGE_LABEL (object);

  g_clear_object (&self->agent);
  if (self->button != NULL)
    gtk_widget_unparent (GTK_WIDGET (g_steal_pointer (&self->button)));

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
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);

  GtkWidget *shown = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);

  self->gauge = ZOT_CONTEXT_GAUGE (zot_context_gauge_new ());
  gtk_box_append (GTK_BOX (shown), GTK_WIDGET (self->gauge));
  self->label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->label), "numeric");
  gtk_box_append (GTK_BOX (shown), GTK_WIDGET (self->label));

  self->grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_row_spacing (self->grid, 6);
  gtk_grid_set_column_spacing (self->grid, 18);
  self->note = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->note, TRUE);
  gtk_label_set_max_width_chars (self->note, 36);
  gtk_label_set_xalign (self->note, 0.0);
  gtk_widget_add_css_class (GTK_WIDGET (self->note), "caption");
  gtk_widget_add_css_class (GTK_WIDGET (self->note), "dim-label");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->grid));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->note));
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_popover_set_child (GTK_POPOVER (popover), box);

  self->button = GTK_MENU_BUTTON (gtk_menu_button_new ());
  gtk_menu_button_set_child (self->button, shown);
  gtk_menu_button_set_popover (self->button, popover);
  gtk_widget_add_css_class (GTK_WIDGET (self->button), "flat");
  /* Translators: the tooltip of the header's token count, which opens the breakdown */
  zot_tooltip_set (GTK_WIDGET (self->button), _("Tokens and cost of this conversation"));
  /* Translators: the name screen readers give the header's token count, which opens the breakdown */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Usage"), -1);
  gtk_widget_set_parent (GTK_WIDGET (self->button), GTK_WIDGET (self));
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
    {
      g_signal_connect_object (agent, "notify::usage", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
      /* A compaction empties the context without a turn. */
      g_signal_connect_object (agent, "compaction-end", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
    }
  update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_AGENT]);
}

/**
 * zot_usage_label_refresh:
 *
 * Shows the agent's figures again: its model changed, and with it the
 * context window and the prices.
 */
void
zot_usage_label_refresh (ZotUsageLabel *self)
{
  g_return_if_fail (ZOT_IS_USAGE_LABEL (self));

  update (self);
}

/**
 * zot_usage_label_get_gauge:
 *
 * Returns: (transfer none): the context gauge in the bar
 */
ZotContextGauge *
zot_usage_label_get_gauge (ZotUsageLabel *self)
{
  g_return_val_if_fail (ZOT_IS_USAGE_LABEL (self), NULL);

  return self->gauge;
}

/**
 * zot_usage_label_get_text:
 *
 * Returns: the cost shown in the bar, "" when the prices are unknown
 */
const char *
zot_usage_label_get_text (ZotUsageLabel *self)
{
  g_return_val_if_fail (ZOT_IS_USAGE_LABEL (self), NULL);

  return gtk_label_get_text (self->label);
}

/**
 * zot_usage_label_get_button:
 *
 * Returns: (transfer none): the button that opens the breakdown
 */
GtkMenuButton *
zot_usage_label_get_button (ZotUsageLabel *self)
{
  g_return_val_if_fail (ZOT_IS_USAGE_LABEL (self), NULL);

  return self->button;
}

/**
 * zot_usage_label_get_breakdown:
 *
 * Returns: (transfer full): the popover's table, a line per row and its
 *   cells separated by tabs, then its note
 */
char *
zot_usage_label_get_breakdown (ZotUsageLabel *self)
{
  GString *text = g_string_new (NULL);

  g_return_val_if_fail (ZOT_IS_USAGE_LABEL (self), NULL);

  for (int row = 0; row <= 5; row++)
    {
      for (int column = 0; column <= 2; column++)
        {
          GtkWidget *cell = gtk_grid_get_child_at (self->grid, column, row);

          if (column > 0)
            g_string_append_c (text, '\t');
          if (cell != NULL)
            g_string_append (text, gtk_label_get_text (GTK_LABEL (cell)));
        }
      g_string_append_c (text, '\n');
    }
  g_string_append (text, gtk_label_get_text (self->note));
  return g_string_free (text, FALSE);
}
