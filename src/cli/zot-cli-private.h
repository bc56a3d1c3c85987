#pragma once

#include <glib.h>
#include <stdio.h>

#include "zot-host.h"
#include "zot-manifest.h"

G_BEGIN_DECLS

/* Each takes argv starting at the subcommand ("ext", "update") and returns
 * the process exit status: 0 ok, 1 failed, 2 usage error. */
int zot_cli_ext_main    (int    argc,
                         char **argv);
int zot_cli_update_main (int    argc,
                         char **argv);
/* `zot models` (zot-cli-models.c); argv starts at "models". */
int zot_cli_models_main (int    argc,
                         char **argv);
/* `zot mcp` (zot-cli-mcp.c). */
int zot_cli_mcp_main    (int    argc,
                         char **argv);
/* `zot ext check` (zot-cli-ext-check.c); argv starts at "check". */
int zot_cli_ext_check_main (int    argc,
                            char **argv);
/* `zot ext stats` (zot-cli-ext-stats.c); argv starts at "stats". */
int zot_cli_ext_stats_main (int    argc,
                            char **argv);
/* `zot ext secret` (zot-cli-ext-secret.c); argv starts at "secret". */
int zot_cli_ext_secret_main (int    argc,
                             char **argv);

/* `zot ext new` (zot-cli-ext-new.c); argv starts at "new". */
int zot_cli_ext_new_main   (int    argc,
                            char **argv);

/* `zot ext trust` (zot-cli-ext-trust.c); argv starts at "trust". */
int zot_cli_ext_trust_main (int    argc,
                            char **argv);
/* `zot ext info` and `zot ext permissions` (zot-cli-ext-trust.c). */
int zot_cli_ext_permissions_main (int    argc,
                                  char **argv);

/* `zot ext install` asks before it installs (zot-cli-ext-consent.c). */
char     *zot_cli_ext_describe_permissions (ZotManifest  *manifest);
gboolean  zot_cli_ext_consent              (ZotManifest  *staged,
                                            gpointer      user_data,
                                            GError      **error);
gboolean  zot_cli_update_consent           (ZotManifest  *pulled,
                                           gpointer      user_data,
                                           GError      **error);
gboolean  zot_cli_ext_record_grant         (ZotManifest  *manifest,
                                            gboolean      project,
                                            GError      **error);

/* The `--json` event stream, shared with `zot rpc`. */
typedef struct _ZotCliEvents ZotCliEvents;

ZotCliEvents *zot_cli_events_new         (ZotHost      *host,
                                          FILE         *out);
void          zot_cli_events_free        (ZotCliEvents *events);
void          zot_cli_events_set_rpc     (ZotCliEvents *events,
                                          gboolean      rpc);
void          zot_cli_events_emit_error  (ZotCliEvents *events,
                                          const char   *message);
void          zot_cli_events_emit_simple (ZotCliEvents *events,
                                          const char   *type);
void          zot_cli_events_write       (ZotCliEvents *events,
                                          JsonObject   *object);
JsonObject   *zot_cli_message_to_wire    (JsonObject   *message);
JsonObject   *zot_cli_usage_totals       (const ZotUsage *usage);

/* g_print() and g_printerr() show controls instead of sending them. */
void          zot_cli_set_print_handlers (void);

/* Which folder of extensions `zot ext enable NAME` and the like act on. */
char         *zot_cli_ext_find_installed       (const char  *parent,
                                                const char  *name,
                                                GError     **error);
char         *zot_cli_ext_find_in_either_scope (const char  *name,
                                                const char  *project_parent,
                                                const char  *user_parent,
                                                GError     **error);

/* A main loop the `ext` commands wait on; SIGINT and SIGTERM cancel
 * (zot-cli-ext-build.c). */
typedef struct
{
  GMainLoop    *loop;
  GCancellable *cancellable;
  GAsyncResult *result;
} ZotCliAsyncWait;

void          zot_cli_async_wait_init    (ZotCliAsyncWait *wait);
void          zot_cli_async_wait_run     (ZotCliAsyncWait *wait);
void          zot_cli_async_wait_clear   (ZotCliAsyncWait *wait);
void          zot_cli_async_wait_done_cb (GObject         *object,
                                          GAsyncResult    *result,
                                          gpointer         user_data);

/* After `zot ext install` put @manifest's extension in place: where
 * --build's output went, or a warning when its program is missing. */
void          zot_cli_ext_install_build  (ZotManifest     *manifest,
                                          const char      *source,
                                          gboolean         build);
/* `zot ext list`'s BOX column and --json (zot-cli-ext-box.c). */
char         *zot_cli_ext_box_cell             (ZotManifest        *manifest);
void          zot_cli_ext_print_list_json      (const char * const *keys,
                                                GPtrArray          *found,
                                                GPtrArray          *rows,
                                                GPtrArray          *failures);

/* `zot rpc`: commands on stdin, responses and events on stdout. */
int           zot_cli_rpc_run            (ZotHost      *host);

G_END_DECLS
