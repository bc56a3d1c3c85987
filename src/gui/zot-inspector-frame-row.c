/* zot-inspector-frame-row.c — one frame in the inspector's traffic.
 *
 * The time, the direction, the extension, the frame's type and, for an
 * answer to a request, the round trip, with a Copy button; under them the
 * start of the line. A list item's row is recycled: setting :entry shows
 * another frame.
 */
#define G_LOG_DOMAIN "zot-inspector"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-inspector-frame-row.h"
#include "zot-tooltip.h"

struct _ZotInspectorFrameRow
{
  GtkWidget          parent_instance;

  ZotInspectorEntry *entry;

  /* Template widgets */
  GtkWidget         *box;
  GtkLabel          *time_label;
  GtkLabel          *arrow_label;
  GtkLabel          *extension_label;
  GtkLabel          *type_label;
  GtkLabel          *latency_label;
  GtkLabel          *line_label;
};

enum {
  PROP_0,
  PROP_ENTRY,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotInspectorFrameRow, zot_inspector_frame_row, GTK_TYPE_WIDGET)

static void
show_latency (ZotInspectorFrameRow *self,
              double                latency_ms)
{
  g_autofree char *text = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->latency_label), latency_ms >= 0);
  if (latency_ms < 0)
    return;

  /* Translators: how long an extension took to answer a request, in milliseconds; keep it short */
  text = latency_ms < 10 ? g_strdup_printf (_("%.1f ms"), latency_ms)
                         /* Translators: how long an extension took to answer a request, in
                          * milliseconds; keep it short */
                         : g_strdup_printf (_("%.0f ms"), latency_ms);
  gtk_label_set_text (self->latency_label, text);
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ZotInspectorFrameRow *self = ZOT_INSPECTOR_FRAME_ROW (widget);

  if (self->entry != NULL)
    _zot_inspector_entry_copy (self->entry, gtk_widget_get_clipboard (widget));
}

static void
zot_inspector_frame_row_dispose (GObject *object)
{
  ZotInspectorFrameRow *self = ZOT_INSPECTOR_FRAME_ROW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_INSPECTOR_FRAME_ROW);
  g_clear_object (&self->entry);

  G_OBJECT_CLASS (zot_inspector_frame_row_parent_class)->dispose (object);
}

static void
zot_inspector_frame_row_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  ZotInspectorFrameRow *self = ZOT_INSPECTOR_FRAME_ROW (object);

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
zot_inspector_frame_row_set_property (GObject      *object,
                                      guint         prop_id,
                                      const GValue *value,
                                      GParamSpec   *pspec)
{
  ZotInspectorFrameRow *self = ZOT_INSPECTOR_FRAME_ROW (object);

  switch (prop_id)
    {
    case PROP_ENTRY:
      zot_inspector_frame_row_set_entry (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_inspector_frame_row_class_init (ZotInspectorFrameRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_inspector_frame_row_dispose;
  object_class->get_property = zot_inspector_frame_row_get_property;
  object_class->set_property = zot_inspector_frame_row_set_property;

  /**
   * ZotInspectorFrameRow:entry:
   *
   * The frame shown, or %NULL.
   */
  properties [PROP_ENTRY] =
    g_param_spec_object ("entry", NULL, NULL,
                         ZOT_TYPE_INSPECTOR_ENTRY,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-inspector-frame-row.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorFrameRow, box);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorFrameRow, time_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorFrameRow, arrow_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorFrameRow, extension_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorFrameRow, type_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorFrameRow, latency_label);
  gtk_widget_class_bind_template_child (widget_class, ZotInspectorFrameRow, line_label);

  gtk_widget_class_install_action (widget_class, "entry.copy", NULL, copy_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
zot_inspector_frame_row_init (ZotInspectorFrameRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
zot_inspector_frame_row_new (void)
{
  return g_object_new (ZOT_TYPE_INSPECTOR_FRAME_ROW, NULL);
}

ZotInspectorEntry *
zot_inspector_frame_row_get_entry (ZotInspectorFrameRow *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_FRAME_ROW (self), NULL);

  return self->entry;
}

/**
 * zot_inspector_frame_row_set_entry:
 * @self: a #ZotInspectorFrameRow
 * @entry: (nullable): the frame to show
 */
void
zot_inspector_frame_row_set_entry (ZotInspectorFrameRow *self,
                                   ZotInspectorEntry    *entry)
{
  gboolean out;

  g_return_if_fail (ZOT_IS_INSPECTOR_FRAME_ROW (self));
  g_return_if_fail (entry == NULL || ZOT_IS_INSPECTOR_ENTRY (entry));

  if (!g_set_object (&self->entry, entry))
    return;

  out = entry != NULL && _zot_inspector_entry_get_direction (entry) == ZOT_FRAME_DIRECTION_OUT;
  gtk_label_set_text (self->time_label, entry != NULL ? _zot_inspector_entry_get_time (entry) : "");
  gtk_label_set_text (self->arrow_label, out ? "→" : "←");
  zot_tooltip_set (GTK_WIDGET (self->arrow_label),
                   /* Translators: the name screen readers give the direction of a
                    * protocol frame in the inspector: sent from the host (this app)
                    * to the extension, or back */
                   out ? _("Host to extension") : _("Extension to host"));
  gtk_label_set_text (self->extension_label,
                      entry != NULL && _zot_inspector_entry_get_extension (entry) != NULL
                      ? _zot_inspector_entry_get_extension (entry) : "");
  gtk_label_set_text (self->type_label, entry != NULL ? _zot_inspector_entry_get_name (entry) : "");
  gtk_label_set_text (self->line_label, entry != NULL ? _zot_inspector_entry_get_preview (entry) : "");
  show_latency (self, entry != NULL ? _zot_inspector_entry_get_latency_ms (entry) : -1);

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_ENTRY]);
}
