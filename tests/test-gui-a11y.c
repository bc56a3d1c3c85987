/* test-gui-a11y.c — the window as assistive technologies and the keyboard
 * meet it.
 *
 * GTK 4.8 computes accessible names only for the accessibility bus, so the
 * names are read from outside: the test starts a private session bus and
 * the AT-SPI bus launcher (whose bus activates the registry daemon), opens
 * the whole window with a panel of native widgets, and runs a11y-walk.py,
 * which reads this process's tree over AT-SPI. Every widget the keyboard
 * reaches must have a name, and the panel's widgets must have the names
 * their tree gave them.
 *
 * The keyboard half runs in process: Tab moves focus as GTK's own key
 * handler does (gtk_widget_child_focus()), through the panel's widgets and
 * into the side pane's pages, which the Alt+number shortcuts switch to.
 */
#include "config.h"

#include <unistd.h>

#include <adwaita.h>

#include "zot-application.h"
#include "zot-gui-test-util.h"
#include "zot-panel-pane-private.h"
#include "zot-panel-view-private.h"
#include "zot-new-extension-dialog.h"
#include "zot-panel-widgets-view.h"
#include "zot-preferences-window.h"
#include "zot-project-chooser.h"
#include "zot-prompt-editor-private.h"
#include "zot-transcript-private.h"
#include "zot-test-util.h"
#include "zot-window-private.h"

/* Generous: the registry and the walk answer slowly on a busy machine. */
#define WALK_DEADLINE_S   90
#define BUS_DEADLINE_MS   30000
#define WAIT_MS           20000
/* Tab presses allowed to go round the whole window once. */
#define MAX_TAB_STEPS     400

typedef struct
{
  ZotTestEnv  env;
  ZotWindow  *window;
} Fixture;

static ZotApplication *application;

/* Every control kind a panel can show, each with a label that only this
 * tree uses, so that finding the name proves it came from here. */
#define PANEL_TREE \
  "{\"type\":\"open_panel\",\"panel\":{\"id\":\"a11y\",\"title\":\"Access\",\"widgets\":[" \
  "{\"id\":\"head\",\"type\":\"heading\",\"text\":\"Trip planner\"}," \
  "{\"id\":\"dest\",\"type\":\"entry\",\"label\":\"Destination city\"," \
  " \"description\":\"Where the trip goes\",\"submit_label\":\"Plan trip\"}," \
  "{\"id\":\"notes\",\"type\":\"textarea\",\"label\":\"Packing notes\"}," \
  "{\"id\":\"go\",\"type\":\"button\",\"label\":\"Book the tickets\"}," \
  "{\"id\":\"icon\",\"type\":\"button\",\"label\":\"Share the plan\",\"icon\":\"send-to-symbolic\"}," \
  "{\"id\":\"alerts\",\"type\":\"switch\",\"label\":\"Price alerts\"}," \
  "{\"id\":\"insure\",\"type\":\"check\",\"label\":\"Travel insurance\"}," \
  "{\"id\":\"class\",\"type\":\"dropdown\",\"label\":\"Seat class\",\"options\":[" \
  " {\"value\":\"eco\",\"label\":\"Economy\"},{\"value\":\"biz\",\"label\":\"Business\"}]}," \
  "{\"id\":\"stops\",\"type\":\"list\",\"label\":\"Stops on the way\",\"rows\":[" \
  " {\"id\":\"s1\",\"title\":\"Lyon\",\"checked\":false," \
  "  \"buttons\":[{\"id\":\"drop\",\"label\":\"Remove the stop\",\"icon\":\"user-trash-symbolic\"}]}]}," \
  "{\"id\":\"load\",\"type\":\"progress\",\"fraction\":0.5,\"text\":\"Half booked\"}," \
  "{\"id\":\"log\",\"type\":\"code\",\"label\":\"Booking log\",\"text\":\"ok\"}]}}"

/* Names the walk must find, as the tree gave them. */
static const char *tree_names[] = {
  "Destination city", "Plan trip", "Packing notes", "Book the tickets", "Share the plan",
  "Price alerts", "Travel insurance", "Seat class", "Stops on the way", "Lyon",
  /* A row's button says which row it acts on. */
  "Remove the stop: Lyon",
  "Booking log",
};

