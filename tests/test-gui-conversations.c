/* test-gui-conversations.c — stored conversations in the window: a resumed
 * one shows every row, a damaged one a warning row, one that another
 * process writes opens read-only and follows the file; the sidebar opens,
 * renames, searches and deletes; find and copy work on the rows. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "zot-application.h"
#include "zot-conversation-row.h"
#include "zot-conversation-sidebar.h"
#include "zot-gui-conversation-test-util.h"
#include "zot-find-bar.h"
#include "zot-gui-test-util.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-prompt-editor-private.h"
#include "zot-session.h"
#include "zot-test-util.h"
#include "zot-transcript-private.h"
#include "zot-transcript-view.h"
#include "zot-transcript-row.h"
#include "zot-window.h"
#include "zot-window-private.h"

typedef ZotTestConversation Fixture;

static ZotApplication *application;
/* The width windows open at: the sidebar folds when the window is
 * narrower than ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH. */
static int window_width = 1390;

/* A window with the demo model on @session_path, or on a new conversation. */
static void
open_window (Fixture    *f,
             const char *session_path)
{
  zot_test_conversation_open_window (f, application, NULL, session_path, window_width, 760);
}

/* A conversation with everything a run leaves: prompts, replies in
 * Markdown, tool calls with results (one failed), a call a tool made
 * (the journal of a continuous conversation), a compaction and its
 * summary, and an image. */
static char *
write_fixture (Fixture *f)
{
  GString *file = zot_test_conversation_new_file (f, "fixture", TRUE);

  zot_test_conversation_add_message (file, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Please list the files\"}]}");
  zot_test_conversation_add_message (file, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"I will look.\"},"
                     "{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"bash\",\"input\":{\"command\":\"ls\"}}]}");
  g_string_append (file, "{\"type\":\"task\",\"event\":\"started\",\"id\":\"c1\",\"tool\":\"bash\","
                         "\"args\":{\"command\":\"ls\"},\"effective_args\":{\"command\":\"ls\"}}\n");
  g_string_append (file, "{\"type\":\"task\",\"event\":\"started\",\"id\":\"c1/n=1\",\"tool\":\"read\","
                         "\"args\":{\"path\":\"Makefile\"},\"effective_args\":{\"path\":\"Makefile\"}}\n");
  g_string_append (file, "{\"type\":\"task\",\"event\":\"finished\",\"id\":\"c1/n=1\",\"result\":"
                         "{\"content\":[{\"type\":\"text\",\"text\":\"all: zot\"}],\"is_error\":false,"
                         "\"outcome\":\"completed\"}}\n");
  g_string_append (file, "{\"type\":\"task\",\"event\":\"finished\",\"id\":\"c1\",\"result\":"
                         "{\"content\":[{\"type\":\"text\",\"text\":\"Makefile\\nREADME.md\"}],\"is_error\":false,"
                         "\"outcome\":\"completed\"}}\n");
  zot_test_conversation_add_message (file, "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c1\","
                     "\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"Makefile\\nREADME.md\"}]}]}");
  zot_test_conversation_add_message (file, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
                     "\"There are **two** files:\\n\\n```sh\\nMakefile\\nREADME.md\\n```\"}]}");
  g_string_append (file, "{\"type\":\"compaction\",\"summary\":\"Listed the files.\",\"message_count\":4}\n");
  zot_test_conversation_add_message (file, "{\"role\":\"user\",\"summary\":true,\"content\":[{\"type\":\"text\",\"text\":"
                     "\"Summary of the conversation so far:\\n\\nListed the files.\"}]}");
  zot_test_conversation_add_message (file, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is in this picture?\"},"
                     "{\"type\":\"image\",\"mime_type\":\"image/png\",\"data\":\"" ZOT_TEST_PIXEL_PNG_BASE64 "\"}]}");
  zot_test_conversation_add_message (file, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"A dot.\"},"
                     "{\"type\":\"tool_use\",\"id\":\"c2\",\"name\":\"read\",\"input\":{\"path\":\"NOTES\"}}]}");
  g_string_append (file, "{\"type\":\"task\",\"event\":\"started\",\"id\":\"c2\",\"tool\":\"read\","
                         "\"args\":{\"path\":\"NOTES\"},\"effective_args\":{\"path\":\"NOTES\"}}\n");
  g_string_append (file, "{\"type\":\"task\",\"event\":\"finished\",\"id\":\"c2\",\"result\":"
                         "{\"content\":[{\"type\":\"text\",\"text\":\"no such file: NOTES\"}],\"is_error\":true,"
                         "\"outcome\":\"failed\"}}\n");
  zot_test_conversation_add_message (file, "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c2\","
                     "\"is_error\":true,\"content\":[{\"type\":\"text\",\"text\":\"no such file: NOTES\"}]}]}");
  zot_test_conversation_add_message (file, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Done.\"}]}");

  return zot_test_conversation_save_file (f, "fixture", file);
}

