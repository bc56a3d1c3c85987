/* zot-tool-skill.c — the skill tool: loads a SKILL.md by name.
 *
 * Skills are discovered afresh for each call (zot-skills.c); an unknown
 * name gets the list of those that exist. Runs on a GTask worker thread.
 */
#define G_LOG_DOMAIN "zot-tools"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-builtin-tools.h"
#include "zot-builtin-tools-private.h"
#include "zot-limits.h"
#include "zot-skills.h"

struct _ZotSkillTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotSkillTool, zot_skill_tool, ZOT_TYPE_TOOL)

typedef struct
{
  char *cwd;
  char *name;
} SkillJob;

static void
skill_job_free (SkillJob *job)
{
  g_free (job->cwd);
  g_free (job->name);
  g_free (job);
}

static ZotToolResult *
skill_run (SkillJob *job)
{
  g_autoptr(GPtrArray) skills = zot_skills_discover (job->cwd);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = NULL;
  g_autofree char *content = NULL;
  gboolean truncated = FALSE;
  ZotSkill *skill;

  skill = zot_skills_find (skills, job->name);
  if (skill == NULL)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < skills->len; i++)
        {
          ZotSkill *each = g_ptr_array_index (skills, i);

          if (names->len > 0)
            g_string_append (names, ", ");
          g_string_append (names, each->name);
        }

      if (names->len == 0)
        return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                          _("Unknown skill \"%s\": no skills are available."),
                                          job->name);
      return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                        _("Unknown skill \"%s\". Available skills: %s."),
                                        job->name, names->str);
    }

  content = zot_skill_load (skill, ZOT_READ_MAX_BYTES, &truncated, &error);
  if (content == NULL)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      _("Could not load the skill \"%s\": %s"),
                                      skill->name, error->message);

  text = g_string_new (NULL);
  if (skill->directory != NULL)
    g_string_append_printf (text,
                            /* Translators: the skill's name, its description, the file it came
                             * from, then its folder; a skill is a set of instructions the model
                             * can load */
                            _("Skill \"%s\" (%s) from %s\n"
                              "Paths in it are relative to the skill's directory: %s\n\n"),
                            skill->name, skill->source, skill->path, skill->directory);
  else
    g_string_append_printf (text, _("Skill \"%s\" (built in)\n\n"), skill->name);

  g_string_append (text, content);

  if (truncated)
    g_string_append_printf (text,
                            _("\n\n[The skill is longer than %zu bytes and was cut. "
                              "Read the rest of %s with the read tool (offset, limit).]"),
                            ZOT_READ_MAX_BYTES, skill->path);

  return zot_tool_result_new_text (text->str, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
}

static void
skill_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  _zot_builtin_return_result (task, skill_run (task_data));
}

static void
zot_skill_tool_execute_async (ZotTool               *tool,
                              JsonObject            *args,
                              const ZotToolContext  *context,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data)
{
  const char *name = zot_tool_args_get_string (args, "name");
  SkillJob *job;

  if (name == NULL || *name == '\0')
    {
      _zot_builtin_return_result_now (tool, zot_skill_tool_execute_async, cancellable, callback, user_data,
                                      _zot_builtin_missing_string_arg ("name"));
      return;
    }

  job = g_new0 (SkillJob, 1);
  job->cwd = g_strdup (context->cwd);
  job->name = g_strstrip (g_strdup (name));

  _zot_builtin_run_job (tool, zot_skill_tool_execute_async, FALSE,
                        job, (GDestroyNotify) skill_job_free, skill_thread,
                        cancellable, callback, user_data);
}

static void
zot_skill_tool_class_init (ZotSkillToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_skill_tool_execute_async;
  tool_class->execute_finish = _zot_builtin_execute_finish;
}

static void
zot_skill_tool_init (ZotSkillTool *self)
{
}
