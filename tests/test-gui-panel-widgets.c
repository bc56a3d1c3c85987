/* test-gui-panel-widgets.c — native panel widgets, end to end: a fake
 * extension opens panels with `open_panel` frames (sent through its "send"
 * command directive), the pane builds real widgets, and what the user does
 * reaches the extension as `panel_event` (its record file shows it). The
 * ask-user example answers its interactive tool from its panel, or learns
 * that the user closed it. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-host.h"
#include "zot-panel-list.h"
#include "zot-panel-list-row.h"
#include "zot-panel-pane.h"
#include "zot-panel-pane-private.h"
#include "zot-panel-view.h"
#include "zot-panel-view-private.h"
#include "zot-panel-widgets-view.h"
#include "zot-resources.h"
#include "zot-limits.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

typedef struct
{
  ZotTestEnv    env;
  ZotHost      *host;
  GtkWindow    *window;
  ZotPanelPane *pane;
  char         *record;
  char         *waiting_tool_id;
} Fixture;

static void
on_panel_waiting (ZotExtensionManager *manager,
                  ZotExtension        *extension,
                  ZotPanel            *panel,
                  const char          *tool_id,
                  Fixture             *f)
{
  g_free (f->waiting_tool_id);
  f->waiting_tool_id = g_strdup (tool_id);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *fake = NULL;
  g_autofree char *ask = g_test_build_filename (G_TEST_DIST, "..", "examples", "extensions",
                                                "ask-user", NULL);
  const char *paths[] = { NULL, ask, NULL };

  zot_test_env_setup (&f->env);
  fake = zot_test_make_recording_fake (&f->env, "w", "--command", "w", NULL);
  f->record = zot_test_record_path (&f->env, "w");
  paths[0] = fake;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_test_load_host (f->host);
  zot_host_begin_session (f->host);
  zot_extension_manager_set_policy (zot_host_get_manager (f->host), ZOT_APPROVAL_POLICY_YOLO);
  g_signal_connect (zot_host_get_manager (f->host), "panel-waiting", G_CALLBACK (on_panel_waiting), f);

  f->pane = ZOT_PANEL_PANE (zot_panel_pane_new ());
  zot_panel_pane_set_manager (f->pane, zot_host_get_manager (f->host));

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 480, 600);
  gtk_window_set_child (f->window, GTK_WIDGET (f->pane));
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_signal_handlers_disconnect_by_data (zot_host_get_manager (f->host), f);
  g_object_add_weak_pointer (G_OBJECT (f->pane), (gpointer *) &f->pane);
  gtk_window_destroy (f->window);
  g_assert_null (f->pane);

  zot_test_finalize_host (&f->host);

  g_clear_pointer (&f->record, g_free);
  g_clear_pointer (&f->waiting_tool_id, g_free);
  zot_test_env_teardown (&f->env);
}

/* Has the fake send @frame (one line of JSON). */
static void
send_frame (Fixture    *f,
            const char *frame)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  g_autofree char *text = g_strdup_printf ("/w send %s", frame);

  zot_test_submit (f->host, text, &submit);
  g_assert_no_error (submit.error);
}

typedef struct
{
  Fixture    *f;
  const char *panel_id;
  const char *widget_id;
  GtkWidget  *found;
} WidgetWait;

static ZotPanel *
find_panel (Fixture    *f,
            const char *panel_id)
{
  GPtrArray *panels = zot_extension_manager_list_panels (zot_host_get_manager (f->host));

  for (guint i = 0; i < panels->len; i++)
    if (g_str_equal (zot_panel_get_id (g_ptr_array_index (panels, i)), panel_id))
      return g_ptr_array_index (panels, i);
  return NULL;
}

static ZotPanelWidgetsView *
widgets_of (Fixture    *f,
            const char *panel_id)
{
  ZotPanel *panel = find_panel (f, panel_id);
  ZotPanelView *view = panel ? _zot_panel_pane_get_view (f->pane, panel) : NULL;

  return view ? _zot_panel_view_get_widgets (view) : NULL;
}

static gboolean
has_widget (gpointer data)
{
  WidgetWait *wait = data;
  ZotPanelWidgetsView *widgets = widgets_of (wait->f, wait->panel_id);

  wait->found = widgets ? zot_panel_widgets_view_lookup (widgets, wait->widget_id) : NULL;
  return wait->found != NULL && gtk_widget_get_mapped (wait->found);
}

