/* test-gui-window.c — the whole window under a display: it opens with the
 * demo model, stays responsive while an extension hangs, offers Stop while
 * the agent runs, and closes with the extensions shut down gracefully. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "zot-application.h"
#include "zot-host-private.h"
#include "zot-options.h"
#include "zot-gui-test-util.h"
#include "zot-prompt-editor.h"
#include "zot-prompt-editor-private.h"
#include "zot-session.h"
#include "zot-window-private.h"
#include "zot-test-util.h"
#include "zot-window.h"

typedef struct
{
  ZotTestEnv      env;
  ZotApplication *app;
  ZotWindow      *window;
} Fixture;

/* One application for the whole program: GApplication registers once. */
static ZotApplication *application;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_gui_env_setup (&f->env);

  f->app = application;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  f->app = NULL;
  zot_test_env_teardown (&f->env);
}

static gboolean
window_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (data));
}

/* A window with the demo model and the extensions at @paths, starting
 * (reading the keyring) but not yet shown. */
static void
new_window (Fixture            *f,
            const char * const *paths,
            int                 yolo)
{
  g_auto(ZotHostOptions) options = { 0 };

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.no_session = TRUE;
  options.interactive = TRUE;

  f->window = ZOT_WINDOW (zot_window_new (f->app, &options, yolo));
}

static void
open_window (Fixture            *f,
             const char * const *paths)
{
  new_window (f, paths, -1);
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (zot_test_extensions_ready, f->window, 20000);
  zot_test_wait_until (window_mapped, f->window, 20000);
}

/* The same, on the session file @session_path. */
static void
open_window_on_session (Fixture            *f,
                        const char * const *paths,
                        const char         *session_path)
{
  g_auto(ZotHostOptions) options = { 0 };

  options.cwd = g_strdup (f->env.cwd);
  options.ext_paths = g_strdupv ((char **) paths);
  options.provider.name = g_strdup ("demo");
  options.session_path = g_strdup (session_path);
  options.interactive = TRUE;

  f->window = ZOT_WINDOW (zot_window_new (f->app, &options, TRUE));
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (zot_test_extensions_ready, f->window, 20000);
  /* Laid out and on screen before a test acts on it: a busy machine may
   * take a while, and GTK warns about snapshots of unallocated panes. */
  zot_test_wait_until (window_mapped, f->window, 20000);
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static void
close_window (Fixture *f)
{
  gpointer weak = f->window;

  g_object_add_weak_pointer (weak, &weak);
  gtk_window_close (GTK_WINDOW (f->window));
  zot_test_wait_until (window_gone, &weak, 20000);
  f->window = NULL;
}

/* A label that says @needle and is on screen: one that is set but hidden
 * (or in a page not shown) does not count. */
static gboolean
find_label (GtkWidget  *widget,
            const char *needle)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), needle) != NULL)
    return TRUE;
  if (ADW_IS_WINDOW_TITLE (widget) &&
      strstr (adw_window_title_get_subtitle (ADW_WINDOW_TITLE (widget)), needle) != NULL)
    return TRUE;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (find_label (child, needle))
      return TRUE;
  return FALSE;
}

typedef struct
{
  Fixture    *f;
  const char *needle;
} LabelWait;

static gboolean
label_shown (gpointer data)
{
  LabelWait *wait = data;

  return find_label (GTK_WIDGET (wait->f->window), wait->needle);
}

static void
wait_for_label (Fixture    *f,
                const char *needle)
{
  LabelWait wait = { f, needle };

  zot_test_wait_until (label_shown, &wait, 10000);
}

/* Windows share one style sheet per display: the one the first window
 * added, loaded from the resource. */
static void
test_style_once_per_display (Fixture       *f,
                             gconstpointer  data)
{
  GdkDisplay *display = gdk_display_get_default ();
  GtkStyleProvider *style = _zot_window_ensure_style (display);
  g_autofree char *css = NULL;

  new_window (f, NULL, -1);
  g_assert_true (_zot_window_ensure_style (gtk_widget_get_display (GTK_WIDGET (f->window))) == style);
  css = gtk_css_provider_to_string (GTK_CSS_PROVIDER (style));
  g_assert_nonnull (strstr (css, ".message-user"));
}

static gboolean
has_host (gpointer data)
{
  return zot_window_get_host (data) != NULL;
}

/* Every view in the window follows the window's host, set once it is
 * made: those about extensions its manager, the usage label its agent. */
