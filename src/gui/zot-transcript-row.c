/* zot-transcript-row.c — the widget that shows one transcript item.
 *
 * Each kind of item has a layout: a small widget tree built once and kept
 * while the row is bound to items of the same layout, so that scrolling
 * mostly changes texts rather than making widgets. Binding sets every
 * part of the layout from the item (nothing is left from the item shown
 * before); a notification updates the parts it concerns. A streaming
 * reply is a plain text view that is appended to, delta by delta; once
 * whole, it is replaced by its Markdown, built from the document the item
 * keeps, so no row parses Markdown. A tool call's details are built only
 * when they are open: a closed GtkExpander does not show its child.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "zot-accessible.h"
#include "zot-approval-row.h"
#include "zot-markdown.h"
#include "zot-markdown-private.h"
#include "zot-reasoning-view.h"
#include "zot-tool-call-view.h"
#include "zot-tooltip.h"
#include "zot-message-actions.h"
#include "zot-transcript-row.h"
#include "zot-wrap-safe-gtk.h"

/* GtkLabel lays out long text in superlinear time; longer text goes into
 * a read-only GtkTextView. */
#define MAX_LABEL_CHARS 4096
#define MAX_LINE_CHARS  2048

typedef enum
{
  LAYOUT_NONE,
  LAYOUT_USER,
  LAYOUT_ASSISTANT,
  LAYOUT_TOOL,
  LAYOUT_NOTE,
  LAYOUT_DISPLAY,
  LAYOUT_INFO,
  LAYOUT_LOAD_FAILURE,
  LAYOUT_SUMMARY,
  LAYOUT_STARTUP,
} Layout;

/* The widgets of the current layout that change with the item; which
 * ones are set depends on the layout. All belong to the child's tree,
 * except the tool body, which a closed expander does not hold. */
typedef struct
{
  GtkWidget *text;           /* a text slot */
  GtkWidget *icon;
  GtkWidget *attribution;
  GtkWidget *images;
  GtkWidget *title;
  GtkWidget *detail;
  GtkWidget *markdown;
  GtkWidget *spinner;
  GtkWidget *stream_view;
  GtkWidget *stopped;
  GtkWidget *name;
  GtkWidget *preview;
  GtkWidget *status_icon;
  GtkWidget *status;
  GtkWidget *waiting;
  GtkWidget *cancel;
  GtkWidget *body;           /* owned: a reference */
  GtkWidget *call_view;      /* a built-in call, read rather than JSON: made when opened */
  GtkWidget *args_title;
  GtkWidget *args;
  GtkWidget *result_title;
  GtkWidget *result;
} Parts;

struct _ZotTranscriptRow
{
  GtkWidget          parent_instance;

  ZotTranscriptItem *item;
  gulong             notify_handler;

  Layout             layout;
  GtkWidget         *child;
  Parts              parts;
  gboolean           streaming_layout;  /* the assistant row shows the stream */
  gsize              streamed;          /* bytes of the item's text in the stream view */
  char              *state_class;       /* the item's class on the child */
  char              *icon_class;        /* the status class on the tool's icon */
  GtkWidget         *actions;           /* under a message: copy, edit, retry, delete */
  GtkWidget         *approval_view;     /* under a tool call: its approval */
  GtkWidget         *reasoning_view;    /* above a reply: its reasoning, folded */
};

G_DEFINE_FINAL_TYPE (ZotTranscriptRow, zot_transcript_row, GTK_TYPE_WIDGET)

/* Text widgets */

/* A text slot holds one text block: a selectable label, or a text view
 * when the text is long. It keeps its block when the next text fits the
 * same kind. The text is what was sent or returned, to be copied as it
 * is, so it is never repaired: the block wraps by character instead when
 * Pango could not wrap it by word (zot-wrap-safe.h). */
static GtkWidget *
text_slot_new (gboolean monospace)
{
  GtkWidget *slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_widget_set_hexpand (slot, TRUE);
  /* A slot is a plain box reused across updates; whether it shows code
   * decides which child it makes later, and a subclass for one flag
   * would be more code than it saves. */
  g_object_set_data (G_OBJECT (slot), "zot-monospace", GINT_TO_POINTER (monospace));
  return slot;
}

static void
text_slot_set (GtkWidget  *slot,
               const char *text_in)
{
  gboolean monospace = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (slot), "zot-monospace"));
  g_autofree char *text = g_strdup (text_in ? text_in : "");
  GtkWidget *block = gtk_widget_get_first_child (slot);
  gboolean long_text;
  gsize len = strlen (text);

  /* A final newline would show as an empty line. */
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
    text[--len] = '\0';

  long_text = g_utf8_strlen (text, -1) > MAX_LABEL_CHARS;
  if (block != NULL && long_text != GTK_IS_TEXT_VIEW (block))
    {
      gtk_box_remove (GTK_BOX (slot), block);
      block = NULL;
    }

  if (block == NULL)
    {
      block = long_text ? _zot_markdown_text_view_new (NULL) : _zot_markdown_label_new ();
      if (long_text)
        gtk_text_view_set_monospace (GTK_TEXT_VIEW (block), monospace);
      else if (monospace)
        gtk_widget_add_css_class (block, "monospace");
      gtk_box_append (GTK_BOX (slot), block);
    }

  if (long_text)
    {
      g_autofree char *broken = _zot_markdown_break_long_lines (text, MAX_LINE_CHARS);

      zot_wrap_safe_text_view_set_text (GTK_TEXT_VIEW (block), broken, -1);
    }
  else
    zot_wrap_safe_label_set_verbatim (GTK_LABEL (block), text);
}

