/* test-gui-tool-views.c — built-in tool calls as people read them
 * (zot-tool-call-view.c) and the line diff under them (zot-line-diff.c):
 * an edit's diff, a write's added lines, bash's command, output and exit
 * status, a read's path and range, the Raw toggle, "Show all", and the
 * limits that keep a 5 MiB argument from stalling the window. */
#include "config.h"

#include <string.h>

#include <gtksourceview/gtksource.h>

#include "zot-gui-test-util.h"
#include "zot-limits.h"
#include "zot-line-diff.h"
#include "zot-tool-call-view.h"
#include "zot-transcript-row.h"

/* The diff */

static void
assert_diff (const char *old_text,
             const char *new_text,
             const char *expected,
             guint       expected_added,
             guint       expected_removed)
{
  guint added = G_MAXUINT, removed = G_MAXUINT;
  g_autofree char *diff = zot_line_diff (old_text, new_text, 3, &added, &removed);

  g_assert_cmpstr (diff, ==, expected);
  g_assert_cmpuint (added, ==, expected_added);
  g_assert_cmpuint (removed, ==, expected_removed);
}

static void
test_diff_identical (void)
{
  assert_diff ("a\nb\nc\n", "a\nb\nc\n", "", 0, 0);
  /* A final newline or a carriage return is a line break, not a change. */
  assert_diff ("a\nb", "a\r\nb\n", "", 0, 0);
  assert_diff (NULL, "", "", 0, 0);
}

static void
test_diff_insert (void)
{
  assert_diff ("a\nb\nc\n", "a\nb\nX\nc\n", "@@ -1,3 +1,4 @@\n a\n b\n+X\n c\n", 1, 0);
  assert_diff ("a\n", "X\na\n", "@@ -1,1 +1,2 @@\n+X\n a\n", 1, 0);
}

static void
test_diff_delete (void)
{
  assert_diff ("a\nb\nX\nc\n", "a\nb\nc\n", "@@ -1,4 +1,3 @@\n a\n b\n-X\n c\n", 0, 1);
  assert_diff ("a\nb\n", "a\n", "@@ -1,2 +1,1 @@\n a\n-b\n", 0, 1);
}

static void
test_diff_replace (void)
{
  assert_diff ("a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", 1, 1);
}

static void
test_diff_empty (void)
{
  assert_diff ("", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n", 2, 0);
  assert_diff ("x\n", "", "@@ -1,1 +0,0 @@\n-x\n", 0, 1);
  assert_diff ("", "", "", 0, 0);
}

/* Changes far apart make two hunks, each with three lines around it;
 * changes close together share one. */
static void
test_diff_hunks (void)
{
  g_autoptr(GString) old_text = g_string_new (NULL);
  g_autoptr(GString) new_text = g_string_new (NULL);

  for (guint i = 1; i <= 20; i++)
    {
      g_string_append_printf (old_text, "%u\n", i);
      if (i == 2 || i == 18)
        g_string_append (new_text, i == 2 ? "two\n" : "eighteen\n");
      else
        g_string_append_printf (new_text, "%u\n", i);
    }
  assert_diff (old_text->str, new_text->str,
               "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
               "@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n", 2, 2);
  assert_diff ("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nX\n3\n4\n5\n6\n7\nY\n9\n",
               "@@ -1,9 +1,9 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n 7\n-8\n+Y\n 9\n", 2, 2);
  /* At the edge, as diff -U3 has it: six unchanged lines between two
   * changes join their hunks, seven do not. */
  assert_diff ("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n11\n",
               "@@ -1,11 +1,11 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+Y\n 10\n 11\n", 2, 2);
  assert_diff ("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\nY\n11\n",
               "@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n"
               "@@ -7,5 +7,5 @@\n 7\n 8\n 9\n-10\n+Y\n 11\n", 2, 2);
}

/* Applies @diff's hunks to @old_lines; returns the new lines. */
static GPtrArray *
apply (GPtrArray  *old_lines,
       const char *diff)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) lines = g_strsplit (diff, "\n", -1);
  guint at = 0;

  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      const char *line = lines[i];
      guint start, count;

      if (g_str_has_prefix (line, "@@"))
        {
          g_assert_cmpint (sscanf (line, "@@ -%u,%u", &start, &count), ==, 2);
          /* An empty range names the line before it. */
          start = count == 0 ? start : start - 1;
          g_assert_cmpuint (start, >=, at);
          for (; at < start; at++)
            g_ptr_array_add (out, g_strdup (old_lines->pdata[at]));
          continue;
        }
      if (line[0] == '+')
        {
          g_ptr_array_add (out, g_strdup (line + 1));
          continue;
        }
      g_assert_cmpuint (at, <, old_lines->len);
      g_assert_cmpstr (line + 1, ==, old_lines->pdata[at]);
      if (line[0] == ' ')
        g_ptr_array_add (out, g_strdup (old_lines->pdata[at]));
      else
        g_assert_cmpint (line[0], ==, '-');
      at++;
    }
  for (; at < old_lines->len; at++)
    g_ptr_array_add (out, g_strdup (old_lines->pdata[at]));
  return out;
}

