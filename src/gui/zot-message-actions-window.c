/* zot-message-actions-window.c — the window's side of the message
 * actions: it finds the stored message a transcript item shows, and
 * edits, retries or deletes it through zot-conversation-edit.h.
 *
 * A transcript shows the messages compactions replaced, then the ones
 * the model is sent, in order: a prompt is the n-th user row, a reply the
 * n-th reply row, a tool row its call. The item's text is checked against
 * the message found, so a transcript that went its own way (a compaction
 * during this run) is refused rather than changed in the wrong place.
 *
 * Like a new conversation during a turn (zot-window-switch.c), none of
 * this happens while the agent works: the turn's messages are still
 * coming. The window says so in a toast.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-conversation-edit.h"
#include "zot-json.h"
#include "zot-message.h"
#include "zot-message-actions.h"
#include "zot-transcript-private.h"
#include "zot-window-private.h"

#define EDIT_KEY "zot-message-edit"

/* A prompt being edited: sending the editor's text forks @path there. */
typedef struct
{
  char      *path;
  guint      index;
  JsonArray *images;   /* the prompt's, sent again unless others are attached */
} Edit;

static void
edit_free (gpointer data)
{
  Edit *edit = data;

  g_free (edit->path);
  g_clear_pointer (&edit->images, json_array_unref);
  g_free (edit);
}

/* The image blocks of a stored prompt, or NULL. */
static JsonArray *
images_of (JsonObject *message)
{
  JsonArray *content = zot_json_get_array (message, "content");
  g_autoptr(JsonArray) images = json_array_new ();

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *block = json_array_get_element (content, i);

      if (JSON_NODE_HOLDS_OBJECT (block) &&
          g_strcmp0 (zot_json_get_string (json_node_get_object (block), "type"), "image") == 0)
        json_array_add_element (images, json_node_copy (block));
    }
  return json_array_get_length (images) > 0 ? g_steal_pointer (&images) : NULL;
}

static void
resent_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;

  _zot_window_submit_finish (self, object, result);
}

/* Sends a prompt again, with its images, as the editor would. */
static void
send_again (ZotWindow  *self,
            const char *text,
            JsonArray  *images)
{
  zot_host_submit_with_images_async (self->host, text, images, self->cancellable, resent_cb,
                                     g_object_ref (self));
}

static ZotSession *
current_session (ZotWindow *self)
{
  return zot_agent_get_session (zot_host_get_agent (self->host));
}

static gboolean
refuse_while_busy (ZotWindow *self)
{
  if (self->host == NULL)
    return TRUE;
  if (!zot_host_is_busy (self->host) && !self->opening_session)
    return FALSE;

  zot_window_show_toast (self, _("The agent is working: stop the turn (Escape) before changing the "
                                 "conversation"));
  return TRUE;
}

static gboolean
is_prompt (JsonObject *message)
{
  return g_strcmp0 (zot_message_get_role (message), "user") == 0 &&
         !json_object_get_boolean_member_with_default (message, "summary", FALSE);
}

static gboolean
is_reply (JsonObject *message)
{
  g_autofree char *text = NULL;

  if (g_strcmp0 (zot_message_get_role (message), "assistant") != 0)
    return FALSE;
  text = zot_message_get_text (message);
  return *g_strstrip (text) != '\0';
}

static gboolean
calls (JsonObject *message,
       const char *id)
{
  JsonArray *content = zot_json_get_array (message, "content");

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *block = json_array_get_element (content, i);

      if (JSON_NODE_HOLDS_OBJECT (block) &&
          g_strcmp0 (zot_json_get_string (json_node_get_object (block), "type"), "tool_use") == 0 &&
          g_strcmp0 (zot_json_get_string (json_node_get_object (block), "id"), id) == 0)
        return TRUE;
    }
  return FALSE;
}

/* The index in the session's messages of what @item shows, or -1 with a
 * toast saying why there is none. */
