#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-builtin-tools.h"
#include "zot-codemode-tool.h"
#include "zot-error.h"
#include "zot-extension-private.h"
#include "zot-subagent-tool.h"
#include "zot-tool-search.h"
#include "zot-host.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-provider-table.h"

struct _ZotHost
{
  GObject              parent_instance;

  ZotHostOptions       options;
  ZotExtensionManager *manager;
  ZotToolRegistry     *registry;
  ZotAgent            *agent;
  GCancellable        *cancellable;

  gboolean             session_started;
  /* Extension name → the GTask of its `submit` (borrowed), until the
   * prompt's message is in the conversation or the task is over. */
  GHashTable          *extension_prompts;
  /* What ZotHost:model last said, "provider\nmodel", so that a rebuilt
   * provider with the same model does not notify. */
  char                *model_key;
  char                *continuous_warning;
};

typedef struct
{
  char            *final_text;
  /* An extension command's reply, and the error it carried, which is
   * reported once the turn it asked for is over. */
  ZotCommandReply *reply;
  GError          *command_error;
  /* A prompt an extension submitted: its name. */
  char            *origin_extension;
} SubmitData;

enum {
  INFO,
  COMMAND_REPLIED,
  WARNING,
  WINDOW_COMMAND,
  N_SIGNALS
};

