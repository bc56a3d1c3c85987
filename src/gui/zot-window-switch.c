/* zot-window-switch.c — going to another conversation while a turn runs.
 *
 * The host refuses a new or opened conversation while the agent works
 * (zot_host_check_idle()): the turn's results belong to the conversation
 * it started in. The window asks instead of failing: stop the turn, then
 * go on; or wait. Every way there comes through here: Ctrl+N, the header's
 * and the sidebar's buttons (one action, whatever activates it), /new
 * typed in the editor, and a conversation picked in the sidebar.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "zot-window-private.h"

static void
conversation_started_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_host_start_conversation_finish (ZOT_HOST (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    zot_transcript_add_error (self->transcript, error->message);
}

/* Extensions restart for a change of mode, so that their hello_ack offers
 * call_tool_durable. */
static void
start_new (ZotWindow *self,
           gboolean   continuous)
{
  zot_transcript_clear (self->transcript);
  if (continuous)
    zot_host_start_conversation_async (self->host, TRUE, self->cancellable, conversation_started_cb,
                                       g_object_ref (self));
  else
    _zot_window_submit_command (self, "/new");
}

static const char *
current_session_path (ZotWindow *self)
{
  return zot_session_get_path (zot_agent_get_session (zot_host_get_agent (self->host)));
}

static void
session_opened_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  self->opening_session = FALSE;
  if (!zot_host_open_session_finish (ZOT_HOST (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        zot_window_show_toast (self, error->message);
      if (self->host != NULL)
        zot_conversation_sidebar_set_current_path (self->sidebar, current_session_path (self));
      return;
    }

  /* On a narrow window the list covers the conversation: out of the way. */
  if (adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, FALSE);
}

static void
open_now (ZotWindow  *self,
          const char *path)
{
  self->opening_session = TRUE;
  zot_host_open_session_async (self->host, path, self->cancellable, session_opened_cb, g_object_ref (self));
}

/* What the user chose to go to, once the turn has stopped. */
static void
go_on (ZotWindow *self)
{
  g_autofree char *path = g_steal_pointer (&self->switch_path);
  ZotWindowSwitch kind = self->switch_kind;

  self->switch_kind = ZOT_WINDOW_SWITCH_NONE;
  switch (kind)
    {
    case ZOT_WINDOW_SWITCH_NEW:
      start_new (self, FALSE);
      break;
    case ZOT_WINDOW_SWITCH_NEW_CONTINUOUS:
      start_new (self, TRUE);
      break;
    case ZOT_WINDOW_SWITCH_OPEN:
      open_now (self, path);
      break;
    case ZOT_WINDOW_SWITCH_NONE:
    default:
      break;
    }
}

static void
turn_stopped_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(ZotWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (self->closed || self->host == NULL)
    return;
  if (!zot_host_stop_turn_finish (ZOT_HOST (object), result, &error))
    {
      self->switch_kind = ZOT_WINDOW_SWITCH_NONE;
      g_clear_pointer (&self->switch_path, g_free);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        zot_window_show_toast (self, error->message);
      return;
    }
  go_on (self);
}

static void
on_switch_response (AdwMessageDialog *dialog,
                    const char       *response,
                    ZotWindow        *self)
{
  self->switch_dialog = NULL;
  if (!g_str_equal (response, "stop") || self->host == NULL)
    {
      /* Wait: the turn goes on, and so does its conversation. */
      self->switch_kind = ZOT_WINDOW_SWITCH_NONE;
      g_clear_pointer (&self->switch_path, g_free);
      return;
    }

  zot_host_stop_turn_async (self->host, self->cancellable, turn_stopped_cb, g_object_ref (self));
}

static void
ask (ZotWindow       *self,
     ZotWindowSwitch  kind,
     const char      *path)
{
  GtkWidget *dialog;
  gboolean open = kind == ZOT_WINDOW_SWITCH_OPEN;

  /* One question at a time; the first one asked stands. */
  if (self->switch_dialog != NULL || self->switch_kind != ZOT_WINDOW_SWITCH_NONE)
    {
      if (self->switch_dialog != NULL)
        gtk_window_present (GTK_WINDOW (self->switch_dialog));
      return;
    }

  self->switch_kind = kind;
  self->switch_path = g_strdup (path);
  dialog = adw_message_dialog_new (GTK_WINDOW (self),
                                   open ? _("Stop the Turn and Open the Conversation?")
                                        : _("Stop the Turn and Start a New Conversation?"),
                                   _("The agent is still working. What it does belongs to this "
                                     "conversation, so another one can only come once the turn has "
                                     "stopped. Wait to let it finish."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    /* Translators: a button of the dialog shown when starting or
                                     * opening a conversation while the agent is working: keep the
                                     * turn running and stay */
                                    "cancel", _("_Wait"),
                                    "stop", open ? _("_Stop and Open") : _("_Stop and Start New"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "stop", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_switch_response), self, 0);
  self->switch_dialog = ADW_MESSAGE_DIALOG (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

/**
 * _zot_window_new_conversation:
 * @continuous: journal the new conversation's tool calls
 *
 * Starts a new conversation, or asks first while a turn runs.
 */
void
_zot_window_new_conversation (ZotWindow *self,
                              gboolean   continuous)
{
  g_return_if_fail (ZOT_IS_WINDOW (self));

  if (self->host == NULL)
    return;
  if (zot_host_is_busy (self->host))
    ask (self, continuous ? ZOT_WINDOW_SWITCH_NEW_CONTINUOUS : ZOT_WINDOW_SWITCH_NEW, NULL);
  else
    start_new (self, continuous);
}

/**
 * _zot_window_open_conversation:
 * @path: a stored conversation of this project
 *
 * Opens @path, or asks first while a turn runs. Until it is open, the
 * sidebar marks the conversation shown.
 */
void
_zot_window_open_conversation (ZotWindow  *self,
                               const char *path)
{
  g_return_if_fail (ZOT_IS_WINDOW (self));

  if (self->host == NULL || self->opening_session || g_strcmp0 (path, current_session_path (self)) == 0)
    return;

  if (zot_host_is_busy (self->host))
    {
      zot_conversation_sidebar_set_current_path (self->sidebar, current_session_path (self));
      ask (self, ZOT_WINDOW_SWITCH_OPEN, path);
      return;
    }
  open_now (self, path);
}

/**
 * _zot_window_is_new_command:
 *
 * Returns: whether @text, typed in the editor, is the command /new
 */
gboolean
_zot_window_is_new_command (const char *text)
{
  const char *end;

  if (text == NULL || *text != '/')
    return FALSE;
  text++;
  end = text + strcspn (text, " \t\r\n");
  return end - text == 3 && g_ascii_strncasecmp (text, "new", 3) == 0 && *(end + strspn (end, " \t\r\n")) == '\0';
}
