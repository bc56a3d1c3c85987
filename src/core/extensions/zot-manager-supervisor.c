/* zot-manager-supervisor.c — an extension that falls is started again.
 *
 * When a ready extension stops without being asked (its process ended, or
 * its channel broke), the manager has already failed its pending requests
 * with an error naming the crash; here it is started again in its place in
 * the load order after a backoff: ZOT_RESTART_BACKOFF_MS, doubled for each
 * restart in a row, at most ZOT_RESTART_BACKOFF_MAX_MS. The new process
 * registers its commands, tools, interceptors and subscriptions again; the
 * conversation is the manager's and is not touched. A restart that does not
 * get as far as `ready` counts as one more crash. After
 * ZOT_RESTART_MAX_FAILURES crashes within ZOT_RESTART_WINDOW_MS the
 * extension stays down with a note until the user restarts it (which
 * starts the count again). Nothing waits for a restart: a turn goes on
 * without the extension meanwhile, as it does without any stopped one.
 *
 * Like watch mode, the state is kept by directory, because a restart
 * replaces the ZotExtension. `"restart": "never"` in the manifest opts out.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-extension-manager-private.h"
#include "zot-limits.h"
#include "zot-manifest.h"

typedef struct
{
  ZotExtensionManager *manager;  /* unowned: the entry goes with it */
  char         *directory;
  GArray       *failures;      /* monotonic µs of each crash within the window */
  gint64        up_since;      /* when the last restart got it ready; 0 before */
  guint         attempt;       /* restarts in a row */
  guint         timer_id;
  GCancellable *cancellable;
  char         *reason;        /* the last crash, for ::extension-restarted */
  char         *note;          /* set once it gave up */
  gboolean      restarting;
} Supervised;

static void
supervised_release (Supervised *entry)
{
  g_clear_pointer (&entry->directory, g_free);
  g_clear_pointer (&entry->failures, g_array_unref);
  g_clear_object (&entry->cancellable);
  g_clear_pointer (&entry->reason, g_free);
  g_clear_pointer (&entry->note, g_free);
}

static void
supervised_unref (Supervised *entry)
{
  g_rc_box_release_full (entry, (GDestroyNotify) supervised_release);
}

static void
supervised_destroy (gpointer data)
{
  Supervised *entry = data;

  /* A restart in flight sees the cancellation and leaves the entry alone. */
  g_clear_handle_id (&entry->timer_id, g_source_remove);
  g_cancellable_cancel (entry->cancellable);
  supervised_unref (entry);
}

GHashTable *
_zot_manager_supervised_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, supervised_destroy);
}

/**
 * _zot_manager_restart_backoff_ms:
 * @attempt: the restart in a row, from 1
 *
 * Returns: how long to wait before restart @attempt: the base doubled for
 *   each earlier one, at most the cap (both through the test override)
 */
guint
_zot_manager_restart_backoff_ms (guint attempt)
{
  guint64 delay = zot_timeout_get_ms (ZOT_TIMEOUT_RESTART_BACKOFF);
  guint64 cap = zot_timeout_get_ms (ZOT_TIMEOUT_RESTART_BACKOFF_MAX);

  for (guint i = 1; i < attempt && delay < cap; i++)
    delay *= 2;
  return (guint) MIN (delay, cap);
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

static void restart_now (Supervised *entry);

static gboolean
timer_cb (gpointer user_data)
{
  Supervised *entry = user_data;

  entry->timer_id = 0;
  restart_now (entry);
  return G_SOURCE_REMOVE;
}

static void
give_up (Supervised   *entry,
         ZotExtension *extension)
{
  const char *name = zot_extension_get_name (extension);
  guint window_s = zot_timeout_get_ms (ZOT_TIMEOUT_RESTART_WINDOW) / 1000;
  guint minutes = MAX (1, (window_s + 59) / 60);

  g_free (entry->note);
  entry->note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                              /* Translators: a note: the extension's name, how often it stopped,
                                               * the minutes, then its name again in a command; /restart-ext is a
                                               * command, keep it */
                                              "%s stopped unexpectedly %u times within %u minute; it stays "
                                              "down until it is restarted (/restart-ext %s)",
                                              "%s stopped unexpectedly %u times within %u minutes; it stays "
                                              "down until it is restarted (/restart-ext %s)",
                                              minutes),
                                 name, entry->failures->len, minutes, name);
  zot_extension_log (extension, "supervisor: %u crashes within %u s; not restarting it again",
                     entry->failures->len, window_s);
  g_signal_emit (entry->manager, _zot_manager_signals[ZOT_MANAGER_EXTENSION_GAVE_UP], 0,
                 extension, entry->note);
}

