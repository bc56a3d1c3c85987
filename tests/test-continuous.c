/* test-continuous.c — continuous mode (PROTOCOL.md §5): tool calls as
 * durable tasks in the session's journal, the keys that name nested
 * calls, and a resume that finishes the step the host was stopped in by
 * each tool's replay contract, never running an unsafe call twice. One
 * test kills a real `zot` with SIGKILL between two nested calls; the
 * others resume journals written for the purpose. */
#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>

#include "zot-agent.h"
#include "zot-host.h"
#include "zot-limits-private.h"
#include "zot-tool-registry.h"
#include "zot-session.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *events;
  char       *session_path;
  char       *count_path;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->session_path = g_build_filename (f->env.root, "conversation.jsonl", NULL);
  f->count_path = g_build_filename (f->env.root, "count.txt", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->host != NULL)
    {
      g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
      zot_test_finalize_host (&f->host);
    }
  g_clear_pointer (&f->events, g_ptr_array_unref);
  g_free (f->session_path);
  g_free (f->count_path);
  zot_test_env_teardown (&f->env);
}

static void
on_lifecycle_event (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *frame,
                    Fixture             *f)
{
  g_ptr_array_add (f->events, json_object_ref (frame));
}

/* A host on the demo model, journaling in f->session_path. */
static void
start_host (Fixture            *f,
            const char * const *paths)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.session_path = g_strdup (f->session_path);
  options.continuous = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  g_signal_connect (zot_host_get_manager (f->host), "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
}

static char *
outer_extension (Fixture *f)
{
  return zot_test_make_recording_fake (&f->env, "parent", "--capabilities", "call_tool",
                                       "--command", "go", "--register-json",
                                       "{\"type\":\"register_tool\",\"name\":\"outer\",\"schema\":{},"
                                       "\"replay\":\"idempotent\"}",
                                       NULL);
}

static char *
counter_extension (Fixture *f)
{
  return zot_test_make_recording_fake (&f->env, "counter", "--register-json",
                                       "{\"type\":\"register_tool\",\"name\":\"count\",\"schema\":{}}",
                                       NULL);
}

/* A call of `count` with @key that appends @word to the count file. */
static char *
count_call (Fixture    *f,
            const char *key,
            const char *word)
{
  g_autofree char *path = g_strescape (f->count_path, NULL);

  if (key == NULL)
    return g_strdup_printf ("{\"name\":\"count\",\"args\":{\"append_to\":\"%s\",\"reply\":\"%s\"}}", path, word);
  return g_strdup_printf ("{\"name\":\"count\",\"key\":\"%s\",\"args\":{\"append_to\":\"%s\",\"reply\":\"%s\"}}",
                          key, path, word);
}

static char *
read_counts (Fixture *f)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (f->count_path, &text, NULL, NULL))
    return g_strdup ("");
  return g_steal_pointer (&text);
}

static JsonObject *
find_event (Fixture    *f,
            const char *name,
            const char *tool_id)
{
  return zot_test_find_event (f->events, name, tool_id);
}

static const char *
event_text (Fixture    *f,
            const char *tool_id)
{
  JsonObject *event = find_event (f, "tool_result", tool_id);

  if (event == NULL)
    g_error ("no tool_result event for %s", tool_id);
  return zot_test_json_string_at (event, "result/content/0/text");
}

/* The lifecycle id of the model's call of outer. */
static char *
outer_call_id (Fixture *f)
{
  return g_strdup (zot_test_model_call_id (f->events, "outer"));
}

static void
assert_contains (const char *text,
                 const char *needle)
{
  if (text == NULL || strstr (text, needle) == NULL)
    g_error ("\"%s\" does not say \"%s\"", text, needle);
}

/* The journal's task entries in the session file, by id and event. */
static guint
count_task_entries (Fixture    *f,
                    const char *task_id,
                    const char *event)
{
  g_autoptr(GPtrArray) lines = zot_test_read_frames (f->session_path);
  guint n = 0;

  for (guint i = 0; i < lines->len; i++)
    {
      JsonObject *entry = g_ptr_array_index (lines, i);

      if (g_str_equal (json_object_get_string_member_with_default (entry, "type", ""), "task") &&
          g_str_equal (json_object_get_string_member_with_default (entry, "id", ""), task_id) &&
          g_str_equal (json_object_get_string_member_with_default (entry, "event", ""), event))
        n++;
    }
  return n;
}

