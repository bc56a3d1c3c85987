/* test-supervisor.c — an extension that crashes is restarted with backoff,
 * given up on after too many crashes, and never holds up a turn. The
 * scripted fake extension crashes on request (a command, a tool call) or
 * right after `ready` (--crash-after-ready, counted in --starts-file);
 * the restart deadlines are shortened through the test-only override. */
#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-error.h"
#include "zot-extension-manager-private.h"
#include "zot-host.h"
#include "zot-limits-private.h"
#include "zot-manifest.h"
#include "zot-message.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv           env;
  ZotExtensionManager *manager;
  ZotHost             *host;
  GPtrArray           *crashes;    /* gint64 µs of each ::extension-crashed */
  GPtrArray           *restarts;   /* "attempt|reason" */
  GArray              *restart_at; /* gint64 µs of each ::extension-restarted */
  GArray              *crash_at;
  char                *gave_up;
  GPtrArray           *results;    /* tool result texts */
} Fixture;

static const char *echo_tool =
  "{\"type\":\"register_tool\",\"name\":\"echo_tool\",\"description\":\"Echoes\",\"schema\":{\"type\":\"object\"}}";
static const char *wait_tool =
  "{\"type\":\"register_tool\",\"name\":\"wait_tool\",\"description\":\"Waits\",\"schema\":{\"type\":\"object\"}}";
static const char *subscribe =
  "{\"type\":\"subscribe\",\"events\":[\"agent_start\"],\"intercept\":[\"tool_call\"]}";

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->restarts = g_ptr_array_new_with_free_func (g_free);
  f->results = g_ptr_array_new_with_free_func (g_free);
  f->restart_at = g_array_new (FALSE, FALSE, sizeof (gint64));
  f->crash_at = g_array_new (FALSE, FALSE, sizeof (gint64));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->manager != NULL)
    {
      g_signal_handlers_disconnect_by_data (f->manager, f);
      zot_test_shutdown_manager (g_steal_pointer (&f->manager));
    }
  if (f->host != NULL)
    {
      g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
      g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), f);
      zot_test_finalize_host (&f->host);
    }
  for (ZotTimeout t = ZOT_TIMEOUT_RESTART_BACKOFF; t <= ZOT_TIMEOUT_RESTART_WINDOW; t++)
    _zot_timeout_override_for_testing (t, 0);
  g_ptr_array_unref (f->restarts);
  g_ptr_array_unref (f->results);
  g_array_unref (f->restart_at);
  g_array_unref (f->crash_at);
  g_free (f->gave_up);
  zot_test_env_teardown (&f->env);
}

static void
on_crashed (ZotExtensionManager *manager,
            ZotExtension        *extension,
            const char          *message,
            Fixture             *f)
{
  gint64 now = g_get_monotonic_time ();

  g_array_append_val (f->crash_at, now);
}

static void
on_restarted (ZotExtensionManager *manager,
              ZotExtension        *extension,
              guint                attempt,
              const char          *reason,
              Fixture             *f)
{
  gint64 now = g_get_monotonic_time ();

  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_ptr_array_add (f->restarts, g_strdup_printf ("%u|%s", attempt, reason));
  g_array_append_val (f->restart_at, now);
}

static void
on_gave_up (ZotExtensionManager *manager,
            ZotExtension        *extension,
            const char          *note,
            Fixture             *f)
{
  g_assert_null (f->gave_up);
  f->gave_up = g_strdup (note);
}

static void
watch (Fixture             *f,
       ZotExtensionManager *manager)
{
  g_signal_connect (manager, "extension-crashed", G_CALLBACK (on_crashed), f);
  g_signal_connect (manager, "extension-restarted", G_CALLBACK (on_restarted), f);
  g_signal_connect (manager, "extension-gave-up", G_CALLBACK (on_gave_up), f);
}

static void
load (Fixture            *f,
      const char * const *paths)
{
  f->manager = zot_test_load_manager (&f->env, paths);
  watch (f, f->manager);
}

static ZotExtension *
find (Fixture    *f,
      const char *name)
{
  ZotExtension *extension = zot_extension_manager_find (f->manager, name);

  g_assert_nonnull (extension);
  return extension;
}

typedef struct
{
  Fixture *f;
  guint    n;
} Count;

