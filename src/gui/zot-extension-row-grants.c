/* zot-extension-row-grants.c — a switch per granted right in a confined
 * extension's row.
 *
 * One switch each for the network, the devices and every environment
 * variable and secret the manifest names, and a drop-down for the files,
 * from its own folder up to what the manifest asks. Turning one off takes
 * the right back exactly as `zot ext permissions NAME --revoke` does
 * (zot_grants_change(), off the main loop: it writes the grant file); the
 * row then restarts the extension, whose box is narrower from then on.
 * Turning one on again gives back what the manifest asked and the user
 * once accepted.
 */
#define G_LOG_DOMAIN "zot-extension-row"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-extension-row-grants.h"
#include "zot-grants.h"

/* On the drop-down: the choice the grant holds, as GUINT_TO_POINTER + 1. */
#define FILES_KEY "zot-files-granted"

typedef struct
{
  GWeakRef               owner;
  GWeakRef               widget;     /* the switch or the drop-down */
  char                  *extension;
  char                  *what;       /* see zot_permissions_change() */
  gboolean               allow;
  guint                  previous;   /* the drop-down's choice before */
  guint                  selected;   /* and after */
  ZotSecretRowToastFunc  toast;
  ZotGrantRowChangedFunc changed;
} Change;

static void
change_free (gpointer data)
{
  Change *change = data;

  g_weak_ref_clear (&change->owner);
  g_weak_ref_clear (&change->widget);
  g_free (change->extension);
  g_free (change->what);
  g_free (change);
}

static void
change_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Change *change = task_data;
  const char *whats[] = { change->what, NULL };
  GError *error = NULL;

  if (zot_grants_change (change->extension, whats, change->allow, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void on_switch_active (GtkSwitch *toggle, GParamSpec *pspec, gpointer user_data);
static void on_files_selected (AdwComboRow *combo, GParamSpec *pspec, gpointer user_data);

/* A change that could not be written is undone in the widget too. */
static void
revert (Change *change)
{
  g_autoptr(GObject) widget = g_weak_ref_get (&change->widget);

  if (GTK_IS_SWITCH (widget))
    {
      g_signal_handlers_block_matched (widget, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, on_switch_active, NULL);
      gtk_switch_set_active (GTK_SWITCH (widget), !change->allow);
      g_signal_handlers_unblock_matched (widget, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, on_switch_active, NULL);
    }
  else if (ADW_IS_COMBO_ROW (widget))
    {
      g_signal_handlers_block_matched (widget, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, on_files_selected, NULL);
      adw_combo_row_set_selected (ADW_COMBO_ROW (widget), change->previous);
      g_signal_handlers_unblock_matched (widget, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, on_files_selected, NULL);
    }
}

static void
changed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Change *change = g_task_get_task_data (G_TASK (result));
  g_autoptr(GObject) owner = g_weak_ref_get (&change->owner);
  g_autoptr(GObject) widget = g_weak_ref_get (&change->widget);
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      revert (change);
      if (owner == NULL)
        return;
      change->toast (owner, error->message);
      return;
    }
  if (ADW_IS_COMBO_ROW (widget))
    g_object_set_data (widget, FILES_KEY, GUINT_TO_POINTER (change->selected + 1));
  if (owner != NULL)
    change->changed (owner);
}

static void
start_change (Change *change)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, changed_cb, NULL);

  g_task_set_source_tag (task, start_change);
  g_task_set_task_data (task, change, change_free);
  g_task_run_in_thread (task, change_thread);
}

static Change *
change_new (GObject    *owner,
            GObject    *widget,
            const char *extension,
            const char *what,
            gpointer    template_data)
{
  Change *template = template_data;
  Change *change = g_new0 (Change, 1);

  g_weak_ref_init (&change->owner, owner);
  g_weak_ref_init (&change->widget, widget);
  change->extension = g_strdup (extension);
  change->what = g_strdup (what);
  change->toast = template->toast;
  change->changed = template->changed;
  return change;
}

static void
on_switch_active (GtkSwitch  *toggle,
                  GParamSpec *pspec,
                  gpointer    user_data)
{
  Change *template = user_data;
  g_autoptr(GObject) owner = g_weak_ref_get (&template->owner);
  Change *change;

  if (owner == NULL)
    return;
  change = change_new (owner, G_OBJECT (toggle), template->extension, template->what, template);
  change->allow = gtk_switch_get_active (toggle);
  start_change (change);
}

static void
on_files_selected (AdwComboRow *combo,
                   GParamSpec  *pspec,
                   gpointer     user_data)
{
  Change *template = user_data;
  g_autoptr(GObject) owner = g_weak_ref_get (&template->owner);
  guint selected = adw_combo_row_get_selected (combo);
  guint previous = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (combo), FILES_KEY)) - 1;
  g_autofree char *what = NULL;
  Change *change;

  if (owner == NULL || selected == GTK_INVALID_LIST_POSITION || selected == previous)
    return;
  what = g_strconcat ("files=", zot_filesystem_access_to_string ((ZotFilesystemAccess) selected), NULL);
  change = change_new (owner, G_OBJECT (combo), template->extension, what, template);
  /* Up to what the manifest asked is given back; down is taken back. */
  change->allow = selected > previous;
  change->previous = previous;
  change->selected = selected;
  start_change (change);
}

