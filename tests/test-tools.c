/* test-tools.c — the built-in tools (read, write, edit, bash, skill) and
 * skill discovery. Each test gets a fresh directory as cwd and $ZOT_HOME. */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "zot-builtin-tools.h"
#include "zot-limits-private.h"
#include "zot-message.h"
#include "zot-skills.h"
#include "zot-test-util.h"

/* A safety net for each call; the tests never wait for it to pass. */
#define CALL_DEADLINE_MS 20000

/* A 1×1 transparent PNG. */
static const guint8 tiny_png[] = {
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
  0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
  0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
  0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
  0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49,
  0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

typedef struct
{
  char      *root;
  char      *cwd;
  char      *home;
  GPtrArray *tools;
  GArray    *pids;
  char      *sandbox_log;  /* set under a pretend Flatpak sandbox */
} Fixture;

typedef struct
{
  gboolean       done;
  ZotToolResult *result;
  GError        *error;
} Call;

/* ---------------------------------------------------------------------- */
/* Fixture and helpers                                                     */
/* ---------------------------------------------------------------------- */

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_chmod (path, 0700);
  dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) &&
              !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
        }
    }
  g_rmdir (path);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = g_dir_make_tmp ("zot-tools-XXXXXX", NULL);
  g_assert_nonnull (f->root);
  f->cwd = g_build_filename (f->root, "project", NULL);
  f->home = g_build_filename (f->root, "home", NULL);
  g_assert_cmpint (g_mkdir_with_parents (f->cwd, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (f->home, 0700), ==, 0);
  g_setenv ("ZOT_HOME", f->home, TRUE);
  f->tools = zot_builtin_tools_new ();
  f->pids = g_array_new (FALSE, FALSE, sizeof (pid_t));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  /* Processes a test left running on purpose. */
  for (guint i = 0; i < f->pids->len; i++)
    kill (g_array_index (f->pids, pid_t, i), SIGKILL);

  _zot_timeout_override_for_testing (ZOT_TIMEOUT_BASH, 0);
  g_clear_pointer (&f->pids, g_array_unref);
  g_clear_pointer (&f->tools, g_ptr_array_unref);
  remove_tree (f->root);
  g_clear_pointer (&f->root, g_free);
  g_clear_pointer (&f->cwd, g_free);
  g_clear_pointer (&f->home, g_free);
}

/* The same, inside a pretend Flatpak sandbox (zot_test_fake_sandbox_begin()). */
static void
fixture_setup_sandboxed (Fixture       *f,
                         gconstpointer  data)
{
  fixture_setup (f, data);
  f->sandbox_log = zot_test_fake_sandbox_begin (f->root);
}

static void
fixture_teardown_sandboxed (Fixture       *f,
                            gconstpointer  data)
{
  zot_test_fake_sandbox_end ();
  g_clear_pointer (&f->sandbox_log, g_free);
  fixture_teardown (f, data);
}

static ZotTool *
get_tool (Fixture    *f,
          const char *name)
{
  for (guint i = 0; i < f->tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (f->tools, i);

      if (g_str_equal (zot_tool_get_name (tool), name))
        return tool;
    }

  g_assert_not_reached ();
}

static char *
path_in (Fixture    *f,
         const char *relative)
{
  return g_build_filename (f->cwd, relative, NULL);
}

static void
write_file (Fixture    *f,
            const char *relative,
            const char *data,
            gssize      len)
{
  g_autofree char *path = path_in (f, relative);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, data, len, &error);
  g_assert_no_error (error);
}

static char *
read_file (Fixture    *f,
           const char *relative)
{
  g_autofree char *path = path_in (f, relative);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

static void
call_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Call *call = user_data;

  call->result = zot_tool_execute_finish (ZOT_TOOL (object), result, &call->error);
  call->done = TRUE;
}

static void
start_call (Fixture      *f,
            const char   *name,
            const char   *args_json,
            GCancellable *cancellable,
            Call         *call)
{
  g_autoptr(JsonObject) args = NULL;
  g_autoptr(GError) error = NULL;
  ZotToolContext context = { f->cwd, "call-1" };

  args = zot_json_object_from_string (args_json, &error);
  g_assert_no_error (error);
  zot_tool_execute_async (get_tool (f, name), args, &context, cancellable, call_cb, call);
}

static gboolean
deadline_cb (gpointer data)
{
  gboolean *expired = data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

static void
wait_call (Call  *call,
           guint  timeout_ms)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add (timeout_ms, deadline_cb, &expired);

  while (!call->done && !expired)
    g_main_context_iteration (NULL, TRUE);

  if (!expired)
    g_source_remove (id);
  if (!call->done)
    g_error ("the tool call did not complete within %u ms", timeout_ms);
}

static ZotToolResult *
run_tool (Fixture    *f,
          const char *name,
          const char *args_json)
{
  Call call = { 0 };

  start_call (f, name, args_json, NULL, &call);
  wait_call (&call, CALL_DEADLINE_MS);
  g_assert_no_error (call.error);
  g_assert_nonnull (call.result);
  return call.result;
}

static char *
result_text (ZotToolResult *result)
{
  return zot_content_get_text (result->content);
}

static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* For conditions no main-loop event announces (another process's state):
 * checks on every short tick, failing at the deadline. */
static void
poll_until (gboolean (*check) (gpointer),
            gpointer   data,
            guint      timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  guint tick = g_timeout_add (10, tick_cb, NULL);

  while (!check (data))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("condition not met within %u ms", timeout_ms);
      g_main_context_iteration (NULL, TRUE);
    }

  g_source_remove (tick);
}

/* Gone, or a zombie nobody reaped yet: it runs no more either way. */
static gboolean
process_gone (gpointer data)
{
  pid_t pid = GPOINTER_TO_INT (data);
  g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat = NULL;
  const char *paren;

  if (kill (pid, 0) != 0 && errno == ESRCH)
    return TRUE;

  if (g_file_get_contents (stat_path, &stat, NULL, NULL) &&
      (paren = strrchr (stat, ')')) != NULL)
    return paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');

  return FALSE;
}

typedef struct
{
  char  *path;
  pid_t  pid;
} PidFile;

