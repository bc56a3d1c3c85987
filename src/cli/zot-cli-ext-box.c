/* zot-cli-ext-box.c — what `zot ext list` says of each extension's box,
 * and the list as JSON (`zot ext list --json`). */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <json-glib/json-glib.h>

#include "zot-cli-private.h"
#include "zot-discovery.h"
#include "zot-manifest.h"

/* The BOX column: "unconfined" in words, else the filesystem value and
 * what else the box opens ("project:ro+net"); "-" for a manifest that
 * could not be read. */
char *
zot_cli_ext_box_cell (ZotManifest *manifest)
{
  if (manifest == NULL)
    return g_strdup ("-");
  return zot_permissions_describe (zot_manifest_get_permissions (manifest));
}

static void
add_strings (JsonBuilder        *builder,
             const char         *member,
             const char * const *values)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; values[i] != NULL; i++)
    json_builder_add_string_value (builder, values[i]);
  json_builder_end_array (builder);
}

static void
add_limit (JsonBuilder *builder,
           const char  *member,
           guint        value)
{
  json_builder_set_member_name (builder, member);
  if (value > 0)
    json_builder_add_int_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

/* The manifest's permissions as declared; null for an unconfined one. */
static void
add_permissions (JsonBuilder          *builder,
                 const ZotPermissions *permissions)
{
  json_builder_set_member_name (builder, "permissions");
  if (permissions == NULL)
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "filesystem");
  json_builder_add_string_value (builder, zot_filesystem_access_to_string (permissions->filesystem));
  json_builder_set_member_name (builder, "network");
  json_builder_add_boolean_value (builder, permissions->network);
  json_builder_set_member_name (builder, "devices");
  json_builder_add_boolean_value (builder, permissions->devices);
  add_strings (builder, "env", (const char * const *) permissions->env);
  add_strings (builder, "secrets", (const char * const *) permissions->secrets);
  json_builder_set_member_name (builder, "limits");
  json_builder_begin_object (builder);
  add_limit (builder, "memory_mb", permissions->memory_mb);
  add_limit (builder, "processes", permissions->processes);
  add_limit (builder, "open_files", permissions->open_files);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

/**
 * zot_cli_ext_print_list_json:
 * @keys: the member name of each column, as many as a row has cells
 * @found: (element-type ZotDiscovered): the extensions, in load order
 * @rows: (element-type GStrv): the table's cells, one row per extension
 * @failures: (element-type utf8): why each cannot load, or %NULL
 *
 * Prints the table `zot ext list` shows as one JSON array, each row an
 * object with the manifest's permissions beside the columns.
 */
void
zot_cli_ext_print_list_json (const char * const *keys,
                             GPtrArray          *found,
                             GPtrArray          *rows,
                             GPtrArray          *failures)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_array (builder);
  for (guint i = 0; i < rows->len; i++)
    {
      const char * const *cells = g_ptr_array_index (rows, i);
      ZotDiscovered *discovered = g_ptr_array_index (found, i);
      const char *failure = g_ptr_array_index (failures, i);

      json_builder_begin_object (builder);
      for (guint column = 0; keys[column] != NULL; column++)
        {
          json_builder_set_member_name (builder, keys[column]);
          json_builder_add_string_value (builder, cells[column]);
        }
      json_builder_set_member_name (builder, "error");
      if (failure != NULL)
        json_builder_add_string_value (builder, failure);
      else
        json_builder_add_null_value (builder);
      if (discovered->manifest != NULL)
        add_permissions (builder, zot_manifest_get_permissions (discovered->manifest));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  g_print ("%s\n", text);
}
