/* test-reasoning.c — the model's reasoning, against the scripted fake
 * server: read from each API's stream (Anthropic thinking blocks, Gemini
 * thought parts, an OpenAI-compatible server's reasoning_content or
 * reasoning deltas), streamed as ::reasoning-delta, bounded by
 * ZOT_PROVIDER_REASONING_MAX_BYTES, saved with the session and reloaded,
 * and sent back only where the API wants it: Anthropic's signed thinking
 * before the tool results that follow, nothing to anyone else. */
#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-anthropic-provider.h"
#include "zot-json.h"
#include "zot-gemini-provider.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-openai-provider.h"
#include "zot-test-util.h"

/* ------------------------------------------------------------------ */
/* One provider                                                        */
/* ------------------------------------------------------------------ */

typedef struct
{
  ZotTestProvider  p;
  GString         *reasoning;
  guint            n_reasoning;
} Fixture;

static void
on_reasoning_delta (ZotProvider *provider,
                    const char  *delta,
                    Fixture     *fixture)
{
  g_string_append (fixture->reasoning, delta);
  fixture->n_reasoning++;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  const char *name = data;

  if (g_str_equal (name, "anthropic"))
    zot_test_provider_setup (&fixture->p, "anthropic", ZOT_TYPE_ANTHROPIC_PROVIDER,
                             zot_anthropic_provider_new, "sk-ant-test");
  else if (g_str_equal (name, "gemini"))
    zot_test_provider_setup (&fixture->p, "gemini", ZOT_TYPE_GEMINI_PROVIDER,
                             zot_gemini_provider_new, "gm-test");
  else
    zot_test_provider_setup (&fixture->p, "openai", ZOT_TYPE_OPENAI_PROVIDER,
                             zot_openai_provider_new, "sk-test");
  fixture->reasoning = g_string_new (NULL);
  g_signal_connect (fixture->p.provider, "reasoning-delta", G_CALLBACK (on_reasoning_delta), fixture);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_string_free (fixture->reasoning, TRUE);
  zot_test_provider_teardown (&fixture->p);
}

static void
reset (Fixture *fixture)
{
  g_string_truncate (fixture->reasoning, 0);
  fixture->n_reasoning = 0;
  g_ptr_array_set_size (fixture->p.text_deltas, 0);
  g_clear_pointer (&fixture->p.reply, zot_provider_reply_free);
  g_clear_error (&fixture->p.error);
}

/* @base with @extra put in before its event @at; frees @base. */
static GStrv
insert_events (GStrv               base,
               guint               at,
               const char * const *extra)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; base[i] != NULL; i++)
    {
      if (i == at)
        g_strv_builder_addv (builder, (const char **) extra);
      g_strv_builder_add (builder, base[i]);
    }
  g_strfreev (base);
  return g_strv_builder_end (builder);
}

static JsonObject *
reply_block (Fixture *fixture,
             guint    index)
{
  return zot_test_provider_reply_block (&fixture->p, index);
}

static guint
reply_length (Fixture *fixture)
{
  return json_array_get_length (json_object_get_array_member (fixture->p.reply->message, "content"));
}

#define ANTHROPIC_START \
  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}"
#define ANTHROPIC_END \
  "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}", \
  "event: message_stop\ndata: {\"type\":\"message_stop\"}"
#define ANTHROPIC_THINKING_DELTA(index, text) \
  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":" #index "," \
  "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"" text "\"}}"

/* Thinking split over many events, its signature over two, a redacted
 * block kept as it came, then the answer; what is not thinking text is
 * never streamed as reasoning, and a block that lost its signature is
 * kept unsigned. */
