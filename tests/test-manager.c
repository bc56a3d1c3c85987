/* test-manager.c — the extension manager against real processes: fixture
 * extensions in C (fake-extension), Python and shell, hostile ones among
 * them, each loaded beside a well-behaved one that must keep answering. */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>

#include "zot-error.h"
#include "zot-limits.h"
#include "zot-grants.h"
#include "zot-key-grants.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  GPtrArray  *notes;       /* "ext|level|message" */
  GPtrArray  *displays;    /* "ext|text" */
  GPtrArray  *inserts;
  GPtrArray  *prompts;
  GPtrArray  *failures;    /* "path|message|log" */
  GPtrArray  *crashes;
  guint       n_cleared;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->notes = g_ptr_array_new_with_free_func (g_free);
  f->displays = g_ptr_array_new_with_free_func (g_free);
  f->inserts = g_ptr_array_new_with_free_func (g_free);
  f->prompts = g_ptr_array_new_with_free_func (g_free);
  f->failures = g_ptr_array_new_with_free_func (g_free);
  f->crashes = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_test_env_teardown (&f->env);
  g_ptr_array_unref (f->notes);
  g_ptr_array_unref (f->displays);
  g_ptr_array_unref (f->inserts);
  g_ptr_array_unref (f->prompts);
  g_ptr_array_unref (f->failures);
  g_ptr_array_unref (f->crashes);
}

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               Fixture             *f)
{
  g_ptr_array_add (f->notes, g_strdup_printf ("%s|%s|%s", zot_extension_get_name (extension), level, message));
}

static void
on_notes_cleared (ZotExtensionManager *manager,
                  ZotExtension        *extension,
                  Fixture             *f)
{
  f->n_cleared++;
}

static void
on_load_failed (ZotExtensionManager *manager,
                const char          *path,
                const char          *message,
                const char          *log_path,
                Fixture             *f)
{
  g_ptr_array_add (f->failures, g_strdup_printf ("%s|%s|%s", path, message, log_path ? log_path : ""));
}

static void
on_crashed (ZotExtensionManager *manager,
            ZotExtension        *extension,
            const char          *message,
            Fixture             *f)
{
  g_ptr_array_add (f->crashes, g_strdup (message));
}

static void
connect_fixture (Fixture             *f,
                 ZotExtensionManager *manager)
{
  g_signal_connect (manager, "note-added", G_CALLBACK (on_note_added), f);
  g_signal_connect (manager, "notes-cleared", G_CALLBACK (on_notes_cleared), f);
  g_signal_connect (manager, "load-failed", G_CALLBACK (on_load_failed), f);
  g_signal_connect (manager, "extension-crashed", G_CALLBACK (on_crashed), f);
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *done = TRUE;
}

/* Like zot_test_load_manager, but with the fixture's signals connected
 * before loading, so load failures are seen. */
static ZotExtensionManager *
load (Fixture            *f,
      const char * const *paths)
{
  ZotExtensionManager *manager = zot_extension_manager_new ();
  gboolean done = FALSE;

  connect_fixture (f, manager);
  zot_extension_manager_set_cwd (manager, f->env.cwd);
  zot_extension_manager_set_explicit_paths (manager, paths);
  zot_extension_manager_load_async (manager, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);

  return manager;
}

/* Runs a command as zot_test_run_command() does, keeping the text its
 * reply asked to display, insert or submit. */
static gboolean
run_command (Fixture             *f,
             ZotExtensionManager *manager,
             const char          *name,
             const char          *args,
             GError             **error)
{
  g_autoptr(ZotCommandReply) reply = zot_test_run_command_reply (manager, name, args, error);
  ZotExtension *extension;
  const char *text;

  if (reply == NULL)
    return FALSE;

  extension = zot_command_reply_get_extension (reply);
  text = zot_command_reply_get_text (reply);
  switch (zot_command_reply_get_kind (reply))
    {
    case ZOT_COMMAND_REPLY_DISPLAY:
      g_ptr_array_add (f->displays,
                       g_strdup_printf ("%s|%s", zot_extension_get_name (extension), text));
      break;

    case ZOT_COMMAND_REPLY_INSERT:
      g_ptr_array_add (f->inserts, g_strdup (text));
      break;

    case ZOT_COMMAND_REPLY_PROMPT:
      g_ptr_array_add (f->prompts, g_strdup (text));
      break;

    default:
      break;
    }

  if (zot_command_reply_get_error (reply) != NULL)
    {
      g_propagate_error (error, g_error_copy (zot_command_reply_get_error (reply)));
      return FALSE;
    }

  return TRUE;
}

static void
assert_display (Fixture    *f,
                const char *expected)
{
  for (guint i = 0; i < f->displays->len; i++)
    if (g_str_equal (g_ptr_array_index (f->displays, i), expected))
      return;

  g_error ("no display \"%s\" among %u", expected, f->displays->len);
}

static gboolean
has_prefix_in (GPtrArray  *array,
               const char *needle)
{
  for (guint i = 0; i < array->len; i++)
    if (strstr (g_ptr_array_index (array, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

#define fake(f, name, ...) zot_test_make_fake_args ((f)->env.root, name, __VA_ARGS__)

/* Handshake */

static void
test_hello_ack (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *record = g_build_filename (f->env.root, "record.jsonl", NULL);
  g_autofree char *dir = fake (f, "acked", "--record", record, "--command", "ping",
                               "--capabilities", "commands,tool_cancel", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autoptr(GPtrArray) frames = NULL;
  JsonObject *ack;
  JsonArray *caps;

  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "acked");
  g_assert_nonnull (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (zot_extension_has_capability (extension, "tool_cancel"));
  g_assert_false (zot_extension_has_capability (extension, "tool"));
  g_assert_cmpstr (zot_extension_get_hello_version (extension), ==, "1.0.0");

  /* One command round trip guarantees the hello_ack was recorded. */
  g_assert_true (run_command (f, manager, "ping", "", NULL));

  frames = zot_test_read_frames (record);
  g_assert_cmpuint (frames->len, >=, 2);
  ack = g_ptr_array_index (frames, 0);
  g_assert_cmpstr (json_object_get_string_member (ack, "type"), ==, "hello_ack");
  g_assert_cmpint (json_object_get_int_member (ack, "protocol_version"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (ack, "zot_version"), ==, PACKAGE_VERSION);
  g_assert_cmpstr (json_object_get_string_member (ack, "provider"), ==, "demo");
  g_assert_cmpstr (json_object_get_string_member (ack, "model"), ==, "demo");
  g_assert_cmpstr (json_object_get_string_member (ack, "cwd"), ==, f->env.cwd);
  g_assert_cmpstr (json_object_get_string_member (ack, "extension_dir"), ==, dir);
  g_assert_cmpstr (json_object_get_string_member (ack, "data_dir"), ==, dir);
  caps = json_object_get_array_member (ack, "capabilities");
  g_assert_nonnull (caps);
  /* call_tool in every mode; the window's own capabilities only there. */
  g_assert_cmpuint (json_array_get_length (caps), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (caps, 0), ==, "call_tool");

  zot_test_shutdown_manager (manager);
}

static void
test_exit_before_hello (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *bad = fake (f, "early", "--exit-before-hello", "3", NULL);
  g_autofree char *good = fake (f, "good", "--command", "ok", NULL);
  const char *paths[] = { bad, good, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "early");
  g_autofree char *log = NULL;
  const char *failure;

  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_cmpuint (f->failures->len, ==, 1);
  failure = g_ptr_array_index (f->failures, 0);
  g_assert_true (g_str_has_prefix (failure, bad));
  g_assert_nonnull (strstr (failure, "exited with status 3 before saying hello"));
  g_assert_nonnull (strstr (failure, zot_extension_get_log_path (extension)));
  g_assert_nonnull (strstr (zot_extension_get_last_error (extension), "status 3"));

  /* Its stderr went to its log, after a header the host wrote. */
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "=== early: started by zot"));
  g_assert_nonnull (strstr (log, "exited with status 3"));

  g_assert_true (run_command (f, manager, "ok", "display still here", NULL));
  assert_display (f, "good|still here");

  zot_test_shutdown_manager (manager);
}

static void
test_shell_exit_before_hello (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *dir = zot_test_fixture_dir ("sh-exit3");
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "sh-exit3");
  g_autofree char *log = zot_test_read_file (zot_extension_get_log_path (extension));

  g_assert_cmpuint (f->failures->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->failures, 0), "exited with status 3"));
  g_assert_nonnull (strstr (log, "dying before hello"));

  zot_test_shutdown_manager (manager);
}

static void
test_never_hello (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *bad = fake (f, "silent", "--never-hello", NULL);
  g_autofree char *good = fake (f, "good", "--command", "ok", NULL);
  const char *paths[] = { bad, good, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;

  /* The deadline holds for the good one too, so it must be long enough for
   * a sanitised build to start on a loaded machine: 300 ms was not. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_HELLO, 2000);

  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "silent");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_cmpuint (f->failures->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->failures, 0), "did not say hello within"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->failures, 0), zot_extension_get_log_path (extension)));

  g_assert_true (run_command (f, manager, "ok", "display fine", NULL));
  assert_display (f, "good|fine");

  zot_test_shutdown_manager (manager);
}

static void
test_shell_never_hello (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = zot_test_fixture_dir ("sh-nohello");
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_HELLO, 200);
  manager = load (f, paths);
  g_assert_cmpuint (f->failures->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->failures, 0), "did not say hello"));
  zot_test_shutdown_manager (manager);
}

static void
test_hello_within_deadline (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "slowish", "--hello-delay-ms", "100", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_HELLO, 2000);
  manager = load (f, paths);
  g_assert_cmpuint (f->failures->len, ==, 0);
  g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (manager, "slowish")), ==,
                   ZOT_EXTENSION_STATE_READY);
  zot_test_shutdown_manager (manager);
}

/* Registration window */

static void
test_registration_idle (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = fake (f, "legacy", "--no-ready", "--command", "old", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autofree char *log = NULL;

  /* Long enough that the fake, preempted between its hello and its
   * register_command on a loaded machine, still registers in time. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_IDLE, 500);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_MAX, 20000);

  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "legacy");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_nonnull (zot_extension_manager_lookup_command (manager, "old", NULL));
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "no \"ready\" frame and no frame for 500 ms"));

  zot_test_shutdown_manager (manager);
}

static void
test_registration_cap (Fixture       *f,
                       gconstpointer  data)
{
  /* A stream of frames keeps the idle timer from ever firing: only the cap
   * ends registration. */
  g_autofree char *dir = fake (f, "chatty", "--no-ready", "--flood", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autofree char *log = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_IDLE, 200);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_MAX, 400);

  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "chatty");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "no \"ready\" frame within 400 ms of hello"));

  zot_test_shutdown_manager (manager);
}

