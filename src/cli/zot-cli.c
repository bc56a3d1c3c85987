/* zot-cli.c — the command line: flags, subcommands and print mode.
 *
 * Everything here is a view over the core objects: it connects to the
 * manager's signals and writes what they say to stdout and stderr.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>

#include "zot-cli.h"
#include "zot-cli-private.h"
#include "zot-error.h"
#include "zot-extension-manager.h"

typedef struct
{
  /* flags */
  char         *print_prompt;
  char         *json_prompt;
  char         *provider;
  char         *model;
  char         *base_url;
  char         *api_key;
  char         *cwd;
  char        **ext_paths;
  gboolean      no_ext;
  char         *system_prompt;
  char        **append_system_prompt;
  int           max_steps;
  gboolean      no_tools;
  char         *tools;
  gboolean      continue_session;
  char         *session;
  gboolean      no_session;
  gboolean      continuous;
  char         *codemode;
  gboolean      yolo;
  gboolean      no_yolo;
  gboolean      version;
  char        **rest;

  /* run state */
  ZotExtensionManager *manager;
  GMainLoop    *loop;
  GCancellable *cancellable;
  char         *command_name;
  char         *command_args;
  int           status;
} ZotCli;

static void
zot_cli_clear (ZotCli *cli)
{
  g_clear_pointer (&cli->print_prompt, g_free);
  g_clear_pointer (&cli->json_prompt, g_free);
  g_clear_pointer (&cli->provider, g_free);
  g_clear_pointer (&cli->model, g_free);
  g_clear_pointer (&cli->base_url, g_free);
  g_clear_pointer (&cli->api_key, g_free);
  g_clear_pointer (&cli->cwd, g_free);
  g_clear_pointer (&cli->ext_paths, g_strfreev);
  g_clear_pointer (&cli->system_prompt, g_free);
  g_clear_pointer (&cli->append_system_prompt, g_strfreev);
  g_clear_pointer (&cli->tools, g_free);
  g_clear_pointer (&cli->session, g_free);
  g_clear_pointer (&cli->codemode, g_free);
  g_clear_pointer (&cli->rest, g_strfreev);
  g_clear_object (&cli->manager);
  g_clear_pointer (&cli->loop, g_main_loop_unref);
  g_clear_object (&cli->cancellable);
  g_clear_pointer (&cli->command_name, g_free);
  g_clear_pointer (&cli->command_args, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ZotCli, zot_cli_clear)

static void
print_error (const char *format,
             ...) G_GNUC_PRINTF (1, 2);

static void
print_error (const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  fprintf (stderr, "zot: %s\n", message);
  fflush (stderr);
}

/* Signal handlers: what print mode shows */

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               ZotCli              *cli)
{
  fprintf (stderr, "[%s] %s: %s\n", zot_extension_get_name (extension), level, message);
  fflush (stderr);
}

static void
on_display (ZotExtensionManager *manager,
            ZotExtension        *extension,
            const char          *text,
            ZotCli              *cli)
{
  fputs (text, stdout);
  if (!g_str_has_suffix (text, "\n"))
    fputc ('\n', stdout);
  fflush (stdout);
}

static void
on_prompt (ZotExtensionManager *manager,
           ZotExtension        *extension,
           const char          *text,
           ZotCli              *cli)
{
  print_error (_("/%s asked for a model turn (\"%s\"), and this build has no agent to run it yet"),
               cli->command_name, text);
  cli->status = 1;
}

static void
on_load_failed (ZotExtensionManager *manager,
                const char          *path,
                const char          *message,
                const char          *log_path,
                ZotCli              *cli)
{
  if (log_path != NULL)
    print_error (_("extension %s did not load: %s (log: %s)"), path, message, log_path);
  else
    print_error (_("extension %s did not load: %s"), path, message);
}

static void
on_extension_crashed (ZotExtensionManager *manager,
                      ZotExtension        *extension,
                      const char          *message,
                      ZotCli              *cli)
{
  print_error ("%s", message);
}

/* Print mode */

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ZotCli *cli = user_data;

  zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  g_main_loop_quit (cli->loop);
}

static void
finish (ZotCli *cli,
        int     status)
{
  if (status > cli->status)
    cli->status = status;

  zot_extension_manager_shutdown_async (cli->manager, NULL, shutdown_cb, cli);
}

static void
print_known_commands (ZotCli *cli,
                      FILE   *stream)
{
  g_autoptr(GPtrArray) commands = zot_extension_manager_list_commands (cli->manager);

  fprintf (stream, _("Known commands:\n"));
  for (guint i = 0; i < commands->len; i++)
    {
      ZotCommandInfo *info = g_ptr_array_index (commands, i);

      if (info->extension != NULL)
        fprintf (stream, "  /%-16s %s [%s]\n", info->name,
                 info->description ? info->description : "",
                 zot_extension_get_name (info->extension));
      else
        fprintf (stream, "  /%-16s %s\n", info->name, info->description);
    }
  fflush (stream);
}

