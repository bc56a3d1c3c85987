/* test-gui-approvals.c — approvals inline in the transcript: an
 * interactive host with the "ask" policy runs "tool: bash …" through the
 * demo model; the call's row asks, and each answer gives its
 * permission_decision (seen on ::lifecycle-event); open questions keep
 * their order; they can be answered by id (as the notification's actions
 * do), or elsewhere, or be dropped by a cancelled run, and the row then
 * says what happened. Alt+A and Alt+D first focus the oldest row, and
 * answer only when it is in view and focused. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "zot-approval-presenter.h"
#include "zot-approval-presenter-private.h"
#include "zot-approval-row.h"
#include "zot-transcript.h"
#include "zot-transcript-private.h"
#include "zot-host.h"
#include "zot-resources.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

typedef struct
{
  ZotTestEnv            env;
  ZotHost              *host;
  GtkWindow            *window;
  ZotTranscript        *transcript;
  GtkWidget            *prompt;
  ZotApprovalPresenter *presenter;
  GPtrArray            *decisions;   /* "tool decision source" */
  GPtrArray            *asked;       /* ZotApproval, when keep_asked */
  guint                 n_asked;
  gboolean              keep_asked;
} Fixture;

static void
on_lifecycle_event (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *frame,
                    Fixture             *f)
{
  if (!g_str_equal (name, "permission_decision"))
    return;

  g_ptr_array_add (f->decisions,
                   g_strdup_printf ("%s %s %s",
                                    json_object_get_string_member (frame, "tool_name"),
                                    json_object_get_string_member (frame, "decision"),
                                    json_object_get_string_member (frame, "source")));
}

/* Connected before the presenter: counts the questions, takes none. */
static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       Fixture             *f)
{
  f->n_asked++;
  if (f->keep_asked)
    g_ptr_array_add (f->asked, g_object_ref (approval));
  return FALSE;
}

static ZotExtensionManager *
manager_of (Fixture *f)
{
  return zot_host_get_manager (f->host);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  GtkWidget *box;

  zot_test_env_setup (&f->env);
  f->decisions = g_ptr_array_new_with_free_func (g_free);
  f->asked = g_ptr_array_new_with_free_func (g_object_unref);

  f->host = zot_test_demo_host (&f->env);
  g_signal_connect (manager_of (f), "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
  g_signal_connect (manager_of (f), "approval-requested", G_CALLBACK (on_approval_requested), f);

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 640, 480);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  f->transcript = ZOT_TRANSCRIPT (zot_transcript_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (f->transcript), TRUE);
  zot_transcript_set_host (f->transcript, f->host);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->transcript));
  /* Where a user types the next message. */
  f->prompt = gtk_text_view_new ();
  gtk_box_append (GTK_BOX (box), f->prompt);
  gtk_window_set_child (f->window, box);
  gtk_window_present (f->window);

  f->presenter = zot_approval_presenter_new (f->window, manager_of (f));
  g_signal_connect_swapped (f->presenter, "approval-added", G_CALLBACK (zot_transcript_show_approval),
                            f->transcript);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_ptr_array_set_size (f->asked, 0);
  if (f->presenter != NULL)
    g_assert_finalize_object (g_steal_pointer (&f->presenter));
  gtk_window_destroy (f->window);

  g_signal_handlers_disconnect_by_data (manager_of (f), f);
  zot_test_finalize_host (&f->host);

  g_clear_pointer (&f->decisions, g_ptr_array_unref);
  g_clear_pointer (&f->asked, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

/* The row widget asking about @approval, if a row is bound to its call
 * (in view, or kept out of view). */
static ZotApprovalRow *
row_of (Fixture     *f,
        ZotApproval *approval)
{
  g_autoptr(GPtrArray) rows = zot_test_find_widgets (GTK_WIDGET (f->window), ZOT_TYPE_APPROVAL_ROW, NULL);

  for (guint i = 0; approval != NULL && i < rows->len; i++)
    {
      ZotApprovalRow *row = g_ptr_array_index (rows, i);

      if (zot_approval_row_get_approval (row) == approval && gtk_widget_get_visible (GTK_WIDGET (row)))
        return row;
    }
  return NULL;
}

static ZotApprovalRow *
oldest_row (Fixture *f)
{
  return row_of (f, zot_approval_presenter_get_oldest (f->presenter));
}

static gboolean
row_shows (gpointer data)
{
  return oldest_row (data) != NULL;
}

static gboolean
none_open (gpointer data)
{
  Fixture *f = data;

  return zot_approval_presenter_get_oldest (f->presenter) == NULL;
}

static const char *
heading (Fixture *f)
{
  GtkWidget *label = zot_test_find_widget (GTK_WIDGET (oldest_row (f)), GTK_TYPE_LABEL, "heading");

  return gtk_label_get_text (GTK_LABEL (label));
}

/* What the row's buttons do; "allow-all" is not offered in a row, and
 * comes from elsewhere. */
static void
respond (Fixture    *f,
         const char *response)
{
  ZotApproval *oldest = zot_approval_presenter_get_oldest (f->presenter);

  g_assert_nonnull (oldest);
  if (g_str_equal (response, "allow-all"))
    zot_approval_resolve (oldest, ZOT_APPROVAL_ALLOW_ALL);
  else
    zot_approval_row_answer (oldest_row (f), g_str_equal (response, "allow") ? ZOT_APPROVAL_ALLOW
                                            : g_str_equal (response, "allow-tool") ? ZOT_APPROVAL_ALLOW_TOOL
                                            : ZOT_APPROVAL_DENY);
}

static const char *
last_decision (Fixture *f)
{
  g_assert_cmpuint (f->decisions->len, >, 0);
  return g_ptr_array_index (f->decisions, f->decisions->len - 1);
}

typedef struct
{
  gboolean  done;
  GError   *error;
} Submit;

static void
submit_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Submit *submit = user_data;

  zot_host_submit_finish (ZOT_HOST (object), result, NULL, &submit->error);
  submit->done = TRUE;
}

