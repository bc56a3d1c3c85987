/* test-examples.c — the example extensions of examples/extensions/, run
 * for real through ZotHost with the demo model: what their READMEs promise
 * is what they do. Skipped where their interpreter is missing. */
#include "config.h"

#include <string.h>

#include "zot-agent.h"
#include "zot-command-reply.h"
#include "zot-host.h"
#include "zot-test-util.h"

#define SUMMARIZE "summarize-file"

/* Eight lines, sixteen words, two headings, and a heading-like line in a
 * code fence that is not one. */
#define NOTES_TEXT "# Notes\n\nfirst line\n## Part two\nsecond line here\n```\n# not a heading\n```\n"
#define NOTES_SUMMARY "notes.md: 8 lines, 16 words"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *events;  /* every lifecycle event frame */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->host != NULL)
    {
      g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
      zot_test_finalize_host (&f->host);
    }

  g_clear_pointer (&f->events, g_ptr_array_unref);
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

/* The example's directory in the source tree. */
static char *
example_dir (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "examples", "extensions", name, NULL);

  return g_canonicalize_filename (path, NULL);
}

static gboolean
skip_without (const char *program)
{
  g_autofree char *path = g_find_program_in_path (program);
  g_autofree char *why = NULL;

  if (path != NULL)
    return FALSE;

  why = g_strdup_printf ("%s is not installed", program);
  g_test_skip (why);
  return TRUE;
}

/* A headless host (automatic approvals) with the example @name loaded, and
 * NOTES_TEXT in notes.md of its working directory. */
static void
start_host (Fixture    *f,
            const char *name)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = example_dir (name);
  g_autofree char *notes = g_build_filename (f->env.cwd, "notes.md", NULL);
  char *paths[] = { dir, NULL };

  g_assert_true (g_file_set_contents (notes, NOTES_TEXT, -1, NULL));

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv (paths);
  options.no_ext = TRUE;
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = FALSE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  g_signal_connect (zot_host_get_manager (f->host), "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);

  g_assert_true (zot_extension_get_state (zot_extension_manager_find (zot_host_get_manager (f->host), name)) ==
                 ZOT_EXTENSION_STATE_READY);
}

static void
assert_contains (const char *text,
                 const char *part)
{
  if (text == NULL || strstr (text, part) == NULL)
    g_error ("\"%s\" does not contain \"%s\"", text ? text : "(null)", part);
}

/* The read with lifecycle id @tool_id: its events say who asked. */
static void
assert_nested_read (Fixture    *f,
                    const char *tool_id)
{
  JsonObject *event;

  event = zot_test_find_event (f->events, "tool_call", tool_id);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, SUMMARIZE);
  g_assert_cmpstr (zot_test_json_string_at (event, "tool_args/path"), ==, "notes.md");

  event = zot_test_find_event (f->events, "permission_decision", tool_id);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "decision"), ==, "approved");
  g_assert_cmpstr (json_object_get_string_member (event, "source"), ==, "yolo");

  event = zot_test_find_event (f->events, "tool_result", tool_id);
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, SUMMARIZE);
}

static void
test_summarize_tool (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *nested_id = NULL;
  const char *parent_id;
  const char *summary;
  JsonObject *result;

  if (skip_without ("python3"))
    return;
  start_host (f, SUMMARIZE);

  zot_test_submit (f->host, "tool: summarize_file {\"path\":\"notes.md\",\"max_lines\":2}", &s);
  g_assert_no_error (s.error);
  g_assert_true (s.ok);
  assert_contains (s.text, "returned: " NOTES_SUMMARY);

  /* The model's call came back with the summary. */
  parent_id = zot_test_model_call_id (f->events, "summarize_file");
  result = zot_test_find_event (f->events, "tool_result", parent_id);
  g_assert_nonnull (result);
  g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "completed");
  summary = zot_test_json_string_at (result, "result/content/0/text");
  g_assert_true (g_str_has_prefix (summary, NOTES_SUMMARY "\nHeadings:\n  # Notes\n  ## Part two\n"
                                            "First 2 lines:\n  # Notes\n"));
  g_assert_null (strstr (summary, "first line"));

  /* It read the file through the host, as a child of that call. */
  nested_id = g_strdup_printf ("%s/1", parent_id);
  assert_nested_read (f, nested_id);
  g_assert_null (zot_test_find_event (f->events, "tool_call", SUMMARIZE ":1"));
}

static void
test_summarize_tool_error (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *nested_id = NULL;
  const char *parent_id;
  JsonObject *result;

  if (skip_without ("python3"))
    return;
  start_host (f, SUMMARIZE);

  zot_test_submit (f->host, "tool: summarize_file {\"path\":\"missing.md\"}", &s);
  g_assert_no_error (s.error);

  /* The read's failure is the tool's error result, with the reason. */
  parent_id = zot_test_model_call_id (f->events, "summarize_file");
  result = zot_test_find_event (f->events, "tool_result", parent_id);
  g_assert_nonnull (result);
  g_assert_true (json_node_get_boolean (zot_test_json_node_at (result, "result/is_error")));
  assert_contains (zot_test_json_string_at (result, "result/content/0/text"), "cannot summarize missing.md: ");

  nested_id = g_strdup_printf ("%s/1", parent_id);
  result = zot_test_find_event (f->events, "tool_result", nested_id);
  g_assert_nonnull (result);
  g_assert_cmpstr (json_object_get_string_member (result, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (result, "status"), ==, "failed");
}

static void
test_summarize_command (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(ZotCommandReply) failed = NULL;
  g_autoptr(GError) error = NULL;
  ZotExtensionManager *manager;
  JsonObject *event;

  if (skip_without ("python3"))
    return;
  start_host (f, SUMMARIZE);
  manager = zot_host_get_manager (f->host);

  reply = zot_test_run_command_reply (manager, "summarize", "notes.md", &error);
  g_assert_no_error (error);
  g_assert_null (zot_command_reply_get_error (reply));
  g_assert_cmpint (zot_command_reply_get_kind (reply), ==, ZOT_COMMAND_REPLY_DISPLAY);
  assert_contains (zot_command_reply_get_text (reply), NOTES_SUMMARY);
  assert_contains (zot_command_reply_get_text (reply), "First 5 lines:");

  /* A command has no parent: the read is the extension's own call. */
  event = zot_test_find_event (f->events, "tool_call", SUMMARIZE ":1");
  g_assert_nonnull (event);
  g_assert_cmpstr (json_object_get_string_member (event, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (event, "origin_extension"), ==, SUMMARIZE);
  assert_nested_read (f, SUMMARIZE ":1");

  /* A read that fails is the command's error line. */
  failed = zot_test_run_command_reply (manager, "summarize", "missing.md", &error);
  g_assert_no_error (error);
  g_assert_nonnull (zot_command_reply_get_error (failed));
  assert_contains (zot_command_reply_get_error (failed)->message, "cannot summarize missing.md: ");

  /* And without a path, the usage. */
  g_clear_pointer (&failed, zot_command_reply_unref);
  failed = zot_test_run_command_reply (manager, "summarize", "", &error);
  g_assert_no_error (error);
  g_assert_nonnull (zot_command_reply_get_error (failed));
  assert_contains (zot_command_reply_get_error (failed)->message, "usage: /summarize PATH");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) \
  g_test_add ("/zot/examples/" path, Fixture, NULL, fixture_setup, fn, fixture_teardown)

  ADD ("summarize-file/tool", test_summarize_tool);
  ADD ("summarize-file/tool-error", test_summarize_tool_error);
  ADD ("summarize-file/command", test_summarize_command);

  return g_test_run ();
}
