/* test-providers.c — what every HTTP provider must do, run against each
 * one and the scripted fake server: streaming text and tool calls, stop
 * reasons, errors and their mapping, retries, the size and time caps,
 * cancellation, the nesting bound, keys and base URLs.
 *
 * A case takes a ProviderWire: the provider's table row name, how to make
 * one, and the wire fixtures that differ between the APIs. Cases that
 * only make sense for one API stay in test-provider-<name>.c. Deadlines
 * are shortened through the override, never slept on. */
#include "config.h"

#include <string.h>

#include "zot-anthropic-provider.h"
#include "zot-gemini-provider.h"
#include "zot-limits-private.h"
#include "zot-message.h"
#include "zot-openai-provider.h"
#include "zot-provider-table.h"
#include "zot-test-util.h"

#define SAFETY_MS 10000

typedef ZotTestProvider Fixture;

typedef GStrv (*WireText)      (const char *text,
                                gsize       chunk);
typedef GStrv (*WireToolCalls) (const char *first_name,
                                const char *first_args,
                                const char *second_name,
                                const char *second_args,
                                gsize       chunk);

/* One API as the cases below see it. */
typedef struct
{
  /* The row of zot-provider-table.c, and how to make one. */
  const char          *name;
  GType              (*get_type) (void);
  ZotTestProviderNew   new_func;
  const char          *api_key;

  /* Where the key goes ("x-api-key"), as what ("%s", "Bearer %s"). */
  const char          *key_header;
  const char          *key_format;
  /* The path a base URL ending in "/v1/" leads to. */
  const char          *v1_path;
  /* The max_tokens a request that sets none sends; 0 when it sends none. */
  guint                default_max_tokens;

  /* The fake server's scripts; ids of calls are tool_id_prefix + 1, 2. */
  WireText             text;
  WireToolCalls        tool_calls;
  const char          *tool_id_prefix;
  /* How many events of a text script come up to its first delta. */
  guint                through_first_delta;
  /* The stop reason of a text script, and that of an answer cut at its
   * output limit, as they appear on the wire. */
  const char          *end_reason;
  const char          *length_reason;

  /* The body of an error answer of @type (ignored where the API has
   * none) saying @message. */
  char              *(*error_body)    (const char *type,
                                       const char *message);
  /* What 5xx an overloaded server sends, with which error type. */
  guint                server_error_status;
  const char          *server_error_type;
  /* One event with a text delta, and the events an answer starts with
   * before such deltas may come (NULL for none). */
  char              *(*text_delta)    (const char *text);
  const char * const  *stream_start;

  /* Hand-written streams: one with a broken event, one that reports an
   * error saying "while processing your request"; the start of an event
   * whose data may nest; a whole answer where a stream was asked for. */
  const char * const  *malformed;
  const char * const  *error_in_stream;
  const char          *deep_prefix;
  const char          *whole_body;

  /* Cases that do not apply to the API (NULL for none), each with its
   * own test in test-provider-<name>.c. */
  const char * const  *skip;
} ProviderWire;

/* ------------------------------------------------------------------ */
/* The wires                                                           */
/* ------------------------------------------------------------------ */

static char *
openai_error_body (const char *type,
                   const char *message)
{
  g_assert_null (strchr (message, '"'));
  return g_strdup_printf ("{\"error\":{\"message\":\"%s\",\"type\":\"%s\"}}", message, type);
}

static char *
openai_text_delta (const char *text)
{
  return g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"},"
                          "\"finish_reason\":null}]}", text);
}

static const char * const openai_malformed[] = {
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"fine\"},\"finish_reason\":null}]}",
  "data: {\"choices\": [ {\"index\": 0, \"delta\": ",
  "data: [DONE]",
  NULL
};

static const char * const openai_error_in_stream[] = {
  "data: {\"error\":{\"message\":\"The server had an error while processing your request\"}}",
  NULL
};

static const ProviderWire openai_wire = {
  .name = "openai",
  .get_type = zot_openai_provider_get_type,
  .new_func = zot_openai_provider_new,
  .api_key = "sk-test",
  .key_header = "Authorization",
  .key_format = "Bearer %s",
  .v1_path = "/v1/chat/completions",
  .default_max_tokens = 0,
  .text = zot_fake_server_openai_text,
  .tool_calls = zot_fake_server_openai_tool_calls,
  .tool_id_prefix = "call_",
  .through_first_delta = 2,
  .end_reason = "\"finish_reason\":\"stop\"",
  .length_reason = "\"finish_reason\":\"length\"",
  .error_body = openai_error_body,
  .server_error_status = 500,
  .server_error_type = "server_error",
  .text_delta = openai_text_delta,
  .stream_start = NULL,
  .malformed = openai_malformed,
  .error_in_stream = openai_error_in_stream,
  .deep_prefix = "data: {\"choices\":",
  .whole_body = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[]}",
};

