/* test-recent-projects.c — the recent projects list: the most recent
 * first, each folder once, bounded, kept in the settings. No display. */
#include "config.h"

#include "zot-limits.h"
#include "zot-recent-projects.h"

static void
test_push_order (void)
{
  const char *list[] = { "/a", "/b", "/c", NULL };
  g_auto(GStrv) pushed = zot_recent_projects_push (list, "/d");
  g_auto(GStrv) again = zot_recent_projects_push ((const char * const *) pushed, "/b");
  g_auto(GStrv) first = zot_recent_projects_push (NULL, "/only");

  g_assert_cmpstrv (pushed, ((const char *[]) { "/d", "/a", "/b", "/c", NULL }));
  /* Opened again: moved to the front, not listed twice. */
  g_assert_cmpstrv (again, ((const char *[]) { "/b", "/d", "/a", "/c", NULL }));
  g_assert_cmpstrv (first, ((const char *[]) { "/only", NULL }));
}

static char **
full_list (guint n)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *folder = g_strdup_printf ("/p%u", i);
      g_strv_builder_add (builder, folder);
    }
  return g_strv_builder_end (builder);
}

/* At the bound, a new folder drops the oldest; one already listed drops
 * nothing. */
static void
test_bounded (void)
{
  g_auto(GStrv) full = full_list (ZOT_RECENT_PROJECTS_MAX);
  g_auto(GStrv) short_by_one = full_list (ZOT_RECENT_PROJECTS_MAX - 1);
  g_auto(GStrv) pushed = zot_recent_projects_push ((const char * const *) full, "/new");
  g_auto(GStrv) fits = zot_recent_projects_push ((const char * const *) short_by_one, "/new");
  g_autofree char *last = g_strdup_printf ("/p%u", ZOT_RECENT_PROJECTS_MAX - 1);
  g_autofree char *before_last = g_strdup_printf ("/p%u", ZOT_RECENT_PROJECTS_MAX - 2);
  g_auto(GStrv) moved = zot_recent_projects_push ((const char * const *) full, last);

  g_assert_cmpuint (g_strv_length (pushed), ==, ZOT_RECENT_PROJECTS_MAX);
  g_assert_cmpstr (pushed[0], ==, "/new");
  g_assert_false (g_strv_contains ((const char * const *) pushed, last));
  g_assert_cmpstr (pushed[ZOT_RECENT_PROJECTS_MAX - 1], ==, before_last);

  g_assert_cmpuint (g_strv_length (fits), ==, ZOT_RECENT_PROJECTS_MAX);
  g_assert_cmpstr (fits[ZOT_RECENT_PROJECTS_MAX - 1], ==, before_last);

  g_assert_cmpuint (g_strv_length (moved), ==, ZOT_RECENT_PROJECTS_MAX);
  g_assert_cmpstr (moved[0], ==, last);
  g_assert_true (g_strv_contains ((const char * const *) moved, "/p0"));
}

static void
test_remove (void)
{
  const char *list[] = { "/a", "/b", "/c", NULL };
  g_auto(GStrv) rest = zot_recent_projects_remove (list, "/b");
  g_auto(GStrv) same = zot_recent_projects_remove (list, "/x");

  g_assert_cmpstrv (rest, ((const char *[]) { "/a", "/c", NULL }));
  g_assert_cmpstrv (same, list);
}

static void
test_settings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GSettings) other = g_settings_new (APP_ID);
  g_auto(GStrv) list = NULL;
  g_auto(GStrv) seen = NULL;

  g_settings_reset (settings, "recent-projects");
  zot_recent_projects_add (settings, "/work/a");
  zot_recent_projects_add (settings, "/work/b");
  zot_recent_projects_add (settings, "/work/a");
  list = g_settings_get_strv (settings, "recent-projects");
  g_assert_cmpstrv (list, ((const char *[]) { "/work/a", "/work/b", NULL }));

  /* Another window's settings object sees it. */
  zot_recent_projects_forget (settings, "/work/a");
  seen = g_settings_get_strv (other, "recent-projects");
  g_assert_cmpstrv (seen, ((const char *[]) { "/work/b", NULL }));
}

static void
test_display_path (void)
{
  g_autofree char *inside = g_build_filename (g_get_home_dir (), "src", "app", NULL);
  g_autofree char *sibling = g_strconcat (g_get_home_dir (), "x", NULL);
  g_autofree char *shown = zot_recent_projects_display_path (inside);
  g_autofree char *home = zot_recent_projects_display_path (g_get_home_dir ());
  g_autofree char *not_home = zot_recent_projects_display_path (sibling);

  g_assert_cmpstr (shown, ==, "~/src/app");
  g_assert_cmpstr (home, ==, "~");
  /* A folder whose name merely starts like the home folder's. */
  g_assert_cmpstr (not_home, ==, sibling);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/recent-projects/push-order", test_push_order);
  g_test_add_func ("/zot/recent-projects/bounded", test_bounded);
  g_test_add_func ("/zot/recent-projects/remove", test_remove);
  g_test_add_func ("/zot/recent-projects/settings", test_settings);
  g_test_add_func ("/zot/recent-projects/display-path", test_display_path);

  return g_test_run ();
}