static gboolean
has_items (gpointer data)
{
  Fixture *f = data;

  return zot_test_conversation_count_items (f) >= 10;
}

static void
test_resume_shows_everything (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *path = write_fixture (f);
  static const ZotTranscriptItemKind kinds[] = {
    ZOT_TRANSCRIPT_ITEM_USER, ZOT_TRANSCRIPT_ITEM_ASSISTANT, ZOT_TRANSCRIPT_ITEM_TOOL, ZOT_TRANSCRIPT_ITEM_TOOL,
    ZOT_TRANSCRIPT_ITEM_ASSISTANT, ZOT_TRANSCRIPT_ITEM_SUMMARY, ZOT_TRANSCRIPT_ITEM_USER,
    ZOT_TRANSCRIPT_ITEM_ASSISTANT, ZOT_TRANSCRIPT_ITEM_TOOL, ZOT_TRANSCRIPT_ITEM_ASSISTANT,
  };
  ZotTranscriptItem *c1;
  ZotTranscriptItem *nested;
  ZotTranscriptItem *c2;

  open_window (f, path);
  zot_test_wait_until (has_items, f, 20000);

  /* The same rows a live run makes, in order: nothing after them. */
  g_assert_cmpuint (zot_test_conversation_count_items (f), ==, G_N_ELEMENTS (kinds));
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    g_assert_cmpint (zot_transcript_item_get_kind (zot_test_conversation_item_at (f, i)), ==, kinds[i]);

  g_assert_cmpstr (zot_transcript_item_get_text (zot_test_conversation_item_at (f, 0)), ==, "Please list the files");
  g_assert_cmpstr (zot_transcript_item_get_text (zot_test_conversation_item_at (f, 1)), ==, "I will look.");

  c1 = zot_test_conversation_item_at (f, 2);
  g_assert_cmpstr (zot_transcript_item_get_tool_name (c1), ==, "bash");
  g_assert_cmpint (zot_transcript_item_get_status (c1), ==, ZOT_TRANSCRIPT_TOOL_COMPLETED);
  g_assert_nonnull (strstr (zot_transcript_item_get_result (c1), "README.md"));
  g_assert_nonnull (strstr (zot_transcript_item_get_args_preview (c1), "ls"));

  /* The call the tool made, under it. */
  nested = zot_test_conversation_item_at (f, 3);
  g_assert_cmpstr (zot_transcript_item_get_tool_name (nested), ==, "read");
  g_assert_cmpstr (zot_transcript_item_get_parent_id (nested), ==, "c1");
  g_assert_cmpuint (zot_transcript_item_get_depth (nested), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (zot_transcript_item_get_children (c1)), ==, 1);
  g_assert_cmpstr (zot_transcript_item_get_result (nested), ==, "all: zot");

  g_assert_nonnull (strstr (zot_transcript_item_get_text (zot_test_conversation_item_at (f, 4)), "**two**"));
  g_assert_nonnull (strstr (zot_transcript_item_get_text (zot_test_conversation_item_at (f, 5)), "Listed the files."));
  g_assert_cmpuint (zot_transcript_item_get_n_images (zot_test_conversation_item_at (f, 6)), ==, 1);

  c2 = zot_test_conversation_item_at (f, 8);
  g_assert_cmpint (zot_transcript_item_get_status (c2), ==, ZOT_TRANSCRIPT_TOOL_FAILED);
  g_assert_true (zot_transcript_item_get_is_error (c2));

  /* Every row is made and shown when it is scrolled to. */
  for (guint i = 0; i < zot_test_conversation_count_items (f); i++)
    {
      GtkWidget *row = zot_test_conversation_show_row (f, zot_test_conversation_item_at (f, i));
      g_autofree char *text = zot_test_widget_text (row);

      g_assert_true (zot_transcript_row_get_item (ZOT_TRANSCRIPT_ROW (row)) == zot_test_conversation_item_at (f, i));
      if (i == 0)
        g_assert_nonnull (strstr (text, "Please list the files"));
      if (i == 4)
        g_assert_nonnull (strstr (text, "Makefile"));
    }

  /* The agent goes on from the summary: what the compaction replaced is
   * only shown. */
  g_assert_cmpuint (zot_session_get_messages (zot_agent_get_session (zot_host_get_agent (zot_window_get_host (f->window))))->len,
                    ==, 5);
}

