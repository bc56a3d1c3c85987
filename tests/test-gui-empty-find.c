/* test-gui-empty-find.c — the conversation pane: a new conversation's
 * empty state (what to type, an extension's commands that go into the
 * prompt, the recent conversations that open) until the first message;
 * and find, which counts and marks each place the text is, inside the
 * messages' labels and text views, stepping from one to the next. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>
#include <utime.h>

#include "zot-application.h"
#include "zot-empty-state.h"
#include "zot-find-bar.h"
#include "zot-gui-test-util.h"
#include "zot-limits.h"
#include "zot-paths.h"
#include "zot-session.h"
#include "zot-gui-conversation-test-util.h"
#include "zot-test-util.h"
#include "zot-transcript-private.h"
#include "zot-window-private.h"
#include "zot-window.h"

typedef ZotTestConversation Fixture;

static ZotApplication *application;

/* A window with the demo model, the extensions at @paths, on
 * @session_path or a new conversation. */
static void
open_window (Fixture            *f,
             const char * const *paths,
             const char         *session_path)
{
  zot_test_conversation_open_window (f, application, paths, session_path, 1280, 760);
}

/* A stored conversation @id of the messages given as JSON, one a line;
 * its file's time is @age seconds ago. */
static char *
save_conversation (Fixture            *f,
                   const char         *id,
                   int                 age,
                   const char * const *messages)
{
  g_autoptr(GString) file = g_string_new (NULL);
  g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
  char *path = g_build_filename (f->dir, name, NULL);
  struct utimbuf times;

  g_string_append_printf (file, "{\"type\":\"session\",\"version\":1,\"id\":\"%s\",\"cwd\":\"%s\","
                          "\"created\":\"2024-05-01T10:00:00Z\"}\n", id, f->cwd);
  for (guint i = 0; messages[i] != NULL; i++)
    g_string_append_printf (file, "{\"type\":\"message\",\"message\":%s}\n", messages[i]);
  g_assert_true (g_file_set_contents (path, file->str, (gssize) file->len, NULL));
  times.actime = times.modtime = time (NULL) - age;
  g_assert_cmpint (g_utime (path, &times), ==, 0);
  return path;
}

static char *
user_message (const char *text)
{
  return g_strdup_printf ("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}", text);
}

/* Empty state */

typedef struct
{
  ZotEmptyState *state;
  guint          n_commands;
  guint          n_conversations;
} StateWait;

static gboolean
state_filled (gpointer data)
{
  StateWait *wait = data;

  return _zot_empty_state_get_command_buttons (wait->state)->len == wait->n_commands &&
         _zot_empty_state_get_conversation_rows (wait->state)->len == wait->n_conversations;
}

static gboolean
session_is (gpointer data)
{
  gpointer *pair = data;
  ZotHost *host = zot_window_get_host (pair[0]);

  return host != NULL &&
         g_strcmp0 (zot_session_get_path (zot_agent_get_session (zot_host_get_agent (host))), pair[1]) == 0;
}

static gboolean
widget_hidden (gpointer data)
{
  return !gtk_widget_get_visible (data);
}

static gboolean
widget_shown (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

/* A new conversation shows what to type, the extension's command and the
 * recent conversations, newest first; the command goes into the prompt;
 * a conversation opens, and with its messages the state goes. */
static void
test_empty_state (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *ext = zot_test_make_fake_args (f->env.root, "greeter", "--command", "greet", NULL);
  const char *paths[] = { ext, NULL };
  g_autofree char *old_message = user_message ("Rename the old module");
  g_autofree char *new_message = user_message ("Add a verbose flag");
  const char *old_messages[] = { old_message, NULL };
  const char *new_messages[] = { new_message, NULL };
  g_autofree char *old_path = save_conversation (f, "older", 7200, old_messages);
  g_autofree char *new_path = save_conversation (f, "newer", 60, new_messages);
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;
  StateWait wait;
  GPtrArray *buttons;
  GPtrArray *rows;
  gpointer pair[2];

  open_window (f, paths, NULL);
  wait = (StateWait) { f->window->empty_state, 1, 2 };
  zot_test_wait_until (state_filled, &wait, 20000);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (f->window->empty_state)));
  shown = zot_test_widget_text (GTK_WIDGET (f->window->empty_state));
  g_test_message ("%s", shown);
  g_assert_nonnull (strstr (shown, "Type / for commands"));

  buttons = _zot_empty_state_get_command_buttons (f->window->empty_state);
  g_assert_cmpstr (gtk_button_get_label (g_ptr_array_index (buttons, 0)), ==, "/greet");
  rows = _zot_empty_state_get_conversation_rows (f->window->empty_state);
  g_assert_cmpstr (g_object_get_data (g_ptr_array_index (rows, 0), "zot-path"), ==, new_path);
  g_assert_cmpstr (g_object_get_data (g_ptr_array_index (rows, 1), "zot-path"), ==, old_path);
  g_assert_nonnull (strstr (shown, "Add a verbose flag\n"));

  g_signal_emit_by_name (g_ptr_array_index (buttons, 0), "clicked");
  text = zot_prompt_editor_get_text (f->window->prompt_editor);
  g_assert_cmpstr (text, ==, "/greet ");

  g_signal_emit_by_name (g_ptr_array_index (rows, 1), "activate");
  pair[0] = f->window;
  pair[1] = old_path;
  zot_test_wait_until (session_is, pair, 20000);
  zot_test_wait_until (widget_hidden, f->window->empty_state, 20000);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (f->window->empty_state)));

  /* A new conversation has it again. */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.new-conversation", NULL);
  zot_test_wait_until (widget_shown, f->window->empty_state, 20000);
}

