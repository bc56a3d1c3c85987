/* test-gui-layout.c — the window at the width it has: the side pane and
 * the sidebar fold over the conversation on narrow windows, the
 * conversation gets most of a wide one, the side pane shows only with
 * something to show, and a pane's width is remembered. */
#include "config.h"

#include <adwaita.h>

#include "zot-application.h"
#include "zot-gui-test-util.h"
#include "zot-limits.h"
#include "zot-options.h"
#include "zot-prompt-editor-private.h"
#include "zot-test-util.h"
#include "zot-window-layout-private.h"
#include "zot-window-private.h"
#include "zot-window.h"

#define WAIT_MS 20000

#define PANEL_OPEN "{\"type\":\"open_panel\",\"panel\":{\"id\":\"p\",\"title\":\"Plan\",\"lines\":[\"one\"]}}"
#define PANEL_CLOSE "{\"type\":\"panel_close\",\"panel_id\":\"p\"}"

typedef struct
{
  ZotTestEnv  env;
  ZotWindow  *window;
  GSettings  *settings;
} Fixture;

static ZotApplication *application;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_gui_env_setup (&f->env);
  f->settings = g_settings_new (APP_ID);
  g_settings_reset (f->settings, "side-pane-width");
  g_settings_reset (f->settings, "sidebar-width");
  g_settings_reset (f->settings, "window-maximized");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_test_close_window (&f->window);
  g_clear_object (&f->settings);
  zot_test_env_teardown (&f->env);
}

static gboolean
host_ready (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (data)) && zot_test_extensions_ready (data);
}

typedef struct
{
  Fixture *f;
  int      width;
} WidthWait;

/* Laid out at @width, with the conversation allocated. The window's own
 * width is its default one less the frame it draws itself without a
 * window manager, a few pixels. */
static gboolean
laid_out_at (gpointer data)
{
  WidthWait *wait = data;
  ZotWindow *window = wait->f->window;
  int width = gtk_widget_get_width (GTK_WIDGET (window));

  return width <= wait->width && width >= wait->width - 24 &&
         gtk_widget_get_width (GTK_WIDGET (window->conversation_box)) > 0;
}

/* The window with the demo model and a fake extension that sends what it
 * is told, shown at @width. */
static void
open_window (Fixture *f,
             int      width)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "w", "--command", "w", NULL);
  const char *paths[] = { dir, NULL };
  g_auto(ZotHostOptions) options = { 0 };
  WidthWait wait = { f, width };

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->window = ZOT_WINDOW (zot_window_new (application, &options, -1));
  gtk_window_set_default_size (GTK_WINDOW (f->window), width, 700);
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (host_ready, f->window, WAIT_MS);
  zot_test_wait_until (laid_out_at, &wait, WAIT_MS);
}

static void
extension_sends (Fixture    *f,
                 const char *frame)
{
  g_auto(ZotTestSubmit) submit = { 0 };
  g_autofree char *line = g_strdup_printf ("/w send %s", frame);

  zot_test_submit (zot_window_get_host (f->window), line, &submit);
  g_assert_no_error (submit.error);
}

static gboolean
flap_settled (gpointer data)
{
  AdwFlap *flap = data;
  double progress = adw_flap_get_reveal_progress (flap);

  return progress == (adw_flap_get_reveal_flap (flap) ? 1.0 : 0.0);
}

static gboolean
side_pane_shown (gpointer data)
{
  Fixture *f = data;

  return adw_flap_get_reveal_flap (f->window->side_flap) && flap_settled (f->window->side_flap) &&
         gtk_widget_get_width (GTK_WIDGET (f->window->side_bin)) > 0;
}

static gboolean
side_pane_hidden (gpointer data)
{
  Fixture *f = data;

  return !adw_flap_get_reveal_flap (f->window->side_flap) && flap_settled (f->window->side_flap);
}

typedef struct
{
  GtkWidget *widget;
  int        width;
} WidgetWidth;

static gboolean
widget_has_width (gpointer data)
{
  WidgetWidth *wait = data;

  return gtk_widget_get_width (wait->widget) == wait->width;
}

