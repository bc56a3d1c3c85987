#define G_LOG_DOMAIN "zot-manifest"

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "zot-error.h"
#include "zot-flatpak.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-names.h"
#include "zot-paths.h"
#include "zot-permissions.h"

struct _ZotManifest
{
  GObject   parent_instance;

  char     *directory;
  char     *path;
  char     *name;
  char     *exec;
  GStrv     args;
  char     *version;
  char     *description;
  char     *language;
  gboolean  enabled;
  gboolean  intercept_failure_blocks;
  gboolean  restart_never;
  GStrv     env;
  GStrv     build;
  GStrv     watch;
  GStrv     watch_ignore;
  ZotPermissions *permissions;  /* NULL: unconfined */
};

G_DEFINE_FINAL_TYPE (ZotManifest, zot_manifest, G_TYPE_OBJECT)

static void
zot_manifest_finalize (GObject *object)
{
  ZotManifest *self = (ZotManifest *)object;

  g_clear_pointer (&self->directory, g_free);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->exec, g_free);
  g_clear_pointer (&self->args, g_strfreev);
  g_clear_pointer (&self->env, g_strfreev);
  g_clear_pointer (&self->build, g_strfreev);
  g_clear_pointer (&self->watch, g_strfreev);
  g_clear_pointer (&self->watch_ignore, g_strfreev);
  g_clear_pointer (&self->permissions, zot_permissions_free);
  g_clear_pointer (&self->version, g_free);
  g_clear_pointer (&self->description, g_free);
  g_clear_pointer (&self->language, g_free);

  G_OBJECT_CLASS (zot_manifest_parent_class)->finalize (object);
}

static void
zot_manifest_class_init (ZotManifestClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zot_manifest_finalize;
}

static void
zot_manifest_init (ZotManifest *self)
{
  self->enabled = TRUE;
}

gboolean
zot_manifest_name_is_valid (const char *name)
{
  return zot_name_is_extension_name (name);
}

static gboolean
read_optional_string (JsonObject  *object,
                      const char  *path,
                      const char  *field,
                      char       **out,
                      GError     **error)
{
  JsonNode *node = json_object_get_member (object, field);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   /* Translators: the path of the extension.json file, then the JSON field's
                    * name (keep it) */
                   _("%s: field \"%s\" must be a string"), path, field);
      return FALSE;
    }

  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* An optional array of strings; *@out stays NULL when it is absent. */
static gboolean
read_optional_strings (JsonObject   *object,
                       const char   *path,
                       const char   *field,
                       GStrv        *out,
                       GError      **error)
{
  JsonNode *node = json_object_get_member (object, field);
  g_autoptr(GStrvBuilder) builder = NULL;
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: field \"%s\" must be an array of strings"), path, field);
      return FALSE;
    }

  builder = g_strv_builder_new ();
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          json_node_get_value_type (element) != G_TYPE_STRING)
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                       _("%s: field \"%s\" must be an array of strings (element %u is not)"),
                       path, field, i);
          return FALSE;
        }
      g_strv_builder_add (builder, json_node_get_string (element));
    }
  *out = g_strv_builder_end (builder);
  return TRUE;
}

