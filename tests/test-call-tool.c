/* test-call-tool.c — tools an extension asks the host to call
 * (`call_tool`, PROTOCOL.md §5): resolution, the chain rules, the
 * observation limit, interception and approval, cancellation, the
 * deadline, and the lifecycle events that say who asked. Through ZotHost
 * with the demo model and the scripted fake extension, whose "call"
 * directive and tool argument send call_tool requests and answer with the
 * JSON of their results. */
#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-host.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *events;       /* every lifecycle event frame */
  GPtrArray  *traffic;      /* "extension>type" and "extension<type" */
  GPtrArray  *out_frames;   /* frames the host sent, as "extension" → JsonObject pairs */
  GPtrArray  *results;      /* the model's calls: "name outcome" */
  GPtrArray  *calls;        /* ::extension-call: "tool_id parent name origin" */
  GPtrArray  *call_results; /* ::extension-call-result: "tool_id outcome" */
  GPtrArray  *approvals;
  gboolean    interactive;
  char       *tools;
  int         answer;       /* -1: keep pending */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->traffic = g_ptr_array_new_with_free_func (g_free);
  f->out_frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->results = g_ptr_array_new_with_free_func (g_free);
  f->calls = g_ptr_array_new_with_free_func (g_free);
  f->call_results = g_ptr_array_new_with_free_func (g_free);
  f->approvals = g_ptr_array_new_with_free_func (g_object_unref);
  f->interactive = data != NULL;
  f->answer = ZOT_APPROVAL_ALLOW;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  for (guint i = 0; i < f->approvals->len; i++)
    if (!zot_approval_is_resolved (g_ptr_array_index (f->approvals, i)))
      zot_approval_resolve (g_ptr_array_index (f->approvals, i), ZOT_APPROVAL_DENY);
  g_ptr_array_set_size (f->approvals, 0);

  if (f->host != NULL)
    {
      g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
      g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), f);
      zot_test_finalize_host (&f->host);
    }

  for (ZotTimeout t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);

  g_clear_pointer (&f->events, g_ptr_array_unref);
  g_clear_pointer (&f->traffic, g_ptr_array_unref);
  g_clear_pointer (&f->out_frames, g_ptr_array_unref);
  g_clear_pointer (&f->results, g_ptr_array_unref);
  g_clear_pointer (&f->calls, g_ptr_array_unref);
  g_clear_pointer (&f->call_results, g_ptr_array_unref);
  g_clear_pointer (&f->approvals, g_ptr_array_unref);
  g_clear_pointer (&f->tools, g_free);
  zot_test_env_teardown (&f->env);
}

static void
on_lifecycle_event (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *frame,
                    Fixture             *f)
{
  g_ptr_array_add (f->events, json_object_ref (frame));
}

static void
on_frame_traffic (ZotExtensionManager *manager,
                  ZotExtension        *extension,
                  int                  direction,
                  const char          *line,
                  Fixture             *f)
{
  g_autoptr(JsonObject) frame = zot_test_json_object_from (line);
  const char *type = json_object_get_string_member_with_default (frame, "type", "");

  g_ptr_array_add (f->traffic, g_strdup_printf ("%s%c%s", zot_extension_get_name (extension),
                                                direction == ZOT_FRAME_DIRECTION_OUT ? '>' : '<', type));
  if (direction == ZOT_FRAME_DIRECTION_OUT)
    {
      json_object_set_string_member (frame, "zot_test_to", zot_extension_get_name (extension));
      g_ptr_array_add (f->out_frames, g_steal_pointer (&frame));
    }
}

static void
on_tool_result (ZotAgent      *agent,
                const char    *id,
                const char    *name,
                ZotToolResult *result,
                Fixture       *f)
{
  g_ptr_array_add (f->results, g_strdup_printf ("%s %s", name, zot_tool_outcome_to_string (result->outcome)));
}

static void
on_extension_call (ZotAgent   *agent,
                   const char *tool_id,
                   const char *parent_id,
                   const char *name,
                   JsonObject *args,
                   const char *origin,
                   Fixture    *f)
{
  g_ptr_array_add (f->calls, g_strdup_printf ("%s %s %s %s", tool_id, parent_id ? parent_id : "-",
                                              name, origin));
}

static void
on_extension_call_result (ZotAgent      *agent,
                          const char    *tool_id,
                          const char    *name,
                          ZotToolResult *result,
                          Fixture       *f)
{
  g_ptr_array_add (f->call_results, g_strdup_printf ("%s %s", tool_id,
                                                     zot_tool_outcome_to_string (result->outcome)));
}

static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       Fixture             *f)
{
  g_ptr_array_add (f->approvals, g_object_ref (approval));
  if (f->answer >= 0)
    zot_approval_resolve (approval, f->answer);
  return TRUE;
}