static void
test_ready_ends_registration (Fixture       *f,
                              gconstpointer  data)
{
  /* With ready, the extension is routed before either timer could fire. */
  g_autofree char *dir = fake (f, "prompt-ready", "--command", "x", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  g_autofree char *log = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_IDLE, 20000);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_MAX, 20000);

  manager = load (f, paths);
  g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (manager, "prompt-ready")), ==,
                   ZOT_EXTENSION_STATE_READY);
  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (manager, "prompt-ready")));
  g_assert_null (strstr (log, "treated as ready"));
  zot_test_shutdown_manager (manager);
}

static gboolean
has_command (gpointer data)
{
  return zot_extension_manager_lookup_command (data, "late", NULL) != NULL;
}

static void
test_register_after_ready (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *dir = fake (f, "afterwards", "--command", "early", "--register-after-ready", "late", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);

  zot_test_wait_until (has_command, manager, 5000);
  g_assert_true (run_command (f, manager, "LATE", "display late works", NULL));
  assert_display (f, "afterwards|late works");
  zot_test_shutdown_manager (manager);
}

/* Commands */

static void
test_command_actions (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = fake (f, "actions", "--command", "Todo", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autoptr(GError) error = NULL;
  const char *canonical = NULL;

  /* Case-insensitive match; the extension hears its own spelling. */
  g_assert_nonnull (zot_extension_manager_lookup_command (manager, "/tODO", &canonical));
  g_assert_cmpstr (canonical, ==, "Todo");
  g_assert_true (run_command (f, manager, "/todo", "name", NULL));
  assert_display (f, "actions|Todo");

  /* Args are trimmed. */
  g_assert_true (run_command (f, manager, "TODO", "   display spaced out   ", NULL));
  assert_display (f, "actions|spaced out");

  g_assert_true (run_command (f, manager, "todo", "insert some text", NULL));
  g_assert_cmpuint (f->inserts->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->inserts, 0), ==, "some text");

  g_assert_true (run_command (f, manager, "todo", "prompt write a poem", NULL));
  g_assert_cmpuint (f->prompts->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->prompts, 0), ==, "write a poem");

  g_assert_true (run_command (f, manager, "todo", "noop", NULL));

  g_assert_false (run_command (f, manager, "todo", "error the disk is on fire", &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_COMMAND_FAILED);
  g_assert_nonnull (strstr (error->message, "the disk is on fire"));
  g_clear_error (&error);

  g_assert_false (run_command (f, manager, "todo", "badaction", &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION);
  g_assert_nonnull (strstr (error->message, "unknown command action"));
  g_clear_error (&error);

  g_assert_false (run_command (f, manager, "nosuch", "", &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNKNOWN_COMMAND);
  g_clear_error (&error);

  zot_test_shutdown_manager (manager);
}

static gboolean
log_mentions_expired (gpointer data)
{
  g_autofree char *log = zot_test_read_file (zot_extension_get_log_path (data));
  return strstr (log, "unknown or expired request") != NULL;
}

static void
test_command_timeout (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = fake (f, "sleepy", "--command", "s", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_COMMAND, 300);
  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "sleepy");

  g_assert_false (run_command (f, manager, "s", "hang", &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (error->message, "did not answer"));
  g_clear_error (&error);

  /* A reply arriving after the deadline is dropped, and the extension
   * goes on answering the next command. */
  g_assert_false (run_command (f, manager, "s", "late 600 too late", &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT);
  g_clear_error (&error);

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_COMMAND, 5000);
  g_assert_true (run_command (f, manager, "s", "display on time", NULL));
  assert_display (f, "sleepy|on time");
  g_assert_false (has_prefix_in (f->displays, "too late"));
  zot_test_wait_until (log_mentions_expired, extension, 5000);
  g_assert_false (has_prefix_in (f->displays, "too late"));
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "command_response for unknown or expired request"));

  zot_test_shutdown_manager (manager);
}

