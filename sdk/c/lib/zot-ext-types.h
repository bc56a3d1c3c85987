/* zot-ext-types.h: limits, flags and the error domain of libzot-ext
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (ZOT_EXT_INSIDE) && !defined (ZOT_EXT_COMPILATION)
# error "Only <zot-ext.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

#if defined (ZOT_EXT_COMPILATION) && defined (__GNUC__)
# define ZOT_EXT_PUBLIC __attribute__((visibility ("default"))) extern
#else
# define ZOT_EXT_PUBLIC extern
#endif

/**
 * ZOT_EXT_PROTOCOL_VERSION:
 *
 * The version of the zot extension protocol this library speaks.
 */
#define ZOT_EXT_PROTOCOL_VERSION 1

/**
 * ZOT_EXT_FRAME_MAX_BYTES:
 *
 * The largest frame, in bytes and without its newline, either side may
 * write. Inbound lines past it are skipped; outbound frames past it are
 * never written (a tool result becomes an error result saying so).
 */
#define ZOT_EXT_FRAME_MAX_BYTES ((gsize) 4 * 1024 * 1024)

/**
 * ZOT_EXT_TOOL_NAME_MAX_CHARS:
 *
 * The longest tool name the host accepts (names match
 * `^[A-Za-z0-9_-]{1,64}$`).
 */
#define ZOT_EXT_TOOL_NAME_MAX_CHARS 64

/**
 * ZOT_EXT_CALL_KEY_MAX_BYTES:
 *
 * The longest durable key of a nested call (no `/`, no NUL).
 */
#define ZOT_EXT_CALL_KEY_MAX_BYTES 128

/**
 * ZOT_EXT_SYSTEM_PROMPT_MAX_BYTES:
 *
 * The largest encoded `system_prompt` a `before_agent_start` reply may
 * carry; the host keeps the current prompt past it.
 */
#define ZOT_EXT_SYSTEM_PROMPT_MAX_BYTES ((gsize) 1024 * 1024)

/**
 * ZOT_EXT_INTERCEPT_DEADLINE_MSEC:
 *
 * The host waits this long for an interceptor's reply, then allows.
 */
#define ZOT_EXT_INTERCEPT_DEADLINE_MSEC 5000

/**
 * ZOT_EXT_INTERCEPT_REPLY_MSEC:
 *
 * An interceptor not answered this long after its request is answered
 * for it (allow), so the reply is on the wire before
 * %ZOT_EXT_INTERCEPT_DEADLINE_MSEC.
 */
#define ZOT_EXT_INTERCEPT_REPLY_MSEC 4500

/**
 * ZOT_EXT_ERROR:
 *
 * The error domain of libzot-ext.
 */
#define ZOT_EXT_ERROR (zot_ext_error_quark ())

/**
 * ZotExtError:
 * @ZOT_EXT_ERROR_INVALID_NAME: a tool or command name breaks the host's rule
 * @ZOT_EXT_ERROR_INVALID_SCHEMA: a schema is not a JSON object
 * @ZOT_EXT_ERROR_INVALID_JSON: a JSON string does not parse or has the wrong type
 * @ZOT_EXT_ERROR_INVALID_ARGUMENT: another argument breaks a protocol rule
 * @ZOT_EXT_ERROR_TOO_LARGE: the frame would be larger than %ZOT_EXT_FRAME_MAX_BYTES
 * @ZOT_EXT_ERROR_NOT_SUPPORTED: the host did not advertise what this needs
 * @ZOT_EXT_ERROR_CLOSED: the connection ended (shutdown or end of input)
 * @ZOT_EXT_ERROR_BUSY: the extension is already running
 *
 * Errors of the %ZOT_EXT_ERROR domain.
 */
typedef enum
{
  ZOT_EXT_ERROR_INVALID_NAME,
  ZOT_EXT_ERROR_INVALID_SCHEMA,
  ZOT_EXT_ERROR_INVALID_JSON,
  ZOT_EXT_ERROR_INVALID_ARGUMENT,
  ZOT_EXT_ERROR_TOO_LARGE,
  ZOT_EXT_ERROR_NOT_SUPPORTED,
  ZOT_EXT_ERROR_CLOSED,
  ZOT_EXT_ERROR_BUSY,
} ZotExtError;

/**
 * ZotExtToolFlags:
 * @ZOT_EXT_TOOL_NONE: a normal tool (60 s host deadline)
 * @ZOT_EXT_TOOL_INTERACTIVE: the tool waits for the user (no host deadline
 *   in the window; headless hosts refuse it)
 * @ZOT_EXT_TOOL_DEFERRED: the legacy `deferred` flag (an explicit exposure wins)
 * @ZOT_EXT_TOOL_REPLAY_SAFE: `"replay":"safe"`: a continuous host may run an
 *   interrupted call again
 * @ZOT_EXT_TOOL_REPLAY_IDEMPOTENT: `"replay":"idempotent"`: calls carry an
 *   `operation_key` ([method@ZotExt.Invocation.get_operation_key]) the tool
 *   must honour
 * @ZOT_EXT_TOOL_REPLAY_RECONCILE: `"replay":"reconcile"`: after a crash the
 *   host first asks whether the operation happened
 *   ([method@ZotExt.Invocation.is_reconcile])
 *
 * @ZOT_EXT_TOOL_READ_ONLY: `"annotations":{"read_only":true}`: a hint that
 *   the tool changes nothing
 * @ZOT_EXT_TOOL_DESTRUCTIVE: `"annotations":{"destructive":true}`: the host
 *   never approves a call of the tool from a remembered approval
 *
 * How a tool is registered. At most one `REPLAY` flag may be given; with
 * none the tool's replay contract is the host's default, `never`.
 */
typedef enum /*< flags >*/
{
  ZOT_EXT_TOOL_NONE              = 0,
  ZOT_EXT_TOOL_INTERACTIVE       = 1 << 0,
  ZOT_EXT_TOOL_DEFERRED          = 1 << 1,
  ZOT_EXT_TOOL_REPLAY_SAFE       = 1 << 2,
  ZOT_EXT_TOOL_REPLAY_IDEMPOTENT = 1 << 3,
  ZOT_EXT_TOOL_REPLAY_RECONCILE  = 1 << 4,
  ZOT_EXT_TOOL_READ_ONLY         = 1 << 5,
  ZOT_EXT_TOOL_DESTRUCTIVE       = 1 << 6,
} ZotExtToolFlags;

/**
 * ZotExtExposure:
 * @ZOT_EXT_EXPOSURE_DEFAULT: send no `exposure` (the host's default, direct)
 * @ZOT_EXT_EXPOSURE_DIRECT: a direct tool definition, callable from scripts
 * @ZOT_EXT_EXPOSURE_CODEMODE: callable from scripts and discoverable only
 * @ZOT_EXT_EXPOSURE_DEFERRED: discoverable, declared once activated
 * @ZOT_EXT_EXPOSURE_MODEL_ONLY: never callable from scripts
 *
 * Where the model sees a tool.
 */
typedef enum
{
  ZOT_EXT_EXPOSURE_DEFAULT,
  ZOT_EXT_EXPOSURE_DIRECT,
  ZOT_EXT_EXPOSURE_CODEMODE,
  ZOT_EXT_EXPOSURE_DEFERRED,
  ZOT_EXT_EXPOSURE_MODEL_ONLY,
} ZotExtExposure;

ZOT_EXT_PUBLIC
GQuark zot_ext_error_quark (void);

G_END_DECLS
