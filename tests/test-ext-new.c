/* test-ext-new.c — `zot ext new`: a skeleton in each language builds (Go
 * offline, C with cc) and passes `zot ext check` straight away; its SDK
 * copy is the tree's SDK byte for byte; the TypeScript skeleton's
 * compiled main.mjs is what tsc makes of its main.mts; bad names, unknown
 * languages and taken folders are refused in one line, and a write that
 * fails half-way leaves nothing behind. The built-in skill's steps, run
 * by the demo model, write a clean extension. A language whose toolchain
 * is missing is skipped by name.
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include <glib/gstdio.h>

#include "zot-json.h"
#include "zot-test-util.h"

/* A build or a check on a loaded machine; the safety net, not the measure. */
#define RUN_DEADLINE_MS (240 * 1000)
/* Small enough that the Python SDK's copy (tens of KiB) cannot be written. */
#define SMALL_FILE_LIMIT_BYTES (16 * 1024)

static void
limit_file_size (gpointer data)
{
  struct rlimit limit = { SMALL_FILE_LIMIT_BYTES, SMALL_FILE_LIMIT_BYTES };

  /* A write past the limit then fails with EFBIG instead of a signal. */
  signal (SIGXFSZ, SIG_IGN);
  setrlimit (RLIMIT_FSIZE, &limit);
}

static void
run_argv (ZotTestRun         *run,
          const char         *cwd,
          const char * const *env,
          const char * const *argv)
{
  zot_test_run_argv (run, cwd, env, NULL, RUN_DEADLINE_MS, argv);
}

static void
run_new (ZotTestRun *run,
         const char *parent,
         const char *name,
         const char *lang)
{
  const char * const argv[] = { g_getenv ("ZOT_BIN"), "ext", "new", name, "--lang", lang, "--dir", parent, NULL };

  run_argv (run, NULL, NULL, argv);
}

static char *
sdk_path (const char *first,
          const char *second)
{
  return g_build_filename (g_test_get_dir (G_TEST_DIST), "..", "sdk", first, second, NULL);
}

static void
assert_same_file (const char *copy,
                  const char *original)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  gsize a_length = 0;
  gsize b_length = 0;

  g_assert_true (g_file_get_contents (copy, &a, &a_length, NULL));
  g_assert_true (g_file_get_contents (original, &b, &b_length, NULL));
  g_assert_cmpmem (a, a_length, b, b_length);
}

/* Every file of the SDK the skeleton copies, compared with sdk/. */
static void
assert_sdk_copied (const char *lang,
                   const char *dir)
{
  static const struct { const char *lang; const char *copy; const char *sdk; const char *file; } copies[] = {
    { "python", ".", "python", "zotext.py" },
    { "node", ".", "node", "zotext.mjs" },
    { "ts", ".", "node", "zotext.mjs" },
    { "ts", ".", "node", "zotext.d.ts" },
    { "ts", ".", "node", "zotext.d.mts" },
    { "go", "sdk", "go", "ext.go" },
    { "go", "sdk", "go", "calltool.go" },
    { "go", "sdk", "go", "panels.go" },
    { "go", "sdk", "go", "run.go" },
    { "go", "sdk", "go", "wire.go" },
    { "go", "sdk", "go", "go.mod" },
  };
  guint compared = 0;

  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      g_autofree char *copy = NULL;
      g_autofree char *original = NULL;

      if (!g_str_equal (copies[i].lang, lang))
        continue;
      copy = g_build_filename (dir, copies[i].copy, copies[i].file, NULL);
      original = sdk_path (copies[i].sdk, copies[i].file);
      assert_same_file (copy, original);
      compared++;
    }

  /* C: the whole library, whatever it holds */
  if (g_str_equal (lang, "c"))
    {
      g_autofree char *lib = sdk_path ("c", "lib");
      g_autoptr(GDir) entries = g_dir_open (lib, 0, NULL);
      const char *entry;

      g_assert_nonnull (entries);
      while ((entry = g_dir_read_name (entries)) != NULL)
        {
          g_autofree char *copy = g_build_filename (dir, "sdk", entry, NULL);
          g_autofree char *original = g_build_filename (lib, entry, NULL);

          assert_same_file (copy, original);
          compared++;
        }
    }

  g_assert_true (compared > 0 || g_str_equal (lang, "sh"));
}

