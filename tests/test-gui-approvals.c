/* test-gui-approvals.c — the approval dialog: an interactive host with the
 * "ask" policy runs "tool: bash …" through the demo model; each of the four
 * answers gives its permission_decision (seen on ::lifecycle-event);
 * questions queue in order, one dialog at a time; they can be answered by
 * id (as the notification's actions do), or elsewhere, or be dropped by a
 * cancelled run, and each of these closes the dialog. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-approval-presenter.h"
#include "zot-approval-presenter-private.h"
#include "zot-host.h"
#include "zot-resources.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

typedef struct
{
  ZotTestEnv            env;
  ZotHost              *host;
  GtkWindow            *window;
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
  zot_test_env_setup (&f->env);
  f->decisions = g_ptr_array_new_with_free_func (g_free);
  f->asked = g_ptr_array_new_with_free_func (g_object_unref);

  f->host = zot_test_demo_host (&f->env);
  g_signal_connect (manager_of (f), "lifecycle-event", G_CALLBACK (on_lifecycle_event), f);
  g_signal_connect (manager_of (f), "approval-requested", G_CALLBACK (on_approval_requested), f);

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 640, 480);
  gtk_window_present (f->window);

  f->presenter = zot_approval_presenter_new (f->window, manager_of (f));
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

static gboolean
dialog_shows (gpointer data)
{
  Fixture *f = data;

  return _zot_approval_presenter_get_current (f->presenter) != NULL &&
         _zot_approval_presenter_get_dialog (f->presenter) != NULL;
}

static gboolean
only_parent_left (gpointer data)
{
  Fixture *f = data;
  g_autoptr(GListModel) toplevels = NULL;
  guint n_items;
  guint n_dialogs = 0;

  toplevels = g_object_ref (gtk_window_get_toplevels ());
  n_items = g_list_model_get_n_items (toplevels);
  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window))
        n_dialogs++;
    }

  return n_dialogs == 0 && _zot_approval_presenter_get_current (f->presenter) == NULL;
}

static const char *
heading (Fixture *f)
{
  return adw_message_dialog_get_heading (_zot_approval_presenter_get_dialog (f->presenter));
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

      zot_test_wait_until (dialog_shows, f, 10000);
      g_assert_cmpstr (heading (f), ==, "Allow bash?");
      current = _zot_approval_presenter_get_current (f->presenter);
      g_assert_cmpstr (zot_approval_get_preview (current), ==, "bash: true");
      _zot_approval_presenter_respond (f->presenter, response);
    }

  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);
  zot_test_wait_until (only_parent_left, f, 10000);
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

  /* Always for this tool: the next bash is not asked. */
  prompt_and_answer (f, "tool: bash {\"command\":\"true\"}", "allow-tool");
  g_assert_cmpstr (last_decision (f), ==, "bash approved user");
  prompt_and_answer (f, "tool: bash {\"command\":\"true\"}", NULL);
  g_assert_cmpstr (last_decision (f), ==, "bash approved remembered");

  /* Always this session: another tool is not asked either. */
  zot_extension_manager_forget_approvals (manager_of (f));
  prompt_and_answer (f, "tool: bash {\"command\":\"true\"}", "allow-all");
  g_assert_cmpstr (last_decision (f), ==, "bash approved user");
  prompt_and_answer (f, "tool: write {\"path\":\"w.txt\",\"content\":\"x\"}", NULL);
  g_assert_cmpstr (last_decision (f), ==, "write approved remembered");

  g_assert_cmpuint (f->decisions->len, ==, 6);
}

