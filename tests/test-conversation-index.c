/* test-conversation-index.c — the stored conversations of a directory:
 * titles, order, search, rename, trash, and following the directory. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <utime.h>

#include <glib/gstdio.h>

#include "zot-conversation-index.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-paths.h"
#include "zot-session.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv            env;
  char                 *cwd;    /* canonical, as headers have it */
  char                 *dir;
  ZotConversationIndex *index;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->cwd = zot_paths_canonicalize (f->env.cwd);
  f->dir = zot_session_get_directory_for_cwd (f->env.cwd);
  g_assert_cmpint (g_mkdir_with_parents (f->dir, 0700), ==, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->index != NULL)
    g_assert_finalize_object (g_steal_pointer (&f->index));
  g_clear_pointer (&f->dir, g_free);
  g_clear_pointer (&f->cwd, g_free);
  zot_test_env_teardown (&f->env);
}

static char *
message_line (const char *role,
              const char *text)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "message");
  json_builder_set_member_name (builder, "message");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, role);
  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, NULL);
}

/* Writes a session of @cwd named @id with the messages (role, text)…, NULL-ended. */
static char *
write_session_in (Fixture    *f,
                  const char *cwd,
                  const char *id,
                  ...)
{
  g_autoptr(GString) contents = g_string_new (NULL);
  g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
  char *path = g_build_filename (f->dir, name, NULL);
  const char *role;
  va_list args;

  g_string_append_printf (contents,
                          "{\"type\":\"session\",\"version\":1,\"id\":\"%s\",\"cwd\":\"%s\",\"created\":\"2024-01-01T00:00:00Z\"}\n",
                          id, cwd);
  va_start (args, id);
  while ((role = va_arg (args, const char *)) != NULL)
    {
      g_autofree char *line = message_line (role, va_arg (args, const char *));

      g_string_append_printf (contents, "%s\n", line);
    }
  va_end (args);

  g_assert_true (g_file_set_contents (path, contents->str, (gssize) contents->len, NULL));
  return path;
}

#define write_session(f, id, ...) write_session_in ((f), (f)->cwd, (id), __VA_ARGS__)

static void
set_mtime (const char *path,
           time_t      seconds)
{
  struct utimbuf times = { seconds, seconds };

  g_assert_cmpint (utime (path, &times), ==, 0);
}

static gboolean
index_loaded (gpointer data)
{
  Fixture *f = data;

  return !zot_conversation_index_get_loading (f->index);
}

static void
open_index (Fixture *f)
{
  f->index = zot_conversation_index_new (f->env.cwd);
  zot_test_wait_until (index_loaded, f, 20000);
}

static void
reload (Fixture *f)
{
  zot_conversation_index_reload (f->index);
  zot_test_wait_until (index_loaded, f, 20000);
}

static ZotConversation *
nth (Fixture *f,
     guint    position)
{
  ZotConversation *conversation = g_list_model_get_item (G_LIST_MODEL (f->index), position);

  g_assert_nonnull (conversation);
  /* The index keeps a reference while it lists it. */
  g_object_unref (conversation);
  return conversation;
}

static void
test_new_destroy (Fixture       *f,
                  gconstpointer  data)
{
  open_index (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 0);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (f->index)) == ZOT_TYPE_CONVERSATION);
  g_assert_cmpstr (zot_conversation_index_get_directory (f->index), ==, f->dir);
}

static void
test_titles (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *at_limit = g_strnfill (ZOT_CONVERSATION_TITLE_MAX_CHARS, 'a');
  g_autofree char *over_limit = g_strnfill (ZOT_CONVERSATION_TITLE_MAX_CHARS + 1, 'b');
  g_autofree char *cut = NULL;
  g_autofree char *first = write_session (f, "s1", "user", "\n  Fix the parser  \nand more", "assistant", "ok", NULL);
  g_autofree char *second = write_session (f, "s2", "assistant", "no prompt yet", NULL);
  g_autofree char *third = write_session (f, "s3", "user", at_limit, NULL);
  g_autofree char *fourth = write_session (f, "s4", "user", over_limit, NULL);

  set_mtime (first, 4000);
  set_mtime (second, 3000);
  set_mtime (third, 2000);
  set_mtime (fourth, 1000);
  open_index (f);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 4);
  g_assert_cmpstr (zot_conversation_get_title (nth (f, 0)), ==, "Fix the parser");
  g_assert_cmpstr (zot_conversation_get_id (nth (f, 0)), ==, "s1");
  g_assert_false (zot_conversation_get_renamed (nth (f, 0)));
  g_assert_null (zot_conversation_get_title (nth (f, 1)));
  g_assert_cmpstr (zot_conversation_get_title (nth (f, 2)), ==, at_limit);

  cut = g_strconcat (over_limit + 1, NULL);
  cut[ZOT_CONVERSATION_TITLE_MAX_CHARS - 1] = '\0';
  g_assert_cmpuint (g_utf8_strlen (zot_conversation_get_title (nth (f, 3)), -1), ==,
                    ZOT_CONVERSATION_TITLE_MAX_CHARS);
  g_assert_true (g_str_has_prefix (zot_conversation_get_title (nth (f, 3)), cut));
  g_assert_true (g_str_has_suffix (zot_conversation_get_title (nth (f, 3)), "…"));
}

