/* test-subagent.c — the subagent tool (the swarm) inside ZotHost: the demo
 * model drives parent and children through `tool:` lines, and a fake
 * extension subscribed to every event records what the parent emitted. */
#include "config.h"

#include "zot-agent.h"
#include "zot-host.h"
#include "zot-message.h"
#include "zot-subagent-tool.h"
#include "zot-test-util.h"

#define OBSERVER "observer"

static const char *all_events =
  "{\"type\":\"subscribe\",\"events\":[\"session_start\",\"session_end\",\"user_prompt_submit\","
  "\"turn_start\",\"turn_end\",\"tool_call\",\"tool_result\",\"tool_confirmation_requested\","
  "\"permission_decision\",\"assistant_message\",\"pre_compact\",\"post_compact\","
  "\"subagent_start\",\"subagent_stop\"]}";

/* A tool that answers only when the test says so, cancelled or not: an
 * unresponsive runner for the children. */

#define TEST_TYPE_STUBBORN_TOOL (test_stubborn_tool_get_type ())
G_DECLARE_FINAL_TYPE (TestStubbornTool, test_stubborn_tool, TEST, STUBBORN_TOOL, ZotTool)

struct _TestStubbornTool
{
  ZotTool  parent_instance;
  GTask   *pending;
};

G_DEFINE_FINAL_TYPE (TestStubbornTool, test_stubborn_tool, ZOT_TYPE_TOOL)

static void
stubborn_execute_async (ZotTool              *tool,
                        JsonObject           *args,
                        const ZotToolContext *context,
                        GCancellable         *cancellable,
                        GAsyncReadyCallback   callback,
                        gpointer              user_data)
{
  TestStubbornTool *self = TEST_STUBBORN_TOOL (tool);

  g_assert_null (self->pending);
  self->pending = g_task_new (tool, cancellable, callback, user_data);
  g_task_set_check_cancellable (self->pending, FALSE);
}

static ZotToolResult *
stubborn_execute_finish (ZotTool       *tool,
                         GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
test_stubborn_tool_finalize (GObject *object)
{
  g_assert_null (TEST_STUBBORN_TOOL (object)->pending);
  G_OBJECT_CLASS (test_stubborn_tool_parent_class)->finalize (object);
}

static void
test_stubborn_tool_class_init (TestStubbornToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_stubborn_tool_finalize;
  ZOT_TOOL_CLASS (klass)->execute_async = stubborn_execute_async;
  ZOT_TOOL_CLASS (klass)->execute_finish = stubborn_execute_finish;
}

static void
test_stubborn_tool_init (TestStubbornTool *self)
{
}

static gboolean
stubborn_entered (gpointer data)
{
  return TEST_STUBBORN_TOOL (data)->pending != NULL;
}

static void
stubborn_release (TestStubbornTool *self)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->pending);

  g_assert_nonnull (task);
  g_task_return_pointer (task,
                         zot_tool_result_new_text ("released", FALSE, ZOT_TOOL_OUTCOME_COMPLETED),
                         (GDestroyNotify) zot_tool_result_free);
}

/* Fixture */

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  gboolean    shut_down;
  char       *record;
  GPtrArray  *results;        /* ZotToolResult: the parent's subagent calls, in order */
  GPtrArray  *children;       /* ZotAgent, watched; the tool owns them */
  GPtrArray  *child_results;  /* "name outcome" of the children's calls */
  gboolean    child_tool_called;
  guint       n_starts;
  guint       n_stops;
  gint64      session_end_time;
  gboolean    stop_after_end;
  char       *guard;          /* an extra extension's directory, or NULL */
  gboolean    interactive;
  GPtrArray  *approvals;      /* ZotApproval, answered "allow" as they come */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->record = g_build_filename (f->env.root, OBSERVER ".jsonl", NULL);
  f->results = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_tool_result_free);
  f->children = g_ptr_array_new ();
  f->child_results = g_ptr_array_new_with_free_func (g_free);
  f->approvals = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_host_shutdown_finish (ZOT_HOST (object), result, NULL));
  *done = TRUE;
}

static void
shutdown_host (Fixture *f)
{
  gboolean done = FALSE;

  if (f->shut_down)
    return;

  zot_host_shutdown_async (f->host, NULL, shutdown_cb, &done);
  zot_test_wait_for (&done, 30000);
  f->shut_down = TRUE;
}

