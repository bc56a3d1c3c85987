#define G_LOG_DOMAIN "zot-panel"

#include "config.h"

#include "zot-extension.h"
#include "zot-json.h"
#include "zot-limits.h"
#include "zot-panel.h"

struct _ZotPanel
{
  GObject   parent_instance;

  GWeakRef  extension;
  char     *extension_name;
  char     *id;
  char     *title;
  GStrv     lines;
  char     *footer;
  char     *key;
  char     *waiting_tool_id;
  ZotPanelNode *widgets;
  guint     columns;
  guint     rows;
  gboolean  open;
  gboolean  reloaded;
};

enum {
  PROP_0,
  PROP_WAITING_TOOL_ID,
  PROP_RELOADED,
  N_PROPS
};

enum {
  UPDATED,
  CLOSED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

G_DEFINE_FINAL_TYPE (ZotPanel, zot_panel, G_TYPE_OBJECT)

static const char * const keys[] = {
  "up", "down", "left", "right", "enter", "esc", "tab", "pageup", "pagedown",
  "home", "end", "backspace", "delete", "rune", NULL
};

gboolean
zot_panel_key_is_valid (const char *key)
{
  return key != NULL && g_strv_contains (keys, key);
}

static void
zot_panel_finalize (GObject *object)
{
  ZotPanel *self = (ZotPanel *)object;

  g_weak_ref_clear (&self->extension);
  g_clear_pointer (&self->extension_name, g_free);
  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->lines, g_strfreev);
  g_clear_pointer (&self->footer, g_free);
  g_clear_pointer (&self->key, g_free);
  g_clear_pointer (&self->waiting_tool_id, g_free);
  g_clear_pointer (&self->widgets, zot_panel_node_free);

  G_OBJECT_CLASS (zot_panel_parent_class)->finalize (object);
}

