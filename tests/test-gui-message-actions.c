/* test-gui-message-actions.c — the actions of a transcript message: shown
 * on hover and focus, in the row's context menu and shortcuts; copying as
 * Markdown and as plain text; editing a prompt forks the conversation,
 * and the sidebar lists the branch under its origin; retrying the last
 * reply and deleting a message change what the model is sent, and both
 * survive a reload; none of it happens during a turn. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "zot-application.h"
#include "zot-conversation-sidebar.h"
#include "zot-gui-conversation-test-util.h"
#include "zot-gui-test-util.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-message-actions.h"
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
 * narrower than it and the conversation with the side pane together. */
static int window_width = 1390;

/* A window with the demo model on @session_path, or on a new conversation. */
static void
open_window (Fixture    *f,
             const char *session_path)
{
  zot_test_conversation_open_window (f, application, NULL, session_path, window_width, 760);
}

static char *
write_turns (Fixture            *f,
             const char         *id,
             const char * const *texts)
{
  GString *file = zot_test_conversation_new_file (f, id, FALSE);

  for (guint i = 0; texts[i] != NULL; i++)
    {
      g_autofree char *message = g_strdup_printf ("{\"role\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}",
                                                  i % 2 == 0 ? "user" : "assistant", texts[i]);

      zot_test_conversation_add_message (file, message);
    }
  return zot_test_conversation_save_file (f, id, file);
}

static gboolean
has_n_items (gpointer data)
{
  Fixture *f = data;

  return zot_test_conversation_count_items (f) >= 2;
}

static ZotMessageActions *
actions_of (GtkWidget *row)
{
  return ZOT_MESSAGE_ACTIONS (zot_test_find_widget (row, ZOT_TYPE_MESSAGE_ACTIONS, NULL));
}

static void
emit_on_controllers (GtkWidget  *row,
                     GType       type,
                     const char *signal,
                     gboolean    with_coordinates)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (row);
  guint emitted = 0;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!G_TYPE_CHECK_INSTANCE_TYPE (controller, type))
        continue;
      if (with_coordinates)
        g_signal_emit_by_name (controller, signal, 5.0, 5.0);
      else
        g_signal_emit_by_name (controller, signal);
      emitted++;
    }
  g_assert_cmpuint (emitted, >, 0);
}

/* Runs what the row's shortcut for @accelerator does, as the key would. */
static void
activate_key (GtkWidget  *row,
              const char *accelerator)
{
  GtkShortcutAction *action = zot_test_find_shortcut (row, accelerator);

  g_assert_nonnull (action);
  g_assert_true (gtk_shortcut_action_activate (action, 0, row, NULL));
}

static gboolean
menu_has (GMenuModel *model,
          const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);

      if (section != NULL && menu_has (section, action))
        return TRUE;
      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        return TRUE;
    }
  return FALSE;
}

/* The buttons show on hover and on focus, and not before; the context
 * menu holds every action; copying gives Markdown or plain text; a
 * prompt offers no retry, a reply no edit. */
