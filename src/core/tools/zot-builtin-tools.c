#define G_LOG_DOMAIN "zot-tools"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-builtin-tools.h"
#include "zot-provider.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-skills.h"

/* Binary sniffing looks for NUL bytes in this much of a file's head. */
#define READ_SNIFF_BYTES  ((gsize) 8 * 1024)
#define READ_CHUNK_BYTES  ((gsize) 64 * 1024)
/* edit holds the whole file (and its new version) in memory. */
#define EDIT_MAX_BYTES    ((gsize) 64 * 1024 * 1024)
/* After SIGKILL a process leaves at once, unless stuck in the kernel;
 * past this the call completes without waiting for it. */
#define BASH_KILL_GRACE_MS 2000
#define BASH_READ_BYTES   ((gsize) 64 * 1024)

struct _ZotReadTool
{
  ZotTool parent_instance;
};

struct _ZotWriteTool
{
  ZotTool parent_instance;
};

struct _ZotEditTool
{
  ZotTool parent_instance;
};

struct _ZotBashTool
{
  ZotTool parent_instance;
};

struct _ZotSkillTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotReadTool, zot_read_tool, ZOT_TYPE_TOOL)
G_DEFINE_FINAL_TYPE (ZotWriteTool, zot_write_tool, ZOT_TYPE_TOOL)
G_DEFINE_FINAL_TYPE (ZotEditTool, zot_edit_tool, ZOT_TYPE_TOOL)
G_DEFINE_FINAL_TYPE (ZotBashTool, zot_bash_tool, ZOT_TYPE_TOOL)
G_DEFINE_FINAL_TYPE (ZotSkillTool, zot_skill_tool, ZOT_TYPE_TOOL)

/* ---------------------------------------------------------------------- */
/* Shared helpers                                                          */
/* ---------------------------------------------------------------------- */

typedef enum
{
  ARG_MISSING,
  ARG_OK,
  ARG_INVALID,
} ArgStatus;

/* Models send integers as JSON numbers, sometimes as 10.0 or "10". */
static ArgStatus
args_get_int (JsonObject *args,
              const char *member,
              gint64     *value)
{
  JsonNode *node = json_object_get_member (args, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return ARG_MISSING;
  if (!JSON_NODE_HOLDS_VALUE (node))
    return ARG_INVALID;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      *value = json_node_get_int (node);
      return ARG_OK;

    case G_TYPE_DOUBLE:
      {
        double d = json_node_get_double (node);

        if (!(d > -9.0e15 && d < 9.0e15) || d != (double) (gint64) d)
          return ARG_INVALID;
        *value = (gint64) d;
        return ARG_OK;
      }

    case G_TYPE_STRING:
      {
        g_autofree char *text = g_strstrip (g_strdup (json_node_get_string (node)));

        return g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, value, NULL)
               ? ARG_OK : ARG_INVALID;
      }

    default:
      return ARG_INVALID;
    }
}

static ArgStatus
args_get_bool (JsonObject *args,
               const char *member,
               gboolean   *value)
{
  JsonNode *node = json_object_get_member (args, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return ARG_MISSING;
  if (!JSON_NODE_HOLDS_VALUE (node))
    return ARG_INVALID;

  if (json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    {
      *value = json_node_get_boolean (node);
      return ARG_OK;
    }
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (node);

      if (g_ascii_strcasecmp (text, "true") == 0 || g_ascii_strcasecmp (text, "false") == 0)
        {
          *value = g_ascii_strcasecmp (text, "true") == 0;
          return ARG_OK;
        }
    }

  return ARG_INVALID;
}

/* A formatted result; anything but a completion is an error for the model. */
G_GNUC_PRINTF (2, 3)
static ZotToolResult *
result_printf (ZotToolOutcome  outcome,
               const char     *format,
               ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  return zot_tool_result_new_text (text, outcome != ZOT_TOOL_OUTCOME_COMPLETED, outcome);
}

static ZotToolResult *
missing_string_arg (const char *member)
{
  return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                    _("The argument \"%s\" is required and must be a string."),
                                    member);
}

static void
return_result (GTask         *task,
               ZotToolResult *result)
{
  g_task_return_pointer (task, result, (GDestroyNotify) zot_tool_result_free);
}

/* Completes a call at once, for arguments refused before any work. */
static void
return_result_now (ZotTool             *self,
                   gpointer             source_tag,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data,
                   ZotToolResult       *result)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  return_result (task, result);
}

static ZotToolResult *
builtin_execute_finish (ZotTool       *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static ZotToolResult *
errno_result (int         errsv,
              const char *path)
{
  if (errsv == ENOENT)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED, _("File not found: %s"), path);

  return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED, _("Could not read %s: %s"),
                                    path, g_strerror (errsv));
}

/* Opens @path for reading, refusing what is not a regular file (a FIFO
 * would block the worker forever). Returns -1 with *@result set. */
static int
open_regular_file (const char     *path,
                   struct stat    *st,
                   ZotToolResult **result)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);

  if (fd < 0)
    {
      *result = errno_result (errno, path);
      return -1;
    }

  if (fstat (fd, st) != 0)
    {
      *result = errno_result (errno, path);
      close (fd);
      return -1;
    }

  if (S_ISDIR (st->st_mode))
    {
      *result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                           _("%s is a directory, not a file. "
                                             "Use bash (ls) to list it."),
                                           path);
      close (fd);
      return -1;
    }

  if (!S_ISREG (st->st_mode))
    {
      *result = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                           _("%s is not a regular file."), path);
      close (fd);
      return -1;
    }

  return fd;
}

