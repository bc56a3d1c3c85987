/* zot-session.c — one conversation's transcript on disk.
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
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-session.h"

#define SESSION_VERSION          1
#define SESSION_MAX_FILE_BYTES   ((goffset) 256 * 1024 * 1024)
#define CWD_KEY_MAX_BYTES        120
#define CWD_KEY_HASH_CHARS       12

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

/* Shared by the session (on its context) and the worker thread. */
typedef struct
{
  gatomicrefcount  ref_count;
  GMutex           lock;
  char            *path;
  int              fd;                  /* the file, locked; -1 until opened */
  GMainContext    *context;
  GQueue           jobs;                /* Job *, waiting for the worker */
  GQueue           done;                /* Job *, written, waiting for delivery */
  gboolean         running;             /* a worker thread is draining `jobs` */
  gboolean         delivery_scheduled;
  GError          *failure;             /* the first write error; never cleared */
  gpointer         owner;               /* the ZotSession; NULL once finalized */
} Writer;

typedef struct
{
  GTask   *task;            /* NULL: no caller waits, or it was cancelled */
  GSource *cancel_source;
} Pending;

struct _ZotSession
{
  GObject        parent_instance;

  char          *id;
  char          *path;          /* NULL when in memory */
  char          *cwd;
  GPtrArray     *messages;      /* JsonObject */
  GPtrArray     *warnings;      /* char *, NULL-terminated */
  GMainContext  *context;
  Writer        *writer;        /* NULL when in memory */
  GQueue         inflight;      /* Pending *, one per job given to the writer, in order */
  GError        *write_error;   /* as the session's context has learnt it */
  JsonObject    *unsaved;       /* results made up at load, written with the next entry */
  gboolean       need_header;
  gboolean       read_only;
};

G_DEFINE_FINAL_TYPE (ZotSession, zot_session, G_TYPE_OBJECT)

G_DEFINE_QUARK (zot-session-error-quark, zot_session_error)

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

static Writer *
writer_new (const char *path)
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

static void
replace_str (char       **slot,
             const char  *value)
{
  char *copy = g_strdup (value);

  g_free (*slot);
  *slot = copy;
}

static void
set_write_error (GError     **error,
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
static gboolean
lock_file (int          fd,
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

static void
fsync_directory (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  /* Best effort: makes a new file's name as durable as its contents. */
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
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
      set_write_error (error, writer->path, errno);
      return FALSE;
    }

  created = g_stat (writer->path, &st) != 0 && errno == ENOENT;

  fd = open (writer->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      set_write_error (error, writer->path, errno);
      return FALSE;
    }

  if (!lock_file (fd, writer->path, error))
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
    fsync_directory (dir);
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
      set_write_error (error, path, errno);
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
      set_write_error (error, path, errsv);
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
  if (pending->cancel_source != NULL)
    {
      g_source_destroy (pending->cancel_source);
      g_clear_pointer (&pending->cancel_source, g_source_unref);
    }
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

static char *
make_id (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");

  return g_strdup_printf ("%s-%06x", stamp, g_random_int () & 0xffffff);
}

static char *
canonical_cwd (const char *cwd)
{
  g_autofree char *absolute = g_canonicalize_filename (cwd != NULL ? cwd : ".", NULL);
  char *real = realpath (absolute, NULL);
  char *result;

  if (real == NULL)
    return g_steal_pointer (&absolute);

  result = g_strdup (real);
  free (real);
  return result;
}

/* "/work/main" → "-work-main": '/' becomes '-', bytes other than
 * [A-Za-z0-9._+,=@~-] are escaped as %XX, and a key over
 * CWD_KEY_MAX_BYTES keeps its start and ends in a hash of the whole path.
 * "/a/b-c" and "/a-b/c" share a key (and so a directory); the cwd in each
 * header keeps them apart, see zot_session_find_latest(). */
static char *
cwd_key (const char *canonical)
{
  GString *key = g_string_new (NULL);

  for (const char *p = canonical; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '/')
        g_string_append_c (key, '-');
      else if (g_ascii_isalnum (c) || strchr ("._+,=@~-", c) != NULL)
        g_string_append_c (key, c);
      else
        g_string_append_printf (key, "%%%02X", c);
    }

  if (key->len > CWD_KEY_MAX_BYTES)
    {
      g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
      gsize keep = CWD_KEY_MAX_BYTES - 1 - CWD_KEY_HASH_CHARS;

      /* Do not cut an escape in half. */
      if (key->str[keep - 1] == '%')
        keep -= 1;
      else if (key->str[keep - 2] == '%')
        keep -= 2;

      g_string_truncate (key, keep);
      g_string_append_c (key, '-');
      g_string_append_len (key, hash, CWD_KEY_HASH_CHARS);
    }

  return g_string_free (key, FALSE);
}

static void
append_line (GString    *lines,
             JsonObject *entry)
{
  g_autofree char *text = zot_json_object_to_string (entry);

  /* The generator escapes control characters inside strings, so one entry
   * is always one line. */
  g_string_append (lines, text);
  g_string_append_c (lines, '\n');
}

static JsonObject *
make_header (ZotSession *self)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *created = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  JsonObject *header = json_object_new ();

  json_object_set_string_member (header, "type", "session");
  json_object_set_int_member (header, "version", SESSION_VERSION);
  json_object_set_string_member (header, "id", self->id);
  json_object_set_string_member (header, "cwd", self->cwd);
  json_object_set_string_member (header, "created", created);
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

/* What goes before the next entry: the header of a new file, and the
 * results that loading made up for calls at the end. */
static GString *
start_lines (ZotSession *self)
{
  GString *lines = g_string_new (NULL);

  if (self->need_header)
    {
      g_autoptr(JsonObject) header = make_header (self);

      append_line (lines, header);
      self->need_header = FALSE;
    }

  if (self->unsaved != NULL)
    {
      g_autoptr(JsonObject) entry = message_entry (self->unsaved);

      append_line (lines, entry);
      g_clear_pointer (&self->unsaved, json_object_unref);
    }

  return lines;
}

static gboolean
check_message (JsonObject  *message,
               GError     **error)
{
  JsonNode *role = json_object_get_member (message, "role");
  JsonNode *content = json_object_get_member (message, "content");

  if (role == NULL || !JSON_NODE_HOLDS_VALUE (role) ||
      json_node_get_value_type (role) != G_TYPE_STRING ||
      content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("a message needs a \"role\" and a \"content\" array"));
      return FALSE;
    }

  return TRUE;
}

