/* zot-application.c — one instance per user session, a window per project.
 *
 * The first `zot` opens a window; a second one hands its command line to
 * the first (GApplication does the forwarding), which routes it to a
 * project's window (zot_application_command_line()). Each project folder
 * has one window, with its own host and so its own extension processes.
 * Started with no folder, the app shows the start view: open a folder, or
 * a recent project.
 *
 * The desktop reaches the app over D-Bus (data/dev.zot.Zot.service.in):
 * `activate` raises a window or shows the start view, and `open` opens a
 * folder as a project or offers to install an extension folder or archive.
 * Two read-only actions, "project-windows" (the open projects, the most
 * recently focused first) and "start-view", show the app's state on the
 * bus.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-application.h"
#include "zot-builtin-commands.h"
#include "zot-options.h"
#include "zot-approval-presenter.h"
#include "zot-project-chooser.h"
#include "zot-recent-projects.h"
#include "zot-window.h"

struct _ZotApplication
{
  AdwApplication        parent_instance;

  GSettings            *settings;
  /* For projects opened later (the start view, Ctrl+O, the desktop): the
   * options of the command line that started the app. */
  ZotHostOptions        template;
  int                   template_yolo;
  /* What the start view's command line or the desktop asked for before
   * there was a project to give it to. */
  char                 *pending_prompt;
  GFile                *pending_install;
  GtkFileChooserNative *folder_chooser;
};

G_DEFINE_FINAL_TYPE (ZotApplication, zot_application, ADW_TYPE_APPLICATION)

static ZotWindow *open_new_project (ZotApplication *self,
                                    ZotHostOptions *options,
                                    int             yolo);

typedef struct
{
  ZotOptions  shared;
  char      **rest;
} Options;

static void
options_clear (Options *options)
{
  zot_options_clear (&options->shared);
  g_strfreev (options->rest);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

/* The same flags as the command line (zot-options.c), and the same usage
 * errors. */
static gboolean
parse_options (GApplicationCommandLine  *command_line,
               Options                  *options,
               GError                  **error)
{
  g_auto(GStrv) argv = g_application_command_line_get_arguments (command_line, NULL);
  g_autoptr(GOptionContext) context = g_option_context_new (_("[PROMPT]"));
  const GOptionEntry entries[] = {
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->rest, NULL, NULL },
    { NULL }
  };

  zot_options_init (&options->shared);
  zot_options_add_entries (&options->shared, context);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_help_enabled (context, FALSE);

  return zot_options_parse (context, &argv, error) &&
         zot_options_check (&options->shared, error);
}

static void
fill_host_options (ZotHostOptions          *host_options,
                   Options                 *options,
                   GApplicationCommandLine *command_line)
{
  zot_options_to_host (&options->shared, g_application_command_line_get_cwd (command_line), TRUE,
                       host_options);
}

/* The desktop's `Exec=zot %U` hands opened files over as file:// URIs. */
static gboolean
all_file_uris (char **rest)
{
  if (rest == NULL || rest[0] == NULL)
    return FALSE;

  for (guint i = 0; rest[i] != NULL; i++)
    if (!g_str_has_prefix (rest[i], "file://"))
      return FALSE;
  return TRUE;
}

/* Started in the home folder (or the root, as some launchers do) with no
 * folder named and no conversation to resume: no project was chosen, so
 * the app asks rather than letting the agent loose in $HOME. */
static gboolean
wants_start_view (Options        *options,
                  ZotHostOptions *host_options)
{
  g_autofree char *home = g_canonicalize_filename (g_get_home_dir (), "/");

  if (options->shared.cwd != NULL || host_options->session_path != NULL || host_options->continue_session)
    return FALSE;

  return g_str_equal (host_options->cwd, home) || g_str_equal (host_options->cwd, "/");
}

static int
options_yolo (Options *options)
{
  return options->shared.yolo ? 1 : options->shared.no_yolo ? 0 : -1;
}

/* Hands a command line's extensions and prompt to @window. */
static void
hand_over (ZotWindow      *window,
           ZotHostOptions *host_options,
           const char     *prompt)
{
  zot_window_add_extensions (window, (const char * const *) host_options->ext_paths);
  if (prompt != NULL)
    zot_window_set_prompt (window, prompt);
  gtk_window_present (GTK_WINDOW (window));
}

/* What the next project opened from the start view starts with: the
 * options of the command line that showed it. */
