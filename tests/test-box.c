/* test-box.c — declared permissions, enforced with bubblewrap.
 *
 * tests/data/box-probe.sh tries what it is told (read, write, connect,
 * list its environment, leave a child behind, spawn processes) and writes
 * each outcome into its own folder before it says hello; the cases here
 * give it permissions and read the outcomes. Where bwrap cannot create
 * namespaces (some containers) the enforcement cases are skipped, saying
 * so; parsing, the command line and the missing-bwrap message never are.
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "zot-box.h"
#include "zot-error.h"
#include "zot-extension-box.h"
#include "zot-extension-private.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-test-util.h"

static gboolean bwrap_works;
static char *fake_home;

typedef struct
{
  ZotTestEnv           env;
  ZotExtensionManager *manager;
  ZotExtension        *extension;
  char                *dir;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->manager != NULL)
    zot_test_shutdown_manager (f->manager);
  g_free (f->dir);
  _zot_box_set_bwrap_for_testing (NULL);
  _zot_box_set_cgroup_paths_for_testing (NULL, NULL);
  _zot_extension_box_set_watch_interval_for_testing (0);
  zot_test_env_teardown (&f->env);
}

static gboolean
skip_without_bwrap (void)
{
  if (!bwrap_works)
    g_test_skip ("bwrap cannot create namespaces here (bwrap --ro-bind / / true failed): "
                 "box enforcement is not tested");
  return !bwrap_works;
}

/* The probe with @permissions (a JSON member list, "" for none) and the
 * NULL-terminated probes, loaded by a manager in the project folder. */
static void
load_probe (Fixture    *f,
            const char *permissions,
            ...)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *args = NULL;
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "data", "box-probe.sh", NULL);
  g_autofree char *json = NULL;
  g_autofree char *parent = g_build_filename (f->env.root, "ext", NULL);
  const char *paths[2] = { NULL, NULL };
  const char *probe;
  va_list list;

  json_builder_begin_array (builder);
  va_start (list, permissions);
  while ((probe = va_arg (list, const char *)) != NULL)
    json_builder_add_string_value (builder, probe);
  va_end (list);
  json_builder_end_array (builder);
  node = json_builder_get_root (builder);
  args = json_to_string (node, FALSE);

  /* A box killed at a limit or by a test is not restarted: the supervisor
   * has tests of its own, and a restart racing the teardown would keep the
   * extension alive. */
  json = g_strdup_printf ("{\"name\": \"box-probe\", \"exec\": \"%s\", \"args\": %s, "
                          "\"restart\": \"never\"%s%s}",
                          script, args, *permissions ? ", " : "", permissions);
  f->dir = zot_test_make_manifest (parent, "box-probe", json);
  paths[0] = f->dir;
  f->manager = zot_test_load_manager (&f->env, paths);
  f->extension = zot_extension_manager_find (f->manager, "box-probe");
  g_assert_nonnull (f->extension);
}

static char *
results (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->dir, "results", NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_test_message ("results:\n%s", text);
  return text;
}

static gboolean
has_line (const char *text,
          const char *line)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  return g_strv_contains ((const char * const *) lines, line);
}

static char *
line_for (const char *kind,
          const char *path,
          const char *outcome)
{
  return g_strdup_printf ("%s %s %s", kind, path, outcome);
}

static char *
log_text (Fixture *f)
{
  char *text = NULL;

  g_file_get_contents (zot_extension_get_log_path (f->extension), &text, NULL, NULL);
  return text != NULL ? text : g_strdup ("");
}

static void
assert_ready (Fixture *f)
{
  if (zot_extension_get_state (f->extension) != ZOT_EXTENSION_STATE_READY)
    {
      g_autofree char *log = log_text (f);
      g_error ("box-probe is %s, not ready: %s\n%s", zot_extension_state_to_string (zot_extension_get_state (f->extension)),
               zot_extension_get_last_error (f->extension), log);
    }
}

/* --- the manifest ---------------------------------------------------------- */

static void
assert_refused (const char *members,
                const char *field)
{
  g_autofree char *json = g_strdup_printf ("{\"name\": \"x\", \"exec\": \"x\", %s}", members);
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = zot_manifest_new_from_data ("/nowhere", json, -1, &error);

  g_assert_null (manifest);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, field));
  g_assert_null (strchr (error->message, '\n'));
}

