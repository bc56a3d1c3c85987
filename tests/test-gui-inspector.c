/* test-gui-inspector.c — the inspector: tracing follows mapping, frames
 * are listed with time, direction and type, a command_invoked/
 * command_response pair shows its latency, lifecycle events are listed
 * with their sequence, filters narrow the rows, "Copy" fills the
 * clipboard, and the lists keep a bounded number of rows. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-gui-test-util.h"
#include "zot-host.h"
#include "zot-inspector.h"
#include "zot-inspector-event-row.h"
#include "zot-inspector-frame-row.h"
#include "zot-inspector-private.h"
#include "zot-resources.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv    env;
  ZotHost      *host;
  GtkWindow    *window;
  ZotInspector *inspector;
} Fixture;

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  zot_host_load_finish (ZOT_HOST (object), result, NULL);
  *done = TRUE;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *alpha = NULL;
  g_autofree char *beta = NULL;
  gboolean done = FALSE;

  zot_test_env_setup (&f->env);
  alpha = zot_test_make_fake_args (f->env.root, "alpha", "--command", "Ping", NULL);
  beta = zot_test_make_fake_args (f->env.root, "beta", "--command", "Pong", NULL);

  {
    const char *paths[] = { alpha, beta, NULL };

    options.cwd = g_strdup (f->env.cwd);
    options.ext_paths = g_strdupv ((char **) paths);
    options.provider.name = g_strdup ("demo");
    options.no_session = TRUE;
  }

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);

  f->inspector = ZOT_INSPECTOR (zot_inspector_new ());
  zot_inspector_set_manager (f->inspector, zot_host_get_manager (f->host));

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 520, 640);
  gtk_window_set_child (f->window, GTK_WIDGET (f->inspector));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->inspector), (gpointer *) &f->inspector);
  gtk_window_destroy (f->window);
  g_assert_null (f->inspector);

  zot_test_finalize_host (&f->host);
  zot_test_env_teardown (&f->env);
}

static ZotExtensionManager *
manager_of (Fixture *f)
{
  return zot_host_get_manager (f->host);
}

static void
run (Fixture    *f,
     const char *command,
     const char *args)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (zot_test_run_command (manager_of (f), command, args, &error));
  g_assert_no_error (error);
}

static void
submit_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  zot_host_submit_finish (ZOT_HOST (object), result, NULL, &error);
  g_assert_no_error (error);
  *done = TRUE;
}

static void
submit (Fixture    *f,
        const char *text)
{
  gboolean done = FALSE;

  zot_host_submit_async (f->host, text, NULL, submit_cb, &done);
  zot_test_wait_for (&done, 30000);
}

static gboolean
is_tracing (gpointer data)
{
  return _zot_inspector_is_tracing (data);
}

static gboolean
traffic_handler_connected (Fixture *f)
{
  guint signal_id = g_signal_lookup ("frame-traffic", ZOT_TYPE_EXTENSION_MANAGER);

  return g_signal_has_handler_pending (manager_of (f), signal_id, 0, FALSE);
}

static void
show (Fixture *f)
{
  gtk_window_present (f->window);
  zot_test_wait_until (is_tracing, f->inspector, 10000);
}

typedef struct
{
  GListModel *model;
  const char *name;
  const char *extension;
  int         direction;    /* -1: either */
} Find;


/* The position of the first matching row after @from, or -1. */
static int
find_row (GListModel *model,
          guint       from,
          const char *name,
          const char *extension,
          int         direction)
{
  for (guint i = from; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(ZotInspectorEntry) entry = g_list_model_get_item (model, i);

      if (g_strcmp0 (_zot_inspector_entry_get_name (entry), name) == 0 &&
          (extension == NULL ||
           g_strcmp0 (_zot_inspector_entry_get_extension (entry), extension) == 0) &&
          (direction < 0 || (int) _zot_inspector_entry_get_direction (entry) == direction))
        return i;
    }
  return -1;
}

