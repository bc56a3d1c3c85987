/* test-gui-keyring-hang.c — a Secret Service that takes every call and
 * answers none: the window's keyring lookup has a deadline, and past it
 * the window works. Runs on a private session bus (dbus-run-session). */
#include "config.h"

#include <adwaita.h>

#include "zot-application.h"
#include "zot-extension-secrets.h"
#include "zot-keyring.h"
#include "zot-limits-private.h"
#include "zot-test-util.h"
#include "zot-window.h"

static guint n_swallowed;

/* Every call to the Secret Service is taken and dropped: the caller waits
 * as on a keyring daemon that hangs. Runs in GDBus's worker thread. */
static GDBusMessage *
swallow_filter (GDBusConnection *connection,
                GDBusMessage    *message,
                gboolean         incoming,
                gpointer         user_data)
{
  const char *interface = g_dbus_message_get_interface (message);

  if (incoming && g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL &&
      interface != NULL && g_str_has_prefix (interface, "org.freedesktop.Secret"))
    {
      g_atomic_int_inc (&n_swallowed);
      g_object_unref (message);
      return NULL;
    }
  return message;
}

static void
name_acquired_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  *(gboolean *) user_data = TRUE;
}

static gboolean
host_idle_with_text (gpointer data)
{
  ZotHost *host = zot_window_get_host (data);

  return host != NULL;
}

typedef struct
{
  gboolean  done;
  char     *text;
  GError   *error;
  gboolean  ok;
} Submit;

static void
looked_up_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Submit *call = user_data;

  call->text = zot_keyring_lookup_finish (result, &call->error);
  call->done = TRUE;
}

static void
stored_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Submit *call = user_data;

  call->ok = zot_keyring_store_finish (result, &call->error);
  call->done = TRUE;
}

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Submit *submit = user_data;

  zot_host_submit_finish (ZOT_HOST (object), result, &submit->text, NULL);
  submit->done = TRUE;
}

static void
secrets_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
test_hung_keyring (void)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(ZotHostOptions) options = { 0 };
  ZotTestEnv env = { 0 };
  ZotApplication *app;
  ZotWindow *window;
  Submit submit = { 0 };
  gboolean acquired = FALSE;
  guint owner;
  guint filter;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  filter = g_dbus_connection_add_filter (bus, swallow_filter, NULL, NULL);
  owner = g_bus_own_name_on_connection (bus, "org.freedesktop.secrets", G_BUS_NAME_OWNER_FLAGS_NONE,
                                        name_acquired_cb, NULL, &acquired, NULL);
  zot_test_wait_for (&acquired, 10000);

  zot_test_env_setup (&env);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");
  /* Long enough for the calls to reach the service on a loaded machine,
   * far shorter than D-Bus's own 25 s. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_KEYRING, 1500);

  app = zot_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  options.cwd = g_strdup (env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;
  window = ZOT_WINDOW (zot_window_new (app, &options, -1));
  gtk_window_present (GTK_WINDOW (window));

  /* Far sooner than the D-Bus call's own 25 s timeout. */
  zot_test_wait_until (host_idle_with_text, window, 10000);

  /* Each keyring call has its own deadline, whoever makes it (switching
   * providers in Preferences looks a key up, Apply stores one). */
  {
    Submit lookup = { 0 };
    Submit store = { 0 };

    zot_keyring_lookup_async ("openai", NULL, looked_up_cb, &lookup);
    zot_test_wait_for (&lookup.done, 10000);
    g_assert_no_error (lookup.error);
    g_assert_null (lookup.text);
    /* The calls did reach the service that hangs. */
    g_assert_cmpuint (g_atomic_int_get (&n_swallowed), >, 0);

    zot_keyring_store_async ("openai", "sk-nowhere", NULL, stored_cb, &store);
    zot_test_wait_for (&store.done, 10000);
    g_assert_false (store.ok);
    g_assert_error (store.error, ZOT_KEYRING_ERROR, ZOT_KEYRING_ERROR_UNAVAILABLE);
    g_assert_nonnull (strstr (store.error->message, "did not answer within 1500 ms"));
    g_clear_error (&store.error);
  }
  /* An extension's secrets, looked up before its start, end the same way. */
  {
    static const char * const keys[] = { "TOKEN", NULL };
    g_autoptr(GAsyncResult) result = NULL;

    zot_extension_secrets_lookup_async ("holder", keys, NULL, secrets_cb, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_null (zot_extension_secrets_lookup_finish (result, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
    g_assert_nonnull (strstr (error->message, "did not answer in time for holder"));
    g_clear_error (&error);
  }

  zot_host_submit_async (zot_window_get_host (window), "hello", NULL, submitted_cb, &submit);
  zot_test_wait_for (&submit.done, 10000);
  g_assert_nonnull (strstr (submit.text, "hello"));
  g_free (submit.text);

  gtk_window_destroy (GTK_WINDOW (window));
  g_bus_unown_name (owner);
  g_dbus_connection_remove_filter (bus, filter);
  g_clear_object (&app);
  zot_test_env_teardown (&env);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/zot/gui/keyring/hung", test_hung_keyring);

  return g_test_run ();
}
