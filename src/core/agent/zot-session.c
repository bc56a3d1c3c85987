/* zot-session.c — the session object: making and opening one, what it
 * holds, and what a valid entry is and does to the transcript.
 *
 * The rest of ZotSession is in zot-session-write.c (appending, and the
 * worker thread that writes and fsyncs), zot-session-load.c (reading a
 * file back and mending it) and zot-session-list.c (where sessions live,
 * and finding the one to continue).
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n.h>

#include "zot-paths.h"
#include "zot-session.h"
#include "zot-session-private.h"

G_DEFINE_FINAL_TYPE (ZotSession, zot_session, G_TYPE_OBJECT)

G_DEFINE_QUARK (zot-session-error-quark, zot_session_error)

void
_zot_session_replace_str (char       **slot,
                          const char  *value)
{
  char *copy = g_strdup (value);

  g_free (*slot);
  *slot = copy;
}

static char *
make_id (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");

  return g_strdup_printf ("%s-%06x", stamp, g_random_int () & 0xffffff);
}

static int
compare_names (const void *a,
               const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
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

gboolean
_zot_session_check_entry (JsonObject  *entry,
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

  if (g_strcmp0 (json_node_get_string (type), "activated_tools") == 0)
    {
      JsonNode *names = json_object_get_member (entry, "names");

      if (names == NULL || !JSON_NODE_HOLDS_ARRAY (names))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("an \"activated_tools\" entry needs a \"names\" array"));
          return FALSE;
        }
      return TRUE;
    }

  if (g_strcmp0 (json_node_get_string (type), "script_state") == 0)
    {
      JsonNode *state = json_object_get_member (entry, "state");

      if (state == NULL || !JSON_NODE_HOLDS_OBJECT (state))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("a \"script_state\" entry needs a \"state\" object"));
          return FALSE;
        }
      return TRUE;
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

  if (g_strcmp0 (json_node_get_string (type), "task") == 0)
    return _zot_session_check_task (entry, error);

  if (g_strcmp0 (json_node_get_string (type), "remove") == 0)
    return _zot_session_check_remove (entry, error);

  return TRUE;
}

/* The string elements of @names (others are skipped), sorted. */
static GStrv
read_names (JsonArray *names)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  GStrv sorted;

  for (guint i = 0; i < json_array_get_length (names); i++)
    {
      JsonNode *element = json_array_get_element (names, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
    }

  sorted = g_strv_builder_end (builder);
  qsort (sorted, g_strv_length (sorted), sizeof (char *), compare_names);
  return sorted;
}

/* What an entry does to the transcript, the same on load and on append.
 * Unknown types are left to whoever wrote them. */
