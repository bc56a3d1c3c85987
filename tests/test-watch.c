/* test-watch.c — watch mode: an edit rebuilds and reloads one extension.
 *
 * Every wait is for a signal or a state, with a deadline; the debounce and
 * the build's deadline are shortened through the test-only override. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "zot-extension-watch.h"
#include "zot-limits.h"
#include "zot-panel.h"
#include "zot-test-util.h"

#define WAIT_MS 20000

typedef struct
{
  ZotTestEnv  env;
  GPtrArray  *reloads;   /* the new ZotExtension of each reload */
  GPtrArray  *notes;     /* "level|message" */
  GPtrArray  *changes;   /* paths a ZotExtensionWatch reported */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->reloads = g_ptr_array_new_with_free_func (g_object_unref);
  f->notes = g_ptr_array_new_with_free_func (g_free);
  f->changes = g_ptr_array_new_with_free_func (g_free);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WATCH_DEBOUNCE, 50);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_BUILD, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_ptr_array_unref (f->reloads);
  g_ptr_array_unref (f->notes);
  g_ptr_array_unref (f->changes);
  zot_test_env_teardown (&f->env);
}

static void
on_reloaded (ZotExtensionManager *manager,
             ZotExtension        *extension,
             const char          *reason,
             Fixture             *f)
{
  g_assert_cmpstr (reason, ==, "watch");
  g_ptr_array_add (f->reloads, g_object_ref (extension));
}

static void
on_note (ZotExtensionManager *manager,
         ZotExtension        *extension,
         const char          *level,
         const char          *message,
         Fixture             *f)
{
  g_ptr_array_add (f->notes, g_strdup_printf ("%s|%s", level, message));
}

