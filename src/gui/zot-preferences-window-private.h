/* zot-preferences-window-private.h — for the tests: the rows, and what
 * the window last told the user. */
#pragma once

#include "zot-preferences-window.h"

G_BEGIN_DECLS

GtkWidget  *_zot_preferences_window_get_widget     (ZotPreferencesWindow *self,
                                                    const char           *name);
const char *_zot_preferences_window_get_last_toast (ZotPreferencesWindow *self);
const char *_zot_preferences_window_get_key_status (ZotPreferencesWindow *self);
gboolean    _zot_preferences_window_is_busy        (ZotPreferencesWindow *self);

G_END_DECLS