static gboolean
has_warning (gpointer data)
{
  Fixture *f = data;

  return zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_WARNING, NULL) != NULL;
}

static void
test_torn_file_warns (Fixture       *f,
                      gconstpointer  data)
{
  GString *file = zot_test_conversation_new_file (f, "torn", FALSE);
  g_autofree char *path = NULL;
  ZotTranscriptItem *warning;

  zot_test_conversation_add_message (file, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hello there\"}]}");
  zot_test_conversation_add_message (file, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Hi!\"}]}");
  g_string_append (file, "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[{\"ty");
  path = zot_test_conversation_save_file (f, "torn", file);

  open_window (f, path);
  zot_test_wait_until (has_warning, f, 20000);

  /* Never an empty window: what could be kept is shown, then why not all. */
  g_assert_cmpint (zot_transcript_item_get_kind (zot_test_conversation_item_at (f, 0)), ==, ZOT_TRANSCRIPT_ITEM_USER);
  g_assert_cmpint (zot_transcript_item_get_kind (zot_test_conversation_item_at (f, 1)), ==, ZOT_TRANSCRIPT_ITEM_ASSISTANT);
  warning = zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_WARNING, NULL);
  g_assert_nonnull (strstr (zot_transcript_item_get_text (warning), "torn"));
  g_assert_nonnull (zot_test_conversation_show_row (f, warning));
}

static gboolean
has_reply (gpointer data)
{
  Fixture *f = data;

  return zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "written elsewhere") != NULL;
}

static void
appended_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_session_append_finish (ZOT_SESSION (object), result, &error));
  *(gboolean *) user_data = TRUE;
}

/* Another zot holds the file: the window shows it read-only and follows it. */
static void
test_locked_file_follows (Fixture       *f,
                          gconstpointer  data)
{
  GString *file = zot_test_conversation_new_file (f, "busy", FALSE);
  g_autofree char *path = NULL;
  g_autoptr(ZotSession) writer = NULL;
  g_autoptr(JsonObject) reply = zot_message_new_assistant_text ("This was written elsewhere.");
  g_autoptr(GError) error = NULL;
  ZotSession *shown;
  gboolean appended = FALSE;

  zot_test_conversation_add_message (file, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Keep going\"}]}");
  path = zot_test_conversation_save_file (f, "busy", file);
  writer = zot_session_open (path, &error);
  g_assert_no_error (error);

  open_window (f, path);
  zot_test_wait_until (has_warning, f, 20000);
  shown = zot_agent_get_session (zot_host_get_agent (zot_window_get_host (f->window)));
  g_assert_true (zot_session_is_read_only (shown));
  g_assert_nonnull (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "Keep going"));
  g_assert_nonnull (strstr (zot_transcript_item_get_text (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_WARNING, NULL)),
                            "read-only"));

  zot_session_append_message_async (writer, reply, NULL, appended_cb, &appended);
  zot_test_wait_for (&appended, 20000);
  zot_test_wait_until (has_reply, f, 20000);
}

/* The sidebar */

static ZotConversationSidebar *
sidebar (Fixture *f)
{
  return f->window->sidebar;
}

static guint
n_shown (Fixture *f)
{
  return g_list_model_get_n_items (zot_conversation_sidebar_get_shown (sidebar (f)));
}

typedef struct
{
  Fixture *f;
  guint    n;
} CountWait;

