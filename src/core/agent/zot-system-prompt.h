/* zot-system-prompt.h — the system prompt of a run.
 *
 * Assembled in this order, each part separated by a blank line:
 *
 *   1. the base instructions, or $ZOT_HOME/SYSTEM.md instead when it exists,
 *      followed by the working directory;
 *   2. context files: AGENTS.md of each directory from the repository root
 *      (the nearest ancestor of the cwd holding .git; without one, only the
 *      cwd) down to the cwd, root first, each under a heading naming it;
 *   3. the skills list, under a heading that points at the `skill` tool;
 *   4. --system-prompt, when given, replaces 1–3 (nothing is read then);
 *   5. each --append-system-prompt, in order.
 *
 * The text is for the model, so it is not translated, and it holds no date
 * so that it stays the same from one run to the next (prompt caching).
 * The files are small and read synchronously.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ZotSystemPromptOptions:
 * @cwd: (nullable): the working directory; %NULL for the current one
 * @system_prompt: (nullable): --system-prompt; replaces base, context and skills
 * @append: (nullable) (array zero-terminated=1): --append-system-prompt values, in order
 * @tool_names: (nullable) (element-type utf8): the tools the model has, named in the
 *   base text; %NULL says nothing about tools, an empty array says there are none
 * @include_skills: whether to list the skills (when the `skill` tool is available)
 */
typedef struct
{
  const char         *cwd;
  const char         *system_prompt;
  const char * const *append;
  GPtrArray          *tool_names;
  gboolean            include_skills;
} ZotSystemPromptOptions;

/* Files bigger than this are cut, with a note saying so. */
#define ZOT_SYSTEM_PROMPT_FILE_MAX_BYTES ((gsize) 256 * 1024)

char *zot_system_prompt_build (const ZotSystemPromptOptions  *options,
                               GPtrArray                    **sources);

G_END_DECLS
