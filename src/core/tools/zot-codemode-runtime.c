#define G_LOG_DOMAIN "zot-codemode"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>

#include "zot-box.h"
#include "zot-codemode-resources.h"
#include "zot-codemode-runtime.h"
#include "zot-error.h"
#include "zot-flatpak.h"
#include "zot-frame-channel.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-proc.h"
#include "zot-source.h"

#define RUNTIME_RESOURCE "/dev/zot/Zot/codemode/runtime.js"
/* What bubblewrap or gjs said on stderr is kept for the error message. */
#define STDERR_KEEP_BYTES 2048
/* bwrap's --info-fd: a small JSON object naming the sandboxed process. */
#define INFO_FD           3
#define INFO_MAX_BYTES    4096

struct _ZotCodemodeRuntime
{
  GObject          parent_instance;

  GSubprocess     *subprocess;
  ZotFrameChannel *channel;
  GCancellable    *cancellable;
  GTask           *start_task;
  GSource         *start_deadline;
  GSource         *start_cancel;
  GSource         *watchdog;
  GInputStream    *info;
  GString         *stderr_text;
  GPid             child_pid;    /* the sandboxed gjs, 0 while unknown */
  int              child_pidfd;  /* the same, to kill the box by; -1 */
  gsize            peak;
  guint            warm_up_calls;
  gboolean         in_flatpak;   /* in the portal's sub-sandbox, not bwrap */
  gboolean         ready;
  gboolean         ended;
};

enum
{
  FRAME,
  ENDED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotCodemodeRuntime, zot_codemode_runtime, G_TYPE_OBJECT)

static char *bwrap_override;
static char *gjs_override;
static gsize memory_override;
static guint processes_override;

/* Tests lower the box's caps to reach them cheaply; 0 for the default. */
void
_zot_codemode_runtime_set_limits_for_testing (gsize memory_bytes,
                                              guint processes)
{
  memory_override = memory_bytes;
  processes_override = processes;
}

static gsize
memory_max (void)
{
  return memory_override != 0 ? memory_override : ZOT_CODEMODE_MEMORY_MAX_BYTES;
}

static guint
processes_max (void)
{
  return processes_override != 0 ? processes_override : ZOT_CODEMODE_MAX_PROCESSES;
}

void
_zot_codemode_runtime_set_programs_for_testing (const char *bwrap,
                                                const char *gjs)
{
  g_free (bwrap_override);
  g_free (gjs_override);
  bwrap_override = g_strdup (bwrap);
  _zot_box_set_bwrap_for_testing (bwrap);
  gjs_override = g_strdup (gjs);
}

static char *
find_program (const char *override,
              const char *name)
{
  if (override != NULL)
    return g_file_test (override, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (override) : NULL;
  return g_find_program_in_path (name);
}

/* SIGKILL to the box's first process, pid 1 of its namespace, takes
 * every process in the box with it; SIGKILL to bwrap too (the sandbox
 * would go with it anyway, --die-with-parent, but later). The pidfd
 * makes sure the signal reaches gjs and no process that took its pid. */
static void
kill_process (ZotCodemodeRuntime *self)
{
  zot_clear_source (&self->watchdog);
  zot_clear_source (&self->start_deadline);
  zot_clear_source (&self->start_cancel);
  if (self->child_pidfd >= 0)
    {
      (void) syscall (SYS_pidfd_send_signal, self->child_pidfd, SIGKILL, NULL, 0);
      close (self->child_pidfd);
      self->child_pidfd = -1;
    }
  if (self->subprocess != NULL)
    g_subprocess_force_exit (self->subprocess);
  if (self->channel != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->channel, self);
      zot_frame_channel_close (self->channel);
    }
}

