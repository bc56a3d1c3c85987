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

static gboolean
valid_name (const char *name)
{
  if (*name == '\0' || strlen (name) > ZOT_TOOL_NAME_MAX_CHARS)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-' && *p != '.')
      return FALSE;
  return TRUE;
}

/* The file as it is, or a new one; %NULL (and said why) when it is there
 * but cannot be edited without losing what it holds. */
static JsonNode *
load_root (const char *path)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root = zot_mcp_config_parse (path, &error);

  if (root == NULL && g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      root = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (root, json_object_new ());
    }
  else if (root == NULL)
    /* Translators: the error names the file */
    failed (_("%s; the file is left as it is"), error->message);
  return root;
}

static gboolean
save_root (const char *path,
           JsonNode   *root)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);
  line = g_strconcat (text, "\n", NULL);
  /* Headers and env may hold tokens: the file is the user's alone. */
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents_full (path, line, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    {
      failed ("%s: %s", path, error != NULL ? error->message : g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* The section of @root that holds @name, if any. */
static JsonObject *
section_with (JsonObject *root,
              const char *name)
{
  const char *sections[] = { "mcpServers", "servers" };

  for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
    {
      JsonNode *node = json_object_get_member (root, sections[i]);

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
          json_object_has_member (json_node_get_object (node), name))
        return json_node_get_object (node);
    }
  return NULL;
}

static int
mcp_add (int    argc,
         char **argv)
{
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonArray) args = json_array_new ();
  g_autoptr(JsonObject) headers = json_object_new ();
  g_autoptr(JsonObject) entry = json_object_new ();
  JsonObject *object;
  JsonObject *section;
  const char *section_name;
  const char *name;
  const char *url = NULL;
  gboolean vscode;
  int i;

  if (argc < 2)
    return usage_error (_("add needs a NAME, then -- COMMAND ARGS… or --url URL"));
  name = argv[1];
  for (i = 2; i < argc && !g_str_equal (argv[i], "--"); i++)
    {
      const char *colon;

      if (g_str_equal (argv[i], "--url") && i + 1 < argc)
        url = argv[++i];
      else if (g_str_equal (argv[i], "--header") && i + 1 < argc &&
               (colon = strchr (argv[i + 1], ':')) != NULL && colon != argv[i + 1])
        {
          g_autofree char *key = g_strndup (argv[i + 1], (gsize) (colon - argv[i + 1]));

          json_object_set_string_member (headers, g_strstrip (key), g_strchug ((char *) colon + 1));
          i++;
        }
      else
        {
          json_object_unref (headers);
          json_object_unref (entry);
          return usage_error (_("add: “%s” is not --url URL or --header NAME:VALUE"), argv[i]);
        }
    }
  if (!valid_name (name))
    return usage_error (_("add: “%s” is not a server name: use 1 to %d letters, digits, “_”, “-” or “.”"),
                        name, ZOT_TOOL_NAME_MAX_CHARS);
  if ((url == NULL) == (i + 1 >= argc))
    return usage_error (_("add: give either -- COMMAND ARGS… or --url URL"));

  root = load_root (path);
  if (root == NULL)
    return EXIT_FAILED;
  object = json_node_get_object (root);
  if (section_with (object, name) != NULL)
    return failed (_("%s: a server named “%s” is there already; zot mcp remove %s first"), path, name, name);
  /* A VS Code file stays one. */
  vscode = json_object_has_member (object, "servers") && !json_object_has_member (object, "mcpServers");
  section_name = vscode ? "servers" : "mcpServers";
  if (!json_object_has_member (object, section_name))
    json_object_set_object_member (object, section_name, json_object_new ());
  if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, section_name)))
    return failed (_("%s: %s is not an object, left as it is"), path, section_name);
  section = json_object_get_object_member (object, section_name);

  if (url != NULL)
    {
      if (vscode)
        json_object_set_string_member (entry, "type", "http");
      json_object_set_string_member (entry, "url", url);
      if (json_object_get_size (headers) > 0)
        json_object_set_object_member (entry, "headers", json_object_ref (headers));
    }
  else
    {
      if (vscode)
        json_object_set_string_member (entry, "type", "stdio");
      json_object_set_string_member (entry, "command", argv[i + 1]);
      for (int j = i + 2; j < argc; j++)
        json_array_add_string_element (args, argv[j]);
      json_object_set_array_member (entry, "args", json_array_ref (args));
    }
  json_object_set_object_member (section, name, g_steal_pointer (&entry));
  if (!save_root (path, root))
    return EXIT_FAILED;
  g_print (_("Added %s to %s\n"), name, path);
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
  section = section_with (json_node_get_object (root), argv[1]);
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

