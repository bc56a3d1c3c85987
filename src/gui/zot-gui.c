#define G_LOG_DOMAIN "zot-gui"

#include "config.h"

#include <glib/gi18n.h>
#include <signal.h>

#include <gtk/gtk.h>

#include "zot-application.h"
#include "zot-gui.h"
#include "zot-i18n.h"

/* GSettings aborts the process when a schema is missing, which from a
 * desktop launcher looks like a silent crash; say what is wrong instead. */
static gboolean
settings_schema_installed (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  return schema != NULL;
}

int
zot_gui_main (int    argc,
              char **argv)
{
  g_autoptr(ZotApplication) app = NULL;

  zot_i18n_init ();

  /* A dead extension must not kill the window through a write to its pipe. */
  signal (SIGPIPE, SIG_IGN);

  if (!gtk_init_check ())
    {
      g_printerr (_("zot: there is no display to open the window on; "
                    "for headless use run zot -p PROMPT, zot --json PROMPT or zot rpc\n"));
      return 1;
    }

  if (!settings_schema_installed ())
    {
      /* Translators: %s is the settings schema's id; keep the commands "meson install" and "bash
       * tools/run.sh" as they are */
      g_printerr (_("zot: the settings schema %s is not installed; install zot with "
                    "meson install, or run it from the source tree with bash tools/run.sh\n"),
                  APP_ID);
      return 1;
    }

  app = zot_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
