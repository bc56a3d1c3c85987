/* zot-ext-check.c — the checker's engine: a session with one extension
 * process, the rules every frame it writes is held to, and the generic
 * run (docs/ext-check.md).
 *
 * The run reads as a script, step after step; each wait turns the main
 * context until its condition holds or its deadline passes, so that the
 * frames of the extension are read, checked and answered (nested calls)
 * while any step waits. Every deadline is one of zot-limits.h, read
 * through zot_timeout_get_ms() so that tests shorten them.
 */
#define G_LOG_DOMAIN "zot-ext-check"

#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "zot-command-reply.h"
#include "zot-error.h"
#include "zot-ext-check-private.h"
#include "zot-extension.h"
#include "zot-extension-tool.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-names.h"
#include "zot-paths.h"

/* How long the first tool runs before the generic cancel-after-start step
 * sends its cancel. A checker's choice, not a protocol number: long enough
 * for a handler to have started, short enough not to slow the run. */
#define CHECK_CANCEL_GRACE_MS       200
/* A shortened frame in a violation line. */
#define CHECK_FRAME_EXCERPT_CHARS   160

/* The rules, each with the place in the spec that states it. */
static const struct
{
  const char *rule;
  const char *text;
  const char *section;
} rules[] = {
  { "no-hello",             "no hello",                                      "PROTOCOL.md §2" },
  { "invalid-registration", "invalid registration",                          "PROTOCOL.md §3, §4" },
  { "unknown-id",           "reply to an unknown id",                        "PROTOCOL.md §0" },
  { "second-reply",         "second reply",                                  "PROTOCOL.md §0" },
  { "reply-after-cancel",   "reply after cancel",                            "PROTOCOL.md §4" },
  { "frame-too-large",      "frame over 4 MiB",                              "PROTOCOL.md §0" },
  { "not-a-frame",          "write to stdout that is not a frame",           "PROTOCOL.md §0" },
  { "no-shutdown-ack",      "no shutdown_ack",                               "PROTOCOL.md §9" },
  { "no-exit",              "no exit within the shutdown grace",             "PROTOCOL.md §9" },
  { "early-exit",           "exit before shutdown",                          "PROTOCOL.md §9" },
  { "slow-interceptor",     "interceptor slower than its deadline",          "PROTOCOL.md §7" },
  { "bad-intercept-reply",  "malformed intercept reply",                     "PROTOCOL.md §7" },
  { "no-call-tool-capability", "call_tool without the call_tool capability", "PROTOCOL.md §5" },
  { "nested-without-parent", "nested call without parent_id",                "PROTOCOL.md §5" },
  { "nested-dead-parent",   "nested call with a dead parent_id",             "PROTOCOL.md §5" },
  { "key-without-durable",  "key sent to a host without call_tool_durable",  "PROTOCOL.md §5" },
  { "bad-key",              "invalid key",                                   "PROTOCOL.md §5" },
  { "unknown-action",       "command response with an unknown action",       "PROTOCOL.md §3" },
  { "bad-command-response", "command response without what its action needs", "PROTOCOL.md §3" },
};

static void
request_free (CheckRequest *request)
{
  g_free (request->id);
  g_free (request->name);
  g_clear_pointer (&request->sent, json_object_unref);
  g_clear_pointer (&request->reply, json_object_unref);
  g_free (request);
}

char *
_zot_ext_check_shorten (JsonObject *frame)
{
  g_autofree char *line = NULL;
  glong chars;

  if (frame == NULL)
    return g_strdup ("");

  line = zot_json_object_to_string (frame);
  chars = g_utf8_strlen (line, -1);
  if (chars <= CHECK_FRAME_EXCERPT_CHARS)
    return g_steal_pointer (&line);

  /* Cut inside the object, so that the line still reads as a frame. */
  return g_strdup_printf ("%.*s...}", (int) (g_utf8_offset_to_pointer (line, CHECK_FRAME_EXCERPT_CHARS) - line),
                          line);
}

static void
emit (Check      *check,
      const char *kind,
      JsonObject *item)
{
  if (check->func != NULL)
    check->func (kind, item, check->user_data);
}

void
_zot_ext_check_violation (Check      *check,
                          const char *rule,
                          JsonObject *frame,
                          const char *detail)
{
  g_autoptr(JsonObject) item = json_object_new ();
  g_autofree char *shown = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rules); i++)
    if (g_str_equal (rules[i].rule, rule))
      break;
  g_assert (i < G_N_ELEMENTS (rules));

  json_object_set_string_member (item, "rule", rule);
  json_object_set_string_member (item, "text", rules[i].text);
  json_object_set_string_member (item, "section", rules[i].section);
  if (frame != NULL)
    {
      shown = _zot_ext_check_shorten (frame);
      json_object_set_string_member (item, "frame", shown);
    }
  if (detail != NULL)
    json_object_set_string_member (item, "detail", detail);
  if (check->step != NULL)
    json_object_set_string_member (item, "step", json_object_get_string_member (check->step, "name"));

  json_array_add_object_element (check->violations, json_object_ref (item));
  emit (check, "violation", item);
}

/* Steps ------------------------------------------------------------------ */

void
_zot_ext_check_step_begin (Check      *check,
                           const char *format,
                           ...)
{
  g_autofree char *name = NULL;
  va_list args;

  g_assert (check->step == NULL);

  va_start (args, format);
  name = g_strdup_vprintf (format, args);
  va_end (args);

  if (check->durable && (check->flags & ZOT_EXT_CHECK_SCENARIO))
    {
      char *prefixed = g_strconcat ("durable: ", name, NULL);
      g_free (name);
      name = prefixed;
    }

  check->step = json_object_new ();
  json_object_set_string_member (check->step, "name", name);
  json_object_set_array_member (check->step, "sent", json_array_new ());
  json_object_set_array_member (check->step, "answered", json_array_new ());
}

