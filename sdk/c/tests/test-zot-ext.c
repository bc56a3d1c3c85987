/* test-zot-ext.c: libzot-ext driven over pipes by a scripted host
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <signal.h>
#include <string.h>

#include <zot-ext.h>

#include "test-host.h"

typedef struct
{
  ZotExtExtension  *ext;
  TestHost         *host;
  GInputStream     *ext_in;
  GOutputStream    *ext_out;
  gboolean          run_done;
  gboolean          run_ok;

  ZotExtInvocation *held;
  GPtrArray        *held_all;
  gboolean          started;
  gboolean          cancelled_at_start;
  guint             cancel_seen;
  GCancellable     *call_cancellable;
  GError           *call_error;
  guint             events_seen;
  char             *last_event_stop;
  GPtrArray        *panel_keys;
  GPtrArray        *received;
  GObject          *kept;
  gboolean          expect_failure;
} Fixture;

/* Handlers */

static gboolean
on_echo (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         gpointer          data)
{
  zot_ext_invocation_return_text (inv, zot_ext_invocation_get_string_arg (inv, "text"));
  return TRUE;
}

static gboolean
on_add (ZotExtExtension  *ext,
        ZotExtInvocation *inv,
        gpointer          data)
{
  JsonObject *args = json_node_get_object (zot_ext_invocation_get_args (inv));
  double sum = json_object_get_double_member (args, "a") + json_object_get_double_member (args, "b");
  g_autofree char *text = g_strdup_printf ("%g", sum);
  g_autofree char *structured = g_strdup_printf ("{\"sum\":%g}", sum);

  zot_ext_invocation_return_structured (inv, text, structured);
  return TRUE;
}

static gboolean
on_fail (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         gpointer          data)
{
  zot_ext_invocation_return_error (inv, "always fails");
  return TRUE;
}

static gboolean
on_panic (ZotExtExtension  *ext,
          ZotExtInvocation *inv,
          gpointer          data)
{
  return FALSE;
}

static gboolean
on_twice (ZotExtExtension  *ext,
          ZotExtInvocation *inv,
          gpointer          data)
{
  zot_ext_invocation_return_text (inv, "one");
  zot_ext_invocation_return_text (inv, "two");
  return TRUE;
}

static gboolean
on_big (ZotExtExtension  *ext,
        ZotExtInvocation *inv,
        gpointer          data)
{
  gsize size = ZOT_EXT_FRAME_MAX_BYTES + 16;
  g_autofree char *text = g_malloc (size + 1);

  memset (text, 'x', size);
  text[size] = '\0';
  zot_ext_invocation_return_text (inv, text);
  return TRUE;
}

static void
on_wait_cancelled (GCancellable *cancellable,
                   Fixture      *f)
{
  f->cancel_seen++;
  /* Must be dropped: the call was cancelled. */
  zot_ext_invocation_return_error (f->held, "cancelled");
}

static gboolean
on_wait (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         Fixture          *f)
{
  GCancellable *cancellable = zot_ext_invocation_get_cancellable (inv);

  f->started = TRUE;
  g_set_object (&f->held, inv);
  f->cancelled_at_start = g_cancellable_is_cancelled (cancellable);
  if (f->cancelled_at_start)
    {
      f->cancel_seen++;
      zot_ext_invocation_return_error (inv, "cancelled");
      return TRUE;
    }
  g_signal_connect (cancellable, "cancelled", G_CALLBACK (on_wait_cancelled), f);
  return TRUE;
}

static void
nested_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  ZotExtInvocation *inv = ZOT_EXT_INVOCATION (source);
  Fixture *f = user_data;
  g_autoptr(ZotExtToolResult) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_ext_invocation_call_tool_finish (inv, result, &error);
  if (reply == NULL)
    {
      g_clear_error (&f->call_error);
      f->call_error = g_error_copy (error);
      zot_ext_invocation_return_error_printf (inv, "nested failed: %s", error->message);
    }
  else
    {
      g_autofree char *text = zot_ext_tool_result_get_text (reply);

      if (zot_ext_tool_result_get_is_error (reply))
        zot_ext_invocation_return_error_printf (inv, "nested failed: %s", text);
      else
        zot_ext_invocation_return_text (inv, text);
    }
}

static gboolean
on_nested (ZotExtExtension  *ext,
           ZotExtInvocation *inv,
           Fixture          *f)
{
  g_autofree char *args = NULL;
  const char *path = zot_ext_invocation_get_string_arg (inv, "path");

  args = g_strdup_printf ("{\"path\":\"%s\"}", path != NULL ? path : "scenario.txt");
  if (f->held_all != NULL)
    g_ptr_array_add (f->held_all, g_object_ref (inv));
  zot_ext_invocation_call_tool_async (inv, "read", args, "k1", f->call_cancellable,
                                      nested_done, f);
  return TRUE;
}

/* Fixture */

static void
run_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GError) error = NULL;

  f->run_ok = zot_ext_extension_run_finish (ZOT_EXT_EXTENSION (source), result, &error);
  if (f->expect_failure)
    g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_CLOSED);
  else
    g_assert_no_error (error);
  f->run_done = TRUE;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GInputStream) host_in = NULL;
  g_autoptr(GOutputStream) host_out = NULL;
  g_autoptr(GError) error = NULL;

  f->ext = zot_ext_extension_new ("test", "1.2.3");
  test_host_open_pipes (&f->ext_in, &host_out, &host_in, &f->ext_out);
  f->host = test_host_new (host_in, host_out);
  f->panel_keys = g_ptr_array_new_with_free_func (g_free);
  f->received = g_ptr_array_new_with_free_func (g_free);

  zot_ext_extension_add_tool (f->ext, "echo", "Echo", "{\"type\":\"object\"}", 0, &error);
  g_assert_no_error (error);
  zot_ext_extension_add_tool_full (f->ext, "add", "Add", "{\"type\":\"object\"}",
                                   "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}}}",
                                   "arith", "Arithmetic", "Numbers only",
                                   ZOT_EXT_EXPOSURE_CODEMODE, 0, &error);
  g_assert_no_error (error);
  zot_ext_extension_add_tool (f->ext, "fail", NULL, "{}", 0, &error);
  zot_ext_extension_add_tool (f->ext, "panic", NULL, "{}", 0, &error);
  zot_ext_extension_add_tool (f->ext, "twice", NULL, "{}", 0, &error);
  zot_ext_extension_add_tool (f->ext, "big", NULL, "{}", 0, &error);
  zot_ext_extension_add_tool (f->ext, "wait", NULL, "{}", ZOT_EXT_TOOL_INTERACTIVE, &error);
  zot_ext_extension_add_tool (f->ext, "nested", NULL, "{}", 0, &error);
  g_assert_no_error (error);

  g_signal_connect (f->ext, "tool-call::echo", G_CALLBACK (on_echo), f);
  g_signal_connect (f->ext, "tool-call::add", G_CALLBACK (on_add), f);
  g_signal_connect (f->ext, "tool-call::fail", G_CALLBACK (on_fail), f);
  g_signal_connect (f->ext, "tool-call::panic", G_CALLBACK (on_panic), f);
  g_signal_connect (f->ext, "tool-call::twice", G_CALLBACK (on_twice), f);
  g_signal_connect (f->ext, "tool-call::big", G_CALLBACK (on_big), f);
  g_signal_connect (f->ext, "tool-call::wait", G_CALLBACK (on_wait), f);
  g_signal_connect (f->ext, "tool-call::nested", G_CALLBACK (on_nested), f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (!f->run_done)
    {
      test_host_close (f->host);
      test_host_wait_for (&f->run_done);
    }
  g_clear_object (&f->held);
  g_clear_object (&f->kept);
  g_clear_pointer (&f->held_all, g_ptr_array_unref);
  g_clear_object (&f->call_cancellable);
  g_clear_error (&f->call_error);
  g_clear_pointer (&f->last_event_stop, g_free);
  g_clear_pointer (&f->panel_keys, g_ptr_array_unref);
  g_clear_pointer (&f->received, g_ptr_array_unref);

  /* Let the cancelled read report back before the last reference goes. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (f->ext);
  g_clear_object (&f->ext_in);
  g_clear_object (&f->ext_out);
  g_clear_pointer (&f->host, test_host_free);
}

/* Runs the extension and plays the handshake; returns the frames
 * between hello_ack and ready. */
static GPtrArray *
start (Fixture    *f,
       const char *host_caps)
{
  g_autoptr(JsonObject) hello = NULL;
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  zot_ext_extension_run_async (f->ext, f->ext_in, f->ext_out, NULL, run_cb, f);
  hello = test_host_expect (f->host, "hello");
  g_assert_cmpstr (test_str (hello, "name"), ==, "test");
  g_assert_cmpstr (test_str (hello, "version"), ==, "1.2.3");

  test_host_send_printf (f->host,
                         "{\"type\":\"hello_ack\",\"protocol_version\":1,\"zot_version\":\"9.9\","
                         "\"cwd\":\"/work\",\"capabilities\":[%s]}", host_caps);
  for (;;)
    {
      JsonObject *frame = test_host_next (f->host);

      g_assert_nonnull (frame);
      if (g_strcmp0 (test_str (frame, "type"), "ready") == 0)
        {
          json_object_unref (frame);
          break;
        }
      g_ptr_array_add (frames, frame);
    }
  return frames;
}

static JsonObject *
call (Fixture    *f,
      const char *id,
      const char *name,
      const char *args)
{
  JsonObject *result;

  test_host_send_printf (f->host, "{\"type\":\"tool_call\",\"id\":\"%s\",\"name\":\"%s\",\"args\":%s}",
                         id, name, args);
  result = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (result, "id"), ==, id);
  return result;
}