static GtkWidget *
attribution_label_new (void)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 1.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_halign (label, GTK_ALIGN_END);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "attribution");

  return label;
}

static void
attribution_label_set (GtkWidget  *label,
                       const char *name)
{
  g_autofree char *text = NULL;

  if (name != NULL && *name != '\0')
    text = g_strdup_printf ("— %s", name);
  gtk_label_set_text (GTK_LABEL (label), text ? text : "");
  gtk_widget_set_visible (label, text != NULL);
}

static GtkWidget *
section_title_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_add_css_class (label, "caption-heading");
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static GtkWidget *
caption_label_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

/* Swaps the one class that says which state the item is in. */
static void
set_state_class (GtkWidget   *widget,
                 char       **current,
                 const char  *css_class)
{
  if (g_strcmp0 (*current, css_class) == 0)
    return;

  if (*current != NULL)
    gtk_widget_remove_css_class (widget, *current);
  g_free (*current);
  *current = g_strdup (css_class);
  if (css_class != NULL)
    gtk_widget_add_css_class (widget, css_class);
}

/* Layouts */

static Layout
layout_for_kind (ZotTranscriptItemKind kind)
{
  switch (kind)
    {
    case ZOT_TRANSCRIPT_ITEM_USER:
      return LAYOUT_USER;
    case ZOT_TRANSCRIPT_ITEM_ASSISTANT:
      return LAYOUT_ASSISTANT;
    case ZOT_TRANSCRIPT_ITEM_TOOL:
      return LAYOUT_TOOL;
    case ZOT_TRANSCRIPT_ITEM_DISPLAY:
      return LAYOUT_DISPLAY;
    case ZOT_TRANSCRIPT_ITEM_INFO:
      return LAYOUT_INFO;
    case ZOT_TRANSCRIPT_ITEM_LOAD_FAILURE:
      return LAYOUT_LOAD_FAILURE;
    case ZOT_TRANSCRIPT_ITEM_SUMMARY:
      return LAYOUT_SUMMARY;
    case ZOT_TRANSCRIPT_ITEM_STARTUP:
      return LAYOUT_STARTUP;
    case ZOT_TRANSCRIPT_ITEM_NOTE:
    case ZOT_TRANSCRIPT_ITEM_ERROR:
    case ZOT_TRANSCRIPT_ITEM_WARNING:
    case ZOT_TRANSCRIPT_ITEM_CRASH:
    default:
      return LAYOUT_NOTE;
    }
}

static void
clear_layout (ZotTranscriptRow *self)
{
  g_clear_pointer (&self->child, gtk_widget_unparent);
  g_clear_object (&self->parts.body);
  memset (&self->parts, 0, sizeof self->parts);
  g_clear_pointer (&self->state_class, g_free);
  g_clear_pointer (&self->icon_class, g_free);
  self->layout = LAYOUT_NONE;
  self->streaming_layout = FALSE;
  self->streamed = 0;
}

/* A boxed row with an optional icon, a text and an attribution. A grid,
 * not a horizontal box, for the reason in zot-markdown.c's add_item(): an
 * extension's text can hold a tab. */
static GtkWidget *
build_note (ZotTranscriptRow *self,
            gboolean          with_icon)
{
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *column = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);

  if (with_icon)
    {
      self->parts.icon = gtk_image_new ();
      gtk_widget_set_valign (self->parts.icon, GTK_ALIGN_START);
      gtk_widget_set_margin_top (self->parts.icon, 2);
      gtk_grid_attach (GTK_GRID (grid), self->parts.icon, 0, 0, 1, 1);
      gtk_widget_add_css_class (grid, "note-row");
    }
  else
    gtk_widget_add_css_class (grid, "display-note");

  gtk_widget_set_hexpand (column, TRUE);
  self->parts.text = text_slot_new (FALSE);
  gtk_box_append (GTK_BOX (column), self->parts.text);
  self->parts.attribution = attribution_label_new ();
  gtk_box_append (GTK_BOX (column), self->parts.attribution);
  gtk_grid_attach (GTK_GRID (grid), column, 1, 0, 1, 1);

  /* A retry's wait can be cut short: the turn ends. */
  self->parts.cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->parts.cancel), "transcript.cancel-turn");
  gtk_widget_set_valign (self->parts.cancel, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->parts.cancel, "retry-cancel");
  zot_accessible_fix_mnemonics (self->parts.cancel);
  gtk_grid_attach (GTK_GRID (grid), self->parts.cancel, 2, 0, 1, 1);

  return grid;
}

