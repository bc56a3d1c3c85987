/* zot-tool-call-view.c — a built-in tool call, shown as people read it.
 *
 * The row builds this only when its details are open, and the view makes
 * its blocks from the item each time what it shows changes: a new item, a
 * result, "Show all" or "Raw". A block shows its first
 * ZOT_TOOL_VIEW_PREVIEW_LINES lines; all of them are bounded by the
 * ZOT_TOOL_VIEW_* limits, so that a 5 MiB write opens at once. Long lines
 * scroll sideways inside their block and never widen the window.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "zot-ansi.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-line-diff.h"
#include "zot-markdown.h"
#include "zot-tool-call-view.h"
#include "zot-tooltip.h"

#define DIFF_CONTEXT_LINES 3
/* The terminal block is dark in both styles (style.css, .tool-terminal);
 * reversed text takes these. */
#define TERMINAL_FOREGROUND 0xdeddda
#define TERMINAL_BACKGROUND 0x151515
#define NO_EXIT_CODE G_MININT

typedef enum
{
  KIND_OTHER,
  KIND_EDIT,
  KIND_WRITE,
  KIND_BASH,
  KIND_READ,
} Kind;

struct _ZotToolCallView
{
  GtkWidget          parent_instance;

  ZotTranscriptItem *item;
  char              *result;       /* the result shown: a repeat changes nothing */
  Kind               kind;
  gboolean           args_all;     /* "Show all" under the arguments' block */
  gboolean           output_all;   /* "Show all" under bash's output */

  GtkWidget         *summary;
  GtkWidget         *added;
  GtkWidget         *removed;
  GtkWidget         *exit_badge;
  GtkWidget         *raw_button;
  GtkWidget         *note;
  GtkWidget         *args_area;
  GtkWidget         *output_area;
};

G_DEFINE_FINAL_TYPE (ZotToolCallView, zot_tool_call_view, GTK_TYPE_WIDGET)

static void render (ZotToolCallView *self);

static Kind
kind_of (ZotTranscriptItem *item)
{
  JsonObject *args = zot_transcript_item_get_args (item);
  const char *name = zot_transcript_item_get_tool_name (item);

  /* An extension's tool of the same name may take anything. */
  if (args == NULL || name == NULL || zot_transcript_item_get_origin (item) != NULL)
    return KIND_OTHER;

  if (g_str_equal (name, "bash") && zot_json_get_string (args, "command") != NULL)
    return KIND_BASH;
  if (zot_json_get_string (args, "path") == NULL)
    return KIND_OTHER;
  if (g_str_equal (name, "edit") && zot_json_get_string (args, "old_text") != NULL &&
      zot_json_get_string (args, "new_text") != NULL)
    return KIND_EDIT;
  if (g_str_equal (name, "write") && zot_json_get_string (args, "content") != NULL)
    return KIND_WRITE;
  if (g_str_equal (name, "read"))
    return KIND_READ;
  return KIND_OTHER;
}

static void
clear_box (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    gtk_box_remove (GTK_BOX (box), child);
}

static GtkWidget *
mono_label_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_yalign (GTK_LABEL (label), 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "monospace");
  return label;
}

/* A block's lines: the first few, or all of them within the limits with
 * a last line that says what was left out. */
static char *
block_lines (const char *text,
             const char *prefix,
             gboolean    all,
             guint       total,
             gboolean   *out_more)
{
  guint shown = 0;
  char *lines = zot_line_clip (text, prefix, all ? ZOT_TOOL_VIEW_MAX_LINES : ZOT_TOOL_VIEW_PREVIEW_LINES, &shown);

  *out_more = !all && shown < total;
  if (all && shown < total)
    {
      g_autofree char *head = lines;

      /* Translators: the last line of a long block of a tool call in the conversation */
      lines = g_strdup_printf (ngettext ("%s\n… %u more line not shown", "%s\n… %u more lines not shown",
                                         total - shown),
                               head, total - shown);
    }
  return lines;
}

static void
on_show_all_args_clicked_cb (GtkButton       *button,
                             ZotToolCallView *self)
{
  self->args_all = TRUE;
  render (self);
}

static void
on_show_all_output_clicked_cb (GtkButton       *button,
                               ZotToolCallView *self)
{
  self->output_all = TRUE;
  render (self);
}

