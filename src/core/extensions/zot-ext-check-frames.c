/* zot-ext-check-frames.c — the checker's side of every frame the
 * extension writes: registrations held to the host's own rules, replies
 * matched to live requests, nested calls answered, and the rules of
 * PROTOCOL.md each frame can break.
 */
#define G_LOG_DOMAIN "zot-ext-check"

#include "config.h"

#include <string.h>

#include "zot-error.h"
#include "zot-ext-check-private.h"
#include "zot-extension.h"
#include "zot-extension-tool.h"
#include "zot-json.h"
#include "zot-limits.h"

static void
handle_register_tool (Check      *check,
                      JsonObject *frame)
{
  g_autoptr(GError) error = NULL;
  const char *name;

  if (!zot_extension_tool_check_frame (frame, &error))
    {
      _zot_ext_check_violation (check, "invalid-registration", frame, error->message);
      return;
    }

  name = zot_json_get_string (frame, "name");
  if (g_hash_table_contains (check->tool_names, name))
    {
      g_autofree char *detail = g_strdup_printf ("tool \"%s\" registered twice", name);
      _zot_ext_check_violation (check, "invalid-registration", frame, detail);
      return;
    }

  g_hash_table_add (check->tool_names, g_strdup (name));
  g_ptr_array_add (check->tools, json_object_ref (frame));
}

static void
handle_register_command (Check      *check,
                         JsonObject *frame)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  const char *name = zot_json_get_string (frame, "name");

  while (name != NULL && *name == '/')
    name++;

  if (!zot_extension_check_command_name (name, &error))
    {
      _zot_ext_check_violation (check, "invalid-registration", frame, error->message);
      return;
    }

  key = g_ascii_strdown (name, -1);
  if (g_hash_table_contains (check->command_keys, key))
    {
      g_autofree char *detail = g_strdup_printf ("command \"%s\" registered twice", name);
      _zot_ext_check_violation (check, "invalid-registration", frame, detail);
      return;
    }

  g_hash_table_add (check->command_keys, g_steal_pointer (&key));
  g_ptr_array_add (check->commands, g_strdup (name));
}

/* unregister_tool, unregister_command: the name must be one of the
 * extension's own registrations (the host logs any other and ignores it). */
static void
handle_unregister (Check      *check,
                   JsonObject *frame,
                   gboolean    tool)
{
  const char *name = zot_json_get_string (frame, "name");
  g_autofree char *key = NULL;
  g_autofree char *detail = NULL;

  while (!tool && name != NULL && *name == '/')
    name++;
  key = tool || name == NULL ? g_strdup (name) : g_ascii_strdown (name, -1);

  if (key != NULL && g_hash_table_remove (tool ? check->tool_names : check->command_keys, key))
    {
      for (guint i = 0; tool && i < check->tools->len; i++)
        if (g_strcmp0 (zot_json_get_string (g_ptr_array_index (check->tools, i), "name"), name) == 0)
          g_ptr_array_remove_index (check->tools, i--);
      for (guint i = 0; !tool && i < check->commands->len; i++)
        if (g_ascii_strcasecmp (g_ptr_array_index (check->commands, i), name) == 0)
          g_ptr_array_remove_index (check->commands, i--);
      return;
    }

  detail = g_strdup_printf ("%s \"%s\": no %s of that name is registered",
                            tool ? "unregister_tool" : "unregister_command",
                            name != NULL ? name : "", tool ? "tool" : "command");
  _zot_ext_check_violation (check, "invalid-registration", frame, detail);
}

/* tool_progress names a tool call the check sent; a late one (the call
 * was answered or cancelled meanwhile) is a race the host ignores. */
static void
handle_tool_progress (Check      *check,
                      JsonObject *frame)
{
  const char *id = zot_json_get_string (frame, "id");
  CheckRequest *request = id != NULL ? g_hash_table_lookup (check->requests, id) : NULL;

  if (zot_json_get_string (frame, "text") == NULL)
    _zot_ext_check_violation (check, "unknown-id", frame, "tool_progress needs a string id and text");
  else if (request == NULL || request->kind != CHECK_REQUEST_TOOL)
    _zot_ext_check_violation (check, "unknown-id", frame, NULL);
  else
    /* The scenario looks for sc_progress's. */
    g_ptr_array_add (check->inbox, json_object_ref (frame));
}

static void
add_names (Check      *check,
           GHashTable *set,
           JsonObject *frame,
           const char *member)
{
  JsonNode *node = json_object_get_member (frame, member);
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_autofree char *detail = g_strdup_printf ("subscribe: \"%s\" is not an array", member);
      _zot_ext_check_violation (check, "invalid-registration", frame, detail);
      return;
    }

  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_hash_table_add (set, g_strdup (json_node_get_string (element)));
    }
}

