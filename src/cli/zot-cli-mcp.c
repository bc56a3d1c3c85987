/* zot-cli-mcp.c — `zot mcp`: the MCP servers of $ZOT_HOME/mcp.json
 * (docs/mcp.md). add and remove edit the file in place, keeping what
 * they do not know, and write it atomically; list shows what the bridge
 * would start here; trust lets the project's own servers start. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <string.h>

#include "zot-cli-private.h"
#include "zot-limits.h"
#include "zot-mcp-config.h"
#include "zot-mcp-edit.h"
#include "zot-mcp-import.h"
#include "zot-mcp-secrets.h"
#include "zot-paths.h"

#define EXIT_OK     0
#define EXIT_FAILED 1
#define EXIT_USAGE  2

static int complain (int         status,
                     const char *format,
                     ...) G_GNUC_PRINTF (2, 3);

/* Prints a one-line error; a usage error points at --help. */
static int
complain (int         status,
          const char *format,
          ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (status == EXIT_USAGE)
    /* Translators: keep "zot mcp --help" as it is */
    g_printerr (_("zot: mcp: %s; see zot mcp --help\n"), message);
  else
    g_printerr ("zot: %s\n", message);
  return status;
}

#define usage_error(...) complain (EXIT_USAGE, __VA_ARGS__)
#define failed(...)      complain (EXIT_FAILED, __VA_ARGS__)

/* The file as it is, or a new one; %NULL (and said why) when it is there
 * but cannot be edited without losing what it holds. */
static JsonNode *
load_root (const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root = zot_mcp_config_load_root (path, &error);

  if (root == NULL)
    failed ("%s", error->message);
  return root;
}

static gboolean
save_root (const char *path,
           JsonNode   *root)
{
  g_autoptr(GError) error = NULL;

  if (zot_mcp_config_save_root (path, root, &error))
    return TRUE;
  failed ("%s", error->message);
  return FALSE;
}

/* Says how to set each secret the new server names. */
static void
print_secret_hints (const ZotMcpNewServer *added)
{
  ZotMcpServer server = { .name = (char *) added->name, .env = (GStrv) added->env,
                          .headers = (GStrv) added->headers };
  g_autoptr(GPtrArray) servers = g_ptr_array_new ();
  g_auto(GStrv) keys = NULL;

  g_ptr_array_add (servers, &server);
  keys = zot_mcp_secret_keys (servers);
  for (guint i = 0; keys[i] != NULL; i++)
    /* Translators: the secret's key */
    g_print (_("Set its secret with: zot ext secret set mcp %s\n"), keys[i]);
}

static int
mcp_add (int    argc,
         char **argv)
{
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autoptr(GPtrArray) headers = g_ptr_array_new ();
  g_autoptr(GPtrArray) env = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  ZotMcpNewServer server = { 0 };
  int i;

  if (argc < 2)
    return usage_error (_("add needs a NAME, then -- COMMAND ARGS… or --url URL"));
  server.name = argv[1];
  for (i = 2; i < argc && !g_str_equal (argv[i], "--"); i++)
    {
      const char *colon = i + 1 < argc ? strchr (argv[i + 1], ':') : NULL;
      const char *equals = i + 1 < argc ? strchr (argv[i + 1], '=') : NULL;

      if (g_str_equal (argv[i], "--url") && i + 1 < argc)
        server.url = argv[++i];
      else if (g_str_equal (argv[i], "--header") && colon != NULL && colon != argv[i + 1])
        g_ptr_array_add (headers, argv[++i]);
      else if (g_str_equal (argv[i], "--env") && equals != NULL && equals != argv[i + 1])
        g_ptr_array_add (env, argv[++i]);
      else
        return usage_error (_("add: “%s” is not --url URL, --header NAME:VALUE or --env NAME=VALUE"), argv[i]);
    }
  if (!zot_mcp_server_name_valid (server.name))
    return usage_error (_("add: “%s” is not a server name: use 1 to %d letters, digits, “_”, “-” or “.”"),
                        server.name, ZOT_TOOL_NAME_MAX_CHARS);
  if ((server.url == NULL) == (i + 1 >= argc))
    return usage_error (_("add: give either -- COMMAND ARGS… or --url URL"));
  g_ptr_array_add (headers, NULL);
  g_ptr_array_add (env, NULL);
  server.headers = (const char * const *) headers->pdata;
  server.env = (const char * const *) env->pdata;
  if (server.url == NULL)
    server.command = (const char * const *) argv + i + 1;
  if (!zot_mcp_config_add (path, &server, &error))
    return failed ("%s", error->message);
  g_print (_("Added %s to %s\n"), server.name, path);
  print_secret_hints (&server);
  return EXIT_OK;
}

static int
mcp_remove (int    argc,
            char **argv)
{
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autoptr(JsonNode) root = NULL;
  JsonObject *section;

  if (argc != 2)
    return usage_error (_("remove needs one NAME"));
  root = load_root (path);
  if (root == NULL)
    return EXIT_FAILED;
  section = zot_mcp_config_section_with (json_node_get_object (root), argv[1]);
  if (section == NULL)
    return failed (_("%s: no server named “%s” (zot mcp list shows them)"), path, argv[1]);
  json_object_remove_member (section, argv[1]);
  if (!save_root (path, root))
    return EXIT_FAILED;
  g_print (_("Removed %s from %s\n"), argv[1], path);
  return EXIT_OK;
}