static gboolean
pid_file_ready (gpointer data)
{
  PidFile *pid_file = data;
  g_autofree char *contents = NULL;
  gint64 pid;

  if (!g_file_get_contents (pid_file->path, &contents, NULL, NULL))
    return FALSE;
  if (!g_ascii_string_to_signed (g_strstrip (contents), 10, 2, G_MAXINT, &pid, NULL))
    return FALSE;
  pid_file->pid = (pid_t) pid;
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* read                                                                    */
/* ---------------------------------------------------------------------- */

static void
test_read_whole (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) empty = NULL;
  g_autofree char *text = NULL;
  g_autofree char *empty_text = NULL;

  write_file (f, "notes.txt", "one\ntwo\nthree\n", -1);
  result = run_tool (f, "read", "{\"path\":\"notes.txt\"}");
  text = result_text (result);

  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_cmpstr (text, ==, "one\ntwo\nthree\n");

  /* An empty file says so rather than giving nothing. */
  write_file (f, "empty.txt", "", 0);
  empty = run_tool (f, "read", "{\"path\":\"empty.txt\"}");
  empty_text = result_text (empty);
  g_assert_false (empty->is_error);
  g_assert_true (g_str_has_suffix (empty_text, "empty.txt is empty.]"));
}

static void
test_read_range (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GString) contents = g_string_new (NULL);
  g_autoptr(ZotToolResult) middle = NULL;
  g_autoptr(ZotToolResult) end = NULL;
  g_autoptr(ZotToolResult) as_strings = NULL;
  g_autofree char *middle_text = NULL;
  g_autofree char *end_text = NULL;
  g_autofree char *strings_text = NULL;

  for (guint i = 1; i <= 10; i++)
    g_string_append_printf (contents, "line %u\n", i);
  write_file (f, "ten.txt", contents->str, -1);

  middle = run_tool (f, "read", "{\"path\":\"ten.txt\",\"offset\":3,\"limit\":2}");
  middle_text = result_text (middle);
  g_assert_false (middle->is_error);
  g_assert_cmpstr (middle_text, ==,
                   "line 3\nline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to read more.]");

  /* A limit reaching past the end stops at the end. */
  end = run_tool (f, "read", "{\"path\":\"ten.txt\",\"offset\":8,\"limit\":50}");
  end_text = result_text (end);
  g_assert_false (end->is_error);
  g_assert_cmpstr (end_text, ==, "line 8\nline 9\nline 10\n\n[Showing lines 8-10 of 10.]");

  /* Models sometimes send numbers as strings. */
  as_strings = run_tool (f, "read", "{\"path\":\"ten.txt\",\"offset\":\"10\",\"limit\":1.0}");
  strings_text = result_text (as_strings);
  g_assert_cmpstr (strings_text, ==, "line 10\n\n[Showing lines 10-10 of 10.]");
}

static void
test_read_past_end (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotToolResult) past = NULL;
  g_autoptr(ZotToolResult) zero = NULL;
  g_autoptr(ZotToolResult) no_newline = NULL;
  g_autofree char *past_text = NULL;
  g_autofree char *no_newline_text = NULL;

  write_file (f, "short.txt", "a\nb\nc", -1);

  past = run_tool (f, "read", "{\"path\":\"short.txt\",\"offset\":50}");
  past_text = result_text (past);
  g_assert_true (past->is_error);
  g_assert_cmpint (past->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_assert_nonnull (strstr (past_text, "offset 50 is past the end"));
  g_assert_nonnull (strstr (past_text, "3 lines"));

  zero = run_tool (f, "read", "{\"path\":\"short.txt\",\"offset\":0}");
  g_assert_true (zero->is_error);

  /* The last line has no newline: it still counts, and the note starts
   * on a line of its own. */
  no_newline = run_tool (f, "read", "{\"path\":\"short.txt\",\"offset\":3}");
  no_newline_text = result_text (no_newline);
  g_assert_false (no_newline->is_error);
  g_assert_cmpstr (no_newline_text, ==, "c\n\n[Showing lines 3-3 of 3.]");
}

static void
test_read_cap (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GString) contents = g_string_new (NULL);
  g_autoptr(ZotToolResult) first = NULL;
  g_autoptr(ZotToolResult) rest = NULL;
  g_autofree char *first_text = NULL;
  g_autofree char *rest_text = NULL;
  g_autofree char *expected_note = NULL;
  g_autofree char *rest_args = NULL;
  g_autofree char *padding = g_strnfill (91, '.');
  const guint n_lines = 4000;
  const guint per_line = 100;
  guint fitting = ZOT_READ_MAX_BYTES / per_line;
  const char *note;

  /* Every line is 100 bytes: a number, padding, a newline. */
  for (guint i = 1; i <= n_lines; i++)
    g_string_append_printf (contents, "%08u%s\n", i, padding);
  g_assert_cmpuint (contents->len, ==, n_lines * per_line);
  g_assert_cmpuint (contents->len, >, ZOT_READ_MAX_BYTES);
  write_file (f, "big.txt", contents->str, contents->len);

  first = run_tool (f, "read", "{\"path\":\"big.txt\"}");
  first_text = result_text (first);
  g_assert_false (first->is_error);

  /* Cut at a line boundary, at most the cap, with the note after it. */
  note = strstr (first_text, "\n\n[Showing lines");
  g_assert_nonnull (note);
  g_assert_cmpuint (note - first_text + 1, ==, fitting * per_line);
  g_assert_cmpuint (note - first_text + 1, <=, ZOT_READ_MAX_BYTES);
  g_assert_true (memcmp (first_text, contents->str, fitting * per_line) == 0);
  expected_note = g_strdup_printf ("\n\n[Showing lines 1-%u of %u: the output is capped "
                                   "at %zu bytes. "
                                   "Use offset=%u (and limit) to read further.]",
                                   fitting, n_lines, ZOT_READ_MAX_BYTES, fitting + 1);
  g_assert_cmpstr (note, ==, expected_note);

  /* Following the note gets the rest. */
  rest_args = g_strdup_printf ("{\"path\":\"big.txt\",\"offset\":%u}", fitting + 1);
  rest = run_tool (f, "read", rest_args);
  rest_text = result_text (rest);
  g_assert_false (rest->is_error);
  g_assert_true (memcmp (rest_text, contents->str + fitting * per_line,
                         (n_lines - fitting) * per_line) == 0);
  g_assert_true (g_str_has_suffix (rest_text, "[Showing lines 2622-4000 of 4000.]"));
}