static guint
lcs_length (GPtrArray *a,
            GPtrArray *b)
{
  g_autofree guint *table = g_new0 (guint, (a->len + 1) * (b->len + 1));

  for (guint i = 1; i <= a->len; i++)
    for (guint j = 1; j <= b->len; j++)
      table[i * (b->len + 1) + j] =
        g_str_equal (a->pdata[i - 1], b->pdata[j - 1]) ? table[(i - 1) * (b->len + 1) + j - 1] + 1 :
        MAX (table[(i - 1) * (b->len + 1) + j], table[i * (b->len + 1) + j - 1]);
  return table[a->len * (b->len + 1) + b->len];
}

/* Random texts: the diff turns the old text into the new one, and it is
 * a shortest one (as many changes as the texts' longest common lines
 * leave). */
static void
test_diff_random (void)
{
  static const char *words[] = { "a", "b", "c", "d" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);

  for (guint round = 0; round < 400; round++)
    {
      g_autoptr(GPtrArray) old_lines = g_ptr_array_new ();
      g_autoptr(GPtrArray) new_lines = g_ptr_array_new ();
      g_autoptr(GString) old_text = g_string_new (NULL);
      g_autoptr(GString) new_text = g_string_new (NULL);
      g_autoptr(GPtrArray) patched = NULL;
      g_autofree char *diff = NULL;
      guint added, removed;
      guint n = g_rand_int_range (rand, 0, 25), m = g_rand_int_range (rand, 0, 25);

      for (guint i = 0; i < n; i++)
        {
          g_ptr_array_add (old_lines, (char *) words[g_rand_int_range (rand, 0, 4)]);
          g_string_append_printf (old_text, "%s\n", (char *) old_lines->pdata[i]);
        }
      for (guint i = 0; i < m; i++)
        {
          g_ptr_array_add (new_lines, (char *) words[g_rand_int_range (rand, 0, 4)]);
          g_string_append_printf (new_text, "%s\n", (char *) new_lines->pdata[i]);
        }

      diff = zot_line_diff (old_text->str, new_text->str, g_rand_int_range (rand, 0, 4), &added, &removed);
      g_assert_nonnull (diff);
      patched = apply (old_lines, diff);
      g_assert_cmpuint (patched->len, ==, new_lines->len);
      for (guint i = 0; i < m; i++)
        g_assert_cmpstr (patched->pdata[i], ==, new_lines->pdata[i]);
      g_assert_cmpuint (added + removed, ==, n + m - 2 * lcs_length (old_lines, new_lines));
    }
}

/* ZOT_DIFF_MAX_LINES counts the lines that differ, old and new together;
 * the common first and last lines do not count. */
