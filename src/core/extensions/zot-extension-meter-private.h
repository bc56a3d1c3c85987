/* zot-extension-meter-private.h — where the host's own timing feeds the
 * meter, and the percentile the tests check directly. */
#pragma once

#include "zot-extension-meter.h"

G_BEGIN_DECLS

typedef struct _ZotExtensionMeter ZotExtensionMeter;

void   _zot_extension_meter_free          (ZotExtensionMeter *meter);

/* A tool call it answered, @elapsed_us after it was sent. */
void   _zot_extension_meter_add_latency   (ZotExtension      *self,
                                           gint64             elapsed_us);
/* An interception of it that took @elapsed_us of the turn. */
void   _zot_extension_meter_add_intercept (ZotExtension      *self,
                                           gint64             elapsed_us);
/* A turn begins: the per-turn figure starts again from zero. */
void   _zot_extension_meter_begin_turn    (ZotExtension      *self);

/* The nearest-rank @percent percentile of @n samples, -1 when @n is 0. */
gint64 _zot_extension_meter_percentile    (const gint64      *samples,
                                           guint              n,
                                           guint              percent);

G_END_DECLS
