/* test-provider-table.c — the provider and model table: every row is
 * complete and consistent, lookups find rows and refuse the rest clearly,
 * the key variables and the providers made agree with it. */
#include "config.h"

#include <string.h>

#include "zot-provider.h"
#include "zot-provider-table.h"

static void
test_rows (void)
{
  guint n = zot_provider_table_get_n_providers ();

  g_assert_cmpuint (n, >, 0);

  for (guint i = 0; i < n; i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);

      g_test_message ("provider %s", info->name);
      g_assert_nonnull (info->name);
      g_assert_cmpstr (info->name, !=, "");
      g_assert_nonnull (info->label);
      g_assert_cmpstr (zot_provider_info_get_label (info), !=, "");
      g_assert_nonnull (info->new_func);

      /* A key, unless it runs offline or on this machine; those need none. */
      if (info->offline || info->local)
        g_assert_null (info->key_variable);
      else
        g_assert_nonnull (info->key_variable);

      /* Its default model is one of its known models, when it has any
       * (a local server's models are the user's). */
      g_assert_nonnull (info->default_model);
      {
        g_autoptr(GPtrArray) known = zot_model_facts_list (info->name);

        if (known->len > 0)
          {
            g_assert_true (zot_model_info_lookup (info->name, info->default_model) != NULL);
            g_assert_cmpstr (zot_model_info_lookup (info->name, info->default_model)->id, ==,
                             info->default_model);
          }
      }

      /* A base URL: a default exactly when one is taken, but for the one
       * the user must name; compatible servers are reached through one. A
       * server on the network is reached over https, a local one on
       * localhost. */
      g_assert_cmpint (info->accepts_base_url, ==,
                       info->default_base_url != NULL || info->quirks.needs_base_url);
      g_assert_true (info->default_base_url == NULL || !info->quirks.needs_base_url);
      if (info->default_base_url != NULL && info->local)
        g_assert_true (g_str_has_prefix (info->default_base_url, "http://localhost:"));
      else if (info->default_base_url != NULL)
        g_assert_true (g_str_has_prefix (info->default_base_url, "https://"));
      if (info->compatible_servers || info->local)
        g_assert_true (info->accepts_base_url);
      /* A header is a name and a value. */
      for (guint h = 0; info->quirks.headers != NULL && info->quirks.headers[h] != NULL; h += 2)
        g_assert_nonnull (info->quirks.headers[h + 1]);

      /* Names are unique. */
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (zot_provider_table_get_nth (j)->name, !=, info->name);
    }

  /* What runs without a key is there, and is offline. */
  g_assert_nonnull (zot_provider_table_get_fallback ());
  g_assert_true (zot_provider_table_get_fallback ()->offline);
}

static void
test_lookup (void)
{
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      g_autoptr(GError) error = NULL;

      g_assert_true (zot_provider_table_lookup (info->name) == info);
      g_assert_true (zot_provider_table_lookup_checked (info->name, &error) == info);
      g_assert_no_error (error);
    }

  g_assert_null (zot_provider_table_lookup ("nonsense"));
  g_assert_null (zot_provider_table_lookup (""));
  g_assert_null (zot_provider_table_lookup (NULL));
  /* Names are exact: no case folding, no prefixes. */
  g_assert_null (zot_provider_table_lookup ("OpenAI"));
  g_assert_null (zot_provider_table_lookup ("open"));
}

/* An unknown provider is refused with its name and the valid ones, both
 * by the table and by zot_provider_new_for_config(). */
static void
test_unknown (void)
{
  g_auto(ZotProviderConfig) config = { .name = g_strdup ("nonsense") };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) provider = NULL;
  g_autofree char *names = zot_provider_table_describe_names ();

  g_assert_null (zot_provider_table_lookup_checked ("nonsense", &error));
  g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "\"nonsense\""));
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      g_assert_nonnull (strstr (error->message, zot_provider_table_get_nth (i)->name));
      g_assert_nonnull (strstr (names, zot_provider_table_get_nth (i)->name));
    }
  g_clear_error (&error);

  provider = zot_provider_new_for_config (&config, &error);
  g_assert_null (provider);
  g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "unknown provider \"nonsense\""));
  g_assert_nonnull (strstr (error->message, names));
}

/* zot_provider_is_key_variable() and the list children are kept from are
 * the table's key variables, plus those of other agents' providers. */