static void
test_malformed (void)
{
  assert_refused ("\"permissions\": \"none\"", "\"permissions\"");
  assert_refused ("\"permissions\": {\"filesystem\": \"project:rw\"}", "\"permissions.filesystem\" must be one of");
  assert_refused ("\"permissions\": {\"filesystem\": 1}", "\"permissions.filesystem\"");
  assert_refused ("\"permissions\": {\"network\": \"yes\"}", "\"permissions.network\" must be true or false");
  assert_refused ("\"permissions\": {\"devices\": 1}", "\"permissions.devices\"");
  assert_refused ("\"permissions\": {\"env\": \"HOME\"}", "\"permissions.env\"");
  assert_refused ("\"permissions\": {\"env\": [\"A=1\"]}", "\"permissions.env\"");
  assert_refused ("\"permissions\": {\"secrets\": [2]}", "\"permissions.secrets\"");
  assert_refused ("\"permissions\": {}, \"limits\": 5", "\"limits\" must be an object");
  assert_refused ("\"permissions\": {}, \"limits\": {\"memory_mb\": 0}", "\"limits.memory_mb\"");
  assert_refused ("\"permissions\": {}, \"limits\": {\"processes\": 1.5}", "\"limits.processes\"");
  assert_refused ("\"permissions\": {}, \"limits\": {\"open_files\": -1}", "\"limits.open_files\"");
  assert_refused ("\"limits\": {\"memory_mb\": 64}", "add \"permissions\"");
}

static const ZotPermissions *
parse (const char  *members,
       ZotManifest **out)
{
  g_autofree char *json = g_strdup_printf ("{\"name\": \"x\", \"exec\": \"x\"%s%s}", *members ? ", " : "", members);
  g_autoptr(GError) error = NULL;

  *out = zot_manifest_new_from_data ("/nowhere", json, -1, &error);
  g_assert_no_error (error);
  return zot_manifest_get_permissions (*out);
}

static void
test_parse (void)
{
  g_autoptr(ZotManifest) unconfined = NULL;
  g_autoptr(ZotManifest) empty = NULL;
  g_autoptr(ZotManifest) full = NULL;
  g_autofree char *described = NULL;
  const ZotPermissions *permissions;

  g_assert_null (parse ("", &unconfined));
  described = zot_permissions_describe (NULL);
  g_assert_cmpstr (described, ==, "unconfined");
  g_clear_pointer (&described, g_free);

  /* Unknown members are for later hosts. */
  permissions = parse ("\"permissions\": {\"clipboard\": true}", &empty);
  g_assert_nonnull (permissions);
  g_assert_cmpint (permissions->filesystem, ==, ZOT_FILESYSTEM_NONE);
  g_assert_false (permissions->network);
  g_assert_cmpuint (g_strv_length (permissions->env), ==, 0);
  described = zot_permissions_describe (permissions);
  g_assert_cmpstr (described, ==, "none");
  g_clear_pointer (&described, g_free);

  permissions = parse ("\"permissions\": {\"filesystem\": \"project:ro\", \"network\": true, \"env\": [\"A\", \"B\"], "
                       "\"secrets\": [\"S\"], \"devices\": false}, "
                       "\"limits\": {\"memory_mb\": 512, \"processes\": 64, \"open_files\": 256, \"gpu\": 1}", &full);
  g_assert_cmpint (permissions->filesystem, ==, ZOT_FILESYSTEM_PROJECT_RO);
  g_assert_true (permissions->network);
  g_assert_cmpstr (permissions->env[1], ==, "B");
  g_assert_cmpstr (permissions->secrets[0], ==, "S");
  g_assert_cmpuint (permissions->memory_mb, ==, 512);
  g_assert_cmpuint (permissions->processes, ==, 64);
  g_assert_cmpuint (permissions->open_files, ==, 256);
  described = zot_permissions_describe (permissions);
  g_assert_cmpstr (described, ==, "project:ro+net");
}

/* --- the command line ------------------------------------------------------ */

static gboolean
argv_has (GStrv       argv,
          const char *arg)
{
  return g_strv_contains ((const char * const *) argv, arg);
}

static void
test_argv (void)
{
  const char *command[] = { "/usr/bin/true", NULL };
  g_autoptr(ZotBox) closed = zot_box_new (0);
  g_autoptr(ZotBox) open = zot_box_new (ZOT_BOX_NETWORK | ZOT_BOX_DEVICES);
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) open_argv = NULL;
  guint n;

  zot_box_bind (closed, "/srv/ext", TRUE);
  zot_box_bind (closed, "/srv/ext/extension.json", FALSE);
  argv = zot_box_build_argv (closed, "bwrap", "/srv/ext", command);
  n = g_strv_length (argv);
  g_assert_cmpstr (argv[0], ==, "bwrap");
  g_assert_true (argv_has (argv, "--unshare-all"));
  g_assert_true (argv_has (argv, "--die-with-parent"));
  g_assert_true (argv_has (argv, "--new-session"));
  g_assert_true (argv_has (argv, "--tmpfs"));
  g_assert_false (argv_has (argv, "--share-net"));
  g_assert_false (argv_has (argv, "/etc/resolv.conf"));
  g_assert_true (argv_has (argv, "--dev"));
  g_assert_cmpstr (argv[n - 2], ==, "--");
  g_assert_cmpstr (argv[n - 1], ==, "/usr/bin/true");

  open_argv = zot_box_build_argv (open, "bwrap", NULL, command);
  g_assert_true (argv_has (open_argv, "--share-net"));
  g_assert_true (argv_has (open_argv, "/etc/resolv.conf"));
  g_assert_true (argv_has (open_argv, "--dev-bind"));
}