/* The ids of the controls that Tab must reach. */
static const char *tab_ids[] = { "dest", "notes", "go", "icon", "alerts", "insure", "class", "stops" };

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_gui_env_setup (&f->env);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  zot_test_close_window (&f->window);
  zot_test_env_teardown (&f->env);
}

static gboolean
host_ready (gpointer data)
{
  ZotWindow *window = data;
  ZotHost *host = zot_window_get_host (window);
  g_autoptr(ZotExtension) extension = NULL;

  if (host == NULL || g_list_model_get_n_items (G_LIST_MODEL (zot_host_get_manager (host))) == 0)
    return FALSE;
  extension = g_list_model_get_item (G_LIST_MODEL (zot_host_get_manager (host)), 0);
  return zot_extension_get_state (extension) == ZOT_EXTENSION_STATE_READY &&
         gtk_widget_get_mapped (GTK_WIDGET (window));
}

static gboolean
panel_built (gpointer data)
{
  ZotWindow *window = data;
  GPtrArray *panels = zot_extension_manager_list_panels (zot_host_get_manager (zot_window_get_host (window)));
  ZotPanelView *view;
  ZotPanelWidgetsView *widgets;

  if (panels->len == 0)
    return FALSE;
  view = _zot_panel_pane_get_view (window->panel_pane, g_ptr_array_index (panels, 0));
  widgets = view ? _zot_panel_view_get_widgets (view) : NULL;
  return widgets != NULL && zot_panel_widgets_view_lookup (widgets, "log") != NULL &&
         gtk_widget_get_mapped (zot_panel_widgets_view_lookup (widgets, "go"));
}

static ZotPanelWidgetsView *
panel_widgets (Fixture *f)
{
  GPtrArray *panels = zot_extension_manager_list_panels (zot_host_get_manager (zot_window_get_host (f->window)));

  return _zot_panel_view_get_widgets (_zot_panel_pane_get_view (f->window->panel_pane,
                                                                g_ptr_array_index (panels, 0)));
}

/* The whole window, with a fake extension, shown and ready. */
static void
open_window (Fixture *f)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "w", "--command", "w", NULL);
  const char *paths[] = { dir, NULL };
  g_auto(ZotHostOptions) options = { 0 };

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->window = ZOT_WINDOW (zot_window_new (application, &options, -1));
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (host_ready, f->window, WAIT_MS);
}

/* The same, once the extension opened the panel above. */
static void
open_window_with_panel (Fixture *f)
{
  g_auto(ZotTestSubmit) submit = { 0 };

  open_window (f);
  zot_test_submit (zot_window_get_host (f->window), "/w send " PANEL_TREE, &submit);
  g_assert_no_error (submit.error);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-side-page", "s", "panels"));
  zot_test_wait_until (panel_built, f->window, WAIT_MS);
}

typedef struct
{
  gboolean  done;
  char     *out;
  char     *err;
  GError   *error;
  int       status;
} Walk;

static void
walk_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Walk *walk = user_data;

  if (g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &walk->out, &walk->err,
                                            &walk->error))
    walk->status = g_subprocess_get_exit_status (G_SUBPROCESS (object));
  walk->done = TRUE;
}

static gboolean
walk_finished (gpointer data)
{
  return ((Walk *) data)->done;
}

/* Runs a11y-walk.py on this process while the main loop answers it. */
static JsonObject *
walk_tree (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "a11y-walk.py", NULL);
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *deadline = g_strdup_printf ("%d", WALK_DEADLINE_S);
  const char *python = g_getenv ("ZOT_ATSPI_PYTHON");
  g_autoptr(GSubprocess) walker = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  Walk walk = { 0 };

  walker = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                             python ? python : "python3", script, pid, deadline, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (walker, NULL, cancellable, walk_done_cb, &walk);
  /* The walk has its own deadline; this one catches a walker that hangs. */
  zot_test_wait_until (walk_finished, &walk, (WALK_DEADLINE_S + 60) * 1000);

  g_assert_no_error (walk.error);
  if (walk.status != 0)
    g_error ("a11y-walk.py failed (%d): %s", walk.status, walk.err);
  json_parser_load_from_data (parser, walk.out, -1, &error);
  g_assert_no_error (error);
  g_free (walk.out);
  g_free (walk.err);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* The names of the message rows, by their role. */
