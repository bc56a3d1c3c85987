/* zot-mcp-box.c — a stdio server whose configuration has "permissions"
 * (the words of extension manifests, PROTOCOL.md §12) runs in the box
 * extensions get (zot-box-rights.c): the project or home as they say,
 * the network if they say so, a private HOME under
 * $ZOT_HOME/box/mcp/SERVER, and only its own variables. Inside the
 * Flatpak every stdio server runs on the host, through flatpak-spawn
 * --host, boxed or not. */
#define G_LOG_DOMAIN "zot-mcp"

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <string.h>

#include "zot-box-rights.h"
#include "zot-flatpak.h"
#include "zot-limits.h"
#include "zot-mcp-bridge.h"
#include "zot-mcp-client-private.h"
#include "zot-paths.h"

static GStrv
box_environment (ZotMcpClient *self,
                 const char   *home)
{
  g_auto(GStrv) host = g_get_environ ();
  g_autoptr(GStrvBuilder) env = g_strv_builder_new ();
  g_autofree char *home_variable = g_strconcat ("HOME=", home, NULL);

  g_strv_builder_add_many (env, "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=/tmp", home_variable, NULL);
  for (guint i = 0; host[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (host[i], strcspn (host[i], "="));

      if (g_str_equal (name, "LANG") || g_str_has_prefix (name, "LC_") || g_str_equal (name, "TERM") ||
          g_strv_contains ((const char * const *) self->permissions->env, name))
        g_strv_builder_add (env, host[i]);
    }
  for (guint i = 0; self->env != NULL && self->env[i] != NULL; i++)
    g_strv_builder_add (env, self->env[i]);
  return g_strv_builder_end (env);
}

/* Inside the Flatpak the box is the host's, as for extensions
 * (zot-extension-box.c): flatpak-spawn --host runs bwrap there, which
 * clears the session's environment and reads the server's variables from
 * a sealed descriptor, none on a command line. A bare command is then
 * found on the box's PATH, on the host. */
GStrv
_zot_mcp_box_wrap (ZotMcpClient         *self,
                   GSubprocessLauncher  *launcher,
                   GError              **error)
{
  gboolean in_flatpak = zot_flatpak_is_sandboxed ();
  g_autofree char *bwrap = in_flatpak ? g_strdup ("bwrap")
                                      : zot_box_find_bwrap (_("MCP servers with \"permissions\" run"), error);
  g_autofree char *zot_home = zot_paths_get_home ();
  g_autofree char *home = g_build_filename (zot_home, "box", "mcp", self->name, "home", NULL);
  g_autofree char *program = NULL;
  g_autoptr(ZotBox) box = NULL;
  g_autoptr(GStrvBuilder) command = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) environment = NULL;
  g_auto(GStrv) wrapped = NULL;
  int env_fd = -1;

  if (bwrap == NULL)
    return NULL;
  program = g_path_is_absolute (self->command) || in_flatpak ? g_strdup (self->command)
                                                              : g_find_program_in_path (self->command);
  if (program == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("MCP server %s: could not start %s: it is not on the PATH"), self->name, self->command);
      return NULL;
    }
  if (g_mkdir_with_parents (home, 0700) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("MCP server %s: cannot create the box's home %s: %s"),
                   self->name, home, g_strerror (errno));
      return NULL;
    }
  box = zot_box_new_for_rights (self->permissions, self->cwd, program, NULL);
  zot_box_bind (box, home, TRUE);
  g_strv_builder_add (command, program);
  if (self->args != NULL)
    g_strv_builder_addv (command, (const char **) self->args);
  argv = g_strv_builder_end (command);
  environment = box_environment (self, home);
  if (in_flatpak)
    {
      zot_box_add_args (box, "--clearenv", NULL);
      for (guint i = 0; environment[i] != NULL; i++)
        {
          g_autofree char *name = g_strndup (environment[i], strcspn (environment[i], "="));

          zot_box_setenv (box, name, environment[i] + strlen (name) + 1);
        }
      wrapped = zot_box_build_argv_env_fd (box, bwrap, self->cwd, (const char * const *) argv,
                                           ZOT_BOX_ENV_FD, &env_fd, error);
      if (wrapped != NULL)
        zot_flatpak_take_fd (launcher, env_fd, ZOT_BOX_ENV_FD);
    }
  else
    {
      g_subprocess_launcher_set_environ (launcher, environment);
      wrapped = zot_box_build_argv (box, bwrap, self->cwd, (const char * const *) argv);
    }
  for (guint i = 0; environment[i] != NULL; i++)
    memset (environment[i], 0, strlen (environment[i]));
  if (wrapped == NULL || !in_flatpak)
    return g_steal_pointer (&wrapped);
  return zot_flatpak_build_host_argv (launcher, self->cwd, NULL, (const char * const *) wrapped);
}

/* Tests pretend the bridge runs in the Flatpak sandbox: they name their
 * own marker file, as they do for the host (_zot_flatpak_set_info_path_for_testing). */
void
_zot_mcp_flatpak_init (void)
{
  const char *marker = g_getenv ("ZOT_TEST_FLATPAK_INFO");

  if (marker != NULL && *marker != '\0')
    _zot_flatpak_set_info_path_for_testing (marker);
}

/* What the panel says of a server's box. */
char *
_zot_mcp_box_describe (const ZotMcpServer *config)
{
  g_autofree char *words = NULL;

  if (config->transport != ZOT_MCP_TRANSPORT_STDIO)
    return NULL;
  if (config->permissions == NULL)
    return g_strdup (_("unconfined"));
  words = zot_permissions_describe_words (config->permissions);
  /* Translators: %s says what a server's box allows */
  return g_strdup_printf (_("box: %s"), words);
}
