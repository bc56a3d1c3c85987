/* test-agent.c — the loop with the demo model and a scripted server:
 * event order, tool batches, aborts, the queue, compaction, limits, and
 * the running and usage properties. */
#include "config.h"

#include <glib/gstdio.h>
#include <sys/stat.h>

#include "zot-agent.h"
#include "zot-builtin-tools.h"
#include "zot-demo-provider.h"
#include "zot-fake-server.h"
#include "zot-message.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv       env;
  ZotToolRegistry *registry;
  ZotSession      *session;
  ZotAgent        *agent;
  GPtrArray       *log;       /* one string per signal, in order */
  gboolean         done;
  char            *final_text;
  GError          *error;
  guint            n_tool_calls;
  gboolean         abort_on_tool_call;
  gboolean         abort_on_delta;
  ZotSession      *switch_to;  /* the agent's next session, on a tool call */
} Fixture;

static void
on_user_message (ZotAgent *agent, JsonObject *message, Fixture *f)
{
  g_autofree char *text = zot_message_get_text (message);
  g_ptr_array_add (f->log, g_strdup_printf ("user %s", text));
}

static void
on_turn_start (ZotAgent *agent, guint step, Fixture *f)
{
  g_ptr_array_add (f->log, g_strdup_printf ("turn_start %u", step));
}

static void
on_assistant_start (ZotAgent *agent, Fixture *f)
{
  g_ptr_array_add (f->log, g_strdup ("assistant_start"));
}

static void
on_text_delta (ZotAgent *agent, const char *delta, Fixture *f)
{
  /* Deltas are many; one entry for a run of them keeps the log readable. */
  if (f->log->len == 0 || !g_str_equal (g_ptr_array_index (f->log, f->log->len - 1), "text_delta"))
    g_ptr_array_add (f->log, g_strdup ("text_delta"));
  if (f->abort_on_delta)
    zot_agent_abort (agent);
}

static void
on_tool_call (ZotAgent *agent, const char *id, const char *name, JsonObject *args, Fixture *f)
{
  g_ptr_array_add (f->log, g_strdup_printf ("tool_call %s", name));
  f->n_tool_calls++;
  if (f->abort_on_tool_call)
    zot_agent_abort (agent);
  if (f->switch_to != NULL)
    zot_agent_set_session (agent, f->switch_to);
}

static void
on_tool_result (ZotAgent *agent, const char *id, const char *name, ZotToolResult *result, Fixture *f)
{
  g_ptr_array_add (f->log, g_strdup_printf ("tool_result %s %s %s", name,
                                            result->is_error ? "error" : "ok",
                                            zot_tool_outcome_to_string (result->outcome)));
}

static void
on_assistant_message (ZotAgent *agent, JsonObject *message, Fixture *f)
{
  g_ptr_array_add (f->log, g_strdup ("assistant_message"));
}

static void
on_usage (ZotAgent *agent, gint64 in, gint64 out, Fixture *f)
{
  g_ptr_array_add (f->log, g_strdup ("usage"));
}

static void
on_turn_end (ZotAgent *agent, const char *stop, const char *error, Fixture *f)
{
  g_ptr_array_add (f->log, g_strdup_printf ("turn_end %s", stop));
}