/* @content in a frame that scrolls sideways, and "Show all" under it when
 * @more. */
static GtkWidget *
block_new (GtkWidget       *content,
           const char      *css_class,
           guint            total,
           gboolean         more,
           GCallback        show_all_cb,
           ZotToolCallView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *scroller = _zot_sideways_scroller_new ();

  gtk_widget_add_css_class (box, "tool-block");
  gtk_widget_add_css_class (box, css_class);
  gtk_widget_set_overflow (box, GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_hexpand (content, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), content);
  gtk_box_append (GTK_BOX (box), scroller);

  if (more)
    {
      /* Translators: a button under the first lines of a tool call's diff or output */
      g_autofree char *label = g_strdup_printf (ngettext ("Show all %u line", "Show all %u lines", total), total);
      GtkWidget *button = gtk_button_new_with_label (label);

      gtk_widget_add_css_class (button, "flat");
      gtk_widget_add_css_class (button, "tool-show-all");
      gtk_widget_set_halign (button, GTK_ALIGN_START);
      g_signal_connect_object (button, "clicked", show_all_cb, self, 0);
      gtk_box_append (GTK_BOX (box), button);
    }

  return box;
}

static GtkWidget *
diff_view_new (const char *text)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
  GtkSourceLanguage *language = gtk_source_language_manager_get_language (manager, "diff");
  GtkWidget *view = _zot_source_view_new (text, language);

  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 8);
  gtk_widget_add_css_class (view, "tool-diff-text");
  return view;
}

static void
add_diff_block (ZotToolCallView *self,
                const char      *header,
                const char      *text,
                const char      *prefix)
{
  guint total = zot_line_count (text);
  gboolean more = FALSE;
  g_autofree char *lines = block_lines (text, prefix, self->args_all, total, &more);
  g_autofree char *shown = g_strconcat (header, lines, NULL);

  gtk_box_append (GTK_BOX (self->args_area),
                  block_new (diff_view_new (shown), "tool-diff", total, more,
                             G_CALLBACK (on_show_all_args_clicked_cb), self));
}

static void
set_note (ZotToolCallView *self,
          const char      *note)
{
  gtk_label_set_text (GTK_LABEL (self->note), note);
  gtk_widget_set_visible (self->note, TRUE);
}

static void
set_counts (ZotToolCallView *self,
            guint            added,
            guint            removed)
{
  g_autofree char *plus = g_strdup_printf ("+%u", added);
  g_autofree char *minus = g_strdup_printf ("−%u", removed);

  gtk_label_set_text (GTK_LABEL (self->added), plus);
  gtk_label_set_text (GTK_LABEL (self->removed), minus);
  gtk_widget_set_visible (self->added, TRUE);
  gtk_widget_set_visible (self->removed, TRUE);
}

static void
render_edit (ZotToolCallView *self,
             JsonObject      *args,
             gboolean         raw)
{
  guint added = 0, removed = 0;
  g_autofree char *diff = zot_line_diff (zot_json_get_string (args, "old_text"),
                                         zot_json_get_string (args, "new_text"),
                                         DIFF_CONTEXT_LINES, &added, &removed);

  if (diff == NULL)
    {
      g_autofree char *note = g_strdup_printf (
        /* Translators: under an edit in the conversation; %u is a number of lines */
        _("Too large to diff: the changed lines are more than %u. “Raw” shows both texts."),
        ZOT_DIFF_MAX_LINES);

      set_note (self, note);
      return;
    }

  set_counts (self, added, removed);
  if (raw)
    return;
  if (*diff == '\0')
    {
      /* Translators: under an edit in the conversation whose old and new text have the same lines */
      set_note (self, _("No lines change."));
      return;
    }
  add_diff_block (self, "", diff, NULL);
}

static void
render_write (ZotToolCallView *self,
              JsonObject      *args,
              gboolean         raw)
{
  const char *content = zot_json_get_string (args, "content");
  guint lines = zot_line_count (content);
  g_autofree char *header = g_strdup_printf ("@@ -0,0 +1,%u @@\n", lines);

  set_counts (self, lines, 0);
  gtk_widget_set_visible (self->removed, FALSE);
  /* Translators: under a write in the conversation: the window does not keep a file's old
   * content, so a write is shown as all new lines */
  set_note (self, _("The file’s previous content is not known: every line shows as added."));
  if (!raw && lines > 0)
    add_diff_block (self, header, content, "+");
}

