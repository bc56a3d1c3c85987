/* test-gui-projects.c — a window per project folder: opened or raised,
 * from the start view, the desktop's open, a dropped folder; the title
 * shows the project; closing during a run asks first; the header shows
 * the conversation's tokens. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "zot-application.h"
#include "zot-gui-test-util.h"
#include "zot-project-chooser.h"
#include "zot-test-util.h"
#include "zot-usage-label.h"
#include "zot-window.h"
#include "zot-window-private.h"

typedef struct
{
  ZotTestEnv  env;
  GSettings  *settings;
  char       *alpha;
  char       *beta;
} Fixture;

/* One application for the whole program: GApplication registers once. */
static ZotApplication *application;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_gui_env_setup (&f->env);

  f->alpha = g_build_filename (f->env.root, "alpha", NULL);
  f->beta = g_build_filename (f->env.root, "beta", NULL);
  g_assert_cmpint (g_mkdir (f->alpha, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (f->beta, 0700), ==, 0);

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
close_all (void)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (application)));

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free (windows);
  zot_test_wait_until (no_windows, NULL, 30000);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  close_all ();
  g_clear_object (&f->settings);
  g_clear_pointer (&f->alpha, g_free);
  g_clear_pointer (&f->beta, g_free);
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

static char **
open_project_state (void)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (application), "project-windows");

  return g_variant_dup_strv (state, NULL);
}

static gboolean
start_view_state (void)
{
  g_autoptr(GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (application), "start-view");

  return g_variant_get_boolean (state);
}

static ZotProjectChooser *
find_start_view (void)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (application)); l != NULL; l = l->next)
    if (ZOT_IS_PROJECT_CHOOSER (l->data))
      return l->data;
  return NULL;
}

/* The first message dialog on screen that belongs to @parent (NULL: to
 * none) and offers @response. */
static AdwMessageDialog *
find_dialog (GtkWindow  *parent,
             const char *response)
{
  g_autoptr(GList) toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data) && gtk_widget_get_visible (l->data) &&
        gtk_window_get_transient_for (l->data) == parent &&
        adw_message_dialog_has_response (l->data, response))
      return l->data;
  return NULL;
}

typedef struct
{
  GtkWindow  *parent;
  const char *response;
} DialogWait;

static gboolean
dialog_shown (gpointer data)
{
  DialogWait *wait = data;

  return find_dialog (wait->parent, wait->response) != NULL;
}

static AdwMessageDialog *
wait_for_dialog (GtkWindow  *parent,
                 const char *response)
{
  DialogWait wait = { parent, response };

  zot_test_wait_until (dialog_shown, &wait, 20000);
  return find_dialog (parent, response);
}

static gboolean
project_open (gpointer folder)
{
  ZotWindow *window = zot_application_find_project (application, folder);

  return window != NULL && window_ready (window);
}

/* `zot --cwd DIR` and the open action: one window per folder, raised when
 * it is open; the title is the folder's name; each has its own host. */