static void
command_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ZotCli *cli = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_extension_manager_run_command_finish (ZOT_EXTENSION_MANAGER (object), result, &error))
    {
      print_error ("%s", error->message);
      finish (cli, 1);
      return;
    }

  finish (cli, 0);
}

static void
reload_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  ZotCli *cli = user_data;
  ZotExtensionManager *manager = ZOT_EXTENSION_MANAGER (object);
  guint n_ready = 0;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (manager));

  zot_extension_manager_reload_finish (manager, result, NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);
      if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY)
        n_ready++;
    }

  printf (_("Reloaded extensions: %u of %u ready\n"), n_ready, n);
  fflush (stdout);
  finish (cli, 0);
}

static void
run_builtin (ZotCli     *cli,
             const char *name)
{
  if (g_ascii_strcasecmp (name, "help") == 0)
    {
      print_known_commands (cli, stdout);
      finish (cli, 0);
    }
  else if (g_ascii_strcasecmp (name, "reload-ext") == 0)
    {
      zot_extension_manager_reload_async (cli->manager, cli->cancellable, reload_cb, cli);
    }
  else if (g_ascii_strcasecmp (name, "settings") == 0 ||
           g_ascii_strcasecmp (name, "yolo") == 0 ||
           g_ascii_strcasecmp (name, "quit") == 0)
    {
      print_error (_("/%s belongs to the window; it does nothing in print mode"), name);
      finish (cli, 1);
    }
  else
    {
      print_error (_("/%s works on a conversation, and this build has no agent yet"), name);
      finish (cli, 1);
    }
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  ZotCli *cli = user_data;

  zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);

  if (cli->command_name == NULL)
    {
      print_error (_("model turns come with the agent, which this build does not have yet; "
                     "run a slash command instead: zot -p \"/help\""));
      finish (cli, 1);
      return;
    }

  if (zot_extension_manager_is_builtin_command (cli->command_name))
    {
      run_builtin (cli, cli->command_name);
      return;
    }

  if (zot_extension_manager_lookup_command (cli->manager, cli->command_name, NULL) == NULL)
    {
      print_error (_("unknown command /%s"), cli->command_name);
      print_known_commands (cli, stderr);
      finish (cli, 1);
      return;
    }

  zot_extension_manager_run_command_async (cli->manager,
                                           cli->command_name,
                                           cli->command_args,
                                           cli->cancellable,
                                           command_cb,
                                           cli);
}

static gboolean
on_sigint (gpointer user_data)
{
  ZotCli *cli = user_data;

  g_cancellable_cancel (cli->cancellable);
  finish (cli, 130);
  return G_SOURCE_REMOVE;
}

/* "/name args" → name, args; NULL name when @prompt is not a slash command */
static void
split_slash_command (const char  *prompt,
                     char       **name,
                     char       **args)
{
  const char *p = prompt;
  const char *end;

  *name = NULL;
  *args = NULL;

  while (g_ascii_isspace (*p))
    p++;
  if (*p != '/')
    return;
  p++;

  end = p;
  while (*end != '\0' && !g_ascii_isspace (*end))
    end++;
  if (end == p)
    return;

  *name = g_strndup (p, (gsize) (end - p));
  *args = g_strstrip (g_strdup (end));
}

static int
run_print_mode (ZotCli *cli)
{
  guint sigint_id;

  split_slash_command (cli->print_prompt, &cli->command_name, &cli->command_args);

  cli->loop = g_main_loop_new (NULL, FALSE);
  cli->cancellable = g_cancellable_new ();
  cli->manager = zot_extension_manager_new ();

  zot_extension_manager_set_cwd (cli->manager, cli->cwd);
  zot_extension_manager_set_explicit_paths (cli->manager, (const char * const *) cli->ext_paths);
  zot_extension_manager_set_no_ext (cli->manager, cli->no_ext);
  zot_extension_manager_set_model (cli->manager,
                                   cli->provider ? cli->provider : "demo",
                                   cli->model ? cli->model : "demo");

  g_signal_connect (cli->manager, "note-added", G_CALLBACK (on_note_added), cli);
  g_signal_connect (cli->manager, "display", G_CALLBACK (on_display), cli);
  g_signal_connect (cli->manager, "insert", G_CALLBACK (on_display), cli);
  g_signal_connect (cli->manager, "prompt", G_CALLBACK (on_prompt), cli);
  g_signal_connect (cli->manager, "load-failed", G_CALLBACK (on_load_failed), cli);
  g_signal_connect (cli->manager, "extension-crashed", G_CALLBACK (on_extension_crashed), cli);

  sigint_id = g_unix_signal_add (SIGINT, on_sigint, cli);

  zot_extension_manager_load_async (cli->manager, cli->cancellable, loaded_cb, cli);
  g_main_loop_run (cli->loop);

  g_source_remove (sigint_id);
  g_signal_handlers_disconnect_by_data (cli->manager, cli);

  return cli->status;
}