/* Ends the runtime once, saying why (NULL: it just went away). */
static void
end (ZotCodemodeRuntime *self,
     GError             *why)
{
  g_autoptr(GError) owned = why;
  g_autoptr(GObject) keep = g_object_ref (G_OBJECT (self));

  if (self->ended)
    return;
  self->ended = TRUE;

  kill_process (self);

  if (owned == NULL)
    {
      g_autofree char *said = g_strstrip (g_strdup (self->stderr_text->str));
      char *newline = strchr (said, '\n');

      if (newline != NULL)
        *newline = '\0';
      if (!self->ready && self->in_flatpak)
        owned = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED,
                             /* Translators: the two %s are either empty or ": " and the
                              * sandbox's own error message */
                             _("the script sandbox could not start%s%s; scripts never run unconfined "
                               "(Flatpak's portal must be running on the host to make sub-sandboxes)"),
                             *said != '\0' ? ": " : "", said);
      else if (!self->ready)
        owned = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED,
                             /* Translators: the two %s are either empty or ": " and the
                              * sandbox's own error message; bubblewrap is a program's name */
                             _("the script sandbox could not start%s%s; scripts never run unconfined "
                               "(bubblewrap needs unprivileged user namespaces)"),
                             *said != '\0' ? ": " : "", said);
      else
        owned = g_error_new (G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE,
                             /* Translators: the two %s are either empty or ": " and the
                              * runtime's own error message */
                             _("the script runtime ended unexpectedly%s%s"),
                             *said != '\0' ? ": " : "", said);
    }

  if (self->start_task != NULL)
    {
      GTask *task = g_steal_pointer (&self->start_task);

      g_task_return_error (task, g_steal_pointer (&owned));
      g_object_unref (task);
      return;
    }

  g_signal_emit (self, signals [ENDED], 0, owned);
}

/* The peak resident size of the sandboxed process, from /proc. */
static gsize
read_peak (GPid pid)
{
  guint64 kib = 0;

  if (!zot_proc_read_status_kib (pid, "VmHWM", &kib))
    return 0;
  return (gsize) kib * 1024;
}

/* The box's processes, gjs and whatever it started, together: their
 * resident memory and their number. */
static gboolean
check_memory (ZotCodemodeRuntime *self)
{
  ZotBoxUsage usage = { 0 };

  if (self->child_pid > 0)
    {
      self->peak = MAX (self->peak, read_peak (self->child_pid));
      if (zot_box_measure (self->child_pid, processes_max (), &usage))
        self->peak = MAX (self->peak, usage.resident);
    }

  if (usage.processes > processes_max ())
    {
      end (self, g_error_new (G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                              _("the script's box ran more than %u processes at once; the box was stopped"),
                              processes_max ()));
      return FALSE;
    }
  if (self->peak <= memory_max ())
    return TRUE;

  end (self, g_error_new (G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                          _("the script's processes used more than %u MiB in all; the box was stopped"),
                          (guint) (memory_max () / (1024 * 1024))));
  return FALSE;
}

static gboolean
watchdog_cb (gpointer user_data)
{
  ZotCodemodeRuntime *self = user_data;

  if (!check_memory (self))
    return G_SOURCE_REMOVE;
  return G_SOURCE_CONTINUE;
}

/* bwrap wrote its info before it started gjs, so by "ready" it is all
 * there; what is missing leaves the memory to the data-segment limit. */
static void
read_info (ZotCodemodeRuntime *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(JsonObject) info = NULL;
  char buffer[512];

  if (self->info == NULL)
    return;

  while (text->len < INFO_MAX_BYTES)
    {
      gssize n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->info),
                                                           buffer, sizeof buffer, NULL, NULL);
      if (n <= 0)
        break;
      g_string_append_len (text, buffer, n);
    }
  g_clear_object (&self->info);

  info = zot_json_object_from_string (text->str, NULL);
  if (info != NULL)
    self->child_pid = (GPid) zot_json_get_int_or (info, "child-pid", 0);
  /* gjs just said "ready": it is alive, and its pid is its own. */
  if (self->child_pid > 0)
    self->child_pidfd = (int) syscall (SYS_pidfd_open, self->child_pid, 0);
  if (self->child_pid <= 0)
    g_debug ("the runtime's process is unknown; memory is held by its data-segment limit only");
}

