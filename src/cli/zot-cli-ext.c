#define G_LOG_DOMAIN "zot-cli"

#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <glib/gi18n.h>

#include <json-glib/json-glib.h>

#include "zot-cli-private.h"
#include "zot-discovery.h"
#include "zot-error.h"
#include "zot-grants.h"
#include "zot-installer.h"
#include "zot-key-grants.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-names.h"
#include "zot-paths.h"
#include "zot-provider.h"
#include "zot-provider-table.h"

#define ZOT_EXIT_OK     0
#define ZOT_EXIT_FAILED 1
#define ZOT_EXIT_USAGE  2

#define LOG_READ_CHUNK  (64 * 1024)

/* A GFileMonitor coalesces changes; a tail should feel immediate. */
#define LOG_FOLLOW_RATE_LIMIT_MS 100

typedef int (*ZotExtCommandFunc) (int    argc,
                                  char **argv);

typedef struct
{
  GMainLoop        *loop;
  GFile            *file;
  GFileInputStream *stream;
  GByteArray       *pending;   /* the start of a character cut by a read */
  int               status;
} LogFollower;

enum
{
  COLUMN_NAME,
  COLUMN_VERSION,
  COLUMN_STATE,
  COLUMN_SCOPE,
  COLUMN_BOX,
  COLUMN_DIRECTORY,
  COLUMN_LANGUAGE,
  COLUMN_DESCRIPTION,
  N_COLUMNS
};

static int usage_error (const char *command,
                        const char *format,
                        ...) G_GNUC_PRINTF (2, 3);

static int
usage_error (const char *command,
             const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  /* Translators: the command (such as "ext install"), then the problem; keep "zot %s --help" as
   * it is */
  g_printerr (_("zot: %s: %s; see zot %s --help\n"), command, message, command);
  return ZOT_EXIT_USAGE;
}

static int
report_error (const GError *error)
{
  g_printerr ("zot: %s\n", error->message);
  return ZOT_EXIT_FAILED;
}

/* Parses @argv, whose first element is the subcommand's own name, into the
 * positional arguments that remain (element 0 is that name). Prints usage
 * errors itself. --help prints and exits, as GOptionContext does. */
static gboolean
parse_options (const char          *command,
               const char          *parameters,
               const char          *summary,
               const GOptionEntry  *entries,
               int                  argc,
               char               **argv,
               GStrv               *out_args)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *prgname = NULL;
  g_auto(GStrv) args = NULL;

  args = g_new0 (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);

  /* So that --help reads "zot ext install [OPTION…] PATH|URL". */
  prgname = g_strdup_printf ("zot %s", command);
  g_set_prgname (prgname);

  context = g_option_context_new (parameters);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context, summary);
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  if (!g_option_context_parse_strv (context, &args, &error))
    {
      usage_error (command, "%s", error->message);
      return FALSE;
    }

  /* GOption stops at "--" but keeps it: what follows is positional, even
   * a name that starts with a dash. */
  for (guint i = 1; args[i] != NULL; i++)
    if (g_str_equal (args[i], "--"))
      {
        g_free (args[i]);
        memmove (&args[i], &args[i + 1], (g_strv_length (args + i + 1) + 1) * sizeof (char *));
        break;
      }

  *out_args = g_steal_pointer (&args);
  return TRUE;
}


static char *
extensions_dir_for (gboolean    project,
                    const char *cwd)
{
  if (project)
    {
      g_autofree char *absolute = cwd != NULL ? g_canonicalize_filename (cwd, NULL) : NULL;

      return zot_paths_get_project_extensions_dir (absolute);
    }

  return zot_paths_get_extensions_dir ();
}

/* ext list ---------------------------------------------------------------- */

static void
append_cell (GString    *line,
             const char *text,
             guint       width,
             gboolean    last)
{
  g_string_append (line, text);
  if (last)
    return;
  for (glong pad = (glong) width - g_utf8_strlen (text, -1); pad > 0; pad--)
    g_string_append_c (line, ' ');
  g_string_append (line, "  ");
}

static void
print_row (const char * const *cells,
           const guint        *widths)
{
  g_autoptr(GString) line = g_string_new (NULL);

  for (guint column = 0; column < N_COLUMNS; column++)
    append_cell (line, cells[column], widths[column], column == N_COLUMNS - 1);

  /* An empty last cell would leave trailing blanks. */
  while (line->len > 0 && line->str[line->len - 1] == ' ')
    g_string_truncate (line, line->len - 1);

  g_print ("%s\n", line->str);
}

static const char *
or_default (const char *value,
            const char *fallback)
{
  return value != NULL ? value : fallback;
}