static char *
read_range (JsonObject *args)
{
  gint64 offset = zot_json_get_int_or (args, "offset", 0);
  gint64 limit = zot_json_get_int_or (args, "limit", 0);

  if (limit > 0)
    /* Translators: what a read call asked for: a range of lines of a file */
    return g_strdup_printf (_("lines %lld–%lld"), (long long) MAX (offset, 1),
                            (long long) (MAX (offset, 1) + limit - 1));
  if (offset > 1)
    /* Translators: what a read call asked for: from a line to the end of a file */
    return g_strdup_printf (_("from line %lld"), (long long) offset);
  /* Translators: what a read call asked for: all of a file */
  return g_strdup (_("whole file"));
}

/* Bash ends its result with "exit code: N" (zot-tool-bash.c), in the
 * language of the run that made it; the status is taken off the output
 * into a badge. */
static int
split_exit_code (const char  *result,
                 char       **out_output)
{
  const char *formats[] = { "exit code: %d", _("exit code: %d") };
  const char *last = strrchr (result, '\n');
  const char *line = last != NULL ? last + 1 : result;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      const char *number = strstr (formats[i], "%d");
      gsize prefix = number != NULL ? (gsize) (number - formats[i]) : 0;
      gint64 code;

      if (number == NULL || strncmp (line, formats[i], prefix) != 0 ||
          !g_ascii_string_to_signed (line + prefix, 10, G_MININT + 1, G_MAXINT, &code, NULL))
        continue;
      *out_output = g_strndup (result, line > result ? (gsize) (line - result - 1) : 0);
      return (int) code;
    }

  *out_output = g_strdup (result);
  return NO_EXIT_CODE;
}

static GtkWidget *
terminal_label_new (const char *text)
{
  PangoAttrList *attrs = NULL;
  g_autofree char *plain = zot_ansi_to_pango_with_defaults (text, TERMINAL_FOREGROUND,
                                                            TERMINAL_BACKGROUND, &attrs);
  GtkWidget *label = mono_label_new (plain);

  gtk_label_set_attributes (GTK_LABEL (label), attrs);
  gtk_widget_add_css_class (label, "tool-terminal-text");
  pango_attr_list_unref (attrs);
  return label;
}

static void
render_bash (ZotToolCallView *self,
             JsonObject      *args,
             gboolean         raw)
{
  const char *command = zot_json_get_string (args, "command");
  g_autofree char *output = NULL;
  g_autofree char *lines = NULL;
  GtkWidget *block;
  gboolean more = FALSE;
  guint total;
  int code;

  if (!raw)
    {
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *prompt = mono_label_new ("$");

      total = zot_line_count (command);
      lines = block_lines (command, NULL, self->args_all, total, &more);
      gtk_label_set_selectable (GTK_LABEL (prompt), FALSE);
      gtk_widget_add_css_class (prompt, "tool-prompt");
      gtk_box_append (GTK_BOX (line), prompt);
      gtk_box_append (GTK_BOX (line), mono_label_new (lines));
      gtk_box_append (GTK_BOX (self->args_area),
                      block_new (line, "tool-command", total, more,
                                 G_CALLBACK (on_show_all_args_clicked_cb), self));
      g_clear_pointer (&lines, g_free);
    }

  if (self->result == NULL)
    return;

  code = split_exit_code (self->result, &output);
  total = zot_line_count (output);
  lines = block_lines (output, NULL, self->output_all, total, &more);
  block = block_new (terminal_label_new (lines), "tool-terminal", total, more,
                     G_CALLBACK (on_show_all_output_clicked_cb), self);
  gtk_widget_add_css_class (block, "tool-output");
  gtk_box_append (GTK_BOX (self->output_area), block);

  if (code != NO_EXIT_CODE)
    {
      /* Translators: a badge under a shell command in the conversation: how it ended */
      g_autofree char *badge = g_strdup_printf (_("exit %d"), code);

      gtk_label_set_text (GTK_LABEL (self->exit_badge), badge);
      gtk_widget_set_visible (self->exit_badge, TRUE);
      gtk_widget_remove_css_class (self->exit_badge, code == 0 ? "error" : "success");
      gtk_widget_add_css_class (self->exit_badge, code == 0 ? "success" : "error");
    }
  if (code != 0 && (code != NO_EXIT_CODE || zot_transcript_item_get_is_error (self->item)))
    gtk_widget_add_css_class (block, "error");
}