static void
test_diff_limit (void)
{
  guint half = ZOT_DIFF_MAX_LINES / 2;
  g_autoptr(GString) old_text = g_string_new (NULL);
  g_autoptr(GString) new_text = g_string_new (NULL);
  g_autofree char *diff = NULL;
  guint added = 0, removed = 0;
  gint64 start;

  for (guint i = 0; i < 20000; i++)
    {
      g_string_append_printf (old_text, "same %u\n", i);
      g_string_append_printf (new_text, "same %u\n", i);
    }
  for (guint i = 0; i < half; i++)
    g_string_append_printf (old_text, "old %u\n", i);
  for (guint i = 0; i < ZOT_DIFF_MAX_LINES - half; i++)
    g_string_append_printf (new_text, "new %u\n", i);
  g_string_append (old_text, "end\n");
  g_string_append (new_text, "end\n");

  start = g_get_monotonic_time ();
  diff = zot_line_diff (old_text->str, new_text->str, 3, &added, &removed);
  g_assert_nonnull (diff);
  g_assert_cmpuint (removed, ==, half);
  g_assert_cmpuint (added, ==, ZOT_DIFF_MAX_LINES - half);
  /* The worst case at the limit: every line differs. */
  g_test_message ("the worst diff at the limit took %.0f ms", (g_get_monotonic_time () - start) / 1000.0);
  g_clear_pointer (&diff, g_free);

  g_string_append (new_text, "one more\n");
  diff = zot_line_diff (old_text->str, new_text->str, 3, &added, &removed);
  g_assert_null (diff);
}

/* Bounded lines */

static void
test_line_count (void)
{
  g_assert_cmpuint (zot_line_count (NULL), ==, 0);
  g_assert_cmpuint (zot_line_count (""), ==, 0);
  g_assert_cmpuint (zot_line_count ("a"), ==, 1);
  g_assert_cmpuint (zot_line_count ("a\n"), ==, 1);
  g_assert_cmpuint (zot_line_count ("a\n\nb"), ==, 3);
}

static void
test_clip (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *at_limit = g_strnfill (ZOT_TOOL_VIEW_LINE_MAX_CHARS, 'x');
  g_autofree char *over = g_strnfill (ZOT_TOOL_VIEW_LINE_MAX_CHARS + 1, 'x');
  g_autofree char *expected = g_strconcat (at_limit, "…", NULL);
  g_autofree char *clipped = NULL;
  guint shown = 0;

  clipped = zot_line_clip ("a\r\nb\nc\n", "+", 2, &shown);
  g_assert_cmpstr (clipped, ==, "+a\n+b");
  g_assert_cmpuint (shown, ==, 2);
  g_clear_pointer (&clipped, g_free);

  /* A line at the limit is whole; one character more is cut. */
  clipped = zot_line_clip (at_limit, NULL, 5, &shown);
  g_assert_cmpstr (clipped, ==, at_limit);
  g_clear_pointer (&clipped, g_free);
  clipped = zot_line_clip (over, NULL, 5, &shown);
  g_assert_cmpstr (clipped, ==, expected);
  g_clear_pointer (&clipped, g_free);

  /* Never more than ZOT_TOOL_VIEW_MAX_LINES lines, whatever is asked. */
  for (guint i = 0; i < ZOT_TOOL_VIEW_MAX_LINES; i++)
    g_string_append (text, "l\n");
  clipped = zot_line_clip (text->str, NULL, G_MAXUINT, &shown);
  g_assert_cmpuint (shown, ==, ZOT_TOOL_VIEW_MAX_LINES);
  g_clear_pointer (&clipped, g_free);
  g_string_append (text, "l\n");
  clipped = zot_line_clip (text->str, NULL, G_MAXUINT, &shown);
  g_assert_cmpuint (shown, ==, ZOT_TOOL_VIEW_MAX_LINES);
  g_assert_cmpuint (zot_line_count (text->str), ==, ZOT_TOOL_VIEW_MAX_LINES + 1);
  g_clear_pointer (&clipped, g_free);

  /* Nor more than ZOT_TOOL_VIEW_MAX_BYTES. */
  g_string_truncate (text, 0);
  for (guint i = 0; i < ZOT_TOOL_VIEW_MAX_LINES; i++)
    g_string_append_printf (text, "%s\n", at_limit);
  clipped = zot_line_clip (text->str, NULL, G_MAXUINT, &shown);
  g_assert_cmpuint (strlen (clipped), <=, ZOT_TOOL_VIEW_MAX_BYTES);
  g_assert_cmpuint (strlen (clipped), >, ZOT_TOOL_VIEW_MAX_BYTES - ZOT_TOOL_VIEW_LINE_MAX_CHARS - 2);
  g_assert_cmpuint (shown, ==, (ZOT_TOOL_VIEW_MAX_BYTES + 1) / (ZOT_TOOL_VIEW_LINE_MAX_CHARS + 1));
}

