/* zot-extension-process.c — an extension's process: start, exit, shutdown.
 *
 * Starting spawns the program in a process group of its own with its
 * stderr in the extension's log and only the provider keys granted to it;
 * the exit watcher, the end of its output and the shutdown ladder (drain,
 * `shutdown`, SIGTERM, SIGKILL) decide how its end is told.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <gio/gunixoutputstream.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "zot-error.h"
#include "zot-extension-box.h"
#include "zot-extension-private.h"
#include "zot-flatpak.h"
#include "zot-source.h"
#include "zot-key-grants.h"
#include "zot-limits.h"
#include "zot-provider.h"
#include "zot-provider-table.h"

/* Process lifetime */

static void
complete_stop_waiters (ZotExtension *self)
{
  GTask *task;

  while ((task = g_queue_pop_head (&self->stop_waiters)))
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
}

static char *
describe_exit (GSubprocess *subprocess)
{
  if (g_subprocess_get_if_signaled (subprocess))
    {
      int sig = g_subprocess_get_term_sig (subprocess);
      /* Translators: part of a longer message ("NAME stopped unexpectedly: …"): the signal's
       * number, then its name */
      return g_strdup_printf (_("killed by signal %d (%s)"), sig, g_strsignal (sig));
    }

  /* flatpak-spawn tells a host program's signal as 128 + the signal. */
  if (zot_flatpak_get_host_term_sig (subprocess) != 0)
    {
      int sig = zot_flatpak_get_host_term_sig (subprocess);
      /* Translators: the signal's number, then its name; "the host" is the computer outside the
       * Flatpak sandbox */
      return g_strdup_printf (_("killed by signal %d (%s) on the host"), sig, g_strsignal (sig));
    }

  /* Translators: part of a longer message: how the extension's program ended; %d is its exit
   * status */
  return g_strdup_printf (_("exited with status %d"), g_subprocess_get_exit_status (subprocess));
}

static void
handle_crash (ZotExtension *self,
              const char   *reason)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (self->state == ZOT_EXTENSION_STATE_FAILED ||
      self->state == ZOT_EXTENSION_STATE_EXITED)
    return;

  /* Translators: the extension's name, how it ended ("exited with status 1"), then the path of
   * its log file */
  message = g_strdup_printf (_("%s stopped unexpectedly: %s (log: %s)"), self->name, reason, self->log_path);
  zot_extension_log (self, "crashed: %s", reason);

  error = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                       /* Translators: the extension's name, then how it ended ("exited with
                        * status 1") */
                       _("%s stopped unexpectedly: %s"), self->name, reason);
  _zot_extension_fail_all_requests (self, error);

  _zot_extension_set_last_error (self, message);
  _zot_extension_set_state (self, ZOT_EXTENSION_STATE_FAILED);
  g_signal_emit (self, _zot_extension_signals[ZOT_EXTENSION_SIGNAL_CRASHED], 0, message);
}

/* The process is gone and everything it wrote has been read (or the wait
 * for that ran out): now its end can be told. */
