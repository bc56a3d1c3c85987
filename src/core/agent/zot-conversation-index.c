/* zot-conversation-index.c — the stored conversations of a directory.
 *
 * The index keeps what it last read of every file (size, time, title) in
 * a cache, and a scan on a worker thread reads again only the files that
 * changed, then hands back the whole list, sorted. The list model is
 * changed only where the new list differs from the old, so a view keeps
 * its place and selection while another process appends to a session.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "zot-conversation-edit.h"
#include "zot-conversation-index.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-session.h"
#include "zot-session-reader.h"

#define TITLE_SUFFIX ".title"

struct _ZotConversationIndex
{
  GObject              parent_instance;

  char                *directory;
  char                *cwd;           /* canonical */
  GPtrArray           *items;         /* ZotConversation, in order */
  GHashTable          *cache;         /* path → CacheEntry */
  GFileMonitor        *monitor;
  GCancellable        *cancellable;
  guint                rescan_source;
  ZotConversationSort  sort;
  gboolean             scanning;
  gboolean             scan_again;
};

enum {
  PROP_0,
  PROP_LOADING,
  PROP_SORT,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (ZotConversationIndex, zot_conversation_index, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

/* What a scan knew of a file; a file it left out (another cwd's, or not a
 * session) has no conversation, so that it is not read again either. */
typedef struct
{
  gint64           mtime_ns;
  guint64          size;
  gint64           title_mtime_ns;   /* -1: no title file */
  ZotConversation *conversation;     /* nullable */
} CacheEntry;

static void
cache_entry_free (gpointer data)
{
  CacheEntry *entry = data;

  g_clear_object (&entry->conversation);
  g_free (entry);
}

static GHashTable *
cache_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cache_entry_free);
}

static GHashTable *
cache_copy (GHashTable *cache)
{
  GHashTable *copy = cache_new ();
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, cache);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      CacheEntry *entry = g_memdup2 (value, sizeof (CacheEntry));

      if (entry->conversation != NULL)
        g_object_ref (entry->conversation);
      g_hash_table_insert (copy, g_strdup (key), entry);
    }

  return copy;
}

/* Reading files */

/* The first @max_bytes of @path (fewer if it is shorter), nul-terminated. */
static char *
read_prefix (const char *path,
             gsize       max_bytes,
             gsize      *length)
{
  g_autofree char *data = NULL;
  gsize got = 0;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return NULL;

  data = g_malloc (max_bytes + 1);
  while (got < max_bytes)
    {
      ssize_t n = read (fd, data + got, max_bytes - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (gsize) n;
    }
  close (fd);

  data[got] = '\0';
  *length = got;
  return g_steal_pointer (&data);
}

/**
 * zot_conversation_make_title:
 * @text: (nullable): a prompt, or a name the user typed
 *
 * Returns: (transfer full) (nullable): its first non-empty line, trimmed,
 *   as valid UTF-8, cut to %ZOT_CONVERSATION_TITLE_MAX_CHARS characters
 *   (the last one an ellipsis when cut); %NULL when there is no such line
 */
char *
zot_conversation_make_title (const char *text)
{
  g_auto(GStrv) lines = NULL;
  g_autofree char *valid = NULL;

  if (text == NULL)
    return NULL;

  valid = g_utf8_make_valid (text, -1);
  lines = g_strsplit (valid, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      g_autofree char *cut = NULL;

      if (*line == '\0')
        continue;
      if (g_utf8_strlen (line, -1) <= ZOT_CONVERSATION_TITLE_MAX_CHARS)
        return g_strdup (line);

      cut = g_utf8_substring (line, 0, ZOT_CONVERSATION_TITLE_MAX_CHARS - 1);
      return g_strconcat (g_strchomp (cut), "…", NULL);
    }

  return NULL;
}

/* The name the user gave the conversation of @path, if any. */
static char *
read_title_file (const char *title_path)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  contents = read_prefix (title_path, ZOT_CONVERSATION_TITLE_FILE_MAX_BYTES, &length);
  return zot_conversation_make_title (contents);
}

static gboolean
header_cwd_matches (JsonObject *header,
                    const char *cwd)
{
  const char *header_cwd = zot_json_get_string (header, "cwd");

  return header_cwd == NULL || cwd == NULL || g_str_equal (header_cwd, cwd);
}