static GStrv
describe_extension (ZotDiscovered  *discovered,
                    char          **out_failure)
{
  ZotManifest *manifest = discovered->manifest;
  g_autoptr(GError) error = NULL;
  g_autofree char *exec = NULL;
  GStrv cells = g_new0 (char *, N_COLUMNS + 1);
  const char *state;

  if (manifest == NULL)
    {
      /* Translators: an extension's state in the STATE column of "zot ext list" */
      state = _("failed");
      *out_failure = g_strdup (discovered->error->message);
    }
  else if ((exec = zot_manifest_resolve_exec (manifest, &error)) == NULL)
    {
      state = _("failed");
      *out_failure = g_strdup (error->message);
    }
  else if (!zot_grants_may_start (discovered->directory, discovered->scope, manifest))
    {
      g_autoptr(GError) approval = zot_grants_approval_error (discovered->directory, manifest);

      /* Translators: an extension's state in the STATE column of "zot ext list":
       * a project's extension that has not been trusted yet */
      state = _("needs approval");
      *out_failure = g_strdup (approval->message);
    }
  else
    {
      /* Translators: an extension's state in the STATE column of "zot ext list" */
      state = zot_manifest_get_enabled (manifest) ? _("enabled") : _("disabled");
      *out_failure = NULL;
    }

  if (manifest != NULL)
    {
      cells[COLUMN_NAME] = g_strdup (zot_manifest_get_name (manifest));
      cells[COLUMN_VERSION] = g_strdup (or_default (zot_manifest_get_version (manifest), "-"));
      cells[COLUMN_LANGUAGE] = g_strdup (or_default (zot_manifest_get_language (manifest), "-"));
      cells[COLUMN_DESCRIPTION] =
        g_strdup (or_default (zot_manifest_get_description (manifest), ""));
    }
  else
    {
      cells[COLUMN_NAME] = g_path_get_basename (discovered->directory);
      cells[COLUMN_VERSION] = g_strdup ("-");
      cells[COLUMN_LANGUAGE] = g_strdup ("-");
      cells[COLUMN_DESCRIPTION] = g_strdup ("");
    }
  cells[COLUMN_STATE] = g_strdup (state);
  cells[COLUMN_SCOPE] = g_strdup (zot_extension_scope_to_string (discovered->scope));
  cells[COLUMN_BOX] = zot_cli_ext_box_cell (manifest);
  cells[COLUMN_DIRECTORY] = g_strdup (discovered->directory);

  /* One row per line, whatever a description holds. */
  for (guint column = 0; column < N_COLUMNS; column++)
    g_strdelimit (cells[column], "\r\n\t", ' ');

  return cells;
}

/* What went wrong at the extension's last start (rejected tools, lost
 * conflicts), as the host recorded it. */
static void
print_last_problems (const char *name)
{
  g_autofree char *path = zot_paths_get_state_file (name);
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root = NULL;
  JsonObject *state;
  JsonArray *problems;

  /* An empty file parses without a root: a run that ended while writing
   * it leaves one. */
  if (!zot_file_get_contents_bounded (path, ZOT_STATE_FILE_MAX_BYTES, &contents, NULL, NULL) ||
      !zot_json_parser_load (parser, contents, -1, NULL) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;

  state = json_node_get_object (root);
  if (!json_object_has_member (state, "problems") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (state, "problems")))
    return;

  problems = json_object_get_array_member (state, "problems");
  for (guint i = 0; i < json_array_get_length (problems); i++)
    {
      JsonNode *node = json_array_get_element (problems, i);

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        /* Translators: under an extension in "zot ext list": the error it reported when it was
         * last started */
        g_print (_("  at last start: %s\n"), json_node_get_string (node));
    }
}

