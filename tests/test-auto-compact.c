/* test-auto-compact.c — automatic compaction against the fake server: at
 * the threshold of the context window and not below it, once after each
 * provider's "too long" answer and never twice, and not at all when off. */
#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-extension-manager.h"
#include "zot-fake-server.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-model-facts.h"
#include "zot-provider-table.h"
#include "zot-test-util.h"

/* The window of the model the user's models.json describes. */
#define WINDOW 1000

typedef struct
{
  ZotTestEnv       env;
  ZotFakeServer   *server;
  ZotToolRegistry *registry;
  ZotSession      *session;
  ZotAgent        *agent;
  GPtrArray       *notices;
  gboolean         done;
  GError          *error;
} Fixture;

static void
on_auto_compaction (ZotAgent   *agent,
                    const char *message,
                    Fixture    *f)
{
  g_ptr_array_add (f->notices, g_strdup (message));
}

static void
make_agent (Fixture    *f,
            const char *provider_name,
            const char *model)
{
  ZotProviderConfig config = { 0 };
  g_autoptr(ZotProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  config.name = g_strdup (provider_name);
  config.model = g_strdup (model);
  config.base_url = g_str_equal (provider_name, "openai")
                    ? g_strdup_printf ("%s/v1", zot_fake_server_get_url (f->server))
                    : g_strdup (zot_fake_server_get_url (f->server));
  config.api_key = g_strdup ("sk-test");
  provider = zot_provider_new_for_config (&config, &error);
  g_assert_no_error (error);
  zot_provider_config_clear (&config);

  f->registry = zot_tool_registry_new ();
  f->session = zot_session_new_in_memory (f->env.cwd);
  f->agent = zot_agent_new (provider, f->registry, f->session);
  g_signal_connect (f->agent, "auto-compaction", G_CALLBACK (on_auto_compaction), f);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *models = NULL;

  zot_test_env_setup (&f->env);
  models = g_build_filename (f->env.home, "models.json", NULL);
  g_assert_true (g_file_set_contents (models,
                                      "{\"models\": [{\"provider\": \"openai\", \"id\": \"tiny\", "
                                      "\"context_window\": 1000, \"max_output\": 100}]}", -1, NULL));
  zot_model_facts_reload ();
  f->server = zot_fake_server_new ();
  f->notices = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->agent != NULL)
    {
      g_signal_handlers_disconnect_by_data (f->agent, f);
      g_assert_finalize_object (g_steal_pointer (&f->agent));
    }
  g_clear_object (&f->session);
  g_clear_object (&f->registry);
  g_clear_pointer (&f->notices, g_ptr_array_unref);
  g_clear_pointer (&f->server, zot_fake_server_free);
  g_clear_error (&f->error);
  zot_test_env_teardown (&f->env);
  zot_model_facts_reload ();
}

static void
prompt_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *f = user_data;
  g_autofree char *text = zot_agent_prompt_finish (ZOT_AGENT (object), result, &f->error);

  f->done = TRUE;
}

static void
run_prompt (Fixture    *f,
            const char *text)
{
  f->done = FALSE;
  g_clear_error (&f->error);
  zot_agent_prompt_async (f->agent, text, NULL, prompt_cb, f);
  zot_test_wait_for (&f->done, 30000);
}

/* An OpenAI answer whose call read @prompt_tokens, @cached of them from
 * the cache. */
static void
push_openai_answer (Fixture    *f,
                    const char *text,
                    guint       prompt_tokens,
                    guint       cached)
{
  g_autofree char *content = g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"}}]}",
                                              text);
  g_autofree char *usage = g_strdup_printf ("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%u,"
                                            "\"completion_tokens\":5,\"prompt_tokens_details\":"
                                            "{\"cached_tokens\":%u}}}", prompt_tokens, cached);
  const char *events[] = {
    content,
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}",
    usage,
    "data: [DONE]",
    NULL,
  };

  zot_fake_server_push_sse (f->server, events, FALSE);
}

static const char *
last_text_of_request (Fixture *f,
                      guint    index,
                      char   **owned)
{
  JsonObject *body = zot_fake_server_get_request_body (f->server, index);
  JsonArray *messages = json_object_get_array_member (body, json_object_has_member (body, "contents")
                                                            ? "contents" : "messages");
  JsonNode *last = json_array_get_element (messages, json_array_get_length (messages) - 1);

  *owned = json_to_string (last, FALSE);
  return *owned;
}

static gboolean
is_compaction_request (Fixture *f,
                       guint    index)
{
  g_autofree char *last = NULL;

  /* The compaction prompt's first words, as any provider sends them. */
  return strstr (last_text_of_request (f, index, &last), "Summarise this conversation") != NULL;
}

/* Just below the threshold nothing happens; at it, the conversation is
 * compacted before the next model call, the prompt kept after the
 * summary, and the call made. */
