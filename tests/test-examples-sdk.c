/* test-examples-sdk.c — the examples written on the SDKs: the Python ones
 * on sdk/python (todo, ask-user, weather, summarize-file), c-word-count on
 * libzot-ext-1 and gjs-panel on the same library through introspection.
 * Each passes `zot ext check`; todo and c-word-count run under the host
 * headless with the demo model, todo's and gjs-panel's panels under an
 * interactive one (as the window runs them). The Python examples' copies
 * of zotext.py are the SDK's, byte for byte. The other Python examples'
 * own tests are in test-examples.c, test-codemode.c and
 * test-gui-panel-widgets.c. Skipped where their interpreter or the build's
 * typelib is missing. */
#include "config.h"

#include <string.h>

#include "zot-command-reply.h"
#include "zot-host.h"
#include "zot-panel.h"
#include "zot-panel-widgets.h"
#include "zot-test-util.h"

#define NOTES_TEXT "one two three\nfour five\n\nsix\n"

/* How long a panel_render may take to arrive on a loaded machine. */
#define PANEL_DEADLINE_MS 30000
/* `zot ext check` of one example ends by its own deadlines; this one only
 * guards the test. */
#define CHECK_DEADLINE_MS 240000

static const char * const python_examples[] = { "todo", "ask-user", "weather", "summarize-file" };

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *events;         /* every lifecycle event frame */
  GPtrArray  *notes;          /* "level: message" of every note */
  guint       panel_updates;
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
      ZotExtensionManager *manager = zot_host_get_manager (f->host);

      g_signal_handlers_disconnect_by_data (manager, f);
      g_signal_handlers_disconnect_by_data (manager, f->events);
      g_signal_handlers_disconnect_by_data (manager, f->notes);
      zot_test_finalize_host (&f->host);
    }
  g_clear_pointer (&f->notes, g_ptr_array_unref);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

static void
on_panel (ZotExtensionManager *manager,
          ZotExtension        *extension,
          ZotPanel            *panel,
          Fixture             *f)
{
  f->panel_updates++;
}

/* The example folder @name of the source tree. */
static char *
example_source (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "examples", "extensions", name, NULL);

  return g_canonicalize_filename (path, NULL);
}

/* Where an example runs: the built folder of a compiled one (named by the
 * build in @env_var), else a copy of its source folder under the test's
 * root, so that the state it keeps stays out of the tree. */
static char *
example_dir (Fixture    *f,
             const char *name,
             const char *env_var)
{
  g_autofree char *source = NULL;
  g_autofree char *copy = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (env_var != NULL)
    {
      g_assert_nonnull (g_getenv (env_var));
      return g_strdup (g_getenv (env_var));
    }
  source = example_source (name);
  copy = g_build_filename (f->env.root, name, NULL);
  g_spawn_sync (NULL, (char *[]) { (char *) "cp", (char *) "-R", source, copy, NULL }, NULL,
                G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_steal_pointer (&copy);
}

/* Skips the test without @program; gjs also needs the build's typelib. */
static gboolean
missing (const char *program)
{
  g_autofree char *path = g_find_program_in_path (program);
  g_autofree char *why = NULL;

  if (path == NULL)
    why = g_strdup_printf ("%s is not installed", program);
  else if (g_str_equal (program, "gjs") && g_getenv ("ZOT_EXAMPLE_TYPELIB") == NULL)
    why = g_strdup ("no ZotExt typelib for gjs: built without introspection, or sanitized");
  else
    return FALSE;
  g_test_skip (why);
  return TRUE;
}

/* A host with the demo model and the extension in @dir, NOTES_TEXT in
 * notes.md of its working directory; @interactive like the window. */
static void
start (Fixture    *f,
       const char *dir,
       const char *name,
       gboolean    interactive)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *notes = g_build_filename (f->env.cwd, "notes.md", NULL);
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;

  g_assert_true (g_file_set_contents (notes, NOTES_TEXT, -1, NULL));
  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.no_ext = TRUE;
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = interactive;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  manager = zot_host_get_manager (f->host);
  zot_test_record_events (manager, f->events);
  zot_test_record_notes (manager, f->notes);
  g_signal_connect (manager, "panel-updated", G_CALLBACK (on_panel), f);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
  /* Nested reads run without asking, as in the examples' READMEs. */
  zot_extension_manager_set_policy (manager, ZOT_APPROVAL_POLICY_YOLO);
  g_assert_true (zot_extension_get_state (zot_extension_manager_find (manager, name)) ==
                 ZOT_EXTENSION_STATE_READY);
}