/* The next frame is the probe's answer: nothing else was written before. */
static void
probe (Fixture *f)
{
  g_autoptr(JsonObject) result = call (f, "probe", "echo", "{\"text\":\"probe\"}");
  g_autofree char *text = test_first_text (result);

  g_assert_cmpstr (text, ==, "probe");
}

/* Tests */

static void
test_new_destroy (void)
{
  ZotExtExtension *ext = zot_ext_extension_new ("a", "1");

  g_assert_cmpstr (zot_ext_extension_get_name (ext), ==, "a");
  g_assert_cmpstr (zot_ext_extension_get_version (ext), ==, "1");
  g_assert_finalize_object (ext);
}

static void
test_handshake (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) frames = NULL;
  G_GNUC_UNUSED g_autoptr(JsonObject) hello = NULL;
  g_auto(GStrv) caps = NULL;
  JsonObject *add = NULL;
  gboolean saw_subscribe = FALSE;

  zot_ext_extension_add_command (f->ext, "Todo", "A list", &error);
  g_assert_no_error (error);
  zot_ext_extension_subscribe (f->ext, "turn_end");
  zot_ext_extension_intercept (f->ext, "tool_call");

  caps = zot_ext_extension_dup_capabilities (f->ext);
  for (const char * const *want = (const char * const[]) { "commands", "tools", "tool_cancel",
                                                          "panels", "call_tool", "events", NULL };
       *want != NULL; want++)
    g_assert_true (g_strv_contains ((const char * const *) caps, *want));

  frames = start (f, "\"call_tool\"");
  g_assert_cmpstr (zot_ext_extension_get_host_info (f->ext, "zot_version"), ==, "9.9");
  g_assert_true (zot_ext_extension_has_host_capability (f->ext, "call_tool"));
  g_assert_false (zot_ext_extension_has_host_capability (f->ext, "call_tool_durable"));

  /* 8 tools, 1 command, 1 subscribe */
  g_assert_cmpuint (frames->len, ==, 10);
  for (guint i = 0; i < frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);
      const char *type = test_str (frame, "type");

      if (g_strcmp0 (type, "register_tool") == 0)
        {
          g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (frame, "schema")));
          if (g_strcmp0 (test_str (frame, "name"), "add") == 0)
            add = frame;
          if (g_strcmp0 (test_str (frame, "name"), "wait") == 0)
            g_assert_true (json_object_get_boolean_member (frame, "interactive"));
        }
      else if (g_strcmp0 (type, "subscribe") == 0)
        {
          saw_subscribe = TRUE;
          g_assert_true (test_strv_has (frame, "events", "turn_end"));
          g_assert_true (test_strv_has (frame, "intercept", "tool_call"));
        }
      else
        g_assert_cmpstr (type, ==, "register_command");
    }
  g_assert_true (saw_subscribe);
  g_assert_nonnull (add);
  g_assert_cmpstr (test_str (add, "namespace"), ==, "arith");
  g_assert_cmpstr (test_str (add, "namespace_description"), ==, "Arithmetic");
  g_assert_cmpstr (test_str (add, "namespace_instructions"), ==, "Numbers only");
  g_assert_cmpstr (test_str (add, "exposure"), ==, "codemode");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (add, "output_schema")));

  /* A registration after ready goes out at once. */
  zot_ext_extension_add_tool (f->ext, "late", NULL, "{}", 0, &error);
  g_assert_no_error (error);
  {
    g_autoptr(JsonObject) late = test_host_expect (f->host, "register_tool");

    g_assert_cmpstr (test_str (late, "name"), ==, "late");
  }
}

static void
test_hello_from_registrations (void)
{
  g_autoptr(ZotExtExtension) ext = zot_ext_extension_new ("plain", "1");
  g_auto(GStrv) caps = zot_ext_extension_dup_capabilities (ext);

  g_assert_cmpuint (g_strv_length (caps), ==, 0);
  zot_ext_extension_add_command (ext, "x", NULL, NULL);
  g_strfreev (caps);
  caps = zot_ext_extension_dup_capabilities (ext);
  g_assert_true (g_strv_contains ((const char * const *) caps, "commands"));
  g_assert_false (g_strv_contains ((const char * const *) caps, "tool_cancel"));
}

static void
test_tool_kinds (Fixture       *f,
                 gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  g_autoptr(JsonObject) echo = call (f, "1", "echo", "{\"text\":\"hi there\"}");
  g_autoptr(JsonObject) add = call (f, "2", "add", "{\"a\":1,\"b\":2}");
  g_autoptr(JsonObject) fail = call (f, "3", "fail", "{}");
  g_autoptr(JsonObject) panic = call (f, "4", "panic", "{}");
  g_autoptr(JsonObject) unknown = call (f, "5", "nope", "{}");
  g_autofree char *echo_text = test_first_text (echo);
  g_autofree char *add_text = test_first_text (add);
  g_autofree char *fail_text = test_first_text (fail);
  g_autofree char *panic_text = test_first_text (panic);
  g_autofree char *unknown_text = test_first_text (unknown);
  JsonObject *structured;

  g_assert_cmpstr (echo_text, ==, "hi there");
  g_assert_false (json_object_get_boolean_member (echo, "is_error"));

  g_assert_cmpstr (add_text, ==, "3");
  structured = json_object_get_object_member (add, "structured_content");
  g_assert_nonnull (structured);
  g_assert_cmpint (json_object_get_int_member (structured, "sum"), ==, 3);

  g_assert_cmpstr (fail_text, ==, "always fails");
  g_assert_true (json_object_get_boolean_member (fail, "is_error"));

  g_assert_true (g_str_has_prefix (panic_text, "panic:"));
  g_assert_true (json_object_get_boolean_member (panic, "is_error"));

  g_assert_true (json_object_get_boolean_member (unknown, "is_error"));
  g_assert_nonnull (strstr (unknown_text, "nope"));
}

static void
test_second_reply_dropped (Fixture       *f,
                           gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  g_autoptr(JsonObject) result = call (f, "1", "twice", "{}");
  g_autofree char *text = test_first_text (result);

  g_assert_cmpstr (text, ==, "one");
  probe (f);
}

static void
test_cancel_before_start (Fixture       *f,
                          gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");

  /* One write, so both lines arrive in the same read: the cancel is
   * parsed before the handler runs. */
  test_host_send (f->host,
                  "{\"type\":\"tool_call\",\"id\":\"w1\",\"name\":\"wait\",\"args\":{}}\n"
                  "{\"type\":\"tool_cancel\",\"id\":\"w1\"}");
  test_host_wait_for (&f->started);
  g_assert_true (f->cancelled_at_start);
  g_assert_true (zot_ext_invocation_is_finished (f->held));
  probe (f);
}