/* Submits @prompt; when @response, waits for the dialog and answers it. */
static void
prompt_and_answer (Fixture    *f,
                   const char *prompt,
                   const char *response)
{
  Submit s = { 0 };
  guint asked = f->n_asked;

  zot_host_submit_async (f->host, prompt, NULL, submit_cb, &s);

  if (response != NULL)
    {
      ZotApproval *current;

      zot_test_wait_until (row_shows, f, 10000);
      g_assert_cmpstr (heading (f), ==, "Allow bash?");
      current = zot_approval_presenter_get_oldest (f->presenter);
      g_assert_cmpstr (zot_approval_get_preview (current), ==, "bash: true");
      respond (f, response);
    }

  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);
  zot_test_wait_until (none_open, f, 10000);
  g_assert_cmpuint (f->n_asked, ==, asked + (response != NULL ? 1 : 0));
}

static void
test_four_answers (Fixture       *f,
                   gconstpointer  data)
{
  prompt_and_answer (f, "tool: bash {\"command\":\"true\"}", "deny");
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");

  prompt_and_answer (f, "tool: bash {\"command\":\"true\"}", "allow");
  g_assert_cmpstr (last_decision (f), ==, "bash approved user");

  /* "Always allow this tool" is never offered for bash. */
  {
    Submit s = { 0 };

    zot_host_submit_async (f->host, "tool: bash {\"command\":\"true\"}", NULL, submit_cb, &s);
    zot_test_wait_until (row_shows, f, 10000);
    g_assert_false (zot_approval_offers_remember (zot_approval_row_get_approval (oldest_row (f))));
    respond (f, "allow-tool");
    g_assert_nonnull (oldest_row (f));
    respond (f, "allow");
    zot_test_wait_for (&s.done, 30000);
    g_assert_no_error (s.error);
    g_assert_cmpstr (last_decision (f), ==, "bash approved user");
  }

  /* Always this session: another tool is not asked either. */
  zot_extension_manager_forget_approvals (manager_of (f));
  prompt_and_answer (f, "tool: bash {\"command\":\"true\"}", "allow-all");
  g_assert_cmpstr (last_decision (f), ==, "bash approved user");
  prompt_and_answer (f, "tool: write {\"path\":\"w.txt\",\"content\":\"x\"}", NULL);
  g_assert_cmpstr (last_decision (f), ==, "write approved remembered");

  g_assert_cmpuint (f->decisions->len, ==, 5);
}

