/* zot-grants.c — the store of what the user accepted for each extension. */
#define G_LOG_DOMAIN "zot-grants"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-grants.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-names.h"
#include "zot-paths.h"

static char *
grant_path (const char *extension)
{
  g_autofree char *home = zot_paths_get_home ();
  g_autofree char *file = g_strconcat (extension, ".json", NULL);

  return g_build_filename (home, "grants", file, NULL);
}

ZotPermissions *
zot_permissions_copy (const ZotPermissions *self)
{
  ZotPermissions *copy;

  if (self == NULL)
    return NULL;
  copy = g_memdup2 (self, sizeof *self);
  copy->env = g_strdupv (self->env);
  copy->secrets = g_strdupv (self->secrets);
  return copy;
}

/**
 * zot_grant_new:
 * @declared: (nullable): what the manifest asks for, %NULL when unconfined
 *
 * Returns: (transfer full): a grant of exactly @declared, in no project
 */
ZotGrant *
zot_grant_new (const ZotPermissions *declared)
{
  ZotGrant *self = g_new0 (ZotGrant, 1);

  self->unconfined = declared == NULL;
  self->permissions = zot_permissions_copy (declared);
  self->projects = g_new0 (char *, 1);
  return self;
}

void
zot_grant_free (ZotGrant *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->permissions, zot_permissions_free);
  g_strfreev (self->projects);
  g_free (self);
}

static GStrv
read_strings (JsonArray *array)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (node));
    }
  return g_strv_builder_end (builder);
}

/**
 * zot_grant_load:
 *
 * A broken grants file grants nothing: it is reported in one line and
 * treated as missing, so the user is asked again.
 *
 * Returns: (transfer full) (nullable): the grant, %NULL when there is none
 */
ZotGrant *
zot_grant_load (const char *extension)
{
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotGrant) self = NULL;
  JsonObject *object;
  JsonNode *root;

  if (extension == NULL || !zot_name_is_extension_name (extension))
    return NULL;
  path = grant_path (extension);
  if (!zot_file_get_contents_bounded (path, ZOT_STATE_FILE_MAX_BYTES, &contents, NULL, &error))
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_warning (_("%s: %s; treated as no grant"), path, error->message);
      return NULL;
    }
  if (!zot_json_parser_load (parser, contents, -1, &error) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_warning (_("%s is not a grants file; treated as no grant"), path);
      return NULL;
    }

  object = json_node_get_object (root);
  self = g_new0 (ZotGrant, 1);
  self->unconfined = zot_json_get_boolean_or (object, "unconfined", FALSE);
  if (!self->unconfined &&
      (!zot_permissions_read (object, path, &self->permissions, &error) || self->permissions == NULL))
    {
      g_warning (_("%s: %s; treated as no grant"), path,
                 error != NULL ? error->message : _("no \"permissions\""));
      return NULL;
    }
  self->projects = read_strings (zot_json_get_array (object, "projects"));
  return g_steal_pointer (&self);
}

static JsonArray *
strings_to_array (const char * const *strings)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strings != NULL && strings[i] != NULL; i++)
    json_array_add_string_element (array, strings[i]);
  return array;
}

/**
 * zot_grant_save:
 *
 * Replaces the grant atomically, so a crash leaves the old one or the new.
 *
 * Returns: %FALSE when the grant could not be written
 */
gboolean
zot_grant_save (const char      *extension,
                const ZotGrant  *self,
                GError         **error)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *path = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *text = NULL;

  if (!zot_name_is_extension_name (extension))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("\"%s\" is not an extension name"), extension);
      return FALSE;
    }
  json_object_set_boolean_member (object, "unconfined", self->unconfined);
  if (self->permissions != NULL)
    {
      JsonObject *permissions = json_object_new ();

      json_object_set_string_member (permissions, "filesystem",
                                     zot_filesystem_access_to_string (self->permissions->filesystem));
      json_object_set_boolean_member (permissions, "network", self->permissions->network);
      json_object_set_boolean_member (permissions, "devices", self->permissions->devices);
      json_object_set_array_member (permissions, "env",
                                    strings_to_array ((const char * const *) self->permissions->env));
      json_object_set_array_member (permissions, "secrets",
                                    strings_to_array ((const char * const *) self->permissions->secrets));
      json_object_set_object_member (object, "permissions", permissions);
    }
  json_object_set_array_member (object, "projects",
                                strings_to_array ((const char * const *) self->projects));

  root = json_node_init_object (json_node_alloc (), object);
  text = json_to_string (root, TRUE);
  if (strlen (text) > ZOT_STATE_FILE_MAX_BYTES)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   _("the grant of %s would exceed %zu bytes; revoke it and trust again"),
                   extension, (gsize) ZOT_STATE_FILE_MAX_BYTES);
      return FALSE;
    }
  path = grant_path (extension);
  parent = g_path_get_dirname (path);
  if (g_mkdir_with_parents (parent, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("cannot create %s"), parent);
      return FALSE;
    }
  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

