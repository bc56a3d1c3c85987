/* bench-panel-list.c — a native panel with a list of 10,000 rows.
 *
 * Prints how long the core takes to validate the tree, how long the window
 * takes to build it and paint its first frame, how long a re-render with
 * one row changed takes, and the frame times from the frame clock while
 * the list scrolls from top to bottom. Run it under Xvfb with the cairo
 * renderer, as the window's tests run:
 *
 *   xvfb-run -a -s "-screen 0 1400x900x24" env GSK_RENDERER=cairo \
 *     meson test -C build --benchmark panel-list -v
 *
 * It prints figures and asserts nothing.
 */
#include "config.h"

#include <adwaita.h>

#include "zot-error.h"
#include "zot-extension.h"
#include "zot-panel-list.h"
#include "zot-panel-widgets-view.h"

#define N_ROWS     10000
#define N_SCROLLS  60

typedef struct
{
  GArray  *intervals;   /* ms between painted frames */
  gint64   last;
  guint    painted;
} Frames;

static void
on_after_paint (GdkFrameClock *clock,
                Frames        *frames)
{
  gint64 now = gdk_frame_clock_get_frame_time (clock);

  if (frames->last != 0)
    {
      double ms = (now - frames->last) / 1000.0;

      g_array_append_val (frames->intervals, ms);
    }
  frames->last = now;
  frames->painted++;
}

