/* test-gui-transcript-list.c — the transcript as a list: items and the
 * rows its view makes and recycles for them, under a display. A long
 * conversation makes rows for the items in view only; a row follows its
 * item in place (streamed text, a tool's result) and shows nothing of the
 * item it showed before; rows measured above the view do not move what is
 * on screen; the view keeps to the end only while the user is there.
 * Every wait is a condition checked while the main loop runs, with a
 * deadline. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "zot-gui-test-util.h"
#include "zot-markdown.h"
#include "zot-test-util.h"
#include "zot-transcript.h"
#include "zot-transcript-item.h"
#include "zot-transcript-private.h"
#include "zot-transcript-row.h"
#include "zot-transcript-view.h"

#define N_LONG 2000

typedef struct
{
  GtkWidget     *window;
  ZotTranscript *transcript;
  guint          frames;
} Fixture;

static guint
count_occurrences (const char *haystack,
                   const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static char *
marker (guint i)
{
  return g_strdup_printf ("(item %u)", i);
}

/* Items of every kind; each row shows its item's marker once. */
static ZotTranscriptItem *
make_item (guint i)
{
  g_autofree char *mark = marker (i);

  switch (i % 6)
    {
    case 0:
      return zot_transcript_item_new_user (mark, NULL);

    case 1:
      {
        ZotTranscriptItem *item = zot_transcript_item_new_assistant ();
        g_autofree char *text = g_strdup_printf ("Reply **%s**\n\n- a\n- b\n\n```c\nint x = %u;\n```\n",
                                                 mark, i);

        zot_transcript_item_finish (item, text);
        return item;
      }

    case 2:
      {
        g_autoptr(JsonObject) args = json_object_new ();
        g_autofree char *id = g_strdup_printf ("call-%u", i);
        g_autoptr(ZotToolResult) result = NULL;
        g_autoptr(JsonArray) content = json_array_new ();
        g_autoptr(JsonObject) block = json_object_new ();
        ZotTranscriptItem *item;

        json_object_set_string_member (args, "path", mark);
        item = zot_transcript_item_new_tool (id, "read", args, NULL, NULL);
        json_object_set_string_member (block, "type", "text");
        json_object_set_string_member (block, "text", "output");
        json_array_add_object_element (content, g_steal_pointer (&block));
        result = zot_tool_result_new (content, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
        zot_transcript_item_set_result (item, result);
        return item;
      }

    case 3:
      return zot_transcript_item_new_note (ZOT_TRANSCRIPT_ITEM_NOTE, "ext", "success", mark);

    case 4:
      return zot_transcript_item_new_text (ZOT_TRANSCRIPT_ITEM_INFO, NULL, mark);

    default:
      return zot_transcript_item_new_note (ZOT_TRANSCRIPT_ITEM_WARNING, NULL, NULL, mark);
    }
}

static void
append_items (Fixture *f,
              guint    first,
              guint    n_items)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = first; i < first + n_items; i++)
    g_ptr_array_add (items, make_item (i));
  _zot_transcript_append_items (f->transcript, (ZotTranscriptItem **) items->pdata, items->len);
}

static ZotTranscriptItem *
nth_item (Fixture *f,
          guint    position)
{
  ZotTranscriptItem *item = g_list_model_get_item (_zot_transcript_get_items (f->transcript), position);

  /* The store keeps it alive. */
  g_object_unref (item);
  return item;
}

static guint
n_items (Fixture *f)
{
  return g_list_model_get_n_items (_zot_transcript_get_items (f->transcript));
}

/* Fixture */

static gboolean
count_frame_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  Fixture *f = user_data;

  f->frames++;
  return G_SOURCE_CONTINUE;
}

static gboolean
frames_passed (gpointer data)
{
  guint *until = ((gpointer *) data)[1];
  Fixture *f = ((gpointer *) data)[0];

  return f->frames >= *until;
}

/* Runs the main loop until @n frames have been drawn. */
static void
wait_frames (Fixture *f,
             guint    n)
{
  guint until = f->frames + n;
  gpointer data[] = { f, &until };

  zot_test_wait_until (frames_passed, data, 10000);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->transcript = ZOT_TRANSCRIPT (zot_transcript_new ());
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 720, 640);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->transcript));
  gtk_widget_add_tick_callback (GTK_WIDGET (f->transcript), count_frame_cb, f, NULL);
  gtk_window_present (GTK_WINDOW (f->window));
  wait_frames (f, 2);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->transcript), (gpointer *) &f->transcript);
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (f->transcript != NULL)
    g_main_context_iteration (NULL, TRUE);
}

/* Conditions */

static gboolean
row_shown (Fixture           *f,
           ZotTranscriptItem *item)
{
  GtkWidget *row = _zot_transcript_get_row (f->transcript, item);
  graphene_rect_t bounds;

  return row != NULL && gtk_widget_get_mapped (row) &&
         gtk_widget_compute_bounds (row, GTK_WIDGET (f->transcript), &bounds) &&
         bounds.origin.y + bounds.size.height > 0 &&
         bounds.origin.y < gtk_widget_get_height (GTK_WIDGET (f->transcript));
}

static gboolean
first_row_shown (gpointer data)
{
  Fixture *f = data;

  return row_shown (f, nth_item (f, 0));
}

/* Scrolls to the top as a user would, again until it stays there. */
static gboolean
scrolled_to_top (gpointer data)
{
  Fixture *f = data;
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);

  if (first_row_shown (f) && gtk_adjustment_get_value (adjustment) == 0)
    return TRUE;

  gtk_adjustment_set_value (adjustment, 0);
  return FALSE;
}

/* At the end, by the adjustment and by what is drawn: the last row is on
 * screen, whole. */
static gboolean
at_bottom (gpointer data)
{
  Fixture *f = data;
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);
  GtkWidget *row;
  graphene_rect_t bounds;

  if (n_items (f) == 0 ||
      gtk_adjustment_get_upper (adjustment) <= gtk_adjustment_get_page_size (adjustment) ||
      gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) <
      gtk_adjustment_get_upper (adjustment) - 1)
    return FALSE;

  row = _zot_transcript_get_row (f->transcript, nth_item (f, n_items (f) - 1));
  if (row == NULL || !gtk_widget_compute_bounds (row, GTK_WIDGET (f->transcript), &bounds))
    return FALSE;

  return bounds.origin.y >= 0 &&
         bounds.origin.y + bounds.size.height <= gtk_widget_get_height (GTK_WIDGET (f->transcript)) + 1;
}