static void
on_changed (ZotExtensionWatch *watch,
            const char        *path,
            Fixture           *f)
{
  g_ptr_array_add (f->changes, g_strdup (path));
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_assert_true (zot_extension_manager_load_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
}

static gboolean
not_starting (gpointer data)
{
  ZotExtensionState state = zot_extension_get_state (data);

  return state != ZOT_EXTENSION_STATE_STARTING && state != ZOT_EXTENSION_STATE_REGISTERING;
}

static ZotExtensionManager *
load_watched (Fixture    *f,
              const char *dir,
              gboolean    interactive)
{
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager = zot_extension_manager_new ();
  g_autoptr(ZotExtension) extension = NULL;

  zot_extension_manager_set_cwd (manager, f->env.cwd);
  zot_extension_manager_set_explicit_paths (manager, paths);
  zot_extension_manager_set_interactive (manager, interactive);
  zot_extension_manager_set_watch_explicit (manager, TRUE);
  g_signal_connect (manager, "extension-reloaded", G_CALLBACK (on_reloaded), f);
  g_signal_connect (manager, "note-added", G_CALLBACK (on_note), f);
  zot_extension_manager_load_async (manager, NULL, loaded_cb, NULL);

  extension = g_list_model_get_item (G_LIST_MODEL (manager), 0);
  g_assert_nonnull (extension);
  zot_test_wait_until (not_starting, extension, WAIT_MS);
  g_assert_cmpint (zot_extension_get_state (extension), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (zot_extension_manager_get_watched (manager, extension));
  return manager;
}

static void
touch (const char *dir,
       const char *relative,
       const char *contents)
{
  g_autofree char *path = g_build_filename (dir, relative, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_mkdir_with_parents (parent, 0700);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

typedef struct
{
  GPtrArray *array;
  guint      length;
} Growth;

static gboolean
has_grown (gpointer data)
{
  Growth *growth = data;
  return growth->array->len >= growth->length;
}

/* Waits until @array holds at least @length items. */
static void
wait_for_length (GPtrArray *array,
                 guint      length)
{
  Growth growth = { array, length };

  zot_test_wait_until (has_grown, &growth, WAIT_MS);
}

static ZotExtension *
first_extension (ZotExtensionManager *manager)
{
  g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), 0);
  return extension;
}

#define fake(f, name, ...) zot_test_make_fake_args ((f)->env.root, name, __VA_ARGS__)

/* The "done when" of the issue: an edit reloads the extension within a
 * second, its command registered again. */
static void
test_edit_reloads (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *dir = fake (f, "edited", "--command", "ping", NULL);
  ZotExtensionManager *manager = load_watched (f, dir, FALSE);
  ZotExtension *old = first_extension (manager);
  ZotExtension *fresh;
  gint64 start;

  start = g_get_monotonic_time ();
  touch (dir, "main.c", "int main;\n");
  wait_for_length (f->reloads, 1);
  g_test_message ("reloaded after %" G_GINT64_FORMAT " ms", (g_get_monotonic_time () - start) / 1000);

  fresh = g_ptr_array_index (f->reloads, 0);
  g_assert_true (fresh != old);
  g_assert_true (first_extension (manager) == fresh);
  g_assert_cmpint (zot_extension_get_state (fresh), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (zot_extension_manager_lookup_command (manager, "ping", NULL) == fresh);
  /* Watching survives the reload. */
  g_assert_true (zot_extension_manager_get_watched (manager, fresh));
  g_assert_cmpuint (f->notes->len, ==, 0);

  zot_test_shutdown_manager (manager);
}

/* A burst of saves is one reload; the next edit is the second. */
static void
test_burst_is_one_reload (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = fake (f, "bursty", NULL);
  ZotExtensionManager *manager;

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_WATCH_DEBOUNCE, 0);
  manager = load_watched (f, dir, FALSE);
  for (guint i = 0; i < 20; i++)
    touch (dir, i % 2 ? "a.py" : "lib/b.py", "x = 1\n");
  wait_for_length (f->reloads, 1);

  touch (dir, "a.py", "x = 2\n");
  wait_for_length (f->reloads, 2);
  g_assert_cmpuint (f->reloads->len, ==, 2);

  zot_test_shutdown_manager (manager);
}

typedef struct
{
  ZotExtension *old;
  const char   *dir;
  gboolean      written;
} DuringReload;

static void
on_state_during_reload (ZotExtensionManager *manager,
                        ZotExtension        *extension,
                        DuringReload        *during)
{
  if (extension != during->old || during->written ||
      zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_STOPPING)
    return;

  during->written = TRUE;
  touch (during->dir, "a.py", "x = 3\n");
  touch (during->dir, "b.py", "y = 3\n");
  touch (during->dir, "lib/c.py", "z = 3\n");
}

/* Changes while a reload runs are one more reload after it, not one
 * each. */
static void
test_changes_during_reload (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "busy", NULL);
  ZotExtensionManager *manager = load_watched (f, dir, FALSE);
  DuringReload during = { first_extension (manager), dir, FALSE };

  g_signal_connect (manager, "extension-state-changed", G_CALLBACK (on_state_during_reload), &during);
  touch (dir, "main.py", "");
  wait_for_length (f->reloads, 2);
  g_assert_true (during.written);

  /* A later edit is the third: nothing else came in between. */
  touch (dir, "main.py", "print()\n");
  wait_for_length (f->reloads, 3);
  g_assert_cmpuint (f->reloads->len, ==, 3);
  g_assert_cmpint (zot_extension_get_state (first_extension (manager)), ==, ZOT_EXTENSION_STATE_READY);

  g_signal_handlers_disconnect_by_data (manager, &during);
  zot_test_shutdown_manager (manager);
}

/* Version control, build output, editor files and the manifest's
 * watch_ignore never count: the first change reported is the real edit
 * written after them. */
static void
test_ignored_paths (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->env.root, "ignoring", NULL);
  const char *ignore[] = { "state/*", "*.log", NULL };
  const char * const ignored[] = {
    ".git/HEAD", ".git/objects/ab/cd", "node_modules/x/index.js", "target/debug/x",
    "build/out.o", "__pycache__/m.cpython-312.pyc", "m.pyc", ".main.c.swp", "main.c~",
    ".#main.c", "state/data.json", "run.log", "sub/deeper/run.log",
  };
  g_autoptr(ZotExtensionWatch) watch = NULL;

  touch (dir, ".git/config", "");
  touch (dir, "node_modules/.keep", "");
  touch (dir, "state/.keep", "");
  watch = zot_extension_watch_new (dir);
  zot_extension_watch_set_globs (watch, NULL, ignore);
  g_signal_connect (watch, "changed", G_CALLBACK (on_changed), f);

  for (guint i = 0; i < G_N_ELEMENTS (ignored); i++)
    {
      g_assert_true (zot_extension_watch_is_ignored (watch, ignored[i]));
      touch (dir, ignored[i], "x");
    }
  g_assert_false (zot_extension_watch_is_ignored (watch, "main.c"));
  g_assert_false (zot_extension_watch_is_ignored (watch, "src/lib.rs"));
  g_assert_false (zot_extension_watch_is_ignored (watch, "extension.json"));

  touch (dir, "main.c", "int main;\n");
  wait_for_length (f->changes, 1);
  g_assert_cmpstr (g_ptr_array_index (f->changes, 0), ==, "main.c");
}

