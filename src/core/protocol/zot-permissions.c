/* zot-permissions.c — the manifest's "permissions" and "limits".
 *
 * Every malformed value refuses the load with the field named and what
 * would fix it; members this host does not know are ignored, as
 * everywhere in the manifest, so that later hosts can add some.
 */
#define G_LOG_DOMAIN "zot-manifest"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-error.h"
#include "zot-permissions.h"

static const char * const filesystem_names[] = {
  [ZOT_FILESYSTEM_NONE]       = "none",
  [ZOT_FILESYSTEM_PROJECT_RO] = "project:ro",
  [ZOT_FILESYSTEM_PROJECT]    = "project",
  [ZOT_FILESYSTEM_HOME_RO]    = "home:ro",
  [ZOT_FILESYSTEM_HOME]       = "home",
  [ZOT_FILESYSTEM_HOST]       = "host",
};

const char *
zot_filesystem_access_to_string (ZotFilesystemAccess access)
{
  g_return_val_if_fail (access <= ZOT_FILESYSTEM_HOST, "none");

  return filesystem_names[access];
}

void
zot_permissions_free (ZotPermissions *self)
{
  if (self == NULL)
    return;
  g_strfreev (self->env);
  g_strfreev (self->secrets);
  g_free (self);
}

static gboolean
read_boolean (JsonObject  *object,
              const char  *path,
              const char  *field,
              gboolean    *out,
              GError     **error)
{
  JsonNode *node = json_object_get_member (object, field);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   /* Translators: the path of extension.json, then the field's name (keep it) */
                   _("%s: field \"permissions.%s\" must be true or false"), path, field);
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* Environment variable names only: a value, or a name with "=", would
 * say something other than what the box does with it. */
static gboolean
read_names (JsonObject  *object,
            const char  *path,
            const char  *field,
            GStrv       *out,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, field);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array = NULL;

  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    array = json_node_get_array (node);
  else if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    goto invalid;

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *name;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        goto invalid;
      name = json_node_get_string (element);
      if (*name == '\0' || strchr (name, '=') != NULL)
        goto invalid;
      g_strv_builder_add (builder, name);
    }
  *out = g_strv_builder_end (builder);
  return TRUE;

invalid:
  g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
               /* Translators: the path of extension.json, then the field's name (keep it) */
               _("%s: field \"permissions.%s\" must be an array of variable names, e.g. [\"GITHUB_TOKEN\"]"),
               path, field);
  return FALSE;
}

static gboolean
read_limit (JsonObject  *object,
            const char  *path,
            const char  *field,
            guint       *out,
            GError     **error)
{
  JsonNode *node = json_object_get_member (object, field);
  gint64 value;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      (value = json_node_get_int (node)) < 1 || value > G_MAXINT32)
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   /* Translators: the path of extension.json, then the field's name (keep it) */
                   _("%s: field \"limits.%s\" must be a whole number from 1 up; remove it for no limit"),
                   path, field);
      return FALSE;
    }
  *out = (guint) value;
  return TRUE;
}

static gboolean
read_filesystem (JsonObject      *object,
                 const char      *path,
                 ZotPermissions  *self,
                 GError         **error)
{
  JsonNode *node = json_object_get_member (object, "filesystem");

  /* A box that says nothing about files sees only its own. */
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    for (guint i = 0; i < G_N_ELEMENTS (filesystem_names); i++)
      if (g_str_equal (json_node_get_string (node), filesystem_names[i]))
        {
          self->filesystem = i;
          return TRUE;
        }

  g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
               /* Translators: the path of extension.json; keep the field's name and the values */
               _("%s: field \"permissions.filesystem\" must be one of \"none\", \"project:ro\", "
                 "\"project\", \"home:ro\", \"home\" or \"host\""), path);
  return FALSE;
}

/**
 * zot_permissions_read:
 * @manifest: the manifest's top-level object
 * @path: the manifest's path, for messages
 * @out: (out) (transfer full) (nullable): the permissions; %NULL for an
 *   unconfined extension
 *
 * Returns: %FALSE with @error naming the field when a value is malformed
 */
gboolean
zot_permissions_read (JsonObject      *manifest,
                      const char      *path,
                      ZotPermissions **out,
                      GError         **error)
{
  g_autoptr(ZotPermissions) self = NULL;
  JsonNode *node = json_object_get_member (manifest, "permissions");
  JsonNode *limits = json_object_get_member (manifest, "limits");
  JsonObject *object;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      /* Limits are the box's: without one they would silently do nothing. */
      if (limits != NULL && !JSON_NODE_HOLDS_NULL (limits))
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                       /* Translators: the path of extension.json; keep the field names */
                       _("%s: field \"limits\" applies only in a box: add \"permissions\", "
                         "e.g. \"permissions\": {\"filesystem\": \"none\"}"), path);
          return FALSE;
        }
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   /* Translators: the path of extension.json; keep the field's name */
                   _("%s: field \"permissions\" must be an object, e.g. {\"filesystem\": \"project:ro\"}"),
                   path);
      return FALSE;
    }

  self = g_new0 (ZotPermissions, 1);
  object = json_node_get_object (node);
  if (!read_filesystem (object, path, self, error) ||
      !read_boolean (object, path, "network", &self->network, error) ||
      !read_boolean (object, path, "devices", &self->devices, error) ||
      !read_names (object, path, "env", &self->env, error) ||
      !read_names (object, path, "secrets", &self->secrets, error))
    return FALSE;

  if (limits != NULL && !JSON_NODE_HOLDS_NULL (limits))
    {
      if (!JSON_NODE_HOLDS_OBJECT (limits))
        {
          g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                       /* Translators: the path of extension.json; keep the field's name */
                       _("%s: field \"limits\" must be an object, e.g. {\"memory_mb\": 512}"), path);
          return FALSE;
        }
      object = json_node_get_object (limits);
      if (!read_limit (object, path, "memory_mb", &self->memory_mb, error) ||
          !read_limit (object, path, "processes", &self->processes, error) ||
          !read_limit (object, path, "open_files", &self->open_files, error))
        return FALSE;
    }

  *out = g_steal_pointer (&self);
  return TRUE;
}