static const char *message_names[][2] = {
  { "list item", "You" },
  { "list item", "Assistant" },
  { "list item", "Tool call: read" },
  { "list item", "Tool call: no_such_tool" },
  { "text", "Code block, python" },
};

static gboolean
has_role_named (JsonObject *tree,
                const char *role,
                const char *name)
{
  JsonArray *nodes = json_object_get_array_member (tree, "nodes");

  for (guint i = 0; i < json_array_get_length (nodes); i++)
    {
      JsonObject *node = json_array_get_object_element (nodes, i);

      if (g_str_equal (json_object_get_string_member (node, "name"), name) &&
          g_str_equal (json_object_get_string_member (node, "role"), role))
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_node_named (JsonObject *tree,
                const char *name)
{
  JsonArray *nodes = json_object_get_array_member (tree, "nodes");

  for (guint i = 0; i < json_array_get_length (nodes); i++)
    if (g_str_equal (json_object_get_string_member (json_array_get_object_element (nodes, i), "name"),
                     name))
      return TRUE;
  return FALSE;
}

/* Whether a node called @name says @description: tooltips are given when
 * shown (zot-tooltip.h) and must still describe their widget. */
static gboolean
has_node_described (JsonObject *tree,
                    const char *name,
                    const char *description)
{
  JsonArray *nodes = json_object_get_array_member (tree, "nodes");

  for (guint i = 0; i < json_array_get_length (nodes); i++)
    {
      JsonObject *node = json_array_get_object_element (nodes, i);

      if (g_str_equal (json_object_get_string_member (node, "name"), name) &&
          g_str_equal (json_object_get_string_member (node, "description"), description))
        return TRUE;
    }
  return FALSE;
}

/* Whether the list called @name has an item: the transcript's rows are
 * the items of the "Conversation" list, as screen readers expect. */
static gboolean
has_list_item (JsonObject *tree,
               const char *name)
{
  JsonArray *nodes = json_object_get_array_member (tree, "nodes");

  for (guint i = 0; i < json_array_get_length (nodes); i++)
    {
      JsonObject *list = json_array_get_object_element (nodes, i);
      g_autofree char *prefix = NULL;

      if (!g_str_equal (json_object_get_string_member (list, "name"), name) ||
          !g_str_equal (json_object_get_string_member (list, "role"), "list"))
        continue;
      prefix = g_strconcat (json_object_get_string_member (list, "path"), "/list item[", NULL);
      for (guint j = 0; j < json_array_get_length (nodes); j++)
        if (g_str_has_prefix (json_object_get_string_member (json_array_get_object_element (nodes, j), "path"),
                              prefix))
          return TRUE;
    }
  return FALSE;
}

/* Fails on every node the walk found wanting: a control the keyboard
 * reaches without a name, a name with a mnemonic underscore, a name said
 * twice. */
static void
assert_all_named (JsonObject *tree)
{
  static const char *lists[][2] = {
    { "unnamed", "widgets the keyboard reaches without an accessible name" },
    { "mnemonic", "accessible names with a mnemonic underscore" },
    { "doubled", "accessible names that say the same text twice" },
  };
  g_autoptr(GString) report = g_string_new (NULL);

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    {
      JsonArray *found = json_object_get_array_member (tree, lists[l][0]);

      if (json_array_get_length (found) > 0)
        g_string_append_printf (report, "\n%s:", lists[l][1]);
      for (guint i = 0; i < json_array_get_length (found); i++)
        g_string_append_printf (report, "\n  %s", json_array_get_string_element (found, i));
    }
  if (report->len > 0)
    g_error ("%s", report->str);
}

/* Each kind of message: the user's, the reply with a code block in it,
 * and a tool call. */
#define CODE_MESSAGE "Run this:\n\n```python\nprint(1)\n```\n"
/* A tool whose name has an underscore: the name keeps it. */
#define TOOL_MESSAGE "tool: read {\"path\":\"notes.txt\"}\ntool: no_such_tool {}"

static void
test_every_control_named (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(JsonObject) tree = NULL;
  g_auto(ZotTestSubmit) submit = { 0 };
  g_auto(ZotTestSubmit) code = { 0 };
  g_auto(ZotTestSubmit) tool = { 0 };

  open_window_with_panel (f);
  /* A message and its reply: rows in the transcript. */
  zot_test_submit (zot_window_get_host (f->window), "hello", &submit);
  g_assert_no_error (submit.error);
  zot_test_submit (zot_window_get_host (f->window), CODE_MESSAGE, &code);
  g_assert_no_error (code.error);
  zot_test_submit (zot_window_get_host (f->window), TOOL_MESSAGE, &tool);
  g_assert_no_error (tool.error);
  tree = walk_tree ();

  /* The walk saw the window itself, not an empty application. */
  g_assert_true (has_node_named (tree, gtk_window_get_title (GTK_WINDOW (f->window))));
  assert_all_named (tree);

  for (guint i = 0; i < G_N_ELEMENTS (tree_names); i++)
    if (!has_node_named (tree, tree_names[i]))
      g_error ("the panel's \"%s\" is not on the accessibility bus under its name", tree_names[i]);

  g_assert_true (has_node_described (tree, "Send", "Send"));
  g_assert_true (has_list_item (tree, "Conversation"));
  /* Each message says who wrote it; a code block says its language. */
  for (guint i = 0; i < G_N_ELEMENTS (message_names); i++)
    if (!has_role_named (tree, message_names[i][0], message_names[i][1]))
      g_error ("no %s named \"%s\" in the conversation", message_names[i][0], message_names[i][1]);
}

static gboolean
widget_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static gboolean
start_view_shown (gpointer data)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (application)); l != NULL; l = l->next)
    if (ZOT_IS_PROJECT_CHOOSER (l->data) && gtk_widget_get_mapped (l->data))
      return TRUE;
  return FALSE;
}

