/* zot-builtin-commands.h — the slash commands zot itself answers.
 *
 * One table, read by everything that names them: the manager (built-ins
 * win over extensions' commands), /help and slash completion (through
 * zot_extension_manager_list_commands()), the host (which runs them, by
 * id) and the window's shortcuts window (which shows each command beside
 * the shortcut that does the same).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  ZOT_BUILTIN_NEW,
  ZOT_BUILTIN_CLEAR,
  ZOT_BUILTIN_COMPACT,
  ZOT_BUILTIN_MODEL,
  ZOT_BUILTIN_SETTINGS,
  ZOT_BUILTIN_RELOAD_EXT,
  ZOT_BUILTIN_RESTART_EXT,
  ZOT_BUILTIN_YOLO,
  ZOT_BUILTIN_HELP,
  ZOT_BUILTIN_QUIT,
  ZOT_BUILTIN_N_COMMANDS
} ZotBuiltinId;

typedef struct
{
  ZotBuiltinId  id;
  const char   *name;
  /* Untranslated; show it through _(). */
  const char   *description;
  /* The window's action that runs the command when the host cannot run
   * it itself (it is about the window), or %NULL. */
  const char   *action;
  /* The window's action with the same effect, whose keyboard shortcut
   * the shortcuts window shows beside the command, or %NULL. */
  const char   *shortcut_action;
} ZotBuiltinCommand;

const ZotBuiltinCommand *zot_builtin_commands_get   (guint      *n_commands);
const ZotBuiltinCommand *zot_builtin_command_lookup (const char *name);

G_END_DECLS
