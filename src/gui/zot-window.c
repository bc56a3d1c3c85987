/* zot-window.c — the conversation, the editor and the side pane.
 *
 * The window owns one ZotHost. Its widgets are views that connect to the
 * host's signals themselves; the window wires the few things that cross
 * widgets: submitting, toasts, approvals, window commands, drag and drop,
 * and a graceful shutdown on close.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-accessible.h"
#include "zot-install-dialog.h"
#include "zot-keyring.h"
#include "zot-limits.h"
#include "zot-message-actions.h"
#include "zot-provider-table.h"
#include "zot-recent-projects.h"
#include "zot-tooltip.h"
#include "zot-usage-label.h"
#include "zot-window.h"
#include "zot-window-layout-private.h"
#include "zot-window-private.h"

G_DEFINE_FINAL_TYPE (ZotWindow, zot_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_HOST,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static void update_title (ZotWindow *self);

void
zot_window_show_toast (ZotWindow  *self,
                       const char *text)
{
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  g_return_if_fail (ZOT_IS_WINDOW (self));

  /* Toast titles are markup: extension text must not be read as markup. */
  escaped = g_markup_escape_text (text, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 4);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* Submitting */

/* The editor offers Stop while the agent runs, whoever started the run
 * (the editor, an extension's prompt, a second instance), and while a
 * line from the editor is still being handled: an extension's command
 * may take a while before any run starts, or start none. */
static void
update_busy (ZotWindow *self)
{
  if (self->closed)
    return;

  g_object_set (self->prompt_editor, "busy", self->agent_running || self->n_submitting > 0, NULL);
}

static void
on_agent_running_notify (ZotAgent   *agent,
                         GParamSpec *pspec,
                         ZotWindow  *self)
{
  g_object_get (agent, "running", &self->agent_running, NULL);
  update_busy (self);
  _zot_window_update_resume_bar (self);
}

/* A continuous conversation stopped in the middle of a step shows so, and
 * runs nothing until the user says (or sends a prompt, which finishes the
 * step first). */
void
_zot_window_update_resume_bar (ZotWindow *self)
{
  gboolean pending = self->host != NULL && !self->agent_running &&
                     zot_agent_has_pending_step (zot_host_get_agent (self->host));

  gtk_revealer_set_reveal_child (self->resume_bar, pending);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.resume-step", pending);
}

/* Ends a prompt sent to @host: its error shows in the transcript, unless
 * it was cancelled or the window is closed. */
void
_zot_window_submit_finish (ZotWindow    *self,
                           GObject      *host,
                           GAsyncResult *result)
{
  g_autoptr(GError) error = NULL;

  if (!zot_host_submit_finish (ZOT_HOST (host), result, NULL, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && !self->closed)
    zot_transcript_add_error (self->transcript, error->message);
}

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;

  _zot_window_submit_finish (self, object, result);
  if (!self->closed)
    update_title (self);
}

/* A line from the editor is handled: the run it started, if any, is over. */
static void
prompt_submitted_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  ZotWindow *self = user_data;

  g_assert (self->n_submitting > 0);
  self->n_submitting--;
  update_busy (self);

  submitted_cb (object, result, user_data);
}

/* A command the window sends for the user, such as "/new". */
void
_zot_window_submit_command (ZotWindow  *self,
                            const char *command)
{
  g_return_if_fail (ZOT_IS_WINDOW (self));
  g_return_if_fail (self->host != NULL);

  zot_host_submit_async (self->host, command, NULL, submitted_cb, g_object_ref (self));
}

static void
on_prompt_submit (ZotPromptEditor *editor,
                  const char      *text,
                  ZotWindow       *self)
{
  g_autoptr(JsonArray) images = NULL;

  if (self->host == NULL)
    return;

  /* Attached images go with a message; a command leaves them for the next. */
  if (!zot_host_is_command (self->host, text))
    images = zot_prompt_editor_take_images (editor);
  if (*text == '\0' && images == NULL)
    return;
  /* An edited prompt goes to a new branch of the conversation. */
  if (_zot_message_actions_submit (self, text, images))
    return;
  /* While a turn runs, /new asks as the button does. */
  if (_zot_window_is_new_command (text) && zot_host_is_busy (self->host))
    {
      _zot_window_new_conversation (self, FALSE);
      return;
    }

  self->n_submitting++;
  update_busy (self);
  zot_host_submit_with_images_async (self->host, text, images, self->cancellable,
                                     prompt_submitted_cb, g_object_ref (self));
}