static void
render_raw (ZotToolCallView *self)
{
  const char *pretty = zot_transcript_item_get_args_pretty (self->item);
  gboolean more = FALSE;
  g_autofree char *lines = block_lines (pretty, NULL, TRUE, zot_line_count (pretty), &more);
  GtkWidget *label = mono_label_new (lines);

  gtk_box_append (GTK_BOX (self->args_area),
                  block_new (label, "tool-raw", 0, FALSE, NULL, self));
}

static void
render (ZotToolCallView *self)
{
  JsonObject *args = self->item != NULL ? zot_transcript_item_get_args (self->item) : NULL;
  gboolean raw = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->raw_button));
  g_autofree char *range = NULL;

  clear_box (self->args_area);
  clear_box (self->output_area);
  gtk_widget_set_visible (self->added, FALSE);
  gtk_widget_set_visible (self->removed, FALSE);
  gtk_widget_set_visible (self->exit_badge, FALSE);
  gtk_widget_set_visible (self->note, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self), self->kind != KIND_OTHER);
  if (self->kind == KIND_OTHER)
    return;

  /* A path reads from its end: the file's name matters most. */
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_START);
  switch (self->kind)
    {
    case KIND_EDIT:
      gtk_label_set_text (GTK_LABEL (self->summary), zot_json_get_string (args, "path"));
      render_edit (self, args, raw);
      break;
    case KIND_WRITE:
      gtk_label_set_text (GTK_LABEL (self->summary), zot_json_get_string (args, "path"));
      render_write (self, args, raw);
      break;
    case KIND_READ:
      range = read_range (args);
      gtk_label_set_text (GTK_LABEL (self->summary), zot_json_get_string (args, "path"));
      set_note (self, range);
      break;
    case KIND_BASH:
      /* Translators: heading of a shell command and its output in the conversation */
      gtk_label_set_text (GTK_LABEL (self->summary), _("Command"));
      gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
      render_bash (self, args, raw);
      break;
    case KIND_OTHER:
    default:
      g_assert_not_reached ();
    }

  if (raw)
    render_raw (self);
}

static void
on_raw_button_toggled_cb (GtkToggleButton *button,
                          ZotToolCallView *self)
{
  render (self);
}

static GtkWidget *
count_label_new (const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_add_css_class (label, css_class);
  return label;
}

/* GObject */

static void
zot_tool_call_view_dispose (GObject *object)
{
  ZotToolCallView *self = ZOT_TOOL_CALL_VIEW (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->item);

  G_OBJECT_CLASS (zot_tool_call_view_parent_class)->dispose (object);
}

static void
zot_tool_call_view_finalize (GObject *object)
{
  ZotToolCallView *self = ZOT_TOOL_CALL_VIEW (object);

  g_clear_pointer (&self->result, g_free);

  G_OBJECT_CLASS (zot_tool_call_view_parent_class)->finalize (object);
}

static void
zot_tool_call_view_class_init (ZotToolCallViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_tool_call_view_dispose;
  object_class->finalize = zot_tool_call_view_finalize;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "toolcallview");
}

