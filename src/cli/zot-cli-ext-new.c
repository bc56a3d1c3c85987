/* zot-cli-ext-new.c — `zot ext new NAME --lang LANG [--dir DIR]`: the
 * skeleton of zot-ext-new.c, then the commands to type next. */
#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-cli-private.h"
#include "zot-ext-new.h"

#define ZOT_EXIT_OK     0
#define ZOT_EXIT_FAILED 1
#define ZOT_EXIT_USAGE  2

/**
 * zot_cli_ext_new_main:
 * @argv: starts at "new"
 *
 * Returns: 0 when the extension was written, 1 when not, 2 on a usage error
 */
int
zot_cli_ext_new_main (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  g_auto(GStrv) steps = NULL;
  g_autofree char *language = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *choices = zot_ext_new_languages_text ();
  g_autofree char *lang_help = NULL;
  g_autofree char *directory = NULL;
  GOptionEntry entries[] = {
    { "lang", 'l', 0, G_OPTION_ARG_STRING, &language, NULL, N_("LANG") },
    { "dir", 'd', 0, G_OPTION_ARG_FILENAME, &parent,
      N_("Write the extension into DIR/NAME (default: ./NAME)"), N_("DIR") },
    { NULL }
  };

  g_return_val_if_fail (argc >= 1 && argv != NULL, ZOT_EXIT_USAGE);

  /* Translators: %s is the list of languages, "go, python, … or sh" */
  lang_help = g_strdup_printf (_("The extension's language: %s"), choices);
  entries[0].description = lang_help;

  args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);

  g_set_prgname ("zot ext new");
  context = g_option_context_new (_("NAME"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Write a new extension into the folder NAME: a manifest, a program with\n"
                                  "a tool and a slash command on zot's SDK of the language (copied in),\n"
                                  "a README and test.sh, which runs zot ext check on it."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse_strv (context, &args, &error))
    {
      /* Translators: the problem with the command line */
      g_printerr (_("zot: ext new: %s; see zot ext new --help\n"), error->message);
      return ZOT_EXIT_USAGE;
    }
  if (g_strv_length (args) != 2)
    {
      g_printerr (_("zot: ext new: give one name; see zot ext new --help\n"));
      return ZOT_EXIT_USAGE;
    }
  if (language == NULL)
    {
      /* Translators: %s is the list of languages */
      g_printerr (_("zot: ext new: choose a language with --lang: %s\n"), choices);
      return ZOT_EXIT_USAGE;
    }

  directory = zot_ext_new_write (parent != NULL ? parent : ".", args[1], language, &error);
  if (directory == NULL)
    {
      g_printerr ("zot: ext new: %s\n", error->message);
      return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) ? ZOT_EXIT_USAGE : ZOT_EXIT_FAILED;
    }

  /* Translators: %s is the new extension's folder; the commands to type follow */
  g_print (_("Wrote %s. Next:\n"), directory);
  steps = zot_ext_new_next_steps (directory, language);
  for (guint i = 0; steps[i] != NULL; i++)
    g_print ("  %s\n", steps[i]);
  return ZOT_EXIT_OK;
}
