/* zot-manager-commands.c — slash commands (PROTOCOL.md §3).
 *
 * The built-in commands, the routes from a name to the extension that
 * answers it (built-ins win, then the earlier extension in load order,
 * whatever the time of registration), and running a command, whose answer
 * is read into a ZotCommandReply.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-command-reply-private.h"
#include "zot-builtin-commands.h"
#include "zot-error.h"
#include "zot-extension-manager-private.h"
#include "zot-extension-private.h"
#include "zot-json.h"
#include "zot-limits.h"

typedef struct
{
  ZotExtension *extension;
  const char   *name;
} Route;


void
zot_command_info_free (ZotCommandInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->name);
  g_free (info->description);
  g_clear_object (&info->extension);
  g_free (info);
}

gboolean
zot_extension_manager_is_builtin_command (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  return zot_builtin_command_lookup (name) != NULL;
}

/**
 * _zot_manager_claim_command:
 * @extension: the extension that registered @name
 * @name: the command, as registered
 *
 * Routes @name to @extension unless a built-in command has it or another
 * extension claimed it first, in any case. Commands are claimed in load
 * order, so the earlier extension wins whatever the time of registration.
 *
 * Returns: (transfer full) (nullable): why @extension does not get @name
 */
char *
_zot_manager_claim_command (ZotExtensionManager *self,
                            ZotExtension        *extension,
                            const char          *name)
{
  g_autofree char *key = g_ascii_strdown (name, -1);
  Route *winner;

  if (zot_extension_manager_is_builtin_command (name))
    /* Translators: why an extension's command is not used; %s is the command's name */
    return g_strdup_printf (_("the built-in /%s wins"), key);

  winner = g_hash_table_lookup (self->routes, key);
  if (winner != NULL)
    /* Translators: why an extension's command is not used: the command's name, then the
     * extension whose command of that name is used */
    return g_strdup_printf (_("/%s of %s, earlier in the load order, wins"),
                            winner->name, zot_extension_get_name (winner->extension));

  winner = g_new0 (Route, 1);
  winner->extension = extension;
  winner->name = name;
  g_hash_table_insert (self->routes, g_steal_pointer (&key), winner);
  return NULL;
}

static void
rebuild_routes (ZotExtensionManager *self)
{
  self->routes_dirty = FALSE;
  g_hash_table_remove_all (self->routes);

  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);
      GPtrArray *commands = zot_extension_get_commands (extension);
      gboolean routable = zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY;

      for (guint j = 0; j < commands->len; j++)
        {
          ZotExtensionCommand *command = g_ptr_array_index (commands, j);
          g_autofree char *why = NULL;

          if (!routable)
            continue;

          why = _zot_manager_claim_command (self, extension, command->name);
          _zot_extension_set_command_conflict (extension, j, why);
        }
    }
}

void
_zot_manager_invalidate_routes (ZotExtensionManager *self)
{
  self->routes_dirty = TRUE;
  /* Resolve now, so that conflicts reach the extension logs as they happen. */
  rebuild_routes (self);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_COMMANDS_CHANGED], 0);
}

/**
 * zot_extension_manager_lookup_command:
 * @name: a command name, with or without the slash, in any case
 * @canonical: (out) (optional) (transfer none): the spelling the extension registered
 *
 * Returns: (transfer none) (nullable): the extension that answers it
 */
ZotExtension *
zot_extension_manager_lookup_command (ZotExtensionManager  *self,
                                      const char           *name,
                                      const char          **canonical)
{
  g_autofree char *key = NULL;
  Route *route;

  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  while (*name == '/')
    name++;

  if (self->routes_dirty)
    rebuild_routes (self);

  key = g_ascii_strdown (name, -1);
  route = g_hash_table_lookup (self->routes, key);
  if (route == NULL)
    return NULL;

  if (canonical != NULL)
    *canonical = route->name;
  return route->extension;
}

/**
 * zot_extension_manager_list_commands:
 *
 * Returns: (transfer container) (element-type ZotCommandInfo): built-ins
 *   first, then the routed extension commands in load order
 */
