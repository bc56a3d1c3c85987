/* zot-tool-edit.c — the tools that change files: write and edit.
 *
 * Both replace the file atomically (atomic_write(): a temporary file in the
 * same directory, fsynced and renamed over it), so a reader or a crash sees
 * the old file or the new one. edit replaces exact text, once or every
 * time. Both run on a GTask worker thread and, once started, run to the end.
 */
#define G_LOG_DOMAIN "zot-tools"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-builtin-tools.h"
#include "zot-builtin-tools-private.h"
#include "zot-paths.h"

/* edit holds the whole file (and its new version) in memory. */
#define EDIT_MAX_BYTES    ((gsize) 64 * 1024 * 1024)

struct _ZotWriteTool
{
  ZotTool parent_instance;
};

struct _ZotEditTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotWriteTool, zot_write_tool, ZOT_TYPE_TOOL)
G_DEFINE_FINAL_TYPE (ZotEditTool, zot_edit_tool, ZOT_TYPE_TOOL)

static gboolean
write_all (int         fd,
           const char *data,
           gsize       len)
{
  while (len > 0)
    {
      gssize n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      data += n;
      len -= n;
    }

  return TRUE;
}

static gboolean
set_write_error (GError     **error,
                 int          errsv,
                 const char  *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               _("Could not write %s: %s"), path, g_strerror (errsv));
  return FALSE;
}

/* Replaces @path with @data so that a reader (or a crash, or a full disk)
 * sees the old file or the new one, never a mix: a temporary file in the
 * same directory, fsync, rename over the target, fsync the directory.
 * An existing file keeps its mode (and owner, where we may set it); a
 * symbolic link is written through, not replaced. */
static gboolean
atomic_write (const char  *path,
              const char  *data,
              gsize        len,
              GError     **error)
{
  g_autofree char *target = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp = NULL;
  struct stat st;
  gboolean exists = FALSE;
  int errsv;
  int fd = -1;

  target = g_strdup (path);
  if (g_lstat (path, &st) == 0 && S_ISLNK (st.st_mode))
    {
      char *resolved = realpath (path, NULL);

      if (resolved != NULL)
        {
          g_free (target);
          target = g_strdup (resolved);
          free (resolved);
        }
    }

  dir = g_path_get_dirname (target);
  base = g_path_get_basename (target);

  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Could not write %s: could not create the directory %s: %s"),
                   target, dir, g_strerror (errsv));
      return FALSE;
    }

  if (g_stat (target, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                       _("Could not write %s: it is a directory"), target);
          return FALSE;
        }
      exists = TRUE;
    }

  for (guint attempt = 0; attempt < 100 && fd < 0; attempt++)
    {
      g_clear_pointer (&tmp, g_free);
      /* The name is cut so that the temporary name stays within NAME_MAX. */
      tmp = g_strdup_printf ("%s/.%.100s.zot-%08x.tmp", dir, base, g_random_int ());
      /* 0666 lets the umask decide for a new file, as for any editor. */
      fd = g_open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, exists ? 0600 : 0666);
      if (fd < 0 && errno != EEXIST)
        return set_write_error (error, errno, target);
    }
  if (fd < 0)
    return set_write_error (error, EEXIST, target);

  /* The owner first: changing it clears set-id bits the mode restores. */
  if (exists)
    {
      if ((st.st_uid != geteuid () || st.st_gid != getegid ()) &&
          fchown (fd, st.st_uid, st.st_gid) != 0)
        g_debug ("Could not keep the owner of %s: %s", target, g_strerror (errno));
      if (fchmod (fd, st.st_mode & 07777) != 0)
        g_debug ("Could not keep the mode of %s: %s", target, g_strerror (errno));
    }

  if (!write_all (fd, data, len) || fsync (fd) != 0)
    {
      errsv = errno;
      close (fd);
      g_unlink (tmp);
      return set_write_error (error, errsv, target);
    }

  if (close (fd) != 0 || g_rename (tmp, target) != 0)
    {
      errsv = errno;
      g_unlink (tmp);
      return set_write_error (error, errsv, target);
    }

  /* The rename is only durable once the directory is on disk too. The new
   * file is in place whatever happens here, so a failure is not an error. */
  if (!zot_fsync_directory (dir))
    g_debug ("Could not fsync %s: %s", dir, g_strerror (errno));

  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* write                                                                   */