/* Reads all of @fd, refusing more than @max_bytes. */
static GBytes *
read_fd_bounded (int         fd,
                 const char *path,
                 gsize       max_bytes,
                 gboolean   *too_big,
                 GError    **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autofree guint8 *buffer = g_malloc (READ_CHUNK_BYTES);

  *too_big = FALSE;
  for (;;)
    {
      gssize n = read (fd, buffer, READ_CHUNK_BYTES);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("Could not read %s: %s"), path, g_strerror (errsv));
          return NULL;
        }
      if (n == 0)
        break;
      if (data->len + (gsize) n > max_bytes)
        {
          *too_big = TRUE;
          return NULL;
        }
      g_byte_array_append (data, buffer, n);
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}

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
  int dfd;

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
  dfd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (dfd >= 0)
    {
      if (fsync (dfd) != 0)
        g_debug ("Could not fsync %s: %s", dir, g_strerror (errno));
      close (dfd);
    }

  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* read                                                                    */
/* ---------------------------------------------------------------------- */

typedef struct
{
  char   *path;
  gint64  offset;
  gint64  limit;
} ReadJob;

static void
read_job_free (ReadJob *job)
{
  g_free (job->path);
  g_free (job);
}

typedef struct
{
  gint64    first;
  gint64    last;
  gint64    line;
  GString  *out;
  GString  *pending;
  gint64    shown_last;
  gboolean  capped;
  gboolean  line_cut;
  guint64   newlines;
  guint64   bytes;
  gboolean  ends_with_newline;
} LineScan;

/* Feeds one chunk of the file to the line selection. A selected line is
 * gathered in @pending and moves to @out whole, so that the cap cuts at a
 * line boundary; only a first line longer than the cap is cut inside. */
static void
line_scan_feed (LineScan     *scan,
                const char   *data,
                gsize         len)
{
  const char *p = data;
  const char *end = data + len;

  if (len == 0)
    return;

  scan->bytes += len;
  scan->ends_with_newline = end[-1] == '\n';

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *seg_end = nl != NULL ? nl + 1 : end;
      gsize seg_len = seg_end - p;

      if (!scan->capped && scan->line >= scan->first && scan->line <= scan->last)
        {
          if (scan->out->len + scan->pending->len + seg_len > ZOT_READ_MAX_BYTES)
            {
              if (scan->out->len == 0)
                {
                  g_string_append_len (scan->out, scan->pending->str, scan->pending->len);
                  g_string_append_len (scan->out, p, ZOT_READ_MAX_BYTES - scan->out->len);
                  scan->line_cut = TRUE;
                  scan->shown_last = scan->line;
                }
              g_string_truncate (scan->pending, 0);
              scan->capped = TRUE;
            }
          else
            {
              g_string_append_len (scan->pending, p, seg_len);
              if (nl != NULL)
                {
                  g_string_append_len (scan->out, scan->pending->str, scan->pending->len);
                  g_string_truncate (scan->pending, 0);
                  scan->shown_last = scan->line;
                }
            }
        }

      if (nl != NULL)
        {
          scan->newlines++;
          scan->line++;
        }
      p = seg_end;
    }
}

static void
line_scan_finish (LineScan *scan)
{
  if (!scan->capped && scan->pending->len > 0)
    {
      g_string_append_len (scan->out, scan->pending->str, scan->pending->len);
      g_string_truncate (scan->pending, 0);
      scan->shown_last = scan->line;
    }
}

static ZotToolResult *
read_image (int         fd,
            const char *path,
            const char *mime_type,
            goffset     size)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) content = NULL;
  JsonObject *block;
  gboolean too_big = FALSE;

  if (size > (goffset) ZOT_READ_IMAGE_MAX_BYTES)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      _("%s is an image (%s) of %lld bytes, "
                                        "larger than the %zu bytes the read tool returns."),
                                      path, mime_type, (long long) size, ZOT_READ_IMAGE_MAX_BYTES);

  bytes = read_fd_bounded (fd, path, ZOT_READ_IMAGE_MAX_BYTES, &too_big, &error);
  if (too_big)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      _("%s is an image (%s) larger than the %" G_GSIZE_FORMAT
                                        " bytes the read tool returns."),
                                      path, mime_type, ZOT_READ_IMAGE_MAX_BYTES);
  if (bytes == NULL)
    return zot_tool_result_new_text (error->message, TRUE, ZOT_TOOL_OUTCOME_FAILED);

  block = zot_image_block_new (bytes, path, &error);
  if (block == NULL)
    return zot_tool_result_new_text (error->message, TRUE, ZOT_TOOL_OUTCOME_FAILED);

  content = json_array_new ();
  json_array_add_object_element (content, block);

  return zot_tool_result_new (content, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
}

static ZotToolResult *
not_utf8_result (const char *path)
{
  return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                    _("%s is not valid UTF-8 text, so it looks like a binary file; "
                                      "the read tool only returns text and images. "
                                      "Use bash (file, xxd, iconv) to inspect it."),
                                    path);
}

