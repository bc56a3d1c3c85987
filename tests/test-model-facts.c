/* test-model-facts.c — the known models: the shipped file reads cleanly
 * and is consistent, lookups find models and their dated snapshots, calls
 * are priced to the hand-computed figure (cache reads and writes too) or
 * not at all, and $ZOT_HOME/models.json adds and overrides models, with a
 * line naming the file, the line and the field for each bad one. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "zot-limits.h"
#include "zot-model-facts.h"
#include "zot-provider-table.h"

typedef struct
{
  char *home;
  char *file;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->home = g_dir_make_tmp ("zot-model-facts-XXXXXX", NULL);
  f->file = g_build_filename (f->home, "models.json", NULL);
  g_setenv ("ZOT_HOME", f->home, TRUE);
  zot_model_facts_reload ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_remove (f->file);
  g_rmdir (f->home);
  g_free (f->file);
  g_free (f->home);
  zot_model_facts_reload ();
}

static void
write_models (Fixture    *f,
              const char *text)
{
  g_assert_true (g_file_set_contents (f->file, text, -1, NULL));
  zot_model_facts_reload ();
}

static guint
n_warnings (void)
{
  return g_strv_length ((char **) zot_model_facts_get_warnings ());
}

static void
test_shipped (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GPtrArray) all = zot_model_facts_list (NULL);

  g_assert_cmpuint (n_warnings (), ==, 0);
  g_assert_cmpuint (all->len, >, 20);

  for (guint i = 0; i < all->len; i++)
    {
      const ZotModelInfo *model = g_ptr_array_index (all, i);

      g_test_message ("model %s/%s", model->provider, model->id);
      g_assert_nonnull (zot_provider_table_lookup (model->provider));
      g_assert_cmpuint (model->max_output, <=, model->context_window);
      g_assert_true (model->priced);
      g_assert_false (model->user);
      g_assert_true (zot_model_info_lookup (model->provider, model->id) == model);
      /* Every paid model charges more for output than input, and less
       * for a cache read; each says when its prices were taken. */
      if (model->input_price > 0.0)
        {
          g_assert_cmpfloat (model->output_price, >, model->input_price);
          g_assert_cmpfloat (model->cache_read_price, <, model->input_price);
          g_assert_nonnull (model->prices_date);
        }
    }
}

static void
test_lookup (Fixture       *f,
             gconstpointer  data)
{
  const ZotModelInfo *model;

  /* A dated snapshot is its model; the longest match wins. */
  model = zot_model_info_lookup ("anthropic", "claude-sonnet-4-5-20250929");
  g_assert_nonnull (model);
  g_assert_cmpstr (model->id, ==, "claude-sonnet-4-5");
  model = zot_model_info_lookup ("openai", "gpt-4o-mini-2024-07-18");
  g_assert_nonnull (model);
  g_assert_cmpstr (model->id, ==, "gpt-4o-mini");
  model = zot_model_info_lookup ("openai", "gpt-4o-2024-08-06");
  g_assert_nonnull (model);
  g_assert_cmpstr (model->id, ==, "gpt-4o");
  g_assert_cmpuint (model->context_window, ==, 128000);

  /* Anything else is unknown, not a neighbour. */
  g_assert_null (zot_model_info_lookup ("openai", "gpt-4o-minix"));
  g_assert_null (zot_model_info_lookup ("openai", "gpt-4o-"));
  g_assert_null (zot_model_info_lookup ("openai", "llama3"));
  g_assert_null (zot_model_info_lookup ("anthropic", "gpt-4o"));
  g_assert_null (zot_model_info_lookup ("nonsense", "gpt-4o"));
  g_assert_null (zot_model_info_lookup ("openai", NULL));
  g_assert_null (zot_model_info_lookup (NULL, NULL));
}

static void
test_cost (Fixture       *f,
           gconstpointer  data)
{
  const ZotModelInfo *sonnet = zot_model_info_lookup ("anthropic", "claude-sonnet-4-5");
  const ZotModelInfo *mini = zot_model_info_lookup ("openai", "gpt-4o-mini");
  ZotTokenCounts anthropic_call = { 1200, 800, 50000, 10000 };
  ZotTokenCounts openai_call = { 3000, 1000, 2000, -1 };
  ZotTokenCounts unknown_counts = { -1, -1, -1, -1 };
  double cost = -1.0;

  /* $3 in, $15 out, $0.30 cache read, $3.75 cache write per million:
   * 0.0036 + 0.012 + 0.015 + 0.0375. */
  g_assert_true (zot_model_info_get_price (sonnet, &anthropic_call, &cost));
  g_assert_cmpfloat_with_epsilon (cost, 0.0681, 1e-12);

  /* $0.15 in, $0.60 out, $0.075 cached: 0.00045 + 0.0006 + 0.00015; an
   * unknown count costs nothing. */
  g_assert_true (zot_model_info_get_price (mini, &openai_call, &cost));
  g_assert_cmpfloat_with_epsilon (cost, 0.0012, 1e-12);

  g_assert_true (zot_model_info_get_price (mini, &unknown_counts, &cost));
  g_assert_cmpfloat (cost, ==, 0.0);

  /* The demo is free and says so; an unknown model's cost is unknown. */
  g_assert_true (zot_model_info_get_price (zot_model_info_lookup ("demo", "demo"), &openai_call, &cost));
  g_assert_cmpfloat (cost, ==, 0.0);
  cost = -1.0;
  g_assert_false (zot_model_info_get_price (NULL, &openai_call, &cost));
  g_assert_cmpfloat (cost, ==, 0.0);
}

