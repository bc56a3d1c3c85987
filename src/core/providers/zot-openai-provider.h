#pragma once

#include "zot-http-provider.h"

G_BEGIN_DECLS

#define ZOT_TYPE_OPENAI_PROVIDER (zot_openai_provider_get_type ())
G_DECLARE_FINAL_TYPE (ZotOpenaiProvider, zot_openai_provider, ZOT, OPENAI_PROVIDER, ZotHttpProvider)

ZotProvider *zot_openai_provider_new (const ZotProviderConfig  *config,
                                      GError                  **error);

G_END_DECLS
