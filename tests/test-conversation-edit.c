/* test-conversation-edit.c — deleting a message, retrying the last reply
 * and forking a conversation: what the file records (append-only), what
 * a reload gives back, and what a hostile file cannot do. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "zot-conversation.h"
#include "zot-conversation-edit.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-message.h"
#include "zot-session.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv  env;
  char       *dir;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->dir = zot_session_get_directory_for_cwd (f->env.cwd);
  g_assert_cmpint (g_mkdir_with_parents (f->dir, 0700), ==, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_pointer (&f->dir, g_free);
  zot_test_env_teardown (&f->env);
}

#define U(text) "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" text "\"}]}"
#define A(text) "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"" text "\"}]}"
#define CALL(id) "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"calling\"}," \
                 "{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"read\",\"input\":{}}]}"
#define RESULT(id) "{\"role\":\"tool\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"" id "\"," \
                   "\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}]}"

/* A session file of @header's extra members and @messages. */
static char *
write_session (Fixture            *f,
               const char         *name,
               const char         *header_extra,
               const char * const *messages)
{
  g_autoptr(GString) file = g_string_new (NULL);
  g_autofree char *path = g_build_filename (f->dir, name, NULL);

  g_string_append_printf (file, "{\"type\":\"session\",\"version\":1,\"id\":\"x\",\"cwd\":\"%s\","
                          "\"created\":\"2024-05-01T10:00:00Z\"%s}\n", f->env.cwd, header_extra);
  for (guint i = 0; messages != NULL && messages[i] != NULL; i++)
    g_string_append_printf (file, "{\"type\":\"message\",\"message\":%s}\n", messages[i]);
  g_assert_true (g_file_set_contents (path, file->str, (gssize) file->len, NULL));
  return g_steal_pointer (&path);
}

static void
flushed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_assert_true (zot_session_flush_finish (ZOT_SESSION (object), result, NULL));
  *(gboolean *) user_data = TRUE;
}

static void
flush (ZotSession *session)
{
  gboolean done = FALSE;

  zot_session_flush_async (session, NULL, flushed_cb, &done);
  zot_test_wait_for (&done, 10000);
}

static char *
set_string (GArray *set)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; set != NULL && i < set->len; i++)
    g_string_append_printf (out, "%s%u", i > 0 ? "," : "", g_array_index (set, guint, i));
  return g_strdup (out->str);
}

static const char * const turns[] = {
  U ("first"), CALL ("c1"), RESULT ("c1"), A ("read it"), U ("second"), A ("answer"), NULL
};

/* A call goes with its results, whichever of the two is deleted; the first
 * prompt takes what would lead without it; a prompt elsewhere goes alone. */
static void
test_delete_set (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *path = write_session (f, "set.jsonl", "", turns);
  g_autoptr(ZotSession) session = zot_session_open_read_only (path, NULL);
  GPtrArray *messages = zot_session_get_messages (session);
  struct { guint index; const char *set; } cases[] = {
    { 1, "1,2" }, { 2, "1,2" }, { 0, "0,1,2,3" }, { 3, "3" }, { 4, "4" }, { 5, "5" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GArray) set = zot_conversation_edit_delete_set (messages, cases[i].index);
      g_autofree char *text = set_string (set);

      g_assert_cmpstr (text, ==, cases[i].set);
    }
  g_assert_null (zot_conversation_edit_delete_set (messages, 6));
}

/* Deleting appends a "remove" entry, leaves every earlier byte, and the
 * reload sends the model the same transcript. */