/* The other windows and pages: the start view, the preferences, the
 * extensions page and the dialog that writes a new extension, all on
 * screen at once so that one walk reads them. */
static void
test_other_windows_named (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(JsonObject) tree = NULL;
  GtkWidget *preferences;
  GtkWidget *new_extension;

  open_window (f);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-side-page", "s", "extensions"));
  zot_application_show_projects (application);
  zot_test_wait_until (start_view_shown, NULL, WAIT_MS);
  preferences = zot_preferences_window_new (GTK_WINDOW (f->window), zot_window_get_host (f->window));
  gtk_window_present (GTK_WINDOW (preferences));
  zot_test_wait_until (widget_mapped, preferences, WAIT_MS);
  new_extension = zot_new_extension_dialog_new (GTK_WINDOW (f->window), f->env.cwd);
  gtk_window_present (GTK_WINDOW (new_extension));
  zot_test_wait_until (widget_mapped, new_extension, WAIT_MS);

  tree = walk_tree ();
  g_assert_true (has_role_named (tree, "frame", gtk_window_get_title (GTK_WINDOW (preferences))));
  g_assert_true (has_role_named (tree, "dialog", gtk_window_get_title (GTK_WINDOW (new_extension))) ||
                 has_role_named (tree, "frame", gtk_window_get_title (GTK_WINDOW (new_extension))));
  gtk_window_destroy (GTK_WINDOW (new_extension));
  gtk_window_destroy (GTK_WINDOW (preferences));
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (application)); l != NULL; l = l->next)
    if (ZOT_IS_PROJECT_CHOOSER (l->data))
      {
        gtk_window_destroy (l->data);
        break;
      }

  g_assert_true (has_node_named (tree, "Installed extensions"));
  assert_all_named (tree);
}

