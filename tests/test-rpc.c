/* test-rpc.c — `zot rpc` as a client drives it: every command, response
 * and event of HOST.md's RPC wire schema, with the demo model and a
 * scripted OpenAI- or Anthropic-compatible server. The binary runs as a
 * child; the test writes command lines to its stdin as it goes and reads
 * its stdout line by line, so that it can act in the middle of a run
 * (abort, a command while busy). */
#include "config.h"

#include <string.h>

#include "zot-fake-server.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-provider-table.h"
#include "zot-session.h"
#include "zot-test-util.h"
#include "zot-tool.h"

#define WAIT_MS 60000

/* A 1×1 PNG. */
#define PNG_BASE64 \
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

typedef struct
{
  ZotTestEnv        env;
  ZotFakeServer    *server;
  GSubprocess      *process;
  GOutputStream    *stdin_pipe;
  GDataInputStream *stdout_lines;
  GPtrArray        *lines;      /* every stdout line, parsed */
  gboolean          eof;
  gboolean          exited;
  gboolean          written;
  char             *stderr_path;
  guint             id_counter;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->lines = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->stderr_path = g_build_filename (f->env.root, "stderr.txt", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->process != NULL && !f->exited)
    g_subprocess_force_exit (f->process);
  g_clear_object (&f->stdin_pipe);
  g_clear_object (&f->stdout_lines);
  g_clear_object (&f->process);
  g_clear_pointer (&f->server, zot_fake_server_free);
  g_clear_pointer (&f->lines, g_ptr_array_unref);
  g_clear_pointer (&f->stderr_path, g_free);
  zot_test_env_teardown (&f->env);
}

/* The child */

static void read_next_line (Fixture *f);

static void
line_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autoptr(JsonObject) parsed = NULL;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, NULL, &error);
  g_assert_no_error (error);
  if (line == NULL)
    {
      f->eof = TRUE;
      return;
    }

  /* Every line on stdout is one JSON object: nothing else goes there. */
  parsed = zot_json_object_from_string (line, &error);
  g_assert_no_error (error);
  g_assert_nonnull (json_object_get_string_member (parsed, "type"));
  g_ptr_array_add (f->lines, g_steal_pointer (&parsed));
  read_next_line (f);
}

static void
read_next_line (Fixture *f)
{
  g_data_input_stream_read_line_async (f->stdout_lines, G_PRIORITY_DEFAULT, NULL, line_read_cb, f);
}

static void
exited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *f = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  f->exited = TRUE;
}

static void
start_args (Fixture            *f,
            const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("ZOT_BIN"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, (gpointer) "rpc");
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_stderr_file_path (launcher, f->stderr_path);
  g_subprocess_launcher_set_cwd (launcher, f->env.cwd);
  g_subprocess_launcher_setenv (launcher, "ZOT_HOME", f->env.home, TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "ANTHROPIC_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");

  f->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  f->stdin_pipe = g_object_ref (g_subprocess_get_stdin_pipe (f->process));
  f->stdout_lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (f->process));
  g_data_input_stream_set_newline_type (f->stdout_lines, G_DATA_STREAM_NEWLINE_TYPE_LF);
  g_subprocess_wait_async (f->process, NULL, exited_cb, f);
  read_next_line (f);
}

#define START(f, ...) start_args (f, (const char *[]) { __VA_ARGS__, NULL })

/* A scripted server of @provider's API: the arguments that point zot at it. */
static void
start_with_server (Fixture    *f,
                   const char *provider,
                   const char *model,
                   const char *extra)
{
  g_autofree char *base = NULL;

  f->server = zot_fake_server_new ();
  base = g_str_equal (provider, "openai") ? g_strdup_printf ("%s/v1", zot_fake_server_get_url (f->server))
                                          : g_strdup (zot_fake_server_get_url (f->server));
  if (extra != NULL)
    START (f, "--provider", provider, "--base-url", base, "--api-key", "k", "--model", model, extra);
  else
    START (f, "--provider", provider, "--base-url", base, "--api-key", "k", "--model", model);
}

static void
written_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error);
  g_assert_no_error (error);
  f->written = TRUE;
}

/* Writes @text as it is (a whole line or several). */
static void
send_raw (Fixture    *f,
          const char *text)
{
  f->written = FALSE;
  g_output_stream_write_all_async (f->stdin_pipe, text, strlen (text), G_PRIORITY_DEFAULT, NULL,
                                   written_cb, f);
  zot_test_wait_for (&f->written, WAIT_MS);
}

/* Sends a command with a fresh id, `{"type":@type,"id":…,<@members>}`, and
 * returns the id. */
static char *
send_command (Fixture    *f,
              const char *type,
              const char *members)
{
  char *id = g_strdup_printf ("c%u", ++f->id_counter);
  g_autofree char *line = g_strdup_printf ("{\"type\":\"%s\",\"id\":\"%s\"%s%s}\n", type, id,
                                           members != NULL ? "," : "", members != NULL ? members : "");

  send_raw (f, line);
  return id;
}

typedef struct
{
  Fixture    *f;
  const char *type;
  const char *id;
  guint       nth;
  guint       after;
  JsonObject *found;
} Wait;

static gboolean
is_response_to (JsonObject *line,
                const char *id)
{
  return g_str_equal (json_object_get_string_member (line, "type"), "response") &&
         g_strcmp0 (json_object_get_string_member_with_default (line, "id", NULL), id) == 0;
}

static gboolean
check_wait (gpointer data)
{
  Wait *wait = data;
  guint nth = wait->nth;

  for (guint i = wait->after; i < wait->f->lines->len; i++)
    {
      JsonObject *line = g_ptr_array_index (wait->f->lines, i);

      if (wait->id != NULL ? is_response_to (line, wait->id)
                           : g_str_equal (json_object_get_string_member (line, "type"), wait->type))
        {
          if (nth-- == 0)
            {
              wait->found = line;
              return TRUE;
            }
        }
    }
  return wait->f->eof;
}

/* The response to @id, once it came. */
static JsonObject *
wait_response (Fixture    *f,
               const char *id)
{
  Wait wait = { f, NULL, id, 0, 0, NULL };

  zot_test_wait_until (check_wait, &wait, WAIT_MS);
  if (wait.found == NULL)
    g_error ("zot rpc ended without answering %s", id);
  return wait.found;
}

/* The @nth event @type (from 0), once it came. */
static JsonObject *
wait_event (Fixture    *f,
            const char *type,
            guint       nth)
{
  Wait wait = { f, type, NULL, nth, 0, NULL };

  zot_test_wait_until (check_wait, &wait, WAIT_MS);
  if (wait.found == NULL)
    g_error ("zot rpc ended before event %s #%u", type, nth);
  return wait.found;
}

static guint
index_of (Fixture    *f,
          JsonObject *line)
{
  guint index;

  g_assert_true (g_ptr_array_find (f->lines, line, &index));
  return index;
}

static guint
count_type (Fixture    *f,
            const char *type)
{
  guint n = 0;

  for (guint i = 0; i < f->lines->len; i++)
    if (g_str_equal (json_object_get_string_member (g_ptr_array_index (f->lines, i), "type"), type))
      n++;
  return n;
}

static JsonObject *
data_of (JsonObject *response)
{
  g_assert_true (json_object_get_boolean_member (response, "success"));
  return json_object_get_object_member (response, "data");
}

