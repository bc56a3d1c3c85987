/* test-extension.c — one ZotExtension on its own: lifecycle, requests,
 * cancellation and the objects' own bookkeeping. */
#include "config.h"

#include "zot-error.h"
#include "zot-extension.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv    env;
  ZotExtension *extension;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
}

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
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->extension != NULL)
    {
      gboolean done = FALSE;

      zot_extension_stop_async (f->extension, NULL, stop_cb, &done);
      zot_test_wait_for (&done, 20000);
      g_assert_finalize_object (g_steal_pointer (&f->extension));
    }
  zot_test_env_teardown (&f->env);
}

static JsonObject *
host_ack (void)
{
  JsonObject *ack = json_object_new ();

  json_object_set_string_member (ack, "type", "hello_ack");
  json_object_set_int_member (ack, "protocol_version", 1);
  return ack;
}

static void
init_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GError **error = user_data;

  if (!g_async_initable_init_finish (G_ASYNC_INITABLE (object), result, error) && *error == NULL)
    g_assert_not_reached ();
  g_object_set_data (object, "init-done", GINT_TO_POINTER (TRUE));
}

static gboolean
init_done (gpointer data)
{
  return g_object_get_data (data, "init-done") != NULL;
}

static ZotExtension *
start_fake (Fixture            *f,
            const char         *name,
            const char * const *args,
            GError            **error)
{
  g_autofree char *dir = zot_test_make_fake (f->env.root, name, args);
  g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (dir, NULL);
  g_autoptr(JsonObject) ack = host_ack ();
  ZotExtension *extension;

  g_assert_nonnull (manifest);
  extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_EXPLICIT, ack);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_STARTING);
  g_async_initable_init_async (G_ASYNC_INITABLE (extension), G_PRIORITY_DEFAULT, NULL, init_cb, error);
  zot_test_wait_until (init_done, extension, 20000);

  return extension;
}

typedef struct
{
  gboolean    done;
  JsonObject *reply;
  GError     *error;
} Reply;

static void
reply_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Reply *reply = user_data;

  reply->reply = zot_extension_request_finish (ZOT_EXTENSION (object), result, &reply->error);
  reply->done = TRUE;
}

static JsonObject *
command_frame (const char *name,
               const char *args)
{
  JsonObject *frame = json_object_new ();

  json_object_set_string_member (frame, "type", "command_invoked");
  json_object_set_string_member (frame, "name", name);
  json_object_set_string_member (frame, "args", args);
  return frame;
}

static void
test_new_destroy (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_manifest (f->env.root, "plain", "{\"name\":\"plain\",\"exec\":\"sh\"}");
  g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (dir, NULL);
  g_autoptr(JsonObject) ack = host_ack ();
  g_autoptr(GError) error = g_error_new_literal (ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID, "broken");
  ZotExtension *extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_USER, ack);
  ZotExtension *failed;

  g_assert_cmpstr (zot_extension_get_name (extension), ==, "plain");
  g_assert_cmpstr (zot_extension_get_directory (extension), ==, dir);
  g_assert_cmpint (zot_extension_get_scope (extension), ==, ZOT_EXTENSION_SCOPE_USER);
  g_assert_true (g_str_has_suffix (zot_extension_get_log_path (extension), "/logs/ext-plain.log"));
  g_assert_false (zot_extension_is_running (extension));
  g_assert_finalize_object (extension);

  failed = zot_extension_new_failed (dir, ZOT_EXTENSION_SCOPE_PROJECT, error);
  g_assert_cmpint (zot_extension_get_state (failed), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_cmpstr (zot_extension_get_last_error (failed), ==, "broken");
  g_assert_cmpstr (zot_extension_get_name (failed), ==, "plain");
  g_assert_finalize_object (failed);

  g_assert_cmpstr (zot_extension_state_to_string (ZOT_EXTENSION_STATE_REGISTERING), ==, "registering");
}

static void
test_capabilities_exact (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  const char *args[] = { "--capabilities", "tool_cancel,Call_Tool", NULL };

  f->extension = start_fake (f, "caps", args, &error);
  g_assert_no_error (error);
  g_assert_true (zot_extension_has_capability (f->extension, "tool_cancel"));
  /* Exact strings only. */
  g_assert_false (zot_extension_has_capability (f->extension, "call_tool"));
  g_assert_false (zot_extension_has_capability (f->extension, "tool"));
}

