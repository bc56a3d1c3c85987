/* zot-application.c — one instance per user session.
 *
 * The first `zot` opens the window; a second one hands its command line to
 * the first (GApplication does the forwarding): its --ext paths are loaded
 * there and its prompt fills the editor.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-application.h"
#include "zot-approval-presenter.h"
#include "zot-window.h"

struct _ZotApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotApplication, zot_application, ADW_TYPE_APPLICATION)

typedef struct
{
  char     *provider;
  char     *model;
  char     *base_url;
  char     *api_key;
  char     *cwd;
  char    **ext_paths;
  gboolean  no_ext;
  char     *system_prompt;
  char    **append_system_prompt;
  int       max_steps;
  gboolean  no_tools;
  char     *tools;
  gboolean  continue_session;
  char     *session;
  gboolean  no_session;
  gboolean  continuous;
  char     *codemode;
  gboolean  yolo;
  gboolean  no_yolo;
  char    **rest;
} Options;

static void
options_clear (Options *options)
{
  g_free (options->provider);
  g_free (options->model);
  g_free (options->base_url);
  g_free (options->api_key);
  g_free (options->cwd);
  g_strfreev (options->ext_paths);
  g_free (options->system_prompt);
  g_strfreev (options->append_system_prompt);
  g_free (options->tools);
  g_free (options->session);
  g_free (options->codemode);
  g_strfreev (options->rest);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

static gboolean
parse_options (GApplicationCommandLine  *command_line,
               Options                  *options,
               GError                  **error)
{
  g_auto(GStrv) argv = g_application_command_line_get_arguments (command_line, NULL);
  g_autoptr(GOptionContext) context = g_option_context_new (_("[PROMPT]"));
  GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &options->provider, NULL, NULL },
    { "model", 0, 0, G_OPTION_ARG_STRING, &options->model, NULL, NULL },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &options->base_url, NULL, NULL },
    { "api-key", 0, 0, G_OPTION_ARG_STRING, &options->api_key, NULL, NULL },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &options->cwd, NULL, NULL },
    { "ext", 'e', 0, G_OPTION_ARG_FILENAME_ARRAY, &options->ext_paths, NULL, NULL },
    { "no-ext", 0, 0, G_OPTION_ARG_NONE, &options->no_ext, NULL, NULL },
    { "system-prompt", 0, 0, G_OPTION_ARG_STRING, &options->system_prompt, NULL, NULL },
    { "append-system-prompt", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->append_system_prompt, NULL, NULL },
    { "max-steps", 0, 0, G_OPTION_ARG_INT, &options->max_steps, NULL, NULL },
    { "no-tools", 0, 0, G_OPTION_ARG_NONE, &options->no_tools, NULL, NULL },
    { "tools", 0, 0, G_OPTION_ARG_STRING, &options->tools, NULL, NULL },
    { "continue", 0, 0, G_OPTION_ARG_NONE, &options->continue_session, NULL, NULL },
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &options->session, NULL, NULL },
    { "no-session", 0, 0, G_OPTION_ARG_NONE, &options->no_session, NULL, NULL },
    { "continuous", 0, 0, G_OPTION_ARG_NONE, &options->continuous, NULL, NULL },
    { "codemode", 0, 0, G_OPTION_ARG_STRING, &options->codemode, NULL, NULL },
    { "yolo", 0, 0, G_OPTION_ARG_NONE, &options->yolo, NULL, NULL },
    { "no-yolo", 0, 0, G_OPTION_ARG_NONE, &options->no_yolo, NULL, NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->rest, NULL, NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_help_enabled (context, FALSE);

  return g_option_context_parse_strv (context, &argv, error);
}

static void
fill_host_options (ZotHostOptions          *host_options,
                   Options                 *options,
                   GApplicationCommandLine *command_line)
{
  const char *cwd = g_application_command_line_get_cwd (command_line);

  host_options->cwd = g_canonicalize_filename (options->cwd ? options->cwd : (cwd ? cwd : "."), cwd);
  host_options->ext_paths = g_new0 (char *, options->ext_paths ? g_strv_length (options->ext_paths) + 1 : 1);
  for (guint i = 0; options->ext_paths != NULL && options->ext_paths[i] != NULL; i++)
    host_options->ext_paths[i] = g_canonicalize_filename (options->ext_paths[i], cwd);
  host_options->no_ext = options->no_ext;
  host_options->provider.name = g_strdup (options->provider);
  host_options->provider.model = g_strdup (options->model);
  host_options->provider.base_url = g_strdup (options->base_url);
  host_options->provider.api_key = g_strdup (options->api_key);
  host_options->max_steps = options->max_steps > 0 ? (guint) options->max_steps : 0;
  host_options->system_prompt = g_strdup (options->system_prompt);
  host_options->append_system_prompt = g_strdupv (options->append_system_prompt);
  host_options->no_tools = options->no_tools;
  if (options->tools != NULL)
    host_options->tools = g_strsplit (options->tools, ",", -1);
  host_options->continue_session = options->continue_session;
  host_options->session_path = g_strdup (options->session);
  host_options->no_session = options->no_session;
  host_options->interactive = TRUE;
  host_options->codemode = g_strdup (options->codemode);
}

static int
zot_application_command_line (GApplication            *application,
                              GApplicationCommandLine *command_line)
{
  g_auto(Options) options = { 0 };
  g_auto(ZotHostOptions) host_options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *prompt = NULL;
  GtkWindow *window;

  if (!parse_options (command_line, &options, &error))
    {
      g_application_command_line_printerr (command_line, "zot: %s (see zot --help)\n", error->message);
      return 2;
    }

  if (options.rest != NULL && options.rest[0] != NULL)
    prompt = g_strjoinv (" ", options.rest);

  window = gtk_application_get_active_window (GTK_APPLICATION (application));
  if (window != NULL)
    {
      /* A second `zot`: its extensions load here, its prompt fills the editor. */
      fill_host_options (&host_options, &options, command_line);
      zot_window_add_extensions (ZOT_WINDOW (window), (const char * const *) host_options.ext_paths);
      if (prompt != NULL)
        zot_window_set_prompt (ZOT_WINDOW (window), prompt);
      gtk_window_present (window);
      return 0;
    }

  fill_host_options (&host_options, &options, command_line);
  window = GTK_WINDOW (zot_window_new (ZOT_APPLICATION (application), &host_options,
                                       options.yolo ? 1 : options.no_yolo ? 0 : -1));
  if (prompt != NULL)
    zot_window_set_prompt (ZOT_WINDOW (window), prompt);
  gtk_window_present (window);

  return 0;
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
                         NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", on_quit, NULL, NULL, NULL },
  { "about", on_about, NULL, NULL, NULL },
  { "approval-allow", on_approval, "s", NULL, NULL },
  { "approval-deny", on_approval, "s", NULL, NULL },
};

static void
zot_application_startup (GApplication *application)
{
  const char *quit_accels[] = { "<Control>q", NULL };

  G_APPLICATION_CLASS (zot_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (application), app_actions,
                                   G_N_ELEMENTS (app_actions), application);
  gtk_application_set_accels_for_action (GTK_APPLICATION (application), "app.quit", quit_accels);
  gtk_window_set_default_icon_name (APP_ID);
}

static void
zot_application_class_init (ZotApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->command_line = zot_application_command_line;
  app_class->startup = zot_application_startup;
}

static void
zot_application_init (ZotApplication *self)
{
}

ZotApplication *
zot_application_new (void)
{
  return g_object_new (ZOT_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", "/dev/zot/Zot",
                       NULL);
}