static void
test_views_follow_host (Fixture       *f,
                        gconstpointer  data)
{
  GObject *views_of_host[3], *views_of_manager[3];
  g_autoptr(ZotHost) host = NULL;
  ZotExtensionManager *manager;

  new_window (f, NULL, -1);
  views_of_host[0] = G_OBJECT (f->window->transcript);
  views_of_host[1] = G_OBJECT (f->window->prompt_editor);
  views_of_host[2] = G_OBJECT (f->window->extensions_page);
  views_of_manager[0] = G_OBJECT (f->window->panel_pane);
  views_of_manager[1] = G_OBJECT (f->window->notes_view);
  views_of_manager[2] = G_OBJECT (f->window->inspector);

  zot_test_wait_until (has_host, f->window, 20000);
  g_object_get (f->window, "host", &host, NULL);
  g_assert_true (host == zot_window_get_host (f->window));
  manager = zot_host_get_manager (host);

  for (guint i = 0; i < G_N_ELEMENTS (views_of_host); i++)
    {
      g_autoptr(ZotHost) view_host = NULL;

      g_object_get (views_of_host[i], "host", &view_host, NULL);
      g_assert_true (view_host == host);
    }
  for (guint i = 0; i < G_N_ELEMENTS (views_of_manager); i++)
    {
      g_autoptr(ZotExtensionManager) view_manager = NULL;

      g_object_get (views_of_manager[i], "manager", &view_manager, NULL);
      g_assert_true (view_manager == manager);
    }
  {
    g_autoptr(ZotAgent) agent = NULL;

    g_object_get (f->window->usage_label, "agent", &agent, NULL);
    g_assert_true (agent == zot_host_get_agent (host));
  }
}

/* The auto-compact setting reaches the agent, at once when it changes. */
static void
test_auto_compact_setting (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  ZotAgent *agent;

  g_settings_set_uint (settings, "auto-compact", 70);
  new_window (f, NULL, -1);
  zot_test_wait_until (has_host, f->window, 20000);
  agent = zot_host_get_agent (zot_window_get_host (f->window));
  g_assert_cmpuint (zot_agent_get_auto_compact (agent), ==, 70);

  g_settings_set_uint (settings, "auto-compact", 0);
  g_assert_cmpuint (zot_agent_get_auto_compact (agent), ==, 0);
  g_settings_reset (settings, "auto-compact");
  g_assert_cmpuint (zot_agent_get_auto_compact (agent), ==, 85);
}

/* The max-retries setting reaches the provider at the start and on each
 * change, until the window is gone. */
static void
test_max_retries_setting (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  ZotAgent *agent;

  g_settings_set_int (settings, "max-retries", 2);
  new_window (f, NULL, -1);
  zot_test_wait_until (has_host, f->window, 20000);
  agent = zot_host_get_agent (zot_window_get_host (f->window));
  g_assert_cmpuint (zot_provider_get_max_retries (zot_agent_get_provider (agent)), ==, 2);

  g_settings_set_int (settings, "max-retries", 0);
  g_assert_cmpuint (zot_provider_get_max_retries (zot_agent_get_provider (agent)), ==, 0);
  g_settings_reset (settings, "max-retries");
  g_assert_cmpuint (zot_provider_get_max_retries (zot_agent_get_provider (agent)), ==,
                    ZOT_PROVIDER_MAX_RETRIES);
}

static void
test_opens_with_demo (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "hello", "--command", "hi", NULL);
  const char *paths[] = { dir, NULL };

  open_window (f, paths);
  zot_test_wait_until (window_mapped, f->window, 20000);
  /* It says plainly that the model is the demo: on screen, once the
   * window has laid itself out. */
  wait_for_label (f, "demo model");
  g_assert_true (find_label (GTK_WIDGET (f->window), "demo · demo"));

  /* A model chosen in Preferences shows in the title at once, not at the
   * next reply. */
  g_assert_true (zot_host_set_model (zot_window_get_host (f->window), NULL, "demo-2", NULL));
  g_assert_true (find_label (GTK_WIDGET (f->window), "demo · demo-2"));
  close_window (f);
}

typedef struct
{
  guint    ticks;
  gboolean done;
} Ticker;

/* Enough turns of the main loop to tell a loop that keeps turning from
 * one held in a blocking wait, which gives none until the wait ends. */
#define HANGING_TICKS 20

static gboolean
tick_cb (gpointer data)
{
  ((Ticker *) data)->ticks++;
  return G_SOURCE_CONTINUE;
}

static gboolean
ticked_or_done (gpointer data)
{
  Ticker *ticker = data;

  return ticker->ticks >= HANGING_TICKS || ticker->done;
}

static void
submitted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Ticker *ticker = user_data;

  zot_host_submit_finish (ZOT_HOST (object), result, NULL, NULL);
  ticker->done = TRUE;
}