static void
test_close_is_deny (Fixture       *f,
                    gconstpointer  data)
{
  Submit s = { 0 };

  zot_host_submit_async (f->host, "tool: bash {\"command\":\"true\"}", NULL, submit_cb, &s);
  zot_test_wait_until (dialog_shows, f, 10000);

  /* Escape, or the window's close button. */
  gtk_window_close (GTK_WINDOW (_zot_approval_presenter_get_dialog (f->presenter)));
  zot_test_wait_for (&s.done, 30000);
  g_assert_no_error (s.error);
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");
  zot_test_wait_until (only_parent_left, f, 10000);
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

  /* One dialog, for the first; the others wait in order. */
  zot_test_wait_until (dialog_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow bash?");
  g_assert_cmpuint (_zot_approval_presenter_get_n_waiting (f->presenter), ==, 2);

  _zot_approval_presenter_respond (f->presenter, "allow");
  zot_test_wait_for (&first.done, 10000);
  g_assert_false (second.done);

  zot_test_wait_until (dialog_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow write?");
  g_assert_cmpuint (_zot_approval_presenter_get_n_waiting (f->presenter), ==, 1);
  _zot_approval_presenter_respond (f->presenter, "deny");
  zot_test_wait_for (&second.done, 10000);

  zot_test_wait_until (dialog_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow edit?");
  _zot_approval_presenter_respond (f->presenter, "allow-tool");
  zot_test_wait_for (&third.done, 10000);
  zot_test_wait_until (only_parent_left, f, 10000);

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
  zot_test_wait_until (dialog_shows, f, 10000);
  id = g_strdup (_zot_approval_presenter_get_current_id (f->presenter));
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
  zot_test_wait_until (dialog_shows, f, 10000);
  g_assert_cmpstr (heading (f), ==, "Allow write?");
  g_assert_cmpstr (_zot_approval_presenter_get_current_id (f->presenter), !=, id);
  zot_approval_presenter_resolve (f->presenter, id, ZOT_APPROVAL_ALLOW);   /* stale */
  g_assert_false (second.done);
  zot_approval_presenter_resolve (f->presenter,
                                  _zot_approval_presenter_get_current_id (f->presenter),
                                  ZOT_APPROVAL_ALLOW);
  zot_test_wait_for (&second.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "write approved user");
  zot_test_wait_until (only_parent_left, f, 10000);

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
  zot_test_wait_until (dialog_shows, f, 10000);
  g_assert_cmpuint (f->asked->len, ==, 2);

  /* The waiting one, answered elsewhere, leaves the queue. */
  zot_approval_resolve (g_ptr_array_index (f->asked, 1), ZOT_APPROVAL_ALLOW_ALL);
  zot_test_wait_for (&second.done, 10000);
  g_assert_cmpuint (_zot_approval_presenter_get_n_waiting (f->presenter), ==, 0);
  g_assert_cmpstr (heading (f), ==, "Allow bash?");

  /* The shown one, answered elsewhere, closes its dialog. */
  zot_approval_resolve (g_ptr_array_index (f->asked, 0), ZOT_APPROVAL_ALLOW);
  zot_test_wait_for (&first.done, 10000);
  g_assert_null (_zot_approval_presenter_get_dialog (f->presenter));
  zot_test_wait_until (only_parent_left, f, 10000);

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
  zot_test_wait_until (dialog_shows, f, 10000);

  /* The core drops the question; the dialog goes with it. */
  g_cancellable_cancel (cancellable);
  zot_test_wait_for (&first.done, 10000);
  g_assert_null (first.decision);   /* the call's own cancellable: an error */
  g_assert_cmpstr (last_decision (f), ==, "bash cancelled user");
  zot_test_wait_until (only_parent_left, f, 10000);
}

static void
test_origin_and_preview (Fixture       *f,
                         gconstpointer  data)
{
  Authorize first = { 0 };
  AdwMessageDialog *dialog;
  const char *body;

  authorize (f, "bash", "weather", NULL, &first);
  zot_test_wait_until (dialog_shows, f, 10000);
  dialog = _zot_approval_presenter_get_dialog (f->presenter);
  body = adw_message_dialog_get_body (dialog);
  g_assert_cmpstr (heading (f), ==, "Allow bash?");
  g_assert_nonnull (strstr (body, "weather"));

  /* Four answers; "deny" looks destructive. */
  g_assert_true (adw_message_dialog_has_response (dialog, "allow"));
  g_assert_true (adw_message_dialog_has_response (dialog, "allow-tool"));
  g_assert_true (adw_message_dialog_has_response (dialog, "allow-all"));
  g_assert_true (adw_message_dialog_has_response (dialog, "deny"));
  g_assert_cmpint (adw_message_dialog_get_response_appearance (dialog, "deny"),
                   ==, ADW_RESPONSE_DESTRUCTIVE);
  g_assert_cmpstr (adw_message_dialog_get_response_label (dialog, "allow"), ==, "_Allow once");
  g_assert_cmpstr (adw_message_dialog_get_response_label (dialog, "allow-tool"),
                   ==, "Always for this _tool");
  g_assert_cmpstr (adw_message_dialog_get_response_label (dialog, "allow-all"),
                   ==, "Always this _session");
  g_assert_cmpstr (adw_message_dialog_get_response_label (dialog, "deny"), ==, "_Deny");

  _zot_approval_presenter_respond (f->presenter, "allow");
  zot_test_wait_for (&first.done, 10000);
  zot_decision_free (first.decision);
}

static char *
buffer_text (GtkWidget *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextIter start;
  GtkTextIter end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* The command hides its tail behind 300 spaces and 60 line
 * breaks: the dialog shows all of it, marked, says how long it is, and
 * scrolls instead of growing past the screen. */
static void
test_whole_command (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GString) command = g_string_new ("echo hello");
  Authorize first = { 0 };
  AdwMessageDialog *dialog;
  GtkWidget *preview;
  GtkWidget *size;
  GtkWidget *scroller;
  g_autofree char *text = NULL;
  guint breaks = 0;

  for (guint i = 0; i < 300; i++)
    g_string_append_c (command, ' ');
  for (guint i = 0; i < 60; i++)
    g_string_append_c (command, '\n');
  g_string_append (command, "touch ~/pwned\033[2K");

  zot_test_authorize (manager_of (f), "bash", command->str, NULL, NULL, &first);
  zot_test_wait_until (dialog_shows, f, 10000);
  dialog = _zot_approval_presenter_get_dialog (f->presenter);

  preview = zot_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_TEXT_VIEW, "approval-preview");
  g_assert_nonnull (preview);
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (preview)));
  g_assert_true (gtk_text_view_get_monospace (GTK_TEXT_VIEW (preview)));
  text = buffer_text (preview);
  g_assert_true (g_str_has_prefix (text, "echo hello "));
  g_assert_true (g_str_has_suffix (text, "touch ~/pwned\\x1b[2K"));
  for (const char *p = strstr (text, "\u21B5\n"); p != NULL; p = strstr (p + 1, "\u21B5\n"))
    breaks++;
  g_assert_cmpuint (breaks, ==, 60);

  size = zot_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "approval-size");
  g_assert_nonnull (size);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (size)), ==, "387 characters, 61 lines");

  scroller = gtk_widget_get_ancestor (preview, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull (scroller);
  g_assert_cmpint (gtk_scrolled_window_get_max_content_height (GTK_SCROLLED_WINDOW (scroller)),
                   >, 0);

  _zot_approval_presenter_respond (f->presenter, "deny");
  zot_test_wait_for (&first.done, 10000);
  zot_decision_free (first.decision);
}

