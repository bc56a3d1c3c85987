/* test-archive.c — unpacking extension archives: what is refused, the caps
 * at their edges, a 200 MB expansion bomb, and installing a good archive
 * through the installer. Archives are written by libarchive itself. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gstdio.h>

#include "zot-archive.h"
#include "zot-installer.h"
#include "zot-limits.h"
#include "zot-test-util.h"

#define ZEROS_BLOCK ((gsize) 1024 * 1024)

typedef struct
{
  ZotTestEnv  env;
  char       *dest;      /* an empty directory to unpack into */
  char       *outside;   /* a sibling an attack would reach */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->dest = g_build_filename (f->env.root, "dest", "inner", NULL);
  f->outside = g_build_filename (f->env.root, "dest", "outside", NULL);
  g_assert_cmpint (g_mkdir_with_parents (f->dest, 0755), ==, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_pointer (&f->dest, g_free);
  g_clear_pointer (&f->outside, g_free);
  zot_test_env_teardown (&f->env);
}

/* Writing archives */

static struct archive *
writer_open (Fixture    *f,
             const char *name,
             int         format,
             int         filter,
             char      **path)
{
  struct archive *a = archive_write_new ();

  g_assert_cmpint (archive_write_set_format (a, format), ==, ARCHIVE_OK);
  g_assert_cmpint (archive_write_add_filter (a, filter), ==, ARCHIVE_OK);
  /* Zeros by the hundred megabytes: the fastest gzip is plenty. */
  if (filter == ARCHIVE_FILTER_GZIP)
    g_assert_cmpint (archive_write_set_filter_option (a, "gzip", "compression-level", "1"),
                     ==, ARCHIVE_OK);
  *path = g_build_filename (f->env.root, name, NULL);
  g_assert_cmpint (archive_write_open_filename (a, *path), ==, ARCHIVE_OK);
  return a;
}

static void
writer_close (struct archive *a)
{
  g_assert_cmpint (archive_write_close (a), ==, ARCHIVE_OK);
  archive_write_free (a);
}

static struct archive_entry *
entry_new (const char *name,
           mode_t      type,
           mode_t      perm)
{
  struct archive_entry *entry = archive_entry_new ();

  archive_entry_set_pathname (entry, name);
  archive_entry_set_filetype (entry, type);
  archive_entry_set_perm (entry, perm);
  archive_entry_set_mtime (entry, 1700000000, 0);
  return entry;
}

static void
add_entry (struct archive       *a,
           struct archive_entry *entry)
{
  g_assert_cmpint (archive_write_header (a, entry), ==, ARCHIVE_OK);
  archive_entry_free (entry);
}

static void
add_dir (struct archive *a,
         const char     *name)
{
  add_entry (a, entry_new (name, AE_IFDIR, 0755));
}

static void
add_file (struct archive *a,
          const char     *name,
          const char     *contents,
          mode_t          perm)
{
  struct archive_entry *entry = entry_new (name, AE_IFREG, perm);
  gsize length = strlen (contents);

  archive_entry_set_size (entry, (la_int64_t) length);
  g_assert_cmpint (archive_write_header (a, entry), ==, ARCHIVE_OK);
  g_assert_cmpint (archive_write_data (a, contents, length), ==, (la_ssize_t) length);
  archive_entry_free (entry);
}

/* @size zero bytes, written in blocks. */
static void
add_zeros (struct archive *a,
           const char     *name,
           guint64         size)
{
  struct archive_entry *entry = entry_new (name, AE_IFREG, 0644);
  g_autofree char *zeros = g_malloc0 (ZEROS_BLOCK);

  archive_entry_set_size (entry, (la_int64_t) size);
  g_assert_cmpint (archive_write_header (a, entry), ==, ARCHIVE_OK);
  while (size > 0)
    {
      gsize n = (gsize) MIN (size, ZEROS_BLOCK);

      g_assert_cmpint (archive_write_data (a, zeros, n), ==, (la_ssize_t) n);
      size -= n;
    }
  archive_entry_free (entry);
}