typedef ZotTestAuthorize Authorize;

static void
authorize (Fixture      *f,
           const char   *tool,
           const char   *origin,
           GCancellable *cancellable,
           Authorize    *out)
{
  zot_test_authorize (manager_of (f), tool, "true", &(ZotCallOrigin) { .extension = origin },
                      cancellable, out);
}

static void
test_queue_in_order (Fixture       *f,
                     gconstpointer  data)
{
  Authorize first = { 0 };
  Authorize second = { 0 };
  Authorize third = { 0 };

  authorize (f, "bash", NULL, NULL, &first);
  authorize (f, "write", NULL, NULL, &second);
  authorize (f, "edit", NULL, NULL, &third);

  /* All three ask, each in its row; the oldest comes first. */
  zot_test_wait_until (row_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow bash?");
  g_assert_cmpuint (_zot_approval_presenter_get_n_open (f->presenter), ==, 3);

  respond (f, "allow");
  zot_test_wait_for (&first.done, 10000);
  g_assert_false (second.done);

  zot_test_wait_until (row_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow write?");
  g_assert_cmpuint (_zot_approval_presenter_get_n_open (f->presenter), ==, 2);
  respond (f, "deny");
  zot_test_wait_for (&second.done, 10000);

  zot_test_wait_until (row_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow edit?");
  respond (f, "allow");
  zot_test_wait_for (&third.done, 10000);
  zot_test_wait_until (none_open, f, 10000);

  g_assert_true (first.decision->approved);
  g_assert_false (second.decision->approved);
  g_assert_true (third.decision->approved);
  g_assert_cmpuint (f->decisions->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 0), ==, "bash approved user");
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 1), ==, "write denied user");
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 2), ==, "edit approved user");

  zot_decision_free (first.decision);
  zot_decision_free (second.decision);
  zot_decision_free (third.decision);
}

static void
test_resolve_by_id (Fixture       *f,
                    gconstpointer  data)
{
  Authorize first = { 0 };
  Authorize second = { 0 };
  g_autofree char *id = NULL;

  authorize (f, "bash", NULL, NULL, &first);
  authorize (f, "write", NULL, NULL, &second);
  zot_test_wait_until (row_shows, f, 10000);
  id = g_strdup (_zot_approval_presenter_get_oldest_id (f->presenter));
  g_assert_nonnull (id);

  /* An id nobody knows changes nothing. */
  zot_approval_presenter_resolve (f->presenter, "approval-none", ZOT_APPROVAL_ALLOW);
  g_assert_false (first.done);

  /* As the notification's "Deny" button would. */
  zot_approval_presenter_resolve (f->presenter, id, ZOT_APPROVAL_DENY);
  zot_test_wait_for (&first.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");
  g_assert_false (first.decision->approved);

  /* Its dialog closed; the next one shows, with an id of its own. */
  zot_test_wait_until (row_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow write?");
  g_assert_cmpstr (_zot_approval_presenter_get_oldest_id (f->presenter), !=, id);
  zot_approval_presenter_resolve (f->presenter, id, ZOT_APPROVAL_ALLOW);   /* stale */
  g_assert_false (second.done);
  zot_approval_presenter_resolve (f->presenter,
                                  _zot_approval_presenter_get_oldest_id (f->presenter),
                                  ZOT_APPROVAL_ALLOW);
  zot_test_wait_for (&second.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "write approved user");
  zot_test_wait_until (none_open, f, 10000);

  zot_decision_free (first.decision);
  zot_decision_free (second.decision);
}

static void
test_resolved_elsewhere (Fixture       *f,
                         gconstpointer  data)
{
  Authorize first = { 0 };
  Authorize second = { 0 };

  f->keep_asked = TRUE;
  authorize (f, "bash", NULL, NULL, &first);
  authorize (f, "write", NULL, NULL, &second);
  zot_test_wait_until (row_shows, f, 10000);
  g_assert_cmpuint (f->asked->len, ==, 2);

  /* The waiting one, answered elsewhere, leaves the queue. */
  zot_approval_resolve (g_ptr_array_index (f->asked, 1), ZOT_APPROVAL_ALLOW_ALL);
  zot_test_wait_for (&second.done, 10000);
  g_assert_cmpuint (_zot_approval_presenter_get_n_open (f->presenter), ==, 1);
  g_assert_cmpstr (heading (f), ==, "Allow bash?");

  /* The oldest, answered elsewhere, ends too. */
  zot_approval_resolve (g_ptr_array_index (f->asked, 0), ZOT_APPROVAL_ALLOW);
  zot_test_wait_for (&first.done, 10000);
  zot_test_wait_until (none_open, f, 10000);

  g_assert_cmpstr (g_ptr_array_index (f->decisions, 0), ==, "write approved user");
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 1), ==, "bash approved user");
  zot_decision_free (first.decision);
  zot_decision_free (second.decision);
}

