/* test-gui-reasoning.c — a reply's reasoning in the window: the demo
 * model's "think:" lines stream into a folded "Thinking…" row above the
 * reply, which then says how long it took and unfolds to the text; the
 * conversation opened again shows it folded, and it unfolds the same. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-agent.h"
#include "zot-gui-test-util.h"
#include "zot-host.h"
#include "zot-message.h"
#include "zot-reasoning-view.h"
#include "zot-session.h"
#include "zot-test-util.h"
#include "zot-transcript.h"

#define PROMPT    "think: First I look around.\nthink: Then I answer.\nhello"
#define REASONING "First I look around.\nThen I answer."

typedef struct
{
  ZotTestEnv     env;
  ZotHost       *host;
  GtkWidget     *window;
  ZotTranscript *transcript;

  /* What the view showed while the reasoning streamed. */
  guint          n_deltas;
  gboolean       streamed_folded;
  gboolean       streamed_spinning;
  char          *streamed_label;
  gboolean       reply_spinner_shown;
  /* What it said when the answer began. */
  char          *answer_label;
} Fixture;

static void
open_host (Fixture    *f,
           const char *session_path)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;

  options.cwd = g_strdup (f->env.cwd);
  options.provider.name = g_strdup ("demo");
  options.session_path = g_strdup (session_path);
  options.no_ext = TRUE;
  options.interactive = TRUE;
  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);

  f->transcript = zot_test_show_transcript (f->host, &f->window);
}

static void
close_host (Fixture *f)
{
  zot_test_close_transcript (&f->window, &f->host);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  close_host (f);
  g_free (f->streamed_label);
  g_free (f->answer_label);
  zot_test_env_teardown (&f->env);
}

/* The shown reasoning view of the transcript, or NULL. */
static GtkWidget *
find_view (Fixture *f)
{
  g_autoptr(GPtrArray) views = zot_test_find_widgets (GTK_WIDGET (f->transcript), ZOT_TYPE_REASONING_VIEW, NULL);

  for (guint i = 0; i < views->len; i++)
    if (gtk_widget_get_visible (g_ptr_array_index (views, i)))
      return g_ptr_array_index (views, i);
  return NULL;
}

static const char *
header_label (GtkWidget *view)
{
  GtkWidget *header = zot_test_find_widget (view, GTK_TYPE_BUTTON, "reasoning-header");

  return gtk_label_get_label (GTK_LABEL (zot_test_find_widget (header, GTK_TYPE_LABEL, NULL)));
}

static gboolean
folded (GtkWidget *view)
{
  return !gtk_revealer_get_reveal_child (GTK_REVEALER (zot_test_find_widget (view, GTK_TYPE_REVEALER, NULL)));
}

static char *
body_text (GtkWidget *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (zot_test_find_widget (view, GTK_TYPE_TEXT_VIEW,
                                                                                          "reasoning-text")));
  GtkTextIter start;
  GtkTextIter end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* Unfolds the view with its header, as a click would. */
static void
unfold (GtkWidget *view)
{
  g_signal_emit_by_name (zot_test_find_widget (view, GTK_TYPE_BUTTON, "reasoning-header"), "clicked");
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* After the transcript took the delta: what the window shows right now. */
static void
on_reasoning_delta (ZotAgent   *agent,
                    const char *delta,
                    Fixture    *f)
{
  GtkWidget *view;
  GtkWidget *reply_spinner;

  while (g_main_context_iteration (NULL, FALSE))
    ;
  view = find_view (f);
  g_assert_nonnull (view);
  f->n_deltas++;
  f->streamed_folded = folded (view);
  f->streamed_spinning = gtk_spinner_get_spinning (GTK_SPINNER (zot_test_find_widget (view, GTK_TYPE_SPINNER, NULL)));
  /* One spinner says it: the reply's own waits below, hidden. */
  reply_spinner = zot_test_find_widget (gtk_widget_get_next_sibling (view), GTK_TYPE_SPINNER, NULL);
  f->reply_spinner_shown |= reply_spinner != NULL && gtk_widget_get_visible (reply_spinner);
  g_free (f->streamed_label);
  f->streamed_label = g_strdup (header_label (view));
}

static void
on_text_delta (ZotAgent   *agent,
               const char *delta,
               Fixture    *f)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
  if (f->answer_label == NULL)
    f->answer_label = g_strdup (header_label (find_view (f)));
}