static GtkWidget *
build_user (ZotTranscriptRow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *images_end;

  gtk_widget_add_css_class (box, "message-user");
  gtk_widget_set_halign (box, GTK_ALIGN_END);
  gtk_widget_set_margin_start (box, 48);

  self->parts.text = text_slot_new (FALSE);
  gtk_box_append (GTK_BOX (box), self->parts.text);

  /* The flow box itself must fill: GtkFlowBox aligned to the end lays a
   * short last line out with the sizes of the wrong columns, and then
   * gives a thumbnail a width of zero or less. A box aligns it instead. */
  images_end = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_halign (images_end, GTK_ALIGN_END);
  self->parts.images = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->parts.images), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->parts.images), 4);
  gtk_box_append (GTK_BOX (images_end), self->parts.images);
  gtk_box_append (GTK_BOX (box), images_end);

  return box;
}

static GtkWidget *
build_assistant (ZotTranscriptRow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

  gtk_widget_add_css_class (box, "message-assistant");
  return box;
}

static GtkWidget *
build_tool (ZotTranscriptRow *self)
{
  GtkWidget *expander;
  GtkWidget *header;
  GtkWidget *body;

  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_hexpand (header, TRUE);

  self->parts.spinner = gtk_spinner_new ();
  gtk_box_append (GTK_BOX (header), self->parts.spinner);

  self->parts.status_icon = gtk_image_new ();
  gtk_box_append (GTK_BOX (header), self->parts.status_icon);

  self->parts.name = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->parts.name, "heading");
  gtk_widget_add_css_class (self->parts.name, "tool-name");
  gtk_box_append (GTK_BOX (header), self->parts.name);

  self->parts.preview = gtk_label_new (NULL);
  gtk_label_set_ellipsize (GTK_LABEL (self->parts.preview), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (self->parts.preview), 0.0);
  gtk_label_set_single_line_mode (GTK_LABEL (self->parts.preview), TRUE);
  gtk_widget_set_hexpand (self->parts.preview, TRUE);
  gtk_widget_add_css_class (self->parts.preview, "monospace");
  gtk_widget_add_css_class (self->parts.preview, "dim-label");
  gtk_widget_add_css_class (self->parts.preview, "tool-preview");
  gtk_box_append (GTK_BOX (header), self->parts.preview);

  self->parts.attribution = attribution_label_new ();
  gtk_box_append (GTK_BOX (header), self->parts.attribution);

  /* An interactive call that waits for the user in a panel: one click
   * away. */
  self->parts.waiting = gtk_button_new ();
  gtk_widget_add_css_class (self->parts.waiting, "pill");
  gtk_widget_add_css_class (self->parts.waiting, "suggested-action");
  gtk_widget_add_css_class (self->parts.waiting, "tool-waiting");
  gtk_widget_set_valign (self->parts.waiting, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (header), self->parts.waiting);

  self->parts.status = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->parts.status, "caption");
  gtk_widget_add_css_class (self->parts.status, "dim-label");
  gtk_widget_add_css_class (self->parts.status, "tool-status");
  /* A progress line may be long: it never widens the row. */
  gtk_label_set_ellipsize (GTK_LABEL (self->parts.status), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (self->parts.status), 60);
  gtk_box_append (GTK_BOX (header), self->parts.status);

  body = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_top (body, 6);
  /* Translators: heading of a tool call's arguments in the conversation */
  self->parts.args_title = section_title_new (_("Arguments"));
  gtk_box_append (GTK_BOX (body), self->parts.args_title);
  self->parts.args = text_slot_new (TRUE);
  gtk_widget_add_css_class (self->parts.args, "tool-output");
  gtk_box_append (GTK_BOX (body), self->parts.args);
  /* Translators: heading of what a tool call returned, in the conversation */
  self->parts.result_title = section_title_new (_("Result"));
  gtk_box_append (GTK_BOX (body), self->parts.result_title);
  self->parts.result = text_slot_new (TRUE);
  gtk_widget_add_css_class (self->parts.result, "tool-output");
  gtk_box_append (GTK_BOX (body), self->parts.result);
  self->parts.body = g_object_ref_sink (body);

  expander = gtk_expander_new (NULL);
  gtk_expander_set_label_widget (GTK_EXPANDER (expander), header);
  gtk_expander_set_child (GTK_EXPANDER (expander), body);
  gtk_widget_add_css_class (expander, "tool-row");
  gtk_accessible_update_relation (GTK_ACCESSIBLE (expander), GTK_ACCESSIBLE_RELATION_LABELLED_BY,
                                  self->parts.name, self->parts.preview, NULL, -1);

  return expander;
}

static GtkWidget *
build_info (ZotTranscriptRow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_widget_add_css_class (box, "info-row");
  self->parts.text = text_slot_new (TRUE);
  gtk_box_append (GTK_BOX (box), self->parts.text);
  return box;
}