static void
test_cancel_after_start (Fixture       *f,
                         gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w1\",\"name\":\"wait\",\"args\":{}}");
  test_host_wait_for (&f->started);
  g_assert_false (f->cancelled_at_start);
  g_assert_false (g_cancellable_is_cancelled (zot_ext_invocation_get_cancellable (f->held)));

  test_host_send (f->host, "{\"type\":\"tool_cancel\",\"id\":\"w1\"}");
  /* Unknown and repeated cancels are ignored. */
  test_host_send (f->host, "{\"type\":\"tool_cancel\",\"id\":\"w1\"}");
  test_host_send (f->host, "{\"type\":\"tool_cancel\",\"id\":\"nobody\"}");
  probe (f);
  g_assert_cmpuint (f->cancel_seen, ==, 1);
  g_assert_true (g_cancellable_is_cancelled (zot_ext_invocation_get_cancellable (f->held)));

  /* A reply long after the cancel is dropped too. */
  zot_ext_invocation_return_text (f->held, "late");
  probe (f);
}

static void
test_shutdown (Fixture       *f,
               gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  g_autoptr(JsonObject) ack = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w1\",\"name\":\"wait\",\"args\":{}}");
  test_host_wait_for (&f->started);
  test_host_send (f->host, "{\"type\":\"shutdown\"}");
  ack = test_host_expect (f->host, "shutdown_ack");
  test_host_wait_for (&f->run_done);
  g_assert_true (f->run_ok);
  g_assert_cmpuint (f->cancel_seen, ==, 1);
}

static void
test_eof (Fixture       *f,
          gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w1\",\"name\":\"wait\",\"args\":{}}");
  test_host_wait_for (&f->started);
  test_host_close (f->host);
  test_host_wait_for (&f->run_done);
  g_assert_true (f->run_ok);
  g_assert_cmpuint (f->cancel_seen, ==, 1);

  /* Nothing was written after the end of input. */
  g_clear_object (&f->ext_out);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_object_run_dispose (G_OBJECT (f->ext));
  g_assert_true (test_host_at_eof (f->host));
}

static void
test_call_tool_parent_and_key (Fixture       *f,
                               gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "\"call_tool\",\"call_tool_durable\"");
  g_autoptr(JsonObject) request = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *text = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"parent-1\",\"name\":\"nested\",\"args\":{\"path\":\"a.txt\"}}");
  request = test_host_expect (f->host, "call_tool");
  g_assert_cmpstr (test_str (request, "name"), ==, "read");
  g_assert_cmpstr (test_str (request, "parent_id"), ==, "parent-1");
  g_assert_cmpstr (test_str (request, "key"), ==, "k1");
  g_assert_cmpstr (test_str (json_object_get_object_member (request, "args"), "path"), ==, "a.txt");

  test_host_send_printf (f->host,
                         "{\"type\":\"tool_result\",\"id\":\"%s\",\"name\":\"read\","
                         "\"content\":[{\"type\":\"text\",\"text\":\"file body\"}],\"is_error\":false}",
                         test_str (request, "id"));
  result = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (result, "id"), ==, "parent-1");
  text = test_first_text (result);
  g_assert_cmpstr (text, ==, "file body");
}

static void
test_call_tool_key_needs_durable (Fixture       *f,
                                  gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "\"call_tool\"");
  g_autoptr(JsonObject) request = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *text = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"p\",\"name\":\"nested\",\"args\":{}}");
  request = test_host_expect (f->host, "call_tool");
  g_assert_false (json_object_has_member (request, "key"));
  g_assert_cmpstr (test_str (request, "parent_id"), ==, "p");

  test_host_send_printf (f->host,
                         "{\"type\":\"tool_result\",\"id\":\"%s\",\"content\":[{\"type\":\"text\","
                         "\"text\":\"no such file\"}],\"is_error\":true,\"truncated\":true}",
                         test_str (request, "id"));
  result = test_host_expect (f->host, "tool_result");
  text = test_first_text (result);
  g_assert_cmpstr (text, ==, "nested failed: no such file");
}

static void
test_call_tool_refused (Fixture       *f,
                        gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  g_autoptr(JsonObject) result = call (f, "p", "nested", "{}");
  g_autofree char *text = test_first_text (result);

  g_assert_error (f->call_error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED);
  g_assert_true (g_str_has_prefix (text, "nested failed:"));
  g_assert_nonnull (strstr (text, "does not offer call_tool"));
}

static void
test_call_tool_concurrent (Fixture       *f,
                           gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "\"call_tool\"");
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(JsonObject) result_b = NULL;
  g_autoptr(JsonObject) result_a = NULL;
  g_autofree char *text_a = NULL;
  g_autofree char *text_b = NULL;

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"A\",\"name\":\"nested\",\"args\":{\"path\":\"a\"}}");
  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"B\",\"name\":\"nested\",\"args\":{\"path\":\"b\"}}");
  first = test_host_expect (f->host, "call_tool");
  second = test_host_expect (f->host, "call_tool");
  g_assert_cmpstr (test_str (first, "id"), !=, test_str (second, "id"));
  g_assert_cmpstr (test_str (first, "parent_id"), ==, "A");
  g_assert_cmpstr (test_str (second, "parent_id"), ==, "B");

  /* Answered out of order: each reply reaches its own caller. */
  test_host_send_printf (f->host, "{\"type\":\"tool_result\",\"id\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":\"for B\"}]}",
                         test_str (second, "id"));
  result_b = test_host_expect (f->host, "tool_result");
  test_host_send_printf (f->host, "{\"type\":\"tool_result\",\"id\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":\"for A\"}]}",
                         test_str (first, "id"));
  result_a = test_host_expect (f->host, "tool_result");
  text_a = test_first_text (result_a);
  text_b = test_first_text (result_b);
  g_assert_cmpstr (test_str (result_b, "id"), ==, "B");
  g_assert_cmpstr (text_b, ==, "for B");
  g_assert_cmpstr (test_str (result_a, "id"), ==, "A");
  g_assert_cmpstr (text_a, ==, "for A");
}