/* A conversation that loads whole: no step left open, nothing mended. */
static void
assert_transcript_valid (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotSession) session = zot_session_open_read_only (f->session_path, &error);

  g_assert_no_error (error);
  g_assert_true (zot_session_get_continuous (session));
  g_assert_false (zot_session_has_pending_step (session));
  for (guint i = 0; zot_session_get_warnings (session)[i] != NULL; i++)
    g_assert_null (strstr (zot_session_get_warnings (session)[i], "interrupted"));
}

/* Tests */

static void
test_header_and_capability (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *parent = outer_extension (f);
  const char *paths[] = { parent, NULL };
  g_autofree char *record = zot_test_record_path (&f->env, "parent");
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(GPtrArray) lines = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonArray *caps;
  gboolean durable = FALSE;

  start_host (f, paths);
  zot_test_submit (f->host, "hello", &s);
  g_assert_true (s.ok);

  frames = zot_test_read_frames (record);
  caps = json_object_get_array_member (g_ptr_array_index (frames, 0), "capabilities");
  for (guint i = 0; i < json_array_get_length (caps); i++)
    durable |= g_str_equal (json_array_get_string_element (caps, i), "call_tool_durable");
  g_assert_true (durable);

  lines = zot_test_read_frames (f->session_path);
  g_assert_cmpstr (zot_test_json_string_at (g_ptr_array_index (lines, 0), "mode"), ==, "continuous");
}

static void
test_parent_required (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *parent = outer_extension (f);
  const char *paths[] = { parent, NULL };
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) result = NULL;

  start_host (f, paths);
  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), "go",
                                      "call {\"name\":\"read\",\"args\":{\"path\":\"x\"}}", &error);
  g_assert_no_error (error);
  result = zot_test_json_object_from (zot_command_reply_get_text (reply));
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  assert_contains (zot_test_json_string_at (result, "content/0/text"), "needs the parent_id");
}

/* Keys name calls: out of order is fine; the same key and arguments are
 * answered from the journal; the same key with other arguments is
 * refused; a key past 128 bytes or with a slash is refused. */
static void
test_keys (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *parent = outer_extension (f);
  g_autofree char *counter = counter_extension (f);
  const char *paths[] = { parent, counter, NULL };
  g_autofree char *b = count_call (f, "b", "bee");
  g_autofree char *a = count_call (f, "a", "ay");
  g_autofree char *a_again = count_call (f, "a", "ay");
  g_autofree char *a_other = count_call (f, "a", "other");
  g_autofree char *long_key = g_strnfill (ZOT_DURABLE_KEY_MAX_BYTES + 1, 'k');
  g_autofree char *edge_key = g_strnfill (ZOT_DURABLE_KEY_MAX_BYTES, 'e');
  g_autofree char *too_long = count_call (f, long_key, "long");
  g_autofree char *at_edge = count_call (f, edge_key, "edge");
  g_autofree char *slashed = count_call (f, "x/y", "slash");
  g_autofree char *concurrent = NULL;
  g_autofree char *sequential = NULL;
  g_autofree char *rules = NULL;
  g_autofree char *outer_id = NULL;
  g_autofree char *id = NULL;
  g_auto(ZotTestSubmit) s1 = { 0 };
  g_auto(ZotTestSubmit) s2 = { 0 };
  g_auto(ZotTestSubmit) s3 = { 0 };
  g_autofree char *counts = NULL;

  start_host (f, paths);

  /* b before a, at once. */
  concurrent = g_strdup_printf ("tool: outer {\"call\":[%s,%s]}", b, a);
  zot_test_submit (f->host, concurrent, &s1);
  g_assert_true (s1.ok);
  outer_id = outer_call_id (f);
  g_assert_nonnull (outer_id);

  id = g_strdup_printf ("%s/k=a", outer_id);
  g_assert_cmpuint (count_task_entries (f, id, "started"), ==, 1);
  g_assert_cmpuint (count_task_entries (f, id, "finished"), ==, 1);
  g_free (id);
  id = g_strdup_printf ("%s/k=b", outer_id);
  g_assert_cmpuint (count_task_entries (f, id, "finished"), ==, 1);
  counts = read_counts (f);
  g_assert_true (g_str_equal (counts, "bee\nay\n") || g_str_equal (counts, "ay\nbee\n"));

  /* One after the other in a new parent: a, a again (journal), a other
   * (refused). */
  g_ptr_array_set_size (f->events, 0);
  sequential = g_strdup_printf ("tool: outer {\"sequential\":true,\"call\":[%s,%s,%s]}", a, a_again, a_other);
  zot_test_submit (f->host, sequential, &s2);
  g_assert_true (s2.ok);
  g_free (counts);
  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "bee\nay\nay\n");
  g_clear_pointer (&outer_id, g_free);
  outer_id = outer_call_id (f);
  assert_contains (event_text (f, outer_id), "ay");
  assert_contains (event_text (f, outer_id), "was used before for another call");

  /* The key rules. */
  g_ptr_array_set_size (f->events, 0);
  rules = g_strdup_printf ("tool: outer {\"sequential\":true,\"call\":[%s,%s,%s]}", too_long, slashed, at_edge);
  zot_test_submit (f->host, rules, &s3);
  g_assert_true (s3.ok);
  g_free (counts);
  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "bee\nay\nay\nedge\n");
  g_clear_pointer (&outer_id, g_free);
  outer_id = outer_call_id (f);
  assert_contains (event_text (f, outer_id), "longer than 128 bytes");
  assert_contains (event_text (f, outer_id), "must not contain");

  assert_transcript_valid (f);
}