static gboolean
names_within (const char * const *asked,
              const char * const *granted)
{
  for (guint i = 0; asked != NULL && asked[i] != NULL; i++)
    if (granted == NULL || !g_strv_contains (granted, asked[i]))
      return FALSE;
  return TRUE;
}

/**
 * zot_grant_covers:
 * @self: (nullable): the grant, %NULL for none
 * @declared: (nullable): what the manifest asks for, %NULL when unconfined
 *
 * Returns: %TRUE when everything @declared asks for was accepted, so an
 *   update that asks for more is caught
 */
gboolean
zot_grant_covers (const ZotGrant       *self,
                  const ZotPermissions *declared)
{
  const ZotPermissions *granted;

  if (self == NULL)
    return FALSE;
  if (self->unconfined)
    return TRUE;
  if (declared == NULL)
    return FALSE;
  granted = self->permissions;
  return declared->filesystem <= granted->filesystem &&
         (!declared->network || granted->network) &&
         (!declared->devices || granted->devices) &&
         names_within ((const char * const *) declared->env, (const char * const *) granted->env) &&
         names_within ((const char * const *) declared->secrets,
                       (const char * const *) granted->secrets);
}

gboolean
zot_grant_trusts_project (const ZotGrant *self,
                          const char     *project)
{
  return self != NULL && project != NULL &&
         g_strv_contains ((const char * const *) self->projects, project);
}

void
zot_grant_add_project (ZotGrant   *self,
                       const char *project)
{
  g_autoptr(GStrvBuilder) builder = NULL;

  if (zot_grant_trusts_project (self, project))
    return;
  builder = g_strv_builder_new ();
  g_strv_builder_addv (builder, (const char **) self->projects);
  g_strv_builder_add (builder, project);
  g_strfreev (self->projects);
  self->projects = g_strv_builder_end (builder);
}

static GStrv
names_both (const char * const *asked,
            const char * const *granted)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; asked != NULL && asked[i] != NULL; i++)
    if (granted != NULL && g_strv_contains (granted, asked[i]))
      g_strv_builder_add (builder, asked[i]);
  return g_strv_builder_end (builder);
}

/**
 * zot_permissions_intersect:
 * @declared: (nullable): what the manifest asks for, %NULL when unconfined
 * @granted: (nullable): what the user left it, %NULL for no narrowing
 *
 * Returns: (transfer full) (nullable): what the box applies — no more than
 *   the manifest asks for and no more than the user granted; the limits
 *   stay the manifest's
 */
ZotPermissions *
zot_permissions_intersect (const ZotPermissions *declared,
                           const ZotPermissions *granted)
{
  ZotPermissions *self;

  if (granted == NULL)
    return zot_permissions_copy (declared);
  self = zot_permissions_copy (declared != NULL ? declared : granted);
  if (declared == NULL)
    return self;
  self->filesystem = MIN (declared->filesystem, granted->filesystem);
  self->network = declared->network && granted->network;
  self->devices = declared->devices && granted->devices;
  g_strfreev (self->env);
  self->env = names_both ((const char * const *) declared->env, (const char * const *) granted->env);
  g_strfreev (self->secrets);
  self->secrets = names_both ((const char * const *) declared->secrets,
                              (const char * const *) granted->secrets);
  return self;
}

/* Project extensions */