/* Before "ready", a call is the runtime warming up (runtime.js). */
static gboolean
answer_warm_up (ZotCodemodeRuntime *self,
                JsonObject         *call)
{
  g_autoptr(JsonObject) answer = NULL;
  JsonNode *id = json_object_get_member (call, "id");

  if (id == NULL || json_node_get_value_type (id) != G_TYPE_INT64)
    return FALSE;
  self->warm_up_calls++;
  answer = json_object_new ();
  json_object_set_string_member (answer, "type", "result");
  json_object_set_int_member (answer, "id", json_node_get_int (id));
  json_object_set_boolean_member (answer, "ok", TRUE);
  json_object_set_null_member (answer, "value");
  return zot_frame_channel_send (self->channel, answer, ZOT_FRAME_NOW, NULL);
}

static void
on_frame (ZotFrameChannel    *channel,
          JsonObject         *frame,
          ZotCodemodeRuntime *self)
{
  if (!self->ready)
    {
      const char *type = zot_json_get_string (frame, "type");
      GTask *task;

      if (g_strcmp0 (type, "call") == 0 && self->warm_up_calls < ZOT_CODEMODE_WARM_UP_CALLS &&
          answer_warm_up (self, frame))
        return;
      if (g_strcmp0 (type, "ready") != 0)
        {
          end (self, g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                  _("the script runtime did not start properly")));
          return;
        }

      self->ready = TRUE;
      zot_clear_source (&self->start_deadline);
      zot_clear_source (&self->start_cancel);
      read_info (self);
      task = g_steal_pointer (&self->start_task);
      g_task_return_pointer (task, g_object_ref (self), g_object_unref);
      g_object_unref (task);
      return;
    }

  g_signal_emit (self, signals [FRAME], 0, frame);
}

static void
on_closed (ZotFrameChannel    *channel,
           const GError       *error,
           ZotCodemodeRuntime *self)
{
  if (error != NULL && !g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED))
    end (self, g_error_new (G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE,
                            _("the script runtime broke its channel: %s"), error->message));
  else
    end (self, NULL);
}

static void
waited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(ZotCodemodeRuntime) self = user_data;

  if (!g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL))
    return;
  /* What it wrote last may still be in the pipe: the channel's end says
   * when it is all read. Only a runtime that never got going ends here. */
  if (!self->ready)
    end (self, NULL);
}

static void
stderr_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(ZotCodemodeRuntime) self = user_data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, NULL);
  gsize size;
  const char *data;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    return;

  data = g_bytes_get_data (bytes, &size);
  if (self->stderr_text->len < STDERR_KEEP_BYTES)
    g_string_append_len (self->stderr_text, data, MIN (size, STDERR_KEEP_BYTES - self->stderr_text->len));

  /* Read on to the end (and drop it), or a chatty runtime would block. */
  g_input_stream_read_bytes_async (G_INPUT_STREAM (object), 4096, G_PRIORITY_DEFAULT,
                                   self->cancellable, stderr_read_cb, g_object_ref (self));
}

static gboolean
start_deadline_cb (gpointer user_data)
{
  ZotCodemodeRuntime *self = user_data;

  g_clear_pointer (&self->start_deadline, g_source_unref);
  end (self, g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                          _("the script runtime did not start within %u s"),
                          (zot_timeout_get_ms (ZOT_TIMEOUT_CODEMODE_START) + 999) / 1000));
  return G_SOURCE_REMOVE;
}

static void
limit_data (gpointer user_data)
{
  /* Async-signal-safe, between fork and exec; inherited by the sandbox. */
  struct rlimit limit = { ZOT_CODEMODE_DATA_LIMIT_BYTES, ZOT_CODEMODE_DATA_LIMIT_BYTES };

  (void) setrlimit (RLIMIT_DATA, &limit);
}

/* The runtime's numbers (zot-limits.h), in its environment: gjs's JIT
 * thresholds, as SpiderMonkey reads them, and its warm-up calls. */
