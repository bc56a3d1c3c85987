/* zot-line-diff.h — line diffs and bounded line text, for the transcript.
 *
 * Neither GLib nor GtkSourceView diffs text, and the window must show an
 * edit as a unified diff without ever stalling on a huge argument: the
 * diff is bounded by ZOT_DIFF_MAX_LINES and what is shown by the
 * ZOT_TOOL_VIEW_* limits (zot-limits.h). GLib only: tests need no
 * display.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *zot_line_diff (const char *old_text,
                     const char *new_text,
                     guint       context,
                     guint      *out_added,
                     guint      *out_removed);

guint zot_line_count (const char *text);

char *zot_line_clip  (const char *text,
                      const char *prefix,
                      guint       max_lines,
                      guint      *out_shown);

G_END_DECLS
