/* zot-armed-source.c — a main loop source armed by a time stored in it. */
#include "config.h"

#include "zot-armed-source.h"

typedef struct
{
  GSource parent;
  gint64  due;            /* monotonic µs; 0 at once; -1 disarmed */
} ZotArmedSource;

static gboolean
zot_armed_source_prepare (GSource *source,
                          gint    *timeout)
{
  ZotArmedSource *self = (ZotArmedSource *) source;
  gint64 now;

  *timeout = -1;
  if (self->due < 0)
    return FALSE;

  now = self->due == 0 ? 0 : g_source_get_time (source);
  if (now >= self->due)
    {
      *timeout = 0;
      return TRUE;
    }

  *timeout = (gint) MIN ((self->due - now + 999) / 1000, G_MAXINT);
  return FALSE;
}

static gboolean
zot_armed_source_check (GSource *source)
{
  ZotArmedSource *self = (ZotArmedSource *) source;

  return self->due == 0 || (self->due > 0 && g_source_get_time (source) >= self->due);
}

static gboolean
zot_armed_source_dispatch (GSource     *source,
                           GSourceFunc  callback,
                           gpointer     user_data)
{
  return callback (user_data);
}

static GSourceFuncs zot_armed_source_funcs = {
  .prepare = zot_armed_source_prepare,
  .check = zot_armed_source_check,
  .dispatch = zot_armed_source_dispatch,
};

/**
 * zot_armed_source_new:
 *
 * Returns: (transfer full): a disarmed source, attached to the
 *   thread-default main context
 */
GSource *
zot_armed_source_new (GSourceFunc  callback,
                      gpointer     user_data,
                      int          priority,
                      const char  *name)
{
  GSource *source = g_source_new (&zot_armed_source_funcs, sizeof (ZotArmedSource));

  ((ZotArmedSource *) source)->due = ZOT_ARMED_SOURCE_DISARMED;
  g_source_set_priority (source, priority);
  g_source_set_callback (source, callback, user_data, NULL);
  g_source_set_static_name (source, name);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

/**
 * zot_armed_source_set_due:
 * @due: a g_get_monotonic_time() in µs, %ZOT_ARMED_SOURCE_NOW or
 *   %ZOT_ARMED_SOURCE_DISARMED
 *
 * The source stays armed after it fires until the callback disarms it or
 * sets a later time.
 */
void
zot_armed_source_set_due (GSource *source,
                          gint64   due)
{
  g_return_if_fail (source != NULL && source->source_funcs == &zot_armed_source_funcs);

  ((ZotArmedSource *) source)->due = due < 0 ? ZOT_ARMED_SOURCE_DISARMED : due;
}

gint64
zot_armed_source_get_due (GSource *source)
{
  g_return_val_if_fail (source != NULL && source->source_funcs == &zot_armed_source_funcs,
                        ZOT_ARMED_SOURCE_DISARMED);

  return ((ZotArmedSource *) source)->due;
}
