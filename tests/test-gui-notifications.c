/* test-gui-notifications.c — approvals reach a user looking elsewhere.
 *
 * Runs on a private session bus (dbus-run-session), where the test itself
 * owns org.freedesktop.Notifications: GLib's notification backend talks to
 * it as to any notification server. With no window of the application
 * active, an approval sends a notification with Allow and Deny buttons;
 * pressing one (the server's ActionInvoked signal) answers the question
 * through the application's actions; a question answered in the window
 * withdraws its notification.
 */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-approval-presenter.h"
#include "zot-approval-presenter-private.h"
#include "zot-host.h"
#include "zot-test-util.h"

static const char server_xml[] =
  "<node>"
  "  <interface name='org.freedesktop.Notifications'>"
  "    <method name='Notify'>"
  "      <arg type='s' direction='in'/><arg type='u' direction='in'/><arg type='s' direction='in'/>"
  "      <arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='as' direction='in'/>"
  "      <arg type='a{sv}' direction='in'/><arg type='i' direction='in'/>"
  "      <arg type='u' direction='out'/>"
  "    </method>"
  "    <method name='CloseNotification'><arg type='u' direction='in'/></method>"
  "    <method name='GetCapabilities'><arg type='as' direction='out'/></method>"
  "    <method name='GetServerInformation'>"
  "      <arg type='s' direction='out'/><arg type='s' direction='out'/>"
  "      <arg type='s' direction='out'/><arg type='s' direction='out'/>"
  "    </method>"
  "    <signal name='ActionInvoked'><arg type='u'/><arg type='s'/></signal>"
  "    <signal name='NotificationClosed'><arg type='u'/><arg type='u'/></signal>"
  "  </interface>"
  "</node>";

typedef struct
{
  guint32  id;
  char    *summary;
  char    *body;
  GStrv    actions;   /* key, label, key, label… */
} Notification;

static void
notification_free (Notification *notification)
{
  g_free (notification->summary);
  g_free (notification->body);
  g_strfreev (notification->actions);
  g_free (notification);
}

typedef struct
{
  ZotTestEnv            env;
  GDBusConnection      *bus;
  guint                 owner_id;
  guint                 object_id;
  gboolean              named;
  GPtrArray            *shown;    /* Notification */
  GArray               *closed;   /* guint32 */
  guint32               next_id;

  GtkApplication       *app;
  ZotHost              *host;
  GtkWindow            *window;
  ZotApprovalPresenter *presenter;
} Fixture;

static void
server_method_cb (GDBusConnection       *connection,
                  const char            *sender,
                  const char            *path,
                  const char            *interface,
                  const char            *method,
                  GVariant              *parameters,
                  GDBusMethodInvocation *invocation,
                  gpointer               user_data)
{
  Fixture *f = user_data;

  if (g_str_equal (method, "Notify"))
    {
      Notification *notification = g_new0 (Notification, 1);
      guint32 replaces;

      g_variant_get_child (parameters, 1, "u", &replaces);
      g_variant_get_child (parameters, 3, "s", &notification->summary);
      g_variant_get_child (parameters, 4, "s", &notification->body);
      g_variant_get_child (parameters, 5, "^as", &notification->actions);
      notification->id = replaces != 0 ? replaces : ++f->next_id;
      g_ptr_array_add (f->shown, notification);
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", notification->id));
    }
  else if (g_str_equal (method, "CloseNotification"))
    {
      guint32 id;

      g_variant_get (parameters, "(u)", &id);
      g_array_append_val (f->closed, id);
      g_dbus_method_invocation_return_value (invocation, NULL);
    }
  else if (g_str_equal (method, "GetCapabilities"))
    {
      const char *caps[] = { "actions", "body", NULL };

      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(^as)", caps));
    }
  else
    g_dbus_method_invocation_return_value (invocation,
                                           g_variant_new ("(ssss)", "fake", "zot tests", "1", "1.2"));
}

static const GDBusInterfaceVTable server_vtable = { server_method_cb, NULL, NULL, { 0 } };

static void
name_acquired_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  ((Fixture *) user_data)->named = TRUE;
}

static gboolean
named (gpointer data)
{
  return ((Fixture *) data)->named;
}

