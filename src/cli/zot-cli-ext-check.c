/* zot-cli-ext-check.c — `zot ext check DIR`: the checker of
 * zot-ext-check.c, with a report for a person or one JSON document for CI.
 *
 * The words a script matches ("ok", "FAIL", "skip", "violation:") and the
 * rules' names stay untranslated; the rest is the user's language.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "zot-cli-private.h"
#include "zot-ext-check.h"
#include "zot-json.h"

#define ZOT_EXIT_OK     0
#define ZOT_EXIT_FAILED 1
#define ZOT_EXIT_USAGE  2

static void
print_violation (JsonObject *violation)
{
  const char *frame = zot_json_get_string (violation, "frame");
  const char *detail = zot_json_get_string (violation, "detail");

  g_print ("violation: %s (%s)", zot_json_get_string (violation, "text"),
           zot_json_get_string (violation, "section"));
  if (frame != NULL)
    g_print (": %s", frame);
  if (detail != NULL)
    g_print (frame != NULL ? " (%s)" : ": %s", detail);
  g_print ("\n");
}

static void
print_step (JsonObject *step)
{
  const char *status = zot_json_get_string (step, "status");
  const char *detail = zot_json_get_string (step, "detail");
  const char *word = g_strcmp0 (status, "ok") == 0 ? "ok" : g_strcmp0 (status, "skip") == 0 ? "skip" : "FAIL";

  g_print ("%-5s %s", word, zot_json_get_string (step, "name"));
  if (detail != NULL)
    g_print (": %s", detail);
  g_print ("\n");
}

static void
on_item_cb (const char *kind,
            JsonObject *item,
            gpointer    user_data)
{
  if (g_str_equal (kind, "violation"))
    print_violation (item);
  else if (g_str_equal (kind, "note"))
    g_print ("note: %s: %s\n", zot_json_get_string (item, "text"), zot_json_get_string_or (item, "frame", ""));
  else
    print_step (item);
  fflush (stdout);
}

static void
print_summary (JsonObject *report)
{
  JsonArray *steps = zot_json_get_array (report, "steps");
  JsonArray *violations = zot_json_get_array (report, "violations");
  guint n_steps = json_array_get_length (steps);
  guint n_violations = json_array_get_length (violations);
  guint failed = 0;
  guint skipped = 0;
  const char *log = zot_json_get_string (report, "log");

  for (guint i = 0; i < n_steps; i++)
    {
      const char *status = zot_json_get_string (json_array_get_object_element (steps, i), "status");

      failed += g_strcmp0 (status, "fail") == 0;
      skipped += g_strcmp0 (status, "skip") == 0;
    }

  /* Translators: the summary of "zot ext check"; %s is "clean" or "NOT clean" (translated
   * below), then counts of steps, failed and skipped steps and violations */
  g_print (_("%s: %u steps, %u failed, %u skipped, %u violations\n"),
           zot_json_get_boolean_or (report, "ok", FALSE) ? _("clean") : _("NOT clean"),
           n_steps, failed, skipped, n_violations);
  if (log != NULL)
    /* Translators: %s is a file holding what the extension wrote to stderr */
    g_print (_("the extension's stderr: %s\n"), log);
}

/**
 * zot_cli_ext_check_main:
 * @argv: starts at "check"
 *
 * Returns: 0 when the extension is clean, 1 when not, 2 on a usage error
 */
int
zot_cli_ext_check_main (int    argc,
                        char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) report = NULL;
  g_auto(GStrv) args = NULL;
  gboolean scenario = FALSE;
  gboolean durable = FALSE;
  gboolean json = FALSE;
  ZotExtCheckFlags flags = ZOT_EXT_CHECK_NONE;
  const GOptionEntry entries[] = {
    { "scenario", 0, 0, G_OPTION_ARG_NONE, &scenario,
      N_("Check the behaviour of sdk/SCENARIO.md, as a host without and with call_tool_durable"), NULL },
    { "durable", 0, 0, G_OPTION_ARG_NONE, &durable,
      N_("Advertise call_tool_durable, as a host in continuous mode does"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print one JSON document instead of the report"), NULL },
    { NULL }
  };

  g_return_val_if_fail (argc >= 1 && argv != NULL, ZOT_EXIT_USAGE);

  args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);

  g_set_prgname ("zot ext check");
  context = g_option_context_new (_("DIR"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Play the host against the extension in DIR, with no model and no window,\n"
                                  "and report every protocol rule it breaks. The exit status is 0 only\n"
                                  "when it is clean."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse_strv (context, &args, &error))
    {
      /* Translators: the problem with the command line */
      g_printerr (_("zot: ext check: %s; see zot ext check --help\n"), error->message);
      return ZOT_EXIT_USAGE;
    }
  if (g_strv_length (args) != 2)
    {
      g_printerr (_("zot: ext check: give one extension directory; see zot ext check --help\n"));
      return ZOT_EXIT_USAGE;
    }

  if (scenario)
    flags |= ZOT_EXT_CHECK_SCENARIO;
  if (durable)
    flags |= ZOT_EXT_CHECK_DURABLE;

  report = zot_ext_check_run (args[1], flags, json ? NULL : on_item_cb, NULL, &error);
  if (report == NULL)
    {
      g_printerr ("zot: %s\n", error->message);
      return ZOT_EXIT_FAILED;
    }

  if (json)
    {
      g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), report);
      g_autofree char *text = json_to_string (root, TRUE);

      g_print ("%s\n", text);
    }
  else
    print_summary (report);

  return zot_json_get_boolean_or (report, "ok", FALSE) ? ZOT_EXIT_OK : ZOT_EXIT_FAILED;
}
