/* zot-session-write.c — appending to a session: the entries' lines and the
 * worker thread that writes and fsyncs them, in order.
 *
 * How the pieces fit:
 *
 * - The session lives on the main context that was the thread default when
 *   it was made; every method is called there and every callback runs there.
 * - Each write (append, compaction, flush) becomes a Job handed to a
 *   Writer, which is shared with one worker thread. The worker takes jobs
 *   in order, writes and fsyncs each, and hands them back; an idle on the
 *   session's context then completes them in the same order.
 * - For every job the session keeps a Pending in `inflight`, in the same
 *   order, holding the GTask (if any) to complete. A Pending whose task
 *   was cancelled stays in the queue with no task, so the two queues stay
 *   aligned.
 * - A job owns copies of its bytes and the worker holds its own reference
 *   to the Writer, so nothing queued depends on the session object staying
 *   alive: see zot_session_flush_async() for what that means at exit.
 * - The Writer keeps one descriptor of the file open, with its flock():
 *   from the load (or the first write of a new file) until the session is
 *   finalized and nothing is queued, whichever of the two comes last.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-json.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-session.h"
#include "zot-session-private.h"
#include "zot-source.h"

typedef enum
{
  JOB_WRITE,
  JOB_FLUSH,
} JobKind;

typedef struct
{
  JobKind  kind;
  GBytes  *data;    /* JOB_WRITE: whole lines, each ending in "\n" */
  GError  *error;   /* set by the worker */
} Job;

typedef struct
{
  GTask   *task;            /* NULL: no caller waits, or it was cancelled */
  GSource *cancel_source;
} Pending;

/* Jobs and the writer */

static Job *
job_new (JobKind  kind,
         GBytes  *data)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->data = data;
  return job;
}

static void
job_free (gpointer data)
{
  Job *job = data;

  g_clear_pointer (&job->data, g_bytes_unref);
  g_clear_error (&job->error);
  g_free (job);
}

Writer *
_zot_session_writer_new (const char *path)
{
  Writer *writer = g_new0 (Writer, 1);

  g_atomic_ref_count_init (&writer->ref_count);
  g_mutex_init (&writer->lock);
  writer->path = g_strdup (path);
  writer->fd = -1;
  writer->context = g_main_context_ref_thread_default ();
  g_queue_init (&writer->jobs);
  g_queue_init (&writer->done);
  return writer;
}

static Writer *
writer_ref (Writer *writer)
{
  g_atomic_ref_count_inc (&writer->ref_count);
  return writer;
}

/* Closing the descriptor lets the lock go. */
static void
writer_close (Writer *writer)
{
  if (writer->fd >= 0)
    {
      close (writer->fd);
      writer->fd = -1;
    }
}

static void
writer_unref (gpointer data)
{
  Writer *writer = data;

  if (!g_atomic_ref_count_dec (&writer->ref_count))
    return;

  g_assert (g_queue_is_empty (&writer->jobs));
  writer_close (writer);
  g_queue_clear_full (&writer->done, job_free);
  g_clear_error (&writer->failure);
  g_clear_pointer (&writer->context, g_main_context_unref);
  g_free (writer->path);
  g_mutex_clear (&writer->lock);
  g_free (writer);
}

void
_zot_session_set_write_error (GError     **error,
                              const char  *path,
                              int          errsv)
{
  g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_WRITE,
               _("cannot write the session %s: %s; the conversation goes on but is not saved from here"),
               path, g_strerror (errsv));
}

static void
set_locked_error (GError     **error,
                  const char  *path)
{
  g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED,
               _("the session %s is open in another zot process; close it there, "
                 "or use --no-session or a new session"), path);
}

/* Takes the one-writer lock on @fd for as long as it stays open. Only
 * another holder is an error: a file system without flock() leaves the
 * file unlocked, as it always was. flock() locks belong to the open file,
 * so a second open() in this same process is another holder too. Only
 * regular files are transcripts to guard: many may write to /dev/null. */
gboolean
_zot_session_lock_file (int          fd,
                        const char  *path,
                        GError     **error)
{
  struct stat st;

  if (fstat (fd, &st) == 0 && !S_ISREG (st.st_mode))
    return TRUE;

  while (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      if (errno == EINTR)
        continue;
      if (errno == EWOULDBLOCK)
        {
          set_locked_error (error, path);
          return FALSE;
        }
      g_debug ("cannot lock %s (%s); going on without the lock", path, g_strerror (errno));
      break;
    }

  return TRUE;
}