/* The header, and the first prompt, of a session within its first
 * ZOT_CONVERSATION_HEAD_BYTES, read as loading reads them: a line the
 * head cuts is torn. FALSE when the file belongs to another directory
 * that happens to share the key. */
static gboolean
read_head (const char  *path,
           const char  *cwd,
           char       **id,
           char       **title,
           char       **forked_from)
{
  g_autofree char *head = NULL;
  gsize length = 0;
  ZotSessionReader reader;
  gboolean first = TRUE;

  head = read_prefix (path, ZOT_CONVERSATION_HEAD_BYTES, &length);
  if (head == NULL)
    return FALSE;

  zot_session_reader_init (&reader, head, length);
  while (*title == NULL)
    {
      g_autoptr(JsonObject) entry = NULL;
      ZotSessionRead read = zot_session_reader_next (&reader, &entry, NULL, NULL);
      JsonObject *message;
      g_autofree char *text = NULL;

      if (read == ZOT_SESSION_READ_END || read == ZOT_SESSION_READ_TORN)
        break;
      if (first)
        {
          first = FALSE;
          if (read == ZOT_SESSION_READ_BAD)
            continue;
          if (!g_str_equal (json_object_get_string_member (entry, "type"), "session"))
            return TRUE;
          if (!header_cwd_matches (entry, cwd))
            return FALSE;
          *id = g_strdup (zot_json_get_string (entry, "id"));
          zot_session_fork_read (entry, forked_from, NULL, NULL);
          continue;
        }
      if (read == ZOT_SESSION_READ_BAD ||
          !g_str_equal (json_object_get_string_member (entry, "type"), "message"))
        continue;

      /* A valid message entry holds a message object. */
      message = json_object_get_object_member (entry, "message");
      if (g_strcmp0 (zot_message_get_role (message), "user") != 0 ||
          json_object_get_boolean_member_with_default (message, "summary", FALSE))
        continue;
      text = zot_message_get_text (message);
      *title = zot_conversation_make_title (text);
    }

  return TRUE;
}

static gint64
stat_mtime_ns (const struct stat *st)
{
  return (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec;
}

/* Scanning */

typedef struct
{
  char                *directory;
  char                *cwd;
  GHashTable          *cache;     /* in: the last scan's; out: this one's */
  GPtrArray           *items;     /* out */
  ZotConversationSort  sort;
} Scan;

static void
scan_free (gpointer data)
{
  Scan *scan = data;

  g_free (scan->directory);
  g_free (scan->cwd);
  g_clear_pointer (&scan->cache, g_hash_table_unref);
  g_clear_pointer (&scan->items, g_ptr_array_unref);
  g_free (scan);
}

static int
compare_modified (ZotConversation *x,
                  ZotConversation *y)
{
  gint64 a = zot_conversation_get_modified (x);
  gint64 b = zot_conversation_get_modified (y);

  if (a != b)
    return a > b ? -1 : 1;
  /* Ids sort by time: the greater name is the newer conversation. */
  return -strcmp (zot_conversation_get_path (x), zot_conversation_get_path (y));
}

static int
compare_newest (gconstpointer a,
                gconstpointer b)
{
  return compare_modified (*(ZotConversation * const *) a, *(ZotConversation * const *) b);
}

static int
compare_largest (gconstpointer a,
                 gconstpointer b)
{
  ZotConversation *x = *(ZotConversation * const *) a;
  ZotConversation *y = *(ZotConversation * const *) b;
  guint64 sx = zot_conversation_get_size (x);
  guint64 sy = zot_conversation_get_size (y);

  if (sx != sy)
    return sx > sy ? -1 : 1;
  return compare_modified (x, y);
}

static void
sort_items (GPtrArray           *items,
            ZotConversationSort  sort)
{
  g_ptr_array_sort (items, sort == ZOT_CONVERSATION_SORT_SIZE ? compare_largest : compare_newest);
  zot_conversation_group_forks (items);
}

static void
scan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Scan *scan = task_data;
  g_autoptr(GHashTable) cache = cache_new ();
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GDir) dir = g_dir_open (scan->directory, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *title_path = NULL;
      CacheEntry *old;
      CacheEntry *entry;
      struct stat st;
      struct stat title_st;

      if (g_cancellable_is_cancelled (cancellable))
        break;
      if (!g_str_has_suffix (name, ".jsonl"))
        continue;

      path = g_build_filename (scan->directory, name, NULL);
      if (lstat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
        continue;

      title_path = zot_conversation_title_path_for (path);
      entry = g_new0 (CacheEntry, 1);
      entry->mtime_ns = stat_mtime_ns (&st);
      entry->size = (guint64) st.st_size;
      entry->title_mtime_ns = lstat (title_path, &title_st) == 0 ? stat_mtime_ns (&title_st) : -1;

      old = g_hash_table_lookup (scan->cache, path);
      if (old != NULL && old->mtime_ns == entry->mtime_ns && old->size == entry->size &&
          old->title_mtime_ns == entry->title_mtime_ns)
        entry->conversation = old->conversation != NULL ? g_object_ref (old->conversation) : NULL;
      else
        {
          g_autofree char *id = NULL;
          g_autofree char *first_prompt = NULL;
          g_autofree char *given = NULL;
          g_autofree char *forked_from = NULL;

          if (read_head (path, scan->cwd, &id, &first_prompt, &forked_from))
            {
              if (entry->title_mtime_ns >= 0)
                given = read_title_file (title_path);
              entry->conversation = zot_conversation_new (path, id,
                                                          given != NULL ? given : first_prompt,
                                                          given != NULL,
                                                          entry->mtime_ns / 1000,
                                                          entry->size);
              zot_conversation_set_forked_from (entry->conversation, forked_from);
            }
        }

      if (entry->conversation != NULL)
        g_ptr_array_add (items, g_object_ref (entry->conversation));
      g_hash_table_insert (cache, g_steal_pointer (&path), entry);
    }

  sort_items (items, scan->sort);
  if (items->len > ZOT_CONVERSATION_MAX_FILES)
    g_ptr_array_set_size (items, ZOT_CONVERSATION_MAX_FILES);

  g_hash_table_unref (scan->cache);
  scan->cache = g_steal_pointer (&cache);
  scan->items = g_steal_pointer (&items);
  g_task_return_boolean (task, TRUE);
}