/* The variables of a box started through flatpak-spawn: in a sealed
 * memfd bwrap reads with --args, none on the command line; at
 * ZOT_BOX_ENV_MAX_BYTES they are passed, a byte more is refused. */
static void
test_env_fd (void)
{
  const char *command[] = { "/usr/bin/true", NULL };
  /* "--setenv\0V\0" and the value's own NUL around the value. */
  gsize value_length = ZOT_BOX_ENV_MAX_BYTES - strlen ("--setenv") - strlen ("V") - 3;
  g_autofree char *value = g_malloc (value_length + 2);
  g_autofree char *data = g_malloc (ZOT_BOX_ENV_MAX_BYTES + 1);
  g_autoptr(ZotBox) box = zot_box_new (0);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  gsize got = 0;
  gssize n;
  int fd = -1;

  memset (value, 'x', value_length + 1);
  value[value_length] = '\0';
  zot_box_setenv (box, "V", value);
  argv = zot_box_build_argv_env_fd (box, "bwrap", NULL, command, 3, &fd, &error);
  g_assert_no_error (error);
  g_assert_true (argv_has (argv, "--args"));
  g_assert_true (argv_has (argv, "3"));
  g_assert_false (argv_has (argv, "--setenv"));
  g_assert_false (argv_has (argv, value));
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fcntl (fd, F_GETFD) & FD_CLOEXEC, ==, FD_CLOEXEC);
  g_assert_cmpint (fcntl (fd, F_GET_SEALS) & F_SEAL_WRITE, ==, F_SEAL_WRITE);
  while ((n = read (fd, data + got, ZOT_BOX_ENV_MAX_BYTES + 1 - got)) > 0)
    got += n;
  close (fd);
  g_assert_cmpuint (got, ==, ZOT_BOX_ENV_MAX_BYTES);
  g_assert_cmpmem (data, 11, "--setenv\0V\0", 11);
  g_assert_cmpint (data[got - 1], ==, '\0');
  g_clear_pointer (&argv, g_strfreev);

  value[value_length] = 'x';
  value[value_length + 1] = '\0';
  zot_box_setenv (box, "V", value);
  fd = -1;
  argv = zot_box_build_argv_env_fd (box, "bwrap", NULL, command, 3, &fd, &error);
  g_assert_null (argv);
  g_assert_cmpint (fd, ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "KiB"));
  g_assert_null (strchr (error->message, '\n'));
}

static void
test_missing_bwrap (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->env.root, "no-such-bwrap", NULL);
  const char *last_error;

  _zot_box_set_bwrap_for_testing (missing);
  load_probe (f, "\"permissions\": {\"filesystem\": \"none\"}", NULL);
  g_assert_cmpint (zot_extension_get_state (f->extension), ==, ZOT_EXTENSION_STATE_FAILED);
  last_error = zot_extension_get_last_error (f->extension);
  g_test_message ("%s", last_error);
  g_assert_nonnull (strstr (last_error, "apt install bubblewrap"));
  g_assert_null (strchr (last_error, '\n'));
}

/* --- enforcement ----------------------------------------------------------- */

static void
test_unconfined (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *secret = g_build_filename (fake_home, "secret", NULL);
  g_autofree char *read = g_strconcat ("read:", secret, NULL);
  g_autofree char *text = NULL;
  g_autofree char *want = line_for ("read", secret, "ok");

  load_probe (f, "", read, NULL);
  assert_ready (f);
  text = results (f);
  g_assert_true (has_line (text, want));
}

static void
test_files (Fixture       *f,
            gconstpointer  data)
{
  const char *filesystem = data;
  g_autofree char *permissions = g_strdup_printf ("\"permissions\": {\"filesystem\": \"%s\"}", filesystem);
  g_autofree char *secret = g_build_filename (fake_home, "secret", NULL);
  g_autofree char *project_file = g_build_filename (f->env.cwd, "notes", NULL);
  g_autofree char *read_secret = g_strconcat ("read:", secret, NULL);
  g_autofree char *read_project = g_strconcat ("read:", project_file, NULL);
  g_autofree char *write_project = g_strconcat ("write:", project_file, NULL);
  g_autofree char *text = NULL;
  g_autofree char *log = NULL;
  gboolean sees_project = !g_str_equal (filesystem, "none");
  gboolean writes_project = g_str_equal (filesystem, "project");
  char *want;

  if (skip_without_bwrap ())
    return;
  g_assert_true (g_file_set_contents (project_file, "notes\n", -1, NULL));
  load_probe (f, permissions, read_secret, read_project, write_project,
              "write:./extension.json", "write:./state", NULL);
  assert_ready (f);
  text = results (f);

  want = line_for ("read", secret, "refused");
  g_assert_true (has_line (text, want));
  g_free (want);
  want = line_for ("read", project_file, sees_project ? "ok" : "refused");
  g_assert_true (has_line (text, want));
  g_free (want);
  want = line_for ("write", project_file, writes_project ? "ok" : "refused");
  g_assert_true (has_line (text, want));
  g_free (want);
  /* Its own folder is its own, but not what says what it may. */
  g_assert_true (has_line (text, "write ./extension.json refused"));
  g_assert_true (has_line (text, "write ./state ok"));

  log = log_text (f);
  want = g_strdup_printf ("box: filesystem %s, network off", filesystem);
  g_assert_nonnull (strstr (log, want));
  g_free (want);
}