/* The first prompt must start within the head that is read. */
static void
test_title_head_edge (Fixture       *f,
                      gconstpointer  data)
{
  /* The header line, then an assistant message that fills the head up to
   * just before (or just past) where the prompt's line would end. */
  for (guint over = 0; over < 2; over++)
    {
      g_autofree char *id = g_strdup_printf ("edge%u", over);
      g_autofree char *path = write_session (f, id, NULL);
      g_autofree char *prompt = message_line ("user", "Edge prompt");
      g_autofree char *contents = NULL;
      g_autofree char *filler_text = NULL;
      g_autofree char *filler = NULL;
      g_autofree char *probe = message_line ("assistant", "");
      gsize header_length;
      gsize length;
      gsize room;

      g_assert_true (g_file_get_contents (path, &contents, &header_length, NULL));
      /* The bytes of head left for the filler line (with its newline)
       * when the prompt's line ends exactly at the head's end. */
      room = ZOT_CONVERSATION_HEAD_BYTES - header_length - (strlen (prompt) + 1) + over;
      filler_text = g_strnfill (room - (strlen (probe) + 1), 'x');
      filler = message_line ("assistant", filler_text);
      g_assert_cmpuint (strlen (filler) + 1, ==, room);

      {
        g_autofree char *all = g_strdup_printf ("%s%s\n%s\n", contents, filler, prompt);

        length = strlen (all);
        g_assert_cmpuint (length, ==, ZOT_CONVERSATION_HEAD_BYTES + over);
        g_assert_true (g_file_set_contents (path, all, (gssize) length, NULL));
      }
      set_mtime (path, 1000 + over);
    }

  open_index (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 2);
  /* Newest first: the one a byte over the head has no title. */
  g_assert_cmpstr (zot_conversation_get_id (nth (f, 0)), ==, "edge1");
  g_assert_null (zot_conversation_get_title (nth (f, 0)));
  g_assert_cmpstr (zot_conversation_get_title (nth (f, 1)), ==, "Edge prompt");
}

static void
test_other_cwd_and_junk (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *mine = write_session (f, "mine", "user", "mine", NULL);
  g_autofree char *theirs = write_session_in (f, "/somewhere/else", "theirs", "user", "theirs", NULL);
  g_autofree char *empty = g_build_filename (f->dir, "empty.jsonl", NULL);
  g_autofree char *other = g_build_filename (f->dir, "notes.txt", NULL);

  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_assert_true (g_file_set_contents (other, "hello\n", -1, NULL));
  open_index (f);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 1);
  g_assert_cmpstr (zot_conversation_get_path (nth (f, 0)), ==, mine);
  g_assert_nonnull (zot_conversation_index_lookup (f->index, mine));
  g_assert_null (zot_conversation_index_lookup (f->index, theirs));
}

static void
test_sorting (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *small_new = write_session (f, "a-small", "user", "small", NULL);
  g_autofree char *big_old = write_session (f, "b-big", "user", "big", "assistant",
                                            "a long reply that makes this file the largest of the three", NULL);
  g_autofree char *tie_one = write_session (f, "c-tie", "user", "tie", NULL);
  g_autofree char *tie_two = write_session (f, "d-tie", "user", "tie", NULL);

  set_mtime (small_new, 5000);
  set_mtime (big_old, 1000);
  set_mtime (tie_one, 3000);
  set_mtime (tie_two, 3000);
  open_index (f);

  g_assert_cmpstr (zot_conversation_get_id (nth (f, 0)), ==, "a-small");
  /* A tie in time goes to the greater name: ids sort by time. */
  g_assert_cmpstr (zot_conversation_get_id (nth (f, 1)), ==, "d-tie");
  g_assert_cmpstr (zot_conversation_get_id (nth (f, 2)), ==, "c-tie");
  g_assert_cmpstr (zot_conversation_get_id (nth (f, 3)), ==, "b-big");
  g_assert_cmpint (zot_conversation_get_modified (nth (f, 0)), ==, (gint64) 5000 * G_USEC_PER_SEC);

  zot_conversation_index_set_sort (f->index, ZOT_CONVERSATION_SORT_SIZE);
  g_assert_cmpint (zot_conversation_index_get_sort (f->index), ==, ZOT_CONVERSATION_SORT_SIZE);
  g_assert_cmpstr (zot_conversation_get_id (nth (f, 0)), ==, "b-big");
  g_assert_cmpuint (zot_conversation_get_size (nth (f, 0)), >, zot_conversation_get_size (nth (f, 1)));
}

