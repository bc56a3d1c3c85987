/* zot-install-dialog.c — what happens when a folder or an archive is
 * dropped on the window.
 *
 * An archive is unpacked by the core's libarchive reader (which refuses
 * entries that would reach outside) into a fresh temporary directory, off
 * the main loop. The manifest is read and shown;
 * the user picks this project or all projects, and the core installer
 * copies the folder into place off the main loop. The temporary directory
 * goes away on every path, success, failure and cancel alike.
 */
#define G_LOG_DOMAIN "zot-install-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-archive.h"
#include "zot-error.h"
#include "zot-install-dialog.h"
#include "zot-install-dialog-private.h"
#include "zot-grants.h"
#include "zot-installer.h"
#include "zot-paths.h"

#define TEMP_TEMPLATE "zot-install-XXXXXX"

typedef struct
{
  GtkWindow   *parent;
  GFile       *source;
  ZotHost     *host;
  char        *answer;         /* the scripted answer, or NULL to ask the user */
  char        *display_name;   /* the source's own name, for messages */
  char        *temp_dir;       /* ours to delete while set */
  char        *extension_dir;
  ZotManifest *manifest;
  char        *target_parent;
  gboolean     force;
  char        *installed_name; /* the result, held while the temp dir goes */
  GError      *error;          /* likewise */
} InstallJob;

static char *last_temp_dir;

static void ask_scope (GTask *task);

static void
install_job_free (InstallJob *job)
{
  g_clear_object (&job->parent);
  g_clear_object (&job->source);
  g_clear_object (&job->host);
  g_free (job->answer);
  g_free (job->display_name);
  g_free (job->temp_dir);
  g_free (job->extension_dir);
  g_clear_object (&job->manifest);
  g_free (job->target_parent);
  g_free (job->installed_name);
  g_clear_error (&job->error);
  g_free (job);
}

static void
remove_temp_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;

  if (!zot_remove_tree (task_data, &error))
    g_debug ("Leaving %s behind: %s", (const char *) task_data, error->message);
  g_task_return_boolean (task, TRUE);
}

/* Messages name the temporary copy; the user knows the dropped file. */
static void
job_rename_paths (InstallJob *job,
                  GError     *error)
{
  g_autoptr(GString) message = NULL;

  if (error == NULL || job->temp_dir == NULL)
    return;

  message = g_string_new (error->message);
  g_string_replace (message, job->temp_dir, job->display_name, 0);
  g_free (error->message);
  error->message = g_string_free (g_steal_pointer (&message), FALSE);
}

static void
show_error_dialog (InstallJob   *job,
                   const GError *error)
{
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (job->parent, NULL, error->message);
  if (job->manifest != NULL)
    /* Translators: dialog heading; %s is the name of the extension, or of the file or folder it
     * was to be installed from */
    adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Cannot Install %s"),
                                       zot_manifest_get_name (job->manifest));
  else
    /* Translators: dialog heading; %s is the name of the file or folder the extension was to be
     * installed from */
    adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Cannot Install %s"),
                                       job->display_name);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
job_returned_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InstallJob *job = g_task_get_task_data (task);

  g_task_propagate_boolean (G_TASK (result), NULL);
  g_clear_pointer (&job->temp_dir, g_free);

  if (job->error != NULL)
    g_task_return_error (task, g_steal_pointer (&job->error));
  else
    g_task_return_pointer (task, g_steal_pointer (&job->installed_name), g_free);
}

/* Every path ends here: the temporary directory first, then the answer. */
static void
job_return (GTask  *task,
            char   *installed_name,
            GError *error)
{
  InstallJob *job = g_task_get_task_data (task);
  g_autoptr(GTask) cleanup = NULL;

  g_assert ((installed_name == NULL) != (error == NULL));

  job_rename_paths (job, error);

  /* Asked interactively, a failure is the user's to read; a cancel is not. */
  if (error != NULL && job->answer == NULL &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error_dialog (job, error);

  job->installed_name = installed_name;
  job->error = error;

  cleanup = g_task_new (NULL, NULL, job_returned_cb, g_object_ref (task));
  g_task_set_source_tag (cleanup, remove_temp_thread);
  if (job->temp_dir == NULL)
    {
      g_task_return_boolean (cleanup, TRUE);
      return;
    }

  g_task_set_task_data (cleanup, g_strdup (job->temp_dir), g_free);
  g_task_run_in_thread (cleanup, remove_temp_thread);
}

static GtkWidget *
find_toast_overlay (GtkWidget *widget)
{
  if (ADW_IS_TOAST_OVERLAY (widget))
    return widget;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_toast_overlay (child);

      if (found != NULL)
        return found;
    }

  return NULL;
}