/* With "watch" globs only what they match counts. */
static void
test_watch_globs (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->env.root, "narrow", NULL);
  const char *only[] = { "src/*.ts", "extension.json", NULL };
  g_autoptr(ZotExtensionWatch) watch = NULL;

  touch (dir, "src/.keep", "");
  watch = zot_extension_watch_new (dir);
  zot_extension_watch_set_globs (watch, only, NULL);
  g_signal_connect (watch, "changed", G_CALLBACK (on_changed), f);

  g_assert_true (zot_extension_watch_is_ignored (watch, "README.md"));
  g_assert_false (zot_extension_watch_is_ignored (watch, "src/deep/a.ts"));
  touch (dir, "README.md", "# hi\n");
  touch (dir, "src/a.ts", "export {}\n");
  wait_for_length (f->changes, 1);
  g_assert_cmpstr (g_ptr_array_index (f->changes, 0), ==, "src/a.ts");
}

static gboolean
watches_two (gpointer data)
{
  return zot_extension_watch_get_n_directories (data) == 2;
}

/* A directory made after the start is watched too, and one removed is
 * not any more. */
static void
test_new_subdirectory (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (f->env.root, "growing", NULL);
  g_autofree char *sub = g_build_filename (dir, "lib", NULL);
  g_autoptr(ZotExtensionWatch) watch = NULL;

  touch (dir, "main.py", "");
  watch = zot_extension_watch_new (dir);
  g_assert_cmpuint (zot_extension_watch_get_n_directories (watch), ==, 1);
  g_signal_connect (watch, "changed", G_CALLBACK (on_changed), f);

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  zot_test_wait_until (watches_two, watch, WAIT_MS);

  touch (dir, "lib/util.py", "x = 1\n");
  wait_for_length (f->changes, 1);
  g_assert_cmpstr (g_ptr_array_index (f->changes, 0), ==, "lib/util.py");
}

/* Past ZOT_WATCH_MAX_DIRECTORIES the rest is not watched, and a note
 * says so once. */
static void
test_directory_cap (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *dir = fake (f, "sprawling", NULL);
  ZotExtensionManager *manager;

  for (guint i = 0; i < ZOT_WATCH_MAX_DIRECTORIES; i++)
    {
      g_autofree char *sub = g_strdup_printf ("%s/d%03u", dir, i);
      g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
    }
  /* With the top, one more than the cap. */
  manager = load_watched (f, dir, FALSE);
  g_assert_cmpuint (f->notes->len, ==, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (f->notes, 0), "warn|watching only the first 256 directories of "));
  zot_test_shutdown_manager (manager);

  {
    g_autoptr(ZotExtensionWatch) watch = zot_extension_watch_new (dir);
    g_assert_true (zot_extension_watch_is_capped (watch));
    g_assert_cmpuint (zot_extension_watch_get_n_directories (watch), ==, ZOT_WATCH_MAX_DIRECTORIES);
  }
  {
    g_autofree char *last = g_strdup_printf ("%s/d%03u", dir, ZOT_WATCH_MAX_DIRECTORIES - 1);
    g_autoptr(ZotExtensionWatch) watch = NULL;

    /* At the cap exactly, nothing is left out. */
    g_assert_cmpint (g_rmdir (last), ==, 0);
    watch = zot_extension_watch_new (dir);
    g_assert_false (zot_extension_watch_is_capped (watch));
    g_assert_cmpuint (zot_extension_watch_get_n_directories (watch), ==, ZOT_WATCH_MAX_DIRECTORIES);
  }
}