static void
finalize_host (Fixture *f)
{
  if (f->host == NULL)
    return;

  shutdown_host (f);
  for (guint i = 0; i < f->children->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (f->children, i), f);
  g_ptr_array_set_size (f->children, 0);
  g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
  g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), f);
  g_assert_finalize_object (g_steal_pointer (&f->host));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  finalize_host (f);
  g_clear_pointer (&f->results, g_ptr_array_unref);
  g_clear_pointer (&f->children, g_ptr_array_unref);
  g_clear_pointer (&f->child_results, g_ptr_array_unref);
  g_clear_pointer (&f->record, g_free);
  g_clear_pointer (&f->guard, g_free);
  g_clear_pointer (&f->approvals, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

static ZotTool *
subagent_tool (Fixture *f)
{
  ZotToolRegistry *registry = zot_agent_get_registry (zot_host_get_agent (f->host));
  ZotTool *tool = zot_tool_registry_lookup (registry, ZOT_SUBAGENT_TOOL_NAME);

  g_assert_true (ZOT_IS_SUBAGENT_TOOL (tool));
  return tool;
}

static void
on_parent_tool_result (ZotAgent      *agent,
                       const char    *id,
                       const char    *name,
                       ZotToolResult *result,
                       Fixture       *f)
{
  if (g_str_equal (name, ZOT_SUBAGENT_TOOL_NAME))
    g_ptr_array_add (f->results, zot_tool_result_copy (result));
}

static void
on_child_tool_call (ZotAgent   *agent,
                    const char *id,
                    const char *name,
                    JsonObject *args,
                    Fixture    *f)
{
  f->child_tool_called = TRUE;
}

static void
on_child_tool_result (ZotAgent      *agent,
                      const char    *id,
                      const char    *name,
                      ZotToolResult *result,
                      Fixture       *f)
{
  const char *outcome = zot_tool_outcome_to_string (result->outcome);

  g_ptr_array_add (f->child_results, g_strdup_printf ("%s %s", name, outcome));
}

static void
on_lifecycle_event (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *frame,
                    Fixture             *f)
{
  if (g_str_equal (name, "subagent_start"))
    {
      const char *agent_id = json_object_get_string_member (frame, "agent_id");
      ZotAgent *child = zot_subagent_tool_lookup_agent (subagent_tool (f), agent_id);

      /* The child is known by the time its start is announced. */
      g_assert_nonnull (child);
      f->n_starts++;
      if (!g_ptr_array_find (f->children, child, NULL))
        {
          g_ptr_array_add (f->children, child);
          g_signal_connect (child, "tool-call", G_CALLBACK (on_child_tool_call), f);
          g_signal_connect (child, "tool-result", G_CALLBACK (on_child_tool_result), f);
        }
    }
  else if (g_str_equal (name, "subagent_stop"))
    {
      f->n_stops++;
      if (f->session_end_time != 0)
        f->stop_after_end = TRUE;
    }
  else if (g_str_equal (name, "session_end"))
    f->session_end_time = g_get_monotonic_time ();
}

static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       Fixture             *f)
{
  g_ptr_array_add (f->approvals, g_object_ref (approval));
  zot_approval_resolve (approval, ZOT_APPROVAL_ALLOW);
  return TRUE;
}

/* A host on the demo model with the recording observer. */
static void
start_host (Fixture *f)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;

  dir = zot_test_make_fake_args (f->env.root, OBSERVER, "--record", f->record,
                                 "--register-json", all_events, NULL);
  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_new0 (char *, 3);
  options.ext_paths[0] = g_strdup (dir);
  options.ext_paths[1] = g_strdup (f->guard);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = f->interactive;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  g_signal_connect (zot_host_get_agent (f->host), "tool-result",
                    G_CALLBACK (on_parent_tool_result), f);
  g_signal_connect (zot_host_get_manager (f->host), "lifecycle-event",
                    G_CALLBACK (on_lifecycle_event), f);
  if (f->interactive)
    g_signal_connect (zot_host_get_manager (f->host), "approval-requested",
                      G_CALLBACK (on_approval_requested), f);

  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
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
}

/* Helpers on results and recorded events */

static char *
result_text (ZotToolResult *result)
{
  return zot_content_get_text (result->content);
}

/* The id on the result's "agent_id: ID" line. */
static char *
result_agent_id (ZotToolResult *result)
{
  g_autofree char *text = result_text (result);
  const char *line = strstr (text, "\nagent_id: ");
  const char *end;

  g_assert_nonnull (line);
  line += strlen ("\nagent_id: ");
  end = strchr (line, '\n');
  return end != NULL ? g_strndup (line, (gsize) (end - line)) : g_strdup (line);
}