static gboolean
agent_answered (gpointer data)
{
  ZotHost *host = zot_window_get_host (data);
  ZotAgent *agent = zot_host_get_agent (host);

  return !zot_agent_is_running (agent) && zot_agent_get_messages (agent)->len >= 2;
}

/* The conversation is the window's whole width, and a prompt typed into it
 * goes to the model and its answer comes back. */
static void
assert_conversation_usable (Fixture *f)
{
  int window_width = gtk_widget_get_width (GTK_WIDGET (f->window));
  g_autofree char *text = NULL;

  /* All of the window's width, but for the frame it may draw itself. */
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->flap)), >=, window_width - 24);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->conversation_box)), ==,
                   gtk_widget_get_width (GTK_WIDGET (f->window->flap)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->prompt_editor)), >, 0);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (f->window->transcript)));

  zot_prompt_editor_set_text (f->window->prompt_editor, "narrow window question");
  g_assert_true (_zot_prompt_editor_handle_key (f->window->prompt_editor, GDK_KEY_Return, 0));
  zot_test_wait_until (agent_answered, f->window, WAIT_MS);
  text = zot_test_widget_text (GTK_WIDGET (f->window->transcript));
  g_assert_nonnull (strstr (text, "narrow window question"));
}

/* Both panes are folded: overlays, hidden until asked for. */
static void
assert_folded (Fixture *f)
{
  g_assert_true (adw_flap_get_folded (f->window->flap));
  g_assert_true (adw_flap_get_folded (f->window->side_flap));
  g_assert_false (adw_flap_get_reveal_flap (f->window->flap));
  g_assert_false (adw_flap_get_reveal_flap (f->window->side_flap));
  g_assert_true (adw_flap_get_modal (f->window->flap));
  g_assert_true (adw_flap_get_modal (f->window->side_flap));
}

/* The folds are set by the window's width, at these edges. */
static void
test_thresholds (void)
{
  g_assert_true (_zot_window_layout_folds_side_pane (ZOT_LAYOUT_SIDE_PANE_FOLD_WIDTH - 1));
  g_assert_false (_zot_window_layout_folds_side_pane (ZOT_LAYOUT_SIDE_PANE_FOLD_WIDTH));
  g_assert_true (_zot_window_layout_folds_sidebar (ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH - 1));
  g_assert_false (_zot_window_layout_folds_sidebar (ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH));
  g_assert_false (_zot_window_layout_folds_side_pane (ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH - 1) &&
                  !_zot_window_layout_folds_sidebar (ZOT_LAYOUT_SIDEBAR_FOLD_WIDTH - 1));

  g_assert_cmpint (_zot_window_layout_default_width (1000, 20, 100, 300), ==, 200);
  g_assert_cmpint (_zot_window_layout_default_width (400, 20, 100, 300), ==, 100);
  g_assert_cmpint (_zot_window_layout_default_width (2000, 20, 100, 300), ==, 300);
}

/* At 600 px both panes fold, the window keeps its width, and the
 * conversation works. */
static void
test_narrow (Fixture       *f,
             gconstpointer  data)
{
  int min_width;

  open_window (f, 600);
  assert_folded (f);
  gtk_widget_measure (GTK_WIDGET (f->window), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  g_assert_cmpint (min_width, ==, ZOT_LAYOUT_MIN_WINDOW_WIDTH);
  zot_test_measure_narrowest (GTK_WIDGET (f->window));
  assert_conversation_usable (f);
}

/* Escape and a click on the conversation beside an overlay close it;
 * the header's buttons open them. */
static gboolean
escape_closes (AdwFlap *flap)
{
  GtkShortcutAction *action = zot_test_find_shortcut (GTK_WIDGET (flap), "Escape");

  return action != NULL && gtk_shortcut_action_activate (action, 0, GTK_WIDGET (flap), NULL);
}

static gboolean
click_outside_closes (AdwFlap *flap)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (flap)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autoptr(GListModel) controllers = NULL;

      if (child == adw_flap_get_content (flap) || child == adw_flap_get_flap (flap) ||
          child == adw_flap_get_separator (flap) || !gtk_widget_get_child_visible (child))
        continue;
      /* The shield over the content, shown while the overlay is. */
      controllers = gtk_widget_observe_controllers (child);
      for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
        {
          g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

          if (GTK_IS_GESTURE_CLICK (controller))
            {
              g_signal_emit_by_name (controller, "released", 1, 1.0, 1.0);
              return TRUE;
            }
        }
    }
  return FALSE;
}

