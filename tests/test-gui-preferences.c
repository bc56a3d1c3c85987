/* test-gui-preferences.c — the preferences window under a display: its rows
 * write GSettings and change the running host (provider, model, approval
 * policy), and API keys go to and come from a Secret Service.
 *
 * The whole test runs on a private session bus (GTestDBus), so the user's
 * own keyring is never touched; the keyring case starts gnome-keyring-daemon
 * on that bus, and skips when it cannot. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <libsecret/secret.h>

#include "zot-host.h"
#include "zot-keyring.h"
#include "zot-limits.h"
#include "zot-preferences-window.h"
#include "zot-preferences-window-private.h"
#include "zot-provider-table.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

#define SECRET_SERVICE_NAME "org.freedesktop.secrets"

typedef struct
{
  ZotTestEnv            env;
  ZotHost              *host;
  GSettings            *settings;
  ZotPreferencesWindow *window;
} Fixture;

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

static gboolean
window_idle (gpointer data)
{
  Fixture *f = data;

  return !_zot_preferences_window_is_busy (f->window);
}

static void
wait_idle (Fixture *f)
{
  zot_test_wait_until (window_idle, f, 20000);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  static const char * const keys[] = {
    "provider", "model", "base-url", "approval-policy", "show-loaded-resources",
  };
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  zot_test_env_setup (&f->env);
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");
  for (guint i = 0; i < 2; i++)
    {
      zot_provider_store_key (i == 0 ? "anthropic" : "openai", NULL, TRUE);
      zot_provider_store_key (i == 0 ? "anthropic" : "openai", NULL, FALSE);
    }

  /* The memory backend lives as long as the process: start from defaults. */
  f->settings = g_settings_new (APP_ID);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_settings_reset (f->settings, keys[i]);

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);

  f->window = ZOT_PREFERENCES_WINDOW (zot_preferences_window_new (NULL, f->host));
  gtk_window_present (GTK_WINDOW (f->window));
  wait_idle (f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  wait_idle (f);
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_assert_null (f->window);

  zot_test_finalize_host (&f->host);
  g_clear_object (&f->settings);

  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");
  for (guint i = 0; i < 2; i++)
    {
      zot_provider_store_key (i == 0 ? "anthropic" : "openai", NULL, TRUE);
      zot_provider_store_key (i == 0 ? "anthropic" : "openai", NULL, FALSE);
    }
  zot_test_env_teardown (&f->env);
}

static GtkWidget *
widget (Fixture    *f,
        const char *name)
{
  GtkWidget *w = _zot_preferences_window_get_widget (f->window, name);

  g_assert_nonnull (w);
  return w;
}

static const char *
host_provider (Fixture *f)
{
  return zot_provider_get_name (zot_agent_get_provider (zot_host_get_agent (f->host)));
}

static const char *
host_model (Fixture *f)
{
  return zot_provider_get_model (zot_agent_get_provider (zot_host_get_agent (f->host)));
}

typedef struct
{
  Fixture    *f;
  const char *provider;
  const char *model;
} HostWant;

static gboolean
host_has (gpointer data)
{
  HostWant *want = data;

  return g_strcmp0 (host_provider (want->f), want->provider) == 0 &&
         (want->model == NULL || g_strcmp0 (host_model (want->f), want->model) == 0) &&
         !_zot_preferences_window_is_busy (want->f->window);
}

static void
wait_host (Fixture    *f,
           const char *provider,
           const char *model)
{
  HostWant want = { f, provider, model };

  zot_test_wait_until (host_has, &want, 20000);
}

/* The entry rows save on Apply, as their apply button does. */
static void
apply_text (GtkWidget  *row,
            const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (row), text);
  g_signal_emit_by_name (row, "apply");
}

