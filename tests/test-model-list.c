/* test-model-list.c — a provider's list of models (zot-model-list.c) and
 * `zot models`, against the scripted fake server: each API's endpoint and
 * key header, the day's cache and its edge, a list endpoint that hangs,
 * answers garbage, refuses, is gone, or lists 10,000 models; the user's
 * own models merged in. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "zot-json.h"
#include "zot-model-list.h"
#include "zot-provider-table.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv     env;
  ZotFakeServer *server;
  ZotModelList  *list;
  GError        *error;
  gboolean       done;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  zot_test_env_setup (&fixture->env);
  fixture->server = zot_fake_server_new ();
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  for (guint t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);
  g_clear_pointer (&fixture->list, zot_model_list_free);
  g_clear_error (&fixture->error);
  g_clear_pointer (&fixture->server, zot_fake_server_free);
  zot_test_env_teardown (&fixture->env);
}

static void
fetch_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Fixture *fixture = user_data;

  fixture->list = zot_model_list_fetch_finish (result, &fixture->error);
  fixture->done = TRUE;
}

/* Fetches @provider's list from @base under the fake server's URL. */
static void
fetch_full (Fixture           *fixture,
            const char        *provider,
            const char        *base,
            ZotModelListFlags  flags,
            GCancellable      *cancellable)
{
  g_auto(ZotProviderConfig) config = { 0 };

  g_clear_pointer (&fixture->list, zot_model_list_free);
  g_clear_error (&fixture->error);
  fixture->done = FALSE;

  config.name = g_strdup (provider);
  config.base_url = base != NULL ? g_strconcat (zot_fake_server_get_url (fixture->server), base, NULL) : NULL;
  config.api_key = g_strdup ("sk-test");
  zot_model_list_fetch_async (&config, flags, cancellable, fetch_cb, fixture);
  zot_test_wait_for (&fixture->done, 30000);
}

static void
fetch (Fixture    *fixture,
       const char *provider,
       const char *base)
{
  fetch_full (fixture, provider, base, ZOT_MODEL_LIST_NONE, NULL);
}

static void
push_ids (Fixture *fixture,
          guint    n)
{
  g_autoptr(GString) body = g_string_new ("{\"object\":\"list\",\"data\":[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (body, "%s{\"id\":\"model-%05u\",\"object\":\"model\"}", i > 0 ? "," : "", i);
  g_string_append (body, "]}");
  zot_fake_server_push_json (fixture->server, 200, body->str, NULL);
}

static const char *
id_at (Fixture *fixture,
       guint    index)
{
  g_assert_nonnull (fixture->list);
  g_assert_cmpuint (index, <, fixture->list->ids->len);
  return g_ptr_array_index (fixture->list->ids, index);
}

/* ------------------------------------------------------------------ */

static void
test_openai_compatible (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *cache = zot_model_list_get_cache_file ("groq");

  zot_fake_server_push_json (fixture->server, 200,
                             "{\"data\":[{\"id\":\"zeta\"},{\"id\":\"alpha\"},{\"id\":\"zeta\"},{\"no\":1},7]}",
                             NULL);
  fetch (fixture, "groq", "/openai/v1/");

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, "/openai/v1/models");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"), ==,
                   "Bearer sk-test");
  /* Sorted, each once, entries without an id skipped. */
  g_assert_cmpuint (fixture->list->ids->len, ==, 2);
  g_assert_cmpstr (id_at (fixture, 0), ==, "alpha");
  g_assert_cmpstr (id_at (fixture, 1), ==, "zeta");
  g_assert_false (fixture->list->cached);
  g_assert_null (fixture->list->fetch_error);
  g_assert_true (g_str_has_prefix (cache, fixture->env.home));
  g_assert_true (g_file_test (cache, G_FILE_TEST_IS_REGULAR));

  /* Within the day the saved list answers, and the server is not asked. */
  fetch (fixture, "groq", "/openai/v1/");
  g_assert_no_error (fixture->error);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
  g_assert_true (fixture->list->cached);
  g_assert_null (fixture->list->fetch_error);
  g_assert_cmpuint (fixture->list->ids->len, ==, 2);

  /* A refresh asks again. */
  zot_fake_server_push_json (fixture->server, 200, "{\"data\":[{\"id\":\"beta\"}]}", NULL);
  fetch_full (fixture, "groq", "/openai/v1", ZOT_MODEL_LIST_REFRESH, NULL);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 2);
  g_assert_cmpstr (id_at (fixture, 0), ==, "beta");

  /* Another base URL is another server: its own list. */
  zot_fake_server_push_json (fixture->server, 200, "{\"data\":[{\"id\":\"gamma\"}]}", NULL);
  fetch (fixture, "groq", "/other/v1");
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 3);
  g_assert_cmpstr (id_at (fixture, 0), ==, "gamma");
}