ZotManifest *
zot_manifest_new_from_data (const char  *directory,
                            const char  *data,
                            gssize       length,
                            GError     **error)
{
  g_autoptr(ZotManifest) self = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *intercept_failure = NULL;
  g_autofree char *restart = NULL;
  JsonObject *object;
  JsonNode *node;

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (data != NULL, NULL);

  path = g_build_filename (directory, ZOT_MANIFEST_FILENAME, NULL);

  parser = json_parser_new_immutable ();
  if (!zot_json_parser_load (parser, data, length, &local_error))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_PARSE,
                   _("%s: not valid JSON (%s); fix the syntax"), path, local_error->message);
      return NULL;
    }

  node = json_parser_get_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: the top level must be a JSON object"), path);
      return NULL;
    }
  object = json_node_get_object (node);

  self = g_object_new (ZOT_TYPE_MANIFEST, NULL);
  self->directory = g_strdup (directory);
  self->path = g_steal_pointer (&path);

  if (!read_optional_string (object, self->path, "name", &self->name, error) ||
      !read_optional_string (object, self->path, "exec", &self->exec, error) ||
      !read_optional_string (object, self->path, "version", &self->version, error) ||
      !read_optional_string (object, self->path, "description", &self->description, error) ||
      !read_optional_string (object, self->path, "language", &self->language, error))
    return NULL;

  if (self->name == NULL || *self->name == '\0')
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: field \"name\" is missing; add the extension's name"), self->path);
      return NULL;
    }

  if (!zot_manifest_name_is_valid (self->name))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: field \"name\" must be at most 128 characters without \"/\", \"\\\", "
                     "control or invisible characters, not start with \"-\" nor be \".\" or \"..\"; rename it"),
                   self->path);
      return NULL;
    }

  if (self->exec == NULL || *self->exec == '\0')
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: field \"exec\" is missing; add the program to run, e.g. \"exec\": \"./main.py\""),
                   self->path);
      return NULL;
    }

  if (!read_optional_strings (object, self->path, "args", &self->args, error))
    return NULL;
  if (self->args == NULL)
    self->args = g_new0 (char *, 1);

  /* Watch mode (docs/protocol.md): the build before a restart, and what
   * changes restart it. */
  if (!read_optional_strings (object, self->path, "build", &self->build, error) ||
      !read_optional_strings (object, self->path, "watch", &self->watch, error) ||
      !read_optional_strings (object, self->path, "watch_ignore", &self->watch_ignore, error))
    return NULL;
  if (self->build != NULL && (self->build[0] == NULL || *self->build[0] == '\0'))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: field \"build\" must name a program, e.g. \"build\": [\"make\"]"),
                   self->path);
      return NULL;
    }

  node = json_object_get_member (object, "enabled");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                       _("%s: field \"enabled\" must be true or false"), self->path);
          return NULL;
        }
      self->enabled = json_node_get_boolean (node);
    }

  /* Provider keys it asks for by name; the user still has to grant them. */
  node = json_object_get_member (object, "env");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

      for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
            array = NULL;
          else
            g_strv_builder_add (builder, json_node_get_string (element));
        }
      if (array == NULL)
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                       _("%s: field \"env\" must be an array of variable names"), self->path);
          return NULL;
        }
      self->env = g_strv_builder_end (builder);
    }

  /* PROTOCOL.md §7: what a call this extension would judge becomes while
   * the extension is not running. */
  if (!read_optional_string (object, self->path, "intercept_failure", &intercept_failure, error))
    return NULL;
  if (intercept_failure != NULL)
    {
      if (g_str_equal (intercept_failure, "block"))
        self->intercept_failure_blocks = TRUE;
      else if (!g_str_equal (intercept_failure, "allow"))
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                       _("%s: field \"intercept_failure\" must be \"allow\" or \"block\""), self->path);
          return NULL;
        }
    }

  /* Whether the host restarts it after a crash (docs/protocol.md
   * "Restarts after a crash"). */
  if (!read_optional_string (object, self->path, "restart", &restart, error))
    return NULL;
  if (restart != NULL)
    {
      if (g_str_equal (restart, "never"))
        self->restart_never = TRUE;
      else if (!g_str_equal (restart, "on-crash"))
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                       _("%s: field \"restart\" must be \"on-crash\" or \"never\""), self->path);
          return NULL;
        }
    }

  if (!zot_permissions_read (object, self->path, &self->permissions, error))
    return NULL;

  return g_steal_pointer (&self);
}

/**
 * zot_manifest_get_restart_never:
 *
 * Returns: %TRUE when the manifest says `"restart": "never"`: after a
 *   crash the extension stays down until the user restarts it
 */
gboolean
zot_manifest_get_restart_never (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), FALSE);

  return self->restart_never;
}

/**
 * zot_manifest_get_intercept_failure_blocks:
 *
 * Returns: %TRUE when the manifest says `"intercept_failure": "block"`:
 *   while the extension is not running, every tool call it would have
 *   judged is refused instead of going on without it
 */
/**
 * zot_manifest_get_env:
 *
 * Returns: (transfer none) (nullable): the variables the manifest asks for
 *   by name ("env"), such as a provider key
 */
const char * const *
zot_manifest_get_env (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);

  return (const char * const *) self->env;
}

/**
 * zot_manifest_get_build:
 *
 * Returns: (transfer none) (nullable): the argv run in the extension's
 *   directory before a restart in watch mode ("build"), never empty
 */
const char * const *
zot_manifest_get_build (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);

  return (const char * const *) self->build;
}

