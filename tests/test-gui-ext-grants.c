/* test-gui-ext-grants.c — the switches in a confined extension's row: one
 * per granted right, the files as a drop-down; turning one off takes the
 * right back in the grant and asks for a restart. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "zot-extension-row.h"
#include "zot-grants.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  guint       restarts;
  char       *toast;
} Fixture;

static void
on_restart (GtkWidget *row,
            Fixture   *f)
{
  f->restarts++;
}

static void
on_toast (GtkWidget  *row,
          const char *text,
          Fixture    *f)
{
  g_free (f->toast);
  f->toast = g_strdup (text);
}

static GtkWidget *
find_row (GtkWidget  *widget,
          GType       type,
          const char *title)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_row (child, type, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkSwitch *
find_switch (GtkWidget  *row,
             const char *title)
{
  GtkWidget *found = find_row (row, ADW_TYPE_ACTION_ROW, title);

  g_assert_nonnull (found);
  return GTK_SWITCH (adw_action_row_get_activatable_widget (ADW_ACTION_ROW (found)));
}

static Fixture *waiting;
static guint wanted;

static gboolean
restarted (gpointer data)
{
  return waiting->restarts >= wanted;
}

static gboolean
toasted (gpointer data)
{
  return ((Fixture *) data)->toast != NULL;
}

static void
wait_restarts (Fixture *f,
               guint    count)
{
  waiting = f;
  wanted = count;
  zot_test_wait_until (restarted, NULL, 10000);
}

static void
test_switches (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(JsonObject) ack = json_object_new ();
  g_autoptr(ZotExtension) extension = NULL;
  g_autoptr(ZotGrant) grant = NULL;
  g_autoptr(ZotPermissions) applied = NULL;
  g_autofree char *grant_path = g_build_filename (f->env.home, "grants", "boxed.json", NULL);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *row, *files;
  GtkSwitch *network;

  manifest = zot_manifest_new_from_data (f->env.root,
                                         "{\"name\":\"boxed\",\"exec\":\"true\",\"version\":\"1\","
                                         "\"permissions\":{\"filesystem\":\"project\",\"network\":true,"
                                         "\"env\":[\"LANG\"],\"secrets\":[\"TOKEN\"]}}", -1, &error);
  g_assert_no_error (error);
  g_assert_true (zot_grants_accept (manifest, NULL, &error));
  extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_USER, ack);
  row = zot_extension_row_new (extension);
  g_signal_connect (row, "restart", G_CALLBACK (on_restart), f);
  g_signal_connect (row, "toast", G_CALLBACK (on_toast), f);
  gtk_window_set_child (GTK_WINDOW (window), row);
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 700);
  gtk_window_present (GTK_WINDOW (window));
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);

  /* What was granted shows as on; devices were never asked for. */
  network = find_switch (row, "Network");
  g_assert_true (gtk_switch_get_active (network));
  g_assert_true (gtk_switch_get_active (find_switch (row, "Environment variable LANG")));
  g_assert_true (gtk_switch_get_active (find_switch (row, "Gets secret TOKEN")));
  g_assert_null (find_row (row, ADW_TYPE_ACTION_ROW, "Devices (/dev)"));
  files = find_row (row, ADW_TYPE_COMBO_ROW, "Files");
  g_assert_nonnull (files);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (files)), ==, ZOT_FILESYSTEM_PROJECT);
  /* Down to what the manifest asked, no further up. */
  g_assert_cmpuint (g_list_model_get_n_items (adw_combo_row_get_model (ADW_COMBO_ROW (files))), ==,
                    ZOT_FILESYSTEM_PROJECT + 1);

  gtk_switch_set_active (network, FALSE);
  wait_restarts (f, 1);
  grant = zot_grant_load ("boxed");
  g_assert_false (grant->permissions->network);
  applied = zot_grants_applied (manifest);
  g_assert_false (applied->network);
  g_assert_cmpint (applied->filesystem, ==, ZOT_FILESYSTEM_PROJECT);

  adw_combo_row_set_selected (ADW_COMBO_ROW (files), ZOT_FILESYSTEM_PROJECT_RO);
  wait_restarts (f, 2);
  gtk_switch_set_active (find_switch (row, "Environment variable LANG"), FALSE);
  wait_restarts (f, 3);
  g_clear_pointer (&applied, zot_permissions_free);
  applied = zot_grants_applied (manifest);
  g_assert_cmpint (applied->filesystem, ==, ZOT_FILESYSTEM_PROJECT_RO);
  g_assert_cmpuint (g_strv_length (applied->env), ==, 0);
  g_assert_cmpstrv (applied->secrets, ((const char *[]) { "TOKEN", NULL }));

  /* Nothing to change: the switch goes back and the row says why. */
  g_assert_cmpint (g_remove (grant_path), ==, 0);
  gtk_switch_set_active (network, TRUE);
  zot_test_wait_until (toasted, f, 10000);
  g_assert_nonnull (strstr (f->toast, "boxed has no grant to narrow"));
  g_assert_false (gtk_switch_get_active (network));
  g_clear_pointer (&f->toast, g_free);
  adw_combo_row_set_selected (ADW_COMBO_ROW (files), ZOT_FILESYSTEM_NONE);
  zot_test_wait_until (toasted, f, 10000);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (files)), ==, ZOT_FILESYSTEM_PROJECT_RO);
  g_assert_cmpuint (f->restarts, ==, 3);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
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
  g_test_add ("/zot/gui/ext-grants/switches", Fixture, NULL, fixture_setup, test_switches, fixture_teardown);
  return g_test_run ();
}
