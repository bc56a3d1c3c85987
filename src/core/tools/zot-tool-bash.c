/* zot-tool-bash.c — the bash tool: a command in its own process group.
 *
 * `bash -c` (or /bin/sh) with stdin on /dev/null and stdout and stderr in
 * one pipe, read without blocking the main loop; the head and the tail of
 * the output are kept within ZOT_BASH_OUTPUT_MAX_BYTES, and each line is
 * reported as progress while the command runs. A timeout or a cancel
 * kills the whole group. The call completes when the shell exits.
 */
#define G_LOG_DOMAIN "zot-tools"

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "zot-builtin-tools.h"
#include "zot-builtin-tools-private.h"
#include "zot-flatpak.h"
#include "zot-limits.h"
#include "zot-provider.h"
#include "zot-provider-table.h"
#include "zot-source.h"

/* After SIGKILL a process leaves at once, unless stuck in the kernel;
 * past this the call completes without waiting for it. */
#define BASH_KILL_GRACE_MS 2000
#define BASH_READ_BYTES   ((gsize) 64 * 1024)

struct _ZotBashTool
{
  ZotTool parent_instance;
};

G_DEFINE_FINAL_TYPE (ZotBashTool, zot_bash_tool, ZOT_TYPE_TOOL)

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
  ZotToolProgress      *progress;
  GByteArray           *line;
  guint64               total;
  gint64                started;
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
bash_run_free (BashRun *run)
{
  zot_clear_source (&run->read_source);
  zot_clear_source (&run->timeout_source);
  zot_clear_source (&run->grace_source);
  zot_clear_source (&run->cancel_source);
  g_clear_object (&run->wait_cancellable);
  g_clear_object (&run->output);
  g_clear_object (&run->subprocess);
  g_clear_pointer (&run->buffer, g_free);
  g_clear_pointer (&run->head, g_byte_array_unref);
  g_clear_pointer (&run->tail, g_byte_array_unref);
  g_clear_pointer (&run->line, g_byte_array_unref);
  g_clear_pointer (&run->progress, zot_tool_progress_unref);
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
  zot_flatpak_kill (run->subprocess, run->pgid);
}

static void
bash_run_flush_line (BashRun *run)
{
  gsize len = run->line->len;

  if (len > 0 && run->line->data[len - 1] == '\r')
    len--;
  zot_tool_progress_report (run->progress, (const char *) run->line->data, len);
  g_byte_array_set_size (run->line, 0);
}

/* Each whole line is progress; a long one is kept only as far as a
 * progress line can show it. */
static void
bash_run_report_lines (BashRun      *run,
                       const guint8 *data,
                       gsize         len)
{
  /* A character cut at the limit is still whole in what is kept. */
  const gsize keep = ZOT_TOOL_PROGRESS_LINE_MAX_BYTES + 4;

  while (len > 0)
    {
      const guint8 *newline = memchr (data, '\n', len);
      gsize n = newline != NULL ? (gsize) (newline - data) : len;

      if (run->line->len < keep)
        g_byte_array_append (run->line, data, MIN (n, keep - run->line->len));
      if (newline == NULL)
        return;

      bash_run_flush_line (run);
      data += n + 1;
      len -= n + 1;
    }
}

/* Keeps the first and the last halves of the cap; the middle is counted. */
static void
bash_run_append (BashRun      *run,
                 const guint8 *data,
                 gsize         len)
{
  run->total += len;
  if (run->progress != NULL)
    bash_run_report_lines (run, data, len);

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
      /* Translators: put into a command's output where its middle was cut; %llu is how many
       * bytes were left out */
      g_string_append_printf (out, _("\n[… %llu bytes cut …]\n"), (unsigned long long) cut);
      g_string_append (out, tail);
    }

  return g_string_free (out, FALSE);
}

/* What a script's call resolves to (the output schema in
 * zot-builtin-tools.c): a non-zero exit is data to look at, not a
 * rejection; a timeout or a cancel has none of it and rejects. */
static JsonNode *
bash_structured (const char *output,
                 gboolean    truncated,
                 int         code,
                 gint64      elapsed)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "output", output);
  json_object_set_boolean_member (object, "truncated", truncated);
  json_object_set_int_member (object, "exit_code", code);
  json_object_set_double_member (object, "wall_time_seconds", elapsed / (double) G_USEC_PER_SEC);
  return json_node_init_object (json_node_alloc (), object);
}

