/* test-conversation-switch.c — a turn and the conversation it runs in:
 * while it runs, starting, switching to or opening another conversation is
 * refused (ZotHost API, /new), and stopping it first leaves each session
 * file whole: the old one with the call and its result, the new one with
 * nothing of the old turn. The demo model calls bash, which waits until
 * the test creates a file. */
#include "config.h"

#include <glib/gstdio.h>

#include "zot-agent.h"
#include "zot-host.h"
#include "zot-message.h"
#include "zot-session.h"
#include "zot-test-util.h"

/* The call waits for "go" in the working directory. */
#define WAITING_TOOL_PROMPT \
  "tool: bash {\"command\":\"while [ ! -e go ]; do sleep 0.02; done; echo released\"}"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  guint       n_tool_calls;
  gboolean    stopped;
  GError     *stop_error;
  gboolean    opened;
  GError     *open_error;
} Fixture;

static void
on_tool_call (ZotAgent   *agent,
              const char *id,
              const char *name,
              JsonObject *args,
              Fixture    *f)
{
  f->n_tool_calls++;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;

  zot_test_env_setup (&f->env);
  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_ext = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  g_signal_connect (zot_host_get_agent (f->host), "tool-call", G_CALLBACK (on_tool_call), f);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), f);
  zot_test_finalize_host (&f->host);
  g_clear_error (&f->stop_error);
  g_clear_error (&f->open_error);
  zot_test_env_teardown (&f->env);
}

static gboolean
tool_called (gpointer data)
{
  Fixture *f = data;

  return f->n_tool_calls > 0;
}

static void
release_tool (Fixture *f)
{
  g_autofree char *go = g_build_filename (f->env.cwd, "go", NULL);

  g_assert_true (g_file_set_contents (go, "", 0, NULL));
}

static ZotSession *
current_session (Fixture *f)
{
  return zot_agent_get_session (zot_host_get_agent (f->host));
}

/* The roles of the messages stored in @path, space-separated: what a
 * provider would be sent when the conversation is resumed. */
static char *
stored_roles (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GString) roles = g_string_new (NULL);
  GPtrArray *messages;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return g_strdup ("");

  session = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  messages = zot_session_get_messages (session);
  for (guint i = 0; i < messages->len; i++)
    {
      if (roles->len > 0)
        g_string_append_c (roles, ' ');
      g_string_append (roles, zot_message_get_role (g_ptr_array_index (messages, i)));
    }
  return g_string_free (g_steal_pointer (&roles), FALSE);
}

static void
opened_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *f = user_data;

  zot_host_open_session_finish (ZOT_HOST (object), result, &f->open_error);
  f->opened = TRUE;
}

static void
started_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fixture *f = user_data;

  zot_host_start_conversation_finish (ZOT_HOST (object), result, &f->open_error);
  f->opened = TRUE;
}

/* Every way to another conversation is refused while the turn runs, and
 * the turn ends in its own conversation. */
