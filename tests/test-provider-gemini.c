/* test-provider-gemini.c — what only the Gemini provider does, against
 * the scripted fake server: the request shape and its schema conversion,
 * function calls that come whole, thought signatures (kept, sent back,
 * saved with the session, the placeholder on calls the model did not
 * make), finish reasons and blocks, usage, the thinking setting. What
 * every HTTP provider does is in test-providers.c. */
#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-gemini-provider.h"
#include "zot-message.h"
#include "zot-test-util.h"

typedef ZotTestProvider Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  zot_test_provider_setup (fixture, "gemini", ZOT_TYPE_GEMINI_PROVIDER, zot_gemini_provider_new,
                           "gm-test");
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  zot_test_provider_teardown (fixture);
}

static void
add_message (ZotProviderRequest *request,
             const char         *json)
{
  if (request->messages == NULL)
    request->messages = json_array_new ();
  json_array_add_object_element (request->messages, zot_test_json_object_from (json));
}

/* The events of one answer that ends with @finish_reason after "partial". */
static GStrv
finished_with (const char *finish_reason)
{
  g_auto(GStrv) events = zot_fake_server_gemini_text ("partial", 0);
  guint last = g_strv_length (events) - 1;
  g_auto(GStrv) halves = g_strsplit (events[last], "\"STOP\"", 2);
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", finish_reason);

  g_assert_nonnull (halves[1]);
  g_free (events[last]);
  events[last] = g_strjoin (quoted, halves[0], halves[1], NULL);
  return g_steal_pointer (&events);
}

/* ------------------------------------------------------------------ */
/* The request                                                         */
/* ------------------------------------------------------------------ */

static void
test_request_body (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_provider_request_new ();
  JsonObject *body;

  request->model = g_strdup ("gemini-test");
  request->system_prompt = g_strdup ("You are terse.");
  request->max_tokens = 100;
  add_message (request,
               "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},"
               "{\"type\":\"image\",\"mime_type\":\"image/png\",\"data\":\"iVBORw0=\"}]}");
  add_message (request,
               "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"reading\","
               "\"thought_signature\":\"text-sig\"},"
               "{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"read\",\"input\":{\"path\":\"x\"},"
               "\"thought_signature\":\"sig-1\"},"
               "{\"type\":\"tool_use\",\"id\":\"c2\",\"name\":\"bash\",\"input\":{\"command\":\"ls\"}}]}");
  add_message (request,
               "{\"role\":\"tool\",\"content\":["
               "{\"type\":\"tool_result\",\"tool_use_id\":\"c1\",\"is_error\":false,"
               "\"content\":[{\"type\":\"text\",\"text\":\"file body\"},"
               "{\"type\":\"image\",\"mime_type\":\"image/jpeg\",\"data\":\"/9j=\"}]},"
               "{\"type\":\"tool_result\",\"tool_use_id\":\"c2\",\"is_error\":true,"
               "\"content\":[{\"type\":\"text\",\"text\":\"no such command\"}]}]}");
  add_message (request, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"and?\"}]}");
  add_message (request, "{\"role\":\"assistant\",\"content\":[]}");

  zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);

  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==,
                   "/v1beta/models/gemini-test:streamGenerateContent");
  g_assert_cmpstr (zot_fake_server_get_request_query (fixture->server, 0), ==, "alt=sse");
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, "x-goog-api-key"), ==,
                   "gm-test");
  /* The key is never in the URL, which errors and logs name. */
  g_assert_null (strstr (zot_fake_server_get_request_query (fixture->server, 0), "gm-test"));

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_nonnull (body);
  g_assert_false (json_object_has_member (body, "model"));
  g_assert_cmpstr (zot_test_json_string_at (body, "systemInstruction/parts/0/text"), ==,
                   "You are terse.");
  g_assert_cmpint (zot_test_json_int_at (body, "generationConfig/maxOutputTokens"), ==, 100);
  g_assert_null (zot_test_json_node_at (body, "generationConfig/thinkingConfig"));

  /* The tool results and the next words are one user turn; the empty
   * assistant message is dropped. */
  g_assert_cmpuint (zot_test_json_length_at (body, "contents"), ==, 3);

  g_assert_cmpstr (zot_test_json_string_at (body, "contents/0/role"), ==, "user");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/0/parts/0/text"), ==, "look");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/0/parts/1/inlineData/mimeType"), ==,
                   "image/png");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/0/parts/1/inlineData/data"), ==,
                   "iVBORw0=");

  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/role"), ==, "model");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/0/text"), ==, "reading");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/0/thoughtSignature"), ==,
                   "text-sig");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/1/functionCall/name"), ==,
                   "read");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/1/functionCall/args/path"), ==,
                   "x");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/1/thoughtSignature"), ==,
                   "sig-1");
  /* The model signs the first of parallel calls only: the second stays
   * as it came, without the placeholder. */
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/2/functionCall/name"), ==,
                   "bash");
  g_assert_null (zot_test_json_node_at (body, "contents/1/parts/2/thoughtSignature"));

  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/role"), ==, "user");
  g_assert_cmpuint (zot_test_json_length_at (body, "contents/2/parts"), ==, 4);
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/parts/0/functionResponse/name"), ==,
                   "read");
  g_assert_cmpstr (zot_test_json_string_at (body,
                                            "contents/2/parts/0/functionResponse/response/output"),
                   ==, "file body");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/parts/1/functionResponse/name"), ==,
                   "bash");
  g_assert_cmpstr (zot_test_json_string_at (body,
                                            "contents/2/parts/1/functionResponse/response/error"),
                   ==, "no such command");
  /* The tool's image follows the responses, which hold no media. */
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/parts/2/inlineData/mimeType"), ==,
                   "image/jpeg");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/parts/3/text"), ==, "and?");
}