/* A journal written as a host leaves it when it is stopped in a step. */
static void
write_journal (Fixture    *f,
               const char *tail)
{
  g_autofree char *text = g_strconcat (
    "{\"type\":\"session\",\"version\":1,\"id\":\"c1\",\"cwd\":\"/\",\"created\":\"2026-01-01T00:00:00Z\","
    "\"mode\":\"continuous\"}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"go\"}]}}\n",
    tail, NULL);

  g_assert_true (g_file_set_contents (f->session_path, text, -1, NULL));
}

/* bash may not run twice: a call the journal says started and never
 * finished is answered `interrupted`, and the model goes on. */
static void
test_bash_interrupted (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *made = g_build_filename (f->env.cwd, "made", NULL);
  g_auto(ZotTestSubmit) s = { 0 };
  ZotSession *session;

  write_journal (f,
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
    "\"id\":\"toolu_b\",\"name\":\"bash\",\"input\":{\"command\":\"touch made\"}}]}}\n"
    "{\"type\":\"task\",\"event\":\"started\",\"id\":\"toolu_b\",\"tool\":\"bash\","
    "\"args\":{\"command\":\"touch made\"},\"effective_args\":{\"command\":\"touch made\"}}\n");

  start_host (f, (const char * const []) { NULL });
  session = zot_agent_get_session (zot_host_get_agent (f->host));
  g_assert_true (zot_session_get_continuous (session));
  g_assert_true (zot_session_has_pending_step (session));

  zot_test_submit (f->host, "and now", &s);
  g_assert_true (s.ok);
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  assert_contains (event_text (f, "toolu_b"), "interrupted");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "toolu_b"), "status"),
                   ==, "failed");
  assert_transcript_valid (f);
}

/* A read that started is run again (it only reads); one that finished
 * answers from the journal; a tool that is gone gets an error result; a
 * torn journal line is dropped with a warning. */
