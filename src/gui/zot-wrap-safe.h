/* zot-wrap-safe.h — text that Pango 1.50 can wrap by word and character.
 *
 * Pango 1.50.12 (Debian 12) aborts the process in process_line()
 * ("assertion failed: (result == BREAK_SOME_FIT || result ==
 * BREAK_EMPTY_FIT)") when it lays out, with PANGO_WRAP_WORD_CHAR at a
 * constrained width, text holding a degenerate cluster: a mark or format
 * character with no base, right after white space, a line break or at the
 * start. WORD and CHAR wrapping are not affected. These functions find
 * such clusters and repair them; GLib only, so the Markdown walk and its
 * fuzzer use them without GTK. zot-wrap-safe-gtk.h applies them to
 * labels and text views.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char     *zot_wrap_safe_text        (const char *text,
                                     gssize      len);
char     *zot_wrap_safe_text_after  (gunichar    previous,
                                     const char *text,
                                     gssize      len);
gboolean  zot_wrap_safe_check       (const char *text,
                                     gssize      len);
gboolean  zot_wrap_safe_check_after (gunichar    previous,
                                     const char *text,
                                     gssize      len);

G_END_DECLS
