#pragma once

#include "zot-http-provider.h"

G_BEGIN_DECLS

#define ZOT_TYPE_ANTHROPIC_PROVIDER (zot_anthropic_provider_get_type ())
G_DECLARE_FINAL_TYPE (ZotAnthropicProvider, zot_anthropic_provider, ZOT, ANTHROPIC_PROVIDER, ZotHttpProvider)

ZotProvider *zot_anthropic_provider_new (const ZotProviderConfig  *config,
                                         GError                  **error);

G_END_DECLS