static ZotToolResult *
read_text (int            fd,
           ReadJob       *job,
           GCancellable  *cancellable,
           GError       **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) pending = g_string_new (NULL);
  g_autofree guint8 *buffer = g_malloc (READ_CHUNK_BYTES + 4);
  gsize carry = 0;
  long long total;
  long long first;
  long long shown;
  LineScan scan = { 0 };

  scan.first = job->offset;
  scan.last = job->limit > 0 && job->limit <= G_MAXINT64 - job->offset
              ? job->offset + job->limit - 1 : G_MAXINT64;
  scan.line = 1;
  scan.out = out;
  scan.pending = pending;

  for (;;)
    {
      const char *valid_end;
      gssize n;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;

      n = read (fd, buffer + carry, READ_CHUNK_BYTES);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno_result (errno, job->path);
      if (n == 0)
        {
          /* A character cut off by the end of the file. */
          if (carry > 0)
            return not_utf8_result (job->path);
          break;
        }

      if (scan.bytes < READ_SNIFF_BYTES &&
          memchr (buffer + carry, '\0', MIN ((gsize) n, READ_SNIFF_BYTES - scan.bytes)) != NULL)
        return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                          _("%s looks like a binary file (it contains NUL bytes); "
                                            "the read tool only returns text and images."),
                                          job->path);

      line_scan_feed (&scan, (const char *) buffer + carry, n);

      /* Validate as we go; a character split across two chunks is carried
       * over to the next one. */
      if (g_utf8_validate_len ((const char *) buffer, carry + n, &valid_end))
        {
          carry = 0;
        }
      else
        {
          gsize rest = (const char *) buffer + carry + n - valid_end;

          if (rest >= 4 || g_utf8_get_char_validated (valid_end, rest) != (gunichar) -2)
            return not_utf8_result (job->path);
          memmove (buffer, valid_end, rest);
          carry = rest;
        }
    }

  line_scan_finish (&scan);
  total = scan.newlines + (scan.bytes > 0 && !scan.ends_with_newline ? 1 : 0);
  first = job->offset;
  shown = scan.shown_last;

  if (total == 0)
    {
      if (first > 1)
        return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                          _("offset %lld is past the end of %s, which is empty."),
                                          first, job->path);
      return result_printf (ZOT_TOOL_OUTCOME_COMPLETED, _("[%s is empty.]"), job->path);
    }

  if (first > total)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      ngettext ("offset %lld is past the end of %s, "
                                                "which has %lld line.",
                                                "offset %lld is past the end of %s, "
                                                "which has %lld lines.",
                                                total),
                                      first, job->path, total);

  if (scan.line_cut)
    {
      const char *end;

      /* Cut inside a line: step back to a character boundary. */
      g_utf8_validate_len (out->str, out->len, &end);
      g_string_truncate (out, end - out->str);
    }

  if (scan.capped || first > 1 || shown < total)
    {
      if (out->len > 0 && out->str[out->len - 1] != '\n')
        g_string_append_c (out, '\n');
      g_string_append_c (out, '\n');

      if (scan.line_cut)
        g_string_append_printf (out,
                                _("[Line %lld of %lld is longer than %zu bytes: only its beginning "
                                  "is shown. Use bash (for example cut or head -c) to see the rest "
                                  "of it, or offset=%lld to continue after it.]"),
                                shown, total, ZOT_READ_MAX_BYTES, shown + 1);
      else if (scan.capped)
        g_string_append_printf (out,
                                _("[Showing lines %lld-%lld of %lld: the output is capped at %zu "
                                  "bytes. Use offset=%lld (and limit) to read further.]"),
                                first, shown, total, ZOT_READ_MAX_BYTES, shown + 1);
      else if (shown < total)
        g_string_append_printf (out,
                                _("[Showing lines %lld-%lld of %lld. "
                                  "Use offset=%lld to read more.]"),
                                first, shown, total, shown + 1);
      else
        g_string_append_printf (out, _("[Showing lines %lld-%lld of %lld.]"),
                                first, shown, total);
    }

  return zot_tool_result_new_text (out->str, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ReadJob *job = task_data;
  ZotToolResult *result = NULL;
  GError *error = NULL;
  guint8 head[16];
  struct stat st;
  const char *mime_type = NULL;
  gssize n;
  int fd;

  fd = open_regular_file (job->path, &st, &result);
  if (fd < 0)
    {
      return_result (task, result);
      return;
    }

  do
    n = pread (fd, head, sizeof head, 0);
  while (n < 0 && errno == EINTR);

  if (n < 0)
    result = errno_result (errno, job->path);
  else if ((mime_type = zot_image_sniff_mime_type (head, n)) != NULL)
    result = read_image (fd, job->path, mime_type, st.st_size);
  else
    result = read_text (fd, job, cancellable, &error);

  close (fd);

  if (result != NULL)
    return_result (task, result);
  else
    g_task_return_error (task, error);
}

