/* test-gui-prompt-editor.c — the prompt editor under a display: Enter
 * sends and clears, Shift+Enter breaks the line, Up and Down walk the
 * history, Esc cancels, the busy button stops, and "/" completes the
 * host's commands (built-in and a fake extension's) case-insensitively.
 * Keys go through _zot_prompt_editor_handle_key(), the function the key
 * controller calls. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <adwaita.h>

#include "zot-host.h"
#include "zot-prompt-editor.h"
#include "zot-prompt-editor-private.h"
#include "zot-gui-test-util.h"
#include "zot-test-util.h"

typedef struct
{
  ZotTestEnv       env;
  ZotHost         *host;
  GtkWidget       *window;
  ZotPromptEditor *editor;
  GPtrArray       *submitted;
  guint            cancelled;
} Fixture;

static void
iterate (void)
{
  for (guint i = 0; i < 20 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

static void
on_submit (ZotPromptEditor *editor,
           const char      *text,
           Fixture         *f)
{
  g_autofree char *now = zot_prompt_editor_get_text (editor);

  /* Already cleared when it is announced. */
  g_assert_cmpstr (now, ==, "");
  g_ptr_array_add (f->submitted, g_strdup (text));
}

static void
on_cancel (ZotPromptEditor *editor,
           Fixture         *f)
{
  f->cancelled++;
}

static gboolean
widget_mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  zot_test_env_setup (&f->env);
  f->submitted = g_ptr_array_new_with_free_func (g_free);

  f->editor = ZOT_PROMPT_EDITOR (zot_prompt_editor_new ());
  g_signal_connect (f->editor, "submit", G_CALLBACK (on_submit), f);
  g_signal_connect (f->editor, "cancel", G_CALLBACK (on_cancel), f);

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 600, 200);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->editor));
  gtk_window_present (GTK_WINDOW (f->window));
  gtk_widget_grab_focus (GTK_WIDGET (f->editor));
  /* A popover cannot be shown over a window the X server has not mapped
   * yet, which under load takes more than a few idle turns. */
  zot_test_wait_until (widget_mapped, f->window, 10000);
  iterate ();
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
start_host (Fixture            *f,
            const char * const *paths)
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

  /* Set before loading, as the window does: commands-changed fills it. */
  zot_prompt_editor_set_host (f->editor, f->host);

  zot_host_load_async (f->host, NULL, load_cb, &done);
  zot_test_wait_for (&done, 30000);
  iterate ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_object_add_weak_pointer (G_OBJECT (f->editor), (gpointer *) &f->editor);
  gtk_window_destroy (GTK_WINDOW (f->window));
  iterate ();
  g_assert_null (f->editor);

  zot_test_finalize_host (&f->host);

  g_clear_pointer (&f->submitted, g_ptr_array_unref);
  zot_test_env_teardown (&f->env);
}

/* Typing: text inserted at the cursor, as the text view does. */
static void
type (Fixture    *f,
      const char *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (_zot_prompt_editor_get_text_view (f->editor));

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      char c[8] = { 0 };

      g_unichar_to_utf8 (g_utf8_get_char (p), c);
      gtk_text_buffer_begin_user_action (buffer);
      gtk_text_buffer_insert_interactive_at_cursor (buffer, c, -1, TRUE);
      gtk_text_buffer_end_user_action (buffer);
    }
  iterate ();
}

static void
cursor_to_start (Fixture *f)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (_zot_prompt_editor_get_text_view (f->editor));
  GtkTextIter start;

  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
}

static gboolean
key (Fixture         *f,
     guint            keyval,
     GdkModifierType  state)
{
  gboolean handled = _zot_prompt_editor_handle_key (f->editor, keyval, state);

  iterate ();
  return handled;
}

static char *
text (Fixture *f)
{
  return zot_prompt_editor_get_text (f->editor);
}

#define assert_text(f, expected) \
  G_STMT_START { \
    g_autofree char *_text = text (f); \
    g_assert_cmpstr (_text, ==, (expected)); \
  } G_STMT_END

static gboolean
popover_visible (Fixture *f)
{
  return gtk_widget_get_visible (GTK_WIDGET (_zot_prompt_editor_get_completion_popover (f->editor)));
}

static gboolean
strv_has (GStrv        strv,
          const char  *name)
{
  return g_strv_contains ((const char * const *) strv, name);
}

