/* zot-inspector-event-row.c — one lifecycle event in the inspector.
 *
 * The time, the sequence number and the event's name on one line, with a
 * Copy button; unfolded, the frame pretty-printed. A list item's row is
 * recycled for other events: setting :entry shows the new one folded.
 */
#define G_LOG_DOMAIN "zot-inspector"

#include "config.h"

#include "zot-inspector-event-row.h"
#include "zot-wrap-safe-gtk.h"

struct _ZotInspectorEventRow
{
  GtkWidget          parent_instance;

  ZotInspectorEntry *entry;

  /* Template widgets */
  GtkExpander       *expander;
  GtkLabel          *time_label;
  GtkLabel          *sequence_label;
  GtkLabel          *name_label;
  GtkLabel          *payload_label;
};

enum {
  PROP_0,
  PROP_ENTRY,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotInspectorEventRow, zot_inspector_event_row, GTK_TYPE_WIDGET)

static void
on_expander_expanded_cb (ZotInspectorEventRow *self,
                         GParamSpec           *pspec,
                         GtkExpander          *expander)
{
  /* Pretty-printed only when someone looks. */
  if (gtk_expander_get_expanded (expander) && self->entry != NULL)
    {
      g_autofree char *pretty = _zot_inspector_entry_dup_pretty_text (self->entry);

      zot_wrap_safe_label_set_text (self->payload_label, pretty);
    }
  else
    {
      gtk_label_set_text (self->payload_label, "");
    }
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ZotInspectorEventRow *self = ZOT_INSPECTOR_EVENT_ROW (widget);

  if (self->entry != NULL)
    _zot_inspector_entry_copy (self->entry, gtk_widget_get_clipboard (widget));
}

static void
zot_inspector_event_row_dispose (GObject *object)
{
  ZotInspectorEventRow *self = ZOT_INSPECTOR_EVENT_ROW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_INSPECTOR_EVENT_ROW);
  g_clear_object (&self->entry);

  G_OBJECT_CLASS (zot_inspector_event_row_parent_class)->dispose (object);
}

static void
zot_inspector_event_row_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  ZotInspectorEventRow *self = ZOT_INSPECTOR_EVENT_ROW (object);

  switch (prop_id)
    {
    case PROP_ENTRY:
      g_value_set_object (value, self->entry);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_inspector_event_row_set_property (GObject      *object,
                                      guint         prop_id,
                                      const GValue *value,
                                      GParamSpec   *pspec)
{
  ZotInspectorEventRow *self = ZOT_INSPECTOR_EVENT_ROW (object);

  switch (prop_id)
    {
    case PROP_ENTRY:
      zot_inspector_event_row_set_entry (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_inspector_event_row_class_init (ZotInspectorEventRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_inspector_event_row_dispose;
  object_class->get_property = zot_inspector_event_row_get_property;
  object_class->set_property = zot_inspector_event_row_set_property;

  /**
   * ZotInspectorEventRow:entry:
   *
   * The event shown, or %NULL.
   */
  properties [PROP_ENTRY] =
    g_param_spec_object ("entry", NULL, NULL,
                         ZOT_TYPE_INSPECTOR_ENTRY,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-inspector-event-row.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorEventRow, expander);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorEventRow, time_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorEventRow, sequence_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorEventRow, name_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorEventRow, payload_label);
  gtk_widget_class_bind_template_callback (widget_class, on_expander_expanded_cb);

  gtk_widget_class_install_action (widget_class, "entry.copy", NULL, copy_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
zot_inspector_event_row_init (ZotInspectorEventRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
zot_inspector_event_row_new (void)
{
  return g_object_new (ZOT_TYPE_INSPECTOR_EVENT_ROW, NULL);
}

ZotInspectorEntry *
zot_inspector_event_row_get_entry (ZotInspectorEventRow *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_EVENT_ROW (self), NULL);

  return self->entry;
}

/**
 * zot_inspector_event_row_set_entry:
 * @self: a #ZotInspectorEventRow
 * @entry: (nullable): the event to show
 *
 * Shows @entry, folded.
 */
void
zot_inspector_event_row_set_entry (ZotInspectorEventRow *self,
                                   ZotInspectorEntry    *entry)
{
  g_autofree char *sequence = NULL;

  g_return_if_fail (ZOT_IS_INSPECTOR_EVENT_ROW (self));
  g_return_if_fail (entry == NULL || ZOT_IS_INSPECTOR_ENTRY (entry));

  if (!g_set_object (&self->entry, entry))
    return;

  if (entry != NULL && _zot_inspector_entry_get_sequence (entry) >= 0)
    sequence = g_strdup_printf ("#%" G_GINT64_FORMAT, _zot_inspector_entry_get_sequence (entry));

  gtk_label_set_text (self->time_label, entry != NULL ? _zot_inspector_entry_get_time (entry) : "");
  gtk_label_set_text (self->sequence_label, sequence != NULL ? sequence : "");
  gtk_label_set_text (self->name_label, entry != NULL ? _zot_inspector_entry_get_name (entry) : "");
  /* A recycled row starts folded. */
  gtk_expander_set_expanded (self->expander, FALSE);

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ENTRY]);
}
