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

/* Prints what @staged asks for beyond @grant (all of it without one). */
static void
print_asked (ZotManifest    *staged,
             const ZotGrant *grant)
{
  g_auto(GStrv) wider = NULL;
  g_autofree char *words = NULL;

  if (grant == NULL)
    {
      words = zot_cli_ext_describe_permissions (staged);
      g_print ("%s", words);
      return;
    }
  wider = zot_grant_describe_wider (grant, zot_manifest_get_permissions (staged));
  /* Translators: the extension's name; the new rights follow, one a line */
  g_print (_("%s asks for more than before:\n"), zot_manifest_get_name (staged));
  for (guint i = 0; wider[i] != NULL; i++)
    g_print ("  %s\n", wider[i]);
}

/* Asks on the terminal; %FALSE with @error set when there is none (naming
 * --yes) or the answer is not yes. @not_done names what did not happen. */
static gboolean
ask (const char  *question,
     const char  *not_done,
     GError     **error)
{
  char answer[16] = "";

  if (!isatty (STDIN_FILENO))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   /* Translators: "NAME was not installed" or "…updated"; --yes is an option, keep it */
                   _("%s: no terminal to ask on; add --yes to accept what it asks for"), not_done);
      return FALSE;
    }
  g_print ("%s", question);
  fflush (stdout);
  if (fgets (answer, sizeof answer, stdin) == NULL || g_ascii_tolower (answer[0]) != 'y')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, not_done);
      return FALSE;
    }
  return TRUE;
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
  g_autoptr(ZotGrant) grant = zot_grant_load (zot_manifest_get_name (staged));
  /* Translators: the extension's name */
  g_autofree char *not_done = g_strdup_printf (_("%s was not installed"), zot_manifest_get_name (staged));

  if (zot_grant_covers (grant, zot_manifest_get_permissions (staged)))
    return TRUE;
  print_asked (staged, grant);
  /* Translators: the question after the permissions; y and N are the answers */
  return yes || ask (grant != NULL ? _("It asks for more than before. Accept? [y/N] ") : _("Install it? [y/N] "),
                     not_done, error);
}

/**
 * zot_cli_update_consent:
 * @user_data: a gboolean, %TRUE for --yes
 *
 * A #ZotInstallConsentFunc for `zot update`: a pulled version that asks
 * for more than was granted is shown with what is new and asked about;
 * what is accepted is granted here, since the checkout is already in
 * place. A refusal leaves the previous commit checked out.
 */
gboolean
zot_cli_update_consent (ZotManifest  *pulled,
                        gpointer      user_data,
                        GError      **error)
{
  gboolean yes = *(gboolean *) user_data;
  g_autoptr(ZotGrant) grant = zot_grant_load (zot_manifest_get_name (pulled));
  /* Translators: the extension's name */
  g_autofree char *not_done = g_strdup_printf (_("%s was not updated; the previous version stays"),
                                               zot_manifest_get_name (pulled));

  if (zot_grant_covers (grant, zot_manifest_get_permissions (pulled)))
    return TRUE;
  print_asked (pulled, grant);
  /* Translators: the question after what a new version asks for; y and N are the answers */
  if (!yes && !ask (_("Update it? [y/N] "), not_done, error))
    return FALSE;
  return zot_grants_accept (pulled, NULL, error);
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
