#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "zot-message.h"
#include "zot-session.h"
#include "zot-test-util.h"

#define DEADLINE_MS 10000

/* Self-contained on purpose: this test needs nothing of the library but
 * the session, so it can run while the rest of the core is in pieces. */
typedef struct
{
  char *root;
  char *home;
  char *cwd;
} TestEnv;

typedef struct
{
  TestEnv env;
} Fixture;

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* $ZOT_HOME is set once, before any thread exists (setenv() is not
 * thread-safe); each test gets it empty, and a fresh directory of its own. */
static char *test_home;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  fixture->env.root = g_dir_make_tmp ("zot-test-session-XXXXXX", NULL);
  g_assert_nonnull (fixture->env.root);
  fixture->env.home = g_strdup (test_home);
  fixture->env.cwd = g_build_filename (fixture->env.root, "project", NULL);
  g_assert_cmpint (g_mkdir_with_parents (fixture->env.home, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (fixture->env.cwd, 0700), ==, 0);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  remove_tree (fixture->env.root);
  remove_tree (fixture->env.home);
  g_clear_pointer (&fixture->env.root, g_free);
  g_clear_pointer (&fixture->env.home, g_free);
  g_clear_pointer (&fixture->env.cwd, g_free);
}

static gboolean
deadline_cb (gpointer data)
{
  gboolean *expired = data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main context until @check says so; the deadline is a
 * safety net, never what the test waits for. */
static void
wait_until (gboolean (*check) (gpointer),
            gpointer   data,
            guint      timeout_ms)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add (timeout_ms, deadline_cb, &expired);

  while (!check (data) && !expired)
    g_main_context_iteration (NULL, TRUE);

  if (!expired)
    g_source_remove (id);
  if (!check (data))
    g_error ("condition not met within %u ms", timeout_ms);
}

static gboolean
flag_is_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
wait_for (gboolean *flag,
          guint     timeout_ms)
{
  wait_until (flag_is_set, flag, timeout_ms);
}

/* Helpers */

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Wait;

static void
wait_clear (Wait *wait)
{
  g_clear_error (&wait->error);
  wait->done = FALSE;
  wait->ok = FALSE;
}

static void
append_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = zot_session_append_finish (ZOT_SESSION (object), result, &wait->error);
  wait->done = TRUE;
}

static void
flush_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = zot_session_flush_finish (ZOT_SESSION (object), result, &wait->error);
  wait->done = TRUE;
}

/* Appends and waits; returns the error, if any. */
static GError *
append_message (ZotSession *session,
                JsonObject *message)
{
  Wait wait = { 0 };

  zot_session_append_message_async (session, message, NULL, append_cb, &wait);
  wait_for (&wait.done, DEADLINE_MS);
  g_assert_true (wait.ok == (wait.error == NULL));
  return wait.error;
}

static void
append_text (ZotSession *session,
             const char *role,
             const char *text)
{
  g_autoptr(JsonObject) message = g_str_equal (role, "user") ? zot_message_new_user_text (text)
                                                             : zot_message_new_assistant_text (text);
  g_autoptr(GError) error = append_message (session, message);

  g_assert_no_error (error);
}

static GError *
flush (ZotSession *session)
{
  Wait wait = { 0 };

  zot_session_flush_async (session, NULL, flush_cb, &wait);
  wait_for (&wait.done, DEADLINE_MS);
  return wait.error;
}

static char *
messages_to_string (GPtrArray *messages)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < messages->len; i++)
    {
      g_autofree char *text = zot_json_object_to_string (g_ptr_array_index (messages, i));

      g_string_append (out, text);
      g_string_append_c (out, '\n');
    }

  return g_string_free (out, FALSE);
}

static void
assert_same_messages (GPtrArray *a,
                      GPtrArray *b)
{
  g_autofree char *text_a = messages_to_string (a);
  g_autofree char *text_b = messages_to_string (b);

  g_assert_cmpuint (a->len, ==, b->len);
  g_assert_cmpstr (text_a, ==, text_b);
}

static void
assert_message_text (ZotSession *session,
                     guint       index,
                     const char *text)
{
  GPtrArray *messages = zot_session_get_messages (session);
  g_autofree char *got = NULL;

  g_assert_cmpuint (index, <, messages->len);
  got = zot_message_get_text (g_ptr_array_index (messages, index));
  g_assert_cmpstr (got, ==, text);
}

static char *
read_file (const char *path)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&contents);
}

static void
append_raw (const char *path,
            const char *bytes)
{
  int fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, bytes, strlen (bytes)), ==, (ssize_t) strlen (bytes));
  close (fd);
}

static goffset
file_size (const char *path)
{
  struct stat st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_size;
}

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    if (*p == '\n')
      n++;
  return n;
}

static JsonObject *
line_object (const char *text,
             guint       index)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GError) error = NULL;
  JsonObject *object;

  g_assert_cmpuint (index, <, g_strv_length (lines));
  object = zot_json_object_from_string (lines[index], &error);
  g_assert_no_error (error);
  return object;
}

/* A session of @cwd holding @n messages "m0", "m1", …, flushed. */
static ZotSession *
make_session (const char *cwd,
              guint       n)
{
  g_autoptr(GError) error = NULL;
  ZotSession *session = zot_session_new (cwd, NULL, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf ("m%u", i);

      append_text (session, i % 2 == 0 ? "user" : "assistant", text);
    }
  return session;
}

static JsonObject *
make_tool_exchange_message (void)
{
  g_autoptr(GError) error = NULL;
  JsonObject *message = zot_json_object_from_string (
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"line one\\nline \\\"two\\\" é 🙂\"},"
    "{\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"read\",\"input\":{\"path\":\"a.c\",\"n\":[1,2.5,null,true]}}],"
    "\"usage\":{\"input_tokens\":12,\"output_tokens\":3}}", &error);

  g_assert_no_error (error);
  return message;
}

/* Tests */

static void
test_roundtrip (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(JsonObject) tool_message = make_tool_exchange_message ();
  g_autoptr(JsonObject) tool_result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *dirname = NULL;
  g_autofree char *basename = NULL;
  const char *path;

  session = zot_session_new (fixture->env.cwd, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (zot_session_is_persistent (session));

  path = zot_session_get_path (session);
  dir = zot_session_get_directory_for_cwd (fixture->env.cwd);
  dirname = g_path_get_dirname (path);
  basename = g_path_get_basename (path);
  g_assert_cmpstr (dirname, ==, dir);
  g_assert_true (g_str_has_suffix (basename, ".jsonl"));
  g_assert_true (g_str_has_prefix (basename, zot_session_get_id (session)));
  g_assert_true (g_regex_match_simple ("^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$",
                                       zot_session_get_id (session), 0, 0));
  /* Nothing is written before the first append. */
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  tool_result = zot_json_object_from_string (
    "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"call_1\","
    "\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"int main;\"}]}]}", &error);
  g_assert_no_error (error);

  append_text (session, "user", "read a.c");
  g_assert_null (append_message (session, tool_message));
  g_assert_null (append_message (session, tool_result));
  g_assert_no_error (flush (session));
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 3);

  reopened = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zot_session_get_id (reopened), ==, zot_session_get_id (session));
  g_assert_cmpstr (zot_session_get_cwd (reopened), ==, zot_session_get_cwd (session));
  g_assert_cmpstr (zot_session_get_path (reopened), ==, path);
  g_assert_null (zot_session_get_warnings (reopened)[0]);
  assert_same_messages (zot_session_get_messages (session), zot_session_get_messages (reopened));

  g_assert_finalize_object (g_steal_pointer (&reopened));
  g_assert_finalize_object (g_steal_pointer (&session));
}

