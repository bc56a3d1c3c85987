/* test-tool-glob.c — the glob tool: patterns with *, ?, […] and **, the
 * folder searched, newest first, .gitignore rules at every level, its
 * bounds at their edges, and paths outside the project refused. */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "zot-builtin-tools.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-test-util.h"

#define CALL_DEADLINE_MS 30000

typedef struct
{
  char          *root;
  char          *cwd;
  ZotTool       *tool;
  ZotToolResult *result;
  gboolean       done;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) tools = zot_builtin_tools_new ();

  f->root = g_dir_make_tmp ("zot-glob-XXXXXX", NULL);
  f->cwd = g_build_filename (f->root, "project", NULL);
  g_assert_cmpint (g_mkdir (f->cwd, 0700), ==, 0);
  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (zot_tool_get_name (g_ptr_array_index (tools, i)), "glob"))
      f->tool = g_object_ref (g_ptr_array_index (tools, i));
  g_assert_nonnull (f->tool);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_pointer (&f->result, zot_tool_result_free);
  g_clear_object (&f->tool);
  zot_test_remove_tree (f->root);
  g_free (f->root);
  g_free (f->cwd);
}

/* An empty file at @relative under the project, its folders made, with
 * @age seconds subtracted from its modification time. */
static void
touch (Fixture    *f,
       const char *relative,
       guint       age)
{
  g_autofree char *path = g_build_filename (f->cwd, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  struct timespec times[2] = { { 0, 0 }, { 0, 0 } };
  int fd;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  g_assert_cmpint (fd, >=, 0);
  times[0].tv_sec = times[1].tv_sec = 1700000000 - (time_t) age;
  g_assert_cmpint (futimens (fd, times), ==, 0);
  close (fd);
}

static void
write_text (Fixture    *f,
            const char *relative,
            const char *text)
{
  g_autofree char *path = g_build_filename (f->cwd, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
call_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GError) error = NULL;

  f->result = zot_tool_execute_finish (ZOT_TOOL (object), result, &error);
  g_assert_no_error (error);
  f->done = TRUE;
}

/* The call's text; the listed files, one a line, in their order. */
static char *
run (Fixture    *f,
     const char *args_json)
{
  g_autoptr(JsonObject) args = zot_test_json_object_from (args_json);
  ZotToolContext context = { f->cwd, "call-1" };

  g_clear_pointer (&f->result, zot_tool_result_free);
  f->done = FALSE;
  zot_tool_execute_async (f->tool, args, &context, NULL, call_cb, f);
  zot_test_wait_for (&f->done, CALL_DEADLINE_MS);
  return zot_content_get_text (f->result->content);
}

/* The files of the last call's structured content, joined with spaces. */
static char *
files (Fixture *f)
{
  JsonArray *array = json_object_get_array_member (json_node_get_object (f->result->structured_content),
                                                   "files");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) list = NULL;

  for (guint i = 0; i < json_array_get_length (array); i++)
    g_strv_builder_add (builder, json_array_get_string_element (array, i));
  list = g_strv_builder_end (builder);
  return g_strjoinv (" ", list);
}

static gboolean
complete (Fixture *f)
{
  return json_object_get_boolean_member (json_node_get_object (f->result->structured_content),
                                         "complete");
}

#define ASSERT_FILES(f, args, expected) \
  G_STMT_START { \
    g_autofree char *text_ = run (f, args); \
    g_autofree char *files_ = files (f); \
    g_assert_false (f->result->is_error); \
    g_assert_cmpstr (files_, ==, expected); \
  } G_STMT_END

