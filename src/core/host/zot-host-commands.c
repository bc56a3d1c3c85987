/* zot-host-commands.c — what a line of user input runs: a built-in
 * command, an extension's command or a model turn.
 */
#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-host-private.h"
#include "zot-builtin-commands.h"
#include "zot-extension-private.h"
#include "zot-json.h"

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

static void
submit_data_free (SubmitData *data)
{
  g_free (data->final_text);
  g_clear_pointer (&data->reply, zot_command_reply_unref);
  g_clear_error (&data->command_error);
  g_free (data->origin_extension);
  g_free (data);
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

void
_zot_host_emit_info (ZotHost    *self,
                     const char *text)
{
  g_signal_emit (self, _zot_host_signals [ZOT_HOST_INFO], 0, text);
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

void
_zot_host_on_user_message (ZotHost    *self,
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
  g_signal_emit (self, _zot_host_signals [ZOT_HOST_COMMAND_REPLIED], 0, reply);

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

void
_zot_host_reloaded_cb (GObject      *object,
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
  _zot_host_emit_info (self, text);
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
  _zot_host_emit_info (self, text);
  g_task_return_boolean (task, TRUE);
}

/* The built-in commands the host runs, and those the window does with an
 * action of its own. */

typedef void (*BuiltinRun) (ZotHost    *self,
                            GTask      *task,
                            const char *args);

static void
run_help (ZotHost    *self,
          GTask      *task,
          const char *args)
{
  g_autofree char *help = format_help (self);

  _zot_host_emit_info (self, help);
  g_task_return_boolean (task, TRUE);
}

static void
run_reload_ext (ZotHost    *self,
                GTask      *task,
                const char *args)
{
  zot_extension_manager_reload_async (self->manager, g_task_get_cancellable (task),
                                      _zot_host_reloaded_cb, g_object_ref (task));
}

typedef struct
{
  GTask *task;
  char  *name;
} RestartOne;

static void
restarted_one_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  RestartOne *one = user_data;
  g_autoptr(GTask) task = one->task;
  g_autofree char *name = one->name;
  ZotHost *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_free (one);
  if (!zot_extension_manager_restart_finish (ZOT_EXTENSION_MANAGER (object), result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  zot_agent_reset_system_prompt (self->agent);
  /* Translators: the output of the /restart-ext command; %s is the extension's name */
  text = g_strdup_printf (_("Restarted %s"), name);
  _zot_host_emit_info (self, text);
  g_task_return_boolean (task, TRUE);
}

static void
run_restart_ext (ZotHost    *self,
                 GTask      *task,
                 const char *args)
{
  g_autofree char *name = g_strstrip (g_strdup (args));
  ZotExtension *extension = *name != '\0' ? zot_extension_manager_find (self->manager, name) : NULL;
  RestartOne *one;

  if (*name == '\0')
    {
      g_task_return_new_error (task, ZOT_HOST_ERROR, ZOT_HOST_ERROR_USAGE,
                               /* Translators: /restart-ext is a command, keep it */
                               _("/restart-ext needs the name of an extension: /restart-ext NAME"));
      return;
    }
  if (extension == NULL)
    {
      g_task_return_new_error (task, ZOT_HOST_ERROR, ZOT_HOST_ERROR_USAGE,
                               /* Translators: an extension's name; /restart-ext and zot ext list are
                                * commands, keep them */
                               _("no extension named %s; /restart-ext takes a name that zot ext list shows"),
                               name);
      return;
    }
  one = g_new0 (RestartOne, 1);
  one->task = g_object_ref (task);
  one->name = g_steal_pointer (&name);
  zot_extension_manager_restart_async (self->manager, extension, g_task_get_cancellable (task),
                                       restarted_one_cb, one);
}

static void
run_compact (ZotHost    *self,
             GTask      *task,
             const char *args)
{
  /* Its pre/post_compact events belong to a session, even when
   * `-p /compact` runs no prompt to begin it. */
  zot_host_begin_session (self);
  zot_agent_compact_async (self->agent, g_task_get_cancellable (task),
                           compacted_cb, g_object_ref (task));
}

static void
run_new (ZotHost    *self,
         GTask      *task,
         const char *args)
{
  g_autoptr(GError) error = NULL;

  if (!zot_host_new_session (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  _zot_host_emit_info (self, _("Started a new conversation."));
  g_task_return_boolean (task, TRUE);
}

static void
run_clear (ZotHost    *self,
           GTask      *task,
           const char *args)
{
  zot_host_clear (self);
  _zot_host_emit_info (self, _("Cleared the conversation."));
  g_task_return_boolean (task, TRUE);
}

static void
run_model (ZotHost    *self,
           GTask      *task,
           const char *args)
{
  ZotProvider *provider = zot_agent_get_provider (self->agent);
  g_autoptr(GError) error = NULL;
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
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  _zot_host_emit_info (self, text);
  g_task_return_boolean (task, TRUE);
}

/* How the host runs each built-in command (zot-builtin-commands.c); one
 * without a run here is about the window, which does it with the
 * command's action (#ZotHost::activate-action). Headless modes have no
 * window: there those fail with %ZOT_HOST_ERROR_NOT_HERE. */
static const BuiltinRun builtin_runs[ZOT_BUILTIN_N_COMMANDS] = {
  [ZOT_BUILTIN_NEW]        = run_new,
  [ZOT_BUILTIN_CLEAR]      = run_clear,
  [ZOT_BUILTIN_COMPACT]    = run_compact,
  [ZOT_BUILTIN_MODEL]      = run_model,
  [ZOT_BUILTIN_RELOAD_EXT] = run_reload_ext,
  [ZOT_BUILTIN_RESTART_EXT] = run_restart_ext,
  [ZOT_BUILTIN_HELP]       = run_help,
};

/**
 * zot_host_get_command_action:
 * @name: a built-in command's name, in any case, without the "/"
 *
 * Returns: (nullable): the detailed name of the window's action that runs
 *   the built-in command @name, such as "win.preferences" for /settings;
 *   %NULL when the host runs it itself, or @name is no built-in command
 */
const char *
zot_host_get_command_action (const char *name)
{
  const ZotBuiltinCommand *command;

  g_return_val_if_fail (name != NULL, NULL);

  command = zot_builtin_command_lookup (name);
  if (command == NULL || builtin_runs[command->id] != NULL)
    return NULL;

  return command->action;
}

static void
run_builtin (ZotHost                 *self,
             GTask                   *task,
             const ZotBuiltinCommand *command,
             const char              *args)
{
  if (builtin_runs[command->id] != NULL)
    builtin_runs[command->id] (self, task, args);
  else if (self->options.interactive && command->action != NULL)
    {
      g_signal_emit (self, _zot_host_signals [ZOT_HOST_ACTIVATE_ACTION], 0, command->action, NULL);
      g_task_return_boolean (task, TRUE);
    }
  else
    g_task_return_new_error (task, ZOT_HOST_ERROR, ZOT_HOST_ERROR_NOT_HERE,
                             /* Translators: %s is the name of a slash command, such as panels */
                             _("/%s belongs to the window; it does nothing here"), command->name);
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
  const ZotBuiltinCommand *builtin;
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

  builtin = zot_builtin_command_lookup (name);
  if (builtin != NULL)
    {
      run_builtin (self, task, builtin, args);
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