static void
test_header (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 2);
  g_autofree char *contents = read_file (zot_session_get_path (session));
  g_autoptr(JsonObject) header = line_object (contents, 0);
  g_autoptr(JsonObject) first = line_object (contents, 1);
  g_autofree char *real_cwd = realpath (fixture->env.cwd, NULL);

  g_assert_cmpuint (count_lines (contents), ==, 3);
  g_assert_true (g_str_has_suffix (contents, "\n"));

  g_assert_cmpstr (json_object_get_string_member (header, "type"), ==, "session");
  g_assert_cmpint (json_object_get_int_member (header, "version"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (header, "id"), ==, zot_session_get_id (session));
  g_assert_cmpstr (json_object_get_string_member (header, "cwd"), ==, real_cwd);
  g_assert_cmpstr (zot_session_get_cwd (session), ==, real_cwd);
  g_assert_true (g_regex_match_simple ("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
                                       json_object_get_string_member (header, "created"), 0, 0));

  g_assert_cmpstr (json_object_get_string_member (first, "type"), ==, "message");
  g_assert_cmpstr (zot_message_get_role (json_object_get_object_member (first, "message")), ==, "user");

  g_assert_finalize_object (g_steal_pointer (&session));
}

static void
set_mtime (const char *path,
           time_t      seconds,
           long        nanoseconds)
{
  struct timespec times[2] = { { seconds, nanoseconds }, { seconds, nanoseconds } };

  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
}

static char *
write_session_file (const char *dir,
                    const char *name,
                    const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static void
test_find_latest (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *dir = zot_session_get_directory_for_cwd (fixture->env.cwd);
  g_autoptr(GError) error = NULL;
  g_autofree char *found = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;
  g_autofree char *d = NULL;
  g_autofree char *empty = NULL;
  g_autofree char *other = NULL;
  g_autofree char *real_cwd = realpath (fixture->env.cwd, NULL);
  g_autofree char *line = g_strdup_printf ("{\"type\":\"session\",\"version\":1,\"id\":\"x\",\"cwd\":\"%s\"}\n",
                                           real_cwd);

  /* No directory at all. */
  found = zot_session_find_latest (fixture->env.cwd, &error);
  g_assert_null (found);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no session to continue in"));
  g_assert_nonnull (strstr (error->message, dir));
  g_clear_error (&error);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  a = write_session_file (dir, "20260101T000000Z-aaaaaa.jsonl", line);
  b = write_session_file (dir, "20250101T000000Z-bbbbbb.jsonl", line);
  c = write_session_file (dir, "20240101T000000Z-cccccc.jsonl", line);
  empty = write_session_file (dir, "20990101T000000Z-eeeeee.jsonl", "");
  other = write_session_file (dir, "notes.txt", line);
  set_mtime (a, 1000, 0);
  set_mtime (b, 3000, 0);   /* newest by mtime, although its name sorts lower */
  set_mtime (c, 2000, 0);
  set_mtime (empty, 9000, 0);
  set_mtime (other, 9000, 0);

  found = zot_session_find_latest (fixture->env.cwd, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, b);
  g_clear_pointer (&found, g_free);

  /* Nanoseconds count. */
  set_mtime (c, 3000, 5);
  found = zot_session_find_latest (fixture->env.cwd, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, c);
  g_clear_pointer (&found, g_free);

  /* A tie goes to the greater name. */
  set_mtime (c, 3000, 0);
  d = write_session_file (dir, "20250101T000000Z-bbbbbc.jsonl", line);
  set_mtime (d, 3000, 0);
  found = zot_session_find_latest (fixture->env.cwd, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, d);
  g_clear_pointer (&found, g_free);

  /* A session made through the API is found. */
  {
    g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 1);

    g_assert_no_error (flush (session));
    set_mtime (zot_session_get_path (session), 4000, 0);
    found = zot_session_find_latest (fixture->env.cwd, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (found, ==, zot_session_get_path (session));
    g_clear_pointer (&found, g_free);
  }
}

static void
test_find_latest_shared_key (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autofree char *dir = zot_session_get_directory_for_cwd ("/nonexistent-zot/a-b");
  g_autofree char *other_dir = zot_session_get_directory_for_cwd ("/nonexistent-zot/a/b");
  g_autofree char *mine = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *found = NULL;
  g_autoptr(GError) error = NULL;

  /* "/a-b" and "/a/b" share a key; the header tells them apart. */
  g_assert_cmpstr (dir, ==, other_dir);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  mine = write_session_file (dir, "20250101T000000Z-aaaaaa.jsonl",
                             "{\"type\":\"session\",\"version\":1,\"id\":\"a\",\"cwd\":\"/nonexistent-zot/a-b\"}\n");
  theirs = write_session_file (dir, "20260101T000000Z-bbbbbb.jsonl",
                               "{\"type\":\"session\",\"version\":1,\"id\":\"b\",\"cwd\":\"/nonexistent-zot/a/b\"}\n");
  set_mtime (mine, 1000, 0);
  set_mtime (theirs, 2000, 0);

  found = zot_session_find_latest ("/nonexistent-zot/a-b", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, mine);
  g_clear_pointer (&found, g_free);

  found = zot_session_find_latest ("/nonexistent-zot/a/b", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, theirs);
  g_clear_pointer (&found, g_free);

  found = zot_session_find_latest ("/nonexistent-zot/a-b/", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, mine);
}

static void
test_cwd_key (Fixture       *fixture,
              gconstpointer  data)
{
  g_autofree char *sessions = g_build_filename (fixture->env.home, "sessions", NULL);
  g_autofree char *dir = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *key = NULL;
  g_autofree char *other_key = NULL;
  g_autofree char *link = NULL;
  g_autofree char *via_link = NULL;
  g_autofree char *direct = NULL;
  GString *long_a = g_string_new ("/nonexistent-zot-test");
  GString *long_b = NULL;

  /* Readable. */
  dir = zot_session_get_directory_for_cwd ("/nonexistent-zot/work/main");
  expected = g_build_filename (sessions, "-nonexistent-zot-work-main", NULL);
  g_assert_cmpstr (dir, ==, expected);
  g_clear_pointer (&dir, g_free);
  g_clear_pointer (&expected, g_free);

  /* Escaped. */
  dir = zot_session_get_directory_for_cwd ("/nonexistent-zot/a b/ü%/c.d_e");
  expected = g_build_filename (sessions, "-nonexistent-zot-a%20b-%C3%BC%25-c.d_e", NULL);
  g_assert_cmpstr (dir, ==, expected);
  g_clear_pointer (&dir, g_free);

  /* Canonical: "..", "." and a trailing slash do not change the key. */
  dir = zot_session_get_directory_for_cwd ("/nonexistent-zot/x/../a b/./ü%/c.d_e/");
  g_assert_cmpstr (dir, ==, expected);
  g_clear_pointer (&dir, g_free);

  /* Symbolic links resolve to the real directory. */
  link = g_build_filename (fixture->env.root, "link", NULL);
  g_assert_cmpint (symlink (fixture->env.cwd, link), ==, 0);
  via_link = zot_session_get_directory_for_cwd (link);
  direct = zot_session_get_directory_for_cwd (fixture->env.cwd);
  g_assert_cmpstr (via_link, ==, direct);

  /* Bounded, with the start kept and distinct paths kept apart. */
  for (guint i = 0; i < 30; i++)
    g_string_append_printf (long_a, "/component-%02u", i);
  long_b = g_string_new (long_a->str);
  g_string_append (long_a, "/a");
  g_string_append (long_b, "/b");

  dir = zot_session_get_directory_for_cwd (long_a->str);
  key = g_path_get_basename (dir);
  g_assert_cmpuint (strlen (key), <=, 120);
  g_assert_true (g_str_has_prefix (key, "-nonexistent-zot-test-component-00-"));
  g_clear_pointer (&dir, g_free);

  dir = zot_session_get_directory_for_cwd (long_b->str);
  other_key = g_path_get_basename (dir);
  g_assert_cmpuint (strlen (other_key), <=, 120);
  g_assert_cmpstr (key, !=, other_key);
  g_clear_pointer (&dir, g_free);

  /* Stable. */
  dir = zot_session_get_directory_for_cwd (long_a->str);
  g_clear_pointer (&other_key, g_free);
  other_key = g_path_get_basename (dir);
  g_assert_cmpstr (key, ==, other_key);

  g_string_free (long_a, TRUE);
  g_string_free (long_b, TRUE);
}

static void
test_session_file (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "chosen", "s.jsonl", NULL);
  g_autofree char *empty = g_build_filename (fixture->env.root, "empty.jsonl", NULL);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) header = NULL;

  /* A file that does not exist yet: created by the first append. */
  session = zot_session_new (fixture->env.cwd, path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zot_session_get_path (session), ==, path);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  append_text (session, "user", "first");
  append_text (session, "assistant", "second");
  id = g_strdup (zot_session_get_id (session));
  g_assert_finalize_object (g_steal_pointer (&session));

  contents = read_file (path);
  g_assert_cmpuint (count_lines (contents), ==, 3);
  header = line_object (contents, 0);
  g_assert_cmpstr (json_object_get_string_member (header, "type"), ==, "session");
  g_clear_pointer (&contents, g_free);

  /* Existing and non-empty: resumed, whatever cwd says. */
  session = zot_session_new ("/", path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zot_session_get_id (session), ==, id);
  g_assert_cmpstr (zot_session_get_cwd (session), !=, "/");
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
  assert_message_text (session, 1, "second");
  append_text (session, "user", "third");
  g_assert_finalize_object (g_steal_pointer (&session));

  contents = read_file (path);
  g_assert_cmpuint (count_lines (contents), ==, 4);   /* no second header */
  g_clear_pointer (&contents, g_free);

  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 3);
  assert_message_text (session, 2, "third");
  g_assert_finalize_object (g_steal_pointer (&session));

  /* Existing but empty: a new session in that file, header first. */
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  session = zot_session_new (fixture->env.cwd, empty, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 0);
  append_text (session, "user", "hello");
  g_assert_finalize_object (g_steal_pointer (&session));
  contents = read_file (empty);
  g_assert_cmpuint (count_lines (contents), ==, 2);
  g_assert_true (g_str_has_prefix (contents, "{\"type\":\"session\""));

  /* A directory cannot be a session. */
  session = zot_session_new (fixture->env.cwd, fixture->env.cwd, &error);
  g_assert_null (session);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_WRITE);
}

