/* zot-markdown.h — Markdown (CommonMark, via cmark) rendered into widgets.
 *
 * Text blocks become selectable, wrapping labels whose Pango markup is
 * built from the syntax tree with every piece of text escaped; code
 * blocks become read-only, highlighted GtkSourceViews with a copy button.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ZOT_TYPE_MARKDOWN_VIEW (zot_markdown_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotMarkdownView, zot_markdown_view, ZOT, MARKDOWN_VIEW, GtkWidget)

GtkWidget  *zot_markdown_view_new          (void);
void        zot_markdown_view_set_markdown (ZotMarkdownView *self,
                                            const char      *markdown);
const char *zot_markdown_view_get_markdown (ZotMarkdownView *self);

G_END_DECLS
