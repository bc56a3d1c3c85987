/* zot-command-reply.c — what an extension's slash command answered. */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include "zot-command-reply-private.h"

G_DEFINE_BOXED_TYPE (ZotCommandReply, zot_command_reply,
                     zot_command_reply_ref, zot_command_reply_unref)

static void
command_reply_clear (ZotCommandReply *self)
{
  g_clear_object (&self->extension);
  g_clear_pointer (&self->command, g_free);
  g_clear_pointer (&self->text, g_free);
  g_clear_object (&self->panel);
  g_clear_pointer (&self->tool_name, g_free);
  g_clear_pointer (&self->tool_args, json_object_unref);
  g_clear_error (&self->error);
}

/* A reply of kind NOOP from @extension to /@command. */
ZotCommandReply *
_zot_command_reply_new (ZotExtension *extension,
                        const char   *command)
{
  ZotCommandReply *self = g_atomic_rc_box_new0 (ZotCommandReply);

  self->kind = ZOT_COMMAND_REPLY_NOOP;
  self->extension = g_object_ref (extension);
  self->command = g_strdup (command);
  return self;
}

ZotCommandReply *
zot_command_reply_ref (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

void
zot_command_reply_unref (ZotCommandReply *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, (GDestroyNotify) command_reply_clear);
}

ZotCommandReplyKind
zot_command_reply_get_kind (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, ZOT_COMMAND_REPLY_NOOP);
  return self->kind;
}

/**
 * zot_command_reply_get_extension:
 *
 * Returns: (transfer none): the extension that answered
 */
ZotExtension *
zot_command_reply_get_extension (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->extension;
}

/**
 * zot_command_reply_get_command:
 *
 * Returns: the command's name as the extension registered it, without
 *   the slash
 */
const char *
zot_command_reply_get_command (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->command;
}

/**
 * zot_command_reply_get_text:
 *
 * Returns: (nullable): the text to display, insert or submit; for
 *   %ZOT_COMMAND_REPLY_TOOL_PROMPT the user message
 */
const char *
zot_command_reply_get_text (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->text;
}

/**
 * zot_command_reply_get_panel:
 *
 * Returns: (transfer none) (nullable): the panel of a
 *   %ZOT_COMMAND_REPLY_PANEL reply
 */
ZotPanel *
zot_command_reply_get_panel (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->panel;
}

/**
 * zot_command_reply_get_tool_name:
 *
 * Returns: (nullable): the tool a %ZOT_COMMAND_REPLY_TOOL_PROMPT runs
 */
const char *
zot_command_reply_get_tool_name (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->tool_name;
}

/**
 * zot_command_reply_get_tool_args:
 *
 * Returns: (transfer none) (nullable): that tool's arguments
 */
JsonObject *
zot_command_reply_get_tool_args (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->tool_args;
}

/**
 * zot_command_reply_get_error:
 *
 * Returns: (transfer none) (nullable): the error line of the reply, in the
 *   %ZOT_PROTOCOL_ERROR domain: the extension's own `error`
 *   (%ZOT_PROTOCOL_ERROR_COMMAND_FAILED), or why its action was not done
 */
const GError *
zot_command_reply_get_error (ZotCommandReply *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->error;
}