/**
 * zot_grants_project_of:
 * @directory: a project extension's folder, <project>/.zot/extensions/<name>
 *
 * Returns: (transfer full): the project folder it is trusted in
 */
char *
zot_grants_project_of (const char *directory)
{
  g_autofree char *extensions = g_path_get_dirname (directory);
  g_autofree char *dot_zot = g_path_get_dirname (extensions);

  return g_path_get_dirname (dot_zot);
}

/**
 * zot_grants_may_start:
 *
 * A cloned repository must not run code on open: an extension found in a
 * project starts only once the user trusted it for that project, and only
 * while it asks for no more than was accepted. Every other scope starts as
 * before (an explicit --ext path is the author running their own code).
 */
gboolean
zot_grants_may_start (const char        *directory,
                      ZotExtensionScope  scope,
                      ZotManifest       *manifest)
{
  g_autoptr(ZotGrant) grant = NULL;
  g_autofree char *project = NULL;

  /* A disabled one starts nowhere anyway: it stays listed as disabled. */
  if (scope != ZOT_EXTENSION_SCOPE_PROJECT || manifest == NULL || !zot_manifest_get_enabled (manifest))
    return TRUE;
  grant = zot_grant_load (zot_manifest_get_name (manifest));
  project = zot_grants_project_of (directory);
  return zot_grant_trusts_project (grant, project) &&
         zot_grant_covers (grant, zot_manifest_get_permissions (manifest));
}

/**
 * zot_grants_accept:
 * @project: (nullable): a project folder to trust it in as well
 *
 * Grants what @manifest asks for, keeping the projects it was trusted in.
 */
gboolean
zot_grants_accept (ZotManifest  *manifest,
                   const char   *project,
                   GError      **error)
{
  const char *name = zot_manifest_get_name (manifest);
  g_autoptr(ZotGrant) old = zot_grant_load (name);
  g_autoptr(ZotGrant) grant = zot_grant_new (zot_manifest_get_permissions (manifest));

  for (guint i = 0; old != NULL && old->projects[i] != NULL; i++)
    zot_grant_add_project (grant, old->projects[i]);
  if (project != NULL)
    zot_grant_add_project (grant, project);
  return zot_grant_save (name, grant, error);
}

/**
 * zot_grants_trust_project:
 * @directory: the extension's folder in a project's .zot/extensions/
 *
 * Grants what @manifest asks for and trusts it in its project.
 */
gboolean
zot_grants_trust_project (const char   *directory,
                          ZotManifest  *manifest,
                          GError      **error)
{
  g_autofree char *project = zot_grants_project_of (directory);

  return zot_grants_accept (manifest, project, error);
}

/**
 * zot_grants_approval_error:
 *
 * Returns: (transfer full): why a project extension was not started, with
 *   what it asks for and the command that trusts it
 */
GError *
zot_grants_approval_error (const char  *directory,
                           ZotManifest *manifest)
{
  g_autofree char *asks = zot_permissions_describe_words (zot_manifest_get_permissions (manifest));

  return g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                      /* Translators: what the extension asks for ("confined: …" or "unconfined"), then its name */
                      _("needs approval (asks for: %s); run `zot ext trust %s` in the project folder"),
                      asks, zot_manifest_get_name (manifest));
}

/**
 * zot_grants_applied:
 *
 * What the box applies: what @manifest asks for, narrowed by what the user
 * granted (or left after a revoke). An update that asks for more than was
 * granted gets no more than the grant.
 *
 * Returns: (transfer full) (nullable): %NULL for an unconfined extension
 *   whose running unconfined was accepted, or that has no grant
 */
ZotPermissions *
zot_grants_applied (ZotManifest *manifest)
{
  const ZotPermissions *declared = zot_manifest_get_permissions (manifest);
  g_autoptr(ZotGrant) grant = zot_grant_load (zot_manifest_get_name (manifest));

  /* An update that dropped "permissions" asks for everything: it keeps the
   * box it was granted rather than leaving it. */
  if (declared == NULL)
    return grant != NULL && !grant->unconfined ? zot_permissions_copy (grant->permissions) : NULL;
  return zot_permissions_intersect (declared, grant != NULL && !grant->unconfined ? grant->permissions : NULL);
}
