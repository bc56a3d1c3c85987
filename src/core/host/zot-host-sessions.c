/* zot-host-sessions.c — the conversation the host is in: opening the one
 * the options name, switching to a stored or a new one, and the
 * session_start/session_end events the extensions hear.
 */
#define G_LOG_DOMAIN "zot-host"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-host-private.h"
#include "zot-limits.h"
#include "zot-model-facts.h"

/* Sessions */

/* --session FILE or --continue: a file that may be another's to write. */
static ZotSession *
open_existing_session (ZotHostOptions  *options,
                       const char      *cwd,
                       GError         **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  ZotSession *session;

  if (options->session_path != NULL)
    {
      path = g_strdup (options->session_path);
      session = zot_session_new (cwd, path, &local_error);
    }
  else
    {
      path = zot_session_find_latest (cwd, error);
      if (path == NULL)
        return NULL;
      session = zot_session_open (path, &local_error);
    }

  if (session == NULL && options->read_only_if_locked &&
      g_error_matches (local_error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED))
    return zot_session_open_read_only (path, error);

  if (session == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return session;
}

ZotSession *
_zot_host_open_session (ZotHostOptions  *options,
                        const char      *cwd,
                        GError         **error)
{
  if (options->no_session)
    return zot_session_new_in_memory (cwd);

  if (options->session_path != NULL || options->continue_session)
    return open_existing_session (options, cwd, error);

  return zot_session_new (cwd, NULL, error);
}

/* Continuous mode is chosen when a conversation starts and kept in its
 * header: --continuous makes a new one continuous; a resumed one goes on
 * in the mode it was started in. */
void
_zot_host_choose_continuous (ZotHost    *self,
                             ZotSession *session)
{
  if (!self->options.continuous || zot_session_get_continuous (session))
    return;

  if (zot_session_get_messages (session)->len == 0 && !zot_session_is_read_only (session))
    {
      zot_session_set_continuous (session, TRUE);
      return;
    }

  g_free (self->continuous_warning);
  self->continuous_warning = g_strdup_printf (_("the conversation %s was not started in continuous mode, "
                                                "so its tool calls are not journaled; start a new "
                                                "conversation with --continuous for that"),
                                              zot_session_get_path (session));
}

/* What the user should know about the conversation just opened: what
 * loading it mended, and whether it can go on here. */
void
_zot_host_emit_session_warnings (ZotHost *self)
{
  ZotSession *session = zot_agent_get_session (self->agent);
  const char * const *warnings = zot_session_get_warnings (session);
  static gsize models_said;

  for (guint i = 0; warnings[i] != NULL; i++)
    g_signal_emit (self, _zot_host_signals [ZOT_HOST_WARNING], 0, warnings[i]);

  /* The user's models.json is read once a process, and said once. */
  if (g_once_init_enter (&models_said))
    {
      const char * const *problems = zot_model_facts_get_warnings ();

      for (guint i = 0; problems[i] != NULL; i++)
        g_signal_emit (self, _zot_host_signals [ZOT_HOST_WARNING], 0, problems[i]);
      g_once_init_leave (&models_said, 1);
    }

  if (self->continuous_warning != NULL)
    g_signal_emit (self, _zot_host_signals [ZOT_HOST_WARNING], 0, self->continuous_warning);

  if (zot_session_is_read_only (session))
    {
      g_autofree char *text = g_strdup_printf (_("the session %s is open in another zot process, so it "
                                                 "is shown read-only here; start a new conversation "
                                                 "(/new) to go on"),
                                               zot_session_get_path (session));

      g_signal_emit (self, _zot_host_signals [ZOT_HOST_WARNING], 0, text);
    }
}

void
_zot_host_emit_session_event (ZotHost    *self,
                              const char *name,
                              const char *reason)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  if (reason != NULL)
    json_object_set_string_member (payload, "reason", reason);
  zot_extension_manager_emit_event (self->manager, name, payload);
}

/**
 * zot_host_begin_session:
 *
 * Emits `session_start` once for the active conversation. The window and
 * RPC call it when they are ready; print and JSON modes start the session
 * at the agent's first observation, just before its first prompt.
 */
void
zot_host_begin_session (ZotHost *self)
{
  g_return_if_fail (ZOT_IS_HOST (self));

  if (self->session_started)
    return;

  self->session_started = TRUE;
  zot_extension_manager_set_session_id (self->manager,
                                        zot_session_get_id (zot_agent_get_session (self->agent)));
  _zot_host_emit_session_event (self, "session_start", NULL);
}

/* The agent goes on in @session from here; extensions hear of the switch. */
static void
switch_session (ZotHost    *self,
                ZotSession *session)
{
  /* The old conversation ends before the new one starts. */
  if (self->session_started)
    _zot_host_emit_session_event (self, "session_end", "session_switch");

  zot_agent_set_session (self->agent, session);
  g_object_notify_by_pspec (G_OBJECT (self), _zot_host_properties [ZOT_HOST_PROP_SESSION]);
  zot_extension_manager_forget_approvals (self->manager);
  zot_extension_manager_set_session_id (self->manager, zot_session_get_id (session));

  if (self->session_started)
    _zot_host_emit_session_event (self, "session_start", NULL);
}