/* Writing a FIFO waited for a reader forever: only a regular file is a
 * session, and the error says so at once. */
static void
test_new_with_fifo (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *fifo = g_build_filename (fixture->env.root, "fifo.jsonl", NULL);
  g_autofree char *expected = NULL;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  session = zot_session_new (fixture->env.cwd, fifo, &error);
  g_assert_null (session);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_WRITE);
  expected = g_strdup_printf ("cannot use %s as a session: it is not a regular file; "
                              "name a file, or use --no-session", fifo);
  g_assert_cmpstr (error->message, ==, expected);
}

/* A tail without its newline is dropped from the transcript, but the
 * file is never shortened: the next append ends it with a newline, so it
 * becomes a line of its own that later loads skip, or load when it was
 * @whole but for the newline. */
static void
check_torn (Fixture    *fixture,
            const char *tail,
            gsize       dropped,
            gboolean    whole)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 2);
  g_autoptr(ZotSession) resumed = NULL;
  g_autoptr(ZotSession) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strdup (zot_session_get_path (session));
  g_autofree char *before = NULL;
  g_autofree char *torn = NULL;
  g_autofree char *after = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *skipped = NULL;
  g_autofree char *contents = NULL;
  const char * const *warnings;

  g_assert_finalize_object (g_steal_pointer (&session));
  before = read_file (path);
  append_raw (path, tail);
  torn = read_file (path);

  resumed = zot_session_open (path, &error);
  g_assert_no_error (error);
  warnings = zot_session_get_warnings (resumed);
  g_assert_nonnull (warnings[0]);
  g_assert_null (warnings[1]);
  expected = g_strdup_printf ("dropped a torn last line (%" G_GSIZE_FORMAT " bytes) of %s", dropped, path);
  g_assert_cmpstr (warnings[0], ==, expected);

  g_assert_cmpuint (zot_session_get_messages (resumed)->len, ==, 2);
  assert_message_text (resumed, 0, "m0");
  assert_message_text (resumed, 1, "m1");

  /* Opening changes nothing in the file. */
  after = read_file (path);
  g_assert_cmpstr (after, ==, torn);

  append_text (resumed, "user", "m2");
  g_assert_finalize_object (g_steal_pointer (&resumed));

  contents = read_file (path);
  g_assert_cmpuint (count_lines (contents), ==, 5);
  g_assert_true (g_str_has_prefix (contents, torn));
  g_assert_cmpint (contents[strlen (torn)], ==, '\n');

  again = zot_session_open (path, &error);
  g_assert_no_error (error);
  if (whole)
    g_assert_null (zot_session_get_warnings (again)[0]);
  else
    {
      skipped = g_strdup_printf ("skipped 1 damaged or misplaced line of the session %s (line 4); "
                                 "the rest was loaded", path);
      g_assert_cmpstr (zot_session_get_warnings (again)[0], ==, skipped);
      g_assert_null (zot_session_get_warnings (again)[1]);
    }
  g_assert_cmpuint (zot_session_get_messages (again)->len, ==, whole ? 4 : 3);
  assert_message_text (again, whole ? 3 : 2, "m2");
}

static void
test_torn_garbage (Fixture       *fixture,
                   gconstpointer  data)
{
  check_torn (fixture, "garbage", 7, FALSE);
}

static void
test_torn_half_json (Fixture       *fixture,
                     gconstpointer  data)
{
  check_torn (fixture, "{\"type\":\"message\",\"message\":{\"role\":\"us", 39, FALSE);
}