static void
zot_panel_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  ZotPanel *self = ZOT_PANEL (object);

  switch (prop_id)
    {
    case PROP_WAITING_TOOL_ID:
      g_value_set_string (value, self->waiting_tool_id);
      break;

    case PROP_RELOADED:
      g_value_set_boolean (value, self->reloaded);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_panel_class_init (ZotPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = zot_panel_finalize;
  object_class->get_property = zot_panel_get_property;

  /**
   * ZotPanel:waiting-tool-id: (nullable)
   *
   * The lifecycle `tool_id` of the interactive tool call that waits for
   * the user in this panel (the transcript's id of its tool row), or
   * %NULL. Set when the extension opens the panel while that call runs.
   */
  properties [PROP_WAITING_TOOL_ID] =
    g_param_spec_string ("waiting-tool-id", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * ZotPanel:reloaded:
   *
   * Its extension was reloaded in watch mode and the new process has not
   * opened nor rendered this panel yet: what it shows is the old
   * process's last content. Cleared when the new one takes it over.
   */
  properties [PROP_RELOADED] =
    g_param_spec_boolean ("reloaded", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals [UPDATED] =
    g_signal_new ("updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * ZotPanel::closed:
   * @reason: (nullable): why, when the extension's end went away
   */
  signals [CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
zot_panel_init (ZotPanel *self)
{
  g_weak_ref_init (&self->extension, NULL);
  self->lines = g_new0 (char *, 1);
  self->open = TRUE;
}

/* Validates a widget tree; each problem goes to the extension's log, and
 * the window shows an error row where it was. */
static ZotPanelNode *
read_widgets (ZotPanel *self,
              JsonNode *widgets)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(ZotExtension) extension = g_weak_ref_get (&self->extension);
  ZotPanelNode *root = zot_panel_widgets_parse (widgets, problems);

  for (guint i = 0; extension != NULL && i < problems->len; i++)
    {
      if (i == ZOT_PANEL_PROBLEMS_LOGGED)
        {
          zot_extension_log (extension, "panel \"%s\": %u more problems in its widgets",
                             self->id, problems->len - i);
          break;
        }
      zot_extension_log (extension, "panel \"%s\": %s (shown as an error row)",
                         self->id, (const char *) g_ptr_array_index (problems, i));
    }
  return root;
}

/**
 * zot_panel_update:
 * @description: an `open_panel` object or a `panel_render` frame
 *
 * Replaces the content. An empty or missing title keeps the old one.
 */
void
zot_panel_update (ZotPanel   *self,
                  JsonObject *description)
{
  const char *title;
  const char *footer;
  JsonNode *widgets;
  JsonNode *lines;

  g_return_if_fail (ZOT_IS_PANEL (self));
  g_return_if_fail (description != NULL);

  title = zot_json_get_string (description, "title");
  if (title != NULL && *title != '\0')
    {
      g_free (self->title);
      self->title = g_strdup (title);
    }

  footer = zot_json_get_string (description, "footer");
  g_free (self->footer);
  self->footer = g_strdup (footer);

  widgets = json_object_get_member (description, "widgets");
  lines = json_object_get_member (description, "lines");
  if (widgets != NULL && !JSON_NODE_HOLDS_NULL (widgets))
    {
      g_clear_pointer (&self->widgets, zot_panel_node_free);
      self->widgets = read_widgets (self, widgets);
    }
  else if (lines != NULL && JSON_NODE_HOLDS_ARRAY (lines))
    {
      JsonArray *array = json_node_get_array (lines);
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *line = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_VALUE (line) && json_node_get_value_type (line) == G_TYPE_STRING)
            g_strv_builder_add (builder, json_node_get_string (line));
          else
            g_strv_builder_add (builder, "");
        }
      g_strfreev (self->lines);
      self->lines = g_strv_builder_end (builder);
      g_clear_pointer (&self->widgets, zot_panel_node_free);
    }

  g_signal_emit (self, signals [UPDATED], 0);
}

ZotPanel *
zot_panel_new (ZotExtension *extension,
               JsonObject   *description)
{
  ZotPanel *self;
  const char *id;

  g_return_val_if_fail (ZOT_IS_EXTENSION (extension), NULL);
  g_return_val_if_fail (description != NULL, NULL);

  id = zot_json_get_string (description, "id");

  self = g_object_new (ZOT_TYPE_PANEL, NULL);
  g_weak_ref_set (&self->extension, extension);
  self->extension_name = g_strdup (zot_extension_get_name (extension));
  self->id = g_strdup (id != NULL && *id != '\0' ? id : "panel");
  self->key = g_strdup_printf ("%s/%s", self->extension_name, self->id);
  self->title = g_strdup (self->extension_name);
  zot_panel_update (self, description);

  return self;
}

const char *
zot_panel_get_id (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return self->id;
}

const char *
zot_panel_get_title (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return self->title;
}

const char * const *
zot_panel_get_lines (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return (const char * const *) self->lines;
}

/**
 * zot_panel_get_widgets:
 *
 * Returns: (transfer none) (nullable): the validated widget tree, or %NULL
 *   when the panel shows lines
 */
ZotPanelNode *
zot_panel_get_widgets (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return self->widgets;
}

/**
 * zot_panel_get_key:
 *
 * Returns: "EXTENSION/ID", which names the panel in the window (an
 *   extension's name never holds a "/"): the parameter of `win.show-panel`
 */
const char *
zot_panel_get_key (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return self->key;
}

const char *
zot_panel_get_waiting_tool_id (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return self->waiting_tool_id;
}

void
_zot_panel_set_waiting_tool_id (ZotPanel   *self,
                                const char *tool_id)
{
  g_return_if_fail (ZOT_IS_PANEL (self));

  if (g_strcmp0 (self->waiting_tool_id, tool_id) == 0)
    return;

  g_free (self->waiting_tool_id);
  self->waiting_tool_id = g_strdup (tool_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_WAITING_TOOL_ID]);
}

const char *
zot_panel_get_footer (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return self->footer;
}

const char *
zot_panel_get_extension_name (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return self->extension_name;
}

/**
 * zot_panel_dup_extension:
 *
 * Returns: (transfer full) (nullable): the owner, while it exists
 */
ZotExtension *
zot_panel_dup_extension (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), NULL);
  return g_weak_ref_get (&self->extension);
}

gboolean
zot_panel_is_open (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), FALSE);
  return self->open;
}

static gboolean
send (ZotPanel   *self,
      JsonObject *frame)
{
  g_autoptr(ZotExtension) extension = g_weak_ref_get (&self->extension);
  g_autoptr(GError) error = NULL;

  if (extension == NULL || !self->open)
    return FALSE;

  if (!zot_extension_notify (extension, frame, &error))
    {
      g_debug ("panel %s of %s: %s", self->id, self->extension_name, error->message);
      return FALSE;
    }
  return TRUE;
}

/**
 * zot_panel_send_key:
 * @key: one of the protocol's key names
 * @text: (nullable): the character, for "rune"
 */
