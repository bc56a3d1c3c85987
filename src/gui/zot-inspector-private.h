/* zot-inspector-private.h — the inspector's items, for its rows and the
 * tests. */
#pragma once

#include "zot-frame-channel.h"
#include "zot-inspector.h"

G_BEGIN_DECLS

/* One item of the lists: a lifecycle event or a frame. Only the inspector
 * makes them. */
#define ZOT_TYPE_INSPECTOR_ENTRY (zot_inspector_entry_get_type ())
G_DECLARE_FINAL_TYPE (ZotInspectorEntry, zot_inspector_entry, ZOT, INSPECTOR_ENTRY, GObject)

const char        *_zot_inspector_entry_get_name        (ZotInspectorEntry *self);
const char        *_zot_inspector_entry_get_extension   (ZotInspectorEntry *self);
ZotFrameDirection  _zot_inspector_entry_get_direction   (ZotInspectorEntry *self);
const char        *_zot_inspector_entry_get_text        (ZotInspectorEntry *self);
const char        *_zot_inspector_entry_get_preview     (ZotInspectorEntry *self);
const char        *_zot_inspector_entry_get_time        (ZotInspectorEntry *self);
gint64             _zot_inspector_entry_get_sequence    (ZotInspectorEntry *self);
double             _zot_inspector_entry_get_latency_ms  (ZotInspectorEntry *self);
char              *_zot_inspector_entry_dup_pretty_text (ZotInspectorEntry *self);
char              *_zot_inspector_entry_dup_copy_text   (ZotInspectorEntry *self);
void               _zot_inspector_entry_copy            (ZotInspectorEntry *self,
                                                         GdkClipboard      *clipboard);

GListModel        *_zot_inspector_get_events            (ZotInspector      *self);
GListModel        *_zot_inspector_get_traffic           (ZotInspector      *self);
void               _zot_inspector_set_filter            (ZotInspector      *self,
                                                         const char        *extension,
                                                         const char        *search);
gboolean           _zot_inspector_is_tracing            (ZotInspector      *self);
void               _zot_inspector_copy                  (ZotInspector      *self,
                                                         ZotInspectorEntry *entry);
void               _zot_inspector_flush                 (ZotInspector      *self);

G_END_DECLS