static void
test_open_or_raise (Fixture       *f,
                    gconstpointer  data)
{
  ZotWindow *alpha = open_project (f->alpha);
  g_autofree char *alpha_slash = g_strconcat (f->alpha, "/", NULL);
  g_auto(GStrv) recent = NULL;
  g_auto(GStrv) state = NULL;
  g_auto(GStrv) after = NULL;
  ZotWindow *beta;
  AdwWindowTitle *title;

  g_assert_cmpstr (zot_window_get_cwd (alpha), ==, f->alpha);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (alpha)), ==, "alpha — Zot");
  title = ADW_WINDOW_TITLE (zot_test_find_widget (GTK_WIDGET (alpha), ADW_TYPE_WINDOW_TITLE, NULL));
  g_assert_cmpstr (adw_window_title_get_title (title), ==, "alpha");
  g_assert_cmpstr (zot_agent_get_cwd (zot_host_get_agent (zot_window_get_host (alpha))), ==, f->alpha);

  /* The same folder, however it is spelled: the same window. */
  g_assert_true (zot_application_open_project (application, f->alpha) == alpha);
  g_assert_true (zot_application_open_project (application, alpha_slash) == alpha);

  beta = open_project (f->beta);
  g_assert_true (beta != alpha);
  g_assert_true (zot_window_get_host (beta) != zot_window_get_host (alpha));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (beta)), ==, "beta — Zot");
  g_assert_cmpstr (zot_agent_get_cwd (zot_host_get_agent (zot_window_get_host (beta))), ==, f->beta);

  recent = g_settings_get_strv (f->settings, "recent-projects");
  g_assert_cmpstrv (recent, ((const char *[]) { f->beta, f->alpha, NULL }));

  state = open_project_state ();
  g_assert_cmpuint (g_strv_length (state), ==, 2);
  g_assert_true (g_strv_contains ((const char * const *) state, f->alpha));
  g_assert_true (g_strv_contains ((const char * const *) state, f->beta));
  g_assert_false (start_view_state ());

  close_all ();
  after = open_project_state ();
  g_assert_cmpuint (g_strv_length (after), ==, 0);
}

/* The start view lists the recent projects, each with a button that
 * forgets it; choosing one opens it in its own window and the start view
 * goes. */
static void
test_start_view (Fixture       *f,
                 gconstpointer  data)
{
  const char *recent[] = { f->beta, f->alpha, NULL };
  g_autoptr(GPtrArray) rows = NULL;
  g_auto(GStrv) after = NULL;
  ZotProjectChooser *start_view;
  GtkWidget *remove;

  g_settings_set_strv (f->settings, "recent-projects", recent);
  zot_application_show_projects (application);
  start_view = find_start_view ();
  g_assert_nonnull (start_view);
  g_assert_true (start_view_state ());

  rows = zot_test_find_widgets (GTK_WIDGET (start_view), ADW_TYPE_ACTION_ROW, NULL);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_cmpstr (adw_preferences_row_get_title (rows->pdata[0]), ==, "beta");
  g_assert_cmpstr (adw_preferences_row_get_title (rows->pdata[1]), ==, "alpha");

  /* A row's remove button forgets that project, and its row goes. */
  remove = zot_test_find_widget (rows->pdata[0], GTK_TYPE_BUTTON, "flat");
  g_assert_nonnull (remove);
  g_signal_emit_by_name (remove, "clicked");
  after = g_settings_get_strv (f->settings, "recent-projects");
  g_assert_cmpstrv (after, ((const char *[]) { f->alpha, NULL }));
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = zot_test_find_widgets (GTK_WIDGET (start_view), ADW_TYPE_ACTION_ROW, NULL);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_cmpstr (adw_preferences_row_get_title (rows->pdata[0]), ==, "alpha");

  g_signal_emit_by_name (rows->pdata[0], "activate");
  zot_test_wait_until (project_open, f->alpha, 20000);
  g_assert_null (find_start_view ());
  g_assert_false (start_view_state ());
}

/* A recent project whose folder is gone says so and leaves the list. */
static void
test_missing_folder (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *gone = g_build_filename (f->env.root, "gone", NULL);
  const char *recent[] = { gone, f->alpha, NULL };
  g_auto(GStrv) after = NULL;
  AdwMessageDialog *dialog;

  g_settings_set_strv (f->settings, "recent-projects", recent);
  g_assert_null (zot_application_open_project (application, gone));

  after = g_settings_get_strv (f->settings, "recent-projects");
  g_assert_cmpstrv (after, ((const char *[]) { f->alpha, NULL }));
  dialog = wait_for_dialog (NULL, "close");
  adw_message_dialog_response (dialog, "close");
}

/* A folder dropped on a window: an extension is offered for install, any
 * other folder to open as a project. */
