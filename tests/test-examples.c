/* test-examples.c — the example extensions of examples/extensions/, run
 * for real through ZotHost with the demo model: what their READMEs promise
 * is what they do. Each runs from a copy of its folder, so that its state
 * files stay out of the source tree. Also the files the Node examples ship
 * that must not drift: the compiled scratchpad.mjs and their copies of the
 * Node SDK. Skipped where their interpreter (or tsc) is missing. */
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

/* Long enough for tsc on a loaded machine; a safety net, not a wait. */
#define TSC_DEADLINE_MS 240000
/* A reminder is due after a few milliseconds: this is how long its note
 * may take to arrive on a loaded machine. */
#define NOTE_DEADLINE_MS 30000

typedef struct
{
  ZotTestEnv     env;
  ZotHost       *host;
  char          *dir;       /* the example's copy the host runs */
  GPtrArray     *events;    /* every lifecycle event frame */
  GPtrArray     *notes;     /* "level: message" of every note */
  guint          cleared;   /* clear_notes received */
  guint          panel_updates;
  ZotTestSubmit  submit;    /* the prompt an extension submitted */
  char          *submitted; /* its text */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  f->notes = g_ptr_array_new_with_free_func (g_free);
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

  zot_test_submit_clear (&f->submit);
  g_clear_pointer (&f->submitted, g_free);
  g_clear_pointer (&f->notes, g_ptr_array_unref);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  g_clear_pointer (&f->dir, g_free);
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
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               Fixture             *f)
{
  g_ptr_array_add (f->notes, g_strdup_printf ("%s: %s", level, message));
}

static void
on_notes_cleared (ZotExtensionManager *manager,
                  ZotExtension        *extension,
                  Fixture             *f)
{
  f->cleared++;
}

static void
on_panel_updated (ZotExtensionManager *manager,
                  ZotExtension        *extension,
                  ZotPanel            *panel,
                  Fixture             *f)
{
  f->panel_updates++;
}

/* What the window does with an extension's `submit`: the prompt runs. */
static gboolean
on_submit_requested (ZotExtensionManager *manager,
                     ZotExtension        *extension,
                     const char          *text,
                     Fixture             *f)
{
  g_assert_null (f->submitted);
  f->submitted = g_strdup (text);
  zot_test_submit_clear (&f->submit);
  zot_host_submit_for_extension_async (f->host, extension, text, NULL, zot_test_submit_cb, &f->submit);
  return TRUE;
}

static char *
source_path (const char *first,
             ...) G_GNUC_NULL_TERMINATED;

/* A path in the source tree, from its top. */
static char *
source_path (const char *first,
             ...)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  g_autofree char *path = NULL;
  const char *part;
  va_list ap;

  g_ptr_array_add (parts, (gpointer) g_test_get_dir (G_TEST_DIST));
  g_ptr_array_add (parts, (gpointer) "..");
  va_start (ap, first);
  for (part = first; part != NULL; part = va_arg (ap, const char *))
    g_ptr_array_add (parts, (gpointer) part);
  va_end (ap);
  g_ptr_array_add (parts, NULL);

  path = g_build_filenamev ((char **) parts->pdata);
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

/* Copies the files and folders of @from into @to (created). State an
 * earlier run by hand left in the source tree stays behind. */
static void
copy_tree (const char *from,
           const char *to)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (from, 0, &error);
  const char *name;

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (to, 0700), ==, 0);

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *source = g_build_filename (from, name, NULL);
      g_autofree char *target = g_build_filename (to, name, NULL);
      g_autofree char *contents = NULL;
      gsize length;

      if (g_str_equal (name, "scratchpad.json"))
        continue;
      if (g_file_test (source, G_FILE_TEST_IS_DIR))
        {
          copy_tree (source, target);
          continue;
        }
      g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (target, contents, length, NULL));
    }
}

/* A host with the demo model and a copy of the example @name loaded, and
 * NOTES_TEXT in notes.md of its working directory: headless, or
 * @interactive like the window (panels, panel_widgets) with approvals on
 * yolo. */
