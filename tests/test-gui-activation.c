/* test-gui-activation.c — the desktop's way in: a private dbus-daemon with
 * a service directory starts `zot --gapplication-service` on `activate`
 * (the start view) and on `open` of a folder (that project's window); a
 * second `zot --cwd DIR` opens a second window on DIR, and one more on
 * the same folder raises it. The app's state is read over the bus, from
 * its read-only "project-windows" and "start-view" actions. Quitting
 * through the bus ends the app; the test waits for its name to go. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>

#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv       env;
  char            *object_path;
  GSubprocess     *bus;
  GDBusConnection *connection;
} Fixture;

static char *
write_file (const char *dir,
            const char *name,
            const char *contents)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

static void
line_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **line = user_data;

  *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, NULL, NULL);
  if (*line == NULL)
    *line = g_strdup ("");
}

/* A test that fails leaves no bus behind, and with it goes the app it
 * started (its bus connection closes). */
static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static gboolean
string_set (gpointer data)
{
  return *(char **) data != NULL;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *services = NULL;
  g_autofree char *service = NULL;
  g_autofree char *config = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *service_path = NULL;
  g_autofree char *socket = NULL;
  g_autofree char *address = NULL;
  g_autofree char *printed = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  const char *zot = g_getenv ("ZOT_BIN");

  g_assert_nonnull (zot);
  zot_test_env_setup (&f->env);
  f->object_path = g_strdelimit (g_strconcat ("/", APP_ID, NULL), ".", '/');

  /* The activated app reaches this bus through the session address, as
   * on a desktop; so does every `zot` the test starts. */
  socket = g_build_filename (f->env.root, "bus", NULL);
  address = g_strconcat ("unix:path=", socket, NULL);
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", address, TRUE);

  services = g_build_filename (f->env.root, "services", NULL);
  g_assert_cmpint (g_mkdir (services, 0700), ==, 0);
  service = g_strdup_printf ("[D-BUS Service]\nName=%s\nExec=/usr/bin/env ZOT_HOME=%s %s --gapplication-service\n",
                             APP_ID, f->env.home, zot);
  service_path = write_file (services, APP_ID ".service", service);

  config = g_strdup_printf ("<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                            " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                            "<busconfig>\n"
                            "  <type>session</type>\n"
                            "  <listen>%s</listen>\n"
                            "  <servicedir>%s</servicedir>\n"
                            "  <policy context=\"default\">\n"
                            "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
                            "    <allow eavesdrop=\"true\"/>\n"
                            "    <allow own=\"*\"/>\n"
                            "  </policy>\n"
                            "</busconfig>\n",
                            address, services);
  config_path = write_file (f->env.root, "bus.conf", config);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  f->bus = g_subprocess_launcher_spawn (launcher, &error, "dbus-daemon", "--nofork", "--print-address=1",
                                        "--config-file", config_path, NULL);
  g_assert_no_error (error);

  /* The daemon prints its address once it listens. */
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (f->bus));
  g_data_input_stream_read_line_async (out, G_PRIORITY_DEFAULT, NULL, line_read_cb, &printed);
  zot_test_wait_until (string_set, &printed, 30000);
  g_assert_true (g_str_has_prefix (printed, "unix:path="));

  f->connection = g_dbus_connection_new_for_address_sync (address,
                                                          G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                          G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                          NULL, NULL, &error);
  g_assert_no_error (error);
}

static GVariant *
platform_data (void)
{
  return g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0);
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
name_vanished_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  *(gboolean *) user_data = TRUE;
}

static void
bus_exited_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gboolean vanished = FALSE;
  gboolean bus_exited = FALSE;
  guint watch;

  /* Quitting closes every window, which stops its extensions; then the
   * app leaves the bus. */
  watch = g_bus_watch_name_on_connection (f->connection, APP_ID, G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
                                          name_vanished_cb, &vanished, NULL);
  g_dbus_connection_call (f->connection, APP_ID, f->object_path, "org.gtk.Actions", "Activate",
                          g_variant_new ("(sav@a{sv})", "quit", NULL, platform_data ()), NULL,
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, 30000, NULL, NULL, NULL);
  zot_test_wait_until (flag_set, &vanished, 30000);
  g_bus_unwatch_name (watch);
  g_dbus_connection_close_sync (f->connection, NULL, NULL);
  g_clear_object (&f->connection);

  g_subprocess_send_signal (f->bus, SIGTERM);
  g_subprocess_wait_async (f->bus, NULL, bus_exited_cb, &bus_exited);
  zot_test_wait_until (flag_set, &bus_exited, 30000);
  g_clear_object (&f->bus);

  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  g_clear_pointer (&f->object_path, g_free);
  zot_test_env_teardown (&f->env);
}

