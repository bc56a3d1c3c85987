/* test-gui-trust.c — the window's banner for a project's untrusted
 * extensions: it names them, *Trust and run* records the trust and starts
 * them, *Not now* hides it and starts nothing. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-host.h"
#include "zot-trust-banner.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

typedef struct
{
  ZotTestEnv      env;
  ZotHost        *host;
  GtkWindow      *window;
  ZotTrustBanner *banner;
  char           *grant_path;
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

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *project_dir = NULL;
  g_autofree char *who_dir = NULL;
  gboolean done = FALSE;

  zot_test_env_setup (&f->env);
  project_dir = g_build_filename (f->env.cwd, ".zot", "extensions", NULL);
  g_assert_cmpint (g_mkdir_with_parents (project_dir, 0700), ==, 0);
  who_dir = zot_test_make_fake_args (project_dir, "who", NULL);
  f->grant_path = g_build_filename (f->env.home, "grants", "who.json", NULL);

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);

  f->banner = ZOT_TRUST_BANNER (zot_trust_banner_new ());
  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 700, 200);
  gtk_window_set_child (f->window, GTK_WIDGET (f->banner));
  gtk_window_present (f->window);
  zot_trust_banner_update (f->banner, zot_host_get_manager (f->host));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->banner), (gpointer *) &f->banner);
  gtk_window_destroy (f->window);
  g_assert_null (f->banner);

  zot_test_finalize_host (&f->host);
  g_clear_pointer (&f->grant_path, g_free);
  zot_test_env_teardown (&f->env);
}

static ZotExtensionState
state_of_who (Fixture *f)
{
  ZotExtension *who = zot_extension_manager_find (zot_host_get_manager (f->host), "who");

  g_assert_nonnull (who);
  return zot_extension_get_state (who);
}

static gboolean
who_is_ready (gpointer data)
{
  return state_of_who (data) == ZOT_EXTENSION_STATE_READY;
}

static void
test_offer (Fixture       *f,
            gconstpointer  data)
{
  g_assert_cmpint (state_of_who (f), ==, ZOT_EXTENSION_STATE_NEEDS_APPROVAL);
  g_assert_true (zot_trust_banner_get_revealed (f->banner));
  g_assert_nonnull (strstr (zot_trust_banner_get_text (f->banner),
                            "This project has 1 extension that has not run here before: who (asks for: "));
  /* A state of its own, listed with what it asks for. */
  g_assert_cmpstr (zot_extension_state_to_string (state_of_who (f)), ==, "needs_approval");
  g_assert_nonnull (strstr (zot_extension_get_last_error (zot_extension_manager_find (zot_host_get_manager (f->host),
                                                                                      "who")),
                            "asks for: unconfined"));
}

static gboolean
banner_hidden (gpointer data)
{
  Fixture *f = data;

  return !zot_trust_banner_get_revealed (f->banner);
}

/* `zot ext trust` in a terminal while the window is open: the grant file
 * changes, and the extension starts without a reload; the banner goes. */
static void
test_trusted_elsewhere (Fixture       *f,
                        gconstpointer  data)
{
  ZotExtension *who = zot_extension_manager_find (zot_host_get_manager (f->host), "who");
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *command = g_strdup_printf ("env ZOT_HOME='%s' '%s' ext trust --cwd '%s'", f->env.home,
                                              g_getenv ("ZOT_BIN"), f->env.cwd);
  int status = 0;

  g_assert_true (zot_trust_banner_get_revealed (f->banner));
  g_assert_true (g_spawn_command_line_sync (command, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  zot_test_wait_until (who_is_ready, f, 30000);
  g_assert_true (zot_extension_manager_find (zot_host_get_manager (f->host), "who") != who);
  zot_test_wait_until (banner_hidden, f, 5000);
}

static void
reloaded_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_manager_reload_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *done = TRUE;
}

/* /reload-ext finds one more untrusted extension: the banner names both
 * without being asked to look again. */
static void
test_reload_refreshes (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *project_dir = g_build_filename (f->env.cwd, ".zot", "extensions", NULL);
  g_autofree char *other = zot_test_make_fake_args (project_dir, "other", NULL);
  gboolean done = FALSE;

  zot_extension_manager_reload_async (zot_host_get_manager (f->host), NULL, reloaded_cb, &done);
  zot_test_wait_for (&done, 30000);
  g_assert_true (zot_trust_banner_get_revealed (f->banner));
  g_assert_nonnull (strstr (zot_trust_banner_get_text (f->banner), "This project has 2 extensions"));
  g_assert_nonnull (strstr (zot_trust_banner_get_text (f->banner), "other (asks for: "));
}

static void
test_trust_and_run (Fixture       *f,
                    gconstpointer  data)
{
  g_assert_false (g_file_test (f->grant_path, G_FILE_TEST_EXISTS));

  g_signal_emit_by_name (_zot_trust_banner_get_trust_button (f->banner), "clicked");
  zot_test_wait_until (who_is_ready, f, 30000);

  g_assert_true (g_file_test (f->grant_path, G_FILE_TEST_EXISTS));
  g_assert_false (zot_trust_banner_get_revealed (f->banner));
}

static void
test_not_now (Fixture       *f,
              gconstpointer  data)
{
  g_signal_emit_by_name (_zot_trust_banner_get_dismiss_button (f->banner), "clicked");
  g_assert_false (zot_trust_banner_get_revealed (f->banner));

  /* For the rest of this window, even when the load offers them again. */
  zot_trust_banner_update (f->banner, zot_host_get_manager (f->host));
  g_assert_false (zot_trust_banner_get_revealed (f->banner));

  g_assert_cmpint (state_of_who (f), ==, ZOT_EXTENSION_STATE_NEEDS_APPROVAL);
  g_assert_false (g_file_test (f->grant_path, G_FILE_TEST_EXISTS));
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  g_test_add ("/zot/gui/trust/offer", Fixture, NULL, fixture_setup, test_offer, fixture_teardown);
  g_test_add ("/zot/gui/trust/trust-and-run", Fixture, NULL, fixture_setup, test_trust_and_run,
              fixture_teardown);
  g_test_add ("/zot/gui/trust/trusted-elsewhere", Fixture, NULL, fixture_setup, test_trusted_elsewhere,
              fixture_teardown);
  g_test_add ("/zot/gui/trust/reload-refreshes", Fixture, NULL, fixture_setup, test_reload_refreshes,
              fixture_teardown);
  g_test_add ("/zot/gui/trust/not-now", Fixture, NULL, fixture_setup, test_not_now, fixture_teardown);

  return g_test_run ();
}