/* Runs on the worker thread, before the first write of a session that
 * had no file when it was made: creates the file and locks it. A file
 * that another process made and wrote meanwhile is not ours to add to. */
static gboolean
writer_open_new (Writer  *writer,
                 GError **error)
{
  g_autofree char *dir = g_path_get_dirname (writer->path);
  gboolean created;
  struct stat st;
  int fd;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      _zot_session_set_write_error (error, writer->path, errno);
      return FALSE;
    }

  created = g_stat (writer->path, &st) != 0 && errno == ENOENT;

  fd = open (writer->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      _zot_session_set_write_error (error, writer->path, errno);
      return FALSE;
    }

  if (!_zot_session_lock_file (fd, writer->path, error))
    {
      close (fd);
      return FALSE;
    }

  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0 && !created)
    {
      close (fd);
      g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED,
                   _("the session %s was started by another zot process meanwhile; "
                     "use --no-session or a new session"), writer->path);
      return FALSE;
    }

  writer->fd = fd;
  if (created)
    (void) zot_fsync_directory (dir);
  return TRUE;
}

/* Runs on the worker thread. Writes @data at the end of the file and
 * fsyncs; on any failure, cuts the file back to the length it had before
 * so that no partial line stays behind. */
static gboolean
write_lines (int          fd,
             const char  *path,
             GBytes      *data,
             GError     **error)
{
  const guint8 *buf;
  gsize len;
  gsize written = 0;
  struct stat st;
  int errsv = 0;

  if (fstat (fd, &st) != 0)
    {
      _zot_session_set_write_error (error, path, errno);
      return FALSE;
    }

  buf = g_bytes_get_data (data, &len);
  while (written < len)
    {
      ssize_t n = write (fd, buf + written, len - written);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          errsv = n < 0 ? errno : EIO;
          break;
        }
      written += (gsize) n;
    }

  /* fsync on a device such as /dev/null says EINVAL: nothing to sync. */
  if (errsv == 0 && fsync (fd) != 0 && errno != EINVAL)
    errsv = errno;

  if (errsv != 0)
    {
      if (S_ISREG (st.st_mode) && written > 0)
        {
          if (ftruncate (fd, st.st_size) == 0)
            fsync (fd);
          else
            g_debug ("could not cut %s back to %" G_GINT64_FORMAT " bytes: %s",
                     path, (gint64) st.st_size, g_strerror (errno));
        }
      _zot_session_set_write_error (error, path, errsv);
      return FALSE;
    }

  return TRUE;
}

static void session_deliver (ZotSession *self,
                             GQueue     *done);

/* Runs on the session's context. Jobs that finish while it delivers are
 * delivered in the same dispatch, and no other delivery is scheduled
 * meanwhile, so completions cannot overtake each other. */
static gboolean
writer_deliver_cb (gpointer data)
{
  Writer *writer = data;
  ZotSession *self;

  g_mutex_lock (&writer->lock);
  self = writer->owner;
  /* finalize (on this same context) clears owner, so a non-NULL owner is
   * alive here; hold it while callbacks may drop other references. */
  if (self != NULL)
    g_object_ref (self);

  while (!g_queue_is_empty (&writer->done))
    {
      GQueue done = writer->done;

      g_queue_init (&writer->done);
      g_mutex_unlock (&writer->lock);

      if (self != NULL)
        session_deliver (self, &done);
      g_queue_clear_full (&done, job_free);

      g_mutex_lock (&writer->lock);
    }

  writer->delivery_scheduled = FALSE;
  g_mutex_unlock (&writer->lock);

  g_clear_object (&self);
  return G_SOURCE_REMOVE;
}

/* Runs on the worker thread, without the writer's lock held. */
static void
writer_do (Writer *writer,
           Job    *job)
{
  if (job->error != NULL || job->kind != JOB_WRITE)
    return;

  if ((writer->fd < 0 && !writer_open_new (writer, &job->error)) ||
      !write_lines (writer->fd, writer->path, job->data, &job->error))
    {
      g_mutex_lock (&writer->lock);
      if (writer->failure == NULL)
        writer->failure = g_error_copy (job->error);
      g_mutex_unlock (&writer->lock);
    }
}