/* The views */

typedef struct
{
  GtkWidget         *window;
  ZotTranscriptRow  *row;
  ZotTranscriptItem *item;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 480, 400);
  f->row = ZOT_TRANSCRIPT_ROW (zot_transcript_row_new ());
  /* As in the transcript, a row scrolls: a whole 2,000-line view is
   * taller than an X window may be. Sideways it may not: a row must
   * never ask for more width than the window has. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (f->row));
  gtk_window_set_child (GTK_WINDOW (f->window), scroller);
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  zot_transcript_row_unbind (f->row);
  g_clear_object (&f->item);
  gtk_window_destroy (GTK_WINDOW (f->window));
}

static void
iterate (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Shows a call of @name with @args (a JSON object), open. */
static void
show_call (Fixture    *f,
           const char *name,
           const char *args_json,
           const char *origin)
{
  g_autoptr(JsonNode) node = json_from_string (args_json, NULL);

  g_assert_nonnull (node);
  zot_transcript_row_unbind (f->row);
  g_clear_object (&f->item);
  f->item = zot_transcript_item_new_tool ("call-1", name, json_node_get_object (node), origin, NULL);
  zot_transcript_item_set_expanded (f->item, TRUE);
  zot_transcript_row_bind (f->row, f->item);
  iterate ();
}

static void
finish_call (Fixture    *f,
             const char *text,
             gboolean    is_error)
{
  g_autoptr(ZotToolResult) result =
    zot_tool_result_new_text (text, is_error, is_error ? ZOT_TOOL_OUTCOME_FAILED : ZOT_TOOL_OUTCOME_COMPLETED);

  zot_transcript_item_set_result (f->item, result);
  iterate ();
}

static GtkWidget *
view (Fixture *f)
{
  GtkWidget *found = zot_test_find_widget (GTK_WIDGET (f->row), ZOT_TYPE_TOOL_CALL_VIEW, NULL);

  g_assert_nonnull (found);
  return found;
}

static char *
diff_text (Fixture *f)
{
  GtkWidget *source = zot_test_find_widget (GTK_WIDGET (f->row), GTK_SOURCE_TYPE_VIEW, "tool-diff-text");
  GtkTextBuffer *buffer;
  GtkSourceLanguage *language;
  GtkTextIter start, end;

  g_assert_nonnull (source);
  g_assert_true (gtk_widget_get_visible (view (f)));
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (source));
  language = gtk_source_buffer_get_language (GTK_SOURCE_BUFFER (buffer));
  g_assert_nonnull (language);
  g_assert_cmpstr (gtk_source_language_get_id (language), ==, "diff");
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static const char *
label_text (Fixture    *f,
            const char *css_class)
{
  GtkWidget *label = zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_LABEL, css_class);

  g_assert_nonnull (label);
  return gtk_widget_get_visible (label) ? gtk_label_get_text (GTK_LABEL (label)) : NULL;
}

