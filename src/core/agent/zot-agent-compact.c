/* zot-agent-compact.c — compaction: the model summarizes the conversation
 * and the summary replaces the transcript, with `pre_compact` and
 * `post_compact` for extensions on every attempt.
 */
#define G_LOG_DOMAIN "zot-agent"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-agent.h"
#include "zot-agent-private.h"
#include "zot-limits.h"
#include "zot-message.h"

void
zot_compaction_free (ZotCompaction *compaction)
{
  if (compaction == NULL)
    return;
  g_free (compaction->id);
  g_free (compaction->summary);
  g_free (compaction);
}

/* Compaction */

typedef struct
{
  ZotCompaction *compaction;
  guint          count;
  GCancellable  *cancellable;
  GCancellable  *outer;
  gulong         cancel_id;
  /* Automatic, inside a run: the run's prompt, kept after the summary
   * so that the model still answers it. */
  gboolean       in_run;
  JsonObject    *kept;
} CompactData;

/* The attempt is over: the agent may compact or run again. One inside a
 * run is part of the run's turn, not one of its own. */
static void
end_compaction (GTask      *task,
                const char *stop,
                const char *error,
                const char *summary)
{
  ZotAgent *self = g_task_get_source_object (task);
  CompactData *data = g_task_get_task_data (task);

  if (data->in_run)
    return;

  g_clear_object (&self->compaction);
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_COMPACTION_END], 0, stop, error, summary);
}

void
_zot_agent_abort_compaction (ZotAgent *self)
{
  if (self->compaction != NULL)
    g_cancellable_cancel (self->compaction);
}

/**
 * zot_agent_is_compacting:
 *
 * Returns: whether a compaction is waiting for the model's summary
 */
gboolean
zot_agent_is_compacting (ZotAgent *self)
{
  g_return_val_if_fail (ZOT_IS_AGENT (self), FALSE);

  return self->compaction != NULL;
}

static void
emit_compaction (ZotAgent      *self,
                 const char    *name,
                 ZotCompaction *compaction,
                 guint          message_count,
                 guint64        token_estimate,
                 const char    *status,
                 const char    *error)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  json_object_set_string_member (payload, "compaction_id", compaction->id);
  json_object_set_int_member (payload, "message_count", message_count);
  json_object_set_int_member (payload, "token_estimate", (gint64) token_estimate);
  if (status != NULL)
    json_object_set_string_member (payload, "status", status);
  if (error != NULL)
    json_object_set_string_member (payload, "error", error);
  _zot_agent_emit_event (self, name, payload);
}

static void
compact_data_free (CompactData *data)
{
  zot_compaction_free (data->compaction);
  if (data->cancel_id != 0)
    g_cancellable_disconnect (data->outer, data->cancel_id);
  g_clear_object (&data->outer);
  g_clear_object (&data->cancellable);
  g_clear_pointer (&data->kept, json_object_unref);
  g_free (data);
}

static guint64
estimate_tokens (GPtrArray *messages)
{
  guint64 bytes = 0;

  for (guint i = 0; i < messages->len; i++)
    bytes += zot_message_estimate_bytes (g_ptr_array_index (messages, i));
  return bytes / 4;
}

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotAgent *self = g_task_get_source_object (task);
  CompactData *data = g_task_get_task_data (task);
  g_autoptr(ZotProviderReply) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) replacement = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *text = NULL;
  JsonObject *message;

  self->text_delta_id = 0;
  reply = zot_provider_stream_finish (ZOT_PROVIDER (object), result, &error);
  if (reply == NULL)
    {
      gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

      /* Every attempt gets its post_compact; the transcript is unchanged. */
      emit_compaction (self, "post_compact", data->compaction, data->compaction->message_count,
                       data->compaction->token_estimate, cancelled ? "cancelled" : "failed",
                       error->message);
      end_compaction (task, cancelled ? "aborted" : "error", cancelled ? NULL : error->message, NULL);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  summary = zot_message_get_text (reply->message);
  if (*g_strstrip (summary) == '\0')
    {
      emit_compaction (self, "post_compact", data->compaction, data->compaction->message_count,
                       data->compaction->token_estimate, "failed", "the model returned an empty summary");
      end_compaction (task, "error", _("the model returned an empty summary; the conversation was kept"),
                      NULL);
      g_task_return_new_error (task, ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_EMPTY,
                               _("the model returned an empty summary; the conversation was kept"));
      return;
    }

  text = g_strdup_printf (_("Summary of the conversation so far:\n\n%s"), summary);
  message = zot_message_new_user_text (text);
  json_object_set_boolean_member (message, "summary", TRUE);
  zot_message_stamp_time (message);

  replacement = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_ptr_array_add (replacement, message);
  if (data->kept != NULL)
    g_ptr_array_add (replacement, json_object_ref (data->kept));
  zot_session_replace_messages (self->session, replacement);
  self->context_tokens = -1;
  zot_agent_reset_system_prompt (self);

  data->compaction->after_count = replacement->len;
  data->compaction->after_token_estimate = estimate_tokens (replacement);
  emit_compaction (self, "post_compact", data->compaction, data->compaction->after_count,
                   data->compaction->after_token_estimate, "completed", NULL);
  data->compaction->summary = g_strdup (summary);
  end_compaction (task, "end_turn", NULL, summary);
  g_task_return_pointer (task, g_steal_pointer (&data->compaction), (GDestroyNotify) zot_compaction_free);
}