static int
ext_list (int    argc,
          char **argv)
{
  g_autofree char *cwd = NULL;
  g_autofree char *absolute_cwd = NULL;
  g_auto(GStrv) args = NULL;
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) failures = NULL;
  const char *headers[N_COLUMNS] = {
    /* Translators: column headings of "zot ext list"; the columns are aligned, so keep them
     * short */
    _("NAME"), _("VERSION"), _("STATE"), _("SCOPE"), _("BOX"),
    /* Translators: column headings of "zot ext list"; the columns are aligned, so keep them
     * short */
    _("DIRECTORY"), _("LANGUAGE"), _("DESCRIPTION"),
  };
  const char *keys[N_COLUMNS + 1] = { "name", "version", "state", "scope", "box", "directory", "language",
                                      "description", NULL };
  guint widths[N_COLUMNS] = { 0, };
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    /* Translators: --help of "zot ext list" */
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the list as JSON, with each one's permissions"), NULL },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &cwd,
      /* Translators: DIR names the option's argument in --help, as in --cwd=DIR; translate DIR
       * the same way here and in the argument's name */
      N_("Look for project extensions in DIR/.zot/extensions"), N_("DIR") },
    { NULL }
  };

  if (!parse_options ("ext list", NULL,
                      _("Show the extensions zot finds, in load order, and their state."),
                      entries, argc, argv, &args))
    return ZOT_EXIT_USAGE;
  if (g_strv_length (args) > 1)
    /* Translators: %s is a word of the command line that the command does not take */
    return usage_error ("ext list", _("unexpected argument \"%s\""), args[1]);

  if (cwd != NULL)
    absolute_cwd = g_canonicalize_filename (cwd, NULL);

  found = zot_discover_extensions (absolute_cwd, NULL, FALSE);
  if (found->len == 0 && !json)
    {
      g_autofree char *project = zot_paths_get_project_extensions_dir (absolute_cwd);
      g_autofree char *user = zot_paths_get_extensions_dir ();

      /* Translators: the project's folder of extensions, then the user's */
      g_print (_("no extensions installed; zot looks for them in %s and %s\n"), project, user);
      return ZOT_EXIT_OK;
    }

  rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  failures = g_ptr_array_new_with_free_func (g_free);

  for (guint column = 0; column < N_COLUMNS; column++)
    widths[column] = g_utf8_strlen (headers[column], -1);

  for (guint i = 0; i < found->len; i++)
    {
      char *failure = NULL;
      GStrv cells = describe_extension (g_ptr_array_index (found, i), &failure);

      for (guint column = 0; column < N_COLUMNS; column++)
        widths[column] = MAX (widths[column], (guint) g_utf8_strlen (cells[column], -1));

      g_ptr_array_add (rows, cells);
      g_ptr_array_add (failures, failure);
    }

  if (json)
    {
      zot_cli_ext_print_list_json (keys, found, rows, failures);
      return ZOT_EXIT_OK;
    }
  print_row (headers, widths);
  for (guint i = 0; i < rows->len; i++)
    {
      const char *failure = g_ptr_array_index (failures, i);

      ZotDiscovered *discovered = g_ptr_array_index (found, i);

      print_row ((const char * const *) g_ptr_array_index (rows, i), widths);
      if (failure != NULL)
        /* Translators: under an extension in "zot ext list": why it cannot be loaded */
        g_print (_("  error: %s\n"), failure);
      if (discovered->manifest != NULL)
        print_last_problems (zot_manifest_get_name (discovered->manifest));
    }

  return ZOT_EXIT_OK;
}

/* ext install ------------------------------------------------------------- */

static int
ext_install (int    argc,
             char **argv)
{
  g_autofree char *cwd = NULL;
  g_autofree char *target_parent = NULL;
  g_auto(GStrv) args = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(GError) error = NULL;
  gboolean project = FALSE;
  gboolean force = FALSE;
  gboolean build = FALSE;
  gboolean yes = FALSE;
  ZotCliAsyncWait wait;
  const GOptionEntry entries[] = {
    { "project", 0, 0, G_OPTION_ARG_NONE, &project,
      N_("Install into the project's .zot/extensions instead of $ZOT_HOME/extensions"), NULL },
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &yes,
      N_("Accept the permissions it asks for without asking (for scripts)"), NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      N_("Replace an installed extension of the same name"), NULL },
    { "build", 0, 0, G_OPTION_ARG_NONE, &build,
      N_("Run the manifest's \"build\" in the copy first; install nothing if it fails"), NULL },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &cwd,
      N_("The project directory for --project (default: the current one)"), N_("DIR") },
    { NULL }
  };

  /* Translators: the argument of "zot ext install" in --help: a path or a URL */
  if (!parse_options ("ext install", _("PATH|URL"),
                      _("Copy an extension directory, unpack an archive of one (tar, "
                        "compressed or not, zip or 7z), or clone a git URL, into the extensions "
                        "directory.\nextension.json decides the name; nothing is left behind "
                        "on failure."),
                      entries, argc, argv, &args))
    return ZOT_EXIT_USAGE;
  if (g_strv_length (args) < 2)
    return usage_error ("ext install", _("missing the extension's directory, archive or git URL"));
  if (g_strv_length (args) > 2)
    return usage_error ("ext install", _("unexpected argument \"%s\""), args[2]);

  target_parent = extensions_dir_for (project, cwd);

  zot_cli_async_wait_init (&wait);
  zot_installer_install_consent_async (args[1], target_parent, force, build, zot_cli_ext_consent, &yes,
                                       wait.cancellable, zot_cli_async_wait_done_cb, &wait);
  zot_cli_async_wait_run (&wait);
  manifest = zot_installer_install_finish (wait.result, &error);
  zot_cli_async_wait_clear (&wait);

  if (manifest == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* Translators: %s is the path or URL given on the command line */
          g_printerr (_("zot: installing %s was interrupted; nothing was installed\n"), args[1]);
          return ZOT_EXIT_FAILED;
        }
      return report_error (error);
    }

  /* Translators: the extension's name, its version, then the folder it was installed into */
  g_print (_("installed %s %s into %s\n"),
           zot_manifest_get_name (manifest),
           zot_manifest_get_version (manifest) != NULL ? zot_manifest_get_version (manifest) : "",
           zot_manifest_get_directory (manifest));

  zot_cli_ext_install_build (manifest, args[1], build);
  if (!zot_cli_ext_record_grant (manifest, project, &error))
    return report_error (error);
  return ZOT_EXIT_OK;
}

