/* test-provider-openai.c — the OpenAI provider and the SSE/HTTP plumbing
 * against the scripted fake server. Deadlines are shortened through the
 * override, never slept on. */
#include "config.h"

#include <string.h>

#include "zot-limits-private.h"
#include "zot-message.h"
#include "zot-openai-provider.h"
#include "zot-sse.h"
#include "zot-test-util.h"

#define SAFETY_MS 10000

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

typedef struct
{
  Fixture *fixture;
  guint    n;
} RequestsWait;

/* Stops early once the call is over, so a call that ends before sending
 * @n requests fails the assertion below instead of the deadline. */
static gboolean
requests_arrived (gpointer user_data)
{
  RequestsWait *wait = user_data;

  return zot_fake_server_get_n_requests (wait->fixture->server) >= wait->n ||
         wait->fixture->done;
}

static void
wait_for_requests (Fixture *fixture,
                   guint    n)
{
  RequestsWait wait = { fixture, n };

  zot_test_wait_until (requests_arrived, &wait, SAFETY_MS);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), >=, n);
}

/* ------------------------------------------------------------------ */

static void
test_text (Fixture       *fixture,
           gconstpointer  data)
{
  const char *text = "Hello, streaming world! Ünïcödé too.";
  g_autofree char *joined = NULL;
  g_autofree char *reply_text = NULL;

  zot_test_provider_push_events (fixture, zot_fake_server_openai_text (text, 4), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (fixture->text_deltas->len, >, 5);
  joined = zot_test_provider_joined_text (fixture);
  g_assert_cmpstr (joined, ==, text);
  g_assert_cmpstr (g_ptr_array_index (fixture->text_deltas, 0), ==, "Hell");

  g_assert_cmpstr (zot_message_get_role (fixture->reply->message), ==, "assistant");
  reply_text = zot_message_get_text (fixture->reply->message);
  g_assert_cmpstr (reply_text, ==, text);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "end_turn");
  g_assert_cmpint (fixture->reply->input_tokens, ==, ZOT_FAKE_SERVER_INPUT_TOKENS);
  g_assert_cmpint (fixture->reply->output_tokens, ==, ZOT_FAKE_SERVER_OUTPUT_TOKENS);
  g_assert_cmpuint (fixture->tool_deltas->len, ==, 0);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

static void
test_tool_call_split (Fixture       *fixture,
                      gconstpointer  data)
{
  const char *args = "{\"path\": \"/etc/hosts\", \"limit\": 5}";
  g_autofree char *joined = NULL;
  JsonObject *block;
  JsonObject *input;

  zot_test_provider_push_events (fixture,
                                 zot_fake_server_openai_tool_calls ("read", args, NULL, NULL, 3),
                                 FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  /* Split mid-argument: many fragments, one call. */
  g_assert_cmpuint (fixture->tool_deltas->len, >, 5);
  joined = zot_test_provider_joined_tool_arguments (fixture, 0);
  g_assert_cmpstr (joined, ==, args);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (fixture->tool_deltas, 0), "0|call_1|read|"));

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fixture->reply->message,
                                                                         "content")), ==, 1);
  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "tool_use");
  g_assert_cmpstr (json_object_get_string_member (block, "id"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "read");
  g_assert_false (json_object_has_member (block, "input_raw"));
  input = json_object_get_object_member (block, "input");
  g_assert_cmpstr (json_object_get_string_member (input, "path"), ==, "/etc/hosts");
  g_assert_cmpint (json_object_get_int_member (input, "limit"), ==, 5);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "tool_use");
}

static void
test_two_tool_calls (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  JsonObject *block;

  zot_test_provider_push_events (fixture,
                                 zot_fake_server_openai_tool_calls ("read", "{\"path\":\"a.txt\"}",
                                                                    "bash",
                                                                    "{\"command\":\"ls -l\"}", 5),
                                 FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  first = zot_test_provider_joined_tool_arguments (fixture, 0);
  second = zot_test_provider_joined_tool_arguments (fixture, 1);
  g_assert_cmpstr (first, ==, "{\"path\":\"a.txt\"}");
  g_assert_cmpstr (second, ==, "{\"command\":\"ls -l\"}");

  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (block, "input"),
                                                  "path"), ==, "a.txt");
  block = zot_test_provider_reply_block (fixture, 1);
  g_assert_cmpstr (json_object_get_string_member (block, "id"), ==, "call_2");
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "bash");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (block, "input"),
                                                  "command"), ==, "ls -l");
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "tool_use");
}

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

