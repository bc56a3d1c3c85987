/* zot-keyring.h — API keys in the Secret Service.
 *
 * One secret per provider that takes a key (its name in the table of
 * zot-provider-table.h: "anthropic", "openai"), under the schema
 * "dev.zot.Zot.ApiKey" with the attribute "provider". Everything is
 * asynchronous; keys are never written to plain files.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define ZOT_KEYRING_ERROR (zot_keyring_error_quark ())

/**
 * ZotKeyringError:
 * @ZOT_KEYRING_ERROR_UNAVAILABLE: no Secret Service answers on the session bus
 * @ZOT_KEYRING_ERROR_FAILED: the Secret Service refused, for instance a locked
 *   keyring the user did not unlock
 */
typedef enum
{
  ZOT_KEYRING_ERROR_UNAVAILABLE,
  ZOT_KEYRING_ERROR_FAILED,
} ZotKeyringError;

GQuark    zot_keyring_error_quark   (void);

void      zot_keyring_lookup_async  (const char           *provider,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data);
char     *zot_keyring_lookup_finish (GAsyncResult         *result,
                                     GError              **error);
void      zot_keyring_store_async   (const char           *provider,
                                     const char           *key,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data);
gboolean  zot_keyring_store_finish  (GAsyncResult         *result,
                                     GError              **error);
void      zot_keyring_clear_async   (const char           *provider,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data);
gboolean  zot_keyring_clear_finish  (GAsyncResult         *result,
                                     GError              **error);

G_END_DECLS