static void
start_host (Fixture            *f,
            const char * const *paths)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  ZotExtensionManager *manager;
  ZotAgent *agent;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = f->interactive;
  options.tools = f->tools ? g_strsplit (f->tools, ",", -1) : NULL;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  manager = zot_host_get_manager (f->host);
  agent = zot_host_get_agent (f->host);
  zot_extension_manager_set_trace_traffic (manager, TRUE);
  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
  g_signal_connect (manager, "frame-traffic", G_CALLBACK (on_frame_traffic), f);
  g_signal_connect (agent, "tool-result", G_CALLBACK (on_tool_result), f);
  g_signal_connect (agent, "extension-call", G_CALLBACK (on_extension_call), f);
  g_signal_connect (agent, "extension-call-result", G_CALLBACK (on_extension_call_result), f);
  if (f->interactive)
    g_signal_connect (manager, "approval-requested", G_CALLBACK (on_approval_requested), f);

  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
}

#define fake(f, name, ...) zot_test_make_recording_fake (&(f)->env, name, __VA_ARGS__)

static char *
register_tool_json (const char *name,
                    const char *extra)
{
  return g_strdup_printf ("{\"type\":\"register_tool\",\"name\":\"%s\",\"description\":\"%s\","
                          "\"schema\":{\"type\":\"object\"}%s%s}",
                          name, name, extra ? "," : "", extra ? extra : "");
}

/* The reply of a command that ran "call …": the tool_result frame the
 * extension received, parsed from the display text. */
static JsonObject *
command_call (Fixture    *f,
              const char *command,
              const char *spec)
{
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *args = g_strdup_printf ("call %s", spec);

  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), command, args, &error);
  g_assert_no_error (error);
  g_assert_nonnull (zot_command_reply_get_text (reply));
  return zot_test_json_object_from (zot_command_reply_get_text (reply));
}

static void
submit_start (Fixture       *f,
              const char    *text,
              ZotTestSubmit *out)
{
  zot_test_submit_start (f->host, text, out);
}

static void
submit (Fixture       *f,
        const char    *text,
        ZotTestSubmit *out)
{
  zot_test_submit (f->host, text, out);
  g_assert_no_error (out->error);
}

static JsonObject *
find_event (Fixture    *f,
            const char *name,
            const char *tool_id)
{
  return zot_test_find_event (f->events, name, tool_id);
}

/* The tool_id of the model's first call of @name. */
static const char *
model_call_id (Fixture    *f,
               const char *name)
{
  return zot_test_model_call_id (f->events, name);
}

static gboolean
traffic_has (Fixture    *f,
             const char *entry)
{
  for (guint i = 0; i < f->traffic->len; i++)
    if (g_str_equal (g_ptr_array_index (f->traffic, i), entry))
      return TRUE;
  return FALSE;
}

typedef struct
{
  Fixture    *f;
  const char *entry;
} TrafficWait;

static gboolean
traffic_seen (gpointer data)
{
  TrafficWait *wait = data;
  return traffic_has (wait->f, wait->entry);
}

static void
wait_traffic (Fixture    *f,
              const char *entry)
{
  TrafficWait wait = { f, entry };
  zot_test_wait_until (traffic_seen, &wait, 30000);
}

static gboolean
approval_pending (gpointer data)
{
  Fixture *f = data;
  return f->approvals->len > 0;
}

/* A frame the host sent to @extension of @type, the @nth. */
static JsonObject *
sent_frame (Fixture    *f,
            const char *extension,
            const char *type,
            guint       nth)
{
  for (guint i = 0; i < f->out_frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (f->out_frames, i);

      if (g_str_equal (json_object_get_string_member (frame, "zot_test_to"), extension) &&
          g_str_equal (json_object_get_string_member_with_default (frame, "type", ""), type) &&
          nth-- == 0)
        return frame;
    }
  return NULL;
}

/* The text a tool_result event observed for @tool_id. */
static const char *
event_result_text (Fixture    *f,
                   const char *tool_id)
{
  JsonObject *event = find_event (f, "tool_result", tool_id);

  if (event == NULL)
    g_error ("no tool_result event for %s", tool_id);
  return zot_test_json_string_at (event, "result/content/0/text");
}

static void
assert_contains (const char *text,
                 const char *needle)
{
  if (text == NULL || strstr (text, needle) == NULL)
    g_error ("\"%s\" does not say \"%s\"", text, needle);
}

static void
assert_refused (JsonObject *result,
                const char *name,
                const char *needle)
{
  g_assert_cmpstr (json_object_get_string_member (result, "type"), ==, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "name"), ==, name);
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  assert_contains (zot_test_json_string_at (result, "content/0/text"), needle);
}