void
_zot_ext_check_step_end (Check      *check,
                         gboolean    ok,
                         const char *format,
                         ...)
{
  g_autoptr(JsonObject) step = g_steal_pointer (&check->step);

  g_assert (step != NULL);

  json_object_set_string_member (step, "status", ok ? "ok" : "fail");
  if (format != NULL)
    {
      g_autofree char *detail = NULL;
      va_list args;

      va_start (args, format);
      detail = g_strdup_vprintf (format, args);
      va_end (args);
      json_object_set_string_member (step, "detail", detail);
    }
  if (!ok)
    check->n_failed++;

  json_array_add_object_element (check->steps, json_object_ref (step));
  emit (check, "step", step);
}

static void
step_skip (Check      *check,
           const char *name,
           const char *why)
{
  g_autoptr(JsonObject) step = json_object_new ();

  json_object_set_string_member (step, "name", name);
  json_object_set_string_member (step, "status", "skip");
  json_object_set_string_member (step, "detail", why);
  json_array_add_object_element (check->steps, json_object_ref (step));
  emit (check, "step", step);
}

static void
step_record (Check      *check,
             const char *member,
             JsonObject *frame)
{
  if (check->step != NULL)
    json_array_add_object_element (json_object_get_array_member (check->step, member),
                                   json_object_ref (frame));
}

/* Waiting ---------------------------------------------------------------- */

typedef gboolean (*CheckCondition) (Check    *check,
                                    gpointer  data);