static void
test_anthropic_stream (Fixture       *fixture,
                       gconstpointer  data)
{
  const char *events[] = {
    ANTHROPIC_START,
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}",
    ANTHROPIC_THINKING_DELTA (0, "Let me "),
    ANTHROPIC_THINKING_DELTA (0, "think."),
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig-\"}}",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"42\"}}",
    /* Garbage: thinking that is not a string, and for a block that is not thinking. */
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":{\"no\":1}}}",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"opaque==\"}}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
    ANTHROPIC_THINKING_DELTA (2, "not reasoning"),
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,"
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"Answer.\"}}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":3,"
    "\"content_block\":{\"type\":\"thinking\",\"thinking\":\" Unsigned.\"}}",
    ANTHROPIC_END,
    NULL
  };
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("again");
  g_autoptr(JsonObject) assistant = NULL;
  g_autofree char *text = NULL;
  JsonObject *block;
  JsonArray *sent;

  zot_fake_server_push_sse (fixture->p.server, events, FALSE);
  zot_test_provider_run (&fixture->p);
  g_assert_no_error (fixture->p.error);

  g_assert_cmpstr (fixture->reasoning->str, ==, "Let me think. Unsigned.");
  g_assert_cmpuint (fixture->n_reasoning, ==, 3);
  text = zot_test_provider_joined_text (&fixture->p);
  g_assert_cmpstr (text, ==, "Answer.");

  g_assert_cmpuint (reply_length (fixture), ==, 4);
  block = reply_block (fixture, 0);
  g_assert_cmpstr (zot_test_json_string_at (block, "type"), ==, "thinking");
  g_assert_cmpstr (zot_test_json_string_at (block, "thinking"), ==, "Let me think.");
  g_assert_cmpstr (zot_test_json_string_at (block, "signature"), ==, "sig-42");
  block = reply_block (fixture, 1);
  g_assert_cmpstr (zot_test_json_string_at (block, "type"), ==, "redacted_thinking");
  g_assert_cmpstr (zot_test_json_string_at (block, "data"), ==, "opaque==");
  block = reply_block (fixture, 2);
  g_assert_cmpstr (zot_test_json_string_at (block, "text"), ==, "Answer.");
  block = reply_block (fixture, 3);
  g_assert_cmpstr (zot_test_json_string_at (block, "thinking"), ==, " Unsigned.");
  g_assert_false (json_object_has_member (block, "signature"));

  /* Sent back: the signed block and the redacted one, not the unsigned. */
  assistant = json_object_ref (fixture->p.reply->message);
  request->messages = json_array_new ();
  json_array_add_object_element (request->messages, zot_message_new_user_text ("hi"));
  json_array_add_object_element (request->messages, json_object_ref (assistant));
  json_array_add_object_element (request->messages, zot_message_new_user_text ("again"));
  reset (fixture);
  zot_test_provider_push_events (&fixture->p, zot_fake_server_anthropic_text ("ok", 10), FALSE);
  zot_test_provider_run_request (&fixture->p, request);
  g_assert_no_error (fixture->p.error);
  sent = json_node_get_array (zot_test_json_node_at (zot_fake_server_get_request_body (fixture->p.server, 1),
                                                     "messages/1/content"));
  g_assert_cmpuint (json_array_get_length (sent), ==, 3);
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 0), "signature"), ==, "sig-42");
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 1), "type"), ==,
                   "redacted_thinking");
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 2), "type"), ==, "text");
}

/* reasoning_content and reasoning, each over several chunks; a chunk with
 * both counts once; values that are not text are left out. */
static void
test_openai_stream (Fixture       *fixture,
                    gconstpointer  data)
{
  const char *reasoning[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"First \"}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"this, \"}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"then that.\"}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\" Both\",\"reasoning\":\" Both\"}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":7}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":[\"x\"]}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":null,\"content\":\"\"}}]}",
    NULL
  };
  g_autofree char *text = NULL;
  JsonObject *block;

  zot_test_provider_push_events (&fixture->p,
                                 insert_events (zot_fake_server_openai_text ("The answer.", 4), 1, reasoning),
                                 FALSE);
  zot_test_provider_run (&fixture->p);
  g_assert_no_error (fixture->p.error);

  g_assert_cmpstr (fixture->reasoning->str, ==, "First this, then that. Both");
  g_assert_cmpuint (fixture->n_reasoning, ==, 4);
  text = zot_test_provider_joined_text (&fixture->p);
  g_assert_cmpstr (text, ==, "The answer.");

  g_assert_cmpuint (reply_length (fixture), ==, 2);
  block = reply_block (fixture, 0);
  g_assert_cmpstr (zot_test_json_string_at (block, "type"), ==, "thinking");
  g_assert_cmpstr (zot_test_json_string_at (block, "thinking"), ==, "First this, then that. Both");
  g_assert_false (json_object_has_member (block, "signature"));
  g_assert_cmpstr (zot_test_json_string_at (reply_block (fixture, 1), "text"), ==, "The answer.");
}

/* Thought parts over several events are reasoning, not answer; a thought
 * without text is nothing; a level asks for the thoughts. */
