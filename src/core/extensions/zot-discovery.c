#define G_LOG_DOMAIN "zot-discovery"

#include "config.h"

#include "zot-discovery.h"
#include "zot-mcp-config.h"
#include "zot-paths.h"

void
zot_discovered_free (ZotDiscovered *discovered)
{
  if (discovered == NULL)
    return;

  g_free (discovered->directory);
  g_clear_object (&discovered->manifest);
  g_clear_error (&discovered->error);
  g_free (discovered);
}

ZotDiscovered *
zot_discovered_copy (const ZotDiscovered *discovered)
{
  ZotDiscovered *copy = g_new0 (ZotDiscovered, 1);

  copy->directory = g_strdup (discovered->directory);
  copy->scope = discovered->scope;
  copy->manifest = discovered->manifest != NULL ? g_object_ref (discovered->manifest) : NULL;
  copy->error = discovered->error != NULL ? g_error_copy (discovered->error) : NULL;
  return copy;
}

const char *
zot_extension_scope_to_string (ZotExtensionScope scope)
{
  switch (scope)
    {
    case ZOT_EXTENSION_SCOPE_EXPLICIT: return "explicit";
    case ZOT_EXTENSION_SCOPE_PROJECT:  return "project";
    case ZOT_EXTENSION_SCOPE_USER:     return "user";
    case ZOT_EXTENSION_SCOPE_BUILTIN:  return "built-in";
    default:                           g_return_val_if_reached ("unknown");
    }
}

static ZotDiscovered *
discover_one (const char        *directory,
              ZotExtensionScope  scope)
{
  ZotDiscovered *discovered = g_new0 (ZotDiscovered, 1);

  discovered->directory = g_canonicalize_filename (directory, NULL);
  discovered->scope = scope;
  discovered->manifest = zot_manifest_new_for_directory (discovered->directory,
                                                         &discovered->error);
  return discovered;
}

/* The extensions that ship with the app; $ZOT_BUILTIN_EXTENSIONS_DIR
 * points a build tree's at them. */
char *
zot_discover_builtin_dir (void)
{
  const char *env = g_getenv ("ZOT_BUILTIN_EXTENSIONS_DIR");

  return g_strdup (env != NULL && *env != '\0' ? env : ZOT_BUILTIN_EXTENSIONS_DIR);
}

/* A built-in starts only where it has something to do: the MCP bridge
 * when an mcp.json exists (docs/mcp.md). */
static gboolean
builtin_wanted (ZotDiscovered *discovered,
                const char    *cwd)
{
  g_autofree char *user = NULL;
  g_autofree char *project = NULL;

  if (discovered->manifest == NULL || !g_str_equal (zot_manifest_get_name (discovered->manifest), ZOT_MCP_EXTENSION_NAME))
    return TRUE;
  user = zot_mcp_config_user_path ();
  project = zot_mcp_config_project_path (cwd);
  return g_file_test (user, G_FILE_TEST_EXISTS) || g_file_test (project, G_FILE_TEST_EXISTS);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Each directory's entries are taken sorted by name, so the load order does
 * not depend on the file system's listing order. */
GPtrArray *
zot_discover_in_directory (const char        *parent,
                           ZotExtensionScope  scope)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_discovered_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  dir = g_dir_open (parent, 0, NULL);
  if (dir == NULL)
    return g_steal_pointer (&found);

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (parent, name, NULL);

      if (name[0] == '.')
        continue;
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (names, g_strdup (name));
    }

  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *child = g_build_filename (parent, g_ptr_array_index (names, i), NULL);
      g_ptr_array_add (found, discover_one (child, scope));
    }

  return g_steal_pointer (&found);
}

static void
append_unique (GPtrArray     *order,
               GHashTable    *seen,
               ZotDiscovered *discovered)
{
  if (discovered->manifest != NULL)
    {
      const char *name = zot_manifest_get_name (discovered->manifest);

      if (g_hash_table_contains (seen, name))
        {
          g_debug ("%s: skipped, an extension named \"%s\" comes earlier in the load order",
                   discovered->directory, name);
          zot_discovered_free (discovered);
          return;
        }
      g_hash_table_add (seen, g_strdup (name));
    }

  g_ptr_array_add (order, discovered);
}

/**
 * zot_discover_extensions:
 * @cwd: (nullable): the working directory whose .zot/extensions is searched
 * @explicit_paths: (nullable): `--ext` paths, in the order given
 * @no_ext: skip discovery, keeping explicit paths
 *
 * Returns: (transfer full) (element-type ZotDiscovered): the load order
 */
GPtrArray *
zot_discover_extensions (const char         *cwd,
                         const char * const *explicit_paths,
                         gboolean            no_ext)
{
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_discovered_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; explicit_paths != NULL && explicit_paths[i] != NULL; i++)
    {
      g_autofree char *path = g_canonicalize_filename (explicit_paths[i], cwd);

      /* Accept the manifest itself as well as its directory. */
      if (g_str_has_suffix (path, "/" ZOT_MANIFEST_FILENAME) &&
          g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          char *dir = g_path_get_dirname (path);
          g_free (path);
          path = dir;
        }

      append_unique (order, seen, discover_one (path, ZOT_EXTENSION_SCOPE_EXPLICIT));
    }

  if (!no_ext)
    {
      g_autofree char *project = zot_paths_get_project_extensions_dir (cwd);
      g_autofree char *user = zot_paths_get_extensions_dir ();
      g_autoptr(GPtrArray) in_project = zot_discover_in_directory (project, ZOT_EXTENSION_SCOPE_PROJECT);
      g_autoptr(GPtrArray) in_user = NULL;

      for (guint i = 0; i < in_project->len; i++)
        append_unique (order, seen, g_ptr_array_steal_index (in_project, i--));

      /* A project directory inside $ZOT_HOME would otherwise be listed twice. */
      if (g_strcmp0 (project, user) != 0)
        {
          in_user = zot_discover_in_directory (user, ZOT_EXTENSION_SCOPE_USER);
          for (guint i = 0; i < in_user->len; i++)
            append_unique (order, seen, g_ptr_array_steal_index (in_user, i--));
        }
    }

  /* Last, so that the user's own extension of the same name wins. */
  if (!no_ext)
    {
      g_autofree char *builtin = zot_discover_builtin_dir ();
      g_autoptr(GPtrArray) in_builtin = zot_discover_in_directory (builtin, ZOT_EXTENSION_SCOPE_BUILTIN);

      for (guint i = 0; i < in_builtin->len; i++)
        if (builtin_wanted (g_ptr_array_index (in_builtin, i), cwd))
          append_unique (order, seen, g_ptr_array_steal_index (in_builtin, i--));
    }

  return g_steal_pointer (&order);
}
