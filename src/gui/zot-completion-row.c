/* zot-completion-row.c — one slash command in the prompt's completion list.
 *
 * The command's name, what it does and where it comes from, as
 * properties the template's labels are bound to.
 */
#define G_LOG_DOMAIN "zot-prompt-editor"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-completion-row.h"

struct _ZotCompletionRow
{
  GtkListBoxRow  parent_instance;

  char          *name;
  char          *description;
  ZotExtension  *extension;
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_DESCRIPTION,
  PROP_EXTENSION,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotCompletionRow, zot_completion_row, GTK_TYPE_LIST_BOX_ROW)

static char *
slash_name (gpointer    unused,
            const char *name)
{
  return g_strconcat ("/", name ? name : "", NULL);
}

static char *
source_name (gpointer      unused,
             ZotExtension *extension)
{
  if (extension != NULL)
    return g_strdup (zot_extension_get_name (extension));
  /* Translators: a command's source: the app, not an extension */
  return g_strdup (_("built-in"));
}

static void
zot_completion_row_dispose (GObject *object)
{
  ZotCompletionRow *self = ZOT_COMPLETION_ROW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_COMPLETION_ROW);
  g_clear_object (&self->extension);

  G_OBJECT_CLASS (zot_completion_row_parent_class)->dispose (object);
}

static void
zot_completion_row_finalize (GObject *object)
{
  ZotCompletionRow *self = ZOT_COMPLETION_ROW (object);

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->description, g_free);

  G_OBJECT_CLASS (zot_completion_row_parent_class)->finalize (object);
}

static void
zot_completion_row_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  ZotCompletionRow *self = ZOT_COMPLETION_ROW (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;

    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;

    case PROP_EXTENSION:
      g_value_set_object (value, self->extension);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_completion_row_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  ZotCompletionRow *self = ZOT_COMPLETION_ROW (object);

  switch (prop_id)
    {
    case PROP_NAME:
      if (g_strcmp0 (self->name, g_value_get_string (value)) != 0)
        {
          g_free (self->name);
          self->name = g_value_dup_string (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    case PROP_DESCRIPTION:
      if (g_strcmp0 (self->description, g_value_get_string (value)) != 0)
        {
          g_free (self->description);
          self->description = g_value_dup_string (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    case PROP_EXTENSION:
      if (g_set_object (&self->extension, g_value_get_object (value)))
        g_object_notify_by_pspec (object, pspec);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_completion_row_class_init (ZotCompletionRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_completion_row_dispose;
  object_class->finalize = zot_completion_row_finalize;
  object_class->get_property = zot_completion_row_get_property;
  object_class->set_property = zot_completion_row_set_property;

  /**
   * ZotCompletionRow:name:
   *
   * The command's canonical spelling, without the slash.
   */
  properties [PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * ZotCompletionRow:description:
   *
   * What the command does, or %NULL.
   */
  properties [PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * ZotCompletionRow:extension:
   *
   * The extension that answers the command; %NULL for a built-in.
   */
  properties [PROP_EXTENSION] =
    g_param_spec_object ("extension", NULL, NULL, ZOT_TYPE_EXTENSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-completion-row.ui");
  gtk_widget_class_bind_template_callback (widget_class, slash_name);
  gtk_widget_class_bind_template_callback (widget_class, source_name);
}

static void
zot_completion_row_init (ZotCompletionRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
zot_completion_row_new (const ZotCommandInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);

  return g_object_new (ZOT_TYPE_COMPLETION_ROW,
                       "name", info->name,
                       "description", info->description,
                       "extension", info->extension,
                       NULL);
}

const char *
zot_completion_row_get_name (ZotCompletionRow *self)
{
  g_return_val_if_fail (ZOT_IS_COMPLETION_ROW (self), NULL);
  return self->name;
}