/* Iterates the main context until one more frame is painted. */
static double
wait_frame (Frames *frames)
{
  guint before = frames->painted;
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = start + 10 * G_TIME_SPAN_SECOND;

  while (frames->painted == before && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  return (g_get_monotonic_time () - start) / 1000.0;
}

static JsonObject *
description (guint changed)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, "bench");
  json_builder_set_member_name (builder, "widgets");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, "rows");
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "list");
  json_builder_set_member_name (builder, "max_height");
  json_builder_add_int_value (builder, 600);
  json_builder_set_member_name (builder, "rows");
  json_builder_begin_array (builder);
  for (guint i = 0; i < N_ROWS; i++)
    {
      g_autofree char *id = g_strdup_printf ("r%u", i);
      g_autofree char *title = g_strdup_printf ("Row %u%s", i, i == changed ? " (changed)" : "");

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, id);
      json_builder_set_member_name (builder, "title");
      json_builder_add_string_value (builder, title);
      json_builder_set_member_name (builder, "subtitle");
      json_builder_add_string_value (builder, "a subtitle");
      json_builder_set_member_name (builder, "checked");
      json_builder_add_boolean_value (builder, i % 3 == 0);
      json_builder_set_member_name (builder, "buttons");
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, "delete");
      json_builder_set_member_name (builder, "label");
      json_builder_add_string_value (builder, "Delete");
      json_builder_set_member_name (builder, "icon");
      json_builder_add_string_value (builder, "user-trash-symbolic");
      json_builder_end_object (builder);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_object_ref (json_node_get_object (root));
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return x < y ? -1 : x > y;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = g_error_new (ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_SPAWN, "bench");
  g_autoptr(ZotExtension) extension = NULL;
  g_autoptr(JsonObject) first = description (G_MAXUINT);
  g_autoptr(JsonObject) second = description (N_ROWS / 2);
  g_autoptr(ZotPanel) panel = NULL;
  Frames frames = { 0 };
  GtkWindow *window;
  GtkWidget *scroller;
  GtkWidget *view;
  GtkWidget *list;
  GtkAdjustment *adjustment;
  GdkFrameClock *clock;
  gint64 start;
  double parse_ms;
  double render_ms;
  double first_frame_ms;
  double update_parse_ms;
  double update_ms;
  double update_frame_ms;
  double p50;
  double p95;
  double max;

  adw_init ();
  frames.intervals = g_array_new (FALSE, FALSE, sizeof (double));
  extension = zot_extension_new_failed ("/nonexistent/bench", ZOT_EXTENSION_SCOPE_EXPLICIT, error);

  start = g_get_monotonic_time ();
  panel = zot_panel_new (extension, first);
  parse_ms = (g_get_monotonic_time () - start) / 1000.0;

  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 480, 700);
  scroller = gtk_scrolled_window_new ();
  view = zot_panel_widgets_view_new (panel);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_window_set_child (window, scroller);
  gtk_window_present (window);
  while (!gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &frames);
  wait_frame (&frames);

  start = g_get_monotonic_time ();
  zot_panel_widgets_view_render (ZOT_PANEL_WIDGETS_VIEW (view), zot_panel_get_widgets (panel));
  render_ms = (g_get_monotonic_time () - start) / 1000.0;
  first_frame_ms = render_ms + wait_frame (&frames);

  start = g_get_monotonic_time ();
  zot_panel_update (panel, second);
  update_parse_ms = (g_get_monotonic_time () - start) / 1000.0;
  start = g_get_monotonic_time ();
  zot_panel_widgets_view_render (ZOT_PANEL_WIDGETS_VIEW (view), zot_panel_get_widgets (panel));
  update_ms = (g_get_monotonic_time () - start) / 1000.0;
  update_frame_ms = update_ms + wait_frame (&frames);

  list = zot_panel_widgets_view_lookup (ZOT_PANEL_WIDGETS_VIEW (view), "rows");
  adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (zot_panel_list_get_view (ZOT_PANEL_LIST (list))));
  g_array_set_size (frames.intervals, 0);
  frames.last = 0;
  for (guint i = 1; i <= N_SCROLLS; i++)
    {
      double upper = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

      gtk_adjustment_set_value (adjustment, upper * i / N_SCROLLS);
      wait_frame (&frames);
    }

  /* The floor: frames that only repaint the same window. */
  g_array_sort (frames.intervals, compare_doubles);
  {
    g_autoptr(GArray) scroll = g_array_copy (frames.intervals);

    g_array_set_size (frames.intervals, 0);
    frames.last = 0;
    for (guint i = 0; i < N_SCROLLS; i++)
      {
        gtk_widget_queue_draw (GTK_WIDGET (window));
        wait_frame (&frames);
      }
    g_array_sort (frames.intervals, compare_doubles);
    g_print ("repaint only (baseline): median %.1f ms, max %.1f ms\n",
             frames.intervals->len ? g_array_index (frames.intervals, double, frames.intervals->len / 2) : 0,
             frames.intervals->len ? g_array_index (frames.intervals, double, frames.intervals->len - 1) : 0);
    g_array_unref (frames.intervals);
    frames.intervals = g_steal_pointer (&scroll);
  }
  p50 = frames.intervals->len ? g_array_index (frames.intervals, double, frames.intervals->len / 2) : 0;
  p95 = frames.intervals->len ? g_array_index (frames.intervals, double, frames.intervals->len * 95 / 100) : 0;
  max = frames.intervals->len ? g_array_index (frames.intervals, double, frames.intervals->len - 1) : 0;

  g_print ("native panel list, %u rows (renderer %s)\n", N_ROWS,
           g_getenv ("GSK_RENDERER") ? g_getenv ("GSK_RENDERER") : "default");
  g_print ("  validate tree (core)          %8.1f ms\n", parse_ms);
  g_print ("  build widgets                 %8.1f ms\n", render_ms);
  g_print ("  build + first frame           %8.1f ms\n", first_frame_ms);
  g_print ("  re-render, one row changed    %8.1f ms validate, %.1f ms update, %.1f ms to the frame\n",
           update_parse_ms, update_ms, update_frame_ms);
  g_print ("  rows in the model             %8u\n",
           g_list_model_get_n_items (zot_panel_list_get_model (ZOT_PANEL_LIST (list))));
  g_print ("  scrolling top to bottom in %u steps, frame clock intervals:\n", N_SCROLLS);
  g_print ("    median %.1f ms, 95th percentile %.1f ms, max %.1f ms (%u frames)\n",
           p50, p95, max, frames.intervals->len);

  g_signal_handlers_disconnect_by_data (clock, &frames);
  gtk_window_destroy (window);
  g_array_unref (frames.intervals);
  return 0;
}
