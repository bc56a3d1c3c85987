/* test-cli.c — the `zot` binary end to end: flags, exit codes and what
 * print mode writes to stdout and stderr. */
#include "config.h"

#include <string.h>

#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv env;
  char      *out;
  char      *err;
  int        status;
  gboolean   no_display;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_pointer (&f->out, g_free);
  g_clear_pointer (&f->err, g_free);
  zot_test_env_teardown (&f->env);
}

/* Runs zot with the arguments (NULL-terminated) in the fixture's home. */
static void
run (Fixture *f,
     ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_get_environ ();
  const char *arg;
  int wait_status = 0;
  va_list ap;

  g_clear_pointer (&f->out, g_free);
  g_clear_pointer (&f->err, g_free);

  g_ptr_array_add (argv, (gpointer) g_getenv ("ZOT_BIN"));
  va_start (ap, f);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  envp = g_environ_setenv (envp, "ZOT_HOME", f->env.home, TRUE);
  if (f->no_display)
    {
      envp = g_environ_unsetenv (envp, "DISPLAY");
      envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
    }
  envp = g_environ_setenv (envp, "LC_ALL", "C", TRUE);

  g_spawn_sync (f->env.cwd, (char **) argv->pdata, envp, G_SPAWN_DEFAULT,
                NULL, NULL, &f->out, &f->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  f->status = WEXITSTATUS (wait_status);
}

#define fake(f, name, ...) zot_test_make_fake_args ((f)->env.root, name, __VA_ARGS__)

static void
test_version_and_usage (Fixture       *f,
                        gconstpointer  data)
{
  run (f, "--version", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "zot " PACKAGE_VERSION "\n");

  run (f, "--no-such-flag", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_true (g_str_has_prefix (f->err, "zot: "));
  g_assert_nonnull (strstr (f->err, "--no-such-flag"));
  /* One line. */
  g_assert_cmpint (strchr (f->err, '\n') - f->err, ==, (int) strlen (f->err) - 1);

  run (f, "--codemode=sometimes", "-p", "/help", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_nonnull (strstr (f->err, "off, on or only"));
  /* A bare --codemode means on and takes no other flag as its value. */
  run (f, "--codemode", "-p", "/help", NULL);
  g_assert_cmpint (f->status, ==, 0);
  run (f, "--codemode-only", "-p", "/help", NULL);
  g_assert_cmpint (f->status, ==, 0);
  run (f, "--codemode-only", "--codemode=on", "-p", "/help", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_nonnull (strstr (f->err, "--codemode-only and --codemode=on cannot both be given"));

  run (f, "--max-steps", "0", "-p", "/help", NULL);
  g_assert_cmpint (f->status, ==, 2);

  /* Continuous mode journals in the session file: it needs one. */
  run (f, "--continuous", "--no-session", "-p", "hi", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_nonnull (strstr (f->err, "--continuous needs a saved conversation"));
  g_assert_cmpint (strchr (f->err, '\n') - f->err, ==, (int) strlen (f->err) - 1);
  run (f, "--continuous", "rpc", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_nonnull (strstr (f->err, "--session FILE or --continue"));

  run (f, "--help", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "--ext"));
  g_assert_nonnull (strstr (f->out, "zot ext"));
}

static void
test_window_without_display (Fixture       *f,
                             gconstpointer  data)
{
  f->no_display = TRUE;
  run (f, NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_true (g_str_has_prefix (f->err, "zot: there is no display"));
  g_assert_nonnull (strstr (f->err, "zot -p"));
}

static void
test_print_display_and_notes (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *dir = fake (f, "printer", "--command", "Say", NULL);

  run (f, "--ext", dir, "-p", "/say display hello world", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "hello world\n");
  g_assert_cmpstr (f->err, ==, "");

  run (f, "-e", dir, "-p", "/SAY notify warn mind the gap", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "");
  g_assert_cmpstr (f->err, ==, "[printer] warn: mind the gap\n");

  run (f, "-e", dir, "-p", "/say insert into the editor", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "into the editor\n");

  run (f, "-e", dir, "-p", "/say noop", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "");
}

static void
test_print_errors (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = fake (f, "erring", "--command", "e", NULL);

  run (f, "-e", dir, "-p", "/e error no such todo", NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_cmpstr (f->err, ==, "zot: /e: no such todo\n");

  run (f, "-e", dir, "-p", "/e badaction", NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "unknown command action \"frobnicate\""));

  run (f, "-e", dir, "-p", "/nosuch thing", NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_true (g_str_has_prefix (f->err, "zot: unknown command /nosuch\n"));
  g_assert_nonnull (strstr (f->err, "/e "));
  g_assert_nonnull (strstr (f->err, "[erring]"));
  g_assert_nonnull (strstr (f->err, "/help"));

  run (f, "-e", dir, "-p", "/settings", NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "window"));

  run (f, "-e", dir, "-p", "/e crash 4", NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "erring"));
}

static void
assert_no_controls (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if (*p != '\n' && *p != '\t' && ((guchar) *p < 0x20 || *p == 0x7f))
      g_error ("a control byte 0x%02x reached the terminal in: %s", (guchar) *p, text);
  /* C1 as UTF-8, and a right-to-left override. */
  g_assert_null (strstr (text, "\xc2\x9b"));
  g_assert_null (strstr (text, "\xe2\x80\xae"));
}

/* What an extension, the model or a manifest says is shown, never obeyed
 * by the terminal: OSC 52 would write the clipboard, others retitle the
 * window or clear the screen. */
static void
test_terminal_escapes (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = fake (f, "noisy", "--command", "e",
                               "--notify-on-start", "info:copy \x1b]52;c;aGk=\x07 now",
                               "--register-json", "{\"type\":\"register_command\",\"name\":\"t\",\"description\":\"title \\u001b]0;pwned\\u0007 \\u009b2J \\u202egnp.exe\"}",
                               NULL);
  g_autofree char *extensions_dir = g_build_filename (f->env.home, "extensions", NULL);

  run (f, "-e", dir, "-p", "/e display clear \x1b[2J\x1b[H done", NULL);
  g_assert_cmpint (f->status, ==, 0);
  assert_no_controls (f->out);
  assert_no_controls (f->err);
  g_assert_nonnull (strstr (f->out, "clear ^[[2J^[[H done"));
  g_assert_nonnull (strstr (f->err, "[noisy] info: copy ^[]52;c;aGk=^G now"));

  /* The model's own text, here the demo echoing the prompt. */
  run (f, "-e", dir, "-p", "say \x1b]0;title\x07 and \r\n bye", NULL);
  g_assert_cmpint (f->status, ==, 0);
  assert_no_controls (f->out);
  g_assert_nonnull (strstr (f->out, "^[]0;title^G"));

  run (f, "-e", dir, "-p", "/nosuch", NULL);
  assert_no_controls (f->err);
  g_assert_nonnull (strstr (f->err, "title ^[]0;pwned^G <U+009B>2J <U+202E>gnp.exe"));

  /* Manifest fields in zot ext list. */
  g_free (zot_test_make_manifest (extensions_dir, "listed",
                          "{\"name\":\"listed\",\"exec\":\"sh\",\"version\":\"1\\u001b[31m\","
                          "\"description\":\"red \\u001b[31m text \\u009b0m\"}"));
  run (f, "ext", "list", NULL);
  g_assert_cmpint (f->status, ==, 0);
  assert_no_controls (f->out);
  g_assert_nonnull (strstr (f->out, "red ^[[31m text <U+009B>0m"));
}

static void
test_allow_key (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *grants = g_build_filename (f->env.home, "key-grants.json", NULL);
  g_autofree char *contents = NULL;

  run (f, "ext", "allow-key", "weather", "OPENAI_API_KEY", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "weather gets $OPENAI_API_KEY"));
  g_assert_true (g_file_get_contents (grants, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"weather\""));
  g_assert_nonnull (strstr (contents, "OPENAI_API_KEY"));
  g_clear_pointer (&contents, g_free);

  /* Only provider keys are kept from extensions, so only they are granted. */
  run (f, "ext", "allow-key", "weather", "PATH", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_nonnull (strstr (f->err, "not a provider key variable"));
  /* …and the message names those there are, from the provider table. */
  g_assert_nonnull (strstr (f->err, "ANTHROPIC_API_KEY"));
  g_assert_nonnull (strstr (f->err, "GEMINI_API_KEY"));

  run (f, "ext", "deny-key", "weather", "OPENAI_API_KEY", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_true (g_file_get_contents (grants, &contents, NULL, NULL));
  g_assert_null (strstr (contents, "weather"));
}

static void
test_print_timeout (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = fake (f, "stuck", "--command", "s", NULL);

  g_setenv ("ZOT_TEST_TIMEOUTS", "command=300", TRUE);
  run (f, "-e", dir, "-p", "/s hang", NULL);
  g_unsetenv ("ZOT_TEST_TIMEOUTS");
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "/s (stuck) did not answer within 1 s"));
}

static void
test_print_help_and_reload (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "helpful", "--command", "Greet", NULL);

  run (f, "-e", dir, "-p", "/help", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "/reload-ext"));
  g_assert_nonnull (strstr (f->out, "/Greet"));
  g_assert_nonnull (strstr (f->out, "fake command Greet"));

  run (f, "-e", dir, "-p", "/reload-ext", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "Reloaded extensions: 1 of 1 ready\n");
}

static void
test_print_load_failure (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *bad = fake (f, "doomed", "--exit-before-hello", "5", NULL);
  g_autofree char *good = fake (f, "fine", "--command", "ok", NULL);
  g_autofree char *log = g_build_filename (f->env.home, "logs", "ext-doomed.log", NULL);

  run (f, "-e", bad, "-e", good, "-p", "/ok display still works", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "still works\n");
  g_assert_nonnull (strstr (f->err, "exited with status 5 before saying hello"));
  g_assert_nonnull (strstr (f->err, log));
}

static void
test_discovery (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *user_dir = g_build_filename (f->env.home, "extensions", NULL);
  g_autofree char *project_dir = g_build_filename (f->env.cwd, ".zot", "extensions", NULL);
  g_autofree char *user = zot_test_make_fake (user_dir, "who", (const char *[]) { "--command", "useronly", NULL });
  g_autofree char *project = zot_test_make_fake (project_dir, "who", (const char *[]) { "--command", "projonly", NULL });
  g_autofree char *other = zot_test_make_fake (user_dir, "other", (const char *[]) { "--command", "other", NULL });
  g_autofree char *state_dir = NULL;
  g_autofree char *state = NULL;

  /* A cloned project runs nothing until trusted: one line says so. */
  run (f, "-p", "/other display user ext", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "user ext\n");
  g_assert_nonnull (strstr (f->err, "not started until trusted: who; run `zot ext trust`"));
  g_assert_cmpuint (zot_test_count (f->err, "\n"), ==, 1);
  run (f, "-p", "/projonly", NULL);
  g_assert_cmpint (f->status, ==, 1);
  /* zot ext list says it waits, and how to let it start; an empty state
   * file (a run that ended while writing it) is no state. */
  state_dir = g_build_filename (f->env.home, "state", NULL);
  g_assert_cmpint (g_mkdir_with_parents (state_dir, 0700), ==, 0);
  state = g_build_filename (state_dir, "ext-other.json", NULL);
  g_assert_true (g_file_set_contents (state, "", 0, NULL));
  run (f, "ext", "list", "--cwd", f->env.cwd, NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "needs approval"));
  g_assert_nonnull (strstr (f->out, "run `zot ext trust who` in the project folder"));
  run (f, "ext", "trust", "--cwd", f->env.cwd, "nobody", NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "no extension \"nobody\""));
  run (f, "ext", "trust", "--cwd", f->env.cwd, NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "trusted who here (unconfined)"));
  run (f, "ext", "list", "--cwd", f->env.cwd, NULL);
  g_assert_null (strstr (f->out, "needs approval"));

  /* The project's "who" shadows the user's. */
  run (f, "-p", "/help", NULL);
  g_assert_cmpstr (f->err, ==, "");
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "/projonly"));
  g_assert_null (strstr (f->out, "/useronly"));
  run (f, "-p", "/other display user ext", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->out, ==, "user ext\n");

  /* --no-ext skips discovery. */
  run (f, "--no-ext", "-p", "/other display x", NULL);
  g_assert_cmpint (f->status, ==, 1);
  g_assert_nonnull (strstr (f->err, "unknown command /other"));

  /* --cwd picks another project. */
  run (f, "--cwd", f->env.root, "-p", "/help", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_nonnull (strstr (f->out, "[who]"));
}

