/* zot-prompt-editor-private.h — for the window and the tests, and for
 * the editor's own files: the completion list and the attached images. */
#pragma once

#include "zot-prompt-editor.h"

G_BEGIN_DECLS

struct _ZotPromptEditor
{
  GtkWidget          parent_instance;

  GtkBox            *outer;
  GtkFlowBox        *attachments;
  GtkBox            *box;
  GtkScrolledWindow *scrolled_window;
  GtkTextView       *text_view;
  GtkTextBuffer     *buffer;
  GtkLabel          *placeholder_label;
  GtkButton         *send_button;
  GtkPopover        *completion_popover;
  GtkListBox        *completion_list;

  ZotHost           *host;
  GSignalGroup      *manager_signals;
  GPtrArray         *commands;        /* ZotCommandInfo */

  GCancellable      *cancellable;     /* image loads */
  guint              n_loading;

  GPtrArray         *history;         /* oldest first */
  int                history_index;   /* -1 while not walking the history */
  char              *draft;           /* the text before the walk began */

  guint              busy : 1;
  guint              quiet : 1;       /* the editor itself is changing the text */
};

gboolean     _zot_prompt_editor_handle_key           (ZotPromptEditor *self,
                                                      guint            keyval,
                                                      GdkModifierType  state);
GtkTextView *_zot_prompt_editor_get_text_view        (ZotPromptEditor *self);
GtkPopover  *_zot_prompt_editor_get_completion_popover (ZotPromptEditor *self);
GStrv        _zot_prompt_editor_dup_completions      (ZotPromptEditor *self);
char        *_zot_prompt_editor_dup_selected_completion (ZotPromptEditor *self);

/* zot-prompt-editor.c */
void         _zot_prompt_editor_get_cursor           (ZotPromptEditor *self,
                                                      GtkTextIter     *iter);
void         _zot_prompt_editor_attach_failed        (ZotPromptEditor *self,
                                                      const char      *message);

/* zot-prompt-editor-completion.c */
gboolean     _zot_prompt_editor_completion_visible   (ZotPromptEditor *self);
void         _zot_prompt_editor_hide_completion      (ZotPromptEditor *self);
void         _zot_prompt_editor_update_completion    (ZotPromptEditor *self);
void         _zot_prompt_editor_move_selection       (ZotPromptEditor *self,
                                                      int              delta);
void         _zot_prompt_editor_accept_completion    (ZotPromptEditor *self,
                                                      GtkListBoxRow   *row);
void         _zot_prompt_editor_refresh_commands     (ZotPromptEditor *self);

G_END_DECLS
