/* zot-extension-manager.c — every extension of one host, in load order.
 *
 * The manager is a GListModel of ZotExtension so that views can bind to it.
 * Every "first" of the protocol (command conflicts, interceptor chains) is
 * decided by the position in this list, never by the time at which frames
 * arrive from processes started concurrently.
 *
 * This file is the object itself: its signals, its settings, and what it
 * passes on from each extension. The rest is in files of one job each,
 * which share zot-extension-manager-private.h: zot-manager-load.c (the set
 * of extensions and its order), zot-manager-commands.c,
 * zot-manager-events.c, zot-manager-frames.c (the frames an extension
 * leaves to the manager), zot-manager-intercept.c, zot-manager-approvals.c,
 * zot-manager-panels.c, zot-manager-watch.c (watch mode) and
 * zot-manager-supervisor.c (restarts after a crash).
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-extension-manager-private.h"
#include "zot-panel.h"

guint _zot_manager_signals [ZOT_MANAGER_N_SIGNALS];
GParamSpec *_zot_manager_properties [ZOT_MANAGER_N_PROPS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (ZotExtensionManager, zot_extension_manager, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

/* GListModel */

static GType
get_item_type (GListModel *model)
{
  return ZOT_TYPE_EXTENSION;
}

static guint
get_n_items (GListModel *model)
{
  return ZOT_EXTENSION_MANAGER (model)->extensions->len;
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  ZotExtensionManager *self = ZOT_EXTENSION_MANAGER (model);

  if (position >= self->extensions->len)
    return NULL;

  return g_object_ref (g_ptr_array_index (self->extensions, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

/* Extension signals, forwarded */

static void
on_extension_notify_received (ZotExtension        *extension,
                              const char          *level,
                              const char          *message,
                              ZotExtensionManager *self)
{
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_NOTE_ADDED], 0, extension, level, message);
}

static void
on_extension_notes_cleared (ZotExtension        *extension,
                            ZotExtensionManager *self)
{
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_NOTES_CLEARED], 0, extension);
}

static void
on_extension_registration_changed (ZotExtension        *extension,
                                   ZotExtensionManager *self)
{
  if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY)
    {
      _zot_manager_invalidate_routes (self);
      g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_TOOLS_CHANGED], 0);
    }
}

static void
on_extension_state_notify (ZotExtension        *extension,
                           GParamSpec          *pspec,
                           ZotExtensionManager *self)
{
  ZotExtensionState state = zot_extension_get_state (extension);

  _zot_manager_invalidate_routes (self);

  /* Loaded again: a later failure is news again. */
  if (state == ZOT_EXTENSION_STATE_READY)
    g_object_set_qdata (G_OBJECT (extension), _zot_manager_warned_quark (), NULL);

  /* A panel cannot outlive its extension, except across a reload in
   * watch mode, where the new process takes it over. */
  if ((state == ZOT_EXTENSION_STATE_FAILED || state == ZOT_EXTENSION_STATE_EXITED ||
       state == ZOT_EXTENSION_STATE_STOPPING) && _zot_manager_is_reloading (extension))
    {
      _zot_manager_mark_panels_reloaded (self, extension);
      _zot_manager_cancel_calls_of (self, extension);
    }
  else if (state == ZOT_EXTENSION_STATE_FAILED || state == ZOT_EXTENSION_STATE_EXITED ||
           state == ZOT_EXTENSION_STATE_STOPPING)
    {
      g_autofree char *reason = g_strdup_printf (_("%s stopped; its panels were closed"),
                                                 zot_extension_get_name (extension));
      _zot_manager_close_panels_of (self, extension, reason);
      _zot_manager_cancel_calls_of (self, extension);
    }

  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_EXTENSION_STATE_CHANGED], 0, extension);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_TOOLS_CHANGED], 0);
}

static void
on_extension_crashed (ZotExtension        *extension,
                      const char          *message,
                      ZotExtensionManager *self)
{
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_EXTENSION_CRASHED], 0, extension, message);
  _zot_manager_supervise_crash (self, extension, message);
}

static void
on_extension_traffic (ZotExtension        *extension,
                      int                  direction,
                      const char          *line,
                      ZotExtensionManager *self)
{
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_FRAME_TRAFFIC], 0,
                 extension, direction, line);
}