static GtkWidget *
build_load_failure (ZotTranscriptRow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

  self->parts.title = _zot_markdown_label_new ();
  gtk_widget_add_css_class (self->parts.title, "heading");
  gtk_box_append (GTK_BOX (box), self->parts.title);

  self->parts.text = text_slot_new (FALSE);
  gtk_box_append (GTK_BOX (box), self->parts.text);

  self->parts.detail = _zot_markdown_label_new ();
  gtk_widget_add_css_class (self->parts.detail, "caption");
  gtk_widget_add_css_class (self->parts.detail, "load-failure-log");
  gtk_box_append (GTK_BOX (box), self->parts.detail);

  gtk_widget_add_css_class (box, "load-failure");
  return box;
}

static GtkWidget *
build_summary (ZotTranscriptRow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

  gtk_widget_add_css_class (box, "display-note");
  gtk_widget_add_css_class (box, "summary-row");
  gtk_box_append (GTK_BOX (box), section_title_new (_("Summary of the conversation so far")));
  self->parts.markdown = zot_markdown_view_new ();
  gtk_box_append (GTK_BOX (box), self->parts.markdown);
  return box;
}

static GtkWidget *
build_startup (ZotTranscriptRow *self)
{
  GtkWidget *label = _zot_markdown_label_new ();

  gtk_widget_add_css_class (label, "startup-section");
  self->parts.title = label;
  return label;
}

static void
build_layout (ZotTranscriptRow *self,
              Layout            layout)
{
  g_assert (self->child == NULL);

  switch (layout)
    {
    case LAYOUT_USER:
      self->child = build_user (self);
      break;
    case LAYOUT_ASSISTANT:
      self->child = build_assistant (self);
      break;
    case LAYOUT_TOOL:
      self->child = build_tool (self);
      break;
    case LAYOUT_NOTE:
      self->child = build_note (self, TRUE);
      break;
    case LAYOUT_DISPLAY:
      self->child = build_note (self, FALSE);
      break;
    case LAYOUT_INFO:
      self->child = build_info (self);
      break;
    case LAYOUT_LOAD_FAILURE:
      self->child = build_load_failure (self);
      break;
    case LAYOUT_SUMMARY:
      self->child = build_summary (self);
      break;
    case LAYOUT_STARTUP:
      self->child = build_startup (self);
      break;
    case LAYOUT_NONE:
    default:
      g_assert_not_reached ();
    }

  gtk_widget_insert_before (self->child, GTK_WIDGET (self), self->actions);
  self->layout = layout;
}

/* Updates */

static const char *
level_icon_name (const char *level)
{
  if (g_strcmp0 (level, "success") == 0)
    return "emblem-ok-symbolic";
  if (g_strcmp0 (level, "warn") == 0)
    return "dialog-warning-symbolic";
  if (g_strcmp0 (level, "error") == 0)
    return "dialog-error-symbolic";
  return "dialog-information-symbolic";
}

static void
update_note (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;

  if (self->parts.icon != NULL)
    {
      const char *level = zot_transcript_item_get_level (item);
      g_autofree char *level_class = g_strconcat ("note-", level ? level : "info", NULL);

      gtk_image_set_from_icon_name (GTK_IMAGE (self->parts.icon), level_icon_name (level));
      set_state_class (self->child, &self->state_class, level_class);
    }

  text_slot_set (self->parts.text, zot_transcript_item_get_text (item));
  attribution_label_set (self->parts.attribution, zot_transcript_item_get_extension_name (item));
  gtk_widget_set_visible (self->parts.cancel,
                          zot_transcript_item_get_kind (item) == ZOT_TRANSCRIPT_ITEM_RETRY &&
                          zot_transcript_item_get_streaming (item));
}

/* A sent image as the user saw it, or its type when GTK cannot decode it. */
static GtkWidget *
image_thumbnail_new (ZotTranscriptItem *item,
                     guint              index)
{
  const char *mime_type = zot_transcript_item_get_image_mime_type (item, index);
  GdkTexture *texture = zot_transcript_item_get_image_texture (item, index);
  g_autofree char *caption = NULL;
  GtkWidget *picture;

  /* Translators: %s is a MIME type such as image/png */
  caption = g_strdup_printf (_("Image (%s)"), mime_type);
  if (texture == NULL)
    {
      const char *note = zot_transcript_item_get_image_note (item, index);
      g_autofree char *noted = NULL;

      if (note == NULL)
        return caption_label_new (caption);
      /* Translators: an image that is not shown: "Image (image/png): image too large: …" */
      noted = g_strdup_printf (_("%s: %s"), caption, note);
      return caption_label_new (noted);
    }

  picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
  gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_widget_set_size_request (picture, 120, 90);
  gtk_widget_add_css_class (picture, "message-image");
  gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL, caption, -1);
  return picture;
}