/* The text of the open row's details (the header shows a preview). */
static char *
row_text (Fixture *f)
{
  GtkWidget *expander = zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_EXPANDER, "tool-row");

  return zot_test_widget_text (gtk_expander_get_child (GTK_EXPANDER (expander)));
}

/* The label that reads @text. */
static GtkWidget *
labelled (Fixture    *f,
          const char *text)
{
  g_autoptr(GPtrArray) labels = zot_test_find_widgets (GTK_WIDGET (f->row), GTK_TYPE_LABEL, NULL);

  for (guint i = 0; i < labels->len; i++)
    if (g_str_equal (gtk_label_get_text (labels->pdata[i]), text))
      return labels->pdata[i];
  g_assert_not_reached ();
}

static GtkWidget *
show_all_button (Fixture *f)
{
  return zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BUTTON, "tool-show-all");
}

static void
test_edit (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *diff = NULL;
  g_autofree char *text = NULL;

  show_call (f, "edit",
             "{\"path\":\"src/main.c\",\"old_text\":\"int a;\\nint b;\\nint c;\\n\","
             "\"new_text\":\"int a;\\nlong b;\\nint c;\\nint d;\\n\"}", NULL);
  diff = diff_text (f);
  g_assert_cmpstr (diff, ==, "@@ -1,3 +1,4 @@\n int a;\n-int b;\n+long b;\n int c;\n+int d;");
  g_assert_cmpstr (label_text (f, "tool-summary"), ==, "src/main.c");
  g_assert_cmpstr (label_text (f, "success"), ==, "+2");
  g_assert_cmpstr (label_text (f, "error"), ==, "−1");
  g_assert_null (show_all_button (f));
  /* The header names the file rather than the JSON. */
  g_assert_cmpstr (label_text (f, "tool-preview"), ==, "src/main.c");

  /* No JSON anywhere in the details: it is one "Raw" away. */
  text = row_text (f);
  g_assert_null (strstr (text, "old_text"));
  g_assert_false (gtk_widget_is_visible (labelled (f, "Arguments")));
}

/* A long diff shows its first lines, then all of them on "Show all". */
static void
test_show_all (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GString) args = g_string_new ("{\"path\":\"x\",\"old_text\":\"\",\"new_text\":\"");
  g_autofree char *diff = NULL;
  GtkWidget *button;

  for (guint i = 0; i < 30; i++)
    g_string_append_printf (args, "line %u\\n", i);
  g_string_append (args, "\"}");
  show_call (f, "edit", args->str, NULL);

  diff = diff_text (f);
  g_assert_cmpuint (zot_line_count (diff), ==, ZOT_TOOL_VIEW_PREVIEW_LINES);
  g_assert_true (g_str_has_prefix (diff, "@@ -0,0 +1,30 @@\n+line 0\n"));
  button = show_all_button (f);
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Show all 31 lines");

  g_signal_emit_by_name (button, "clicked");
  iterate ();
  g_clear_pointer (&diff, g_free);
  diff = diff_text (f);
  g_assert_cmpuint (zot_line_count (diff), ==, 31);
  g_assert_true (g_str_has_suffix (diff, "+line 29"));
  g_assert_null (show_all_button (f));
}

/* Exactly ZOT_TOOL_VIEW_PREVIEW_LINES lines need no "Show all". */
static void
test_preview_limit (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GString) args = g_string_new ("{\"path\":\"x\",\"content\":\"");

  g_autofree char *diff = NULL;

  for (guint i = 0; i < ZOT_TOOL_VIEW_PREVIEW_LINES; i++)
    g_string_append_printf (args, "line %u\\n", i);
  g_string_append (args, "\"}");
  show_call (f, "write", args->str, NULL);
  g_assert_null (show_all_button (f));
  diff = diff_text (f);
  g_assert_cmpuint (zot_line_count (diff), ==, ZOT_TOOL_VIEW_PREVIEW_LINES + 1);
  g_clear_pointer (&diff, g_free);

  g_string_truncate (args, args->len - 2);
  g_string_append (args, "one more\\n\"}");
  show_call (f, "write", args->str, NULL);
  g_assert_nonnull (show_all_button (f));
  diff = diff_text (f);
  g_assert_cmpuint (zot_line_count (diff), ==, ZOT_TOOL_VIEW_PREVIEW_LINES + 1);
  g_assert_null (strstr (diff, "one more"));
}

