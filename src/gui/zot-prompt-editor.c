/* zot-prompt-editor.c — where the user writes.
 *
 * The key handling lives in _zot_prompt_editor_handle_key(), which the
 * text view's capture-phase key controller calls, so that tests can drive
 * it without synthesizing events. The command list comes from the
 * extension manager and is refreshed on ::commands-changed; this widget
 * only completes names, the host decides what a line means.
 */
#define G_LOG_DOMAIN "zot-prompt-editor"

#include "config.h"

#include <glib/gi18n.h>

#include "zot-image-bounds.h"
#include "zot-message.h"
#include "zot-prompt-editor.h"
#include "zot-prompt-editor-private.h"
#include "zot-tooltip.h"
#include "zot-wrap-safe-gtk.h"

#define MAX_HISTORY 200

struct _ZotPromptEditor
{
  GtkWidget          parent_instance;

  GtkBox            *outer;
  GtkFlowBox        *attachments;
  GtkBox            *box;
  GtkScrolledWindow *scrolled_window;
  GtkTextView       *text_view;
  GtkTextBuffer     *buffer;
  GtkLabel          *placeholder_label;
  GtkButton         *send_button;
  GtkPopover        *completion_popover;
  GtkListBox        *completion_list;

  ZotHost           *host;
  GSignalGroup      *manager_signals;
  GPtrArray         *commands;        /* ZotCommandInfo */

  GCancellable      *cancellable;     /* image loads */
  guint              n_loading;

  GPtrArray         *history;         /* oldest first */
  int                history_index;   /* -1 while not walking the history */
  char              *draft;           /* the text before the walk began */

  guint              busy : 1;
  guint              quiet : 1;       /* the editor itself is changing the text */
};

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

enum {
  SUBMIT,
  CANCEL,
  ATTACH_FAILED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotPromptEditor, zot_prompt_editor, GTK_TYPE_WIDGET)

/* Text */

static void
set_text_quietly (ZotPromptEditor *self,
                  const char      *text)
{
  GtkTextIter end;

  self->quiet = TRUE;
  gtk_text_buffer_set_text (self->buffer, text ? text : "", -1);
  gtk_text_buffer_get_end_iter (self->buffer, &end);
  gtk_text_buffer_place_cursor (self->buffer, &end);
  self->quiet = FALSE;

  gtk_text_view_scroll_mark_onscreen (self->text_view, gtk_text_buffer_get_insert (self->buffer));
}

static void
get_cursor (ZotPromptEditor *self,
            GtkTextIter     *iter)
{
  gtk_text_buffer_get_iter_at_mark (self->buffer, iter, gtk_text_buffer_get_insert (self->buffer));
}

static gboolean
cursor_on_first_line (ZotPromptEditor *self)
{
  GtkTextIter cursor;

  get_cursor (self, &cursor);
  return gtk_text_iter_get_line (&cursor) == 0;
}

static gboolean
cursor_on_last_line (ZotPromptEditor *self)
{
  GtkTextIter cursor;

  get_cursor (self, &cursor);
  return gtk_text_iter_get_line (&cursor) == gtk_text_buffer_get_line_count (self->buffer) - 1;
}

static void
update_placeholder (ZotPromptEditor *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label),
                          gtk_text_buffer_get_char_count (self->buffer) == 0);
}

/* History */

static void
history_add (ZotPromptEditor *self,
             const char      *text)
{
  guint n = self->history->len;

  if (n > 0 && g_str_equal (g_ptr_array_index (self->history, n - 1), text))
    return;

  g_ptr_array_add (self->history, g_strdup (text));
  if (self->history->len > MAX_HISTORY)
    g_ptr_array_remove_index (self->history, 0);
}

static gboolean
history_previous (ZotPromptEditor *self)
{
  if (self->history->len == 0)
    return FALSE;

  if (self->history_index < 0)
    {
      g_free (self->draft);
      self->draft = zot_prompt_editor_get_text (self);
      self->history_index = (int) self->history->len - 1;
    }
  else if (self->history_index > 0)
    self->history_index--;
  else
    return TRUE;

  set_text_quietly (self, g_ptr_array_index (self->history, self->history_index));
  return TRUE;
}