static void
assert_refused (JsonObject *response,
                const char *reason)
{
  g_assert_false (json_object_get_boolean_member (response, "success"));
  g_assert_nonnull (strstr (json_object_get_string_member (response, "error"), reason));
}

static gboolean
check_exited (gpointer data)
{
  Fixture *f = data;

  return f->exited && f->eof;
}

/* Closes stdin and waits for zot to finish its work and exit. */
static int
finish (Fixture *f)
{
  g_assert_true (g_output_stream_close (f->stdin_pipe, NULL, NULL));
  zot_test_wait_until (check_exited, f, WAIT_MS);
  g_assert_true (g_subprocess_get_if_exited (f->process));
  return g_subprocess_get_exit_status (f->process);
}

/* The types from @from on, runs of text_delta and tool_progress counted once. */
static char *
types_from (Fixture *f,
            guint    from)
{
  GString *types = g_string_new (NULL);
  const char *last = NULL;

  for (guint i = from; i < f->lines->len; i++)
    {
      const char *type = json_object_get_string_member (g_ptr_array_index (f->lines, i), "type");

      if (g_strcmp0 (type, last) == 0 && (g_str_equal (type, "text_delta") || g_str_equal (type, "tool_progress")))
        continue;
      if (types->len > 0)
        g_string_append_c (types, ' ');
      g_string_append (types, type);
      last = type;
    }
  return g_string_free (types, FALSE);
}

static void
assert_time (JsonObject *object)
{
  const char *time = json_object_get_string_member (object, "time");
  g_autoptr(GDateTime) parsed = g_date_time_new_from_iso8601 (time, NULL);

  g_assert_nonnull (parsed);
  g_assert_true (g_str_has_suffix (time, "Z"));
}

/* Commands answered at once */

static void
test_hello_ping (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *hello = NULL;
  g_autofree char *ping = NULL;
  JsonObject *response;
  JsonObject *payload;

  START (f, "--no-ext");
  hello = send_command (f, "hello", NULL);
  ping = send_command (f, "ping", NULL);

  response = wait_response (f, hello);
  g_assert_cmpstr (json_object_get_string_member (response, "command"), ==, "hello");
  payload = data_of (response);
  g_assert_cmpint (json_object_get_int_member (payload, "protocol_version"), ==, ZOT_RPC_PROTOCOL_VERSION);
  g_assert_cmpstr (json_object_get_string_member (payload, "version"), ==, PACKAGE_VERSION);
  g_assert_cmpstr (json_object_get_string_member (payload, "provider"), ==, "demo");
  g_assert_cmpstr (json_object_get_string_member (payload, "model"), ==, "demo");

  response = wait_response (f, ping);
  g_assert_cmpstr (json_object_get_string_member (response, "command"), ==, "ping");
  g_assert_true (json_object_get_boolean_member (data_of (response), "pong"));

  g_assert_cmpint (finish (f), ==, 0);
}

/* With ZOTCORE_RPC_TOKEN set, the first command must be hello with it:
 * anything else is answered with success:false, and zot exits. */
static void
test_token (Fixture       *f,
            gconstpointer  data)
{
  const char *firsts[] = {
    "{\"type\":\"ping\",\"id\":\"first\"}\n",
    "{\"type\":\"hello\",\"id\":\"first\"}\n",
    "{\"type\":\"hello\",\"id\":\"first\",\"token\":\"s3cre\"}\n",
    "{\"type\":\"hello\",\"id\":\"first\",\"token\":\"s3cret!\"}\n",
  };
  g_autofree char *good = NULL;
  g_autofree char *ping = NULL;

  g_setenv ("ZOTCORE_RPC_TOKEN", "s3cret", TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (firsts); i++)
    {
      g_autofree char *input = g_strconcat (firsts[i], "{\"type\":\"ping\",\"id\":\"after\"}\n", NULL);

      START (f, "--no-ext");
      send_raw (f, input);
      zot_test_wait_until (check_exited, f, WAIT_MS);
      g_assert_cmpint (g_subprocess_get_exit_status (f->process), ==, 1);
      assert_refused (wait_response (f, "first"), "ZOTCORE_RPC_TOKEN");
      /* Nothing after the refusal is answered. */
      g_assert_cmpuint (f->lines->len, ==, 1);

      g_clear_object (&f->stdin_pipe);
      g_clear_object (&f->stdout_lines);
      g_clear_object (&f->process);
      g_ptr_array_set_size (f->lines, 0);
      f->eof = f->exited = FALSE;
    }

  START (f, "--no-ext");
  good = send_command (f, "hello", "\"token\":\"s3cret\"");
  ping = send_command (f, "ping", NULL);
  g_unsetenv ("ZOTCORE_RPC_TOKEN");
  g_assert_cmpint (json_object_get_int_member (data_of (wait_response (f, good)), "protocol_version"), ==, 1);
  g_assert_true (json_object_get_boolean_member (data_of (wait_response (f, ping)), "pong"));
  g_assert_cmpint (finish (f), ==, 0);
}

/* Unknown commands, malformed lines, over-long and too deep ones: each
 * answered with success:false and a reason (no id when none could be
 * read), and zot keeps serving. */
static void
test_malformed (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *deep = zot_test_nested_json ("{\"type\":\"ping\",\"id\":\"deep\",\"v\":",
                                                ZOT_JSON_MAX_DEPTH + 1, "}\n");
  g_autofree char *at_limit = zot_test_nested_json ("{\"type\":\"ping\",\"id\":\"at-limit\",\"v\":",
                                                    ZOT_JSON_MAX_DEPTH - 1, "}\n");
  g_autofree char *long_line = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *ping = NULL;
  g_autofree char *bad_prompt = NULL;
  const char *reasons[] = { "not JSON", "\"type\"", "4 MiB limit", "nested deeper" };
  guint n_anonymous = 0;

  START (f, "--no-ext");

  send_raw (f, "not json\n");
  send_raw (f, "{\"id\":\"no-type\"}\n");
  /* One byte over the limit, newline not counted. */
  long_line = g_malloc (ZOT_FRAME_MAX_BYTES + 3);
  memset (long_line, 'x', ZOT_FRAME_MAX_BYTES + 1);
  long_line[0] = '"';
  long_line[ZOT_FRAME_MAX_BYTES + 1] = '\n';
  long_line[ZOT_FRAME_MAX_BYTES + 2] = '\0';
  send_raw (f, long_line);
  send_raw (f, deep);
  send_raw (f, at_limit);
  unknown = send_command (f, "frobnicate", NULL);
  bad_prompt = send_command (f, "prompt", "\"message\":42");
  ping = send_command (f, "ping", NULL);

  g_assert_true (json_object_get_boolean_member (data_of (wait_response (f, ping)), "pong"));
  g_assert_true (json_object_get_boolean_member (data_of (wait_response (f, "at-limit")), "pong"));
  assert_refused (wait_response (f, unknown), "unknown command \"frobnicate\"");
  g_assert_cmpstr (json_object_get_string_member (wait_response (f, unknown), "command"), ==, "frobnicate");
  assert_refused (wait_response (f, bad_prompt), "message");

  for (guint i = 0; i < f->lines->len; i++)
    {
      JsonObject *line = g_ptr_array_index (f->lines, i);

      if (!is_response_to (line, NULL))
        continue;
      g_assert_cmpuint (n_anonymous, <, G_N_ELEMENTS (reasons));
      assert_refused (line, reasons[n_anonymous]);
      n_anonymous++;
    }
  g_assert_cmpuint (n_anonymous, ==, G_N_ELEMENTS (reasons));
  g_assert_cmpint (finish (f), ==, 0);
}

