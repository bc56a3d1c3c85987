/* zot-extension-meter.c — the meter of an extension.
 *
 * Nothing here runs on a timer or per frame: the frame channel counts as
 * it goes (a few adds), the tool and interception paths add one sample
 * each, and /proc is read only when someone asks for the figures. */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "zot-extension-meter-private.h"
#include "zot-extension-private.h"
#include "zot-proc.h"

struct _ZotExtensionMeter
{
  gint64  latency[ZOT_METER_LATENCY_SAMPLES];
  guint   n_latency;    /* filled slots of the ring */
  guint   next_latency; /* the slot the next sample overwrites */
  guint64 tool_calls;
  guint64 intercepts;
  guint64 intercept_turn_us;
  guint64 intercept_total_us;
  /* The last figures read from /proc: what is shown once it has exited. */
  guint64 cpu_us;
  guint64 resident_bytes;
};

G_DEFINE_BOXED_TYPE (ZotExtensionStats, zot_extension_stats,
                     zot_extension_stats_copy, zot_extension_stats_free)

ZotExtensionStats *
zot_extension_stats_copy (const ZotExtensionStats *stats)
{
  g_return_val_if_fail (stats != NULL, NULL);

  return g_memdup2 (stats, sizeof *stats);
}

void
zot_extension_stats_free (ZotExtensionStats *stats)
{
  g_free (stats);
}

void
_zot_extension_meter_free (ZotExtensionMeter *meter)
{
  g_free (meter);
}

static ZotExtensionMeter *
ensure_meter (ZotExtension *self)
{
  if (self->meter == NULL)
    self->meter = g_new0 (ZotExtensionMeter, 1);
  return self->meter;
}

void
_zot_extension_meter_add_latency (ZotExtension *self,
                                  gint64        elapsed_us)
{
  ZotExtensionMeter *meter;

  g_return_if_fail (ZOT_IS_EXTENSION (self));

  meter = ensure_meter (self);
  meter->latency[meter->next_latency] = MAX (elapsed_us, 0);
  meter->next_latency = (meter->next_latency + 1) % ZOT_METER_LATENCY_SAMPLES;
  meter->n_latency = MIN (meter->n_latency + 1, ZOT_METER_LATENCY_SAMPLES);
  meter->tool_calls++;
}

void
_zot_extension_meter_add_intercept (ZotExtension *self,
                                    gint64        elapsed_us)
{
  ZotExtensionMeter *meter;
  guint64 elapsed = (guint64) MAX (elapsed_us, 0);

  g_return_if_fail (ZOT_IS_EXTENSION (self));

  meter = ensure_meter (self);
  meter->intercepts++;
  meter->intercept_turn_us += elapsed;
  meter->intercept_total_us += elapsed;
}

void
_zot_extension_meter_begin_turn (ZotExtension *self)
{
  g_return_if_fail (ZOT_IS_EXTENSION (self));

  if (self->meter != NULL)
    self->meter->intercept_turn_us = 0;
}