static void
finish_exit (ZotExtension *self)
{
  /* Telling the end may drop the last reference to us (a failed load is
   * let go of by its manager), and this may run from the channel's own
   * signal: stay alive until done. */
  g_autoptr(ZotExtension) hold = g_object_ref (self);

  self->draining = FALSE;
  zot_clear_source (&self->drain_timeout);

  if (self->channel != NULL)
    zot_frame_channel_close (self->channel);

  if (self->init_task != NULL)
    {
      _zot_extension_finish_init (self,
                                  g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                                               self->got_hello
                                                 /* Translators: the extension's name, then how
                                                  * it ended, such as "exited with status 1" or
                                                  * "killed by signal 9 (Killed)"; "hello" is the
                                                  * first message of the extension protocol, keep
                                                  * it */
                                                 ? _("%s %s before it was ready")
                                                 : _("%s %s before saying hello"),
                                               self->name, self->exit_description));
    }
  else if (self->stopping)
    {
      _zot_extension_set_state (self, ZOT_EXTENSION_STATE_EXITED);
    }
  else
    {
      handle_crash (self, self->exit_description);
    }

  complete_stop_waiters (self);
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->drain_timeout, g_source_unref);
  zot_extension_log (self, "its output stayed open %u ms after it exited (a child of its own "
                     "may hold it); stopped reading",
                     zot_timeout_get_ms (ZOT_TIMEOUT_EXIT_DRAIN));
  finish_exit (self);
  return G_SOURCE_REMOVE;
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(ZotExtension) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_wait_finish (G_SUBPROCESS (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("%s: waiting for the process failed: %s", self->name, error->message);
      return;
    }

  self->exited = TRUE;
  self->exit_description = describe_exit (G_SUBPROCESS (object));
  zot_extension_log (self, "process %s", self->exit_description);
  _zot_extension_box_exited (self, G_SUBPROCESS (object));
  zot_clear_source (&self->ladder_timeout);
  zot_clear_source (&self->eof_timeout);

  /* What it started and left behind is nobody's any more. */
  if (self->group > 0 && kill (-self->group, SIGTERM) == 0)
    zot_extension_log (self, "ended the processes it left behind");

  /* A frame written just before the exit (shutdown_ack, a last notify)
   * may still be in the pipe: read to the end of the output first. The
   * exit can be noticed before the data is. */
  if (self->channel != NULL && !self->channel_closed)
    {
      self->draining = TRUE;
      self->drain_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_EXIT_DRAIN, drain_timeout_cb,
                                                        self, "[zot] drain after exit");
      return;
    }

  finish_exit (self);
}

/* Provider keys are for the provider: an extension gets one only when its
 * manifest asks for it by name and the user granted it. */
static void
pass_granted_keys (ZotExtension        *self,
                   GSubprocessLauncher *launcher)
{
  const char * const *asked = zot_manifest_get_env (self->manifest);
  g_auto(GStrv) granted = zot_key_grants_for (self->name);
  g_autoptr(GStrvBuilder) keep = g_strv_builder_new ();
  g_auto(GStrv) kept = NULL;

  for (guint i = 0; asked != NULL && asked[i] != NULL; i++)
    {
      g_autofree char *provider = NULL;
      const char *key;

      if (!zot_provider_is_key_variable (asked[i]))
        continue;
      if (!g_strv_contains ((const char * const *) granted, asked[i]))
        {
          zot_extension_log (self, "asks for $%s, which is not granted; grant it with "
                             "zot ext allow-key %s %s", asked[i], self->name, asked[i]);
          continue;
        }

      /* The key this host would use, from the environment or the keyring. */
      provider = g_ascii_strdown (asked[i], strlen (asked[i]) - strlen ("_API_KEY"));
      key = zot_provider_get_key (provider, NULL);
      if (key != NULL)
        g_subprocess_launcher_setenv (launcher, asked[i], key, TRUE);
      g_strv_builder_add (keep, asked[i]);
      zot_extension_log (self, "granted $%s", asked[i]);
    }

  kept = g_strv_builder_end (keep);
  zot_provider_scrub_environment (launcher, (const char * const *) kept);
}

/* Each extension leads a process group of its own (see setup_child()), so
 * that what it started ends with it: signals go to the whole group. */
static void
signal_group (ZotExtension *self,
              int           signum)
{
  if (self->group > 0 && kill (-self->group, signum) == 0)
    return;
  if (self->subprocess != NULL && !self->exited)
    g_subprocess_send_signal (self->subprocess, signum);
}

void
_zot_extension_kill_process (ZotExtension *self)
{
  if (self->subprocess != NULL && !self->exited)
    zot_flatpak_kill (self->subprocess, self->group);
}

static void
setup_child (gpointer user_data)
{
  /* Async-signal-safe, between fork and exec. */
  (void) setpgid (0, 0);
}

static gboolean
ladder_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->ladder_timeout, g_source_unref);

  if (self->exited || self->subprocess == NULL)
    return G_SOURCE_REMOVE;

  if (self->ladder_step == 0)
    {
      zot_extension_log (self, "did not exit within %u ms of shutdown; sending SIGTERM",
                         zot_timeout_get_ms (ZOT_TIMEOUT_SHUTDOWN_GRACE));
      self->ladder_step = 1;
      signal_group (self, SIGTERM);
      self->ladder_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_SIGTERM_GRACE, ladder_cb,
                                                         self, "[zot] sigterm grace");
    }
  else
    {
      zot_extension_log (self, "did not exit within %u ms of SIGTERM; sending SIGKILL",
                         zot_timeout_get_ms (ZOT_TIMEOUT_SIGTERM_GRACE));
      self->ladder_step = 2;
      zot_flatpak_kill (self->subprocess, self->group);
    }

  return G_SOURCE_REMOVE;
}