/* A command that is not in the table is answered with an error each
 * time, and logged on stderr the first time only. */
static void
test_unknown_commands (Fixture       *f,
                       gconstpointer  data)
{
  const char *types[] = { "frobnicate", "frobnicate", "zorch", "frobnicate" };
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *ping = NULL;
  g_autofree char *log = NULL;

  START (f, "--no-ext");
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    g_ptr_array_add (ids, send_command (f, types[i], NULL));
  ping = send_command (f, "ping", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autofree char *reason = g_strdup_printf ("unknown command \"%s\"", types[i]);

      assert_refused (wait_response (f, g_ptr_array_index (ids, i)), reason);
    }
  g_assert_true (json_object_get_boolean_member (data_of (wait_response (f, ping)), "pong"));
  g_assert_cmpint (finish (f), ==, 0);

  log = zot_test_read_file (f->stderr_path);
  g_assert_cmpuint (zot_test_count (log, "unknown command \"frobnicate\""), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "unknown command \"zorch\""), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "unknown command \"ping\""), ==, 0);
}

/* Prompts */

static void
test_prompt_events (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *id = NULL;
  g_autofree char *types = NULL;
  JsonObject *response;
  JsonObject *event;
  JsonObject *cumulative;
  JsonArray *content;
  guint start;

  START (f, "--no-ext");
  id = send_command (f, "prompt", "\"message\":\"hello rpc\"");
  response = wait_response (f, id);
  g_assert_cmpstr (json_object_get_string_member (response, "command"), ==, "prompt");
  g_assert_true (json_object_get_boolean_member (data_of (response), "started"));
  start = index_of (f, response) + 1;
  wait_event (f, "done", 0);

  types = types_from (f, start);
  g_assert_cmpstr (types, ==,
                   "user_message turn_start assistant_start text_delta assistant_message usage turn_end done");

  event = wait_event (f, "user_message", 0);
  assert_time (event);
  content = json_object_get_array_member (event, "content");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 0), "text"), ==,
                   "hello rpc");

  event = wait_event (f, "assistant_message", 0);
  assert_time (event);
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (
                      json_object_get_array_member (event, "content"), 0), "text"), "You said: hello rpc"));

  g_assert_cmpint (json_object_get_int_member (wait_event (f, "turn_start", 0), "step"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (wait_event (f, "turn_end", 0), "stop"), ==, "end_turn");

  /* The demo model reports tokens and knows no reasoning: null. */
  event = wait_event (f, "usage", 0);
  g_assert_cmpint (json_object_get_int_member (event, "input"), >, 0);
  g_assert_cmpint (json_object_get_int_member (event, "output"), >, 0);
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (event, "reasoning")));
  g_assert_cmpint (json_object_get_int_member (event, "cache_read"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (event, "cache_write"), ==, 0);
  /* The demo is free: a known price of 0. */
  g_assert_cmpfloat (json_object_get_double_member (event, "cost_usd"), ==, 0.0);
  g_assert_true (json_object_get_boolean_member (event, "cost_known"));
  cumulative = json_object_get_object_member (event, "cumulative");
  g_assert_cmpint (json_object_get_int_member (cumulative, "input"), ==, json_object_get_int_member (event, "input"));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (cumulative, "reasoning")));

  g_assert_cmpint (finish (f), ==, 0);
}

/* A second prompt waits for the first and says so; each ends with its
 * own done; clear, set_model and set_reasoning refuse while busy and
 * change nothing. */
static void
test_queue (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *clear = NULL;
  g_autofree char *model = NULL;
  g_autofree char *reasoning = NULL;
  g_autofree char *state = NULL;
  g_autofree char *after = NULL;
  JsonObject *payload;
  JsonObject *done0;
  JsonObject *done1;

  START (f, "--no-ext");
  /* The first waits on a command, so the rest arrive while it runs. */
  first = send_command (f, "prompt", "\"message\":\"tool: bash {\\\"command\\\":\\\"echo one\\\"}\"");
  second = send_command (f, "prompt", "\"message\":\"second thing\"");
  clear = send_command (f, "clear", NULL);
  model = send_command (f, "set_model", "\"model\":\"demo-2\"");
  reasoning = send_command (f, "set_reasoning", "\"reasoning\":\"high\"");
  state = send_command (f, "get_state", NULL);

  payload = data_of (wait_response (f, first));
  g_assert_true (json_object_get_boolean_member (payload, "started"));
  payload = data_of (wait_response (f, second));
  g_assert_false (json_object_get_boolean_member (payload, "started"));
  g_assert_true (json_object_get_boolean_member (payload, "queued"));
  assert_refused (wait_response (f, clear), "agent is busy");
  assert_refused (wait_response (f, model), "agent is busy");
  assert_refused (wait_response (f, reasoning), "agent is busy");
  payload = data_of (wait_response (f, state));
  g_assert_true (json_object_get_boolean_member (payload, "busy"));
  g_assert_cmpstr (json_object_get_string_member (payload, "model"), ==, "demo");

  done0 = wait_event (f, "done", 0);
  done1 = wait_event (f, "done", 1);
  /* In order: the first prompt's turn ends, then the second's starts. */
  g_assert_cmpuint (index_of (f, wait_event (f, "user_message", 1)), >, index_of (f, done0));
  g_assert_cmpuint (index_of (f, wait_event (f, "turn_end", 0)), <, index_of (f, done0));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (f->lines, index_of (f, done1) - 1), "type"),
                   ==, "turn_end");

  /* Idle again: the conversation is as the two prompts left it. */
  after = send_command (f, "get_state", NULL);
  payload = data_of (wait_response (f, after));
  g_assert_false (json_object_get_boolean_member (payload, "busy"));
  g_assert_cmpint (json_object_get_int_member (payload, "message_count"), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (payload, "reasoning"), ==, "default");

  g_assert_cmpint (finish (f), ==, 0);
  g_assert_cmpuint (count_type (f, "done"), ==, 2);
}

/* get_state gives each extension's meter: a tool call the model made
 * shows in its count, its frames and its CPU time. */
