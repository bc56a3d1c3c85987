/* zot-box.h — the one bubblewrap box extensions and codemode scripts run
 * in: its command line, and what the processes in it use. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _ZotBox ZotBox;

typedef enum
{
  ZOT_BOX_NETWORK = 1 << 0,  /* share the host's network namespace */
  ZOT_BOX_DEVICES = 1 << 1,  /* the host's /dev instead of a minimal one */
  ZOT_BOX_HOST    = 1 << 2,  /* the whole filesystem, read-write */
  ZOT_BOX_PID_1   = 1 << 3,  /* the command is the box's pid 1 */
} ZotBoxFlags;

ZotBox   *zot_box_new           (ZotBoxFlags         flags);
void      zot_box_free          (ZotBox             *self);
void      zot_box_bind          (ZotBox             *self,
                                 const char         *path,
                                 gboolean            writable);
void      zot_box_bind_try      (ZotBox             *self,
                                 const char         *path);
void      zot_box_setenv        (ZotBox             *self,
                                 const char         *name,
                                 const char         *value);
void      zot_box_add_args      (ZotBox             *self,
                                 ...) G_GNUC_NULL_TERMINATED;
GStrv     zot_box_build_argv    (ZotBox             *self,
                                 const char         *bwrap,
                                 const char         *chdir,
                                 const char * const *command);
GStrv     zot_box_build_argv_env_fd (ZotBox              *self,
                                     const char          *bwrap,
                                     const char          *chdir,
                                     const char * const  *command,
                                     int                  target_fd,
                                     int                 *env_fd,
                                     GError             **error);

/* bwrap on the PATH (or the test's override); NULL with a one-line
 * error naming the fix when it is missing. */
char     *zot_box_find_bwrap    (const char         *what,
                                 GError            **error);
void      _zot_box_set_bwrap_for_testing (const char *path);

char     *zot_box_cgroup_new        (const char *name,
                                     guint64     memory_max,
                                     guint       pids_max);
guint64   zot_box_cgroup_read_event (const char *dir,
                                     const char *file,
                                     const char *key);
void      _zot_box_set_cgroup_paths_for_testing (const char *self_cgroup,
                                                 const char *root);

typedef struct
{
  gsize resident;   /* bytes, all of the box's processes together */
  guint processes;  /* counted up to the limit given, and one more */
} ZotBoxUsage;

gboolean  zot_box_measure       (GPid                first,
                                 guint               max_processes,
                                 ZotBoxUsage        *usage);
GPid      zot_box_first_process (GPid                bwrap);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotBox, zot_box_free)

G_END_DECLS