/* Puts @items in place of the list, changing only the run between the
 * longest common start and end. */
static void
replace_items (ZotConversationIndex *self,
               GPtrArray            *items)
{
  guint old_len = self->items->len;
  guint new_len = items->len;
  guint start = 0;
  guint tail = 0;

  while (start < old_len && start < new_len &&
         g_ptr_array_index (self->items, start) == g_ptr_array_index (items, start))
    start++;
  while (tail < old_len - start && tail < new_len - start &&
         g_ptr_array_index (self->items, old_len - 1 - tail) == g_ptr_array_index (items, new_len - 1 - tail))
    tail++;

  if (start == old_len && start == new_len)
    return;

  g_ptr_array_remove_range (self->items, start, old_len - start - tail);
  for (guint i = 0; i < new_len - start - tail; i++)
    g_ptr_array_insert (self->items, (int) (start + i), g_object_ref (g_ptr_array_index (items, start + i)));

  g_list_model_items_changed (G_LIST_MODEL (self), start, old_len - start - tail, new_len - start - tail);
}

static void start_scan (ZotConversationIndex *self);

static void
set_loading (ZotConversationIndex *self,
             gboolean              loading)
{
  if (self->scanning == loading)
    return;

  self->scanning = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOADING]);
}

static void
scanned_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(ZotConversationIndex) self = user_data;
  Scan *scan = g_task_get_task_data (G_TASK (result));

  if (!g_task_propagate_boolean (G_TASK (result), NULL))
    return;
  if (g_cancellable_is_cancelled (self->cancellable))
    return;

  g_clear_pointer (&self->cache, g_hash_table_unref);
  self->cache = g_steal_pointer (&scan->cache);

  /* The order asked for may have changed while the scan ran. */
  if (scan->sort != self->sort)
    sort_items (scan->items, self->sort);
  replace_items (self, scan->items);

  if (self->scan_again)
    {
      self->scan_again = FALSE;
      self->scanning = FALSE;
      start_scan (self);
      return;
    }

  set_loading (self, FALSE);
}

static void
start_scan (ZotConversationIndex *self)
{
  g_autoptr(GTask) task = NULL;
  Scan *scan;

  if (self->scanning)
    {
      self->scan_again = TRUE;
      return;
    }

  scan = g_new0 (Scan, 1);
  scan->directory = g_strdup (self->directory);
  scan->cwd = g_strdup (self->cwd);
  scan->cache = cache_copy (self->cache);
  scan->sort = self->sort;

  /* Not the task's source object: the worker thread lets go of the task
   * whenever it likes, and the index is the callback's, to let go of there. */
  task = g_task_new (NULL, self->cancellable, scanned_cb, g_object_ref (self));
  g_task_set_source_tag (task, start_scan);
  g_task_set_task_data (task, scan, scan_free);
  g_task_set_return_on_cancel (task, FALSE);
  set_loading (self, TRUE);
  g_task_run_in_thread (task, scan_thread);
}