enum {
  PROP_0,
  PROP_MODEL,
  PROP_CWD,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static guint signals [N_SIGNALS];

G_DEFINE_QUARK (zot-host-error-quark, zot_host_error)
G_DEFINE_FINAL_TYPE (ZotHost, zot_host, G_TYPE_OBJECT)

void
zot_host_options_clear (ZotHostOptions *options)
{
  g_clear_pointer (&options->cwd, g_free);
  g_clear_pointer (&options->ext_paths, g_strfreev);
  zot_provider_config_clear (&options->provider);
  g_clear_pointer (&options->system_prompt, g_free);
  g_clear_pointer (&options->append_system_prompt, g_strfreev);
  g_clear_pointer (&options->tools, g_strfreev);
  g_clear_pointer (&options->session_path, g_free);
  g_clear_pointer (&options->codemode, g_free);
}

static void
submit_data_free (SubmitData *data)
{
  g_free (data->final_text);
  g_clear_pointer (&data->reply, zot_command_reply_unref);
  g_clear_error (&data->command_error);
  g_free (data->origin_extension);
  g_free (data);
}

/* Sessions */

/* --session FILE or --continue: a file that may be another's to write. */
static ZotSession *
open_existing_session (ZotHostOptions  *options,
                       const char      *cwd,
                       GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  ZotSession *session;

  if (options->session_path != NULL)
    {
      path = g_strdup (options->session_path);
      session = zot_session_new (cwd, path, &local_error);
    }
  else
    {
      path = zot_session_find_latest (cwd, error);
      if (path == NULL)
        return NULL;
      session = zot_session_open (path, &local_error);
    }

  if (session == NULL && options->read_only_if_locked &&
      g_error_matches (local_error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED))
    return zot_session_open_read_only (path, error);

  if (session == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return session;
}

static ZotSession *
open_session (ZotHostOptions  *options,
              const char      *cwd,
              GError         **error)
{
  if (options->no_session)
    return zot_session_new_in_memory (cwd);

  if (options->session_path != NULL || options->continue_session)
    return open_existing_session (options, cwd, error);

  return zot_session_new (cwd, NULL, error);
}

/* Continuous mode is chosen when a conversation starts and kept in its
 * header: --continuous makes a new one continuous; a resumed one goes on
 * in the mode it was started in. */
static void
choose_continuous (ZotHost    *self,
                   ZotSession *session)
{
  if (!self->options.continuous || zot_session_get_continuous (session))
    return;

  if (zot_session_get_messages (session)->len == 0 && !zot_session_is_read_only (session))
    {
      zot_session_set_continuous (session, TRUE);
      return;
    }

  g_free (self->continuous_warning);
  self->continuous_warning = g_strdup_printf (_("the conversation %s was not started in continuous mode, "
                                                "so its tool calls are not journaled; start a new "
                                                "conversation with --continuous for that"),
                                              zot_session_get_path (session));
}

/* What the user should know about the conversation just opened: what
 * loading it mended, and whether it can go on here. */
static void
emit_session_warnings (ZotHost *self)
{
  ZotSession *session = zot_agent_get_session (self->agent);
  const char * const *warnings = zot_session_get_warnings (session);

  for (guint i = 0; warnings[i] != NULL; i++)
    g_signal_emit (self, signals [WARNING], 0, warnings[i]);

  if (self->continuous_warning != NULL)
    g_signal_emit (self, signals [WARNING], 0, self->continuous_warning);

  if (zot_session_is_read_only (session))
    {
      g_autofree char *text = g_strdup_printf (_("the session %s is open in another zot process, so it "
                                                 "is shown read-only here; start a new conversation "
                                                 "(/new) to go on"),
                                               zot_session_get_path (session));

      g_signal_emit (self, signals [WARNING], 0, text);
    }
}

/* Commands */

static char *
format_help (ZotHost *self)
{
  g_autoptr(GPtrArray) commands = zot_extension_manager_list_commands (self->manager);
  GString *text = g_string_new (_("Commands:\n"));

  for (guint i = 0; i < commands->len; i++)
    {
      ZotCommandInfo *info = g_ptr_array_index (commands, i);

      if (info->extension != NULL)
        g_string_append_printf (text, "  /%-16s %s [%s]\n", info->name,
                                info->description ? info->description : "",
                                zot_extension_get_name (info->extension));
      else
        g_string_append_printf (text, "  /%-16s %s\n", info->name, info->description);
    }

  return g_string_free (text, FALSE);
}

static void
emit_info (ZotHost    *self,
           const char *text)
{
  g_signal_emit (self, signals [INFO], 0, text);
}

/* The `submit` of @name is no longer pending: its message is in the
 * conversation, or @task (when not %NULL) is over without it. */
static void
release_extension_prompt (ZotHost    *self,
                          const char *name,
                          GTask      *task)
{
  GTask *pending = g_hash_table_lookup (self->extension_prompts, name);

  if (pending == NULL || (task != NULL && pending != task))
    return;

  g_hash_table_remove (self->extension_prompts, name);
  zot_extension_manager_submit_done (self->manager, name);
}

static void
on_user_message (ZotHost    *self,
                 JsonObject *message,
                 ZotAgent   *agent)
{
  const char *origin = zot_json_get_string (message, "origin_extension");

  if (origin != NULL)
    release_extension_prompt (self, origin, NULL);
}

static void
prompt_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SubmitData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  data->final_text = zot_agent_prompt_finish (ZOT_AGENT (object), result, &error);
  if (data->origin_extension != NULL)
    release_extension_prompt (g_task_get_source_object (task), data->origin_extension, task);
  if (data->final_text == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else if (data->command_error != NULL)
    g_task_return_error (task, g_steal_pointer (&data->command_error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
emit_session_event (ZotHost    *self,
                    const char *name,
                    const char *reason)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  if (reason != NULL)
    json_object_set_string_member (payload, "reason", reason);
  zot_extension_manager_emit_event (self->manager, name, payload);
}

/**
 * zot_host_begin_session:
 *
 * Emits `session_start` once for the active conversation. The window and
 * RPC call it when they are ready; print and JSON modes start the session
 * at the agent's first observation, just before its first prompt.
 */
void
zot_host_begin_session (ZotHost *self)
{
  g_return_if_fail (ZOT_IS_HOST (self));

  if (self->session_started)
    return;

  self->session_started = TRUE;
  zot_extension_manager_set_session_id (self->manager,
                                        zot_session_get_id (zot_agent_get_session (self->agent)));
  emit_session_event (self, "session_start", NULL);
}

static void
run_tool_prompt (ZotHost         *self,
                 GTask           *task,
                 ZotCommandReply *reply)
{
  zot_host_begin_session (self);
  zot_agent_tool_prompt_async (self->agent,
                               zot_command_reply_get_text (reply),
                               zot_command_reply_get_tool_name (reply),
                               zot_command_reply_get_tool_args (reply),
                               zot_extension_get_name (zot_command_reply_get_extension (reply)),
                               g_task_get_cancellable (task), prompt_done_cb, g_object_ref (task));
}

static void
run_prompt (ZotHost    *self,
            GTask      *task,
            const char *text,
            JsonArray  *images)
{
  zot_host_begin_session (self);
  zot_agent_prompt_with_images_async (self->agent, text, images, g_task_get_cancellable (task),
                                      prompt_done_cb, g_object_ref (task));
}

static void
command_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHost *self = g_task_get_source_object (task);
  SubmitData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  ZotCommandReply *reply;

  data->reply = zot_extension_manager_run_command_finish (ZOT_EXTENSION_MANAGER (object), result,
                                                          &error);
  if (data->reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  reply = data->reply;
  g_signal_emit (self, signals [COMMAND_REPLIED], 0, reply);

  /* A turn the command asks for runs even when the answer also carries an
   * error line; the error is reported when the turn is over. */
  if (zot_command_reply_get_error (reply) != NULL)
    data->command_error = g_error_copy (zot_command_reply_get_error (reply));

  switch (zot_command_reply_get_kind (reply))
    {
    case ZOT_COMMAND_REPLY_PROMPT:
      run_prompt (self, task, zot_command_reply_get_text (reply), NULL);
      return;

    case ZOT_COMMAND_REPLY_TOOL_PROMPT:
      run_tool_prompt (self, task, reply);
      return;

    default:
      /* The views show or insert the text; a panel is open already. */
      break;
    }

  if (data->command_error != NULL)
    g_task_return_error (task, g_steal_pointer (&data->command_error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
reloaded_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHost *self = g_task_get_source_object (task);
  ZotExtensionManager *manager = ZOT_EXTENSION_MANAGER (object);
  g_autofree char *text = NULL;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (manager));
  guint n_ready = 0;

  zot_extension_manager_reload_finish (manager, result, NULL);
  zot_agent_reset_system_prompt (self->agent);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);
      if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY)
        n_ready++;
    }

  /* Translators: the output of the /reload-ext command: extensions running, then extensions
   * found */
  text = g_strdup_printf (_("Reloaded extensions: %u of %u ready"), n_ready, n);
  emit_info (self, text);
  g_task_return_boolean (task, TRUE);
}

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHost *self = g_task_get_source_object (task);
  g_autoptr(ZotCompaction) compaction = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  compaction = zot_agent_compact_finish (ZOT_AGENT (object), result, &error);
  if (compaction == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (compaction->message_count == 0)
    text = g_strdup (_("Nothing to compact yet."));
  else
    /* Translators: the output of the /compact command: messages and tokens before, then after; a
     * token is the unit a model counts text in */
    text = g_strdup_printf (_("Compacted %u messages (about %llu tokens) into %u (about %llu tokens)."),
                            compaction->message_count,
                            (unsigned long long) compaction->token_estimate,
                            compaction->after_count,
                            (unsigned long long) compaction->after_token_estimate);
  emit_info (self, text);
  g_task_return_boolean (task, TRUE);
}

static void
run_builtin (ZotHost    *self,
             GTask      *task,
             const char *name,
             const char *args)
{
  g_autoptr(GError) error = NULL;

  if (g_ascii_strcasecmp (name, "help") == 0)
    {
      g_autofree char *help = format_help (self);
      emit_info (self, help);
      g_task_return_boolean (task, TRUE);
    }
  else if (g_ascii_strcasecmp (name, "reload-ext") == 0)
    {
      zot_extension_manager_reload_async (self->manager, g_task_get_cancellable (task),
                                          reloaded_cb, g_object_ref (task));
    }
  else if (g_ascii_strcasecmp (name, "compact") == 0)
    {
      /* Its pre/post_compact events belong to a session, even when
       * `-p /compact` runs no prompt to begin it. */
      zot_host_begin_session (self);
      zot_agent_compact_async (self->agent, g_task_get_cancellable (task),
                               compacted_cb, g_object_ref (task));
    }
  else if (g_ascii_strcasecmp (name, "new") == 0)
    {
      if (!zot_host_new_session (self, &error))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        {
          emit_info (self, _("Started a new conversation."));
          g_task_return_boolean (task, TRUE);
        }
    }
  else if (g_ascii_strcasecmp (name, "clear") == 0)
    {
      zot_host_clear (self);
      emit_info (self, _("Cleared the conversation."));
      g_task_return_boolean (task, TRUE);
    }
  else if (g_ascii_strcasecmp (name, "model") == 0)
    {
      ZotProvider *provider = zot_agent_get_provider (self->agent);
      g_autofree char *text = NULL;

      if (*args == '\0')
        /* Translators: the model's id, then the provider's name, such as "claude-sonnet-4
         * (provider anthropic)" */
        text = g_strdup_printf (_("Model: %s (provider %s)"),
                                zot_provider_get_model (provider), zot_provider_get_name (provider));
      else if (zot_host_set_model (self, NULL, args, &error))
        /* Translators: the model's id, then the provider's name */
        text = g_strdup_printf (_("Model set to %s (provider %s)"),
                                zot_provider_get_model (zot_agent_get_provider (self->agent)),
                                zot_provider_get_name (zot_agent_get_provider (self->agent)));

      if (text == NULL)
        g_task_return_error (task, g_steal_pointer (&error));
      else
        {
          emit_info (self, text);
          g_task_return_boolean (task, TRUE);
        }
    }
  else if (self->options.interactive)
    {
      g_signal_emit (self, signals [WINDOW_COMMAND], 0, name, args);
      g_task_return_boolean (task, TRUE);
    }
  else
    {
      g_task_return_new_error (task, ZOT_HOST_ERROR, ZOT_HOST_ERROR_NOT_HERE,
                               /* Translators: %s is the name of a slash command, such as panels */
                               _("/%s belongs to the window; it does nothing here"), name);
    }
}

gboolean
zot_host_is_command (ZotHost    *self,
                     const char *text)
{
  g_autofree char *name = NULL;
  g_autofree char *args = NULL;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  return zot_split_slash_command (text, &name, &args);
}

/**
 * zot_host_submit_async:
 * @text: a line of user input
 *
 * Runs a slash command, or a model turn. Completes when the command is
 * done, or when the run it started (directly or through an extension
 * command's `prompt` action) has ended.
 */
void
zot_host_submit_async (ZotHost             *self,
                       const char          *text,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  zot_host_submit_with_images_async (self, text, NULL, cancellable, callback, user_data);
}

/**
 * zot_host_submit_with_images_async:
 * @text: a line of user input, "" for images alone
 * @images: (nullable): image blocks from zot_image_block_new()
 *
 * zot_host_submit_async() with images for the model, which only a prompt
 * can carry: with a slash command it fails with %ZOT_HOST_ERROR_USAGE
 * and runs nothing. Complete with zot_host_submit_finish().
 */
void
zot_host_submit_with_images_async (ZotHost             *self,
                                   const char          *text,
                                   JsonArray           *images,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *name = NULL;
  g_autofree char *args = NULL;

  g_return_if_fail (ZOT_IS_HOST (self));
  g_return_if_fail (text != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_submit_async);
  g_task_set_task_data (task, g_new0 (SubmitData, 1), (GDestroyNotify) submit_data_free);

  if (!zot_split_slash_command (text, &name, &args))
    {
      run_prompt (self, task, text, images);
      return;
    }

  if (images != NULL && json_array_get_length (images) > 0)
    {
      g_task_return_new_error (task, ZOT_HOST_ERROR, ZOT_HOST_ERROR_USAGE,
                               /* Translators: %s is the name of a slash command */
                               _("/%s does not take images: send them with a message"), name);
      return;
    }

  if (zot_extension_manager_is_builtin_command (name))
    {
      run_builtin (self, task, name, args);
      return;
    }

  if (zot_extension_manager_lookup_command (self->manager, name, NULL) == NULL)
    {
      g_task_return_new_error (task, ZOT_HOST_ERROR, ZOT_HOST_ERROR_UNKNOWN_COMMAND,
                               _("unknown command /%s"), name);
      return;
    }

  zot_extension_manager_run_command_async (self->manager, name, args, cancellable,
                                           command_done_cb, g_object_ref (task));
}

/**
 * zot_host_submit_for_extension_async:
 * @extension: the extension that sent `submit`
 * @text: the prompt
 *
 * What the window does with an extension's `submit` (PROTOCOL.md §5a,
 * #ZotExtensionManager::submit-requested): @text is submitted as a user
 * prompt, as if typed (it runs, or waits in the queue while the agent is
 * busy); the message names the extension. Once the message is in the
 * conversation, or the prompt ended without it, the extension may submit
 * again. Complete with zot_host_submit_finish().
 */
void
zot_host_submit_for_extension_async (ZotHost             *self,
                                     ZotExtension        *extension,
                                     const char          *text,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SubmitData *data;

  g_return_if_fail (ZOT_IS_HOST (self));
  g_return_if_fail (ZOT_IS_EXTENSION (extension));
  g_return_if_fail (text != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_submit_async);
  data = g_new0 (SubmitData, 1);
  data->origin_extension = g_strdup (zot_extension_get_name (extension));
  g_task_set_task_data (task, data, (GDestroyNotify) submit_data_free);

  /* Before the agent: a prompt that starts at once is appended in the call. */
  g_hash_table_replace (self->extension_prompts, g_strdup (data->origin_extension), task);
  zot_host_begin_session (self);
  zot_agent_prompt_for_extension_async (self->agent, text, data->origin_extension, cancellable,
                                        prompt_done_cb, g_object_ref (task));
}

/**
 * zot_host_submit_finish:
 * @final_text: (out) (optional): the last assistant text when a run happened
 */
gboolean
zot_host_submit_finish (ZotHost       *self,
                        GAsyncResult  *result,
                        char         **final_text,
                        GError       **error)
{
  SubmitData *data;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  data = g_task_get_task_data (G_TASK (result));
  if (final_text != NULL)
    *final_text = g_strdup (data->final_text);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Model and conversation */

/* A new provider @name with @model (%NULL for its default), the host's
 * base URL, and @api_key or else the key the host would pick for it, in
 * use from now on. On error the one in use stays. */
/* The provider or its model may have changed. */
static void
update_model (ZotHost *self)
{
  ZotProvider *provider = zot_agent_get_provider (self->agent);
  g_autofree char *key = g_strdup_printf ("%s\n%s", zot_provider_get_name (provider),
                                          zot_provider_get_model (provider));

  zot_extension_manager_set_model (self->manager, zot_provider_get_name (provider),
                                   zot_provider_get_model (provider));
  if (g_strcmp0 (key, self->model_key) == 0)
    return;

  g_free (self->model_key);
  self->model_key = g_steal_pointer (&key);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODEL]);
}

static gboolean
install_provider (ZotHost     *self,
                  const char  *name,
                  const char  *model,
                  const char  *api_key,
                  GError     **error)
{
  g_autoptr(ZotProvider) provider = NULL;
  g_auto(ZotProviderConfig) config = { 0 };

  config.name = g_strdup (name);
  config.model = g_strdup (model);
  config.base_url = g_strdup (self->options.provider.base_url);
  if (api_key != NULL)
    {
      config.api_key = g_strdup (api_key);
      config.api_key_source = g_strdup (_("the key set in Preferences"));
    }
  else if (g_strcmp0 (name, self->options.provider.name) == 0)
    {
      config.api_key = g_strdup (self->options.provider.api_key);
      config.api_key_source = g_strdup (self->options.provider.api_key_source);
    }
  zot_provider_resolve_config (&config);

  provider = zot_provider_new_for_config (&config, error);
  if (provider == NULL)
    return FALSE;

  /* The reasoning level is the user's, not the model's: it carries over. */
  zot_provider_set_reasoning (provider, zot_provider_get_reasoning (zot_agent_get_provider (self->agent)));
  zot_agent_set_provider (self->agent, provider);
  update_model (self);
  return TRUE;
}

gboolean
zot_host_set_model (ZotHost     *self,
                    const char  *provider_name,
                    const char  *model,
                    GError     **error)
{
  ZotProvider *current;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  current = zot_agent_get_provider (self->agent);

  if (provider_name == NULL || g_str_equal (provider_name, zot_provider_get_name (current)))
    {
      zot_provider_set_model (current, model);
      zot_agent_reset_system_prompt (self->agent);
      update_model (self);
      return TRUE;
    }

  return install_provider (self, provider_name, model, NULL, error);
}

/* The provider in use again (same name and model), with the host's
 * current base URL, and @api_key or else the key it would pick. */
static gboolean
rebuild_provider (ZotHost     *self,
                  const char  *api_key,
                  GError     **error)
{
  ZotProvider *current = zot_agent_get_provider (self->agent);

  return install_provider (self, zot_provider_get_name (current), zot_provider_get_model (current),
                           api_key, error);
}

/**
 * zot_host_set_base_url:
 * @base_url: (nullable): the API root of a compatible server, %NULL or ""
 *   for the default
 *
 * Points the providers that talk to compatible servers (the table's
 * compatible_servers: the OpenAI-compatible one) elsewhere from now on:
 * the one in use at once, the next switch to one otherwise. A run in
 * progress finishes with the provider it started with. On error nothing
 * changes.
 */
gboolean
zot_host_set_base_url (ZotHost     *self,
                       const char  *base_url,
                       GError     **error)
{
  g_autofree char *before = NULL;
  const ZotProviderInfo *info;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  before = g_steal_pointer (&self->options.provider.base_url);
  self->options.provider.base_url = base_url != NULL && *base_url != '\0' ? g_strdup (base_url) : NULL;

  info = zot_provider_table_lookup (zot_provider_get_name (zot_agent_get_provider (self->agent)));
  if (info == NULL || !info->compatible_servers)
    return TRUE;

  if (!rebuild_provider (self, NULL, error))
    {
      g_free (self->options.provider.base_url);
      self->options.provider.base_url = g_steal_pointer (&before);
      return FALSE;
    }

  return TRUE;
}

/**
 * zot_host_set_api_key:
 * @provider: the provider the key is for
 * @api_key: the key
 *
 * Uses @api_key for @provider from now on: at once when @provider is in
 * use, replacing a key given on the command line for it. A switch to
 * another provider later takes that one's key from the environment, as it
 * did. On error nothing changes.
 */
gboolean
zot_host_set_api_key (ZotHost     *self,
                      const char  *provider,
                      const char  *api_key,
                      GError     **error)
{
  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);
  g_return_val_if_fail (provider != NULL, FALSE);
  g_return_val_if_fail (api_key != NULL, FALSE);