static ZotTranscriptView *
get_view (Fixture *f)
{
  return ZOT_TRANSCRIPT_VIEW (zot_test_find_widget (GTK_WIDGET (f->transcript), ZOT_TYPE_TRANSCRIPT_VIEW, NULL));
}

/* The first and the last item with a row on the page. */
static void
page_range (Fixture *f,
            guint   *first,
            guint   *last)
{
  *first = G_MAXUINT;
  *last = 0;
  for (guint i = 0; i < n_items (f); i++)
    if (_zot_transcript_get_row (f->transcript, nth_item (f, i)) != NULL)
      {
        *first = MIN (*first, i);
        *last = MAX (*last, i);
      }
  g_assert_cmpuint (*first, <=, *last);
}

/* Rows made ready beside the page: TRANSCRIPT_PREFETCH_ROWS on each side,
 * or as many as there are items. */
static guint
n_prefetched (Fixture *f,
              guint    first,
              guint    last)
{
  return MIN (first, TRANSCRIPT_PREFETCH_ROWS) + MIN (n_items (f) - 1 - last, TRANSCRIPT_PREFETCH_ROWS);
}

static gboolean
prefetched (gpointer data)
{
  Fixture *f = data;
  guint first, last;

  page_range (f, &first, &last);
  for (guint i = first - MIN (first, TRANSCRIPT_PREFETCH_ROWS); i <= MIN (last + TRANSCRIPT_PREFETCH_ROWS, n_items (f) - 1); i++)
    if (_zot_transcript_peek_kept_row (f->transcript, nth_item (f, i)) == NULL)
      return FALSE;
  return TRUE;
}

static gboolean
item_has_row (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  ZotTranscriptItem *item = ((gpointer *) data)[1];

  return _zot_transcript_get_row (f->transcript, item) != NULL;
}

static GtkWidget *
wait_for_row (Fixture           *f,
              ZotTranscriptItem *item)
{
  gpointer data[] = { f, item };

  zot_test_wait_until (item_has_row, data, 10000);
  return _zot_transcript_get_row (f->transcript, item);
}

/* Every row the view holds shows its own item's marker, once, and no
 * other item's. */
static void
check_rows_match_items (Fixture *f)
{
  g_autoptr(GPtrArray) rows = zot_test_find_widgets (GTK_WIDGET (f->transcript), ZOT_TYPE_TRANSCRIPT_ROW, NULL);
  guint checked = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      ZotTranscriptItem *item = zot_transcript_row_get_item (rows->pdata[i]);
      g_autofree char *text = NULL;
      g_autofree char *expected = NULL;
      guint position;

      if (item == NULL)
        continue;

      g_assert_true (g_list_store_find (G_LIST_STORE (_zot_transcript_get_items (f->transcript)), item,
                                        &position));
      expected = marker (position);
      text = zot_test_widget_text (rows->pdata[i]);
      if (strstr (text, expected) == NULL || count_occurrences (text, "(item ") != 1)
        g_error ("row of item %u shows: %s", position, text);
      checked++;
    }

  g_assert_cmpuint (checked, >, 0);
}

/* Tests */

static void
test_item_new_destroy (void)
{
  g_autoptr(JsonObject) args = json_object_new ();
  ZotTranscriptItem *item = zot_transcript_item_new_assistant ();
  ZotMarkdownDocument *document;

  zot_transcript_item_append_text (item, "# hi");
  g_assert_true (zot_transcript_item_get_streaming (item));
  zot_transcript_item_finish (item, "# hi\n\n```c\nint x;\n```\n");
  g_assert_false (zot_transcript_item_get_streaming (item));

  /* The Markdown is walked once and kept until the text changes. */
  document = zot_transcript_item_get_document (item);
  g_assert_true (zot_transcript_item_get_document (item) == document);
  g_assert_cmpstr (zot_markdown_document_get_text (document), ==, "# hi\n\n```c\nint x;\n```\n");
  g_assert_finalize_object (item);

  json_object_set_string_member (args, "command", "ls\n-l");
  item = zot_transcript_item_new_tool ("id", "bash", args, "ext", "parent");
  g_assert_cmpstr (zot_transcript_item_get_args_preview (item), ==, "ls -l");
  g_assert_cmpstr (zot_transcript_item_get_parent_id (item), ==, "parent");
  g_assert_cmpuint (g_list_model_get_n_items (zot_transcript_item_get_children (item)), ==, 0);
  g_assert_cmpint (zot_transcript_item_get_status (item), ==, ZOT_TRANSCRIPT_TOOL_RUNNING);
  g_assert_null (zot_transcript_item_get_result (item));
  g_assert_finalize_object (item);

  item = zot_transcript_item_new_note (ZOT_TRANSCRIPT_ITEM_NOTE, "ext", "warning", "careful");
  g_assert_cmpstr (zot_transcript_item_get_level (item), ==, "warn");
  g_assert_finalize_object (item);
}

/* The view of a document is the view of its text, without a new walk. */
static void
test_markdown_document (void)
{
  static const char *text = "# Title\n\n- one\n  1. two\n\n> quote\n\n```c\nint x;\n```\n\n---\n\n<b>x</b>\n";
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *parsed = zot_markdown_view_new ();
  GtkWidget *replayed = zot_markdown_view_new ();
  g_autoptr(ZotMarkdownDocument) document = zot_markdown_document_new (text);
  g_autofree char *parsed_text = NULL;
  g_autofree char *replayed_text = NULL;
  g_autoptr(GPtrArray) views = NULL;

  gtk_box_append (GTK_BOX (box), parsed);
  gtk_box_append (GTK_BOX (box), replayed);
  gtk_window_set_child (GTK_WINDOW (window), box);

  zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (parsed), text);
  zot_markdown_view_set_document (ZOT_MARKDOWN_VIEW (replayed), document);
  /* Twice: a view shown again is rebuilt from the same document. */
  zot_markdown_view_set_document (ZOT_MARKDOWN_VIEW (replayed), document);

  parsed_text = zot_test_widget_text (parsed);
  replayed_text = zot_test_widget_text (replayed);
  g_assert_cmpstr (parsed_text, ==, replayed_text);
  g_assert_cmpstr (zot_markdown_view_get_markdown (ZOT_MARKDOWN_VIEW (replayed)), ==, text);
  views = zot_test_find_widgets (replayed, GTK_SOURCE_TYPE_VIEW, NULL);
  g_assert_cmpuint (views->len, ==, 1);

  zot_markdown_view_set_document (ZOT_MARKDOWN_VIEW (replayed), NULL);
  g_assert_cmpstr (zot_markdown_view_get_markdown (ZOT_MARKDOWN_VIEW (replayed)), ==, "");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* 2,000 items make rows for the items in view, not 2,000: scrolling
 * shows kept rows again, or gives those shown farthest from the view to
 * other items. */
