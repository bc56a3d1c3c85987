#include "config.h"

#include "zot-cli.h"
#include "zot-gui.h"

int
main (int    argc,
      char **argv)
{
  /* Headless modes and subcommands need no display; everything else is
   * the window. */
  if (zot_cli_wants_window (argc, argv))
    return zot_gui_main (argc, argv);

  return zot_cli_main (argc, argv);
}