static gboolean
check_entry (JsonObject  *entry,
             GError     **error)
{
  JsonNode *type = json_object_get_member (entry, "type");

  if (type == NULL || !JSON_NODE_HOLDS_VALUE (type) ||
      json_node_get_value_type (type) != G_TYPE_STRING)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("the entry has no \"type\""));
      return FALSE;
    }

  if (g_strcmp0 (json_node_get_string (type), "message") == 0)
    {
      JsonNode *message = json_object_get_member (entry, "message");

      if (message == NULL || !JSON_NODE_HOLDS_OBJECT (message))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("a \"message\" entry needs a \"message\" object"));
          return FALSE;
        }
      return check_message (json_node_get_object (message), error);
    }

  return TRUE;
}

/* What an entry does to the transcript, the same on load and on append.
 * Unknown types are left to whoever wrote them. */
static void
apply_entry (ZotSession *self,
             JsonObject *entry)
{
  const char *type = json_object_get_string_member (entry, "type");

  if (g_str_equal (type, "message"))
    g_ptr_array_add (self->messages,
                     json_object_ref (json_object_get_object_member (entry, "message")));
  else if (g_str_equal (type, "compaction"))
    g_ptr_array_set_size (self->messages, 0);
}

static void
add_warning (ZotSession *self,
             char       *warning)
{
  g_debug ("%s", warning);
  g_ptr_array_add (self->warnings, warning);
}

static void
add_torn_warning (ZotSession *self,
                  gsize       bytes)
{
  add_warning (self, g_strdup_printf (_("dropped a torn last line (%" G_GSIZE_FORMAT " bytes) of %s"),
                                      bytes, self->path));
}

/* Repairs at load
 *
 * A transcript a provider takes answers each assistant message that calls
 * tools with one "tool" message right after it, holding a result for
 * every call in the same order. A host that died between the two, or a
 * line skipped as damaged, breaks that; loading mends it in memory. */

/* What loading skipped and mended, for its warnings. */
typedef struct
{
  guint    skipped;
  GString *skipped_lines;   /* the first few line numbers: "3, 9" */
  guint    interrupted;
} LoadReport;

