/* test-gui-transcript.c — the transcript and its Markdown under a display:
 * a real ZotHost with the demo model and scripted fake extensions drives
 * a ZotTranscript in a presented window, and the rows its view made are
 * read back: messages, rendered Markdown, tool rows, notes, load
 * failures, the startup section. The Markdown view is also fed random and
 * hostile input. */
#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "zot-gui-test-util.h"
#include "zot-host.h"
#include "zot-image-bounds.h"
#include "zot-markdown.h"
#include "zot-test-util.h"
#include "zot-tooltip.h"
#include "zot-transcript.h"
#include "zot-transcript-private.h"

typedef struct
{
  ZotTestEnv     env;
  ZotHost       *host;
  GtkWidget     *window;
  ZotTranscript *transcript;
} Fixture;

/* Widget tree helpers */

/* The first widget of @type / @css_class whose text contains @needle. */
static GtkWidget *
find_with_text (GtkWidget  *root,
                GType       type,
                const char *css_class,
                const char *needle)
{
  g_autoptr(GPtrArray) widgets = zot_test_find_widgets (root, type, css_class);

  for (guint i = 0; i < widgets->len; i++)
    {
      g_autofree char *text = zot_test_widget_text (g_ptr_array_index (widgets, i));

      if (needle == NULL || strstr (text, needle) != NULL)
        return g_ptr_array_index (widgets, i);
    }

  return NULL;
}

/* The same, the last one: for nested matches, the innermost. */
static GtkWidget *
find_last_with_text (GtkWidget  *root,
                     GType       type,
                     const char *css_class,
                     const char *needle)
{
  g_autoptr(GPtrArray) widgets = zot_test_find_widgets (root, type, css_class);

  for (guint i = widgets->len; i > 0; i--)
    {
      g_autofree char *text = zot_test_widget_text (g_ptr_array_index (widgets, i - 1));

      if (needle == NULL || strstr (text, needle) != NULL)
        return g_ptr_array_index (widgets, i - 1);
    }

  return NULL;
}

static guint
widget_depth (GtkWidget *widget)
{
  guint deepest = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    deepest = MAX (deepest, widget_depth (child));

  return deepest + 1;
}

/* Lets GTK lay out and draw what is pending. */
static void
iterate (void)
{
  for (guint i = 0; i < 20 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

/* Host */

static gboolean
on_approval_requested (ZotExtensionManager *manager,
                       ZotApproval         *approval,
                       Fixture             *f)
{
  zot_approval_resolve (approval, ZOT_APPROVAL_ALLOW);
  return TRUE;
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

/* A window with a transcript showing a host with @paths (NULL-terminated,
 * or NULL) as its extensions; the transcript is connected before the
 * host loads, as in the window, so that it sees load failures. */
static void
start (Fixture            *f,
       const char * const *paths,
       gboolean            show_startup)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  g_signal_connect (zot_host_get_manager (f->host), "approval-requested",
                    G_CALLBACK (on_approval_requested), f);

  f->transcript = ZOT_TRANSCRIPT (zot_transcript_new ());
  zot_transcript_set_show_startup (f->transcript, show_startup);
  zot_transcript_set_host (f->transcript, f->host);

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 720, 640);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->transcript));
  gtk_window_present (GTK_WINDOW (f->window));

  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);
  zot_host_begin_session (f->host);
  iterate ();
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
  if (f->window != NULL)
    {
      g_object_add_weak_pointer (G_OBJECT (f->transcript), (gpointer *) &f->transcript);
      gtk_window_destroy (GTK_WINDOW (f->window));
      f->window = NULL;
      iterate ();
      g_assert_null (f->transcript);
    }

  if (f->host != NULL)
    g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
  zot_test_finalize_host (&f->host);

  zot_test_env_teardown (&f->env);
}

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Submit;

static void
submit_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Submit *submit = user_data;
  g_autofree char *text = NULL;

  submit->ok = zot_host_submit_finish (ZOT_HOST (object), result, &text, &submit->error);
  submit->done = TRUE;
}

static void
submit (Fixture    *f,
        const char *text)
{
  Submit result = { 0 };

  zot_host_submit_async (f->host, text, NULL, submit_cb, &result);
  zot_test_wait_for (&result.done, 60000);
  g_assert_no_error (result.error);
  g_assert_true (result.ok);
  iterate ();
}

/* Submits and expects the run to fail. */
static void
submit_failing (Fixture    *f,
                const char *text)
{
  Submit result = { 0 };

  zot_host_submit_async (f->host, text, NULL, submit_cb, &result);
  zot_test_wait_for (&result.done, 60000);
  g_assert_false (result.ok);
  g_assert_nonnull (result.error);
  g_clear_error (&result.error);
  iterate ();
}

static GtkWidget *
root (Fixture *f)
{
  return GTK_WIDGET (f->transcript);
}

/* Tests */

static gboolean
query_tooltip (GtkWidget *widget)
{
  g_autoptr(GtkTooltip) tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
  gboolean shown = FALSE;

  g_signal_emit_by_name (widget, "query-tooltip", 1, 1, FALSE, tooltip, &shown);
  return shown;
}

/* A tooltip given when GTK asks for it: shown while there is one,
 * changed and taken away like any. (That it is the accessible
 * description too is gui-a11y's to check: these tests run without an
 * accessibility backend.) */
