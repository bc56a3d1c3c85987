/* zot-extension-row-secrets.c — a field per declared secret in an
 * extension's row.
 *
 * The field only ever sends a value to the keyring: it starts empty, is
 * emptied once the value is stored, and never shows what is stored. A
 * change reaches the extension at its next start.
 */
#define G_LOG_DOMAIN "zot-extension-row"

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-extension-row-secrets.h"
#include "zot-extension-secrets.h"

typedef struct
{
  GWeakRef              owner;
  GWeakRef              entry;
  char                 *extension;
  char                 *key;
  ZotSecretRowToastFunc toast;
} Field;

static void
field_free (gpointer data)
{
  Field *field = data;

  g_weak_ref_clear (&field->owner);
  g_weak_ref_clear (&field->entry);
  g_free (field->extension);
  g_free (field->key);
  g_free (field);
}

static void
field_closure_free (gpointer  data,
                    GClosure *closure)
{
  (void) closure;
  field_free (data);
}

static Field *
field_copy (Field *field)
{
  Field *copy = g_new0 (Field, 1);
  g_autoptr(GObject) owner = g_weak_ref_get (&field->owner);
  g_autoptr(GObject) entry = g_weak_ref_get (&field->entry);

  g_weak_ref_init (&copy->owner, owner);
  g_weak_ref_init (&copy->entry, entry);
  copy->extension = g_strdup (field->extension);
  copy->key = g_strdup (field->key);
  copy->toast = field->toast;
  return copy;
}

static void
changed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Field *field = user_data;
  g_autoptr(GObject) owner = g_weak_ref_get (&field->owner);
  g_autoptr(GError) error = NULL;
  gboolean stored = g_task_get_source_tag (G_TASK (result)) == zot_extension_secrets_store_async;
  gboolean ok = stored ? zot_extension_secrets_store_finish (result, &error)
                       : zot_extension_secrets_remove_finish (result, &error);
  g_autofree char *text = NULL;

  (void) source;
  if (owner != NULL)
    {
      if (!ok)
        text = g_strdup (error->message);
      else
        /* Translators: a toast; the secret's name, then the extension's */
        text = g_strdup_printf (stored ? _("Stored %s for %s; it applies at the next start")
                                       : _("Cleared %s for %s"), field->key, field->extension);
      field->toast (owner, text);
    }
  field_free (field);
}

static void
on_apply_cb (AdwEntryRow *entry,
             Field       *field)
{
  const char *value = gtk_editable_get_text (GTK_EDITABLE (entry));

  if (*value == '\0')
    return;
  zot_extension_secrets_store_async (field->extension, field->key, value, NULL, changed_cb,
                                     field_copy (field));
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
}

static void
on_clear_cb (GtkButton *button,
             Field     *field)
{
  (void) button;
  zot_extension_secrets_remove_async (field->extension, field->key, NULL, changed_cb, field_copy (field));
}

void
zot_extension_secret_rows_add (gpointer               owner,
                               const char            *extension,
                               const char * const    *keys,
                               ZotSecretRowAddFunc    add,
                               ZotSecretRowToastFunc  toast)
{
  g_return_if_fail (G_IS_OBJECT (owner) && extension != NULL);

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      GtkWidget *row = adw_password_entry_row_new ();
      GtkWidget *clear = gtk_button_new_from_icon_name ("edit-clear-symbolic");
      Field *field = g_new0 (Field, 1);
      /* Translators: the title of a password field on the extensions page; %s is the secret's name */
      g_autofree char *title = g_strdup_printf (_("Secret %s"), keys[i]);

      g_weak_ref_init (&field->owner, owner);
      g_weak_ref_init (&field->entry, row);
      field->extension = g_strdup (extension);
      field->key = g_strdup (keys[i]);
      field->toast = toast;

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
      gtk_widget_set_valign (clear, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (clear, "flat");
      /* Translators: tooltip of the button that removes a secret from the keyring */
      gtk_widget_set_tooltip_text (clear, _("Remove the stored value"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (clear), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      gtk_widget_get_tooltip_text (clear), -1);
      adw_entry_row_add_suffix (ADW_ENTRY_ROW (row), clear);
      g_signal_connect_data (row, "apply", G_CALLBACK (on_apply_cb), field,
                             field_closure_free, 0);
      g_signal_connect (clear, "clicked", G_CALLBACK (on_clear_cb), field);
      add (owner, row);
    }
}