/* Function calls of a message with no signature at all, made by the host
 * or another provider, carry the placeholder, each of them. */
static void
test_placeholder (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("go");
  JsonObject *body;

  add_message (request,
               "{\"role\":\"assistant\",\"content\":["
               "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read\",\"input\":{}},"
               "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"bash\",\"input\":{}}]}");
  add_message (request,
               "{\"role\":\"tool\",\"content\":["
               "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"a\"},"
               "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\",\"content\":\"b\"}]}");

  zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/0/thoughtSignature"), ==,
                   ZOT_GEMINI_SIGNATURE_PLACEHOLDER);
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/1/thoughtSignature"), ==,
                   ZOT_GEMINI_SIGNATURE_PLACEHOLDER);
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/parts/1/functionResponse/response/output"),
                   ==, "b");
  /* A user's turn is never signed. */
  g_assert_null (zot_test_json_node_at (body, "contents/0/parts/0/thoughtSignature"));
}

static void
test_schema_conversion (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("hi");
  g_autoptr(JsonObject) tool = zot_test_json_object_from (
    "{\"name\":\"edit\",\"description\":\"Edit a file\",\"input_schema\":{"
    "\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
    "\"additionalProperties\":false,"
    "\"properties\":{"
    "  \"path\":{\"type\":\"string\",\"format\":\"uri\",\"minLength\":1},"
    "  \"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "  \"note\":{\"type\":[\"string\",\"null\"]},"
    "  \"mode\":{\"const\":\"replace\"},"
    "  \"level\":{\"type\":\"integer\",\"enum\":[1,2,3],\"minimum\":1,\"exclusiveMaximum\":4},"
    "  \"target\":{\"$ref\":\"#/$defs/target\",\"description\":\"where\"},"
    "  \"either\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"number\"}]},"
    "  \"maybe\":{\"anyOf\":[{\"type\":\"boolean\"},{\"type\":\"null\"}]},"
    "  \"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"]},"
    "           \"uniqueItems\":true,\"maxItems\":5},"
    "  \"anything\":{},"
    "  \"self\":{\"$ref\":\"#/$defs/node\"}"
    "},"
    "\"required\":[\"path\",\"ghost\"],"
    "\"$defs\":{"
    "  \"target\":{\"type\":\"object\",\"properties\":{\"line\":{\"type\":\"integer\"}},"
    "             \"required\":[\"line\"]},"
    "  \"node\":{\"type\":\"object\",\"properties\":{\"child\":{\"$ref\":\"#/$defs/node\"}}}"
    "}}}");
  JsonObject *body;
  JsonObject *parameters;
  JsonNode *node;
  guint depth = 0;

  request->tools = json_array_new ();
  json_array_add_object_element (request->tools, json_object_ref (tool));
  json_array_add_object_element (request->tools, zot_test_json_object_from (
    "{\"name\":\"now\",\"description\":\"The time\",\"input_schema\":{\"type\":\"object\"}}"));

  zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_cmpuint (zot_test_json_length_at (body, "tools"), ==, 1);
  g_assert_cmpuint (zot_test_json_length_at (body, "tools/0/functionDeclarations"), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/functionDeclarations/0/name"), ==, "edit");
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/functionDeclarations/0/description"), ==,
                   "Edit a file");
  /* A function without arguments has no parameters. */
  g_assert_cmpstr (zot_test_json_string_at (body, "tools/0/functionDeclarations/1/name"), ==, "now");
  g_assert_null (zot_test_json_node_at (body, "tools/0/functionDeclarations/1/parameters"));

  parameters = json_node_get_object (zot_test_json_node_at (body,
                                                            "tools/0/functionDeclarations/0/parameters"));
  g_assert_cmpstr (zot_test_json_string_at (parameters, "type"), ==, "object");
  g_assert_false (json_object_has_member (parameters, "$schema"));
  g_assert_false (json_object_has_member (parameters, "$defs"));
  g_assert_false (json_object_has_member (parameters, "additionalProperties"));
  /* Required names without a property are dropped. */
  g_assert_cmpuint (zot_test_json_length_at (parameters, "required"), ==, 1);
  g_assert_cmpstr (zot_test_json_string_at (parameters, "required/0"), ==, "path");

  /* Formats Gemini does not take go, those it takes stay. */
  g_assert_null (zot_test_json_node_at (parameters, "properties/path/format"));
  g_assert_cmpint (zot_test_json_int_at (parameters, "properties/path/minLength"), ==, 1);
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/when/format"), ==, "date-time");
  /* A type list with null is a nullable type. */
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/note/type"), ==, "string");
  g_assert_true (json_node_get_boolean (zot_test_json_node_at (parameters, "properties/note/nullable")));
  /* const is a one-value enum; an enum of numbers is not Gemini's. */
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/mode/type"), ==, "string");
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/mode/enum/0"), ==, "replace");
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/level/type"), ==, "integer");
  g_assert_null (zot_test_json_node_at (parameters, "properties/level/enum"));
  g_assert_null (zot_test_json_node_at (parameters, "properties/level/exclusiveMaximum"));
  g_assert_cmpint (zot_test_json_int_at (parameters, "properties/level/minimum"), ==, 1);
  /* $ref is resolved, its description kept. */
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/target/type"), ==, "object");
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/target/description"), ==, "where");
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/target/properties/line/type"), ==,
                   "integer");
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/target/required/0"), ==, "line");
  /* oneOf is anyOf; a null alternative is "nullable". */
  g_assert_cmpuint (zot_test_json_length_at (parameters, "properties/either/anyOf"), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/either/anyOf/1/type"), ==, "number");
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/maybe/type"), ==, "boolean");
  g_assert_true (json_node_get_boolean (zot_test_json_node_at (parameters, "properties/maybe/nullable")));
  g_assert_null (zot_test_json_node_at (parameters, "properties/maybe/anyOf"));
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/tags/items/enum/1"), ==, "b");
  g_assert_cmpint (zot_test_json_int_at (parameters, "properties/tags/maxItems"), ==, 5);
  g_assert_null (zot_test_json_node_at (parameters, "properties/tags/uniqueItems"));
  /* Every schema has a type. */
  g_assert_cmpstr (zot_test_json_string_at (parameters, "properties/anything/type"), ==, "string");

  /* A schema that refers to itself is cut off, not followed forever. */
  node = zot_test_json_node_at (parameters, "properties/self");
  while (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      node = zot_test_json_node_at (json_node_get_object (node), "properties/child");
      depth++;
    }
  g_assert_cmpuint (depth, >, 4);
  g_assert_cmpuint (depth, <, 64);
}

