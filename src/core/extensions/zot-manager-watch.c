/* zot-manager-watch.c — watch mode: an edit rebuilds and reloads one extension.
 *
 * A watched extension is known by its directory, because a reload
 * replaces its ZotExtension. When ZotExtensionWatch says a file changed,
 * the manifest's `build` runs (bounded by ZOT_BUILD_TIMEOUT_MS, its output
 * appended to the extension's log) and then the extension alone restarts
 * in its place in the load order; its panels stay, marked reloaded, for
 * the new process to take over. A failed build leaves the old process
 * running and posts a note saying why. A change during a reload is one
 * more reload after it; a change during a build is taken for the build's
 * own output and dropped, unless `watch` globs say it is a source
 * (docs/protocol.md "Watch mode").
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-discovery.h"
#include "zot-extension-box.h"
#include "zot-extension-build.h"
#include "zot-extension-manager-private.h"
#include "zot-extension-watch.h"
#include "zot-limits.h"
#include "zot-manifest.h"

typedef struct
{
  ZotExtensionManager *manager;  /* unowned: the entry goes with it */
  char              *directory;
  ZotExtensionWatch *watch;
  GCancellable      *cancellable;
  guint              busy : 1;
  guint              again : 1;
} WatchEntry;

static void start_cycle (WatchEntry *entry,
                         const char *path);

static void
entry_release (WatchEntry *entry)
{
  g_clear_pointer (&entry->directory, g_free);
  if (entry->watch != NULL)
    g_signal_handlers_disconnect_by_data (entry->watch, entry);
  g_clear_object (&entry->watch);
  g_clear_object (&entry->cancellable);
}

static void
entry_unref (gpointer data)
{
  g_rc_box_release_full (data, (GDestroyNotify) entry_release);
}

static void
entry_destroy (gpointer data)
{
  WatchEntry *entry = data;

  /* What is in flight sees the cancellation and leaves the entry alone. */
  g_cancellable_cancel (entry->cancellable);
  entry_unref (entry);
}

GHashTable *
_zot_manager_watches_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_destroy);
}

static GQuark
reloading_quark (void)
{
  return g_quark_from_static_string ("zot-manager-watch-reloading");
}

/* Whether @extension is stopping to be replaced in watch mode: its panels
 * then stay for the new process. */
gboolean
_zot_manager_is_reloading (ZotExtension *extension)
{
  return g_object_get_qdata (G_OBJECT (extension), reloading_quark ()) != NULL;
}

static ZotExtension *
find_by_directory (ZotExtensionManager *self,
                   const char          *directory)
{
  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);

      if (g_strcmp0 (zot_extension_get_directory (extension), directory) == 0)
        return extension;
    }
  return NULL;
}

static void
post_note (WatchEntry *entry,
           const char *level,
           const char *message)
{
  ZotExtension *extension = find_by_directory (entry->manager, entry->directory);

  if (extension == NULL)
    return;
  zot_extension_log (extension, "watch: %s", message);
  g_signal_emit (entry->manager, _zot_manager_signals[ZOT_MANAGER_NOTE_ADDED], 0,
                 extension, level, message);
}

static void
on_watch_capped (ZotExtensionWatch *watch,
                 const char        *path,
                 WatchEntry        *entry)
{
  /* Translators: a note: the number of directories, then the extension's directory */
  g_autofree char *text = g_strdup_printf (_("watching only the first %u directories of %s; "
                                             "changes elsewhere do not reload it (narrow it "
                                             "with \"watch\" in extension.json)"),
                                           (guint) ZOT_WATCH_MAX_DIRECTORIES, entry->directory);

  post_note (entry, "warn", text);
}

/* The end of one cycle: a change that came meanwhile starts the next. */
static void
cycle_done (WatchEntry *entry)
{
  entry->busy = FALSE;
  if (!entry->again)
    return;
  entry->again = FALSE;
  start_cycle (entry, NULL);
}

/* Restarting */

static void
restarted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  WatchEntry *entry = user_data;
  ZotExtensionManager *self = ZOT_EXTENSION_MANAGER (object);
  g_autoptr(GError) error = NULL;
  ZotExtension *fresh;

  zot_extension_manager_restart_finish (self, result, &error);
  if (g_cancellable_is_cancelled (entry->cancellable))
    {
      entry_unref (entry);
      return;
    }

  /* A failure to start was reported as ::load-failed by the restart. */
  fresh = find_by_directory (self, entry->directory);
  if (fresh != NULL)
    g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_EXTENSION_RELOADED], 0, fresh, "watch");

  cycle_done (entry);
  entry_unref (entry);
}

static void
restart (WatchEntry   *entry,
         ZotExtension *extension)
{
  g_object_set_qdata (G_OBJECT (extension), reloading_quark (), GINT_TO_POINTER (TRUE));
  zot_extension_manager_restart_async (entry->manager, extension, entry->cancellable,
                                       restarted_cb, g_rc_box_acquire (entry));
}

/* Building */

static void
built_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  WatchEntry *entry = user_data;
  g_autoptr(GError) error = NULL;
  ZotExtension *extension;

  zot_extension_build_finish (result, &error);
  zot_extension_watch_mute (entry->watch, FALSE);
  if (g_cancellable_is_cancelled (entry->cancellable))
    {
      entry_unref (entry);
      return;
    }

  extension = find_by_directory (entry->manager, entry->directory);
  if (error == NULL && extension != NULL)
    {
      zot_extension_log (extension, "watch: build succeeded; restarting");
      restart (entry, extension);
      entry_unref (entry);
      return;
    }

  if (error != NULL)
    {
      const char *log_path = extension != NULL ? zot_extension_get_log_path (extension) : NULL;
      /* Translators: a note: why the build failed, then the path of its log */
      g_autofree char *text = g_strdup_printf (_("build failed: %s; see %s"), error->message,
                                               log_path ? log_path : "-");
      post_note (entry, "error", text);
    }
  cycle_done (entry);
  entry_unref (entry);
}

