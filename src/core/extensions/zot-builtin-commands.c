/* zot-builtin-commands.c — the slash commands zot itself answers. */
#include "config.h"

#include <glib/gi18n.h>

#include "zot-builtin-commands.h"

/* In the order /help lists them. */
static const ZotBuiltinCommand builtin_commands[] = {
  { ZOT_BUILTIN_NEW,        "new",        N_("Start a new conversation"),
    NULL,              "win.new-conversation" },
  { ZOT_BUILTIN_CLEAR,      "clear",      N_("Clear the conversation and the extension messages"),
    NULL,              NULL },
  { ZOT_BUILTIN_COMPACT,    "compact",    N_("Summarise the conversation to save context"),
    NULL,              NULL },
  { ZOT_BUILTIN_MODEL,      "model",      N_("Show or change the model: /model NAME"),
    NULL,              NULL },
  { ZOT_BUILTIN_SETTINGS,   "settings",   N_("Open the preferences"),
    "win.preferences", "win.preferences" },
  { ZOT_BUILTIN_RELOAD_EXT, "reload-ext", N_("Stop and reload every extension"),
    NULL,              NULL },
  { ZOT_BUILTIN_RESTART_EXT, "restart-ext", N_("Restart one extension: /restart-ext NAME"),
    NULL,              NULL },
  { ZOT_BUILTIN_YOLO,       "yolo",       N_("Toggle approving every tool call without asking"),
    "win.yolo",        NULL },
  { ZOT_BUILTIN_HELP,       "help",       N_("List the commands"),
    NULL,              NULL },
  { ZOT_BUILTIN_QUIT,       "quit",       N_("Quit zot"),
    "window.close",    NULL },
};

G_STATIC_ASSERT (G_N_ELEMENTS (builtin_commands) == ZOT_BUILTIN_N_COMMANDS);

/**
 * zot_builtin_commands_get:
 * @n_commands: (out): where to put the number of commands
 *
 * Returns: (array length=n_commands): every built-in command, in the
 *   order /help lists them; entry `i` has the id `i`
 */
const ZotBuiltinCommand *
zot_builtin_commands_get (guint *n_commands)
{
  g_return_val_if_fail (n_commands != NULL, NULL);

  *n_commands = G_N_ELEMENTS (builtin_commands);
  return builtin_commands;
}

/**
 * zot_builtin_command_lookup:
 * @name: a command's name, in any case, with or without its "/"
 *
 * Returns: (nullable): the built-in command @name, or %NULL when @name
 *   is none
 */
const ZotBuiltinCommand *
zot_builtin_command_lookup (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  while (*name == '/')
    name++;

  for (guint i = 0; i < G_N_ELEMENTS (builtin_commands); i++)
    if (g_ascii_strcasecmp (builtin_commands[i].name, name) == 0)
      return &builtin_commands[i];

  return NULL;
}