static void
test_default_model (Fixture       *fixture,
                    gconstpointer  data)
{
  JsonObject *body;

  g_assert_cmpstr (zot_provider_get_name (fixture->provider), ==, "openai");
  g_assert_cmpstr (zot_provider_get_model (fixture->provider), ==, "gpt-4o-mini");

  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("ok", 10), FALSE);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "gpt-4o-mini");
  g_assert_false (json_object_has_member (body, "max_tokens"));
  g_assert_false (json_object_has_member (body, "tools"));
}

static void
test_auth (Fixture       *fixture,
           gconstpointer  data)
{
  zot_fake_server_push_json (fixture->server, 401,
                             "{\"error\":{\"message\":\"Incorrect API key provided\"}}", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (fixture->error->message, "--api-key"));
  g_assert_nonnull (strstr (fixture->error->message, "Incorrect API key provided"));
  g_assert_nonnull (strstr (fixture->error->message, "401"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
  g_assert_cmpuint (fixture->text_deltas->len, ==, 0);
}

static void
test_auth_env (Fixture       *fixture,
               gconstpointer  data)
{
  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, zot_fake_server_get_url (fixture->server),
                                              "sk-env", "$OPENAI_API_KEY");

  zot_fake_server_push_json (fixture->server, 403,
                             "{\"error\":{\"message\":\"forbidden here\"}}", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (fixture->error->message, "$OPENAI_API_KEY"));
  g_assert_nonnull (strstr (fixture->error->message, "forbidden here"));
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "Authorization"), ==,
                   "Bearer sk-env");
}

static void
test_retry_429 (Fixture       *fixture,
                gconstpointer  data)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 10);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 50);

  zot_fake_server_push_json (fixture->server, 429, "{\"error\":{\"message\":\"slow down\"}}", "0");
  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("after the wait", 5), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (fixture, 0), "text"), ==,
                   "after the wait");
}

static void
test_retry_after_capped (Fixture       *fixture,
                         gconstpointer  data)
{
  gint64 start;

  /* An hour's retry-after and a plain 503 both wait at most RETRY_MAX. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 10);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 50);

  zot_fake_server_push_json (fixture->server, 429, "{}", "3600");
  zot_fake_server_push_json (fixture->server, 503, "upstream busy", NULL);
  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("third time", 50), FALSE);

  start = g_get_monotonic_time ();
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 3);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

static void
test_server_error (Fixture       *fixture,
                   gconstpointer  data)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);

  for (guint i = 0; i < 3; i++)
    zot_fake_server_push_json (fixture->server, 500, "{\"error\":{\"message\":\"boom\"}}", NULL);
  zot_test_provider_push_events (fixture, zot_fake_server_openai_text ("never read", 50), FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->error->message, "boom"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 3);
}

static void
test_rate_limited (Fixture       *fixture,
                   gconstpointer  data)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);

  for (guint i = 0; i < 3; i++)
    zot_fake_server_push_json (fixture->server, 429, "{\"error\":{\"message\":\"quota\"}}", "0");
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_RATE_LIMITED);
  g_assert_nonnull (strstr (fixture->error->message, "quota"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 3);
}

static void
test_http_error (Fixture       *fixture,
                 gconstpointer  data)
{
  zot_fake_server_push_json (fixture->server, 400,
                             "{\"error\":{\"message\":\"Invalid value for 'model'\"}}", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_HTTP);
  g_assert_nonnull (strstr (fixture->error->message, "400"));
  g_assert_nonnull (strstr (fixture->error->message, "Invalid value for 'model'"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

static void
test_not_a_stream (Fixture       *fixture,
                   gconstpointer  data)
{
  /* A server that ignored "stream": 200 with a whole JSON body. */
  zot_fake_server_push_json (fixture->server, 200,
                             "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
                             "\"choices\":[]}",
                             NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "instead of an event stream"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

static void
test_network_error (Fixture       *fixture,
                    gconstpointer  data)
{
  ZotFakeServer *gone = zot_fake_server_new ();
  g_autofree char *url = g_strdup (zot_fake_server_get_url (gone));

  /* A port that was just open and is closed now. */
  zot_fake_server_free (gone);
  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, url, "sk-test", "--api-key");
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK);
  g_assert_nonnull (strstr (fixture->error->message, url));
}

