/* zot-extension-meter-view.c — shows an extension's meter on its row.
 *
 * The figures are read again every ZOT_METER_REFRESH_MS while the line
 * is on screen, and never otherwise: a hidden page costs nothing. */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-extension-meter-view.h"
#include "zot-extension-meter.h"
#include "zot-limits.h"

struct _ZotExtensionMeterView
{
  GObject       parent_instance;

  GWeakRef      extension;
  GtkWidget    *label;        /* the compact line, in the row's header */
  GtkWidget    *details_row;  /* the figures in full */
  guint         refresh_id;
};

G_DEFINE_FINAL_TYPE (ZotExtensionMeterView, zot_extension_meter_view, G_TYPE_OBJECT)

static gboolean
refresh_cb (gpointer user_data)
{
  zot_extension_meter_view_refresh (user_data);
  return G_SOURCE_CONTINUE;
}

static void
on_label_map_cb (GtkWidget             *label,
                 ZotExtensionMeterView *self)
{
  zot_extension_meter_view_refresh (self);
  if (self->refresh_id == 0)
    self->refresh_id = g_timeout_add (ZOT_METER_REFRESH_MS, refresh_cb, self);
}

static void
on_label_unmap_cb (GtkWidget             *label,
                   ZotExtensionMeterView *self)
{
  g_clear_handle_id (&self->refresh_id, g_source_remove);
}

static void
zot_extension_meter_view_dispose (GObject *object)
{
  ZotExtensionMeterView *self = ZOT_EXTENSION_METER_VIEW (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->label != NULL)
    g_signal_handlers_disconnect_by_data (self->label, self);
  g_clear_object (&self->label);
  g_clear_object (&self->details_row);

  G_OBJECT_CLASS (zot_extension_meter_view_parent_class)->dispose (object);
}

static void
zot_extension_meter_view_finalize (GObject *object)
{
  ZotExtensionMeterView *self = ZOT_EXTENSION_METER_VIEW (object);

  g_weak_ref_clear (&self->extension);

  G_OBJECT_CLASS (zot_extension_meter_view_parent_class)->finalize (object);
}

static void
zot_extension_meter_view_class_init (ZotExtensionMeterViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_extension_meter_view_dispose;
  object_class->finalize = zot_extension_meter_view_finalize;
}

static void
zot_extension_meter_view_init (ZotExtensionMeterView *self)
{
  g_weak_ref_init (&self->extension, NULL);

  self->label = g_object_ref_sink (gtk_label_new (NULL));
  gtk_widget_set_valign (self->label, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->label, "caption");
  gtk_widget_add_css_class (self->label, "numeric");
  gtk_widget_add_css_class (self->label, "dim-label");
  gtk_widget_add_css_class (self->label, "ext-meter");
  gtk_widget_set_visible (self->label, FALSE);
  g_signal_connect (self->label, "map", G_CALLBACK (on_label_map_cb), self);
  g_signal_connect (self->label, "unmap", G_CALLBACK (on_label_unmap_cb), self);

  self->details_row = g_object_ref_sink (adw_action_row_new ());
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->details_row), FALSE);
  /* Translators: title of the row of an extension's details showing its CPU time, memory,
   * frames, tool-call latency and interceptor time */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->details_row), _("Resource use"));
  gtk_widget_add_css_class (self->details_row, "ext-meter-details");
}

/**
 * zot_extension_meter_view_new:
 * @extension: whose meter; held weakly
 */
ZotExtensionMeterView *
zot_extension_meter_view_new (ZotExtension *extension)
{
  ZotExtensionMeterView *self;

  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);

  self = g_object_new (ZOT_TYPE_EXTENSION_METER_VIEW, NULL);
  g_weak_ref_set (&self->extension, extension);
  zot_extension_meter_view_refresh (self);
  return self;
}

GtkWidget *
zot_extension_meter_view_get_label (ZotExtensionMeterView *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_METER_VIEW (self), NULL);

  return self->label;
}

GtkWidget *
zot_extension_meter_view_get_details_row (ZotExtensionMeterView *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_METER_VIEW (self), NULL);

  return self->details_row;
}

/**
 * zot_extension_meter_view_refresh:
 *
 * Reads the meter again. The line is hidden while nothing was measured
 * (an extension that never ran); the figures row then says so.
 */
void
zot_extension_meter_view_refresh (ZotExtensionMeterView *self)
{
  g_autoptr(ZotExtension) extension = NULL;
  g_autoptr(ZotExtensionStats) stats = NULL;
  g_autofree char *line = NULL;
  g_autofree char *details = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_METER_VIEW (self));

  extension = g_weak_ref_get (&self->extension);
  if (extension == NULL)
    return;

  stats = zot_extension_dup_stats (extension);
  line = zot_extension_stats_format_line (stats);
  gtk_label_set_text (GTK_LABEL (self->label), line != NULL ? line : "");
  gtk_widget_set_visible (self->label, line != NULL);

  if (line != NULL)
    details = zot_extension_stats_format_details (stats);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->details_row),
                               /* Translators: the resource use of an extension that never ran */
                               details != NULL ? details : _("Not measured: it has not run."));
}