static void
test_call_tool_cancel (Fixture       *f,
                       gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "\"call_tool\"");
  g_autoptr(JsonObject) request = NULL;
  g_autoptr(JsonObject) cancel = NULL;
  g_autoptr(JsonObject) request2 = NULL;
  g_autoptr(JsonObject) cancel2 = NULL;
  g_autoptr(JsonObject) result2 = NULL;
  g_autofree char *text = NULL;

  /* The parent's cancellation cancels its child. */
  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"P\",\"name\":\"nested\",\"args\":{}}");
  request = test_host_expect (f->host, "call_tool");
  test_host_send (f->host, "{\"type\":\"tool_cancel\",\"id\":\"P\"}");
  cancel = test_host_expect (f->host, "call_tool_cancel");
  g_assert_cmpstr (test_str (cancel, "id"), ==, test_str (request, "id"));
  g_assert_error (f->call_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* The host's late terminal result is ignored; the parent stays quiet. */
  test_host_send_printf (f->host, "{\"type\":\"tool_result\",\"id\":\"%s\",\"is_error\":true,"
                         "\"content\":[{\"type\":\"text\",\"text\":\"cancelled\"}]}",
                         test_str (request, "id"));
  probe (f);

  /* So does the caller's own cancellable. */
  g_clear_error (&f->call_error);
  f->call_cancellable = g_cancellable_new ();
  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"Q\",\"name\":\"nested\",\"args\":{}}");
  request2 = test_host_expect (f->host, "call_tool");
  g_cancellable_cancel (f->call_cancellable);
  cancel2 = test_host_expect (f->host, "call_tool_cancel");
  g_assert_cmpstr (test_str (cancel2, "id"), ==, test_str (request2, "id"));
  result2 = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (result2, "id"), ==, "Q");
  text = test_first_text (result2);
  g_assert_true (g_str_has_prefix (text, "nested failed:"));
  g_assert_error (f->call_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_oversized_result (Fixture       *f,
                       gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  g_autoptr(JsonObject) result = call (f, "1", "big", "{}");
  g_autofree char *text = test_first_text (result);

  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  g_assert_nonnull (strstr (text, "4 MiB"));
  probe (f);
}

static void
test_oversized_line_skipped (Fixture       *f,
                             gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  gsize size = ZOT_EXT_FRAME_MAX_BYTES + 1024;
  char *line = g_malloc (size + 1);
  g_autoptr(GBytes) bytes = NULL;

  /* A JSON-looking frame that would be valid but for its size. */
  memset (line, ' ', size);
  memcpy (line, "{\"type\":\"tool_call\",\"id\":\"huge\",\"name\":\"echo\",\"args\":{}", 55);
  line[size - 1] = '}';
  line[size] = '\n';
  bytes = g_bytes_new_take (line, size + 1);
  test_host_send_bytes (f->host, bytes);
  test_host_send (f->host, "not json at all");
  test_host_send (f->host, "[1,2]");
  test_host_send (f->host, "{\"no_type\":1}");
  test_host_send (f->host, "{\"type\":\"from_the_future\",\"x\":1}");
  probe (f);
}

static void
test_registration_errors (void)
{
  g_autoptr(ZotExtExtension) ext = zot_ext_extension_new ("bad", "1");
  g_autoptr(GError) error = NULL;
  g_autofree char *long_name = g_strnfill (65, 'a');
  g_autofree char *max_name = g_strnfill (64, 'a');

  g_assert_false (zot_ext_extension_add_tool (ext, "has space", NULL, "{}", 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
  g_assert_nonnull (strstr (error->message, "has space"));
  g_assert_nonnull (strstr (error->message, "^[A-Za-z0-9_-]{1,64}$"));
  g_clear_error (&error);

  g_assert_false (zot_ext_extension_add_tool (ext, "", NULL, "{}", 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
  g_clear_error (&error);

  g_assert_false (zot_ext_extension_add_tool (ext, long_name, NULL, "{}", 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
  g_clear_error (&error);
  g_assert_true (zot_ext_extension_add_tool (ext, max_name, NULL, "{}", 0, &error));
  g_assert_no_error (error);

  g_assert_false (zot_ext_extension_add_tool (ext, "arr", NULL, "[]", 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_SCHEMA);
  g_assert_nonnull (strstr (error->message, "\"arr\""));
  g_assert_nonnull (strstr (error->message, "must be a JSON object"));
  g_clear_error (&error);

  g_assert_false (zot_ext_extension_add_tool (ext, "str", NULL, "\"object\"", 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);

  g_assert_false (zot_ext_extension_add_tool (ext, "broken", NULL, "{", 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);

  g_assert_false (zot_ext_extension_add_tool_full (ext, "out", NULL, "{}", "3", NULL, NULL, NULL,
                                                   ZOT_EXT_EXPOSURE_DEFAULT, 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);

  g_assert_true (zot_ext_extension_add_tool (ext, "dup", NULL, "{}", 0, &error));
  g_assert_false (zot_ext_extension_add_tool (ext, "dup", NULL, "{}", 0, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
  g_clear_error (&error);

  g_assert_true (zot_ext_extension_add_command (ext, "Todo", NULL, &error));
  g_assert_false (zot_ext_extension_add_command (ext, "todo", NULL, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
  g_clear_error (&error);
  g_assert_false (zot_ext_extension_add_command (ext, "/slash", NULL, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
}

static gboolean
on_command (ZotExtExtension         *ext,
            ZotExtCommandInvocation *inv,
            Fixture                 *f)
{
  const char *name = zot_ext_command_invocation_get_name (inv);
  const char *args = zot_ext_command_invocation_get_args (inv);
  g_autoptr(GError) error = NULL;

  if (g_str_equal (name, "c-prompt"))
    zot_ext_command_invocation_return_prompt (inv, args);
  else if (g_str_equal (name, "c-insert"))
    zot_ext_command_invocation_return_insert (inv, args);
  else if (g_str_equal (name, "c-display"))
    zot_ext_command_invocation_return_display (inv, args);
  else if (g_str_equal (name, "c-noop"))
    zot_ext_command_invocation_return_noop (inv);
  else if (g_str_equal (name, "c-error"))
    zot_ext_command_invocation_return_error (inv, args);
  else if (g_str_equal (name, "c-panel"))
    zot_ext_command_invocation_return_open_panel (inv, "p1", "Title",
                                                  (const char * const[]) { "a", "b", NULL }, "esc");
  else if (g_str_equal (name, "c-tool"))
    {
      g_assert_false (zot_ext_command_invocation_return_tool_prompt (inv, "go", "echo", "[1]", &error));
      g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_JSON);
      g_clear_error (&error);
      g_assert_false (zot_ext_command_invocation_return_tool_prompt (inv, "", "echo", NULL, &error));
      g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
      g_assert_true (zot_ext_command_invocation_return_tool_prompt (inv, "go", "echo",
                                                                    "{\"text\":\"x\"}", &error));
    }
  else if (g_str_equal (name, "c-widgets"))
    {
      if (!zot_ext_command_invocation_return_open_panel_widgets (inv, "w", "W",
                                                                 "[{\"id\":\"t\",\"type\":\"text\",\"text\":\"hi\"}]",
                                                                 NULL, &error))
        {
          g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED);
          zot_ext_command_invocation_return_open_panel (inv, "w", "W",
                                                        (const char * const[]) { "hi", NULL }, NULL);
        }
    }
  else
    return FALSE;

  /* A second answer is dropped. */
  zot_ext_command_invocation_return_noop (inv);
  return TRUE;
}

static JsonObject *
run_command (Fixture    *f,
             const char *name,
             const char *args)
{
  JsonObject *response;

  test_host_send_printf (f->host, "{\"type\":\"command_invoked\",\"id\":\"c-%s\",\"name\":\"%s\",\"args\":\"%s\"}",
                         name, name, args);
  response = test_host_expect (f->host, "command_response");
  return response;
}

static void
test_commands (Fixture       *f,
               gconstpointer  data)
{
  const char *names[] = { "c-prompt", "c-insert", "c-display", "c-noop", "c-error", "c-panel",
                          "c-tool", "c-widgets", "c-fails", NULL };
  g_autoptr(GPtrArray) frames = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *detailed = g_strdup_printf ("command::%s", names[i]);

      zot_ext_extension_add_command (f->ext, names[i], NULL, NULL);
      g_signal_connect (f->ext, detailed, G_CALLBACK (on_command), f);
    }
  frames = start (f, "");

#define EXPECT_ACTION(resp, action) g_assert_cmpstr (test_str (resp, "action"), ==, action)
  {
    g_autoptr(JsonObject) r = run_command (f, "c-prompt", "hello");
    EXPECT_ACTION (r, "prompt");
    g_assert_cmpstr (test_str (r, "prompt"), ==, "hello");
    g_assert_cmpstr (test_str (r, "id"), ==, "c-c-prompt");
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "c-insert", "text");
    EXPECT_ACTION (r, "insert");
    g_assert_cmpstr (test_str (r, "insert"), ==, "text");
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "c-display", "shown");
    EXPECT_ACTION (r, "display");
    g_assert_cmpstr (test_str (r, "display"), ==, "shown");
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "c-noop", "");
    EXPECT_ACTION (r, "noop");
    g_assert_false (json_object_has_member (r, "error"));
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "c-error", "bad");
    EXPECT_ACTION (r, "noop");
    g_assert_cmpstr (test_str (r, "error"), ==, "bad");
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "C-PANEL", "");
    JsonObject *panel;

    EXPECT_ACTION (r, "open_panel");
    panel = json_object_get_object_member (r, "open_panel");
    g_assert_cmpstr (test_str (panel, "id"), ==, "p1");
    g_assert_cmpstr (test_str (panel, "title"), ==, "Title");
    g_assert_cmpstr (test_str (panel, "footer"), ==, "esc");
    g_assert_true (test_strv_has (panel, "lines", "b"));
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "c-tool", "");
    EXPECT_ACTION (r, "tool_prompt");
    g_assert_cmpstr (test_str (r, "prompt"), ==, "go");
    g_assert_cmpstr (test_str (r, "tool_name"), ==, "echo");
    g_assert_cmpstr (test_str (json_object_get_object_member (r, "tool_args"), "text"), ==, "x");
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "c-widgets", "");
    EXPECT_ACTION (r, "open_panel");
    g_assert_true (json_object_has_member (json_object_get_object_member (r, "open_panel"), "lines"));
  }
  {
    g_autoptr(JsonObject) r = run_command (f, "c-fails", "");
    EXPECT_ACTION (r, "noop");
    g_assert_nonnull (strstr (test_str (r, "error"), "c-fails"));
  }
#undef EXPECT_ACTION
  probe (f);
}

static void
on_turn_end (ZotExtExtension *ext,
             ZotExtEvent     *event,
             Fixture         *f)
{
  f->events_seen++;
  g_free (f->last_event_stop);
  f->last_event_stop = g_strdup (zot_ext_event_get_string (event, "stop"));
  g_assert_cmpint (zot_ext_event_get_sequence (event), ==, 7);
  g_assert_false (zot_ext_event_has_member (event, "executed"));
  zot_ext_extension_notify (ext, "info", f->last_event_stop);
}

static void
test_events (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(JsonObject) note = NULL;

  zot_ext_extension_subscribe (f->ext, "turn_end");
  zot_ext_extension_subscribe (f->ext, "turn_end");
  g_signal_connect (f->ext, "event::turn_end", G_CALLBACK (on_turn_end), f);
  frames = start (f, "");

  test_host_send (f->host, "{\"type\":\"event\",\"event\":\"session_start\",\"sequence\":6}");
  test_host_send (f->host, "{\"type\":\"event\",\"event\":\"turn_end\",\"sequence\":7,\"stop\":\"end_turn\"}");
  note = test_host_expect (f->host, "notify");
  g_assert_cmpstr (test_str (note, "message"), ==, "end_turn");
  g_assert_cmpstr (test_str (note, "level"), ==, "info");
  g_assert_cmpuint (f->events_seen, ==, 1);
}

static gboolean
on_intercept_tool (ZotExtExtension           *ext,
                   ZotExtInterceptInvocation *inv,
                   Fixture                   *f)
{
  const char *tool = zot_ext_intercept_invocation_get_tool_name (inv);
  JsonObject *args = zot_ext_intercept_invocation_get_tool_args (inv);

  if (g_strcmp0 (tool, "bash") == 0)
    zot_ext_intercept_invocation_block (inv, "refused");
  else if (g_strcmp0 (tool, "echo") == 0)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (zot_ext_intercept_invocation_modify_args (inv, "[]", &error));
      g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_JSON);
      g_assert_true (zot_ext_intercept_invocation_modify_args (inv, "{\"text\":\"rewritten\"}", NULL));
    }
  else if (g_strcmp0 (tool, "crash") == 0)
    return FALSE;
  else if (g_strcmp0 (tool, "later") == 0)
    {
      g_assert_nonnull (args);
      /* Kept and never answered: the library answers before the host's 5 s. */
      g_ptr_array_add (f->received, g_strdup ("later"));
      g_set_object (&f->kept, G_OBJECT (inv));
      return TRUE;
    }
  else
    zot_ext_intercept_invocation_allow (inv);
  /* A second answer is dropped. */
  zot_ext_intercept_invocation_allow (inv);
  return TRUE;
}

static gboolean
on_before_agent_start (ZotExtExtension           *ext,
                       ZotExtInterceptInvocation *inv,
                       Fixture                   *f)
{
  g_autofree char *prompt = g_strconcat (zot_ext_intercept_invocation_get_string (inv, "system_prompt"),
                                         "\n(test)", NULL);

  zot_ext_intercept_invocation_set_system_prompt (inv, prompt, NULL);
  return TRUE;
}

static gboolean
on_assistant_fails (ZotExtExtension           *ext,
                    ZotExtInterceptInvocation *inv,
                    Fixture                   *f)
{
  return FALSE;
}

static JsonObject *
intercept (Fixture    *f,
           const char *id,
           const char *payload)
{
  JsonObject *reply;

  test_host_send_printf (f->host, "{\"type\":\"event_intercept\",\"id\":\"%s\",%s}", id, payload);
  reply = test_host_expect (f->host, "event_intercept_response");
  g_assert_cmpstr (test_str (reply, "id"), ==, id);
  return reply;
}

static void
test_interceptors (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) frames = NULL;
  gint64 before, elapsed;

  zot_ext_extension_intercept (f->ext, "tool_call");
  zot_ext_extension_intercept (f->ext, "before_agent_start");
  zot_ext_extension_intercept (f->ext, "assistant_message");
  zot_ext_extension_intercept (f->ext, "turn_start");
  g_signal_connect (f->ext, "intercept::tool_call", G_CALLBACK (on_intercept_tool), f);
  g_signal_connect (f->ext, "intercept::before_agent_start", G_CALLBACK (on_before_agent_start), f);
  g_signal_connect (f->ext, "intercept::assistant_message", G_CALLBACK (on_assistant_fails), f);
  frames = start (f, "");

  {
    g_autoptr(JsonObject) r = intercept (f, "i1", "\"event\":\"tool_call\",\"tool_name\":\"bash\",\"tool_args\":{\"command\":\"rm -rf /\"}");
    g_assert_true (json_object_get_boolean_member (r, "block"));
    g_assert_cmpstr (test_str (r, "reason"), ==, "refused");
  }
  {
    g_autoptr(JsonObject) r = intercept (f, "i2", "\"event\":\"tool_call\",\"tool_name\":\"echo\",\"tool_args\":{\"text\":\"rewrite\"}");
    g_assert_false (json_object_has_member (r, "block"));
    g_assert_cmpstr (test_str (json_object_get_object_member (r, "modified_args"), "text"), ==, "rewritten");
  }
  {
    g_autoptr(JsonObject) r = intercept (f, "i3", "\"event\":\"tool_call\",\"tool_name\":\"read\",\"tool_args\":{}");
    g_assert_cmpuint (json_object_get_size (r), ==, 2);
  }
  {
    g_autoptr(JsonObject) r = intercept (f, "i4", "\"event\":\"tool_call\",\"tool_name\":\"crash\",\"tool_args\":{}");
    g_assert_true (json_object_get_boolean_member (r, "block"));
    g_assert_nonnull (strstr (test_str (r, "reason"), "test: tool_call interceptor failed"));
  }
  {
    g_autoptr(JsonObject) r = intercept (f, "i5", "\"event\":\"before_agent_start\",\"system_prompt\":\"base\"");
    g_assert_cmpstr (test_str (r, "system_prompt"), ==, "base\n(test)");
  }
  {
    /* A failed before_agent_start handler keeps the prompt; a failed
     * assistant_message one blocks. */
    g_autoptr(JsonObject) r = intercept (f, "i6", "\"event\":\"assistant_message\",\"text\":\"x\"");
    g_assert_true (json_object_get_boolean_member (r, "block"));
  }
  {
    /* No handler for turn_start: allowed at once. */
    g_autoptr(JsonObject) r = intercept (f, "i7", "\"event\":\"turn_start\",\"step\":1");
    g_assert_cmpuint (json_object_get_size (r), ==, 2);
  }
  {
    g_autoptr(JsonObject) r = NULL;

    before = g_get_monotonic_time ();
    r = intercept (f, "i8", "\"event\":\"tool_call\",\"tool_name\":\"later\",\"tool_args\":{}");
    elapsed = (g_get_monotonic_time () - before) / 1000;
    g_assert_cmpuint (json_object_get_size (r), ==, 2);
    g_assert_cmpint (elapsed, >=, ZOT_EXT_INTERCEPT_REPLY_MSEC - 100);
    g_assert_cmpint (elapsed, <, ZOT_EXT_INTERCEPT_DEADLINE_MSEC + 5000);
  }
  probe (f);
}

static void
on_panel_key (ZotExtExtension *ext,
              const char      *panel_id,
              const char      *key,
              const char      *text,
              Fixture         *f)
{
  g_ptr_array_add (f->panel_keys, g_strdup_printf ("%s:%s:%s", panel_id, key, text ? text : ""));
  if (g_str_equal (key, "down"))
    zot_ext_extension_render_panel (ext, panel_id, "T", (const char * const[]) { "two", NULL }, "f");
  else if (g_str_equal (key, "esc"))
    zot_ext_extension_close_panel (ext, panel_id);
}

static void
on_panel_close (ZotExtExtension *ext,
                const char      *panel_id,
                Fixture         *f)
{
  g_ptr_array_add (f->panel_keys, g_strdup_printf ("%s:closed", panel_id));
  zot_ext_extension_notify (ext, "info", "closed");
}

static void
on_panel_event (ZotExtExtension *ext,
                const char      *panel_id,
                const char      *widget_id,
                const char      *event,
                const char      *value_json,
                Fixture         *f)
{
  g_autofree char *message = g_strdup_printf ("%s %s %s", widget_id, event, value_json);

  zot_ext_extension_notify (ext, "info", message);
}

static void
test_panels (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(GError) error = NULL;

  g_signal_connect (f->ext, "panel-key::mine", G_CALLBACK (on_panel_key), f);
  g_signal_connect (f->ext, "panel-close::mine", G_CALLBACK (on_panel_close), f);
  g_signal_connect (f->ext, "panel-event::form", G_CALLBACK (on_panel_event), f);
  frames = start (f, "\"panel_widgets\"");

  zot_ext_extension_open_panel (f->ext, "mine", "T", (const char * const[]) { "one", NULL }, "f");
  {
    g_autoptr(JsonObject) open = test_host_expect (f->host, "open_panel");
    JsonObject *panel = json_object_get_object_member (open, "panel");

    g_assert_cmpstr (test_str (panel, "id"), ==, "mine");
    g_assert_true (test_strv_has (panel, "lines", "one"));
  }
  test_host_send (f->host, "{\"type\":\"panel_key\",\"panel_id\":\"other\",\"key\":\"down\"}");
  test_host_send (f->host, "{\"type\":\"panel_key\",\"panel_id\":\"mine\",\"key\":\"down\"}");
  {
    g_autoptr(JsonObject) render = test_host_expect (f->host, "panel_render");

    g_assert_cmpstr (test_str (render, "panel_id"), ==, "mine");
    g_assert_true (test_strv_has (render, "lines", "two"));
  }
  test_host_send (f->host, "{\"type\":\"panel_key\",\"panel_id\":\"mine\",\"key\":\"esc\"}");
  {
    g_autoptr(JsonObject) close = test_host_expect (f->host, "panel_close");

    g_assert_cmpstr (test_str (close, "panel_id"), ==, "mine");
  }
  test_host_send (f->host, "{\"type\":\"panel_close\",\"panel_id\":\"mine\"}");
  {
    G_GNUC_UNUSED g_autoptr(JsonObject) note = test_host_expect (f->host, "notify");
  }
  g_assert_cmpuint (f->panel_keys->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (f->panel_keys, 0), ==, "mine:down:");

  /* Widgets, offered by this host. */
  g_assert_false (zot_ext_extension_open_panel_widgets (f->ext, "form", "F", "{}", NULL, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_JSON);
  g_clear_error (&error);
  g_assert_true (zot_ext_extension_open_panel_widgets (f->ext, "form", "F",
                                                       "[{\"id\":\"go\",\"type\":\"button\",\"label\":\"Go\"}]",
                                                       NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(JsonObject) open = test_host_expect (f->host, "open_panel");
    JsonObject *panel = json_object_get_object_member (open, "panel");

    g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (panel, "widgets")));
    g_assert_false (json_object_has_member (panel, "lines"));
  }
  g_assert_true (zot_ext_extension_render_panel_widgets (f->ext, "form", NULL, "[]", NULL, &error));
  {
    g_autoptr(JsonObject) render = test_host_expect (f->host, "panel_render");

    g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (render, "widgets")));
  }
  test_host_send (f->host, "{\"type\":\"panel_event\",\"panel_id\":\"form\",\"widget_id\":\"go\",\"event\":\"clicked\",\"value\":null}");
  {
    g_autoptr(JsonObject) note = test_host_expect (f->host, "notify");

    g_assert_cmpstr (test_str (note, "message"), ==, "go clicked null");
  }
}

static void
test_panels_without_widgets (Fixture       *f,
                             gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  g_autoptr(GError) error = NULL;

  g_assert_false (zot_ext_extension_open_panel_widgets (f->ext, "form", "F", "[]", NULL, &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_NOT_SUPPORTED);
  probe (f);
}

static void
test_notes (Fixture       *f,
            gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");
  g_autoptr(GError) error = NULL;

  zot_ext_extension_notify (f->ext, "warn", "careful");
  zot_ext_extension_clear_notes (f->ext);
  zot_ext_extension_submit (f->ext, "do it");
  g_assert_false (zot_ext_extension_submit_slash (f->ext, "no slash", &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT);
  g_assert_true (zot_ext_extension_submit_slash (f->ext, "/todo add", NULL));
  {
    g_autoptr(JsonObject) n = test_host_expect (f->host, "notify");

    g_assert_cmpstr (test_str (n, "level"), ==, "warn");
    g_assert_cmpstr (test_str (n, "message"), ==, "careful");
  }
  json_object_unref (test_host_expect (f->host, "clear_notes"));
  {
    g_autoptr(JsonObject) s = test_host_expect (f->host, "submit");

    g_assert_cmpstr (test_str (s, "text"), ==, "do it");
  }
  {
    g_autoptr(JsonObject) s = test_host_expect (f->host, "submit_slash");

    g_assert_cmpstr (test_str (s, "text"), ==, "/todo add");
  }
}

static gboolean
on_activate (ZotExtExtension  *ext,
             ZotExtInvocation *inv,
             gpointer          data)
{
  zot_ext_invocation_set_activate_tools (inv, (const char * const[]) { "hidden", NULL });
  zot_ext_invocation_return_result_json (inv, "[{\"type\":\"text\",\"text\":\"a\"},"
                                         "{\"type\":\"image\",\"mime_type\":\"image/png\",\"data\":\"AA==\"}]",
                                         "{\"ok\":false}", TRUE);
  return TRUE;
}

static gboolean
on_image (ZotExtExtension  *ext,
          ZotExtInvocation *inv,
          gpointer          data)
{
  g_autoptr(GBytes) png = g_bytes_new_static ("\x89PNG", 4);

  zot_ext_invocation_return_image (inv, "a picture", "image/png", png);
  return TRUE;
}

static gboolean
on_bad_json (ZotExtExtension  *ext,
             ZotExtInvocation *inv,
             gpointer          data)
{
  zot_ext_invocation_return_result_json (inv, "{\"not\":\"an array\"}", NULL, FALSE);
  return TRUE;
}

static void
test_full_results (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonObject) bad = NULL;
  g_autofree char *bad_text = NULL;
  JsonArray *content;

  zot_ext_extension_add_tool (f->ext, "activate", NULL, "{}", ZOT_EXT_TOOL_DEFERRED, NULL);
  zot_ext_extension_add_tool (f->ext, "badjson", NULL, "{}", 0, NULL);
  zot_ext_extension_add_tool (f->ext, "orphan", NULL, "{}", 0, NULL);
  zot_ext_extension_add_tool (f->ext, "image", NULL, "{}", 0, NULL);
  g_signal_connect (f->ext, "tool-call::image", G_CALLBACK (on_image), NULL);
  g_signal_connect (f->ext, "tool-call::activate", G_CALLBACK (on_activate), NULL);
  g_signal_connect (f->ext, "tool-call::badjson", G_CALLBACK (on_bad_json), NULL);
  frames = start (f, "");

  result = call (f, "1", "activate", "{}");
  g_assert_true (test_strv_has (result, "activate_tools", "hidden"));
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  content = json_object_get_array_member (result, "content");
  g_assert_cmpuint (json_array_get_length (content), ==, 2);
  g_assert_cmpstr (test_str (json_array_get_object_element (content, 1), "mime_type"), ==, "image/png");
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (result, "structured_content"), "ok"));

  bad = call (f, "2", "badjson", "{}");
  bad_text = test_first_text (bad);
  g_assert_true (json_object_get_boolean_member (bad, "is_error"));
  g_assert_true (g_str_has_prefix (bad_text, "badjson:"));

  {
    g_autoptr(JsonObject) image = call (f, "4", "image", "{}");
    JsonArray *blocks = json_object_get_array_member (image, "content");
    JsonObject *picture = json_array_get_object_element (blocks, 1);

    g_assert_cmpuint (json_array_get_length (blocks), ==, 2);
    g_assert_cmpstr (test_str (picture, "type"), ==, "image");
    g_assert_cmpstr (test_str (picture, "mime_type"), ==, "image/png");
    g_assert_cmpstr (test_str (picture, "data"), ==, "iVBORw==");
  }
  {
    g_autoptr(JsonObject) orphan = call (f, "3", "orphan", "{}");
    g_autofree char *orphan_text = test_first_text (orphan);

    g_assert_true (json_object_get_boolean_member (orphan, "is_error"));
    g_assert_cmpstr (orphan_text, ==, "orphan: no handler is connected to tool-call::orphan");
  }
}

typedef struct
{
  gboolean  done;
  gboolean  ok;
} Exited;

static void
exited_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Exited *exited = user_data;

  exited->ok = g_subprocess_wait_check_finish (G_SUBPROCESS (source), result, NULL);
  exited->done = TRUE;
}

