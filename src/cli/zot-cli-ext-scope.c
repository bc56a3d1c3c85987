/* zot-cli-ext-scope.c — which folder of extensions a `zot ext` command
 * that names an installed extension acts on: the user's, the project's, or
 * whichever of the two has it. */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "zot-cli-private.h"
#include "zot-discovery.h"
#include "zot-error.h"
#include "zot-installer.h"
#include "zot-names.h"

/* Someone asked which copy to act on has this long to answer; a prompt
 * left on a forgotten terminal must not hold the command for ever. */
#define SCOPE_PROMPT_TIMEOUT_MS (5 * 60 * 1000)
#define SCOPE_ANSWER_MAX        64

char *
zot_cli_ext_find_installed (const char  *parent,
                            const char  *name,
                            GError     **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GPtrArray) found = NULL;

  if (!zot_name_is_existing_directory (name))
    {
      g_autofree char *shown = zot_name_excerpt (name);

      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_INVALID_NAME,
                   /* Translators: %s is the name given on the command line; "zot ext list" is a
                    * command, keep it */
                   _("\"%s\" is not a valid extension name; give the name that zot ext list shows"),
                   shown);
      return NULL;
    }

  path = g_build_filename (parent, name, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return g_steal_pointer (&path);

  /* An extension installed by hand under another directory name. */
  found = zot_discover_in_directory (parent, ZOT_EXTENSION_SCOPE_USER);
  for (guint i = 0; i < found->len; i++)
    {
      ZotDiscovered *discovered = g_ptr_array_index (found, i);

      if (discovered->manifest != NULL &&
          g_str_equal (zot_manifest_get_name (discovered->manifest), name))
        return g_strdup (discovered->directory);
    }

  g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED,
               /* Translators: the extension's name, then the folder of extensions; "zot ext
                * list" is a command, keep it */
               _("no extension named \"%s\" is installed in %s; "
                 "zot ext list shows the installed ones"),
               name, parent);
  return NULL;
}

/* Reads one answer from the terminal, waiting at most
 * SCOPE_PROMPT_TIMEOUT_MS. Returns NULL when none came. */
static char *
read_answer (void)
{
  char answer[SCOPE_ANSWER_MAX] = { 0 };
  gint64 deadline = g_get_monotonic_time () + (gint64) SCOPE_PROMPT_TIMEOUT_MS * 1000;
  gsize length = 0;

  while (length < sizeof answer - 1)
    {
      struct pollfd fd = { STDIN_FILENO, POLLIN, 0 };
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      ssize_t n;
      int ready;

      if (left_ms <= 0)
        return NULL;
      ready = poll (&fd, 1, (int) left_ms);
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready <= 0)
        return NULL;

      n = read (STDIN_FILENO, answer + length, 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return NULL;
      if (answer[length] == '\n')
        break;
      length++;
    }

  answer[length] = '\0';
  return g_strstrip (g_strdup (answer));
}

/* Asks on the terminal which copy of @name to act on. */
static char *
ask_scope (const char  *name,
           const char  *project_directory,
           const char  *user_directory,
           GError     **error)
{
  g_autofree char *answer = NULL;

  /* Translators: %s is the extension's name, then the two folders it is installed in; "1",
   * "2", "project" and "global" are answers, keep them */
  g_printerr (_("%s is installed twice:\n"
                "  1) in the project: %s\n"
                "  2) globally: %s\n"
                "Which one? [1/2] "),
              name, project_directory, user_directory);

  answer = read_answer ();
  if (answer != NULL && (g_str_equal (answer, "1") || g_str_equal (answer, "project")))
    return g_strdup (project_directory);
  if (answer != NULL && (g_str_equal (answer, "2") || g_str_equal (answer, "global")))
    return g_strdup (user_directory);

  g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED,
               /* Translators: %s is the extension's name; --project and --global are options,
                * keep them */
               _("no copy of %s chosen; pass --project or --global"), name);
  return NULL;
}

static gboolean
is_not_installed (const GError *error)
{
  return g_error_matches (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED);
}

/**
 * zot_cli_ext_find_in_either_scope:
 * @name: the extension's name, as `zot ext list` shows it
 * @project_parent: the project's folder of extensions
 * @user_parent: the user's folder of extensions
 * @error: return location for an error
 *
 * Finds @name where it is installed: in one folder, that one; in both,
 * the one chosen on the terminal, or an error naming --project and
 * --global when stdin is not a terminal.
 *
 * Returns: (transfer full) (nullable): the extension's directory
 */
char *
zot_cli_ext_find_in_either_scope (const char  *name,
                                  const char  *project_parent,
                                  const char  *user_parent,
                                  GError     **error)
{
  g_autoptr(GError) project_error = NULL;
  g_autoptr(GError) user_error = NULL;
  g_autofree char *in_project = NULL;
  g_autofree char *in_user = NULL;

  in_project = zot_cli_ext_find_installed (project_parent, name, &project_error);
  if (in_project == NULL && !is_not_installed (project_error))
    {
      g_propagate_error (error, g_steal_pointer (&project_error));
      return NULL;
    }
  in_user = zot_cli_ext_find_installed (user_parent, name, &user_error);
  if (in_user == NULL && !is_not_installed (user_error))
    {
      g_propagate_error (error, g_steal_pointer (&user_error));
      return NULL;
    }

  if (in_project == NULL && in_user == NULL)
    {
      g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED,
                   /* Translators: the extension's name, then the project's and the user's
                    * folders of extensions; "zot ext list" is a command, keep it */
                   _("no extension named \"%s\" is installed in %s or %s; "
                     "zot ext list shows the installed ones"),
                   name, project_parent, user_parent);
      return NULL;
    }
  if (in_user == NULL)
    return g_steal_pointer (&in_project);
  if (in_project == NULL)
    return g_steal_pointer (&in_user);

  if (isatty (STDIN_FILENO) && isatty (STDERR_FILENO))
    return ask_scope (name, in_project, in_user, error);

  g_set_error (error, ZOT_INSTALL_ERROR, ZOT_INSTALL_ERROR_NOT_INSTALLED,
               /* Translators: the extension's name, then its two folders; --project and --global
                * are options, keep them */
               _("%s is installed both in %s and in %s; pass --project or --global to choose"),
               name, in_project, in_user);
  return NULL;
}