static char *
anthropic_error_body (const char *type,
                      const char *message)
{
  g_assert_null (strchr (message, '"'));
  return g_strdup_printf ("{\"type\":\"error\",\"error\":{\"type\":\"%s\",\"message\":\"%s\"}}",
                          type, message);
}

static char *
anthropic_text_delta (const char *text)
{
  return g_strdup_printf ("event: content_block_delta\n"
                          "data: {\"type\":\"content_block_delta\",\"index\":0,"
                          "\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}", text);
}

static const char * const anthropic_stream_start[] = {
  "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}",
  "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
  NULL
};

static const char * const anthropic_malformed[] = {
  "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}",
  "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,",
  "event: message_stop\ndata: {\"type\":\"message_stop\"}",
  NULL
};

static const char * const anthropic_error_in_stream[] = {
  "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}",
  "event: error\n"
    "data: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
    "\"message\":\"The server had an error while processing your request\"}}",
  NULL
};

static const ProviderWire anthropic_wire = {
  .name = "anthropic",
  .get_type = zot_anthropic_provider_get_type,
  .new_func = zot_anthropic_provider_new,
  .api_key = "sk-ant-test",
  .key_header = "x-api-key",
  .key_format = "%s",
  .v1_path = "/v1/messages",
  .default_max_tokens = 8192,
  .text = zot_fake_server_anthropic_text,
  .tool_calls = zot_fake_server_anthropic_tool_uses,
  .tool_id_prefix = "toolu_",
  .through_first_delta = 4,
  .end_reason = "\"stop_reason\":\"end_turn\"",
  .length_reason = "\"stop_reason\":\"max_tokens\"",
  .error_body = anthropic_error_body,
  .server_error_status = 529,
  .server_error_type = "overloaded_error",
  .text_delta = anthropic_text_delta,
  .stream_start = anthropic_stream_start,
  .malformed = anthropic_malformed,
  .error_in_stream = anthropic_error_in_stream,
  .deep_prefix = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":",
  .whole_body = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}",
};

static char *
gemini_error_body (const char *type,
                   const char *message)
{
  g_assert_null (strchr (message, '"'));
  return g_strdup_printf ("{\"error\":{\"code\":400,\"message\":\"%s\",\"status\":\"%s\"}}",
                          message, type);
}

static char *
gemini_text_delta (const char *text)
{
  return g_strdup_printf ("data: {\"candidates\":[{\"content\":{\"role\":\"model\","
                          "\"parts\":[{\"text\":\"%s\"}]},\"index\":0}]}", text);
}

static const char * const gemini_malformed[] = {
  "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"fine\"}]},\"index\":0}]}",
  "data: {\"candidates\": [ {\"content\": ",
  "data: {\"candidates\":[{\"content\":{\"parts\":[]},\"finishReason\":\"STOP\"}]}",
  NULL
};

static const char * const gemini_error_in_stream[] = {
  "data: {\"error\":{\"code\":400,\"status\":\"INVALID_ARGUMENT\","
    "\"message\":\"The server had an error while processing your request\"}}",
  NULL
};

/* Function calls come whole, with arguments that are always an object;
 * the model is named in the path, not the body. */
static const char * const gemini_skip[] = {
  "tool-call-split", "invalid-arguments", "default-model", NULL
};

static const ProviderWire gemini_wire = {
  .name = "gemini",
  .get_type = zot_gemini_provider_get_type,
  .new_func = zot_gemini_provider_new,
  .api_key = "gm-test",
  .key_header = "x-goog-api-key",
  .key_format = "%s",
  .v1_path = "/v1/models/gemini-2.5-flash:streamGenerateContent",
  .default_max_tokens = 0,
  .text = zot_fake_server_gemini_text,
  .tool_calls = zot_fake_server_gemini_tool_calls,
  .tool_id_prefix = "call_",
  .through_first_delta = 1,
  .end_reason = "\"finishReason\":\"STOP\"",
  .length_reason = "\"finishReason\":\"MAX_TOKENS\"",
  .error_body = gemini_error_body,
  .server_error_status = 503,
  .server_error_type = "UNAVAILABLE",
  .text_delta = gemini_text_delta,
  .stream_start = NULL,
  .malformed = gemini_malformed,
  .error_in_stream = gemini_error_in_stream,
  .deep_prefix = "data: {\"candidates\":",
  .whole_body = "{\"candidates\":[]}",
  .skip = gemini_skip,
};

