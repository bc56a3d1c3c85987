#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean     zot_flatpak_is_sandboxed               (void);

GStrv        zot_flatpak_build_host_argv            (GSubprocessLauncher *launcher,
                                                     const char          *cwd,
                                                     const char * const  *env_names,
                                                     const char * const  *argv);
GSubprocess *zot_flatpak_spawnv                     (GSubprocessLauncher *launcher,
                                                     const char          *cwd,
                                                     const char * const  *env_names,
                                                     const char * const  *argv,
                                                     GError             **error);
void         zot_flatpak_take_fd                    (GSubprocessLauncher *launcher,
                                                     int                  source_fd,
                                                     int                  target_fd);
void         zot_flatpak_kill                       (GSubprocess         *subprocess,
                                                     GPid                 group);
int          zot_flatpak_get_host_term_sig          (GSubprocess         *subprocess);

/* Tests point the sandbox marker at a file of their own. NULL restores
 * the real one. */
void         _zot_flatpak_set_info_path_for_testing (const char          *path);

G_END_DECLS