static void
test_cancelled_run (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Authorize first = { 0 };

  authorize (f, "bash", NULL, cancellable, &first);
  zot_test_wait_until (row_shows, f, 10000);

  /* The core drops the question; the dialog goes with it. */
  g_cancellable_cancel (cancellable);
  zot_test_wait_for (&first.done, 10000);
  g_assert_null (first.decision);   /* the call's own cancellable: an error */
  g_assert_cmpstr (last_decision (f), ==, "bash cancelled user");
  zot_test_wait_until (none_open, f, 10000);
}

static void
test_origin_and_preview (Fixture       *f,
                         gconstpointer  data)
{
  Authorize first = { 0 };
  g_autoptr(GPtrArray) buttons = NULL;
  ZotApprovalRow *row;
  guint n_shown = 0;

  authorize (f, "bash", "weather", NULL, &first);
  zot_test_wait_until (row_shows, f, 10000);
  row = oldest_row (f);
  g_assert_cmpstr (heading (f), ==, "Allow bash? Requested by the extension “weather”");

  /* Allow once and Deny; "Always allow this tool" is never offered for
   * bash. Nothing is focused. */
  buttons = zot_test_find_widgets (GTK_WIDGET (row), GTK_TYPE_BUTTON, NULL);
  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);

      if (gtk_widget_get_visible (button))
        n_shown++;
      g_assert_false (gtk_widget_has_focus (button));
    }
  g_assert_cmpuint (n_shown, ==, 2);
  g_assert_nonnull (zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_BUTTON, "destructive-action"));
  g_assert_false (zot_approval_offers_remember (zot_approval_row_get_approval (row)));

  respond (f, "allow");
  zot_test_wait_for (&first.done, 10000);
  zot_decision_free (first.decision);
}

/* The command hides its tail behind 300 spaces and 60 line
 * breaks: the row shows all of it, marked, and scrolls instead of growing
 * past the window. */
static void
test_whole_command (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GString) command = g_string_new ("echo hello");
  Authorize first = { 0 };
  GtkWidget *preview;
  GtkWidget *scroller;
  const char *text;
  guint breaks = 0;

  for (guint i = 0; i < 300; i++)
    g_string_append_c (command, ' ');
  for (guint i = 0; i < 60; i++)
    g_string_append_c (command, '\n');
  g_string_append (command, "touch ~/pwned\033[2K");

  zot_test_authorize (manager_of (f), "bash", command->str, NULL, NULL, &first);
  zot_test_wait_until (row_shows, f, 10000);

  preview = zot_test_find_widget (GTK_WIDGET (oldest_row (f)), GTK_TYPE_LABEL, "approval-preview");
  g_assert_nonnull (preview);
  text = gtk_label_get_text (GTK_LABEL (preview));
  g_assert_true (g_str_has_prefix (text, "echo hello "));
  g_assert_true (g_str_has_suffix (text, "touch ~/pwned\\x1b[2K"));
  for (const char *p = strstr (text, "\u21B5\n"); p != NULL; p = strstr (p + 1, "\u21B5\n"))
    breaks++;
  g_assert_cmpuint (breaks, ==, 60);

  scroller = gtk_widget_get_ancestor (preview, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull (scroller);
  g_assert_cmpint (gtk_scrolled_window_get_max_content_height (GTK_SCROLLED_WINDOW (scroller)), >, 0);

  respond (f, "deny");
  zot_test_wait_for (&first.done, 10000);
  zot_decision_free (first.decision);
}

static void
edit_authorized_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Authorize *out = user_data;

  out->decision = zot_extension_manager_authorize_finish (ZOT_EXTENSION_MANAGER (object), result, NULL);
  out->done = TRUE;
}