static void
set_true (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* Lets the main loop run for @ms: only ever to show that something does
 * NOT happen meanwhile (a deadline that must not fire). */
static void
let_time_pass (guint ms)
{
  gboolean elapsed = FALSE;

  g_timeout_add_once (ms, set_true, &elapsed);
  while (!elapsed)
    g_main_context_iteration (NULL, TRUE);
}

/* Tests */

static void
test_command_calls_read (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *file = g_build_filename (f->env.cwd, "notes.txt", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(JsonObject) result = NULL;
  JsonObject *event;

  g_assert_true (g_file_set_contents (file, "hello from a file\n", -1, NULL));
  start_host (f, paths);

  result = command_call (f, "go", "{\"name\":\"read\",\"args\":{\"path\":\"notes.txt\"}}");
  g_assert_cmpstr (json_object_get_string_member (result, "type"), ==, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "id"), ==, "call-1");
  g_assert_cmpstr (json_object_get_string_member (result, "name"), ==, "read");
  g_assert_false (json_object_get_boolean_member (result, "is_error"));
  g_assert_false (json_object_get_boolean_member (result, "truncated"));
  g_assert_nonnull (strstr (zot_test_json_string_at (result, "content/0/text"), "hello from a file"));

  /* Events say who asked; headless approval is yolo. */
  event = find_event (f, "tool_call", "cmd:1");
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "cmd");
  g_assert_cmpstr (json_object_get_string_member (event, "tool_name"), ==, "read");
  event = find_event (f, "permission_decision", "cmd:1");
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "decision"), ==, "approved");
  g_assert_cmpstr (json_object_get_string_member (event, "source"), ==, "yolo");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "cmd");
  event = find_event (f, "tool_result", "cmd:1");
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "cmd");

  /* No tool use of the conversation; the views hear of it. */
  g_assert_cmpuint (f->results->len, ==, 0);
  g_assert_cmpuint (f->calls->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->calls, 0), ==, "cmd:1 - read cmd");
  g_assert_cmpstr (g_ptr_array_index (f->call_results, 0), ==, "cmd:1 completed");
  g_assert_cmpuint (zot_extension_manager_get_n_calls (zot_host_get_manager (f->host)), ==, 0);
}

static void
test_not_advertised (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dir = fake (f, "cmd", "--command", "go", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(JsonObject) result = NULL;

  start_host (f, paths);
  result = command_call (f, "go", "{\"name\":\"read\",\"args\":{\"path\":\"x\"}}");
  assert_refused (result, "read", "\"call_tool\" to the capabilities");
  g_assert_null (find_event (f, "tool_call", NULL));
}

static void
test_bad_requests (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(JsonObject) unknown = NULL;
  g_autoptr(JsonObject) no_name = NULL;
  g_autoptr(JsonObject) bad_args = NULL;
  g_autoptr(JsonObject) bad_parent = NULL;

  start_host (f, paths);

  unknown = command_call (f, "go", "{\"name\":\"no_such_tool\"}");
  assert_refused (unknown, "no_such_tool", "no tool named");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "cmd:1"), "status"),
                   ==, "failed");

  no_name = command_call (f, "go", "{\"args\":{}}");
  assert_refused (no_name, "", "needs the \"name\"");
  bad_args = command_call (f, "go", "{\"name\":\"read\",\"args\":[1]}");
  assert_refused (bad_args, "read", "must be a JSON object");
  bad_parent = command_call (f, "go", "{\"name\":\"read\",\"parent\":\"invocation-9\"}");
  assert_refused (bad_parent, "read", "names no tool call running");
}

static void
test_nested_other_extension (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *outer_tool = register_tool_json ("outer", NULL);
  g_autofree char *inner_tool = register_tool_json ("inner", NULL);
  g_autofree char *a = fake (f, "a", "--capabilities", "call_tool", "--register-json", outer_tool, NULL);
  g_autofree char *b = fake (f, "b", "--register-json", inner_tool, NULL);
  const char *paths[] = { a, b, NULL };
  g_autofree char *nested_id = NULL;
  g_autofree char *expected = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  const char *outer_id;
  JsonObject *event;
  JsonObject *call;

  start_host (f, paths);
  submit (f, "tool: outer {\"call\":{\"name\":\"inner\",\"args\":{\"reply\":\"from deep inside\"}}}", &s);

  /* The outer result is the JSON of the tool_result that a received. */
  assert_contains (s.text, "from deep inside");
  g_assert_cmpstr (g_ptr_array_index (f->results, 0), ==, "outer completed");

  outer_id = model_call_id (f, "outer");
  nested_id = g_strdup_printf ("%s/1", outer_id);
  event = find_event (f, "tool_call", nested_id);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "tool_name"), ==, "inner");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "a");
  event = find_event (f, "tool_result", nested_id);
  g_assert_cmpstr (json_object_get_string_member (event, "status"), ==, "completed");

  expected = g_strdup_printf ("%s %s inner a", nested_id, outer_id);
  g_assert_cmpstr (g_ptr_array_index (f->calls, 0), ==, expected);

  /* b saw an ordinary tool_call; a got its one reply. */
  call = sent_frame (f, "b", "tool_call", 0);
  g_assert_cmpstr (json_object_get_string_member (call, "name"), ==, "inner");
  g_assert_nonnull (sent_frame (f, "a", "tool_result", 0));
  g_assert_null (sent_frame (f, "a", "tool_result", 1));
}

/* t1 calls t2 calls t3 …: @names in order, the innermost answering "end". */
static char *
chain_args (const char * const *names)
{
  if (names[0] == NULL)
    return g_strdup ("{\"reply\":\"end\"}");
  else
    {
      g_autofree char *inner = chain_args (names + 1);
      return g_strdup_printf ("{\"call\":{\"name\":\"%s\",\"args\":%s}}", names[0], inner);
    }
}

static char *
chain_extension (Fixture *f)
{
  g_autofree char *t1 = register_tool_json ("t1", NULL);
  g_autofree char *t2 = register_tool_json ("t2", NULL);
  g_autofree char *t3 = register_tool_json ("t3", NULL);
  g_autofree char *t4 = register_tool_json ("t4", NULL);
  g_autofree char *t5 = register_tool_json ("t5", NULL);

  return fake (f, "chain", "--capabilities", "call_tool",
               "--register-json", t1, "--register-json", t2, "--register-json", t3,
               "--register-json", t4, "--register-json", t5, NULL);
}