static gboolean
on_deadline_cb (gpointer user_data)
{
  gboolean *expired = user_data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

/* Turns the main context until @condition holds, the channel closes or
 * @timeout_ms pass. Returns whether @condition held. */
static gboolean
wait_until (Check          *check,
            CheckCondition  condition,
            gpointer        data,
            guint           timeout_ms)
{
  gboolean expired = FALSE;
  guint deadline;

  if (condition (check, data))
    return TRUE;

  deadline = g_timeout_add (timeout_ms, on_deadline_cb, &expired);
  while (!condition (check, data) && !expired && !check->channel_closed)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (deadline);

  return condition (check, data);
}

/* As wait_until(), but also waits past the channel's end: for the exit. */
static gboolean
wait_even_closed (Check          *check,
                  CheckCondition  condition,
                  gpointer        data,
                  guint           timeout_ms)
{
  gboolean expired = FALSE;
  guint deadline;

  if (condition (check, data))
    return TRUE;

  deadline = g_timeout_add (timeout_ms, on_deadline_cb, &expired);
  while (!condition (check, data) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (deadline);

  return condition (check, data);
}

/* Sending ---------------------------------------------------------------- */

void
_zot_ext_check_send (Check      *check,
                     JsonObject *frame,
                     gboolean    now)
{
  g_autoptr(GError) error = NULL;

  step_record (check, "sent", frame);
  if (check->channel == NULL || check->channel_closed)
    return;
  if (!zot_frame_channel_send (check->channel, frame, now ? ZOT_FRAME_NOW : ZOT_FRAME_NONE, &error))
    g_debug ("cannot send %s: %s", zot_json_get_string (frame, "type"), error->message);
}

CheckRequest *
_zot_ext_check_request (Check            *check,
                        CheckRequestKind  kind,
                        const char       *name,
                        JsonObject       *frame,
                        gboolean          now)
{
  CheckRequest *request = g_new0 (CheckRequest, 1);

  request->id = g_strdup_printf ("check-%u", ++check->next_id);
  request->kind = kind;
  request->name = g_strdup (name);
  request->sent = json_object_ref (frame);
  json_object_set_string_member (frame, "id", request->id);
  g_hash_table_insert (check->requests, request->id, request);

  _zot_ext_check_send (check, frame, now);
  return request;
}

static gboolean
request_answered (Check    *check,
                  gpointer  data)
{
  CheckRequest *request = data;

  return request->state != CHECK_REQUEST_PENDING;
}

/* Returns (transfer none) the reply, or NULL when none came in time: the
 * request is then left pending for the caller to cancel or abandon. */
JsonObject *
_zot_ext_check_wait_reply (Check        *check,
                           CheckRequest *request,
                           guint         timeout_ms)
{
  wait_until (check, request_answered, request, timeout_ms);
  return request->state == CHECK_REQUEST_REPLIED ? request->reply : NULL;
}

void
_zot_ext_check_cancel (Check        *check,
                       CheckRequest *request,
                       gboolean      now)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  json_object_set_string_member (frame, "type", "tool_cancel");
  json_object_set_string_member (frame, "id", request->id);
  request->state = CHECK_REQUEST_CANCELLED;
  _zot_ext_check_send (check, frame, now);
}

typedef struct
{
  const char *type;
  const char *member;
  const char *value;
  guint       index;
} Expected;

static gboolean
find_expected (Check    *check,
               gpointer  data)
{
  Expected *expected = data;

  for (guint i = 0; i < check->inbox->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (check->inbox, i);

      if (g_strcmp0 (zot_json_get_string (frame, "type"), expected->type) != 0)
        continue;
      if (expected->member != NULL &&
          g_strcmp0 (zot_json_get_string (frame, expected->member), expected->value) != 0)
        continue;
      expected->index = i;
      return TRUE;
    }
  return FALSE;
}

/**
 * _zot_ext_check_expect:
 * @member: (nullable): a string member the frame must have, with @value
 *
 * Waits for a frame that answers no request (a note, a panel), the oldest
 * first, and takes it out of the inbox.
 *
 * Returns: (transfer full) (nullable): the frame
 */
JsonObject *
_zot_ext_check_expect (Check      *check,
                       const char *type,
                       const char *member,
                       const char *value,
                       guint       timeout_ms)
{
  Expected expected = { type, member, value, 0 };

  if (!wait_until (check, find_expected, &expected, timeout_ms))
    return NULL;
  return g_ptr_array_steal_index (check->inbox, expected.index);
}

static gboolean
nested_count_reached (Check    *check,
                      gpointer  data)
{
  return check->nested->len >= GPOINTER_TO_UINT (data);
}

gboolean
_zot_ext_check_wait_nested (Check *check,
                            guint  count,
                            guint  timeout_ms)
{
  return wait_until (check, nested_count_reached, GUINT_TO_POINTER (count), timeout_ms);
}

gboolean
_zot_ext_check_has_capability (Check      *check,
                               const char *capability)
{
  return check->capabilities != NULL &&
         g_strv_contains ((const char * const *) check->capabilities, capability);
}

JsonObject *
_zot_ext_check_find_tool (Check      *check,
                          const char *name)
{
  for (guint i = 0; i < check->tools->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (check->tools, i);

      if (g_strcmp0 (zot_json_get_string (frame, "name"), name) == 0)
        return frame;
    }
  return NULL;
}

char *
_zot_ext_check_result_text (JsonObject *result)
{
  g_autoptr(GString) text = g_string_new (NULL);
  JsonArray *content;

  if (result == NULL)
    return g_strdup ("");

  content = zot_json_get_array (result, "content");
  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      const char *block_text;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      block_text = zot_json_get_string (json_node_get_object (node), "text");
      if (block_text == NULL)
        continue;
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, block_text);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* What the extension writes ----------------------------------------------- */

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
          if (check->step != NULL)
            json_object_set_string_member (check->step, "note",
                                           "answered a call cancelled as it was sent; "
                                           "the reply may have crossed the cancel");
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
      if (parent == NULL || parent->kind != CHECK_REQUEST_TOOL || parent->state != CHECK_REQUEST_PENDING)
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

static void
on_frame_received (ZotFrameChannel *channel,
                   JsonObject      *frame,
                   gpointer         user_data)
{
  Check *check = user_data;
  const char *type = zot_json_get_string (frame, "type");

  check->n_frames++;
  check->last_frame_us = g_get_monotonic_time ();
  step_record (check, "answered", frame);

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

static void
on_bad_line (ZotFrameChannel *channel,
             const char      *message,
             gpointer         user_data)
{
  Check *check = user_data;

  _zot_ext_check_violation (check, "not-a-frame", NULL, message);
}

static void
on_closed (ZotFrameChannel *channel,
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

static void
on_process_exited_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Check *check = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  check->exited = TRUE;
}

/* A session ---------------------------------------------------------------- */

static void
session_clear (Check *check)
{
  if (check->channel != NULL)
    {
      g_signal_handlers_disconnect_by_data (check->channel, check);
      zot_frame_channel_close (check->channel);
    }
  g_clear_object (&check->channel);
  g_clear_object (&check->process);
  g_clear_pointer (&check->hello, json_object_unref);
  g_clear_pointer (&check->capabilities, g_strfreev);
  g_clear_pointer (&check->tools, g_ptr_array_unref);
  g_clear_pointer (&check->commands, g_ptr_array_unref);
  g_clear_pointer (&check->tool_names, g_hash_table_unref);
  g_clear_pointer (&check->command_keys, g_hash_table_unref);
  g_clear_pointer (&check->events, g_hash_table_unref);
  g_clear_pointer (&check->intercepts, g_hash_table_unref);
  g_clear_pointer (&check->requests, g_hash_table_unref);
  g_clear_pointer (&check->inbox, g_ptr_array_unref);
  g_clear_pointer (&check->nested, g_ptr_array_unref);
  check->exited = check->channel_closed = check->fatal = check->stopping = FALSE;
  check->got_hello = check->got_ready = check->got_ack = FALSE;
  check->n_frames = 0;
}

static gboolean
session_spawn (Check     *check,
               gboolean   durable,
               GError   **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *program = NULL;
  const char * const *args = zot_manifest_get_args (check->manifest);

  session_clear (check);
  check->durable = durable;
  check->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  check->commands = g_ptr_array_new_with_free_func (g_free);
  check->tool_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  check->command_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  check->events = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  check->intercepts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  check->requests = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) request_free);
  check->inbox = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  check->nested = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  program = zot_manifest_resolve_exec (check->manifest, error);
  if (program == NULL)
    return FALSE;

  g_ptr_array_add (argv, g_steal_pointer (&program));
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_cwd (launcher, check->directory);
  g_subprocess_launcher_set_stderr_file_path (launcher, check->log_path);

  check->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, error);
  if (check->process == NULL)
    return FALSE;

  check->channel = zot_frame_channel_new (g_subprocess_get_stdout_pipe (check->process),
                                          g_subprocess_get_stdin_pipe (check->process));
  g_signal_connect (check->channel, "frame-received", G_CALLBACK (on_frame_received), check);
  g_signal_connect (check->channel, "bad-line", G_CALLBACK (on_bad_line), check);
  g_signal_connect (check->channel, "closed", G_CALLBACK (on_closed), check);
  zot_frame_channel_start (check->channel);
  g_subprocess_wait_async (check->process, NULL, on_process_exited_cb, check);
  check->last_frame_us = g_get_monotonic_time ();
  return TRUE;
}

static gboolean
got_hello (Check    *check,
           gpointer  data)
{
  return check->got_hello;
}

static gboolean
registration_done (Check    *check,
                   gpointer  data)
{
  guint64 *seen = data;

  return check->got_ready || check->n_frames != *seen;
}