static gboolean
flap_open (gpointer data)
{
  return adw_flap_get_reveal_flap (data) && flap_settled (data);
}

static gboolean
flap_closed (gpointer data)
{
  return !adw_flap_get_reveal_flap (data) && flap_settled (data);
}

/* At 360 px, the narrowest, it all still works, and the overlays open
 * from the header and close as overlays do. */
static void
test_narrowest (Fixture       *f,
                gconstpointer  data)
{
  GtkWidget *sidebar_button;

  open_window (f, ZOT_LAYOUT_MIN_WINDOW_WIDTH);
  assert_folded (f);
  assert_conversation_usable (f);

  sidebar_button = zot_test_find_widget (GTK_WIDGET (f->window->header_bar), GTK_TYPE_TOGGLE_BUTTON, NULL);
  g_assert_true (gtk_widget_get_mapped (sidebar_button));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (sidebar_button), TRUE);
  zot_test_wait_until (flap_open, f->window->flap, WAIT_MS);
  /* An overlay, not beside: the conversation keeps the width. */
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->sidebar_bin)), <=,
                   ZOT_LAYOUT_MIN_WINDOW_WIDTH - ZOT_LAYOUT_OVERLAY_MARGIN);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->side_flap)), ==,
                   gtk_widget_get_width (GTK_WIDGET (f->window->flap)));
  g_assert_true (escape_closes (f->window->flap));
  zot_test_wait_until (flap_closed, f->window->flap, WAIT_MS);

  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (f->window->side_pane_button)));
  gtk_toggle_button_set_active (f->window->side_pane_button, TRUE);
  zot_test_wait_until (flap_open, f->window->side_flap, WAIT_MS);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->conversation_box)), ==,
                   gtk_widget_get_width (GTK_WIDGET (f->window->flap)));
  g_assert_true (click_outside_closes (f->window->side_flap));
  zot_test_wait_until (flap_closed, f->window->side_flap, WAIT_MS);
  g_assert_false (gtk_toggle_button_get_active (f->window->side_pane_button));
}

/* At 1280 px nothing folds, and the conversation gets 60 % of the width
 * with the side pane open beside it. */
static void
test_wide (Fixture       *f,
           gconstpointer  data)
{
  int conversation;

  open_window (f, 1280);
  g_assert_false (adw_flap_get_folded (f->window->flap));
  g_assert_false (adw_flap_get_folded (f->window->side_flap));
  g_assert_true (adw_flap_get_reveal_flap (f->window->flap));

  extension_sends (f, PANEL_OPEN);
  zot_test_wait_until (side_pane_shown, f, WAIT_MS);
  conversation = gtk_widget_get_width (GTK_WIDGET (f->window->conversation_box));
  g_test_message ("sidebar %d, conversation %d, side pane %d",
                  gtk_widget_get_width (GTK_WIDGET (f->window->sidebar_bin)), conversation,
                  gtk_widget_get_width (GTK_WIDGET (f->window->side_bin)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->sidebar_bin)), >, 0);
  g_assert_cmpint (conversation * 100, >=, 1280 * 60);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->side_bin)), ==,
                   _zot_window_layout_get_side_pane_width (f->window));
}

/* The side pane hides while it has nothing to show, opens when an
 * extension opens a panel, and hides again when the last one closes; the
 * header's button still shows it (its notes, inspector, extensions). */
static void
test_side_pane_follows_panels (Fixture       *f,
                               gconstpointer  data)
{
  open_window (f, 1280);
  g_assert_false (adw_flap_get_reveal_flap (f->window->side_flap));
  g_assert_false (gtk_toggle_button_get_active (f->window->side_pane_button));
  /* Hidden, it takes no room. */
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->conversation_box)), ==,
                   gtk_widget_get_width (GTK_WIDGET (f->window->side_flap)));

  extension_sends (f, PANEL_OPEN);
  zot_test_wait_until (side_pane_shown, f, WAIT_MS);
  g_assert_true (gtk_toggle_button_get_active (f->window->side_pane_button));

  extension_sends (f, PANEL_CLOSE);
  zot_test_wait_until (side_pane_hidden, f, WAIT_MS);
  g_assert_false (gtk_toggle_button_get_active (f->window->side_pane_button));

  gtk_toggle_button_set_active (f->window->side_pane_button, TRUE);
  zot_test_wait_until (side_pane_shown, f, WAIT_MS);
}

