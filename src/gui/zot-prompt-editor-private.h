/* zot-prompt-editor-private.h — for the window and the tests. */
#pragma once

#include "zot-prompt-editor.h"

G_BEGIN_DECLS

gboolean     _zot_prompt_editor_handle_key           (ZotPromptEditor *self,
                                                      guint            keyval,
                                                      GdkModifierType  state);
GtkTextView *_zot_prompt_editor_get_text_view        (ZotPromptEditor *self);
GtkPopover  *_zot_prompt_editor_get_completion_popover (ZotPromptEditor *self);
GStrv        _zot_prompt_editor_dup_completions      (ZotPromptEditor *self);
char        *_zot_prompt_editor_dup_selected_completion (ZotPromptEditor *self);

G_END_DECLS
