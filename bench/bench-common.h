/* bench-common.h — what every benchmark program shares.
 *
 * A benchmark prints figures; it never fails on a number. Each one runs its
 * baselines in the same process run, so that a ratio compares two things
 * measured on the same machine at the same time.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-extension-manager.h"
#include "zot-tool.h"

G_BEGIN_DECLS

/**
 * BenchEnv:
 * @root: a temporary directory, removed by bench_env_clear()
 * @home: $ZOT_HOME, inside @root; extension logs go there
 * @echo_path: the bench-echo-extension binary
 */
typedef struct
{
  char *root;
  char *home;
  char *echo_path;
} BenchEnv;

void      bench_env_init          (BenchEnv            *env,
                                   const char          *program);
char     *bench_find_program      (const char          *program,
                                   const char          *variable,
                                   const char          *relative);
void      bench_env_clear         (BenchEnv            *env);
char     *bench_make_extension    (BenchEnv            *env,
                                   const char          *name,
                                   const char * const  *args);
ZotExtensionManager *bench_load_extensions (BenchEnv           *env,
                                            const char * const *dirs);
void      bench_stop_extensions   (ZotExtensionManager *manager);
ZotTool  *bench_find_tool         (ZotExtensionManager *manager,
                                   const char          *name);
void      bench_call_tool         (ZotTool             *tool,
                                   const char          *cwd,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);

double    bench_now               (void);
double    bench_cpu_seconds       (void);
double    bench_user_seconds      (void);
double    bench_median            (const double        *values,
                                   guint                n);
guint     bench_scaled            (guint                n,
                                   guint                multiple);
void      bench_wait_for          (gboolean            *flag,
                                   double               timeout_s,
                                   const char          *what);

gboolean  bench_write_full        (int                  fd,
                                   const void          *data,
                                   gsize                len);
gboolean  bench_read_full         (int                  fd,
                                   void                *data,
                                   gsize                len);

char     *bench_json_to_line      (JsonObject          *object,
                                   gsize               *length);

guint64   bench_rss_kib           (void);
guint     bench_open_fds          (void);

gboolean  bench_pin_to_cpu        (guint                cpu);

void      bench_print_header      (const char          *title,
                                   const char          *what);
const char *bench_verdict         (gboolean             met);

G_END_DECLS
