/* zot-resource-picker.c — "Attach resource…" beside the prompt. The MCP
 * bridge (extensions/mcp) registers mcp_resources and mcp_read_resource
 * once a server offers resources; the picker calls them as any tool is
 * called, through the extension manager, so it needs no channel of its
 * own to the bridge and each call has the host's tool deadline. It is
 * shown only while mcp_resources is registered. */
#define G_LOG_DOMAIN "zot-resource-picker"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

#include "zot-limits.h"
#include "zot-message.h"
#include "zot-prompt-editor-private.h"
#include "zot-resource-picker.h"
#include "zot-tooltip.h"

#define RESOURCES_TOOL "mcp_resources"
#define READ_RESOURCE_TOOL "mcp_read_resource"

struct _ZotResourcePicker
{
  GtkWidget        parent_instance;
  ZotPromptEditor *editor;   /* unowned: the editor owns the picker */
  GtkWidget       *button;
  GtkPopover      *popover;
  GtkSearchEntry  *search;
  GtkListBox      *list;
  GtkLabel        *status;
  GSignalGroup    *manager_signals;
  GCancellable    *cancellable;  /* the listing or read under way */
};

G_DEFINE_FINAL_TYPE (ZotResourcePicker, zot_resource_picker, GTK_TYPE_WIDGET)

static ZotTool *
find_tool (ZotResourcePicker *self,
           const char        *name)
{
  ZotHost *host = zot_prompt_editor_get_host (self->editor);
  g_autoptr(GPtrArray) tools = NULL;

  if (host == NULL)
    return NULL;
  tools = zot_extension_manager_list_tools (zot_host_get_manager (host));
  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (zot_tool_get_name (g_ptr_array_index (tools, i)), name))
      return g_object_ref (g_ptr_array_index (tools, i));
  return NULL;
}

static void
set_status (ZotResourcePicker *self,
            const char        *text)
{
  gtk_label_set_text (self->status, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status), text != NULL && *text != '\0');
}

static void
update_visible (ZotResourcePicker *self)
{
  g_autoptr(ZotTool) tool = find_tool (self, RESOURCES_TOOL);

  gtk_widget_set_visible (GTK_WIDGET (self), tool != NULL);
}

typedef struct
{
  ZotResourcePicker *self;
  GCancellable      *cancellable;
  char              *uri;          /* of a read */
} Call;

static void
call_free (Call *call)
{
  g_object_unref (call->self);
  g_object_unref (call->cancellable);
  g_free (call->uri);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Call, call_free)

/* A new call replaces the one under way; closing the list, or the
 * picker going away, stops it. The tool's deadline is the host's. */
static void
call_tool (ZotResourcePicker   *self,
           ZotTool             *tool,
           JsonObject          *args,
           const char          *uri,
           GAsyncReadyCallback  callback)
{
  ZotHost *host = zot_prompt_editor_get_host (self->editor);
  ZotToolContext context = { .cwd = zot_agent_get_cwd (zot_host_get_agent (host)), .interactive = TRUE };
  Call *call = g_new0 (Call, 1);
  g_autoptr(JsonObject) owned = args;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  call->self = g_object_ref (self);
  call->cancellable = g_object_ref (self->cancellable);
  call->uri = g_strdup (uri);
  zot_tool_execute_async (tool, args, &context, call->cancellable, callback, call);
}

/* The answer, or %NULL when the call was stopped or replaced, or failed:
 * the status then says why. */
static ZotToolResult *
finish_call (Call         *call,
             GObject      *tool,
             GAsyncResult *result)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ZotToolResult) answer = zot_tool_execute_finish (ZOT_TOOL (tool), result, &error);
  g_autofree char *failure = NULL;

  if (g_cancellable_is_cancelled (call->cancellable))
    return NULL;
  g_clear_object (&call->self->cancellable);
  if (answer == NULL)
    failure = g_strdup (error->message);
  else if (answer->is_error)
    failure = zot_content_get_text (answer->content);
  if (failure != NULL)
    set_status (call->self, failure);
  return failure != NULL ? NULL : g_steal_pointer (&answer);
}

/* The list */

static gboolean
filter_row (GtkListBoxRow *row,
            gpointer       user_data)
{
  ZotResourcePicker *self = user_data;
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search));
  g_autofree char *wanted = g_utf8_casefold (query, -1);
  g_autofree char *haystack = NULL;

  if (*wanted == '\0')
    return TRUE;
  haystack = g_utf8_casefold (g_object_get_data (G_OBJECT (row), "zot-resource-haystack"), -1);
  return strstr (haystack, wanted) != NULL;
}

