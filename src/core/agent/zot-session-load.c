/* zot-session-load.c — reading a session file back, and mending it.
 *
 * Loading is forgiving and loses nothing it can keep: a torn last line
 * (one without its newline) is dropped from the transcript but stays in
 * the file, a whole line that cannot be read is skipped, and
 * tool calls left without results are answered as interrupted, so that
 * every provider takes the transcript. What was mended becomes the
 * session's warnings.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-session.h"
#include "zot-session-private.h"
#include "zot-session-reader.h"

#define SESSION_MAX_FILE_BYTES   ((goffset) 256 * 1024 * 1024)

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
  add_warning (self, g_strdup_printf (_("dropped a torn last line (%zu bytes) of %s"),
                                      (size_t) bytes, self->path));
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
 * file may still be running them. So does a continuous one: the agent
 * finishes that step by each call's replay contract and its journal
 * (zot_agent_resume_async()). Otherwise the made-up results go into the
 * file with the next entry, so the file itself is whole again from there
 * and the next load has nothing to mend. */
static void
answer_last_calls (ZotSession *self,
                   LoadReport *report)
{
  g_autoptr(GPtrArray) calls = get_waiting_calls (self);
  JsonObject *answers;

  if (calls == NULL || self->read_only || self->continuous)
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
    /* Translators: the number of lines, the session file's path, then the line numbers, such as
     * "3, 7" */
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
                   /* Translators: the session file's path, its size in mebibytes, then the limit
                    * in mebibytes */
                   _("the session %s is too large to open (%lld MiB; the limit is %d MiB)"),
                   path, (long long) (st.st_size / (1024 * 1024)),
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

  _zot_session_set_write_error (&error, self->path, errsv);
  self->write_error = g_error_copy (error);
  self->writer->failure = g_steal_pointer (&error);
}

/* Opens the file of a session to resume and takes its lock before it is
 * read, so that what is read is what this session goes on from. A file
 * this process may not write is locked through a read-only descriptor,
 * and the session cannot write from the start, as after a failed write. */
gboolean
_zot_session_lock_for_load (ZotSession  *self,
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

  if (!_zot_session_lock_file (fd, self->path, error))
    {
      close (fd);
      return FALSE;
    }

  self->writer->fd = fd;
  return TRUE;
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
  if (version > ZOT_SESSION_VERSION)
    {
      g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_CORRUPT,
                   _("the session %s was written by a newer zot (version %lld)"),
                   self->path, (long long) version);
      return FALSE;
    }

  self->continuous = g_strcmp0 (zot_json_get_string (entry, "mode"), "continuous") == 0;
  _zot_session_load_fork (self, entry);
  id = zot_json_get_string (entry, "id");
  cwd = zot_json_get_string (entry, "cwd");
  if (id != NULL && *id != '\0')
    _zot_session_replace_str (&self->id, id);
  if (cwd != NULL && *cwd != '\0')
    _zot_session_replace_str (&self->cwd, cwd);

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
    {
      /* What a compaction replaced is still the conversation to a reader. */
      if (g_str_equal (json_object_get_string_member (entry, "type"), "compaction"))
        {
          GPtrArray *earlier = zot_session_get_earlier_messages (self);

          for (guint i = 0; i < self->messages->len; i++)
            g_ptr_array_add (earlier, json_object_ref (g_ptr_array_index (self->messages, i)));
        }
      _zot_session_apply_entry (self, entry);
    }
}

/* Reads the whole file. The header must be there; after it, a bad line
 * is skipped and counted, a torn last line is dropped (the file is
 * never shortened), and the order of
 * tool calls and results is mended (see "Repairs at load"). */
gboolean
_zot_session_load (ZotSession  *self,
                   GError     **error)
{
  g_auto(LoadReport) report = { 0 };
  g_autofree char *contents = NULL;
  gsize length = 0;
  ZotSessionReader reader;
  gboolean seen_header = FALSE;

  if (!read_file_bounded (self->path, &contents, &length, error))
    return FALSE;

  zot_session_reader_init (&reader, contents, length);
  for (;;)
    {
      g_autoptr(JsonObject) entry = NULL;
      g_autoptr(GError) local_error = NULL;
      gsize torn_length = 0;
      ZotSessionRead read = zot_session_reader_next (&reader, &entry, &torn_length, &local_error);
      guint line_no = zot_session_reader_get_line_no (&reader);

      if (read == ZOT_SESSION_READ_END)
        break;

      /* A last line that is not whole was never acknowledged. It stays
       * in the file: the next append ends it first, so that it becomes a
       * line that later loads skip, never part of the next record. Before
       * a header it is no session, as any other first line would be. */
      if (read == ZOT_SESSION_READ_TORN)
        {
          if (!seen_header)
            return load_header (self, NULL, line_no, error);
          add_torn_warning (self, torn_length);
          self->need_newline = self->writer != NULL;
          break;
        }

      if (!seen_header)
        {
          if (!load_header (self, entry, line_no, error))
            return FALSE;
          seen_header = TRUE;
        }
      else if (read == ZOT_SESSION_READ_BAD)
        {
          g_debug ("skipping line %u of %s: %s", line_no, self->path, local_error->message);
          report_skipped (&report, line_no);
        }
      else
        load_entry (self, entry, line_no, &report);
    }

  answer_last_calls (self, &report);
  add_load_warnings (self, &report);

  /* An empty file gets its header with the first append, like a new one. */
  self->need_header = !seen_header;
  return TRUE;
}