static void
test_anthropic (Fixture       *fixture,
                gconstpointer  data)
{
  zot_fake_server_push_json (fixture->server, 200,
                             "{\"data\":[{\"type\":\"model\",\"id\":\"claude-sonnet-4-5-20250929\"}],"
                             "\"has_more\":false}", NULL);
  fetch (fixture, "anthropic", "");

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, "/v1/models");
  g_assert_cmpstr (zot_fake_server_get_request_query (fixture->server, 0), ==, "limit=1000");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "x-api-key"), ==, "sk-test");
  g_assert_nonnull (zot_fake_server_get_request_header (fixture->server, 0, "anthropic-version"));
  g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"));
  g_assert_cmpstr (id_at (fixture, 0), ==, "claude-sonnet-4-5-20250929");
}

static void
test_gemini (Fixture       *fixture,
             gconstpointer  data)
{
  zot_fake_server_push_json (fixture->server, 200,
                             "{\"models\":[{\"name\":\"models/gemini-2.5-flash\","
                             "\"supportedGenerationMethods\":[\"generateContent\",\"countTokens\"]},"
                             "{\"name\":\"models/text-embedding-004\","
                             "\"supportedGenerationMethods\":[\"embedContent\"]}]}", NULL);
  fetch (fixture, "gemini", "");

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, "/v1beta/models");
  g_assert_cmpstr (zot_fake_server_get_request_query (fixture->server, 0), ==, "pageSize=1000");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "x-goog-api-key"), ==, "sk-test");
  /* Only what can chat, without its "models/". */
  g_assert_cmpuint (fixture->list->ids->len, ==, 1);
  g_assert_cmpstr (id_at (fixture, 0), ==, "gemini-2.5-flash");
}

static void
test_azure_query (Fixture       *fixture,
                  gconstpointer  data)
{
  zot_fake_server_push_json (fixture->server, 200, "{\"data\":[{\"id\":\"gpt-4o\"}]}", NULL);
  fetch (fixture, "azure", "/openai");

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, "/openai/models");
  g_assert_cmpstr (zot_fake_server_get_request_query (fixture->server, 0), ==, "api-version=2024-10-21");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "api-key"), ==, "sk-test");
}

static void
test_hang (Fixture       *fixture,
           gconstpointer  data)
{
  const char *events[] = { NULL };
  gint64 started = g_get_monotonic_time ();

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_MODEL_LIST, 200);
  zot_fake_server_push_hang (fixture->server, events);
  fetch (fixture, "openai", "/v1");

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK);
  g_assert_nonnull (strstr (fixture->error->message, "did not come within"));
  g_assert_nonnull (strstr (fixture->error->message, "/v1/models"));
  g_assert_cmpint (g_get_monotonic_time () - started, <, 10 * G_USEC_PER_SEC);
}

static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  const char *events[] = { NULL };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_auto(ZotProviderConfig) config = { 0 };

  zot_fake_server_push_hang (fixture->server, events);
  config.name = g_strdup ("openai");
  config.base_url = g_strdup (zot_fake_server_get_url (fixture->server));
  config.api_key = g_strdup ("sk-test");
  zot_model_list_fetch_async (&config, ZOT_MODEL_LIST_NONE, cancellable, fetch_cb, fixture);
  /* Once the server has the request, the caller gives up. */
  while (zot_fake_server_get_n_requests (fixture->server) == 0)
    g_main_context_iteration (NULL, TRUE);
  g_cancellable_cancel (cancellable);
  zot_test_wait_for (&fixture->done, 30000);

  g_assert_error (fixture->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (fixture->list);
}