static void
test_responsive_while_hanging (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "stuck", "--command", "wait", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Ticker ticker = { 0 };
  guint id;

  /* The deadline stays far off: the loop must turn while the command
   * waits, however slowly a loaded machine turns it. */
  _zot_timeout_override_for_testing (ZOT_TIMEOUT_COMMAND, 120000);
  open_window (f, paths);

  /* The extension never answers: the main loop keeps turning (and
   * drawing) while the command waits for it. */
  id = g_timeout_add (10, tick_cb, &ticker);
  zot_host_submit_async (zot_window_get_host (f->window), "/wait hang", cancellable, submitted_cb, &ticker);
  zot_test_wait_until (ticked_or_done, &ticker, 60000);
  g_assert_false (ticker.done);
  g_assert_cmpuint (ticker.ticks, >=, HANGING_TICKS);

  /* And the wait ends when it is given up. */
  g_cancellable_cancel (cancellable);
  zot_test_wait_for (&ticker.done, 20000);
  g_source_remove (id);
  close_window (f);
}

static void
test_close_shuts_down (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *record = g_build_filename (f->env.root, "closing.jsonl", NULL);
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "closing", "--record", record, NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) frames = NULL;

  open_window (f, paths);
  close_window (f);

  /* The extension heard `shutdown`, after the session's end. */
  frames = zot_test_read_frames (record);
  g_assert_nonnull (zot_test_find_frame (frames, "shutdown"));
}

typedef struct
{
  ZotPromptEditor *editor;
  const char      *text;
} EditorWait;

static gboolean
editor_says (gpointer data)
{
  EditorWait *wait = data;
  g_autofree char *text = zot_prompt_editor_get_text (wait->editor);

  return g_strcmp0 (text, wait->text) == 0;
}

/* What a command typed in the window answers: a `display` shows in the
 * transcript, an `insert` lands in the editor. */
static void
test_command_replies (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "hello", "--command", "hi", NULL);
  const char *paths[] = { dir, NULL };
  ZotPromptEditor *editor;
  EditorWait wait;

  open_window (f, paths);
  editor = ZOT_PROMPT_EDITOR (zot_test_find_widget (GTK_WIDGET (f->window),
                                                    ZOT_TYPE_PROMPT_EDITOR, NULL));

  zot_prompt_editor_set_text (editor, "/hi display shown in the window");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  wait_for_label (f, "shown in the window");

  zot_prompt_editor_set_text (editor, "/hi insert typed for you");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  wait = (EditorWait) { editor, "typed for you" };
  zot_test_wait_until (editor_says, &wait, 10000);
  g_assert_false (find_label (GTK_WIDGET (f->window), "typed for you"));

  close_window (f);
}

static gboolean
nothing_loading (gpointer editor)
{
  return zot_prompt_editor_get_n_loading (editor) == 0;
}

static gboolean
image_in_transcript (gpointer window)
{
  return zot_test_find_widget (window, GTK_TYPE_PICTURE, "message-image") != NULL;
}

/* The message dialog the install flow opens over @window, if any. */
static gpointer
install_dialog_shown (gpointer window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) && gtk_window_get_transient_for (toplevel) == window &&
          gtk_widget_get_visible (GTK_WIDGET (toplevel)))
        return toplevel;
    }
  return NULL;
}

static gboolean
install_dialog_is_shown (gpointer window)
{
  return install_dialog_shown (window) != NULL;
}

static gboolean
agent_idle (gpointer window)
{
  return !zot_agent_is_running (zot_host_get_agent (zot_window_get_host (window)));
}

/* An image dropped on the window goes to the prompt, leaves with the next
 * message, and shows in the transcript; a command does not take it. */