static void
bash_finish (GTask *task)
{
  BashRun *run = g_task_get_task_data (task);
  g_autofree char *output = NULL;
  g_autoptr(GString) text = NULL;
  ZotToolResult *result;
  gboolean truncated;
  int code;

  if (run->done)
    return;
  run->done = TRUE;

  if (run->progress != NULL && run->line->len > 0)
    bash_run_flush_line (run);

  zot_clear_source (&run->read_source);
  zot_clear_source (&run->timeout_source);
  zot_clear_source (&run->grace_source);
  zot_clear_source (&run->cancel_source);
  /* Lets the pending wait complete, and drop its reference, at once. */
  g_cancellable_cancel (run->wait_cancellable);

  /* Cancelled, whichever event came first: nothing of the group stays. */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    bash_kill_group (run);
  if (g_task_return_error_if_cancelled (task))
    return;

  truncated = run->total > run->head->len + MIN (run->tail->len, BASH_TAIL_BYTES);
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
      _zot_builtin_return_result (task, zot_tool_result_new_text (text->str, TRUE, ZOT_TOOL_OUTCOME_TIMED_OUT));
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

      /* Translators: the model reads this: the signal's number, then its name */
      g_string_append_printf (text, _("[Terminated by signal %d (%s).]\n"), sig, g_strsignal (sig));
      code = 128 + sig;
    }
  else
    {
      code = -1;
    }

  g_string_append_printf (text, _("exit code: %d"), code);
  result = zot_tool_result_new_text (text->str, code != 0,
                                     code != 0 ? ZOT_TOOL_OUTCOME_FAILED : ZOT_TOOL_OUTCOME_COMPLETED);
  result->structured_content = bash_structured (output, truncated, code,
                                                g_get_monotonic_time () - run->started);
  _zot_builtin_return_result (task, result);
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
  ZotArgStatus status;
  BashRun *run;

  if (command == NULL || *command == '\0')
    {
      _zot_builtin_return_result_now (tool, zot_bash_tool_execute_async, cancellable, callback, user_data,
                                      _zot_builtin_missing_string_arg ("command"));
      return;
    }

  status = _zot_builtin_args_get_int (args, "timeout_ms", &timeout_ms);
  if (status == ZOT_ARG_MISSING)
    timeout_ms = zot_timeout_get_ms (ZOT_TIMEOUT_BASH);
  if (status == ZOT_ARG_INVALID || timeout_ms < 1 || timeout_ms > G_MAXUINT)
    {
      _zot_builtin_return_result_now (tool, zot_bash_tool_execute_async, cancellable, callback, user_data,
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
  run->started = g_get_monotonic_time ();
  run->head = g_byte_array_new ();
  run->tail = g_byte_array_new ();
  run->buffer = g_malloc (BASH_READ_BYTES);
  run->line = g_byte_array_new ();
  if (context->progress != NULL)
    run->progress = zot_tool_progress_ref (context->progress);
  run->wait_cancellable = g_cancellable_new ();
  g_task_set_task_data (task, run, (GDestroyNotify) bash_run_free);

  /* Inside Flatpak the command runs on the host, whose bash is found there. */
  if (zot_flatpak_is_sandboxed ())
    shell = g_strdup ("bash");
  else
    shell = g_find_program_in_path ("bash");
  if (shell == NULL)
    shell = g_strdup ("/bin/sh");

  /* No stdin flag: the command reads /dev/null. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_child_setup (launcher, bash_child_setup, NULL, NULL);
  zot_provider_scrub_environment (launcher, NULL);

  {
    const char *argv[] = { shell, "-c", command, NULL };

    run->subprocess = zot_flatpak_spawnv (launcher, context->cwd,
                                          zot_provider_table_get_key_variables (),
                                          argv, &error);
  }
  if (run->subprocess == NULL)
    {
      _zot_builtin_return_result (task, zot_tool_result_new_error (ZOT_TOOL_OUTCOME_FAILED,
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
  tool_class->execute_finish = _zot_builtin_execute_finish;
}

static void
zot_bash_tool_init (ZotBashTool *self)
{
}