static gboolean
row_present (gpointer data)
{
  Find *find = data;

  return find_row (find->model, 0, find->name, find->extension, find->direction) >= 0;
}

static void
wait_row (GListModel *model,
          const char *name,
          const char *extension,
          int         direction)
{
  Find find = { model, name, extension, direction };

  zot_test_wait_until (row_present, &find, 10000);
}

static gboolean
is_time (const char *text)
{
  return g_regex_match_simple ("^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}$", text, 0, 0);
}

static const char *
member (const char *line,
        const char *name,
        char      **out)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object;

  g_assert_true (json_parser_load_from_data (parser, line, -1, NULL));
  object = json_node_get_object (json_parser_get_root (parser));
  *out = g_strdup (json_object_get_string_member_with_default (object, name, NULL));
  return *out;
}

static void
test_traffic_and_latency (Fixture       *f,
                          gconstpointer  data)
{
  GListModel *traffic = _zot_inspector_get_traffic (f->inspector);
  g_autoptr(ZotInspectorEntry) request = NULL;
  g_autoptr(ZotInspectorEntry) response = NULL;
  g_autofree char *request_id = NULL;
  g_autofree char *response_id = NULL;
  int invoked;
  int answered;

  /* Nothing is traced before the inspector shows. */
  g_assert_false (_zot_inspector_is_tracing (f->inspector));
  g_assert_false (traffic_handler_connected (f));
  show (f);
  g_assert_true (traffic_handler_connected (f));

  run (f, "ping", "display hi");
  wait_row (traffic, "command_response", "alpha", ZOT_FRAME_DIRECTION_IN);

  invoked = find_row (traffic, 0, "command_invoked", "alpha", ZOT_FRAME_DIRECTION_OUT);
  g_assert_cmpint (invoked, >=, 0);
  answered = find_row (traffic, invoked, "command_response", "alpha", ZOT_FRAME_DIRECTION_IN);
  g_assert_cmpint (answered, >, invoked);

  request = g_list_model_get_item (traffic, invoked);
  response = g_list_model_get_item (traffic, answered);
  g_assert_true (is_time (_zot_inspector_entry_get_time (request)));
  g_assert_true (is_time (_zot_inspector_entry_get_time (response)));
  g_assert_cmpstr (member (_zot_inspector_entry_get_text (request), "id", &request_id), ==,
                   member (_zot_inspector_entry_get_text (response), "id", &response_id));
  g_assert_nonnull (strstr (_zot_inspector_entry_get_text (response), "\"display\""));

  /* The latency is on the response only. */
  g_assert_cmpfloat (_zot_inspector_entry_get_latency_ms (request), <, 0);
  g_assert_cmpfloat (_zot_inspector_entry_get_latency_ms (response), >=, 0);
  g_assert_cmpfloat (_zot_inspector_entry_get_latency_ms (response), <, 30000);
}

/* The inspector times the frames the core's table says are answered
 * (zot_extension_get_request_types()), and no others. */
