/* zot-preferences-window.h — provider, model, keys, approvals and the
 * interface, in GSettings and the keyring, applied to the running host. */
#pragma once

#include <adwaita.h>

#include "zot-host.h"

G_BEGIN_DECLS

#define ZOT_TYPE_PREFERENCES_WINDOW (zot_preferences_window_get_type ())
G_DECLARE_FINAL_TYPE (ZotPreferencesWindow, zot_preferences_window, ZOT, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

GtkWidget *zot_preferences_window_new (GtkWindow *parent,
                                       ZotHost   *host);

G_END_DECLS
