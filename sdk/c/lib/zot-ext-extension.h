/* zot-ext-extension.h: one zot extension and its connection to the host
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (ZOT_EXT_INSIDE) && !defined (ZOT_EXT_COMPILATION)
# error "Only <zot-ext.h> can be included directly."
#endif

#include <gio/gio.h>

#include "zot-ext-types.h"
#include "zot-ext-enums.h"
#include "zot-ext-tool-result.h"

G_BEGIN_DECLS

#define ZOT_EXT_TYPE_EXTENSION (zot_ext_extension_get_type ())

ZOT_EXT_PUBLIC
G_DECLARE_FINAL_TYPE (ZotExtExtension, zot_ext_extension, ZOT_EXT, EXTENSION, GObject)

ZOT_EXT_PUBLIC
ZotExtExtension    *zot_ext_extension_new                  (const char            *name,
                                                            const char            *version);
ZOT_EXT_PUBLIC
const char         *zot_ext_extension_get_name             (ZotExtExtension       *self);
ZOT_EXT_PUBLIC
const char         *zot_ext_extension_get_version          (ZotExtExtension       *self);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_add_tool             (ZotExtExtension       *self,
                                                            const char            *name,
                                                            const char            *description,
                                                            const char            *schema_json,
                                                            ZotExtToolFlags        flags,
                                                            GError               **error);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_add_tool_full        (ZotExtExtension       *self,
                                                            const char            *name,
                                                            const char            *description,
                                                            const char            *schema_json,
                                                            const char            *output_schema_json,
                                                            const char            *namespace_,
                                                            const char            *namespace_description,
                                                            const char            *namespace_instructions,
                                                            ZotExtExposure         exposure,
                                                            ZotExtToolFlags        flags,
                                                            GError               **error);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_unregister_tool      (ZotExtExtension       *self,
                                                            const char            *name,
                                                            GError               **error);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_unregister_command   (ZotExtExtension       *self,
                                                            const char            *name,
                                                            GError               **error);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_add_command          (ZotExtExtension       *self,
                                                            const char            *name,
                                                            const char            *description,
                                                            GError               **error);
ZOT_EXT_PUBLIC
void                zot_ext_extension_subscribe            (ZotExtExtension       *self,
                                                            const char            *event);
ZOT_EXT_PUBLIC
void                zot_ext_extension_intercept            (ZotExtExtension       *self,
                                                            const char            *event);
ZOT_EXT_PUBLIC
void                zot_ext_extension_add_capability       (ZotExtExtension       *self,
                                                            const char            *capability);
ZOT_EXT_PUBLIC
char              **zot_ext_extension_dup_capabilities     (ZotExtExtension       *self);

ZOT_EXT_PUBLIC
const char * const *zot_ext_extension_get_host_capabilities (ZotExtExtension      *self);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_has_host_capability  (ZotExtExtension       *self,
                                                            const char            *capability);
ZOT_EXT_PUBLIC
const char         *zot_ext_extension_get_host_info        (ZotExtExtension       *self,
                                                            const char            *member);
ZOT_EXT_PUBLIC
char               *zot_ext_extension_get_hello_ack_json   (ZotExtExtension       *self);

ZOT_EXT_PUBLIC
void                zot_ext_extension_run_async            (ZotExtExtension       *self,
                                                            GInputStream          *input,
                                                            GOutputStream         *output,
                                                            GCancellable          *cancellable,
                                                            GAsyncReadyCallback    callback,
                                                            gpointer               user_data);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_run_finish           (ZotExtExtension       *self,
                                                            GAsyncResult          *result,
                                                            GError               **error);
ZOT_EXT_PUBLIC
int                 zot_ext_extension_run                  (ZotExtExtension       *self);

ZOT_EXT_PUBLIC
void                zot_ext_extension_log                  (ZotExtExtension       *self,
                                                            const char            *format,
                                                            ...) G_GNUC_PRINTF (2, 3);
ZOT_EXT_PUBLIC
void                zot_ext_extension_log_message          (ZotExtExtension       *self,
                                                            const char            *message);
ZOT_EXT_PUBLIC
void                zot_ext_extension_notify               (ZotExtExtension       *self,
                                                            const char            *level,
                                                            const char            *message);
ZOT_EXT_PUBLIC
void                zot_ext_extension_clear_notes          (ZotExtExtension       *self);
ZOT_EXT_PUBLIC
void                zot_ext_extension_submit               (ZotExtExtension       *self,
                                                            const char            *text);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_submit_slash         (ZotExtExtension       *self,
                                                            const char            *text,
                                                            GError               **error);
ZOT_EXT_PUBLIC
void                zot_ext_extension_open_panel           (ZotExtExtension       *self,
                                                            const char            *panel_id,
                                                            const char            *title,
                                                            const char * const    *lines,
                                                            const char            *footer);
ZOT_EXT_PUBLIC
void                zot_ext_extension_render_panel         (ZotExtExtension       *self,
                                                            const char            *panel_id,
                                                            const char            *title,
                                                            const char * const    *lines,
                                                            const char            *footer);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_open_panel_widgets   (ZotExtExtension       *self,
                                                            const char            *panel_id,
                                                            const char            *title,
                                                            const char            *widgets_json,
                                                            const char            *footer,
                                                            GError               **error);
ZOT_EXT_PUBLIC
gboolean            zot_ext_extension_render_panel_widgets (ZotExtExtension       *self,
                                                            const char            *panel_id,
                                                            const char            *title,
                                                            const char            *widgets_json,
                                                            const char            *footer,
                                                            GError               **error);
ZOT_EXT_PUBLIC
void                zot_ext_extension_close_panel          (ZotExtExtension       *self,
                                                            const char            *panel_id);
ZOT_EXT_PUBLIC
void                zot_ext_extension_call_tool_async      (ZotExtExtension       *self,
                                                            const char            *name,
                                                            const char            *args_json,
                                                            const char            *key,
                                                            GCancellable          *cancellable,
                                                            GAsyncReadyCallback    callback,
                                                            gpointer               user_data);
ZOT_EXT_PUBLIC
ZotExtToolResult   *zot_ext_extension_call_tool_finish     (ZotExtExtension       *self,
                                                            GAsyncResult          *result,
                                                            GError               **error);

G_END_DECLS