static void
test_model_in_path (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("hi");

  /* The API's own listing says "models/…"; a model from elsewhere is
   * escaped rather than let into the path. */
  zot_provider_set_model (fixture->provider, "models/gemini-2.0-flash");
  zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==,
                   "/v1beta/models/gemini-2.0-flash:streamGenerateContent");

  request->model = g_strdup ("odd/model?x");
  zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
  g_clear_pointer (&fixture->reply, zot_provider_reply_free);
  zot_test_provider_run_request (fixture, request);
  g_assert_no_error (fixture->error);
  /* The server decodes the path: what matters is that all of it arrived
   * there and nothing in the query. */
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 1), ==,
                   "/v1beta/models/odd/model?x:streamGenerateContent");
  g_assert_cmpstr (zot_fake_server_get_request_query (fixture->server, 1), ==, "alt=sse");
}

/* The table's default model, in the path; no body member names it. */
static void
test_default_model (Fixture       *fixture,
                    gconstpointer  data)
{
  const ZotProviderInfo *info = zot_provider_table_lookup ("gemini");
  g_autofree char *path = g_strdup_printf ("/v1beta/models/%s:streamGenerateContent",
                                           info->default_model);
  JsonObject *body;

  g_assert_cmpstr (zot_provider_get_name (fixture->provider), ==, "gemini");
  g_assert_cmpstr (zot_provider_get_model (fixture->provider), ==, info->default_model);
  g_assert_nonnull (zot_model_info_lookup ("gemini", info->default_model));

  zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);

  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, path);
  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_false (json_object_has_member (body, "generationConfig"));
  g_assert_false (json_object_has_member (body, "tools"));
  g_assert_false (json_object_has_member (body, "systemInstruction"));
}