static void
zot_read_tool_execute_async (ZotTool               *tool,
                             JsonObject            *args,
                             const ZotToolContext  *context,
                             GCancellable          *cancellable,
                             GAsyncReadyCallback    callback,
                             gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  const char *path = zot_tool_args_get_string (args, "path");
  gint64 offset = 1;
  gint64 limit = 0;
  ReadJob *job;

  if (path == NULL || *path == '\0')
    {
      return_result_now (tool, zot_read_tool_execute_async, cancellable, callback, user_data,
                         missing_string_arg ("path"));
      return;
    }

  if (args_get_int (args, "offset", &offset) == ARG_INVALID || offset < 1)
    {
      return_result_now (tool, zot_read_tool_execute_async, cancellable, callback, user_data,
                         zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                    _("offset must be a line number, 1 or more.")));
      return;
    }

  if (args_get_int (args, "limit", &limit) == ARG_INVALID || limit < 0)
    {
      return_result_now (tool, zot_read_tool_execute_async, cancellable, callback, user_data,
                         zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                    _("limit must be a number of lines, "
                                                      "1 or more.")));
      return;
    }

  job = g_new0 (ReadJob, 1);
  job->path = zot_tool_resolve_path (context, path);
  job->offset = offset;
  job->limit = limit;

  task = g_task_new (tool, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_read_tool_execute_async);
  g_task_set_task_data (task, job, (GDestroyNotify) read_job_free);
  g_task_run_in_thread (task, read_thread);
}

static void
zot_read_tool_class_init (ZotReadToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_read_tool_execute_async;
  tool_class->execute_finish = builtin_execute_finish;
}

static void
zot_read_tool_init (ZotReadTool *self)
{
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
      return_result (task,
                     zot_tool_result_new_text (error->message, TRUE, ZOT_TOOL_OUTCOME_FAILED));
      return;
    }

  return_result (task,
                 result_printf (ZOT_TOOL_OUTCOME_COMPLETED,
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
  g_autoptr(GTask) task = NULL;
  const char *path = zot_tool_args_get_string (args, "path");
  const char *content = zot_tool_args_get_string (args, "content");
  WriteJob *job;

  if (path == NULL || *path == '\0' || content == NULL)
    {
      return_result_now (tool, zot_write_tool_execute_async, cancellable, callback, user_data,
                         missing_string_arg (path == NULL || *path == '\0' ? "path" : "content"));
      return;
    }

  job = g_new0 (WriteJob, 1);
  job->path = zot_tool_resolve_path (context, path);
  job->content = g_strdup (content);
  job->len = strlen (content);

  task = g_task_new (tool, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_write_tool_execute_async);
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) write_job_free);
  g_task_run_in_thread (task, write_thread);
}

static void
zot_write_tool_class_init (ZotWriteToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_write_tool_execute_async;
  tool_class->execute_finish = builtin_execute_finish;
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

  fd = open_regular_file (job->path, &st, &result);
  if (fd < 0)
    return result;
  bytes = read_fd_bounded (fd, job->path, EDIT_MAX_BYTES, &too_big, &error);
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

  return result_printf (ZOT_TOOL_OUTCOME_COMPLETED,
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

  return_result (task, edit_run (task_data));
}

static void
zot_edit_tool_execute_async (ZotTool               *tool,
                             JsonObject            *args,
                             const ZotToolContext  *context,
                             GCancellable          *cancellable,
                             GAsyncReadyCallback    callback,
                             gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  const char *path = zot_tool_args_get_string (args, "path");
  const char *old_text = zot_tool_args_get_string (args, "old_text");
  const char *new_text = zot_tool_args_get_string (args, "new_text");
  gboolean replace_all = FALSE;
  ZotToolResult *refusal = NULL;
  EditJob *job;

  if (path == NULL || *path == '\0')
    refusal = missing_string_arg ("path");
  else if (old_text == NULL)
    refusal = missing_string_arg ("old_text");
  else if (new_text == NULL)
    refusal = missing_string_arg ("new_text");
  else if (*old_text == '\0')
    refusal = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                         _("old_text must not be empty; "
                                           "use write to create a file."));
  else if (g_str_equal (old_text, new_text))
    refusal = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                         _("old_text and new_text are the same; "
                                           "there is nothing to change."));
  else if (args_get_bool (args, "replace_all", &replace_all) == ARG_INVALID)
    refusal = zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                         _("replace_all must be true or false."));

  if (refusal != NULL)
    {
      return_result_now (tool, zot_edit_tool_execute_async, cancellable, callback, user_data,
                         refusal);
      return;
    }

  job = g_new0 (EditJob, 1);
  job->path = zot_tool_resolve_path (context, path);
  job->old_text = g_strdup (old_text);
  job->new_text = g_strdup (new_text);
  job->replace_all = replace_all;

  task = g_task_new (tool, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_edit_tool_execute_async);
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) edit_job_free);
  g_task_run_in_thread (task, edit_thread);
}

static void
zot_edit_tool_class_init (ZotEditToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_edit_tool_execute_async;
  tool_class->execute_finish = builtin_execute_finish;
}

static void
zot_edit_tool_init (ZotEditTool *self)
{
}

/* ---------------------------------------------------------------------- */
/* bash                                                                    */
/* ---------------------------------------------------------------------- */