static void
test_new_destroy (Fixture       *f,
                  gconstpointer  data)
{
  GtkWidget *window = zot_preferences_window_new (NULL, f->host);

  g_assert_true (ZOT_IS_PREFERENCES_WINDOW (window));
  g_object_ref (window);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

/* Where the provider row lists @name: after Automatic, in table order. */
static guint
provider_position (const char *name)
{
  for (guint i = 0; i < zot_provider_table_get_n_providers (); i++)
    if (g_str_equal (zot_provider_table_get_nth (i)->name, name))
      return i + 1;
  g_assert_not_reached ();
}

static void
test_model (Fixture       *f,
            gconstpointer  data)
{
  GtkDropDown *provider = GTK_DROP_DOWN (widget (f, "provider"));
  g_autofree char *saved_provider = NULL;
  g_autofree char *saved_model = NULL;

  /* Automatic, from the settings' empty default. */
  g_assert_cmpuint (gtk_drop_down_get_selected (provider), ==, 0);
  g_assert_false (gtk_widget_get_sensitive (widget (f, "base-url")));

  gtk_drop_down_set_selected (provider, provider_position ("demo"));
  saved_provider = g_settings_get_string (f->settings, "provider");
  g_assert_cmpstr (saved_provider, ==, "demo");
  wait_host (f, "demo", NULL);

  /* Typing is not saving; Apply is. */
  gtk_editable_set_text (GTK_EDITABLE (widget (f, "model")), "demo-");
  saved_model = g_settings_get_string (f->settings, "model");
  g_assert_cmpstr (saved_model, ==, "");
  g_clear_pointer (&saved_model, g_free);

  apply_text (widget (f, "model"), "demo-2");
  saved_model = g_settings_get_string (f->settings, "model");
  g_assert_cmpstr (saved_model, ==, "demo-2");
  wait_host (f, "demo", "demo-2");

  /* Settings changed elsewhere show in the rows. */
  g_settings_set_string (f->settings, "model", "demo-3");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (widget (f, "model"))), ==, "demo-3");
  wait_host (f, "demo", "demo-3");

  /* A switch with a key in the environment. */
  g_setenv ("ANTHROPIC_API_KEY", "sk-ant-from-env", TRUE);
  apply_text (widget (f, "model"), "");
  gtk_drop_down_set_selected (provider, 1);
  wait_host (f, "anthropic", NULL);
  g_assert_false (gtk_widget_get_sensitive (widget (f, "base-url")));

  /* Without a key anywhere the host stays as it is, and the user is told. */
  gtk_drop_down_set_selected (provider, 2);
  g_assert_true (gtk_widget_get_sensitive (widget (f, "base-url")));
  wait_idle (f);
  g_assert_cmpstr (host_provider (f), ==, "anthropic");
  g_assert_nonnull (_zot_preferences_window_get_last_toast (f->window));
  g_test_message ("%s", _zot_preferences_window_get_last_toast (f->window));
  g_assert_nonnull (strstr (_zot_preferences_window_get_last_toast (f->window), "OpenAI"));

  /* The base URL is saved on Apply, and used at once: a local server needs
   * no key, so the switch that failed goes through. */
  apply_text (widget (f, "base-url"), "http://127.0.0.1:11434/v1");
  g_clear_pointer (&saved_model, g_free);
  saved_model = g_settings_get_string (f->settings, "base-url");
  g_assert_cmpstr (saved_model, ==, "http://127.0.0.1:11434/v1");
  wait_host (f, "openai", NULL);
  g_assert_cmpstr (_zot_preferences_window_get_last_toast (f->window), ==, "Base URL applied");

  /* A URL the provider in use refuses changes nothing, is not saved, and
   * the window says why. */
  apply_text (widget (f, "base-url"), "ftp://example.com/v1");
  wait_idle (f);
  g_assert_cmpstr (host_provider (f), ==, "openai");
  g_assert_nonnull (strstr (_zot_preferences_window_get_last_toast (f->window), "ftp://example.com/v1"));
  g_clear_pointer (&saved_model, g_free);
  saved_model = g_settings_get_string (f->settings, "base-url");
  g_assert_cmpstr (saved_model, ==, "http://127.0.0.1:11434/v1");

  gtk_drop_down_set_selected (provider, provider_position ("demo"));
  wait_host (f, "demo", NULL);
}

/* The provider row lists Automatic and then the table's providers, in
 * table order; a choice writes the row's name, and each one sets the
 * base URL and key rows as its row says. */