static void
test_recycled (Fixture       *f,
               gconstpointer  data)
{
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);
  guint created;
  guint first, last;

  append_items (f, 0, N_LONG);
  g_assert_cmpuint (n_items (f), ==, N_LONG);
  zot_test_wait_until (at_bottom, f, 20000);

  zot_test_wait_until (prefetched, f, 20000);
  page_range (f, &first, &last);
  created = _zot_transcript_get_n_rows_created (f->transcript);
  g_test_message ("%u rows for %u items, %u in view", created, N_LONG, last - first + 1);
  g_assert_cmpuint (created, >, 0);
  g_assert_cmpuint (created, ==, last - first + 1 + n_prefetched (f, first, last));
  check_rows_match_items (f);

  /* To the top and down a page at a time, until every row there may be
   * is made, and on for as many pages again: rows go to other items. */
  zot_test_wait_until (scrolled_to_top, f, 20000);
  check_rows_match_items (f);
  for (guint step = 0, full = 0; full < 20 && !at_bottom (f); step++)
    {
      gtk_adjustment_set_value (adjustment,
                                gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment));
      wait_frames (f, 1);
      if (step % 8 == 0)
        check_rows_match_items (f);
      if (_zot_transcript_get_n_rows_created (f->transcript) == TRANSCRIPT_ROW_CACHE)
        full++;
    }
  check_rows_match_items (f);
  created = _zot_transcript_get_n_rows_created (f->transcript);
  g_test_message ("%u rows for %u items after scrolling", created, N_LONG);
  g_assert_cmpuint (created, ==, TRANSCRIPT_ROW_CACHE);

  /* Clearing drops them all; the view starts again at the end. */
  zot_transcript_clear (f->transcript);
  g_assert_cmpuint (n_items (f), ==, 0);
  append_items (f, 0, 30);
  zot_test_wait_until (at_bottom, f, 20000);
  check_rows_match_items (f);
}

static gboolean
item_out_of_view (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  ZotTranscriptItem *item = ((gpointer *) data)[1];
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);

  if (_zot_transcript_get_row (f->transcript, item) == NULL)
    return TRUE;
  /* Up, a little at a time, as a user reads. */
  gtk_adjustment_set_value (adjustment,
                            gtk_adjustment_get_value (adjustment) - gtk_adjustment_get_page_size (adjustment) / 2);
  return FALSE;
}

static gboolean
item_back_in_view (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  ZotTranscriptItem *item = ((gpointer *) data)[1];
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);

  if (_zot_transcript_get_row (f->transcript, item) != NULL)
    return TRUE;
  gtk_adjustment_set_value (adjustment,
                            gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment));
  return FALSE;
}

/* A row the view lets go of stays bound to its item: it follows the item
 * out of view and is the row shown when the item comes back. Clearing
 * drops the rows out of view, and with them their items. */
static void
test_kept_rows (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) block = json_object_new ();
  g_autoptr(ZotToolResult) result = NULL;
  ZotTranscriptItem *tool;
  gpointer pair[2];
  GtkWidget *row;
  GtkWidget *expander;
  g_autofree char *text = NULL;
  g_autofree char *mark = marker (N_LONG - 6);

  append_items (f, 0, N_LONG);
  zot_test_wait_until (at_bottom, f, 20000);
  /* A tool call (make_item()) among the last rows. */
  tool = g_object_ref (nth_item (f, N_LONG - 6));
  g_assert_cmpint (zot_transcript_item_get_kind (tool), ==, ZOT_TRANSCRIPT_ITEM_TOOL);
  row = wait_for_row (f, tool);
  g_assert_nonnull (row);
  pair[0] = f;
  pair[1] = tool;

  zot_test_wait_until (item_out_of_view, pair, 20000);
  g_assert_true (_zot_transcript_peek_kept_row (f->transcript, tool) == row);
  g_assert_null (gtk_widget_get_parent (row));

  /* Out of view, it follows its item. */
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", "(changed) output");
  json_array_add_object_element (content, g_steal_pointer (&block));
  result = zot_tool_result_new (content, TRUE, ZOT_TOOL_OUTCOME_FAILED);
  zot_transcript_item_set_result (tool, result);
  expander = zot_test_find_widget (row, GTK_TYPE_EXPANDER, NULL);
  g_assert_true (gtk_widget_has_css_class (expander, "tool-failed"));

  /* Back in view, it is the same row, as it was left. */
  zot_test_wait_until (item_back_in_view, pair, 20000);
  g_assert_true (_zot_transcript_get_row (f->transcript, tool) == row);
  g_assert_true (gtk_widget_has_css_class (expander, "tool-failed"));
  text = zot_test_widget_text (row);
  g_assert_nonnull (strstr (text, mark));
  check_rows_match_items (f);

  zot_test_wait_until (item_out_of_view, pair, 20000);
  zot_transcript_clear (f->transcript);
  g_assert_null (_zot_transcript_peek_kept_row (f->transcript, tool));
  g_object_add_weak_pointer (G_OBJECT (tool), (gpointer *) &tool);
  g_object_unref (tool);
  g_assert_null (tool);
}

/* A long conversation opens at its end, with rows for the items in view
 * and the few made ready above them, and no others. */
static void
test_opens_at_end (Fixture       *f,
                   gconstpointer  data)
{
  ZotTranscriptView *view = get_view (f);
  guint first, last;

  append_items (f, 0, 500);
  zot_test_wait_until (at_bottom, f, 20000);
  zot_test_wait_until (prefetched, f, 20000);
  page_range (f, &first, &last);
  g_assert_cmpuint (last, ==, 499);
  g_assert_cmpuint (last - first + 1, ==, zot_transcript_view_get_n_rows_shown (view));
  g_assert_cmpuint (last - first + 1, <, 40);
  g_assert_cmpuint (_zot_transcript_get_n_rows_created (f->transcript), ==,
                    last - first + 1 + TRANSCRIPT_PREFETCH_ROWS);
  g_assert_true (zot_transcript_view_get_at_end (view));
  check_rows_match_items (f);

  zot_test_wait_until (scrolled_to_top, f, 20000);
  g_assert_false (zot_transcript_view_get_at_end (view));
  check_rows_match_items (f);
}