/* An extension's `submit` and `submit_slash` (PROTOCOL.md §5a): in the
 * window, as if the user typed them. The manager has checked them. */
static gboolean
on_extension_submit (ZotExtensionManager *manager,
                     ZotExtension        *extension,
                     const char          *text,
                     ZotWindow           *self)
{
  if (self->host == NULL || self->closed)
    return FALSE;

  zot_host_submit_for_extension_async (self->host, extension, text, self->cancellable,
                                       submitted_cb, g_object_ref (self));
  return TRUE;
}

typedef struct
{
  ZotWindow           *window;
  ZotExtensionManager *manager;
  char                *extension_name;
} ExtensionCommand;

/* The extension's command is over, with the run its prompt started: the
 * manager takes its next `submit` or `submit_slash` again. */
static void
extension_command_done_cb (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  ExtensionCommand *command = user_data;

  zot_extension_manager_submit_done (command->manager, command->extension_name);
  submitted_cb (object, result, command->window);
  g_object_unref (command->manager);
  g_free (command->extension_name);
  g_free (command);
}

static gboolean
on_extension_submit_slash (ZotExtensionManager *manager,
                           ZotExtension        *extension,
                           const char          *command,
                           ZotWindow           *self)
{
  ExtensionCommand *data;

  if (self->host == NULL || self->closed)
    return FALSE;

  data = g_new0 (ExtensionCommand, 1);
  data->window = g_object_ref (self);
  data->manager = g_object_ref (manager);
  data->extension_name = g_strdup (zot_extension_get_name (extension));
  zot_host_submit_async (self->host, command, NULL, extension_command_done_cb, data);
  return TRUE;
}

static void
on_attach_failed (ZotPromptEditor *editor,
                  const char      *message,
                  ZotWindow       *self)
{
  zot_window_show_toast (self, message);
}

static void
on_prompt_cancel (ZotPromptEditor *editor,
                  ZotWindow       *self)
{
  if (self->host != NULL)
    zot_agent_abort (zot_host_get_agent (self->host));
}

/* Host signals the window itself shows */

/* The project's folder name, in the header and for the window manager;
 * the whole path in the tooltip. */
static void
update_project_title (ZotWindow *self)
{
  g_autofree char *name = NULL;
  g_autofree char *display_name = NULL;
  g_autofree char *display_path = NULL;
  g_autofree char *window_name = NULL;

  if (self->options.cwd == NULL)
    return;

  name = g_path_get_basename (self->options.cwd);
  display_name = g_filename_display_name (name);
  display_path = zot_recent_projects_display_path (self->options.cwd);
  /* Translators: the window's title for task switchers: the project's
   * folder name, then the app's */
  window_name = g_strdup_printf (_("%s — Zot"), display_name);
  adw_window_title_set_title (self->window_title, display_name);
  zot_tooltip_set (GTK_WIDGET (self->window_title), display_path);
  gtk_window_set_title (GTK_WINDOW (self), window_name);
}

/* A model from the header's picker: in use now, and at the next start. */
static void
on_model_chosen_cb (ZotWindow  *self,
                    const char *provider,
                    const char *model)
{
  g_autoptr(GError) error = NULL;

  if (self->host == NULL || !zot_host_set_model (self->host, provider, model, &error))
    {
      zot_window_show_toast (self, error != NULL ? error->message : _("Starting…"));
      return;
    }
  g_settings_set_string (self->settings, "provider", provider);
  g_settings_set_string (self->settings, "model", model);
}