static gboolean
history_next (ZotPromptEditor *self)
{
  if (self->history_index < 0)
    return FALSE;

  if (self->history_index + 1 < (int) self->history->len)
    {
      self->history_index++;
      set_text_quietly (self, g_ptr_array_index (self->history, self->history_index));
    }
  else
    {
      g_autofree char *draft = g_steal_pointer (&self->draft);

      self->history_index = -1;
      set_text_quietly (self, draft);
    }

  return TRUE;
}

/* Completion */

static gboolean
completion_visible (ZotPromptEditor *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->completion_popover));
}

static void
hide_completion (ZotPromptEditor *self)
{
  if (completion_visible (self))
    gtk_popover_popdown (self->completion_popover);
}

/* The end of the first word, when the text starts with "/". */
static gboolean
get_command_word (ZotPromptEditor *self,
                  GtkTextIter     *start,
                  GtkTextIter     *word_end)
{
  gtk_text_buffer_get_start_iter (self->buffer, start);
  if (gtk_text_iter_get_char (start) != '/')
    return FALSE;

  *word_end = *start;
  gtk_text_iter_forward_char (word_end);
  while (!gtk_text_iter_is_end (word_end) && !g_unichar_isspace (gtk_text_iter_get_char (word_end)))
    gtk_text_iter_forward_char (word_end);

  return TRUE;
}

/* What was typed of the command name, when the cursor is in it. */
static char *
get_completion_prefix (ZotPromptEditor *self)
{
  GtkTextIter start, word_end, cursor;

  if (!get_command_word (self, &start, &word_end))
    return NULL;

  get_cursor (self, &cursor);
  if (gtk_text_iter_get_offset (&cursor) < 1 ||
      gtk_text_iter_compare (&cursor, &word_end) > 0)
    return NULL;

  gtk_text_iter_forward_char (&start);
  return gtk_text_buffer_get_text (self->buffer, &start, &cursor, FALSE);
}

static GtkWidget *
completion_row_new (ZotCommandInfo *info)
{
  g_autofree char *title = g_strconcat ("/", info->name, NULL);
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *name = gtk_label_new (title);
  GtkWidget *description = gtk_label_new (info->description ? info->description : "");
  GtkWidget *source;

  gtk_label_set_xalign (GTK_LABEL (name), 0.0);
  gtk_widget_add_css_class (name, "heading");
  gtk_widget_add_css_class (name, "command-name");
  gtk_box_append (GTK_BOX (box), name);

  gtk_label_set_xalign (GTK_LABEL (description), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (description), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (description), 40);
  gtk_widget_set_hexpand (description, TRUE);
  gtk_widget_add_css_class (description, "dim-label");
  gtk_widget_add_css_class (description, "command-description");
  gtk_box_append (GTK_BOX (box), description);

  source = gtk_label_new (info->extension != NULL ? zot_extension_get_name (info->extension)
                                                  /* Translators: a command's source: the app,
                                                   * not an extension */
                                                  : _("built-in"));
  gtk_label_set_xalign (GTK_LABEL (source), 1.0);
  gtk_widget_add_css_class (source, "caption");
  gtk_widget_add_css_class (source, "dim-label");
  gtk_widget_add_css_class (source, "command-source");
  gtk_box_append (GTK_BOX (box), source);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_widget_set_focusable (row, FALSE);
  g_object_set_data_full (G_OBJECT (row), "zot-command", g_strdup (info->name), g_free);

  return row;
}

static void
clear_completion_rows (ZotPromptEditor *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->completion_list))) != NULL)
    gtk_list_box_remove (self->completion_list, child);
}

static void
update_completion (ZotPromptEditor *self)
{
  g_autofree char *prefix = get_completion_prefix (self);
  g_autofree char *folded = NULL;
  GtkListBoxRow *first;
  guint n_matches = 0;

  if (prefix == NULL || self->commands == NULL)
    {
      hide_completion (self);
      return;
    }

  folded = g_utf8_casefold (prefix, -1);
  clear_completion_rows (self);

  for (guint i = 0; i < self->commands->len; i++)
    {
      ZotCommandInfo *info = g_ptr_array_index (self->commands, i);
      g_autofree char *name = g_utf8_casefold (info->name, -1);

      if (!g_str_has_prefix (name, folded))
        continue;

      gtk_list_box_append (self->completion_list, completion_row_new (info));
      n_matches++;
    }

  if (n_matches == 0)
    {
      hide_completion (self);
      return;
    }

  first = gtk_list_box_get_row_at_index (self->completion_list, 0);
  gtk_list_box_select_row (self->completion_list, first);

  if (!completion_visible (self))
    gtk_popover_popup (self->completion_popover);
}