static void
on_search_changed_cb (GtkSearchEntry    *entry,
                      ZotResourcePicker *self)
{
  gtk_list_box_invalidate_filter (self->list);
}

static void
add_row (ZotResourcePicker *self,
         JsonObject        *resource)
{
  const char *server = json_object_get_string_member_with_default (resource, "server", "");
  const char *uri = json_object_get_string_member_with_default (resource, "uri", "");
  const char *name = json_object_get_string_member_with_default (resource, "name", "");
  const char *description = json_object_get_string_member_with_default (resource, "description", "");
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *subtitle = g_strdup_printf ("%s · %s", server, uri);

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), *name != '\0' ? name : uri);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 1);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  zot_tooltip_set (row, *description != '\0' ? description : uri);
  g_object_set_data_full (G_OBJECT (row), "zot-resource-server", g_strdup (server), g_free);
  g_object_set_data_full (G_OBJECT (row), "zot-resource-uri", g_strdup (uri), g_free);
  g_object_set_data_full (G_OBJECT (row), "zot-resource-haystack",
                          g_strjoin ("\n", name, uri, server, description, NULL), g_free);
  gtk_list_box_append (self->list, row);
}

static void
listed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Call) call = user_data;
  ZotResourcePicker *self = call->self;
  g_autoptr(ZotToolResult) answer = finish_call (call, object, result);
  JsonNode *structured;
  JsonArray *resources = NULL;

  if (answer == NULL)
    return;
  structured = answer->structured_content;
  if (structured != NULL && JSON_NODE_HOLDS_OBJECT (structured) &&
      json_object_has_member (json_node_get_object (structured), "resources"))
    resources = json_object_get_array_member (json_node_get_object (structured), "resources");
  for (guint i = 0; resources != NULL && i < json_array_get_length (resources); i++)
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (resources, i)))
      add_row (self, json_array_get_object_element (resources, i));
  set_status (self, gtk_widget_get_first_child (GTK_WIDGET (self->list)) == NULL
                    ? _("The MCP servers offer no resources") : NULL);
}

/**
 * zot_resource_picker_popup:
 *
 * Opens the list, empty, and asks the servers for their resources.
 */
void
zot_resource_picker_popup (ZotResourcePicker *self)
{
  g_autoptr(ZotTool) tool = NULL;
  GtkWidget *child;

  g_return_if_fail (ZOT_IS_RESOURCE_PICKER (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  gtk_editable_set_text (GTK_EDITABLE (self->search), "");
  gtk_popover_popup (self->popover);
  tool = find_tool (self, RESOURCES_TOOL);
  if (tool == NULL)
    {
      set_status (self, _("No MCP server offers resources"));
      return;
    }
  set_status (self, _("Listing resources…"));
  call_tool (self, tool, json_object_new (), NULL, listed_cb);
}

/* Reading the chosen one */

/* At most ZOT_MCP_ATTACH_MAX_BYTES, cut at a character's end. */
static char *
bounded_text (const char *text)
{
  gsize length = strlen (text);
  const char *end;

  if (length <= ZOT_MCP_ATTACH_MAX_BYTES)
    return g_strdup (text);
  end = g_utf8_find_prev_char (text, text + ZOT_MCP_ATTACH_MAX_BYTES + 1);
  /* Translators: after a resource's text that was cut; %u is how many KiB were kept */
  return g_strdup_printf (_("%.*s\n[cut at %u KiB]"), (int) (end - text), text,
                          (guint) (ZOT_MCP_ATTACH_MAX_BYTES / 1024));
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(Call) call = user_data;
  ZotResourcePicker *self = call->self;
  g_autoptr(ZotToolResult) answer = finish_call (call, object, result);
  g_autofree char *text = NULL;
  g_autofree char *bounded = NULL;

  if (answer == NULL || self->editor == NULL)
    return;
  text = zot_content_get_text (answer->content);
  bounded = bounded_text (text != NULL ? text : "");
  zot_prompt_editor_attach_text (self->editor, call->uri, bounded);
  set_status (self, NULL);
  gtk_popover_popdown (self->popover);
}

static void
on_row_activated_cb (GtkListBox        *list,
                     GtkListBoxRow     *row,
                     ZotResourcePicker *self)
{
  g_autoptr(ZotTool) tool = find_tool (self, READ_RESOURCE_TOOL);
  JsonObject *args;

  if (tool == NULL)
    {
      set_status (self, _("No MCP server offers resources"));
      return;
    }
  args = json_object_new ();
  json_object_set_string_member (args, "server", g_object_get_data (G_OBJECT (row), "zot-resource-server"));
  json_object_set_string_member (args, "uri", g_object_get_data (G_OBJECT (row), "zot-resource-uri"));
  set_status (self, _("Reading…"));
  call_tool (self, tool, args, g_object_get_data (G_OBJECT (row), "zot-resource-uri"), read_cb);
}

static void
on_button_clicked_cb (GtkButton         *button,
                      ZotResourcePicker *self)
{
  zot_resource_picker_popup (self);
}

static void
on_popover_closed_cb (GtkPopover        *popover,
                      ZotResourcePicker *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
}

static void
on_host_changed_cb (ZotPromptEditor   *editor,
                    GParamSpec        *pspec,
                    ZotResourcePicker *self)
{
  ZotHost *host = zot_prompt_editor_get_host (editor);

  g_signal_group_set_target (self->manager_signals, host != NULL ? zot_host_get_manager (host) : NULL);
  update_visible (self);
}

static void
on_tools_changed_cb (ZotResourcePicker *self)
{
  update_visible (self);
}

/* Accessors for the tests */

GtkEditable *
_zot_resource_picker_get_search (ZotResourcePicker *self)
{
  return GTK_EDITABLE (self->search);
}

GtkListBox *
_zot_resource_picker_get_list (ZotResourcePicker *self)
{
  return self->list;
}

const char *
_zot_resource_picker_get_status (ZotResourcePicker *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->status)) ? gtk_label_get_text (self->status) : "";
}

