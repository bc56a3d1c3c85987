/* zot-gemini-provider.h — Google's Gemini API (streamGenerateContent).
 *
 * Thought signatures: a signature the model returns on a part is kept on
 * the block it belongs to ("thought_signature" on a tool_use or text
 * block, zot-message.h) and sent back unchanged. Function calls of an
 * assistant message that carries no signature at all (a tool_prompt pair,
 * a turn of another provider, a replayed session) go out with Google's
 * documented placeholder instead, which Gemini 3 requires on the first
 * call of every step.
 */
#pragma once

#include "zot-http-provider.h"

G_BEGIN_DECLS

/* Google's documented stand-in for a function call the model did not make. */
#define ZOT_GEMINI_SIGNATURE_PLACEHOLDER "skip_thought_signature_validator"

#define ZOT_TYPE_GEMINI_PROVIDER (zot_gemini_provider_get_type ())
G_DECLARE_FINAL_TYPE (ZotGeminiProvider, zot_gemini_provider, ZOT, GEMINI_PROVIDER, ZotHttpProvider)

ZotProvider *zot_gemini_provider_new           (const ZotProviderConfig  *config,
                                                GError                  **error);

G_END_DECLS