static void
test_gemini_stream (Fixture       *fixture,
                    gconstpointer  data)
{
  const char *thoughts[] = {
    "data: {\"candidates\":[{\"index\":0,\"content\":{\"role\":\"model\",\"parts\":"
    "[{\"text\":\"**Planning**\\n\",\"thought\":true}]}}]}",
    "data: {\"candidates\":[{\"index\":0,\"content\":{\"role\":\"model\",\"parts\":"
    "[{\"text\":\"I look first.\",\"thought\":true},{\"thought\":true}]}}]}",
    "data: {\"candidates\":[{\"index\":0,\"content\":{\"role\":\"model\",\"parts\":"
    "[{\"text\":{\"no\":1},\"thought\":true}]}}]}",
    NULL
  };
  g_autoptr(ZotProviderRequest) request = zot_test_provider_request_new ("think");
  g_autofree char *text = NULL;
  JsonObject *block;

  zot_provider_set_reasoning (fixture->p.provider, ZOT_REASONING_HIGH);
  request->model = g_strdup ("gemini-2.5-flash");
  zot_test_provider_push_events (&fixture->p,
                                 insert_events (zot_fake_server_gemini_text ("Found it.", 5), 0, thoughts),
                                 FALSE);
  zot_test_provider_run_request (&fixture->p, request);
  g_assert_no_error (fixture->p.error);

  g_assert_true (json_node_get_boolean (zot_test_json_node_at (zot_fake_server_get_request_body (fixture->p.server, 0),
                                                               "generationConfig/thinkingConfig/includeThoughts")));
  g_assert_cmpstr (fixture->reasoning->str, ==, "**Planning**\nI look first.");
  g_assert_cmpuint (fixture->n_reasoning, ==, 2);
  text = zot_test_provider_joined_text (&fixture->p);
  g_assert_cmpstr (text, ==, "Found it.");

  g_assert_cmpuint (reply_length (fixture), ==, 2);
  block = reply_block (fixture, 0);
  g_assert_cmpstr (zot_test_json_string_at (block, "thinking"), ==, "**Planning**\nI look first.");
  g_assert_cmpstr (zot_test_json_string_at (reply_block (fixture, 1), "text"), ==, "Found it.");
}

/* One event of each API that carries @text as reasoning. */
static char *
reasoning_event (const char *provider,
                 const char *text)
{
  if (g_str_equal (provider, "anthropic"))
    return g_strdup_printf ("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                            "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"%s\"}}", text);
  if (g_str_equal (provider, "gemini"))
    return g_strdup_printf ("data: {\"candidates\":[{\"index\":0,\"content\":{\"role\":\"model\",\"parts\":"
                            "[{\"text\":\"%s\",\"thought\":true}]}}]}", text);
  return g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"%s\"}}]}", text);
}

/* A response whose reasoning is two halves of @total bytes, then @extra
 * more, then an answer. */
static GStrv
oversized (const char *provider,
           gsize       total,
           gsize       extra)
{
  g_autofree char *half = g_strnfill (total / 2, 'r');
  g_autofree char *rest = g_strnfill (total - total / 2 + extra, 's');
  g_autofree char *first = reasoning_event (provider, half);
  g_autofree char *second = reasoning_event (provider, rest);
  const char *extra_events[] = { first, second, NULL };
  const char *anthropic_start[] = {
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}",
    NULL
  };

  if (g_str_equal (provider, "anthropic"))
    {
      /* The answer's own block is index 0 there: the thinking goes first as 0, the text as 1. */
      const char *events[] = {
        ANTHROPIC_START, anthropic_start[0], first, second,
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
        "\"content_block\":{\"type\":\"text\",\"text\":\"done\"}}",
        ANTHROPIC_END, NULL
      };

      return g_strdupv ((char **) events);
    }
  if (g_str_equal (provider, "gemini"))
    return insert_events (zot_fake_server_gemini_text ("done", 10), 0, extra_events);
  return insert_events (zot_fake_server_openai_text ("done", 10), 1, extra_events);
}

/* Exactly ZOT_PROVIDER_REASONING_MAX_BYTES of reasoning is kept whole;
 * one byte more ends the turn with an error that names it. */