static void
test_provider_list (Fixture       *f,
                    gconstpointer  data)
{
  GtkDropDown *provider = GTK_DROP_DOWN (widget (f, "provider"));
  GListModel *items = gtk_drop_down_get_model (provider);
  guint n = zot_provider_table_get_n_providers ();

  g_assert_cmpuint (g_list_model_get_n_items (items), ==, n + 1);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 0), ==, "Automatic");

  /* The list is searched by the labels it shows. */
  g_assert_true (gtk_drop_down_get_enable_search (provider));
  g_assert_nonnull (gtk_drop_down_get_expression (provider));
  {
    g_auto(GValue) label = G_VALUE_INIT;
    g_autoptr(GObject) item = g_list_model_get_item (items, n);

    g_assert_true (gtk_expression_evaluate (gtk_drop_down_get_expression (provider), item, &label));
    g_assert_cmpstr (g_value_get_string (&label), ==,
                     zot_provider_info_get_label (zot_provider_table_get_nth (n - 1)));
  }

  for (guint i = 0; i < n; i++)
    {
      const ZotProviderInfo *info = zot_provider_table_get_nth (i);
      g_autofree char *saved = NULL;

      g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), i + 1), ==,
                       zot_provider_info_get_label (info));

      gtk_drop_down_set_selected (provider, i + 1);
      saved = g_settings_get_string (f->settings, "provider");
      g_assert_cmpstr (saved, ==, info->name);
      g_assert_cmpint (gtk_widget_get_sensitive (widget (f, "base-url")), ==,
                       info->compatible_servers || info->quirks.needs_base_url);
      g_assert_cmpint (gtk_widget_get_sensitive (widget (f, "api-key")), ==, info->key_variable != NULL);
      wait_idle (f);
    }

  /* A name the table does not know reads as Automatic. */
  g_settings_set_string (f->settings, "provider", "nonsense");
  g_assert_cmpuint (gtk_drop_down_get_selected (provider), ==, 0);
  g_settings_set_string (f->settings, "provider", "demo");
  wait_host (f, "demo", NULL);
}

static void
test_policy (Fixture       *f,
             gconstpointer  data)
{
  AdwComboRow *policy = ADW_COMBO_ROW (widget (f, "policy"));
  ZotExtensionManager *manager = zot_host_get_manager (f->host);

  g_assert_cmpuint (adw_combo_row_get_selected (policy), ==, 0);
  g_assert_cmpint (zot_extension_manager_get_policy (manager), ==, ZOT_APPROVAL_POLICY_ASK);

  adw_combo_row_set_selected (policy, 1);
  g_assert_cmpint (g_settings_get_enum (f->settings, "approval-policy"), ==, ZOT_APPROVAL_POLICY_YOLO);
  /* At once: the signal runs when the setting is written. */
  while (g_main_context_iteration (NULL, FALSE));
  g_assert_cmpint (zot_extension_manager_get_policy (manager), ==, ZOT_APPROVAL_POLICY_YOLO);

  adw_combo_row_set_selected (policy, 0);
  while (g_main_context_iteration (NULL, FALSE));
  g_assert_cmpint (g_settings_get_enum (f->settings, "approval-policy"), ==, ZOT_APPROVAL_POLICY_ASK);
  g_assert_cmpint (zot_extension_manager_get_policy (manager), ==, ZOT_APPROVAL_POLICY_ASK);

  /* /yolo writes the setting; the row follows. */
  g_settings_set_enum (f->settings, "approval-policy", ZOT_APPROVAL_POLICY_YOLO);
  g_assert_cmpuint (adw_combo_row_get_selected (policy), ==, 1);
}

/* The automatic compaction row is the setting, both ways. */
static void
test_auto_compact (Fixture       *f,
                   gconstpointer  data)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (widget (f, "auto-compact"));

  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 85);
  gtk_spin_button_set_value (spin, 60);
  g_assert_cmpuint (g_settings_get_uint (f->settings, "auto-compact"), ==, 60);
  g_settings_set_uint (f->settings, "auto-compact", 0);
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 0);
  /* Past 100 there is nothing to choose. */
  gtk_spin_button_set_value (spin, 150);
  g_assert_cmpuint (g_settings_get_uint (f->settings, "auto-compact"), ==, 100);
  g_settings_reset (f->settings, "auto-compact");
}