static void
test_request_types (Fixture       *f,
                    gconstpointer  data)
{
  GListModel *traffic = _zot_inspector_get_traffic (f->inspector);
  const char * const *types = zot_extension_get_request_types ();
  const char *unanswered[] = { "hello_ack", "panel_key", "tool_cancel" };
  ZotExtension *alpha = zot_extension_manager_find (manager_of (f), "alpha");

  g_assert_nonnull (alpha);
  g_assert_cmpuint (g_strv_length ((GStrv) types), >, 0);
  show (f);

  for (guint i = 0; types[i] != NULL; i++)
    {
      g_autofree char *out = g_strdup_printf ("{\"type\":\"%s\",\"id\":\"probe-%u\"}", types[i], i);
      g_autofree char *in = g_strdup_printf ("{\"type\":\"answer-%u\",\"id\":\"probe-%u\"}", i, i);
      g_autofree char *name = g_strdup_printf ("answer-%u", i);
      g_autoptr(ZotInspectorEntry) answer = NULL;

      g_test_message ("request \"%s\"", types[i]);
      g_signal_emit_by_name (manager_of (f), "frame-traffic", alpha, ZOT_FRAME_DIRECTION_OUT, out);
      g_signal_emit_by_name (manager_of (f), "frame-traffic", alpha, ZOT_FRAME_DIRECTION_IN, in);
      wait_row (traffic, name, "alpha", ZOT_FRAME_DIRECTION_IN);
      answer = g_list_model_get_item (traffic, find_row (traffic, 0, name, "alpha", ZOT_FRAME_DIRECTION_IN));
      g_assert_cmpfloat (_zot_inspector_entry_get_latency_ms (answer), >=, 0);
    }

  for (guint i = 0; i < G_N_ELEMENTS (unanswered); i++)
    {
      g_autofree char *out = g_strdup_printf ("{\"type\":\"%s\",\"id\":\"plain-%u\"}", unanswered[i], i);
      g_autofree char *in = g_strdup_printf ("{\"type\":\"reply-%u\",\"id\":\"plain-%u\"}", i, i);
      g_autofree char *name = g_strdup_printf ("reply-%u", i);
      g_autoptr(ZotInspectorEntry) reply = NULL;

      g_assert_false (g_strv_contains (types, unanswered[i]));
      g_signal_emit_by_name (manager_of (f), "frame-traffic", alpha, ZOT_FRAME_DIRECTION_OUT, out);
      g_signal_emit_by_name (manager_of (f), "frame-traffic", alpha, ZOT_FRAME_DIRECTION_IN, in);
      wait_row (traffic, name, "alpha", ZOT_FRAME_DIRECTION_IN);
      reply = g_list_model_get_item (traffic, find_row (traffic, 0, name, "alpha", ZOT_FRAME_DIRECTION_IN));
      g_assert_cmpfloat (_zot_inspector_entry_get_latency_ms (reply), <, 0);
    }
}

static void
test_events (Fixture       *f,
             gconstpointer  data)
{
  GListModel *events = _zot_inspector_get_events (f->inspector);
  g_autoptr(ZotInspectorEntry) start = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *copied = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  int position;
  int submitted;

  show (f);
  zot_host_begin_session (f->host);
  wait_row (events, "session_start", NULL, -1);

  /* A prompt to the demo model: its events come in order. */
  submit (f, "hello");
  wait_row (events, "turn_end", NULL, -1);
  position = find_row (events, 0, "session_start", NULL, -1);
  submitted = find_row (events, 0, "user_prompt_submit", NULL, -1);
  g_assert_cmpint (find_row (events, submitted, "turn_start", NULL, -1), >, submitted);
  g_assert_cmpint (submitted, >, position);

  start = g_list_model_get_item (events, position);
  g_assert_true (is_time (_zot_inspector_entry_get_time (start)));
  g_assert_cmpint (_zot_inspector_entry_get_sequence (start), >=, 1);

  /* The payload, pretty, is what "Copy" takes. */
  copied = _zot_inspector_entry_dup_copy_text (start);
  g_assert_nonnull (strchr (copied, '\n'));
  json_parser_load_from_data (parser, copied, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "event"), ==, "session_start");

  {
    g_autoptr(ZotInspectorEntry) turn = g_list_model_get_item (events, submitted);
    g_assert_cmpint (_zot_inspector_entry_get_sequence (turn), >,
                     _zot_inspector_entry_get_sequence (start));
  }
}

/* A reload in watch mode is listed among the events. */
static void
test_reload_listed (Fixture       *f,
                    gconstpointer  data)
{
  GListModel *events = _zot_inspector_get_events (f->inspector);
  g_autoptr(GError) why = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "gone");
  g_autoptr(ZotExtension) extension = zot_extension_new_failed (f->env.root, ZOT_EXTENSION_SCOPE_EXPLICIT, why);
  g_autoptr(ZotInspectorEntry) entry = NULL;
  int position;

  show (f);
  g_signal_emit_by_name (zot_host_get_manager (f->host), "extension-reloaded", extension, "watch");
  wait_row (events, "extension_reloaded", NULL, -1);
  position = find_row (events, 0, "extension_reloaded", zot_extension_get_name (extension), -1);
  g_assert_cmpint (position, >=, 0);
  entry = g_list_model_get_item (events, position);
  g_assert_nonnull (strstr (_zot_inspector_entry_get_text (entry), "\"reason\":\"watch\""));
}

