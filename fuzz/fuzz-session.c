/* fuzz-session.c — resuming a session file (`--continue`, `--session`).
 *
 * zot_session_open() reads a path, so each input is written to one file
 * in a private directory first. Loading may cut a torn last line off that
 * file, as it does to a real session.
 */
#include "config.h"

#include <glib/gstdio.h>

#include "zot-fuzz-util.h"
#include "zot-json.h"
#include "zot-session.h"

static char *path;

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(ZotSession) session = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *warnings;
  GPtrArray *messages;

  if (path == NULL)
    path = g_build_filename (zot_fuzz_get_tmpdir (), "session.jsonl", NULL);

  if (!g_file_set_contents_full (path, (const char *) data, (gssize) size,
                                 G_FILE_SET_CONTENTS_NONE, 0600, &error))
    g_error ("cannot write %s: %s", path, error->message);

  session = zot_session_open (path, &error);
  (void) g_unlink (path);
  if (session == NULL)
    {
      /* Shown in the window and printed by `zot --continue`. */
      g_assert_nonnull (error);
      zot_fuzz_assert_utf8 ("a session error", error->message, -1);
      return 0;
    }
  g_assert_no_error (error);

  /* What resuming reads back: the transcript goes to the provider and the
   * window, the rest to the header of the window. */
  g_assert_nonnull (zot_session_get_id (session));
  g_assert_nonnull (zot_session_get_cwd (session));
  g_assert_true (zot_session_is_persistent (session));
  messages = zot_session_get_messages (session);
  for (guint i = 0; i < messages->len; i++)
    g_assert_nonnull (g_ptr_array_index (messages, i));
  warnings = zot_session_get_warnings (session);
  for (guint i = 0; warnings[i] != NULL; i++)
    zot_fuzz_assert_utf8 ("a session warning", warnings[i], -1);

  /* A continuous conversation's journal, as a resume reads it: the task of
   * each call of the last message, and its result. */
  if (zot_session_has_pending_step (session) && messages->len > 0)
    {
      JsonObject *last = g_ptr_array_index (messages, messages->len - 1);
      JsonArray *content = json_object_get_array_member (last, "content");

      for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
        {
          JsonNode *block = json_array_get_element (content, i);
          const char *id;
          JsonObject *task;

          if (!JSON_NODE_HOLDS_OBJECT (block))
            continue;
          id = zot_json_get_string (json_node_get_object (block), "id");
          if (id == NULL)
            continue;
          task = zot_session_lookup_task (session, id);
          if (task != NULL)
            {
              g_autoptr(ZotToolResult) result = zot_session_task_get_result (task);

              if (result != NULL)
                g_assert_nonnull (result->content);
            }
        }
    }

  return 0;
}
