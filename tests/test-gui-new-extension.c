/* test-gui-new-extension.c — New Extension… on the extensions page: the
 * dialog offers every language, writes the skeleton off the main loop,
 * closes and the new extension starts as a `--ext` extension of the
 * window's project, its command registered; a taken folder is refused in
 * the dialog, which stays open and leaves the folder alone.
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "zot-application.h"
#include "zot-extensions-page-private.h"
#include "zot-ext-new.h"
#include "zot-gui-test-util.h"
#include "zot-new-extension-dialog-private.h"
#include "zot-options.h"
#include "zot-test-util.h"
#include "zot-window-private.h"
#include "zot-window.h"

/* A window and its host on a loaded machine; the safety net, not the measure. */
#define WAIT_MS 30000

typedef struct
{
  ZotTestEnv      env;
  ZotWindow      *window;
  char           *fake;    /* an extension the window starts with */
} Fixture;

/* One application for the whole program: GApplication registers once. */
static ZotApplication *application;

static gboolean
all_ready (gpointer data)
{
  ZotWindow *window = data;
  ZotHost *host = zot_window_get_host (window);
  GListModel *model;
  guint n;

  if (host == NULL || !gtk_widget_get_mapped (GTK_WIDGET (window)))
    return FALSE;
  model = G_LIST_MODEL (zot_host_get_manager (host));
  n = g_list_model_get_n_items (model);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (model, i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        return FALSE;
    }
  return n > 0;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  const char * const args[] = { NULL };

  zot_test_env_setup (&f->env);
  f->fake = zot_test_make_fake (f->env.root, "fake", args);

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_new0 (char *, 2);
  options.ext_paths[0] = g_strdup (f->fake);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->window = ZOT_WINDOW (zot_window_new (application, &options, -1));
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (all_ready, f->window, WAIT_MS);
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gpointer weak = f->window;

  g_object_add_weak_pointer (weak, &weak);
  gtk_window_close (GTK_WINDOW (f->window));
  zot_test_wait_until (window_gone, &weak, WAIT_MS);
  g_clear_pointer (&f->fake, g_free);
  zot_test_env_teardown (&f->env);
}

static ZotNewExtensionDialog *
find_dialog (void)
{
  return (ZotNewExtensionDialog *) zot_test_find_window (ZOT_TYPE_NEW_EXTENSION_DIALOG);
}

/* Clicks New Extension… and returns the dialog it opens, for the project. */
static ZotNewExtensionDialog *
open_dialog (Fixture *f)
{
  GtkWidget *button = _zot_extensions_page_get_new_button (f->window->extensions_page);
  ZotNewExtensionDialog *dialog;

  g_assert_null (find_dialog ());
  g_assert_true (gtk_widget_get_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  dialog = find_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_modal (GTK_WINDOW (dialog)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (f->window));
  /* The project is where it goes unless the user chooses another */
  g_assert_cmpstr (zot_new_extension_dialog_get_folder (dialog), ==, f->env.cwd);
  return dialog;
}

static void
fill_in (ZotNewExtensionDialog *dialog,
         const char            *name,
         const char            *language)
{
  const char * const *languages = zot_ext_new_languages ();
  AdwComboRow *row = _zot_new_extension_dialog_get_language_row (dialog);
  GListModel *titles = adw_combo_row_get_model (row);
  guint index = G_MAXUINT;

  /* Every language, by its name for people */
  g_assert_cmpuint (g_list_model_get_n_items (titles), ==, g_strv_length ((GStrv) languages));
  for (guint i = 0; languages[i] != NULL; i++)
    {
      g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (titles), i), ==,
                       zot_ext_new_language_title (languages[i]));
      if (g_str_equal (languages[i], language))
        index = i;
    }
  g_assert_cmpuint (index, !=, G_MAXUINT);

  g_assert_false (gtk_widget_get_sensitive (_zot_new_extension_dialog_get_create_button (dialog)));
  gtk_editable_set_text (GTK_EDITABLE (_zot_new_extension_dialog_get_name_row (dialog)), name);
  adw_combo_row_set_selected (row, index);
  g_assert_true (gtk_widget_get_sensitive (_zot_new_extension_dialog_get_create_button (dialog)));
}

typedef struct
{
  ZotWindow  *window;
  const char *name;
} Loaded;

