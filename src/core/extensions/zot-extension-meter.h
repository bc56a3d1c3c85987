/* zot-extension-meter.h — what each extension costs: CPU, memory, frames,
 * tool-call latency and the time its interceptors add to a turn. */
#pragma once

#include <json-glib/json-glib.h>

#include "zot-extension.h"

G_BEGIN_DECLS

/**
 * ZotExtensionStats:
 * @running: whether the figures of the process are live; once it has
 *   exited they are the last ones read
 * @cpu_us: user and system CPU time of the process (and the children it
 *   waited for), from /proc/PID/stat; 0 when unknown
 * @resident_bytes: its resident memory (VmRSS); 0 when unknown
 * @frames_in: frames read from it
 * @frames_out: frames queued for it
 * @bytes_in: bytes read, newlines included
 * @bytes_out: bytes queued, newlines included
 * @tool_calls: tool calls it answered
 * @latency_samples: how many of them the percentiles are over, at most
 *   %ZOT_METER_LATENCY_SAMPLES (the latest)
 * @latency_p50_us: the median latency of those, -1 with none
 * @latency_p95_us: their 95th percentile, -1 with none
 * @intercepts: interceptions (tool_call guards, turn_start,
 *   assistant_message, before_agent_start) it answered or let time out
 * @intercept_turn_us: the time they added to the current or last turn
 * @intercept_total_us: the time they added in all
 */
typedef struct
{
  gboolean running;
  guint64  cpu_us;
  guint64  resident_bytes;
  guint64  frames_in;
  guint64  frames_out;
  guint64  bytes_in;
  guint64  bytes_out;
  guint64  tool_calls;
  guint    latency_samples;
  gint64   latency_p50_us;
  gint64   latency_p95_us;
  guint64  intercepts;
  guint64  intercept_turn_us;
  guint64  intercept_total_us;
} ZotExtensionStats;

#define ZOT_TYPE_EXTENSION_STATS (zot_extension_stats_get_type ())

GType              zot_extension_stats_get_type       (void) G_GNUC_CONST;
ZotExtensionStats *zot_extension_stats_copy           (const ZotExtensionStats *stats);
void               zot_extension_stats_free           (ZotExtensionStats       *stats);
JsonObject        *zot_extension_stats_to_json        (const ZotExtensionStats *stats);
char              *zot_extension_stats_format_line    (const ZotExtensionStats *stats);
char              *zot_extension_stats_format_details (const ZotExtensionStats *stats);

ZotExtensionStats *zot_extension_dup_stats            (ZotExtension            *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ZotExtensionStats, zot_extension_stats_free)

G_END_DECLS