/* Runs on the worker thread, with the writer's lock held. */
static void
writer_hand_back (Writer *writer,
                  Job    *job)
{
  GSource *source;

  if (writer->owner == NULL)
    {
      /* The session is gone; the data is written, nobody waits. */
      job_free (job);
      return;
    }

  g_queue_push_tail (&writer->done, job);
  if (writer->delivery_scheduled)
    return;

  source = g_idle_source_new ();
  writer->delivery_scheduled = TRUE;
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, writer_deliver_cb, writer_ref (writer), writer_unref);
  g_source_set_static_name (source, "[zot] session write done");
  g_source_attach (source, writer->context);
  g_source_unref (source);
}

static gpointer
writer_thread (gpointer data)
{
  Writer *writer = data;
  gboolean more = TRUE;

  while (more)
    {
      Job *job;

      g_mutex_lock (&writer->lock);
      job = g_queue_pop_head (&writer->jobs);
      g_assert (job != NULL);
      if (writer->failure != NULL)
        job->error = g_error_copy (writer->failure);
      g_mutex_unlock (&writer->lock);

      writer_do (writer, job);

      /* Stopping in the same step as handing the last job back: by the
       * time its callback runs, this thread is done with the file, so a
       * session finalized then lets the lock go at once. */
      g_mutex_lock (&writer->lock);
      writer_hand_back (writer, job);
      more = !g_queue_is_empty (&writer->jobs);
      if (!more)
        {
          writer->running = FALSE;
          if (writer->owner == NULL)
            writer_close (writer);
        }
      g_mutex_unlock (&writer->lock);
    }

  writer_unref (writer);
  return NULL;
}

static void
writer_push (Writer *writer,
             Job    *job)
{
  gboolean start;

  g_mutex_lock (&writer->lock);
  g_queue_push_tail (&writer->jobs, job);
  start = !writer->running;
  writer->running = TRUE;
  g_mutex_unlock (&writer->lock);

  /* One thread at a time per session keeps the order; it exits when the
   * queue runs dry and the next push starts another. */
  if (start)
    g_thread_unref (g_thread_new ("zot-session", writer_thread, writer_ref (writer)));
}

/* Pending operations, on the session's context */

static void
pending_free (Pending *pending)
{
  zot_clear_source (&pending->cancel_source);
  g_clear_object (&pending->task);
  g_free (pending);
}

/* Cancelling stops the wait, not the write: the entry is already in the
 * transcript and stays queued so that the file keeps the same order. */
static gboolean
pending_cancelled_cb (GCancellable *cancellable,
                      gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GTask) task = g_steal_pointer (&pending->task);

  g_clear_pointer (&pending->cancel_source, g_source_unref);
  if (task != NULL)
    g_task_return_error_if_cancelled (task);

  return G_SOURCE_REMOVE;
}

static void
session_deliver (ZotSession *self,
                 GQueue     *done)
{
  Job *job;

  while ((job = g_queue_pop_head (done)) != NULL)
    {
      Pending *pending = g_queue_pop_head (&self->inflight);

      g_assert (pending != NULL);

      if (job->error != NULL && self->write_error == NULL)
        self->write_error = g_error_copy (job->error);

      if (pending->task != NULL)
        {
          g_autoptr(GTask) task = g_steal_pointer (&pending->task);

          if (job->error != NULL)
            g_task_return_error (task, g_error_copy (job->error));
          else
            g_task_return_boolean (task, TRUE);
        }

      pending_free (pending);
      job_free (job);
    }
}

/* Completes @task without the writer thread when there is nothing it
 * could do: no file (nothing to write), or a write failed before with no
 * job in flight, so failing now, ahead of the queue, keeps the order. */
static gboolean
session_return_early (ZotSession *self,
                      GTask      *task)
{
  g_assert (ZOT_IS_SESSION (self));
  g_assert (G_IS_TASK (task));

  if (self->writer == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return TRUE;
    }

  if (self->write_error != NULL && g_queue_is_empty (&self->inflight))
    {
      g_task_return_error (task, g_error_copy (self->write_error));
      return TRUE;
    }

  return FALSE;
}

