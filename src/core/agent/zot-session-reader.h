/* zot-session-reader.h — one reader for the lines of a session file.
 *
 * Loading a session, listing it and searching it read the same file
 * format; they read it through this, so that they agree on what is an
 * entry, what is a damaged line and what is a torn one.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ZotSessionRead:
 * @ZOT_SESSION_READ_END: no more lines
 * @ZOT_SESSION_READ_ENTRY: a whole line that is a valid entry
 * @ZOT_SESSION_READ_BAD: a whole line that is not a valid entry; it is
 *   skipped, and the error says why
 * @ZOT_SESSION_READ_TORN: the last line, without its newline: a write
 *   that was never acknowledged (or a line cut where a partial read
 *   stopped); it is never an entry
 */
typedef enum
{
  ZOT_SESSION_READ_END,
  ZOT_SESSION_READ_ENTRY,
  ZOT_SESSION_READ_BAD,
  ZOT_SESSION_READ_TORN,
} ZotSessionRead;

/* Walks @data, a session file or the start of one, which it does not own. */
typedef struct
{
  /*< private >*/
  const char *p;
  const char *end;
  guint       line_no;
} ZotSessionReader;

void            zot_session_reader_init       (ZotSessionReader  *reader,
                                               const char        *data,
                                               gsize              length);
ZotSessionRead  zot_session_reader_next_line  (ZotSessionReader  *reader,
                                               const char       **line,
                                               gsize             *length);
ZotSessionRead  zot_session_reader_next       (ZotSessionReader  *reader,
                                               JsonObject       **entry,
                                               gsize             *torn_length,
                                               GError           **error);
guint           zot_session_reader_get_line_no (ZotSessionReader *reader);
JsonObject     *zot_session_parse_entry       (const char        *line,
                                               gsize              length,
                                               GError           **error);

G_END_DECLS
