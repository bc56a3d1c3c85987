#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *zot_paths_get_home           (void);
char *zot_paths_get_extensions_dir (void);
char *zot_paths_get_project_extensions_dir (const char *cwd);
char *zot_paths_get_logs_dir       (void);
char *zot_paths_get_log_file       (const char *extension_name);
char *zot_paths_get_state_file     (const char *extension_name);
char *zot_paths_canonicalize       (const char *path);

gboolean zot_fsync_directory           (const char  *dir);

gboolean zot_file_get_contents_bounded (const char  *path,
                                        gsize        max_bytes,
                                        char       **contents,
                                        gsize       *length,
                                        GError     **error);

G_END_DECLS