static void
accept_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GSocketConnection) connection = NULL;

  connection = g_socket_listener_accept_finish (G_SOCKET_LISTENER (source), result, NULL, NULL);
}

static void
test_network (Fixture       *f,
              gconstpointer  data)
{
  gboolean network = GPOINTER_TO_INT (data);
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *permissions = g_strdup_printf ("\"permissions\": {\"network\": %s}", network ? "true" : "false");
  g_autofree char *connect = NULL;
  g_autofree char *want = NULL;
  g_autofree char *text = NULL;
  guint16 port;

  if (skip_without_bwrap ())
    return;
  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_accept_async (listener, cancellable, accept_cb, NULL);

  connect = g_strdup_printf ("connect:%u", port);
  load_probe (f, permissions, connect, NULL);
  assert_ready (f);
  text = results (f);
  want = g_strdup_printf ("connect %u %s", port, network ? "ok" : "refused");
  g_assert_true (has_line (text, want));
  g_cancellable_cancel (cancellable);
  g_socket_listener_close (listener);
}

/* What bash sets by itself, beside the box's base and what was declared. */
static gboolean
env_allowed (const char *name)
{
  const char *own[] = { "PWD", "SHLVL", "_", "OLDPWD", NULL };
  const char *base[] = { "PATH", "HOME", "TMPDIR", "LANG", "TERM", "BOX_DECLARED", NULL };

  return g_strv_contains (own, name) || g_strv_contains (base, name) ||
         g_str_has_prefix (name, "LC_") || g_str_has_prefix (name, "ZOT_");
}

static void
test_env (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *home_line = NULL;

  if (skip_without_bwrap ())
    return;
  g_setenv ("BOX_DECLARED", "1", TRUE);
  g_setenv ("BOX_UNDECLARED", "1", TRUE);
  g_setenv ("OPENAI_API_KEY", "sk-not-for-the-box", TRUE);
  load_probe (f, "\"permissions\": {\"env\": [\"BOX_DECLARED\", \"OPENAI_API_KEY\"]}", "env", NULL);
  g_unsetenv ("BOX_UNDECLARED");
  g_unsetenv ("BOX_DECLARED");
  g_unsetenv ("OPENAI_API_KEY");
  assert_ready (f);
  text = results (f);

  g_assert_true (has_line (text, "env BOX_DECLARED"));
  g_assert_true (has_line (text, "env TMPDIR"));
  g_assert_false (has_line (text, "env BOX_UNDECLARED"));
  g_assert_false (has_line (text, "env OPENAI_API_KEY"));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "env "))
      {
        if (!env_allowed (lines[i] + 4))
          g_error ("the box passed $%s, which was not declared", lines[i] + 4);
      }
}

/* Inside Flatpak the box is the host's: flatpak-spawn --host runs bwrap,
 * which clears the session's environment the host would otherwise give. */
static void
test_flatpak (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *log = NULL;
  g_autofree char *calls = NULL;
  g_autofree char *text = NULL;

  if (skip_without_bwrap ())
    return;
  log = zot_test_fake_sandbox_begin (f->env.root);
  g_setenv ("BOX_UNDECLARED", "1", TRUE);
  load_probe (f, "\"permissions\": {\"filesystem\": \"project:ro\"}", "env", NULL);
  g_unsetenv ("BOX_UNDECLARED");
  zot_test_fake_sandbox_end ();
  assert_ready (f);

  g_assert_true (g_file_get_contents (log, &calls, NULL, NULL));
  g_test_message ("%s", calls);
  g_assert_nonnull (strstr (calls, "\"--host\""));
  g_assert_nonnull (strstr (calls, "\"--\", \"bwrap\", \"--unshare-all\""));
  g_assert_nonnull (strstr (calls, "\"--clearenv\""));
  /* The variables come through a descriptor, none on a command line. */
  g_assert_nonnull (strstr (calls, "\"--forward-fd=3\""));
  g_assert_null (strstr (calls, "\"--setenv\""));
  g_assert_null (strstr (calls, "--env="));
  text = results (f);
  g_assert_true (has_line (text, "env HOME"));
  g_assert_false (has_line (text, "env BOX_UNDECLARED"));
}