static void
test_read_long_line (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *line = g_strnfill (ZOT_READ_MAX_BYTES + 1000, 'x');
  g_autofree char *contents = g_strconcat (line, "\nsecond\n", NULL);
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;

  write_file (f, "minified.js", contents, -1);
  result = run_tool (f, "read", "{\"path\":\"minified.js\"}");
  text = result_text (result);

  g_assert_false (result->is_error);
  g_assert_true (strncmp (text, line, ZOT_READ_MAX_BYTES) == 0);
  g_assert_cmpint (text[ZOT_READ_MAX_BYTES], ==, '\n');
  g_assert_nonnull (strstr (text, "[Line 1 of 2 is longer than"));
  g_assert_nonnull (strstr (text, "offset=2"));
}

static void
test_read_binary (Fixture       *f,
                  gconstpointer  data)
{
  static const char bytes[] = "ELF\0\0\1\2binary\0stuff";
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;

  write_file (f, "program", bytes, sizeof bytes);
  result = run_tool (f, "read", "{\"path\":\"program\"}");
  text = result_text (result);

  g_assert_true (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_assert_nonnull (strstr (text, "binary"));
  g_assert_nonnull (strstr (text, "program"));
}

static void
test_read_invalid_utf8 (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GString) split = g_string_new (NULL);
  g_autoptr(GString) late = g_string_new (NULL);
  g_autoptr(ZotToolResult) latin1 = NULL;
  g_autoptr(ZotToolResult) split_result = NULL;
  g_autoptr(ZotToolResult) late_result = NULL;
  g_autoptr(ZotToolResult) truncated = NULL;
  g_autofree char *text = NULL;
  g_autofree char *split_text = NULL;

  write_file (f, "latin1.txt", "caf\xe9 cr\xe8me\n", -1);
  latin1 = run_tool (f, "read", "{\"path\":\"latin1.txt\"}");
  text = result_text (latin1);
  g_assert_true (latin1->is_error);
  g_assert_nonnull (strstr (text, "not valid UTF-8"));

  /* A two-byte character split across the reader's 64 KiB chunks is fine. */
  for (guint i = 0; i < 64 * 1024 - 1; i++)
    g_string_append_c (split, 'a');
  g_string_append (split, "\xc3\xa9\n");
  write_file (f, "split.txt", split->str, split->len);
  split_result = run_tool (f, "read", "{\"path\":\"split.txt\"}");
  split_text = result_text (split_result);
  g_assert_false (split_result->is_error);
  g_assert_cmpstr (split_text, ==, split->str);

  /* A bad byte far past the sniffed head is found too. */
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (late, 'b');
  g_string_append (late, "\xff\n");
  write_file (f, "late.txt", late->str, late->len);
  late_result = run_tool (f, "read", "{\"path\":\"late.txt\"}");
  g_assert_true (late_result->is_error);

  /* So is a character the end of the file cuts in half. */
  write_file (f, "cut.txt", "abc\xe2\x82", 5);
  truncated = run_tool (f, "read", "{\"path\":\"cut.txt\"}");
  g_assert_true (truncated->is_error);
}

static void
test_read_png (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *expected = g_base64_encode (tiny_png, sizeof tiny_png);
  JsonObject *block;

  write_file (f, "pixel.png", (const char *) tiny_png, sizeof tiny_png);
  result = run_tool (f, "read", "{\"path\":\"pixel.png\"}");

  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_cmpuint (json_array_get_length (result->content), ==, 1);
  block = json_array_get_object_element (result->content, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "image");
  g_assert_cmpstr (json_object_get_string_member (block, "mime_type"), ==, "image/png");
  g_assert_cmpstr (json_object_get_string_member (block, "data"), ==, expected);
}

static void
test_read_image_too_big (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree guint8 *big = g_malloc0 (ZOT_READ_IMAGE_MAX_BYTES + 1);
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;

  memcpy (big, tiny_png, sizeof tiny_png);
  write_file (f, "huge.png", (const char *) big, ZOT_READ_IMAGE_MAX_BYTES + 1);
  result = run_tool (f, "read", "{\"path\":\"huge.png\"}");
  text = result_text (result);

  g_assert_true (result->is_error);
  g_assert_nonnull (strstr (text, "image/png"));
  g_assert_nonnull (strstr (text, "larger than"));
}

static void
test_read_missing (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) no_path = NULL;
  g_autoptr(ZotToolResult) directory = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *resolved = path_in (f, "nowhere/missing.txt");

  result = run_tool (f, "read", "{\"path\":\"./nowhere/../nowhere/missing.txt\"}");
  text = result_text (result);
  expected = g_strdup_printf ("File not found: %s", resolved);

  g_assert_true (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_assert_cmpstr (text, ==, expected);

  no_path = run_tool (f, "read", "{\"offset\":1}");
  g_assert_true (no_path->is_error);

  directory = run_tool (f, "read", "{\"path\":\".\"}");
  g_assert_true (directory->is_error);
}

/* ---------------------------------------------------------------------- */
/* write                                                                   */
/* ---------------------------------------------------------------------- */

static void
test_write_parents (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *target = path_in (f, "a/b/c.txt");

  result = run_tool (f, "write", "{\"path\":\"a/b/c.txt\",\"content\":\"hello\\n\"}");
  text = result_text (result);
  expected = g_strdup_printf ("Wrote 6 bytes to %s", target);

  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_cmpstr (text, ==, expected);

  contents = read_file (f, "a/b/c.txt");
  g_assert_cmpstr (contents, ==, "hello\n");
}

static void
test_write_replace (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) empty = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *target = path_in (f, "dir/script.sh");
  g_autofree char *dir = path_in (f, "dir");
  struct stat st;

  write_file (f, "dir/script.sh", "old\n", -1);
  g_assert_cmpint (g_chmod (target, 0750), ==, 0);

  result = run_tool (f, "write",
                     "{\"path\":\"dir/script.sh\",\"content\":\"#!/bin/sh\\necho new\\n\"}");
  g_assert_false (result->is_error);

  contents = read_file (f, "dir/script.sh");
  g_assert_cmpstr (contents, ==, "#!/bin/sh\necho new\n");
  g_assert_cmpint (g_stat (target, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0750);
  /* No temporary file left beside it. */
  g_assert_cmpuint (zot_test_count_entries (dir), ==, 1);

  /* Empty content is content. */
  empty = run_tool (f, "write", "{\"path\":\"dir/script.sh\",\"content\":\"\"}");
  g_assert_false (empty->is_error);
  g_clear_pointer (&contents, g_free);
  contents = read_file (f, "dir/script.sh");
  g_assert_cmpstr (contents, ==, "");
}

