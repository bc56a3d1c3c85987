/* zot-session-edit.c — the entries that change a conversation after the
 * fact, as the session reads and writes them: "remove" entries and the
 * header's "forked_from".
 *
 * Both come from the file, which is outside input: a "remove" entry that
 * names messages that are not there is ignored whole, and a header whose
 * "forked_from" is not a plain file name of this directory with an index
 * in bounds loads as a conversation of its own, with a warning. Readers
 * from before either ignore them: an unknown entry type is left alone and
 * an unknown header member is not read.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-conversation-edit.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-session-private.h"

static gboolean
node_is_int (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

/**
 * _zot_session_check_remove:
 *
 * Returns: whether @entry, of type "remove", has a "messages" array of
 *   1 to %ZOT_SESSION_REMOVE_MAX_MESSAGES indices
 */
gboolean
_zot_session_check_remove (JsonObject  *entry,
                           GError     **error)
{
  JsonNode *node = json_object_get_member (entry, "messages");
  JsonArray *messages = node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  guint n = messages != NULL ? json_array_get_length (messages) : 0;

  if (n == 0 || n > ZOT_SESSION_REMOVE_MAX_MESSAGES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("a \"remove\" entry needs a \"messages\" array of 1 to %d indices"),
                   ZOT_SESSION_REMOVE_MAX_MESSAGES);
      return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      JsonNode *index = json_array_get_element (messages, i);

      if (!node_is_int (index) || json_node_get_int (index) < 0)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("a \"remove\" entry's \"messages\" must be indices (0 or more)"));
          return FALSE;
        }
    }

  return TRUE;
}

static int
compare_desc (gconstpointer a,
              gconstpointer b)
{
  guint x = *(const guint *) a;
  guint y = *(const guint *) b;

  return x < y ? 1 : x > y ? -1 : 0;
}

/**
 * _zot_session_apply_remove:
 *
 * Takes the messages a checked "remove" entry names out of the
 * transcript: all of them, or none when one is out of range or named
 * twice.
 */
void
_zot_session_apply_remove (ZotSession *self,
                           JsonObject *entry)
{
  JsonArray *messages = json_object_get_array_member (entry, "messages");
  guint n = json_array_get_length (messages);
  g_autoptr(GArray) indices = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);

  for (guint i = 0; i < n; i++)
    {
      gint64 index = json_array_get_int_element (messages, i);
      guint value;

      if (index >= self->messages->len)
        {
          g_debug ("ignoring a remove entry of %s: message %" G_GINT64_FORMAT " is not there",
                   self->path ? self->path : "(memory)", index);
          return;
        }
      value = (guint) index;
      g_array_append_val (indices, value);
    }

  g_array_sort (indices, compare_desc);
  for (guint i = 1; i < indices->len; i++)
    if (g_array_index (indices, guint, i) == g_array_index (indices, guint, i - 1))
      return;

  for (guint i = 0; i < indices->len; i++)
    g_ptr_array_remove_index (self->messages, g_array_index (indices, guint, i));

  /* Results mended at load may have been taken out with their calls. */
  g_clear_pointer (&self->unsaved, json_object_unref);
}

/**
 * zot_session_fork_read:
 * @header: a session header
 * @file: (out) (optional): the file name of the conversation forked from
 * @entry: (out) (optional): the index of the message the fork replaces
 * @error: why "forked_from" is not valid
 *
 * Reads a header's `"forked_from":{"file":"<id>.jsonl","entry":N}`. The
 * file is a name in the same directory: no path, no "..", at most
 * %ZOT_SESSION_FORK_FILE_MAX_BYTES bytes, ending in ".jsonl"; the entry is
 * 0 to %ZOT_SESSION_FORK_MAX_ENTRY.
 *
 * Returns: %TRUE with @file set when the header has a valid one; %FALSE
 *   with @error unset when it has none, set when it has a bad one
 */
gboolean
zot_session_fork_read (JsonObject  *header,
                       char       **file,
                       gint64      *entry,
                       GError     **error)
{
  JsonNode *node;
  JsonObject *fork;
  const char *name;
  JsonNode *index;
  gsize length;

  g_return_val_if_fail (header != NULL, FALSE);

  node = json_object_get_member (header, "forked_from");
  if (node == NULL)
    return FALSE;

  fork = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  name = fork != NULL ? zot_json_get_string (fork, "file") : NULL;
  index = fork != NULL ? json_object_get_member (fork, "entry") : NULL;
  length = name != NULL ? strlen (name) : 0;
  if (name == NULL || length == 0 || length > ZOT_SESSION_FORK_FILE_MAX_BYTES ||
      strchr (name, '/') != NULL || strchr (name, '\\') != NULL || name[0] == '.' ||
      !g_str_has_suffix (name, ".jsonl") || !g_utf8_validate (name, (gssize) length, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("\"forked_from\" needs a \"file\": the name of a session file (<id>.jsonl) "
                     "of the same folder, at most %d bytes"), ZOT_SESSION_FORK_FILE_MAX_BYTES);
      return FALSE;
    }

  if (!node_is_int (index) || json_node_get_int (index) < 0 ||
      json_node_get_int (index) > ZOT_SESSION_FORK_MAX_ENTRY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("\"forked_from\" needs an \"entry\": the index of a message, 0 to %d"),
                   ZOT_SESSION_FORK_MAX_ENTRY);
      return FALSE;
    }

  if (file != NULL)
    *file = g_strdup (name);
  if (entry != NULL)
    *entry = json_node_get_int (index);
  return TRUE;
}

/**
 * _zot_session_load_fork:
 *
 * Keeps the header's "forked_from" if it is valid; a bad one is dropped
 * with a warning, and the conversation loads as one of its own.
 */
void
_zot_session_load_fork (ZotSession *self,
                        JsonObject *header)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *file = NULL;
  gint64 entry = 0;

  g_clear_pointer (&self->forked_from, g_free);
  if (zot_session_fork_read (header, &file, &entry, &error))
    {
      self->forked_from = g_steal_pointer (&file);
      self->forked_from_entry = entry;
    }
  else if (error != NULL)
    {
      char *warning = g_strdup_printf (_("ignored the header's \"forked_from\" of %s: %s"),
                                       self->path, error->message);

      g_debug ("%s", warning);
      g_ptr_array_add (self->warnings, warning);
    }
}

/**
 * zot_session_get_forked_from:
 * @self: a #ZotSession
 * @entry: (out) (optional): the index of the message the fork replaced
 *
 * Returns: (nullable): the file name, in the same folder, of the
 *   conversation this one was forked from
 */
const char *
zot_session_get_forked_from (ZotSession *self,
                             gint64     *entry)
{
  g_return_val_if_fail (ZOT_IS_SESSION (self), NULL);

  if (entry != NULL)
    *entry = self->forked_from_entry;
  return self->forked_from;
}