static gboolean
process_named (const char *name)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *entry;

  while ((entry = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", entry, "cmdline", NULL);
      g_autofree char *cmdline = NULL;

      if (g_ascii_isdigit (*entry) && g_file_get_contents (path, &cmdline, NULL, NULL) &&
          g_str_equal (cmdline, name))
        return TRUE;
    }
  return FALSE;
}

static gboolean
child_gone (gpointer data)
{
  return !process_named (data);
}

static gboolean
child_there (gpointer data)
{
  return process_named (data);
}

static gboolean
extension_ended (gpointer data)
{
  ZotExtensionState state = zot_extension_get_state (data);

  return state == ZOT_EXTENSION_STATE_FAILED || state == ZOT_EXTENSION_STATE_EXITED;
}

/* A process whose /proc is the host's (as a box's first process has until
 * bwrap moved it into the box's root) is not measured: counting every
 * process of the host killed boxes at their limit while they started. */
static void
test_measure_before_root (Fixture       *f,
                          gconstpointer  data)
{
  ZotBoxUsage usage = { 0 };

  g_assert_false (zot_box_measure (getpid (), G_MAXUINT - 1, &usage));
  g_assert_cmpuint (usage.processes, ==, 0);
}

static void
test_children (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *name = g_strdup_printf ("zot-box-child-%d", (int) getpid ());
  g_autofree char *probe = g_strconcat ("child:", name, NULL);
  const char *identifier;

  if (skip_without_bwrap ())
    return;
  load_probe (f, "\"permissions\": {}", probe, NULL);
  assert_ready (f);
  /* The probe starts its child in the background: the child may take its
   * name only after the probe said ready. */
  zot_test_wait_until (child_there, name, 10000);

  /* The host's side of the box goes, as when zot is killed. */
  identifier = g_subprocess_get_identifier (f->extension->subprocess);
  g_assert_nonnull (identifier);
  g_assert_cmpint (kill ((pid_t) g_ascii_strtoll (identifier, NULL, 10), SIGKILL), ==, 0);
  zot_test_wait_until (extension_ended, f->extension, 10000);
  zot_test_wait_until (child_gone, name, 10000);
}

static gboolean
log_has (gpointer data)
{
  Fixture *f = data;
  g_autofree char *log = log_text (f);

  return strstr (log, (const char *) g_object_get_data (G_OBJECT (f->extension), "want")) != NULL;
}

/* Where the session could make a cgroup, the limits would be its. */
static void
no_cgroup (void)
{
  _zot_box_set_cgroup_paths_for_testing ("/nonexistent/cgroup", NULL);
}

static void
write_in (const char *dir,
          const char *file,
          const char *contents)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static char *
read_in (const char *dir,
         const char *file)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup ("");
  return contents;
}

/* A systemd session's shape, on plain files: zot in a scope of its own,
 * whose parent slice hands memory and pids down. */
static char *
fake_cgroups (Fixture    *f,
              const char *slice_controllers)
{
  g_autofree char *self = g_build_filename (f->env.root, "self-cgroup", NULL);
  g_autofree char *root = g_build_filename (f->env.root, "cgroup", NULL);
  g_autofree char *scope = g_build_filename (root, "app.slice", "zot.scope", NULL);
  char *slice = g_build_filename (root, "app.slice", NULL);

  g_assert_true (g_file_set_contents (self, "1:name=systemd:/app.slice/zot.scope\n0::/app.slice/zot.scope\n", -1, NULL));
  write_in (scope, "cgroup.subtree_control", "");
  write_in (slice, "cgroup.subtree_control", slice_controllers);
  _zot_box_set_cgroup_paths_for_testing (self, root);
  return slice;
}

static char *
only_box_cgroup (const char *slice)
{
  g_autoptr(GDir) dir = g_dir_open (slice, 0, NULL);
  const char *name;
  char *found = NULL;

  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "zot-box-"))
      {
        g_assert_null (found);
        found = g_build_filename (slice, name, NULL);
      }
  g_assert_nonnull (found);
  return found;
}

static void
test_cgroup_made (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *slice = fake_cgroups (f, "cpu memory pids\n");
  g_autofree char *cgroup = NULL;
  g_autofree char *value = NULL;
  g_autofree char *log = NULL;

  if (skip_without_bwrap ())
    return;
  load_probe (f, "\"permissions\": {}, \"limits\": {\"memory_mb\": 64, \"processes\": 9}", NULL);
  assert_ready (f);
  cgroup = only_box_cgroup (slice);

  value = read_in (cgroup, "memory.max");
  g_assert_cmpstr (value, ==, "67108864\n");
  g_free (value);
  value = read_in (cgroup, "memory.swap.max");
  g_assert_cmpstr (value, ==, "0\n");
  g_free (value);
  value = read_in (cgroup, "pids.max");
  g_assert_cmpstr (value, ==, "9\n");
  g_free (value);
  /* The box's first process moved itself in before it ran bwrap. */
  value = read_in (cgroup, "cgroup.procs");
  g_assert_cmpstr (value, ==, "0");

  log = log_text (f);
  g_assert_nonnull (strstr (log, "box: memory and processes limited by the cgroup "));
}

