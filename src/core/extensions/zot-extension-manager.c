/* zot-extension-manager.c — every extension of one host, in load order.
 *
 * The manager is a GListModel of ZotExtension so that views can bind to it.
 * Every "first" of the protocol (command conflicts, and later interceptor
 * chains) is decided by the position in this list, never by the time at
 * which frames arrive from processes started concurrently.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-discovery.h"
#include "zot-error.h"
#include "zot-extension-manager-private.h"
#include "zot-extension-private.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-panel.h"

guint _zot_manager_signals [ZOT_MANAGER_N_SIGNALS];

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

  /* A panel cannot outlive its extension. */
  if (state == ZOT_EXTENSION_STATE_FAILED || state == ZOT_EXTENSION_STATE_EXITED ||
      state == ZOT_EXTENSION_STATE_STOPPING)
    {
      g_autofree char *reason = g_strdup_printf (_("%s stopped; its panels were closed"),
                                                 zot_extension_get_name (extension));
      _zot_manager_close_panels_of (self, extension, reason);
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

/* Frames the extension leaves to the manager */

static gboolean
on_extension_unhandled_frame (ZotExtension        *extension,
                              JsonObject          *frame,
                              ZotExtensionManager *self)
{
  const char *type = json_object_get_string_member (frame, "type");

  if (g_str_equal (type, "panel_render") || g_str_equal (type, "panel_close"))
    {
      const char *id = zot_json_get_string_or (frame, "panel_id", NULL);
      ZotPanel *panel = id ? _zot_manager_find_panel (self, extension, id) : NULL;

      if (panel == NULL)
        {
          zot_extension_log (extension, "%s for unknown panel \"%s\", ignored", type, id ? id : "(none)");
          return TRUE;
        }

      if (g_str_equal (type, "panel_close"))
        _zot_panel_closed_by_extension (panel, NULL);
      else
        {
          zot_panel_update (panel, frame);
          g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_PANEL_UPDATED], 0,
                         extension, panel);
        }
      return TRUE;
    }

  if (g_str_equal (type, "call_tool"))
    {
      /* Every call_tool request gets exactly one terminal result, even from
       * a host that does not offer the capability. */
      g_autoptr(JsonObject) reply = json_object_new ();
      g_autoptr(JsonArray) content = json_array_new ();
      g_autoptr(JsonObject) text = json_object_new ();
      const char *id = zot_json_get_string_or (frame, "id", NULL);
      const char *name = zot_json_get_string_or (frame, "name", "");

      if (id == NULL)
        {
          zot_extension_log (extension, "call_tool without an \"id\", ignored");
          return TRUE;
        }

      json_object_set_string_member (text, "type", "text");
      json_object_set_string_member (text, "text",
                                     "call_tool is refused: this host did not advertise call_tool in hello_ack");
      json_array_add_object_element (content, g_steal_pointer (&text));
      json_object_set_string_member (reply, "type", "tool_result");
      json_object_set_string_member (reply, "id", id);
      json_object_set_string_member (reply, "name", name);
      json_object_set_array_member (reply, "content", g_steal_pointer (&content));
      json_object_set_boolean_member (reply, "is_error", TRUE);
      zot_extension_log (extension, "call_tool \"%s\" refused: not advertised by this host", name);
      zot_extension_notify (extension, reply, NULL);
      return TRUE;
    }

  return FALSE;
}

static void
connect_extension (ZotExtensionManager *self,
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

static JsonObject *
build_hello_ack (ZotExtensionManager *self)
{
  JsonObject *ack = json_object_new ();
  g_autoptr(JsonArray) caps = json_array_new ();

  json_object_set_string_member (ack, "type", "hello_ack");
  json_object_set_int_member (ack, "protocol_version", ZOT_PROTOCOL_VERSION);
  json_object_set_string_member (ack, "zot_version", PACKAGE_VERSION);
  json_object_set_string_member (ack, "provider", self->provider);
  json_object_set_string_member (ack, "model", self->model);
  json_object_set_string_member (ack, "cwd", self->cwd);
  /* What the window can do; headless hosts offer none of it. */
  if (self->interactive)
    {
      json_array_add_string_element (caps, "panels");
      json_array_add_string_element (caps, "interactive_tools");
    }
  json_object_set_array_member (ack, "capabilities", g_steal_pointer (&caps));

  return ack;
}

static ZotExtension *
create_extension (ZotExtensionManager *self,
                  ZotDiscovered       *discovered,
                  JsonObject          *hello_ack)
{
  ZotExtension *extension;

  if (discovered->manifest != NULL)
    extension = zot_extension_new (discovered->manifest, discovered->scope, hello_ack);
  else
    extension = zot_extension_new_failed (discovered->directory, discovered->scope, discovered->error);

  connect_extension (self, extension);
  return extension;
}

/* Loading */

typedef struct
{
  guint outstanding;
} LoadData;

static void
report_load_failure (ZotExtensionManager *self,
                     ZotExtension        *extension,
                     const GError        *error)
{
  const char *log_path = zot_extension_get_log_path (extension);

  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_LOAD_FAILED], 0,
                 zot_extension_get_directory (extension),
                 error->message,
                 log_path);
}

