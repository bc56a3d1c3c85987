/* test-headless.c — `zot -p`, `zot --json` and `zot rpc` end to end, with
 * the demo model, a scripted OpenAI-compatible server and fixture
 * extensions. The binary runs as a child; the server runs in this process,
 * so the main loop turns while the child works. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "zot-fake-server.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-provider-table.h"
#include "zot-session.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  char       *out;
  char       *err;
  int         status;
  GPtrArray  *events;   /* parsed stdout lines */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_pointer (&f->out, g_free);
  g_clear_pointer (&f->err, g_free);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

typedef struct
{
  gboolean  done;
  char     *out;
  char     *err;
} Communicate;

static void
communicated_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Communicate *c = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &c->out, &c->err, &error);
  g_assert_no_error (error);
  c->done = TRUE;
}

static void
run_with_input (Fixture            *f,
                const char         *input,
                const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) subprocess = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  Communicate c = { 0 };

  g_ptr_array_add (argv, (gpointer) g_getenv ("ZOT_BIN"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, f->env.cwd);
  g_subprocess_launcher_setenv (launcher, "ZOT_HOME", f->env.home, TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "ANTHROPIC_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");

  subprocess = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (subprocess, input ? input : "", NULL, communicated_cb, &c);
  zot_test_wait_for (&c.done, 60000);

  g_clear_pointer (&f->out, g_free);
  g_clear_pointer (&f->err, g_free);
  f->out = c.out;
  f->err = c.err;
  g_assert_true (g_subprocess_get_if_exited (subprocess));
  f->status = g_subprocess_get_exit_status (subprocess);

  g_ptr_array_set_size (f->events, 0);
  lines = g_strsplit (f->out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonObject) event = NULL;

      if (*lines[i] == '\0' || lines[i][0] != '{')
        continue;
      event = zot_json_object_from_string (lines[i], NULL);
      if (event != NULL)
        g_ptr_array_add (f->events, g_steal_pointer (&event));
    }
}

#define RUN(f, input, ...) run_with_input (f, input, (const char *[]) { __VA_ARGS__, NULL })

static char *
event_types (Fixture *f)
{
  GString *types = g_string_new (NULL);
  const char *last = NULL;

  for (guint i = 0; i < f->events->len; i++)
    {
      const char *type = json_object_get_string_member (g_ptr_array_index (f->events, i), "type");

      /* Runs of deltas count once. */
      if (g_strcmp0 (type, last) == 0 && g_str_equal (type, "text_delta"))
        continue;
      if (types->len > 0)
        g_string_append_c (types, ' ');
      g_string_append (types, type);
      last = type;
    }

  return g_string_free (types, FALSE);
}

static JsonObject *
find_event (Fixture    *f,
            const char *type,
            guint       nth)
{
  for (guint i = 0; i < f->events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (f->events, i);

      if (g_str_equal (json_object_get_string_member (event, "type"), type) && nth-- == 0)
        return event;
    }
  return NULL;
}

static JsonObject *
find_response (Fixture    *f,
               const char *id)
{
  for (guint i = 0; i < f->events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (f->events, i);

      if (g_str_equal (json_object_get_string_member (event, "type"), "response") &&
          g_strcmp0 (json_object_get_string_member_with_default (event, "id", NULL), id) == 0)
        return event;
    }
  g_error ("no response with id %s in:\n%s", id, f->out);
  return NULL;
}

/* Print mode */

static void
test_print_demo (Fixture       *f,
                 gconstpointer  data)
{
  RUN (f, NULL, "-p", "hello");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "You said: hello"));
  g_assert_nonnull (strstr (f->out, "demo model"));
  g_assert_cmpstr (f->err, ==, "");
}

static void
test_print_tools (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->env.cwd, "made.txt", NULL);
  g_autofree char *contents = NULL;

  RUN (f, NULL, "-p", "tool: write {\"path\":\"made.txt\",\"content\":\"by the demo\"}");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "by the demo");
  g_assert_nonnull (strstr (f->out, "1 tool call finished"));

  RUN (f, NULL, "--no-tools", "-p", "tool: bash {\"command\":\"true\"}");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "failed"));
}