GPtrArray *
zot_extension_manager_list_commands (ZotExtensionManager *self)
{
  const ZotBuiltinCommand *builtins;
  guint n_builtins;
  GPtrArray *list;

  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);

  if (self->routes_dirty)
    rebuild_routes (self);

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_command_info_free);

  builtins = zot_builtin_commands_get (&n_builtins);
  for (guint i = 0; i < n_builtins; i++)
    {
      ZotCommandInfo *info = g_new0 (ZotCommandInfo, 1);
      info->name = g_strdup (builtins[i].name);
      info->description = g_strdup (_(builtins[i].description));
      g_ptr_array_add (list, info);
    }

  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);
      GPtrArray *commands = zot_extension_get_commands (extension);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        continue;

      for (guint j = 0; j < commands->len; j++)
        {
          ZotExtensionCommand *command = g_ptr_array_index (commands, j);
          ZotCommandInfo *info;

          if (command->conflict != NULL)
            continue;

          info = g_new0 (ZotCommandInfo, 1);
          info->name = g_strdup (command->name);
          info->description = g_strdup (command->description);
          info->extension = g_object_ref (extension);
          g_ptr_array_add (list, info);
        }
    }

  return list;
}

typedef struct
{
  ZotExtension *extension;
  char         *command;
} CommandData;

static void
command_data_free (CommandData *data)
{
  g_clear_object (&data->extension);
  g_free (data->command);
  g_free (data);
}

typedef struct _ReplyAction ReplyAction;

/* One reply to a command, as its action is applied. */
typedef struct
{
  ZotExtensionManager *self;
  const ReplyAction   *action;
  JsonObject          *frame;
  ZotCommandReply     *result;
} Reply;

/* The actions a command may answer (PROTOCOL.md §3), each read into the
 * typed reply by a function that fails with @error when the frame lacks
 * what the action needs. */
struct _ReplyAction
{
  const char          *name;
  ZotCommandReplyKind  kind;
  /* Only the window can carry it out. */
  gboolean             needs_window;
  /* For the actions whose text is the member of their name: whether an
   * empty text is still something to do. */
  gboolean             empty_is_text;
  /* Whether the frame has what the action needs; shared with `zot ext
   * check` through zot_command_reply_check_frame(). */
  gboolean           (*check) (JsonObject  *frame,
                               const char  *command,
                               GError     **error);
  gboolean           (*read) (Reply   *reply,
                              GError **error);
};

static gboolean
read_text (Reply   *reply,
           GError **error)
{
  const char *text = zot_json_get_string (reply->frame, reply->action->name);

  /* Without its text the action has nothing to do. */
  if (text == NULL || (*text == '\0' && !reply->action->empty_is_text))
    return TRUE;

  reply->result->kind = reply->action->kind;
  reply->result->text = g_strdup (text);
  return TRUE;
}