static gboolean
rescan_cb (gpointer user_data)
{
  ZotConversationIndex *self = user_data;

  self->rescan_source = 0;
  start_scan (self);
  return G_SOURCE_REMOVE;
}

static void
on_monitor_changed_cb (GFileMonitor      *monitor,
                       GFile             *file,
                       GFile             *other_file,
                       GFileMonitorEvent  event,
                       gpointer           user_data)
{
  ZotConversationIndex *self = user_data;
  g_autofree char *name = g_file_get_basename (file);

  if (!g_str_has_suffix (name, ".jsonl") && !g_str_has_suffix (name, TITLE_SUFFIX) &&
      other_file == NULL)
    return;

  if (self->rescan_source == 0)
    self->rescan_source = g_timeout_add (ZOT_CONVERSATION_RESCAN_DELAY_MS, rescan_cb, self);
}

/* GListModel */

static GType
list_model_get_item_type (GListModel *model)
{
  return ZOT_TYPE_CONVERSATION;
}

static guint
list_model_get_n_items (GListModel *model)
{
  return ZOT_CONVERSATION_INDEX (model)->items->len;
}

static gpointer
list_model_get_item (GListModel *model,
                     guint       position)
{
  ZotConversationIndex *self = ZOT_CONVERSATION_INDEX (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = list_model_get_item_type;
  iface->get_n_items = list_model_get_n_items;
  iface->get_item = list_model_get_item;
}

/* GObject */

static void
zot_conversation_index_dispose (GObject *object)
{
  ZotConversationIndex *self = ZOT_CONVERSATION_INDEX (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->rescan_source, g_source_remove);
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }

  G_OBJECT_CLASS (zot_conversation_index_parent_class)->dispose (object);
}

static void
zot_conversation_index_finalize (GObject *object)
{
  ZotConversationIndex *self = ZOT_CONVERSATION_INDEX (object);

  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->cache, g_hash_table_unref);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->directory, g_free);
  g_clear_pointer (&self->cwd, g_free);

  G_OBJECT_CLASS (zot_conversation_index_parent_class)->finalize (object);
}

static void
zot_conversation_index_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  ZotConversationIndex *self = ZOT_CONVERSATION_INDEX (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, self->scanning);
      break;

    case PROP_SORT:
      g_value_set_int (value, self->sort);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_conversation_index_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  ZotConversationIndex *self = ZOT_CONVERSATION_INDEX (object);

  switch (prop_id)
    {
    case PROP_SORT:
      zot_conversation_index_set_sort (self, g_value_get_int (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_conversation_index_class_init (ZotConversationIndexClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = zot_conversation_index_dispose;
  object_class->finalize = zot_conversation_index_finalize;
  object_class->get_property = zot_conversation_index_get_property;
  object_class->set_property = zot_conversation_index_set_property;

  /**
   * ZotConversationIndex:loading:
   *
   * Whether the directory is being read; the list is whole when it is not.
   */
  properties [PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * ZotConversationIndex:sort:
   *
   * A #ZotConversationSort: newest first, or largest first.
   */
  properties [PROP_SORT] =
    g_param_spec_int ("sort", NULL, NULL,
                      ZOT_CONVERSATION_SORT_MODIFIED, ZOT_CONVERSATION_SORT_SIZE, ZOT_CONVERSATION_SORT_MODIFIED,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
zot_conversation_index_init (ZotConversationIndex *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->cache = cache_new ();
  self->cancellable = g_cancellable_new ();
}

/* API */

/**
 * zot_conversation_index_new:
 * @cwd: (nullable): a working directory; %NULL for the current one
 *
 * Starts reading @cwd's conversations and following their directory.
 *
 * Returns: (transfer full): a #GListModel of #ZotConversation
 */
ZotConversationIndex *
zot_conversation_index_new (const char *cwd)
{
  ZotConversationIndex *self = g_object_new (ZOT_TYPE_CONVERSATION_INDEX, NULL);
  g_autoptr(GFile) directory = NULL;
  g_autoptr(GError) error = NULL;

  self->directory = zot_session_get_directory_for_cwd (cwd);
  self->cwd = zot_paths_canonicalize (cwd);

  /* GIO watches a directory that does not exist yet for it to appear. */
  directory = g_file_new_for_path (self->directory);
  self->monitor = g_file_monitor_directory (directory, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor != NULL)
    g_signal_connect (self->monitor, "changed", G_CALLBACK (on_monitor_changed_cb), self);
  else
    g_debug ("not following %s: %s", self->directory, error->message);

  start_scan (self);
  return self;
}

const char *
zot_conversation_index_get_directory (ZotConversationIndex *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_INDEX (self), NULL);
  return self->directory;
}

gboolean
zot_conversation_index_get_loading (ZotConversationIndex *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_INDEX (self), FALSE);
  return self->scanning;
}

ZotConversationSort
zot_conversation_index_get_sort (ZotConversationIndex *self)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_INDEX (self), ZOT_CONVERSATION_SORT_MODIFIED);
  return self->sort;
}

void
zot_conversation_index_set_sort (ZotConversationIndex *self,
                                 ZotConversationSort   sort)
{
  g_autoptr(GPtrArray) items = NULL;

  g_return_if_fail (ZOT_IS_CONVERSATION_INDEX (self));
  g_return_if_fail (sort == ZOT_CONVERSATION_SORT_MODIFIED || sort == ZOT_CONVERSATION_SORT_SIZE);

  if (self->sort == sort)
    return;

  self->sort = sort;
  items = g_ptr_array_copy (self->items, (GCopyFunc) (void (*) (void)) g_object_ref, NULL);
  g_ptr_array_set_free_func (items, g_object_unref);
  sort_items (items, sort);
  replace_items (self, items);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SORT]);
}