static const ProviderWire * const wires[] = { &openai_wire, &anthropic_wire, &gemini_wire };

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  const ProviderWire *wire = data;

  zot_test_provider_setup (fixture, wire->name, wire->get_type (), wire->new_func, wire->api_key);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  zot_test_provider_teardown (fixture);
}

static const ZotProviderInfo *
wire_info (const ProviderWire *wire)
{
  const ZotProviderInfo *info = zot_provider_table_lookup (wire->name);

  g_assert_nonnull (info);
  return info;
}

static void
push_error (Fixture            *fixture,
            const ProviderWire *wire,
            guint               status,
            const char         *type,
            const char         *message,
            const char         *retry_after)
{
  g_autofree char *body = wire->error_body (type, message);

  zot_fake_server_push_json (fixture->server, status, body, retry_after);
}

/* The events of wire->stream_start, then @more (transfer full), for
 * zot_fake_server_push_endless(). */
static GStrv
start_then (const ProviderWire *wire,
            char               *more)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (wire->stream_start != NULL)
    g_strv_builder_addv (builder, (const char **) wire->stream_start);
  if (more != NULL)
    g_strv_builder_add (builder, more);
  g_free (more);
  return g_strv_builder_end (builder);
}

static char *
tool_id (const ProviderWire *wire,
         guint               n)
{
  return g_strdup_printf ("%s%u", wire->tool_id_prefix, n);
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
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

static void
test_text (Fixture       *fixture,
           gconstpointer  data)
{
  const ProviderWire *wire = data;
  const char *text = "Hello, streaming world! Ünïcödé too — in pieces.";
  g_autofree char *joined = NULL;
  g_autofree char *reply_text = NULL;

  zot_test_provider_push_events (fixture, wire->text (text, 4), FALSE);
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
  const ProviderWire *wire = data;
  const char *args = "{\"command\": \"grep -n main src/*.c\", \"timeout\": 30}";
  g_autofree char *id = tool_id (wire, 1);
  g_autofree char *first = g_strdup_printf ("0|%s|bash|", id);
  g_autofree char *joined = NULL;
  JsonObject *block;
  JsonObject *input;

  zot_test_provider_push_events (fixture, wire->tool_calls ("bash", args, NULL, NULL, 4), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  /* Split mid-argument: many fragments, one call, known from the first. */
  g_assert_cmpuint (fixture->tool_deltas->len, >, 5);
  g_assert_cmpstr (g_ptr_array_index (fixture->tool_deltas, 0), ==, first);
  joined = zot_test_provider_joined_tool_arguments (fixture, 0);
  g_assert_cmpstr (joined, ==, args);

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fixture->reply->message,
                                                                         "content")), ==, 1);
  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "tool_use");
  g_assert_cmpstr (json_object_get_string_member (block, "id"), ==, id);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "bash");
  g_assert_false (json_object_has_member (block, "input_raw"));
  input = json_object_get_object_member (block, "input");
  g_assert_cmpstr (json_object_get_string_member (input, "command"), ==, "grep -n main src/*.c");
  g_assert_cmpint (json_object_get_int_member (input, "timeout"), ==, 30);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "tool_use");
}

static void
test_two_tool_calls (Fixture       *fixture,
                     gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_autofree char *second_id = tool_id (wire, 2);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  JsonObject *block;

  zot_test_provider_push_events (fixture,
                                 wire->tool_calls ("read", "{\"path\":\"a.txt\"}",
                                                   "bash", "{\"command\":\"ls -l\"}", 5),
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
  g_assert_cmpstr (json_object_get_string_member (block, "id"), ==, second_id);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "bash");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (block, "input"),
                                                  "command"), ==, "ls -l");
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "tool_use");
}