static void
show_toast (InstallJob *job,
            const char *text)
{
  g_autofree char *markup = g_markup_escape_text (text, -1);
  GtkWidget *overlay;

  if (job->parent == NULL)
    return;

  if (ADW_IS_PREFERENCES_WINDOW (job->parent))
    {
      adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (job->parent), adw_toast_new (markup));
      return;
    }

  overlay = find_toast_overlay (GTK_WIDGET (job->parent));
  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (markup));
}

/* Presents @dialog, or gives it @answer at once when the job is scripted;
 * either way @handler runs on its ::response, with @task. */
static void
ask (GTask       *task,
     GtkWidget   *dialog,
     const char  *answer,
     GCallback    handler)
{
  InstallJob *job = g_task_get_task_data (task);

  g_signal_connect_data (dialog, "response", handler, g_object_ref (task),
                         (GClosureNotify) (void (*) (void)) g_object_unref, 0);

  if (job->answer == NULL)
    {
      gtk_window_present (GTK_WINDOW (dialog));
      return;
    }

  /* The same handler as a click, with the answer given. */
  g_object_ref_sink (dialog);
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), answer);
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_object_unref (dialog);
}

/* Reload */

static void
reloaded_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InstallJob *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *name = zot_manifest_get_name (job->manifest);

  /* Installed is installed; a reload that fails shows in the list. */
  if (!zot_extension_manager_reload_finish (ZOT_EXTENSION_MANAGER (object), result, &error))
    g_debug ("Reloading after installing %s: %s", name, error->message);

  /* Translators: a toast; %s is the extension's name */
  text = g_strdup_printf (_("Installed %s"), name);
  show_toast (job, text);

  job_return (task, g_strdup (name), NULL);
}

/* Install */

static void install (GTask *task);

static void
on_replace_response_cb (AdwMessageDialog *dialog,
                        const char       *response,
                        GTask            *task)
{
  InstallJob *job = g_task_get_task_data (task);

  g_object_ref (task);
  g_signal_handlers_disconnect_by_func (dialog, on_replace_response_cb, task);

  if (g_strcmp0 (response, "replace") == 0)
    {
      job->force = TRUE;
      install (task);
    }
  else
    {
      job_return (task, NULL, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                   _("Nothing was installed")));
    }

  g_object_unref (task);
}

static void
ask_replace (GTask *task)
{
  InstallJob *job = g_task_get_task_data (task);
  /* A clone's manifest is read only once it is installed. */
  const char *name = job->manifest != NULL ? zot_manifest_get_name (job->manifest)
                                           : job->display_name;
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (job->parent, NULL, NULL);
  /* Translators: dialog heading; %s is the extension's name */
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Replace %s?"), name);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  /* Translators: the extension's name, then the folder of
                                   * extensions it is installed in */
                                  _("An extension named %s is already installed in %s. "
                                    "Replace it with this copy?"),
                                  name, job->target_parent);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "replace", _("_Replace"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "replace",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  /* A scripted run replaces: the scope was its only question. */
  ask (task, dialog, "replace", G_CALLBACK (on_replace_response_cb));
}

/* Installing from the window is the user's yes to what it asks for; one
 * installed for this project is trusted here, so that the reload starts it. */
static void
record_grant (InstallJob  *job,
              ZotManifest *manifest)
{
  const char *cwd = zot_agent_get_cwd (zot_host_get_agent (job->host));
  g_autofree char *project_dir = zot_paths_get_project_extensions_dir (cwd);
  g_autofree char *project = NULL;
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (job->target_parent, project_dir) == 0)
    project = zot_grants_project_of (zot_manifest_get_directory (manifest));
  if (!zot_grants_accept (manifest, project, &error))
    g_warning ("%s", error->message);
}