/* An edit shows its path and a diff; a write its path and content. */
static void
test_edit_and_write_preview (Fixture       *f,
                             gconstpointer  data)
{
  const struct { const char *tool; const char *expected; } cases[] = {
    { "edit", "--- src/a.c\n+++ src/a.c\n-int x = 1;\n+int x = 2;\n+int y = 3;" },
    { "write", "+++ notes.txt\n+first\n+second" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) args = json_object_new ();
      Authorize call = { 0 };
      GtkWidget *preview;

      if (i == 0)
        {
          json_object_set_string_member (args, "path", "src/a.c");
          json_object_set_string_member (args, "old_text", "int x = 1;");
          json_object_set_string_member (args, "new_text", "int x = 2;\nint y = 3;");
        }
      else
        {
          json_object_set_string_member (args, "path", "notes.txt");
          json_object_set_string_member (args, "content", "first\nsecond");
        }
      zot_extension_manager_authorize_async (manager_of (f), cases[i].tool, cases[i].tool, args,
                                             ZOT_APPROVAL_FLAG_REQUIRED, NULL, NULL, edit_authorized_cb, &call);
      zot_test_wait_until (row_shows, f, 10000);
      preview = zot_test_find_widget (GTK_WIDGET (oldest_row (f)), GTK_TYPE_LABEL, "approval-preview");
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (preview)), ==, cases[i].expected);
      respond (f, "deny");
      zot_test_wait_for (&call.done, 10000);
      zot_decision_free (call.decision);
    }
}

/* A subagent's call says which subagent asks. */
static void
test_subagent_named (Fixture       *f,
                     gconstpointer  data)
{
  const ZotCallOrigin origin = { .agent_id = "0b7c1f", .agent_name = "helper" };
  Authorize first = { 0 };

  zot_test_authorize (manager_of (f), "bash", "true", &origin, NULL, &first);
  zot_test_wait_until (row_shows, f, 10000);
  g_assert_nonnull (strstr (heading (f), "subagent “helper”"));

  respond (f, "deny");
  zot_test_wait_for (&first.done, 10000);
  g_assert_false (first.decision->approved);
  zot_decision_free (first.decision);
}

/* "Always allow this tool in this conversation" covers the tool's next
 * call; it is never offered, nor taken, for bash, write or edit. */
static void
test_remembered (Fixture       *f,
                 gconstpointer  data)
{
  const char * const never[] = { "bash", "write", "edit" };
  Authorize first = { 0 };
  Authorize second = { 0 };
  g_autoptr(GPtrArray) buttons = NULL;
  GtkWidget *remember;

  for (guint i = 0; i < G_N_ELEMENTS (never); i++)
    {
      Authorize call = { 0 };

      authorize (f, never[i], NULL, NULL, &call);
      zot_test_wait_until (row_shows, f, 10000);
      g_assert_false (zot_approval_offers_remember (zot_approval_row_get_approval (oldest_row (f))));
      respond (f, "allow-tool");   /* refused: not offered */
      g_assert_false (call.done);
      respond (f, "allow");
      zot_test_wait_for (&call.done, 10000);
      zot_decision_free (call.decision);
    }

  zot_test_authorize_full (manager_of (f), "weather", "true", TRUE, NULL, NULL, &first);
  zot_test_wait_until (row_shows, f, 10000);
  buttons = zot_test_find_widgets (GTK_WIDGET (oldest_row (f)), GTK_TYPE_BUTTON, NULL);
  remember = g_ptr_array_index (buttons, 1);
  g_assert_true (gtk_widget_get_visible (remember));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (remember)), ==, "Always allow this tool in this conversation");
  gtk_widget_activate (remember);
  zot_test_wait_for (&first.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "weather approved user");

  zot_test_authorize_full (manager_of (f), "weather", "true", TRUE, NULL, NULL, &second);
  zot_test_wait_for (&second.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "weather approved remembered");
  g_assert_true (second.decision->approved);

  zot_decision_free (first.decision);
  zot_decision_free (second.decision);
}

