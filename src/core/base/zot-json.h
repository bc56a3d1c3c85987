/* zot-json.h — parsing JSON that comes from outside the host.
 *
 * json-glib's parser recurses once per nesting level, so a line of a few
 * hundred kilobytes of brackets overflows the stack. Everything the host
 * reads from an extension, a model server, an RPC client or a file goes
 * through zot_json_parser_load(), which refuses input nested deeper than
 * %ZOT_JSON_MAX_DEPTH before the parser sees it.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

gboolean zot_json_check_depth         (const char  *data,
                                       gsize        length,
                                       guint        max_depth,
                                       GError     **error);
gboolean zot_json_parser_load         (JsonParser  *parser,
                                       const char  *data,
                                       gssize       length,
                                       GError     **error);
gboolean zot_json_parser_load_bounded (JsonParser  *parser,
                                       const char  *data,
                                       gssize       length,
                                       guint        max_depth,
                                       GError     **error);

/* Members read from JSON that came from outside: NULL when absent or of
 * another type, never a critical. */
JsonObject *zot_json_get_object (JsonObject *object,
                                 const char *member);
JsonArray  *zot_json_get_array  (JsonObject *object,
                                 const char *member);
const char *zot_json_get_string (JsonObject *object,
                                 const char *member);
const char *zot_json_get_string_or  (JsonObject *object,
                                     const char *member,
                                     const char *fallback);
gboolean    zot_json_get_boolean_or (JsonObject *object,
                                     const char *member,
                                     gboolean    fallback);
gint64      zot_json_get_int_or     (JsonObject *object,
                                     const char *member,
                                     gint64      fallback);
JsonObject *zot_json_array_get_object (JsonArray *array,
                                       guint      index);

G_END_DECLS
