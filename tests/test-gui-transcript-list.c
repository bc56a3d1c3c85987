/* test-gui-transcript-list.c — the transcript as a list: items and the
 * rows a GtkListView recycles for them, under a display. A long
 * conversation makes few rows; a row follows its item in place (streamed
 * text, a tool's result) and shows nothing of the item it showed before;
 * the view keeps to the end only while the user is there. Every wait is a
 * condition checked while the main loop runs, with a deadline. */
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

#define N_LONG 2000

typedef struct
{
  GtkWidget     *window;
  ZotTranscript *transcript;
  guint          frames;
  GArray        *hidden;         /* rows not joined yet, at each frame */
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

/* Scrolls to the top as a user would, again until it stays there: after
 * a long jump the list view measures the rows it lands on, which can move
 * the value away from 0 once. */
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

static gboolean
all_revealed (gpointer data)
{
  Fixture *f = data;

  return _zot_transcript_get_n_hidden (f->transcript) == 0;
}

/* Items in the view's model: the startup section's and the shown ones. */
static guint
n_in_view (Fixture *f)
{
  GtkWidget *list_view = zot_test_find_widget (GTK_WIDGET (f->transcript), GTK_TYPE_LIST_VIEW, NULL);

  return g_list_model_get_n_items (G_LIST_MODEL (gtk_list_view_get_model (GTK_LIST_VIEW (list_view))));
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

/* 2,000 items make as many rows as the view holds and keeps, not 2,000:
 * scrolling shows kept rows again, or gives those shown farthest from the
 * view to other items. */
static void
test_recycled (Fixture       *f,
               gconstpointer  data)
{
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);
  guint created;

  append_items (f, 0, N_LONG);
  g_assert_cmpuint (n_items (f), ==, N_LONG);
  zot_test_wait_until (at_bottom, f, 20000);

  created = _zot_transcript_get_n_rows_created (f->transcript);
  g_test_message ("%u rows for %u items", created, N_LONG);
  g_assert_cmpuint (created, >, 0);
  g_assert_cmpuint (created, <=, N_LONG / 8);
  check_rows_match_items (f);

  /* To the top and through the list: more items than rows are kept, so
   * rows go to other items. */
  zot_test_wait_until (scrolled_to_top, f, 20000);
  check_rows_match_items (f);
  for (guint quarter = 1; quarter < 4; quarter++)
    {
      gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment) * quarter / 4);
      wait_frames (f, 3);
      check_rows_match_items (f);
    }
  created = _zot_transcript_get_n_rows_created (f->transcript);
  g_test_message ("%u rows for %u items after scrolling", created, N_LONG);
  g_assert_cmpuint (created, <=, TRANSCRIPT_ROW_CACHE);

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
  /* Up, until the 200 items the view holds around the one in view leave
   * it out: a little at a time, so that few other items are bound on the
   * way and none of the kept rows go to them. */
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

/* A long conversation opens on its last rows alone: the first frame that
 * shows it is theirs, and the earlier ones are there from the next. Rows
 * already in view stay in place while rows join above them. */
static void
record_hidden_cb (GdkFrameClock *clock,
                  gpointer       user_data)
{
  Fixture *f = user_data;
  guint hidden = _zot_transcript_get_n_hidden (f->transcript);

  g_array_append_val (f->hidden, hidden);
}

static void
test_opens_on_tail (Fixture       *f,
                    gconstpointer  data)
{
  const guint n = 500;
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (f->transcript));
  gulong handler;

  f->hidden = g_array_new (FALSE, FALSE, sizeof (guint));
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (record_hidden_cb), f);
  append_items (f, 0, n);
  g_assert_cmpuint (n_items (f), ==, n);
  g_assert_cmpuint (_zot_transcript_get_n_hidden (f->transcript), ==, n - TRANSCRIPT_TAIL_ROWS);
  g_assert_cmpuint (n_in_view (f), ==, TRANSCRIPT_TAIL_ROWS);
  zot_test_wait_until (all_revealed, f, 20000);
  wait_frames (f, 1);
  g_signal_handler_disconnect (clock, handler);
  g_assert_cmpuint (n_in_view (f), ==, n);

  for (guint i = 0; i < f->hidden->len; i++)
    g_test_message ("frame %u: %u hidden", i, g_array_index (f->hidden, guint, i));
  g_assert_cmpuint (f->hidden->len, >=, 2);
  g_assert_cmpuint (g_array_index (f->hidden, guint, 0), ==, n - TRANSCRIPT_TAIL_ROWS);
  g_assert_cmpuint (g_array_index (f->hidden, guint, 1), ==, 0);
  g_array_unref (f->hidden);

  zot_test_wait_until (at_bottom, f, 20000);
  check_rows_match_items (f);
  zot_test_wait_until (scrolled_to_top, f, 20000);
  check_rows_match_items (f);
}