static const struct
{
  const char *name;
  guint       value;
} runtime_env[] = {
  { "JIT_OPTION_baselineInterpreterWarmUpThreshold", ZOT_CODEMODE_JIT_BASELINE_INTERPRETER_AFTER },
  { "JIT_OPTION_baselineJitWarmUpThreshold", ZOT_CODEMODE_JIT_BASELINE_AFTER },
  { "JIT_OPTION_normalIonWarmUpThreshold", ZOT_CODEMODE_JIT_OPTIMISED_AFTER },
  { "ZOT_WARM_UP_CALLS", ZOT_CODEMODE_WARM_UP_CALLS },
};

static GStrv
bwrap_argv (const char *bwrap,
            const char *gjs,
            const char *source)
{
  g_autoptr(ZotBox) box = zot_box_new (ZOT_BOX_PID_1);
  g_autofree char *info_fd = g_strdup_printf ("%d", INFO_FD);
  const char *command[] = { gjs, "-c", source, NULL };

  zot_box_add_args (box, "--clearenv", "--setenv", "PATH", "/usr/bin", "--setenv", "LANG", "C.UTF-8",
                    "--setenv", "HOME", "/tmp", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (runtime_env); i++)
    {
      g_autofree char *value = g_strdup_printf ("%u", runtime_env[i].value);

      zot_box_setenv (box, runtime_env[i].name, value);
    }
  /* A gjs outside /usr is seen where it is, read-only. */
  if (!g_str_has_prefix (gjs, "/usr/"))
    {
      g_autofree char *dir = g_path_get_dirname (gjs);
      zot_box_bind (box, dir, FALSE);
    }
  zot_box_add_args (box, "--info-fd", info_fd, NULL);
  return zot_box_build_argv (box, bwrap, "/tmp", command);
}

/* Inside a Flatpak: the portal's sub-sandbox, which has no network and
 * sees none of the app's files. The data-segment limit is set in there,
 * since the portal's process is not ours. */
static GStrv
flatpak_argv (const char *spawn,
              const char *source)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *ulimit = g_strdup_printf ("ulimit -d %" G_GSIZE_FORMAT " && exec gjs -c \"$1\"",
                                             ZOT_CODEMODE_DATA_LIMIT_BYTES / 1024);

  g_strv_builder_add_many (builder, spawn, "--sandbox", "--no-network", "--watch-bus", "--clear-env",
                           "--env=PATH=/usr/bin", "--env=LANG=C.UTF-8", "--env=HOME=/tmp", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (runtime_env); i++)
    {
      g_autofree char *option = g_strdup_printf ("--env=%s=%u", runtime_env[i].name, runtime_env[i].value);

      g_strv_builder_add (builder, option);
    }
  g_strv_builder_add_many (builder, "--", "/bin/sh", "-c", ulimit, "sh", source, NULL);
  return g_strv_builder_end (builder);
}