static void
test_write_fails (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(ZotToolResult) under_file = NULL;
  g_autofree char *text = NULL;
  g_autofree char *target = path_in (f, "plain.txt/child.txt");
  g_autofree char *locked = path_in (f, "locked");

  /* A parent that is a regular file fails for root too. */
  write_file (f, "plain.txt", "keep me\n", -1);
  under_file = run_tool (f, "write", "{\"path\":\"plain.txt/child.txt\",\"content\":\"x\"}");
  text = result_text (under_file);
  g_assert_true (under_file->is_error);
  g_assert_cmpint (under_file->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_assert_nonnull (strstr (text, target));
  g_assert_nonnull (strstr (text, g_strerror (ENOTDIR)));
  g_clear_pointer (&text, g_free);
  text = read_file (f, "plain.txt");
  g_assert_cmpstr (text, ==, "keep me\n");
  g_assert_cmpuint (zot_test_count_entries (f->cwd), ==, 1);

  /* A read-only directory: the target stays whole, no temporary file is
   * left. Permissions do not stop root, so this part needs a user. */
  write_file (f, "locked/existing.txt", "original\n", -1);
  g_assert_cmpint (g_chmod (locked, 0500), ==, 0);
  if (access (locked, W_OK) == 0)
    {
      g_test_message ("permissions do not stop this user; skipping the read-only directory case");
    }
  else
    {
      g_autoptr(ZotToolResult) denied = NULL;
      g_autofree char *denied_text = NULL;
      g_autofree char *existing = path_in (f, "locked/existing.txt");

      denied = run_tool (f, "write",
                         "{\"path\":\"locked/existing.txt\",\"content\":\"replacement\"}");
      denied_text = result_text (denied);
      g_assert_true (denied->is_error);
      g_assert_nonnull (strstr (denied_text, existing));
      g_assert_nonnull (strstr (denied_text, g_strerror (EACCES)));
      g_clear_pointer (&text, g_free);
      text = read_file (f, "locked/existing.txt");
      g_assert_cmpstr (text, ==, "original\n");
      g_assert_cmpuint (zot_test_count_entries (locked), ==, 1);
    }
  g_chmod (locked, 0700);
}

/* ---------------------------------------------------------------------- */
/* edit                                                                    */
/* ---------------------------------------------------------------------- */

static void
test_edit_not_found (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(ZotToolResult) absent = NULL;
  g_autoptr(ZotToolResult) spacing = NULL;
  g_autofree char *absent_text = NULL;
  g_autofree char *spacing_text = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *target = path_in (f, "main.c");

  write_file (f, "main.c", "int\nmain (void)\n{\n  return  0;\n}\n", -1);

  absent = run_tool (f, "edit",
                     "{\"path\":\"main.c\",\"old_text\":\"exit (1);\",\"new_text\":\"exit (2);\"}");
  absent_text = result_text (absent);
  expected = g_strdup_printf ("old_text was not found in %s.", target);
  g_assert_true (absent->is_error);
  g_assert_cmpint (absent->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_assert_true (g_str_has_prefix (absent_text, expected));
  g_assert_null (strstr (absent_text, "whitespace"));

  /* Differs only in whitespace: said so. */
  spacing = run_tool (f, "edit",
                      "{\"path\":\"main.c\",\"old_text\":\"{\\n    return 0;\","
                      "\"new_text\":\"x\"}");
  spacing_text = result_text (spacing);
  g_assert_true (spacing->is_error);
  g_assert_true (g_str_has_prefix (spacing_text, expected));
  g_assert_nonnull (strstr (spacing_text, "whitespace"));

  contents = read_file (f, "main.c");
  g_assert_cmpstr (contents, ==, "int\nmain (void)\n{\n  return  0;\n}\n");
}

static void
test_edit_once (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *target = path_in (f, "greet.py");
  struct stat st;

  write_file (f, "greet.py", "def greet():\n    print(\"hi\")\n", -1);
  g_assert_cmpint (g_chmod (target, 0755), ==, 0);

  result = run_tool (f, "edit", "{\"path\":\"greet.py\",\"old_text\":\"print(\\\"hi\\\")\","
                                "\"new_text\":\"print(\\\"hello\\\")\"}");
  text = result_text (result);
  expected = g_strdup_printf ("Replaced 1 occurrence in %s", target);
  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_cmpstr (text, ==, expected);

  contents = read_file (f, "greet.py");
  g_assert_cmpstr (contents, ==, "def greet():\n    print(\"hello\")\n");
  g_assert_cmpint (g_stat (target, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0755);
  g_assert_cmpuint (zot_test_count_entries (f->cwd), ==, 1);
}

static void
test_edit_several (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(ZotToolResult) ambiguous = NULL;
  g_autoptr(ZotToolResult) all = NULL;
  g_autofree char *ambiguous_text = NULL;
  g_autofree char *all_text = NULL;
  g_autofree char *contents = NULL;

  write_file (f, "list.txt", "apple\npear\napple\n", -1);

  ambiguous = run_tool (f, "edit",
                        "{\"path\":\"list.txt\",\"old_text\":\"apple\",\"new_text\":\"plum\"}");
  ambiguous_text = result_text (ambiguous);
  g_assert_true (ambiguous->is_error);
  g_assert_nonnull (strstr (ambiguous_text, "matches 2 times"));
  g_assert_nonnull (strstr (ambiguous_text, "replace_all"));
  g_assert_nonnull (strstr (ambiguous_text, "context"));
  contents = read_file (f, "list.txt");
  g_assert_cmpstr (contents, ==, "apple\npear\napple\n");

  all = run_tool (f, "edit", "{\"path\":\"list.txt\",\"old_text\":\"apple\",\"new_text\":\"plum\","
                             "\"replace_all\":true}");
  all_text = result_text (all);
  g_assert_false (all->is_error);
  g_assert_true (g_str_has_prefix (all_text, "Replaced 2 occurrences in "));
  g_clear_pointer (&contents, g_free);
  contents = read_file (f, "list.txt");
  g_assert_cmpstr (contents, ==, "plum\npear\nplum\n");
}

/* ---------------------------------------------------------------------- */
/* bash                                                                    */
/* ---------------------------------------------------------------------- */

static void
test_bash_output (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) where = NULL;
  g_autoptr(ZotToolResult) input = NULL;
  g_autofree char *text = NULL;
  g_autofree char *where_text = NULL;
  g_autofree char *input_text = NULL;
  g_autofree char *real_cwd = realpath (f->cwd, NULL);
  g_autofree char *expected_where = g_strdup_printf ("%s\nexit code: 0", real_cwd);

  result = run_tool (f, "bash", "{\"command\":\"echo hello; echo oops >&2\"}");
  text = result_text (result);
  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_cmpstr (text, ==, "hello\noops\nexit code: 0");

  where = run_tool (f, "bash", "{\"command\":\"pwd -P\"}");
  where_text = result_text (where);
  g_assert_cmpstr (where_text, ==, expected_where);

  /* stdin is /dev/null: a reader gets end of file, it does not hang. */
  input = run_tool (f, "bash", "{\"command\":\"cat; echo read-done\"}");
  input_text = result_text (input);
  g_assert_cmpstr (input_text, ==, "read-done\nexit code: 0");
}

/* A provider key is for the provider: a command the agent runs does not
 * inherit it, from the environment or not. */
static void
test_bash_no_keys (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;

  g_setenv ("ANTHROPIC_API_KEY", "sk-ant-secret", TRUE);
  g_setenv ("OPENAI_API_KEY", "sk-openai-secret", TRUE);
  g_setenv ("ZOT_TEST_HARMLESS", "kept", TRUE);
  result = run_tool (f, "bash", "{\"command\":\"echo ${ANTHROPIC_API_KEY-none} ${OPENAI_API_KEY-none} $ZOT_TEST_HARMLESS\"}");
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("ZOT_TEST_HARMLESS");

  text = result_text (result);
  g_assert_cmpstr (text, ==, "none none kept\nexit code: 0");
}

static void
test_bash_exit_code (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) silent = NULL;
  g_autofree char *text = NULL;
  g_autofree char *silent_text = NULL;

  result = run_tool (f, "bash", "{\"command\":\"echo partial; exit 3\"}");
  text = result_text (result);
  g_assert_true (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_assert_cmpstr (text, ==, "partial\nexit code: 3");

  silent = run_tool (f, "bash", "{\"command\":\"true\"}");
  silent_text = result_text (silent);
  g_assert_false (silent->is_error);
  g_assert_true (g_str_has_suffix (silent_text, "exit code: 0"));
}

static void
test_bash_timeout (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) by_default = NULL;
  g_autofree char *text = NULL;
  gint64 start = g_get_monotonic_time ();

  result = run_tool (f, "bash",
                     "{\"command\":\"echo before; sleep 30; echo finished\",\"timeout_ms\":200}");
  text = result_text (result);
  g_assert_true (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_TIMED_OUT);
  g_assert_true (g_str_has_prefix (text, "before\n"));
  g_assert_null (strstr (text, "finished"));
  g_assert_nonnull (strstr (text, "Timed out after 200 ms"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);

  /* Without timeout_ms, the bash deadline applies. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_BASH, 150);
  by_default = run_tool (f, "bash", "{\"command\":\"sleep 30\"}");
  g_assert_cmpint (by_default->outcome, ==, ZOT_TOOL_OUTCOME_TIMED_OUT);
}

static void
test_bash_escaped_holder (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *setsid = g_find_program_in_path ("setsid");
  PidFile holder = { NULL, 0 };

  if (setsid == NULL)
    {
      g_test_skip ("setsid is not installed");
      return;
    }

  /* A process that left the group keeps the pipe open past the kill; the
   * timeout must still complete the call. */
  holder.path = path_in (f, "holder.pid");
  result = run_tool (f, "bash", "{\"command\":\"setsid sleep 30 & echo $! > holder.pid; sleep 30\","
                                "\"timeout_ms\":200}");
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_TIMED_OUT);

  g_assert_true (pid_file_ready (&holder));
  g_array_append_val (f->pids, holder.pid);
  g_free (holder.path);
}

static void
test_bash_cap (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected_cut = NULL;
  const gsize produced = 600000 + 1 + 4;
  const char *cut;

  result = run_tool (f, "bash",
                     "{\"command\":\"head -c 600000 /dev/zero | tr '\\\\0' a; echo; echo END\"}");
  text = result_text (result);
  g_assert_false (result->is_error);

  expected_cut = g_strdup_printf ("\n[… %zu bytes cut …]\n",
                                  produced - ZOT_BASH_OUTPUT_MAX_BYTES);
  cut = strstr (text, expected_cut);
  g_assert_nonnull (cut);
  /* The head is kept... */
  g_assert_cmpuint (cut - text, ==, ZOT_BASH_OUTPUT_MAX_BYTES / 2);
  g_assert_cmpint (text[0], ==, 'a');
  /* ...and so is the tail, then the exit code. */
  g_assert_true (g_str_has_suffix (text, "aaaa\nEND\nexit code: 0"));
  g_assert_cmpuint (strlen (text), <=, ZOT_BASH_OUTPUT_MAX_BYTES + 100);
}

static void
test_bash_cancel (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  PidFile grandchild = { NULL, 0 };
  Call call = { 0 };

  grandchild.path = path_in (f, "child.pid");
  start_call (f, "bash",
              "{\"command\":\"sleep 30 & echo $! > child.tmp && mv child.tmp child.pid; wait\"}",
              cancellable, &call);

  poll_until (pid_file_ready, &grandchild, CALL_DEADLINE_MS);
  g_array_append_val (f->pids, grandchild.pid);
  g_assert_false (process_gone (GINT_TO_POINTER (grandchild.pid)));
  g_assert_false (call.done);

  g_cancellable_cancel (cancellable);
  wait_call (&call, CALL_DEADLINE_MS);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (call.result);
  g_clear_error (&call.error);

  /* The whole group went, not only the shell. */
  poll_until (process_gone, GINT_TO_POINTER (grandchild.pid), CALL_DEADLINE_MS);
  g_free (grandchild.path);
}

static void
test_bash_background (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;
  PidFile background = { NULL, 0 };
  gint64 start = g_get_monotonic_time ();

  /* The background sleep holds the output pipe open for 30 s; the call
   * ends when the shell does. */
  background.path = path_in (f, "bg.pid");
  result = run_tool (f, "bash", "{\"command\":\"(sleep 30 & echo $! > bg.pid) ; echo done\"}");
  text = result_text (result);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_assert_false (result->is_error);
  g_assert_cmpstr (text, ==, "done\nexit code: 0");

  g_assert_true (pid_file_ready (&background));
  g_array_append_val (f->pids, background.pid);
  g_free (background.path);
}

/* Inside Flatpak the command runs on the host through flatpak-spawn:
 * the working directory and the scrubbed keys go along, and the exit
 * status comes back. */
static void
test_bash_sandboxed (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *text = NULL;
  g_autofree char *real_cwd = realpath (f->cwd, NULL);
  g_autofree char *expected = g_strdup_printf ("%s\nnone kept\nexit code: 3", real_cwd);
  g_autofree char *directory = g_strconcat ("--directory=", f->cwd, NULL);
  const char *command = "pwd -P; echo ${ANTHROPIC_API_KEY-none} $ZOT_TEST_HARMLESS; exit 3";
  const char *expected_tail[] = { "--", "bash", "-c", command, NULL };
  JsonArray *argv;
  guint n;

  g_setenv ("ANTHROPIC_API_KEY", "sk-ant-secret", TRUE);
  g_setenv ("ZOT_TEST_HARMLESS", "kept", TRUE);
  result = run_tool (f, "bash", "{\"command\":\"pwd -P; echo ${ANTHROPIC_API_KEY-none} "
                                "$ZOT_TEST_HARMLESS; exit 3\"}");
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("ZOT_TEST_HARMLESS");

  text = result_text (result);
  g_assert_cmpstr (text, ==, expected);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);

  calls = zot_test_read_frames (f->sandbox_log);
  g_assert_cmpuint (calls->len, ==, 1);
  argv = json_object_get_array_member (g_ptr_array_index (calls, 0), "argv");
  n = json_array_get_length (argv);
  g_assert_cmpstr (json_array_get_string_element (argv, 0), ==, "--host");
  g_assert_cmpstr (json_array_get_string_element (argv, 1), ==, "--watch-bus");
  g_assert_cmpstr (json_array_get_string_element (argv, 2), ==, directory);
  g_assert_cmpuint (n, >, 3 + G_N_ELEMENTS (expected_tail) - 1);
  for (guint i = 0; i < G_N_ELEMENTS (expected_tail) - 1; i++)
    g_assert_cmpstr (json_array_get_string_element (argv, n - 4 + i), ==, expected_tail[i]);

  /* The host's session may hold a key the sandbox does not: unset there. */
  {
    gboolean unset = FALSE;

    for (guint i = 3; i < n - 4; i++)
      if (g_str_equal (json_array_get_string_element (argv, i), "--unset-env=ANTHROPIC_API_KEY"))
        unset = TRUE;
    g_assert_true (unset);
  }
}