/* The demo model calls @tool with @args; the lifecycle tool_result. */
static JsonObject *
model_calls (Fixture    *f,
             const char *tool,
             const char *args)
{
  g_auto(ZotTestSubmit) s = { 0 };
  g_autofree char *prompt = g_strdup_printf ("tool: %s %s", tool, args);
  JsonObject *result;

  g_ptr_array_set_size (f->events, 0);
  zot_test_submit (f->host, prompt, &s);
  g_assert_no_error (s.error);
  result = zot_test_find_event (f->events, "tool_result", zot_test_model_call_id (f->events, tool));
  g_assert_nonnull (result);
  return result;
}

/* The demo model calls @tool with @args; the result must be @text, or an
 * error containing @text when @is_error. */
static void
expect_result (Fixture    *f,
               const char *tool,
               const char *args,
               gboolean    is_error,
               const char *text)
{
  JsonObject *result = model_calls (f, tool, args);
  const char *got = zot_test_json_string_at (result, "result/content/0/text");

  g_assert_cmpint (json_node_get_boolean (zot_test_json_node_at (result, "result/is_error")), ==, is_error);
  if (is_error ? strstr (got, text) == NULL : !g_str_equal (got, text))
    g_error ("%s %s answered \"%s\", not \"%s\"", tool, args, got, text);
}

/* /@name @args, which must answer with @kind (and no error). */
static ZotCommandReply *
command (Fixture          *f,
         const char       *name,
         const char       *args,
         ZotCommandReplyKind kind)
{
  g_autoptr(GError) error = NULL;
  ZotCommandReply *reply;

  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), name, args, &error);
  g_assert_no_error (error);
  if (zot_command_reply_get_error (reply) != NULL)
    g_error ("/%s %s: %s", name, args, zot_command_reply_get_error (reply)->message);
  g_assert_cmpint (zot_command_reply_get_kind (reply), ==, kind);
  return reply;
}

static void
assert_command_fails (Fixture    *f,
                      const char *name,
                      const char *args,
                      const char *part)
{
  g_autoptr(ZotCommandReply) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = zot_test_run_command_reply (zot_host_get_manager (f->host), name, args, &error);
  g_assert_no_error (error);
  g_assert_nonnull (zot_command_reply_get_error (reply));
  if (strstr (zot_command_reply_get_error (reply)->message, part) == NULL)
    g_error ("/%s %s: \"%s\" lacks \"%s\"", name, args, zot_command_reply_get_error (reply)->message, part);
}

static gboolean
panel_updated (gpointer data)
{
  return ((Fixture *) data)->panel_updates > 0;
}

/* Sends @event of @widget_id (@value_json, or no value) and waits for the
 * panel's next render. */
static void
panel_event (Fixture    *f,
             ZotPanel   *panel,
             const char *widget_id,
             const char *event,
             const char *value_json)
{
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;

  if (value_json != NULL)
    {
      value = json_from_string (value_json, &error);
      g_assert_no_error (error);
    }
  f->panel_updates = 0;
  g_assert_true (zot_panel_send_event (panel, widget_id, event, value));
  zot_test_wait_until (panel_updated, f, PANEL_DEADLINE_MS);
}

static ZotPanelNode *
widget (ZotPanel   *panel,
        const char *id)
{
  ZotPanelNode *node = zot_panel_node_find (zot_panel_get_widgets (panel), id);

  g_assert_nonnull (node);
  return node;
}

static const char *
row_title (ZotPanel *panel,
           guint     i)
{
  return ((ZotPanelRow *) g_ptr_array_index (widget (panel, "items")->rows, i))->title;
}

/* Runs /@id in the interactive host, which must open the panel @id, the
 * only one, of widgets without an error. */
static ZotPanel *
open_panel (Fixture    *f,
            const char *id)
{
  g_autoptr(ZotCommandReply) opened = command (f, id, "", ZOT_COMMAND_REPLY_PANEL);
  GPtrArray *panels = zot_extension_manager_list_panels (zot_host_get_manager (f->host));
  ZotPanel *panel;

  g_assert_cmpuint (panels->len, ==, 1);
  panel = g_ptr_array_index (panels, 0);
  g_assert_cmpstr (zot_panel_get_id (panel), ==, id);
  g_assert_nonnull (zot_panel_get_widgets (panel));
  g_assert_cmpuint (zot_panel_node_count_errors (zot_panel_get_widgets (panel)), ==, 0);
  return panel;
}

/* ---- every example ---- */

/* The copies are there only so that an installed example (a copied
 * folder) finds the SDK: they must be the SDK. */
static void
test_python_copies (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *sdk_path = g_test_build_filename (G_TEST_DIST, "..", "sdk", "python", "zotext.py", NULL);
  g_autofree char *sdk = zot_test_read_file (sdk_path);

  g_assert_nonnull (sdk);
  for (guint i = 0; i < G_N_ELEMENTS (python_examples); i++)
    {
      g_autofree char *dir = example_source (python_examples[i]);
      g_autofree char *copy_path = g_build_filename (dir, "zotext.py", NULL);
      g_autofree char *copy = zot_test_read_file (copy_path);

      if (g_strcmp0 (sdk, copy) != 0)
        g_error ("%s differs from %s: copy it again (cp %s %s)", copy_path, sdk_path, sdk_path, copy_path);
    }
}

