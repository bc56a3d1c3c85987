/* zot-message-actions.h — what can be done to a message of the transcript:
 * copy it (as Markdown or plain text), edit and resend a prompt (in a new
 * branch), retry the last reply, delete a message.
 *
 * Each transcript row holds a ZotMessageActions: a small group of flat
 * buttons shown while the pointer is over the row or the focus in it, the
 * same actions in the row's context menu (right click, Menu, Shift+F10)
 * and shortcuts. Copying happens in the row; the rest goes to the window
 * ("win.message-edit", "win.message-retry", "win.message-delete", with the
 * item's position in the transcript), which refuses while a turn runs.
 */
#pragma once

#include <adwaita.h>

#include "zot-transcript-item.h"
#include "zot-window.h"

G_BEGIN_DECLS

#define ZOT_TYPE_MESSAGE_ACTIONS (zot_message_actions_get_type ())
G_DECLARE_FINAL_TYPE (ZotMessageActions, zot_message_actions, ZOT, MESSAGE_ACTIONS, GtkWidget)

GtkWidget *zot_message_actions_new          (GtkWidget         *row);
void       zot_message_actions_set_item     (ZotMessageActions *self,
                                             ZotTranscriptItem *item);
gboolean   zot_message_actions_get_revealed (ZotMessageActions *self);
void       zot_message_actions_popup        (ZotMessageActions *self,
                                             double             x,
                                             double             y);
GtkWidget *zot_message_actions_get_menu     (ZotMessageActions *self);

/* The window's side (zot-message-actions-window.c). */
void       _zot_message_actions_install     (GtkWidgetClass    *window_class);
gboolean   _zot_message_actions_submit      (ZotWindow         *window,
                                             const char        *text,
                                             JsonArray         *images);

G_END_DECLS