/* Builds @dir as its manifest says, offline; FALSE (skipped) when the
 * toolchain is missing. */
static gboolean
build (const char *lang,
       const char *dir)
{
  g_auto(ZotTestRun) run = { 0 };

  if (g_str_equal (lang, "go"))
    {
      g_autofree char *go = g_find_program_in_path ("go");
      g_autofree char *gocache = g_build_filename (g_test_get_dir (G_TEST_BUILT), "ext-new-go", "cache", NULL);
      g_autofree char *gopath = g_build_filename (g_test_get_dir (G_TEST_BUILT), "ext-new-go", "path", NULL);
      const char * const env[] = { "GOCACHE", gocache, "GOPATH", gopath, "GO111MODULE", "on", "GOFLAGS", "",
                                   "GOPROXY", "off", "GOTOOLCHAIN", "local", NULL };
      const char * const argv[] = { "go", "build", "-o", "hello-world", ".", NULL };

      if (go == NULL)
        {
          g_test_skip ("go: not on PATH");
          return FALSE;
        }
      run_argv (&run, dir, env, argv);
    }
  else if (g_str_equal (lang, "c"))
    {
      g_autofree char *cc = g_find_program_in_path ("cc");
      g_autofree char *mkenums = g_find_program_in_path ("glib-mkenums");
      const char * const argv[] = { "sh", "build.sh", NULL };

      if (cc == NULL || mkenums == NULL)
        {
          g_test_skip ("c: cc or glib-mkenums is not on PATH");
          return FALSE;
        }
      run_argv (&run, dir, NULL, argv);
    }
  else
    return TRUE;

  if (run.status != 0)
    g_test_message ("build: %s%s", run.out, run.err);
  g_assert_cmpint (run.status, ==, 0);
  return TRUE;
}

static const char *
interpreter (const char *lang)
{
  if (g_str_equal (lang, "python"))
    return "python3";
  if (g_str_equal (lang, "node") || g_str_equal (lang, "ts"))
    return "node";
  return "sh";
}

static void
test_language (gconstpointer data)
{
  const char *lang = data;
  g_autofree char *parent = g_dir_make_tmp ("zot-ext-new-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (parent, "Hello World", NULL);
  g_autofree char *manifest = g_build_filename (dir, "extension.json", NULL);
  g_autofree char *program = g_find_program_in_path (interpreter (lang));
  g_autofree char *next = NULL;
  g_auto(ZotTestRun) created = { 0 };
  g_auto(ZotTestRun) check = { 0 };

  if (program == NULL)
    {
      g_autofree char *why = g_strdup_printf ("%s: %s is not on PATH", lang, interpreter (lang));
      g_test_skip (why);
      zot_test_remove_tree (parent);
      return;
    }

  run_new (&created, parent, "Hello World", lang);
  g_assert_cmpint (created.status, ==, 0);
  g_assert_cmpstr (created.err, ==, "");
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  /* The next commands: into the folder, then the check and the run */
  next = g_strdup_printf ("Wrote %s. Next:\n  cd '%s'\n", dir, dir);
  g_assert_true (g_str_has_prefix (created.out, next));
  g_assert_true (g_str_has_suffix (created.out, "  zot ext check .\n  zot --ext .\n"));
  g_assert_cmpint (zot_test_count (created.out, "\n  "), ==,
                   g_str_equal (lang, "go") || g_str_equal (lang, "c") ? 4 : 3);
  assert_sdk_copied (lang, dir);

  if (build (lang, dir))
    {
      const char * const argv[] = { g_getenv ("ZOT_BIN"), "ext", "check", dir, NULL };

      run_argv (&check, NULL, NULL, argv);
      if (check.status != 0)
        g_test_message ("zot ext check: %s%s", check.out, check.err);
      g_assert_cmpint (check.status, ==, 0);
      g_assert_nonnull (strstr (check.out, "ok    tool hello_world_count: 1 words, 1 lines, 7 characters\n"));
      g_assert_nonnull (strstr (check.out, "ok    command hello-world: action display\n"));
      g_assert_nonnull (strstr (check.out, "\nclean: "));
    }

  zot_test_remove_tree (parent);
}

/* The skeleton's own test script, which a CI job runs: it builds when
 * the language needs it and checks. */
static void
test_script (void)
{
  g_autofree char *parent = g_dir_make_tmp ("zot-ext-new-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (parent, "scripted", NULL);
  g_autofree char *script = g_build_filename (dir, "test.sh", NULL);
  g_auto(ZotTestRun) created = { 0 };
  g_auto(ZotTestRun) run = { 0 };
  const char * const env[] = { "ZOT", g_getenv ("ZOT_BIN"), NULL };
  const char * const argv[] = { script, NULL };

  run_new (&created, parent, "scripted", "sh");
  g_assert_cmpint (created.status, ==, 0);
  g_assert_true (g_file_test (script, G_FILE_TEST_IS_EXECUTABLE));
  run_argv (&run, NULL, env, argv);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "ok    command scripted: action display\n"));
  zot_test_remove_tree (parent);
}