static void
scroll_to_row (ZotPromptEditor *self,
               GtkListBoxRow   *row)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (self->completion_list),
                                                 GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adjustment;
  graphene_rect_t bounds;
  double value, page;

  if (scroller == NULL ||
      !gtk_widget_compute_bounds (GTK_WIDGET (row), GTK_WIDGET (self->completion_list), &bounds))
    return;

  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  value = gtk_adjustment_get_value (adjustment);
  page = gtk_adjustment_get_page_size (adjustment);

  if (bounds.origin.y < value)
    gtk_adjustment_set_value (adjustment, bounds.origin.y);
  else if (bounds.origin.y + bounds.size.height > value + page)
    gtk_adjustment_set_value (adjustment, bounds.origin.y + bounds.size.height - page);
}

static void
move_selection (ZotPromptEditor *self,
                int              delta)
{
  GtkListBoxRow *selected = gtk_list_box_get_selected_row (self->completion_list);
  GtkListBoxRow *row;
  int n = 0;
  int index;

  while (gtk_list_box_get_row_at_index (self->completion_list, n) != NULL)
    n++;
  if (n == 0)
    return;

  index = selected != NULL ? gtk_list_box_row_get_index (selected) : -1;
  /* Wraps around, like most completion lists. */
  index = ((index + delta) % n + n) % n;

  row = gtk_list_box_get_row_at_index (self->completion_list, index);
  gtk_list_box_select_row (self->completion_list, row);
  scroll_to_row (self, row);
}

static void
accept_completion (ZotPromptEditor *self,
                   GtkListBoxRow   *row)
{
  const char *name;
  g_autofree char *replacement = NULL;
  GtkTextIter start, word_end;

  if (row == NULL)
    {
      hide_completion (self);
      return;
    }

  name = g_object_get_data (G_OBJECT (row), "zot-command");
  if (name == NULL || !get_command_word (self, &start, &word_end))
    {
      hide_completion (self);
      return;
    }

  replacement = g_strconcat ("/", name, NULL);

  self->quiet = TRUE;
  gtk_text_buffer_begin_user_action (self->buffer);
  gtk_text_buffer_delete (self->buffer, &start, &word_end);
  gtk_text_buffer_insert (self->buffer, &start, replacement, -1);
  if (gtk_text_iter_get_char (&start) == ' ')
    gtk_text_iter_forward_char (&start);
  else
    gtk_text_buffer_insert (self->buffer, &start, " ", 1);
  gtk_text_buffer_place_cursor (self->buffer, &start);
  gtk_text_buffer_end_user_action (self->buffer);
  self->quiet = FALSE;

  hide_completion (self);
}

static void
refresh_commands (ZotPromptEditor *self)
{
  g_clear_pointer (&self->commands, g_ptr_array_unref);

  if (self->host != NULL)
    self->commands = zot_extension_manager_list_commands (zot_host_get_manager (self->host));

  /* A command that arrives while its name is being typed shows up. */
  if (completion_visible (self) || gtk_widget_is_focus (GTK_WIDGET (self->text_view)))
    {
      g_autofree char *prefix = get_completion_prefix (self);

      if (prefix != NULL)
        update_completion (self);
    }
}

/* Attached images */

typedef struct
{
  ZotPromptEditor *self;
  GFile           *file;
  char            *name;
} Attach;

static void
attach_free (Attach *attach)
{
  g_clear_object (&attach->self);
  g_clear_object (&attach->file);
  g_free (attach->name);
  g_free (attach);
}

static void
update_attachments (ZotPromptEditor *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->attachments), zot_prompt_editor_get_n_images (self) > 0);
}