static void
test_state_stats (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "metered", "--register-json",
                                                  "{\"type\":\"register_tool\",\"name\":\"probe\","
                                                  "\"description\":\"probe\",\"schema\":{\"type\":\"object\"}}",
                                                  NULL);
  g_autofree char *prompt = NULL;
  g_autofree char *state = NULL;
  JsonObject *stats;

  START (f, "--ext", dir);
  prompt = send_command (f, "prompt", "\"message\":\"tool: probe {\\\"burn_ms\\\":100}\"");
  wait_event (f, "done", 0);
  state = send_command (f, "get_state", NULL);
  stats = json_node_get_object (zot_test_json_node_at (data_of (wait_response (f, state)), "extensions/0/stats"));

  g_assert_true (json_object_get_boolean_member (stats, "running"));
  g_assert_cmpint (json_object_get_int_member (stats, "tool_calls"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (stats, "latency_samples"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (stats, "latency_p95_us"), >=,
                   json_object_get_int_member (stats, "latency_p50_us"));
  g_assert_cmpint (json_object_get_int_member (stats, "cpu_us"), >=, 80 * 1000);
  g_assert_cmpint (json_object_get_int_member (stats, "resident_bytes"), >, 0);
  /* hello, register_tool, ready and the tool_result at least. */
  g_assert_cmpint (json_object_get_int_member (stats, "frames_in"), >=, 4);
  g_assert_cmpint (json_object_get_int_member (stats, "bytes_out"), >,
                   json_object_get_int_member (stats, "frames_out"));

  g_assert_cmpint (finish (f), ==, 0);
}

/* get_state lists a project's untrusted extension in a state of its own,
 * with what it asks for. */
static void
test_state_needs_approval (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *project_dir = g_build_filename (f->env.cwd, ".zot", "extensions", NULL);
  g_autofree char *dir = zot_test_make_fake_args (project_dir, "who", NULL);
  g_autofree char *state = NULL;
  JsonObject *data_node;

  START (f, "--provider", "demo");
  state = send_command (f, "get_state", NULL);
  data_node = data_of (wait_response (f, state));
  g_assert_cmpstr (json_node_get_string (zot_test_json_node_at (data_node, "extensions/0/name")), ==, "who");
  g_assert_cmpstr (json_node_get_string (zot_test_json_node_at (data_node, "extensions/0/state")), ==,
                   "needs_approval");
  g_assert_nonnull (strstr (json_node_get_string (zot_test_json_node_at (data_node, "extensions/0/error")),
                            "needs approval (asks for: unconfined)"));
  g_assert_cmpint (finish (f), ==, 0);
}

/* A command "/new" while a prompt runs is refused like clear, at once and
 * not queued: the turn ends in its own conversation. Idle, it starts one. */
static void
test_new_while_busy (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *before = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *busy_new = NULL;
  g_autofree char *after = NULL;
  g_autofree char *idle_new = NULL;
  g_autofree char *last = NULL;
  g_autofree char *session_id = NULL;
  JsonObject *payload;

  START (f, "--no-ext");
  before = send_command (f, "get_state", NULL);
  prompt = send_command (f, "prompt", "\"message\":\"tool: bash {\\\"command\\\":\\\"echo one\\\"}\"");
  busy_new = send_command (f, "command", "\"name\":\"/new\"");

  payload = data_of (wait_response (f, before));
  session_id = g_strdup (json_object_get_string_member (payload, "session_id"));
  assert_refused (wait_response (f, busy_new), "agent is busy");
  wait_event (f, "done", 0);

  after = send_command (f, "get_state", NULL);
  payload = data_of (wait_response (f, after));
  g_assert_cmpstr (json_object_get_string_member (payload, "session_id"), ==, session_id);
  g_assert_cmpint (json_object_get_int_member (payload, "message_count"), ==, 4);

  idle_new = send_command (f, "command", "\"name\":\"new\"");
  g_assert_true (json_object_get_boolean_member (wait_response (f, idle_new), "success"));
  last = send_command (f, "get_state", NULL);
  payload = data_of (wait_response (f, last));
  g_assert_cmpstr (json_object_get_string_member (payload, "session_id"), !=, session_id);
  g_assert_cmpint (json_object_get_int_member (payload, "message_count"), ==, 0);

  g_assert_cmpint (finish (f), ==, 0);
}

/* bash reports its output lines as tool_progress while it runs. */
static void
test_tool_progress (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *id = NULL;
  JsonObject *call;
  JsonObject *result;
  const char *expected[] = { "first line", "second line", "no newline" };

  START (f, "--no-ext");
  id = send_command (f, "prompt",
                     "\"message\":\"tool: bash {\\\"command\\\":\\\"echo first line; echo second line; "
                     "printf 'no newline'\\\"}\"");
  wait_event (f, "done", 0);

  call = wait_event (f, "tool_call", 0);
  result = wait_event (f, "tool_result", 0);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      JsonObject *progress = wait_event (f, "tool_progress", i);

      g_assert_cmpstr (json_object_get_string_member (progress, "id"), ==,
                       json_object_get_string_member (call, "id"));
      g_assert_cmpstr (json_object_get_string_member (progress, "text"), ==, expected[i]);
      g_assert_cmpuint (index_of (f, progress), >, index_of (f, call));
      g_assert_cmpuint (index_of (f, progress), <, index_of (f, result));
    }
  g_assert_cmpuint (count_type (f, "tool_progress"), ==, G_N_ELEMENTS (expected));
  g_assert_cmpint (finish (f), ==, 0);
}

/* A codemode script's call is a tool_call/tool_result pair of its own,
 * with the id <codemode call id>/1 (HOST.md). */
static void
test_nested_calls (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->env.cwd, "a.txt", NULL);
  g_autofree char *nested_id = NULL;
  g_autofree char *prompt_id = NULL;
  JsonObject *outer;
  JsonObject *nested;
  JsonObject *nested_result;
  JsonObject *outer_result;
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (file, "hello\n", -1, NULL));
  START (f, "--no-ext");
  prompt_id = send_command (f, "prompt",
                "\"message\":\"tool: codemode {\\\"code\\\":\\\"return await tools.read({path: 'a.txt'})\\\"}\"");
  wait_event (f, "done", 0);

  outer = wait_event (f, "tool_call", 0);
  g_assert_cmpstr (json_object_get_string_member (outer, "name"), ==, "codemode");
  outer_result = wait_event (f, "tool_result", count_type (f, "tool_result") - 1);
  text = g_strdup (json_object_get_string_member (json_array_get_object_element (
           json_object_get_array_member (outer_result, "content"), 0), "text"));
  if (strstr (text, "Script completed") == NULL)
    {
      /* No confinement here (no bwrap or gjs, or no namespaces): the
       * codemode tests say why; nothing to see in RPC. */
      g_test_skip (text);
      finish (f);
      return;
    }

  g_assert_cmpuint (count_type (f, "tool_call"), ==, 2);
  nested = wait_event (f, "tool_call", 1);
  nested_id = g_strdup_printf ("%s/1", json_object_get_string_member (outer, "id"));
  g_assert_cmpstr (json_object_get_string_member (nested, "id"), ==, nested_id);
  g_assert_cmpstr (json_object_get_string_member (nested, "name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (nested, "parent_id"), ==,
                   json_object_get_string_member (outer, "id"));
  g_assert_cmpstr (json_object_get_string_member (nested, "origin_extension"), ==, "codemode");
  nested_result = wait_event (f, "tool_result", 0);
  g_assert_cmpstr (json_object_get_string_member (nested_result, "id"), ==, nested_id);
  g_assert_false (json_object_get_boolean_member (nested_result, "is_error"));
  g_assert_cmpuint (index_of (f, nested), >, index_of (f, outer));
  g_assert_cmpuint (index_of (f, nested_result), <, index_of (f, outer_result));
  g_assert_cmpint (finish (f), ==, 0);
}

typedef struct
{
  GPtrArray *lines;
} Progress;

static void
collect_progress (const char *text,
                  gpointer    user_data)
{
  Progress *progress = user_data;

  g_ptr_array_add (progress->lines, g_strdup (text));
}

/* A progress line is cut at ZOT_TOOL_PROGRESS_LINE_MAX_BYTES on a
 * character boundary; a call reports ZOT_TOOL_PROGRESS_MAX_LINES, then
 * one saying the rest are left out; nothing after close. */
