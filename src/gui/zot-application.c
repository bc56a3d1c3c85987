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
#include "zot-options.h"
#include "zot-approval-presenter.h"
#include "zot-window.h"

struct _ZotApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotApplication, zot_application, ADW_TYPE_APPLICATION)

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

  return g_option_context_parse_strv (context, &argv, error) &&
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
                                       options.shared.yolo ? 1 : options.shared.no_yolo ? 0 : -1));
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
                         "website", "https://zot.dev/",
                         "issue-url", "https://zot.dev/issues",
                         NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", on_quit, NULL, NULL, NULL },
  { "about", on_about, NULL, NULL, NULL },
  { "approval-allow", on_approval, "s", NULL, NULL },
  { "approval-deny", on_approval, "s", NULL, NULL },
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
  { "win.new-conversation", { "<Control>n", NULL } },
  { "win.preferences", { "<Control>comma", NULL } },
  { "win.show-side-page::panels", { "<Alt>1", NULL } },
  { "win.show-side-page::notes", { "<Alt>2", NULL } },
  { "win.show-side-page::inspector", { "<Alt>3", NULL } },
  { "win.show-side-page::extensions", { "<Alt>4", NULL } },
  /* GtkApplication gives win.show-help-overlay Ctrl+? and Ctrl+/ itself,
   * once it finds gtk/help-overlay.ui under the resource base path. */
};

static void
zot_application_startup (GApplication *application)
{
  G_APPLICATION_CLASS (zot_application_parent_class)->startup (application);

  g_action_map_add_action_entries (G_ACTION_MAP (application), app_actions,
                                   G_N_ELEMENTS (app_actions), application);
  for (guint i = 0; i < G_N_ELEMENTS (shortcuts); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (application), shortcuts[i].action,
                                           shortcuts[i].accels);
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