static void
test_stream_cut (Fixture       *fixture,
                 gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_openai_text ("a long answer that breaks off", 4);

  /* Keep the first half, then the connection drops. */
  zot_test_truncate_events (events, g_strv_length (events) / 2);
  zot_fake_server_push_sse (fixture->server, (const char * const *) events, TRUE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_cmpuint (fixture->text_deltas->len, >, 0);
}

static void
test_stream_ends_early (Fixture       *fixture,
                        gconstpointer  data)
{
  const char *events[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half\"},\"finish_reason\":null}]}",
    NULL
  };

  /* A clean end of the body, but no finish_reason and no [DONE]. */
  zot_fake_server_push_sse (fixture->server, events, FALSE);
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
  g_autofree char *deep = zot_test_nested_json ("data: {\"choices\":", 80000, "}");
  const char *events[] = { deep, NULL };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "nested deeper"));
}

/* A server that never stops talking: the turn ends at the response's
 * total deadline, with a clear error, even though it is never silent. */
static void
test_endless_response (Fixture       *fixture,
                       gconstpointer  data)
{
  const char *events[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"start\"},\"finish_reason\":null}]}",
    NULL
  };

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_TOTAL, 300);
  zot_fake_server_push_endless (fixture->server, events, ": still thinking");
  zot_test_provider_run (fixture);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_TOTAL, 0);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "took longer than"));
}

/* A response past ZOT_PROVIDER_RESPONSE_MAX_BYTES ends the turn instead
 * of being held whole in memory. */
static void
test_oversized_response (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *filler = g_strnfill (64 * 1024, 'x');
  g_autofree char *delta = g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"},"
                                            "\"finish_reason\":null}]}", filler);

  zot_fake_server_push_endless (fixture->server, NULL, delta);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "passed the 16 MiB limit"));
}

static void
test_malformed (Fixture       *fixture,
                gconstpointer  data)
{
  const char *events[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"fine\"},\"finish_reason\":null}]}",
    "data: {\"choices\": [ {\"index\": 0, \"delta\": ",
    "data: [DONE]",
    NULL
  };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "malformed JSON"));
}

static void
test_error_in_stream (Fixture       *fixture,
                      gconstpointer  data)
{
  const char *events[] = {
    "data: {\"error\":{\"message\":\"The server had an error while processing your request\"}}",
    NULL
  };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "while processing your request"));
}

static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_openai_text ("never finishes", 3);

  zot_test_truncate_events (events, 3);
  zot_fake_server_push_hang (fixture->server, (const char * const *) events);

  fixture->cancel_on_delta = TRUE;
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (fixture->text_deltas->len, ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - fixture->cancelled_at, <, 2 * G_USEC_PER_SEC);
}