static gboolean
has_n_items (Fixture *f,
             guint    n)
{
  return g_list_model_get_n_items (G_LIST_MODEL (f->index)) == n;
}

static gboolean
has_three (gpointer data)
{
  return has_n_items (data, 3);
}

static gboolean
has_one (gpointer data)
{
  return has_n_items (data, 1);
}

typedef struct
{
  Fixture    *f;
  const char *path;
  guint64     size;
  const char *title;
} Expect;

static gboolean
grew (gpointer data)
{
  Expect *expect = data;
  ZotConversation *conversation = zot_conversation_index_lookup (expect->f->index, expect->path);

  return conversation != NULL && zot_conversation_get_size (conversation) == expect->size;
}

static gboolean
titled (gpointer data)
{
  Expect *expect = data;
  ZotConversation *conversation = zot_conversation_index_lookup (expect->f->index, expect->path);

  return conversation != NULL && g_strcmp0 (zot_conversation_get_title (conversation), expect->title) == 0;
}

static void
count_changes_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  guint      *changes)
{
  (*changes)++;
}

/* Another process writes: the list follows the directory by itself. */
static void
test_monitor (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *first = write_session (f, "m1", "user", "first", NULL);
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *more = message_line ("assistant", "more text");
  g_autofree char *contents = NULL;
  g_autofree char *grown = NULL;
  ZotConversation *before;
  Expect expect = { f, NULL, 0, NULL };
  guint changes = 0;
  struct stat st;

  set_mtime (first, 1000);
  open_index (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 1);
  before = nth (f, 0);

  second = write_session (f, "m2", "user", "second", NULL);
  third = write_session (f, "m3", "user", "third", NULL);
  zot_test_wait_until (has_three, f, 20000);
  /* Files that did not change are not read again. */
  g_assert_true (zot_conversation_index_lookup (f->index, first) == before);

  g_signal_connect (f->index, "items-changed", G_CALLBACK (count_changes_cb), &changes);
  g_assert_true (g_file_get_contents (second, &contents, NULL, NULL));
  grown = g_strconcat (contents, more, "\n", NULL);
  g_assert_true (g_file_set_contents (second, grown, -1, NULL));
  g_assert_cmpint (stat (second, &st), ==, 0);
  expect.path = second;
  expect.size = (guint64) st.st_size;
  zot_test_wait_until (grew, &expect, 20000);
  g_assert_cmpuint (changes, >, 0);
  g_assert_true (zot_conversation_index_lookup (f->index, first) == before);

  g_assert_cmpint (g_unlink (second), ==, 0);
  g_assert_cmpint (g_unlink (third), ==, 0);
  zot_test_wait_until (has_one, f, 20000);
  g_assert_true (nth (f, 0) == before);

  /* A title file written by another window renames it here too. */
  {
    g_autofree char *title_path = zot_conversation_title_path_for (first);

    g_assert_true (g_file_set_contents (title_path, "Named elsewhere\n", -1, NULL));
    expect.path = first;
    expect.title = "Named elsewhere";
    zot_test_wait_until (titled, &expect, 20000);
  }
}

static void
async_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *result;
}

