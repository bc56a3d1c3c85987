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

#include "zot-example-host.h"

static const char * const python_examples[] = { "todo", "ask-user", "weather", "summarize-file" };

typedef ZotExampleHost Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_example_setup (f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_example_teardown (f);
}

/* Where an example runs: the built folder of a compiled one (named by the
 * build in @env_var), else a copy of its source folder. */
static char *
example_dir (Fixture    *f,
             const char *name,
             const char *env_var)
{
  if (env_var != NULL)
    {
      g_assert_nonnull (g_getenv (env_var));
      return g_strdup (g_getenv (env_var));
    }
  return zot_example_copy (f, name);
}

/* Skips the test without @program; gjs also needs the build's typelib. */
static gboolean
missing (const char *program)
{
  if (zot_example_missing (program))
    return TRUE;
  if (g_str_equal (program, "gjs") && g_getenv ("ZOT_EXAMPLE_TYPELIB") == NULL)
    {
      g_test_skip ("no ZotExt typelib for gjs: built without introspection, or sanitized");
      return TRUE;
    }
  return FALSE;
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
      g_autofree char *dir = zot_example_source (python_examples[i]);
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

static void
test_ext_check (Fixture       *f,
                gconstpointer  data)
{
  const Example *example = data;
  g_autofree char *dir = NULL;

  if (example->program != NULL && missing (example->program))
    return;
  dir = example_dir (f, example->name, example->env_var);
  zot_example_ext_check (dir);
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
  zot_example_start (f, dir, "todo", FALSE);

  zot_example_expect_result (f, "todo_add", "{\"text\":\"water  the\\u001bplants\"}", FALSE,
                 "Added: water the plants (1 item)");
  zot_example_expect_result (f, "todo_add", "{\"text\":\"  \"}", TRUE, "needs a non-empty \"text\"");

  /* Headless there are no panels: a bare /todo lists. */
  listed = zot_example_command (f, "todo", "", ZOT_COMMAND_REPLY_DISPLAY);
  g_assert_cmpstr (zot_command_reply_get_text (listed), ==, "Todo list:\n1. [ ] water the plants");
  done = zot_example_command (f, "TODO", "done 1", ZOT_COMMAND_REPLY_DISPLAY);
  g_assert_cmpstr (zot_command_reply_get_text (done), ==, "Todo list:\n1. [x] water the plants");
  zot_example_command_fails (f, "todo", "done 7", "no item '7' (the list has 1)");
  zot_example_command_fails (f, "todo", "add", "nothing to add");
  zot_example_command_fails (f, "todo", "frob", "unknown subcommand 'frob'");

  zot_example_expect_result (f, "todo_list", "{}", FALSE, "Todo list:\n1. [x] water the plants");

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
  zot_example_start (f, dir, "todo", TRUE);
  panel = zot_example_open_panel (f, "todo");
  g_assert_cmpint (zot_example_widget (panel, "new")->type, ==, ZOT_PANEL_NODE_ENTRY);
  g_assert_cmpuint (zot_example_widget (panel, "items")->rows->len, ==, 0);
  g_assert_false (zot_example_widget (panel, "clear-done")->sensitive);

  zot_example_panel_event (f, panel, "new", "submit", "\"buy milk\"");
  g_assert_cmpuint (zot_example_widget (panel, "items")->rows->len, ==, 1);
  g_assert_cmpstr (zot_example_row_title (panel, 0), ==, "buy milk");
  g_assert_cmpstr (zot_example_widget (panel, "new")->value, ==, "");

  zot_example_panel_event (f, panel, "items", "toggled", "{\"row\":\"item-0\",\"checked\":true}");
  g_assert_cmpint (((ZotPanelRow *) g_ptr_array_index (zot_example_widget (panel, "items")->rows, 0))->checked, ==, 1);
  g_assert_true (zot_example_widget (panel, "clear-done")->sensitive);

  zot_example_panel_event (f, panel, "clear-done", "clicked", NULL);
  g_assert_cmpuint (zot_example_widget (panel, "items")->rows->len, ==, 0);
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

  zot_example_start (f, dir, "c-word-count", FALSE);

  zot_example_expect_result (f, "word_count", "{\"text\":\"Grüße an  alle\\nzweite Zeile\"}", FALSE,
                 "text: 5 words, 2 lines, 27 characters");
  zot_example_expect_result (f, "word_count", "{\"text\":\"1\"}", FALSE, "text: 1 word, 1 line, 1 character");
  zot_example_expect_result (f, "word_count", "{}", TRUE, "needs either");
}

static void
test_word_count_path (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = example_dir (f, "c-word-count", "ZOT_EXAMPLE_C_WORD_COUNT");
  g_autofree char *nested_id = NULL;
  const char *parent_id;
  JsonObject *read;

  zot_example_start (f, dir, "c-word-count", FALSE);

  zot_example_expect_result (f, "word_count", "{\"path\":\"notes.md\"}", FALSE, "notes.md: 6 words, 4 lines, 29 characters");

  /* The host read the file as a child of the model's call. */
  parent_id = zot_test_model_call_id (f->events, "word_count");
  nested_id = g_strdup_printf ("%s/1", parent_id);
  read = zot_test_find_event (f->events, "tool_result", nested_id);
  g_assert_nonnull (read);
  g_assert_cmpstr (json_object_get_string_member (read, "tool_name"), ==, "read");
  g_assert_cmpstr (json_object_get_string_member (read, "origin_extension"), ==, "c-word-count");

  /* A read that fails is the tool's error, with the reason. */
  zot_example_expect_result (f, "word_count", "{\"path\":\"missing.md\"}", TRUE, "cannot count missing.md: ");
}

/* ---- gjs-panel ---- */

static void
test_gjs_panel (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *dir = zot_example_source ("gjs-panel");
  ZotPanel *panel;

  if (missing ("gjs"))
    return;
  zot_example_start (f, dir, "gjs-panel", TRUE);
  panel = zot_example_open_panel (f, "form");
  g_assert_cmpint (zot_example_widget (panel, "text")->type, ==, ZOT_PANEL_NODE_ENTRY);
  g_assert_cmpint (zot_example_widget (panel, "shout")->type, ==, ZOT_PANEL_NODE_SWITCH);
  g_assert_cmpint (zot_example_widget (panel, "add")->type, ==, ZOT_PANEL_NODE_BUTTON);
  g_assert_cmpuint (zot_example_widget (panel, "items")->rows->len, ==, 0);
  g_assert_false (zot_example_widget (panel, "add")->sensitive);

  /* Typing makes the button usable; the button appends; the entry is
   * cleared. */
  zot_example_panel_event (f, panel, "text", "changed", "\"buy milk\"");
  g_assert_true (zot_example_widget (panel, "add")->sensitive);
  zot_example_panel_event (f, panel, "add", "clicked", NULL);
  g_assert_cmpuint (zot_example_widget (panel, "items")->rows->len, ==, 1);
  g_assert_cmpstr (zot_example_row_title (panel, 0), ==, "buy milk");
  g_assert_cmpstr (zot_example_widget (panel, "text")->value, ==, "");

  /* The switch changes how the next item is added. */
  zot_example_panel_event (f, panel, "shout", "toggled", "true");
  g_assert_cmpint (zot_example_widget (panel, "shout")->active, ==, 1);
  zot_example_panel_event (f, panel, "text", "submit", "\"call Ada\"");
  g_assert_cmpuint (zot_example_widget (panel, "items")->rows->len, ==, 2);
  g_assert_cmpstr (zot_example_row_title (panel, 1), ==, "CALL ADA");
  g_assert_cmpstr (zot_example_widget (panel, "summary")->text, ==, "2 items · capitals on");

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
