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