/* Tests */

static void
test_new_destroy (void)
{
  ZotPromptEditor *editor = ZOT_PROMPT_EDITOR (g_object_ref_sink (zot_prompt_editor_new ()));
  g_autofree char *contents = NULL;

  zot_prompt_editor_set_text (editor, "text");
  contents = zot_prompt_editor_get_text (editor);
  g_assert_cmpstr (contents, ==, "text");
  zot_prompt_editor_set_host (editor, NULL);
  g_assert_finalize_object (editor);
}

static void
test_submit (Fixture       *f,
             gconstpointer  data)
{
  GtkWidget *placeholder;

  type (f, "hello there");
  assert_text (f, "hello there");
  g_assert_true (key (f, GDK_KEY_Return, 0));

  g_assert_cmpuint (f->submitted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 0), ==, "hello there");
  assert_text (f, "");

  /* Nothing to send: nothing sent. */
  type (f, "   ");
  g_assert_true (key (f, GDK_KEY_KP_Enter, 0));
  g_assert_cmpuint (f->submitted->len, ==, 1);
  zot_prompt_editor_set_text (f->editor, "");

  /* The hint shows only while the editor is empty. */
  placeholder = gtk_widget_get_last_child (gtk_widget_get_parent (
    gtk_widget_get_parent (GTK_WIDGET (_zot_prompt_editor_get_text_view (f->editor)))));
  g_assert_true (GTK_IS_LABEL (placeholder));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (placeholder)), ==, "Message, or / for commands");
  g_assert_true (gtk_widget_get_visible (placeholder));
  type (f, "x");
  g_assert_false (gtk_widget_get_visible (placeholder));

  /* insert puts text at the cursor. */
  zot_prompt_editor_set_text (f->editor, "ab");
  zot_prompt_editor_insert (f->editor, "CD");
  assert_text (f, "abCD");
}

static void
test_shift_enter (Fixture       *f,
                  gconstpointer  data)
{
  type (f, "line one");
  g_assert_true (key (f, GDK_KEY_Return, GDK_SHIFT_MASK));
  type (f, "line two");
  assert_text (f, "line one\nline two");
  g_assert_cmpuint (f->submitted->len, ==, 0);

  g_assert_true (key (f, GDK_KEY_Return, 0));
  g_assert_cmpuint (f->submitted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 0), ==, "line one\nline two");
}

static void
test_history (Fixture       *f,
              gconstpointer  data)
{
  /* Nothing to recall yet: Up is the text view's. */
  g_assert_false (key (f, GDK_KEY_Up, 0));

  type (f, "first");
  key (f, GDK_KEY_Return, 0);
  type (f, "second\nmore");
  key (f, GDK_KEY_Return, 0);
  g_assert_cmpuint (f->submitted->len, ==, 2);

  type (f, "draft");
  g_assert_true (key (f, GDK_KEY_Up, 0));
  assert_text (f, "second\nmore");

  /* The cursor is on the last line of a two-line entry: Up moves it. */
  g_assert_false (key (f, GDK_KEY_Up, 0));
  cursor_to_start (f);
  g_assert_true (key (f, GDK_KEY_Up, 0));
  assert_text (f, "first");
  /* The oldest stays. */
  g_assert_true (key (f, GDK_KEY_Up, 0));
  assert_text (f, "first");

  g_assert_true (key (f, GDK_KEY_Down, 0));
  assert_text (f, "second\nmore");
  g_assert_true (key (f, GDK_KEY_Down, 0));
  assert_text (f, "draft");
  /* Past the newest, Down is the text view's again. */
  g_assert_false (key (f, GDK_KEY_Down, 0));

  /* A recalled entry can be sent again. */
  key (f, GDK_KEY_Up, 0);
  cursor_to_start (f);
  key (f, GDK_KEY_Up, 0);
  assert_text (f, "first");
  key (f, GDK_KEY_Return, 0);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 2), ==, "first");
}

static void
on_busy_notify (GObject    *object,
                GParamSpec *pspec,
                guint      *count)
{
  (*count)++;
}