static CompactData *
compact_data_new (GPtrArray *messages,
                  guint      n_summarized)
{
  CompactData *data = g_new0 (CompactData, 1);
  g_autoptr(GPtrArray) summarized = g_ptr_array_new ();

  for (guint i = 0; i < n_summarized; i++)
    g_ptr_array_add (summarized, g_ptr_array_index (messages, i));

  data->compaction = g_new0 (ZotCompaction, 1);
  data->compaction->id = g_uuid_string_random ();
  data->compaction->message_count = messages->len;
  data->compaction->token_estimate = estimate_tokens (summarized);
  return data;
}

/* Emits pre_compact and asks the model for the summary of the first
 * @n_summarized messages. */
static void
request_summary (GTask     *task,
                 GPtrArray *messages,
                 guint      n_summarized)
{
  ZotAgent *self = g_task_get_source_object (task);
  CompactData *data = g_task_get_task_data (task);
  g_autoptr(ZotProviderRequest) request = NULL;

  emit_compaction (self, "pre_compact", data->compaction, data->compaction->message_count,
                   data->compaction->token_estimate, NULL, NULL);

  if (n_summarized == 0)
    {
      data->compaction->after_count = messages->len;
      emit_compaction (self, "post_compact", data->compaction, messages->len, 0, "completed", NULL);
      end_compaction (task, "end_turn", NULL, "");
      g_task_return_pointer (task, g_steal_pointer (&data->compaction), (GDestroyNotify) zot_compaction_free);
      g_object_unref (task);
      return;
    }

  request = zot_provider_request_new ();
  request->model = g_strdup (zot_provider_get_model (self->provider));
  request->system_prompt = g_strdup (_zot_agent_ensure_system_prompt (self));
  request->messages = json_array_new ();
  for (guint i = 0; i < n_summarized; i++)
    json_array_add_object_element (request->messages, json_object_ref (g_ptr_array_index (messages, i)));
  json_array_add_object_element (request->messages, zot_message_new_user_text (ZOT_COMPACT_PROMPT));

  zot_provider_stream_async (self->provider, request, data->cancellable, compacted_cb, task);
}

/**
 * zot_agent_compact_async:
 *
 * Asks the model for a summary and replaces the transcript with it. The
 * compaction's figures are known at once through its id; the finish gives
 * them with the result.
 */
void
zot_agent_compact_async (ZotAgent            *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GPtrArray *messages;
  CompactData *data;

  g_return_if_fail (ZOT_IS_AGENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_agent_compact_async);

  messages = zot_session_get_messages (self->session);
  data = compact_data_new (messages, messages->len);
  g_task_set_task_data (task, data, (GDestroyNotify) compact_data_free);

  if (self->run != NULL || self->compaction != NULL)
    {
      g_task_return_new_error (task, ZOT_AGENT_ERROR, ZOT_AGENT_ERROR_BUSY,
                               _("a run is in progress; wait for it or abort it first"));
      return;
    }

  /* zot_agent_abort() reaches it through this one, as the caller's does. */
  self->compaction = g_cancellable_new ();
  data->cancellable = g_object_ref (self->compaction);
  if (cancellable != NULL)
    data->outer = g_object_ref (cancellable);
  if (cancellable != NULL)
    data->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (g_cancellable_cancel),
                                             g_object_ref (data->cancellable), g_object_unref);
  g_signal_emit (self, _zot_agent_signals [ZOT_AGENT_COMPACTION_START], 0);

  request_summary (g_steal_pointer (&task), messages, messages->len);
}

/* Automatic compaction, inside @run: cancelled with the run, no turn of
 * its own, and a last user message (the prompt the run answers) kept
 * after the summary. Finished with zot_agent_compact_finish(). */
void
_zot_agent_compact_in_run (Run                 *run,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  ZotAgent *self = run->agent;
  GTask *task = g_task_new (self, run->cancellable, callback, user_data);
  GPtrArray *messages = zot_session_get_messages (run->session);
  guint n_summarized = messages->len;
  CompactData *data;

  g_task_set_source_tag (task, zot_agent_compact_async);
  if (n_summarized > 0 &&
      g_strcmp0 (zot_message_get_role (g_ptr_array_index (messages, n_summarized - 1)), "user") == 0)
    n_summarized--;

  data = compact_data_new (messages, n_summarized);
  data->in_run = TRUE;
  data->cancellable = g_object_ref (run->cancellable);
  if (n_summarized < messages->len)
    data->kept = json_object_ref (g_ptr_array_index (messages, n_summarized));
  g_task_set_task_data (task, data, (GDestroyNotify) compact_data_free);

  request_summary (task, messages, n_summarized);
}

/**
 * zot_agent_compact_finish:
 *
 * Returns: (transfer full): the figures before and after
 */
ZotCompaction *
zot_agent_compact_finish (ZotAgent      *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
