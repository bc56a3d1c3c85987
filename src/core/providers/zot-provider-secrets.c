/* zot-provider-secrets.c — provider keys kept out of /proc/PID/environ
 * and /proc/PID/cmdline. */
#define G_LOG_DOMAIN "zot-provider"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include <glib/gi18n.h>

#include "zot-limits.h"
#include "zot-paths.h"
#include "zot-provider-secrets.h"
#include "zot-provider-table.h"

extern char **environ;

/* Variable name → the value it had when the program started. */
static GHashTable *environment_keys;
/* The arguments with the keys in them: what the program parses. Kept for
 * the life of the process, which parses and reorders them. */
static char **captured_args;

/* The kernel shows /proc/PID/environ from the bytes the process started
 * with, not from environ[]: unsetenv() alone leaves the key readable. */
static void
capture_environment (void)
{
  const char * const *variables = zot_provider_table_get_key_variables ();

  for (guint i = 0; variables[i] != NULL; i++)
    {
      gsize name_length = strlen (variables[i]);

      for (char **entry = environ; entry != NULL && *entry != NULL; entry++)
        {
          char *value;

          if (strncmp (*entry, variables[i], name_length) != 0 || (*entry)[name_length] != '=')
            continue;
          value = *entry + name_length + 1;
          if (environment_keys == NULL)
            environment_keys = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
          g_hash_table_replace (environment_keys, (gpointer) variables[i], g_strdup (value));
          memset (value, '\0', strlen (value));
        }
      g_unsetenv (variables[i]);
    }
}

/* Keeps @value for the parser and leaves stars of the same length where
 * ps and /proc/PID/cmdline read it. */
static char *
take_argument (char *value)
{
  char *copy = g_strdup (value);

  memset (value, '*', strlen (value));
  return copy;
}

/**
 * zot_provider_read_key_file:
 * @path: the file --api-key-file names
 *
 * Reads a key: the file's first line, without its newline. The file must
 * be a regular file of at most %ZOT_API_KEY_FILE_MAX_BYTES.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL with @error set,
 *   worded for the user and naming @path
 */
char *
zot_provider_read_key_file (const char  *path,
                            GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  char *end;

  g_return_val_if_fail (path != NULL, NULL);

  if (!zot_file_get_contents_bounded (path, ZOT_API_KEY_FILE_MAX_BYTES, &contents, NULL, &local_error))
    {
      g_set_error (error, G_FILE_ERROR, local_error->code,
                   /* Translators: the file's path, then why it cannot be read */
                   _("--api-key-file %s: %s; give a file that holds the key"),
                   path, local_error->message);
      return NULL;
    }

  end = strpbrk (contents, "\r\n");
  if (end != NULL)
    *end = '\0';
  if (*g_strstrip (contents) == '\0')
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   /* Translators: %s is the file's path */
                   _("--api-key-file %s: the file is empty; put the key on its first line"), path);
      return NULL;
    }

  return g_steal_pointer (&contents);
}

/* `--api-key KEY`, `--api-key=KEY` and the same for --api-key-file, as
 * GOption reads them, up to a "--". A key file becomes --api-key=KEY:
 * read here, in the process the user started, it is read against the
 * user's directory even when a window already open takes the command
 * line. */
static gboolean
capture_arguments (int      argc,
                   char   **argv,
                   GError **error)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  gboolean options = TRUE;

  for (int i = 0; i < argc; i++)
    {
      g_autofree char *key = NULL;
      const char *file = NULL;

      if (g_str_equal (argv[i], "--"))
        options = FALSE;

      if (options && g_str_equal (argv[i], "--api-key") && i + 1 < argc)
        {
          g_ptr_array_add (args, g_strdup (argv[i]));
          g_ptr_array_add (args, take_argument (argv[++i]));
          continue;
        }
      if (options && g_str_has_prefix (argv[i], "--api-key="))
        {
          key = take_argument (argv[i] + strlen ("--api-key="));
          g_ptr_array_add (args, g_strconcat ("--api-key=", key, NULL));
          continue;
        }

      if (options && g_str_equal (argv[i], "--api-key-file") && i + 1 < argc)
        file = argv[++i];
      else if (options && g_str_has_prefix (argv[i], "--api-key-file="))
        file = argv[i] + strlen ("--api-key-file=");
      if (file == NULL)
        {
          g_ptr_array_add (args, g_strdup (argv[i]));
          continue;
        }
      key = zot_provider_read_key_file (file, error);
      if (key == NULL)
        return FALSE;
      g_ptr_array_add (args, g_strconcat ("--api-key=", key, NULL));
    }

  g_strfreev (captured_args);
  g_ptr_array_add (args, NULL);
  captured_args = (char **) g_ptr_array_free (g_steal_pointer (&args), FALSE);
  return TRUE;
}

/**
 * zot_provider_capture_secrets:
 * @argc: main()'s
 * @argv: main()'s; the keys in it are overwritten
 * @args: (out) (transfer none): the arguments to parse, with the keys
 *   (and a key file's key in place of --api-key-file), owned here for the
 *   life of the process
 *
 * Takes the provider keys out of what other processes see: the key
 * variables (zot_provider_table_get_key_variables()) out of the
 * environment, into zot_provider_get_environment_key(); --api-key's
 * value out of the command line. Then the process stops being dumpable,
 * so that a process of the same user (a tool's shell, an extension)
 * cannot read its memory, environ or cmdline through /proc either.
 *
 * Call first thing in main(), before any thread exists: another thread
 * may read the environment while it changes.
 *
 * Returns: %FALSE with @error set when --api-key-file cannot be read
 */
gboolean
zot_provider_capture_secrets (int      argc,
                              char   **argv,
                              char  ***args,
                              GError **error)
{
  g_return_val_if_fail (argv != NULL, FALSE);
  g_return_val_if_fail (args != NULL, FALSE);

  capture_environment ();
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    g_warning ("cannot make this process undumpable: %s", g_strerror (errno));
  if (!capture_arguments (argc, argv, error))
    return FALSE;

  *args = captured_args;
  return TRUE;
}

/**
 * zot_provider_get_environment_key:
 * @variable: a provider key variable
 *
 * Returns: (nullable): its value when the program started (see
 *   zot_provider_capture_secrets()), else the environment's now
 */
const char *
zot_provider_get_environment_key (const char *variable)
{
  const char *value;

  g_return_val_if_fail (variable != NULL, NULL);

  value = environment_keys != NULL ? g_hash_table_lookup (environment_keys, variable) : NULL;
  return value != NULL ? value : g_getenv (variable);
}
