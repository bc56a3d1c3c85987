/* test-provider-anthropic.c — what only the Anthropic provider does,
 * against the scripted fake server: its request shape (alternating roles,
 * tool results as user blocks, a max_tokens always), content blocks that
 * mix text and calls, and the error events of its stream. What every HTTP
 * provider does is in test-providers.c. */
#include "config.h"

#include <string.h>

#include "zot-anthropic-provider.h"
#include "zot-message.h"
#include "zot-test-util.h"

typedef ZotTestProvider Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  zot_test_provider_setup (fixture, "anthropic", ZOT_TYPE_ANTHROPIC_PROVIDER,
                           zot_anthropic_provider_new, "sk-ant-test");
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  zot_test_provider_teardown (fixture);
}

/* ------------------------------------------------------------------ */

static void
test_text_and_two_tools (Fixture       *fixture,
                         gconstpointer  data)
{
  const char *events[] = {
    "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,"
      "\"output_tokens\":1}}}",
    "event: content_block_start\n"
      "data: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
    "event: content_block_delta\n"
      "data: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me look.\"}}",
    "event: content_block_stop\n"
      "data: {\"type\":\"content_block_stop\",\"index\":0}",
    "event: content_block_start\n"
      "data: {\"type\":\"content_block_start\",\"index\":1,"
      "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"read\","
      "\"input\":{}}}",
    "event: content_block_delta\n"
      "data: {\"type\":\"content_block_delta\",\"index\":1,"
      "\"delta\":{\"type\":\"input_json_delta\","
      "\"partial_json\":\"{\\\"path\\\": \\\"a\"}}",
    "event: content_block_delta\n"
      "data: {\"type\":\"content_block_delta\",\"index\":1,"
      "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\".txt\\\"}\"}}",
    "event: content_block_stop\n"
      "data: {\"type\":\"content_block_stop\",\"index\":1}",
    "event: content_block_start\n"
      "data: {\"type\":\"content_block_start\",\"index\":2,"
      "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_b\",\"name\":\"ls\","
      "\"input\":{}}}",
    "event: content_block_stop\n"
      "data: {\"type\":\"content_block_stop\",\"index\":2}",
    "event: message_delta\n"
      "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},"
      "\"usage\":{\"output_tokens\":40}}",
    "event: message_stop\n"
      "data: {\"type\":\"message_stop\"}",
    NULL
  };
  g_autofree char *first = NULL;
  JsonObject *block;

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  first = zot_test_provider_joined_tool_arguments (fixture, 0);
  g_assert_cmpstr (first, ==, "{\"path\": \"a.txt\"}");
  /* The second call's index counts calls, not content blocks. */
  g_assert_cmpstr (g_ptr_array_index (fixture->tool_deltas, fixture->tool_deltas->len - 1), ==,
                   "1|toolu_b|ls|");

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fixture->reply->message,
                                                                         "content")), ==, 3);
  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "text"), ==, "Let me look.");
  block = zot_test_provider_reply_block (fixture, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (block, "input"),
                                                  "path"), ==, "a.txt");
  block = zot_test_provider_reply_block (fixture, 2);
  g_assert_cmpstr (json_object_get_string_member (block, "id"), ==, "toolu_b");
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (block, "input")), ==, 0);
  g_assert_false (json_object_has_member (block, "input_raw"));
  g_assert_cmpint (fixture->reply->input_tokens, ==, 5);
  g_assert_cmpint (fixture->reply->output_tokens, ==, 40);
}

