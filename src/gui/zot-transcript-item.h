/* zot-transcript-item.h — one row of the transcript, as data.
 *
 * The transcript is a GListStore of these; its view binds a recycled row
 * widget (ZotTranscriptRow) to whichever item scrolls into view. An
 * item holds what a row shows and nothing of how: the kind of row, its
 * text, the extension it came from, a tool call's arguments and result.
 * What changes after the item is added (streamed text, a tool's result, a
 * row expanded by the user) is a property with notify, so that a bound
 * row follows it in place. What is expensive to work out for a row (the
 * walked Markdown, an argument preview, decoded images) is worked out
 * once, when first asked for, and kept here rather than in the row.
 */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

#include "zot-markdown-document.h"
#include "zot-reasoning-text.h"
#include "zot-tool.h"

G_BEGIN_DECLS

/**
 * ZotTranscriptItemKind:
 * @ZOT_TRANSCRIPT_ITEM_USER: a message the user sent, maybe with images
 * @ZOT_TRANSCRIPT_ITEM_ASSISTANT: a model reply (Markdown), maybe streaming
 * @ZOT_TRANSCRIPT_ITEM_TOOL: a tool call, its status and result
 * @ZOT_TRANSCRIPT_ITEM_NOTE: an extension's note, with a level
 * @ZOT_TRANSCRIPT_ITEM_ERROR: a turn that failed, or an error for the user
 * @ZOT_TRANSCRIPT_ITEM_WARNING: a warning from the host, agent or manager
 * @ZOT_TRANSCRIPT_ITEM_CRASH: an extension that stopped
 * @ZOT_TRANSCRIPT_ITEM_INFO: host output such as /help (monospace)
 * @ZOT_TRANSCRIPT_ITEM_DISPLAY: a command's `display` text
 * @ZOT_TRANSCRIPT_ITEM_LOAD_FAILURE: an extension that could not load
 * @ZOT_TRANSCRIPT_ITEM_SUMMARY: a compaction's summary (Markdown)
 * @ZOT_TRANSCRIPT_ITEM_STARTUP: the list of loaded extensions
 * @ZOT_TRANSCRIPT_ITEM_RETRY: a busy model asked again after a wait,
 *   streaming (with a Cancel) while the wait lasts
 */
typedef enum
{
  ZOT_TRANSCRIPT_ITEM_USER,
  ZOT_TRANSCRIPT_ITEM_ASSISTANT,
  ZOT_TRANSCRIPT_ITEM_TOOL,
  ZOT_TRANSCRIPT_ITEM_NOTE,
  ZOT_TRANSCRIPT_ITEM_ERROR,
  ZOT_TRANSCRIPT_ITEM_WARNING,
  ZOT_TRANSCRIPT_ITEM_CRASH,
  ZOT_TRANSCRIPT_ITEM_INFO,
  ZOT_TRANSCRIPT_ITEM_DISPLAY,
  ZOT_TRANSCRIPT_ITEM_LOAD_FAILURE,
  ZOT_TRANSCRIPT_ITEM_SUMMARY,
  ZOT_TRANSCRIPT_ITEM_STARTUP,
  ZOT_TRANSCRIPT_ITEM_RETRY,
} ZotTranscriptItemKind;

/**
 * ZotTranscriptToolStatus:
 * @ZOT_TRANSCRIPT_TOOL_RUNNING: no result yet
 * @ZOT_TRANSCRIPT_TOOL_COMPLETED: ran (its result may still be an error)
 * @ZOT_TRANSCRIPT_TOOL_FAILED: unknown tool, crash, or a plain error
 * @ZOT_TRANSCRIPT_TOOL_BLOCKED: refused by a guard or a policy
 * @ZOT_TRANSCRIPT_TOOL_CANCELLED: cancelled
 * @ZOT_TRANSCRIPT_TOOL_TIMED_OUT: passed its deadline
 */
typedef enum
{
  ZOT_TRANSCRIPT_TOOL_RUNNING,
  ZOT_TRANSCRIPT_TOOL_COMPLETED,
  ZOT_TRANSCRIPT_TOOL_FAILED,
  ZOT_TRANSCRIPT_TOOL_BLOCKED,
  ZOT_TRANSCRIPT_TOOL_CANCELLED,
  ZOT_TRANSCRIPT_TOOL_TIMED_OUT,
} ZotTranscriptToolStatus;

#define ZOT_TYPE_TRANSCRIPT_ITEM_KIND   (zot_transcript_item_kind_get_type ())
#define ZOT_TYPE_TRANSCRIPT_TOOL_STATUS (zot_transcript_tool_status_get_type ())
GType zot_transcript_item_kind_get_type   (void) G_GNUC_CONST;
GType zot_transcript_tool_status_get_type (void) G_GNUC_CONST;

