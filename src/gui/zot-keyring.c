/* zot-keyring.c — API keys in the Secret Service, through libsecret.
 *
 * A desktop without a Secret Service is normal (a bare window manager, a
 * container): a lookup then finds no key, quietly, and only storing a key
 * reports that there is nowhere safe to put it.
 */
#define G_LOG_DOMAIN "zot-keyring"

#include "config.h"

#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include "zot-keyring.h"
#include "zot-limits.h"
#include "zot-provider-table.h"
#include "zot-source.h"

#define ATTRIBUTE_PROVIDER "provider"

G_DEFINE_QUARK (zot-keyring-error-quark, zot_keyring_error)

static const SecretSchema *
get_schema (void)
{
  static const SecretSchema schema = {
    "dev.zot.Zot.ApiKey", SECRET_SCHEMA_NONE,
    {
      { ATTRIBUTE_PROVIDER, SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    }
  };

  return &schema;
}

static const char *
provider_display_name (const char *provider)
{
  const ZotProviderInfo *info = zot_provider_table_lookup (provider);

  g_assert (provider != NULL);

  return info != NULL ? zot_provider_info_get_label (info) : provider;
}

/* Turns libsecret's and D-Bus's errors into one a user can act on. */
static GError *
translate_error (const GError *error)
{
  g_assert (error != NULL);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (error);

  /* No session bus, no service on it, or the bus went away. */
  if (error->domain == G_DBUS_ERROR || error->domain == G_IO_ERROR ||
      error->domain == G_SPAWN_ERROR)
    return g_error_new (ZOT_KEYRING_ERROR, ZOT_KEYRING_ERROR_UNAVAILABLE,
                        /* Translators: %s is the error message of the keyring service; "Secret
                         * Service" is the name of a standard, keep it */
                        _("No keyring is available (%s); start a Secret Service such as "
                          "GNOME Keyring to keep keys"),
                        error->message);

  return g_error_new (ZOT_KEYRING_ERROR, ZOT_KEYRING_ERROR_FAILED,
                      /* Translators: %s is the error message of the keyring service */
                      _("The keyring refused (%s)"), error->message);
}

/* Every call has its own deadline: a Secret Service that takes a call and
 * never answers would otherwise hold it for D-Bus's 25 s, or for ever. */
typedef struct
{
  GCancellable *cancellable;   /* given to libsecret */
  gulong        caller_id;
  GSource      *deadline;
  gboolean      timed_out;
} Call;

static void
call_free (gpointer data)
{
  Call *call = data;

  zot_clear_source (&call->deadline);
  g_clear_object (&call->cancellable);
  g_free (call);
}

static void
cancel_call_cb (GCancellable *caller,
                gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static gboolean
call_deadline_cb (gpointer user_data)
{
  Call *call = user_data;

  call->timed_out = TRUE;
  g_clear_pointer (&call->deadline, g_source_unref);
  g_cancellable_cancel (call->cancellable);
  return G_SOURCE_REMOVE;
}

static GCancellable *
start_call (GTask *task)
{
  Call *call = g_new0 (Call, 1);
  GCancellable *caller = g_task_get_cancellable (task);

  call->cancellable = g_cancellable_new ();
  if (caller != NULL)
    call->caller_id = g_cancellable_connect (caller, G_CALLBACK (cancel_call_cb),
                                             g_object_ref (call->cancellable), g_object_unref);
  call->deadline = g_timeout_source_new (zot_timeout_get_ms (ZOT_TIMEOUT_KEYRING));
  g_source_set_callback (call->deadline, call_deadline_cb, call, NULL);
  g_source_set_static_name (call->deadline, "[zot] keyring deadline");
  g_source_attach (call->deadline, g_task_get_context (task));
  g_task_set_task_data (task, call, call_free);

  return call->cancellable;
}

/* Ends the call's own deadline; TRUE when it is what ended the call. */
static gboolean
finish_call (GTask *task)
{
  Call *call = g_task_get_task_data (task);
  GCancellable *caller = g_task_get_cancellable (task);

  if (call->caller_id != 0)
    g_cancellable_disconnect (caller, call->caller_id);
  call->caller_id = 0;
  zot_clear_source (&call->deadline);
  return call->timed_out && (caller == NULL || !g_cancellable_is_cancelled (caller));
}

static GError *
timed_out_error (void)
{
  return g_error_new (ZOT_KEYRING_ERROR, ZOT_KEYRING_ERROR_UNAVAILABLE,
                      /* Translators: %u is a number of milliseconds */
                      _("The keyring did not answer within %u ms"),
                      zot_timeout_get_ms (ZOT_TIMEOUT_KEYRING));
}

/* Ends a call that changes the keyring (store, clear). Unlike a lookup,
 * whose caller can go on without a key, a failed change is reported, so a
 * timeout and libsecret's error both reach the caller. */
static void
return_change (GTask        *task,
               gboolean      failed,
               const GError *error)
{
  if (finish_call (task))
    g_task_return_error (task, timed_out_error ());
  else if (failed)
    g_task_return_error (task, translate_error (error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  char *secret;

  secret = secret_password_lookup_finish (result, &error);
  if (finish_call (task))
    {
      g_debug ("No key from the keyring: it did not answer in time");
      secret_password_free (secret);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  if (error != NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }

      /* Startup looks keys up: a missing keyring is not worth a dialog. */
      g_debug ("No key from the keyring: %s", error->message);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }

  if (secret == NULL || *secret == '\0')
    {
      secret_password_free (secret);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }

  g_task_return_pointer (task, g_strdup (secret), g_free);
  secret_password_free (secret);
}

/**
 * zot_keyring_lookup_async:
 * @provider: a provider name with a key variable (zot-provider-table.h)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Looks up the key stored for @provider.
 */
void
zot_keyring_lookup_async (const char          *provider,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GCancellable *call_cancellable;

  g_return_if_fail (provider != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_keyring_lookup_async);

  call_cancellable = start_call (task);
  secret_password_lookup (get_schema (), call_cancellable, lookup_cb, g_steal_pointer (&task),
                          ATTRIBUTE_PROVIDER, provider,
                          NULL);
}

/**
 * zot_keyring_lookup_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError; set only on cancellation
 *
 * Returns: (transfer full) (nullable): the key, or %NULL when none is stored
 *   or no Secret Service is available
 */
char *
zot_keyring_lookup_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_keyring_lookup_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  gboolean stored = secret_password_store_finish (result, &error);

  return_change (task, !stored, error);
}

/**
 * zot_keyring_store_async:
 * @provider: a provider name with a key variable (zot-provider-table.h)
 * @key: the API key
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Stores @key for @provider in the default collection, replacing any key
 * stored before.
 */
void
zot_keyring_store_async (const char          *provider,
                         const char          *key,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GCancellable *call_cancellable;
  g_autofree char *label = NULL;

  g_return_if_fail (provider != NULL);
  g_return_if_fail (key != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_keyring_store_async);

  /* Translators: the label of the stored key in the keyring (as seen in Passwords and Keys); %s
   * is a provider name such as Anthropic */
  label = g_strdup_printf (_("Zot API key for %s"), provider_display_name (provider));
  call_cancellable = start_call (task);
  secret_password_store (get_schema (), SECRET_COLLECTION_DEFAULT, label, key,
                         call_cancellable, store_cb, g_steal_pointer (&task),
                         ATTRIBUTE_PROVIDER, provider,
                         NULL);
}

/**
 * zot_keyring_store_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError, in %ZOT_KEYRING_ERROR
 *
 * Returns: %TRUE when the key is in the keyring
 */
gboolean
zot_keyring_store_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_keyring_store_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
clear_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  gboolean cleared = secret_password_clear_finish (result, &error);

  /* FALSE without an error: there was nothing to clear. */
  return_change (task, !cleared && error != NULL, error);
}

/**
 * zot_keyring_clear_async:
 * @provider: a provider name with a key variable (zot-provider-table.h)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Deletes the key stored for @provider. Deleting a key that is not there
 * succeeds.
 */
void
zot_keyring_clear_async (const char          *provider,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GCancellable *call_cancellable;

  g_return_if_fail (provider != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_keyring_clear_async);

  call_cancellable = start_call (task);
  secret_password_clear (get_schema (), call_cancellable, clear_cb, g_steal_pointer (&task),
                         ATTRIBUTE_PROVIDER, provider,
                         NULL);
}

/**
 * zot_keyring_clear_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError, in %ZOT_KEYRING_ERROR
 *
 * Returns: %TRUE when no key is stored for the provider any more
 */
gboolean
zot_keyring_clear_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_keyring_clear_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