static void
test_hover_menu_copy (Fixture       *f,
                      gconstpointer  data)
{
  const char * const texts[] = { "Question one", "There are **two** files", NULL };
  g_autofree char *path = write_turns (f, "2024-01-01-copy", texts);
  ZotTranscriptItem *reply;
  ZotMessageActions *actions;
  GtkWidget *row;
  GtkWidget *menu;
  GMenuModel *model;
  g_autofree char *markdown = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *prompt = NULL;

  open_window (f, path);
  zot_test_wait_until (has_n_items, f, 20000);
  reply = zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "files");
  row = zot_test_conversation_show_row (f, reply);
  actions = actions_of (row);
  g_assert_nonnull (actions);

  /* Hidden (transparent, out of the pointer's way) until hovered. */
  g_assert_false (zot_message_actions_get_revealed (actions));
  g_assert_cmpfloat (gtk_widget_get_opacity (GTK_WIDGET (actions)), ==, 0.0);
  g_assert_false (gtk_widget_get_can_target (GTK_WIDGET (actions)));
  emit_on_controllers (row, GTK_TYPE_EVENT_CONTROLLER_MOTION, "enter", TRUE);
  g_assert_true (zot_message_actions_get_revealed (actions));
  g_assert_cmpfloat (gtk_widget_get_opacity (GTK_WIDGET (actions)), ==, 1.0);
  g_assert_true (gtk_widget_get_can_target (GTK_WIDGET (actions)));
  emit_on_controllers (row, GTK_TYPE_EVENT_CONTROLLER_MOTION, "leave", FALSE);
  g_assert_false (zot_message_actions_get_revealed (actions));
  emit_on_controllers (row, GTK_TYPE_EVENT_CONTROLLER_FOCUS, "enter", FALSE);
  g_assert_true (zot_message_actions_get_revealed (actions));
  emit_on_controllers (row, GTK_TYPE_EVENT_CONTROLLER_FOCUS, "leave", FALSE);

  /* A reply: copy, retry and delete; no edit. */
  g_assert_true (gtk_widget_get_visible (zot_test_find_widget (GTK_WIDGET (actions), GTK_TYPE_BUTTON, "retry-button")));
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (GTK_WIDGET (actions), GTK_TYPE_BUTTON, "edit-button")));

  /* The context menu: right click and the Menu key open it. */
  menu = zot_message_actions_get_menu (actions);
  model = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu));
  for (guint i = 0; i < 5; i++)
    {
      const char *names[] = { "message.copy-markdown", "message.copy-text", "message.edit",
                              "message.retry", "message.delete" };

      g_assert_true (menu_has (model, names[i]));
    }
  g_assert_false (gtk_widget_get_visible (menu));
  emit_on_controllers (row, GTK_TYPE_GESTURE_CLICK, "pressed", TRUE);
  g_assert_true (gtk_widget_get_visible (menu));
  gtk_popover_popdown (GTK_POPOVER (menu));
  g_assert_false (gtk_widget_get_visible (menu));
  activate_key (row, "Menu");
  g_assert_true (gtk_widget_get_visible (menu));
  gtk_popover_popdown (GTK_POPOVER (menu));
  activate_key (row, "<Shift>F10");
  g_assert_true (gtk_widget_get_visible (menu));
  gtk_popover_popdown (GTK_POPOVER (menu));

  /* Copy as Markdown: as written; as plain text: as shown. */
  activate_key (row, "<Control><Shift>c");
  markdown = zot_test_clipboard_text (row);
  g_assert_cmpstr (markdown, ==, "There are **two** files");
  g_assert_true (gtk_widget_activate_action (row, "message.copy-text", NULL));
  plain = zot_test_clipboard_text (row);
  g_assert_cmpstr (plain, ==, "There are two files");

  /* A prompt: edit, no retry. */
  row = zot_test_conversation_show_row (f, zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "Question one"));
  actions = actions_of (row);
  g_assert_true (gtk_widget_get_visible (zot_test_find_widget (GTK_WIDGET (actions), GTK_TYPE_BUTTON, "edit-button")));
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (GTK_WIDGET (actions), GTK_TYPE_BUTTON, "retry-button")));
  g_assert_true (gtk_widget_activate_action (row, "message.copy-markdown", NULL));
  prompt = zot_test_clipboard_text (row);
  g_assert_cmpstr (prompt, ==, "Question one");
}

typedef struct
{
  Fixture    *f;
  const char *path;     /* not this one */
  const char *expect;
} SessionWait;

static gboolean
switched_and_answered (gpointer data)
{
  SessionWait *wait = data;
  g_autofree char *text = NULL;

  if (g_strcmp0 (zot_test_conversation_path (wait->f), wait->path) == 0 || zot_host_is_busy (zot_test_conversation_host (wait->f)))
    return FALSE;
  text = zot_test_describe_session (zot_test_conversation_session (wait->f));
  return g_str_has_prefix (text, wait->expect) && strstr (text, "You said: Question two, edited") != NULL;
}