static void
test_torn_complete_no_newline (Fixture       *fixture,
                               gconstpointer  data)
{
  /* Valid JSON without its newline was never acknowledged: dropped too,
   * until the next append ends the line and it is whole. */
  check_torn (fixture, "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[]}}", 57, TRUE);
}

/* A header that never got its newline makes no session; the file is left
 * as it is rather than emptied. */
static void
test_torn_header_only (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "torn.jsonl", NULL);
  g_autofree char *header = g_strdup_printf ("{\"type\":\"session\",\"version\":1,\"id\":\"x\",\"cwd\":\"%s\"}",
                                             fixture->env.cwd);
  const char *tails[] = { "{\"type\":\"sess", header };

  for (guint i = 0; i < G_N_ELEMENTS (tails); i++)
    {
      g_autoptr(ZotSession) session = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (g_file_set_contents (path, tails[i], -1, NULL));
      session = zot_session_open (path, &error);
      g_assert_null (session);
      g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_CORRUPT);
      g_assert_cmpint (file_size (path), ==, (goffset) strlen (tails[i]));
    }
}

#define HEADER "{\"type\":\"session\",\"version\":1,\"id\":\"x\",\"cwd\":\"/\"}\n"
#define MESSAGE "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[]}}\n"
#define USER(text) "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":" \
                   "[{\"type\":\"text\",\"text\":\"" text "\"}]}}\n"
/* An assistant message calling read as call_a and bash as call_b. */
#define CALLS "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":[" \
              "{\"type\":\"text\",\"text\":\"looking\"}," \
              "{\"type\":\"tool_use\",\"id\":\"call_a\",\"name\":\"read\",\"input\":{\"path\":\"a\"}}," \
              "{\"type\":\"tool_use\",\"id\":\"call_b\",\"name\":\"bash\",\"input\":{\"command\":\"ls\"}}]}}\n"
#define RESULT(id, text) "{\"type\":\"tool_result\",\"tool_use_id\":\"" id "\",\"is_error\":false," \
                         "\"content\":[{\"type\":\"text\",\"text\":\"" text "\"}]}"
#define RESULTS(blocks) "{\"type\":\"message\",\"message\":{\"role\":\"tool\",\"content\":[" blocks "]}}\n"

static char *
write_fixture (Fixture    *fixture,
               const char *contents)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "fixture.jsonl", NULL);

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return g_steal_pointer (&path);
}

/* Opens @contents, which has @kept messages and one bad line (@line);
 * the one warning names both, and the file is left as it was. */
static void
check_skipped (Fixture    *fixture,
               const char *contents,
               guint       kept,
               const char *lines)
{
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *after = NULL;
  const char * const *warnings;

  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, kept);

  warnings = zot_session_get_warnings (session);
  expected = g_strdup_printf ("skipped 1 damaged or misplaced line of the session %s (line %s); "
                              "the rest was loaded", path, lines);
  g_assert_cmpstr (warnings[0], ==, expected);
  g_assert_null (warnings[1]);

  /* Nothing rewritten behind the user's back. */
  after = read_file (path);
  g_assert_cmpstr (after, ==, contents);
}

static void
test_skip_bad_lines (Fixture       *fixture,
                     gconstpointer  data)
{
  check_skipped (fixture, HEADER MESSAGE "not json\n" MESSAGE, 2, "3");
  check_skipped (fixture, HEADER MESSAGE "{\"type\":\"message\",\"mess\n" MESSAGE MESSAGE, 3, "3");
  /* JSON, but not an entry. */
  check_skipped (fixture, HEADER "{\"type\":\"message\",\"message\":\"hi\"}\n" MESSAGE, 1, "2");
  check_skipped (fixture, HEADER MESSAGE MESSAGE "[1,2]\n" MESSAGE, 3, "4");
  check_skipped (fixture, HEADER "{\"no\":\"type\"}\n" MESSAGE, 1, "2");
  check_skipped (fixture, HEADER "{\"type\":\"message\",\"message\":{\"role\":\"user\"}}\n" MESSAGE, 1, "2");
  /* Whole JSON as the last line is no torn write: skipped, not cut off. */
  check_skipped (fixture, HEADER MESSAGE "[1,2]\n", 1, "3");
  /* Nor is a whole last line that is not JSON: kept in the file. */
  check_skipped (fixture, HEADER MESSAGE "{\"type\":\"message\",\"mess\n", 1, "3");
  /* Nested past the bound: refused before json-glib's parser recurses
   * through it (80,000 levels overflowed its stack). */
  {
    g_autofree char *deep = zot_test_nested_json (HEADER "{\"type\":\"message\",\"message\":",
                                                  80000, "}\n" MESSAGE);
    check_skipped (fixture, deep, 1, "2");
  }
}

static void
test_skip_keeps_order (Fixture       *fixture,
                       gconstpointer  data)
{
  const char *contents = HEADER USER ("one") "bad\n" "[]\n" USER ("two") "{}\n" "x\n" "y\n" "z\n"
                         USER ("three");
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  const char * const *warnings;

  /* Six bad lines: one warning, which names the first five. */
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 3);
  assert_message_text (session, 0, "one");
  assert_message_text (session, 1, "two");
  assert_message_text (session, 2, "three");

  warnings = zot_session_get_warnings (session);
  expected = g_strdup_printf ("skipped 6 damaged or misplaced lines of the session %s "
                              "(lines 3, 4, 6, 7, 8, …); the rest was loaded", path);
  g_assert_cmpstr (warnings[0], ==, expected);
  g_assert_null (warnings[1]);

  /* Appends go on after the whole file. */
  append_text (session, "assistant", "four");
  g_assert_finalize_object (g_steal_pointer (&session));
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 4);
  assert_message_text (session, 3, "four");
}

static void
check_not_a_session (Fixture    *fixture,
                     const char *contents)
{
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *after = NULL;
  ZotSession *session;

  session = zot_session_open (path, &error);
  g_assert_null (session);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_CORRUPT);
  expected = g_strdup_printf ("line 1 of %s is not a session header; is it a zot session?", path);
  g_assert_cmpstr (error->message, ==, expected);

  after = read_file (path);
  g_assert_cmpstr (after, ==, contents);
}

static void
test_not_a_session (Fixture       *fixture,
                    gconstpointer  data)
{
  check_not_a_session (fixture, MESSAGE MESSAGE);
  check_not_a_session (fixture, "not json\n" HEADER MESSAGE);
  check_not_a_session (fixture, "[1]\n" HEADER MESSAGE);
}

/* The result block @index of the "tool" message @message_index. */
static JsonObject *
result_at (ZotSession *session,
           guint       message_index,
           guint       index)
{
  GPtrArray *messages = zot_session_get_messages (session);
  JsonObject *message;
  JsonArray *content;

  g_assert_cmpuint (message_index, <, messages->len);
  message = g_ptr_array_index (messages, message_index);
  g_assert_cmpstr (zot_message_get_role (message), ==, "tool");
  content = json_object_get_array_member (message, "content");
  g_assert_cmpuint (index, <, json_array_get_length (content));
  return json_array_get_object_element (content, index);
}