/* Drives gjs-echo.js or pygobject-echo.py: both register echo, later
 * and throws, through introspection. */
static void
drive_introspected (const char * const *argv,
                    const char         *name)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(TestHost) host = NULL;
  g_autoptr(GError) error = NULL;
  Exited exited = { FALSE, FALSE };

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  host = test_host_new (g_subprocess_get_stdout_pipe (process), g_subprocess_get_stdin_pipe (process));
  g_subprocess_wait_check_async (process, NULL, exited_cb, &exited);

  {
    g_autoptr(JsonObject) hello = test_host_expect (host, "hello");

    g_assert_cmpstr (test_str (hello, "name"), ==, name);
    g_assert_true (test_strv_has (hello, "capabilities", "tool_cancel"));
  }
  test_host_send (host, "{\"type\":\"hello_ack\",\"protocol_version\":1,\"capabilities\":[]}");
  for (guint i = 0; i < 3; i++)
    json_object_unref (test_host_expect (host, "register_tool"));
  json_object_unref (test_host_expect (host, "ready"));

  test_host_send (host, "{\"type\":\"tool_call\",\"id\":\"1\",\"name\":\"echo\",\"args\":{\"text\":\"from afar\"}}");
  {
    g_autoptr(JsonObject) result = test_host_expect (host, "tool_result");
    g_autofree char *text = test_first_text (result);

    g_assert_cmpstr (test_str (result, "id"), ==, "1");
    g_assert_cmpstr (text, ==, "from afar");
  }
  test_host_send (host, "{\"type\":\"tool_call\",\"id\":\"2\",\"name\":\"later\",\"args\":{}}");
  {
    g_autoptr(JsonObject) result = test_host_expect (host, "tool_result");

    g_assert_cmpstr (test_str (result, "id"), ==, "2");
    g_assert_true (json_object_get_boolean_member (json_object_get_object_member (result, "structured_content"), "ok"));
  }
  test_host_send (host, "{\"type\":\"tool_call\",\"id\":\"3\",\"name\":\"throws\",\"args\":{}}");
  {
    g_autoptr(JsonObject) result = test_host_expect (host, "tool_result");
    g_autofree char *text = test_first_text (result);

    g_assert_true (json_object_get_boolean_member (result, "is_error"));
    g_assert_true (g_str_has_prefix (text, "throws:"));
  }
  test_host_send (host, "{\"type\":\"shutdown\"}");
  json_object_unref (test_host_expect (host, "shutdown_ack"));
  test_host_wait_for (&exited.done);
  g_assert_true (exited.ok);
}