static void
start_host (Fixture    *f,
            const char *name,
            gboolean    interactive)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *source = source_path ("examples", "extensions", name, NULL);
  g_autofree char *notes = g_build_filename (f->env.cwd, "notes.md", NULL);
  ZotExtensionManager *manager;
  char *paths[] = { NULL, NULL };

  g_assert_true (g_file_set_contents (notes, NOTES_TEXT, -1, NULL));

  f->dir = g_build_filename (f->env.root, "examples", name, NULL);
  copy_tree (source, f->dir);
  paths[0] = f->dir;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv (paths);
  options.no_ext = TRUE;
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = interactive;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  manager = zot_host_get_manager (f->host);

  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
  g_signal_connect (manager, "note-added", G_CALLBACK (on_note_added), f);
  g_signal_connect (manager, "notes-cleared", G_CALLBACK (on_notes_cleared), f);
  g_signal_connect (manager, "panel-updated", G_CALLBACK (on_panel_updated), f);
  g_signal_connect (manager, "submit-requested", G_CALLBACK (on_submit_requested), f);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
  if (interactive)
    zot_extension_manager_set_policy (manager, ZOT_APPROVAL_POLICY_YOLO);

  g_assert_true (zot_extension_get_state (zot_extension_manager_find (manager, name)) ==
                 ZOT_EXTENSION_STATE_READY);
}

static void
assert_contains (const char *text,
                 const char *part)
{
  if (text == NULL || strstr (text, part) == NULL)
    g_error ("\"%s\" does not contain \"%s\"", text ? text : "(null)", part);
}

/* Runs /@name @args; the reply must be a display, whose text is returned. */
static char *
run_display (Fixture    *f,
             const char *name,
             const char *args)
{
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), name, args, &error);
  g_assert_no_error (error);
  if (zot_command_reply_get_error (reply) != NULL)
    g_error ("/%s %s: %s", name, args, zot_command_reply_get_error (reply)->message);
  g_assert_cmpint (zot_command_reply_get_kind (reply), ==, ZOT_COMMAND_REPLY_DISPLAY);
  return g_strdup (zot_command_reply_get_text (reply));
}

/* Runs /@name @args; the reply must carry an error, which contains @part. */
static void
assert_command_error (Fixture    *f,
                      const char *name,
                      const char *args,
                      const char *part)
{
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), name, args, &error);
  g_assert_no_error (error);
  g_assert_nonnull (zot_command_reply_get_error (reply));
  assert_contains (zot_command_reply_get_error (reply)->message, part);
}

/* Has the demo model call @tool with @args; returns the result's text and
 * whether it is an error. */
static char *
call_tool (Fixture    *f,
           const char *tool,
           const char *args,
           gboolean   *is_error)
{
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *prompt = g_strdup_printf ("tool: %s %s", tool, args);
  JsonObject *result;

  g_ptr_array_set_size (f->events, 0);
  zot_test_submit (f->host, prompt, &s);
  g_assert_no_error (s.error);

  result = zot_test_find_event (f->events, "tool_result", zot_test_model_call_id (f->events, tool));
  g_assert_nonnull (result);
  *is_error = json_node_get_boolean (zot_test_json_node_at (result, "result/is_error"));
  return g_strdup (zot_test_json_string_at (result, "result/content/0/text"));
}

static gboolean
has_note (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  const char *note = ((gpointer *) data)[1];

  for (guint i = 0; i < f->notes->len; i++)
    if (g_str_equal (g_ptr_array_index (f->notes, i), note))
      return TRUE;
  return FALSE;
}

static void
wait_for_note (Fixture    *f,
               const char *note)
{
  gpointer data[] = { f, (gpointer) note };

  zot_test_wait_until (has_note, data, NOTE_DEADLINE_MS);
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
  start_host (f, SUMMARIZE, FALSE);

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
  start_host (f, SUMMARIZE, FALSE);

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
  start_host (f, SUMMARIZE, FALSE);
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

/* scratchpad */

static char *
read_pad (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->dir, "scratchpad.json", NULL);

  return zot_test_read_file (path);
}

