/* test-gui-header.c — the header bar of a whole window with the demo
 * model: the context gauge after turns (what the conversation fills now,
 * never a sum over turns), its warning edge and an unknown window, the
 * cost shown only when prices are known, and the model button with its
 * picker. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "zot-application.h"
#include "zot-context-gauge.h"
#include "zot-gui-test-util.h"
#include "zot-host-private.h"
#include "zot-limits.h"
#include "zot-model-facts.h"
#include "zot-options.h"
#include "zot-test-util.h"
#include "zot-tooltip.h"
#include "zot-window-private.h"
#include "zot-window.h"

typedef struct
{
  ZotTestEnv  env;
  ZotWindow  *window;
} Fixture;

static ZotApplication *application;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  zot_model_facts_reload ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_test_close_window (&f->window);
  zot_test_env_teardown (&f->env);
  zot_model_facts_reload ();
}

static void
open_window (Fixture *f)
{
  g_auto(ZotHostOptions) options = { 0 };

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_ext = TRUE;
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->window = zot_test_open_window (application, &options, 0, 0);
}

/* The user's models.json gives a model of the demo a context window. */
static void
give_window (const char *model,
             guint       window)
{
  g_autofree char *file = zot_model_facts_get_user_file ();
  g_autofree char *dir = g_path_get_dirname (file);
  g_autofree char *text = g_strdup_printf ("{\"models\": [{\"provider\": \"demo\", \"id\": \"%s\", "
                                           "\"context_window\": %u}]}\n", model, window);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (file, text, -1, NULL));
  zot_model_facts_reload ();
}

static ZotContextGauge *
gauge_of (Fixture *f)
{
  return zot_usage_label_get_gauge (f->window->usage_label);
}

static void
turn (Fixture    *f,
      const char *text)
{
  g_auto(ZotTestSubmit) submit = { 0 };

  zot_test_submit (zot_window_get_host (f->window), text, &submit);
  g_assert_no_error (submit.error);
  g_assert_true (submit.ok);
}

/* After each turn the gauge shows the last call's prompt and answer
 * against the window, not the sum of every turn's input: two turns of
 * the same size fill about the same, while the sums double. */
static void
test_gauge_after_turns (Fixture       *f,
                        gconstpointer  data)
{
  const ZotUsage *usage;
  ZotContextGauge *gauge;
  gint64 first;
  gint64 second;

  give_window ("demo", 100000);
  open_window (f);
  gauge = gauge_of (f);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (f->window->usage_label)));

  turn (f, "hello");
  usage = zot_agent_get_usage (zot_host_get_agent (zot_window_get_host (f->window)));
  first = zot_context_gauge_get_tokens (gauge);
  g_test_message ("first turn: %" G_GINT64_FORMAT " in context, input %" G_GINT64_FORMAT
                  ", output %" G_GINT64_FORMAT, first, usage->input_tokens, usage->output_tokens);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window->usage_label)));
  g_assert_cmpint (first, >, 0);
  g_assert_cmpint (first, ==, usage->input_tokens + usage->output_tokens);
  g_assert_cmpuint (zot_context_gauge_get_window (gauge), ==, 100000);
  g_assert_cmpfloat_with_epsilon (zot_context_gauge_get_fraction (gauge), first / 100000.0, 1e-9);
  g_assert_null (zot_context_gauge_get_label (gauge));
  g_assert_nonnull (strstr (zot_context_gauge_get_description (gauge), "/ 100.0k tokens in context"));

  turn (f, "hello");
  second = zot_context_gauge_get_tokens (gauge);
  g_test_message ("second turn: %" G_GINT64_FORMAT " in context, inputs together %" G_GINT64_FORMAT,
                  second, usage->total_input_tokens);
  g_assert_cmpint (second, ==, usage->input_tokens + usage->output_tokens);
  /* The second prompt holds the first turn, so it is a little larger;
   * a running sum would be about twice the first. */
  g_assert_cmpint (second, >, first);
  g_assert_cmpint (second, <, first + first / 2);
  g_assert_cmpint (usage->total_input_tokens + usage->total_output_tokens, >, first + first / 2);

  /* The demo's prices are known (it is free): the cost shows. */
  g_assert_cmpstr (zot_usage_label_get_text (f->window->usage_label), ==, "$0.00");
}

