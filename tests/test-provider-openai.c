/* test-provider-openai.c — what only the OpenAI-compatible provider does,
 * against the scripted fake server: its request shape, streams without
 * usage or finish reason, local servers without a key. What every HTTP
 * provider does is in test-providers.c, the SSE reader in test-sse.c. */
#include "config.h"

#include <string.h>

#include "zot-message.h"
#include "zot-openai-provider.h"
#include "zot-test-util.h"

typedef ZotTestProvider Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  zot_test_provider_setup (fixture, "openai", ZOT_TYPE_OPENAI_PROVIDER, zot_openai_provider_new,
                           "sk-test");
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  zot_test_provider_teardown (fixture);
}

/* ------------------------------------------------------------------ */

static void
test_usage_missing (Fixture       *fixture,
                    gconstpointer  data)
{
  /* A local server that sends no usage chunk: tokens stay unknown. */
  const char *events[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}",
    ": a comment line the reader skips",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}",
    "data: [DONE]",
    NULL
  };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpint (fixture->reply->input_tokens, ==, -1);
  g_assert_cmpint (fixture->reply->output_tokens, ==, -1);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "length");
}

static void
test_request_body (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_provider_request_new ();
  g_autoptr(JsonObject) arguments = NULL;
  JsonObject *body;

  request->model = g_strdup ("gpt-test");
  request->system_prompt = g_strdup ("You are terse.");
  request->max_tokens = 100;
  request->messages = json_array_new ();
  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},"
    "{\"type\":\"image\",\"mime_type\":\"image/png\",\"data\":\"iVBORw0=\"}]}"));
  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"reading\"},"
    "{\"type\":\"tool_use\",\"id\":\"call_9\",\"name\":\"read\",\"input\":{\"path\":\"x\"}}]}"));
  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"call_9\","
    "\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"file body\"},"
    "{\"type\":\"image\",\"mime_type\":\"image/jpeg\",\"data\":\"/9j=\"}]}]}"));
  request->tools = json_array_new ();
  json_array_add_object_element (request->tools, zot_test_json_object_from (
    "{\"name\":\"read\",\"description\":\"Read a file\","
    "\"input_schema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}}"));

  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("ok", 10), FALSE);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);

  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, "/chat/completions");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"), ==,
                   "Bearer sk-test");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "Content-Type"), ==,
                   "application/json");

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_nonnull (body);
  g_assert_cmpstr (zot_test_json_string_at (body, "model"), ==, "gpt-test");
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_true (json_node_get_boolean (zot_test_json_node_at (body,
                                                               "stream_options/include_usage")));
  g_assert_cmpint (zot_test_json_int_at (body, "max_tokens"), ==, 100);
  g_assert_cmpuint (zot_test_json_length_at (body, "messages"), ==, 4);

  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/role"), ==, "system");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/content"), ==, "You are terse.");

  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/role"), ==, "user");
  g_assert_cmpuint (zot_test_json_length_at (body, "messages/1/content"), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/0/type"), ==, "text");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/0/text"), ==, "look");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/1/type"), ==, "image_url");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/1/image_url/url"), ==,
                   "data:image/png;base64,iVBORw0=");

  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/role"), ==, "assistant");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/content"), ==, "reading");
  g_assert_cmpuint (zot_test_json_length_at (body, "messages/2/tool_calls"), ==, 1);
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/tool_calls/0/id"), ==, "call_9");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/tool_calls/0/type"), ==, "function");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/tool_calls/0/function/name"), ==,
                   "read");
  /* Arguments travel as a JSON string. */
  arguments = zot_test_json_object_from (
    zot_test_json_string_at (body, "messages/2/tool_calls/0/function/arguments"));
  g_assert_cmpstr (zot_test_json_string_at (arguments, "path"), ==, "x");

  g_assert_cmpstr (zot_test_json_string_at (body, "messages/3/role"), ==, "tool");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/3/tool_call_id"), ==, "call_9");
  g_assert_true (g_str_has_prefix (zot_test_json_string_at (body, "messages/3/content"),
                                   "file body\n"));
  g_assert_nonnull (strstr (zot_test_json_string_at (body, "messages/3/content"), "image/jpeg"));

  g_assert_cmpuint (zot_test_json_length_at (body, "tools"), ==, 1);
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/type"), ==, "function");
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/function/name"), ==, "read");
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/function/description"), ==,
                   "Read a file");
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/function/parameters/type"), ==,
                   "object");
  g_assert_cmpstr (zot_test_json_string_at (body,
                                            "tools/0/function/parameters/properties/path/type"),
                   ==, "string");
}

/* A clean end of the body, but no finish_reason and no [DONE]. */
static void
test_no_finish_reason (Fixture       *fixture,
                       gconstpointer  data)
{
  const char *events[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half\"},\"finish_reason\":null}]}",
    NULL
  };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "ended early"));
}

static void
test_local_server (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *base = g_strconcat (zot_fake_server_get_url (fixture->server), "/v1/", NULL);

  /* A base URL with /v1 and a trailing slash, and no key: a local server. */
  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, base, NULL, NULL);

  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("local", 3), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==,
                   "/v1/chat/completions");
  g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"));
}

static void
test_local_server_wants_key (Fixture       *fixture,
                             gconstpointer  data)
{
  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, zot_fake_server_get_url (fixture->server),
                                              NULL, NULL);

  zot_fake_server_push_json (fixture->server, 401, "{\"error\":\"missing key\"}", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (fixture->error->message, "$OPENAI_API_KEY"));
  g_assert_nonnull (strstr (fixture->error->message, "missing key"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/provider/openai/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("usage-missing", test_usage_missing);
  ADD ("request-body", test_request_body);
  ADD ("no-finish-reason", test_no_finish_reason);
  ADD ("local-server", test_local_server);
  ADD ("local-server-wants-key", test_local_server_wants_key);
#undef ADD

  return g_test_run ();
}