/* Ends a process that is of no more use. @polite starts with SIGTERM and
 * its grace; otherwise the caller already waited and SIGKILL follows. */
void
_zot_extension_terminate_process (ZotExtension *self,
                                  gboolean      polite)
{
  if (self->subprocess == NULL || self->exited || self->ladder_timeout != NULL)
    return;

  if (self->channel != NULL)
    zot_frame_channel_close (self->channel);

  if (polite)
    {
      zot_extension_log (self, "stopping the process: sending SIGTERM");
      self->ladder_step = 1;
      signal_group (self, SIGTERM);
      self->ladder_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_SIGTERM_GRACE, ladder_cb,
                                                         self, "[zot] sigterm grace");
    }
  else
    {
      self->ladder_step = 1;
      ladder_cb (self);
    }
}

static gboolean
eof_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->eof_timeout, g_source_unref);
  handle_crash (self, _("closed its output but kept running"));
  _zot_extension_terminate_process (self, TRUE);
  return G_SOURCE_REMOVE;
}

static void
on_channel_closed (ZotExtension    *self,
                   const GError    *error,
                   ZotFrameChannel *channel)
{
  self->channel_closed = TRUE;

  if (self->draining)
    {
      finish_exit (self);
      return;
    }

  if (error == NULL)
    return;

  if (self->stopping)
    return;

  if (self->init_task != NULL)
    {
      if (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED))
        {
          /* Most likely the process is exiting: let the exit watcher report
           * its status. The hello deadline still bounds the wait. */
          zot_extension_log (self, "%s", error->message);
          return;
        }
      _zot_extension_finish_init (self,
                                  g_error_new (ZOT_PROTOCOL_ERROR, error->code,
                                               "%s: %s", self->name, error->message));
      _zot_extension_terminate_process (self, TRUE);
      return;
    }

  if (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_CLOSED))
    {
      g_autoptr(GError) gone = NULL;

      if (self->exited)
        return;

      /* No reply can come any more: fail what waits now, and give the
       * process a moment to exit so that its status can be reported. */
      gone = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                          /* Translators: the extension's name; an error result of the calls it
                           * was running when it crashed */
                          _("%s stopped unexpectedly: it closed its output"), self->name);
      _zot_extension_fail_all_requests (self, gone);
      self->eof_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_SIGTERM_GRACE, eof_timeout_cb,
                                                      self, "[zot] exit after eof");
      return;
    }

  handle_crash (self, error->message);
  _zot_extension_terminate_process (self, TRUE);
}

static gboolean
hello_timeout_cb (gpointer user_data)
{
  ZotExtension *self = user_data;

  g_clear_pointer (&self->hello_timeout, g_source_unref);
  _zot_extension_finish_init (self,
                              g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_HANDSHAKE,
                                           self->channel_closed
                                             ? _("%s closed its output without saying hello")
                                             /* Translators: the extension's name, then a number
                                              * of seconds; "hello" is the first message of the
                                              * extension protocol, keep it */
                                             : _("%s did not say hello within %u s"),
                                           self->name,
                                           (zot_timeout_get_ms (ZOT_TIMEOUT_HELLO) + 999) / 1000));
  _zot_extension_terminate_process (self, TRUE);
  return G_SOURCE_REMOVE;
}

static int
open_log (ZotExtension  *self,
          GError       **error)
{
  g_autofree char *dir = g_path_get_dirname (self->log_path);
  int fd;

  if (g_mkdir_with_parents (dir, 0700) < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot create the log directory %s: %s"), dir, g_strerror (errsv));
      return -1;
    }

  fd = g_open (self->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot open the log %s: %s"), self->log_path, g_strerror (errsv));
    }

  return fd;
}

