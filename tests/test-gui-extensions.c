/* test-gui-extensions.c — the extensions page under a display: a row per
 * extension with its live state, enable/disable through the manifest,
 * restarting one extension, removing an installed one after the
 * confirmation, and the tail of an extension's log. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "zot-extension-row.h"
#include "zot-extension-row-private.h"
#include "zot-extensions-page.h"
#include "zot-extensions-page-private.h"
#include "zot-host.h"
#include "zot-paths.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

static const char *echo_tool =
  "{\"type\":\"register_tool\",\"name\":\"echo_tool\",\"description\":\"Echoes\",\"schema\":{\"type\":\"object\"}}";

typedef struct
{
  ZotTestEnv         env;
  ZotHost           *host;
  GtkWindow         *window;
  ZotExtensionsPage *page;
  GPtrArray         *toasts;
  char              *alpha_dir;
  char              *broken_dir;
  char              *sleepy_dir;
  char              *removable_dir;
} Fixture;

static void
on_toast (ZotExtensionsPage *page,
          const char        *text,
          Fixture           *f)
{
  g_ptr_array_add (f->toasts, g_strdup (text));
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *user_dir = NULL;
  g_autofree char *sleepy_json = NULL;
  gboolean done = FALSE;
  const char *paths[4];

  zot_test_env_setup (&f->env);
  f->toasts = g_ptr_array_new_with_free_func (g_free);

  f->alpha_dir = zot_test_make_fake_args (f->env.root, "alpha",
                                          "--command", "hello",
                                          "--register-json", echo_tool,
                                          NULL);
  f->broken_dir = zot_test_make_fake_args (f->env.root, "broken", "--exit-before-hello", "3", NULL);
  sleepy_json = g_strdup_printf ("{\"name\":\"sleepy\",\"exec\":\"%s\",\"version\":\"2.0.0\","
                                 "\"args\":[\"--name\",\"sleepy\"],\"enabled\":false,"
                                 "\"permissions\":{\"filesystem\":\"project:ro\"}}",
                                 g_getenv ("ZOT_FAKE_EXTENSION"));
  f->sleepy_dir = zot_test_make_manifest (f->env.root, "sleepy", sleepy_json);

  user_dir = zot_paths_get_extensions_dir ();
  g_mkdir_with_parents (user_dir, 0700);
  f->removable_dir = zot_test_make_fake_args (user_dir, "removable", NULL);

  paths[0] = f->alpha_dir;
  paths[1] = f->broken_dir;
  paths[2] = f->sleepy_dir;
  paths[3] = NULL;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);

  f->page = ZOT_EXTENSIONS_PAGE (zot_extensions_page_new ());
  g_signal_connect (f->page, "toast", G_CALLBACK (on_toast), f);
  zot_extensions_page_set_host (f->page, f->host);

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 700, 900);
  gtk_window_set_child (f->window, GTK_WIDGET (f->page));
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->page), (gpointer *) &f->page);
  gtk_window_destroy (f->window);
  g_assert_null (f->page);

  zot_test_finalize_host (&f->host);

  g_clear_pointer (&f->toasts, g_ptr_array_unref);
  g_clear_pointer (&f->alpha_dir, g_free);
  g_clear_pointer (&f->broken_dir, g_free);
  g_clear_pointer (&f->sleepy_dir, g_free);
  g_clear_pointer (&f->removable_dir, g_free);
  zot_test_env_teardown (&f->env);
}

static ZotExtensionManager *
manager_of (Fixture *f)
{
  return zot_host_get_manager (f->host);
}

static GtkWidget *
row_of (Fixture    *f,
        const char *name)
{
  ZotExtension *extension = zot_extension_manager_find (manager_of (f), name);

  if (extension == NULL)
    return NULL;
  return GTK_WIDGET (_zot_extensions_page_get_row (f->page, extension));
}

/* A widget of @row's template, by its id in zot-extension-row.ui. */
static GtkWidget *
row_child (GtkWidget  *row,
           const char *id)
{
  GtkWidget *child = GTK_WIDGET (gtk_widget_get_template_child (row, ZOT_TYPE_EXTENSION_ROW, id));

  g_assert_nonnull (child);
  return child;
}