static void
test_progress_limits (Fixture       *f,
                      gconstpointer  data)
{
  Progress collected = { g_ptr_array_new_with_free_func (g_free) };
  g_autoptr(ZotToolProgress) progress = zot_tool_progress_new (collect_progress, &collected);
  g_autofree char *at_limit = g_strnfill (ZOT_TOOL_PROGRESS_LINE_MAX_BYTES, 'a');
  g_autofree char *over = g_strnfill (ZOT_TOOL_PROGRESS_LINE_MAX_BYTES + 1, 'b');
  g_autofree char *split = g_strconcat (at_limit + 1, "é", NULL);

  zot_tool_progress_report (progress, at_limit, -1);
  zot_tool_progress_report (progress, over, -1);
  /* "é" straddles the limit: it goes whole. */
  zot_tool_progress_report (progress, split, -1);
  zot_tool_progress_report (progress, "\xff" "bad", -1);
  g_assert_cmpstr (g_ptr_array_index (collected.lines, 0), ==, at_limit);
  g_assert_cmpuint (strlen (g_ptr_array_index (collected.lines, 1)), ==, ZOT_TOOL_PROGRESS_LINE_MAX_BYTES);
  g_assert_cmpuint (strlen (g_ptr_array_index (collected.lines, 2)), ==, ZOT_TOOL_PROGRESS_LINE_MAX_BYTES - 1);
  g_assert_true (g_utf8_validate (g_ptr_array_index (collected.lines, 3), -1, NULL));

  for (guint i = 4; i < ZOT_TOOL_PROGRESS_MAX_LINES + 10; i++)
    zot_tool_progress_report (progress, "line", -1);
  g_assert_cmpuint (collected.lines->len, ==, ZOT_TOOL_PROGRESS_MAX_LINES + 1);
  g_assert_cmpstr (g_ptr_array_index (collected.lines, ZOT_TOOL_PROGRESS_MAX_LINES - 1), ==, "line");
  g_assert_nonnull (strstr (g_ptr_array_index (collected.lines, ZOT_TOOL_PROGRESS_MAX_LINES), "more output"));

  g_ptr_array_set_size (collected.lines, 0);
  {
    g_autoptr(ZotToolProgress) fresh = zot_tool_progress_new (collect_progress, &collected);

    zot_tool_progress_close (fresh);
    zot_tool_progress_report (fresh, "late", -1);
    g_assert_cmpuint (collected.lines->len, ==, 0);
  }
  g_ptr_array_unref (collected.lines);
}

/* An abort in the middle of a stream ends the turn with stop:"aborted",
 * then done; zot goes on serving. */
static void
test_abort_stream (Fixture       *f,
                   gconstpointer  data)
{
  const char *events[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Once upon\"}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a time\"}}]}",
    NULL,
  };
  g_auto(GStrv) script = zot_fake_server_openai_text ("after the abort", 100);
  g_autofree char *prompt = NULL;
  g_autofree char *abort_id = NULL;
  g_autofree char *next = NULL;
  JsonObject *end;
  JsonObject *done;

  start_with_server (f, "openai", "m", "--no-ext");
  zot_fake_server_push_hang (f->server, events);
  zot_fake_server_push_sse (f->server, (const char * const *) script, FALSE);

  prompt = send_command (f, "prompt", "\"message\":\"tell a story\"");
  wait_event (f, "text_delta", 1);
  abort_id = send_command (f, "abort", NULL);
  g_assert_true (json_object_get_boolean_member (wait_response (f, abort_id), "success"));

  end = wait_event (f, "turn_end", 0);
  done = wait_event (f, "done", 0);
  g_assert_cmpstr (json_object_get_string_member (end, "stop"), ==, "aborted");
  g_assert_cmpuint (index_of (f, end), <, index_of (f, done));
  g_assert_cmpuint (count_type (f, "error"), ==, 0);

  next = send_command (f, "prompt", "\"message\":\"go on\"");
  g_assert_true (json_object_get_boolean_member (data_of (wait_response (f, next)), "started"));
  g_assert_cmpstr (json_object_get_string_member (wait_event (f, "turn_end", 1), "stop"), ==, "end_turn");
  wait_event (f, "done", 1);
  g_assert_cmpint (finish (f), ==, 0);
}

/* An abort while a tool runs: the tool's result is its error, then the
 * aborted turn_end and done. */
static void
test_abort_tool (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *prompt = NULL;
  g_autofree char *abort_id = NULL;
  JsonObject *result;
  JsonObject *end;

  START (f, "--no-ext");
  prompt = send_command (f, "prompt", "\"message\":\"tool: bash {\\\"command\\\":\\\"echo started; sleep 60\\\"}\"");
  wait_event (f, "tool_progress", 0);
  abort_id = send_command (f, "abort", NULL);
  g_assert_true (json_object_get_boolean_member (wait_response (f, abort_id), "success"));

  result = wait_event (f, "tool_result", 0);
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  end = wait_event (f, "turn_end", 1);
  g_assert_cmpstr (json_object_get_string_member (end, "stop"), ==, "aborted");
  g_assert_cmpuint (index_of (f, wait_event (f, "done", 0)), ==, index_of (f, end) + 1);
  g_assert_cmpint (finish (f), ==, 0);
}

/* Images come as {mime_type,data}; the events and get_messages show their
 * byte count, never the data. */
static void
test_images (Fixture       *f,
             gconstpointer  data)
{
  gsize png_size = 0;
  g_autofree guchar *png = g_base64_decode (PNG_BASE64, &png_size);
  g_autofree char *good = NULL;
  g_autofree char *not_image = NULL;
  g_autofree char *mismatch = NULL;
  g_autofree char *not_array = NULL;
  g_autofree char *messages = NULL;
  JsonObject *block;
  JsonArray *content;
  g_autofree char *request_text = NULL;

  start_with_server (f, "openai", "m", "--no-ext");
  {
    g_auto(GStrv) script = zot_fake_server_openai_text ("a red dot", 100);
    zot_fake_server_push_sse (f->server, (const char * const *) script, FALSE);
  }

  not_image = send_command (f, "prompt", "\"message\":\"look\",\"images\":[{\"mime_type\":\"image/png\","
                                         "\"data\":\"aGVsbG8=\"}]");
  mismatch = send_command (f, "prompt", "\"message\":\"look\",\"images\":[{\"mime_type\":\"image/jpeg\","
                                        "\"data\":\"" PNG_BASE64 "\"}]");
  not_array = send_command (f, "prompt", "\"message\":\"look\",\"images\":\"x\"");
  good = send_command (f, "prompt", "\"message\":\"what is this\",\"images\":[{\"mime_type\":\"image/png\","
                                    "\"data\":\"" PNG_BASE64 "\"}]");
  assert_refused (wait_response (f, not_image), "not a PNG, JPEG, GIF or WebP");
  assert_refused (wait_response (f, mismatch), "image/png image, not image/jpeg");
  assert_refused (wait_response (f, not_array), "\"images\" must be an array");
  g_assert_true (json_object_get_boolean_member (data_of (wait_response (f, good)), "started"));
  wait_event (f, "done", 0);

  content = json_object_get_array_member (wait_event (f, "user_message", 0), "content");
  g_assert_cmpuint (json_array_get_length (content), ==, 2);
  block = json_array_get_object_element (content, 1);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "image");
  g_assert_cmpstr (json_object_get_string_member (block, "mime_type"), ==, "image/png");
  g_assert_cmpint (json_object_get_int_member (block, "bytes"), ==, png_size);
  g_assert_false (json_object_has_member (block, "data"));

  /* The model got the image itself. */
  request_text = zot_json_object_to_string (zot_fake_server_get_request_body (f->server, 0));
  g_assert_nonnull (strstr (request_text, "data:image/png;base64," PNG_BASE64));

  messages = send_command (f, "get_messages", NULL);
  content = json_object_get_array_member (
    json_array_get_object_element (json_object_get_array_member (data_of (wait_response (f, messages)), "messages"),
                                   0), "content");
  block = json_array_get_object_element (content, 1);
  g_assert_cmpint (json_object_get_int_member (block, "bytes"), ==, png_size);
  g_assert_false (json_object_has_member (block, "data"));

  g_assert_cmpint (finish (f), ==, 0);
}