static gboolean
focus_in (GtkWidget *focus,
          GtkWidget *widget)
{
  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

/* Presses Tab until the focus lands in @target; fails after a full round. */
static void
tab_to (Fixture   *f,
        GtkWidget *target)
{
  for (guint i = 0; i < MAX_TAB_STEPS; i++)
    {
      if (focus_in (gtk_root_get_focus (GTK_ROOT (f->window)), target))
        return;
      if (!gtk_widget_child_focus (GTK_WIDGET (f->window), GTK_DIR_TAB_FORWARD))
        /* Off the end: Tab wraps round to the start, as GtkWindow does. */
        gtk_widget_child_focus (GTK_WIDGET (f->window), GTK_DIR_TAB_FORWARD);
    }
  g_error ("Tab never reaches a %s", G_OBJECT_TYPE_NAME (target));
}

static void
test_keyboard_reaches (Fixture       *f,
                       gconstpointer  data)
{
  ZotPanelWidgetsView *widgets;
  g_autoptr(GPtrArray) entries = NULL;
  GtkWidget *search = NULL;

  open_window_with_panel (f);
  widgets = panel_widgets (f);

  for (guint i = 0; i < G_N_ELEMENTS (tab_ids); i++)
    {
      GtkWidget *control = zot_panel_widgets_view_lookup (widgets, tab_ids[i]);

      g_assert_nonnull (control);
      tab_to (f, control);
    }

  /* A focused control works from the keyboard: Space and Enter activate. */
  tab_to (f, zot_panel_widgets_view_lookup (widgets, "insure"));
  g_assert_true (gtk_widget_activate (gtk_root_get_focus (GTK_ROOT (f->window))) ||
                 gtk_widget_mnemonic_activate (zot_panel_widgets_view_lookup (widgets, "insure"), FALSE));
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (zot_panel_widgets_view_lookup (widgets,
                                                                                               "insure"))));

  /* Alt+2 and Alt+3 bring the notes and the inspector, which Tab then reaches. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-side-page", "s", "notes"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (f->window->side_stack), ==, "notes");
  tab_to (f, GTK_WIDGET (f->window->notes_view));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-side-page", "s", "inspector"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (f->window->side_stack), ==, "inspector");
  /* The one on screen: the extension drop-down's popover has its own. */
  entries = zot_test_find_widgets (GTK_WIDGET (f->window->inspector), GTK_TYPE_SEARCH_ENTRY, NULL);
  for (guint i = 0; i < entries->len && search == NULL; i++)
    if (gtk_widget_get_mapped (g_ptr_array_index (entries, i)))
      search = g_ptr_array_index (entries, i);
  g_assert_nonnull (search);
  tab_to (f, search);
}

/* The region of the window that holds @focus, by the name the tests use. */
static const char *
region_of (Fixture   *f,
           GtkWidget *focus)
{
  struct { GtkWidget *widget; const char *name; } regions[] = {
    { GTK_WIDGET (f->window->prompt_editor), "prompt" },
    { GTK_WIDGET (f->window->transcript), "transcript" },
    { GTK_WIDGET (f->window->side_pane), "side pane" },
    { GTK_WIDGET (f->window->sidebar), "sidebar" },
    { GTK_WIDGET (f->window->header_bar), "header" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (regions); i++)
    if (focus_in (focus, regions[i].widget))
      return regions[i].name;
  return focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing";
}

static GtkWidget *
prompt_text_view (Fixture *f)
{
  return GTK_WIDGET (_zot_prompt_editor_get_text_view (f->window->prompt_editor));
}

/* A key press as the prompt's text view gets it in the capture phase,
 * where the prompt and the window see keys before the text view does. */
static gboolean
press_in_prompt (Fixture         *f,
                 guint            keyval,
                 GdkModifierType  state)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (prompt_text_view (f));
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && !handled; i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_KEY (controller) &&
          gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
        g_signal_emit_by_name (controller, "key-pressed", keyval, 0, state, &handled);
    }
  return handled;
}

/* Tab as GTK handles it once no controller took it: the focused widget
 * asks the window to move the focus (as the prompt's text view does,
 * which does not take Tab). */
static void
press_tab (Fixture          *f,
           GtkDirectionType  direction)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  g_signal_emit_by_name (focus != NULL ? focus : GTK_WIDGET (f->window), "move-focus", direction);
}