static const char *
row_state (GtkWidget *row)
{
  return gtk_label_get_text (GTK_LABEL (row_child (row, "state_label")));
}

typedef struct
{
  Fixture    *f;
  const char *name;
  const char *state;
} RowState;

static gboolean
row_has_state (gpointer data)
{
  RowState *want = data;
  GtkWidget *row = row_of (want->f, want->name);

  return row != NULL && g_strcmp0 (row_state (row), want->state) == 0;
}

static void
wait_row_state (Fixture    *f,
                const char *name,
                const char *state)
{
  RowState want = { f, name, state };

  zot_test_wait_until (row_has_state, &want, 30000);
}

static gboolean
manifest_enabled (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "extension.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_object_get_boolean_member_with_default (json_node_get_object (json_parser_get_root (parser)),
                                                     "enabled", TRUE);
}

static void
test_new_destroy (Fixture       *f,
                  gconstpointer  data)
{
  GtkWidget *page = g_object_ref_sink (zot_extensions_page_new ());

  zot_extensions_page_set_host (ZOT_EXTENSIONS_PAGE (page), f->host);
  g_assert_nonnull (_zot_extensions_page_get_row (ZOT_EXTENSIONS_PAGE (page),
                                                  zot_extension_manager_find (manager_of (f), "alpha")));
  zot_extensions_page_set_host (ZOT_EXTENSIONS_PAGE (page), NULL);
  g_assert_null (_zot_extensions_page_get_row (ZOT_EXTENSIONS_PAGE (page),
                                               zot_extension_manager_find (manager_of (f), "alpha")));
  zot_extensions_page_set_host (ZOT_EXTENSIONS_PAGE (page), f->host);
  g_assert_finalize_object (page);
}

static void
test_row_new_destroy (Fixture       *f,
                      gconstpointer  data)
{
  ZotExtension *alpha = zot_extension_manager_find (manager_of (f), "alpha");
  GtkWidget *row = g_object_ref_sink (zot_extension_row_new (alpha));

  g_assert_true (zot_extension_row_get_extension (ZOT_EXTENSION_ROW (row)) == alpha);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "alpha");
  /* Opening it reads the log. */
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  g_assert_finalize_object (row);
}

/* A manifest's name and description reach libadwaita's rows, which wrap
 * by word and character: an orphaned mark there must not abort Pango
 * (zot-wrap-safe.h). */
static void
test_degenerate_manifest (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(JsonObject) ack = json_object_new ();
  g_autoptr(ZotExtension) extension = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *row;

  manifest = zot_manifest_new_from_data (f->env.root,
                                         "{\"name\":\"odd\",\"exec\":\"true\",\"version\":\"1\","
                                         "\"description\":\"Y\\u063f \\u032dR and a\\u06e7 \\u200d\\u06a1\"}",
                                         -1, &error);
  g_assert_no_error (error);
  extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_EXPLICIT, ack);
  row = zot_extension_row_new (extension);
  gtk_window_set_child (GTK_WINDOW (window), row);
  gtk_window_set_default_size (GTK_WINDOW (window), 200, 200);
  gtk_window_present (GTK_WINDOW (window));
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  zot_test_measure_narrowest (row);
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), "\u25cc"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A built-in (the MCP bridge) is the app's: no switch, no Remove. */
static void
test_builtin_row (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(JsonObject) ack = json_object_new ();
  g_autoptr(ZotExtension) extension = NULL;
  GtkWidget *row;

  manifest = zot_manifest_new_from_data (f->env.root, "{\"name\":\"mcp\",\"exec\":\"true\",\"version\":\"1\"}",
                                         -1, &error);
  g_assert_no_error (error);
  extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_BUILTIN, ack);
  row = g_object_ref_sink (zot_extension_row_new (extension));
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), "1 · built in"));
  g_assert_false (gtk_widget_get_visible (row_child (row, "enable_switch")));
  g_assert_false (gtk_widget_get_visible (row_child (row, "remove_button")));
  g_object_unref (row);
}