static void
test_print_extension_prompt (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "prompter", "--command", "ask", NULL);

  /* The command answers `prompt`: the model turn runs, its text is printed. */
  RUN (f, NULL, "-e", dir, "-p", "/ask prompt write a poem");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "You said: write a poem"));
}

static void
test_print_errors (Fixture       *f,
                   gconstpointer  data)
{
  RUN (f, NULL, "--provider", "nonsense", "-p", "hi");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "unknown provider \"nonsense\""));

  RUN (f, NULL, "--provider", "anthropic", "-p", "hi");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "ANTHROPIC_API_KEY"));

  RUN (f, NULL, "--continue", "-p", "hi");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "no session to continue"));

  RUN (f, NULL, "-p", "/nosuch");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "unknown command /nosuch"));
  g_assert_nonnull (strstr (f->err, "/compact"));
}

static void
test_print_builtins (Fixture       *f,
                     gconstpointer  data)
{
  RUN (f, NULL, "-p", "/model");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "demo"));

  RUN (f, NULL, "-p", "/compact");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "Nothing to compact"));

  RUN (f, NULL, "-p", "/yolo");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "window"));
}

/* Sessions */

static guint
count_session_files (Fixture *f)
{
  g_autofree char *sessions = g_build_filename (f->env.home, "sessions", NULL);
  g_autoptr(GDir) dir = g_dir_open (sessions, 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *sub = g_build_filename (sessions, name, NULL);
      g_autoptr(GDir) inner = g_dir_open (sub, 0, NULL);

      while (inner != NULL && g_dir_read_name (inner) != NULL)
        n++;
    }
  return n;
}

static void
test_sessions (Fixture       *f,
               gconstpointer  data)
{
  JsonObject *state;

  RUN (f, NULL, "--no-session", "-p", "forget me");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpuint (count_session_files (f), ==, 0);

  RUN (f, NULL, "-p", "remember me");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpuint (count_session_files (f), ==, 1);

  /* --continue picks it up: its two messages are there. */
  RUN (f, "{\"type\":\"get_state\",\"id\":\"s\"}\n", "--continue", "rpc");
  g_assert_cmpint (f->status, ==, 0);
  state = json_object_get_object_member (find_response (f, "s"), "data");
  g_assert_cmpint (json_object_get_int_member (state, "message_count"), ==, 2);
  g_assert_cmpuint (count_session_files (f), ==, 1);
}

static char *
make_first_session (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  char *path;

  RUN (f, NULL, "-p", "remember me");
  g_assert_cmpint (f->status, ==, 0);
  path = zot_session_find_latest (f->env.cwd, &error);
  g_assert_no_error (error);
  return path;
}

/* Each headless mode refuses a session another process writes, with
 * status 1 and one line naming the file; the file stays as it was. */
static void
test_session_locked (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = make_first_session (f);
  g_autofree char *before = zot_test_read_file (path);
  g_autofree char *after = NULL;
  g_autofree char *expected = g_strdup_printf ("zot: the session %s is open in another zot process; "
                                               "close it there, or use --no-session or a new session\n",
                                               path);
  JsonObject *event;
  int fd;

  /* Another zot holds it, as far as the lock tells. */
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);

  RUN (f, NULL, "--session", path, "-p", "hi");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_cmpstr (f->err, ==, expected);

  RUN (f, NULL, "--continue", "-p", "hi");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_cmpstr (f->err, ==, expected);

  RUN (f, NULL, "--continue", "--json", "hi");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_cmpstr (f->err, ==, expected);
  event = find_event (f, "error", 0);
  g_assert_nonnull (event);
  g_assert_nonnull (strstr (json_object_get_string_member (event, "message"), path));

  RUN (f, "{\"type\":\"get_state\",\"id\":\"s\"}\n", "--session", path, "rpc");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_cmpstr (f->err, ==, expected);

  after = zot_test_read_file (path);
  g_assert_cmpstr (after, ==, before);

  /* Once it is let go, the conversation goes on. */
  close (fd);
  RUN (f, NULL, "--continue", "-p", "again");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->err, ==, "");
}

/* A damaged, interrupted session still runs, with one warning per kind
 * of mending on stderr, and the made-up results reach the file. */