static gboolean
restarts_reached (gpointer data)
{
  Count *count = data;

  return count->f->restarts->len >= count->n;
}

static void
wait_restarts (Fixture *f,
               guint    n)
{
  Count count = { f, n };

  zot_test_wait_until (restarts_reached, &count, 30000);
}

static gboolean
gave_up_cb (gpointer data)
{
  return ((Fixture *) data)->gave_up != NULL;
}

static gboolean
crashed_cb (gpointer data)
{
  return ((Fixture *) data)->crash_at->len > 0;
}

static void
set_times (guint backoff,
           guint backoff_max,
           guint window)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_RESTART_BACKOFF, backoff);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_RESTART_BACKOFF_MAX, backoff_max);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_RESTART_WINDOW, window);
}

/* The numbers, and the backoff they make. */
static void
test_backoff (void)
{
  g_assert_cmpuint (ZOT_RESTART_BACKOFF_MS, ==, 1000);
  g_assert_cmpuint (ZOT_RESTART_BACKOFF_MAX_MS, ==, 60000);
  g_assert_cmpuint (ZOT_RESTART_MAX_FAILURES, ==, 5);
  g_assert_cmpuint (ZOT_RESTART_WINDOW_MS, ==, 5 * 60 * 1000);
  g_assert_cmpstr (zot_timeout_get_name (ZOT_TIMEOUT_RESTART_BACKOFF), ==, "restart-backoff");

  g_assert_cmpuint (_zot_manager_restart_backoff_ms (1), ==, 1000);
  g_assert_cmpuint (_zot_manager_restart_backoff_ms (2), ==, 2000);
  g_assert_cmpuint (_zot_manager_restart_backoff_ms (3), ==, 4000);
  g_assert_cmpuint (_zot_manager_restart_backoff_ms (6), ==, 32000);
  /* 64 s is past the cap. */
  g_assert_cmpuint (_zot_manager_restart_backoff_ms (7), ==, 60000);
  g_assert_cmpuint (_zot_manager_restart_backoff_ms (1000), ==, 60000);

  set_times (10, 30, 0);
  g_assert_cmpuint (_zot_manager_restart_backoff_ms (2), ==, 20);
  g_assert_cmpuint (_zot_manager_restart_backoff_ms (3), ==, 30);
  set_times (0, 0, 0);
}

static void
test_manifest (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) never = zot_manifest_new_from_data ("/x", "{\"name\":\"x\",\"exec\":\"sh\",\"restart\":\"never\"}",
                                                             -1, &error);
  g_autoptr(ZotManifest) crash = NULL;
  g_autoptr(ZotManifest) plain = NULL;
  g_autoptr(ZotManifest) bad = NULL;

  g_assert_no_error (error);
  g_assert_true (zot_manifest_get_restart_never (never));

  crash = zot_manifest_new_from_data ("/x", "{\"name\":\"x\",\"exec\":\"sh\",\"restart\":\"on-crash\"}", -1, &error);
  g_assert_no_error (error);
  g_assert_false (zot_manifest_get_restart_never (crash));
  plain = zot_manifest_new_from_data ("/x", "{\"name\":\"x\",\"exec\":\"sh\"}", -1, &error);
  g_assert_no_error (error);
  g_assert_false (zot_manifest_get_restart_never (plain));

  bad = zot_manifest_new_from_data ("/x", "{\"name\":\"x\",\"exec\":\"sh\",\"restart\":\"always\"}", -1, &error);
  g_assert_null (bad);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "field \"restart\" must be \"on-crash\" or \"never\""));
  g_clear_error (&error);
  bad = zot_manifest_new_from_data ("/x", "{\"name\":\"x\",\"exec\":\"sh\",\"restart\":false}", -1, &error);
  g_assert_null (bad);
  g_assert_nonnull (strstr (error->message, "\"restart\""));
}

/* A crash: the new process is in its place with every registration, and
 * the conversation's session id goes on. */
