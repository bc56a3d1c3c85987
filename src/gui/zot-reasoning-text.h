/* zot-reasoning-text.h — a reply's reasoning, as data.
 *
 * The model's reasoning (thinking) for one assistant reply: streamed in,
 * or read from its message's "thinking" blocks (zot-message.h); whether it
 * is still streaming, how long it took, and whether the user unfolded it.
 * A transcript item owns one (zot_transcript_item_get_reasoning()); a
 * ZotReasoningView shows it.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define ZOT_TYPE_REASONING_TEXT (zot_reasoning_text_get_type ())
G_DECLARE_FINAL_TYPE (ZotReasoningText, zot_reasoning_text, ZOT, REASONING_TEXT, GObject)

ZotReasoningText *zot_reasoning_text_new             (void);
const char       *zot_reasoning_text_get_text        (ZotReasoningText *self);
gsize             zot_reasoning_text_get_length      (ZotReasoningText *self);
gboolean          zot_reasoning_text_get_streaming   (ZotReasoningText *self);
gint64            zot_reasoning_text_get_duration_ms (ZotReasoningText *self);
gboolean          zot_reasoning_text_get_expanded    (ZotReasoningText *self);
void              zot_reasoning_text_set_expanded    (ZotReasoningText *self,
                                                      gboolean          expanded);
void              zot_reasoning_text_append          (ZotReasoningText *self,
                                                      const char       *delta);
void              zot_reasoning_text_end             (ZotReasoningText *self);
void              zot_reasoning_text_set_message     (ZotReasoningText *self,
                                                      JsonObject       *message);
char             *zot_reasoning_text_from_message    (JsonObject       *message);

G_END_DECLS