static gboolean
check_open_panel (JsonObject  *frame,
                  const char  *command,
                  GError     **error)
{
  if (zot_json_get_object (frame, "open_panel") == NULL)
    {
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                   _("/%s: open_panel needs an object with id, title and lines"), command);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_open_panel (Reply   *reply,
                 GError **error)
{
  ZotCommandReply *result = reply->result;
  JsonObject *description = zot_json_get_object (reply->frame, "open_panel");

  result->kind = ZOT_COMMAND_REPLY_PANEL;
  result->panel = _zot_manager_open_panel (reply->self, result->extension, description);
  g_object_ref (result->panel);
  return TRUE;
}

static gboolean
check_tool_prompt (JsonObject  *frame,
                   const char  *command,
                   GError     **error)
{
  const char *prompt = zot_json_get_string (frame, "prompt");
  const char *tool_name = zot_json_get_string (frame, "tool_name");

  if (prompt == NULL || *prompt == '\0' || tool_name == NULL || *tool_name == '\0' ||
      zot_json_get_object (frame, "tool_args") == NULL)
    {
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_BAD_REPLY,
                   _("/%s: tool_prompt needs a non-empty prompt and tool_name, "
                     "and tool_args as a JSON object"), command);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_tool_prompt (Reply   *reply,
                  GError **error)
{
  ZotCommandReply *result = reply->result;

  result->kind = ZOT_COMMAND_REPLY_TOOL_PROMPT;
  result->text = g_strdup (zot_json_get_string (reply->frame, "prompt"));
  result->tool_name = g_strdup (zot_json_get_string (reply->frame, "tool_name"));
  result->tool_args = json_object_ref (zot_json_get_object (reply->frame, "tool_args"));
  return TRUE;
}

static const ReplyAction reply_actions[] = {
  { "noop",        ZOT_COMMAND_REPLY_NOOP,        FALSE, FALSE, NULL,              NULL },
  { "display",     ZOT_COMMAND_REPLY_DISPLAY,     FALSE, TRUE,  NULL,              read_text },
  { "insert",      ZOT_COMMAND_REPLY_INSERT,      FALSE, TRUE,  NULL,              read_text },
  { "prompt",      ZOT_COMMAND_REPLY_PROMPT,      FALSE, FALSE, NULL,              read_text },
  { "open_panel",  ZOT_COMMAND_REPLY_PANEL,       TRUE,  FALSE, check_open_panel,  read_open_panel },
  { "tool_prompt", ZOT_COMMAND_REPLY_TOOL_PROMPT, TRUE,  FALSE, check_tool_prompt, read_tool_prompt },
};

static const ReplyAction *
find_action (const char *action)
{
  for (guint i = 0; i < G_N_ELEMENTS (reply_actions); i++)
    if (g_str_equal (action, reply_actions[i].name))
      return &reply_actions[i];
  return NULL;
}

/**
 * zot_command_reply_check_frame:
 * @frame: a `command_response`
 * @command: the command it answers, for the messages
 *
 * What the window's host holds a command's answer to (PROTOCOL.md §3): a
 * known action or none, and the fields the action needs. `zot ext check`
 * uses it to hold an extension to the same rules.
 *
 * Returns: whether the window could carry out the answer; %FALSE with
 *   @error (%ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION for an unknown action,
 *   %ZOT_PROTOCOL_ERROR_BAD_REPLY for a missing field)
 */
gboolean
zot_command_reply_check_frame (JsonObject  *frame,
                               const char  *command,
                               GError     **error)
{
  const char *action;
  const ReplyAction *entry;

  g_return_val_if_fail (frame != NULL, FALSE);
  g_return_val_if_fail (command != NULL, FALSE);

  action = zot_json_get_string (frame, "action");
  if (action == NULL)
    return TRUE;

  entry = find_action (action);
  if (entry == NULL)
    {
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION,
                   _("/%s: unknown command action \"%s\""), command, action);
      return FALSE;
    }
  return entry->check == NULL || entry->check (frame, command, error);
}

static gboolean
read_action (ZotExtensionManager  *self,
             ZotCommandReply      *result,
             JsonObject           *frame,
             GError              **error)
{
  const char *action = zot_json_get_string (frame, "action");
  const ReplyAction *entry;
  Reply reply;

  if (action == NULL)
    return TRUE;

  entry = find_action (action);
  if (entry == NULL)
    {
      zot_extension_log (result->extension, "/%s answered unknown action \"%s\"",
                         result->command, action);
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION,
                   _("/%s: unknown command action \"%s\""), result->command, action);
      return FALSE;
    }

  if (entry->needs_window && !self->interactive)
    {
      zot_extension_log (result->extension, "/%s answered \"%s\", which this host cannot show",
                         result->command, action);
      g_set_error (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNSUPPORTED_ACTION,
                   _("/%s: the action \"%s\" needs the window; run it there"),
                   result->command, action);
      return FALSE;
    }

  if (entry->check != NULL && !entry->check (frame, result->command, error))
    return FALSE;

  reply = (Reply) { self, entry, frame, result };
  return entry->read == NULL || entry->read (&reply, error);
}