static void
update_user (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;
  const char *text = zot_transcript_item_get_text (item);
  guint n_images = zot_transcript_item_get_n_images (item);
  GtkWidget *child;

  text_slot_set (self->parts.text, text);
  gtk_widget_set_visible (self->parts.text, *text != '\0');

  while ((child = gtk_widget_get_first_child (self->parts.images)) != NULL)
    gtk_flow_box_remove (GTK_FLOW_BOX (self->parts.images), child);
  for (guint i = 0; i < n_images; i++)
    gtk_flow_box_append (GTK_FLOW_BOX (self->parts.images), image_thumbnail_new (item, i));
  gtk_widget_set_visible (gtk_widget_get_parent (self->parts.images), n_images > 0);
}

static void
clear_box (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    gtk_box_remove (GTK_BOX (box), child);
}

/* Empties the stream view, which wraps by word and character again. */
static void
stream_view_clear (ZotTranscriptRow *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (self->parts.stream_view);

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (view), "", 0);
  gtk_text_view_set_wrap_mode (view, GTK_WRAP_WORD_CHAR);
  self->streamed = 0;
}

/* The reply as it streams: a spinner until text comes, then a text view
 * that deltas are appended to (a label would lay all of the text out
 * again for each), and "(stopped)" under it if the turn was aborted. The
 * text is the model's, kept as it is: once a delta brings a cluster that
 * Pango cannot wrap by word (zot-wrap-safe.h), the view wraps by
 * character until it is emptied. */
static void
update_stream (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;
  gsize length = zot_transcript_item_get_text_length (item);
  GtkTextBuffer *buffer;
  GtkTextIter end;
  gboolean waiting;

  if (!self->streaming_layout)
    {
      clear_box (self->child);
      self->parts.markdown = NULL;

      self->parts.spinner = gtk_spinner_new ();
      gtk_widget_set_halign (self->parts.spinner, GTK_ALIGN_START);
      gtk_box_append (GTK_BOX (self->child), self->parts.spinner);

      self->parts.stream_view = _zot_markdown_text_view_new (NULL);
      gtk_box_append (GTK_BOX (self->child), self->parts.stream_view);

      /* Translators: shown after a model's answer that was stopped before it ended */
      self->parts.stopped = caption_label_new (_("(stopped)"));
      gtk_box_append (GTK_BOX (self->child), self->parts.stopped);

      self->streaming_layout = TRUE;
      self->streamed = 0;
    }

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->parts.stream_view));
  if (length < self->streamed)
    stream_view_clear (self);
  if (length > self->streamed)
    {
      const char *text = zot_transcript_item_get_text (item);
      gunichar previous = 0;

      if (self->streamed > 0)
        previous = g_utf8_get_char (g_utf8_find_prev_char (text, text + self->streamed));
      if (!zot_wrap_safe_check_after (previous, text + self->streamed,
                                      (gssize) (length - self->streamed)))
        gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (self->parts.stream_view), GTK_WRAP_CHAR);

      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert (buffer, &end, text + self->streamed, length - self->streamed);
      self->streamed = length;
    }

  /* While the model reasons, the reasoning's own spinner says it. */
  waiting = length == 0 && !gtk_widget_get_visible (self->reasoning_view);
  gtk_spinner_set_spinning (GTK_SPINNER (self->parts.spinner), waiting);
  gtk_widget_set_visible (self->parts.spinner, waiting);
  gtk_widget_set_visible (self->parts.stream_view, length > 0);
  gtk_widget_set_visible (self->parts.stopped, zot_transcript_item_get_stopped (item));
}

static void
update_assistant (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;
  ZotMarkdownDocument *document;

  if (zot_transcript_item_get_streaming (item) || zot_transcript_item_get_stopped (item))
    {
      update_stream (self);
      return;
    }

  /* The whole reply: its Markdown view is the row's only child. */
  if (self->parts.markdown == NULL)
    {
      clear_box (self->child);
      memset (&self->parts, 0, sizeof self->parts);
      self->streaming_layout = FALSE;
      self->streamed = 0;
      self->parts.markdown = zot_markdown_view_new ();
      gtk_box_append (GTK_BOX (self->child), self->parts.markdown);
    }

  document = zot_transcript_item_get_document (item);
  zot_markdown_view_set_document (ZOT_MARKDOWN_VIEW (self->parts.markdown), document);
}

static void
update_tool_body (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;
  ZotToolCallView *view;
  gboolean read;
  const char *result;

  if (self->parts.call_view == NULL)
    {
      self->parts.call_view = zot_tool_call_view_new ();
      gtk_box_prepend (GTK_BOX (self->parts.body), self->parts.call_view);
    }
  view = ZOT_TOOL_CALL_VIEW (self->parts.call_view);
  read = zot_tool_call_view_set_item (view, item);
  result = zot_tool_call_view_shows_result (view) ? NULL : zot_transcript_item_get_result (item);

  gtk_widget_set_visible (self->parts.args_title, !read);
  gtk_widget_set_visible (self->parts.args, !read);
  text_slot_set (self->parts.args, read ? "" : zot_transcript_item_get_args_pretty (item));
  gtk_widget_set_visible (self->parts.result_title, result != NULL);
  gtk_widget_set_visible (self->parts.result, result != NULL);
  /* Translators: shown as a tool call's result when the tool printed nothing */
  text_slot_set (self->parts.result, result == NULL ? "" : *result != '\0' ? result : _("(no output)"));
}

