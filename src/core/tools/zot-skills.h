/* zot-skills.h — SKILL.md files the model can load by name.
 *
 * A skill is a directory holding SKILL.md, with optional front matter:
 *
 *   ---
 *   name: release-notes
 *   description: How to write the release notes of this project
 *   ---
 *   # Release notes
 *   …
 *
 * Without front matter (or without those keys) the name is the directory's
 * name and the description the first line of the first paragraph that is
 * not a heading. Sources, in order, later ones overriding earlier ones of
 * the same name: the built-ins compiled into zot, $ZOT_HOME/skills/<dir>/,
 * then <cwd>/.zot/skills/<dir>/ (directories in name order; within one
 * source the first of a name wins).
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * ZotSkill:
 * @name: what the skill tool is called with
 * @description: one line for the system prompt (may be empty)
 * @path: (nullable): the SKILL.md file, %NULL for a built-in
 * @directory: (nullable): the directory relative references start from, %NULL for a built-in
 * @source: "builtin", "user" or "project"
 */
typedef struct
{
  char *name;
  char *description;
  char *path;
  char *directory;
  char *source;
} ZotSkill;

#define ZOT_TYPE_SKILL (zot_skill_get_type ())
GType      zot_skill_get_type      (void) G_GNUC_CONST;
ZotSkill  *zot_skill_copy          (const ZotSkill *skill);
void       zot_skill_free          (ZotSkill       *skill);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotSkill, zot_skill_free)

char      *zot_skill_load          (const ZotSkill *skill,
                                    gsize           max_bytes,
                                    gboolean       *truncated,
                                    GError        **error);

GPtrArray *zot_skills_discover     (const char     *cwd);
ZotSkill  *zot_skills_find         (GPtrArray      *skills,
                                    const char     *name);
char      *zot_skills_format_list  (GPtrArray      *skills);

G_END_DECLS
