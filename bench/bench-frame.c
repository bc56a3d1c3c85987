/* bench-frame.c — a 4 MiB frame through ZotFrameChannel, each way.
 *
 * Two channels face each other over a pair of pipes, which the channel
 * grows to 1 MiB as it does for a real extension. One sends a notify
 * whose message makes the line just under the 4 MiB frame cap; the other
 * reads, parses it and sends the parsed object back. Each direction is
 * timed from the send call to the frame-received signal at the other end.
 *
 * Baseline, in the same run: json_parser_load_from_data (a plain
 * json_parser_new) plus json_generator_to_data of the same line, once, in
 * process: the least any JSON transport must do with it.
 */
#define G_LOG_DOMAIN "zot-bench"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>

#include "bench-common.h"
#include "zot-frame-channel.h"
#include "zot-limits.h"

#define REPS   9
#define TARGET 1.2

typedef struct
{
  JsonObject *received;
  gboolean    done;
} Side;

static void
on_frame_received (ZotFrameChannel *channel,
                   JsonObject      *frame,
                   Side            *side)
{
  g_clear_pointer (&side->received, json_object_unref);
  side->received = json_object_ref (frame);
  side->done = TRUE;
}

static void
on_closed (ZotFrameChannel *channel,
           const GError    *error,
           Side            *side)
{
  if (error != NULL)
    g_error ("a channel closed: %s", error->message);
}

static ZotFrameChannel *
make_channel (int   input_fd,
              int   output_fd,
              Side *side)
{
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  ZotFrameChannel *channel;

  /* Both ends turn in this one thread: a blocking write of a frame
   * bigger than the pipe would wait for a reader that cannot run. */
  g_unix_set_fd_nonblocking (input_fd, TRUE, NULL);
  g_unix_set_fd_nonblocking (output_fd, TRUE, NULL);

  input = g_unix_input_stream_new (input_fd, TRUE);
  output = g_unix_output_stream_new (output_fd, TRUE);
  channel = zot_frame_channel_new (input, output);
  g_signal_connect (channel, "frame-received", G_CALLBACK (on_frame_received), side);
  g_signal_connect (channel, "closed", G_CALLBACK (on_closed), side);
  zot_frame_channel_start (channel);
  return channel;
}

/* A notify whose line is just under the cap: tool-output-like text, a
 * newline (escaped on the wire) every 100 characters. */
static JsonObject *
make_frame (gsize *line_length)
{
  const gsize budget = ZOT_FRAME_MAX_BYTES - 64;
  gsize text_length = budget - budget / 101;
  g_autofree char *text = g_malloc (text_length + 1);
  g_autofree char *line = NULL;
  JsonObject *frame;

  for (gsize i = 0; i < text_length; i++)
    text[i] = (i % 100 == 99) ? '\n' : (char) ('a' + (i % 26));
  text[text_length] = '\0';

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "notify");
  json_object_set_string_member (frame, "level", "info");
  json_object_set_string_member (frame, "message", text);

  line = bench_json_to_line (frame, line_length);
  g_assert (*line_length <= ZOT_FRAME_MAX_BYTES);
  return frame;
}

static double
baseline_run (const char *line,
              gsize       length)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  gsize out_length = 0;
  double start;
  double elapsed;

  start = bench_now ();
  if (!json_parser_load_from_data (parser, line, (gssize) length, &error))
    g_error ("baseline: %s", error->message);
  json_generator_set_root (generator, json_parser_get_root (parser));
  out = json_generator_to_data (generator, &out_length);
  elapsed = bench_now () - start;

  g_assert (out_length == length);
  return elapsed;
}

/* The reading channel checks UTF-8 with g_utf8_validate_len before
 * json_parser_load_from_data, which checks it again. */
static double
validate_run (const char *line,
              gsize       length)
{
  double start = bench_now ();

  if (!g_utf8_validate_len (line, length, NULL))
    g_error ("the frame is not UTF-8");
  return bench_now () - start;
}

/* The channel parses with json_parser_new_immutable (), which seals
 * every object, hashing each member in full: timed apart as the
 * difference from the plain parser. */
static double
seal_run (const char *line,
          gsize       length)
{
  g_autoptr(JsonParser) plain = json_parser_new ();
  g_autoptr(JsonParser) immutable = json_parser_new_immutable ();
  double start;
  double middle;
  double end;

  start = bench_now ();
  json_parser_load_from_data (plain, line, (gssize) length, NULL);
  middle = bench_now ();
  json_parser_load_from_data (immutable, line, (gssize) length, NULL);
  end = bench_now ();

  return (end - middle) - (middle - start);
}

