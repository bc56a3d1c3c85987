#pragma once

#include <gio/gio.h>

#include "zot-approval.h"
#include "zot-command-reply.h"
#include "zot-extension.h"
#include "zot-panel.h"

G_BEGIN_DECLS

/**
 * ZotCommandInfo:
 * @name: the canonical spelling, without the slash
 * @description: (nullable): what it does
 * @extension: (nullable): the extension that answers it, %NULL for a built-in
 */
typedef struct
{
  char         *name;
  char         *description;
  ZotExtension *extension;
} ZotCommandInfo;

void zot_command_info_free (ZotCommandInfo *info);

/**
 * ZotInterception:
 * @blocked: an interceptor blocked the operation
 * @reason: (nullable): why, for the model or the user
 * @blocked_by: (nullable): the extension that blocked
 * @payload: the event's members after every rewrite
 * @rewritten: an interceptor changed the payload
 */
typedef struct
{
  gboolean    blocked;
  char       *reason;
  char       *blocked_by;
  JsonObject *payload;
  gboolean    rewritten;
} ZotInterception;

void zot_interception_free (ZotInterception *interception);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotInterception, zot_interception_free)

/**
 * ZotDecision:
 * @approved: whether the call may run
 * @decision: "approved", "denied" or "cancelled"
 * @source: "user", "remembered", "policy" or "yolo"
 * @reason: (nullable): why, when denied
 */
typedef struct
{
  gboolean    approved;
  const char *decision;
  const char *source;
  char       *reason;
} ZotDecision;

void zot_decision_free (ZotDecision *decision);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotDecision, zot_decision_free)

#define ZOT_TYPE_EXTENSION_MANAGER (zot_extension_manager_get_type ())
G_DECLARE_FINAL_TYPE (ZotExtensionManager, zot_extension_manager, ZOT, EXTENSION_MANAGER, GObject)

ZotExtensionManager *zot_extension_manager_new                  (void);
void                 zot_extension_manager_set_cwd              (ZotExtensionManager  *self,
                                                                 const char           *cwd);
const char          *zot_extension_manager_get_cwd              (ZotExtensionManager  *self);
void                 zot_extension_manager_set_explicit_paths   (ZotExtensionManager  *self,
                                                                 const char * const   *paths);
void                 zot_extension_manager_set_no_ext           (ZotExtensionManager  *self,
                                                                 gboolean              no_ext);
void                 zot_extension_manager_set_model            (ZotExtensionManager  *self,
                                                                 const char           *provider,
                                                                 const char           *model);
void                 zot_extension_manager_set_interactive      (ZotExtensionManager  *self,
                                                                 gboolean              interactive);
gboolean             zot_extension_manager_get_interactive      (ZotExtensionManager  *self);