static void
write_header (ZotExtension *self,
              const char   *program)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format_iso8601 (now);
  g_autofree char *args = g_strjoinv (" ", (char **) zot_manifest_get_args (self->manifest));
  g_autofree char *header = NULL;

  header = g_strdup_printf ("\n=== %s: started by zot %s at %s: %s%s%s (in %s)\n",
                            self->name, PACKAGE_VERSION, stamp, program,
                            *args ? " " : "", args, self->directory);
  if (write (self->log_fd, header, strlen (header)) < 0)
    g_debug ("%s: cannot write to %s", self->name, self->log_path);
}

static void spawn (ZotExtension *self,
                   GTask        *task_);

static void
zot_extension_init_async (GAsyncInitable      *initable,
                          int                  io_priority,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  ZotExtension *self = ZOT_EXTENSION (initable);
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *program = NULL;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_init_async);

  if (self->state != ZOT_EXTENSION_STATE_STARTING || self->subprocess != NULL)
    {
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                               /* Translators: the extension's name, then its state, such as
                                * "ready" or "stopping" (not translated) */
                               _("%s cannot be started: it is %s"),
                               self->name, zot_extension_state_to_string (self->state));
      return;
    }

  self->log_fd = open_log (self, &error);
  if (self->log_fd < 0)
    {
      _zot_extension_set_last_error (self, error->message);
      _zot_extension_set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  program = zot_manifest_resolve_exec (self->manifest, &error);
  if (program == NULL)
    {
      zot_extension_log (self, "%s", error->message);
      _zot_extension_set_last_error (self, error->message);
      _zot_extension_set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  write_header (self, program);
  g_task_set_task_data (task, g_steal_pointer (&program), g_free);
  if (!_zot_extension_secrets_fetch (self, task, spawn))
    spawn (self, g_steal_pointer (&task));
}

/* Continues zot_extension_init_async() once the extension's secrets, if
 * it declares any, are at hand. */
static void
spawn (ZotExtension *self,
       GTask        *task_)
{
  g_autoptr(GTask) task = task_;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) box_env = NULL;
  g_autoptr(GError) error = NULL;
  const char *program = g_task_get_task_data (task);
  const char *identifier;
  int stderr_fd;

  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, program);
  g_strv_builder_addv (builder, (const char **) zot_manifest_get_args (self->manifest));
  argv = g_strv_builder_end (builder);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, setup_child, NULL, NULL);
  pass_granted_keys (self, launcher);
  stderr_fd = dup (self->log_fd);
  if (stderr_fd >= 0)
    g_subprocess_launcher_take_stderr_fd (launcher, stderr_fd);

  /* Inside Flatpak the extension runs on the host; the key variables go
   * along as set or unset here, the rest is the session's environment.
   * A built-in one is the app's own program, which only the sandbox has:
   * it runs there (the MCP bridge starts its servers on the host). */
  if (!_zot_extension_box_wrap (self, launcher, &argv, &box_env, &error))
    ;
  else if (self->scope == ZOT_EXTENSION_SCOPE_BUILTIN)
    {
      g_subprocess_launcher_set_cwd (launcher, self->directory);
      self->subprocess = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &error);
    }
  else
    self->subprocess = zot_flatpak_spawnv (launcher, self->directory,
                                           box_env != NULL ? (const char * const *) box_env
                                                           : zot_provider_table_get_key_variables (),
                                           (const char * const *) argv, &error);
  if (self->subprocess == NULL)
    {
      /* Translators: the extension's name, the program it runs, then the system's error message */
      g_autofree char *message = g_strdup_printf (_("%s: cannot start %s: %s"),
                                                  self->name, program, error->message);
      zot_extension_log (self, "%s", message);
      _zot_extension_set_last_error (self, message);
      _zot_extension_set_state (self, ZOT_EXTENSION_STATE_FAILED);
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_SPAWN, "%s", message);
      return;
    }

  self->init_task = g_steal_pointer (&task);
  /* GLib forgets the pid once its worker thread has reaped the child, and
   * a program that exits at once can get there first; such an extension is
   * gone before it could start anything worth signalling. */
  identifier = g_subprocess_get_identifier (self->subprocess);
  self->group = identifier != NULL ? (GPid) g_ascii_strtoll (identifier, NULL, 10) : 0;

  /* GSubprocess leaves its pipes blocking; a write to an extension that
   * does not read would then stop the main loop, deadline and all. */
  if (!g_unix_set_fd_nonblocking (g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (g_subprocess_get_stdin_pipe (self->subprocess))),
                                  TRUE, &error))
    g_debug ("%s: cannot make its input non-blocking: %s", self->name, error->message);
  g_clear_error (&error);

  self->channel = zot_frame_channel_new (g_subprocess_get_stdout_pipe (self->subprocess),
                                         g_subprocess_get_stdin_pipe (self->subprocess));
  zot_frame_channel_set_trace (self->channel, self->trace);
  _zot_extension_read_frames (self);
  g_signal_connect_object (self->channel, "closed", G_CALLBACK (on_channel_closed),
                           self, G_CONNECT_SWAPPED);

  g_subprocess_wait_async (self->subprocess, self->cancellable, wait_cb, g_object_ref (self));
  _zot_extension_box_started (self);

  self->hello_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_HELLO, hello_timeout_cb,
                                                    self, "[zot] hello deadline");
  zot_frame_channel_start (self->channel);
}

