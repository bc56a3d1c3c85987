/* zot-markdown.h — Markdown (CommonMark, via cmark) rendered into widgets.
 *
 * Text blocks become selectable, wrapping labels whose Pango markup is
 * built from the syntax tree with every piece of text escaped; code
 * blocks become read-only, highlighted GtkSourceViews with a copy button.
 */
#pragma once

#include <gtk/gtk.h>
#include <gtksourceview/gtksource.h>

#include "zot-markdown-document.h"

G_BEGIN_DECLS

#define ZOT_TYPE_MARKDOWN_VIEW (zot_markdown_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotMarkdownView, zot_markdown_view, ZOT, MARKDOWN_VIEW, GtkWidget)

GtkWidget  *zot_markdown_view_new          (void);
void        zot_markdown_view_set_markdown (ZotMarkdownView *self,
                                            const char      *markdown);
const char *zot_markdown_view_get_markdown (ZotMarkdownView *self);
void        zot_markdown_view_set_document (ZotMarkdownView     *self,
                                            ZotMarkdownDocument *document);

/* The view's text widgets, for the transcript's plain text. */
GtkWidget  *_zot_markdown_label_new        (void);
GtkWidget  *_zot_markdown_text_view_new    (const char          *text);
/* What the transcript's tool calls share with code blocks. */
GtkWidget  *_zot_sideways_scroller_new     (void);
GtkWidget  *_zot_source_view_new           (const char          *text,
                                            GtkSourceLanguage   *language);

G_END_DECLS