static void
test_command_conflicts (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *echo = zot_test_fixture_dir ("py-echo");
  g_autofree char *dupcase = zot_test_fixture_dir ("py-dupcase");
  /* The first in load order is slow to start, and must still win. */
  g_autofree char *slow = fake (f, "slow-first", "--hello-delay-ms", "300", "--command", "Shared", NULL);
  g_autofree char *quick = fake (f, "quick-second", "--command", "shared", "--command", "help", NULL);
  const char *paths[] = { slow, quick, dupcase, echo, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *winner;
  ZotExtension *loser;
  ZotExtension *dup;
  GPtrArray *commands;
  const char *canonical;
  g_autofree char *log = NULL;
  g_autofree char *dup_log = NULL;

  winner = zot_extension_manager_lookup_command (manager, "SHARED", &canonical);
  g_assert_cmpstr (zot_extension_get_name (winner), ==, "slow-first");
  g_assert_cmpstr (canonical, ==, "Shared");

  loser = zot_extension_manager_find (manager, "quick-second");
  commands = zot_extension_get_commands (loser);
  g_assert_cmpuint (commands->len, ==, 2);
  g_assert_nonnull (((ZotExtensionCommand *) g_ptr_array_index (commands, 0))->conflict);
  /* Built-ins win over every extension. */
  g_assert_nonnull (strstr (((ZotExtensionCommand *) g_ptr_array_index (commands, 1))->conflict, "built-in"));
  log = zot_test_read_file (zot_extension_get_log_path (loser));
  g_assert_nonnull (strstr (log, "slow-first, earlier in the load order, wins"));

  /* Within one extension, the first frame wins over a case variant. */
  dup = zot_extension_manager_find (manager, "py-dupcase");
  g_assert_nonnull (dup);
  g_assert_cmpint (zot_extension_get_state (dup), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (zot_extension_manager_lookup_command (manager, "dup", &canonical) == dup);
  g_assert_cmpstr (canonical, ==, "Dup");
  dup_log = zot_test_read_file (zot_extension_get_log_path (dup));
  g_assert_nonnull (strstr (dup_log, "conflicts with \"Dup\""));

  /* Between extensions, the earlier in load order (py-dupcase) wins Echo. */
  g_assert_true (zot_extension_manager_lookup_command (manager, "echo", &canonical) == dup);
  g_assert_true (run_command (f, manager, "echo", "x", NULL));
  assert_display (f, "py-dupcase|dupcase-echo");

  zot_test_shutdown_manager (manager);
}

static void
test_command_list (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *a = fake (f, "lister", "--command", "Beta", "--command", "alpha", NULL);
  const char *paths[] = { a, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autoptr(GPtrArray) commands = zot_extension_manager_list_commands (manager);
  gboolean saw_help = FALSE, saw_beta = FALSE;

  for (guint i = 0; i < commands->len; i++)
    {
      ZotCommandInfo *info = g_ptr_array_index (commands, i);

      if (g_str_equal (info->name, "help"))
        {
          saw_help = TRUE;
          g_assert_null (info->extension);
        }
      if (g_str_equal (info->name, "Beta"))
        {
          saw_beta = TRUE;
          g_assert_cmpstr (info->description, ==, "fake command Beta");
          g_assert_true (info->extension == zot_extension_manager_find (manager, "lister"));
        }
    }
  g_assert_true (saw_help && saw_beta);
  g_assert_true (zot_extension_manager_is_builtin_command ("/Reload-Ext"));
  g_assert_false (zot_extension_manager_is_builtin_command ("beta"));

  g_clear_pointer (&commands, g_ptr_array_unref);
  zot_test_shutdown_manager (manager);
}

/* Notes */

static gboolean
notes_at_least_two (gpointer data)
{
  Fixture *f = data;
  return f->notes->len >= 2;
}

static void
test_notes (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "noter", "--command", "n", "--notify-on-start", "success:up and running", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);

  g_assert_true (run_command (f, manager, "n", "notify warn careful now", NULL));
  zot_test_wait_until (notes_at_least_two, f, 5000);
  g_assert_true (has_prefix_in (f->notes, "noter|success|up and running"));
  g_assert_true (has_prefix_in (f->notes, "noter|warn|careful now"));

  g_assert_true (run_command (f, manager, "n", "notify shouting LOUD", NULL));
  /* An unknown level is shown as info rather than dropped. */
  g_assert_true (has_prefix_in (f->notes, "noter|info|LOUD"));

  g_assert_cmpuint (f->n_cleared, ==, 0);
  g_assert_true (run_command (f, manager, "n", "clear", NULL));
  g_assert_cmpuint (f->n_cleared, ==, 1);

  zot_test_shutdown_manager (manager);
}

/* Hostile extensions */

static void
test_garbage_lines (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = fake (f, "messy", "--garbage", "--command", "g", NULL);
  g_autofree char *sh = zot_test_fixture_dir ("sh-garbage");
  const char *paths[] = { dir, sh, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "messy");
  g_autofree char *log = NULL;

  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (run_command (f, manager, "g", "display survived", NULL));
  assert_display (f, "messy|survived");
  g_assert_true (run_command (f, manager, "garb", "", NULL));
  assert_display (f, "sh-garbage|garbage survived");

  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "line is not JSON"));
  g_assert_nonnull (strstr (log, "line is not a JSON object"));
  g_assert_nonnull (strstr (log, "frame has no string \"type\""));

  zot_test_shutdown_manager (manager);
}

static void
test_invalid_utf8 (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *py = zot_test_fixture_dir ("py-invalid-utf8");
  g_autofree char *c = fake (f, "bytes", "--invalid-utf8", "--command", "b", NULL);
  const char *paths[] = { py, c, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autofree char *log = NULL;

  g_assert_true (run_command (f, manager, "utf", "", NULL));
  assert_display (f, "py-invalid-utf8|utf ok");
  g_assert_true (has_prefix_in (f->notes, "py-invalid-utf8|info|after-invalid"));
  g_assert_true (run_command (f, manager, "b", "display fine", NULL));

  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (manager, "bytes")));
  g_assert_nonnull (strstr (log, "not valid UTF-8"));

  zot_test_shutdown_manager (manager);
}

static gboolean
is_failed (gpointer data)
{
  return zot_extension_get_state (data) == ZOT_EXTENSION_STATE_FAILED;
}

static void
test_huge_frame (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *bad = fake (f, "huge", "--huge-frame-after-hello", "--command", "h", NULL);
  g_autofree char *good = fake (f, "good", "--command", "ok", NULL);
  const char *paths[] = { bad, good, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "huge");

  zot_test_wait_until (is_failed, extension, 10000);
  g_assert_nonnull (strstr (zot_extension_get_last_error (extension), "4 MiB"));
  g_assert_true (has_prefix_in (f->crashes, "huge stopped unexpectedly"));
  /* Its commands are gone; the neighbour still answers. */
  g_assert_null (zot_extension_manager_lookup_command (manager, "h", NULL));
  g_assert_true (run_command (f, manager, "ok", "display alive", NULL));
  assert_display (f, "good|alive");

  zot_test_shutdown_manager (manager);
}

static void
test_flood_never_reading (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *bad = fake (f, "flood", "--flood", "--command", "fl", NULL);
  g_autofree char *good = fake (f, "good", "--command", "ok", NULL);
  const char *paths[] = { bad, good, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "flood");
  g_autoptr(GError) error = NULL;
  g_autofree char *padding = g_strnfill (1024, 'x');
  guint sent = 0;

  /* The main loop keeps serving the good extension while notes pour in. */
  for (guint i = 0; i < 5; i++)
    g_assert_true (run_command (f, manager, "ok", "display between", NULL));
  g_assert_cmpuint (f->notes->len, >, 0);

  /* Frames to an extension that never reads fill the pipe, then the queue;
   * past its bound the extension is disconnected, never blocked on. */
  while (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY && sent < 100000)
    {
      g_autoptr(JsonObject) frame = json_object_new ();

      json_object_set_string_member (frame, "type", "event");
      json_object_set_string_member (frame, "event", "padding");
      json_object_set_string_member (frame, "text", padding);
      if (!zot_extension_notify (extension, frame, &error))
        break;
      sent++;
      /* One turn of the loop flushes the coalesced notifications; more
       * would only parse the flood, which always has output ready, so
       * draining until idle would never end. */
      if (sent % 64 == 0)
        g_main_context_iteration (NULL, FALSE);
    }

  zot_test_wait_until (is_failed, extension, 10000);
  g_assert_nonnull (strstr (zot_extension_get_last_error (extension), "not reading its input"));
  g_assert_true (run_command (f, manager, "ok", "display after flood", NULL));
  assert_display (f, "good|after flood");

  zot_test_shutdown_manager (manager);
}

typedef struct
{
  gboolean  done;
  GError   *error;
  guint     ticks;
} BigRequest;

static void
big_request_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  BigRequest *request = user_data;
  g_autoptr(JsonObject) reply = zot_extension_request_finish (ZOT_EXTENSION (object), result, &request->error);

  request->done = TRUE;
}

static gboolean
count_tick (gpointer data)
{
  ((BigRequest *) data)->ticks++;
  return G_SOURCE_CONTINUE;
}