static void
update_title (ZotWindow *self)
{
  ZotProvider *provider;
  const ZotProviderInfo *info;
  g_autofree char *subtitle = NULL;
  g_autofree char *base_url = NULL;
  gboolean demo;

  update_project_title (self);
  if (self->host == NULL)
    {
      /* Translators: the window's header subtitle while the project is being opened */
      adw_window_title_set_subtitle (self->window_title, _("Starting…"));
      return;
    }

  provider = zot_agent_get_provider (zot_host_get_agent (self->host));
  subtitle = g_strdup_printf ("%s · %s", zot_provider_get_name (provider), zot_provider_get_model (provider));
  adw_window_title_set_subtitle (self->window_title, subtitle);
  base_url = self->options.provider.base_url != NULL ? g_strdup (self->options.provider.base_url)
                                                    : g_settings_get_string (self->settings, "base-url");
  zot_model_picker_set_current (self->model_picker, zot_provider_get_name (provider),
                                zot_provider_get_model (provider), *base_url != '\0' ? base_url : NULL);
  zot_usage_label_refresh (self->usage_label);

  info = zot_provider_table_lookup (zot_provider_get_name (provider));
  demo = info != NULL && info->offline;
  gtk_revealer_set_reveal_child (self->demo_banner, demo);
}

static void
on_note_added (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               ZotWindow           *self)
{
  g_autofree char *text = g_strdup_printf ("%s: %s", zot_extension_get_name (extension), message);
  zot_window_show_toast (self, text);
}

static void
on_command_replied (ZotHost         *host,
                    ZotCommandReply *reply,
                    ZotWindow       *self)
{
  if (zot_command_reply_get_kind (reply) == ZOT_COMMAND_REPLY_INSERT)
    zot_prompt_editor_insert (self->prompt_editor, zot_command_reply_get_text (reply));
}

static void
on_panel_added (ZotPanelPane *pane,
                ZotPanel     *panel,
                ZotWindow    *self)
{
  gtk_toggle_button_set_active (self->side_pane_button, TRUE);
  adw_view_stack_set_visible_child_name (self->side_stack, "panels");
}

static void
on_toast_request (GtkWidget  *widget,
                  const char *text,
                  ZotWindow  *self)
{
  zot_window_show_toast (self, text);
}

/* /settings, /yolo, /quit: the same action as the menu and shortcuts. */
static void
on_host_activate_action (ZotHost    *host,
                         const char *action,
                         GVariant   *parameter,
                         ZotWindow  *self)
{
  gtk_widget_activate_action_variant (GTK_WIDGET (self), action, parameter);
}

static void
on_host_info (ZotHost    *host,
              const char *text,
              ZotWindow  *self)
{
  update_title (self);
}

/* Conversations */

static const char *
current_session_path (ZotWindow *self)
{
  if (self->host == NULL)
    return NULL;
  return zot_session_get_path (zot_agent_get_session (zot_host_get_agent (self->host)));
}

static void
on_host_session_notify (ZotWindow *self)
{
  zot_conversation_sidebar_set_current_path (self->sidebar, current_session_path (self));
}

static void
on_sidebar_open_requested (ZotConversationSidebar *sidebar,
                           const char             *path,
                           ZotWindow              *self)
{
  _zot_window_open_conversation (self, path);
}

static void
on_sidebar_trashed (ZotConversationSidebar *sidebar,
                    const char             *path,
                    ZotWindow              *self)
{
  /* The conversation shown went: go on in a new one. */
  if (g_strcmp0 (path, current_session_path (self)) == 0)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.new-conversation", NULL);
}

static void
on_sidebar_toast (ZotConversationSidebar *sidebar,
                  const char             *text,
                  ZotWindow              *self)
{
  zot_window_show_toast (self, text);
}

/* Start-up: keys from the keyring, then the host, then the extensions. */

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  if (self->closed)
    return;

  zot_trust_banner_update (self->trust_banner, zot_host_get_manager (self->host));
  zot_host_begin_session (self->host);
}

/* The setting, unless the command line gave --auto-compact. */
static void
apply_auto_compact (ZotWindow *self)
{
  if (self->host != NULL && self->options.auto_compact == 0)
    zot_agent_set_auto_compact (zot_host_get_agent (self->host),
                                g_settings_get_uint (self->settings, "auto-compact"));
}

/* A change in Preferences reaches the next request. */
static void
on_max_retries_changed (ZotWindow *self)
{
  if (self->host != NULL)
    zot_provider_set_max_retries (zot_agent_get_provider (zot_host_get_agent (self->host)),
                                  g_settings_get_int (self->settings, "max-retries"));
}