static void
keep_for_next_project (ZotApplication *self,
                       ZotHostOptions *host_options,
                       int             yolo,
                       const char     *prompt)
{
  zot_host_options_clear (&self->template);
  zot_host_options_copy_into (&self->template, host_options);
  self->template_yolo = yolo;
  g_free (self->pending_prompt);
  self->pending_prompt = g_strdup (prompt);
}

/*
 * Where a command line goes:
 * - file:// URIs (the desktop's open): each is opened (zot_application_open_files());
 * - --cwd DIR: that project's window, opened or raised;
 * - a second `zot` with only --ext or a prompt: the most recently focused
 *   project window;
 * - otherwise the project of the folder it was started in, or, started
 *   in the home folder, the start view.
 */
static int
zot_application_command_line (GApplication            *application,
                              GApplicationCommandLine *command_line)
{
  ZotApplication *self = ZOT_APPLICATION (application);
  g_auto(Options) options = { 0 };
  g_auto(ZotHostOptions) host_options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *prompt = NULL;
  ZotWindow *window;

  if (!parse_options (command_line, &options, &error))
    {
      g_application_command_line_printerr (command_line, "zot: %s (see zot --help)\n", error->message);
      return 2;
    }

  if (all_file_uris (options.rest))
    {
      g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

      for (guint i = 0; options.rest[i] != NULL; i++)
        g_ptr_array_add (files, g_file_new_for_uri (options.rest[i]));
      zot_application_open_files (self, (GFile **) files->pdata, files->len);
      return 0;
    }

  if (options.rest != NULL && options.rest[0] != NULL)
    prompt = g_strjoinv (" ", options.rest);

  fill_host_options (&host_options, &options, command_line);

  if (options.shared.cwd == NULL && (prompt != NULL || host_options.ext_paths[0] != NULL))
    {
      window = zot_application_get_recent_project_window (self);
      if (window != NULL)
        {
          hand_over (window, &host_options, prompt);
          return 0;
        }
    }

  if (wants_start_view (&options, &host_options))
    {
      keep_for_next_project (self, &host_options, options_yolo (&options), prompt);
      zot_application_show_projects (self);
      return 0;
    }

  window = zot_application_find_project (self, host_options.cwd);
  if (window != NULL)
    {
      hand_over (window, &host_options, prompt);
      return 0;
    }

  window = open_new_project (self, &host_options, options_yolo (&options));
  if (prompt != NULL)
    zot_window_set_prompt (window, prompt);

  return 0;
}

/* Projects */

static void
update_state (ZotApplication *self)
{
  g_autoptr(GStrvBuilder) folders = g_strv_builder_new ();
  g_auto(GStrv) list = NULL;
  gboolean start_view = FALSE;
  GAction *action;

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    {
      if (ZOT_IS_PROJECT_CHOOSER (l->data))
        start_view = TRUE;
      else if (ZOT_IS_WINDOW (l->data) && zot_window_get_cwd (l->data) != NULL &&
               gtk_widget_get_visible (l->data))
        g_strv_builder_add (folders, zot_window_get_cwd (l->data));
    }
  list = g_strv_builder_end (folders);

  action = g_action_map_lookup_action (G_ACTION_MAP (self), "project-windows");
  if (action != NULL)
    g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_strv ((const char * const *) list, -1));
  action = g_action_map_lookup_action (G_ACTION_MAP (self), "start-view");
  if (action != NULL)
    g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (start_view));
}

static ZotProjectChooser *
find_start_view (ZotApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (ZOT_IS_PROJECT_CHOOSER (l->data))
      return l->data;
  return NULL;
}

/**
 * zot_application_find_project:
 * @folder: a canonical folder name
 *
 * Returns: (transfer none) (nullable): the window open on @folder
 */