static void
test_gjs_echo (void)
{
  g_autofree char *gjs = g_find_program_in_path ("gjs");
  g_autofree char *script = NULL;

#ifndef SDK_C_HAVE_TYPELIB
  g_test_skip ("built without introspection (-Dintrospection=disabled)");
  return;
#endif
#ifdef SDK_C_SANITIZED
  g_test_skip ("the library is built with a sanitizer, which programs without it cannot load");
  return;
#endif
  if (gjs == NULL)
    {
      g_test_skip ("gjs is not installed");
      return;
    }

  script = g_test_build_filename (G_TEST_DIST, "gjs-echo.js", NULL);
  drive_introspected ((const char * const[]) { gjs, script, NULL }, "gjs-echo");
}

/* The system Python is the one PyGObject is installed for; a python3
 * earlier in PATH (a virtual environment) may not have it. */
static char *
find_python_with_gi (void)
{
  const char *candidates[] = { "/usr/bin/python3", "python3", NULL };

  for (guint i = 0; candidates[i] != NULL; i++)
    {
      g_autofree char *path = g_find_program_in_path (candidates[i]);
      g_autoptr(GSubprocess) probe = NULL;

      if (path == NULL)
        continue;
      probe = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                NULL, path, "-c",
                                "import gi; gi.require_version('ZotExt', '1'); "
                                "from gi.repository import ZotExt", NULL);
      if (probe != NULL && g_subprocess_wait_check (probe, NULL, NULL))
        return g_steal_pointer (&path);
    }
  return NULL;
}