static void
test_rows (Fixture       *f,
           gconstpointer  data)
{
  ZotExtensionManager *manager = manager_of (f);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (manager));
  g_autofree char *alpha_details = NULL;
  g_autofree char *broken_details = NULL;
  GtkWidget *row;

  g_assert_cmpuint (n, ==, 4);

  /* Every item of the model has its row. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      row = GTK_WIDGET (_zot_extensions_page_get_row (f->page, extension));
      g_assert_nonnull (row);
      g_assert_true (zot_extension_row_get_extension (ZOT_EXTENSION_ROW (row)) == extension);
    }

  wait_row_state (f, "alpha", "ready");
  wait_row_state (f, "broken", "failed");
  wait_row_state (f, "sleepy", "disabled");
  wait_row_state (f, "removable", "ready");

  row = row_of (f, "alpha");
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (row_child (row, "enable_switch"))));
  g_assert_true (gtk_widget_has_css_class (row_child (row, "state_label"), "ext-state-ready"));
  alpha_details = _zot_extension_row_dup_details (ZOT_EXTENSION_ROW (row));
  g_assert_nonnull (strstr (alpha_details, "/hello | fake command hello"));
  g_assert_nonnull (strstr (alpha_details, "echo_tool | Echoes"));
  g_assert_nonnull (strstr (alpha_details, "# Tools"));
  /* An --ext directory is the user's checkout: no Remove. */
  g_assert_false (gtk_widget_get_visible (row_child (row, "remove_button")));

  row = row_of (f, "broken");
  g_assert_true (gtk_widget_has_css_class (row_child (row, "state_label"), "ext-state-failed"));
  broken_details = _zot_extension_row_dup_details (ZOT_EXTENSION_ROW (row));
  g_assert_nonnull (strstr (broken_details, "Last error | "));

  row = row_of (f, "sleepy");
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (row_child (row, "enable_switch"))));
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), ==, "2.0.0 · from --ext · confined: project read-only, no network");

  row = row_of (f, "removable");
  g_assert_true (gtk_widget_get_visible (row_child (row, "remove_button")));
  /* Without "permissions" it has the user's rights, and says so. */
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), " · unconfined"));
}

static void
test_disable_enable (Fixture       *f,
                     gconstpointer  data)
{
  GtkWidget *row;

  wait_row_state (f, "alpha", "ready");
  row = row_of (f, "alpha");

  /* What a click does. */
  gtk_switch_set_active (GTK_SWITCH (row_child (row, "enable_switch")), FALSE);
  g_assert_false (manifest_enabled (f->alpha_dir));
  wait_row_state (f, "alpha", "disabled");
  g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (manager_of (f), "alpha")), ==,
                   ZOT_EXTENSION_STATE_DISABLED);

  row = row_of (f, "alpha");
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (row_child (row, "enable_switch"))));
  gtk_switch_set_active (GTK_SWITCH (row_child (row, "enable_switch")), TRUE);
  g_assert_true (manifest_enabled (f->alpha_dir));
  wait_row_state (f, "alpha", "ready");

  /* The manifest-disabled one starts once enabled. */
  row = row_of (f, "sleepy");
  gtk_switch_set_active (GTK_SWITCH (row_child (row, "enable_switch")), TRUE);
  g_assert_true (manifest_enabled (f->sleepy_dir));
  wait_row_state (f, "sleepy", "ready");
  g_assert_cmpuint (f->toasts->len, ==, 0);
}

typedef struct
{
  ZotExtensionManager *manager;
  ZotExtension        *old;
} Replaced;

static gboolean
alpha_replaced_and_ready (gpointer data)
{
  Replaced *r = data;
  ZotExtension *now = zot_extension_manager_find (r->manager, "alpha");

  return now != NULL && now != r->old && zot_extension_get_state (now) == ZOT_EXTENSION_STATE_READY;
}