static void
load_one_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ZotExtension *extension = ZOT_EXTENSION (object);
  g_autoptr(GTask) task = user_data;
  ZotExtensionManager *self = g_task_get_source_object (task);
  LoadData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (!g_async_initable_init_finish (G_ASYNC_INITABLE (extension), result, &error))
    {
      /* A stop during startup is not a load failure worth reporting. */
      if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_FAILED &&
          g_ptr_array_find (self->extensions, extension, NULL))
        report_load_failure (self, extension, error);
    }

  if (--data->outstanding == 0)
    g_task_return_boolean (task, TRUE);
}

static void
start_extensions (ZotExtensionManager *self,
                  GTask               *task,
                  GPtrArray           *extensions)
{
  LoadData *data = g_new0 (LoadData, 1);

  g_task_set_task_data (task, data, g_free);

  /* Everything starts at once: total startup is the slowest extension. */
  data->outstanding = 1;
  for (guint i = 0; i < extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (extensions, i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_STARTING)
        continue;

      data->outstanding++;
      g_async_initable_init_async (G_ASYNC_INITABLE (extension),
                                   G_PRIORITY_DEFAULT,
                                   NULL,
                                   load_one_cb,
                                   g_object_ref (task));
    }

  if (--data->outstanding == 0)
    g_task_return_boolean (task, TRUE);
}

/**
 * zot_extension_manager_load_async:
 *
 * Discovers the extensions, lists them all (broken and disabled ones
 * included) and starts the enabled ones concurrently. Completes when every
 * one is ready or has failed; failures are reported through
 * #ZotExtensionManager::load-failed, never as an error of the whole load.
 */
void
zot_extension_manager_load_async (ZotExtensionManager *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) discovered = NULL;
  g_autoptr(JsonObject) hello_ack = NULL;
  g_autoptr(GPtrArray) fresh = NULL;
  guint old_len;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_load_async);

  discovered = zot_discover_extensions (self->cwd,
                                        (const char * const *) self->explicit_paths,
                                        self->no_ext);
  hello_ack = build_hello_ack (self);
  fresh = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < discovered->len; i++)
    g_ptr_array_add (fresh, create_extension (self, g_ptr_array_index (discovered, i), hello_ack));

  old_len = self->extensions->len;
  g_ptr_array_set_size (self->extensions, 0);
  for (guint i = 0; i < fresh->len; i++)
    g_ptr_array_add (self->extensions, g_object_ref (g_ptr_array_index (fresh, i)));
  g_list_model_items_changed (G_LIST_MODEL (self), 0, old_len, self->extensions->len);
  _zot_manager_invalidate_routes (self);

  for (guint i = 0; i < discovered->len; i++)
    {
      ZotDiscovered *entry = g_ptr_array_index (discovered, i);

      if (entry->error != NULL)
        g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_LOAD_FAILED], 0,
                       entry->directory, entry->error->message, NULL);
    }

  start_extensions (self, task, fresh);
}

gboolean
zot_extension_manager_load_finish (ZotExtensionManager  *self,
                                   GAsyncResult         *result,
                                   GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Stopping */

static void
stop_one_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  LoadData *data = g_task_get_task_data (task);

  zot_extension_stop_finish (ZOT_EXTENSION (object), result, NULL);

  if (--data->outstanding == 0)
    g_task_return_boolean (task, TRUE);
}

static void
stop_all (ZotExtensionManager *self,
          GPtrArray           *extensions,
          GTask               *task)
{
  LoadData *data = g_new0 (LoadData, 1);

  g_task_set_task_data (task, data, g_free);

  data->outstanding = 1;
  for (guint i = 0; i < extensions->len; i++)
    {
      data->outstanding++;
      zot_extension_stop_async (g_ptr_array_index (extensions, i), NULL,
                                stop_one_cb, g_object_ref (task));
    }

  if (--data->outstanding == 0)
    g_task_return_boolean (task, TRUE);
}

/**
 * zot_extension_manager_shutdown_async:
 *
 * Stops every extension concurrently with the shutdown ladder. Never fails.
 */
void
zot_extension_manager_shutdown_async (ZotExtensionManager *self,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_shutdown_async);

  stop_all (self, self->extensions, task);
}

