/* zot-installer.c — installing an extension: a staged copy or clone,
 * validated and renamed into place; also the manifest's enabled flag and
 * which sources count as git URLs.
 *
 * Fetching the source (copy, unpack, clone) lives in zot-installer-fetch.c
 * and zot-installer-git.c, removing in zot-installer-remove.c.
 */
#define G_LOG_DOMAIN "zot-installer"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "zot-error.h"
#include "zot-installer.h"
#include "zot-installer-private.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-paths.h"

G_DEFINE_BOXED_TYPE (ZotUpdateResult, zot_update_result,
                     zot_update_result_copy, zot_update_result_free)

static void
install_data_free (InstallData *data)
{
  g_free (data->source);
  g_free (data->source_dir);
  g_free (data->target_parent);
  g_free (data->staging);
  g_clear_error (&data->clone_error);
  g_free (data);
}


static gboolean
name_can_be_installed (const char *name)
{
  /* Discovery skips hidden directories, and staging directories are hidden:
   * a name with a leading dot would never load and could collide. */
  return zot_manifest_name_is_valid (name) && name[0] != '.';
}

/* Replaces the staging directory in a message by what the user named, so that
 * "…/.install-Ab12Cd/extension.json" reads as the source's own file. */
static void
error_replace_path (GError     *error,
                    const char *path,
                    const char *replacement)
{
  GString *message;

  g_assert (error != NULL);

  message = g_string_new (error->message);
  g_string_replace (message, path, replacement, 0);
  g_free (error->message);
  error->message = g_string_free (message, FALSE);
}

/* Install ----------------------------------------------------------------- */

/* Worker thread: validates the staged tree and moves it into place. Once the
 * staging directory has been renamed, the install is done, cancelled or not. */
static ZotManifest *
install_place (InstallData   *data,
               const char    *display_source,
               GCancellable  *cancellable,
               GError       **error)
{
  g_autoptr(ZotManifest) staged = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *target = NULL;
  g_autofree char *aside = NULL;
  const char *name;
  GStatBuf st;

  staged = zot_manifest_new_for_directory (data->staging, &local_error);
  if (staged == NULL)
    {
      error_replace_path (local_error, data->staging, display_source);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  name = zot_manifest_get_name (staged);
  if (!name_can_be_installed (name))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s/%s: field \"name\" (\"%s\") starts with a dot, "
                     "so it would never be loaded; rename the extension"),
                   display_source, ZOT_MANIFEST_FILENAME, name);
      return NULL;
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
      (data->consent != NULL && !data->consent (staged, data->consent_data, error)))
    return NULL;

  target = g_build_filename (data->target_parent, name, NULL);
  /* Built before it replaces anything; not built when it would not. */
  if (data->build && (data->force || g_lstat (target, &st) != 0) &&
      !_zot_installer_build (data, staged, cancellable, error))
    return NULL;

  if (g_lstat (target, &st) == 0)
    {
      if (!data->force)
        {
          g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_EXISTS,
                       _("%s: an extension named \"%s\" is already installed in %s; "
                         "remove it first or use --force to replace it"),
                       data->source, name, data->target_parent);
          return NULL;
        }

      /* The staging name is unique, so its ".old" sibling is free. */
      aside = g_strconcat (data->staging, ".old", NULL);
      if (g_rename (target, aside) != 0)
        {
          int saved_errno = errno;

          g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                       _("%s: cannot move the installed %s aside (%s); "
                         "check the permissions of %s"),
                       data->source, target, g_strerror (saved_errno), data->target_parent);
          return NULL;
        }

      if (g_rename (data->staging, target) != 0)
        {
          int saved_errno = errno;

          if (g_rename (aside, target) != 0)
            g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                         _("%s: cannot move the new copy to %s (%s), nor the old one back; "
                           "it is at %s"),
                         data->source, target, g_strerror (saved_errno), aside);
          else
            g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                         _("%s: cannot move the new copy to %s (%s); the old one was kept, "
                           "check the permissions of %s"),
                         data->source, target, g_strerror (saved_errno), data->target_parent);
          return NULL;
        }

      _zot_installer_remove_tree_quietly (aside);
    }
  else if (errno != ENOENT)
    {
      int saved_errno = errno;

      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                   _("%s: cannot look at %s (%s); check the permissions of %s"),
                   data->source, target, g_strerror (saved_errno), data->target_parent);
      return NULL;
    }
  else if (g_rename (data->staging, target) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_COPY,
                   _("%s: cannot move the new copy to %s (%s); check the permissions of %s"),
                   data->source, target, g_strerror (saved_errno), data->target_parent);
      return NULL;
    }

  /* Installed: the staging directory is no longer ours to delete. */
  g_clear_pointer (&data->staging, g_free);

  return zot_manifest_new_for_directory (target, error);
}

