/* test-gui-model-picker.c — the header's model picker against the fake
 * server: its providers' lists grouped under their names, the current
 * model checked, the search, a failing server said in its group, and a
 * choice reported with its provider. */
#include "config.h"

#include <adwaita.h>

#include "zot-gui-test-util.h"
#include "zot-model-picker.h"
#include "zot-provider-table.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv      env;
  ZotFakeServer  *server;
  GtkWindow      *window;
  ZotModelPicker *picker;
  char           *chosen;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    if (zot_provider_table_get_nth (i)->key_variable != NULL)
      g_unsetenv (zot_provider_table_get_nth (i)->key_variable);
  f->server = zot_fake_server_new ();
  f->window = GTK_WINDOW (gtk_window_new ());
  f->picker = ZOT_MODEL_PICKER (zot_model_picker_new ());
  gtk_window_set_child (f->window, GTK_WIDGET (f->picker));
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (f->window);
  g_clear_pointer (&f->server, zot_fake_server_free);
  g_free (f->chosen);
  zot_test_env_teardown (&f->env);
}

static gboolean
fetched (gpointer data)
{
  return _zot_model_picker_get_pending (data) == 0;
}

/* The shown rows as "provider:model", a note as "provider:-", in order. */
static char *
describe_rows (Fixture *f)
{
  GtkWidget *list = _zot_model_picker_get_list (f->picker);
  g_autoptr(GString) text = g_string_new (NULL);

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *model;

      if (!GTK_IS_LIST_BOX_ROW (child) || !gtk_widget_get_child_visible (child))
        continue;
      model = g_object_get_data (G_OBJECT (child), "model");
      g_string_append_printf (text, "%s%s:%s", text->len > 0 ? " " : "",
                              (const char *) g_object_get_data (G_OBJECT (child), "provider"),
                              model != NULL ? model : "-");
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The row of @model, and whether its check shows. */
static GtkListBoxRow *
find_row (Fixture    *f,
          const char *model,
          gboolean   *checked)
{
  GtkWidget *list = _zot_model_picker_get_list (f->picker);

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_BOX_ROW (child) && g_strcmp0 (g_object_get_data (G_OBJECT (child), "model"), model) == 0)
      {
        GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (child));

        *checked = gtk_widget_get_visible (gtk_widget_get_last_child (box));
        return GTK_LIST_BOX_ROW (child);
      }
  g_assert_not_reached ();
}

typedef struct
{
  Fixture    *f;
  const char *expected;
} RowsWait;

static gboolean
rows_are (gpointer data)
{
  RowsWait *wait = data;
  g_autofree char *rows = describe_rows (wait->f);

  return g_str_equal (rows, wait->expected);
}

/* The search filters once it settles (GtkSearchEntry waits a moment). */
static void
search_for (Fixture    *f,
            const char *text,
            const char *expected)
{
  RowsWait wait = { f, expected };
  g_autofree char *rows = NULL;

  gtk_editable_set_text (GTK_EDITABLE (_zot_model_picker_get_search (f->picker)), text);
  zot_test_wait_until (rows_are, &wait, 10000);
  rows = describe_rows (f);
  g_assert_cmpstr (rows, ==, expected);
}

static void
open_picker (Fixture *f)
{
  zot_model_picker_refresh (f->picker);
  zot_test_wait_until (fetched, f->picker, 10000);
}

static void
chosen_cb (ZotModelPicker *picker,
           const char     *provider,
           const char     *model,
           gpointer        user_data)
{
  Fixture *f = user_data;

  g_free (f->chosen);
  f->chosen = g_strdup_printf ("%s:%s", provider, model);
}

static void
test_groups (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *base = g_strconcat (zot_fake_server_get_url (f->server), "/v1", NULL);
  g_autofree char *rows = NULL;
  gboolean checked = FALSE;

  zot_fake_server_push_json (f->server, 200, "{\"data\":[{\"id\":\"qwen3\"},{\"id\":\"llama3.2\"}]}", NULL);
  zot_model_picker_set_current (f->picker, "ollama", "qwen3", base);
  open_picker (f);

  /* The provider in use (no key: a local one), then the demo; no other
   * provider has a key here. */
  rows = describe_rows (f);
  g_assert_cmpstr (rows, ==, "ollama:llama3.2 ollama:qwen3 demo:demo");
  g_assert_cmpstr (zot_fake_server_get_request_path (f->server, 0), ==, "/v1/models");
  find_row (f, "qwen3", &checked);
  g_assert_true (checked);
  find_row (f, "llama3.2", &checked);
  g_assert_false (checked);

  /* The search keeps what names it: a model, or a provider. */
  search_for (f, "QWEN", "ollama:qwen3");
  search_for (f, "llama", "ollama:llama3.2 ollama:qwen3");
  search_for (f, "demo", "demo:demo");

  /* Enter takes the first shown; a click, its row. */
  g_signal_connect (f->picker, "model-chosen", G_CALLBACK (chosen_cb), f);
  g_signal_emit_by_name (_zot_model_picker_get_search (f->picker), "activate");
  g_assert_cmpstr (f->chosen, ==, "demo:demo");
  search_for (f, "", "ollama:llama3.2 ollama:qwen3 demo:demo");
  g_signal_emit_by_name (_zot_model_picker_get_list (f->picker), "row-activated",
                         find_row (f, "llama3.2", &checked));
  g_assert_cmpstr (f->chosen, ==, "ollama:llama3.2");
}

static void
test_failing_server (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *base = g_strconcat (zot_fake_server_get_url (f->server), "/v1", NULL);
  g_autofree char *rows = NULL;
  gboolean checked = FALSE;

  zot_fake_server_push_json (f->server, 200, "not json", NULL);
  zot_model_picker_set_current (f->picker, "vllm", "my-served-model", base);
  open_picker (f);

  /* The failure is a note in the group, and the model in use stays listed. */
  rows = describe_rows (f);
  g_assert_cmpstr (rows, ==, "vllm:- vllm:my-served-model demo:demo");
  find_row (f, "my-served-model", &checked);
  g_assert_true (checked);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  g_test_add ("/zot/gui-model-picker/groups", Fixture, NULL, fixture_setup, test_groups, fixture_teardown);
  g_test_add ("/zot/gui-model-picker/failing-server", Fixture, NULL, fixture_setup, test_failing_server,
              fixture_teardown);

  return g_test_run ();
}
