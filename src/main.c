#include "config.h"

#include <glib/gi18n.h>

#include "zot-cli.h"
#include "zot-gui.h"
#include "zot-i18n.h"
#include "zot-provider-secrets.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  char **args;

  /* Before anything else, and before any thread: the keys leave the
   * environment and the command line that other processes can read. */
  zot_i18n_init ();
  if (!zot_provider_capture_secrets (argc, argv, &args, &error))
    {
      g_printerr ("zot: %s\n", error->message);
      return 2;
    }
  argc = (int) g_strv_length (args);

  /* Headless modes and subcommands need no display; everything else is
   * the window. */
  if (zot_cli_wants_window (argc, args))
    return zot_gui_main (argc, args);

  return zot_cli_main (argc, args);
}
