/* zot-tool-glob.c — the glob tool: the project's files whose path matches
 * a pattern, newest first.
 *
 * The pattern is matched, segment by segment, against each file's path
 * relative to the folder searched (`path`, the project by default): `*`,
 * `?` and `[…]` stay within a segment (fnmatch(3)), and a whole `**`
 * segment stands for any number of folders, none included. The walk stays
 * in the project, never follows a symbolic link to a folder, skips `.git`
 * and what the .gitignore files from the project down say (comments,
 * `!` negation, a trailing `/` for folders only, a `/` elsewhere anchoring
 * the rule to its file's folder; the last matching rule wins). It reads at
 * most ZOT_GLOB_MAX_ENTRIES entries, ZOT_GLOB_MAX_DEPTH folders deep, and
 * lists at most ZOT_GLOB_MAX_RESULTS files; a note says when a bound cut
 * the answer short.
 */
#define G_LOG_DOMAIN "zot-tools"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n.h>

#include "zot-builtin-tools.h"
#include "zot-builtin-tools-private.h"
#include "zot-limits.h"

struct _ZotGlobTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotGlobTool, zot_glob_tool, ZOT_TYPE_TOOL)

/* ------------------------------------------------------------------ */
/* Patterns                                                            */
/* ------------------------------------------------------------------ */

/* Whether @path's segments match @pattern's, a `**` segment taking any
 * number of them: a table over (pattern segment, path segment), so a
 * pattern with many `**` stays linear in each. */
static gboolean
segments_match (char       **pattern,
                guint        n_pattern,
                char       **path,
                guint        n_path)
{
  g_autofree guint8 *table = g_new0 (guint8, (gsize) (n_pattern + 1) * (n_path + 1));

#define AT(p, s) table[(gsize) (p) * (n_path + 1) + (s)]
  AT (n_pattern, n_path) = TRUE;
  for (guint p = n_pattern; p-- > 0;)
    for (guint s = n_path + 1; s-- > 0;)
      {
        if (g_str_equal (pattern[p], "**"))
          AT (p, s) = AT (p + 1, s) || (s < n_path && AT (p, s + 1));
        else
          AT (p, s) = s < n_path && fnmatch (pattern[p], path[s], 0) == 0 && AT (p + 1, s + 1);
      }
  return AT (0, 0);
#undef AT
}

static gboolean
path_matches (char       **pattern,
              const char  *relative)
{
  g_auto(GStrv) segments = g_strsplit (relative, "/", -1);

  return segments_match (pattern, g_strv_length (pattern), segments, g_strv_length (segments));
}