/**
 * _zot_manager_read_command_reply:
 * @extension: the extension that answered
 * @command: the command, as it registered it
 * @frame: its `command_response`
 *
 * Reads @frame into a typed reply, doing the manager's own part of it: an
 * `open_panel` action opens the panel. An action that cannot be done
 * makes a reply of kind %ZOT_COMMAND_REPLY_ERROR; otherwise the reply's
 * own `error`, when it has one, comes with the action.
 *
 * Returns: (transfer full): the reply
 */
ZotCommandReply *
_zot_manager_read_command_reply (ZotExtensionManager *self,
                                 ZotExtension        *extension,
                                 const char          *command,
                                 JsonObject          *frame)
{
  g_autoptr(ZotCommandReply) result = _zot_command_reply_new (extension, command);
  const char *failure;

  if (!read_action (self, result, frame, &result->error))
    {
      result->kind = ZOT_COMMAND_REPLY_ERROR;
      return g_steal_pointer (&result);
    }

  /* A non-empty error is shown whatever the action did. */
  failure = zot_json_get_string (frame, "error");
  if (failure != NULL && *failure != '\0')
    {
      result->error = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_COMMAND_FAILED,
                                   "/%s: %s", command, failure);
      if (result->kind == ZOT_COMMAND_REPLY_NOOP)
        result->kind = ZOT_COMMAND_REPLY_ERROR;
    }

  return g_steal_pointer (&result);
}

static void
command_replied_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  ZotExtension *extension = ZOT_EXTENSION (object);
  g_autoptr(GTask) task = user_data;
  ZotExtensionManager *self = g_task_get_source_object (task);
  CommandData *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) frame = NULL;
  g_autoptr(GError) error = NULL;

  frame = zot_extension_request_finish (extension, result, &error);
  if (frame == NULL)
    {
      if (g_error_matches (error, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT))
        g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_TIMEOUT,
                                 _("/%s (%s) did not answer within %u s"),
                                 data->command, zot_extension_get_name (extension),
                                 (zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND) + 999) / 1000);
      else
        {
          g_prefix_error (&error, "/%s: ", data->command);
          g_task_return_error (task, g_steal_pointer (&error));
        }
      return;
    }

  g_task_return_pointer (task,
                         _zot_manager_read_command_reply (self, extension, data->command, frame),
                         (GDestroyNotify) zot_command_reply_unref);
}

/**
 * zot_extension_manager_run_command_async:
 * @name: the command as typed, with or without the slash, in any case
 * @args: (nullable): everything after the name; trimmed before sending
 *
 * Sends `command_invoked` to the extension that owns the command and reads
 * its answer into a #ZotCommandReply. Fails only when there is no answer:
 * an unknown command, the 30 s deadline, a crash of the extension or
 * cancellation. What the answer itself got wrong is the reply's error.
 */
void
zot_extension_manager_run_command_async (ZotExtensionManager *self,
                                         const char          *name,
                                         const char          *args,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) frame = NULL;
  g_autofree char *trimmed = NULL;
  CommandData *data;
  ZotExtension *extension;
  const char *canonical = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (name != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_run_command_async);

  while (*name == '/')
    name++;

  extension = zot_extension_manager_lookup_command (self, name, &canonical);
  if (extension == NULL)
    {
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_UNKNOWN_COMMAND,
                               _("unknown command /%s"), name);
      return;
    }

  data = g_new0 (CommandData, 1);
  data->extension = g_object_ref (extension);
  data->command = g_strdup (canonical);
  g_task_set_task_data (task, data, (GDestroyNotify) command_data_free);

  trimmed = g_strstrip (g_strdup (args ? args : ""));

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "command_invoked");
  json_object_set_string_member (frame, "name", canonical);
  json_object_set_string_member (frame, "args", trimmed);

  zot_extension_request_async (extension, frame,
                               zot_timeout_get_ms (ZOT_TIMEOUT_COMMAND),
                               cancellable,
                               command_replied_cb,
                               g_steal_pointer (&task));
}

/**
 * zot_extension_manager_run_command_finish:
 *
 * Returns: (transfer full): the command's reply, or %NULL with @error
 */
ZotCommandReply *
zot_extension_manager_run_command_finish (ZotExtensionManager  *self,
                                          GAsyncResult         *result,
                                          GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
