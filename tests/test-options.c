/* The shared command-line options: one declaration for the command line
 * and the window, so that they read the same flags the same way. */
#include "config.h"

#include <glib/gstdio.h>

#include "zot-limits.h"
#include "zot-options.h"
#include "zot-provider-secrets.h"

static gboolean
parse (ZotOptions  *options,
       GError     **error,
       ...)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) args = NULL;
  const char *arg;
  va_list ap;

  g_ptr_array_add (argv, g_strdup ("zot"));
  va_start (ap, error);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  args = (GStrv) g_ptr_array_steal (argv, NULL);

  zot_options_init (options);
  zot_options_add_entries (options, context);
  return zot_options_parse (context, &args, error) && zot_options_check (options, error);
}

static void
test_defaults (void)
{
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_true (parse (&options, &error, NULL));
  zot_options_to_host (&options, "/work/here", TRUE, &host);
  g_assert_cmpstr (host.cwd, ==, "/work/here");
  g_assert_cmpuint (host.max_steps, ==, ZOT_DEFAULT_MAX_STEPS);
  g_assert_null (host.tools);
  g_assert_cmpuint (g_strv_length (host.ext_paths), ==, 0);
  g_assert_true (host.interactive);
}

/* The window kept the blank in `--tools "read, bash"` and so allowed no
 * tool named " bash"; the command line trimmed it. */
static void
test_tools_trimmed (void)
{
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_true (parse (&options, &error, "--tools", " read, bash,,", NULL));
  zot_options_to_host (&options, "/", FALSE, &host);
  g_assert_cmpuint (g_strv_length (host.tools), ==, 2);
  g_assert_cmpstr (host.tools[0], ==, "read");
  g_assert_cmpstr (host.tools[1], ==, "bash");
}

/* Relative paths are read against the directory zot was started in: a
 * second zot hands its own to the window already open. */
static void
test_paths_relative_to_invocation (void)
{
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_true (parse (&options, &error, "-e", "ext/a", "--ext", "/abs/b", "--cwd", "proj",
                        "--session", "s.jsonl", NULL));
  zot_options_to_host (&options, "/home/u", TRUE, &host);
  g_assert_cmpstr (host.ext_paths[0], ==, "/home/u/ext/a");
  g_assert_cmpstr (host.ext_paths[1], ==, "/abs/b");
  g_assert_cmpstr (host.cwd, ==, "/home/u/proj");
  g_assert_cmpstr (host.session_path, ==, "/home/u/s.jsonl");
}


/* Parses @line (split at spaces) with the shared flags; returns the
 * codemode mode the host gets and, in @rest, the arguments left over. */
static char *
codemode_of (const char  *line,
             char       **rest)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *full = g_strconcat ("zot ", line, NULL);
  g_auto(GStrv) args = g_strsplit (full, " ", -1);

  zot_options_init (&options);
  zot_options_add_entries (&options, context);
  g_assert_true (zot_options_parse (context, &args, &error));
  g_assert_no_error (error);
  g_assert_true (zot_options_check (&options, &error));
  zot_options_to_host (&options, "/", FALSE, &host);
  *rest = g_strjoinv (" ", args + 1);
  return g_strdup (host.codemode != NULL ? host.codemode : "(default)");
}

/* `--codemode WORD` takes WORD only when it is off, on or only; else
 * --codemode alone means on and WORD stays for the prompt. */