static const struct
{
  const char *css_class;
  const char *icon_name;
  const char *icon_class;
  const char *label;
} tool_states[] = {
  /* Translators: a tool call's state, shown in a badge in the conversation */
  [ZOT_TRANSCRIPT_TOOL_RUNNING] = { "tool-running", NULL, NULL, N_("running") },
  /* Translators: a tool call's state: it finished and succeeded */
  [ZOT_TRANSCRIPT_TOOL_COMPLETED] = { "tool-completed", "emblem-ok-symbolic", "success", N_("completed") },
  /* Translators: a tool call's state: it ended with an error */
  [ZOT_TRANSCRIPT_TOOL_FAILED] = { "tool-failed", "dialog-error-symbolic", "error", N_("failed") },
  /* Translators: a tool call's state: the user or an extension did not allow it */
  [ZOT_TRANSCRIPT_TOOL_BLOCKED] = { "tool-blocked", "action-unavailable-symbolic", "warning", N_("blocked") },
  /* Translators: a tool call's state: it was stopped before it finished */
  [ZOT_TRANSCRIPT_TOOL_CANCELLED] = { "tool-cancelled", "process-stop-symbolic", "dim-label", N_("cancelled") },
  /* Translators: a tool call's state: it took too long and was stopped */
  [ZOT_TRANSCRIPT_TOOL_TIMED_OUT] = { "tool-timed_out", "alarm-symbolic", "error", N_("timed out") },
};

static void
update_tool_waiting (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;
  const char *key = zot_transcript_item_get_waiting_panel (item);
  gboolean waiting = key != NULL && zot_transcript_item_get_status (item) == ZOT_TRANSCRIPT_TOOL_RUNNING;

  gtk_widget_set_visible (self->parts.waiting, waiting);
  if (!waiting)
    {
      /* No action without its target: GTK warns of the mismatch. */
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->parts.waiting), NULL);
      return;
    }

  {
    const char *title = zot_transcript_item_get_waiting_title (item);
    /* Translators: a button that moves the focus to where an extension waits for the user's
     * answer; %s is the title of that panel or field */
    g_autofree char *label = g_strdup_printf (_("Answer in “%s”"), title != NULL && *title != '\0' ? title : key);

    gtk_button_set_label (GTK_BUTTON (self->parts.waiting), label);
    gtk_actionable_set_action_target_value (GTK_ACTIONABLE (self->parts.waiting), g_variant_new_string (key));
    gtk_actionable_set_action_name (GTK_ACTIONABLE (self->parts.waiting), "win.show-panel");
  }
}

/* Made for the first call asked about, then kept under the row's child. */
static void
update_tool_approval (ZotTranscriptRow *self,
                      ZotApproval      *approval)
{
  if (approval != NULL && self->approval_view == NULL)
    {
      self->approval_view = zot_approval_row_new ();
      gtk_widget_set_parent (self->approval_view, GTK_WIDGET (self));
    }
  if (self->approval_view == NULL)
    return;
  if (gtk_widget_get_prev_sibling (self->approval_view) != self->child)
    gtk_widget_insert_after (self->approval_view, GTK_WIDGET (self), self->child);
  zot_approval_row_set_approval (ZOT_APPROVAL_ROW (self->approval_view), approval,
                                 zot_transcript_item_get_approval_cwd (self->item));
  gtk_widget_set_visible (self->approval_view, approval != NULL);
}

static void
update_tool_status (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;
  ZotTranscriptToolStatus status = zot_transcript_item_get_status (item);
  ZotApproval *approval = zot_transcript_item_get_approval (item);
  g_autofree char *asked = approval != NULL ? zot_approval_describe_state (approval) : NULL;
  /* A call that waits for the user does not run yet. */
  gboolean running = status == ZOT_TRANSCRIPT_TOOL_RUNNING &&
                     (approval == NULL || zot_approval_is_resolved (approval));
  const char *icon_name = tool_states[status].icon_name;
  const char *icon_class = tool_states[status].icon_class;

  /* A tool that ran but answered with an error. */
  if (status == ZOT_TRANSCRIPT_TOOL_COMPLETED && zot_transcript_item_get_is_error (item))
    {
      icon_name = "dialog-warning-symbolic";
      icon_class = "warning";
    }
  else if (!running && status == ZOT_TRANSCRIPT_TOOL_RUNNING)
    {
      icon_name = "dialog-warning-symbolic";
      icon_class = "warning";
    }

  gtk_spinner_set_spinning (GTK_SPINNER (self->parts.spinner), running);
  gtk_widget_set_visible (self->parts.spinner, running);
  gtk_widget_set_visible (self->parts.status_icon, !running);
  if (!running)
    gtk_image_set_from_icon_name (GTK_IMAGE (self->parts.status_icon), icon_name);
  set_state_class (self->parts.status_icon, &self->icon_class, icon_class);
  /* While it runs, where it got to says more than "running". */
  if (running && zot_transcript_item_get_progress (item) != NULL)
    gtk_label_set_text (GTK_LABEL (self->parts.status), zot_transcript_item_get_progress (item));
  else if (asked != NULL && (status == ZOT_TRANSCRIPT_TOOL_RUNNING || status == ZOT_TRANSCRIPT_TOOL_BLOCKED))
    gtk_label_set_text (GTK_LABEL (self->parts.status), asked);
  else
    gtk_label_set_text (GTK_LABEL (self->parts.status), _(tool_states[status].label));
  update_tool_waiting (self);
  update_tool_approval (self, approval);
  set_state_class (self->child, &self->state_class, tool_states[status].css_class);

  if (gtk_expander_get_expanded (GTK_EXPANDER (self->child)))
    update_tool_body (self);
}