static void
test_garbage (Fixture       *fixture,
              gconstpointer  data)
{
  zot_fake_server_push_json (fixture->server, 200, "<html>\n<body>It works!</body>\n</html>", NULL);
  fetch (fixture, "ollama", "/v1");

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "not a JSON object"));
  g_assert_null (strchr (fixture->error->message, '\n'));

  zot_fake_server_push_json (fixture->server, 200, "{\"object\":\"list\"}", NULL);
  fetch (fixture, "ollama", "/v1");
  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "\"data\""));
}

static void
test_too_large (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GString) body = g_string_new ("{\"data\":[{\"id\":\"");

  while (body->len <= ZOT_MODEL_LIST_MAX_BYTES)
    g_string_append (body, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
  g_string_append (body, "\"}]}");
  zot_fake_server_push_json (fixture->server, 200, body->str, NULL);
  fetch (fixture, "openai", "/v1");

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "larger than"));
}

static void
test_many_models (Fixture       *fixture,
                  gconstpointer  data)
{
  /* At the cap, the whole list. */
  push_ids (fixture, ZOT_MODEL_LIST_MAX_MODELS);
  fetch (fixture, "openai", "/v1");
  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->list->ids->len, ==, ZOT_MODEL_LIST_MAX_MODELS);
  g_assert_false (fixture->list->truncated);

  /* Past it, the first ones and a flag that says so, kept in the cache. */
  push_ids (fixture, 10000);
  fetch_full (fixture, "openai", "/v1", ZOT_MODEL_LIST_REFRESH, NULL);
  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->list->ids->len, ==, ZOT_MODEL_LIST_MAX_MODELS);
  g_assert_true (fixture->list->truncated);
  g_assert_cmpstr (id_at (fixture, 0), ==, "model-00000");

  fetch (fixture, "openai", "/v1");
  g_assert_true (fixture->list->cached);
  g_assert_true (fixture->list->truncated);
  g_assert_cmpuint (fixture->list->ids->len, ==, ZOT_MODEL_LIST_MAX_MODELS);
}

/* Rewrites the cache's fetched_at to @age seconds ago. */
static void
age_cache (const char *provider,
           gint64      age)
{
  g_autofree char *path = zot_model_list_get_cache_file (provider);
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JsonObject *object;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  json_parser_load_from_data (parser, contents, -1, &error);
  g_assert_no_error (error);
  object = json_node_get_object (json_parser_get_root (parser));
  json_object_set_int_member (object, "fetched_at", g_get_real_time () / G_USEC_PER_SEC - age);
  text = json_to_string (json_parser_get_root (parser), FALSE);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static void
test_cache_edge (Fixture       *fixture,
                 gconstpointer  data)
{
  push_ids (fixture, 3);
  fetch (fixture, "openai", "/v1");
  g_assert_no_error (fixture->error);

  /* A minute short of a day: still fresh. */
  age_cache ("openai", ZOT_MODEL_LIST_CACHE_SECONDS - 60);
  fetch (fixture, "openai", "/v1");
  g_assert_true (fixture->list->cached);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);

  /* A day and a second: asked again. */
  age_cache ("openai", ZOT_MODEL_LIST_CACHE_SECONDS + 1);
  push_ids (fixture, 4);
  fetch (fixture, "openai", "/v1");
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 2);
  g_assert_false (fixture->list->cached);
  g_assert_cmpuint (fixture->list->ids->len, ==, 4);
}