/* A command of one long run (a blob of base64) wraps by character:
 * Pango would take minutes to wrap it by word and character. */
static void
test_unbroken_command (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *command = g_strnfill (20000, 'A');
  Authorize first = { 0 };
  GtkWidget *preview;

  zot_test_authorize (manager_of (f), "bash", command, NULL, NULL, &first);
  zot_test_wait_until (dialog_shows, f, 10000);
  preview = zot_test_find_widget (GTK_WIDGET (_zot_approval_presenter_get_dialog (f->presenter)),
                                  GTK_TYPE_TEXT_VIEW, "approval-preview");
  g_assert_nonnull (preview);
  g_assert_cmpint (gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (preview)), ==, GTK_WRAP_CHAR);

  _zot_approval_presenter_respond (f->presenter, "deny");
  zot_test_wait_for (&first.done, 10000);
  zot_decision_free (first.decision);
}

/* A call whose preview and origin Pango 1.50 cannot wrap by word and
 * character as they are (zot-wrap-safe.h): the dialog shows them
 * repaired and measures at the narrowest. */
static void
test_degenerate_clusters (Fixture       *f,
                          gconstpointer  data)
{
  Authorize first = { 0 };
  AdwMessageDialog *dialog;
  GtkWidget *preview;
  g_autofree char *text = NULL;

  zot_test_authorize (manager_of (f), "bash", "Y\u063F \u032DR",
                      &(ZotCallOrigin) { .extension = "a\u06E7 \u200D\u06A1" }, NULL, &first);
  zot_test_wait_until (dialog_shows, f, 10000);
  dialog = _zot_approval_presenter_get_dialog (f->presenter);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "a\u06E7 \u06A1"));
  preview = zot_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_TEXT_VIEW, "approval-preview");
  g_assert_nonnull (preview);
  text = buffer_text (preview);
  g_assert_cmpstr (text, ==, "Y\u063F \u032DR");
  g_assert_cmpint (gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (preview)), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (preview);
  zot_test_measure_narrowest (GTK_WIDGET (dialog));

  _zot_approval_presenter_respond (f->presenter, "deny");
  zot_test_wait_for (&first.done, 10000);
  zot_decision_free (first.decision);
}