/**
 * zot_manifest_get_watch:
 *
 * Returns: (transfer none) (nullable): globs of the paths, relative to
 *   the extension's directory, whose change reloads it in watch mode
 *   ("watch"); %NULL for every path
 */
const char * const *
zot_manifest_get_watch (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);

  return (const char * const *) self->watch;
}

/**
 * zot_manifest_get_watch_ignore:
 *
 * Returns: (transfer none) (nullable): globs of the paths whose change
 *   never reloads it ("watch_ignore"), such as files it writes itself
 */
const char * const *
zot_manifest_get_watch_ignore (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);

  return (const char * const *) self->watch_ignore;
}

gboolean
zot_manifest_get_intercept_failure_blocks (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), FALSE);

  return self->intercept_failure_blocks;
}

ZotManifest *
zot_manifest_new_for_directory (const char  *directory,
                                GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *absolute = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length = 0;

  g_return_val_if_fail (directory != NULL, NULL);

  absolute = g_canonicalize_filename (directory, NULL);
  path = g_build_filename (absolute, ZOT_MANIFEST_FILENAME, NULL);

  if (!zot_file_get_contents_bounded (path, ZOT_MANIFEST_MAX_BYTES, &contents, &length, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND,
                     _("%s: no such file; an extension directory needs an extension.json"), path);
      else
        g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND,
                     /* Translators: the file's path, the system's error message, then a size in
                      * kibibytes */
                     _("%s: %s; an extension.json must be a regular file of at most %u KiB"),
                     path, local_error->message, (guint) (ZOT_MANIFEST_MAX_BYTES / 1024));
      return NULL;
    }

  return zot_manifest_new_from_data (absolute, contents, (gssize) length, error);
}

/* Resolution per PROTOCOL.md §1: absolute as is; "./", "../" or any "/"
 * relative to the extension directory; a bare name through $PATH. */
char *
zot_manifest_resolve_exec (ZotManifest  *self,
                           GError      **error)
{
  g_autofree char *resolved = NULL;

  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);

  /* Inside Flatpak the program runs on the host, whose $PATH and /usr are
   * not the sandbox's: only a path into the extension can be checked. */
  if (zot_flatpak_is_sandboxed () && strchr (self->exec, '/') == NULL)
    return g_strdup (self->exec);
  if (zot_flatpak_is_sandboxed () && g_path_is_absolute (self->exec))
    return g_strdup (self->exec);

  if (g_path_is_absolute (self->exec))
    resolved = g_strdup (self->exec);
  else if (strchr (self->exec, '/') != NULL)
    resolved = g_canonicalize_filename (self->exec, self->directory);
  else
    {
      resolved = g_find_program_in_path (self->exec);
      if (resolved == NULL)
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC,
                       _("%s: exec \"%s\" was not found in $PATH; install it or give a path"),
                       self->path, self->exec);
          return NULL;
        }
      return g_steal_pointer (&resolved);
    }

  if (!g_file_test (resolved, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC,
                   _("%s: exec \"%s\" does not exist (looked for %s)"),
                   self->path, self->exec, resolved);
      return NULL;
    }

  if (!g_file_test (resolved, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC,
                   _("%s: exec \"%s\" is not executable; run chmod +x %s"),
                   self->path, self->exec, resolved);
      return NULL;
    }

  return g_steal_pointer (&resolved);
}

const char *
zot_manifest_get_directory (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return self->directory;
}

const char *
zot_manifest_get_path (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return self->path;
}

const char *
zot_manifest_get_name (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return self->name;
}

const char *
zot_manifest_get_exec (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return self->exec;
}

const char * const *
zot_manifest_get_args (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return (const char * const *) self->args;
}

const char *
zot_manifest_get_version (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return self->version;
}

const char *
zot_manifest_get_description (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return self->description;
}

const char *
zot_manifest_get_language (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);
  return self->language;
}

gboolean
zot_manifest_get_enabled (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), FALSE);
  return self->enabled;
}

/**
 * zot_manifest_get_permissions:
 *
 * Returns: (transfer none) (nullable): what the extension's box allows;
 *   %NULL when the manifest declares no permissions (unconfined)
 */
const ZotPermissions *
zot_manifest_get_permissions (ZotManifest *self)
{
  g_return_val_if_fail (ZOT_IS_MANIFEST (self), NULL);

  return self->permissions;
}