static void
test_restart_restores (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_recording_fake (&f->env, "phoenix", "--command", "boom",
                                                       "--register-json", echo_tool,
                                                       "--register-json", subscribe, NULL);
  g_autofree char *record = zot_test_record_path (&f->env, "phoenix");
  const char *paths[] = { dir, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autofree char *session = NULL;
  ZotExtension *old;
  ZotExtension *fresh;
  JsonObject *event;

  set_times (1, 1000, 0);
  load (f, paths);
  old = find (f, "phoenix");
  session = g_strdup (zot_extension_manager_get_session_id (f->manager));

  g_assert_false (zot_test_run_command (f->manager, "boom", "crash 7", &error));
  g_clear_error (&error);
  wait_restarts (f, 1);

  g_assert_true (g_str_has_prefix (g_ptr_array_index (f->restarts, 0), "1|phoenix stopped unexpectedly: exited with status 7"));
  fresh = find (f, "phoenix");
  g_assert_true (fresh != old);
  g_assert_cmpint (zot_extension_get_state (fresh), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (zot_extension_manager_lookup_command (f->manager, "boom", NULL) == fresh);
  tools = zot_extension_manager_list_tools (f->manager);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_true (zot_extension_manager_has_interceptors (f->manager, "tool_call"));
  g_assert_cmpstr (zot_extension_manager_get_session_id (f->manager), ==, session);
  g_assert_null (zot_extension_manager_get_gave_up_note (f->manager, fresh));

  /* Its subscription is back: the next event reaches the new process,
   * with the same session. */
  zot_extension_manager_emit_event (f->manager, "agent_start", payload);
  g_assert_true (zot_test_run_command (f->manager, "boom", "noop", &error));
  g_assert_no_error (error);
  frames = zot_test_read_frames (record);
  event = zot_test_find_event (frames, "agent_start", NULL);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "session_id"), ==, session);
}

static char *
read_log (Fixture    *f,
          const char *name)
{
  ZotExtension *extension = find (f, name);

  return zot_test_read_file (zot_extension_get_log_path (extension));
}

/* A crash loop: 10, 20, 30 (the cap), 30 ms between restarts, each
 * waited at least; the fifth crash is the last. */
static void
test_crash_loop_gives_up (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "looper", "--crash-after-ready", "1000", NULL);
  const char *paths[] = { dir, NULL };
  g_autofree char *log = NULL;
  const char *note;
  ZotExtension *extension;

  set_times (10, 30, 0);
  load (f, paths);
  zot_test_wait_until (gave_up_cb, f, 30000);

  g_assert_cmpuint (f->restarts->len, ==, ZOT_RESTART_MAX_FAILURES - 1);
  g_assert_cmpuint (f->crash_at->len, ==, ZOT_RESTART_MAX_FAILURES);
  for (guint i = 0; i < f->restarts->len; i++)
    {
      g_autofree char *prefix = g_strdup_printf ("%u|looper stopped unexpectedly: exited with status 3", i + 1);
      gint64 waited = g_array_index (f->restart_at, gint64, i) - g_array_index (f->crash_at, gint64, i);

      g_assert_true (g_str_has_prefix (g_ptr_array_index (f->restarts, i), prefix));
      g_assert_cmpint (waited, >=, (gint64) _zot_manager_restart_backoff_ms (i + 1) * 1000);
    }

  log = read_log (f, "looper");
  g_assert_nonnull (strstr (log, "supervisor: restarting in 10 ms (attempt 1)"));
  g_assert_nonnull (strstr (log, "supervisor: restarting in 20 ms (attempt 2)"));
  g_assert_nonnull (strstr (log, "supervisor: restarting in 30 ms (attempt 3)"));
  g_assert_nonnull (strstr (log, "supervisor: restarting in 30 ms (attempt 4)"));
  g_assert_null (strstr (log, "(attempt 5)"));

  extension = find (f, "looper");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_false (_zot_manager_supervisor_is_pending (f->manager, extension));
  note = zot_extension_manager_get_gave_up_note (f->manager, extension);
  g_assert_cmpstr (note, ==, f->gave_up);
  g_assert_nonnull (strstr (note, "looper stopped unexpectedly 5 times within 5 minutes"));
  g_assert_nonnull (strstr (note, "/restart-ext looper"));
}

/* Crashes further apart than the window never add up to giving up. */
static void
test_window (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "slowloop", "--crash-after-ready", "1000", NULL);
  const char *paths[] = { dir, NULL };

  /* Every restart waits longer than the window. */
  set_times (20, 20, 5);
  load (f, paths);
  wait_restarts (f, ZOT_RESTART_MAX_FAILURES + 1);
  g_assert_null (f->gave_up);
}