static void
test_refused_while_busy (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(ZotTestSubmit) first = { 0 };
  g_auto(ZotTestSubmit) turn = { 0 };
  g_auto(ZotTestSubmit) command = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *earlier = NULL;
  g_autofree char *path = NULL;
  g_autofree char *roles = NULL;
  ZotSession *session;

  /* A stored conversation to try to open. */
  zot_test_submit (f->host, "hello", &first);
  g_assert_true (first.ok);
  earlier = g_strdup (zot_session_get_path (current_session (f)));
  g_assert_true (zot_host_new_session (f->host, &error));
  g_assert_no_error (error);
  session = current_session (f);
  path = g_strdup (zot_session_get_path (session));

  zot_test_submit_start (f->host, WAITING_TOOL_PROMPT, &turn);
  zot_test_wait_until (tool_called, f, 30000);
  g_assert_true (zot_host_is_busy (f->host));

  g_assert_false (zot_host_new_session (f->host, &error));
  g_assert_error (error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, "agent is busy"));
  g_clear_error (&error);
  g_assert_true (current_session (f) == session);

  zot_test_submit (f->host, "/new", &command);
  g_assert_false (command.ok);
  g_assert_error (command.error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_BUSY);
  g_assert_true (current_session (f) == session);

  zot_host_open_session_async (f->host, earlier, NULL, opened_cb, f);
  zot_test_wait_for (&f->opened, 30000);
  g_assert_error (f->open_error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_BUSY);
  g_clear_error (&f->open_error);
  g_assert_true (current_session (f) == session);

  f->opened = FALSE;
  zot_host_start_conversation_async (f->host, FALSE, NULL, started_cb, f);
  zot_test_wait_for (&f->opened, 30000);
  g_assert_error (f->open_error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_BUSY);
  g_assert_true (current_session (f) == session);

  /* Waiting is the other answer: the turn ends where it started. */
  release_tool (f);
  zot_test_wait_for (&turn.done, 60000);
  g_assert_true (turn.ok);
  roles = stored_roles (path);
  g_assert_cmpstr (roles, ==, "user assistant tool assistant");

  g_assert_true (zot_host_new_session (f->host, &error));
  g_assert_no_error (error);
  g_assert_true (current_session (f) != session);
}

static void
stopped_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fixture *f = user_data;

  zot_host_stop_turn_finish (ZOT_HOST (object), result, &f->stop_error);
  f->stopped = TRUE;
}

/* Stop, then start: the old file has the call and its cancelled result,
 * the new one nothing of the old turn. */
static void
test_stop_then_new (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(ZotTestSubmit) turn = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *old_path = NULL;
  g_autofree char *old_roles = NULL;
  g_autofree char *new_roles = NULL;
  g_autofree char *new_path = NULL;

  old_path = g_strdup (zot_session_get_path (current_session (f)));
  zot_test_submit_start (f->host, WAITING_TOOL_PROMPT, &turn);
  zot_test_wait_until (tool_called, f, 30000);

  zot_host_stop_turn_async (f->host, NULL, stopped_cb, f);
  zot_test_wait_for (&f->stopped, 30000);
  g_assert_no_error (f->stop_error);
  g_assert_false (zot_host_is_busy (f->host));
  /* The run's own caller heard of the abort before the switch. */
  g_assert_true (turn.done);
  g_assert_error (turn.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_assert_true (zot_host_new_session (f->host, &error));
  g_assert_no_error (error);
  new_path = g_strdup (zot_session_get_path (current_session (f)));
  g_assert_cmpstr (new_path, !=, old_path);

  /* Nothing the old turn did reaches the new conversation afterwards. */
  release_tool (f);
  zot_test_submit_clear (&turn);
  zot_test_submit (f->host, "hello", &turn);
  g_assert_true (turn.ok);

  old_roles = stored_roles (old_path);
  g_assert_cmpstr (old_roles, ==, "user assistant tool");
  new_roles = stored_roles (new_path);
  g_assert_cmpstr (new_roles, ==, "user assistant");
}

/* Stopping an idle agent is done at once. */
static void
test_stop_idle (Fixture       *f,
                gconstpointer  data)
{
  zot_host_stop_turn_async (f->host, NULL, stopped_cb, f);
  zot_test_wait_for (&f->stopped, 30000);
  g_assert_no_error (f->stop_error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/zot/conversation-switch/refused-while-busy", Fixture, NULL, fixture_setup,
              test_refused_while_busy, fixture_teardown);
  g_test_add ("/zot/conversation-switch/stop-then-new", Fixture, NULL, fixture_setup,
              test_stop_then_new, fixture_teardown);
  g_test_add ("/zot/conversation-switch/stop-idle", Fixture, NULL, fixture_setup,
              test_stop_idle, fixture_teardown);

  return g_test_run ();
}