/* The user's file adds models, overrides shipped ones field by field,
 * and a model without prices has no price, not a price of 0. */
static void
test_user_file (Fixture       *f,
                gconstpointer  data)
{
  const ZotModelInfo *model;
  g_autoptr(GPtrArray) openai = NULL;
  ZotTokenCounts counts = { 1000000, 1000000, 1000000, 1000000 };
  double cost;

  write_models (f,
                "{\"models\": [\n"
                "  {\"provider\": \"openai\", \"id\": \"llama3.3\", \"context_window\": 131072,\n"
                "   \"max_output\": 8192},\n"
                "  {\"provider\": \"openai\", \"id\": \"my-paid\", \"context_window\": 64000,\n"
                "   \"prices\": {\"input\": 1, \"output\": 2, \"date\": \"2026-01-15\"}},\n"
                "  {\"provider\": \"anthropic\", \"id\": \"claude-sonnet-4-5\",\n"
                "   \"prices\": {\"input\": 2, \"output\": 10, \"cache_read\": 0.2, \"cache_write\": 2.5}}\n"
                "]}\n");
  g_assert_cmpuint (n_warnings (), ==, 0);

  model = zot_model_info_lookup ("openai", "llama3.3");
  g_assert_nonnull (model);
  g_assert_true (model->user);
  g_assert_cmpuint (model->context_window, ==, 131072);
  g_assert_cmpuint (model->max_output, ==, 8192);
  g_assert_false (model->priced);
  g_assert_false (zot_model_info_get_price (model, &counts, &cost));

  /* Cache tokens without their own price cost what input does. */
  model = zot_model_info_lookup ("openai", "my-paid");
  g_assert_true (zot_model_info_get_price (model, &counts, &cost));
  g_assert_cmpfloat_with_epsilon (cost, 1 + 2 + 1 + 1, 1e-9);
  g_assert_cmpstr (model->prices_date, ==, "2026-01-15");

  /* An override keeps the limits it does not give. */
  model = zot_model_info_lookup ("anthropic", "claude-sonnet-4-5");
  g_assert_true (model->user);
  g_assert_cmpuint (model->context_window, ==, 200000);
  g_assert_true (model->reasoning);
  g_assert_null (model->prices_date);
  g_assert_true (zot_model_info_get_price (model, &counts, &cost));
  g_assert_cmpfloat_with_epsilon (cost, 2 + 10 + 0.2 + 2.5, 1e-9);
  /* Its snapshots follow it. */
  g_assert_true (zot_model_info_lookup ("anthropic", "claude-sonnet-4-5-20250929") == model);

  /* Listed after the shipped ones, in file order. */
  openai = zot_model_facts_list ("openai");
  g_assert_cmpstr (((ZotModelInfo *) g_ptr_array_index (openai, openai->len - 2))->id, ==, "llama3.3");
  g_assert_cmpstr (((ZotModelInfo *) g_ptr_array_index (openai, openai->len - 1))->id, ==, "my-paid");
}

static void
assert_warning (guint       index,
                const char *file,
                guint       line,
                const char *field)
{
  const char *warning = zot_model_facts_get_warnings ()[index];
  g_autofree char *where = g_strdup_printf ("%s:%u: ", file, line);
  g_autofree char *named = g_strdup_printf ("\"%s\"", field);

  g_test_message ("%s", warning);
  g_assert_nonnull (warning);
  g_assert_true (g_str_has_prefix (warning, where));
  g_assert_nonnull (strstr (warning, named));
  g_assert_null (strchr (warning, '\n'));
}

/* Each bad field is one line naming the file, its line and the field; the
 * models around it still load. */
static void
test_bad_fields (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *openai = NULL;

  write_models (f,
                "{\"models\": [\n"
                "  {\"provider\": \"openai\", \"id\": \"good-1\", \"context_window\": 1000},\n"
                "  {\"provider\": \"openai\", \"id\": \"bad-1\",\n"
                "   \"context_window\": \"lots\"},\n"
                "  {\"provider\": \"openai\", \"id\": \"bad-2\", \"prices\": {\"input\": -1, \"output\": 2}},\n"
                "  {\"provider\": \"openai\", \"id\": \"bad-3\", \"colour\": \"blue\"},\n"
                "  {\"provider\": \"openai\", \"id\": \"bad-4\",\n"
                "   \"prices\": {\"input\": 1, \"output\": 2, \"date\": \"last year\"}},\n"
                "  {\"id\": \"bad-5\"},\n"
                "  {\"provider\": \"anthropic\", \"id\": \"claude-sonnet-4-5\", \"reasoning\": \"yes\"},\n"
                "  {\"provider\": \"openai\", \"id\": \"good-2\", \"reasoning\": true}\n"
                "]}\n");

  g_assert_cmpuint (n_warnings (), ==, 6);
  assert_warning (0, f->file, 4, "context_window");
  assert_warning (1, f->file, 5, "prices.input");
  assert_warning (2, f->file, 6, "colour");
  assert_warning (3, f->file, 8, "prices.date");
  assert_warning (4, f->file, 9, "provider");
  assert_warning (5, f->file, 10, "reasoning");

  g_assert_nonnull (zot_model_info_lookup ("openai", "good-1"));
  g_assert_nonnull (zot_model_info_lookup ("openai", "good-2"));
  g_assert_true (zot_model_info_lookup ("openai", "good-2")->reasoning);
  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *id = g_strdup_printf ("bad-%u", i);

      g_assert_null (zot_model_info_lookup ("openai", id));
    }
  /* A bad override leaves the shipped model as it was. */
  g_assert_false (zot_model_info_lookup ("anthropic", "claude-sonnet-4-5")->user);
}