static void
test_cgroup_not_made (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *slice = fake_cgroups (f, "cpu memory\n");
  g_autofree char *dir = NULL;

  /* No pids controller to hand down: no cgroup, the box is watched. */
  g_assert_null (zot_box_cgroup_new ("x", 1024 * 1024, 4));
  dir = zot_box_cgroup_new ("x", 1024 * 1024, 0);
  g_assert_nonnull (dir);
  g_assert_true (g_str_has_prefix (dir, slice));
  g_assert_null (zot_box_cgroup_new ("x", 0, 4));
}

static gboolean
real_cgroup_works (void)
{
  g_autofree char *dir = zot_box_cgroup_new ("probe", 64 * 1024 * 1024, 0);

  if (dir == NULL)
    return FALSE;
  g_rmdir (dir);
  return TRUE;
}

static void
test_cgroup_memory (Fixture       *f,
                    gconstpointer  data)
{
  if (skip_without_bwrap ())
    return;
  if (!real_cgroup_works ())
    {
      g_test_skip ("this session cannot make a cgroup v2 with the memory controller: the watch serves");
      return;
    }
  load_probe (f, "\"permissions\": {}, \"limits\": {\"memory_mb\": 16}", "eat:64", NULL);
  g_object_set_data (G_OBJECT (f->extension), "want", (gpointer) "limits.memory_mb 16 was reached");
  zot_test_wait_until (extension_ended, f->extension, 10000);
  zot_test_wait_until (log_has, f, 10000);
}

static void
test_processes_limit (Fixture       *f,
                      gconstpointer  data)
{
  if (skip_without_bwrap ())
    return;
  /* At the default interval, ZOT_BOX_WATCH_MS, and without a cgroup. */
  no_cgroup ();
  load_probe (f, "\"permissions\": {}, \"limits\": {\"processes\": 4}", "spawn:8", NULL);
  g_object_set_data (G_OBJECT (f->extension), "want", (gpointer) "more than limits.processes 4 processes");
  zot_test_wait_until (log_has, f, 10000);
  zot_test_wait_until (extension_ended, f->extension, 10000);
}

static gboolean
watched_since (gpointer data)
{
  return _zot_extension_box_get_watch_count_for_testing () >= GPOINTER_TO_UINT (data) + 5;
}

static void
test_processes_under_limit (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *log = NULL;

  if (skip_without_bwrap ())
    return;
  no_cgroup ();
  _zot_extension_box_set_watch_interval_for_testing (20);
  /* bwrap's pid 1, bash and its two sleeps: four. */
  load_probe (f, "\"permissions\": {}, \"limits\": {\"processes\": 4}", "spawn:2", NULL);
  assert_ready (f);
  /* Five looks at the box after it was ready, with all four in it. */
  zot_test_wait_until (watched_since, GUINT_TO_POINTER (_zot_extension_box_get_watch_count_for_testing ()), 10000);
  log = log_text (f);
  g_assert_nonnull (strstr (log, "box: limits memory_mb 0, processes 4"));
  g_assert_null (strstr (log, "the box is killed"));
  g_assert_cmpint (zot_extension_get_state (f->extension), ==, ZOT_EXTENSION_STATE_READY);
}

static void
test_memory_limit (Fixture       *f,
                   gconstpointer  data)
{
  if (skip_without_bwrap ())
    return;
  no_cgroup ();
  _zot_extension_box_set_watch_interval_for_testing (20);
  load_probe (f, "\"permissions\": {}, \"limits\": {\"memory_mb\": 16}", "eat:64", NULL);
  g_object_set_data (G_OBJECT (f->extension), "want", (gpointer) "passed limits.memory_mb 16; the box is killed");
  zot_test_wait_until (log_has, f, 10000);
  zot_test_wait_until (extension_ended, f->extension, 10000);
}

static void
test_open_files_limit (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *text = NULL;

  if (skip_without_bwrap ())
    return;
  load_probe (f, "\"permissions\": {}, \"limits\": {\"open_files\": 32}", "open:16", "open:64", NULL);
  assert_ready (f);
  text = results (f);
  g_assert_true (has_line (text, "open 16 ok"));
  g_assert_true (has_line (text, "open 64 refused"));
}

static void
test_exit_hint (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *log = NULL;

  if (skip_without_bwrap ())
    return;
  load_probe (f, "\"permissions\": {\"filesystem\": \"project:ro\"}", "exit:13", NULL);
  zot_test_wait_until (extension_ended, f->extension, 10000);
  log = log_text (f);
  g_test_message ("%s", log);
  g_assert_nonnull (strstr (log, "exiting with 13"));
  g_assert_nonnull (strstr (log, "\"permissions\" in extension.json would allow it"));
  g_assert_nonnull (strstr (log, "\"network\": true"));
}

