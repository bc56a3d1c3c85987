/* zot-tool-read.c — the read tool: a file's lines, or an image.
 *
 * Text comes back a window of lines at a time (offset, limit), capped at
 * ZOT_READ_MAX_BYTES and cut at a line boundary, with a note that says how
 * to go on; PNG, JPEG, GIF and WebP come back as image blocks. Binary files
 * and text that is not UTF-8 are refused. Runs on a GTask worker thread.
 */
#define G_LOG_DOMAIN "zot-tools"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "zot-builtin-tools.h"
#include "zot-builtin-tools-private.h"
#include "zot-limits.h"
#include "zot-message.h"

/* Binary sniffing looks for NUL bytes in this much of a file's head. */
#define READ_SNIFF_BYTES  ((gsize) 8 * 1024)

struct _ZotReadTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotReadTool, zot_read_tool, ZOT_TYPE_TOOL)

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
                                      /* Translators: the model reads this: the file's path, its
                                       * MIME type, its size, then the largest size the read tool
                                       * returns; keep "read" as the tool's name */
                                      _("%s is an image (%s) of %lld bytes, "
                                        "larger than the %zu bytes the read tool returns."),
                                      path, mime_type, (long long) size, ZOT_READ_IMAGE_MAX_BYTES);

  bytes = _zot_builtin_read_fd_bounded (fd, path, ZOT_READ_IMAGE_MAX_BYTES, &too_big, &error);
  if (too_big)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                      _("%s is an image (%s) larger than the %zu bytes the read tool "
                                        "returns."),
                                      path, mime_type, (size_t) ZOT_READ_IMAGE_MAX_BYTES);
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
  g_autofree guint8 *buffer = g_malloc (ZOT_BUILTIN_CHUNK_BYTES + 4);
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

      n = read (fd, buffer + carry, ZOT_BUILTIN_CHUNK_BYTES);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return _zot_builtin_errno_result (errno, job->path);
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
      return _zot_builtin_result_printf (ZOT_TOOL_OUTCOME_COMPLETED, _("[%s is empty.]"), job->path);
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
                                /* Translators: the model reads this: line number, number of
                                 * lines, a size in bytes, then the offset to read on from; keep
                                 * "offset=" as it is */
                                _("[Line %lld of %lld is longer than %zu bytes: only its beginning "
                                  "is shown. Use bash (for example cut or head -c) to see the rest "
                                  "of it, or offset=%lld to continue after it.]"),
                                shown, total, ZOT_READ_MAX_BYTES, shown + 1);
      else if (scan.capped)
        g_string_append_printf (out,
                                /* Translators: the model reads this: first line shown, last line
                                 * shown, number of lines, a size in bytes, then the offset to
                                 * read on from; keep "offset=" as it is */
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

  fd = _zot_builtin_open_regular_file (job->path, &st, &result);
  if (fd < 0)
    {
      _zot_builtin_return_result (task, result);
      return;
    }

  do
    n = pread (fd, head, sizeof head, 0);
  while (n < 0 && errno == EINTR);

  if (n < 0)
    result = _zot_builtin_errno_result (errno, job->path);
  else if ((mime_type = zot_image_sniff_mime_type (head, n)) != NULL)
    result = read_image (fd, job->path, mime_type, st.st_size);
  else
    result = read_text (fd, job, cancellable, &error);

  close (fd);

  if (result != NULL)
    _zot_builtin_return_result (task, result);
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
  const char *path = zot_tool_args_get_string (args, "path");
  gint64 offset = 1;
  gint64 limit = 0;
  ReadJob *job;

  if (path == NULL || *path == '\0')
    {
      _zot_builtin_return_result_now (tool, zot_read_tool_execute_async, cancellable, callback, user_data,
                                      _zot_builtin_missing_string_arg ("path"));
      return;
    }

  if (_zot_builtin_args_get_int (args, "offset", &offset) == ZOT_ARG_INVALID || offset < 1)
    {
      _zot_builtin_return_result_now (tool, zot_read_tool_execute_async, cancellable, callback, user_data,
                                      zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                                 _("offset must be a line number, 1 or more.")));
      return;
    }

  if (_zot_builtin_args_get_int (args, "limit", &limit) == ZOT_ARG_INVALID || limit < 0)
    {
      _zot_builtin_return_result_now (tool, zot_read_tool_execute_async, cancellable, callback, user_data,
                                      zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                                                 _("limit must be a number of lines, "
                                                                   "1 or more.")));
      return;
    }

  job = g_new0 (ReadJob, 1);
  job->path = zot_tool_resolve_path (context, path);
  job->offset = offset;
  job->limit = limit;

  _zot_builtin_run_job (tool, zot_read_tool_execute_async, FALSE,
                        job, (GDestroyNotify) read_job_free, read_thread,
                        cancellable, callback, user_data);
}

static void
zot_read_tool_class_init (ZotReadToolClass *klass)
{
  ZotToolClass *tool_class = ZOT_TOOL_CLASS (klass);

  tool_class->execute_async = zot_read_tool_execute_async;
  tool_class->execute_finish = _zot_builtin_execute_finish;
}

static void
zot_read_tool_init (ZotReadTool *self)
{
}
