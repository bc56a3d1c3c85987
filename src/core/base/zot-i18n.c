/* zot-i18n.c — the translations, installed or from the build tree.
 *
 * An installed zot finds its catalogues under LOCALEDIR. Run from the
 * build tree (tools/run.sh, the tests) nothing is installed there yet, so
 * it would speak English on any desktop: an executable that lives under
 * the build directory reads the catalogues meson compiled into the
 * build's po/ instead.
 */
#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "zot-i18n.h"

static gboolean
running_uninstalled (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  return exe != NULL && g_str_has_prefix (exe, ZOT_BUILD_ROOT G_DIR_SEPARATOR_S) &&
         g_file_test (ZOT_BUILD_LOCALEDIR, G_FILE_TEST_IS_DIR);
}

/**
 * zot_i18n_get_locale_dir:
 *
 * Returns: where the catalogues of this executable are: the build tree's
 *   when it runs from there, LOCALEDIR otherwise
 */
const char *
zot_i18n_get_locale_dir (void)
{
  return running_uninstalled () ? ZOT_BUILD_LOCALEDIR : LOCALEDIR;
}

/**
 * zot_i18n_init:
 *
 * Sets the locale from the environment and binds zot's text domain.
 */
void
zot_i18n_init (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, zot_i18n_get_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}
