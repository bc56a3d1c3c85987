#pragma once

#include "zot-extension.h"
#include "zot-frame-channel.h"

G_BEGIN_DECLS

void _zot_extension_set_command_conflict (ZotExtension *self,
                                          guint         index,
                                          const char   *conflict);

void _zot_extension_add_problem          (ZotExtension *self,
                                          const char   *problem);

/* The channel to send event @event_id (zot_lifecycle_event_id(), or 0 with
 * @event) to, or NULL when the extension is not running or not subscribed:
 * the manager's per-delivery test, without a type check per call. */
ZotFrameChannel *_zot_extension_event_channel (ZotExtension *self,
                                               guint         event_id,
                                               const char   *event);

G_END_DECLS
