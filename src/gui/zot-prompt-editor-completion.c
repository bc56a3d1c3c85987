/* zot-prompt-editor-completion.c — the list of slash commands that
 * completes what is typed of a command's name. */
#define G_LOG_DOMAIN "zot-prompt-editor"

#include "config.h"

#include "zot-completion-row.h"
#include "zot-prompt-editor-private.h"

gboolean
_zot_prompt_editor_completion_visible (ZotPromptEditor *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->completion_popover));
}

void
_zot_prompt_editor_hide_completion (ZotPromptEditor *self)
{
  if (_zot_prompt_editor_completion_visible (self))
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

  _zot_prompt_editor_get_cursor (self, &cursor);
  if (gtk_text_iter_get_offset (&cursor) < 1 ||
      gtk_text_iter_compare (&cursor, &word_end) > 0)
    return NULL;

  gtk_text_iter_forward_char (&start);
  return gtk_text_buffer_get_text (self->buffer, &start, &cursor, FALSE);
}

static void
clear_completion_rows (ZotPromptEditor *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->completion_list))) != NULL)
    gtk_list_box_remove (self->completion_list, child);
}

void
_zot_prompt_editor_update_completion (ZotPromptEditor *self)
{
  g_autofree char *prefix = get_completion_prefix (self);
  g_autofree char *folded = NULL;
  GtkListBoxRow *first;
  guint n_matches = 0;

  if (prefix == NULL || self->commands == NULL)
    {
      _zot_prompt_editor_hide_completion (self);
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

      gtk_list_box_append (self->completion_list, zot_completion_row_new (info));
      n_matches++;
    }

  if (n_matches == 0)
    {
      _zot_prompt_editor_hide_completion (self);
      return;
    }

  first = gtk_list_box_get_row_at_index (self->completion_list, 0);
  gtk_list_box_select_row (self->completion_list, first);

  if (!_zot_prompt_editor_completion_visible (self))
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

void
_zot_prompt_editor_move_selection (ZotPromptEditor *self,
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

void
_zot_prompt_editor_accept_completion (ZotPromptEditor *self,
                                      GtkListBoxRow   *row)
{
  const char *name;
  g_autofree char *replacement = NULL;
  GtkTextIter start, word_end;

  if (row == NULL)
    {
      _zot_prompt_editor_hide_completion (self);
      return;
    }

  name = zot_completion_row_get_name (ZOT_COMPLETION_ROW (row));
  if (name == NULL || !get_command_word (self, &start, &word_end))
    {
      _zot_prompt_editor_hide_completion (self);
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

  _zot_prompt_editor_hide_completion (self);
}

void
_zot_prompt_editor_refresh_commands (ZotPromptEditor *self)
{
  g_clear_pointer (&self->commands, g_ptr_array_unref);

  if (self->host != NULL)
    self->commands = zot_extension_manager_list_commands (zot_host_get_manager (self->host));

  /* A command that arrives while its name is being typed shows up. */
  if (_zot_prompt_editor_completion_visible (self) || gtk_widget_is_focus (GTK_WIDGET (self->text_view)))
    {
      g_autofree char *prefix = get_completion_prefix (self);

      if (prefix != NULL)
        _zot_prompt_editor_update_completion (self);
    }
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
    g_strv_builder_add (builder, zot_completion_row_get_name (ZOT_COMPLETION_ROW (row)));

  return g_strv_builder_end (builder);
}

char *
_zot_prompt_editor_dup_selected_completion (ZotPromptEditor *self)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (ZOT_IS_PROMPT_EDITOR (self), NULL);

  row = gtk_list_box_get_selected_row (self->completion_list);
  return row != NULL ? g_strdup (zot_completion_row_get_name (ZOT_COMPLETION_ROW (row))) : NULL;
}