/* Waits until @panel_id shows the widget @widget_id; returns it. */
static GtkWidget *
wait_widget (Fixture    *f,
             const char *panel_id,
             const char *widget_id)
{
  WidgetWait wait = { f, panel_id, widget_id, NULL };

  zot_test_wait_until (has_widget, &wait, 10000);
  return wait.found;
}

typedef struct
{
  Fixture    *f;
  const char *widget_id;
  const char *event;
  JsonObject *found;
} EventWait;

static gboolean
has_event (gpointer data)
{
  EventWait *wait = data;
  g_autoptr(GPtrArray) frames = zot_test_read_frames (wait->f->record);

  for (guint i = 0; i < frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (frame, "type", ""), "panel_event") == 0 &&
          g_strcmp0 (json_object_get_string_member_with_default (frame, "widget_id", ""), wait->widget_id) == 0 &&
          g_strcmp0 (json_object_get_string_member_with_default (frame, "event", ""), wait->event) == 0)
        {
          g_clear_pointer (&wait->found, json_object_unref);
          wait->found = json_object_ref (frame);
        }
    }
  return wait->found != NULL;
}

/* Waits for the fake to have received a panel_event; returns the last. */
static JsonObject *
wait_event (Fixture    *f,
            const char *widget_id,
            const char *event)
{
  EventWait wait = { f, widget_id, event, NULL };

  zot_test_wait_until (has_event, &wait, 10000);
  return wait.found;
}

static gboolean
focus_within (GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (widget));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

#define FORM_OPEN \
  "{\"type\":\"open_panel\",\"panel\":{\"id\":\"form\",\"title\":\"Form\",\"widgets\":[" \
  "{\"id\":\"name\",\"type\":\"entry\",\"label\":\"Name\",\"submit_label\":\"Add\"}," \
  "{\"id\":\"go\",\"type\":\"button\",\"label\":\"Go\"}]}}"

static void
test_rerender_keeps_typing (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(JsonObject) event = NULL;
  GtkWidget *entry;

  send_frame (f, FORM_OPEN);
  entry = wait_widget (f, "form", "name");
  g_assert_true (GTK_IS_ENTRY (entry));
  g_assert_true (gtk_widget_grab_focus (entry));
  gtk_editable_set_text (GTK_EDITABLE (entry), "typed by the user");
  g_assert_true (focus_within (entry));

  /* A new widget before the entry moves it; the render sets no value. */
  send_frame (f, "{\"type\":\"panel_render\",\"panel_id\":\"form\",\"widgets\":["
                 "{\"id\":\"intro\",\"type\":\"text\",\"text\":\"Now with an intro\"},"
                 "{\"id\":\"name\",\"type\":\"entry\",\"label\":\"Name\",\"submit_label\":\"Add\"},"
                 "{\"id\":\"go\",\"type\":\"button\",\"label\":\"Go\"}]}");
  wait_widget (f, "form", "intro");
  g_assert_true (wait_widget (f, "form", "name") == entry);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "typed by the user");
  g_assert_true (focus_within (entry));

  /* The typing reached the extension once it paused; Enter submits it. */
  event = wait_event (f, "name", "changed");
  g_assert_cmpstr (json_object_get_string_member (event, "panel_id"), ==, "form");
  g_assert_cmpstr (json_object_get_string_member (event, "value"), ==, "typed by the user");
  g_clear_pointer (&event, json_object_unref);
  g_signal_emit_by_name (entry, "activate");
  event = wait_event (f, "name", "submit");
  g_assert_cmpstr (json_object_get_string_member (event, "value"), ==, "typed by the user");

  /* A render that sets the value clears the entry. */
  send_frame (f, "{\"type\":\"panel_render\",\"panel_id\":\"form\",\"widgets\":["
                 "{\"id\":\"name\",\"type\":\"entry\",\"label\":\"Name\",\"value\":\"\"},"
                 "{\"id\":\"cleared\",\"type\":\"text\",\"text\":\"Added\"}]}");
  wait_widget (f, "form", "cleared");
  g_assert_true (wait_widget (f, "form", "name") == entry);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "");
  g_assert_null (zot_panel_widgets_view_lookup (widgets_of (f, "form"), "go"));
}