static void
make_agent (Fixture     *f,
            ZotProvider *provider)
{
  g_autoptr(GPtrArray) builtins = zot_builtin_tools_new ();

  f->registry = zot_tool_registry_new ();
  for (guint i = 0; i < builtins->len; i++)
    g_assert_true (zot_tool_registry_add (f->registry, g_ptr_array_index (builtins, i), NULL));

  if (f->session == NULL)
    f->session = zot_session_new_in_memory (f->env.cwd);
  f->agent = zot_agent_new (provider, f->registry, f->session);

  g_signal_connect (f->agent, "user-message", G_CALLBACK (on_user_message), f);
  g_signal_connect (f->agent, "turn-start", G_CALLBACK (on_turn_start), f);
  g_signal_connect (f->agent, "assistant-start", G_CALLBACK (on_assistant_start), f);
  g_signal_connect (f->agent, "text-delta", G_CALLBACK (on_text_delta), f);
  g_signal_connect (f->agent, "tool-call", G_CALLBACK (on_tool_call), f);
  g_signal_connect (f->agent, "tool-result", G_CALLBACK (on_tool_result), f);
  g_signal_connect (f->agent, "assistant-message", G_CALLBACK (on_assistant_message), f);
  g_signal_connect (f->agent, "usage", G_CALLBACK (on_usage), f);
  g_signal_connect (f->agent, "turn-end", G_CALLBACK (on_turn_end), f);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(ZotProvider) demo = zot_demo_provider_new ();

  zot_test_env_setup (&f->env);
  f->log = g_ptr_array_new_with_free_func (g_free);
  if (data == NULL)
    make_agent (f, demo);
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
  g_clear_pointer (&f->log, g_ptr_array_unref);
  g_clear_pointer (&f->final_text, g_free);
  g_clear_error (&f->error);
  zot_test_env_teardown (&f->env);
}

static void
prompt_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *f = user_data;

  f->final_text = zot_agent_prompt_finish (ZOT_AGENT (object), result, &f->error);
  f->done = TRUE;
}

static void
run_prompt (Fixture    *f,
            const char *text)
{
  f->done = FALSE;
  g_clear_pointer (&f->final_text, g_free);
  g_clear_error (&f->error);
  zot_agent_prompt_async (f->agent, text, NULL, prompt_cb, f);
  zot_test_wait_for (&f->done, 30000);
}

static char *
log_string (Fixture *f)
{
  g_ptr_array_add (f->log, NULL);
  {
    char *joined = g_strjoinv ("\n", (char **) f->log->pdata);
    g_ptr_array_set_size (f->log, f->log->len - 1);
    return joined;
  }
}

static void
assert_log (Fixture    *f,
            const char *expected)
{
  g_autofree char *actual = log_string (f);

  g_assert_cmpstr (actual, ==, expected);
}

static char *
cwd_file (Fixture    *f,
          const char *name)
{
  return g_build_filename (f->env.cwd, name, NULL);
}

/* Cases */

static void
test_text_turn (Fixture       *f,
                gconstpointer  data)
{
  GPtrArray *messages;

  run_prompt (f, "hello there");
  g_assert_no_error (f->error);
  g_assert_nonnull (strstr (f->final_text, "You said: hello there"));
  g_assert_nonnull (strstr (f->final_text, "demo model"));

  assert_log (f,
              "user hello there\n"
              "turn_start 1\n"
              "assistant_start\n"
              "text_delta\n"
              "assistant_message\n"
              "usage\n"
              "turn_end end_turn");

  messages = zot_agent_get_messages (f->agent);
  g_assert_cmpuint (messages->len, ==, 2);
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 0)), ==, "user");
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 1)), ==, "assistant");
  g_assert_true (json_object_has_member (g_ptr_array_index (messages, 1), "usage"));
}

static void
test_tool_batch_order (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *path = cwd_file (f, "notes.txt");
  g_autofree char *contents = NULL;
  GPtrArray *messages;
  JsonObject *tool_message;

  /* write, then edit of the same file: tools that change files run one at
   * a time, in order, so the edit sees the write. */
  run_prompt (f,
              "tool: write {\"path\":\"notes.txt\",\"content\":\"one two\"}\n"
              "tool: edit {\"path\":\"notes.txt\",\"old_text\":\"two\",\"new_text\":\"three\"}");
  g_assert_no_error (f->error);

  assert_log (f,
              "user tool: write {\"path\":\"notes.txt\",\"content\":\"one two\"}\n"
              "tool: edit {\"path\":\"notes.txt\",\"old_text\":\"two\",\"new_text\":\"three\"}\n"
              "turn_start 1\n"
              "assistant_start\n"
              "text_delta\n"
              "assistant_message\n"
              "usage\n"
              "turn_end tool_use\n"
              "tool_call write\n"
              "tool_call edit\n"
              "tool_result write ok completed\n"
              "tool_result edit ok completed\n"
              "turn_start 2\n"
              "assistant_start\n"
              "text_delta\n"
              "assistant_message\n"
              "usage\n"
              "turn_end end_turn");

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "one three");

  messages = zot_agent_get_messages (f->agent);
  g_assert_cmpuint (messages->len, ==, 4);
  tool_message = g_ptr_array_index (messages, 2);
  g_assert_cmpstr (zot_message_get_role (tool_message), ==, "tool");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (tool_message, "content")), ==, 2);
  g_assert_nonnull (strstr (f->final_text, "2 tool calls finished"));
}