static void
test_big_write_never_blocks (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = fake (f, "deaf", "--flood", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autoptr(JsonObject) frame = json_object_new ();
  g_autofree char *padding = g_strnfill (1024 * 1024, 'p');
  BigRequest request = { 0 };
  guint id;

  /* A 1 MiB request to an extension that never reads its input: the pipe
   * fills, and the main loop must go on turning until the write deadline
   * disconnects it. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WRITE, 300);
  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "deaf");

  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", "anything");
  json_object_set_string_member (frame, "padding", padding);

  id = g_timeout_add (10, count_tick, &request);
  zot_extension_request_async (extension, frame, 60000, NULL, big_request_cb, &request);
  zot_test_wait_for (&request.done, 20000);
  g_source_remove (id);

  /* A write that blocked would have held the loop until the test's own
   * deadline, with no tick at all; how many ticks fit depends on how fast
   * this build parses the flood, so only their presence is asserted. */
  g_assert_nonnull (request.error);
  g_assert_cmpuint (request.ticks, >, 0);
  zot_test_wait_until (is_failed, extension, 10000);
  g_assert_nonnull (strstr (zot_extension_get_last_error (extension), "could not be written"));
  g_clear_error (&request.error);

  zot_test_shutdown_manager (manager);
}

static void
test_crash_during_command (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *dir = fake (f, "fragile", "--command", "boom", NULL);
  g_autofree char *good = fake (f, "good", "--command", "ok", NULL);
  const char *paths[] = { dir, good, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autoptr(GError) error = NULL;
  gint64 start;

  /* A long deadline: the failure must come from the exit, not the clock. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_COMMAND, 60000);
  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "fragile");

  start = g_get_monotonic_time ();
  g_assert_false (run_command (f, manager, "boom", "crash 7", &error));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED);

  zot_test_wait_until (is_failed, extension, 5000);
  g_assert_true (has_prefix_in (f->crashes, "exited with status 7"));
  g_assert_true (has_prefix_in (f->crashes, zot_extension_get_log_path (extension)));
  g_assert_null (zot_extension_manager_lookup_command (manager, "boom", NULL));
  g_assert_true (run_command (f, manager, "ok", "display fine", NULL));

  zot_test_shutdown_manager (manager);
}

static void
test_broken_manifests (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *noexec = zot_test_fixture_dir ("no-exec");
  g_autofree char *missing = zot_test_make_manifest (f->env.root, "missing-exec",
                                                     "{\"name\":\"missing-exec\",\"exec\":\"./nope.sh\"}");
  g_autofree char *good = fake (f, "good", "--command", "ok", NULL);
  const char *paths[] = { noexec, missing, good, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autoptr(ZotExtension) first = g_list_model_get_item (G_LIST_MODEL (manager), 0);
  ZotExtension *second;

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (manager)), ==, 3);
  g_assert_cmpint (zot_extension_get_state (first), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_nonnull (strstr (zot_extension_get_last_error (first), "extension.json"));
  g_assert_nonnull (strstr (zot_extension_get_last_error (first), "\"exec\""));

  second = zot_extension_manager_find (manager, "missing-exec");
  g_assert_cmpint (zot_extension_get_state (second), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_nonnull (strstr (zot_extension_get_last_error (second), "does not exist"));

  g_assert_cmpuint (f->failures->len, ==, 2);
  g_assert_true (run_command (f, manager, "ok", "display fine", NULL));

  zot_test_shutdown_manager (manager);
}

static void
test_disabled (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *dir = zot_test_fixture_dir ("disabled");
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), 0);

  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_DISABLED);
  g_assert_false (g_file_test (zot_extension_get_log_path (extension), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (f->failures->len, ==, 0);
  g_clear_object (&extension);
  zot_test_shutdown_manager (manager);
}

/* Languages */

static void
test_python_and_shell (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *py = zot_test_fixture_dir ("py-echo");
  g_autofree char *sh = zot_test_fixture_dir ("sh-hello");
  const char *paths[] = { py, sh, NULL };
  ZotExtensionManager *manager = load (f, paths);

  g_assert_cmpuint (f->failures->len, ==, 0);
  g_assert_true (run_command (f, manager, "echo", "  hi there ", NULL));
  assert_display (f, "py-echo|echo: hi there");
  g_assert_true (run_command (f, manager, "pynote", "from python", NULL));
  g_assert_true (has_prefix_in (f->notes, "py-echo|info|from python"));
  g_assert_true (run_command (f, manager, "shhello", "", NULL));
  assert_display (f, "sh-hello|hello from shell");

  zot_test_shutdown_manager (manager);
}

/* Startup */

typedef struct {
  GListModel *extensions;
  int         started_at_first_hello;
} Startup;

/* An extension writes its log's start header just before it is spawned. */
static guint
count_started (GListModel *extensions)
{
  guint started = 0;

  for (guint i = 0; i < g_list_model_get_n_items (extensions); i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (extensions, i);
      g_autofree char *log = zot_test_read_file (zot_extension_get_log_path (extension));

      if (log != NULL && strstr (log, "started by zot") != NULL)
        started++;
    }

  return started;
}

static void
on_startup_state (ZotExtension *extension,
                  GParamSpec   *pspec,
                  Startup      *startup)
{
  if (startup->started_at_first_hello < 0 &&
      zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_STARTING)
    startup->started_at_first_hello = (int) count_started (startup->extensions);
}

static void
on_startup_items (GListModel *extensions,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Startup    *startup)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (extensions, i);

      g_signal_connect (extension, "notify::state", G_CALLBACK (on_startup_state), startup);
    }
}

/* Every extension is spawned before the first one's hello is read, rather
 * than each waiting for the one before it: startup takes as long as the
 * slowest extension, not the sum. Checked by order of events, not by a
 * clock, so that a loaded machine cannot fail it. */
static void
test_concurrent_startup (Fixture       *f,
                         gconstpointer  data)
{
  const guint n = 16;
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  ZotExtensionManager *manager = zot_extension_manager_new ();
  Startup startup = { G_LIST_MODEL (manager), -1 };
  gboolean done = FALSE;
  gint64 start;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("par%02u", i);
      g_ptr_array_add (dirs, fake (f, name, "--hello-delay-ms", "100", NULL));
    }
  g_ptr_array_add (dirs, NULL);

  connect_fixture (f, manager);
  g_signal_connect (manager, "items-changed", G_CALLBACK (on_startup_items), &startup);
  zot_extension_manager_set_cwd (manager, f->env.cwd);
  zot_extension_manager_set_explicit_paths (manager, (const char * const *) dirs->pdata);
  start = g_get_monotonic_time ();
  zot_extension_manager_load_async (manager, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);
      g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
    }
  g_assert_cmpint (startup.started_at_first_hello, ==, (int) n);
  g_test_message ("%u extensions with a 100 ms hello delay each started in %" G_GINT64_FORMAT " ms",
                  n, (g_get_monotonic_time () - start) / 1000);

  g_signal_handlers_disconnect_by_data (manager, &startup);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);
      g_signal_handlers_disconnect_by_data (extension, &startup);
    }
  zot_test_shutdown_manager (manager);
}

/* Shutdown ladder */

static void
stop_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_stop_finish (ZOT_EXTENSION (object), result, NULL));
  *done = TRUE;
}

static void
test_shutdown_polite (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *record = g_build_filename (f->env.root, "record.jsonl", NULL);
  g_autofree char *dir = fake (f, "polite", "--record", record, NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "polite");
  g_autoptr(GPtrArray) frames = NULL;
  g_autofree char *log = NULL;

  zot_test_stop_extension (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_EXITED);
  frames = zot_test_read_frames (record);
  g_assert_nonnull (zot_test_find_frame (frames, "shutdown"));
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "shutdown acknowledged"));
  g_assert_nonnull (strstr (log, "exited with status 0"));
  g_assert_null (strstr (log, "SIGTERM"));

  zot_test_shutdown_manager (manager);
}

static gboolean
extension_failed (gpointer data)
{
  return zot_extension_get_state (data) == ZOT_EXTENSION_STATE_FAILED;
}

/* Frames written just before an exit are read before the exit is told:
 * the exit is often noticed first (the child watch runs before the
 * low-priority reader), and they used to be lost. */
static void
test_last_words_read (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = fake (f, "brief", "--exit-after-notes", "200", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "brief");

  zot_test_wait_until (extension_failed, extension, 30000);
  g_assert_cmpuint (f->notes->len, ==, 200);
  g_assert_cmpstr (g_ptr_array_index (f->notes, 199), ==, "brief|info|last words 199");
  g_assert_cmpuint (f->crashes->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->crashes, 0), "exited with status 0"));

  zot_test_shutdown_manager (manager);
}

static gboolean
process_gone (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat = NULL;
  const char *state;

  /* Reparented to an init that may not reap: a zombie is gone too. */
  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;
  state = strrchr (stat, ')');
  return state != NULL && (state[2] == 'Z' || state[2] == 'X');
}

static gboolean
sleeper_gone (gpointer data)
{
  return process_gone ((GPid) GPOINTER_TO_INT (data));
}