static gboolean
shows_n (gpointer data)
{
  CountWait *wait = data;

  return n_shown (wait->f) == wait->n && !zot_conversation_sidebar_get_searching (sidebar (wait->f));
}

static void
wait_for_shown (Fixture *f,
                guint    n)
{
  CountWait wait = { f, n };

  zot_test_wait_until (shows_n, &wait, 20000);
}

static char *
write_simple (Fixture    *f,
              const char *id,
              const char *prompt,
              const char *reply)
{
  GString *file = zot_test_conversation_new_file (f, id, FALSE);
  g_autofree char *user = g_strdup_printf ("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}",
                                           prompt);
  g_autofree char *assistant = g_strdup_printf ("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}",
                                                reply);

  zot_test_conversation_add_message (file, user);
  zot_test_conversation_add_message (file, assistant);
  return zot_test_conversation_save_file (f, id, file);
}

static gboolean
titled (gpointer data)
{
  ZotTestOpenWait *wait = data;
  g_autofree char *text = zot_test_widget_text (GTK_WIDGET (sidebar (wait->f)));
  ZotConversation *conversation = zot_conversation_index_lookup (zot_conversation_sidebar_get_index (sidebar (wait->f)),
                                                                 wait->path);

  return conversation != NULL && g_strcmp0 (zot_conversation_get_title (conversation), wait->text) == 0 &&
         strstr (text, wait->text) != NULL;
}

static gboolean
not_current (gpointer data)
{
  ZotTestOpenWait *wait = data;

  return g_strcmp0 (zot_test_conversation_path (wait->f), wait->path) != 0;
}

/* The sidebar's row that shows @path, with its title and caption. */
static GtkWidget *
row_of (Fixture    *f,
        const char *path)
{
  g_autoptr(GPtrArray) rows = zot_test_find_widgets (GTK_WIDGET (sidebar (f)), ZOT_TYPE_CONVERSATION_ROW, NULL);

  for (guint i = 0; i < rows->len; i++)
    {
      ZotConversation *conversation = zot_conversation_row_get_conversation (rows->pdata[i]);
      g_autofree char *text = NULL;

      if (conversation == NULL || g_strcmp0 (zot_conversation_get_path (conversation), path) != 0)
        continue;
      text = zot_test_widget_text (rows->pdata[i]);
      g_assert_nonnull (strstr (text, zot_conversation_get_title (conversation)));
      g_assert_nonnull (strstr (text, " · "));
      return rows->pdata[i];
    }

  return NULL;
}

static guint
position_of (Fixture    *f,
             const char *path)
{
  GListModel *shown = zot_conversation_sidebar_get_shown (sidebar (f));

  for (guint i = 0; i < g_list_model_get_n_items (shown); i++)
    {
      g_autoptr(ZotConversation) conversation = g_list_model_get_item (shown, i);

      if (g_str_equal (zot_conversation_get_path (conversation), path))
        return i;
    }

  g_assert_not_reached ();
}

static gboolean
flap_folded (gpointer data)
{
  Fixture *f = data;

  return adw_flap_get_folded (f->window->flap);
}

static gboolean
flap_beside (gpointer data)
{
  Fixture *f = data;

  return gtk_widget_get_width (GTK_WIDGET (f->window)) > 0 && !adw_flap_get_folded (f->window->flap);
}

