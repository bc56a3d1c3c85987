/* zot-trust-banner.h — the window's offer to run a project's own extensions. */
#pragma once

#include <gtk/gtk.h>

#include "zot-extension-manager.h"

G_BEGIN_DECLS

#define ZOT_TYPE_TRUST_BANNER (zot_trust_banner_get_type ())
G_DECLARE_FINAL_TYPE (ZotTrustBanner, zot_trust_banner, ZOT, TRUST_BANNER, GtkWidget)

GtkWidget  *zot_trust_banner_new          (void);
void        zot_trust_banner_update       (ZotTrustBanner      *self,
                                           ZotExtensionManager *manager);
gboolean    zot_trust_banner_get_revealed (ZotTrustBanner      *self);
const char *zot_trust_banner_get_text     (ZotTrustBanner      *self);

/* For tests. */
GtkWidget  *_zot_trust_banner_get_trust_button   (ZotTrustBanner *self);
GtkWidget  *_zot_trust_banner_get_dismiss_button (ZotTrustBanner *self);

G_END_DECLS
