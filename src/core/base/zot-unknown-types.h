/* zot-unknown-types.h — which unknown frame or command types were logged.
 *
 * A dispatch table that meets a type it does not know says so in the log
 * rather than dropping it silently, but only the first time for each
 * type, and for at most ZOT_UNKNOWN_TYPES_LOGGED types: a peer that sends
 * a flood of them, or a new one each time, cannot fill the log.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  /*< private >*/
  GHashTable *seen;
} ZotUnknownTypes;

void      zot_unknown_types_clear  (ZotUnknownTypes *self);
gboolean  zot_unknown_types_note   (ZotUnknownTypes *self,
                                    const char      *type);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ZotUnknownTypes, zot_unknown_types_clear)

G_END_DECLS
