/* zot-transcript.c — the conversation as the window shows it.
 *
 * Rows are plain widgets in a vertical box inside a scrolled window; the
 * view keeps to the bottom while the user is there. Assistant text is
 * shown as a plain label while it streams and replaced by its rendered
 * Markdown when the whole (visible) message arrives. Tool calls are
 * expanders keyed by call id, updated when their result comes.
 */
#define G_LOG_DOMAIN "zot-transcript"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <adwaita.h>

#include "zot-markdown.h"
#include "zot-markdown-private.h"
#include "zot-message.h"
#include "zot-tool.h"
#include "zot-tool-registry.h"
#include "zot-transcript.h"

/* Past this, tool output is cut in the row: a label with megabytes of
 * text would stall the window. */
#define MAX_RESULT_CHARS  (256 * 1024)
#define MAX_PREVIEW_CHARS 80
/* GtkLabel lays out long text in superlinear time; longer text goes into
 * a read-only GtkTextView. */
#define MAX_LABEL_CHARS   4096
#define MAX_LINE_CHARS    2048
/* Pixels from the end that still count as "at the bottom". */
#define BOTTOM_SLACK 24.0

struct _ZotTranscript
{
  GtkWidget          parent_instance;

  GtkScrolledWindow *scrolled_window;
  GtkLabel          *startup_label;
  GtkBox            *list;

  ZotHost           *host;
  GSignalGroup      *host_signals;
  GSignalGroup      *agent_signals;
  GSignalGroup      *manager_signals;

  GHashTable        *tool_rows;        /* call id → ToolRow */
  GtkWidget         *streaming_row;    /* the assistant message in flight */
  GtkWidget         *streaming_label;  /* a GtkTextView */
  GtkWidget         *streaming_spinner;
  gsize              streamed;         /* bytes of it so far */

  guint              scroll_tick;

  guint              show_startup : 1;
  guint              stick_to_bottom : 1;
};

/* The parts of a tool row that change; the expander keeps them alive. */
typedef struct
{
  GtkWidget *expander;
  GtkWidget *spinner;
  GtkWidget *status_icon;
  GtkWidget *status_label;
  GtkWidget *result_title;
  GtkWidget *result;
  GtkWidget *body;
} ToolRow;

enum {
  PROP_0,
  PROP_SHOW_STARTUP,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotTranscript, zot_transcript, GTK_TYPE_WIDGET)

static void
tool_row_free (ToolRow *row)
{
  g_clear_object (&row->expander);
  g_free (row);
}

/* Widgets */

static GtkWidget *
text_label_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_set_hexpand (label, TRUE);

  return label;
}

static GtkWidget *
text_view_new (const char *text)
{
  GtkWidget *view = gtk_text_view_new ();

  if (text != NULL)
    {
      g_autofree char *broken = _zot_markdown_break_long_lines (text, MAX_LINE_CHARS);

      gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), broken, -1);
    }
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_widget_set_hexpand (view, TRUE);
  gtk_widget_add_css_class (view, "plain-text");

  return view;
}

/* Text as a selectable label, or a text view when it is long. */
static GtkWidget *
text_block_new (const char *text_in,
                gboolean    monospace)
{
  g_autofree char *text = text_in != NULL ? g_utf8_make_valid (text_in, -1) : NULL;
  GtkWidget *widget;

  /* A final newline would show as an empty line. */
  if (text != NULL)
    {
      gsize len = strlen (text);

      while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    }

  if (text != NULL && g_utf8_strlen (text, -1) > MAX_LABEL_CHARS)
    {
      widget = text_view_new (text);
      gtk_text_view_set_monospace (GTK_TEXT_VIEW (widget), monospace);
    }
  else
    {
      widget = text_label_new (text);
      if (monospace)
        gtk_widget_add_css_class (widget, "monospace");
    }

  return widget;
}

static GtkWidget *
attribution_label_new (const char *extension_name)
{
  g_autofree char *text = NULL;
  GtkWidget *label;

  if (extension_name == NULL || *extension_name == '\0')
    return NULL;

  text = g_strdup_printf ("— %s", extension_name);
  label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 1.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_halign (label, GTK_ALIGN_END);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "attribution");

  return label;
}

static char *
truncate_text (const char *text,
               glong       max_chars)
{
  g_autofree char *cut = NULL;

  if (text == NULL)
    return g_strdup ("");

  if (g_utf8_strlen (text, -1) <= max_chars)
    return g_strdup (text);

  cut = g_utf8_substring (text, 0, max_chars);
  return g_strconcat (cut, "…", NULL);
}