/* A build that fails keeps the old process and says why in a note. */
static void
test_failed_build_keeps_old (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = fake (f, "broken", "--command", "ping", NULL);
  const char *build[] = { "sh", "-c", "echo compiling; echo 'main.c:1: syntax error' >&2; echo more >&2; exit 2", NULL };
  ZotExtensionManager *manager;
  ZotExtension *old;
  g_autofree char *expected = NULL;
  g_autofree char *log = NULL;

  zot_test_manifest_set_strings (dir, "build", build);
  manager = load_watched (f, dir, FALSE);
  old = first_extension (manager);

  touch (dir, "main.c", "int main(\n");
  wait_for_length (f->notes, 1);

  expected = g_strdup_printf ("error|build failed: main.c:1: syntax error; see %s",
                              zot_extension_get_log_path (old));
  g_assert_cmpstr (g_ptr_array_index (f->notes, 0), ==, expected);
  g_assert_true (first_extension (manager) == old);
  g_assert_cmpint (zot_extension_get_state (old), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (zot_extension_manager_lookup_command (manager, "ping", NULL) == old);
  g_assert_cmpuint (f->reloads->len, ==, 0);

  /* The build's output, both streams, is in the extension's log. */
  log = zot_test_read_file (zot_extension_get_log_path (old));
  g_assert_nonnull (strstr (log, "compiling"));
  g_assert_nonnull (strstr (log, "main.c:1: syntax error"));
  g_assert_nonnull (strstr (log, "more"));

  zot_test_shutdown_manager (manager);
}

/* The note quotes a bounded, valid line whatever the build wrote. */
static void
test_failed_build_odd_output (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *dir = fake (f, "odd", NULL);
  const char *build[] = { "sh", "-c", "printf '\\n\\nbad \\377\\360 bytes' >&2; head -c 5000 /dev/zero | tr '\\0' x >&2; exit 1", NULL };
  ZotExtensionManager *manager;
  const char *note;

  zot_test_manifest_set_strings (dir, "build", build);
  manager = load_watched (f, dir, FALSE);

  touch (dir, "main.c", "");
  wait_for_length (f->notes, 1);
  note = g_ptr_array_index (f->notes, 0);
  g_assert_true (g_utf8_validate (note, -1, NULL));
  g_assert_true (g_str_has_prefix (note, "error|build failed: bad "));
  g_assert_cmpuint (strlen (note), <, 1000);

  zot_test_shutdown_manager (manager);
}

/* A build that does not start is a failed build too. */
static void
test_missing_build_program (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "nobuilder", NULL);
  const char *build[] = { "zot-no-such-build-program", NULL };
  ZotExtensionManager *manager;
  ZotExtension *old;

  zot_test_manifest_set_strings (dir, "build", build);
  manager = load_watched (f, dir, FALSE);
  old = first_extension (manager);

  touch (dir, "main.c", "");
  wait_for_length (f->notes, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (f->notes, 0), "error|build failed: "));
  g_assert_nonnull (strstr (g_ptr_array_index (f->notes, 0), zot_extension_get_log_path (old)));
  g_assert_true (first_extension (manager) == old);
  g_assert_cmpint (zot_extension_get_state (old), ==, ZOT_EXTENSION_STATE_READY);

  zot_test_shutdown_manager (manager);
}

/* A build that never ends is stopped at its deadline, and the old process
 * stays. */
static void
test_hanging_build_killed (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *dir = fake (f, "hangs", NULL);
  const char *build[] = { "sleep", "60", NULL };
  ZotExtensionManager *manager;
  ZotExtension *old;
  g_autofree char *expected = NULL;

  zot_test_manifest_set_strings (dir, "build", build);
  manager = load_watched (f, dir, FALSE);
  old = first_extension (manager);
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_BUILD, 200);

  touch (dir, "main.c", "");
  wait_for_length (f->notes, 1);
  expected = g_strdup_printf ("error|build failed: no end after 200 ms, stopped; see %s",
                              zot_extension_get_log_path (old));
  g_assert_cmpstr (g_ptr_array_index (f->notes, 0), ==, expected);
  g_assert_true (first_extension (manager) == old);
  g_assert_cmpint (zot_extension_get_state (old), ==, ZOT_EXTENSION_STATE_READY);

  zot_test_shutdown_manager (manager);
}

static gboolean
file_has_pid (gpointer data)
{
  g_autofree char *contents = NULL;

  return g_file_get_contents (data, &contents, NULL, NULL) && strchr (contents, '\n') != NULL;
}

static gboolean
process_gone (gpointer data)
{
  return kill (GPOINTER_TO_INT (data), 0) < 0 && errno == ESRCH;
}

/* Turning watching off cancels a build in progress: it is killed, and no
 * note comes of it. */