/* The supervisor's restart and its giving up are listed too. */
static void
test_restart_listed (Fixture       *f,
                     gconstpointer  data)
{
  GListModel *events = _zot_inspector_get_events (f->inspector);
  g_autoptr(GError) why = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "gone");
  g_autoptr(ZotExtension) extension = zot_extension_new_failed (f->env.root, ZOT_EXTENSION_SCOPE_EXPLICIT, why);
  g_autoptr(ZotInspectorEntry) restarted = NULL;
  g_autoptr(ZotInspectorEntry) gave_up = NULL;
  const char *name = zot_extension_get_name (extension);

  show (f);
  g_signal_emit_by_name (zot_host_get_manager (f->host), "extension-restarted", extension, 3, "it fell");
  g_signal_emit_by_name (zot_host_get_manager (f->host), "extension-gave-up", extension, "it stays down");
  wait_row (events, "extension_gave_up", NULL, -1);
  restarted = g_list_model_get_item (events, find_row (events, 0, "extension_restarted", name, -1));
  gave_up = g_list_model_get_item (events, find_row (events, 0, "extension_gave_up", name, -1));
  g_assert_nonnull (strstr (_zot_inspector_entry_get_text (restarted), "\"attempt\":3"));
  g_assert_nonnull (strstr (_zot_inspector_entry_get_text (restarted), "\"reason\":\"it fell\""));
  g_assert_nonnull (strstr (_zot_inspector_entry_get_text (gave_up), "\"note\":\"it stays down\""));
}

static guint
count_rows (GListModel *model)
{
  return g_list_model_get_n_items (model);
}

static void
test_filters (Fixture       *f,
              gconstpointer  data)
{
  GListModel *traffic = _zot_inspector_get_traffic (f->inspector);
  GListModel *events = _zot_inspector_get_events (f->inspector);
  guint all;

  show (f);
  zot_host_begin_session (f->host);
  run (f, "ping", "display one");
  run (f, "pong", "display two");
  wait_row (traffic, "command_response", "alpha", ZOT_FRAME_DIRECTION_IN);
  wait_row (traffic, "command_response", "beta", ZOT_FRAME_DIRECTION_IN);
  wait_row (events, "session_start", NULL, -1);
  all = count_rows (traffic);
  g_assert_cmpuint (all, >=, 4);

  /* One extension. */
  _zot_inspector_set_filter (f->inspector, "beta", NULL);
  g_assert_cmpuint (count_rows (traffic), <, all);
  g_assert_cmpuint (count_rows (traffic), >=, 2);
  for (guint i = 0; i < count_rows (traffic); i++)
    {
      g_autoptr(ZotInspectorEntry) entry = g_list_model_get_item (traffic, i);
      g_assert_cmpstr (_zot_inspector_entry_get_extension (entry), ==, "beta");
    }

  /* A type, in any case, across extensions. */
  _zot_inspector_set_filter (f->inspector, NULL, "COMMAND_RESPONSE");
  g_assert_cmpuint (count_rows (traffic), ==, 2);

  /* Text of the line. */
  _zot_inspector_set_filter (f->inspector, NULL, "display one");
  g_assert_cmpuint (count_rows (traffic), ==, 1);   /* the request's args */
  _zot_inspector_set_filter (f->inspector, NULL, "\"one\"");
  g_assert_cmpuint (count_rows (traffic), ==, 1);   /* the answer */

  /* Both. */
  _zot_inspector_set_filter (f->inspector, "alpha", "command_invoked");
  g_assert_cmpuint (count_rows (traffic), ==, 1);

  /* The search applies to events too. */
  _zot_inspector_set_filter (f->inspector, NULL, "session_start");
  g_assert_cmpuint (count_rows (events), ==, 1);

  _zot_inspector_set_filter (f->inspector, NULL, NULL);
  g_assert_cmpuint (count_rows (traffic), ==, all);
}