static void
on_remove_attachment_clicked_cb (GtkButton *button,
                                 GtkWidget *chip)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (gtk_widget_get_ancestor (chip, ZOT_TYPE_PROMPT_EDITOR));

  gtk_flow_box_remove (self->attachments, gtk_widget_get_parent (chip));
  update_attachments (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

/* A thumbnail, the name and a remove button; the chip keeps the block. */
static void
add_chip (ZotPromptEditor *self,
          JsonObject      *block,
          GBytes          *bytes,
          const char      *name)
{
  g_autoptr(GdkTexture) texture = zot_image_texture_new (bytes, NULL);
  GtkWidget *chip = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *thumbnail;
  GtkWidget *label = gtk_label_new (name);
  GtkWidget *remove = gtk_button_new_from_icon_name ("window-close-symbolic");
  /* Translators: the name screen readers give the button that removes an attached image; %s is
   * the image's name */
  g_autofree char *remove_label = g_strdup_printf (_("Remove %s"), name);

  /* GTK may not decode every format a provider takes (WebP): an icon then. */
  if (texture != NULL)
    {
      thumbnail = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
      gtk_picture_set_content_fit (GTK_PICTURE (thumbnail), GTK_CONTENT_FIT_COVER);
    }
  else
    thumbnail = gtk_image_new_from_icon_name ("image-x-generic-symbolic");
  gtk_widget_set_size_request (thumbnail, 32, 32);
  gtk_widget_add_css_class (thumbnail, "attachment-thumbnail");

  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 24);

  zot_tooltip_set (remove, remove_label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_label, -1);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_add_css_class (remove, "circular");
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_attachment_clicked_cb), chip);

  gtk_widget_add_css_class (chip, "attachment");
  gtk_widget_set_halign (chip, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (chip), thumbnail);
  gtk_box_append (GTK_BOX (chip), label);
  gtk_box_append (GTK_BOX (chip), remove);
  g_object_set_data_full (G_OBJECT (chip), "zot-image-block", json_object_ref (block),
                          (GDestroyNotify) json_object_unref);

  gtk_flow_box_append (self->attachments, chip);
  update_attachments (self);
}

static gboolean
attach_bytes (ZotPromptEditor *self,
              GBytes          *bytes,
              const char      *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) block = zot_image_block_new (bytes, name, &error);

  if (block == NULL)
    {
      g_signal_emit (self, signals [ATTACH_FAILED], 0, error->message);
      return FALSE;
    }

  add_chip (self, block, bytes, name);
  return TRUE;
}

static void
attach_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Attach *attach = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_file_load_bytes_finish (G_FILE (object), result, NULL, &error);

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      attach->self->n_loading--;
      if (bytes == NULL)
        {
          /* Translators: %s is the name of an attached image, then the system's error message */
          g_autofree char *message = g_strdup_printf (_("%s could not be read: %s"), attach->name, error->message);

          g_signal_emit (attach->self, signals [ATTACH_FAILED], 0, message);
        }
      else
        attach_bytes (attach->self, bytes, attach->name);
    }

  attach_free (attach);
}

static void
attach_info_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Attach *attach = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      attach_free (attach);
      return;
    }

  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_autofree char *message = info == NULL
        /* Translators: %s is the name of an attached image, then the system's error message */
        ? g_strdup_printf (_("%s could not be read: %s"), attach->name, error->message)
        /* Translators: %s is the name of an attached file */
        : g_strdup_printf (_("%s is not a file"), attach->name);

      attach->self->n_loading--;
      g_signal_emit (attach->self, signals [ATTACH_FAILED], 0, message);
      attach_free (attach);
      return;
    }

  /* Refused before reading: a huge file never enters memory. */
  if (!zot_image_check_size (g_file_info_get_size (info), attach->name, &error))
    {
      attach->self->n_loading--;
      g_signal_emit (attach->self, signals [ATTACH_FAILED], 0, error->message);
      attach_free (attach);
      return;
    }

  g_file_load_bytes_async (attach->file, attach->self->cancellable, attach_loaded_cb, attach);
}

/**
 * zot_prompt_editor_attach_file:
 * @file: an image file
 *
 * Reads @file in the background and shows it above the text, to go with
 * the next message; ::attach-failed says why when it is not a PNG, JPEG,
 * GIF or WebP image of at most %ZOT_READ_IMAGE_MAX_BYTES.
 */
void
zot_prompt_editor_attach_file (ZotPromptEditor *self,
                               GFile           *file)
{
  Attach *attach;

  g_return_if_fail (ZOT_IS_PROMPT_EDITOR (self));
  g_return_if_fail (G_IS_FILE (file));

  attach = g_new0 (Attach, 1);
  attach->self = g_object_ref (self);
  attach->file = g_object_ref (file);
  attach->name = g_file_get_basename (file);
  self->n_loading++;
  g_file_query_info_async (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                           G_FILE_QUERY_INFO_NONE, G_PRIORITY_DEFAULT, self->cancellable,
                           attach_info_cb, attach);
}

