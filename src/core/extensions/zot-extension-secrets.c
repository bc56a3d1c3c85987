/* zot-extension-secrets.c — an extension's declared secrets, in the keyring.
 *
 * Kept under a schema of their own (extension, key), apart from the
 * provider keys, so no extension's lookup can reach a provider's key.
 *
 * ZOT_TEST_EXTENSION_SECRETS_FILE, for the tests only, points at a key
 * file used instead of the Secret Service: the test machines have no
 * keyring, and a test must never touch the user's.
 */
#define G_LOG_DOMAIN "zot-extension-secrets"

#include "config.h"

#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include "zot-extension-secrets.h"
#include "zot-limits.h"

#define TEST_FILE_VARIABLE "ZOT_TEST_EXTENSION_SECRETS_FILE"

static const SecretSchema *
get_schema (void)
{
  static const SecretSchema schema = {
    "dev.zot.Zot.ExtensionSecret", SECRET_SCHEMA_NONE,
    {
      { "extension", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "key", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    }
  };

  return &schema;
}

typedef struct
{
  char         *extension;
  GStrv         keys;
  char         *value;
  GHashTable   *found;
  guint         pending;
  GError       *error;
  GCancellable *cancellable;
  guint         deadline;
} Call;

static void
call_free (gpointer data)
{
  Call *call = data;

  g_clear_handle_id (&call->deadline, g_source_remove);
  g_free (call->extension);
  g_strfreev (call->keys);
  if (call->value != NULL)
    memset (call->value, 0, strlen (call->value));
  g_free (call->value);
  g_clear_pointer (&call->found, g_hash_table_unref);
  g_clear_error (&call->error);
  g_clear_object (&call->cancellable);
  g_free (call);
}

static gboolean
deadline_cb (gpointer user_data)
{
  Call *call = user_data;

  call->deadline = 0;
  g_cancellable_cancel (call->cancellable);
  return G_SOURCE_REMOVE;
}

static void
on_outer_cancelled (GCancellable *outer,
                    GCancellable *inner)
{
  (void) outer;
  g_cancellable_cancel (inner);
}

/* The task's own cancellable is cancelled by the caller's or by the
 * keyring deadline; a deadline's cancel is told apart on return. */
static GTask *
call_new (gpointer             source_tag,
          const char          *extension,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  Call *call = g_new0 (Call, 1);
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  call->extension = g_strdup (extension);
  call->cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    g_cancellable_connect (cancellable, G_CALLBACK (on_outer_cancelled),
                           g_object_ref (call->cancellable), g_object_unref);
  call->deadline = g_timeout_add (zot_timeout_get_ms (ZOT_TIMEOUT_KEYRING), deadline_cb, call);
  g_task_set_task_data (task, call, call_free);
  return task;
}

static gboolean
return_failure (GTask  *task,
                GError *error)
{
  Call *call = g_task_get_task_data (task);

  if (error == NULL)
    return FALSE;
  if (call->deadline == 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                             /* Translators: %s is an extension's name */
                             _("the keyring did not answer in time for %s's secrets; "
                               "check that a Secret Service (GNOME Keyring, KeePassXC) is running"),
                             call->extension);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_task_return_error (task, error);
  else
    {
      /* Translators: an extension's name, then the keyring's or D-Bus's error message */
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                               _("the keyring holding %s's secrets is not available (%s); "
                                 "start a Secret Service such as GNOME Keyring or KeePassXC"),
                               call->extension, error->message);
      g_error_free (error);
    }
  return TRUE;
}

/* The test-only file store ------------------------------------------------ */

static gboolean
test_file_apply (const char  *extension,
                 const char  *key,
                 const char  *value,
                 GHashTable  *found,
                 const char * const *keys,
                 GError     **error)
{
  const char *path = g_getenv (TEST_FILE_VARIABLE);
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) local = NULL;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &local) &&
      !g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      char *stored = g_key_file_get_string (file, extension, keys[i], NULL);

      if (stored != NULL)
        g_hash_table_insert (found, g_strdup (keys[i]), stored);
    }
  if (key == NULL)
    return TRUE;
  if (value != NULL)
    g_key_file_set_string (file, extension, key, value);
  else
    g_key_file_remove_key (file, extension, key, NULL);
  return g_key_file_save_to_file (file, path, error);
}