static void
test_tooltip (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *button = gtk_button_new_from_icon_name ("edit-copy-symbolic");

  gtk_window_set_child (GTK_WINDOW (window), button);
  gtk_window_present (GTK_WINDOW (window));

  g_assert_false (query_tooltip (button));
  zot_tooltip_set (button, "Copy");
  g_assert_cmpstr (zot_tooltip_get (button), ==, "Copy");
  g_assert_true (gtk_widget_get_has_tooltip (button));
  g_assert_true (query_tooltip (button));

  /* Again, and changed: one handler still answers. */
  zot_tooltip_set (button, "Copy");
  zot_tooltip_set (button, "Copied");
  g_assert_cmpstr (zot_tooltip_get (button), ==, "Copied");
  g_assert_cmpuint (g_signal_handlers_disconnect_matched (button, G_SIGNAL_MATCH_ID | G_SIGNAL_MATCH_DATA,
                                                          g_signal_lookup ("query-tooltip", GTK_TYPE_WIDGET),
                                                          0, NULL, NULL, NULL), ==, 1);
  zot_tooltip_set (button, NULL);
  zot_tooltip_set (button, "Copied again");
  g_assert_true (query_tooltip (button));

  /* Taken away, or empty: none. */
  zot_tooltip_set (button, NULL);
  g_assert_null (zot_tooltip_get (button));
  g_assert_false (gtk_widget_get_has_tooltip (button));
  g_assert_false (query_tooltip (button));
  zot_tooltip_set (button, "Copy");
  zot_tooltip_set (button, "");
  g_assert_null (zot_tooltip_get (button));
  g_assert_false (query_tooltip (button));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_new_destroy (void)
{
  ZotTranscript *transcript = ZOT_TRANSCRIPT (g_object_ref_sink (zot_transcript_new ()));
  ZotMarkdownView *markdown = ZOT_MARKDOWN_VIEW (g_object_ref_sink (zot_markdown_view_new ()));

  zot_transcript_add_info (transcript, "info");
  zot_transcript_add_error (transcript, "error");
  zot_transcript_add_note (transcript, "ext", "success", "note");
  zot_transcript_set_host (transcript, NULL);
  zot_transcript_clear (transcript);
  g_assert_finalize_object (transcript);

  zot_markdown_view_set_markdown (markdown, "# hi\n\n```c\nint x;\n```\n");
  g_assert_finalize_object (markdown);
}

typedef struct
{
  Fixture *f;
  guint    deltas;
  guint    streamed;   /* deltas that were on screen right after they came */
} Streaming;

static void
on_text_delta (ZotAgent   *agent,
               const char *delta,
               Streaming  *s)
{
  g_autoptr(GPtrArray) rows = zot_test_find_widgets (GTK_WIDGET (s->f->transcript), GTK_TYPE_WIDGET, "message-assistant");
  GtkWidget *view;
  g_autofree char *text = NULL;

  s->deltas++;
  g_assert_cmpuint (rows->len, >, 0);
  view = find_with_text (g_ptr_array_index (rows, rows->len - 1), GTK_TYPE_TEXT_VIEW, "plain-text", NULL);
  if (view == NULL)
    return;
  text = zot_test_widget_text (view);
  if (g_str_has_suffix (text, "\n") && strlen (text) > 0)
    text[strlen (text) - 1] = '\0';
  if (g_str_has_suffix (text, delta))
    s->streamed++;
}

static void
test_hello (Fixture       *f,
            gconstpointer  data)
{
  GtkWidget *user_row;
  GtkWidget *assistant_row;
  GtkWidget *markdown;
  Streaming streaming = { f, 0, 0 };

  start (f, NULL, FALSE);
  /* After the transcript's own handler. */
  g_signal_connect (zot_host_get_agent (f->host), "text-delta", G_CALLBACK (on_text_delta), &streaming);
  submit (f, "hello");
  g_signal_handlers_disconnect_by_data (zot_host_get_agent (f->host), &streaming);

  /* Streamed as it came, into a plain text view. */
  g_assert_cmpuint (streaming.deltas, >, 1);
  g_assert_cmpuint (streaming.streamed, ==, streaming.deltas);

  user_row = find_with_text (root (f), GTK_TYPE_WIDGET, "message-user", "hello");
  g_assert_nonnull (user_row);

  assistant_row = find_with_text (root (f), GTK_TYPE_WIDGET, "message-assistant", "You said: hello");
  g_assert_nonnull (assistant_row);
  g_assert_true (gtk_widget_is_ancestor (assistant_row, root (f)));

  /* The streamed label was replaced by the rendered message. */
  markdown = find_with_text (assistant_row, ZOT_TYPE_MARKDOWN_VIEW, NULL, "demo model");
  g_assert_nonnull (markdown);
  g_assert_nonnull (strstr (zot_markdown_view_get_markdown (ZOT_MARKDOWN_VIEW (markdown)), "You said: hello"));
  g_assert_true (gtk_widget_get_parent (markdown) == assistant_row);
  g_assert_null (gtk_widget_get_next_sibling (markdown));
  g_assert_null (gtk_widget_get_prev_sibling (markdown));

  /* User before assistant. */
  {
    g_autoptr(GPtrArray) rows = zot_test_find_widgets (root (f), GTK_TYPE_WIDGET, NULL);
    guint user_index = 0, assistant_index = 0;

    g_assert_true (g_ptr_array_find (rows, user_row, &user_index));
    g_assert_true (g_ptr_array_find (rows, assistant_row, &assistant_index));
    g_assert_cmpuint (user_index, <, assistant_index);
  }
}

/* Clicks a copy button and reads back the clipboard. */
static char *
clicked_copy (GtkWidget *button)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (button);
  GdkContentProvider *content;
  g_auto(GValue) value = G_VALUE_INIT;

  g_signal_emit_by_name (button, "clicked");
  content = gdk_clipboard_get_content (clipboard);
  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
  return g_value_dup_string (&value);
}

static const char *markdown_prompt =
  "\n"
  "# Big Title\n"
  "\n"
  "Some *emphasis*, **strong** and `inline_code` with <b>raw tags</b> & more.\n"
  "\n"
  "- first item\n"
  "- second item\n"
  "  1. nested one\n"
  "  2. nested two\n"
  "\n"
  "> quoted words\n"
  "\n"
  "```c\n"
  "int main (void) { return 0; }\n"
  "```\n"
  "\n"
  "---\n"
  "\n"
  "A [link](https://example.com) here.\n";

