/* zot-cli.c — the command line: flags, subcommands and print mode.
 *
 * Everything here is a view over the core objects: it connects to the
 * manager's signals and writes what they say to stdout and stderr.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>

#include "zot-cli.h"
#include "zot-cli-private.h"
#include "zot-error.h"
#include "zot-extension-manager.h"
#include "zot-i18n.h"
#include "zot-message.h"
#include "zot-names.h"
#include "zot-options.h"
#include "zot-provider-table.h"

typedef struct
{
  /* flags */
  ZotOptions    options;
  gboolean      print_mode;
  gboolean      json_mode;
  gboolean      version;
  char        **rest;
  char         *prompt;

  /* run state */
  ZotHost      *host;
  ZotCliEvents *events;
  GMainLoop    *loop;
  GCancellable *cancellable;
  gboolean      json;
  int           status;
} ZotCli;

static void
zot_cli_clear (ZotCli *cli)
{
  zot_options_clear (&cli->options);
  g_clear_pointer (&cli->prompt, g_free);
  g_clear_pointer (&cli->rest, g_strfreev);
  g_clear_pointer (&cli->events, zot_cli_events_free);
  g_clear_object (&cli->host);
  g_clear_pointer (&cli->loop, g_main_loop_unref);
  g_clear_object (&cli->cancellable);
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

  g_printerr ("zot: %s\n", message);
}

/* Print mode: what it shows */

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               ZotCli              *cli)
{
  g_printerr ("[%s] %s: %s\n", zot_extension_get_name (extension), level, message);
}

static void
print_text (const char *text)
{
  g_print ("%s%s", text, g_str_has_suffix (text, "\n") ? "" : "\n");
}

/* Every line zot writes for a person goes through these: what an
 * extension, a model or a manifest says is shown, never acted on by the
 * terminal (PROTOCOL.md leaves it to the host; OSC 52 writes the
 * clipboard, others retitle or clear the screen). */
static void
print_to_stdout (const char *text)
{
  g_autofree char *shown = zot_text_for_terminal (text, -1);

  fputs (shown, stdout);
  fflush (stdout);
}

static void
print_to_stderr (const char *text)
{
  g_autofree char *shown = zot_text_for_terminal (text, -1);

  fputs (shown, stderr);
  fflush (stderr);
}

void
zot_cli_set_print_handlers (void)
{
  g_set_print_handler (print_to_stdout);
  g_set_printerr_handler (print_to_stderr);
}

/* Print mode has no editor: an `insert` is printed like a `display`. */
static void
on_command_replied (ZotHost         *host,
                    ZotCommandReply *reply,
                    ZotCli          *cli)
{
  switch (zot_command_reply_get_kind (reply))
    {
    case ZOT_COMMAND_REPLY_DISPLAY:
    case ZOT_COMMAND_REPLY_INSERT:
      print_text (zot_command_reply_get_text (reply));
      break;

    default:
      break;
    }
}

static void
on_info (ZotHost    *host,
         const char *text,
         ZotCli     *cli)
{
  print_text (text);
}