static gboolean
is_at_bottom (GtkAdjustment *adjustment)
{
  double value = gtk_adjustment_get_value (adjustment);
  double upper = gtk_adjustment_get_upper (adjustment);
  double page = gtk_adjustment_get_page_size (adjustment);

  return value + page >= upper - BOTTOM_SLACK;
}

static void
on_vadjustment_value_changed_cb (GtkAdjustment *adjustment,
                                 ZotTranscript *self)
{
  self->stick_to_bottom = is_at_bottom (adjustment);
}

static gboolean
scroll_to_bottom_cb (GtkWidget     *widget,
                     GdkFrameClock *frame_clock,
                     gpointer       user_data)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (widget);
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scrolled_window);

  self->scroll_tick = 0;
  if (self->stick_to_bottom)
    gtk_adjustment_set_value (adjustment,
                              gtk_adjustment_get_upper (adjustment) -
                              gtk_adjustment_get_page_size (adjustment));

  return G_SOURCE_REMOVE;
}

static void
on_vadjustment_changed_cb (GtkAdjustment *adjustment,
                           ZotTranscript *self)
{
  /* The content grew (or the window shrank): follow it if the user was
   * reading the end. Not from here: this runs while the viewport is being
   * allocated, and a value set now would not move it until the next
   * allocation. The next frame does it before its layout. */
  if (self->stick_to_bottom && self->scroll_tick == 0)
    self->scroll_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), scroll_to_bottom_cb, NULL, NULL);
}

static void
add_row (ZotTranscript *self,
         GtkWidget     *row)
{
  gtk_box_append (self->list, row);
}

/* A boxed row with an optional icon, a text and an attribution. A grid,
 * not a horizontal box, for the reason in zot-markdown.c's add_item(): an
 * extension's text can hold a tab. */
static GtkWidget *
note_row_new (const char *icon_name,
              const char *text,
              const char *extension_name)
{
  GtkWidget *row = gtk_grid_new ();
  GtkWidget *column = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *attribution = attribution_label_new (extension_name);

  gtk_grid_set_column_spacing (GTK_GRID (row), 8);

  if (icon_name != NULL)
    {
      GtkWidget *icon = gtk_image_new_from_icon_name (icon_name);

      gtk_widget_set_valign (icon, GTK_ALIGN_START);
      gtk_widget_set_margin_top (icon, 2);
      gtk_grid_attach (GTK_GRID (row), icon, 0, 0, 1, 1);
    }

  gtk_widget_set_hexpand (column, TRUE);
  gtk_box_append (GTK_BOX (column), text_block_new (text, FALSE));
  if (attribution != NULL)
    gtk_box_append (GTK_BOX (column), attribution);
  gtk_grid_attach (GTK_GRID (row), column, 1, 0, 1, 1);

  return row;
}

static const char *
normalize_level (const char *level)
{
  if (g_strcmp0 (level, "success") == 0)
    return "success";
  if (g_strcmp0 (level, "warn") == 0 || g_strcmp0 (level, "warning") == 0)
    return "warn";
  if (g_strcmp0 (level, "error") == 0)
    return "error";
  return "info";
}

static const char *
level_icon_name (const char *level)
{
  if (g_str_equal (level, "success"))
    return "emblem-ok-symbolic";
  if (g_str_equal (level, "warn"))
    return "dialog-warning-symbolic";
  if (g_str_equal (level, "error"))
    return "dialog-error-symbolic";
  return "dialog-information-symbolic";
}

static void
add_level_row (ZotTranscript *self,
               const char    *extension_name,
               const char    *level,
               const char    *message)
{
  const char *normal = normalize_level (level);
  g_autofree char *level_class = g_strconcat ("note-", normal, NULL);
  GtkWidget *row;

  row = note_row_new (level_icon_name (normal), message, extension_name);
  gtk_widget_add_css_class (row, "note-row");
  gtk_widget_add_css_class (row, level_class);
  add_row (self, row);
}

static const char *
extension_name_or_null (ZotExtension *extension)
{
  return extension != NULL ? zot_extension_get_name (extension) : NULL;
}

/* The startup section */

static void
update_startup (ZotTranscript *self)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *text = NULL;
  ZotExtensionManager *manager;
  guint n_items;

  gtk_widget_set_visible (GTK_WIDGET (self->startup_label), self->show_startup && self->host != NULL);
  if (self->host == NULL)
    return;

  manager = zot_host_get_manager (self->host);
  n_items = g_list_model_get_n_items (G_LIST_MODEL (manager));
  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (G_LIST_MODEL (manager), i);

      if (zot_extension_get_state (extension) != ZOT_EXTENSION_STATE_READY)
        continue;
      if (names->len > 0)
        g_string_append (names, ", ");
      g_string_append (names, zot_extension_get_name (extension));
    }

  if (names->len > 0)
    /* Translators: %s is a comma-separated list of extension names */
    text = g_strdup_printf (_("Extensions: %s"), names->str);
  else
    text = g_strdup (_("No extensions loaded"));

  gtk_label_set_text (self->startup_label, text);
}

