/* test-extension.c — one ZotExtension on its own: lifecycle, requests,
 * cancellation and the objects' own bookkeeping. */
#include "config.h"

#include "zot-error.h"
#include "zot-extension-private.h"
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

/* Starts the fake with @args; init_done() tells when its start ended. */
static ZotExtension *
start_fake_async (Fixture            *f,
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

  return extension;
}

static ZotExtension *
start_fake (Fixture            *f,
            const char         *name,
            const char * const *args,
            GError            **error)
{
  ZotExtension *extension = start_fake_async (f, name, args, error);

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

/* Frames by state: each test puts the fake's probes in one state and
 * checks every row of the host's tables against the log. */

/* Every probe carries the members any incoming handler reads, so that an
 * allowed frame is really taken: a command, a tool and a subscription
 * named "probe", a note, and replies to a request nobody made. */
static char *
probe_frame (const char *type)
{
  g_autoptr(JsonObject) frame = zot_test_json_object_from ("{\"id\":\"probe\",\"name\":\"probe\","
                                                           "\"panel_id\":\"probe\",\"event\":\"tool_call\","
                                                           "\"schema\":{\"type\":\"object\"},"
                                                           "\"events\":[\"turn_start\"],"
                                                           "\"level\":\"info\",\"message\":\"probe\"}");
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_object_set_string_member (frame, "type", type);
  json_node_set_object (root, frame);
  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, NULL);
}

#define UNKNOWN_TYPE "zot_probe_unknown"

/* The fake's arguments: @first_args (or none), then @option with a probe
 * of every incoming row but @skip, then one of a type no row has. */
static GStrv
probe_args (const char * const *first_args,
            const char         *option,
            const char         *skip)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *unknown = NULL;
  const ZotExtensionIncomingFrame *rows;
  guint n_rows;

  if (first_args != NULL)
    g_strv_builder_addv (builder, (const char **) first_args);
  rows = _zot_extension_incoming_frames (&n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      g_autofree char *probe = NULL;

      if (g_strcmp0 (rows[i].type, skip) == 0)
        continue;
      probe = probe_frame (rows[i].type);
      g_strv_builder_add (builder, option);
      g_strv_builder_add (builder, probe);
    }
  unknown = probe_frame (UNKNOWN_TYPE);
  g_strv_builder_add (builder, option);
  g_strv_builder_add (builder, unknown);

  return g_strv_builder_end (builder);
}

static gboolean
row_allows (guint             states,
            ZotExtensionState state)
{
  return (states & ZOT_EXTENSION_STATE_BIT (state)) != 0;
}

/* Each incoming row's probe is in the log as ignored exactly when the
 * table does not allow it in @state; a type without a row never is. */
static void
assert_incoming_by_table (ZotExtension      *extension,
                          ZotExtensionState  state)
{
  g_autofree char *log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_autofree char *unknown = g_strdup_printf ("frame \"%s\" in state %s ignored",
                                              UNKNOWN_TYPE, zot_extension_state_to_string (state));
  const ZotExtensionIncomingFrame *rows;
  guint n_rows;

  rows = _zot_extension_incoming_frames (&n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      g_autofree char *line = g_strdup_printf ("frame \"%s\" in state %s ignored", rows[i].type,
                                               zot_extension_state_to_string (state));
      const char *found = strstr (log, line) != NULL ? line : NULL;

      g_assert_cmpstr (found, ==, row_allows (rows[i].states, state) ? NULL : line);
    }

  g_assert_null (strstr (log, unknown));
}

typedef struct
{
  guint      notes;
  guint      cleared;
  GPtrArray *forwarded;
} Taken;

static void
taken_note_cb (ZotExtension *extension,
               const char   *level,
               const char   *message,
               Taken        *taken)
{
  taken->notes++;
}

static void
taken_cleared_cb (ZotExtension *extension,
                  Taken        *taken)
{
  taken->cleared++;
}

static gboolean
taken_unhandled_cb (ZotExtension *extension,
                    JsonObject   *frame,
                    Taken        *taken)
{
  g_ptr_array_add (taken->forwarded, g_strdup (json_object_get_string_member (frame, "type")));
  return TRUE;
}

static void
taken_watch (Taken        *taken,
             ZotExtension *extension)
{
  taken->forwarded = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (extension, "notify-received", G_CALLBACK (taken_note_cb), taken);
  g_signal_connect (extension, "notes-cleared", G_CALLBACK (taken_cleared_cb), taken);
  g_signal_connect (extension, "unhandled-frame", G_CALLBACK (taken_unhandled_cb), taken);
}

/* Checks what the allowed probes left: registrations, the "probe"
 * subscription, notes and clears, and which frames went to the manager,
 * in order, as "a,b,c". */