/* The agent goes on to another conversation in the middle of a run: the
 * run's result and reply still go to the one it started in, and the other
 * gets nothing that starts with a result without its call. */
static void
test_run_keeps_session (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(ZotSession) other = zot_session_new_in_memory (f->env.cwd);
  GPtrArray *messages;

  f->switch_to = other;
  run_prompt (f, "tool: bash {\"command\":\"echo kept\"}");
  f->switch_to = NULL;
  g_assert_no_error (f->error);
  g_assert_true (zot_agent_get_session (f->agent) == other);

  g_assert_cmpuint (zot_session_get_messages (other)->len, ==, 0);
  messages = zot_session_get_messages (f->session);
  g_assert_cmpuint (messages->len, ==, 4);
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 0)), ==, "user");
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 1)), ==, "assistant");
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 2)), ==, "tool");
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 3)), ==, "assistant");
}

static void
test_tool_batch_concurrent (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *fifo = cwd_file (f, "rendezvous");

  /* Each call blocks until the other runs: only a concurrent batch ends. */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_BASH, 10000);

  run_prompt (f,
              "tool: bash {\"command\":\"echo ping > rendezvous\"}\n"
              "tool: bash {\"command\":\"cat rendezvous\"}");
  g_assert_no_error (f->error);
  g_assert_cmpuint (f->n_tool_calls, ==, 2);
  g_assert_nonnull (strstr (f->final_text, "ping"));
  g_assert_null (strstr (f->final_text, "failed"));
}

static void
test_unknown_and_malformed (Fixture       *f,
                            gconstpointer  data)
{
  run_prompt (f, "tool: frobnicate {}\ntool: read {not json");
  g_assert_no_error (f->error);
  g_assert_true (g_ptr_array_find_with_equal_func (f->log, "tool_result frobnicate error failed", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (f->log, "tool_result read error failed", g_str_equal, NULL));
  g_assert_nonnull (strstr (f->final_text, "no tool named"));
  g_assert_nonnull (strstr (f->final_text, "not a valid JSON object"));
}

static void
test_max_steps (Fixture       *f,
                gconstpointer  data)
{
  zot_agent_set_max_steps (f->agent, 1);
  run_prompt (f, "tool: bash {\"command\":\"true\"}");
  g_assert_error (f->error, ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_MAX_STEPS);
  g_assert_nonnull (strstr (f->error->message, "--max-steps"));
  g_assert_true (g_ptr_array_find_with_equal_func (f->log, "turn_end max_steps", g_str_equal, NULL));
  /* The tool ran and its result is in the transcript: it stays valid. */
  g_assert_cmpuint (zot_agent_get_messages (f->agent)->len, ==, 3);
}

static void
test_abort_during_tools (Fixture       *f,
                         gconstpointer  data)
{
  GPtrArray *messages;
  gint64 start = g_get_monotonic_time ();

  f->abort_on_tool_call = TRUE;
  run_prompt (f, "tool: bash {\"command\":\"sleep 30\"}\ntool: read {\"path\":\"x\"}");
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);

  /* Each call got its terminal result, then the aborted turn end. */
  g_assert_true (g_ptr_array_find_with_equal_func (f->log, "tool_result bash error cancelled", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (f->log, "tool_result read error cancelled", g_str_equal, NULL));
  g_assert_cmpstr (g_ptr_array_index (f->log, f->log->len - 1), ==, "turn_end aborted");

  messages = zot_agent_get_messages (f->agent);
  g_assert_cmpuint (messages->len, ==, 3);
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 2)), ==, "tool");

  /* The agent takes the next prompt. */
  f->abort_on_tool_call = FALSE;
  run_prompt (f, "again");
  g_assert_no_error (f->error);
}