/* An extension's own children end with it: it leads a process group, and
 * the group is signalled on shutdown. The sleeper also holds the
 * extension's stdout, which must not keep the host waiting. */
static void
test_children_end_with_extension (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *pid_file = g_build_filename (f->env.root, "sleeper.pid", NULL);
  g_autofree char *dir = fake (f, "parent", "--spawn-sleeper", pid_file, NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "parent");
  g_autofree char *text = NULL;
  GPid sleeper;

  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (g_file_get_contents (pid_file, &text, NULL, NULL));
  sleeper = (GPid) g_ascii_strtoll (text, NULL, 10);
  g_assert_cmpint (sleeper, >, 0);
  g_assert_false (process_gone (sleeper));

  zot_test_stop_extension (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_EXITED);
  zot_test_wait_until (sleeper_gone, GINT_TO_POINTER (sleeper), 30000);

  zot_test_shutdown_manager (manager);
}

/* A child that left the group keeps the extension's output open after
 * the extension exits: the host reads on for ZOT_EXIT_DRAIN_MS at most. */
static void
test_drain_deadline (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *pid_file = g_build_filename (f->env.root, "escaper.pid", NULL);
  g_autofree char *dir = fake (f, "leaky", "--spawn-sleeper", pid_file, "--sleeper-escapes", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autofree char *text = NULL;
  g_autofree char *log = NULL;
  GPid escaper;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_EXIT_DRAIN, 200);
  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "leaky");
  g_assert_true (g_file_get_contents (pid_file, &text, NULL, NULL));
  escaper = (GPid) g_ascii_strtoll (text, NULL, 10);

  zot_test_stop_extension (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_EXITED);
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "its output stayed open 200 ms after it exited"));

  g_assert_cmpint (kill (escaper, SIGKILL), ==, 0);
  zot_test_shutdown_manager (manager);
}

/* 20,000 registrations end well inside the registration window (lookups
 * are hashed), and past ZOT_MAX_COMMANDS_PER_EXTENSION the rest are
 * ignored with one problem that says so. */
static void
test_registration_flood (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = fake (f, "chatty", "--many-commands", "20000", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "chatty");
  GPtrArray *commands = zot_extension_get_commands (extension);
  GPtrArray *problems = zot_extension_get_problems (extension);
  g_autofree char *last = g_strdup_printf ("c%u", ZOT_MAX_COMMANDS_PER_EXTENSION - 1);

  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_cmpuint (commands->len, ==, ZOT_MAX_COMMANDS_PER_EXTENSION);
  g_assert_cmpstr (((ZotExtensionCommand *) g_ptr_array_index (commands, commands->len - 1))->name, ==, last);
  g_assert_nonnull (zot_extension_manager_lookup_command (manager, last, NULL));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (problems, 0), "more than 1024 commands registered"));

  zot_test_shutdown_manager (manager);
}

/* Provider keys stay with the host: an extension does not inherit them. */
static void
test_no_keys_for_extensions (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *env_file = g_build_filename (f->env.root, "env.txt", NULL);
  g_autofree char *dir = fake (f, "curious", "--env-file", env_file, NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  g_autofree char *environment = NULL;

  g_setenv ("ANTHROPIC_API_KEY", "sk-ant-secret", TRUE);
  g_setenv ("GEMINI_API_KEY", "gm-secret", TRUE);
  g_setenv ("ZOT_TEST_HARMLESS", "kept", TRUE);
  manager = load (f, paths);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("GEMINI_API_KEY");
  g_unsetenv ("ZOT_TEST_HARMLESS");

  g_assert_true (g_file_get_contents (env_file, &environment, NULL, NULL));
  g_assert_null (strstr (environment, "secret"));
  g_assert_nonnull (strstr (environment, "ZOT_TEST_HARMLESS=kept"));

  zot_test_shutdown_manager (manager);
}

/* An extension that asks for a key by name gets it once the user granted
 * it, and only that one. */
static void
test_granted_key (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *env_file = g_build_filename (f->env.root, "env.txt", NULL);
  g_autofree char *dir = fake (f, "needy", "--env-file", env_file, NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *log = NULL;
  g_autoptr(GError) error = NULL;

  zot_test_manifest_set_strings (dir, "env", (const char *[]) { "OPENAI_API_KEY", NULL });
  g_setenv ("OPENAI_API_KEY", "sk-openai-secret", TRUE);
  g_setenv ("ANTHROPIC_API_KEY", "sk-ant-secret", TRUE);

  manager = load (f, paths);
  g_assert_true (g_file_get_contents (env_file, &before, NULL, NULL));
  g_assert_null (strstr (before, "secret"));
  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (manager, "needy")));
  g_assert_nonnull (strstr (log, "zot ext allow-key needy OPENAI_API_KEY"));
  zot_test_shutdown_manager (manager);

  g_assert_true (zot_key_grants_set ("needy", "OPENAI_API_KEY", TRUE, &error));
  g_assert_no_error (error);
  manager = load (f, paths);
  g_assert_true (g_file_get_contents (env_file, &after, NULL, NULL));
  g_assert_nonnull (strstr (after, "OPENAI_API_KEY=sk-openai-secret"));
  g_assert_null (strstr (after, "sk-ant-secret"));
  zot_test_shutdown_manager (manager);

  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_assert_true (zot_key_grants_set ("needy", "OPENAI_API_KEY", FALSE, &error));
  {
    g_auto(GStrv) left = zot_key_grants_for ("needy");
    g_assert_cmpuint (g_strv_length (left), ==, 0);
  }
}

/* Members of the wrong type in an extension's frames are read as absent:
 * json-glib's getters would log a critical for each (fatal here). */
static void
test_odd_member_types (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = fake (f, "odd",
                               "--register-json", "{\"type\":\"notify\",\"id\":{\"x\":1},\"level\":\"info\",\"message\":\"odd id\"}",
                               "--register-json", "{\"type\":{\"not\":\"a string\"}}",
                               "--register-json", "{\"type\":\"panel_render\",\"panel_id\":[1],\"lines\":[]}",
                               "--register-json", "{\"type\":\"call_tool\",\"id\":[],\"name\":{}}",
                               NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);

  g_assert_cmpint (zot_extension_get_state (zot_extension_manager_find (manager, "odd")), ==,
                   ZOT_EXTENSION_STATE_READY);
  g_assert_true (g_ptr_array_find_with_equal_func (f->notes, "odd|info|odd id", g_str_equal, NULL));

  zot_test_shutdown_manager (manager);
}

static void
test_shutdown_sigterm (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = fake (f, "stubborn", "--ignore-shutdown", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autofree char *log = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_SHUTDOWN_GRACE, 200);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_SIGTERM_GRACE, 5000);
  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "stubborn");

  zot_test_stop_extension (extension);
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "did not exit within 200 ms of shutdown; sending SIGTERM"));
  g_assert_nonnull (strstr (log, "killed by signal 15"));
  g_assert_null (strstr (log, "SIGKILL"));

  zot_test_shutdown_manager (manager);
}

static void
test_shutdown_sigkill (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = fake (f, "immortal", "--ignore-shutdown", "--ignore-sigterm", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  g_autofree char *log = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_SHUTDOWN_GRACE, 150);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_SIGTERM_GRACE, 150);
  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "immortal");

  zot_test_stop_extension (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_EXITED);
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "sending SIGTERM"));
  g_assert_nonnull (strstr (log, "did not exit within 150 ms of SIGTERM; sending SIGKILL"));
  g_assert_nonnull (strstr (log, "killed by signal 9"));

  zot_test_shutdown_manager (manager);
}

/* Inside Flatpak an extension runs on the host through flatpak-spawn, in
 * its own directory, with a granted key passed and the others unset, and
 * talks to the window through flatpak-spawn's pipes. */
