/* zot-ext-intercept-invocation.h: one interception request
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (ZOT_EXT_INSIDE) && !defined (ZOT_EXT_COMPILATION)
# error "Only <zot-ext.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "zot-ext-types.h"

G_BEGIN_DECLS

#define ZOT_EXT_TYPE_INTERCEPT_INVOCATION (zot_ext_intercept_invocation_get_type ())

ZOT_EXT_PUBLIC
G_DECLARE_FINAL_TYPE (ZotExtInterceptInvocation, zot_ext_intercept_invocation, ZOT_EXT, INTERCEPT_INVOCATION, GObject)

ZOT_EXT_PUBLIC
const char *zot_ext_intercept_invocation_get_event          (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
const char *zot_ext_intercept_invocation_get_id             (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
char       *zot_ext_intercept_invocation_get_json           (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
JsonObject *zot_ext_intercept_invocation_get_object         (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
const char *zot_ext_intercept_invocation_get_string         (ZotExtInterceptInvocation *self,
                                                             const char                *member);
ZOT_EXT_PUBLIC
const char *zot_ext_intercept_invocation_get_tool_name      (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
char       *zot_ext_intercept_invocation_get_tool_args_json (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
JsonObject *zot_ext_intercept_invocation_get_tool_args      (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
gboolean    zot_ext_intercept_invocation_is_finished        (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
void        zot_ext_intercept_invocation_allow              (ZotExtInterceptInvocation *self);
ZOT_EXT_PUBLIC
void        zot_ext_intercept_invocation_block              (ZotExtInterceptInvocation *self,
                                                             const char                *reason);
ZOT_EXT_PUBLIC
gboolean    zot_ext_intercept_invocation_modify_args        (ZotExtInterceptInvocation *self,
                                                             const char                *args_json,
                                                             GError                   **error);
ZOT_EXT_PUBLIC
void        zot_ext_intercept_invocation_replace_text       (ZotExtInterceptInvocation *self,
                                                             const char                *text);
ZOT_EXT_PUBLIC
gboolean    zot_ext_intercept_invocation_set_system_prompt  (ZotExtInterceptInvocation *self,
                                                             const char                *prompt,
                                                             GError                   **error);

G_END_DECLS
