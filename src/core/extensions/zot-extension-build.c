/* zot-extension-build.c — running a manifest's `build` command.
 *
 * Watch mode runs it before each restart, `zot ext install --build` once
 * in the new copy before it is put in place. It runs in the extension's directory (a bare
 * program name through $PATH) with its stdout and stderr appended to the
 * extension's log under a `=== NAME: build: …` header, and is killed when
 * it outlives its deadline. A failure is reported by one line: the first
 * line the build wrote to stderr, else to stdout (tsc, for one, reports
 * its errors there), else how it ended.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-extension-build.h"

/* The first line of a failed build's stderr quoted in its error, in bytes:
 * a character cut at the end is made valid when the line is read. */
#define BUILD_ERROR_LINE_MAX_BYTES 400

typedef struct
{
  GTask         *task;
  GSubprocess   *process;
  GInputStream  *stderr_stream;
  GCancellable  *read_cancellable;
  GString       *first_line;
  GError        *error;
  ZotTimeout     deadline;
  char          *log_path;
  int            log_fd;
  off_t          output_start;
  GSource       *timeout;
  GSource       *drain;
  gulong         cancel_id;
  guint          pending;
  gboolean       timed_out;
  gboolean       line_done;
} Build;

static void
clear_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

/* On the caller's thread-default context, not the global one: the
 * installer runs builds on a worker thread with a context of its own. */
static GSource *
add_timeout (guint       ms,
             GSourceFunc callback,
             Build      *build)
{
  GSource *source = g_timeout_source_new (ms);

  g_source_set_callback (source, callback, build, NULL);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

static void
build_free (Build *build)
{
  clear_source (&build->timeout);
  clear_source (&build->drain);
  g_cancellable_disconnect (g_task_get_cancellable (build->task), build->cancel_id);
  if (build->log_fd >= 0)
    close (build->log_fd);
  g_clear_object (&build->process);
  g_clear_object (&build->stderr_stream);
  g_clear_object (&build->read_cancellable);
  g_string_free (build->first_line, TRUE);
  g_clear_error (&build->error);
  g_free (build->log_path);
  g_clear_object (&build->task);
  g_free (build);
}

static void
build_log (Build      *build,
           const char *data,
           gsize       length)
{
  if (build->log_fd >= 0 && write (build->log_fd, data, length) < 0)
    g_debug ("cannot write the build's output to %s", build->log_path);
}

static void keep_first_line (Build  *build,
                             GBytes *bytes);

/* A build that said nothing on stderr: its first line on stdout, which
 * went straight to the log after the header. */
static void
keep_first_stdout_line (Build *build)
{
  char buffer[BUILD_ERROR_LINE_MAX_BYTES * 4];
  g_autoptr(GBytes) bytes = NULL;
  ssize_t length;

  if (build->log_fd < 0 || build->output_start < 0)
    return;
  length = pread (build->log_fd, buffer, sizeof buffer, build->output_start);
  if (length <= 0)
    return;
  bytes = g_bytes_new (buffer, (gsize) length);
  keep_first_line (build, bytes);
  if (!g_utf8_validate_len (build->first_line->str, build->first_line->len, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (build->first_line->str, -1);
      g_string_assign (build->first_line, valid);
    }
}

/* Why the build failed; NULL when it succeeded. */
static char *
build_failure (Build *build)
{
  int status;

  if (build->error != NULL)
    return g_strdup (build->error->message);
  if (build->timed_out)
    /* Translators: why a build failed: it ran longer than this many milliseconds */
    return g_strdup_printf (_("no end after %u ms, stopped"), zot_timeout_get_ms (build->deadline));
  if (g_subprocess_get_if_signaled (build->process))
    /* Translators: why a build failed */
    return g_strdup_printf (_("killed by signal %d"), g_subprocess_get_term_sig (build->process));

  status = g_subprocess_get_exit_status (build->process);
  if (status == 0)
    return NULL;
  if (build->first_line->len == 0)
    keep_first_stdout_line (build);
  if (build->first_line->len > 0)
    return g_strdup (build->first_line->str);
  /* Translators: why a build failed: the number its program exited with */
  return g_strdup_printf (_("exit status %d"), status);
}

static void
build_finish (Build *build)
{
  g_autofree char *failure = NULL;

  if (--build->pending > 0)
    return;

  if (g_cancellable_is_cancelled (g_task_get_cancellable (build->task)))
    g_task_return_new_error (build->task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", _("the build was cancelled"));
  else if ((failure = build_failure (build)) != NULL)
    g_task_return_new_error (build->task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", failure);
  else
    g_task_return_boolean (build->task, TRUE);
  build_free (build);
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  Build *build = user_data;

  /* Something the build started still holds its stderr: stop reading. */
  g_clear_pointer (&build->drain, g_source_unref);
  g_cancellable_cancel (build->read_cancellable);
  return G_SOURCE_REMOVE;
}

static void
keep_first_line (Build  *build,
                 GBytes *bytes)
{
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);

  for (gsize i = 0; i < length && !build->line_done; i++)
    {
      if (data[i] == '\n' || data[i] == '\r')
        {
          /* A "# package" heading (go build) says nothing of the error. */
          if (g_str_has_prefix (build->first_line->str, "# "))
            g_string_truncate (build->first_line, 0);
          build->line_done = build->first_line->len > 0;
          continue;
        }
      if (build->first_line->len < BUILD_ERROR_LINE_MAX_BYTES)
        g_string_append_c (build->first_line, data[i]);
    }
}

static void read_stderr (Build *build);

static void
stderr_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Build *build = user_data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, NULL);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      clear_source (&build->drain);
      if (!g_utf8_validate_len (build->first_line->str, build->first_line->len, NULL))
        {
          g_autofree char *valid = g_utf8_make_valid (build->first_line->str, -1);
          g_string_assign (build->first_line, valid);
        }
      build_finish (build);
      return;
    }

  build_log (build, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  keep_first_line (build, bytes);
  read_stderr (build);
}

static void
read_stderr (Build *build)
{
  g_input_stream_read_bytes_async (build->stderr_stream, 4096, G_PRIORITY_DEFAULT,
                                   build->read_cancellable, stderr_read_cb, build);
}

static void
build_waited_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Build *build = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  clear_source (&build->timeout);
  if (build->pending > 1)
    build->drain = add_timeout (zot_timeout_get_ms (ZOT_TIMEOUT_EXIT_DRAIN), drain_timeout_cb, build);
  build_finish (build);
}