/* compact: started at once, then turn_start, turn_end, compact_done with
 * the summary, done; the transcript is the summary after. */
static void
test_compact (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *empty = NULL;
  g_autofree char *first = NULL;
  g_autofree char *compact = NULL;
  g_autofree char *state = NULL;
  g_autofree char *command = NULL;
  g_autofree char *types = NULL;
  JsonObject *response;
  JsonObject *summary;

  START (f, "--no-ext");

  /* Nothing to compact: an empty summary, and the same ending. */
  empty = send_command (f, "compact", NULL);
  g_assert_true (json_object_get_boolean_member (data_of (wait_response (f, empty)), "started"));
  wait_event (f, "done", 0);
  types = types_from (f, index_of (f, wait_response (f, empty)) + 1);
  g_assert_cmpstr (types, ==, "turn_start turn_end compact_done done");
  g_assert_cmpstr (json_object_get_string_member (wait_event (f, "compact_done", 0), "summary"), ==, "");

  first = send_command (f, "prompt", "\"message\":\"remember the blue door\"");
  wait_event (f, "done", 1);
  compact = send_command (f, "compact", NULL);
  response = wait_response (f, compact);
  g_assert_true (json_object_get_boolean_member (data_of (response), "started"));
  wait_event (f, "done", 2);
  g_clear_pointer (&types, g_free);
  types = types_from (f, index_of (f, response) + 1);
  g_assert_cmpstr (types, ==, "turn_start turn_end compact_done done");
  summary = wait_event (f, "compact_done", 1);
  g_assert_nonnull (strstr (json_object_get_string_member (summary, "summary"), "remember the blue door"));
  g_assert_cmpstr (json_object_get_string_member (wait_event (f, "turn_end", 2), "stop"), ==, "end_turn");

  state = send_command (f, "get_state", NULL);
  g_assert_cmpint (json_object_get_int_member (data_of (wait_response (f, state)), "message_count"), ==, 1);

  /* This host's `command` runs a slash command; one that compacts ends
   * with done before its response. */
  command = send_command (f, "command", "\"name\":\"/compact\"");
  response = wait_response (f, command);
  g_assert_true (json_object_get_boolean_member (response, "success"));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (f->lines, index_of (f, response) - 1),
                                                  "type"), ==, "done");

  g_assert_cmpint (finish (f), ==, 0);
}

/* get_messages in the message shape: text, tool_call, tool_result with
 * its content, each message with a time; clear drops them. */
static void
test_messages_clear (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *prompt = NULL;
  g_autofree char *messages = NULL;
  g_autofree char *clear = NULL;
  g_autofree char *state = NULL;
  JsonArray *list;
  JsonObject *assistant;
  JsonObject *call;
  JsonObject *result;

  START (f, "--no-ext");
  prompt = send_command (f, "prompt", "\"message\":\"tool: bash {\\\"command\\\":\\\"echo shaped\\\"}\"");
  wait_event (f, "done", 0);
  messages = send_command (f, "get_messages", NULL);
  list = json_object_get_array_member (data_of (wait_response (f, messages)), "messages");
  g_assert_cmpuint (json_array_get_length (list), ==, 4);
  for (guint i = 0; i < 4; i++)
    assert_time (json_array_get_object_element (list, i));

  assistant = json_array_get_object_element (list, 1);
  g_assert_cmpstr (json_object_get_string_member (assistant, "role"), ==, "assistant");
  call = json_array_get_object_element (json_object_get_array_member (assistant, "content"), 1);
  g_assert_cmpstr (json_object_get_string_member (call, "type"), ==, "tool_call");
  g_assert_cmpstr (json_object_get_string_member (call, "name"), ==, "bash");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (call, "args"), "command"), ==,
                   "echo shaped");

  result = json_array_get_object_element (json_object_get_array_member (json_array_get_object_element (list, 2),
                                                                        "content"), 0);
  g_assert_cmpstr (json_object_get_string_member (result, "type"), ==, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "call_id"), ==, json_object_get_string_member (call, "id"));
  g_assert_false (json_object_get_boolean_member (result, "is_error"));
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (
                      json_object_get_array_member (result, "content"), 0), "text"), "shaped"));

  clear = send_command (f, "clear", NULL);
  g_assert_true (json_object_get_boolean_member (wait_response (f, clear), "success"));
  state = send_command (f, "get_state", NULL);
  g_assert_cmpint (json_object_get_int_member (data_of (wait_response (f, state)), "message_count"), ==, 0);
  g_assert_cmpint (finish (f), ==, 0);
}

/* OpenAI-compatible server: get_models, set_model, set_reasoning mapped to
 * reasoning_effort, and usage with reasoning, cache reads and the cost
 * from the price table, per call and cumulative; get_state's usage. */
