/* zot-extension-secrets.h — an extension's declared secrets, in the keyring. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Every call ends by ZOT_TIMEOUT_KEYRING or @cancellable, whichever first. */
void        zot_extension_secrets_store_async   (const char           *extension,
                                                 const char           *key,
                                                 const char           *value,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean    zot_extension_secrets_store_finish  (GAsyncResult         *result,
                                                 GError              **error);
/* Removing a key that is not stored is not an error. */
void        zot_extension_secrets_remove_async  (const char           *extension,
                                                 const char           *key,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean    zot_extension_secrets_remove_finish (GAsyncResult         *result,
                                                 GError              **error);
/* Looks up each of @keys; the result maps the stored ones to their values
 * (a key not stored is absent). */
void        zot_extension_secrets_lookup_async  (const char           *extension,
                                                 const char * const   *keys,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
GHashTable *zot_extension_secrets_lookup_finish (GAsyncResult         *result,
                                                 GError              **error);

G_END_DECLS