static void
load_report_clear (LoadReport *report)
{
  if (report->skipped_lines != NULL)
    g_string_free (report->skipped_lines, TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LoadReport, load_report_clear)

static const char *
block_get_type (JsonNode *block)
{
  if (!JSON_NODE_HOLDS_OBJECT (block))
    return NULL;
  return zot_json_get_string (json_node_get_object (block), "type");
}

/* The tool_use blocks of @message (a JsonNode * each), if it is an
 * assistant message that calls tools; NULL otherwise. */
static GPtrArray *
get_tool_calls (JsonObject *message)
{
  g_autoptr(GPtrArray) calls = g_ptr_array_new ();
  JsonArray *content;

  if (g_strcmp0 (zot_message_get_role (message), "assistant") != 0)
    return NULL;

  content = zot_json_get_array (message, "content");
  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *block = json_array_get_element (content, i);

      if (g_strcmp0 (block_get_type (block), "tool_use") == 0)
        g_ptr_array_add (calls, block);
    }

  return calls->len > 0 ? g_steal_pointer (&calls) : NULL;
}

/* The result in @results (a "tool" message, or NULL) for the call @id,
 * and where it is. */
static JsonNode *
find_result (JsonObject *results,
             const char *id,
             guint      *index)
{
  JsonArray *content;

  if (results == NULL || id == NULL)
    return NULL;

  content = zot_json_get_array (results, "content");
  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *block = json_array_get_element (content, i);

      if (g_strcmp0 (block_get_type (block), "tool_result") == 0 &&
          g_strcmp0 (zot_json_get_string (json_node_get_object (block), "tool_use_id"), id) == 0)
        {
          *index = i;
          return block;
        }
    }

  return NULL;
}

static JsonNode *
new_interrupted_result (JsonObject *call)
{
  const char *id = zot_json_get_string (call, "id");
  const char *name = zot_json_get_string (call, "name");
  g_autofree char *text = NULL;
  JsonObject *block = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  if (id == NULL)
    id = "";
  if (name == NULL)
    name = "?";
  text = g_strdup_printf (_("The call of %s was interrupted: "
                            "the host stopped before it finished."), name);

  json_object_set_string_member (block, "type", "tool_result");
  json_object_set_string_member (block, "tool_use_id", id);
  json_object_set_boolean_member (block, "is_error", TRUE);
  json_object_set_boolean_member (block, "interrupted", TRUE);
  json_object_set_array_member (block, "content", zot_content_new_text (text));
  json_node_take_object (node, block);
  return node;
}

/* The "tool" message that answers every call in @calls, in order: @results
 * itself when it already does, or else one that keeps each of its results
 * that answers a call and marks the other calls interrupted. */
static JsonObject *
answer_calls (GPtrArray  *calls,
              JsonObject *results,
              guint      *interrupted)
{
  g_autoptr(JsonArray) answers = json_array_new ();
  gboolean as_is = results != NULL;
  JsonObject *message;

  for (guint i = 0; i < calls->len; i++)
    {
      JsonObject *call = json_node_get_object (g_ptr_array_index (calls, i));
      const char *id = zot_json_get_string (call, "id");
      guint index = G_MAXUINT;
      JsonNode *answer = find_result (results, id, &index);

      if (answer != NULL)
        json_array_add_element (answers, json_node_copy (answer));
      else
        {
          json_array_add_element (answers, new_interrupted_result (call));
          (*interrupted)++;
        }
      as_is = as_is && index == i;
    }

  if (as_is && json_array_get_length (zot_json_get_array (results, "content")) == calls->len)
    return json_object_ref (results);

  message = json_object_new ();
  json_object_set_string_member (message, "role", "tool");
  json_object_set_array_member (message, "content", g_steal_pointer (&answers));
  return message;
}

/* The calls of the last message of the transcript: they wait for results. */
static GPtrArray *
get_waiting_calls (ZotSession *self)
{
  if (self->messages->len == 0)
    return NULL;
  return get_tool_calls (g_ptr_array_index (self->messages, self->messages->len - 1));
}

static void
report_skipped (LoadReport *report,
                guint       line_no)
{
  report->skipped++;
  if (report->skipped > ZOT_SESSION_SKIPPED_LINES_NAMED + 1)
    return;

  if (report->skipped_lines == NULL)
    report->skipped_lines = g_string_new (NULL);
  else
    g_string_append (report->skipped_lines, ", ");
  if (report->skipped > ZOT_SESSION_SKIPPED_LINES_NAMED)
    g_string_append (report->skipped_lines, "…");
  else
    g_string_append_printf (report->skipped_lines, "%u", line_no);
}

/* Adds a loaded message, mending the order of calls and results: a tool
 * message with no calls before it has nothing to answer and is skipped;
 * calls that the next message does not answer are marked interrupted. */