/* A restart that does not get as far as `ready` is one more crash. */
static void
test_failed_start_counts (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "gone", "--command", "boom", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GError) error = NULL;
  ZotExtension *extension;

  set_times (1, 1, 0);
  load (f, paths);
  /* From now on its program is one that exits before hello. */
  zot_test_manifest_set_string (dir, "exec", "/bin/false");
  g_assert_false (zot_test_run_command (f->manager, "boom", "crash 2", &error));
  zot_test_wait_until (gave_up_cb, f, 30000);

  g_assert_cmpuint (f->restarts->len, ==, 0);
  g_assert_cmpuint (f->crash_at->len, ==, 1);
  extension = find (f, "gone");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_nonnull (strstr (f->gave_up, "gone stopped unexpectedly 5 times"));
}

static void
test_restart_never (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "stoic", "--command", "boom", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  ZotExtension *extension;

  zot_test_manifest_set_string (dir, "restart", "never");
  set_times (1, 1, 0);
  load (f, paths);
  extension = find (f, "stoic");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_false (zot_test_run_command (f->manager, "boom", "crash 2", &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED);
  zot_test_wait_until (crashed_cb, f, 10000);
  /* Decided when the crash was told: nothing waits. */
  g_assert_false (_zot_manager_supervisor_is_pending (f->manager, extension));
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_FAILED);
  log = read_log (f, "stoic");
  g_assert_nonnull (strstr (log, "\"restart\": \"never\"; it stays down"));
}

static void
restarted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_manager_restart_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *done = TRUE;
}

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *done = TRUE;
}

/* After giving up, the user's restart starts the count again. */
static void
test_manual_restart_resets (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *starts = g_build_filename (f->env.root, "starts", NULL);
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "fickle", "--command", "boom",
                                                  "--starts-file", starts,
                                                  "--crash-after-ready", "5", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;
  ZotExtension *extension;

  set_times (1, 1, 0);
  load (f, paths);
  zot_test_wait_until (gave_up_cb, f, 30000);
  g_assert_cmpuint (f->restarts->len, ==, 4);

  zot_extension_manager_restart_async (f->manager, find (f, "fickle"), NULL, restarted_cb, &done);
  zot_test_wait_for (&done, 30000);
  extension = find (f, "fickle");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_null (zot_extension_manager_get_gave_up_note (f->manager, extension));

  /* A crash now is the first of a new count. */
  g_assert_false (zot_test_run_command (f->manager, "boom", "crash 2", &error));
  g_clear_error (&error);
  wait_restarts (f, 5);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (f->restarts, 4), "1|fickle stopped unexpectedly: exited with status 2"));
}

/* The shutdown's own stop is no crash, and a restart that waited is
 * dropped. */
static void
test_shutdown_not_restarted (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *calm_dir = zot_test_make_fake_args (f->env.root, "calm", NULL);
  g_autofree char *boom_dir = zot_test_make_fake_args (f->env.root, "boomer", "--command", "boom", NULL);
  const char *paths[] = { calm_dir, boom_dir, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotExtension) calm = NULL;
  g_autoptr(ZotExtension) boomer = NULL;
  gboolean done = FALSE;

  /* The restart would wait a minute: the shutdown comes first. */
  set_times (60000, 60000, 0);
  load (f, paths);
  calm = g_object_ref (find (f, "calm"));
  boomer = g_object_ref (find (f, "boomer"));
  g_assert_false (zot_test_run_command (f->manager, "boom", "crash 5", &error));
  zot_test_wait_until (crashed_cb, f, 10000);
  g_assert_true (_zot_manager_supervisor_is_pending (f->manager, boomer));

  zot_extension_manager_shutdown_async (f->manager, NULL, shutdown_cb, &done);
  zot_test_wait_for (&done, 30000);

  g_assert_cmpint (zot_extension_get_state (calm), ==, ZOT_EXTENSION_STATE_EXITED);
  g_assert_cmpuint (f->crash_at->len, ==, 1);
  g_assert_false (_zot_manager_supervisor_is_pending (f->manager, boomer));
  g_assert_false (_zot_manager_supervisor_is_pending (f->manager, calm));
  g_assert_cmpuint (f->restarts->len, ==, 0);
}