static void
test_rename (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *path = write_session (f, "r1", "user", "Original prompt", NULL);
  g_autofree char *title_path = zot_conversation_title_path_for (path);
  g_autofree char *stored = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  open_index (f);
  zot_conversation_index_rename_async (f->index, nth (f, 0), "  My name\nsecond line", NULL, async_cb, &result);
  g_assert_true (zot_conversation_index_rename_finish (f->index, wait_result (&result), &error));
  g_assert_no_error (error);
  zot_test_wait_until (index_loaded, f, 20000);
  reload (f);

  g_assert_cmpstr (zot_conversation_get_title (nth (f, 0)), ==, "My name");
  g_assert_true (zot_conversation_get_renamed (nth (f, 0)));
  g_assert_true (g_str_has_suffix (title_path, "/r1.title"));
  g_assert_true (g_file_get_contents (title_path, &stored, NULL, NULL));
  g_assert_cmpstr (stored, ==, "My name\n");

  /* A blank name gives the first prompt back. */
  g_clear_object (&result);
  zot_conversation_index_rename_async (f->index, nth (f, 0), "   ", NULL, async_cb, &result);
  g_assert_true (zot_conversation_index_rename_finish (f->index, wait_result (&result), &error));
  reload (f);
  g_assert_false (g_file_test (title_path, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (zot_conversation_get_title (nth (f, 0)), ==, "Original prompt");
  g_assert_false (zot_conversation_get_renamed (nth (f, 0)));
}

static void
test_trash (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *keep = write_session (f, "t1", "user", "keep", NULL);
  g_autofree char *gone = write_session (f, "t2", "user", "gone", NULL);
  g_autofree char *title_path = zot_conversation_title_path_for (gone);
  g_autofree char *trashed = g_build_filename (g_get_user_data_dir (), "Trash", "files", "t2.jsonl", NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (title_path, "Gone\n", -1, NULL));
  open_index (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 2);

  zot_conversation_index_trash_async (f->index, zot_conversation_index_lookup (f->index, gone),
                                      NULL, async_cb, &result);
  g_assert_true (zot_conversation_index_trash_finish (f->index, wait_result (&result), &error));
  g_assert_no_error (error);
  zot_test_wait_until (index_loaded, f, 20000);
  reload (f);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 1);
  g_assert_cmpstr (zot_conversation_get_path (nth (f, 0)), ==, keep);
  g_assert_false (g_file_test (gone, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (title_path, G_FILE_TEST_EXISTS));
  /* In the trash, where the user can take it back. */
  g_assert_true (g_file_test (trashed, G_FILE_TEST_EXISTS));
  g_unlink (trashed);
}

static GHashTable *
search (Fixture    *f,
        const char *text)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  GHashTable *found;

  zot_conversation_index_search_async (f->index, text, NULL, async_cb, &result);
  found = zot_conversation_index_search_finish (f->index, wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (found);
  return found;
}

static void
test_search (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *one = write_session (f, "q1", "user", "Tell me about parsers", "assistant",
                                        "A \"recursive\" descent parser reads tokens", NULL);
  g_autofree char *two = write_session (f, "q2", "user", "Grüße aus Köln", NULL);
  g_autofree char *three = write_session (f, "q3", "user", "nothing here", NULL);
  g_autoptr(GHashTable) descent = NULL;
  g_autoptr(GHashTable) cologne = NULL;
  g_autoptr(GHashTable) quoted = NULL;
  g_autoptr(GHashTable) title = NULL;
  g_autoptr(GHashTable) none = NULL;
  g_autoptr(GHashTable) key = NULL;

  {
    /* A tool result's text is searched too. */
    g_autofree char *contents = NULL;
    g_autofree char *all = NULL;

    g_assert_true (g_file_get_contents (three, &contents, NULL, NULL));
    all = g_strconcat (contents,
                       "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":"
                       "[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"bash\",\"input\":{}}]}}\n"
                       "{\"type\":\"message\",\"message\":{\"role\":\"tool\",\"content\":"
                       "[{\"type\":\"tool_result\",\"tool_use_id\":\"c1\",\"is_error\":false,"
                       "\"content\":[{\"type\":\"text\",\"text\":\"Makefile README\"}]}]}}\n", NULL);
    g_assert_true (g_file_set_contents (three, all, -1, NULL));
  }

  open_index (f);
  descent = search (f, "DESCENT");
  g_assert_cmpuint (g_hash_table_size (descent), ==, 1);
  g_assert_true (g_hash_table_contains (descent, one));

  cologne = search (f, "köln");
  g_assert_cmpuint (g_hash_table_size (cologne), ==, 1);
  g_assert_true (g_hash_table_contains (cologne, two));

  quoted = search (f, "\"recursive\"");
  g_assert_true (g_hash_table_contains (quoted, one));

  title = search (f, "readme");
  g_assert_cmpuint (g_hash_table_size (title), ==, 1);
  g_assert_true (g_hash_table_contains (title, three));

  /* Member names and other JSON are not text. */
  key = search (f, "tool_use_id");
  g_assert_cmpuint (g_hash_table_size (key), ==, 0);

  none = search (f, "xylophone");
  g_assert_cmpuint (g_hash_table_size (none), ==, 0);
}

/* Whether any message of @session has @text in its text. */
static gboolean
session_has_text (ZotSession *session,
                  const char *text)
{
  GPtrArray *messages = zot_session_get_messages (session);

  for (guint i = 0; i < messages->len; i++)
    {
      g_autofree char *all = zot_message_get_text (g_ptr_array_index (messages, i));

      if (all != NULL && strstr (all, text) != NULL)
        return TRUE;
    }

  return FALSE;
}

/* The list, its search and loading read a file through one reader, so
 * they agree on an awkward one: an empty line, a whole line that is not
 * an entry, a line longer than the list's head, and a torn last line
 * (each of the last two would match a search if it were read). */
static void
test_agrees_with_loading (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *path = write_session (f, "awkward", NULL);
  g_autofree char *bulky = g_strnfill (ZOT_CONVERSATION_HEAD_BYTES, 'x');
  g_autofree char *first = message_line ("user", "first real prompt");
  g_autofree char *large = message_line ("assistant", bulky);
  g_autofree char *after = message_line ("user", "after the bulk");
  g_autofree char *torn = message_line ("user", "torn whisper");
  g_autofree char *contents = NULL;
  g_autofree char *all = NULL;
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  const char * const texts[] = { "phantom", "first real", "xxxxxxxx", "after the bulk", "torn whisper" };
  const char * const *warnings;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  all = g_strconcat (contents,
                     "\n"
                     "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"phantom\","
                     "\"text\":\"phantom\"}}\n",
                     first, "\n", large, "\n", after, "\n", torn, NULL);
  g_assert_cmpuint (strlen (large), >, ZOT_CONVERSATION_HEAD_BYTES);
  g_assert_true (g_file_set_contents (path, all, -1, NULL));

  session = zot_session_open_read_only (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 3);
  warnings = zot_session_get_warnings (session);
  g_assert_cmpuint (g_strv_length ((GStrv) warnings), ==, 2);
  g_assert_nonnull (strstr (warnings[0], "dropped a torn last line"));
  g_assert_nonnull (strstr (warnings[1], "(line 3)"));

  open_index (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->index)), ==, 1);
  g_assert_cmpstr (zot_conversation_get_id (nth (f, 0)), ==, zot_session_get_id (session));
  g_assert_cmpstr (zot_conversation_get_title (nth (f, 0)), ==, "first real prompt");

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GHashTable) found = search (f, texts[i]);

      g_test_message ("searching for \"%s\"", texts[i]);
      g_assert_cmpint (g_hash_table_contains (found, path), ==, session_has_text (session, texts[i]));
    }
  g_assert_true (session_has_text (session, "after the bulk"));
  g_assert_false (session_has_text (session, "torn whisper"));
}