/* main.mjs ships compiled, so that Node runs the skeleton without tsc:
 * it must be what tsc makes of main.mts. */
static void
test_ts_compiled (void)
{
  g_autofree char *tsc = g_find_program_in_path ("tsc");
  g_autofree char *parent = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *compiled = NULL;
  g_autofree char *shipped = NULL;
  g_autofree char *recompiled = NULL;
  g_auto(ZotTestRun) created = { 0 };
  g_auto(ZotTestRun) run = { 0 };
  const char * const argv[] = { "tsc", "-p", ".", NULL };

  if (tsc == NULL)
    {
      g_test_skip ("tsc: not on PATH (Debian: node-typescript)");
      return;
    }

  parent = g_dir_make_tmp ("zot-ext-new-XXXXXX", NULL);
  dir = g_build_filename (parent, "typed", NULL);
  compiled = g_build_filename (dir, "main.mjs", NULL);
  run_new (&created, parent, "typed", "ts");
  g_assert_cmpint (created.status, ==, 0);
  shipped = zot_test_read_file (compiled);
  g_assert_cmpint (g_unlink (compiled), ==, 0);

  run_argv (&run, dir, NULL, argv);
  if (run.status != 0)
    g_test_message ("tsc: %s%s", run.out, run.err);
  g_assert_cmpint (run.status, ==, 0);
  recompiled = zot_test_read_file (compiled);
  g_assert_cmpstr (shipped, ==, recompiled);
  zot_test_remove_tree (parent);
}

static void
assert_refused (ZotTestRun *run,
                int         status,
                const char *message)
{
  g_assert_cmpint (run->status, ==, status);
  g_assert_cmpstr (run->out, ==, "");
  g_assert_cmpstr (run->err, ==, message);
}

