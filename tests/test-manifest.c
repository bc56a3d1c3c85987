/* test-manifest.c — extension.json parsing, exec resolution and discovery.
 *
 * Every manifest is written into a fresh temporary directory by the test
 * itself, so that each case states exactly the input it checks.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "zot-discovery.h"
#include "zot-error.h"
#include "zot-limits.h"
#include "zot-manifest.h"
#include "zot-test-util.h"

/* --- helpers ------------------------------------------------------------- */

static char *
make_tmp (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("zot-test-manifest-XXXXXX", &error);

  g_assert_no_error (error);
  g_assert_nonnull (dir);
  return dir;
}

static void
write_file (const char *path,
            const char *contents,
            int         mode)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
}

/* Creates @parent/@subdir/extension.json with @json; returns the directory. */
static char *
make_extension (const char *parent,
                const char *subdir,
                const char *json)
{
  char *dir = g_build_filename (parent, subdir, NULL);
  g_autofree char *manifest = g_build_filename (dir, ZOT_MANIFEST_FILENAME, NULL);

  write_file (manifest, json, 0644);
  return dir;
}

static char *
make_named_extension (const char *parent,
                      const char *subdir,
                      const char *name)
{
  g_autofree char *json = g_strdup_printf ("{\"name\":\"%s\",\"exec\":\"sh\"}", name);

  return make_extension (parent, subdir, json);
}

#define assert_message_contains(error, needle)                                \
  G_STMT_START {                                                              \
    g_assert_nonnull (error);                                                 \
    if (strstr ((error)->message, (needle)) == NULL)                          \
      g_error ("error message \"%s\" does not contain \"%s\"",               \
               (error)->message, (needle));                                   \
  } G_STMT_END

/* Loads @json from a fresh directory and expects an error. The message must
 * name the manifest file, so that the user knows which one to fix. */
static void
expect_manifest_error (const char *json,
                       int         code,
                       const char *needle)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "ext", json);
  g_autofree char *path = g_build_filename (dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = NULL;

  g_test_message ("manifest: %s", json);
  manifest = zot_manifest_new_for_directory (dir, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_MANIFEST_ERROR, code);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  assert_message_contains (error, path);
  if (needle != NULL)
    assert_message_contains (error, needle);

  zot_test_remove_tree (tmp);
}

static ZotManifest *
load_ok (const char *dir)
{
  g_autoptr(GError) error = NULL;
  ZotManifest *manifest = zot_manifest_new_for_directory (dir, &error);

  g_assert_no_error (error);
  g_assert_true (ZOT_IS_MANIFEST (manifest));
  return manifest;
}

/* --- manifest ------------------------------------------------------------ */

static void
test_manifest_valid (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "weather",
    "{\n"
    "  \"name\": \"weather\",\n"
    "  \"exec\": \"./run.sh\",\n"
    "  \"args\": [\"--units\", \"metric\", \"\"],\n"
    "  \"version\": \"1.2.3\",\n"
    "  \"description\": \"Forecasts \\u2603\",\n"
    "  \"language\": \"python\",\n"
    "  \"enabled\": true,\n"
    "  \"unknown_field\": {\"ignored\": [1, 2]}\n"
    "}\n");
  g_autofree char *path = g_build_filename (dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autoptr(ZotManifest) manifest = load_ok (dir);
  const char * const expected_args[] = { "--units", "metric", "", NULL };

  g_assert_cmpstr (zot_manifest_get_directory (manifest), ==, dir);
  g_assert_cmpstr (zot_manifest_get_path (manifest), ==, path);
  g_assert_cmpstr (zot_manifest_get_name (manifest), ==, "weather");
  g_assert_cmpstr (zot_manifest_get_exec (manifest), ==, "./run.sh");
  g_assert_cmpstrv (zot_manifest_get_args (manifest), expected_args);
  g_assert_cmpstr (zot_manifest_get_version (manifest), ==, "1.2.3");
  g_assert_cmpstr (zot_manifest_get_description (manifest), ==, "Forecasts \xe2\x98\x83");
  g_assert_cmpstr (zot_manifest_get_language (manifest), ==, "python");
  g_assert_true (zot_manifest_get_enabled (manifest));

  g_assert_finalize_object (g_steal_pointer (&manifest));
  zot_test_remove_tree (tmp);
}

static void
test_manifest_minimal (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "min", "{\"name\":\"min\",\"exec\":\"sh\"}");
  g_autoptr(ZotManifest) manifest = load_ok (dir);
  const char * const *args;

  /* Optional fields have their defaults. */
  args = zot_manifest_get_args (manifest);
  g_assert_nonnull (args);
  g_assert_null (args[0]);
  g_assert_null (zot_manifest_get_version (manifest));
  g_assert_null (zot_manifest_get_description (manifest));
  g_assert_null (zot_manifest_get_language (manifest));
  g_assert_true (zot_manifest_get_enabled (manifest));

  g_clear_object (&manifest);

  /* A relative directory is made absolute. */
  {
    g_autofree char *old_cwd = g_get_current_dir ();
    g_autoptr(ZotManifest) relative = NULL;

    g_assert_cmpint (chdir (tmp), ==, 0);
    relative = load_ok ("min");
    g_assert_cmpint (chdir (old_cwd), ==, 0);
    g_assert_cmpstr (zot_manifest_get_directory (relative), ==, dir);
  }

  zot_test_remove_tree (tmp);
}