typedef struct
{
  gboolean  done;
  char     *text;
} ClipboardRead;

static void
read_text_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ClipboardRead *read = user_data;
  g_autoptr(GError) error = NULL;

  read->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (object), result, &error);
  g_assert_no_error (error);
  read->done = TRUE;
}

static char *
read_clipboard (GtkWidget *widget)
{
  ClipboardRead read = { 0 };

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (widget), NULL, read_text_cb, &read);
  zot_test_wait_for (&read.done, 10000);
  return read.text;
}

static void
test_copy (Fixture       *f,
           gconstpointer  data)
{
  GListModel *traffic = _zot_inspector_get_traffic (f->inspector);
  g_autoptr(ZotInspectorEntry) entry = NULL;
  g_autofree char *copied = NULL;
  int position;

  show (f);
  run (f, "ping", "display copy me");
  wait_row (traffic, "command_response", "alpha", ZOT_FRAME_DIRECTION_IN);
  position = find_row (traffic, 0, "command_response", "alpha", ZOT_FRAME_DIRECTION_IN);
  entry = g_list_model_get_item (traffic, position);

  _zot_inspector_copy (f->inspector, entry);
  copied = read_clipboard (GTK_WIDGET (f->inspector));
  g_assert_cmpstr (copied, ==, _zot_inspector_entry_get_text (entry));
}

typedef struct
{
  GtkWidget         *root;
  GType              row_type;
  ZotInspectorEntry *entry;
  GtkWidget         *row;
} RowFind;

/* A row of @root's lists showing @entry: the list view makes rows only
 * for what it lays out. */
static gboolean
row_shown (gpointer data)
{
  RowFind *find = data;
  g_autoptr(GPtrArray) rows = zot_test_find_widgets (find->root, find->row_type, NULL);

  find->row = NULL;
  for (guint i = 0; i < rows->len && find->row == NULL; i++)
    {
      ZotInspectorEntry *shown = NULL;

      g_object_get (g_ptr_array_index (rows, i), "entry", &shown, NULL);
      if (shown == find->entry)
        find->row = g_ptr_array_index (rows, i);
      g_clear_object (&shown);
    }
  return find->row != NULL;
}

static GtkWidget *
row_child (GtkWidget  *row,
           GType       row_type,
           const char *id)
{
  GtkWidget *child = GTK_WIDGET (gtk_widget_get_template_child (row, row_type, id));

  g_assert_nonnull (child);
  return child;
}

static const char *
row_text (GtkWidget  *row,
          GType       row_type,
          const char *id)
{
  return gtk_label_get_text (GTK_LABEL (row_child (row, row_type, id)));
}

