/* zot-approval.h — one question to the user: may this tool call run?
 *
 * The manager emits ::approval-requested with one of these; a view shows
 * it and calls zot_approval_resolve() once. Headless hosts never ask.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ZotApprovalChoice:
 * @ZOT_APPROVAL_ALLOW: run this call
 * @ZOT_APPROVAL_ALLOW_TOOL: run it, and every call of this tool this session
 * @ZOT_APPROVAL_ALLOW_ALL: run it, and every tool call this session
 * @ZOT_APPROVAL_DENY: do not run it
 */
typedef enum
{
  ZOT_APPROVAL_ALLOW,
  ZOT_APPROVAL_ALLOW_TOOL,
  ZOT_APPROVAL_ALLOW_ALL,
  ZOT_APPROVAL_DENY,
} ZotApprovalChoice;

/**
 * ZotApprovalPolicy:
 * @ZOT_APPROVAL_POLICY_ASK: ask before tools that need approval
 * @ZOT_APPROVAL_POLICY_YOLO: approve everything without asking
 */
typedef enum
{
  ZOT_APPROVAL_POLICY_ASK,
  ZOT_APPROVAL_POLICY_YOLO,
} ZotApprovalPolicy;

/**
 * ZotApprovalFlags:
 * @ZOT_APPROVAL_FLAG_NONE: the tool runs without asking (read, skill)
 * @ZOT_APPROVAL_FLAG_REQUIRED: an interactive host asks before the call
 * @ZOT_APPROVAL_FLAG_NOT_REMEMBERED: no remembered approval covers the
 *   call, and "allow this tool" is not remembered for it (a tool its
 *   extension calls destructive)
 *
 * What a tool needs before a call runs. %TRUE, as older callers pass it,
 * is %ZOT_APPROVAL_FLAG_REQUIRED.
 */
typedef enum
{
  ZOT_APPROVAL_FLAG_NONE           = 0,
  ZOT_APPROVAL_FLAG_REQUIRED       = 1 << 0,
  ZOT_APPROVAL_FLAG_NOT_REMEMBERED = 1 << 1,
} ZotApprovalFlags;

#define ZOT_TYPE_APPROVAL_POLICY (zot_approval_policy_get_type ())
GType zot_approval_policy_get_type (void) G_GNUC_CONST;

/**
 * ZotCallOrigin:
 * @extension: (nullable): the extension that asked for the call (`call_tool`)
 * @agent_id: (nullable): the subagent whose call it is
 * @agent_name: (nullable): that subagent's label, for the user
 * @script: the call comes from a codemode script (@extension then names
 *   the runtime, "codemode")
 *
 * Who a tool call is for, when it is not the conversation's own model.
 * Events, permission decisions and approvals say so.
 */
typedef struct
{
  const char *extension;
  const char *agent_id;
  const char *agent_name;
  gboolean    script;
} ZotCallOrigin;

#define ZOT_TYPE_APPROVAL (zot_approval_get_type ())
G_DECLARE_FINAL_TYPE (ZotApproval, zot_approval, ZOT, APPROVAL, GObject)

ZotApproval *zot_approval_new                  (const char        *tool_id,
                                                const char        *tool_name,
                                                JsonObject        *args,
                                                const char        *preview,
                                                const ZotCallOrigin *origin);
const char  *zot_approval_get_tool_id          (ZotApproval       *self);
const char  *zot_approval_get_tool_name        (ZotApproval       *self);
JsonObject  *zot_approval_get_args             (ZotApproval       *self);
const char  *zot_approval_get_preview          (ZotApproval       *self);
const char  *zot_approval_get_detail           (ZotApproval       *self);
const char  *zot_approval_get_origin_extension (ZotApproval       *self);
const char  *zot_approval_get_agent_id         (ZotApproval       *self);
const char  *zot_approval_get_agent_name       (ZotApproval       *self);
gboolean     zot_approval_get_from_script      (ZotApproval       *self);
gboolean     zot_approval_is_resolved          (ZotApproval       *self);
ZotApprovalChoice zot_approval_get_choice      (ZotApproval       *self);
void         zot_approval_resolve              (ZotApproval       *self,
                                                ZotApprovalChoice  choice);
void         zot_approval_resolve_with_reason  (ZotApproval       *self,
                                                ZotApprovalChoice  choice,
                                                const char        *reason);
const char  *zot_approval_get_reason           (ZotApproval       *self);
void         zot_approval_set_can_remember     (ZotApproval       *self,
                                                gboolean           can_remember);
gboolean     zot_approval_get_can_remember     (ZotApproval       *self);
void         zot_approval_withdraw             (ZotApproval       *self);
gboolean     zot_approval_get_withdrawn        (ZotApproval       *self);
char        *zot_approval_build_preview        (const char        *tool_name,
                                                JsonObject        *args);
char        *zot_approval_escape_text          (const char        *text,
                                                gboolean           keep_lines,
                                                guint              max_chars,
                                                gboolean          *out_cut);
void         zot_approval_count_text           (const char        *text,
                                                guint             *out_chars,
                                                guint             *out_lines);

G_END_DECLS