static void
compact_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  *(ZotCompaction **) user_data = zot_agent_compact_finish (ZOT_AGENT (object), result, &error);
  g_assert_no_error (error);
}

static gboolean
compaction_done (gpointer data)
{
  return *(ZotCompaction **) data != NULL;
}

/* A compaction empties the context without a model turn: the gauge
 * shows what is left, estimated as compaction does. */
static void
test_after_compaction (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(ZotCompaction) compaction = NULL;
  ZotAgent *agent;
  gint64 before;

  give_window ("demo", 100000);
  open_window (f);
  turn (f, "remember the red door and the blue key behind the green curtain");
  turn (f, "and the yellow lamp");
  before = zot_context_gauge_get_tokens (gauge_of (f));

  agent = zot_host_get_agent (zot_window_get_host (f->window));
  zot_agent_compact_async (agent, NULL, compact_cb, &compaction);
  zot_test_wait_until (compaction_done, &compaction, 30000);
  g_test_message ("before %" G_GINT64_FORMAT ", after %" G_GUINT64_FORMAT, before,
                  compaction->after_token_estimate);
  g_assert_cmpint (zot_context_gauge_get_tokens (gauge_of (f)), ==, (gint64) compaction->after_token_estimate);
  g_assert_cmpint (zot_context_gauge_get_tokens (gauge_of (f)), <, before);
}

/* A model whose window is unknown shows the count, without a bar; its
 * model changing to one with a window shows the bar at once. */
static void
test_unknown_window (Fixture       *f,
                     gconstpointer  data)
{
  ZotContextGauge *gauge;
  g_autofree char *count = NULL;

  open_window (f);
  gauge = gauge_of (f);
  turn (f, "hello");

  count = zot_usage_format_count (zot_context_gauge_get_tokens (gauge));
  g_assert_cmpuint (zot_context_gauge_get_window (gauge), ==, 0);
  g_assert_cmpstr (zot_context_gauge_get_label (gauge), ==, count);
  g_assert_cmpfloat (zot_context_gauge_get_fraction (gauge), ==, 0.0);
  g_assert_false (zot_context_gauge_get_warning (gauge));
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (GTK_WIDGET (gauge), GTK_TYPE_LEVEL_BAR, NULL)));

  give_window ("demo-big", 50000);
  g_assert_true (zot_host_set_model (zot_window_get_host (f->window), NULL, "demo-big", NULL));
  g_assert_cmpuint (zot_context_gauge_get_window (gauge), ==, 50000);
  g_assert_null (zot_context_gauge_get_label (gauge));
  g_assert_true (gtk_widget_get_visible (zot_test_find_widget (GTK_WIDGET (gauge), GTK_TYPE_LEVEL_BAR, NULL)));
}

/* The warning colour from ZOT_CONTEXT_WARNING_PERCENT on, not before;
 * the tooltip and the accessible description say the figures. */
static void
test_warning_edge (Fixture       *f,
                   gconstpointer  data)
{
  ZotContextGauge *gauge = g_object_ref_sink (ZOT_CONTEXT_GAUGE (zot_context_gauge_new ()));
  const char *tooltip;

  zot_context_gauge_set (gauge, ZOT_CONTEXT_WARNING_PERCENT * 1000 - 1, 100000);
  g_assert_false (zot_context_gauge_get_warning (gauge));
  zot_context_gauge_set (gauge, ZOT_CONTEXT_WARNING_PERCENT * 1000, 100000);
  g_assert_true (zot_context_gauge_get_warning (gauge));
  g_assert_cmpfloat_with_epsilon (zot_context_gauge_get_fraction (gauge), ZOT_CONTEXT_WARNING_PERCENT / 100.0, 1e-9);

  zot_context_gauge_set (gauge, 42000, 200000);
  g_assert_false (zot_context_gauge_get_warning (gauge));
  g_assert_cmpstr (zot_context_gauge_get_description (gauge), ==, "42.0k / 200.0k tokens in context (21 %)");
  tooltip = zot_tooltip_get (GTK_WIDGET (gauge));
  g_assert_cmpstr (tooltip, ==, "42.0k / 200.0k tokens in context (21 %)");

  /* Past the window (a model that lets the prompt overflow) stays full. */
  zot_context_gauge_set (gauge, 300000, 200000);
  g_assert_cmpfloat (zot_context_gauge_get_fraction (gauge), ==, 1.0);
  g_assert_true (zot_context_gauge_get_warning (gauge));

  zot_context_gauge_set (gauge, 4200, 0);
  g_assert_cmpstr (zot_context_gauge_get_description (gauge), ==, "4.2k tokens in context");
  g_assert_cmpstr (zot_context_gauge_get_label (gauge), ==, "4.2k");
  g_assert_false (zot_context_gauge_get_warning (gauge));
  g_assert_finalize_object (gauge);
}