static JsonObject *
make_hello_ack (Check *check)
{
  JsonObject *ack = json_object_new ();
  JsonArray *caps = json_array_new ();
  g_autofree char *cwd = g_get_current_dir ();

  json_object_set_string_member (ack, "type", "hello_ack");
  json_object_set_int_member (ack, "protocol_version", ZOT_PROTOCOL_VERSION);
  json_object_set_string_member (ack, "zot_version", PACKAGE_VERSION);
  json_object_set_string_member (ack, "provider", "check");
  json_object_set_string_member (ack, "model", "check");
  json_object_set_string_member (ack, "cwd", cwd);
  json_object_set_string_member (ack, "extension_dir", check->directory);
  json_object_set_string_member (ack, "data_dir", check->directory);
  json_array_add_string_element (caps, "call_tool");
  if (check->durable)
    json_array_add_string_element (caps, "call_tool_durable");
  json_array_add_string_element (caps, "panels");
  json_array_add_string_element (caps, "interactive_tools");
  json_array_add_string_element (caps, "panel_widgets");
  json_object_set_array_member (ack, "capabilities", caps);
  return ack;
}

static JsonObject *
registrations_to_json (Check *check)
{
  JsonObject *object = json_object_new ();
  JsonArray *tools = json_array_new ();
  JsonArray *commands = json_array_new ();
  JsonArray *events = json_array_new ();
  JsonArray *intercepts = json_array_new ();
  g_autofree const char **event_names = NULL;
  g_autofree const char **intercept_names = NULL;

  for (guint i = 0; i < check->tools->len; i++)
    json_array_add_object_element (tools, json_object_ref (g_ptr_array_index (check->tools, i)));
  for (guint i = 0; i < check->commands->len; i++)
    json_array_add_string_element (commands, g_ptr_array_index (check->commands, i));

  event_names = (const char **) g_hash_table_get_keys_as_array (check->events, NULL);
  intercept_names = (const char **) g_hash_table_get_keys_as_array (check->intercepts, NULL);
  for (guint i = 0; event_names[i] != NULL; i++)
    json_array_add_string_element (events, event_names[i]);
  for (guint i = 0; intercept_names[i] != NULL; i++)
    json_array_add_string_element (intercepts, intercept_names[i]);

  if (check->hello != NULL)
    json_object_set_object_member (object, "hello", json_object_ref (check->hello));
  json_object_set_array_member (object, "tools", tools);
  json_object_set_array_member (object, "commands", commands);
  json_object_set_array_member (object, "events", events);
  json_object_set_array_member (object, "intercepts", intercepts);
  json_object_set_boolean_member (object, "ready", check->got_ready);
  return object;
}

/* Hello within its deadline, hello_ack, then registrations until `ready`
 * (or, as the host allows old SDKs, a pause or the cap). */
static gboolean
session_handshake (Check *check)
{
  g_autoptr(JsonObject) ack = NULL;
  gint64 cap_end;

  _zot_ext_check_step_begin (check, "handshake");
  if (!wait_until (check, got_hello, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_HELLO)))
    {
      g_autofree char *detail = NULL;

      detail = check->channel_closed
               ? g_strdup ("the extension's output ended before hello")
               : g_strdup_printf ("nothing within %u ms of the start",
                                  zot_timeout_get_ms (ZOT_TIMEOUT_HELLO));
      _zot_ext_check_violation (check, "no-hello", NULL, detail);
      _zot_ext_check_step_end (check, FALSE, "no hello");
      check->fatal = TRUE;
      return FALSE;
    }

  ack = make_hello_ack (check);
  _zot_ext_check_send (check, ack, TRUE);

  cap_end = g_get_monotonic_time () + (gint64) zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_MAX) * 1000;
  check->last_frame_us = g_get_monotonic_time ();
  while (!check->got_ready && !check->channel_closed)
    {
      gint64 now = g_get_monotonic_time ();
      gint64 idle_end = check->last_frame_us + (gint64) zot_timeout_get_ms (ZOT_TIMEOUT_REGISTRATION_IDLE) * 1000;
      gint64 end = MIN (idle_end, cap_end);
      guint64 seen = check->n_frames;

      if (now >= end)
        break;
      wait_until (check, registration_done, &seen, (guint) ((end - now + 999) / 1000));
    }

  if (check->registrations == NULL)
    check->registrations = registrations_to_json (check);

  if (check->fatal)
    {
      _zot_ext_check_step_end (check, FALSE, "the extension stopped during registration");
      return FALSE;
    }

  _zot_ext_check_step_end (check, TRUE, "%u tools, %u commands, %u events, %u intercepts%s",
                           check->tools->len, check->commands->len,
                           g_hash_table_size (check->events), g_hash_table_size (check->intercepts),
                           check->got_ready ? "" : "; no ready (legacy pause)");
  return TRUE;
}

static gboolean
process_gone (Check    *check,
              gpointer  data)
{
  return check->exited && check->channel_closed;
}

static gboolean
acked_and_gone (Check    *check,
                gpointer  data)
{
  return check->exited && (check->got_ack || check->channel_closed);
}

/* SIGTERM, its grace, then SIGKILL, as the host does. */
static void
session_terminate (Check *check)
{
  if (check->exited || check->process == NULL)
    return;

  g_subprocess_send_signal (check->process, SIGTERM);
  if (wait_even_closed (check, process_gone, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE)))
    return;

  g_subprocess_force_exit (check->process);
  /* SIGKILL cannot be refused; the deadline only keeps a stuck kernel
   * from hanging the checker. */
  wait_even_closed (check, process_gone, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE) * 5);
}

