/* zot-box-rights.c — the box a "permissions" object describes: its
 * flags and the folders it sees. Extensions (zot-extension-box.c) and
 * the MCP bridge's stdio servers (extensions/mcp) get the same one. */
#include "config.h"

#include "zot-box-rights.h"

/**
 * zot_box_new_for_rights:
 * @project: the project folder
 * @program: the program that runs in the box
 * @own_dir: (nullable): a folder the caller binds itself
 *
 * Returns: (transfer full): a box with @permissions' network, devices
 *   and filesystem; a @program outside /usr and @own_dir is seen where
 *   it is, read-only
 */
ZotBox *
zot_box_new_for_rights (const ZotPermissions *permissions,
                        const char           *project,
                        const char           *program,
                        const char           *own_dir)
{
  ZotBoxFlags flags = 0;
  ZotBox *box;

  if (permissions->network)
    flags |= ZOT_BOX_NETWORK;
  if (permissions->devices)
    flags |= ZOT_BOX_DEVICES;
  if (permissions->filesystem == ZOT_FILESYSTEM_HOST)
    flags |= ZOT_BOX_HOST;
  box = zot_box_new (flags);
  if (permissions->filesystem == ZOT_FILESYSTEM_HOME_RO || permissions->filesystem == ZOT_FILESYSTEM_HOME)
    zot_box_bind (box, g_get_home_dir (), permissions->filesystem == ZOT_FILESYSTEM_HOME);
  if (permissions->filesystem >= ZOT_FILESYSTEM_PROJECT_RO && permissions->filesystem != ZOT_FILESYSTEM_HOST)
    zot_box_bind (box, project, permissions->filesystem != ZOT_FILESYSTEM_PROJECT_RO);
  if (g_path_is_absolute (program) && !g_str_has_prefix (program, "/usr/") &&
      (own_dir == NULL || !g_str_has_prefix (program, own_dir)))
    {
      g_autofree char *dir = g_path_get_dirname (program);

      zot_box_bind (box, dir, FALSE);
    }
  return box;
}
