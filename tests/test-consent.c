/* test-consent.c — grants: what the user accepted for each extension. */
#include "config.h"

#include <glib/gstdio.h>

#include "zot-grants.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-paths.h"

typedef struct
{
  char *home;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  (void) data;
  f->home = g_dir_make_tmp ("zot-consent-XXXXXX", NULL);
  g_assert_nonnull (f->home);
  g_setenv ("ZOT_HOME", f->home, TRUE);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *command = g_strdup_printf ("rm -rf '%s'", f->home);

  (void) data;
  g_assert_cmpint (system (command), ==, 0);
  g_free (f->home);
}

static ZotPermissions *
permissions_from (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  ZotPermissions *permissions = NULL;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_true (zot_permissions_read (json_node_get_object (json_parser_get_root (parser)),
                                       "extension.json", &permissions, &error));
  g_assert_no_error (error);
  return permissions;
}

static char *
grant_file (Fixture    *f,
            const char *name)
{
  g_autofree char *file = g_strconcat (name, ".json", NULL);

  return g_build_filename (f->home, "grants", file, NULL);
}

static void
test_round_trip (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(ZotPermissions) asked =
    permissions_from ("{\"permissions\": {\"filesystem\": \"project:ro\", \"network\": true,"
                      " \"env\": [\"LANG\"], \"secrets\": [\"TOKEN\"]}}");
  g_autoptr(ZotGrant) grant = zot_grant_new (asked);
  g_autoptr(ZotGrant) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = grant_file (f, "weather");
  GStatBuf st;

  (void) data;
  g_assert_null (zot_grant_load ("weather"));
  zot_grant_add_project (grant, "/work/project");
  zot_grant_add_project (grant, "/work/project");
  g_assert_true (zot_grant_save ("weather", grant, &error));
  g_assert_no_error (error);
  /* Outside every extension folder, and only the user's. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  loaded = zot_grant_load ("weather");
  g_assert_nonnull (loaded);
  g_assert_false (loaded->unconfined);
  g_assert_cmpint (loaded->permissions->filesystem, ==, ZOT_FILESYSTEM_PROJECT_RO);
  g_assert_true (loaded->permissions->network);
  g_assert_cmpstrv (loaded->permissions->env, ((const char *[]) { "LANG", NULL }));
  g_assert_cmpstrv (loaded->permissions->secrets, ((const char *[]) { "TOKEN", NULL }));
  g_assert_cmpstrv (loaded->projects, ((const char *[]) { "/work/project", NULL }));
  g_assert_true (zot_grant_trusts_project (loaded, "/work/project"));
  g_assert_false (zot_grant_trusts_project (loaded, "/work/other"));
  g_assert_true (zot_grant_covers (loaded, asked));

  /* A name that is no extension name never becomes a path. */
  g_assert_false (zot_grant_save ("../escape", grant, &error));
  g_assert_nonnull (error);
  g_assert_null (zot_grant_load ("../escape"));
}

static void
test_covers (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(ZotPermissions) asked = permissions_from ("{\"permissions\": {\"filesystem\": \"project:ro\"}}");
  g_autoptr(ZotPermissions) more_files = permissions_from ("{\"permissions\": {\"filesystem\": \"home\"}}");
  g_autoptr(ZotPermissions) network =
    permissions_from ("{\"permissions\": {\"filesystem\": \"none\", \"network\": true}}");
  g_autoptr(ZotPermissions) env =
    permissions_from ("{\"permissions\": {\"filesystem\": \"none\", \"env\": [\"HOME\"]}}");
  g_autoptr(ZotPermissions) secret =
    permissions_from ("{\"permissions\": {\"filesystem\": \"none\", \"secrets\": [\"KEY\"]}}");
  g_autoptr(ZotPermissions) less = permissions_from ("{\"permissions\": {\"filesystem\": \"none\"}}");
  g_autoptr(ZotGrant) grant = zot_grant_new (asked);
  g_autoptr(ZotGrant) unconfined = zot_grant_new (NULL);

  (void) f;
  (void) data;
  g_assert_true (zot_grant_covers (grant, asked));
  g_assert_true (zot_grant_covers (grant, less));
  g_assert_false (zot_grant_covers (grant, more_files));
  g_assert_false (zot_grant_covers (grant, network));
  g_assert_false (zot_grant_covers (grant, env));
  g_assert_false (zot_grant_covers (grant, secret));
  /* Dropping the box is asking for everything. */
  g_assert_false (zot_grant_covers (grant, NULL));
  g_assert_false (zot_grant_covers (NULL, less));
  g_assert_true (unconfined->unconfined);
  g_assert_true (zot_grant_covers (unconfined, NULL));
  g_assert_true (zot_grant_covers (unconfined, more_files));
}