typedef struct
{
  GSubprocess          *subprocess;
  GPollableInputStream *output;
  GSource              *read_source;
  GSource              *timeout_source;
  GSource              *grace_source;
  GSource              *cancel_source;
  GCancellable         *wait_cancellable;
  guint8               *buffer;
  GByteArray           *head;
  GByteArray           *tail;
  guint64               total;
  pid_t                 pgid;
  guint                 timeout_ms;
  gboolean              eof;
  gboolean              exited;
  gboolean              timed_out;
  gboolean              done;
} BashRun;

#define BASH_HEAD_BYTES (ZOT_BASH_OUTPUT_MAX_BYTES / 2)
#define BASH_TAIL_BYTES (ZOT_BASH_OUTPUT_MAX_BYTES - BASH_HEAD_BYTES)

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
bash_run_free (BashRun *run)
{
  clear_source (&run->read_source);
  clear_source (&run->timeout_source);
  clear_source (&run->grace_source);
  clear_source (&run->cancel_source);
  g_clear_object (&run->wait_cancellable);
  g_clear_object (&run->output);
  g_clear_object (&run->subprocess);
  g_clear_pointer (&run->buffer, g_free);
  g_clear_pointer (&run->head, g_byte_array_unref);
  g_clear_pointer (&run->tail, g_byte_array_unref);
  g_free (run);
}

/* Runs in the child between fork and exec: only async-signal-safe calls. */
static void
bash_child_setup (gpointer user_data)
{
  /* Its own process group, so that a timeout or a cancel can kill
   * everything the command started, not only the shell. */
  setpgid (0, 0);
  /* GIO ignores SIGPIPE in this process; `yes | head` needs it back. */
  signal (SIGPIPE, SIG_DFL);
}

static void
bash_kill_group (BashRun *run)
{
  if (run->pgid > 1 && kill (-run->pgid, SIGKILL) != 0 && errno != ESRCH)
    g_debug ("Could not kill process group %d: %s", (int) run->pgid, g_strerror (errno));
}

/* Keeps the first and the last halves of the cap; the middle is counted. */
static void
bash_run_append (BashRun      *run,
                 const guint8 *data,
                 gsize         len)
{
  run->total += len;

  if (run->head->len < BASH_HEAD_BYTES)
    {
      gsize n = MIN (len, BASH_HEAD_BYTES - run->head->len);

      g_byte_array_append (run->head, data, n);
      data += n;
      len -= n;
    }

  if (len == 0)
    return;

  g_byte_array_append (run->tail, data, len);
  /* Trim in batches, not on every read. */
  if (run->tail->len > 2 * BASH_TAIL_BYTES)
    g_byte_array_remove_range (run->tail, 0, run->tail->len - BASH_TAIL_BYTES);
}

/* Reads what is there without waiting. Returns FALSE at the end of the
 * output (or on an error, which ends it too). */
static gboolean
bash_run_read_available (BashRun *run,
                         guint    max_reads)
{
  for (guint i = 0; i < max_reads; i++)
    {
      g_autoptr(GError) error = NULL;
      gssize n;

      n = g_pollable_input_stream_read_nonblocking (run->output, run->buffer, BASH_READ_BYTES,
                                                    NULL, &error);
      if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        return TRUE;
      if (n <= 0)
        {
          if (n < 0)
            g_debug ("Reading the command's output failed: %s", error->message);
          run->eof = TRUE;
          return FALSE;
        }
      bash_run_append (run, run->buffer, n);
    }

  return TRUE;
}

/* Where a UTF-8 text cut at @len ends on a character boundary. */
static gsize
utf8_complete_prefix (const guint8 *data,
                      gsize         len)
{
  for (gsize i = 1; i <= 4 && i <= len; i++)
    {
      guint8 c = data[len - i];
      gsize need;

      if ((c & 0xC0) == 0x80)
        continue;
      if (c < 0x80)
        need = 1;
      else if ((c & 0xE0) == 0xC0)
        need = 2;
      else if ((c & 0xF0) == 0xE0)
        need = 3;
      else if ((c & 0xF8) == 0xF0)
        need = 4;
      else
        need = 1;
      return need > i ? len - i : len;
    }

  return len;
}

static char *
make_valid (const guint8 *data,
            gsize         len)
{
  return len > 0 ? g_utf8_make_valid ((const char *) data, len) : g_strdup ("");
}

static char *
bash_run_take_output (BashRun *run)
{
  GString *out = g_string_new (NULL);
  guint64 cut;

  if (run->tail->len > BASH_TAIL_BYTES)
    g_byte_array_remove_range (run->tail, 0, run->tail->len - BASH_TAIL_BYTES);
  cut = run->total - run->head->len - run->tail->len;

  if (cut == 0)
    {
      g_autofree char *text = NULL;

      g_byte_array_append (run->head, run->tail->data, run->tail->len);
      text = make_valid (run->head->data, run->head->len);
      g_string_append (out, text);
    }
  else
    {
      g_autofree char *head = NULL;
      g_autofree char *tail = NULL;
      gsize head_len = utf8_complete_prefix (run->head->data, run->head->len);
      gsize skip = 0;

      while (skip < 3 && skip < run->tail->len && (run->tail->data[skip] & 0xC0) == 0x80)
        skip++;
      cut += (run->head->len - head_len) + skip;

      head = make_valid (run->head->data, head_len);
      tail = make_valid (run->tail->data + skip, run->tail->len - skip);
      g_string_append (out, head);
      g_string_append_printf (out, _("\n[… %llu bytes cut …]\n"), (unsigned long long) cut);
      g_string_append (out, tail);
    }

  return g_string_free (out, FALSE);
}