static void
on_load_failed (ZotExtensionManager *manager,
                const char          *path,
                const char          *message,
                const char          *log_path,
                ZotCli              *cli)
{
  if (log_path != NULL)
    /* Translators: the extension's path, why it did not load, then the path of its log file */
    print_error (_("extension %s did not load: %s (log: %s)"), path, message, log_path);
  else
    /* Translators: the extension's path, then why it did not load */
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

static void
on_warning (ZotExtensionManager *manager,
            ZotExtension        *extension,
            const char          *message,
            ZotCli              *cli)
{
  /* Translators: %s is a warning from the host, such as an extension that stopped */
  print_error (_("warning: %s"), message);
}

/* Every mode: stdout may be a stream of events, so warnings about the
 * session go to stderr. */
static void
on_host_warning (ZotHost    *host,
                 const char *message,
                 ZotCli     *cli)
{
  print_error (_("warning: %s"), message);
}

/* Every mode, one line each: the supervisor's restarts and its giving up. */
static void
on_extension_restarted (ZotExtensionManager *manager,
                        ZotExtension        *extension,
                        guint                attempt,
                        const char          *reason,
                        ZotCli              *cli)
{
  /* Translators: the extension's name, the restart in a row, then why it had stopped */
  print_error (_("warning: restarted %s (attempt %u); %s"), zot_extension_get_name (extension),
               attempt, reason);
}

static void
on_extension_gave_up (ZotExtensionManager *manager,
                      ZotExtension        *extension,
                      const char          *note,
                      ZotCli              *cli)
{
  print_error (_("warning: %s"), note);
}

/* A busy provider's wait, as it starts; ^C ends it. */
static void
on_retrying (ZotAgent   *agent,
             guint       retry,
             guint       max_retries,
             gint64      delay_ms,
             const char *message,
             ZotCli     *cli)
{
  print_error ("%s", message);
}

static void
connect_print_view (ZotCli *cli)
{
  ZotExtensionManager *manager = zot_host_get_manager (cli->host);

  g_signal_connect (zot_host_get_agent (cli->host), "retrying", G_CALLBACK (on_retrying), cli);

  g_signal_connect (manager, "warning", G_CALLBACK (on_warning), cli);
  g_signal_connect (manager, "note-added", G_CALLBACK (on_note_added), cli);
  g_signal_connect (manager, "load-failed", G_CALLBACK (on_load_failed), cli);
  g_signal_connect (manager, "extension-crashed", G_CALLBACK (on_extension_crashed), cli);
  g_signal_connect (cli->host, "info", G_CALLBACK (on_info), cli);
  g_signal_connect (cli->host, "command-replied", G_CALLBACK (on_command_replied), cli);
}

/* Print and JSON modes */

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ZotCli *cli = user_data;

  zot_host_shutdown_finish (ZOT_HOST (object), result, NULL);
  if (cli->events != NULL)
    zot_cli_events_emit_simple (cli->events, "done");
  g_main_loop_quit (cli->loop);
}

static void
finish (ZotCli *cli,
        int     status)
{
  if (status > cli->status)
    cli->status = status;

  zot_host_shutdown_async (cli->host, NULL, shutdown_cb, cli);
}

static void
report_error (ZotCli       *cli,
              const GError *error)
{
  if (cli->events != NULL)
    zot_cli_events_emit_error (cli->events, error->message);
  else
    print_error ("%s", error->message);

  if (g_error_matches (error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_UNKNOWN_COMMAND))
    {
      g_autoptr(GPtrArray) commands = zot_extension_manager_list_commands (zot_host_get_manager (cli->host));

      if (cli->events != NULL)
        return;

      g_printerr (_("Known commands:\n"));
      for (guint i = 0; i < commands->len; i++)
        {
          ZotCommandInfo *info = g_ptr_array_index (commands, i);

          if (info->extension != NULL)
            g_printerr ("  /%-16s %s [%s]\n", info->name,
                        info->description ? info->description : "",
                        zot_extension_get_name (info->extension));
          else
            g_printerr ("  /%-16s %s\n", info->name, info->description);
        }
    }
}

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ZotCli *cli = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *final_text = NULL;

  if (!zot_host_submit_finish (ZOT_HOST (object), result, &final_text, &error))
    {
      report_error (cli, error);
      finish (cli, 1);
      return;
    }

  if (cli->events == NULL && final_text != NULL && *final_text != '\0')
    print_text (final_text);

  finish (cli, 0);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  ZotCli *cli = user_data;
  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  zot_host_submit_async (cli->host, cli->prompt, cli->cancellable, submitted_cb, cli);
}