static void
installed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InstallJob *job = g_task_get_task_data (task);
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;

  manifest = zot_installer_install_finish (result, &error);
  if (manifest == NULL)
    {
      if (!job->force && g_error_matches (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_EXISTS))
        ask_replace (task);
      else
        job_return (task, NULL, g_steal_pointer (&error));
      return;
    }

  g_set_object (&job->manifest, manifest);
  record_grant (job, manifest);
  zot_extension_manager_reload_async (zot_host_get_manager (job->host), NULL,
                                      reloaded_cb, g_steal_pointer (&task));
}

static void
install (GTask *task)
{
  InstallJob *job = g_task_get_task_data (task);

  zot_installer_install_async (job->extension_dir, job->target_parent, job->force, NULL,
                               installed_cb, g_object_ref (task));
}

static void
on_scope_response_cb (AdwMessageDialog *dialog,
                      const char       *response,
                      GTask            *task)
{
  InstallJob *job = g_task_get_task_data (task);

  g_object_ref (task);
  g_signal_handlers_disconnect_by_func (dialog, on_scope_response_cb, task);

  if (g_strcmp0 (response, "project") == 0)
    {
      job->target_parent =
        zot_paths_get_project_extensions_dir (zot_agent_get_cwd (zot_host_get_agent (job->host)));
      install (task);
    }
  else if (g_strcmp0 (response, "user") == 0)
    {
      job->target_parent = zot_paths_get_extensions_dir ();
      install (task);
    }
  else
    {
      job_return (task, NULL, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                   _("Nothing was installed")));
    }

  g_object_unref (task);
}

static char *
describe_exec (ZotManifest *manifest)
{
  const char * const *args = zot_manifest_get_args (manifest);
  g_autoptr(GString) text = g_string_new (zot_manifest_get_exec (manifest));

  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    {
      g_string_append_c (text, ' ');
      if (*args[i] == '\0' || strpbrk (args[i], " \t\n'\"\\$`") != NULL)
        {
          g_autofree char *quoted = g_shell_quote (args[i]);

          g_string_append (text, quoted);
        }
      else
        {
          g_string_append (text, args[i]);
        }
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static GtkWidget *
scope_dialog_new (InstallJob *job,
                  const char *body)
{
  GtkWidget *dialog = adw_message_dialog_new (job->parent, NULL, body);

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "project", _("For _This Project"),
                                    "user", _("For _All Projects"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "user",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "user");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  return dialog;
}

/* A git URL: its manifest is checked once cloned, before it is placed. */
static void
ask_scope_for_url (GTask *task)
{
  InstallJob *job = g_task_get_task_data (task);
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  /* Translators: %s is the git URL the extension is cloned from; "extension.json" is a file name
   * and "zot update" a command: keep them as they are */
  body = g_strdup_printf (_("From: %s\n\nThe repository is cloned and its extension.json "
                            "checked before anything is installed; zot update keeps it "
                            "up to date."),
                          job->display_name);
  dialog = scope_dialog_new (job, body);
  adw_message_dialog_set_heading (ADW_MESSAGE_DIALOG (dialog), _("Install from Git?"));
  ask (task, dialog, job->answer, G_CALLBACK (on_scope_response_cb));
}

/* What the extension asks for, in the words `zot ext install` prints, so
 * the user reads it before pressing Install. */
static GtkWidget *
permissions_group_new (ZotManifest *manifest)
{
  const ZotPermissions *asked = zot_manifest_get_permissions (manifest);
  g_autofree char *box = zot_permissions_describe_words (asked);
  g_auto(GStrv) details = zot_permissions_describe_details (asked);
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *row = adw_action_row_new ();

  /* Translators: the install dialog's list of what the extension asks for */
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Asks for"));
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), box);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  if (asked == NULL)
    {
      /* Unconfined: one row, its meaning under it, in the warning colour. */
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), details[0]);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("dialog-warning-symbolic"));
      gtk_widget_add_css_class (row, "warning");
      return group;
    }
  for (guint i = 0; details[i] != NULL; i++)
    {
      row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), details[i]);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }
  return group;
}