static void
bash_finish (GTask *task)
{
  BashRun *run = g_task_get_task_data (task);
  g_autofree char *output = NULL;
  g_autoptr(GString) text = NULL;
  int code;

  if (run->done)
    return;
  run->done = TRUE;

  clear_source (&run->read_source);
  clear_source (&run->timeout_source);
  clear_source (&run->grace_source);
  clear_source (&run->cancel_source);
  /* Lets the pending wait complete, and drop its reference, at once. */
  g_cancellable_cancel (run->wait_cancellable);

  /* Cancelled, whichever event came first: nothing of the group stays. */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    bash_kill_group (run);
  if (g_task_return_error_if_cancelled (task))
    return;

  output = bash_run_take_output (run);
  text = g_string_new (output);
  if (text->len > 0 && text->str[text->len - 1] != '\n')
    g_string_append_c (text, '\n');

  if (run->timed_out)
    {
      g_string_append_printf (text,
                              _("[Timed out after %u ms: the command and every process it started "
                                "were killed.]"),
                              run->timeout_ms);
      return_result (task, zot_tool_result_new_text (text->str, TRUE, ZOT_TOOL_OUTCOME_TIMED_OUT));
      return;
    }

  if (text->len == 0)
    g_string_append (text, _("(no output)\n"));

  if (!run->exited)
    {
      /* The shell outlived SIGKILL's grace: it is stuck in the kernel. */
      g_string_append (text, _("[The command did not exit.]\n"));
      code = -1;
    }
  else if (g_subprocess_get_if_exited (run->subprocess))
    {
      code = g_subprocess_get_exit_status (run->subprocess);
    }
  else if (g_subprocess_get_if_signaled (run->subprocess))
    {
      int sig = g_subprocess_get_term_sig (run->subprocess);

      g_string_append_printf (text, _("[Terminated by signal %d (%s).]\n"), sig, g_strsignal (sig));
      code = 128 + sig;
    }
  else
    {
      code = -1;
    }

  g_string_append_printf (text, _("exit code: %d"), code);
  return_result (task, zot_tool_result_new_text (text->str, code != 0,
                                                 code != 0 ? ZOT_TOOL_OUTCOME_FAILED
                                                           : ZOT_TOOL_OUTCOME_COMPLETED));
}

