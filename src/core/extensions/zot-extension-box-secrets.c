/* zot-extension-box-secrets.c — an extension's secrets, into its process only.
 *
 * The values are fetched from the keyring just before the spawn, put in
 * that one process's environment (for a confined extension, bwrap's own
 * environment, or inside the Flatpak the memfd bwrap reads its variables
 * from; never a command line) and dropped from memory at once.
 * Only the names are ever logged.
 */
#define G_LOG_DOMAIN "zot-extension"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-extension-box.h"
#include "zot-extension-secrets.h"
#include "zot-permissions.h"

#define SECRETS_KEY "zot-extension-secret-values"

typedef struct
{
  ZotExtension          *self;
  GTask                 *task;
  ZotExtensionSpawnFunc  then;
} Fetch;

static void
forget_values (gpointer data)
{
  GHashTable *values = data;
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    memset (value, 0, strlen (value));
  g_hash_table_unref (values);
}

static void
fetched_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fetch *fetch = user_data;
  ZotExtension *self = fetch->self;
  const ZotPermissions *permissions = zot_manifest_get_permissions (self->manifest);
  g_autoptr(GError) error = NULL;
  GHashTable *values = zot_extension_secrets_lookup_finish (result, &error);

  (void) source;
  if (g_task_return_error_if_cancelled (fetch->task))
    {
      g_clear_pointer (&values, forget_values);
      g_object_unref (fetch->task);
      g_free (fetch);
      return;
    }
  if (values == NULL)
    zot_extension_log (self, "secrets: %s", error->message);
  for (guint i = 0; permissions->secrets[i] != NULL; i++)
    if (values == NULL || !g_hash_table_contains (values, permissions->secrets[i]))
      {
        /* Translators: an extension's name, then a secret's name twice; "zot ext secret set"
         * is a command, keep it */
        g_autofree char *message = g_strdup_printf (_("%s: secret %s is not set; "
                                                      "run zot ext secret set %s %s"),
                                                    self->name, permissions->secrets[i],
                                                    self->name, permissions->secrets[i]);

        zot_extension_log (self, "%s", message);
        g_warning ("%s", message);
      }
  if (values != NULL)
    g_object_set_data_full (G_OBJECT (self), SECRETS_KEY, values, forget_values);
  fetch->then (self, fetch->task);
  g_free (fetch);
}

gboolean
_zot_extension_secrets_fetch (ZotExtension          *self,
                              GTask                 *task,
                              ZotExtensionSpawnFunc  then)
{
  const ZotPermissions *permissions = zot_manifest_get_permissions (self->manifest);
  Fetch *fetch;

  if (permissions == NULL || permissions->secrets[0] == NULL)
    return FALSE;

  fetch = g_new0 (Fetch, 1);
  fetch->self = self;
  fetch->task = g_object_ref (task);
  fetch->then = then;
  zot_extension_secrets_lookup_async (self->name, (const char * const *) permissions->secrets,
                                      g_task_get_cancellable (task), fetched_cb, fetch);
  return TRUE;
}

void
_zot_extension_secrets_take (ZotExtension *self,
                             GStrvBuilder *env)
{
  GHashTable *values = g_object_get_data (G_OBJECT (self), SECRETS_KEY);
  GHashTableIter iter;
  gpointer key, value;

  if (values == NULL)
    return;
  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *variable = g_strconcat (key, "=", value, NULL);

      g_strv_builder_add (env, variable);
      memset (variable, 0, strlen (variable));
    }
  g_object_set_data (G_OBJECT (self), SECRETS_KEY, NULL);
}