static gboolean
on_extension_unhandled_frame (ZotExtension        *extension,
                              JsonObject          *frame,
                              ZotExtensionManager *self)
{
  return _zot_manager_handle_frame (self, extension, frame);
}

void
_zot_manager_connect_extension (ZotExtensionManager *self,
                                ZotExtension        *extension)
{
  g_signal_connect_object (extension, "notify-received",
                           G_CALLBACK (on_extension_notify_received), self, 0);
  g_signal_connect_object (extension, "notes-cleared",
                           G_CALLBACK (on_extension_notes_cleared), self, 0);
  g_signal_connect_object (extension, "registration-changed",
                           G_CALLBACK (on_extension_registration_changed), self, 0);
  g_signal_connect_object (extension, "notify::state",
                           G_CALLBACK (on_extension_state_notify), self, 0);
  g_signal_connect_object (extension, "crashed",
                           G_CALLBACK (on_extension_crashed), self, 0);
  g_signal_connect_object (extension, "traffic",
                           G_CALLBACK (on_extension_traffic), self, 0);
  g_signal_connect_object (extension, "unhandled-frame",
                           G_CALLBACK (on_extension_unhandled_frame), self, 0);
  zot_extension_set_trace (extension, self->trace);
}

/* Accessors */

ZotExtension *
zot_extension_manager_find (ZotExtensionManager *self,
                            const char          *name)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);

      if (g_str_equal (zot_extension_get_name (extension), name))
        return extension;
    }

  return NULL;
}

void
zot_extension_manager_set_cwd (ZotExtensionManager *self,
                               const char          *cwd)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  g_free (self->cwd);
  self->cwd = cwd ? g_canonicalize_filename (cwd, NULL) : g_get_current_dir ();
  g_clear_pointer (&self->event_common, g_free);
}

const char *
zot_extension_manager_get_cwd (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);
  return self->cwd;
}

void
zot_extension_manager_set_explicit_paths (ZotExtensionManager *self,
                                          const char * const  *paths)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  g_strfreev (self->explicit_paths);
  self->explicit_paths = g_strdupv ((char **) paths);
}

void
zot_extension_manager_set_no_ext (ZotExtensionManager *self,
                                  gboolean             no_ext)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  self->no_ext = !!no_ext;
}

void
zot_extension_manager_set_model (ZotExtensionManager *self,
                                 const char          *provider,
                                 const char          *model)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (provider != NULL);
  g_return_if_fail (model != NULL);

  g_free (self->provider);
  self->provider = g_strdup (provider);
  g_free (self->model);
  self->model = g_strdup (model);
}

void
zot_extension_manager_set_interactive (ZotExtensionManager *self,
                                       gboolean             interactive)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  self->interactive = !!interactive;
}

gboolean
zot_extension_manager_get_interactive (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), FALSE);
  return self->interactive;
}

/**
 * zot_extension_manager_set_trace_traffic:
 *
 * Turns on #ZotExtensionManager::frame-traffic. Off by default, so that a
 * host without an inspector pays nothing for it.
 */
void
zot_extension_manager_set_trace_traffic (ZotExtensionManager *self,
                                         gboolean             trace)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  self->trace = !!trace;
  for (guint i = 0; i < self->extensions->len; i++)
    zot_extension_set_trace (g_ptr_array_index (self->extensions, i), trace);
}

/* GObject */

static void
zot_extension_manager_dispose (GObject *object)
{
  ZotExtensionManager *self = (ZotExtensionManager *)object;

  g_cancellable_cancel (self->cancellable);

  if (self->watches != NULL)
    g_hash_table_remove_all (self->watches);
  _zot_manager_supervisor_stop (self, TRUE);

  if (self->routes != NULL)
    g_hash_table_remove_all (self->routes);

  _zot_manager_orphan_calls (self);

  for (guint i = 0; self->panels != NULL && i < self->panels->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->panels, i), self);
  if (self->panels != NULL)
    g_ptr_array_set_size (self->panels, 0);

  if (self->extensions != NULL && self->extensions->len > 0)
    {
      guint len = self->extensions->len;

      for (guint i = 0; i < len; i++)
        g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->extensions, i), self);
      g_ptr_array_set_size (self->extensions, 0);
      g_list_model_items_changed (G_LIST_MODEL (self), 0, len, 0);
    }

  G_OBJECT_CLASS (zot_extension_manager_parent_class)->dispose (object);
}