/**
 * zot_prompt_editor_attach_texture:
 * @texture: an image dropped or pasted as pixels
 *
 * Attaches @texture as a PNG.
 *
 * Returns: whether it was attached; ::attach-failed says why not
 */
gboolean
zot_prompt_editor_attach_texture (ZotPromptEditor *self,
                                  GdkTexture      *texture)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), FALSE);
  g_return_val_if_fail (GDK_IS_TEXTURE (texture), FALSE);

  bytes = gdk_texture_save_to_png_bytes (texture);
  /* Translators: the name given to an image dragged onto the message entry */
  return attach_bytes (self, bytes, _("Dropped image"));
}

guint
zot_prompt_editor_get_n_images (ZotPromptEditor *self)
{
  guint n = 0;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), 0);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->attachments));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n++;
  return n;
}

static void
paste_texture_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(ZotPromptEditor) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = gdk_clipboard_read_texture_finish (GDK_CLIPBOARD (object), result, &error);

  self->n_loading--;
  if (texture != NULL)
    zot_prompt_editor_attach_texture (self, texture);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Translators: %s is the system's error message */
      g_autofree char *message = g_strdup_printf (_("The pasted image could not be read: %s"), error->message);

      g_signal_emit (self, signals [ATTACH_FAILED], 0, message);
    }
}

/* An image on the clipboard, with no text beside it, is attached rather
 * than pasted; text pastes as usual. */
static void
on_text_view_paste_clipboard_cb (GtkTextView     *text_view,
                                 ZotPromptEditor *self)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (text_view));
  GdkContentFormats *formats = gdk_clipboard_get_formats (clipboard);

  if (!gdk_content_formats_contain_gtype (formats, GDK_TYPE_TEXTURE) ||
      gdk_content_formats_contain_gtype (formats, G_TYPE_STRING))
    return;

  g_signal_stop_emission_by_name (text_view, "paste-clipboard");
  self->n_loading++;
  gdk_clipboard_read_texture_async (clipboard, self->cancellable, paste_texture_cb, g_object_ref (self));
}

/**
 * zot_prompt_editor_get_n_loading:
 *
 * Returns: how many attached files are still being read
 */
guint
zot_prompt_editor_get_n_loading (ZotPromptEditor *self)
{
  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), 0);
  return self->n_loading;
}

/**
 * zot_prompt_editor_take_images:
 *
 * Returns: (transfer full) (nullable): the attached image blocks in order,
 *   which leave the editor; %NULL when there are none
 */
JsonArray *
zot_prompt_editor_take_images (ZotPromptEditor *self)
{
  JsonArray *images;
  GtkWidget *child;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  if (zot_prompt_editor_get_n_images (self) == 0)
    return NULL;

  images = json_array_new ();
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->attachments))) != NULL)
    {
      GtkWidget *chip = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child));
      JsonObject *block = g_object_get_data (G_OBJECT (chip), "zot-image-block");

      json_array_add_object_element (images, json_object_ref (block));
      gtk_flow_box_remove (self->attachments, child);
    }
  update_attachments (self);
  return images;
}

/* Sending */

static void
submit (ZotPromptEditor *self)
{
  g_autofree char *text = zot_prompt_editor_get_text (self);
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  /* Images alone make a message too, with no text. */
  if (*stripped == '\0' && zot_prompt_editor_get_n_images (self) == 0)
    return;
  if (*stripped == '\0')
    {
      g_free (text);
      text = g_strdup ("");
    }

  hide_completion (self);
  if (*text != '\0')
    history_add (self, text);
  self->history_index = -1;
  g_clear_pointer (&self->draft, g_free);

  /* Cleared first, so that a handler may put text back. */
  set_text_quietly (self, "");
  g_signal_emit (self, signals [SUBMIT], 0, text);
}

/* Template callbacks */

static gboolean
on_text_view_key_pressed_cb (GtkEventControllerKey *controller,
                             guint                  keyval,
                             guint                  keycode,
                             GdkModifierType        state,
                             ZotPromptEditor       *self)
{
  return _zot_prompt_editor_handle_key (self, keyval, state);
}