/* Assistant streaming */

static void
end_streaming (ZotTranscript *self)
{
  self->streaming_row = NULL;
  self->streaming_label = NULL;
  self->streaming_spinner = NULL;
  self->streamed = 0;
}

static GtkWidget *
assistant_row_new (void)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

  gtk_widget_add_css_class (row, "message-assistant");
  return row;
}

static void
begin_streaming (ZotTranscript *self)
{
  if (self->streaming_row != NULL)
    return;

  self->streaming_row = assistant_row_new ();

  self->streaming_spinner = gtk_spinner_new ();
  gtk_spinner_set_spinning (GTK_SPINNER (self->streaming_spinner), TRUE);
  gtk_widget_set_halign (self->streaming_spinner, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (self->streaming_row), self->streaming_spinner);

  /* Appended to as deltas arrive: a text view does not lay out all of
   * the text again for each one, as a label would. */
  self->streaming_label = text_view_new (NULL);
  gtk_widget_set_visible (self->streaming_label, FALSE);
  gtk_box_append (GTK_BOX (self->streaming_row), self->streaming_label);

  add_row (self, self->streaming_row);
}

static void
remove_streaming_row (ZotTranscript *self)
{
  if (self->streaming_row != NULL)
    gtk_box_remove (self->list, self->streaming_row);
  end_streaming (self);
}

/* Tool rows */

static char *
args_preview (JsonObject *args)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *compact = NULL;
  GList *members;

  if (args == NULL)
    return g_strdup ("");

  /* One string argument (a command, a path) reads best bare. */
  members = json_object_get_members (args);
  if (members != NULL && members->next == NULL)
    {
      JsonNode *member = json_object_get_member (args, members->data);

      if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING)
        compact = g_strdup (json_node_get_string (member));
    }
  g_list_free (members);

  if (compact == NULL)
    {
      node = json_node_init_object (json_node_alloc (), args);
      compact = zot_json_to_string (node);
    }

  g_strdelimit (compact, "\n\r\t", ' ');
  return truncate_text (compact, MAX_PREVIEW_CHARS);
}

static char *
args_pretty (JsonObject *args)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) node = NULL;

  if (args == NULL)
    return g_strdup ("{}");

  node = json_node_init_object (json_node_alloc (), args);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
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
code_block_new (const char *text)
{
  GtkWidget *block = text_block_new (text, TRUE);

  gtk_widget_add_css_class (block, "tool-output");
  return block;
}

static const char *
tool_origin (ZotTranscript *self,
             const char    *name)
{
  ZotToolRegistry *registry;
  ZotTool *tool;

  if (self->host == NULL || name == NULL)
    return NULL;

  registry = zot_agent_get_registry (zot_host_get_agent (self->host));
  if (registry == NULL)
    return NULL;

  tool = zot_tool_registry_lookup (registry, name);
  return tool != NULL ? zot_tool_get_origin (tool) : NULL;
}