gboolean
zot_extension_manager_shutdown_finish (ZotExtensionManager  *self,
                                       GAsyncResult         *result,
                                       GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
reload_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
reload_stopped_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotExtensionManager *self = g_task_get_source_object (task);

  zot_extension_manager_load_async (self, g_task_get_cancellable (task),
                                    reload_loaded_cb, g_object_ref (task));
}

/**
 * zot_extension_manager_reload_async:
 *
 * Stops every extension, discovers again (explicit paths included) and
 * starts them: what `/reload-ext` does.
 */
void
zot_extension_manager_reload_async (ZotExtensionManager *self,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) stop = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_reload_async);

  stop = g_task_new (self, NULL, reload_stopped_cb, g_object_ref (task));
  stop_all (self, self->extensions, stop);
}

gboolean
zot_extension_manager_reload_finish (ZotExtensionManager  *self,
                                     GAsyncResult         *result,
                                     GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
restart_started_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotExtensionManager *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!g_async_initable_init_finish (G_ASYNC_INITABLE (object), result, &error))
    {
      if (g_ptr_array_find (self->extensions, object, NULL))
        report_load_failure (self, ZOT_EXTENSION (object), error);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_task_return_boolean (task, TRUE);
}

static void
restart_stopped_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ZotExtensionManager *self = g_task_get_source_object (task);
  ZotExtension *old = ZOT_EXTENSION (object);
  g_autoptr(ZotDiscovered) discovered = g_new0 (ZotDiscovered, 1);
  g_autoptr(JsonObject) hello_ack = NULL;
  g_autoptr(ZotExtension) fresh = NULL;
  guint position;

  zot_extension_stop_finish (old, result, NULL);

  if (!g_ptr_array_find (self->extensions, old, &position))
    {
      g_task_return_new_error (task, ZOT_PROTOCOL_ERROR, ZOT_PROTOCOL_ERROR_NOT_READY,
                               _("%s was unloaded while restarting"), zot_extension_get_name (old));
      return;
    }

  /* Read the manifest again: restarting is how an edit takes effect. */
  discovered->directory = g_strdup (zot_extension_get_directory (old));
  discovered->scope = zot_extension_get_scope (old);
  discovered->manifest = zot_manifest_new_for_directory (discovered->directory, &discovered->error);

  hello_ack = build_hello_ack (self);
  fresh = create_extension (self, discovered, hello_ack);

  g_ptr_array_index (self->extensions, position) = g_object_ref (fresh);
  g_object_unref (old);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
  _zot_manager_invalidate_routes (self);

  if (discovered->error != NULL)
    {
      g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_LOAD_FAILED], 0,
                     discovered->directory, discovered->error->message, NULL);
      g_task_return_error (task, g_error_copy (discovered->error));
      return;
    }

  if (zot_extension_get_state (fresh) != ZOT_EXTENSION_STATE_STARTING)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  g_async_initable_init_async (G_ASYNC_INITABLE (fresh), G_PRIORITY_DEFAULT, NULL,
                               restart_started_cb, g_object_ref (task));
}

/**
 * zot_extension_manager_restart_async:
 *
 * Stops one extension and starts it again in the same place of the load
 * order, leaving the others running.
 */
void
zot_extension_manager_restart_async (ZotExtensionManager *self,
                                     ZotExtension        *extension,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (ZOT_IS_EXTENSION (extension));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_extension_manager_restart_async);

  zot_extension_stop_async (extension, NULL, restart_stopped_cb, g_steal_pointer (&task));
}

gboolean
zot_extension_manager_restart_finish (ZotExtensionManager  *self,
                                      GAsyncResult         *result,
                                      GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
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

  if (self->routes != NULL)
    g_hash_table_remove_all (self->routes);

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

  G_OBJECT_CLASS (zot_extension_manager_parent_class)->finalize (object);
}

