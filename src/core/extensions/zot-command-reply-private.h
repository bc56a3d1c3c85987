#pragma once

#include "zot-command-reply.h"

G_BEGIN_DECLS

/* Filled in by the manager as it applies a reply; read-only afterwards. */
struct _ZotCommandReply
{
  ZotCommandReplyKind  kind;
  ZotExtension        *extension;
  char                *command;
  char                *text;
  ZotPanel            *panel;
  char                *tool_name;
  JsonObject          *tool_args;
  GError              *error;
};

ZotCommandReply *_zot_command_reply_new (ZotExtension *extension,
                                         const char   *command);

G_END_DECLS