static gboolean
use_test_file (GTask      *task,
               const char *key,
               const char *value)
{
  Call *call = g_task_get_task_data (task);
  GError *error = NULL;

  if (g_getenv (TEST_FILE_VARIABLE) == NULL)
    return FALSE;
  call->found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (!return_failure (task, test_file_apply (call->extension, key, value, call->found,
                                              (const char * const *) call->keys, &error) ? NULL : error))
    {
      if (call->keys != NULL)
        g_task_return_pointer (task, g_steal_pointer (&call->found), (GDestroyNotify) g_hash_table_unref);
      else
        g_task_return_boolean (task, TRUE);
    }
  return TRUE;
}

/* Store and remove -------------------------------------------------------- */

static void
store_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  (void) source;
  if (secret_password_store_finish (result, &error) || !return_failure (task, error))
    g_task_return_boolean (task, TRUE);
}

void
zot_extension_secrets_store_async (const char          *extension,
                                   const char          *key,
                                   const char          *value,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *label = NULL;
  Call *call;

  g_return_if_fail (extension != NULL && key != NULL && value != NULL);

  task = call_new (zot_extension_secrets_store_async, extension, cancellable, callback, user_data);
  call = g_task_get_task_data (task);
  if (use_test_file (task, key, value))
    return;
  /* Translators: the label of a secret in the keyring; an extension's name, then the secret's name */
  label = g_strdup_printf (_("Zot extension %s: %s"), extension, key);
  secret_password_store (get_schema (), SECRET_COLLECTION_DEFAULT, label, value, call->cancellable,
                         store_cb, g_object_ref (task), "extension", extension, "key", key, NULL);
}

gboolean
zot_extension_secrets_store_finish (GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
clear_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  (void) source;
  /* FALSE without an error: there was nothing to clear. */
  if (secret_password_clear_finish (result, &error) || !return_failure (task, error))
    g_task_return_boolean (task, TRUE);
}

void
zot_extension_secrets_remove_async (const char          *extension,
                                    const char          *key,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Call *call;

  g_return_if_fail (extension != NULL && key != NULL);

  task = call_new (zot_extension_secrets_remove_async, extension, cancellable, callback, user_data);
  call = g_task_get_task_data (task);
  if (use_test_file (task, key, NULL))
    return;
  secret_password_clear (get_schema (), call->cancellable, clear_cb, g_object_ref (task),
                         "extension", extension, "key", key, NULL);
}

gboolean
zot_extension_secrets_remove_finish (GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Lookup ------------------------------------------------------------------ */

typedef struct
{
  GTask *task;
  char  *key;
} Lookup;

static void
lookup_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Lookup *lookup = user_data;
  GTask *task = lookup->task;
  Call *call = g_task_get_task_data (task);
  GError *error = NULL;
  char *value = secret_password_lookup_finish (result, &error);

  (void) source;
  if (value != NULL)
    g_hash_table_insert (call->found, g_strdup (lookup->key), g_strdup (value));
  secret_password_free (value);
  /* The first failure answers for all the keys. */
  if (error != NULL && call->error == NULL)
    call->error = error;
  else
    g_clear_error (&error);
  if (--call->pending == 0 && !return_failure (task, g_steal_pointer (&call->error)))
    g_task_return_pointer (task, g_steal_pointer (&call->found), (GDestroyNotify) g_hash_table_unref);
  g_free (lookup->key);
  g_free (lookup);
  g_object_unref (task);
}

void
zot_extension_secrets_lookup_async (const char          *extension,
                                    const char * const  *keys,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Call *call;

  g_return_if_fail (extension != NULL && keys != NULL);

  task = call_new (zot_extension_secrets_lookup_async, extension, cancellable, callback, user_data);
  call = g_task_get_task_data (task);
  call->keys = g_strdupv ((char **) keys);
  if (use_test_file (task, NULL, NULL))
    return;
  call->found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  call->pending = g_strv_length (call->keys);
  if (call->pending == 0)
    {
      g_task_return_pointer (task, g_steal_pointer (&call->found), (GDestroyNotify) g_hash_table_unref);
      return;
    }
  for (guint i = 0; keys[i] != NULL; i++)
    {
      Lookup *lookup = g_new0 (Lookup, 1);

      lookup->task = g_object_ref (task);
      lookup->key = g_strdup (keys[i]);
      secret_password_lookup (get_schema (), call->cancellable, lookup_cb, lookup,
                              "extension", extension, "key", keys[i], NULL);
    }
}

GHashTable *
zot_extension_secrets_lookup_finish (GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