static void
ask_scope (GTask *task)
{
  InstallJob *job = g_task_get_task_data (task);
  ZotManifest *manifest = job->manifest;
  g_autoptr(GString) body = g_string_new (NULL);
  g_autofree char *exec = describe_exec (manifest);
  g_autofree char *from = g_file_get_parse_name (job->source);
  const char *version = zot_manifest_get_version (manifest);
  const char *language = zot_manifest_get_language (manifest);
  const char *description = zot_manifest_get_description (manifest);
  GtkWidget *dialog;

  if (version != NULL)
    /* Translators: a line of the install dialog: the extension's version */
    g_string_append_printf (body, _("Version: %s\n"), version);
  /* Translators: a line of the install dialog: the program the extension runs */
  g_string_append_printf (body, _("Runs: %s\n"), exec);
  if (language != NULL)
    /* Translators: a line of the install dialog: the programming language the extension is
     * written in */
    g_string_append_printf (body, _("Language: %s\n"), language);
  /* Translators: a line of the install dialog: the folder, archive or git URL the extension
   * comes from */
  g_string_append_printf (body, _("From: %s"), from);
  if (description != NULL && *description != '\0')
    g_string_append_printf (body, "\n\n%s", description);

  dialog = scope_dialog_new (job, body->str);
  /* Translators: dialog heading; %s is the extension's name */
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Install %s?"),
                                     zot_manifest_get_name (manifest));
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), permissions_group_new (manifest));

  ask (task, dialog, job->answer, G_CALLBACK (on_scope_response_cb));
}

/* The manifest */

static void
read_manifest (GTask *task)
{
  InstallJob *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  job->manifest = zot_manifest_new_for_directory (job->extension_dir, &error);
  if (job->manifest == NULL)
    {
      job_return (task, NULL, g_steal_pointer (&error));
      return;
    }

  ask_scope (task);
}

typedef struct
{
  char *archive;
  char *display_name;
  char *temp_dir;
} Unpack;

static void
unpack_free (Unpack *unpack)
{
  g_free (unpack->archive);
  g_free (unpack->display_name);
  g_free (unpack->temp_dir);
  g_free (unpack);
}

static void
unpack_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Unpack *unpack = task_data;
  GError *error = NULL;
  char *extension_dir = NULL;

  if (zot_archive_extract (unpack->archive, unpack->display_name, unpack->temp_dir,
                           cancellable, &error))
    extension_dir = zot_archive_find_extension_dir (unpack->temp_dir, unpack->display_name,
                                                    &error);

  if (extension_dir != NULL)
    g_task_return_pointer (task, extension_dir, g_free);
  else
    g_task_return_error (task, error);
}

static void
unpacked_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InstallJob *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  job->extension_dir = g_task_propagate_pointer (G_TASK (result), &error);
  if (job->extension_dir == NULL)
    {
      job_return (task, NULL, g_steal_pointer (&error));
      return;
    }

  read_manifest (task);
}

/* The kind of archive is told from its content, by the reader. */
static void
extract (GTask *task)
{
  InstallJob *job = g_task_get_task_data (task);
  g_autoptr(GTask) unpack_task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *archive = g_file_get_path (job->source);
  Unpack *unpack;

  if (archive == NULL)
    {
      job_return (task, NULL,
                  g_error_new (ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE,
                               /* Translators: %s is the URI of the dropped or chosen file */
                               _("%s is not a local file; copy it to this computer first"),
                               job->display_name));
      return;
    }

  job->temp_dir = g_dir_make_tmp (TEMP_TEMPLATE, &error);
  if (job->temp_dir == NULL)
    {
      job_return (task, NULL, g_steal_pointer (&error));
      return;
    }

  g_free (last_temp_dir);
  last_temp_dir = g_strdup (job->temp_dir);

  unpack = g_new0 (Unpack, 1);
  unpack->archive = g_steal_pointer (&archive);
  unpack->display_name = g_strdup (job->display_name);
  unpack->temp_dir = g_strdup (job->temp_dir);

  unpack_task = g_task_new (NULL, NULL, unpacked_cb, g_object_ref (task));
  g_task_set_source_tag (unpack_task, extract);
  g_task_set_task_data (unpack_task, unpack, (GDestroyNotify) unpack_free);
  g_task_run_in_thread (unpack_task, unpack_thread);
}

