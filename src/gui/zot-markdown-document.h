/* zot-markdown-document.h — a Markdown text walked once and kept.
 *
 * Parsing with cmark and building the escaped Pango markup of every block
 * is the expensive half of showing Markdown. A ZotMarkdownDocument does it
 * once and keeps the blocks it decided, so that a view can be rebuilt from
 * them (a transcript row scrolled back into view) without parsing again.
 * It holds no widgets and is immutable once made, so it may be shared.
 */
#pragma once

#include <glib-object.h>

#include "zot-markdown-private.h"

G_BEGIN_DECLS

#define ZOT_TYPE_MARKDOWN_DOCUMENT (zot_markdown_document_get_type ())

typedef struct _ZotMarkdownDocument ZotMarkdownDocument;

GType                zot_markdown_document_get_type (void) G_GNUC_CONST;
ZotMarkdownDocument *zot_markdown_document_new      (const char                *markdown);
ZotMarkdownDocument *zot_markdown_document_ref      (ZotMarkdownDocument       *self);
void                 zot_markdown_document_unref    (ZotMarkdownDocument       *self);
const char          *zot_markdown_document_get_text (const ZotMarkdownDocument *self);
void                 zot_markdown_document_replay   (const ZotMarkdownDocument *self,
                                                     const ZotMarkdownSink     *sink,
                                                     gpointer                   root,
                                                     gpointer                   user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotMarkdownDocument, zot_markdown_document_unref)

G_END_DECLS