static void
create_host (ZotWindow *self)
{
  g_autoptr(GError) error = NULL;
  ZotExtensionManager *manager;
  ZotApprovalPolicy policy;

  self->host = zot_host_new (&self->options, &error);
  if (self->host == NULL)
    {
      /* The window still opens, with the demo model, and says why. */
      /* Translators: %s is why the chosen model provider could not be used, e.g. a missing API
       * key */
      g_autofree char *message = g_strdup_printf (_("%s; using the demo model instead"), error->message);

      g_clear_pointer (&self->options.provider.name, g_free);
      g_clear_pointer (&self->options.provider.model, g_free);
      self->options.provider.name = g_strdup (zot_provider_table_get_fallback ()->name);
      self->host = zot_host_new (&self->options, NULL);
      zot_transcript_add_error (self->transcript, message);
      if (self->host == NULL)
        return;
    }

  manager = zot_host_get_manager (self->host);

  apply_auto_compact (self);
  policy = g_settings_get_enum (self->settings, "approval-policy");
  if (self->yolo >= 0)
    policy = self->yolo ? ZOT_APPROVAL_POLICY_YOLO : ZOT_APPROVAL_POLICY_ASK;
  zot_extension_manager_set_policy (manager, policy);

  g_binding_group_set_source (self->host_bindings, self->host);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HOST]);
  self->approvals = zot_approval_presenter_new (GTK_WINDOW (self), manager);
  _zot_window_watch_approvals (self);

  g_signal_connect_object (manager, "note-added", G_CALLBACK (on_note_added), self, 0);
  g_signal_connect_object (manager, "notify::policy", G_CALLBACK (_zot_window_on_policy_notify), self, 0);
  g_signal_connect_object (manager, "submit-requested", G_CALLBACK (on_extension_submit), self, 0);
  g_signal_connect_object (manager, "submit-slash-requested", G_CALLBACK (on_extension_submit_slash),
                           self, 0);
  g_signal_connect_object (self->host, "activate-action", G_CALLBACK (on_host_activate_action), self, 0);
  g_signal_connect_object (self->host, "info", G_CALLBACK (on_host_info), self, 0);
  g_signal_connect_object (self->host, "command-replied", G_CALLBACK (on_command_replied), self, 0);
  g_signal_connect_object (self->host, "notify::model", G_CALLBACK (update_title), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (zot_host_get_agent (self->host), "notify::running",
                           G_CALLBACK (on_agent_running_notify), self, 0);
  g_signal_connect_object (self->host, "notify::session", G_CALLBACK (_zot_window_update_resume_bar), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->host, "notify::session", G_CALLBACK (on_host_session_notify), self,
                           G_CONNECT_SWAPPED);

  {
    g_autoptr(ZotConversationIndex) index =
      zot_conversation_index_new (zot_agent_get_cwd (zot_host_get_agent (self->host)));

    zot_conversation_sidebar_set_index (self->sidebar, index);
    zot_empty_state_set_conversations (self->empty_state, G_LIST_MODEL (index));
    on_host_session_notify (self);
  }

  update_title (self);
  _zot_window_actions_update (self);
  _zot_window_update_resume_bar (self);

  /* The window and the first prompt never wait for extensions. */
  zot_host_load_async (self->host, self->cancellable, loaded_cb, g_object_ref (self));

  if (self->pending_prompt != NULL)
    zot_prompt_editor_set_text (self->prompt_editor, self->pending_prompt);

  /* Dropped or opened while the window was starting. */
  if (self->pending_install != NULL)
    {
      g_autoptr(GFile) file = g_steal_pointer (&self->pending_install);
      zot_window_install_file (self, file);
    }
}

typedef struct
{
  ZotWindow  *self;
  char       *provider;
} KeyLookup;

static void
key_looked_up_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  KeyLookup *lookup = user_data;
  ZotWindow *self = lookup->self;
  g_autofree char *key = zot_keyring_lookup_finish (result, NULL);

  /* For the provider only, behind the environment's and the command
   * line's: not in this process's environment, which every extension and
   * every bash command would inherit. */
  if (key != NULL && *key != '\0')
    zot_provider_store_key (lookup->provider, key, FALSE);

  if (--self->keyring_pending == 0 && !self->closed)
    create_host (self);

  g_free (lookup->provider);
  g_object_unref (lookup->self);
  g_free (lookup);
}

static gboolean
keyring_timeout_cb (gpointer user_data)
{
  GCancellable *cancellable = user_data;

  g_cancellable_cancel (cancellable);
  return G_SOURCE_REMOVE;
}