static void
test_dispose_denies (Fixture       *f,
                     gconstpointer  data)
{
  Authorize first = { 0 };
  Authorize second = { 0 };

  authorize (f, "bash", NULL, NULL, &first);
  authorize (f, "write", NULL, NULL, &second);
  zot_test_wait_until (row_shows, f, 10000);

  g_assert_finalize_object (g_steal_pointer (&f->presenter));
  zot_test_wait_for (&first.done, 10000);
  zot_test_wait_for (&second.done, 10000);
  g_assert_false (first.decision->approved);
  g_assert_false (second.decision->approved);
  zot_decision_free (first.decision);
  zot_decision_free (second.decision);
}

static void
app_allow_cb (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  Fixture *f = user_data;

  zot_approval_presenter_resolve (f->presenter, g_variant_get_string (parameter, NULL),
                                  ZOT_APPROVAL_ALLOW);
}

static void
app_deny_cb (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  Fixture *f = user_data;

  zot_approval_presenter_resolve (f->presenter, g_variant_get_string (parameter, NULL),
                                  ZOT_APPROVAL_DENY);
}

/* The contract with the application: its two actions, with the id as
 * target, answer the question (what the notification's buttons do). */
static void
test_application_actions (Fixture       *f,
                          gconstpointer  data)
{
  static const GActionEntry entries[] = {
    { "approval-allow", app_allow_cb, "s", NULL, NULL, { 0 } },
    { "approval-deny", app_deny_cb, "s", NULL, NULL, { 0 } },
  };
  g_autoptr(GtkApplication) app = gtk_application_new ("dev.zot.Zot.TestApprovals",
                                                       G_APPLICATION_NON_UNIQUE);
  Authorize first = { 0 };
  Authorize second = { 0 };
  g_autofree char *action = NULL;
  g_autoptr(GVariant) target = NULL;

  /* Not registered: a session bus here may have no notification server. */
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), f);

  authorize (f, "bash", NULL, NULL, &first);
  authorize (f, "write", NULL, NULL, &second);
  zot_test_wait_until (row_shows, f, 10000);

  g_assert_true (g_action_parse_detailed_name (ZOT_APPROVAL_DENY_ACTION, &action, &target, NULL));
  g_assert_true (g_str_has_prefix (action, "app."));
  g_action_activate (g_action_map_lookup_action (G_ACTION_MAP (app), action + strlen ("app.")),
                     g_variant_new_string (_zot_approval_presenter_get_oldest_id (f->presenter)));
  zot_test_wait_for (&first.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");

  zot_test_wait_until (row_shows, f, 10000);
  g_action_activate (g_action_map_lookup_action (G_ACTION_MAP (app), "approval-allow"),
                     g_variant_new_string (_zot_approval_presenter_get_oldest_id (f->presenter)));
  zot_test_wait_for (&second.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "write approved user");
  zot_test_wait_until (none_open, f, 10000);

  zot_decision_free (first.decision);
  zot_decision_free (second.decision);
}

/* glob only looks, like read: where the window asks before bash, it asks
 * before neither, by the same rule. */
static void
test_glob_like_read (Fixture       *f,
                     gconstpointer  data)
{
  prompt_and_answer (f, "tool: read {\"path\":\"missing.txt\"}", NULL);
  g_assert_cmpstr (last_decision (f), ==, "read approved policy");
  prompt_and_answer (f, "tool: glob {\"pattern\":\"*.txt\"}", NULL);
  g_assert_cmpstr (last_decision (f), ==, "glob approved policy");
  prompt_and_answer (f, "tool: bash {\"command\":\"true\"}", "deny");
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");
}

static char *
tool_status_text (Fixture *f)
{
  GtkWidget *label = zot_test_find_widget (GTK_WIDGET (f->transcript), GTK_TYPE_LABEL, "tool-status");

  g_assert_nonnull (label);
  return g_strdup (gtk_label_get_text (GTK_LABEL (label)));
}

static ZotTranscriptItem *
tool_item (Fixture *f)
{
  GListModel *items = _zot_transcript_get_items (f->transcript);

  for (guint i = g_list_model_get_n_items (items); i > 0; i--)
    {
      g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (items, i - 1);

      if (zot_transcript_item_get_kind (item) == ZOT_TRANSCRIPT_ITEM_TOOL)
        return item;
    }
  return NULL;
}