static void
test_replay_contracts (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->env.cwd, "notes.txt", NULL);
  g_auto(ZotTestSubmit) s = { 0 };
  const char * const *warnings;
  gboolean torn = FALSE;

  g_assert_true (g_file_set_contents (file, "fresh contents\n", -1, NULL));
  write_journal (f,
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":["
    "{\"type\":\"tool_use\",\"id\":\"toolu_r\",\"name\":\"read\",\"input\":{\"path\":\"notes.txt\"}},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_f\",\"name\":\"read\",\"input\":{\"path\":\"gone.txt\"}},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_g\",\"name\":\"gone_tool\",\"input\":{}}]}}\n"
    "{\"type\":\"task\",\"event\":\"started\",\"id\":\"toolu_r\",\"tool\":\"read\","
    "\"args\":{\"path\":\"notes.txt\"},\"effective_args\":{\"path\":\"notes.txt\"}}\n"
    "{\"type\":\"task\",\"event\":\"started\",\"id\":\"toolu_f\",\"tool\":\"read\","
    "\"args\":{\"path\":\"gone.txt\"},\"effective_args\":{\"path\":\"gone.txt\"}}\n"
    "{\"type\":\"task\",\"event\":\"finished\",\"id\":\"toolu_f\",\"result\":{\"content\":"
    "[{\"type\":\"text\",\"text\":\"recorded before\"}],\"is_error\":false,\"outcome\":\"completed\"}}\n"
    "{\"type\":\"task\",\"event\":\"started\",\"id\":\"toolu_g\",\"tool\":\"gone_tool\",\"args\":{}}\n"
    "{\"type\":\"task\",\"event\":\"fin");

  start_host (f, (const char * const []) { NULL });
  warnings = zot_session_get_warnings (zot_agent_get_session (zot_host_get_agent (f->host)));
  for (guint i = 0; warnings[i] != NULL; i++)
    torn |= strstr (warnings[i], "torn last line") != NULL;
  g_assert_true (torn);

  zot_test_submit (f->host, "and now", &s);
  g_assert_true (s.ok);
  assert_contains (event_text (f, "toolu_r"), "fresh contents");
  g_assert_cmpstr (event_text (f, "toolu_f"), ==, "recorded before");
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (
    find_event (f, "tool_result", "toolu_g"), "result"), "is_error"));
  assert_transcript_valid (f);
}


/* Reconcile (replay "reconcile") */

static char *
settle_extension (Fixture *f)
{
  return zot_test_make_recording_fake (&f->env, "settler", "--register-json",
                                       "{\"type\":\"register_tool\",\"name\":\"settle\",\"schema\":{},"
                                       "\"replay\":\"reconcile\"}",
                                       NULL);
}

/* A reconcile tool is a tool like any other outside continuous mode. */
static void
test_reconcile_registers (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *settler = settle_extension (f);
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  ZotTool *tool;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char *[]) { settler, NULL });
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_test_load_host (f->host);

  tool = zot_tool_registry_lookup (zot_agent_get_registry (zot_host_get_agent (f->host)), "settle");
  g_assert_nonnull (tool);
  g_assert_cmpint (zot_tool_get_replay (tool), ==, ZOT_TOOL_REPLAY_RECONCILE);
}

/* The frames the settler got: tool_call ones, in order. */
static GPtrArray *
settle_calls (Fixture *f)
{
  g_autofree char *record = zot_test_record_path (&f->env, "settler");
  g_autoptr(GPtrArray) frames = zot_test_read_frames (record);
  GPtrArray *calls = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  for (guint i = 0; i < frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);

      if (g_str_equal (json_object_get_string_member_with_default (frame, "type", ""), "tool_call"))
        g_ptr_array_add (calls, json_object_ref (frame));
    }
  return calls;
}

/* A journal whose last step stopped in a call of settle that answers the
 * reconcile question with @answer, then resumed: what the model got. */
static const char *
resume_settle (Fixture    *f,
               const char *answer)
{
  g_autofree char *settler = settle_extension (f);
  g_autofree char *path = g_strescape (f->count_path, NULL);
  g_autofree char *args = g_strdup_printf ("{\"append_to\":\"%s\",\"reply\":\"ran\","
                                           "\"reconcile\":\"%s\"}", path, answer);
  g_autofree char *journal = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  journal = g_strdup_printf (
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
    "\"id\":\"toolu_s\",\"name\":\"settle\",\"input\":%s}]}}\n"
    "{\"type\":\"task\",\"event\":\"started\",\"id\":\"toolu_s\",\"tool\":\"settle\","
    "\"args\":%s,\"effective_args\":%s,\"operation_key\":\"op-first\"}\n", args, args, args);
  write_journal (f, journal);

  start_host (f, (const char * const []) { settler, NULL });
  zot_test_submit (f->host, "and now", &s);
  g_assert_true (s.ok);
  assert_transcript_valid (f);
  return event_text (f, "toolu_s");
}