static guint
position_in_sidebar (Fixture    *f,
                     const char *path)
{
  GListModel *shown = zot_conversation_sidebar_get_shown (f->window->sidebar);

  for (guint i = 0; i < g_list_model_get_n_items (shown); i++)
    {
      g_autoptr(ZotConversation) conversation = g_list_model_get_item (shown, i);

      if (g_str_equal (zot_conversation_get_path (conversation), path))
        return i;
    }
  return G_MAXUINT;
}

typedef struct
{
  Fixture    *f;
  const char *origin;
  const char *fork;
} BranchWait;

static gboolean
branch_listed (gpointer data)
{
  BranchWait *wait = data;
  GListModel *shown = zot_conversation_sidebar_get_shown (wait->f->window->sidebar);
  guint origin = position_in_sidebar (wait->f, wait->origin);
  guint fork = position_in_sidebar (wait->f, wait->fork);
  g_autoptr(ZotConversation) conversation = NULL;

  if (origin == G_MAXUINT || fork == G_MAXUINT)
    return FALSE;
  conversation = g_list_model_get_item (shown, fork);
  return fork == origin + 1 && zot_conversation_get_branch_depth (conversation) == 1;
}

/* Editing a prompt and sending it forks: a new file with forked_from,
 * the history before the prompt and the edited prompt; the original is
 * untouched; the sidebar lists the branch right under it; both open. */
static void
test_edit_forks (Fixture       *f,
                 gconstpointer  data)
{
  const char * const texts[] = { "Question one", "Answer one", "Question two", "Answer two", NULL };
  g_autofree char *origin = write_turns (f, "2024-01-01-origin", texts);
  g_autofree char *before = zot_test_read_file (origin);
  g_autofree char *after = NULL;
  g_autofree char *fork = NULL;
  g_autofree char *fork_text = NULL;
  g_autofree char *header = NULL;
  g_autofree char *origin_text = NULL;
  g_autofree char *other = write_turns (f, "2024-01-02-other", (const char * const []) { "Unrelated", "Reply", NULL });
  SessionWait wait = { f, origin, "user:Question one assistant:Answer one user:Question two, edited" };
  BranchWait branch = { f, origin, NULL };
  ZotTestOpenWait open = { f, NULL, NULL, ZOT_TRANSCRIPT_ITEM_USER };
  GtkWidget *row;

  open_window (f, origin);
  zot_test_wait_until (has_n_items, f, 20000);
  row = zot_test_conversation_show_row (f, zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "Question two"));
  g_assert_true (gtk_widget_activate_action (row, "message.edit", NULL));
  g_assert_cmpstr (zot_prompt_editor_get_text (f->window->prompt_editor), ==, "Question two");

  /* Escape drops the edit; editing again takes it up. */
  g_assert_nonnull (g_object_get_data (G_OBJECT (f->window), "zot-message-edit"));
  g_assert_true (_zot_prompt_editor_handle_key (f->window->prompt_editor, GDK_KEY_Escape, 0));
  g_assert_null (g_object_get_data (G_OBJECT (f->window), "zot-message-edit"));
  g_assert_cmpstr (zot_prompt_editor_get_text (f->window->prompt_editor), ==, "");
  g_assert_true (gtk_widget_activate_action (row, "message.edit", NULL));
  g_assert_nonnull (g_object_get_data (G_OBJECT (f->window), "zot-message-edit"));

  zot_prompt_editor_set_text (f->window->prompt_editor, "Question two, edited");
  g_assert_true (_zot_prompt_editor_handle_key (f->window->prompt_editor, GDK_KEY_Return, 0));
  zot_test_wait_until (switched_and_answered, &wait, 30000);

  fork = g_strdup (zot_test_conversation_path (f));
  header = zot_test_read_file (fork);
  *strchr (header, '\n') = '\0';
  g_assert_nonnull (strstr (header, "\"forked_from\":{\"file\":\"2024-01-01-origin.jsonl\",\"entry\":2}"));
  after = zot_test_read_file (origin);
  g_assert_cmpstr (after, ==, before);

  /* The sidebar: the branch right under its origin, marked. */
  branch.fork = fork;
  zot_test_wait_until (branch_listed, &branch, 20000);
  g_assert_cmpuint (position_in_sidebar (f, other), <, position_in_sidebar (f, origin));

  /* Both branches open from the sidebar, each with its own prompt. */
  open.path = origin;
  open.text = "Question two";
  g_signal_emit_by_name (f->window->sidebar, "open-requested", origin);
  zot_test_wait_until (zot_test_conversation_opened, &open, 20000);
  g_assert_null (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "edited"));
  origin_text = zot_test_describe_session (zot_test_conversation_session (f));
  g_assert_cmpstr (origin_text, ==, "user:Question one assistant:Answer one user:Question two assistant:Answer two");

  open.path = fork;
  open.text = "Question two, edited";
  g_signal_emit_by_name (f->window->sidebar, "open-requested", fork);
  zot_test_wait_until (zot_test_conversation_opened, &open, 20000);
  fork_text = zot_test_describe_session (zot_test_conversation_session (f));
  g_assert_true (g_str_has_prefix (fork_text, wait.expect));
  g_assert_null (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer two"));
}