static gint
find_message (ZotWindow         *self,
              ZotTranscriptItem *item)
{
  ZotSession *session = current_session (self);
  GPtrArray *earlier = zot_session_get_earlier_messages (session);
  GPtrArray *messages = zot_session_get_messages (session);
  GListModel *items = _zot_transcript_get_items (self->transcript);
  ZotTranscriptItemKind kind = zot_transcript_item_get_kind (item);
  gboolean (*matches) (JsonObject *) = kind == ZOT_TRANSCRIPT_ITEM_USER ? is_prompt : is_reply;
  guint ordinal = 0;

  if (kind == ZOT_TRANSCRIPT_ITEM_TOOL)
    {
      for (guint i = 0; zot_transcript_item_get_parent_id (item) == NULL && i < messages->len; i++)
        if (calls (g_ptr_array_index (messages, i), zot_transcript_item_get_tool_id (item)))
          return (gint) i;
      zot_window_show_toast (self, _("This tool call is not part of what the model is sent"));
      return -1;
    }

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(ZotTranscriptItem) other = g_list_model_get_item (items, i);

      if (other == item)
        break;
      if (zot_transcript_item_get_kind (other) == kind)
        ordinal++;
    }

  for (guint i = 0; i < earlier->len + messages->len; i++)
    {
      JsonObject *message = i < earlier->len ? g_ptr_array_index (earlier, i)
                                             : g_ptr_array_index (messages, i - earlier->len);
      g_autofree char *text = NULL;

      if (!matches (message) || ordinal-- > 0)
        continue;

      text = zot_message_get_text (message);
      if (g_strcmp0 (text, zot_transcript_item_get_text (item)) != 0)
        break;
      if (i < earlier->len)
        {
          zot_window_show_toast (self, _("This message was summarized by a compaction and is no "
                                         "longer sent to the model"));
          return -1;
        }
      return (gint) (i - earlier->len);
    }

  zot_window_show_toast (self, _("The transcript differs from the stored conversation; open it "
                                 "again from the sidebar"));
  return -1;
}

static ZotTranscriptItem *
item_at (ZotWindow *self,
         GVariant  *parameter)
{
  GListModel *items = _zot_transcript_get_items (self->transcript);
  ZotTranscriptItem *item = g_list_model_get_item (items, g_variant_get_uint32 (parameter));

  if (item != NULL)
    g_object_unref (item);     /* the list keeps it */
  return item;
}

/* Escape in the editor drops the edit: what is sent next is a prompt of
 * this conversation again. */
static void
on_editor_cancel (ZotPromptEditor *editor,
                  ZotWindow       *self)
{
  if (g_object_get_data (G_OBJECT (self), EDIT_KEY) == NULL)
    return;
  g_object_set_data (G_OBJECT (self), EDIT_KEY, NULL);
  zot_prompt_editor_set_text (editor, "");
  zot_window_show_toast (self, _("Stopped editing the message"));
}

static void
edit_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  ZotTranscriptItem *item = item_at (self, parameter);
  Edit *edit;
  gint index;

  if (item == NULL || refuse_while_busy (self) || (index = find_message (self, item)) < 0)
    return;
  if (zot_session_get_path (current_session (self)) == NULL)
    {
      zot_window_show_toast (self, _("This conversation is not stored, so it cannot branch"));
      return;
    }

  edit = g_new0 (Edit, 1);
  edit->path = g_strdup (zot_session_get_path (current_session (self)));
  edit->index = (guint) index;
  edit->images = images_of (g_ptr_array_index (zot_session_get_messages (current_session (self)), index));
  g_object_set_data_full (G_OBJECT (self), EDIT_KEY, edit, edit_free);
  if (g_object_get_data (G_OBJECT (self), EDIT_KEY "-cancel") == NULL)
    {
      g_signal_connect_object (self->prompt_editor, "cancel", G_CALLBACK (on_editor_cancel), self, 0);
      g_object_set_data (G_OBJECT (self), EDIT_KEY "-cancel", GINT_TO_POINTER (TRUE));
    }

  zot_prompt_editor_set_text (self->prompt_editor, zot_transcript_item_get_text (item));
  gtk_widget_grab_focus (GTK_WIDGET (self->prompt_editor));
  zot_window_show_toast (self, _("Editing the message: sending it starts a new branch of the "
                                 "conversation; the original stays as it was"));
}

typedef struct
{
  ZotWindow *window;
  char      *text;
  JsonArray *images;
} Resend;

static void
resend_free (Resend *resend)
{
  g_object_unref (resend->window);
  g_free (resend->text);
  g_clear_pointer (&resend->images, json_array_unref);
  g_free (resend);
}