static void
check_markdown (GtkWidget *markdown)
{
  g_autoptr(GPtrArray) views = zot_test_find_widgets (markdown, GTK_SOURCE_TYPE_VIEW, NULL);
  g_autoptr(GPtrArray) separators = zot_test_find_widgets (markdown, GTK_TYPE_SEPARATOR, NULL);
  g_autofree char *all = zot_test_widget_text (markdown);
  GtkWidget *heading;
  GtkWidget *paragraph;
  GtkWidget *item;
  GtkWidget *nested;
  GtkWidget *link;
  GtkTextBuffer *buffer;
  GtkSourceLanguage *language;
  g_autofree char *code = NULL;
  GtkTextIter start, end;

  /* A heading, by its size class, without the "#". */
  heading = find_with_text (markdown, GTK_TYPE_LABEL, "title-1", "Big Title");
  g_assert_nonnull (heading);
  g_assert_null (strchr (gtk_label_get_text (GTK_LABEL (heading)), '#'));

  /* Inline code and emphasis lose their markers; raw tags stay literal. */
  paragraph = find_with_text (markdown, GTK_TYPE_LABEL, NULL, "inline_code");
  g_assert_nonnull (paragraph);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (paragraph)), "Some emphasis, strong and inline_code"));
  g_assert_null (strchr (gtk_label_get_text (GTK_LABEL (paragraph)), '`'));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (paragraph)), "<b>raw tags</b> & more"));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (paragraph)), "&lt;b&gt;"));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (paragraph)), "font_family=\"monospace\""));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (paragraph)), "<i>emphasis</i>"));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (paragraph)), "<b>strong</b>"));

  /* Lists, nested, with their markers. */
  item = find_with_text (markdown, GTK_TYPE_GRID, "markdown-item", "first item");
  g_assert_nonnull (item);
  g_assert_nonnull (find_with_text (item, GTK_TYPE_LABEL, "markdown-marker", "•"));
  nested = find_last_with_text (markdown, GTK_TYPE_GRID, "markdown-item", "nested two");
  g_assert_nonnull (nested);
  g_assert_nonnull (find_with_text (nested, GTK_TYPE_LABEL, "markdown-marker", "2."));
  /* Nested: inside the second item of the outer list. */
  g_assert_true (gtk_widget_is_ancestor (nested, find_with_text (markdown, GTK_TYPE_GRID, "markdown-item",
                                                                 "second item")));

  g_assert_nonnull (find_with_text (markdown, GTK_TYPE_BOX, "markdown-quote", "quoted words"));
  g_assert_cmpuint (separators->len, >=, 1);

  /* The link is markup, its text plain. */
  link = find_with_text (markdown, GTK_TYPE_LABEL, NULL, "A link here");
  g_assert_nonnull (link);
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (link)), "<a href=\"https://example.com\""));

  /* The code block is a highlighted source view with the code only. */
  g_assert_cmpuint (views->len, ==, 1);
  buffer = gtk_text_view_get_buffer (g_ptr_array_index (views, 0));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  code = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (code, ==, "int main (void) { return 0; }");
  language = gtk_source_buffer_get_language (GTK_SOURCE_BUFFER (buffer));
  g_assert_nonnull (language);
  g_assert_cmpstr (gtk_source_language_get_id (language), ==, "c");
  g_assert_false (gtk_text_view_get_editable (g_ptr_array_index (views, 0)));
  g_assert_true (gtk_text_view_get_monospace (g_ptr_array_index (views, 0)));
  {
    g_autoptr(GPtrArray) copy = zot_test_find_widgets (markdown, GTK_TYPE_BUTTON, "markdown-copy");
    g_autofree char *copied = NULL;

    g_assert_cmpuint (copy->len, ==, 1);
    g_assert_cmpstr (zot_tooltip_get (copy->pdata[0]), ==, "Copy");
    copied = clicked_copy (copy->pdata[0]);
    g_assert_cmpstr (copied, ==, "int main (void) { return 0; }");
  }

  g_assert_null (strstr (all, "```"));
}

static void
test_markdown (Fixture       *f,
               gconstpointer  data)
{
  GtkWidget *assistant_row;
  GtkWidget *markdown;

  start (f, NULL, FALSE);
  submit (f, markdown_prompt);

  assistant_row = find_with_text (root (f), GTK_TYPE_WIDGET, "message-assistant", "Big Title");
  g_assert_nonnull (assistant_row);
  markdown = find_with_text (assistant_row, ZOT_TYPE_MARKDOWN_VIEW, NULL, NULL);
  g_assert_nonnull (markdown);
  check_markdown (markdown);

  /* The user's own text is shown as written, not rendered. */
  g_assert_nonnull (find_with_text (root (f), GTK_TYPE_LABEL, NULL, "```c"));
}

static void
test_markdown_languages (void)
{
  static const struct { const char *info; const char *id; } cases[] = {
    { "python", "python3" },
    { "js", "js" },
    { "javascript", "js" },
    { "sh", "sh" },
    { "bash", "sh" },
    { "rust", "rust" },
    { "json", "json" },
    { "C", "c" },
    { "c title=\"x\"", "c" },
    { "", NULL },
    { "no-such-language", NULL },
    { "../../etc/passwd", NULL },
  };
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = zot_markdown_view_new ();

  gtk_window_set_child (GTK_WINDOW (window), view);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("```%s\nx = 1\n```\n", cases[i].info);
      g_autoptr(GPtrArray) views = NULL;
      GtkSourceLanguage *language;

      zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (view), text);
      views = zot_test_find_widgets (view, GTK_SOURCE_TYPE_VIEW, NULL);
      g_assert_cmpuint (views->len, ==, 1);
      language = gtk_source_buffer_get_language (GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (views->pdata[0])));
      if (cases[i].id == NULL)
        g_assert_null (language);
      else
        {
          g_assert_nonnull (language);
          g_assert_cmpstr (gtk_source_language_get_id (language), ==, cases[i].id);
        }
    }

  /* The scheme follows the dark preference. */
  {
    AdwStyleManager *style = adw_style_manager_get_default ();
    g_autoptr(GPtrArray) views = zot_test_find_widgets (view, GTK_SOURCE_TYPE_VIEW, NULL);
    GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (views->pdata[0]));

    adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
    g_assert_cmpstr (gtk_source_style_scheme_get_id (gtk_source_buffer_get_style_scheme (buffer)), ==,
                     "Adwaita-dark");
    adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
    g_assert_cmpstr (gtk_source_style_scheme_get_id (gtk_source_buffer_get_style_scheme (buffer)), ==,
                     "Adwaita");
    adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
render_checked (GtkWidget  *view,
                const char *text,
                gssize      len)
{
  g_autofree char *copy = len < 0 ? g_strdup (text) : g_strndup (text, (gsize) len);

  zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (view), copy);
  g_assert_true (g_utf8_validate (zot_markdown_view_get_markdown (ZOT_MARKDOWN_VIEW (view)), -1, NULL));
  /* Deep input must not make a deep widget tree. */
  g_assert_cmpuint (widget_depth (view), <, 80);
  zot_test_measure_narrowest (view);
}

/* Items whose text Pango lays out wider than its wrap width, at the
 * narrowest: a list item used to be a horizontal box, which GTK found
 * could not fit its content at any height. */
static void
test_markdown_narrow (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = zot_markdown_view_new ();
  static const char * const items[] = {
    "- _\"\"=\t x",
    "* /x=`\t >",
    "* +;x*\t \"",
    "-\t&~&\t\t~",
    "1)\t+(` `!",
    "- ab \n  - `# `\n    > x\t\ty ",
  };

  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));

  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      render_checked (view, items[i], -1);
      g_assert_nonnull (zot_test_find_widget (view, GTK_TYPE_GRID, "markdown-item"));
      iterate ();
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Markdown that Pango 1.50 cannot wrap by word and character as it is
 * (zot-wrap-safe.h): text is shown repaired, each piece after the one
 * before it across styles; code is kept to be copied and its view does
 * not wrap (it scrolls sideways). Everything measures at the narrowest. */