/* ---------------------------------------------------------------------- */

typedef struct
{
  char  *path;
  char  *content;
  gsize  len;
} WriteJob;

static void
write_job_free (WriteJob *job)
{
  g_free (job->path);
  g_free (job->content);
  g_free (job);
}

static void
write_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  WriteJob *job = task_data;
  g_autoptr(GError) error = NULL;

  /* Once started, a write runs to the end and reports what it did. */
  if (g_task_return_error_if_cancelled (task))
    return;

  if (!atomic_write (job->path, job->content, job->len, &error))
    {
      _zot_builtin_return_result (task,
                                  zot_tool_result_new_text (error->message, TRUE, ZOT_TOOL_OUTCOME_FAILED));
      return;
    }

  _zot_builtin_return_result (task,
                              _zot_builtin_result_printf (ZOT_TOOL_OUTCOME_COMPLETED,
                                            ngettext ("Wrote %zu byte to %s",
                                                      "Wrote %zu bytes to %s",
                                                      job->len),
                                            job->len, job->path));
}

static void
zot_write_tool_execute_async (ZotTool               *tool,
                              JsonObject            *args,
                              const ZotToolContext  *context,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data)
{
  const char *path = zot_tool_args_get_string (args, "path");
  const char *content = zot_tool_args_get_string (args, "content");
  WriteJob *job;

  if (path == NULL || *path == '\0' || content == NULL)
    {
      _zot_builtin_return_result_now (tool, zot_write_tool_execute_async, cancellable, callback, user_data,
                                      _zot_builtin_missing_string_arg (path == NULL || *path == '\0' ? "path" : "content"));
      return;
    }

  job = g_new0 (WriteJob, 1);
  job->path = zot_tool_resolve_path (context, path);
  job->content = g_strdup (content);
  job->len = strlen (content);

  _zot_builtin_run_job (tool, zot_write_tool_execute_async, TRUE,
                        job, (GDestroyNotify) write_job_free, write_thread,
                        cancellable, callback, user_data);
}

static void
zot_write_tool_class_init (ZotWriteToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_write_tool_execute_async;
  tool_class->execute_finish = _zot_builtin_execute_finish;
}

static void
zot_write_tool_init (ZotWriteTool *self)
{
}

/* ---------------------------------------------------------------------- */
/* edit                                                                    */
/* ---------------------------------------------------------------------- */

typedef struct
{
  char     *path;
  char     *old_text;
  char     *new_text;
  gboolean  replace_all;
} EditJob;

static void
edit_job_free (EditJob *job)
{
  g_free (job->path);
  g_free (job->old_text);
  g_free (job->new_text);
  g_free (job);
}

/* Every run of whitespace becomes one space; the ends are trimmed. */
static GString *
normalize_whitespace (const char *data,
                      gsize       len)
{
  GString *out = g_string_sized_new (len);
  gboolean space = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      if (g_ascii_isspace (data[i]))
        {
          space = out->len > 0;
          continue;
        }
      if (space)
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_c (out, data[i]);
    }

  return out;
}

static guint
count_matches (const char *haystack,
               gsize       haystack_len,
               const char *needle,
               gsize       needle_len)
{
  const char *p = haystack;
  const char *end = haystack + haystack_len;
  guint count = 0;

  while ((gsize) (end - p) >= needle_len &&
         (p = memmem (p, end - p, needle, needle_len)) != NULL)
    {
      count++;
      p += needle_len;
    }

  return count;
}