/* Where other apps keep their MCP servers, below $HOME; and VS Code's
 * file of the project. */
static const char * const import_sources[] = {
  ".config/Claude/claude_desktop_config.json",
  ".cursor/mcp.json",
  ".config/Code/User/mcp.json",
  ".codeium/windsurf/mcp_config.json",
};

/* Every server entry of the files that exist: name → the file's path,
 * with the entries themselves in @entries. */
static void
find_importable (JsonObject *entries,
                 GPtrArray  *origins)
{
  g_autofree char *project = g_build_filename (".vscode", "mcp.json", NULL);

  for (guint i = 0; i <= G_N_ELEMENTS (import_sources); i++)
    {
      g_autofree char *path = i < G_N_ELEMENTS (import_sources)
                              ? g_build_filename (g_get_home_dir (), import_sources[i], NULL)
                              : g_canonicalize_filename (project, NULL);
      g_autoptr(JsonNode) root = zot_mcp_config_parse (path, NULL);
      const char *sections[] = { "mcpServers", "servers" };

      for (guint j = 0; root != NULL && j < G_N_ELEMENTS (sections); j++)
        {
          JsonNode *section = json_object_get_member (json_node_get_object (root), sections[j]);
          JsonObjectIter iter;
          const char *name;
          JsonNode *entry;

          if (section == NULL || !JSON_NODE_HOLDS_OBJECT (section))
            continue;
          json_object_iter_init (&iter, json_node_get_object (section));
          while (json_object_iter_next (&iter, &name, &entry))
            if (!json_object_has_member (entries, name) && JSON_NODE_HOLDS_OBJECT (entry))
              {
                json_object_set_member (entries, name, json_node_copy (entry));
                g_ptr_array_add (origins, g_strdup_printf ("%s\t%s", name, path));
              }
        }
    }
}

/* `zot mcp import`: what other apps have; `import NAME…` copies them. */
static int
mcp_import (int    argc,
            char **argv)
{
  g_autofree char *path = zot_mcp_config_user_path ();
  g_autoptr(JsonObject) entries = json_object_new ();
  g_autoptr(GPtrArray) origins = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonNode) root = NULL;
  JsonObject *section;
  guint copied = 0;

  find_importable (entries, origins);
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
  root = load_root (path);
  if (root == NULL)
    return EXIT_FAILED;
  if (!json_object_has_member (json_node_get_object (root), "mcpServers"))
    json_object_set_object_member (json_node_get_object (root), "mcpServers", json_object_new ());
  if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (root), "mcpServers")))
    return failed (_("%s: %s is not an object, left as it is"), path, "mcpServers");
  section = json_object_get_object_member (json_node_get_object (root), "mcpServers");
  for (int i = 1; i < argc; i++)
    {
      if (!json_object_has_member (entries, argv[i]))
        failed (_("no server named “%s” to import (zot mcp import lists them)"), argv[i]);
      else if (section_with (json_node_get_object (root), argv[i]) != NULL)
        failed (_("%s: a server named “%s” is there already; zot mcp remove %s first"), path, argv[i], argv[i]);
      else
        {
          json_object_set_member (section, argv[i], json_node_copy (json_object_get_member (entries, argv[i])));
          g_print (_("Added %s to %s\n"), argv[i], path);
          copied++;
        }
    }
  if (copied > 0 && !save_root (path, root))
    return EXIT_FAILED;
  return copied == (guint) (argc - 1) ? EXIT_OK : EXIT_FAILED;
}

static void
print_help (void)
{
  g_print ("%s\n  zot mcp %s\n\n%s\n\n%s\n", _("Usage:"), _("COMMAND [OPTION…]"),
           _("Manage the MCP servers whose tools zot offers (docs/mcp.md)."), _("Commands:"));
  g_print ("  %-46s %s\n", "add NAME -- COMMAND [ARG...]", _("Add a server zot starts"));
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