static void
taken_check (Taken        *taken,
             ZotExtension *extension,
             guint         commands,
             guint         tools,
             gboolean      subscribed,
             guint         notes,
             const char   *forwarded)
{
  g_autofree char *joined = NULL;

  g_ptr_array_add (taken->forwarded, NULL);
  joined = g_strjoinv (",", (char **) taken->forwarded->pdata);
  g_clear_pointer (&taken->forwarded, g_ptr_array_unref);
  g_signal_handlers_disconnect_by_data (extension, taken);

  g_assert_cmpuint (zot_extension_get_commands (extension)->len, ==, commands);
  g_assert_cmpuint (zot_extension_get_tools (extension)->len, ==, tools);
  g_assert_cmpint (zot_extension_is_subscribed (extension, "turn_start"), ==, subscribed);
  g_assert_cmpuint (taken->notes, ==, notes);
  g_assert_cmpuint (taken->cleared, ==, notes);
  g_assert_cmpstr (joined, ==, forwarded);
}

/* Before hello, a frame of any other type, with a row or without, is
 * logged and fails the load. */
static void
test_frames_starting (Fixture       *f,
                      gconstpointer  data)
{
  const ZotExtensionIncomingFrame *rows;
  g_autoptr(GPtrArray) types = g_ptr_array_new ();
  guint n_rows;

  rows = _zot_extension_incoming_frames (&n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      /* hello, the only row taken here, starts every other test. */
      if (!row_allows (rows[i].states, ZOT_EXTENSION_STATE_STARTING))
        g_ptr_array_add (types, (gpointer) rows[i].type);
    }
  g_ptr_array_add (types, UNKNOWN_TYPE);

  for (guint i = 0; i < types->len; i++)
    {
      const char *type = g_ptr_array_index (types, i);
      g_autofree char *probe = probe_frame (type);
      g_autofree char *line = g_strdup_printf ("frame \"%s\" in state starting ignored", type);
      g_autofree char *log = NULL;
      g_autoptr(GError) error = NULL;
      const char *args[] = { "--send-before-hello", probe, NULL };

      f->extension = start_fake_async (f, "early", args, &error);
      zot_test_wait_until (init_done, f->extension, 20000);
      g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE);
      g_assert_nonnull (strstr (error->message, "before \"hello\""));
      zot_test_stop_extension (f->extension);

      log = zot_test_read_file (zot_extension_get_log_path (f->extension));
      g_assert_nonnull (strstr (log, line));
      g_assert_finalize_object (g_steal_pointer (&f->extension));
    }
}

/* Starts the fake with @args, watching what it takes from the first
 * frame on, and waits until its start has ended. */
static void
start_watched (Fixture     *f,
               Taken       *taken,
               const char  *name,
               GStrv        args,
               GError     **error)
{
  f->extension = start_fake_async (f, name, (const char * const *) args, error);
  taken_watch (taken, f->extension);
  zot_test_wait_until (init_done, f->extension, 20000);
}

/* Only frames end registration, not the clock, however busy the machine. */
static void
hold_registration_open (void)
{
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_IDLE, 60000);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_REGISTRATION_MAX, 60000);
}

static gboolean
is_registering (gpointer data)
{
  return zot_extension_get_state (data) == ZOT_EXTENSION_STATE_REGISTERING;
}

static void
test_frames_registering (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  g_autofree char *log = NULL;
  Taken taken = { 0 };

  hold_registration_open ();

  /* The fake's own ready comes after the probes, as the allowed one. */
  args = probe_args (NULL, "--register-json", "ready");
  start_watched (f, &taken, "registering", args, &error);
  g_assert_no_error (error);
  g_assert_cmpint (zot_extension_get_state (f->extension), ==, ZOT_EXTENSION_STATE_READY);

  assert_incoming_by_table (f->extension, ZOT_EXTENSION_STATE_REGISTERING);
  log = zot_test_read_file (zot_extension_get_log_path (f->extension));
  g_assert_null (strstr (log, "treated as ready"));
  g_assert_nonnull (strstr (log, "command_response for unknown or expired request \"probe\""));

  /* What was allowed was taken: the probe registrations, withdrawn again
   * by the unregister probes that follow them in the table. */
  taken_check (&taken, f->extension, 0, 0, TRUE, 1, "panel_render,panel_close,open_panel,call_tool,call_tool_cancel,submit,submit_slash," UNKNOWN_TYPE);
}