static gboolean
match_shown (gpointer data)
{
  Fixture *f = data;

  return row_shown (f, _zot_transcript_get_match (f->transcript));
}

static double
row_top (Fixture           *f,
         ZotTranscriptItem *item)
{
  GtkWidget *row = _zot_transcript_get_row (f->transcript, item);
  graphene_rect_t bounds;

  g_assert_nonnull (row);
  g_assert_true (gtk_widget_compute_bounds (row, GTK_WIDGET (f->transcript), &bounds));
  return bounds.origin.y;
}

/* The find bar's match far from the view is scrolled to a quarter of the
 * page from the top, in one layout, though none of the rows between were
 * ever measured. */
static void
test_match_far_away (Fixture       *f,
                     gconstpointer  data)
{
  ZotTranscriptItem *item;

  append_items (f, 0, N_LONG);
  zot_test_wait_until (at_bottom, f, 20000);

  item = nth_item (f, 5);
  _zot_transcript_show_match (f->transcript, item);
  zot_test_wait_until (match_shown, f, 20000);
  g_assert_cmpfloat_with_epsilon (row_top (f, item),
                                  gtk_widget_get_height (GTK_WIDGET (get_view (f))) * 0.25, 1.0);
  g_assert_true (gtk_widget_has_css_class (_zot_transcript_get_row (f->transcript, item), "find-match"));
  g_assert_false (zot_transcript_view_get_at_end (get_view (f)));
  check_rows_match_items (f);

  /* The next match: the mark moves with it. */
  _zot_transcript_show_match (f->transcript, nth_item (f, N_LONG / 2));
  zot_test_wait_until (match_shown, f, 20000);
  g_assert_false (gtk_widget_has_css_class (_zot_transcript_peek_kept_row (f->transcript, item), "find-match"));
  g_assert_cmpfloat_with_epsilon (row_top (f, nth_item (f, N_LONG / 2)),
                                  gtk_widget_get_height (GTK_WIDGET (get_view (f))) * 0.25, 1.0);
  check_rows_match_items (f);
}

static gboolean
row_at (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  ZotTranscriptItem *item = ((gpointer *) data)[1];
  double *top = ((gpointer *) data)[2];

  return row_shown (f, item) && row_top (f, item) == *top;
}

/* What is on screen stays in place while rows out of view above it
 * change height; a row scrolled to stays where it was put while a row
 * above it on the page changes height, until the user scrolls. */
static void
test_view_holds_its_place (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(ZotTranscriptItem) above = zot_transcript_item_new_assistant ();
  g_autoptr(ZotTranscriptItem) near = zot_transcript_item_new_assistant ();
  ZotTranscriptItem *item;
  double top;
  gpointer at[] = { f, NULL, &top };

  /* Each with its marker, as make_item() gives. */
  zot_transcript_item_append_text (above, "(item 40)\n");
  zot_transcript_item_append_text (near, "(item 298)\n");
  append_items (f, 0, 40);
  _zot_transcript_append_items (f->transcript, &above, 1);
  append_items (f, 41, 257);
  _zot_transcript_append_items (f->transcript, &near, 1);
  append_items (f, 299, 140);
  zot_test_wait_until (at_bottom, f, 20000);

  item = nth_item (f, 299);
  _zot_transcript_show_match (f->transcript, item);
  zot_test_wait_until (match_shown, f, 20000);
  g_assert_true (row_shown (f, near));
  top = row_top (f, item);
  at[1] = item;

  /* A row far above, out of view, grows by many lines. */
  for (guint i = 0; i < 50; i++)
    zot_transcript_item_append_text (above, "a line that makes the reply taller\n");
  wait_frames (f, 3);
  zot_test_wait_until (row_at, at, 10000);

  /* The row just above it, on the page, grows upwards. */
  for (guint i = 0; i < 8; i++)
    zot_transcript_item_append_text (near, "a line that makes the reply taller\n");
  wait_frames (f, 3);
  zot_test_wait_until (row_at, at, 10000);

  /* Scrolled by a user, it moves by as much. */
  gtk_adjustment_set_value (_zot_transcript_get_vadjustment (f->transcript),
                            gtk_adjustment_get_value (_zot_transcript_get_vadjustment (f->transcript)) - 50);
  top += 50;
  zot_test_wait_until (row_at, at, 10000);
  check_rows_match_items (f);
}

static gboolean
row_whole (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  ZotTranscriptItem *item = ((gpointer *) data)[1];
  GtkWidget *row = _zot_transcript_get_row (f->transcript, item);
  graphene_rect_t bounds;

  return row != NULL && gtk_widget_compute_bounds (row, GTK_WIDGET (get_view (f)), &bounds) &&
         bounds.origin.y >= 0 &&
         bounds.origin.y + bounds.size.height <= gtk_widget_get_height (GTK_WIDGET (get_view (f)));
}

static gboolean
rows_ready_beside (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  guint *before = ((gpointer *) data)[1];
  guint *after = ((gpointer *) data)[2];

  for (guint i = *before - 2; i <= *before; i++)
    if (_zot_transcript_peek_kept_row (f->transcript, nth_item (f, i)) == NULL)
      return FALSE;
  for (guint i = *after; i <= *after + 2; i++)
    if (_zot_transcript_peek_kept_row (f->transcript, nth_item (f, i)) == NULL)
      return FALSE;
  return TRUE;
}

/* Once the view is still, the three rows on each side of the page are
 * made ready between frames, out of the widget tree, so that the next
 * scroll step finds them laid out. */
static void
test_rows_ready_beside_page (Fixture       *f,
                             gconstpointer  data)
{
  guint first = G_MAXUINT, last = 0;
  guint before, after;
  gpointer ready[] = { f, &before, &after };

  append_items (f, 0, N_LONG);
  zot_test_wait_until (at_bottom, f, 20000);
  _zot_transcript_show_match (f->transcript, nth_item (f, N_LONG / 2));
  zot_test_wait_until (match_shown, f, 20000);
  _zot_transcript_show_match (f->transcript, NULL);
  wait_frames (f, 1);

  for (guint i = N_LONG / 2 - 40; i < N_LONG / 2 + 40; i++)
    if (_zot_transcript_get_row (f->transcript, nth_item (f, i)) != NULL)
      {
        first = MIN (first, i);
        last = MAX (last, i);
      }
  g_assert_cmpuint (first, <=, N_LONG / 2);
  g_assert_cmpuint (last, >=, N_LONG / 2);
  before = first - 1;
  after = last + 1;

  zot_test_wait_until (rows_ready_beside, ready, 10000);
  for (guint i = before - 2; i <= after + 2; i++)
    {
      GtkWidget *row = _zot_transcript_peek_kept_row (f->transcript, nth_item (f, i));

      if (i < first || i > last)
        g_assert_null (gtk_widget_get_parent (row));
    }
  check_rows_match_items (f);
}