static void
install_return (GTask       *task,
                InstallData *data,
                ZotManifest *manifest,
                GError      *error)
{
  if (manifest == NULL)
    {
      g_assert (error != NULL);

      /* Whatever failed, no half-installed tree stays behind. */
      if (data->staging != NULL)
        _zot_installer_remove_tree_quietly (data->staging);
      g_clear_pointer (&data->staging, g_free);

      g_task_return_error (task, error);
      return;
    }

  g_task_return_pointer (task, manifest, g_object_unref);
}

static void
install_directory_thread (GTask        *task,
                          gpointer      source_object,
                          gpointer      task_data,
                          GCancellable *cancellable)
{
  InstallData *data = task_data;
  ZotManifest *manifest = NULL;
  GError *error = NULL;

  if (_zot_installer_copy_directory (data, cancellable, &error))
    manifest = install_place (data, data->source_dir, cancellable, &error);

  install_return (task, data, manifest, error);
}

static void
install_clone_thread (GTask        *task,
                      gpointer      source_object,
                      gpointer      task_data,
                      GCancellable *cancellable)
{
  InstallData *data = task_data;
  ZotManifest *manifest = NULL;
  GError *error = NULL;

  if (data->clone_error != NULL)
    {
      error = g_steal_pointer (&data->clone_error);
    }
  else
    {
      g_autofree char *git_dir = g_build_filename (data->staging, ".git", NULL);
      GStatBuf st;

      /* git made .git honouring the umask; the checkout's top should match
       * it rather than keep the staging directory's private 0700. */
      if (g_stat (git_dir, &st) == 0)
        g_chmod (data->staging, st.st_mode & 07777);

      manifest = install_place (data, data->source, cancellable, &error);
    }

  install_return (task, data, manifest, error);
}

static void
install_cloned_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InstallData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;

  output = _zot_installer_git_run_finish (result, &error);
  if (output == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          data->clone_error = g_steal_pointer (&error);
        }
      else if (error->domain == G_SPAWN_ERROR)
        {
          data->clone_error =
            g_error_new (ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_GIT,
                         _("%s: cannot run git (%s); install git to install from a URL"),
                         data->source, error->message);
        }
      else
        {
          data->clone_error =
            g_error_new (ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_GIT,
                         _("%s: git clone failed (%s); check the URL and that you can reach it"),
                         data->source, error->message);
        }
    }

  /* Validating, and deleting a failed clone, take disk time: off the loop. */
  g_task_run_in_thread (task, install_clone_thread);
}