static void
test_markdown_degenerate (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = zot_markdown_view_new ();
  static const struct
  {
    const char *markdown;
    const char *shown;
  } cases[] = {
    { "Y\u063F \u032DR", "Y\u063F \u25CC\u032DR\n" },
    { "a\u06E7 \u200D\u06A1", "a\u06E7 \u06A1\n" },
    { "# Y\u063F \u032DR", "Y\u063F \u25CC\u032DR\n" },
    { "- a\u06E7 \u200D\u06A1\n- \u0301x", "•\na\u06E7 \u06A1\n•\n\u25CC\u0301x\n" },
    { "**e**\u0301 Y\u063F *\u032DR*", "e\u0301 Y\u063F \u25CC\u032DR\n" },
    { "`Y\u063F \u032DR` a\nb \u200D\u200Cc", "Y\u063F \u25CC\u032DR a\nb c\n" },
    { "&#x200D;x &#x32D;", "x \u25CC\u032D\n" },
    { "<div>\n\u0301</div>", "<div>\n\u25CC\u0301</div>\n" },
  };

  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = NULL;

      render_checked (view, cases[i].markdown, -1);
      text = zot_test_widget_text (view);
      g_assert_cmpstr (text, ==, cases[i].shown);
      iterate ();
    }

  /* Code is copied as it is. */
  {
    g_autoptr(GPtrArray) views = NULL;
    g_autofree char *text = NULL;

    render_checked (view, "```\nY\u063F \u032DR\n```\n\n```\nplain\n```\n", -1);
    views = zot_test_find_widgets (view, GTK_SOURCE_TYPE_VIEW, NULL);
    g_assert_cmpuint (views->len, ==, 2);
    g_assert_cmpint (gtk_text_view_get_wrap_mode (views->pdata[0]), ==, GTK_WRAP_NONE);
    g_assert_cmpint (gtk_text_view_get_wrap_mode (views->pdata[1]), ==, GTK_WRAP_NONE);
    text = zot_test_widget_text (view);
    g_assert_cmpstr (text, ==, "Y\u063F \u032DR\nplain\n");
    iterate ();
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_markdown_fuzz (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *view = zot_markdown_view_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  static const char *alphabet = "#*_`[]()<>!-+=|\\~:/\n \t>1.)&;\"'{}xX";
  static const char * const hostile[] = {
    "<b>not bold</b> <i>x</i> <span foreground='red'>y</span> &amp; &lt; &",
    "[a](javascript:alert(1)) [b](file:///etc/passwd) [](https://x.org) ![img](https://x.org/a.png)",
    "[![alt](https://x.org/i.png)](https://x.org)",
    "<a href=\"https://x.org\">raw link</a>",
    "``` \n```\n",
    "```\n",
    "~~~python\nunclosed",
    "\x01\x02\x03\x7f text \xc3\x28 \xff\xfe",
    "1. a\n1. b\n99999999. c\n",
    "* * *\n___\n- - -\n",
    "<div>\n*html block*\n</div>\n",
    "    indented code\n",
    "line  \nbreak\\\nhard",
    "***strong emph*** **bold *nested* bold**",
    "# \n## \n###### six\n####### seven",
    "&#0; &#xD800; &#x110000; &nbsp; &copy;",
  };

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 300);
  gtk_window_present (GTK_WINDOW (window));

  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      render_checked (view, hostile[i], -1);
      iterate ();
    }

  /* Random bytes. */
  for (guint i = 0; i < 150; i++)
    {
      guint len = g_rand_int_range (rand, 0, 2048);
      g_autofree char *bytes = g_malloc (len + 1);

      for (guint j = 0; j < len; j++)
        bytes[j] = (char) g_rand_int_range (rand, 1, 256);
      bytes[len] = '\0';
      render_checked (view, bytes, len);
      if (i % 10 == 0)
        iterate ();
    }

  /* Random Markdown punctuation, which reaches more of the parser. */
  for (guint i = 0; i < 300; i++)
    {
      guint len = g_rand_int_range (rand, 0, 1024);
      g_autofree char *text = g_malloc (len + 1);

      for (guint j = 0; j < len; j++)
        text[j] = alphabet[g_rand_int_range (rand, 0, (gint32) strlen (alphabet))];
      text[len] = '\0';
      render_checked (view, text, len);
      if (i % 20 == 0)
        iterate ();
    }

  /* Deep nesting of every kind. */
  {
    GString *quotes = g_string_new (NULL);
    GString *lists = g_string_new (NULL);
    GString *indented = g_string_new (NULL);
    GString *emphasis = g_string_new (NULL);
    GString *brackets = g_string_new (NULL);

    for (guint i = 0; i < 5000; i++)
      {
        g_string_append_c (quotes, '>');
        g_string_append (lists, "- ");
        g_string_append (emphasis, i % 2 ? "*" : "_");
        g_string_append_c (brackets, '[');
      }
    g_string_append (quotes, " deep\n");
    g_string_append (lists, "deep\n");
    g_string_append (emphasis, "x");
    for (guint i = 0; i < 5000; i++)
      g_string_append (emphasis, i % 2 ? "*" : "_");
    for (guint i = 0; i < 300; i++)
      {
        for (guint j = 0; j < i * 2; j++)
          g_string_append_c (indented, ' ');
        g_string_append (indented, "- item\n");
      }
    g_string_append (brackets, "x](https://x.org)");

    render_checked (view, quotes->str, -1);
    iterate ();
    render_checked (view, lists->str, -1);
    iterate ();
    render_checked (view, indented->str, -1);
    iterate ();
    render_checked (view, emphasis->str, -1);
    iterate ();
    render_checked (view, brackets->str, -1);
    iterate ();

    g_string_free (quotes, TRUE);
    g_string_free (lists, TRUE);
    g_string_free (indented, TRUE);
    g_string_free (emphasis, TRUE);
    g_string_free (brackets, TRUE);
  }

  /* Very many blocks end in plain text instead of a widget each. */
  {
    GString *many = g_string_new (NULL);
    g_autoptr(GPtrArray) labels = NULL;

    for (guint i = 0; i < 20000; i++)
      g_string_append_printf (many, "- item %u\n", i);
    render_checked (view, many->str, -1);
    labels = zot_test_find_widgets (view, GTK_TYPE_LABEL, NULL);
    g_assert_cmpuint (labels->len, <, 5000);
    g_assert_nonnull (find_with_text (view, GTK_TYPE_TEXT_VIEW, "plain-text", "item 19999"));
    g_string_free (many, TRUE);
    iterate ();
  }

  /* A code block with a very long line is shown broken up, copied whole. */
  {
    GString *code = g_string_new ("```json\n[");
    g_autoptr(GPtrArray) copy = NULL;
    g_autofree char *copied = NULL;
    g_autofree char *expected = NULL;

    while (code->len < 200 * 1024)
      g_string_append (code, "{\"key\":\"value\"},");
    g_string_append (code, "{}]\n```\n");
    render_checked (view, code->str, -1);
    iterate ();
    copy = zot_test_find_widgets (view, GTK_TYPE_BUTTON, "markdown-copy");
    g_assert_cmpuint (copy->len, ==, 1);
    copied = clicked_copy (copy->pdata[0]);
    expected = g_strndup (code->str + strlen ("```json\n"), code->len - strlen ("```json\n") - strlen ("\n```\n"));
    g_assert_cmpstr (copied, ==, expected);
    g_string_free (code, TRUE);
  }

  /* A paragraph too long for a label is still shown, as plain text. */
  {
    GString *paragraph = g_string_new (NULL);

    while (paragraph->len < 300 * 1024)
      g_string_append (paragraph, "word *emph* `code` ");
    render_checked (view, paragraph->str, -1);
    g_assert_nonnull (find_with_text (view, GTK_TYPE_TEXT_VIEW, "plain-text", "word emph code word"));
    g_string_free (paragraph, TRUE);
    iterate ();
  }

  render_checked (view, NULL, -1);
  g_assert_null (gtk_widget_get_first_child (gtk_widget_get_first_child (view)));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_tool_call (Fixture       *f,
                gconstpointer  data)
{
  GtkWidget *row;
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) names = NULL;

  start (f, NULL, FALSE);
  submit (f, "tool: bash {\"command\":\"echo hi\"}");

  row = find_with_text (root (f), GTK_TYPE_EXPANDER, "tool-row", "bash");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_has_css_class (row, "tool-completed"));
  g_assert_false (gtk_widget_has_css_class (row, "tool-running"));

  names = zot_test_find_widgets (row, GTK_TYPE_LABEL, "tool-name");
  g_assert_cmpuint (names->len, ==, 1);
  g_assert_cmpstr (gtk_label_get_text (names->pdata[0]), ==, "bash");
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "tool-preview", "echo hi"));
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "tool-status", "completed"));

  /* Expanded: the command, its output and how it ended
   * (test-gui-tool-views.c has the rest). */
  g_assert_null (find_with_text (row, GTK_TYPE_WIDGET, "tool-output", NULL));
  gtk_expander_set_expanded (GTK_EXPANDER (row), TRUE);
  iterate ();
  g_assert_nonnull (find_with_text (row, GTK_TYPE_WIDGET, "tool-command", "echo hi"));
  g_assert_nonnull (find_with_text (row, GTK_TYPE_WIDGET, "tool-output", "hi"));
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "tool-exit", "exit 0"));
  text = zot_test_widget_text (row);
  g_assert_null (strstr (text, "exit code"));
}