/* ext remove, enable, disable --------------------------------------------- */

/* The name given and the folder to find it in: @out_parent is NULL when
 * neither --project nor --global was given (see find_named). */
static gboolean
parse_name_command (const char   *command,
                    const char   *summary,
                    int           argc,
                    char        **argv,
                    char        **out_name,
                    char        **out_parent,
                    char        **out_project_parent,
                    int          *out_status)
{
  g_autofree char *cwd = NULL;
  g_auto(GStrv) args = NULL;
  gboolean project = FALSE;
  gboolean global = FALSE;
  const GOptionEntry entries[] = {
    { "project", 0, 0, G_OPTION_ARG_NONE, &project,
      N_("Act on the project's .zot/extensions only"), NULL },
    { "global", 0, 0, G_OPTION_ARG_NONE, &global,
      N_("Act on $ZOT_HOME/extensions only"), NULL },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &cwd,
      N_("The project directory (default: the current one)"), N_("DIR") },
    { NULL }
  };

  /* Translators: the argument of the command in --help: an extension's name */
  if (!parse_options (command, _("NAME"), summary, entries, argc, argv, &args))
    {
      *out_status = ZOT_EXIT_USAGE;
      return FALSE;
    }
  if (project && global)
    {
      /* Translators: --project and --global are options, keep them */
      *out_status = usage_error (command, _("give --project or --global, not both"));
      return FALSE;
    }
  if (g_strv_length (args) < 2)
    {
      *out_status = usage_error (command, _("missing the extension's name"));
      return FALSE;
    }
  if (g_strv_length (args) > 2)
    {
      *out_status = usage_error (command, _("unexpected argument \"%s\""), args[2]);
      return FALSE;
    }

  *out_name = g_strdup (args[1]);
  *out_parent = project || global ? extensions_dir_for (project, cwd) : NULL;
  *out_project_parent = extensions_dir_for (TRUE, cwd);
  return TRUE;
}

/* The directory of @name: in @parent when one was chosen, else wherever it
 * is installed (see zot_cli_ext_find_in_either_scope). */
static char *
find_named (const char  *name,
            const char  *parent,
            const char  *project_parent,
            GError     **error)
{
  g_autofree char *user_parent = NULL;

  if (parent != NULL)
    return zot_cli_ext_find_installed (parent, name, error);

  user_parent = zot_paths_get_extensions_dir ();
  return zot_cli_ext_find_in_either_scope (name, project_parent, user_parent, error);
}

static int
ext_remove (int    argc,
            char **argv)
{
  g_autofree char *name = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *project_parent = NULL;
  g_autofree char *directory = NULL;
  g_autofree char *basename = NULL;
  g_autoptr(GError) error = NULL;
  int status = ZOT_EXIT_OK;

  if (!parse_name_command ("ext remove", _("Delete an installed extension and its files."),
                           argc, argv, &name, &parent, &project_parent, &status))
    return status;
  /* Removing is not undone: only where asked, the user's folder unless told. */
  if (parent == NULL)
    parent = zot_paths_get_extensions_dir ();

  directory = zot_cli_ext_find_installed (parent, name, &error);
  if (directory == NULL)
    return report_error (error);

  basename = g_path_get_basename (directory);
  if (!zot_installer_remove (parent, basename, &error))
    return report_error (error);

  /* Translators: the extension's name, then the folder of extensions it was removed from */
  g_print (_("removed %s from %s\n"), name, parent);
  return ZOT_EXIT_OK;
}