static void
test_limit (Fixture       *fixture,
            gconstpointer  data)
{
  const char *provider = data;

  zot_test_provider_push_events (&fixture->p, oversized (provider, ZOT_PROVIDER_REASONING_MAX_BYTES, 0), FALSE);
  zot_test_provider_run (&fixture->p);
  g_assert_no_error (fixture->p.error);
  g_assert_cmpuint (fixture->reasoning->len, ==, ZOT_PROVIDER_REASONING_MAX_BYTES);
  g_assert_cmpuint (strlen (zot_test_json_string_at (reply_block (fixture, 0), "thinking")), ==,
                    ZOT_PROVIDER_REASONING_MAX_BYTES);

  reset (fixture);
  zot_test_provider_push_events (&fixture->p, oversized (provider, ZOT_PROVIDER_REASONING_MAX_BYTES, 1), FALSE);
  zot_test_provider_run (&fixture->p);
  g_assert_error (fixture->p.error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_BAD_STREAM);
  g_assert_nonnull (strstr (fixture->p.error->message, "reasoning"));
  g_assert_null (fixture->p.reply);
  /* Only what fit was streamed. */
  g_assert_cmpuint (fixture->reasoning->len, ==, ZOT_PROVIDER_REASONING_MAX_BYTES / 2);
}

/* ------------------------------------------------------------------ */
/* With an agent and its session                                       */
/* ------------------------------------------------------------------ */

/* The shared agent fixture, and the reasoning its agent streamed. */
typedef struct
{
  ZotTestAgent  a;
  GString      *reasoning;
} AgentFixture;

static void
agent_setup (AgentFixture  *f,
             gconstpointer  data)
{
  zot_test_agent_setup (&f->a, data, NULL);
  f->reasoning = g_string_new (NULL);
}

static void
agent_teardown (AgentFixture  *f,
                gconstpointer  data)
{
  zot_test_agent_teardown (&f->a);
  g_string_free (f->reasoning, TRUE);
}

static void
on_agent_reasoning_delta (ZotAgent     *agent,
                          const char   *delta,
                          AgentFixture *f)
{
  g_string_append (f->reasoning, delta);
}

static void
agent_open (AgentFixture *f,
            ZotSession   *session)
{
  zot_test_agent_open (&f->a, session);
  g_signal_connect (f->a.agent, "reasoning-delta", G_CALLBACK (on_agent_reasoning_delta), f);
}

static char *
request_text (AgentFixture *f,
              guint         index)
{
  return zot_json_object_to_string (zot_fake_server_get_request_body (f->a.server, index));
}

/* An OpenAI-compatible server's reasoning: streamed by the agent, saved
 * with the message, there again when the session is opened again, and
 * sent to no provider: not back to the server, not to Anthropic (which
 * would refuse thinking it did not sign), not to Gemini. */