static CheckRequestKind
reply_kind (const char *type)
{
  if (g_str_equal (type, "command_response"))
    return CHECK_REQUEST_COMMAND;
  if (g_str_equal (type, "event_intercept_response"))
    return CHECK_REQUEST_INTERCEPT;
  return CHECK_REQUEST_TOOL;
}

static void
handle_reply (Check      *check,
              JsonObject *frame,
              const char *type)
{
  const char *id = zot_json_get_string (frame, "id");
  CheckRequest *request = id != NULL ? g_hash_table_lookup (check->requests, id) : NULL;

  if (request == NULL || request->kind != reply_kind (type))
    {
      _zot_ext_check_violation (check, "unknown-id", frame, NULL);
      return;
    }

  switch (request->state)
    {
    case CHECK_REQUEST_PENDING:
      /* shutdown cancels every running handler */
      if (check->shutdown_sent && request->kind == CHECK_REQUEST_TOOL)
        _zot_ext_check_violation (check, "reply-after-shutdown", frame, NULL);
      request->state = CHECK_REQUEST_REPLIED;
      request->reply = json_object_ref (frame);
      break;

    case CHECK_REQUEST_REPLIED:
      _zot_ext_check_violation (check, "second-reply", frame, NULL);
      break;

    case CHECK_REQUEST_CANCELLED:
      if (request->cancel_raced && !(check->flags & ZOT_EXT_CHECK_SCENARIO))
        {
          /* Not provable: the answer may have left before the cancel came. */
          _zot_ext_check_note (check, "answered although cancelled; the reply may have crossed the cancel",
                               frame);
        }
      else
        _zot_ext_check_violation (check, "reply-after-cancel", frame, NULL);
      request->state = CHECK_REQUEST_REPLIED;
      request->reply = json_object_ref (frame);
      break;

    case CHECK_REQUEST_ABANDONED:
    default:
      /* The host dropped the call at its deadline; that was reported. */
      request->state = CHECK_REQUEST_REPLIED;
      request->reply = json_object_ref (frame);
      break;
    }
}

static gboolean
has_running_tool_call (Check *check)
{
  GHashTableIter iter;
  CheckRequest *request;

  g_hash_table_iter_init (&iter, check->requests);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &request))
    if (request->kind == CHECK_REQUEST_TOOL && request->state == CHECK_REQUEST_PENDING)
      return TRUE;
  return FALSE;
}

static void
answer_nested (Check      *check,
               const char *id,
               const char *name,
               const char *text,
               gboolean    is_error)
{
  g_autoptr(JsonObject) reply = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (content, block);

  json_object_set_string_member (reply, "type", "tool_result");
  json_object_set_string_member (reply, "id", id);
  json_object_set_string_member (reply, "name", name);
  json_object_set_array_member (reply, "content", content);
  json_object_set_boolean_member (reply, "is_error", is_error);
  json_object_set_boolean_member (reply, "truncated", FALSE);
  _zot_ext_check_send (check, reply, TRUE);
}

/* The checker plays the host's tool registry for nested calls: `read`
 * answers a fixed text, any other tool is unknown. */
static void
handle_call_tool (Check      *check,
                  JsonObject *frame)
{
  const char *id = zot_json_get_string (frame, "id");
  const char *name = zot_json_get_string (frame, "name");
  const char *parent_id = zot_json_get_string (frame, "parent_id");
  JsonNode *key_node = json_object_get_member (frame, "key");
  JsonObject *args = zot_json_get_object (frame, "args");
  CheckRequest *parent = NULL;
  const char *refusal = NULL;

  g_ptr_array_add (check->nested, json_object_ref (frame));

  if (id == NULL || name == NULL)
    {
      _zot_ext_check_violation (check, "unknown-id", frame, "call_tool needs a string id and name");
      return;
    }

  if (!_zot_ext_check_has_capability (check, "call_tool"))
    {
      _zot_ext_check_violation (check, "no-call-tool-capability", frame, NULL);
      refusal = "refused: the extension did not advertise call_tool";
    }
  else if (parent_id == NULL)
    {
      if (has_running_tool_call (check))
        {
          _zot_ext_check_violation (check, "nested-without-parent", frame, NULL);
          refusal = "refused: a call_tool without parent_id while a tool call runs";
        }
    }
  else
    {
      parent = g_hash_table_lookup (check->requests, parent_id);
      if (parent != NULL && parent->kind == CHECK_REQUEST_TOOL && parent->state == CHECK_REQUEST_CANCELLED)
        {
          /* The call may have left before the cancel arrived: the host
           * refuses it, but the extension did nothing wrong. */
          refusal = "cancelled: the parent call was cancelled";
        }
      else if (parent == NULL || parent->kind != CHECK_REQUEST_TOOL || parent->state != CHECK_REQUEST_PENDING)
        {
          _zot_ext_check_violation (check, "nested-dead-parent", frame, NULL);
          refusal = "refused: parent_id is no running call";
        }
    }

  if (key_node != NULL && !JSON_NODE_HOLDS_NULL (key_node))
    {
      const char *key = zot_json_get_string (frame, "key");

      if (!check->durable)
        _zot_ext_check_violation (check, "key-without-durable", frame, NULL);
      else if (key == NULL || *key == '\0' || strlen (key) > ZOT_DURABLE_KEY_MAX_BYTES ||
               strchr (key, '/') != NULL)
        _zot_ext_check_violation (check, "bad-key", frame,
                                  "a key is a string of 1 to 128 bytes without \"/\"");
    }

  if (refusal != NULL)
    answer_nested (check, id, name, refusal, TRUE);
  else if (g_str_equal (name, "read"))
    {
      const char *path = args != NULL ? zot_json_get_string (args, "path") : NULL;

      if (g_strcmp0 (path, ZOT_EXT_CHECK_MISSING_PATH) == 0)
        answer_nested (check, id, name, ZOT_EXT_CHECK_MISSING_PATH ": no such file", TRUE);
      else
        answer_nested (check, id, name, ZOT_EXT_CHECK_READ_TEXT, FALSE);
    }
  else
    answer_nested (check, id, name, "unknown tool", TRUE);
}