static void
session_stop (Check *check)
{
  g_autoptr(JsonObject) frame = NULL;
  gboolean acked;

  check->stopping = TRUE;

  if (check->fatal)
    {
      step_skip (check, "shutdown", "the session had already failed; the process was stopped");
      session_terminate (check);
      return;
    }

  _zot_ext_check_step_begin (check, "shutdown");
  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "shutdown");
  _zot_ext_check_send (check, frame, TRUE);
  zot_frame_channel_close_output (check->channel);

  acked = wait_even_closed (check, acked_and_gone, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_SHUTDOWN_GRACE));
  if (check->exited && !check->got_ack)
    {
      /* What it wrote before it exited is still read. */
      wait_even_closed (check, process_gone, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_EXIT_DRAIN));
      acked = check->got_ack;
    }

  if (!check->got_ack)
    _zot_ext_check_violation (check, "no-shutdown-ack", NULL, NULL);
  if (!check->exited)
    {
      g_autofree char *detail = g_strdup_printf ("still running %u ms after shutdown; SIGTERM sent",
                                                 zot_timeout_get_ms (ZOT_TIMEOUT_SHUTDOWN_GRACE));
      _zot_ext_check_violation (check, "no-exit", NULL, detail);
      session_terminate (check);
    }

  if (acked && check->exited && g_subprocess_get_if_exited (check->process) &&
      g_subprocess_get_exit_status (check->process) == 0)
    _zot_ext_check_step_end (check, TRUE, "shutdown_ack, exit 0");
  else if (acked && check->exited && g_subprocess_get_if_exited (check->process))
    _zot_ext_check_step_end (check, FALSE, "exit status %d",
                             g_subprocess_get_exit_status (check->process));
  else
    _zot_ext_check_step_end (check, FALSE, "%s", check->got_ack ? "no exit" : "no shutdown_ack");
}

/* Generic steps ----------------------------------------------------------- */

static JsonNode *
example_value (JsonObject *property)
{
  JsonArray *values = zot_json_get_array (property, "enum");
  const char *type = zot_json_get_string (property, "type");
  JsonNode *node;

  if (values != NULL && json_array_get_length (values) > 0)
    return json_node_copy (json_array_get_element (values, 0));

  if (g_strcmp0 (type, "number") == 0 || g_strcmp0 (type, "integer") == 0)
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (node, 1);
    }
  else if (g_strcmp0 (type, "boolean") == 0)
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (node, TRUE);
    }
  else if (g_strcmp0 (type, "object") == 0)
    node = json_node_init_object (json_node_alloc (), json_object_new ());
  else if (g_strcmp0 (type, "array") == 0)
    node = json_node_init_array (json_node_alloc (), json_array_new ());
  else
    node = json_node_init_string (json_node_alloc (), "example");
  return node;
}

/* The manifest's example for @tool, or the schema's required properties
 * filled by type. */
static JsonObject *
example_args (Check      *check,
              JsonObject *tool)
{
  const char *name = zot_json_get_string (tool, "name");
  JsonObject *schema = zot_json_get_object (tool, "schema");
  JsonObject *properties = schema != NULL ? zot_json_get_object (schema, "properties") : NULL;
  JsonArray *required = schema != NULL ? zot_json_get_array (schema, "required") : NULL;
  JsonObject *example = check->examples != NULL ? zot_json_get_object (check->examples, name) : NULL;
  JsonObject *args;

  if (example != NULL)
    return json_object_ref (example);

  args = json_object_new ();
  for (guint i = 0; required != NULL && i < json_array_get_length (required); i++)
    {
      JsonNode *element = json_array_get_element (required, i);
      JsonObject *property = NULL;
      const char *member;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        continue;
      member = json_node_get_string (element);
      if (properties != NULL)
        property = zot_json_get_object (properties, member);
      if (property != NULL)
        json_object_set_member (args, member, example_value (property));
      else
        json_object_set_string_member (args, member, "example");
    }
  return args;
}

static gboolean
tool_is_interactive (JsonObject *tool)
{
  JsonNode *node = json_object_get_member (tool, "interactive");

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node);
}

static gboolean
answered_or_panel (Check    *check,
                   gpointer  data)
{
  Expected expected = { "open_panel", NULL, NULL, 0 };

  return request_answered (check, data) || find_expected (check, &expected);
}

/**
 * _zot_ext_check_call_tool:
 * @out_request: (out) (optional): the request, owned by the session
 *
 * Calls a tool and waits for its result within the tool deadline. An
 * interactive tool's panel is answered with `enter`. A call that does not
 * answer in time is cancelled, when the extension takes cancels.
 *
 * Returns: (transfer none) (nullable): the result
 */
JsonObject *
_zot_ext_check_call_tool (Check          *check,
                          const char     *name,
                          JsonObject     *args,
                          CheckRequest  **out_request)
{
  g_autoptr(JsonObject) frame = json_object_new ();
  JsonObject *tool = _zot_ext_check_find_tool (check, name);
  guint deadline = zot_timeout_get_ms (ZOT_TIMEOUT_TOOL);
  CheckRequest *request;
  JsonObject *reply;

  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", name);
  json_object_set_object_member (frame, "args", json_object_ref (args));
  request = _zot_ext_check_request (check, CHECK_REQUEST_TOOL, name, frame, TRUE);
  if (out_request != NULL)
    *out_request = request;

  if (tool != NULL && tool_is_interactive (tool))
    {
      if (wait_until (check, answered_or_panel, request, deadline) &&
          request->state == CHECK_REQUEST_PENDING)
        {
          g_autoptr(JsonObject) panel_frame = _zot_ext_check_expect (check, "open_panel", NULL, NULL, 0);
          JsonObject *panel = zot_json_get_object (panel_frame, "panel");
          g_autoptr(JsonObject) key = json_object_new ();

          json_object_set_string_member (key, "type", "panel_key");
          json_object_set_string_member (key, "panel_id", panel ? zot_json_get_string (panel, "id") : "");
          json_object_set_string_member (key, "key", "enter");
          _zot_ext_check_send (check, key, TRUE);
        }
    }

  reply = _zot_ext_check_wait_reply (check, request, deadline);
  if (reply == NULL && request->state == CHECK_REQUEST_PENDING)
    {
      if (_zot_ext_check_has_capability (check, "tool_cancel"))
        _zot_ext_check_cancel (check, request, TRUE);
      else
        request->state = CHECK_REQUEST_ABANDONED;
    }
  return reply;
}