static void
test_restart_one (Fixture       *f,
                  gconstpointer  data)
{
  ZotExtensionManager *manager = manager_of (f);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (manager));
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) rows_before = g_ptr_array_new ();
  Replaced replaced = { manager, NULL };
  GtkWidget *row;

  wait_row_state (f, "alpha", "ready");
  wait_row_state (f, "removable", "ready");

  for (guint i = 0; i < n; i++)
    {
      ZotExtension *extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      g_ptr_array_add (before, extension);
      g_ptr_array_add (rows_before, _zot_extensions_page_get_row (f->page, extension));
    }

  replaced.old = zot_extension_manager_find (manager, "alpha");
  row = row_of (f, "alpha");
  g_signal_emit_by_name (row_child (row, "restart_button"), "clicked");
  zot_test_wait_until (alpha_replaced_and_ready, &replaced, 30000);
  wait_row_state (f, "alpha", "ready");

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (manager)), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);
      ZotExtension *old = g_ptr_array_index (before, i);

      if (old == replaced.old)
        {
          g_assert_true (extension != old);
          continue;
        }

      /* The others keep their objects, their processes and their rows. */
      g_assert_true (extension == old);
      g_assert_true (_zot_extensions_page_get_row (f->page, extension) == g_ptr_array_index (rows_before, i));
    }
}

static gboolean
count_frame (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       data)
{
  (*(guint *) data)++;
  gtk_widget_queue_draw (widget);
  return G_SOURCE_CONTINUE;
}

static gboolean
frames_drawn (gpointer data)
{
  return *(guint *) data >= 3;
}

static void
save_window (Fixture    *f,
             const char *path)
{
  GtkWidget *widget = GTK_WIDGET (f->page);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  guint frames = 0;
  guint tick = gtk_widget_add_tick_callback (widget, count_frame, &frames, NULL);

  zot_test_wait_until (frames_drawn, &frames, 10000);
  gtk_widget_remove_tick_callback (widget, tick);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (f->window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

static gboolean
alpha_gave_up (gpointer data)
{
  Fixture *f = data;
  ZotExtension *alpha = zot_extension_manager_find (manager_of (f), "alpha");

  return zot_extension_manager_get_gave_up_note (manager_of (f), alpha) != NULL;
}

/* Crashed too often: the header says so and offers Restart, which starts
 * it again and takes the button away. */
static void
test_gave_up (Fixture       *f,
              gconstpointer  data)
{
  ZotExtensionManager *manager = manager_of (f);
  GtkWidget *row;
  GtkWidget *button;
  g_autofree char *details = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_RESTART_BACKOFF, 1);
  if (g_getenv ("ZOT_TEST_SCREENSHOT") != NULL)
    g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  wait_row_state (f, "alpha", "ready");
  g_assert_false (gtk_widget_get_visible (row_child (row_of (f, "alpha"), "gave_up_button")));
  for (guint i = 0; i < ZOT_RESTART_MAX_FAILURES; i++)
    {
      g_autoptr(GError) error = NULL;

      wait_row_state (f, "alpha", "ready");
      g_assert_false (zot_test_run_command (manager, "hello", "crash 3", &error));
    }
  zot_test_wait_until (alpha_gave_up, f, 30000);
  wait_row_state (f, "alpha", "gave up");

  row = row_of (f, "alpha");
  button = row_child (row, "gave_up_button");
  g_assert_true (gtk_widget_get_visible (button));
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  details = _zot_extension_row_dup_details (ZOT_EXTENSION_ROW (row));
  g_assert_nonnull (strstr (details, "alpha stopped unexpectedly 5 times within 5 minutes"));
  /* tools/screenshot-extension-restart.sh: the row as the user sees it. */
  if (g_getenv ("ZOT_TEST_SCREENSHOT") != NULL)
    save_window (f, g_getenv ("ZOT_TEST_SCREENSHOT"));

  g_signal_emit_by_name (button, "clicked");
  wait_row_state (f, "alpha", "ready");
  g_assert_false (gtk_widget_get_visible (row_child (row_of (f, "alpha"), "gave_up_button")));
  g_assert_null (zot_extension_manager_get_gave_up_note (manager, zot_extension_manager_find (manager, "alpha")));
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_RESTART_BACKOFF, 0);
}

