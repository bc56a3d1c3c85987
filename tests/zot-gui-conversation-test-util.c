/* zot-gui-conversation-test-util.c — the stored-conversation fixture of
 * the window's tests. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "zot-gui-conversation-test-util.h"
#include "zot-gui-test-util.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-transcript-private.h"
#include "zot-transcript-view.h"
#include "zot-window-private.h"

void
zot_test_conversation_setup (ZotTestConversation *f,
                             gconstpointer        data)
{
  zot_test_gui_env_setup (&f->env);
  f->cwd = zot_paths_canonicalize (f->env.cwd);
  f->dir = zot_session_get_directory_for_cwd (f->env.cwd);
  g_assert_cmpint (g_mkdir_with_parents (f->dir, 0700), ==, 0);
}

void
zot_test_conversation_teardown (ZotTestConversation *f,
                                gconstpointer        data)
{
  zot_test_close_window (&f->window);
  g_clear_pointer (&f->cwd, g_free);
  g_clear_pointer (&f->dir, g_free);
  zot_test_env_teardown (&f->env);
}

void
zot_test_conversation_open_window (ZotTestConversation *f,
                                   ZotApplication      *application,
                                   const char * const  *paths,
                                   const char          *session_path,
                                   int                  width,
                                   int                  height)
{
  g_auto(ZotHostOptions) options = { 0 };

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.session_path = g_strdup (session_path);
  options.no_ext = paths == NULL;
  options.interactive = TRUE;
  f->window = zot_test_open_window (application, &options, width, height);
}

/* Session files */

void
zot_test_conversation_add_line (GString    *file,
                                JsonObject *entry)
{
  g_autofree char *line = zot_json_object_to_string (entry);

  g_string_append_printf (file, "%s\n", line);
}

void
zot_test_conversation_add_message (GString    *file,
                                   const char *message_json)
{
  g_autofree char *line = g_strdup_printf ("{\"type\":\"message\",\"message\":%s}", message_json);
  g_autoptr(JsonObject) check = zot_json_object_from_string (line, NULL);

  g_assert_nonnull (check);
  zot_test_conversation_add_line (file, check);
}

GString *
zot_test_conversation_new_file (ZotTestConversation *f,
                                const char          *id,
                                gboolean             continuous)
{
  GString *file = g_string_new (NULL);

  g_string_append_printf (file, "{\"type\":\"session\",\"version\":1,\"id\":\"%s\",\"cwd\":\"%s\","
                          "\"created\":\"2024-05-01T10:00:00Z\"%s}\n",
                          id, f->cwd, continuous ? ",\"mode\":\"continuous\"" : "");
  return file;
}

char *
zot_test_conversation_save_file (ZotTestConversation *f,
                                 const char          *id,
                                 GString             *file)
{
  g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
  char *path = g_build_filename (f->dir, name, NULL);

  g_assert_true (g_file_set_contents (path, file->str, (gssize) file->len, NULL));
  g_string_free (file, TRUE);
  return path;
}

/* The transcript */

guint
zot_test_conversation_count_items (ZotTestConversation *f)
{
  return g_list_model_get_n_items (_zot_transcript_get_items (f->window->transcript));
}

ZotTranscriptItem *
zot_test_conversation_item_at (ZotTestConversation *f,
                               guint                position)
{
  ZotTranscriptItem *item = g_list_model_get_item (_zot_transcript_get_items (f->window->transcript), position);

  g_object_unref (item);
  return item;
}

ZotTranscriptItem *
zot_test_conversation_find_item (ZotTestConversation   *f,
                                 ZotTranscriptItemKind  kind,
                                 const char            *needle)
{
  for (guint i = 0; i < zot_test_conversation_count_items (f); i++)
    {
      ZotTranscriptItem *item = zot_test_conversation_item_at (f, i);

      if (zot_transcript_item_get_kind (item) == kind &&
          (needle == NULL || strstr (zot_transcript_item_get_text (item), needle) != NULL))
        return item;
    }

  return NULL;
}

gboolean
zot_test_conversation_row_in_view (gpointer data)
{
  ZotTestRowWait *wait = data;
  GtkWidget *row = _zot_transcript_get_row (wait->f->window->transcript, wait->item);
  GtkWidget *list = gtk_widget_get_ancestor (row ? row : GTK_WIDGET (wait->f->window), ZOT_TYPE_TRANSCRIPT_VIEW);
  graphene_rect_t bounds;

  if (row == NULL || !gtk_widget_get_mapped (row) || list == NULL ||
      !gtk_widget_compute_bounds (row, list, &bounds))
    return FALSE;

  /* On screen: in the view's visible area. */
  return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < gtk_widget_get_height (list);
}

GtkWidget *
zot_test_conversation_show_row (ZotTestConversation *f,
                                ZotTranscriptItem   *item)
{
  ZotTestRowWait wait = { f, item };

  _zot_transcript_show_match (f->window->transcript, item);
  zot_test_wait_until (zot_test_conversation_row_in_view, &wait, 20000);
  return _zot_transcript_get_row (f->window->transcript, item);
}

ZotHost *
zot_test_conversation_host (ZotTestConversation *f)
{
  return zot_window_get_host (f->window);
}

ZotSession *
zot_test_conversation_session (ZotTestConversation *f)
{
  return zot_agent_get_session (zot_host_get_agent (zot_test_conversation_host (f)));
}

const char *
zot_test_conversation_path (ZotTestConversation *f)
{
  return zot_session_get_path (zot_test_conversation_session (f));
}

gboolean
zot_test_conversation_tool_running (gpointer data)
{
  ZotTestConversation *f = data;
  GPtrArray *messages = zot_session_get_messages (zot_test_conversation_session (f));

  return zot_host_is_busy (zot_test_conversation_host (f)) && messages->len >= 2 &&
         g_str_equal (zot_message_get_role (g_ptr_array_index (messages, messages->len - 1)), "assistant");
}

gboolean
zot_test_conversation_opened (gpointer data)
{
  ZotTestOpenWait *wait = data;

  return g_strcmp0 (zot_test_conversation_path (wait->f), wait->path) == 0 &&
         zot_test_conversation_find_item (wait->f, wait->kind, wait->text) != NULL;
}
