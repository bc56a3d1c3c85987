/* test-host-commands.c — the built-in commands: every one the manager
 * lists (for /help and slash completion) is in the host's table, which
 * runs it or names the window's action that does; without a window such
 * a command fails with ZOT_HOST_ERROR_NOT_HERE. */
#include "config.h"

#include "zot-host.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  ZotHost    *host;
  GPtrArray  *actions;
  gboolean    done;
  GError     *error;
} Fixture;

static void
on_activate_action (ZotHost    *host,
                    const char *action,
                    GVariant   *parameter,
                    Fixture    *f)
{
  g_ptr_array_add (f->actions, g_strdup (action));
}

static void
start_host (Fixture  *f,
            gboolean  interactive)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_ext = TRUE;
  options.no_session = TRUE;
  options.interactive = interactive;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  g_signal_connect (f->host, "activate-action", G_CALLBACK (on_activate_action), f);
  zot_test_load_host (f->host);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->actions = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_signal_handlers_disconnect_by_data (f->host, f);
  zot_test_finalize_host (&f->host);
  g_clear_pointer (&f->actions, g_ptr_array_unref);
  g_clear_error (&f->error);
  zot_test_env_teardown (&f->env);
}

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Fixture *f = user_data;

  zot_host_submit_finish (ZOT_HOST (object), result, NULL, &f->error);
  f->done = TRUE;
}

static gboolean
is_done (gpointer data)
{
  return ((Fixture *) data)->done;
}

static void
submit (Fixture    *f,
        const char *text)
{
  f->done = FALSE;
  g_clear_error (&f->error);
  zot_host_submit_async (f->host, text, NULL, submitted_cb, f);
  zot_test_wait_until (is_done, f, 20000);
}

/* Each built-in the manager lists, run without a window. */
static void
test_headless (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) commands = NULL;
  guint n_builtin = 0;

  start_host (f, FALSE);
  commands = zot_extension_manager_list_commands (zot_host_get_manager (f->host));
  for (guint i = 0; i < commands->len; i++)
    {
      ZotCommandInfo *info = g_ptr_array_index (commands, i);
      g_autofree char *line = NULL;

      if (info->extension != NULL)
        continue;
      n_builtin++;
      line = g_strconcat ("/", info->name, NULL);
      g_test_message ("%s", line);
      submit (f, line);
      if (zot_host_get_command_action (info->name) != NULL)
        g_assert_error (f->error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_NOT_HERE);
      else if (g_str_equal (info->name, "restart-ext"))
        /* It needs the name of an extension. */
        g_assert_error (f->error, ZOT_HOST_ERROR, ZOT_HOST_ERROR_USAGE);
      else
        g_assert_no_error (f->error);
    }

  g_assert_cmpuint (n_builtin, >, 0);
  g_assert_cmpuint (f->actions->len, ==, 0);
}

/* In the window each of those names its action, in any case. */
static void
test_interactive (Fixture       *f,
                  gconstpointer  data)
{
  start_host (f, TRUE);

  submit (f, "/Settings");
  g_assert_no_error (f->error);
  submit (f, "/yolo");
  g_assert_no_error (f->error);
  submit (f, "/quit");
  g_assert_no_error (f->error);

  g_assert_cmpuint (f->actions->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (f->actions, 0), ==, "win.preferences");
  g_assert_cmpstr (g_ptr_array_index (f->actions, 1), ==, "win.yolo");
  g_assert_cmpstr (g_ptr_array_index (f->actions, 2), ==, "window.close");
  g_assert_null (zot_host_get_command_action ("help"));
  g_assert_null (zot_host_get_command_action ("no-such-command"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/zot/host-commands/headless", Fixture, NULL, fixture_setup, test_headless, fixture_teardown);
  g_test_add ("/zot/host-commands/interactive", Fixture, NULL, fixture_setup, test_interactive,
              fixture_teardown);

  return g_test_run ();
}