ZotWindow *
zot_application_find_project (ZotApplication *self,
                              const char     *folder)
{
  g_return_val_if_fail (ZOT_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (folder != NULL, NULL);

  /* A closing window is hidden while its extensions shut down: it is no
   * longer that project's window. */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (ZOT_IS_WINDOW (l->data) && gtk_widget_get_visible (l->data) &&
        g_strcmp0 (zot_window_get_cwd (l->data), folder) == 0)
      return l->data;
  return NULL;
}

/**
 * zot_application_get_recent_project_window:
 *
 * Returns: (transfer none) (nullable): the project window focused last
 */
ZotWindow *
zot_application_get_recent_project_window (ZotApplication *self)
{
  g_return_val_if_fail (ZOT_IS_APPLICATION (self), NULL);

  /* GtkApplication keeps its windows in the order they were focused. */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (ZOT_IS_WINDOW (l->data) && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

/* A project's window is up (new or raised): it is the most recent
 * project, gets what was waiting for a project, and the start view goes. */
static void
project_opened (ZotApplication *self,
                ZotWindow      *window)
{
  ZotProjectChooser *start_view = find_start_view (self);

  zot_recent_projects_add (self->settings, zot_window_get_cwd (window));
  if (self->pending_prompt != NULL)
    {
      zot_window_set_prompt (window, self->pending_prompt);
      g_clear_pointer (&self->pending_prompt, g_free);
    }
  if (self->pending_install != NULL)
    {
      zot_window_install_file (window, self->pending_install);
      g_clear_object (&self->pending_install);
    }
  gtk_window_present (GTK_WINDOW (window));
  if (start_view != NULL)
    gtk_window_destroy (GTK_WINDOW (start_view));
  update_state (self);
}

static ZotWindow *
open_new_project (ZotApplication *self,
                  ZotHostOptions *options,
                  int             yolo)
{
  ZotWindow *window = ZOT_WINDOW (zot_window_new (self, options, yolo));

  project_opened (self, window);
  return window;
}

static void
show_error (ZotApplication *self,
            const char     *heading,
            const char     *body)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  GtkWidget *dialog = adw_message_dialog_new (parent, heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/**
 * zot_application_open_project:
 * @folder: the project's folder
 *
 * Raises the window open on @folder, or opens one with the options the
 * app was started with. A folder that is gone leaves the recent projects
 * with an error dialog.
 *
 * Returns: (transfer none) (nullable): the project's window
 */
ZotWindow *
zot_application_open_project (ZotApplication *self,
                              const char     *folder)
{
  g_autofree char *canonical = NULL;
  g_auto(ZotHostOptions) options = { 0 };
  ZotWindow *window;

  g_return_val_if_fail (ZOT_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (folder != NULL, NULL);

  canonical = g_canonicalize_filename (folder, NULL);
  window = zot_application_find_project (self, canonical);
  if (window != NULL)
    {
      project_opened (self, window);
      return window;
    }

  if (!g_file_test (canonical, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *display = zot_recent_projects_display_path (canonical);
      /* Translators: %s is the path of a recent project */
      g_autofree char *body = g_strdup_printf (_("%s is not a folder (any more); it is removed from the "
                                                 "recent projects. Open another folder."), display);

      zot_recent_projects_forget (self->settings, canonical);
      show_error (self, _("Cannot Open the Project"), body);
      return NULL;
    }

  /* The window copies what it needs; the template stays the app's. Each
   * project starts a conversation of its own. */
  zot_host_options_copy_into (&options, &self->template);
  g_free (options.cwd);
  options.cwd = g_steal_pointer (&canonical);
  g_clear_pointer (&options.session_path, g_free);
  options.continue_session = FALSE;
  return open_new_project (self, &options, self->template_yolo);
}

/**
 * zot_application_show_projects:
 *
 * Shows the start view: open a folder, or a recent project.
 */
void
zot_application_show_projects (ZotApplication *self)
{
  ZotProjectChooser *start_view;

  g_return_if_fail (ZOT_IS_APPLICATION (self));

  start_view = find_start_view (self);
  if (start_view == NULL)
    start_view = ZOT_PROJECT_CHOOSER (zot_project_chooser_new (self));
  gtk_window_present (GTK_WINDOW (start_view));
  update_state (self);
}

/**
 * zot_application_file_is_project:
 * @file: a file opened, dropped or chosen
 *
 * Returns: whether @file is a folder to open as a project: a folder that
 *   is not an extension (one with an extension.json is offered for install)
 */
gboolean
zot_application_file_is_project (GFile *file)
{
  g_autoptr(GFile) manifest = NULL;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    return FALSE;

  manifest = g_file_get_child (file, "extension.json");
  return !g_file_query_exists (manifest, NULL);
}

static void
offer_install (ZotApplication *self,
               GFile          *file)
{
  ZotWindow *window = zot_application_get_recent_project_window (self);

  if (window != NULL)
    {
      gtk_window_present (GTK_WINDOW (window));
      zot_window_install_file (window, file);
      return;
    }

  /* An extension is installed for a project or for all of them: the
   * first project opened offers it. */
  g_set_object (&self->pending_install, file);
  zot_application_show_projects (self);
}

/**
 * zot_application_open_files:
 * @files: (array length=n_files): what the desktop opened with the app
 *
 * A folder opens as a project; an extension folder or archive is offered
 * for install.
 */
void
zot_application_open_files (ZotApplication  *self,
                            GFile          **files,
                            guint            n_files)
{
  g_return_if_fail (ZOT_IS_APPLICATION (self));

  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);

      if (path == NULL)
        {
          g_autofree char *uri = g_file_get_uri (files[i]);
          /* Translators: %s is the URI of a file that was opened, e.g. on a network share */
          g_autofree char *body = g_strdup_printf (_("%s is not a local file; copy it to this computer "
                                                     "and open it from there."), uri);
          show_error (self, _("Cannot Open the File"), body);
        }
      else if (zot_application_file_is_project (files[i]))
        zot_application_open_project (self, path);
      else
        offer_install (self, files[i]);
    }
}

static void
zot_application_open (GApplication  *application,
                      GFile        **files,
                      int            n_files,
                      const char    *hint)
{
  zot_application_open_files (ZOT_APPLICATION (application), files, n_files);
}

static void
zot_application_activate (GApplication *application)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (application));

  if (windows != NULL)
    gtk_window_present (windows->data);
  else
    zot_application_show_projects (ZOT_APPLICATION (application));
}

static void
on_folder_chosen (GtkNativeDialog *dialog,
                  int              response,
                  ZotApplication  *self)
{
  g_autoptr(GFile) folder = NULL;
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  if (folder != NULL)
    path = g_file_get_path (folder);
  g_clear_object (&self->folder_chooser);

  if (path != NULL)
    zot_application_open_project (self, path);
}

/* A portal's chooser inside a sandbox, GTK's own outside. */
static void
on_open_folder (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  ZotApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (self->folder_chooser != NULL)
    {
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->folder_chooser));
      return;
    }

  self->folder_chooser = gtk_file_chooser_native_new (_("Open a Project Folder"), parent,
                                                      GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                      _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->folder_chooser), TRUE);
  g_signal_connect (self->folder_chooser, "response", G_CALLBACK (on_folder_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->folder_chooser));
}