static void
test_scratchpad_tools (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *saved = NULL;
  g_autofree char *second = NULL;
  g_autofree char *replaced = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *read = NULL;
  g_autofree char *pad = NULL;
  gboolean is_error;

  if (skip_without ("node"))
    return;
  start_host (f, "scratchpad", FALSE);

  saved = call_tool (f, "scratchpad_write", "{\"text\":\"buy milk\"}", &is_error);
  g_assert_false (is_error);
  g_assert_cmpstr (saved, ==, "Saved note 1 (1 note on the scratchpad).");
  second = call_tool (f, "scratchpad_write", "{\"text\":\"call Ada\\nabout the protocol\"}", &is_error);
  g_assert_false (is_error);
  g_assert_cmpstr (second, ==, "Saved note 2 (2 notes on the scratchpad).");
  replaced = call_tool (f, "scratchpad_write", "{\"text\":\"buy oat milk\",\"id\":1}", &is_error);
  g_assert_false (is_error);
  g_assert_cmpstr (replaced, ==, "Replaced note 1 (2 notes on the scratchpad).");

  missing = call_tool (f, "scratchpad_write", "{\"text\":\"x\",\"id\":9}", &is_error);
  g_assert_true (is_error);
  assert_contains (missing, "no note 9 to replace");

  read = call_tool (f, "scratchpad_read", "{}", &is_error);
  g_assert_false (is_error);
  g_assert_cmpstr (read, ==, "Scratchpad (2 notes):\n1. buy oat milk\n2. call Ada\n   about the protocol");

  /* Saved beside the extension. */
  pad = read_pad (f);
  assert_contains (pad, "\"text\": \"buy oat milk\"");
  assert_contains (pad, "\"next\": 3");
}

static void
test_scratchpad_headless (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *empty = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *deleted = NULL;
  g_autofree char *cleared = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *bad = NULL;
  g_autofree char *pad_path = NULL;
  gboolean is_error;

  if (skip_without ("node"))
    return;
  start_host (f, "scratchpad", FALSE);

  /* No panels headless: the notes as a note. */
  empty = run_display (f, "scratchpad", "");
  g_assert_cmpstr (empty, ==, "The scratchpad is empty.");

  g_free (call_tool (f, "scratchpad_write", "{\"text\":\"one\"}", &is_error));
  g_free (call_tool (f, "scratchpad_write", "{\"text\":\"two\"}", &is_error));
  listed = run_display (f, "scratchpad", "");
  g_assert_cmpstr (listed, ==, "Scratchpad (2 notes):\n1. one\n2. two");

  deleted = run_display (f, "scratchpad", "delete 1");
  g_assert_cmpstr (deleted, ==, "Deleted note 1: one");
  assert_command_error (f, "scratchpad", "delete 1", "no note 1: see /scratchpad list");
  assert_command_error (f, "scratchpad", "delete", "give the number of the note to delete");
  assert_command_error (f, "scratchpad", "frob", "unknown subcommand 'frob'; usage: /scratchpad");
  cleared = run_display (f, "scratchpad", "clear");
  g_assert_cmpstr (cleared, ==, "Cleared 1 note.");

  /* A pad that is not JSON is named, with the fix, and left alone. */
  pad_path = g_build_filename (f->dir, "scratchpad.json", NULL);
  g_assert_true (g_file_set_contents (pad_path, "{not json", -1, NULL));
  assert_command_error (f, "scratchpad", "list", "scratchpad.json is not JSON");
  saved = call_tool (f, "scratchpad_write", "{\"text\":\"three\"}", &is_error);
  g_assert_true (is_error);
  assert_contains (saved, "fix it or move it away");
  bad = read_pad (f);
  g_assert_cmpstr (bad, ==, "{not json");
}

static gboolean
panel_updated (gpointer data)
{
  return ((Fixture *) data)->panel_updates > 0;
}