/* An answer cut at its output limit stops with "length". */
static void
test_length_stop (Fixture       *fixture,
                  gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_auto(GStrv) events = wire->text ("cut short", 4);
  gboolean patched = FALSE;

  for (guint i = 0; events[i] != NULL; i++)
    if (strstr (events[i], wire->end_reason) != NULL)
      {
        g_auto(GStrv) halves = g_strsplit (events[i], wire->end_reason, 2);

        g_free (events[i]);
        events[i] = g_strjoin (wire->length_reason, halves[0], halves[1], NULL);
        patched = TRUE;
      }
  g_assert_true (patched);
  zot_fake_server_push_sse (fixture->server, (const char * const *) events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (fixture->reply->stop_reason, ==, "length");
}

static void
test_invalid_arguments (Fixture       *fixture,
                        gconstpointer  data)
{
  const ProviderWire *wire = data;
  const char *args = "{\"command\": \"ls";
  JsonObject *block;

  zot_test_provider_push_events (fixture, wire->tool_calls ("bash", args, NULL, NULL, 4), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  block = zot_test_provider_reply_block (fixture, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "bash");
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (block, "input")), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "input_raw"), ==, args);
}

static void
test_sequential_calls (Fixture       *fixture,
                       gconstpointer  data)
{
  const ProviderWire *wire = data;

  /* One provider, several calls over a reused connection. */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *text = g_strdup_printf ("answer %u", i);

      zot_test_provider_push_events (fixture, wire->text (text, 3), FALSE);
      g_clear_pointer (&fixture->reply, zot_provider_reply_free);
      zot_test_provider_run (fixture);
      g_assert_no_error (fixture->error);
      g_assert_cmpstr (json_object_get_string_member (zot_test_provider_reply_block (fixture, 0),
                                                      "text"), ==, text);
    }
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 3);
}

/* ------------------------------------------------------------------ */
/* The request                                                         */
/* ------------------------------------------------------------------ */

/* The name and default model come from the table; a request without a
 * model or tools asks for the default and offers none. */
static void
test_default_model (Fixture       *fixture,
                    gconstpointer  data)
{
  const ProviderWire *wire = data;
  const ZotProviderInfo *info = wire_info (wire);
  JsonObject *body;

  g_assert_cmpstr (zot_provider_get_name (fixture->provider), ==, wire->name);
  g_assert_cmpstr (zot_provider_get_model (fixture->provider), ==, info->default_model);

  zot_test_provider_push_events (fixture, wire->text ("ok", 10), FALSE);
  zot_test_provider_run (fixture);
  g_assert_no_error (fixture->error);

  body = zot_fake_server_get_request_body (fixture->server, 0);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, info->default_model);
  if (wire->default_max_tokens > 0)
    g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, wire->default_max_tokens);
  else
    g_assert_false (json_object_has_member (body, "max_tokens"));
  g_assert_false (json_object_has_member (body, "tools"));
  g_assert_true (json_object_get_boolean_member (body, "stream"));

  zot_provider_set_model (fixture->provider, "x-other");
  g_assert_cmpstr (zot_provider_get_model (fixture->provider), ==, "x-other");
  zot_provider_set_model (fixture->provider, NULL);
  g_assert_cmpstr (zot_provider_get_model (fixture->provider), ==, info->default_model);
}

/* A base URL that ends in "/v1/" leads to the API's endpoint under it. */
static void
test_base_url_v1 (Fixture       *fixture,
                  gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_autofree char *base = g_strconcat (zot_fake_server_get_url (fixture->server), "/v1/", NULL);

  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, base, wire->api_key, "--api-key");

  zot_test_provider_push_events (fixture, wire->text ("ok", 3), FALSE);
  zot_test_provider_run (fixture);

  g_assert_no_error (fixture->error);
  g_assert_cmpstr (zot_fake_server_get_request_path (fixture->server, 0), ==, wire->v1_path);
}

/* ------------------------------------------------------------------ */
/* Keys                                                                */
/* ------------------------------------------------------------------ */