static void
test_show_resources (Fixture       *f,
                     gconstpointer  data)
{
  GtkSwitch *toggle = GTK_SWITCH (widget (f, "show-resources"));

  g_assert_false (gtk_switch_get_active (toggle));
  gtk_switch_set_active (toggle, TRUE);
  g_assert_true (g_settings_get_boolean (f->settings, "show-loaded-resources"));
  g_settings_set_boolean (f->settings, "show-loaded-resources", FALSE);
  g_assert_false (gtk_switch_get_active (toggle));
}

/* The retries of a busy provider: the spin button is the setting, within
 * its range. */
static void
test_max_retries (Fixture       *f,
                  gconstpointer  data)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (widget (f, "max-retries"));

  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, ZOT_PROVIDER_MAX_RETRIES);
  g_settings_set_int (f->settings, "max-retries", 2);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 2);
  gtk_spin_button_set_value (spin, 0);
  g_assert_cmpint (g_settings_get_int (f->settings, "max-retries"), ==, 0);
  gtk_spin_button_set_value (spin, 99);
  g_assert_cmpint (g_settings_get_int (f->settings, "max-retries"), ==,
                   ZOT_PROVIDER_MAX_RETRIES_LIMIT);
  g_settings_reset (f->settings, "max-retries");
}

/* Keyring calls, waited for */

typedef struct
{
  gboolean  done;
  gboolean  ok;
  char     *key;
  GError   *error;
} KeyWait;

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  KeyWait *wait = user_data;

  wait->key = zot_keyring_lookup_finish (result, &wait->error);
  wait->done = TRUE;
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  KeyWait *wait = user_data;

  wait->ok = zot_keyring_store_finish (result, &wait->error);
  wait->done = TRUE;
}

static void
clear_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  KeyWait *wait = user_data;

  wait->ok = zot_keyring_clear_finish (result, &wait->error);
  wait->done = TRUE;
}

static char *
lookup (const char  *provider,
        GError     **error)
{
  KeyWait wait = { 0 };

  zot_keyring_lookup_async (provider, NULL, lookup_cb, &wait);
  zot_test_wait_for (&wait.done, 20000);
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.key;
}

static gboolean
store (const char  *provider,
       const char  *key,
       GError     **error)
{
  KeyWait wait = { 0 };

  zot_keyring_store_async (provider, key, NULL, store_cb, &wait);
  zot_test_wait_for (&wait.done, 20000);
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.ok;
}

static gboolean
clear (const char  *provider,
       GError     **error)
{
  KeyWait wait = { 0 };

  zot_keyring_clear_async (provider, NULL, clear_cb, &wait);
  zot_test_wait_for (&wait.done, 20000);
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.ok;
}

