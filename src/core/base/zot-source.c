/* zot-source.c — dropping a main loop source held by a pointer. */
#include "config.h"

#include "zot-source.h"

/**
 * zot_clear_source:
 * @source: (inout) (nullable): where a source is held, or holds %NULL
 *
 * Destroys the source (it never dispatches again), drops the reference
 * and sets the pointer to %NULL; does nothing when it is %NULL already.
 */
void
zot_clear_source (GSource **source)
{
  g_return_if_fail (source != NULL);

  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static gboolean
leader_cancelled_cb (GCancellable *leader,
                     gpointer      user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

/**
 * zot_cancellable_follow:
 * @follower: cancelled once @leader is
 * @leader: the cancellable to follow
 *
 * Cancels @follower on the next turn of the thread-default main context
 * after @leader is cancelled. Unlike g_cancellable_connect(), ending the
 * link is safe from anywhere: g_cancellable_disconnect() from within
 * @leader's own cancellation (a task completed by it) deadlocks.
 *
 * Returns: (transfer full): the link; zot_clear_source() ends it
 */
GSource *
zot_cancellable_follow (GCancellable *follower,
                        GCancellable *leader)
{
  GSource *source;

  g_return_val_if_fail (G_IS_CANCELLABLE (follower), NULL);
  g_return_val_if_fail (G_IS_CANCELLABLE (leader), NULL);

  source = g_cancellable_source_new (leader);
  g_source_set_callback (source, G_SOURCE_FUNC (leader_cancelled_cb), g_object_ref (follower), g_object_unref);
  g_source_set_static_name (source, "[zot] follow a cancellation");
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}
