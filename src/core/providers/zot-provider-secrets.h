/* zot-provider-secrets.h — provider keys taken out of what other
 * processes can read.
 *
 * A key in the environment or on the command line shows in
 * /proc/PID/environ and /proc/PID/cmdline, which every process of the
 * same user (a tool's shell, an extension) can read. The program's first
 * act copies them into memory and blanks them there.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean    zot_provider_capture_secrets     (int           argc,
                                              char        **argv,
                                              char       ***args,
                                              GError      **error);
const char *zot_provider_get_environment_key (const char   *variable);
char       *zot_provider_read_key_file       (const char   *path,
                                              GError      **error);

G_END_DECLS