static ToolRow *
add_tool_row (ZotTranscript *self,
              const char    *id,
              const char    *name,
              JsonObject    *args)
{
  g_autofree char *preview = args_preview (args);
  g_autofree char *pretty = args_pretty (args);
  const char *origin = tool_origin (self, name);
  ToolRow *row = g_new0 (ToolRow, 1);
  GtkWidget *header;
  GtkWidget *name_label;
  GtkWidget *preview_label;
  GtkWidget *body;

  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_hexpand (header, TRUE);

  row->spinner = gtk_spinner_new ();
  gtk_spinner_set_spinning (GTK_SPINNER (row->spinner), TRUE);
  gtk_box_append (GTK_BOX (header), row->spinner);

  row->status_icon = gtk_image_new ();
  gtk_widget_set_visible (row->status_icon, FALSE);
  gtk_box_append (GTK_BOX (header), row->status_icon);

  name_label = gtk_label_new (name);
  gtk_widget_add_css_class (name_label, "heading");
  gtk_widget_add_css_class (name_label, "tool-name");
  gtk_box_append (GTK_BOX (header), name_label);

  preview_label = gtk_label_new (preview);
  gtk_label_set_ellipsize (GTK_LABEL (preview_label), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (preview_label), 0.0);
  gtk_label_set_single_line_mode (GTK_LABEL (preview_label), TRUE);
  gtk_widget_set_hexpand (preview_label, TRUE);
  gtk_widget_add_css_class (preview_label, "monospace");
  gtk_widget_add_css_class (preview_label, "dim-label");
  gtk_widget_add_css_class (preview_label, "tool-preview");
  gtk_box_append (GTK_BOX (header), preview_label);

  if (origin != NULL && *origin != '\0')
    gtk_box_append (GTK_BOX (header), attribution_label_new (origin));

  row->status_label = gtk_label_new (_("running"));
  gtk_widget_add_css_class (row->status_label, "caption");
  gtk_widget_add_css_class (row->status_label, "dim-label");
  gtk_widget_add_css_class (row->status_label, "tool-status");
  gtk_box_append (GTK_BOX (header), row->status_label);

  body = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_top (body, 6);
  gtk_box_append (GTK_BOX (body), section_title_new (_("Arguments")));
  gtk_box_append (GTK_BOX (body), code_block_new (pretty));
  row->result_title = section_title_new (_("Result"));
  gtk_widget_set_visible (row->result_title, FALSE);
  gtk_box_append (GTK_BOX (body), row->result_title);
  row->body = body;

  row->expander = g_object_ref_sink (gtk_expander_new (NULL));
  gtk_expander_set_label_widget (GTK_EXPANDER (row->expander), header);
  gtk_expander_set_child (GTK_EXPANDER (row->expander), body);
  gtk_widget_add_css_class (row->expander, "tool-row");
  gtk_widget_add_css_class (row->expander, "tool-running");

  add_row (self, row->expander);
  g_hash_table_replace (self->tool_rows, g_strdup (id ? id : ""), row);

  return row;
}

static void
tool_row_set_result (ToolRow       *row,
                     ZotToolResult *result)
{
  const char *outcome = zot_tool_outcome_to_string (result->outcome);
  g_autofree char *outcome_class = g_strconcat ("tool-", outcome, NULL);
  g_autofree char *text = zot_content_get_text (result->content);
  g_autofree char *shown = NULL;
  const char *icon_name;
  const char *icon_class;
  const char *status;

  switch (result->outcome)
    {
    case ZOT_TOOL_OUTCOME_COMPLETED:
      icon_name = result->is_error ? "dialog-warning-symbolic" : "emblem-ok-symbolic";
      icon_class = result->is_error ? "warning" : "success";
      status = _("completed");
      break;
    case ZOT_TOOL_OUTCOME_BLOCKED:
      icon_name = "action-unavailable-symbolic";
      icon_class = "warning";
      status = _("blocked");
      break;
    case ZOT_TOOL_OUTCOME_CANCELLED:
      icon_name = "process-stop-symbolic";
      icon_class = "dim-label";
      status = _("cancelled");
      break;
    case ZOT_TOOL_OUTCOME_TIMED_OUT:
      icon_name = "alarm-symbolic";
      icon_class = "error";
      status = _("timed out");
      break;
    case ZOT_TOOL_OUTCOME_FAILED:
    default:
      icon_name = "dialog-error-symbolic";
      icon_class = "error";
      status = _("failed");
      break;
    }

  gtk_spinner_set_spinning (GTK_SPINNER (row->spinner), FALSE);
  gtk_widget_set_visible (row->spinner, FALSE);
  gtk_image_set_from_icon_name (GTK_IMAGE (row->status_icon), icon_name);
  gtk_widget_add_css_class (row->status_icon, icon_class);
  gtk_widget_set_visible (row->status_icon, TRUE);
  gtk_label_set_text (GTK_LABEL (row->status_label), status);

  gtk_widget_remove_css_class (row->expander, "tool-running");
  gtk_widget_add_css_class (row->expander, outcome_class);

  if (g_utf8_strlen (text, -1) > MAX_RESULT_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (text, 0, MAX_RESULT_CHARS);

      shown = g_strdup_printf ("%s\n%s", cut, _("… (output shortened)"));
    }
  else
    shown = g_steal_pointer (&text);

  if (row->result != NULL)
    gtk_box_remove (GTK_BOX (row->body), row->result);
  row->result = code_block_new (*shown != '\0' ? shown : _("(no output)"));
  gtk_box_append (GTK_BOX (row->body), row->result);
  gtk_widget_set_visible (row->result_title, TRUE);
}

