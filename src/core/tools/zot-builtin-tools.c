/* zot-builtin-tools.c — the built-in tools as the model sees them, and
 * what their implementations share.
 *
 * Each tool lives in its own file (zot-tool-read.c, zot-tool-edit.c for
 * write and edit, zot-tool-bash.c, zot-tool-skill.c, zot-tool-glob.c). Here are their names,
 * descriptions and schemas, zot_builtin_tools_new(), and the helpers of
 * zot-builtin-tools-private.h: reading arguments, making results, and
 * opening and reading files safely.
 */
#define G_LOG_DOMAIN "zot-tools"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-builtin-tools.h"
#include "zot-builtin-tools-private.h"
#include "zot-limits.h"
#include "zot-message.h"

/* Models send integers as JSON numbers, sometimes as 10.0 or "10". */
ZotArgStatus
_zot_builtin_args_get_int (JsonObject *args,
                           const char *member,
                           gint64     *value)
{
  JsonNode *node = json_object_get_member (args, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return ZOT_ARG_MISSING;
  if (!JSON_NODE_HOLDS_VALUE (node))
    return ZOT_ARG_INVALID;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      *value = json_node_get_int (node);
      return ZOT_ARG_OK;

    case G_TYPE_DOUBLE:
      {
        double d = json_node_get_double (node);

        if (!(d > -9.0e15 && d < 9.0e15) || d != (double) (gint64) d)
          return ZOT_ARG_INVALID;
        *value = (gint64) d;
        return ZOT_ARG_OK;
      }

    case G_TYPE_STRING:
      {
        g_autofree char *text = g_strstrip (g_strdup (json_node_get_string (node)));

        return g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, value, NULL)
               ? ZOT_ARG_OK : ZOT_ARG_INVALID;
      }

    default:
      return ZOT_ARG_INVALID;
    }
}

ZotArgStatus
_zot_builtin_args_get_bool (JsonObject *args,
                            const char *member,
                            gboolean   *value)
{
  JsonNode *node = json_object_get_member (args, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return ZOT_ARG_MISSING;
  if (!JSON_NODE_HOLDS_VALUE (node))
    return ZOT_ARG_INVALID;

  if (json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    {
      *value = json_node_get_boolean (node);
      return ZOT_ARG_OK;
    }
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (node);

      if (g_ascii_strcasecmp (text, "true") == 0 || g_ascii_strcasecmp (text, "false") == 0)
        {
          *value = g_ascii_strcasecmp (text, "true") == 0;
          return ZOT_ARG_OK;
        }
    }

  return ZOT_ARG_INVALID;
}

/* A formatted result; anything but a completion is an error for the model. */
G_GNUC_PRINTF (2, 3)
ZotToolResult *
_zot_builtin_result_printf (ZotToolOutcome  outcome,
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

ZotToolResult *
_zot_builtin_missing_string_arg (const char *member)
{
  return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
                                    _("The argument \"%s\" is required and must be a string."),
                                    member);
}

void
_zot_builtin_return_result (GTask         *task,
                            ZotToolResult *result)
{
  g_task_return_pointer (task, result, (GDestroyNotify) zot_tool_result_free);
}

/* Completes a call at once, for arguments refused before any work. */
void
_zot_builtin_return_result_now (ZotTool             *self,
                                gpointer             source_tag,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data,
                                ZotToolResult       *result)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  _zot_builtin_return_result (task, result);
}

/* Runs @job in a worker thread, @job_free freeing it after the task. With
 * @finish_once_started, a cancel that comes after the thread started does
 * not replace its result: a write that happened is reported as done. */
void
_zot_builtin_run_job (ZotTool             *self,
                      gpointer             source_tag,
                      gboolean             finish_once_started,
                      gpointer             job,
                      GDestroyNotify       job_free,
                      GTaskThreadFunc      thread_func,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  if (finish_once_started)
    g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, job_free);
  g_task_run_in_thread (task, thread_func);
}

ZotToolResult *
_zot_builtin_execute_finish (ZotTool       *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

ZotToolResult *
_zot_builtin_errno_result (int         errsv,
                           const char *path)
{
  if (errsv == ENOENT)
    return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED, _("File not found: %s"), path);

  return zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED, _("Could not read %s: %s"),
                                    path, g_strerror (errsv));
}

/* Opens @path for reading, refusing what is not a regular file (a FIFO
 * would block the worker forever). Returns -1 with *@result set. */
