/* zot-new-extension-dialog.c — New Extension…, the window's `zot ext new`.
 *
 * The skeleton is written by zot_ext_new_write_async() on a worker
 * thread, so a slow or stuck disk never holds the main loop; while it
 * runs the form is insensitive. A refusal (a taken folder, a bad name, a
 * write that failed) is shown in the dialog, which stays open to fix it;
 * a success emits ::created with the new folder and closes. Closing the
 * dialog while it writes cancels what is left of the wait: the write
 * itself finishes or cleans up after itself on its thread.
 */
#define G_LOG_DOMAIN "zot-new-extension-dialog"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-accessible.h"
#include "zot-ext-new.h"
#include "zot-new-extension-dialog.h"
#include "zot-new-extension-dialog-private.h"

struct _ZotNewExtensionDialog
{
  AdwWindow             parent_instance;

  AdwEntryRow          *name_row;
  AdwComboRow          *language_row;
  AdwActionRow         *folder_row;
  GtkWidget            *folder_button;
  GtkWidget            *create_button;
  GtkLabel             *error_label;

  char                 *folder;
  GCancellable         *cancellable;   /* of the write in flight, else NULL */
  GtkFileChooserNative *chooser;
};

enum {
  CREATED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotNewExtensionDialog, zot_new_extension_dialog, ADW_TYPE_WINDOW)

static gboolean
is_busy (ZotNewExtensionDialog *self)
{
  return self->cancellable != NULL;
}

static void
update_sensitivity (ZotNewExtensionDialog *self)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_row));
  gboolean busy = is_busy (self);
  GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (self));

  /* A focused text made insensitive never sees its focus leave, and GTK
   * warns about it later */
  if (busy && focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->name_row)))
    gtk_window_set_focus (GTK_WINDOW (self), NULL);
  gtk_widget_set_sensitive (self->create_button, !busy && name[0] != '\0' && self->folder != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->name_row), !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->language_row), !busy);
  gtk_widget_set_sensitive (self->folder_button, !busy);
}

static void
show_error (ZotNewExtensionDialog *self,
            const char            *message)
{
  gtk_label_set_text (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

static void
on_name_changed_cb (ZotNewExtensionDialog *self)
{
  show_error (self, NULL);
  update_sensitivity (self);
}

static void
written_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(ZotNewExtensionDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *directory = zot_ext_new_write_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  g_clear_object (&self->cancellable);
  update_sensitivity (self);
  if (directory == NULL)
    {
      show_error (self, error->message);
      gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
      return;
    }

  g_signal_emit (self, signals [CREATED], 0, directory);
  gtk_window_close (GTK_WINDOW (self));
}

static void
on_create_clicked_cb (ZotNewExtensionDialog *self)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_row));
  const char *language = zot_ext_new_languages ()[adw_combo_row_get_selected (self->language_row)];

  if (is_busy (self) || self->folder == NULL || name[0] == '\0')
    return;

  show_error (self, NULL);
  self->cancellable = g_cancellable_new ();
  update_sensitivity (self);
  zot_ext_new_write_async (self->folder, name, language, self->cancellable, written_cb, g_object_ref (self));
}

static void
on_chooser_response_cb (ZotNewExtensionDialog *self,
                        int                    response,
                        GtkNativeDialog       *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        zot_new_extension_dialog_set_folder (self, path);
    }
  g_clear_object (&self->chooser);
}