static void
test_session_mended (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->env.root, "mended.jsonl", NULL);
  g_autofree char *real_cwd = realpath (f->env.cwd, NULL);
  g_autofree char *contents = g_strdup_printf (
    "{\"type\":\"session\",\"version\":1,\"id\":\"m\",\"cwd\":\"%s\"}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"ls\"}]}}\n"
    "garbage\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":["
    "{\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"bash\",\"input\":{\"command\":\"ls\"}}]}}\n",
    real_cwd);
  g_autofree char *expected = g_strdup_printf (
    "zot: warning: skipped 1 damaged or misplaced line of the session %s (line 3); the rest was loaded\n"
    "zot: warning: 1 tool call in the session %s had no result, as zot stopped before it finished; "
    "it is marked interrupted\n", path, path);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *messages;
  JsonObject *result;

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));

  RUN (f, NULL, "--session", path, "-p", "hi");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->err, ==, expected);
  g_assert_nonnull (strstr (f->out, "You said: hi"));

  /* user, assistant, the interrupted result, the prompt, the answer */
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  messages = zot_session_get_messages (session);
  g_assert_cmpuint (messages->len, ==, 5);
  g_assert_cmpstr (zot_message_get_role (g_ptr_array_index (messages, 2)), ==, "tool");
  result = json_array_get_object_element (json_object_get_array_member (g_ptr_array_index (messages, 2),
                                                                        "content"), 0);
  g_assert_true (json_object_get_boolean_member (result, "interrupted"));
  /* Only the damaged line is left to skip. */
  g_assert_true (g_str_has_prefix (zot_session_get_warnings (session)[0], "skipped 1 damaged"));
  g_assert_null (zot_session_get_warnings (session)[1]);
}

/* JSON mode */

static void
test_json_text (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *types = NULL;
  JsonObject *end;

  RUN (f, NULL, "--json", "hello");
  g_assert_cmpint (f->status, ==, 0);
  types = event_types (f);
  g_assert_cmpstr (types, ==,
                   "user_message turn_start assistant_start text_delta assistant_message usage turn_end done");
  end = find_event (f, "turn_end", 0);
  g_assert_cmpstr (json_object_get_string_member (end, "stop"), ==, "end_turn");
  g_assert_false (json_object_has_member (end, "error"));
}

static void
test_json_tools (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *types = NULL;
  JsonObject *call;
  JsonObject *result;

  RUN (f, NULL, "--json", "tool: bash {\"command\":\"echo from-bash\"}");
  g_assert_cmpint (f->status, ==, 0);
  types = event_types (f);
  g_assert_cmpstr (types, ==,
                   "user_message turn_start assistant_start text_delta assistant_message usage turn_end "
                   "tool_call tool_progress tool_result "
                   "turn_start assistant_start text_delta assistant_message usage turn_end done");

  call = find_event (f, "tool_call", 0);
  result = find_event (f, "tool_result", 0);
  g_assert_cmpstr (json_object_get_string_member (call, "name"), ==, "bash");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (call, "args"), "command"), ==,
                   "echo from-bash");
  g_assert_cmpstr (json_object_get_string_member (call, "id"), ==, json_object_get_string_member (result, "id"));
  g_assert_false (json_object_get_boolean_member (result, "is_error"));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "turn_end", 0), "stop"), ==, "tool_use");
}

