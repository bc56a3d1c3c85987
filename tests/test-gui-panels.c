/* test-gui-panels.c — extension panels in the side pane, end to end: the
 * py-panel fixture opens a panel through a command, the pane shows it with
 * its ANSI attributes, keys and sizes travel to the extension (its record
 * file shows them) and its re-renders come back; closing works from the
 * host's side, from the extension's side, and by a crash. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "zot-host.h"
#include "zot-panel-pane.h"
#include "zot-panel-pane-private.h"
#include "zot-panel-view.h"
#include "zot-panel-view-private.h"
#include "zot-resources.h"
#include "zot-test-util.h"
#include "zot-gui-test-util.h"

typedef struct
{
  ZotTestEnv    env;
  ZotHost      *host;
  GtkWindow    *window;
  ZotPanelPane *pane;
  char         *record;
  GPtrArray    *notes;
  guint         added;
} Fixture;

static void
on_panel_added (ZotPanelPane *pane,
                ZotPanel     *panel,
                Fixture      *f)
{
  f->added++;
}

static void
on_closed_note (ZotPanelPane *pane,
                const char   *text,
                Fixture      *f)
{
  g_ptr_array_add (f->notes, g_strdup (text));
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

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_auto(ZotHostOptions) options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *fixture = zot_test_fixture_dir ("py-panel");
  g_autofree char *script = g_build_filename (fixture, "main.py", NULL);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *manifest = NULL;
  g_autofree char *dir = NULL;
  const char *paths[] = { NULL, NULL };
  gboolean done = FALSE;

  zot_test_env_setup (&f->env);
  f->notes = g_ptr_array_new_with_free_func (g_free);
  f->record = g_build_filename (f->env.root, "py-panel.jsonl", NULL);

  /* The fixture, told where to record by its first argument. */
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, "py-panel");
  json_builder_set_member_name (builder, "exec");
  json_builder_add_string_value (builder, "python3");
  json_builder_set_member_name (builder, "args");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, script);
  json_builder_add_string_value (builder, f->record);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  manifest = json_to_string (root, FALSE);
  dir = zot_test_make_manifest (f->env.root, "py-panel", manifest);
  paths[0] = dir;

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->host = zot_host_new (&options, &error);
  g_assert_no_error (error);
  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);
  zot_host_begin_session (f->host);

  f->pane = ZOT_PANEL_PANE (zot_panel_pane_new ());
  g_signal_connect (f->pane, "panel-added", G_CALLBACK (on_panel_added), f);
  g_signal_connect (f->pane, "panel-closed-note", G_CALLBACK (on_closed_note), f);
  zot_panel_pane_set_manager (f->pane, zot_host_get_manager (f->host));

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 420, 360);
  gtk_window_set_child (f->window, GTK_WIDGET (f->pane));
  gtk_window_present (f->window);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->pane), (gpointer *) &f->pane);
  gtk_window_destroy (f->window);
  g_assert_null (f->pane);

  zot_test_finalize_host (&f->host);

  g_clear_pointer (&f->record, g_free);
  g_clear_pointer (&f->notes, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
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

/* Runs a line to completion; returns its error, if any. */
static GError *
submit (Fixture    *f,
        const char *text)
{
  Submit s = { 0 };

  zot_host_submit_async (f->host, text, NULL, submit_cb, &s);
  zot_test_wait_for (&s.done, 30000);
  return s.error;
}

/* Frames of @type the fixture has received so far. */
static GPtrArray *
received (Fixture    *f,
          const char *type)
{
  g_autoptr(GPtrArray) all = zot_test_read_frames (f->record);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  for (guint i = 0; i < all->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (all, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (frame, "type", ""), type) == 0)
        g_ptr_array_add (frames, json_object_ref (frame));
    }
  return frames;
}

static gboolean
has_one_panel (gpointer data)
{
  Fixture *f = data;
  return zot_panel_pane_get_n_panels (f->pane) == 1;
}

static gboolean
has_no_panel (gpointer data)
{
  Fixture *f = data;
  return zot_panel_pane_get_n_panels (f->pane) == 0;
}

