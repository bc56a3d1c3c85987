/* zot-gui-conversation-test-util.h — what the tests of stored
 * conversations in the window share: a home with the cwd's sessions
 * folder, a window on the demo model, session files written by hand, and
 * the transcript's items and rows. */
#pragma once

#include <json-glib/json-glib.h>

#include "zot-application.h"
#include "zot-session.h"
#include "zot-test-util.h"
#include "zot-transcript-item.h"
#include "zot-window.h"

G_BEGIN_DECLS

/* A 1×1 PNG. */
#define ZOT_TEST_PIXEL_PNG_BASE64 \
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

/* A demo prompt whose tool call runs until a file "go" appears in the
 * cwd. */
#define ZOT_TEST_WAITING_TOOL_PROMPT \
  "tool: bash {\"command\":\"while [ ! -e go ]; do sleep 0.02; done; echo released\"}"

typedef struct
{
  ZotTestEnv  env;
  char       *cwd;      /* canonical */
  char       *dir;      /* the cwd's sessions */
  ZotWindow  *window;
} ZotTestConversation;

/* A test home without provider keys, and the cwd's sessions folder;
 * fixture functions for g_test_add(). */
void               zot_test_conversation_setup       (ZotTestConversation *f,
                                                      gconstpointer        data);
/* Closes the window, if any, and removes the home. */
void               zot_test_conversation_teardown    (ZotTestConversation *f,
                                                      gconstpointer        data);
/* A window with the demo model and the extensions at @paths (none for
 * NULL) on @session_path, or on a new conversation, @width × @height,
 * shown. */
void               zot_test_conversation_open_window (ZotTestConversation *f,
                                                      ZotApplication      *application,
                                                      const char * const  *paths,
                                                      const char          *session_path,
                                                      int                  width,
                                                      int                  height);

/* Session files: a header (continuous or not), lines, and the file saved
 * as @id in the cwd's sessions, its path returned. */
GString           *zot_test_conversation_new_file    (ZotTestConversation *f,
                                                      const char          *id,
                                                      gboolean             continuous);
void               zot_test_conversation_add_line    (GString             *file,
                                                      JsonObject          *entry);
void               zot_test_conversation_add_message (GString             *file,
                                                      const char          *message_json);
char              *zot_test_conversation_save_file   (ZotTestConversation *f,
                                                      const char          *id,
                                                      GString             *file);

guint              zot_test_conversation_count_items (ZotTestConversation *f);
ZotTranscriptItem *zot_test_conversation_item_at     (ZotTestConversation *f,
                                                      guint                position);
/* The first item of @kind whose text has @needle, or NULL. */
ZotTranscriptItem *zot_test_conversation_find_item   (ZotTestConversation   *f,
                                                      ZotTranscriptItemKind  kind,
                                                      const char            *needle);
typedef struct
{
  ZotTestConversation *f;
  ZotTranscriptItem   *item;
} ZotTestRowWait;

/* For zot_test_wait_until(): @data, a ZotTestRowWait, has its row on
 * screen. */
gboolean           zot_test_conversation_row_in_view (gpointer             data);
/* Scrolls @item into view as find does, and waits for its row. */
GtkWidget         *zot_test_conversation_show_row    (ZotTestConversation *f,
                                                      ZotTranscriptItem   *item);

ZotHost           *zot_test_conversation_host        (ZotTestConversation *f);
ZotSession        *zot_test_conversation_session     (ZotTestConversation *f);
/* The file of the window's current conversation. */
const char        *zot_test_conversation_path        (ZotTestConversation *f);
typedef struct
{
  ZotTestConversation   *f;
  const char            *path;
  const char            *text;
  ZotTranscriptItemKind  kind;
} ZotTestOpenWait;

/* For zot_test_wait_until(): @data, a ZotTestOpenWait, is open: the
 * window's conversation is at its path and shows an item of its kind
 * with its text. */
gboolean           zot_test_conversation_opened      (gpointer             data);
/* For zot_test_wait_until(): @data's host is busy on a turn whose model
 * call is stored and its result not, yet. */
gboolean           zot_test_conversation_tool_running (gpointer            data);

G_END_DECLS