/* ------------------------------------------------------------------ */
/* The answer                                                          */
/* ------------------------------------------------------------------ */

static void
test_function_calls (Fixture       *fixture,
                     gconstpointer  data)
{
  const ZotFakeGeminiCall calls[] = {
    { "bash", "{\"command\":\"grep -n main src/*.c\",\"timeout\":30}", NULL, "sig-bash" },
    { "read", "{}", NULL, NULL },
  };
  JsonObject *first;
  JsonObject *second;
  const char *first_id;
  const char *second_id;

  zot_test_provider_push_events (fixture, zot_fake_server_gemini_calls (calls, 2), FALSE);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);

  /* Each call comes whole, in one delta. */
  g_assert_cmpuint (fixture->tool_deltas->len, ==, 2);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "tool_use");

  first = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (zot_test_json_string_at (first, "type"), ==, "tool_use");
  g_assert_cmpstr (zot_test_json_string_at (first, "name"), ==, "bash");
  g_assert_cmpstr (zot_test_json_string_at (first, "input/command"), ==, "grep -n main src/*.c");
  g_assert_cmpint (zot_test_json_int_at (first, "input/timeout"), ==, 30);
  g_assert_cmpstr (zot_test_json_string_at (first, "thought_signature"), ==, "sig-bash");

  second = zot_test_provider_reply_block (fixture, 1);
  g_assert_cmpstr (zot_test_json_string_at (second, "name"), ==, "read");
  g_assert_false (json_object_has_member (second, "thought_signature"));
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (second, "input")), ==, 0);

  /* Without ids from the API, the host's are unique, also across answers. */
  first_id = zot_test_json_string_at (first, "id");
  second_id = zot_test_json_string_at (second, "id");
  g_assert_nonnull (first_id);
  g_assert_nonnull (second_id);
  g_assert_cmpstr (first_id, !=, second_id);
  {
    g_autofree char *earlier = g_strdup (first_id);

    zot_test_provider_push_events (fixture, zot_fake_server_gemini_calls (calls, 1), FALSE);
    g_clear_pointer (&fixture->reply, zot_provider_reply_free);
    zot_test_provider_run (fixture);
    g_assert_no_error (fixture->error);
    g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (fixture, 0), "id"), !=,
                     earlier);
  }
}

/* Text with a thought summary in it and a signature on its last part. */
static void
test_text_signature (Fixture       *fixture,
                     gconstpointer  data)
{
  const char *events[] = {
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":["
      "{\"text\":\"Let me think about it.\",\"thought\":true}]},\"index\":0}]}",
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":["
      "{\"text\":\"The answer \"}]},\"index\":0}]}",
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":["
      "{\"text\":\"is 42.\"},{\"text\":\"\",\"thoughtSignature\":\"text-sig\"}]},"
      "\"finishReason\":\"STOP\",\"index\":0}]}",
    NULL
  };
  g_autofree char *joined = NULL;
  JsonObject *block;

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);

  joined = zot_test_provider_joined_text (fixture);
  g_assert_cmpstr (joined, ==, "The answer is 42.");
  /* The thought summary is kept apart, as reasoning (test-reasoning.c). */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fixture->reply->message,
                                                                         "content")), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (zot_test_provider_reply_block (fixture, 0), "thinking"), ==,
                   "Let me think about it.");
  block = zot_test_provider_reply_block (fixture, 1);
  g_assert_cmpstr (zot_test_json_string_at (block, "text"), ==, "The answer is 42.");
  g_assert_cmpstr (zot_test_json_string_at (block, "thought_signature"), ==, "text-sig");
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "end_turn");
  /* No usage in the stream: unknown, not zero. */
  g_assert_cmpint (fixture->reply->input_tokens, ==, -1);
  g_assert_cmpint (fixture->reply->reasoning_tokens, ==, -1);
  g_assert_cmpint (fixture->reply->cache_read_tokens, ==, -1);
}