/* A sent image as the user saw it, or its type when GTK cannot decode it. */
static GtkWidget *
image_thumbnail_new (JsonObject *block)
{
  const char *data = json_object_get_string_member_with_default (block, "data", "");
  const char *mime_type = json_object_get_string_member_with_default (block, "mime_type", "?");
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *caption = NULL;
  GtkWidget *label;
  gsize size = 0;
  guchar *decoded;

  decoded = g_base64_decode (data, &size);
  if (size > 0)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_take (decoded, size);

      texture = gdk_texture_new_from_bytes (bytes, NULL);
    }
  else
    g_free (decoded);

  if (texture != NULL)
    {
      GtkWidget *picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));

      gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
      gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
      gtk_widget_set_size_request (picture, 120, 90);
      gtk_widget_add_css_class (picture, "message-image");
      /* Translators: %s is a MIME type such as image/png */
      caption = g_strdup_printf (_("Image (%s)"), mime_type);
      gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL, caption, -1);
      return picture;
    }

  /* Translators: %s is a MIME type such as image/png */
  caption = g_strdup_printf (_("Image (%s)"), mime_type);
  label = gtk_label_new (caption);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

/* Agent signals */

static void
on_agent_user_message_cb (ZotAgent      *agent,
                          JsonObject    *message,
                          ZotTranscript *self)
{
  g_autofree char *text = zot_message_get_text (message);
  JsonArray *content = NULL;
  GtkWidget *images = NULL;
  GtkWidget *row;

  if (json_object_get_boolean_member_with_default (message, "summary", FALSE))
    {
      GtkWidget *markdown = zot_markdown_view_new ();

      row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      gtk_widget_add_css_class (row, "display-note");
      gtk_widget_add_css_class (row, "summary-row");
      gtk_box_append (GTK_BOX (row), section_title_new (_("Summary of the conversation so far")));
      zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (markdown), text);
      gtk_box_append (GTK_BOX (row), markdown);
      add_row (self, row);
      return;
    }

  row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_add_css_class (row, "message-user");
  gtk_widget_set_halign (row, GTK_ALIGN_END);
  gtk_widget_set_margin_start (row, 48);
  if (*text != '\0')
    gtk_box_append (GTK_BOX (row), text_block_new (text, FALSE));

  if (json_object_has_member (message, "content") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (message, "content")))
    content = json_object_get_array_member (message, "content");

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *block;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      block = json_node_get_object (node);
      if (g_strcmp0 (json_object_get_string_member_with_default (block, "type", ""), "image") != 0)
        continue;

      if (images == NULL)
        {
          images = gtk_flow_box_new ();
          gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (images), GTK_SELECTION_NONE);
          gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (images), 4);
          gtk_widget_set_halign (images, GTK_ALIGN_END);
          gtk_box_append (GTK_BOX (row), images);
        }
      gtk_flow_box_append (GTK_FLOW_BOX (images), image_thumbnail_new (block));
    }

  add_row (self, row);
}

static void
on_agent_assistant_start_cb (ZotAgent      *agent,
                             ZotTranscript *self)
{
  /* A message that never arrived (suppressed) leaves nothing behind. */
  remove_streaming_row (self);
  begin_streaming (self);
}

static void
on_agent_text_delta_cb (ZotAgent      *agent,
                        const char    *delta,
                        ZotTranscript *self)
{
  if (delta == NULL || *delta == '\0')
    return;

  begin_streaming (self);
  self->streamed += strlen (delta);

  if (self->streaming_spinner != NULL)
    {
      gtk_box_remove (GTK_BOX (self->streaming_row), self->streaming_spinner);
      self->streaming_spinner = NULL;
    }
  {
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->streaming_label));
    g_autofree char *valid = g_utf8_make_valid (delta, -1);
    GtkTextIter end;

    gtk_text_buffer_get_end_iter (buffer, &end);
    gtk_text_buffer_insert (buffer, &end, valid, -1);
  }
  gtk_widget_set_visible (self->streaming_label, TRUE);
}

static void
on_agent_assistant_message_cb (ZotAgent      *agent,
                               JsonObject    *message,
                               ZotTranscript *self)
{
  g_autofree char *text = zot_message_get_text (message);
  GtkWidget *row = self->streaming_row;
  GtkWidget *markdown;
  GtkWidget *child;

  if (*g_strstrip (text) == '\0')
    {
      /* Only tool calls: their rows say it all. */
      remove_streaming_row (self);
      return;
    }

  if (row == NULL)
    {
      row = assistant_row_new ();
      add_row (self, row);
    }

  while ((child = gtk_widget_get_first_child (row)) != NULL)
    gtk_box_remove (GTK_BOX (row), child);

  g_free (text);
  text = zot_message_get_text (message);
  markdown = zot_markdown_view_new ();
  zot_markdown_view_set_markdown (ZOT_MARKDOWN_VIEW (markdown), text);
  gtk_box_append (GTK_BOX (row), markdown);

  end_streaming (self);
}

