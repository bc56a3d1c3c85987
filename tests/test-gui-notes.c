/* test-gui-notes.c — the notes list: notes from the fake extension's
 * "notify LEVEL TEXT" directive appear under their extension's heading,
 * newest last, styled by level; its "clear" directive (clear_notes)
 * removes that extension's notes and no other's. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-gui-test-util.h"
#include "zot-notes-view.h"
#include "zot-resources.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv           env;
  ZotExtensionManager *manager;
  GtkWindow           *window;
  ZotNotesView        *view;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *alpha = NULL;
  g_autofree char *beta = NULL;

  zot_test_env_setup (&f->env);
  alpha = zot_test_make_fake_args (f->env.root, "alpha", "--command", "NoteA", NULL);
  beta = zot_test_make_fake_args (f->env.root, "beta", "--command", "NoteB", NULL);

  {
    const char *paths[] = { alpha, beta, NULL };
    f->manager = zot_test_load_manager (&f->env, paths);
  }

  f->view = ZOT_NOTES_VIEW (zot_notes_view_new ());
  zot_notes_view_set_manager (f->view, f->manager);

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 360, 480);
  gtk_window_set_child (f->window, GTK_WIDGET (f->view));
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->view), (gpointer *) &f->view);
  gtk_window_destroy (f->window);
  g_assert_null (f->view);

  zot_test_shutdown_manager (g_steal_pointer (&f->manager));
  zot_test_env_teardown (&f->env);
}

/* Every widget under @widget (itself included) with @css_class. */
static void
collect (GtkWidget  *widget,
         const char *css_class,
         GPtrArray  *out)
{
  if (gtk_widget_has_css_class (widget, css_class))
    g_ptr_array_add (out, widget);

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, css_class, out);
}

static const char *
level_of (GtkWidget *row)
{
  static const char *levels[] = { "info", "success", "warn", "error" };

  for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
    {
      g_autofree char *css_class = g_strdup_printf ("note-%s", levels[i]);

      if (gtk_widget_has_css_class (row, css_class))
        return levels[i];
    }
  return "none";
}

/* "heading: level message, level message | heading: …" as shown, in order. */
static char *
describe (Fixture *f)
{
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();
  g_autoptr(GString) out = g_string_new (NULL);

  collect (GTK_WIDGET (f->view), "note-group", groups);
  for (guint i = 0; i < groups->len; i++)
    {
      g_autoptr(GPtrArray) headings = g_ptr_array_new ();
      g_autoptr(GPtrArray) rows = g_ptr_array_new ();

      collect (g_ptr_array_index (groups, i), "note-heading", headings);
      collect (g_ptr_array_index (groups, i), "note-row", rows);
      g_assert_cmpuint (headings->len, ==, 1);

      if (i > 0)
        g_string_append (out, " | ");
      g_string_append_printf (out, "%s:", gtk_label_get_text (g_ptr_array_index (headings, 0)));

      for (guint j = 0; j < rows->len; j++)
        {
          g_autoptr(GPtrArray) messages = g_ptr_array_new ();
          GtkWidget *row = g_ptr_array_index (rows, j);

          collect (row, "note-message", messages);
          g_assert_cmpuint (messages->len, ==, 1);
          g_string_append_printf (out, "%s %s %s", j > 0 ? "," : "", level_of (row),
                                  gtk_label_get_text (g_ptr_array_index (messages, 0)));
        }
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
run (Fixture    *f,
     const char *command,
     const char *args)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_test_run_command (f->manager, command, args, &error));
  g_assert_no_error (error);
}

typedef struct
{
  Fixture    *f;
  const char *expected;
} Wait;

static gboolean
shows (gpointer data)
{
  Wait *wait = data;
  g_autofree char *now = describe (wait->f);

  return g_str_equal (now, wait->expected);
}

static void
wait_shows (Fixture    *f,
            const char *expected)
{
  Wait wait = { f, expected };

  zot_test_wait_until (shows, &wait, 10000);
}

static void
test_notes (Fixture       *f,
            gconstpointer  data)
{
  GtkStack *stack = GTK_STACK (zot_test_find_widget (GTK_WIDGET (f->view), GTK_TYPE_STACK, NULL));

  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "empty");
  g_assert_cmpuint (zot_notes_view_get_n_notes (f->view), ==, 0);

  run (f, "notea", "notify info hello from alpha");
  wait_shows (f, "alpha: info hello from alpha");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "notes");

  run (f, "noteb", "notify warn careful");
  run (f, "notea", "notify error boom");
  run (f, "notea", "notify success done");
  run (f, "noteb", "notify whatever unknown levels are info");
  wait_shows (f, "alpha: info hello from alpha, error boom, success done"
                 " | beta: warn careful, info unknown levels are info");
  g_assert_cmpuint (zot_notes_view_get_n_notes (f->view), ==, 5);

  /* clear_notes from alpha: beta's stay. */
  run (f, "notea", "clear");
  wait_shows (f, "beta: warn careful, info unknown levels are info");
  g_assert_cmpuint (zot_notes_view_get_n_notes (f->view), ==, 2);

  /* A new note from alpha starts a new group, after beta's. */
  run (f, "notea", "notify info again");
  wait_shows (f, "beta: warn careful, info unknown levels are info | alpha: info again");

  /* Text that Pango lays out wider than its wrap width, at the narrowest:
   * a horizontal box around it found it could not fit at any height. */
  run (f, "notea", "notify info _\"\"=\t x");
  wait_shows (f, "beta: warn careful, info unknown levels are info | alpha: info again, info _\"\"=\t x");
  {
    g_autoptr(GPtrArray) rows = g_ptr_array_new ();

    collect (GTK_WIDGET (f->view), "note-row", rows);
    for (guint i = 0; i < rows->len; i++)
      zot_test_measure_narrowest (g_ptr_array_index (rows, i));
  }

  run (f, "noteb", "clear");
  run (f, "notea", "clear");
  wait_shows (f, "");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "empty");
  g_assert_cmpuint (zot_notes_view_get_n_notes (f->view), ==, 0);
}

