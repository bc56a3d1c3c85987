/* zot-flatpak.c — whether the host runs inside a Flatpak sandbox.
 *
 * Flatpak puts /.flatpak-info in every sandbox it starts; its presence is
 * the documented way to tell. Inside, host programs (extensions, bash,
 * git) are reached through `flatpak-spawn --host`, and confined scripts
 * through the portal's sub-sandbox.
 */
#include "zot-flatpak.h"

#define FLATPAK_INFO_PATH "/.flatpak-info"

static char *info_path_override;

gboolean
zot_flatpak_is_sandboxed (void)
{
  const char *path = info_path_override ? info_path_override : FLATPAK_INFO_PATH;

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

void
_zot_flatpak_set_info_path_for_testing (const char *path)
{
  g_clear_pointer (&info_path_override, g_free);
  info_path_override = g_strdup (path);
}
