/* bench-window.c — the window opening stored conversations of 20, 200 and
 * 2,000 messages.
 *
 * Each size runs in a process of its own (this program again, with
 * --one N), so that its resident memory is its own. A run generates a
 * conversation (prompts, Markdown replies with code blocks, tool calls
 * with multi-line results), opens the whole window on it with the demo
 * model, and prints:
 *
 *   - time to first frame: from making the window to the first frame
 *     painted with the conversation in its transcript (the view makes
 *     rows for the items in view only);
 *   - time until idle: to the last frame before the window paints nothing
 *     for IDLE_QUIET_MS;
 *   - resident memory once idle, and again after scrolling (rows kept
 *     for items out of view, TRANSCRIPT_ROW_CACHE of them at most);
 *   - frame times from the frame clock while the transcript scrolls from
 *     the bottom to the top in N_SCROLLS steps: the work of each frame
 *     (before-paint to after-paint) and the interval between frames;
 *   - the time from each scroll step to the end of the frame that shows
 *     it: the frame's work and what moving the value costs before it.
 *
 * Run it under Xvfb with the cairo renderer, as the window's tests run:
 *
 *   xvfb-run -a -s "-screen 0 1400x900x24" env GSK_RENDERER=cairo \
 *     meson test -C build --benchmark window -v
 *
 * It prints figures and asserts nothing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <adwaita.h>

#include "zot-application.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-session.h"
#include "zot-transcript-private.h"
#include "zot-window.h"
#include "zot-window-private.h"

/* Pixels a frame: 12,000 a second at 60 frames a second. */
#define SCROLL_STEP        200.0
#define MAX_SCROLL_FRAMES  2000
#define IDLE_QUIET_MS  500

static const guint sizes[] = { 20, 200, 2000 };

#define N_RUNS     3
#define N_FIGURES  15

typedef struct
{
  GArray  *intervals;   /* ms between painted frames */
  GArray  *work;        /* ms from before-paint to after-paint */
  gint64   last;
  gint64   began;
  gint64   last_painted; /* monotonic, µs */
  guint    painted;
} Frames;

static void
on_before_paint (GdkFrameClock *clock,
                 Frames        *frames)
{
  frames->began = g_get_monotonic_time ();
}

static void
on_after_paint (GdkFrameClock *clock,
                Frames        *frames)
{
  gint64 now = gdk_frame_clock_get_frame_time (clock);
  gint64 end = g_get_monotonic_time ();

  if (frames->last != 0)
    {
      double ms = (now - frames->last) / 1000.0;

      g_array_append_val (frames->intervals, ms);
    }
  if (frames->began != 0)
    {
      double ms = (end - frames->began) / 1000.0;

      g_array_append_val (frames->work, ms);
    }
  frames->last = now;
  frames->last_painted = end;
  frames->painted++;
}