static void
test_abort_during_stream (Fixture       *f,
                          gconstpointer  data)
{
  f->abort_on_delta = TRUE;
  run_prompt (f, "a long answer please");
  g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (g_ptr_array_index (f->log, f->log->len - 1), ==, "turn_end aborted");
  g_assert_false (g_ptr_array_find_with_equal_func (f->log, "assistant_message", g_str_equal, NULL));
}

static void
queue_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  GPtrArray *finished = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = zot_agent_prompt_finish (ZOT_AGENT (object), result, &error);

  g_assert_no_error (error);
  g_ptr_array_add (finished, g_steal_pointer (&text));
}

static gboolean
two_finished (gpointer data)
{
  return ((GPtrArray *) data)->len == 2;
}

static void
test_queue (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GPtrArray) finished = g_ptr_array_new_with_free_func (g_free);

  zot_agent_prompt_async (f->agent, "first", NULL, queue_cb, finished);
  zot_agent_prompt_async (f->agent, "second", NULL, queue_cb, finished);
  g_assert_true (zot_agent_is_running (f->agent));
  g_assert_cmpuint (zot_agent_get_queue_length (f->agent), ==, 1);

  zot_test_wait_until (two_finished, finished, 30000);
  g_assert_nonnull (strstr (g_ptr_array_index (finished, 0), "first"));
  g_assert_nonnull (strstr (g_ptr_array_index (finished, 1), "second"));
  g_assert_cmpuint (zot_agent_get_messages (f->agent)->len, ==, 4);
}

static void
compact_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ZotCompaction **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = zot_agent_compact_finish (ZOT_AGENT (object), result, &error);
  g_assert_no_error (error);
}

static gboolean
compaction_done (gpointer data)
{
  return *(ZotCompaction **) data != NULL;
}

static void
test_compact (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(ZotCompaction) compaction = NULL;
  GPtrArray *messages;
  g_autofree char *summary = NULL;
  guint64 bytes = 0;

  run_prompt (f, "remember the red door");
  run_prompt (f, "and the blue key");

  messages = zot_agent_get_messages (f->agent);
  for (guint i = 0; i < messages->len; i++)
    bytes += zot_message_estimate_bytes (g_ptr_array_index (messages, i));

  zot_agent_compact_async (f->agent, NULL, compact_cb, &compaction);
  zot_test_wait_until (compaction_done, &compaction, 30000);

  g_assert_cmpuint (compaction->message_count, ==, 4);
  g_assert_cmpuint (compaction->token_estimate, ==, bytes / 4);
  g_assert_cmpuint (compaction->after_count, ==, 1);
  g_assert_nonnull (compaction->id);

  messages = zot_agent_get_messages (f->agent);
  g_assert_cmpuint (messages->len, ==, 1);
  summary = zot_message_get_text (g_ptr_array_index (messages, 0));
  g_assert_nonnull (strstr (summary, "remember the red door"));
  g_assert_nonnull (strstr (summary, "and the blue key"));
  g_assert_true (json_object_get_boolean_member (g_ptr_array_index (messages, 0), "summary"));
}

static void
test_compact_empty (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotCompaction) compaction = NULL;

  zot_agent_compact_async (f->agent, NULL, compact_cb, &compaction);
  zot_test_wait_until (compaction_done, &compaction, 30000);
  g_assert_cmpuint (compaction->message_count, ==, 0);
  g_assert_cmpuint (compaction->after_count, ==, 0);
}

static void
test_allowed_tools (Fixture       *f,
                    gconstpointer  data)
{
  const char *only_read[] = { "read", NULL };
  g_autoptr(JsonArray) definitions = NULL;
  g_autofree char *made = cwd_file (f, "made-it");

  zot_tool_registry_set_allowed (f->registry, only_read);
  definitions = zot_tool_registry_definitions (f->registry);
  g_assert_cmpuint (json_array_get_length (definitions), ==, 1);

  run_prompt (f, "tool: bash {\"command\":\"touch made-it\"}");
  g_assert_no_error (f->error);
  g_assert_true (g_ptr_array_find_with_equal_func (f->log, "tool_result bash error blocked", g_str_equal, NULL));
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
}

