/* zot-transcript.h — the conversation as the window shows it.
 *
 * A view of a ZotHost: it connects to the host, its agent and its
 * extension manager, and adds a row for each thing they report: user and
 * assistant messages (Markdown), tool calls with their status, extension
 * notes and display text, load failures, crashes, warnings, host info and
 * turn errors. It never sends or saves anything.
 */
#pragma once

#include <gtk/gtk.h>

#include "zot-host.h"

G_BEGIN_DECLS

#define ZOT_TYPE_TRANSCRIPT (zot_transcript_get_type ())
G_DECLARE_FINAL_TYPE (ZotTranscript, zot_transcript, ZOT, TRANSCRIPT, GtkWidget)

GtkWidget *zot_transcript_new              (void);
void       zot_transcript_set_host         (ZotTranscript *self,
                                            ZotHost       *host);
ZotHost   *zot_transcript_get_host         (ZotTranscript *self);
void       zot_transcript_clear            (ZotTranscript *self);
void       zot_transcript_add_note         (ZotTranscript *self,
                                            const char    *extension_name,
                                            const char    *level,
                                            const char    *message);
void       zot_transcript_add_error        (ZotTranscript *self,
                                            const char    *message);
void       zot_transcript_add_info         (ZotTranscript *self,
                                            const char    *text);
gboolean   zot_transcript_get_show_startup (ZotTranscript *self);
void       zot_transcript_set_show_startup (ZotTranscript *self,
                                            gboolean       show_startup);

/* zot-transcript-approvals.c */
void       zot_transcript_show_approval    (ZotTranscript     *self,
                                            ZotApproval       *approval);
gboolean   zot_transcript_focus_approval   (ZotTranscript     *self,
                                            ZotApproval       *approval,
                                            ZotApprovalChoice  choice);

G_END_DECLS