static void
test_chain_of_four (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = chain_extension (f);
  const char *paths[] = { dir, NULL };
  const char *four[] = { "t2", "t3", "t4", NULL };
  const char *five[] = { "t2", "t3", "t4", "t5", NULL };
  g_autofree char *args4 = chain_args (four);
  g_autofree char *args5 = chain_args (five);
  g_autofree char *prompt4 = g_strdup_printf ("tool: t1 %s", args4);
  g_autofree char *prompt5 = g_strdup_printf ("tool: t1 %s", args5);
  g_auto(ZotTestSubmit) s4 = { 0 };
  g_auto(ZotTestSubmit) s5 = { 0 };
  g_autofree char *t4_id = NULL;

  start_host (f, paths);

  /* Four calls, the original included: allowed to the end. */
  submit (f, prompt4, &s4);
  g_assert_nonnull (strstr (s4.text, "end"));
  t4_id = g_strdup_printf ("%s/1/1/1", model_call_id (f, "t1"));
  g_assert_nonnull (find_event (f, "tool_call", t4_id));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", t4_id), "status"),
                   ==, "completed");

  /* The fifth link is refused; t4 gets the refusal as its result. */
  g_ptr_array_set_size (f->events, 0);
  submit (f, prompt5, &s5);
  g_free (t4_id);
  t4_id = g_strdup_printf ("%s/1/1/1", model_call_id (f, "t1"));
  assert_contains (event_result_text (f, t4_id), "at most 4 calls");
  for (guint i = 0; i < f->events->len; i++)
    g_assert_cmpstr (json_object_get_string_member_with_default (g_ptr_array_index (f->events, i),
                                                                 "tool_name", ""), !=, "t5");
}

static void
test_chain_repeats (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = chain_extension (f);
  const char *paths[] = { dir, NULL };
  const char *names[] = { "t2", "t1", NULL };
  g_autofree char *args = chain_args (names);
  g_autofree char *prompt = g_strdup_printf ("tool: t1 %s", args);
  g_autofree char *t2_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit (f, prompt, &s);
  t2_id = g_strdup_printf ("%s/1", model_call_id (f, "t1"));
  assert_contains (event_result_text (f, t2_id), "already a call of this chain");
  g_assert_cmpuint (f->calls->len, ==, 1);
}

/* Naming an ancestor instead of the call that sends the request does not
 * start the chain over: t2, running under t1, names t1 as the parent of
 * another t2, and of t3, t4, t5 in turn. */
static void
test_chain_ancestor_parent (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = chain_extension (f);
  const char *paths[] = { dir, NULL };
  g_auto(ZotTestSubmit) s0 = { 0 };
  g_auto(ZotTestSubmit) s1 = { 0 };
  g_auto(ZotTestSubmit) s2 = { 0 };
  g_autofree char *prompt1 = NULL;
  g_autofree char *prompt2 = NULL;
  g_autofree char *t1_request = NULL;
  g_autofree char *t2_id = NULL;
  g_autofree char *t4_id = NULL;
  const char *first;

  start_host (f, paths);

  /* Request ids count up by one: the next t1 gets the one after this. */
  submit (f, "tool: t1 {\"reply\":\"warm\"}", &s0);
  first = json_object_get_string_member (sent_frame (f, "chain", "tool_call", 0), "id");
  t1_request = g_strdup_printf ("t%" G_GUINT64_FORMAT, g_ascii_strtoull (first + 1, NULL, 10) + 1);

  g_ptr_array_set_size (f->events, 0);
  prompt1 = g_strdup_printf ("tool: t1 {\"call\":{\"name\":\"t2\",\"args\":"
                             "{\"call\":{\"name\":\"t2\",\"parent\":\"%s\",\"args\":{\"reply\":\"end\"}}}}}",
                             t1_request);
  submit (f, prompt1, &s1);
  g_assert_cmpstr (json_object_get_string_member (sent_frame (f, "chain", "tool_call", 1), "id"), ==, t1_request);
  t2_id = g_strdup_printf ("%s/1", model_call_id (f, "t1"));
  assert_contains (event_result_text (f, t2_id), "already a call of this chain");

  /* t2, t3 and t4 each name t1: t5 would be the fifth call of the chain. */
  g_ptr_array_set_size (f->events, 0);
  g_free (t1_request);
  first = json_object_get_string_member (sent_frame (f, "chain", "tool_call", 2), "id");
  t1_request = g_strdup_printf ("t%" G_GUINT64_FORMAT, g_ascii_strtoull (first + 1, NULL, 10) + 1);
  prompt2 = g_strdup_printf ("tool: t1 {\"call\":{\"name\":\"t2\",\"args\":"
                             "{\"call\":{\"name\":\"t3\",\"parent\":\"%s\",\"args\":"
                             "{\"call\":{\"name\":\"t4\",\"parent\":\"%s\",\"args\":"
                             "{\"call\":{\"name\":\"t5\",\"parent\":\"%s\",\"args\":{\"reply\":\"end\"}}}}}}}}}",
                             t1_request, t1_request, t1_request);
  submit (f, prompt2, &s2);
  g_assert_cmpstr (json_object_get_string_member (sent_frame (f, "chain", "tool_call", 3), "id"), ==, t1_request);
  t4_id = g_strdup_printf ("%s/3", model_call_id (f, "t1"));
  assert_contains (event_result_text (f, t4_id), "at most 4 calls");
  for (guint i = 0; i < f->events->len; i++)
    g_assert_cmpstr (json_object_get_string_member_with_default (g_ptr_array_index (f->events, i),
                                                                 "tool_name", ""), !=, "t5");
}