static void
update_tool (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;

  gtk_label_set_text (GTK_LABEL (self->parts.name), zot_transcript_item_get_tool_name (item));
  gtk_label_set_text (GTK_LABEL (self->parts.preview), zot_tool_call_preview (item) != NULL ?
                      zot_tool_call_preview (item) : zot_transcript_item_get_args_preview (item));
  /* A call an extension asked for says who asked, under its parent. */
  gtk_widget_set_margin_start (self->child, (int) MIN (zot_transcript_item_get_depth (item), 8) * 24);
  if (zot_transcript_item_get_requested_by (item) != NULL)
    {
      /* Translators: under a tool call: the tool was called by another tool or a codemode
       * script; %s is the caller's name */
      g_autofree char *asked = g_strdup_printf (_("called by %s"), zot_transcript_item_get_requested_by (item));

      attribution_label_set (self->parts.attribution, asked);
    }
  else
    attribution_label_set (self->parts.attribution, zot_transcript_item_get_origin (item));
  /* Before the status: an open row fills its body from there. A closed
   * one lets go of the previous item's text now. */
  gtk_expander_set_expanded (GTK_EXPANDER (self->child), zot_transcript_item_get_expanded (item));
  if (!zot_transcript_item_get_expanded (item))
    {
      text_slot_set (self->parts.args, "");
      text_slot_set (self->parts.result, "");
      if (self->parts.call_view != NULL)
        zot_tool_call_view_set_item (ZOT_TOOL_CALL_VIEW (self->parts.call_view), NULL);
    }
  update_tool_status (self);
}

static void
update_load_failure (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;
  const char *text = zot_transcript_item_get_text (item);
  const char *detail = zot_transcript_item_get_detail (item);

  zot_wrap_safe_label_set_text (GTK_LABEL (self->parts.title),
                                zot_transcript_item_get_title (item));
  text_slot_set (self->parts.text, text);
  gtk_widget_set_visible (self->parts.text, *text != '\0');
  zot_wrap_safe_label_set_text (GTK_LABEL (self->parts.detail), detail);
  gtk_widget_set_visible (self->parts.detail, detail != NULL);
}

static void
update_all (ZotTranscriptRow *self)
{
  ZotTranscriptItem *item = self->item;

  switch (self->layout)
    {
    case LAYOUT_USER:
      update_user (self);
      break;
    case LAYOUT_ASSISTANT:
      update_assistant (self);
      break;
    case LAYOUT_TOOL:
      update_tool (self);
      break;
    case LAYOUT_NOTE:
    case LAYOUT_DISPLAY:
      update_note (self);
      break;
    case LAYOUT_INFO:
      text_slot_set (self->parts.text, zot_transcript_item_get_text (item));
      break;
    case LAYOUT_LOAD_FAILURE:
      update_load_failure (self);
      break;
    case LAYOUT_SUMMARY:
      zot_markdown_view_set_document (ZOT_MARKDOWN_VIEW (self->parts.markdown),
                                      zot_transcript_item_get_document (item));
      break;
    case LAYOUT_STARTUP:
      zot_wrap_safe_label_set_text (GTK_LABEL (self->parts.title),
                                    zot_transcript_item_get_text (item));
      break;
    case LAYOUT_NONE:
    default:
      g_assert_not_reached ();
    }
}

static void
on_item_notify_cb (ZotTranscriptItem *item,
                   GParamSpec        *pspec,
                   ZotTranscriptRow  *self)
{
  g_assert (item == self->item);

  /* The notifications that come often touch only their part. */
  if (self->layout == LAYOUT_ASSISTANT && pspec->name == g_intern_static_string ("text") &&
      self->streaming_layout && zot_transcript_item_get_streaming (item))
    update_stream (self);
  else if (self->layout == LAYOUT_TOOL && pspec->name == g_intern_static_string ("expanded"))
    gtk_expander_set_expanded (GTK_EXPANDER (self->child), zot_transcript_item_get_expanded (item));
  else if (self->layout == LAYOUT_TOOL)
    update_tool_status (self);
  else
    update_all (self);
}

