/* The shared command-line options: one declaration for the command line
 * and the window, so that they read the same flags the same way. */
#include "config.h"

#include <glib/gstdio.h>

#include "zot-host-private.h"
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
  g_assert_false (host.watch);
}

/* --watch reaches the host, beside the --ext paths it applies to. */
static void
test_watch (void)
{
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host = { 0 };
  g_autoptr(GError) error = NULL;

  g_assert_true (parse (&options, &error, "--ext", "/ext/a", "--watch", NULL));
  g_assert_no_error (error);
  zot_options_to_host (&options, "/", FALSE, &host);
  g_assert_true (host.watch);
  g_assert_cmpstr (host.ext_paths[0], ==, "/ext/a");
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
  switch (host.codemode)
    {
    case ZOT_CODEMODE_OFF:
      return g_strdup ("off");
    case ZOT_CODEMODE_ONLY:
      return g_strdup ("only");
    default:
      return g_strdup ("on");
    }
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
    { "hi -- --codemode off", "on", "hi -- --codemode off" },
    { "hi", "on", "hi" },
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
    { "--watch", NULL, "--watch watches the extensions given with --ext; add --ext DIR" },
    { "--auto-compact=0", NULL, "--auto-compact takes a percentage from 1 to 100 or off, not \"0\"" },
    { "--auto-compact=101", NULL, "--auto-compact takes a percentage from 1 to 100 or off" },
    { "--auto-compact=lots", NULL, "--auto-compact takes a percentage from 1 to 100 or off" },
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

  /* --auto-compact's edges: 1 and 100 are percentages, off is -1, none
   * is the default (0). */
  {
    struct { const char *flag; int expected; } values[] = {
      { "--auto-compact=1", 1 }, { "--auto-compact=100", 100 }, { "--auto-compact=off", -1 }, { "--no-ext", 0 },
    };

    for (guint i = 0; i < G_N_ELEMENTS (values); i++)
      {
        g_auto(ZotOptions) options = { 0 };
        g_auto(ZotHostOptions) host = { 0 };
        g_autoptr(GError) error = NULL;

        g_assert_true (parse (&options, &error, values[i].flag, NULL, NULL));
        g_assert_no_error (error);
        zot_options_to_host (&options, "/", FALSE, &host);
        g_assert_cmpint (host.auto_compact, ==, values[i].expected);
      }
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

/* Every field of ZotHostOptions set to what no default gives it. */
static void
fill_every_field (ZotHostOptions *options)
{
  const char *ext_paths[] = { "/ext/a", "/ext/b", NULL };
  const char *append[] = { "and kind", NULL };
  const char *tools[] = { "read", NULL };

  options->cwd = g_strdup ("/");
  options->ext_paths = g_strdupv ((char **) ext_paths);
  options->no_ext = TRUE;
  options->watch = TRUE;
  options->provider.name = g_strdup ("demo");
  options->provider.model = g_strdup ("demo-2");
  options->provider.base_url = g_strdup ("http://127.0.0.1:9/v1");
  options->provider.api_key = g_strdup ("sk-copied");
  options->provider.api_key_source = g_strdup ("--api-key-file");
  options->max_steps = 7;
  options->max_retries = 2;
  options->max_retries_set = TRUE;
  options->system_prompt = g_strdup ("be brief");
  options->append_system_prompt = g_strdupv ((char **) append);
  options->tools = g_strdupv ((char **) tools);
  options->no_tools = TRUE;
  options->continue_session = TRUE;
  options->session_path = g_strdup ("/nowhere.jsonl");
  options->no_session = TRUE;
  options->continuous = TRUE;
  options->read_only_if_locked = TRUE;
  options->interactive = TRUE;
  options->codemode = ZOT_CODEMODE_ONLY;
  options->reasoning = ZOT_REASONING_HIGH;
  options->auto_compact = 70;
}

static void
assert_same_strv (char **copy,
                  char **from)
{
  g_assert_true (copy != from);
  g_assert_true (g_strv_equal ((const char * const *) copy, (const char * const *) from));
}

static void
assert_same_string (const char *copy,
                    const char *from)
{
  g_assert_true (copy != from);
  g_assert_cmpstr (copy, ==, from);
}

/* @copy has every field of @from, and strings of its own. */
static void
assert_every_field (const ZotHostOptions *copy,
                    const ZotHostOptions *from)
{
  assert_same_string (copy->cwd, from->cwd);
  assert_same_strv (copy->ext_paths, from->ext_paths);
  g_assert_cmpint (copy->no_ext, ==, from->no_ext);
  g_assert_cmpint (copy->watch, ==, from->watch);
  assert_same_string (copy->provider.name, from->provider.name);
  assert_same_string (copy->provider.model, from->provider.model);
  assert_same_string (copy->provider.base_url, from->provider.base_url);
  assert_same_string (copy->provider.api_key, from->provider.api_key);
  assert_same_string (copy->provider.api_key_source, from->provider.api_key_source);
  g_assert_cmpuint (copy->max_steps, ==, from->max_steps);
  g_assert_cmpuint (copy->max_retries, ==, from->max_retries);
  g_assert_cmpint (copy->max_retries_set, ==, from->max_retries_set);
  assert_same_string (copy->system_prompt, from->system_prompt);
  assert_same_strv (copy->append_system_prompt, from->append_system_prompt);
  assert_same_strv (copy->tools, from->tools);
  g_assert_cmpint (copy->no_tools, ==, from->no_tools);
  g_assert_cmpint (copy->continue_session, ==, from->continue_session);
  assert_same_string (copy->session_path, from->session_path);
  g_assert_cmpint (copy->no_session, ==, from->no_session);
  g_assert_cmpint (copy->continuous, ==, from->continuous);
  g_assert_cmpint (copy->read_only_if_locked, ==, from->read_only_if_locked);
  g_assert_cmpint (copy->interactive, ==, from->interactive);
  g_assert_cmpint (copy->codemode, ==, from->codemode);
  g_assert_cmpint (copy->reasoning, ==, from->reasoning);
  g_assert_cmpint (copy->auto_compact, ==, from->auto_compact);
}

/* Every copy of the options keeps every field: the boxed copy, the copy
 * into a struct (the window's, the app's template) and the host's own.
 * A field added to ZotHostOptions changes its size, which fails here
 * until it is set in fill_every_field() and checked in
 * assert_every_field(). */
static void
test_host_options_copy (void)
{
  g_auto(ZotHostOptions) from = { 0 };
  g_auto(ZotHostOptions) into = { 0 };
  g_autoptr(ZotHostOptions) copy = NULL;
  g_autoptr(ZotHost) host = NULL;
  g_autoptr(GError) error = NULL;
  GValue value = G_VALUE_INIT;

#if GLIB_SIZEOF_VOID_P == 8
  g_assert_cmpuint (sizeof (ZotHostOptions), ==, 152);
#endif

  fill_every_field (&from);

  copy = zot_host_options_copy (&from);
  assert_every_field (copy, &from);

  zot_host_options_copy_into (&into, &from);
  assert_every_field (&into, &from);

  g_value_init (&value, ZOT_TYPE_HOST_OPTIONS);
  g_value_set_boxed (&value, &from);
  assert_every_field (g_value_get_boxed (&value), &from);
  g_value_unset (&value);

  host = zot_host_new (&from, &error);
  g_assert_no_error (error);
  assert_every_field (&host->options, &from);
  g_assert_finalize_object (g_steal_pointer (&host));
}

/* --api-key-file names itself as the key's source, for the error that
 * the key was refused. */
static void
test_key_file_source (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "zot-test-key-XXXXXX", NULL);
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host = { 0 };
  g_autoptr(GError) error = NULL;
  int fd = g_mkstemp (path);

  g_assert_cmpint (fd, >=, 0);
  g_assert_true (g_file_set_contents (path, "sk-from-file\n", -1, NULL));
  close (fd);

  g_assert_true (parse (&options, &error, "--api-key-file", path, "--continuous", "--reasoning", "high",
                        "--codemode", "off", NULL));
  g_assert_no_error (error);
  zot_options_to_host (&options, "/", TRUE, &host);
  g_assert_cmpstr (host.provider.api_key, ==, "sk-from-file");
  g_assert_cmpstr (host.provider.api_key_source, ==, "--api-key-file");
  g_assert_true (host.continuous);
  g_assert_cmpint (host.reasoning, ==, ZOT_REASONING_HIGH);
  g_assert_cmpint (host.codemode, ==, ZOT_CODEMODE_OFF);
  /* Not given, the setting or the default applies. */
  g_assert_false (host.max_retries_set);
  g_unlink (path);
}

/* --max-retries: 0 is a value (never retry), the cap its edge. */
static void
test_max_retries (void)
{
  for (guint i = 0; i < 3; i++)
    {
      static const char * const given[] = { "0", "10", "11" };
      g_auto(ZotOptions) options = { 0 };
      g_auto(ZotHostOptions) host = { 0 };
      g_autoptr(GError) error = NULL;

      if (i == 2)
        {
          g_assert_false (parse (&options, &error, "--max-retries", given[i], NULL));
          g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
          g_assert_cmpstr (error->message, ==, "--max-retries takes 0 (never retry) to 10");
          continue;
        }
      g_assert_true (parse (&options, &error, "--max-retries", given[i], NULL));
      g_assert_no_error (error);
      zot_options_to_host (&options, "/", TRUE, &host);
      g_assert_true (host.max_retries_set);
      g_assert_cmpuint (host.max_retries, ==, i == 0 ? 0 : ZOT_PROVIDER_MAX_RETRIES_LIMIT);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/options/defaults", test_defaults);
  g_test_add_func ("/zot/options/watch", test_watch);
  g_test_add_func ("/zot/options/tools-trimmed", test_tools_trimmed);
  g_test_add_func ("/zot/options/paths-relative-to-invocation", test_paths_relative_to_invocation);
  g_test_add_func ("/zot/options/usage-errors", test_usage_errors);
  g_test_add_func ("/zot/options/codemode-flag", test_codemode_flag);
  g_test_add_func ("/zot/options/capture-secrets", test_capture_secrets);
  g_test_add_func ("/zot/options/host-options-copy", test_host_options_copy);
  g_test_add_func ("/zot/options/key-file-source", test_key_file_source);
  g_test_add_func ("/zot/options/max-retries", test_max_retries);

  return g_test_run ();
}