/* One more crash of the extension in @entry: restart it later, or give up. */
static void
count_failure (Supervised   *entry,
               ZotExtension *extension,
               const char   *reason)
{
  gint64 now = g_get_monotonic_time ();
  gint64 window = (gint64) zot_timeout_get_ms (ZOT_TIMEOUT_RESTART_WINDOW) * G_TIME_SPAN_MILLISECOND;
  guint delay;
  guint kept = 0;

  /* It stayed up for a window since the last restart: a new run. */
  if (entry->up_since != 0 && now - entry->up_since >= window)
    entry->attempt = 0;

  for (guint i = 0; i < entry->failures->len; i++)
    if (now - g_array_index (entry->failures, gint64, i) < window)
      g_array_index (entry->failures, gint64, kept++) = g_array_index (entry->failures, gint64, i);
  g_array_set_size (entry->failures, kept);
  g_array_append_val (entry->failures, now);

  g_free (entry->reason);
  entry->reason = g_strdup (reason);

  if (entry->failures->len >= ZOT_RESTART_MAX_FAILURES)
    {
      give_up (entry, extension);
      return;
    }

  entry->attempt++;
  delay = _zot_manager_restart_backoff_ms (entry->attempt);
  zot_extension_log (extension, "supervisor: restarting in %u ms (attempt %u)", delay, entry->attempt);
  g_clear_handle_id (&entry->timer_id, g_source_remove);
  entry->timer_id = g_timeout_add (delay, timer_cb, entry);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, entry->timer_id),
                            "[zot] extension restart backoff");
}

static void
restarted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Supervised *entry = user_data;
  ZotExtensionManager *self = ZOT_EXTENSION_MANAGER (object);
  g_autoptr(GError) error = NULL;
  ZotExtension *fresh;
  gboolean ok;

  ok = zot_extension_manager_restart_finish (self, result, &error);
  if (g_cancellable_is_cancelled (entry->cancellable))
    {
      supervised_unref (entry);
      return;
    }
  entry->restarting = FALSE;

  /* A failure to start was reported as ::load-failed by the restart. */
  fresh = find_by_directory (self, entry->directory);
  if (fresh != NULL && ok && zot_extension_get_state (fresh) == ZOT_EXTENSION_STATE_READY)
    {
      entry->up_since = g_get_monotonic_time ();
      zot_extension_log (fresh, "supervisor: restarted (attempt %u)", entry->attempt);
      g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_EXTENSION_RESTARTED], 0,
                     fresh, entry->attempt, entry->reason);
    }
  else if (fresh != NULL && zot_extension_get_state (fresh) == ZOT_EXTENSION_STATE_FAILED)
    {
      count_failure (entry, fresh, error != NULL ? error->message : zot_extension_get_last_error (fresh));
    }
  supervised_unref (entry);
}

static void
restart_now (Supervised *entry)
{
  ZotExtension *extension = find_by_directory (entry->manager, entry->directory);

  /* Someone else restarted or reloaded it meanwhile. */
  if (extension == NULL || zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_FAILED)
    return;

  entry->restarting = TRUE;
  zot_extension_manager_restart_async (entry->manager, extension, entry->cancellable,
                                       restarted_cb, g_rc_box_acquire (entry));
}

/* From the manager's handler of ZotExtension::crashed, after
 * ::extension-crashed. */