/* The regions Tab goes through from the prompt back to it. */
static char *
tab_round (Fixture          *f,
           GtkDirectionType  direction)
{
  g_autoptr(GString) order = g_string_new ("prompt");
  const char *last = "prompt";

  gtk_widget_grab_focus (prompt_text_view (f));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == prompt_text_view (f));
  for (guint i = 0; i < MAX_TAB_STEPS; i++)
    {
      const char *region;

      /* The prompt leaves Tab to GTK while it shows no completions. */
      if (gtk_root_get_focus (GTK_ROOT (f->window)) == prompt_text_view (f))
        g_assert_false (press_in_prompt (f, direction == GTK_DIR_TAB_FORWARD ? GDK_KEY_Tab : GDK_KEY_ISO_Left_Tab,
                                         direction == GTK_DIR_TAB_FORWARD ? 0 : GDK_SHIFT_MASK));
      press_tab (f, direction);
      region = region_of (f, gtk_root_get_focus (GTK_ROOT (f->window)));
      if (g_str_equal (region, last))
        continue;
      g_string_append_printf (order, " > %s", region);
      last = region;
      if (g_str_equal (region, "prompt"))
        return g_string_free (g_steal_pointer (&order), FALSE);
    }
  g_error ("Tab never came back to the prompt: %s", order->str);
}

/* A conversation Tab can go into, a side pane and the conversation list. */
static void
open_window_for_keys (Fixture *f)
{
  g_auto(ZotTestSubmit) submit = { 0 };

  open_window (f);
  zot_test_submit (zot_window_get_host (f->window), CODE_MESSAGE, &submit);
  g_assert_no_error (submit.error);
  gtk_toggle_button_set_active (f->window->side_pane_button, TRUE);
  adw_flap_set_reveal_flap (f->window->flap, TRUE);
  zot_test_wait_until (widget_mapped, f->window->sidebar, WAIT_MS);
  /* With no panel open the side pane starts hidden; the toggle slides it in. */
  zot_test_wait_until (widget_mapped, f->window->side_pane, WAIT_MS);
}

static void
test_tab_cycle (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *forward = NULL;
  g_autofree char *backward = NULL;

  open_window_for_keys (f);

  forward = tab_round (f, GTK_DIR_TAB_FORWARD);
  g_assert_cmpstr (forward, ==, "prompt > transcript > side pane > sidebar > header > prompt");
  backward = tab_round (f, GTK_DIR_TAB_BACKWARD);
  g_assert_cmpstr (backward, ==, "prompt > header > sidebar > side pane > transcript > prompt");
}

static gboolean
completion_shown (gpointer data)
{
  return _zot_prompt_editor_completion_visible (data);
}

/* With the list of commands open, Tab completes and the focus stays. */
static void
test_tab_completes (Fixture       *f,
                    gconstpointer  data)
{
  GtkTextBuffer *buffer;
  g_autofree char *text = NULL;

  open_window_for_keys (f);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (prompt_text_view (f)));
  gtk_widget_grab_focus (prompt_text_view (f));
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_insert_interactive_at_cursor (buffer, "/hel", -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);
  zot_test_wait_until (completion_shown, f->window->prompt_editor, WAIT_MS);

  g_assert_true (press_in_prompt (f, GDK_KEY_Tab, 0));
  text = zot_prompt_editor_get_text (f->window->prompt_editor);
  g_assert_cmpstr (text, ==, "/help ");
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == prompt_text_view (f));
  g_assert_false (_zot_prompt_editor_completion_visible (f->window->prompt_editor));

  /* The list closed, the next Tab is GTK's again. */
  g_assert_false (press_in_prompt (f, GDK_KEY_Tab, 0));
}

static gboolean
scrollable (gpointer data)
{
  GtkAdjustment *adjustment = data;

  return gtk_adjustment_get_upper (adjustment) > 3 * gtk_adjustment_get_page_size (adjustment) &&
         gtk_adjustment_get_page_size (adjustment) > 0;
}

static gboolean
at_top (gpointer data)
{
  return gtk_adjustment_get_value (data) == gtk_adjustment_get_lower (data);
}

