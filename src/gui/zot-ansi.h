/* zot-ansi.h — ANSI SGR escapes to Pango attributes.
 *
 * Extension panels are written for a terminal: their lines may carry SGR
 * escapes (bold, colours, reverse). The view never shows the escape bytes:
 * it shows the text that remains and the attributes the escapes describe.
 */
#pragma once

#include <pango/pango.h>

G_BEGIN_DECLS

char *zot_ansi_to_pango               (const char     *line,
                                       PangoAttrList **attributes);
char *zot_ansi_to_pango_with_defaults (const char     *line,
                                       guint32         default_foreground,
                                       guint32         default_background,
                                       PangoAttrList **attributes);

G_END_DECLS