static void
test_sidebar (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *alpha = write_simple (f, "2024-01-01-alpha", "Refactor the lexer", "Lexer alpha reply");
  g_autofree char *beta = write_simple (f, "2024-01-02-beta", "Write the docs", "Docs beta reply mentioning zeppelins");
  g_autofree char *gamma = NULL;
  GtkWidget *list;
  GtkWidget *gamma_row;
  ZotTestOpenWait wait = { f, NULL, NULL, ZOT_TRANSCRIPT_ITEM_ASSISTANT };

  open_window (f, NULL);
  /* Wide enough for both: the sidebar is beside the conversation, shown. */
  zot_test_wait_until (flap_beside, f, 20000);
  g_assert_true (adw_flap_get_reveal_flap (f->window->flap));
  wait_for_shown (f, 2);

  /* Open: activating a row goes on with that conversation. */
  list = zot_test_find_widget (GTK_WIDGET (sidebar (f)), GTK_TYPE_LIST_VIEW, NULL);
  g_assert_true (gtk_widget_activate_action (list, "list.activate-item", "u", position_of (f, beta)));
  wait.path = beta;
  wait.text = "zeppelins";
  zot_test_wait_until (zot_test_conversation_opened, &wait, 20000);
  g_assert_nonnull (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "Write the docs"));
  g_assert_null (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "Refactor the lexer"));

  /* Rename. */
  zot_conversation_sidebar_rename (sidebar (f), alpha, "Lexer work");
  wait.path = alpha;
  wait.text = "Lexer work";
  zot_test_wait_until (titled, &wait, 20000);

  /* Search: by message text, then by the new title; then all again. */
  zot_conversation_sidebar_set_search (sidebar (f), "ZEPPELIN");
  wait_for_shown (f, 1);
  g_assert_cmpuint (position_of (f, beta), ==, 0);
  zot_conversation_sidebar_set_search (sidebar (f), "lexer work");
  wait_for_shown (f, 1);
  g_assert_cmpuint (position_of (f, alpha), ==, 0);
  zot_conversation_sidebar_set_search (sidebar (f), "");
  wait_for_shown (f, 2);

  /* Largest first, and back to newest first. */
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (zot_test_find_widget (GTK_WIDGET (sidebar (f)),
                                                                         GTK_TYPE_TOGGLE_BUTTON, NULL)), TRUE);
  g_assert_cmpuint (position_of (f, beta), ==, 0);
  g_assert_cmpint (zot_conversation_index_get_sort (zot_conversation_sidebar_get_index (sidebar (f))), ==,
                   ZOT_CONVERSATION_SORT_SIZE);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (zot_test_find_widget (GTK_WIDGET (sidebar (f)),
                                                                         GTK_TYPE_TOGGLE_BUTTON, NULL)), FALSE);
  g_assert_cmpint (zot_conversation_index_get_sort (zot_conversation_sidebar_get_index (sidebar (f))), ==,
                   ZOT_CONVERSATION_SORT_MODIFIED);

  /* Another zot writes a conversation: it appears by itself. */
  gamma = write_simple (f, "2024-01-03-gamma", "Profile the build", "Gamma reply");
  wait_for_shown (f, 3);

  /* Delete the open one: it goes to the trash, and the window goes on in
   * a new conversation. */
  zot_conversation_sidebar_trash (sidebar (f), beta);
  wait.path = beta;
  zot_test_wait_until (not_current, &wait, 20000);
  wait_for_shown (f, 2);
  g_assert_false (g_file_test (beta, G_FILE_TEST_EXISTS));
  g_assert_null (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "zeppelins"));

  /* A row's menu trashes the conversation the row shows. */
  gamma_row = row_of (f, gamma);
  g_assert_nonnull (gamma_row);
  g_assert_true (gtk_widget_activate_action (gamma_row, "row.trash", NULL));
  wait_for_shown (f, 1);
  g_assert_false (g_file_test (gamma, G_FILE_TEST_EXISTS));

  /* The sidebar can be hidden and shown again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-sidebar", NULL));
  g_assert_false (adw_flap_get_reveal_flap (f->window->flap));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-sidebar", NULL));
  g_assert_true (adw_flap_get_reveal_flap (f->window->flap));
}

typedef struct
{
  Fixture    *f;
  const char *path;
  const char *text;
} CostWait;

static gboolean
cost_shown (gpointer data)
{
  CostWait *wait = data;
  GtkWidget *row = row_of (wait->f, wait->path);

  return row != NULL && g_strcmp0 (zot_conversation_row_get_cost_text (ZOT_CONVERSATION_ROW (row)), wait->text) == 0;
}

/* Each row says what its conversation cost, summed over its model turns
 * (from before a compaction too); tokens when a price was unknown,
 * nothing without model turns. */
