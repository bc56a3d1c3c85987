/* zot-extension-watch.c — the files of one extension, watched for edits.
 *
 * GFileMonitor watches one directory, not its subdirectories, so this
 * keeps one monitor per directory of the extension, adding one when a
 * directory appears and dropping it when it goes, up to
 * ZOT_WATCH_MAX_DIRECTORIES. A burst of saves (an editor writes a temporary
 * file, renames it, touches the directory) is one ::changed, emitted once
 * ZOT_WATCH_DEBOUNCE_MS passed without another.
 *
 * What is never a reason to reload: version control, dependencies and
 * build output, editor swap and backup files, and what the manifest's
 * `watch_ignore` names; with `watch` globs, only the paths they match are.
 * docs/protocol.md "Watch mode" is the user's side of these rules.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include "zot-extension-watch.h"
#include "zot-limits.h"

struct _ZotExtensionWatch
{
  GObject     parent_instance;

  char       *directory;
  GHashTable *monitors;     /* relative directory ("" for the top) -> GFileMonitor */
  GPtrArray  *watch;        /* GPatternSpec, or NULL for every path */
  GPtrArray  *ignore;       /* GPatternSpec */
  GPtrArray  *burst;        /* paths changed since the debounce began, in order */
  GHashTable *created;      /* those of them that the burst created */
  guint       debounce_id;
  gint64      quiet_until;
  gboolean    muted;
  gboolean    capped;
};

enum {
  CHANGED,
  CAPPED,
  N_SIGNALS
};

static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotExtensionWatch, zot_extension_watch, G_TYPE_OBJECT)

/* Directories whose content is someone else's: version control,
 * dependencies, build output and caches. */
static const char * const ignored_directories[] = {
  ".git", ".hg", ".svn", "node_modules", "target", "build", "dist",
  "__pycache__", ".venv", ".mypy_cache", ".pytest_cache",
};

/* Files editors and interpreters write beside the real ones. */
static const char * const ignored_files[] = {
  "*.pyc", ".*.swp", ".*.swx", ".*.swo", "*~", ".#*", "#*#", "4913",
};

static gboolean
is_ignored_directory_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (ignored_directories); i++)
    if (g_str_equal (name, ignored_directories[i]))
      return TRUE;
  return FALSE;
}

static gboolean
matches_any (GPtrArray  *specs,
             const char *relative)
{
  for (guint i = 0; specs != NULL && i < specs->len; i++)
    if (g_pattern_spec_match_string (g_ptr_array_index (specs, i), relative))
      return TRUE;
  return FALSE;
}

/**
 * zot_extension_watch_is_ignored:
 * @relative: a path relative to the extension's directory, "/"-separated
 *
 * Returns: %TRUE when a change of @relative never reloads the extension
 */
gboolean
zot_extension_watch_is_ignored (ZotExtensionWatch *self,
                                const char        *relative)
{
  g_auto(GStrv) parts = NULL;
  guint n;

  g_return_val_if_fail (ZOT_IS_EXTENSION_WATCH (self), TRUE);
  g_return_val_if_fail (relative != NULL, TRUE);

  if (*relative == '\0')
    return TRUE;

  parts = g_strsplit (relative, "/", -1);
  n = g_strv_length (parts);
  for (guint i = 0; i + 1 < n; i++)
    if (is_ignored_directory_name (parts[i]))
      return TRUE;
  if (n > 0 && is_ignored_directory_name (parts[n - 1]))
    return TRUE;
  for (guint i = 0; n > 0 && i < G_N_ELEMENTS (ignored_files); i++)
    if (g_pattern_match_simple (ignored_files[i], parts[n - 1]))
      return TRUE;

  if (matches_any (self->ignore, relative))
    return TRUE;
  if (self->watch != NULL && !matches_any (self->watch, relative))
    return TRUE;
  return FALSE;
}

static char *
relative_path (ZotExtensionWatch *self,
               GFile             *file)
{
  g_autoptr(GFile) root = g_file_new_for_path (self->directory);
  char *relative;

  if (g_file_equal (root, file))
    return g_strdup ("");
  relative = g_file_get_relative_path (root, file);
  return relative;
}

static gboolean
debounce_cb (gpointer user_data)
{
  ZotExtensionWatch *self = user_data;
  g_autoptr(GPtrArray) burst = g_steal_pointer (&self->burst);
  g_autoptr(GHashTable) created = g_steal_pointer (&self->created);

  self->debounce_id = 0;
  self->burst = g_ptr_array_new_with_free_func (g_free);
  self->created = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  /* A file the burst created that is gone again was a temporary one (a
   * save by rename writes one and moves it over the real file): it is no
   * change. The file system says so even when the rename's event is
   * still on its way. */
  for (guint i = 0; i < burst->len; i++)
    {
      const char *path = g_ptr_array_index (burst, i);
      g_autofree char *absolute = g_build_filename (self->directory, path, NULL);

      if (g_hash_table_contains (created, path) && !g_file_test (absolute, G_FILE_TEST_EXISTS))
        continue;
      g_signal_emit (self, signals [CHANGED], 0, path);
      break;
    }
  return G_SOURCE_REMOVE;
}