static void
test_unwatch_cancels_build (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = fake (f, "cancelled", NULL);
  g_autofree char *pid_file = g_build_filename (f->env.root, "build.pid", NULL);
  g_autofree char *command = g_strdup_printf ("echo $$ > '%s'; exec sleep 60", pid_file);
  const char *build[] = { "sh", "-c", command, NULL };
  g_autofree char *contents = NULL;
  g_autoptr(GFile) pid_gfile = g_file_new_for_path (pid_file);
  g_autoptr(GFileMonitor) pid_monitor = NULL;
  ZotExtensionManager *manager;
  ZotExtension *old;
  int pid;

  zot_test_manifest_set_strings (dir, "build", build);
  manager = load_watched (f, dir, FALSE);
  old = first_extension (manager);

  /* Its events wake the main loop that the wait iterates. */
  pid_monitor = g_file_monitor_file (pid_gfile, G_FILE_MONITOR_NONE, NULL, NULL);
  g_assert_nonnull (pid_monitor);
  touch (dir, "main.c", "");
  zot_test_wait_until (file_has_pid, pid_file, WAIT_MS);
  g_assert_true (g_file_get_contents (pid_file, &contents, NULL, NULL));
  pid = atoi (contents);
  g_assert_cmpint (pid, >, 0);

  zot_extension_manager_set_watched (manager, old, FALSE);
  zot_test_wait_until (process_gone, GINT_TO_POINTER (pid), WAIT_MS);
  g_assert_cmpuint (f->notes->len, ==, 0);
  g_assert_true (first_extension (manager) == old);
  g_assert_cmpint (zot_extension_get_state (old), ==, ZOT_EXTENSION_STATE_READY);

  zot_test_shutdown_manager (manager);
}

/* With "watch" globs, a source edited while the build runs is one more
 * reload after this one; the build's own output is not. */
static void
test_edit_during_build (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = fake (f, "slowbuild", NULL);
  g_autofree char *started = g_build_filename (f->env.root, "started", NULL);
  g_autofree char *go = g_build_filename (f->env.root, "go", NULL);
  g_autofree char *command = g_strdup_printf ("echo out > out.txt; echo up > '%s'; "
                                              "while [ ! -e '%s' ]; do sleep 0.01; done", started, go);
  const char *build[] = { "sh", "-c", command, NULL };
  const char *watch[] = { "*.c", "extension.json", NULL };
  g_autoptr(GFile) started_file = g_file_new_for_path (started);
  g_autoptr(GFileMonitor) monitor = g_file_monitor_file (started_file, G_FILE_MONITOR_NONE, NULL, NULL);
  ZotExtensionManager *manager;

  zot_test_manifest_set_strings (dir, "build", build);
  zot_test_manifest_set_strings (dir, "watch", watch);
  manager = load_watched (f, dir, FALSE);

  touch (dir, "main.c", "");
  zot_test_wait_until (file_has_pid, started, WAIT_MS);
  touch (dir, "other.c", "int other;\n");
  touch (dir, "notes.txt", "not a source\n");
  touch (f->env.root, "go", "");
  wait_for_length (f->reloads, 2);

  /* A later edit is the third: the build's out.txt brought none. */
  touch (dir, "main.c", "int main;\n");
  wait_for_length (f->reloads, 3);
  g_assert_cmpuint (f->reloads->len, ==, 3);
  g_assert_cmpuint (f->notes->len, ==, 0);

  zot_test_shutdown_manager (manager);
}

/* A build that succeeds runs before the restart: it rewrites the
 * manifest, and the new process is started from what it wrote. */
static void
test_build_before_restart (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *dir = fake (f, "built", "--command", "before", NULL);
  g_autofree char *next_dir = fake (f, "next", "--command", "after", NULL);
  g_autofree char *next = g_build_filename (next_dir, "extension.json", NULL);
  g_autofree char *command = g_strdup_printf ("sed 's/\"next\"/\"built\"/g' '%s' > extension.json", next);
  const char *build[] = { "sh", "-c", command, NULL };
  ZotExtensionManager *manager;
  ZotExtension *fresh;

  zot_test_manifest_set_strings (dir, "build", build);
  manager = load_watched (f, dir, FALSE);
  g_assert_nonnull (zot_extension_manager_lookup_command (manager, "before", NULL));

  touch (dir, "main.c", "");
  wait_for_length (f->reloads, 1);
  fresh = g_ptr_array_index (f->reloads, 0);
  g_assert_cmpint (zot_extension_get_state (fresh), ==, ZOT_EXTENSION_STATE_READY);
  g_assert_true (zot_extension_manager_lookup_command (manager, "after", NULL) == fresh);
  g_assert_null (zot_extension_manager_lookup_command (manager, "before", NULL));
  g_assert_cmpuint (f->notes->len, ==, 0);

  zot_test_shutdown_manager (manager);
}