static void
on_agent_tool_call_cb (ZotAgent      *agent,
                       const char    *id,
                       const char    *name,
                       JsonObject    *args,
                       ZotTranscript *self)
{
  add_tool_row (self, id, name, args);
}

static void
on_agent_tool_result_cb (ZotAgent      *agent,
                         const char    *id,
                         const char    *name,
                         ZotToolResult *result,
                         ZotTranscript *self)
{
  ToolRow *row = g_hash_table_lookup (self->tool_rows, id ? id : "");

  if (result == NULL)
    return;

  /* A result whose call was never announced still gets a row. */
  if (row == NULL)
    row = add_tool_row (self, id, name, NULL);

  tool_row_set_result (row, result);
}

static void
on_agent_turn_end_cb (ZotAgent      *agent,
                      const char    *stop,
                      const char    *error,
                      ZotTranscript *self)
{
  gboolean aborted = g_strcmp0 (stop, "aborted") == 0;

  if (self->streaming_row != NULL)
    {
      /* An aborted reply keeps what had arrived; anything else that never
       * became a message (suppressed, failed) goes. */
      if (aborted && self->streamed > 0)
        {
          GtkWidget *label = gtk_label_new (_("(stopped)"));

          gtk_label_set_xalign (GTK_LABEL (label), 0.0);
          gtk_widget_add_css_class (label, "caption");
          gtk_widget_add_css_class (label, "dim-label");
          gtk_box_append (GTK_BOX (self->streaming_row), label);
          end_streaming (self);
        }
      else
        remove_streaming_row (self);
    }

  if (error != NULL && *error != '\0' && !aborted)
    zot_transcript_add_error (self, error);
}

static void
on_agent_warning_cb (ZotAgent      *agent,
                     const char    *message,
                     ZotTranscript *self)
{
  add_level_row (self, NULL, "warn", message);
}

/* Manager signals */

static void
on_manager_note_added_cb (ZotExtensionManager *manager,
                          ZotExtension        *extension,
                          const char          *level,
                          const char          *message,
                          ZotTranscript       *self)
{
  zot_transcript_add_note (self, extension_name_or_null (extension), level, message);
}

static void
on_manager_load_failed_cb (ZotExtensionManager *manager,
                           const char          *path,
                           const char          *message,
                           const char          *log_path,
                           ZotTranscript       *self)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  g_autofree char *title = NULL;
  GtkWidget *label;

  /* Translators: %s is the extension's directory */
  title = g_strdup_printf (_("Could not load the extension in %s"), path ? path : "?");
  label = text_label_new (title);
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (GTK_BOX (row), label);

  if (message != NULL && *message != '\0')
    gtk_box_append (GTK_BOX (row), text_block_new (message, FALSE));

  if (log_path != NULL && *log_path != '\0')
    {
      /* Translators: %s is the path of a log file */
      g_autofree char *log_text = g_strdup_printf (_("Log: %s"), log_path);

      label = text_label_new (log_text);
      gtk_widget_add_css_class (label, "caption");
      gtk_widget_add_css_class (label, "load-failure-log");
      gtk_box_append (GTK_BOX (row), label);
    }

  gtk_widget_add_css_class (row, "load-failure");
  add_row (self, row);
}

static void
on_manager_extension_crashed_cb (ZotExtensionManager *manager,
                                 ZotExtension        *extension,
                                 const char          *message,
                                 ZotTranscript       *self)
{
  const char *name = extension_name_or_null (extension);
  g_autofree char *text = NULL;

  /* Translators: the first %s is an extension name, the second what happened */
  text = g_strdup_printf (_("The extension %s stopped: %s"), name ? name : "?", message ? message : "");
  add_level_row (self, name, "error", text);
  update_startup (self);
}

static void
on_manager_warning_cb (ZotExtensionManager *manager,
                       ZotExtension        *extension,
                       const char          *message,
                       ZotTranscript       *self)
{
  add_level_row (self, extension_name_or_null (extension), "warn", message);
}

static void
on_manager_extension_state_changed_cb (ZotExtensionManager *manager,
                                       ZotExtension        *extension,
                                       ZotTranscript       *self)
{
  update_startup (self);
}

static void
on_manager_items_changed_cb (GListModel    *model,
                             guint          position,
                             guint          removed,
                             guint          added,
                             ZotTranscript *self)
{
  update_startup (self);
}

/* Host signals */

static void
on_host_info_cb (ZotHost       *host,
                 const char    *text,
                 ZotTranscript *self)
{
  zot_transcript_add_info (self, text);
}