gboolean
_zot_resource_picker_is_busy (ZotResourcePicker *self)
{
  return self->cancellable != NULL;
}

static void
zot_resource_picker_dispose (GObject *object)
{
  ZotResourcePicker *self = ZOT_RESOURCE_PICKER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->editor != NULL)
    g_signal_handlers_disconnect_by_data (self->editor, self);
  self->editor = NULL;
  g_clear_object (&self->manager_signals);
  g_clear_pointer ((GtkWidget **) &self->popover, gtk_widget_unparent);
  g_clear_pointer (&self->button, gtk_widget_unparent);
  G_OBJECT_CLASS (zot_resource_picker_parent_class)->dispose (object);
}

static void
zot_resource_picker_class_init (ZotResourcePickerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = zot_resource_picker_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
}

static void
zot_resource_picker_init (ZotResourcePicker *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  /* Translators: the button beside the message that attaches a resource of an MCP server */
  const char *label = _("Attach resource…");

  self->button = gtk_button_new_from_icon_name ("mail-attachment-symbolic");
  gtk_widget_add_css_class (self->button, "flat");
  gtk_widget_set_valign (self->button, GTK_ALIGN_END);
  zot_tooltip_set (self->button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  gtk_widget_set_parent (self->button, GTK_WIDGET (self));
  g_signal_connect (self->button, "clicked", G_CALLBACK (on_button_clicked_cb), self);

  self->search = GTK_SEARCH_ENTRY (gtk_search_entry_new ());
  /* Translators: the search field of the list of MCP resources to attach */
  g_object_set (self->search, "placeholder-text", _("Search resources"), NULL);
  g_signal_connect (self->search, "search-changed", G_CALLBACK (on_search_changed_cb), self);

  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_list_box_set_filter_func (self->list, filter_row, self, NULL);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  g_signal_connect (self->list, "row-activated", G_CALLBACK (on_row_activated_cb), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  /* Translators: the name screen readers give the list of MCP resources */
                                  _("Resources"), -1);

  self->status = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->status, TRUE);
  gtk_label_set_max_width_chars (self->status, 40);
  gtk_widget_add_css_class (GTK_WIDGET (self->status), "dim-label");

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 320);
  gtk_widget_set_size_request (scrolled, 360, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list));

  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->search));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->status));
  gtk_box_append (GTK_BOX (box), scrolled);
  self->popover = GTK_POPOVER (gtk_popover_new ());
  gtk_popover_set_child (self->popover, box);
  gtk_popover_set_position (self->popover, GTK_POS_TOP);
  gtk_widget_set_parent (GTK_WIDGET (self->popover), self->button);
  g_signal_connect (self->popover, "closed", G_CALLBACK (on_popover_closed_cb), self);

  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect_swapped (self->manager_signals, "tools-changed", G_CALLBACK (on_tools_changed_cb), self);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
zot_resource_picker_new (ZotPromptEditor *editor)
{
  ZotResourcePicker *self = g_object_new (ZOT_TYPE_RESOURCE_PICKER, NULL);

  self->editor = editor;
  g_signal_connect (editor, "notify::host", G_CALLBACK (on_host_changed_cb), self);
  on_host_changed_cb (editor, NULL, self);
  return GTK_WIDGET (self);
}
