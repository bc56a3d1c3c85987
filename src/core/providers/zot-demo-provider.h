#pragma once

#include "zot-provider.h"

G_BEGIN_DECLS

#define ZOT_TYPE_DEMO_PROVIDER (zot_demo_provider_get_type ())
G_DECLARE_FINAL_TYPE (ZotDemoProvider, zot_demo_provider, ZOT, DEMO_PROVIDER, ZotProvider)

ZotProvider *zot_demo_provider_new (void);

G_END_DECLS