static void
source_info_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InstallJob *job = g_task_get_task_data (task);
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  info = g_file_query_info_finish (G_FILE (object), result, &error);
  if (info == NULL)
    {
      job_return (task, NULL, g_steal_pointer (&error));
      return;
    }

  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    {
      job->extension_dir = g_file_get_path (job->source);
      if (job->extension_dir == NULL)
        {
          job_return (task, NULL,
                      g_error_new (ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE,
                                   /* Translators: %s is the URI of the dropped or chosen folder */
                                   _("%s is not a local folder; copy it to this computer first"),
                                   job->display_name));
          return;
        }

      read_manifest (task);
      return;
    }

  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      job_return (task, NULL,
                  g_error_new (ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_SOURCE,
                               /* Translators: %s is the name of the dropped or chosen file */
                               _("%s is neither a folder nor an archive of one"),
                               job->display_name));
      return;
    }

  extract (task);
}

/* The task of one run, finished by _zot_install_dialog_run_finish(). */
static GTask *
job_task_new (GtkWindow           *parent,
              ZotHost             *host,
              const char          *scope,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  InstallJob *job = g_new0 (InstallJob, 1);

  g_task_set_source_tag (task, _zot_install_dialog_run);
  job->parent = parent != NULL ? g_object_ref (parent) : NULL;
  job->host = g_object_ref (host);
  job->answer = g_strdup (scope);
  g_task_set_task_data (task, job, (GDestroyNotify) install_job_free);
  return task;
}

/**
 * _zot_install_dialog_run:
 * @parent: (nullable): the window the dialogs belong to
 * @source: a folder, or an archive of one
 * @host: the host to install for and reload
 * @scope: (nullable): "project", "user" or "cancel" to answer the question
 *   without showing it (and "Replace?" with yes); %NULL to ask the user
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Reads @source's manifest, asks where to install it, installs it and
 * reloads the extensions.
 */
void
_zot_install_dialog_run (GtkWindow           *parent,
                         GFile               *source,
                         ZotHost             *host,
                         const char          *scope,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  InstallJob *job;

  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (G_IS_FILE (source));
  g_return_if_fail (ZOT_IS_HOST (host));

  task = job_task_new (parent, host, scope, callback, user_data);
  job = g_task_get_task_data (task);
  job->source = g_object_ref (source);
  job->display_name = g_file_get_basename (source);
  if (job->display_name == NULL)
    job->display_name = g_file_get_parse_name (source);

  g_file_query_info_async (source,
                           G_FILE_ATTRIBUTE_STANDARD_TYPE,
                           G_FILE_QUERY_INFO_NONE, G_PRIORITY_DEFAULT, NULL,
                           source_info_cb, g_steal_pointer (&task));
}

/**
 * _zot_install_dialog_run_finish:
 * @result: the result passed to the callback
 * @installed_name: (out) (optional) (transfer full): the installed extension's name
 * @error: return location for a #GError; %G_IO_ERROR_CANCELLED when the
 *   user said no
 *
 * Returns: %TRUE when the extension was installed
 */
gboolean
_zot_install_dialog_run_finish (GAsyncResult  *result,
                                char         **installed_name,
                                GError       **error)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _zot_install_dialog_run, FALSE);

  name = g_task_propagate_pointer (G_TASK (result), error);
  if (name == NULL)
    return FALSE;

  if (installed_name != NULL)
    *installed_name = g_steal_pointer (&name);
  return TRUE;
}

/**
 * _zot_install_dialog_get_last_temp_dir:
 *
 * Returns: (nullable): the directory the last archive was unpacked into;
 *   gone once its run has finished
 */
const char *
_zot_install_dialog_get_last_temp_dir (void)
{
  return last_temp_dir;
}

