/* zot-tool.h — one tool the model (or an extension) can call.
 *
 * Built-in tools and extension tools derive from ZotTool. execute_async
 * always completes with a ZotToolResult, failures included (is_error and a
 * typed outcome); only a cancellation completes with G_IO_ERROR_CANCELLED.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ZotToolExposure:
 * @ZOT_TOOL_EXPOSURE_DIRECT: a direct definition to the model, also callable from scripts
 * @ZOT_TOOL_EXPOSURE_CODEMODE: callable from scripts and discoverable, no direct definition
 * @ZOT_TOOL_EXPOSURE_DEFERRED: discoverable, defined to the model once activated
 * @ZOT_TOOL_EXPOSURE_MODEL_ONLY: a direct definition, never callable from scripts
 */
typedef enum
{
  ZOT_TOOL_EXPOSURE_DIRECT,
  ZOT_TOOL_EXPOSURE_CODEMODE,
  ZOT_TOOL_EXPOSURE_DEFERRED,
  ZOT_TOOL_EXPOSURE_MODEL_ONLY,
} ZotToolExposure;

/**
 * ZotToolOutcome:
 * @ZOT_TOOL_OUTCOME_COMPLETED: ran and succeeded
 * @ZOT_TOOL_OUTCOME_FAILED: unknown tool, crash, or a plain error result
 * @ZOT_TOOL_OUTCOME_BLOCKED: refused by a guard, an interceptor or a policy
 * @ZOT_TOOL_OUTCOME_CANCELLED: cancelled by the user or the run
 * @ZOT_TOOL_OUTCOME_TIMED_OUT: passed its deadline
 *
 * Classified from how execution ended, never from the text of a result.
 */
typedef enum
{
  ZOT_TOOL_OUTCOME_COMPLETED,
  ZOT_TOOL_OUTCOME_FAILED,
  ZOT_TOOL_OUTCOME_BLOCKED,
  ZOT_TOOL_OUTCOME_CANCELLED,
  ZOT_TOOL_OUTCOME_TIMED_OUT,
} ZotToolOutcome;

const char *zot_tool_outcome_to_string (ZotToolOutcome outcome);

/**
 * ZotToolReplay:
 * @ZOT_TOOL_REPLAY_NEVER: a call the host stopped in the middle of is
 *   answered as interrupted, never run again (the default)
 * @ZOT_TOOL_REPLAY_SAFE: read-only: run again, after a fresh approval
 * @ZOT_TOOL_REPLAY_IDEMPOTENT: run again with the same operation_key,
 *   which the tool honours
 * @ZOT_TOOL_REPLAY_RECONCILE: ask the tool, with `reconcile: true` and
 *   the operation_key, whether the call ran; run again only when it
 *   answers that it never started
 *
 * What a continuous conversation does with a call it finds unfinished
 * when it is resumed (PROTOCOL.md §5).
 */
typedef enum
{
  ZOT_TOOL_REPLAY_NEVER,
  ZOT_TOOL_REPLAY_SAFE,
  ZOT_TOOL_REPLAY_IDEMPOTENT,
  ZOT_TOOL_REPLAY_RECONCILE,
} ZotToolReplay;

/**
 * ZotToolResult:
 * @content: text and image blocks (zot-message.h shape)
 * @structured_content: (nullable): JSON for scripts, when the tool declares an output schema
 * @is_error: whether the model should read this as a failure
 * @outcome: how execution ended
 * @activate_tools: (nullable): deferred tools the result asks to make
 *   visible to the model for the rest of the conversation (an extension's
 *   `activate_tools`, PROTOCOL.md §5a)
 */
typedef struct
{
  JsonArray      *content;
  JsonNode       *structured_content;
  gboolean        is_error;
  ZotToolOutcome  outcome;
  GStrv           activate_tools;
} ZotToolResult;

#define ZOT_TYPE_TOOL_RESULT (zot_tool_result_get_type ())
GType          zot_tool_result_get_type  (void) G_GNUC_CONST;
ZotToolResult *zot_tool_result_new       (JsonArray      *content,
                                          gboolean        is_error,
                                          ZotToolOutcome  outcome);
ZotToolResult *zot_tool_result_new_text  (const char     *text,
                                          gboolean        is_error,
                                          ZotToolOutcome  outcome);
ZotToolResult *zot_tool_result_new_error (ZotToolOutcome  outcome,
                                          const char     *format,
                                          ...) G_GNUC_PRINTF (2, 3);