static void
test_drop_folder (Fixture       *f,
                  gconstpointer  data)
{
  ZotWindow *alpha = open_project (f->alpha);
  g_autoptr(GFile) beta = g_file_new_for_path (f->beta);
  g_autofree char *ext_dir = zot_test_make_manifest (f->env.root, "dropped",
                                                     "{\"name\":\"dropped\",\"exec\":\"true\"}");
  g_autoptr(GFile) ext = g_file_new_for_path (ext_dir);
  AdwMessageDialog *dialog;

  g_assert_true (zot_window_open_files (alpha, &(GSList) { beta, NULL }));
  dialog = wait_for_dialog (GTK_WINDOW (alpha), "open");
  adw_message_dialog_response (dialog, "open");
  zot_test_wait_until (project_open, f->beta, 20000);
  g_assert_true (zot_application_find_project (application, f->alpha) == alpha);

  g_assert_true (zot_window_open_files (alpha, &(GSList) { ext, NULL }));
  dialog = wait_for_dialog (GTK_WINDOW (alpha), "user");
  g_assert_false (adw_message_dialog_has_response (dialog, "open"));
  adw_message_dialog_response (dialog, "cancel");
}

/* The desktop's open: a folder is a project; an extension is offered for
 * install, also when no project is open yet (the first project opened
 * offers it). */
static void
test_desktop_open (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GFile) alpha_file = g_file_new_for_path (f->alpha);
  g_autofree char *ext_dir = zot_test_make_manifest (f->env.root, "opened",
                                                     "{\"name\":\"opened\",\"exec\":\"true\"}");
  g_autoptr(GFile) ext = g_file_new_for_path (ext_dir);
  ZotWindow *alpha;
  AdwMessageDialog *dialog;

  g_application_open (G_APPLICATION (application), &ext, 1, "");
  g_assert_nonnull (find_start_view ());

  g_application_open (G_APPLICATION (application), &alpha_file, 1, "");
  zot_test_wait_until (project_open, f->alpha, 20000);
  alpha = zot_application_find_project (application, f->alpha);
  g_assert_null (find_start_view ());
  dialog = wait_for_dialog (GTK_WINDOW (alpha), "user");
  adw_message_dialog_response (dialog, "cancel");

  /* With a project open, it offers the install at once. */
  g_application_open (G_APPLICATION (application), &ext, 1, "");
  dialog = wait_for_dialog (GTK_WINDOW (alpha), "user");
  adw_message_dialog_response (dialog, "cancel");
}

static void
prompt_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autofree char *text = zot_agent_prompt_finish (ZOT_AGENT (object), result, NULL);

  *(gboolean *) user_data = TRUE;
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Closing while the agent runs asks first; keeping it keeps the run. */
static void
test_close_asks_while_running (Fixture       *f,
                               gconstpointer  data)
{
  ZotWindow *alpha;
  ZotAgent *agent;
  gpointer weak;
  gboolean done = FALSE;

  g_settings_set_string (f->settings, "approval-policy", "yolo");
  alpha = open_project (f->alpha);
  agent = zot_host_get_agent (zot_window_get_host (alpha));
  zot_agent_prompt_async (agent, "tool: bash {\"command\":\"sleep 120\"}", NULL, prompt_done_cb, &done);
  g_assert_true (zot_agent_is_running (agent));

  gtk_window_close (GTK_WINDOW (alpha));
  g_assert_nonnull (alpha->close_dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (alpha)));
  adw_message_dialog_response (alpha->close_dialog, "cancel");
  g_assert_null (alpha->close_dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (alpha)));
  g_assert_true (zot_agent_is_running (agent));

  weak = alpha;
  g_object_add_weak_pointer (weak, &weak);
  gtk_window_close (GTK_WINDOW (alpha));
  g_assert_nonnull (alpha->close_dialog);
  adw_message_dialog_response (alpha->close_dialog, "close");
  zot_test_wait_until (window_gone, &weak, 30000);
  zot_test_wait_for (&done, 30000);

  /* An idle window closes without asking. */
  alpha = open_project (f->alpha);
  weak = alpha;
  g_object_add_weak_pointer (weak, &weak);
  gtk_window_close (GTK_WINDOW (alpha));
  g_assert_null (alpha->close_dialog);
  zot_test_wait_until (window_gone, &weak, 30000);
}