static void
test_manager_switch (Fixture       *f,
                     gconstpointer  data)
{
  run (f, "notea", "notify info before");
  wait_shows (f, "alpha: info before");

  /* Another manager (a reload of the window's host) starts empty. */
  zot_notes_view_set_manager (f->view, NULL);
  wait_shows (f, "");
  g_assert_null (zot_notes_view_get_manager (f->view));

  run (f, "notea", "notify info unseen");
  wait_shows (f, "");

  zot_notes_view_set_manager (f->view, f->manager);
  run (f, "notea", "notify info seen");
  wait_shows (f, "alpha: info seen");
}

/* Notes that Pango 1.50 cannot wrap by word and character as they are
 * (zot-wrap-safe.h): shown repaired, measured at the narrowest. */
static void
test_degenerate_clusters (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  run (f, "notea", "notify info Y\u063F \u032DR");
  run (f, "notea", "notify warn a\u06E7 \u200D\u06A1");
  wait_shows (f, "alpha: info Y\u063F \u25CC\u032DR, warn a\u06E7 \u06A1");

  collect (GTK_WIDGET (f->view), "note-row", rows);
  for (guint i = 0; i < rows->len; i++)
    zot_test_measure_narrowest (g_ptr_array_index (rows, i));
  zot_test_measure_narrowest (GTK_WIDGET (f->view));
}

static void
test_new_destroy (void)
{
  ZotNotesView *view = ZOT_NOTES_VIEW (zot_notes_view_new ());

  g_object_ref_sink (view);
  g_assert_cmpuint (zot_notes_view_get_n_notes (view), ==, 0);
  g_assert_finalize_object (view);
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* An extension that floods notes keeps its pipe readable at every turn of
 * the loop. Reading it must not starve the frame clock, which GTK runs at
 * a lower priority than the default: otherwise the window looks frozen. */
static gboolean
has_notes (gpointer data)
{
  return zot_notes_view_get_n_notes (data) > 0;
}

static void
test_flood_keeps_painting (void)
{
  ZotTestEnv env;
  g_autofree char *flood = NULL;
  ZotExtensionManager *manager;
  ZotNotesView *view;
  GtkWindow *window;
  gboolean ticked = FALSE;

  zot_test_env_setup (&env);

  view = ZOT_NOTES_VIEW (zot_notes_view_new ());
  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 360, 480);
  gtk_window_set_child (window, GTK_WIDGET (view));
  gtk_window_present (window);

  gtk_widget_add_tick_callback (GTK_WIDGET (view), tick_cb, &ticked, NULL);
  zot_test_wait_for (&ticked, 10000);

  flood = zot_test_make_fake_args (env.root, "flood", "--flood", NULL);
  {
    const char *paths[] = { flood, NULL };
    manager = zot_test_load_manager (&env, paths);
  }
  zot_notes_view_set_manager (view, manager);

  /* Once the flood is arriving (on a loaded machine the extension may
   * take a while to start writing), ask for a frame: it must come. */
  zot_test_wait_until (has_notes, view, 10000);
  ticked = FALSE;
  gtk_widget_add_tick_callback (GTK_WIDGET (view), tick_cb, &ticked, NULL);
  zot_test_wait_for (&ticked, 10000);
  g_assert_cmpuint (zot_notes_view_get_n_notes (view), >, 0);

  gtk_window_destroy (window);
  zot_test_shutdown_manager (manager);
  zot_test_env_teardown (&env);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  g_assert_nonnull (zot_get_resource ());

  g_test_add ("/zot/gui-notes/notes", Fixture, NULL, fixture_setup, test_notes, fixture_teardown);
  g_test_add ("/zot/gui-notes/manager-switch", Fixture, NULL, fixture_setup, test_manager_switch,
              fixture_teardown);
  g_test_add ("/zot/gui-notes/degenerate-clusters", Fixture, NULL, fixture_setup,
              test_degenerate_clusters, fixture_teardown);
  g_test_add_func ("/zot/gui-notes/new-destroy", test_new_destroy);
  g_test_add_func ("/zot/gui-notes/flood-keeps-painting", test_flood_keeps_painting);

  return g_test_run ();
}