static void
test_revoke_narrows (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(ZotPermissions) declared =
    permissions_from ("{\"permissions\": {\"filesystem\": \"home\", \"network\": true, \"devices\": true,"
                      " \"env\": [\"LANG\", \"TZ\"], \"secrets\": [\"A\", \"B\"]},"
                      " \"limits\": {\"memory_mb\": 64}}");
  g_autoptr(ZotGrant) grant = zot_grant_new (declared);
  g_autoptr(ZotPermissions) boxed = NULL;
  g_autoptr(ZotPermissions) unnarrowed = NULL;

  (void) f;
  (void) data;
  grant->permissions->network = FALSE;
  grant->permissions->filesystem = ZOT_FILESYSTEM_PROJECT_RO;
  g_strfreev (grant->permissions->env);
  grant->permissions->env = g_strsplit ("TZ", ",", -1);
  g_strfreev (grant->permissions->secrets);
  grant->permissions->secrets = g_strsplit ("B,C", ",", -1);

  boxed = zot_permissions_intersect (declared, grant->permissions);
  g_assert_false (boxed->network);
  g_assert_true (boxed->devices);
  g_assert_cmpint (boxed->filesystem, ==, ZOT_FILESYSTEM_PROJECT_RO);
  g_assert_cmpstrv (boxed->env, ((const char *[]) { "TZ", NULL }));
  /* A grant never adds what the manifest did not ask for. */
  g_assert_cmpstrv (boxed->secrets, ((const char *[]) { "B", NULL }));
  g_assert_cmpuint (boxed->memory_mb, ==, 64);

  unnarrowed = zot_permissions_intersect (declared, NULL);
  g_assert_true (unnarrowed->network);
  g_assert_cmpint (unnarrowed->filesystem, ==, ZOT_FILESYSTEM_HOME);
}

static void
test_corrupt (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *path = grant_file (f, "broken");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *big = NULL;

  (void) data;
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);

  g_assert_true (g_file_set_contents (path, "{not json", -1, NULL));
  g_test_expect_message ("zot-grants", G_LOG_LEVEL_WARNING, "*broken.json is not a grants file*");
  g_assert_null (zot_grant_load ("broken"));
  g_test_assert_expected_messages ();

  g_assert_true (g_file_set_contents (path, "{\"permissions\": {\"filesystem\": \"everything\"}}", -1, NULL));
  g_test_expect_message ("zot-grants", G_LOG_LEVEL_WARNING, "*broken.json*treated as no grant*");
  g_assert_null (zot_grant_load ("broken"));
  g_test_assert_expected_messages ();

  /* Neither unconfined nor any permissions: nothing was accepted. */
  g_assert_true (g_file_set_contents (path, "{\"projects\": [\"/p\"]}", -1, NULL));
  g_test_expect_message ("zot-grants", G_LOG_LEVEL_WARNING, "*broken.json*treated as no grant*");
  g_assert_null (zot_grant_load ("broken"));
  g_test_assert_expected_messages ();

  big = g_strnfill (ZOT_STATE_FILE_MAX_BYTES + 1, ' ');
  g_assert_true (g_file_set_contents (path, big, -1, NULL));
  g_test_expect_message ("zot-grants", G_LOG_LEVEL_WARNING, "*broken.json*treated as no grant*");
  g_assert_null (zot_grant_load ("broken"));
  g_test_assert_expected_messages ();
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/consent/grants/round-trip", Fixture, NULL, fixture_set_up, test_round_trip, fixture_tear_down);
  g_test_add ("/consent/grants/covers", Fixture, NULL, fixture_set_up, test_covers, fixture_tear_down);
  g_test_add ("/consent/grants/revoke-narrows", Fixture, NULL, fixture_set_up, test_revoke_narrows,
              fixture_tear_down);
  g_test_add ("/consent/grants/corrupt", Fixture, NULL, fixture_set_up, test_corrupt, fixture_tear_down);

  return g_test_run ();
}