  if (g_str_equal (zot_provider_get_name (zot_agent_get_provider (self->agent)), provider) &&
      !rebuild_provider (self, api_key, error))
    return FALSE;

  if (g_strcmp0 (provider, self->options.provider.name) == 0)
    {
      g_free (self->options.provider.api_key);
      g_free (self->options.provider.api_key_source);
      self->options.provider.api_key = g_strdup (api_key);
      self->options.provider.api_key_source = g_strdup (_("the key set in Preferences"));
    }

  return TRUE;
}

/* The agent goes on in @session from here; extensions hear of the switch. */
static void
switch_session (ZotHost    *self,
                ZotSession *session)
{
  /* The old conversation ends before the new one starts. */
  if (self->session_started)
    emit_session_event (self, "session_end", "session_switch");

  zot_agent_set_session (self->agent, session);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SESSION]);
  zot_extension_manager_forget_approvals (self->manager);
  zot_extension_manager_set_session_id (self->manager, zot_session_get_id (session));

  if (self->session_started)
    emit_session_event (self, "session_start", NULL);
}

/* A stored conversation to go on with: a file that another zot process
 * writes is opened read-only when @read_only_if_locked. */
static ZotSession *
open_stored_session (const char  *path,
                     gboolean     read_only_if_locked,
                     GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  ZotSession *session = zot_session_open (path, &local_error);

  if (session == NULL && read_only_if_locked &&
      g_error_matches (local_error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED))
    {
      g_clear_error (&local_error);
      session = zot_session_open_read_only (path, &local_error);
    }
  if (session == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return session;
}

/* Reading the file is the worker thread's; a session made there belongs
 * to the main context, the thread's default. */
static void
open_session_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  GError *error = NULL;
  ZotSession *session = open_stored_session (task_data, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task),
                                                                                            "read-only-if-locked")),
                                             &error);

  if (session == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, session, g_object_unref);
}

