/* zot-tool-call-view.h — a built-in tool call, shown as people read it.
 *
 * An edit or a write is a unified diff, a bash call its command and its
 * output in a terminal block with the exit status, a read the file and
 * the lines asked for. The JSON the model sent is a "Raw" toggle away.
 * Other calls are left to the transcript row's JSON.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-transcript-item.h"

G_BEGIN_DECLS

#define ZOT_TYPE_TOOL_CALL_VIEW (zot_tool_call_view_get_type ())
G_DECLARE_FINAL_TYPE (ZotToolCallView, zot_tool_call_view, ZOT, TOOL_CALL_VIEW, GtkWidget)

GtkWidget *zot_tool_call_view_new          (void);
gboolean   zot_tool_call_view_set_item     (ZotToolCallView   *self,
                                            ZotTranscriptItem *item);
gboolean   zot_tool_call_view_shows_result (ZotToolCallView   *self);
const char *zot_tool_call_preview          (ZotTranscriptItem *item);

G_END_DECLS