static void
start (ZotWindow *self)
{
  g_autoptr(GCancellable) lookup_cancellable = g_cancellable_new ();

  if (self->options.provider.name == NULL)
    {
      g_autofree char *provider = g_settings_get_string (self->settings, "provider");
      if (*provider != '\0')
        self->options.provider.name = g_steal_pointer (&provider);
    }
  if (self->options.provider.model == NULL)
    {
      g_autofree char *model = g_settings_get_string (self->settings, "model");
      if (*model != '\0')
        self->options.provider.model = g_steal_pointer (&model);
    }
  if (self->options.provider.base_url == NULL)
    {
      g_autofree char *base_url = g_settings_get_string (self->settings, "base-url");
      if (*base_url != '\0')
        self->options.provider.base_url = g_steal_pointer (&base_url);
    }

  if (!self->options.max_retries_set)
    {
      self->options.max_retries = g_settings_get_int (self->settings, "max-retries");
      self->options.max_retries_set = TRUE;
    }

  /* The keyring gets a few seconds; a machine without one goes on. */
  g_timeout_add_full (G_PRIORITY_DEFAULT, zot_timeout_get_ms (ZOT_TIMEOUT_KEYRING), keyring_timeout_cb,
                      g_object_ref (lookup_cancellable), g_object_unref);

  /* One lookup per provider that takes a key; the host starts once the
   * last one is answered. The count starts at one for this function, so
   * the host starts even if no provider takes a key. */
  self->keyring_pending = 1;
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      KeyLookup *lookup;

      if (info->key_variable == NULL)
        continue;

      lookup = g_new0 (KeyLookup, 1);
      lookup->self = g_object_ref (self);
      lookup->provider = g_strdup (info->name);
      self->keyring_pending++;
      zot_keyring_lookup_async (info->name, lookup_cancellable, key_looked_up_cb, lookup);
    }

  if (--self->keyring_pending == 0 && !self->closed)
    create_host (self);
}

/* Drag and drop */

gboolean
zot_window_install_file (ZotWindow *self,
                         GFile     *file)
{
  g_return_val_if_fail (ZOT_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (self->closed)
    return FALSE;

  /* Still starting (reading the keyring): offered once the host is up. */
  if (self->host == NULL)
    {
      g_set_object (&self->pending_install, file);
      return TRUE;
    }

  zot_install_dialog_present (GTK_WINDOW (self), file, self->host);
  return TRUE;
}

static void
on_open_project_response (AdwMessageDialog *dialog,
                          const char       *response,
                          ZotWindow        *self)
{
  const char *folder = g_object_get_data (G_OBJECT (dialog), "folder");
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (g_str_equal (response, "open") && app != NULL)
    zot_application_open_project (ZOT_APPLICATION (app), folder);
}

/* A dropped folder that is not an extension is a project, in a window of
 * its own; this window keeps its own. */
static void
offer_project (ZotWindow *self,
               GFile     *folder)
{
  g_autofree char *path = g_file_get_path (folder);
  g_autofree char *display = NULL;
  GtkWidget *dialog;

  if (path == NULL)
    return;

  display = zot_recent_projects_display_path (path);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Open the Folder as a Project?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  /* Translators: %s is the folder that was dropped on the window */
                                  _("%s is not an extension. It can open as a project, in a window of "
                                    "its own."), display);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "open", _("_Open Project"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "open", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "open");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  /* As for the other one-off dialogs: the handler is tied to the window,
   * and the folder the answer acts on rides on the dialog. */
  g_object_set_data_full (G_OBJECT (dialog), "folder", g_steal_pointer (&path), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_open_project_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static gboolean
is_image_name (GFile *file)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *type = g_content_type_guess (name, NULL, 0, NULL);
  g_autofree char *mime = g_content_type_get_mime_type (type);

  return mime != NULL && g_str_has_prefix (mime, "image/");
}

/**
 * zot_window_open_files:
 * @files: (element-type GFile): what was dropped on the window
 *
 * Images go to the prompt, to be sent with the next message; otherwise the
 * first thing that is not an image is either a folder that is not an
 * extension, offered to open as a project, or an extension folder or
 * archive, which opens the install dialog.
 *
 * Returns: whether the files were taken
 */
gboolean
zot_window_open_files (ZotWindow *self,
                       GSList    *files)
{
  gboolean all_images = files != NULL;

  g_return_val_if_fail (ZOT_IS_WINDOW (self), FALSE);

  for (GSList *l = files; l != NULL && all_images; l = l->next)
    all_images = is_image_name (l->data);

  if (all_images)
    {
      for (GSList *l = files; l != NULL; l = l->next)
        zot_prompt_editor_attach_file (self->prompt_editor, l->data);
      gtk_widget_grab_focus (GTK_WIDGET (self->prompt_editor));
      return TRUE;
    }

  /* The first thing that is not an image is the extension to install. */
  for (GSList *l = files; l != NULL; l = l->next)
    {
      if (is_image_name (l->data))
        continue;
      if (!zot_application_file_is_project (l->data))
        return zot_window_install_file (self, l->data);
      offer_project (self, l->data);
      return TRUE;
    }

  return FALSE;
}

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         ZotWindow     *self)
{
  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return zot_window_open_files (self, g_value_get_boxed (value));

  if (G_VALUE_HOLDS (value, G_TYPE_FILE))
    {
      GSList one = { g_value_get_object (value), NULL };

      return zot_window_open_files (self, &one);
    }

  /* Pixels, dragged from a browser or an image viewer. */
  if (G_VALUE_HOLDS (value, GDK_TYPE_TEXTURE))
    return zot_prompt_editor_attach_texture (self->prompt_editor, g_value_get_object (value));

  return FALSE;
}

