/* zot-unknown-types.c — which unknown frame or command types were logged.
 *
 * Zero-initialized, a ZotUnknownTypes is ready; zot_unknown_types_clear()
 * frees what it holds.
 */
#include "config.h"

#include "zot-limits.h"
#include "zot-unknown-types.h"

void
zot_unknown_types_clear (ZotUnknownTypes *self)
{
  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->seen, g_hash_table_unref);
}

/**
 * zot_unknown_types_note:
 * @type: (nullable): a type the dispatcher does not know; %NULL for a
 *   frame without one
 *
 * Returns: %TRUE when @type should be logged now: the first time it is
 *   met, while fewer than %ZOT_UNKNOWN_TYPES_LOGGED types have been
 */
gboolean
zot_unknown_types_note (ZotUnknownTypes *self,
                        const char      *type)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (type == NULL)
    type = "";

  if (self->seen == NULL)
    self->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (g_hash_table_contains (self->seen, type))
    return FALSE;

  if (g_hash_table_size (self->seen) >= ZOT_UNKNOWN_TYPES_LOGGED)
    return FALSE;

  g_hash_table_add (self->seen, g_strdup (type));
  return TRUE;
}