/* A denial's reason reaches the model as the call's error; the row reads
 * "waiting for your approval", then "denied: REASON". */
static void
test_deny_with_reason (Fixture       *f,
                       gconstpointer  data)
{
  Submit s = { 0 };
  ZotApprovalRow *row;
  GtkWidget *reason;
  GtkWidget *outcome;
  g_autofree char *waiting = NULL;
  g_autofree char *denied = NULL;
  const char *result;

  zot_host_submit_async (f->host, "tool: bash {\"command\":\"pwd\"}", NULL, submit_cb, &s);
  zot_test_wait_until (row_shows, f, 10000);
  row = oldest_row (f);
  waiting = tool_status_text (f);
  g_assert_cmpstr (waiting, ==, "waiting for your approval");

  reason = zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_ENTRY, NULL);
  gtk_editable_set_text (GTK_EDITABLE (reason), "not in this folder");
  gtk_widget_activate (zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_BUTTON, "destructive-action"));
  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");

  result = zot_transcript_item_get_result (tool_item (f));
  g_assert_nonnull (result);
  g_assert_nonnull (strstr (result, "the user denied the call: not in this folder"));
  denied = tool_status_text (f);
  g_assert_cmpstr (denied, ==, "denied: not in this folder");
  outcome = zot_test_find_widget (GTK_WIDGET (row), GTK_TYPE_LABEL, "approval-outcome");
  g_assert_true (gtk_widget_get_visible (outcome));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (outcome)), ==, "Denied: not in this folder");
}

/* "allowed once" follows "waiting for your approval". */
static void
test_allowed_once_status (Fixture       *f,
                          gconstpointer  data)
{
  Submit s = { 0 };
  GtkWidget *outcome;
  ZotApprovalRow *row;

  zot_host_submit_async (f->host, "tool: bash {\"command\":\"true\"}", NULL, submit_cb, &s);
  zot_test_wait_until (row_shows, f, 10000);
  respond (f, "allow");
  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);
  outcome = zot_test_find_widget (GTK_WIDGET (f->transcript), GTK_TYPE_LABEL, "approval-outcome");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (outcome)), ==, "Allowed once");
  /* Once answered, the row keeps only what happened. */
  row = ZOT_APPROVAL_ROW (gtk_widget_get_ancestor (outcome, ZOT_TYPE_APPROVAL_ROW));
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (row)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    g_assert_true (gtk_widget_get_visible (child) == (child == outcome));
}

#ifdef GDK_WINDOWING_X11
/* Real key presses, through the X server, as a user types them. */
static void
xdotool (const char *const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, (char *) "xdotool");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static gboolean
prompt_holds_typed (gpointer data)
{
  Fixture *f = data;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (f->prompt));
  GtkTextIter start;
  GtkTextIter end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  return g_str_equal (text, "list the files please\n\n");
}

static gboolean
focus_in_row (gpointer data)
{
  Fixture *f = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));
  ZotApprovalRow *row = oldest_row (f);

  return focus != NULL && row != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (row));
}

static gboolean
window_active (gpointer data)
{
  return gtk_window_is_active (GTK_WINDOW (data));
}

/* What the window's Alt+A and Alt+D do (zot-window-approvals.c). */
static gboolean
answer_shortcut_cb (GtkWidget *widget,
                    GVariant  *args,
                    gpointer   user_data)
{
  Fixture *f = user_data;
  ZotApproval *oldest = zot_approval_presenter_get_oldest (f->presenter);

  if (oldest != NULL)
    zot_transcript_focus_approval (f->transcript, oldest, g_variant_get_int32 (args));
  return TRUE;
}

static void
add_answer_shortcuts (Fixture *f)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  const struct { guint key; ZotApprovalChoice choice; } keys[] = {
    { GDK_KEY_a, ZOT_APPROVAL_ALLOW },
    { GDK_KEY_d, ZOT_APPROVAL_DENY },
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].key, GDK_ALT_MASK),
                                                gtk_callback_action_new (answer_shortcut_cb, f, NULL));

      gtk_shortcut_set_arguments (shortcut, g_variant_new_int32 (keys[i].choice));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller), shortcut);
    }
  gtk_widget_add_controller (GTK_WIDGET (f->window), controller);
}

