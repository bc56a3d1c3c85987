#define G_LOG_DOMAIN "zot-paths"

#include "zot-paths.h"

/* $ZOT_HOME, else $XDG_STATE_HOME/zot, else ~/.local/state/zot: the same
 * place the upstream host uses, so extensions it installed are found. */
char *
zot_paths_get_home (void)
{
  const char *env = g_getenv ("ZOT_HOME");
  const char *state;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  state = g_getenv ("XDG_STATE_HOME");
  if (state != NULL && g_path_is_absolute (state))
    return g_build_filename (state, "zot", NULL);

  return g_build_filename (g_get_home_dir (), ".local", "state", "zot", NULL);
}

char *
zot_paths_get_extensions_dir (void)
{
  g_autofree char *home = zot_paths_get_home ();

  return g_build_filename (home, "extensions", NULL);
}

char *
zot_paths_get_project_extensions_dir (const char *cwd)
{
  g_autofree char *current = NULL;

  if (cwd == NULL)
    cwd = current = g_get_current_dir ();

  return g_build_filename (cwd, ".zot", "extensions", NULL);
}

char *
zot_paths_get_logs_dir (void)
{
  g_autofree char *home = zot_paths_get_home ();

  return g_build_filename (home, "logs", NULL);
}

char *
zot_paths_get_log_file (const char *extension_name)
{
  g_autofree char *logs = zot_paths_get_logs_dir ();
  g_autofree char *base = g_strdup_printf ("ext-%s.log", extension_name);

  return g_build_filename (logs, base, NULL);
}

/* What an extension registered at its last start, and what was wrong
 * with it, for `zot ext list` to show without starting it. */
char *
zot_paths_get_state_file (const char *extension_name)
{
  g_autofree char *home = zot_paths_get_home ();
  g_autofree char *base = g_strdup_printf ("ext-%s.json", extension_name);

  return g_build_filename (home, "state", base, NULL);
}