static void
test_write (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GPtrArray) outputs = NULL;
  g_autofree char *diff = NULL;

  show_call (f, "write", "{\"path\":\"notes.txt\",\"content\":\"one\\ntwo\\n\"}", NULL);
  diff = diff_text (f);
  g_assert_cmpstr (diff, ==, "@@ -0,0 +1,2 @@\n+one\n+two");
  g_assert_cmpstr (label_text (f, "tool-summary"), ==, "notes.txt");
  g_assert_cmpstr (label_text (f, "success"), ==, "+2");
  g_assert_null (label_text (f, "error"));
  g_assert_nonnull (strstr (label_text (f, "tool-note"), "previous content is not known"));

  /* Its result stays the row's. */
  finish_call (f, "Wrote 8 bytes to notes.txt", FALSE);
  outputs = zot_test_find_widgets (GTK_WIDGET (f->row), GTK_TYPE_WIDGET, "tool-output");
  g_assert_cmpuint (outputs->len, ==, 2);
  g_assert_false (gtk_widget_get_visible (outputs->pdata[0]));
  g_assert_true (gtk_widget_get_visible (outputs->pdata[1]));
  g_clear_pointer (&diff, g_free);
  diff = zot_test_widget_text (outputs->pdata[1]);
  g_assert_cmpstr (diff, ==, "Wrote 8 bytes to notes.txt\n");
}

static GtkWidget *
terminal (Fixture *f)
{
  return zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-terminal");
}

static void
test_bash (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *output = NULL;
  g_autofree char *text = NULL;
  GtkWidget *badge;
  GtkWidget *command;

  show_call (f, "bash", "{\"command\":\"ls /nope\"}", NULL);
  command = zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-command");
  g_assert_nonnull (command);
  text = zot_test_widget_text (command);
  g_assert_cmpstr (text, ==, "$\nls /nope\n");
  g_clear_pointer (&text, g_free);
  /* Running: no output, no status yet. */
  g_assert_null (terminal (f));
  g_assert_null (label_text (f, "tool-exit"));

  finish_call (f, "ls: cannot access '/nope'\nexit code: 2", TRUE);
  g_assert_nonnull (terminal (f));
  output = zot_test_widget_text (terminal (f));
  g_assert_cmpstr (output, ==, "ls: cannot access '/nope'\n");
  g_assert_true (gtk_widget_has_css_class (terminal (f), "error"));
  badge = zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_LABEL, "tool-exit");
  g_assert_true (gtk_widget_get_visible (badge));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (badge)), ==, "exit 2");
  g_assert_true (gtk_widget_has_css_class (badge, "error"));
  g_assert_false (gtk_widget_has_css_class (badge, "success"));

  /* The output shows once: the row's own result is not there too. */
  text = row_text (f);
  g_assert_nonnull (strstr (text, "cannot access"));
  g_assert_null (strstr (strstr (text, "cannot access") + 1, "cannot access"));
  g_assert_null (strstr (text, "exit code"));
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&output, g_free);

  show_call (f, "bash", "{\"command\":\"printf 'ok\\\\n'\"}", NULL);
  finish_call (f, "\x1b[32mok\x1b[0m\nexit code: 0", FALSE);
  output = zot_test_widget_text (terminal (f));
  g_assert_cmpstr (output, ==, "ok\n");
  g_assert_false (gtk_widget_has_css_class (terminal (f), "error"));
  g_assert_nonnull (gtk_label_get_attributes (GTK_LABEL (zot_test_find_widget (terminal (f), GTK_TYPE_LABEL, NULL))));
  badge = zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_LABEL, "tool-exit");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (badge)), ==, "exit 0");
  g_assert_true (gtk_widget_has_css_class (badge, "success"));
  g_assert_false (gtk_widget_has_css_class (badge, "error"));

  /* An extension's "bash" may mean anything: its JSON stays. */
  show_call (f, "bash", "{\"command\":\"x\"}", "some-extension");
  g_assert_false (gtk_widget_get_visible (view (f)));
  g_clear_pointer (&text, g_free);
  text = row_text (f);
  g_assert_nonnull (strstr (text, "\"command\" : \"x\""));
}