/**
 * zot_conversation_index_reload:
 *
 * Reads the directory again (the files that changed), as a change to it
 * does by itself; #ZotConversationIndex:loading says when it is done.
 */
void
zot_conversation_index_reload (ZotConversationIndex *self)
{
  g_return_if_fail (ZOT_IS_CONVERSATION_INDEX (self));

  g_clear_handle_id (&self->rescan_source, g_source_remove);
  start_scan (self);
}

/**
 * zot_conversation_index_lookup:
 * @path: a session file
 *
 * Returns: (transfer none) (nullable): the conversation listed for @path
 */
ZotConversation *
zot_conversation_index_lookup (ZotConversationIndex *self,
                               const char           *path)
{
  g_return_val_if_fail (ZOT_IS_CONVERSATION_INDEX (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  for (guint i = 0; i < self->items->len; i++)
    {
      ZotConversation *conversation = g_ptr_array_index (self->items, i);

      if (g_str_equal (zot_conversation_get_path (conversation), path))
        return conversation;
    }

  return NULL;
}

/* Renaming */

static void
title_written_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  gboolean done;

  if (G_IS_FILE (object) && g_task_get_task_data (task) != NULL)
    done = g_file_replace_contents_finish (G_FILE (object), result, NULL, &error);
  else
    {
      done = g_file_delete_finish (G_FILE (object), result, &error);
      /* No name to take back: the title was the first prompt already. */
      if (!done && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          done = TRUE;
          g_clear_error (&error);
        }
    }

  if (!done)
    {
      g_autofree char *path = g_file_get_path (G_FILE (object));

      g_task_return_new_error (task, error->domain, error->code,
                               _("cannot rename the conversation (writing %s): %s"), path, error->message);
      return;
    }

  zot_conversation_index_reload (g_task_get_source_object (task));
  g_task_return_boolean (task, TRUE);
}

/**
 * zot_conversation_index_rename_async:
 * @conversation: a conversation of the index
 * @title: (nullable): its new name; %NULL or blank for its first prompt again
 *
 * Keeps @title (made a title by zot_conversation_make_title()) in the
 * conversation's title file, and reads the directory again.
 */
void
zot_conversation_index_rename_async (ZotConversationIndex *self,
                                     ZotConversation      *conversation,
                                     const char           *title,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *title_path = NULL;
  g_autofree char *clean = NULL;
  g_autoptr(GFile) file = NULL;

  g_return_if_fail (ZOT_IS_CONVERSATION_INDEX (self));
  g_return_if_fail (ZOT_IS_CONVERSATION (conversation));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_conversation_index_rename_async);

  title_path = zot_conversation_get_title_path (conversation);
  file = g_file_new_for_path (title_path);
  clean = zot_conversation_make_title (title);
  if (clean == NULL)
    {
      g_file_delete_async (file, G_PRIORITY_DEFAULT, cancellable, title_written_cb, g_steal_pointer (&task));
      return;
    }

  {
    g_autofree char *line = g_strconcat (clean, "\n", NULL);
    gsize length = strlen (line);
    GBytes *bytes = g_bytes_new_take (g_steal_pointer (&line), length);

    /* The bytes live as long as the task. */
    g_task_set_task_data (task, bytes, (GDestroyNotify) g_bytes_unref);
    g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE, G_FILE_CREATE_NONE, cancellable,
                                         title_written_cb, g_steal_pointer (&task));
  }
}

