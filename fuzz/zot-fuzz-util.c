/* zot-fuzz-util.c — what the fuzz targets share. */
#define G_LOG_DOMAIN "zot-fuzz"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "zot-fuzz-util.h"

/* Pipes hold 64 KiB at least; a reader that stopped reading must not
 * block the writer. */
#define MAX_UNREAD (32 * 1024)

static char *tmpdir;
static gboolean verbose;

static GLogWriterOutput
quiet_writer (GLogLevelFlags   log_level,
              const GLogField *fields,
              gsize            n_fields,
              gpointer         user_data)
{
  if ((log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL)) != 0)
    {
      g_log_writer_standard_streams (log_level, fields, n_fields, user_data);
      /* Not GLib's breakpoint trap: libFuzzer saves the input on SIGABRT. */
      abort ();
    }

  if (verbose)
    return g_log_writer_standard_streams (log_level, fields, n_fields, user_data);

  return G_LOG_WRITER_HANDLED;
}

static void
remove_tmpdir (void)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (tmpdir == NULL)
    return;

  dir = g_dir_open (tmpdir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);

      (void) g_unlink (path);
    }
  (void) g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

/* Quiet logs (ZOT_FUZZ_VERBOSE=1 shows them), criticals fatal, no GIO
 * modules, and a $ZOT_HOME that nothing can write to. */
int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  /* Warnings about hostile input are expected; a failed precondition
   * (g_return_if_fail) is a bug, and so a finding. */
  g_unsetenv ("G_DEBUG");
  g_setenv ("GIO_USE_VFS", "local", TRUE);
  g_setenv ("GIO_USE_VOLUME_MONITOR", "unix", TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("ZOT_HOME", "/nonexistent/zot-fuzz-home", TRUE);
  verbose = g_strcmp0 (g_getenv ("ZOT_FUZZ_VERBOSE"), "1") == 0;
  g_log_set_writer_func (quiet_writer, NULL, NULL);
  return 0;
}

/* libFuzzer ends a timed run with _exit(), past atexit(): tools/fuzz.sh
 * points $TMPDIR at a directory of its own, which it removes. */
const char *
zot_fuzz_get_tmpdir (void)
{
  g_autoptr(GError) error = NULL;

  if (tmpdir != NULL)
    return tmpdir;

  /* In memory where there is a tmpfs: loading a session fsyncs the file
   * when it cuts a torn line off. */
  if (g_getenv ("TMPDIR") == NULL && g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR))
    {
      g_autofree char *template = g_strdup ("/dev/shm/zot-fuzz-XXXXXX");

      if (g_mkdtemp (template) != NULL)
        tmpdir = g_steal_pointer (&template);
    }
  if (tmpdir == NULL)
    tmpdir = g_dir_make_tmp ("zot-fuzz-XXXXXX", &error);
  if (tmpdir == NULL)
    g_error ("cannot make a temporary directory: %s", error->message);
  atexit (remove_tmpdir);

  return tmpdir;
}

void
zot_fuzz_assert_utf8 (const char *what,
                      const char *text,
                      gssize      length)
{
  g_autofree char *copy = NULL;
  g_autofree char *shown = NULL;

  if (g_utf8_validate (text, length, NULL))
    return;

  copy = length < 0 ? g_strdup (text) : g_strndup (text, (gsize) length);
  shown = g_strescape (copy, NULL);
  fprintf (stderr, "%s is not valid UTF-8: \"%.200s\"\n", what, shown);
  abort ();
}

void
zot_fuzz_splitter_init (ZotFuzzSplitter *splitter,
                        guint8           seed)
{
  static const gsize max_chunks[] = { 1, 2, 3, 7, 16, 64, 512, 4096 };

  splitter->state = 0x9e3779b9u ^ seed;
  splitter->max_chunk = max_chunks[seed % G_N_ELEMENTS (max_chunks)];
  splitter->n_chunks = 0;
}

gsize
zot_fuzz_splitter_next (ZotFuzzSplitter *splitter,
                        gsize            remaining)
{
  guint32 x = splitter->state;

  if (++splitter->n_chunks >= ZOT_FUZZ_MAX_CHUNKS)
    return remaining;

  /* xorshift32: the same cuts for the same seed, on every machine. */
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  splitter->state = x;

  return MIN (remaining, 1 + (gsize) x % splitter->max_chunk);
}

void
zot_fuzz_drain (GMainContext    *context,
                ZotFuzzDoneFunc  done,
                gpointer         user_data)
{
  while (done == NULL || !done (user_data))
    {
      if (!g_main_context_iteration (context, FALSE))
        break;
    }
}

static gsize
unread_bytes (int fd)
{
  int n = 0;

  if (ioctl (fd, FIONREAD, &n) != 0)
    return 0;
  return (gsize) MAX (n, 0);
}

void
zot_fuzz_feed_pipe (int              fd,
                    const guint8    *data,
                    gsize            size,
                    guint8           seed,
                    GMainContext    *context,
                    ZotFuzzDoneFunc  done,
                    gpointer         user_data)
{
  ZotFuzzSplitter splitter;
  gsize pos = 0;

  zot_fuzz_splitter_init (&splitter, seed);

  while (pos < size && !done (user_data) && unread_bytes (fd) < MAX_UNREAD)
    {
      gsize chunk = zot_fuzz_splitter_next (&splitter, size - pos);

      while (chunk > 0)
        {
          gssize written = write (fd, data + pos, chunk);

          if (written < 0 && errno == EINTR)
            continue;
          if (written < 0)
            g_error ("cannot write to the pipe: %s", g_strerror (errno));
          pos += (gsize) written;
          chunk -= (gsize) written;
        }

      zot_fuzz_drain (context, done, user_data);
    }
}
