/* zot-ext-invocation.h: one call of a tool the extension provides
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (ZOT_EXT_INSIDE) && !defined (ZOT_EXT_COMPILATION)
# error "Only <zot-ext.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "zot-ext-types.h"
#include "zot-ext-tool-result.h"

G_BEGIN_DECLS

#define ZOT_EXT_TYPE_INVOCATION (zot_ext_invocation_get_type ())

ZOT_EXT_PUBLIC
G_DECLARE_FINAL_TYPE (ZotExtInvocation, zot_ext_invocation, ZOT_EXT, INVOCATION, GObject)

ZOT_EXT_PUBLIC
const char       *zot_ext_invocation_get_name           (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
const char       *zot_ext_invocation_get_id             (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
char             *zot_ext_invocation_get_args_json      (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
JsonNode         *zot_ext_invocation_get_args           (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
const char       *zot_ext_invocation_get_string_arg     (ZotExtInvocation     *self,
                                                         const char           *member);
ZOT_EXT_PUBLIC
const char       *zot_ext_invocation_get_operation_key  (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
gboolean          zot_ext_invocation_is_reconcile       (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
GCancellable     *zot_ext_invocation_get_cancellable    (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
gboolean          zot_ext_invocation_is_finished        (ZotExtInvocation     *self);
ZOT_EXT_PUBLIC
gboolean          zot_ext_invocation_report_progress    (ZotExtInvocation     *self,
                                                         const char           *text);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_set_activate_tools (ZotExtInvocation     *self,
                                                         const char * const   *names);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_return_text        (ZotExtInvocation     *self,
                                                         const char           *text);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_return_error       (ZotExtInvocation     *self,
                                                         const char           *text);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_return_error_printf (ZotExtInvocation    *self,
                                                          const char          *format,
                                                          ...) G_GNUC_PRINTF (2, 3);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_return_structured  (ZotExtInvocation     *self,
                                                         const char           *text,
                                                         const char           *structured_json);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_return_image       (ZotExtInvocation     *self,
                                                         const char           *text,
                                                         const char           *mime_type,
                                                         GBytes               *data);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_return_result_json (ZotExtInvocation     *self,
                                                         const char           *content_json,
                                                         const char           *structured_json,
                                                         gboolean              is_error);
ZOT_EXT_PUBLIC
void              zot_ext_invocation_call_tool_async    (ZotExtInvocation     *self,
                                                         const char           *name,
                                                         const char           *args_json,
                                                         const char           *key,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
ZOT_EXT_PUBLIC
ZotExtToolResult *zot_ext_invocation_call_tool_finish   (ZotExtInvocation     *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);

G_END_DECLS