/* A model without known prices: the gauge, no cost. */
static void
test_no_prices (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *file = zot_model_facts_get_user_file ();
  g_autofree char *dir = g_path_get_dirname (file);
  GtkWidget *cost;

  /* The user's file can only add prices; a model of its own has none. */
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (file, "{\"models\": [{\"provider\": \"demo\", \"id\": \"demo-unpriced\", "
                                            "\"context_window\": 8000}]}\n", -1, NULL));
  zot_model_facts_reload ();
  open_window (f);
  g_assert_true (zot_host_set_model (zot_window_get_host (f->window), NULL, "demo-unpriced", NULL));
  turn (f, "hello");

  g_assert_cmpstr (zot_usage_label_get_text (f->window->usage_label), ==, "");
  cost = zot_test_find_widget (GTK_WIDGET (f->window->usage_label), GTK_TYPE_LABEL, "dim-label");
  g_assert_nonnull (cost);
  g_assert_false (gtk_widget_get_visible (cost));
  g_assert_cmpuint (zot_context_gauge_get_window (gauge_of (f)), ==, 8000);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window->usage_label)));
}

static gboolean
popover_shown (gpointer data)
{
  GtkPopover *popover = gtk_menu_button_get_popover (data);

  return popover != NULL && gtk_widget_get_mapped (GTK_WIDGET (popover));
}

/* The header has the model button, named for the current model, and it
 * opens the picker. */
static void
test_model_button (Fixture       *f,
                   gconstpointer  data)
{
  GtkWidget *header;
  GtkWidget *picker;
  GtkMenuButton *button;

  open_window (f);
  header = zot_test_find_widget (GTK_WIDGET (f->window), ADW_TYPE_HEADER_BAR, NULL);
  picker = zot_test_find_widget (header, ZOT_TYPE_MODEL_PICKER, NULL);
  g_assert_nonnull (picker);
  g_assert_true (gtk_widget_get_mapped (picker));
  button = GTK_MENU_BUTTON (zot_test_find_widget (picker, GTK_TYPE_MENU_BUTTON, NULL));
  g_assert_cmpstr (gtk_menu_button_get_label (button), ==, "demo");

  g_assert_true (zot_host_set_model (zot_window_get_host (f->window), NULL, "demo-2", NULL));
  g_assert_cmpstr (gtk_menu_button_get_label (button), ==, "demo-2");

  gtk_widget_grab_focus (GTK_WIDGET (button));
  gtk_menu_button_popup (button);
  zot_test_wait_until (popover_shown, button, 5000);
  g_assert_nonnull (zot_test_find_widget (GTK_WIDGET (gtk_menu_button_get_popover (button)),
                                          GTK_TYPE_SEARCH_ENTRY, NULL));
  gtk_menu_button_popdown (button);
}

int
main (int    argc,
      char **argv)
{
  int status;

  application = zot_test_gui_init (&argc, &argv);

  g_test_add ("/zot/gui-header/gauge-after-turns", Fixture, NULL, fixture_setup, test_gauge_after_turns,
              fixture_teardown);
  g_test_add ("/zot/gui-header/after-compaction", Fixture, NULL, fixture_setup, test_after_compaction,
              fixture_teardown);
  g_test_add ("/zot/gui-header/unknown-window", Fixture, NULL, fixture_setup, test_unknown_window,
              fixture_teardown);
  g_test_add ("/zot/gui-header/warning-edge", Fixture, NULL, fixture_setup, test_warning_edge, fixture_teardown);
  g_test_add ("/zot/gui-header/no-prices", Fixture, NULL, fixture_setup, test_no_prices, fixture_teardown);
  g_test_add ("/zot/gui-header/model-button", Fixture, NULL, fixture_setup, test_model_button,
              fixture_teardown);

  status = g_test_run ();
  g_clear_object (&application);
  return status;
}