static void
test_parent_rules (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *t1 = register_tool_json ("t1", NULL);
  g_autofree char *dir = fake (f, "ext", "--capabilities", "call_tool", "--command", "go",
                               "--register-json", t1, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(JsonObject) finished = NULL;
  g_auto(ZotTestSubmit) s1 = { 0 };
  g_auto(ZotTestSubmit) s2 = { 0 };

  start_host (f, paths);

  /* Without parent_id while its own tool call runs: refused. */
  submit (f, "tool: t1 {\"call\":{\"name\":\"read\",\"args\":{\"path\":\"x\"},\"parent\":false}}", &s1);
  assert_contains (event_result_text (f, model_call_id (f, "t1")), "without a parent_id is refused");
  g_assert_cmpuint (f->calls->len, ==, 0);

  /* A finished call is no parent. */
  submit (f, "tool: t1 {\"reply\":\"done\"}", &s2);
  finished = command_call (f, "go", "{\"name\":\"read\",\"args\":{\"path\":\"x\"},\"parent\":\"@last\"}");
  assert_refused (finished, "read", "unknown or finished");
}

static void
test_observation_limit (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *big_tool = register_tool_json ("big", NULL);
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *big = fake (f, "big", "--register-json", big_tool, NULL);
  const char *paths[] = { cmd, big, NULL };
  g_autoptr(JsonObject) text = NULL;
  g_autoptr(JsonObject) images = NULL;
  g_autoptr(JsonObject) small = NULL;

  start_host (f, paths);

  text = command_call (f, "go", "{\"name\":\"big\",\"args\":{\"size\":307200}}");
  g_assert_false (json_object_get_boolean_member (text, "is_error"));
  g_assert_true (json_object_get_boolean_member (text, "truncated"));
  g_assert_cmpuint (strlen (zot_test_json_string_at (text, "content/0/text")), ==, ZOT_OBSERVATION_MAX_BYTES);

  images = command_call (f, "go", "{\"name\":\"big\",\"args\":{\"reply\":\"pics\",\"images\":200}}");
  g_assert_true (json_object_get_boolean_member (images, "truncated"));
  g_assert_cmpuint (zot_test_json_length_at (images, "content"), ==, ZOT_OBSERVATION_MAX_BLOCKS);
  g_assert_cmpstr (zot_test_json_string_at (images, "content/1/type"), ==, "image");

  /* At the edge: 128 blocks and 256 KiB pass whole. */
  small = command_call (f, "go", "{\"name\":\"big\",\"args\":{\"size\":262144}}");
  g_assert_false (json_object_get_boolean_member (small, "truncated"));
  g_assert_cmpuint (strlen (zot_test_json_string_at (small, "content/0/text")), ==, ZOT_OBSERVATION_MAX_BYTES);
}

static void
test_interceptor_blocks (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *guard = fake (f, "guard", "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                                 "--intercept-reply", "tool_call={\"block\":true,\"reason\":\"no reading today\"}",
                                 NULL);
  const char *paths[] = { cmd, guard, NULL };
  g_autoptr(JsonObject) result = NULL;
  JsonObject *intercept;
  JsonObject *decision;

  start_host (f, paths);
  result = command_call (f, "go", "{\"name\":\"read\",\"args\":{\"path\":\"x\"}}");
  assert_refused (result, "read", "no reading today");

  intercept = sent_frame (f, "guard", "event_intercept", 0);
  g_assert_nonnull (intercept);
  g_assert_cmpstr (json_object_get_string_member (intercept, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (intercept, "origin_extension"), ==, "cmd");

  decision = find_event (f, "permission_decision", "cmd:1");
  g_assert_cmpstr (json_object_get_string_member (decision, "decision"), ==, "denied");
  g_assert_cmpstr (json_object_get_string_member (decision, "source"), ==, "policy");
  g_assert_cmpstr (json_object_get_string_member (decision, "origin_extension"), ==, "cmd");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "cmd:1"), "status"),
                   ==, "blocked");
}

typedef struct
{
  gboolean         done;
  ZotCommandReply *reply;
} CommandRun;

static void
command_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  CommandRun *run = user_data;

  run->reply = zot_extension_manager_run_command_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  run->done = TRUE;
}

static void
command_start (Fixture    *f,
               const char *command,
               const char *args,
               CommandRun *run)
{
  zot_extension_manager_run_command_async (zot_host_get_manager (f->host), command, args, NULL,
                                           command_cb, run);
}

static JsonObject *
command_wait (CommandRun *run)
{
  JsonObject *result;

  zot_test_wait_for (&run->done, 30000);
  g_assert_nonnull (run->reply);
  result = zot_test_json_object_from (zot_command_reply_get_text (run->reply));
  g_clear_pointer (&run->reply, zot_command_reply_unref);
  return result;
}