static void
test_cancel_retry_wait (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("hi");
  gint64 start;

  /* A long wait between tries must still end at once on cancel. */
  zot_fake_server_push_json (fixture->server, 429, "{}", "30");
  zot_test_provider_start (fixture, request);
  wait_for_requests (fixture, 1);
  /* Let the 429 arrive and the wait begin: over loopback everything but
   * the 30 s timer is ready at once. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (fixture->done);

  start = g_get_monotonic_time ();
  g_cancellable_cancel (fixture->cancellable);
  zot_test_wait_for (&fixture->done, SAFETY_MS);

  g_assert_error (fixture->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

static void
test_idle_timeout (Fixture       *fixture,
                   gconstpointer  data)
{
  g_auto(GStrv) events = zot_fake_server_openai_text ("stalls", 2);

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_IDLE, 200);

  zot_test_truncate_events (events, 2);
  zot_fake_server_push_hang (fixture->server, (const char * const *) events);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "stalled"));
  g_assert_nonnull (strstr (fixture->error->message, "200 ms"));
}

static void
test_invalid_arguments (Fixture       *fixture,
                        gconstpointer  data)
{
  const char *args = "{\"command\": \"ls";
  JsonObject *block;

  zot_test_provider_push_events (fixture,
                                 zot_fake_server_openai_tool_calls ("bash", args, NULL, NULL, 4),
                                 FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "bash");
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (block, "input")), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "input_raw"), ==, args);
}

static void
test_no_key (void)
{
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) provider = NULL;

  config.name = g_strdup ("openai");
  provider = zot_openai_provider_new (&config, &error);
  g_assert_null (provider);
  g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "OPENAI_API_KEY"));
  g_assert_nonnull (strstr (error->message, "--api-key"));

  g_clear_error (&error);
  config.base_url = g_strdup ("ftp://example.com");
  config.api_key = g_strdup ("sk");
  provider = zot_openai_provider_new (&config, &error);
  g_assert_null (provider);
  g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
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

static void
test_sequential_calls (Fixture       *fixture,
                       gconstpointer  data)
{
  /* One provider, several calls over a reused connection. */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *text = g_strdup_printf ("answer %u", i);

      zot_test_provider_push_events (fixture, zot_fake_server_openai_text (text, 3), FALSE);
      g_clear_pointer (&fixture->reply, zot_provider_reply_free);
      zot_test_provider_run (fixture);
      g_assert_no_error (fixture->error);
      g_assert_cmpstr (json_object_get_string_member (zot_test_provider_reply_block (fixture, 0),
                                                      "text"), ==, text);
    }
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 3);
}

/* ------------------------------------------------------------------ */
/* The SSE reader on its own                                           */
/* ------------------------------------------------------------------ */

typedef struct
{
  GPtrArray *events;
  gboolean   done;
  gboolean   ok;
  GError    *error;
  guint      stop_after;
} SseRun;

static gboolean
collect_event (const char  *event,
               const char  *data,
               gpointer     user_data,
               GError     **error)
{
  SseRun *run_data = user_data;

  g_ptr_array_add (run_data->events, g_strdup_printf ("%s=%s", event, data));
  return run_data->stop_after == 0 || run_data->events->len < run_data->stop_after;
}

static void
sse_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  SseRun *run_data = user_data;

  run_data->ok = zot_sse_read_finish (result, &run_data->error);
  run_data->done = TRUE;
}

static void
read_sse (SseRun     *run_data,
          const char *text,
          gsize       length)
{
  g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_data (g_memdup2 (text, length),
                                                                         length, g_free);

  run_data->events = g_ptr_array_new_with_free_func (g_free);
  zot_sse_read_async (stream, collect_event, run_data, NULL, sse_read_cb, run_data);
  zot_test_wait_for (&run_data->done, SAFETY_MS);
}

static void
sse_run_clear (SseRun *run_data)
{
  g_clear_pointer (&run_data->events, g_ptr_array_unref);
  g_clear_error (&run_data->error);
}

static void
test_sse_parse (void)
{
  const char text[] =
    ": comment\r\n"
    "event: first\r\n"
    "data: one\r\n"
    "data:two\r\n"
    "id: 7\r\n"
    "\r\n"
    "data: {\"a\": 1}\n"
    "\n"
    "event: lonely\n"
    "\n"
    "data:  spaced\r"
    "\r"
    "event: last\n"
    "data: no blank line";
  SseRun run_data = { 0 };

  read_sse (&run_data, text, strlen (text));

  g_assert_no_error (run_data.error);
  g_assert_true (run_data.ok);
  g_assert_cmpuint (run_data.events->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 0), ==, "first=one\ntwo");
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 1), ==, "message={\"a\": 1}");
  /* An event without data is not dispatched; one leading space goes. */
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 2), ==, "message= spaced");
  g_assert_cmpstr (g_ptr_array_index (run_data.events, 3), ==, "last=no blank line");
  sse_run_clear (&run_data);
}

static void
test_sse_stop (void)
{
  const char text[] = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
  SseRun run_data = { 0 };

  run_data.stop_after = 2;
  read_sse (&run_data, text, strlen (text));

  g_assert_no_error (run_data.error);
  g_assert_true (run_data.ok);
  g_assert_cmpuint (run_data.events->len, ==, 2);
  sse_run_clear (&run_data);
}

