/* test-provider-presets.c — the OpenAI-compatible presets of the provider
 * table against the scripted fake server: each one's request shape (the
 * URL's path and query, the key's header, extra headers, the body's
 * quirks), as the services' documentation asks for it. */
#include "config.h"

#include <string.h>

#include "zot-json.h"
#include "zot-message.h"
#include "zot-openai-provider.h"
#include "zot-provider-table.h"
#include "zot-test-util.h"

typedef ZotTestProvider Fixture;

/* What one preset's request must look like, written out by hand rather
 * than read back from the table. */
typedef struct
{
  const char *name;
  const char *base_path;      /* appended to the fake server's URL */
  const char *path;           /* the request's path */
  const char *query;          /* its query, NULL for none */
  const char *key_header;     /* where the key goes */
  const char *key_value;
  const char *extra_header;   /* one more header and its value, or NULL */
  const char *extra_value;
  const char *max_tokens;     /* the field the output limit goes in */
  gboolean    stream_options;
  gboolean    reasoning_effort;
  gboolean    tool_result_name;
  gboolean    short_tool_ids;
} Expected;

static const Expected expected[] = {
  { "openai", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", TRUE, TRUE, FALSE, FALSE },
  { "openrouter", "/api/v1", "/api/v1/chat/completions", NULL, "Authorization", "Bearer sk-test",
    "X-Title", "Zot Desktop", "max_tokens", TRUE, TRUE, FALSE, FALSE },
  { "groq", "/openai/v1", "/openai/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_completion_tokens", TRUE, FALSE, FALSE, FALSE },
  { "mistral", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", FALSE, FALSE, TRUE, TRUE },
  { "deepseek", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", TRUE, FALSE, FALSE, FALSE },
  { "xai", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_completion_tokens", TRUE, FALSE, FALSE, FALSE },
  { "together", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", TRUE, FALSE, FALSE, FALSE },
  { "fireworks", "/inference/v1", "/inference/v1/chat/completions", NULL, "Authorization", "Bearer sk-test",
    NULL, NULL, "max_tokens", TRUE, FALSE, FALSE, FALSE },
  { "cerebras", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_completion_tokens", FALSE, FALSE, FALSE, FALSE },
  { "azure", "/openai/deployments/gpt4o", "/openai/deployments/gpt4o/chat/completions",
    "api-version=2024-10-21", "api-key", "sk-test", NULL, NULL,
    "max_completion_tokens", TRUE, TRUE, FALSE, FALSE },
  { "ollama", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", TRUE, FALSE, FALSE, FALSE },
  { "lmstudio", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", TRUE, FALSE, FALSE, FALSE },
  { "llamacpp", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", TRUE, FALSE, FALSE, FALSE },
  { "vllm", "/v1", "/v1/chat/completions", NULL, "Authorization", "Bearer sk-test", NULL, NULL,
    "max_tokens", TRUE, TRUE, FALSE, FALSE },
};

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  const Expected *want = data;
  g_autofree char *base = NULL;

  zot_test_provider_setup (fixture, want->name, ZOT_TYPE_OPENAI_PROVIDER, zot_openai_provider_new,
                           "sk-test");
  base = g_strconcat (zot_fake_server_get_url (fixture->server), want->base_path, NULL);
  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, base, "sk-test", "--api-key");
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  zot_test_provider_teardown (fixture);
}

/* A user message, a tool call with a long id and its result: what every
 * quirk of the body shows on. */
static ZotProviderRequest *
new_request (void)
{
  ZotProviderRequest *request = zot_test_provider_request_new ("list the files");

  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
    "\"id\":\"toolu_01ABCDEFGHIJKLMNOP\",\"name\":\"ls\",\"input\":{\"path\":\".\"}}]}"));
  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\","
    "\"tool_use_id\":\"toolu_01ABCDEFGHIJKLMNOP\",\"content\":\"a.txt\"}]}"));
  /* A model the table does not know may reason. */
  request->model = g_strdup ("test-model");
  request->max_tokens = 100;
  request->reasoning = ZOT_REASONING_HIGH;
  return request;
}

static JsonObject *
find_message (JsonObject *body,
              const char *role)
{
  JsonArray *messages = zot_json_get_array (body, "messages");

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = zot_json_array_get_object (messages, i);

      if (g_strcmp0 (zot_json_get_string (message, "role"), role) == 0)
        return message;
    }
  return NULL;
}

static void
test_request_shape (Fixture       *fixture,
                    gconstpointer  data)
{
  const Expected *want = data;
  g_autoptr(ZotProviderRequest) request = new_request ();
  JsonObject *body;
  JsonObject *assistant;
  JsonObject *tool;
  JsonObject *call;
  const char *call_id;

  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("ok", 2), FALSE);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_provider_get_name (fixture->provider), ==, want->name);

  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, want->path);
  g_assert_cmpstr (zot_fake_server_get_request_query (fixture->server, 0), ==, want->query);
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, want->key_header), ==,
                   want->key_value);
  if (!g_str_equal (want->key_header, "Authorization"))
    g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"));
  if (want->extra_header != NULL)
    g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, want->extra_header), ==,
                     want->extra_value);
  else
    g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "X-Title"));

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_nonnull (body);
  g_assert_cmpint (zot_json_get_int_or (body, want->max_tokens, 0), ==, 100);
  g_assert_false (json_object_has_member (body, g_str_equal (want->max_tokens, "max_tokens")
                                                  ? "max_completion_tokens" : "max_tokens"));
  g_assert_cmpint (json_object_has_member (body, "stream_options"), ==, want->stream_options);
  g_assert_cmpint (json_object_has_member (body, "reasoning_effort"), ==, want->reasoning_effort);

  assistant = find_message (body, "assistant");
  tool = find_message (body, "tool");
  g_assert_nonnull (assistant);
  g_assert_nonnull (tool);
  call = zot_json_array_get_object (zot_json_get_array (assistant, "tool_calls"), 0);
  call_id = zot_json_get_string (call, "id");
  /* A call and its result keep matching ids, whatever the server wants. */
  g_assert_cmpstr (zot_json_get_string (tool, "tool_call_id"), ==, call_id);
  if (want->short_tool_ids)
    {
      g_assert_cmpuint (strlen (call_id), ==, 9);
      for (guint i = 0; i < 9; i++)
        g_assert_true (g_ascii_isalnum (call_id[i]));
    }
  else
    g_assert_cmpstr (call_id, ==, "toolu_01ABCDEFGHIJKLMNOP");
  if (want->tool_result_name)
    g_assert_cmpstr (zot_json_get_string (tool, "name"), ==, "ls");
  else
    g_assert_false (json_object_has_member (tool, "name"));
}