static void
test_delete_survives_reload (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = write_session (f, "delete.jsonl", "", turns);
  g_autofree char *before = zot_test_read_file (path);
  g_autofree char *after = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *reloaded = NULL;
  g_autoptr(GError) error = NULL;
  ZotSession *session = zot_session_open (path, &error);

  g_assert_no_error (error);
  g_assert_true (zot_conversation_edit_delete (session, 2, &error));
  g_assert_no_error (error);
  shown = zot_test_describe_session (session);
  g_assert_cmpstr (shown, ==, "user:first assistant:read it user:second assistant:answer");
  flush (session);
  g_object_unref (session);

  after = zot_test_read_file (path);
  g_assert_true (g_str_has_prefix (after, before));
  g_assert_nonnull (strstr (after + strlen (before), "{\"type\":\"remove\",\"messages\":[1,2],\"reason\":\"delete\"}\n"));
  reloaded = zot_test_describe_session_file (path);
  g_assert_cmpstr (reloaded, ==, shown);

  /* A second delete counts from the transcript as it is now. */
  session = zot_session_open (path, &error);
  g_assert_no_error (error);
  g_assert_true (zot_conversation_edit_delete (session, 2, &error));
  g_assert_false (zot_conversation_edit_delete (session, 9, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  flush (session);
  g_object_unref (session);
  g_clear_pointer (&reloaded, g_free);
  reloaded = zot_test_describe_session_file (path);
  g_assert_cmpstr (reloaded, ==, "user:first assistant:read it assistant:answer");
}

/* Retrying takes the last prompt and its turn out, append-only, and
 * hands the prompt back to be sent again. */
static void
test_retry (Fixture       *f,
            gconstpointer  data)
{
  const char * const messages[] = { U ("one"), A ("first"), U ("two"), CALL ("c9"), RESULT ("c9"), A ("done"), NULL };
  g_autofree char *path = write_session (f, "retry.jsonl", "", messages);
  g_autofree char *before = zot_test_read_file (path);
  g_autofree char *after = NULL;
  g_autofree char *text = NULL;
  g_autofree char *reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) prompt = NULL;
  ZotSession *session = zot_session_open (path, &error);

  g_assert_no_error (error);
  g_assert_cmpint (zot_conversation_edit_last_prompt (zot_session_get_messages (session)), ==, 2);
  prompt = zot_conversation_edit_retry (session, &error);
  g_assert_no_error (error);
  text = zot_message_get_text (prompt);
  g_assert_cmpstr (text, ==, "two");
  g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 2);
  flush (session);
  g_object_unref (session);

  after = zot_test_read_file (path);
  g_assert_true (g_str_has_prefix (after, before));
  g_assert_nonnull (strstr (after, "{\"type\":\"remove\",\"messages\":[2,3,4,5],\"reason\":\"retry\"}"));
  reloaded = zot_test_describe_session_file (path);
  g_assert_cmpstr (reloaded, ==, "user:one assistant:first");
}

static void
forked_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *out = user_data;
  GError *error = NULL;
  char *path = zot_conversation_fork_finish (ZOT_SESSION (object), result, &error);

  if (path != NULL)
    g_task_return_pointer (out, path, g_free);
  else
    g_task_return_error (out, error);
}

static char *
fork_at (ZotSession  *origin,
         guint        index,
         GError     **error)
{
  g_autoptr(GTask) out = g_task_new (NULL, NULL, NULL, NULL);

  zot_conversation_fork_async (origin, index, NULL, forked_cb, out);
  while (!g_task_get_completed (out))
    g_main_context_iteration (NULL, TRUE);
  return g_task_propagate_pointer (out, error);
}

static char *
first_line (const char *path)
{
  g_autofree char *contents = zot_test_read_file (path);

  return g_strndup (contents, strcspn (contents, "\n"));
}

/* The fork is a new file beside the original, whose header names the
 * original and the prompt replaced; both reload on their own. */
static void
test_fork (Fixture       *f,
           gconstpointer  data)
{
  const char * const messages[] = { U ("one"), A ("first"), U ("two"), A ("second"), NULL };
  g_autofree char *path = write_session (f, "2024-origin.jsonl", "", messages);
  g_autofree char *before = zot_test_read_file (path);
  g_autofree char *after = NULL;
  g_autofree char *fork = NULL;
  g_autofree char *fork_dir = NULL;
  g_autofree char *header = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) header_object = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotSession) origin = zot_session_open (path, &error);
  g_autoptr(ZotSession) branch = NULL;
  g_autoptr(JsonObject) edited = NULL;
  gint64 entry = -1;

  g_assert_no_error (error);
  fork = fork_at (origin, 2, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fork);
  g_assert_cmpstr (fork, !=, path);
  fork_dir = g_path_get_dirname (fork);
  g_assert_cmpstr (fork_dir, ==, f->dir);

  header = first_line (fork);
  header_object = zot_json_object_from_string (header, NULL);
  g_assert_nonnull (header_object);
  g_assert_cmpstr (zot_json_get_string (header_object, "type"), ==, "session");
  g_assert_nonnull (strstr (header, "\"forked_from\":{\"file\":\"2024-origin.jsonl\",\"entry\":2}"));

  /* The fork holds what came before the prompt; the edited prompt follows. */
  branch = zot_session_open (fork, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zot_session_get_forked_from (branch, &entry), ==, "2024-origin.jsonl");
  g_assert_cmpint (entry, ==, 2);
  text = zot_test_describe_session (branch);
  g_assert_cmpstr (text, ==, "user:one assistant:first");
  edited = zot_message_new_user_text ("two, edited");
  zot_session_append_message_async (branch, edited, NULL, NULL, NULL);
  flush (branch);
  g_clear_object (&branch);
  g_clear_pointer (&text, g_free);
  text = zot_test_describe_session_file (fork);
  g_assert_cmpstr (text, ==, "user:one assistant:first user:two, edited");

  /* The original is as it was, and still the whole conversation. */
  after = zot_test_read_file (path);
  g_assert_cmpstr (after, ==, before);
  g_clear_pointer (&text, g_free);
  text = zot_test_describe_session_file (path);
  g_assert_cmpstr (text, ==, "user:one assistant:first user:two assistant:second");
  g_assert_null (zot_session_get_forked_from (origin, NULL));

  /* A fork at the first prompt is a file all the same; a reply is no
   * prompt to fork at. */
  g_clear_pointer (&fork, g_free);
  fork = fork_at (origin, 0, &error);
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = zot_test_describe_session_file (fork);
  g_assert_cmpstr (text, ==, "");
  g_clear_pointer (&fork, g_free);
  fork = fork_at (origin, 1, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (fork);
}