static void
on_reloaded (ZotExtensionManager *manager,
             ZotExtension        *extension,
             const char          *reason,
             guint               *n_reloads)
{
  (*n_reloads)++;
}

static gboolean
reloaded_once (gpointer data)
{
  return *(guint *) data > 0;
}

/* "Reload on change" turns watching on and off; it stays on in the row
 * that replaces a reloaded one. */
static void
test_watch_switch (Fixture       *f,
                   gconstpointer  data)
{
  ZotExtensionManager *manager = manager_of (f);
  g_autofree char *edited = g_build_filename (f->alpha_dir, "main.c", NULL);
  guint n_reloads = 0;
  GtkWidget *row;
  GtkSwitch *watch_switch;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WATCH_DEBOUNCE, 50);
  wait_row_state (f, "alpha", "ready");
  row = row_of (f, "alpha");
  watch_switch = GTK_SWITCH (row_child (row, "watch_switch"));
  g_assert_false (gtk_switch_get_active (watch_switch));
  g_assert_false (zot_extension_manager_get_watched (manager, zot_extension_manager_find (manager, "alpha")));

  gtk_switch_set_active (watch_switch, TRUE);
  g_assert_true (zot_extension_manager_get_watched (manager, zot_extension_manager_find (manager, "alpha")));

  g_signal_connect (manager, "extension-reloaded", G_CALLBACK (on_reloaded), &n_reloads);
  g_assert_true (g_file_set_contents (edited, "int main;\n", -1, NULL));
  zot_test_wait_until (reloaded_once, &n_reloads, 30000);
  wait_row_state (f, "alpha", "ready");

  row = row_of (f, "alpha");
  watch_switch = GTK_SWITCH (row_child (row, "watch_switch"));
  g_assert_true (gtk_switch_get_active (watch_switch));
  gtk_switch_set_active (watch_switch, FALSE);
  g_assert_false (zot_extension_manager_get_watched (manager, zot_extension_manager_find (manager, "alpha")));
  g_signal_handlers_disconnect_by_data (manager, &n_reloads);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WATCH_DEBOUNCE, 0);
}

static gboolean
removable_gone (gpointer data)
{
  Fixture *f = data;

  return zot_extension_manager_find (manager_of (f), "removable") == NULL &&
         zot_extension_manager_find (manager_of (f), "alpha") != NULL &&
         zot_extension_get_state (zot_extension_manager_find (manager_of (f), "alpha")) == ZOT_EXTENSION_STATE_READY;
}

static void
test_remove (Fixture       *f,
             gconstpointer  data)
{
  AdwMessageDialog *dialog;
  ZotExtension *extension;
  GtkWidget *row;

  wait_row_state (f, "removable", "ready");
  row = row_of (f, "removable");
  extension = zot_extension_row_get_extension (ZOT_EXTENSION_ROW (row));

  /* Cancel keeps it. */
  g_signal_emit_by_name (row_child (row, "remove_button"), "clicked");
  dialog = _zot_extensions_page_get_remove_dialog (f->page);
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Remove removable?");
  adw_message_dialog_response (dialog, "cancel");
  g_assert_true (g_file_test (f->removable_dir, G_FILE_TEST_IS_DIR));
  if (_zot_extensions_page_get_remove_dialog (f->page) != NULL)
    gtk_window_destroy (GTK_WINDOW (_zot_extensions_page_get_remove_dialog (f->page)));

  /* Confirming deletes the folder and reloads. */
  g_signal_emit_by_name (row_child (row, "remove_button"), "clicked");
  dialog = _zot_extensions_page_get_remove_dialog (f->page);
  g_assert_nonnull (dialog);
  _zot_extensions_page_remove_response (f->page, extension, "remove");
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* The delete runs on a worker thread: the folder goes soon after. */
  zot_test_wait_until (removable_gone, f, 30000);
  g_assert_false (g_file_test (f->removable_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (manager_of (f))), ==, 3);
  wait_row_state (f, "alpha", "ready");
  g_assert_cmpuint (f->toasts->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->toasts, 0), ==, "Removed removable");
}