/* A command's `display` is a styled one-shot note, never in the
 * conversation sent to the model. */
static void
on_host_command_replied_cb (ZotHost         *host,
                            ZotCommandReply *reply,
                            ZotTranscript   *self)
{
  GtkWidget *row;

  if (zot_command_reply_get_kind (reply) != ZOT_COMMAND_REPLY_DISPLAY)
    return;

  row = note_row_new (NULL, zot_command_reply_get_text (reply),
                      extension_name_or_null (zot_command_reply_get_extension (reply)));
  gtk_widget_add_css_class (row, "display-note");
  add_row (self, row);
}

static void
on_host_warning_cb (ZotHost       *host,
                    const char    *message,
                    ZotTranscript *self)
{
  add_level_row (self, NULL, "warn", message);
}

/* GObject */

static void
zot_transcript_dispose (GObject *object)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (object);

  if (self->host_signals != NULL)
    g_signal_group_set_target (self->host_signals, NULL);
  if (self->agent_signals != NULL)
    g_signal_group_set_target (self->agent_signals, NULL);
  if (self->manager_signals != NULL)
    g_signal_group_set_target (self->manager_signals, NULL);
  g_clear_object (&self->host_signals);
  g_clear_object (&self->agent_signals);
  g_clear_object (&self->manager_signals);
  g_clear_object (&self->host);

  g_clear_pointer (&self->tool_rows, g_hash_table_unref);
  end_streaming (self);

  if (self->scroll_tick != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->scroll_tick);
      self->scroll_tick = 0;
    }

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_TRANSCRIPT);

  G_OBJECT_CLASS (zot_transcript_parent_class)->dispose (object);
}

static void
zot_transcript_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (object);

  switch (prop_id)
    {
    case PROP_SHOW_STARTUP:
      g_value_set_boolean (value, self->show_startup);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  ZotTranscript *self = ZOT_TRANSCRIPT (object);

  switch (prop_id)
    {
    case PROP_SHOW_STARTUP:
      zot_transcript_set_show_startup (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_transcript_class_init (ZotTranscriptClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_transcript_dispose;
  object_class->get_property = zot_transcript_get_property;
  object_class->set_property = zot_transcript_set_property;

  /**
   * ZotTranscript:show-startup:
   *
   * Whether a compact section at the top lists the active extensions.
   */
  properties [PROP_SHOW_STARTUP] =
    g_param_spec_boolean ("show-startup", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-transcript.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotTranscript, scrolled_window);
  gtk_widget_class_bind_template_child (widget_class, ZotTranscript, startup_label);
  gtk_widget_class_bind_template_child (widget_class, ZotTranscript, list);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "transcript");
}

static void
zot_transcript_init (ZotTranscript *self)
{
  GtkAdjustment *vadjustment;

  g_type_ensure (ADW_TYPE_CLAMP);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->stick_to_bottom = TRUE;
  self->tool_rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) tool_row_free);

  vadjustment = gtk_scrolled_window_get_vadjustment (self->scrolled_window);
  g_signal_connect_object (vadjustment, "value-changed",
                           G_CALLBACK (on_vadjustment_value_changed_cb), self, 0);
  g_signal_connect_object (vadjustment, "changed",
                           G_CALLBACK (on_vadjustment_changed_cb), self, 0);

  self->host_signals = g_signal_group_new (ZOT_TYPE_HOST);
  g_signal_group_connect (self->host_signals, "info", G_CALLBACK (on_host_info_cb), self);
  g_signal_group_connect (self->host_signals, "command-replied",
                          G_CALLBACK (on_host_command_replied_cb), self);
  g_signal_group_connect (self->host_signals, "warning", G_CALLBACK (on_host_warning_cb), self);

  self->agent_signals = g_signal_group_new (ZOT_TYPE_AGENT);
  g_signal_group_connect (self->agent_signals, "user-message",
                          G_CALLBACK (on_agent_user_message_cb), self);
  g_signal_group_connect (self->agent_signals, "assistant-start",
                          G_CALLBACK (on_agent_assistant_start_cb), self);
  g_signal_group_connect (self->agent_signals, "text-delta",
                          G_CALLBACK (on_agent_text_delta_cb), self);
  g_signal_group_connect (self->agent_signals, "assistant-message",
                          G_CALLBACK (on_agent_assistant_message_cb), self);
  g_signal_group_connect (self->agent_signals, "tool-call",
                          G_CALLBACK (on_agent_tool_call_cb), self);
  g_signal_group_connect (self->agent_signals, "tool-result",
                          G_CALLBACK (on_agent_tool_result_cb), self);
  g_signal_group_connect (self->agent_signals, "turn-end",
                          G_CALLBACK (on_agent_turn_end_cb), self);
  g_signal_group_connect (self->agent_signals, "warning",
                          G_CALLBACK (on_agent_warning_cb), self);

  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect (self->manager_signals, "note-added",
                          G_CALLBACK (on_manager_note_added_cb), self);
  g_signal_group_connect (self->manager_signals, "load-failed",
                          G_CALLBACK (on_manager_load_failed_cb), self);
  g_signal_group_connect (self->manager_signals, "extension-crashed",
                          G_CALLBACK (on_manager_extension_crashed_cb), self);
  g_signal_group_connect (self->manager_signals, "warning",
                          G_CALLBACK (on_manager_warning_cb), self);
  g_signal_group_connect (self->manager_signals, "extension-state-changed",
                          G_CALLBACK (on_manager_extension_state_changed_cb), self);
  g_signal_group_connect (self->manager_signals, "items-changed",
                          G_CALLBACK (on_manager_items_changed_cb), self);
}