/* --- zot ext list ---------------------------------------------------------- */

static char *
run_list (Fixture    *f,
          const char *option)
{
  const char *argv[] = { g_getenv ("ZOT_BIN"), "ext", "list", option, NULL };
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "ZOT_HOME", f->env.home, TRUE);
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = -1;

  envp = g_environ_setenv (envp, "LANGUAGE", "C", TRUE);
  g_spawn_sync (f->env.cwd, (char **) argv, envp, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("%s", out);
  return out;
}

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *extensions = g_build_filename (f->env.home, "extensions", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *table = NULL;
  g_autofree char *json = NULL;
  g_auto(GStrv) lines = NULL;
  JsonArray *rows;
  JsonObject *boxed = NULL;
  JsonObject *open = NULL;

  g_free (zot_test_make_manifest (extensions, "boxed",
                                  "{\"name\": \"boxed\", \"exec\": \"sh\", \"permissions\": "
                                  "{\"filesystem\": \"project:ro\", \"network\": true}, \"limits\": {\"processes\": 9}}"));
  g_free (zot_test_make_manifest (extensions, "open", "{\"name\": \"open\", \"exec\": \"sh\"}"));

  table = run_list (f, NULL);
  lines = g_strsplit (table, "\n", -1);
  g_assert_nonnull (strstr (lines[0], " BOX "));
  for (guint i = 1; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "boxed "))
      g_assert_nonnull (strstr (lines[i], " project:ro+net "));
    else if (g_str_has_prefix (lines[i], "open "))
      g_assert_nonnull (strstr (lines[i], " unconfined "));

  json = run_list (f, "--json");
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  rows = json_node_get_array (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (rows), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);

      if (g_str_equal (json_object_get_string_member (row, "name"), "boxed"))
        boxed = row;
      else
        open = row;
    }
  g_assert_cmpstr (json_object_get_string_member (boxed, "box"), ==, "project:ro+net");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (boxed, "permissions"), "filesystem"),
                   ==, "project:ro");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (boxed, "permissions"),
                                                                              "limits"), "processes"), ==, 9);
  g_assert_cmpstr (json_object_get_string_member (open, "box"), ==, "unconfined");
  g_assert_true (json_object_get_null_member (open, "permissions"));
}

static gboolean
probe_bwrap (void)
{
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");
  const char *argv[] = { bwrap, "--unshare-all", "--ro-bind", "/", "/", "true", NULL };
  int status = -1;

  return bwrap != NULL &&
         g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) &&
         g_spawn_check_wait_status (status, NULL);
}

/* --- watch mode ------------------------------------------------------------ */

typedef struct
{
  GPtrArray *notes;   /* "level|message" */
  guint      reloads;
} Watched;

static void
on_watch_note (ZotExtensionManager *manager,
               ZotExtension        *extension,
               const char          *level,
               const char          *message,
               Watched             *watched)
{
  g_ptr_array_add (watched->notes, g_strdup_printf ("%s|%s", level, message));
}

static void
on_watch_reloaded (ZotExtensionManager *manager,
                   ZotExtension        *extension,
                   const char          *reason,
                   Watched             *watched)
{
  watched->reloads++;
}

static gboolean
watch_cycle_ended (gpointer data)
{
  Watched *watched = data;

  return watched->notes->len > 0 || watched->reloads > 0;
}

/* Whether one call in the fake flatpak-spawn's log runs @a and @b. */
static gboolean
call_has (const char *calls,
          const char *a,
          const char *b)
{
  g_auto(GStrv) lines = g_strsplit (calls, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], a) != NULL && strstr (lines[i], b) != NULL)
      return TRUE;
  return FALSE;
}

/* A watch-mode build of a confined extension runs in its box: it writes
 * its own folder, and a file in $HOME outside the project is not there.
 * Unconfined, the same build reads it. Inside the Flatpak (data 2) the
 * box is the host's, as the extension's is. */
