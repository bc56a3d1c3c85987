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
#include "zot-resource-picker.h"
#include "zot-tooltip.h"
#include "zot-wrap-safe-gtk.h"

#define MAX_HISTORY 200


enum {
  PROP_0,
  PROP_BUSY,
  PROP_HOST,
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

void
_zot_prompt_editor_get_cursor (ZotPromptEditor *self,
                               GtkTextIter     *iter)
{
  gtk_text_buffer_get_iter_at_mark (self->buffer, iter, gtk_text_buffer_get_insert (self->buffer));
}

static gboolean
cursor_on_first_line (ZotPromptEditor *self)
{
  GtkTextIter cursor;

  _zot_prompt_editor_get_cursor (self, &cursor);
  return gtk_text_iter_get_line (&cursor) == 0;
}

static gboolean
cursor_on_last_line (ZotPromptEditor *self)
{
  GtkTextIter cursor;

  _zot_prompt_editor_get_cursor (self, &cursor);
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

/* Attached images (the rest is in zot-prompt-editor-attach.c) */

/* The signal is the editor's; its attaching code is elsewhere. */
void
_zot_prompt_editor_attach_failed (ZotPromptEditor *self,
                                  const char      *message)
{
  g_signal_emit (self, signals [ATTACH_FAILED], 0, message);
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

  _zot_prompt_editor_hide_completion (self);
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
  _zot_prompt_editor_hide_completion (self);
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

  _zot_prompt_editor_update_completion (self);
}

static void
on_buffer_cursor_position_cb (GtkTextBuffer   *buffer,
                              GParamSpec      *pspec,
                              ZotPromptEditor *self)
{
  /* Moving out of the command word closes the list; moving never opens it. */
  if (!self->quiet && _zot_prompt_editor_completion_visible (self))
    _zot_prompt_editor_update_completion (self);
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
  _zot_prompt_editor_accept_completion (self, row);
  gtk_widget_grab_focus (GTK_WIDGET (self->text_view));
}

static void
on_manager_commands_changed_cb (ZotExtensionManager *manager,
                                ZotPromptEditor     *self)
{
  _zot_prompt_editor_refresh_commands (self);
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

    case PROP_HOST:
      g_value_set_object (value, self->host);
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

    case PROP_HOST:
      zot_prompt_editor_set_host (self, g_value_get_object (value));
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

  /**
   * ZotPromptEditor:host:
   *
   * The host whose commands the editor completes
   * (zot_prompt_editor_set_host()).
   */
  properties [PROP_HOST] =
    g_param_spec_object ("host", NULL, NULL, ZOT_TYPE_HOST,
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
  gtk_box_prepend (self->box, zot_resource_picker_new (self));

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

  if (_zot_prompt_editor_completion_visible (self))
    {
      switch (keyval)
        {
        case GDK_KEY_Up:
        case GDK_KEY_KP_Up:
          _zot_prompt_editor_move_selection (self, -1);
          return TRUE;

        case GDK_KEY_Down:
        case GDK_KEY_KP_Down:
          _zot_prompt_editor_move_selection (self, 1);
          return TRUE;

        case GDK_KEY_Return:
        case GDK_KEY_KP_Enter:
        case GDK_KEY_ISO_Enter:
        case GDK_KEY_Tab:
        case GDK_KEY_KP_Tab:
        case GDK_KEY_ISO_Left_Tab:
          _zot_prompt_editor_accept_completion (self, gtk_list_box_get_selected_row (self->completion_list));
          return TRUE;

        case GDK_KEY_Escape:
          _zot_prompt_editor_hide_completion (self);
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
  _zot_prompt_editor_refresh_commands (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HOST]);
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

  _zot_prompt_editor_hide_completion (self);
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