/* A pattern as segments, without empty ones ("a//b", a leading "./"). */
static GStrv
split_pattern (const char *pattern)
{
  g_auto(GStrv) parts = g_strsplit (pattern, "/", -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0' && !g_str_equal (parts[i], "."))
      g_strv_builder_add (builder, parts[i]);
  return g_strv_builder_end (builder);
}

/* ------------------------------------------------------------------ */
/* .gitignore                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  GStrv     segments;
  gboolean  negated;
  gboolean  dir_only;
  gboolean  anchored;
} IgnoreRule;

/* The rules of one .gitignore, for the paths under @base (relative to the
 * project, "" for its root); reference-counted (g_rc_box), as each folder
 * below shares it. */
typedef struct
{
  char   *base;
  GArray *rules;
} IgnoreFile;

static void
ignore_rule_clear (gpointer data)
{
  IgnoreRule *rule = data;

  g_strfreev (rule->segments);
}

static void
ignore_file_clear (gpointer data)
{
  IgnoreFile *file = data;

  g_free (file->base);
  g_array_unref (file->rules);
}

static void
ignore_file_release (gpointer data)
{
  g_rc_box_release_full (data, ignore_file_clear);
}

static IgnoreFile *
ignore_file_load (const char *directory,
                  const char *base)
{
  g_autofree char *path = g_build_filename (directory, ".gitignore", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  IgnoreFile *file;

  /* A .gitignore is a short list; a huge one is not read at all. */
  if (!g_file_get_contents (path, &text, NULL, NULL) || strlen (text) > ZOT_READ_MAX_BYTES)
    return NULL;

  file = g_rc_box_new0 (IgnoreFile);
  file->base = g_strdup (base);
  file->rules = g_array_new (FALSE, TRUE, sizeof (IgnoreRule));
  g_array_set_clear_func (file->rules, ignore_rule_clear);

  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strchomp (lines[i]);
      IgnoreRule rule = { 0 };
      gsize len;

      if (*line == '\0' || *line == '#')
        continue;
      if (*line == '!')
        {
          rule.negated = TRUE;
          line++;
        }
      else if (*line == '\\')
        line++;

      len = strlen (line);
      if (len > 0 && line[len - 1] == '/')
        {
          rule.dir_only = TRUE;
          line[--len] = '\0';
        }
      rule.anchored = strchr (line, '/') != NULL;
      rule.segments = split_pattern (line);
      if (rule.segments[0] == NULL)
        {
          g_strfreev (rule.segments);
          continue;
        }
      g_array_append_val (file->rules, rule);
    }

  return file;
}

/* Whether @relative (to the project) is ignored by @files, in order: the
 * last rule that matches decides. */
static gboolean
is_ignored (GPtrArray  *files,
            const char *relative,
            const char *name,
            gboolean    is_dir)
{
  gboolean ignored = FALSE;

  for (guint f = 0; f < files->len; f++)
    {
      IgnoreFile *file = g_ptr_array_index (files, f);
      const char *below = relative + strlen (file->base) + (*file->base != '\0' ? 1 : 0);

      for (guint r = 0; r < file->rules->len; r++)
        {
          IgnoreRule *rule = &g_array_index (file->rules, IgnoreRule, r);
          gboolean match;

          if (rule->dir_only && !is_dir)
            continue;
          if (rule->anchored)
            match = path_matches (rule->segments, below);
          else
            match = fnmatch (rule->segments[0], name, 0) == 0;
          if (match)
            ignored = !rule->negated;
        }
    }

  return ignored;
}

/* ------------------------------------------------------------------ */
/* The walk                                                            */
/* ------------------------------------------------------------------ */

typedef struct
{
  char      *relative;   /* to the project */
  guint      depth;      /* below the folder searched */
  GPtrArray *ignores;    /* IgnoreFile, shared with the parent when it adds none */
} Folder;

typedef struct
{
  char   *relative;
  gint64  mtime;
} Match;

typedef struct
{
  char     *project;     /* the project, canonical */
  char     *start;       /* the folder searched, relative to the project */
  char     *pattern;
  GStrv     segments;
  /* What the walk met. */
  guint     entries;
  gboolean  entries_cut;
  gboolean  depth_cut;
} GlobJob;

static void
glob_job_free (gpointer data)
{
  GlobJob *job = data;

  g_free (job->project);
  g_free (job->start);
  g_free (job->pattern);
  g_strfreev (job->segments);
  g_free (job);
}

static void
folder_free (Folder *folder)
{
  g_free (folder->relative);
  g_ptr_array_unref (folder->ignores);
  g_free (folder);
}

static void
match_free (gpointer data)
{
  Match *match = data;

  g_free (match->relative);
  g_free (match);
}

static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const Match *x = *(const Match **) a;
  const Match *y = *(const Match **) b;

  if (x->mtime != y->mtime)
    return x->mtime > y->mtime ? -1 : 1;
  return strcmp (x->relative, y->relative);
}

static char *
join_relative (const char *parent,
               const char *name)
{
  return *parent == '\0' ? g_strdup (name) : g_strconcat (parent, "/", name, NULL);
}

/* The .gitignore files from the project's root down to @start's parent,
 * which apply to what the walk finds under @start. */
static GPtrArray *
ignores_above (GlobJob *job)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (ignore_file_release);
  g_auto(GStrv) parts = g_strsplit (job->start, "/", -1);
  g_autoptr(GString) relative = g_string_new (NULL);

  for (guint i = 0; *job->start != '\0' && parts[i] != NULL; i++)
    {
      g_autofree char *directory = g_build_filename (job->project, relative->str, NULL);
      IgnoreFile *file = ignore_file_load (directory, relative->str);

      if (file != NULL)
        g_ptr_array_add (files, file);
      if (relative->len > 0)
        g_string_append_c (relative, '/');
      g_string_append (relative, parts[i]);
    }

  return files;
}

