/* test-gui-ext-secrets.c — the extension row's field per declared secret:
 * it stores and clears the value and never shows it back.
 *
 * ZOT_TEST_EXTENSION_SECRETS_FILE stands in for the keyring.
 */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "zot-extension-row.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

#define VALUE "typed-into-the-field"

typedef struct
{
  ZotTestEnv  env;
  char       *store;
  char       *toast;
} Fixture;

static void
on_toast (GtkWidget  *row,
          const char *text,
          Fixture    *f)
{
  g_free (f->toast);
  f->toast = g_strdup (text);
}

static GtkWidget *
find_password_row (GtkWidget *widget)
{
  if (ADW_IS_PASSWORD_ENTRY_ROW (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_password_row (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_button (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Remove the stored value") == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
toasted (gpointer data)
{
  return ((Fixture *) data)->toast != NULL;
}

static void
test_field (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(JsonObject) ack = json_object_new ();
  g_autoptr(ZotExtension) extension = NULL;
  g_autofree char *store = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *row, *field, *clear;

  manifest = zot_manifest_new_from_data (f->env.root,
                                         "{\"name\":\"holder\",\"exec\":\"true\",\"version\":\"1\","
                                         "\"permissions\":{\"secrets\":[\"HOLDER_TOKEN\"]}}", -1, &error);
  g_assert_no_error (error);
  extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_EXPLICIT, ack);
  row = zot_extension_row_new (extension);
  g_signal_connect (row, "toast", G_CALLBACK (on_toast), f);
  gtk_window_set_child (GTK_WINDOW (window), row);
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 500);
  gtk_window_present (GTK_WINDOW (window));
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);

  field = find_password_row (row);
  g_assert_nonnull (field);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (field)), ==, "Secret HOLDER_TOKEN");
  gtk_editable_set_text (GTK_EDITABLE (field), VALUE);
  g_signal_emit_by_name (field, "apply");
  /* The value leaves the field at once; what is stored is never shown. */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (field)), ==, "");
  zot_test_wait_until (toasted, f, 5000);
  g_assert_nonnull (strstr (f->toast, "Stored HOLDER_TOKEN for holder"));
  store = zot_test_read_file (f->store);
  g_assert_nonnull (strstr (store, "HOLDER_TOKEN=" VALUE));
  g_clear_pointer (&store, g_free);

  g_clear_pointer (&f->toast, g_free);
  clear = find_button (field);
  g_assert_nonnull (clear);
  g_signal_emit_by_name (clear, "clicked");
  zot_test_wait_until (toasted, f, 5000);
  g_assert_nonnull (strstr (f->toast, "Cleared HOLDER_TOKEN"));
  store = zot_test_read_file (f->store);
  g_assert_null (strstr (store, VALUE));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->store = g_build_filename (f->env.root, "secrets.ini", NULL);
  g_setenv ("ZOT_TEST_EXTENSION_SECRETS_FILE", f->store, TRUE);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_unsetenv ("ZOT_TEST_EXTENSION_SECRETS_FILE");
  g_free (f->store);
  g_free (f->toast);
  zot_test_env_teardown (&f->env);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  g_test_add ("/zot/gui/ext-secrets/field", Fixture, NULL, fixture_setup, test_field, fixture_teardown);
  return g_test_run ();
}