/* The rows the lists show: bound to their entries, recycled, copying. */
static void
test_rows (Fixture       *f,
           gconstpointer  data)
{
  GListModel *traffic = _zot_inspector_get_traffic (f->inspector);
  GListModel *events = _zot_inspector_get_events (f->inspector);
  g_autoptr(ZotInspectorEntry) frame = NULL;
  g_autoptr(ZotInspectorEntry) event = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *pretty = NULL;
  GType frame_row = ZOT_TYPE_INSPECTOR_FRAME_ROW;
  GType event_row = ZOT_TYPE_INSPECTOR_EVENT_ROW;
  RowFind find = { GTK_WIDGET (f->inspector), frame_row, NULL, NULL };
  GtkStack *stack = GTK_STACK (gtk_widget_get_template_child (GTK_WIDGET (f->inspector), ZOT_TYPE_INSPECTOR,
                                                              "stack"));
  GtkWidget *row;

  show (f);
  run (f, "ping", "display copy me");
  wait_row (traffic, "command_response", "alpha", ZOT_FRAME_DIRECTION_IN);
  frame = g_list_model_get_item (traffic, find_row (traffic, 0, "command_response", "alpha",
                                                    ZOT_FRAME_DIRECTION_IN));

  /* A frame's row says where it went, what it is and how long it took. */
  gtk_stack_set_visible_child_name (stack, "traffic");
  find.entry = frame;
  zot_test_wait_until (row_shown, &find, 10000);
  g_assert_cmpstr (row_text (find.row, frame_row, "type_label"), ==, "command_response");
  g_assert_cmpstr (row_text (find.row, frame_row, "extension_label"), ==, "alpha");
  g_assert_cmpstr (row_text (find.row, frame_row, "arrow_label"), ==, "←");
  g_assert_cmpstr (row_text (find.row, frame_row, "time_label"), ==, _zot_inspector_entry_get_time (frame));
  g_assert_nonnull (strstr (row_text (find.row, frame_row, "line_label"), "copy me"));
  g_assert_true (gtk_widget_get_visible (row_child (find.row, frame_row, "latency_label")));
  g_assert_nonnull (strstr (row_text (find.row, frame_row, "latency_label"), "ms"));

  /* Its Copy (the button's action) takes the raw line. */
  g_assert_true (gtk_widget_activate_action (find.row, "entry.copy", NULL));
  copied = read_clipboard (find.row);
  g_assert_cmpstr (copied, ==, _zot_inspector_entry_get_text (frame));

  /* An event's row, unfolded, shows the frame pretty-printed. */
  zot_host_begin_session (f->host);
  wait_row (events, "session_start", NULL, -1);
  _zot_inspector_flush (f->inspector);
  event = g_list_model_get_item (events, find_row (events, 0, "session_start", NULL, -1));
  gtk_stack_set_visible_child_name (stack, "events");
  find.row_type = event_row;
  find.entry = event;
  zot_test_wait_until (row_shown, &find, 10000);
  g_assert_cmpstr (row_text (find.row, event_row, "name_label"), ==, "session_start");
  g_assert_true (g_str_has_prefix (row_text (find.row, event_row, "sequence_label"), "#"));
  g_assert_cmpstr (row_text (find.row, event_row, "payload_label"), ==, "");
  gtk_expander_set_expanded (GTK_EXPANDER (row_child (find.row, event_row, "expander")), TRUE);
  pretty = _zot_inspector_entry_dup_pretty_text (event);
  g_assert_cmpstr (row_text (find.row, event_row, "payload_label"), ==, pretty);

  /* Rows alone, shown another entry as a list recycles them. */
  row = g_object_ref_sink (zot_inspector_event_row_new ());
  zot_inspector_event_row_set_entry (ZOT_INSPECTOR_EVENT_ROW (row), event);
  gtk_expander_set_expanded (GTK_EXPANDER (row_child (row, event_row, "expander")), TRUE);
  zot_inspector_event_row_set_entry (ZOT_INSPECTOR_EVENT_ROW (row), NULL);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (row_child (row, event_row, "expander"))));
  g_assert_cmpstr (row_text (row, event_row, "name_label"), ==, "");
  g_assert_finalize_object (row);

  row = g_object_ref_sink (zot_inspector_frame_row_new ());
  zot_inspector_frame_row_set_entry (ZOT_INSPECTOR_FRAME_ROW (row), frame);
  g_assert_true (zot_inspector_frame_row_get_entry (ZOT_INSPECTOR_FRAME_ROW (row)) == frame);
  zot_inspector_frame_row_set_entry (ZOT_INSPECTOR_FRAME_ROW (row), NULL);
  g_assert_false (gtk_widget_get_visible (row_child (row, frame_row, "latency_label")));
  g_assert_finalize_object (row);
}