static void
session_submit (ZotSession *self,
                JobKind     kind,
                GString    *lines,
                GTask      *task)
{
  Pending *pending = g_new0 (Pending, 1);
  GBytes *data = NULL;

  g_assert (self->writer != NULL);

  if (kind == JOB_WRITE)
    {
      g_assert (lines != NULL);
      data = g_string_free_to_bytes (lines);
    }

  if (task != NULL)
    {
      GCancellable *cancellable = g_task_get_cancellable (task);

      pending->task = g_object_ref (task);
      if (cancellable != NULL)
        {
          pending->cancel_source = g_cancellable_source_new (cancellable);
          g_source_set_callback (pending->cancel_source, G_SOURCE_FUNC (pending_cancelled_cb),
                                 pending, NULL);
          g_source_attach (pending->cancel_source, self->context);
        }
    }

  g_queue_push_tail (&self->inflight, pending);
  writer_push (self->writer, job_new (kind, data));
}

/* Entries */

void
_zot_session_append_line (GString    *lines,
                          JsonObject *entry)
{
  g_autofree char *text = zot_json_object_to_string (entry);

  /* The generator escapes control characters inside strings, so one entry
   * is always one line. */
  g_string_append (lines, text);
  g_string_append_c (lines, '\n');
}

/* A file's first line, created now; the caller adds what else it says. */
JsonObject *
_zot_session_header_new (const char *id,
                         const char *cwd)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *created = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  JsonObject *header = json_object_new ();

  json_object_set_string_member (header, "type", "session");
  json_object_set_int_member (header, "version", ZOT_SESSION_VERSION);
  json_object_set_string_member (header, "id", id);
  json_object_set_string_member (header, "cwd", cwd);
  json_object_set_string_member (header, "created", created);
  return header;
}

static JsonObject *
make_header (ZotSession *self)
{
  JsonObject *header = _zot_session_header_new (self->id, self->cwd);

  if (self->continuous)
    json_object_set_string_member (header, "mode", "continuous");
  return header;
}

static JsonObject *
message_entry (JsonObject *message)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "type", "message");
  json_object_set_object_member (entry, "message", json_object_ref (message));
  return entry;
}

/* What goes before the next entry: the end of a torn last line, the
 * header of a new file, and the results that loading made up for calls
 * at the end. */
static GString *
start_lines (ZotSession *self)
{
  GString *lines = g_string_new (NULL);

  if (self->need_newline)
    {
      g_string_append_c (lines, '\n');
      self->need_newline = FALSE;
    }

  if (self->need_header)
    {
      g_autoptr(JsonObject) header = make_header (self);

      _zot_session_append_line (lines, header);
      self->need_header = FALSE;
    }

  if (self->unsaved != NULL)
    {
      g_autoptr(JsonObject) entry = message_entry (self->unsaved);

      _zot_session_append_line (lines, entry);
      g_clear_pointer (&self->unsaved, json_object_unref);
    }

  return lines;
}

/* The session is finalized: what is queued is still written, by the
 * worker, without it. */
void
_zot_session_stop_writing (ZotSession *self)
{
  Pending *pending;

  if (self->writer != NULL)
    {
      g_mutex_lock (&self->writer->lock);
      self->writer->owner = NULL;
      g_queue_clear_full (&self->writer->done, job_free);
      /* With nothing queued the file is free at once; otherwise the
       * worker lets it go after the last write. */
      if (!self->writer->running)
        writer_close (self->writer);
      g_mutex_unlock (&self->writer->lock);
      g_clear_pointer (&self->writer, writer_unref);
    }

  /* Only task-less jobs (compactions, cancelled appends) can be left. */
  while ((pending = g_queue_pop_head (&self->inflight)) != NULL)
    pending_free (pending);
}

/* API */

/**
 * zot_session_append_async:
 * @self: a #ZotSession
 * @entry: an entry with a string "type" ("message" entries need a "message" object)
 * @cancellable: (nullable): stops the wait, not the write
 * @callback: (nullable): called once the entry is on disk (fsynced)
 * @user_data: data for @callback
 *
 * Adds @entry to the transcript now and queues its line. Callbacks run on
 * the session's context in the order of the appends. After a write error
 * every later append fails with the same %ZOT_SESSION_ERROR_WRITE, while
 * the in-memory transcript goes on.
 */
