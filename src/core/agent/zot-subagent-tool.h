/* zot-subagent-tool.h — subagent, the swarm: a child agent as a tool.
 *
 * A call runs `task` in a child ZotAgent and answers with the child's
 * final text plus a line "agent_id: ID". Passing that id back as
 * `agent_id` resumes the child: the same conversation, a new run. Every
 * child lives, with its in-memory session, in a table of the tool for the
 * lifetime of the process.
 *
 * A child has its own provider (made from the tool's configuration
 * template), a registry holding the parent's allowed tools except
 * "subagent" itself (taken again at each run, so extension tools that
 * came or went are seen; tool_search there searches the child's
 * registry), no extension manager, no confirmations (interactive FALSE),
 * and ZOT_SUBAGENT_MAX_STEPS steps per run. Its own events are not
 * emitted; the parent emits, through its manager (PROTOCOL.md §6):
 *
 *   subagent_start  {agent_id, agent_run_id, name}   before the child runs
 *   subagent_stop   {…, status, error?}              when the run returns
 *
 * `name` is the agent id (the page's "currently"); `agent_run_id` is fresh
 * per run; both events carry the `session_id` the parent had at the start,
 * so a stop still names the task's conversation after a switch. Status is
 * "completed", "failed", "cancelled" or "timed_out". A call that starts no
 * run (no task, an unknown or busy agent_id) emits nothing.
 *
 * Cancelling the call aborts the child (zot_agent_abort()); the call then
 * completes with G_IO_ERROR_CANCELLED once the child's run has returned,
 * never before. A failed child gives an error result (outcome FAILED)
 * with its message. Calls of one batch run side by side (concurrent);
 * one child runs one task at a time, so resuming a child that is still
 * running is an error result.
 *
 * zot_subagent_tool_wait_async() lets the host wait, at shutdown, until
 * no child runs, or a timeout passes.
 */
#pragma once

#include "zot-agent.h"
#include "zot-extension-manager.h"
#include "zot-provider.h"
#include "zot-tool-registry.h"

G_BEGIN_DECLS

#define ZOT_SUBAGENT_TOOL_NAME  "subagent"
#define ZOT_SUBAGENT_MAX_STEPS  20

#define ZOT_TYPE_SUBAGENT_TOOL (zot_subagent_tool_get_type ())
G_DECLARE_FINAL_TYPE (ZotSubagentTool, zot_subagent_tool, ZOT, SUBAGENT_TOOL, ZotTool)

ZotTool  *zot_subagent_tool_new          (const ZotProviderConfig  *config_template,
                                          ZotToolRegistry          *registry,
                                          ZotExtensionManager      *manager,
                                          const char               *cwd);
guint     zot_subagent_tool_get_n_running (ZotTool                 *tool);
ZotAgent *zot_subagent_tool_lookup_agent (ZotTool                  *tool,
                                          const char               *agent_id);
void      zot_subagent_tool_wait_async   (ZotTool                  *tool,
                                          guint                     timeout_ms,
                                          GCancellable             *cancellable,
                                          GAsyncReadyCallback       callback,
                                          gpointer                  user_data);
gboolean  zot_subagent_tool_wait_finish  (ZotTool                  *tool,
                                          GAsyncResult             *result,
                                          GError                  **error);

G_END_DECLS