typedef struct
{
  const char *name;
  const char *program;  /* skipped without it */
  const char *env_var;  /* the built folder, for a compiled example */
} Example;

static const Example checked[] = {
  { "todo", "python3", NULL },
  { "ask-user", "python3", NULL },
  { "weather", "python3", NULL },
  { "summarize-file", "python3", NULL },
  { "c-word-count", NULL, "ZOT_EXAMPLE_C_WORD_COUNT" },
  { "gjs-panel", "gjs", NULL },
};

typedef struct
{
  gboolean  done;
  char     *out;
} Check;

static void
check_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  Check *check = data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &check->out, NULL, &error);
  g_assert_no_error (error);
  check->done = TRUE;
}

static void
test_ext_check (Fixture       *f,
                gconstpointer  data)
{
  const Example *example = data;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  Check check = { 0 };

  if (example->program != NULL && missing (example->program))
    return;
  dir = example_dir (f, example->name, example->env_var);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
  process = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("ZOT_BIN"), "ext", "check", dir, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, check_done_cb, &check);
  zot_test_wait_for (&check.done, CHECK_DEADLINE_MS);
  g_subprocess_wait (process, NULL, NULL);
  if (!g_subprocess_get_if_exited (process) || g_subprocess_get_exit_status (process) != 0)
    g_error ("zot ext check %s failed:\n%s", dir, check.out);
  g_assert_nonnull (strstr (check.out, " 0 failed, "));
  g_assert_nonnull (strstr (check.out, " 0 violations"));
  g_free (check.out);
}

/* ---- todo ---- */

static void
test_todo_headless (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotCommandReply) listed = NULL;
  g_autoptr(ZotCommandReply) done = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *store = NULL;
  g_autofree char *saved = NULL;

  if (missing ("python3"))
    return;
  dir = example_dir (f, "todo", NULL);
  start (f, dir, "todo", FALSE);

  expect_result (f, "todo_add", "{\"text\":\"water  the\\u001bplants\"}", FALSE,
                 "Added: water the plants (1 item)");
  expect_result (f, "todo_add", "{\"text\":\"  \"}", TRUE, "needs a non-empty \"text\"");

  /* Headless there are no panels: a bare /todo lists. */
  listed = command (f, "todo", "", ZOT_COMMAND_REPLY_DISPLAY);
  g_assert_cmpstr (zot_command_reply_get_text (listed), ==, "Todo list:\n1. [ ] water the plants");
  done = command (f, "TODO", "done 1", ZOT_COMMAND_REPLY_DISPLAY);
  g_assert_cmpstr (zot_command_reply_get_text (done), ==, "Todo list:\n1. [x] water the plants");
  assert_command_fails (f, "todo", "done 7", "no item '7' (the list has 1)");
  assert_command_fails (f, "todo", "add", "nothing to add");
  assert_command_fails (f, "todo", "frob", "unknown subcommand 'frob'");

  expect_result (f, "todo_list", "{}", FALSE, "Todo list:\n1. [x] water the plants");

  store = g_build_filename (dir, "todo.json", NULL);
  saved = zot_test_read_file (store);
  g_assert_nonnull (strstr (saved, "\"text\": \"water the plants\""));
  g_assert_cmpuint (f->notes->len, >=, 2);
  g_assert_cmpstr (g_ptr_array_index (f->notes, 0), ==, "success: Added: water the plants");
}

/* The panel of native widgets, as the window has it. */
static void
test_todo_panel (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *dir = NULL;
  ZotPanel *panel;

  if (missing ("python3"))
    return;
  dir = example_dir (f, "todo", NULL);
  start (f, dir, "todo", TRUE);
  panel = open_panel (f, "todo");
  g_assert_cmpint (widget (panel, "new")->type, ==, ZOT_PANEL_NODE_ENTRY);
  g_assert_cmpuint (widget (panel, "items")->rows->len, ==, 0);
  g_assert_false (widget (panel, "clear-done")->sensitive);

  panel_event (f, panel, "new", "submit", "\"buy milk\"");
  g_assert_cmpuint (widget (panel, "items")->rows->len, ==, 1);
  g_assert_cmpstr (row_title (panel, 0), ==, "buy milk");
  g_assert_cmpstr (widget (panel, "new")->value, ==, "");

  panel_event (f, panel, "items", "toggled", "{\"row\":\"item-0\",\"checked\":true}");
  g_assert_cmpint (((ZotPanelRow *) g_ptr_array_index (widget (panel, "items")->rows, 0))->checked, ==, 1);
  g_assert_true (widget (panel, "clear-done")->sensitive);

  panel_event (f, panel, "clear-done", "clicked", NULL);
  g_assert_cmpuint (widget (panel, "items")->rows->len, ==, 0);
  g_assert_cmpuint (f->notes->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->notes, 0), ==, "success: Added: buy milk");
  g_assert_cmpstr (g_ptr_array_index (f->notes, 1), ==, "success: Done: buy milk");
}

