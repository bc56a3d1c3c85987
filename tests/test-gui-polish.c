/* test-gui-polish.c — the small things a window is judged by: Ctrl+W
 * closes it (asking while a run goes on), there is one New Conversation
 * button, the start view has the main menu, toasts stay above the prompt,
 * and a zot run from the build tree speaks the desktop's language. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>
#include <glib/gi18n.h>

#include "zot-application.h"
#include "zot-gui-test-util.h"
#include "zot-i18n.h"
#include "zot-project-chooser.h"
#include "zot-test-util.h"
#include "zot-window.h"
#include "zot-window-private.h"

typedef struct
{
  ZotTestEnv  env;
  GSettings  *settings;
  char       *folder;
} Fixture;

/* One application for the whole program: GApplication registers once. */
static ZotApplication *application;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_gui_env_setup (&f->env);

  f->folder = g_build_filename (f->env.root, "polished", NULL);
  g_assert_cmpint (g_mkdir_with_parents (f->folder, 0700), ==, 0);
  f->settings = g_settings_new (APP_ID);
  g_settings_reset (f->settings, "recent-projects");
  g_settings_reset (f->settings, "approval-policy");
}

static gboolean
no_windows (gpointer data)
{
  return gtk_application_get_windows (GTK_APPLICATION (application)) == NULL;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (application)));

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free (windows);
  zot_test_wait_until (no_windows, NULL, 30000);

  g_clear_object (&f->settings);
  g_clear_pointer (&f->folder, g_free);
  zot_test_env_teardown (&f->env);
}

static gboolean
window_ready (gpointer data)
{
  return zot_window_get_host (data) != NULL && gtk_widget_get_mapped (data);
}

static ZotWindow *
open_project (const char *folder)
{
  ZotWindow *window = zot_application_open_project (application, folder);

  g_assert_nonnull (window);
  zot_test_wait_until (window_ready, window, 20000);
  return window;
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static ZotProjectChooser *
find_start_view (void)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (application)); l != NULL; l = l->next)
    if (ZOT_IS_PROJECT_CHOOSER (l->data))
      return l->data;
  return NULL;
}

static void
prompt_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autofree char *text = zot_agent_prompt_finish (ZOT_AGENT (object), result, NULL);

  *(gboolean *) user_data = TRUE;
}

/* Ctrl+W is the windows' own close action, so a project window asks
 * before stopping a run, and the start view closes too. */
static void
test_ctrl_w (Fixture       *f,
             gconstpointer  data)
{
  g_auto(GStrv) actions = gtk_application_get_actions_for_accel (GTK_APPLICATION (application), "<Control>w");
  ZotWindow *window;
  ZotProjectChooser *start_view;
  ZotAgent *agent;
  gpointer weak;
  gboolean done = FALSE;

  g_assert_true (g_strv_contains ((const char * const *) actions, "window.close"));

  g_settings_set_string (f->settings, "approval-policy", "yolo");
  window = open_project (f->folder);
  agent = zot_host_get_agent (zot_window_get_host (window));
  zot_agent_prompt_async (agent, "tool: bash {\"command\":\"sleep 120\"}", NULL, prompt_done_cb, &done);
  g_assert_true (zot_agent_is_running (agent));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "window.close", NULL));
  g_assert_nonnull (window->close_dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  g_assert_true (zot_agent_is_running (agent));

  weak = window;
  g_object_add_weak_pointer (weak, &weak);
  adw_message_dialog_response (window->close_dialog, "close");
  zot_test_wait_until (window_gone, &weak, 30000);
  zot_test_wait_for (&done, 30000);

  zot_application_show_projects (application);
  start_view = find_start_view ();
  g_assert_nonnull (start_view);
  weak = start_view;
  g_object_add_weak_pointer (weak, &weak);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (start_view), "window.close", NULL));
  zot_test_wait_until (window_gone, &weak, 30000);
}

/* One New Conversation button, in the header bar, where it stays when the
 * sidebar is hidden. */
static void
test_one_new_button (Fixture       *f,
                     gconstpointer  data)
{
  ZotWindow *window = open_project (f->folder);
  g_autoptr(GPtrArray) buttons = zot_test_find_widgets (GTK_WIDGET (window), GTK_TYPE_BUTTON, NULL);
  GtkWidget *found = NULL;
  guint n = 0;

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_actionable_get_action_name (buttons->pdata[i]), "win.new-conversation") == 0)
      {
        found = buttons->pdata[i];
        n++;
      }

  g_assert_cmpuint (n, ==, 1);
  g_assert_true (gtk_widget_is_ancestor (found, GTK_WIDGET (window->header_bar)));
}