static gboolean
at_bottom (gpointer data)
{
  GtkAdjustment *adjustment = data;

  return gtk_adjustment_get_value (adjustment) > 0 &&
         gtk_adjustment_get_value (adjustment) >=
           gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment) - 1;
}

/* Page Up/Down and Ctrl+Home/End in the prompt scroll the conversation,
 * and the focus stays in the prompt. */
static void
test_prompt_scrolls (Fixture       *f,
                     gconstpointer  data)
{
  GtkAdjustment *adjustment;
  double value;

  open_window_for_keys (f);
  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *line = g_strdup_printf ("Line %u of a long conversation", i);

      zot_transcript_add_info (f->window->transcript, line);
    }
  adjustment = _zot_transcript_get_vadjustment (f->window->transcript);
  zot_test_wait_until (scrollable, adjustment, WAIT_MS);
  gtk_widget_grab_focus (prompt_text_view (f));

  g_assert_true (press_in_prompt (f, GDK_KEY_Home, GDK_CONTROL_MASK));
  zot_test_wait_until (at_top, adjustment, WAIT_MS);

  value = gtk_adjustment_get_value (adjustment);
  g_assert_true (press_in_prompt (f, GDK_KEY_Page_Down, 0));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), >, value);
  value = gtk_adjustment_get_value (adjustment);
  g_assert_true (press_in_prompt (f, GDK_KEY_KP_Page_Down, 0));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), >, value);
  value = gtk_adjustment_get_value (adjustment);
  g_assert_true (press_in_prompt (f, GDK_KEY_Page_Up, 0));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), <, value);

  g_assert_true (press_in_prompt (f, GDK_KEY_End, GDK_CONTROL_MASK));
  zot_test_wait_until (at_bottom, adjustment, WAIT_MS);
  g_assert_true (press_in_prompt (f, GDK_KEY_Home, GDK_CONTROL_MASK));
  zot_test_wait_until (at_top, adjustment, WAIT_MS);

  /* Home and End alone are the text's. */
  g_assert_false (press_in_prompt (f, GDK_KEY_End, 0));
  g_assert_false (press_in_prompt (f, GDK_KEY_Page_Down, GDK_SHIFT_MASK));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == prompt_text_view (f));
}

/* Every shortcut the window lists is a real one: each names an action
 * with accelerators, and every action with accelerators is listed. */
static void
collect_shortcuts (GtkWidget  *widget,
                   GHashTable *listed)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    {
      g_autofree char *action = NULL;
      g_autofree char *accelerator = NULL;

      g_autofree char *subtitle = NULL;

      g_object_get (widget, "action-name", &action, "accelerator", &accelerator, "subtitle", &subtitle,
                    NULL);
      g_assert_true (action != NULL || accelerator != NULL);
      /* A shortcut that a slash command matches names the command. */
      if (g_strcmp0 (action, "win.new-conversation") == 0)
        g_assert_cmpstr (subtitle, ==, "/new");
      else if (g_strcmp0 (action, "win.preferences") == 0)
        g_assert_cmpstr (subtitle, ==, "/settings");
      else
        g_assert_true (subtitle == NULL || *subtitle == '\0');
      if (action != NULL)
        g_hash_table_add (listed, g_steal_pointer (&action));
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_shortcuts (child, listed);
}

static void
test_shortcuts_window (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (application));
  GtkShortcutsWindow *overlay;

  open_window (f);

  overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (f->window));
  g_assert_nonnull (overlay);
  collect_shortcuts (GTK_WIDGET (overlay), listed);

  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (application), actions[i]);

      if (accels[0] != NULL && !g_hash_table_contains (listed, actions[i]))
        g_error ("%s has the shortcut %s, which the shortcuts window does not list", actions[i], accels[0]);
    }
  {
    GHashTableIter iter;
    gpointer action;

    g_hash_table_iter_init (&iter, listed);
    while (g_hash_table_iter_next (&iter, &action, NULL))
      {
        g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (application), action);

        if (accels[0] == NULL)
          g_error ("the shortcuts window lists %s, which has no shortcut", (char *) action);
      }
  }

  /* Ctrl+? opens it, and the main menu offers it. */
  {
    g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (application),
                                                                  "win.show-help-overlay");
    g_assert_true (g_strv_contains ((const char * const *) accels, "<Control>question"));
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-help-overlay", NULL));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (overlay)));
  gtk_window_close (GTK_WINDOW (overlay));
}