static GPtrArray *
recorded_events (Fixture *f)
{
  g_autoptr(GPtrArray) all = zot_test_read_frames (f->record);
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  for (guint i = 0; i < all->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (all, i);
      if (g_str_equal (json_object_get_string_member_with_default (frame, "type", ""), "event"))
        g_ptr_array_add (events, json_object_ref (frame));
    }
  return events;
}

/* The index of the nth event called @name, or -1. */
static int
event_index (GPtrArray  *events,
             const char *name,
             guint       nth)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);
      const char *event_name = json_object_get_string_member_with_default (event, "event", "");

      if (g_str_equal (event_name, name) && nth-- == 0)
        return (int) i;
    }
  return -1;
}

static JsonObject *
event_named (GPtrArray  *events,
             const char *name,
             guint       nth)
{
  int i = event_index (events, name, nth);

  return i >= 0 ? g_ptr_array_index (events, i) : NULL;
}

static guint
count_events (GPtrArray  *events,
              const char *name)
{
  guint n = 0;

  while (event_index (events, name, n) >= 0)
    n++;
  return n;
}

/* The first @a comes before the first @b. */
static void
assert_before (GPtrArray  *events,
               const char *a,
               const char *b)
{
  int ia = event_index (events, a, 0);
  int ib = event_index (events, b, 0);

  g_assert_cmpint (ia, >=, 0);
  g_assert_cmpint (ib, >=, 0);
  g_assert_cmpint (ia, <, ib);
}

static ZotToolRegistry *
parent_registry (Fixture *f)
{
  return zot_agent_get_registry (zot_host_get_agent (f->host));
}

/* The stubborn tool, in the parent's registry and so in the children's. */
static TestStubbornTool *
add_stubborn (Fixture *f)
{
  TestStubbornTool *stubborn = g_object_new (TEST_TYPE_STUBBORN_TOOL, "name", "stubborn", NULL);

  g_assert_true (zot_tool_registry_add (parent_registry (f), ZOT_TOOL (stubborn), NULL));
  return stubborn;
}

static const char *
member (JsonObject *event,
        const char *name)
{
  g_assert_nonnull (event);
  return json_object_get_string_member_with_default (event, name, NULL);
}

/* start and stop of one run: the same identity, parent's common fields */
static void
assert_run_pair (Fixture    *f,
                 JsonObject *start,
                 JsonObject *stop,
                 const char *agent_id,
                 const char *status)
{
  ZotSession *session = zot_agent_get_session (zot_host_get_agent (f->host));
  const char *session_id = zot_session_get_id (session);

  g_assert_nonnull (start);
  g_assert_nonnull (stop);
  g_assert_cmpstr (member (start, "agent_id"), ==, agent_id);
  g_assert_cmpstr (member (stop, "agent_id"), ==, agent_id);
  g_assert_cmpstr (member (start, "name"), ==, agent_id);
  g_assert_cmpstr (member (stop, "name"), ==, agent_id);
  g_assert_nonnull (member (start, "agent_run_id"));
  g_assert_cmpstr (member (start, "agent_run_id"), ==, member (stop, "agent_run_id"));
  g_assert_null (member (start, "status"));
  g_assert_cmpstr (member (stop, "status"), ==, status);

  g_assert_cmpstr (member (start, "session_id"), ==, session_id);
  g_assert_cmpstr (member (stop, "session_id"), ==, session_id);
  g_assert_cmpstr (member (start, "cwd"), ==, f->env.cwd);
  g_assert_cmpstr (member (stop, "cwd"), ==, f->env.cwd);
  g_assert_cmpint (json_object_get_int_member (start, "sequence"), >, 0);
  g_assert_cmpint (json_object_get_int_member (stop, "sequence"), >,
                   json_object_get_int_member (start, "sequence"));
}

/* Tests */

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Wait;

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = zot_subagent_tool_wait_finish (ZOT_TOOL (object), result, &wait->error);
  wait->done = TRUE;
}

