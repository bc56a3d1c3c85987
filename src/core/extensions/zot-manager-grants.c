/* zot-manager-grants.c — project extensions waiting for the user's trust.
 *
 * A project's extension that is not trusted there is listed in the state
 * "needs approval" and not started. Trust may be given in the window or in
 * a terminal (`zot ext trust`) while zot runs: the grants folder is
 * watched, and each waiting extension the grants now let start is
 * restarted in its place, without a reload.
 */
#define G_LOG_DOMAIN "zot-extensions"

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "zot-extension-manager-private.h"
#include "zot-extension-private.h"
#include "zot-grants.h"
#include "zot-paths.h"

#define GRANTS_WATCH_KEY "zot-grants-watch"
#define TRUST_RESTART_KEY "zot-trust-restarting"

typedef struct
{
  ZotExtensionManager *manager;   /* unowned: the watch is the manager's data */
  GFileMonitor        *monitor;
  guint                idle_id;
} GrantsWatch;

static void
grants_watch_free (GrantsWatch *watch)
{
  g_clear_handle_id (&watch->idle_id, g_source_remove);
  if (watch->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (watch->monitor, watch);
      g_file_monitor_cancel (watch->monitor);
    }
  g_clear_object (&watch->monitor);
  g_free (watch);
}

/**
 * _zot_manager_refresh_untrusted:
 *
 * Lists again the extensions waiting for approval, in load order, for
 * zot_extension_manager_get_untrusted().
 */
void
_zot_manager_refresh_untrusted (ZotExtensionManager *self)
{
  g_ptr_array_set_size (self->untrusted, 0);
  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);
      ZotDiscovered *entry;

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_NEEDS_APPROVAL)
        continue;
      entry = g_new0 (ZotDiscovered, 1);
      entry->directory = g_strdup (zot_extension_get_directory (extension));
      entry->scope = zot_extension_get_scope (extension);
      entry->manifest = g_object_ref (zot_extension_get_manifest (extension));
      g_ptr_array_add (self->untrusted, entry);
    }
}

static void
trusted_restarted_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  /* A failure to start is the manager's load-failed, reported already. */
  zot_extension_manager_restart_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
}

/**
 * zot_extension_manager_start_trusted:
 *
 * Starts, each in its place, the extensions waiting for approval that the
 * grants now let start; the others keep waiting. Called when the grants
 * folder changes, and by whoever just trusted some.
 */
void
zot_extension_manager_start_trusted (ZotExtensionManager *self)
{
  g_autoptr(GPtrArray) ready = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));

  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);

      if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_NEEDS_APPROVAL &&
          g_object_get_data (G_OBJECT (extension), TRUST_RESTART_KEY) == NULL &&
          zot_grants_may_start (zot_extension_get_directory (extension), zot_extension_get_scope (extension),
                                zot_extension_get_manifest (extension)))
        g_ptr_array_add (ready, g_object_ref (extension));
    }
  for (guint i = 0; i < ready->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (ready, i);

      g_object_set_data (G_OBJECT (extension), TRUST_RESTART_KEY, GINT_TO_POINTER (TRUE));
      zot_extension_log (extension, "trusted in this project: starting");
      zot_extension_manager_restart_async (self, extension, self->cancellable, trusted_restarted_cb, NULL);
    }
}

static gboolean
recheck_idle_cb (gpointer user_data)
{
  GrantsWatch *watch = user_data;

  watch->idle_id = 0;
  zot_extension_manager_start_trusted (watch->manager);
  return G_SOURCE_REMOVE;
}

/* A grant is written to a temporary file and renamed: several events,
 * one look at the extensions. */
static void
on_grants_changed (GFileMonitor      *monitor,
                   GFile             *file,
                   GFile             *other,
                   GFileMonitorEvent  event,
                   gpointer           user_data)
{
  GrantsWatch *watch = user_data;

  if (watch->idle_id == 0)
    watch->idle_id = g_idle_add (recheck_idle_cb, watch);
}

/**
 * _zot_manager_watch_grants:
 *
 * Starts watching the grants folder once something waits for approval.
 */
void
_zot_manager_watch_grants (ZotExtensionManager *self)
{
  g_autofree char *home = NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  GrantsWatch *watch;

  if (self->untrusted->len == 0 || g_object_get_data (G_OBJECT (self), GRANTS_WATCH_KEY) != NULL)
    return;

  home = zot_paths_get_home ();
  folder = g_build_filename (home, "grants", NULL);
  /* A folder that does not exist yet is watched only by polling. */
  if (g_mkdir_with_parents (folder, 0700) != 0)
    return;
  file = g_file_new_for_path (folder);
  watch = g_new0 (GrantsWatch, 1);
  watch->manager = self;
  watch->monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (watch->monitor == NULL)
    {
      g_warning ("%s: %s; trust given elsewhere takes effect at the next start", folder, error->message);
      grants_watch_free (watch);
      return;
    }
  g_signal_connect (watch->monitor, "changed", G_CALLBACK (on_grants_changed), watch);
  g_object_set_data_full (G_OBJECT (self), GRANTS_WATCH_KEY, watch, (GDestroyNotify) grants_watch_free);
}