static Change *
template_new (gpointer                owner,
              const char             *extension,
              const char             *what,
              ZotSecretRowToastFunc   toast,
              ZotGrantRowChangedFunc  changed)
{
  Change *template = g_new0 (Change, 1);

  g_weak_ref_init (&template->owner, owner);
  g_weak_ref_init (&template->widget, NULL);
  template->extension = g_strdup (extension);
  template->what = g_strdup (what);
  template->toast = toast;
  template->changed = changed;
  return template;
}

static void
template_closure_free (gpointer  data,
                       GClosure *closure)
{
  change_free (data);
}

static void
add_switch (gpointer                owner,
            const char             *extension,
            const char             *title,
            const char             *what,
            gboolean                active,
            ZotSecretRowAddFunc     add,
            ZotSecretRowToastFunc   toast,
            ZotGrantRowChangedFunc  changed)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_switch_set_active (GTK_SWITCH (toggle), active);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  g_signal_connect_data (toggle, "notify::active", G_CALLBACK (on_switch_active),
                         template_new (owner, extension, what, toast, changed), template_closure_free, 0);
  add (owner, row);
}

static void
add_names (gpointer                owner,
           const char             *extension,
           const char * const     *asked,
           const char * const     *granted,
           const char             *key,
           const char             *title_format,
           ZotSecretRowAddFunc     add,
           ZotSecretRowToastFunc   toast,
           ZotGrantRowChangedFunc  changed)
{
  for (guint i = 0; asked[i] != NULL; i++)
    {
      g_autofree char *what = g_strdup_printf ("%s=%s", key, asked[i]);
      g_autofree char *title = g_strdup_printf (title_format, asked[i]);

      add_switch (owner, extension, title, what, g_strv_contains (granted, asked[i]), add, toast, changed);
    }
}

void
zot_extension_grant_rows_add (gpointer                owner,
                              ZotExtension           *extension,
                              ZotSecretRowAddFunc     add,
                              ZotSecretRowToastFunc   toast,
                              ZotGrantRowChangedFunc  changed)
{
  ZotManifest *manifest = zot_extension_get_manifest (extension);
  const ZotPermissions *asked = manifest != NULL ? zot_manifest_get_permissions (manifest) : NULL;
  const char *name = zot_extension_get_name (extension);
  g_autoptr(ZotGrant) grant = NULL;
  g_autoptr(ZotPermissions) applied = NULL;
  g_autoptr(GtkStringList) levels = NULL;
  GtkWidget *combo;
  Change *template;

  /* Unconfined, never granted (an --ext path), or not trusted yet: there
   * is nothing to take back. One small file, read as the row is built. */
  if (asked == NULL || zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_NEEDS_APPROVAL)
    return;
  grant = zot_grant_load (name);
  if (grant == NULL || grant->unconfined)
    return;
  applied = zot_permissions_intersect (asked, grant->permissions);

  levels = gtk_string_list_new (NULL);
  for (ZotFilesystemAccess access = ZOT_FILESYSTEM_NONE; access <= asked->filesystem; access++)
    gtk_string_list_append (levels, zot_filesystem_access_describe_words (access));
  combo = adw_combo_row_new ();
  /* Translators: title of the drop-down of what a confined extension may see of the files */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (combo), _("Files"));
  adw_combo_row_set_model (ADW_COMBO_ROW (combo), G_LIST_MODEL (levels));
  adw_combo_row_set_selected (ADW_COMBO_ROW (combo), applied->filesystem);
  template = template_new (owner, name, NULL, toast, changed);
  g_object_set_data (G_OBJECT (combo), FILES_KEY, GUINT_TO_POINTER (applied->filesystem + 1));
  g_signal_connect_data (combo, "notify::selected", G_CALLBACK (on_files_selected), template,
                         template_closure_free, 0);
  add (owner, combo);

  if (asked->network)
    /* Translators: title of the switch that gives a confined extension the network */
    add_switch (owner, name, _("Network"), "network", applied->network, add, toast, changed);
  if (asked->devices)
    /* Translators: title of the switch that gives a confined extension the host's /dev */
    add_switch (owner, name, _("Devices (/dev)"), "devices", applied->devices, add, toast, changed);
  /* Translators: title of the switch that passes one environment variable into the box */
  add_names (owner, name, (const char * const *) asked->env, (const char * const *) grant->permissions->env,
             "env", _("Environment variable %s"), add, toast, changed);
  /* Translators: title of the switch that gives the extension one of its secrets */
  add_names (owner, name, (const char * const *) asked->secrets,
             (const char * const *) grant->permissions->secrets, "secrets", _("Gets secret %s"), add, toast,
             changed);
}
