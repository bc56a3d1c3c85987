#include "config.h"

#include "zot-cli.h"

int
main (int    argc,
      char **argv)
{
  return zot_cli_main (argc, argv);
}