static void
test_json_extension (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "jsonext", "--command", "j", NULL);
  g_autofree char *bad = zot_test_make_fake_args (f->env.root, "dies", "--exit-before-hello", "2", NULL);
  JsonObject *event;

  RUN (f, NULL, "-e", dir, "-e", bad, "--json", "/j notify warn look out");
  g_assert_cmpint (f->status, ==, 0);
  event = find_event (f, "ext_notify", 0);
  g_assert_cmpstr (json_object_get_string_member (event, "extension"), ==, "jsonext");
  g_assert_cmpstr (json_object_get_string_member (event, "level"), ==, "warn");
  g_assert_cmpstr (json_object_get_string_member (event, "message"), ==, "look out");
  event = find_event (f, "ext_load_failed", 0);
  g_assert_nonnull (strstr (json_object_get_string_member (event, "message"), "status 2"));
  g_assert_nonnull (strstr (json_object_get_string_member (event, "log_path"), "ext-dies.log"));

  RUN (f, NULL, "-e", dir, "--json", "/j display shown");
  event = find_event (f, "ext_display", 0);
  g_assert_cmpstr (json_object_get_string_member (event, "text"), ==, "shown");

  RUN (f, NULL, "-e", dir, "--json", "/j insert typed");
  event = find_event (f, "ext_insert", 0);
  g_assert_cmpstr (json_object_get_string_member (event, "text"), ==, "typed");

  RUN (f, NULL, "-e", dir, "--json", "/j clear");
  g_assert_nonnull (find_event (f, "ext_notes_cleared", 0));

  /* An error line is an error event, and the exit code says so. */
  RUN (f, NULL, "-e", dir, "--json", "/j error no good");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (json_object_get_string_member (find_event (f, "error", 0), "message"), "no good"));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (f->events, f->events->len - 1), "type"), ==,
                   "done");

  /* prompt: the command's turn runs in the same stream. */
  RUN (f, NULL, "-e", dir, "--json", "/j prompt tell me a joke");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "You said: tell me a joke"));
}

/* A spontaneous open_panel needs the window: headless, the extension's log
 * says it was ignored, and the run goes on as if it never came. */
static void
test_json_open_panel (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "panelext", "--command", "p",
                                                  "--send-after-ready",
                                                  "{\"type\":\"open_panel\",\"panel\":{\"id\":\"x\","
                                                  "\"title\":\"X\",\"lines\":[\"hi\"]}}", NULL);
  g_autofree char *log_path = g_build_filename (f->env.home, "logs", "ext-panelext.log", NULL);
  g_autofree char *log = NULL;
  g_autofree char *types = NULL;

  RUN (f, NULL, "-e", dir, "--json", "/p send {\"type\":\"open_panel\",\"panel\":{\"id\":\"y\"}}");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_null (find_event (f, "error", 0));
  types = event_types (f);
  g_assert_null (strstr (types, "panel"));

  log = zot_test_read_file (log_path);
  g_assert_nonnull (strstr (log, "open_panel ignored: this host has no window"));
  g_assert_nonnull (strstr (strstr (log, "open_panel ignored") + 1, "open_panel ignored"));
}

static void
test_json_openai_server (Fixture       *f,
                         gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_auto(GStrv) script = zot_fake_server_openai_text ("Served from the fake server.", 6);
  g_autofree char *base = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  JsonObject *message;
  g_autofree char *text = NULL;

  zot_fake_server_push_sse (server, (const char * const *) script, FALSE);
  RUN (f, NULL, "--json", "--provider", "openai", "--base-url", base, "--model", "local-model", "hi");
  g_assert_cmpint (f->status, ==, 0);

  message = find_event (f, "assistant_message", 0);
  g_assert_nonnull (message);
  text = zot_content_get_text (json_object_get_array_member (message, "content"));
  g_assert_cmpstr (text, ==, "Served from the fake server.");
  g_assert_nonnull (find_event (f, "text_delta", 2));
  g_assert_cmpuint (zot_fake_server_get_n_requests (server), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (zot_fake_server_get_request_body (server, 0), "model"), ==,
                   "local-model");
  /* A model without known prices: tokens, no figure, and why. */
  g_assert_cmpfloat (json_object_get_double_member (find_event (f, "usage", 0), "cost_usd"), ==, 0.0);
  g_assert_false (json_object_get_boolean_member (find_event (f, "usage", 0), "cost_known"));
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (find_event (f, "usage", 0),
                                                                                 "cumulative"), "cost_known"));

  zot_fake_server_free (server);
}

/* The usage event prices the call from the table, a dated snapshot of a
 * model as the model. */