static gboolean
str_equal (gconstpointer a,
           gconstpointer b)
{
  return g_str_equal (a, b);
}

/* @relative changed; @moved_away, when set, is a path that was renamed to
 * it and so never counts: a save by rename writes a temporary file and
 * moves it over the real one. */
static void
note_change (ZotExtensionWatch *self,
             const char        *relative,
             const char        *moved_away,
             gboolean           created)
{
  guint index;

  /* Without `watch` globs a build's output cannot be told from an edit;
   * with them, what they match is a source, which a build does not write. */
  if (self->watch == NULL && (self->muted || g_get_monotonic_time () < self->quiet_until))
    return;

  if (moved_away != NULL && g_ptr_array_find_with_equal_func (self->burst, moved_away, str_equal, &index))
    g_ptr_array_remove_index (self->burst, index);
  if (relative == NULL || zot_extension_watch_is_ignored (self, relative))
    {
      if (moved_away == NULL || self->debounce_id == 0)
        return;
    }
  else if (!g_ptr_array_find_with_equal_func (self->burst, relative, str_equal, NULL))
    {
      g_ptr_array_add (self->burst, g_strdup (relative));
      if (created)
        g_hash_table_add (self->created, g_strdup (relative));
    }

  g_clear_handle_id (&self->debounce_id, g_source_remove);
  self->debounce_id = g_timeout_add (zot_timeout_get_ms (ZOT_TIMEOUT_WATCH_DEBOUNCE), debounce_cb, self);
}

static void add_directory (ZotExtensionWatch *self,
                           const char        *relative);

static void
remove_directory (ZotExtensionWatch *self,
                  const char        *relative)
{
  g_autofree char *prefix = g_strconcat (relative, "/", NULL);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->monitors);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_str_equal (key, relative) || g_str_has_prefix (key, prefix))
      g_hash_table_iter_remove (&iter);
}

static void
on_monitor_changed (GFileMonitor      *monitor,
                    GFile             *file,
                    GFile             *other,
                    GFileMonitorEvent  event,
                    ZotExtensionWatch *self)
{
  g_autofree char *relative = relative_path (self, file);
  g_autofree char *other_relative = other != NULL ? relative_path (self, other) : NULL;

  if (relative == NULL)
    return;

  switch (event)
    {
    /* A directory is no change by itself, only the files in it are. */
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
      if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL) == G_FILE_TYPE_DIRECTORY)
        {
          add_directory (self, relative);
          return;
        }
      break;

    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
      if (g_hash_table_contains (self->monitors, relative))
        {
          remove_directory (self, relative);
          return;
        }
      break;

    case G_FILE_MONITOR_EVENT_RENAMED:
      remove_directory (self, relative);
      if (other_relative != NULL &&
          g_file_query_file_type (other, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL) == G_FILE_TYPE_DIRECTORY)
        add_directory (self, other_relative);
      break;

    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
      /* GLib follows a mkdir's CREATED with a CHANGES_DONE_HINT. */
      if (g_hash_table_contains (self->monitors, relative))
        return;
      break;

    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      return;
    }

  if (event == G_FILE_MONITOR_EVENT_RENAMED)
    note_change (self, other_relative, relative, FALSE);
  else
    note_change (self, relative, NULL, event == G_FILE_MONITOR_EVENT_CREATED ||
                                       event == G_FILE_MONITOR_EVENT_MOVED_IN);
}

/* Reading a directory is synchronous: an extension's own directory is
 * local and small, dependencies are skipped, and the number of
 * directories is capped. */
static void
add_directory (ZotExtensionWatch *self,
               const char        *relative)
{
  g_autofree char *path = g_build_filename (self->directory, relative, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GFileMonitor) monitor = NULL;
  g_autofree char *base = g_path_get_basename (path);

  if (*relative != '\0' && is_ignored_directory_name (base))
    return;
  if (g_hash_table_contains (self->monitors, relative))
    return;

  if (g_hash_table_size (self->monitors) >= ZOT_WATCH_MAX_DIRECTORIES)
    {
      if (!self->capped)
        {
          self->capped = TRUE;
          g_signal_emit (self, signals [CAPPED], 0, relative);
        }
      return;
    }

  monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);
  if (monitor == NULL)
    return;
  g_signal_connect (monitor, "changed", G_CALLBACK (on_monitor_changed), self);
  g_hash_table_insert (self->monitors, g_strdup (relative), g_steal_pointer (&monitor));

  children = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  while (children != NULL)
    {
      GFileInfo *info = NULL;
      g_autofree char *child = NULL;

      if (!g_file_enumerator_iterate (children, &info, NULL, NULL, NULL) || info == NULL)
        break;
      if (g_file_info_get_file_type (info) != G_FILE_TYPE_DIRECTORY)
        continue;
      child = *relative == '\0' ? g_strdup (g_file_info_get_name (info))
                                : g_strconcat (relative, "/", g_file_info_get_name (info), NULL);
      add_directory (self, child);
    }
}

static void
monitor_free (gpointer data)
{
  GFileMonitor *monitor = data;

  g_signal_handlers_disconnect_matched (monitor, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, on_monitor_changed, NULL);
  g_file_monitor_cancel (monitor);
  g_object_unref (monitor);
}