/* A file that cannot be read at all is one line; the shipped models are
 * all there. */
static void
test_bad_file (Fixture       *f,
               gconstpointer  data)
{
  const char *broken[] = {
    "{\"models\": [\n  {\"provider\": \"openai\",,}\n]}",
    "[{\"provider\": \"openai\", \"id\": \"x\"}]",
    "{\"models\": 3}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      write_models (f, broken[i]);
      g_assert_cmpuint (n_warnings (), ==, 1);
      g_test_message ("%s", zot_model_facts_get_warnings ()[0]);
      g_assert_true (g_str_has_prefix (zot_model_facts_get_warnings ()[0], f->file));
      g_assert_nonnull (zot_model_info_lookup ("openai", "gpt-4o"));
      g_assert_false (zot_model_info_lookup ("openai", "gpt-4o")->user);
    }

  /* No file is no models of one's own, and nothing to say. */
  g_remove (f->file);
  zot_model_facts_reload ();
  g_assert_cmpuint (n_warnings (), ==, 0);
}

/* At ZOT_MODELS_FILE_MAX_BYTES the file is read; one byte more and it is
 * not. */
static void
test_size_limit (Fixture       *f,
                 gconstpointer  data)
{
  const char *head = "{\"models\": [{\"provider\": \"openai\", \"id\": \"sized\"}]}";
  g_autoptr(GString) text = g_string_new (head);

  g_string_append_printf (text, "%*s", (int) (ZOT_MODELS_FILE_MAX_BYTES - strlen (head)), "");
  g_assert_cmpuint (text->len, ==, ZOT_MODELS_FILE_MAX_BYTES);
  write_models (f, text->str);
  g_assert_cmpuint (n_warnings (), ==, 0);
  g_assert_nonnull (zot_model_info_lookup ("openai", "sized"));

  g_string_append_c (text, ' ');
  write_models (f, text->str);
  g_assert_cmpuint (n_warnings (), ==, 1);
  g_assert_nonnull (strstr (zot_model_facts_get_warnings ()[0], f->file));
  g_assert_null (zot_model_info_lookup ("openai", "sized"));
}

/* ZOT_MODELS_MAX_ENTRIES models are read; the next is named in a warning
 * and left out. */
static void
test_count_limit (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GString) text = g_string_new ("{\"models\": [");
  g_autofree char *last = g_strdup_printf ("m%u", (guint) ZOT_MODELS_MAX_ENTRIES - 1);
  g_autofree char *over = g_strdup_printf ("m%u", (guint) ZOT_MODELS_MAX_ENTRIES);

  for (guint i = 0; i <= ZOT_MODELS_MAX_ENTRIES; i++)
    g_string_append_printf (text, "%s{\"provider\": \"openai\", \"id\": \"m%u\"}", i > 0 ? "," : "", i);
  g_string_append (text, "]}");

  write_models (f, text->str);
  g_assert_cmpuint (n_warnings (), ==, 1);
  g_assert_nonnull (zot_model_info_lookup ("openai", last));
  g_assert_null (zot_model_info_lookup ("openai", over));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/zot/model-facts/shipped", Fixture, NULL, fixture_setup, test_shipped, fixture_teardown);
  g_test_add ("/zot/model-facts/lookup", Fixture, NULL, fixture_setup, test_lookup, fixture_teardown);
  g_test_add ("/zot/model-facts/cost", Fixture, NULL, fixture_setup, test_cost, fixture_teardown);
  g_test_add ("/zot/model-facts/user-file", Fixture, NULL, fixture_setup, test_user_file, fixture_teardown);
  g_test_add ("/zot/model-facts/bad-fields", Fixture, NULL, fixture_setup, test_bad_fields, fixture_teardown);
  g_test_add ("/zot/model-facts/bad-file", Fixture, NULL, fixture_setup, test_bad_file, fixture_teardown);
  g_test_add ("/zot/model-facts/size-limit", Fixture, NULL, fixture_setup, test_size_limit, fixture_teardown);
  g_test_add ("/zot/model-facts/count-limit", Fixture, NULL, fixture_setup, test_count_limit, fixture_teardown);

  return g_test_run ();
}