static void
test_drop_image (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "hello", "--command", "hi", NULL);
  const char *paths[] = { dir, NULL };
  static const guint8 pixels[] = { 0x20, 0x40, 0x80, 0xff };
  g_autoptr(GBytes) pixel_bytes = g_bytes_new_static (pixels, sizeof pixels);
  g_autoptr(GdkTexture) texture = gdk_memory_texture_new (1, 1, GDK_MEMORY_R8G8B8A8, pixel_bytes, 4);
  g_autofree char *path = g_build_filename (f->env.root, "photo.png", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GSList files = { file, NULL };
  g_autofree char *folder_path = g_build_filename (f->env.root, "someext", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (folder_path);
  GSList folder_link = { folder, NULL };
  GSList mixed = { file, &folder_link };
  AdwMessageDialog *dialog;
  ZotPromptEditor *editor;
  GPtrArray *messages;
  JsonObject *sent;

  g_assert_true (gdk_texture_save_to_png (texture, path));
  open_window (f, paths);
  editor = ZOT_PROMPT_EDITOR (zot_test_find_widget (GTK_WIDGET (f->window), ZOT_TYPE_PROMPT_EDITOR, NULL));

  g_assert_true (zot_window_open_files (f->window, &files));
  zot_test_wait_until (nothing_loading, editor, 10000);
  g_assert_cmpuint (zot_prompt_editor_get_n_images (editor), ==, 1);

  zot_prompt_editor_set_text (editor, "what is in it?");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  zot_test_wait_until (image_in_transcript, f->window, 20000);
  zot_test_wait_until (agent_idle, f->window, 20000);
  g_assert_cmpuint (zot_prompt_editor_get_n_images (editor), ==, 0);

  messages = zot_agent_get_messages (zot_host_get_agent (zot_window_get_host (f->window)));
  sent = g_ptr_array_index (messages, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (sent, "content")), ==, 2);

  /* A command leaves the image for the next message. */
  g_assert_true (zot_window_open_files (f->window, &files));
  zot_test_wait_until (nothing_loading, editor, 10000);
  zot_prompt_editor_set_text (editor, "/help");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  zot_test_wait_until (agent_idle, f->window, 20000);
  g_assert_cmpuint (zot_prompt_editor_get_n_images (editor), ==, 1);

  /* With a folder among them, the folder is what the drop is about: an
   * empty folder is no extension, so it is offered to open as a project,
   * and no image is attached. */
  g_assert_cmpint (g_mkdir (folder_path, 0700), ==, 0);
  g_assert_true (zot_window_open_files (f->window, &mixed));
  g_assert_cmpuint (zot_prompt_editor_get_n_loading (editor), ==, 0);
  g_assert_cmpuint (zot_prompt_editor_get_n_images (editor), ==, 1);
  zot_test_wait_until (install_dialog_is_shown, f->window, 20000);
  dialog = install_dialog_shown (f->window);
  g_assert_true (adw_message_dialog_has_response (dialog, "open"));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "someext"));
  gtk_window_destroy (GTK_WINDOW (dialog));

  close_window (f);
}

static gboolean
editor_idle (gpointer editor)
{
  return !zot_prompt_editor_get_busy (editor);
}

static void
prompt_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autofree char *text = zot_agent_prompt_finish (ZOT_AGENT (object), result, NULL);

  *(gboolean *) user_data = TRUE;
}

/* The editor follows the agent's running property: a run the window did
 * not start (an extension's prompt, say) still offers Stop, and the end
 * of a run takes it away. */
static void
test_busy_follows_agent (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "hello", "--command", "hi", NULL);
  const char *paths[] = { dir, NULL };
  ZotPromptEditor *editor;
  ZotAgent *agent;
  gboolean done = FALSE;

  open_window (f, paths);
  editor = ZOT_PROMPT_EDITOR (zot_test_find_widget (GTK_WIDGET (f->window), ZOT_TYPE_PROMPT_EDITOR, NULL));
  agent = zot_host_get_agent (zot_window_get_host (f->window));
  g_assert_false (zot_prompt_editor_get_busy (editor));

  zot_agent_prompt_async (agent, "from elsewhere", NULL, prompt_done_cb, &done);
  g_assert_true (zot_agent_is_running (agent));
  g_assert_true (zot_prompt_editor_get_busy (editor));
  zot_test_wait_for (&done, 20000);
  g_assert_false (zot_prompt_editor_get_busy (editor));

  /* A line from the editor: busy at once, idle when it is handled. */
  zot_prompt_editor_set_text (editor, "hello");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  g_assert_true (zot_prompt_editor_get_busy (editor));
  zot_test_wait_until (editor_idle, editor, 20000);
  g_assert_false (zot_agent_is_running (agent));

  close_window (f);
}