static void
test_watch_build (Fixture       *f,
                  gconstpointer  data)
{
  gboolean confined = GPOINTER_TO_INT (data) > 0;
  gboolean in_flatpak = GPOINTER_TO_INT (data) == 2;
  g_autofree char *calls_log = NULL;
  g_autofree char *secret = g_build_filename (fake_home, "secret", NULL);
  g_autofree char *members =
    g_strdup_printf ("%s\"watch_ignore\": [\"results\", \"*.txt\"], "
                     "\"build\": [\"sh\", \"-c\", \"echo built > built.txt && cat %s > copied.txt\"]",
                     confined ? "\"permissions\": {\"filesystem\": \"project:ro\"}, " : "", secret);
  g_autofree char *built = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *source = NULL;
  g_autofree char *log = NULL;
  Watched watched = { g_ptr_array_new_with_free_func (g_free), 0 };

  if (confined && skip_without_bwrap ())
    {
      g_ptr_array_unref (watched.notes);
      return;
    }
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WATCH_DEBOUNCE, 50);
  if (in_flatpak)
    calls_log = zot_test_fake_sandbox_begin (f->env.root);
  load_probe (f, members, NULL);
  assert_ready (f);
  g_signal_connect (f->manager, "note-added", G_CALLBACK (on_watch_note), &watched);
  g_signal_connect (f->manager, "extension-reloaded", G_CALLBACK (on_watch_reloaded), &watched);
  zot_extension_manager_set_watched (f->manager, f->extension, TRUE);

  source = g_build_filename (f->dir, "main.c", NULL);
  g_assert_true (g_file_set_contents (source, "int main;\n", -1, NULL));
  zot_test_wait_until (watch_cycle_ended, &watched, 20000);
  if (in_flatpak)
    {
      g_autofree char *calls = zot_test_read_file (calls_log);

      zot_test_fake_sandbox_end ();
      g_test_message ("flatpak-spawn calls:\n%s", calls);
      g_assert_true (call_has (calls, "\"--host\", \"--watch-bus\"", "\"bwrap\", \"--unshare-all\""));
      g_assert_true (call_has (calls, "\"--forward-fd=3\"", "echo built > built.txt"));
    }

  built = g_build_filename (f->dir, "built.txt", NULL);
  copied = g_build_filename (f->dir, "copied.txt", NULL);
  g_assert_true (g_file_test (built, G_FILE_TEST_EXISTS));
  if (confined)
    {
      g_assert_cmpuint (watched.notes->len, ==, 1);
      g_assert_true (g_str_has_prefix (g_ptr_array_index (watched.notes, 0), "error|build failed: "));
      g_assert_cmpuint (watched.reloads, ==, 0);
      log = zot_test_read_file (zot_extension_get_log_path (f->extension));
      g_assert_nonnull (strstr (log, "box: the build runs in the extension's box"));
    }
  else
    {
      g_autofree char *contents = zot_test_read_file (copied);

      g_assert_cmpstr (contents, ==, "secret\n");
      g_assert_cmpuint (watched.notes->len, ==, 0);
    }
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WATCH_DEBOUNCE, 0);
  g_ptr_array_unref (watched.notes);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *secret = NULL;
  int status;

  /* A home of the test's own, before GLib first reads $HOME. */
  fake_home = g_dir_make_tmp ("zot-box-home-XXXXXX", NULL);
  g_setenv ("HOME", fake_home, TRUE);
  secret = g_build_filename (fake_home, "secret", NULL);
  g_file_set_contents (secret, "secret\n", -1, NULL);
  bwrap_works = probe_bwrap ();

  g_test_init (&argc, &argv, NULL);
  if (!bwrap_works)
    g_test_message ("bwrap cannot create namespaces here: the box enforcement cases are skipped");

  g_test_add_func ("/box/manifest/malformed", test_malformed);
  g_test_add_func ("/box/manifest/parse", test_parse);
  g_test_add_func ("/box/argv", test_argv);
#define ADD(path, func, data) \
  g_test_add ("/box/" path, Fixture, data, fixture_setup, func, fixture_teardown)
  ADD ("missing-bwrap", test_missing_bwrap, NULL);
  ADD ("unconfined", test_unconfined, NULL);
  ADD ("files/project", test_files, "project");
  ADD ("files/project-ro", test_files, "project:ro");
  ADD ("files/none", test_files, "none");
  ADD ("network/off", test_network, GINT_TO_POINTER (FALSE));
  ADD ("network/on", test_network, GINT_TO_POINTER (TRUE));
  ADD ("env", test_env, NULL);
  ADD ("children", test_children, NULL);
  ADD ("limits/processes", test_processes_limit, NULL);
  ADD ("limits/under", test_processes_under_limit, NULL);
  ADD ("limits/measure-before-root", test_measure_before_root, NULL);
  ADD ("limits/memory", test_memory_limit, NULL);
  ADD ("limits/open-files", test_open_files_limit, NULL);
  ADD ("limits/cgroup-made", test_cgroup_made, NULL);
  ADD ("limits/cgroup-not-made", test_cgroup_not_made, NULL);
  ADD ("limits/cgroup-memory", test_cgroup_memory, NULL);
  ADD ("exit-hint", test_exit_hint, NULL);
  ADD ("list", test_list, NULL);
  ADD ("flatpak", test_flatpak, NULL);
  ADD ("watch-build/confined", test_watch_build, GINT_TO_POINTER (TRUE));
  ADD ("watch-build/unconfined", test_watch_build, GINT_TO_POINTER (FALSE));
  ADD ("watch-build/flatpak", test_watch_build, GINT_TO_POINTER (2));
  g_test_add_func ("/box/env-fd", test_env_fd);
#undef ADD

  status = g_test_run ();
  zot_test_remove_tree (fake_home);
  g_free (fake_home);
  return status;
}