static ZotPanelView *
open_board (Fixture *f)
{
  g_autoptr(GError) error = submit (f, "/board");
  GPtrArray *panels;
  ZotPanelView *view;

  g_assert_no_error (error);
  zot_test_wait_until (has_one_panel, f, 10000);
  g_assert_cmpuint (f->added, ==, 1);

  panels = zot_extension_manager_list_panels (zot_host_get_manager (f->host));
  g_assert_cmpuint (panels->len, ==, 1);
  view = _zot_panel_pane_get_view (f->pane, g_ptr_array_index (panels, 0));
  g_assert_nonnull (view);
  g_assert_cmpstr (zot_panel_get_title (zot_panel_view_get_panel (view)), ==, "Board");
  return view;
}

typedef struct
{
  ZotPanelView *view;
  const char   *needle;
} BodyWait;

static gboolean
body_contains (gpointer data)
{
  BodyWait *wait = data;
  const char *text = gtk_label_get_text (_zot_panel_view_get_body (wait->view));

  return strstr (text, wait->needle) != NULL;
}

static void
wait_body (ZotPanelView *view,
           const char   *needle)
{
  BodyWait wait = { view, needle };

  zot_test_wait_until (body_contains, &wait, 10000);
}

static PangoAttribute *
find_attr (PangoAttrList *attrs,
           PangoAttrType  type,
           guint          start,
           guint          end)
{
  GSList *list = pango_attr_list_get_attributes (attrs);
  PangoAttribute *found = NULL;

  for (GSList *l = list; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;

      if (found == NULL && attr->klass->type == type &&
          attr->start_index <= start && attr->end_index >= end)
        found = pango_attribute_copy (attr);
    }
  g_slist_free_full (list, (GDestroyNotify) pango_attribute_destroy);
  return found;
}

static void
test_render (Fixture       *f,
             gconstpointer  data)
{
  ZotPanelView *view = open_board (f);
  GtkLabel *body = _zot_panel_view_get_body (view);
  const char *text = gtk_label_get_text (body);
  PangoAttrList *attrs = gtk_label_get_attributes (body);
  const char *red = strstr (text, "red");
  PangoAttribute *attr;

  g_assert_null (strchr (text, 0x1b));
  g_assert_true (g_str_has_prefix (text, "bold line\nred"));
  g_assert_nonnull (attrs);

  attr = find_attr (attrs, PANGO_ATTR_WEIGHT, 0, strlen ("bold"));
  g_assert_nonnull (attr);
  g_assert_cmpint (((PangoAttrInt *) attr)->value, ==, PANGO_WEIGHT_BOLD);
  g_assert_cmpuint (attr->end_index, ==, strlen ("bold"));
  pango_attribute_destroy (attr);

  g_assert_nonnull (red);
  attr = find_attr (attrs, PANGO_ATTR_FOREGROUND, red - text, red - text + 3);
  g_assert_nonnull (attr);
  g_assert_cmphex (((PangoAttrColor *) attr)->color.red >> 8, ==, 0xc0);
  g_assert_cmphex (((PangoAttrColor *) attr)->color.green >> 8, ==, 0x1c);
  pango_attribute_destroy (attr);

  /* " line" is not bold. */
  g_assert_null (find_attr (attrs, PANGO_ATTR_WEIGHT, strlen ("bold "), strlen ("bold l")));
}