static void
run_tools (Check *check)
{
  for (guint i = 0; i < check->tools->len && !check->fatal; i++)
    {
      JsonObject *tool = g_ptr_array_index (check->tools, i);
      const char *name = zot_json_get_string (tool, "name");
      g_autoptr(JsonObject) args = example_args (check, tool);
      JsonObject *reply;

      _zot_ext_check_step_begin (check, "tool %s", name);
      reply = _zot_ext_check_call_tool (check, name, args, NULL);
      if (reply == NULL)
        _zot_ext_check_step_end (check, FALSE, "no tool_result within %u ms",
                                 zot_timeout_get_ms (ZOT_TIMEOUT_TOOL));
      else if (zot_json_get_array (reply, "content") == NULL)
        _zot_ext_check_step_end (check, FALSE, "tool_result without a content array");
      else
        {
          g_autofree char *text = _zot_ext_check_result_text (reply);
          gboolean is_error = zot_json_get_boolean_or (reply, "is_error", FALSE);

          _zot_ext_check_step_end (check, TRUE, "%s%.60s", is_error ? "error result: " : "", text);
        }
    }
}

static JsonObject *
first_plain_tool (Check *check)
{
  for (guint i = 0; i < check->tools->len; i++)
    {
      JsonObject *tool = g_ptr_array_index (check->tools, i);

      if (!tool_is_interactive (tool))
        return tool;
    }
  return NULL;
}

/* Two cancels: one sent with its call, one after a grace. */
static void
run_cancels (Check *check)
{
  JsonObject *tool = first_plain_tool (check);
  const char *name;
  g_autoptr(JsonObject) args = NULL;
  g_autoptr(JsonObject) frame = NULL;
  CheckRequest *request;

  if (check->fatal)
    return;
  if (!_zot_ext_check_has_capability (check, "tool_cancel") || tool == NULL)
    {
      step_skip (check, "cancel", tool == NULL ? "no tool to cancel" : "no tool_cancel capability");
      return;
    }

  name = zot_json_get_string (tool, "name");
  args = example_args (check, tool);

  _zot_ext_check_step_begin (check, "cancel after start (%s)", name);
  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", name);
  json_object_set_object_member (frame, "args", json_object_ref (args));
  request = _zot_ext_check_request (check, CHECK_REQUEST_TOOL, name, frame, TRUE);
  if (_zot_ext_check_wait_reply (check, request, CHECK_CANCEL_GRACE_MS) != NULL)
    _zot_ext_check_step_end (check, TRUE, "answered within %u ms, before a cancel", CHECK_CANCEL_GRACE_MS);
  else
    {
      _zot_ext_check_cancel (check, request, TRUE);
      _zot_ext_check_step_end (check, TRUE, "cancelled after %u ms", CHECK_CANCEL_GRACE_MS);
    }

  _zot_ext_check_step_begin (check, "cancel before start (%s)", name);
  g_clear_pointer (&frame, json_object_unref);
  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "tool_call");
  json_object_set_string_member (frame, "name", name);
  json_object_set_object_member (frame, "args", json_object_ref (args));
  /* Queued together: one write carries both. */
  request = _zot_ext_check_request (check, CHECK_REQUEST_TOOL, name, frame, FALSE);
  request->cancel_raced = TRUE;
  _zot_ext_check_cancel (check, request, TRUE);
  _zot_ext_check_step_end (check, TRUE, NULL);
}

/**
 * _zot_ext_check_run_command:
 *
 * Invokes a command and checks its response as the window would take it.
 *
 * Returns: (transfer none) (nullable): the response, when it came
 */
JsonObject *
_zot_ext_check_run_command (Check      *check,
                            const char *name,
                            const char *args)
{
  g_autoptr(JsonObject) frame = json_object_new ();
  g_autoptr(GError) error = NULL;
  CheckRequest *request;
  JsonObject *reply;

  json_object_set_string_member (frame, "type", "command_invoked");
  json_object_set_string_member (frame, "name", name);
  json_object_set_string_member (frame, "args", args);
  request = _zot_ext_check_request (check, CHECK_REQUEST_COMMAND, name, frame, TRUE);
  reply = _zot_ext_check_wait_reply (check, request, zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND));
  if (reply == NULL)
    {
      request->state = CHECK_REQUEST_ABANDONED;
      return NULL;
    }

  if (!zot_command_reply_check_frame (reply, name, &error))
    _zot_ext_check_violation (check,
                              g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION)
                              ? "unknown-action" : "bad-command-response",
                              reply, error->message);
  return reply;
}

static void
run_commands (Check *check)
{
  for (guint i = 0; i < check->commands->len && !check->fatal; i++)
    {
      const char *name = g_ptr_array_index (check->commands, i);
      JsonObject *reply;
      JsonObject *panel;
      const char *action;

      _zot_ext_check_step_begin (check, "command %s", name);
      reply = _zot_ext_check_run_command (check, name, "example");
      if (reply == NULL)
        {
          _zot_ext_check_step_end (check, FALSE, "no command_response within %u ms",
                                   zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND));
          continue;
        }

      action = zot_json_get_string (reply, "action");
      panel = zot_json_get_object (reply, "open_panel");
      if (g_strcmp0 (action, "open_panel") == 0 && panel != NULL)
        {
          /* The user closes it at once. */
          g_autoptr(JsonObject) key = json_object_new ();

          json_object_set_string_member (key, "type", "panel_key");
          json_object_set_string_member (key, "panel_id", zot_json_get_string (panel, "id"));
          json_object_set_string_member (key, "key", "esc");
          _zot_ext_check_send (check, key, TRUE);
        }
      _zot_ext_check_step_end (check, TRUE, "action %s", action != NULL ? action : "(none)");
    }
}

