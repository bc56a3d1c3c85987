/* test-gui-usage.c — the header's context and cost: the cost in the bar
 * (the context gauge has test-gui-header.c), and the popover's breakdown (input, output, cache reads and writes, each in
 * tokens and dollars) against hand-computed figures; a model without
 * prices shows tokens only and says where prices go. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-gui-test-util.h"
#include "zot-message.h"
#include "zot-model-facts.h"
#include "zot-resources.h"
#include "zot-test-util.h"
#include "zot-usage-label.h"

typedef struct
{
  ZotTestEnv       env;
  ZotToolRegistry *registry;
  ZotSession      *session;
  ZotAgent        *agent;
  GtkWindow       *window;
  ZotUsageLabel   *label;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  zot_model_facts_reload ();
  f->registry = zot_tool_registry_new ();
  f->session = zot_session_new_in_memory (f->env.cwd);
  f->label = ZOT_USAGE_LABEL (zot_usage_label_new ());
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 420, 320);
  gtk_window_set_child (f->window, GTK_WIDGET (f->label));
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->label), (gpointer *) &f->label);
  gtk_window_destroy (f->window);
  g_assert_null (f->label);
  if (f->agent != NULL)
    g_assert_finalize_object (g_steal_pointer (&f->agent));
  g_clear_object (&f->session);
  g_clear_object (&f->registry);
  zot_test_env_teardown (&f->env);
}

/* A conversation of @provider/@model whose model turns said @usage and,
 * when not %NULL, @usage2. */
static void
start2 (Fixture    *f,
        const char *provider_name,
        const char *model,
        const char *usage,
        const char *usage2)
{
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(ZotProvider) provider = NULL;
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(GError) error = NULL;
  JsonObject *answer = zot_message_new_assistant_text ("done");

  config.name = g_strdup (provider_name);
  config.model = g_strdup (model);
  config.api_key = g_strdup ("sk-test");
  provider = zot_provider_new_for_config (&config, &error);
  g_assert_no_error (error);

  json_object_set_object_member (answer, "usage", zot_test_json_object_from (usage));
  g_ptr_array_add (messages, zot_message_new_user_text ("go"));
  g_ptr_array_add (messages, answer);
  if (usage2 != NULL)
    {
      JsonObject *again = zot_message_new_assistant_text ("again");

      json_object_set_object_member (again, "usage", zot_test_json_object_from (usage2));
      g_ptr_array_add (messages, zot_message_new_user_text ("more"));
      g_ptr_array_add (messages, again);
    }
  zot_session_replace_messages (f->session, messages);

  f->agent = zot_agent_new (provider, f->registry, f->session);
  zot_usage_label_set_agent (f->label, f->agent);
}

static void
start (Fixture    *f,
       const char *provider_name,
       const char *model,
       const char *usage)
{
  start2 (f, provider_name, model, usage, NULL);
}

static gboolean
popover_shown (gpointer data)
{
  GtkPopover *popover = gtk_menu_button_get_popover (data);

  return gtk_widget_get_mapped (GTK_WIDGET (popover));
}

/* claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write
 * per million tokens; each line here costs 3 cents. */