static void
load_message (ZotSession *self,
              JsonObject *message,
              guint       line_no,
              LoadReport *report)
{
  g_autoptr(GPtrArray) calls = get_waiting_calls (self);
  gboolean is_results = g_strcmp0 (zot_message_get_role (message), "tool") == 0;

  if (is_results && calls == NULL)
    {
      report_skipped (report, line_no);
      return;
    }

  if (calls != NULL)
    {
      g_autoptr(JsonObject) answers = answer_calls (calls, is_results ? message : NULL,
                                                    &report->interrupted);

      g_ptr_array_add (self->messages, g_steal_pointer (&answers));
      if (is_results)
        return;
    }

  g_ptr_array_add (self->messages, json_object_ref (message));
}

/* Calls left waiting at the end: the host died before their results were
 * written. A read-only session leaves them: the process that holds the
 * file may still be running them. Otherwise the made-up results go into
 * the file with the next entry, so the file itself is whole again from
 * there and the next load has nothing to mend. */
static void
answer_last_calls (ZotSession *self,
                   LoadReport *report)
{
  g_autoptr(GPtrArray) calls = get_waiting_calls (self);
  JsonObject *answers;

  if (calls == NULL || self->read_only)
    return;

  answers = answer_calls (calls, NULL, &report->interrupted);
  g_ptr_array_add (self->messages, answers);
  self->unsaved = json_object_ref (answers);
}

static void
add_load_warnings (ZotSession *self,
                   LoadReport *report)
{
  if (report->skipped > 0)
    add_warning (self, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                     "skipped %u damaged or misplaced line of the session %s "
                                                     "(line %s); the rest was loaded",
                                                     "skipped %u damaged or misplaced lines of the session %s "
                                                     "(lines %s); the rest was loaded",
                                                     report->skipped),
                                        report->skipped, self->path, report->skipped_lines->str));

  if (report->interrupted > 0)
    add_warning (self, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                     "%u tool call in the session %s had no result, "
                                                     "as zot stopped before it finished; it is marked interrupted",
                                                     "%u tool calls in the session %s had no result, "
                                                     "as zot stopped before they finished; they are marked interrupted",
                                                     report->interrupted),
                                        report->interrupted, self->path));
}

/* Loading */

static gboolean
read_file_bounded (const char  *path,
                   char       **contents,
                   gsize       *length,
                   GError     **error)
{
  g_autofree char *data = NULL;
  struct stat st;
  gsize size;
  gsize got = 0;
  int errsv;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot read the session %s: %s"), path, g_strerror (errsv));
      return FALSE;
    }

  if (fstat (fd, &st) != 0)
    {
      errsv = errno;
      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot read the session %s: %s"), path, g_strerror (errsv));
      return FALSE;
    }

  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("cannot read the session %s: not a regular file"), path);
      return FALSE;
    }

  if (st.st_size > SESSION_MAX_FILE_BYTES)
    {
      close (fd);
      g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_TOO_LARGE,
                   _("the session %s is too large to open (%" G_GINT64_FORMAT " MiB; the limit is %d MiB)"),
                   path, (gint64) (st.st_size / (1024 * 1024)),
                   (int) (SESSION_MAX_FILE_BYTES / (1024 * 1024)));
      return FALSE;
    }

  /* Read to the end, in case the file grew since fstat(), up to the cap. */
  size = (gsize) st.st_size;
  data = g_malloc (size + 1);
  for (;;)
    {
      ssize_t n;

      if (got == size)
        {
          if (size >= (gsize) SESSION_MAX_FILE_BYTES)
            {
              close (fd);
              g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_TOO_LARGE,
                           _("the session %s is too large to open (the limit is %d MiB)"),
                           path, (int) (SESSION_MAX_FILE_BYTES / (1024 * 1024)));
              return FALSE;
            }
          size = MIN (MAX (size * 2, 4096), (gsize) SESSION_MAX_FILE_BYTES);
          data = g_realloc (data, size + 1);
        }

      n = read (fd, data + got, size - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          errsv = errno;
          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("cannot read the session %s: %s"), path, g_strerror (errsv));
          return FALSE;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  close (fd);

  data[got] = '\0';
  *contents = g_steal_pointer (&data);
  *length = got;
  return TRUE;
}

/* Makes the session read-only from here on, as a failed write does. */
static void
fail_writes (ZotSession *self,
             int         errsv)
{
  g_autoptr(GError) error = NULL;

  if (self->write_error != NULL)
    return;

  set_write_error (&error, self->path, errsv);
  self->write_error = g_error_copy (error);
  self->writer->failure = g_steal_pointer (&error);
}

/* Opens the file of a session to resume and takes its lock before it is
 * read, so that what is read is what this session goes on from. A file
 * this process may not write is locked through a read-only descriptor,
 * and the session cannot write from the start, as after a failed write. */
