/* test-provider-anthropic.c — the Anthropic provider against the scripted
 * fake server. Deadlines are shortened through the override, never slept
 * on. */
#include "config.h"

#include <string.h>

#include "zot-anthropic-provider.h"
#include "zot-limits-private.h"
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
test_text (Fixture       *fixture,
           gconstpointer  data)
{
  const char *text = "Hello from Claude — streamed in pieces.";
  g_autofree char *joined = NULL;
  g_autofree char *reply_text = NULL;

  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_text (text, 5), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->text_deltas->len, >, 5);
  g_assert_cmpstr (g_ptr_array_index (fixture->text_deltas, 0), ==, "Hello");
  joined = zot_test_provider_joined_text (fixture);
  g_assert_cmpstr (joined, ==, text);

  reply_text = zot_message_get_text (fixture->reply->message);
  g_assert_cmpstr (reply_text, ==, text);
  g_assert_cmpstr (zot_message_get_role (fixture->reply->message), ==, "assistant");
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "end_turn");
  g_assert_cmpint (fixture->reply->input_tokens, ==, ZOT_FAKE_SERVER_INPUT_TOKENS);
  g_assert_cmpint (fixture->reply->output_tokens, ==, ZOT_FAKE_SERVER_OUTPUT_TOKENS);
  g_assert_cmpuint (fixture->tool_deltas->len, ==, 0);
}

static void
test_tool_use_split (Fixture       *fixture,
                     gconstpointer  data)
{
  const char *args = "{\"command\": \"grep -n main src/*.c\", \"timeout\": 30}";
  g_autofree char *joined = NULL;
  JsonObject *block;
  JsonObject *input;

  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_tool_use ("bash", args, 4),
                                 FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->tool_deltas->len, >, 5);
  g_assert_cmpstr (g_ptr_array_index (fixture->tool_deltas, 0), ==, "0|toolu_1|bash|");
  joined = zot_test_provider_joined_tool_arguments (fixture, 0);
  g_assert_cmpstr (joined, ==, args);

  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "tool_use");
  g_assert_cmpstr (json_object_get_string_member (block, "id"), ==, "toolu_1");
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "bash");
  g_assert_false (json_object_has_member (block, "input_raw"));
  input = json_object_get_object_member (block, "input");
  g_assert_cmpstr (json_object_get_string_member (input, "command"), ==, "grep -n main src/*.c");
  g_assert_cmpint (json_object_get_int_member (input, "timeout"), ==, 30);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "tool_use");
}

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
test_max_tokens_stop (Fixture       *fixture,
                      gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_anthropic_text ("cut short", 4);
  guint n = g_strv_length (events);
  char *patched = NULL;

  /* Turn the script's end_turn into max_tokens. */
  for (guint i = 0; i < n; i++)
    if (strstr (events[i], "end_turn") != NULL)
      {
        g_auto(GStrv) halves = g_strsplit (events[i], "end_turn", 2);

        patched = g_strjoin ("max_tokens", halves[0], halves[1], NULL);
        g_free (events[i]);
        events[i] = patched;
      }
  g_assert_nonnull (patched);
  zot_fake_server_push_sse (fixture->server, (const char * const *) events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "length");
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

/* A key from the keyring comes after the environment's; one typed in
 * Preferences before it; neither is put into the environment. */
static void
test_key_order (Fixture       *fixture,
                gconstpointer  data)
{
  g_auto(ZotProviderConfig) from_keyring = { .name = g_strdup ("anthropic") };
  g_auto(ZotProviderConfig) from_env = { .name = g_strdup ("anthropic") };
  g_auto(ZotProviderConfig) chosen = { .name = g_strdup ("anthropic") };
  const char *source = NULL;

  g_unsetenv ("ANTHROPIC_API_KEY");
  zot_provider_store_key ("anthropic", "sk-keyring", FALSE);
  zot_provider_resolve_config (&from_keyring);
  g_assert_cmpstr (from_keyring.api_key, ==, "sk-keyring");
  g_assert_cmpstr (from_keyring.api_key_source, ==, "the keyring");
  g_assert_null (g_getenv ("ANTHROPIC_API_KEY"));

  g_setenv ("ANTHROPIC_API_KEY", "sk-env", TRUE);
  zot_provider_resolve_config (&from_env);
  g_assert_cmpstr (from_env.api_key, ==, "sk-env");
  g_assert_cmpstr (from_env.api_key_source, ==, "$ANTHROPIC_API_KEY");

  zot_provider_store_key ("anthropic", "sk-typed", TRUE);
  zot_provider_resolve_config (&chosen);
  g_assert_cmpstr (chosen.api_key, ==, "sk-typed");
  g_assert_cmpstr (zot_provider_get_key ("anthropic", &source), ==, "sk-typed");
  g_assert_cmpstr (source, ==, "Preferences");
  g_assert_cmpstr (g_getenv ("ANTHROPIC_API_KEY"), ==, "sk-env");

  zot_provider_store_key ("anthropic", NULL, TRUE);
  zot_provider_store_key ("anthropic", NULL, FALSE);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_assert_null (zot_provider_get_key ("anthropic", NULL));
}

static void
test_auth (Fixture       *fixture,
           gconstpointer  data)
{
  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, zot_fake_server_get_url (fixture->server),
                                              "sk-ant-env", "$ANTHROPIC_API_KEY");

  zot_fake_server_push_json (fixture->server, 401,
                             "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
                             "\"message\":\"invalid x-api-key\"}}", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (fixture->error->message, "$ANTHROPIC_API_KEY"));
  g_assert_nonnull (strstr (fixture->error->message, "invalid x-api-key"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

static void
test_retry_429 (Fixture       *fixture,
                gconstpointer  data)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 10);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 50);

  zot_fake_server_push_json (fixture->server, 429,
                             "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                             "\"message\":\"slow down\"}}", "1");
  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_text ("second try", 4), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (fixture, 0), "text"), ==,
                   "second try");
}