/* A base URL with its own api-version keeps it. */
static void
test_azure_own_version (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *base = g_strconcat (zot_fake_server_get_url (fixture->server),
                                       "/openai/deployments/d?api-version=2025-04-01-preview", NULL);

  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, base, "sk-test", "--api-key");
  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("ok", 2), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==,
                   "/openai/deployments/d/chat/completions");
  g_assert_cmpstr (zot_fake_server_get_request_query (fixture->server, 0), ==,
                   "api-version=2025-04-01-preview");
}

/* A local server runs without a key, and then no key header goes out. */
static void
test_local_without_key (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *base = g_strconcat (zot_fake_server_get_url (fixture->server), "/v1", NULL);

  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, base, NULL, NULL);
  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("ok", 2), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"));
  g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "api-key"));
}

/* Every row made by the OpenAI provider is one of those above. */
static void
test_all_covered (void)
{
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      gboolean found = FALSE;

      if (info->new_func != zot_openai_provider_new)
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (expected); j++)
        found |= g_str_equal (expected[j].name, info->name);
      g_test_message ("preset %s", info->name);
      g_assert_true (found);
    }
}

static const Expected *
lookup_expected (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    if (g_str_equal (expected[i].name, name))
      return &expected[i];
  g_assert_not_reached ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *path = g_strdup_printf ("/zot/provider/presets/%s/request-shape", expected[i].name);

      g_test_add (path, Fixture, &expected[i], fixture_setup, test_request_shape, fixture_teardown);
    }
  g_test_add ("/zot/provider/presets/azure/own-version", Fixture, lookup_expected ("azure"),
              fixture_setup, test_azure_own_version, fixture_teardown);
  g_test_add ("/zot/provider/presets/ollama/without-key", Fixture, lookup_expected ("ollama"),
              fixture_setup, test_local_without_key, fixture_teardown);
  g_test_add_func ("/zot/provider/presets/all-covered", test_all_covered);

  return g_test_run ();
}