static void
add_symlink (struct archive *a,
             const char     *name,
             const char     *target)
{
  struct archive_entry *entry = entry_new (name, AE_IFLNK, 0777);

  archive_entry_set_symlink (entry, target);
  add_entry (a, entry);
}

static void
add_hardlink (struct archive *a,
              const char     *name,
              const char     *target)
{
  struct archive_entry *entry = entry_new (name, AE_IFREG, 0644);

  archive_entry_set_hardlink (entry, target);
  archive_entry_set_size (entry, 0);
  add_entry (a, entry);
}

static void
add_good_extension (struct archive *a,
                    const char     *top)
{
  g_autofree char *manifest = g_strconcat (top, "extension.json", NULL);
  g_autofree char *bin = g_strconcat (top, "bin", NULL);
  g_autofree char *run = g_strconcat (top, "bin/run", NULL);
  g_autofree char *link = g_strconcat (top, "run-link", NULL);
  g_autofree char *hard = g_strconcat (top, "bin/run-again", NULL);

  if (*top != '\0')
    add_dir (a, top);
  add_file (a, manifest, "{\"name\":\"packed\",\"exec\":\"./bin/run\",\"version\":\"1.2.3\"}\n", 0644);
  add_dir (a, bin);
  add_file (a, run, "#!/bin/sh\nexit 0\n", 0755);
  add_symlink (a, link, "bin/run");
  add_hardlink (a, hard, run);
}

/* Unpacks @archive into the fixture's directory, expecting @code (or
 * success for -1), and returns the message. */
static char *
extract (Fixture    *f,
         const char *archive,
         int         code)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = zot_archive_extract (archive, "evil.tar", f->dest, NULL, &error);

  if (code < 0)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
      return NULL;
    }

  g_assert_false (ok);
  g_assert_error (error, ZOT_ARCHIVE_ERROR, code);
  /* One line, naming the archive. */
  g_assert_null (strchr (error->message, '\n'));
  g_assert_true (g_str_has_prefix (error->message, "evil.tar"));
  return g_strdup (error->message);
}

/* A good archive */

static void
test_good (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *archive = NULL;
  g_autofree char *top = NULL;
  g_autofree char *run = NULL;
  g_autofree char *link = NULL;
  g_autofree char *again = NULL;
  g_autoptr(GError) error = NULL;
  struct archive *a = writer_open (f, "good.tar.gz", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_GZIP, &archive);
  GStatBuf st, st_again;

  add_good_extension (a, "packed/");
  writer_close (a);

  g_assert_null (extract (f, archive, -1));
  top = zot_archive_find_extension_dir (f->dest, "good.tar.gz", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (top, "/inner/packed"));

  run = g_build_filename (top, "bin", "run", NULL);
  g_assert_true (g_file_test (run, G_FILE_TEST_IS_EXECUTABLE));
  link = g_build_filename (top, "run-link", NULL);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  again = g_build_filename (top, "bin", "run-again", NULL);
  g_assert_cmpint (g_stat (run, &st), ==, 0);
  g_assert_cmpint (g_stat (again, &st_again), ==, 0);
  g_assert_cmpuint (st.st_ino, ==, st_again.st_ino);
}

/* The format comes from the content: a zip called .txt unpacks, and text
 * called .tar.gz is no archive. */
static void
test_content_type (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *zip = NULL;
  g_autofree char *fake = g_build_filename (f->env.root, "fake.tar.gz", NULL);
  g_autofree char *manifest = g_build_filename (f->dest, "extension.json", NULL);
  g_autoptr(GError) error = NULL;
  struct archive *a = writer_open (f, "notes.txt", ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, &zip);

  add_file (a, "extension.json", "{\"name\":\"zipped\",\"exec\":\"true\"}\n", 0644);
  writer_close (a);

  g_assert_null (extract (f, zip, -1));
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));

  g_assert_true (g_file_set_contents (fake, "{\"name\": \"not an archive\"}\n", -1, NULL));
  g_assert_false (zot_archive_extract (fake, "fake.tar.gz", f->dest, NULL, &error));
  g_assert_error (error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_NOT_ARCHIVE);
  g_assert_nonnull (strstr (error->message, "not an archive"));
}