/* The first call the settler got asks, with the journaled key. */
static void
assert_asked (Fixture *f,
              guint    n_calls)
{
  g_autoptr(GPtrArray) calls = settle_calls (f);
  JsonObject *ask;

  g_assert_cmpuint (calls->len, ==, n_calls);
  ask = g_ptr_array_index (calls, 0);
  g_assert_true (json_object_get_boolean_member_with_default (ask, "reconcile", FALSE));
  g_assert_cmpstr (json_object_get_string_member_with_default (ask, "operation_key", ""), ==, "op-first");
}

/* "not_started": it runs, once, with the same key. */
static void
test_reconcile_not_started (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *counts = NULL;
  JsonObject *run;

  g_assert_cmpstr (resume_settle (f, "not_started"), ==, "ran");
  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "ran\n");
  assert_asked (f, 2);
  calls = settle_calls (f);
  run = g_ptr_array_index (calls, 1);
  g_assert_false (json_object_get_boolean_member_with_default (run, "reconcile", FALSE));
  g_assert_cmpstr (json_object_get_string_member_with_default (run, "operation_key", ""), ==, "op-first");
  g_assert_cmpuint (count_task_entries (f, "toolu_s", "finished"), ==, 1);
}

/* "completed": its result, journaled, and nothing runs. */
static void
test_reconcile_completed (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *counts = NULL;

  g_assert_cmpstr (resume_settle (f, "completed"), ==, "done before");
  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "");
  assert_asked (f, 1);
  g_assert_cmpuint (count_task_entries (f, "toolu_s", "finished"), ==, 1);
}

/* Anything else, no answer included: interrupted, never run again. */
static void
test_reconcile_unknown (Fixture       *f,
                        gconstpointer  data)
{
  const char *answer = data;
  g_autofree char *counts = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 300);
  assert_contains (resume_settle (f, answer), "interrupted");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "toolu_s"), "status"),
                   ==, "failed");
  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "");
  assert_asked (f, 1);
}

/* Kill and resume */

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

static gboolean
wake_up (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static GSubprocess *
spawn_zot (Fixture     *f,
           const char  *prompt,
           GError     **error)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autofree char *parent = NULL;
  g_autofree char *counter = NULL;

  parent = outer_extension (f);
  counter = counter_extension (f);
  g_subprocess_launcher_set_cwd (launcher, f->env.cwd);
  g_subprocess_launcher_setenv (launcher, "ZOT_HOME", f->env.home, TRUE);
  return g_subprocess_launcher_spawn (launcher, error, g_getenv ("ZOT_BIN"), "--json", "--continuous",
                                      "--session", f->session_path, "--ext", parent, "--ext", counter,
                                      prompt, NULL);
}

/* SIGKILL while an idempotent parent has finished two of its three keyed
 * calls: the resumed run answers those two from the journal, runs the
 * third once, finishes the parent and the model's turn, then the new
 * prompt. */
static void
test_kill_and_resume (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *pause = g_build_filename (f->env.root, "pause", NULL);
  g_autofree char *paused = g_strdup_printf ("%s.paused", pause);
  g_autofree char *pause_escaped = g_strescape (pause, NULL);
  g_autofree char *one = count_call (f, "one", "one");
  g_autofree char *two = count_call (f, "two", "two");
  g_autofree char *three = count_call (f, "three", "three");
  g_autofree char *prompt = NULL;
  g_autofree char *counts = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *record = zot_test_record_path (&f->env, "parent");
  g_autoptr(GSubprocess) first = NULL;
  g_autoptr(GSubprocess) second = NULL;
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(GError) error = NULL;
  const char *keys[2] = { NULL, NULL };
  guint n_keys = 0;
  guint tick;

  g_assert_true (g_file_set_contents (pause, "", -1, NULL));
  prompt = g_strdup_printf ("tool: outer {\"sequential\":true,\"pause_before\":2,\"pause_file\":\"%s\","
                            "\"call\":[%s,%s,%s]}", pause_escaped, one, two, three);

  first = spawn_zot (f, prompt, &error);
  g_assert_no_error (error);
  /* The fake writes the marker once two results came back; GLib cannot
   * watch a file being made in every filesystem, so look now and then. */
  tick = g_timeout_add (20, wake_up, NULL);
  zot_test_wait_until (file_exists, paused, 60000);
  g_source_remove (tick);
  g_subprocess_force_exit (first);
  g_assert_true (g_subprocess_wait (first, NULL, &error));
  g_assert_no_error (error);

  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "one\ntwo\n");

  g_assert_true (g_remove (pause) == 0);
  second = spawn_zot (f, "and after that", &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (second, NULL, NULL, &out, &err, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (second));
  if (g_subprocess_get_exit_status (second) != 0)
    g_error ("the resumed zot failed: %s", err);

  g_free (counts);
  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "one\ntwo\nthree\n");
  assert_contains (out, "three");
  assert_contains (out, "\"type\":\"done\"");
  assert_transcript_valid (f);

  /* The parent ran twice with the same operation_key. */
  frames = zot_test_read_frames (record);
  for (guint i = 0; i < frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);

      if (g_str_equal (json_object_get_string_member_with_default (frame, "type", ""), "tool_call") && n_keys < 2)
        keys[n_keys++] = json_object_get_string_member_with_default (frame, "operation_key", "");
    }
  g_assert_cmpuint (n_keys, ==, 2);
  g_assert_cmpstr (keys[0], !=, "");
  g_assert_cmpstr (keys[0], ==, keys[1]);
}