static void
on_text_view_leave_cb (GtkEventControllerFocus *controller,
                       ZotPromptEditor         *self)
{
  hide_completion (self);
}

static void
on_buffer_changed_cb (GtkTextBuffer   *buffer,
                      ZotPromptEditor *self)
{
  update_placeholder (self);

  if (self->quiet)
    return;

  /* Editing a recalled entry makes it a new draft. */
  self->history_index = -1;
  g_clear_pointer (&self->draft, g_free);

  update_completion (self);
}

static void
on_buffer_cursor_position_cb (GtkTextBuffer   *buffer,
                              GParamSpec      *pspec,
                              ZotPromptEditor *self)
{
  /* Moving out of the command word closes the list; moving never opens it. */
  if (!self->quiet && completion_visible (self))
    update_completion (self);
}

static void
on_send_button_clicked_cb (GtkButton       *button,
                           ZotPromptEditor *self)
{
  if (self->busy)
    g_signal_emit (self, signals [CANCEL], 0);
  else
    submit (self);

  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

static void
on_completion_list_row_activated_cb (GtkListBox      *list,
                                     GtkListBoxRow   *row,
                                     ZotPromptEditor *self)
{
  accept_completion (self, row);
  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

static void
on_manager_commands_changed_cb (ZotExtensionManager *manager,
                                ZotPromptEditor     *self)
{
  refresh_commands (self);
}

/* GtkWidget */

static void
zot_prompt_editor_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (widget);

  gtk_widget_measure (GTK_WIDGET (self->outer), orientation, for_size,
                      minimum, natural, minimum_baseline, natural_baseline);
}

static void
zot_prompt_editor_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (widget);

  gtk_widget_allocate (GTK_WIDGET (self->outer), width, height, baseline, NULL);
  gtk_popover_present (self->completion_popover);
}

static gboolean
zot_prompt_editor_grab_focus (GtkWidget *widget)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (widget);

  return gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

/* GObject */

static void
zot_prompt_editor_dispose (GObject *object)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (object);

  if (self->manager_signals != NULL)
    g_signal_group_set_target (self->manager_signals, NULL);
  g_clear_object (&self->manager_signals);
  g_clear_object (&self->host);
  g_clear_pointer (&self->commands, g_ptr_array_unref);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  if (self->completion_popover != NULL)
    gtk_widget_unparent (GTK_WIDGET (self->completion_popover));

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_PROMPT_EDITOR);

  G_OBJECT_CLASS (zot_prompt_editor_parent_class)->dispose (object);
}

static void
zot_prompt_editor_finalize (GObject *object)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (object);

  g_clear_pointer (&self->history, g_ptr_array_unref);
  g_clear_pointer (&self->draft, g_free);

  G_OBJECT_CLASS (zot_prompt_editor_parent_class)->finalize (object);
}

