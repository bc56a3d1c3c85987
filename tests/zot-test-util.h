#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-extension-manager.h"
#include "zot-limits-private.h"

G_BEGIN_DECLS

/* A fresh $ZOT_HOME and working directory per test, removed afterwards. */
typedef struct
{
  char *home;
  char *cwd;
  char *root;
} ZotTestEnv;

void        zot_test_env_setup        (ZotTestEnv         *env);
void        zot_test_env_teardown     (ZotTestEnv         *env);

/* Writes DIR/extension.json running the fake extension with ARGS, and
 * returns DIR (under @parent). */
char       *zot_test_make_fake        (const char         *parent,
                                       const char         *name,
                                       const char * const *args);
char       *zot_test_make_fake_args   (const char         *parent,
                                       const char         *name,
                                       ...) G_GNUC_NULL_TERMINATED;
char       *zot_test_make_manifest    (const char         *parent,
                                       const char         *dirname,
                                       const char         *json);
char       *zot_test_fixture_dir      (const char         *name);

/* Iterates the default main context until *flag is TRUE, failing the test
 * if @timeout_ms passes first. The deadline is a safety net, never the
 * thing a test waits for. */
void        zot_test_wait_for         (gboolean           *flag,
                                       guint               timeout_ms);
void        zot_test_wait_until       (gboolean          (*check) (gpointer),
                                       gpointer            data,
                                       guint               timeout_ms);

/* Loads a manager with @paths as explicit extensions and waits. */
ZotExtensionManager *zot_test_load_manager (ZotTestEnv         *env,
                                            const char * const *paths);
void        zot_test_shutdown_manager (ZotExtensionManager *manager);

/* Runs a command to completion; returns FALSE with @error on failure. */
gboolean    zot_test_run_command      (ZotExtensionManager *manager,
                                       const char          *name,
                                       const char          *args,
                                       GError             **error);

char       *zot_test_read_file        (const char         *path);
GPtrArray  *zot_test_read_frames      (const char         *path);
JsonObject *zot_test_find_frame       (GPtrArray          *frames,
                                       const char         *type);

G_END_DECLS