static void
test_refused (Fixture       *fixture,
              gconstpointer  data)
{
  g_autofree char *age = NULL;

  /* No cache: the refusal, with where the key comes from. */
  zot_fake_server_push_json (fixture->server, 401, "{\"error\":{\"message\":\"Invalid API Key\"}}", NULL);
  fetch (fixture, "groq", "/v1");
  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (fixture->error->message, "Invalid API Key"));
  g_assert_nonnull (strstr (fixture->error->message, "$GROQ_API_KEY"));

  /* With an old cache: the cache, saying why and how old. */
  push_ids (fixture, 2);
  fetch (fixture, "groq", "/v1");
  g_assert_no_error (fixture->error);
  age_cache ("groq", 3 * 60 * 60 + 30 + ZOT_MODEL_LIST_CACHE_SECONDS);
  zot_fake_server_push_json (fixture->server, 403, "{\"error\":{\"message\":\"Forbidden\"}}", NULL);
  fetch (fixture, "groq", "/v1");
  g_assert_no_error (fixture->error);
  g_assert_true (fixture->list->cached);
  g_assert_cmpuint (fixture->list->ids->len, ==, 2);
  g_assert_nonnull (fixture->list->fetch_error);
  g_assert_nonnull (strstr (fixture->list->fetch_error, "HTTP 403"));
  age = zot_model_list_describe_age (fixture->list);
  g_assert_cmpstr (age, ==, "27 hours");
}

static void
test_offline (Fixture       *fixture,
              gconstpointer  data)
{
  g_autofree char *url = g_strdup (zot_fake_server_get_url (fixture->server));
  g_auto(ZotProviderConfig) config = { 0 };

  push_ids (fixture, 2);
  fetch (fixture, "ollama", "/v1");
  g_assert_no_error (fixture->error);

  /* The server goes away; its port refuses. */
  g_clear_pointer (&fixture->server, zot_fake_server_free);
  g_clear_pointer (&fixture->list, zot_model_list_free);
  fixture->done = FALSE;
  config.name = g_strdup ("ollama");
  config.base_url = g_strconcat (url, "/v1", NULL);
  zot_model_list_fetch_async (&config, ZOT_MODEL_LIST_REFRESH, NULL, fetch_cb, fixture);
  zot_test_wait_for (&fixture->done, 30000);

  g_assert_no_error (fixture->error);
  g_assert_true (fixture->list->cached);
  g_assert_cmpuint (fixture->list->ids->len, ==, 2);
  g_assert_nonnull (strstr (fixture->list->fetch_error, "could not fetch"));
  fixture->server = zot_fake_server_new ();
}

static void
test_merge (Fixture       *fixture,
            gconstpointer  data)
{
  const char *mine[] = { "my-finetune", "model-00001", "a-first", "my-finetune", NULL };
  g_autoptr(JsonObject) json = NULL;

  push_ids (fixture, 2);
  fetch (fixture, "openai", "/v1");
  zot_model_list_merge (fixture->list, mine);

  g_assert_cmpuint (fixture->list->ids->len, ==, 4);
  g_assert_cmpstr (id_at (fixture, 0), ==, "a-first");
  g_assert_cmpstr (id_at (fixture, 3), ==, "my-finetune");
  g_assert_true (zot_model_list_is_user_model (fixture->list, "my-finetune"));
  /* One the server has is the server's. */
  g_assert_false (zot_model_list_is_user_model (fixture->list, "model-00001"));

  json = zot_model_list_to_json (fixture->list);
  g_assert_true (json_node_get_boolean (zot_test_json_node_at (json, "models/0/user")));
  g_assert_false (json_node_get_boolean (zot_test_json_node_at (json, "models/1/user")));
}

/* The models the user's models.json names for the provider are listed
 * with the server's, marked as the user's. */
static void
test_user_models_file (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *file = g_build_filename (fixture->env.home, "models.json", NULL);

  g_assert_true (g_file_set_contents (file,
                                      "{\"models\": [\n"
                                      "  {\"provider\": \"openai\", \"id\": \"my-local-tune\", \"context_window\": 8192},\n"
                                      "  {\"provider\": \"gemini\", \"id\": \"not-this-one\", \"context_window\": 8192}\n"
                                      "]}\n", -1, NULL));
  zot_model_facts_reload ();
  push_ids (fixture, 2);
  fetch (fixture, "openai", "/v1");
  zot_model_facts_reload ();

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->list->ids->len, ==, 3);
  g_assert_true (zot_model_list_is_user_model (fixture->list, "my-local-tune"));
  for (guint i = 0; i < fixture->list->ids->len; i++)
    g_assert_cmpstr (id_at (fixture, i), !=, "not-this-one");
}

