/* zot-mcp-test-util.h — what the MCP bridge's tests share
 * (test-mcp.c, test-mcp-tools.c). */
#pragma once

#include "zot-example-host.h"
#include "zot-mcp-config.h"

G_BEGIN_DECLS

typedef ZotExampleHost Fixture;

/* Deadlines long enough for a loaded machine. */
void     fixture_setup    (Fixture            *f,
                           gconstpointer       data);
void     fixture_teardown (Fixture            *f,
                           gconstpointer       data);
char    *fake_server      (void);
void     write_file       (const char         *path,
                           const char         *text);
/* $ZOT_HOME/mcp.json with a fake server per mode. */
void     configure_fakes  (Fixture            *f,
                           const char * const *modes);
char    *bridge_dir       (void);
ZotTool *find_tool        (Fixture            *f,
                           const char         *name);
/* Tools come as the servers list them, after the bridge is ready. */
void     wait_for_tool    (Fixture            *f,
                           const char         *name);
void     wait_for_note    (Fixture            *f,
                           const char         *part);
void     start_bridge     (Fixture            *f);
/* node and a server of tests/node_modules, or %NULL and the test skipped. */
char    *real_server      (const char         *package,
                           char              **node);

/* /mcp (without a window: in words) until it says @part. */
void      wait_for_status (Fixture            *f,
                           const char         *part);
/* The row @id of the panel's list @list_id, or %NULL. */
ZotPanelRow *list_row     (ZotPanel           *panel,
                           const char         *list_id,
                           const char         *id);
/* The /mcp panel's row of server @name. */
ZotPanelRow *server_row   (ZotPanel           *panel,
                           const char         *name);
/* The panel's row for @name, once its subtitle holds @part. */
ZotPanelRow *wait_for_row (ZotPanel           *panel,
                           const char         *name,
                           const char         *part);
/* Other renders may come before the one an event causes: tests wait for
 * what it shows. Widget @id's text holds @part or its value is @part; or,
 * with @part %NULL, its active is @active. */
void         wait_for_widget   (ZotPanel     *panel,
                                const char   *id,
                                const char   *part,
                                int           active);
ZotPanelRow *wait_for_list_row (ZotPanel     *panel,
                                const char   *list_id,
                                const char   *id);
/* The id of @row's button @i, or %NULL. */
const char  *row_button   (ZotPanelRow        *row,
                           guint               i);
/* $ZOT_HOME/mcp.json with server-everything as "every" over stdio, or
 * %FALSE and the test skipped. */
gboolean     configure_everything (Fixture    *f);
/* The fake server copied into the project, which a box with the
 * project's rights can read. */
char        *project_script (Fixture  *f);
/* Whether bubblewrap can make its namespaces here. */
gboolean     bwrap_works  (void);
/* Keeps the GAsyncResult in the GAsyncResult * @user_data points to. */
void      keep_result_cb  (GObject            *object,
                           GAsyncResult       *result,
                           gpointer            user_data);
/* @tool called straight with @args_json: its structured content, which
 * must be there, of a result that is no error. */
JsonNode *tool_structured (Fixture            *f,
                           const char         *tool,
                           const char         *args_json);

G_END_DECLS