static void
test_json_usage_cost (Fixture       *f,
                      gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_auto(GStrv) script = zot_fake_server_openai_text ("priced", 6);
  g_autofree char *base = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  const ZotModelInfo *model = zot_model_info_lookup ("openai", "gpt-4o-mini");
  JsonObject *usage;

  g_assert_nonnull (model);
  zot_fake_server_push_sse (server, (const char * const *) script, FALSE);
  RUN (f, NULL, "--json", "--provider", "openai", "--base-url", base,
       "--model", "gpt-4o-mini-2024-07-18", "hi");
  g_assert_cmpint (f->status, ==, 0);

  usage = find_event (f, "usage", 0);
  g_assert_nonnull (usage);
  g_assert_cmpint (json_object_get_int_member (usage, "input"), ==, ZOT_FAKE_SERVER_INPUT_TOKENS);
  g_assert_cmpint (json_object_get_int_member (usage, "output"), ==, ZOT_FAKE_SERVER_OUTPUT_TOKENS);
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (usage, "reasoning")));
  g_assert_cmpfloat (json_object_get_double_member (usage, "cost_usd"), ==,
                     json_object_get_double_member (json_object_get_object_member (usage, "cumulative"),
                                                    "cost_usd"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (usage, "cost_usd"),
                                  (ZOT_FAKE_SERVER_INPUT_TOKENS * model->input_price +
                                   ZOT_FAKE_SERVER_OUTPUT_TOKENS * model->output_price) / 1e6,
                                  1e-12);
  g_assert_cmpfloat (json_object_get_double_member (usage, "cost_usd"), >, 0.0);
  g_assert_true (json_object_get_boolean_member (usage, "cost_known"));

  zot_fake_server_free (server);
}

static void
test_hello_ack_model (Fixture       *f,
                      gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_auto(GStrv) script = zot_fake_server_openai_text ("ok", 2);
  g_autofree char *base = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  g_autofree char *record = g_build_filename (f->env.root, "record.jsonl", NULL);
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "watcher", "--record", record, NULL);
  g_autoptr(GPtrArray) frames = NULL;
  JsonObject *ack;

  /* Extensions hear the provider and model the run really uses. */
  zot_fake_server_push_sse (server, (const char * const *) script, FALSE);
  RUN (f, NULL, "-e", dir, "--provider", "openai", "--base-url", base, "--model", "m-1", "-p", "hi");
  g_assert_cmpint (f->status, ==, 0);
  frames = zot_test_read_frames (record);
  ack = zot_test_find_frame (frames, "hello_ack");
  g_assert_nonnull (ack);
  g_assert_cmpstr (json_object_get_string_member (ack, "provider"), ==, "openai");
  g_assert_cmpstr (json_object_get_string_member (ack, "model"), ==, "m-1");
  g_assert_cmpstr (json_object_get_string_member (ack, "cwd"), ==, f->env.cwd);

  zot_fake_server_free (server);
}

static void
test_usage_errors (Fixture       *f,
                   gconstpointer  data)
{
  RUN (f, NULL, "-p");
  g_assert_cmpint (f->status, ==, 2);
  g_assert_nonnull (strstr (f->err, "-p needs a PROMPT"));

  RUN (f, NULL, "--json", "-p", "x");
  g_assert_cmpint (f->status, ==, 2);

  /* Flags may come after -p: the prompt is every remaining word. */
  RUN (f, NULL, "-p", "two", "words", "--no-session");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "You said: two words"));
}

/* $ZOT_HOME/models.json prices a model of the user's own; its bad entry
 * is one warning on stderr naming the file, the line and the field. */