static void
test_request_reply (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) frame = command_frame ("x", "display pong");
  const char *args[] = { "--command", "x", NULL };
  Reply reply = { 0 };

  f->extension = start_fake (f, "replier", args, &error);
  g_assert_no_error (error);
  g_assert_cmpint (zot_extension_get_state (f->extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_cmpuint (zot_extension_get_commands (f->extension)->len, ==, 1);

  zot_extension_request_async (f->extension, frame, 5000, NULL, reply_cb, &reply);
  zot_test_wait_for (&reply.done, 10000);
  g_assert_no_error (reply.error);
  g_assert_cmpstr (json_object_get_string_member (reply.reply, "type"), ==, "command_response");
  g_assert_cmpstr (json_object_get_string_member (reply.reply, "display"), ==, "pong");
  g_assert_cmpstr (json_object_get_string_member (reply.reply, "id"), ==,
                   json_object_get_string_member (frame, "id"));
  json_object_unref (reply.reply);
}

static void
test_request_cancel (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) slow = command_frame ("x", "late 300 too late");
  g_autoptr(JsonObject) next = command_frame ("x", "display next");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *log = NULL;
  const char *args[] = { "--command", "x", NULL };
  Reply first = { 0 };
  Reply second = { 0 };

  f->extension = start_fake (f, "cancelled", args, &error);
  g_assert_no_error (error);

  zot_extension_request_async (f->extension, slow, 0, cancellable, reply_cb, &first);
  g_cancellable_cancel (cancellable);
  zot_test_wait_for (&first.done, 5000);
  g_assert_error (first.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&first.error);

  /* The late reply to the cancelled request is dropped; the next request
   * gets its own. */
  zot_extension_request_async (f->extension, next, 5000, NULL, reply_cb, &second);
  zot_test_wait_for (&second.done, 10000);
  g_assert_no_error (second.error);
  g_assert_cmpstr (json_object_get_string_member (second.reply, "display"), ==, "next");
  json_object_unref (second.reply);
}

typedef struct
{
  GString *order;
  Reply    reply;
  char     name;
} Ordered;

static void
ordered_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Ordered *ordered = user_data;

  reply_cb (object, result, &ordered->reply);
  g_string_append_c (ordered->order, ordered->name);
}

/* Requests with different deadlines share one source: each fails at its
 * own time, in deadline order whatever the order they were sent in, and
 * one answered before its deadline neither fails nor holds up the others. */
static void
test_request_deadlines (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) order = g_string_new (NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) frame_a = command_frame ("x", "hang");
  g_autoptr(JsonObject) frame_b = command_frame ("x", "hang");
  g_autoptr(JsonObject) frame_c = command_frame ("x", "hang");
  g_autoptr(JsonObject) frame_d = command_frame ("x", "display quick");
  const char *args[] = { "--command", "x", NULL };
  Ordered a = { order, { 0 }, 'a' };
  Ordered b = { order, { 0 }, 'b' };
  Ordered c = { order, { 0 }, 'c' };
  Ordered d = { order, { 0 }, 'd' };

  f->extension = start_fake (f, "deadlines", args, &error);
  g_assert_no_error (error);

  zot_extension_request_async (f->extension, frame_a, 600000, cancellable, ordered_cb, &a);
  zot_extension_request_async (f->extension, frame_b, 1500, NULL, ordered_cb, &b);
  zot_extension_request_async (f->extension, frame_c, 1000, NULL, ordered_cb, &c);
  zot_extension_request_async (f->extension, frame_d, 800, NULL, ordered_cb, &d);

  zot_test_wait_for (&b.reply.done, 10000);
  g_assert_cmpstr (order->str, ==, "dcb");
  g_assert_no_error (d.reply.error);
  g_assert_cmpstr (json_object_get_string_member (d.reply.reply, "display"), ==, "quick");
  g_assert_error (c.reply.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT);
  g_assert_error (b.reply.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT);
  g_assert_false (a.reply.done);

  g_cancellable_cancel (cancellable);
  zot_test_wait_for (&a.reply.done, 5000);
  g_assert_error (a.reply.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  json_object_unref (d.reply.reply);
  g_clear_error (&a.reply.error);
  g_clear_error (&b.reply.error);
  g_clear_error (&c.reply.error);
}