static void
assert_interrupted (JsonObject *result,
                    const char *id,
                    const char *name)
{
  g_autofree char *text = zot_content_get_text (json_object_get_array_member (result, "content"));
  g_autofree char *expected = g_strdup_printf ("The call of %s was interrupted: "
                                               "the host stopped before it finished.", name);

  g_assert_cmpstr (json_object_get_string_member (result, "type"), ==, "tool_result");
  g_assert_cmpstr (json_object_get_string_member (result, "tool_use_id"), ==, id);
  g_assert_true (json_object_get_boolean_member (result, "is_error"));
  g_assert_true (json_object_get_boolean_member (result, "interrupted"));
  g_assert_cmpstr (text, ==, expected);
}

static void
assert_kept (JsonObject *result,
             const char *id,
             const char *text)
{
  g_autofree char *got = zot_content_get_text (json_object_get_array_member (result, "content"));

  g_assert_cmpstr (json_object_get_string_member (result, "tool_use_id"), ==, id);
  g_assert_false (json_object_has_member (result, "interrupted"));
  g_assert_cmpstr (got, ==, text);
}

static void
assert_interrupted_warning (ZotSession *session,
                            const char *path,
                            guint       calls)
{
  const char * const *warnings = zot_session_get_warnings (session);
  g_autofree char *expected = NULL;

  if (calls == 1)
    expected = g_strdup_printf ("1 tool call in the session %s had no result, as zot stopped "
                                "before it finished; it is marked interrupted", path);
  else
    expected = g_strdup_printf ("%u tool calls in the session %s had no result, as zot stopped "
                                "before they finished; they are marked interrupted", calls, path);
  g_assert_cmpstr (warnings[0], ==, expected);
  g_assert_null (warnings[1]);
}

static void
test_interrupted_at_end (Fixture       *fixture,
                         gconstpointer  data)
{
  const char *contents = HEADER USER ("look") CALLS;
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  g_autofree char *before_append = NULL;

  /* The host died after the calls, before their results. */
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 3);
  assert_interrupted (result_at (session, 2, 0), "call_a", "read");
  assert_interrupted (result_at (session, 2, 1), "call_b", "bash");
  assert_interrupted_warning (session, path, 2);

  /* Mended in memory only, until the conversation goes on. */
  after = read_file (path);
  g_assert_cmpstr (after, ==, contents);

  /* Then the results go first, so the file is whole again. */
  append_text (session, "user", "again");
  before_append = messages_to_string (zot_session_get_messages (session));
  g_assert_finalize_object (g_steal_pointer (&session));
  g_clear_pointer (&after, g_free);
  after = read_file (path);
  g_assert_cmpuint (count_lines (after), ==, 5);

  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_null (zot_session_get_warnings (session)[0]);
  {
    g_autofree char *reloaded = messages_to_string (zot_session_get_messages (session));

    g_assert_cmpstr (reloaded, ==, before_append);
  }
  assert_message_text (session, 3, "again");
}

static void
test_interrupted_in_middle (Fixture       *fixture,
                            gconstpointer  data)
{
  /* An older zot resumed such a file without mending it. */
  const char *contents = HEADER USER ("look") CALLS USER ("next") "{\"type\":\"message\",\"message\":"
                         "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n";
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;

  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 5);
  assert_interrupted (result_at (session, 2, 0), "call_a", "read");
  assert_interrupted (result_at (session, 2, 1), "call_b", "bash");
  assert_message_text (session, 3, "next");
  assert_message_text (session, 4, "ok");
  assert_interrupted_warning (session, path, 2);

  /* Only appends reach the file; the mending in the middle is redone at
   * each load. */
  append_text (session, "user", "more");
  after = read_file (path);
  g_assert_true (g_str_has_prefix (after, contents));
  g_assert_cmpuint (count_lines (after), ==, 6);
}

static void
test_partial_results (Fixture       *fixture,
                      gconstpointer  data)
{
  /* Results out of order, one missing, one for no call. */
  const char *contents = HEADER USER ("look") CALLS
                         RESULTS (RESULT ("call_x", "stray") "," RESULT ("call_b", "files"));
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *results;

  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 3);
  results = g_ptr_array_index (zot_session_get_messages (session), 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (results, "content")), ==, 2);
  assert_interrupted (result_at (session, 2, 0), "call_a", "read");
  assert_kept (result_at (session, 2, 1), "call_b", "files");
  assert_interrupted_warning (session, path, 1);
}

static void
test_whole_results_untouched (Fixture       *fixture,
                              gconstpointer  data)
{
  const char *contents = HEADER USER ("look") CALLS
                         RESULTS (RESULT ("call_a", "text") "," RESULT ("call_b", "files"))
                         USER ("thanks");
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;

  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_null (zot_session_get_warnings (session)[0]);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 4);
  assert_kept (result_at (session, 2, 0), "call_a", "text");
  assert_kept (result_at (session, 2, 1), "call_b", "files");
}

static void
test_misplaced_results (Fixture       *fixture,
                        gconstpointer  data)
{
  /* The calls' line was damaged: their results answer nothing. */
  const char *contents = HEADER USER ("look") "{\"type\":\"message\",\"message\":{\"role\":\"assis\n"
                         RESULTS (RESULT ("call_a", "text")) USER ("again");
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
  assert_message_text (session, 0, "look");
  assert_message_text (session, 1, "again");
  expected = g_strdup_printf ("skipped 2 damaged or misplaced lines of the session %s (lines 3, 4); "
                              "the rest was loaded", path);
  g_assert_cmpstr (zot_session_get_warnings (session)[0], ==, expected);
  g_assert_null (zot_session_get_warnings (session)[1]);
}

static void
test_read_only (Fixture       *fixture,
                gconstpointer  data)
{
  const char *contents = HEADER USER ("look") "bad\n" CALLS "{\"type\":\"mess";
  g_autofree char *path = write_fixture (fixture, contents);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(JsonObject) message = zot_message_new_user_text ("refused");
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  g_autofree char *expected = NULL;
  const char * const *warnings;

  session = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  g_assert_true (zot_session_is_read_only (session));
  g_assert_false (zot_session_is_persistent (session));
  g_assert_cmpstr (zot_session_get_path (session), ==, path);

  /* The last calls may still be running in the file's writer: left open. */
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
  warnings = zot_session_get_warnings (session);
  g_assert_true (g_str_has_prefix (warnings[0], "dropped a torn last line"));
  g_assert_true (g_str_has_prefix (warnings[1], "skipped 1 damaged"));
  g_assert_null (warnings[2]);

  error = append_message (session, message);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_READ_ONLY);
  expected = g_strdup_printf ("the session %s is open read-only here, so nothing can be added to it; "
                              "start a new conversation (/new) to go on", path);
  g_assert_cmpstr (error->message, ==, expected);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
  g_assert_no_error (flush (session));

  /* Not even the torn tail was cut. */
  after = read_file (path);
  g_assert_cmpstr (after, ==, contents);
  g_assert_finalize_object (g_steal_pointer (&session));
}

