/* zot-cli-ext-trust.c — `zot ext trust [NAME…]`: lets the extensions found
 * in a project's .zot/extensions/ start there.
 *
 * A cloned repository must not run code on open, so these wait for the
 * user; trusting one grants what its manifest asks for, in this project
 * only (the grant lives under $ZOT_HOME/grants/, out of the project's reach).
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-cli-private.h"
#include "zot-discovery.h"
#include "zot-grants.h"
#include "zot-paths.h"

#define ZOT_EXIT_OK     0
#define ZOT_EXIT_FAILED 1
#define ZOT_EXIT_USAGE  2

static gboolean
named (const char * const *names,
       const char         *name)
{
  return names == NULL || names[0] == NULL || g_strv_contains (names, name);
}

/**
 * zot_cli_ext_trust_main:
 * @argv: starts at "trust"
 */
int
zot_cli_ext_trust_main (int    argc,
                        char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("[NAME…]"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GHashTable) trusted = g_hash_table_new (g_str_hash, g_str_equal);
  g_auto(GStrv) args = g_strdupv (argv);
  g_autofree char *cwd = NULL;
  g_autofree char *parent = NULL;
  int status = ZOT_EXIT_OK;
  const GOptionEntry entries[] = {
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &cwd,
      N_("The project directory (default: the current one)"), N_("DIR") },
    { NULL }
  };

  g_option_context_set_summary (context, _("Let the project's extensions start in this project, "
                                           "with the rights their manifests ask for."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse_strv (context, &args, &error))
    {
      g_printerr ("zot ext trust: %s\n", error->message);
      return ZOT_EXIT_USAGE;
    }
  if (cwd == NULL)
    cwd = g_get_current_dir ();

  parent = zot_paths_get_project_extensions_dir (cwd);
  found = zot_discover_in_directory (parent, ZOT_EXTENSION_SCOPE_PROJECT);
  for (guint i = 0; i < found->len; i++)
    {
      ZotDiscovered *entry = g_ptr_array_index (found, i);
      const char *name;
      g_autofree char *asks = NULL;

      if (entry->manifest == NULL)
        continue;
      name = zot_manifest_get_name (entry->manifest);
      if (!named ((const char * const *) args + 1, name))
        continue;
      g_hash_table_add (trusted, (gpointer) name);
      if (!zot_grants_trust_project (entry->directory, entry->manifest, &error))
        {
          /* Translators: the extension's name, then why its grant could not be written */
          g_printerr (_("zot ext trust: cannot trust %s: %s\n"), name, error->message);
          g_clear_error (&error);
          status = ZOT_EXIT_FAILED;
          continue;
        }
      asks = zot_permissions_describe_words (zot_manifest_get_permissions (entry->manifest));
      /* Translators: the extension's name, then what it may do ("confined: …" or "unconfined") */
      g_print (_("trusted %s here (%s)\n"), name, asks);
    }

  for (guint i = 1; args[i] != NULL; i++)
    if (!g_hash_table_contains (trusted, args[i]))
      {
        /* Translators: the name given, then the folder searched */
        g_printerr (_("zot ext trust: no extension \"%s\" in %s; see zot ext list\n"), args[i], parent);
        status = ZOT_EXIT_FAILED;
      }
  if (args[1] == NULL && g_hash_table_size (trusted) == 0)
    /* Translators: the folder searched */
    g_print (_("no project extensions in %s\n"), parent);
  return status;
}

static void
print_grant (const char *name,
             ZotGrant   *grant)
{
  g_autofree char *words = NULL;

  if (grant == NULL)
    {
      /* Translators: the extension's name */
      g_print (_("%s: no grant (asked at zot ext install, or by zot ext trust for a project's)\n"), name);
      return;
    }
  words = zot_permissions_describe_words (grant->unconfined ? NULL : grant->permissions);
  /* Translators: the extension's name, then "unconfined" or "confined: …" */
  g_print (_("%s: granted %s\n"), name, words);
  if (!grant->unconfined && grant->permissions->env[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", grant->permissions->env);

      g_print ("  %s%s\n", _("environment: "), names);
    }
  if (!grant->unconfined && grant->permissions->secrets[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", grant->permissions->secrets);

      g_print ("  %s%s\n", _("secrets: "), names);
    }
  if (!grant->unconfined && grant->permissions->devices)
    g_print ("  %s\n", _("devices (/dev)"));
  for (guint i = 0; grant->projects[i] != NULL; i++)
    /* Translators: a project folder the extension was trusted in */
    g_print ("  %s %s\n", _("trusted in"), grant->projects[i]);
}

/**
 * zot_cli_ext_permissions_main:
 * @argv: starts at "permissions" or "info"
 *
 * Lists an extension's grant; with --revoke, narrows it first. The box
 * applies no more than the grant the next time the extension starts.
 */
int
zot_cli_ext_permissions_main (int    argc,
                              char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("NAME"));
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotGrant) grant = NULL;
  g_auto(GStrv) args = g_strdupv (argv);
  g_auto(GStrv) revoked = NULL;
  const GOptionEntry entries[] = {
    { "revoke", 0, 0, G_OPTION_ARG_STRING_ARRAY, &revoked,
      N_("Take back network, devices, files[=LEVEL], env[=NAME] or secrets[=NAME] (repeatable)"),
      N_("WHAT") },
    { NULL }
  };

  g_option_context_set_summary (context, _("Show what an extension was granted, or narrow it."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse_strv (context, &args, &error) || g_strv_length (args) != 2)
    {
      /* Translators: %s is the command, "permissions" or "info" */
      g_printerr ("zot ext %s: %s\n", argv[0],
                  error != NULL ? error->message : _("give exactly one extension's name"));
      return ZOT_EXIT_USAGE;
    }

  if (revoked != NULL && !zot_grants_change (args[1], (const char * const *) revoked, FALSE, &error))
    {
      g_printerr ("zot ext permissions: %s\n", error->message);
      return error->domain == G_OPTION_ERROR ? ZOT_EXIT_USAGE : ZOT_EXIT_FAILED;
    }
  grant = zot_grant_load (args[1]);
  print_grant (args[1], grant);
  return ZOT_EXIT_OK;
}