static gboolean
lock_for_load (ZotSession  *self,
               GError     **error)
{
  int fd = open (self->path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
  int errsv = errno;

  if (fd < 0 && (errsv == EACCES || errsv == EPERM || errsv == EROFS))
    {
      fail_writes (self, errsv);
      fd = open (self->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
      errsv = errno;
    }

  if (fd < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot read the session %s: %s"), self->path, g_strerror (errsv));
      return FALSE;
    }

  if (!lock_file (fd, self->path, error))
    {
      close (fd);
      return FALSE;
    }

  self->writer->fd = fd;
  return TRUE;
}

/* Drops the bytes after @good_length so that the next append starts on a
 * clean line. If that is not possible the session is read-only. A session
 * opened read-only leaves the file alone: its writer may be in the middle
 * of that line. */
static void
cut_torn_tail (ZotSession *self,
               gsize       good_length)
{
  if (self->writer == NULL)
    return;

  if (ftruncate (self->writer->fd, (off_t) good_length) != 0 || fsync (self->writer->fd) != 0)
    fail_writes (self, errno);
}

/* One line of the file as an entry, or NULL with @error saying why not. */
static JsonObject *
parse_entry (const char  *line,
             gsize        length,
             GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (!zot_json_parser_load_bounded (parser, line, (gssize) length,
                                     ZOT_SESSION_JSON_MAX_DEPTH, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("expected an object"));
      return NULL;
    }

  if (!check_entry (json_node_get_object (root), error))
    return NULL;

  return json_object_ref (json_node_get_object (root));
}

/* The first line of the file: without a header, it is not a session. */
static gboolean
load_header (ZotSession  *self,
             JsonObject  *entry,
             guint        line_no,
             GError     **error)
{
  JsonNode *version_node;
  const char *id;
  const char *cwd;
  gint64 version;

  if (entry == NULL || !g_str_equal (json_object_get_string_member (entry, "type"), "session"))
    {
      g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_CORRUPT,
                   _("line %u of %s is not a session header; is it a zot session?"),
                   line_no, self->path);
      return FALSE;
    }

  /* Not json-glib's _with_default getters: they fail a precondition on an
   * object or an array, and the file is outside input. */
  version_node = json_object_get_member (entry, "version");
  version = version_node != NULL && JSON_NODE_HOLDS_VALUE (version_node) ?
            json_node_get_int (version_node) : 0;
  if (version > SESSION_VERSION)
    {
      g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_CORRUPT,
                   _("the session %s was written by a newer zot (version %" G_GINT64_FORMAT ")"),
                   self->path, version);
      return FALSE;
    }

  id = zot_json_get_string (entry, "id");
  cwd = zot_json_get_string (entry, "cwd");
  if (id != NULL && *id != '\0')
    replace_str (&self->id, id);
  if (cwd != NULL && *cwd != '\0')
    replace_str (&self->cwd, cwd);

  return TRUE;
}

static void
load_entry (ZotSession *self,
            JsonObject *entry,
            guint       line_no,
            LoadReport *report)
{
  if (g_str_equal (json_object_get_string_member (entry, "type"), "message"))
    load_message (self, json_object_get_object_member (entry, "message"), line_no, report);
  else
    apply_entry (self, entry);
}

/* Reads the whole file. The header must be there; after it, a bad line
 * is skipped and counted, a torn last line is dropped, and the order of
 * tool calls and results is mended (see "Repairs at load"). */
static gboolean
load (ZotSession  *self,
      GError     **error)
{
  g_auto(LoadReport) report = { 0 };
  g_autofree char *contents = NULL;
  gsize length = 0;
  const char *p;
  const char *end;
  gsize good_length = 0;
  guint line_no = 0;
  gboolean seen_header = FALSE;

  if (!read_file_bounded (self->path, &contents, &length, error))
    return FALSE;

  p = contents;
  end = contents + length;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize line_length = nl != NULL ? (gsize) (nl - p) : (gsize) (end - p);
      g_autoptr(JsonObject) entry = NULL;
      g_autoptr(GError) local_error = NULL;

      line_no++;

      /* A last line that is not whole was never acknowledged. */
      if (nl == NULL)
        {
          add_torn_warning (self, line_length);
          break;
        }

      if (line_length > 0)
        {
          entry = parse_entry (p, line_length, &local_error);
          /* A whole last line that is not JSON is a write cut short too;
           * JSON that is no entry is damage, skipped like any other. */
          if (entry == NULL && nl + 1 == end && local_error->domain == JSON_PARSER_ERROR)
            {
              add_torn_warning (self, line_length + 1);
              break;
            }

          if (!seen_header)
            {
              if (!load_header (self, entry, line_no, error))
                return FALSE;
              seen_header = TRUE;
            }
          else if (entry == NULL)
            {
              g_debug ("skipping line %u of %s: %s", line_no, self->path, local_error->message);
              report_skipped (&report, line_no);
            }
          else
            load_entry (self, entry, line_no, &report);
        }

      p = nl + 1;
      good_length = (gsize) (p - contents);
    }

  if (good_length < length)
    cut_torn_tail (self, good_length);

  answer_last_calls (self, &report);
  add_load_warnings (self, &report);

  /* A file cut back to nothing (or one that was empty) gets its header
   * with the first append, like a new one. */
  self->need_header = !seen_header;
  return TRUE;
}

