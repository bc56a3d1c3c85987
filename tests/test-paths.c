/* test-paths.c — zot_remove_tree(): the one recursive delete, shared by the
 * installer and the install dialog. It must never follow a symbolic link
 * out of the tree, must get through read-only folders, and stops at a
 * bounded depth. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "zot-paths.h"

typedef struct
{
  char *tmp;
  char *tree;     /* what is deleted */
  char *outside;  /* what links point at, and must survive */
} Fixture;

static void
write_file (const char *path)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, "x", -1, &error);
  g_assert_no_error (error);
}

static char *
make_dir (const char *parent,
          const char *name)
{
  char *path = g_build_filename (parent, name, NULL);

  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  return path;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *kept = NULL;

  f->tmp = g_dir_make_tmp ("zot-paths-XXXXXX", &error);
  g_assert_no_error (error);
  f->tree = make_dir (f->tmp, "tree");
  f->outside = make_dir (f->tmp, "outside");
  kept = g_build_filename (f->outside, "kept", NULL);
  write_file (kept);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_remove_tree (f->tmp, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (f->tmp, G_FILE_TEST_EXISTS));
  g_clear_pointer (&f->tmp, g_free);
  g_clear_pointer (&f->tree, g_free);
  g_clear_pointer (&f->outside, g_free);
}

static void
assert_outside_intact (Fixture *f)
{
  g_autofree char *kept = g_build_filename (f->outside, "kept", NULL);

  g_assert_true (g_file_test (f->outside, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
}

static void
test_remove_nested (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *a = make_dir (f->tree, "a");
  g_autofree char *b = make_dir (a, "b");
  g_autofree char *locked = make_dir (f->tree, "locked");
  g_autofree char *file = g_build_filename (b, "file", NULL);
  g_autofree char *inner = g_build_filename (locked, "inner", NULL);
  g_autofree char *readonly = g_build_filename (f->tree, "read-only", NULL);

  write_file (file);
  write_file (inner);
  write_file (readonly);
  g_chmod (readonly, 0400);
  /* Neither readable nor writable: the delete must open it up first. */
  g_chmod (locked, 0);

  g_assert_true (zot_remove_tree (f->tree, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (f->tree, G_FILE_TEST_EXISTS));
}

/* "tree/" names the folder tree, not something inside it. */
static void
test_remove_trailing_slash (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *file = g_build_filename (f->tree, "file", NULL);
  g_autofree char *slashed = g_strconcat (f->tree, "//", NULL);

  write_file (file);
  g_assert_true (zot_remove_tree (slashed, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (f->tree, G_FILE_TEST_EXISTS));
}

static void
test_remove_file (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *file = g_build_filename (f->tree, "file", NULL);

  write_file (file);
  g_assert_true (zot_remove_tree (file, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (f->tree, G_FILE_TEST_IS_DIR));
}

static void
test_remove_missing (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename (f->tree, "missing", NULL);
  g_autofree char *below = g_build_filename (f->tree, "missing", "below", NULL);

  g_assert_true (zot_remove_tree (missing, &error));
  g_assert_no_error (error);
  g_assert_true (zot_remove_tree (below, &error));
  g_assert_no_error (error);
}

/* Links inside the tree, to a folder and to a file outside it, go; what
 * they point at stays. */
static void
test_remove_links_inside (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *a = make_dir (f->tree, "a");
  g_autofree char *to_dir = g_build_filename (f->tree, "to-dir", NULL);
  g_autofree char *to_file = g_build_filename (a, "to-file", NULL);
  g_autofree char *kept = g_build_filename (f->outside, "kept", NULL);
  g_autofree char *dangling = g_build_filename (a, "dangling", NULL);

  g_assert_cmpint (symlink (f->outside, to_dir), ==, 0);
  g_assert_cmpint (symlink (kept, to_file), ==, 0);
  g_assert_cmpint (symlink ("/nonexistent/zot", dangling), ==, 0);
  /* A read-only target would be opened up if the delete went in. */
  g_chmod (f->outside, 0500);

  g_assert_true (zot_remove_tree (f->tree, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (f->tree, G_FILE_TEST_EXISTS));

  assert_outside_intact (f);
  {
    GStatBuf st;

    g_assert_cmpint (g_stat (f->outside, &st), ==, 0);
    g_assert_cmpint (st.st_mode & 07777, ==, 0500);
  }
  g_chmod (f->outside, 0755);
}

/* The path itself a link: the link goes, its target stays whole. */
static void
test_remove_link_itself (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *link = g_build_filename (f->tree, "link", NULL);

  g_assert_cmpint (symlink (f->outside, link), ==, 0);

  g_assert_true (zot_remove_tree (link, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  assert_outside_intact (f);
}

/* Returns the deepest of @levels folders made one in the other under
 * @parent, and the first of them in @first. */
static char *
make_chain (const char  *parent,
            guint        levels,
            char       **first)
{
  char *path = g_strdup (parent);

  for (guint i = 0; i < levels; i++)
    {
      char *next = make_dir (path, "d");

      g_free (path);
      path = next;
      if (i == 0)
        *first = g_strdup (path);
    }

  return path;
}

static void
test_remove_depth_bound (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *first = NULL;
  g_autofree char *deepest = NULL;
  g_autofree char *sibling = g_build_filename (f->tree, "sibling", NULL);

  /* As deep as allowed: gone. */
  deepest = make_chain (f->tree, ZOT_REMOVE_TREE_MAX_DEPTH, &first);
  g_assert_true (zot_remove_tree (f->tree, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (f->tree, G_FILE_TEST_EXISTS));
  g_clear_pointer (&first, g_free);
  g_clear_pointer (&deepest, g_free);

  /* One deeper: refused down there, and the rest of the tree still goes. */
  g_assert_cmpint (g_mkdir (f->tree, 0755), ==, 0);
  write_file (sibling);
  deepest = make_chain (f->tree, ZOT_REMOVE_TREE_MAX_DEPTH + 1, &first);
  g_assert_false (zot_remove_tree (f->tree, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, deepest));
  g_assert_true (g_file_test (deepest, G_FILE_TEST_IS_DIR));
  g_assert_false (g_file_test (sibling, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* From one level down, the same chain is within reach. */
  g_assert_true (zot_remove_tree (first, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (first, G_FILE_TEST_EXISTS));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/zot/paths/remove-tree/nested", test_remove_nested);
  ADD ("/zot/paths/remove-tree/trailing-slash", test_remove_trailing_slash);
  ADD ("/zot/paths/remove-tree/file", test_remove_file);
  ADD ("/zot/paths/remove-tree/missing", test_remove_missing);
  ADD ("/zot/paths/remove-tree/links-inside", test_remove_links_inside);
  ADD ("/zot/paths/remove-tree/link-itself", test_remove_link_itself);
  ADD ("/zot/paths/remove-tree/depth-bound", test_remove_depth_bound);

#undef ADD

  return g_test_run ();
}
