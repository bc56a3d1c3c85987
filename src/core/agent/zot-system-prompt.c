#define G_LOG_DOMAIN "zot-system-prompt"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zot-paths.h"
#include "zot-skills.h"
#include "zot-system-prompt.h"

/* Not translated: this text is for the model, not for the user. */
static const char base_instructions[] =
  "You are zot, a coding agent working on the user's machine. You help with software "
  "tasks (reading and changing code, running commands, answering questions about the "
  "project) by using the tools you have.\n"
  "\n"
  "Guidelines:\n"
  "- Be precise and concise. Say what you did and what you found; do not pad.\n"
  "- Read before you edit: look at a file, and the code around the change, with your "
  "tools before changing it, and keep to the style it already has.\n"
  "- Prefer small, targeted changes. Do not touch what the task does not need.\n"
  "- Check your work where you can: build, run the tests, read the result back.\n"
  "- Never make up file contents, APIs or command output; look, or say that you do not "
  "know.\n"
  "- If a command fails, read the error and change course instead of repeating it.\n"
  "- Ask before anything destructive or outside the project (deleting data, rewriting "
  "history, touching system files), and when the request is ambiguous.";

/* Reads a regular file, at most ZOT_SYSTEM_PROMPT_FILE_MAX_BYTES of it,
 * as valid UTF-8. Returns NULL when there is no such file. */
static char *
read_text_file (const char *path)
{
  g_autofree char *data = NULL;
  g_autofree char *text = NULL;
  struct stat st;
  gsize cap = ZOT_SYSTEM_PROMPT_FILE_MAX_BYTES;
  gsize got = 0;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return NULL;

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return NULL;
    }

  data = g_malloc (cap + 1);
  while (got <= cap)
    {
      ssize_t n = read (fd, data + got, cap + 1 - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_debug ("cannot read %s: %s", path, g_strerror (errno));
          close (fd);
          return NULL;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  close (fd);

  text = g_utf8_make_valid (data, MIN (got, cap));
  if (got > cap)
    {
      g_autofree char *cut = g_steal_pointer (&text);
      /* Do not end on half a character. */
      const char *end = g_utf8_find_prev_char (cut, cut + strlen (cut));

      if (end != NULL)
        cut[end - cut] = '\0';
      text = g_strdup_printf ("%s\n\n[… %s was cut at %" G_GSIZE_FORMAT " KiB]",
                              cut, path, cap / 1024);
    }

  return g_steal_pointer (&text);
}

static void
add_part (GString    *prompt,
          const char *text)
{
  g_autofree char *part = g_strdup (text);

  g_strchomp (part);
  if (*part == '\0')
    return;

  if (prompt->len > 0)
    g_string_append (prompt, "\n\n");
  g_string_append (prompt, part);
}

static char *
base_text (const ZotSystemPromptOptions *options,
           const char                   *cwd,
           GPtrArray                    *sources)
{
  g_autofree char *home = zot_paths_get_home ();
  g_autofree char *custom_path = g_build_filename (home, "SYSTEM.md", NULL);
  g_autofree char *custom = read_text_file (custom_path);
  GString *text = g_string_new (NULL);

  if (custom != NULL)
    {
      add_part (text, custom);
      g_ptr_array_add (sources, g_steal_pointer (&custom_path));
    }
  else
    {
      add_part (text, base_instructions);

      if (options->tool_names != NULL && options->tool_names->len == 0)
        add_part (text, "You have no tools in this conversation: answer from what you know "
                        "and what the user shows you.");
      else if (options->tool_names != NULL)
        {
          g_string_append (text, "\n\nYour tools: ");
          for (guint i = 0; i < options->tool_names->len; i++)
            g_string_append_printf (text, "%s%s", i > 0 ? ", " : "",
                                    (const char *) g_ptr_array_index (options->tool_names, i));
          g_string_append_c (text, '.');
        }
    }

  /* Whatever the base, the model needs to know where it is. */
  g_string_append_printf (text, "%sThe working directory is %s.", text->len > 0 ? "\n\n" : "", cwd);
  return g_string_free (text, FALSE);
}

/* The directories whose AGENTS.md apply to @cwd: from the repository root
 * down to @cwd, or @cwd alone outside a repository. */
static GPtrArray *
context_dirs (const char *cwd)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = g_strdup (cwd);

  for (;;)
    {
      g_autofree char *git = g_build_filename (dir, ".git", NULL);
      g_autofree char *parent = NULL;

      g_ptr_array_insert (dirs, 0, g_strdup (dir));

      /* A .git file, not just a directory, marks worktrees and submodules. */
      if (g_file_test (git, G_FILE_TEST_EXISTS))
        return dirs;

      parent = g_path_get_dirname (dir);
      if (g_str_equal (parent, dir))
        break;
      g_free (dir);
      dir = g_steal_pointer (&parent);
    }

  g_ptr_array_set_size (dirs, 0);
  g_ptr_array_add (dirs, g_strdup (cwd));
  return dirs;
}