void
_zot_manager_supervise_crash (ZotExtensionManager *self,
                              ZotExtension        *extension,
                              const char          *message)
{
  ZotManifest *manifest = zot_extension_get_manifest (extension);
  const char *directory = zot_extension_get_directory (extension);
  Supervised *entry;

  if (self->supervisor_off || manifest == NULL || directory == NULL)
    return;
  if (zot_manifest_get_restart_never (manifest))
    {
      zot_extension_log (extension, "supervisor: \"restart\": \"never\"; it stays down");
      return;
    }

  entry = g_hash_table_lookup (self->supervised, directory);
  if (entry == NULL)
    {
      entry = g_rc_box_new0 (Supervised);
      entry->manager = self;
      entry->directory = g_strdup (directory);
      entry->failures = g_array_new (FALSE, FALSE, sizeof (gint64));
      entry->cancellable = g_cancellable_new ();
      g_hash_table_insert (self->supervised, g_strdup (directory), entry);
    }
  if (entry->note != NULL)
    return;

  count_failure (entry, extension, message);
}

/* A restart someone else asks for (the user, watch mode) starts the count
 * again; the supervisor's own does not. */
void
_zot_manager_supervisor_forget (ZotExtensionManager *self,
                                ZotExtension        *extension)
{
  const char *directory = zot_extension_get_directory (extension);
  Supervised *entry;

  if (directory == NULL)
    return;
  entry = g_hash_table_lookup (self->supervised, directory);
  if (entry != NULL && !entry->restarting)
    g_hash_table_remove (self->supervised, directory);
}

/* A reload or the shutdown: nothing pending is restarted; after the
 * shutdown (@for_good) nothing is restarted any more. */
void
_zot_manager_supervisor_stop (ZotExtensionManager *self,
                              gboolean             for_good)
{
  if (for_good)
    self->supervisor_off = TRUE;
  if (self->supervised != NULL)
    g_hash_table_remove_all (self->supervised);
}

/* For the tests: whether a restart of @extension waits or runs. */
gboolean
_zot_manager_supervisor_is_pending (ZotExtensionManager *self,
                                    ZotExtension        *extension)
{
  Supervised *entry = g_hash_table_lookup (self->supervised, zot_extension_get_directory (extension));

  return entry != NULL && (entry->timer_id != 0 || entry->restarting);
}

/**
 * zot_extension_manager_get_gave_up_note:
 * @extension: any extension of @self
 *
 * Returns: (nullable): when the supervisor stopped restarting @extension
 *   after too many crashes, the note saying so (the extensions page shows
 *   it beside a Restart button); %NULL otherwise
 */
const char *
zot_extension_manager_get_gave_up_note (ZotExtensionManager *self,
                                        ZotExtension        *extension)
{
  Supervised *entry;

  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);
  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);

  if (zot_extension_get_directory (extension) == NULL)
    return NULL;
  entry = g_hash_table_lookup (self->supervised, zot_extension_get_directory (extension));
  return entry != NULL ? entry->note : NULL;
}

void
_zot_manager_supervisor_class_init (GObjectClass *klass)
{
  /**
   * ZotExtensionManager::extension-restarted:
   * @self: the manager
   * @extension: the new extension in the crashed one's place, ready
   * @attempt: the restart in a row, from 1 (its backoff doubled each time)
   * @reason: how the last process ended, as ::extension-crashed said
   *
   * The supervisor started a crashed extension again: its registrations
   * are back and the conversation went on; the host reruns
   * `before_agent_start`. Headless modes print one warning line, the
   * inspector lists it as a lifecycle moment.
   */
  _zot_manager_signals[ZOT_MANAGER_EXTENSION_RESTARTED] =
    g_signal_new ("extension-restarted",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, ZOT_TYPE_EXTENSION, G_TYPE_UINT, G_TYPE_STRING);

  /**
   * ZotExtensionManager::extension-gave-up:
   * @self: the manager
   * @extension: the extension that stays down
   * @note: for the user: how often it crashed and how to restart it
   *
   * An extension crashed ZOT_RESTART_MAX_FAILURES times within
   * ZOT_RESTART_WINDOW_MS: the supervisor does not restart it again until
   * the user does (zot_extension_manager_restart_async(), `/restart-ext`,
   * the Restart button). zot_extension_manager_get_gave_up_note() says so
   * until then.
   */
  _zot_manager_signals[ZOT_MANAGER_EXTENSION_GAVE_UP] =
    g_signal_new ("extension-gave-up",
                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, ZOT_TYPE_EXTENSION, G_TYPE_STRING);
}