void
_zot_session_apply_entry (ZotSession *self,
                          JsonObject *entry)
{
  const char *type = json_object_get_string_member (entry, "type");

  if (g_str_equal (type, "message"))
    g_ptr_array_add (self->messages,
                     json_object_ref (json_object_get_object_member (entry, "message")));
  else if (g_str_equal (type, "compaction"))
    g_ptr_array_set_size (self->messages, 0);
  else if (g_str_equal (type, "activated_tools"))
    {
      g_strfreev (self->activated_tools);
      self->activated_tools = read_names (json_object_get_array_member (entry, "names"));
    }
  else if (g_str_equal (type, "script_state"))
    {
      g_clear_pointer (&self->script_state, json_object_unref);
      self->script_state = json_object_ref (json_object_get_object_member (entry, "state"));
    }
  else if (g_str_equal (type, "task"))
    _zot_session_apply_task (self, entry);
  else if (g_str_equal (type, "remove"))
    _zot_session_apply_remove (self, entry);
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

  _zot_session_stop_writing (self);

  g_clear_error (&self->write_error);
  g_clear_pointer (&self->unsaved, json_object_unref);
  g_clear_pointer (&self->messages, g_ptr_array_unref);
  g_clear_pointer (&self->activated_tools, g_strfreev);
  g_clear_pointer (&self->script_state, json_object_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->tasks, g_hash_table_unref);
  g_clear_pointer (&self->task_order, g_ptr_array_unref);
  g_clear_pointer (&self->earlier, g_ptr_array_unref);
  g_clear_pointer (&self->forked_from, g_free);
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
  self->activated_tools = g_new0 (char *, 1);
  self->script_state = json_object_new ();
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
  self->cwd = zot_paths_canonicalize (cwd);
  self->read_only = read_only;
  if (path != NULL)
    self->path = g_canonicalize_filename (path, NULL);
  if (path != NULL && !read_only)
    {
      self->writer = _zot_session_writer_new (self->path);
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
  if ((!read_only && !_zot_session_lock_for_load (self, error)) || !_zot_session_load (self, error))
    return NULL;

  return g_steal_pointer (&self);
}

/* API */

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
          /* Opening a FIFO for writing waits for a reader that never
           * comes, and a socket cannot be opened at all. A character
           * device such as /dev/null is still a place to write to. */
          if (!S_ISREG (st.st_mode) && !S_ISCHR (st.st_mode))
            {
              g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_WRITE,
                           _("cannot use %s as a session: it is not a regular file; "
                             "name a file, or use --no-session"), absolute);
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
  _zot_session_replace_str (&self->id, id);
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
 * A torn last line (one without its newline) is dropped from the
 * transcript but kept in the file, which is never shortened; the next
 * append ends it with a newline first, so that it stays a line of its own
 * that later loads skip (or load, when it was whole but for the
 * newline). Any other bad line, the last one too (not JSON, nested too
 * deep, not a valid entry, or a tool message that answers no call) is
 * skipped. Tool calls left without their results
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
 * zot_session_get_earlier_messages:
 *
 * What the compactions in the file replaced, read when the session was
 * opened, so that a window can show the whole conversation; the agent
 * goes on from zot_session_get_messages() alone.
 *
 * Returns: (transfer none) (element-type JsonObject): the messages before
 *   the last compaction in the file, in order; empty when there was none
 */
GPtrArray *
zot_session_get_earlier_messages (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);

  if (self->earlier == NULL)
    self->earlier = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  return self->earlier;
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
 * zot_session_get_activated_tools:
 *
 * The deferred tools activated in this conversation (by the discovery
 * tool or an extension's `activate_tools`), as saved with it: a resume
 * brings them back.
 *
 * Returns: (transfer none): the names, sorted, never %NULL
 */
const char * const *
zot_session_get_activated_tools (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);
  return (const char * const *) self->activated_tools;
}

/**
 * zot_session_set_activated_tools:
 * @names: (nullable): the activated tools from now on, %NULL for none
 *
 * Saves the set with the conversation: when it changed, an
 * `{"type":"activated_tools","names":[…]}` entry is appended (the last
 * one wins at load). A write error shows up in the next append.
 */
void
zot_session_set_activated_tools (ZotSession         *self,
                                 const char * const *names)
{
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(JsonArray) array = json_array_new ();
  g_auto(GStrv) sorted = NULL;

  g_return_if_fail (ZOT_IS_SESSION (self));

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    json_array_add_string_element (array, names[i]);
  sorted = read_names (array);
  if (g_strv_equal ((const char * const *) sorted, (const char * const *) self->activated_tools))
    return;

  entry = json_object_new ();
  json_object_set_string_member (entry, "type", "activated_tools");
  json_object_set_array_member (entry, "names", g_steal_pointer (&array));
  zot_session_append_async (self, entry, NULL, NULL, NULL);
}

/**
 * zot_session_get_script_state:
 *
 * What codemode scripts of this conversation stored (store(), PROTOCOL.md
 * §4a), as saved with it: a resume brings it back. Not model-visible.
 *
 * Returns: (transfer none): the state, never %NULL; do not change it
 */
JsonObject *
zot_session_get_script_state (ZotSession *self)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);
  return self->script_state;
}

/**
 * zot_session_set_script_state:
 * @state: the state from now on
 *
 * Saves @state with the conversation: a
 * `{"type":"script_state","state":{…}}` entry is appended (the last one
 * wins at load). The caller has checked its size.
 */
void
zot_session_set_script_state (ZotSession *self,
                              JsonObject *state)
{
  g_autoptr(JsonObject) entry = NULL;

  g_return_if_fail (ZOT_IS_SESSION (self));
  g_return_if_fail (state != NULL);

  entry = json_object_new ();
  json_object_set_string_member (entry, "type", "script_state");
  json_object_set_object_member (entry, "state", json_object_ref (state));
  zot_session_append_async (self, entry, NULL, NULL, NULL);
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