static int
set_key_grant (const char  *command,
               const char  *summary,
               gboolean     granted,
               int          argc,
               char       **argv)
{
  const char * const *variables = zot_provider_table_get_key_variables ();
  g_auto(GStrv) args = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *known = NULL;

  /* Translators: the arguments of "zot ext allow-key" in --help: an extension's name and an
   * environment variable */
  if (!parse_options (command, _("NAME VARIABLE"), summary, NULL, argc, argv, &args))
    return ZOT_EXIT_USAGE;
  if (g_strv_length (args) != 3)
    /* Translators: %s is an example variable, such as ANTHROPIC_API_KEY */
    return usage_error (command, _("give the extension's name and the key's variable, such as %s"),
                        variables[0]);
  if (!zot_name_is_existing_directory (args[1]))
    return usage_error (command, _("that is not a valid extension name; give the name that zot ext list shows"));
  if (!zot_provider_is_key_variable (args[2]))
    {
      known = g_strjoinv (", ", (char **) variables);
      /* Translators: the word given on the command line, then the comma-separated variables that
       * are allowed */
      return usage_error (command, _("\"%s\" is not a provider key variable (%s)"), args[2], known);
    }

  if (!zot_key_grants_set (args[1], args[2], granted, &error))
    return report_error (error);

  /* Translators: the extension's name, then an environment variable such as ANTHROPIC_API_KEY;
   * keep the "$"; "manifest" is the extension's extension.json file */
  g_print (granted ? _("%s gets $%s from its next start, if its manifest asks for it\n")
                   : _("%s no longer gets $%s\n"),
           args[1], args[2]);
  return ZOT_EXIT_OK;
}

static int
ext_allow_key (int    argc,
               char **argv)
{
  return set_key_grant ("ext allow-key",
                        _("Let an extension have a provider key its manifest asks for (\"env\")."),
                        TRUE, argc, argv);
}

static int
ext_deny_key (int    argc,
              char **argv)
{
  return set_key_grant ("ext deny-key", _("Take a provider key back from an extension."),
                        FALSE, argc, argv);
}

static int
set_enabled (const char  *command,
             const char  *summary,
             gboolean     enabled,
             int          argc,
             char       **argv)
{
  g_autofree char *name = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *project_parent = NULL;
  g_autofree char *directory = NULL;
  g_autoptr(GError) error = NULL;
  int status = ZOT_EXIT_OK;

  if (!parse_name_command (command, summary, argc, argv, &name, &parent, &project_parent,
                           &status))
    return status;

  directory = find_named (name, parent, project_parent, &error);
  if (directory == NULL)
    return report_error (error);

  if (!zot_installer_set_enabled (directory, enabled, &error))
    return report_error (error);

  /* Translators: %s is the extension's name; printed by "zot ext enable" and "zot ext disable" */
  g_print (enabled ? _("enabled %s\n") : _("disabled %s\n"), name);
  return ZOT_EXIT_OK;
}

static int
ext_enable (int    argc,
            char **argv)
{
  return set_enabled ("ext enable", _("Let zot start an installed extension again."),
                      TRUE, argc, argv);
}

static int
ext_disable (int    argc,
             char **argv)
{
  return set_enabled ("ext disable",
                      _("Keep an extension installed and listed, but do not start it."),
                      FALSE, argc, argv);
}

/* ext logs ---------------------------------------------------------------- */

/* A log holds whatever the extension wrote to stderr: raw bytes into a
 * pipe or a file, but on a terminal its escapes are shown, not obeyed. A
 * character cut by the chunk waits for its end. */
static gboolean
log_write (LogFollower  *self,
           const char   *data,
           gsize         size,
           GError      **error)
{
  if (isatty (fileno (stdout)))
    {
      g_autofree char *shown = NULL;
      const char *end = NULL;
      gsize complete;

      g_byte_array_append (self->pending, (const guint8 *) data, (guint) size);
      g_utf8_validate_len ((const char *) self->pending->data, self->pending->len, &end);
      complete = (gsize) (end - (const char *) self->pending->data);
      /* Only a short tail that starts like a character can be one cut. */
      if (complete < self->pending->len &&
          (self->pending->len - complete >= 4 ||
           self->pending->data[complete] < 0xC2 || self->pending->data[complete] > 0xF4))
        complete = self->pending->len;

      shown = zot_text_for_terminal ((const char *) self->pending->data, (gssize) complete);
      g_byte_array_remove_range (self->pending, 0, (guint) complete);
      data = shown;
      size = strlen (shown);
      if (fwrite (data, 1, size, stdout) == size)
        return TRUE;
    }
  else if (fwrite (data, 1, size, stdout) == size)
    return TRUE;

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, _("cannot write to standard output"));
  return FALSE;
}