static void
test_request_body (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_provider_request_new ();
  JsonObject *body;

  request->system_prompt = g_strdup ("Be brief.");
  request->messages = json_array_new ();
  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what is in x?\"},"
    "{\"type\":\"image\",\"mime_type\":\"image/png\",\"data\":\"iVBORw0=\"}]}"));
  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"reading\"},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"read\",\"input\":{\"path\":\"x\"}}]}"));
  json_array_add_object_element (request->messages, zot_test_json_object_from (
    "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_9\","
    "\"is_error\":true,\"content\":[{\"type\":\"text\",\"text\":\"no such file\"}]}]}"));
  json_array_add_object_element (request->messages, zot_message_new_user_text ("try y"));
  request->tools = json_array_new ();
  json_array_add_object_element (request->tools, zot_test_json_object_from (
    "{\"name\":\"read\",\"description\":\"Read a file\","
    "\"input_schema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}}"));

  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_text ("ok", 10), FALSE);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);

  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, "/v1/messages");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "x-api-key"), ==,
                   "sk-ant-test");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "anthropic-version"), ==,
                   "2023-06-01");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "content-type"), ==,
                   "application/json");
  g_assert_null (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"));

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_nonnull (body);
  g_assert_cmpstr (zot_test_json_string_at (body, "model"), ==, "claude-sonnet-4-5");
  g_assert_cmpint (zot_test_json_int_at (body, "max_tokens"), ==, 8192);
  g_assert_cmpstr (zot_test_json_string_at (body, "system"), ==, "Be brief.");
  g_assert_true (json_object_get_boolean_member (body, "stream"));

  /* user, assistant, then the tool result and the next user text merged
   * into one user message. */
  g_assert_cmpuint (zot_test_json_length_at (body, "messages"), ==, 3);

  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/role"), ==, "user");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/content/0/text"), ==,
                   "what is in x?");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/content/1/type"), ==, "image");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/content/1/source/type"), ==,
                   "base64");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/content/1/source/media_type"), ==,
                   "image/png");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/0/content/1/source/data"), ==,
                   "iVBORw0=");

  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/role"), ==, "assistant");
  g_assert_cmpuint (zot_test_json_length_at (body, "messages/1/content"), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/0/text"), ==, "reading");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/1/type"), ==, "tool_use");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/1/id"), ==, "toolu_9");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/1/name"), ==, "read");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/1/content/1/input/path"), ==, "x");

  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/role"), ==, "user");
  g_assert_cmpuint (zot_test_json_length_at (body, "messages/2/content"), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/content/0/type"), ==, "tool_result");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/content/0/tool_use_id"), ==,
                   "toolu_9");
  g_assert_true (json_node_get_boolean (zot_test_json_node_at (body,
                                                               "messages/2/content/0/is_error")));
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/content/0/content/0/text"), ==,
                   "no such file");
  g_assert_cmpstr (zot_test_json_string_at (body, "messages/2/content/1/text"), ==, "try y");

  g_assert_cmpuint (zot_test_json_length_at (body, "tools"), ==, 1);
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/name"), ==, "read");
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/description"), ==, "Read a file");
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/input_schema/type"), ==, "object");
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/input_schema/properties/path/type"), ==,
                   "string");
}

static void
test_request_options (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("hi");
  JsonObject *body;

  request->model = g_strdup ("claude-test");
  request->max_tokens = 256;

  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_text ("ok", 10), FALSE);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "claude-test");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 256);
  g_assert_false (json_object_has_member (body, "system"));
  g_assert_false (json_object_has_member (body, "tools"));
  g_assert_cmpstr (zot_provider_get_name (fixture->provider), ==, "anthropic");
}

static void
test_error_event (Fixture       *fixture,
                  gconstpointer  data)
{
  const char *overloaded[] = {
    "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}",
    "event: error\n"
      "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
      "\"message\":\"Overloaded\"}}",
    NULL
  };
  const char *invalid[] = {
    "event: error\n"
      "data: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
      "\"message\":\"bad things\"}}",
    NULL
  };

  /* Retried when the retries allow (test-stream-error-retries); here
   * what is left once none do. */
  zot_provider_set_max_retries (fixture->provider, 0);
  zot_fake_server_push_sse (fixture->server, overloaded, FALSE);
  zot_test_provider_run (fixture);
  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->error->message, "Overloaded"));
  g_clear_error (&fixture->error);

  zot_provider_set_max_retries (fixture->provider, ZOT_PROVIDER_MAX_RETRIES);
  zot_fake_server_push_sse (fixture->server, invalid, FALSE);
  zot_test_provider_run (fixture);
  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "bad things"));
  /* A stream error of another kind is not retried. */
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 2);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/provider/anthropic/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("text-and-two-tools", test_text_and_two_tools);
  ADD ("request-body", test_request_body);
  ADD ("request-options", test_request_options);
  ADD ("error-event", test_error_event);
#undef ADD

  return g_test_run ();
}