static void
test_sidebar_cost (Fixture       *f,
                   gconstpointer  data)
{
  GString *priced = zot_test_conversation_new_file (f, "2024-01-01-priced", FALSE);
  GString *unpriced = zot_test_conversation_new_file (f, "2024-01-02-unpriced", FALSE);
  g_autofree char *priced_path = NULL;
  g_autofree char *unpriced_path = NULL;
  g_autofree char *plain = write_simple (f, "2024-01-03-plain", "No usage here", "None");
  CostWait wait = { f, NULL, NULL };
  GtkWidget *row;

  zot_test_conversation_add_message (priced, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Price me\"}]}");
  zot_test_conversation_add_message (priced, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"One\"}],"
                       "\"usage\":{\"input_tokens\":100,\"output_tokens\":10,\"cost_usd\":0.42}}");
  zot_test_conversation_add_message (priced, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Two\"}],"
                       "\"usage\":{\"input_tokens\":100,\"output_tokens\":10,\"cache_read_tokens\":500,"
                       "\"cost_usd\":0.08}}");
  priced_path = zot_test_conversation_save_file (f, "2024-01-01-priced", priced);
  zot_test_conversation_add_message (unpriced, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Local\"}]}");
  zot_test_conversation_add_message (unpriced, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Free?\"}],"
                         "\"usage\":{\"input_tokens\":900,\"output_tokens\":100}}");
  unpriced_path = zot_test_conversation_save_file (f, "2024-01-02-unpriced", unpriced);

  open_window (f, NULL);
  wait_for_shown (f, 3);

  wait.path = priced_path;
  wait.text = "$0.50";
  zot_test_wait_until (cost_shown, &wait, 20000);
  wait.path = unpriced_path;
  wait.text = "1.0k tokens";
  zot_test_wait_until (cost_shown, &wait, 20000);
  row = row_of (f, plain);
  g_assert_nonnull (row);
  g_assert_null (zot_conversation_row_get_cost_text (ZOT_CONVERSATION_ROW (row)));
}

/* Narrower than the sidebar and the conversation together: the sidebar
 * folds over the conversation, hidden until it is asked for, and goes
 * away again once a conversation is picked. */
static void
test_narrow (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *alpha = write_simple (f, "2024-01-01-alpha", "Refactor the lexer", "Lexer alpha reply");
  GtkWidget *list;
  ZotTestOpenWait wait = { f, alpha, "Lexer alpha", ZOT_TRANSCRIPT_ITEM_ASSISTANT };

  window_width = 700;
  open_window (f, NULL);
  window_width = 1390;
  zot_test_wait_until (flap_folded, f, 20000);
  g_assert_false (adw_flap_get_reveal_flap (f->window->flap));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.toggle-sidebar", NULL));
  g_assert_true (adw_flap_get_reveal_flap (f->window->flap));
  wait_for_shown (f, 1);
  list = zot_test_find_widget (GTK_WIDGET (sidebar (f)), GTK_TYPE_LIST_VIEW, NULL);
  g_assert_true (gtk_widget_activate_action (list, "list.activate-item", "u", 0));
  zot_test_wait_until (zot_test_conversation_opened, &wait, 20000);
  g_assert_false (adw_flap_get_reveal_flap (f->window->flap));
}

static gboolean
find_marked (gpointer data)
{
  ZotTestRowWait *wait = data;
  GtkWidget *row = _zot_transcript_get_row (wait->f->window->transcript, wait->item);

  return row != NULL && gtk_widget_has_css_class (row, "find-match") && zot_test_conversation_row_in_view (wait);
}

/* Ctrl+F finds rows that are not made yet and scrolls to them; a
 * message's copy button copies it whole. */
