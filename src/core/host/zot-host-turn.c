/* zot-host-turn.c — the turn in progress and the conversation it is in.
 *
 * A turn writes to the conversation it started in until it ends. Starting,
 * switching or opening another conversation meanwhile would leave the old
 * one with a call and no result, and give the new one what belongs to the
 * old: the host refuses it while the agent is busy. A caller that asked the
 * user stops the turn first (zot_host_stop_turn_async()) and then switches.
 */
#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "zot-host-private.h"
#include "zot-limits.h"

/**
 * zot_host_is_busy:
 *
 * Returns: whether a turn or a compaction of the agent is in progress: it
 *   writes to the conversation it started in until it ends
 */
gboolean
zot_host_is_busy (ZotHost *self)
{
  ZotAgent *agent;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  agent = zot_host_get_agent (self);
  return zot_agent_is_running (agent) || zot_agent_is_compacting (agent);
}

/**
 * zot_host_check_idle:
 *
 * What every change of conversation asks first.
 *
 * Returns: %TRUE when no turn runs; %FALSE with %ZOT_HOST_ERROR_BUSY
 */
gboolean
zot_host_check_idle (ZotHost  *self,
                     GError  **error)
{
  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  if (!zot_host_is_busy (self))
    return TRUE;

  g_set_error_literal (error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_BUSY,
                       _("agent is busy: stop the turn first, or wait until it ends"));
  return FALSE;
}

typedef struct
{
  ZotAgent *agent;
  gulong    running_id;
  gulong    compaction_id;
  GSource  *deadline;
  GSource  *cancelled;
  GSource  *stopped;
} StopData;

static void
clear_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

static void
stop_data_disconnect (StopData *data)
{
  g_clear_signal_handler (&data->running_id, data->agent);
  g_clear_signal_handler (&data->compaction_id, data->agent);
  clear_source (&data->deadline);
  clear_source (&data->cancelled);
  clear_source (&data->stopped);
}

static void
stop_data_free (StopData *data)
{
  stop_data_disconnect (data);
  g_clear_object (&data->agent);
  g_free (data);
}

/* Whatever ends the wait (the turn, the deadline, the cancellable) comes
 * first and takes the others away. */
static void
stop_finish (GTask  *task,
             GError *error)
{
  stop_data_disconnect (g_task_get_task_data (task));
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static gboolean
stopped_cb (gpointer user_data)
{
  stop_finish (user_data, NULL);
  return G_SOURCE_REMOVE;
}

/* The run tells it is over from inside its own end: the caller hears of it
 * from the main loop, once the run has returned its task and is gone. */
static void
check_stopped (GTask *task)
{
  ZotHost *self = g_task_get_source_object (task);
  StopData *data = g_task_get_task_data (task);

  if (zot_host_is_busy (self) || data->stopped != NULL)
    return;

  data->stopped = g_idle_source_new ();
  g_source_set_callback (data->stopped, stopped_cb, task, NULL);
  g_source_set_static_name (data->stopped, "[zot] turn stopped");
  g_source_attach (data->stopped, g_task_get_context (task));
}

static void
on_running_notify (ZotAgent   *agent,
                   GParamSpec *pspec,
                   GTask      *task)
{
  check_stopped (task);
}

static void
on_compaction_end (ZotAgent   *agent,
                   const char *stop,
                   const char *error,
                   const char *summary,
                   GTask      *task)
{
  check_stopped (task);
}

static gboolean
stop_deadline_cb (gpointer user_data)
{
  stop_finish (user_data, g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                       /* Translators: %u is a number of milliseconds */
                                       _("the turn did not stop within %u ms; try again, or wait "
                                         "until it ends"),
                                       zot_timeout_get_ms (ZOT_TIMEOUT_STOP_TURN)));
  return G_SOURCE_REMOVE;
}

static gboolean
stop_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  stop_finish (user_data, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                               _("the wait for the turn to stop was cancelled")));
  return G_SOURCE_REMOVE;
}

/**
 * zot_host_stop_turn_async:
 *
 * Aborts the turn in progress (its tools are cancelled and their results
 * recorded in its conversation, queued prompts dropped) and completes when
 * it has ended, within ZOT_STOP_TURN_TIMEOUT_MS, or with
 * %G_IO_ERROR_TIMED_OUT. Completes at once when the agent is idle. Then a
 * new conversation can start.
 */
void
zot_host_stop_turn_async (ZotHost             *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task;
  StopData *data;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_stop_turn_async);
  if (!zot_host_is_busy (self))
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  data = g_new0 (StopData, 1);
  data->agent = g_object_ref (zot_host_get_agent (self));
  g_task_set_task_data (task, data, (GDestroyNotify) stop_data_free);
  data->running_id = g_signal_connect (data->agent, "notify::running", G_CALLBACK (on_running_notify), task);
  data->compaction_id = g_signal_connect (data->agent, "compaction-end", G_CALLBACK (on_compaction_end), task);

  data->deadline = g_timeout_source_new (zot_timeout_get_ms (ZOT_TIMEOUT_STOP_TURN));
  g_source_set_callback (data->deadline, stop_deadline_cb, task, NULL);
  g_source_set_static_name (data->deadline, "[zot] stop turn deadline");
  g_source_attach (data->deadline, g_task_get_context (task));

  if (cancellable != NULL)
    {
      data->cancelled = g_cancellable_source_new (cancellable);
      g_source_set_callback (data->cancelled, G_SOURCE_FUNC (stop_cancelled_cb), task, NULL);
      g_source_attach (data->cancelled, g_task_get_context (task));
    }

  zot_agent_abort (data->agent);
  /* A compaction may end at once, inside the abort. */
  check_stopped (task);
}

gboolean
zot_host_stop_turn_finish (ZotHost       *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
resumed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *text = zot_agent_prompt_finish (ZOT_AGENT (object), result, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, text, g_free);
}

/**
 * zot_host_resume_async:
 *
 * Finishes the step a continuous conversation was stopped in (see
 * zot_agent_resume_async()). Finish with zot_host_resume_finish().
 */
void
zot_host_resume_async (ZotHost             *self,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_resume_async);
  zot_host_begin_session (self);
  zot_agent_resume_async (zot_host_get_agent (self), cancellable, resumed_cb, g_steal_pointer (&task));
}

/**
 * zot_host_resume_finish:
 *
 * Returns: (transfer full) (nullable): the run's final text, or %NULL with
 *   @error
 */
char *
zot_host_resume_finish (ZotHost       *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