static void
test_usage (Fixture       *fixture,
            gconstpointer  data)
{
  const char *events[] = {
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},"
      "\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":100,\"totalTokenCount\":100}}",
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[]},"
      "\"finishReason\":\"STOP\",\"index\":0}],"
      "\"usageMetadata\":{\"promptTokenCount\":100,\"cachedContentTokenCount\":40,"
      "\"candidatesTokenCount\":20,\"thoughtsTokenCount\":7,\"totalTokenCount\":127}}",
    NULL
  };
  const char *plain[] = {
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},"
      "\"finishReason\":\"STOP\",\"index\":0}],"
      "\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":3}}",
    NULL
  };

  /* The last counts win; input without the cached part, output with
   * the thinking. */
  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);
  g_assert_cmpint (fixture->reply->input_tokens, ==, 60);
  g_assert_cmpint (fixture->reply->cache_read_tokens, ==, 40);
  g_assert_cmpint (fixture->reply->output_tokens, ==, 27);
  g_assert_cmpint (fixture->reply->reasoning_tokens, ==, 7);

  /* Counts the API leaves out are zero. */
  zot_fake_server_push_sse (fixture->server, plain, FALSE);
  g_clear_pointer (&fixture->reply, zot_provider_reply_free);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);
  g_assert_cmpint (fixture->reply->input_tokens, ==, 9);
  g_assert_cmpint (fixture->reply->cache_read_tokens, ==, 0);
  g_assert_cmpint (fixture->reply->output_tokens, ==, 3);
  g_assert_cmpint (fixture->reply->reasoning_tokens, ==, 0);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

static void
assert_one_line (const GError *error)
{
  g_assert_nonnull (error);
  g_assert_null (strchr (error->message, '\n'));
}

static void
test_finish_reasons (Fixture       *fixture,
                     gconstpointer  data)
{
  static const struct
  {
    const char *reason;
    int         code;
    const char *says;
  } cases[] = {
    { "SAFETY",                  ZOT_PROVIDER_ERROR_REFUSED,    "safety filters" },
    { "RECITATION",              ZOT_PROVIDER_ERROR_REFUSED,    "recited" },
    { "PROHIBITED_CONTENT",      ZOT_PROVIDER_ERROR_REFUSED,    "prohibited" },
    { "MALFORMED_FUNCTION_CALL", ZOT_PROVIDER_ERROR_BAD_STREAM, "function call" },
    { "OTHER",                   ZOT_PROVIDER_ERROR_BAD_STREAM, "stopped the answer early" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      zot_test_provider_push_events (fixture, finished_with (cases[i].reason), FALSE);
      g_clear_error (&fixture->error);
      zot_test_provider_run (fixture);

      g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, cases[i].code);
      g_assert_nonnull (strstr (fixture->error->message, cases[i].says));
      g_assert_nonnull (strstr (fixture->error->message, cases[i].reason));
      assert_one_line (fixture->error);
    }

  /* MAX_TOKENS is an answer, cut short. */
  zot_test_provider_push_events (fixture, finished_with ("MAX_TOKENS"), FALSE);
  g_clear_error (&fixture->error);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "length");
}

static void
test_prompt_blocked (Fixture       *fixture,
                     gconstpointer  data)
{
  const char *events[] = {
    "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\",\"safetyRatings\":[]},"
      "\"usageMetadata\":{\"promptTokenCount\":8}}",
    NULL
  };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_REFUSED);
  g_assert_nonnull (strstr (fixture->error->message, "refused the prompt"));
  g_assert_nonnull (strstr (fixture->error->message, "SAFETY"));
  assert_one_line (fixture->error);
}