static void
test_button_event (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(JsonObject) event = NULL;
  GtkWidget *button;

  send_frame (f, FORM_OPEN);
  button = wait_widget (f, "form", "go");
  g_assert_true (GTK_IS_BUTTON (button));
  g_assert_true (gtk_widget_activate (button));

  event = wait_event (f, "go", "clicked");
  g_assert_cmpstr (json_object_get_string_member (event, "panel_id"), ==, "form");
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (event, "value")));
}

static void
test_list_events (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(JsonObject) event = NULL;
  GtkWidget *list;
  g_autoptr(GPtrArray) labels = NULL;
  GtkWidget *check;
  GtkWidget *row;
  GtkWidget *trash;

  send_frame (f, "{\"type\":\"open_panel\",\"panel\":{\"id\":\"todo\",\"title\":\"To-do\",\"widgets\":["
                 "{\"id\":\"items\",\"type\":\"list\",\"label\":\"Items\",\"rows\":["
                 "{\"id\":\"r1\",\"title\":\"Milk\",\"checked\":false,"
                 " \"buttons\":[{\"id\":\"del\",\"label\":\"Delete\",\"icon\":\"user-trash-symbolic\"}]}]}]}}");
  list = wait_widget (f, "todo", "items");
  g_assert_true (ZOT_IS_PANEL_LIST (list));
  g_assert_cmpuint (g_list_model_get_n_items (zot_panel_list_get_model (ZOT_PANEL_LIST (list))), ==, 1);

  check = zot_test_find_widget (list, GTK_TYPE_CHECK_BUTTON, NULL);
  g_assert_nonnull (check);
  /* The row's widgets follow the row: a check box, no icon, no subtitle. */
  g_assert_true (gtk_widget_get_visible (check));
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
  row = zot_test_find_widget (list, ZOT_TYPE_PANEL_LIST_ROW, NULL);
  g_assert_nonnull (row);
  g_assert_false (gtk_widget_get_visible (zot_test_find_widget (row, GTK_TYPE_IMAGE, NULL)));
  labels = zot_test_find_widgets (row, GTK_TYPE_LABEL, NULL);
  g_assert_cmpuint (labels->len, ==, 2);
  g_assert_cmpstr (gtk_label_get_text (labels->pdata[0]), ==, "Milk");
  g_assert_false (gtk_widget_get_visible (labels->pdata[1]));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
  event = wait_event (f, "items", "toggled");
  g_assert_cmpstr (zot_test_json_string_at (event, "value/row"), ==, "r1");
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (event, "value"), "checked"));
  g_clear_pointer (&event, json_object_unref);

  trash = zot_test_find_widget (list, GTK_TYPE_BUTTON, "flat");
  g_assert_nonnull (trash);
  g_assert_true (gtk_widget_activate (trash));
  event = wait_event (f, "items", "button");
  g_assert_cmpstr (zot_test_json_string_at (event, "value/row"), ==, "r1");
  g_assert_cmpstr (zot_test_json_string_at (event, "value/button"), ==, "del");
}

static void
test_bad_tree (Fixture       *f,
               gconstpointer  data)
{
  ZotPanelWidgetsView *widgets;
  GtkWidget *row;
  GtkWidget *label;
  g_autofree char *log = NULL;
  ZotExtension *extension;

  send_frame (f, "{\"type\":\"open_panel\",\"panel\":{\"id\":\"bad\",\"title\":\"Bad\",\"widgets\":["
                 "{\"id\":\"s\",\"type\":\"slider\"},"
                 "{\"id\":\"ok\",\"type\":\"text\",\"text\":\"still shown\"}]}}");
  wait_widget (f, "bad", "ok");
  widgets = widgets_of (f, "bad");
  g_assert_cmpuint (zot_panel_widgets_view_get_n_errors (widgets), ==, 1);

  row = zot_test_find_widget (GTK_WIDGET (widgets), G_TYPE_NONE, "panel-widget-error");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_get_mapped (row));
  label = zot_test_find_widget (row, GTK_TYPE_LABEL, NULL);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "unknown widget type \"slider\""));

  extension = zot_extension_manager_find (zot_host_get_manager (f->host), "w");
  log = zot_test_read_file (zot_extension_get_log_path (extension));
  g_assert_nonnull (strstr (log, "panel \"bad\": widget \"s\" (slider): unknown widget type \"slider\""));

  /* A tree that is not an array at all: one error row, no crash. */
  send_frame (f, "{\"type\":\"panel_render\",\"panel_id\":\"bad\",\"widgets\":{\"id\":\"x\"}}");
  g_assert_cmpuint (zot_panel_widgets_view_get_n_errors (widgets), ==, 1);
  g_assert_null (zot_panel_widgets_view_lookup (widgets, "ok"));
}