static gboolean
has_a_line (gpointer data)
{
  g_autofree char *text = NULL;

  return g_file_get_contents (data, &text, NULL, NULL) && strchr (text, '\n') != NULL;
}

/* SIGKILL while bash runs: the resumed run answers it `interrupted` and
 * never runs it again. */
static void
test_kill_bash (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *pid_path = g_build_filename (f->env.root, "sleeper.pid", NULL);
  g_autofree char *count = g_strescape (f->count_path, NULL);
  g_autofree char *pids = g_strescape (pid_path, NULL);
  g_autofree char *prompt = NULL;
  g_autofree char *counts = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *sleeper = NULL;
  g_autoptr(GSubprocess) first = NULL;
  g_autoptr(GSubprocess) second = NULL;
  g_autoptr(GError) error = NULL;
  guint tick;

  prompt = g_strdup_printf ("tool: bash {\"command\":\"echo $$ > '%s'; echo ran >> '%s'; exec sleep 60\"}",
                            pids, count);
  first = spawn_zot (f, prompt, &error);
  g_assert_no_error (error);
  tick = g_timeout_add (20, wake_up, NULL);
  zot_test_wait_until (has_a_line, f->count_path, 60000);
  g_source_remove (tick);
  g_subprocess_force_exit (first);
  g_assert_true (g_subprocess_wait (first, NULL, &error));
  /* What the killed host left running goes too. */
  if (g_file_get_contents (pid_path, &sleeper, NULL, NULL))
    kill ((pid_t) g_ascii_strtoll (sleeper, NULL, 10), SIGKILL);

  second = spawn_zot (f, "and after that", &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (second, NULL, NULL, &out, &err, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (second));
  if (g_subprocess_get_exit_status (second) != 0)
    g_error ("the resumed zot failed: %s", err);

  counts = read_counts (f);
  g_assert_cmpstr (counts, ==, "ran\n");
  assert_contains (out, "interrupted");
  assert_transcript_valid (f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) \
  g_test_add ("/zot/continuous/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)

  ADD ("header-and-capability", test_header_and_capability);
  ADD ("parent-required", test_parent_required);
  ADD ("keys", test_keys);
  ADD ("bash-interrupted", test_bash_interrupted);
  ADD ("replay-contracts", test_replay_contracts);
  ADD ("kill-and-resume", test_kill_and_resume);
  ADD ("kill-bash", test_kill_bash);
  ADD ("reconcile/registers", test_reconcile_registers);
  ADD ("reconcile/not-started", test_reconcile_not_started);
  ADD ("reconcile/completed", test_reconcile_completed);
  g_test_add ("/zot/continuous/reconcile/unknown", Fixture, "unknown",
              fixture_setup, test_reconcile_unknown, fixture_teardown);
  g_test_add ("/zot/continuous/reconcile/garbage", Fixture, "garbage",
              fixture_setup, test_reconcile_unknown, fixture_teardown);
  g_test_add ("/zot/continuous/reconcile/timeout", Fixture, "hang",
              fixture_setup, test_reconcile_unknown, fixture_teardown);

  return g_test_run ();
}