/* Scrolled to the top in one go, from the end of a long conversation
 * whose rows up there were never measured: the view shows the top, and
 * stays there as those rows take their real heights. */
static void
test_top_stays_top (Fixture       *f,
                    gconstpointer  data)
{
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);
  g_autoptr(GPtrArray) tall = g_ptr_array_new_with_free_func (g_object_unref);

  /* Rows at the top far taller than the ones measured at the end. */
  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *text = g_strdup_printf ("(item %u)\n2\n3\n4\n5\n6\n7\n8\n9\n10", i);

      g_ptr_array_add (tall, zot_transcript_item_new_text (ZOT_TRANSCRIPT_ITEM_INFO, NULL, text));
    }
  _zot_transcript_append_items (f->transcript, (ZotTranscriptItem **) tall->pdata, tall->len);
  append_items (f, 30, N_LONG - 30);
  zot_test_wait_until (at_bottom, f, 20000);
  gtk_adjustment_set_value (adjustment, 0);
  wait_frames (f, 3);
  zot_test_wait_until (first_row_shown, f, 10000);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  g_assert_cmpfloat (row_top (f, nth_item (f, 0)), >=, 0);
  g_assert_cmpfloat (row_top (f, nth_item (f, 0)), <, 20);
  check_rows_match_items (f);
}

/* A row that the user opens grows downwards: its top stays where it was,
 * wherever it is on the page. */
static void
test_opened_row_grows_down (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) block = json_object_new ();
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotTranscriptItem) tool = NULL;
  g_autoptr(GString) output = g_string_new (NULL);
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);
  GtkWidget *expander;
  double top;
  gpointer at[] = { f, NULL, &top };

  json_object_set_string_member (args, "path", "(item 150)");
  tool = zot_transcript_item_new_tool ("call-tall", "read", args, NULL, NULL);
  for (guint i = 0; i < 30; i++)
    g_string_append_printf (output, "line %u of the output\n", i);
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", output->str);
  json_array_add_object_element (content, g_steal_pointer (&block));
  result = zot_tool_result_new (content, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
  zot_transcript_item_set_result (tool, result);

  append_items (f, 0, 150);
  _zot_transcript_append_items (f->transcript, &tool, 1);
  append_items (f, 151, 150);
  zot_test_wait_until (at_bottom, f, 20000);

  /* A quarter of the page down, then a little further as a user scrolls. */
  _zot_transcript_show_match (f->transcript, tool);
  zot_test_wait_until (match_shown, f, 20000);
  _zot_transcript_show_match (f->transcript, NULL);
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) - 10);
  at[1] = tool;
  top = row_top (f, tool) + 10;
  zot_test_wait_until (row_at, at, 10000);

  check_rows_match_items (f);

  /* Opened, it shows its arguments (the marker again) and its output. */
  expander = zot_test_find_widget (_zot_transcript_get_row (f->transcript, tool), GTK_TYPE_EXPANDER, NULL);
  g_assert_nonnull (expander);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (expander)));
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  wait_frames (f, 3);
  zot_test_wait_until (row_at, at, 10000);
  g_assert_cmpint (gtk_widget_get_height (_zot_transcript_get_row (f->transcript, tool)), >, 200);
}

/* Keyboard focus going to a row partly below the view scrolls it in. */
static void
test_focus_scrolls_row_in (Fixture       *f,
                           gconstpointer  data)
{
  ZotTranscriptView *view = get_view (f);
  ZotTranscriptItem *item = NULL;
  gpointer pair[2];
  GtkWidget *button;

  append_items (f, 0, 100);
  zot_test_wait_until (scrolled_to_top, f, 20000);

  /* The first row cut off by the bottom of the view, with a button. */
  for (guint i = 0; i < n_items (f) && item == NULL; i++)
    {
      ZotTranscriptItem *other = nth_item (f, i);
      GtkWidget *row = _zot_transcript_get_row (f->transcript, other);
      graphene_rect_t bounds;

      if (row != NULL && gtk_widget_compute_bounds (row, GTK_WIDGET (view), &bounds) &&
          bounds.origin.y + bounds.size.height > gtk_widget_get_height (GTK_WIDGET (view)) &&
          zot_test_find_widget (row, GTK_TYPE_BUTTON, NULL) != NULL)
        item = other;
    }
  g_assert_nonnull (item);
  pair[0] = f;
  pair[1] = item;
  g_assert_false (row_whole (pair));

  button = zot_test_find_widget (_zot_transcript_get_row (f->transcript, item), GTK_TYPE_BUTTON, NULL);
  g_assert_true (gtk_widget_grab_focus (button));
  zot_test_wait_until (row_whole, pair, 10000);
  check_rows_match_items (f);
}

typedef struct
{
  Fixture           *f;
  ZotTranscriptItem *item;
  gboolean           seen;
  gboolean           whole;   /* at its first frame, whole at the bottom */
  int                height;  /* at its first frame */
} FirstFrame;

static void
record_first_frame_cb (GdkFrameClock *clock,
                       gpointer       user_data)
{
  FirstFrame *first = user_data;

  if (first->seen || _zot_transcript_get_row (first->f->transcript, first->item) == NULL)
    return;
  first->seen = TRUE;
  first->whole = at_bottom (first->f);
  first->height = gtk_widget_get_height (_zot_transcript_get_row (first->f->transcript, first->item));
}

static gboolean
first_frame_seen (gpointer data)
{
  FirstFrame *first = data;

  return first->seen;
}

/* A reply streaming in while the view follows the end goes on screen at
 * its real height from its first frame: a text view reports the height of
 * its text as last laid out, so a row new to the view is laid out before
 * it is placed. */