static void
test_manifest_missing_exec (void)
{
  expect_manifest_error ("{\"name\":\"x\"}", ZOT_MANIFEST_ERROR_INVALID, "\"exec\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"\"}", ZOT_MANIFEST_ERROR_INVALID, "\"exec\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":null}", ZOT_MANIFEST_ERROR_INVALID, "\"exec\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":[\"sh\"]}", ZOT_MANIFEST_ERROR_INVALID, "\"exec\"");
}

/* Watch mode's fields: each error names the field and the fix. */
static void
test_manifest_watch_fields (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "w",
    "{\"name\":\"w\",\"exec\":\"sh\",\"build\":[\"make\",\"-s\"],"
    "\"watch\":[\"src/*\",\"*.json\"],\"watch_ignore\":[\"state/*\"]}");
  g_autofree char *plain = make_extension (tmp, "plain", "{\"name\":\"plain\",\"exec\":\"sh\"}");
  g_autoptr(ZotManifest) manifest = load_ok (dir);
  const char * const build[] = { "make", "-s", NULL };
  const char * const watch[] = { "src/*", "*.json", NULL };
  const char * const ignore[] = { "state/*", NULL };

  g_assert_cmpstrv (zot_manifest_get_build (manifest), build);
  g_assert_cmpstrv (zot_manifest_get_watch (manifest), watch);
  g_assert_cmpstrv (zot_manifest_get_watch_ignore (manifest), ignore);
  g_clear_object (&manifest);

  manifest = load_ok (plain);
  g_assert_null (zot_manifest_get_build (manifest));
  g_assert_null (zot_manifest_get_watch (manifest));
  g_assert_null (zot_manifest_get_watch_ignore (manifest));
  g_clear_object (&manifest);

  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"build\":\"make\"}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"build\" must be an array of strings");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"build\":[]}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"build\" must name a program");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"build\":[\"\"]}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"build\" must name a program");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"build\":[\"make\",1]}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"build\" must be an array of strings (element 1");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"watch\":\"*.py\"}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"watch\" must be an array of strings");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"watch\":[true]}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"watch\" must be an array of strings (element 0");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"watch_ignore\":{}}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"watch_ignore\" must be an array of strings");
  zot_test_remove_tree (tmp);
}

static void
test_manifest_missing_name (void)
{
  expect_manifest_error ("{\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID, "\"name\"");
  expect_manifest_error ("{\"name\":\"\",\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID, "\"name\"");
  expect_manifest_error ("{\"name\":42,\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID, "\"name\"");
}

static void
test_manifest_bad_name (void)
{
  expect_manifest_error ("{\"name\":\"a/b\",\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID, "\"name\"");
  expect_manifest_error ("{\"name\":\"..\",\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID, "\"name\"");
  expect_manifest_error ("{\"name\":\"a\\nb\",\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID, "\"name\"");
  /* json-glib decodes a lone surrogate to bytes that are not UTF-8; the
   * message still is. (Found by fuzz/fuzz-manifest.c.) */
  expect_manifest_error ("{\"name\":\"a\\ud800b\",\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID, "\"name\"");

  g_assert_false (zot_manifest_name_is_valid (NULL));
  g_assert_false (zot_manifest_name_is_valid (""));
  g_assert_false (zot_manifest_name_is_valid ("a/b"));
  g_assert_false (zot_manifest_name_is_valid ("/abs"));
  g_assert_false (zot_manifest_name_is_valid ("a\\b"));
  g_assert_false (zot_manifest_name_is_valid ("."));
  g_assert_false (zot_manifest_name_is_valid (".."));
  g_assert_false (zot_manifest_name_is_valid ("tab\there"));
  /* It would read as an option of zot ext, and could not be removed. */
  g_assert_false (zot_manifest_name_is_valid ("--force"));
  g_assert_false (zot_manifest_name_is_valid ("-x"));
  /* Hidden characters: a right-to-left override, C1 NEL and CSI, a
   * zero-width space, blanks at the ends. */
  g_assert_false (zot_manifest_name_is_valid ("evil\xe2\x80\xaetxt.exe"));
  g_assert_false (zot_manifest_name_is_valid ("a\xc2\x85" "b"));
  g_assert_false (zot_manifest_name_is_valid ("a\xc2\x9b" "31m"));
  g_assert_false (zot_manifest_name_is_valid ("zero\xe2\x80\x8bwidth"));
  g_assert_false (zot_manifest_name_is_valid (" lead"));
  g_assert_false (zot_manifest_name_is_valid ("trail "));
  g_assert_true (zot_manifest_name_is_valid ("two words"));
  {
    g_autofree char *longest = g_strnfill (128, 'n');
    g_autofree char *too_long = g_strnfill (129, 'n');

    g_assert_true (zot_manifest_name_is_valid (longest));
    g_assert_false (zot_manifest_name_is_valid (too_long));
  }
  expect_manifest_error ("{\"name\":\"--force\",\"exec\":\"sh\"}", ZOT_MANIFEST_ERROR_INVALID,
                         "not start with \"-\"");
  g_assert_true (zot_manifest_name_is_valid ("weather"));
  g_assert_true (zot_manifest_name_is_valid ("my-ext_2.0"));
  g_assert_true (zot_manifest_name_is_valid ("..."));
  g_assert_true (zot_manifest_name_is_valid ("caf\xc3\xa9"));
}