/* A hostile "forked_from" loads as a conversation of its own, with a
 * warning; the bounds' edges themselves are taken. */
static void
test_hostile_fork (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *longest = g_strnfill (ZOT_SESSION_FORK_FILE_MAX_BYTES - 6, 'a');
  g_autofree char *too_long = g_strnfill (ZOT_SESSION_FORK_FILE_MAX_BYTES - 5, 'a');
  const char * const messages[] = { U ("hello"), NULL };
  struct { const char *extra; gboolean valid; } cases[] = {
    { ",\"forked_from\":{\"file\":\"../escape.jsonl\",\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":\"/etc/passwd.jsonl\",\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":\"sub/dir.jsonl\",\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":\"back\\\\slash.jsonl\",\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":\"notes.txt\",\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":\".jsonl\",\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":\"\",\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":7,\"entry\":1}", FALSE },
    { ",\"forked_from\":{\"file\":\"a.jsonl\",\"entry\":-1}", FALSE },
    { ",\"forked_from\":{\"file\":\"a.jsonl\",\"entry\":2147483648}", FALSE },
    { ",\"forked_from\":{\"file\":\"a.jsonl\",\"entry\":\"3\"}", FALSE },
    { ",\"forked_from\":{\"file\":\"a.jsonl\",\"entry\":1.5}", FALSE },
    { ",\"forked_from\":{\"file\":\"a.jsonl\"}", FALSE },
    { ",\"forked_from\":[\"a.jsonl\",1]", FALSE },
    { ",\"forked_from\":null", FALSE },
    { ",\"forked_from\":{\"file\":\"a.jsonl\",\"entry\":2147483647}", TRUE },
    { ",\"forked_from\":{\"file\":\"a.jsonl\",\"entry\":0}", TRUE },
    { NULL, FALSE },   /* the longest name */
    { NULL, FALSE },   /* one byte longer */
  };
  g_autofree char *longest_extra = g_strdup_printf (",\"forked_from\":{\"file\":\"%s.jsonl\",\"entry\":1}", longest);
  g_autofree char *too_long_extra = g_strdup_printf (",\"forked_from\":{\"file\":\"%s.jsonl\",\"entry\":1}", too_long);

  cases[G_N_ELEMENTS (cases) - 2].extra = longest_extra;
  cases[G_N_ELEMENTS (cases) - 2].valid = TRUE;
  cases[G_N_ELEMENTS (cases) - 1].extra = too_long_extra;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("hostile-%u.jsonl", i);
      g_autofree char *path = write_session (f, name, cases[i].extra, messages);
      g_autoptr(GError) error = NULL;
      g_autoptr(ZotSession) session = zot_session_open (path, &error);
      const char * const *warnings;

      g_test_message ("case %u: %s", i, cases[i].extra);
      g_assert_no_error (error);
      g_assert_cmpuint (zot_session_get_messages (session)->len, ==, 1);
      warnings = zot_session_get_warnings (session);
      if (cases[i].valid)
        {
          g_assert_nonnull (zot_session_get_forked_from (session, NULL));
          g_assert_null (warnings[0]);
        }
      else
        {
          g_assert_null (zot_session_get_forked_from (session, NULL));
          g_assert_nonnull (warnings[0]);
          g_assert_nonnull (strstr (warnings[0], "forked_from"));
        }
    }
}

/* A "remove" entry out of range, naming a message twice, or too long is
 * ignored: the transcript loads whole. */