static void
test_json_user_models (Fixture       *f,
                       gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_auto(GStrv) script = zot_fake_server_openai_text ("priced", 6);
  g_autofree char *base = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  g_autofree char *file = g_build_filename (f->env.home, "models.json", NULL);
  g_autofree char *warning = g_strdup_printf ("zot: warning: %s:3: field \"max_output\"", file);
  JsonObject *usage;

  g_assert_true (g_file_set_contents (file,
                                      "{\"models\": [\n"
                                      "  {\"provider\": \"openai\", \"id\": \"bad\",\n"
                                      "   \"max_output\": 1.5},\n"
                                      "  {\"provider\": \"openai\", \"id\": \"house-model\",\n"
                                      "   \"prices\": {\"input\": 2, \"output\": 4}}\n"
                                      "]}\n", -1, NULL));
  zot_fake_server_push_sse (server, (const char * const *) script, FALSE);
  RUN (f, NULL, "--json", "--provider", "openai", "--base-url", base, "--model", "house-model", "hi");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_true (g_str_has_prefix (f->err, warning));
  /* One line, and only one. */
  g_assert_cmpstr (strchr (f->err, '\n'), ==, "\n");

  usage = find_event (f, "usage", 0);
  g_assert_true (json_object_get_boolean_member (usage, "cost_known"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (usage, "cost_usd"),
                                  (ZOT_FAKE_SERVER_INPUT_TOKENS * 2.0 + ZOT_FAKE_SERVER_OUTPUT_TOKENS * 4.0) / 1e6,
                                  1e-12);

  zot_fake_server_free (server);
}

static void
test_json_provider_error (Fixture       *f,
                          gconstpointer  data)
{
  ZotFakeServer *server = zot_fake_server_new ();
  g_autofree char *base = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  JsonObject *end;

  zot_fake_server_push_json (server, 401, "{\"error\":{\"message\":\"invalid key\"}}", NULL);
  RUN (f, NULL, "--json", "--provider", "openai", "--base-url", base, "--api-key", "sk-x", "hi");
  g_assert_cmpint (f->status, ==, 1);
  end = find_event (f, "turn_end", 0);
  g_assert_cmpstr (json_object_get_string_member (end, "stop"), ==, "error");
  g_assert_nonnull (strstr (json_object_get_string_member (end, "error"), "--api-key"));
  g_assert_nonnull (find_event (f, "error", 0));

  zot_fake_server_free (server);
}

static void
test_json_interactive_tool_refused (Fixture       *f,
                                    gconstpointer  data)
{
  /* Interactive tools come with extension tools; until then the agent's
   * own check is covered in test-agent. Here: an unknown tool fails at once
   * with a result the model sees, and the run goes on. */
  JsonObject *result;

  RUN (f, NULL, "--json", "tool: ask_user {}");
  g_assert_cmpint (f->status, ==, 0);
  result = find_event (f, "tool_result", 0);
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
}

/* RPC mode */

/* This host's additions to the RPC schema: `command` runs a slash
 * command (an extension's, a built-in), the ext_* events; the extensions
 * show in get_state. The schema itself is tested in test-rpc. */
static void
test_rpc_commands (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "rpcext", "--command", "r", NULL);
  JsonObject *response;
  JsonObject *payload;

  RUN (f,
       "{\"type\":\"get_state\",\"id\":\"2\"}\n"
       "{\"type\":\"prompt\",\"id\":\"3\",\"message\":\"hello rpc\"}\n"
       "{\"type\":\"command\",\"id\":\"4\",\"name\":\"/r\",\"args\":\"display via rpc\"}\n"
       "{\"type\":\"command\",\"id\":\"5\",\"name\":\"help\"}\n"
       "{\"type\":\"command\",\"id\":\"6\",\"name\":\"\"}\n"
       "{\"type\":\"command\",\"id\":\"7\",\"name\":\"r\",\"args\":\"error no good\"}\n",
       "-e", dir, "rpc");
  g_assert_cmpint (f->status, ==, 0);

  payload = json_object_get_object_member (find_response (f, "2"), "data");
  g_assert_cmpstr (json_object_get_string_member (payload, "provider"), ==, "demo");
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (payload, "extensions")), ==, 1);

  g_assert_true (json_object_get_boolean_member (find_response (f, "3"), "success"));
  g_assert_nonnull (strstr (f->out, "You said: hello rpc"));

  /* A command that runs no model turn ends with its response alone. */
  response = find_response (f, "4");
  g_assert_true (json_object_get_boolean_member (response, "success"));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "ext_display", 0), "text"), ==, "via rpc");
  g_assert_cmpint (zot_test_count (f->out, "{\"type\":\"done\"}"), ==, 1);

  g_assert_true (json_object_get_boolean_member (find_response (f, "5"), "success"));
  g_assert_nonnull (strstr (json_object_get_string_member (find_event (f, "info", 0), "text"), "/reload-ext"));

  response = find_response (f, "6");
  g_assert_false (json_object_get_boolean_member (response, "success"));
  response = find_response (f, "7");
  g_assert_false (json_object_get_boolean_member (response, "success"));
  g_assert_nonnull (strstr (json_object_get_string_member (response, "error"), "no good"));
}

/* An extension's submit is logged and ignored in RPC (a client's `done`
 * ends only its own prompts), print and JSON; its submit_slash runs in
 * RPC, as `command` does, and is logged and ignored in print and JSON. */