static void
session_read_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHost *self = g_task_get_source_object (task);
  GError *error = NULL;
  g_autoptr(ZotSession) session = g_task_propagate_pointer (G_TASK (result), &error);

  if (session == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task) || !zot_host_check_idle (self, &error))
    {
      if (error != NULL)
        g_task_return_error (task, error);
      return;
    }

  g_clear_pointer (&self->continuous_warning, g_free);
  switch_session (self, session);
  emit_session_warnings (self);
  g_task_return_boolean (task, TRUE);
}

/**
 * zot_host_open_session_async:
 * @path: a session file of this host's directory
 *
 * Goes on with a stored conversation, as `--session FILE` does: the agent
 * has its history from here. The file is read on a worker thread. One
 * that another zot process writes is opened read-only when the host was
 * made to (the window). Then reports what loading it had to mend, as
 * #ZotHost::warning, after #ZotHost:session changed. On failure the
 * conversation before stays.
 */
void
zot_host_open_session_async (ZotHost             *self,
                             const char          *path,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) read = NULL;
  GError *error = NULL;

  g_return_if_fail (ZOT_IS_HOST (self));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_open_session_async);
  if (!zot_host_check_idle (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  read = g_task_new (NULL, cancellable, session_read_cb, g_steal_pointer (&task));
  g_task_set_task_data (read, g_strdup (path), g_free);
  g_object_set_data (G_OBJECT (read), "read-only-if-locked", GINT_TO_POINTER (self->options.read_only_if_locked));
  g_task_run_in_thread (read, open_session_thread);
}

gboolean
zot_host_open_session_finish (ZotHost       *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
zot_host_new_session (ZotHost  *self,
                      GError  **error)
{
  g_autoptr(ZotSession) session = NULL;
  const char *cwd;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  if (!zot_host_check_idle (self, error))
    return FALSE;
  cwd = zot_agent_get_cwd (self->agent);
  if (self->options.no_session)
    session = zot_session_new_in_memory (cwd);
  else
    session = zot_session_new (cwd, NULL, error);
  if (session == NULL)
    return FALSE;
  /* A new conversation goes on in the mode of the last. */
  if (zot_extension_manager_get_continuous (self->manager) && zot_session_is_persistent (session))
    zot_session_set_continuous (session, TRUE);

  switch_session (self, session);
  return TRUE;
}

void
zot_host_clear (ZotHost *self)
{
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();

  g_return_if_fail (ZOT_IS_HOST (self));

  zot_session_replace_messages (zot_agent_get_session (self->agent), empty);
  /* Tools activated in the conversation go with it (PROTOCOL.md §5a). */
  zot_tool_registry_reset_activations (self->registry);
  zot_agent_reset_system_prompt (self->agent);
}

/* Extension tools join the registry in load order, after the built-ins,
 * which win every name. */
static void
sync_extension_tools (ZotHost *self)
{
  g_autoptr(GPtrArray) registered = zot_tool_registry_list (self->registry);
  g_autoptr(GPtrArray) tools = zot_extension_manager_list_tools (self->manager);
  g_autoptr(GPtrArray) before = g_ptr_array_new ();
  gboolean changed;

  for (guint i = 0; i < registered->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (registered, i);

      if (zot_tool_get_origin (tool) != NULL)
        {
          g_ptr_array_add (before, tool);
          zot_tool_registry_remove (self->registry, zot_tool_get_name (tool));
        }
    }

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      g_autoptr(GError) error = NULL;

      if (!zot_tool_registry_add (self->registry, tool, &error))
        {
          ZotExtension *extension = zot_extension_manager_find (self->manager, zot_tool_get_origin (tool));

          if (extension != NULL)
            _zot_extension_add_problem (extension, error->message);
        }
    }

  /* The prompt names the tools: rebuild it only when they changed. */
  changed = before->len != tools->len;
  for (guint i = 0; !changed && i < before->len; i++)
    changed = g_ptr_array_index (before, i) != g_ptr_array_index (tools, i);
  if (changed)
    zot_agent_reset_system_prompt (self->agent);
}

static void
on_tools_changed (ZotExtensionManager *manager,
                  ZotHost             *self)
{
  sync_extension_tools (self);
}

/* Loading and shutdown */

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  g_task_return_boolean (task, TRUE);
}

