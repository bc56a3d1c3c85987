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

#include <fcntl.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "zot-discovery.h"
#include "zot-extension-manager-private.h"
#include "zot-extension-watch.h"
#include "zot-limits.h"
#include "zot-manifest.h"

/* The first line of a failed build's stderr quoted in its note, in bytes:
 * a character cut at the end is made valid when the line is read. */
#define BUILD_NOTE_LINE_MAX_BYTES 400

typedef struct
{
  ZotExtensionManager *manager;  /* unowned: the entry goes with it */
  char              *directory;
  ZotExtensionWatch *watch;
  GCancellable      *cancellable;
  guint              busy : 1;
  guint              again : 1;
} WatchEntry;

typedef struct
{
  WatchEntry    *entry;
  ZotExtension  *extension;
  GSubprocess   *process;
  GInputStream  *stderr_stream;
  GCancellable  *read_cancellable;
  GString       *first_line;
  GError        *error;
  char          *log_path;
  int            log_fd;
  guint          timeout_id;
  guint          drain_id;
  gulong         cancel_id;
  guint          pending;
  gboolean       timed_out;
  gboolean       line_done;
} Build;

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
build_free (Build *build)
{
  g_clear_handle_id (&build->timeout_id, g_source_remove);
  g_clear_handle_id (&build->drain_id, g_source_remove);
  g_cancellable_disconnect (build->entry->cancellable, build->cancel_id);
  if (build->log_fd >= 0)
    close (build->log_fd);
  g_clear_object (&build->extension);
  g_clear_object (&build->process);
  g_clear_object (&build->stderr_stream);
  g_clear_object (&build->read_cancellable);
  g_string_free (build->first_line, TRUE);
  g_clear_error (&build->error);
  g_free (build->log_path);
  entry_unref (build->entry);
  g_free (build);
}

static void
build_log (Build      *build,
           const char *data,
           gsize       length)
{
  if (build->log_fd >= 0 && write (build->log_fd, data, length) < 0)
    g_debug ("cannot write the build's output to %s", build->log_path);
}

/* Why the build failed, for the note; NULL when it succeeded. */
static char *
build_failure (Build *build)
{
  int status;

  if (build->error != NULL)
    return g_strdup (build->error->message);
  if (build->timed_out)
    /* Translators: why a build failed: it ran longer than this many milliseconds */
    return g_strdup_printf (_("no end after %u ms, stopped"), zot_timeout_get_ms (ZOT_TIMEOUT_BUILD));
  if (g_subprocess_get_if_signaled (build->process))
    /* Translators: why a build failed */
    return g_strdup_printf (_("killed by signal %d"), g_subprocess_get_term_sig (build->process));

  status = g_subprocess_get_exit_status (build->process);
  if (status == 0)
    return NULL;
  if (build->first_line->len > 0)
    return g_strdup (build->first_line->str);
  /* Translators: why a build failed: the number its program exited with */
  return g_strdup_printf (_("exit status %d"), status);
}

static void
build_finish (Build *build)
{
  WatchEntry *entry = build->entry;
  g_autofree char *failure = NULL;
  ZotExtension *extension;

  if (--build->pending > 0)
    return;

  zot_extension_watch_mute (entry->watch, FALSE);
  if (g_cancellable_is_cancelled (entry->cancellable))
    {
      build_free (build);
      return;
    }

  failure = build_failure (build);
  extension = find_by_directory (entry->manager, entry->directory);
  if (failure == NULL && extension != NULL)
    {
      zot_extension_log (extension, "watch: build succeeded; restarting");
      restart (entry, extension);
      build_free (build);
      return;
    }

  if (failure != NULL)
    {
      /* Translators: a note: why the build failed, then the path of its log */
      g_autofree char *text = g_strdup_printf (_("build failed: %s; see %s"), failure,
                                               build->log_path ? build->log_path : "-");
      post_note (entry, "error", text);
    }
  build_free (build);
  cycle_done (entry);
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  Build *build = user_data;

  /* Something the build started still holds its stderr: stop reading. */
  build->drain_id = 0;
  g_cancellable_cancel (build->read_cancellable);
  return G_SOURCE_REMOVE;
}