static void
test_make_title (void)
{
  g_autofree char *blank = zot_conversation_make_title (" \n\t\n");
  g_autofree char *invalid = zot_conversation_make_title ("ab\xff" "cd");

  g_assert_null (blank);
  g_assert_null (zot_conversation_make_title (NULL));
  g_assert_true (g_utf8_validate (invalid, -1, NULL));
}

#define add_test(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data_home = g_dir_make_tmp ("zot-test-data-XXXXXX", NULL);

  /* The trash goes here, on the same file system as the test's files. */
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_test_init (&argc, &argv, NULL);

  add_test ("/zot/conversation-index/new-destroy", test_new_destroy);
  add_test ("/zot/conversation-index/titles", test_titles);
  add_test ("/zot/conversation-index/title-head-edge", test_title_head_edge);
  add_test ("/zot/conversation-index/other-cwd-and-junk", test_other_cwd_and_junk);
  add_test ("/zot/conversation-index/sorting", test_sorting);
  add_test ("/zot/conversation-index/monitor", test_monitor);
  add_test ("/zot/conversation-index/rename", test_rename);
  add_test ("/zot/conversation-index/trash", test_trash);
  add_test ("/zot/conversation-index/search", test_search);
  add_test ("/zot/conversation-index/agrees-with-loading", test_agrees_with_loading);
  g_test_add_func ("/zot/conversation-index/make-title", test_make_title);

  {
    int status = g_test_run ();
    g_autofree char *command = g_strdup_printf ("rm -rf '%s'", data_home);

    (void) !system (command);
    return status;
  }
}