static void
test_breakdown (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *breakdown = NULL;
  GtkMenuButton *button;

  start (f, "anthropic", "claude-sonnet-4-5",
         "{\"input_tokens\": 10000, \"output_tokens\": 2000, \"cache_read_tokens\": 100000, "
         "\"cache_write_tokens\": 8000, \"cost_usd\": 0.12}");

  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->label)));
  g_assert_cmpstr (zot_usage_label_get_text (f->label), ==, "$0.12");
  /* The last call's prompt and answer, in a window of 200k. */
  g_assert_cmpint (zot_context_gauge_get_tokens (zot_usage_label_get_gauge (f->label)), ==, 120000);
  g_assert_cmpuint (zot_context_gauge_get_window (zot_usage_label_get_gauge (f->label)), ==, 200000);

  breakdown = zot_usage_label_get_breakdown (f->label);
  g_test_message ("%s", breakdown);
  g_assert_true (g_str_has_prefix (breakdown,
                                   "\tTokens\tCost\n"
                                   "Input\t10000\t$0.03\n"
                                   "Output\t2000\t$0.03\n"
                                   "Cache read\t100000\t$0.03\n"
                                   "Cache write\t8000\t$0.03\n"
                                   "Total\t120000\t$0.12\n"
                                   "Prices of claude-sonnet-4-5 as published in 2025-11"));

  /* The button opens it. */
  button = zot_usage_label_get_button (f->label);
  /* As a click leaves it: GTK 4.8's popover wants a focus to return to. */
  gtk_widget_grab_focus (GTK_WIDGET (button));
  gtk_menu_button_popup (button);
  zot_test_wait_until (popover_shown, button, 5000);
  gtk_menu_button_popdown (button);
}

/* Cents below one show to a hundredth of a cent, never as 0. */
static void
test_format_cost (Fixture       *f,
                  gconstpointer  data)
{
  const struct { double usd; const char *text; } cases[] = {
    { 0.0, "$0.00" }, { 0.0031, "$0.0031" }, { 0.00004, "$0.0000" }, { 0.01, "$0.01" }, { 1.236, "$1.24" },
    { -1.0, "$0.00" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = zot_usage_format_cost (cases[i].usd);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

/* A model without prices: tokens, no figure, and where prices go. */
static void
test_unknown_price (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *breakdown = NULL;
  g_autofree char *file = zot_model_facts_get_user_file ();

  start (f, "openai", "llama3", "{\"input_tokens\": 900, \"output_tokens\": 100}");

  g_assert_cmpstr (zot_usage_label_get_text (f->label), ==, "");
  g_assert_cmpstr (zot_context_gauge_get_label (zot_usage_label_get_gauge (f->label)), ==, "1.0k");
  breakdown = zot_usage_label_get_breakdown (f->label);
  g_test_message ("%s", breakdown);
  g_assert_nonnull (strstr (breakdown, "Input\t900\t—\n"));
  g_assert_nonnull (strstr (breakdown, "Total\t1000\t—\n"));
  g_assert_nonnull (strstr (breakdown, "No prices are known for llama3"));
  g_assert_nonnull (strstr (breakdown, file));
  g_assert_null (strchr (breakdown, '$'));
}

/* One turn priced, one not (the model changed): the total would be a
 * part passed off as the whole, so the bar shows no cost. */
static void
test_partly_priced (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *breakdown = NULL;

  start2 (f, "anthropic", "claude-sonnet-4-5",
          "{\"input_tokens\": 1000, \"output_tokens\": 0, \"cost_usd\": 0.003}",
          "{\"input_tokens\": 1000, \"output_tokens\": 0}");

  g_assert_cmpstr (zot_usage_label_get_text (f->label), ==, "");
  breakdown = zot_usage_label_get_breakdown (f->label);
  g_assert_nonnull (strstr (breakdown, "Total\t2000\t—\n"));
  g_assert_nonnull (strstr (breakdown, "Some turns used a model without known prices"));
  g_assert_false (zot_agent_get_usage (f->agent)->total_cost_known);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  g_assert_nonnull (zot_get_resource ());

  g_test_add ("/zot/gui-usage/breakdown", Fixture, NULL, fixture_setup, test_breakdown, fixture_teardown);
  g_test_add ("/zot/gui-usage/format-cost", Fixture, NULL, fixture_setup, test_format_cost, fixture_teardown);
  g_test_add ("/zot/gui-usage/partly-priced", Fixture, NULL, fixture_setup, test_partly_priced,
              fixture_teardown);
  g_test_add ("/zot/gui-usage/unknown-price", Fixture, NULL, fixture_setup, test_unknown_price,
              fixture_teardown);

  return g_test_run ();
}