static void
zot_extension_manager_finalize (GObject *object)
{
  ZotExtensionManager *self = (ZotExtensionManager *)object;

  g_clear_pointer (&self->extensions, g_ptr_array_unref);
  g_clear_pointer (&self->untrusted, g_ptr_array_unref);
  g_clear_pointer (&self->routes, g_hash_table_unref);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->cwd, g_free);
  g_clear_pointer (&self->explicit_paths, g_strfreev);
  g_clear_pointer (&self->provider, g_free);
  g_clear_pointer (&self->model, g_free);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->event_common, g_free);
  g_clear_object (&self->event_generator);
  g_clear_pointer (&self->remembered_tools, g_hash_table_unref);
  g_clear_pointer (&self->panels, g_ptr_array_unref);
  g_clear_pointer (&self->calls, g_hash_table_unref);
  g_weak_ref_clear (&self->runner);
  g_clear_pointer (&self->pending_submits, g_hash_table_unref);
  g_clear_pointer (&self->watches, g_hash_table_unref);
  g_clear_pointer (&self->supervised, g_hash_table_unref);

  G_OBJECT_CLASS (zot_extension_manager_parent_class)->finalize (object);
}

static void
zot_extension_manager_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  ZotExtensionManager *self = ZOT_EXTENSION_MANAGER (object);

  switch (prop_id)
    {
    case ZOT_MANAGER_PROP_POLICY:
      g_value_set_enum (value, self->policy);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_extension_manager_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  ZotExtensionManager *self = ZOT_EXTENSION_MANAGER (object);

  switch (prop_id)
    {
    case ZOT_MANAGER_PROP_POLICY:
      zot_extension_manager_set_policy (self, g_value_get_enum (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_extension_manager_class_init (ZotExtensionManagerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_extension_manager_dispose;
  object_class->finalize = zot_extension_manager_finalize;
  object_class->get_property = zot_extension_manager_get_property;
  object_class->set_property = zot_extension_manager_set_property;

  /**
   * ZotExtensionManager:policy:
   *
   * Whether tool calls that need approval ask the user (%ZOT_APPROVAL_POLICY_ASK,
   * through #ZotExtensionManager::approval-requested) or run at once
   * (%ZOT_APPROVAL_POLICY_YOLO). Only the user changes it (the preferences,
   * `/yolo`, the window's toggle): no frame an extension sends can. It
   * matters in interactive hosts only; headless ones never ask.
   */
  _zot_manager_properties [ZOT_MANAGER_PROP_POLICY] =
    g_param_spec_enum ("policy", NULL, NULL,
                       ZOT_TYPE_APPROVAL_POLICY, ZOT_APPROVAL_POLICY_ASK,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, ZOT_MANAGER_N_PROPS, _zot_manager_properties);

  /**
   * ZotExtensionManager::note-added:
   * @self: the manager
   * @extension: who sent the note
   * @level: "info", "success", "warn" or "error"; an unknown or missing
   *   level arrives as "info"
   * @message: the note, as the extension wrote it
   *
   * An extension sent `notify` (PROTOCOL.md §8). The manager keeps no copy:
   * a view shows it now (the notes list, a toast, the transcript, stderr
   * in headless modes) or never. A `notify` without a message is logged
   * and not emitted.
   */
  _zot_manager_signals[ZOT_MANAGER_NOTE_ADDED] =
    g_signal_new ("note-added",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, ZOT_TYPE_EXTENSION, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * ZotExtensionManager::notes-cleared:
   * @self: the manager
   * @extension: who sent `clear_notes`
   *
   * The extension withdrew the notes it sent so far (PROTOCOL.md §8): a
   * view that lists notes drops those of @extension. Other extensions'
   * notes stay.
   */
  _zot_manager_signals[ZOT_MANAGER_NOTES_CLEARED] =
    g_signal_new ("notes-cleared",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_EXTENSION);

  /**
   * ZotExtensionManager::extension-state-changed:
   * @self: the manager
   * @extension: the extension whose #ZotExtension:state changed
   *
   * Emitted on every change of an extension's state, after the manager
   * has acted on it: command routes are resolved again, and an extension
   * that is stopping, exited or failed has had its panels closed and the
   * calls it was running cancelled. #ZotExtensionManager::tools-changed
   * follows. An extension that replaces another in the list (a reload)
   * shows up as #GListModel::items-changed instead, then with the states
   * of the new one.
   */
  _zot_manager_signals[ZOT_MANAGER_EXTENSION_STATE_CHANGED] =
    g_signal_new ("extension-state-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_EXTENSION);

  /**
   * ZotExtensionManager::extension-crashed:
   * @self: the manager
   * @extension: the extension that stopped unexpectedly
   * @message: for the user: its name, how its process ended and the path
   *   of its log; the same text as its #ZotExtension:last-error
   *
   * A ready extension stopped without the host asking it to: its process
   * ended, closed its output but kept running, or broke its channel. By
   * then it is %ZOT_EXTENSION_STATE_FAILED (so ::extension-state-changed
   * came first) and its pending requests have failed. An end before it
   * was ready (`ready`, or the registration deadline) is a
   * #ZotExtensionManager::load-failed instead; a stop the host asked for
   * is neither.
   */
  _zot_manager_signals[ZOT_MANAGER_EXTENSION_CRASHED] =
    g_signal_new ("extension-crashed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  /**
   * ZotExtensionManager::load-failed:
   * @self: the manager
   * @path: the extension directory
   * @message: why it did not load, for the user
   * @log_path: (nullable): its stderr log, when it got as far as having one
   *
   * An extension directory did not load: its manifest could not be read
   * or was invalid (@log_path is %NULL then), or its process failed to
   * start or to finish the handshake. Emitted by
   * zot_extension_manager_load_async() and by a reload of one extension;
   * an extension stopped while it was starting is no failure and is not
   * reported.
   */
  _zot_manager_signals[ZOT_MANAGER_LOAD_FAILED] =
    g_signal_new ("load-failed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * ZotExtensionManager::commands-changed:
   * @self: the manager
   *
   * The extension commands may have changed: the routes were resolved
   * again (conflicts decided by load order) after the list of extensions,
   * a state or a ready extension's registrations changed. Emitted often
   * and not only on a real change: a view reads the commands again with
   * zot_extension_manager_lookup_command() and the like, and may show a
   * command conflict in the extension's row.
   */
  _zot_manager_signals[ZOT_MANAGER_COMMANDS_CHANGED] =
    g_signal_new ("commands-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtensionManager::frame-traffic:
   * @self: the manager
   * @extension: whose frame
   * @direction: a #ZotFrameDirection: a line read from the extension, or
   *   one queued for it
   * @line: the raw line, without its newline
   *
   * Every line between the host and an extension, for the inspector's
   * trace. Emitted only after zot_extension_manager_set_trace_traffic()
   * turned it on, so that a host without an inspector pays nothing for it.
   * A handler that keeps @line copies it.
   */
  _zot_manager_signals[ZOT_MANAGER_FRAME_TRAFFIC] =
    g_signal_new ("frame-traffic",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, ZOT_TYPE_EXTENSION, G_TYPE_INT, G_TYPE_STRING);

  /**
   * ZotExtensionManager::lifecycle-event:
   * @self: the manager
   * @name: the event name (PROTOCOL.md §6)
   * @frame: the whole `event` frame, with its sequence, session id and cwd
   *
   * Every event zot_extension_manager_emit_event() numbers, after it was
   * queued for the extensions subscribed to it, whether or not any did:
   * the inspector's event list, and tests, watch the agent through it.
   * The frame is only built while a handler is connected. Handlers must
   * not change @frame.
   */
  _zot_manager_signals[ZOT_MANAGER_LIFECYCLE_EVENT] =
    g_signal_new ("lifecycle-event",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, JSON_TYPE_OBJECT);

  /**
   * ZotExtensionManager::panel-opened:
   * @self: the manager
   * @extension: the owner
   * @panel: the new panel, in zot_extension_manager_list_panels() already
   *
   * An extension opened a panel with an id it has no panel open by
   * (PROTOCOL.md §10), with `open_panel` on its own or as a command's
   * answer. A view gives it a page; the panel's own signals tell the rest.
   */
  _zot_manager_signals[ZOT_MANAGER_PANEL_OPENED] =
    g_signal_new ("panel-opened",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, ZOT_TYPE_PANEL);

  /**
   * ZotExtensionManager::panel-updated:
   * @self: the manager
   * @extension: the owner
   * @panel: the panel, with its new content already
   *
   * An open panel changed: the extension sent `open_panel` again with its
   * id, or `panel_render`. A view that has no page for @panel (it came
   * late) may open one now; one that has redraws from #ZotPanel::updated.
   */
  _zot_manager_signals[ZOT_MANAGER_PANEL_UPDATED] =
    g_signal_new ("panel-updated",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, ZOT_TYPE_PANEL);

  /**
   * ZotExtensionManager::panel-closed:
   * @self: the manager
   * @extension: (nullable): the owner, while it exists
   * @panel: the panel, closed from either side
   *
   * A panel closed: the user closed it (zot_panel_close()), the extension
   * sent `panel_close`, or the extension stopped. Emitted from the
   * manager's handler of #ZotPanel::closed, which carries the reason, so
   * possibly before other handlers of that signal ran; the panel is no
   * longer in zot_extension_manager_list_panels().
   */
  _zot_manager_signals[ZOT_MANAGER_PANEL_CLOSED] =
    g_signal_new ("panel-closed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, ZOT_TYPE_PANEL);

  /**
   * ZotExtensionManager::panel-waiting:
   * @self: the manager
   * @extension: the owner
   * @panel: the panel the user is expected in
   * @tool_id: the lifecycle `tool_id` of the interactive tool call that
   *   waits (the transcript's tool row)
   *
   * An extension with an interactive tool call running opened a panel
   * with `open_panel` (the call its `tool_call_id` names, else the newest
   * one): the call waits for the user there. The transcript can say so on
   * the tool's row and jump to the panel with `win.show-panel` and
   * zot_panel_get_key(). #ZotPanel:waiting-tool-id holds the same id.
   * Emitted after ::panel-opened or ::panel-updated, and not again while
   * the panel waits for the same call.
   */
  _zot_manager_signals[ZOT_MANAGER_PANEL_WAITING] =
    g_signal_new ("panel-waiting",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, ZOT_TYPE_EXTENSION, ZOT_TYPE_PANEL, G_TYPE_STRING);

  /**
   * ZotExtensionManager::tools-changed:
   * @self: the manager
   *
   * The set of extension tools may have changed: a ready extension
   * registered a tool, a command or a subscription, or an extension's
   * state changed. The host rebuilds its tool registry from
   * zot_extension_manager_list_tools(); like ::commands-changed, it is
   * emitted more often than the set changes.
   */
  _zot_manager_signals[ZOT_MANAGER_TOOLS_CHANGED] =
    g_signal_new ("tools-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtensionManager::warning:
   * @self: the manager
   * @extension: whose hook it was
   * @message: one translated line for the user
   *
   * Something an extension was trusted with did not happen, and the run
   * went on without it: an interceptor of `tool_call` or `tool_result`
   * that is gone (said once until the extension is ready again), or a
   * `before_agent_start` that failed or answered badly, so the system
   * prompt was kept. The same line is in the extension's log. Views show
   * it (the transcript, stderr in headless modes).
   */
  _zot_manager_signals[ZOT_MANAGER_WARNING] =
    g_signal_new ("warning",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  /**
   * ZotExtensionManager::approval-requested:
   * @self: the manager
   * @approval: the question; resolve it once, with zot_approval_resolve()
   *
   * A tool call waits for the user's yes or no: the host is interactive,
   * #ZotExtensionManager:policy is "ask", the tool needs approval and no
   * earlier answer covers it. `tool_confirmation_requested` went to the
   * extensions just before. The call runs or not when @approval is
   * resolved, from this handler or later; a run cancelled meanwhile ends
   * the wait without it. Not emitted when no handler is connected: the
   * call is denied then.
   *
   * Returns: %TRUE when a handler took the question and will resolve it;
   *   when none did and it is still unresolved, the call is denied
   *   because no one is there to confirm it
   */
  _zot_manager_signals[ZOT_MANAGER_APPROVAL_REQUESTED] =
    g_signal_new ("approval-requested",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, ZOT_TYPE_APPROVAL);

  /**
   * ZotExtensionManager::submit-requested:
   * @self: the manager
   * @extension: who sent `submit`
   * @text: the prompt, non-empty
   *
   * An extension asks for @text to be submitted as a user prompt, as if
   * typed (PROTOCOL.md §5a). A view that takes it (the window) submits it
   * with zot_host_submit_for_extension_async(), or else calls
   * zot_extension_manager_submit_done() once its message is in the
   * conversation or never will be; until then the extension's next
   * `submit` or `submit_slash` is refused. Not emitted for a `submit`
   * that is refused.
   *
   * Returns: %TRUE when a view took it; otherwise it is logged and ignored
   */
  _zot_manager_signals[ZOT_MANAGER_SUBMIT_REQUESTED] =
    g_signal_new ("submit-requested",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  /**
   * ZotExtensionManager::submit-slash-requested:
   * @self: the manager
   * @extension: who sent `submit_slash`
   * @command: "/name args": an extension command (never a built-in one),
   *   with the spelling it was registered with
   *
   * An extension asks for an extension command to run as if the user
   * typed it (PROTOCOL.md §5a); the window and RPC submit @command. A
   * view that takes it calls zot_extension_manager_submit_done() once the
   * command is over, with the model run its `prompt` answer started, if
   * any; until then the extension's next `submit` or `submit_slash` is
   * refused, so a burst of them cannot start a model run each. Not emitted
   * for a `submit_slash` that is refused (a built-in or unknown command).
   *
   * Returns: %TRUE when a view took it; otherwise it is logged and ignored
   */
  _zot_manager_signals[ZOT_MANAGER_SUBMIT_SLASH_REQUESTED] =
    g_signal_new ("submit-slash-requested",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  /**
   * ZotExtensionManager::extension-reloaded:
   * @self: the manager
   * @extension: the new extension in the old one's place (ready, or failed
   *   when it did not start, which ::load-failed said)
   * @reason: why: "watch" for a change of its files in watch mode
   *
   * One extension was stopped and started again on its own, the rest and
   * the conversation untouched: its commands and tools are registered
   * again and the host reruns `before_agent_start`. Its panels stayed,
   * #ZotPanel:reloaded, until the new process opens or renders them. A
   * lifecycle moment the inspector lists.
   */
  _zot_manager_signals[ZOT_MANAGER_EXTENSION_RELOADED] =
    g_signal_new ("extension-reloaded",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  _zot_manager_supervisor_class_init (object_class);
}

static void
zot_extension_manager_init (ZotExtensionManager *self)
{
  self->extensions = g_ptr_array_new_with_free_func (g_object_unref);
  self->untrusted = g_ptr_array_new_with_free_func ((GDestroyNotify) zot_discovered_free);
  self->routes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->cancellable = g_cancellable_new ();
  self->cwd = g_get_current_dir ();
  self->provider = g_strdup ("demo");
  self->model = g_strdup ("demo");
  self->session_id = g_uuid_string_random ();
  self->remembered_tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->panels = g_ptr_array_new_with_free_func (g_object_unref);
  self->calls = _zot_manager_calls_new ();
  g_weak_ref_init (&self->runner, NULL);
  self->pending_submits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->watches = _zot_manager_watches_new ();
  self->supervised = _zot_manager_supervised_new ();
}

ZotExtensionManager *
zot_extension_manager_new (void)
{
  return g_object_new (ZOT_TYPE_EXTENSION_MANAGER, NULL);
}

/* Tools */

/**
 * zot_extension_manager_list_tools:
 *
 * Returns: (transfer container) (element-type ZotTool): the tools of every
 *   ready extension, in load order
 */
GPtrArray *
zot_extension_manager_list_tools (ZotExtensionManager *self)
{
  GPtrArray *tools;

  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);

  tools = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);
      GPtrArray *own = zot_extension_get_tools (extension);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        continue;
      for (guint j = 0; j < own->len; j++)
        g_ptr_array_add (tools, g_object_ref (g_ptr_array_index (own, j)));
    }
  return tools;
}
