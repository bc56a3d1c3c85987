/* zot-cli-ext-stats.c — `zot ext stats [PROMPT]`: starts the extensions
 * as any headless run would, runs PROMPT when given, and prints what each
 * extension cost: a table for a person, one JSON document with --json.
 *
 * The figures are read before the shutdown, while the processes still
 * run, so that /proc has them.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "zot-cli-private.h"
#include "zot-extension-manager.h"
#include "zot-extension-meter.h"
#include "zot-options.h"

#define ZOT_EXIT_OK     0
#define ZOT_EXIT_FAILED 1
#define ZOT_EXIT_USAGE  2

typedef struct
{
  ZotHost    *host;
  GMainLoop  *loop;
  char       *prompt;
  GError     *error;
  GPtrArray  *extensions;  /* ZotExtension, in the manager's order */
  GPtrArray  *stats;       /* ZotExtensionStats, the same order */
  GArray     *states;      /* ZotExtensionState, as they were measured */
} StatsRun;

static void
collect (StatsRun *run)
{
  GListModel *model = G_LIST_MODEL (zot_host_get_manager (run->host));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      ZotExtension *extension = g_list_model_get_item (model, i);

      ZotExtensionState state = zot_extension_get_state (extension);

      g_ptr_array_add (run->stats, zot_extension_dup_stats (extension));
      g_array_append_val (run->states, state);
      g_ptr_array_add (run->extensions, extension);
    }
}

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  StatsRun *run = user_data;

  zot_host_shutdown_finish (ZOT_HOST (object), result, NULL);
  g_main_loop_quit (run->loop);
}

static void
finish (StatsRun *run)
{
  collect (run);
  zot_host_shutdown_async (run->host, NULL, shutdown_cb, run);
}

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  StatsRun *run = user_data;

  zot_host_submit_finish (ZOT_HOST (object), result, NULL, &run->error);
  finish (run);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  StatsRun *run = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  if (run->prompt != NULL)
    zot_host_submit_async (run->host, run->prompt, NULL, submitted_cb, run);
  else
    finish (run);
}

static void
print_json (StatsRun *run)
{
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; i < run->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (run->extensions, i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "name", zot_extension_get_name (extension));
      json_object_set_string_member (entry, "state",
                                     zot_extension_state_to_string (g_array_index (run->states, ZotExtensionState, i)));
      json_object_set_object_member (entry, "stats",
                                     zot_extension_stats_to_json (g_ptr_array_index (run->stats, i)));
      json_array_add_object_element (array, entry);
    }
  json_object_set_array_member (root, "extensions", g_steal_pointer (&array));
  if (run->prompt != NULL)
    json_object_set_boolean_member (root, "prompt_ok", run->error == NULL);

  node = json_node_init_object (json_node_alloc (), root);
  text = json_to_string (node, TRUE);
  g_print ("%s\n", text);
}

static char *
format_latency (const ZotExtensionStats *stats,
                gint64                   us)
{
  if (stats->latency_samples == 0)
    return g_strdup ("-");
  return g_strdup_printf ("%.1f", us / 1000.0);
}

static void
print_table (StatsRun *run)
{
  if (run->extensions->len == 0)
    {
      g_print (_("no extensions were loaded\n"));
      return;
    }

  /* Translators: the heading of "zot ext stats"; keep the columns aligned with the
   * figures under them: CPU seconds, resident memory, frames in/out, tool calls, the
   * median and 95th percentile latency and the interceptors' time, in ms */
  g_print ("%-20s %-12s %8s %10s %15s %6s %8s %8s %10s %10s\n",
           _("NAME"), _("STATE"), _("CPU s"), _("MEMORY"), _("FRAMES IN/OUT"), _("CALLS"),
           _("P50 ms"), _("P95 ms"), _("TURN ms"), _("TOTAL ms"));
  for (guint i = 0; i < run->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (run->extensions, i);
      const ZotExtensionStats *stats = g_ptr_array_index (run->stats, i);
      g_autofree char *memory = stats->resident_bytes > 0 ? g_format_size (stats->resident_bytes)
                                                           : g_strdup ("-");
      g_autofree char *frames = g_strdup_printf ("%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                                                 stats->frames_in, stats->frames_out);
      g_autofree char *p50 = format_latency (stats, stats->latency_p50_us);
      g_autofree char *p95 = format_latency (stats, stats->latency_p95_us);

      g_print ("%-20s %-12s %8.2f %10s %15s %6" G_GUINT64_FORMAT " %8s %8s %10.1f %10.1f\n",
               zot_extension_get_name (extension),
               zot_extension_state_to_string (g_array_index (run->states, ZotExtensionState, i)),
               stats->cpu_us / (double) G_USEC_PER_SEC, memory, frames, stats->tool_calls,
               p50, p95, stats->intercept_turn_us / 1000.0, stats->intercept_total_us / 1000.0);
    }
}

/**
 * zot_cli_ext_stats_main:
 * @argv: starts at "stats"
 *
 * Returns: 0, 1 when the host could not start or the prompt failed, 2 on
 *   a usage error
 */
int
zot_cli_ext_stats_main (int    argc,
                        char **argv)
{
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host_options = { 0 };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  gboolean json = FALSE;
  StatsRun run = { 0 };
  int status = ZOT_EXIT_OK;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print one JSON document instead of the table"), NULL },
    { NULL }
  };

  g_return_val_if_fail (argc >= 1 && argv != NULL, ZOT_EXIT_USAGE);

  args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);

  zot_options_init (&options);
  g_set_prgname ("zot ext stats");
  context = g_option_context_new (_("[PROMPT]"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Start the extensions, run PROMPT with the configured model when\n"
                                  "given, and print what each extension cost: CPU time, memory, frames\n"
                                  "each way, tool-call latency and the time its interceptors added."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  zot_options_add_entries (&options, context);
  if (!zot_options_parse (context, &args, &error) || !zot_options_check (&options, &error))
    {
      /* Translators: the problem with the command line */
      g_printerr (_("zot: ext stats: %s; see zot ext stats --help\n"), error->message);
      return ZOT_EXIT_USAGE;
    }

  /* A measuring run keeps no conversation. */
  options.no_session = TRUE;
  zot_options_to_host (&options, NULL, FALSE, &host_options);
  run.host = zot_host_new (&host_options, &error);
  if (run.host == NULL)
    {
      g_printerr ("zot: %s\n", error->message);
      return ZOT_EXIT_FAILED;
    }

  if (args[1] != NULL)
    run.prompt = g_strjoinv (" ", args + 1);
  run.loop = g_main_loop_new (NULL, FALSE);
  run.extensions = g_ptr_array_new_with_free_func (g_object_unref);
  run.stats = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_extension_stats_free);
  run.states = g_array_new (FALSE, FALSE, sizeof (ZotExtensionState));

  zot_host_load_async (run.host, NULL, loaded_cb, &run);
  g_main_loop_run (run.loop);

  if (run.error != NULL)
    {
      g_printerr ("zot: %s\n", run.error->message);
      status = ZOT_EXIT_FAILED;
    }

  if (json)
    print_json (&run);
  else
    print_table (&run);

  g_clear_error (&run.error);
  g_clear_pointer (&run.prompt, g_free);
  g_clear_pointer (&run.extensions, g_ptr_array_unref);
  g_clear_pointer (&run.stats, g_ptr_array_unref);
  g_clear_pointer (&run.states, g_array_unref);
  g_clear_pointer (&run.loop, g_main_loop_unref);
  g_clear_object (&run.host);
  return status;
}