static void
test_patterns (Fixture       *f,
               gconstpointer  data)
{
  /* Older by the number: a.c is the newest. */
  touch (f, "a.c", 1);
  touch (f, "b.txt", 2);
  touch (f, "src/x.c", 3);
  touch (f, "src/deep/y.c", 4);
  touch (f, "src/deep/z.h", 5);
  touch (f, ".hidden.c", 6);

  ASSERT_FILES (f, "{\"pattern\":\"*.c\"}", "a.c .hidden.c");
  ASSERT_FILES (f, "{\"pattern\":\"**/*.c\"}", "a.c src/x.c src/deep/y.c .hidden.c");
  ASSERT_FILES (f, "{\"pattern\":\"src/**\"}", "src/x.c src/deep/y.c src/deep/z.h");
  ASSERT_FILES (f, "{\"pattern\":\"src/*/?.[ch]\"}", "src/deep/y.c src/deep/z.h");
  ASSERT_FILES (f, "{\"pattern\":\"**/deep/**/z.h\"}", "src/deep/z.h");
  ASSERT_FILES (f, "{\"pattern\":\"./src//x.c\"}", "src/x.c");
  ASSERT_FILES (f, "{\"pattern\":\"[ab].*\"}", "a.c b.txt");
  /* The folder searched: patterns from it, paths from the project. */
  ASSERT_FILES (f, "{\"pattern\":\"*.c\",\"path\":\"src\"}", "src/x.c");
  ASSERT_FILES (f, "{\"pattern\":\"**/*.c\",\"path\":\"src/deep/..\"}", "src/x.c src/deep/y.c");

  /* Newest first, whatever the names. */
  touch (f, "src/deep/y.c", 0);
  ASSERT_FILES (f, "{\"pattern\":\"**/*.c\"}", "src/deep/y.c a.c src/x.c .hidden.c");

  {
    g_autofree char *text = run (f, "{\"pattern\":\"**/*.rs\"}");

    g_assert_cmpstr (text, ==, "No files match \"**/*.rs\".\n");
    g_assert_true (complete (f));
  }
}

static void
test_gitignore (Fixture       *f,
                gconstpointer  data)
{
  write_text (f, ".gitignore",
              "# build output\n"
              "build/\n"
              "*.log\n"
              "!keep.log\n"
              "/top-only.txt\n"
              "docs/*.tmp\n"
              "\n");
  write_text (f, "src/.gitignore", "gen.c\n");
  touch (f, "build/out.c", 0);
  touch (f, "src/build/out.c", 0);
  touch (f, "a.log", 1);
  touch (f, "keep.log", 2);
  touch (f, "top-only.txt", 3);
  touch (f, "sub/top-only.txt", 4);
  touch (f, "docs/a.tmp", 5);
  touch (f, "docs/sub/b.tmp", 6);
  touch (f, "src/gen.c", 7);
  touch (f, "gen.c", 8);
  touch (f, ".git/HEAD", 9);
  /* A file named like an ignored folder stays. */
  touch (f, "other/build", 10);

  ASSERT_FILES (f, "{\"pattern\":\"**/*.log\"}", "keep.log");
  ASSERT_FILES (f, "{\"pattern\":\"**/top-only.txt\"}", "sub/top-only.txt");
  ASSERT_FILES (f, "{\"pattern\":\"**/*.tmp\"}", "docs/sub/b.tmp");
  ASSERT_FILES (f, "{\"pattern\":\"**/*.c\"}", "gen.c");
  ASSERT_FILES (f, "{\"pattern\":\"**/HEAD\"}", "");
  ASSERT_FILES (f, "{\"pattern\":\"**/build\"}", "other/build");
  /* Searching below the root, the root's rules still apply. */
  ASSERT_FILES (f, "{\"pattern\":\"**\",\"path\":\"src\"}", "src/.gitignore");
}

static void
test_max_results (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_autofree char *listed = NULL;

  for (guint i = 0; i < ZOT_GLOB_MAX_RESULTS; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%03u.txt", i);

      touch (f, name, i + 1);
    }
  g_free (run (f, "{\"pattern\":\"*.txt\"}"));
  g_assert_true (complete (f));
  g_assert_cmpuint (zot_test_json_length_at (json_node_get_object (f->result->structured_content),
                                             "files"), ==, ZOT_GLOB_MAX_RESULTS);

  /* One more, the newest: it is listed, the oldest is left out. */
  touch (f, "new.txt", 0);
  text = run (f, "{\"pattern\":\"*.txt\"}");
  g_assert_false (complete (f));
  g_assert_nonnull (strstr (text, "(1 more files match; only the 200 newest are listed"));
  listed = files (f);
  g_assert_true (g_str_has_prefix (listed, "new.txt f000.txt "));
  g_assert_null (strstr (listed, "f199.txt"));
}