gboolean
zot_conversation_index_rename_finish (ZotConversationIndex  *self,
                                      GAsyncResult          *result,
                                      GError               **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Deleting */

static void
title_file_deleted_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  /* The name goes with the conversation; one that is not there is fine. */
  g_file_delete_finish (G_FILE (object), result, NULL);
  zot_conversation_index_reload (g_task_get_source_object (task));
  g_task_return_boolean (task, TRUE);
}

static void
trashed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_file_get_path (G_FILE (object));
  g_autofree char *title_path = NULL;
  g_autoptr(GFile) title_file = NULL;
  GCancellable *cancellable;

  if (!g_file_trash_finish (G_FILE (object), result, &error))
    {
      g_task_return_new_error (task, error->domain, error->code,
                               _("cannot move the conversation %s to the trash: %s"), path, error->message);
      return;
    }

  title_path = zot_conversation_title_path_for (path);
  title_file = g_file_new_for_path (title_path);
  cancellable = g_task_get_cancellable (task);
  g_file_delete_async (title_file, G_PRIORITY_DEFAULT, cancellable, title_file_deleted_cb, g_steal_pointer (&task));
}

/**
 * zot_conversation_index_trash_async:
 * @conversation: a conversation of the index
 *
 * Moves the conversation's session file to the trash (it can be taken
 * back from there), deletes its title file, and reads the directory again.
 */
void
zot_conversation_index_trash_async (ZotConversationIndex *self,
                                    ZotConversation      *conversation,
                                    GCancellable         *cancellable,
                                    GAsyncReadyCallback   callback,
                                    gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GFile) file = NULL;

  g_return_if_fail (ZOT_IS_CONVERSATION_INDEX (self));
  g_return_if_fail (ZOT_IS_CONVERSATION (conversation));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_conversation_index_trash_async);

  file = g_file_new_for_path (zot_conversation_get_path (conversation));
  g_file_trash_async (file, G_PRIORITY_DEFAULT, cancellable, trashed_cb, g_steal_pointer (&task));
}

gboolean
zot_conversation_index_trash_finish (ZotConversationIndex  *self,
                                     GAsyncResult          *result,
                                     GError               **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Searching */

typedef struct
{
  char      *needle;     /* casefolded */
  gboolean   ascii;      /* a raw look at a line can rule it out */
  GPtrArray *paths;      /* char * */
  GPtrArray *titles;     /* char *, nullable, the same order */
} Search;

static void
search_free (gpointer data)
{
  Search *search = data;

  g_free (search->needle);
  g_ptr_array_unref (search->paths);
  g_ptr_array_unref (search->titles);
  g_free (search);
}

static gboolean
text_matches (const char *text,
              const char *needle)
{
  g_autofree char *folded = NULL;

  if (text == NULL)
    return FALSE;
  folded = g_utf8_casefold (text, -1);
  return strstr (folded, needle) != NULL;
}

/* Whether any "text" string in @node (a message, or part of one) has
 * @needle: its text, and the text of tool results within it. */
static gboolean
node_matches (JsonNode   *node,
              const char *needle)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (node_matches (json_array_get_element (array, i), needle))
          return TRUE;
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      JsonNode *text = json_object_get_member (object, "text");
      JsonNode *content = json_object_get_member (object, "content");

      if (text != NULL && JSON_NODE_HOLDS_VALUE (text) &&
          json_node_get_value_type (text) == G_TYPE_STRING &&
          text_matches (json_node_get_string (text), needle))
        return TRUE;
      if (content != NULL && node_matches (content, needle))
        return TRUE;
    }

  return FALSE;
}