/* The header bar's button for @action_name. */
static GtkWidget *
find_action_button (GtkWidget  *widget,
                    const char *action_name)
{
  if (GTK_IS_BUTTON (widget) &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action_name) == 0)
    return widget;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_action_button (child, action_name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
policy_is_yolo (gpointer window)
{
  ZotExtensionManager *manager = zot_host_get_manager (zot_window_get_host (window));

  return zot_extension_manager_get_policy (manager) == ZOT_APPROVAL_POLICY_YOLO;
}

static gboolean
policy_is_ask (gpointer window)
{
  return !policy_is_yolo (window);
}

/* An extension's submit and submit_slash, as if the user typed them */

static void
keep_prompt_submit (ZotExtensionManager *manager,
                    const char          *name,
                    JsonObject          *payload,
                    GPtrArray           *submitted)
{
  if (g_str_equal (name, "user_prompt_submit"))
    g_ptr_array_add (submitted, json_object_ref (payload));
}

static gboolean
two_submitted_and_idle (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  GPtrArray *submitted = ((gpointer *) data)[1];

  return submitted->len >= 2 && agent_idle (f->window);
}

/* A submit that comes while the agent is busy waits (user_prompt_submit
 * says queued) and runs after; a second one meanwhile is refused with a
 * log line. submit_slash runs an extension command, never /yolo or /new. */
static void
test_extension_submits (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "pusher", "--command", "hi",
    "--register-json", "{\"type\":\"register_tool\",\"name\":\"nudge\",\"schema\":{}}", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) submitted = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  gpointer wait[2] = { f, submitted };
  ZotExtensionManager *manager;
  ZotPromptEditor *editor;
  ZotSession *session;
  g_autofree char *log = NULL;
  JsonObject *queued;

  new_window (f, paths, TRUE);
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (zot_test_extensions_ready, f->window, 20000);
  zot_test_wait_until (window_mapped, f->window, 20000);
  manager = zot_host_get_manager (zot_window_get_host (f->window));
  editor = ZOT_PROMPT_EDITOR (zot_test_find_widget (GTK_WIDGET (f->window), ZOT_TYPE_PROMPT_EDITOR, NULL));
  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (keep_prompt_submit), submitted);

  zot_prompt_editor_set_text (editor, "tool: nudge {\"reply\":\"nudged\",\"send\":"
                                      "\"{\\\"type\\\":\\\"submit\\\",\\\"text\\\":\\\"from the extension\\\"}\\n"
                                      "{\\\"type\\\":\\\"submit\\\",\\\"text\\\":\\\"too many\\\"}\"}");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  zot_test_wait_until (two_submitted_and_idle, wait, 30000);
  wait_for_label (f, "You said: from the extension");
  g_assert_cmpuint (submitted->len, ==, 2);
  queued = g_ptr_array_index (submitted, 1);
  g_assert_cmpstr (json_object_get_string_member (queued, "text"), ==, "from the extension");
  g_assert_true (json_object_get_boolean_member (queued, "queued"));

  /* An extension command runs; built-in ones do not. */
  session = zot_agent_get_session (zot_host_get_agent (zot_window_get_host (f->window)));
  zot_prompt_editor_set_text (editor, "/hi send {\"type\":\"submit_slash\",\"text\":\"/yolo\"}");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  zot_prompt_editor_set_text (editor, "/hi send {\"type\":\"submit_slash\",\"text\":\"/new\"}");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  zot_prompt_editor_set_text (editor, "/hi send {\"type\":\"submit_slash\",\"text\":\"/hi display ran for the extension\"}");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  wait_for_label (f, "ran for the extension");
  g_assert_true (policy_is_yolo (f->window));
  g_assert_true (session == zot_agent_get_session (zot_host_get_agent (zot_window_get_host (f->window))));

  log = zot_test_read_file (zot_extension_get_log_path (zot_extension_manager_find (manager, "pusher")));
  g_assert_cmpuint (zot_test_count (log, "submit refused"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /yolo refused"), ==, 1);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /new refused"), ==, 1);

  g_signal_handlers_disconnect_by_data (manager, submitted);
  close_window (f);
}

typedef struct
{
  Fixture    *f;
  GPtrArray  *submitted;
  const char *log_path;
} Burst;

/* Every frame of the burst is handled: refused, or its prompt submitted;
 * and the runs are over. */
static gboolean
burst_handled (gpointer data)
{
  Burst *burst = data;
  g_autofree char *log = zot_test_read_file (burst->log_path);
  guint refused = zot_test_count (log, "submit_slash /hi refused");

  return refused + burst->submitted->len >= 50 && burst->submitted->len > 0 && agent_idle (burst->f->window);
}

/* A burst of submit_slash to the extension's own command, which answers
 * with a prompt, submits one prompt, not one each: the rest are refused
 * while it is pending; once its run is over the next one is taken. */
