/* zot-ext-private.h: what the library's types share among themselves
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "zot-ext.h"

G_BEGIN_DECLS

gboolean                   _zot_ext_extension_send               (ZotExtExtension           *self,
                                                                  JsonNode                  *frame,
                                                                  GError                   **error);
gboolean                   _zot_ext_frame_fits                   (JsonNode                  *frame,
                                                                  char                     **out_text,
                                                                  gsize                     *out_len);
gboolean                   _zot_ext_extension_send_text          (ZotExtExtension           *self,
                                                                  char                      *text,
                                                                  gsize                      len);
void                       _zot_ext_extension_forget_invocation  (ZotExtExtension           *self,
                                                                  const char                *id);
void                       _zot_ext_extension_forget_intercept   (ZotExtExtension           *self,
                                                                  const char                *id);
void                       _zot_ext_extension_call_tool          (ZotExtExtension           *self,
                                                                  gpointer                   source_object,
                                                                  gpointer                   source_tag,
                                                                  const char                *name,
                                                                  const char                *args_json,
                                                                  const char                *key,
                                                                  const char                *parent_id,
                                                                  GCancellable              *parent_cancellable,
                                                                  GCancellable              *cancellable,
                                                                  GAsyncReadyCallback        callback,
                                                                  gpointer                   user_data);
JsonNode                  *_zot_ext_open_panel_node              (const char                *panel_id,
                                                                  const char                *title,
                                                                  const char * const        *lines,
                                                                  JsonNode                  *widgets,
                                                                  const char                *footer);
JsonNode                  *_zot_ext_parse_json                   (const char                *json,
                                                                  JsonNodeType               type,
                                                                  const char                *what,
                                                                  GError                   **error);

ZotExtInvocation          *_zot_ext_invocation_new               (ZotExtExtension           *extension,
                                                                  const char                *id,
                                                                  const char                *name,
                                                                  JsonNode                  *args,
                                                                  const char                *operation_key,
                                                                  gboolean                   reconcile);
void                       _zot_ext_invocation_cancel            (ZotExtInvocation          *self);
gboolean                   _zot_ext_invocation_take_unhandled    (ZotExtInvocation          *self);

ZotExtToolResult          *_zot_ext_tool_result_new              (JsonObject                *frame);

ZotExtEvent               *_zot_ext_event_new                    (JsonObject                *frame);

ZotExtCommandInvocation   *_zot_ext_command_invocation_new       (ZotExtExtension           *extension,
                                                                  const char                *id,
                                                                  const char                *name,
                                                                  const char                *args);

ZotExtInterceptInvocation *_zot_ext_intercept_invocation_new     (ZotExtExtension           *extension,
                                                                  const char                *id,
                                                                  const char                *event,
                                                                  JsonObject                *frame);
void                       _zot_ext_intercept_invocation_fail    (ZotExtInterceptInvocation *self,
                                                                  const char                *why);
void                       _zot_ext_intercept_invocation_close   (ZotExtInterceptInvocation *self);

G_END_DECLS