/* Host level */

static void
on_tool_result (ZotAgent      *agent,
                const char    *id,
                const char    *name,
                ZotToolResult *result,
                Fixture       *f)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; result->content != NULL && i < json_array_get_length (result->content); i++)
    {
      JsonObject *block = json_array_get_object_element (result->content, i);

      g_string_append (text, json_object_get_string_member_with_default (block, "text", ""));
    }
  g_ptr_array_add (f->results, g_string_free (text, FALSE));
}

static void
host_loaded_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

static void
start_host (Fixture            *f,
            const char * const *paths)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  watch (f, zot_host_get_manager (f->host));
  g_signal_connect (zot_host_get_agent (f->host), "tool-result", G_CALLBACK (on_tool_result), f);
  zot_host_load_async (f->host, NULL, host_loaded_cb, &done);
  zot_test_wait_for (&done, 30000);
}

/* The call running when the extension crashed ends with an error naming
 * the crash; the restarted extension serves the next one, and the
 * conversation goes on. */
static void
test_in_flight_call (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "brittle", "--register-json", echo_tool, NULL);
  const char *paths[] = { dir, NULL };
  g_auto(ZotTestSubmit) s = { 0 };
  g_auto(ZotTestSubmit) again = { 0 };
  guint before;

  set_times (1, 1, 0);
  start_host (f, paths);
  zot_test_submit (f->host, "tool: echo_tool {\"crash\":4}", &s);
  g_assert_true (s.ok);
  g_assert_cmpuint (f->results->len, ==, 1);
  /* Its end may be read before its exit status is known. */
  g_assert_nonnull (strstr (g_ptr_array_index (f->results, 0), "echo_tool: brittle stopped unexpectedly: "));

  before = zot_agent_get_messages (zot_host_get_agent (f->host))->len;
  wait_restarts (f, 1);
  zot_test_submit (f->host, "tool: echo_tool {\"reply\":\"back\"}", &again);
  g_assert_true (again.ok);
  g_assert_cmpuint (f->results->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->results, 1), ==, "back");
  /* The first turn is still there, the second after it. */
  g_assert_cmpuint (zot_agent_get_messages (zot_host_get_agent (f->host))->len, ==, 2 * before);

  /* /restart-ext by hand, by name; a wrong name is one clear error. */
  {
    g_auto(ZotTestSubmit) command = { 0 };
    g_auto(ZotTestSubmit) wrong = { 0 };
    ZotExtension *old = zot_extension_manager_find (zot_host_get_manager (f->host), "brittle");

    zot_test_submit (f->host, "/restart-ext brittle", &command);
    g_assert_no_error (command.error);
    g_assert_true (zot_extension_manager_find (zot_host_get_manager (f->host), "brittle") != old);
    g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (zot_host_get_manager (f->host), "brittle")),
                     ==, ZOT_EXTENSION_STATE_READY);
    zot_test_submit (f->host, "/restart-ext nosuch", &wrong);
    g_assert_error (wrong.error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_USAGE);
    g_assert_nonnull (strstr (wrong.error->message, "no extension named nosuch"));
  }
}

/* Turns run while an extension with hooks on every turn crashes over and
 * over: each ends, none waits for a restart. */
static void
test_turn_not_blocked (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *looper = zot_test_make_fake_args (f->env.root, "looper", "--crash-after-ready", "1000",
                                                     "--register-json",
                                                     "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\",\"before_agent_start\"]}",
                                                     NULL);
  g_autofree char *steady = zot_test_make_fake_args (f->env.root, "steady", "--register-json", echo_tool, NULL);
  const char *paths[] = { looper, steady, NULL };

  /* Never gives up: every crash is older than the window by the next. */
  set_times (5, 5, 1);
  start_host (f, paths);
  wait_restarts (f, 2);

  for (guint i = 0; i < 3; i++)
    {
      g_auto(ZotTestSubmit) s = { 0 };
      g_autofree char *prompt = g_strdup_printf ("tool: echo_tool {\"reply\":\"turn %u\"}", i);
      g_autofree char *want = g_strdup_printf ("turn %u", i);

      zot_test_submit (f->host, prompt, &s);
      g_assert_true (s.ok);
      g_assert_cmpstr (g_ptr_array_index (f->results, f->results->len - 1), ==, want);
    }
  /* The loop went on meanwhile. */
  wait_restarts (f, f->restarts->len + 1);
  g_assert_null (f->gave_up);
}