static void
test_pygobject_echo (void)
{
  g_autofree char *python = NULL;
  g_autofree char *script = NULL;

#ifndef SDK_C_HAVE_TYPELIB
  g_test_skip ("built without introspection (-Dintrospection=disabled)");
  return;
#endif
#ifdef SDK_C_SANITIZED
  g_test_skip ("the library is built with a sanitizer, which programs without it cannot load");
  return;
#endif
  python = find_python_with_gi ();
  if (python == NULL)
    {
      g_test_skip ("no python3 with PyGObject");
      return;
    }

  script = g_test_build_filename (G_TEST_DIST, "pygobject-echo.py", NULL);
  drive_introspected ((const char * const[]) { python, script, NULL }, "pygobject-echo");
}

static gboolean
on_settle (ZotExtExtension  *ext,
           ZotExtInvocation *inv,
           gpointer          data)
{
  if (zot_ext_invocation_is_reconcile (inv))
    zot_ext_invocation_return_result_json (inv, "[{\"type\":\"text\",\"text\":\"done before\"}]",
                                           "{\"state\":\"completed\"}", FALSE);
  else
    zot_ext_invocation_return_text (inv, zot_ext_invocation_get_operation_key (inv));
  return TRUE;
}

static void
test_replay (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) run = NULL;
  g_autoptr(JsonObject) ask = NULL;
  g_autofree char *run_text = NULL;
  const char *replay = NULL;

  g_assert_false (zot_ext_extension_add_tool (f->ext, "both", NULL, "{}",
                                              ZOT_EXT_TOOL_REPLAY_SAFE | ZOT_EXT_TOOL_REPLAY_RECONCILE,
                                              &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_ARGUMENT);
  g_assert_true (zot_ext_extension_add_tool (f->ext, "settle", NULL, "{}",
                                             ZOT_EXT_TOOL_REPLAY_RECONCILE, NULL));
  g_signal_connect (f->ext, "tool-call::settle", G_CALLBACK (on_settle), NULL);
  frames = start (f, "\"call_tool\",\"call_tool_durable\"");
  for (guint i = 0; i < frames->len; i++)
    if (g_strcmp0 (test_str (g_ptr_array_index (frames, i), "name"), "settle") == 0)
      replay = test_str (g_ptr_array_index (frames, i), "replay");
  g_assert_cmpstr (replay, ==, "reconcile");

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"s1\",\"name\":\"settle\",\"args\":{},\"operation_key\":\"op-7\"}");
  run = test_host_expect (f->host, "tool_result");
  run_text = test_first_text (run);
  g_assert_cmpstr (run_text, ==, "op-7");

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"s2\",\"name\":\"settle\",\"args\":{},\"reconcile\":true,\"operation_key\":\"op-7\"}");
  ask = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (json_object_get_object_member (ask, "structured_content"), "state"), ==, "completed");
}

static void
on_hello (ZotExtExtension *ext,
          Fixture         *f)
{
  /* The host is known here, and registrations still go out before ready. */
  g_assert_cmpstr (zot_ext_extension_get_host_info (ext, "cwd"), ==, "/work");
  g_assert_true (zot_ext_extension_add_command (ext, "from-hello", NULL, NULL));
}

static void
test_hello_signal (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) frames = NULL;
  gboolean found = FALSE;

  g_signal_connect (f->ext, "hello", G_CALLBACK (on_hello), f);
  frames = start (f, "");
  for (guint i = 0; i < frames->len; i++)
    if (g_strcmp0 (test_str (g_ptr_array_index (frames, i), "name"), "from-hello") == 0)
      found = TRUE;
  g_assert_true (found);
}