/* GtkFileDialog is GTK 4.10; the native chooser is what 4.8 has. */
static void
on_folder_clicked_cb (ZotNewExtensionDialog *self)
{
  g_autoptr(GFile) current = NULL;

  if (self->chooser != NULL)
    return;

  self->chooser = gtk_file_chooser_native_new (_("Save the Extension In"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                               _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  if (self->folder != NULL)
    {
      current = g_file_new_for_path (self->folder);
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), current, NULL);
    }
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (on_chooser_response_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
zot_new_extension_dialog_dispose (GObject *object)
{
  ZotNewExtensionDialog *self = ZOT_NEW_EXTENSION_DIALOG (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);

  G_OBJECT_CLASS (zot_new_extension_dialog_parent_class)->dispose (object);
}

static void
zot_new_extension_dialog_finalize (GObject *object)
{
  ZotNewExtensionDialog *self = ZOT_NEW_EXTENSION_DIALOG (object);

  g_free (self->folder);

  G_OBJECT_CLASS (zot_new_extension_dialog_parent_class)->finalize (object);
}

/* Closing cancels the wait for a write in flight: its callback then
 * touches nothing of the dialog. */
static gboolean
zot_new_extension_dialog_close_request (GtkWindow *window)
{
  ZotNewExtensionDialog *self = ZOT_NEW_EXTENSION_DIALOG (window);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  /* The name's text would otherwise go with the window still focused, and
   * GTK warns that it never saw its focus leave. */
  gtk_window_set_focus (window, NULL);

  return GTK_WINDOW_CLASS (zot_new_extension_dialog_parent_class)->close_request (window);
}

/* The name first: the rest has defaults. A focus set before the rows are
 * in a window is lost, hence here. */
static void
zot_new_extension_dialog_map (GtkWidget *widget)
{
  ZotNewExtensionDialog *self = ZOT_NEW_EXTENSION_DIALOG (widget);

  GTK_WIDGET_CLASS (zot_new_extension_dialog_parent_class)->map (widget);
  gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
}

static void
zot_new_extension_dialog_class_init (ZotNewExtensionDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = zot_new_extension_dialog_dispose;
  object_class->finalize = zot_new_extension_dialog_finalize;
  window_class->close_request = zot_new_extension_dialog_close_request;
  widget_class->map = zot_new_extension_dialog_map;

  /**
   * ZotNewExtensionDialog::created:
   * @directory: the new extension's folder
   *
   * The skeleton is written; the dialog closes after this.
   */
  signals [CREATED] =
    g_signal_new ("created",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-new-extension-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotNewExtensionDialog, name_row);
  gtk_widget_class_bind_template_child (widget_class, ZotNewExtensionDialog, language_row);
  gtk_widget_class_bind_template_child (widget_class, ZotNewExtensionDialog, folder_row);
  gtk_widget_class_bind_template_child (widget_class, ZotNewExtensionDialog, folder_button);
  gtk_widget_class_bind_template_child (widget_class, ZotNewExtensionDialog, create_button);
  gtk_widget_class_bind_template_child (widget_class, ZotNewExtensionDialog, error_label);
  gtk_widget_class_bind_template_callback (widget_class, on_name_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_create_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_folder_clicked_cb);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
zot_new_extension_dialog_init (ZotNewExtensionDialog *self)
{
  g_autoptr(GtkStringList) titles = gtk_string_list_new (NULL);
  const char * const *languages = zot_ext_new_languages ();

  gtk_widget_init_template (GTK_WIDGET (self));
  zot_accessible_fix_mnemonics (GTK_WIDGET (self));

  for (guint i = 0; languages[i] != NULL; i++)
    gtk_string_list_append (titles, zot_ext_new_language_title (languages[i]));
  adw_combo_row_set_model (self->language_row, G_LIST_MODEL (titles));
  gtk_window_set_default_widget (GTK_WINDOW (self), self->create_button);
}

/**
 * zot_new_extension_dialog_new:
 * @parent: (nullable): the window it belongs to
 * @folder: (nullable): where the extension's folder goes, until the user
 *   chooses another
 *
 * Returns: (transfer none): the dialog, not shown yet
 */
GtkWidget *
zot_new_extension_dialog_new (GtkWindow  *parent,
                              const char *folder)
{
  ZotNewExtensionDialog *self = g_object_new (ZOT_TYPE_NEW_EXTENSION_DIALOG,
                                              "transient-for", parent,
                                              NULL);

  zot_new_extension_dialog_set_folder (self, folder);
  return GTK_WIDGET (self);
}

const char *
zot_new_extension_dialog_get_folder (ZotNewExtensionDialog *self)
{
  g_return_val_if_fail (ZOT_IS_NEW_EXTENSION_DIALOG (self), NULL);

  return self->folder;
}

void
zot_new_extension_dialog_set_folder (ZotNewExtensionDialog *self,
                                     const char            *folder)
{
  g_autofree char *shown = NULL;

  g_return_if_fail (ZOT_IS_NEW_EXTENSION_DIALOG (self));

  if (g_strcmp0 (self->folder, folder) == 0)
    return;

  g_free (self->folder);
  self->folder = g_strdup (folder);
  if (folder == NULL)
    shown = g_strdup (_("No folder chosen"));
  else
    {
      const char *home = g_get_home_dir ();
      gsize home_length = strlen (home);
      g_autofree char *tilde = NULL;

      /* ~/src rather than /home/ada/src, as a file manager shows it */
      if (home_length > 1 && g_str_has_prefix (folder, home) &&
          (folder[home_length] == '/' || folder[home_length] == '\0'))
        tilde = g_strconcat ("~", folder + home_length, NULL);
      /* Row subtitles are markup */
      shown = g_markup_escape_text (tilde != NULL ? tilde : folder, -1);
    }
  adw_action_row_set_subtitle (self->folder_row, shown);
  show_error (self, NULL);
  update_sensitivity (self);
}

AdwEntryRow *
_zot_new_extension_dialog_get_name_row (ZotNewExtensionDialog *self)
{
  return self->name_row;
}

AdwComboRow *
_zot_new_extension_dialog_get_language_row (ZotNewExtensionDialog *self)
{
  return self->language_row;
}

GtkWidget *
_zot_new_extension_dialog_get_create_button (ZotNewExtensionDialog *self)
{
  return self->create_button;
}

GtkLabel *
_zot_new_extension_dialog_get_error_label (ZotNewExtensionDialog *self)
{
  return self->error_label;
}
