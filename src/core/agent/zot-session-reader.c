/* zot-session-reader.c — the lines of a session file, as entries.
 *
 * A session file is one JSON object a line (HOST.md). Its bounds are the
 * ones loading has always had: an entry nests at most
 * ZOT_SESSION_JSON_MAX_DEPTH deep and must be a valid entry
 * (_zot_session_check_entry()); an empty line is no entry and no damage;
 * a whole line that is not an entry is reported, for the reader to skip;
 * a last line without its newline is torn, never an entry, since its
 * write was never acknowledged. How much of a file is read is the
 * caller's bound: loading caps the whole file, the conversation list and
 * its search read only a start of it, where a cut line is torn as well.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-json.h"
#include "zot-limits.h"
#include "zot-session-private.h"
#include "zot-session-reader.h"

/**
 * zot_session_reader_init:
 * @data: the bytes read of a session file; they must outlive @reader
 * @length: how many
 */
void
zot_session_reader_init (ZotSessionReader *reader,
                         const char       *data,
                         gsize             length)
{
  g_return_if_fail (reader != NULL);
  g_return_if_fail (data != NULL || length == 0);

  reader->p = data;
  reader->end = data + length;
  reader->line_no = 0;
}

/**
 * zot_session_reader_next_line:
 * @line: (out): where the next line that is not empty starts
 * @length: (out): its length, without the newline
 *
 * Steps over empty lines. It does not parse: a reader that can rule a
 * line out from its bytes goes on to zot_session_parse_entry() only for
 * the others.
 *
 * Returns: %ZOT_SESSION_READ_END, %ZOT_SESSION_READ_TORN, or
 *   %ZOT_SESSION_READ_ENTRY for a whole line (not yet known to be one)
 */
ZotSessionRead
zot_session_reader_next_line (ZotSessionReader  *reader,
                              const char       **line,
                              gsize             *length)
{
  g_return_val_if_fail (reader != NULL, ZOT_SESSION_READ_END);

  while (reader->p < reader->end)
    {
      const char *start = reader->p;
      const char *nl = memchr (start, '\n', (gsize) (reader->end - start));

      reader->line_no++;
      if (nl == NULL)
        {
          *line = start;
          *length = (gsize) (reader->end - start);
          reader->p = reader->end;
          return ZOT_SESSION_READ_TORN;
        }

      reader->p = nl + 1;
      if (nl > start)
        {
          *line = start;
          *length = (gsize) (nl - start);
          return ZOT_SESSION_READ_ENTRY;
        }
    }

  return ZOT_SESSION_READ_END;
}

/**
 * zot_session_reader_next:
 * @entry: (out) (transfer full) (optional): the entry, for
 *   %ZOT_SESSION_READ_ENTRY
 * @torn_length: (out) (optional): the bytes of the torn line, for
 *   %ZOT_SESSION_READ_TORN
 * @error: why the line is bad, for %ZOT_SESSION_READ_BAD
 *
 * Returns: what the next line that is not empty is
 */
ZotSessionRead
zot_session_reader_next (ZotSessionReader  *reader,
                         JsonObject       **entry,
                         gsize             *torn_length,
                         GError           **error)
{
  const char *line = NULL;
  gsize length = 0;
  ZotSessionRead read;
  JsonObject *parsed;

  g_return_val_if_fail (reader != NULL, ZOT_SESSION_READ_END);

  read = zot_session_reader_next_line (reader, &line, &length);
  if (read == ZOT_SESSION_READ_TORN && torn_length != NULL)
    *torn_length = length;
  if (read != ZOT_SESSION_READ_ENTRY)
    return read;

  parsed = zot_session_parse_entry (line, length, error);
  if (parsed == NULL)
    return ZOT_SESSION_READ_BAD;

  if (entry != NULL)
    *entry = parsed;
  else
    json_object_unref (parsed);
  return ZOT_SESSION_READ_ENTRY;
}

/**
 * zot_session_reader_get_line_no:
 *
 * Returns: the number, from 1, of the line last read
 */
guint
zot_session_reader_get_line_no (ZotSessionReader *reader)
{
  g_return_val_if_fail (reader != NULL, 0);

  return reader->line_no;
}

/**
 * zot_session_parse_entry:
 * @line: one whole line of a session file, without its newline
 * @length: its length
 *
 * Returns: (transfer full) (nullable): the entry, or %NULL with @error
 *   saying why the line is not one
 */
JsonObject *
zot_session_parse_entry (const char  *line,
                         gsize        length,
                         GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  g_return_val_if_fail (line != NULL, NULL);

  if (!zot_json_parser_load_bounded (parser, line, (gssize) length,
                                     ZOT_SESSION_JSON_MAX_DEPTH, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("expected an object"));
      return NULL;
    }

  if (!_zot_session_check_entry (json_node_get_object (root), error))
    return NULL;

  return json_object_ref (json_node_get_object (root));
}
