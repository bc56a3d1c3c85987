/* zot-transcript-failures.c — the transcript's load failure rows: one per
 * extension that could not load, kept until /clear or until that extension
 * loads (a reload, a restart from the extensions page). */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include "zot-extension-manager.h"
#include "zot-transcript-item.h"
#include "zot-transcript-private.h"

static void
remove_failures_of (ZotTranscript *self,
                    const char    *directory)
{
  GListModel *items = _zot_transcript_get_items (self);

  for (guint i = g_list_model_get_n_items (items); i > 0; i--)
    {
      g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (items, i - 1);

      if (zot_transcript_item_get_kind (item) == ZOT_TRANSCRIPT_ITEM_LOAD_FAILURE &&
          g_strcmp0 (zot_transcript_item_get_path (item), directory) == 0)
        g_list_store_remove (G_LIST_STORE (items), i - 1);
    }
}

static void
on_load_failed_cb (ZotExtensionManager *manager,
                   const char          *path,
                   const char          *message,
                   const char          *log_path,
                   ZotTranscript       *self)
{
  g_autoptr(ZotTranscriptItem) item = zot_transcript_item_new_load_failure (path, message, log_path);

  /* Failing again on a reload: the latest reason, once. */
  if (path != NULL)
    remove_failures_of (self, path);
  g_list_store_append (G_LIST_STORE (_zot_transcript_get_items (self)), item);
}

/* A failure that a successful load answered is no longer news: the page
 * promises the rows last "until a successful reload or /clear". */
static void
on_extension_state_changed_cb (ZotExtensionManager *manager,
                               ZotExtension        *extension,
                               ZotTranscript       *self)
{
  const char *directory = zot_extension_get_directory (extension);

  if (zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY && directory != NULL)
    remove_failures_of (self, directory);
}

/**
 * _zot_transcript_watch_load_failures:
 * @self: a #ZotTranscript
 * @manager_signals: the transcript's signal group on the extension manager
 *
 * Shows each load failure as a row, and takes it away again when its
 * extension loads.
 */
void
_zot_transcript_watch_load_failures (ZotTranscript *self,
                                     GSignalGroup  *manager_signals)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (G_IS_SIGNAL_GROUP (manager_signals));

  g_signal_group_connect (manager_signals, "load-failed",
                          G_CALLBACK (on_load_failed_cb), self);
  g_signal_group_connect (manager_signals, "extension-state-changed",
                          G_CALLBACK (on_extension_state_changed_cb), self);
}