static void
test_cancel_and_busy (Fixture       *f,
                      gconstpointer  data)
{
  GtkWidget *button;
  guint notifies = 0;

  g_assert_true (key (f, GDK_KEY_Escape, 0));
  g_assert_cmpuint (f->cancelled, ==, 1);

  /* The editor holds the attachments, then the text and this button. */
  button = gtk_widget_get_last_child (gtk_widget_get_last_child (gtk_widget_get_first_child (GTK_WIDGET (f->editor))));
  g_assert_true (GTK_IS_BUTTON (button));
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (button)), ==, "go-up-symbolic");

  g_signal_connect (f->editor, "notify::busy", G_CALLBACK (on_busy_notify), &notifies);
  g_object_set (f->editor, "busy", TRUE, NULL);
  zot_prompt_editor_set_busy (f->editor, TRUE);
  g_assert_cmpuint (notifies, ==, 1);
  g_assert_true (zot_prompt_editor_get_busy (f->editor));
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (button)), ==, "media-playback-stop-symbolic");

  /* While busy the button stops the run. */
  type (f, "queued");
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (f->cancelled, ==, 2);
  assert_text (f, "queued");
  g_assert_cmpuint (f->submitted->len, ==, 0);

  zot_prompt_editor_set_busy (f->editor, FALSE);
  g_assert_cmpuint (notifies, ==, 2);
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpuint (f->submitted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 0), ==, "queued");
}

static void
test_completion (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *ext = zot_test_make_fake_args (f->env.root, "todos", "--command", "Todo", NULL);
  g_auto(GStrv) all = NULL;
  g_auto(GStrv) filtered = NULL;
  g_autofree char *selected = NULL;

  start_host (f, (const char * const []) { ext, NULL });

  /* Not a command: no list. */
  type (f, "hello /");
  g_assert_false (popover_visible (f));
  zot_prompt_editor_set_text (f->editor, "");

  type (f, "/");
  g_assert_true (popover_visible (f));
  all = _zot_prompt_editor_dup_completions (f->editor);
  g_assert_true (strv_has (all, "new"));
  g_assert_true (strv_has (all, "help"));
  g_assert_true (strv_has (all, "quit"));
  g_assert_true (strv_has (all, "Todo"));

  /* Rows show the description and where the command comes from. */
  {
    GtkWidget *popover = GTK_WIDGET (_zot_prompt_editor_get_completion_popover (f->editor));
    gboolean found_extension = FALSE;
    gboolean found_builtin = FALSE;
    GPtrArray *stack = g_ptr_array_new ();

    g_ptr_array_add (stack, popover);
    while (stack->len > 0)
      {
        GtkWidget *widget = g_ptr_array_steal_index (stack, stack->len - 1);

        if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "command-source"))
          {
            found_extension |= g_str_equal (gtk_label_get_text (GTK_LABEL (widget)), "todos");
            found_builtin |= g_str_equal (gtk_label_get_text (GTK_LABEL (widget)), "built-in");
          }
        for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
          g_ptr_array_add (stack, child);
      }
    g_ptr_array_unref (stack);
    g_assert_true (found_extension);
    g_assert_true (found_builtin);
  }

  /* Arrow keys move the selection, wrapping; they do not walk the history. */
  selected = _zot_prompt_editor_dup_selected_completion (f->editor);
  g_assert_cmpstr (selected, ==, all[0]);
  g_clear_pointer (&selected, g_free);
  g_assert_true (key (f, GDK_KEY_Down, 0));
  selected = _zot_prompt_editor_dup_selected_completion (f->editor);
  g_assert_cmpstr (selected, ==, all[1]);
  g_clear_pointer (&selected, g_free);
  key (f, GDK_KEY_Up, 0);
  key (f, GDK_KEY_Up, 0);
  selected = _zot_prompt_editor_dup_selected_completion (f->editor);
  g_assert_cmpstr (selected, ==, all[g_strv_length (all) - 1]);
  g_clear_pointer (&selected, g_free);

  /* Case-insensitive prefix match. */
  type (f, "tO");
  filtered = _zot_prompt_editor_dup_completions (f->editor);
  g_assert_cmpuint (g_strv_length (filtered), ==, 1);
  g_assert_cmpstr (filtered[0], ==, "Todo");
  g_assert_true (popover_visible (f));

  /* Enter inserts the registered spelling and closes, without sending. */
  g_assert_true (key (f, GDK_KEY_Return, 0));
  assert_text (f, "/Todo ");
  g_assert_false (popover_visible (f));
  g_assert_cmpuint (f->submitted->len, ==, 0);

  /* Past the command word, no list; Enter sends. */
  type (f, "buy milk");
  g_assert_false (popover_visible (f));
  key (f, GDK_KEY_Return, 0);
  g_assert_cmpuint (f->submitted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 0), ==, "/Todo buy milk");

  /* Tab completes too; in the middle of a line the rest is kept. */
  zot_prompt_editor_set_text (f->editor, " tail");
  cursor_to_start (f);
  type (f, "/HE");
  g_assert_true (popover_visible (f));
  g_assert_true (key (f, GDK_KEY_Tab, 0));
  assert_text (f, "/help tail");

  /* Esc closes the list and does not cancel; no match, no list. */
  zot_prompt_editor_set_text (f->editor, "");
  type (f, "/q");
  g_assert_true (popover_visible (f));
  g_assert_true (key (f, GDK_KEY_Escape, 0));
  g_assert_false (popover_visible (f));
  g_assert_cmpuint (f->cancelled, ==, 0);
  type (f, "zz");
  g_assert_false (popover_visible (f));

  /* Setting the text does not open it. */
  zot_prompt_editor_set_text (f->editor, "/to");
  g_assert_false (popover_visible (f));
}