static void
test_cancel_reaches_tool_cancel (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *slow_tool = register_tool_json ("slow", NULL);
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *slow = fake (f, "slow", "--capabilities", "tool_cancel", "--register-json", slow_tool, NULL);
  const char *paths[] = { cmd, slow, NULL };
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  CommandRun run = { 0 };
  JsonObject *call;
  JsonObject *cancel;

  start_host (f, paths);
  command_start (f, "go", "call {\"name\":\"slow\",\"args\":{\"hang\":true},\"id\":\"c1\"}", &run);
  wait_traffic (f, "slow>tool_call");

  g_assert_true (zot_test_run_command (zot_host_get_manager (f->host), "go", "cancel c1", &error));
  g_assert_no_error (error);
  result = command_wait (&run);
  assert_refused (result, "slow", "cancelled");
  g_assert_cmpstr (json_object_get_string_member (result, "id"), ==, "c1");

  call = sent_frame (f, "slow", "tool_call", 0);
  cancel = sent_frame (f, "slow", "tool_cancel", 0);
  g_assert_nonnull (cancel);
  g_assert_cmpstr (json_object_get_string_member (cancel, "id"), ==,
                   json_object_get_string_member (call, "id"));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "cmd:1"), "status"),
                   ==, "cancelled");
  /* Exactly one reply. */
  g_assert_null (sent_frame (f, "cmd", "tool_result", 1));
}

static void
test_duplicate_id (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *slow_tool = register_tool_json ("slow", NULL);
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *slow = fake (f, "slow", "--register-json", slow_tool, NULL);
  const char *paths[] = { cmd, slow, NULL };
  g_autofree char *log = NULL;
  g_autoptr(JsonObject) result = NULL;

  start_host (f, paths);
  result = command_call (f, "go", "[{\"name\":\"slow\",\"args\":{\"reply\":\"first\"},\"id\":\"x\"},"
                                  "{\"name\":\"read\",\"args\":{\"path\":\"y\"},\"id\":\"x\"}]");
  g_assert_cmpstr (json_object_get_string_member (result, "name"), ==, "slow");
  g_assert_cmpstr (zot_test_json_string_at (result, "content/0/text"), ==, "first");
  g_assert_null (sent_frame (f, "cmd", "tool_result", 1));
  g_assert_null (find_event (f, "tool_call", "cmd:2"));

  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (zot_host_get_manager (f->host),
                                                                                    "cmd")));
  g_assert_nonnull (strstr (log, "call_tool x: that id is already outstanding"));
}

static void
test_deadline (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *slow_tool = register_tool_json ("slow", NULL);
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *slow = fake (f, "slow", "--capabilities", "tool_cancel", "--register-json", slow_tool, NULL);
  const char *paths[] = { cmd, slow, NULL };
  g_autoptr(JsonObject) result = NULL;

  start_host (f, paths);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_CALL_TOOL, 200);

  result = command_call (f, "go", "{\"name\":\"slow\",\"args\":{\"hang\":true}}");
  assert_refused (result, "slow", "did not finish within");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "cmd:1"), "status"),
                   ==, "timed_out");
  g_assert_nonnull (sent_frame (f, "slow", "tool_cancel", 0));
}

static void
test_deadline_excludes_approval (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  const char *paths[] = { cmd, NULL };
  g_autoptr(JsonObject) result = NULL;
  CommandRun run = { 0 };
  ZotApproval *approval;

  f->answer = -1;
  start_host (f, paths);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_CALL_TOOL, 100);

  command_start (f, "go", "call {\"name\":\"bash\",\"args\":{\"command\":\"echo approved later\"}}", &run);
  zot_test_wait_until (approval_pending, f, 30000);
  approval = g_ptr_array_index (f->approvals, 0);
  /* The window names the extension that asked. */
  g_assert_cmpstr (zot_approval_get_origin_extension (approval), ==, "cmd");
  g_assert_cmpstr (zot_approval_get_tool_name (approval), ==, "bash");
  g_assert_nonnull (find_event (f, "tool_confirmation_requested", "cmd:1"));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_confirmation_requested", "cmd:1"),
                                                  "origin_extension"), ==, "cmd");

  /* Three deadlines' worth of thinking, then yes. */
  let_time_pass (300);
  g_assert_false (run.done);
  zot_approval_resolve (approval, ZOT_APPROVAL_ALLOW);

  result = command_wait (&run);
  g_assert_false (json_object_get_boolean_member (result, "is_error"));
  g_assert_nonnull (strstr (zot_test_json_string_at (result, "content/0/text"), "approved later"));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "permission_decision", "cmd:1"), "source"),
                   ==, "user");
}