/* flatpak-spawn exits with 128 + N for a host command killed by signal N,
 * as the shell would report it. */
static void
test_bash_sandboxed_signal (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(ZotToolResult) result = NULL;
  g_autofree char *text = NULL;

  result = run_tool (f, "bash", "{\"command\":\"echo going; kill -TERM $$\"}");
  text = result_text (result);
  g_assert_true (result->is_error);
  g_assert_cmpstr (text, ==, "going\nexit code: 143");
}

/* A timeout or a cancel cannot SIGKILL a host command through
 * flatpak-spawn: the forwarded SIGINT and SIGTERM end it and what it runs
 * in the foreground, on the host side. */
static void
test_bash_sandboxed_stop (Fixture       *f,
                          gconstpointer  data)
{
  const char *command = "{\"command\":\"sh -c 'echo $$ > child.tmp && mv child.tmp child.pid; "
                        "exec sleep 60'\"%s}";
  /* Long enough for the command to start on a busy machine; the test
   * waits for the pid file, then for the timeout. */
  g_autofree char *with_timeout = g_strdup_printf (command, ",\"timeout_ms\":3000");
  g_autofree char *without = g_strdup_printf (command, "");
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  PidFile timed = { NULL, 0 };
  PidFile cancelled = { NULL, 0 };
  Call call = { 0 };

  timed.path = path_in (f, "child.pid");
  start_call (f, "bash", with_timeout, NULL, &call);
  poll_until (pid_file_ready, &timed, CALL_DEADLINE_MS);
  g_array_append_val (f->pids, timed.pid);
  g_assert_false (call.done);
  wait_call (&call, CALL_DEADLINE_MS);
  g_assert_no_error (call.error);
  result = call.result;
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_TIMED_OUT);
  poll_until (process_gone, GINT_TO_POINTER (timed.pid), CALL_DEADLINE_MS);
  g_assert_cmpint (g_unlink (timed.path), ==, 0);
  memset (&call, 0, sizeof call);

  cancelled.path = path_in (f, "child.pid");
  start_call (f, "bash", without, cancellable, &call);
  poll_until (pid_file_ready, &cancelled, CALL_DEADLINE_MS);
  g_array_append_val (f->pids, cancelled.pid);
  g_cancellable_cancel (cancellable);
  wait_call (&call, CALL_DEADLINE_MS);
  g_assert_error (call.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&call.error);
  poll_until (process_gone, GINT_TO_POINTER (cancelled.pid), CALL_DEADLINE_MS);

  g_free (timed.path);
  g_free (cancelled.path);
}