static void
test_bad_calls (Fixture       *fixture,
                gconstpointer  data)
{
  static const struct
  {
    const char *event;
    int         code;
    const char *says;
  } cases[] = {
    { "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"args\":{}}}]}}]}",
      ZOT_PROVIDER_ERROR_BAD_STREAM, "without a name" },
    { "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"x\","
      "\"args\":[1]}}]}}]}",
      ZOT_PROVIDER_ERROR_BAD_STREAM, "not an object" },
    { "data: {\"error\":{\"code\":429,\"message\":\"Quota exceeded\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
      ZOT_PROVIDER_ERROR_RATE_LIMITED, "Quota exceeded" },
    { "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded\",\"status\":\"UNAVAILABLE\"}}",
      ZOT_PROVIDER_ERROR_SERVER, "overloaded" },
  };

  /* A busy server's error is retried when retries are allowed
   * (test-stream-error-retries); here what is left once none are. */
  zot_provider_set_max_retries (fixture->provider, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *events[] = { cases[i].event, NULL };

      zot_fake_server_push_sse (fixture->server, events, FALSE);
      g_clear_error (&fixture->error);
      zot_test_provider_run (fixture);

      g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, cases[i].code);
      g_assert_nonnull (strstr (fixture->error->message, cases[i].says));
      assert_one_line (fixture->error);
    }
}

/* A stream that floods function calls ends at the bound, not in memory. */
static void
test_too_many_calls (Fixture       *fixture,
                     gconstpointer  data)
{
  const char *events[] = { NULL };
  const char *call = "data: {\"candidates\":[{\"content\":{\"parts\":["
                     "{\"functionCall\":{\"name\":\"x\",\"args\":{}}}]}}]}";

  zot_fake_server_push_endless (fixture->server, events, call);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "more than 1024 function calls"));
}

/* ------------------------------------------------------------------ */
/* Thinking                                                            */
/* ------------------------------------------------------------------ */

static void
test_reasoning (Fixture       *fixture,
                gconstpointer  data)
{
  static const struct
  {
    const char *model;
    const char *level;
    const char *thinking_level;
    gint64      budget;
  } cases[] = {
    { "gemini-3-pro-preview",  "medium", "high",    -1 },
    { "gemini-3-pro-preview",  "off",    "low",     -1 },
    { "gemini-2.5-flash",      "minimum", NULL,   1024 },
    { "gemini-3-flash",        "off",    "minimal", -1 },
    { "gemini-2.5-flash",      "low",    NULL,    2048 },
    { "gemini-2.5-flash",      "off",    NULL,       0 },
    { "gemini-2.5-pro",        "off",    NULL,     128 },
    { "gemini-2.0-flash",      "high",   NULL,      -1 },
  };
  g_assert_cmpint (zot_provider_get_reasoning (fixture->provider), ==, ZOT_REASONING_DEFAULT);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("think");
      JsonObject *body;

      ZotReasoning level;

      g_assert_true (zot_reasoning_from_string (cases[i].level, &level));
      zot_provider_set_reasoning (fixture->provider, level);
      request->model = g_strdup (cases[i].model);
      zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
      g_clear_pointer (&fixture->reply, zot_provider_reply_free);
      zot_test_provider_run_request (fixture, request);
      g_assert_no_error (fixture->error);

      body = zot_fake_server_get_request_body (fixture->server, i);
      if (cases[i].thinking_level != NULL)
        g_assert_cmpstr (zot_test_json_string_at (body, "generationConfig/thinkingConfig/thinkingLevel"),
                         ==, cases[i].thinking_level);
      else if (cases[i].budget >= 0)
        g_assert_cmpint (zot_test_json_int_at (body, "generationConfig/thinkingConfig/thinkingBudget"),
                         ==, cases[i].budget);
      else
        g_assert_null (zot_test_json_node_at (body, "generationConfig"));
    }

  /* The default sends nothing: the model's own default applies. */
  {
    g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("think");

    zot_provider_set_reasoning (fixture->provider, ZOT_REASONING_DEFAULT);
    request->model = g_strdup ("gemini-2.5-flash");
    zot_test_provider_push_events (fixture, zot_fake_server_gemini_text ("ok", 10), FALSE);
    g_clear_pointer (&fixture->reply, zot_provider_reply_free);
    zot_test_provider_run_request (fixture, request);
    g_assert_no_error (fixture->error);
    g_assert_null (zot_test_json_node_at (zot_fake_server_get_request_body (fixture->server, G_N_ELEMENTS (cases)),
                                          "generationConfig/thinkingConfig"));
  }
}

/* ------------------------------------------------------------------ */
/* With an agent and its session                                       */
/* ------------------------------------------------------------------ */

typedef ZotTestAgent AgentFixture;