static gboolean
log_copy_available (LogFollower  *self,
                    GError      **error)
{
  if (self->stream == NULL)
    return TRUE;

  for (;;)
    {
      g_autoptr(GBytes) bytes = NULL;
      gsize size;

      bytes = g_input_stream_read_bytes (G_INPUT_STREAM (self->stream), LOG_READ_CHUNK,
                                         NULL, error);
      if (bytes == NULL)
        return FALSE;

      size = g_bytes_get_size (bytes);
      if (size == 0)
        break;

      if (!log_write (self, g_bytes_get_data (bytes, NULL), size, error))
        return FALSE;
    }

  fflush (stdout);
  return TRUE;
}

static void
log_follower_fail (LogFollower  *self,
                   const GError *error)
{
  report_error (error);
  self->status = ZOT_EXIT_FAILED;
  g_main_loop_quit (self->loop);
}

static void
log_follower_rewind_if_truncated (LogFollower *self)
{
  g_autoptr(GFileInfo) info = NULL;

  if (self->stream == NULL)
    return;

  info = g_file_input_stream_query_info (self->stream, G_FILE_ATTRIBUTE_STANDARD_SIZE, NULL, NULL);
  if (info != NULL && g_file_info_get_size (info) < g_seekable_tell (G_SEEKABLE (self->stream)))
    g_seekable_seek (G_SEEKABLE (self->stream), 0, G_SEEK_SET, NULL, NULL);
}

static void
on_log_changed_cb (GFileMonitor      *monitor,
                   GFile             *file,
                   GFile             *other_file,
                   GFileMonitorEvent  event,
                   gpointer           user_data)
{
  LogFollower *self = user_data;
  g_autoptr(GError) error = NULL;

  switch (event)
    {
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_DELETED:
      /* Rotated or recreated: finish the old file, then start on the new. */
      if (!log_copy_available (self, &error))
        {
          log_follower_fail (self, error);
          return;
        }
      g_clear_object (&self->stream);
      if (event == G_FILE_MONITOR_EVENT_CREATED)
        self->stream = g_file_read (self->file, NULL, NULL);
      break;

    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
      if (self->stream == NULL)
        self->stream = g_file_read (self->file, NULL, NULL);
      else
        log_follower_rewind_if_truncated (self);
      break;

    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
    case G_FILE_MONITOR_EVENT_MOVED:
    case G_FILE_MONITOR_EVENT_RENAMED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
    default:
      return;
    }

  if (!log_copy_available (self, &error))
    log_follower_fail (self, error);
}

static gboolean
on_interrupt_quit_cb (gpointer user_data)
{
  LogFollower *self = user_data;

  /* ^C is how a follow ends; it is not a failure. */
  self->status = ZOT_EXIT_OK;
  g_main_loop_quit (self->loop);
  return G_SOURCE_CONTINUE;
}