static void
test_key_variables (void)
{
  const char * const *variables = zot_provider_table_get_key_variables ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  guint n_rows = 0;

  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      g_autofree char *derived = NULL;

      if (info->key_variable == NULL)
        {
          g_assert_null (zot_provider_table_get_key_variable (info->name));
          continue;
        }

      n_rows++;
      g_assert_true (zot_provider_is_key_variable (info->key_variable));
      g_assert_true (g_strv_contains (variables, info->key_variable));
      g_assert_cmpstr (zot_provider_table_get_key_variable (info->name), ==, info->key_variable);

      /* zot-extension.c finds the provider of a granted variable by
       * lowering it and taking off "_API_KEY": that must lead back here. */
      g_assert_true (g_str_has_suffix (info->key_variable, "_API_KEY"));
      derived = g_ascii_strdown (info->key_variable,
                                 strlen (info->key_variable) - strlen ("_API_KEY"));
      g_assert_cmpstr (derived, ==, info->name);
    }

  g_assert_cmpuint (g_strv_length ((GStrv) variables), >=, n_rows);
  for (guint i = 0; variables[i] != NULL; i++)
    {
      g_autofree char *derived = g_ascii_strdown (variables[i],
                                                  strlen (variables[i]) - strlen ("_API_KEY"));

      g_assert_true (zot_provider_is_key_variable (variables[i]));
      g_assert_cmpstr (zot_provider_table_get_key_variable (derived), ==, variables[i]);
      g_subprocess_launcher_setenv (launcher, variables[i], "secret", TRUE);
    }
  g_assert_true (zot_provider_is_key_variable ("GEMINI_API_KEY"));

  g_assert_false (zot_provider_is_key_variable ("PATH"));
  g_assert_false (zot_provider_is_key_variable ("DEMO_API_KEY"));
  g_assert_false (zot_provider_is_key_variable (""));
  g_assert_false (zot_provider_is_key_variable (NULL));
  g_assert_null (zot_provider_table_get_key_variable ("nonsense"));

  /* Every one of them is kept from a child, but those it may keep. */
  g_subprocess_launcher_setenv (launcher, "ZOT_TEST_HARMLESS", "kept", TRUE);
  zot_provider_scrub_environment (launcher, (const char *[]) { variables[0], NULL });
  g_assert_cmpstr (g_subprocess_launcher_getenv (launcher, variables[0]), ==, "secret");
  for (guint i = 1; variables[i] != NULL; i++)
    g_assert_null (g_subprocess_launcher_getenv (launcher, variables[i]));
  g_assert_cmpstr (g_subprocess_launcher_getenv (launcher, "ZOT_TEST_HARMLESS"), ==, "kept");
}

/* Without a key anywhere, the automatic choice is the fallback; with one
 * for a row, that row. */
static void
test_automatic_choice (void)
{
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const char *variable = zot_provider_table_get_nth (i)->key_variable;

      if (variable != NULL)
        g_unsetenv (variable);
    }

  {
    g_auto(ZotProviderConfig) config = { 0 };

    zot_provider_resolve_config (&config);
    g_assert_cmpstr (config.name, ==, zot_provider_table_get_fallback ()->name);
    g_assert_null (config.api_key);
  }

  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      g_auto(ZotProviderConfig) config = { 0 };
      g_autofree char *source = NULL;

      if (info->key_variable == NULL)
        continue;

      g_setenv (info->key_variable, "sk-from-env", TRUE);
      zot_provider_resolve_config (&config);
      g_unsetenv (info->key_variable);

      /* The first row with a key wins; here only this one has one. */
      source = g_strconcat ("$", info->key_variable, NULL);
      g_assert_cmpstr (config.name, ==, info->name);
      g_assert_cmpstr (config.api_key, ==, "sk-from-env");
      g_assert_cmpstr (config.api_key_source, ==, source);
    }
}

/* A provider made for a row says the row's name and default model. */
static void
test_providers_match_rows (void)
{
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      g_auto(ZotProviderConfig) config = { 0 };
      g_autoptr(GError) error = NULL;
      g_autoptr(ZotProvider) provider = NULL;

      config.name = g_strdup (info->name);
      if (info->key_variable != NULL)
        config.api_key = g_strdup ("sk-test");
      if (info->quirks.needs_base_url)
        {
          /* Without its URL it says which flag gives it. */
          g_assert_null (zot_provider_new_for_config (&config, &error));
          g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
          g_assert_nonnull (strstr (error->message, "--base-url"));
          g_clear_error (&error);
          config.base_url = g_strdup ("https://example.openai.azure.com/openai/deployments/d");
        }
      provider = zot_provider_new_for_config (&config, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (zot_provider_get_name (provider), ==, info->name);
      g_assert_cmpstr (zot_provider_get_model (provider), ==, info->default_model);
      g_assert_finalize_object (g_steal_pointer (&provider));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/provider-table/rows", test_rows);
  g_test_add_func ("/zot/provider-table/lookup", test_lookup);
  g_test_add_func ("/zot/provider-table/unknown", test_unknown);
  g_test_add_func ("/zot/provider-table/key-variables", test_key_variables);
  g_test_add_func ("/zot/provider-table/automatic-choice", test_automatic_choice);
  g_test_add_func ("/zot/provider-table/providers-match-rows", test_providers_match_rows);

  return g_test_run ();
}