static void
assert_locked (GError     *error,
               const char *path)
{
  g_autofree char *expected = g_strdup_printf ("the session %s is open in another zot process; close it "
                                               "there, or use --no-session or a new session", path);

  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_one_writer (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(ZotSession) first = make_session (fixture->env.cwd, 2);
  g_autoptr(ZotSession) reader = NULL;
  g_autoptr(ZotSession) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strdup (zot_session_get_path (first));
  g_autofree char *before = read_file (path);
  g_autofree char *after = NULL;

  /* flock() locks belong to the open file, so a second writer in the
   * same process is refused like one in another. */
  second = zot_session_open (path, &error);
  g_assert_null (second);
  assert_locked (error, path);
  g_clear_error (&error);

  second = zot_session_new (fixture->env.cwd, path, &error);
  g_assert_null (second);
  assert_locked (error, path);
  g_clear_error (&error);

  /* Reading is still fine, and takes nothing from the writer. */
  reader = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (reader)->len, ==, 2);
  append_text (first, "user", "m2");
  after = read_file (path);
  g_assert_true (g_str_has_prefix (after, before));
  g_assert_cmpuint (count_lines (after), ==, 4);

  /* The lock goes with the writer. */
  g_assert_finalize_object (g_steal_pointer (&first));
  second = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (second)->len, ==, 3);
}

static void
test_lock_held_elsewhere (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 1);
  g_autofree char *path = g_strdup (zot_session_get_path (session));
  g_autoptr(GError) error = NULL;
  ZotSession *second;
  int fd;

  g_assert_finalize_object (g_steal_pointer (&session));

  /* What another zot process holds, as a plain descriptor. */
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);

  second = zot_session_open (path, &error);
  g_assert_null (second);
  assert_locked (error, path);
  g_clear_error (&error);

  close (fd);
  second = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_finalize_object (second);
}

static void
test_lock_new_file (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "shared.jsonl", NULL);
  g_autoptr(ZotSession) first = NULL;
  g_autoptr(ZotSession) second = NULL;
  g_autoptr(ZotSession) late = NULL;
  g_autoptr(JsonObject) message = zot_message_new_user_text ("second");
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;
  g_autofree char *after = NULL;
  g_autofree char *expected = NULL;

  /* Both made before the file exists: the first to write takes it. */
  first = zot_session_new (fixture->env.cwd, path, &error);
  g_assert_no_error (error);
  second = zot_session_new (fixture->env.cwd, path, &error);
  g_assert_no_error (error);
  late = zot_session_new (fixture->env.cwd, path, &error);
  g_assert_no_error (error);

  append_text (first, "user", "first");
  written = read_file (path);

  error = append_message (second, message);
  assert_locked (error, path);
  g_clear_error (&error);
  /* Read-only from then on, like after any failed write. */
  error = append_message (second, message);
  assert_locked (error, path);
  g_clear_error (&error);

  /* Once the first is gone, the file is free, but it is not new any more:
   * another process started it meanwhile. */
  g_assert_finalize_object (g_steal_pointer (&first));
  error = append_message (late, message);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_LOCKED);
  expected = g_strdup_printf ("the session %s was started by another zot process meanwhile; "
                              "use --no-session or a new session", path);
  g_assert_cmpstr (error->message, ==, expected);

  after = read_file (path);
  g_assert_cmpstr (after, ==, written);
}

static void
test_unknown_entries (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "unknown.jsonl", NULL);
  const char *contents = HEADER MESSAGE "{\"type\":\"from_a_later_zot\",\"id\":\"t1\"}\n\n" MESSAGE;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
  g_assert_null (zot_session_get_warnings (session)[0]);
  g_assert_cmpstr (zot_session_get_id (session), ==, "x");

  append_text (session, "user", "more");
  after = read_file (path);
  g_assert_true (g_str_has_prefix (after, contents));
}

/* Header members of the wrong JSON type are ignored, without a critical
 * from json-glib. (Found by fuzz/fuzz-session.c.) */
static void
test_header_wrong_types (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "types.jsonl", NULL);
  const char *contents = "{\"type\":\"session\",\"version\":[2],\"id\":[\"x\"],\"cwd\":{\"a\":1}}\n" MESSAGE;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 1);
  g_assert_nonnull (zot_session_get_id (session));
  g_assert_cmpstr (zot_session_get_id (session), !=, "");
  g_assert_nonnull (zot_session_get_cwd (session));
  g_assert_true (g_path_is_absolute (zot_session_get_cwd (session)));
}

/* Messages of the wrong shape load without a critical from json-glib
 * while the calls and results are matched up. (Found by
 * fuzz/fuzz-session.c.) */
static void
test_message_wrong_types (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "shapes.jsonl", NULL);
  const char *contents =
    HEADER
    "{\"type\":\"message\",\"message\":{\"role\":[\"assistant\"],\"content\":[]}}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\"}}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":\"text\"}}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":"
      "[{\"type\":[\"tool_use\"]},{\"type\":\"tool_use\",\"id\":{},\"name\":[]}]}}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"tool\",\"content\":"
      "[{\"type\":\"tool_result\",\"tool_use_id\":[1]}]}}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":"
      "[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"read\"}]}}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"tool\"}}\n";
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (session);
  g_assert_cmpuint (zot_session_get_messages (session)->len, >, 0);
}

typedef struct
{
  guint    expected;
  guint    count;
  gboolean in_order;
} OrderCheck;

typedef struct
{
  OrderCheck *check;
  guint       index;
} OrderCall;

static void
ordered_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  OrderCall *call = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_session_append_finish (ZOT_SESSION (object), result, &error));
  g_assert_no_error (error);
  if (call->index != call->check->count)
    call->check->in_order = FALSE;
  call->check->count++;
}

static gboolean
order_done (gpointer data)
{
  OrderCheck *check = data;

  return check->count == check->expected;
}

static void
test_order (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(GError) error = NULL;
  OrderCheck check = { 300, 0, TRUE };
  g_autofree OrderCall *calls = g_new0 (OrderCall, check.expected);
  GPtrArray *messages;

  session = zot_session_new (fixture->env.cwd, NULL, &error);
  g_assert_no_error (error);

  /* Queued all at once, without waiting in between. */
  for (guint i = 0; i < check.expected; i++)
    {
      g_autofree char *text = g_strdup_printf ("message %u", i);
      g_autoptr(JsonObject) message = zot_message_new_user_text (text);

      calls[i].check = &check;
      calls[i].index = i;
      zot_session_append_message_async (session, message, NULL, ordered_cb, &calls[i]);
    }
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, check.expected);

  wait_until (order_done, &check, DEADLINE_MS);
  g_assert_true (check.in_order);

  reopened = zot_session_open_read_only (zot_session_get_path (session), &error);
  g_assert_no_error (error);
  messages = zot_session_get_messages (reopened);
  g_assert_cmpuint (messages->len, ==, check.expected);
  for (guint i = 0; i < messages->len; i++)
    {
      g_autofree char *expected = g_strdup_printf ("message %u", i);

      assert_message_text (reopened, i, expected);
    }

  g_assert_finalize_object (g_steal_pointer (&reopened));
  g_assert_finalize_object (g_steal_pointer (&session));
}

