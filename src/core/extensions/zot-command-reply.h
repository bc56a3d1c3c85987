/* zot-command-reply.h — what an extension's slash command answered
 * (PROTOCOL.md §3), typed.
 *
 * zot_extension_manager_run_command_finish() returns one. The manager has
 * already done its own part (a panel is open); the host and the views do
 * the rest by the kind: show the text, insert it, run a turn.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "zot-extension.h"
#include "zot-panel.h"

G_BEGIN_DECLS

/**
 * ZotCommandReplyKind:
 * @ZOT_COMMAND_REPLY_NOOP: nothing to do: `noop`, no action, or an action
 *   without the text it needs
 * @ZOT_COMMAND_REPLY_DISPLAY: show the text as a styled one-shot note
 * @ZOT_COMMAND_REPLY_INSERT: put the text into the editor at the cursor
 * @ZOT_COMMAND_REPLY_PROMPT: submit the text as a user message
 * @ZOT_COMMAND_REPLY_PANEL: the manager opened or updated the panel
 * @ZOT_COMMAND_REPLY_TOOL_PROMPT: append the text as a user message, run
 *   the tool through the usual path, then the model's turn
 * @ZOT_COMMAND_REPLY_ERROR: nothing to do but show the error: the reply
 *   said only that, or its action was unknown, malformed or not for this
 *   host
 *
 * Whatever the kind, zot_command_reply_get_error() says whether the reply
 * also carried an error line, which is shown after the action is done.
 */
typedef enum
{
  ZOT_COMMAND_REPLY_NOOP,
  ZOT_COMMAND_REPLY_DISPLAY,
  ZOT_COMMAND_REPLY_INSERT,
  ZOT_COMMAND_REPLY_PROMPT,
  ZOT_COMMAND_REPLY_PANEL,
  ZOT_COMMAND_REPLY_TOOL_PROMPT,
  ZOT_COMMAND_REPLY_ERROR,
} ZotCommandReplyKind;

typedef struct _ZotCommandReply ZotCommandReply;

#define ZOT_TYPE_COMMAND_REPLY (zot_command_reply_get_type ())

GType                zot_command_reply_get_type      (void) G_GNUC_CONST;
ZotCommandReply     *zot_command_reply_ref           (ZotCommandReply *self);
void                 zot_command_reply_unref         (ZotCommandReply *self);

ZotCommandReplyKind  zot_command_reply_get_kind      (ZotCommandReply *self);
ZotExtension        *zot_command_reply_get_extension (ZotCommandReply *self);
const char          *zot_command_reply_get_command   (ZotCommandReply *self);
const char          *zot_command_reply_get_text      (ZotCommandReply *self);
ZotPanel            *zot_command_reply_get_panel     (ZotCommandReply *self);
const char          *zot_command_reply_get_tool_name (ZotCommandReply *self);
JsonObject          *zot_command_reply_get_tool_args (ZotCommandReply *self);
const GError        *zot_command_reply_get_error     (ZotCommandReply *self);

gboolean             zot_command_reply_check_frame   (JsonObject      *frame,
                                                      const char      *command,
                                                      GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotCommandReply, zot_command_reply_unref)

G_END_DECLS