static void
test_find_and_copy (Fixture       *f,
                    gconstpointer  data)
{
  GString *file = zot_test_conversation_new_file (f, "long", FALSE);
  g_autofree char *path = NULL;
  ZotFindBar *bar;
  ZotTestRowWait wait = { f, NULL };
  GtkWidget *row;
  GtkWidget *copy;
  g_autofree char *text = NULL;

  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *user = g_strdup_printf ("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Question %u\"}]}", i);
      g_autofree char *assistant = g_strdup_printf ("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
                                                    "\"Answer %u with *emphasis*%s\"}]}",
                                                    i, i == 3 || i == 77 ? " and a walrus" : "");

      zot_test_conversation_add_message (file, user);
      zot_test_conversation_add_message (file, assistant);
    }
  path = zot_test_conversation_save_file (f, "long", file);

  open_window (f, path);
  zot_test_wait_until (has_items, f, 20000);
  g_assert_cmpuint (zot_test_conversation_count_items (f), ==, 300);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.find", NULL));
  bar = f->window->find_bar;
  zot_find_bar_set_text (bar, "WALRUS");
  g_assert_cmpuint (zot_find_bar_get_n_matches (bar), ==, 2);

  /* The first match is far from the bottom the view starts at. */
  wait.item = zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer 3 ");
  g_assert_true (_zot_transcript_get_match (f->window->transcript) == wait.item);
  zot_test_wait_until (find_marked, &wait, 20000);

  zot_find_bar_next (bar);
  wait.item = zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer 77 ");
  zot_test_wait_until (find_marked, &wait, 20000);
  zot_find_bar_next (bar);
  g_assert_cmpuint (zot_find_bar_get_current (bar), ==, 0);

  zot_find_bar_set_text (bar, "no such words");
  g_assert_cmpuint (zot_find_bar_get_n_matches (bar), ==, 0);
  g_assert_null (_zot_transcript_get_match (f->window->transcript));
  zot_find_bar_close (bar);

  /* Copy the reply in view: its Markdown, as written. */
  wait.item = zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer 77 ");
  row = zot_test_conversation_show_row (f, wait.item);
  copy = zot_test_find_widget (row, GTK_TYPE_BUTTON, "copy-button");
  g_assert_nonnull (copy);
  g_assert_true (gtk_widget_get_visible (copy));
  g_signal_emit_by_name (copy, "clicked");
  text = zot_test_clipboard_text (row);
  g_assert_cmpstr (text, ==, "Answer 77 with *emphasis* and a walrus");
}

/* Another conversation while a turn runs */

static void
start_waiting_turn (Fixture *f)
{
  ZotPromptEditor *editor = f->window->prompt_editor;

  zot_prompt_editor_set_text (editor, ZOT_TEST_WAITING_TOOL_PROMPT);
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  zot_test_wait_until (zot_test_conversation_tool_running, f, 30000);
}

/* The question is up; "Wait" leaves the turn and its conversation. */
static void
answer_wait (Fixture    *f,
             ZotSession *session,
             const char *heading)
{
  AdwMessageDialog *dialog = f->window->switch_dialog;

  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, heading);
  g_assert_true (adw_message_dialog_has_response (dialog, "cancel"));
  g_assert_true (adw_message_dialog_has_response (dialog, "stop"));
  adw_message_dialog_response (dialog, "cancel");
  g_assert_null (f->window->switch_dialog);
  g_assert_true (zot_test_conversation_session (f) == session);
  g_assert_true (zot_host_is_busy (zot_test_conversation_host (f)));
}

static gboolean
asking (gpointer data)
{
  Fixture *f = data;

  return f->window->switch_dialog != NULL;
}

typedef struct
{
  Fixture    *f;
  ZotSession *old;
  const char *path;
} SwitchWait;

static gboolean
switched_and_idle (gpointer data)
{
  SwitchWait *wait = data;
  ZotSession *now = zot_test_conversation_session (wait->f);

  return now != wait->old && !zot_host_is_busy (zot_test_conversation_host (wait->f)) &&
         (wait->path == NULL || g_strcmp0 (zot_session_get_path (now), wait->path) == 0);
}

static char *
roles_of (ZotSession *session)
{
  GPtrArray *messages = zot_session_get_messages (session);
  g_autoptr(GString) roles = g_string_new (NULL);

  for (guint i = 0; i < messages->len; i++)
    g_string_append_printf (roles, "%s%s", i > 0 ? " " : "",
                            zot_message_get_role (g_ptr_array_index (messages, i)));
  return g_string_free (g_steal_pointer (&roles), FALSE);
}

static GtkWidget *
new_conversation_button (GtkWidget *root)
{
  g_autoptr(GPtrArray) buttons = zot_test_find_widgets (root, GTK_TYPE_BUTTON, NULL);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_actionable_get_action_name (g_ptr_array_index (buttons, i)), "win.new-conversation") == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