static void
test_system_prompt_cache (Fixture       *f,
                          gconstpointer  data)
{
  const char *append[] = { "Always answer in haiku.", NULL };
  g_autoptr(ZotProvider) other = zot_demo_provider_new ();
  const char *first;

  zot_agent_set_system_prompt_override (f->agent, NULL, append);
  first = zot_agent_get_system_prompt (f->agent);
  g_assert_nonnull (strstr (first, "Always answer in haiku."));
  /* Reused until a rebuild. */
  g_assert_true (zot_agent_get_system_prompt (f->agent) == first);

  zot_agent_set_provider (f->agent, other);
  g_assert_nonnull (strstr (zot_agent_get_system_prompt (f->agent), "Always answer in haiku."));

  zot_agent_set_system_prompt_override (f->agent, "You are terse.", NULL);
  g_assert_cmpstr (zot_agent_get_system_prompt (f->agent), ==, "You are terse.");
}

static void
test_session_write_failure (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) demo = zot_demo_provider_new ();

  f->session = zot_session_new (f->env.cwd, "/dev/full", &error);
  g_assert_no_error (error);
  make_agent (f, demo);

  run_prompt (f, "this cannot be saved");
  g_assert_error (f->error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_WRITE);
  g_assert_nonnull (strstr (f->error->message, "/dev/full"));
  g_assert_false (zot_agent_is_running (f->agent));
}

static void
test_session_persisted (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotProvider) demo = zot_demo_provider_new ();
  g_autoptr(ZotSession) reopened = NULL;
  g_autofree char *path = NULL;

  f->session = zot_session_new (f->env.cwd, NULL, &error);
  g_assert_no_error (error);
  make_agent (f, demo);

  run_prompt (f, "tool: bash {\"command\":\"echo persisted\"}");
  g_assert_no_error (f->error);

  /* Every message was on disk before the run finished. The agent's
   * session still holds the file, so it is read as another reader would. */
  path = g_strdup (zot_session_get_path (f->session));
  reopened = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (reopened)->len, ==, 4);
}

static ZotProvider *
new_openai_provider (ZotFakeServer *server)
{
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(GError) error = NULL;
  ZotProvider *provider;

  config.name = g_strdup ("openai");
  config.base_url = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  config.model = g_strdup ("test-model");
  provider = zot_provider_new_for_config (&config, &error);
  g_assert_no_error (error);
  return provider;
}

/* The agent goes before the server, so that its provider's requests are
 * over when the server stops. */
static void
finish_with_server (Fixture        *f,
                    ZotProvider   **provider,
                    ZotFakeServer  *server)
{
  g_signal_handlers_disconnect_by_data (f->agent, f);
  g_assert_finalize_object (g_steal_pointer (&f->agent));
  g_clear_object (provider);
  zot_fake_server_free (server);
}

/* A real provider path: OpenAI-compatible server, tool call, result sent back. */
static void
test_openai_round_trip (Fixture       *f,
                        gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_auto(GStrv) first = zot_fake_server_openai_tool_calls ("read", "{\"path\":\"hello.txt\"}", NULL, NULL, 5);
  g_auto(GStrv) second = zot_fake_server_openai_text ("The file says hi.", 4);
  g_autoptr(ZotProvider) provider = NULL;
  g_autofree char *hello = cwd_file (f, "hello.txt");
  g_autofree char *body = NULL;
  JsonObject *request;
  JsonArray *messages;

  g_file_set_contents (hello, "hi from disk", -1, NULL);
  zot_fake_server_push_sse (server, (const char * const *) first, FALSE);
  zot_fake_server_push_sse (server, (const char * const *) second, FALSE);

  provider = new_openai_provider (server);
  make_agent (f, provider);

  run_prompt (f, "what does hello.txt say?");
  g_assert_no_error (f->error);
  g_assert_cmpstr (f->final_text, ==, "The file says hi.");
  g_assert_cmpuint (zot_fake_server_get_n_requests (server), ==, 2);

  /* The second request carries the tool result back to the model. */
  request = zot_fake_server_get_request_body (server, 1);
  g_assert_cmpstr (json_object_get_string_member (request, "model"), ==, "test-model");
  messages = json_object_get_array_member (request, "messages");
  body = zot_json_to_string (json_object_get_member (request, "messages"));
  g_assert_nonnull (strstr (body, "hi from disk"));
  g_assert_nonnull (strstr (body, "\"role\":\"tool\""));
  g_assert_cmpuint (json_array_get_length (messages), >=, 4);

  finish_with_server (f, &provider, server);
}