static void
test_extension_tool (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *ext = NULL;
  GtkWidget *row;

  ext = zot_test_make_fake_args (f->env.root, "toolbox",
                                 "--register-json",
                                 "{\"type\":\"register_tool\",\"name\":\"echo_tool\",\"description\":\"Echoes\","
                                 "\"schema\":{\"type\":\"object\"}}",
                                 NULL);
  start (f, (const char * const []) { ext, NULL }, FALSE);
  submit (f, "tool: echo_tool {\"reply\":\"pong\"}\ntool: echo_tool {\"error\":\"no good\"}");

  row = find_with_text (root (f), GTK_TYPE_EXPANDER, "tool-row", "pong");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_has_css_class (row, "tool-completed"));
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "attribution", "— toolbox"));
  gtk_expander_set_expanded (GTK_EXPANDER (row), TRUE);
  g_assert_nonnull (find_with_text (row, GTK_TYPE_WIDGET, "tool-output", "pong"));

  /* An error result from a tool that ran still completed; the row says so. */
  row = find_with_text (root (f), GTK_TYPE_EXPANDER, "tool-row", "no good");
  g_assert_nonnull (row);
  g_assert_false (gtk_widget_has_css_class (row, "tool-running"));
}

/* The tool items of the transcript's model, in order. */
static GPtrArray *
tool_items (Fixture *f)
{
  GListModel *items = _zot_transcript_get_items (f->transcript);
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (items, i);

      if (zot_transcript_item_get_kind (item) == ZOT_TRANSCRIPT_ITEM_TOOL)
        g_ptr_array_add (tools, g_object_ref (item));
    }
  return tools;
}

/* Calls extensions ask for (call_tool): a row under the parent's, or an
 * attributed row of its own; never a tool use of the conversation. */
static void
test_extension_calls (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GError) error = NULL;
  ZotTranscriptItem *outer;
  ZotTranscriptItem *inner;
  ZotTranscriptItem *loose;
  GtkWidget *row;

  a = zot_test_make_fake_args (f->env.root, "asker", "--capabilities", "call_tool", "--command", "go",
                               "--register-json",
                               "{\"type\":\"register_tool\",\"name\":\"outer\",\"schema\":{}}", NULL);
  b = zot_test_make_fake_args (f->env.root, "lib", "--register-json",
                               "{\"type\":\"register_tool\",\"name\":\"inner\",\"schema\":{}}", NULL);
  start (f, (const char * const []) { a, b, NULL }, FALSE);
  submit (f, "tool: outer {\"call\":{\"name\":\"inner\",\"args\":{\"reply\":\"deep\"}}}");

  tools = tool_items (f);
  g_assert_cmpuint (tools->len, ==, 2);
  outer = g_ptr_array_index (tools, 0);
  inner = g_ptr_array_index (tools, 1);
  g_assert_cmpstr (zot_transcript_item_get_tool_name (outer), ==, "outer");
  g_assert_null (zot_transcript_item_get_requested_by (outer));
  g_assert_cmpstr (zot_transcript_item_get_tool_name (inner), ==, "inner");
  g_assert_cmpstr (zot_transcript_item_get_requested_by (inner), ==, "asker");
  g_assert_cmpstr (zot_transcript_item_get_parent_id (inner), ==, zot_transcript_item_get_tool_id (outer));
  g_assert_cmpuint (zot_transcript_item_get_depth (inner), ==, 1);
  g_assert_cmpint (zot_transcript_item_get_status (inner), ==, ZOT_TRANSCRIPT_TOOL_COMPLETED);
  g_assert_cmpuint (g_list_model_get_n_items (zot_transcript_item_get_children (outer)), ==, 1);

  row = _zot_transcript_get_row (f->transcript, inner);
  g_assert_nonnull (row);
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "attribution", "called by asker"));
  g_assert_cmpint (gtk_widget_get_margin_start (gtk_widget_get_first_child (row)), ==, 24);

  /* From a command: no parent, a row of its own that names the asker. */
  g_assert_true (zot_test_run_command (zot_host_get_manager (f->host), "go",
                                       "call {\"name\":\"inner\",\"args\":{\"reply\":\"loose\"}}", &error));
  g_assert_no_error (error);
  iterate ();
  g_clear_pointer (&tools, g_ptr_array_unref);
  tools = tool_items (f);
  g_assert_cmpuint (tools->len, ==, 3);
  loose = g_ptr_array_index (tools, 2);
  g_assert_cmpstr (zot_transcript_item_get_requested_by (loose), ==, "asker");
  g_assert_cmpuint (zot_transcript_item_get_depth (loose), ==, 0);
  g_assert_null (zot_transcript_item_get_parent_id (loose));
  g_assert_cmpint (zot_transcript_item_get_status (loose), ==, ZOT_TRANSCRIPT_TOOL_COMPLETED);
}