static void
test_switch_while_busy (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *stored = write_simple (f, "2024-01-01-stored", "Stored prompt", "Stored reply");
  g_autofree char *go = g_build_filename (f->env.cwd, "go", NULL);
  g_autofree char *roles = NULL;
  g_autoptr(ZotSession) first = NULL;
  g_autoptr(ZotSession) second = NULL;
  ZotPromptEditor *editor;
  GtkWidget *header_button;
  SwitchWait wait = { f, NULL, NULL };

  open_window (f, NULL);
  editor = f->window->prompt_editor;
  first = g_object_ref (zot_test_conversation_session (f));
  start_waiting_turn (f);

  /* Ctrl+N is the action. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.new-conversation", NULL));
  answer_wait (f, first, "Stop the Turn and Start a New Conversation?");

  /* The header's button, clicked or hit by a stray Space. */
  header_button = new_conversation_button (GTK_WIDGET (f->window->header_bar));
  g_assert_nonnull (header_button);
  g_signal_emit_by_name (header_button, "clicked");
  answer_wait (f, first, "Stop the Turn and Start a New Conversation?");
  /* Space activates a button: it is clicked once its press shows. */
  g_assert_true (gtk_widget_activate (header_button));
  zot_test_wait_until (asking, f, 30000);
  answer_wait (f, first, "Stop the Turn and Start a New Conversation?");

  /* The sidebar has no button of its own: the header's is the one. */
  g_assert_null (new_conversation_button (GTK_WIDGET (f->window->sidebar)));

  /* /new typed in the editor. */
  zot_prompt_editor_set_text (editor, "/new");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  answer_wait (f, first, "Stop the Turn and Start a New Conversation?");

  /* A stored conversation picked in the sidebar. */
  g_signal_emit_by_name (f->window->sidebar, "open-requested", stored);
  answer_wait (f, first, "Stop the Turn and Open the Conversation?");

  /* Stop and start new: the old turn ends in its conversation, the new
   * one starts empty and stays so. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.new-conversation", NULL));
  g_assert_nonnull (f->window->switch_dialog);
  adw_message_dialog_response (f->window->switch_dialog, "stop");
  wait.old = first;
  zot_test_wait_until (switched_and_idle, &wait, 30000);
  second = g_object_ref (zot_test_conversation_session (f));
  roles = roles_of (first);
  g_assert_cmpstr (roles, ==, "user assistant tool");
  g_clear_pointer (&roles, g_free);
  roles = roles_of (second);
  g_assert_cmpstr (roles, ==, "");

  /* Stop and open. */
  g_clear_pointer (&roles, g_free);
  start_waiting_turn (f);
  g_signal_emit_by_name (f->window->sidebar, "open-requested", stored);
  g_assert_nonnull (f->window->switch_dialog);
  adw_message_dialog_response (f->window->switch_dialog, "stop");
  wait.old = second;
  wait.path = stored;
  zot_test_wait_until (switched_and_idle, &wait, 30000);
  roles = roles_of (second);
  g_assert_cmpstr (roles, ==, "user assistant tool");
  g_assert_true (g_file_set_contents (go, "", 0, NULL));
}

#define add_test(path, func) \
  g_test_add (path, Fixture, NULL, zot_test_conversation_setup, func, zot_test_conversation_teardown)

int
main (int    argc,
      char **argv)
{
  g_autofree char *data_home = g_dir_make_tmp ("zot-test-data-XXXXXX", NULL);
  int status;

  /* The trash goes here, on the same file system as the test's files. */
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  application = zot_test_gui_init (&argc, &argv);

  add_test ("/zot/gui/conversations/resume-shows-everything", test_resume_shows_everything);
  add_test ("/zot/gui/conversations/torn-file-warns", test_torn_file_warns);
  add_test ("/zot/gui/conversations/locked-file-follows", test_locked_file_follows);
  add_test ("/zot/gui/conversations/sidebar", test_sidebar);
  add_test ("/zot/gui/conversations/sidebar-cost", test_sidebar_cost);
  add_test ("/zot/gui/conversations/narrow", test_narrow);
  add_test ("/zot/gui/conversations/find-and-copy", test_find_and_copy);
  add_test ("/zot/gui/conversations/switch-while-busy", test_switch_while_busy);

  status = g_test_run ();
  g_object_unref (application);
  {
    g_autofree char *command = g_strdup_printf ("rm -rf '%s'", data_home);

    (void) !system (command);
  }
  return status;
}
