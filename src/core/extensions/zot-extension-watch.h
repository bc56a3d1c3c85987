/* zot-extension-watch.h — the files of one extension, watched for edits. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define ZOT_TYPE_EXTENSION_WATCH (zot_extension_watch_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtensionWatch, zot_extension_watch, ZOT, EXTENSION_WATCH, GObject)

ZotExtensionWatch *zot_extension_watch_new             (const char          *directory);
void               zot_extension_watch_set_globs       (ZotExtensionWatch   *self,
                                                        const char * const  *watch,
                                                        const char * const  *ignore);
gboolean           zot_extension_watch_is_ignored      (ZotExtensionWatch   *self,
                                                        const char          *relative);
guint              zot_extension_watch_get_n_directories (ZotExtensionWatch *self);
gboolean           zot_extension_watch_is_capped       (ZotExtensionWatch   *self);
void               zot_extension_watch_mute            (ZotExtensionWatch   *self,
                                                        gboolean             muted);
const char        *zot_extension_watch_get_directory   (ZotExtensionWatch   *self);

G_END_DECLS