static void
test_scratchpad_panel (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = NULL;
  g_autofree char *pad = NULL;
  ZotExtensionManager *manager;
  ZotPanelNode *node;
  ZotPanelRow *row;
  ZotPanel *panel;
  GPtrArray *panels;
  gboolean is_error;

  if (skip_without ("node"))
    return;
  start_host (f, "scratchpad", TRUE);
  manager = zot_host_get_manager (f->host);

  g_free (call_tool (f, "scratchpad_write", "{\"text\":\"buy milk\\nand eggs\"}", &is_error));
  g_assert_false (is_error);

  /* The window offers panel_widgets: a list with a delete button a note. */
  reply = zot_test_run_command_reply (manager, "scratchpad", "", &error);
  g_assert_no_error (error);
  g_assert_null (zot_command_reply_get_error (reply));
  g_assert_cmpint (zot_command_reply_get_kind (reply), ==, ZOT_COMMAND_REPLY_PANEL);

  panels = zot_extension_manager_list_panels (manager);
  g_assert_cmpuint (panels->len, ==, 1);
  panel = g_ptr_array_index (panels, 0);
  g_assert_cmpstr (zot_panel_get_id (panel), ==, "scratchpad");
  g_assert_nonnull (zot_panel_get_widgets (panel));
  g_assert_cmpuint (zot_panel_node_count_errors (zot_panel_get_widgets (panel)), ==, 0);
  node = zot_panel_node_find (zot_panel_get_widgets (panel), "notes");
  g_assert_nonnull (node);
  g_assert_cmpuint (node->rows->len, ==, 1);
  row = g_ptr_array_index (node->rows, 0);
  g_assert_cmpstr (row->id, ==, "note-1");
  g_assert_cmpstr (row->title, ==, "buy milk");
  g_assert_cmpuint (row->buttons->len, ==, 1);
  g_assert_cmpstr (((ZotPanelRowButton *) g_ptr_array_index (row->buttons, 0))->id, ==, "delete");

  /* A note the model writes shows in the open panel. */
  f->panel_updates = 0;
  g_free (call_tool (f, "scratchpad_write", "{\"text\":\"call Ada\"}", &is_error));
  zot_test_wait_until (panel_updated, f, NOTE_DEADLINE_MS);
  g_assert_cmpuint (zot_panel_node_find (zot_panel_get_widgets (panel), "notes")->rows->len, ==, 2);

  /* Its delete button. */
  f->panel_updates = 0;
  value = json_from_string ("{\"row\":\"note-1\",\"button\":\"delete\"}", &error);
  g_assert_no_error (error);
  g_assert_true (zot_panel_send_event (panel, "notes", "button", value));
  wait_for_note (f, "success: Deleted note 1: buy milk");
  zot_test_wait_until (panel_updated, f, NOTE_DEADLINE_MS);
  node = zot_panel_node_find (zot_panel_get_widgets (panel), "notes");
  g_assert_cmpuint (node->rows->len, ==, 1);
  g_assert_cmpstr (((ZotPanelRow *) g_ptr_array_index (node->rows, 0))->id, ==, "note-2");

  /* Clear all. */
  f->panel_updates = 0;
  g_assert_true (zot_panel_send_event (panel, "clear", "clicked", NULL));
  wait_for_note (f, "success: Cleared 1 note.");
  zot_test_wait_until (panel_updated, f, NOTE_DEADLINE_MS);
  g_assert_cmpuint (zot_panel_node_find (zot_panel_get_widgets (panel), "notes")->rows->len, ==, 0);
  g_assert_false (zot_panel_node_find (zot_panel_get_widgets (panel), "clear")->sensitive);
  pad = read_pad (f);
  assert_contains (pad, "\"notes\": []");
}

typedef struct
{
  gboolean  done;
  char     *output;
} TscRun;

static void
tsc_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  TscRun *run = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &run->output, NULL, &error);
  g_assert_no_error (error);
  run->done = TRUE;
}

/* An extension spoken to directly over its pipes, for what no host mode
 * reaches: the lines panel of a host with `panels` but not
 * `panel_widgets`. */
typedef struct
{
  GSubprocess      *process;
  GOutputStream    *input;
  GDataInputStream *output;
  GPtrArray        *lines;  /* every line it wrote */
  gboolean          ended;  /* its stdout closed */
  gboolean          exited;
} Direct;

static void
direct_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Direct *d = user_data;
  char *line = g_data_input_stream_read_line_finish_utf8 (d->output, result, NULL, NULL);

  if (line == NULL)
    {
      d->ended = TRUE;
      return;
    }
  g_ptr_array_add (d->lines, line);
  g_data_input_stream_read_line_async (d->output, G_PRIORITY_DEFAULT, NULL, direct_read_cb, d);
}

static void
direct_start (Direct     *d,
              const char *dir,
              const char *program)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GError) error = NULL;

  g_subprocess_launcher_set_cwd (launcher, dir);
  d->process = g_subprocess_launcher_spawn (launcher, &error, "node", program, NULL);
  g_assert_no_error (error);
  d->input = g_subprocess_get_stdin_pipe (d->process);
  d->output = g_data_input_stream_new (g_subprocess_get_stdout_pipe (d->process));
  d->lines = g_ptr_array_new_with_free_func (g_free);
  g_data_input_stream_read_line_async (d->output, G_PRIORITY_DEFAULT, NULL, direct_read_cb, d);
}

