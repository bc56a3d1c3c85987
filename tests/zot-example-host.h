/* zot-example-host.h — running an example extension under the host for a
 * test: headless with the demo model, or interactive as the window runs
 * it; its tools called by the demo model, its commands and panels. Shared
 * by test-examples-sdk.c and test-examples-go.c. */
#pragma once

#include "zot-command-reply.h"
#include "zot-host.h"
#include "zot-panel.h"
#include "zot-panel-widgets.h"
#include "zot-test-util.h"

G_BEGIN_DECLS

/* What notes.md in the host's working directory holds. */
#define ZOT_EXAMPLE_NOTES_TEXT "one two three\nfour five\n\nsix\n"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *events;         /* every lifecycle event frame */
  GPtrArray  *notes;          /* "level: message" of every note */
  guint       panel_updates;
  gboolean    codemode;       /* set before zot_example_start() */
} ZotExampleHost;

void              zot_example_setup          (ZotExampleHost *f);
void              zot_example_teardown       (ZotExampleHost *f);

/* The example folder @name of the source tree. */
char             *zot_example_source         (const char     *name);
/* A copy of it under the test's root, so that its state stays out of the tree. */
char             *zot_example_copy           (ZotExampleHost *f,
                                              const char     *name);
/* Skips the test, saying @why, without @program on $PATH. */
gboolean          zot_example_missing        (const char     *program);

/* A host with the demo model and the extension in @dir, which must be
 * ready; @interactive like the window. */
void              zot_example_start          (ZotExampleHost *f,
                                              const char     *dir,
                                              const char     *name,
                                              gboolean        interactive);
/* The demo model calls @tool with @args; the lifecycle tool_result. */
JsonObject       *zot_example_model_calls    (ZotExampleHost *f,
                                              const char     *tool,
                                              const char     *args);
/* The result must be @text, or an error containing @text when @is_error. */
void              zot_example_expect_result  (ZotExampleHost *f,
                                              const char     *tool,
                                              const char     *args,
                                              gboolean        is_error,
                                              const char     *text);
/* /@name @args, which must answer with @kind and no error. */
ZotCommandReply  *zot_example_command        (ZotExampleHost *f,
                                              const char     *name,
                                              const char     *args,
                                              ZotCommandReplyKind kind);
void              zot_example_command_fails  (ZotExampleHost *f,
                                              const char     *name,
                                              const char     *args,
                                              const char     *part);
/* Runs /@id in an interactive host: it must open panel @id, the only one,
 * of widgets without an error. */
ZotPanel         *zot_example_open_panel     (ZotExampleHost *f,
                                              const char     *id);
/* Sends @event of @widget_id (@value_json, or no value) and waits for the
 * panel's next render. */
void              zot_example_panel_event    (ZotExampleHost *f,
                                              ZotPanel       *panel,
                                              const char     *widget_id,
                                              const char     *event,
                                              const char     *value_json);
ZotPanelNode     *zot_example_widget         (ZotPanel       *panel,
                                              const char     *id);
const char       *zot_example_row_title      (ZotPanel       *panel,
                                              guint           i);
/* `zot ext check @dir` must pass without a failure or violation. */
void              zot_example_ext_check      (const char     *dir);

G_END_DECLS
