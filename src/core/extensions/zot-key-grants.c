/* zot-key-grants.c — the user's grants of provider keys to extensions. */
#define G_LOG_DOMAIN "zot-key-grants"

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "zot-json.h"
#include "zot-key-grants.h"
#include "zot-limits.h"
#include "zot-paths.h"

static char *
grants_path (void)
{
  g_autofree char *home = zot_paths_get_home ();

  return g_build_filename (home, "key-grants.json", NULL);
}

/* The whole file as an object; an empty one when it is missing or broken
 * (a broken file grants nothing). */
static JsonObject *
load_grants (void)
{
  g_autofree char *path = grants_path ();
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  if (!zot_file_get_contents_bounded (path, ZOT_STATE_FILE_MAX_BYTES, &contents, NULL, &error))
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_debug ("%s %s; no provider key is granted to extensions", path, error->message);
      return json_object_new ();
    }

  if (!zot_json_parser_load (parser, contents, -1, &error) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_debug ("%s is not a JSON object; no provider key is granted to extensions", path);
      return json_object_new ();
    }

  return json_object_ref (json_node_get_object (root));
}

/**
 * zot_key_grants_for:
 *
 * Returns: (transfer full): the key variables granted to @extension
 */
GStrv
zot_key_grants_for (const char *extension)
{
  g_autoptr(JsonObject) grants = load_grants ();
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *granted = zot_json_get_array (grants, extension);

  for (guint i = 0; granted != NULL && i < json_array_get_length (granted); i++)
    {
      JsonNode *node = json_array_get_element (granted, i);

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (node));
    }

  return g_strv_builder_end (builder);
}

/**
 * zot_key_grants_set:
 * @granted: %TRUE to grant @variable to @extension, %FALSE to take it back
 *
 * Returns: %FALSE when the grants could not be written
 */
gboolean
zot_key_grants_set (const char  *extension,
                    const char  *variable,
                    gboolean     granted,
                    GError     **error)
{
  g_autoptr(JsonObject) grants = load_grants ();
  g_autoptr(JsonArray) updated = json_array_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *path = grants_path ();
  g_autofree char *parent = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  JsonArray *current;

  g_return_val_if_fail (extension != NULL, FALSE);
  g_return_val_if_fail (variable != NULL, FALSE);

  current = zot_json_get_array (grants, extension);
  for (guint i = 0; current != NULL && i < json_array_get_length (current); i++)
    {
      JsonNode *node = json_array_get_element (current, i);

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
          !g_str_equal (json_node_get_string (node), variable))
        json_array_add_string_element (updated, json_node_get_string (node));
    }
  if (granted)
    json_array_add_string_element (updated, variable);

  if (json_array_get_length (updated) > 0)
    json_object_set_array_member (grants, extension, g_steal_pointer (&updated));
  else
    json_object_remove_member (grants, extension);

  root = json_node_init_object (json_node_alloc (), grants);
  text = json_to_string (root, TRUE);
  if (g_mkdir_with_parents (parent, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot create %s"), parent);
      return FALSE;
    }
  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}