static void
run_build (WatchEntry         *entry,
           ZotExtension       *extension,
           const char * const *argv)
{
  g_auto(GStrv) boxed = g_strdupv ((char **) argv);
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (0);
  g_autoptr(GError) error = NULL;

  /* A confined extension's build runs in its box (zot-extension-box.c). */
  if (!_zot_extension_box_wrap_build (extension, launcher, &boxed, &error))
    {
      /* Translators: a note: why the build could not start */
      g_autofree char *text = g_strdup_printf (_("build failed: %s"), error->message);

      post_note (entry, "error", text);
      cycle_done (entry);
      return;
    }
  /* The build's output is not a reason to reload. */
  zot_extension_watch_mute (entry->watch, TRUE);
  zot_extension_build_full_async (entry->directory, (const char * const *) boxed,
                                  launcher, argv, zot_extension_get_name (extension),
                                  zot_extension_get_log_path (extension), ZOT_TIMEOUT_BUILD,
                                  entry->cancellable, built_cb, g_rc_box_acquire (entry));
}

/* One cycle: build when the manifest says so, then restart. */
static void
start_cycle (WatchEntry *entry,
             const char *path)
{
  ZotExtension *extension = find_by_directory (entry->manager, entry->directory);
  g_autoptr(ZotManifest) manifest = NULL;
  const char * const *build;

  if (extension == NULL)
    return;

  entry->busy = TRUE;
  zot_extension_log (extension, "watch: %s changed; reloading", path ? path : "a file");

  /* The manifest may be what changed: its globs and build count now. */
  manifest = zot_manifest_new_for_directory (entry->directory, NULL);
  if (manifest != NULL)
    zot_extension_watch_set_globs (entry->watch, zot_manifest_get_watch (manifest),
                                   zot_manifest_get_watch_ignore (manifest));
  build = manifest != NULL ? zot_manifest_get_build (manifest) : NULL;

  if (build != NULL)
    run_build (entry, extension, build);
  else
    restart (entry, extension);
}

static void
on_watch_changed (ZotExtensionWatch *watch,
                  const char        *path,
                  WatchEntry        *entry)
{
  if (entry->busy)
    {
      entry->again = TRUE;
      return;
    }
  start_cycle (entry, path);
}

/* Public */

/**
 * zot_extension_manager_set_watched:
 * @extension: any extension of @self
 * @watched: whether an edit of its files reloads it
 *
 * Turns watch mode on or off for the extension in @extension's directory:
 * "Reload on change" in the window, and every `--ext` path with
 * `--watch`. It stays on across reloads of the extension.
 */
void
zot_extension_manager_set_watched (ZotExtensionManager *self,
                                   ZotExtension        *extension,
                                   gboolean             watched)
{
  const char *directory;
  g_autoptr(ZotManifest) manifest = NULL;
  WatchEntry *entry;

  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (ZOT_IS_EXTENSION (extension));

  directory = zot_extension_get_directory (extension);
  if (!watched)
    {
      g_hash_table_remove (self->watches, directory);
      return;
    }
  if (g_hash_table_contains (self->watches, directory))
    return;

  entry = g_rc_box_new0 (WatchEntry);
  entry->manager = self;
  entry->directory = g_strdup (directory);
  entry->cancellable = g_cancellable_new ();
  entry->watch = zot_extension_watch_new (directory);
  g_hash_table_insert (self->watches, g_strdup (directory), entry);

  manifest = zot_manifest_new_for_directory (directory, NULL);
  if (manifest != NULL)
    zot_extension_watch_set_globs (entry->watch, zot_manifest_get_watch (manifest),
                                   zot_manifest_get_watch_ignore (manifest));
  g_signal_connect (entry->watch, "changed", G_CALLBACK (on_watch_changed), entry);
  g_signal_connect (entry->watch, "capped", G_CALLBACK (on_watch_capped), entry);
  if (zot_extension_watch_is_capped (entry->watch))
    on_watch_capped (entry->watch, NULL, entry);
}

gboolean
zot_extension_manager_get_watched (ZotExtensionManager *self,
                                   ZotExtension        *extension)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), FALSE);
  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), FALSE);

  return g_hash_table_contains (self->watches, zot_extension_get_directory (extension));
}

/**
 * zot_extension_manager_set_watch_explicit:
 *
 * `--watch`: from the next load on, every explicit path (`--ext`) is
 * watched as zot_extension_manager_set_watched() does.
 */
void
zot_extension_manager_set_watch_explicit (ZotExtensionManager *self,
                                          gboolean             watch)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  self->watch_explicit = !!watch;
}

/* After a load: `--watch` covers the explicit paths found. */
void
_zot_manager_watch_loaded (ZotExtensionManager *self)
{
  if (!self->watch_explicit)
    return;

  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);

      if (zot_extension_get_scope (extension) == ZOT_EXTENSION_SCOPE_EXPLICIT &&
          zot_extension_get_directory (extension) != NULL)
        zot_extension_manager_set_watched (self, extension, TRUE);
    }
}
