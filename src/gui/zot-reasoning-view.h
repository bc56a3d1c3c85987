/* zot-reasoning-view.h — a reply's reasoning, folded above its text.
 *
 * Shows a ZotReasoningText: a header button ("Thinking…" with a spinner
 * while it streams, then "Thought for N seconds", or "Reasoning" for a
 * reply loaded from a session) that unfolds the text under it. Folded
 * at first; hidden while there is no reasoning.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-reasoning-text.h"

G_BEGIN_DECLS

#define ZOT_TYPE_REASONING_VIEW (zot_reasoning_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotReasoningView, zot_reasoning_view, ZOT, REASONING_VIEW, GtkWidget)

GtkWidget *zot_reasoning_view_new      (void);
void       zot_reasoning_view_set_text (ZotReasoningView *self,
                                        ZotReasoningText *text);

G_END_DECLS