static void
presented_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* The user has seen the outcome: a toast, or an error dialog. */
  if (!_zot_install_dialog_run_finish (result, NULL, &error))
    g_debug ("Not installed: %s", error->message);
}

/**
 * zot_install_dialog_present:
 * @parent: (nullable): the window the dialogs belong to
 * @source: a dropped folder, or an archive of one (tar, compressed or not, zip or 7z)
 * @host: the host to install for
 *
 * Shows the extension's manifest and asks whether to install it for this
 * project or for all projects; then installs it, reloads the extensions and
 * says so in a toast. A broken folder or archive gets an error dialog and
 * leaves nothing behind.
 */
void
zot_install_dialog_present (GtkWindow *parent,
                            GFile     *source,
                            ZotHost   *host)
{
  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (G_IS_FILE (source));
  g_return_if_fail (ZOT_IS_HOST (host));

  _zot_install_dialog_run (parent, source, host, NULL, presented_cb, NULL);
}

/**
 * _zot_install_dialog_run_url:
 * @parent: (nullable): the window the dialogs belong to
 * @url: a git URL (see zot_installer_source_is_url())
 * @host: the host to install for and reload
 * @scope: (nullable): as for _zot_install_dialog_run()
 * @callback: called when done; finish with _zot_install_dialog_run_finish()
 * @user_data: data for @callback
 *
 * Asks where to install the extension at @url, clones and installs it
 * (keeping .git, as `zot ext install` does) and reloads the extensions.
 */
void
_zot_install_dialog_run_url (GtkWindow           *parent,
                             const char          *url,
                             ZotHost             *host,
                             const char          *scope,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  InstallJob *job;

  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (url != NULL && zot_installer_source_is_url (url));
  g_return_if_fail (ZOT_IS_HOST (host));

  task = job_task_new (parent, host, scope, callback, user_data);
  job = g_task_get_task_data (task);
  job->display_name = g_strdup (url);
  /* The installer tells a URL from a folder by its form. */
  job->extension_dir = g_strdup (url);

  ask_scope_for_url (task);
}

/**
 * zot_install_dialog_present_url:
 * @parent: (nullable): the window the dialogs belong to
 * @url: a git URL
 * @host: the host to install for
 *
 * Like zot_install_dialog_present(), for a repository to clone.
 */
void
zot_install_dialog_present_url (GtkWindow  *parent,
                                const char *url,
                                ZotHost    *host)
{
  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (url != NULL);
  g_return_if_fail (ZOT_IS_HOST (host));

  _zot_install_dialog_run_url (parent, url, host, NULL, presented_cb, NULL);
}

/* Install Extension… */

typedef struct
{
  GtkWindow *parent;
  ZotHost   *host;
  GtkEntry  *url_entry;
} Chooser;

static void
chooser_free (Chooser *chooser)
{
  g_clear_object (&chooser->parent);
  g_clear_object (&chooser->host);
  g_free (chooser);
}

static void
on_file_chooser_response_cb (GtkNativeDialog *native,
                             int              response,
                             Chooser         *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      if (file != NULL)
        zot_install_dialog_present (chooser->parent, file, chooser->host);
    }

  g_object_unref (native);
}

