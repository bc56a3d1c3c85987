/* zot-ext-event.h: one lifecycle notification
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

#define ZOT_EXT_TYPE_EVENT (zot_ext_event_get_type ())

ZOT_EXT_PUBLIC
G_DECLARE_FINAL_TYPE (ZotExtEvent, zot_ext_event, ZOT_EXT, EVENT, GObject)

ZOT_EXT_PUBLIC
const char *zot_ext_event_get_name          (ZotExtEvent *self);
ZOT_EXT_PUBLIC
gint64      zot_ext_event_get_sequence      (ZotExtEvent *self);
ZOT_EXT_PUBLIC
char       *zot_ext_event_get_json          (ZotExtEvent *self);
ZOT_EXT_PUBLIC
JsonObject *zot_ext_event_get_object        (ZotExtEvent *self);
ZOT_EXT_PUBLIC
gboolean    zot_ext_event_has_member        (ZotExtEvent *self,
                                             const char  *member);
ZOT_EXT_PUBLIC
const char *zot_ext_event_get_string        (ZotExtEvent *self,
                                             const char  *member);
ZOT_EXT_PUBLIC
gint64      zot_ext_event_get_int           (ZotExtEvent *self,
                                             const char  *member,
                                             gint64       default_value);
ZOT_EXT_PUBLIC
gboolean    zot_ext_event_get_boolean       (ZotExtEvent *self,
                                             const char  *member,
                                             gboolean     default_value);
ZOT_EXT_PUBLIC
char       *zot_ext_event_get_member_json   (ZotExtEvent *self,
                                             const char  *member);

G_END_DECLS