static void
install_start (const char          *source,
               const char          *target_parent,
               gboolean             force,
               gboolean             build,
               ZotInstallConsentFunc consent,
               gpointer             consent_data,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  InstallData *data;

  g_return_if_fail (source != NULL);
  g_return_if_fail (target_parent != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_installer_install_async);
  /* Once renamed into place the extension is installed; report that. */
  g_task_set_check_cancellable (task, FALSE);

  data = g_new0 (InstallData, 1);
  data->source = g_strdup (source);
  data->target_parent = g_canonicalize_filename (target_parent, NULL);
  data->force = !!force;
  data->build = !!build;
  data->consent = consent;
  data->consent_data = consent_data;
  g_task_set_task_data (task, data, (GDestroyNotify) install_data_free);

  if (!zot_installer_source_is_url (source))
    {
      data->source_dir = g_canonicalize_filename (source, NULL);
      g_task_run_in_thread (task, install_directory_thread);
      return;
    }

  /* Two small metadata calls on the caller's thread; git does the rest
   * asynchronously, and validation runs in a worker thread. */
  if (!_zot_installer_prepare_target (data, &error) ||
      !_zot_installer_prepare_staging (data, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  {
    const char *argv[] = {
      "git", "clone", "--depth", "1", "--quiet", "--", source, data->staging, NULL
    };

    _zot_installer_git_run_async (argv, cancellable, install_cloned_cb, g_steal_pointer (&task));
  }
}

/**
 * zot_installer_install_async:
 * @source: an extension directory, or a git URL (see zot_installer_source_is_url())
 * @target_parent: the directory to install into, such as $ZOT_HOME/extensions;
 *   created when missing
 * @force: replace an installed extension of the same name
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Copies (or clones, keeping `.git`) @source into a staging directory inside
 * @target_parent, validates its extension.json and renames it to
 * @target_parent/<name>, with <name> from the manifest. On any failure the
 * staging directory is deleted and an existing install is left as it was.
 */
void
zot_installer_install_async (const char          *source,
                             const char          *target_parent,
                             gboolean             force,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  install_start (source, target_parent, force, FALSE, NULL, NULL, cancellable, callback, user_data);
}

/**
 * zot_installer_install_build_async:
 *
 * As zot_installer_install_async(), and the manifest's `build` runs in the
 * staged copy before it is moved into place (zot-installer-build.c): when
 * it fails nothing is installed or replaced. Finish with
 * zot_installer_install_finish().
 */
void
zot_installer_install_build_async (const char          *source,
                                   const char          *target_parent,
                                   gboolean             force,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  install_start (source, target_parent, force, TRUE, NULL, NULL, cancellable, callback, user_data);
}

/**
 * zot_installer_install_consent_async:
 * @consent: (nullable): asked before the staged copy builds or replaces
 *   anything; the user's yes or no to the rights its manifest asks for
 *
 * As zot_installer_install_async(), or its build variant when @build.
 * @consent_data must outlive the install. Finish with
 * zot_installer_install_finish().
 */
void
zot_installer_install_consent_async (const char            *source,
                                     const char            *target_parent,
                                     gboolean               force,
                                     gboolean               build,
                                     ZotInstallConsentFunc  consent,
                                     gpointer               consent_data,
                                     GCancellable          *cancellable,
                                     GAsyncReadyCallback    callback,
                                     gpointer               user_data)
{
  install_start (source, target_parent, force, build, consent, consent_data, cancellable, callback,
                 user_data);
}

/**
 * zot_installer_install_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the installed extension's manifest, read from
 *   its final directory, or %NULL with @error set
 */
ZotManifest *
zot_installer_install_finish (GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == zot_installer_install_async,
                        NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Enable ------------------------------------------------------------------ */

/**
 * zot_installer_set_enabled:
 * @extension_dir: the extension's directory
 * @enabled: the new value of the manifest's "enabled" member
 * @error: return location for a #GError
 *
 * Rewrites extension.json with "enabled" set, keeping every other member,
 * atomically. A manifest that does not validate is left alone and its
 * ZOT_MANIFEST_ERROR returned.
 *
 * Returns: %TRUE on success
 */
gboolean
zot_installer_set_enabled (const char  *extension_dir,
                           gboolean     enabled,
                           GError     **error)
{
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *original = NULL;
  const char *path;
  JsonNode *root;

  g_return_val_if_fail (extension_dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Validation first: the user gets the manifest's own error and its fix. */
  manifest = zot_manifest_new_for_directory (extension_dir, error);
  if (manifest == NULL)
    return FALSE;
  path = zot_manifest_get_path (manifest);

  parser = json_parser_new ();
  if (!zot_file_get_contents_bounded (path, ZOT_MANIFEST_MAX_BYTES, &original, NULL, &local_error) ||
      !zot_json_parser_load (parser, original, -1, &local_error))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_PARSE,
                   _("%s: cannot be read (%s); fix the file and try again"),
                   path, local_error->message);
      return FALSE;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID,
                   _("%s: the top level must be a JSON object"), path);
      return FALSE;
    }

  /* json-glib keeps the members' order, and a replaced member its place. */
  json_object_set_boolean_member (json_node_get_object (root), "enabled", !!enabled);

  generator = json_generator_new ();
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, root);
  json = json_generator_to_data (generator, NULL);
  contents = g_strconcat (json, "\n", NULL);

  if (!g_file_set_contents (path, contents, -1, &local_error))
    {
      g_set_error (error, G_FILE_ERROR, local_error->code,
                   _("%s: cannot be written (%s); check its permissions"),
                   path, local_error->message);
      return FALSE;
    }

  return TRUE;
}


/**
 * zot_installer_source_is_url:
 * @source: what the user asked to install
 *
 * A URL is anything with a scheme followed by "://" (https, ssh, git,
 * file, …) or git's scp-like `user@host:path`; anything else is a path.
 *
 * Returns: %TRUE when @source is to be cloned with git
 */
gboolean
zot_installer_source_is_url (const char *source)
{
  const char *colon;
  const char *at;
  const char *slash;

  g_return_val_if_fail (source != NULL, FALSE);

  if (g_ascii_isalpha (source[0]))
    {
      const char *p = source + 1;

      /* RFC 3986 scheme characters */
      while (g_ascii_isalnum (*p) || *p == '+' || *p == '-' || *p == '.')
        p++;
      if (g_str_has_prefix (p, "://"))
        return TRUE;
    }

  /* As git reads it: a colon before any slash, here with a user part. */
  colon = strchr (source, ':');
  at = strchr (source, '@');
  slash = strchr (source, '/');
  if (colon == NULL || at == NULL || at == source || at > colon || at + 1 == colon)
    return FALSE;

  return slash == NULL || slash > colon;
}