static void
test_demo (Fixture       *fixture,
           gconstpointer  data)
{
  fetch (fixture, "demo", NULL);

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (id_at (fixture, 0), ==, "demo");
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 0);
}

/* ------------------------------------------------------------------ */
/* zot models                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  char     *out;
  char     *err;
  int       status;
  gboolean  done;
} Run;

static void
communicate_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &run->out, &run->err, &error);
  g_assert_no_error (error);
  run->status = g_subprocess_get_exit_status (G_SUBPROCESS (object));
  run->done = TRUE;
}

/* Runs `zot models ARGS… --base-url SERVER/v1` with the fake server
 * answering on this loop. */
static void
run_zot_models (Fixture  *fixture,
                Run      *run,
                ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  const char *arg;
  va_list args;

  g_ptr_array_add (argv, g_strdup (g_getenv ("ZOT_BIN")));
  g_ptr_array_add (argv, g_strdup ("models"));
  va_start (args, run);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, g_strdup ("--base-url"));
  g_ptr_array_add (argv, g_strconcat (zot_fake_server_get_url (fixture->server), "/v1", NULL));
  g_ptr_array_add (argv, NULL);

  g_subprocess_launcher_setenv (launcher, "ZOT_HOME", fixture->env.home, TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, communicate_cb, run);
  zot_test_wait_for (&run->done, 30000);
}

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
  run->done = FALSE;
}

static void
test_cli (Fixture       *fixture,
          gconstpointer  data)
{
  Run run = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *object;

  zot_fake_server_push_json (fixture->server, 200, "{\"data\":[{\"id\":\"llama3.2\"},{\"id\":\"qwen3\"}]}", NULL);
  run_zot_models (fixture, &run, "--provider", "ollama", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, "llama3.2\nqwen3\n");
  g_assert_cmpstr (run.err, ==, "");
  g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"));
  run_clear (&run);

  /* Refused, the saved list, and a line on stderr saying so. */
  zot_fake_server_push_json (fixture->server, 401, "{\"error\":\"no\"}", NULL);
  run_zot_models (fixture, &run, "--provider", "ollama", "--refresh", "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  json_parser_load_from_data (parser, run.out, -1, &error);
  g_assert_no_error (error);
  object = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_get_boolean_member (object, "cached"));
  g_assert_cmpstr (zot_test_json_string_at (object, "provider"), ==, "ollama");
  g_assert_cmpstr (zot_test_json_string_at (object, "models/1/id"), ==, "qwen3");
  g_assert_nonnull (strstr (run.err, "showing the list saved less than a minute ago"));
  g_assert_nonnull (strstr (run.err, "HTTP 401"));
  g_assert_cmpuint (zot_test_count (run.err, "\n"), ==, 1);
  run_clear (&run);

  /* Garbage and no cache for it: one line, exit 1. */
  zot_fake_server_push_json (fixture->server, 200, "[1,2,3]", NULL);
  run_zot_models (fixture, &run, "--provider", "vllm", NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_cmpuint (zot_test_count (run.err, "\n"), ==, 1);
  g_assert_nonnull (strstr (run.err, "not a JSON object"));
  run_clear (&run);

  run_zot_models (fixture, &run, "--provider", "nonsense", NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "unknown provider \"nonsense\""));
  run_clear (&run);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/model-list/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("openai-compatible", test_openai_compatible);
  ADD ("anthropic", test_anthropic);
  ADD ("gemini", test_gemini);
  ADD ("azure-query", test_azure_query);
  ADD ("hang", test_hang);
  ADD ("cancel", test_cancel);
  ADD ("garbage", test_garbage);
  ADD ("too-large", test_too_large);
  ADD ("many-models", test_many_models);
  ADD ("cache-edge", test_cache_edge);
  ADD ("refused", test_refused);
  ADD ("offline", test_offline);
  ADD ("merge", test_merge);
  ADD ("user-models-file", test_user_models_file);
  ADD ("demo", test_demo);
  ADD ("cli", test_cli);
#undef ADD

  return g_test_run ();
}
