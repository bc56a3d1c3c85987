/* zot-host-load.c — loading the extensions, and shutting down.
 */
#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-host-private.h"
#include "zot-limits.h"
#include "zot-subagent-tool.h"

/* Loading and shutdown */

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  g_task_return_boolean (task, TRUE);
}

/**
 * zot_host_load_async:
 *
 * Reports what loading the session had to mend (#ZotHost::warning), then
 * loads the extensions. Failures of single extensions are reported through
 * the manager's signals; the load itself does not fail.
 */
void
zot_host_load_async (ZotHost             *self,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_load_async);

  _zot_host_emit_session_warnings (self);
  zot_extension_manager_load_async (self->manager, cancellable, loaded_cb, g_steal_pointer (&task));
}

gboolean
zot_host_load_finish (ZotHost       *self,
                      GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
session_flushed_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  /* A failed flush was reported when the append failed. */
  zot_session_flush_finish (ZOT_SESSION (object), result, &error);
  g_task_return_boolean (task, TRUE);
}

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHost *self = g_task_get_source_object (task);

  zot_extension_manager_shutdown_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  zot_session_flush_async (zot_agent_get_session (self->agent), NULL,
                           session_flushed_cb, g_steal_pointer (&task));
}

static void
stop_extensions (GTask *task)
{
  ZotHost *self = g_task_get_source_object (task);

  /* Queued events, session_end included, drain before `shutdown`. */
  if (self->session_started)
    {
      _zot_host_emit_session_event (self, "session_end", "shutdown");
      self->session_started = FALSE;
    }

  zot_extension_manager_shutdown_async (self->manager, NULL, shutdown_cb, task);
}

static void
subagents_waited_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* Runners still going after the wait may never report their stop. */
  if (!zot_subagent_tool_wait_finish (ZOT_TOOL (object), result, &error))
    g_debug ("Shutting down without waiting further: %s", error->message);
  stop_extensions (user_data);
}

/**
 * zot_host_shutdown_async:
 *
 * Aborts any run, waits a little (ZOT_SUBAGENT_SHUTDOWN_WAIT_MS) for
 * running subagents to return, stops every extension with the shutdown
 * ladder and waits for the session to be on disk.
 */
void
zot_host_shutdown_async (ZotHost             *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ZotTool *subagent;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_shutdown_async);

  zot_agent_abort (self->agent);

  /* The abort reaches the subagents too; their stops come before
   * session_end when they return in time. */
  subagent = zot_tool_registry_lookup (self->registry, ZOT_SUBAGENT_TOOL_NAME);
  if (subagent != NULL && ZOT_IS_SUBAGENT_TOOL (subagent) &&
      zot_subagent_tool_get_n_running (subagent) > 0)
    {
      zot_subagent_tool_wait_async (subagent, zot_timeout_get_ms (ZOT_TIMEOUT_SUBAGENT_SHUTDOWN),
                                    NULL, subagents_waited_cb, g_steal_pointer (&task));
      return;
    }

  stop_extensions (g_steal_pointer (&task));
}

gboolean
zot_host_shutdown_finish (ZotHost       *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