static gboolean
widget_visible (gpointer data)
{
  return gtk_widget_get_visible (data);
}

/* The conversation's context and cost, as the model reports them, in the header. */
static void
test_usage_in_header (Fixture       *f,
                      gconstpointer  data)
{
  ZotWindow *alpha = open_project (f->alpha);
  ZotUsageLabel *usage = ZOT_USAGE_LABEL (zot_test_find_widget (GTK_WIDGET (alpha), ZOT_TYPE_USAGE_LABEL, NULL));
  ZotAgent *agent = zot_host_get_agent (zot_window_get_host (alpha));
  const ZotUsage *figures;
  g_autofree char *total = NULL;
  gboolean done = FALSE;

  g_assert_nonnull (usage);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (usage)));

  zot_agent_prompt_async (agent, "hello there", NULL, prompt_done_cb, &done);
  zot_test_wait_for (&done, 20000);
  zot_test_wait_until (widget_visible, usage, 20000);

  figures = zot_agent_get_usage (agent);
  g_assert_cmpint (figures->total_input_tokens + figures->total_output_tokens, >, 0);
  /* The demo model's window is unknown: the count, without a bar. */
  total = zot_usage_format_count (figures->input_tokens + figures->output_tokens);
  g_assert_cmpstr (zot_context_gauge_get_label (zot_usage_label_get_gauge (usage)), ==, total);
  /* The demo model is free, and says so. */
  g_assert_cmpstr (zot_usage_label_get_text (usage), ==, "$0.00");
}

static void
test_format_count (void)
{
  g_autofree char *zero = zot_usage_format_count (0);
  g_autofree char *below = zot_usage_format_count (999);
  g_autofree char *thousand = zot_usage_format_count (1000);
  g_autofree char *big = zot_usage_format_count (12345);
  g_autofree char *million = zot_usage_format_count (4100000);
  g_autofree char *negative = zot_usage_format_count (-1);

  g_assert_cmpstr (zero, ==, "0");
  g_assert_cmpstr (below, ==, "999");
  g_assert_cmpstr (thousand, ==, "1.0k");
  g_assert_cmpstr (big, ==, "12.3k");
  g_assert_cmpstr (million, ==, "4.1M");
  g_assert_cmpstr (negative, ==, "0");
}

int
main (int    argc,
      char **argv)
{
  /* The numbers are formatted as in C, whatever the machine's locale. */
  g_setenv ("LC_ALL", "C", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  application = zot_application_new ();
  g_application_set_flags (G_APPLICATION (application),
                           G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_HANDLES_OPEN |
                           G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (application), NULL, NULL));

  g_test_add ("/zot/gui/projects/open-or-raise", Fixture, NULL, fixture_setup, test_open_or_raise,
              fixture_teardown);
  g_test_add ("/zot/gui/projects/start-view", Fixture, NULL, fixture_setup, test_start_view, fixture_teardown);
  g_test_add ("/zot/gui/projects/missing-folder", Fixture, NULL, fixture_setup, test_missing_folder,
              fixture_teardown);
  g_test_add ("/zot/gui/projects/drop-folder", Fixture, NULL, fixture_setup, test_drop_folder, fixture_teardown);
  g_test_add ("/zot/gui/projects/desktop-open", Fixture, NULL, fixture_setup, test_desktop_open,
              fixture_teardown);
  g_test_add ("/zot/gui/projects/close-asks-while-running", Fixture, NULL, fixture_setup,
              test_close_asks_while_running, fixture_teardown);
  g_test_add ("/zot/gui/projects/usage-in-header", Fixture, NULL, fixture_setup, test_usage_in_header,
              fixture_teardown);
  g_test_add_func ("/zot/gui/projects/format-count", test_format_count);

  return g_test_run ();
}
