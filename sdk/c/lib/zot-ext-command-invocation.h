/* zot-ext-command-invocation.h: one run of a slash command
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (ZOT_EXT_INSIDE) && !defined (ZOT_EXT_COMPILATION)
# error "Only <zot-ext.h> can be included directly."
#endif

#include <glib-object.h>

#include "zot-ext-types.h"

G_BEGIN_DECLS

#define ZOT_EXT_TYPE_COMMAND_INVOCATION (zot_ext_command_invocation_get_type ())

ZOT_EXT_PUBLIC
G_DECLARE_FINAL_TYPE (ZotExtCommandInvocation, zot_ext_command_invocation, ZOT_EXT, COMMAND_INVOCATION, GObject)

ZOT_EXT_PUBLIC
const char *zot_ext_command_invocation_get_name               (ZotExtCommandInvocation *self);
ZOT_EXT_PUBLIC
const char *zot_ext_command_invocation_get_id                 (ZotExtCommandInvocation *self);
ZOT_EXT_PUBLIC
const char *zot_ext_command_invocation_get_args               (ZotExtCommandInvocation *self);
ZOT_EXT_PUBLIC
gboolean    zot_ext_command_invocation_is_finished            (ZotExtCommandInvocation *self);
ZOT_EXT_PUBLIC
void        zot_ext_command_invocation_return_prompt          (ZotExtCommandInvocation *self,
                                                               const char              *prompt);
ZOT_EXT_PUBLIC
void        zot_ext_command_invocation_return_insert          (ZotExtCommandInvocation *self,
                                                               const char              *text);
ZOT_EXT_PUBLIC
void        zot_ext_command_invocation_return_display         (ZotExtCommandInvocation *self,
                                                               const char              *text);
ZOT_EXT_PUBLIC
void        zot_ext_command_invocation_return_noop            (ZotExtCommandInvocation *self);
ZOT_EXT_PUBLIC
void        zot_ext_command_invocation_return_error           (ZotExtCommandInvocation *self,
                                                               const char              *message);
ZOT_EXT_PUBLIC
void        zot_ext_command_invocation_return_open_panel      (ZotExtCommandInvocation *self,
                                                               const char              *panel_id,
                                                               const char              *title,
                                                               const char * const      *lines,
                                                               const char              *footer);
ZOT_EXT_PUBLIC
gboolean    zot_ext_command_invocation_return_open_panel_widgets (ZotExtCommandInvocation *self,
                                                                  const char              *panel_id,
                                                                  const char              *title,
                                                                  const char              *widgets_json,
                                                                  const char              *footer,
                                                                  GError                 **error);
ZOT_EXT_PUBLIC
gboolean    zot_ext_command_invocation_return_tool_prompt     (ZotExtCommandInvocation *self,
                                                               const char              *prompt,
                                                               const char              *tool_name,
                                                               const char              *args_json,
                                                               GError                 **error);

G_END_DECLS