static JsonObject *
event_frame (const char *type,
             const char *event,
             JsonObject *payload)
{
  JsonObject *frame = payload != NULL ? json_object_ref (payload) : json_object_new ();
  g_autofree char *cwd = g_get_current_dir ();

  json_object_set_string_member (frame, "type", type);
  json_object_set_string_member (frame, "event", event);
  if (!json_object_has_member (frame, "session_id"))
    json_object_set_string_member (frame, "session_id", "check-session");
  if (!json_object_has_member (frame, "cwd"))
    json_object_set_string_member (frame, "cwd", cwd);
  return frame;
}

void
_zot_ext_check_event (Check      *check,
                      const char *event,
                      JsonObject *payload)
{
  g_autoptr(JsonObject) frame = event_frame ("event", event, payload);
  static gint64 sequence;

  json_object_set_int_member (frame, "sequence", ++sequence);
  _zot_ext_check_send (check, frame, TRUE);
}

/**
 * _zot_ext_check_intercept:
 *
 * Sends an `event_intercept` and waits for its answer within the
 * interceptor's deadline; a late one is a violation.
 *
 * Returns: (transfer none) (nullable): the answer
 */
JsonObject *
_zot_ext_check_intercept (Check      *check,
                          const char *event,
                          JsonObject *payload,
                          const char *label)
{
  g_autoptr(JsonObject) frame = event_frame ("event_intercept", event, payload);
  gboolean before_start = g_str_equal (event, "before_agent_start");
  guint deadline = zot_timeout_get_ms (before_start ? ZOT_TIMEOUT_BEFORE_AGENT_START : ZOT_TIMEOUT_INTERCEPT);
  CheckRequest *request;
  JsonObject *reply;
  JsonNode *node;

  request = _zot_ext_check_request (check, CHECK_REQUEST_INTERCEPT, event, frame, TRUE);
  reply = _zot_ext_check_wait_reply (check, request, deadline);
  if (reply == NULL)
    {
      g_autofree char *detail = g_strdup_printf ("%s: no answer within %u ms", label, deadline);

      request->state = CHECK_REQUEST_ABANDONED;
      if (!check->fatal)
        _zot_ext_check_violation (check, "slow-interceptor", request->sent, detail);
      return NULL;
    }

  node = json_object_get_member (reply, "modified_args");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node) && !JSON_NODE_HOLDS_OBJECT (node))
    _zot_ext_check_violation (check, "bad-intercept-reply", reply, "modified_args must be a JSON object");
  node = json_object_get_member (reply, "system_prompt");
  if (before_start && node != NULL && !JSON_NODE_HOLDS_NULL (node) &&
      !(JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING))
    _zot_ext_check_violation (check, "bad-intercept-reply", reply, "system_prompt must be a string");
  return reply;
}

JsonObject *
_zot_ext_check_bash_args (const char *command)
{
  JsonObject *payload = json_object_new ();
  JsonObject *args = json_object_new ();

  json_object_set_string_member (args, "command", command);
  json_object_set_string_member (payload, "tool_id", "check-tool-1");
  json_object_set_string_member (payload, "tool_name", "bash");
  json_object_set_object_member (payload, "tool_args", args);
  return payload;
}

/* A plausible payload for each event of PROTOCOL.md §6. */
static JsonObject *
event_payload (const char *event)
{
  JsonObject *payload = json_object_new ();

  if (g_str_equal (event, "turn_end"))
    json_object_set_string_member (payload, "stop", "end_turn");
  else if (g_str_equal (event, "turn_start"))
    json_object_set_int_member (payload, "step", 1);
  else if (g_str_equal (event, "session_end"))
    json_object_set_string_member (payload, "reason", "shutdown");
  else if (g_str_equal (event, "user_prompt_submit"))
    {
      json_object_set_string_member (payload, "text", "example");
      json_object_set_int_member (payload, "image_count", 0);
    }
  else if (g_str_equal (event, "assistant_message"))
    json_object_set_string_member (payload, "text", "example");
  else if (g_str_equal (event, "tool_call"))
    {
      json_object_unref (payload);
      payload = _zot_ext_check_bash_args ("ls");
    }
  return payload;
}

static void
run_events (Check *check)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree const char **subscribed = NULL;

  if (check->fatal)
    return;

  g_ptr_array_add (names, g_strdup ("turn_end"));
  subscribed = (const char **) g_hash_table_get_keys_as_array (check->events, NULL);
  for (guint i = 0; subscribed[i] != NULL; i++)
    if (!g_str_equal (subscribed[i], "turn_end") && zot_lifecycle_event_id (subscribed[i]) > 0)
      g_ptr_array_add (names, g_strdup (subscribed[i]));

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(JsonObject) payload = event_payload (name);

      _zot_ext_check_step_begin (check, "event %s", name);
      _zot_ext_check_event (check, name, payload);
      _zot_ext_check_step_end (check, TRUE, NULL);
    }
}

static void
run_intercept (Check      *check,
               const char *event,
               JsonObject *payload,
               const char *label)
{
  guint before = json_array_get_length (check->violations);

  if (check->fatal || !g_hash_table_contains (check->intercepts, event))
    return;

  _zot_ext_check_step_begin (check, "intercept %s", label);
  if (_zot_ext_check_intercept (check, event, payload, label) == NULL)
    _zot_ext_check_step_end (check, FALSE, "no answer in time");
  else
    _zot_ext_check_step_end (check, json_array_get_length (check->violations) == before, NULL);
}