static void
direct_send (Direct     *d,
             const char *frame)
{
  g_autofree char *line = g_strconcat (frame, "\n", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_output_stream_write_all (d->input, line, strlen (line), NULL, NULL, &error));
  g_assert_no_error (error);
}

typedef struct
{
  Direct     *d;
  guint       from;
  const char *part;
  const char *found;
} DirectWait;

static gboolean
direct_has_line (gpointer data)
{
  DirectWait *w = data;

  for (guint i = w->from; i < w->d->lines->len && w->found == NULL; i++)
    if (strstr (g_ptr_array_index (w->d->lines, i), w->part) != NULL)
      w->found = g_ptr_array_index (w->d->lines, i);
  return w->found != NULL || w->d->ended;
}

/* The first line from the @from-th on that contains @part, waited for. */
static const char *
direct_expect (Direct     *d,
               guint       from,
               const char *part)
{
  DirectWait w = { d, from, part, NULL };

  zot_test_wait_until (direct_has_line, &w, NOTE_DEADLINE_MS);
  if (w.found == NULL)
    g_error ("the extension ended without a line containing %s", part);
  return w.found;
}

static gboolean
direct_ended (gpointer data)
{
  Direct *d = data;

  return d->ended && d->exited;
}

static void
direct_exited_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  ((Direct *) user_data)->exited = TRUE;
}

/* Closes its input and waits for it to end: no read is left pending. */
static void
direct_finish (Direct *d)
{
  g_output_stream_close (d->input, NULL, NULL);
  g_subprocess_wait_async (d->process, NULL, direct_exited_cb, d);
  zot_test_wait_until (direct_ended, d, NOTE_DEADLINE_MS);
  g_assert_true (g_subprocess_get_successful (d->process));
  g_clear_object (&d->output);
  g_clear_object (&d->process);
  g_clear_pointer (&d->lines, g_ptr_array_unref);
}

static void
test_scratchpad_lines (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *source = source_path ("examples", "extensions", "scratchpad", NULL);
  g_autofree char *dir = g_build_filename (f->env.root, "scratchpad", NULL);
  g_autofree char *ack = NULL;
  Direct d = { 0 };
  const char *line;
  guint mark;

  if (skip_without ("node"))
    return;
  copy_tree (source, dir);
  direct_start (&d, dir, "scratchpad.mjs");

  /* The SDK starts the handlers of one read after the whole read, so each
   * step waits for the answer to the one before. */
  direct_expect (&d, 0, "\"type\":\"hello\"");
  ack = g_strdup_printf ("{\"type\":\"hello_ack\",\"protocol_version\":1,\"capabilities\":[\"panels\"],"
                         "\"data_dir\":\"%s\"}", dir);
  direct_send (&d, ack);
  direct_expect (&d, 0, "\"type\":\"ready\"");
  direct_send (&d, "{\"type\":\"tool_call\",\"id\":\"t1\",\"name\":\"scratchpad_write\",\"args\":{\"text\":\"one\"}}");
  direct_send (&d, "{\"type\":\"tool_call\",\"id\":\"t2\",\"name\":\"scratchpad_write\",\"args\":{\"text\":\"two\"}}");
  direct_expect (&d, 0, "\"id\":\"t2\"");

  mark = d.lines->len;
  direct_send (&d, "{\"type\":\"command_invoked\",\"id\":\"c1\",\"name\":\"scratchpad\",\"args\":\"\"}");
  line = direct_expect (&d, mark, "\"type\":\"command_response\"");
  assert_contains (line, "\"action\":\"open_panel\"");
  assert_contains (line, "\"lines\":[\"\\u001b[1m▸ 1. one\\u001b[0m\",\"  2. two\"");
  assert_contains (line, "\"footer\":\"↑↓ move · d delete · c clear all · esc close\"");
  g_assert_null (strstr (line, "widgets"));

  mark = d.lines->len;
  direct_send (&d, "{\"type\":\"panel_key\",\"panel_id\":\"scratchpad\",\"key\":\"down\"}");
  line = direct_expect (&d, mark, "\"type\":\"panel_render\"");
  assert_contains (line, "\"  1. one\",\"\\u001b[1m▸ 2. two\\u001b[0m\"");

  mark = d.lines->len;
  direct_send (&d, "{\"type\":\"panel_key\",\"panel_id\":\"scratchpad\",\"key\":\"rune\",\"text\":\"d\"}");
  direct_expect (&d, mark, "{\"type\":\"notify\",\"level\":\"success\",\"message\":\"Deleted note 2: two\"}");
  line = direct_expect (&d, mark, "\"type\":\"panel_render\"");
  assert_contains (line, "\"lines\":[\"\\u001b[1m▸ 1. one\\u001b[0m\",\"\",");

  mark = d.lines->len;
  direct_send (&d, "{\"type\":\"panel_key\",\"panel_id\":\"scratchpad\",\"key\":\"esc\"}");
  direct_expect (&d, mark, "{\"type\":\"panel_close\",\"panel_id\":\"scratchpad\"}");

  direct_send (&d, "{\"type\":\"shutdown\"}");
  direct_expect (&d, mark, "{\"type\":\"shutdown_ack\"}");
  direct_finish (&d);
}