static gboolean
tool_done (gpointer data)
{
  return zot_transcript_item_get_status (data) != ZOT_TRANSCRIPT_TOOL_RUNNING;
}

static gboolean
has_tool_items (gpointer data)
{
  g_autoptr(GPtrArray) tools = tool_items (data);

  return tools->len > 0;
}

/* The tool items, once the running prompt made the first one. */
static GPtrArray *
wait_for_tool_items (Fixture *f)
{
  zot_test_wait_until (has_tool_items, f, 30000);
  return tool_items (f);
}

static gboolean
item_waits (gpointer data)
{
  return zot_transcript_item_get_waiting_panel (data) != NULL;
}

/* An interactive call that opened a panel: its row offers to go there,
 * until the call ends. */
static void
test_waiting_panel (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *ext = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  ZotTranscriptItem *item;
  GtkWidget *row;
  GtkWidget *button;

  ext = zot_test_make_fake_args (f->env.root, "asker", "--capabilities", "tool_cancel", "--register-json",
                                 "{\"type\":\"register_tool\",\"name\":\"ask\",\"schema\":{},"
                                 "\"interactive\":true}", NULL);
  start (f, (const char * const []) { ext, NULL }, FALSE);
  zot_host_submit_async (f->host,
                         "tool: ask {\"hang\":true,\"send\":\"{\\\"type\\\":\\\"open_panel\\\",\\\"panel\\\":"
                         "{\\\"id\\\":\\\"q\\\",\\\"title\\\":\\\"Question\\\",\\\"lines\\\":[\\\"Which?\\\"]}}\"}",
                         NULL, NULL, NULL);

  tools = wait_for_tool_items (f);
  item = g_ptr_array_index (tools, 0);
  zot_test_wait_until (item_waits, item, 30000);
  g_assert_cmpstr (zot_transcript_item_get_waiting_panel (item), ==, "asker/q");
  g_assert_cmpstr (zot_transcript_item_get_waiting_title (item), ==, "Question");

  iterate ();
  row = _zot_transcript_get_row (f->transcript, item);
  button = zot_test_find_widget (row, GTK_TYPE_BUTTON, "tool-waiting");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_visible (button));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Answer in “Question”");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.show-panel");

  /* The call ends: nothing to answer any more. */
  zot_agent_abort (zot_host_get_agent (f->host));
  zot_test_wait_until (tool_done, item, 30000);
  iterate ();
  g_assert_false (gtk_widget_get_visible (button));
}

static gboolean
item_has_progress (gpointer data)
{
  return zot_transcript_item_get_progress (data) != NULL;
}

/* An extension's tool_progress is the running row's status; once the call
 * ends, its outcome is. */
static void
test_tool_progress (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *ext = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  ZotTranscriptItem *item;
  GtkWidget *row;

  ext = zot_test_make_fake_args (f->env.root, "worker", "--capabilities", "tool_cancel", "--register-json",
                                 "{\"type\":\"register_tool\",\"name\":\"index\",\"schema\":{}}", NULL);
  start (f, (const char * const []) { ext, NULL }, FALSE);
  zot_host_submit_async (f->host, "tool: index {\"hang\":true,\"progress_text\":\"indexed 120 of 400 files\"}",
                         NULL, NULL, NULL);

  tools = wait_for_tool_items (f);
  item = g_ptr_array_index (tools, 0);
  zot_test_wait_until (item_has_progress, item, 30000);
  g_assert_cmpstr (zot_transcript_item_get_progress (item), ==, "indexed 120 of 400 files");
  iterate ();
  row = _zot_transcript_get_row (f->transcript, item);
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "tool-status", "indexed 120 of 400 files"));

  zot_agent_abort (zot_host_get_agent (f->host));
  zot_test_wait_until (tool_done, item, 30000);
  iterate ();
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "tool-status", "cancelled"));
}

static void
test_notes (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *ext = zot_test_make_fake_args (f->env.root, "noter", "--command", "Note", NULL);
  GtkWidget *row;

  start (f, (const char * const []) { ext, NULL }, FALSE);

  submit (f, "/Note notify warn Careful now");
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "note-row", "Careful now");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_has_css_class (row, "note-warn"));
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "attribution", "— noter"));

  submit (f, "/Note notify success All good");
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "note-row", "All good");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_has_css_class (row, "note-success"));

  submit (f, "/Note display Shown <b>as is</b>");
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "display-note", "Shown <b>as is</b>");
  g_assert_nonnull (row);
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "attribution", "— noter"));

  /* Host output (/help) is shown in a monospace row. */
  submit (f, "/help");
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "info-row", "/Note");
  g_assert_nonnull (row);
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "monospace", NULL));

  /* The public adders. */
  zot_transcript_add_note (f->transcript, "someone", "error", "Broken thing");
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "note-error", "Broken thing");
  g_assert_nonnull (row);
  g_assert_nonnull (find_with_text (row, GTK_TYPE_LABEL, "attribution", "— someone"));
  zot_transcript_add_error (f->transcript, "Turn failed");
  g_assert_nonnull (find_with_text (root (f), GTK_TYPE_WIDGET, "note-error", "Turn failed"));

  /* Text that Pango lays out wider than its wrap width, at the narrowest
   * (see test_markdown_narrow()). */
  zot_transcript_add_note (f->transcript, "someone", "info", "_\"\"=\t x");
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "note-row", "_\"\"=\t x");
  g_assert_nonnull (row);
  zot_test_measure_narrowest (row);
}