static void
test_session_openai (AgentFixture  *f,
                     gconstpointer  data)
{
  const char *reasoning[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"SECRET-PLAN \"}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"step two\"}}]}",
    NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) anthropic = NULL;
  g_autoptr(ZotProvider) gemini = NULL;
  g_autofree char *path = NULL;
  g_autofree char *file = NULL;
  g_autofree char *body = NULL;
  GPtrArray *messages;
  JsonObject *block;

  agent_open (f, zot_session_new (f->a.env.cwd, NULL, &error));
  g_assert_no_error (error);
  {
    g_auto(GStrv) events = insert_events (zot_fake_server_openai_text ("Planned.", 4), 1, reasoning);

    zot_fake_server_push_sse (f->a.server, (const char * const *) events, FALSE);
  }
  zot_test_agent_prompt (&f->a, "plan");
  g_assert_cmpstr (f->a.final_text, ==, "Planned.");
  g_assert_cmpstr (f->reasoning->str, ==, "SECRET-PLAN step two");

  messages = zot_agent_get_messages (f->a.agent);
  block = json_array_get_object_element (json_object_get_array_member (g_ptr_array_index (messages,
                                                                                         messages->len - 1),
                                                                       "content"), 0);
  g_assert_cmpstr (zot_test_json_string_at (block, "type"), ==, "thinking");
  g_assert_cmpstr (zot_test_json_string_at (block, "thinking"), ==, "SECRET-PLAN step two");

  path = g_strdup (zot_session_get_path (f->a.session));
  g_assert_true (g_file_get_contents (path, &file, NULL, NULL));
  g_assert_nonnull (strstr (file, "\"thinking\":\"SECRET-PLAN step two\""));

  /* Opened again: the reasoning is in the message, and goes nowhere. */
  zot_test_agent_close (&f->a);
  agent_open (f, zot_session_open (path, &error));
  g_assert_no_error (error);
  messages = zot_agent_get_messages (f->a.agent);
  block = json_array_get_object_element (json_object_get_array_member (g_ptr_array_index (messages,
                                                                                         messages->len - 1),
                                                                       "content"), 0);
  g_assert_cmpstr (zot_test_json_string_at (block, "thinking"), ==, "SECRET-PLAN step two");

  {
    g_auto(GStrv) events = zot_fake_server_openai_text ("Going on.", 10);

    zot_fake_server_push_sse (f->a.server, (const char * const *) events, FALSE);
  }
  zot_test_agent_prompt (&f->a, "go on");
  body = request_text (f, zot_fake_server_get_n_requests (f->a.server) - 1);
  g_assert_nonnull (strstr (body, "Planned."));
  g_assert_null (strstr (body, "SECRET-PLAN"));
  g_assert_null (strstr (body, "reasoning"));

  anthropic = zot_test_agent_provider (&f->a, "anthropic", "claude-sonnet-4-5");
  zot_agent_set_provider (f->a.agent, anthropic);
  {
    g_auto(GStrv) events = zot_fake_server_anthropic_text ("ok", 10);

    zot_fake_server_push_sse (f->a.server, (const char * const *) events, FALSE);
  }
  zot_test_agent_prompt (&f->a, "and Anthropic");
  g_clear_pointer (&body, g_free);
  body = request_text (f, zot_fake_server_get_n_requests (f->a.server) - 1);
  g_assert_nonnull (strstr (body, "Planned."));
  g_assert_null (strstr (body, "SECRET-PLAN"));
  g_assert_null (strstr (body, "thinking"));

  gemini = zot_test_agent_provider (&f->a, "gemini", "gemini-2.5-flash");
  zot_agent_set_provider (f->a.agent, gemini);
  {
    g_auto(GStrv) events = zot_fake_server_gemini_text ("ok", 10);

    zot_fake_server_push_sse (f->a.server, (const char * const *) events, FALSE);
  }
  zot_test_agent_prompt (&f->a, "and Gemini");
  g_clear_pointer (&body, g_free);
  body = request_text (f, zot_fake_server_get_n_requests (f->a.server) - 1);
  g_assert_nonnull (strstr (body, "Planned."));
  g_assert_null (strstr (body, "SECRET-PLAN"));
  zot_agent_set_provider (f->a.agent, f->a.provider);
}

/* Anthropic's signed thinking before a tool call goes back with it,
 * signature and all, in the same run and after the session is opened
 * again. */
static void
test_session_anthropic (AgentFixture  *f,
                        gconstpointer  data)
{
  const char *thinking_call[] = {
    ANTHROPIC_START,
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}",
    ANTHROPIC_THINKING_DELTA (0, "Read "),
    ANTHROPIC_THINKING_DELTA (0, "the file."),
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCkgIARABGAIiQ==\"}}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read\",\"input\":{}}}",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\"hello.txt\\\"}\"}}",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}",
    NULL,
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  JsonObject *body;
  JsonArray *sent;

  agent_open (f, zot_session_new (f->a.env.cwd, NULL, &error));
  g_assert_no_error (error);
  zot_fake_server_push_sse (f->a.server, thinking_call, FALSE);
  {
    g_auto(GStrv) events = zot_fake_server_anthropic_text ("It says hi.", 100);

    zot_fake_server_push_sse (f->a.server, (const char * const *) events, FALSE);
  }
  zot_test_agent_prompt (&f->a, "what does hello.txt say?");
  g_assert_cmpstr (f->a.final_text, ==, "It says hi.");
  g_assert_cmpstr (f->reasoning->str, ==, "Read the file.");

  body = zot_fake_server_get_request_body (f->a.server, 1);
  sent = json_node_get_array (zot_test_json_node_at (body, "messages/1/content"));
  g_assert_cmpuint (json_array_get_length (sent), ==, 2);
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 0), "thinking"), ==,
                   "Read the file.");
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 0), "signature"), ==,
                   "EqQBCkgIARABGAIiQ==");
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 1), "type"), ==, "tool_use");

  path = g_strdup (zot_session_get_path (f->a.session));
  zot_test_agent_close (&f->a);
  agent_open (f, zot_session_open (path, &error));
  g_assert_no_error (error);
  {
    g_auto(GStrv) events = zot_fake_server_anthropic_text ("Still hi.", 100);

    zot_fake_server_push_sse (f->a.server, (const char * const *) events, FALSE);
  }
  zot_test_agent_prompt (&f->a, "and now?");
  body = zot_fake_server_get_request_body (f->a.server, 2);
  sent = json_node_get_array (zot_test_json_node_at (body, "messages/1/content"));
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 0), "signature"), ==,
                   "EqQBCkgIARABGAIiQ==");
  g_assert_cmpstr (zot_test_json_string_at (json_array_get_object_element (sent, 0), "thinking"), ==,
                   "Read the file.");
}