static void
test_new_row_real_height (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(ZotTranscriptItem) reply = zot_transcript_item_new_assistant ();
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (f->transcript));
  FirstFrame first = { f, reply, FALSE, FALSE, 0 };
  gulong handler;

  append_items (f, 0, 30);
  zot_test_wait_until (at_bottom, f, 20000);

  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (record_first_frame_cb), &first);
  _zot_transcript_append_items (f->transcript, &reply, 1);
  /* Before the next frame, as a fast model's deltas come. */
  zot_transcript_item_append_text (reply, "(item 30) A reply streaming in, ");
  zot_transcript_item_append_text (reply, "long enough to wrap over several lines at the window's width: ");
  zot_transcript_item_append_text (reply, "a text view that has not been given a width yet lays this out a ");
  zot_transcript_item_append_text (reply, "few characters to a line, and says it is thousands of pixels tall.");
  /* The text view lays its text out in an idle callback, before the
   * frame: at no width, as it has had none. */
  for (guint i = 0; i < 20 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  zot_test_wait_until (first_frame_seen, &first, 20000);
  g_signal_handler_disconnect (clock, handler);
  g_assert_true (first.whole);
  wait_frames (f, 3);
  g_assert_cmpint (first.height, ==, gtk_widget_get_height (_zot_transcript_get_row (f->transcript, reply)));
  check_rows_match_items (f);
}

static gboolean
stream_ends_with (GtkWidget  *row,
                  const char *delta)
{
  g_autoptr(GPtrArray) views = zot_test_find_widgets (row, GTK_TYPE_TEXT_VIEW, "plain-text");
  GtkTextBuffer *buffer;
  g_autofree char *contents = NULL;
  GtkTextIter start, end;

  if (views->len != 1)
    return FALSE;
  buffer = gtk_text_view_get_buffer (views->pdata[0]);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  contents = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  return g_str_has_suffix (contents, delta);
}

/* A delta goes into the bound row at once, appended to the same text
 * view; the whole message then replaces it with its Markdown. */
static void
test_streaming_delta (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(ZotTranscriptItem) item = zot_transcript_item_new_assistant ();
  g_autoptr(GPtrArray) views = NULL;
  GtkWidget *row;
  GtkWidget *view;
  guint created;

  append_items (f, 0, 40);
  _zot_transcript_append_items (f->transcript, &item, 1);
  row = wait_for_row (f, item);
  g_assert_nonnull (zot_test_find_widget (row, GTK_TYPE_SPINNER, NULL));
  /* Streaming makes no rows: the rows above only leave the view. */
  zot_test_wait_until (at_bottom, f, 20000);
  zot_test_wait_until (prefetched, f, 20000);
  created = _zot_transcript_get_n_rows_created (f->transcript);

  zot_transcript_item_append_text (item, "Hello");
  g_assert_true (stream_ends_with (row, "Hello"));
  views = zot_test_find_widgets (row, GTK_TYPE_TEXT_VIEW, "plain-text");
  view = views->pdata[0];

  for (guint i = 0; i < 50; i++)
    {
      g_autofree char *delta = g_strdup_printf (" delta %u\n", i);

      zot_transcript_item_append_text (item, delta);
      /* Synchronously, in the row the item is bound to, the same view. */
      g_assert_true (_zot_transcript_get_row (f->transcript, item) == row);
      g_assert_true (stream_ends_with (row, delta));
      g_assert_true (zot_test_find_widget (row, GTK_TYPE_TEXT_VIEW, "plain-text") == view);
      if (i % 10 == 0)
        wait_frames (f, 1);
    }
  g_assert_cmpuint (_zot_transcript_get_n_rows_created (f->transcript), ==, created);

  zot_transcript_item_finish (item, "Hello **world**");
  g_assert_true (_zot_transcript_get_row (f->transcript, item) == row);
  g_assert_null (zot_test_find_widget (row, GTK_TYPE_TEXT_VIEW, "plain-text"));
  {
    GtkWidget *markdown = zot_test_find_widget (row, ZOT_TYPE_MARKDOWN_VIEW, NULL);
    g_autofree char *text = NULL;

    g_assert_nonnull (markdown);
    text = zot_test_widget_text (markdown);
    g_assert_nonnull (strstr (text, "Hello world"));
  }
}

/* A result arriving updates the tool's row where it is. */
static void
test_tool_result_in_place (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) block = json_object_new ();
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotTranscriptItem) item = NULL;
  g_autofree char *text = NULL;
  GtkWidget *row;
  GtkWidget *expander;

  json_object_set_string_member (args, "command", "make");
  item = zot_transcript_item_new_tool ("call-1", "bash", args, "builder", NULL);
  append_items (f, 0, 20);
  _zot_transcript_append_items (f->transcript, &item, 1);
  row = wait_for_row (f, item);

  expander = zot_test_find_widget (row, GTK_TYPE_EXPANDER, "tool-row");
  g_assert_nonnull (expander);
  g_assert_true (gtk_widget_has_css_class (expander, "tool-running"));
  g_assert_true (gtk_spinner_get_spinning (GTK_SPINNER (zot_test_find_widget (row, GTK_TYPE_SPINNER, NULL))));
  text = zot_test_widget_text (row);
  g_assert_nonnull (strstr (text, "— builder"));
  g_clear_pointer (&text, g_free);

  /* Opened from the row: the item keeps it. */
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  g_assert_true (zot_transcript_item_get_expanded (item));
  g_assert_nonnull (zot_test_find_widget (row, GTK_TYPE_WIDGET, "tool-output"));

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", "built 3 targets");
  json_array_add_object_element (content, g_steal_pointer (&block));
  result = zot_tool_result_new (content, FALSE, ZOT_TOOL_OUTCOME_COMPLETED);
  zot_transcript_item_set_result (item, result);

  /* The same row and expander, now finished, with the output. */
  g_assert_true (_zot_transcript_get_row (f->transcript, item) == row);
  g_assert_true (zot_test_find_widget (row, GTK_TYPE_EXPANDER, "tool-row") == expander);
  g_assert_true (gtk_widget_has_css_class (expander, "tool-completed"));
  g_assert_false (gtk_widget_has_css_class (expander, "tool-running"));
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (row, GTK_TYPE_SPINNER, NULL)));
  text = zot_test_widget_text (row);
  g_assert_nonnull (strstr (text, "completed"));
  g_assert_nonnull (strstr (text, "built 3 targets"));
  g_assert_nonnull (strstr (text, "\"command\" : \"make\""));
}