typedef struct
{
  Fixture       *f;
  ZotTestSubmit  submit;
} Ask;

static gboolean
has_question (gpointer data)
{
  Fixture *f = data;
  GPtrArray *panels = zot_extension_manager_list_panels (zot_host_get_manager (f->host));

  return panels->len == 1 && g_str_has_prefix (zot_panel_get_id (g_ptr_array_index (panels, 0)), "ask-");
}

/* Starts the demo model's call of ask_user; returns its panel. */
static gboolean
pane_empty (gpointer data)
{
  return zot_panel_pane_get_n_panels (data) == 0;
}

static ZotPanel *
start_question (Fixture       *f,
                ZotTestSubmit *submit)
{
  ZotPanel *panel;

  zot_test_submit_start (f->host,
                         "tool: ask_user {\"question\": \"Which colour?\", \"choices\": [\"Red\", \"Green\"]}",
                         submit);
  zot_test_wait_until (has_question, f, 20000);
  panel = g_ptr_array_index (zot_extension_manager_list_panels (zot_host_get_manager (f->host)), 0);

  /* The call waits in this panel: the transcript can say so. */
  g_assert_nonnull (f->waiting_tool_id);
  g_assert_cmpstr (zot_panel_get_waiting_tool_id (panel), ==, f->waiting_tool_id);
  g_assert_cmpstr (zot_panel_get_key (panel), ==, "ask-user/ask-t1");
  g_assert_true (zot_panel_pane_show_panel (f->pane, zot_panel_get_key (panel)));
  g_assert_false (zot_panel_pane_show_panel (f->pane, "ask-user/nothing"));
  return panel;
}

static void
test_ask_user_answered (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  ZotPanel *panel = start_question (f, &submit);
  GtkWidget *green = wait_widget (f, zot_panel_get_id (panel), "choice-1");

  g_assert_false (submit.done);
  g_assert_true (gtk_widget_activate (green));
  zot_test_wait_for (&submit.done, 30000);
  g_assert_no_error (submit.error);
  g_assert_nonnull (strstr (submit.text, "The user chose: Green"));
  /* The extension closes its panel with a frame of its own, which may
   * come after the answer. */
  zot_test_wait_until (pane_empty, f->pane, 30000);
}

static void
test_ask_user_closed (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  ZotPanel *panel = start_question (f, &submit);
  ZotPanelView *view;

  wait_widget (f, zot_panel_get_id (panel), "choice-0");
  view = _zot_panel_pane_get_view (f->pane, panel);
  g_assert_true (gtk_widget_activate (_zot_panel_view_get_close_button (view)));
  zot_test_wait_for (&submit.done, 30000);
  g_assert_no_error (submit.error);
  g_assert_nonnull (strstr (submit.text, "closed the question without answering"));
  /* The extension closes its panel with a frame of its own, which may
   * come after the answer. */
  zot_test_wait_until (pane_empty, f->pane, 30000);
}

/* Text that Pango 1.50 cannot wrap by word and character (zot-wrap-safe.h)
 * in a text widget, a text area and a panel of lines: shown, measured at
 * the narrowest, never aborting. The text area keeps its text as it is. */
#define DEGENERATE_1 "Y\\u063F \\u032DR"
#define DEGENERATE_2 "a\\u06E7 \\u200D\\u06A1"

static gboolean
has_lines_panel (gpointer data)
{
  Fixture *f = data;
  ZotPanel *panel = find_panel (f, "lines");

  return panel != NULL && _zot_panel_pane_get_view (f->pane, panel) != NULL;
}