static void
on_open_project (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  zot_application_open_project (user_data, g_variant_get_string (parameter, NULL));
}

static void
on_show_projects (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  zot_application_show_projects (user_data);
}

static void
on_approval (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  GtkApplication *app = user_data;
  GtkWindow *window = gtk_application_get_active_window (app);
  GList *windows = gtk_application_get_windows (app);
  ZotApprovalChoice choice = g_str_equal (g_action_get_name (G_ACTION (action)), "approval-allow")
                             ? ZOT_APPROVAL_ALLOW : ZOT_APPROVAL_DENY;

  if (window == NULL && windows != NULL)
    window = windows->data;
  if (window != NULL)
    zot_window_resolve_approval (ZOT_WINDOW (window), g_variant_get_string (parameter, NULL), choice);
}

static void
on_quit (GSimpleAction *action,
         GVariant      *parameter,
         gpointer       user_data)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (user_data));

  /* Closing each window shuts its extensions down gracefully. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static void
on_about (GSimpleAction *action,
          GVariant      *parameter,
          gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  const char *developers[] = { _("The Zot developers"), NULL };

  adw_show_about_window (window,
                         "application-name", "Zot",
                         "application-icon", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("A coding agent you can extend in any language"),
                         "developers", developers,
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "website", "https://zot.dev/",
                         "issue-url", "https://zot.dev/issues",
                         NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", on_quit, NULL, NULL, NULL },
  { "about", on_about, NULL, NULL, NULL },
  { "approval-allow", on_approval, "s", NULL, NULL },
  { "approval-deny", on_approval, "s", NULL, NULL },
  { "open-folder", on_open_folder, NULL, NULL, NULL },
  { "open-project", on_open_project, "s", NULL, NULL },
  { "show-projects", on_show_projects, NULL, NULL, NULL },
  /* State only, for the desktop and tests to read over D-Bus. */
  { "project-windows", NULL, NULL, "@as []", NULL },
  { "start-view", NULL, NULL, "false", NULL },
};

/* Every shortcut of the application and its windows. The shortcuts window
 * (data/gtk/help-overlay.ui, Ctrl+?) shows these by action name, so that it
 * cannot list one that does not exist; test-gui-a11y checks the two agree. */
