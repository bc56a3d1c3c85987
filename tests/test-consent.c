/* test-consent.c — grants: what the user accepted for each extension. */
#include "config.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "zot-grants.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-paths.h"
#include "zot-test-util.h"

typedef struct
{
  char *home;
  char *path;   /* nullable: $PATH for zot */
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
  g_free (f->path);
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

/* One right at a time, as the switches on the extensions page take them. */
static void
test_change_one (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(ZotPermissions) granted =
    permissions_from ("{\"permissions\": {\"filesystem\": \"project\", \"network\": true,"
                      " \"env\": [\"LANG\", \"EDITOR\"], \"secrets\": [\"A\", \"B\"]}}");
  g_autoptr(GError) error = NULL;

  (void) f;
  (void) data;
  g_assert_true (zot_permissions_change (granted, "files=project:ro", FALSE, &error));
  g_assert_cmpint (granted->filesystem, ==, ZOT_FILESYSTEM_PROJECT_RO);
  /* Taking back cannot widen. */
  g_assert_false (zot_permissions_change (granted, "files=home", FALSE, &error));
  g_assert_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  g_clear_error (&error);
  g_assert_cmpint (granted->filesystem, ==, ZOT_FILESYSTEM_PROJECT_RO);
  g_assert_true (zot_permissions_change (granted, "env=LANG", FALSE, &error));
  g_assert_cmpstrv (granted->env, ((const char *[]) { "EDITOR", NULL }));
  g_assert_true (zot_permissions_change (granted, "secrets=B", FALSE, &error));
  g_assert_cmpstrv (granted->secrets, ((const char *[]) { "A", NULL }));
  g_assert_true (zot_permissions_change (granted, "network", FALSE, &error));
  g_assert_false (granted->network);
  /* Given back from the same switch. */
  g_assert_true (zot_permissions_change (granted, "env=LANG", TRUE, &error));
  g_assert_cmpstrv (granted->env, ((const char *[]) { "EDITOR", "LANG", NULL }));
  g_assert_true (zot_permissions_change (granted, "network", TRUE, &error));
  g_assert_true (granted->network);
  g_assert_false (zot_permissions_change (granted, "env=", FALSE, &error));
  g_assert_nonnull (error);
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


/* zot with $ZOT_HOME set and no terminal on stdin, as a script runs it. */
static int
run_zot (Fixture     *f,
         char       **out,
         char       **err,
         const char  *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "ZOT_HOME", f->home, TRUE);
  g_autoptr(GError) error = NULL;
  g_autofree char *own_out = NULL;
  g_autofree char *own_err = NULL;
  int status = 0;
  va_list args;

  g_ptr_array_add (argv, (char *) g_getenv ("ZOT_BIN"));
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  if (f->path != NULL)
    envp = g_environ_setenv (envp, "PATH", f->path, TRUE);
  /* Captured even when the caller does not want it: what zot prints must
   * not reach the test's own stdout, which is TAP. */
  g_spawn_sync (f->home, (char **) argv->pdata, envp, G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL,
                &own_out, &own_err, &status, &error);
  g_assert_no_error (error);
  g_test_message ("stdout: %s\nstderr: %s", own_out, own_err);
  if (out != NULL)
    *out = g_steal_pointer (&own_out);
  if (err != NULL)
    *err = g_steal_pointer (&own_err);
  return WEXITSTATUS (status);
}

/* zot update with a terminal on stdin that answers @answer. */
static int
update_answering (Fixture     *f,
                  const char  *answer,
                  char       **out)
{
  const char *argv[] = { g_getenv ("ZOT_BIN"), "update", NULL };
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "ZOT_HOME", f->home, TRUE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  int master = posix_openpt (O_RDWR | O_NOCTTY);
  int terminal, stdout_fd = -1, status = 0;
  GPid pid;
  char buffer[512];
  gssize got;

  g_assert_cmpint (master, >=, 0);
  g_assert_cmpint (grantpt (master), ==, 0);
  g_assert_cmpint (unlockpt (master), ==, 0);
  terminal = open (ptsname (master), O_RDWR | O_NOCTTY);
  g_assert_cmpint (terminal, >=, 0);
  /* Typed ahead: the terminal holds the line until zot reads it. */
  g_assert_cmpint (write (master, answer, strlen (answer)), ==, (gssize) strlen (answer));
  g_assert_true (g_spawn_async_with_pipes_and_fds (f->home, argv, (const char * const *) envp,
                                                   G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                                   terminal, -1, -1, NULL, NULL, 0,
                                                   &pid, NULL, &stdout_fd, NULL, &error));
  g_assert_no_error (error);
  close (terminal);
  while ((got = read (stdout_fd, buffer, sizeof buffer)) > 0)
    g_string_append_len (text, buffer, got);
  close (stdout_fd);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  close (master);
  g_test_message ("stdout: %s", text->str);
  *out = g_string_free (g_steal_pointer (&text), FALSE);
  return WEXITSTATUS (status);
}

static char *
make_source (Fixture    *f,
             const char *folder,
             const char *permissions)
{
  g_autofree char *parent = g_build_filename (f->home, "src", NULL);
  g_autofree char *json = g_strdup_printf ("{\"name\": \"asker\", \"exec\": \"sh\"%s%s}",
                                           permissions != NULL ? ", \"permissions\": " : "",
                                           permissions != NULL ? permissions : "");
  g_autofree char *dir = g_build_filename (parent, folder, NULL);

  zot_test_remove_tree (dir);
  return zot_test_make_manifest (parent, folder, json);
}

static void
test_install_asks (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *source = make_source (f, "v1", "{\"filesystem\": \"project:ro\"}");
  g_autofree char *more = make_source (f, "v2", "{\"filesystem\": \"project:ro\", \"network\": true}");
  g_autofree char *open = make_source (f, "v3", NULL);
  g_autofree char *installed = g_build_filename (f->home, "extensions", "asker", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(ZotGrant) grant = NULL;

  (void) data;
  /* No terminal and no --yes: nothing installed, and one line says why. */
  g_assert_cmpint (run_zot (f, &out, &err, "ext", "install", source, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "asker asks for: confined: project read-only, no network"));
  g_assert_nonnull (strstr (err, "add --yes"));
  g_assert_cmpuint (zot_test_count (err, "\n"), ==, 1);
  g_assert_false (g_file_test (installed, G_FILE_TEST_EXISTS));
  g_assert_null (zot_grant_load ("asker"));

  /* --yes installs and records what was accepted. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_zot (f, &out, NULL, "ext", "install", "--yes", source, NULL), ==, 0);
  g_assert_true (g_file_test (installed, G_FILE_TEST_IS_DIR));
  grant = zot_grant_load ("asker");
  g_assert_nonnull (grant);
  g_assert_cmpint (grant->permissions->filesystem, ==, ZOT_FILESYSTEM_PROJECT_RO);
  g_assert_false (grant->permissions->network);

  /* The same rights again: not asked. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_zot (f, &out, NULL, "ext", "install", "--force", source, NULL), ==, 0);
  g_assert_null (strstr (out, "asks for"));

  /* An update that asks for more stops and asks again; the old copy stays. */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_zot (f, &out, &err, "ext", "install", "--force", more, NULL), ==, 1);
  /* Only what is new: the rights granted before were read already. */
  g_assert_cmpstr (out, ==, "asker asks for more than before:\n  the network\n");
  g_assert_nonnull (strstr (err, "--yes"));
  g_assert_cmpuint (zot_test_count (err, "\n"), ==, 1);
  g_clear_pointer (&grant, zot_grant_free);
  grant = zot_grant_load ("asker");
  g_assert_false (grant->permissions->network);

  /* Dropping the box is asked about in the same way, in that word. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_zot (f, &out, NULL, "ext", "install", "--force", open, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "asker asks for more than before:\n  unconfined: "));
  g_assert_cmpint (run_zot (f, NULL, NULL, "ext", "install", "--force", "--yes", open, NULL), ==, 0);
  g_clear_pointer (&grant, zot_grant_free);
  grant = zot_grant_load ("asker");
  g_assert_true (grant->unconfined);
}

static void
test_install_project_trusts (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *source = make_source (f, "v1", "{\"filesystem\": \"none\"}");
  g_autofree char *project = g_build_filename (f->home, "project", NULL);
  g_autoptr(ZotGrant) grant = NULL;

  (void) data;
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_cmpint (run_zot (f, NULL, NULL, "ext", "install", "--yes", "--project", "--cwd", project, source,
                            NULL), ==, 0);
  grant = zot_grant_load ("asker");
  g_assert_nonnull (grant);
  g_assert_true (zot_grant_trusts_project (grant, project));
}

/* zot update runs git with the checkout's hooks and fsmonitor switched off:
 * a fake git on $PATH records every command line it is given. */
static void
test_update_git_hardened (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *bin = g_build_filename (f->home, "bin", NULL);
  g_autofree char *git = g_build_filename (bin, "git", NULL);
  g_autofree char *log = g_build_filename (f->home, "git.log", NULL);
  g_autofree char *checkout = g_build_filename (f->home, "extensions", "pulled", ".git", NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\necho \"$*\" >> '%s'\n"
                                             "case \"$*\" in *rev-parse*) echo 0123abcd;; esac\n", log);
  g_autofree char *recorded = NULL;
  g_auto(GStrv) lines = NULL;
  guint runs = 0;

  (void) data;
  g_assert_cmpint (g_mkdir_with_parents (bin, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (checkout, 0700), ==, 0);
  g_assert_true (g_file_set_contents (git, script, -1, NULL));
  g_assert_cmpint (g_chmod (git, 0755), ==, 0);
  f->path = g_strdup_printf ("%s:%s", bin, g_getenv ("PATH"));

  g_assert_cmpint (run_zot (f, NULL, NULL, "update", NULL), ==, 0);
  g_assert_true (g_file_get_contents (log, &recorded, NULL, NULL));
  lines = g_strsplit (recorded, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++, runs++)
    g_assert_true (g_str_has_prefix (lines[i], "-c core.hooksPath=/dev/null -c core.fsmonitor=false -C "));
  g_assert_cmpuint (runs, >=, 3);
  g_assert_nonnull (strstr (recorded, " pull --ff-only"));
}

static void
git_in (const char *folder,
        const char *command)
{
  g_autofree char *line = g_strdup_printf ("git -C '%s' -c user.name=t -c user.email=t@example.com %s"
                                           " >/dev/null 2>&1", folder, command);

  g_assert_cmpint (system (line), ==, 0);
}

static char *
git_head (const char *folder)
{
  g_autofree char *line = g_strdup_printf ("git -C '%s' rev-parse HEAD", folder);
  char *out = NULL;

  g_assert_true (g_spawn_command_line_sync (line, &out, NULL, NULL, NULL));
  return g_strstrip (out);
}

/* zot update of a checkout whose next commit asks for more: without a
 * terminal it refuses in one line naming --yes and goes back to the commit
 * it had; with --yes it moves on and the grant grows. */
static void
test_update_asks (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *source = make_source (f, "repo", "{\"filesystem\": \"project:ro\", \"env\": [\"LANG\"]}");
  g_autofree char *installed = g_build_filename (f->home, "extensions", "asker", NULL);
  g_autofree char *manifest = g_build_filename (source, "extension.json", NULL);
  g_autofree char *clone = g_strdup_printf ("clone --quiet '%s' '%s'", source, installed);
  g_autofree char *first = NULL;
  g_autofree char *head = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(ZotGrant) grant = NULL;
  g_autoptr(ZotManifest) opened = NULL;

  (void) data;
  git_in (source, "init --quiet");
  git_in (source, "add extension.json");
  git_in (source, "commit --quiet -m one");
  git_in (f->home, clone);
  first = git_head (installed);
  opened = zot_manifest_new_for_directory (installed, NULL);
  g_assert_true (zot_grants_accept (opened, NULL, NULL));

  g_assert_true (g_file_set_contents (manifest, "{\"name\": \"asker\", \"exec\": \"sh\", \"permissions\":"
                                      " {\"filesystem\": \"home\", \"network\": true, \"devices\": true,"
                                      " \"env\": [\"LANG\", \"EDITOR\"], \"secrets\": [\"TOKEN\"]}}", -1, NULL));
  git_in (source, "commit --quiet -am two");

  g_assert_cmpint (run_zot (f, &out, &err, "update", NULL), ==, 1);
  g_assert_cmpstr (out, ==, "asker asks for more than before:\n"
                            "  files: home (was project read-only)\n"
                            "  the network\n"
                            "  devices (/dev)\n"
                            "  environment: EDITOR\n"
                            "  secrets: TOKEN\n");
  g_assert_nonnull (strstr (err, "asker was not updated; the previous version stays"));
  g_assert_nonnull (strstr (err, "add --yes"));
  g_assert_cmpuint (zot_test_count (err, "\n"), ==, 1);
  head = git_head (installed);
  g_assert_cmpstr (head, ==, first);
  g_clear_pointer (&opened, g_object_unref);
  opened = zot_manifest_new_for_directory (installed, NULL);
  g_assert_false (zot_manifest_get_permissions (opened)->network);
  grant = zot_grant_load ("asker");
  g_assert_false (grant->permissions->network);

  /* Asked on a terminal: "n" keeps the previous commit too. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (update_answering (f, "n\n", &out), ==, 1);
  g_assert_nonnull (strstr (out, "  secrets: TOKEN\nUpdate it? [y/N] "));
  g_clear_pointer (&head, g_free);
  head = git_head (installed);
  g_assert_cmpstr (head, ==, first);

  /* "y" moves on and grants what was new. */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (update_answering (f, "y\n", &out), ==, 0);
  g_assert_nonnull (strstr (out, "asker: updated\n"));
  g_clear_pointer (&head, g_free);
  head = git_head (installed);
  g_assert_cmpstr (head, !=, first);
  g_clear_pointer (&grant, zot_grant_free);
  grant = zot_grant_load ("asker");
  g_assert_true (grant->permissions->network);
  g_assert_cmpint (grant->permissions->filesystem, ==, ZOT_FILESYSTEM_HOME);

  /* --yes accepts for scripts. */
  g_assert_true (g_file_set_contents (manifest, "{\"name\": \"asker\", \"exec\": \"sh\", \"permissions\":"
                                      " {\"filesystem\": \"home\", \"secrets\": [\"TOKEN\", \"OTHER\"]}}", -1, NULL));
  git_in (source, "commit --quiet -am more");
  g_assert_cmpint (run_zot (f, NULL, NULL, "update", NULL), ==, 1);
  g_assert_cmpint (run_zot (f, NULL, NULL, "update", "--yes", NULL), ==, 0);
  g_clear_pointer (&grant, zot_grant_free);
  grant = zot_grant_load ("asker");
  g_assert_cmpstrv (grant->permissions->secrets, ((const char *[]) { "TOKEN", "OTHER", NULL }));

  /* Asking for less than granted is not asked about. */
  g_assert_true (g_file_set_contents (manifest, "{\"name\": \"asker\", \"exec\": \"sh\", \"permissions\":"
                                      " {\"filesystem\": \"none\"}}", -1, NULL));
  git_in (source, "commit --quiet -am three");
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_zot (f, &out, NULL, "update", NULL), ==, 0);
  g_assert_cmpstr (out, ==, "asker: updated\n");
}

/* zot ext permissions --revoke narrows the grant, and the box gets the
 * manifest's rights narrowed by it. */
static void
test_revoke_cli (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *source = make_source (f, "v1", "{\"filesystem\": \"project\", \"network\": true,"
                                                  " \"env\": [\"LANG\"]}");
  g_autofree char *installed = g_build_filename (f->home, "extensions", "asker", NULL);
  g_autofree char *manifest_path = g_build_filename (installed, "extension.json", NULL);
  g_autoptr(ZotManifest) manifest = NULL;
  g_autoptr(ZotPermissions) applied = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  (void) data;
  g_assert_cmpint (run_zot (f, &out, &err, "ext", "permissions", "asker", "--revoke", "network", NULL), ==, 1);
  g_assert_nonnull (strstr (err, "no grant"));
  g_assert_cmpint (run_zot (f, NULL, NULL, "ext", "install", "--yes", source, NULL), ==, 0);
  manifest = zot_manifest_new_for_directory (installed, NULL);
  g_assert_nonnull (manifest);
  applied = zot_grants_applied (manifest);
  g_assert_true (applied->network);

  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_zot (f, &out, &err, "ext", "permissions", "asker", "--revoke", "everything", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "use network, devices, files, env or secrets"));

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_zot (f, &out, NULL, "ext", "permissions", "asker", "--revoke", "network",
                            "--revoke", "env", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "asker: granted confined: project, no network"));
  g_clear_pointer (&applied, zot_permissions_free);
  applied = zot_grants_applied (manifest);
  g_assert_false (applied->network);
  g_assert_cmpint (applied->filesystem, ==, ZOT_FILESYSTEM_PROJECT);
  g_assert_cmpuint (g_strv_length (applied->env), ==, 0);

  /* An update that drops "permissions" keeps the granted box. */
  g_assert_true (g_file_set_contents (manifest_path, "{\"name\": \"asker\", \"exec\": \"sh\"}", -1, NULL));
  {
    g_autoptr(ZotManifest) opened = zot_manifest_new_for_directory (installed, NULL);
    g_autoptr(ZotPermissions) kept = zot_grants_applied (opened);

    g_assert_null (zot_manifest_get_permissions (opened));
    g_assert_nonnull (kept);
    g_assert_false (kept->network);
    g_assert_cmpint (kept->filesystem, ==, ZOT_FILESYSTEM_PROJECT);
  }

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_zot (f, &out, NULL, "ext", "info", "asker", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "asker: granted confined: project, no network"));
  g_assert_null (strstr (out, "LANG"));
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
  g_test_add ("/consent/grants/change-one", Fixture, NULL, fixture_set_up, test_change_one, fixture_tear_down);
  g_test_add ("/consent/grants/corrupt", Fixture, NULL, fixture_set_up, test_corrupt, fixture_tear_down);

  g_test_add ("/consent/install/asks", Fixture, NULL, fixture_set_up, test_install_asks, fixture_tear_down);
  g_test_add ("/consent/install/project-trusts", Fixture, NULL, fixture_set_up, test_install_project_trusts,
              fixture_tear_down);

  g_test_add ("/consent/update/git-hardened", Fixture, NULL, fixture_set_up, test_update_git_hardened,
              fixture_tear_down);

  g_test_add ("/consent/update/asks", Fixture, NULL, fixture_set_up, test_update_asks, fixture_tear_down);
  g_test_add ("/consent/permissions/revoke", Fixture, NULL, fixture_set_up, test_revoke_cli, fixture_tear_down);

  return g_test_run ();
}