static void
test_child_approval_holds_parent (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *outer_tool = register_tool_json ("outer", NULL);
  g_autofree char *a = fake (f, "a", "--capabilities", "call_tool", "--register-json", outer_tool, NULL);
  const char *paths[] = { a, NULL };
  g_auto(ZotTestSubmit) s = { 0 };
  ZotExtension *extension;
  JsonObject *call;

  f->answer = -1;
  start_host (f, paths);
  /* outer may take 150 ms to answer; its child waits for the user far
   * longer than that. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_TOOL, 150);
  zot_extension_manager_set_policy (zot_host_get_manager (f->host), ZOT_APPROVAL_POLICY_ASK);

  submit_start (f, "tool: outer {\"call\":{\"name\":\"bash\",\"args\":{\"command\":\"echo nested ok\"}}}", &s);
  /* outer itself is an extension tool: approve it. */
  zot_test_wait_until (approval_pending, f, 30000);
  g_assert_cmpstr (zot_approval_get_tool_name (g_ptr_array_index (f->approvals, 0)), ==, "outer");
  zot_approval_resolve (g_ptr_array_index (f->approvals, 0), ZOT_APPROVAL_ALLOW);
  g_ptr_array_set_size (f->approvals, 0);

  zot_test_wait_until (approval_pending, f, 30000);
  g_assert_cmpstr (zot_approval_get_tool_name (g_ptr_array_index (f->approvals, 0)), ==, "bash");

  extension = zot_extension_manager_find (zot_host_get_manager (f->host), "a");
  call = sent_frame (f, "a", "tool_call", 0);
  g_assert_true (zot_extension_request_is_held (extension, json_object_get_string_member (call, "id")));

  let_time_pass (450);
  g_assert_false (s.done);
  zot_approval_resolve (g_ptr_array_index (f->approvals, 0), ZOT_APPROVAL_ALLOW);

  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);
  g_assert_cmpstr (g_ptr_array_index (f->results, 0), ==, "outer completed");
  assert_contains (s.text, "nested ok");
  g_assert_false (zot_extension_request_is_held (extension, json_object_get_string_member (call, "id")));
}

static gboolean
no_calls (gpointer data)
{
  Fixture *f = data;
  return zot_extension_manager_get_n_calls (zot_host_get_manager (f->host)) == 0;
}

static void
test_parent_cancel_ends_children (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *outer_tool = register_tool_json ("outer", NULL);
  g_autofree char *slow_tool = register_tool_json ("slow", NULL);
  g_autofree char *a = fake (f, "a", "--capabilities", "call_tool,tool_cancel", "--register-json", outer_tool, NULL);
  g_autofree char *b = fake (f, "b", "--capabilities", "tool_cancel", "--register-json", slow_tool, NULL);
  const char *paths[] = { a, b, NULL };
  g_autofree char *nested_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f, paths);
  submit_start (f, "tool: outer {\"call\":{\"name\":\"slow\",\"args\":{\"hang\":true}}}", &s);
  wait_traffic (f, "b>tool_call");

  zot_agent_abort (zot_host_get_agent (f->host));
  zot_test_wait_for (&s.done, 30000);

  /* The child was cancelled with its parent, and its target told: the
   * cancellation reaches it a turn or two of the main loop later. */
  zot_test_wait_until (no_calls, f, 30000);
  wait_traffic (f, "b>tool_cancel");
  nested_id = g_strdup_printf ("%s/1", model_call_id (f, "outer"));
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", nested_id), "status"),
                   ==, "cancelled");
  g_assert_cmpuint (zot_extension_manager_get_n_calls (zot_host_get_manager (f->host)), ==, 0);
}

static void
test_interactive_tools (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *ask_tool = register_tool_json ("ask", "\"interactive\":true");
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *ask = fake (f, "asker", "--register-json", ask_tool, NULL);
  const char *paths[] = { cmd, ask, NULL };
  g_autoptr(JsonObject) result = NULL;

  start_host (f, paths);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_CALL_TOOL, 200);

  result = command_call (f, "go", "{\"name\":\"ask\",\"args\":{\"hang\":true}}");
  if (f->interactive)
    {
      /* The window would wait forever for a model's call; not for this one. */
      assert_refused (result, "ask", "within");
      g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "cmd:1"), "status"),
                       ==, "timed_out");
    }
  else
    {
      assert_refused (result, "ask", "needs the window");
      g_assert_null (sent_frame (f, "asker", "tool_call", 0));
    }
}

static void
test_exposure_and_allow_list (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *deferred_tool = register_tool_json ("hidden", "\"exposure\":\"deferred\"");
  g_autofree char *codemode_tool = register_tool_json ("scripted", "\"exposure\":\"codemode\"");
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *lib = fake (f, "lib", "--register-json", deferred_tool, "--register-json", codemode_tool, NULL);
  const char *paths[] = { cmd, lib, NULL };
  g_autoptr(JsonObject) hidden = NULL;
  g_autoptr(JsonObject) scripted = NULL;
  g_autoptr(JsonObject) bash = NULL;

  f->tools = g_strdup ("read,hidden,scripted");
  start_host (f, paths);

  hidden = command_call (f, "go", "{\"name\":\"hidden\",\"args\":{\"reply\":\"found it\"}}");
  g_assert_false (json_object_get_boolean_member (hidden, "is_error"));
  g_assert_cmpstr (zot_test_json_string_at (hidden, "content/0/text"), ==, "found it");
  scripted = command_call (f, "go", "{\"name\":\"scripted\",\"args\":{\"reply\":\"scripted too\"}}");
  g_assert_false (json_object_get_boolean_member (scripted, "is_error"));

  /* --tools leaves bash out: refused like a model call. */
  bash = command_call (f, "go", "{\"name\":\"bash\",\"args\":{\"command\":\"true\"}}");
  assert_refused (bash, "bash", "not enabled");
}