static GOptionEntry main_entries[] = {
  { "print", 'p', 0, G_OPTION_ARG_STRING, NULL, N_("Run PROMPT, print the result and exit"), N_("PROMPT") },
  { "json", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Run PROMPT and print one JSON event per line"), N_("PROMPT") },
  { "provider", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Model provider: anthropic, openai or demo"), N_("NAME") },
  { "model", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Model id"), N_("ID") },
  { "base-url", 0, 0, G_OPTION_ARG_STRING, NULL, N_("API base URL of an OpenAI-compatible server"), N_("URL") },
  { "api-key", 0, 0, G_OPTION_ARG_STRING, NULL, N_("API key"), N_("KEY") },
  { "cwd", 0, 0, G_OPTION_ARG_FILENAME, NULL, N_("Working directory"), N_("DIR") },
  { "ext", 'e', 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, N_("Load the extension in PATH (repeatable)"), N_("PATH") },
  { "no-ext", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Skip extension discovery (explicit --ext paths still load)"), NULL },
  { "system-prompt", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Replace the system prompt"), N_("TEXT") },
  { "append-system-prompt", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL, N_("Append to the system prompt (repeatable)"), N_("TEXT") },
  { "max-steps", 0, 0, G_OPTION_ARG_INT, NULL, N_("Stop after N model steps (default 50)"), N_("N") },
  { "no-tools", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Give the model no tools"), NULL },
  { "tools", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Give the model only these tools"), N_("a,b") },
  { "continue", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Resume the newest session of this directory"), NULL },
  { "session", 0, 0, G_OPTION_ARG_FILENAME, NULL, N_("Use this session file"), N_("FILE") },
  { "no-session", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Do not save the session"), NULL },
  { "continuous", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Journal tool calls as durable tasks"), NULL },
  { "codemode", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Script runtime: off, on or only (default on)"), N_("MODE") },
  { "yolo", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Approve every tool call without asking (window)"), NULL },
  { "no-yolo", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Ask before tool calls (window)"), NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL, NULL, N_("[PROMPT]") },
  { NULL }
};

static gboolean
parse_main_options (ZotCli   *cli,
                    char   ***argv,
                    GError  **error)
{
  g_autoptr(GOptionContext) context = NULL;
  GOptionEntry entries[G_N_ELEMENTS (main_entries)];
  gpointer targets[] = {
    &cli->print_prompt, &cli->json_prompt, &cli->provider, &cli->model, &cli->base_url,
    &cli->api_key, &cli->cwd, &cli->ext_paths, &cli->no_ext, &cli->system_prompt,
    &cli->append_system_prompt, &cli->max_steps, &cli->no_tools, &cli->tools,
    &cli->continue_session, &cli->session, &cli->no_session, &cli->continuous,
    &cli->codemode, &cli->yolo, &cli->no_yolo, &cli->version, &cli->rest, NULL,
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (targets) == G_N_ELEMENTS (main_entries));

  for (guint i = 0; i < G_N_ELEMENTS (main_entries); i++)
    {
      entries[i] = main_entries[i];
      entries[i].arg_data = targets[i];
    }

  context = g_option_context_new (NULL);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("A desktop host for zot extensions.\n\n"
                                  "Subcommands:\n"
                                  "  zot ext list|install|remove|enable|disable|logs [-f] …\n"
                                  "  zot update"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  return g_option_context_parse_strv (context, argv, error);
}

int
zot_cli_main (int    argc,
              char **argv)
{
  g_auto(ZotCli) cli = { .max_steps = 50 };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  int status;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* A dead extension must not kill us through a write to its pipe. */
  signal (SIGPIPE, SIG_IGN);

  if (argc > 1 && g_str_equal (argv[1], "ext"))
    return zot_cli_ext_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "update"))
    return zot_cli_update_main (argc - 1, argv + 1);

  args = g_strdupv (argv);
  if (!parse_main_options (&cli, &args, &error))
    {
      print_error ("%s (see zot --help)", error->message);
      return 2;
    }

  if (cli.version)
    {
      printf ("zot %s\n", PACKAGE_VERSION);
      return 0;
    }

  if (cli.max_steps < 1)
    {
      print_error (_("--max-steps must be at least 1"));
      return 2;
    }

  if (cli.codemode != NULL &&
      !g_str_equal (cli.codemode, "off") &&
      !g_str_equal (cli.codemode, "on") &&
      !g_str_equal (cli.codemode, "only"))
    {
      print_error (_("--codemode takes off, on or only, not \"%s\""), cli.codemode);
      return 2;
    }

  if (cli.rest != NULL && cli.rest[0] != NULL && g_str_equal (cli.rest[0], "rpc"))
    {
      print_error (_("rpc mode comes with the agent, which this build does not have yet"));
      return 1;
    }

  if (cli.json_prompt != NULL)
    {
      print_error (_("--json comes with the agent, which this build does not have yet"));
      return 1;
    }

  if (cli.print_prompt == NULL)
    {
      print_error (_("the window is not part of this build yet; run a command with zot -p \"/help\""));
      return 2;
    }

  status = run_print_mode (&cli);
  return status;
}