static gboolean
extension_ready (gpointer data)
{
  Loaded *loaded = data;
  ZotExtensionManager *manager = zot_host_get_manager (zot_window_get_host (loaded->window));
  ZotExtension *extension = zot_extension_manager_find (manager, loaded->name);

  return extension != NULL && zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY;
}

static gboolean
dialog_gone (gpointer data)
{
  return find_dialog () == NULL;
}

static gboolean
error_shown (gpointer data)
{
  return gtk_widget_get_visible (GTK_WIDGET (_zot_new_extension_dialog_get_error_label (data)));
}

static void
test_creates_and_loads (Fixture       *f,
                        gconstpointer  data)
{
  ZotNewExtensionDialog *dialog = open_dialog (f);
  g_autofree char *dir = g_build_filename (f->env.cwd, "word counter", NULL);
  g_autofree char *manifest = g_build_filename (dir, "extension.json", NULL);
  ZotExtensionManager *manager = zot_host_get_manager (zot_window_get_host (f->window));
  Loaded loaded = { f->window, "word counter" };
  ZotExtension *extension;
  const char *canonical = NULL;

  fill_in (dialog, "word counter", "python");
  g_signal_emit_by_name (_zot_new_extension_dialog_get_create_button (dialog), "clicked");
  /* Written on a worker thread: the form waits, insensitive */
  g_assert_false (gtk_widget_get_sensitive (_zot_new_extension_dialog_get_create_button (dialog)));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (_zot_new_extension_dialog_get_name_row (dialog))));

  zot_test_wait_until (dialog_gone, NULL, WAIT_MS);
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  zot_test_wait_until (extension_ready, &loaded, WAIT_MS);

  /* A --ext extension of the project, with its command; the first stays */
  extension = zot_extension_manager_find (manager, "word counter");
  g_assert_cmpint (zot_extension_get_scope (extension), ==, ZOT_EXTENSION_SCOPE_EXPLICIT);
  g_assert_true (zot_extension_manager_lookup_command (manager, "word-counter", &canonical) == extension);
  g_assert_nonnull (zot_extension_manager_find (manager, "fake"));
  g_assert_true (g_strv_contains ((const char * const *) f->window->options.ext_paths, dir));
}

static void
test_taken_folder (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *taken = g_build_filename (f->env.cwd, "taken", NULL);
  g_autofree char *mine = g_build_filename (taken, "mine.txt", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *kept = NULL;
  ZotNewExtensionDialog *dialog;
  GtkLabel *error_label;

  g_assert_cmpint (g_mkdir (taken, 0755), ==, 0);
  g_assert_true (g_file_set_contents (mine, "mine", -1, NULL));

  dialog = open_dialog (f);
  error_label = _zot_new_extension_dialog_get_error_label (dialog);
  fill_in (dialog, "taken", "go");
  g_signal_emit_by_name (_zot_new_extension_dialog_get_create_button (dialog), "clicked");
  zot_test_wait_until (error_shown, dialog, WAIT_MS);

  expected = g_strdup_printf ("%s already exists and is not empty; choose another name or folder", taken);
  g_assert_cmpstr (gtk_label_get_text (error_label), ==, expected);
  g_assert_true (find_dialog () == dialog);
  g_assert_true (gtk_widget_get_sensitive (_zot_new_extension_dialog_get_create_button (dialog)));
  g_assert_null (zot_extension_manager_find (zot_host_get_manager (zot_window_get_host (f->window)), "taken"));

  /* Another name clears it */
  gtk_editable_set_text (GTK_EDITABLE (_zot_new_extension_dialog_get_name_row (dialog)), "other");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (error_label)));

  gtk_window_close (GTK_WINDOW (dialog));
  zot_test_wait_until (dialog_gone, NULL, WAIT_MS);
  kept = zot_test_read_file (mine);
  g_assert_cmpstr (kept, ==, "mine");
}

int
main (int    argc,
      char **argv)
{
  application = zot_test_gui_init (&argc, &argv);

  g_test_add ("/zot/gui/new-extension/creates-and-loads", Fixture, NULL, fixture_setup,
              test_creates_and_loads, fixture_teardown);
  g_test_add ("/zot/gui/new-extension/taken-folder", Fixture, NULL, fixture_setup,
              test_taken_folder, fixture_teardown);

  return g_test_run ();
}