static gboolean
idle_with (gpointer data)
{
  SessionWait *wait = data;
  g_autofree char *text = NULL;

  if (zot_host_is_busy (zot_test_conversation_host (wait->f)))
    return FALSE;
  text = zot_test_describe_session (zot_test_conversation_session (wait->f));
  return g_str_has_prefix (text, wait->expect);
}

/* Retry runs the last turn again; delete takes a message out; both are
 * in the file after a reload; during a turn, neither does anything. */
static void
test_retry_delete (Fixture       *f,
                   gconstpointer  data)
{
  const char * const texts[] = { "Question one", "Answer one", "Question two", "Answer two", NULL };
  g_autofree char *path = write_turns (f, "2024-01-01-retry", texts);
  g_autofree char *go = g_build_filename (f->env.cwd, "go", NULL);
  g_autofree char *text = NULL;
  g_autofree char *reloaded = NULL;
  g_autofree char *busy_before = NULL;
  g_autofree char *busy_after = NULL;
  SessionWait wait = { f, NULL, "user:Question one assistant:Answer one user:Question two assistant:[demo model" };
  GtkWidget *row;

  open_window (f, path);
  zot_test_wait_until (has_n_items, f, 20000);

  /* Only the last reply retries. */
  row = zot_test_conversation_show_row (f, zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer one"));
  g_assert_true (gtk_widget_activate_action (row, "message.retry", NULL));
  text = zot_test_describe_session (zot_test_conversation_session (f));
  g_assert_cmpstr (text, ==, "user:Question one assistant:Answer one user:Question two assistant:Answer two");

  row = zot_test_conversation_show_row (f, zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer two"));
  g_assert_true (gtk_widget_activate_action (row, "message.retry", NULL));
  zot_test_wait_until (idle_with, &wait, 30000);
  g_assert_null (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer two"));
  g_assert_nonnull (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "You said"));

  /* Delete the first reply: gone from the transcript and the context. */
  row = zot_test_conversation_show_row (f, zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer one"));
  g_assert_true (gtk_widget_activate_action (row, "message.delete", NULL));
  g_assert_null (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "Answer one"));
  g_clear_pointer (&text, g_free);
  text = zot_test_describe_session (zot_test_conversation_session (f));
  g_assert_true (g_str_has_prefix (text, "user:Question one user:Question two assistant:[demo model"));

  /* During a turn the actions refuse: nothing changes. */
  zot_prompt_editor_set_text (f->window->prompt_editor, ZOT_TEST_WAITING_TOOL_PROMPT);
  g_assert_true (_zot_prompt_editor_handle_key (f->window->prompt_editor, GDK_KEY_Return, 0));
  zot_test_wait_until (zot_test_conversation_tool_running, f, 30000);
  busy_before = zot_test_describe_session (zot_test_conversation_session (f));
  row = zot_test_conversation_show_row (f, zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "Question one"));
  g_assert_true (gtk_widget_activate_action (row, "message.delete", NULL));
  g_assert_true (gtk_widget_activate_action (row, "message.edit", NULL));
  busy_after = zot_test_describe_session (zot_test_conversation_session (f));
  g_assert_cmpstr (busy_after, ==, busy_before);
  g_assert_nonnull (zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_USER, "Question one"));
  g_assert_cmpstr (zot_prompt_editor_get_text (f->window->prompt_editor), !=, "Question one");
  g_assert_true (g_file_set_contents (go, "", 0, NULL));
  wait.expect = "user:Question one user:Question two";
  zot_test_wait_until (idle_with, &wait, 30000);

  /* A reload sends the model the same. */
  reloaded = zot_test_describe_session_file (path);
  g_clear_pointer (&text, g_free);
  text = zot_test_describe_session (zot_test_conversation_session (f));
  g_assert_cmpstr (reloaded, ==, text);
  g_assert_null (strstr (reloaded, "Answer one"));
  g_assert_null (strstr (reloaded, "Answer two"));
}