void                 zot_extension_manager_load_async           (ZotExtensionManager  *self,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_load_finish          (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_reload_async         (ZotExtensionManager  *self,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_reload_finish        (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_restart_async        (ZotExtensionManager  *self,
                                                                 ZotExtension         *extension,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_restart_finish       (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_shutdown_async       (ZotExtensionManager  *self,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
gboolean             zot_extension_manager_shutdown_finish      (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);

void                 zot_extension_manager_set_watched          (ZotExtensionManager  *self,
                                                                 ZotExtension         *extension,
                                                                 gboolean              watched);
gboolean             zot_extension_manager_get_watched          (ZotExtensionManager  *self,
                                                                 ZotExtension         *extension);
void                 zot_extension_manager_set_watch_explicit   (ZotExtensionManager  *self,
                                                                 gboolean              watch);
ZotExtension        *zot_extension_manager_find                 (ZotExtensionManager  *self,
                                                                 const char           *name);
GPtrArray           *zot_extension_manager_get_untrusted        (ZotExtensionManager  *self);
void                 zot_extension_manager_start_trusted        (ZotExtensionManager  *self);
const char          *zot_extension_manager_get_gave_up_note     (ZotExtensionManager  *self,
                                                                 ZotExtension         *extension);
GPtrArray           *zot_extension_manager_list_commands        (ZotExtensionManager  *self);
ZotExtension        *zot_extension_manager_lookup_command       (ZotExtensionManager  *self,
                                                                 const char           *name,
                                                                 const char          **canonical);
gboolean             zot_extension_manager_is_builtin_command   (const char           *name);
void                 zot_extension_manager_run_command_async    (ZotExtensionManager  *self,
                                                                 const char           *name,
                                                                 const char           *args,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
ZotCommandReply     *zot_extension_manager_run_command_finish   (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_set_trace_traffic    (ZotExtensionManager  *self,
                                                                 gboolean              trace);
void                 zot_extension_manager_submit_done          (ZotExtensionManager  *self,
                                                                 const char           *extension_name);

void                 zot_extension_manager_set_session_id       (ZotExtensionManager  *self,
                                                                 const char           *session_id);
const char          *zot_extension_manager_get_session_id       (ZotExtensionManager  *self);
guint64              zot_extension_manager_emit_event           (ZotExtensionManager  *self,
                                                                 const char           *name,
                                                                 JsonObject           *payload);
gboolean             zot_extension_manager_has_interceptors     (ZotExtensionManager  *self,
                                                                 const char           *event);
void                 zot_extension_manager_intercept_async      (ZotExtensionManager  *self,
                                                                 const char           *event,
                                                                 JsonObject           *payload,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
ZotInterception     *zot_extension_manager_intercept_finish     (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
void                 zot_extension_manager_before_agent_start_async  (ZotExtensionManager *self,
                                                                 JsonObject           *context,
                                                                 const char           *system_prompt,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
char                *zot_extension_manager_before_agent_start_finish (ZotExtensionManager *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);
GPtrArray           *zot_extension_manager_list_tools           (ZotExtensionManager  *self);
GPtrArray           *zot_extension_manager_list_panels          (ZotExtensionManager  *self);
void                 zot_extension_manager_set_continuous       (ZotExtensionManager  *self,
                                                                 gboolean              continuous);
gboolean             zot_extension_manager_get_continuous       (ZotExtensionManager  *self);
void                 zot_extension_manager_set_tool_runner      (ZotExtensionManager  *self,
                                                                 ZotToolRunner        *runner);
guint                zot_extension_manager_get_n_calls          (ZotExtensionManager  *self);
void                 zot_extension_manager_set_policy           (ZotExtensionManager  *self,
                                                                 ZotApprovalPolicy     policy);
ZotApprovalPolicy    zot_extension_manager_get_policy           (ZotExtensionManager  *self);
void                 zot_extension_manager_forget_approvals     (ZotExtensionManager  *self);
void                 zot_call_origin_describe                   (const ZotCallOrigin  *origin,
                                                                 JsonObject           *payload);
void                 zot_extension_manager_emit_permission_decision (ZotExtensionManager *self,
                                                                 const char           *tool_id,
                                                                 const char           *tool_name,
                                                                 const char           *decision,
                                                                 const char           *source,
                                                                 const char           *stage,
                                                                 const char           *reason,
                                                                 const ZotCallOrigin  *origin);
void                 zot_extension_manager_authorize_async      (ZotExtensionManager  *self,
                                                                 const char           *tool_id,
                                                                 const char           *tool_name,
                                                                 JsonObject           *args,
                                                                 ZotApprovalFlags      flags,
                                                                 const ZotCallOrigin  *origin,
                                                                 GCancellable         *cancellable,
                                                                 GAsyncReadyCallback   callback,
                                                                 gpointer              user_data);
ZotDecision         *zot_extension_manager_authorize_finish     (ZotExtensionManager  *self,
                                                                 GAsyncResult         *result,
                                                                 GError              **error);

G_END_DECLS