static void
agent_setup (AgentFixture  *f,
             gconstpointer  data)
{
  zot_test_agent_setup (f, "gemini", "gemini-3-pro-preview");
}

static void
agent_teardown (AgentFixture  *f,
                gconstpointer  data)
{
  zot_test_agent_teardown (f);
}

#define agent_open   zot_test_agent_open
#define agent_close  zot_test_agent_close
#define agent_wait   zot_test_agent_wait
#define agent_prompt zot_test_agent_prompt
#define prompt_cb    zot_test_agent_prompt_cb

static void
push (AgentFixture *f,
      GStrv         events)
{
  zot_fake_server_push_sse (f->server, (const char * const *) events, FALSE);
  g_strfreev (events);
}

/* The first model part of the last request that calls @name. */
static JsonObject *
sent_call (AgentFixture *f,
           guint         request,
           const char   *name)
{
  JsonObject *body = zot_fake_server_get_request_body (f->server, request);
  JsonArray *contents = json_object_get_array_member (body, "contents");

  for (guint i = 0; i < json_array_get_length (contents); i++)
    {
      JsonObject *content = json_array_get_object_element (contents, i);
      JsonArray *parts = json_object_get_array_member (content, "parts");

      for (guint j = 0; j < json_array_get_length (parts); j++)
        {
          JsonObject *part = json_array_get_object_element (parts, j);

          if (g_strcmp0 (zot_test_json_string_at (part, "functionCall/name"), name) == 0)
            return part;
        }
    }

  return NULL;
}

/* A signed call, run, and sent back with its result: the signature goes
 * back unchanged, is in the session file, and survives its reopening. */
static void
test_signature_round_trip (AgentFixture  *f,
                           gconstpointer  data)
{
  const ZotFakeGeminiCall call = { "read", "{\"path\":\"hello.txt\"}", NULL, "real-signature==" };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *file = NULL;
  GPtrArray *messages;
  JsonObject *block;
  JsonObject *part;
  JsonObject *body;

  agent_open (f, zot_session_new (f->env.cwd, NULL, &error));
  g_assert_no_error (error);
  push (f, zot_fake_server_gemini_calls (&call, 1));
  push (f, zot_fake_server_gemini_text ("It says hi.", 4));

  agent_prompt (f, "what does hello.txt say?");
  g_assert_cmpstr (f->final_text, ==, "It says hi.");
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 2);

  messages = zot_agent_get_messages (f->agent);
  block = json_array_get_object_element (json_object_get_array_member (g_ptr_array_index (messages, 1),
                                                                       "content"), 0);
  g_assert_cmpstr (zot_test_json_string_at (block, "thought_signature"), ==, "real-signature==");

  part = sent_call (f, 1, "read");
  g_assert_nonnull (part);
  g_assert_cmpstr (zot_test_json_string_at (part, "thoughtSignature"), ==, "real-signature==");
  body = zot_fake_server_get_request_body (f->server, 1);
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/parts/0/functionResponse/name"), ==, "read");
  g_assert_nonnull (strstr (zot_test_json_string_at (body,
                                                     "contents/2/parts/0/functionResponse/response/output"),
                            "hi from disk"));

  /* The file holds it as written. */
  path = g_strdup (zot_session_get_path (f->session));
  g_assert_true (g_file_get_contents (path, &file, NULL, NULL));
  g_assert_nonnull (strstr (file, "\"thought_signature\":\"real-signature==\""));

  /* Resumed: the next request still carries the model's own signature. */
  agent_close (f);
  agent_open (f, zot_session_open (path, &error));
  g_assert_no_error (error);
  push (f, zot_fake_server_gemini_text ("Still hi.", 4));
  agent_prompt (f, "and now?");

  part = sent_call (f, 2, "read");
  g_assert_nonnull (part);
  g_assert_cmpstr (zot_test_json_string_at (part, "thoughtSignature"), ==, "real-signature==");
}

static void
tool_prompt_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  prompt_cb (object, result, user_data);
}

/* An extension's tool_prompt pair is the host's, unsigned: Gemini gets
 * the placeholder on it. */