gboolean
zot_panel_send_key (ZotPanel   *self,
                    const char *key,
                    const char *text)
{
  g_autoptr(JsonObject) frame = NULL;

  g_return_val_if_fail (ZOT_IS_PANEL (self), FALSE);
  g_return_val_if_fail (zot_panel_key_is_valid (key), FALSE);

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "panel_key");
  json_object_set_string_member (frame, "panel_id", self->id);
  json_object_set_string_member (frame, "key", key);
  if (g_str_equal (key, "rune"))
    json_object_set_string_member (frame, "text", text ? text : "");
  return send (self, frame);
}

/**
 * zot_panel_send_event:
 * @widget_id: the widget's id in the tree
 * @event: what happened: "clicked", "changed", "submit", "toggled",
 *   "selected", "activated" or "button"
 * @value: (nullable): the widget's value, JSON null when %NULL
 *
 * Tells the extension what the user did with one of its widgets.
 */
gboolean
zot_panel_send_event (ZotPanel   *self,
                      const char *widget_id,
                      const char *event,
                      JsonNode   *value)
{
  g_autoptr(JsonObject) frame = NULL;

  g_return_val_if_fail (ZOT_IS_PANEL (self), FALSE);
  g_return_val_if_fail (widget_id != NULL, FALSE);
  g_return_val_if_fail (event != NULL, FALSE);

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "panel_event");
  json_object_set_string_member (frame, "panel_id", self->id);
  json_object_set_string_member (frame, "widget_id", widget_id);
  json_object_set_string_member (frame, "event", event);
  json_object_set_member (frame, "value", value != NULL ? json_node_copy (value)
                                                        : json_node_new (JSON_NODE_NULL));
  return send (self, frame);
}

/**
 * zot_panel_resize:
 *
 * Tells the extension the panel's size in character cells, when it changed.
 */
gboolean
zot_panel_resize (ZotPanel *self,
                  guint     columns,
                  guint     rows)
{
  g_autoptr(JsonObject) frame = NULL;

  g_return_val_if_fail (ZOT_IS_PANEL (self), FALSE);

  if (columns == self->columns && rows == self->rows)
    return FALSE;
  self->columns = columns;
  self->rows = rows;

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "panel_resize");
  json_object_set_string_member (frame, "panel_id", self->id);
  json_object_set_int_member (frame, "width", columns);
  json_object_set_int_member (frame, "height", rows);
  return send (self, frame);
}

/**
 * zot_panel_close:
 *
 * The user closed it: tells the extension and closes the view.
 */
void
zot_panel_close (ZotPanel *self)
{
  g_autoptr(JsonObject) frame = NULL;

  g_return_if_fail (ZOT_IS_PANEL (self));

  if (!self->open)
    return;

  frame = json_object_new ();
  json_object_set_string_member (frame, "type", "panel_close");
  json_object_set_string_member (frame, "panel_id", self->id);
  send (self, frame);

  self->open = FALSE;
  g_signal_emit (self, signals [CLOSED], 0, NULL);
}

gboolean
zot_panel_get_reloaded (ZotPanel *self)
{
  g_return_val_if_fail (ZOT_IS_PANEL (self), FALSE);
  return self->reloaded;
}

/* Its extension's process is being replaced: the panel stays with its
 * content until the new one takes it over with _zot_panel_adopt(). */
void
_zot_panel_mark_reloaded (ZotPanel *self)
{
  g_return_if_fail (ZOT_IS_PANEL (self));

  if (self->reloaded)
    return;
  self->reloaded = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_RELOADED]);
}

/* @extension (of the same name) opened or rendered the panel: it is the
 * owner now, and the panel is no longer marked reloaded. */
void
_zot_panel_adopt (ZotPanel     *self,
                  ZotExtension *extension)
{
  g_return_if_fail (ZOT_IS_PANEL (self));
  g_return_if_fail (ZOT_IS_EXTENSION (extension));

  g_weak_ref_set (&self->extension, extension);
  if (!self->reloaded)
    return;
  self->reloaded = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_RELOADED]);
}

void
_zot_panel_closed_by_extension (ZotPanel   *self,
                                const char *reason)
{
  g_return_if_fail (ZOT_IS_PANEL (self));

  if (!self->open)
    return;

  self->open = FALSE;
  g_signal_emit (self, signals [CLOSED], 0, reason);
}