static void
test_extension_submit_slash_burst (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "burster", "--command", "hi", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GPtrArray) submitted = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  ZotExtensionManager *manager;
  ZotPromptEditor *editor;
  g_autofree char *log_path = NULL;
  g_autofree char *log = NULL;
  Burst burst = { f, submitted, NULL };

  new_window (f, paths, TRUE);
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (zot_test_extensions_ready, f->window, 20000);
  zot_test_wait_until (window_mapped, f->window, 20000);
  manager = zot_host_get_manager (zot_window_get_host (f->window));
  log_path = g_strdup (zot_extension_get_log_path (zot_extension_manager_find (manager, "burster")));
  burst.log_path = log_path;
  editor = ZOT_PROMPT_EDITOR (zot_test_find_widget (GTK_WIDGET (f->window), ZOT_TYPE_PROMPT_EDITOR, NULL));
  g_signal_connect (manager, "lifecycle-event", G_CALLBACK (keep_prompt_submit), submitted);

  zot_prompt_editor_set_text (editor, "/hi repeat 50 {\"type\":\"submit_slash\",\"text\":\"/hi prompt burst\"}");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  zot_test_wait_until (burst_handled, &burst, 30000);
  wait_for_label (f, "You said: burst");
  g_assert_cmpuint (submitted->len, ==, 1);
  log = zot_test_read_file (log_path);
  g_assert_cmpuint (zot_test_count (log, "submit_slash /hi refused: the prompt or command it submitted "
                                         "before is not done yet (one at a time)"), ==, 49);

  zot_prompt_editor_set_text (editor, "/hi send {\"type\":\"submit_slash\",\"text\":\"/hi display taken again\"}");
  g_assert_true (_zot_prompt_editor_handle_key (editor, GDK_KEY_Return, 0));
  wait_for_label (f, "taken again");

  g_signal_handlers_disconnect_by_data (manager, submitted);
  close_window (f);
}

/* The window's actions wait for the host; then the menu, the shortcuts
 * and the host's window commands all reach them. */