static void
test_keys (Fixture       *f,
           gconstpointer  data)
{
  static const struct { guint keyval; const char *key; const char *text; } keys[] = {
    { GDK_KEY_Up, "up", NULL },
    { GDK_KEY_Down, "down", NULL },
    { GDK_KEY_Left, "left", NULL },
    { GDK_KEY_Right, "right", NULL },
    { GDK_KEY_Return, "enter", NULL },
    { GDK_KEY_KP_Enter, "enter", NULL },
    { GDK_KEY_Escape, "esc", NULL },
    { GDK_KEY_Tab, "tab", NULL },
    { GDK_KEY_Page_Up, "pageup", NULL },
    { GDK_KEY_Page_Down, "pagedown", NULL },
    { GDK_KEY_BackSpace, "backspace", NULL },
    { GDK_KEY_Delete, "delete", NULL },
    { GDK_KEY_Home, "home", NULL },
    { GDK_KEY_End, "end", NULL },
    { GDK_KEY_x, "rune", "x" },
    { GDK_KEY_eacute, "rune", "é" },
    { GDK_KEY_space, "rune", " " },
  };
  ZotPanelView *view = open_board (f);
  g_autoptr(GPtrArray) frames = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autofree char *expected = g_strdup_printf ("last key: %s%s%s\n", keys[i].key,
                                                   keys[i].text ? " " : "",
                                                   keys[i].text ? keys[i].text : "");

      /* Each answer differs from the one before, so waiting for it works. */
      g_assert_true (_zot_panel_view_handle_key (view, keys[i].keyval, 0));
      wait_body (view, expected);
    }

  /* Shortcuts and Shift+Tab are not the panel's. */
  g_assert_false (_zot_panel_view_handle_key (view, GDK_KEY_w, GDK_CONTROL_MASK));
  g_assert_false (_zot_panel_view_handle_key (view, GDK_KEY_x, GDK_ALT_MASK));
  g_assert_false (_zot_panel_view_handle_key (view, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_false (_zot_panel_view_handle_key (view, GDK_KEY_F5, 0));
  /* Shift makes capitals, which are still characters. */
  g_assert_true (_zot_panel_view_handle_key (view, GDK_KEY_X, GDK_SHIFT_MASK));
  wait_body (view, "last key: rune X\n");

  frames = received (f, "panel_key");
  g_assert_cmpuint (frames->len, ==, G_N_ELEMENTS (keys) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);

      g_assert_cmpstr (json_object_get_string_member (frame, "panel_id"), ==, "board");
      g_assert_cmpstr (json_object_get_string_member (frame, "key"), ==, keys[i].key);
      g_assert_cmpstr (json_object_get_string_member_with_default (frame, "text", NULL),
                       ==, keys[i].text);
    }
}

typedef struct
{
  Fixture *f;
  guint    count;
} FrameCount;

static gboolean
has_resizes (gpointer data)
{
  FrameCount *wait = data;
  g_autoptr(GPtrArray) frames = received (wait->f, "panel_resize");

  return frames->len >= wait->count;
}

static void
test_resize (Fixture       *f,
             gconstpointer  data)
{
  ZotPanelView *view = open_board (f);
  g_autoptr(GPtrArray) frames = NULL;
  FrameCount wait = { f, 1 };
  g_autofree char *size = NULL;
  JsonObject *frame;
  guint columns;
  guint rows;
  guint columns2;
  guint rows2;

  /* The first allocation tells the extension the size in cells. */
  zot_test_wait_until (has_resizes, &wait, 10000);
  _zot_panel_view_get_cells (view, &columns, &rows);
  frames = received (f, "panel_resize");
  frame = g_ptr_array_index (frames, 0);
  g_assert_cmpstr (json_object_get_string_member (frame, "panel_id"), ==, "board");
  g_assert_cmpint (json_object_get_int_member (frame, "width"), ==, columns);
  g_assert_cmpint (json_object_get_int_member (frame, "height"), ==, rows);
  /* A 420×360 window with a monospace font: tens of cells, not pixels. */
  g_assert_cmpuint (columns, >=, 20);
  g_assert_cmpuint (columns, <=, 100);
  g_assert_cmpuint (rows, >=, 5);
  g_assert_cmpuint (rows, <=, 40);
  size = g_strdup_printf ("size: %ux%u", columns, rows);
  wait_body (view, size);

  /* Bigger: a second frame with more cells. */
  gtk_widget_set_size_request (GTK_WIDGET (f->pane), 840, 720);
  wait.count = 2;
  zot_test_wait_until (has_resizes, &wait, 10000);
  g_clear_pointer (&frames, g_ptr_array_unref);
  frames = received (f, "panel_resize");
  frame = g_ptr_array_index (frames, frames->len - 1);
  _zot_panel_view_get_cells (view, &columns2, &rows2);
  g_assert_cmpuint (columns2, >, columns);
  g_assert_cmpuint (rows2, >, rows);
  g_assert_cmpint (json_object_get_int_member (frame, "width"), ==, columns2);
  g_assert_cmpint (json_object_get_int_member (frame, "height"), ==, rows2);
}

static gboolean
has_close_frame (gpointer data)
{
  Fixture *f = data;
  g_autoptr(GPtrArray) frames = received (f, "panel_close");

  return frames->len > 0;
}

