/* zot-message.h — the conversation as the core keeps it.
 *
 * Messages are json-glib objects in one provider-neutral shape; providers
 * translate them to their API, the session writes them as they are.
 *
 *   {"role":"user","content":[{"type":"text","text":"…"},
 *                             {"type":"image","mime_type":"image/png","data":"<base64>"}]}
 *   {"role":"assistant","content":[{"type":"text","text":"…"},
 *                                  {"type":"tool_use","id":"call_1","name":"read","input":{…}}]}
 *   {"role":"tool","content":[{"type":"tool_result","tool_use_id":"call_1","is_error":false,
 *                              "content":[{"type":"text","text":"…"}]}]}
 *
 * A "tool" message answers every tool_use of the assistant message before
 * it, in the same order. An assistant tool_use whose arguments were not
 * valid JSON keeps them as a string in "input_raw" and an empty "input".
 * Optional members: "origin_extension" on a tool_use made for an
 * extension, "thought_signature" (opaque, kept as the API sent it) on a
 * tool_use or text block from a model that signs its turns (Gemini,
 * zot-gemini-provider.h), "usage" {"input_tokens","output_tokens",
 * "reasoning_tokens","cache_read_tokens","cache_write_tokens","cost_usd"}
 * on an assistant message, "time" (RFC 3339, UTC) on every message the
 * agent adds, "thinking" {"thinking","signature"} blocks of an assistant
 * message (the model's reasoning from any provider, shown and saved; only
 * Anthropic's carry a signature and only those are sent back, to Anthropic
 * alone) and "redacted_thinking" {"data"} (Anthropic's, opaque, sent back
 * to it only), "summary":true on the user message that replaces a compacted
 * transcript, "interrupted":true on an error tool_result that loading a
 * session made up for a call the host died in (zot-session.h).
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The user turn the agent sends for /compact; the demo model recognises it. */
#define ZOT_COMPACT_PROMPT \
  "Summarise this conversation so far for yourself, so that it can go on from the " \
  "summary alone: the goal, what was done, files touched, decisions, open questions. " \
  "Answer with the summary only."

JsonObject *zot_message_new_user_text      (const char *text);
JsonObject *zot_message_new_user           (const char *text,
                                            JsonArray  *images);
const char *zot_image_sniff_mime_type      (const guint8 *head,
                                            gsize         length);
gboolean    zot_image_check_size           (goffset     size,
                                            const char *name,
                                            GError    **error);
JsonObject *zot_image_block_new            (GBytes     *bytes,
                                            const char *name,
                                            GError    **error);
JsonObject *zot_message_new_assistant_text (const char *text);
void        zot_message_stamp_time         (JsonObject *message);
JsonArray  *zot_content_new_text           (const char *text);
void        zot_content_add_text           (JsonArray  *content,
                                            const char *text);
char       *zot_message_get_text           (JsonObject *message);
char       *zot_content_get_text           (JsonArray  *content);
const char *zot_message_get_role           (JsonObject *message);
gboolean    zot_message_calls_tools        (JsonObject *message);
gsize       zot_message_estimate_bytes     (JsonObject *message);
JsonObject *zot_json_object_copy           (JsonObject *object);
char       *zot_json_to_string             (JsonNode   *node);
char       *zot_json_object_to_string      (JsonObject *object);
JsonObject *zot_json_object_from_string    (const char *text,
                                            GError    **error);

G_END_DECLS