static int
ext_logs (int    argc,
          char **argv)
{
  g_autofree char *path = NULL;
  g_auto(GStrv) args = NULL;
  g_autoptr(GFileMonitor) monitor = NULL;
  g_autoptr(GError) error = NULL;
  gboolean follow = FALSE;
  g_autoptr(GByteArray) pending = g_byte_array_new ();
  LogFollower self = { NULL, };
  guint sigint_id = 0;
  guint sigterm_id = 0;
  const GOptionEntry entries[] = {
    { "follow", 'f', 0, G_OPTION_ARG_NONE, &follow,
      N_("Keep printing what is appended, until interrupted"), NULL },
    { NULL }
  };

  if (!parse_options ("ext logs", _("NAME"),
                      _("Print the extension's log: its stderr and the host's notes about it."),
                      entries, argc, argv, &args))
    return ZOT_EXIT_USAGE;
  if (g_strv_length (args) < 2)
    return usage_error ("ext logs", _("missing the extension's name"));
  if (g_strv_length (args) > 2)
    return usage_error ("ext logs", _("unexpected argument \"%s\""), args[2]);
  if (!zot_name_is_existing_directory (args[1]))
    return usage_error ("ext logs", _("that is not a valid extension name; give the name that zot ext list shows"));

  path = zot_paths_get_log_file (args[1]);
  self.file = g_file_new_for_path (path);
  self.pending = pending;
  self.stream = g_file_read (self.file, NULL, &error);
  if (self.stream == NULL)
    {
      g_clear_object (&self.file);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        /* Translators: the extension's name, then the path of its log file */
        g_printerr (_("zot: no log exists yet for %s; "
                      "it would be at %s once the extension has been started\n"),
                    args[1], path);
      else
        /* Translators: the log file's path, then the system's error message */
        g_printerr (_("zot: cannot read %s (%s); check its permissions\n"), path, error->message);
      return ZOT_EXIT_FAILED;
    }

  if (follow)
    {
      /* Watch before the first read, so that nothing appended in between
       * is missed; handle ^C before printing, so that it never kills us. */
      monitor = g_file_monitor_file (self.file, G_FILE_MONITOR_NONE, NULL, &error);
      if (monitor == NULL)
        {
          g_clear_object (&self.stream);
          g_clear_object (&self.file);
          /* Translators: the log file's path, then the system's error message; "follow" as in
           * tail -f: keep printing what is added */
          g_printerr (_("zot: cannot follow %s (%s)\n"), path, error->message);
          return ZOT_EXIT_FAILED;
        }
      g_file_monitor_set_rate_limit (monitor, LOG_FOLLOW_RATE_LIMIT_MS);
      self.loop = g_main_loop_new (NULL, FALSE);
      g_signal_connect (monitor, "changed", G_CALLBACK (on_log_changed_cb), &self);
      sigint_id = g_unix_signal_add (SIGINT, on_interrupt_quit_cb, &self);
      sigterm_id = g_unix_signal_add (SIGTERM, on_interrupt_quit_cb, &self);
    }

  if (!log_copy_available (&self, &error))
    {
      report_error (error);
      self.status = ZOT_EXIT_FAILED;
    }
  else if (follow)
    {
      g_main_loop_run (self.loop);
    }

  if (follow)
    {
      g_source_remove (sigint_id);
      g_source_remove (sigterm_id);
      g_signal_handlers_disconnect_by_func (monitor, on_log_changed_cb, &self);
      g_file_monitor_cancel (monitor);
    }
  g_clear_pointer (&self.loop, g_main_loop_unref);
  g_clear_object (&self.stream);
  g_clear_object (&self.file);

  return self.status;
}

/* ext --------------------------------------------------------------------- */

static const struct
{
  const char        *name;
  const char        *synopsis;
  const char        *summary;
  ZotExtCommandFunc  func;
} ext_commands[] = {
  { "list", "list [--cwd DIR] [--json]",
    N_("Show the extensions found and their state"), ext_list },
  { "install", "install PATH|URL [--project] [--force] [--build] [--yes]",
    N_("Install from a directory, an archive or a git URL"), ext_install },
  { "remove", "remove NAME [--project|--global]",
    N_("Delete an installed extension"), ext_remove },
  { "enable", "enable NAME [--project|--global]",
    N_("Let zot start an extension"), ext_enable },
  { "disable", "disable NAME [--project|--global]",
    N_("Keep an extension installed but stopped"), ext_disable },
  { "logs", "logs NAME [-f]",
    N_("Print an extension's log; -f follows it"), ext_logs },
  { "allow-key", "allow-key NAME VARIABLE",
    N_("Give an extension the provider key its manifest asks for"), ext_allow_key },
  { "deny-key", "deny-key NAME VARIABLE",
    N_("Take a provider key back from an extension"), ext_deny_key },
  { "check", "check DIR [--scenario] [--json]",
    N_("Play the host against an extension and report protocol violations"),
    zot_cli_ext_check_main },
  { "stats", "stats [--json] [PROMPT]",
    N_("Run the extensions (and PROMPT) and show what each costs"), zot_cli_ext_stats_main },
  { "new", "new NAME --lang LANG [--dir DIR]",
    N_("Write a new extension to start from, in Go, Python, Node, TypeScript, C or sh"),
    zot_cli_ext_new_main },
  { "secret", "secret set|list|remove NAME [KEY]",
    N_("Keep an extension's declared secrets in the keyring; set reads stdin"), zot_cli_ext_secret_main },
  { "trust", "trust [NAME…] [--cwd DIR]",
    N_("Let the project's extensions start in this project"), zot_cli_ext_trust_main },
  { "info", "info NAME", N_("Show what an extension was granted"), zot_cli_ext_permissions_main },
  { "permissions", "permissions NAME [--revoke WHAT]…",
    N_("Narrow what an extension was granted"), zot_cli_ext_permissions_main },
};

static void
print_ext_help (void)
{
  g_print ("%s\n  zot ext %s\n\n%s\n\n%s\n",
           /* Translators: the lines of "zot ext --help": a heading, the arguments, a sentence
            * and a heading */
           _("Usage:"), _("COMMAND [OPTION…]"), _("Manage zot's extensions."), _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (ext_commands); i++)
    g_print ("  %-42s %s\n", ext_commands[i].synopsis, _(ext_commands[i].summary));
  g_print ("\n%s\n", _("Run zot ext COMMAND --help for a command's options."));
}

