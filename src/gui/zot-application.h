#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ZOT_TYPE_APPLICATION (zot_application_get_type ())
G_DECLARE_FINAL_TYPE (ZotApplication, zot_application, ZOT, APPLICATION, AdwApplication)

ZotApplication *zot_application_new (void);

G_END_DECLS