/* A stored conversation to go on with: a file that another zot process
 * writes is opened read-only when @read_only_if_locked. */
static ZotSession *
open_stored_session (const char  *path,
                     gboolean     read_only_if_locked,
                     GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  ZotSession *session = zot_session_open (path, &local_error);

  if (session == NULL && read_only_if_locked &&
      g_error_matches (local_error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED))
    {
      g_clear_error (&local_error);
      session = zot_session_open_read_only (path, &local_error);
    }
  if (session == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return session;
}

/* Reading the file is the worker thread's; a session made there belongs
 * to the main context, the thread's default. */
static void
open_session_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  GError *error = NULL;
  ZotSession *session = open_stored_session (task_data, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task),
                                                                                            "read-only-if-locked")),
                                             &error);

  if (session == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, session, g_object_unref);
}

static void
session_read_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotHost *self = g_task_get_source_object (task);
  GError *error = NULL;
  g_autoptr(ZotSession) session = g_task_propagate_pointer (G_TASK (result), &error);

  if (session == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task) || !zot_host_check_idle (self, &error))
    {
      if (error != NULL)
        g_task_return_error (task, error);
      return;
    }

  g_clear_pointer (&self->continuous_warning, g_free);
  switch_session (self, session);
  _zot_host_emit_session_warnings (self);
  g_task_return_boolean (task, TRUE);
}

/**
 * zot_host_open_session_async:
 * @path: a session file of this host's directory
 *
 * Goes on with a stored conversation, as `--session FILE` does: the agent
 * has its history from here. The file is read on a worker thread. One
 * that another zot process writes is opened read-only when the host was
 * made to (the window). Then reports what loading it had to mend, as
 * #ZotHost::warning, after #ZotHost:session changed. On failure the
 * conversation before stays.
 */
void
zot_host_open_session_async (ZotHost             *self,
                             const char          *path,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) read = NULL;
  GError *error = NULL;

  g_return_if_fail (ZOT_IS_HOST (self));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_open_session_async);
  if (!zot_host_check_idle (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  read = g_task_new (NULL, cancellable, session_read_cb, g_steal_pointer (&task));
  g_task_set_task_data (read, g_strdup (path), g_free);
  g_object_set_data (G_OBJECT (read), "read-only-if-locked", GINT_TO_POINTER (self->options.read_only_if_locked));
  g_task_run_in_thread (read, open_session_thread);
}

gboolean
zot_host_open_session_finish (ZotHost       *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
zot_host_new_session (ZotHost  *self,
                      GError  **error)
{
  g_autoptr(ZotSession) session = NULL;
  const char *cwd;

  g_return_val_if_fail (ZOT_IS_HOST (self), FALSE);

  if (!zot_host_check_idle (self, error))
    return FALSE;
  cwd = zot_agent_get_cwd (self->agent);
  if (self->options.no_session)
    session = zot_session_new_in_memory (cwd);
  else
    session = zot_session_new (cwd, NULL, error);
  if (session == NULL)
    return FALSE;
  /* A new conversation goes on in the mode of the last. */
  if (zot_extension_manager_get_continuous (self->manager) && zot_session_is_persistent (session))
    zot_session_set_continuous (session, TRUE);

  switch_session (self, session);
  return TRUE;
}

void
zot_host_clear (ZotHost *self)
{
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();

  g_return_if_fail (ZOT_IS_HOST (self));

  zot_session_replace_messages (zot_agent_get_session (self->agent), empty);
  /* Tools activated in the conversation go with it (PROTOCOL.md §5a). */
  zot_tool_registry_reset_activations (self->registry);
  zot_agent_reset_system_prompt (self->agent);
}

/**
 * zot_host_start_conversation_async:
 * @continuous: journal the new conversation's tool calls (PROTOCOL.md §5)
 *
 * Starts a new conversation, as /new does, in the mode asked. When the
 * mode changes the extensions are restarted, so that the hello_ack of
 * each says whether call_tool_durable is offered.
 */
void
zot_host_start_conversation_async (ZotHost             *self,
                                   gboolean             continuous,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  gboolean was = FALSE;

  g_return_if_fail (ZOT_IS_HOST (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_host_start_conversation_async);

  if (continuous && self->options.no_session)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("a continuous conversation journals in its session file, and this "
                                 "window keeps none (--no-session)"));
      return;
    }

  was = zot_extension_manager_get_continuous (self->manager);
  zot_extension_manager_set_continuous (self->manager, continuous);
  if (!zot_host_new_session (self, &error))
    {
      zot_extension_manager_set_continuous (self->manager, was);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  _zot_host_emit_info (self, continuous ? _("Started a new continuous conversation: tool calls are journaled.")
                              : _("Started a new conversation."));
  if (was == !!continuous)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  zot_extension_manager_reload_async (self->manager, cancellable, _zot_host_reloaded_cb, g_steal_pointer (&task));
}

gboolean
zot_host_start_conversation_finish (ZotHost       *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