static void
run_intercepts (Check *check)
{
  g_autoptr(JsonObject) harmless = _zot_ext_check_bash_args ("ls");
  g_autoptr(JsonObject) dangerous = _zot_ext_check_bash_args ("rm -rf /");
  g_autoptr(JsonObject) turn = event_payload ("turn_start");
  g_autoptr(JsonObject) message = event_payload ("assistant_message");
  g_autoptr(JsonObject) start = json_object_new ();

  json_object_set_string_member (start, "agent_run_id", "check-run-1");
  json_object_set_string_member (start, "provider", "check");
  json_object_set_string_member (start, "model", "check");
  json_object_set_string_member (start, "system_prompt", "You are a checker.");

  run_intercept (check, "tool_call", harmless, "tool_call (harmless bash)");
  run_intercept (check, "tool_call", dangerous, "tool_call (dangerous bash)");
  run_intercept (check, "turn_start", turn, "turn_start");
  run_intercept (check, "assistant_message", message, "assistant_message");
  run_intercept (check, "before_agent_start", start, "before_agent_start");
}

/* The run ------------------------------------------------------------------ */

static JsonObject *
read_examples (const char *directory)
{
  g_autofree char *path = g_build_filename (directory, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize length;
  JsonNode *root;
  JsonObject *examples;

  /* The manifest reader has read and checked it; this only looks for the
   * checker's own field. */
  if (!zot_file_get_contents_bounded (path, ZOT_MANIFEST_MAX_BYTES, &contents, &length, NULL) ||
      !json_parser_load_from_data (parser, contents, (gssize) length, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  examples = zot_json_get_object (json_node_get_object (root), "examples");
  return examples != NULL ? json_object_ref (examples) : NULL;
}

static void
run_session (Check    *check,
             gboolean  durable,
             GError  **error)
{
  if (!session_spawn (check, durable, error))
    return;

  if (session_handshake (check))
    {
      if (check->flags & ZOT_EXT_CHECK_SCENARIO)
        {
          if (durable)
            _zot_ext_check_scenario_durable (check);
          else
            {
              _zot_ext_check_scenario_registrations (check);
              _zot_ext_check_scenario_run (check);
            }
        }
      else
        {
          run_tools (check);
          run_cancels (check);
          run_commands (check);
          run_events (check);
          run_intercepts (check);
        }
      session_stop (check);
    }
  else
    {
      check->stopping = TRUE;
      session_terminate (check);
    }
}

/**
 * zot_ext_check_run:
 * @directory: the extension's directory, with its extension.json
 * @func: (nullable) (scope call): called for each step and violation
 *
 * Plays the host against the extension in @directory (see the file's
 * comment) and reports what it found.
 *
 * Returns: (transfer full): the report, or %NULL with @error when the
 *   extension could not be read or started at all
 */
JsonObject *
zot_ext_check_run (const char           *directory,
                   ZotExtCheckFlags      flags,
                   ZotExtCheckItemFunc   func,
                   gpointer              user_data,
                   GError              **error)
{
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(GError) local_error = NULL;
  Check check = { 0 };
  gboolean ok;
  int fd;

  g_return_val_if_fail (directory != NULL, NULL);

  check.manifest = zot_manifest_new_for_directory (directory, error);
  if (check.manifest == NULL)
    return NULL;

  fd = g_file_open_tmp ("zot-ext-check-XXXXXX.log", &check.log_path, error);
  if (fd < 0)
    {
      g_clear_object (&check.manifest);
      return NULL;
    }
  close (fd);

  check.directory = g_strdup (zot_manifest_get_directory (check.manifest));
  check.examples = read_examples (check.directory);
  check.flags = flags;
  check.func = func;
  check.user_data = user_data;
  check.steps = json_array_new ();
  check.violations = json_array_new ();

  run_session (&check, (flags & ZOT_EXT_CHECK_DURABLE) != 0, &local_error);
  if (local_error == NULL && (flags & ZOT_EXT_CHECK_SCENARIO) && !(flags & ZOT_EXT_CHECK_DURABLE))
    run_session (&check, TRUE, &local_error);
  session_clear (&check);

  if (local_error != NULL && json_array_get_length (check.steps) == 0)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      g_clear_object (&check.manifest);
      g_clear_pointer (&check.examples, json_object_unref);
      g_clear_pointer (&check.steps, json_array_unref);
      g_clear_pointer (&check.violations, json_array_unref);
      g_clear_pointer (&check.registrations, json_object_unref);
      g_unlink (check.log_path);
      g_free (check.log_path);
      g_free (check.directory);
      return NULL;
    }

  report = json_object_new ();
  json_object_set_string_member (report, "extension", zot_manifest_get_name (check.manifest));
  json_object_set_string_member (report, "directory", check.directory);
  json_object_set_boolean_member (report, "scenario", (flags & ZOT_EXT_CHECK_SCENARIO) != 0);
  ok = check.n_failed == 0 && json_array_get_length (check.violations) == 0 && local_error == NULL;
  /* The extension's stderr matters only when something failed. */
  if (ok)
    g_unlink (check.log_path);
  else
    json_object_set_string_member (report, "log", check.log_path);
  json_object_set_boolean_member (report, "ok", ok);
  if (local_error != NULL)
    json_object_set_string_member (report, "error", local_error->message);
  if (check.registrations != NULL)
    json_object_set_object_member (report, "registrations", g_steal_pointer (&check.registrations));
  json_object_set_array_member (report, "steps", g_steal_pointer (&check.steps));
  json_object_set_array_member (report, "violations", g_steal_pointer (&check.violations));

  g_clear_object (&check.manifest);
  g_clear_pointer (&check.examples, json_object_unref);
  g_free (check.log_path);
  g_free (check.directory);
  return g_steal_pointer (&report);
}