static void
on_allow (GSimpleAction *action,
          GVariant      *parameter,
          gpointer       user_data)
{
  Fixture *f = user_data;

  zot_approval_presenter_resolve (f->presenter, g_variant_get_string (parameter, NULL), ZOT_APPROVAL_ALLOW);
}

static void
on_deny (GSimpleAction *action,
         GVariant      *parameter,
         gpointer       user_data)
{
  Fixture *f = user_data;

  zot_approval_presenter_resolve (f->presenter, g_variant_get_string (parameter, NULL), ZOT_APPROVAL_DENY);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  static const GActionEntry entries[] = {
    { "approval-allow", on_allow, "s", NULL, NULL, { 0 } },
    { "approval-deny", on_deny, "s", NULL, NULL, { 0 } },
  };
  g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (server_xml, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *app_id = NULL;
  static guint n_apps;

  zot_test_env_setup (&f->env);
  f->shown = g_ptr_array_new_with_free_func ((GDestroyNotify) notification_free);
  f->closed = g_array_new (FALSE, FALSE, sizeof (guint32));

  f->bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  f->object_id = g_dbus_connection_register_object (f->bus, "/org/freedesktop/Notifications",
                                                    node->interfaces[0], &server_vtable, f, NULL, &error);
  g_assert_no_error (error);
  f->owner_id = g_bus_own_name_on_connection (f->bus, "org.freedesktop.Notifications",
                                              G_BUS_NAME_OWNER_FLAGS_NONE, name_acquired_cb, NULL, f, NULL);
  zot_test_wait_until (named, f, 10000);

  /* One id per test: GApplication keeps its exported objects on the bus
   * connection, which outlives the fixture. */
  app_id = g_strdup_printf ("dev.zot.Zot.TestNotifications%u", n_apps++);
  f->app = gtk_application_new (app_id, G_APPLICATION_NON_UNIQUE);
  g_action_map_add_action_entries (G_ACTION_MAP (f->app), entries, G_N_ELEMENTS (entries), f);
  g_assert_true (g_application_register (G_APPLICATION (f->app), NULL, &error));
  g_assert_no_error (error);

  f->host = zot_test_demo_host (&f->env);

  /* Never presented: no window of the application is active. */
  f->window = GTK_WINDOW (gtk_application_window_new (f->app));
  f->presenter = zot_approval_presenter_new (f->window, zot_host_get_manager (f->host));
}

static void
shutdown_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  zot_host_shutdown_finish (ZOT_HOST (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gboolean done = FALSE;

  g_clear_object (&f->presenter);
  gtk_window_destroy (f->window);
  zot_host_shutdown_async (f->host, NULL, shutdown_cb, &done);
  zot_test_wait_for (&done, 30000);
  g_clear_object (&f->host);
  g_clear_object (&f->app);
  g_bus_unown_name (f->owner_id);
  g_dbus_connection_unregister_object (f->bus, f->object_id);
  g_clear_object (&f->bus);
  g_ptr_array_unref (f->shown);
  g_array_unref (f->closed);
  zot_test_env_teardown (&f->env);
}

typedef ZotTestAuthorize Authorize;

static void
authorize (Fixture    *f,
           const char *tool,
           Authorize  *out)
{
  zot_test_authorize (zot_host_get_manager (f->host), tool, "make install", NULL, NULL, out);
}

static gboolean
n_shown_is_1 (gpointer data)
{
  return ((Fixture *) data)->shown->len == 1;
}

static gboolean
n_shown_is_2 (gpointer data)
{
  return ((Fixture *) data)->shown->len == 2;
}

static gboolean
one_closed (gpointer data)
{
  return ((Fixture *) data)->closed->len == 1;
}

static void
flushed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, NULL);

  *(gboolean *) user_data = TRUE;
}

/* A round trip to the server: replies arrive in order, so every reply to an
 * earlier call has been handled when this one's is. */
static void
flush_bus (Fixture *f)
{
  gboolean done = FALSE;

  g_dbus_connection_call (f->bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                          "org.freedesktop.Notifications", "GetServerInformation", NULL, NULL,
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, flushed_cb, &done);
  zot_test_wait_for (&done, 10000);
}

static gboolean
dialog_up (gpointer data)
{
  return _zot_approval_presenter_get_oldest_id (((Fixture *) data)->presenter) != NULL;
}