#define ZOT_TYPE_TRANSCRIPT_ITEM (zot_transcript_item_get_type ())
G_DECLARE_FINAL_TYPE (ZotTranscriptItem, zot_transcript_item, ZOT, TRANSCRIPT_ITEM, GObject)

ZotTranscriptItem      *zot_transcript_item_new_user           (const char        *text,
                                                                JsonArray         *content);
ZotTranscriptItem      *zot_transcript_item_new_assistant      (void);
ZotTranscriptItem      *zot_transcript_item_new_tool           (const char        *id,
                                                                const char        *name,
                                                                JsonObject        *args,
                                                                const char        *origin,
                                                                const char        *parent_id);
ZotTranscriptItem      *zot_transcript_item_new_note           (ZotTranscriptItemKind kind,
                                                                const char        *extension_name,
                                                                const char        *level,
                                                                const char        *text);
ZotTranscriptItem      *zot_transcript_item_new_text           (ZotTranscriptItemKind kind,
                                                                const char        *extension_name,
                                                                const char        *text);
ZotTranscriptItem      *zot_transcript_item_new_retry          (const char        *text);
ZotTranscriptItem      *zot_transcript_item_new_load_failure   (const char        *path,
                                                                const char        *message,
                                                                const char        *log_path);

ZotTranscriptItemKind   zot_transcript_item_get_kind           (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_text           (ZotTranscriptItem *self);
gsize                   zot_transcript_item_get_text_length    (ZotTranscriptItem *self);
void                    zot_transcript_item_set_text           (ZotTranscriptItem *self,
                                                                const char        *text);
void                    zot_transcript_item_append_text        (ZotTranscriptItem *self,
                                                                const char        *delta);
const char             *zot_transcript_item_get_extension_name (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_level          (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_title          (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_detail         (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_path           (ZotTranscriptItem *self);
ZotMarkdownDocument    *zot_transcript_item_get_document       (ZotTranscriptItem *self);

gboolean                zot_transcript_item_get_streaming      (ZotTranscriptItem *self);
gboolean                zot_transcript_item_get_stopped        (ZotTranscriptItem *self);
void                    zot_transcript_item_finish             (ZotTranscriptItem *self,
                                                                const char        *text);
void                    zot_transcript_item_stop               (ZotTranscriptItem *self);

guint                   zot_transcript_item_get_n_images       (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_image_mime_type (ZotTranscriptItem *self,
                                                                 guint              index);
GdkTexture             *zot_transcript_item_get_image_texture  (ZotTranscriptItem *self,
                                                                guint              index);
const char             *zot_transcript_item_get_image_note     (ZotTranscriptItem *self,
                                                                guint              index);

const char             *zot_transcript_item_get_tool_id        (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_tool_name      (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_origin         (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_parent_id      (ZotTranscriptItem *self);
GListModel             *zot_transcript_item_get_children       (ZotTranscriptItem *self);
void                    zot_transcript_item_add_child          (ZotTranscriptItem *self,
                                                                ZotTranscriptItem *child);
void                    zot_transcript_item_set_requested_by   (ZotTranscriptItem *self,
                                                                const char        *extension,
                                                                guint              depth);
const char             *zot_transcript_item_get_requested_by   (ZotTranscriptItem *self);
guint                   zot_transcript_item_get_depth          (ZotTranscriptItem *self);
void                    zot_transcript_item_set_waiting_panel  (ZotTranscriptItem *self,
                                                                const char        *key,
                                                                const char        *title);
const char             *zot_transcript_item_get_waiting_panel  (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_waiting_title  (ZotTranscriptItem *self);
void                    zot_transcript_item_set_progress       (ZotTranscriptItem *self,
                                                                const char        *text);
const char             *zot_transcript_item_get_progress       (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_args_preview   (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_args_pretty    (ZotTranscriptItem *self);
JsonObject             *zot_transcript_item_get_args           (ZotTranscriptItem *self);
ZotTranscriptToolStatus zot_transcript_item_get_status         (ZotTranscriptItem *self);
gboolean                zot_transcript_item_get_is_error       (ZotTranscriptItem *self);
const char             *zot_transcript_item_get_result         (ZotTranscriptItem *self);
void                    zot_transcript_item_set_result         (ZotTranscriptItem *self,
                                                                ZotToolResult     *result);
ZotReasoningText       *zot_transcript_item_get_reasoning      (ZotTranscriptItem *self);
gboolean                zot_transcript_item_get_expanded       (ZotTranscriptItem *self);
void                    zot_transcript_item_set_expanded       (ZotTranscriptItem *self,
                                                                gboolean           expanded);

G_END_DECLS