/* GObject */

static void
zot_session_dispose (GObject *object)
{
  /* Nothing to stop: queued writes belong to the worker thread, which
   * finishes them on its own (see zot_session_flush_async()). Every task
   * in `inflight` holds a reference, so dispose before they complete only
   * comes from g_object_run_dispose(), and delivery still works after it. */

  G_OBJECT_CLASS (zot_session_parent_class)->dispose (object);
}

static void
zot_session_finalize (GObject *object)
{
  ZotSession *self = (ZotSession *)object;
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

  g_clear_error (&self->write_error);
  g_clear_pointer (&self->unsaved, json_object_unref);
  g_clear_pointer (&self->messages, g_ptr_array_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->cwd, g_free);

  G_OBJECT_CLASS (zot_session_parent_class)->finalize (object);
}

static void
zot_session_class_init (ZotSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_session_dispose;
  object_class->finalize = zot_session_finalize;
}

static void
zot_session_init (ZotSession *self)
{
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->warnings = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->context = g_main_context_ref_thread_default ();
  g_queue_init (&self->inflight);
}

/* A session of @path, or in memory for NULL; one opened read-only has a
 * path but no writer. */
static ZotSession *
session_new_for_path (const char *cwd,
                      const char *path,
                      gboolean    read_only)
{
  ZotSession *self = g_object_new (ZOT_TYPE_SESSION, NULL);

  self->id = make_id ();
  self->cwd = canonical_cwd (cwd);
  self->read_only = read_only;
  if (path != NULL)
    self->path = g_canonicalize_filename (path, NULL);
  if (path != NULL && !read_only)
    {
      self->writer = writer_new (self->path);
      self->writer->owner = self;
    }
  self->need_header = TRUE;
  return self;
}

static ZotSession *
session_open (const char  *path,
              gboolean     read_only,
              GError     **error)
{
  g_autoptr(ZotSession) self = session_new_for_path (NULL, path, read_only);

  /* A reader takes no lock: the writer may be holding it. */
  if ((!read_only && !lock_for_load (self, error)) || !load (self, error))
    return NULL;

  return g_steal_pointer (&self);
}

/* API */

/**
 * zot_session_get_directory_for_cwd:
 * @cwd: (nullable): a working directory; %NULL for the current one
 *
 * Returns: (transfer full): `$ZOT_HOME/sessions/<cwd-key>`, where the key
 *   is the canonical @cwd (symbolic links resolved) with '/' as '-', bytes
 *   other than `[A-Za-z0-9._+,=@~-]` as `%XX`, and at most 120 bytes
 *   (longer keys keep their start and end in a hash of the path)
 */
char *
zot_session_get_directory_for_cwd (const char *cwd)
{
  g_autofree char *home = zot_paths_get_home ();
  g_autofree char *canonical = canonical_cwd (cwd);
  g_autofree char *key = cwd_key (canonical);

  return g_build_filename (home, "sessions", key, NULL);
}

/* The cwd in the header of @path, or NULL if it cannot be told. */
static char *
read_header_cwd (const char *path)
{
  g_autoptr(JsonObject) header = NULL;
  char buf[16 * 1024];
  ssize_t n;
  char *nl;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  do
    n = read (fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n <= 0)
    return NULL;

  buf[n] = '\0';
  nl = strchr (buf, '\n');
  if (nl == NULL)
    return NULL;
  *nl = '\0';

  header = zot_json_object_from_string (buf, NULL);
  if (header == NULL ||
      g_strcmp0 (zot_json_get_string (header, "type"), "session") != 0)
    return NULL;

  return g_strdup (zot_json_get_string (header, "cwd"));
}

typedef struct
{
  char            *path;
  struct timespec  mtime;
} Candidate;