static void
test_compaction (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 4);
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(GPtrArray) replacement = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(JsonObject) summary = zot_message_new_user_text ("Summary: m0 to m3");
  g_autoptr(JsonObject) compaction = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;

  json_object_set_boolean_member (summary, "summary", TRUE);
  g_ptr_array_add (replacement, json_object_ref (summary));
  g_ptr_array_add (replacement, zot_message_new_assistant_text ("noted"));

  zot_session_replace_messages (session, replacement);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
  append_text (session, "user", "after");
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 3);

  contents = read_file (zot_session_get_path (session));
  /* header, 4 messages, compaction, 2 messages, 1 message */
  g_assert_cmpuint (count_lines (contents), ==, 9);
  compaction = line_object (contents, 5);
  g_assert_cmpstr (json_object_get_string_member (compaction, "type"), ==, "compaction");
  g_assert_cmpstr (json_object_get_string_member (compaction, "summary"), ==, "Summary: m0 to m3");
  g_assert_cmpint (json_object_get_int_member (compaction, "message_count"), ==, 2);

  reopened = zot_session_open_read_only (zot_session_get_path (session), &error);
  g_assert_no_error (error);
  assert_same_messages (zot_session_get_messages (session), zot_session_get_messages (reopened));
  assert_message_text (reopened, 0, "Summary: m0 to m3");
  g_assert_true (json_object_get_boolean_member (g_ptr_array_index (zot_session_get_messages (reopened), 0),
                                                 "summary"));
  assert_message_text (reopened, 2, "after");

  /* What the compaction replaced is kept for a reader, not the agent; a
   * session that was not loaded has none. */
  g_assert_cmpuint (zot_session_get_earlier_messages (reopened)->len, ==, 4);
  g_assert_cmpuint (zot_session_get_earlier_messages (session)->len, ==, 0);
}

static void
test_child_tasks (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "tasks.jsonl", NULL);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GPtrArray) of_a = NULL;
  g_autoptr(GPtrArray) of_a1 = NULL;
  g_autoptr(GPtrArray) of_prefix = NULL;
  g_autoptr(GError) error = NULL;
  static const char *ids[] = { "a", "a/n=2", "b/n=1", "a/n=1", "a/n=1/k=x", "ab/n=1" };
  GString *contents = g_string_new ("{\"type\":\"session\",\"version\":1,\"id\":\"t\",\"cwd\":\"/\","
                                    "\"mode\":\"continuous\"}\n");

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    g_string_append_printf (contents, "{\"type\":\"task\",\"event\":\"started\",\"id\":\"%s\","
                            "\"tool\":\"read\",\"args\":{}}\n", ids[i]);
  g_assert_true (g_file_set_contents (path, contents->str, -1, NULL));
  g_string_free (contents, TRUE);

  session = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);

  /* Direct children only, in the order the journal started them. */
  of_a = zot_session_list_child_tasks (session, "a");
  g_assert_cmpuint (of_a->len, ==, 2);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (of_a, 0), "id"), ==, "a/n=2");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (of_a, 1), "id"), ==, "a/n=1");
  of_a1 = zot_session_list_child_tasks (session, "a/n=1");
  g_assert_cmpuint (of_a1->len, ==, 1);
  of_prefix = zot_session_list_child_tasks (session, "a/n");
  g_assert_cmpuint (of_prefix->len, ==, 0);
}

static void
test_compaction_first (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(GPtrArray) replacement = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(GError) error = NULL;

  /* A compaction as the very first write still gets the header first. */
  session = zot_session_new (fixture->env.cwd, NULL, &error);
  g_assert_no_error (error);
  g_ptr_array_add (replacement, zot_message_new_user_text ("summary"));
  zot_session_replace_messages (session, replacement);
  g_assert_no_error (flush (session));

  reopened = zot_session_open_read_only (zot_session_get_path (session), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (reopened)->len, ==, 1);
  assert_message_text (reopened, 0, "summary");
}

static void
test_in_memory (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(ZotSession) session = zot_session_new_in_memory (fixture->env.cwd);
  g_autoptr(GPtrArray) replacement = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autofree char *sessions = g_build_filename (fixture->env.home, "sessions", NULL);
  g_autofree char *real_cwd = realpath (fixture->env.cwd, NULL);

  g_assert_false (zot_session_is_persistent (session));
  g_assert_null (zot_session_get_path (session));
  g_assert_cmpstr (zot_session_get_cwd (session), ==, real_cwd);
  g_assert_nonnull (zot_session_get_id (session));

  append_text (session, "user", "one");
  append_text (session, "assistant", "two");
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);

  g_ptr_array_add (replacement, zot_message_new_user_text ("summary"));
  zot_session_replace_messages (session, replacement);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 1);
  append_text (session, "user", "three");
  assert_message_text (session, 1, "three");
  g_assert_no_error (flush (session));

  g_assert_false (g_file_test (sessions, G_FILE_TEST_EXISTS));
  g_assert_finalize_object (g_steal_pointer (&session));
}

static void
assert_write_error (GError     *error,
                    const char *path)
{
  g_autofree char *prefix = g_strdup_printf ("cannot write the session %s: ", path);

  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_WRITE);
  g_assert_true (g_str_has_prefix (error->message, prefix));
  g_assert_true (g_str_has_suffix (error->message,
                                   "; the conversation goes on but is not saved from here"));
}

static void
test_dev_full (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(JsonObject) message = zot_message_new_user_text ("lost");
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full here");
      return;
    }

  /* Every write to /dev/full fails with ENOSPC, whoever we are. */
  session = zot_session_new (fixture->env.cwd, "/dev/full", &error);
  g_assert_no_error (error);
  g_assert_true (zot_session_is_persistent (session));

  error = append_message (session, message);
  assert_write_error (error, "/dev/full");
  expected = g_strdup_printf ("cannot write the session /dev/full: %s; the conversation goes on "
                              "but is not saved from here", g_strerror (ENOSPC));
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);

  /* Read-only from now on, at once, with the same error. */
  error = append_message (session, message);
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);
  error = flush (session);
  assert_write_error (error, "/dev/full");
  g_clear_error (&error);

  /* The conversation itself goes on. */
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);

  g_assert_finalize_object (g_steal_pointer (&session));
}

/* A file-size limit makes the disk look full for this process only, and
 * root cannot write past it either. Set just above the current size, the
 * next append is a short write then EFBIG: the partial-line case. */
static void
test_write_failure_keeps_file (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 2);
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(JsonObject) big = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strdup (zot_session_get_path (session));
  g_autofree char *before = read_file (path);
  g_autofree char *after = NULL;
  g_autofree char *text = g_strnfill (4096, 'x');
  struct rlimit saved;
  struct rlimit limited;
  void (*saved_handler) (int);

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  limited = saved;
  limited.rlim_cur = (rlim_t) strlen (before) + 10;
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < limited.rlim_cur)
    {
      g_test_skip ("the file size limit is lower than this test needs");
      return;
    }

  saved_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limited), ==, 0);

  big = zot_message_new_user_text (text);
  error = append_message (session, big);

  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  signal (SIGXFSZ, saved_handler);

  assert_write_error (error, path);
  g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));
  g_clear_error (&error);

  /* The 10 bytes that made it were cut off again. */
  after = read_file (path);
  g_assert_cmpstr (after, ==, before);

  /* Read-only, although the disk has room again. */
  error = append_message (session, big);
  assert_write_error (error, path);
  g_clear_error (&error);
  g_clear_pointer (&after, g_free);
  after = read_file (path);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 4);

  reopened = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  g_assert_null (zot_session_get_warnings (reopened)[0]);
  g_assert_cmpuint (zot_session_get_messages (reopened)->len, ==, 2);
}