/* Reads one folder: its matches go to @matches, its folders to @stack. */
static void
walk_folder (GlobJob   *job,
             Folder    *folder,
             GQueue    *stack,
             GPtrArray *matches)
{
  g_autofree char *path = g_build_filename (job->project, folder->relative, NULL);
  g_autoptr(GPtrArray) ignores = NULL;
  IgnoreFile *own = ignore_file_load (path, folder->relative);
  const char *start_prefix = job->start;
  DIR *dir;
  struct dirent *entry;

  if (own != NULL)
    {
      ignores = g_ptr_array_new_with_free_func (ignore_file_release);
      for (guint i = 0; i < folder->ignores->len; i++)
        g_ptr_array_add (ignores, g_rc_box_acquire (g_ptr_array_index (folder->ignores, i)));
      g_ptr_array_add (ignores, own);
    }
  else
    ignores = g_ptr_array_ref (folder->ignores);

  dir = opendir (path);
  if (dir == NULL)
    return;

  while ((entry = readdir (dir)) != NULL)
    {
      g_autofree char *relative = NULL;
      g_autofree char *full = NULL;
      struct stat st;
      gboolean is_dir;

      if (g_str_equal (entry->d_name, ".") || g_str_equal (entry->d_name, ".."))
        continue;
      if (job->entries >= ZOT_GLOB_MAX_ENTRIES)
        {
          job->entries_cut = TRUE;
          break;
        }
      job->entries++;

      if (g_str_equal (entry->d_name, ".git"))
        continue;

      relative = join_relative (folder->relative, entry->d_name);
      full = g_build_filename (job->project, relative, NULL);
      if (lstat (full, &st) != 0)
        continue;
      is_dir = S_ISDIR (st.st_mode);
      if (is_ignored (ignores, relative, entry->d_name, is_dir))
        continue;

      if (is_dir)
        {
          Folder *child;

          if (folder->depth + 1 > ZOT_GLOB_MAX_DEPTH)
            {
              job->depth_cut = TRUE;
              continue;
            }
          child = g_new0 (Folder, 1);
          child->relative = g_steal_pointer (&relative);
          child->depth = folder->depth + 1;
          child->ignores = g_ptr_array_ref (ignores);
          g_queue_push_head (stack, child);
        }
      else
        {
          const char *below = relative + strlen (start_prefix) + (*start_prefix != '\0' ? 1 : 0);

          if (path_matches (job->segments, below))
            {
              Match *match = g_new0 (Match, 1);

              match->relative = g_steal_pointer (&relative);
              match->mtime = (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
              g_ptr_array_add (matches, match);
            }
        }
    }

  closedir (dir);
}

static ZotToolResult *
glob_result (GlobJob   *job,
             GPtrArray *matches)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(JsonArray) files = json_array_new ();
  g_autoptr(JsonObject) structured = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  ZotToolResult *result;
  guint shown = MIN (matches->len, ZOT_GLOB_MAX_RESULTS);

  g_ptr_array_sort (matches, compare_matches);
  for (guint i = 0; i < shown; i++)
    {
      Match *match = g_ptr_array_index (matches, i);

      g_string_append_printf (text, "%s\n", match->relative);
      json_array_add_string_element (files, match->relative);
    }

  if (matches->len == 0)
    g_string_append_printf (text, "No files match \"%s\".\n", job->pattern);
  if (matches->len > shown)
    g_string_append_printf (text, "(%u more files match; only the %u newest are listed: narrow "
                            "the pattern or the path)\n", matches->len - shown, shown);
  if (job->entries_cut)
    g_string_append_printf (text, "(the search stopped after %u entries: narrow the path to "
                            "see the rest)\n", ZOT_GLOB_MAX_ENTRIES);
  if (job->depth_cut)
    g_string_append_printf (text, "(folders more than %u levels deep were not searched)\n",
                            ZOT_GLOB_MAX_DEPTH);

  json_object_set_array_member (structured, "files", json_array_ref (files));
  json_object_set_int_member (structured, "total", matches->len);
  json_object_set_boolean_member (structured, "complete",
                                  matches->len == shown && !job->entries_cut && !job->depth_cut);
  node = json_node_init_object (json_node_alloc (), structured);

  result = zot_tool_result_new_text (text->str, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
  result->structured_content = g_steal_pointer (&node);
  return result;
}

static void
glob_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GlobJob *job = task_data;
  g_autoptr(GPtrArray) matches = g_ptr_array_new_with_free_func (match_free);
  GQueue stack = G_QUEUE_INIT;
  Folder *folder = g_new0 (Folder, 1);
  GError *error = NULL;

  folder->relative = g_strdup (job->start);
  folder->ignores = ignores_above (job);
  g_queue_push_head (&stack, folder);

  while ((folder = g_queue_pop_head (&stack)) != NULL)
    {
      if (!job->entries_cut && !g_cancellable_is_cancelled (cancellable))
        walk_folder (job, folder, &stack, matches);
      folder_free (folder);
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, &error))
    g_task_return_error (task, error);
  else
    _zot_builtin_return_result (task, glob_result (job, matches));
}