/* The compiled scratchpad.mjs is what tsc makes of scratchpad.mts today:
 * nobody edits one without the other. */
static void
test_scratchpad_compiled (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *tsc = NULL;
  g_autofree char *dir = source_path ("examples", "extensions", "scratchpad", NULL);
  g_autofree char *out = g_build_filename (f->env.root, "tsc-out", NULL);
  g_autofree char *committed_path = g_build_filename (dir, "scratchpad.mjs", NULL);
  g_autofree char *built_path = g_build_filename (out, "scratchpad.mjs", NULL);
  g_autofree char *committed = NULL;
  g_autofree char *built = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  TscRun run = { 0 };

  tsc = g_strdup (g_getenv ("TSC"));
  if (tsc == NULL)
    tsc = g_find_program_in_path ("tsc");
  if (tsc == NULL)
    {
      g_test_skip ("tsc is not installed (Debian: node-typescript, tools/deps.sh installs it)");
      return;
    }

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE,
                              &error, tsc, "-p", dir, "--outDir", out, NULL);
  g_assert_no_error (error);
  /* Its output is read as it comes, so that a long one cannot fill the pipe. */
  g_subprocess_communicate_utf8_async (process, NULL, NULL, tsc_done_cb, &run);
  zot_test_wait_for (&run.done, TSC_DEADLINE_MS);
  if (!g_subprocess_get_successful (process))
    g_error ("%s -p %s failed: %s", tsc, dir, run.output);
  g_free (run.output);

  committed = zot_test_read_file (committed_path);
  built = zot_test_read_file (built_path);
  if (g_strcmp0 (committed, built) != 0)
    g_error ("%s is not what tsc makes of scratchpad.mts: run `tsc -p examples/extensions/scratchpad` "
             "and commit scratchpad.mjs", committed_path);
}

/* The examples' copies of the Node SDK are the SDK, byte for byte: they
 * are copies only so that an installed example (a copied folder) finds it. */