static void
test_request_not_ready (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_manifest (f->env.root, "idle", "{\"name\":\"idle\",\"exec\":\"sh\"}");
  g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (dir, NULL);
  g_autoptr(JsonObject) ack = host_ack ();
  g_autoptr(JsonObject) frame = command_frame ("x", "");
  g_autoptr(JsonObject) note = json_object_new ();
  g_autoptr(GError) error = NULL;
  ZotExtension *extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_USER, ack);
  Reply reply = { 0 };
  gboolean stopped = FALSE;

  zot_extension_request_async (extension, frame, 1000, NULL, reply_cb, &reply);
  zot_test_wait_for (&reply.done, 5000);
  g_assert_error (reply.error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY);
  g_clear_error (&reply.error);

  json_object_set_string_member (note, "type", "event");
  g_assert_false (zot_extension_notify (extension, note, &error));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY);

  /* Stopping what never ran completes at once. */
  zot_extension_stop_async (extension, NULL, stop_cb, &stopped);
  zot_test_wait_for (&stopped, 5000);
  g_assert_finalize_object (extension);
}

static void
test_exec_not_found (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_manifest (f->env.root, "ghost",
                                                 "{\"name\":\"ghost\",\"exec\":\"zot-no-such-program-anywhere\"}");
  g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (dir, NULL);
  g_autoptr(JsonObject) ack = host_ack ();
  g_autoptr(GError) error = NULL;
  ZotExtension *extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_USER, ack);

  g_async_initable_init_async (G_ASYNC_INITABLE (extension), G_PRIORITY_DEFAULT, NULL, init_cb, &error);
  zot_test_wait_until (init_done, extension, 5000);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC);
  g_assert_nonnull (strstr (error->message, "$PATH"));
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_FAILED);
  g_assert_finalize_object (extension);
}

static void
test_first_frame_not_hello (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_manifest (f->env.root, "rude",
                                                 "{\"name\":\"rude\",\"exec\":\"sh\",\"args\":[\"-c\","
                                                 "\"echo '{\\\"type\\\":\\\"ready\\\"}'; exec cat >/dev/null\"]}");
  g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (dir, NULL);
  g_autoptr(JsonObject) ack = host_ack ();
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  gboolean stopped = FALSE;
  ZotExtension *extension;

  g_assert_nonnull (manifest);
  extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_USER, ack);
  g_async_initable_init_async (G_ASYNC_INITABLE (extension), G_PRIORITY_DEFAULT, NULL, init_cb, &error);
  zot_test_wait_until (init_done, extension, 10000);
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE);
  g_assert_nonnull (strstr (error->message, "before \"hello\""));

  zot_extension_stop_async (extension, NULL, stop_cb, &stopped);
  zot_test_wait_for (&stopped, 10000);

  /* The failure ends the process at once; the log does not claim a wait
   * that never happened. */
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "stopping the process: sending SIGTERM"));
  g_assert_null (strstr (log, "did not exit within"));
  g_assert_finalize_object (extension);
}

static void
test_log_header_per_start (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;
  g_autofree char *path = NULL;
  gboolean done = FALSE;
  const char *args[] = { NULL };
  guint headers = 0;

  for (guint round = 0; round < 2; round++)
    {
      ZotExtension *extension = start_fake (f, "twice", args, &error);

      g_assert_no_error (error);
      g_clear_pointer (&path, g_free);
      path = g_strdup (zot_extension_get_log_path (extension));
      done = FALSE;
      zot_extension_stop_async (extension, NULL, stop_cb, &done);
      zot_test_wait_for (&done, 10000);
      g_assert_finalize_object (extension);
    }

  /* The log is appended to: one header per start. */
  log = zot_test_read_file (path);
  for (const char *p = log; (p = strstr (p, "=== twice: started by zot")) != NULL; p++)
    headers++;
  g_assert_cmpuint (headers, ==, 2);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/extension/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("new-destroy", test_new_destroy);
  ADD ("capabilities-exact", test_capabilities_exact);
  ADD ("request-reply", test_request_reply);
  ADD ("request-cancel", test_request_cancel);
  ADD ("request-deadlines", test_request_deadlines);
  ADD ("request-not-ready", test_request_not_ready);
  ADD ("exec-not-found", test_exec_not_found);
  ADD ("first-frame-not-hello", test_first_frame_not_hello);
  ADD ("log-header-per-start", test_log_header_per_start);

#undef ADD

  return g_test_run ();
}