/* A quick look at the raw line: json-glib writes ASCII as it is, so an
 * ASCII needle that is not in the line, in any case, is not in its text. */
static gboolean
line_may_match (const char *line,
                gsize       length,
                const char *needle,
                gsize       needle_length)
{
  if (needle_length > length)
    return FALSE;

  for (gsize i = 0; i + needle_length <= length; i++)
    if (g_ascii_strncasecmp (line + i, needle, needle_length) == 0)
      return TRUE;

  return FALSE;
}

/* Reads the file as loading does: a torn last line, or a line the cap
 * cuts, is not part of the conversation, nor is a damaged one. */
static gboolean
file_matches (const char *path,
              Search     *search)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  gsize needle_length = strlen (search->needle);
  ZotSessionReader reader;
  const char *line;
  gsize line_length;

  contents = read_prefix (path, ZOT_CONVERSATION_SEARCH_MAX_BYTES, &length);
  if (contents == NULL)
    return FALSE;

  zot_session_reader_init (&reader, contents, length);
  while (zot_session_reader_next_line (&reader, &line, &line_length) == ZOT_SESSION_READ_ENTRY)
    {
      g_autoptr(JsonObject) entry = NULL;

      if (search->ascii && !line_may_match (line, line_length, search->needle, needle_length))
        continue;

      entry = zot_session_parse_entry (line, line_length, NULL);
      if (entry != NULL && g_str_equal (json_object_get_string_member (entry, "type"), "message") &&
          node_matches (json_object_get_member (entry, "message"), search->needle))
        return TRUE;
    }

  return FALSE;
}

static void
search_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Search *search = task_data;
  g_autoptr(GHashTable) found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < search->paths->len; i++)
    {
      const char *path = g_ptr_array_index (search->paths, i);

      if (g_task_return_error_if_cancelled (task))
        return;

      if (text_matches (g_ptr_array_index (search->titles, i), search->needle) ||
          file_matches (path, search))
        g_hash_table_add (found, g_strdup (path));
    }

  g_task_return_pointer (task, g_steal_pointer (&found), (GDestroyNotify) g_hash_table_unref);
}

/* The worker's task has no source object: a thread pool may drop its task
 * last, after the caller's callback, and the index must not be finalized
 * on a worker thread. The caller's task lives on the main thread only. */
static void
searched_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  GHashTable *found = g_task_propagate_pointer (G_TASK (result), &error);

  if (found == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, found, (GDestroyNotify) g_hash_table_unref);
}

/**
 * zot_conversation_index_search_async:
 * @text: what to look for, in any case
 *
 * Looks for @text in the titles and the messages (their text, and the
 * text of tool results) of the conversations listed now, reading at most
 * %ZOT_CONVERSATION_SEARCH_MAX_BYTES of each, on a worker thread.
 */
void
zot_conversation_index_search_async (ZotConversationIndex *self,
                                     const char           *text,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) worker = NULL;
  Search *search;

  g_return_if_fail (ZOT_IS_CONVERSATION_INDEX (self));
  g_return_if_fail (text != NULL);

  search = g_new0 (Search, 1);
  search->needle = g_utf8_casefold (text, -1);
  search->ascii = TRUE;
  for (const char *p = search->needle; *p != '\0'; p++)
    if ((guchar) *p >= 0x80 || *p == '"' || *p == '\\' || g_ascii_iscntrl (*p))
      search->ascii = FALSE;
  search->paths = g_ptr_array_new_with_free_func (g_free);
  search->titles = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < self->items->len; i++)
    {
      ZotConversation *conversation = g_ptr_array_index (self->items, i);

      g_ptr_array_add (search->paths, g_strdup (zot_conversation_get_path (conversation)));
      g_ptr_array_add (search->titles, g_strdup (zot_conversation_get_title (conversation)));
    }

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, zot_conversation_index_search_async);
  worker = g_task_new (NULL, cancellable, searched_cb, g_steal_pointer (&task));
  g_task_set_task_data (worker, search, search_free);
  g_task_run_in_thread (worker, search_thread);
}

/**
 * zot_conversation_index_search_finish:
 *
 * Returns: (transfer full): the paths of the conversations that have the
 *   text, as a set
 */
GHashTable *
zot_conversation_index_search_finish (ZotConversationIndex  *self,
                                      GAsyncResult          *result,
                                      GError               **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