static void
zot_extension_manager_class_init (ZotExtensionManagerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_extension_manager_dispose;
  object_class->finalize = zot_extension_manager_finalize;

  /**
   * ZotExtensionManager::note-added:
   * @extension: who pushed it
   * @level: "info", "success", "warn" or "error"
   * @message: the note
   */
  _zot_manager_signals[ZOT_MANAGER_NOTE_ADDED] =
    g_signal_new ("note-added",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, ZOT_TYPE_EXTENSION, G_TYPE_STRING, G_TYPE_STRING);

  _zot_manager_signals[ZOT_MANAGER_NOTES_CLEARED] =
    g_signal_new ("notes-cleared",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_EXTENSION);

  _zot_manager_signals[ZOT_MANAGER_DISPLAY] =
    g_signal_new ("display",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  _zot_manager_signals[ZOT_MANAGER_INSERT] =
    g_signal_new ("insert",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  /**
   * ZotExtensionManager::prompt:
   * @extension: the extension whose command answered `prompt`
   * @text: the user message to submit
   *
   * The agent, when there is one, queues @text as a user turn.
   */
  _zot_manager_signals[ZOT_MANAGER_PROMPT] =
    g_signal_new ("prompt",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  _zot_manager_signals[ZOT_MANAGER_EXTENSION_STATE_CHANGED] =
    g_signal_new ("extension-state-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, ZOT_TYPE_EXTENSION);

  /**
   * ZotExtensionManager::extension-crashed:
   * @extension: the extension that stopped unexpectedly
   * @message: what happened, with the log path
   */
  _zot_manager_signals[ZOT_MANAGER_EXTENSION_CRASHED] =
    g_signal_new ("extension-crashed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  /**
   * ZotExtensionManager::load-failed:
   * @path: the extension directory
   * @message: why it did not load
   * @log_path: (nullable): its stderr log, when it got as far as having one
   */
  _zot_manager_signals[ZOT_MANAGER_LOAD_FAILED] =
    g_signal_new ("load-failed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);

  _zot_manager_signals[ZOT_MANAGER_COMMANDS_CHANGED] =
    g_signal_new ("commands-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtensionManager::frame-traffic:
   * @extension: whose frame
   * @direction: a #ZotFrameDirection
   * @line: the raw line
   *
   * Emitted only after zot_extension_manager_set_trace_traffic().
   */
  _zot_manager_signals[ZOT_MANAGER_FRAME_TRAFFIC] =
    g_signal_new ("frame-traffic",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, ZOT_TYPE_EXTENSION, G_TYPE_INT, G_TYPE_STRING);

  /**
   * ZotExtensionManager::lifecycle-event:
   * @name: the event name
   * @frame: the whole `event` frame, with its sequence
   *
   * Every event as it is emitted, whether or not an extension subscribed.
   */
  _zot_manager_signals[ZOT_MANAGER_LIFECYCLE_EVENT] =
    g_signal_new ("lifecycle-event",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, JSON_TYPE_OBJECT);

  /**
   * ZotExtensionManager::panel-opened:
   * @extension: the owner
   * @panel: the new panel
   */
  _zot_manager_signals[ZOT_MANAGER_PANEL_OPENED] =
    g_signal_new ("panel-opened",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, ZOT_TYPE_PANEL);

  _zot_manager_signals[ZOT_MANAGER_PANEL_UPDATED] =
    g_signal_new ("panel-updated",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, ZOT_TYPE_PANEL);

  /**
   * ZotExtensionManager::panel-closed:
   * @extension: (nullable): the owner, while it exists
   * @panel: the panel, closed from either side
   */
  _zot_manager_signals[ZOT_MANAGER_PANEL_CLOSED] =
    g_signal_new ("panel-closed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, ZOT_TYPE_PANEL);

  /**
   * ZotExtensionManager::tool-prompt:
   * @extension: whose command answered `tool_prompt`
   * @prompt: the user message to append
   * @tool_name: the tool to run first
   * @tool_args: its arguments
   *
   * Interactive hosts only; the host runs it through the agent.
   */
  _zot_manager_signals[ZOT_MANAGER_TOOL_PROMPT] =
    g_signal_new ("tool-prompt",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 4, ZOT_TYPE_EXTENSION, G_TYPE_STRING, G_TYPE_STRING, JSON_TYPE_OBJECT);

  /**
   * ZotExtensionManager::tools-changed:
   *
   * The set of extension tools may have changed: rebuild registries.
   */
  _zot_manager_signals[ZOT_MANAGER_TOOLS_CHANGED] =
    g_signal_new ("tools-changed",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotExtensionManager::warning:
   * @extension: (nullable): whose doing
   * @message: for the user: a hook that failed, a prompt kept
   */
  _zot_manager_signals[ZOT_MANAGER_WARNING] =
    g_signal_new ("warning",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);

  /**
   * ZotExtensionManager::approval-requested:
   * @approval: the question; resolve it once
   *
   * Returns: %TRUE when a view took the question
   */
  _zot_manager_signals[ZOT_MANAGER_APPROVAL_REQUESTED] =
    g_signal_new ("approval-requested",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1, ZOT_TYPE_APPROVAL);
}

static void
zot_extension_manager_init (ZotExtensionManager *self)
{
  self->extensions = g_ptr_array_new_with_free_func (g_object_unref);
  self->routes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->cancellable = g_cancellable_new ();
  self->cwd = g_get_current_dir ();
  self->provider = g_strdup ("demo");
  self->model = g_strdup ("demo");
  self->session_id = g_uuid_string_random ();
  self->remembered_tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->panels = g_ptr_array_new_with_free_func (g_object_unref);
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