/* A subagent's tool asks for a call: the subagent runs it, through the
 * parent's guards, and its events say both who asked and for whom. */
static void
test_subagent_parent (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *outer_tool = register_tool_json ("outer", NULL);
  g_autofree char *a = fake (f, "a", "--capabilities", "call_tool", "--register-json", outer_tool, NULL);
  g_autofree char *file = g_build_filename (f->env.cwd, "notes.txt", NULL);
  const char *paths[] = { a, NULL };
  g_autofree char *nested_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  const char *outer_id = NULL;
  const char *agent_id = NULL;
  JsonObject *event;

  g_assert_true (g_file_set_contents (file, "subagent reads this\n", -1, NULL));
  start_host (f, paths);
  submit (f, "tool: subagent {\"name\":\"helper\",\"task\":\"tool: outer {\\\"call\\\":"
             "{\\\"name\\\":\\\"read\\\",\\\"args\\\":{\\\"path\\\":\\\"notes.txt\\\"}}}\"}", &s);

  for (guint i = 0; i < f->events->len; i++)
    {
      event = g_ptr_array_index (f->events, i);
      if (g_str_equal (json_object_get_string_member_with_default (event, "event", ""), "tool_call") &&
          g_str_equal (json_object_get_string_member_with_default (event, "tool_name", ""), "outer"))
        {
          outer_id = json_object_get_string_member (event, "tool_id");
          agent_id = json_object_get_string_member (event, "agent_id");
        }
    }
  g_assert_nonnull (outer_id);
  g_assert_nonnull (agent_id);

  nested_id = g_strdup_printf ("%s/1", outer_id);
  event = find_event (f, "tool_call", nested_id);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "a");
  g_assert_cmpstr (json_object_get_string_member (event, "agent_id"), ==, agent_id);
  event = find_event (f, "permission_decision", nested_id);
  g_assert_cmpstr (json_object_get_string_member (event, "agent_id"), ==, agent_id);
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, "a");
  assert_contains (event_result_text (f, nested_id), "subagent reads this");
}

static void
test_extension_exit_cancels (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *slow_tool = register_tool_json ("slow", NULL);
  g_autofree char *cmd = fake (f, "cmd", "--capabilities", "call_tool", "--command", "go", NULL);
  g_autofree char *slow = fake (f, "slow", "--capabilities", "tool_cancel", "--register-json", slow_tool, NULL);
  const char *paths[] = { cmd, slow, NULL };
  CommandRun run = { 0 };
  ZotExtension *extension;

  start_host (f, paths);
  command_start (f, "go", "call {\"name\":\"slow\",\"args\":{\"hang\":true}}", &run);
  wait_traffic (f, "slow>tool_call");

  /* The asking extension goes away: its call ends, nobody to answer. */
  extension = zot_extension_manager_find (zot_host_get_manager (f->host), "cmd");
  zot_test_stop_extension (extension);
  zot_test_wait_until (no_calls, f, 30000);
  wait_traffic (f, "slow>tool_cancel");
  g_assert_cmpstr (json_object_get_string_member (find_event (f, "tool_result", "cmd:1"), "status"),
                   ==, "cancelled");
  zot_test_wait_for (&run.done, 30000);
  g_clear_pointer (&run.reply, zot_command_reply_unref);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn, interactive) \
  g_test_add ("/zot/call-tool/" path, Fixture, interactive ? "" : NULL, fixture_setup, fn, fixture_teardown)

  ADD ("command-calls-read", test_command_calls_read, FALSE);
  ADD ("not-advertised", test_not_advertised, FALSE);
  ADD ("bad-requests", test_bad_requests, FALSE);
  ADD ("nested-other-extension", test_nested_other_extension, FALSE);
  ADD ("chain-of-four", test_chain_of_four, FALSE);
  ADD ("chain-repeats", test_chain_repeats, FALSE);
  ADD ("chain-ancestor-parent", test_chain_ancestor_parent, FALSE);
  ADD ("parent-rules", test_parent_rules, FALSE);
  ADD ("observation-limit", test_observation_limit, FALSE);
  ADD ("interceptor-blocks", test_interceptor_blocks, FALSE);
  ADD ("cancel-reaches-tool-cancel", test_cancel_reaches_tool_cancel, FALSE);
  ADD ("duplicate-id", test_duplicate_id, FALSE);
  ADD ("deadline", test_deadline, FALSE);
  ADD ("deadline-excludes-approval", test_deadline_excludes_approval, TRUE);
  ADD ("child-approval-holds-parent", test_child_approval_holds_parent, TRUE);
  ADD ("parent-cancel-ends-children", test_parent_cancel_ends_children, FALSE);
  ADD ("interactive-tool/headless", test_interactive_tools, FALSE);
  ADD ("interactive-tool/window", test_interactive_tools, TRUE);
  ADD ("exposure-and-allow-list", test_exposure_and_allow_list, FALSE);
  ADD ("extension-exit-cancels", test_extension_exit_cancels, FALSE);
  ADD ("subagent-parent", test_subagent_parent, FALSE);

  return g_test_run ();
}