/* Hostile entries, one kind each */

static void
test_absolute (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *archive = NULL;
  g_autofree char *message = NULL;
  g_autofree char *target = g_build_filename (f->outside, "evil", NULL);
  struct archive *a = writer_open (f, "abs.tar", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_NONE, &archive);

  add_file (a, "extension.json", "{}", 0644);
  add_file (a, target, "owned", 0644);
  writer_close (a);

  message = extract (f, archive, ZOT_ARCHIVE_ERROR_UNSAFE_PATH);
  g_assert_nonnull (strstr (message, target));
  g_assert_nonnull (strstr (message, "absolute path"));
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

static void
test_dotdot (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *archive = NULL;
  g_autofree char *message = NULL;
  g_autofree char *target = g_build_filename (f->outside, "evil", NULL);
  struct archive *a = writer_open (f, "dotdot.tar", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_NONE, &archive);

  add_dir (a, "pkg/");
  add_file (a, "pkg/../../outside/evil", "owned", 0644);
  writer_close (a);

  message = extract (f, archive, ZOT_ARCHIVE_ERROR_UNSAFE_PATH);
  g_assert_nonnull (strstr (message, "\"pkg/../../outside/evil\""));
  g_assert_nonnull (strstr (message, ".."));
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

static void
test_symlink_outside (Fixture       *f,
                      gconstpointer  data)
{
  static const char * const targets[] = { "../../outside", "/etc/passwd", "a/../../..", "" };

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *name = g_strdup_printf ("link%u.tar", i);
      g_autofree char *archive = NULL;
      g_autofree char *message = NULL;
      struct archive *a = writer_open (f, name, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                       ARCHIVE_FILTER_NONE, &archive);

      add_dir (a, "pkg/");
      add_symlink (a, "pkg/escape", targets[i]);
      writer_close (a);

      message = extract (f, archive, ZOT_ARCHIVE_ERROR_UNSAFE_LINK);
      g_assert_nonnull (strstr (message, "\"pkg/escape\""));
      g_assert_nonnull (strstr (message, "symbolic link"));
    }
}

/* Each link is inside on its own; followed one after the other they lead
 * out: "up" is the top, so "up/.." is above it. */
static void
test_symlink_chain (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *archive = NULL;
  g_autofree char *message = NULL;
  struct archive *a = writer_open (f, "chain.tar", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_NONE, &archive);

  add_symlink (a, "escape", "up/..");
  add_symlink (a, "up", ".");
  writer_close (a);

  message = extract (f, archive, ZOT_ARCHIVE_ERROR_UNSAFE_LINK);
  g_assert_nonnull (strstr (message, "\"escape\""));
  g_assert_nonnull (strstr (message, "through the link \"up\""));
}

/* A link inside the archive, then a file written through it. */
static void
test_write_through_link (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *archive = NULL;
  g_autofree char *message = NULL;
  struct archive *a = writer_open (f, "through.tar", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_NONE, &archive);

  add_dir (a, "real/");
  add_symlink (a, "alias", "real");
  add_file (a, "alias/file", "via the link", 0644);
  writer_close (a);

  message = extract (f, archive, ZOT_ARCHIVE_ERROR_UNSAFE_LINK);
  g_assert_nonnull (strstr (message, "\"alias/file\""));
  g_assert_nonnull (strstr (message, "inside the symbolic link \"alias\""));
}

static void
test_hardlink_outside (Fixture       *f,
                       gconstpointer  data)
{
  static const char * const targets[] = { "../outside/secret", "/etc/passwd", "not-there", "alias" };
  g_autofree char *secret = g_build_filename (f->outside, "secret", NULL);

  g_assert_cmpint (g_mkdir_with_parents (f->outside, 0755), ==, 0);
  g_assert_true (g_file_set_contents (secret, "secret", -1, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *name = g_strdup_printf ("hard%u.tar", i);
      g_autofree char *archive = NULL;
      g_autofree char *message = NULL;
      struct archive *a = writer_open (f, name, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                       ARCHIVE_FILTER_NONE, &archive);

      /* A link to a link would copy it into another directory, where
       * its target means somewhere else. */
      add_symlink (a, "alias", ".");
      add_hardlink (a, "stolen", targets[i]);
      writer_close (a);

      message = extract (f, archive, ZOT_ARCHIVE_ERROR_UNSAFE_LINK);
      g_assert_nonnull (strstr (message, "\"stolen\""));
      g_assert_nonnull (strstr (message, "hard link"));
    }

  /* The file outside kept its one name. */
  {
    GStatBuf st;

    g_assert_cmpint (g_stat (secret, &st), ==, 0);
    g_assert_cmpuint (st.st_nlink, ==, 1);
  }
}

static void
test_special_files (Fixture       *f,
                    gconstpointer  data)
{
  static const struct { mode_t type; const char *word; } kinds[] = {
    { AE_IFCHR, "device" },
    { AE_IFBLK, "device" },
    { AE_IFIFO, "fifo" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree char *name = g_strdup_printf ("special%u.tar", i);
      g_autofree char *archive = NULL;
      g_autofree char *message = NULL;
      struct archive *a = writer_open (f, name, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                       ARCHIVE_FILTER_NONE, &archive);
      struct archive_entry *entry = entry_new ("pkg-node", kinds[i].type, 0666);

      archive_entry_set_rdev (entry, makedev (1, 3));
      add_entry (a, entry);
      writer_close (a);

      message = extract (f, archive, ZOT_ARCHIVE_ERROR_SPECIAL_FILE);
      g_assert_nonnull (strstr (message, "\"pkg-node\""));
      g_assert_nonnull (strstr (message, kinds[i].word));
    }
}

/* tar has no sockets; a 7z keeps the mode, socket bits and all. */
static void
test_socket (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *archive = NULL;
  g_autofree char *message = NULL;
  struct archive *a = writer_open (f, "socket.7z", ARCHIVE_FORMAT_7ZIP, ARCHIVE_FILTER_NONE,
                                   &archive);
  struct archive_entry *entry = entry_new ("pkg-socket", AE_IFSOCK, 0666);

  if (archive_write_header (a, entry) != ARCHIVE_OK)
    {
      archive_entry_free (entry);
      archive_write_free (a);
      g_test_skip ("this libarchive cannot write a socket entry");
      return;
    }
  archive_entry_free (entry);
  writer_close (a);

  message = extract (f, archive, ZOT_ARCHIVE_ERROR_SPECIAL_FILE);
  g_assert_nonnull (strstr (message, "\"pkg-socket\""));
  g_assert_nonnull (strstr (message, "socket"));
}

/* Caps at their edges */

static void
write_many (Fixture    *f,
            const char *name,
            guint       n_entries,
            char      **path)
{
  struct archive *a = writer_open (f, name, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_GZIP, path);

  for (guint i = 0; i < n_entries; i++)
    {
      g_autofree char *entry = g_strdup_printf ("f%05u", i);

      add_file (a, entry, "", 0644);
    }
  writer_close (a);
}

static void
test_entry_count_edge (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *at_cap = NULL;
  g_autofree char *past_cap = NULL;
  g_autofree char *message = NULL;
  g_autofree char *expected = g_strdup_printf ("more than %u entries", ZOT_ARCHIVE_MAX_ENTRIES);
  g_autofree char *other = g_build_filename (f->env.root, "dest", "other", NULL);

  write_many (f, "at-cap.tar.gz", ZOT_ARCHIVE_MAX_ENTRIES, &at_cap);
  g_assert_null (extract (f, at_cap, -1));

  write_many (f, "past-cap.tar.gz", ZOT_ARCHIVE_MAX_ENTRIES + 1, &past_cap);
  g_assert_cmpint (g_mkdir_with_parents (other, 0755), ==, 0);
  g_free (f->dest);
  f->dest = g_steal_pointer (&other);
  message = extract (f, past_cap, ZOT_ARCHIVE_ERROR_TOO_MANY_ENTRIES);
  g_assert_nonnull (strstr (message, expected));
}

static void
test_entry_size_edge (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *at_cap = NULL;
  g_autofree char *past_cap = NULL;
  g_autofree char *message = NULL;
  g_autofree char *unpacked = g_build_filename (f->dest, "big", NULL);
  struct archive *a;
  GStatBuf st;

  a = writer_open (f, "entry-at-cap.tar.gz", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                   ARCHIVE_FILTER_GZIP, &at_cap);
  add_zeros (a, "big", ZOT_ARCHIVE_MAX_ENTRY_BYTES);
  writer_close (a);
  g_assert_null (extract (f, at_cap, -1));
  g_assert_cmpint (g_stat (unpacked, &st), ==, 0);
  g_assert_cmpuint ((guint64) st.st_size, ==, ZOT_ARCHIVE_MAX_ENTRY_BYTES);
  g_assert_cmpint (g_unlink (unpacked), ==, 0);

  a = writer_open (f, "entry-past-cap.tar.gz", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                   ARCHIVE_FILTER_GZIP, &past_cap);
  add_zeros (a, "big", ZOT_ARCHIVE_MAX_ENTRY_BYTES + 1);
  writer_close (a);
  message = extract (f, past_cap, ZOT_ARCHIVE_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (message, "\"big\""));
  g_assert_false (g_file_test (unpacked, G_FILE_TEST_EXISTS));
}

static void
write_total (Fixture    *f,
             const char *name,
             guint64     total,
             char      **path)
{
  struct archive *a = writer_open (f, name, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_GZIP, path);

  for (guint i = 0; total > 0; i++)
    {
      g_autofree char *entry = g_strdup_printf ("part%u", i);
      guint64 size = MIN (total, ZOT_ARCHIVE_MAX_ENTRY_BYTES);

      add_zeros (a, entry, size);
      total -= size;
    }
  writer_close (a);
}

static void
test_total_size_edge (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *at_cap = NULL;
  g_autofree char *past_cap = NULL;
  g_autofree char *message = NULL;
  g_autofree char *other = g_build_filename (f->env.root, "dest", "other", NULL);

  write_total (f, "total-at-cap.tar.gz", ZOT_ARCHIVE_MAX_TOTAL_BYTES, &at_cap);
  g_assert_null (extract (f, at_cap, -1));

  write_total (f, "total-past-cap.tar.gz", ZOT_ARCHIVE_MAX_TOTAL_BYTES + 1, &past_cap);
  g_assert_cmpint (g_mkdir_with_parents (other, 0755), ==, 0);
  g_free (f->dest);
  f->dest = g_steal_pointer (&other);
  message = extract (f, past_cap, ZOT_ARCHIVE_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (message, "in all"));
}

/* 200 MB of zeros in a few hundred kilobytes: refused from its header,
 * before a byte of it is written. */
static void
test_bomb (Fixture       *f,
           gconstpointer  data)
{
  const guint64 bomb_bytes = (guint64) 200 * 1000 * 1000;
  g_autofree char *archive = NULL;
  g_autofree char *message = NULL;
  g_autofree char *unpacked = g_build_filename (f->dest, "pkg", "payload", NULL);
  struct archive *a = writer_open (f, "bomb.tar.gz", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_GZIP, &archive);
  GStatBuf st;

  g_assert_cmpuint (bomb_bytes, >, ZOT_ARCHIVE_MAX_ENTRY_BYTES);
  add_dir (a, "pkg/");
  add_file (a, "pkg/extension.json", "{\"name\":\"bomb\",\"exec\":\"true\"}", 0644);
  add_zeros (a, "pkg/payload", bomb_bytes);
  writer_close (a);

  g_assert_cmpint (g_stat (archive, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 2 * 1024 * 1024);

  message = extract (f, archive, ZOT_ARCHIVE_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (message, "\"pkg/payload\""));
  g_assert_false (g_file_test (unpacked, G_FILE_TEST_EXISTS));
}

/* Through the installer */

typedef struct
{
  gboolean     done;
  ZotManifest *manifest;
  GError      *error;
} Install;

static void
installed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Install *install = user_data;

  install->manifest = zot_installer_install_finish (result, &install->error);
  install->done = TRUE;
}

static void
install (const char *source,
         const char *target,
         Install    *out)
{
  zot_installer_install_async (source, target, FALSE, NULL, installed_cb, out);
  zot_test_wait_for (&out->done, 60000);
}

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (listing != NULL && g_dir_read_name (listing) != NULL)
    n++;
  return n;
}

static void
test_install_archive (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *nested = NULL;
  g_autofree char *flat = NULL;
  g_autofree char *target = g_build_filename (f->env.home, "extensions", NULL);
  g_autofree char *run = g_build_filename (target, "packed", "bin", "run", NULL);
  Install first = { 0 };
  struct archive *a;

  /* Its folder inside the archive, in a 7z with no telling name. */
  a = writer_open (f, "download", ARCHIVE_FORMAT_7ZIP, ARCHIVE_FILTER_NONE, &nested);
  add_good_extension (a, "packed-1.2.3/");
  writer_close (a);

  install (nested, target, &first);
  g_assert_no_error (first.error);
  g_assert_cmpstr (zot_manifest_get_name (first.manifest), ==, "packed");
  g_assert_true (g_file_test (run, G_FILE_TEST_IS_EXECUTABLE));
  /* Nothing staged is left behind. */
  g_assert_cmpuint (count_entries (target), ==, 1);
  g_clear_object (&first.manifest);

  /* At the archive's top, replacing the one installed. */
  a = writer_open (f, "flat.zip", ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, &flat);
  add_good_extension (a, "");
  writer_close (a);
  {
    Install second = { 0 };

    zot_installer_install_async (flat, target, TRUE, NULL, installed_cb, &second);
    zot_test_wait_for (&second.done, 60000);
    g_assert_no_error (second.error);
    g_assert_cmpstr (zot_manifest_get_name (second.manifest), ==, "packed");
    g_assert_cmpuint (count_entries (target), ==, 1);
    g_clear_object (&second.manifest);
  }
}

static void
test_install_hostile (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *archive = NULL;
  g_autofree char *target = g_build_filename (f->env.home, "extensions", NULL);
  g_autofree char *text = g_build_filename (f->env.root, "readme.txt", NULL);
  Install hostile = { 0 };
  Install plain = { 0 };
  struct archive *a = writer_open (f, "hostile.tar.gz", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                                   ARCHIVE_FILTER_GZIP, &archive);

  add_good_extension (a, "packed/");
  add_symlink (a, "packed/escape", "../../../..");
  writer_close (a);

  install (archive, target, &hostile);
  g_assert_error (hostile.error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_UNSAFE_LINK);
  g_assert_true (g_str_has_prefix (hostile.error->message, archive));
  g_assert_null (hostile.manifest);
  /* Rolled back: no staging directory stays. */
  g_assert_cmpuint (count_entries (target), ==, 0);
  g_clear_error (&hostile.error);

  g_assert_true (g_file_set_contents (text, "hello\n", -1, NULL));
  install (text, target, &plain);
  g_assert_error (plain.error, ZOT_ARCHIVE_ERROR, ZOT_ARCHIVE_ERROR_NOT_ARCHIVE);
  g_assert_cmpuint (count_entries (target), ==, 0);
  g_clear_error (&plain.error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/zot/archive/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("good", test_good);
  ADD ("content-type", test_content_type);
  ADD ("refuses/absolute", test_absolute);
  ADD ("refuses/dotdot", test_dotdot);
  ADD ("refuses/symlink-outside", test_symlink_outside);
  ADD ("refuses/symlink-chain", test_symlink_chain);
  ADD ("refuses/write-through-link", test_write_through_link);
  ADD ("refuses/hardlink-outside", test_hardlink_outside);
  ADD ("refuses/special-files", test_special_files);
  ADD ("refuses/socket", test_socket);
  ADD ("caps/entry-count", test_entry_count_edge);
  ADD ("caps/entry-size", test_entry_size_edge);
  ADD ("caps/total-size", test_total_size_edge);
  ADD ("caps/bomb", test_bomb);
  ADD ("install/archive", test_install_archive);
  ADD ("install/hostile", test_install_hostile);

#undef ADD

  return g_test_run ();
}