static char *
context_text (const char *cwd,
              GPtrArray  *sources)
{
  g_autoptr(GPtrArray) dirs = context_dirs (cwd);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (g_ptr_array_index (dirs, i), "AGENTS.md", NULL);
      g_autofree char *contents = read_text_file (path);

      if (contents == NULL)
        continue;

      g_strchomp (contents);
      if (*g_strchug (contents) == '\0')
        continue;

      if (text->len == 0)
        g_string_append (text,
                         "# Project instructions\n"
                         "\n"
                         "These AGENTS.md files hold instructions for working in this project, "
                         "from the repository root down to the working directory; where they "
                         "disagree, the later (nearer) one wins.");

      g_string_append_printf (text, "\n\n## %s\n\n%s", path, contents);
      g_ptr_array_add (sources, g_steal_pointer (&path));
    }

  return g_string_free (text, FALSE);
}

static char *
skills_text (const char *cwd)
{
  g_autoptr(GPtrArray) skills = zot_skills_discover (cwd);
  g_autofree char *list = NULL;

  if (skills == NULL || skills->len == 0)
    return NULL;

  list = zot_skills_format_list (skills);
  if (list == NULL || *list == '\0')
    return NULL;

  return g_strdup_printf ("# Skills\n"
                          "\n"
                          "Skills hold instructions for particular tasks. When a task matches one "
                          "below, call the `skill` tool with its name to load it before you start.\n"
                          "\n"
                          "%s", list);
}

/**
 * zot_system_prompt_build:
 * @options: what to assemble
 * @sources: (out) (optional) (transfer full) (element-type filename): the
 *   files the prompt was built from (SYSTEM.md, AGENTS.md), in order
 *
 * Builds the system prompt as described in zot-system-prompt.h.
 *
 * Returns: (transfer full): the prompt
 */
char *
zot_system_prompt_build (const ZotSystemPromptOptions  *options,
                         GPtrArray                    **sources)
{
  g_autoptr(GPtrArray) used = g_ptr_array_new_with_free_func (g_free);
  GString *prompt;

  g_return_val_if_fail (options != NULL, NULL);

  prompt = g_string_new (NULL);

  if (options->system_prompt != NULL)
    add_part (prompt, options->system_prompt);
  else
    {
      g_autofree char *cwd = zot_paths_canonicalize (options->cwd);
      g_autofree char *base = base_text (options, cwd, used);
      g_autofree char *context = context_text (cwd, used);
      g_autofree char *skills = options->include_skills ? skills_text (cwd) : NULL;

      add_part (prompt, base);
      add_part (prompt, context);
      if (skills != NULL)
        add_part (prompt, skills);
    }

  for (guint i = 0; options->append != NULL && options->append[i] != NULL; i++)
    add_part (prompt, options->append[i]);

  if (sources != NULL)
    *sources = g_steal_pointer (&used);

  return g_string_free (prompt, FALSE);
}