typedef struct
{
  Fixture    *f;
  const char *needle;
} LogWant;

static gboolean
log_shows (gpointer data)
{
  LogWant *want = data;
  GtkWidget *row = row_of (want->f, "broken");
  const char *text;

  if (row == NULL)
    return FALSE;
  text = gtk_label_get_text (GTK_LABEL (row_child (row, "log_label")));
  return strstr (text, want->needle) != NULL;
}

static void
test_log_tail (Fixture       *f,
               gconstpointer  data)
{
  LogWant want = { f, "fake-extension: exiting with status 3 before hello" };
  ZotExtension *broken;
  g_autoptr(GString) lots = g_string_new (NULL);
  GtkWidget *row;
  const char *text;

  wait_row_state (f, "broken", "failed");
  broken = zot_extension_manager_find (manager_of (f), "broken");
  row = row_of (f, "broken");

  /* Read when the row opens. */
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  zot_test_wait_until (log_shows, &want, 10000);

  /* A long log shows its last lines; Refresh reads it again. */
  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (lots, "line %u of the log\n", i);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GFile) log = g_file_new_for_path (zot_extension_get_log_path (broken));
    g_autoptr(GFileOutputStream) out = g_file_append_to (log, G_FILE_CREATE_NONE, NULL, &error);

    g_assert_no_error (error);
    g_output_stream_write_all (G_OUTPUT_STREAM (out), lots->str, lots->len, NULL, NULL, &error);
    g_assert_no_error (error);
    g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error);
    g_assert_no_error (error);
  }

  g_signal_emit_by_name (row_child (row, "refresh_button"), "clicked");
  want.needle = "line 4999 of the log";
  zot_test_wait_until (log_shows, &want, 10000);

  text = gtk_label_get_text (GTK_LABEL (row_child (row, "log_label")));
  g_assert_null (strstr (text, "line 4000 of the log"));
  g_assert_null (strstr (text, "exiting with status 3"));
}

static gboolean
reload_done (gpointer data)
{
  Fixture *f = data;

  return gtk_widget_get_sensitive (_zot_extensions_page_get_reload_button (f->page));
}

static void
test_reload_all (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(ZotExtension) old = NULL;
  GtkWidget *button = _zot_extensions_page_get_reload_button (f->page);

  wait_row_state (f, "alpha", "ready");
  old = g_object_ref (zot_extension_manager_find (manager_of (f), "alpha"));

  g_signal_emit_by_name (button, "clicked");
  g_assert_false (gtk_widget_get_sensitive (button));
  zot_test_wait_until (reload_done, f, 30000);

  /* New objects, new rows, the same states. */
  g_assert_true (zot_extension_manager_find (manager_of (f), "alpha") != old);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (manager_of (f))), ==, 4);
  wait_row_state (f, "alpha", "ready");
  wait_row_state (f, "broken", "failed");
  wait_row_state (f, "sleepy", "disabled");
  wait_row_state (f, "removable", "ready");
  g_assert_cmpuint (f->toasts->len, ==, 0);
}

static void
meter_call_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  ZotToolResult *tool_result = zot_tool_execute_finish (ZOT_TOOL (object), result, NULL);

  g_assert_nonnull (tool_result);
  zot_tool_result_free (tool_result);
  *(gboolean *) user_data = TRUE;
}

static gboolean
widget_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static gboolean
meter_shows_p95 (gpointer data)
{
  return strstr (gtk_label_get_text (GTK_LABEL (data)), " · p95\u00a0") != NULL;
}

/* A running extension's row shows its meter in one line, refreshed while
 * it is on screen, and in full among the details; one that never ran
 * shows no line. */