static void
test_sandboxed_extension (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *log = zot_test_fake_sandbox_begin (f->env.root);
  g_autofree char *env_file = g_build_filename (f->env.root, "env.txt", NULL);
  g_autofree char *dir = fake (f, "hosted", "--command", "where", "--env-file", env_file, NULL);
  g_autofree char *directory = g_strconcat ("--directory=", dir, NULL);
  g_autofree char *environment = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  JsonArray *logged;

  zot_test_manifest_set_strings (dir, "env", (const char *[]) { "OPENAI_API_KEY", NULL });
  g_assert_true (zot_key_grants_set ("hosted", "OPENAI_API_KEY", TRUE, &error));
  g_setenv ("OPENAI_API_KEY", "sk-openai-granted", TRUE);
  g_setenv ("ANTHROPIC_API_KEY", "sk-ant-secret", TRUE);
  manager = load (f, paths);
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("ANTHROPIC_API_KEY");

  extension = zot_extension_manager_find (manager, "hosted");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (run_command (f, manager, "where", "display here", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->displays->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->displays, 0), ==, "hosted|here");

  g_assert_true (g_file_get_contents (env_file, &environment, NULL, NULL));
  g_assert_nonnull (strstr (environment, "OPENAI_API_KEY=sk-openai-granted"));
  g_assert_null (strstr (environment, "sk-ant-secret"));

  calls = zot_test_read_frames (log);
  g_assert_cmpuint (calls->len, ==, 1);
  logged = json_object_get_array_member (g_ptr_array_index (calls, 0), "argv");
  {
    g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

    for (guint i = 0; i < json_array_get_length (logged); i++)
      g_strv_builder_add (builder, json_array_get_string_element (logged, i));
    argv = g_strv_builder_end (builder);
  }
  g_assert_cmpstr (argv[0], ==, "--host");
  g_assert_cmpstr (argv[1], ==, "--watch-bus");
  g_assert_cmpstr (argv[2], ==, directory);
  g_assert_true (g_strv_contains ((const char * const *) argv, "--env=OPENAI_API_KEY=sk-openai-granted"));
  g_assert_true (g_strv_contains ((const char * const *) argv, "--unset-env=ANTHROPIC_API_KEY"));
  g_assert_true (g_strv_contains ((const char * const *) argv, "--"));

  zot_test_stop_extension (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_EXITED);
  zot_test_shutdown_manager (manager);
  zot_test_fake_sandbox_end ();
}

/* SIGKILL ends flatpak-spawn, not the host program: the stop ladder's last
 * step forwards SIGINT to the host program's group first, and the exit is
 * told as the signal it was. */
static void
test_sandboxed_shutdown_kill (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *log = zot_test_fake_sandbox_begin (f->env.root);
  g_autofree char *dir = fake (f, "immortal", "--ignore-shutdown", "--ignore-sigterm", NULL);
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *ext_log = NULL;
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotExtension *extension;
  GPid host_pid;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_SHUTDOWN_GRACE, 150);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_SIGTERM_GRACE, 150);
  manager = load (f, paths);
  extension = zot_extension_manager_find (manager, "immortal");
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);

  calls = zot_test_read_frames (log);
  g_assert_cmpuint (calls->len, ==, 1);
  host_pid = (GPid) json_object_get_int_member (g_ptr_array_index (calls, 0), "host_pid");
  g_assert_false (process_gone (host_pid));

  zot_test_stop_extension (extension);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_EXITED);
  zot_test_wait_until (sleeper_gone, GINT_TO_POINTER (host_pid), 30000);

  ext_log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (ext_log, "sending SIGTERM"));
  g_assert_nonnull (strstr (ext_log, "sending SIGKILL"));
  g_assert_nonnull (strstr (ext_log, "killed by signal 2"));
  g_assert_nonnull (strstr (ext_log, "on the host"));

  zot_test_shutdown_manager (manager);
  zot_test_fake_sandbox_end ();
}

static void
test_stop_fails_pending (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = fake (f, "busy", "--command", "b", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "busy");
  gboolean stopped = FALSE;
  g_autoptr(GError) error = NULL;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_COMMAND, 60000);
  zot_extension_stop_async (extension, NULL, stop_cb, &stopped);
  /* Once stopping, no command reaches it. */
  g_assert_false (run_command (f, manager, "b", "hang", &error));
  g_assert_nonnull (error);
  zot_test_wait_for (&stopped, 20000);

  zot_test_shutdown_manager (manager);
}

/* Reload and restart */

static void
reload_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_manager_reload_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *done = TRUE;
}

static void
test_reload (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *project_dir = g_build_filename (f->env.cwd, ".zot", "extensions", NULL);
  g_autofree char *dir = fake (f, "explicit", "--command", "one", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autoptr(ZotExtension) before = g_object_ref (zot_extension_manager_find (manager, "explicit"));
  g_autofree char *added = NULL;
  gboolean done = FALSE;

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (manager)), ==, 1);
  g_assert_null (zot_extension_manager_lookup_command (manager, "two", NULL));

  /* A project extension appears on disk; reload finds it and restarts the
   * explicit one. */
  added = zot_test_make_fake (project_dir, "discovered", (const char *[]) { "--command", "two", NULL });
  {
    g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (added, NULL);

    g_assert_true (zot_grants_trust_project (added, manifest, NULL));
  }

  zot_extension_manager_reload_async (manager, NULL, reload_cb, &done);
  zot_test_wait_for (&done, 20000);

  g_assert_cmpint (zot_extension_get_state (before), ==, ZOT_EXTENSION_STATE_EXITED);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (manager)), ==, 2);
  g_assert_true (zot_extension_manager_find (manager, "explicit") != before);
  g_assert_true (run_command (f, manager, "one", "display 1", NULL));
  g_assert_true (run_command (f, manager, "two", "display 2", NULL));

  zot_test_shutdown_manager (manager);
}

static void
restart_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_manager_restart_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *done = TRUE;
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  guint      *changes)
{
  g_assert_cmpuint (position, ==, 1);
  g_assert_cmpuint (removed, ==, 1);
  g_assert_cmpuint (added, ==, 1);
  (*changes)++;
}