static void
test_openai_usage_models (Fixture       *f,
                          gconstpointer  data)
{
  const char *script[] = {
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"priced\"}}]}",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":300,"
    "\"prompt_tokens_details\":{\"cached_tokens\":400},"
    "\"completion_tokens_details\":{\"reasoning_tokens\":120}}}",
    "data: [DONE]",
    NULL,
  };
  const ZotModelInfo *mini = zot_model_info_lookup ("openai", "gpt-5-mini");
  g_autoptr(GPtrArray) known = zot_model_facts_list ("openai");
  ZotTokenCounts counts = { 600, 300, 400, 0 };
  double cost;
  g_autofree char *models = NULL;
  g_autofree char *set_model = NULL;
  g_autofree char *bad_model_args = NULL;
  g_autofree char *set_reasoning = NULL;
  g_autofree char *bad_reasoning = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *state = NULL;
  JsonArray *list;
  JsonObject *usage;
  JsonObject *cumulative;
  JsonObject *payload;

  g_assert_nonnull (mini);
  g_assert_true (zot_model_info_get_price (mini, &counts, &cost));
  /* gpt-5-mini: $0.25 in, $2 out, $0.025 cached, per million. */
  g_assert_cmpfloat_with_epsilon (cost, (600 * 0.25 + 300 * 2.00 + 400 * 0.025) / 1e6, 1e-12);
  start_with_server (f, "openai", "gpt-4o-mini", "--no-ext");
  zot_fake_server_push_sse (f->server, script, FALSE);
  zot_fake_server_push_sse (f->server, script, FALSE);

  models = send_command (f, "get_models", NULL);
  list = json_object_get_array_member (data_of (wait_response (f, models)), "models");
  g_assert_cmpuint (json_array_get_length (list), ==, known->len);
  g_assert_cmpuint (known->len, >, 0);
  for (guint i = 0; i < known->len; i++)
    {
      JsonObject *entry = json_array_get_object_element (list, i);
      const ZotModelInfo *model = g_ptr_array_index (known, i);

      g_assert_cmpstr (json_object_get_string_member (entry, "id"), ==, model->id);
      g_assert_cmpstr (json_object_get_string_member (entry, "provider"), ==, "openai");
      g_assert_cmpint (json_object_get_int_member (entry, "context_window"), ==, model->context_window);
      g_assert_cmpint (json_object_get_int_member (entry, "max_output"), ==, model->max_output);
      g_assert_cmpint (json_object_get_boolean_member (entry, "reasoning"), ==, model->reasoning);
    }

  bad_model_args = send_command (f, "set_model", NULL);
  assert_refused (wait_response (f, bad_model_args), "\"model\"");
  set_model = send_command (f, "set_model", "\"model\":\"gpt-5-mini\"");
  payload = data_of (wait_response (f, set_model));
  g_assert_cmpstr (json_object_get_string_member (payload, "model"), ==, "gpt-5-mini");
  g_assert_cmpstr (json_object_get_string_member (payload, "provider"), ==, "openai");

  bad_reasoning = send_command (f, "set_reasoning", "\"reasoning\":\"extreme\"");
  assert_refused (wait_response (f, bad_reasoning), "off, minimum, low");
  set_reasoning = send_command (f, "set_reasoning", "\"reasoning\":\"minimum\"");
  g_assert_cmpstr (json_object_get_string_member (data_of (wait_response (f, set_reasoning)), "reasoning"), ==,
                   "minimum");

  first = send_command (f, "prompt", "\"message\":\"one\"");
  wait_event (f, "done", 0);
  second = send_command (f, "prompt", "\"message\":\"two\"");
  wait_event (f, "done", 1);

  g_assert_cmpstr (json_object_get_string_member (zot_fake_server_get_request_body (f->server, 0), "model"), ==,
                   "gpt-5-mini");
  g_assert_cmpstr (json_object_get_string_member (zot_fake_server_get_request_body (f->server, 0),
                                                  "reasoning_effort"), ==, "minimal");

  usage = wait_event (f, "usage", 1);
  g_assert_cmpint (json_object_get_int_member (usage, "input"), ==, 600);
  g_assert_cmpint (json_object_get_int_member (usage, "output"), ==, 300);
  g_assert_cmpint (json_object_get_int_member (usage, "reasoning"), ==, 120);
  g_assert_cmpint (json_object_get_int_member (usage, "cache_read"), ==, 400);
  g_assert_cmpint (json_object_get_int_member (usage, "cache_write"), ==, 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (usage, "cost_usd"), cost, 1e-12);
  cumulative = json_object_get_object_member (usage, "cumulative");
  g_assert_cmpint (json_object_get_int_member (cumulative, "input"), ==, 1200);
  g_assert_cmpint (json_object_get_int_member (cumulative, "output"), ==, 600);
  g_assert_cmpint (json_object_get_int_member (cumulative, "reasoning"), ==, 240);
  g_assert_cmpint (json_object_get_int_member (cumulative, "cache_read"), ==, 800);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (cumulative, "cost_usd"), 2 * cost, 1e-12);
  g_assert_true (json_object_get_boolean_member (cumulative, "cost_known"));

  state = send_command (f, "get_state", NULL);
  payload = data_of (wait_response (f, state));
  g_assert_cmpstr (json_object_get_string_member (payload, "provider"), ==, "openai");
  g_assert_cmpstr (json_object_get_string_member (payload, "model"), ==, "gpt-5-mini");
  g_assert_cmpstr (json_object_get_string_member (payload, "cwd"), ==, f->env.cwd);
  g_assert_cmpint (json_object_get_int_member (payload, "message_count"), ==, 4);
  g_assert_false (json_object_get_boolean_member (payload, "busy"));
  g_assert_true (json_object_equal (json_object_get_object_member (payload, "usage"), cumulative));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_object_get_object_member (payload, "usage"),
                                                                 "cost_usd"), 2 * cost, 1e-12);

  g_assert_cmpint (finish (f), ==, 0);
}

/* Anthropic with --reasoning: a thinking budget in the request, the
 * thinking block (signature and all) sent back before the tool result,
 * and cache reads and writes priced. */
static void
test_anthropic_reasoning (Fixture       *f,
                          gconstpointer  data)
{
  const char *thinking_call[] = {
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,"
    "\"cache_read_input_tokens\":2000,\"cache_creation_input_tokens\":500,\"output_tokens\":1}}}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me list.\"}}",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig-123\"}}",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"bash\",\"input\":{}}}",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\":\\\"echo hi\\\"}\"}}",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},"
    "\"usage\":{\"output_tokens\":40}}",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}",
    NULL,
  };
  g_auto(GStrv) answer = zot_fake_server_anthropic_text ("done thinking", 100);
  const ZotModelInfo *sonnet = zot_model_info_lookup ("anthropic", "claude-sonnet-4-5");
  ZotTokenCounts counts = { 10, 40, 2000, 500 };
  double cost;
  g_autofree char *prompt = NULL;
  g_autofree char *messages = NULL;
  JsonObject *body;
  JsonObject *thinking;
  JsonObject *usage;
  JsonArray *sent;
  JsonArray *list;
  g_autofree char *second_body = NULL;

  start_with_server (f, "anthropic", "claude-sonnet-4-5", "--reasoning=medium");
  zot_fake_server_push_sse (f->server, thinking_call, FALSE);
  zot_fake_server_push_sse (f->server, (const char * const *) answer, FALSE);

  prompt = send_command (f, "prompt", "\"message\":\"list things\"");
  wait_event (f, "done", 0);
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 2);

  body = zot_fake_server_get_request_body (f->server, 0);
  thinking = json_object_get_object_member (body, "thinking");
  g_assert_cmpstr (json_object_get_string_member (thinking, "type"), ==, "enabled");
  g_assert_cmpint (json_object_get_int_member (thinking, "budget_tokens"), >=, 1024);
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), >,
                   json_object_get_int_member (thinking, "budget_tokens"));
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), <=, sonnet->max_output);

  /* The assistant turn goes back with its thinking block first. */
  body = zot_fake_server_get_request_body (f->server, 1);
  sent = json_object_get_array_member (json_array_get_object_element (json_object_get_array_member (body, "messages"),
                                                                      1), "content");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (sent, 0), "type"), ==, "thinking");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (sent, 0), "signature"), ==,
                   "sig-123");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (sent, 0), "thinking"), ==,
                   "Let me list.");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (sent, 1), "type"), ==, "tool_use");
  second_body = zot_json_object_to_string (body);
  g_assert_null (strstr (second_body, "\"time\""));

  /* The thinking streamed as its own event, before the message. */
  g_assert_cmpuint (count_type (f, "reasoning_delta"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (wait_event (f, "reasoning_delta", 0), "delta"), ==, "Let me list.");
  g_assert_cmpuint (index_of (f, wait_event (f, "reasoning_delta", 0)), <,
                    index_of (f, wait_event (f, "assistant_message", 0)));

  usage = wait_event (f, "usage", 0);
  g_assert_cmpint (json_object_get_int_member (usage, "input"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (usage, "output"), ==, 40);
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (usage, "reasoning")));
  g_assert_cmpint (json_object_get_int_member (usage, "cache_read"), ==, 2000);
  g_assert_cmpint (json_object_get_int_member (usage, "cache_write"), ==, 500);
  g_assert_true (zot_model_info_get_price (sonnet, &counts, &cost));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (usage, "cost_usd"), cost, 1e-12);
  g_assert_true (json_object_get_boolean_member (usage, "cost_known"));
  g_assert_cmpfloat_with_epsilon (cost, (10 * 3.00 + 40 * 15.00 + 2000 * 0.30 + 500 * 3.75) / 1e6, 1e-12);

  /* The thinking block is not part of the message shape. */
  messages = send_command (f, "get_messages", NULL);
  list = json_object_get_array_member (data_of (wait_response (f, messages)), "messages");
  sent = json_object_get_array_member (json_array_get_object_element (list, 1), "content");
  g_assert_cmpuint (json_array_get_length (sent), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (sent, 0), "type"), ==, "tool_call");

  g_assert_cmpint (finish (f), ==, 0);
}