static void
test_sse_too_large (void)
{
  gsize length = ZOT_SSE_MAX_EVENT_BYTES + 64;
  g_autofree char *text = g_malloc (length);
  SseRun run_data = { 0 };

  memcpy (text, "data: ", 6);
  memset (text + 6, 'x', length - 6);
  read_sse (&run_data, text, length);

  g_assert_error (run_data.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (run_data.error->message, "larger than"));
  g_assert_cmpuint (run_data.events->len, ==, 0);
  sse_run_clear (&run_data);
}

static void
test_sse_invalid_utf8 (void)
{
  const char text[] = "data: \xff\xfe\n\n";
  SseRun run_data = { 0 };

  read_sse (&run_data, text, strlen (text));

  g_assert_error (run_data.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  sse_run_clear (&run_data);
}

static void
test_http_helpers (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_utc (2024, 1, 1, 12, 0, 0);
  const char *json_text = "{\"error\":{\"message\":\"nope\\nmore\"}}";
  const char *plain_text = "\n  Bad gateway  \nsecond line";
  g_autoptr(GBytes) json = g_bytes_new_static (json_text, strlen (json_text));
  g_autoptr(GBytes) plain = g_bytes_new_static (plain_text, strlen (plain_text));
  g_autofree char *summary = NULL;

  g_assert_cmpint (zot_http_parse_retry_after ("5", now), ==, 5000);
  g_assert_cmpint (zot_http_parse_retry_after (" 0 ", now), ==, 0);
  g_assert_cmpint (zot_http_parse_retry_after ("Mon, 01 Jan 2024 12:00:30 GMT", now), ==, 30000);
  g_assert_cmpint (zot_http_parse_retry_after ("Mon, 01 Jan 2024 11:00:00 GMT", now), ==, 0);
  g_assert_cmpint (zot_http_parse_retry_after ("soon", now), ==, -1);
  g_assert_cmpint (zot_http_parse_retry_after (NULL, now), ==, -1);

  summary = zot_http_error_summary (400, json);
  g_assert_cmpstr (summary, ==, "nope");
  g_free (summary);
  summary = zot_http_error_summary (502, plain);
  g_assert_cmpstr (summary, ==, "Bad gateway");
  g_free (summary);
  summary = zot_http_error_summary (503, NULL);
  g_assert_cmpstr (summary, ==, "Service Unavailable");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/provider/openai/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("text", test_text);
  ADD ("tool-call-split", test_tool_call_split);
  ADD ("two-tool-calls", test_two_tool_calls);
  ADD ("usage-missing", test_usage_missing);
  ADD ("request-body", test_request_body);
  ADD ("default-model", test_default_model);
  ADD ("auth", test_auth);
  ADD ("auth-env", test_auth_env);
  ADD ("retry-429", test_retry_429);
  ADD ("retry-after-capped", test_retry_after_capped);
  ADD ("server-error", test_server_error);
  ADD ("rate-limited", test_rate_limited);
  ADD ("http-error", test_http_error);
  ADD ("not-a-stream", test_not_a_stream);
  ADD ("network-error", test_network_error);
  ADD ("stream-cut", test_stream_cut);
  ADD ("stream-ends-early", test_stream_ends_early);
  ADD ("malformed", test_malformed);
  ADD ("deep-nesting", test_deep_nesting);
  ADD ("endless-response", test_endless_response);
  ADD ("oversized-response", test_oversized_response);
  ADD ("error-in-stream", test_error_in_stream);
  ADD ("cancel", test_cancel);
  ADD ("cancel-retry-wait", test_cancel_retry_wait);
  ADD ("idle-timeout", test_idle_timeout);
  ADD ("invalid-arguments", test_invalid_arguments);
  ADD ("local-server", test_local_server);
  ADD ("local-server-wants-key", test_local_server_wants_key);
  ADD ("sequential-calls", test_sequential_calls);
#undef ADD

  g_test_add_func ("/zot/provider/openai/no-key", test_no_key);
  g_test_add_func ("/zot/provider/sse/parse", test_sse_parse);
  g_test_add_func ("/zot/provider/sse/stop", test_sse_stop);
  g_test_add_func ("/zot/provider/sse/too-large", test_sse_too_large);
  g_test_add_func ("/zot/provider/sse/invalid-utf8", test_sse_invalid_utf8);
  g_test_add_func ("/zot/provider/sse/http-helpers", test_http_helpers);

  return g_test_run ();
}