static void
keep_first_line (Build  *build,
                 GBytes *bytes)
{
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);

  for (gsize i = 0; i < length && !build->line_done; i++)
    {
      if (data[i] == '\n' || data[i] == '\r')
        {
          build->line_done = build->first_line->len > 0;
          continue;
        }
      if (build->first_line->len < BUILD_NOTE_LINE_MAX_BYTES)
        g_string_append_c (build->first_line, data[i]);
    }
}

static void read_stderr (Build *build);

static void
stderr_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Build *build = user_data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, NULL);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      g_clear_handle_id (&build->drain_id, g_source_remove);
      if (!g_utf8_validate_len (build->first_line->str, build->first_line->len, NULL))
        {
          g_autofree char *valid = g_utf8_make_valid (build->first_line->str, -1);
          g_string_assign (build->first_line, valid);
        }
      build_finish (build);
      return;
    }

  build_log (build, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  keep_first_line (build, bytes);
  read_stderr (build);
}

static void
read_stderr (Build *build)
{
  g_input_stream_read_bytes_async (build->stderr_stream, 4096, G_PRIORITY_DEFAULT,
                                   build->read_cancellable, stderr_read_cb, build);
}

static void
build_waited_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Build *build = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  g_clear_handle_id (&build->timeout_id, g_source_remove);
  if (build->pending > 1)
    build->drain_id = g_timeout_add (zot_timeout_get_ms (ZOT_TIMEOUT_EXIT_DRAIN), drain_timeout_cb, build);
  build_finish (build);
}

static gboolean
build_timeout_cb (gpointer user_data)
{
  Build *build = user_data;

  build->timeout_id = 0;
  build->timed_out = TRUE;
  g_subprocess_force_exit (build->process);
  return G_SOURCE_REMOVE;
}

static void
on_build_cancelled (GCancellable *cancellable,
                    Build        *build)
{
  if (build->process != NULL)
    g_subprocess_force_exit (build->process);
}

static void
run_build (WatchEntry         *entry,
           ZotExtension       *extension,
           const char * const *argv)
{
  Build *build = g_new0 (Build, 1);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autofree char *command = g_strjoinv (" ", (char **) argv);
  g_autofree char *header = NULL;
  const char *log_path = zot_extension_get_log_path (extension);

  build->entry = g_rc_box_acquire (entry);
  build->extension = g_object_ref (extension);
  build->first_line = g_string_new (NULL);
  build->read_cancellable = g_cancellable_new ();
  build->log_path = g_strdup (log_path);
  build->log_fd = log_path != NULL ? g_open (log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;

  header = g_strdup_printf ("\n=== %s: build: %s (in %s)\n", zot_extension_get_name (extension),
                            command, entry->directory);
  build_log (build, header, strlen (header));

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE |
                                        (build->log_fd < 0 ? G_SUBPROCESS_FLAGS_STDOUT_SILENCE : 0));
  g_subprocess_launcher_set_cwd (launcher, entry->directory);
  if (build->log_fd >= 0)
    g_subprocess_launcher_take_stdout_fd (launcher, dup (build->log_fd));

  /* The build's output is not a reason to reload. */
  zot_extension_watch_mute (entry->watch, TRUE);

  build->process = g_subprocess_launcher_spawnv (launcher, argv, &build->error);
  if (build->process == NULL)
    {
      build->pending = 1;
      build_finish (build);
      return;
    }

  build->cancel_id = g_cancellable_connect (entry->cancellable, G_CALLBACK (on_build_cancelled), build, NULL);
  build->stderr_stream = g_object_ref (g_subprocess_get_stderr_pipe (build->process));
  build->timeout_id = g_timeout_add (zot_timeout_get_ms (ZOT_TIMEOUT_BUILD), build_timeout_cb, build);
  build->pending = 2;
  read_stderr (build);
  g_subprocess_wait_async (build->process, NULL, build_waited_cb, build);
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