static void
drag_handle (GtkWidget *handle,
             double     dx)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (handle);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_GESTURE_DRAG (controller))
        continue;
      g_signal_emit_by_name (controller, "drag-begin", 2.0, 300.0);
      g_signal_emit_by_name (controller, "drag-update", dx / 2, 0.0);
      g_signal_emit_by_name (controller, "drag-update", dx, 0.0);
      g_signal_emit_by_name (controller, "drag-end", dx, 0.0);
      return;
    }
  g_assert_not_reached ();
}

/* A width the user gave the side pane is the one the next window opens
 * with. */
static void
test_remembered_width (Fixture       *f,
                       gconstpointer  data)
{
  WidgetWidth wait = { NULL, 0 };
  int default_width;
  int width;

  open_window (f, 1280);
  gtk_toggle_button_set_active (f->window->side_pane_button, TRUE);
  zot_test_wait_until (side_pane_shown, f, WAIT_MS);
  /* Unless resized, a share of the window. */
  default_width = _zot_window_layout_default_width (gtk_widget_get_width (GTK_WIDGET (f->window)),
                                                    ZOT_LAYOUT_SIDE_PANE_SHARE, ZOT_LAYOUT_SIDE_PANE_MIN_WIDTH,
                                                    ZOT_LAYOUT_SIDE_PANE_MAX_WIDTH);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window->side_bin)), ==, default_width);
  width = default_width + 57;

  _zot_window_layout_resize_side_pane (f->window, width);
  wait = (WidgetWidth) { GTK_WIDGET (f->window->side_bin), width };
  zot_test_wait_until (widget_has_width, &wait, WAIT_MS);
  g_assert_cmpint (g_settings_get_int (f->settings, "side-pane-width"), ==, width);
  zot_test_close_window (&f->window);

  open_window (f, 1280);
  gtk_toggle_button_set_active (f->window->side_pane_button, TRUE);
  zot_test_wait_until (side_pane_shown, f, WAIT_MS);
  wait = (WidgetWidth) { GTK_WIDGET (f->window->side_bin), width };
  zot_test_wait_until (widget_has_width, &wait, WAIT_MS);

  /* Dragging the pane's edge to the left widens it, and is remembered. */
  drag_handle (GTK_WIDGET (f->window->side_handle), -40);
  wait = (WidgetWidth) { GTK_WIDGET (f->window->side_bin), width + 40 };
  zot_test_wait_until (widget_has_width, &wait, WAIT_MS);
  g_assert_cmpint (g_settings_get_int (f->settings, "side-pane-width"), ==, width + 40);

  /* Never so wide that the conversation is squeezed out. */
  _zot_window_layout_resize_side_pane (f->window, 5000);
  g_assert_cmpint (g_settings_get_int (f->settings, "side-pane-width"), <=,
                   1280 - ZOT_LAYOUT_CONVERSATION_MIN_WIDTH);
}

int
main (int    argc,
      char **argv)
{
  application = zot_test_gui_init (&argc, &argv);

  g_test_add_func ("/zot/gui/layout/thresholds", test_thresholds);
  g_test_add ("/zot/gui/layout/narrow", Fixture, NULL, fixture_setup, test_narrow, fixture_teardown);
  g_test_add ("/zot/gui/layout/narrowest", Fixture, NULL, fixture_setup, test_narrowest, fixture_teardown);
  g_test_add ("/zot/gui/layout/wide", Fixture, NULL, fixture_setup, test_wide, fixture_teardown);
  g_test_add ("/zot/gui/layout/side-pane-follows-panels", Fixture, NULL, fixture_setup,
              test_side_pane_follows_panels, fixture_teardown);
  g_test_add ("/zot/gui/layout/remembered-width", Fixture, NULL, fixture_setup, test_remembered_width,
              fixture_teardown);

  return g_test_run ();
}