static void
test_codemode_flag (void)
{
  struct { const char *line; const char *mode; const char *rest; } cases[] = {
    { "--codemode fix the tests", "on", "fix the tests" },
    { "--codemode", "on", "" },
    { "--codemode --no-ext hi", "on", "hi" },
    { "--codemode off hi", "off", "hi" },
    { "--codemode on hi", "on", "hi" },
    { "--codemode only hi", "only", "hi" },
    { "--codemode=off hi", "off", "hi" },
    { "--codemode=only", "only", "" },
    { "--codemode-only hi", "only", "hi" },
    { "--codemode-only --codemode only", "only", "" },
    { "hi -- --codemode off", "(default)", "hi -- --codemode off" },
    { "hi", "(default)", "hi" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *rest = NULL;
      g_autofree char *mode = codemode_of (cases[i].line, &rest);

      g_test_message ("%s", cases[i].line);
      g_assert_cmpstr (mode, ==, cases[i].mode);
      g_assert_cmpstr (rest, ==, cases[i].rest);
    }
}

/* The window used to take these without a word. */
static void
test_usage_errors (void)
{
  struct { const char *flag; const char *value; const char *message; } cases[] = {
    { "--codemode=sometimes", NULL, "--codemode takes off, on or only" },
    { "--codemode-only", "--codemode=off", "--codemode-only and --codemode=off cannot both be given" },
    { "--max-steps", "0", "--max-steps must be at least 1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(ZotOptions) options = { 0 };
      g_autoptr(GError) error = NULL;

      g_assert_false (parse (&options, &error, cases[i].flag, cases[i].value, NULL));
      g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
      g_assert_nonnull (strstr (error->message, cases[i].message));
    }

  {
    g_auto(ZotOptions) options = { 0 };
    g_autoptr(GError) error = NULL;

    g_assert_false (parse (&options, &error, "--yolo", "--no-yolo", NULL));
    g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  }
  {
    g_auto(ZotOptions) options = { 0 };
    g_autoptr(GError) error = NULL;

    g_assert_true (parse (&options, &error, "--codemode", "only", "--max-steps", "1", NULL));
    g_assert_no_error (error);
  }
}

/* The keys leave main()'s argv and the environment, and the options
 * still read them. GEMINI_API_KEY: no other case here reads it. */
static void
test_capture_secrets (void)
{
  g_autofree char *dir = g_dir_make_tmp ("zot-options-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "key", NULL);
  g_autofree char *file_flag = g_strconcat ("--api-key-file=", path, NULL);
  g_auto(GStrv) before = NULL;
  g_autoptr(GError) error = NULL;
  char **args = NULL;

  g_assert_true (g_file_set_contents (path, "sk-file\n", -1, NULL));
  g_setenv ("GEMINI_API_KEY", "sk-env", TRUE);

  {
    char *argv[] = { "zot", "--api-key", "sk-one", "--api-key=sk-two", "-p", "--", "--api-key", "sk-three", NULL };

    /* main()'s argv is writable memory. */
    before = g_strdupv (argv);
    for (guint i = 0; before[i] != NULL; i++)
      argv[i] = before[i];
    g_assert_true (zot_provider_capture_secrets (G_N_ELEMENTS (argv) - 1, argv, &args, &error));
    g_assert_no_error (error);
  }
  g_assert_cmpstr (before[2], ==, "******");
  g_assert_cmpstr (before[3], ==, "--api-key=******");
  g_assert_cmpstr (before[7], ==, "sk-three");
  g_assert_cmpstr (args[2], ==, "sk-one");
  g_assert_cmpstr (args[3], ==, "--api-key=sk-two");
  g_assert_cmpstr (args[7], ==, "sk-three");
  g_assert_null (args[8]);
  g_assert_null (g_getenv ("GEMINI_API_KEY"));
  g_assert_cmpstr (zot_provider_get_environment_key ("GEMINI_API_KEY"), ==, "sk-env");

  {
    char *argv[] = { "zot", "--api-key-file", path, NULL };
    g_auto(ZotOptions) options = { 0 };
    g_autoptr(GOptionContext) context = g_option_context_new (NULL);
    g_auto(GStrv) parsed = NULL;

    g_assert_true (zot_provider_capture_secrets (G_N_ELEMENTS (argv) - 1, argv, &args, &error));
    g_assert_cmpstr (args[1], ==, "--api-key=sk-file");
    g_assert_null (args[2]);
    parsed = g_strdupv (args);
    zot_options_init (&options);
    zot_options_add_entries (&options, context);
    g_assert_true (zot_options_parse (context, &parsed, &error));
    g_assert_true (zot_options_check (&options, &error));
    g_assert_cmpstr (options.api_key, ==, "sk-file");
  }

  /* Without the early capture, the option reads the file itself. */
  {
    g_auto(ZotOptions) options = { 0 };

    g_assert_true (parse (&options, &error, "--api-key=sk-argv", file_flag, NULL));
    g_assert_no_error (error);
    g_assert_cmpstr (options.api_key, ==, "sk-file");
  }

  g_unlink (path);
  {
    char *argv[] = { "zot", file_flag, NULL };
    g_auto(ZotOptions) options = { 0 };

    g_assert_false (zot_provider_capture_secrets (G_N_ELEMENTS (argv) - 1, argv, &args, &error));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
    g_assert_nonnull (strstr (error->message, path));
    g_clear_error (&error);
    g_assert_false (parse (&options, &error, file_flag, NULL));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  }
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/options/defaults", test_defaults);
  g_test_add_func ("/zot/options/tools-trimmed", test_tools_trimmed);
  g_test_add_func ("/zot/options/paths-relative-to-invocation", test_paths_relative_to_invocation);
  g_test_add_func ("/zot/options/usage-errors", test_usage_errors);
  g_test_add_func ("/zot/options/codemode-flag", test_codemode_flag);
  g_test_add_func ("/zot/options/capture-secrets", test_capture_secrets);

  return g_test_run ();
}