static void
test_threshold (Fixture       *f,
                gconstpointer  data)
{
  guint below = WINDOW * ZOT_AUTO_COMPACT_DEFAULT_PERCENT / 100 - 1;
  GPtrArray *messages;
  g_autofree char *summary = NULL;
  g_autofree char *kept = NULL;

  make_agent (f, "openai", "tiny");
  g_assert_cmpuint (zot_agent_get_auto_compact (f->agent), ==, ZOT_AUTO_COMPACT_DEFAULT_PERCENT);

  push_openai_answer (f, "one", below, 300);
  run_prompt (f, "first");
  g_assert_no_error (f->error);
  push_openai_answer (f, "two", below + 1, 300);
  run_prompt (f, "second");
  g_assert_no_error (f->error);
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 2);
  g_assert_false (is_compaction_request (f, 1));
  g_assert_cmpuint (f->notices->len, ==, 0);

  /* The last call read 850 of 1000 tokens (300 from the cache). */
  push_openai_answer (f, "the summary: first, second", 100, 0);
  push_openai_answer (f, "three", 200, 0);
  run_prompt (f, "third");
  g_assert_no_error (f->error);
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 4);
  g_assert_true (is_compaction_request (f, 2));
  g_assert_false (is_compaction_request (f, 3));
  g_assert_cmpuint (f->notices->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->notices, 0), "85"));

  messages = zot_agent_get_messages (f->agent);
  g_assert_cmpuint (messages->len, ==, 3);
  g_assert_true (json_object_get_boolean_member (g_ptr_array_index (messages, 0), "summary"));
  summary = zot_message_get_text (g_ptr_array_index (messages, 0));
  g_assert_nonnull (strstr (summary, "the summary: first, second"));
  kept = zot_message_get_text (g_ptr_array_index (messages, 1));
  g_assert_cmpstr (kept, ==, "third");
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 2)), ==, "assistant");

  /* The summary's call is not a turn: it neither counts nor triggers. */
  push_openai_answer (f, "four", 100, 0);
  run_prompt (f, "fourth");
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 5);
  g_assert_cmpuint (f->notices->len, ==, 1);
}

/* Off: past the threshold nothing is compacted, and a "too long" answer
 * ends the turn. */
static void
test_off (Fixture       *f,
          gconstpointer  data)
{
  make_agent (f, "openai", "tiny");
  zot_agent_set_auto_compact (f->agent, 0);

  push_openai_answer (f, "one", WINDOW, 0);
  run_prompt (f, "first");
  zot_fake_server_push_json (f->server, 400,
                             "{\"error\":{\"message\":\"This model's maximum context length is 1000 tokens.\","
                             "\"code\":\"context_length_exceeded\"}}", NULL);
  run_prompt (f, "second");
  g_assert_error (f->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_HTTP);
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 2);
  g_assert_cmpuint (f->notices->len, ==, 0);
}

typedef struct
{
  const char *provider;
  const char *model;
  const char *too_long;
} Overflow;

static const Overflow overflows[] = {
  { "anthropic", "claude-sonnet-4-5",
    "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
    "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}" },
  { "openai", "gpt-4o-mini",
    "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your messages "
    "resulted in 130000 tokens. Please reduce the length of the messages.\",\"type\":\"invalid_request_error\","
    "\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}" },
  { "gemini", "gemini-2.5-flash",
    "{\"error\":{\"code\":400,\"message\":\"The input token count (1200000) exceeds the maximum number of "
    "tokens allowed (1048576).\",\"status\":\"INVALID_ARGUMENT\"}}" },
};

static void
push_text (Fixture    *f,
           const char *provider,
           const char *text)
{
  g_auto(GStrv) script = g_str_equal (provider, "anthropic") ? zot_fake_server_anthropic_text (text, 100)
                         : g_str_equal (provider, "gemini") ? zot_fake_server_gemini_text (text, 100)
                         : zot_fake_server_openai_text (text, 100);

  zot_fake_server_push_sse (f->server, (const char * const *) script, FALSE);
}

/* Each provider's "too long": compacted once and the call made again. A
 * second "too long" ends the turn with it: never a second compaction. */