static gboolean
spawn (ZotCodemodeRuntime  *self,
       GError             **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GBytes) runtime = NULL;
  g_autofree char *source = NULL;
  g_autofree char *bwrap = NULL;
  g_autofree char *gjs = NULL;
  g_auto(GStrv) argv = NULL;
  GSubprocessFlags flags = G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                           G_SUBPROCESS_FLAGS_STDERR_PIPE;
  int info[2] = { -1, -1 };

  runtime = g_resource_lookup_data (zot_codemode_get_resource (), RUNTIME_RESOURCE, 0, error);
  if (runtime == NULL)
    return FALSE;
  source = g_strndup (g_bytes_get_data (runtime, NULL), g_bytes_get_size (runtime));

  gjs = find_program (gjs_override, "gjs");
  launcher = g_subprocess_launcher_new (flags);

  if (zot_flatpak_is_sandboxed () && bwrap_override == NULL)
    {
      g_autofree char *spawner = g_find_program_in_path ("flatpak-spawn");

      if (spawner == NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("codemode scripts run in the Flatpak sub-sandbox, and flatpak-spawn "
                                 "is missing: use a runtime that has it"));
          return FALSE;
        }
      argv = flatpak_argv (spawner, source);
      self->in_flatpak = TRUE;
    }
  else
    {
      /* Translators: the start of "… confined by bubblewrap, which is not installed: …" */
      bwrap = zot_box_find_bwrap (_("codemode scripts run"), error);
      if (bwrap == NULL)
        return FALSE;
      if (gjs == NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               _("codemode scripts run in gjs, which is not installed: install gjs"));
          return FALSE;
        }
      if (!g_unix_open_pipe (info, FD_CLOEXEC, error))
        return FALSE;
      g_subprocess_launcher_take_fd (launcher, info[1], INFO_FD);
      g_subprocess_launcher_set_child_setup (launcher, limit_data, NULL, NULL);
      argv = bwrap_argv (bwrap, gjs, source);
    }

  self->subprocess = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, error);
  /* Our copy of the write end goes with the launcher: EOF is bwrap's. */
  g_clear_object (&launcher);
  if (info[0] >= 0)
    {
      g_unix_set_fd_nonblocking (info[0], TRUE, NULL);
      self->info = g_unix_input_stream_new (info[0], TRUE);
    }
  if (self->subprocess == NULL)
    return FALSE;

  g_unix_set_fd_nonblocking (g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (g_subprocess_get_stdin_pipe (self->subprocess))),
                             TRUE, NULL);
  self->channel = zot_frame_channel_new (g_subprocess_get_stdout_pipe (self->subprocess),
                                         g_subprocess_get_stdin_pipe (self->subprocess));
  g_signal_connect (self->channel, "frame-received", G_CALLBACK (on_frame), self);
  g_signal_connect (self->channel, "closed", G_CALLBACK (on_closed), self);
  g_subprocess_wait_async (self->subprocess, self->cancellable, waited_cb, g_object_ref (self));
  g_input_stream_read_bytes_async (g_subprocess_get_stderr_pipe (self->subprocess), 4096, G_PRIORITY_DEFAULT,
                                   self->cancellable, stderr_read_cb, g_object_ref (self));
  zot_frame_channel_start (self->channel);
  return TRUE;
}

static void
zot_codemode_runtime_dispose (GObject *object)
{
  ZotCodemodeRuntime *self = (ZotCodemodeRuntime *)object;

  g_cancellable_cancel (self->cancellable);
  kill_process (self);
  g_clear_object (&self->channel);
  g_clear_object (&self->info);

  G_OBJECT_CLASS (zot_codemode_runtime_parent_class)->dispose (object);
}

static void
zot_codemode_runtime_finalize (GObject *object)
{
  ZotCodemodeRuntime *self = (ZotCodemodeRuntime *)object;

  g_clear_object (&self->subprocess);
  g_clear_object (&self->cancellable);
  g_string_free (self->stderr_text, TRUE);

  G_OBJECT_CLASS (zot_codemode_runtime_parent_class)->finalize (object);
}