/* Closing: stop the extensions gracefully without freezing the window. */

static void
shut_down_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;
  g_autoptr(GtkApplication) app = gtk_window_get_application (GTK_WINDOW (self));

  if (app != NULL)
    g_object_ref (app);
  zot_host_shutdown_finish (ZOT_HOST (object), result, NULL);
  self->closed = TRUE;
  gtk_window_destroy (GTK_WINDOW (self));
  if (app != NULL)
    g_application_release (G_APPLICATION (app));
}

static void
on_close_response (AdwMessageDialog *dialog,
                   const char       *response,
                   ZotWindow        *self)
{
  self->close_dialog = NULL;
  if (!g_str_equal (response, "close"))
    return;

  self->close_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

/* Closing stops the run: the user says so first. */
static void
confirm_close (ZotWindow *self)
{
  GtkWidget *dialog;

  if (self->close_dialog != NULL)
    {
      gtk_window_present (GTK_WINDOW (self->close_dialog));
      return;
    }

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Stop the Run and Close?"),
                                   _("The agent is still working in this project. Closing the window "
                                     "stops it and shuts its extensions down."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    /* Translators: a button of the dialog shown when closing a
                                     * window while the agent is working: do not close */
                                    "cancel", _("_Keep Working"),
                                    "close", _("_Stop and Close"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "close", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_close_response), self, 0);
  self->close_dialog = ADW_MESSAGE_DIALOG (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

static gboolean
zot_window_close_request (GtkWindow *window)
{
  ZotWindow *self = ZOT_WINDOW (window);
  GtkApplication *app = gtk_window_get_application (window);

  if (self->closed || self->host == NULL)
    return GTK_WINDOW_CLASS (zot_window_parent_class)->close_request (window);

  if (self->closing)
    return TRUE;

  if (self->agent_running && !self->close_confirmed)
    {
      confirm_close (self);
      return TRUE;
    }

  self->closing = TRUE;

  if (!gtk_window_is_maximized (window))
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));

  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  if (app != NULL)
    g_application_hold (G_APPLICATION (app));
  zot_host_shutdown_async (self->host, NULL, shut_down_cb, g_object_ref (self));

  return TRUE;
}

/* Public */

void
zot_window_set_prompt (ZotWindow  *self,
                       const char *prompt)
{
  g_return_if_fail (ZOT_IS_WINDOW (self));

  g_free (self->pending_prompt);
  self->pending_prompt = g_strdup (prompt);
  zot_prompt_editor_set_text (self->prompt_editor, prompt);
}

void
zot_window_add_extensions (ZotWindow          *self,
                           const char * const *paths)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) all = NULL;

  g_return_if_fail (ZOT_IS_WINDOW (self));

  if (paths == NULL || paths[0] == NULL)
    return;

  builder = g_strv_builder_new ();
  g_strv_builder_addv (builder, (const char **) self->options.ext_paths);
  for (guint i = 0; paths[i] != NULL; i++)
    if (self->options.ext_paths == NULL || !g_strv_contains ((const char * const *) self->options.ext_paths, paths[i]))
      g_strv_builder_add (builder, paths[i]);
  all = g_strv_builder_end (builder);

  g_strfreev (self->options.ext_paths);
  self->options.ext_paths = g_strdupv (all);

  /* Still starting (reading the keyring): the host will load them. */
  if (self->host == NULL)
    return;

  zot_extension_manager_set_explicit_paths (zot_host_get_manager (self->host), (const char * const *) all);
  _zot_window_submit_command (self, "/reload-ext");
}