static void
test_extension_submits (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "submitter", "--command", "r", NULL);
  g_autofree char *log_path = g_build_filename (f->env.home, "logs", "ext-submitter.log", NULL);
  g_autofree char *log = NULL;

  RUN (f,
       "{\"type\":\"command\",\"id\":\"1\",\"name\":\"r\","
       "\"args\":\"send {\\\"type\\\":\\\"submit\\\",\\\"text\\\":\\\"sneaky\\\"}\"}\n"
       "{\"type\":\"command\",\"id\":\"2\",\"name\":\"r\","
       "\"args\":\"send {\\\"type\\\":\\\"submit_slash\\\",\\\"text\\\":\\\"/r display from the extension\\\"}\"}\n",
       "-e", dir, "rpc");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_true (json_object_get_boolean_member (find_response (f, "1"), "success"));
  g_assert_true (json_object_get_boolean_member (find_response (f, "2"), "success"));
  g_assert_null (strstr (f->out, "sneaky\""));
  g_assert_null (find_event (f, "user_message", 0));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "ext_display", 0), "text"), ==,
                   "from the extension");
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "submit ignored: this mode takes no prompts from extensions"), ==, 1);

  RUN (f, NULL, "-e", dir, "-p", "/r send {\"type\":\"submit\",\"text\":\"sneaky\"}");
  g_assert_cmpint (f->status, ==, 0);
  RUN (f, NULL, "-e", dir, "-p", "/r send {\"type\":\"submit_slash\",\"text\":\"/r display nope\"}");
  g_assert_cmpint (f->status, ==, 0);
  RUN (f, NULL, "-e", dir, "--json", "/r send {\"type\":\"submit_slash\",\"text\":\"/r display nope\"}");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_null (find_event (f, "ext_display", 0));
  g_assert_null (strstr (f->out, "sneaky"));

  g_clear_pointer (&log, g_free);
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "submit ignored: this mode takes no prompts from extensions"), ==, 2);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /r ignored: this mode runs no commands for extensions"),
                    ==, 2);
}

/* A burst of submit_slash to the extension's own command, which answers
 * with a prompt, starts one model run, not one each: the rest are refused
 * while the first is pending. The client's prompt in the middle of it
 * still gets its response and the only `done`. */
static void
test_extension_submit_slash_burst (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "burster", "--command", "r", NULL);
  g_autofree char *log_path = g_build_filename (f->env.home, "logs", "ext-burster.log", NULL);
  g_autofree char *log = NULL;
  guint n_runs = 0;
  guint n_done = 0;

  RUN (f,
       "{\"type\":\"command\",\"id\":\"1\",\"name\":\"r\","
       "\"args\":\"repeat 50 {\\\"type\\\":\\\"submit_slash\\\",\\\"text\\\":\\\"/r prompt burst\\\"}\"}\n"
       "{\"type\":\"prompt\",\"id\":\"2\",\"message\":\"mine\"}\n",
       "-e", dir, "rpc");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_true (json_object_get_boolean_member (find_response (f, "1"), "success"));
  g_assert_true (json_object_get_boolean_member (find_response (f, "2"), "success"));

  while (find_event (f, "user_message", n_runs) != NULL)
    n_runs++;
  while (find_event (f, "done", n_done) != NULL)
    n_done++;
  /* "mine" and one "burst"; the extension's run has no `done`. */
  g_assert_cmpuint (n_runs, ==, 2);
  g_assert_cmpuint (n_done, ==, 1);

  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /r refused: the prompt or command it submitted "
                                         "before is not done yet (one at a time)"), ==, 49);
}

/* A busy provider's retry, in each of the CLI's streams: an event of
 * --json and of RPC, a line on stderr in print mode; --max-retries 0 asks
 * once. The waits are shortened for the child through ZOT_TEST_TIMEOUTS. */