static void
fork_opened_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Resend *data = user_data;
  ZotWindow *self = data->window;
  g_autoptr(GError) error = NULL;

  self->opening_session = FALSE;
  if (!zot_host_open_session_finish (ZOT_HOST (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        zot_window_show_toast (self, error->message);
    }
  else if (!self->closed)
    {
      zot_conversation_sidebar_set_current_path (self->sidebar, zot_session_get_path (current_session (self)));
      send_again (self, data->text, data->images);
    }
  resend_free (data);
}

static void
forked_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Resend *resend = user_data;
  ZotWindow *self = resend->window;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = zot_conversation_fork_finish (ZOT_SESSION (object), result, &error);

  if (path == NULL || self->closed || self->host == NULL)
    {
      self->opening_session = FALSE;
      if (path == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        zot_window_show_toast (self, error->message);
      resend_free (resend);
      return;
    }

  zot_host_open_session_async (self->host, path, self->cancellable, fork_opened_cb, resend);
}

/**
 * _zot_message_actions_submit:
 * @text: what the editor sends
 * @images: (nullable): the images attached to it
 *
 * Sends an edited prompt: forks the conversation at the prompt edited,
 * opens the fork and sends @text there.
 *
 * Returns: whether @text was an edit, taken here
 */
gboolean
_zot_message_actions_submit (ZotWindow  *self,
                             const char *text,
                             JsonArray  *images)
{
  Edit *edit = g_object_steal_data (G_OBJECT (self), EDIT_KEY);
  Resend *resend;

  if (edit == NULL)
    return FALSE;
  if (refuse_while_busy (self))
    {
      g_object_set_data_full (G_OBJECT (self), EDIT_KEY, edit, edit_free);
      return TRUE;
    }
  if (self->host == NULL || (*text == '\0' && images == NULL) ||
      g_strcmp0 (edit->path, zot_session_get_path (current_session (self))) != 0)
    {
      edit_free (edit);
      return FALSE;
    }

  resend = g_new0 (Resend, 1);
  resend->window = g_object_ref (self);
  resend->text = g_strdup (text);
  resend->images = images != NULL ? json_array_ref (images) : g_steal_pointer (&edit->images);
  self->opening_session = TRUE;
  zot_prompt_editor_set_text (self->prompt_editor, "");
  zot_conversation_fork_async (current_session (self), edit->index, self->cancellable, forked_cb, resend);
  edit_free (edit);
  return TRUE;
}

static void
retry_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  ZotTranscriptItem *item = item_at (self, parameter);
  g_autoptr(JsonObject) prompt = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonArray) images = NULL;
  gint index;

  if (item == NULL || refuse_while_busy (self) || (index = find_message (self, item)) < 0)
    return;
  if (index < zot_conversation_edit_last_prompt (zot_session_get_messages (current_session (self))))
    {
      zot_window_show_toast (self, _("Only the last reply can be retried; edit its prompt to branch "
                                     "from an earlier one"));
      return;
    }

  prompt = zot_conversation_edit_retry (current_session (self), &error);
  if (prompt == NULL)
    {
      zot_window_show_toast (self, error->message);
      return;
    }

  text = zot_message_get_text (prompt);
  images = images_of (prompt);
  _zot_transcript_show_session (self->transcript, TRUE);
  send_again (self, text, images);
}

static void
delete_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ZotWindow *self = ZOT_WINDOW (widget);
  ZotTranscriptItem *item = item_at (self, parameter);
  g_autoptr(GError) error = NULL;
  gint index;

  if (item == NULL || refuse_while_busy (self) || (index = find_message (self, item)) < 0)
    return;

  if (!zot_conversation_edit_delete (current_session (self), (guint) index, &error))
    {
      zot_window_show_toast (self, error->message);
      return;
    }

  _zot_transcript_show_session (self->transcript, TRUE);
  zot_window_show_toast (self, _("Deleted from the conversation: the model no longer sees it"));
}

/**
 * _zot_message_actions_install:
 *
 * Installs the window's message actions; each takes the position of the
 * item in the transcript.
 */
void
_zot_message_actions_install (GtkWidgetClass *window_class)
{
  gtk_widget_class_install_action (window_class, "win.message-edit", "u", edit_action);
  gtk_widget_class_install_action (window_class, "win.message-retry", "u", retry_action);
  gtk_widget_class_install_action (window_class, "win.message-delete", "u", delete_action);
}