static void
test_restart_one (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *a = fake (f, "steady", "--command", "a", NULL);
  g_autofree char *b = fake (f, "flaky", "--command", "b", NULL);
  const char *paths[] = { a, b, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *steady = zot_extension_manager_find (manager, "steady");
  ZotExtension *flaky = zot_extension_manager_find (manager, "flaky");
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;
  guint changes = 0;

  /* Crash it first: a restart is how a user recovers. */
  g_assert_false (run_command (f, manager, "b", "crash 1", &error));
  zot_test_wait_until (is_failed, flaky, 5000);
  g_assert_null (zot_extension_manager_lookup_command (manager, "b", NULL));

  g_signal_connect (manager, "items-changed", G_CALLBACK (on_items_changed), &changes);
  zot_extension_manager_restart_async (manager, flaky, NULL, restart_cb, &done);
  zot_test_wait_for (&done, 20000);
  g_signal_handlers_disconnect_by_func (manager, on_items_changed, &changes);

  g_assert_cmpuint (changes, ==, 1);
  g_assert_true (zot_extension_manager_find (manager, "steady") == steady);
  g_assert_cmpint (zot_extension_get_state (steady), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (run_command (f, manager, "b", "display back", NULL));
  assert_display (f, "flaky|back");

  zot_test_shutdown_manager (manager);
}

/* Other frames */

static gboolean
record_has_tool_result (gpointer data)
{
  g_autoptr(GPtrArray) frames = zot_test_read_frames (data);
  return zot_test_find_frame (frames, "tool_result") != NULL;
}

static void
on_traffic (ZotExtensionManager *manager,
            ZotExtension        *extension,
            int                  direction,
            const char          *line,
            GPtrArray           *lines)
{
  g_ptr_array_add (lines, g_strdup_printf ("%s %s", direction == ZOT_FRAME_DIRECTION_IN ? "in" : "out", line));
}

static void
test_traffic (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *dir = fake (f, "traced", "--command", "t", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  g_signal_connect (manager, "frame-traffic", G_CALLBACK (on_traffic), lines);

  /* Off by default: nothing is traced. */
  g_assert_true (run_command (f, manager, "t", "display quiet", NULL));
  g_assert_cmpuint (lines->len, ==, 0);

  zot_extension_manager_set_trace_traffic (manager, TRUE);
  g_assert_true (run_command (f, manager, "t", "display loud", NULL));
  g_assert_cmpuint (lines->len, ==, 2);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (lines, 0), "out {\"type\":\"command_invoked\""));
  g_assert_true (g_str_has_prefix (g_ptr_array_index (lines, 1), "in {\"type\":\"command_response\""));

  zot_extension_manager_set_trace_traffic (manager, FALSE);
  g_signal_handlers_disconnect_by_func (manager, on_traffic, lines);
  zot_test_shutdown_manager (manager);
}

static void
test_call_tool_refused (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *record = g_build_filename (f->env.root, "record.jsonl", NULL);
  g_autofree char *dir = fake (f, "caller", "--record", record, "--command", "c",
                               "--capabilities", "call_tool", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autoptr(GPtrArray) frames = NULL;
  JsonObject *result;

  /* Until the host runs tools for extensions, every request still gets its
   * one terminal result. */
  g_assert_true (run_command (f, manager, "c", "calltool read", NULL));
  /* The extension reads its input in order: once it has answered a later
   * command, it has recorded the tool_result written before it. Waiting on
   * the file instead would wait for a wake-up that never comes. */
  g_assert_true (run_command (f, manager, "c", "display synced", NULL));
  g_assert_true (record_has_tool_result (record));

  frames = zot_test_read_frames (record);
  result = zot_test_find_frame (frames, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "id"), ==, "request-1");
  g_assert_cmpstr (json_object_get_string_member (result, "name"), ==, "read");
  g_assert_true (json_object_get_boolean_member (result, "is_error"));

  zot_test_shutdown_manager (manager);
}

/* Unknown frame types */

/* A type nobody knows is logged with its type: the first
 * ZOT_UNKNOWN_FRAME_LOG_BURST of a window each, the rest only counted,
 * and the count logged when the window ends (here: the extension goes),
 * so a flood writes a bounded number of lines. */
static void
test_unknown_frames_logged (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "odd", "--command", "c", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autofree char *log_path = g_strdup (zot_extension_get_log_path (zot_extension_manager_find (manager, "odd")));
  g_autofree char *burst = g_strdup_printf ("repeat %u {\"type\":\"mystery\"}", ZOT_UNKNOWN_FRAME_LOG_BURST - 1);
  g_autofree char *log = NULL;

  /* Up to the edge of the burst: every one logged, named by its type. */
  g_assert_true (run_command (f, manager, "c", burst, NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"mystery\\nwith a newline\"}", NULL));
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "frame type \"mystery\" is unknown, ignored"), ==,
                    ZOT_UNKNOWN_FRAME_LOG_BURST - 1);
  g_assert_cmpuint (zot_test_count (log, "frame type \"mystery\\u000Awith a newline\" is unknown, ignored; "
                                         "more unknown frames in the next 60 s are only counted"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "is unknown"), ==, ZOT_UNKNOWN_FRAME_LOG_BURST);

  /* Past it, and a flood: counted, not logged. */
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"another\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "repeat 3000 {\"type\":\"flood\"}", NULL));
  g_clear_pointer (&log, g_free);
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "is unknown"), ==, ZOT_UNKNOWN_FRAME_LOG_BURST);
  g_assert_null (strstr (log, "another"));
  g_assert_null (strstr (log, "more ignored"));

  zot_test_shutdown_manager (manager);
  g_clear_pointer (&log, g_free);
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "is unknown"), ==, ZOT_UNKNOWN_FRAME_LOG_BURST);
  g_assert_cmpuint (zot_test_count (log, "unknown frame types: 3001 more ignored without a log line"), ==, 1);
}

static gboolean
log_has (gpointer data)
{
  const char * const *what = data;
  g_autofree char *log = zot_test_read_file (what[0]);

  return log != NULL && strstr (log, what[1]) != NULL;
}

/* Once the window ends, the count is logged and the next unknown frame
 * is logged again. One batch of frames arrives in one read and is handled
 * in one main loop turn, so the window (shortened here) cannot end inside
 * it. */
static void
test_unknown_frames_window (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "odd", "--command", "c", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  g_autofree char *log_path = NULL;
  g_autofree char *batch = g_strdup_printf ("repeat %u {\"type\":\"first\"}", ZOT_UNKNOWN_FRAME_LOG_BURST + 2);
  g_autofree char *log = NULL;
  const char *summary[2];

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_UNKNOWN_FRAME_WINDOW, 50);
  manager = load (f, paths);
  log_path = g_strdup (zot_extension_get_log_path (zot_extension_manager_find (manager, "odd")));

  g_assert_true (run_command (f, manager, "c", batch, NULL));
  summary[0] = log_path;
  summary[1] = "unknown frame types: 2 more ignored without a log line";
  zot_test_wait_until (log_has, summary, 10000);

  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"second\"}", NULL));
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "frame type \"first\" is unknown"), ==, ZOT_UNKNOWN_FRAME_LOG_BURST);
  g_assert_cmpuint (zot_test_count (log, "frame type \"second\" is unknown"), ==, 1);

  zot_test_shutdown_manager (manager);
}

/* submit and submit_slash */

typedef struct
{
  GPtrArray *taken;     /* "ext|text" */
  gboolean   take;
} Submits;

static gboolean
on_submit_requested (ZotExtensionManager *manager,
                     ZotExtension        *extension,
                     const char          *text,
                     Submits             *submits)
{
  g_ptr_array_add (submits->taken, g_strdup_printf ("%s|%s", zot_extension_get_name (extension), text));
  return submits->take;
}

/* The manager checks `submit` and asks the views; one per extension may
 * be pending until the view says it is done; what no view takes (print,
 * JSON and RPC modes) is logged and ignored, as is a frame without text. */
static void
test_submit_frames (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = fake (f, "asker", "--command", "c", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autofree char *log_path = g_strdup (zot_extension_get_log_path (zot_extension_manager_find (manager, "asker")));
  g_autoptr(GPtrArray) taken = g_ptr_array_new_with_free_func (g_free);
  Submits submits = { taken, FALSE };
  g_autofree char *log = NULL;

  /* Nobody takes it: a headless mode. */
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\",\"text\":\"one\"}", NULL));
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "submit ignored: this mode takes no prompts from extensions"), ==, 1);

  /* The window takes it; another one meanwhile is refused, until done. */
  g_signal_connect (manager, "submit-requested", G_CALLBACK (on_submit_requested), &submits);
  submits.take = TRUE;
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\",\"text\":\"two\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\",\"text\":\"three\"}", NULL));
  zot_extension_manager_submit_done (manager, "asker");
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\",\"text\":\"four\"}", NULL));
  g_assert_cmpuint (taken->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (taken, 0), ==, "asker|two");
  g_assert_cmpstr (g_ptr_array_index (taken, 1), ==, "asker|four");

  /* Without usable text. */
  zot_extension_manager_submit_done (manager, "asker");
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\",\"text\":\"\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\",\"text\":[\"x\"]}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\"}", NULL));
  g_assert_cmpuint (taken->len, ==, 2);

  g_clear_pointer (&log, g_free);
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "submit refused: the prompt or command it submitted before is "
                                         "not done yet"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit without a non-empty string \"text\", ignored"), ==, 3);
  g_assert_null (strstr (log, "is unknown"));

  zot_test_shutdown_manager (manager);
}

/* submit_slash runs an extension's command only: built-in ones, text
 * without a slash and unknown commands are logged and refused. */