static void
test_retry_streams (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotFakeServer) server = zot_fake_server_new ();
  g_autofree char *base = g_strdup_printf ("%s/v1", zot_fake_server_get_url (server));
  static const char overloaded[] = "{\"error\":{\"message\":\"Overloaded\"}}";
  JsonObject *retry;

  g_setenv ("ZOT_TEST_TIMEOUTS", "provider-retry=5,provider-retry-max=20", TRUE);

  for (guint mode = 0; mode < 2; mode++)
    {
      g_auto(GStrv) script = zot_fake_server_openai_text ("after a retry", 6);

      zot_fake_server_push_json (server, 529, overloaded, NULL);
      zot_fake_server_push_sse (server, (const char * const *) script, FALSE);
      if (mode == 0)
        RUN (f, NULL, "--json", "--provider", "openai", "--base-url", base, "--api-key", "sk-x", "hi");
      else
        RUN (f, "{\"type\":\"prompt\",\"id\":\"1\",\"message\":\"hi\"}\n",
             "--provider", "openai", "--base-url", base, "--api-key", "sk-x", "rpc");
      g_assert_cmpint (f->status, ==, 0);
      retry = find_event (f, "retry", 0);
      g_assert_nonnull (retry);
      g_assert_cmpint (json_object_get_int_member (retry, "attempt"), ==, 1);
      g_assert_cmpint (json_object_get_int_member (retry, "max_attempts"), ==, ZOT_PROVIDER_MAX_RETRIES);
      g_assert_nonnull (strstr (json_object_get_string_member (retry, "message"),
                                "is overloaded (529) — retrying in"));
      g_assert_null (find_event (f, "retry", 1));
      g_assert_nonnull (find_event (f, "assistant_message", 0));
    }

  {
    g_auto(GStrv) script = zot_fake_server_openai_text ("printed", 6);

    zot_fake_server_push_json (server, 503, overloaded, NULL);
    zot_fake_server_push_sse (server, (const char * const *) script, FALSE);
    RUN (f, NULL, "-p", "--provider", "openai", "--base-url", base, "--api-key", "sk-x", "hi");
    g_assert_cmpint (f->status, ==, 0);
    g_assert_nonnull (strstr (f->err, "is overloaded (503) — retrying in"));
    g_assert_nonnull (strstr (f->err, "(attempt 1 of 4)"));
    g_assert_nonnull (strstr (f->out, "printed"));
  }

  zot_fake_server_push_json (server, 503, overloaded, NULL);
  RUN (f, NULL, "--json", "--max-retries", "0", "--provider", "openai", "--base-url", base,
       "--api-key", "sk-x", "hi");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_null (find_event (f, "retry", 0));
  g_assert_nonnull (strstr (json_object_get_string_member (find_event (f, "turn_end", 0), "error"),
                            "Overloaded"));
  g_assert_cmpuint (zot_fake_server_get_n_requests (server), ==, 7);

  RUN (f, NULL, "--max-retries", "11", "-p", "hi");
  g_assert_cmpint (f->status, !=, 0);
  g_assert_nonnull (strstr (f->err, "--max-retries takes 0 (never retry) to 10"));

  g_unsetenv ("ZOT_TEST_TIMEOUTS");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/headless/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("print-demo", test_print_demo);
  ADD ("print-tools", test_print_tools);
  ADD ("print-extension-prompt", test_print_extension_prompt);
  ADD ("print-errors", test_print_errors);
  ADD ("print-builtins", test_print_builtins);
  ADD ("sessions", test_sessions);
  ADD ("session-locked", test_session_locked);
  ADD ("session-mended", test_session_mended);
  ADD ("json-text", test_json_text);
  ADD ("json-tools", test_json_tools);
  ADD ("json-extension", test_json_extension);
  ADD ("json-open-panel", test_json_open_panel);
  ADD ("json-openai-server", test_json_openai_server);
  ADD ("json-usage-cost", test_json_usage_cost);
  ADD ("json-provider-error", test_json_provider_error);
  ADD ("json-user-models", test_json_user_models);
  ADD ("hello-ack-model", test_hello_ack_model);
  ADD ("usage-errors", test_usage_errors);
  ADD ("json-unknown-tool", test_json_interactive_tool_refused);
  ADD ("rpc-commands", test_rpc_commands);
  ADD ("extension-submits", test_extension_submits);
  ADD ("extension-submit-slash-burst", test_extension_submit_slash_burst);
  ADD ("retry-streams", test_retry_streams);

#undef ADD

  return g_test_run ();
}