static void
test_sdk_copies (Fixture       *f,
                 gconstpointer  data)
{
  static const char * const copies[][2] = {
    { "clock", "zotext.mjs" },
    { "scratchpad", "zotext.mjs" },
    { "scratchpad", "zotext.d.ts" },
    { "scratchpad", "zotext.d.mts" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      g_autofree char *sdk_path = source_path ("sdk", "node", copies[i][1], NULL);
      g_autofree char *copy_path = source_path ("examples", "extensions", copies[i][0], "vendor",
                                                copies[i][1], NULL);
      g_autofree char *sdk = zot_test_read_file (sdk_path);
      g_autofree char *copy = zot_test_read_file (copy_path);

      if (!g_file_test (sdk_path, G_FILE_TEST_IS_REGULAR))
        g_error ("%s is missing", sdk_path);
      if (g_strcmp0 (sdk, copy) != 0)
        g_error ("%s differs from %s: copy it again (cp %s %s)", copy_path, sdk_path, sdk_path, copy_path);
    }
}

/* clock */

static void
test_clock_status (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *notes = g_build_filename (f->env.cwd, "notes.txt", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  if (skip_without ("node"))
    return;
  start_host (f, "clock", FALSE);

  before = run_display (f, "clock", "");
  assert_contains (before, "It is ");
  assert_contains (before, "This session: 0 prompts, 0 model turns");
  assert_contains (before, "No reminders.");

  /* One prompt with a tool call: two model turns, counted from the events
   * (which reach the extension before the command that follows them). */
  g_assert_true (g_file_set_contents (notes, "a line\n", -1, NULL));
  zot_test_submit (f->host, "tool: read {\"path\":\"notes.txt\"}", &s);
  g_assert_no_error (s.error);
  after = run_display (f, "clock", "");
  assert_contains (after, "This session: 1 prompt, 2 model turns");

  assert_command_error (f, "clock", "frob", "unknown subcommand 'frob'; usage: /clock");
}

static void
test_clock_remind (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *set = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *pending = NULL;
  g_autofree char *status = NULL;

  if (skip_without ("node"))
    return;
  start_host (f, "clock", FALSE);

  /* The delay is the command's: a test sets it small. */
  set = run_display (f, "clock", "remind 20ms tea");
  assert_contains (set, "Reminder 1 at ");
  assert_contains (set, "(in 20 ms): tea");
  wait_for_note (f, "info: Reminder: tea");
  g_assert_null (f->submitted);

  listed = run_display (f, "clock", "list");
  g_assert_cmpstr (listed, ==, "No reminders.");

  g_ptr_array_set_size (f->notes, 0);
  g_free (run_display (f, "clock", "remind 1h later"));
  g_free (run_display (f, "clock", "remind 2h much later"));
  status = run_display (f, "clock", "");
  assert_contains (status, "2 reminders pending");
  g_free (run_display (f, "clock", "cancel 3"));
  pending = run_display (f, "clock", "list");
  assert_contains (pending, "Reminders:\n2. ");
  assert_contains (pending, " later");
  g_assert_null (strstr (pending, "much later"));

  assert_command_error (f, "clock", "remind soon tea", "\"soon\" is not a delay");
  assert_command_error (f, "clock", "remind 25h tea", "25h is longer than a day");
  assert_command_error (f, "clock", "remind 10", "a reminder needs a text");
  assert_command_error (f, "clock", "cancel 9", "no reminder 9");

  /* /clock clear takes back the clock's notes. */
  g_free (run_display (f, "clock", "clear"));
  g_assert_cmpuint (f->cleared, ==, 1);
  g_assert_cmpuint (f->notes->len, ==, 0);
}

static void
test_clock_remind_submit (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *set = NULL;
  g_autofree char *status = NULL;

  if (skip_without ("node"))
    return;
  start_host (f, "clock", FALSE);

  set = run_display (f, "clock", "remind 20ms --submit tea time");
  assert_contains (set, "tea time — then submitted as a prompt");

  /* The note, then the prompt runs as if typed. */
  wait_for_note (f, "info: Reminder: tea time");
  zot_test_wait_for (&f->submit.done, NOTE_DEADLINE_MS);
  g_assert_cmpstr (f->submitted, ==, "tea time");
  g_assert_no_error (f->submit.error);
  assert_contains (f->submit.text, "You said: tea time");

  status = run_display (f, "clock", "");
  assert_contains (status, "This session: 1 prompt, 1 model turn ");
}

/* Pending reminders are cancelled when the session ends: none fires into
 * a stopped extension, and its log says how many there were. */
static void
test_clock_shutdown (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *log = NULL;
  ZotExtension *clock;

  if (skip_without ("node"))
    return;
  start_host (f, "clock", FALSE);
  clock = zot_extension_manager_find (zot_host_get_manager (f->host), "clock");

  g_free (run_display (f, "clock", "remind 1h later"));
  g_free (run_display (f, "clock", "remind 30m --submit soon"));
  zot_test_stop_extension (clock);
  g_assert_true (zot_extension_get_state (clock) == ZOT_EXTENSION_STATE_EXITED);

  log = zot_test_read_file (zot_extension_get_log_path (clock));
  assert_contains (log, "shutdown: cancelled 2 pending reminders");
  g_assert_cmpuint (f->notes->len, ==, 0);
  g_assert_null (f->submitted);
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
  ADD ("sdk-copies", test_sdk_copies);
  ADD ("scratchpad/compiled", test_scratchpad_compiled);
  ADD ("scratchpad/tools", test_scratchpad_tools);
  ADD ("scratchpad/headless", test_scratchpad_headless);
  ADD ("scratchpad/panel", test_scratchpad_panel);
  ADD ("scratchpad/lines", test_scratchpad_lines);
  ADD ("clock/status", test_clock_status);
  ADD ("clock/remind", test_clock_remind);
  ADD ("clock/remind-submit", test_clock_remind_submit);
  ADD ("clock/shutdown", test_clock_shutdown);

  return g_test_run ();
}