typedef struct
{
  ZotExtensionManager *manager;
  gboolean             marked;    /* "p" was seen marked reloaded */
} PanelWatch;

static ZotPanel *
find_panel (ZotExtensionManager *manager,
            const char          *id)
{
  GPtrArray *panels = zot_extension_manager_list_panels (manager);

  for (guint i = 0; i < panels->len; i++)
    if (g_str_equal (zot_panel_get_id (g_ptr_array_index (panels, i)), id))
      return g_ptr_array_index (panels, i);
  return NULL;
}

static gboolean
panels_open (gpointer data)
{
  return zot_extension_manager_list_panels (data)->len == 2;
}

static void
on_panel_reloaded (ZotPanel   *panel,
                   GParamSpec *pspec,
                   PanelWatch *watch)
{
  if (zot_panel_get_reloaded (panel))
    watch->marked = TRUE;
}

static gboolean
panel_taken_over (gpointer data)
{
  PanelWatch *watch = data;
  ZotPanel *panel = find_panel (watch->manager, "p");

  return watch->marked && panel != NULL && !zot_panel_get_reloaded (panel) &&
         g_strcmp0 (zot_panel_get_lines (panel)[0], "new") == 0;
}

/* Panels stay across a reload, marked, until the new process opens the
 * same id; one it never opens again stays marked. */
static void
test_panels_marked_and_taken_over (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *dir = fake (f, "paneled",
                               "--send-after-ready", "{\"type\":\"open_panel\",\"panel\":{\"id\":\"p\",\"lines\":[\"old\"]}}",
                               "--send-after-ready", "{\"type\":\"open_panel\",\"panel\":{\"id\":\"q\",\"lines\":[\"only old\"]}}",
                               NULL);
  const char *args[] = { "--name", "paneled",
                         "--send-after-ready", "{\"type\":\"open_panel\",\"panel\":{\"id\":\"p\",\"lines\":[\"new\"]}}",
                         NULL };
  PanelWatch watch = { 0 };
  ZotPanel *p;
  ZotPanel *q;

  watch.manager = load_watched (f, dir, TRUE);
  zot_test_wait_until (panels_open, watch.manager, WAIT_MS);
  p = find_panel (watch.manager, "p");
  q = find_panel (watch.manager, "q");
  g_signal_connect (p, "notify::reloaded", G_CALLBACK (on_panel_reloaded), &watch);
  g_assert_false (zot_panel_get_reloaded (p));

  /* Editing the manifest is an edit like any other. */
  zot_test_manifest_set_strings (dir, "args", args);
  wait_for_length (f->reloads, 1);
  zot_test_wait_until (panel_taken_over, &watch, WAIT_MS);

  g_assert_true (find_panel (watch.manager, "p") == p);
  g_assert_true (zot_panel_is_open (p));
  {
    g_autoptr(ZotExtension) owner = zot_panel_dup_extension (p);
    g_assert_true (owner == g_ptr_array_index (f->reloads, 0));
  }
  g_assert_true (find_panel (watch.manager, "q") == q);
  g_assert_true (zot_panel_is_open (q));
  g_assert_true (zot_panel_get_reloaded (q));
  g_assert_cmpstr (zot_panel_get_lines (q)[0], ==, "only old");

  g_signal_handlers_disconnect_by_data (p, &watch);
  zot_test_shutdown_manager (watch.manager);
}

static guint
count_intercepts (ZotTestEnv *env,
                  const char *name)
{
  g_autofree char *path = zot_test_record_path (env, name);
  g_autoptr(GPtrArray) frames = zot_test_read_frames (path);
  guint n = 0;

  for (guint i = 0; i < frames->len; i++)
    if (g_strcmp0 (json_object_get_string_member_with_default (g_ptr_array_index (frames, i), "type", ""),
                   "event_intercept") == 0)
      n++;
  return n;
}