static GPtrArray *
compile_globs (const char * const *globs)
{
  GPtrArray *specs;

  if (globs == NULL)
    return NULL;
  specs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_pattern_spec_free);
  for (guint i = 0; globs[i] != NULL; i++)
    g_ptr_array_add (specs, g_pattern_spec_new (globs[i]));
  return specs;
}

/**
 * zot_extension_watch_set_globs:
 * @watch: (nullable): the manifest's `watch`: only paths matching one reload
 * @ignore: (nullable): the manifest's `watch_ignore`: paths that never do
 *
 * Globs are GLib patterns (`*` and `?`, where `*` crosses `/`) matched
 * against the path relative to the extension's directory.
 */
void
zot_extension_watch_set_globs (ZotExtensionWatch  *self,
                               const char * const *watch,
                               const char * const *ignore)
{
  g_return_if_fail (ZOT_IS_EXTENSION_WATCH (self));

  g_clear_pointer (&self->watch, g_ptr_array_unref);
  g_clear_pointer (&self->ignore, g_ptr_array_unref);
  self->watch = compile_globs (watch);
  self->ignore = compile_globs (ignore);
}

/**
 * zot_extension_watch_mute:
 *
 * While muted (a build runs), changes are the build's own output and are
 * dropped, and so are those that arrive within one debounce after it;
 * unless the manifest has `watch` globs, which name sources: a change of
 * one of them then counts, as one more reload after the current one.
 */
void
zot_extension_watch_mute (ZotExtensionWatch *self,
                          gboolean           muted)
{
  g_return_if_fail (ZOT_IS_EXTENSION_WATCH (self));

  self->muted = !!muted;
  if (muted && self->watch == NULL)
    {
      g_clear_handle_id (&self->debounce_id, g_source_remove);
      g_ptr_array_set_size (self->burst, 0);
      g_hash_table_remove_all (self->created);
    }
  else
    self->quiet_until = g_get_monotonic_time () +
                        (gint64) zot_timeout_get_ms (ZOT_TIMEOUT_WATCH_DEBOUNCE) * G_TIME_SPAN_MILLISECOND;
}

guint
zot_extension_watch_get_n_directories (ZotExtensionWatch *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_WATCH (self), 0);
  return g_hash_table_size (self->monitors);
}

gboolean
zot_extension_watch_is_capped (ZotExtensionWatch *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_WATCH (self), FALSE);
  return self->capped;
}

const char *
zot_extension_watch_get_directory (ZotExtensionWatch *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_WATCH (self), NULL);
  return self->directory;
}

static void
zot_extension_watch_dispose (GObject *object)
{
  ZotExtensionWatch *self = (ZotExtensionWatch *)object;

  g_clear_handle_id (&self->debounce_id, g_source_remove);
  if (self->monitors != NULL)
    g_hash_table_remove_all (self->monitors);

  G_OBJECT_CLASS (zot_extension_watch_parent_class)->dispose (object);
}

static void
zot_extension_watch_finalize (GObject *object)
{
  ZotExtensionWatch *self = (ZotExtensionWatch *)object;

  g_clear_pointer (&self->directory, g_free);
  g_clear_pointer (&self->monitors, g_hash_table_unref);
  g_clear_pointer (&self->watch, g_ptr_array_unref);
  g_clear_pointer (&self->ignore, g_ptr_array_unref);
  g_clear_pointer (&self->burst, g_ptr_array_unref);
  g_clear_pointer (&self->created, g_hash_table_unref);

  G_OBJECT_CLASS (zot_extension_watch_parent_class)->finalize (object);
}

static void
zot_extension_watch_class_init (ZotExtensionWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_extension_watch_dispose;
  object_class->finalize = zot_extension_watch_finalize;

  /**
   * ZotExtensionWatch::changed:
   * @path: the first path that changed in the burst, relative to the
   *   extension's directory
   *
   * A file that counts changed, and no other did for a debounce since.
   */
  signals [CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotExtensionWatch::capped:
   * @path: the first directory left unwatched, relative
   *
   * The extension has more than ZOT_WATCH_MAX_DIRECTORIES directories:
   * the rest are not watched. Emitted once.
   */
  signals [CAPPED] =
    g_signal_new ("capped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
zot_extension_watch_init (ZotExtensionWatch *self)
{
  self->monitors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, monitor_free);
  self->burst = g_ptr_array_new_with_free_func (g_free);
  self->created = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * zot_extension_watch_new:
 * @directory: the extension's directory, absolute
 *
 * Starts watching @directory and its subdirectories at once. A capped
 * tree is only known after connecting to ::capped, so see
 * zot_extension_watch_is_capped() too.
 */
ZotExtensionWatch *
zot_extension_watch_new (const char *directory)
{
  ZotExtensionWatch *self;

  g_return_val_if_fail (directory != NULL, NULL);

  self = g_object_new (ZOT_TYPE_EXTENSION_WATCH, NULL);
  self->directory = g_canonicalize_filename (directory, NULL);
  add_directory (self, "");
  return self;
}
