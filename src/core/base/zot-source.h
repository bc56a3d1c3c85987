/* zot-source.h — dropping a main loop source held by a pointer.
 *
 * An owner that keeps a GSource (a timeout, a cancellable's source, a
 * descriptor's) holds a reference to it and must also take it off its
 * context, or the callback still runs once the owner is gone.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

void     zot_clear_source       (GSource      **source);
GSource *zot_cancellable_follow (GCancellable  *follower,
                                 GCancellable  *leader);

G_END_DECLS