static void
test_degenerate_clusters (Fixture       *f,
                          gconstpointer  data)
{
  GtkWidget *text;
  GtkWidget *area;
  ZotPanelView *lines;
  GtkTextBuffer *buffer;
  GtkTextIter start;
  GtkTextIter end;
  g_autofree char *typed = NULL;

  send_frame (f, "{\"type\":\"open_panel\",\"panel\":{\"id\":\"wrap\","
                 "\"title\":\"" DEGENERATE_2 "\",\"widgets\":["
                 "{\"id\":\"t1\",\"type\":\"text\",\"text\":\"" DEGENERATE_1 "\"},"
                 "{\"id\":\"t2\",\"type\":\"text\",\"text\":\"" DEGENERATE_2 "\","
                 "\"style\":\"bold\"},"
                 "{\"id\":\"area\",\"type\":\"textarea\",\"label\":\"" DEGENERATE_1 "\","
                 "\"value\":\"" DEGENERATE_2 "\"}]}}");
  text = wait_widget (f, "wrap", "t1");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (text)), ==, "Y\u063F \u25CC\u032DR");
  text = wait_widget (f, "wrap", "t2");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (text)), ==, "a\u06E7 \u06A1");

  area = wait_widget (f, "wrap", "area");
  g_assert_true (GTK_IS_TEXT_VIEW (area));
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (area));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  typed = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  g_assert_cmpstr (typed, ==, "a\u06E7 \u200D\u06A1");
  g_assert_cmpint (gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (area)), ==, GTK_WRAP_CHAR);

  /* A panel of lines, which takes the pane's page. */
  send_frame (f, "{\"type\":\"open_panel\",\"panel\":{\"id\":\"lines\",\"title\":\"" DEGENERATE_1 "\","
                 "\"lines\":[\"" DEGENERATE_1 "\",\"" DEGENERATE_2 "\"],"
                 "\"footer\":\"" DEGENERATE_2 "\"}}");
  zot_test_wait_until (has_lines_panel, f, 10000);
  lines = _zot_panel_pane_get_view (f->pane, find_panel (f, "lines"));
  zot_test_measure_narrowest (GTK_WIDGET (lines));
  zot_test_measure_narrowest (GTK_WIDGET (_zot_panel_pane_get_view (f->pane, find_panel (f, "wrap"))));
  zot_test_measure_narrowest (GTK_WIDGET (f->pane));

  /* Without the cluster, the area wraps by word again. */
  gtk_text_buffer_set_text (buffer, "plain", -1);
  g_assert_cmpint (gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (area)), ==, GTK_WRAP_WORD_CHAR);
}

static gboolean
has_box_of (gpointer data)
{
  WidgetWait *wait = data;
  ZotPanelWidgetsView *widgets = widgets_of (wait->f, wait->panel_id);

  wait->found = widgets ? zot_panel_widgets_view_lookup (widgets, wait->widget_id) : NULL;
  return wait->found != NULL && gtk_widget_get_mapped (gtk_widget_get_parent (wait->found));
}

/* A PNG of a few kilobytes that decodes past ZOT_IMAGE_MAX_PIXELS is
 * refused from its header, and the panel says so where it would be. */
static void
test_image_too_large (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GBytes) png = zot_test_black_png (4097, 4096);
  g_autofree char *base64 = g_base64_encode (g_bytes_get_data (png, NULL), g_bytes_get_size (png));
  g_autofree char *frame = NULL;
  WidgetWait wait = { f, "pic", "big", NULL };
  GtkWidget *note;

  frame = g_strdup_printf ("{\"type\":\"open_panel\",\"panel\":{\"id\":\"pic\",\"title\":\"Pic\","
                           "\"widgets\":[{\"id\":\"big\",\"type\":\"image\",\"label\":\"Big\","
                           "\"data\":\"%s\"}]}}", base64);
  send_frame (f, frame);
  /* The picture is the image's widget; the box around it shows the note. */
  zot_test_wait_until (has_box_of, &wait, 10000);
  g_assert_false (gtk_widget_get_visible (wait.found));
  note = zot_test_find_widget (gtk_widget_get_parent (wait.found), GTK_TYPE_LABEL,
                               "panel-image-note");
  g_assert_nonnull (note);
  g_assert_true (gtk_widget_get_visible (note));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (note)), ==,
                   "image too large: 4097×4096 pixels; at most 16777216 pixels");
}

