/* zot-cli-ext-consent.c — `zot ext install` asks before it installs.
 *
 * The permissions an extension's manifest asks for are printed in plain
 * words and the user says y or N on the terminal; --yes answers for
 * scripts. Without a terminal and without --yes nothing is installed: a
 * script must not hand a stranger's program rights nobody read. A
 * reinstall that asks for no more than was granted is not asked again.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "zot-cli-private.h"
#include "zot-grants.h"

/**
 * zot_cli_ext_describe_permissions:
 *
 * Returns: (transfer full): what @manifest asks for, in words, one line
 *   each: the box, then zot_permissions_describe_details()
 */
char *
zot_cli_ext_describe_permissions (ZotManifest *manifest)
{
  const ZotPermissions *asked = zot_manifest_get_permissions (manifest);
  g_autofree char *box = zot_permissions_describe_words (asked);
  g_auto(GStrv) details = zot_permissions_describe_details (asked);
  GString *text = g_string_new (NULL);

  /* Translators: the extension's name, then "unconfined" or "confined: …" */
  g_string_append_printf (text, _("%s asks for: %s\n"), zot_manifest_get_name (manifest), box);
  for (guint i = 0; details[i] != NULL; i++)
    g_string_append_printf (text, "  %s\n", details[i]);
  return g_string_free (text, FALSE);
}

/**
 * zot_cli_ext_consent:
 * @user_data: a gboolean, %TRUE for --yes
 *
 * A #ZotInstallConsentFunc; runs in the installer's worker thread while
 * the main thread only waits, so reading the terminal here blocks nothing.
 */
gboolean
zot_cli_ext_consent (ZotManifest  *staged,
                     gpointer      user_data,
                     GError      **error)
{
  gboolean yes = *(gboolean *) user_data;
  const char *name = zot_manifest_get_name (staged);
  g_autoptr(ZotGrant) grant = zot_grant_load (name);
  g_autofree char *words = NULL;
  char answer[16] = "";

  if (zot_grant_covers (grant, zot_manifest_get_permissions (staged)))
    return TRUE;

  words = zot_cli_ext_describe_permissions (staged);
  g_print ("%s", words);
  if (yes)
    return TRUE;
  if (!isatty (STDIN_FILENO))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   /* Translators: the extension's name; --yes is an option, keep it */
                   _("%s was not installed: no terminal to ask on; add --yes to accept what it asks for"),
                   name);
      return FALSE;
    }
  /* Translators: the question after the permissions; y and N are the answers */
  g_print ("%s", grant != NULL ? _("It asks for more than before. Accept? [y/N] ") : _("Install it? [y/N] "));
  fflush (stdout);
  if (fgets (answer, sizeof answer, stdin) == NULL || g_ascii_tolower (answer[0]) != 'y')
    {
      /* Translators: the extension's name */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("%s was not installed"), name);
      return FALSE;
    }
  return TRUE;
}

/**
 * zot_cli_ext_record_grant:
 * @project: installed with --project: trusted in that project too
 *
 * Records what the user just accepted, keeping the projects the extension
 * was trusted in before.
 */
gboolean
zot_cli_ext_record_grant (ZotManifest  *manifest,
                          gboolean      project,
                          GError      **error)
{
  g_autofree char *folder = project ? zot_grants_project_of (zot_manifest_get_directory (manifest)) : NULL;

  return zot_grants_accept (manifest, folder, error);
}