static void
wait_frame (Frames *frames)
{
  guint before = frames->painted;
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  while (frames->painted == before && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
quiet_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates until no frame is painted for IDLE_QUIET_MS. */
static void
wait_idle (Frames *frames)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  while (g_get_monotonic_time () < deadline)
    {
      guint before = frames->painted;
      gboolean quiet = FALSE;
      guint id = g_timeout_add (IDLE_QUIET_MS, quiet_cb, &quiet);

      while (!quiet && frames->painted == before)
        g_main_context_iteration (NULL, TRUE);
      if (quiet)
        return;
      g_source_remove (id);
    }
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
percentile (GArray *values,
            guint   percent)
{
  if (values->len == 0)
    return 0;
  g_array_sort (values, compare_doubles);
  return g_array_index (values, double, MIN (values->len - 1, values->len * percent / 100));
}

static double
bench_median_of (double *values,
                 guint   n)
{
  qsort (values, n, sizeof (double), (int (*) (const void *, const void *)) compare_doubles);
  return values[n / 2];
}

static double
resident_mib (void)
{
  g_autofree char *statm = NULL;
  unsigned long size = 0;
  unsigned long resident = 0;

  if (!g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL) ||
      sscanf (statm, "%lu %lu", &size, &resident) != 2)
    return 0;
  return resident * (double) sysconf (_SC_PAGESIZE) / (1024 * 1024);
}

/* Conversations */

static void
add_entry (GString    *file,
           JsonObject *message)
{
  g_autoptr(JsonObject) entry = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *line = NULL;

  json_object_set_string_member (entry, "type", "message");
  json_object_set_object_member (entry, "message", message);
  json_node_set_object (node, entry);
  json_generator_set_root (generator, node);
  line = json_generator_to_data (generator, NULL);
  g_string_append_printf (file, "%s\n", line);
}

static JsonObject *
text_message (const char *role,
              const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", role);
  json_object_set_array_member (message, "content", zot_content_new_text (text));
  return message;
}

/* @n messages in rounds of four: a prompt, a reply that calls bash, the
 * result, and a Markdown reply with a code block. */
static char *
write_conversation (const char *cwd,
                    guint       n)
{
  g_autofree char *dir = zot_session_get_directory_for_cwd (cwd);
  g_autofree char *canonical = zot_paths_canonicalize (cwd);
  g_autofree char *name = g_strdup_printf ("bench-%u.jsonl", n);
  char *path = g_build_filename (dir, name, NULL);
  GString *file = g_string_new (NULL);

  g_mkdir_with_parents (dir, 0700);
  g_string_append_printf (file, "{\"type\":\"session\",\"version\":1,\"id\":\"bench-%u\",\"cwd\":\"%s\","
                          "\"created\":\"2024-05-01T10:00:00Z\"}\n", n, canonical);

  for (guint i = 0; i < n; i++)
    {
      guint round = i / 4;

      switch (i % 4)
        {
        case 0:
          {
            g_autofree char *text = g_strdup_printf ("Step %u: look at src/module-%u.c and tell me what "
                                                     "its parse function does with empty input.", round, round);

            add_entry (file, text_message ("user", text));
          }
          break;

        case 1:
          {
            JsonObject *message = text_message ("assistant", "Let me read it first.");
            JsonObject *call = json_object_new ();
            JsonObject *input = json_object_new ();
            g_autofree char *id = g_strdup_printf ("call_%u", round);
            g_autofree char *command = g_strdup_printf ("sed -n 1,40p src/module-%u.c", round);

            json_object_set_string_member (input, "command", command);
            json_object_set_string_member (call, "type", "tool_use");
            json_object_set_string_member (call, "id", id);
            json_object_set_string_member (call, "name", "bash");
            json_object_set_object_member (call, "input", input);
            json_array_add_object_element (json_object_get_array_member (message, "content"), call);
            add_entry (file, message);
          }
          break;

        case 2:
          {
            g_autoptr(GString) output = g_string_new (NULL);
            JsonObject *message = json_object_new ();
            JsonArray *content = json_array_new ();
            JsonObject *result = json_object_new ();
            g_autofree char *id = g_strdup_printf ("call_%u", round);

            for (guint line = 0; line < 30; line++)
              g_string_append_printf (output, "%4u  static int parse_%u (const char *s) { return s[%u]; }\n",
                                      line + 1, line, line);
            json_object_set_string_member (result, "type", "tool_result");
            json_object_set_string_member (result, "tool_use_id", id);
            json_object_set_boolean_member (result, "is_error", FALSE);
            json_object_set_array_member (result, "content", zot_content_new_text (output->str));
            json_array_add_object_element (content, result);
            json_object_set_string_member (message, "role", "tool");
            json_object_set_array_member (message, "content", content);
            add_entry (file, message);
          }
          break;

        default:
          {
            g_autofree char *text = g_strdup_printf (
              "## What `parse` does\n\n"
              "With **empty input** it returns early. In round %u:\n\n"
              "- it checks `s == NULL` first;\n"
              "- then it reads *one* character;\n"
              "- and it never allocates.\n\n"
              "```c\n"
              "static int\n"
              "parse (const char *s)\n"
              "{\n"
              "  if (s == NULL || *s == '\\0')\n"
              "    return -1;\n"
              "  return s[0];\n"
              "}\n"
              "```\n\n"
              "A [reference](https://example.org/parse) has more.", round);

            add_entry (file, text_message ("assistant", text));
          }
          break;
        }
    }

  g_file_set_contents (path, file->str, (gssize) file->len, NULL);
  g_string_free (file, TRUE);
  return path;
}

/* One size, in this process: prints one line of figures. */
static int
run_one (guint n)
{
  g_autofree char *root = g_dir_make_tmp ("zot-bench-window-XXXXXX", NULL);
  g_autofree char *home = g_build_filename (root, "home", NULL);
  g_autofree char *cwd = g_build_filename (root, "project", NULL);
  g_autofree char *path = NULL;
  g_autofree char *command = NULL;
  g_auto(ZotHostOptions) options = { 0 };
  ZotApplication *application;
  ZotWindow *window;
  GtkAdjustment *adjustment;
  GdkFrameClock *clock;
  Frames frames = { 0 };
  gint64 start;
  double first_ms;
  double idle_ms;
  double rss;
  guint rows;
  guint scrolled_frames;
  GArray *steps;

  g_mkdir_with_parents (home, 0700);
  g_mkdir_with_parents (cwd, 0700);
  g_setenv ("ZOT_HOME", home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  path = write_conversation (cwd, n);

  adw_init ();
  /* A blinking text cursor paints for ten seconds: that is not the
   * conversation's cost. */
  g_object_set (gtk_settings_get_default (), "gtk-cursor-blink", FALSE, NULL);
  application = zot_application_new ();
  g_application_set_flags (G_APPLICATION (application),
                           G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (application), NULL, NULL);

  options.cwd = g_strdup (cwd);
  options.provider.name = g_strdup ("demo");
  options.session_path = g_strdup (path);
  options.no_ext = TRUE;
  options.interactive = TRUE;

  frames.intervals = g_array_new (FALSE, FALSE, sizeof (double));
  frames.work = g_array_new (FALSE, FALSE, sizeof (double));
  steps = g_array_new (FALSE, FALSE, sizeof (double));

  start = g_get_monotonic_time ();
  window = ZOT_WINDOW (zot_window_new (application, &options, TRUE));
  gtk_window_set_default_size (GTK_WINDOW (window), 1390, 860);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_realized (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), &frames);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &frames);

  /* The first frame that shows the conversation. */
  while (g_list_model_get_n_items (_zot_transcript_get_items (window->transcript)) == 0)
    g_main_context_iteration (NULL, TRUE);
  wait_frame (&frames);
  first_ms = (frames.last_painted - start) / 1000.0;

  wait_idle (&frames);
  idle_ms = (frames.last_painted - start) / 1000.0;
  rss = resident_mib ();
  rows = g_list_model_get_n_items (_zot_transcript_get_items (window->transcript));

  /* Bottom to top, SCROLL_STEP pixels a frame, as a fast flick does;
   * the view's estimate of its height changes as rows are measured, so
   * the steps follow the value, not a precomputed path. */
  adjustment = _zot_transcript_get_vadjustment (window->transcript);
  g_array_set_size (frames.intervals, 0);
  g_array_set_size (frames.work, 0);
  frames.last = 0;
  for (guint i = 0;
       i < MAX_SCROLL_FRAMES &&
       gtk_adjustment_get_value (adjustment) > 0;
       i++)
    {
      gint64 stepped = g_get_monotonic_time ();
      double ms;

      gtk_adjustment_set_value (adjustment, MAX (0, gtk_adjustment_get_value (adjustment) - SCROLL_STEP));
      wait_frame (&frames);
      ms = (frames.last_painted - stepped) / 1000.0;
      g_array_append_val (steps, ms);
    }
  scrolled_frames = frames.work->len;

  g_print ("%u %.1f %.1f %.1f %.2f %.2f %.2f %.2f %.2f %u %u %u %.2f %.2f %.1f\n", n, first_ms, idle_ms, rss,
           percentile (frames.work, 50), percentile (frames.work, 95), percentile (frames.work, 100),
           percentile (frames.intervals, 50), percentile (frames.intervals, 95), rows,
           _zot_transcript_get_n_rows_created (window->transcript), scrolled_frames,
           percentile (steps, 50), percentile (steps, 95), resident_mib ());

  g_signal_handlers_disconnect_by_data (clock, &frames);
  gtk_window_destroy (GTK_WINDOW (window));
  g_array_unref (frames.intervals);
  g_array_unref (frames.work);
  g_array_unref (steps);
  command = g_strdup_printf ("rm -rf '%s'", root);
  (void) !system (command);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  double first[G_N_ELEMENTS (sizes)] = { 0 };
  double rss[G_N_ELEMENTS (sizes)] = { 0 };
  double rss_scrolled[G_N_ELEMENTS (sizes)] = { 0 };
  double worst_p95 = 0;

  if (argc == 3 && g_str_equal (argv[1], "--one"))
    return run_one ((guint) atoi (argv[2]));

  g_print ("the window opening a stored conversation (renderer %s; scrolling bottom to top, %.0f px a frame;\n"
           "median of %u runs per size, each in a process of its own)\n",
           g_getenv ("GSK_RENDERER") ? g_getenv ("GSK_RENDERER") : "default", SCROLL_STEP, N_RUNS);
  g_print ("  messages  first frame  until idle  resident idle/scrolled   frame work p50/p95/max   interval p50/p95"
           "   step p50/p95   frames  row widgets\n");

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *size = g_strdup_printf ("%u", sizes[i]);
      const char *child_argv[] = { argv[0], "--one", size, NULL };
      double runs[N_RUNS][N_FIGURES];
      double median[N_FIGURES];
      guint ok = 0;

      for (guint r = 0; r < N_RUNS; r++)
        {
          g_autofree char *out = NULL;
          g_autoptr(GError) error = NULL;
          double *v = runs[ok];
          int status = 0;

          if (!g_spawn_sync (NULL, (char **) child_argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status,
                             &error) ||
              sscanf (out, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2],
                      &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13],
                      &v[14]) != N_FIGURES)
            {
              g_print ("  %8u  a run failed: %s\n", sizes[i], error ? error->message : out);
              continue;
            }
          ok++;
        }
      if (ok == 0)
        continue;

      for (guint k = 0; k < N_FIGURES; k++)
        {
          double column[N_RUNS];

          for (guint r = 0; r < ok; r++)
            column[r] = runs[r][k];
          median[k] = bench_median_of (column, ok);
        }

      first[i] = median[1];
      rss[i] = median[3];
      rss_scrolled[i] = median[14];
      worst_p95 = MAX (worst_p95, median[5]);
      g_print ("  %8.0f  %8.0f ms  %7.0f ms  %5.0f / %5.0f MiB       %5.1f / %5.1f / %5.1f ms   %5.1f / %5.1f ms"
               "   %5.1f / %5.1f ms  %6.0f  %5.0f\n",
               median[0], median[1], median[2], median[3], median[14], median[4], median[5], median[6], median[7],
               median[8], median[12], median[13], median[11], median[10]);
    }

  if (first[0] <= 0 || first[2] <= 0)
    {
      g_printerr ("no figures: every run of a size failed (see above)\n");
      return 1;
    }
  g_print ("  first frame, 2,000 vs 20 messages: %.2fx (target <= 1.5x)\n", first[2] / first[0]);
  g_print ("  frame work p95 while scrolling, worst size: %.1f ms (target <= 16 ms)\n", worst_p95);
  g_print ("  memory growth, 20 -> 2,000 messages: %.1f MiB idle, %.1f MiB after scrolling (target < 50 MiB)\n",
           rss[2] - rss[0], rss_scrolled[2] - rss_scrolled[0]);
  return 0;
}