static gboolean
on_sigint (gpointer user_data)
{
  ZotCli *cli = user_data;

  /* The run ends with its aborted turn, and then the host shuts down. */
  g_cancellable_cancel (cli->cancellable);
  zot_agent_abort (zot_host_get_agent (cli->host));
  return G_SOURCE_CONTINUE;
}

static ZotHost *
create_host (ZotCli  *cli,
             GError **error)
{
  g_auto(ZotHostOptions) options = { 0 };

  zot_options_to_host (&cli->options, NULL, FALSE, &options);
  return zot_host_new (&options, error);
}

static int
run_headless (ZotCli   *cli,
              gboolean  json,
              gboolean  rpc)
{
  g_autoptr(GError) error = NULL;
  guint sigint_id;

  cli->host = create_host (cli, &error);
  if (cli->host == NULL)
    {
      if (json)
        {
          g_autoptr(JsonObject) event = json_object_new ();
          g_autofree char *line = NULL;

          json_object_set_string_member (event, "type", "error");
          json_object_set_string_member (event, "message", error->message);
          line = zot_json_object_to_string (event);
          printf ("%s\n{\"type\":\"done\"}\n", line);
        }
      print_error ("%s", error->message);
      return 1;
    }

  g_signal_connect (cli->host, "warning", G_CALLBACK (on_host_warning), cli);
  g_signal_connect (zot_host_get_manager (cli->host), "extension-restarted",
                    G_CALLBACK (on_extension_restarted), cli);
  g_signal_connect (zot_host_get_manager (cli->host), "extension-gave-up",
                    G_CALLBACK (on_extension_gave_up), cli);

  if (rpc)
    return zot_cli_rpc_run (cli->host);

  cli->json = json;
  cli->loop = g_main_loop_new (NULL, FALSE);
  cli->cancellable = g_cancellable_new ();

  if (json)
    cli->events = zot_cli_events_new (cli->host, stdout);
  else
    connect_print_view (cli);

  sigint_id = g_unix_signal_add (SIGINT, on_sigint, cli);

  zot_host_load_async (cli->host, cli->cancellable, loaded_cb, cli);
  g_main_loop_run (cli->loop);

  g_source_remove (sigint_id);
  g_signal_handlers_disconnect_by_data (zot_host_get_agent (cli->host), cli);
  g_signal_handlers_disconnect_by_data (zot_host_get_manager (cli->host), cli);
  g_signal_handlers_disconnect_by_data (cli->host, cli);

  return cli->status;
}

static gboolean
parse_main_options (ZotCli   *cli,
                    char   ***argv,
                    GError  **error)
{
  g_autoptr(GOptionContext) context = NULL;
  const GOptionEntry entries[] = {
    { "print", 'p', 0, G_OPTION_ARG_NONE, &cli->print_mode, N_("Run PROMPT, print the result and exit"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &cli->json_mode, N_("Run PROMPT and print one JSON event per line"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &cli->version, N_("Print the version and exit"), NULL },
    /* Translators: the command line's argument in --help: the message for the model */
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &cli->rest, NULL, N_("[PROMPT]") },
    { NULL }
  };

  g_autofree char *names = zot_provider_table_describe_names ();
  g_autofree char *summary = NULL;

  context = g_option_context_new (NULL);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  /* Translators: %s lists the provider names for --provider */
  summary = g_strdup_printf (_("A desktop host for zot extensions.\n\n"
                               "Subcommands:\n"
                               "  zot ext list|install|remove|enable|disable|logs|allow-key|deny-key …\n"
                               "  zot models  [--provider NAME] [--json]  (the provider's models)\n"
                               "  zot rpc     (JSON-RPC over stdin and stdout, for editors)\n"
                               "  zot update\n\n"
                               "Providers: %s"), names);
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  zot_options_add_entries (&cli->options, context);

  return zot_options_parse (context, argv, error);
}

/**
 * zot_cli_wants_window:
 *
 * Returns: whether the arguments ask for the window: no subcommand, no
 *   headless flag, nothing that only prints
 */
gboolean
zot_cli_wants_window (int    argc,
                      char **argv)
{
  g_auto(ZotCli) cli = { 0 };
  g_auto(GStrv) args = NULL;
  g_autoptr(GError) error = NULL;

  if (argc > 1 && (g_str_equal (argv[1], "ext") || g_str_equal (argv[1], "update") ||
                   g_str_equal (argv[1], "models") ||
                   g_str_equal (argv[1], "mcp")))
    return FALSE;

  /* Started by D-Bus activation (data/dev.zot.Zot.service.in): the window
   * waits for the desktop's activate or open. */
  if (argc == 2 && g_str_equal (argv[1], "--gapplication-service"))
    return TRUE;

  zot_options_init (&cli.options);

  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h") ||
        g_str_equal (argv[i], "--help-all"))
      return FALSE;

  /* Anything the command line cannot parse is the command line's to report
   * (exit 2), with or without a display. */
  args = g_strdupv (argv);
  if (!parse_main_options (&cli, &args, &error))
    return FALSE;

  if (cli.print_mode || cli.json_mode || cli.version)
    return FALSE;
  if (cli.rest != NULL && cli.rest[0] != NULL && cli.rest[1] == NULL && g_str_equal (cli.rest[0], "rpc"))
    return FALSE;

  return TRUE;
}