static gboolean
completions_have_late (gpointer data)
{
  Fixture *f = data;
  g_auto(GStrv) names = _zot_prompt_editor_dup_completions (f->editor);

  return strv_has (names, "LateOne");
}

static void
test_commands_changed (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *ext = zot_test_make_fake_args (f->env.root, "later",
                                                  "--register-after-ready", "LateOne", NULL);

  start_host (f, (const char * const []) { ext, NULL });

  /* Open the list, then let the late registration arrive. */
  type (f, "/l");
  zot_test_wait_until (completions_have_late, f, 10000);
  g_assert_true (popover_visible (f));
  key (f, GDK_KEY_Return, 0);
  assert_text (f, "/LateOne ");
}

/* Attached images */

static void
on_attach_failed (ZotPromptEditor *editor,
                  const char      *message,
                  GPtrArray       *failures)
{
  g_ptr_array_add (failures, g_strdup (message));
}

static gboolean
nothing_loading (gpointer editor)
{
  return zot_prompt_editor_get_n_loading (editor) == 0;
}

static GdkTexture *
small_texture (void)
{
  static const guint8 pixels[] = {
    0xff, 0x00, 0x00, 0xff,   0x00, 0xff, 0x00, 0xff,
    0x00, 0x00, 0xff, 0xff,   0xff, 0xff, 0xff, 0xff,
  };
  g_autoptr(GBytes) bytes = g_bytes_new_static (pixels, sizeof pixels);

  return gdk_memory_texture_new (2, 2, GDK_MEMORY_R8G8B8A8, bytes, 8);
}

