/* zot-extension-meter-view.c — shows an extension's meter on its row.
 *
 * The figures are read again every ZOT_METER_REFRESH_MS while the row
 * is on screen, and never otherwise: a hidden page costs nothing. The row
 * is watched rather than the line, which stays hidden (and so unmapped)
 * until there is something to show. */
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
  GtkWidget    *owner;        /* the row; it owns this view */
  GtkWidget    *label;        /* the compact line, in the row's header */
  GtkWidget    *details_row;  /* the figures in full */
  guint         refresh_id;
};

G_DEFINE_FINAL_TYPE (ZotExtensionMeterView, zot_extension_meter_view, G_TYPE_OBJECT)

/* Each figure stays whole ("p95 40 ms"); the line breaks between them. */
static char *
keep_figures_whole (const char *line)
{
  g_auto(GStrv) parts = g_strsplit (line, " · ", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_auto(GStrv) words = g_strsplit (parts[i], " ", -1);

      g_free (parts[i]);
      parts[i] = g_strjoinv ("\u00a0", words);
    }
  return g_strjoinv (" · ", parts);
}

static gboolean
refresh_cb (gpointer user_data)
{
  zot_extension_meter_view_refresh (user_data);
  return G_SOURCE_CONTINUE;
}

static void
on_owner_map_cb (GtkWidget             *owner,
                 ZotExtensionMeterView *self)
{
  zot_extension_meter_view_refresh (self);
  if (self->refresh_id == 0)
    self->refresh_id = g_timeout_add (ZOT_METER_REFRESH_MS, refresh_cb, self);
}

static void
on_owner_unmap_cb (GtkWidget             *owner,
                   ZotExtensionMeterView *self)
{
  g_clear_handle_id (&self->refresh_id, g_source_remove);
}

static void
zot_extension_meter_view_dispose (GObject *object)
{
  ZotExtensionMeterView *self = ZOT_EXTENSION_METER_VIEW (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->owner != NULL)
    g_signal_handlers_disconnect_by_data (self->owner, self);
  self->owner = NULL;
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
  /* Narrow, in two lines if need be (between figures, never inside one):
   * the header's title and description keep the room. */
  gtk_label_set_wrap (GTK_LABEL (self->label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->label), PANGO_WRAP_WORD);
  gtk_label_set_width_chars (GTK_LABEL (self->label), 20);
  gtk_label_set_max_width_chars (GTK_LABEL (self->label), 24);
  gtk_label_set_justify (GTK_LABEL (self->label), GTK_JUSTIFY_RIGHT);
  gtk_label_set_xalign (GTK_LABEL (self->label), 1.0);
  gtk_widget_add_css_class (self->label, "caption");
  gtk_widget_add_css_class (self->label, "numeric");
  gtk_widget_add_css_class (self->label, "dim-label");
  gtk_widget_add_css_class (self->label, "ext-meter");
  gtk_widget_set_visible (self->label, FALSE);

  self->details_row = g_object_ref_sink (adw_action_row_new ());
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->details_row), FALSE);
  /* Translators: title of the row of an extension's details showing its CPU time, memory,
   * frames, tool-call latency and interceptor time */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->details_row), _("Resource use"));
  gtk_widget_add_css_class (self->details_row, "ext-meter-details");
}

static void
on_extension_state_cb (ZotExtensionMeterView *self)
{
  zot_extension_meter_view_refresh (self);
}

/**
 * zot_extension_meter_view_new:
 * @extension: whose meter; held weakly
 * @owner: the widget whose being on screen starts and stops the refresh;
 *   it must outlive the view (the row that owns it)
 */
ZotExtensionMeterView *
zot_extension_meter_view_new (ZotExtension *extension,
                              GtkWidget    *owner)
{
  ZotExtensionMeterView *self;

  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);
  g_return_val_if_fail (GTK_IS_WIDGET (owner), NULL);

  self = g_object_new (ZOT_TYPE_EXTENSION_METER_VIEW, NULL);
  g_weak_ref_set (&self->extension, extension);
  self->owner = owner;
  g_signal_connect (owner, "map", G_CALLBACK (on_owner_map_cb), self);
  g_signal_connect (owner, "unmap", G_CALLBACK (on_owner_unmap_cb), self);
  g_signal_connect_object (extension, "notify::state", G_CALLBACK (on_extension_state_cb), self,
                           G_CONNECT_SWAPPED);
  if (gtk_widget_get_mapped (owner))
    on_owner_map_cb (owner, self);
  else
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
  g_autofree char *shown = NULL;
  g_autofree char *details = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_METER_VIEW (self));

  extension = g_weak_ref_get (&self->extension);
  if (extension == NULL)
    return;

  stats = zot_extension_dup_stats (extension);
  line = zot_extension_stats_format_line (stats);
  shown = line != NULL ? keep_figures_whole (line) : NULL;
  gtk_label_set_text (GTK_LABEL (self->label), shown != NULL ? shown : "");
  gtk_widget_set_visible (self->label, line != NULL);

  if (line != NULL)
    details = zot_extension_stats_format_details (stats);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->details_row),
                               /* Translators: the resource use of an extension that never ran */
                               details != NULL ? details : _("Not measured: it has not run."));
}
