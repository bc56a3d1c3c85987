/* zot-ext-check.h — `zot ext check DIR`: the host played against one
 * extension, with no model and no window, to find where it breaks the
 * protocol.
 *
 * The checker spawns the extension as the host does, answers its
 * handshake, calls every tool and command, sends events and intercepts
 * and shuts it down, each wait under a deadline of zot-limits.h. What it
 * finds comes back as one JSON report (docs/ext-check.md gives its shape);
 * a callback sees each step and violation as it happens.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * ZotExtCheckFlags:
 * @ZOT_EXT_CHECK_NONE: the generic run
 * @ZOT_EXT_CHECK_SCENARIO: check the behaviour of sdk/SCENARIO.md instead
 *   of the generic calls, then run again as a host with
 *   `call_tool_durable` to check the nested call's key
 * @ZOT_EXT_CHECK_DURABLE: advertise `call_tool_durable`, as a host in
 *   continuous mode does
 */
typedef enum
{
  ZOT_EXT_CHECK_NONE     = 0,
  ZOT_EXT_CHECK_SCENARIO = 1 << 0,
  ZOT_EXT_CHECK_DURABLE  = 1 << 1,
} ZotExtCheckFlags;

/**
 * ZotExtCheckItemFunc:
 * @kind: "step", "violation" or "note"
 * @item: the step, violation or note, as it appears in the report
 *
 * Called as each step ends, each violation is found and each note (an
 * observation that is no fault) is made.
 */
typedef void (*ZotExtCheckItemFunc) (const char *kind,
                                     JsonObject *item,
                                     gpointer    user_data);

JsonObject *zot_ext_check_run (const char           *directory,
                               ZotExtCheckFlags      flags,
                               ZotExtCheckItemFunc   func,
                               gpointer              user_data,
                               GError              **error);

G_END_DECLS
