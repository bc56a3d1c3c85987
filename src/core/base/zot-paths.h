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

/* How many folders deep zot_remove_tree() goes below the path it is given;
 * each level holds one open directory. */
#define ZOT_REMOVE_TREE_MAX_DEPTH 128

gboolean zot_remove_tree               (const char  *path,
                                        GError     **error);

G_END_DECLS