static void
test_auth (Fixture       *fixture,
           gconstpointer  data)
{
  const ProviderWire *wire = data;

  push_error (fixture, wire, 401, "authentication_error", "Incorrect API key provided", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (fixture->error->message, "--api-key"));
  g_assert_nonnull (strstr (fixture->error->message, "Incorrect API key provided"));
  g_assert_nonnull (strstr (fixture->error->message, "401"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
  g_assert_cmpuint (fixture->text_deltas->len, ==, 0);
}

/* A key from the environment is named by its variable when refused. */
static void
test_auth_env (Fixture       *fixture,
               gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_autofree char *source = g_strconcat ("$", wire_info (wire)->key_variable, NULL);
  g_autofree char *header = g_strdup_printf (wire->key_format, "sk-env");

  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, zot_fake_server_get_url (fixture->server),
                                              "sk-env", source);

  push_error (fixture, wire, 403, "permission_error", "forbidden here", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (fixture->error->message, source));
  g_assert_nonnull (strstr (fixture->error->message, "forbidden here"));
  g_assert_cmpstr (zot_fake_server_get_request_header (fixture->server, 0, wire->key_header), ==,
                   header);
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

/* Without a key the provider is not made, and the error says where a key
 * goes; a base URL makes the key optional only for compatible servers;
 * a base URL that is not http(s) is refused. */
static void
test_no_key (gconstpointer data)
{
  const ProviderWire *wire = data;
  const ZotProviderInfo *info = wire_info (wire);
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) provider = NULL;

  config.name = g_strdup (wire->name);
  provider = wire->new_func (&config, &error);
  g_assert_null (provider);
  g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, info->key_variable));
  g_assert_nonnull (strstr (error->message, "--api-key"));
  g_clear_error (&error);

  config.base_url = g_strdup ("http://127.0.0.1:9");
  provider = wire->new_func (&config, &error);
  if (info->compatible_servers)
    {
      g_assert_no_error (error);
      g_assert_nonnull (provider);
      g_clear_object (&provider);
    }
  else
    {
      g_assert_null (provider);
      g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
      g_assert_nonnull (strstr (error->message, info->key_variable));
      g_assert_nonnull (strstr (error->message, "--api-key"));
      g_clear_error (&error);
    }

  g_free (config.base_url);
  config.base_url = g_strdup ("ftp://example.com");
  config.api_key = g_strdup ("sk");
  provider = wire->new_func (&config, &error);
  g_assert_null (provider);
  g_assert_error (error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "ftp://example.com"));
}

/* A key from the keyring comes after the environment's; one typed in
 * Preferences before it; neither is put into the environment. */
static void
test_key_order (gconstpointer data)
{
  const ProviderWire *wire = data;
  const char *variable = wire_info (wire)->key_variable;
  g_autofree char *env_source = g_strconcat ("$", variable, NULL);
  g_auto(ZotProviderConfig) from_keyring = { .name = g_strdup (wire->name) };
  g_auto(ZotProviderConfig) from_env = { .name = g_strdup (wire->name) };
  g_auto(ZotProviderConfig) chosen = { .name = g_strdup (wire->name) };
  const char *source = NULL;

  g_unsetenv (variable);
  zot_provider_store_key (wire->name, "sk-keyring", FALSE);
  zot_provider_resolve_config (&from_keyring);
  g_assert_cmpstr (from_keyring.api_key, ==, "sk-keyring");
  g_assert_cmpstr (from_keyring.api_key_source, ==, "the keyring");
  g_assert_null (g_getenv (variable));

  g_setenv (variable, "sk-env", TRUE);
  zot_provider_resolve_config (&from_env);
  g_assert_cmpstr (from_env.api_key, ==, "sk-env");
  g_assert_cmpstr (from_env.api_key_source, ==, env_source);

  zot_provider_store_key (wire->name, "sk-typed", TRUE);
  zot_provider_resolve_config (&chosen);
  g_assert_cmpstr (chosen.api_key, ==, "sk-typed");
  g_assert_cmpstr (zot_provider_get_key (wire->name, &source), ==, "sk-typed");
  g_assert_cmpstr (source, ==, "Preferences");
  g_assert_cmpstr (g_getenv (variable), ==, "sk-env");

  zot_provider_store_key (wire->name, NULL, TRUE);
  zot_provider_store_key (wire->name, NULL, FALSE);
  g_unsetenv (variable);
  g_assert_null (zot_provider_get_key (wire->name, NULL));
}

/* ------------------------------------------------------------------ */
/* HTTP errors and retries                                             */
/* ------------------------------------------------------------------ */