/* The accessibility bus for this process: a private session bus, on which
 * the launcher starts the accessibility bus (whose configuration activates
 * the registry daemon). Its output goes nowhere, so that nothing it starts
 * holds the test's output open after the test ends. */
static GTestDBus   *session_bus;
static GSubprocess *bus_launcher;

static gboolean
name_owned (gpointer data)
{
  return *(gboolean *) data;
}

static void
on_name_appeared (GDBusConnection *connection,
                  const char      *name,
                  const char      *owner,
                  gpointer         data)
{
  *(gboolean *) data = TRUE;
}

static void
start_accessibility_bus (void)
{
  const char *launcher = g_getenv ("ZOT_ATSPI_BUS_LAUNCHER");
  g_autofree char *display = g_strdup (g_getenv ("DISPLAY"));
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  const char *address;
  gboolean owned = FALSE;
  guint watch;

  g_assert_nonnull (launcher);
  session_bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (session_bus);
  /* GTestDBus keeps tests off the user's display too; this one needs it. */
  if (display != NULL)
    g_setenv ("DISPLAY", display, TRUE);

  bus_launcher = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                   &error, launcher, "--launch-immediately", NULL);
  g_assert_no_error (error);

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  watch = g_bus_watch_name_on_connection (bus, "org.a11y.Bus", G_BUS_NAME_WATCHER_FLAGS_NONE,
                                          on_name_appeared, NULL, &owned, NULL);
  zot_test_wait_until (name_owned, &owned, BUS_DEADLINE_MS);
  g_bus_unwatch_name (watch);

  reply = g_dbus_connection_call_sync (bus, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress",
                                       NULL, G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                       BUS_DEADLINE_MS, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(&s)", &address);
  /* GTK here and libatspi in the walker both take the address from here
   * before any display property a launcher of another session left. */
  g_setenv ("AT_SPI_BUS_ADDRESS", address, TRUE);
}

static void
stop_accessibility_bus (void)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_send_signal (bus_launcher, SIGTERM);
  g_subprocess_wait (bus_launcher, NULL, &error);
  g_assert_no_error (error);
  g_clear_object (&bus_launcher);
  /* GTK keeps its connection to the bus to the end: the bus stops without
   * waiting for it (disposing of @session_bus would wait). */
  g_test_dbus_stop (session_bus);
}

int
main (int    argc,
      char **argv)
{
  int status;

  /* This test is about the accessibility bus: an environment that turned
   * GTK's off would make it meaningless. */
  g_unsetenv ("GTK_A11Y");
  g_unsetenv ("NO_AT_BRIDGE");
  start_accessibility_bus ();

  application = zot_test_gui_init (&argc, &argv);

  g_test_add ("/zot/gui/a11y/every-control-named", Fixture, NULL, fixture_setup, test_every_control_named,
              fixture_teardown);
  g_test_add ("/zot/gui/a11y/other-windows-named", Fixture, NULL, fixture_setup, test_other_windows_named,
              fixture_teardown);
  g_test_add ("/zot/gui/a11y/keyboard-reaches", Fixture, NULL, fixture_setup, test_keyboard_reaches,
              fixture_teardown);
  g_test_add ("/zot/gui/a11y/tab-cycle", Fixture, NULL, fixture_setup, test_tab_cycle, fixture_teardown);
  g_test_add ("/zot/gui/a11y/tab-completes", Fixture, NULL, fixture_setup, test_tab_completes,
              fixture_teardown);
  g_test_add ("/zot/gui/a11y/prompt-scrolls", Fixture, NULL, fixture_setup, test_prompt_scrolls,
              fixture_teardown);
  g_test_add ("/zot/gui/a11y/shortcuts-window", Fixture, NULL, fixture_setup, test_shortcuts_window,
              fixture_teardown);

  status = g_test_run ();
  g_clear_object (&application);
  stop_accessibility_bus ();
  return status;
}