static gboolean
build_timeout_cb (gpointer user_data)
{
  Build *build = user_data;

  g_clear_pointer (&build->timeout, g_source_unref);
  build->timed_out = TRUE;
  g_subprocess_force_exit (build->process);
  return G_SOURCE_REMOVE;
}

static void
on_build_cancelled (GCancellable *cancellable,
                    Build        *build)
{
  if (build->process != NULL)
    g_subprocess_force_exit (build->process);
}

/**
 * zot_extension_build_async:
 * @directory: the extension's directory, where the build runs
 * @argv: the manifest's `build`
 * @name: the extension's name, for the log's header
 * @log_path: (nullable): the extension's log; without one the output is dropped
 * @timeout: the deadline: %ZOT_TIMEOUT_BUILD in watch mode,
 *   %ZOT_TIMEOUT_INSTALL_BUILD for an install
 * @cancellable: (nullable): stops the build (it is killed)
 *
 * Runs @argv in @directory. zot_extension_build_finish() fails with
 * %G_IO_ERROR_FAILED and a one-line reason when the build could not start,
 * ended with another status than 0, was killed or outlived @timeout.
 */
void
zot_extension_build_async (const char          *directory,
                           const char * const  *argv,
                           const char          *name,
                           const char          *log_path,
                           ZotTimeout           timeout,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  zot_extension_build_full_async (directory, argv, NULL, NULL, name, log_path, timeout, cancellable,
                                  callback, user_data);
}

/**
 * zot_extension_build_full_async:
 * @argv: what runs: the manifest's `build`, or a box's command line around it
 * @launcher: (nullable): a launcher with the environment and descriptors
 *   @argv needs; %NULL for zot's environment
 * @shown: (nullable): the command the log's header names, %NULL for @argv
 *
 * As zot_extension_build_async(); zot_extension_build_finish() ends it.
 */
void
zot_extension_build_full_async (const char          *directory,
                                const char * const  *argv,
                                GSubprocessLauncher *launcher,
                                const char * const  *shown,
                                const char          *name,
                                const char          *log_path,
                                ZotTimeout           timeout,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  Build *build;
  g_autofree char *command = NULL;
  g_autofree char *header = NULL;

  g_return_if_fail (directory != NULL && argv != NULL && argv[0] != NULL);

  build = g_new0 (Build, 1);
  command = g_strjoinv (" ", (char **) (shown != NULL ? shown : argv));
  build->task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (build->task, zot_extension_build_full_async);
  g_task_set_check_cancellable (build->task, FALSE);
  build->deadline = timeout;
  build->first_line = g_string_new (NULL);
  build->read_cancellable = g_cancellable_new ();
  build->log_path = g_strdup (log_path);
  build->log_fd = log_path != NULL ? g_open (log_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;

  header = g_strdup_printf ("\n=== %s: build: %s (in %s)\n", name, command, directory);
  build_log (build, header, strlen (header));
  build->output_start = build->log_fd >= 0 ? lseek (build->log_fd, 0, SEEK_CUR) : -1;

  launcher = launcher != NULL ? g_object_ref (launcher) : g_subprocess_launcher_new (0);
  g_subprocess_launcher_set_flags (launcher, G_SUBPROCESS_FLAGS_STDERR_PIPE |
                                   (build->log_fd < 0 ? G_SUBPROCESS_FLAGS_STDOUT_SILENCE : 0));
  g_subprocess_launcher_set_cwd (launcher, directory);
  if (build->log_fd >= 0)
    g_subprocess_launcher_take_stdout_fd (launcher, dup (build->log_fd));

  build->process = g_subprocess_launcher_spawnv (launcher, argv, &build->error);
  g_object_unref (launcher);
  if (build->process == NULL)
    {
      build->pending = 1;
      build_finish (build);
      return;
    }

  if (cancellable != NULL)
    build->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_build_cancelled), build, NULL);
  build->stderr_stream = g_object_ref (g_subprocess_get_stderr_pipe (build->process));
  build->timeout = add_timeout (zot_timeout_get_ms (timeout), build_timeout_cb, build);
  build->pending = 2;
  read_stderr (build);
  g_subprocess_wait_async (build->process, NULL, build_waited_cb, build);
}

gboolean
zot_extension_build_finish (GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_extension_build_full_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