static void
test_retry_429 (Fixture       *fixture,
                gconstpointer  data)
{
  const ProviderWire *wire = data;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 10);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 50);

  /* retry-after says 1 s: the wait is capped at RETRY_MAX. */
  push_error (fixture, wire, 429, "rate_limit_error", "slow down", "1");
  zot_test_provider_push_events (fixture, wire->text ("after the wait", 5), FALSE);
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
  const ProviderWire *wire = data;
  gint64 start;

  /* The backoff of a plain 503 waits at most RETRY_MAX, however long
   * RETRY is (an hour's retry-after is past the budget: test-retries.c). */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 60000);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 50);

  zot_fake_server_push_json (fixture->server, 503, "{}", NULL);
  zot_fake_server_push_json (fixture->server, 503, "upstream busy", NULL);
  zot_test_provider_push_events (fixture, wire->text ("third time", 50), FALSE);

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
  const ProviderWire *wire = data;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);

  for (guint i = 0; i < ZOT_PROVIDER_MAX_RETRIES + 1; i++)
    push_error (fixture, wire, wire->server_error_status, wire->server_error_type, "Overloaded", NULL);
  zot_test_provider_push_events (fixture, wire->text ("never read", 50), FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_SERVER);
  g_assert_nonnull (strstr (fixture->error->message, "Overloaded"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==,
                    ZOT_PROVIDER_MAX_RETRIES + 1);
}

static void
test_rate_limited (Fixture       *fixture,
                   gconstpointer  data)
{
  const ProviderWire *wire = data;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);

  for (guint i = 0; i < ZOT_PROVIDER_MAX_RETRIES + 1; i++)
    push_error (fixture, wire, 429, "rate_limit_error", "quota", "0");
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_RATE_LIMITED);
  g_assert_nonnull (strstr (fixture->error->message, "quota"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==,
                    ZOT_PROVIDER_MAX_RETRIES + 1);
}

static void
test_http_error (Fixture       *fixture,
                 gconstpointer  data)
{
  const ProviderWire *wire = data;

  push_error (fixture, wire, 400, "invalid_request_error", "Invalid value for 'model'", NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_HTTP);
  g_assert_nonnull (strstr (fixture->error->message, "400"));
  g_assert_nonnull (strstr (fixture->error->message, "Invalid value for 'model'"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

/* A server that ignored "stream": 200 with a whole JSON body. */
static void
test_not_a_stream (Fixture       *fixture,
                   gconstpointer  data)
{
  const ProviderWire *wire = data;

  zot_fake_server_push_json (fixture->server, 200, wire->whole_body, NULL);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "instead of an event stream"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

static void
test_network_error (Fixture       *fixture,
                    gconstpointer  data)
{
  const ProviderWire *wire = data;
  ZotFakeServer *gone = zot_fake_server_new ();
  g_autofree char *url = g_strdup (zot_fake_server_get_url (gone));

  /* A port that was just open and is closed now; it is tried again, and
   * the waits are short. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY, 5);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_RETRY_MAX, 20);
  zot_fake_server_free (gone);
  g_clear_object (&fixture->provider);
  fixture->provider = zot_test_provider_make (fixture, url, wire->api_key, "--api-key");
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_NETWORK);
  g_assert_nonnull (strstr (fixture->error->message, url));
}

/* ------------------------------------------------------------------ */
/* Broken, endless and huge streams                                    */
/* ------------------------------------------------------------------ */

static void
test_stream_cut (Fixture       *fixture,
                 gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_auto(GStrv) events = wire->text ("a long answer that breaks off", 4);

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
  const ProviderWire *wire = data;
  g_auto(GStrv) events = wire->text ("almost", 3);

  /* Everything but the API's end marker, and a clean end of the body. */
  zot_test_truncate_events (events, g_strv_length (events) - 1);
  zot_fake_server_push_sse (fixture->server, (const char * const *) events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "ended early"));
}

static void
test_malformed (Fixture       *fixture,
                gconstpointer  data)
{
  const ProviderWire *wire = data;

  zot_fake_server_push_sse (fixture->server, wire->malformed, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "malformed JSON"));
}

/* A model server nesting a stream event 80,000 levels deep: a clean
 * stream error, not a stack overflow in the parser. */
static void
test_deep_nesting (Fixture       *fixture,
                   gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_autofree char *deep = zot_test_nested_json (wire->deep_prefix, 80000, "}");
  const char *events[] = { deep, NULL };

  zot_fake_server_push_sse (fixture->server, events, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "nested deeper"));
}

static void
test_error_in_stream (Fixture       *fixture,
                      gconstpointer  data)
{
  const ProviderWire *wire = data;

  zot_fake_server_push_sse (fixture->server, wire->error_in_stream, FALSE);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "while processing your request"));
  /* A stream error is not retried. */
  g_assert_cmpuint (zot_fake_server_get_n_requests (fixture->server), ==, 1);
}