static gboolean
label_is_short (gpointer data)
{
  return g_str_equal (gtk_label_get_text (GTK_LABEL (data)), "a few words");
}

static gboolean
has_show_all_window (gpointer data)
{
  GtkWidget **found = data;
  g_autoptr(GListModel) toplevels = g_object_ref (gtk_window_get_toplevels ());

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      *found = zot_test_find_widget (window, GTK_TYPE_TEXT_VIEW, "bounded-text-all");
      if (*found != NULL)
        return TRUE;
    }
  return FALSE;
}

/* 50 KiB without a break point froze the window for minutes: a panel
 * shows the head, wrapped by character, and "Show all" opens the rest. */
static void
test_long_unbroken_text (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *long_text = g_strnfill (50 * 1024, 'a');
  g_autofree char *frame = NULL;
  GtkWidget *text;
  GtkWidget *show_all;
  GtkWidget *all = NULL;
  GtkTextBuffer *buffer;
  gint64 start;
  int min_height;
  int nat_height;

  frame = g_strdup_printf ("{\"type\":\"open_panel\",\"panel\":{\"id\":\"long\",\"title\":\"Long\","
                           "\"widgets\":[{\"id\":\"t\",\"type\":\"text\",\"text\":\"%s\"}]}}",
                           long_text);
  send_frame (f, frame);
  text = wait_widget (f, "long", "t");
  g_assert_true (GTK_IS_LABEL (text));
  g_assert_cmpuint (g_utf8_strlen (gtk_label_get_text (GTK_LABEL (text)), -1), ==,
                    ZOT_PANEL_TEXT_SHOWN_MAX_CHARS + 1);
  g_assert_true (g_str_has_suffix (gtk_label_get_text (GTK_LABEL (text)), "a…"));
  g_assert_cmpint (gtk_label_get_wrap_mode (GTK_LABEL (text)), ==, PANGO_WRAP_CHAR);

  start = g_get_monotonic_time ();
  gtk_widget_measure (text, GTK_ORIENTATION_VERTICAL, 400, &min_height, &nat_height, NULL, NULL);
  g_test_message ("laying out the shown text at 400 px took %.1f ms",
                  (g_get_monotonic_time () - start) / 1000.0);

  show_all = zot_test_find_widget (gtk_widget_get_parent (text), GTK_TYPE_BUTTON,
                                   "panel-text-show-all");
  g_assert_nonnull (show_all);
  g_assert_true (gtk_widget_get_visible (show_all));
  gtk_widget_activate (show_all);
  zot_test_wait_until (has_show_all_window, &all, 10000);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (all));
  g_assert_cmpint (gtk_text_buffer_get_char_count (buffer), ==, 50 * 1024);
  g_assert_cmpint (gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (all)), ==, GTK_WRAP_NONE);
  gtk_window_destroy (GTK_WINDOW (gtk_widget_get_root (all)));

  /* Short text shows whole, by word and character, without the button. */
  send_frame (f, "{\"type\":\"open_panel\",\"panel\":{\"id\":\"long\",\"title\":\"Long\","
                 "\"widgets\":[{\"id\":\"t\",\"type\":\"text\",\"text\":\"a few words\"}]}}");
  zot_test_wait_until (label_is_short, text, 10000);
  g_assert_cmpint (gtk_label_get_wrap_mode (GTK_LABEL (text)), ==, PANGO_WRAP_WORD_CHAR);
  g_assert_false (gtk_widget_get_visible (show_all));
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
  g_test_add ("/zot/gui-panel-widgets/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("rerender-keeps-typing", test_rerender_keeps_typing);
  ADD ("button-event", test_button_event);
  ADD ("list-events", test_list_events);
  ADD ("bad-tree", test_bad_tree);
  ADD ("ask-user-answered", test_ask_user_answered);
  ADD ("ask-user-closed", test_ask_user_closed);
  ADD ("degenerate-clusters", test_degenerate_clusters);
  ADD ("image-too-large", test_image_too_large);
  ADD ("long-unbroken-text", test_long_unbroken_text);

#undef ADD

  return g_test_run ();
}