void
_zot_ext_check_on_frame_received (ZotFrameChannel *channel,
                                  JsonObject      *frame,
                                  gpointer         user_data)
{
  Check *check = user_data;
  const char *type = zot_json_get_string (frame, "type");

  check->n_frames++;
  check->last_frame_us = g_get_monotonic_time ();
  _zot_ext_check_step_record (check, "answered", frame);

  if (g_str_equal (type, "hello"))
    {
      if (!check->got_hello)
        {
          g_autoptr(GStrvBuilder) caps = g_strv_builder_new ();
          JsonArray *array = zot_json_get_array (frame, "capabilities");

          for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
            {
              JsonNode *element = json_array_get_element (array, i);

              if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
                g_strv_builder_add (caps, json_node_get_string (element));
            }
          check->capabilities = g_strv_builder_end (caps);
          check->hello = json_object_ref (frame);
          check->got_hello = TRUE;
        }
    }
  else if (!check->got_hello)
    {
      /* The host takes nothing before hello. */
      g_ptr_array_add (check->inbox, json_object_ref (frame));
    }
  else if (g_str_equal (type, "register_tool"))
    handle_register_tool (check, frame);
  else if (g_str_equal (type, "register_command"))
    handle_register_command (check, frame);
  else if (g_str_equal (type, "unregister_tool") || g_str_equal (type, "unregister_command"))
    handle_unregister (check, frame, g_str_equal (type, "unregister_tool"));
  else if (g_str_equal (type, "tool_progress"))
    handle_tool_progress (check, frame);
  else if (g_str_equal (type, "subscribe"))
    {
      add_names (check, check->events, frame, "events");
      add_names (check, check->intercepts, frame, "intercept");
    }
  else if (g_str_equal (type, "ready"))
    check->got_ready = TRUE;
  else if (g_str_equal (type, "tool_result") || g_str_equal (type, "command_response") ||
           g_str_equal (type, "event_intercept_response"))
    handle_reply (check, frame, type);
  else if (g_str_equal (type, "call_tool"))
    handle_call_tool (check, frame);
  else if (g_str_equal (type, "shutdown_ack"))
    check->got_ack = TRUE;
  else
    g_ptr_array_add (check->inbox, json_object_ref (frame));
}

void
_zot_ext_check_on_bad_line (ZotFrameChannel *channel,
                            const char      *message,
                            gpointer         user_data)
{
  Check *check = user_data;

  _zot_ext_check_violation (check, "not-a-frame", NULL, message);
}

void
_zot_ext_check_on_closed (ZotFrameChannel *channel,
                          const GError    *error,
                          gpointer         user_data)
{
  Check *check = user_data;

  check->channel_closed = TRUE;

  if (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_FRAME_TOO_LARGE))
    {
      _zot_ext_check_violation (check, "frame-too-large", NULL, error->message);
      check->fatal = TRUE;
      return;
    }

  if (!check->stopping && check->got_hello)
    {
      _zot_ext_check_violation (check, "early-exit", NULL,
                                "the extension's output ended before shutdown");
      check->fatal = TRUE;
    }
}

void
_zot_ext_check_on_process_exited_cb (GObject      *object,
                                     GAsyncResult *result,
                                     gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  Check *check;

  /* A session given up on its process (it outlived SIGKILL's deadline)
   * cancels the wait: the check may be gone by now. */
  if (!g_subprocess_wait_finish (G_SUBPROCESS (object), result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  check = user_data;
  check->exited = TRUE;
}