static void
test_refusals (void)
{
  g_autofree char *parent = g_dir_make_tmp ("zot-ext-new-XXXXXX", NULL);
  g_autofree char *taken = g_build_filename (parent, "taken", NULL);
  g_autofree char *inside = g_build_filename (taken, "file", NULL);
  g_autofree char *empty = g_build_filename (parent, "empty", NULL);
  g_autofree char *empty_manifest = g_build_filename (empty, "extension.json", NULL);
  g_autofree char *missing = g_build_filename (parent, "missing", NULL);
  g_autofree char *expected = NULL;

  g_assert_cmpint (g_mkdir (taken, 0755), ==, 0);
  g_assert_true (g_file_set_contents (inside, "mine", -1, NULL));
  g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);

  {
    g_auto(ZotTestRun) run = { 0 };

    run_new (&run, parent, "taken", "python");
    expected = g_strdup_printf ("zot: ext new: %s already exists and is not empty; choose another name or folder\n",
                                taken);
    assert_refused (&run, 1, expected);
    g_assert_cmpint (zot_test_count_entries (taken), ==, 1);
  }
  {
    g_auto(ZotTestRun) run = { 0 };

    run_new (&run, parent, "a/b", "python");
    assert_refused (&run, 2, "zot: ext new: \"a/b\" is not an extension name; use one word or a few (letters, "
                             "digits, dashes), without / or \\ and not starting with -\n");
  }
  {
    g_auto(ZotTestRun) run = { 0 };

    run_new (&run, parent, "..", "go");
    g_assert_cmpint (run.status, ==, 2);
    g_assert_true (g_str_has_prefix (run.err, "zot: ext new: \"..\" is not an extension name;"));
  }
  {
    g_auto(ZotTestRun) run = { 0 };

    run_new (&run, parent, "fine", "rust");
    assert_refused (&run, 2, "zot: ext new: unknown language \"rust\"; use go, python, node, ts, c or sh\n");
  }
  {
    g_auto(ZotTestRun) run = { 0 };
    const char * const argv[] = { g_getenv ("ZOT_BIN"), "ext", "new", "fine", "--dir", parent, NULL };

    run_argv (&run, NULL, NULL, argv);
    assert_refused (&run, 2, "zot: ext new: choose a language with --lang: go, python, node, ts, c or sh\n");
  }
  {
    g_auto(ZotTestRun) run = { 0 };

    run_new (&run, missing, "fine", "sh");
    g_free (expected);
    expected = g_strdup_printf ("zot: ext new: %s is not a folder; create it first or choose another\n", missing);
    assert_refused (&run, 1, expected);
    g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  }
  /* An empty folder is taken over */
  {
    g_auto(ZotTestRun) run = { 0 };

    run_new (&run, parent, "empty", "sh");
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_file_test (empty_manifest, G_FILE_TEST_IS_REGULAR));
  }

  /* taken, empty and nothing else: no staging folder left behind */
  g_assert_cmpint (zot_test_count_entries (parent), ==, 2);
  zot_test_remove_tree (parent);
}

/* A write that fails half-way (here the file size limit; a full disk
 * fails the same way) is one line, and nothing is left. */
static void
test_write_fails (void)
{
  g_autofree char *parent = g_dir_make_tmp ("zot-ext-new-XXXXXX", NULL);
  g_auto(ZotTestRun) run = { 0 };
  const char * const argv[] = { g_getenv ("ZOT_BIN"), "ext", "new", "big", "--lang", "python", "--dir", parent, NULL };

  zot_test_run_argv (&run, NULL, NULL, limit_file_size, RUN_DEADLINE_MS, argv);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_true (g_str_has_prefix (run.err, "zot: ext new: cannot write the new extension: "));
  g_assert_cmpint (zot_test_count (run.err, "\n"), ==, 1);
  g_assert_cmpint (zot_test_count_entries (parent), ==, 0);
  zot_test_remove_tree (parent);
}

/* Runs zot with the demo model in @cwd on @prompt (its `tool:` lines are
 * the calls the model makes) and returns the text of its first tool
 * result. zot comes first on PATH, as it is where the skill is used. */
static char *
demo_tool_result (const char *cwd,
                  const char *home,
                  const char *prompt,
                  gboolean   *is_error)
{
  g_autofree char *bin_dir = g_path_get_dirname (g_getenv ("ZOT_BIN"));
  g_autofree char *path = g_strdup_printf ("%s:%s", bin_dir, g_getenv ("PATH"));
  const char * const env[] = { "ZOT_HOME", home, "PATH", path, NULL };
  const char * const argv[] = { g_getenv ("ZOT_BIN"), "--provider", "demo", "--json", prompt, NULL };
  g_auto(GStrv) lines = NULL;
  g_auto(ZotTestRun) run = { 0 };

  run_argv (&run, cwd, env, argv);
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (lines[i], NULL);
      JsonObject *event = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonArray *content;

      if (event == NULL || g_strcmp0 (zot_json_get_string (event, "type"), "tool_result") != 0)
        continue;
      content = zot_json_get_array (event, "content");
      *is_error = zot_json_get_boolean_or (event, "is_error", TRUE);
      return g_strdup (zot_json_get_string (json_array_get_object_element (content, 0), "text"));
    }
  g_assert_not_reached ();
}