static gboolean
retried_with_image (gpointer data)
{
  Fixture *f = data;
  GPtrArray *messages = zot_session_get_messages (zot_test_conversation_session (f));
  g_autofree char *content = NULL;

  if (zot_host_is_busy (zot_test_conversation_host (f)) || messages->len != 2 ||
      g_strcmp0 (zot_message_get_role (g_ptr_array_index (messages, 1)), "assistant") != 0)
    return FALSE;
  content = json_to_string (json_object_get_member (g_ptr_array_index (messages, 0), "content"), FALSE);
  return strstr (content, "\"type\":\"image\"") != NULL && strstr (content, "What is this?") != NULL &&
         zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "A dot.") == NULL;
}

/* A retried prompt goes again with its images. */
static void
test_retry_keeps_images (Fixture       *f,
                         gconstpointer  data)
{
  GString *file = zot_test_conversation_new_file (f, "2024-01-01-image", FALSE);
  g_autofree char *path = NULL;
  GtkWidget *row;

  zot_test_conversation_add_message (file, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is this?\"},"
                     "{\"type\":\"image\",\"mime_type\":\"image/png\",\"data\":\"" ZOT_TEST_PIXEL_PNG_BASE64 "\"}]}");
  zot_test_conversation_add_message (file, "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"A dot.\"}]}");
  path = zot_test_conversation_save_file (f, "2024-01-01-image", file);

  open_window (f, path);
  zot_test_wait_until (has_n_items, f, 20000);
  row = zot_test_conversation_show_row (f, zot_test_conversation_find_item (f, ZOT_TRANSCRIPT_ITEM_ASSISTANT, "A dot."));
  g_assert_true (gtk_widget_activate_action (row, "message.retry", NULL));
  zot_test_wait_until (retried_with_image, f, 30000);
}

#define add_test(path, func) \
  g_test_add (path, Fixture, NULL, zot_test_conversation_setup, func, zot_test_conversation_teardown)

int
main (int    argc,
      char **argv)
{
  application = zot_test_gui_init (&argc, &argv);

  add_test ("/zot/gui/message-actions/hover-menu-copy", test_hover_menu_copy);
  add_test ("/zot/gui/message-actions/edit-forks", test_edit_forks);
  add_test ("/zot/gui/message-actions/retry-delete", test_retry_delete);
  add_test ("/zot/gui/message-actions/retry-keeps-images", test_retry_keeps_images);

  return g_test_run () | (g_object_unref (application), 0);
}
