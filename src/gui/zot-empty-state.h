/* zot-empty-state.h — what a new conversation shows before its first
 * message. */
#pragma once

#include <gtk/gtk.h>

#include "zot-prompt-editor.h"
#include "zot-transcript.h"

G_BEGIN_DECLS

#define ZOT_TYPE_EMPTY_STATE (zot_empty_state_get_type ())
G_DECLARE_FINAL_TYPE (ZotEmptyState, zot_empty_state, ZOT, EMPTY_STATE, GtkWidget)

GtkWidget *zot_empty_state_new               (void);
void       zot_empty_state_set_transcript    (ZotEmptyState   *self,
                                              ZotTranscript   *transcript);
void       zot_empty_state_set_prompt_editor (ZotEmptyState   *self,
                                              ZotPromptEditor *editor);
void       zot_empty_state_set_conversations (ZotEmptyState   *self,
                                              GListModel      *conversations);

/* For the tests: the buttons of the commands and the rows of the
 * conversations, in order. */
GPtrArray *_zot_empty_state_get_command_buttons      (ZotEmptyState *self);
GPtrArray *_zot_empty_state_get_conversation_rows    (ZotEmptyState *self);

G_END_DECLS