/* zot ext stats runs the extensions and one prompt with the demo model,
 * and reports each extension's meter: as JSON, as a table, and a usage
 * error in one line. */
static void
test_ext_stats (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *dir = fake (f, "metered", "--register-json",
                               "{\"type\":\"register_tool\",\"name\":\"probe\",\"description\":\"probe\","
                               "\"schema\":{\"type\":\"object\"}}",
                               NULL);
  g_autoptr(JsonObject) report = NULL;
  JsonObject *stats;

  run (f, "ext", "stats", "--json", "--no-ext", "--ext", dir, "--provider", "demo",
       "tool: probe {\"burn_ms\":100}", NULL);
  g_assert_cmpint (f->status, ==, 0);
  report = zot_test_json_object_from (f->out);
  g_assert_true (json_object_get_boolean_member (report, "prompt_ok"));
  g_assert_cmpuint (zot_test_json_length_at (report, "extensions"), ==, 1);
  g_assert_cmpstr (zot_test_json_string_at (report, "extensions/0/name"), ==, "metered");
  g_assert_cmpstr (zot_test_json_string_at (report, "extensions/0/state"), ==, "ready");
  stats = json_node_get_object (zot_test_json_node_at (report, "extensions/0/stats"));
  g_assert_cmpint (json_object_get_int_member (stats, "tool_calls"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (stats, "cpu_us"), >=, 80 * 1000);
  g_assert_cmpint (json_object_get_int_member (stats, "frames_in"), >=, 4);
  g_assert_cmpint (json_object_get_int_member (stats, "latency_p50_us"), >, 0);

  /* Without a prompt: the start alone, in a table. */
  run (f, "ext", "stats", "--no-ext", "--ext", dir, NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_true (g_str_has_prefix (f->out, "NAME "));
  g_assert_nonnull (strstr (f->out, "\nmetered "));
  g_assert_nonnull (strstr (f->out, " ready "));

  run (f, "ext", "stats", "--bogus", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_true (g_str_has_prefix (f->err, "zot: ext stats: "));
  g_assert_cmpuint (zot_test_count (f->err, "\n"), ==, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/cli/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("version-and-usage", test_version_and_usage);
  ADD ("window-without-display", test_window_without_display);
  ADD ("print-display-and-notes", test_print_display_and_notes);
  ADD ("print-errors", test_print_errors);
  ADD ("terminal-escapes", test_terminal_escapes);
  ADD ("allow-key", test_allow_key);
  ADD ("print-timeout", test_print_timeout);
  ADD ("print-help-and-reload", test_print_help_and_reload);
  ADD ("print-load-failure", test_print_load_failure);
  ADD ("discovery", test_discovery);
  ADD ("ext-stats", test_ext_stats);

#undef ADD

  return g_test_run ();
}