static void
test_unmap_stops_tracing (Fixture       *f,
                          gconstpointer  data)
{
  GListModel *traffic = _zot_inspector_get_traffic (f->inspector);
  guint before;

  show (f);
  run (f, "ping", "display first");
  wait_row (traffic, "command_response", "alpha", ZOT_FRAME_DIRECTION_IN);

  /* Hidden: no handler, no rows. */
  gtk_widget_set_visible (GTK_WIDGET (f->inspector), FALSE);
  g_assert_false (_zot_inspector_is_tracing (f->inspector));
  g_assert_false (traffic_handler_connected (f));
  _zot_inspector_flush (f->inspector);
  before = count_rows (traffic);
  run (f, "ping", "display unseen");
  run (f, "pong", "display unseen");
  _zot_inspector_flush (f->inspector);
  g_assert_cmpuint (count_rows (traffic), ==, before);

  /* Shown again: traced again. */
  gtk_widget_set_visible (GTK_WIDGET (f->inspector), TRUE);
  zot_test_wait_until (is_tracing, f->inspector, 10000);
  g_assert_true (traffic_handler_connected (f));
  run (f, "pong", "display seen");
  wait_row (traffic, "command_response", "beta", ZOT_FRAME_DIRECTION_IN);
  g_assert_cmpuint (count_rows (traffic), >, before);

  /* Another manager (or none) takes the tracing along. */
  zot_inspector_set_manager (f->inspector, NULL);
  g_assert_false (_zot_inspector_is_tracing (f->inspector));
  g_assert_false (traffic_handler_connected (f));
}

static gint64
number_of (ZotInspectorEntry *entry)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, _zot_inspector_entry_get_text (entry), -1,
                                             NULL));
  return json_object_get_int_member (json_node_get_object (json_parser_get_root (parser)), "n");
}

static void
test_bounded (Fixture       *f,
              gconstpointer  data)
{
  GListModel *events = _zot_inspector_get_events (f->inspector);
  g_autoptr(ZotInspectorEntry) first = NULL;
  g_autoptr(ZotInspectorEntry) last = NULL;
  guint n_items;

  show (f);
  for (guint i = 0; i < 2600; i++)
    {
      g_autoptr(JsonObject) payload = json_object_new ();

      json_object_set_int_member (payload, "n", i);
      zot_extension_manager_emit_event (manager_of (f), "turn_start", payload);
      if (i % 500 == 0)
        _zot_inspector_flush (f->inspector);
    }
  _zot_inspector_flush (f->inspector);

  n_items = count_rows (events);
  g_assert_cmpuint (n_items, >, 1000);
  g_assert_cmpuint (n_items, <=, 2000);

  /* The oldest went; the newest stayed, last. */
  first = g_list_model_get_item (events, 0);
  last = g_list_model_get_item (events, n_items - 1);
  g_assert_cmpint (number_of (first), >=, 2600 - 2000);
  g_assert_cmpint (number_of (last), ==, 2599);
  g_assert_cmpint (_zot_inspector_entry_get_sequence (first), <,
                   _zot_inspector_entry_get_sequence (last));

  zot_inspector_clear (f->inspector);
  g_assert_cmpuint (count_rows (events), ==, 0);
}

static void
test_new_destroy (void)
{
  ZotInspector *inspector = ZOT_INSPECTOR (zot_inspector_new ());

  g_object_ref_sink (inspector);
  g_assert_false (_zot_inspector_is_tracing (inspector));
  g_assert_cmpuint (g_list_model_get_n_items (_zot_inspector_get_traffic (inspector)), ==, 0);
  g_assert_finalize_object (inspector);
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
  g_test_add ("/zot/gui-inspector/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("traffic-and-latency", test_traffic_and_latency);
  ADD ("request-types", test_request_types);
  ADD ("events", test_events);
  ADD ("reload-listed", test_reload_listed);
  ADD ("filters", test_filters);
  ADD ("copy", test_copy);
  ADD ("rows", test_rows);
  ADD ("unmap-stops-tracing", test_unmap_stops_tracing);
  ADD ("bounded", test_bounded);
  ADD ("restart-listed", test_restart_listed);
  g_test_add_func ("/zot/gui-inspector/new-destroy", test_new_destroy);

#undef ADD

  return g_test_run ();
}
