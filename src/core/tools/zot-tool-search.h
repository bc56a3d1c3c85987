/* zot-tool-search.h — tool_search, the host's discovery tool.
 *
 * The model calls it to find extension tools it does not see inline
 * (codemode and deferred ones, PROTOCOL.md §4) and to activate deferred
 * ones, which then join its tool list for the rest of the run.
 *
 * It searches the registry's extension tools (origin non-NULL) that are
 * allowed, of every exposure; a tool without a namespace is in its
 * extension's. The query is lower-cased and split into words: runs of
 * letters, digits, '_' and '-', with '-' trimmed from both ends; repeated
 * words count once. Each word adds to a tool's score, comparing lower-case
 * text:
 *
 *   1000  the word is the tool's name
 *    100  the name contains the word (not counted with the exact match)
 *     40  the word is the namespace
 *     30  the namespace contains the word (not counted with the above)
 *     10  the description contains the word
 *      3  the namespace description contains the word
 *      1  the namespace instructions contain the word
 *
 * Within one word the lower tiers together (at most 54) never reach the
 * one above them. Tools scoring 0 are left out; an empty query lists every
 * tool with score 0. Results are ordered by score, highest first, then by
 * name (byte order), and capped by `limit` (default 10, at most 50).
 *
 * Arguments: `query` (a missing query counts as empty), `activate` (tool
 * names, or one name), `limit`. `activate` runs first: each name is
 * activated when it is an allowed deferred tool, otherwise reported
 * ("unknown", "not_deferred", "already_active") without failing the call.
 * With an empty query and names to activate, nothing is listed.
 *
 * The result is a readable text block plus structured_content:
 *
 *   {"query":"…","activation":[{"name","status","message"}…],   (when asked)
 *    "total":N,                                     (matches before the limit)
 *    "tools":[{"name","namespace","exposure","callable","description",
 *              "input_schema"}…],
 *    "namespaces":[{"name","description"?,"instructions"?}…]}
 *
 * `exposure` is "direct", "codemode", "deferred" or "model-only";
 * `callable` says whether the model can call the tool now (it is in
 * zot_tool_registry_list_for_model()). Each namespace of the listing comes
 * once, in order of first appearance, with the first description and
 * instructions its listed tools carry. Malformed arguments give an error
 * result.
 *
 * The tool holds its registry weakly (the registry owns the tool); once the
 * registry is gone a call completes with an error result.
 */
#pragma once

#include "zot-tool-registry.h"

G_BEGIN_DECLS

#define ZOT_TOOL_SEARCH_NAME          "tool_search"
#define ZOT_TOOL_SEARCH_DEFAULT_LIMIT 10
#define ZOT_TOOL_SEARCH_MAX_LIMIT     50

#define ZOT_TYPE_TOOL_SEARCH (zot_tool_search_get_type ())
G_DECLARE_FINAL_TYPE (ZotToolSearch, zot_tool_search, ZOT, TOOL_SEARCH, ZotTool)

ZotTool *zot_tool_search_new (ZotToolRegistry *registry);

typedef gboolean (*ZotToolSearchFilter) (ZotTool  *tool,
                                         gpointer  user_data);

GPtrArray  *zot_tool_search_rank         (ZotToolRegistry     *registry,
                                          const char          *query,
                                          ZotToolSearchFilter  filter,
                                          gpointer             user_data);
const char *zot_tool_search_namespace_of (ZotTool             *tool);

G_END_DECLS