int
_zot_builtin_open_regular_file (const char     *path,
                                struct stat    *st,
                                ZotToolResult **result)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);

  if (fd < 0)
    {
      *result = _zot_builtin_errno_result (errno, path);
      return -1;
    }

  if (fstat (fd, st) != 0)
    {
      *result = _zot_builtin_errno_result (errno, path);
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
GBytes *
_zot_builtin_read_fd_bounded (int         fd,
                              const char *path,
                              gsize       max_bytes,
                              gboolean   *too_big,
                              GError    **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autofree guint8 *buffer = g_malloc (ZOT_BUILTIN_CHUNK_BYTES);

  *too_big = FALSE;
  for (;;)
    {
      gssize n = read (fd, buffer, ZOT_BUILTIN_CHUNK_BYTES);

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

/* What a codemode script's bash call resolves to (PROTOCOL.md §4a), as
 * upstream's shell tool gives it. */
static const char bash_output_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"output\":{\"type\":\"string\",\"description\":"
      "\"stdout and stderr together; past the limit their beginning and end\"},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"Whether the middle of the output was cut\"},"
    "\"exit_code\":{\"type\":\"integer\",\"description\":"
      "\"The shell's exit status; 128 + N when signal N ended it, -1 when it did not exit\"},"
    "\"wall_time_seconds\":{\"type\":\"number\"}"
  "},\"required\":[\"output\",\"truncated\",\"exit_code\",\"wall_time_seconds\"]}";

static const char skill_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"description\":"
      "\"The name of the skill, as listed in the system prompt\"}"
  "},\"required\":[\"name\"]}";

static const char glob_schema[] =
  "{\"type\":\"object\",\"properties\":{"
    "\"pattern\":{\"type\":\"string\",\"description\":"
      "\"The pattern to match, such as **/*.c or src/*/meson.build\"},"
    "\"path\":{\"type\":\"string\",\"description\":"
      "\"The folder to search, inside the project (default: the project)\"}"
  "},\"required\":[\"pattern\"]}";

static ZotTool *
new_tool (GType       type,
          const char *name,
          const char *description,
          const char *schema_json,
          gboolean    concurrent)
{
  g_autoptr(JsonObject) schema = zot_json_object_from_string (schema_json, NULL);
  g_autoptr(JsonObject) output_schema = NULL;
  /* What changes files or runs commands asks first, where a host asks. */
  gboolean requires_approval = type != ZOT_TYPE_READ_TOOL && type != ZOT_TYPE_SKILL_TOOL &&
                               type != ZOT_TYPE_GLOB_TOOL;

  g_assert (schema != NULL);
  if (type == ZOT_TYPE_BASH_TOOL)
    output_schema = zot_json_object_from_string (bash_output_schema, NULL);

  return g_object_new (type,
                       "name", name,
                       "description", description,
                       "schema", schema,
                       "output-schema", output_schema,
                       "exposure", ZOT_TOOL_EXPOSURE_DIRECT,
                       "concurrent", concurrent,
                       "requires-approval", requires_approval,
                       /* What only reads may run again on a resume. */
                       "replay", requires_approval ? ZOT_TOOL_REPLAY_NEVER : ZOT_TOOL_REPLAY_SAFE,
                       NULL);
}

/**
 * zot_builtin_tools_new:
 *
 * Returns: (transfer full) (element-type ZotTool): new instances of read,
 *   write, edit, bash, skill and glob, in that order
 */
GPtrArray *
zot_builtin_tools_new (void)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *read_description = NULL;
  g_autofree char *bash_description = NULL;
  g_autofree char *glob_description = NULL;

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

  glob_description = g_strdup_printf (
    "Find files by name: the project's files whose path, relative to the folder searched "
    "(path, default the project), matches pattern. * and ? match within one folder name, "
    "[abc] one of the characters, and ** any number of folders: **/*.c finds C files at any "
    "depth, *.c only at the top. Files that .gitignore excludes and .git are left out. Paths "
    "come back relative to the project, the most recently modified first, at most %u of "
    "them; the search reads at most %u entries, %u folders deep.",
    ZOT_GLOB_MAX_RESULTS, ZOT_GLOB_MAX_ENTRIES, ZOT_GLOB_MAX_DEPTH);
  g_ptr_array_add (tools, new_tool (ZOT_TYPE_GLOB_TOOL, "glob",
                                    glob_description, glob_schema, TRUE));

  return tools;
}