static void
test_stream_unfold_reload (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *row_text = NULL;
  GtkWidget *view;

  open_host (f, NULL);
  g_signal_connect_after (zot_host_get_agent (f->host), "reasoning-delta", G_CALLBACK (on_reasoning_delta), f);
  g_signal_connect_after (zot_host_get_agent (f->host), "text-delta", G_CALLBACK (on_text_delta), f);
  zot_test_submit (f->host, PROMPT, &submit);
  g_assert_true (submit.ok);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  /* While it streamed: folded, "Thinking…", spinning. */
  g_assert_cmpuint (f->n_deltas, >, 1);
  g_assert_true (f->streamed_folded);
  g_assert_true (f->streamed_spinning);
  g_assert_cmpstr (f->streamed_label, ==, "Thinking…");
  g_assert_false (f->reply_spinner_shown);
  /* The answer ended the thinking, before the reply did. */
  g_assert_true (g_str_has_prefix (f->answer_label, "Thought for "));

  /* Done: still folded, says how long, the spinner gone. */
  view = find_view (f);
  g_assert_nonnull (view);
  g_assert_true (folded (view));
  g_assert_true (g_str_has_prefix (header_label (view), "Thought for "));
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (view, GTK_TYPE_SPINNER, NULL)));

  unfold (view);
  g_assert_false (folded (view));
  text = body_text (view);
  g_assert_cmpstr (text, ==, REASONING);

  /* The reasoning comes before the reply, in the same row. */
  g_assert_true (gtk_widget_has_css_class (gtk_widget_get_next_sibling (view), "message-assistant"));
  row_text = zot_test_widget_text (gtk_widget_get_parent (view));
  g_assert_nonnull (strstr (row_text, "You said:"));

  path = g_strdup (zot_session_get_path (zot_agent_get_session (zot_host_get_agent (f->host))));
  g_assert_nonnull (path);
  close_host (f);

  /* Opened again: folded, no time known, unfolds to the same text. */
  open_host (f, path);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  view = find_view (f);
  g_assert_nonnull (view);
  g_assert_true (folded (view));
  g_assert_cmpstr (header_label (view), ==, "Reasoning");
  unfold (view);
  g_assert_false (folded (view));
  g_clear_pointer (&text, g_free);
  text = body_text (view);
  g_assert_cmpstr (text, ==, REASONING);

  /* Folded again by the same header. */
  unfold (view);
  g_assert_true (folded (view));
}

/* A reply without reasoning shows no reasoning row. */
static void
test_none (Fixture       *f,
           gconstpointer  data)
{
  g_auto(ZotTestSubmit) submit = { 0 };

  open_host (f, NULL);
  zot_test_submit (f->host, "hello", &submit);
  g_assert_true (submit.ok);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_null (find_view (f));
}

/* The view alone: hidden without reasoning, shown while it streams,
 * hidden again when the finished message keeps none; both finalize. */
static void
test_view (void)
{
  ZotReasoningText *text = zot_reasoning_text_new ();
  GtkWidget *view = g_object_ref_sink (zot_reasoning_view_new ());
  g_autoptr(JsonObject) plain = zot_message_new_assistant_text ("no thinking here");

  zot_reasoning_view_set_text (ZOT_REASONING_VIEW (view), text);
  g_assert_false (gtk_widget_get_visible (view));

  zot_reasoning_text_append (text, "Hmm.");
  g_assert_true (gtk_widget_get_visible (view));
  g_assert_cmpstr (header_label (view), ==, "Thinking…");
  g_assert_true (folded (view));
  g_assert_cmpint (zot_reasoning_text_get_duration_ms (text), ==, -1);

  zot_reasoning_text_set_message (text, plain);
  g_assert_false (zot_reasoning_text_get_streaming (text));
  g_assert_cmpint (zot_reasoning_text_get_duration_ms (text), >=, 0);
  g_assert_false (gtk_widget_get_visible (view));

  zot_reasoning_view_set_text (ZOT_REASONING_VIEW (view), NULL);
  g_assert_finalize_object (text);
  g_assert_finalize_object (view);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/zot/gui/reasoning/stream-unfold-reload", Fixture, NULL, fixture_setup,
              test_stream_unfold_reload, fixture_teardown);
  g_test_add_func ("/zot/gui/reasoning/view", test_view);
  g_test_add ("/zot/gui/reasoning/none", Fixture, NULL, fixture_setup, test_none, fixture_teardown);

  return g_test_run ();
}