static void
test_turn_error (Fixture       *f,
                 gconstpointer  data)
{
  GtkWidget *row;

  start (f, NULL, FALSE);
  zot_agent_set_max_steps (zot_host_get_agent (f->host), 1);
  submit_failing (f, "tool: bash {\"command\":\"echo hi\"}");

  row = find_with_text (root (f), GTK_TYPE_WIDGET, "note-error", "max-steps");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_has_css_class (row, "note-row"));
}

static void
abort_on_delta (ZotAgent   *agent,
                const char *delta,
                gpointer    data)
{
  zot_agent_abort (agent);
}

static void
test_aborted (Fixture       *f,
              gconstpointer  data)
{
  GtkWidget *row;

  start (f, NULL, FALSE);
  g_signal_connect (zot_host_get_agent (f->host), "text-delta", G_CALLBACK (abort_on_delta), NULL);
  submit_failing (f, "hello there, a long enough message to stream in several pieces");
  g_signal_handlers_disconnect_by_func (zot_host_get_agent (f->host), abort_on_delta, NULL);

  /* What had arrived stays, marked; an abort is not an error. */
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "message-assistant", "(stopped)");
  g_assert_nonnull (row);
  g_assert_nonnull (find_with_text (row, GTK_TYPE_TEXT_VIEW, "plain-text", "[demo"));
  g_assert_null (find_with_text (root (f), GTK_TYPE_WIDGET, "note-error", NULL));

  /* The next turn streams into a row of its own. */
  submit (f, "again");
  row = find_with_text (root (f), GTK_TYPE_WIDGET, "message-assistant", "You said: again");
  g_assert_nonnull (row);
  g_assert_null (find_with_text (row, GTK_TYPE_WIDGET, NULL, "(stopped)"));
}

static void
test_load_failure (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *bad = zot_test_make_fake_args (f->env.root, "broken", "--exit-before-hello", "3", NULL);
  g_autofree char *good = zot_test_make_fake_args (f->env.root, "fine", NULL);
  GtkWidget *row;
  g_autofree char *text = NULL;

  start (f, (const char * const []) { bad, good, NULL }, FALSE);

  row = find_with_text (root (f), GTK_TYPE_WIDGET, "load-failure", "broken");
  g_assert_nonnull (row);
  text = zot_test_widget_text (row);
  g_assert_nonnull (strstr (text, "ext-broken.log"));

  submit (f, "hello");
  g_assert_nonnull (find_with_text (root (f), GTK_TYPE_WIDGET, "load-failure", "broken"));

  zot_transcript_clear (f->transcript);
  iterate ();
  g_assert_null (find_with_text (root (f), GTK_TYPE_WIDGET, "load-failure", NULL));
  g_assert_null (find_with_text (root (f), GTK_TYPE_WIDGET, "message-user", NULL));

  /* It keeps working after a clear. */
  submit (f, "again");
  g_assert_nonnull (find_with_text (root (f), GTK_TYPE_WIDGET, "message-assistant", "You said: again"));
}

static void
reload_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (zot_extension_manager_reload_finish (ZOT_EXTENSION_MANAGER (object), result, NULL));
  *done = TRUE;
}

static void
reload (Fixture *f)
{
  gboolean done = FALSE;

  zot_extension_manager_reload_async (zot_host_get_manager (f->host), NULL, reload_cb, &done);
  zot_test_wait_for (&done, 30000);
  g_assert_true (done);
  iterate ();
}

static guint
count_load_failures (Fixture *f)
{
  GListModel *items = _zot_transcript_get_items (f->transcript);
  guint count = 0;

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(ZotTranscriptItem) item = g_list_model_get_item (items, i);

      if (zot_transcript_item_get_kind (item) == ZOT_TRANSCRIPT_ITEM_LOAD_FAILURE)
        count++;
    }
  return count;
}

/* A load failure's row lasts until that extension loads, then goes: the
 * page says "until a successful reload or /clear". */
static void
test_load_failure_reload (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *bad = zot_test_make_fake_args (f->env.root, "broken", "--exit-before-hello", "3", NULL);
  g_autofree char *other = zot_test_make_fake_args (f->env.root, "other", "--exit-before-hello", "3", NULL);
  g_autofree char *fixed = NULL;

  start (f, (const char * const []) { bad, other, NULL }, FALSE);
  g_assert_nonnull (find_with_text (root (f), GTK_TYPE_WIDGET, "load-failure", "broken"));
  g_assert_nonnull (find_with_text (root (f), GTK_TYPE_WIDGET, "load-failure", "other"));
  g_assert_cmpuint (count_load_failures (f), ==, 2);

  /* Failing again: one row each, not two. */
  reload (f);
  g_assert_cmpuint (count_load_failures (f), ==, 2);

  /* Fixed in place: its row goes, the other's stays. */
  fixed = zot_test_make_fake_args (f->env.root, "broken", NULL);
  g_assert_cmpstr (fixed, ==, bad);
  reload (f);
  g_assert_null (find_with_text (root (f), GTK_TYPE_WIDGET, "load-failure", "broken"));
  g_assert_nonnull (find_with_text (root (f), GTK_TYPE_WIDGET, "load-failure", "other"));
  g_assert_cmpuint (count_load_failures (f), ==, 1);
}

static gboolean
startup_lists (gpointer data)
{
  Fixture *f = data;
  GtkWidget *label = find_with_text (root (f), GTK_TYPE_LABEL, "startup-section", NULL);
  const char *text = label ? gtk_label_get_text (GTK_LABEL (label)) : "";

  return strstr (text, "alpha") != NULL && strstr (text, "beta") != NULL;
}

/* The section is a row of the list, first: there when shown, gone when not. */
static GtkWidget *
startup_label (Fixture *f)
{
  GtkWidget *label = find_with_text (root (f), GTK_TYPE_LABEL, "startup-section", NULL);

  return label != NULL && gtk_widget_get_mapped (label) ? label : NULL;
}

static void
test_startup (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *alpha = zot_test_make_fake_args (f->env.root, "alpha", NULL);
  g_autofree char *beta = zot_test_make_fake_args (f->env.root, "beta", NULL);
  GtkWidget *label;
  graphene_rect_t bounds;

  start (f, (const char * const []) { alpha, beta, NULL }, TRUE);
  zot_test_wait_until (startup_lists, f, 10000);
  iterate ();

  label = startup_label (f);
  g_assert_nonnull (label);
  g_assert_true (zot_transcript_get_show_startup (f->transcript));
  /* At the top, above the conversation. */
  zot_transcript_add_info (f->transcript, "below");
  iterate ();
  g_assert_true (gtk_widget_compute_bounds (label, root (f), &bounds));
  g_assert_cmpfloat (bounds.origin.y, <, 40);

  /* Cleared with the conversation? No: it is not part of it. */
  zot_transcript_clear (f->transcript);
  iterate ();
  g_assert_nonnull (startup_label (f));
  g_assert_cmpuint (g_list_model_get_n_items (_zot_transcript_get_items (f->transcript)), ==, 0);

  g_object_set (f->transcript, "show-startup", FALSE, NULL);
  iterate ();
  g_assert_null (startup_label (f));
}