/* ZOT_EMPTY_STATE_RECENT_MAX of them, the newest: one more is left out. */
static void
test_recent_max (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *oldest = NULL;
  StateWait wait;
  GPtrArray *rows;

  for (guint i = 0; i <= ZOT_EMPTY_STATE_RECENT_MAX; i++)
    {
      g_autofree char *id = g_strdup_printf ("c%u", i);
      g_autofree char *message = user_message (id);
      const char *messages[] = { message, NULL };
      g_autofree char *path = save_conversation (f, id, 60 * (int) (i + 1), messages);

      if (i == ZOT_EMPTY_STATE_RECENT_MAX)
        oldest = g_steal_pointer (&path);
    }

  open_window (f, NULL, NULL);
  wait = (StateWait) { f->window->empty_state, 0, ZOT_EMPTY_STATE_RECENT_MAX };
  zot_test_wait_until (state_filled, &wait, 20000);
  rows = _zot_empty_state_get_conversation_rows (f->window->empty_state);
  g_assert_cmpuint (rows->len, ==, ZOT_EMPTY_STATE_RECENT_MAX);
  for (guint i = 0; i < rows->len; i++)
    g_assert_cmpstr (g_object_get_data (g_ptr_array_index (rows, i), "zot-path"), !=, oldest);
}

/* The first message sent takes it away. */
static void
test_empty_state_goes (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(ZotTestSubmit) submit = { 0 };

  open_window (f, NULL, NULL);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (f->window->empty_state)));
  /* Nothing to offer: the headings go with their lists. */
  g_assert_cmpuint (_zot_empty_state_get_command_buttons (f->window->empty_state)->len, ==, 0);

  zot_test_submit (zot_window_get_host (f->window), "hello", &submit);
  g_assert_true (submit.ok);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (f->window->empty_state)));
}

/* Find */

#define CURRENT_RED 0xffff
#define CURRENT_GREEN 0xa3a3

static void
describe_label (GString  *out,
                GtkLabel *label)
{
  PangoAttrList *attrs = gtk_label_get_attributes (label);
  const char *text = gtk_label_get_text (label);
  GSList *list;

  if (attrs == NULL)
    return;
  list = pango_attr_list_get_attributes (attrs);
  for (GSList *l = list; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;
      PangoColor *color;

      if (attr->klass->type != PANGO_ATTR_BACKGROUND)
        continue;
      color = &((PangoAttrColor *) attr)->color;
      g_string_append_printf (out, "[%.*s]%s ", (int) (attr->end_index - attr->start_index),
                              text + attr->start_index,
                              color->red == CURRENT_RED && color->green == CURRENT_GREEN ? "*" : "");
    }
  g_slist_free_full (list, (GDestroyNotify) pango_attribute_destroy);
}

static void
describe_text_view (GString     *out,
                    GtkTextView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextTagTable *table = gtk_text_buffer_get_tag_table (buffer);
  GtkTextIter iter;

  gtk_text_buffer_get_start_iter (buffer, &iter);
  do
    {
      const char *names[] = { "zot-find-match", "zot-find-current" };

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          GtkTextTag *tag = gtk_text_tag_table_lookup (table, names[i]);
          GtkTextIter end = iter;
          g_autofree char *text = NULL;

          if (tag == NULL || !gtk_text_iter_starts_tag (&iter, tag))
            continue;
          gtk_text_iter_forward_to_tag_toggle (&end, tag);
          text = gtk_text_iter_get_text (&iter, &end);
          g_string_append_printf (out, "[%s]%s ", text, i == 1 ? "*" : "");
        }
    }
  while (gtk_text_iter_forward_char (&iter));
}

/* The marks in @item's row: "[text]" for each match, "[text]*" for the
 * current one, in the order the row shows them. */
static char *
describe_marks (Fixture           *f,
                ZotTranscriptItem *item)
{
  GtkWidget *row = _zot_transcript_get_row (f->window->transcript, item);
  g_autoptr(GPtrArray) widgets = zot_test_find_widgets (row, G_TYPE_NONE, NULL);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < widgets->len; i++)
    {
      GtkWidget *widget = g_ptr_array_index (widgets, i);

      if (GTK_IS_LABEL (widget))
        describe_label (out, GTK_LABEL (widget));
      else if (GTK_IS_TEXT_VIEW (widget))
        describe_text_view (out, GTK_TEXT_VIEW (widget));
    }
  if (out->len > 0)
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