static void
test_actions (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *dir = zot_test_make_fake_args (f->env.root, "hello", "--command", "hi", NULL);
  const char *paths[] = { dir, NULL };
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  GtkWidget *new_button;

  /* Before the keyring has answered there is no host to act on. With
   * --no-yolo, whatever the preference says, it starts asking. */
  new_window (f, paths, 0);
  g_assert_null (zot_window_get_host (f->window));
  new_button = find_action_button (GTK_WIDGET (f->window), "win.new-conversation");
  g_assert_nonnull (new_button);
  g_assert_false (gtk_widget_get_sensitive (new_button));

  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (zot_test_extensions_ready, f->window, 20000);
  zot_test_wait_until (window_mapped, f->window, 20000);
  g_assert_true (gtk_widget_get_sensitive (new_button));

  /* The menu's toggle, and its preference. */
  g_assert_true (policy_is_ask (f->window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.yolo", NULL));
  g_assert_true (policy_is_yolo (f->window));
  g_assert_cmpint (g_settings_get_enum (settings, "approval-policy"), ==, ZOT_APPROVAL_POLICY_YOLO);

  /* The same action, by the host's /yolo command. */
  zot_host_submit_async (zot_window_get_host (f->window), "/yolo", NULL, NULL, NULL);
  zot_test_wait_until (policy_is_ask, f->window, 20000);
  g_assert_cmpint (g_settings_get_enum (settings, "approval-policy"), ==, ZOT_APPROVAL_POLICY_ASK);

  /* The window follows the manager's policy property, whoever sets it. */
  zot_extension_manager_set_policy (zot_host_get_manager (zot_window_get_host (f->window)),
                                    ZOT_APPROVAL_POLICY_YOLO);
  g_assert_cmpint (g_settings_get_enum (settings, "approval-policy"), ==, ZOT_APPROVAL_POLICY_YOLO);

  close_window (f);
}

/* /quit is the window's close action, which the host names from its
 * table of built-in commands. */
static void
test_quit_command (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *ext = zot_test_make_fake_args (f->env.root, "ok", NULL);
  gpointer weak;

  g_assert_cmpstr (zot_host_get_command_action ("Quit"), ==, "window.close");
  g_assert_cmpstr (zot_host_get_command_action ("settings"), ==, "win.preferences");
  g_assert_null (zot_host_get_command_action ("help"));

  open_window (f, (const char * const []) { ext, NULL });
  weak = f->window;
  g_object_add_weak_pointer (weak, &weak);
  zot_host_submit_async (zot_window_get_host (f->window), "/quit", NULL, NULL, NULL);
  zot_test_wait_until (window_gone, &weak, 20000);
  f->window = NULL;
}

static gboolean
is_mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

/* The window tests' one tolerated GTK warning (see zot-gui-test-util.c),
 * raised by GTK itself, is printed and not fatal; any other warning still
 * ends the test. */
static void
test_tolerated_warning (void)
{
  if (g_test_subprocess ())
    {
      GtkWidget *window = gtk_window_new ();
      GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
      g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
      g_autoptr(GskRenderNode) node = NULL;

      gtk_window_set_child (GTK_WINDOW (window), paned);
      gtk_window_present (GTK_WINDOW (window));
      zot_test_wait_until (is_mapped, paned, 20000);

      gtk_widget_queue_resize (paned);
      gtk_widget_snapshot_child (window, paned, snapshot);
      node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));

      if (g_strcmp0 (g_getenv ("ZOT_TEST_OTHER_WARNING"), "1") == 0)
        g_warning ("Trying to snapshot nothing at all");
      gtk_window_destroy (GTK_WINDOW (window));
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*Trying to snapshot GtkPaned * without a current allocation*");

  g_setenv ("ZOT_TEST_OTHER_WARNING", "1", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("ZOT_TEST_OTHER_WARNING");
  g_test_trap_assert_failed ();
}

static gboolean
step_finished (gpointer data)
{
  ZotHost *host = zot_window_get_host (data);
  gboolean running;

  g_object_get (zot_host_get_agent (host), "running", &running, NULL);
  return !running && !zot_agent_has_pending_step (zot_host_get_agent (host));
}

/* A continuous conversation stopped in the middle of a step opens with a
 * bar that offers to finish it, and runs nothing until asked. */
static void
test_resume_step (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *ext = zot_test_make_fake_args (f->env.root, "ok", NULL);
  g_autofree char *path = g_build_filename (f->env.root, "stopped.jsonl", NULL);
  g_autofree char *made = g_build_filename (f->env.cwd, "made", NULL);
  const char *text =
    "{\"type\":\"session\",\"version\":1,\"id\":\"c1\",\"cwd\":\"/\",\"created\":\"2026-01-01T00:00:00Z\","
    "\"mode\":\"continuous\"}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"go\"}]}}\n"
    "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
    "\"id\":\"toolu_b\",\"name\":\"bash\",\"input\":{\"command\":\"touch made\"}}]}}\n"
    "{\"type\":\"task\",\"event\":\"started\",\"id\":\"toolu_b\",\"tool\":\"bash\","
    "\"args\":{\"command\":\"touch made\"},\"effective_args\":{\"command\":\"touch made\"}}\n";
  GtkRevealer *bar;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  open_window_on_session (f, (const char * const []) { ext, NULL }, path);
  bar = GTK_REVEALER (gtk_widget_get_template_child (GTK_WIDGET (f->window), ZOT_TYPE_WINDOW, "resume_bar"));
  g_assert_nonnull (bar);
  g_assert_true (gtk_revealer_get_reveal_child (bar));
  g_assert_true (zot_agent_has_pending_step (zot_host_get_agent (zot_window_get_host (f->window))));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.resume-step", NULL));
  zot_test_wait_until (step_finished, f->window, 30000);
  g_assert_false (gtk_revealer_get_reveal_child (bar));
  /* bash may not run twice: interrupted, never run again. */
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  close_window (f);
}

static gboolean
durable_offered (gpointer data)
{
  g_autoptr(GPtrArray) frames = zot_test_read_frames (data);
  guint acks = 0;

  for (guint i = 0; i < frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (frames, i);
      JsonArray *caps;

      if (!g_str_equal (json_object_get_string_member_with_default (frame, "type", ""), "hello_ack"))
        continue;
      acks++;
      caps = json_object_get_array_member (frame, "capabilities");
      for (guint j = 0; acks > 1 && j < json_array_get_length (caps); j++)
        if (g_str_equal (json_array_get_string_element (caps, j), "call_tool_durable"))
          return TRUE;
    }
  return FALSE;
}

static gboolean
wake_up (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* A new continuous conversation: its header says so, and the extensions
 * restart so that their hello_ack offers call_tool_durable. */
static void
test_new_continuous (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *record = g_build_filename (f->env.root, "ok.jsonl", NULL);
  g_autofree char *ext = zot_test_make_fake_args (f->env.root, "ok", "--record", record, NULL);
  g_autofree char *path = g_build_filename (f->env.root, "plain.jsonl", NULL);
  ZotHost *host;
  guint tick;

  open_window_on_session (f, (const char * const []) { ext, NULL }, path);
  host = zot_window_get_host (f->window);
  g_assert_false (zot_extension_manager_get_continuous (zot_host_get_manager (host)));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.new-continuous-conversation", NULL));
  g_assert_true (zot_session_get_continuous (zot_agent_get_session (zot_host_get_agent (host))));
  g_assert_true (zot_extension_manager_get_continuous (zot_host_get_manager (host)));
  /* The record file changes in another process: look now and then. */
  tick = g_timeout_add (20, wake_up, NULL);
  zot_test_wait_until (durable_offered, record, 30000);
  g_source_remove (tick);
  close_window (f);
}

/* The window honours what a terminal run does: its copy of the options
 * once dropped --continuous, --reasoning and where the key came from. */
static void
test_command_line_options (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *key_file = g_build_filename (f->env.root, "key.txt", NULL);
  g_autofree char *session = g_build_filename (f->env.root, "continuous.jsonl", NULL);
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_auto(ZotOptions) options = { 0 };
  g_auto(ZotHostOptions) host_options = { 0 };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = g_strdupv ((char **) (const char * const []) {
    "zot", "--provider", "demo", "--continuous", "--reasoning", "high", "--api-key-file", key_file,
    "--session", session, NULL });
  ZotHost *host;

  g_assert_true (g_file_set_contents (key_file, "sk-from-file\n", -1, NULL));
  zot_options_init (&options);
  zot_options_add_entries (&options, context);
  g_assert_true (zot_options_parse (context, &args, &error));
  g_assert_true (zot_options_check (&options, &error));
  g_assert_no_error (error);
  zot_options_to_host (&options, f->env.cwd, TRUE, &host_options);

  f->window = ZOT_WINDOW (zot_window_new (f->app, &host_options, -1));
  gtk_window_present (GTK_WINDOW (f->window));
  zot_test_wait_until (has_host, f->window, 20000);
  zot_test_wait_until (window_mapped, f->window, 20000);

  host = zot_window_get_host (f->window);
  g_assert_true (host->options.continuous);
  g_assert_true (zot_session_get_continuous (zot_agent_get_session (zot_host_get_agent (host))));
  g_assert_cmpint (zot_provider_get_reasoning (zot_agent_get_provider (zot_host_get_agent (host))), ==,
                   ZOT_REASONING_HIGH);
  g_assert_cmpstr (host->options.provider.api_key, ==, "sk-from-file");
  g_assert_cmpstr (host->options.provider.api_key_source, ==, "--api-key-file");
  close_window (f);
}

int
main (int    argc,
      char **argv)
{
  application = zot_test_gui_init (&argc, &argv);

  g_test_add ("/zot/gui/window/style-once-per-display", Fixture, NULL, fixture_setup,
              test_style_once_per_display, fixture_teardown);
  g_test_add ("/zot/gui/window/views-follow-host", Fixture, NULL, fixture_setup,
              test_views_follow_host, fixture_teardown);
  g_test_add ("/zot/gui/window/auto-compact-setting", Fixture, NULL, fixture_setup, test_auto_compact_setting,
              fixture_teardown);
  g_test_add ("/zot/gui/window/opens-with-demo", Fixture, NULL, fixture_setup, test_opens_with_demo, fixture_teardown);
  g_test_add ("/zot/gui/window/max-retries-setting", Fixture, NULL, fixture_setup,
              test_max_retries_setting, fixture_teardown);
  g_test_add ("/zot/gui/window/responsive-while-hanging", Fixture, NULL, fixture_setup,
              test_responsive_while_hanging, fixture_teardown);
  g_test_add ("/zot/gui/window/command-replies", Fixture, NULL, fixture_setup, test_command_replies,
              fixture_teardown);
  g_test_add ("/zot/gui/window/close-shuts-down", Fixture, NULL, fixture_setup, test_close_shuts_down, fixture_teardown);
  g_test_add ("/zot/gui/window/drop-image", Fixture, NULL, fixture_setup, test_drop_image, fixture_teardown);
  g_test_add ("/zot/gui/window/busy-follows-agent", Fixture, NULL, fixture_setup, test_busy_follows_agent,
              fixture_teardown);
  g_test_add ("/zot/gui/window/actions", Fixture, NULL, fixture_setup, test_actions, fixture_teardown);
  g_test_add ("/zot/gui/window/extension-submits", Fixture, NULL, fixture_setup, test_extension_submits,
              fixture_teardown);
  g_test_add ("/zot/gui/window/extension-submit-slash-burst", Fixture, NULL, fixture_setup,
              test_extension_submit_slash_burst, fixture_teardown);
  g_test_add ("/zot/gui/window/resume-step", Fixture, NULL, fixture_setup, test_resume_step, fixture_teardown);
  g_test_add ("/zot/gui/window/new-continuous", Fixture, NULL, fixture_setup, test_new_continuous,
              fixture_teardown);
  g_test_add ("/zot/gui/window/quit-command", Fixture, NULL, fixture_setup, test_quit_command, fixture_teardown);
  g_test_add ("/zot/gui/window/command-line-options", Fixture, NULL, fixture_setup, test_command_line_options,
              fixture_teardown);
  g_test_add_func ("/zot/gui/window/tolerated-warning", test_tolerated_warning);

  return g_test_run ();
}