static void
call_application (Fixture    *f,
                  const char *method,
                  GVariant   *parameters)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  /* The first call starts the service; the deadline allows a busy
   * machine to start a GTK app. */
  reply = g_dbus_connection_call_sync (f->connection, APP_ID, f->object_path,
                                       "org.freedesktop.Application", method, parameters, NULL,
                                       G_DBUS_CALL_FLAGS_NONE, 60000, NULL, &error);
  g_assert_no_error (error);
}

/* An action's state as the app has it now: each call the test makes
 * (activate, open, a second `zot`) is handled before it returns, so no
 * waiting is needed here. */
static GVariant *
describe_state (Fixture    *f,
                const char *action)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) states = NULL;
  GVariant *state = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_sync (f->connection, APP_ID, f->object_path, "org.gtk.Actions", "Describe",
                                       g_variant_new ("(s)", action), G_VARIANT_TYPE ("((bgav))"),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, 30000, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "((bg@av))", NULL, NULL, &states);
  g_assert_cmpuint (g_variant_n_children (states), ==, 1);
  g_variant_get_child (states, 0, "v", &state);
  return state;
}

static gboolean
start_view_shown (Fixture *f)
{
  g_autoptr(GVariant) state = describe_state (f, "start-view");

  return g_variant_get_boolean (state);
}

/* The open projects, in any order (the window manager's focus order is
 * not the test's to decide). */
static void
assert_projects (Fixture    *f,
                 const char *first,
                 const char *second)
{
  g_autoptr(GVariant) state = describe_state (f, "project-windows");
  g_autofree const char **folders = g_variant_get_strv (state, NULL);
  guint expected = (first != NULL) + (second != NULL);

  g_assert_cmpuint (g_strv_length ((char **) folders), ==, expected);
  if (first != NULL)
    g_assert_true (g_strv_contains (folders, first));
  if (second != NULL)
    g_assert_true (g_strv_contains (folders, second));
}

static void
exited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_wait_check_finish (G_SUBPROCESS (object), result, &error));
  *(gboolean *) user_data = TRUE;
}

/* A second `zot` hands its command line over and exits. */
static void
run_zot (const char * const *argv)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  gboolean exited = FALSE;

  g_ptr_array_add (args, (gpointer) g_getenv ("ZOT_BIN"));
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) argv[i]);
  g_ptr_array_add (args, NULL);

  process = g_subprocess_newv ((const char * const *) args->pdata, G_SUBPROCESS_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_subprocess_wait_check_async (process, NULL, exited_cb, &exited);
  zot_test_wait_until (flag_set, &exited, 60000);
}

static char *
make_folder (Fixture    *f,
             const char *name)
{
  char *path = g_build_filename (f->env.root, name, NULL);

  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  return path;
}

/* `activate` starts the app on its start view, not on a folder. */
static void
test_activate (Fixture       *f,
               gconstpointer  data)
{
  call_application (f, "Activate", g_variant_new ("(@a{sv})", platform_data ()));
  g_assert_true (start_view_shown (f));
  assert_projects (f, NULL, NULL);
}

/* `open` of a folder starts the app on that project; a second `zot
 * --cwd` opens a second window, and again raises it. */
static void
test_open_and_second_instance (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *alpha = make_folder (f, "alpha");
  g_autofree char *beta = make_folder (f, "beta");
  g_autofree char *alpha_uri = g_filename_to_uri (alpha, NULL, NULL);
  const char *uris[] = { alpha_uri, NULL };

  call_application (f, "Open", g_variant_new ("(^as@a{sv})", uris, platform_data ()));
  assert_projects (f, alpha, NULL);
  g_assert_false (start_view_shown (f));

  run_zot ((const char * const []) { "--cwd", beta, NULL });
  assert_projects (f, alpha, beta);

  /* Already open: raised, not opened twice; a prompt alone goes to a
   * window that is open. */
  run_zot ((const char * const []) { "--cwd", beta, NULL });
  run_zot ((const char * const []) { "a prompt for the editor", NULL });
  assert_projects (f, alpha, beta);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/zot/gui/activation/activate", Fixture, NULL, fixture_setup, test_activate, fixture_teardown);
  g_test_add ("/zot/gui/activation/open-and-second-instance", Fixture, NULL, fixture_setup,
              test_open_and_second_instance, fixture_teardown);

  return g_test_run ();
}