static gboolean
zot_extension_init_finish (GAsyncInitable  *initable,
                           GAsyncResult    *result,
                           GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, initable), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
_zot_extension_async_initable_iface_init (GAsyncInitableIface *iface)
{
  iface->init_async = zot_extension_init_async;
  iface->init_finish = zot_extension_init_finish;
}

/* Shutdown */

static void
stop_flushed_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(ZotExtension) self = user_data;
  g_autoptr(JsonObject) shutdown = NULL;
  g_autoptr(GError) error = NULL;

  if (!zot_frame_channel_flush_finish (ZOT_FRAME_CHANNEL (object), result, &error))
    {
      if (!self->exited)
        zot_extension_log (self, "could not drain queued frames before shutdown: %s", error->message);
      return;
    }

  if (self->exited)
    return;

  shutdown = json_object_new ();
  json_object_set_string_member (shutdown, "type", "shutdown");
  if (_zot_extension_send (self, shutdown, &error))
    zot_frame_channel_close_output (self->channel);
  else
    zot_extension_log (self, "could not send shutdown: %s", error->message);
}

/**
 * zot_extension_stop_async:
 *
 * Runs the shutdown ladder: drain queued frames and send `shutdown`, wait
 * for the exit within the grace, then SIGTERM, wait, SIGKILL. Completes when
 * the process has exited; never fails.
 */
void
zot_extension_stop_async (ZotExtension        *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) stopping = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_stop_async);

  if (self->subprocess == NULL || self->exited)
    {
      if (self->state != ZOT_EXTENSION_STATE_DISABLED &&
          self->state != ZOT_EXTENSION_STATE_FAILED &&
          self->state != ZOT_EXTENSION_STATE_NEEDS_APPROVAL)
        _zot_extension_set_state (self, ZOT_EXTENSION_STATE_EXITED);
      g_task_return_boolean (task, TRUE);
      return;
    }

  g_queue_push_tail (&self->stop_waiters, g_steal_pointer (&task));

  if (self->stopping)
    return;

  self->stopping = TRUE;
  zot_extension_log (self, "stopping");

  stopping = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_EXITED,
                          _("%s is shutting down"), self->name);
  if (self->init_task != NULL)
    _zot_extension_finish_init (self, g_error_copy (stopping));
  _zot_extension_fail_all_requests (self, stopping);

  if (self->state != ZOT_EXTENSION_STATE_FAILED)
    _zot_extension_set_state (self, ZOT_EXTENSION_STATE_STOPPING);

  if (self->ladder_timeout == NULL)
    {
      self->ladder_step = 0;
      self->ladder_timeout = _zot_extension_add_timeout (ZOT_TIMEOUT_SHUTDOWN_GRACE, ladder_cb,
                                                         self, "[zot] shutdown grace");
    }

  if (self->channel != NULL && !zot_frame_channel_is_closed (self->channel))
    zot_frame_channel_flush_async (self->channel, NULL, stop_flushed_cb, g_object_ref (self));
}

gboolean
zot_extension_stop_finish (ZotExtension  *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