static void
test_read (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *text = NULL;

  show_call (f, "read", "{\"path\":\"src/zot.c\",\"offset\":10,\"limit\":50}", NULL);
  g_assert_cmpstr (label_text (f, "tool-summary"), ==, "src/zot.c");
  g_assert_cmpstr (label_text (f, "tool-note"), ==, "lines 10–59");
  text = row_text (f);
  g_assert_null (strstr (text, "\"offset\""));

  show_call (f, "read", "{\"path\":\"a\",\"offset\":7}", NULL);
  g_assert_cmpstr (label_text (f, "tool-note"), ==, "from line 7");
  show_call (f, "read", "{\"path\":\"a\",\"limit\":5}", NULL);
  g_assert_cmpstr (label_text (f, "tool-note"), ==, "lines 1–5");
  show_call (f, "read", "{\"path\":\"a\"}", NULL);
  g_assert_cmpstr (label_text (f, "tool-note"), ==, "whole file");
}

static void
test_raw (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *text = NULL;
  GtkWidget *toggle;

  show_call (f, "edit", "{\"path\":\"p\",\"old_text\":\"a\",\"new_text\":\"b\"}", NULL);
  toggle = zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_TOGGLE_BUTTON, "tool-raw-toggle");
  g_assert_nonnull (toggle);
  g_assert_null (zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-raw"));

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), TRUE);
  iterate ();
  g_assert_nonnull (zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-raw"));
  text = zot_test_widget_text (zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-raw"));
  g_assert_nonnull (strstr (text, "\"old_text\" : \"a\""));
  g_assert_null (zot_test_find_widget (GTK_WIDGET (f->row), GTK_SOURCE_TYPE_VIEW, NULL));

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), FALSE);
  iterate ();
  g_assert_null (zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-raw"));
  g_assert_nonnull (zot_test_find_widget (GTK_WIDGET (f->row), GTK_SOURCE_TYPE_VIEW, NULL));

  /* The next call starts read, not raw. */
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), TRUE);
  show_call (f, "write", "{\"path\":\"p\",\"content\":\"c\"}", NULL);
  g_assert_false (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (toggle)));
  g_assert_null (zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-raw"));
}

/* Other tools keep their JSON. */
static void
test_other (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *text = NULL;

  show_call (f, "glob", "{\"pattern\":\"*.c\"}", NULL);
  g_assert_false (gtk_widget_get_visible (view (f)));
  text = row_text (f);
  g_assert_nonnull (strstr (text, "\"pattern\" : \"*.c\""));
  g_assert_true (gtk_widget_is_visible (labelled (f, "Arguments")));

  /* A built-in name without the arguments it takes. */
  show_call (f, "edit", "{\"path\":\"p\"}", NULL);
  g_assert_false (gtk_widget_get_visible (view (f)));
}

/* A 5 MiB write opens at once and shows at most the limits; a long line
 * scrolls inside its block and does not widen the row. */