/**
 * zot_permissions_describe:
 * @self: (nullable): the permissions, %NULL for an unconfined extension
 *
 * Returns: (transfer full): the short form `zot ext list` shows, such as
 *   "project:ro+net", "none" or "unconfined" (not translated: these are
 *   the manifest's own words)
 */
char *
zot_permissions_describe (const ZotPermissions *self)
{
  if (self == NULL)
    return g_strdup ("unconfined");
  return g_strconcat (zot_filesystem_access_to_string (self->filesystem),
                      self->network ? "+net" : "", self->devices ? "+dev" : "", NULL);
}

/**
 * zot_filesystem_access_describe_words:
 *
 * Returns: what a box of @access may see of the files, in words, such as
 *   "project read-only" (translated; do not free)
 */
const char *
zot_filesystem_access_describe_words (ZotFilesystemAccess access)
{
  const char *files[] = {
    /* Translators: what a confined extension may see of the files, in "confined: %s, %s" */
    [ZOT_FILESYSTEM_NONE]       = N_("its own folder only"),
    [ZOT_FILESYSTEM_PROJECT_RO] = N_("project read-only"),
    [ZOT_FILESYSTEM_PROJECT]    = N_("project"),
    [ZOT_FILESYSTEM_HOME_RO]    = N_("home read-only"),
    [ZOT_FILESYSTEM_HOME]       = N_("home"),
    [ZOT_FILESYSTEM_HOST]       = N_("all files"),
  };

  g_return_val_if_fail (access <= ZOT_FILESYSTEM_HOST, "");
  return _(files[access]);
}

/**
 * zot_permissions_describe_words:
 * @self: (nullable): the permissions, %NULL for an unconfined extension
 *
 * Returns: (transfer full): the same in words for the window, such as
 *   "unconfined" or "confined: project read-only, no network"
 */
char *
zot_permissions_describe_words (const ZotPermissions *self)
{
  if (self == NULL)
    /* Translators: an extension that runs without a box, with all the user's rights */
    return g_strdup (_("unconfined"));
  /* Translators: an extension's box: what it may see of the files, then "network" or "no network" */
  return g_strdup_printf (_("confined: %s, %s"), zot_filesystem_access_describe_words (self->filesystem),
                          self->network ? _("network") : _("no network"));
}

/**
 * zot_permissions_describe_details:
 * @self: (nullable): the permissions, %NULL for an unconfined extension
 *
 * What goes with zot_permissions_describe_words() when the user is asked
 * to install: `zot ext install` prints these lines and the window shows
 * them, so both say the same.
 *
 * Returns: (transfer full): one line each: any environment variables,
 *   secrets, devices and limits; for an unconfined extension, what that means
 */
GStrv
zot_permissions_describe_details (const ZotPermissions *self)
{
  GPtrArray *lines = g_ptr_array_new ();

  if (self == NULL)
    /* Translators: shown under "unconfined" before the question */
    g_ptr_array_add (lines, g_strdup (_("it runs with all your rights: every file, the network")));
  else if (self->env[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", self->env);

      /* Translators: before the names of environment variables the extension may read */
      g_ptr_array_add (lines, g_strconcat (_("environment: "), names, NULL));
    }
  if (self != NULL && self->secrets[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", self->secrets);

      /* Translators: before the names of the secrets the extension is given */
      g_ptr_array_add (lines, g_strconcat (_("secrets: "), names, NULL));
    }
  if (self != NULL && self->devices)
    g_ptr_array_add (lines, g_strdup (_("devices (/dev)")));
  if (self != NULL && self->memory_mb > 0)
    /* Translators: a limit the box applies: at most this much memory */
    g_ptr_array_add (lines, g_strdup_printf (_("memory limit: %u MB"), self->memory_mb));
  if (self != NULL && self->processes > 0)
    /* Translators: a limit the box applies: at most this many processes */
    g_ptr_array_add (lines, g_strdup_printf (_("process limit: %u"), self->processes));
  if (self != NULL && self->open_files > 0)
    /* Translators: a limit the box applies: at most this many open files */
    g_ptr_array_add (lines, g_strdup_printf (_("open file limit: %u"), self->open_files));
  g_ptr_array_add (lines, NULL);
  return (GStrv) g_ptr_array_free (lines, FALSE);
}
