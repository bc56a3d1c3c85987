/* zot-recent-projects.c — the project folders opened last.
 *
 * The list lives in the "recent-projects" setting, the most recent first,
 * each folder once, and at most ZOT_RECENT_PROJECTS_MAX of them: the
 * setting is read on every start, so it must not grow without end.
 */
#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <string.h>

#include "zot-limits.h"
#include "zot-recent-projects.h"

/**
 * zot_recent_projects_push:
 * @list: (nullable): the list as it is, the most recent first
 * @folder: the folder just opened
 *
 * Returns: (transfer full): @list with @folder first, once, and no more
 *   than %ZOT_RECENT_PROJECTS_MAX folders
 */
char **
zot_recent_projects_push (const char * const *list,
                          const char         *folder)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint n = 1;

  g_return_val_if_fail (folder != NULL, NULL);

  g_strv_builder_add (builder, folder);
  for (guint i = 0; list != NULL && list[i] != NULL && n < ZOT_RECENT_PROJECTS_MAX; i++)
    if (!g_str_equal (list[i], folder))
      {
        g_strv_builder_add (builder, list[i]);
        n++;
      }

  return g_strv_builder_end (builder);
}

/**
 * zot_recent_projects_remove:
 *
 * Returns: (transfer full): @list without @folder
 */
char **
zot_recent_projects_remove (const char * const *list,
                            const char         *folder)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (folder != NULL, NULL);

  for (guint i = 0; list != NULL && list[i] != NULL; i++)
    if (!g_str_equal (list[i], folder))
      g_strv_builder_add (builder, list[i]);

  return g_strv_builder_end (builder);
}

/* Writes the setting only on a real change: every window follows it. */
static void
change_setting (GSettings  *settings,
                const char *folder,
                char     **(*change) (const char * const *list,
                                      const char         *folder))
{
  g_auto(GStrv) list = g_settings_get_strv (settings, "recent-projects");
  g_auto(GStrv) changed = change ((const char * const *) list, folder);

  if (!g_strv_equal ((const char * const *) list, (const char * const *) changed))
    g_settings_set_strv (settings, "recent-projects", (const char * const *) changed);
}

void
zot_recent_projects_add (GSettings  *settings,
                         const char *folder)
{
  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (folder != NULL);

  change_setting (settings, folder, zot_recent_projects_push);
}

void
zot_recent_projects_forget (GSettings  *settings,
                            const char *folder)
{
  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (folder != NULL);

  change_setting (settings, folder, zot_recent_projects_remove);
}

/**
 * zot_recent_projects_display_path:
 *
 * Returns: (transfer full): @folder for people: under the home folder as
 *   `~/…`, in the file system's encoding converted for display
 */
char *
zot_recent_projects_display_path (const char *folder)
{
  const char *home = g_get_home_dir ();
  g_autofree char *display = NULL;
  gsize n;

  g_return_val_if_fail (folder != NULL, NULL);

  display = g_filename_display_name (folder);
  n = strlen (home);
  if (n > 1 && g_str_has_prefix (folder, home) && (folder[n] == '/' || folder[n] == '\0'))
    {
      g_autofree char *rest = g_filename_display_name (folder + n);
      return g_strconcat ("~", rest, NULL);
    }

  return g_steal_pointer (&display);
}