static gboolean
no_window_active (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (gtk_window_is_active (window))
        return FALSE;
    }
  return TRUE;
}

/* The key GLib gave the button labelled @label. */
static const char *
action_key (Notification *notification,
            const char   *label)
{
  for (guint i = 0; notification->actions[i] != NULL && notification->actions[i + 1] != NULL; i += 2)
    if (g_str_equal (notification->actions[i + 1], label))
      return notification->actions[i];
  g_error ("no button labelled %s", label);
  return NULL;
}

static void
test_notify_and_answer (Fixture       *f,
                        gconstpointer  data)
{
  Authorize first = { 0 };
  Authorize second = { 0 };
  Notification *shown;

  authorize (f, "bash", &first);
  zot_test_wait_until (n_shown_is_1, f, 10000);
  shown = g_ptr_array_index (f->shown, 0);
  g_assert_cmpstr (shown->summary, ==, "bash wants to run");
  g_assert_nonnull (strstr (shown->body, "make install"));
  g_assert_nonnull (action_key (shown, "Allow"));

  /* Deny from the notification. */
  flush_bus (f);
  g_dbus_connection_emit_signal (f->bus, NULL, "/org/freedesktop/Notifications",
                                 "org.freedesktop.Notifications", "ActionInvoked",
                                 g_variant_new ("(us)", shown->id, action_key (shown, "Deny")), NULL);
  zot_test_wait_for (&first.done, 10000);
  g_assert_nonnull (first.decision);
  g_assert_false (first.decision->approved);
  g_assert_cmpstr (first.decision->source, ==, "user");

  /* A question answered in the window takes its notification away. The
   * window has to be inactive for the next one to notify. */
  zot_test_wait_until (no_window_active, NULL, 10000);
  authorize (f, "write", &second);
  zot_test_wait_until (n_shown_is_2, f, 10000);
  shown = g_ptr_array_index (f->shown, 1);
  g_assert_cmpstr (shown->summary, ==, "write wants to run");
  g_array_set_size (f->closed, 0);
  /* GLib withdraws a notification only once it has the server's reply. */
  flush_bus (f);
  zot_test_wait_until (dialog_up, f, 10000);
  zot_approval_resolve (zot_approval_presenter_get_oldest (f->presenter), ZOT_APPROVAL_ALLOW);
  zot_test_wait_for (&second.done, 10000);
  g_assert_true (second.decision->approved);
  zot_test_wait_until (one_closed, f, 10000);
  g_assert_cmpuint (g_array_index (f->closed, guint32, 0), ==, shown->id);

  zot_decision_free (first.decision);
  zot_decision_free (second.decision);
}

/* A long command's notification shows its head on one line and says
 * where the rest is; the line breaks that hid the tail are marked. */
static void
test_long_command (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GString) command = g_string_new ("echo hello");
  Authorize first = { 0 };
  Notification *shown;

  for (guint i = 0; i < 60; i++)
    g_string_append_c (command, '\n');
  for (guint i = 0; i < 300; i++)
    g_string_append_c (command, ' ');
  g_string_append (command, "touch ~/pwned");

  zot_test_authorize (zot_host_get_manager (f->host), "bash", command->str, NULL, NULL, &first);
  zot_test_wait_until (n_shown_is_1, f, 10000);
  shown = g_ptr_array_index (f->shown, 0);
  g_assert_true (g_str_has_prefix (shown->body, "echo hello\u21B5\u21B5"));
  g_assert_null (strchr (shown->body, '\n'));
  g_assert_true (g_str_has_suffix (shown->body, "… (open the window to see all of it)"));
  g_assert_null (strstr (shown->body, "pwned"));

  zot_test_wait_until (dialog_up, f, 10000);
  zot_approval_resolve (zot_approval_presenter_get_oldest (f->presenter), ZOT_APPROVAL_DENY);
  zot_test_wait_for (&first.done, 10000);
  zot_decision_free (first.decision);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/zot/gui/notifications/notify-and-answer", Fixture, NULL, fixture_setup,
              test_notify_and_answer, fixture_teardown);
  g_test_add ("/zot/gui/notifications/long-command", Fixture, NULL, fixture_setup,
              test_long_command, fixture_teardown);

  return g_test_run ();
}