static void
zot_codemode_runtime_class_init (ZotCodemodeRuntimeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_codemode_runtime_dispose;
  object_class->finalize = zot_codemode_runtime_finalize;

  /**
   * ZotCodemodeRuntime::frame:
   * @frame: a frame the runtime sent after "ready"
   */
  signals [FRAME] =
    g_signal_new ("frame", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_OBJECT | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotCodemodeRuntime::ended:
   * @error: why: it went away, broke its channel or passed the memory cap
   *
   * The runtime is gone (or being killed); emitted once, not for
   * zot_codemode_runtime_stop().
   */
  signals [ENDED] =
    g_signal_new ("ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
zot_codemode_runtime_init (ZotCodemodeRuntime *self)
{
  self->cancellable = g_cancellable_new ();
  self->stderr_text = g_string_new (NULL);
  self->child_pidfd = -1;
}

static gboolean
start_cancelled_cb (GCancellable *cancellable,
                    gpointer      user_data)
{
  ZotCodemodeRuntime *self = user_data;

  g_clear_pointer (&self->start_cancel, g_source_unref);
  /* Translators: why a codemode script ended: its tool call was cancelled */
  end (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("cancelled")));
  return G_SOURCE_REMOVE;
}

/**
 * zot_codemode_runtime_start_async:
 *
 * Starts a confined runtime and completes once it is ready for a script.
 */
void
zot_codemode_runtime_start_async (GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(ZotCodemodeRuntime) self = g_object_new (ZOT_TYPE_CODEMODE_RUNTIME, NULL);
  g_autoptr(GError) error = NULL;
  GTask *task;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_codemode_runtime_start_async);

  if (!spawn (self, &error))
    {
      self->ended = TRUE;
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }

  self->start_task = task;
  self->start_deadline = g_timeout_source_new (zot_timeout_get_ms (ZOT_TIMEOUT_CODEMODE_START));
  g_source_set_callback (self->start_deadline, start_deadline_cb, self, NULL);
  g_source_set_static_name (self->start_deadline, "[zot] codemode start deadline");
  g_source_attach (self->start_deadline, g_main_context_get_thread_default ());

  if (cancellable != NULL)
    {
      self->start_cancel = g_cancellable_source_new (cancellable);
      g_source_set_callback (self->start_cancel, G_SOURCE_FUNC (start_cancelled_cb), self, NULL);
      g_source_attach (self->start_cancel, g_main_context_get_thread_default ());
    }
}

ZotCodemodeRuntime *
zot_codemode_runtime_start_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * zot_codemode_runtime_send:
 *
 * Sends @frame; the first one also starts watching the runtime's memory.
 */
gboolean
zot_codemode_runtime_send (ZotCodemodeRuntime  *self,
                           JsonObject          *frame,
                           GError             **error)
{
  g_return_val_if_fail (ZOT_IS_CODEMODE_RUNTIME (self), FALSE);

  if (self->ended || self->channel == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, _("the script runtime has ended"));
      return FALSE;
    }

  if (self->watchdog == NULL && self->child_pid > 0)
    {
      self->watchdog = g_timeout_source_new (ZOT_CODEMODE_MEMORY_POLL_MS);
      g_source_set_callback (self->watchdog, watchdog_cb, self, NULL);
      g_source_set_static_name (self->watchdog, "[zot] codemode memory");
      g_source_attach (self->watchdog, g_main_context_get_thread_default ());
    }

  /* A script waits for each of these: no main loop turn before it goes. */
  return zot_frame_channel_send (self->channel, frame, ZOT_FRAME_NOW, error);
}

gboolean
zot_codemode_runtime_is_alive (ZotCodemodeRuntime *self)
{
  g_return_val_if_fail (ZOT_IS_CODEMODE_RUNTIME (self), FALSE);
  return self->ready && !self->ended;
}

/**
 * zot_codemode_runtime_get_peak_memory:
 *
 * Looks again, and kills the runtime (::ended) when it is past the cap.
 *
 * Returns: the most memory the runtime has used so far, in bytes; 0 when
 *   that cannot be seen (inside a Flatpak)
 */
gsize
zot_codemode_runtime_get_peak_memory (ZotCodemodeRuntime *self)
{
  g_return_val_if_fail (ZOT_IS_CODEMODE_RUNTIME (self), 0);

  if (!self->ended)
    check_memory (self);
  return self->peak;
}

/* Kills the runtime at once; no ::ended. */
void
zot_codemode_runtime_stop (ZotCodemodeRuntime *self)
{
  g_return_if_fail (ZOT_IS_CODEMODE_RUNTIME (self));

  g_signal_handlers_disconnect_matched (self, G_SIGNAL_MATCH_ID, signals [ENDED], 0, NULL, NULL, NULL);
  /* Translators: why a codemode script ended: the user or the host stopped it */
  end (self, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("stopped")));
}
