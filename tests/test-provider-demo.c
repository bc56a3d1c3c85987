/* test-provider-demo.c — the offline model's mini-syntax. */
#include "config.h"

#include "zot-agent.h"
#include "zot-demo-provider.h"
#include "zot-message.h"
#include "zot-test-util.h"

typedef struct
{
  gboolean          done;
  ZotProviderReply *reply;
  GError           *error;
  GString          *deltas;
  guint             n_deltas;
} Call;

static void
on_delta (ZotProvider *provider,
          const char  *delta,
          Call        *call)
{
  g_string_append (call->deltas, delta);
  call->n_deltas++;
}

static void
stream_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Call *call = user_data;

  call->reply = zot_provider_stream_finish (ZOT_PROVIDER (object), result, &call->error);
  call->done = TRUE;
}

static void
call_clear (Call *call)
{
  g_clear_pointer (&call->reply, zot_provider_reply_free);
  g_clear_error (&call->error);
  if (call->deltas != NULL)
    g_string_free (call->deltas, TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Call, call_clear)

static void
run (JsonArray    *messages,
     GCancellable *cancellable,
     Call         *call)
{
  g_autoptr(ZotProvider) provider = zot_demo_provider_new ();
  g_autoptr(ZotProviderRequest) request = zot_provider_request_new ();

  call->deltas = g_string_new (NULL);
  request->messages = json_array_ref (messages);
  request->model = g_strdup ("demo");
  g_signal_connect (provider, "text-delta", G_CALLBACK (on_delta), call);
  zot_provider_stream_async (provider, request, cancellable, stream_cb, call);
  zot_test_wait_for (&call->done, 10000);
  g_signal_handlers_disconnect_by_data (provider, call);
  g_assert_finalize_object (g_steal_pointer (&provider));
}

static JsonArray *
one_user_message (const char *text)
{
  JsonArray *messages = json_array_new ();

  json_array_add_object_element (messages, zot_message_new_user_text (text));
  return messages;
}

static void
test_echo (void)
{
  g_autoptr(JsonArray) messages = one_user_message ("Bonjour, où est la gare ?");
  g_auto(Call) call = { 0 };
  g_autofree char *text = NULL;

  run (messages, NULL, &call);
  g_assert_no_error (call.error);
  text = zot_message_get_text (call.reply->message);
  g_assert_nonnull (strstr (text, "You said: Bonjour, où est la gare ?"));
  g_assert_nonnull (strstr (text, "demo"));
  /* Streamed in several pieces that add up to the whole. */
  g_assert_cmpuint (call.n_deltas, >, 3);
  g_assert_cmpstr (call.deltas->str, ==, text);
  g_assert_true (g_utf8_validate (call.deltas->str, -1, NULL));
  g_assert_cmpstr (call.reply->stop_reason, ==, "end_turn");
  g_assert_cmpint (call.reply->input_tokens, >, 0);
  g_assert_cmpint (call.reply->output_tokens, >, 0);
}

/* Images in the message are acknowledged, so a window user sees they went. */
static void
test_echo_images (void)
{
  static const char png[] = "\x89PNG\r\n\x1a\nrest";
  g_autoptr(GBytes) bytes = g_bytes_new_static (png, sizeof png - 1);
  g_autoptr(JsonObject) image = zot_image_block_new (bytes, "a.png", NULL);
  g_autoptr(JsonArray) images = json_array_new ();
  g_autoptr(JsonArray) messages = json_array_new ();
  g_auto(Call) call = { 0 };
  g_autofree char *text = NULL;

  json_array_add_object_element (images, json_object_ref (image));
  json_array_add_object_element (images, json_object_ref (image));
  json_array_add_object_element (messages, zot_message_new_user ("look", images));
  run (messages, NULL, &call);
  g_assert_no_error (call.error);
  text = zot_message_get_text (call.reply->message);
  g_assert_nonnull (strstr (text, "You said: look (and 2 images, which it cannot see)"));
}

static void
test_tool_lines (void)
{
  g_autoptr(JsonArray) messages = one_user_message ("please\n"
                                                    "tool: read {\"path\": \"a.txt\"}\n"
                                                    "  tool: bash\n"
                                                    "tool: edit {broken\n");
  g_auto(Call) call = { 0 };
  JsonArray *content;
  JsonObject *block;

  run (messages, NULL, &call);
  g_assert_no_error (call.error);
  g_assert_cmpstr (call.reply->stop_reason, ==, "tool_use");
  content = json_object_get_array_member (call.reply->message, "content");
  g_assert_cmpuint (json_array_get_length (content), ==, 4);

  block = json_array_get_object_element (content, 1);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "tool_use");
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (block, "input"), "path"), ==, "a.txt");

  block = json_array_get_object_element (content, 2);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "bash");
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (block, "input")), ==, 0);

  block = json_array_get_object_element (content, 3);
  g_assert_cmpstr (json_object_get_string_member (block, "name"), ==, "edit");
  g_assert_cmpstr (json_object_get_string_member (block, "input_raw"), ==, "{broken");

  /* Ids are unique within the message. */
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 1), "id"), !=,
                   json_object_get_string_member (json_array_get_object_element (content, 2), "id"));
}

static void
test_summarise_results (void)
{
  g_autoptr(JsonArray) messages = one_user_message ("tool: bash");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(Call) call = { 0 };
  g_autofree char *text = NULL;

  g_assert_true (json_parser_load_from_data (parser,
    "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"is_error\":false,"
    "\"content\":[{\"type\":\"text\",\"text\":\"forty-two\"}]},"
    "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"is_error\":true,"
    "\"content\":[{\"type\":\"text\",\"text\":\"no such file\"}]}]}", -1, NULL));
  json_array_add_object_element (messages, json_object_ref (json_node_get_object (json_parser_get_root (parser))));

  run (messages, NULL, &call);
  text = zot_message_get_text (call.reply->message);
  g_assert_nonnull (strstr (text, "2 tool calls finished"));
  g_assert_nonnull (strstr (text, "t1 returned: forty-two"));
  g_assert_nonnull (strstr (text, "t2 failed: no such file"));
  g_assert_cmpstr (call.reply->stop_reason, ==, "end_turn");
}

static void
test_compaction_summary (void)
{
  g_autoptr(JsonArray) messages = one_user_message ("fix the login bug");
  g_auto(Call) call = { 0 };
  g_autofree char *text = NULL;

  json_array_add_object_element (messages, zot_message_new_assistant_text ("ok"));
  json_array_add_object_element (messages, zot_message_new_user_text (ZOT_COMPACT_PROMPT));
  run (messages, NULL, &call);
  text = zot_message_get_text (call.reply->message);
  g_assert_nonnull (strstr (text, "fix the login bug"));
  g_assert_null (strstr (text, "Summarise this conversation"));
}

static void
test_cancel (void)
{
  g_autoptr(JsonArray) messages = one_user_message ("hello");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_auto(Call) call = { 0 };

  g_cancellable_cancel (cancellable);
  run (messages, cancellable, &call);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (call.reply);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/provider/demo/echo", test_echo);
  g_test_add_func ("/zot/provider/demo/echo-images", test_echo_images);
  g_test_add_func ("/zot/provider/demo/tool-lines", test_tool_lines);
  g_test_add_func ("/zot/provider/demo/summarise-results", test_summarise_results);
  g_test_add_func ("/zot/provider/demo/compaction-summary", test_compaction_summary);
  g_test_add_func ("/zot/provider/demo/cancel", test_cancel);

  return g_test_run ();
}