/* A row bound to one item, then another, shows only the second. */
static void
test_rebind_resets (void)
{
  GtkWidget *window = gtk_window_new ();
  ZotTranscriptRow *row = ZOT_TRANSCRIPT_ROW (zot_transcript_row_new ());
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) block = json_object_new ();
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotTranscriptItem) done = NULL;
  g_autoptr(ZotTranscriptItem) running = NULL;
  g_autoptr(ZotTranscriptItem) streamed = zot_transcript_item_new_assistant ();
  g_autoptr(ZotTranscriptItem) fresh = zot_transcript_item_new_assistant ();
  g_autoptr(ZotTranscriptItem) error = zot_transcript_item_new_note (ZOT_TRANSCRIPT_ITEM_CRASH, "crasher", NULL, "(old) crash");
  g_autoptr(ZotTranscriptItem) info = zot_transcript_item_new_note (ZOT_TRANSCRIPT_ITEM_NOTE, NULL, "info", "new note");
  GtkWidget *expander;
  GtkWidget *grid;
  g_autofree char *text = NULL;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (row));

  /* Tool calls: one done, open, from an extension; one running. */
  json_object_set_string_member (args, "path", "(old) args");
  done = zot_transcript_item_new_tool ("a", "read", args, "(old) ext", NULL);
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", "(old) output");
  json_array_add_object_element (content, g_steal_pointer (&block));
  result = zot_tool_result_new (content, TRUE, ZOT_TOOL_OUTCOME_FAILED);
  zot_transcript_item_set_result (done, result);
  zot_transcript_item_set_expanded (done, TRUE);
  running = zot_transcript_item_new_tool ("b", "write", NULL, NULL, NULL);

  zot_transcript_row_bind (row, done);
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_nonnull (strstr (text, "(old) output"));
  g_assert_nonnull (strstr (text, "(old) ext"));
  g_clear_pointer (&text, g_free);
  expander = zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_EXPANDER, NULL);

  zot_transcript_row_unbind (row);
  zot_transcript_row_bind (row, running);
  /* The layout is kept (recycled), its contents are not. */
  g_assert_true (zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_EXPANDER, NULL) == expander);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (expander)));
  g_assert_true (zot_transcript_item_get_expanded (done));
  g_assert_true (gtk_widget_has_css_class (expander, "tool-running"));
  g_assert_false (gtk_widget_has_css_class (expander, "tool-failed"));
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_null (strstr (text, "(old)"));
  g_assert_nonnull (strstr (text, "write"));
  g_assert_nonnull (strstr (text, "running"));
  g_clear_pointer (&text, g_free);
  /* Opened now, it shows this call's arguments and no result. */
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_null (strstr (text, "(old)"));
  g_assert_nonnull (strstr (text, "{}"));
  g_clear_pointer (&text, g_free);

  /* A reply that streamed, then a new one. */
  zot_transcript_item_append_text (streamed, "(old) streamed text");
  zot_transcript_row_bind (row, streamed);
  g_assert_true (stream_ends_with (GTK_WIDGET (row), "(old) streamed text"));
  zot_transcript_row_bind (row, fresh);
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_null (strstr (text, "(old)"));
  g_clear_pointer (&text, g_free);
  zot_transcript_item_append_text (fresh, "new text");
  g_assert_true (stream_ends_with (GTK_WIDGET (row), "new text"));
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_null (strstr (text, "(old)"));
  g_clear_pointer (&text, g_free);
  /* The first no longer reaches the row. */
  zot_transcript_item_append_text (streamed, "(old) late delta");
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_null (strstr (text, "(old)"));
  g_clear_pointer (&text, g_free);

  /* Notes: the level and the attribution go with the item. */
  zot_transcript_row_bind (row, error);
  grid = zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_GRID, "note-row");
  g_assert_true (gtk_widget_has_css_class (grid, "note-error"));
  zot_transcript_row_bind (row, info);
  g_assert_true (zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_GRID, "note-row") == grid);
  g_assert_true (gtk_widget_has_css_class (grid, "note-info"));
  g_assert_false (gtk_widget_has_css_class (grid, "note-error"));
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (grid, GTK_TYPE_LABEL, "attribution")));
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_null (strstr (text, "(old)"));
  g_assert_null (strstr (text, "crasher"));
  g_assert_nonnull (strstr (text, "new note"));

  zot_transcript_row_unbind (row);
  g_assert_null (zot_transcript_row_get_item (row));
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
upper_grew (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  double *before = ((gpointer *) data)[1];

  return gtk_adjustment_get_upper (_zot_transcript_get_vadjustment (f->transcript)) > *before;
}

/* Keeping to the end: while the user is there, new rows and streamed text
 * bring the view along; once they scroll up, nothing moves it. */
static void
test_stick_to_bottom (Fixture       *f,
                      gconstpointer  data)
{
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);
  g_autoptr(ZotTranscriptItem) reply = zot_transcript_item_new_assistant ();
  double before;
  gpointer grew[] = { f, &before };

  append_items (f, 0, 200);
  zot_test_wait_until (at_bottom, f, 20000);

  /* New rows, one by one. */
  for (guint i = 200; i < 210; i++)
    {
      append_items (f, i, 1);
      zot_test_wait_until (at_bottom, f, 10000);
    }

  /* A reply growing line by line. */
  _zot_transcript_append_items (f->transcript, &reply, 1);
  for (guint i = 0; i < 30; i++)
    {
      zot_transcript_item_append_text (reply, "another line of the reply\n");
      zot_test_wait_until (at_bottom, f, 10000);
    }

  /* Scrolled up: rows and text come, the view stays. */
  zot_test_wait_until (scrolled_to_top, f, 10000);
  before = gtk_adjustment_get_upper (adjustment);
  for (guint i = 0; i < 10; i++)
    zot_transcript_item_append_text (reply, "more text while the user reads above\n");
  append_items (f, 210, 20);
  zot_test_wait_until (upper_grew, grew, 10000);
  wait_frames (f, 3);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  g_assert_true (first_row_shown (f));

  /* Back at the end, it follows again. */
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment) -
                                        gtk_adjustment_get_page_size (adjustment));
  zot_test_wait_until (at_bottom, f, 10000);
  append_items (f, 230, 5);
  zot_test_wait_until (at_bottom, f, 10000);
}

static GtkWrapMode
stream_wrap_mode (GtkWidget *row)
{
  GtkWidget *view = zot_test_find_widget (row, GTK_TYPE_TEXT_VIEW, "plain-text");

  g_assert_nonnull (view);
  return gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (view));
}

static JsonArray *
png_blocks (guint n)
{
  g_autoptr(GBytes) png = zot_test_black_png (1, 1);
  g_autofree char *data = g_base64_encode (g_bytes_get_data (png, NULL), g_bytes_get_size (png));
  JsonArray *content = json_array_new ();

  for (guint i = 0; i < n; i++)
    {
      JsonObject *block = json_object_new ();

      json_object_set_string_member (block, "type", "image");
      json_object_set_string_member (block, "mime_type", "image/png");
      json_object_set_string_member (block, "data", data);
      json_array_add_object_element (content, block);
    }
  return content;
}