static void
test_huge (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GString) content = g_string_new (NULL);
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *diff = NULL;
  GtkWidget *raw_box;
  gint64 start;
  int min_width;

  while (content->len < 5 * 1024 * 1024)
    g_string_append (content, "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n");
  g_string_append (content, "and a last line without a break longer than any window: ");
  for (guint i = 0; i < 300; i++)
    g_string_append (content, "long ");
  json_object_set_string_member (args, "path", "big.txt");
  json_object_set_string_member (args, "content", content->str);

  start = g_get_monotonic_time ();
  zot_transcript_row_unbind (f->row);
  f->item = zot_transcript_item_new_tool ("call-1", "write", args, NULL, NULL);
  zot_transcript_item_set_expanded (f->item, TRUE);
  zot_transcript_row_bind (f->row, f->item);
  iterate ();
  g_signal_emit_by_name (show_all_button (f), "clicked");
  iterate ();
  gtk_widget_measure (GTK_WIDGET (f->row), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  g_test_message ("binding, showing all and measuring took %.0f ms",
                  (g_get_monotonic_time () - start) / 1000.0);

  diff = diff_text (f);
  g_assert_cmpuint (strlen (diff), <=, ZOT_TOOL_VIEW_MAX_BYTES + 256);
  g_assert_cmpuint (zot_line_count (diff), ==, ZOT_TOOL_VIEW_MAX_LINES + 2);
  g_assert_nonnull (strstr (diff, "more lines not shown"));
  g_assert_cmpint (min_width, <, 400);

  /* The raw JSON is bounded too: its one long line is cut. */
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_TOGGLE_BUTTON,
                                                                         "tool-raw-toggle")), TRUE);
  iterate ();
  raw_box = zot_test_find_widget (GTK_WIDGET (f->row), GTK_TYPE_BOX, "tool-raw");
  g_clear_pointer (&diff, g_free);
  diff = zot_test_widget_text (raw_box);
  g_assert_cmpuint (strlen (diff), <, 16 * 1024);
  g_assert_nonnull (strstr (diff, "\"content\" : \"0123"));
}

/* A row bound to another call shows nothing of the first. */
static void
test_rebind (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *text = NULL;

  show_call (f, "edit", "{\"path\":\"first.c\",\"old_text\":\"a\",\"new_text\":\"b\"}", NULL);
  show_call (f, "bash", "{\"command\":\"true\"}", NULL);
  text = row_text (f);
  g_assert_null (strstr (text, "first.c"));
  g_assert_null (zot_test_find_widget (GTK_WIDGET (f->row), GTK_SOURCE_TYPE_VIEW, NULL));
  g_assert_null (label_text (f, "success"));
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();

  g_test_add_func ("/zot/tool-views/diff/identical", test_diff_identical);
  g_test_add_func ("/zot/tool-views/diff/insert", test_diff_insert);
  g_test_add_func ("/zot/tool-views/diff/delete", test_diff_delete);
  g_test_add_func ("/zot/tool-views/diff/replace", test_diff_replace);
  g_test_add_func ("/zot/tool-views/diff/empty", test_diff_empty);
  g_test_add_func ("/zot/tool-views/diff/hunks", test_diff_hunks);
  g_test_add_func ("/zot/tool-views/diff/random", test_diff_random);
  g_test_add_func ("/zot/tool-views/diff/limit", test_diff_limit);
  g_test_add_func ("/zot/tool-views/lines/count", test_line_count);
  g_test_add_func ("/zot/tool-views/lines/clip", test_clip);
#define ADD(path, func) \
  g_test_add ("/zot/tool-views/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("edit", test_edit);
  ADD ("show-all", test_show_all);
  ADD ("preview-limit", test_preview_limit);
  ADD ("write", test_write);
  ADD ("bash", test_bash);
  ADD ("read", test_read);
  ADD ("raw", test_raw);
  ADD ("other", test_other);
  ADD ("huge", test_huge);
  ADD ("rebind", test_rebind);
#undef ADD

  return g_test_run ();
}