static void
zot_prompt_editor_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_prompt_editor_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  ZotPromptEditor *self = ZOT_PROMPT_EDITOR (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      zot_prompt_editor_set_busy (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_prompt_editor_class_init (ZotPromptEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_prompt_editor_dispose;
  object_class->finalize = zot_prompt_editor_finalize;
  object_class->get_property = zot_prompt_editor_get_property;
  object_class->set_property = zot_prompt_editor_set_property;

  widget_class->measure = zot_prompt_editor_measure;
  widget_class->size_allocate = zot_prompt_editor_size_allocate;
  widget_class->grab_focus = zot_prompt_editor_grab_focus;

  /**
   * ZotPromptEditor:busy:
   *
   * A run is in progress: the send button becomes a stop button.
   */
  properties [PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ZotPromptEditor::submit:
   * @self: the editor
   * @text: what the user sent; the editor is already empty
   */
  signals [SUBMIT] =
    g_signal_new ("submit", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * ZotPromptEditor::cancel:
   * @self: the editor
   *
   * The user asked to stop the run (Esc, or the stop button).
   */
  signals [CANCEL] =
    g_signal_new ("cancel", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotPromptEditor::attach-failed:
   * @self: the editor
   * @message: why an image was not attached, naming it
   */
  signals [ATTACH_FAILED] =
    g_signal_new ("attach-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-prompt-editor.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, outer);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, attachments);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, box);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, scrolled_window);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, text_view);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, buffer);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, placeholder_label);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, send_button);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, completion_popover);
  gtk_widget_class_bind_template_child (widget_class, ZotPromptEditor, completion_list);
  gtk_widget_class_bind_template_callback (widget_class, on_text_view_key_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_text_view_leave_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_buffer_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_buffer_cursor_position_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_send_button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_completion_list_row_activated_cb);

  gtk_widget_class_set_css_name (widget_class, "prompteditor");
}

static void
zot_prompt_editor_init (ZotPromptEditor *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  gtk_widget_set_parent (GTK_WIDGET (self->completion_popover), GTK_WIDGET (self));

  self->history = g_ptr_array_new_with_free_func (g_free);
  self->history_index = -1;
  self->cancellable = g_cancellable_new ();
  g_signal_connect (self->text_view, "paste-clipboard", G_CALLBACK (on_text_view_paste_clipboard_cb), self);
  /* The prompt is sent exactly as typed, so a cluster that Pango cannot
   * wrap by word makes the view wrap by character instead. */
  zot_wrap_safe_text_view_watch (self->text_view);

  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect (self->manager_signals, "commands-changed",
                          G_CALLBACK (on_manager_commands_changed_cb), self);

  update_placeholder (self);
}

/* Private API */

/**
 * _zot_prompt_editor_handle_key:
 * @self: a #ZotPromptEditor
 * @keyval: the key
 * @state: the modifiers
 *
 * What a key press in the editor does, before the text view sees it.
 *
 * Returns: %TRUE when the key was handled
 */
gboolean
_zot_prompt_editor_handle_key (ZotPromptEditor *self,
                               guint            keyval,
                               GdkModifierType  state)
{
  GdkModifierType modifiers = state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK |
                                       GDK_SUPER_MASK | GDK_META_MASK);

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), FALSE);

  if (completion_visible (self))
    {
      switch (keyval)
        {
        case GDK_KEY_Up:
        case GDK_KEY_KP_Up:
          move_selection (self, -1);
          return TRUE;

        case GDK_KEY_Down:
        case GDK_KEY_KP_Down:
          move_selection (self, 1);
          return TRUE;

        case GDK_KEY_Return:
        case GDK_KEY_KP_Enter:
        case GDK_KEY_ISO_Enter:
        case GDK_KEY_Tab:
        case GDK_KEY_KP_Tab:
        case GDK_KEY_ISO_Left_Tab:
          accept_completion (self, gtk_list_box_get_selected_row (self->completion_list));
          return TRUE;

        case GDK_KEY_Escape:
          hide_completion (self);
          return TRUE;

        default:
          break;
        }
    }

  switch (keyval)
    {
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
      if (modifiers & GDK_SHIFT_MASK)
        {
          gtk_text_buffer_begin_user_action (self->buffer);
          gtk_text_buffer_delete_selection (self->buffer, TRUE, TRUE);
          gtk_text_buffer_insert_at_cursor (self->buffer, "\n", 1);
          gtk_text_buffer_end_user_action (self->buffer);
          gtk_text_view_scroll_mark_onscreen (self->text_view, gtk_text_buffer_get_insert (self->buffer));
          return TRUE;
        }
      submit (self);
      return TRUE;

    case GDK_KEY_Escape:
      if (modifiers != 0)
        return FALSE;
      g_signal_emit (self, signals [CANCEL], 0);
      return TRUE;

    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      if (modifiers != 0 || !cursor_on_first_line (self))
        return FALSE;
      return history_previous (self);

    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      if (modifiers != 0 || !cursor_on_last_line (self))
        return FALSE;
      return history_next (self);

    default:
      return FALSE;
    }
}

GtkTextView *
_zot_prompt_editor_get_text_view (ZotPromptEditor *self)
{
  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  return self->text_view;
}

GtkPopover *
_zot_prompt_editor_get_completion_popover (ZotPromptEditor *self)
{
  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  return self->completion_popover;
}

/**
 * _zot_prompt_editor_dup_completions:
 * @self: a #ZotPromptEditor
 *
 * Returns: (transfer full): the command names the list shows, in order
 */
GStrv
_zot_prompt_editor_dup_completions (ZotPromptEditor *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  GtkListBoxRow *row;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->completion_list, i)) != NULL; i++)
    g_strv_builder_add (builder, g_object_get_data (G_OBJECT (row), "zot-command"));

  return g_strv_builder_end (builder);
}

