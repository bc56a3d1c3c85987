/* zot-session-list.c — where a directory's sessions live, and finding
 * the one `--continue` resumes.
 */
#define G_LOG_DOMAIN "zot-session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "zot-json.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-session.h"
#include "zot-session-private.h"

#define CWD_KEY_MAX_BYTES        120
#define CWD_KEY_HASH_CHARS       12

/* "/work/main" → "-work-main": '/' becomes '-', bytes other than
 * [A-Za-z0-9._+,=@~-] are escaped as %XX, and a key over
 * CWD_KEY_MAX_BYTES keeps its start and ends in a hash of the whole path.
 * "/a/b-c" and "/a-b/c" share a key (and so a directory); the cwd in each
 * header keeps them apart, see zot_session_find_latest(). */
static char *
cwd_key (const char *canonical)
{
  GString *key = g_string_new (NULL);

  for (const char *p = canonical; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '/')
        g_string_append_c (key, '-');
      else if (g_ascii_isalnum (c) || strchr ("._+,=@~-", c) != NULL)
        g_string_append_c (key, c);
      else
        g_string_append_printf (key, "%%%02X", c);
    }

  if (key->len > CWD_KEY_MAX_BYTES)
    {
      g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
      gsize keep = CWD_KEY_MAX_BYTES - 1 - CWD_KEY_HASH_CHARS;

      /* Do not cut an escape in half. */
      if (key->str[keep - 1] == '%')
        keep -= 1;
      else if (key->str[keep - 2] == '%')
        keep -= 2;

      g_string_truncate (key, keep);
      g_string_append_c (key, '-');
      g_string_append_len (key, hash, CWD_KEY_HASH_CHARS);
    }

  return g_string_free (key, FALSE);
}

/**
 * zot_session_get_directory_for_cwd:
 * @cwd: (nullable): a working directory; %NULL for the current one
 *
 * Returns: (transfer full): `$ZOT_HOME/sessions/<cwd-key>`, where the key
 *   is the canonical @cwd (symbolic links resolved) with '/' as '-', bytes
 *   other than `[A-Za-z0-9._+,=@~-]` as `%XX`, and at most 120 bytes
 *   (longer keys keep their start and end in a hash of the path)
 */
char *
zot_session_get_directory_for_cwd (const char *cwd)
{
  g_autofree char *home = zot_paths_get_home ();
  g_autofree char *canonical = zot_paths_canonicalize (cwd);
  g_autofree char *key = cwd_key (canonical);

  return g_build_filename (home, "sessions", key, NULL);
}

/* The cwd in the header of @path, or NULL if it cannot be told. */
static char *
read_header_cwd (const char *path)
{
  g_autoptr(JsonObject) header = NULL;
  char buf[16 * 1024];
  ssize_t n;
  char *nl;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  do
    n = read (fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n <= 0)
    return NULL;

  buf[n] = '\0';
  nl = strchr (buf, '\n');
  if (nl == NULL)
    return NULL;
  *nl = '\0';

  header = zot_json_object_from_string (buf, NULL);
  if (header == NULL ||
      g_strcmp0 (zot_json_get_string (header, "type"), "session") != 0)
    return NULL;

  return g_strdup (zot_json_get_string (header, "cwd"));
}

typedef struct
{
  char            *path;
  struct timespec  mtime;
} Candidate;

static void
candidate_free (gpointer data)
{
  Candidate *candidate = data;

  g_free (candidate->path);
  g_free (candidate);
}

/* Newest first; a tie goes to the greater name (ids sort by time). */
static int
candidate_compare (gconstpointer a,
                   gconstpointer b)
{
  const Candidate *x = *(const Candidate * const *) a;
  const Candidate *y = *(const Candidate * const *) b;

  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec > y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec)
    return x->mtime.tv_nsec > y->mtime.tv_nsec ? -1 : 1;
  return -strcmp (x->path, y->path);
}

/**
 * zot_session_find_latest:
 * @cwd: (nullable): a working directory; %NULL for the current one
 * @error: return location for a #GError
 *
 * Finds the session `--continue` resumes: the non-empty `.jsonl` file of
 * @cwd's directory modified last (ties go to the greater name, ids sort by
 * time), skipping sessions whose header names another cwd that happens to
 * share the key. Fails with %ZOT_SESSION_ERROR_NOT_FOUND when there is none.
 *
 * Returns: (transfer full): the path of the session
 */
char *
zot_session_find_latest (const char  *cwd,
                         GError     **error)
{
  g_autofree char *dir_path = zot_session_get_directory_for_cwd (cwd);
  g_autofree char *canonical = zot_paths_canonicalize (cwd);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (candidate_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      Candidate *candidate;
      struct stat st;

      if (!g_str_has_suffix (name, ".jsonl"))
        continue;

      path = g_build_filename (dir_path, name, NULL);
      if (stat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
        continue;

      candidate = g_new0 (Candidate, 1);
      candidate->path = g_steal_pointer (&path);
      candidate->mtime = st.st_mtim;
      g_ptr_array_add (candidates, candidate);
    }

  g_ptr_array_sort (candidates, candidate_compare);

  for (guint i = 0; i < candidates->len; i++)
    {
      Candidate *candidate = g_ptr_array_index (candidates, i);
      g_autofree char *header_cwd = read_header_cwd (candidate->path);

      /* A header that cannot be read is for zot_session_open() to report. */
      if (header_cwd == NULL || g_str_equal (header_cwd, canonical))
        return g_strdup (candidate->path);
    }

  g_set_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_NOT_FOUND,
               _("no session to continue in %s"), dir_path);
  return NULL;
}