static void
test_meter (Fixture       *f,
            gconstpointer  data)
{
  GtkWidget *row;
  GtkWidget *label;
  GPtrArray *tools;
  g_autoptr(JsonObject) args = zot_test_json_object_from ("{\"late_ms\":20}");
  ZotToolContext context = { .cwd = f->env.cwd, .call_id = "m1" };
  g_autofree char *details = NULL;
  g_autofree char *sleepy_details = NULL;
  gboolean called = FALSE;

  wait_row_state (f, "alpha", "ready");
  wait_row_state (f, "sleepy", "disabled");

  row = row_of (f, "alpha");
  label = zot_test_find_widget (row, GTK_TYPE_LABEL, "ext-meter");
  g_assert_nonnull (label);
  zot_test_wait_until (widget_mapped, label, 10000);
  g_assert_true (gtk_widget_get_visible (label));
  /* Each figure is whole: no plain space inside one. */
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "\u00a0s\u00a0CPU · "));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "\u00a0frames"));
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (label)), "p95"));

  /* A tool call: the next refresh shows its latency. */
  tools = zot_extension_get_tools (zot_extension_row_get_extension (ZOT_EXTENSION_ROW (row)));
  zot_tool_execute_async (g_ptr_array_index (tools, 0), args, &context, NULL, meter_call_cb, &called);
  zot_test_wait_for (&called, 30000);
  zot_test_wait_until (meter_shows_p95, label, 10000);

  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  details = _zot_extension_row_dup_details (ZOT_EXTENSION_ROW (row));
  g_assert_nonnull (strstr (details, "Resource use | CPU time: "));
  g_assert_nonnull (strstr (details, "\nTool calls: 1; latency p50 "));

  row = row_of (f, "sleepy");
  label = zot_test_find_widget (row, GTK_TYPE_LABEL, "ext-meter");
  g_assert_nonnull (label);
  g_assert_false (gtk_widget_get_visible (label));
  sleepy_details = _zot_extension_row_dup_details (ZOT_EXTENSION_ROW (row));
  g_assert_nonnull (strstr (sleepy_details, "Resource use | Not measured"));

  /* Once it runs, its line appears, though the row came before it ran. */
  gtk_switch_set_active (GTK_SWITCH (row_child (row, "enable_switch")), TRUE);
  wait_row_state (f, "sleepy", "ready");
  label = zot_test_find_widget (row_of (f, "sleepy"), GTK_TYPE_LABEL, "ext-meter");
  zot_test_wait_until (widget_mapped, label, 10000);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "\u00a0frames"));
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  g_test_add ("/zot/gui/extensions/new-destroy", Fixture, NULL, fixture_setup, test_new_destroy,
              fixture_teardown);
  g_test_add ("/zot/gui/extensions/row-new-destroy", Fixture, NULL, fixture_setup, test_row_new_destroy,
              fixture_teardown);
  g_test_add ("/zot/gui/extensions/rows", Fixture, NULL, fixture_setup, test_rows, fixture_teardown);
  g_test_add ("/zot/gui/extensions/degenerate-manifest", Fixture, NULL, fixture_setup, test_degenerate_manifest,
              fixture_teardown);
  g_test_add ("/zot/gui/extensions/disable-enable", Fixture, NULL, fixture_setup, test_disable_enable,
              fixture_teardown);
  g_test_add ("/zot/gui/extensions/restart-one", Fixture, NULL, fixture_setup, test_restart_one,
              fixture_teardown);
  g_test_add ("/zot/gui/extensions/remove", Fixture, NULL, fixture_setup, test_remove, fixture_teardown);
  g_test_add ("/zot/gui/extensions/log-tail", Fixture, NULL, fixture_setup, test_log_tail, fixture_teardown);
  g_test_add ("/zot/gui/extensions/reload", Fixture, NULL, fixture_setup, test_reload_all, fixture_teardown);
  g_test_add ("/zot/gui/extensions/gave-up", Fixture, NULL, fixture_setup, test_gave_up, fixture_teardown);
  g_test_add ("/zot/gui/extensions/watch-switch", Fixture, NULL, fixture_setup, test_watch_switch,
              fixture_teardown);
  g_test_add ("/zot/gui/extensions/meter", Fixture, NULL, fixture_setup, test_meter, fixture_teardown);
  g_test_add ("/zot/gui/extensions/builtin-row", Fixture, NULL, fixture_setup, test_builtin_row, fixture_teardown);

  return g_test_run ();
}