/* A message's thumbnails keep their size at every width: a flow box
 * aligned to the end gave a lone thumbnail in a wide row no width at all
 * (a fatal GTK warning, and a blank where the image was). */
static void
test_user_images (void)
{
  GtkWidget *window = gtk_window_new ();
  ZotTranscriptRow *row = ZOT_TRANSCRIPT_ROW (zot_transcript_row_new ());
  const guint counts[] = { 1, 3, 5 };

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (row));
  for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
    {
      g_autoptr(JsonArray) content = png_blocks (counts[c]);
      g_autoptr(ZotTranscriptItem) item = zot_transcript_item_new_user ("look at these", content);

      zot_transcript_row_bind (row, item);
      for (int width = 200; width <= 1200; width += 83)
        {
          g_autoptr(GPtrArray) pictures = NULL;
          int height;

          gtk_widget_measure (GTK_WIDGET (row), GTK_ORIENTATION_VERTICAL, width, &height, NULL, NULL, NULL);
          gtk_widget_size_allocate (GTK_WIDGET (row), &(GtkAllocation) { 0, 0, width, height }, -1);
          pictures = zot_test_find_widgets (GTK_WIDGET (row), GTK_TYPE_PICTURE, NULL);
          g_assert_cmpuint (pictures->len, ==, counts[c]);
          for (guint i = 0; i < pictures->len; i++)
            g_assert_cmpint (gtk_widget_get_width (g_ptr_array_index (pictures, i)), >=, 120);
        }
      zot_transcript_row_unbind (row);
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Replies and messages that Pango 1.50 cannot wrap by word and character
 * as they are (zot-wrap-safe.h). A stream keeps the model's text and
 * wraps by character from the delta that brings such a cluster (the one
 * before it counts: here the space) until the row is bound again. */
static void
test_degenerate_clusters (void)
{
  GtkWidget *window = gtk_window_new ();
  ZotTranscriptRow *row = ZOT_TRANSCRIPT_ROW (zot_transcript_row_new ());
  g_autoptr(ZotTranscriptItem) first = zot_transcript_item_new_assistant ();
  g_autoptr(ZotTranscriptItem) second = zot_transcript_item_new_assistant ();
  g_autoptr(ZotTranscriptItem) user = zot_transcript_item_new_user ("a\u06E7 \u200D\u06A1", NULL);
  g_autofree char *text = NULL;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (row));
  gtk_window_present (GTK_WINDOW (window));

  zot_transcript_row_bind (row, first);
  zot_transcript_item_append_text (first, "Y\u063F ");
  g_assert_cmpint (stream_wrap_mode (GTK_WIDGET (row)), ==, GTK_WRAP_WORD_CHAR);
  zot_transcript_item_append_text (first, "\u032DR");
  g_assert_true (stream_ends_with (GTK_WIDGET (row), "Y\u063F \u032DR"));
  g_assert_cmpint (stream_wrap_mode (GTK_WIDGET (row)), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (GTK_WIDGET (row));
  zot_transcript_item_append_text (first, " and more");
  g_assert_cmpint (stream_wrap_mode (GTK_WIDGET (row)), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (GTK_WIDGET (row));

  /* Bound again: the next stream starts by word and character. */
  zot_transcript_row_bind (row, second);
  zot_transcript_item_append_text (second, "a\u06E7");
  g_assert_cmpint (stream_wrap_mode (GTK_WIDGET (row)), ==, GTK_WRAP_WORD_CHAR);
  zot_transcript_item_append_text (second, " \u200D\u06A1");
  g_assert_true (stream_ends_with (GTK_WIDGET (row), "a\u06E7 \u200D\u06A1"));
  g_assert_cmpint (stream_wrap_mode (GTK_WIDGET (row)), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (GTK_WIDGET (row));

  /* Whole, as Markdown: shown repaired. */
  zot_transcript_item_finish (second, "a\u06E7 \u200D\u06A1 and Y\u063F \u032DR");
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_nonnull (strstr (text, "a\u06E7 \u06A1 and Y\u063F \u25CC\u032DR"));
  g_clear_pointer (&text, g_free);
  zot_test_measure_narrowest (GTK_WIDGET (row));

  /* The user's own text is shown as sent, wrapped by character. */
  zot_transcript_row_bind (row, user);
  text = zot_test_widget_text (GTK_WIDGET (row));
  g_assert_nonnull (strstr (text, "a\u06E7 \u200D\u06A1"));
  zot_test_measure_narrowest (GTK_WIDGET (row));

  zot_transcript_row_unbind (row);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
add_test (const char *path,
          void      (*func) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  gtk_source_init ();

  g_test_add_func ("/zot/gui/transcript-list/item-new-destroy", test_item_new_destroy);
  g_test_add_func ("/zot/gui/transcript-list/markdown-document", test_markdown_document);
  g_test_add_func ("/zot/gui/transcript-list/rebind-resets", test_rebind_resets);
  g_test_add_func ("/zot/gui/transcript-list/degenerate-clusters", test_degenerate_clusters);
  g_test_add_func ("/zot/gui/transcript-list/user-images", test_user_images);
  add_test ("/zot/gui/transcript-list/recycled", test_recycled);
  add_test ("/zot/gui/transcript-list/kept-rows", test_kept_rows);
  add_test ("/zot/gui/transcript-list/opens-at-end", test_opens_at_end);
  add_test ("/zot/gui/transcript-list/view-holds-its-place", test_view_holds_its_place);
  add_test ("/zot/gui/transcript-list/match-far-away", test_match_far_away);
  add_test ("/zot/gui/transcript-list/new-row-real-height", test_new_row_real_height);
  add_test ("/zot/gui/transcript-list/focus-scrolls-row-in", test_focus_scrolls_row_in);
  add_test ("/zot/gui/transcript-list/opened-row-grows-down", test_opened_row_grows_down);
  add_test ("/zot/gui/transcript-list/top-stays-top", test_top_stays_top);
  add_test ("/zot/gui/transcript-list/rows-ready-beside-page", test_rows_ready_beside_page);
  add_test ("/zot/gui/transcript-list/streaming-delta", test_streaming_delta);
  add_test ("/zot/gui/transcript-list/tool-result-in-place", test_tool_result_in_place);
  add_test ("/zot/gui/transcript-list/stick-to-bottom", test_stick_to_bottom);

  return g_test_run ();
}
