/* zot-tool-invocation.h — a tool call while it runs, as the calls it
 * makes see it; and who runs those calls.
 *
 * An extension's tool may ask the host to call other tools, naming its own
 * call as the parent (PROTOCOL.md §5, call_tool). What such a child needs
 * from its parent is a ZotToolInvocation: the lifecycle id its own is
 * built from (`<parent tool_id>/<n>`), the chain of tool names above it
 * (at most four calls, no name twice), the parent's cancellation, the
 * runner that resolves and runs calls for the parent's agent, and a way to
 * hold the parent's deadlines while a child waits for the user.
 *
 * Main thread only.
 */
#pragma once

#include "zot-tool.h"

G_BEGIN_DECLS

/**
 * ZotToolRequest:
 * @name: the tool to call
 * @args: its arguments
 * @origin_extension: the extension that asked
 * @parent: (nullable): the running call it asked from
 * @task_id: (nullable): in a continuous conversation, the durable identity
 *   of the call: its parent's task id, "/", then "k=" and its key or "n="
 *   and its ordinal among the parent's calls
 * @script: a codemode script asked (@origin_extension is then "codemode")
 * @depth: the length of the chain with this call, when it is longer than
 *   @parent's plus one (the request may come from below @parent); 0 for that
 *
 * A call an extension or a script asked for. Valid for the duration of call_async.
 */
typedef struct
{
  const char        *name;
  JsonObject        *args;
  const char        *origin_extension;
  ZotToolInvocation *parent;
  const char        *task_id;
  gboolean           script;
  guint              depth;
} ZotToolRequest;

#define ZOT_TYPE_TOOL_RUNNER (zot_tool_runner_get_type ())
G_DECLARE_INTERFACE (ZotToolRunner, zot_tool_runner, ZOT, TOOL_RUNNER, GObject)

/**
 * ZotToolRunnerInterface:
 * @call_async: resolves the request's tool and runs it the way a model
 *   call runs: interception, approval, execution, lifecycle events
 * @call_finish: always a result, failures, refusals, deadline and
 *   cancellation included
 */
struct _ZotToolRunnerInterface
{
  GTypeInterface parent_iface;

  void           (*call_async)  (ZotToolRunner         *self,
                                 const ZotToolRequest  *request,
                                 GCancellable          *cancellable,
                                 GAsyncReadyCallback    callback,
                                 gpointer               user_data);
  ZotToolResult *(*call_finish) (ZotToolRunner         *self,
                                 GAsyncResult          *result);
};

void           zot_tool_runner_call_async  (ZotToolRunner        *self,
                                            const ZotToolRequest *request,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
ZotToolResult *zot_tool_runner_call_finish (ZotToolRunner        *self,
                                            GAsyncResult         *result);

/* Told when the invocation's deadlines must stop (@held) or go on. */
typedef void (*ZotToolInvocationHoldFunc) (gboolean held,
                                           gpointer user_data);

#define ZOT_TYPE_TOOL_INVOCATION (zot_tool_invocation_get_type ())
GType               zot_tool_invocation_get_type          (void) G_GNUC_CONST;
ZotToolInvocation  *zot_tool_invocation_new               (ZotToolInvocation  *parent,
                                                           const char         *tool_id,
                                                           const char         *name,
                                                           GCancellable       *cancellable,
                                                           ZotToolRunner      *runner);
ZotToolInvocation  *zot_tool_invocation_ref               (ZotToolInvocation  *self);
void                zot_tool_invocation_unref             (ZotToolInvocation  *self);
const char         *zot_tool_invocation_get_tool_id       (ZotToolInvocation  *self);
const char         *zot_tool_invocation_get_name          (ZotToolInvocation  *self);
ZotToolInvocation  *zot_tool_invocation_get_parent        (ZotToolInvocation  *self);
guint               zot_tool_invocation_get_depth         (ZotToolInvocation  *self);
void                zot_tool_invocation_raise_depth       (ZotToolInvocation  *self,
                                                           guint               depth);
GCancellable       *zot_tool_invocation_get_cancellable   (ZotToolInvocation  *self);
ZotToolRunner      *zot_tool_invocation_dup_runner        (ZotToolInvocation  *self);
gboolean            zot_tool_invocation_chain_has         (ZotToolInvocation  *self,
                                                           const char         *name);
char               *zot_tool_invocation_next_child_id     (ZotToolInvocation  *self);
const char         *zot_tool_invocation_get_task_id       (ZotToolInvocation  *self);
void                zot_tool_invocation_set_task_id       (ZotToolInvocation  *self,
                                                           const char         *task_id);
guint               zot_tool_invocation_next_ordinal      (ZotToolInvocation  *self);
void                zot_tool_invocation_hold              (ZotToolInvocation  *self);
void                zot_tool_invocation_release           (ZotToolInvocation  *self);
gboolean            zot_tool_invocation_is_held           (ZotToolInvocation  *self);
guint               zot_tool_invocation_add_hold_func     (ZotToolInvocation  *self,
                                                           ZotToolInvocationHoldFunc func,
                                                           gpointer            user_data);
void                zot_tool_invocation_remove_hold_func  (ZotToolInvocation  *self,
                                                           guint               id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotToolInvocation, zot_tool_invocation_unref)

G_END_DECLS