static void
test_close_host_side (Fixture       *f,
                      gconstpointer  data)
{
  ZotPanelView *view = open_board (f);
  g_autoptr(GPtrArray) frames = NULL;
  ZotPanel *panel = g_object_ref (zot_panel_view_get_panel (view));

  g_signal_emit_by_name (_zot_panel_view_get_close_button (view), "clicked");
  g_assert_cmpuint (zot_panel_pane_get_n_panels (f->pane), ==, 0);
  g_assert_false (zot_panel_is_open (panel));
  g_assert_cmpuint (zot_extension_manager_list_panels (zot_host_get_manager (f->host))->len, ==, 0);

  zot_test_wait_until (has_close_frame, f, 10000);
  frames = received (f, "panel_close");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (frames, 0), "panel_id"),
                   ==, "board");

  /* The user closed it: nothing to tell. */
  g_assert_null (_zot_panel_pane_get_status (f->pane));
  g_assert_cmpuint (f->notes->len, ==, 0);
  g_object_unref (panel);

  /* It opens again. */
  f->added = 0;
  open_board (f);
}

static void
test_close_extension_side (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  open_board (f);
  error = submit (f, "/closeboard");
  g_assert_no_error (error);
  zot_test_wait_until (has_no_panel, f, 10000);
  g_assert_null (_zot_panel_pane_get_status (f->pane));
  g_assert_cmpuint (f->notes->len, ==, 0);
}

static gboolean
has_note (gpointer data)
{
  Fixture *f = data;
  return f->notes->len > 0;
}

static void
test_crash (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  const char *status;

  open_board (f);
  error = submit (f, "/crash");
  g_assert_nonnull (error);

  zot_test_wait_until (has_note, f, 10000);
  g_assert_cmpuint (zot_panel_pane_get_n_panels (f->pane), ==, 0);
  g_assert_cmpuint (f->notes->len, ==, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (f->notes, 0), "Board closed: "));
  g_assert_nonnull (strstr (g_ptr_array_index (f->notes, 0), "py-panel"));
  status = _zot_panel_pane_get_status (f->pane);
  g_assert_cmpstr (status, ==, g_ptr_array_index (f->notes, 0));
}

/* A panel of a reloaded extension says so in its header until the new
 * process takes it over (test-watch does the reload itself). */
static void
test_reloaded_badge (Fixture       *f,
                     gconstpointer  data)
{
  ZotPanelView *view = open_board (f);
  ZotPanel *panel = zot_panel_view_get_panel (view);
  g_autoptr(ZotExtension) owner = zot_panel_dup_extension (panel);
  GtkWidget *badge = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (view), ZOT_TYPE_PANEL_VIEW,
                                                                "reloaded_label"));

  g_assert_false (gtk_widget_get_visible (badge));
  _zot_panel_mark_reloaded (panel);
  g_assert_true (zot_panel_get_reloaded (panel));
  g_assert_true (gtk_widget_get_visible (badge));
  _zot_panel_adopt (panel, owner);
  g_assert_false (zot_panel_get_reloaded (panel));
  g_assert_false (gtk_widget_get_visible (badge));
}

static void
test_empty_and_late_manager (void)
{
  ZotPanelPane *pane = ZOT_PANEL_PANE (zot_panel_pane_new ());
  ZotExtensionManager *manager = zot_extension_manager_new ();

  g_object_ref_sink (pane);
  g_assert_cmpuint (zot_panel_pane_get_n_panels (pane), ==, 0);
  zot_panel_pane_set_manager (pane, manager);
  g_assert_true (zot_panel_pane_get_manager (pane) == manager);
  zot_panel_pane_set_manager (pane, NULL);
  g_assert_finalize_object (pane);
  g_assert_finalize_object (manager);
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
  g_test_add ("/zot/gui-panels/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("render", test_render);
  ADD ("keys", test_keys);
  ADD ("resize", test_resize);
  ADD ("close-host-side", test_close_host_side);
  ADD ("close-extension-side", test_close_extension_side);
  ADD ("crash", test_crash);
  ADD ("reloaded-badge", test_reloaded_badge);
  g_test_add_func ("/zot/gui-panels/empty-and-late-manager", test_empty_and_late_manager);

#undef ADD

  return g_test_run ();
}