/* A stream that reports no usage (many compatible servers) is a normal
 * turn: it used to log a Json-CRITICAL on every turn, fatal here. */
static void
test_stream_without_usage (Fixture       *f,
                           gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  const char *events[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"no usage here\"},\"finish_reason\":null}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}",
    "data: [DONE]",
    NULL
  };
  g_autoptr(ZotProvider) provider = NULL;

  zot_fake_server_push_sse (server, events, FALSE);
  provider = new_openai_provider (server);
  make_agent (f, provider);

  run_prompt (f, "hello");
  g_assert_no_error (f->error);
  g_assert_cmpstr (f->final_text, ==, "no usage here");

  finish_with_server (f, &provider, server);
}

static void
test_provider_error_ends_turn (Fixture       *f,
                               gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_auto(ZotProviderConfig) config = { 0 };
  g_autoptr(ZotProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  zot_fake_server_push_json (server, 401, "{\"error\":{\"message\":\"bad key\"}}", NULL);
  config.name = g_strdup ("openai");
  config.base_url = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  config.api_key = g_strdup ("sk-wrong");
  config.api_key_source = g_strdup ("--api-key");
  provider = zot_provider_new_for_config (&config, &error);
  g_assert_no_error (error);
  make_agent (f, provider);

  run_prompt (f, "hi");
  g_assert_error (f->error, ZOT_PROVIDER_ERROR, ZOT_PROVIDER_ERROR_AUTH);
  g_assert_nonnull (strstr (f->error->message, "--api-key"));
  g_assert_cmpstr (g_ptr_array_index (f->log, f->log->len - 1), ==, "turn_end error");

  finish_with_server (f, &provider, server);
}

/* Properties */

static void
on_running_notify (ZotAgent   *agent,
                   GParamSpec *pspec,
                   Fixture    *f)
{
  gboolean running = FALSE;

  g_object_get (agent, "running", &running, NULL);
  g_assert_cmpint (running, ==, zot_agent_is_running (agent));
  g_ptr_array_add (f->log, g_strdup_printf ("notify running %s", running ? "true" : "false"));
}

static void
on_usage_notify (ZotAgent   *agent,
                 GParamSpec *pspec,
                 Fixture    *f)
{
  g_ptr_array_add (f->log, g_strdup ("notify usage"));
}

static void
watch_properties (Fixture *f)
{
  g_signal_connect (f->agent, "notify::running", G_CALLBACK (on_running_notify), f);
  g_signal_connect (f->agent, "notify::usage", G_CALLBACK (on_usage_notify), f);
}

static guint
count_log (Fixture    *f,
           const char *entry)
{
  guint n = 0;

  for (guint i = 0; i < f->log->len; i++)
    if (g_str_equal (g_ptr_array_index (f->log, i), entry))
      n++;
  return n;
}

static void
assert_usage (ZotAgent *agent,
              gint64    input_tokens,
              gint64    output_tokens,
              gint64    total_input_tokens,
              gint64    total_output_tokens)
{
  const ZotUsage *usage = zot_agent_get_usage (agent);
  g_autoptr(ZotUsage) copy = NULL;

  g_assert_cmpint (usage->input_tokens, ==, input_tokens);
  g_assert_cmpint (usage->output_tokens, ==, output_tokens);
  g_assert_cmpint (usage->total_input_tokens, ==, total_input_tokens);
  g_assert_cmpint (usage->total_output_tokens, ==, total_output_tokens);

  /* The property gives the same, as a copy. */
  g_object_get (agent, "usage", &copy, NULL);
  g_assert_nonnull (copy);
  g_assert_true (copy != usage);
  g_assert_true (zot_usage_equal (copy, usage));
}

/* One notification when the run starts, before anything of it is seen,
 * and one when it ends, after its last event; none for what changes
 * nothing. */
static void
test_running_notify (Fixture       *f,
                     gconstpointer  data)
{
  watch_properties (f);

  g_assert_false (zot_agent_is_running (f->agent));
  zot_agent_abort (f->agent);
  g_assert_cmpuint (f->log->len, ==, 0);

  run_prompt (f, "hello there");
  g_assert_no_error (f->error);
  assert_log (f,
              "notify running true\n"
              "user hello there\n"
              "turn_start 1\n"
              "assistant_start\n"
              "text_delta\n"
              "assistant_message\n"
              "notify usage\n"
              "usage\n"
              "turn_end end_turn\n"
              "notify running false");

  /* Aborting with nothing to abort is no transition. */
  zot_agent_abort (f->agent);
  g_assert_cmpuint (count_log (f, "notify running false"), ==, 1);
}

/* A prompt queued behind a run changes nothing until it starts; each run
 * then starts and ends once. */
static void
test_running_notify_queue (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GPtrArray) finished = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) transitions = g_ptr_array_new ();

  watch_properties (f);

  zot_agent_prompt_async (f->agent, "first", NULL, queue_cb, finished);
  g_assert_cmpuint (count_log (f, "notify running true"), ==, 1);
  zot_agent_prompt_async (f->agent, "second", NULL, queue_cb, finished);
  g_assert_cmpuint (count_log (f, "notify running true"), ==, 1);
  g_assert_cmpuint (count_log (f, "notify running false"), ==, 0);

  zot_test_wait_until (two_finished, finished, 30000);
  g_assert_false (zot_agent_is_running (f->agent));

  for (guint i = 0; i < f->log->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (f->log, i), "notify running "))
      g_ptr_array_add (transitions, g_ptr_array_index (f->log, i));
  g_assert_cmpuint (transitions->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (transitions, 0), ==, "notify running true");
  g_assert_cmpstr (g_ptr_array_index (transitions, 1), ==, "notify running false");
  g_assert_cmpstr (g_ptr_array_index (transitions, 2), ==, "notify running true");
  g_assert_cmpstr (g_ptr_array_index (transitions, 3), ==, "notify running false");

  /* One usage change per model turn. */
  g_assert_cmpuint (count_log (f, "notify usage"), ==, 2);
}