static int
mcp_list (int    argc,
          char **argv)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) servers = zot_mcp_config_load (NULL, notes);

  for (guint i = 0; i < notes->len; i++)
    g_printerr ("zot: %s\n", (char *) g_ptr_array_index (notes, i));
  if (servers->len == 0)
    {
      g_autofree char *path = zot_mcp_config_user_path ();

      g_print (_("No MCP servers (add one with zot mcp add, or write %s)\n"), path);
      return EXIT_OK;
    }
  for (guint i = 0; i < servers->len; i++)
    {
      ZotMcpServer *server = g_ptr_array_index (servers, i);
      g_autofree char *args = server->args != NULL ? g_strjoinv (" ", server->args) : g_strdup ("");
      g_autofree char *what = server->transport == ZOT_MCP_TRANSPORT_HTTP
                              ? g_strdup (server->url)
                              : g_strconcat (server->command, *args != '\0' ? " " : "", args, NULL);

      g_print ("%-20s %-6s %s  (%s)\n", server->name, zot_mcp_transport_to_string (server->transport),
               what, server->origin);
    }
  return EXIT_OK;
}

static int
mcp_trust (int    argc,
           char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_get_current_dir ();

  if (!zot_mcp_trust_project (cwd, &error))
    return failed ("%s", error->message);
  g_print (_("The MCP servers of %s/.zot/mcp.json start from now on\n"), cwd);
  return EXIT_OK;
}

/* `zot mcp import`: what other apps have; `import NAME…` copies them. */
static int
mcp_import (int    argc,
            char **argv)
{
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autofree char *cwd = g_get_current_dir ();
  g_autoptr(GPtrArray) origins = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonObject) entries = zot_mcp_import_find (cwd, origins);
  guint copied = 0;

  if (argc < 2)
    {
      for (guint i = 0; i < origins->len; i++)
        {
          g_auto(GStrv) pair = g_strsplit (g_ptr_array_index (origins, i), "\t", 2);

          g_print ("%-20s %s\n", pair[0], pair[1]);
        }
      if (origins->len == 0)
        g_print (_("No MCP servers found in Claude Desktop's, Cursor's, VS Code's or Windsurf's files\n"));
      else
        g_print (_("zot mcp import NAME… copies them to %s\n"), path);
      return EXIT_OK;
    }
  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!json_object_has_member (entries, argv[i]))
        failed (_("no server named “%s” to import (zot mcp import lists them)"), argv[i]);
      else if (!zot_mcp_config_import (path, argv[i], json_object_get_member (entries, argv[i]), &error))
        failed ("%s", error->message);
      else
        {
          g_print (_("Added %s to %s\n"), argv[i], path);
          copied++;
        }
    }
  return copied == (guint) (argc - 1) ? EXIT_OK : EXIT_FAILED;
}

static void
print_help (void)
{
  g_print ("%s\n  zot mcp %s\n\n%s\n\n%s\n", _("Usage:"), _("COMMAND [OPTION…]"),
           _("Manage the MCP servers whose tools zot offers (docs/mcp.md)."), _("Commands:"));
  g_print ("  %-46s %s\n", "add NAME [--env NAME=VALUE]... -- COMMAND [ARG...]", _("Add a server zot starts"));
  g_print ("  %-46s %s\n", "add NAME --url URL [--header NAME:VALUE]...", _("Add a server over HTTP"));
  g_print ("  %-46s %s\n", "list", _("Show the servers of this project and user"));
  g_print ("  %-46s %s\n", "remove NAME", _("Remove a server"));
  g_print ("  %-46s %s\n", "trust", _("Let this project's .zot/mcp.json servers start"));
  g_print ("  %-46s %s\n", "import [NAME...]", _("List other apps' servers, or copy those named"));
}

/**
 * zot_cli_mcp_main:
 * @argv: starting at "mcp"
 */
int
zot_cli_mcp_main (int    argc,
                  char **argv)
{
  const char *command = argc > 1 ? argv[1] : NULL;

  if (command == NULL)
    return usage_error (_("missing a command: add, list, remove, import or trust"));
  if (g_str_equal (command, "--help") || g_str_equal (command, "-h") || g_str_equal (command, "help"))
    {
      print_help ();
      return EXIT_OK;
    }
  if (g_str_equal (command, "add"))
    return mcp_add (argc - 1, argv + 1);
  if (g_str_equal (command, "remove"))
    return mcp_remove (argc - 1, argv + 1);
  if (g_str_equal (command, "list") && argc == 2)
    return mcp_list (argc - 1, argv + 1);
  if (g_str_equal (command, "import"))
    return mcp_import (argc - 1, argv + 1);
  if (g_str_equal (command, "trust") && argc == 2)
    return mcp_trust (argc - 1, argv + 1);
  /* Translators: %s is the word given; add, list, remove, import and trust are commands: keep them */
  return usage_error (_("unknown command “%s”; use add, list, remove, import or trust"), command);
}