int
zot_cli_ext_main (int    argc,
                  char **argv)
{
  const char *command;

  g_return_val_if_fail (argc >= 1 && argv != NULL, ZOT_EXIT_USAGE);

  if (argc < 2)
    return usage_error ("ext",
                        _("missing a command: list, install, remove, enable, disable, logs or check"));

  command = argv[1];
  if (g_str_equal (command, "--help") || g_str_equal (command, "-h") ||
      g_str_equal (command, "-?") || g_str_equal (command, "help"))
    {
      print_ext_help ();
      return ZOT_EXIT_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (ext_commands); i++)
    if (g_str_equal (command, ext_commands[i].name))
      return ext_commands[i].func (argc - 1, argv + 1);

  return usage_error ("ext",
                      /* Translators: %s is the word given; list, install, remove, enable,
                       * disable, logs and check are commands: keep them */
                      _("unknown command \"%s\"; "
                        "use list, install, remove, enable, disable, logs or check"),
                      command);
}

/* update ------------------------------------------------------------------ */

int
zot_cli_update_main (int    argc,
                     char **argv)
{
  g_autofree char *cwd = NULL;
  g_autofree char *extensions_dir = NULL;
  g_auto(GStrv) args = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GError) error = NULL;
  gboolean project = FALSE, yes = FALSE;
  guint failed = 0, refused = 0;
  ZotCliAsyncWait wait;
  const GOptionEntry entries[] = {
    { "project", 0, 0, G_OPTION_ARG_NONE, &project,
      N_("Update the project's .zot/extensions instead of $ZOT_HOME/extensions"), NULL },
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &yes, N_("Accept what a new version asks for without asking"), NULL },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &cwd,
      N_("The project directory for --project (default: the current one)"), N_("DIR") },
    { NULL }
  };

  g_return_val_if_fail (argc >= 1 && argv != NULL, ZOT_EXIT_USAGE);

  if (!parse_options ("update", NULL,
                      _("Fast-forward every installed extension that is a git checkout."),
                      entries, argc, argv, &args))
    return ZOT_EXIT_USAGE;
  if (g_strv_length (args) > 1)
    return usage_error ("update", _("unexpected argument \"%s\""), args[1]);

  extensions_dir = extensions_dir_for (project, cwd);

  zot_cli_async_wait_init (&wait);
  zot_installer_update_consent_async (extensions_dir, zot_cli_update_consent, &yes, wait.cancellable,
                                      zot_cli_async_wait_done_cb, &wait);
  zot_cli_async_wait_run (&wait);
  results = zot_installer_update_finish (wait.result, &error);
  zot_cli_async_wait_clear (&wait);

  if (results == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_printerr (_("zot: update interrupted\n"));
          return ZOT_EXIT_FAILED;
        }
      return report_error (error);
    }

  if (results->len == 0)
    {
      /* Translators: %s is the folder of extensions */
      g_print (_("no extensions installed in %s\n"), extensions_dir);
      return ZOT_EXIT_OK;
    }

  for (guint i = 0; i < results->len; i++)
    {
      ZotUpdateResult *result = g_ptr_array_index (results, i);

      switch (result->status)
        {
        case ZOT_UPDATE_STATUS_UPDATED:
          /* Translators: printed by "zot update" for each extension; %s is its name */
          g_print (_("%s: updated\n"), result->name);
          break;

        case ZOT_UPDATE_STATUS_UP_TO_DATE:
          g_print (_("%s: already up to date\n"), result->name);
          break;

        case ZOT_UPDATE_STATUS_NOT_GIT:
          g_print (_("%s: not a git checkout, skipped\n"), result->name);
          break;

        case ZOT_UPDATE_STATUS_REFUSED:
          g_printerr ("zot: %s\n", result->message);
          refused++;
          break;

        case ZOT_UPDATE_STATUS_FAILED:
        default:
          /* Translators: the extension's name, then why updating it failed */
          g_print (_("%s: failed: %s\n"), result->name, result->message);
          failed++;
          break;
        }
    }

  if (failed > 0)
    {
      /* Translators: %u is how many extensions could not be updated */
      g_printerr (g_dngettext (GETTEXT_PACKAGE,
                               "zot: %u extension could not be updated\n",
                               "zot: %u extensions could not be updated\n", failed),
                  failed);
      return ZOT_EXIT_FAILED;
    }

  return refused > 0 ? ZOT_EXIT_FAILED : ZOT_EXIT_OK;
}