static ZotTranscriptItem *
nth_item (Fixture *f,
          guint    n)
{
  g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (_zot_transcript_get_items (f->window->transcript), n);

  return item;
}

static void
assert_marks (Fixture    *f,
              const char *first,
              const char *second,
              const char *third)
{
  g_autofree char *a = describe_marks (f, nth_item (f, 0));
  g_autofree char *b = describe_marks (f, nth_item (f, 1));
  g_autofree char *c = describe_marks (f, nth_item (f, 2));

  g_test_message ("marks: %s | %s | %s", a, b, c);
  g_assert_cmpstr (a, ==, first);
  g_assert_cmpstr (b, ==, second);
  g_assert_cmpstr (c, ==, third);
}

/* Five places in three messages, one in a code block: "N of 5", only the
 * text of each marked, the current one in its own colour, next and
 * previous from place to place and around. */
static void
test_find_marks (Fixture       *f,
                 gconstpointer  data)
{
  const char *messages[] = {
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Why does the Parser reject it?\"}]}",
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"The parser reads the header; "
      "the PARSER fails.\\n\\n```c\\nparser_parse (x);\\n```\"}]}",
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Fix the parser.\"}]}",
    NULL
  };
  g_autofree char *path = save_conversation (f, "find", 0, messages);
  ZotFindBar *bar;

  open_window (f, NULL, path);
  g_assert_cmpuint (g_list_model_get_n_items (_zot_transcript_get_items (f->window->transcript)), ==, 3);
  bar = f->window->find_bar;
  zot_find_bar_open (bar);
  zot_find_bar_set_text (bar, "parser");

  g_assert_cmpuint (zot_find_bar_get_n_matches (bar), ==, 5);
  g_assert_cmpstr (zot_find_bar_get_count_text (bar), ==, "1 of 5");
  assert_marks (f, "[Parser]*", "[parser] [PARSER] [parser]", "[parser]");

  zot_find_bar_next (bar);
  g_assert_cmpstr (zot_find_bar_get_count_text (bar), ==, "2 of 5");
  assert_marks (f, "[Parser]", "[parser]* [PARSER] [parser]", "[parser]");
  zot_find_bar_next (bar);
  assert_marks (f, "[Parser]", "[parser] [PARSER]* [parser]", "[parser]");
  zot_find_bar_next (bar);
  g_assert_cmpstr (zot_find_bar_get_count_text (bar), ==, "4 of 5");
  assert_marks (f, "[Parser]", "[parser] [PARSER] [parser]*", "[parser]");
  zot_find_bar_next (bar);
  assert_marks (f, "[Parser]", "[parser] [PARSER] [parser]", "[parser]*");
  zot_find_bar_next (bar);
  g_assert_cmpstr (zot_find_bar_get_count_text (bar), ==, "1 of 5");
  assert_marks (f, "[Parser]*", "[parser] [PARSER] [parser]", "[parser]");
  zot_find_bar_previous (bar);
  g_assert_cmpstr (zot_find_bar_get_count_text (bar), ==, "5 of 5");
  assert_marks (f, "[Parser]", "[parser] [PARSER] [parser]", "[parser]*");

  /* Other text, other marks; none found, none left. */
  zot_find_bar_set_text (bar, "header");
  g_assert_cmpstr (zot_find_bar_get_count_text (bar), ==, "1 of 1");
  assert_marks (f, "", "[header]*", "");
  zot_find_bar_set_text (bar, "nowhere");
  g_assert_cmpstr (zot_find_bar_get_count_text (bar), ==, "No matches");
  assert_marks (f, "", "", "");

  /* Closed, it leaves no mark. */
  zot_find_bar_set_text (bar, "parser");
  zot_find_bar_close (bar);
  assert_marks (f, "", "", "");
}

int
main (int    argc,
      char **argv)
{
  int status;

  application = zot_test_gui_init (&argc, &argv);

  g_test_add ("/zot/gui-empty-find/empty-state", Fixture, NULL, zot_test_conversation_setup, test_empty_state,
              zot_test_conversation_teardown);
  g_test_add ("/zot/gui-empty-find/recent-max", Fixture, NULL, zot_test_conversation_setup, test_recent_max,
              zot_test_conversation_teardown);
  g_test_add ("/zot/gui-empty-find/empty-state-goes", Fixture, NULL, zot_test_conversation_setup, test_empty_state_goes,
              zot_test_conversation_teardown);
  g_test_add ("/zot/gui-empty-find/find-marks", Fixture, NULL, zot_test_conversation_setup, test_find_marks,
              zot_test_conversation_teardown);

  status = g_test_run ();
  g_clear_object (&application);
  return status;
}