/**
 * zot_host_load_async:
 *
 * Reports what loading the session had to mend (#ZotHost::warning), then
 * loads the extensions. Failures of single extensions are reported through
 * the manager's signals; the load itself does not fail.
 */
void
zot_host_load_async (ZotHost             *self,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_load_async);

  emit_session_warnings (self);
  zot_extension_manager_load_async (self->manager, cancellable, loaded_cb, g_steal_pointer (&task));
}

gboolean
zot_host_load_finish (ZotHost       *self,
                      GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
session_flushed_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  /* A failed flush was reported when the append failed. */
  zot_session_flush_finish (ZOT_SESSION (object), result, &error);
  g_task_return_boolean (task, TRUE);
}

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHost *self = g_task_get_source_object (task);

  zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  zot_session_flush_async (zot_agent_get_session (self->agent), NULL,
                           session_flushed_cb, g_steal_pointer (&task));
}

static void
stop_extensions (GTask *task)
{
  ZotHost *self = g_task_get_source_object (task);

  /* Queued events, session_end included, drain before `shutdown`. */
  if (self->session_started)
    {
      emit_session_event (self, "session_end", "shutdown");
      self->session_started = FALSE;
    }

  zot_extension_manager_shutdown_async (self->manager, NULL, shutdown_cb, task);
}