static void
test_frames_ready (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) sync = command_frame ("x", "display synced");
  g_auto(GStrv) args = NULL;
  const char *first[] = { "--command", "x", NULL };
  Taken taken = { 0 };
  Reply reply = { 0 };

  args = probe_args (first, "--send-after-ready", NULL);
  start_watched (f, &taken, "ready", args, &error);
  g_assert_no_error (error);

  /* The fake reads nothing before its probes are out: once this reply is
   * in, so are they. */
  zot_extension_request_async (f->extension, sync, 10000, NULL, reply_cb, &reply);
  zot_test_wait_for (&reply.done, 20000);
  g_assert_no_error (reply.error);
  json_object_unref (reply.reply);

  assert_incoming_by_table (f->extension, ZOT_EXTENSION_STATE_READY);
  g_assert_cmpint (zot_extension_get_state (f->extension), ==, ZOT_EXTENSION_STATE_READY);
  /* "x"; the probes registered and withdrew theirs. */
  taken_check (&taken, f->extension, 1, 0, TRUE, 1, "panel_render,panel_close,open_panel,call_tool,call_tool_cancel,submit,submit_slash," UNKNOWN_TYPE);
}

static void
test_frames_stopping (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  g_autofree char *log = NULL;
  Taken taken = { 0 };

  args = probe_args (NULL, "--send-on-shutdown", NULL);
  start_watched (f, &taken, "stopping", args, &error);
  g_assert_no_error (error);

  zot_test_stop_extension (f->extension);
  g_assert_cmpint (zot_extension_get_state (f->extension), ==, ZOT_EXTENSION_STATE_EXITED);

  assert_incoming_by_table (f->extension, ZOT_EXTENSION_STATE_STOPPING);
  log = zot_test_read_file (zot_extension_get_log_path (f->extension));
  g_assert_nonnull (strstr (log, "shutdown acknowledged"));

  /* Last notes are shown; nothing registers any more. */
  taken_check (&taken, f->extension, 0, 0, FALSE, 1, UNKNOWN_TYPE);
}

/* A stop during registration fails the load; what the extension says
 * while it goes is only heard for its shutdown_ack. */
static void
test_frames_failed (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  g_autofree char *log = NULL;
  const char *first[] = { "--no-ready", NULL };
  Taken taken = { 0 };

  hold_registration_open ();

  args = probe_args (first, "--send-on-shutdown", NULL);
  f->extension = start_fake_async (f, "failed", (const char * const *) args, &error);
  zot_test_wait_until (is_registering, f->extension, 20000);

  taken_watch (&taken, f->extension);
  zot_test_stop_extension (f->extension);
  g_assert_true (init_done (f->extension));
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED);
  g_assert_cmpint (zot_extension_get_state (f->extension), ==, ZOT_EXTENSION_STATE_EXITED);

  assert_incoming_by_table (f->extension, ZOT_EXTENSION_STATE_FAILED);
  log = zot_test_read_file (zot_extension_get_log_path (f->extension));
  g_assert_nonnull (strstr (log, "shutdown acknowledged"));

  taken_check (&taken, f->extension, 0, 0, FALSE, 0, UNKNOWN_TYPE);
}

/* Sends a probe of every outgoing row in the extension's state: each is
 * sent, or refused and logged, as its row says. Returns the types sent. */
static GPtrArray *
send_by_table (ZotExtension *extension)
{
  GPtrArray *sent = g_ptr_array_new ();
  ZotExtensionState state = zot_extension_get_state (extension);
  const ZotExtensionOutgoingFrame *rows;
  g_autofree char *log = NULL;
  guint n_rows;

  rows = _zot_extension_outgoing_frames (&n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      g_autoptr(JsonObject) frame = zot_test_json_object_from ("{\"id\":\"probe\",\"event\":\"probe\"}");
      g_autoptr(GError) error = NULL;

      json_object_set_string_member (frame, "type", rows[i].type);
      if (row_allows (rows[i].states, state))
        {
          g_assert_true (zot_extension_notify (extension, frame, &error));
          g_assert_no_error (error);
          g_ptr_array_add (sent, (gpointer) rows[i].type);
        }
      else
        {
          g_assert_false (zot_extension_notify (extension, frame, &error));
          g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY);
        }
    }

  log = zot_test_read_file (zot_extension_get_log_path (extension));
  for (guint i = 0; i < n_rows; i++)
    {
      g_autofree char *line = g_strdup_printf ("frame \"%s\" in state %s not sent", rows[i].type,
                                               zot_extension_state_to_string (state));
      const char *found = strstr (log, line) != NULL ? line : NULL;

      g_assert_cmpstr (found, ==, row_allows (rows[i].states, state) ? NULL : line);
    }

  return sent;
}

static guint
count_frames (GPtrArray  *frames,
              const char *type)
{
  guint count = 0;

  for (guint i = 0; i < frames->len; i++)
    if (g_strcmp0 (json_object_get_string_member (g_ptr_array_index (frames, i), "type"), type) == 0)
      count++;
  return count;
}