void
zot_session_append_async (ZotSession          *self,
                          JsonObject          *entry,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  GString *lines;

  g_return_if_fail (ZOT_IS_SESSION (self));
  g_return_if_fail (entry != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_session_append_async);

  if (!_zot_session_check_entry (entry, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (self->read_only)
    {
      g_task_return_new_error (task, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_READ_ONLY,
                               _("the session %s is open read-only here, so nothing can be added "
                                 "to it; start a new conversation (/new) to go on"), self->path);
      return;
    }

  _zot_session_apply_entry (self, entry);

  if (session_return_early (self, task))
    return;

  lines = start_lines (self);
  _zot_session_append_line (lines, entry);

  session_submit (self, JOB_WRITE, lines, task);
}

gboolean
zot_session_append_finish (ZotSession    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * zot_session_append_message_async:
 *
 * Appends `{"type":"message","message":@message}`; finish it with
 * zot_session_append_finish().
 */
void
zot_session_append_message_async (ZotSession          *self,
                                  JsonObject          *message,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(JsonObject) entry = NULL;

  g_return_if_fail (ZOT_IS_SESSION (self));
  g_return_if_fail (message != NULL);

  zot_message_stamp_time (message);
  entry = message_entry (message);
  zot_session_append_async (self, entry, cancellable, callback, user_data);
}

/**
 * zot_session_replace_messages:
 * @self: a #ZotSession
 * @messages: (element-type JsonObject): the new transcript
 *
 * After a compaction: the transcript becomes @messages, and one write
 * queues `{"type":"compaction","summary":<text of the first message>,
 * "message_count":<length of @messages>}` followed by @messages, so that a
 * resume rebuilds the same transcript. A write error shows up in the next
 * append.
 */
void
zot_session_replace_messages (ZotSession *self,
                              GPtrArray  *messages)
{
  g_autoptr(JsonObject) compaction = NULL;
  g_autofree char *summary = NULL;
  GString *lines;

  g_return_if_fail (ZOT_IS_SESSION (self));
  g_return_if_fail (messages != NULL);

  g_ptr_array_set_size (self->messages, 0);
  for (guint i = 0; i < messages->len; i++)
    g_ptr_array_add (self->messages, json_object_ref (g_ptr_array_index (messages, i)));

  /* Results mended at load are gone with what they answered. */
  g_clear_pointer (&self->unsaved, json_object_unref);

  if (self->writer == NULL)
    return;

  if (messages->len > 0)
    summary = zot_message_get_text (g_ptr_array_index (messages, 0));
  else
    summary = g_strdup ("");
  compaction = json_object_new ();
  json_object_set_string_member (compaction, "type", "compaction");
  json_object_set_string_member (compaction, "summary", summary);
  json_object_set_int_member (compaction, "message_count", messages->len);

  lines = start_lines (self);
  _zot_session_append_line (lines, compaction);
  for (guint i = 0; i < messages->len; i++)
    {
      g_autoptr(JsonObject) entry = message_entry (g_ptr_array_index (messages, i));

      _zot_session_append_line (lines, entry);
    }

  /* After a write error the worker fails this at once. */
  session_submit (self, JOB_WRITE, lines, NULL);
}

/**
 * zot_session_flush_async:
 * @self: a #ZotSession
 * @cancellable: (nullable): stops the wait, not the writes
 * @callback: called once everything queued before this call is on disk
 * @user_data: data for @callback
 *
 * Fails with the %ZOT_SESSION_ERROR_WRITE if a write failed. Queued
 * writes are never dropped: each owns a copy of its bytes and the worker
 * thread keeps its own reference to the queue, so they are written even
 * after the session is finalized. They cannot outlive the process,
 * though: flush (with a deadline) before exiting.
 */
void
zot_session_flush_async (ZotSession          *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ZOT_IS_SESSION (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_session_flush_async);

  if (session_return_early (self, task))
    return;

  session_submit (self, JOB_FLUSH, NULL, task);
}

gboolean
zot_session_flush_finish (ZotSession    *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