/* API */

/**
 * zot_transcript_new:
 *
 * Returns: (transfer floating): an empty transcript
 */
GtkWidget *
zot_transcript_new (void)
{
  return g_object_new (ZOT_TYPE_TRANSCRIPT, NULL);
}

/**
 * zot_transcript_set_host:
 * @self: a #ZotTranscript
 * @host: (nullable): the host to show
 *
 * Connects to @host, its agent and its extension manager (and away from
 * the previous host's).
 */
void
zot_transcript_set_host (ZotTranscript *self,
                         ZotHost       *host)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (host == NULL || ZOT_IS_HOST (host));

  if (!g_set_object (&self->host, host))
    return;

  g_signal_group_set_target (self->host_signals, host);
  g_signal_group_set_target (self->agent_signals, host ? zot_host_get_agent (host) : NULL);
  g_signal_group_set_target (self->manager_signals, host ? zot_host_get_manager (host) : NULL);

  update_startup (self);
}

/**
 * zot_transcript_get_host:
 * @self: a #ZotTranscript
 *
 * Returns: (transfer none) (nullable): the host shown
 */
ZotHost *
zot_transcript_get_host (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), NULL);

  return self->host;
}

/**
 * zot_transcript_clear:
 * @self: a #ZotTranscript
 *
 * Removes every row: messages, tool calls, notes and load failures. The
 * startup section stays.
 */
void
zot_transcript_clear (ZotTranscript *self)
{
  GtkWidget *child;

  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));

  if (self->tool_rows != NULL)
    g_hash_table_remove_all (self->tool_rows);
  end_streaming (self);

  if (self->list == NULL)
    return;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_box_remove (self->list, child);

  self->stick_to_bottom = TRUE;
}

/**
 * zot_transcript_add_note:
 * @self: a #ZotTranscript
 * @extension_name: (nullable): who sent it
 * @level: "info", "success", "warn" or "error"
 * @message: the note
 */
void
zot_transcript_add_note (ZotTranscript *self,
                         const char    *extension_name,
                         const char    *level,
                         const char    *message)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (message != NULL);

  add_level_row (self, extension_name, level, message);
}

/**
 * zot_transcript_add_error:
 * @self: a #ZotTranscript
 * @message: what went wrong, for the user
 */
void
zot_transcript_add_error (ZotTranscript *self,
                          const char    *message)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (message != NULL);

  add_level_row (self, NULL, "error", message);
}

/**
 * zot_transcript_add_info:
 * @self: a #ZotTranscript
 * @text: host output such as /help, shown in a monospace font
 */
void
zot_transcript_add_info (ZotTranscript *self,
                         const char    *text)
{
  GtkWidget *row;
  GtkWidget *label;

  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));
  g_return_if_fail (text != NULL);

  label = text_block_new (text, TRUE);

  row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_add_css_class (row, "info-row");
  gtk_box_append (GTK_BOX (row), label);
  add_row (self, row);
}

gboolean
zot_transcript_get_show_startup (ZotTranscript *self)
{
  g_return_val_if_fail (ZOT_IS_TRANSCRIPT (self), FALSE);

  return self->show_startup;
}

void
zot_transcript_set_show_startup (ZotTranscript *self,
                                 gboolean       show_startup)
{
  g_return_if_fail (ZOT_IS_TRANSCRIPT (self));

  show_startup = !!show_startup;
  if (self->show_startup == show_startup)
    return;

  self->show_startup = show_startup;
  update_startup (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_SHOW_STARTUP]);
}