/* A server that never stops talking: the turn ends at the response's
 * total deadline, with a clear error, even though it is never silent. */
static void
test_endless_response (Fixture       *fixture,
                       gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_auto(GStrv) events = start_then (wire, wire->text_delta ("start"));

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_TOTAL, 300);
  zot_fake_server_push_endless (fixture->server, (const char * const *) events, ": still thinking");
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
  const ProviderWire *wire = data;
  g_autofree char *filler = g_strnfill (64 * 1024, 'x');
  g_autofree char *delta = wire->text_delta (filler);
  g_auto(GStrv) events = start_then (wire, NULL);

  zot_fake_server_push_endless (fixture->server, (const char * const *) events, delta);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "passed the 16 MiB limit"));
}

/* ------------------------------------------------------------------ */
/* Cancellation and stalls                                             */
/* ------------------------------------------------------------------ */

static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  const ProviderWire *wire = data;
  g_auto(GStrv) events = wire->text ("never finishes", 3);

  /* Up to the second delta, then the body hangs: the first cancels. */
  zot_test_truncate_events (events, wire->through_first_delta + 1);
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
  const ProviderWire *wire = data;
  g_auto(GStrv) events = wire->text ("stalls", 2);

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_PROVIDER_IDLE, 200);

  zot_test_truncate_events (events, wire->through_first_delta);
  zot_fake_server_push_hang (fixture->server, (const char * const *) events);
  zot_test_provider_run (fixture);

  g_assert_error (fixture->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->error->message, "stalled"));
  g_assert_nonnull (strstr (fixture->error->message, "200 ms"));
  g_assert_cmpuint (fixture->text_deltas->len, ==, 1);
}

/* ------------------------------------------------------------------ */

typedef void (*FixtureCase) (Fixture       *fixture,
                             gconstpointer  data);

static const struct
{
  const char  *name;
  FixtureCase  func;
} fixture_cases[] = {
  { "text", test_text },
  { "tool-call-split", test_tool_call_split },
  { "two-tool-calls", test_two_tool_calls },
  { "length-stop", test_length_stop },
  { "invalid-arguments", test_invalid_arguments },
  { "sequential-calls", test_sequential_calls },
  { "default-model", test_default_model },
  { "base-url-v1", test_base_url_v1 },
  { "auth", test_auth },
  { "auth-env", test_auth_env },
  { "retry-429", test_retry_429 },
  { "retry-after-capped", test_retry_after_capped },
  { "server-error", test_server_error },
  { "rate-limited", test_rate_limited },
  { "http-error", test_http_error },
  { "not-a-stream", test_not_a_stream },
  { "network-error", test_network_error },
  { "stream-cut", test_stream_cut },
  { "stream-ends-early", test_stream_ends_early },
  { "malformed", test_malformed },
  { "deep-nesting", test_deep_nesting },
  { "error-in-stream", test_error_in_stream },
  { "endless-response", test_endless_response },
  { "oversized-response", test_oversized_response },
  { "cancel", test_cancel },
  { "cancel-retry-wait", test_cancel_retry_wait },
  { "idle-timeout", test_idle_timeout },
};

static const struct
{
  const char     *name;
  GTestDataFunc   func;
} plain_cases[] = {
  { "no-key", test_no_key },
  { "key-order", test_key_order },
};

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint w = 0; w < G_N_ELEMENTS (wires); w++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (fixture_cases); i++)
        {
          g_autofree char *path = g_strdup_printf ("/zot/provider/%s/%s", wires[w]->name,
                                                   fixture_cases[i].name);

          if (wires[w]->skip != NULL && g_strv_contains (wires[w]->skip, fixture_cases[i].name))
            continue;
          g_test_add (path, Fixture, wires[w], fixture_setup, fixture_cases[i].func,
                      fixture_teardown);
        }

      for (guint i = 0; i < G_N_ELEMENTS (plain_cases); i++)
        {
          g_autofree char *path = g_strdup_printf ("/zot/provider/%s/%s", wires[w]->name,
                                                   plain_cases[i].name);

          g_test_add_data_func (path, wires[w], plain_cases[i].func);
        }
    }

  return g_test_run ();
}