/* ------------------------------------------------------------------ */
/* The call                                                            */
/* ------------------------------------------------------------------ */

/* @path (resolved) relative to @project, or NULL when it is outside it,
 * by its name or through a symbolic link. */
static char *
relative_to_project (const char *project,
                     const char *path)
{
  g_autofree char *real_project = realpath (project, NULL);
  g_autofree char *real_path = realpath (path, NULL);
  gsize len = strlen (project);

  /* A project at the root holds everything. */
  if (g_str_equal (project, "/"))
    return g_strdup (path + 1);
  if (!g_str_equal (path, project) &&
      !(g_str_has_prefix (path, project) && path[len] == '/'))
    return NULL;
  if (real_project != NULL && real_path != NULL && !g_str_equal (real_project, real_path) &&
      !(g_str_has_prefix (real_path, real_project) && real_path[strlen (real_project)] == '/'))
    return NULL;

  return g_strdup (path[len] == '/' ? path + len + 1 : "");
}

static void
zot_glob_tool_execute_async (ZotTool               *tool,
                             JsonObject            *args,
                             const ZotToolContext  *context,
                             GCancellable          *cancellable,
                             GAsyncReadyCallback    callback,
                             gpointer               user_data)
{
  const char *pattern = zot_tool_args_get_string (args, "pattern");
  const char *path = zot_tool_args_get_string (args, "path");
  g_autofree char *project = g_canonicalize_filename (context->cwd, NULL);
  g_autofree char *resolved = NULL;
  g_autofree char *start = NULL;
  GlobJob *job;

  if (pattern == NULL || *pattern == '\0')
    {
      _zot_builtin_return_result_now (tool, zot_glob_tool_execute_async, cancellable, callback, user_data,
                                      _zot_builtin_missing_string_arg ("pattern"));
      return;
    }

  resolved = zot_tool_resolve_path (context, path != NULL && *path != '\0' ? path : ".");
  start = relative_to_project (project, resolved);
  if (start == NULL)
    {
      _zot_builtin_return_result_now (tool, zot_glob_tool_execute_async, cancellable, callback, user_data,
                                      zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                                 _("%s is outside the project (%s): "
                                                                   "glob searches the project's files "
                                                                   "only."),
                                                                 resolved, project));
      return;
    }
  if (!g_file_test (resolved, G_FILE_TEST_IS_DIR))
    {
      _zot_builtin_return_result_now (tool, zot_glob_tool_execute_async, cancellable, callback, user_data,
                                      zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                                 _("%s is not a folder: give the "
                                                                   "folder to search in path."),
                                                                 resolved));
      return;
    }

  job = g_new0 (GlobJob, 1);
  job->project = g_steal_pointer (&project);
  job->start = g_steal_pointer (&start);
  job->pattern = g_strdup (pattern);
  job->segments = split_pattern (pattern);

  _zot_builtin_run_job (tool, zot_glob_tool_execute_async, FALSE,
                        job, glob_job_free, glob_thread,
                        cancellable, callback, user_data);
}

static void
zot_glob_tool_class_init (ZotGlobToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_glob_tool_execute_async;
  tool_class->execute_finish = _zot_builtin_execute_finish;
}

static void
zot_glob_tool_init (ZotGlobTool *self)
{
}