static void
test_new_destroy (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(ZotToolRegistry) registry = zot_tool_registry_new ();
  ZotProviderConfig config = { .name = (char *) "demo" };
  ZotTool *tool = zot_subagent_tool_new (&config, registry, NULL, f->env.cwd);
  JsonObject *schema = zot_tool_get_schema (tool);
  const char *members[] = { "task", "name", "agent_id" };
  JsonArray *required;
  Wait wait = { 0 };

  g_assert_cmpstr (zot_tool_get_name (tool), ==, "subagent");
  g_assert_cmpint (zot_tool_get_exposure (tool), ==, ZOT_TOOL_EXPOSURE_DIRECT);
  g_assert_true (zot_tool_get_concurrent (tool));
  /* It asks, like the tools it may run. */
  g_assert_true (zot_tool_get_requires_approval (tool));
  g_assert_false (zot_tool_get_interactive (tool));
  required = json_object_get_array_member (schema, "required");
  g_assert_cmpuint (json_array_get_length (required), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (required, 0), ==, "task");
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    g_assert_true (json_object_has_member (json_object_get_object_member (schema, "properties"),
                                           members[i]));
  g_assert_cmpuint (zot_subagent_tool_get_n_running (tool), ==, 0);
  g_assert_null (zot_subagent_tool_lookup_agent (tool, "nobody"));

  /* Nothing runs: the wait is over at once, long timeout or not. */
  zot_subagent_tool_wait_async (tool, 60000, NULL, wait_cb, &wait);
  zot_test_wait_for (&wait.done, 5000);
  g_assert_no_error (wait.error);
  g_assert_true (wait.ok);

  g_assert_finalize_object (tool);
}

static void
test_say_hi (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *text = NULL;
  g_autofree char *agent_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotToolResult *result;
  ZotAgent *child;
  JsonObject *start;
  JsonObject *stop;
  JsonObject *tool_result;

  start_host (f);
  submit (f, "tool: subagent {\"task\":\"say hi\",\"name\":\"helper\"}", &s);
  g_assert_no_error (s.error);

  g_assert_cmpuint (f->results->len, ==, 1);
  result = g_ptr_array_index (f->results, 0);
  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  text = result_text (result);
  g_assert_nonnull (strstr (text, "You said: say hi"));
  g_assert_nonnull (strstr (text, "\nname: helper\n"));
  agent_id = result_agent_id (result);
  g_assert_true (g_uuid_string_is_valid (agent_id));

  /* A child of its own: its conversation, the parent's cwd, no manager. */
  child = zot_subagent_tool_lookup_agent (subagent_tool (f), agent_id);
  g_assert_nonnull (child);
  g_assert_true (child != zot_host_get_agent (f->host));
  g_assert_cmpstr (zot_agent_get_cwd (child), ==, f->env.cwd);
  g_assert_false (zot_agent_get_interactive (child));
  g_assert_cmpuint (zot_agent_get_messages (child)->len, ==, 2);
  g_assert_cmpuint (zot_subagent_tool_get_n_running (subagent_tool (f)), ==, 0);

  shutdown_host (f);
  events = recorded_events (f);
  start = event_named (events, "subagent_start", 0);
  stop = event_named (events, "subagent_stop", 0);
  assert_run_pair (f, start, stop, agent_id, "completed");
  g_assert_null (member (stop, "error"));
  g_assert_cmpuint (count_events (events, "subagent_start"), ==, 1);
  g_assert_cmpuint (count_events (events, "subagent_stop"), ==, 1);

  /* Inside the parent's call: announced, started, stopped, reported. */
  assert_before (events, "tool_call", "subagent_start");
  assert_before (events, "subagent_start", "subagent_stop");
  assert_before (events, "subagent_stop", "tool_result");
  tool_result = event_named (events, "tool_result", 0);
  g_assert_cmpstr (member (tool_result, "tool_name"), ==, "subagent");
  g_assert_cmpstr (member (tool_result, "status"), ==, "completed");
}