static const struct
{
  const char *action;
  const char *accels[3];
} shortcuts[] = {
  { "app.quit", { "<Control>q", NULL } },
  /* GtkWindow's own action: it asks before stopping a run (close-request). */
  { "window.close", { "<Control>w", NULL } },
  { "app.open-folder", { "<Control>o", NULL } },
  { "win.new-conversation", { "<Control>n", NULL } },
  { "win.preferences", { "<Control>comma", NULL } },
  { "win.find", { "<Control>f", NULL } },
  { "win.toggle-sidebar", { "F9", NULL } },
  { "win.show-side-page::panels", { "<Alt>1", NULL } },
  { "win.show-side-page::notes", { "<Alt>2", NULL } },
  { "win.show-side-page::inspector", { "<Alt>3", NULL } },
  { "win.show-side-page::extensions", { "<Alt>4", NULL } },
  { "win.approval-allow", { "<Alt>a", NULL } },
  { "win.approval-deny", { "<Alt>d", NULL } },
  /* GtkApplication gives win.show-help-overlay Ctrl+? and Ctrl+/ itself,
   * once it finds gtk/help-overlay.ui under the resource base path. */
};

/* A shortcut that does what a built-in slash command does names the
 * command too, so the shortcuts window teaches both. The commands come
 * from their one table (zot-builtin-commands.c). */
static void
name_slash_commands (GtkWidget *widget)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    {
      const ZotBuiltinCommand *commands;
      g_autofree char *action = NULL;
      guint n_commands;

      g_object_get (widget, "action-name", &action, NULL);
      commands = zot_builtin_commands_get (&n_commands);
      for (guint i = 0; action != NULL && i < n_commands; i++)
        if (g_strcmp0 (commands[i].shortcut_action, action) == 0)
          {
            g_autofree char *subtitle = g_strconcat ("/", commands[i].name, NULL);

            g_object_set (widget, "subtitle", subtitle, NULL);
          }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    name_slash_commands (child);
}

static void
on_window_added (ZotApplication *self,
                 GtkWindow      *window)
{
  GtkShortcutsWindow *overlay;

  if (!GTK_IS_APPLICATION_WINDOW (window))
    return;

  /* GtkApplication gave the window its shortcuts window from
   * gtk/help-overlay.ui just before this handler runs. */
  overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  if (overlay != NULL)
    name_slash_commands (GTK_WIDGET (overlay));
}

static void
zot_application_startup (GApplication *application)
{
  ZotApplication *self = ZOT_APPLICATION (application);

  G_APPLICATION_CLASS (zot_application_parent_class)->startup (application);

  self->settings = g_settings_new (APP_ID);

  g_action_map_add_action_entries (G_ACTION_MAP (application), app_actions,
                                   G_N_ELEMENTS (app_actions), application);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (application),
                                                                            "project-windows")), FALSE);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (application),
                                                                            "start-view")), FALSE);
  g_signal_connect_object (application, "window-added", G_CALLBACK (on_window_added), application,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (application, "window-added", G_CALLBACK (update_state), application,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (application, "window-removed", G_CALLBACK (update_state), application,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  for (guint i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (application), shortcuts[i].action,
                                           shortcuts[i].accels);
  gtk_window_set_default_icon_name (APP_ID);
}

static void
zot_application_dispose (GObject *object)
{
  ZotApplication *self = ZOT_APPLICATION (object);

  if (self->folder_chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->folder_chooser));
  g_clear_object (&self->folder_chooser);
  g_clear_object (&self->pending_install);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (zot_application_parent_class)->dispose (object);
}

static void
zot_application_finalize (GObject *object)
{
  ZotApplication *self = ZOT_APPLICATION (object);

  zot_host_options_clear (&self->template);
  g_clear_pointer (&self->pending_prompt, g_free);

  G_OBJECT_CLASS (zot_application_parent_class)->finalize (object);
}

static void
zot_application_class_init (ZotApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = zot_application_dispose;
  object_class->finalize = zot_application_finalize;
  app_class->command_line = zot_application_command_line;
  app_class->startup = zot_application_startup;
  app_class->activate = zot_application_activate;
  app_class->open = zot_application_open;
}

static void
zot_application_init (ZotApplication *self)
{
  self->template_yolo = -1;
}

ZotApplication *
zot_application_new (void)
{
  return g_object_new (ZOT_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/dev/zot/Zot",
                       NULL);
}