static GFile *
write_file (Fixture    *f,
            const char *name,
            GBytes     *contents)
{
  g_autofree char *path = g_build_filename (f->env.root, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, g_bytes_get_data (contents, NULL), (gssize) g_bytes_get_size (contents), &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static gboolean
has_failure (GPtrArray  *failures,
             const char *needle)
{
  for (guint i = 0; i < failures->len; i++)
    if (strstr (g_ptr_array_index (failures, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

/* Images are read in the background and shown above the text; what is not
 * an image, or too big (refused before reading), is named in
 * ::attach-failed; images alone make a message; removing one drops it. */
static void
test_attachments (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GPtrArray) failures = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GdkTexture) texture = small_texture ();
  g_autoptr(GBytes) png = gdk_texture_save_to_png_bytes (texture);
  g_autoptr(GBytes) text = g_bytes_new_static ("not an image", 12);
  g_autoptr(GFile) image = write_file (f, "shot.png", png);
  g_autoptr(GFile) notes = write_file (f, "notes.png", text);
  g_autoptr(GFile) big = write_file (f, "big.png", png);
  g_autoptr(GFile) missing = g_file_new_build_filename (f->env.root, "gone.png", NULL);
  g_autoptr(JsonArray) images = NULL;
  g_autofree char *big_path = g_file_get_path (big);
  GtkWidget *flow;
  GtkWidget *chip;
  GtkWidget *remove;

  /* Sparse: its size is over the limit, its blocks are not. */
  g_assert_cmpint (truncate (big_path, (off_t) ZOT_READ_IMAGE_MAX_BYTES + 1), ==, 0);
  g_signal_connect (f->editor, "attach-failed", G_CALLBACK (on_attach_failed), failures);

  zot_prompt_editor_attach_file (f->editor, image);
  zot_prompt_editor_attach_file (f->editor, notes);
  zot_prompt_editor_attach_file (f->editor, big);
  zot_prompt_editor_attach_file (f->editor, missing);
  g_assert_cmpuint (zot_prompt_editor_get_n_loading (f->editor), ==, 4);
  zot_test_wait_until (nothing_loading, f->editor, 10000);

  g_assert_cmpuint (zot_prompt_editor_get_n_images (f->editor), ==, 1);
  g_assert_cmpuint (failures->len, ==, 3);
  g_assert_true (has_failure (failures, "notes.png is not a PNG, JPEG, GIF or WebP image"));
  g_assert_true (has_failure (failures, "big.png is 5.0 MiB; an image can be at most 5 MiB"));
  g_assert_true (has_failure (failures, "gone.png could not be read"));

  /* Pixels dropped from elsewhere come as a PNG. */
  g_assert_true (zot_prompt_editor_attach_texture (f->editor, texture));
  g_assert_cmpuint (zot_prompt_editor_get_n_images (f->editor), ==, 2);

  /* The remove button of the second drops it. */
  flow = zot_test_find_widget (GTK_WIDGET (f->editor), GTK_TYPE_FLOW_BOX, NULL);
  g_assert_nonnull (flow);
  g_assert_true (gtk_widget_get_visible (flow));
  chip = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (gtk_widget_get_last_child (flow)));
  remove = gtk_widget_get_last_child (chip);
  g_assert_true (GTK_IS_BUTTON (remove));
  g_signal_emit_by_name (remove, "clicked");
  g_assert_cmpuint (zot_prompt_editor_get_n_images (f->editor), ==, 1);

  /* No text: the image alone is a message. */
  g_assert_true (_zot_prompt_editor_handle_key (f->editor, GDK_KEY_Return, 0));
  g_assert_cmpuint (f->submitted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 0), ==, "");

  images = zot_prompt_editor_take_images (f->editor);
  g_assert_nonnull (images);
  g_assert_cmpuint (json_array_get_length (images), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (images, 0), "mime_type"),
                   ==, "image/png");
  g_assert_cmpuint (zot_prompt_editor_get_n_images (f->editor), ==, 0);
  g_assert_null (zot_prompt_editor_take_images (f->editor));
  g_assert_false (gtk_widget_get_visible (flow));

  /* Nothing at all is not a message. */
  g_assert_true (_zot_prompt_editor_handle_key (f->editor, GDK_KEY_Return, 0));
  g_assert_cmpuint (f->submitted->len, ==, 1);
}

static gboolean
editor_has_text (gpointer editor)
{
  g_autofree char *text = zot_prompt_editor_get_text (editor);

  return *text != '\0';
}

/* An image on the clipboard is attached on paste; text still pastes. */
static void
test_paste_image (Fixture       *f,
                  gconstpointer  data)
{
  GtkTextView *text_view = _zot_prompt_editor_get_text_view (f->editor);
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (text_view));
  g_autoptr(GdkTexture) texture = small_texture ();
  g_autofree char *text = NULL;

  gdk_clipboard_set_texture (clipboard, texture);
  g_signal_emit_by_name (text_view, "paste-clipboard");
  zot_test_wait_until (nothing_loading, f->editor, 10000);
  g_assert_cmpuint (zot_prompt_editor_get_n_images (f->editor), ==, 1);
  text = zot_prompt_editor_get_text (f->editor);
  g_assert_cmpstr (text, ==, "");
  g_clear_pointer (&text, g_free);

  gdk_clipboard_set_text (clipboard, "some words");
  g_signal_emit_by_name (text_view, "paste-clipboard");
  zot_test_wait_until (editor_has_text, f->editor, 10000);
  text = zot_prompt_editor_get_text (f->editor);
  g_assert_cmpstr (text, ==, "some words");
  g_assert_cmpuint (zot_prompt_editor_get_n_images (f->editor), ==, 1);
}

