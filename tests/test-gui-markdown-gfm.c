/* test-gui-markdown-gfm.c — Markdown as GitHub renders it, under a
 * display: a table is a grid of its cells, strikethrough is struck, task
 * list items show their boxes, bare addresses are links, and a long code
 * line scrolls sideways inside its block instead of wrapping. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "zot-gui-test-util.h"
#include "zot-markdown.h"

typedef struct
{
  GtkWidget *window;
  GtkWidget *view;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->window = gtk_window_new ();
  f->view = zot_markdown_view_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 360, 400);
  gtk_window_set_child (GTK_WINDOW (f->window), f->view);
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
}

/* The first label under @root whose markup contains @needle. */
static GtkLabel *
find_label (GtkWidget  *root,
            const char *css_class,
            const char *needle)
{
  g_autoptr(GPtrArray) labels = zot_test_find_widgets (root, GTK_TYPE_LABEL, css_class);

  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_label (g_ptr_array_index (labels, i)), needle) != NULL)
      return g_ptr_array_index (labels, i);

  return NULL;
}

/* A wheel turned over the block scrolls the transcript: nothing in the
 * block's scroller takes vertical scrolling. */
static void
assert_leaves_vertical_scrolling (GtkWidget *scroller)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (scroller);
  guint n_scroll = 0;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller))
        {
          GtkEventControllerScrollFlags flags =
            gtk_event_controller_scroll_get_flags (GTK_EVENT_CONTROLLER_SCROLL (controller));

          g_assert_false (flags & GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
          g_assert_true (flags & GTK_EVENT_CONTROLLER_SCROLL_HORIZONTAL);
          n_scroll++;
        }
    }
  g_assert_cmpuint (n_scroll, >, 0);
}

static const char *
cell_text (GtkWidget *grid,
           int        column,
           int        row)
{
  GtkWidget *cell = gtk_grid_get_child_at (GTK_GRID (grid), column, row);

  g_assert_true (GTK_IS_LABEL (cell));
  return gtk_label_get_text (GTK_LABEL (cell));
}

static void
test_table (Fixture       *f,
            gconstpointer  data)
{
  GtkWidget *grid;
  GtkWidget *header;

  zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (f->view),
                                  "Sizes:\n\n"
                                  "| Name | Size |\n"
                                  "|------|-----:|\n"
                                  "| alpha | 1 |\n"
                                  "| **beta** | 22 |\n");

  grid = zot_test_find_widget (f->view, GTK_TYPE_GRID, "markdown-table");
  g_assert_nonnull (grid);
  g_assert_cmpstr (cell_text (grid, 0, 0), ==, "Name");
  g_assert_cmpstr (cell_text (grid, 1, 0), ==, "Size");
  g_assert_cmpstr (cell_text (grid, 0, 1), ==, "alpha");
  g_assert_cmpstr (cell_text (grid, 1, 1), ==, "1");
  g_assert_cmpstr (cell_text (grid, 0, 2), ==, "beta");
  g_assert_cmpstr (cell_text (grid, 1, 2), ==, "22");
  g_assert_null (gtk_grid_get_child_at (GTK_GRID (grid), 2, 0));
  g_assert_null (gtk_grid_get_child_at (GTK_GRID (grid), 0, 3));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 0, 2))),
                            "<b>beta</b>"));

  header = gtk_grid_get_child_at (GTK_GRID (grid), 0, 0);
  g_assert_true (gtk_widget_has_css_class (header, "heading"));
  g_assert_false (gtk_widget_has_css_class (gtk_grid_get_child_at (GTK_GRID (grid), 0, 1), "heading"));

  /* No raw pipes are left anywhere. */
  g_assert_null (find_label (f->view, NULL, "|"));
  /* A wide table scrolls inside its block. */
  g_assert_true (GTK_IS_SCROLLED_WINDOW (gtk_widget_get_ancestor (grid, GTK_TYPE_SCROLLED_WINDOW)));
  assert_leaves_vertical_scrolling (gtk_widget_get_ancestor (grid, GTK_TYPE_SCROLLED_WINDOW));
}