/* The skill's ```sh block under "## Steps", its lines joined by " && ",
 * with NAME, LANG and DIR filled in. */
static char *
skill_steps (const char *skill,
             const char *name,
             const char *lang)
{
  const char *steps = strstr (skill, "\n## Steps\n");
  const char *block;
  const char *end;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) joined = g_string_new (NULL);

  g_assert_nonnull (steps);
  block = strstr (steps, "\n```sh\n");
  g_assert_nonnull (block);
  block += strlen ("\n```sh\n");
  end = strstr (block, "```\n");
  g_assert_nonnull (end);
  text = g_strndup (block, end - block);
  lines = g_strsplit (g_strstrip (text), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GString) line = g_string_new (lines[i]);

      g_string_replace (line, "NAME", name, 0);
      g_string_replace (line, "LANG", lang, 0);
      g_string_replace (line, "DIR", ".", 0);
      g_string_append_printf (joined, "%s%s", i > 0 ? " && " : "", line->str);
    }
  return g_string_free (g_steal_pointer (&joined), FALSE);
}

/* The built-in skill's steps, as the demo model runs them: it reads the
 * skill, then runs its commands with bash; the extension they write is
 * clean. */
static void
test_skill_steps (void)
{
  g_autofree char *root = g_dir_make_tmp ("zot-ext-new-XXXXXX", NULL);
  g_autofree char *home = g_build_filename (root, "home", NULL);
  g_autofree char *cwd = g_build_filename (root, "project", NULL);
  g_autofree char *dir = g_build_filename (cwd, "word-count", NULL);
  g_autofree char *skill = NULL;
  g_autofree char *steps = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *output = NULL;
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *args_text = NULL;
  g_auto(ZotTestRun) check = { 0 };
  const char * const argv[] = { g_getenv ("ZOT_BIN"), "ext", "check", dir, NULL };
  gboolean is_error = TRUE;

  g_assert_cmpint (g_mkdir (home, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (cwd, 0755), ==, 0);

  skill = demo_tool_result (cwd, home, "tool: skill {\"name\": \"zot-extensions\"}", &is_error);
  g_assert_false (is_error);
  steps = skill_steps (skill, "word-count", "python");
  g_test_message ("the skill's steps: %s", steps);

  json_object_set_string_member (args, "command", steps);
  node = json_node_init_object (json_node_alloc (), args);
  args_text = json_to_string (node, FALSE);
  prompt = g_strdup_printf ("tool: bash %s", args_text);
  output = demo_tool_result (cwd, home, prompt, &is_error);
  if (is_error)
    g_test_message ("bash: %s", output);
  g_assert_false (is_error);
  g_assert_nonnull (strstr (output, "ok    command word-count: action display\n"));
  g_assert_nonnull (strstr (output, "clean: "));

  run_argv (&check, NULL, NULL, argv);
  g_assert_cmpint (check.status, ==, 0);
  zot_test_remove_tree (root);
}

int
main (int    argc,
      char **argv)
{
  static const char * const languages[] = { "go", "python", "node", "ts", "c", "sh" };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (languages); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ext-new/language/%s", languages[i]);

      g_test_add_data_func (path, languages[i], test_language);
    }
  g_test_add_func ("/ext-new/script", test_script);
  g_test_add_func ("/ext-new/ts-compiled", test_ts_compiled);
  g_test_add_func ("/ext-new/refusals", test_refusals);
  g_test_add_func ("/ext-new/write-fails", test_write_fails);
  g_test_add_func ("/ext-new/skill-steps", test_skill_steps);

  return g_test_run ();
}