static GtkWrapMode
wrap_mode (Fixture *f)
{
  return gtk_text_view_get_wrap_mode (_zot_prompt_editor_get_text_view (f->editor));
}

static void
cursor_to (Fixture *f,
           int      offset)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (_zot_prompt_editor_get_text_view (f->editor));
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_offset (buffer, &iter, offset);
  gtk_text_buffer_place_cursor (buffer, &iter);
}

/* Text that Pango 1.50 cannot wrap by word and character as it is
 * (zot-wrap-safe.h): the editor keeps and sends exactly what was typed,
 * and wraps by character while such a cluster is in it. */
static void
test_degenerate_clusters (Fixture       *f,
                          gconstpointer  data)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (_zot_prompt_editor_get_text_view (f->editor));
  GtkTextIter start;
  GtkTextIter end;

  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_WORD_CHAR);
  type (f, "Y\u063F \u032DR");
  assert_text (f, "Y\u063F \u032DR");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (GTK_WIDGET (f->editor));

  /* A base typed before the mark: nothing left to avoid. */
  cursor_to (f, 3);
  type (f, "x");
  assert_text (f, "Y\u063F x\u032DR");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_WORD_CHAR);

  /* A space typed between a letter and its mark, then taken back. */
  cursor_to (f, 4);
  type (f, " ");
  assert_text (f, "Y\u063F x \u032DR");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_CHAR);
  gtk_text_buffer_get_iter_at_offset (buffer, &start, 4);
  gtk_text_buffer_get_iter_at_offset (buffer, &end, 5);
  gtk_text_buffer_delete_interactive (buffer, &start, &end, TRUE);
  assert_text (f, "Y\u063F x\u032DR");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_WORD_CHAR);

  /* Deleting the base makes the mark an orphan again. */
  gtk_text_buffer_get_iter_at_offset (buffer, &start, 3);
  gtk_text_buffer_get_iter_at_offset (buffer, &end, 4);
  gtk_text_buffer_delete_interactive (buffer, &start, &end, TRUE);
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (GTK_WIDGET (f->editor));
  g_assert_true (key (f, GDK_KEY_Return, 0));
  g_assert_cmpuint (f->submitted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 0), ==, "Y\u063F \u032DR");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_WORD_CHAR);

  /* A format character after a space, typed and sent as it is. */
  type (f, "a\u06E7 \u200D\u06A1");
  assert_text (f, "a\u06E7 \u200D\u06A1");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (GTK_WIDGET (f->editor));
  g_assert_true (key (f, GDK_KEY_Return, 0));
  g_assert_cmpuint (f->submitted->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->submitted, 1), ==, "a\u06E7 \u200D\u06A1");

  /* Set whole, as a draft or a pasted text is: a mark at the start. */
  zot_prompt_editor_set_text (f->editor, "\u0301x\nfine");
  assert_text (f, "\u0301x\nfine");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_CHAR);
  zot_test_measure_narrowest (GTK_WIDGET (f->editor));
  zot_prompt_editor_set_text (f->editor, "e\u0301 \u0928\u092E\u0938\u094D\u0924\u0947");
  g_assert_cmpint (wrap_mode (f), ==, GTK_WRAP_WORD_CHAR);
}

static void
add_test (const char *path,
          void      (*func) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  zot_test_gui_tolerate_relayout_warning ();
  adw_init ();

  g_test_add_func ("/zot/gui/prompt-editor/new-destroy", test_new_destroy);
  add_test ("/zot/gui/prompt-editor/submit", test_submit);
  add_test ("/zot/gui/prompt-editor/shift-enter", test_shift_enter);
  add_test ("/zot/gui/prompt-editor/history", test_history);
  add_test ("/zot/gui/prompt-editor/cancel-busy", test_cancel_and_busy);
  add_test ("/zot/gui/prompt-editor/completion", test_completion);
  add_test ("/zot/gui/prompt-editor/commands-changed", test_commands_changed);
  add_test ("/zot/gui/prompt-editor/attachments", test_attachments);
  add_test ("/zot/gui/prompt-editor/paste-image", test_paste_image);
  add_test ("/zot/gui/prompt-editor/degenerate-clusters", test_degenerate_clusters);

  return g_test_run ();
}