static gboolean
bash_on_readable (GObject  *stream,
                  gpointer  user_data)
{
  GTask *task = user_data;
  BashRun *run = g_task_get_task_data (task);

  if (bash_run_read_available (run, 16))
    return G_SOURCE_CONTINUE;

  /* The end of the output; completion waits for the exit. */
  g_clear_pointer (&run->read_source, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void
bash_on_exited (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  BashRun *run = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, &error);
  if (run->done)
    return;

  run->exited = TRUE;

  /* Everything the shell wrote is in the pipe by now: take it. Do not wait
   * for the end of the output, though: a process the command left running
   * in the background may hold the pipe open for as long as it lives. */
  if (!run->eof)
    bash_run_read_available (run, (guint) (ZOT_BASH_OUTPUT_MAX_BYTES / BASH_READ_BYTES) * 8);

  bash_finish (task);
}

static gboolean
bash_on_grace_expired (gpointer user_data)
{
  GTask *task = user_data;
  BashRun *run = g_task_get_task_data (task);

  g_clear_pointer (&run->grace_source, g_source_unref);
  bash_finish (task);
  return G_SOURCE_REMOVE;
}

static gboolean
bash_on_timeout (gpointer user_data)
{
  GTask *task = user_data;
  BashRun *run = g_task_get_task_data (task);

  g_clear_pointer (&run->timeout_source, g_source_unref);
  run->timed_out = TRUE;
  bash_kill_group (run);

  /* The exit completes the call; this only bounds the wait for it. */
  run->grace_source = g_timeout_source_new (BASH_KILL_GRACE_MS);
  g_source_set_callback (run->grace_source, bash_on_grace_expired,
                         g_object_ref (task), g_object_unref);
  g_source_attach (run->grace_source, g_task_get_context (task));

  return G_SOURCE_REMOVE;
}

static gboolean
bash_on_cancelled (GCancellable *cancellable,
                   gpointer      user_data)
{
  GTask *task = user_data;
  BashRun *run = g_task_get_task_data (task);

  g_clear_pointer (&run->cancel_source, g_source_unref);
  bash_kill_group (run);
  bash_finish (task);
  return G_SOURCE_REMOVE;
}

static void
zot_bash_tool_execute_async (ZotTool               *tool,
                             JsonObject            *args,
                             const ZotToolContext  *context,
                             GCancellable          *cancellable,
                             GAsyncReadyCallback    callback,
                             gpointer               user_data)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;
  g_autofree char *shell = NULL;
  const char *command = zot_tool_args_get_string (args, "command");
  const char *identifier;
  GInputStream *output;
  gint64 timeout_ms = 0;
  ArgStatus status;
  BashRun *run;

  if (command == NULL || *command == '\0')
    {
      return_result_now (tool, zot_bash_tool_execute_async, cancellable, callback, user_data,
                         missing_string_arg ("command"));
      return;
    }

  status = args_get_int (args, "timeout_ms", &timeout_ms);
  if (status == ARG_MISSING)
    timeout_ms = zot_timeout_get_ms (ZOT_TIMEOUT_BASH);
  if (status == ARG_INVALID || timeout_ms < 1 || timeout_ms > G_MAXUINT)
    {
      return_result_now (tool, zot_bash_tool_execute_async, cancellable, callback, user_data,
                         zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                    _("timeout_ms must be a number of "
                                                      "milliseconds, 1 or more.")));
      return;
    }

  task = g_task_new (tool, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_bash_tool_execute_async);
  if (g_task_return_error_if_cancelled (task))
    return;

  run = g_new0 (BashRun, 1);
  run->timeout_ms = (guint) timeout_ms;
  run->head = g_byte_array_new ();
  run->tail = g_byte_array_new ();
  run->buffer = g_malloc (BASH_READ_BYTES);
  run->wait_cancellable = g_cancellable_new ();
  g_task_set_task_data (task, run, (GDestroyNotify) bash_run_free);

  shell = g_find_program_in_path ("bash");
  if (shell == NULL)
    shell = g_strdup ("/bin/sh");

  /* No stdin flag: the command reads /dev/null. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_MERGE);
  if (context->cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, context->cwd);
  g_subprocess_launcher_set_child_setup (launcher, bash_child_setup, NULL, NULL);
  zot_provider_scrub_environment (launcher, NULL);

  run->subprocess = g_subprocess_launcher_spawn (launcher, &error, shell, "-c", command, NULL);
  if (run->subprocess == NULL)
    {
      return_result (task, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                      _("Could not run the command: %s"),
                                                      error->message));
      return;
    }

  /* The child is its own group leader (child setup ran before the spawn
   * returned), so its pid names the group. */
  identifier = g_subprocess_get_identifier (run->subprocess);
  run->pgid = identifier != NULL ? (pid_t) g_ascii_strtoll (identifier, NULL, 10) : 0;

  output = g_subprocess_get_stdout_pipe (run->subprocess);
  run->output = g_object_ref (G_POLLABLE_INPUT_STREAM (output));
  g_assert (g_pollable_input_stream_can_poll (run->output));

  run->read_source = g_pollable_input_stream_create_source (run->output, NULL);
  g_source_set_callback (run->read_source, G_SOURCE_FUNC (bash_on_readable),
                         g_object_ref (task), g_object_unref);
  g_source_attach (run->read_source, g_task_get_context (task));

  run->timeout_source = g_timeout_source_new (run->timeout_ms);
  g_source_set_callback (run->timeout_source, bash_on_timeout, g_object_ref (task), g_object_unref);
  g_source_attach (run->timeout_source, g_task_get_context (task));

  if (cancellable != NULL)
    {
      run->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (run->cancel_source, G_SOURCE_FUNC (bash_on_cancelled),
                             g_object_ref (task), g_object_unref);
      g_source_attach (run->cancel_source, g_task_get_context (task));
    }

  g_subprocess_wait_async (run->subprocess, run->wait_cancellable,
                           bash_on_exited, g_object_ref (task));
}

static void
zot_bash_tool_class_init (ZotBashToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_bash_tool_execute_async;
  tool_class->execute_finish = builtin_execute_finish;
}

static void
zot_bash_tool_init (ZotBashTool *self)
{
}

/* ---------------------------------------------------------------------- */
/* skill                                                                   */
/* ---------------------------------------------------------------------- */

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
  return_result (task, skill_run (task_data));
}

static void
zot_skill_tool_execute_async (ZotTool               *tool,
                              JsonObject            *args,
                              const ZotToolContext  *context,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  const char *name = zot_tool_args_get_string (args, "name");
  SkillJob *job;

  if (name == NULL || *name == '\0')
    {
      return_result_now (tool, zot_skill_tool_execute_async, cancellable, callback, user_data,
                         missing_string_arg ("name"));
      return;
    }

  job = g_new0 (SkillJob, 1);
  job->cwd = g_strdup (context->cwd);
  job->name = g_strstrip (g_strdup (name));

  task = g_task_new (tool, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_skill_tool_execute_async);
  g_task_set_task_data (task, job, (GDestroyNotify) skill_job_free);
  g_task_run_in_thread (task, skill_thread);
}

static void
zot_skill_tool_class_init (ZotSkillToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_skill_tool_execute_async;
  tool_class->execute_finish = builtin_execute_finish;
}

static void
zot_skill_tool_init (ZotSkillTool *self)
{
}

/* ---------------------------------------------------------------------- */
/* API                                                                     */
/* ---------------------------------------------------------------------- */

/* Descriptions and schemas are written for the model and stay in English
 * whatever the user's locale, like the rest of the prompt. */

static const char read_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":"
      "\"The file to read: absolute, or relative to the working directory\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
      "\"The first line to read, counting from 1 (default 1)\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
      "\"How many lines to read (default: to the end of the file)\"}"
  "},\"required\":[\"path\"]}";