static void
test_manifest_not_json (void)
{
  expect_manifest_error ("{\"name\": \"x\", \"exec\": ", ZOT_MANIFEST_ERROR_PARSE, NULL);
  expect_manifest_error ("name = x", ZOT_MANIFEST_ERROR_PARSE, NULL);
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",}", ZOT_MANIFEST_ERROR_PARSE, NULL);
}

static void
test_manifest_top_level_array (void)
{
  expect_manifest_error ("[{\"name\":\"x\",\"exec\":\"sh\"}]", ZOT_MANIFEST_ERROR_INVALID, "object");
  expect_manifest_error ("\"x\"", ZOT_MANIFEST_ERROR_INVALID, "object");
}

static void
test_manifest_args_invalid (void)
{
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"args\":\"--flag\"}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"args\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"args\":{\"a\":\"b\"}}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"args\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"args\":[\"ok\",3]}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"args\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"args\":[\"ok\",[\"nested\"]]}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"args\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"args\":[null]}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"args\"");
}

static void
test_manifest_enabled_not_bool (void)
{
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"enabled\":\"false\"}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"enabled\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"enabled\":0}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"enabled\"");
}

static void
test_manifest_enabled_false (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "off", "{\"name\":\"off\",\"exec\":\"sh\",\"enabled\":false}");
  g_autoptr(ZotManifest) manifest = load_ok (dir);

  g_assert_false (zot_manifest_get_enabled (manifest));
  g_assert_cmpstr (zot_manifest_get_name (manifest), ==, "off");

  zot_test_remove_tree (tmp);
}

static void
test_manifest_optional_wrong_type (void)
{
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"version\":1}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"version\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"description\":true}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"description\"");
}

static void
test_manifest_intercept_failure (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = g_build_filename (tmp, "strict", NULL);
  g_autofree char *path = g_build_filename (dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autoptr(ZotManifest) manifest = NULL;

  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"intercept_failure\":\"deny\"}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"allow\" or \"block\"");
  expect_manifest_error ("{\"name\":\"x\",\"exec\":\"sh\",\"intercept_failure\":true}",
                         ZOT_MANIFEST_ERROR_INVALID, "\"intercept_failure\"");

  write_file (path, "{\"name\":\"strict\",\"exec\":\"sh\",\"intercept_failure\":\"block\"}", 0644);
  manifest = load_ok (dir);
  g_assert_true (zot_manifest_get_intercept_failure_blocks (manifest));
  g_clear_object (&manifest);

  write_file (path, "{\"name\":\"strict\",\"exec\":\"sh\",\"intercept_failure\":\"allow\"}", 0644);
  manifest = load_ok (dir);
  g_assert_false (zot_manifest_get_intercept_failure_blocks (manifest));
  g_clear_object (&manifest);

  write_file (path, "{\"name\":\"strict\",\"exec\":\"sh\"}", 0644);
  manifest = load_ok (dir);
  g_assert_false (zot_manifest_get_intercept_failure_blocks (manifest));

  zot_test_remove_tree (tmp);
}

