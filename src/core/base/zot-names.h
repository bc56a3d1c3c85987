/* zot-names.h — what a name from an extension may look like.
 *
 * Names reach providers (tools), terminals and file names (extensions):
 * each kind is checked once, where it is registered or read.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean zot_name_is_tool_name      (const char *name);
gboolean zot_name_is_command_name   (const char *name);
gboolean zot_name_is_extension_name (const char *name);
gboolean zot_name_is_existing_directory (const char *name);
gboolean zot_text_has_hidden_chars  (const char *text);
char    *zot_name_excerpt           (const char *name);
char    *zot_text_for_terminal      (const char *text,
                                     gssize      length);
gboolean zot_split_slash_command    (const char *text,
                                     char      **name,
                                     char      **args);

G_END_DECLS