static void
test_send_by_state (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *record = g_build_filename (f->env.root, "received.jsonl", NULL);
  g_autoptr(JsonObject) sync = command_frame ("x", "display synced");
  g_autoptr(GPtrArray) sent = NULL;
  g_autoptr(GPtrArray) after_stop = NULL;
  g_autoptr(GPtrArray) received = NULL;
  g_autoptr(GError) error = NULL;
  const char *args[] = { "--command", "x", "--record", record, NULL };
  const ZotExtensionOutgoingFrame *rows;
  Reply reply = { 0 };
  guint n_rows;

  f->extension = start_fake (f, "sender", args, &error);
  g_assert_no_error (error);

  sent = send_by_table (f->extension);
  zot_extension_request_async (f->extension, sync, 10000, NULL, reply_cb, &reply);
  zot_test_wait_for (&reply.done, 20000);
  g_assert_no_error (reply.error);
  json_object_unref (reply.reply);

  /* What was sent arrived, and what was refused did not: hello_ack came
   * only with the handshake, and command_invoked once more, as the sync. */
  received = zot_test_read_frames (record);
  rows = _zot_extension_outgoing_frames (&n_rows);
  for (guint i = 0; i < n_rows; i++)
    {
      guint expected = g_ptr_array_find_with_equal_func (sent, rows[i].type, g_str_equal, NULL) ? 1 : 0;

      if (g_str_equal (rows[i].type, "hello_ack") || g_str_equal (rows[i].type, "command_invoked"))
        expected++;
      g_test_message ("frames \"%s\" received", rows[i].type);
      g_assert_cmpuint (count_frames (received, rows[i].type), ==, expected);
    }

  /* Once it has exited, nothing goes out. */
  zot_test_stop_extension (f->extension);
  after_stop = send_by_table (f->extension);
  g_assert_cmpuint (after_stop->len, ==, 0);
}

/* A frame type the host sends must have a row that says when. */
static void
test_send_unknown_type (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_manifest (f->env.root, "plain", "{\"name\":\"plain\",\"exec\":\"sh\"}");
  g_autoptr(ZotManifest) manifest = zot_manifest_new_for_directory (dir, NULL);
  g_autoptr(JsonObject) ack = host_ack ();
  g_autoptr(JsonObject) frame = zot_test_json_object_from ("{\"type\":\"frobnicate\"}");
  g_autoptr(GError) error = NULL;
  ZotExtension *extension = zot_extension_new (manifest, ZOT_EXTENSION_SCOPE_USER, ack);

  g_test_expect_message ("zot-protocol", G_LOG_LEVEL_CRITICAL, "*\"frobnicate\"*");
  g_assert_false (zot_extension_notify (extension, frame, &error));
  g_test_assert_expected_messages ();
  g_assert_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY);
  g_assert_finalize_object (extension);
}

/* The request types a trace times are the outgoing rows that an incoming
 * row answers, and only those. */
static void
test_request_types (void)
{
  const char * const *types = zot_extension_get_request_types ();
  const ZotExtensionOutgoingFrame *out;
  const ZotExtensionIncomingFrame *in;
  guint n_out;
  guint n_in;
  guint n_answered = 0;

  out = _zot_extension_outgoing_frames (&n_out);
  in = _zot_extension_incoming_frames (&n_in);
  for (guint i = 0; i < n_out; i++)
    {
      gboolean answered = out[i].answer != NULL;
      gboolean known = FALSE;

      g_test_message ("outgoing \"%s\"", out[i].type);
      g_assert_cmpint (g_strv_contains (types, out[i].type), ==, answered);
      if (!answered)
        continue;
      n_answered++;
      g_assert_true (out[i].flags & ZOT_FRAME_REQUEST);
      for (guint j = 0; j < n_in; j++)
        known = known || g_str_equal (in[j].type, out[i].answer);
      g_assert_true (known);
    }
  g_assert_cmpuint (g_strv_length ((GStrv) types), ==, n_answered);
  g_assert_true (g_strv_contains (types, "command_invoked"));
  g_assert_true (types == zot_extension_get_request_types ());
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
  ADD ("frames/starting", test_frames_starting);
  ADD ("frames/registering", test_frames_registering);
  ADD ("frames/ready", test_frames_ready);
  ADD ("frames/stopping", test_frames_stopping);
  ADD ("frames/failed", test_frames_failed);
  ADD ("frames/send-by-state", test_send_by_state);
  ADD ("frames/send-unknown-type", test_send_unknown_type);

#undef ADD

  g_test_add_func ("/zot/extension/frames/request-types", test_request_types);

  return g_test_run ();
}