static void
test_unwritable_directory (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autofree char *blocker = g_build_filename (fixture->env.root, "blocker", NULL);
  g_autofree char *path = g_build_filename (blocker, "s.jsonl", NULL);
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(JsonObject) message = zot_message_new_user_text ("x");
  g_autoptr(GError) error = NULL;

  /* A file where the directory should be: mkdir fails even for root. */
  g_assert_true (g_file_set_contents (blocker, "", 0, NULL));
  session = zot_session_new (fixture->env.cwd, path, &error);
  g_assert_no_error (error);
  error = append_message (session, message);
  assert_write_error (error, path);
}

static void
cancelled_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = zot_session_append_finish (ZOT_SESSION (object), result, &wait->error);
  wait->done = TRUE;
}

static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 1);
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) message = zot_message_new_assistant_text ("kept");
  g_autoptr(GError) error = NULL;
  Wait wait = { 0 };

  /* Cancelling stops the wait, not the write: the file keeps its order. */
  zot_session_append_message_async (session, message, cancellable, cancelled_cb, &wait);
  g_cancellable_cancel (cancellable);
  wait_for (&wait.done, DEADLINE_MS);
  g_assert_false (wait.ok);
  g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  wait_clear (&wait);

  append_text (session, "user", "next");
  g_assert_no_error (flush (session));

  reopened = zot_session_open_read_only (zot_session_get_path (session), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (reopened)->len, ==, 3);
  assert_message_text (reopened, 1, "kept");
  assert_message_text (reopened, 2, "next");
}

static gboolean
file_has_lines (gpointer data)
{
  const char *path = data;
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return FALSE;
  return count_lines (contents) == 5;
}

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
test_finalize_keeps_queued (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 2);
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(GPtrArray) replacement = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strdup (zot_session_get_path (session));
  guint wake;

  /* A compaction has no callback: nothing holds the session while it is
   * queued. Drop the session at once; the worker still writes it. */
  g_ptr_array_add (replacement, zot_message_new_user_text ("summary"));
  zot_session_replace_messages (session, replacement);
  g_assert_finalize_object (g_steal_pointer (&session));

  /* Nothing calls back now, so look at the file now and then. */
  wake = g_timeout_add (2, wake_cb, NULL);
  wait_until (file_has_lines, path, DEADLINE_MS);
  g_source_remove (wake);

  reopened = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (reopened)->len, ==, 1);
  assert_message_text (reopened, 0, "summary");
}

static void
test_run_dispose_in_flight (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(ZotSession) reopened = NULL;
  g_autoptr(JsonObject) message = zot_message_new_user_text ("in flight");
  g_autoptr(GError) error = NULL;
  Wait wait = { 0 };

  session = zot_session_new (fixture->env.cwd, NULL, &error);
  g_assert_no_error (error);
  zot_session_append_message_async (session, message, NULL, append_cb, &wait);
  g_object_run_dispose (G_OBJECT (session));
  wait_for (&wait.done, DEADLINE_MS);
  g_assert_no_error (wait.error);
  g_assert_true (wait.ok);

  reopened = zot_session_open_read_only (zot_session_get_path (session), &error);
  g_assert_no_error (error);
  assert_message_text (reopened, 0, "in flight");
}

static void
test_too_large (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "huge.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  ZotSession *session;
  int fd;

  /* Sparse: takes no room. */
  fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 300 * 1024 * 1024), ==, 0);
  close (fd);

  session = zot_session_open (path, &error);
  g_assert_null (session);
  g_assert_error (error, ZOT_SESSION_ERROR, ZOT_SESSION_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, path));
}

static void
test_bad_entry (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(ZotSession) session = make_session (fixture->env.cwd, 1);
  g_autoptr(JsonObject) entry = json_object_new ();
  g_autofree char *before = read_file (zot_session_get_path (session));
  g_autofree char *after = NULL;
  Wait wait = { 0 };

  /* An entry a resume could not read is refused, not written. */
  json_object_set_string_member (entry, "type", "message");
  json_object_set_string_member (entry, "message", "not an object");
  zot_session_append_async (session, entry, NULL, append_cb, &wait);
  wait_for (&wait.done, DEADLINE_MS);
  g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  wait_clear (&wait);

  g_assert_no_error (flush (session));
  after = read_file (zot_session_get_path (session));
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 1);
}

static void
test_missing_file (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->env.root, "nope.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  ZotSession *session = zot_session_open (path, &error);

  g_assert_null (session);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home_parent = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);

  home_parent = g_dir_make_tmp ("zot-test-session-home-XXXXXX", NULL);
  g_assert_nonnull (home_parent);
  test_home = g_build_filename (home_parent, "home", NULL);
  g_setenv ("ZOT_HOME", test_home, TRUE);

#define ADD(name, func) \
  g_test_add ("/zot/session/" name, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("roundtrip", test_roundtrip);
  ADD ("header", test_header);
  ADD ("find-latest", test_find_latest);
  ADD ("find-latest-shared-key", test_find_latest_shared_key);
  ADD ("cwd-key", test_cwd_key);
  ADD ("session-file", test_session_file);
  ADD ("new-with-fifo", test_new_with_fifo);
  ADD ("torn-garbage", test_torn_garbage);
  ADD ("torn-half-json", test_torn_half_json);
  ADD ("torn-complete-no-newline", test_torn_complete_no_newline);
  ADD ("torn-header-only", test_torn_header_only);
  ADD ("skip-bad-lines", test_skip_bad_lines);
  ADD ("skip-keeps-order", test_skip_keeps_order);
  ADD ("not-a-session", test_not_a_session);
  ADD ("interrupted-at-end", test_interrupted_at_end);
  ADD ("interrupted-in-middle", test_interrupted_in_middle);
  ADD ("partial-results", test_partial_results);
  ADD ("whole-results-untouched", test_whole_results_untouched);
  ADD ("misplaced-results", test_misplaced_results);
  ADD ("read-only", test_read_only);
  ADD ("one-writer", test_one_writer);
  ADD ("lock-held-elsewhere", test_lock_held_elsewhere);
  ADD ("lock-new-file", test_lock_new_file);
  ADD ("unknown-entries", test_unknown_entries);
  ADD ("header-wrong-types", test_header_wrong_types);
  ADD ("message-wrong-types", test_message_wrong_types);
  ADD ("order", test_order);
  ADD ("compaction", test_compaction);
  ADD ("compaction-first", test_compaction_first);
  ADD ("child-tasks", test_child_tasks);
  ADD ("in-memory", test_in_memory);
  ADD ("dev-full", test_dev_full);
  ADD ("write-failure-keeps-file", test_write_failure_keeps_file);
  ADD ("unwritable-directory", test_unwritable_directory);
  ADD ("cancel", test_cancel);
  ADD ("finalize-keeps-queued", test_finalize_keeps_queued);
  ADD ("run-dispose-in-flight", test_run_dispose_in_flight);
  ADD ("too-large", test_too_large);
  ADD ("bad-entry", test_bad_entry);
  ADD ("missing-file", test_missing_file);

#undef ADD

  ret = g_test_run ();
  remove_tree (home_parent);
  g_clear_pointer (&test_home, g_free);
  return ret;
}