void
zot_window_resolve_approval (ZotWindow         *self,
                             const char        *id,
                             ZotApprovalChoice  choice)
{
  g_return_if_fail (ZOT_IS_WINDOW (self));

  if (self->approvals != NULL)
    zot_approval_presenter_resolve (self->approvals, id, choice);
}

/**
 * zot_window_get_cwd:
 *
 * Returns: (nullable): the project folder the window works in
 */
const char *
zot_window_get_cwd (ZotWindow *self)
{
  g_return_val_if_fail (ZOT_IS_WINDOW (self), NULL);
  return self->options.cwd;
}

ZotHost *
zot_window_get_host (ZotWindow *self)
{
  g_return_val_if_fail (ZOT_IS_WINDOW (self), NULL);
  return self->host;
}

/* GObject */

static void
zot_window_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  ZotWindow *self = ZOT_WINDOW (object);

  switch (prop_id)
    {
    case PROP_HOST:
      g_value_set_object (value, self->host);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_window_dispose (GObject *object)
{
  ZotWindow *self = (ZotWindow *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->approvals);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_WINDOW);

  G_OBJECT_CLASS (zot_window_parent_class)->dispose (object);
}

static void
zot_window_finalize (GObject *object)
{
  ZotWindow *self = (ZotWindow *)object;

  g_clear_object (&self->host_bindings);
  g_clear_object (&self->host);
  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->pending_prompt, g_free);
  g_clear_pointer (&self->switch_path, g_free);
  g_clear_object (&self->pending_install);
  _zot_window_layout_free (self);
  zot_host_options_clear (&self->options);

  G_OBJECT_CLASS (zot_window_parent_class)->finalize (object);
}

static void
zot_window_class_init (ZotWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = zot_window_dispose;
  object_class->finalize = zot_window_finalize;
  object_class->get_property = zot_window_get_property;
  window_class->close_request = zot_window_close_request;
  widget_class->focus = _zot_window_keynav_focus;

  /**
   * ZotWindow:host:
   *
   * The window's host, once it is made (zot_window_new() starts it
   * asynchronously); the views in the window follow it.
   */
  properties [PROP_HOST] =
    g_param_spec_object ("host", NULL, NULL, ZOT_TYPE_HOST,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (ZOT_TYPE_CONVERSATION_SIDEBAR);
  g_type_ensure (ZOT_TYPE_FIND_BAR);
  g_type_ensure (ZOT_TYPE_MODEL_PICKER);
  g_type_ensure (ZOT_TYPE_TRANSCRIPT);
  g_type_ensure (ZOT_TYPE_PROMPT_EDITOR);
  g_type_ensure (ZOT_TYPE_USAGE_LABEL);
  g_type_ensure (ZOT_TYPE_EMPTY_STATE);
  g_type_ensure (ZOT_TYPE_TRUST_BANNER);
  g_type_ensure (ZOT_TYPE_PANEL_PANE);
  g_type_ensure (ZOT_TYPE_NOTES_VIEW);
  g_type_ensure (ZOT_TYPE_INSPECTOR);
  g_type_ensure (ZOT_TYPE_EXTENSIONS_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-window.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, header_bar);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, side_pane_button);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, demo_banner);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, resume_bar);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, demo_label);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, conversation_box);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, side_pane);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, side_stack);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, flap);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, find_bar);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, empty_state);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, transcript);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, prompt_editor);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, usage_label);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, model_picker);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, trust_banner);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, panel_pane);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, notes_view);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, inspector);
  gtk_widget_class_bind_template_child (widget_class, ZotWindow, extensions_page);
  gtk_widget_class_bind_template_callback (widget_class, on_sidebar_open_requested);
  gtk_widget_class_bind_template_callback (widget_class, on_sidebar_trashed);
  gtk_widget_class_bind_template_callback (widget_class, on_sidebar_toast);
  gtk_widget_class_bind_template_callback (widget_class, on_prompt_submit);
  gtk_widget_class_bind_template_callback (widget_class, on_prompt_cancel);
  gtk_widget_class_bind_template_callback (widget_class, on_attach_failed);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_added);
  gtk_widget_class_bind_template_callback (widget_class, on_toast_request);

  _zot_window_class_actions_init (klass);
  _zot_window_class_approvals_init (klass);
  _zot_window_class_layout_init (klass);
}

