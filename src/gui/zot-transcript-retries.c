/* zot-transcript-retries.c — the transcript's rows for a busy model: one
 * per wait before the model is asked again, with a Cancel that ends the
 * turn while the wait lasts. The row stays, without its Cancel, once the
 * wait is over (the answer began, the next wait, the turn ended). */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include "zot-agent.h"
#include "zot-host.h"
#include "zot-transcript-item.h"
#include "zot-transcript-private.h"

static void
end_wait (ZotTranscript *self)
{
  if (self->retrying == NULL)
    return;

  zot_transcript_item_finish (self->retrying, zot_transcript_item_get_text (self->retrying));
  g_clear_object (&self->retrying);
}

static void
on_retrying_cb (ZotAgent      *agent,
                guint          retry,
                guint          max_retries,
                gint64         delay_ms,
                const char    *message,
                ZotTranscript *self)
{
  end_wait (self);
  self->retrying = zot_transcript_item_new_retry (message);
  g_list_store_append (G_LIST_STORE (_zot_transcript_get_items (self)), self->retrying);
}

static void
on_wait_over_cb (ZotTranscript *self)
{
  end_wait (self);
}

static void
cancel_turn_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (widget);

  if (self->host != NULL)
    zot_agent_abort (zot_host_get_agent (self->host));
}

/**
 * _zot_transcript_watch_retries:
 * @self: a #ZotTranscript
 * @agent_signals: the transcript's signal group on the agent
 *
 * Shows each retry of a busy model as a row.
 */
void
_zot_transcript_watch_retries (ZotTranscript *self,
                               GSignalGroup  *agent_signals)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (G_IS_SIGNAL_GROUP (agent_signals));

  g_signal_group_connect (agent_signals, "retrying", G_CALLBACK (on_retrying_cb), self);
  g_signal_group_connect_swapped (agent_signals, "text-delta", G_CALLBACK (on_wait_over_cb), self);
  g_signal_group_connect_swapped (agent_signals, "assistant-message", G_CALLBACK (on_wait_over_cb), self);
  g_signal_group_connect_swapped (agent_signals, "turn-end", G_CALLBACK (on_wait_over_cb), self);
}

/* "transcript.cancel-turn": the Cancel of a retry's row. */
void
_zot_transcript_install_retry_action (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "transcript.cancel-turn", NULL, cancel_turn_action);
}
