/* zot-project-chooser.c — the start view: open a folder, or a recent one.
 *
 * Started with no folder (from the desktop, or in the home folder), the
 * app shows this rather than silently running the agent in $HOME. A
 * project chosen here opens in its own window (the application's
 * "open-project" action), and this view closes.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include "zot-accessible.h"
#include "zot-project-chooser.h"
#include "zot-project-row.h"
#include "zot-recent-projects.h"

struct _ZotProjectChooser
{
  AdwApplicationWindow  parent_instance;

  /* template */
  GtkLabel             *recent_heading;
  GtkListBox           *recent_list;

  GSettings            *settings;
};

G_DEFINE_FINAL_TYPE (ZotProjectChooser, zot_project_chooser, ADW_TYPE_APPLICATION_WINDOW)

static void
forget_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ZotProjectChooser *self = ZOT_PROJECT_CHOOSER (widget);

  zot_recent_projects_forget (self->settings, g_variant_get_string (parameter, NULL));
}

static void
refresh (ZotProjectChooser *self)
{
  g_auto(GStrv) folders = g_settings_get_strv (self->settings, "recent-projects");
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent_list))) != NULL)
    gtk_list_box_remove (self->recent_list, child);

  for (guint i = 0; folders[i] != NULL; i++)
    gtk_list_box_append (self->recent_list, zot_project_row_new (folders[i]));

  gtk_widget_set_visible (GTK_WIDGET (self->recent_heading), folders[0] != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->recent_list), folders[0] != NULL);
}

static void
on_recent_list_row_activated_cb (GtkListBox        *list,
                                 GtkListBoxRow     *row,
                                 ZotProjectChooser *self)
{
  const char *folder = zot_project_row_get_folder (ZOT_PROJECT_ROW (row));

  gtk_widget_activate_action (GTK_WIDGET (self), "app.open-project", "s", folder);
}

static void
zot_project_chooser_dispose (GObject *object)
{
  ZotProjectChooser *self = ZOT_PROJECT_CHOOSER (object);

  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_PROJECT_CHOOSER);

  G_OBJECT_CLASS (zot_project_chooser_parent_class)->dispose (object);
}

static void
zot_project_chooser_class_init (ZotProjectChooserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_project_chooser_dispose;

  gtk_widget_class_install_action (widget_class, "chooser.forget", "s", forget_action);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-project-chooser.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotProjectChooser, recent_heading);
  gtk_widget_class_bind_template_child (widget_class, ZotProjectChooser, recent_list);
  gtk_widget_class_bind_template_callback (widget_class, on_recent_list_row_activated_cb);
}

static void
zot_project_chooser_init (ZotProjectChooser *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  zot_accessible_fix_mnemonics (GTK_WIDGET (self));

  self->settings = g_settings_new (APP_ID);
  g_signal_connect_object (self->settings, "changed::recent-projects", G_CALLBACK (refresh), self,
                           G_CONNECT_SWAPPED);
  refresh (self);
}

GtkWidget *
zot_project_chooser_new (ZotApplication *application)
{
  g_return_val_if_fail (ZOT_IS_APPLICATION (application), NULL);

  return g_object_new (ZOT_TYPE_PROJECT_CHOOSER, "application", application, NULL);
}