/* Typing the next message, spaces and Enter included, while a call waits
 * never answers it; Alt+A first focuses the row, and only the second
 * answers. */
static void
test_keys (Fixture       *f,
           gconstpointer  data)
{
  Submit s = { 0 };
  Submit submit = { 0 };
  g_autofree char *xid = NULL;

  if (!GDK_IS_X11_DISPLAY (gtk_widget_get_display (GTK_WIDGET (f->window))) ||
      g_find_program_in_path ("xdotool") == NULL)
    {
      g_test_skip ("needs X11 and xdotool");
      return;
    }

  add_answer_shortcuts (f);
  xid = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (f->window))));
  xdotool ((const char *[]) { "windowfocus", "--sync", xid, NULL });
  zot_test_wait_until (window_active, f->window, 10000);
  gtk_widget_grab_focus (f->prompt);

  /* The question arrives while the user is in the prompt. */
  zot_host_submit_async (f->host, "tool: bash {\"command\":\"pwd\"}", NULL, submit_cb, &s);
  zot_test_wait_until (row_shows, f, 10000);

  xdotool ((const char *[]) { "type", "--delay", "1", "list the files please", NULL });
  xdotool ((const char *[]) { "key", "Return", "space", "BackSpace", "Return", NULL });
  zot_test_wait_until (prompt_holds_typed, f, 10000);
  g_assert_false (s.done);
  g_assert_nonnull (zot_approval_presenter_get_oldest (f->presenter));
  g_assert_true (gtk_widget_has_focus (f->prompt));

  /* Alt+A: the row takes the focus, nothing is answered. */
  xdotool ((const char *[]) { "key", "alt+a", NULL });
  zot_test_wait_until (focus_in_row, f, 10000);
  g_assert_nonnull (zot_approval_presenter_get_oldest (f->presenter));
  g_assert_cmpuint (f->decisions->len, ==, 0);

  /* Alt+A again, in view and focused: allowed once. */
  xdotool ((const char *[]) { "key", "alt+a", NULL });
  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);
  g_assert_cmpstr (last_decision (f), ==, "bash approved user");

  /* Alt+D focuses the reason; typed there, a second Alt+D denies with it. */
  gtk_widget_grab_focus (f->prompt);
  submit = (Submit) { 0 };
  zot_host_submit_async (f->host, "tool: bash {\"command\":\"rm -rf build\"}", NULL, submit_cb, &submit);
  zot_test_wait_until (row_shows, f, 10000);
  xdotool ((const char *[]) { "key", "alt+d", NULL });
  zot_test_wait_until (focus_in_row, f, 10000);
  g_assert_true (GTK_IS_TEXT (gtk_root_get_focus (GTK_ROOT (f->window))));
  xdotool ((const char *[]) { "type", "--delay", "1", "keep it", NULL });
  xdotool ((const char *[]) { "key", "alt+d", NULL });
  zot_test_wait_for (&submit.done, 30000);
  g_assert_no_error (submit.error);
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");
  g_assert_nonnull (strstr (zot_transcript_item_get_result (tool_item (f)), "the user denied the call: keep it"));
}
#endif

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  g_assert_nonnull (zot_get_resource ());
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");

#define ADD(path, func) \
  g_test_add ("/zot/gui-approvals/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("four-answers", test_four_answers);
  ADD ("queue-in-order", test_queue_in_order);
  ADD ("resolve-by-id", test_resolve_by_id);
  ADD ("resolved-elsewhere", test_resolved_elsewhere);
  ADD ("cancelled-run", test_cancelled_run);
  ADD ("origin-and-preview", test_origin_and_preview);
  ADD ("whole-command", test_whole_command);
  ADD ("subagent-named", test_subagent_named);
  ADD ("remembered", test_remembered);
  ADD ("edit-and-write-preview", test_edit_and_write_preview);
  ADD ("deny-with-reason", test_deny_with_reason);
  ADD ("allowed-once-status", test_allowed_once_status);
#ifdef GDK_WINDOWING_X11
  ADD ("keys", test_keys);
#endif
  ADD ("dispose-denies", test_dispose_denies);
  ADD ("application-actions", test_application_actions);
  ADD ("glob-like-read", test_glob_like_read);

#undef ADD

  return g_test_run ();
}