static ZotToolResult *
edit_run (EditJob *job)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GString) updated = NULL;
  g_autoptr(GError) error = NULL;
  ZotToolResult *result = NULL;
  const char *data;
  const char *p;
  const char *end;
  gsize old_len = strlen (job->old_text);
  gsize new_len = strlen (job->new_text);
  gsize len;
  gboolean too_big = FALSE;
  struct stat st;
  guint count;
  int fd;

  fd = _zot_builtin_open_regular_file (job->path, &st, &result);
  if (fd < 0)
    return result;
  bytes = _zot_builtin_read_fd_bounded (fd, job->path, EDIT_MAX_BYTES, &too_big, &error);
  close (fd);

  if (too_big)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      _("%s is larger than %zu bytes, too large to edit; "
                                        "use bash (sed) instead."),
                                      job->path, EDIT_MAX_BYTES);
  if (bytes == NULL)
    return zot_tool_result_new_text (error->message, TRUE, ZOT_TOOL_OUTCOME_FAILED);

  data = g_bytes_get_data (bytes, &len);
  count = count_matches (data, len, job->old_text, old_len);

  if (count == 0)
    {
      g_autoptr(GString) norm_file = normalize_whitespace (data, len);
      g_autoptr(GString) norm_old = normalize_whitespace (job->old_text, old_len);

      if (norm_old->len > 0 &&
          memmem (norm_file->str, norm_file->len, norm_old->str, norm_old->len) != NULL)
        return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                          _("old_text was not found in %s. A match exists "
                                            "if whitespace is ignored: the indentation, "
                                            "spaces or line breaks differ. Read the file "
                                            "and copy the text exactly."),
                                          job->path);

      return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                        _("old_text was not found in %s. Read the file and copy "
                                          "the text to replace exactly."),
                                        job->path);
    }

  if (count > 1 && !job->replace_all)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      _("old_text matches %u times in %s. Add more surrounding "
                                        "context to old_text so that it matches once, or set "
                                        "replace_all to true to replace every match."),
                                      count, job->path);

  updated = g_string_sized_new (len + count * (new_len > old_len ? new_len - old_len : 0));
  p = data;
  end = data + len;
  for (guint i = 0; i < count; i++)
    {
      const char *match = memmem (p, end - p, job->old_text, old_len);

      g_assert (match != NULL);
      g_string_append_len (updated, p, match - p);
      g_string_append_len (updated, job->new_text, new_len);
      p = match + old_len;
    }
  g_string_append_len (updated, p, end - p);

  if (!atomic_write (job->path, updated->str, updated->len, &error))
    return zot_tool_result_new_text (error->message, TRUE, ZOT_TOOL_OUTCOME_FAILED);

  return _zot_builtin_result_printf (ZOT_TOOL_OUTCOME_COMPLETED,
                                    ngettext ("Replaced %u occurrence in %s",
                                              "Replaced %u occurrences in %s",
                                              count),
                                    count, job->path);
}

static void
edit_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  if (g_task_return_error_if_cancelled (task))
    return;

  _zot_builtin_return_result (task, edit_run (task_data));
}

static void
zot_edit_tool_execute_async (ZotTool               *tool,
                             JsonObject            *args,
                             const ZotToolContext  *context,
                             GCancellable          *cancellable,
                             GAsyncReadyCallback    callback,
                             gpointer               user_data)
{
  const char *path = zot_tool_args_get_string (args, "path");
  const char *old_text = zot_tool_args_get_string (args, "old_text");
  const char *new_text = zot_tool_args_get_string (args, "new_text");
  gboolean replace_all = FALSE;
  ZotToolResult *refusal = NULL;
  EditJob *job;

  if (path == NULL || *path == '\0')
    refusal = _zot_builtin_missing_string_arg ("path");
  else if (old_text == NULL)
    refusal = _zot_builtin_missing_string_arg ("old_text");
  else if (new_text == NULL)
    refusal = _zot_builtin_missing_string_arg ("new_text");
  else if (*old_text == '\0')
    refusal = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                         _("old_text must not be empty; "
                                           "use write to create a file."));
  else if (g_str_equal (old_text, new_text))
    refusal = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                         _("old_text and new_text are the same; "
                                           "there is nothing to change."));
  else if (_zot_builtin_args_get_bool (args, "replace_all", &replace_all) == ZOT_ARG_INVALID)
    refusal = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                         _("replace_all must be true or false."));

  if (refusal != NULL)
    {
      _zot_builtin_return_result_now (tool, zot_edit_tool_execute_async, cancellable, callback, user_data,
                                      refusal);
      return;
    }

  job = g_new0 (EditJob, 1);
  job->path = zot_tool_resolve_path (context, path);
  job->old_text = g_strdup (old_text);
  job->new_text = g_strdup (new_text);
  job->replace_all = replace_all;

  _zot_builtin_run_job (tool, zot_edit_tool_execute_async, TRUE,
                        job, (GDestroyNotify) edit_job_free, edit_thread,
                        cancellable, callback, user_data);
}

static void
zot_edit_tool_class_init (ZotEditToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_edit_tool_execute_async;
  tool_class->execute_finish = _zot_builtin_execute_finish;
}

static void
zot_edit_tool_init (ZotEditTool *self)
{
}