static void
test_keyring_unavailable (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  const char *status;

  /* Nobody owns the Secret Service name on this bus. */
  secret_service_disconnect ();

  key = lookup ("anthropic", &error);
  g_assert_no_error (error);
  g_assert_null (key);

  g_assert_false (store ("anthropic", "sk-nowhere", &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, ZOT_KEYRING_ERROR, ZOT_KEYRING_ERROR_UNAVAILABLE);
  g_clear_error (&error);

  /* The window says so, and the key still serves this session. */
  gtk_drop_down_set_selected (GTK_DROP_DOWN (widget (f, "provider")), 1);
  wait_idle (f);
  apply_text (widget (f, "api-key"), "sk-session-only");
  wait_host (f, "anthropic", NULL);
  g_assert_cmpstr (zot_provider_get_key ("anthropic", NULL), ==, "sk-session-only");
  /* Not in the environment, which every extension and command inherits. */
  g_assert_null (g_getenv ("ANTHROPIC_API_KEY"));
  status = _zot_preferences_window_get_key_status (f->window);
  g_assert_cmpstr (status, ==, "Not stored: no keyring is available");
  g_assert_nonnull (strstr (_zot_preferences_window_get_last_toast (f->window), "keyring"));
}

/* A gnome-keyring-daemon of the test's own, on the private bus. */
typedef struct
{
  GSubprocess *daemon;
  char        *home;
  gboolean     appeared;
} Keyring;

static void
on_name_appeared (GDBusConnection *connection,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  Keyring *keyring = user_data;

  keyring->appeared = TRUE;
}

static gboolean
deadline_cb (gpointer user_data)
{
  gboolean *expired = user_data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
keyring_start (Keyring     *keyring,
               const char  *root,
               char       **why_not)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GOutputStream) input = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *program = g_find_program_in_path ("gnome-keyring-daemon");
  gboolean expired = FALSE;
  guint watch;
  guint deadline;

  if (program == NULL)
    {
      *why_not = g_strdup ("gnome-keyring-daemon is not installed");
      return FALSE;
    }

  /* Its keyring files and control socket stay in the test's directory. */
  keyring->home = g_build_filename (root, "keyring-home", NULL);
  g_mkdir_with_parents (keyring->home, 0700);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_setenv (launcher, "HOME", keyring->home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", keyring->home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_RUNTIME_DIR", keyring->home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", keyring->home, TRUE);
  /* It warns when an item is replaced; the test's fatal warnings are not its. */
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");
  keyring->daemon = g_subprocess_launcher_spawn (launcher, &error, program,
                                                 "--foreground", "--unlock", "--components=secrets",
                                                 NULL);
  if (keyring->daemon == NULL)
    {
      *why_not = g_strdup_printf ("gnome-keyring-daemon cannot start: %s", error->message);
      return FALSE;
    }

  /* --unlock reads the login keyring's password up to end of file. */
  input = g_object_ref (g_subprocess_get_stdin_pipe (keyring->daemon));
  g_output_stream_write_all (input, "test-password", strlen ("test-password"), NULL, NULL, NULL);
  g_output_stream_close (input, NULL, NULL);

  watch = g_bus_watch_name (G_BUS_TYPE_SESSION, SECRET_SERVICE_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                            on_name_appeared, NULL, keyring, NULL);
  deadline = g_timeout_add (10000, deadline_cb, &expired);
  while (!keyring->appeared && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (deadline);
  g_bus_unwatch_name (watch);

  if (!keyring->appeared)
    {
      *why_not = g_strdup ("gnome-keyring-daemon did not claim " SECRET_SERVICE_NAME
                           " on the private session bus within 10 s");
      return FALSE;
    }

  return TRUE;
}

static void
keyring_stop (Keyring *keyring)
{
  if (keyring->daemon != NULL)
    {
      g_subprocess_force_exit (keyring->daemon);
      g_subprocess_wait (keyring->daemon, NULL, NULL);
    }
  g_clear_object (&keyring->daemon);
  g_clear_pointer (&keyring->home, g_free);

  /* libsecret keeps its service proxy; the next test starts without it. */
  secret_service_disconnect ();
}

static gboolean
key_status_is (gpointer data)
{
  Fixture *f = data;

  return g_strcmp0 (_zot_preferences_window_get_key_status (f->window), "Stored in the keyring") == 0 &&
         !_zot_preferences_window_is_busy (f->window);
}

static void
test_keyring (Fixture       *f,
              gconstpointer  data)
{
  Keyring keyring = { 0 };
  g_autofree char *why_not = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  secret_service_disconnect ();
  if (!keyring_start (&keyring, f->env.root, &why_not))
    {
      keyring_stop (&keyring);
      g_test_skip (why_not);
      return;
    }

  key = lookup ("anthropic", &error);
  g_assert_no_error (error);
  g_assert_null (key);

  /* The daemon may still be creating its login keyring: a store that the
   * service refuses for that reason is a skip, not a failure. */
  if (!store ("anthropic", "sk-ant-123", &error))
    {
      g_autofree char *message = g_strdup_printf ("the test keyring refused a key: %s", error->message);

      keyring_stop (&keyring);
      g_test_skip (message);
      return;
    }

  key = lookup ("anthropic", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (key, ==, "sk-ant-123");
  g_clear_pointer (&key, g_free);

  /* Keys are per provider. */
  key = lookup ("openai", &error);
  g_assert_no_error (error);
  g_assert_null (key);

  /* Switching to a provider fetches its key from the keyring first. */
  g_assert_true (store ("openai", "sk-openai-456", &error));
  g_assert_no_error (error);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (widget (f, "provider")), 2);
  wait_host (f, "openai", NULL);
  g_assert_cmpstr (zot_provider_get_key ("openai", NULL), ==, "sk-openai-456");
  g_assert_null (g_getenv ("OPENAI_API_KEY"));
  zot_test_wait_until (key_status_is, f, 20000);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (widget (f, "api-key"))), ==, "sk-openai-456");

  /* Apply in the key row stores the new key. */
  apply_text (widget (f, "api-key"), "sk-openai-789");
  wait_idle (f);
  g_assert_cmpstr (_zot_preferences_window_get_last_toast (f->window), ==, "API key stored in the keyring");
  key = lookup ("openai", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (key, ==, "sk-openai-789");
  g_clear_pointer (&key, g_free);
  g_assert_cmpstr (zot_provider_get_key ("openai", NULL), ==, "sk-openai-789");
  g_assert_null (g_getenv ("OPENAI_API_KEY"));

  /* Clearing */
  g_assert_true (clear ("anthropic", &error));
  g_assert_no_error (error);
  key = lookup ("anthropic", &error);
  g_assert_no_error (error);
  g_assert_null (key);
  g_assert_true (clear ("anthropic", &error));
  g_assert_no_error (error);

  keyring_stop (&keyring);
}

int
main (int    argc,
      char **argv)
{
  GTestDBus *bus;
  g_autofree char *display = g_strdup (g_getenv ("DISPLAY"));
  g_autofree char *runtime_dir = g_strdup (g_getenv ("XDG_RUNTIME_DIR"));
  int status;

  /* Before anything connects to the session bus. GTestDBus unsets the
   * display too, which these tests need. */
  bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (bus);
  if (display != NULL)
    g_setenv ("DISPLAY", display, TRUE);
  if (runtime_dir != NULL)
    g_setenv ("XDG_RUNTIME_DIR", runtime_dir, TRUE);
  /* The private bus has no accessibility bus to offer. */
  g_setenv ("GTK_A11Y", "none", TRUE);

  gtk_test_init (&argc, &argv, NULL);

  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  g_test_add ("/zot/gui/preferences/new-destroy", Fixture, NULL, fixture_setup, test_new_destroy,
              fixture_teardown);
  g_test_add ("/zot/gui/preferences/keyring", Fixture, NULL, fixture_setup, test_keyring, fixture_teardown);
  g_test_add ("/zot/gui/preferences/keyring-unavailable", Fixture, NULL, fixture_setup,
              test_keyring_unavailable, fixture_teardown);
  g_test_add ("/zot/gui/preferences/model", Fixture, NULL, fixture_setup, test_model, fixture_teardown);
  g_test_add ("/zot/gui/preferences/provider-list", Fixture, NULL, fixture_setup, test_provider_list,
              fixture_teardown);
  g_test_add ("/zot/gui/preferences/policy", Fixture, NULL, fixture_setup, test_policy, fixture_teardown);
  g_test_add ("/zot/gui/preferences/auto-compact", Fixture, NULL, fixture_setup, test_auto_compact,
              fixture_teardown);
  g_test_add ("/zot/gui/preferences/show-resources", Fixture, NULL, fixture_setup, test_show_resources,
              fixture_teardown);
  g_test_add ("/zot/gui/preferences/max-retries", Fixture, NULL, fixture_setup, test_max_retries,
              fixture_teardown);

  status = g_test_run ();

  /* libadwaita's settings proxy keeps the bus connection to the end, and
   * g_test_dbus_down() (also run by the last unref) would wait for it in
   * vain: stop the daemon, and let the process exit hold the object. */
  g_test_dbus_stop (bus);
  return status;
}