ZotToolResult *zot_tool_result_copy      (const ZotToolResult *result);
void           zot_tool_result_free      (ZotToolResult  *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotToolResult, zot_tool_result_free)

/**
 * ZotToolContext:
 * @cwd: the working directory of the run; relative paths resolve against it
 * @call_id: the transcript's id for this call
 * @interactive: the call may wait for the user as long as it takes: the host
 *   has a window and nobody else set a deadline (a call an extension asked
 *   for keeps its own)
 * @invocation: (nullable): the call as the calls it asks for see it
 *   (zot-tool-invocation.h)
 * @operation_key: (nullable): for an idempotent tool in a continuous
 *   conversation, the key that stays the same when the call is replayed
 *
 * Valid for the duration of execute_async; copy or reference what you keep.
 */
typedef struct _ZotToolInvocation ZotToolInvocation;

/**
 * ZotToolProgress:
 *
 * Where a running call reports progress lines (RPC's `tool_progress`).
 * Reference-counted, so a tool can keep it past execute_async; once the
 * call's owner closes it, reports go nowhere.
 */
typedef struct _ZotToolProgress ZotToolProgress;
typedef void (*ZotToolProgressFunc) (const char *text,
                                     gpointer    user_data);

ZotToolProgress *zot_tool_progress_new    (ZotToolProgressFunc  func,
                                           gpointer             user_data);
ZotToolProgress *zot_tool_progress_ref    (ZotToolProgress     *progress);
void             zot_tool_progress_unref  (ZotToolProgress     *progress);
void             zot_tool_progress_close  (ZotToolProgress     *progress);
void             zot_tool_progress_report (ZotToolProgress     *progress,
                                           const char          *text,
                                           gssize               length);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotToolProgress, zot_tool_progress_unref)

/**
 * ZotToolContext:
 * @progress: (nullable): where to report progress lines while the call
 *   runs; zot_tool_progress_ref() it to keep it
 */
typedef struct
{
  const char        *cwd;
  const char        *call_id;
  gboolean           interactive;
  ZotToolInvocation *invocation;
  const char        *operation_key;
  ZotToolProgress   *progress;
} ZotToolContext;

#define ZOT_TYPE_TOOL (zot_tool_get_type ())
G_DECLARE_DERIVABLE_TYPE (ZotTool, zot_tool, ZOT, TOOL, GObject)

struct _ZotToolClass
{
  GObjectClass parent_class;

  void           (*execute_async)  (ZotTool               *self,
                                    JsonObject            *args,
                                    const ZotToolContext  *context,
                                    GCancellable          *cancellable,
                                    GAsyncReadyCallback    callback,
                                    gpointer               user_data);
  ZotToolResult *(*execute_finish) (ZotTool               *self,
                                    GAsyncResult          *result,
                                    GError               **error);

  /*< private >*/
  gpointer padding[8];
};

const char      *zot_tool_get_name          (ZotTool               *self);
const char      *zot_tool_get_description   (ZotTool               *self);
JsonObject      *zot_tool_get_schema        (ZotTool               *self);
ZotToolExposure  zot_tool_get_exposure      (ZotTool               *self);
gboolean         zot_tool_get_interactive   (ZotTool               *self);
gboolean         zot_tool_get_concurrent    (ZotTool               *self);
const char      *zot_tool_get_origin        (ZotTool               *self);
const char      *zot_tool_get_namespace     (ZotTool               *self);
const char      *zot_tool_get_namespace_description  (ZotTool      *self);
const char      *zot_tool_get_namespace_instructions (ZotTool      *self);
JsonObject      *zot_tool_get_output_schema (ZotTool               *self);
gboolean         zot_tool_get_requires_approval (ZotTool           *self);
ZotToolReplay    zot_tool_get_replay        (ZotTool               *self);
gboolean         zot_tool_is_script_callable (ZotTool              *self);
JsonObject      *zot_tool_to_definition     (ZotTool               *self);
void             zot_tool_execute_async     (ZotTool               *self,
                                             JsonObject            *args,
                                             const ZotToolContext  *context,
                                             GCancellable          *cancellable,
                                             GAsyncReadyCallback    callback,
                                             gpointer               user_data);
ZotToolResult   *zot_tool_execute_finish    (ZotTool               *self,
                                             GAsyncResult          *result,
                                             GError               **error);

/* Helpers for implementations and their callers */
char            *zot_tool_resolve_path      (const ZotToolContext  *context,
                                             const char            *path);
const char      *zot_tool_args_get_string   (JsonObject            *args,
                                             const char            *member);

G_END_DECLS