/* `zot --json` with the demo model's think: lines: reasoning_delta
 * events between assistant_start and the text, and the reasoning left out
 * of assistant_message's content. */
static void
test_json_mode (void)
{
  ZotTestEnv env = { 0 };
  g_auto(ZotTestRun) run = { 0 };
  const char *argv[] = { g_getenv ("ZOT_BIN"), "--json", "--no-ext", "--no-session", "--provider", "demo",
                         "think: Check the files first, then write a long enough line to split.\nhello",
                         NULL };
  const char *env_pairs[] = { "ZOT_HOME", NULL, "ANTHROPIC_API_KEY", NULL, "OPENAI_API_KEY", NULL, "GEMINI_API_KEY", NULL, NULL };
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) types = g_string_new (NULL);
  g_autoptr(GString) reasoning = g_string_new (NULL);
  guint n_deltas = 0;

  zot_test_env_setup (&env);
  env_pairs[1] = env.home;
  zot_test_run_argv (&run, env.cwd, env_pairs, NULL, 30000, argv);
  g_assert_cmpint (run.status, ==, 0);

  lines = g_strsplit (run.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonObject) event = zot_json_object_from_string (lines[i], NULL);
      const char *type = event != NULL ? zot_json_get_string (event, "type") : NULL;

      if (type == NULL)
        continue;
      if (g_str_equal (type, "reasoning_delta"))
        {
          g_string_append (reasoning, zot_json_get_string (event, "delta"));
          if (n_deltas++ > 0)
            continue;
        }
      if (g_str_equal (type, "text_delta") && g_str_has_suffix (types->str, "text_delta"))
        continue;
      if (g_str_equal (type, "assistant_message"))
        g_assert_cmpuint (json_array_get_length (zot_json_get_array (event, "content")), ==, 1);
      g_string_append_printf (types, "%s%s", types->len > 0 ? " " : "", type);
    }

  g_assert_cmpuint (n_deltas, >, 1);
  g_assert_cmpstr (reasoning->str, ==, "Check the files first, then write a long enough line to split.");
  g_assert_cmpstr (types->str, ==,
                   "user_message turn_start assistant_start reasoning_delta text_delta assistant_message "
                   "usage turn_end done");
  zot_test_env_teardown (&env);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/zot/reasoning/anthropic/stream", Fixture, "anthropic", fixture_setup, test_anthropic_stream,
              fixture_teardown);
  g_test_add ("/zot/reasoning/openai/stream", Fixture, "openai", fixture_setup, test_openai_stream,
              fixture_teardown);
  g_test_add ("/zot/reasoning/gemini/stream", Fixture, "gemini", fixture_setup, test_gemini_stream,
              fixture_teardown);
  g_test_add ("/zot/reasoning/anthropic/limit", Fixture, "anthropic", fixture_setup, test_limit,
              fixture_teardown);
  g_test_add ("/zot/reasoning/openai/limit", Fixture, "openai", fixture_setup, test_limit,
              fixture_teardown);
  g_test_add ("/zot/reasoning/gemini/limit", Fixture, "gemini", fixture_setup, test_limit,
              fixture_teardown);
  g_test_add ("/zot/reasoning/session/openai", AgentFixture, "openai", agent_setup, test_session_openai,
              agent_teardown);
  g_test_add ("/zot/reasoning/session/anthropic", AgentFixture, "anthropic", agent_setup,
              test_session_anthropic, agent_teardown);

  g_test_add_func ("/zot/reasoning/json-mode", test_json_mode);

  return g_test_run ();
}