/* The style sheet applies to a whole display: the first window on it
 * adds it, and every later one finds it there, so that ten windows do not
 * stack ten copies for GTK to match against every widget. */
GtkStyleProvider *
_zot_window_ensure_style (GdkDisplay *display)
{
  static GQuark quark;
  GtkCssProvider *css;

  if (quark == 0)
    quark = g_quark_from_static_string ("zot-window-style");

  css = g_object_get_qdata (G_OBJECT (display), quark);
  if (css != NULL)
    return GTK_STYLE_PROVIDER (css);

  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/dev/zot/Zot/style.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_qdata_full (G_OBJECT (display), quark, css, g_object_unref);
  return GTK_STYLE_PROVIDER (css);
}

static void
zot_window_init (ZotWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));
  zot_accessible_fix_mnemonics (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new (APP_ID);
  self->yolo = -1;

  _zot_window_ensure_style (gtk_widget_get_display (GTK_WIDGET (self)));

  gtk_label_set_markup (self->demo_label,
                        _("You are talking to the built-in demo model: offline, no API key. "
                          "Lines like <tt>tool: bash {\"command\": \"ls\"}</tt> make it call tools. "
                          "Choose a real model in Preferences."));

  g_settings_bind (self->settings, "show-loaded-resources", self->transcript, "show-startup", G_SETTINGS_BIND_GET);
  g_signal_connect_object (self->settings, "changed::auto-compact", G_CALLBACK (apply_auto_compact), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::max-retries", G_CALLBACK (on_max_retries_changed),
                           self, G_CONNECT_SWAPPED);

  g_signal_connect_object (self->model_picker, "model-chosen", G_CALLBACK (on_model_chosen_cb), self,
                           G_CONNECT_SWAPPED);

  g_object_bind_property (self, "host", self->transcript, "host", G_BINDING_DEFAULT);
  g_object_bind_property (self, "host", self->prompt_editor, "host", G_BINDING_DEFAULT);
  g_object_bind_property (self, "host", self->extensions_page, "host", G_BINDING_DEFAULT);
  self->host_bindings = g_binding_group_new ();
  g_binding_group_bind (self->host_bindings, "manager", self->panel_pane, "manager", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->host_bindings, "manager", self->notes_view, "manager", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->host_bindings, "manager", self->inspector, "manager", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->host_bindings, "agent", self->usage_label, "agent", G_BINDING_SYNC_CREATE);

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  _zot_window_layout_init (self);

  _zot_window_keynav_init (self);
  /* Typing goes to the prompt from the start. */
  gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->prompt_editor));
  gtk_widget_grab_focus (GTK_WIDGET (self->prompt_editor));

  _zot_window_actions_update (self);

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, (GType []) { GDK_TYPE_FILE_LIST, GDK_TYPE_TEXTURE }, 2);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  update_title (self);
}

/**
 * zot_window_new:
 * @options: what the command line asked for; copied
 * @yolo: 1 for --yolo, 0 for --no-yolo, -1 to follow the preference
 */
GtkWidget *
zot_window_new (ZotApplication *application,
                ZotHostOptions *options,
                int             yolo)
{
  ZotWindow *self;

  g_return_val_if_fail (ZOT_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (options != NULL, NULL);

  self = g_object_new (ZOT_TYPE_WINDOW, "application", application, NULL);
  self->yolo = yolo;

  zot_host_options_copy_into (&self->options, options);
  /* A conversation another zot is writing is still worth showing. */
  self->options.read_only_if_locked = TRUE;
  self->options.interactive = TRUE;

  update_title (self);
  start (self);

  return GTK_WIDGET (self);
}