int
zot_cli_main (int    argc,
              char **argv)
{
  g_auto(ZotCli) cli = { 0 };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;

  zot_i18n_init ();

  /* A dead extension must not kill us through a write to its pipe. */
  signal (SIGPIPE, SIG_IGN);
  zot_cli_set_print_handlers ();

  if (argc > 1 && g_str_equal (argv[1], "ext"))
    return zot_cli_ext_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "update"))
    return zot_cli_update_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "models"))
    return zot_cli_models_main (argc - 1, argv + 1);
  if (argc > 1 && g_str_equal (argv[1], "mcp"))
    return zot_cli_mcp_main (argc - 1, argv + 1);

  zot_options_init (&cli.options);
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

  if (!zot_options_check (&cli.options, &error))
    {
      print_error ("%s", error->message);
      return 2;
    }

  /* The prompt is every remaining word, so flags may come before or after
   * -p and --json: `zot --json --provider openai "hi"` and `zot -p hi`. */
  if (cli.rest != NULL && cli.rest[0] != NULL)
    cli.prompt = g_strjoinv (" ", cli.rest);

  if (!cli.print_mode && !cli.json_mode && g_strcmp0 (cli.prompt, "rpc") == 0)
    {
      /* RPC keeps no conversation unless told to: nothing to journal in. */
      if (cli.options.continuous && cli.options.session == NULL && !cli.options.continue_session)
        {
          print_error (_("zot rpc --continuous needs a saved conversation: add --session FILE or --continue"));
          return 2;
        }
      /* The embedding program owns persistence, unless it names a session. */
      if (cli.options.session == NULL && !cli.options.continue_session)
        cli.options.no_session = TRUE;
      return run_headless (&cli, TRUE, TRUE);
    }

  if (cli.print_mode && cli.json_mode)
    {
      print_error (_("-p and --json cannot be used together"));
      return 2;
    }

  if ((cli.print_mode || cli.json_mode) && (cli.prompt == NULL || *cli.prompt == '\0'))
    {
      /* Translators: both %s are the option given, -p or --json */
      print_error (_("%s needs a PROMPT, e.g. zot %s \"hello\""),
                   cli.json_mode ? "--json" : "-p", cli.json_mode ? "--json" : "-p");
      return 2;
    }

  if (cli.json_mode)
    return run_headless (&cli, TRUE, FALSE);

  if (cli.print_mode)
    return run_headless (&cli, FALSE, FALSE);

  print_error (_("the window is not part of this build yet; run zot -p PROMPT, zot --json PROMPT or zot rpc"));
  return 2;
}