/* The host with --watch: an --ext path is watched, and after a reload
 * the next run asks `before_agent_start` again, as after /reload-ext. */
static void
test_host_reruns_before_agent_start (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_recording_fake (&f->env, "prompter",
    "--register-json", "{\"type\":\"subscribe\",\"intercept\":[\"before_agent_start\"]}",
    "--intercept-reply", "before_agent_start={\"system_prompt\":\"{{system_prompt}} +A\"}",
    NULL);
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_auto(ZotTestSubmit) first = { 0 };
  g_auto(ZotTestSubmit) second = { 0 };
  const char *paths[] = { dir, NULL };
  ZotExtensionManager *manager;
  ZotHost *host;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.watch = TRUE;
  host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_test_load_host (host);
  manager = zot_host_get_manager (host);
  g_assert_true (zot_extension_manager_get_watched (manager, first_extension (manager)));
  g_signal_connect (manager, "extension-reloaded", G_CALLBACK (on_reloaded), f);

  zot_test_submit (host, "hi", &first);
  g_assert_true (first.ok);
  g_assert_cmpuint (count_intercepts (&f->env, "prompter"), ==, 1);
  g_assert_true (g_str_has_suffix (zot_agent_get_system_prompt (zot_host_get_agent (host)), " +A"));

  touch (dir, "main.c", "");
  wait_for_length (f->reloads, 1);
  g_assert_cmpint (zot_extension_get_state (g_ptr_array_index (f->reloads, 0)), ==, ZOT_EXTENSION_STATE_READY);

  zot_test_submit (host, "again", &second);
  g_assert_true (second.ok);
  g_assert_cmpuint (count_intercepts (&f->env, "prompter"), ==, 2);

  g_signal_handlers_disconnect_by_data (manager, f);
  zot_test_finalize_host (&host);
}

/* Turned off, an edit does nothing; an unwatched extension is not watched
 * without --watch. */
static void
test_unwatch (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *dir = fake (f, "quiet", NULL);
  g_autofree char *other = fake (f, "other", NULL);
  ZotExtensionManager *manager = load_watched (f, dir, FALSE);
  ZotExtension *extension = first_extension (manager);

  zot_extension_manager_set_watched (manager, extension, FALSE);
  g_assert_false (zot_extension_manager_get_watched (manager, extension));
  zot_extension_manager_set_watched (manager, extension, TRUE);
  g_assert_true (zot_extension_manager_get_watched (manager, extension));
  zot_extension_manager_set_watched (manager, extension, FALSE);
  zot_test_shutdown_manager (manager);

  {
    const char *paths[] = { other, NULL };
    g_autoptr(ZotExtensionManager) plain = zot_test_load_manager (&f->env, paths);
    g_assert_false (zot_extension_manager_get_watched (plain, first_extension (plain)));
    zot_test_shutdown_manager (g_steal_pointer (&plain));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/zot/watch/edit-reloads", test_edit_reloads);
  ADD ("/zot/watch/burst-is-one-reload", test_burst_is_one_reload);
  ADD ("/zot/watch/changes-during-reload", test_changes_during_reload);
  ADD ("/zot/watch/ignored-paths", test_ignored_paths);
  ADD ("/zot/watch/watch-globs", test_watch_globs);
  ADD ("/zot/watch/new-subdirectory", test_new_subdirectory);
  ADD ("/zot/watch/directory-cap", test_directory_cap);
  ADD ("/zot/watch/failed-build-keeps-old", test_failed_build_keeps_old);
  ADD ("/zot/watch/failed-build-odd-output", test_failed_build_odd_output);
  ADD ("/zot/watch/missing-build-program", test_missing_build_program);
  ADD ("/zot/watch/hanging-build-killed", test_hanging_build_killed);
  ADD ("/zot/watch/build-before-restart", test_build_before_restart);
  ADD ("/zot/watch/edit-during-build", test_edit_during_build);
  ADD ("/zot/watch/unwatch-cancels-build", test_unwatch_cancels_build);
  ADD ("/zot/watch/panels-marked-and-taken-over", test_panels_marked_and_taken_over);
  ADD ("/zot/watch/unwatch", test_unwatch);
  ADD ("/zot/watch/host-reruns-before-agent-start", test_host_reruns_before_agent_start);
#undef ADD

  return g_test_run ();
}