static void
zot_tool_call_view_init (ZotToolCallView *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 6);

  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0.0);
  gtk_label_set_selectable (GTK_LABEL (self->summary), TRUE);
  gtk_widget_add_css_class (self->summary, "monospace");
  gtk_widget_add_css_class (self->summary, "tool-summary");
  gtk_widget_set_hexpand (self->summary, TRUE);
  gtk_box_append (GTK_BOX (top), self->summary);

  self->added = count_label_new ("success");
  gtk_box_append (GTK_BOX (top), self->added);
  self->removed = count_label_new ("error");
  gtk_box_append (GTK_BOX (top), self->removed);

  self->exit_badge = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->exit_badge, "caption");
  gtk_widget_add_css_class (self->exit_badge, "tool-exit");
  gtk_widget_set_valign (self->exit_badge, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (top), self->exit_badge);

  /* Translators: a toggle on a tool call in the conversation: shows the arguments as the
   * JSON the model sent */
  self->raw_button = gtk_toggle_button_new_with_label (_("Raw"));
  /* Translators: tooltip of the "Raw" toggle on a tool call */
  zot_tooltip_set (self->raw_button, _("Show the arguments as JSON"));
  gtk_widget_add_css_class (self->raw_button, "flat");
  gtk_widget_add_css_class (self->raw_button, "tool-raw-toggle");
  gtk_widget_set_valign (self->raw_button, GTK_ALIGN_CENTER);
  g_signal_connect (self->raw_button, "toggled", G_CALLBACK (on_raw_button_toggled_cb), self);
  gtk_box_append (GTK_BOX (top), self->raw_button);
  gtk_widget_set_parent (top, GTK_WIDGET (self));

  self->note = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->note), 0.0);
  gtk_label_set_wrap (GTK_LABEL (self->note), TRUE);
  gtk_widget_add_css_class (self->note, "caption");
  gtk_widget_add_css_class (self->note, "dim-label");
  gtk_widget_add_css_class (self->note, "tool-note");
  gtk_widget_set_parent (self->note, GTK_WIDGET (self));

  self->args_area = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_parent (self->args_area, GTK_WIDGET (self));
  self->output_area = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_parent (self->output_area, GTK_WIDGET (self));

  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

/* API */

GtkWidget *
zot_tool_call_view_new (void)
{
  return g_object_new (ZOT_TYPE_TOOL_CALL_VIEW, NULL);
}

/**
 * zot_tool_call_view_set_item:
 * @self: a #ZotToolCallView
 * @item: (nullable): a tool call, or %NULL to let go of the one shown
 *
 * Shows @item when it is a call of a built-in tool the view knows; hides
 * itself otherwise. The same item again rebuilds nothing unless its
 * result changed.
 *
 * Returns: whether the view shows @item's arguments, in place of the JSON
 */
gboolean
zot_tool_call_view_set_item (ZotToolCallView   *self,
                             ZotTranscriptItem *item)
{
  const char *result;

  g_return_val_if_fail (ZOT_IS_TOOL_CALL_VIEW (self), FALSE);
  g_return_val_if_fail (item == NULL || ZOT_IS_TRANSCRIPT_ITEM (item), FALSE);

  result = item != NULL ? zot_transcript_item_get_result (item) : NULL;
  if (item == self->item && item != NULL && g_strcmp0 (result, self->result) == 0)
    return self->kind != KIND_OTHER;

  if (item != self->item)
    {
      g_set_object (&self->item, item);
      self->kind = item != NULL ? kind_of (item) : KIND_OTHER;
      self->args_all = FALSE;
      self->output_all = FALSE;
      g_signal_handlers_block_by_func (self->raw_button, on_raw_button_toggled_cb, self);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->raw_button), FALSE);
      g_signal_handlers_unblock_by_func (self->raw_button, on_raw_button_toggled_cb, self);
    }
  g_free (self->result);
  self->result = g_strdup (result);

  render (self);
  return self->kind != KIND_OTHER;
}

/**
 * zot_tool_call_preview:
 * @item: a tool call
 *
 * Returns: (nullable): what the row's header shows of a call the view
 *   knows, in place of its compact JSON: the file of an edit, a write or
 *   a read; %NULL for the others
 */
const char *
zot_tool_call_preview (ZotTranscriptItem *item)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ITEM (item), NULL);

  switch (kind_of (item))
    {
    case KIND_EDIT:
    case KIND_WRITE:
    case KIND_READ:
      return zot_json_get_string (zot_transcript_item_get_args (item), "path");
    case KIND_BASH:
    case KIND_OTHER:
    default:
      return NULL;
    }
}

/* Returns: whether the view shows the call's result too (bash's output) */
gboolean
zot_tool_call_view_shows_result (ZotToolCallView *self)
{
  g_return_val_if_fail (ZOT_IS_TOOL_CALL_VIEW (self), FALSE);

  return self->kind == KIND_BASH;
}