static void
test_startup_hidden (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *alpha = zot_test_make_fake_args (f->env.root, "alpha", NULL);

  start (f, (const char * const []) { alpha, NULL }, FALSE);
  g_assert_null (startup_label (f));
}

static gboolean
at_bottom (gpointer data)
{
  Fixture *f = data;
  GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);
  GListModel *items = _zot_transcript_get_items (f->transcript);
  guint n_items = g_list_model_get_n_items (items);
  g_autoptr(ZotTranscriptItem) item = NULL;
  GtkWidget *scroller;
  GtkWidget *last;
  graphene_rect_t bounds;

  if (!(gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment) &&
        gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
        gtk_adjustment_get_upper (adjustment) - 1))
    return FALSE;

  /* What is drawn, not only the adjustment: the last row is on screen. */
  if (n_items == 0)
    return FALSE;
  item = g_list_model_get_item (items, n_items - 1);
  last = _zot_transcript_get_row (f->transcript, item);
  scroller = zot_test_find_widget (root (f), GTK_TYPE_SCROLLED_WINDOW, NULL);
  if (last == NULL || !gtk_widget_compute_bounds (last, scroller, &bounds))
    return FALSE;

  return bounds.origin.y >= 0 &&
         bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller) + 1;
}

static void
test_autoscroll (Fixture       *f,
                 gconstpointer  data)
{
  start (f, NULL, FALSE);

  for (guint i = 0; i < 12; i++)
    zot_transcript_add_info (f->transcript, "line\nline\nline\nline\nline");

  /* Following the end while the user is there. */
  zot_test_wait_until (at_bottom, f, 10000);
  submit (f, "hello\n\n```c\nint x;\n```\n");
  zot_test_wait_until (at_bottom, f, 10000);
  submit (f, "tool: bash {\"command\":\"echo hi\"}");
  zot_test_wait_until (at_bottom, f, 10000);

  /* Not while the user reads something above. */
  {
    GtkAdjustment *adjustment = _zot_transcript_get_vadjustment (f->transcript);

    gtk_adjustment_set_value (adjustment, 0);
    iterate ();
    zot_transcript_add_info (f->transcript, "more\nmore\nmore");
    iterate ();
    g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  }
}

static void
add_test (const char *path,
          void      (*func) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown);
}

/* Images are measured from their header and refused past
 * ZOT_IMAGE_MAX_PIXELS before a pixel is decoded; at the cap they show. */
static void
test_image_bounds (void)
{
  g_autoptr(GBytes) huge = zot_test_black_png (16000, 16000);
  g_autoptr(GBytes) at = zot_test_black_png (4096, 4096);
  g_autoptr(GBytes) past = zot_test_black_png (4097, 4096);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) block = json_object_new ();
  g_autoptr(ZotTranscriptItem) item = NULL;
  g_autofree char *data = NULL;
  int width;
  int height;
  gint64 start;

  g_test_message ("a 16000×16000 PNG is %" G_GSIZE_FORMAT " bytes", g_bytes_get_size (huge));
  g_assert_true (zot_image_peek_size (huge, &width, &height));
  g_assert_cmpint (width, ==, 16000);
  g_assert_cmpint (height, ==, 16000);

  start = g_get_monotonic_time ();
  texture = zot_image_texture_new (huge, &error);
  g_test_message ("refusing it took %.3f ms", (g_get_monotonic_time () - start) / 1000.0);
  g_assert_null (texture);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_cmpstr (error->message, ==,
                   "image too large: 16000×16000 pixels; at most 16777216 pixels");
  g_clear_error (&error);

  texture = zot_image_texture_new (past, &error);
  g_assert_null (texture);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_clear_error (&error);

  texture = zot_image_texture_new (at, &error);
  g_assert_no_error (error);
  g_assert_nonnull (texture);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 4096);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, 4096);
  g_clear_object (&texture);

  /* In the transcript the refused image says why. */
  data = g_base64_encode (g_bytes_get_data (huge, NULL), g_bytes_get_size (huge));
  json_object_set_string_member (block, "type", "image");
  json_object_set_string_member (block, "mime_type", "image/png");
  json_object_set_string_member (block, "data", data);
  json_array_add_object_element (content, json_object_ref (block));
  item = zot_transcript_item_new_user ("look", content);
  g_assert_null (zot_transcript_item_get_image_texture (item, 0));
  g_assert_nonnull (strstr (zot_transcript_item_get_image_note (item, 0), "16000×16000"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();
  gtk_source_init ();

  g_test_add_func ("/zot/gui/transcript/new-destroy", test_new_destroy);
  g_test_add_func ("/zot/gui/transcript/image-bounds", test_image_bounds);
  g_test_add_func ("/zot/gui/tooltip", test_tooltip);
  g_test_add_func ("/zot/gui/markdown/languages", test_markdown_languages);
  g_test_add_func ("/zot/gui/markdown/narrow", test_markdown_narrow);
  g_test_add_func ("/zot/gui/markdown/degenerate", test_markdown_degenerate);
  g_test_add_func ("/zot/gui/markdown/fuzz", test_markdown_fuzz);
  add_test ("/zot/gui/transcript/hello", test_hello);
  add_test ("/zot/gui/transcript/markdown", test_markdown);
  add_test ("/zot/gui/transcript/tool-call", test_tool_call);
  add_test ("/zot/gui/transcript/extension-tool", test_extension_tool);
  add_test ("/zot/gui/transcript/extension-calls", test_extension_calls);
  add_test ("/zot/gui/transcript/waiting-panel", test_waiting_panel);
  add_test ("/zot/gui/transcript/tool-progress", test_tool_progress);
  add_test ("/zot/gui/transcript/notes", test_notes);
  add_test ("/zot/gui/transcript/turn-error", test_turn_error);
  add_test ("/zot/gui/transcript/aborted", test_aborted);
  add_test ("/zot/gui/transcript/load-failure", test_load_failure);
  add_test ("/zot/gui/transcript/load-failure-reload", test_load_failure_reload);
  add_test ("/zot/gui/transcript/startup", test_startup);
  add_test ("/zot/gui/transcript/startup-hidden", test_startup_hidden);
  add_test ("/zot/gui/transcript/autoscroll", test_autoscroll);

  return g_test_run ();
}