/* A subagent's call says which subagent asks. */
static void
test_subagent_named (Fixture       *f,
                     gconstpointer  data)
{
  const ZotCallOrigin origin = { .agent_id = "0b7c1f", .agent_name = "helper" };
  Authorize first = { 0 };
  const char *body;

  zot_test_authorize (manager_of (f), "bash", "true", &origin, NULL, &first);
  zot_test_wait_until (dialog_shows, f, 10000);
  body = adw_message_dialog_get_body (_zot_approval_presenter_get_dialog (f->presenter));
  g_assert_nonnull (strstr (body, "subagent “helper”"));

  _zot_approval_presenter_respond (f->presenter, "deny");
  zot_test_wait_for (&first.done, 10000);
  g_assert_false (first.decision->approved);
  zot_decision_free (first.decision);
}

static void
test_dispose_denies (Fixture       *f,
                     gconstpointer  data)
{
  Authorize first = { 0 };
  Authorize second = { 0 };

  authorize (f, "bash", NULL, NULL, &first);
  authorize (f, "write", NULL, NULL, &second);
  zot_test_wait_until (dialog_shows, f, 10000);

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
  zot_test_wait_until (dialog_shows, f, 10000);

  g_assert_true (g_action_parse_detailed_name (ZOT_APPROVAL_DENY_ACTION, &action, &target, NULL));
  g_assert_true (g_str_has_prefix (action, "app."));
  g_action_activate (g_action_map_lookup_action (G_ACTION_MAP (app), action + strlen ("app.")),
                     g_variant_new_string (_zot_approval_presenter_get_current_id (f->presenter)));
  zot_test_wait_for (&first.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "bash denied user");

  zot_test_wait_until (dialog_shows, f, 10000);
  g_action_activate (g_action_map_lookup_action (G_ACTION_MAP (app), "approval-allow"),
                     g_variant_new_string (_zot_approval_presenter_get_current_id (f->presenter)));
  zot_test_wait_for (&second.done, 10000);
  g_assert_cmpstr (last_decision (f), ==, "write approved user");
  zot_test_wait_until (only_parent_left, f, 10000);

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
  ADD ("close-is-deny", test_close_is_deny);
  ADD ("queue-in-order", test_queue_in_order);
  ADD ("resolve-by-id", test_resolve_by_id);
  ADD ("resolved-elsewhere", test_resolved_elsewhere);
  ADD ("cancelled-run", test_cancelled_run);
  ADD ("origin-and-preview", test_origin_and_preview);
  ADD ("whole-command", test_whole_command);
  ADD ("unbroken-command", test_unbroken_command);
  ADD ("degenerate-clusters", test_degenerate_clusters);
  ADD ("subagent-named", test_subagent_named);
  ADD ("dispose-denies", test_dispose_denies);
  ADD ("application-actions", test_application_actions);
  ADD ("glob-like-read", test_glob_like_read);

#undef ADD

  return g_test_run ();
}