static void
test_hostile_remove (Fixture       *f,
                     gconstpointer  data)
{
  const char * const messages[] = { U ("one"), A ("two"), NULL };
  g_autoptr(GString) at_limit = g_string_new ("{\"type\":\"remove\",\"messages\":[0");
  g_autoptr(GString) over_limit = NULL;
  const char *lines[] = {
    "{\"type\":\"remove\",\"messages\":[2],\"reason\":\"delete\"}",
    "{\"type\":\"remove\",\"messages\":[1,1],\"reason\":\"delete\"}",
    "{\"type\":\"remove\",\"messages\":[-1],\"reason\":\"delete\"}",
    "{\"type\":\"remove\",\"messages\":[],\"reason\":\"delete\"}",
    "{\"type\":\"remove\",\"messages\":[\"0\"],\"reason\":\"delete\"}",
    "{\"type\":\"remove\",\"messages\":0}",
    NULL, NULL,
  };

  /* At the limit the entry is read (and ignored, for its repeats); over
   * it, the line is skipped as damaged. */
  for (guint i = 1; i < ZOT_SESSION_REMOVE_MAX_MESSAGES; i++)
    g_string_append (at_limit, ",0");
  over_limit = g_string_new (at_limit->str);
  g_string_append (over_limit, ",0]}");
  g_string_append (at_limit, "]}");
  lines[6] = at_limit->str;
  lines[7] = over_limit->str;

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *name = g_strdup_printf ("remove-%u.jsonl", i);
      g_autofree char *path = write_session (f, name, "", messages);
      g_autoptr(GError) error = NULL;
      g_autoptr(ZotSession) session = NULL;
      g_autofree char *text = NULL;
      FILE *file = g_fopen (path, "a");
      gboolean skipped;

      fprintf (file, "%s\n", lines[i]);
      fclose (file);
      session = zot_session_open (path, &error);
      g_assert_no_error (error);
      text = zot_test_describe_session (session);
      g_assert_cmpstr (text, ==, "user:one assistant:two");
      skipped = zot_session_get_warnings (session)[0] != NULL;
      g_assert_true (skipped == (i >= 2 && i != 6));
    }
}

/* The list puts each branch right under its origin; a branch of a missing
 * origin stays where it was, and branches naming each other in a loop are
 * still listed, once each. */
static void
test_group_forks (Fixture       *f,
                  gconstpointer  data)
{
  const char *names[][2] = {
    { "b", "a.jsonl" }, { "c", NULL }, { "a", NULL }, { "x", "y.jsonl" }, { "y", "x.jsonl" },
    { "o", "gone.jsonl" }, { "b2", "b.jsonl" },
  };
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GString) order = g_string_new (NULL);
  g_autoptr(GPtrArray) empty = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_strdup_printf ("/sessions/%s.jsonl", names[i][0]);
      ZotConversation *conversation = zot_conversation_new (path, names[i][0], names[i][0], FALSE, 0, 1);

      zot_conversation_set_forked_from (conversation, names[i][1]);
      g_ptr_array_add (items, conversation);
    }

  /* An empty folder's list has no storage at all. */
  empty = g_ptr_array_new ();
  zot_conversation_group_forks (empty);
  g_assert_cmpuint (empty->len, ==, 0);

  zot_conversation_group_forks (items);
  for (guint i = 0; i < items->len; i++)
    g_string_append_printf (order, "%s%s:%u", i > 0 ? " " : "", zot_conversation_get_id (items->pdata[i]),
                            zot_conversation_get_branch_depth (items->pdata[i]));
  g_assert_cmpstr (order->str, ==, "c:0 a:0 b:1 b2:2 o:0 x:0 y:1");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/zot/conversation-edit/delete-set", Fixture, NULL, fixture_setup, test_delete_set,
              fixture_teardown);
  g_test_add ("/zot/conversation-edit/delete-survives-reload", Fixture, NULL, fixture_setup,
              test_delete_survives_reload, fixture_teardown);
  g_test_add ("/zot/conversation-edit/retry", Fixture, NULL, fixture_setup, test_retry, fixture_teardown);
  g_test_add ("/zot/conversation-edit/fork", Fixture, NULL, fixture_setup, test_fork, fixture_teardown);
  g_test_add ("/zot/conversation-edit/hostile-fork", Fixture, NULL, fixture_setup, test_hostile_fork,
              fixture_teardown);
  g_test_add ("/zot/conversation-edit/hostile-remove", Fixture, NULL, fixture_setup, test_hostile_remove,
              fixture_teardown);

  g_test_add ("/zot/conversation-edit/group-forks", Fixture, NULL, fixture_setup, test_group_forks,
              fixture_teardown);

  return g_test_run ();
}