static void
test_child_tools (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *text = NULL;
  g_autofree char *agent_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotToolRegistry *registry;
  ZotAgent *child;

  start_host (f);
  submit (f, "tool: subagent {\"task\":\"tool: bash {\\\"command\\\":\\\"echo from-child\\\"}\"}",
          &s);
  g_assert_no_error (s.error);

  g_assert_cmpuint (f->results->len, ==, 1);
  text = result_text (g_ptr_array_index (f->results, 0));
  g_assert_nonnull (strstr (text, "from-child"));
  g_assert_cmpuint (f->child_results->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->child_results, 0), ==, "bash completed");

  /* The parent's tools, without a way to start grandchildren. */
  agent_id = result_agent_id (g_ptr_array_index (f->results, 0));
  child = zot_subagent_tool_lookup_agent (subagent_tool (f), agent_id);
  registry = zot_agent_get_registry (child);
  g_assert_true (registry != parent_registry (f));
  g_assert_null (zot_tool_registry_lookup (registry, "subagent"));
  g_assert_true (zot_tool_registry_lookup (registry, "bash") ==
                 zot_tool_registry_lookup (parent_registry (f), "bash"));
  g_assert_nonnull (zot_tool_registry_lookup (registry, "read"));
  g_assert_nonnull (zot_tool_registry_lookup (registry, "tool_search"));
  g_assert_cmpuint (zot_agent_get_messages (child)->len, ==, 4);
  /* Its transcript keeps the ids its model gave, for the provider. */
  g_assert_cmpstr (zot_test_json_string_at (g_ptr_array_index (zot_agent_get_messages (child), 1),
                                            "content/1/id"), ==,
                   zot_test_json_string_at (g_ptr_array_index (zot_agent_get_messages (child), 2),
                                            "content/0/tool_use_id"));

  /* The child's tool calls are observed like the parent's, with its
   * agent_id and the parent's session; the rest of its run is not. */
  shutdown_host (f);
  events = recorded_events (f);
  g_assert_cmpuint (count_events (events, "tool_call"), ==, 2);
  g_assert_cmpuint (count_events (events, "tool_result"), ==, 2);
  g_assert_cmpstr (member (event_named (events, "tool_call", 0), "tool_name"), ==, "subagent");
  g_assert_null (member (event_named (events, "tool_call", 0), "agent_id"));
  g_assert_cmpstr (member (event_named (events, "tool_call", 1), "tool_name"), ==, "bash");
  g_assert_cmpstr (member (event_named (events, "tool_call", 1), "agent_id"), ==, agent_id);
  /* One session, one meaning per tool_id: the child's model numbers its
   * calls as the parent's did. */
  g_assert_cmpstr (member (event_named (events, "tool_call", 1), "tool_id"), !=,
                   member (event_named (events, "tool_call", 0), "tool_id"));
  g_assert_cmpstr (member (event_named (events, "tool_result", 0), "tool_id"), ==,
                   member (event_named (events, "tool_call", 1), "tool_id"));
  g_assert_cmpstr (member (event_named (events, "permission_decision", 1), "tool_id"), ==,
                   member (event_named (events, "tool_call", 1), "tool_id"));
  g_assert_cmpstr (member (event_named (events, "tool_call", 1), "session_id"), ==,
                   zot_session_get_id (zot_agent_get_session (zot_host_get_agent (f->host))));
  g_assert_cmpstr (member (event_named (events, "tool_result", 0), "tool_name"), ==, "bash");
  g_assert_cmpstr (member (event_named (events, "tool_result", 0), "agent_id"), ==, agent_id);
  g_assert_cmpstr (member (event_named (events, "tool_result", 1), "tool_name"), ==, "subagent");
  g_assert_cmpuint (count_events (events, "user_prompt_submit"), ==, 1);
  g_assert_cmpuint (count_events (events, "turn_start"), ==, 2);
  g_assert_cmpuint (count_events (events, "permission_decision"), ==, 2);
  g_assert_cmpstr (member (event_named (events, "permission_decision", 1), "agent_id"), ==, agent_id);
  g_assert_cmpstr (member (event_named (events, "permission_decision", 1), "source"), ==, "yolo");
  assert_run_pair (f, event_named (events, "subagent_start", 0),
                   event_named (events, "subagent_stop", 0), agent_id, "completed");
}

/* A guard that blocks rm -rf cannot be bypassed by asking a subagent to
 * do it: the child's calls pass the parent's interceptors (PROTOCOL.md
 * §11). It used to run them with no manager at all. */
static void
test_guard_applies (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *pwned = g_build_filename (f->env.cwd, "pwned", NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *agent_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *decision;

  f->guard = zot_test_make_fake_args (f->env.root, "guard",
                                      "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"tool_call\"]}",
                                      "--block-tool", "bash", NULL);
  start_host (f);
  submit (f, "tool: subagent {\"task\":\"tool: bash {\\\"command\\\":\\\"touch pwned\\\"}\"}", &s);
  g_assert_no_error (s.error);

  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (f->child_results->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->child_results, 0), ==, "bash blocked");
  agent_id = result_agent_id (g_ptr_array_index (f->results, 0));

  shutdown_host (f);
  events = recorded_events (f);
  decision = event_named (events, "permission_decision", 1);
  g_assert_cmpstr (member (decision, "tool_name"), ==, "bash");
  g_assert_cmpstr (member (decision, "decision"), ==, "denied");
  g_assert_cmpstr (member (decision, "source"), ==, "policy");
  g_assert_cmpstr (member (decision, "reason"), ==, "blocked by the fake guard");
  g_assert_cmpstr (member (decision, "agent_id"), ==, agent_id);
  g_assert_cmpstr (member (event_named (events, "tool_result", 0), "status"), ==, "blocked");
}

