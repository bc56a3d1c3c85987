/* test-gui-retries.c — a busy model in the window: the transcript shows a
 * row for the wait before the model is asked again, its Cancel ends the
 * turn at once, and the row stays, without its Cancel, after the wait.
 * A real ZotHost talks to the fake server. (The Preferences row is in
 * test-gui-preferences.c.) */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-fake-server.h"
#include "zot-gui-test-util.h"
#include "zot-host.h"
#include "zot-limits-private.h"
#include "zot-test-util.h"
#include "zot-transcript.h"

#define SAFETY_MS 10000

typedef struct
{
  ZotTestEnv     env;
  ZotFakeServer *server;
  ZotHost       *host;
  GtkWidget     *window;
  ZotTranscript *transcript;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;

  zot_test_env_setup (&f->env);
  f->server = zot_fake_server_new ();

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("openai");
  options.provider.base_url = g_strdup (zot_fake_server_get_url (f->server));
  options.provider.api_key = g_strdup ("sk-test");
  options.max_retries = ZOT_PROVIDER_MAX_RETRIES;
  options.max_retries_set = TRUE;
  options.no_session = TRUE;
  options.no_ext = TRUE;
  options.interactive = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  f->transcript = zot_test_show_transcript (f->host, &f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_test_close_transcript (&f->window, &f->host);
  zot_fake_server_free (f->server);
  zot_test_env_teardown (&f->env);
  for (ZotTimeout t = 0; t < ZOT_N_TIMEOUTS; t++)
    _zot_timeout_override_for_testing (t, 0);
}

/* The shown note row that says @needle, or NULL. */
static GtkWidget *
find_row (Fixture    *f,
          const char *needle)
{
  g_autoptr(GPtrArray) rows = zot_test_find_widgets (GTK_WIDGET (f->transcript), GTK_TYPE_WIDGET,
                                                     "note-row");

  for (guint i = 0; i < rows->len; i++)
    {
      g_autofree char *text = zot_test_widget_text (g_ptr_array_index (rows, i));

      if (strstr (text, needle) != NULL && gtk_widget_get_mapped (g_ptr_array_index (rows, i)))
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

static gboolean
waiting_row_shown (gpointer data)
{
  return find_row (data, "retrying in 30 s (attempt 1 of 4)") != NULL;
}

static void
test_row_and_cancel (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  GtkWidget *row;
  GtkWidget *cancel;
  gint64 start;

  zot_fake_server_push_json (f->server, 529, "{\"error\":{\"message\":\"Overloaded\"}}", "30");
  zot_test_submit_start (f->host, "hi", &submit);
  zot_test_wait_until (waiting_row_shown, f, SAFETY_MS);

  row = find_row (f, "is overloaded (529)");
  g_assert_nonnull (row);
  cancel = zot_test_find_widget (row, GTK_TYPE_BUTTON, "retry-cancel");
  g_assert_nonnull (cancel);
  g_assert_true (gtk_widget_get_mapped (cancel));
  g_assert_false (submit.done);

  start = g_get_monotonic_time ();
  g_assert_true (gtk_widget_activate (cancel));
  zot_test_wait_for (&submit.done, SAFETY_MS);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 1);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  /* The row stays as a record; the wait it offered to end is over. */
  row = find_row (f, "is overloaded (529)");
  g_assert_nonnull (row);
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (row, GTK_TYPE_BUTTON, "retry-cancel")));
}

/* A retry that works: the row stays without its Cancel, the answer follows. */
static void
test_row_after_wait (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  g_auto(GStrv) script = zot_fake_server_openai_text ("answered after the wait", 6);
  GtkWidget *row;

  zot_fake_server_push_json (f->server, 503, "{}", "0");
  zot_fake_server_push_sse (f->server, (const char * const *) script, FALSE);
  zot_test_submit (f->host, "hi", &submit);
  g_assert_true (submit.ok);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  row = find_row (f, "is overloaded (503) — retrying in 0 ms (attempt 1 of 4)");
  g_assert_nonnull (row);
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (row, GTK_TYPE_BUTTON, "retry-cancel")));
  g_assert_cmpuint (zot_fake_server_get_n_requests (f->server), ==, 2);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/zot/gui/retries/row-and-cancel", Fixture, NULL, fixture_setup, test_row_and_cancel,
              fixture_teardown);
  g_test_add ("/zot/gui/retries/row-after-wait", Fixture, NULL, fixture_setup, test_row_after_wait,
              fixture_teardown);

  return g_test_run ();
}