static void
test_tool_prompt_placeholder (AgentFixture  *f,
                              gconstpointer  data)
{
  g_autoptr(JsonObject) args = zot_test_json_object_from ("{\"path\":\"hello.txt\"}");
  GPtrArray *messages;
  JsonObject *part;

  agent_open (f, zot_session_new_in_memory (f->env.cwd));
  push (f, zot_fake_server_gemini_text ("Pushed.", 4));

  zot_agent_tool_prompt_async (f->agent, "and push", "read", args, "committer", NULL,
                               tool_prompt_cb, f);
  agent_wait (f);
  g_assert_cmpstr (f->final_text, ==, "Pushed.");

  messages = zot_agent_get_messages (f->agent);
  g_assert_cmpuint (messages->len, ==, 4);
  g_assert_false (json_object_has_member (
    json_array_get_object_element (json_object_get_array_member (g_ptr_array_index (messages, 1),
                                                                 "content"), 0),
    "thought_signature"));

  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 1);
  part = sent_call (f, 0, "read");
  g_assert_nonnull (part);
  g_assert_cmpstr (zot_test_json_string_at (part, "thoughtSignature"), ==,
                   ZOT_GEMINI_SIGNATURE_PLACEHOLDER);
  g_assert_cmpstr (zot_test_json_string_at (zot_fake_server_get_request_body (f->server, 0),
                                            "contents/2/parts/0/functionResponse/name"), ==, "read");
}

static void
appended_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  AgentFixture *f = user_data;

  zot_session_append_finish (ZOT_SESSION (object), result, &f->error);
  f->done = TRUE;
}

/* A session another provider wrote, resumed with Gemini: its unsigned
 * calls get the placeholder. */
static void
test_resumed_placeholder (AgentFixture  *f,
                          gconstpointer  data)
{
  const char *messages[] = {
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"read it\"}]}",
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Reading.\"},"
      "{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"read\","
      "\"input\":{\"path\":\"hello.txt\"}}],\"usage\":{\"input_tokens\":5,\"output_tokens\":6}}",
    "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_01\","
      "\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"hi from disk\"}]}]}",
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"It says hi.\"}]}",
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  JsonObject *part;
  JsonObject *body;

  /* Written as a run of another provider would have written it. */
  agent_open (f, zot_session_new (f->env.cwd, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (messages); i++)
    {
      g_autoptr(JsonObject) message = zot_test_json_object_from (messages[i]);

      zot_session_append_message_async (f->session, message, NULL, appended_cb, f);
      agent_wait (f);
    }
  path = g_strdup (zot_session_get_path (f->session));
  agent_close (f);

  agent_open (f, zot_session_open (path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (zot_agent_get_messages (f->agent)->len, ==, 4);
  push (f, zot_fake_server_gemini_text ("Yes, hi.", 4));
  agent_prompt (f, "really?");

  part = sent_call (f, 0, "read");
  g_assert_nonnull (part);
  g_assert_cmpstr (zot_test_json_string_at (part, "thoughtSignature"), ==,
                   ZOT_GEMINI_SIGNATURE_PLACEHOLDER);
  body = zot_fake_server_get_request_body (f->server, 0);
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/1/parts/0/text"), ==, "Reading.");
  g_assert_null (zot_test_json_node_at (body, "contents/1/parts/0/thoughtSignature"));
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/2/parts/0/functionResponse/name"), ==, "read");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/3/parts/0/text"), ==, "It says hi.");
  g_assert_cmpstr (zot_test_json_string_at (body, "contents/4/parts/0/text"), ==, "really?");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/provider/gemini/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
#define ADD_AGENT(path, func) \
  g_test_add ("/zot/provider/gemini/" path, AgentFixture, NULL, agent_setup, func, agent_teardown)

  ADD ("request-body", test_request_body);
  ADD ("placeholder", test_placeholder);
  ADD ("schema-conversion", test_schema_conversion);
  ADD ("model-in-path", test_model_in_path);
  ADD ("default-model", test_default_model);
  ADD ("function-calls", test_function_calls);
  ADD ("text-signature", test_text_signature);
  ADD ("usage", test_usage);
  ADD ("finish-reasons", test_finish_reasons);
  ADD ("prompt-blocked", test_prompt_blocked);
  ADD ("bad-calls", test_bad_calls);
  ADD ("too-many-calls", test_too_many_calls);
  ADD ("reasoning", test_reasoning);
  ADD_AGENT ("signature-round-trip", test_signature_round_trip);
  ADD_AGENT ("tool-prompt-placeholder", test_tool_prompt_placeholder);
  ADD_AGENT ("resumed-placeholder", test_resumed_placeholder);
#undef ADD
#undef ADD_AGENT

  return g_test_run ();
}