static const char write_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":"
      "\"The file to write: absolute, or relative to the working directory\"},"
    "\"content\":{\"type\":\"string\",\"description\":"
      "\"The complete new content of the file\"}"
  "},\"required\":[\"path\",\"content\"]}";

static const char edit_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":"
      "\"The file to edit: absolute, or relative to the working directory\"},"
    "\"old_text\":{\"type\":\"string\",\"description\":"
      "\"The exact text to replace, whitespace and indentation included\"},"
    "\"new_text\":{\"type\":\"string\",\"description\":"
      "\"The text to put in its place\"},"
    "\"replace_all\":{\"type\":\"boolean\",\"description\":"
      "\"Replace every match instead of requiring exactly one (default false)\"}"
  "},\"required\":[\"path\",\"old_text\",\"new_text\"]}";

static const char bash_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\",\"description\":"
      "\"The shell command to run with bash -c\"},"
    "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
      "\"How long the command may run, in milliseconds\"}"
  "},\"required\":[\"command\"]}";

static const char skill_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"description\":"
      "\"The name of the skill, as listed in the system prompt\"}"
  "},\"required\":[\"name\"]}";

static ZotTool *
new_tool (GType       type,
          const char *name,
          const char *description,
          const char *schema_json,
          gboolean    concurrent)
{
  g_autoptr(JsonObject) schema = zot_json_object_from_string (schema_json, NULL);
  /* What changes files or runs commands asks first, where a host asks. */
  gboolean requires_approval = type != ZOT_TYPE_READ_TOOL && type != ZOT_TYPE_SKILL_TOOL;

  g_assert (schema != NULL);

  return g_object_new (type,
                       "name", name,
                       "description", description,
                       "schema", schema,
                       "exposure", ZOT_TOOL_EXPOSURE_DIRECT,
                       "concurrent", concurrent,
                       "requires-approval", requires_approval,
                       NULL);
}

/**
 * zot_builtin_tools_new:
 *
 * Returns: (transfer full) (element-type ZotTool): new instances of read,
 *   write, edit, bash and skill, in that order
 */
GPtrArray *
zot_builtin_tools_new (void)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *read_description = NULL;
  g_autofree char *bash_description = NULL;

  read_description = g_strdup_printf (
    "Read a file from the local filesystem. Relative paths resolve against the working "
    "directory. Returns the file's text as it is (no line numbers). For a large file, read "
    "part of it with offset (the first line, counting from 1) and limit (how many lines). "
    "At most %zu KiB of text comes back at a time, cut at a line boundary; "
    "a note at the end then says which lines were shown, how many the file has, and the "
    "offset to continue from. PNG, JPEG, GIF and WebP images (up to %zu MiB) "
    "are returned as images you can see. Other binary files are refused.",
    ZOT_READ_MAX_BYTES / 1024, ZOT_READ_IMAGE_MAX_BYTES / (1024 * 1024));

  bash_description = g_strdup_printf (
    "Run a shell command with bash -c in the working directory and return its output "
    "(stdout and stderr together) followed by \"exit code: N\". A non-zero exit code is "
    "reported as an error. stdin is /dev/null, so commands must not wait for input: pass "
    "flags such as --yes, --no-pager or --no-edit. Each call starts a fresh shell: cd and "
    "variables do not carry over, so chain commands with && instead. The command may run "
    "for %u seconds unless timeout_ms says otherwise; past its time the command and every "
    "process it started are killed. Output above %zu KiB keeps its "
    "beginning and its end. The call returns when the shell exits; background processes "
    "(cmd &) must redirect their output to a file. Prefer the read, write and edit tools "
    "for files.",
    zot_timeout_get_ms (ZOT_TIMEOUT_BASH) / 1000, ZOT_BASH_OUTPUT_MAX_BYTES / 1024);

  g_ptr_array_add (tools, new_tool (ZOT_TYPE_READ_TOOL, "read",
                                    read_description, read_schema, TRUE));

  g_ptr_array_add (tools, new_tool (ZOT_TYPE_WRITE_TOOL, "write",
    "Write a file, replacing it if it exists; missing parent directories are created. "
    "The file is replaced atomically (a temporary file renamed over it), and an existing "
    "file keeps its permissions. Give the complete content. To change part of an existing "
    "file, prefer edit; read a file before overwriting it.",
    write_schema, FALSE));

  g_ptr_array_add (tools, new_tool (ZOT_TYPE_EDIT_TOOL, "edit",
    "Replace text in a file. old_text must match the file exactly, byte for byte, with its "
    "whitespace and indentation, and must occur exactly once: include enough surrounding "
    "lines to make it unique, or set replace_all to replace every occurrence. Read the file "
    "first and copy the text from it. The file is rewritten atomically. Make several edits "
    "with several calls.",
    edit_schema, FALSE));

  g_ptr_array_add (tools, new_tool (ZOT_TYPE_BASH_TOOL, "bash",
                                    bash_description, bash_schema, TRUE));

  g_ptr_array_add (tools, new_tool (ZOT_TYPE_SKILL_TOOL, "skill",
    "Load a skill by name: a SKILL.md file of instructions for a kind of task, with the "
    "directory its relative paths start from. The available skills are listed in the "
    "system prompt. When a task matches a skill's description, load the skill before "
    "starting and follow it.",
    skill_schema, TRUE));

  return tools;
}
