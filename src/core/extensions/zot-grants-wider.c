/* zot-grants-wider.c — what an update asks for beyond what was granted.
 *
 * When a new version asks for more, the user is shown only what is new:
 * the rights accepted before were read already, and a long list would
 * hide the one line that matters.
 */
#define G_LOG_DOMAIN "zot-grants"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-grants.h"

static char *
names_beyond (const char * const *asked,
              const char * const *granted)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;

  for (guint i = 0; asked != NULL && asked[i] != NULL; i++)
    if (granted == NULL || !g_strv_contains (granted, asked[i]))
      g_strv_builder_add (builder, asked[i]);
  names = g_strv_builder_end (builder);
  return names[0] != NULL ? g_strjoinv (", ", names) : NULL;
}

/**
 * zot_grant_describe_wider:
 * @self: the grant in force
 * @declared: (nullable): what the new manifest asks for, %NULL when unconfined
 *
 * Returns: (transfer full): one line in words per right @declared asks for
 *   beyond @self; empty when @self covers it
 */
GStrv
zot_grant_describe_wider (const ZotGrant       *self,
                          const ZotPermissions *declared)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  const ZotPermissions *granted;
  g_autofree char *env = NULL;
  g_autofree char *secrets = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  granted = self->permissions;
  if (self->unconfined)
    ;
  else if (declared == NULL)
    /* Translators: a new version of an extension leaves its box */
    g_ptr_array_add (lines, g_strdup (_("unconfined: it runs with all your rights: every file, the network")));
  else
    {
      if (declared->filesystem > granted->filesystem)
        /* Translators: files a new version may see, then what the old one could */
        g_ptr_array_add (lines, g_strdup_printf (_("files: %s (was %s)"),
                                                 zot_filesystem_access_describe_words (declared->filesystem),
                                                 zot_filesystem_access_describe_words (granted->filesystem)));
      if (declared->network && !granted->network)
        /* Translators: a new version asks to reach the network */
        g_ptr_array_add (lines, g_strdup (_("the network")));
      if (declared->devices && !granted->devices)
        g_ptr_array_add (lines, g_strdup (_("devices (/dev)")));
      env = names_beyond ((const char * const *) declared->env, (const char * const *) granted->env);
      if (env != NULL)
        g_ptr_array_add (lines, g_strconcat (_("environment: "), env, NULL));
      secrets = names_beyond ((const char * const *) declared->secrets, (const char * const *) granted->secrets);
      if (secrets != NULL)
        g_ptr_array_add (lines, g_strconcat (_("secrets: "), secrets, NULL));
    }
  g_ptr_array_add (lines, NULL);
  return (GStrv) g_ptr_array_steal (lines, NULL);
}