static void
run_with_cancellable_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GError) error = NULL;

  f->run_ok = zot_ext_extension_run_finish (ZOT_EXT_EXTENSION (source), result, &error);
  if (!f->run_ok && f->cancel_seen == 1)
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  else if (!f->run_ok)
    g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_BUSY);
  f->run_done = TRUE;
}

static void
test_run_cancellable (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  zot_ext_extension_run_async (f->ext, f->ext_in, f->ext_out, cancellable,
                               run_with_cancellable_cb, f);
  json_object_unref (test_host_expect (f->host, "hello"));
  test_host_send (f->host, "{\"type\":\"hello_ack\",\"capabilities\":[]}");
  while (TRUE)
    {
      g_autoptr(JsonObject) frame = test_host_next (f->host);

      if (g_strcmp0 (test_str (frame, "type"), "ready") == 0)
        break;
    }
  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w\",\"name\":\"wait\",\"args\":{}}");
  test_host_wait_for (&f->started);

  g_cancellable_cancel (cancellable);
  test_host_wait_for (&f->run_done);
  g_assert_false (f->run_ok);
  g_assert_cmpuint (f->cancel_seen, ==, 1);
  f->cancel_seen = 2;

  /* An extension runs once. */
  f->run_done = FALSE;
  zot_ext_extension_run_async (f->ext, f->ext_in, f->ext_out, NULL, run_with_cancellable_cb, f);
  test_host_wait_for (&f->run_done);
  g_assert_false (f->run_ok);
  f->run_done = TRUE;
}

static void
test_host_gone (Fixture       *f,
                gconstpointer  data)
{
  G_GNUC_UNUSED g_autoptr(GPtrArray) frames = start (f, "");

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"w\",\"name\":\"wait\",\"args\":{}}");
  test_host_wait_for (&f->started);

  /* The host stops reading: the next frame cannot be written, the run
   * ends with an error and the running handler is cancelled. */
  f->expect_failure = TRUE;
  test_host_stop_reading (f->host);
  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"1\",\"name\":\"echo\",\"args\":{\"text\":\"x\"}}");
  test_host_wait_for (&f->run_done);
  g_assert_false (f->run_ok);
  g_assert_cmpuint (f->cancel_seen, ==, 1);
}

static gboolean
on_slow (ZotExtExtension  *ext,
         ZotExtInvocation *inv,
         gboolean         *sent)
{
  sent[0] = zot_ext_invocation_report_progress (inv, "half way");
  zot_ext_invocation_return_text (inv, "done");
  sent[1] = zot_ext_invocation_report_progress (inv, "too late");
  return TRUE;
}

/* Annotations as flags; withdrawing tools and commands, before the host
 * saw them (no frame) and after (a frame); progress while a call runs. */
static void
test_dynamic (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GPtrArray) frames = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) gone = NULL;
  g_autoptr(JsonObject) gone_command = NULL;
  g_autoptr(JsonObject) progress = NULL;
  g_autoptr(JsonObject) result = NULL;
  JsonObject *annotations = NULL;
  gboolean sent[2] = { FALSE, TRUE };

  zot_ext_extension_add_tool (f->ext, "wipe", NULL, "{}", ZOT_EXT_TOOL_DESTRUCTIVE | ZOT_EXT_TOOL_READ_ONLY, &error);
  zot_ext_extension_add_tool (f->ext, "early", NULL, "{}", 0, &error);
  zot_ext_extension_add_tool (f->ext, "slow", NULL, "{}", 0, &error);
  zot_ext_extension_add_command (f->ext, "Go", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (zot_ext_extension_unregister_tool (f->ext, "early", &error));
  g_assert_no_error (error);
  g_signal_connect (f->ext, "tool-call::slow", G_CALLBACK (on_slow), sent);

  frames = start (f, "");
  for (guint i = 0; i < frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);

      g_assert_cmpstr (test_str (frame, "name"), !=, "early");
      if (g_strcmp0 (test_str (frame, "name"), "wipe") == 0)
        annotations = json_object_get_object_member (frame, "annotations");
      else if (g_strcmp0 (test_str (frame, "type"), "register_tool") == 0)
        g_assert_false (json_object_has_member (frame, "annotations"));
    }
  g_assert_nonnull (annotations);
  g_assert_true (json_object_get_boolean_member (annotations, "destructive"));
  g_assert_true (json_object_get_boolean_member (annotations, "read_only"));

  g_assert_true (zot_ext_extension_unregister_tool (f->ext, "wipe", &error));
  gone = test_host_expect (f->host, "unregister_tool");
  g_assert_cmpstr (test_str (gone, "name"), ==, "wipe");
  g_assert_true (zot_ext_extension_unregister_command (f->ext, "go", &error));
  gone_command = test_host_expect (f->host, "unregister_command");
  g_assert_cmpstr (test_str (gone_command, "name"), ==, "Go");
  g_assert_no_error (error);

  g_assert_false (zot_ext_extension_unregister_tool (f->ext, "wipe", &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
  g_clear_error (&error);
  g_assert_false (zot_ext_extension_unregister_command (f->ext, "Go", &error));
  g_assert_error (error, ZOT_EXT_ERROR, ZOT_EXT_ERROR_INVALID_NAME);
  g_clear_error (&error);

  /* The name is free again. */
  g_assert_true (zot_ext_extension_add_tool (f->ext, "wipe", NULL, "{\"type\":\"object\"}", 0, &error));
  json_object_unref (test_host_expect (f->host, "register_tool"));

  test_host_send (f->host, "{\"type\":\"tool_call\",\"id\":\"s1\",\"name\":\"slow\",\"args\":{}}");
  progress = test_host_expect (f->host, "tool_progress");
  g_assert_cmpstr (test_str (progress, "id"), ==, "s1");
  g_assert_cmpstr (test_str (progress, "text"), ==, "half way");
  result = test_host_expect (f->host, "tool_result");
  g_assert_cmpstr (test_str (result, "id"), ==, "s1");
  g_assert_true (sent[0]);
  g_assert_false (sent[1]);
  probe (f);
}

#define ADD(path, func) \
  g_test_add ("/sdk-c/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* Writing to a pipe nobody reads must fail, not kill the test. */
  signal (SIGPIPE, SIG_IGN);

  g_test_add_func ("/sdk-c/extension/new-destroy", test_new_destroy);
  g_test_add_func ("/sdk-c/extension/hello-from-registrations", test_hello_from_registrations);
  g_test_add_func ("/sdk-c/registration/errors", test_registration_errors);
  g_test_add_func ("/sdk-c/gjs/echo", test_gjs_echo);
  g_test_add_func ("/sdk-c/pygobject/echo", test_pygobject_echo);
  ADD ("handshake", test_handshake);
  ADD ("tool/kinds", test_tool_kinds);
  ADD ("tool/second-reply-dropped", test_second_reply_dropped);
  ADD ("tool/oversized-result", test_oversized_result);
  ADD ("cancel/before-start", test_cancel_before_start);
  ADD ("cancel/after-start", test_cancel_after_start);
  ADD ("lifecycle/shutdown", test_shutdown);
  ADD ("lifecycle/eof", test_eof);
  ADD ("lifecycle/run-cancellable", test_run_cancellable);
  ADD ("lifecycle/hello-signal", test_hello_signal);
  ADD ("lifecycle/host-gone", test_host_gone);
  ADD ("call-tool/parent-and-key", test_call_tool_parent_and_key);
  ADD ("call-tool/key-needs-durable", test_call_tool_key_needs_durable);
  ADD ("call-tool/refused", test_call_tool_refused);
  ADD ("call-tool/concurrent", test_call_tool_concurrent);
  ADD ("call-tool/cancel", test_call_tool_cancel);
  ADD ("inbound/oversized-and-bad-lines", test_oversized_line_skipped);
  ADD ("commands", test_commands);
  ADD ("events", test_events);
  ADD ("interceptors", test_interceptors);
  ADD ("panels", test_panels);
  ADD ("panels/without-widgets", test_panels_without_widgets);
  ADD ("notes", test_notes);
  ADD ("tool/full-results", test_full_results);
  ADD ("tool/replay", test_replay);
  ADD ("tool/dynamic", test_dynamic);

  return g_test_run ();
}
