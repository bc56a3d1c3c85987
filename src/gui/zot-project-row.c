/* zot-project-row.c — one recent project in the start view.
 *
 * The folder's name and where it is, made from the row's folder when it
 * is set (AdwActionRow takes its labels away in its own dispose, before
 * a template binding to them would let go); its remove button asks the
 * start view ("chooser.forget") to forget it.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-project-row.h"
#include "zot-recent-projects.h"
#include "zot-tooltip.h"

struct _ZotProjectRow
{
  AdwActionRow  parent_instance;

  /* template */
  GtkButton    *forget_button;

  char         *folder;
};

enum {
  PROP_0,
  PROP_FOLDER,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotProjectRow, zot_project_row, ADW_TYPE_ACTION_ROW)

static void
show_folder (ZotProjectRow *self)
{
  g_autofree char *name = self->folder != NULL ? g_path_get_basename (self->folder) : NULL;
  g_autofree char *display_name = name != NULL ? g_filename_display_name (name) : NULL;
  g_autofree char *display_path = self->folder != NULL ? zot_recent_projects_display_path (self->folder) : NULL;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), display_name ? display_name : "");
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), display_path ? display_path : "");
}

static void
forget_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ZotProjectRow *self = ZOT_PROJECT_ROW (widget);

  if (self->folder != NULL)
    gtk_widget_activate_action (widget, "chooser.forget", "s", self->folder);
}

static void
zot_project_row_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), ZOT_TYPE_PROJECT_ROW);

  G_OBJECT_CLASS (zot_project_row_parent_class)->dispose (object);
}

static void
zot_project_row_finalize (GObject *object)
{
  ZotProjectRow *self = ZOT_PROJECT_ROW (object);

  g_clear_pointer (&self->folder, g_free);

  G_OBJECT_CLASS (zot_project_row_parent_class)->finalize (object);
}

static void
zot_project_row_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  ZotProjectRow *self = ZOT_PROJECT_ROW (object);

  switch (prop_id)
    {
    case PROP_FOLDER:
      g_value_set_string (value, self->folder);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_project_row_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  ZotProjectRow *self = ZOT_PROJECT_ROW (object);

  switch (prop_id)
    {
    case PROP_FOLDER:
      if (g_strcmp0 (self->folder, g_value_get_string (value)) != 0)
        {
          g_free (self->folder);
          self->folder = g_value_dup_string (value);
          show_folder (self);
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_project_row_class_init (ZotProjectRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_project_row_dispose;
  object_class->finalize = zot_project_row_finalize;
  object_class->get_property = zot_project_row_get_property;
  object_class->set_property = zot_project_row_set_property;

  /**
   * ZotProjectRow:folder:
   *
   * The project's folder, as stored in the recent projects.
   */
  properties [PROP_FOLDER] =
    g_param_spec_string ("folder", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "row.forget", NULL, forget_action);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-project-row.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotProjectRow, forget_button);
}

static void
zot_project_row_init (ZotProjectRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  zot_tooltip_set (GTK_WIDGET (self->forget_button), _("Remove from Recent Projects"));
}

GtkWidget *
zot_project_row_new (const char *folder)
{
  g_return_val_if_fail (folder != NULL, NULL);

  return g_object_new (ZOT_TYPE_PROJECT_ROW, "folder", folder, NULL);
}

const char *
zot_project_row_get_folder (ZotProjectRow *self)
{
  g_return_val_if_fail (ZOT_IS_PROJECT_ROW (self), NULL);
  return self->folder;
}
