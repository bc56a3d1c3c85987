/* zot-manager-load.c — the set of extensions and its load order.
 *
 * Discovery decides the order (explicit paths first, then the project's
 * and the user's extensions; the first of a name wins); every extension
 * then starts at once, stops with the shutdown ladder, and can be
 * restarted in its place in the order.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-discovery.h"
#include "zot-grants.h"
#include "zot-error.h"
#include "zot-extension-manager-private.h"
#include "zot-extension-private.h"
#include "zot-limits.h"

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
  /* Every mode runs the tools extensions ask for (PROTOCOL.md §5). */
  json_array_add_string_element (caps, "call_tool");
  if (self->continuous)
    json_array_add_string_element (caps, "call_tool_durable");
  /* What the window can do; headless hosts offer none of it. */
  if (self->interactive)
    {
      json_array_add_string_element (caps, "panels");
      json_array_add_string_element (caps, "interactive_tools");
      json_array_add_string_element (caps, "panel_widgets");
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

  if (discovered->manifest != NULL &&
      !zot_grants_may_start (discovered->directory, discovered->scope, discovered->manifest))
    {
      g_autoptr(GError) error = zot_grants_approval_error (discovered->directory, discovered->manifest);

      /* Listed with its manifest, so what it asks for can be shown. */
      extension = zot_extension_new (discovered->manifest, discovered->scope, hello_ack);
      _zot_extension_set_state (extension, ZOT_EXTENSION_STATE_NEEDS_APPROVAL);
      _zot_extension_set_last_error (extension, error->message);
    }
  else if (discovered->manifest != NULL)
    extension = zot_extension_new (discovered->manifest, discovered->scope, hello_ack);
  else
    extension = zot_extension_new_failed (discovered->directory, discovered->scope, discovered->error);

  _zot_manager_connect_extension (self, extension);
  return extension;
}

/* Starting */

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

/* One line for all of them, so a headless run says it once; the window
 * offers to trust the same list through zot_extension_manager_get_untrusted(). */
static void
warn_untrusted (ZotExtensionManager *self)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *message = NULL;

  for (guint i = 0; i < self->untrusted->len; i++)
    {
      ZotDiscovered *entry = g_ptr_array_index (self->untrusted, i);

      g_string_append_printf (names, "%s%s", names->len > 0 ? ", " : "",
                              zot_manifest_get_name (entry->manifest));
    }
  if (names->len == 0)
    return;
  /* Translators: the names of the extensions of this project that were not started */
  message = g_strdup_printf (_("project extensions not started until trusted: %s; "
                               "run `zot ext trust` in the project folder"), names->str);
  g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_WARNING], 0, NULL, message);
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
  _zot_manager_refresh_untrusted (self);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, old_len, self->extensions->len);
  _zot_manager_invalidate_routes (self);
  _zot_manager_watch_loaded (self);

  for (guint i = 0; i < discovered->len; i++)
    {
      ZotDiscovered *entry = g_ptr_array_index (discovered, i);

      if (entry->error != NULL)
        g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_LOAD_FAILED], 0,
                       entry->directory, entry->error->message, NULL);
    }
  warn_untrusted (self);
  _zot_manager_watch_grants (self);

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

/**
 * zot_extension_manager_get_untrusted:
 *
 * Returns: (transfer none) (element-type ZotDiscovered): the project
 *   extensions the last load left unstarted because they are not trusted
 *   in this project
 */
GPtrArray *
zot_extension_manager_get_untrusted (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);

  return self->untrusted;
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
  _zot_manager_supervisor_stop (self, TRUE);

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
  _zot_manager_supervisor_stop (self, FALSE);

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
  _zot_manager_refresh_untrusted (self);
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
 * order, leaving the others running. Unless the supervisor itself asks,
 * its count of crashes starts again (a Restart after it gave up).
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
  _zot_manager_supervisor_forget (self, extension);

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