/* At the edges: a conversation of the tail's size hides nothing, one more
 * row hides one; rows added to a transcript that has some are all shown,
 * however many; clearing shows the next conversation whole. */
static void
test_tail_edges (Fixture       *f,
                 gconstpointer  data)
{
  append_items (f, 0, TRANSCRIPT_TAIL_ROWS);
  g_assert_cmpuint (_zot_transcript_get_n_hidden (f->transcript), ==, 0);
  g_assert_cmpuint (n_in_view (f), ==, TRANSCRIPT_TAIL_ROWS);
  append_items (f, TRANSCRIPT_TAIL_ROWS, 100);
  g_assert_cmpuint (_zot_transcript_get_n_hidden (f->transcript), ==, 0);
  g_assert_cmpuint (n_in_view (f), ==, TRANSCRIPT_TAIL_ROWS + 100);

  zot_transcript_clear (f->transcript);
  append_items (f, 0, TRANSCRIPT_TAIL_ROWS + 1);
  g_assert_cmpuint (_zot_transcript_get_n_hidden (f->transcript), ==, 1);
  g_assert_cmpuint (n_in_view (f), ==, TRANSCRIPT_TAIL_ROWS);
  zot_test_wait_until (all_revealed, f, 20000);
  g_assert_cmpuint (n_in_view (f), ==, TRANSCRIPT_TAIL_ROWS + 1);

  /* Cleared while rows are still to join. */
  zot_transcript_clear (f->transcript);
  append_items (f, 0, TRANSCRIPT_TAIL_ROWS + 100);
  g_assert_cmpuint (_zot_transcript_get_n_hidden (f->transcript), ==, 100);
  zot_transcript_clear (f->transcript);
  g_assert_cmpuint (_zot_transcript_get_n_hidden (f->transcript), ==, 0);
  append_items (f, 0, 10);
  g_assert_cmpuint (n_in_view (f), ==, 10);
  wait_frames (f, 3);
  g_assert_cmpuint (n_in_view (f), ==, 10);
  wait_for_row (f, nth_item (f, 9));
  check_rows_match_items (f);
}

static gboolean
match_shown (gpointer data)
{
  Fixture *f = data;

  return row_shown (f, _zot_transcript_get_match (f->transcript));
}

/* The find bar's match among rows that have not joined yet brings them in
 * at once, and scrolls to it. */
static void
test_match_in_hidden (Fixture       *f,
                      gconstpointer  data)
{
  append_items (f, 0, TRANSCRIPT_TAIL_ROWS + 100);
  _zot_transcript_show_match (f->transcript, nth_item (f, 5));
  g_assert_cmpuint (_zot_transcript_get_n_hidden (f->transcript), <=, 5);
  zot_test_wait_until (match_shown, f, 20000);
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
  /* The earlier rows joining make rows of their own; streaming makes none. */
  zot_test_wait_until (all_revealed, f, 20000);
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
  add_test ("/zot/gui/transcript-list/recycled", test_recycled);
  add_test ("/zot/gui/transcript-list/kept-rows", test_kept_rows);
  add_test ("/zot/gui/transcript-list/opens-on-tail", test_opens_on_tail);
  add_test ("/zot/gui/transcript-list/tail-edges", test_tail_edges);
  add_test ("/zot/gui/transcript-list/match-in-hidden", test_match_in_hidden);
  add_test ("/zot/gui/transcript-list/streaming-delta", test_streaming_delta);
  add_test ("/zot/gui/transcript-list/tool-result-in-place", test_tool_result_in_place);
  add_test ("/zot/gui/transcript-list/stick-to-bottom", test_stick_to_bottom);

  return g_test_run ();
}