/* ---- c-word-count ---- */

static void
test_word_count_text (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = example_dir (f, "c-word-count", "ZOT_EXAMPLE_C_WORD_COUNT");

  start (f, dir, "c-word-count", FALSE);

  expect_result (f, "word_count", "{\"text\":\"Grüße an  alle\\nzweite Zeile\"}", FALSE,
                 "text: 5 words, 2 lines, 27 characters");
  expect_result (f, "word_count", "{\"text\":\"1\"}", FALSE, "text: 1 word, 1 line, 1 character");
  expect_result (f, "word_count", "{}", TRUE, "needs either");
}

static void
test_word_count_path (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = example_dir (f, "c-word-count", "ZOT_EXAMPLE_C_WORD_COUNT");
  g_autofree char *nested_id = NULL;
  const char *parent_id;
  JsonObject *read;

  start (f, dir, "c-word-count", FALSE);

  expect_result (f, "word_count", "{\"path\":\"notes.md\"}", FALSE, "notes.md: 6 words, 4 lines, 29 characters");

  /* The host read the file as a child of the model's call. */
  parent_id = zot_test_model_call_id (f->events, "word_count");
  nested_id = g_strdup_printf ("%s/1", parent_id);
  read = zot_test_find_event (f->events, "tool_result", nested_id);
  g_assert_nonnull (read);
  g_assert_cmpstr (json_object_get_string_member (read, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (read, "origin_extension"), ==, "c-word-count");

  /* A read that fails is the tool's error, with the reason. */
  expect_result (f, "word_count", "{\"path\":\"missing.md\"}", TRUE, "cannot count missing.md: ");
}

/* ---- gjs-panel ---- */

static void
test_gjs_panel (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *dir = example_source ("gjs-panel");
  ZotPanel *panel;

  if (missing ("gjs"))
    return;
  start (f, dir, "gjs-panel", TRUE);
  panel = open_panel (f, "form");
  g_assert_cmpint (widget (panel, "text")->type, ==, ZOT_PANEL_NODE_ENTRY);
  g_assert_cmpint (widget (panel, "shout")->type, ==, ZOT_PANEL_NODE_SWITCH);
  g_assert_cmpint (widget (panel, "add")->type, ==, ZOT_PANEL_NODE_BUTTON);
  g_assert_cmpuint (widget (panel, "items")->rows->len, ==, 0);
  g_assert_false (widget (panel, "add")->sensitive);

  /* Typing makes the button usable; the button appends; the entry is
   * cleared. */
  panel_event (f, panel, "text", "changed", "\"buy milk\"");
  g_assert_true (widget (panel, "add")->sensitive);
  panel_event (f, panel, "add", "clicked", NULL);
  g_assert_cmpuint (widget (panel, "items")->rows->len, ==, 1);
  g_assert_cmpstr (row_title (panel, 0), ==, "buy milk");
  g_assert_cmpstr (widget (panel, "text")->value, ==, "");

  /* The switch changes how the next item is added. */
  panel_event (f, panel, "shout", "toggled", "true");
  g_assert_cmpint (widget (panel, "shout")->active, ==, 1);
  panel_event (f, panel, "text", "submit", "\"call Ada\"");
  g_assert_cmpuint (widget (panel, "items")->rows->len, ==, 2);
  g_assert_cmpstr (row_title (panel, 1), ==, "CALL ADA");
  g_assert_cmpstr (widget (panel, "summary")->text, ==, "2 items · capitals on");

  /* The same panel, in place. */
  g_assert_true (g_ptr_array_index (zot_extension_manager_list_panels (zot_host_get_manager (f->host)), 0) == panel);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn, data) \
  g_test_add ("/zot/examples-sdk/" path, Fixture, data, fixture_setup, fn, fixture_teardown)

  ADD ("python-copies", test_python_copies, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (checked); i++)
    {
      g_autofree char *path = g_strdup_printf ("/zot/examples-sdk/ext-check/%s", checked[i].name);

      g_test_add (path, Fixture, &checked[i], fixture_setup, test_ext_check, fixture_teardown);
    }
  ADD ("todo/headless", test_todo_headless, NULL);
  ADD ("todo/panel", test_todo_panel, NULL);
  ADD ("c-word-count/text", test_word_count_text, NULL);
  ADD ("c-word-count/path", test_word_count_path, NULL);
  ADD ("gjs-panel/panel", test_gjs_panel, NULL);

  return g_test_run ();
}