static void
choose_file (Chooser              *chooser,
             GtkFileChooserAction  action)
{
  static const char * const archive_types[] = {
    "application/zip", "application/x-tar", "application/x-compressed-tar",
    "application/x-bzip-compressed-tar", "application/x-xz-compressed-tar",
    "application/x-zstd-compressed-tar", "application/x-7z-compressed", "application/gzip",
  };
  GtkFileChooserNative *native;
  Chooser *pending;

  native = gtk_file_chooser_native_new (action == GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                        ? _("Choose an Extension Folder")
                                        : _("Choose an Extension Archive"),
                                        chooser->parent, action, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);

  if (action == GTK_FILE_CHOOSER_ACTION_OPEN)
    {
      /* Only a convenience: the content decides what a file is. */
      g_autoptr(GtkFileFilter) archives = gtk_file_filter_new ();
      g_autoptr(GtkFileFilter) everything = gtk_file_filter_new ();

      /* Translators: the name of a file filter in the file chooser: tar, zip and 7z archives */
      gtk_file_filter_set_name (archives, _("Archives"));
      for (guint i = 0; i < G_N_ELEMENTS (archive_types); i++)
        gtk_file_filter_add_mime_type (archives, archive_types[i]);
      gtk_file_filter_set_name (everything, _("All Files"));
      gtk_file_filter_add_pattern (everything, "*");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), archives);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), everything);
    }

  /* The message dialog, and its chooser, are gone by the file's answer. */
  pending = g_new0 (Chooser, 1);
  pending->parent = g_object_ref (chooser->parent);
  pending->host = g_object_ref (chooser->host);
  g_signal_connect_data (native, "response", G_CALLBACK (on_file_chooser_response_cb), pending,
                         (GClosureNotify) (void (*) (void)) chooser_free, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
on_url_entry_changed_cb (GtkEditable      *entry,
                         AdwMessageDialog *dialog)
{
  adw_message_dialog_set_response_enabled (dialog, "clone",
                                           zot_installer_source_is_url (gtk_editable_get_text (entry)));
}

static void
on_url_entry_activate_cb (GtkEntry         *entry,
                          AdwMessageDialog *dialog)
{
  if (adw_message_dialog_get_response_enabled (dialog, "clone"))
    adw_message_dialog_response (dialog, "clone");
}

static void
on_choose_response_cb (AdwMessageDialog *dialog,
                       const char       *response,
                       Chooser          *chooser)
{
  if (g_str_equal (response, "folder"))
    choose_file (chooser, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER);
  else if (g_str_equal (response, "archive"))
    choose_file (chooser, GTK_FILE_CHOOSER_ACTION_OPEN);
  else if (g_str_equal (response, "clone"))
    zot_install_dialog_present_url (chooser->parent,
                                    gtk_editable_get_text (GTK_EDITABLE (chooser->url_entry)),
                                    chooser->host);
}

/**
 * zot_install_dialog_choose:
 * @parent: the window
 * @host: the host to install for
 *
 * What the main menu's "Install Extension…" opens: choose a folder or an
 * archive with the file chooser, or give a git URL; then the same flow as
 * a drop on the window.
 *
 * Returns: (transfer none): the dialog, presented
 */
GtkWidget *
zot_install_dialog_choose (GtkWindow *parent,
                           ZotHost   *host)
{
  GtkWidget *dialog;
  GtkWidget *entry;
  Chooser *chooser;

  g_return_val_if_fail (GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (ZOT_IS_HOST (host), NULL);

  dialog = adw_message_dialog_new (parent, _("Install Extension"),
                                   _("Choose an extension's folder or an archive of one, "
                                     "or give the URL of a git repository to clone."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "folder", _("Choose _Folder…"),
                                    "archive", _("Choose _Archive…"),
                                    /* Translators: a button of the Install Extension dialog:
                                     * clone the git repository given in the entry */
                                    "clone", _("C_lone"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "clone",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (dialog), "clone", FALSE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Git URL, such as https://host/owner/repo.git"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  /* Translators: the name screen readers give the entry for a
                                   * git repository's URL */
                                  _("Git URL"), -1);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);

  chooser = g_new0 (Chooser, 1);
  chooser->parent = g_object_ref (parent);
  chooser->host = g_object_ref (host);
  chooser->url_entry = GTK_ENTRY (entry);
  /* An AdwMessageDialog has no slot of its own for what its answer acts
   * on, and the URL entry's handlers and the response handler all need
   * the same state: it rides on the dialog and dies with it. */
  g_object_set_data_full (G_OBJECT (dialog), "zot-chooser", chooser, (GDestroyNotify) chooser_free);

  g_signal_connect_object (entry, "changed", G_CALLBACK (on_url_entry_changed_cb), dialog, 0);
  g_signal_connect_object (entry, "activate", G_CALLBACK (on_url_entry_activate_cb), dialog, 0);
  g_signal_connect (dialog, "response", G_CALLBACK (on_choose_response_cb), chooser);

  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}