/* Each model turn that reports tokens changes the usage once: the last
 * turn's figures and the sums. A turn that reports none, after none
 * before, changes nothing and does not notify. */
static void
test_usage_notify (Fixture       *f,
                   gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_auto(GStrv) first = zot_fake_server_openai_text ("one", 8);
  g_auto(GStrv) second = zot_fake_server_openai_text ("two", 8);
  const char *silent[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"no usage\"},\"finish_reason\":\"stop\"}]}",
    "data: [DONE]",
    NULL
  };
  g_autoptr(ZotProvider) provider = new_openai_provider (server);

  zot_fake_server_push_sse (server, silent, FALSE);
  zot_fake_server_push_sse (server, (const char * const *) first, FALSE);
  zot_fake_server_push_sse (server, (const char * const *) second, FALSE);
  make_agent (f, provider);
  watch_properties (f);
  assert_usage (f->agent, -1, -1, 0, 0);

  run_prompt (f, "say nothing of tokens");
  g_assert_no_error (f->error);
  g_assert_cmpuint (count_log (f, "notify usage"), ==, 0);
  assert_usage (f->agent, -1, -1, 0, 0);

  run_prompt (f, "one");
  g_assert_no_error (f->error);
  g_assert_cmpuint (count_log (f, "notify usage"), ==, 1);
  assert_usage (f->agent, ZOT_FAKE_SERVER_INPUT_TOKENS, ZOT_FAKE_SERVER_OUTPUT_TOKENS,
                ZOT_FAKE_SERVER_INPUT_TOKENS, ZOT_FAKE_SERVER_OUTPUT_TOKENS);

  run_prompt (f, "two");
  g_assert_no_error (f->error);
  g_assert_cmpuint (count_log (f, "notify usage"), ==, 2);
  assert_usage (f->agent, ZOT_FAKE_SERVER_INPUT_TOKENS, ZOT_FAKE_SERVER_OUTPUT_TOKENS,
                2 * ZOT_FAKE_SERVER_INPUT_TOKENS, 2 * ZOT_FAKE_SERVER_OUTPUT_TOKENS);

  finish_with_server (f, &provider, server);
}