static void
test_overflow (Fixture       *f,
               gconstpointer  data)
{
  for (guint i = 0; i < G_N_ELEMENTS (overflows); i++)
    {
      const Overflow *o = &overflows[i];
      GPtrArray *messages;

      g_test_message ("provider %s", o->provider);
      if (f->agent != NULL)
        {
          g_signal_handlers_disconnect_by_data (f->agent, f);
          g_assert_finalize_object (g_steal_pointer (&f->agent));
          g_clear_object (&f->session);
          g_clear_object (&f->registry);
          zot_fake_server_free (f->server);
          f->server = zot_fake_server_new ();
          g_ptr_array_set_size (f->notices, 0);
        }
      make_agent (f, o->provider, o->model);

      push_text (f, o->provider, "one");
      run_prompt (f, "first");
      g_assert_no_error (f->error);

      /* Refused, summarized, answered. */
      zot_fake_server_push_json (f->server, 400, o->too_long, NULL);
      push_text (f, o->provider, "the summary");
      push_text (f, o->provider, "two");
      run_prompt (f, "second");
      g_assert_no_error (f->error);
      g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 4);
      g_assert_true (is_compaction_request (f, 2));
      g_assert_false (is_compaction_request (f, 3));
      g_assert_cmpuint (f->notices->len, ==, 1);
      messages = zot_agent_get_messages (f->agent);
      g_assert_cmpuint (messages->len, ==, 3);
      g_assert_true (json_object_get_boolean_member (g_ptr_array_index (messages, 0), "summary"));

      /* Refused, summarized, refused again: the turn ends there. */
      zot_fake_server_push_json (f->server, 400, o->too_long, NULL);
      push_text (f, o->provider, "another summary");
      zot_fake_server_push_json (f->server, 400, o->too_long, NULL);
      push_text (f, o->provider, "never asked for");
      run_prompt (f, "third");
      g_assert_error (f->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_HTTP);
      g_assert_true (zot_model_error_is_context_overflow (f->error));
      g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 7);
      g_assert_true (is_compaction_request (f, 5));
      g_assert_cmpuint (f->notices->len, ==, 2);
    }
}

/* Other refusals are not "too long". */
static void
test_not_overflow (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) rate = g_error_new_literal (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_RATE_LIMITED,
                                                "rate limited (429) after 3 tries: maximum context length");
  g_autoptr(GError) other = g_error_new_literal (ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_HTTP,
                                                 "http://x answered 400: max_tokens is too large");
  g_autoptr(GError) io = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "prompt is too long");

  g_assert_false (zot_model_error_is_context_overflow (rate));
  g_assert_false (zot_model_error_is_context_overflow (other));
  g_assert_false (zot_model_error_is_context_overflow (io));
  g_assert_false (zot_model_error_is_context_overflow (NULL));
}

static void
on_lifecycle_event (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *frame,
                    GPtrArray           *events)
{
  if (g_str_has_suffix (name, "_compact"))
    g_ptr_array_add (events, g_strdup_printf ("%s %s %s", name,
                                              json_object_get_string_member (frame, "compaction_id"),
                                              zot_json_get_string_or (frame, "status", "-")));
}

/* Both ways in, past the threshold and after a "too long", extensions see
 * the paired pre_compact and post_compact that /compact has. */
static void
test_paired_events (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotExtensionManager) manager = zot_extension_manager_new ();
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) first = NULL;
  g_auto(GStrv) second = NULL;

  make_agent (f, "openai", "tiny");
  zot_agent_set_extension_manager (f->agent, manager);
  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (on_lifecycle_event), events);

  push_openai_answer (f, "one", WINDOW * ZOT_AUTO_COMPACT_DEFAULT_PERCENT / 100, 0);
  run_prompt (f, "first");
  push_openai_answer (f, "the summary", 100, 0);
  push_openai_answer (f, "two", 100, 0);
  run_prompt (f, "second");
  g_assert_no_error (f->error);

  zot_fake_server_push_json (f->server, 400, overflows[1].too_long, NULL);
  push_openai_answer (f, "the summary again", 100, 0);
  push_openai_answer (f, "three", 100, 0);
  run_prompt (f, "third");
  g_assert_no_error (f->error);

  g_assert_cmpuint (f->notices->len, ==, 2);
  g_assert_cmpuint (events->len, ==, 4);
  for (guint i = 0; i < 4; i += 2)
    {
      g_auto(GStrv) pre = g_strsplit (g_ptr_array_index (events, i), " ", -1);
      g_auto(GStrv) post = g_strsplit (g_ptr_array_index (events, i + 1), " ", -1);

      g_assert_cmpstr (pre[0], ==, "pre_compact");
      g_assert_cmpstr (post[0], ==, "post_compact");
      g_assert_cmpstr (pre[1], ==, post[1]);
      g_assert_cmpstr (post[2], ==, "completed");
    }
  first = g_strsplit (g_ptr_array_index (events, 0), " ", -1);
  second = g_strsplit (g_ptr_array_index (events, 2), " ", -1);
  g_assert_cmpstr (first[1], !=, second[1]);
  g_signal_handlers_disconnect_by_data (manager, events);
  zot_agent_set_extension_manager (f->agent, NULL);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/auto-compact/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("threshold", test_threshold);
  ADD ("off", test_off);
  ADD ("overflow", test_overflow);
  ADD ("not-overflow", test_not_overflow);
  ADD ("paired-events", test_paired_events);

#undef ADD

  return g_test_run ();
}
