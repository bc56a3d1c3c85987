/* zot-cli-ext-secret.c — `zot ext secret set|list|remove`: an extension's
 * declared secrets in the keyring. A value is read from stdin only, never
 * from the command line (which every process can read), and never printed.
 */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "zot-cli-private.h"
#include "zot-extension-secrets.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-mcp-secrets.h"
#include "zot-paths.h"
#include "zot-permissions.h"

#define ZOT_EXIT_OK     0
#define ZOT_EXIT_FAILED 1
#define ZOT_EXIT_USAGE  2

static int
secret_usage (const char *message)
{
  /* Translators: the problem, then the usage; keep "zot ext secret" and the words in capitals' order */
  g_printerr (_("zot: ext secret: %s; usage: zot ext secret set|remove NAME KEY, zot ext secret list NAME\n"),
              message);
  return ZOT_EXIT_USAGE;
}

/* The declared names of the installed extension @name. */
static GStrv
declared_secrets (const char  *name,
                  GError     **error)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *project_parent = zot_paths_get_project_extensions_dir (cwd);
  g_autofree char *user_parent = zot_paths_get_extensions_dir ();
  g_autofree char *directory = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  const ZotPermissions *permissions;

  /* The built-in MCP bridge declares what mcp.json's servers name. */
  if (g_str_equal (name, ZOT_MCP_EXTENSION_NAME))
    return zot_mcp_secret_keys_configured (cwd);
  directory = zot_cli_ext_find_in_either_scope (name, project_parent, user_parent, error);
  if (directory == NULL)
    return NULL;
  manifest = zot_manifest_new_for_directory (directory, error);
  if (manifest == NULL)
    return NULL;
  permissions = zot_manifest_get_permissions (manifest);
  if (permissions == NULL)
    return g_new0 (char *, 1);
  return g_strdupv (permissions->secrets);
}

/* Reads the value, without echo on a terminal; one trailing newline is
 * the end of the line typed, not part of the value. */
static char *
read_value (GError **error)
{
  g_autoptr(GString) value = g_string_new (NULL);
  struct termios saved, quiet;
  gboolean tty = isatty (STDIN_FILENO) && tcgetattr (STDIN_FILENO, &saved) == 0;
  char buffer[4096];
  gssize got;

  if (tty)
    {
      quiet = saved;
      quiet.c_lflag &= ~(tcflag_t) ECHO;
      tcsetattr (STDIN_FILENO, TCSAFLUSH, &quiet);
      g_printerr ("%s", _("Value (not shown): "));
    }
  do
    {
      got = read (STDIN_FILENO, buffer, sizeof buffer);
      if (got > 0)
        g_string_append_len (value, buffer, got);
      if (tty && value->len > 0 && value->str[value->len - 1] == '\n')
        break;
    }
  while ((got > 0 || (got < 0 && errno == EINTR)) && value->len <= ZOT_EXTENSION_SECRET_MAX_BYTES);
  if (tty)
    {
      tcsetattr (STDIN_FILENO, TCSAFLUSH, &saved);
      g_printerr ("\n");
    }
  memset (buffer, 0, sizeof buffer);

  if (value->len > 0 && value->str[value->len - 1] == '\n')
    g_string_truncate (value, value->len - 1);
  if (value->len > ZOT_EXTENSION_SECRET_MAX_BYTES)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                 /* Translators: %u is a number of KiB */
                 _("the value on stdin is longer than %u KiB; a secret is a short string"),
                 (guint) (ZOT_EXTENSION_SECRET_MAX_BYTES / 1024));
  else if (got < 0)
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                 _("cannot read the value from stdin: %s"), g_strerror (errno));
  else if (value->len == 0)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("no value on stdin; pipe it in or type it"));
  else
    return g_string_free (g_steal_pointer (&value), FALSE);
  memset (value->str, 0, value->len);
  return NULL;
}

static int
secret_list (const char *name,
             GStrv       declared)
{
  ZotCliAsyncWait wait;
  g_autoptr(GHashTable) found = NULL;
  g_autoptr(GError) error = NULL;

  zot_cli_async_wait_init (&wait);
  zot_extension_secrets_lookup_async (name, (const char * const *) declared, wait.cancellable,
                                      zot_cli_async_wait_done_cb, &wait);
  zot_cli_async_wait_run (&wait);
  found = zot_extension_secrets_lookup_finish (wait.result, &error);
  zot_cli_async_wait_clear (&wait);
  if (found == NULL)
    {
      g_printerr ("zot: %s\n", error->message);
      return ZOT_EXIT_FAILED;
    }
  for (guint i = 0; declared[i] != NULL; i++)
    /* Translators: a secret's name, then whether a value is stored for it */
    g_print ("%s\t%s\n", declared[i], g_hash_table_contains (found, declared[i]) ? _("set") : _("not set"));
  return ZOT_EXIT_OK;
}

static int
secret_change (const char *name,
               const char *key,
               gboolean    set)
{
  ZotCliAsyncWait wait;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  gboolean ok;

  if (set && (value = read_value (&error)) == NULL)
    {
      g_printerr ("zot: %s\n", error->message);
      return ZOT_EXIT_FAILED;
    }
  zot_cli_async_wait_init (&wait);
  if (set)
    zot_extension_secrets_store_async (name, key, value, wait.cancellable,
                                       zot_cli_async_wait_done_cb, &wait);
  else
    zot_extension_secrets_remove_async (name, key, wait.cancellable, zot_cli_async_wait_done_cb, &wait);
  zot_cli_async_wait_run (&wait);
  ok = set ? zot_extension_secrets_store_finish (wait.result, &error)
           : zot_extension_secrets_remove_finish (wait.result, &error);
  zot_cli_async_wait_clear (&wait);
  if (value != NULL)
    memset (value, 0, strlen (value));
  if (!ok)
    {
      g_printerr ("zot: %s\n", error->message);
      return ZOT_EXIT_FAILED;
    }
  /* Translators: printed by "zot ext secret set" and "remove": the secret's name, then the
   * extension's */
  g_print (set ? _("stored %s for %s\n") : _("removed %s for %s\n"), key, name);
  return ZOT_EXIT_OK;
}

int
zot_cli_ext_secret_main (int    argc,
                         char **argv)
{
  g_auto(GStrv) declared = NULL;
  g_autoptr(GError) error = NULL;
  const char *action = argc > 1 ? argv[1] : NULL;
  gboolean list = g_strcmp0 (action, "list") == 0;

  if (action == NULL)
    return secret_usage (_("missing set, list or remove"));
  if (!list && !g_str_equal (action, "set") && !g_str_equal (action, "remove"))
    return secret_usage (_("unknown action; use set, list or remove"));
  if (argc != (list ? 3 : 4))
    return secret_usage (_("wrong number of arguments"));

  declared = declared_secrets (argv[2], &error);
  if (declared == NULL)
    {
      g_printerr ("zot: %s\n", error->message);
      return ZOT_EXIT_FAILED;
    }
  if (list)
    return secret_list (argv[2], declared);
  /* Removing stays possible for a key the manifest no longer declares. */
  if (g_str_equal (action, "set") && !g_strv_contains ((const char * const *) declared, argv[3]))
    {
      /* Translators: a secret's name, then the extension's; "permissions.secrets" is the
       * manifest's field, keep it */
      g_printerr (_("zot: %s is not a secret %s declares; add it to \"permissions.secrets\" "
                    "in its extension.json\n"), argv[3], argv[2]);
      return ZOT_EXIT_FAILED;
    }
  return secret_change (argv[2], argv[3], g_str_equal (action, "set"));
}
