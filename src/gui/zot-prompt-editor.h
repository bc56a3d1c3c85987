/* zot-prompt-editor.h — where the user writes.
 *
 * A multi-line editor: Enter sends (::submit), Shift+Enter breaks the
 * line, Up and Down at the first and last line walk the history, Esc asks
 * to stop the run (::cancel). A "/" at the start opens a completion
 * popover with the host's commands, built-in and extension.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-host.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PROMPT_EDITOR (zot_prompt_editor_get_type ())
G_DECLARE_FINAL_TYPE (ZotPromptEditor, zot_prompt_editor, ZOT, PROMPT_EDITOR, GtkWidget)

GtkWidget *zot_prompt_editor_new      (void);
void       zot_prompt_editor_set_host (ZotPromptEditor *self,
                                       ZotHost         *host);
ZotHost   *zot_prompt_editor_get_host (ZotPromptEditor *self);
char      *zot_prompt_editor_get_text (ZotPromptEditor *self);
void       zot_prompt_editor_set_text (ZotPromptEditor *self,
                                       const char      *text);
void       zot_prompt_editor_insert   (ZotPromptEditor *self,
                                       const char      *text);
void       zot_prompt_editor_attach_file    (ZotPromptEditor *self,
                                             GFile           *file);
gboolean   zot_prompt_editor_attach_texture (ZotPromptEditor *self,
                                             GdkTexture      *texture);
void       zot_prompt_editor_attach_text    (ZotPromptEditor *self,
                                             const char      *name,
                                             const char      *text);
guint      zot_prompt_editor_get_n_images   (ZotPromptEditor *self);
guint      zot_prompt_editor_get_n_loading  (ZotPromptEditor *self);
JsonArray *zot_prompt_editor_take_images    (ZotPromptEditor *self);
gboolean   zot_prompt_editor_get_busy (ZotPromptEditor *self);
void       zot_prompt_editor_set_busy (ZotPromptEditor *self,
                                       gboolean         busy);

G_END_DECLS
