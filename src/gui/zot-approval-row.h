/* zot-approval-row.h — a tool call's approval, inline in its row.
 *
 * What the call will run (the command, or the path and a diff or the
 * content), where, and the answers: allow once, always allow this tool in
 * this conversation (only where that is remembered, and never for bash,
 * write or edit), deny with a reason. Nothing in it takes the focus by
 * itself: a key typed elsewhere never answers it. Once answered it shows
 * what happened.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-approval.h"
#include "zot-transcript-item.h"

G_BEGIN_DECLS

#define ZOT_TYPE_APPROVAL_ROW (zot_approval_row_get_type ())
G_DECLARE_FINAL_TYPE (ZotApprovalRow, zot_approval_row, ZOT, APPROVAL_ROW, GtkWidget)

GtkWidget   *zot_approval_row_new              (void);
void         zot_approval_row_set_approval     (ZotApprovalRow    *self,
                                                ZotApproval       *approval,
                                                const char        *cwd);
ZotApproval *zot_approval_row_get_approval     (ZotApprovalRow    *self);
void         zot_approval_row_focus            (ZotApprovalRow    *self,
                                                ZotApprovalChoice  choice);
void         zot_approval_row_answer           (ZotApprovalRow    *self,
                                                ZotApprovalChoice  choice);

gboolean     zot_approval_offers_remember      (ZotApproval       *approval);
char        *zot_approval_describe_state       (ZotApproval       *approval);

void         zot_transcript_item_set_approval  (ZotTranscriptItem *item,
                                                ZotApproval       *approval,
                                                const char        *cwd);
ZotApproval *zot_transcript_item_get_approval  (ZotTranscriptItem *item);
const char  *zot_transcript_item_get_approval_cwd (ZotTranscriptItem *item);

G_END_DECLS