/* With the "ask" policy the window is asked for the subagent itself and
 * for each call it makes, and the question says which subagent asks. */
static void
test_approval_names_subagent (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *made = g_build_filename (f->env.cwd, "made", NULL);
  g_autofree char *agent_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotApproval *approval;

  f->interactive = TRUE;
  start_host (f);
  submit (f, "tool: subagent {\"name\":\"helper\",\"task\":\"tool: bash {\\\"command\\\":\\\"touch made\\\"}\"}",
          &s);
  g_assert_no_error (s.error);
  g_assert_true (g_file_test (made, G_FILE_TEST_EXISTS));
  agent_id = result_agent_id (g_ptr_array_index (f->results, 0));

  g_assert_cmpuint (f->approvals->len, ==, 2);
  approval = g_ptr_array_index (f->approvals, 0);
  g_assert_cmpstr (zot_approval_get_tool_name (approval), ==, "subagent");
  g_assert_null (zot_approval_get_agent_id (approval));
  approval = g_ptr_array_index (f->approvals, 1);
  g_assert_cmpstr (zot_approval_get_tool_name (approval), ==, "bash");
  g_assert_cmpstr (zot_approval_get_agent_id (approval), ==, agent_id);
  g_assert_cmpstr (zot_approval_get_agent_name (approval), ==, "helper");
}

