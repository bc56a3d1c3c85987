#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "zot-system-prompt.h"

/* Layout of each test's directory:
 *
 *   root/home/                 $ZOT_HOME
 *   root/outside/AGENTS.md     above the repository: never read
 *   root/outside/repo/         the repository (.git made by the tests that want one)
 *   root/outside/repo/a/b/     the cwd
 */
typedef struct
{
  char *root;
  char *home;
  char *outside;
  char *repo;
  char *cwd;
} Fixture;

static char *test_home;

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static char *
canonical (const char *path)
{
  char *real = realpath (path, NULL);
  char *result;

  g_assert_nonnull (real);
  result = g_strdup (real);
  free (real);
  return result;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *root = g_dir_make_tmp ("zot-test-prompt-XXXXXX", NULL);

  g_assert_nonnull (root);
  /* Canonical paths, so that headings and sources compare as strings. */
  fixture->root = canonical (root);
  fixture->home = g_strdup (test_home);
  fixture->outside = g_build_filename (fixture->root, "outside", NULL);
  fixture->repo = g_build_filename (fixture->outside, "repo", NULL);
  fixture->cwd = g_build_filename (fixture->repo, "a", "b", NULL);
  g_assert_cmpint (g_mkdir_with_parents (fixture->home, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (fixture->cwd, 0700), ==, 0);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  remove_tree (fixture->root);
  remove_tree (fixture->home);
  g_clear_pointer (&fixture->root, g_free);
  g_clear_pointer (&fixture->home, g_free);
  g_clear_pointer (&fixture->outside, g_free);
  g_clear_pointer (&fixture->repo, g_free);
  g_clear_pointer (&fixture->cwd, g_free);
}

static char *
write_file (const char *dir,
            const char *name,
            const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static void
make_git_dir (const char *dir)
{
  g_autofree char *git = g_build_filename (dir, ".git", NULL);

  g_assert_cmpint (g_mkdir_with_parents (git, 0700), ==, 0);
}

static char *
build (const Fixture      *fixture,
       const char         *system_prompt,
       const char * const *append,
       GPtrArray          *tool_names,
       gboolean            include_skills,
       GPtrArray         **sources)
{
  ZotSystemPromptOptions options = { 0 };
  char *prompt;

  options.cwd = fixture->cwd;
  options.system_prompt = system_prompt;
  options.append = append;
  options.tool_names = tool_names;
  options.include_skills = include_skills;

  prompt = zot_system_prompt_build (&options, sources);
  g_assert_nonnull (prompt);
  g_assert_true (g_utf8_validate (prompt, -1, NULL));
  return prompt;
}

static gsize
position (const char *haystack,
          const char *needle)
{
  const char *found = strstr (haystack, needle);

  if (found == NULL)
    g_error ("\"%s\" not found in the prompt:\n%s", needle, haystack);
  return (gsize) (found - haystack);
}

static void
assert_contains (const char *haystack,
                 const char *needle)
{
  position (haystack, needle);
}

static void
assert_lacks (const char *haystack,
              const char *needle)
{
  if (strstr (haystack, needle) != NULL)
    g_error ("\"%s\" should not be in the prompt:\n%s", needle, haystack);
}

/* Tests */

static void
test_base (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GPtrArray) tools = g_ptr_array_new ();
  g_autoptr(GPtrArray) no_tools = g_ptr_array_new ();
  g_autoptr(GPtrArray) sources = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *today = g_date_time_format (now, "%Y-%m-%d");
  g_autofree char *cwd_line = g_strdup_printf ("The working directory is %s.", fixture->cwd);
  g_autofree char *prompt = NULL;
  g_autofree char *again = NULL;
  g_autofree char *bare = NULL;

  g_ptr_array_add (tools, (gpointer) "read");
  g_ptr_array_add (tools, (gpointer) "bash");

  prompt = build (fixture, NULL, NULL, tools, FALSE, &sources);
  g_assert_true (g_str_has_prefix (prompt, "You are zot, a coding agent"));
  assert_contains (prompt, "Read before you edit");
  assert_contains (prompt, "Your tools: read, bash.");
  assert_contains (prompt, cwd_line);
  assert_lacks (prompt, today);
  assert_lacks (prompt, "# Project instructions");
  assert_lacks (prompt, "# Skills");
  g_assert_false (g_str_has_suffix (prompt, "\n"));
  g_assert_cmpuint (sources->len, ==, 0);

  /* Stable from one call to the next. */
  again = build (fixture, NULL, NULL, tools, FALSE, NULL);
  g_assert_cmpstr (again, ==, prompt);

  /* No tools at all is said; unknown tools are not. */
  g_clear_pointer (&again, g_free);
  again = build (fixture, NULL, NULL, no_tools, FALSE, NULL);
  assert_contains (again, "You have no tools");
  assert_lacks (again, "Your tools");
  bare = build (fixture, NULL, NULL, NULL, FALSE, NULL);
  assert_lacks (bare, "Your tools");
  assert_lacks (bare, "You have no tools");
  assert_contains (bare, cwd_line);
}

static void
test_system_md (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *system_md = write_file (fixture->home, "SYSTEM.md", "Custom base text.\n\n");
  g_autofree char *agents = write_file (fixture->cwd, "AGENTS.md", "Cwd rules.");
  g_autofree char *cwd_line = g_strdup_printf ("The working directory is %s.", fixture->cwd);
  g_autoptr(GPtrArray) tools = g_ptr_array_new ();
  g_autoptr(GPtrArray) sources = NULL;
  g_autofree char *prompt = NULL;

  g_ptr_array_add (tools, (gpointer) "read");
  prompt = build (fixture, NULL, NULL, tools, FALSE, &sources);

  g_assert_true (g_str_has_prefix (prompt, "Custom base text.\n\n"));
  assert_lacks (prompt, "You are zot");
  assert_lacks (prompt, "Your tools");
  /* Only the base is replaced. */
  assert_contains (prompt, cwd_line);
  assert_contains (prompt, "Cwd rules.");

  g_assert_cmpuint (sources->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (sources, 0), ==, system_md);
  g_assert_cmpstr (g_ptr_array_index (sources, 1), ==, agents);
}

static void
test_agents_repository (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *above = write_file (fixture->outside, "AGENTS.md", "Outside the repository.");
  g_autofree char *root = write_file (fixture->repo, "AGENTS.md", "Root rules.\n");
  g_autofree char *sub = write_file (fixture->cwd, "AGENTS.md", "\nSubdirectory rules.\n");
  g_autofree char *blank_dir = g_build_filename (fixture->repo, "a", NULL);
  g_autofree char *blank = write_file (blank_dir, "AGENTS.md", " \n\n");
  g_autofree char *root_heading = g_strdup_printf ("## %s\n\nRoot rules.", root);
  g_autofree char *sub_heading = g_strdup_printf ("## %s\n\nSubdirectory rules.", sub);
  g_autoptr(GPtrArray) sources = NULL;
  g_autofree char *prompt = NULL;

  make_git_dir (fixture->repo);
  prompt = build (fixture, NULL, NULL, NULL, FALSE, &sources);

  assert_contains (prompt, "# Project instructions");
  g_assert_cmpuint (position (prompt, "You are zot"), <, position (prompt, "# Project instructions"));
  g_assert_cmpuint (position (prompt, "# Project instructions"), <, position (prompt, root_heading));
  g_assert_cmpuint (position (prompt, root_heading), <, position (prompt, sub_heading));
  assert_lacks (prompt, "Outside the repository.");
  /* An empty file adds nothing, not even its heading. */
  assert_lacks (prompt, blank);

  g_assert_cmpuint (sources->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (sources, 0), ==, root);
  g_assert_cmpstr (g_ptr_array_index (sources, 1), ==, sub);
}

static void
test_agents_git_file (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autofree char *git = write_file (fixture->repo, ".git", "gitdir: /elsewhere\n");
  g_autofree char *root = write_file (fixture->repo, "AGENTS.md", "Worktree root rules.");
  g_autoptr(GPtrArray) sources = NULL;
  g_autofree char *prompt = NULL;

  /* Worktrees and submodules have a .git file: still a repository root. */
  prompt = build (fixture, NULL, NULL, NULL, FALSE, &sources);
  assert_contains (prompt, "Worktree root rules.");
  g_assert_cmpuint (sources->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (sources, 0), ==, root);
}

static void
test_agents_no_repository (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autofree char *above = write_file (fixture->repo, "AGENTS.md", "Not a repository root.");
  g_autofree char *here = write_file (fixture->cwd, "AGENTS.md", "Cwd only.");
  g_autoptr(GPtrArray) sources = NULL;
  g_autofree char *prompt = NULL;

  prompt = build (fixture, NULL, NULL, NULL, FALSE, &sources);
  assert_contains (prompt, "Cwd only.");
  assert_lacks (prompt, "Not a repository root.");
  g_assert_cmpuint (sources->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (sources, 0), ==, here);

  /* Nothing at all in the cwd: no section. */
  g_assert_cmpint (g_unlink (here), ==, 0);
  g_clear_pointer (&prompt, g_free);
  g_clear_pointer (&sources, g_ptr_array_unref);
  prompt = build (fixture, NULL, NULL, NULL, FALSE, &sources);
  assert_lacks (prompt, "# Project instructions");
  g_assert_cmpuint (sources->len, ==, 0);
}

static void
test_agents_large (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *big = g_strnfill (ZOT_SYSTEM_PROMPT_FILE_MAX_BYTES + 1000, 'y');
  g_autofree char *path = write_file (fixture->cwd, "AGENTS.md", big);
  g_autofree char *prompt = build (fixture, NULL, NULL, NULL, FALSE, NULL);

  assert_contains (prompt, "was cut at");
  g_assert_cmpuint (strlen (prompt), <, ZOT_SYSTEM_PROMPT_FILE_MAX_BYTES + 4096);
}

static void
test_skills (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *skills_dir = g_build_filename (fixture->home, "skills", "x", NULL);
  g_autofree char *skill = write_file (skills_dir, "SKILL.md",
                                       "---\n"
                                       "name: x\n"
                                       "description: Does the x thing\n"
                                       "---\n"
                                       "# X\n\nSteps.\n");
  g_autofree char *agents = write_file (fixture->cwd, "AGENTS.md", "Cwd rules.");
  g_autoptr(GPtrArray) sources = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *without = NULL;

  prompt = build (fixture, NULL, NULL, NULL, TRUE, &sources);
  assert_contains (prompt, "# Skills");
  assert_contains (prompt, "`skill` tool");
  assert_contains (prompt, "- x: Does the x thing");
  /* base, then context, then skills */
  g_assert_cmpuint (position (prompt, "You are zot"), <, position (prompt, "Cwd rules."));
  g_assert_cmpuint (position (prompt, "Cwd rules."), <, position (prompt, "# Skills"));
  g_assert_cmpuint (sources->len, ==, 1);

  without = build (fixture, NULL, NULL, NULL, FALSE, NULL);
  assert_lacks (without, "# Skills");
  assert_lacks (without, "Does the x thing");
}

static void
test_system_prompt_option (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autofree char *system_md = write_file (fixture->home, "SYSTEM.md", "Custom base text.");
  g_autofree char *agents = write_file (fixture->cwd, "AGENTS.md", "Cwd rules.");
  g_autofree char *skills_dir = g_build_filename (fixture->home, "skills", "x", NULL);
  g_autofree char *skill = write_file (skills_dir, "SKILL.md", "---\nname: x\ndescription: X\n---\n");
  g_autoptr(GPtrArray) sources = NULL;
  g_autofree char *prompt = NULL;

  /* Replaces everything that would have been assembled. */
  prompt = build (fixture, "Only this.", NULL, NULL, TRUE, &sources);
  g_assert_cmpstr (prompt, ==, "Only this.");
  g_assert_cmpuint (sources->len, ==, 0);
}

static void
test_append (Fixture       *fixture,
             gconstpointer  data)
{
  const char * const append[] = { "First addition.", "Second addition.\n", NULL };
  g_autofree char *agents = write_file (fixture->cwd, "AGENTS.md", "Cwd rules.");
  g_autofree char *prompt = NULL;
  g_autofree char *replaced = NULL;

  prompt = build (fixture, NULL, append, NULL, TRUE, NULL);
  g_assert_true (g_str_has_suffix (prompt, "\n\nFirst addition.\n\nSecond addition."));
  g_assert_cmpuint (position (prompt, "Cwd rules."), <, position (prompt, "First addition."));

  replaced = build (fixture, "Only this.", append, NULL, TRUE, NULL);
  g_assert_cmpstr (replaced, ==, "Only this.\n\nFirst addition.\n\nSecond addition.");
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home_parent = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);

  home_parent = g_dir_make_tmp ("zot-test-prompt-home-XXXXXX", NULL);
  g_assert_nonnull (home_parent);
  test_home = g_build_filename (home_parent, "home", NULL);
  g_setenv ("ZOT_HOME", test_home, TRUE);

#define ADD(name, func) \
  g_test_add ("/zot/system-prompt/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("base", test_base);
  ADD ("system-md", test_system_md);
  ADD ("agents-repository", test_agents_repository);
  ADD ("agents-git-file", test_agents_git_file);
  ADD ("agents-no-repository", test_agents_no_repository);
  ADD ("agents-large", test_agents_large);
  ADD ("skills", test_skills);
  ADD ("system-prompt-option", test_system_prompt_option);
  ADD ("append", test_append);

#undef ADD

  ret = g_test_run ();
  remove_tree (home_parent);
  g_clear_pointer (&test_home, g_free);
  return ret;
}