static void
candidate_free (gpointer data)
{
  Candidate *candidate = data;

  g_free (candidate->path);
  g_free (candidate);
}

/* Newest first; a tie goes to the greater name (ids sort by time). */
static int
candidate_compare (gconstpointer a,
                   gconstpointer b)
{
  const Candidate *x = *(const Candidate * const *) a;
  const Candidate *y = *(const Candidate * const *) b;

  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec > y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec)
    return x->mtime.tv_nsec > y->mtime.tv_nsec ? -1 : 1;
  return -strcmp (x->path, y->path);
}

/**
 * zot_session_find_latest:
 * @cwd: (nullable): a working directory; %NULL for the current one
 * @error: return location for a #GError
 *
 * Finds the session `--continue` resumes: the non-empty `.jsonl` file of
 * @cwd's directory modified last (ties go to the greater name, ids sort by
 * time), skipping sessions whose header names another cwd that happens to
 * share the key. Fails with %ZOT_SESSION_ERROR_NOT_FOUND when there is none.
 *
 * Returns: (transfer full): the path of the session
 */
char *
zot_session_find_latest (const char  *cwd,
                         GError     **error)
{
  g_autofree char *dir_path = zot_session_get_directory_for_cwd (cwd);
  g_autofree char *canonical = canonical_cwd (cwd);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (candidate_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      Candidate *candidate;
      struct stat st;

      if (!g_str_has_suffix (name, ".jsonl"))
        continue;

      path = g_build_filename (dir_path, name, NULL);
      if (stat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
        continue;

      candidate = g_new0 (Candidate, 1);
      candidate->path = g_steal_pointer (&path);
      candidate->mtime = st.st_mtim;
      g_ptr_array_add (candidates, candidate);
    }

  g_ptr_array_sort (candidates, candidate_compare);

  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *candidate = g_ptr_array_index (candidates, i);
      g_autofree char *header_cwd = read_header_cwd (candidate->path);

      /* A header that cannot be read is for zot_session_open() to report. */
      if (header_cwd == NULL || g_str_equal (header_cwd, canonical))
        return g_strdup (candidate->path);
    }

  g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_NOT_FOUND,
               _("no session to continue in %s"), dir_path);
  return NULL;
}

/**
 * zot_session_new:
 * @cwd: (nullable): the working directory; %NULL for the current one
 * @path: (nullable): the file (`--session FILE`), or %NULL for a new file
 *   in zot_session_get_directory_for_cwd()
 * @error: return location for a #GError
 *
 * Makes a persistent session. Nothing touches the disk until the first
 * append, which writes the header line before the entry (creating the
 * directory and file, and taking its lock). That append fails with
 * %ZOT_SESSION_ERROR_LOCKED if another session got there first. If @path
 * names a non-empty file, it is resumed (and locked) as by
 * zot_session_open() and @cwd is taken from its header instead.
 *
 * Returns: (transfer full): the session, or %NULL with @error set
 */
ZotSession *
zot_session_new (const char  *cwd,
                 const char  *path,
                 GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *new_path = NULL;
  g_autofree char *id = NULL;
  g_autofree char *base = NULL;
  ZotSession *self;
  guint attempts = 0;
  struct stat st;

  if (path != NULL)
    {
      g_autofree char *absolute = g_canonicalize_filename (path, NULL);

      if (stat (absolute, &st) == 0)
        {
          if (S_ISDIR (st.st_mode))
            {
              g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_WRITE,
                           _("cannot use %s as a session: it is a directory"), absolute);
              return NULL;
            }
          if (S_ISREG (st.st_mode) && st.st_size > 0)
            return zot_session_open (absolute, error);
        }

      return session_new_for_path (cwd, absolute, FALSE);
    }

  /* Ids carry 24 random bits per second; a clash is next to impossible,
   * but costs nothing to avoid. */
  dir = zot_session_get_directory_for_cwd (cwd);
  do
    {
      g_clear_pointer (&id, g_free);
      g_clear_pointer (&new_path, g_free);
      id = make_id ();
      base = g_strconcat (id, ".jsonl", NULL);
      new_path = g_build_filename (dir, base, NULL);
      g_clear_pointer (&base, g_free);
    }
  while (++attempts < 16 && g_file_test (new_path, G_FILE_TEST_EXISTS));

  self = session_new_for_path (cwd, new_path, FALSE);
  replace_str (&self->id, id);
  return self;
}

/**
 * zot_session_new_in_memory:
 * @cwd: (nullable): the working directory; %NULL for the current one
 *
 * A session for `--no-session`: the transcript is kept in memory only and
 * every append succeeds at once.
 *
 * Returns: (transfer full): the session
 */
