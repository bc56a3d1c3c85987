/* zot-ext-check.c — the checker's engine: steps, violations, waits, and
 * a session with one extension process from spawn to exit
 * (docs/ext-check.md). What each frame of the extension is held to is in
 * zot-ext-check-frames.c; the runs are zot-ext-check-generic.c and
 * zot-ext-check-scenario.c.
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

#include "zot-error.h"
#include "zot-ext-check-private.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-provider.h"

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
  { "reply-after-shutdown", "reply after shutdown",                          "PROTOCOL.md §9" },
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

/* An observation that is no fault, such as a reply that crossed its
 * cancel: the report keeps it apart from the violations. */
void
_zot_ext_check_note (Check      *check,
                     const char *text,
                     JsonObject *frame)
{
  g_autoptr(JsonObject) item = json_object_new ();

  json_object_set_string_member (item, "text", text);
  if (frame != NULL)
    {
      g_autofree char *shown = _zot_ext_check_shorten (frame);
      json_object_set_string_member (item, "frame", shown);
    }
  if (check->step != NULL)
    json_object_set_string_member (item, "step", json_object_get_string_member (check->step, "name"));

  json_array_add_object_element (check->notes, json_object_ref (item));
  emit (check, "note", item);
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

  if (check->second_session)
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

void
_zot_ext_check_step_skip (Check      *check,
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

void
_zot_ext_check_step_record (Check      *check,
                            const char *member,
                            JsonObject *frame)
{
  if (check->step != NULL)
    json_array_add_object_element (json_object_get_array_member (check->step, member),
                                   json_object_ref (frame));
}

/* Waiting ---------------------------------------------------------------- */

static gboolean
on_deadline_cb (gpointer user_data)
{
  gboolean *expired = user_data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

/* Turns the main context until @condition holds, the channel closes or
 * @timeout_ms pass. Returns whether @condition held. */
gboolean
_zot_ext_check_wait_until (Check          *check,
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

  _zot_ext_check_step_record (check, "sent", frame);
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
  _zot_ext_check_wait_until (check, request_answered, request, timeout_ms);
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

  if (!_zot_ext_check_wait_until (check, find_expected, &expected, timeout_ms))
    return NULL;
  return g_ptr_array_steal_index (check->inbox, expected.index);
}

gboolean
_zot_ext_check_inbox_has (Check      *check,
                          const char *type)
{
  Expected expected = { type, NULL, NULL, 0 };

  return find_expected (check, &expected);
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
  if (check->cancellable != NULL)
    g_cancellable_cancel (check->cancellable);
  g_clear_object (&check->cancellable);
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
  check->got_hello = check->got_ready = check->got_ack = check->shutdown_sent = FALSE;
  check->n_frames = 0;
}

static void
setup_child (gpointer user_data)
{
  /* As the host: the extension leads a process group, so that what it
   * started is stopped with it. Async-signal-safe, between fork and exec. */
  (void) setpgid (0, 0);
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
  /* As the host: provider keys are for the provider. The checker grants
   * none, and applies no `permissions` box: it checks the protocol. */
  zot_provider_scrub_environment (launcher, NULL);
  g_subprocess_launcher_set_child_setup (launcher, setup_child, NULL, NULL);

  check->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, error);
  if (check->process == NULL)
    return FALSE;

  check->channel = zot_frame_channel_new (g_subprocess_get_stdout_pipe (check->process),
                                          g_subprocess_get_stdin_pipe (check->process));
  g_signal_connect (check->channel, "frame-received", G_CALLBACK (_zot_ext_check_on_frame_received), check);
  g_signal_connect (check->channel, "bad-line", G_CALLBACK (_zot_ext_check_on_bad_line), check);
  g_signal_connect (check->channel, "closed", G_CALLBACK (_zot_ext_check_on_closed), check);
  zot_frame_channel_start (check->channel);
  check->cancellable = g_cancellable_new ();
  g_subprocess_wait_async (check->process, check->cancellable, _zot_ext_check_on_process_exited_cb, check);
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
  if (!_zot_ext_check_wait_until (check, got_hello, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_HELLO)))
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
      _zot_ext_check_wait_until (check, registration_done, &seen, (guint) ((end - now + 999) / 1000));
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

static void
signal_group (Check *check,
              int    signum)
{
  const char *identifier = g_subprocess_get_identifier (check->process);
  gint64 pid = identifier != NULL ? g_ascii_strtoll (identifier, NULL, 10) : 0;

  if (pid <= 0 || kill ((pid_t) -pid, signum) < 0)
    g_subprocess_send_signal (check->process, signum);
}

/* SIGTERM, its grace, then SIGKILL, as the host does. */
static void
session_terminate (Check *check)
{
  if (check->exited || check->process == NULL)
    return;

  signal_group (check, SIGTERM);
  if (wait_even_closed (check, process_gone, NULL, zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE)))
    return;

  signal_group (check, SIGKILL);
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
      _zot_ext_check_step_skip (check, "shutdown", "the session had already failed; the process was stopped");
      session_terminate (check);
      return;
    }

  _zot_ext_check_step_begin (check, "shutdown");
  check->shutdown_sent = TRUE;
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

  /* A read loop disconnected during the shutdown (a frame too large)
   * can see no ack, and its extension may be stuck writing: that
   * violation was reported. */
  if (!check->got_ack && !check->fatal)
    _zot_ext_check_violation (check, "no-shutdown-ack", NULL, NULL);
  if (!check->exited && check->fatal)
    session_terminate (check);
  else if (!check->exited)
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

/* One process from spawn to exit. The scenario's second session only
 * checks the nested call's key, with call_tool_durable offered. */
static void
run_session (Check     *check,
             gboolean   durable,
             gboolean   second,
             GError   **error)
{
  check->second_session = second;
  if (!session_spawn (check, durable, error))
    return;

  if (session_handshake (check))
    {
      if (!(check->flags & ZOT_EXT_CHECK_SCENARIO))
        _zot_ext_check_generic_run (check);
      else if (second)
        _zot_ext_check_scenario_durable (check);
      else
        {
          _zot_ext_check_scenario_registrations (check);
          _zot_ext_check_scenario_run (check);
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
  check.notes = json_array_new ();

  run_session (&check, (flags & ZOT_EXT_CHECK_DURABLE) != 0, FALSE, &local_error);
  /* --scenario --durable already ran as a durable host. */
  if (local_error == NULL && (flags & ZOT_EXT_CHECK_SCENARIO) && !(flags & ZOT_EXT_CHECK_DURABLE))
    run_session (&check, TRUE, TRUE, &local_error);
  session_clear (&check);

  if (local_error != NULL && json_array_get_length (check.steps) == 0)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      g_clear_object (&check.manifest);
      g_clear_pointer (&check.examples, json_object_unref);
      g_clear_pointer (&check.steps, json_array_unref);
      g_clear_pointer (&check.violations, json_array_unref);
      g_clear_pointer (&check.notes, json_array_unref);
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
  json_object_set_array_member (report, "notes", g_steal_pointer (&check.notes));

  g_clear_object (&check.manifest);
  g_clear_pointer (&check.examples, json_object_unref);
  g_free (check.log_path);
  g_free (check.directory);
  return g_steal_pointer (&report);
}