static void
test_submit_slash_frames (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = fake (f, "slasher", "--command", "c", "--command", "Todo", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  g_autofree char *log_path = g_strdup (zot_extension_get_log_path (zot_extension_manager_find (manager, "slasher")));
  g_autoptr(GPtrArray) taken = g_ptr_array_new_with_free_func (g_free);
  Submits submits = { taken, FALSE };
  ZotApprovalPolicy policy = zot_extension_manager_get_policy (manager);
  g_autofree char *log = NULL;

  /* Nobody takes it: print and JSON modes. */
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"/todo all\"}", NULL));
  g_assert_cmpuint (taken->len, ==, 0);

  g_signal_connect (manager, "submit-slash-requested", G_CALLBACK (on_submit_requested), &submits);
  submits.take = TRUE;
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"/todo  all of it \"}", NULL));
  /* Pending until the view says the command is over: a command may
   * answer with a prompt, so neither another command nor a prompt gets in. */
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"/c\"}", NULL));
  g_signal_connect (manager, "submit-requested", G_CALLBACK (on_submit_requested), &submits);
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit\",\"text\":\"sneaky\"}", NULL));
  g_assert_cmpuint (taken->len, ==, 1);
  zot_extension_manager_submit_done (manager, "slasher");
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"/C\"}", NULL));
  zot_extension_manager_submit_done (manager, "slasher");
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"/yolo\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"/NEW now\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"todo\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\" /todo\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":\"/nosuch\"}", NULL));
  g_assert_true (run_command (f, manager, "c", "send {\"type\":\"submit_slash\",\"text\":7}", NULL));

  g_assert_cmpuint (taken->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (taken, 0), ==, "slasher|/Todo all of it");
  g_assert_cmpstr (g_ptr_array_index (taken, 1), ==, "slasher|/c");
  g_assert_cmpint (zot_extension_manager_get_policy (manager), ==, policy);

  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /todo ignored: this mode runs no commands for "
                                         "extensions"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /yolo refused: built-in commands are the user's"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /NEW refused: built-in commands are the user's"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit_slash: \"text\" must start with \"/\""), ==, 2);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /nosuch ignored: no extension command"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit_slash without a non-empty string \"text\""), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /c refused: the prompt or command it submitted "
                                         "before is not done yet (one at a time)"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit refused: the prompt or command it submitted before is "
                                         "not done yet"), ==, 1);

  zot_test_shutdown_manager (manager);
}

/* Event lines */

static void
keep_frame (ZotExtensionManager *manager,
            const char          *name,
            JsonObject          *frame,
            GPtrArray           *frames)
{
  g_ptr_array_add (frames, json_object_ref (frame));
}

static JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonNode) node = json_from_string (text, NULL);

  g_assert_nonnull (node);
  return json_object_ref (json_node_get_object (node));
}

/* The event line is written around the payload's serialization; what an
 * extension parses must be exactly the frame ::lifecycle-event shows, for
 * awkward strings, empty and absent payloads, replaced common members and
 * names outside §6 alike. */
static void
test_event_lines (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *record = g_build_filename (f->env.root, "record.jsonl", NULL);
  g_autofree char *dir = fake (f, "listener", "--record", record, "--register-json",
                               "{\"type\":\"subscribe\",\"events\":[\"session_start\",\"turn_start\","
                               "\"tool_call\",\"subagent_start\",\"custom \\\"event\\\"\"]}", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = load (f, paths);
  ZotExtension *extension = zot_extension_manager_find (manager, "listener");
  g_autofree char *cwd = g_build_filename (f->env.root, "a \"quoted\" dir\\with\ttab", NULL);
  g_autoptr(GPtrArray) shown = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(GPtrArray) events = g_ptr_array_new ();
  g_autoptr(JsonObject) empty = json_object_new ();
  g_autoptr(JsonObject) call = parse_object ("{\"tool_id\":\"t\\\"1\\\\\",\"tool_name\":\"read\","
                                             "\"tool_args\":{\"path\":\"\\u00fc\\n\\u0001\\u2028\","
                                             "\"n\":[1,-2.5,true,null,{}],\"e\":\"\"}}");
  g_autoptr(JsonObject) subagent = parse_object ("{\"session_id\":\"the task's own\",\"agent_id\":\"a\","
                                                 "\"agent_run_id\":\"r\",\"name\":\"a\"}");
  g_autoptr(JsonObject) custom = parse_object ("{\"x\":1}");

  g_assert_nonnull (extension);
  zot_extension_manager_set_cwd (manager, cwd);
  zot_extension_manager_set_session_id (manager, "session \"one\"\n");
  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (keep_frame), shown);

  zot_extension_manager_emit_event (manager, "session_start", NULL);
  zot_extension_manager_emit_event (manager, "turn_start", empty);
  zot_extension_manager_emit_event (manager, "turn_end", custom);    /* not subscribed */
  zot_extension_manager_emit_event (manager, "tool_call", call);
  zot_extension_manager_emit_event (manager, "subagent_start", subagent);
  zot_extension_manager_emit_event (manager, "custom \"event\"", custom);
  g_assert_cmpuint (shown->len, ==, 6);
  g_ptr_array_remove_index (shown, 2);

  /* Stopping drains the queue before shutdown. */
  zot_test_stop_extension (extension);
  frames = zot_test_read_frames (record);
  for (guint i = 0; i < frames->len; i++)
    if (g_str_equal (json_object_get_string_member (g_ptr_array_index (frames, i), "type"), "event"))
      g_ptr_array_add (events, g_ptr_array_index (frames, i));

  g_assert_cmpuint (events->len, ==, shown->len);
  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr(JsonNode) got = json_node_init_object (json_node_alloc (), g_ptr_array_index (events, i));
      g_autoptr(JsonNode) want = json_node_init_object (json_node_alloc (), g_ptr_array_index (shown, i));
      g_autofree char *got_text = json_to_string (got, FALSE);
      g_autofree char *want_text = json_to_string (want, FALSE);

      g_assert_cmpstr (got_text, ==, want_text);
      g_assert_true (json_node_equal (got, want));
    }

  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (events, 0), "cwd"), ==, cwd);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (events, 0), "session_id"), ==,
                   "session \"one\"\n");
  g_assert_cmpuint (json_object_get_size (g_ptr_array_index (events, 1)), ==, 5);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (events, 2), "sequence"), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (g_ptr_array_index (events, 2),
                                                                                 "tool_args"), "path"),
                   ==, "\xc3\xbc\n\x01\xe2\x80\xa8");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (events, 3), "session_id"), ==,
                   "the task's own");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (events, 4), "event"), ==,
                   "custom \"event\"");

  zot_test_shutdown_manager (manager);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/manager/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("hello-ack", test_hello_ack);
  ADD ("exit-before-hello", test_exit_before_hello);
  ADD ("shell-exit-before-hello", test_shell_exit_before_hello);
  ADD ("never-hello", test_never_hello);
  ADD ("shell-never-hello", test_shell_never_hello);
  ADD ("hello-within-deadline", test_hello_within_deadline);
  ADD ("registration-idle", test_registration_idle);
  ADD ("registration-cap", test_registration_cap);
  ADD ("ready-ends-registration", test_ready_ends_registration);
  ADD ("register-after-ready", test_register_after_ready);
  ADD ("command-actions", test_command_actions);
  ADD ("command-timeout", test_command_timeout);
  ADD ("command-conflicts", test_command_conflicts);
  ADD ("command-list", test_command_list);
  ADD ("notes", test_notes);
  ADD ("garbage-lines", test_garbage_lines);
  ADD ("invalid-utf8", test_invalid_utf8);
  ADD ("huge-frame", test_huge_frame);
  ADD ("flood-never-reading", test_flood_never_reading);
  ADD ("crash-during-command", test_crash_during_command);
  ADD ("big-write-never-blocks", test_big_write_never_blocks);
  ADD ("broken-manifests", test_broken_manifests);
  ADD ("disabled", test_disabled);
  ADD ("python-and-shell", test_python_and_shell);
  ADD ("concurrent-startup", test_concurrent_startup);
  ADD ("shutdown-polite", test_shutdown_polite);
  ADD ("last-words-read", test_last_words_read);
  ADD ("children-end-with-extension", test_children_end_with_extension);
  ADD ("drain-deadline", test_drain_deadline);
  ADD ("registration-flood", test_registration_flood);
  ADD ("no-keys-for-extensions", test_no_keys_for_extensions);
  ADD ("granted-key", test_granted_key);
  ADD ("odd-member-types", test_odd_member_types);
  ADD ("shutdown-sigterm", test_shutdown_sigterm);
  ADD ("shutdown-sigkill", test_shutdown_sigkill);
  ADD ("stop-fails-pending", test_stop_fails_pending);
  ADD ("reload", test_reload);
  ADD ("restart-one", test_restart_one);
  ADD ("traffic", test_traffic);
  ADD ("call-tool-refused", test_call_tool_refused);
  ADD ("sandboxed/extension", test_sandboxed_extension);
  ADD ("sandboxed/shutdown-kill", test_sandboxed_shutdown_kill);
  ADD ("event-lines", test_event_lines);
  ADD ("unknown-frames-logged", test_unknown_frames_logged);
  ADD ("unknown-frames-window", test_unknown_frames_window);
  ADD ("submit-frames", test_submit_frames);
  ADD ("submit-slash-frames", test_submit_slash_frames);

#undef ADD

  return g_test_run ();
}
