/* zot-cli-models.c — `zot models`: the models a provider's server has.
 *
 * One id a line on stdout, or with --json one object with the list and
 * where it came from. When the server could not be asked and a saved list
 * stands in, a line on stderr says so and how old it is.
 */
#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "zot-cli-private.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-model-list.h"
#include "zot-provider-secrets.h"
#include "zot-provider-table.h"

enum
{
  EXIT_OK = 0,
  EXIT_FAILED = 1,
  EXIT_USAGE = 2,
};

static int
usage_error (const char *message)
{
  /* Translators: keep "zot models --help" as it is */
  g_printerr (_("zot: models: %s; see zot models --help\n"), message);
  return EXIT_USAGE;
}

static void
print_list (ZotModelList *list,
            gboolean      json)
{
  if (json)
    {
      g_autoptr(JsonObject) object = zot_model_list_to_json (list);
      g_autofree char *text = zot_json_object_to_string (object);

      printf ("%s\n", text);
      return;
    }

  for (guint i = 0; i < list->ids->len; i++)
    printf ("%s\n", (const char *) g_ptr_array_index (list->ids, i));
}

/* What stdout alone does not say: a stand-in list, a cut one. */
static void
print_notes (ZotModelList *list)
{
  if (list->fetch_error != NULL)
    {
      g_autofree char *age = zot_model_list_describe_age (list);

      /* Translators: the age ("3 hours"), then why the server was not asked */
      g_printerr (_("zot: showing the list saved %s ago: %s\n"), age, list->fetch_error);
    }
  if (list->truncated)
    g_printerr (_("zot: the server listed more than %u models; showing the first %u\n"),
                ZOT_MODEL_LIST_MAX_MODELS, ZOT_MODEL_LIST_MAX_MODELS);
}

/**
 * zot_cli_models_main:
 * @argv: starting at "models"
 *
 * Returns: the exit status: 0 listed, 1 no list, 2 usage error
 */
int
zot_cli_models_main (int    argc,
                     char **argv)
{
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *api_key = NULL;
  g_autofree char *api_key_file = NULL;
  gboolean json = FALSE;
  gboolean refresh = FALSE;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotModelList) list = NULL;
  g_auto(ZotProviderConfig) config = { 0 };
  g_auto(GStrv) args = NULL;
  g_autofree char *names = zot_provider_table_describe_names ();
  g_autofree char *summary = NULL;
  ZotCliAsyncWait wait;
  const GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &provider, N_("The provider whose models to list"), N_("NAME") },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url, N_("The API root of the provider"), N_("URL") },
    { "api-key", 0, 0, G_OPTION_ARG_STRING, &api_key, N_("The API key"), N_("KEY") },
    { "api-key-file", 0, 0, G_OPTION_ARG_FILENAME, &api_key_file,
      N_("Read the API key from the first line of FILE"), N_("FILE") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the list as one JSON object"), NULL },
    { "refresh", 0, 0, G_OPTION_ARG_NONE, &refresh, N_("Ask the server even when the saved list is recent"), NULL },
    { NULL }
  };

  g_set_prgname ("zot models");
  context = g_option_context_new (NULL);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  /* Translators: %s lists the provider names */
  summary = g_strdup_printf (_("List the models the provider's server has, saved for a day.\n\n"
                               "Providers: %s"), names);
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (context, &args, &error))
    return usage_error (error->message);
  if (g_strv_length (args) > 1)
    {
      g_autofree char *message = g_strdup_printf (_("unexpected argument \"%s\""), args[1]);

      return usage_error (message);
    }

  if (provider != NULL && zot_provider_table_lookup_checked (provider, &error) == NULL)
    return usage_error (error->message);

  if (api_key_file != NULL)
    {
      api_key = zot_provider_read_key_file (api_key_file, &error);
      if (api_key == NULL)
        return usage_error (error->message);
    }

  config.name = g_steal_pointer (&provider);
  config.base_url = g_steal_pointer (&base_url);
  config.api_key = g_steal_pointer (&api_key);
  zot_provider_resolve_config (&config);

  zot_cli_async_wait_init (&wait);
  zot_model_list_fetch_async (&config, refresh ? ZOT_MODEL_LIST_REFRESH : ZOT_MODEL_LIST_NONE,
                              wait.cancellable, zot_cli_async_wait_done_cb, &wait);
  zot_cli_async_wait_run (&wait);
  list = zot_model_list_fetch_finish (wait.result, &error);
  zot_cli_async_wait_clear (&wait);

  if (list == NULL)
    {
      g_printerr ("zot: %s\n", error->message);
      return EXIT_FAILED;
    }

  print_list (list, json);
  print_notes (list);
  return EXIT_OK;
}