static void
test_bash_bad_args (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(ZotToolResult) no_command = NULL;
  g_autoptr(ZotToolResult) bad_timeout = NULL;

  no_command = run_tool (f, "bash", "{\"cmd\":\"ls\"}");
  g_assert_true (no_command->is_error);
  g_assert_cmpint (no_command->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);

  bad_timeout = run_tool (f, "bash", "{\"command\":\"true\",\"timeout_ms\":-5}");
  g_assert_true (bad_timeout->is_error);
}

/* ---------------------------------------------------------------------- */
/* skill                                                                   */
/* ---------------------------------------------------------------------- */

static void
write_skill (const char *root,
             const char *dirname,
             const char *text)
{
  g_autofree char *dir = g_build_filename (root, dirname, NULL);
  g_autofree char *path = g_build_filename (dir, "SKILL.md", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static void
test_skill_discovery (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *user = g_build_filename (f->home, "skills", NULL);
  g_autofree char *project = g_build_filename (f->cwd, ".zot", "skills", NULL);
  g_autofree char *list = NULL;
  g_autofree char *project_alpha = g_build_filename (project, "renamed", "SKILL.md", NULL);
  g_autofree char *empty = g_build_filename (user, "empty", NULL);
  g_autoptr(GPtrArray) skills = NULL;
  ZotSkill *skill;

  write_skill (user, "alpha", "---\nname: alpha\ndescription: User alpha\n---\n# Alpha\n");
  write_skill (user, "beta", "# Beta\n\nBeta does things.\nMore about it.\n");
  write_skill (user, "zeta", "---\ndescription: Zeta from the user\n---\nbody\n");
  /* A directory without SKILL.md is no skill. */
  g_assert_cmpint (g_mkdir_with_parents (empty, 0700), ==, 0);
  /* The project's skill named alpha replaces the user's, in its place. */
  write_skill (project, "renamed", "---\nname: alpha\ndescription: Project alpha\n---\n");
  write_skill (project, "zeta", "Zeta from the project.\n");
  write_skill (project, "gamma", "---\nname: gamma\n---\n\n## Heading\n\nGamma text.\n");

  skills = zot_skills_discover (f->cwd);
  list = zot_skills_format_list (skills);
  g_assert_cmpstr (list, ==,
                   "- zot-extensions: How to write a zot extension (a program speaking JSON "
                   "lines on stdin/stdout) that adds slash commands, tools and status notes: "
                   "start with `zot ext new` in Go, Python, Node, TypeScript, C or sh, write it "
                   "on that language's SDK, and test it with `zot ext check`\n"
                   "- alpha: Project alpha\n"
                   "- beta: Beta does things.\n"
                   "- zeta: Zeta from the project.\n"
                   "- gamma: Gamma text.\n");

  skill = zot_skills_find (skills, "alpha");
  g_assert_nonnull (skill);
  g_assert_cmpstr (skill->source, ==, "project");
  g_assert_cmpstr (skill->path, ==, project_alpha);
  g_assert_true (g_str_has_suffix (skill->directory, "renamed"));

  skill = zot_skills_find (skills, "beta");
  g_assert_cmpstr (skill->source, ==, "user");

  skill = zot_skills_find (skills, "ZOT-Extensions");
  g_assert_nonnull (skill);
  g_assert_cmpstr (skill->source, ==, "builtin");
  g_assert_null (skill->path);
  g_assert_null (skill->directory);

  g_assert_null (zot_skills_find (skills, "missing"));
}

static void
test_skill_front_matter (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *project = g_build_filename (f->cwd, ".zot", "skills", NULL);
  g_autoptr(GPtrArray) skills = NULL;
  g_autoptr(ZotSkill) copy = NULL;
  ZotSkill *skill;

  write_skill (project, "quoted",
               "---\nname: \"quoted-name\"\ndescription: 'It''s: quoted'\nother: x\n---\nBody.\n");
  write_skill (project, "folded",
               "---\nname: folded\ndescription: >\n  First part\n  second part.\n"
               "license: MIT\n---\n");
  write_skill (project, "unclosed", "---\nname: never\n\nThe first real line.\n");
  write_skill (project, "crlf",
               "---\r\nname: crlf\r\ndescription: Windows lines\r\n---\r\nBody\r\n");
  write_skill (project, "code", "# Title\n\n```\ncode line\n```\n\nAfter the code.\n");

  skills = zot_skills_discover (f->cwd);

  skill = zot_skills_find (skills, "quoted-name");
  g_assert_nonnull (skill);
  g_assert_cmpstr (skill->description, ==, "It's: quoted");

  skill = zot_skills_find (skills, "folded");
  g_assert_nonnull (skill);
  g_assert_cmpstr (skill->description, ==, "First part second part.");

  /* No closing line: not front matter, so the directory names it. */
  skill = zot_skills_find (skills, "unclosed");
  g_assert_nonnull (skill);
  g_assert_null (zot_skills_find (skills, "never"));
  g_assert_cmpstr (skill->description, ==, "name: never");

  skill = zot_skills_find (skills, "crlf");
  g_assert_nonnull (skill);
  g_assert_cmpstr (skill->description, ==, "Windows lines");

  skill = zot_skills_find (skills, "code");
  g_assert_nonnull (skill);
  g_assert_cmpstr (skill->description, ==, "After the code.");

  copy = zot_skill_copy (skill);
  g_assert_cmpstr (copy->name, ==, "code");
  g_assert_cmpstr (copy->path, ==, skill->path);
}

#define DEPLOY_SKILL "---\nname: deploy\ndescription: Ship it\n---\nRun scripts/deploy.sh.\n"

static void
test_skill_tool (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *project = g_build_filename (f->cwd, ".zot", "skills", NULL);
  g_autofree char *directory = g_build_filename (project, "deploy", NULL);
  g_autoptr(ZotToolResult) result = NULL;
  g_autoptr(ZotToolResult) builtin = NULL;
  g_autoptr(ZotToolResult) unknown = NULL;
  g_autofree char *text = NULL;
  g_autofree char *builtin_text = NULL;
  g_autofree char *unknown_text = NULL;

  write_skill (project, "deploy", DEPLOY_SKILL);

  result = run_tool (f, "skill", "{\"name\":\"deploy\"}");
  text = result_text (result);
  g_assert_false (result->is_error);
  g_assert_cmpint (result->outcome, ==, ZOT_TOOL_OUTCOME_COMPLETED);
  g_assert_nonnull (strstr (text, directory));
  g_assert_true (g_str_has_suffix (text, DEPLOY_SKILL));

  builtin = run_tool (f, "skill", "{\"name\":\"zot-extensions\"}");
  builtin_text = result_text (builtin);
  g_assert_false (builtin->is_error);
  g_assert_nonnull (strstr (builtin_text, "\"type\":\"hello\""));
  g_assert_nonnull (strstr (builtin_text, "register_command"));
  g_assert_nonnull (strstr (builtin_text, "\"type\":\"ready\""));
  g_assert_nonnull (strstr (builtin_text, "command_invoked"));
  g_assert_nonnull (strstr (builtin_text, "command_response"));
  g_assert_nonnull (strstr (builtin_text, "\"type\":\"notify\""));
  g_assert_nonnull (strstr (builtin_text, "zot ext new NAME --lang LANG --dir DIR"));
  g_assert_nonnull (strstr (builtin_text, "```python"));

  unknown = run_tool (f, "skill", "{\"name\":\"nope\"}");
  unknown_text = result_text (unknown);
  g_assert_true (unknown->is_error);
  g_assert_cmpint (unknown->outcome, ==, ZOT_TOOL_OUTCOME_FAILED);
  g_assert_cmpstr (unknown_text, ==,
                   "Unknown skill \"nope\". Available skills: zot-extensions, deploy.");
}

/* ---------------------------------------------------------------------- */
/* The set                                                                 */
/* ---------------------------------------------------------------------- */

static void
test_names (void)
{
  static const struct {
    const char *name;
    gboolean    concurrent;
    const char *required;
  } expected[] = {
    { "read",  TRUE,  "path" },
    { "write", FALSE, "path,content" },
    { "edit",  FALSE, "path,old_text,new_text" },
    { "bash",  TRUE,  "command" },
    { "skill", TRUE,  "name" },
    { "glob",  TRUE,  "pattern" },
  };
  GPtrArray *tools = zot_builtin_tools_new ();
  GType types[] = {
    ZOT_TYPE_READ_TOOL, ZOT_TYPE_WRITE_TOOL, ZOT_TYPE_EDIT_TOOL,
    ZOT_TYPE_BASH_TOOL, ZOT_TYPE_SKILL_TOOL, ZOT_TYPE_GLOB_TOOL,
  };

  g_assert_cmpuint (tools->len, ==, G_N_ELEMENTS (expected));

  for (guint i = 0; i < tools->len; i++)
    {
      ZotTool *tool = g_ptr_array_index (tools, i);
      JsonObject *schema = zot_tool_get_schema (tool);
      JsonObject *properties;
      JsonArray *required;
      g_autoptr(GString) names = g_string_new (NULL);

      g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (tool, types[i]));
      g_assert_cmpstr (zot_tool_get_name (tool), ==, expected[i].name);
      g_assert_cmpint (zot_tool_get_concurrent (tool), ==, expected[i].concurrent);
      g_assert_cmpint (zot_tool_get_exposure (tool), ==, ZOT_TOOL_EXPOSURE_DIRECT);
      g_assert_null (zot_tool_get_origin (tool));
      g_assert_cmpuint (strlen (zot_tool_get_description (tool)), >, 80);

      g_assert_nonnull (schema);
      g_assert_cmpstr (json_object_get_string_member (schema, "type"), ==, "object");
      properties = json_object_get_object_member (schema, "properties");
      required = json_object_get_array_member (schema, "required");
      for (guint j = 0; j < json_array_get_length (required); j++)
        {
          const char *member = json_array_get_string_element (required, j);

          if (j > 0)
            g_string_append_c (names, ',');
          g_string_append (names, member);
          g_assert_true (json_object_has_member (properties, member));
        }
      g_assert_cmpstr (names->str, ==, expected[i].required);
    }

  /* Each instance is new, owned by the array alone. */
  for (guint i = tools->len; i > 0; i--)
    {
      ZotTool *tool = g_ptr_array_steal_index (tools, i - 1);
      g_assert_finalize_object (tool);
    }
  g_ptr_array_unref (tools);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/zot/tools/read/whole", test_read_whole);
  ADD ("/zot/tools/read/range", test_read_range);
  ADD ("/zot/tools/read/past-end", test_read_past_end);
  ADD ("/zot/tools/read/cap", test_read_cap);
  ADD ("/zot/tools/read/long-line", test_read_long_line);
  ADD ("/zot/tools/read/binary", test_read_binary);
  ADD ("/zot/tools/read/invalid-utf8", test_read_invalid_utf8);
  ADD ("/zot/tools/read/png", test_read_png);
  ADD ("/zot/tools/read/image-too-big", test_read_image_too_big);
  ADD ("/zot/tools/read/missing", test_read_missing);
  ADD ("/zot/tools/write/parents", test_write_parents);
  ADD ("/zot/tools/write/replace", test_write_replace);
  ADD ("/zot/tools/write/fails", test_write_fails);
  ADD ("/zot/tools/edit/not-found", test_edit_not_found);
  ADD ("/zot/tools/edit/once", test_edit_once);
  ADD ("/zot/tools/edit/several", test_edit_several);
  ADD ("/zot/tools/bash/output", test_bash_output);
  ADD ("/zot/tools/bash/exit-code", test_bash_exit_code);
  ADD ("/zot/tools/bash/no-keys", test_bash_no_keys);
  ADD ("/zot/tools/bash/timeout", test_bash_timeout);
  ADD ("/zot/tools/bash/escaped-holder", test_bash_escaped_holder);
  ADD ("/zot/tools/bash/cap", test_bash_cap);
  ADD ("/zot/tools/bash/cancel", test_bash_cancel);
  ADD ("/zot/tools/bash/background", test_bash_background);
  ADD ("/zot/tools/bash/bad-args", test_bash_bad_args);
  g_test_add ("/zot/tools/bash/sandboxed/run", Fixture, NULL, fixture_setup_sandboxed,
              test_bash_sandboxed, fixture_teardown_sandboxed);
  g_test_add ("/zot/tools/bash/sandboxed/signal", Fixture, NULL, fixture_setup_sandboxed,
              test_bash_sandboxed_signal, fixture_teardown_sandboxed);
  g_test_add ("/zot/tools/bash/sandboxed/stop", Fixture, NULL, fixture_setup_sandboxed,
              test_bash_sandboxed_stop, fixture_teardown_sandboxed);
  ADD ("/zot/tools/skill/discovery", test_skill_discovery);
  ADD ("/zot/tools/skill/front-matter", test_skill_front_matter);
  ADD ("/zot/tools/skill/tool", test_skill_tool);

#undef ADD

  g_test_add_func ("/zot/tools/names", test_names);

  return g_test_run ();
}
