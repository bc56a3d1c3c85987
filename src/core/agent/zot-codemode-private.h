/* zot-codemode-private.h — one script's state, shared by the codemode
 * tool's files: the tool (zot-codemode-tool.c) and what a script shows
 * the model (zot-codemode-output.c). */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-agent.h"
#include "zot-codemode-runtime.h"
#include "zot-codemode-tool.h"
#include "zot-tool-invocation.h"
#include "zot-tool-registry.h"

G_BEGIN_DECLS

typedef struct
{
  gatomicrefcount     ref_count;
  ZotCodemodeTool    *tool;
  GTask              *task;
  ZotAgent           *agent;
  ZotToolRegistry    *registry;
  ZotToolInvocation  *invocation;
  GCancellable       *calls;         /* the script's tool calls end with it */
  ZotCodemodeRuntime *runtime;
  char               *code;
  guint               timeout_ms;
  gsize               output_max;
  gint64              started;
  GString            *head;
  GString            *tail;
  gsize               output_total;
  GString            *spill;         /* all the output, up to its cap */
  gboolean            spill_cut;     /* past that cap */
  gboolean            ok;            /* set as the script ends */
  char               *summary;       /* "Script completed in …" */
  JsonArray          *images;
  guint               dropped_images;
  guint               n_calls;
  guint               in_flight;
  GSource            *deadline;
  GSource            *cancel_source;
  gint64              due;
  gint64              remaining;
  guint               hold_id;
  gboolean            finished;
} ZotCodemodeScript;

void   zot_codemode_script_append_output (ZotCodemodeScript *script,
                                          const char        *text,
                                          gsize              length);
typedef void (*ZotCodemodeSpilled) (ZotCodemodeScript *script,
                                    const char        *path);

char  *zot_codemode_script_result_text   (ZotCodemodeScript *script,
                                          const char        *spill_path);
void   zot_codemode_script_spill         (ZotCodemodeScript *script,
                                          ZotCodemodeSpilled done);
void   zot_codemode_script_add_image     (ZotCodemodeScript *script,
                                          JsonObject        *frame);
char  *zot_codemode_check_image          (const char        *mime_type,
                                          const char        *data);

G_END_DECLS