char *
_zot_prompt_editor_dup_selected_completion (ZotPromptEditor *self)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  row = gtk_list_box_get_selected_row (self->completion_list);
  return row != NULL ? g_strdup (g_object_get_data (G_OBJECT (row), "zot-command")) : NULL;
}

/* API */

/**
 * zot_prompt_editor_new:
 *
 * Returns: (transfer floating): an empty editor
 */
GtkWidget *
zot_prompt_editor_new (void)
{
  return g_object_new (ZOT_TYPE_PROMPT_EDITOR, NULL);
}

/**
 * zot_prompt_editor_set_host:
 * @self: a #ZotPromptEditor
 * @host: (nullable): whose commands to complete
 */
void
zot_prompt_editor_set_host (ZotPromptEditor *self,
                            ZotHost         *host)
{
  g_return_if_fail (ZOT_IS_PROMPT_EDITOR (self));
  g_return_if_fail (host == NULL || ZOT_IS_HOST (host));

  if (!g_set_object (&self->host, host))
    return;

  g_signal_group_set_target (self->manager_signals, host ? zot_host_get_manager (host) : NULL);
  refresh_commands (self);
}

/**
 * zot_prompt_editor_get_host:
 * @self: a #ZotPromptEditor
 *
 * Returns: (transfer none) (nullable): the host
 */
ZotHost *
zot_prompt_editor_get_host (ZotPromptEditor *self)
{
  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  return self->host;
}

/**
 * zot_prompt_editor_get_text:
 * @self: a #ZotPromptEditor
 *
 * Returns: (transfer full): the text being written
 */
char *
zot_prompt_editor_get_text (ZotPromptEditor *self)
{
  GtkTextIter start, end;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  gtk_text_buffer_get_bounds (self->buffer, &start, &end);
  return gtk_text_buffer_get_text (self->buffer, &start, &end, FALSE);
}

/**
 * zot_prompt_editor_set_text:
 * @self: a #ZotPromptEditor
 * @text: (nullable): the new text; the cursor goes to its end
 */
void
zot_prompt_editor_set_text (ZotPromptEditor *self,
                            const char      *text)
{
  g_return_if_fail (ZOT_IS_PROMPT_EDITOR (self));

  hide_completion (self);
  self->history_index = -1;
  g_clear_pointer (&self->draft, g_free);
  set_text_quietly (self, text);
}

/**
 * zot_prompt_editor_insert:
 * @self: a #ZotPromptEditor
 * @text: text to insert at the cursor (an extension's `insert`)
 */
void
zot_prompt_editor_insert (ZotPromptEditor *self,
                          const char      *text)
{
  g_return_if_fail (ZOT_IS_PROMPT_EDITOR (self));
  g_return_if_fail (text != NULL);

  gtk_text_buffer_begin_user_action (self->buffer);
  gtk_text_buffer_delete_selection (self->buffer, TRUE, TRUE);
  gtk_text_buffer_insert_at_cursor (self->buffer, text, -1);
  gtk_text_buffer_end_user_action (self->buffer);
  gtk_text_view_scroll_mark_onscreen (self->text_view, gtk_text_buffer_get_insert (self->buffer));
}

gboolean
zot_prompt_editor_get_busy (ZotPromptEditor *self)
{
  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), FALSE);

  return self->busy;
}

void
zot_prompt_editor_set_busy (ZotPromptEditor *self,
                            gboolean         busy)
{
  GtkWidget *button;

  g_return_if_fail (ZOT_IS_PROMPT_EDITOR (self));

  busy = !!busy;
  if (self->busy == busy)
    return;

  self->busy = busy;

  button = GTK_WIDGET (self->send_button);
  gtk_button_set_icon_name (self->send_button, busy ? "media-playback-stop-symbolic" : "go-up-symbolic");
  /* Translators: tooltip and screen reader name of the button beside the message entry: it sends
   * the message, or stops the model while it is working */
  zot_tooltip_set (button, busy ? _("Stop") : _("Send"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, busy ? _("Stop") : _("Send"),
                                  -1);
  if (busy)
    {
      gtk_widget_remove_css_class (button, "suggested-action");
      gtk_widget_add_css_class (button, "destructive-action");
    }
  else
    {
      gtk_widget_remove_css_class (button, "destructive-action");
      gtk_widget_add_css_class (button, "suggested-action");
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_BUSY]);
}