static void
test_inline (Fixture       *f,
             gconstpointer  data)
{
  GtkLabel *label;

  zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (f->view),
                                  "~~gone~~ kept, see www.example.com and https://zot.dev/x.\n");

  label = find_label (f->view, "markdown-paragraph", "kept");
  g_assert_nonnull (label);
  g_assert_nonnull (strstr (gtk_label_get_label (label), "<s>gone</s>"));
  g_assert_null (strstr (gtk_label_get_text (label), "~"));
  g_assert_nonnull (strstr (gtk_label_get_label (label), "<a href=\"http://www.example.com\">www.example.com</a>"));
  g_assert_nonnull (strstr (gtk_label_get_label (label), "<a href=\"https://zot.dev/x\">https://zot.dev/x</a>"));
}

static GtkWidget *
find_item (GtkWidget  *root,
           const char *needle)
{
  g_autoptr(GPtrArray) items = zot_test_find_widgets (root, GTK_TYPE_GRID, "markdown-item");

  for (guint i = 0; i < items->len; i++)
    {
      g_autofree char *text = zot_test_widget_text (g_ptr_array_index (items, i));

      if (strstr (text, needle) != NULL)
        return g_ptr_array_index (items, i);
    }

  return NULL;
}

static void
test_task_list (Fixture       *f,
                gconstpointer  data)
{
  GtkWidget *done;
  GtkWidget *todo;
  GtkWidget *plain;

  zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (f->view),
                                  "- [x] done thing\n- [ ] todo thing\n- plain thing\n");

  done = find_item (f->view, "done thing");
  todo = find_item (f->view, "todo thing");
  plain = find_item (f->view, "plain thing");
  g_assert_nonnull (done);
  g_assert_nonnull (todo);
  g_assert_nonnull (plain);
  g_assert_cmpstr (gtk_label_get_text (find_label (done, "markdown-marker", "")), ==, "☑");
  g_assert_cmpstr (gtk_label_get_text (find_label (todo, "markdown-marker", "")), ==, "☐");
  g_assert_cmpstr (gtk_label_get_text (find_label (plain, "markdown-marker", "")), ==, "•");
  g_assert_null (find_label (f->view, NULL, "[x]"));
  g_assert_null (find_label (f->view, NULL, "[ ]"));
}

static gboolean
scrolls_sideways (GtkAdjustment *adjustment)
{
  double page = gtk_adjustment_get_page_size (adjustment);

  return page > 0 && gtk_adjustment_get_upper (adjustment) > page;
}

static void
test_long_code_line (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GString) markdown = g_string_new ("```\nshort\n");
  GtkWidget *view;
  GtkWidget *scroller;
  GtkAdjustment *hadjustment;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  int height;

  for (guint i = 0; i < 60; i++)
    g_string_append (markdown, "word_");
  g_string_append (markdown, "\n```\n");
  zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (f->view), markdown->str);

  view = zot_test_find_widget (f->view, GTK_SOURCE_TYPE_VIEW, NULL);
  g_assert_nonnull (view);
  g_assert_cmpint (gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (view)), ==, GTK_WRAP_NONE);
  scroller = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull (scroller);
  g_assert_true (gtk_widget_is_ancestor (scroller, f->view));
  assert_leaves_vertical_scrolling (scroller);

  hadjustment = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
  while ((!scrolls_sideways (hadjustment) || gtk_widget_get_height (view) == 0) &&
         g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (scrolls_sideways (hadjustment));

  /* Two lines high, not wrapped into many: the 300 characters are wider
   * than the 360 px window. */
  height = gtk_widget_get_height (view);
  g_assert_cmpint (height, >, 0);
  g_assert_cmpint (gtk_widget_get_width (f->window), <, 600);
  {
    PangoLayout *layout = gtk_widget_create_pango_layout (view, "X");
    int line_height;

    pango_layout_get_pixel_size (layout, NULL, &line_height);
    g_object_unref (layout);
    g_assert_cmpint (height, <, 4 * line_height + 40);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  gtk_source_init ();

#ifdef HAVE_CMARK_GFM
  g_test_add ("/zot/gui/markdown-gfm/table", Fixture, NULL, fixture_setup, test_table, fixture_teardown);
  g_test_add ("/zot/gui/markdown-gfm/inline", Fixture, NULL, fixture_setup, test_inline, fixture_teardown);
  g_test_add ("/zot/gui/markdown-gfm/task-list", Fixture, NULL, fixture_setup, test_task_list, fixture_teardown);
#endif
  g_test_add ("/zot/gui/markdown-gfm/long-code-line", Fixture, NULL, fixture_setup, test_long_code_line,
              fixture_teardown);

  return g_test_run ();
}