/* A model the table knows cannot reason gets no reasoning setting; set
 * reasoning survives a model switch. */
static void
test_reasoning_mapping (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(GStrv) script = zot_fake_server_openai_text ("ok", 100);
  g_autofree char *first = NULL;
  g_autofree char *model = NULL;
  g_autofree char *second = NULL;

  start_with_server (f, "openai", "gpt-4o-mini", "--reasoning=max");
  zot_fake_server_push_sse (f->server, (const char * const *) script, FALSE);
  zot_fake_server_push_sse (f->server, (const char * const *) script, FALSE);

  first = send_command (f, "prompt", "\"message\":\"one\"");
  wait_event (f, "done", 0);
  model = send_command (f, "set_model", "\"model\":\"o3\"");
  g_assert_true (json_object_get_boolean_member (wait_response (f, model), "success"));
  second = send_command (f, "prompt", "\"message\":\"two\"");
  wait_event (f, "done", 1);

  g_assert_false (json_object_has_member (zot_fake_server_get_request_body (f->server, 0), "reasoning_effort"));
  g_assert_cmpstr (json_object_get_string_member (zot_fake_server_get_request_body (f->server, 1),
                                                  "reasoning_effort"), ==, "high");
  g_assert_cmpint (finish (f), ==, 0);
}

/* Sessions are off in RPC unless --session or --continue names one. */
static void
test_sessions_default (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *sessions = g_build_filename (f->env.home, "sessions", NULL);
  g_autofree char *path = g_build_filename (f->env.root, "kept.jsonl", NULL);
  g_autofree char *first = NULL;
  g_autofree char *state = NULL;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;

  START (f, "--no-ext");
  first = send_command (f, "prompt", "\"message\":\"not kept\"");
  wait_event (f, "done", 0);
  state = send_command (f, "get_state", NULL);
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (data_of (wait_response (f, state)), "session_path")));
  g_assert_cmpint (finish (f), ==, 0);
  g_assert_false (g_file_test (sessions, G_FILE_TEST_EXISTS));

  g_clear_object (&f->stdin_pipe);
  g_clear_object (&f->stdout_lines);
  g_clear_object (&f->process);
  g_ptr_array_set_size (f->lines, 0);
  f->eof = f->exited = FALSE;
  g_clear_pointer (&first, g_free);

  START (f, "--no-ext", "--session", path);
  first = send_command (f, "prompt", "\"message\":\"kept\"");
  wait_event (f, "done", 0);
  g_assert_cmpint (finish (f), ==, 0);
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
}

/* The copyable client of examples/rpc/ runs a prompt to its done. */
static void
test_python_client (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *client = g_test_build_filename (G_TEST_DIST, "..", "examples", "rpc", "client.py", NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  if (python == NULL)
    {
      g_test_skip ("python3 is not installed");
      return;
    }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, f->env.cwd);
  g_subprocess_launcher_setenv (launcher, "ZOT_HOME", f->env.home, TRUE);
  g_subprocess_launcher_setenv (launcher, "ZOTCORE_RPC_TOKEN", "t0ken", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "ANTHROPIC_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");
  process = g_subprocess_launcher_spawn (launcher, &error, python, client, "--zot", g_getenv ("ZOT_BIN"),
                                         "tool: bash {\"command\":\"echo from python\"}", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);

  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  g_assert_nonnull (strstr (out, "1 tool call finished"));
  g_assert_nonnull (strstr (err, "[tool] bash"));
  g_assert_nonnull (strstr (err, "[progress] from python"));
  g_assert_nonnull (strstr (err, "[usage]"));
}

/* A preset without shipped facts (Groq) lists its default model and the
 * one in use, their unknown window and output 0 (a known one is listed
 * once, with its facts: openai-usage-models). */
static void
test_models_of_preset (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *models = NULL;
  g_autoptr(GPtrArray) shipped = zot_model_facts_list ("groq");
  JsonArray *list;
  JsonObject *entry;

  g_assert_cmpuint (shipped->len, ==, 0);
  start_with_server (f, "groq", "my-own-model", "--no-ext");
  models = send_command (f, "get_models", NULL);
  list = json_object_get_array_member (data_of (wait_response (f, models)), "models");
  g_assert_cmpuint (json_array_get_length (list), ==, 2);
  entry = json_array_get_object_element (list, 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "id"), ==, "llama-3.3-70b-versatile");
  g_assert_cmpstr (json_object_get_string_member (entry, "provider"), ==, "groq");
  g_assert_cmpint (json_object_get_int_member (entry, "context_window"), ==, 0);
  g_assert_false (json_object_get_boolean_member (entry, "reasoning"));
  entry = json_array_get_object_element (list, 1);
  g_assert_cmpstr (json_object_get_string_member (entry, "id"), ==, "my-own-model");
  g_assert_cmpint (finish (f), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/rpc/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("hello-ping", test_hello_ping);
  ADD ("token", test_token);
  ADD ("malformed", test_malformed);
  ADD ("unknown-commands", test_unknown_commands);
  ADD ("prompt-events", test_prompt_events);
  ADD ("queue", test_queue);
  ADD ("new-while-busy", test_new_while_busy);
  ADD ("tool-progress", test_tool_progress);
  ADD ("nested-calls", test_nested_calls);
  ADD ("progress-limits", test_progress_limits);
  ADD ("abort-stream", test_abort_stream);
  ADD ("abort-tool", test_abort_tool);
  ADD ("images", test_images);
  ADD ("compact", test_compact);
  ADD ("messages-clear", test_messages_clear);
  ADD ("openai-usage-models", test_openai_usage_models);
  ADD ("anthropic-reasoning", test_anthropic_reasoning);
  ADD ("reasoning-mapping", test_reasoning_mapping);
  ADD ("sessions-default", test_sessions_default);
  ADD ("python-client", test_python_client);
  ADD ("state-stats", test_state_stats);
  ADD ("state-needs-approval", test_state_needs_approval);
  ADD ("models-of-preset", test_models_of_preset);

#undef ADD

  return g_test_run ();
}