/* Headless: one warning line on stderr per restart and for giving up. */

/* Runs zot in @mode ("-p", "--json" or "rpc") with the two extensions and
 * @prompt, to its end; its stderr in @err. */
static void
run_zot (Fixture     *f,
         const char  *mode,
         const char  *crasher,
         const char  *waiter,
         const char  *prompt,
         char       **err)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *input = NULL;
  const char *argv[] = { g_getenv ("ZOT_BIN"), "-e", crasher, "-e", waiter, mode, prompt, NULL };

  if (g_str_equal (mode, "rpc"))
    {
      g_autoptr(JsonObject) command = json_object_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *line = NULL;

      json_object_set_string_member (command, "type", "prompt");
      json_object_set_string_member (command, "id", "1");
      json_object_set_string_member (command, "message", prompt);
      json_node_set_object (node, command);
      line = json_to_string (node, FALSE);
      /* When its input ends, what it accepted finishes, then it exits. */
      input = g_strconcat (line, "\n", NULL);
      argv[6] = NULL;
    }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, f->env.cwd);
  g_subprocess_launcher_setenv (launcher, "ZOT_HOME", f->env.home, TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C", TRUE);
  g_subprocess_launcher_setenv (launcher, "ZOT_TEST_TIMEOUTS", "restart-backoff=1,restart-backoff-max=1", TRUE);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, input ? input : "", NULL, &out, err, &error);
  g_assert_no_error (error);
  g_test_message ("%s", *err);
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  if (input != NULL)
    g_assert_nonnull (strstr (out, "wait_tool called with"));
}

static void
test_headless (Fixture       *f,
               gconstpointer  data)
{
  const char *modes[] = { "-p", "--json", "rpc" };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *starts = g_strdup_printf ("%s/starts-%u", f->env.root, m);
      g_autofree char *name = g_strdup_printf ("crasher%u", m);
      g_autofree char *crasher = zot_test_make_fake_args (f->env.root, name, "--starts-file", starts,
                                                          "--crash-after-ready", "1000", NULL);
      g_autofree char *waiter = zot_test_make_fake_args (f->env.root, "waiter", "--register-json", wait_tool, NULL);
      g_autofree char *log = g_strdup_printf ("%s/logs/ext-%s.log", f->env.home, name);
      g_autofree char *prompt = g_strdup_printf ("tool: wait_tool {\"wait_path\":\"%s\","
                                                 "\"wait_text\":\"not restarting it again\"}", log);
      g_autofree char *restarted = g_strdup_printf ("warning: restarted %s (attempt", name);
      g_autofree char *gave_up = g_strdup_printf ("warning: %s stopped unexpectedly 5 times", name);
      g_autofree char *err = NULL;

      /* The turn lasts until the host gave up, as its log says: the warning
       * is printed in the same dispatch, before the tool's answer is read. */
      run_zot (f, modes[m], crasher, waiter, prompt, &err);
      g_assert_cmpuint (zot_test_count (err, restarted), ==, ZOT_RESTART_MAX_FAILURES - 1);
      g_assert_cmpuint (zot_test_count (err, gave_up), ==, 1);
      g_assert_nonnull (strstr (err, "(attempt 4); "));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/supervisor/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

  g_test_add_func ("/supervisor/backoff", test_backoff);
  g_test_add_func ("/supervisor/manifest", test_manifest);
  ADD ("restart-restores", test_restart_restores);
  ADD ("crash-loop-gives-up", test_crash_loop_gives_up);
  ADD ("window", test_window);
  ADD ("failed-start-counts", test_failed_start_counts);
  ADD ("restart-never", test_restart_never);
  ADD ("manual-restart-resets", test_manual_restart_resets);
  ADD ("shutdown-not-restarted", test_shutdown_not_restarted);
  ADD ("in-flight-call", test_in_flight_call);
  ADD ("turn-not-blocked", test_turn_not_blocked);
  ADD ("headless", test_headless);

  return g_test_run ();
}