static void
test_manifest_missing_file (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = g_build_filename (tmp, "empty", NULL);
  g_autofree char *path = g_build_filename (dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *gone = g_build_filename (tmp, "does-not-exist", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = NULL;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  manifest = zot_manifest_new_for_directory (dir, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND);
  assert_message_contains (error, path);
  g_clear_error (&error);

  manifest = zot_manifest_new_for_directory (gone, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND);

  zot_test_remove_tree (tmp);
}

/* A FIFO used to hang discovery and install, a link to /dev/zero to
 * allocate until memory ran out, and a huge file to be read whole. */
static void
test_manifest_not_regular (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *fifo_dir = g_build_filename (tmp, "fifo", NULL);
  g_autofree char *fifo = g_build_filename (fifo_dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *zero_dir = g_build_filename (tmp, "zero", NULL);
  g_autofree char *zero = g_build_filename (zero_dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *big_dir = g_build_filename (tmp, "big", NULL);
  g_autofree char *big = g_build_filename (big_dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *edge_dir = g_build_filename (tmp, "edge", NULL);
  g_autofree char *edge = g_build_filename (edge_dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *padded = NULL;
  g_autofree char *edge_json = NULL;
  g_autofree char *big_json = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotManifest) manifest = NULL;
  const char *head = "{\"name\":\"edge\",\"exec\":\"sh\",\"description\":\"";
  gsize pad;

  g_assert_cmpint (g_mkdir (fifo_dir, 0755), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  manifest = zot_manifest_new_for_directory (fifo_dir, &error);
  g_assert_null (manifest);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND);
  assert_message_contains (error, "not a regular file");
  assert_message_contains (error, fifo);
  g_clear_error (&error);

  g_assert_cmpint (g_mkdir (zero_dir, 0755), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  manifest = zot_manifest_new_for_directory (zero_dir, &error);
  g_assert_null (manifest);
  assert_message_contains (error, "not a regular file");
  g_clear_error (&error);

  /* Exactly at the size limit: read; one byte more: refused. */
  pad = ZOT_MANIFEST_MAX_BYTES - strlen (head) - strlen ("\"}");
  padded = g_strnfill (pad, 'x');
  g_assert_cmpint (g_mkdir (edge_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (edge, (edge_json = g_strconcat (head, padded, "\"}", NULL)), -1, NULL));
  manifest = zot_manifest_new_for_directory (edge_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (manifest);
  g_clear_object (&manifest);

  g_assert_cmpint (g_mkdir (big_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (big, (big_json = g_strconcat (head, padded, "x\"}", NULL)), -1, NULL));
  manifest = zot_manifest_new_for_directory (big_dir, &error);
  g_assert_null (manifest);
  assert_message_contains (error, "larger than");
  g_clear_error (&error);

  zot_test_remove_tree (tmp);
}

/* --- exec resolution ----------------------------------------------------- */

static char *
resolve (const char  *dir,
         GError     **error)
{
  g_autoptr(ZotManifest) manifest = load_ok (dir);

  return zot_manifest_resolve_exec (manifest, error);
}

static void
test_manifest_exec_absolute (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *program = g_build_filename (tmp, "bin", "prog", NULL);
  g_autofree char *json = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *resolved = NULL;
  g_autoptr(GError) error = NULL;

  write_file (program, "#!/bin/sh\nexit 0\n", 0755);
  json = g_strdup_printf ("{\"name\":\"abs\",\"exec\":\"%s\"}", program);
  dir = make_extension (tmp, "abs", json);

  resolved = resolve (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resolved, ==, program);

  zot_test_remove_tree (tmp);
}

static void
test_manifest_exec_relative (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dot = make_extension (tmp, "dot", "{\"name\":\"dot\",\"exec\":\"./run.sh\"}");
  g_autofree char *sub = make_extension (tmp, "sub", "{\"name\":\"sub\",\"exec\":\"sub/run.sh\"}");
  g_autofree char *up = make_extension (tmp, "up", "{\"name\":\"up\",\"exec\":\"../shared/run.sh\"}");
  g_autofree char *dot_program = g_build_filename (dot, "run.sh", NULL);
  g_autofree char *sub_program = g_build_filename (sub, "sub", "run.sh", NULL);
  g_autofree char *shared_program = g_build_filename (tmp, "shared", "run.sh", NULL);
  g_autofree char *old_cwd = g_get_current_dir ();
  g_autoptr(GError) error = NULL;
  char *resolved;

  write_file (dot_program, "#!/bin/sh\n", 0755);
  write_file (sub_program, "#!/bin/sh\n", 0755);
  write_file (shared_program, "#!/bin/sh\n", 0755);

  /* Relative to the extension directory, not to the process's cwd. */
  g_assert_cmpint (chdir ("/"), ==, 0);

  resolved = resolve (dot, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resolved, ==, dot_program);
  g_free (resolved);

  resolved = resolve (sub, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resolved, ==, sub_program);
  g_free (resolved);

  resolved = resolve (up, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resolved, ==, shared_program);
  g_free (resolved);

  g_assert_cmpint (chdir (old_cwd), ==, 0);
  zot_test_remove_tree (tmp);
}

static void
test_manifest_exec_path (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "bare", "{\"name\":\"bare\",\"exec\":\"sh\"}");
  g_autofree char *expected = g_find_program_in_path ("sh");
  g_autofree char *resolved = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (expected);
  resolved = resolve (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resolved, ==, expected);
  g_assert_true (g_path_is_absolute (resolved));

  zot_test_remove_tree (tmp);
}

static void
test_manifest_exec_not_in_path (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "nope",
                                         "{\"name\":\"nope\",\"exec\":\"zot-test-no-such-program\"}");
  g_autofree char *local = g_build_filename (dir, "zot-test-no-such-program", NULL);
  g_autofree char *resolved = NULL;
  g_autoptr(GError) error = NULL;

  /* A bare name is looked up in $PATH only, even if the extension
   * directory holds a program of that name. */
  write_file (local, "#!/bin/sh\n", 0755);

  resolved = resolve (dir, &error);
  g_assert_null (resolved);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC);
  assert_message_contains (error, "PATH");
  assert_message_contains (error, "zot-test-no-such-program");

  zot_test_remove_tree (tmp);
}

static void
test_manifest_exec_not_executable (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "noexec", "{\"name\":\"noexec\",\"exec\":\"./run.sh\"}");
  g_autofree char *program = g_build_filename (dir, "run.sh", NULL);
  g_autofree char *resolved = NULL;
  g_autoptr(GError) error = NULL;

  write_file (program, "#!/bin/sh\n", 0644);

  resolved = resolve (dir, &error);
  g_assert_null (resolved);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC);
  assert_message_contains (error, "chmod");
  assert_message_contains (error, program);

  zot_test_remove_tree (tmp);
}

static void
test_manifest_exec_missing (void)
{
  g_autofree char *tmp = make_tmp ();
  g_autofree char *dir = make_extension (tmp, "gone", "{\"name\":\"gone\",\"exec\":\"./missing.sh\"}");
  g_autofree char *subdir = make_extension (tmp, "isdir", "{\"name\":\"isdir\",\"exec\":\"./sub\"}");
  g_autofree char *sub = g_build_filename (subdir, "sub", NULL);
  g_autofree char *resolved = NULL;
  g_autoptr(GError) error = NULL;

  resolved = resolve (dir, &error);
  g_assert_null (resolved);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC);
  assert_message_contains (error, "./missing.sh");
  g_clear_error (&error);

  /* A directory is not a program, executable bit or not. */
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  resolved = resolve (subdir, &error);
  g_assert_null (resolved);
  g_assert_error (error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_EXEC);

  zot_test_remove_tree (tmp);
}

/* --- discovery ----------------------------------------------------------- */

typedef struct
{
  char *tmp;
  char *cwd;       /* the project */
  char *project;   /* <cwd>/.zot/extensions */
  char *home;      /* $ZOT_HOME */
  char *user;      /* $ZOT_HOME/extensions */
  char *elsewhere; /* for explicit paths */
} DiscoveryFixture;

static void
discovery_setup (DiscoveryFixture *f,
                 gconstpointer     data G_GNUC_UNUSED)
{
  f->tmp = make_tmp ();
  f->cwd = g_build_filename (f->tmp, "project", NULL);
  f->project = g_build_filename (f->cwd, ".zot", "extensions", NULL);
  f->home = g_build_filename (f->tmp, "home", NULL);
  f->user = g_build_filename (f->home, "extensions", NULL);
  f->elsewhere = g_build_filename (f->tmp, "elsewhere", NULL);

  g_assert_cmpint (g_mkdir_with_parents (f->project, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (f->user, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (f->elsewhere, 0755), ==, 0);

  g_assert_true (g_setenv ("ZOT_HOME", f->home, TRUE));
}

static void
discovery_teardown (DiscoveryFixture *f,
                    gconstpointer     data G_GNUC_UNUSED)
{
  g_unsetenv ("ZOT_HOME");
  zot_test_remove_tree (f->tmp);
  g_free (f->tmp);
  g_free (f->cwd);
  g_free (f->project);
  g_free (f->home);
  g_free (f->user);
  g_free (f->elsewhere);
}

static ZotDiscovered *
entry (GPtrArray *order,
       guint      index)
{
  g_assert_cmpuint (index, <, order->len);
  return g_ptr_array_index (order, index);
}

static const char *
entry_name (GPtrArray *order,
            guint      index)
{
  ZotDiscovered *discovered = entry (order, index);

  g_assert_no_error (discovered->error);
  g_assert_nonnull (discovered->manifest);
  return zot_manifest_get_name (discovered->manifest);
}

static void
log_order (GPtrArray *order)
{
  for (guint i = 0; i < order->len; i++)
    {
      ZotDiscovered *d = g_ptr_array_index (order, i);

      g_test_message ("%u: %s %s %s", i, zot_extension_scope_to_string (d->scope), d->directory,
                      d->manifest ? zot_manifest_get_name (d->manifest) : d->error->message);
    }
}

static void
test_discovery_order (DiscoveryFixture *f,
                      gconstpointer     data G_GNUC_UNUSED)
{
  g_autofree char *e2 = make_named_extension (f->elsewhere, "e2", "explicit-two");
  g_autofree char *e1 = make_named_extension (f->elsewhere, "e1", "explicit-one");
  g_autofree char *pb = make_named_extension (f->project, "b-dir", "project-b");
  g_autofree char *pc = make_named_extension (f->project, "c-dir", "project-c");
  g_autofree char *pa = make_named_extension (f->project, "a-dir", "project-a");
  g_autofree char *uz = make_named_extension (f->user, "z-dir", "user-z");
  g_autofree char *uy = make_named_extension (f->user, "Y-dir", "user-Y");
  g_autofree char *ux = make_named_extension (f->user, "x-dir", "user-x");
  const char *explicit_paths[] = { e2, e1, NULL };
  g_autoptr(GPtrArray) order = NULL;
  static const struct {
    const char        *name;
    ZotExtensionScope  scope;
  } expected[] = {
    { "explicit-two", ZOT_EXTENSION_SCOPE_EXPLICIT },
    { "explicit-one", ZOT_EXTENSION_SCOPE_EXPLICIT },
    { "project-a",    ZOT_EXTENSION_SCOPE_PROJECT },
    { "project-b",    ZOT_EXTENSION_SCOPE_PROJECT },
    { "project-c",    ZOT_EXTENSION_SCOPE_PROJECT },
    { "user-Y",       ZOT_EXTENSION_SCOPE_USER },
    { "user-x",       ZOT_EXTENSION_SCOPE_USER },
    { "user-z",       ZOT_EXTENSION_SCOPE_USER },
  };

  order = zot_discover_extensions (f->cwd, explicit_paths, FALSE);
  log_order (order);

  g_assert_cmpuint (order->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_cmpstr (entry_name (order, i), ==, expected[i].name);
      g_assert_cmpint (entry (order, i)->scope, ==, expected[i].scope);
      g_assert_true (g_path_is_absolute (entry (order, i)->directory));
    }
  g_assert_cmpstr (entry (order, 0)->directory, ==, e2);
  g_assert_cmpstr (entry (order, 2)->directory, ==, pa);
  g_assert_cmpstr (entry (order, 7)->directory, ==, uz);
}

static void
test_discovery_shadowing (DiscoveryFixture *f,
                          gconstpointer     data G_GNUC_UNUSED)
{
  g_autofree char *user_weather = make_named_extension (f->user, "a-weather", "weather");
  g_autofree char *user_only = make_named_extension (f->user, "b-only", "user-only");
  g_autofree char *project_weather = make_named_extension (f->project, "z-weather", "weather");
  g_autofree char *project_tools = make_named_extension (f->project, "tools", "tools");
  g_autofree char *user_tools = make_named_extension (f->user, "tools", "tools");
  g_autofree char *explicit_tools = make_named_extension (f->elsewhere, "my-tools", "tools");
  const char *explicit_paths[] = { explicit_tools, NULL };
  g_autoptr(GPtrArray) order = NULL;

  /* Project beats user, whatever the directory names sort to. */
  order = zot_discover_extensions (f->cwd, NULL, FALSE);
  log_order (order);
  g_assert_cmpuint (order->len, ==, 3);
  g_assert_cmpstr (entry_name (order, 0), ==, "tools");
  g_assert_cmpstr (entry (order, 0)->directory, ==, project_tools);
  g_assert_cmpstr (entry_name (order, 1), ==, "weather");
  g_assert_cmpstr (entry (order, 1)->directory, ==, project_weather);
  g_assert_cmpint (entry (order, 1)->scope, ==, ZOT_EXTENSION_SCOPE_PROJECT);
  g_assert_cmpstr (entry_name (order, 2), ==, "user-only");
  g_clear_pointer (&order, g_ptr_array_unref);

  /* Explicit beats both. */
  order = zot_discover_extensions (f->cwd, explicit_paths, FALSE);
  log_order (order);
  g_assert_cmpuint (order->len, ==, 3);
  g_assert_cmpstr (entry_name (order, 0), ==, "tools");
  g_assert_cmpstr (entry (order, 0)->directory, ==, explicit_tools);
  g_assert_cmpint (entry (order, 0)->scope, ==, ZOT_EXTENSION_SCOPE_EXPLICIT);
  g_assert_cmpstr (entry_name (order, 1), ==, "weather");
  g_assert_cmpstr (entry_name (order, 2), ==, "user-only");
  for (guint i = 0; i < order->len; i++)
    {
      g_assert_cmpstr (entry (order, i)->directory, !=, project_tools);
      g_assert_cmpstr (entry (order, i)->directory, !=, user_tools);
      g_assert_cmpstr (entry (order, i)->directory, !=, user_weather);
    }
}

static void
test_discovery_no_ext (DiscoveryFixture *f,
                       gconstpointer     data G_GNUC_UNUSED)
{
  g_autofree char *p = make_named_extension (f->project, "p", "project-one");
  g_autofree char *u = make_named_extension (f->user, "u", "user-one");
  g_autofree char *e = make_named_extension (f->elsewhere, "e", "explicit-one");
  const char *explicit_paths[] = { e, NULL };
  g_autoptr(GPtrArray) order = NULL;

  order = zot_discover_extensions (f->cwd, explicit_paths, TRUE);
  log_order (order);
  g_assert_cmpuint (order->len, ==, 1);
  g_assert_cmpstr (entry_name (order, 0), ==, "explicit-one");
  g_assert_cmpint (entry (order, 0)->scope, ==, ZOT_EXTENSION_SCOPE_EXPLICIT);
  g_clear_pointer (&order, g_ptr_array_unref);

  order = zot_discover_extensions (f->cwd, NULL, TRUE);
  g_assert_cmpuint (order->len, ==, 0);
}

static void
test_discovery_explicit_forms (DiscoveryFixture *f,
                               gconstpointer     data G_GNUC_UNUSED)
{
  g_autofree char *by_file_dir = make_named_extension (f->elsewhere, "by-file", "by-file");
  g_autofree char *by_file = g_build_filename (by_file_dir, ZOT_MANIFEST_FILENAME, NULL);
  g_autofree char *relative_dir = make_named_extension (f->cwd, "tools/rel", "relative");
  g_autofree char *trailing_dir = make_named_extension (f->elsewhere, "trailing", "trailing");
  g_autofree char *trailing = g_strconcat (trailing_dir, "/", NULL);
  const char *explicit_paths[] = { by_file, "tools/rel", trailing, NULL };
  g_autoptr(GPtrArray) order = NULL;

  order = zot_discover_extensions (f->cwd, explicit_paths, TRUE);
  log_order (order);
  g_assert_cmpuint (order->len, ==, 3);

  /* The manifest file itself stands for its directory. */
  g_assert_cmpstr (entry_name (order, 0), ==, "by-file");
  g_assert_cmpstr (entry (order, 0)->directory, ==, by_file_dir);
  g_assert_cmpstr (zot_manifest_get_directory (entry (order, 0)->manifest), ==, by_file_dir);

  /* A relative path is taken relative to the given cwd. */
  g_assert_cmpstr (entry_name (order, 1), ==, "relative");
  g_assert_cmpstr (entry (order, 1)->directory, ==, relative_dir);

  g_assert_cmpstr (entry_name (order, 2), ==, "trailing");
  g_assert_cmpstr (entry (order, 2)->directory, ==, trailing_dir);
}

static void
test_discovery_broken (DiscoveryFixture *f,
                       gconstpointer     data G_GNUC_UNUSED)
{
  /* Sorted first, and named like the good ones after them. */
  g_autofree char *no_exec = make_extension (f->project, "a-no-exec", "{\"name\":\"shared\"}");
  g_autofree char *not_json = make_extension (f->project, "b-not-json", "{\"name\":\"shared\",");
  g_autofree char *no_manifest = g_build_filename (f->project, "c-empty", NULL);
  g_autofree char *good = make_named_extension (f->project, "d-good", "good");
  g_autofree char *shared = make_named_extension (f->user, "shared", "shared");
  g_autofree char *missing = g_build_filename (f->elsewhere, "missing", NULL);
  const char *explicit_paths[] = { missing, NULL };
  g_autoptr(GPtrArray) order = NULL;
  ZotDiscovered *d;

  g_assert_cmpint (g_mkdir (no_manifest, 0755), ==, 0);

  order = zot_discover_extensions (f->cwd, explicit_paths, FALSE);
  log_order (order);
  g_assert_cmpuint (order->len, ==, 6);

  d = entry (order, 0);
  g_assert_cmpstr (d->directory, ==, missing);
  g_assert_cmpint (d->scope, ==, ZOT_EXTENSION_SCOPE_EXPLICIT);
  g_assert_null (d->manifest);
  g_assert_error (d->error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND);

  d = entry (order, 1);
  g_assert_cmpstr (d->directory, ==, no_exec);
  g_assert_null (d->manifest);
  g_assert_error (d->error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_INVALID);

  d = entry (order, 2);
  g_assert_cmpstr (d->directory, ==, not_json);
  g_assert_null (d->manifest);
  g_assert_error (d->error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_PARSE);

  d = entry (order, 3);
  g_assert_cmpstr (d->directory, ==, no_manifest);
  g_assert_null (d->manifest);
  g_assert_error (d->error, ZOT_MANIFEST_ERROR, ZOT_MANIFEST_ERROR_NOT_FOUND);

  g_assert_cmpstr (entry_name (order, 4), ==, "good");

  /* The broken "shared" manifests shadow nothing. */
  g_assert_cmpstr (entry_name (order, 5), ==, "shared");
  g_assert_cmpstr (entry (order, 5)->directory, ==, shared);
  g_assert_cmpint (entry (order, 5)->scope, ==, ZOT_EXTENSION_SCOPE_USER);
}

static void
test_discovery_hidden (DiscoveryFixture *f,
                       gconstpointer     data G_GNUC_UNUSED)
{
  g_autofree char *hidden_project = make_named_extension (f->project, ".foo", "hidden-project");
  g_autofree char *hidden_user = make_named_extension (f->user, ".bar", "hidden-user");
  g_autofree char *visible = make_named_extension (f->user, "visible", "visible");
  g_autofree char *stray_file = g_build_filename (f->project, "README", NULL);
  g_autoptr(GPtrArray) order = NULL;

  /* A plain file among the extensions is not an extension either. */
  write_file (stray_file, "not an extension\n", 0644);

  order = zot_discover_extensions (f->cwd, NULL, FALSE);
  log_order (order);
  g_assert_cmpuint (order->len, ==, 1);
  g_assert_cmpstr (entry_name (order, 0), ==, "visible");
}

static void
test_discovery_missing_dirs (DiscoveryFixture *f,
                             gconstpointer     data G_GNUC_UNUSED)
{
  g_autofree char *nowhere = g_build_filename (f->tmp, "nowhere", NULL);
  g_autofree char *nohome = g_build_filename (f->tmp, "no-home", NULL);
  g_autoptr(GPtrArray) order = NULL;

  g_assert_true (g_setenv ("ZOT_HOME", nohome, TRUE));
  order = zot_discover_extensions (nowhere, NULL, FALSE);
  g_assert_nonnull (order);
  g_assert_cmpuint (order->len, ==, 0);
}

static void
test_discovery_home_is_project (DiscoveryFixture *f,
                                gconstpointer     data G_GNUC_UNUSED)
{
  g_autofree char *zot_dir = g_build_filename (f->cwd, ".zot", NULL);
  g_autofree char *broken = make_extension (f->project, "broken", "{}");
  g_autofree char *ok = make_named_extension (f->project, "ok", "ok");
  g_autoptr(GPtrArray) order = NULL;

  /* $ZOT_HOME/extensions is <cwd>/.zot/extensions: each is listed once. */
  g_assert_true (g_setenv ("ZOT_HOME", zot_dir, TRUE));
  order = zot_discover_extensions (f->cwd, NULL, FALSE);
  log_order (order);
  g_assert_cmpuint (order->len, ==, 2);
  g_assert_cmpstr (entry (order, 0)->directory, ==, broken);
  g_assert_nonnull (entry (order, 0)->error);
  g_assert_cmpstr (entry_name (order, 1), ==, "ok");
  g_assert_cmpint (entry (order, 1)->scope, ==, ZOT_EXTENSION_SCOPE_PROJECT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/zot/manifest/valid", test_manifest_valid);
  g_test_add_func ("/zot/manifest/minimal", test_manifest_minimal);
  g_test_add_func ("/zot/manifest/missing-exec", test_manifest_missing_exec);
  g_test_add_func ("/zot/manifest/missing-name", test_manifest_missing_name);
  g_test_add_func ("/zot/manifest/watch-fields", test_manifest_watch_fields);
  g_test_add_func ("/zot/manifest/bad-name", test_manifest_bad_name);
  g_test_add_func ("/zot/manifest/not-json", test_manifest_not_json);
  g_test_add_func ("/zot/manifest/top-level-array", test_manifest_top_level_array);
  g_test_add_func ("/zot/manifest/args-invalid", test_manifest_args_invalid);
  g_test_add_func ("/zot/manifest/enabled-not-bool", test_manifest_enabled_not_bool);
  g_test_add_func ("/zot/manifest/enabled-false", test_manifest_enabled_false);
  g_test_add_func ("/zot/manifest/optional-wrong-type", test_manifest_optional_wrong_type);
  g_test_add_func ("/zot/manifest/missing-file", test_manifest_missing_file);
  g_test_add_func ("/zot/manifest/intercept-failure", test_manifest_intercept_failure);
  g_test_add_func ("/zot/manifest/not-regular", test_manifest_not_regular);
  g_test_add_func ("/zot/manifest/exec-absolute", test_manifest_exec_absolute);
  g_test_add_func ("/zot/manifest/exec-relative", test_manifest_exec_relative);
  g_test_add_func ("/zot/manifest/exec-path", test_manifest_exec_path);
  g_test_add_func ("/zot/manifest/exec-not-in-path", test_manifest_exec_not_in_path);
  g_test_add_func ("/zot/manifest/exec-not-executable", test_manifest_exec_not_executable);
  g_test_add_func ("/zot/manifest/exec-missing", test_manifest_exec_missing);

#define ADD_DISCOVERY(path, func) \
  g_test_add (path, DiscoveryFixture, NULL, discovery_setup, func, discovery_teardown)

  ADD_DISCOVERY ("/zot/discovery/order", test_discovery_order);
  ADD_DISCOVERY ("/zot/discovery/shadowing", test_discovery_shadowing);
  ADD_DISCOVERY ("/zot/discovery/no-ext", test_discovery_no_ext);
  ADD_DISCOVERY ("/zot/discovery/explicit-forms", test_discovery_explicit_forms);
  ADD_DISCOVERY ("/zot/discovery/broken", test_discovery_broken);
  ADD_DISCOVERY ("/zot/discovery/hidden", test_discovery_hidden);
  ADD_DISCOVERY ("/zot/discovery/missing-dirs", test_discovery_missing_dirs);
  ADD_DISCOVERY ("/zot/discovery/home-is-project", test_discovery_home_is_project);

#undef ADD_DISCOVERY

  return g_test_run ();
}
