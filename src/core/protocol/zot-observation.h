/* zot-observation.h — the observation limit on tool results (PROTOCOL.md §6).
 *
 * Lifecycle subscribers (the tool_result event) and call_tool replies see a
 * tool's content through this limit. It is for observation only: the model
 * and the transcript keep the full original output, so the input array is
 * never modified and the output shares no node with it.
 *
 * What is counted, block by block, in order:
 *
 *   - a text block {"type":"text","text":T} costs strlen (T) bytes;
 *   - an image block {"type":"image","mime_type":M,"data":D} costs
 *     strlen (D) + strlen (M) bytes (D is the base64 text as sent);
 *   - member names, the "type" values, JSON quoting and escaping cost
 *     nothing, so the limit never needs the array serialized.
 *
 * The combined cost of the kept blocks is at most ZOT_OBSERVATION_MAX_BYTES
 * and at most ZOT_OBSERVATION_MAX_BLOCKS blocks are kept. The rules:
 *
 *   - a text block that does not fit in what is left of the budget is cut
 *     to fill it, backing off to a UTF-8 character boundary (never inside a
 *     multi-byte character); the cut ends the observation: every later
 *     block is omitted. A text block cut to nothing is omitted;
 *   - an image block that does not fit is omitted whole (images are never
 *     cut) and later blocks are still considered: a smaller image or text
 *     after it is kept if it fits;
 *   - blocks of any other type, and malformed blocks (not an object, no
 *     string "type", a text without a string "text", an image without a
 *     string "data" or "mime_type") are omitted and cost nothing;
 *   - once ZOT_OBSERVATION_MAX_BLOCKS blocks are kept, any block after
 *     them is omitted;
 *   - a kept block carries only the members above, copied.
 *
 * Anything cut or omitted makes the result truncated. Text is expected to
 * be valid UTF-8, as json-glib strings are.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

JsonArray  *zot_observation_limit  (JsonArray *content,
                                    gboolean  *truncated);
JsonObject *zot_observation_result (JsonArray *content,
                                    gboolean   is_error);

G_END_DECLS