static void
test_server_error (Fixture       *fixture,
                   gconstpointer  data)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);

  for (guint i = 0; i < 3; i++)
    zot_fake_server_push_json (fixture->server, 529,
                               "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                               "\"message\":\"Overloaded\"}}", NULL);
  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_text ("never read", 50), FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->error->message, "Overloaded"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 3);
}

static void
test_stream_cut (Fixture       *fixture,
                 gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_anthropic_text ("an answer that breaks off", 3);

  zot_test_truncate_events (events, g_strv_length (events) / 2);
  zot_fake_server_push_sse (fixture->server, (const char * const *) events, TRUE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_cmpuint (fixture->text_deltas->len, >, 0);
}

static void
test_no_message_stop (Fixture       *fixture,
                      gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_anthropic_text ("almost", 3);

  /* Everything but message_stop, and a clean end of the body. */
  zot_test_truncate_events (events, g_strv_length (events) - 1);
  zot_fake_server_push_sse (fixture->server, (const char * const *) events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "ended early"));
}

/* A model server nesting a stream event 80,000 levels deep: a clean
 * stream error, not a stack overflow in the parser. */
static void
test_deep_nesting (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *deep = zot_test_nested_json ("event: message_start\ndata: {\"type\":\"message_start\",\"message\":", 80000, "}");
  const char *events[] = { deep, NULL };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "nested deeper"));
}

static void
test_malformed (Fixture       *fixture,
                gconstpointer  data)
{
  const char *events[] = {
    "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}",
    NULL
  };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "malformed JSON"));
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

  zot_fake_server_push_sse (fixture->server, overloaded, FALSE);
  zot_test_provider_run (fixture);
  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->error->message, "Overloaded"));
  g_clear_error (&fixture->error);

  zot_fake_server_push_sse (fixture->server, invalid, FALSE);
  zot_test_provider_run (fixture);
  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "bad things"));
  /* A stream error is not retried. */
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 2);
}

static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_anthropic_text ("never finishes", 3);

  /* message_start, ping, content_block_start, the first delta. */
  zot_test_truncate_events (events, 4);
  zot_fake_server_push_hang (fixture->server, (const char * const *) events);

  fixture->cancel_on_delta = TRUE;
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (fixture->text_deltas->len, ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - fixture->cancelled_at, <, 2 * G_USEC_PER_SEC);
}

static void
test_idle_timeout (Fixture       *fixture,
                   gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_anthropic_text ("stalls", 2);

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_IDLE, 200);

  zot_test_truncate_events (events, 4);
  zot_fake_server_push_hang (fixture->server, (const char * const *) events);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "stalled"));
  g_assert_cmpuint (fixture->text_deltas->len, ==, 1);
}

static void
test_invalid_arguments (Fixture       *fixture,
                        gconstpointer  data)
{
  const char *args = "{\"path\": \"unterminated";
  JsonObject *block;

  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_tool_use ("read", args, 5),
                                 FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "read");
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (block, "input")), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "input_raw"), ==, args);
}

static void
test_base_url_v1 (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *base = g_strconcat (zot_fake_server_get_url (fixture->server), "/v1/", NULL);

  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, base, "sk-ant-test", "--api-key");

  zot_test_provider_push_events (fixture, zot_fake_server_anthropic_text ("ok", 3), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, "/v1/messages");
}

static void
test_no_key (void)
{
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) provider = NULL;

  /* Even with a base URL: the API always wants a key. */
  config.name = g_strdup ("anthropic");
  config.base_url = g_strdup ("http://127.0.0.1:9");
  provider = zot_anthropic_provider_new (&config, &error);
  g_assert_null (provider);
  g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "ANTHROPIC_API_KEY"));
  g_assert_nonnull (strstr (error->message, "--api-key"));
}

static void
test_default_model (void)
{
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) provider = NULL;

  config.name = g_strdup ("anthropic");
  config.api_key = g_strdup ("sk-ant");
  provider = zot_anthropic_provider_new (&config, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zot_provider_get_model (provider), ==, "claude-sonnet-4-5");
  zot_provider_set_model (provider, "claude-other");
  g_assert_cmpstr (zot_provider_get_model (provider), ==, "claude-other");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/provider/anthropic/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("text", test_text);
  ADD ("tool-use-split", test_tool_use_split);
  ADD ("text-and-two-tools", test_text_and_two_tools);
  ADD ("max-tokens-stop", test_max_tokens_stop);
  ADD ("request-body", test_request_body);
  ADD ("request-options", test_request_options);
  ADD ("auth", test_auth);
  ADD ("retry-429", test_retry_429);
  ADD ("server-error", test_server_error);
  ADD ("stream-cut", test_stream_cut);
  ADD ("no-message-stop", test_no_message_stop);
  ADD ("malformed", test_malformed);
  ADD ("deep-nesting", test_deep_nesting);
  ADD ("key-order", test_key_order);
  ADD ("error-event", test_error_event);
  ADD ("cancel", test_cancel);
  ADD ("idle-timeout", test_idle_timeout);
  ADD ("invalid-arguments", test_invalid_arguments);
  ADD ("base-url-v1", test_base_url_v1);
#undef ADD

  g_test_add_func ("/zot/provider/anthropic/no-key", test_no_key);
  g_test_add_func ("/zot/provider/anthropic/default-model", test_default_model);

  return g_test_run ();
}