static int
compare_samples (gconstpointer a,
                 gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

gint64
_zot_extension_meter_percentile (const gint64 *samples,
                                 guint         n,
                                 guint         percent)
{
  gint64 sorted[ZOT_METER_LATENCY_SAMPLES];
  guint rank;

  g_return_val_if_fail (n <= ZOT_METER_LATENCY_SAMPLES, -1);
  g_return_val_if_fail (percent >= 1 && percent <= 100, -1);

  if (n == 0)
    return -1;

  memcpy (sorted, samples, n * sizeof *samples);
  qsort (sorted, n, sizeof *sorted, compare_samples);

  /* Nearest rank: the smallest sample with at least @percent of them at
   * or below it. */
  rank = (n * percent + 99) / 100;
  return sorted[MAX (rank, 1) - 1];
}

/**
 * zot_extension_dup_stats:
 *
 * Reads /proc for the process's CPU time and memory while it runs, and
 * adds what the host counted and timed.
 *
 * Returns: (transfer full): the extension's figures
 */
ZotExtensionStats *
zot_extension_dup_stats (ZotExtension *self)
{
  ZotExtensionStats *stats;
  ZotExtensionMeter *meter;

  g_return_val_if_fail (ZOT_IS_EXTENSION (self), NULL);

  stats = g_new0 (ZotExtensionStats, 1);
  meter = ensure_meter (self);

  stats->running = self->subprocess != NULL && !self->exited && self->group > 0;
  if (stats->running)
    {
      guint64 kib = 0;

      if (zot_proc_read_cpu_time (self->group, &meter->cpu_us) &&
          zot_proc_read_status_kib (self->group, "VmRSS", &kib))
        meter->resident_bytes = kib * 1024;
    }
  stats->cpu_us = meter->cpu_us;
  stats->resident_bytes = meter->resident_bytes;

  if (self->channel != NULL)
    {
      ZotFrameCounts counts;

      zot_frame_channel_get_counts (self->channel, &counts);
      stats->frames_in = counts.frames_in;
      stats->frames_out = counts.frames_out;
      stats->bytes_in = counts.bytes_in;
      stats->bytes_out = counts.bytes_out;
    }

  stats->tool_calls = meter->tool_calls;
  stats->latency_samples = meter->n_latency;
  stats->latency_p50_us = _zot_extension_meter_percentile (meter->latency, meter->n_latency, 50);
  stats->latency_p95_us = _zot_extension_meter_percentile (meter->latency, meter->n_latency, 95);
  stats->intercepts = meter->intercepts;
  stats->intercept_turn_us = meter->intercept_turn_us;
  stats->intercept_total_us = meter->intercept_total_us;

  return stats;
}

/**
 * zot_extension_stats_to_json:
 *
 * Returns: (transfer full): the figures as `zot ext stats --json` and
 *   RPC's `get_state` give them; times in microseconds, a percentile
 *   %NULL before the first tool call
 */
JsonObject *
zot_extension_stats_to_json (const ZotExtensionStats *stats)
{
  JsonObject *object;

  g_return_val_if_fail (stats != NULL, NULL);

  object = json_object_new ();
  json_object_set_boolean_member (object, "running", stats->running);
  json_object_set_int_member (object, "cpu_us", (gint64) stats->cpu_us);
  json_object_set_int_member (object, "resident_bytes", (gint64) stats->resident_bytes);
  json_object_set_int_member (object, "frames_in", (gint64) stats->frames_in);
  json_object_set_int_member (object, "frames_out", (gint64) stats->frames_out);
  json_object_set_int_member (object, "bytes_in", (gint64) stats->bytes_in);
  json_object_set_int_member (object, "bytes_out", (gint64) stats->bytes_out);
  json_object_set_int_member (object, "tool_calls", (gint64) stats->tool_calls);
  json_object_set_int_member (object, "latency_samples", stats->latency_samples);
  if (stats->latency_samples > 0)
    {
      json_object_set_int_member (object, "latency_p50_us", stats->latency_p50_us);
      json_object_set_int_member (object, "latency_p95_us", stats->latency_p95_us);
    }
  else
    {
      json_object_set_null_member (object, "latency_p50_us");
      json_object_set_null_member (object, "latency_p95_us");
    }
  json_object_set_int_member (object, "intercepts", (gint64) stats->intercepts);
  json_object_set_int_member (object, "intercept_turn_us", (gint64) stats->intercept_turn_us);
  json_object_set_int_member (object, "intercept_total_us", (gint64) stats->intercept_total_us);
  return object;
}

static char *
format_count (guint64 n)
{
  if (n < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  if (n < 1000 * 1000)
    /* Translators: a count in thousands, like 1.2k */
    return g_strdup_printf (_("%.1fk"), n / 1000.0);
  /* Translators: a count in millions, like 3.4M */
  return g_strdup_printf (_("%.1fM"), n / 1000000.0);
}

static char *
format_ms (gint64 us)
{
  /* Translators: a duration in milliseconds */
  if (us < 10 * 1000)
    return g_strdup_printf (_("%.1f ms"), us / 1000.0);
  if (us < 10 * G_USEC_PER_SEC)
    return g_strdup_printf (_("%.0f ms"), us / 1000.0);
  /* Translators: a duration in seconds */
  return g_strdup_printf (_("%.1f s"), us / (double) G_USEC_PER_SEC);
}

/**
 * zot_extension_stats_format_line:
 *
 * Returns: (transfer full) (nullable): the one line the extensions page
 *   shows, like "0.4 s CPU · 18.0 MB · 1.2k frames · p95 40 ms"; %NULL
 *   when nothing was measured (it never ran)
 */
char *
zot_extension_stats_format_line (const ZotExtensionStats *stats)
{
  g_autoptr(GString) line = NULL;
  g_autofree char *memory = NULL;
  g_autofree char *frames = NULL;
  guint64 n_frames;

  g_return_val_if_fail (stats != NULL, NULL);

  n_frames = stats->frames_in + stats->frames_out;
  if (n_frames == 0 && stats->cpu_us == 0)
    return NULL;

  line = g_string_new (NULL);
  /* Translators: CPU time in seconds, on the extensions page */
  g_string_append_printf (line, _("%.1f s CPU"), stats->cpu_us / (double) G_USEC_PER_SEC);
  if (stats->resident_bytes > 0)
    {
      memory = g_format_size (stats->resident_bytes);
      g_string_append_printf (line, " · %s", memory);
    }
  frames = format_count (n_frames);
  g_string_append (line, " · ");
  /* Translators: %s is a count like 12 or 1.2k */
  g_string_append_printf (line, g_dngettext (GETTEXT_PACKAGE, "%s frame", "%s frames",
                                             (gulong) MIN (n_frames, G_MAXULONG)),
                          frames);
  if (stats->latency_samples > 0)
    {
      g_autofree char *p95 = format_ms (stats->latency_p95_us);

      g_string_append (line, " · ");
      /* Translators: the 95th percentile of tool-call latency, like "p95 40 ms" */
      g_string_append_printf (line, _("p95 %s"), p95);
    }
  return g_string_free (g_steal_pointer (&line), FALSE);
}

/**
 * zot_extension_stats_format_details:
 *
 * Returns: (transfer full): the figures in full, a line each
 */
char *
zot_extension_stats_format_details (const ZotExtensionStats *stats)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *memory = NULL;
  g_autofree char *bytes_in = NULL;
  g_autofree char *bytes_out = NULL;
  g_autofree char *turn = NULL;
  g_autofree char *total = NULL;
  g_autofree char *frames_in = NULL;
  g_autofree char *frames_out = NULL;
  g_autofree char *intercepts = NULL;

  g_return_val_if_fail (stats != NULL, NULL);

  /* Counts as text: a PRI macro cannot be in a translatable string. */
  frames_in = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->frames_in);
  frames_out = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->frames_out);
  intercepts = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->intercepts);

  g_string_append_printf (text, _("CPU time: %.2f s"), stats->cpu_us / (double) G_USEC_PER_SEC);
  g_string_append_c (text, '\n');
  if (stats->resident_bytes > 0)
    {
      memory = g_format_size (stats->resident_bytes);
      g_string_append_printf (text, _("Memory: %s resident"), memory);
    }
  else
    g_string_append (text, _("Memory: unknown"));
  g_string_append_c (text, '\n');

  bytes_in = g_format_size (stats->bytes_in);
  bytes_out = g_format_size (stats->bytes_out);
  /* Translators: frames and bytes read from the extension, then written to it */
  g_string_append_printf (text, _("Frames: %s in (%s), %s out (%s)"),
                          frames_in, bytes_in, frames_out, bytes_out);
  g_string_append_c (text, '\n');

  if (stats->latency_samples > 0)
    {
      g_autofree char *p50 = format_ms (stats->latency_p50_us);
      g_autofree char *p95 = format_ms (stats->latency_p95_us);
      g_autofree char *calls = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->tool_calls);

      /* Translators: tool calls answered; the median and 95th percentile of
       * their latency over the last %u of them */
      g_string_append_printf (text, _("Tool calls: %s; latency p50 %s, p95 %s (last %u)"),
                              calls, p50, p95, stats->latency_samples);
    }
  else
    g_string_append (text, _("Tool calls: none"));
  g_string_append_c (text, '\n');

  turn = format_ms ((gint64) stats->intercept_turn_us);
  total = format_ms ((gint64) stats->intercept_total_us);
  /* Translators: the time the extension's interceptors added to the last
   * turn, in all, and how many interceptions that was */
  g_string_append_printf (text, _("Interceptors: %s in the last turn, %s in all (%s)"),
                          turn, total, intercepts);

  return g_string_free (g_steal_pointer (&text), FALSE);
}