/* The start view has the main menu, and everything in it works there. */
static void
test_start_view_menu (Fixture       *f,
                      gconstpointer  data)
{
  ZotProjectChooser *start_view;
  GtkWidget *menu_button = NULL;
  g_autoptr(GPtrArray) menu_buttons = NULL;
  GMenuModel *menu;
  g_autoptr(GPtrArray) actions = g_ptr_array_new_with_free_func (g_free);

  zot_application_show_projects (application);
  start_view = find_start_view ();
  g_assert_nonnull (start_view);

  menu_buttons = zot_test_find_widgets (GTK_WIDGET (start_view), GTK_TYPE_MENU_BUTTON, NULL);
  for (guint i = 0; i < menu_buttons->len; i++)
    if (gtk_menu_button_get_primary (menu_buttons->pdata[i]))
      menu_button = menu_buttons->pdata[i];
  g_assert_nonnull (menu_button);
  g_assert_true (gtk_widget_get_mapped (menu_button));
  g_assert_nonnull (gtk_widget_get_ancestor (menu_button, ADW_TYPE_HEADER_BAR));

  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu_button));
  g_assert_nonnull (menu);
  for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
    {
      GMenuModel *section = g_menu_model_get_item_link (menu, s, G_MENU_LINK_SECTION);

      for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
        {
          char *action = NULL;

          g_assert_true (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action));
          g_ptr_array_add (actions, action);
        }
      g_clear_object (&section);
    }

  g_assert_cmpuint (actions->len, >=, 4);
  for (guint i = 0; i < actions->len; i++)
    {
      const char *action = actions->pdata[i];

      if (g_str_has_prefix (action, "app."))
        g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (application), action + 4));
      else if (g_str_has_prefix (action, "win."))
        g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (start_view), action + 4));
      else
        g_assert_not_reached ();
    }
  g_assert_true (g_ptr_array_find_with_equal_func (actions, "app.open-folder", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (actions, "app.quit", g_str_equal, NULL));
}

static void
find_toasts (GtkWidget *widget,
             GPtrArray *found)
{
  if (g_str_equal (gtk_widget_get_css_name (widget), "toast"))
    g_ptr_array_add (found, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    find_toasts (child, found);
}

static gboolean
toast_shown (gpointer data)
{
  g_autoptr(GPtrArray) toasts = g_ptr_array_new ();

  find_toasts (data, toasts);
  return toasts->len == 1 && gtk_widget_get_mapped (toasts->pdata[0]) &&
         gtk_widget_get_height (toasts->pdata[0]) > 0;
}

/* A toast shows above the prompt and its Send button, never over them. */
static void
test_toast_above_prompt (Fixture       *f,
                         gconstpointer  data)
{
  ZotWindow *window = open_project (f->folder);
  g_autoptr(GPtrArray) toasts = g_ptr_array_new ();
  graphene_rect_t toast;
  graphene_rect_t prompt;

  /* Where the toast ends up, not where it slides in from. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  zot_window_show_toast (window, "A toast for the test");
  zot_test_wait_until (toast_shown, window, 20000);
  find_toasts (GTK_WIDGET (window), toasts);

  g_assert_true (gtk_widget_compute_bounds (toasts->pdata[0], GTK_WIDGET (window), &toast));
  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (window->prompt_editor), GTK_WIDGET (window), &prompt));
  g_assert_cmpfloat (prompt.size.height, >, 0);
  g_assert_cmpfloat (toast.origin.y + toast.size.height, <=, prompt.origin.y);
}

/* Run from the build tree, zot finds the catalogues meson built there:
 * the window and the command line speak German on a German desktop. */
static void
test_translations_uninstalled (Fixture       *f,
                               gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      ZotProjectChooser *start_view;
      AdwStatusPage *status_page;

      g_setenv ("LANGUAGE", "de", TRUE);
      g_setenv ("LC_ALL", "C.UTF-8", TRUE);
      zot_i18n_init ();
      g_assert_cmpstr (zot_i18n_get_locale_dir (), ==, ZOT_BUILD_LOCALEDIR);

      zot_application_show_projects (application);
      start_view = find_start_view ();
      g_assert_nonnull (start_view);
      status_page = ADW_STATUS_PAGE (zot_test_find_widget (GTK_WIDGET (start_view), ADW_TYPE_STATUS_PAGE, NULL));
      g_assert_cmpstr (adw_status_page_get_title (status_page), ==, "Ein Projekt öffnen");
      return;
    }

  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();

  /* The command line, as tools/run.sh runs it. */
  {
    g_auto(GStrv) envp = g_get_environ ();
    const char *argv[] = { g_getenv ("ZOT_BIN"), "--help", NULL };
    g_autofree char *out = NULL;
    g_autoptr(GError) error = NULL;
    int status = -1;

    envp = g_environ_setenv (envp, "LANGUAGE", "de", TRUE);
    envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);
    g_assert_nonnull (argv[0]);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status,
                                 &error));
    g_assert_no_error (error);
    g_assert_nonnull (strstr (out, "Aufruf:"));
  }
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  application = zot_application_new ();
  g_application_set_flags (G_APPLICATION (application),
                           G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_HANDLES_OPEN |
                           G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (application), NULL, NULL));

  g_test_add ("/zot/gui/polish/ctrl-w", Fixture, NULL, fixture_setup, test_ctrl_w, fixture_teardown);
  g_test_add ("/zot/gui/polish/one-new-button", Fixture, NULL, fixture_setup, test_one_new_button,
              fixture_teardown);
  g_test_add ("/zot/gui/polish/start-view-menu", Fixture, NULL, fixture_setup, test_start_view_menu,
              fixture_teardown);
  g_test_add ("/zot/gui/polish/toast-above-prompt", Fixture, NULL, fixture_setup, test_toast_above_prompt,
              fixture_teardown);
  g_test_add ("/zot/gui/polish/translations-uninstalled", Fixture, NULL, fixture_setup,
              test_translations_uninstalled, fixture_teardown);

  return g_test_run ();
}