static void
subagents_waited_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* Runners still going after the wait may never report their stop. */
  if (!zot_subagent_tool_wait_finish (ZOT_TOOL (object), result, &error))
    g_debug ("Shutting down without waiting further: %s", error->message);
  stop_extensions (user_data);
}

/**
 * zot_host_shutdown_async:
 *
 * Aborts any run, waits a little (ZOT_SUBAGENT_SHUTDOWN_WAIT_MS) for
 * running subagents to return, stops every extension with the shutdown
 * ladder and waits for the session to be on disk.
 */
void
zot_host_shutdown_async (ZotHost             *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ZotTool *subagent;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_shutdown_async);

  zot_agent_abort (self->agent);

  /* The abort reaches the subagents too; their stops come before
   * session_end when they return in time. */
  subagent = zot_tool_registry_lookup (self->registry, ZOT_SUBAGENT_TOOL_NAME);
  if (subagent != NULL && ZOT_IS_SUBAGENT_TOOL (subagent) &&
      zot_subagent_tool_get_n_running (subagent) > 0)
    {
      zot_subagent_tool_wait_async (subagent, zot_timeout_get_ms (ZOT_TIMEOUT_SUBAGENT_SHUTDOWN),
                                    NULL, subagents_waited_cb, g_steal_pointer (&task));
      return;
    }

  stop_extensions (g_steal_pointer (&task));
}