ZotSession *
zot_session_new_in_memory (const char *cwd)
{
  return session_new_for_path (cwd, NULL, FALSE);
}

/**
 * zot_session_open:
 * @path: a session file
 * @error: return location for a #GError
 *
 * Reads a session to resume it, and holds its lock (an advisory flock())
 * until the session and its queued writes are done: one writer per file.
 * A file another writer holds fails with %ZOT_SESSION_ERROR_LOCKED;
 * zot_session_open_read_only() can still show it.
 *
 * Loading is forgiving and loses nothing it can keep. The first line must
 * be a session header (otherwise %ZOT_SESSION_ERROR_CORRUPT naming it).
 * A torn last line (no newline, or not JSON) is dropped and cut off the
 * file so that later appends start on a clean line. Any other bad line
 * (not JSON, nested too deep, not a valid entry, or a tool message that
 * answers no call) is skipped. Tool calls left without their results
 * (the host died between the two) get results that say they were
 * interrupted, in memory; results for calls at the very end go into the
 * file with the next append. zot_session_get_warnings() says what was
 * done: one line for the torn tail, one for all skipped lines, one for
 * all interrupted calls. A compaction entry starts the transcript over;
 * unknown entry types are ignored. Files over 256 MiB are refused with
 * %ZOT_SESSION_ERROR_TOO_LARGE. This reads synchronously.
 *
 * Returns: (transfer full): the session, or %NULL with @error set
 */
ZotSession *
zot_session_open (const char  *path,
                  GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  return session_open (path, FALSE, error);
}

/**
 * zot_session_open_read_only:
 * @path: a session file
 * @error: return location for a #GError
 *
 * Reads a session to show it, such as one that another process is
 * writing: no lock is taken and the file is left as it is. It loads as
 * zot_session_open() does, except that a torn last line stays in the
 * file and calls at the very end keep waiting for their results (their
 * writer may still be running them). Every append fails with
 * %ZOT_SESSION_ERROR_READ_ONLY and leaves the transcript as it is.
 *
 * Returns: (transfer full): the session, or %NULL with @error set
 */
ZotSession *
zot_session_open_read_only (const char  *path,
                            GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  return session_open (path, TRUE, error);
}

const char *
zot_session_get_id (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);
  return self->id;
}

/**
 * zot_session_get_path:
 *
 * Returns: (nullable): the file, or %NULL for an in-memory session
 */
const char *
zot_session_get_path (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);
  return self->path;
}

const char *
zot_session_get_cwd (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);
  return self->cwd;
}

/**
 * zot_session_get_messages:
 *
 * The transcript: the messages loaded at open, then every one appended
 * since, as replaced by zot_session_replace_messages(). The session holds
 * a reference to each appended message rather than a copy, so a message
 * must not be changed after it was appended.
 *
 * Returns: (transfer none) (element-type JsonObject): the messages
 */
GPtrArray *
zot_session_get_messages (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);
  return self->messages;
}

/**
 * zot_session_get_warnings:
 *
 * Returns: (transfer none): what loading had to repair, one line each
 */
const char * const *
zot_session_get_warnings (ZotSession *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);

  if (self->warnings->len == 0)
    return none;
  return (const char * const *) self->warnings->pdata;
}

/**
 * zot_session_is_persistent:
 *
 * Returns: whether appends go to a file (not in memory, not read-only)
 */
gboolean
zot_session_is_persistent (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), FALSE);
  return self->writer != NULL;
}

/**
 * zot_session_is_read_only:
 *
 * Returns: whether it was opened with zot_session_open_read_only()
 */
gboolean
zot_session_is_read_only (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), FALSE);
  return self->read_only;
}

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

  if (!check_entry (entry, &error))
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

  apply_entry (self, entry);

  if (self->writer == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  /* With nothing in flight, failing here keeps the order. */
  if (self->write_error != NULL && g_queue_is_empty (&self->inflight))
    {
      g_task_return_error (task, g_error_copy (self->write_error));
      return;
    }

  lines = start_lines (self);
  append_line (lines, entry);

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
  append_line (lines, compaction);
  for (guint i = 0; i < messages->len; i++)
    {
      g_autoptr(JsonObject) entry = message_entry (g_ptr_array_index (messages, i));

      append_line (lines, entry);
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

  if (self->writer == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  if (self->write_error != NULL && g_queue_is_empty (&self->inflight))
    {
      g_task_return_error (task, g_error_copy (self->write_error));
      return;
    }

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