static void
test_max_depth (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autofree char *text = NULL;

  for (guint i = 0; i < ZOT_GLOB_MAX_DEPTH; i++)
    g_string_append (deep, "d/");
  g_string_append (deep, "at-the-edge.c");
  touch (f, deep->str, 0);
  g_string_insert (deep, 0, "e/");
  g_string_truncate (deep, deep->len - strlen ("at-the-edge.c"));
  g_string_append (deep, "past-the-edge.c");
  touch (f, deep->str, 0);

  text = run (f, "{\"pattern\":\"**/*.c\"}");
  g_assert_nonnull (strstr (text, "at-the-edge.c"));
  g_assert_null (strstr (text, "past-the-edge.c"));
  g_assert_nonnull (strstr (text, "folders more than 32 levels deep were not searched"));
  g_assert_false (complete (f));
}

static void
test_max_entries (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *text = NULL;

  /* The project holds exactly as many entries as are read. */
  for (guint i = 0; i < ZOT_GLOB_MAX_ENTRIES; i++)
    {
      g_autofree char *name = g_strdup_printf ("n%05u", i);

      touch (f, name, 0);
    }
  g_free (run (f, "{\"pattern\":\"n0000[0-9]\"}"));
  g_assert_true (complete (f));
  g_assert_cmpuint (zot_test_json_length_at (json_node_get_object (f->result->structured_content),
                                             "files"), ==, 10);

  touch (f, "one-more", 0);
  text = run (f, "{\"pattern\":\"n0000[0-9]\"}");
  g_assert_false (complete (f));
  g_assert_nonnull (strstr (text, "the search stopped after 20000 entries"));
}

static void
test_refused (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *outside = g_build_filename (f->root, "outside", NULL);
  g_autofree char *link = g_build_filename (f->cwd, "escape", NULL);
  g_autofree char *inner = g_build_filename (outside, "inner", NULL);
  g_autofree char *other = g_build_filename (f->root, "project-other", NULL);
  static const char * const refused[] = {
    "{\"pattern\":\"*\",\"path\":\"..\"}",
    "{\"pattern\":\"*\",\"path\":\"/\"}",
    "{\"pattern\":\"*\",\"path\":\"escape\"}",
    "{\"pattern\":\"*\",\"path\":\"escape/inner\"}",
    "{\"pattern\":\"*\",\"path\":\"../project-other\"}",
  };

  touch (f, "file.txt", 0);
  g_assert_cmpint (g_mkdir_with_parents (inner, 0700), ==, 0);
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_cmpint (g_mkdir (other, 0700), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *text = run (f, refused[i]);

      g_assert_true (f->result->is_error);
      g_assert_nonnull (strstr (text, "is outside the project"));
    }

  /* The link itself is a file of the project, not a folder to walk. */
  ASSERT_FILES (f, "{\"pattern\":\"*\"}", "escape file.txt");

  {
    g_autofree char *text = run (f, "{\"pattern\":\"*\",\"path\":\"file.txt\"}");

    g_assert_true (f->result->is_error);
    g_assert_nonnull (strstr (text, "is not a folder"));
  }
  {
    g_autofree char *text = run (f, "{\"path\":\".\"}");

    g_assert_true (f->result->is_error);
    g_assert_nonnull (strstr (text, "\"pattern\" is required"));
  }
}

/* A project at the root holds every folder, listed from the root. */
static void
test_root_project (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *args = g_strdup_printf ("{\"pattern\":\"*\",\"path\":\"%s\"}", f->cwd);
  g_autofree char *expected = g_strdup_printf ("%s/file.txt", f->cwd + 1);
  char *project = f->cwd;

  touch (f, "file.txt", 0);
  f->cwd = (char *) "/";
  ASSERT_FILES (f, args, expected);
  f->cwd = project;
}

/* Like read, it only looks: no approval, safe to run again on a resume. */
static void
test_approval (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) tools = zot_builtin_tools_new ();
  ZotTool *read = g_ptr_array_index (tools, 0);

  g_assert_cmpstr (zot_tool_get_name (read), ==, "read");
  g_assert_cmpint (zot_tool_get_requires_approval (f->tool), ==, zot_tool_get_requires_approval (read));
  g_assert_false (zot_tool_get_requires_approval (f->tool));
  g_assert_cmpint (zot_tool_get_replay (f->tool), ==, zot_tool_get_replay (read));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/tool-glob/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("patterns", test_patterns);
  ADD ("gitignore", test_gitignore);
  ADD ("max-results", test_max_results);
  ADD ("max-depth", test_max_depth);
  ADD ("max-entries", test_max_entries);
  ADD ("refused", test_refused);
  ADD ("root-project", test_root_project);
  ADD ("approval", test_approval);
#undef ADD

  return g_test_run ();
}