gboolean
zot_host_shutdown_finish (ZotHost       *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* GObject */

static void
zot_host_dispose (GObject *object)
{
  ZotHost *self = (ZotHost *)object;

  g_cancellable_cancel (self->cancellable);
  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);

  G_OBJECT_CLASS (zot_host_parent_class)->dispose (object);
}

static void
zot_host_finalize (GObject *object)
{
  ZotHost *self = (ZotHost *)object;

  g_clear_object (&self->agent);
  g_clear_object (&self->registry);
  g_clear_object (&self->manager);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->extension_prompts, g_hash_table_unref);
  zot_host_options_clear (&self->options);
  g_free (self->model_key);
  g_free (self->continuous_warning);

  G_OBJECT_CLASS (zot_host_parent_class)->finalize (object);
}

static void
zot_host_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  ZotHost *self = ZOT_HOST (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_string (value, self->agent != NULL
                                   ? zot_provider_get_model (zot_agent_get_provider (self->agent))
                                   : NULL);
      break;

    case PROP_CWD:
      g_value_set_string (value, self->options.cwd);
      break;

    case PROP_SESSION:
      g_value_set_object (value, self->agent != NULL ? zot_agent_get_session (self->agent) : NULL);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_host_class_init (ZotHostClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_host_dispose;
  object_class->finalize = zot_host_finalize;
  object_class->get_property = zot_host_get_property;

  /**
   * ZotHost:model:
   *
   * The model in use. It notifies when the model or the provider serving
   * it changes (zot_host_set_model(), /model, a provider chosen in
   * Preferences), not when the same provider is rebuilt for a new key or
   * base URL.
   */
  properties [PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * ZotHost:cwd:
   *
   * The working directory the tools, extensions and sessions use.
   */
  properties [PROP_CWD] =
    g_param_spec_string ("cwd", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * ZotHost:session:
   *
   * The session the conversation is written to; /new replaces it.
   */
  properties [PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, ZOT_TYPE_SESSION,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotHost::info:
   * @text: what a built-in command has to say (/help, /model, /compact…)
   */
  signals [INFO] =
    g_signal_new ("info", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotHost::command-replied:
   * @reply: what an extension's command answered
   *
   * Emitted when an extension command submitted to the host answers,
   * before any turn it asks for: the views show a `display`, put an
   * `insert` into the editor, or leave the rest to the host. Its error,
   * if any, comes with the submission's result.
   */
  signals [COMMAND_REPLIED] =
    g_signal_new ("command-replied", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_COMMAND_REPLY | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * ZotHost::warning:
   * @message: one line for the user, such as what loading the session
   *   had to mend, or that it is open read-only
   *
   * Emitted by zot_host_load_async(), once the views are connected.
   */
  signals [WARNING] =
    g_signal_new ("warning", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotHost::window-command:
   * @name: "settings", "yolo" or "quit"
   * @args: the rest of the line
   *
   * Emitted in interactive hosts only, for the window to act on.
   */
  signals [WINDOW_COMMAND] =
    g_signal_new ("window-command", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

}

static void
zot_host_init (ZotHost *self)
{
  self->cancellable = g_cancellable_new ();
  self->extension_prompts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
copy_options (ZotHostOptions       *to,
              const ZotHostOptions *from)
{
  to->cwd = from->cwd ? g_canonicalize_filename (from->cwd, NULL) : g_get_current_dir ();
  to->ext_paths = g_strdupv (from->ext_paths);
  to->no_ext = from->no_ext;
  to->provider.name = g_strdup (from->provider.name);
  to->provider.model = g_strdup (from->provider.model);
  to->provider.base_url = g_strdup (from->provider.base_url);
  to->provider.api_key = g_strdup (from->provider.api_key);
  to->provider.api_key_source = g_strdup (from->provider.api_key_source);
  to->max_steps = from->max_steps > 0 ? from->max_steps : ZOT_DEFAULT_MAX_STEPS;
  to->system_prompt = g_strdup (from->system_prompt);
  to->append_system_prompt = g_strdupv (from->append_system_prompt);
  to->tools = g_strdupv (from->tools);
  to->no_tools = from->no_tools;
  to->continue_session = from->continue_session;
  to->session_path = g_strdup (from->session_path);
  to->no_session = from->no_session;
  to->continuous = from->continuous;
  to->read_only_if_locked = from->read_only_if_locked;
  to->interactive = from->interactive;
  to->codemode = g_strdup (from->codemode);
  to->reasoning = from->reasoning;
}

/**
 * zot_host_new:
 *
 * Builds the provider, the tools, the session and the agent. Fails with a
 * message for the user when one of them cannot be had (no session to
 * continue, an unknown provider, a missing key).
 */
ZotHost *
zot_host_new (ZotHostOptions  *options,
              GError         **error)
{
  g_autoptr(ZotHost) self = NULL;
  g_autoptr(ZotProvider) provider = NULL;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GPtrArray) builtins = NULL;

  g_return_val_if_fail (options != NULL, NULL);

  self = g_object_new (ZOT_TYPE_HOST, NULL);
  copy_options (&self->options, options);
  zot_provider_resolve_config (&self->options.provider);

  provider = zot_provider_new_for_config (&self->options.provider, error);
  if (provider == NULL)
    return NULL;
  zot_provider_set_reasoning (provider, self->options.reasoning);

  session = open_session (&self->options, self->options.cwd, error);
  if (session == NULL)
    return NULL;
  choose_continuous (self, session);

  /* Made here: the subagent tool emits through it. */
  self->manager = zot_extension_manager_new ();

  self->registry = zot_tool_registry_new ();
  builtins = zot_builtin_tools_new ();
  for (guint i = 0; i < builtins->len; i++)
    zot_tool_registry_add (self->registry, g_ptr_array_index (builtins, i), NULL);
  {
    g_autoptr(ZotTool) subagent = zot_subagent_tool_new (&self->options.provider, self->registry,
                                                         self->manager, self->options.cwd);
    zot_tool_registry_add (self->registry, subagent, NULL);
  }
  {
    g_autoptr(ZotTool) search = zot_tool_search_new (self->registry);
    zot_tool_registry_add (self->registry, search, NULL);
  }

  /* No script runtime when codemode is off (PROTOCOL.md §4). */
  if (g_strcmp0 (self->options.codemode, "off") != 0)
    {
      g_autoptr(ZotTool) codemode = zot_codemode_tool_new ();
      zot_tool_registry_add (self->registry, codemode, NULL);
    }

  if (g_strcmp0 (self->options.codemode, "off") == 0)
    zot_tool_registry_set_codemode (self->registry, ZOT_CODEMODE_OFF);
  else if (g_strcmp0 (self->options.codemode, "only") == 0)
    zot_tool_registry_set_codemode (self->registry, ZOT_CODEMODE_ONLY);

  if (self->options.no_tools)
    {
      const char *none[] = { NULL };
      zot_tool_registry_set_allowed (self->registry, none);
    }
  else if (self->options.tools != NULL)
    zot_tool_registry_set_allowed (self->registry, (const char * const *) self->options.tools);

  self->agent = zot_agent_new (provider, self->registry, session);
  zot_agent_set_cwd (self->agent, self->options.cwd);
  zot_agent_set_max_steps (self->agent, self->options.max_steps);
  zot_agent_set_interactive (self->agent, self->options.interactive);
  zot_agent_set_system_prompt_override (self->agent, self->options.system_prompt,
                                        (const char * const *) self->options.append_system_prompt);

  zot_extension_manager_set_cwd (self->manager, self->options.cwd);
  zot_extension_manager_set_explicit_paths (self->manager, (const char * const *) self->options.ext_paths);
  zot_extension_manager_set_no_ext (self->manager, self->options.no_ext);
  zot_extension_manager_set_interactive (self->manager, self->options.interactive);
  zot_extension_manager_set_continuous (self->manager, zot_session_get_continuous (session));
  self->model_key = g_strdup_printf ("%s\n%s", zot_provider_get_name (provider),
                                     zot_provider_get_model (provider));
  zot_extension_manager_set_model (self->manager, zot_provider_get_name (provider),
                                   zot_provider_get_model (provider));
  g_signal_connect (self->manager, "tools-changed", G_CALLBACK (on_tools_changed), self);
  zot_extension_manager_set_session_id (self->manager, zot_session_get_id (session));
  zot_agent_set_extension_manager (self->agent, self->manager);
  /* A call an extension makes outside any tool call is the conversation's. */
  zot_extension_manager_set_tool_runner (self->manager, ZOT_TOOL_RUNNER (self->agent));
  g_signal_connect_object (self->agent, "user-message", G_CALLBACK (on_user_message), self,
                           G_CONNECT_SWAPPED);

  return g_steal_pointer (&self);
}

ZotAgent *
zot_host_get_agent (ZotHost *self)
{
  g_return_val_if_fail (ZOT_IS_HOST (self), NULL);
  return self->agent;
}

ZotExtensionManager *
zot_host_get_manager (ZotHost *self)
{
  g_return_val_if_fail (ZOT_IS_HOST (self), NULL);
  return self->manager;
}

/**
 * zot_host_start_conversation_async:
 * @continuous: journal the new conversation's tool calls (PROTOCOL.md §5)
 *
 * Starts a new conversation, as /new does, in the mode asked. When the
 * mode changes the extensions are restarted, so that the hello_ack of
 * each says whether call_tool_durable is offered.
 */
void
zot_host_start_conversation_async (ZotHost             *self,
                                   gboolean             continuous,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  gboolean was = FALSE;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_start_conversation_async);

  if (continuous && self->options.no_session)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("a continuous conversation journals in its session file, and this "
                                 "window keeps none (--no-session)"));
      return;
    }

  was = zot_extension_manager_get_continuous (self->manager);
  zot_extension_manager_set_continuous (self->manager, continuous);
  if (!zot_host_new_session (self, &error))
    {
      zot_extension_manager_set_continuous (self->manager, was);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  emit_info (self, continuous ? _("Started a new continuous conversation: tool calls are journaled.")
                              : _("Started a new conversation."));
  if (was == !!continuous)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  zot_extension_manager_reload_async (self->manager, cancellable, reloaded_cb, g_steal_pointer (&task));
}

gboolean
zot_host_start_conversation_finish (ZotHost       *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
