/* zot-grants-change.c — narrowing (or giving back) one right of a grant.
 *
 * `zot ext permissions NAME --revoke WHAT` and the switches in an
 * extension's row on the extensions page both come here, so a right taken
 * back in the window is taken back exactly as in a terminal. The box
 * applies the manifest's rights narrowed by the grant from the next start.
 */
#define G_LOG_DOMAIN "zot-grants"

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "zot-grants.h"

static GStrv
names_with (GStrv       names,
            const char *name,
            gboolean    allow)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; names[i] != NULL; i++)
    if (!g_str_equal (names[i], name))
      g_strv_builder_add (builder, names[i]);
  if (allow)
    g_strv_builder_add (builder, name);
  g_strfreev (names);
  return g_strv_builder_end (builder);
}

static gboolean
filesystem_from_string (const char          *text,
                        ZotFilesystemAccess *out)
{
  for (ZotFilesystemAccess access = ZOT_FILESYSTEM_NONE; access <= ZOT_FILESYSTEM_HOST; access++)
    if (g_str_equal (text, zot_filesystem_access_to_string (access)))
      {
        *out = access;
        return TRUE;
      }
  return FALSE;
}

/**
 * zot_permissions_change:
 * @granted: the grant's permissions, changed in place
 * @what: `network`, `devices`, `files` (down to its own folder),
 *   `files=LEVEL` (a `filesystem` value), `env` or `secrets` (every name),
 *   or `env=NAME`, `secrets=NAME` (that one)
 * @allow: %TRUE gives the right back instead; `files` and the bare `env`
 *   and `secrets` can only be taken back
 *
 * Returns: %FALSE with a one-line error for a @what it does not know
 */
gboolean
zot_permissions_change (ZotPermissions  *granted,
                        const char      *what,
                        gboolean         allow,
                        GError         **error)
{
  const char *value = strchr (what, '=');
  g_autofree char *key = value != NULL ? g_strndup (what, (gsize) (value - what)) : g_strdup (what);
  ZotFilesystemAccess access;

  value = value != NULL ? value + 1 : NULL;
  if (value == NULL && g_str_equal (key, "network"))
    granted->network = allow;
  else if (value == NULL && g_str_equal (key, "devices"))
    granted->devices = allow;
  else if (value == NULL && !allow && g_str_equal (key, "files"))
    granted->filesystem = ZOT_FILESYSTEM_NONE;
  else if (value != NULL && g_str_equal (key, "files") && filesystem_from_string (value, &access) &&
           (allow || access <= granted->filesystem))
    granted->filesystem = access;
  else if (value == NULL && !allow && (g_str_equal (key, "env") || g_str_equal (key, "secrets")))
    {
      GStrv *names = g_str_equal (key, "env") ? &granted->env : &granted->secrets;

      g_strfreev (*names);
      *names = g_new0 (char *, 1);
    }
  else if (value != NULL && *value != '\0' && (g_str_equal (key, "env") || g_str_equal (key, "secrets")))
    {
      GStrv *names = g_str_equal (key, "env") ? &granted->env : &granted->secrets;

      *names = names_with (*names, value, allow);
    }
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   /* Translators: the word given; keep the words after "use" */
                   _("cannot revoke \"%s\"; use network, devices, files, env or secrets"), what);
      return FALSE;
    }
  return TRUE;
}

/**
 * zot_grants_change:
 * @whats: what to take back (or give back), see zot_permissions_change()
 *
 * Loads @extension's grant, changes it and saves it.
 *
 * Returns: %FALSE with a one-line error: no grant (%G_FILE_ERROR_NOENT),
 *   unconfined (%G_FILE_ERROR_INVAL), a @what it does not know
 *   (%G_OPTION_ERROR), or the grant could not be written
 */
gboolean
zot_grants_change (const char          *extension,
                   const char * const  *whats,
                   gboolean             allow,
                   GError             **error)
{
  g_autoptr(ZotGrant) grant = zot_grant_load (extension);

  if (grant == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   /* Translators: the extension's name, twice */
                   _("%s has no grant to narrow; see zot ext info %s"), extension, extension);
      return FALSE;
    }
  if (grant->unconfined)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   /* Translators: the extension's name */
                   _("%s runs unconfined, so there is nothing to narrow; "
                     "add \"permissions\" to its extension.json"), extension);
      return FALSE;
    }
  for (guint i = 0; whats[i] != NULL; i++)
    if (!zot_permissions_change (grant->permissions, whats[i], allow, error))
      return FALSE;
  return zot_grant_save (extension, grant, error);
}