static double
channel_run (ZotFrameChannel *from,
             JsonObject      *frame,
             Side            *to,
             double          *send_call)
{
  g_autoptr(GError) error = NULL;
  double start;
  double elapsed;

  to->done = FALSE;
  start = bench_now ();
  if (!zot_frame_channel_send (from, frame, ZOT_FRAME_NONE, &error))
    g_error ("send: %s", error->message);
  *send_call = bench_now () - start;
  bench_wait_for (&to->done, 30, "the frame");
  elapsed = bench_now () - start;

  return elapsed;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(JsonObject) frame = NULL;
  g_autoptr(ZotFrameChannel) host = NULL;
  g_autoptr(ZotFrameChannel) extension = NULL;
  g_autofree char *line = NULL;
  Side host_side = { 0 };
  Side extension_side = { 0 };
  double base[REPS];
  double out[REPS];
  double in[REPS];
  double out_call[REPS];
  double in_call[REPS];
  double validate[REPS];
  double seal[REPS];
  double base_ms;
  double out_ms;
  double in_ms;
  gsize length = 0;
  int to_extension[2];
  int to_host[2];

  bench_print_header ("bench-frame", "a 4 MiB frame through ZotFrameChannel over pipes vs parsing and "
                      "serialising it once");

  frame = make_frame (&length);
  line = bench_json_to_line (frame, NULL);

  if (!g_unix_open_pipe (to_extension, FD_CLOEXEC, NULL) || !g_unix_open_pipe (to_host, FD_CLOEXEC, NULL))
    g_error ("pipe: %s", g_strerror (errno));
  host = make_channel (to_host[0], to_extension[1], &host_side);
  extension = make_channel (to_extension[0], to_host[1], &extension_side);

  /* Warm up the allocator and the pipes once each way. */
  baseline_run (line, length);
  channel_run (host, frame, &extension_side, &out_call[0]);
  channel_run (extension, extension_side.received, &host_side, &in_call[0]);

  for (guint r = 0; r < REPS; r++)
    {
      base[r] = baseline_run (line, length) * 1e3;
      validate[r] = validate_run (line, length) * 1e3;
      seal[r] = seal_run (line, length) * 1e3;

      out[r] = channel_run (host, frame, &extension_side, &out_call[r]) * 1e3;
      out_call[r] *= 1e3;

      /* Back the other way: the object the extension end just parsed. */
      in[r] = channel_run (extension, extension_side.received, &host_side, &in_call[r]) * 1e3;
      in_call[r] *= 1e3;

      if (strlen (json_object_get_string_member (host_side.received, "message")) !=
          strlen (json_object_get_string_member (frame, "message")))
        g_error ("the frame came back changed");
    }

  base_ms = bench_median (base, REPS);
  out_ms = bench_median (out, REPS);
  in_ms = bench_median (in, REPS);

  g_print ("a %" G_GSIZE_FORMAT "-byte notify line (cap %" G_GSIZE_FORMAT "); 1 MiB pipes; "
           "median of %d interleaved runs\n\n", length, ZOT_FRAME_MAX_BYTES, REPS);
  g_print ("%-52s %10s %14s %8s\n", "path", "total", "send() call", "ratio");
  g_print ("%-52s %7.2f ms %14s %8s\n", "baseline: json_parser + json_generator, once", base_ms, "-", "1.00x");
  g_print ("%-52s %7.2f ms %11.2f ms %7.2fx\n", "ZotFrameChannel host -> extension (send to parsed)",
           out_ms, bench_median (out_call, REPS), out_ms / base_ms);
  g_print ("%-52s %7.2f ms %11.2f ms %7.2fx\n", "ZotFrameChannel extension -> host (send to parsed)",
           in_ms, bench_median (in_call, REPS), in_ms / base_ms);

  g_print ("\ntarget: each way within %.1fx of parsing and serialising the frame once\n", TARGET);
  g_print ("  host -> extension: %.2fx (%s)\n", out_ms / base_ms, bench_verdict (out_ms / base_ms <= TARGET));
  g_print ("  extension -> host: %.2fx (%s)\n", in_ms / base_ms, bench_verdict (in_ms / base_ms <= TARGET));
  g_print ("note: ~%.1f ms above the baseline; for scale, measured alone on the same line: sealing the\n"
           "parsed object %.1f ms (the channel does not seal), a separate UTF-8 check %.1f ms (the channel\n"
           "only checks on a parse error); what remains is the copy through the pipe, 1 MiB a main loop turn\n",
           (out_ms + in_ms) / 2 - base_ms, bench_median (seal, REPS), bench_median (validate, REPS));

  g_clear_pointer (&host_side.received, json_object_unref);
  g_clear_pointer (&extension_side.received, json_object_unref);
  zot_frame_channel_close (host);
  zot_frame_channel_close (extension);

  return 0;
}