static void
test_resume (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *resume = NULL;
  g_autofree char *text = NULL;
  g_autofree char *said = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotToolResult *unknown;
  GPtrArray *messages;
  ZotAgent *child;

  start_host (f);
  submit (f, "tool: subagent {\"task\":\"first task\",\"name\":\"helper\"}", &s);
  g_assert_no_error (s.error);
  first_id = result_agent_id (g_ptr_array_index (f->results, 0));

  resume = g_strdup_printf ("tool: subagent {\"task\":\"second task\",\"agent_id\":\"%s\"}",
                            first_id);
  submit (f, resume, &s);
  g_assert_no_error (s.error);
  second_id = result_agent_id (g_ptr_array_index (f->results, 1));
  g_assert_cmpstr (second_id, ==, first_id);
  text = result_text (g_ptr_array_index (f->results, 1));
  g_assert_nonnull (strstr (text, "You said: second task"));
  g_assert_nonnull (strstr (text, "\nname: helper\n"));

  /* One conversation across both runs. */
  child = zot_subagent_tool_lookup_agent (subagent_tool (f), first_id);
  messages = zot_agent_get_messages (child);
  g_assert_cmpuint (messages->len, ==, 4);
  said = zot_message_get_text (g_ptr_array_index (messages, 0));
  g_assert_cmpstr (said, ==, "first task");
  g_clear_pointer (&said, g_free);
  said = zot_message_get_text (g_ptr_array_index (messages, 2));
  g_assert_cmpstr (said, ==, "second task");

  /* An id nobody has: an error for the model, and no run to announce. */
  submit (f, "tool: subagent {\"task\":\"third\",\"agent_id\":\"no-such-agent\"}", &s);
  g_assert_no_error (s.error);
  unknown = g_ptr_array_index (f->results, 2);
  g_assert_true (unknown->is_error);
  g_assert_cmpint (unknown->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_clear_pointer (&text, g_free);
  text = result_text (unknown);
  g_assert_nonnull (strstr (text, "no-such-agent"));
  g_assert_cmpuint (f->n_starts, ==, 2);

  shutdown_host (f);
  events = recorded_events (f);
  g_assert_cmpuint (count_events (events, "subagent_start"), ==, 2);
  g_assert_cmpuint (count_events (events, "subagent_stop"), ==, 2);
  for (guint i = 0; i < 2; i++)
    assert_run_pair (f, event_named (events, "subagent_start", i),
                     event_named (events, "subagent_stop", i), first_id, "completed");
  g_assert_cmpstr (member (event_named (events, "subagent_start", 0), "agent_run_id"), !=,
                   member (event_named (events, "subagent_start", 1), "agent_run_id"));
}

static void
test_failed (Fixture       *f,
             gconstpointer  data)
{
  ZotProviderConfig config = {
    .name = (char *) "openai",
    .base_url = (char *) "http://127.0.0.1:9",
    .api_key = (char *) "sk-test",
    .api_key_source = (char *) "--api-key",
  };
  g_autoptr(ZotTool) failing = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *text = NULL;
  g_autofree char *agent_id = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  ZotToolRegistry *registry;
  ZotToolResult *result;
  JsonObject *stop;

  start_host (f);

  /* The same tool, with children that cannot reach their model. */
  registry = parent_registry (f);
  failing = zot_subagent_tool_new (&config, registry, zot_host_get_manager (f->host), f->env.cwd);
  g_assert_true (zot_tool_registry_remove (registry, "subagent"));
  g_assert_true (zot_tool_registry_add (registry, failing, NULL));

  submit (f, "tool: subagent {\"task\":\"say hi\"}", &s);
  g_assert_no_error (s.error);

  g_assert_cmpuint (f->results->len, ==, 1);
  result = g_ptr_array_index (f->results, 0);
  g_assert_true (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  text = result_text (result);
  g_assert_nonnull (strstr (text, "127.0.0.1:9"));
  agent_id = result_agent_id (result);

  shutdown_host (f);
  events = recorded_events (f);
  stop = event_named (events, "subagent_stop", 0);
  assert_run_pair (f, event_named (events, "subagent_start", 0), stop, agent_id, "failed");
  g_assert_nonnull (strstr (member (stop, "error"), "127.0.0.1:9"));
  g_assert_cmpstr (member (event_named (events, "tool_result", 0), "status"), ==, "failed");
}

#define SLEEPING_CHILD "tool: subagent {\"task\":\"tool: bash {\\\"command\\\":\\\"sleep 30\\\"}\"}"

static void
test_abort (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  JsonObject *stop;

  start_host (f);
  submit_start (f, SLEEPING_CHILD, &s);

  /* Abort once the child's bash runs. */
  zot_test_wait_for (&f->child_tool_called, 20000);
  g_assert_false (s.done);
  zot_agent_abort (zot_host_get_agent (f->host));

  /* Far sooner than the sleep: the child was aborted, not waited for. */
  zot_test_wait_for (&s.done, 20000);
  g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (f->child_results->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->child_results, 0), ==, "bash cancelled");
  g_assert_cmpuint (f->results->len, ==, 1);
  g_assert_cmpint (((ZotToolResult *) g_ptr_array_index (f->results, 0))->outcome, ==,
                   ZOT_TOOL_OUTCOME_CANCELLED);
  g_assert_cmpuint (zot_subagent_tool_get_n_running (subagent_tool (f)), ==, 0);

  shutdown_host (f);
  events = recorded_events (f);
  stop = event_named (events, "subagent_stop", 0);
  assert_run_pair (f, event_named (events, "subagent_start", 0), stop, member (stop, "agent_id"),
                   "cancelled");
  /* The child's bash, then the run's stop, then the parent's call. */
  g_assert_cmpstr (member (event_named (events, "tool_result", 0), "tool_name"), ==, "bash");
  g_assert_cmpstr (member (event_named (events, "tool_result", 0), "agent_id"), ==, member (stop, "agent_id"));
  g_assert_cmpstr (member (event_named (events, "tool_result", 1), "tool_name"), ==, "subagent");
  g_assert_cmpstr (member (event_named (events, "tool_result", 1), "status"), ==, "cancelled");
  g_assert_cmpint (event_index (events, "tool_result", 0), <, event_index (events, "subagent_stop", 0));
  g_assert_cmpint (event_index (events, "subagent_stop", 0), <, event_index (events, "tool_result", 1));
}

static gboolean
one_stop (gpointer data)
{
  return ((Fixture *) data)->n_stops >= 1;
}

static void
test_concurrent_batch (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(TestStubbornTool) stubborn = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_auto(ZotTestSubmit) s = { 0 };

  start_host (f);
  stubborn = add_stubborn (f);

  submit_start (f,
                "tool: subagent {\"task\":\"tool: stubborn {}\",\"name\":\"a\"}\n"
                "tool: subagent {\"task\":\"say b\",\"name\":\"b\"}", &s);

  /* B finishes while A is still held: they ran side by side. */
  zot_test_wait_until (stubborn_entered, stubborn, 20000);
  zot_test_wait_until (one_stop, f, 20000);
  g_assert_cmpuint (f->n_starts, ==, 2);
  g_assert_cmpuint (zot_subagent_tool_get_n_running (subagent_tool (f)), ==, 1);
  g_assert_false (s.done);

  stubborn_release (stubborn);
  zot_test_wait_for (&s.done, 20000);
  g_assert_no_error (s.error);
  g_assert_cmpuint (f->results->len, ==, 2);
  a = result_agent_id (g_ptr_array_index (f->results, 0));
  b = result_agent_id (g_ptr_array_index (f->results, 1));
  g_assert_cmpstr (a, !=, b);

  shutdown_host (f);
  events = recorded_events (f);
  g_assert_cmpint (event_index (events, "subagent_start", 1), <,
                   event_index (events, "subagent_stop", 0));
  g_assert_cmpuint (count_events (events, "subagent_stop"), ==, 2);
}

static gboolean
all_done (gpointer data)
{
  gboolean **flags = data;

  for (guint i = 0; flags[i] != NULL; i++)
    if (!*flags[i])
      return FALSE;
  return TRUE;
}

static void
test_shutdown_waits (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  gboolean shut = FALSE;
  gboolean *flags[] = { &shut, &s.done, NULL };

  start_host (f);
  submit_start (f, SLEEPING_CHILD, &s);
  zot_test_wait_for (&f->child_tool_called, 20000);

  /* The abort reaches the child, which returns well within the wait. */
  zot_host_shutdown_async (f->host, NULL, shutdown_cb, &shut);
  f->shut_down = TRUE;
  zot_test_wait_until (all_done, flags, 20000);
  g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (f->stop_after_end);

  events = recorded_events (f);
  g_assert_cmpstr (member (event_named (events, "subagent_stop", 0), "status"), ==, "cancelled");
  assert_before (events, "subagent_stop", "session_end");
}

static void
test_shutdown_timeout (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(TestStubbornTool) stubborn = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(ZotTestSubmit) s = { 0 };
  gboolean shut = FALSE;
  gint64 begin;
  gint64 waited_ms;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_SUBAGENT_SHUTDOWN, 300);
  start_host (f);
  stubborn = add_stubborn (f);

  submit_start (f, "tool: subagent {\"task\":\"tool: stubborn {}\"}", &s);
  zot_test_wait_until (stubborn_entered, stubborn, 20000);

  /* A runner that ignores the abort holds shutdown for the wait, no more. */
  begin = g_get_monotonic_time ();
  zot_host_shutdown_async (f->host, NULL, shutdown_cb, &shut);
  f->shut_down = TRUE;
  zot_test_wait_for (&shut, 20000);
  g_assert_cmpint (f->session_end_time, !=, 0);
  waited_ms = (f->session_end_time - begin) / 1000;
  g_assert_cmpint (waited_ms, >=, 300);
  g_assert_cmpint (waited_ms, <, ZOT_SUBAGENT_SHUTDOWN_WAIT_MS);
  g_assert_true (stubborn_entered (stubborn));
  g_assert_cmpuint (zot_subagent_tool_get_n_running (subagent_tool (f)), ==, 1);
  g_assert_false (s.done);

  /* The extensions closed before the runner returned: no stop for them. */
  events = recorded_events (f);
  g_assert_cmpint (event_index (events, "session_end", 0), >=, 0);
  g_assert_cmpint (event_index (events, "subagent_start", 0), >=, 0);
  g_assert_cmpint (event_index (events, "subagent_stop", 0), ==, -1);

  /* When it does return, the run ends as cancelled. */
  stubborn_release (stubborn);
  zot_test_wait_for (&s.done, 20000);
  g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (f->stop_after_end);
  g_assert_cmpuint (zot_subagent_tool_get_n_running (subagent_tool (f)), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");

#define ADD(path, func) \
  g_test_add ("/zot/subagent/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("new-destroy", test_new_destroy);
  ADD ("say-hi", test_say_hi);
  ADD ("child-tools", test_child_tools);
  ADD ("guard-applies", test_guard_applies);
  ADD ("approval-names-subagent", test_approval_names_subagent);
  ADD ("resume", test_resume);
  ADD ("failed", test_failed);
  ADD ("abort", test_abort);
  ADD ("concurrent-batch", test_concurrent_batch);
  ADD ("shutdown-waits", test_shutdown_waits);
  ADD ("shutdown-timeout", test_shutdown_timeout);

#undef ADD

  return g_test_run ();
}