static void
append_assistant (ZotSession *session,
                  const char *usage_json)
{
  g_autoptr(JsonObject) message = zot_message_new_assistant_text ("earlier");

  if (usage_json != NULL)
    {
      g_autoptr(JsonObject) wrapper = zot_json_object_from_string (usage_json, NULL);

      g_assert_nonnull (wrapper);
      json_object_set_member (message, "usage",
                              json_node_copy (json_object_get_member (wrapper, "usage")));
    }
  zot_session_append_message_async (session, message, NULL, NULL, NULL);
}

/* A session brings the usage of its stored turns; a session that brings
 * the same as before does not notify. Damaged figures count as unknown. */
static void
test_usage_from_session (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(ZotSession) empty = zot_session_new_in_memory (f->env.cwd);
  g_autoptr(ZotSession) resumed = zot_session_new_in_memory (f->env.cwd);

  watch_properties (f);

  zot_agent_set_session (f->agent, empty);
  g_assert_cmpuint (count_log (f, "notify usage"), ==, 0);
  assert_usage (f->agent, -1, -1, 0, 0);

  append_assistant (resumed, "{\"usage\":{\"input_tokens\":5,\"output_tokens\":7}}");
  append_assistant (resumed, NULL);
  append_assistant (resumed, "{\"usage\":{\"input_tokens\":[1],\"output_tokens\":{\"a\":1}}}");
  append_assistant (resumed, "{\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}");
  g_assert_cmpuint (zot_session_get_messages (resumed)->len, ==, 4);

  zot_agent_set_session (f->agent, resumed);
  g_assert_cmpuint (count_log (f, "notify usage"), ==, 1);
  assert_usage (f->agent, 3, 4, 8, 11);

  zot_agent_set_session (f->agent, empty);
  g_assert_cmpuint (count_log (f, "notify usage"), ==, 2);
  assert_usage (f->agent, -1, -1, 0, 0);

  /* Neither property notified for anything else. */
  g_assert_cmpuint (f->log->len, ==, 2);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");

#define ADD(path, func) \
  g_test_add ("/zot/agent/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
#define ADD_BARE(path, func) \
  g_test_add ("/zot/agent/" path, Fixture, "bare", fixture_setup, func, fixture_teardown)

  ADD ("text-turn", test_text_turn);
  ADD ("tool-batch-order", test_tool_batch_order);
  ADD ("tool-batch-concurrent", test_tool_batch_concurrent);
  ADD ("run-keeps-session", test_run_keeps_session);
  ADD ("unknown-and-malformed", test_unknown_and_malformed);
  ADD ("max-steps", test_max_steps);
  ADD ("abort-during-tools", test_abort_during_tools);
  ADD ("abort-during-stream", test_abort_during_stream);
  ADD ("queue", test_queue);
  ADD ("compact", test_compact);
  ADD ("compact-empty", test_compact_empty);
  ADD ("allowed-tools", test_allowed_tools);
  ADD ("system-prompt-cache", test_system_prompt_cache);
  ADD ("running-notify", test_running_notify);
  ADD ("running-notify-queue", test_running_notify_queue);
  ADD ("usage-from-session", test_usage_from_session);
  ADD_BARE ("session-write-failure", test_session_write_failure);
  ADD_BARE ("session-persisted", test_session_persisted);
  ADD_BARE ("openai-round-trip", test_openai_round_trip);
  ADD_BARE ("stream-without-usage", test_stream_without_usage);
  ADD_BARE ("provider-error-ends-turn", test_provider_error_ends_turn);
  ADD_BARE ("usage-notify", test_usage_notify);

#undef ADD
#undef ADD_BARE

  return g_test_run ();
}