static void
on_expander_expanded_cb (GtkExpander      *expander,
                         GParamSpec       *pspec,
                         ZotTranscriptRow *self)
{
  gboolean expanded = gtk_expander_get_expanded (expander);

  if (self->item == NULL || self->layout != LAYOUT_TOOL)
    return;

  if (expanded)
    update_tool_body (self);
  zot_transcript_item_set_expanded (self->item, expanded);
}

/* Shown, the reasoning goes above the reply; hidden, last, out of the
 * way of the parts of whatever else the row shows. */
static void
on_reasoning_view_visible_cb (ZotTranscriptRow *self)
{
  gboolean shown = gtk_widget_get_visible (self->reasoning_view) && self->child != NULL;

  gtk_widget_insert_before (self->reasoning_view, GTK_WIDGET (self), shown ? self->child : NULL);
  if (self->item != NULL && self->streaming_layout &&
      (zot_transcript_item_get_streaming (self->item) ||
       zot_transcript_item_get_stopped (self->item)))
    update_stream (self);
}

/* GObject */

static void
zot_transcript_row_dispose (GObject *object)
{
  ZotTranscriptRow *self = ZOT_TRANSCRIPT_ROW (object);

  zot_transcript_row_unbind (self);
  clear_layout (self);
  g_clear_pointer (&self->actions, gtk_widget_unparent);
  g_clear_pointer (&self->approval_view, gtk_widget_unparent);
  g_clear_pointer (&self->reasoning_view, gtk_widget_unparent);

  G_OBJECT_CLASS (zot_transcript_row_parent_class)->dispose (object);
}

static void
zot_transcript_row_class_init (ZotTranscriptRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_transcript_row_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "transcriptrow");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_LIST_ITEM);
}

static void
zot_transcript_row_init (ZotTranscriptRow *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);

  self->reasoning_view = zot_reasoning_view_new ();
  gtk_widget_set_parent (self->reasoning_view, GTK_WIDGET (self));
  g_signal_connect_swapped (self->reasoning_view, "notify::visible",
                            G_CALLBACK (on_reasoning_view_visible_cb), self);
  /* Messages are copied whole, as they were written (an assistant's as its
   * Markdown): selecting across recycled rows cannot do that. */
  self->actions = zot_message_actions_new (GTK_WIDGET (self));
  gtk_widget_set_parent (self->actions, GTK_WIDGET (self));
}

/* API */

/**
 * zot_transcript_row_new:
 *
 * Returns: (transfer floating): a row bound to nothing
 */
GtkWidget *
zot_transcript_row_new (void)
{
  return g_object_new (ZOT_TYPE_TRANSCRIPT_ROW, NULL);
}

/**
 * zot_transcript_row_bind:
 * @self: a #ZotTranscriptRow
 * @item: what to show
 *
 * Shows @item, and follows it until zot_transcript_row_unbind().
 */
void
zot_transcript_row_bind (ZotTranscriptRow  *self,
                         ZotTranscriptItem *item)
{
  Layout layout;
  g_autofree char *name = NULL;

  g_return_if_fail (ZOT_IS_TRANSCRIPT_ROW (self));
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ITEM (item));

  zot_transcript_row_unbind (self);

  layout = layout_for_kind (zot_transcript_item_get_kind (item));
  if (layout != self->layout)
    {
      clear_layout (self);
      build_layout (self, layout);
      if (layout == LAYOUT_TOOL)
        g_signal_connect (self->child, "notify::expanded", G_CALLBACK (on_expander_expanded_cb), self);
    }

  /* A stream view holds the text of the item it was filling. */
  self->streamed = 0;
  if (self->parts.stream_view != NULL)
    stream_view_clear (self);

  self->item = g_object_ref (item);
  zot_reasoning_view_set_text (ZOT_REASONING_VIEW (self->reasoning_view),
                               layout == LAYOUT_ASSISTANT ? zot_transcript_item_get_reasoning (item)
                                                          : NULL);
  on_reasoning_view_visible_cb (self);
  if (self->approval_view != NULL)
    gtk_widget_set_visible (self->approval_view, FALSE);
  update_all (self);
  name = zot_accessible_message_name (item);
  zot_accessible_set_label (GTK_WIDGET (self), name);
  zot_message_actions_set_item (ZOT_MESSAGE_ACTIONS (self->actions), item);
  self->notify_handler = g_signal_connect (item, "notify", G_CALLBACK (on_item_notify_cb), self);
}

/**
 * zot_transcript_row_unbind:
 * @self: a #ZotTranscriptRow
 *
 * Stops following the item. What the row shows stays until the next bind.
 */
void
zot_transcript_row_unbind (ZotTranscriptRow *self)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT_ROW (self));

  if (self->item == NULL)
    return;

  g_clear_signal_handler (&self->notify_handler, self->item);
  g_clear_object (&self->item);
}

/**
 * zot_transcript_row_get_item:
 * @self: a #ZotTranscriptRow
 *
 * Returns: (transfer none) (nullable): the item shown
 */
ZotTranscriptItem *
zot_transcript_row_get_item (ZotTranscriptRow *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT_ROW (self), NULL);

  return self->item;
}
