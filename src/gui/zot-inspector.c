/* zot-inspector.c — lifecycle events and raw frame traffic
 *
 * Two lists: the lifecycle events as the manager emits them (time,
 * sequence, name; the frame pretty-printed in an expander), and the raw
 * frames both ways (time, direction, extension, type, the line). A host →
 * extension request (command_invoked, tool_call, event_intercept) with an
 * "id" is remembered, so that the extension's frame with the same "id"
 * shows the round trip in milliseconds. Reading "type" and "id" is all the
 * inspector does with a frame: it displays, it never acts.
 *
 * Frame tracing costs the host a copy of every line, so it is on only
 * while the inspector is mapped. Rows arrive in batches (one idle per
 * burst) and each list keeps its newest MAX_* rows.
 *
 * ZotInspectorEntry, the item of both lists, lives here too: nothing else
 * makes one. Its rows are ZotInspectorEventRow and ZotInspectorFrameRow.
 */
#define G_LOG_DOMAIN "zot-inspector"

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "zot-accessible.h"
#include "zot-inspector.h"
#include "zot-inspector-event-row.h"
#include "zot-inspector-frame-row.h"
#include "zot-inspector-private.h"
#include "zot-json.h"

#define MAX_EVENTS 2000
#define MAX_FRAMES 5000
#define MAX_PENDING_REQUESTS 4096
#define PREVIEW_BYTES 400

/* ZotInspectorEntry */

typedef enum
{
  ENTRY_EVENT,
  ENTRY_FRAME,
} EntryKind;

struct _ZotInspectorEntry
{
  GObject            parent_instance;

  EntryKind          kind;
  char              *time;        /* HH:MM:SS.mmm */
  char              *name;        /* event name, or frame type */
  char              *extension;   /* frames only */
  ZotFrameDirection  direction;
  char              *text;        /* the raw line, or the event frame; valid UTF-8 */
  char              *preview;     /* the start of text, on one line */
  gint64             sequence;    /* events; -1 when unknown */
  double             latency_ms;  /* responses; < 0 when unknown */
};

G_DEFINE_FINAL_TYPE (ZotInspectorEntry, zot_inspector_entry, G_TYPE_OBJECT)

static void
zot_inspector_entry_finalize (GObject *object)
{
  ZotInspectorEntry *self = (ZotInspectorEntry *)object;

  g_clear_pointer (&self->time, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->extension, g_free);
  g_clear_pointer (&self->text, g_free);
  g_clear_pointer (&self->preview, g_free);

  G_OBJECT_CLASS (zot_inspector_entry_parent_class)->finalize (object);
}

static void
zot_inspector_entry_class_init (ZotInspectorEntryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zot_inspector_entry_finalize;
}

static void
zot_inspector_entry_init (ZotInspectorEntry *self)
{
  self->sequence = -1;
  self->latency_ms = -1;
}

static char *
format_time (gint64 usec)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);
  g_autofree char *hms = g_date_time_format (time, "%H:%M:%S");

  return g_strdup_printf ("%s.%03d", hms, (int) ((usec % G_USEC_PER_SEC) / 1000));
}

/* The start of @text, cut on a character boundary, on one line. */
static char *
make_preview (const char *text)
{
  gsize len = strlen (text);
  char *preview;

  if (len <= PREVIEW_BYTES)
    {
      preview = g_strdup (text);
    }
  else
    {
      const char *end = text + PREVIEW_BYTES;

      while (end > text && ((guchar) *end & 0xc0) == 0x80)
        end--;
      preview = g_strdup_printf ("%.*s…", (int) (end - text), text);
    }

  return g_strdelimit (preview, "\n\r\t", ' ');
}

static ZotInspectorEntry *
entry_new (EntryKind   kind,
           const char *name,
           const char *text)
{
  ZotInspectorEntry *self = g_object_new (ZOT_TYPE_INSPECTOR_ENTRY, NULL);

  self->kind = kind;
  self->time = format_time (g_get_real_time ());
  self->name = g_utf8_make_valid (name, -1);
  self->text = g_utf8_make_valid (text, -1);
  self->preview = make_preview (self->text);
  return self;
}

/**
 * _zot_inspector_entry_dup_pretty_text:
 *
 * Returns: (transfer full): the text as pretty JSON, for the payload view
 *   and the clipboard; the raw text when it does not parse
 */
char *
_zot_inspector_entry_dup_pretty_text (ZotInspectorEntry *self)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), NULL);

  if (!zot_json_parser_load (parser, self->text, -1, NULL) ||
      json_parser_get_root (parser) == NULL)
    return g_strdup (self->text);

  return json_to_string (json_parser_get_root (parser), TRUE);
}

const char *
_zot_inspector_entry_get_name (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), NULL);
  return self->name;
}

const char *
_zot_inspector_entry_get_extension (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), NULL);
  return self->extension;
}

ZotFrameDirection
_zot_inspector_entry_get_direction (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), ZOT_FRAME_DIRECTION_IN);
  return self->direction;
}

const char *
_zot_inspector_entry_get_text (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), NULL);
  return self->text;
}

/* The start of the text, on one line. */
const char *
_zot_inspector_entry_get_preview (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), NULL);
  return self->preview;
}

const char *
_zot_inspector_entry_get_time (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), NULL);
  return self->time;
}

gint64
_zot_inspector_entry_get_sequence (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), -1);
  return self->sequence;
}

double
_zot_inspector_entry_get_latency_ms (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), -1);
  return self->latency_ms;
}

/**
 * _zot_inspector_entry_dup_copy_text:
 *
 * Returns: (transfer full): what "Copy" puts on the clipboard: the raw
 *   line of a frame, the pretty-printed frame of an event
 */
char *
_zot_inspector_entry_dup_copy_text (ZotInspectorEntry *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR_ENTRY (self), NULL);

  if (self->kind == ENTRY_EVENT)
    return _zot_inspector_entry_dup_pretty_text (self);
  return g_strdup (self->text);
}

/**
 * _zot_inspector_entry_copy:
 *
 * What a row's "Copy" does: _zot_inspector_entry_dup_copy_text() onto
 * @clipboard.
 */
void
_zot_inspector_entry_copy (ZotInspectorEntry *self,
                           GdkClipboard      *clipboard)
{
  g_autofree char *text = NULL;

  g_return_if_fail (ZOT_IS_INSPECTOR_ENTRY (self));
  g_return_if_fail (GDK_IS_CLIPBOARD (clipboard));

  text = _zot_inspector_entry_dup_copy_text (self);
  gdk_clipboard_set_text (clipboard, text);
}

/* ZotInspector */

struct _ZotInspector
{
  GtkWidget            parent_instance;

  ZotExtensionManager *manager;
  GSignalGroup        *manager_signals;
  gulong               traffic_id;
  gboolean             tracing;

  GListStore          *events;
  GListStore          *frames;
  GtkCustomFilter     *filter;
  GtkFilterListModel  *events_filtered;
  GtkFilterListModel  *frames_filtered;
  GPtrArray           *queued_events;
  GPtrArray           *queued_frames;
  guint                flush_source;

  /* "extension\nid" → monotonic µs of a request awaiting its answer */
  GHashTable          *pending;

  GtkStringList       *extension_names;
  char                *filter_extension;
  char                *search;

  /* Template widgets */
  GtkBox              *box;
  GtkDropDown         *extension_dropdown;
  GtkSearchEntry      *search_entry;
  GtkStack            *stack;
  GtkScrolledWindow   *events_scroller;
  GtkListView         *events_list;
  GtkScrolledWindow   *traffic_scroller;
  GtkListView         *traffic_list;
};

enum {
  PROP_0,
  PROP_MANAGER,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

G_DEFINE_FINAL_TYPE (ZotInspector, zot_inspector, GTK_TYPE_WIDGET)

static gboolean
filter_func (gpointer item,
             gpointer user_data)
{
  ZotInspector *self = user_data;
  ZotInspectorEntry *entry = item;

  if (entry->kind == ENTRY_FRAME && self->filter_extension != NULL &&
      g_strcmp0 (entry->extension, self->filter_extension) != 0)
    return FALSE;

  if (self->search == NULL)
    return TRUE;

  return strcasestr (entry->name, self->search) != NULL ||
         strcasestr (entry->text, self->search) != NULL;
}

static void
refilter (ZotInspector *self)
{
  if (self->filter != NULL)
    gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static gboolean
scrolled_to_bottom (GtkScrolledWindow *scroller)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (scroller);

  return gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 1;
}

static void
on_upper_changed_cb (GtkAdjustment *adjustment,
                     GParamSpec    *pspec,
                     gpointer       user_data)
{
  g_signal_handlers_disconnect_by_func (adjustment, on_upper_changed_cb, user_data);
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
}

/* Moves the queued rows into @store, keeping its newest @max rows. */
static void
flush_queue (ZotInspector      *self,
             GListStore        *store,
             GPtrArray         *queue,
             guint              max,
             GtkScrolledWindow *scroller)
{
  guint n_items;
  guint start;
  guint incoming;
  guint drop;

  if (queue->len == 0)
    return;

  /* A reader at the bottom follows the newest rows. */
  if (gtk_widget_get_mapped (GTK_WIDGET (scroller)) && scrolled_to_bottom (scroller))
    g_signal_connect (gtk_scrolled_window_get_vadjustment (scroller), "notify::upper",
                      G_CALLBACK (on_upper_changed_cb), NULL);

  n_items = g_list_model_get_n_items (G_LIST_MODEL (store));
  start = queue->len > max ? queue->len - max : 0;
  incoming = queue->len - start;
  drop = MIN (n_items, n_items + incoming > max ? n_items + incoming - max : 0);

  if (drop > 0)
    g_list_store_splice (store, 0, drop, NULL, 0);
  g_list_store_splice (store, n_items - drop, 0, queue->pdata + start, incoming);
  g_ptr_array_set_size (queue, 0);
}

static gboolean
flush_cb (gpointer data)
{
  ZotInspector *self = data;

  self->flush_source = 0;
  flush_queue (self, self->events, self->queued_events, MAX_EVENTS, self->events_scroller);
  flush_queue (self, self->frames, self->queued_frames, MAX_FRAMES, self->traffic_scroller);

  return G_SOURCE_REMOVE;
}

static void
queue_entry (ZotInspector      *self,
             GPtrArray         *queue,
             ZotInspectorEntry *entry,
             guint              max)
{
  g_ptr_array_add (queue, entry);

  /* A flood that starves the idle must not grow the queue without end. */
  if (queue->len > 2 * max)
    g_ptr_array_remove_range (queue, 0, queue->len - max);

  if (self->flush_source == 0)
    self->flush_source = g_idle_add_full (G_PRIORITY_DEFAULT, flush_cb, self, NULL);
}

static void
add_extension_name (ZotInspector *self,
                    const char   *name)
{
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (self->extension_names));

  if (name == NULL)
    return;

  /* Item 0 is "All extensions". */
  for (guint i = 1; i < n_items; i++)
    if (g_strcmp0 (gtk_string_list_get_string (self->extension_names, i), name) == 0)
      return;

  gtk_string_list_append (self->extension_names, name);
}

static void
on_manager_items_changed_cb (ZotInspector *self,
                             guint         position,
                             guint         removed,
                             guint         added,
                             GListModel   *model)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(ZotExtension) extension = g_list_model_get_item (model, i);

      add_extension_name (self, zot_extension_get_name (extension));
    }
}

static void
on_lifecycle_event_cb (ZotInspector *self,
                       const char   *name,
                       JsonObject   *frame)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;
  ZotInspectorEntry *entry;

  json_node_set_object (node, frame);
  text = json_to_string (node, FALSE);

  entry = entry_new (ENTRY_EVENT, name ? name : "", text);
  entry->sequence = json_object_get_int_member_with_default (frame, "sequence", -1);
  queue_entry (self, self->queued_events, entry, MAX_EVENTS);
}

/* Not protocol events, but moments of the extension's life worth seeing
 * beside them: watch mode or the supervisor replaced its process, or the
 * supervisor gave up on it. */
static void
add_lifecycle_row (ZotInspector *self,
                   ZotExtension *extension,
                   const char   *event,
                   JsonObject   *frame)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;
  ZotInspectorEntry *entry;

  json_object_set_string_member (frame, "event", event);
  json_object_set_string_member (frame, "extension", zot_extension_get_name (extension));
  json_object_set_string_member (frame, "state",
                                 zot_extension_state_to_string (zot_extension_get_state (extension)));
  json_node_set_object (node, frame);
  text = json_to_string (node, FALSE);

  entry = entry_new (ENTRY_EVENT, event, text);
  entry->extension = g_strdup (zot_extension_get_name (extension));
  queue_entry (self, self->queued_events, entry, MAX_EVENTS);
}

static void
on_extension_reloaded_cb (ZotInspector *self,
                          ZotExtension *extension,
                          const char   *reason)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  json_object_set_string_member (frame, "reason", reason ? reason : "");
  add_lifecycle_row (self, extension, "extension_reloaded", frame);
}

static void
on_extension_restarted_cb (ZotInspector *self,
                           ZotExtension *extension,
                           guint         attempt,
                           const char   *reason)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  json_object_set_int_member (frame, "attempt", attempt);
  json_object_set_string_member (frame, "reason", reason ? reason : "");
  add_lifecycle_row (self, extension, "extension_restarted", frame);
}

static void
on_extension_gave_up_cb (ZotInspector *self,
                         ZotExtension *extension,
                         const char   *note)
{
  g_autoptr(JsonObject) frame = json_object_new ();

  json_object_set_string_member (frame, "note", note ? note : "");
  add_lifecycle_row (self, extension, "extension_gave_up", frame);
}

static void
on_frame_traffic_cb (ZotInspector *self,
                     ZotExtension *extension,
                     int           direction,
                     const char   *line)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *extension_name = zot_extension_get_name (extension);
  const char *type = NULL;
  const char *id = NULL;
  gint64 now = g_get_monotonic_time ();
  ZotInspectorEntry *entry;

  if (line == NULL)
    return;

  if (zot_json_parser_load (parser, line, -1, NULL) &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      JsonObject *object = json_node_get_object (json_parser_get_root (parser));

      type = zot_json_get_string (object, "type");
      id = zot_json_get_string (object, "id");
    }

  entry = entry_new (ENTRY_FRAME, type ? type : _("(not a frame)"), line);
  entry->extension = g_strdup (extension_name);
  entry->direction = direction;

  if (id != NULL)
    {
      g_autofree char *key = g_strdup_printf ("%s\n%s", extension_name, id);
      gpointer sent;

      if (direction == ZOT_FRAME_DIRECTION_OUT && type != NULL &&
          g_strv_contains (zot_extension_get_request_types (), type))
        {
          if (g_hash_table_size (self->pending) >= MAX_PENDING_REQUESTS)
            g_hash_table_remove_all (self->pending);
          g_hash_table_insert (self->pending, g_steal_pointer (&key), g_memdup2 (&now, sizeof now));
        }
      else if (direction == ZOT_FRAME_DIRECTION_IN &&
               g_hash_table_lookup_extended (self->pending, key, NULL, &sent))
        {
          entry->latency_ms = (now - *(gint64 *) sent) / 1000.0;
          g_hash_table_remove (self->pending, key);
        }
    }

  add_extension_name (self, extension_name);
  queue_entry (self, self->queued_frames, entry, MAX_FRAMES);
}

static void
start_tracing (ZotInspector *self)
{
  if (self->tracing || self->manager == NULL)
    return;

  self->traffic_id = g_signal_connect_object (self->manager, "frame-traffic",
                                              G_CALLBACK (on_frame_traffic_cb), self,
                                              G_CONNECT_SWAPPED);
  zot_extension_manager_set_trace_traffic (self->manager, TRUE);
  self->tracing = TRUE;
}

static void
stop_tracing (ZotInspector *self)
{
  if (!self->tracing)
    return;

  g_clear_signal_handler (&self->traffic_id, self->manager);
  zot_extension_manager_set_trace_traffic (self->manager, FALSE);
  self->tracing = FALSE;

  /* Answers that arrive while nobody looks cannot be matched. */
  g_hash_table_remove_all (self->pending);
}

static void
on_extension_dropdown_selected_cb (ZotInspector *self,
                                   GParamSpec   *pspec,
                                   GtkDropDown  *dropdown)
{
  guint selected = gtk_drop_down_get_selected (dropdown);
  const char *name = NULL;

  if (selected != GTK_INVALID_LIST_POSITION && selected > 0)
    name = gtk_string_list_get_string (self->extension_names, selected);

  if (g_strcmp0 (name, self->filter_extension) == 0)
    return;

  g_free (self->filter_extension);
  self->filter_extension = g_strdup (name);
  refilter (self);
}

static void
on_search_entry_search_changed_cb (ZotInspector   *self,
                                   GtkSearchEntry *entry)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  const char *search = text != NULL && *text != '\0' ? text : NULL;

  if (g_strcmp0 (search, self->search) == 0)
    return;

  g_free (self->search);
  self->search = g_strdup (search);
  refilter (self);
}

static void
on_clear_button_clicked_cb (ZotInspector *self,
                            GtkButton    *button)
{
  zot_inspector_clear (self);
}

/* Rows: one widget per list item, shown again for another item as the
 * list scrolls. */

static void
setup_row_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  row_type)
{
  gtk_list_item_set_activatable (item, FALSE);
  gtk_list_item_set_child (item, g_object_new (GPOINTER_TO_SIZE (row_type), NULL));
}

static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  row_type)
{
  g_object_set (gtk_list_item_get_child (item), "entry", gtk_list_item_get_item (item), NULL);
}

static void
unbind_row_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  row_type)
{
  g_object_set (gtk_list_item_get_child (item), "entry", NULL, NULL);
}

/* @row_type: a widget with an "entry" property */
static GtkListItemFactory *
factory_new (GType row_type)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  gpointer data = GSIZE_TO_POINTER (row_type);

  g_signal_connect (factory, "setup", G_CALLBACK (setup_row_cb), data);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row_cb), data);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_row_cb), data);
  return factory;
}

/* GObject */

static void
zot_inspector_map (GtkWidget *widget)
{
  ZotInspector *self = ZOT_INSPECTOR (widget);

  GTK_WIDGET_CLASS (zot_inspector_parent_class)->map (widget);
  start_tracing (self);
}

static void
zot_inspector_unmap (GtkWidget *widget)
{
  ZotInspector *self = ZOT_INSPECTOR (widget);

  stop_tracing (self);
  GTK_WIDGET_CLASS (zot_inspector_parent_class)->unmap (widget);
}

static void
zot_inspector_dispose (GObject *object)
{
  ZotInspector *self = (ZotInspector *)object;

  stop_tracing (self);
  g_clear_handle_id (&self->flush_source, g_source_remove);
  if (self->manager_signals != NULL)
    g_signal_group_set_target (self->manager_signals, NULL);
  g_clear_object (&self->manager_signals);
  g_clear_object (&self->manager);

  gtk_widget_dispose_template (GTK_WIDGET (self), ZOT_TYPE_INSPECTOR);

  g_clear_object (&self->events_filtered);
  g_clear_object (&self->frames_filtered);
  g_clear_object (&self->filter);
  g_clear_object (&self->events);
  g_clear_object (&self->frames);
  g_clear_object (&self->extension_names);

  G_OBJECT_CLASS (zot_inspector_parent_class)->dispose (object);
}

static void
zot_inspector_finalize (GObject *object)
{
  ZotInspector *self = (ZotInspector *)object;

  g_clear_pointer (&self->queued_events, g_ptr_array_unref);
  g_clear_pointer (&self->queued_frames, g_ptr_array_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->filter_extension, g_free);
  g_clear_pointer (&self->search, g_free);

  G_OBJECT_CLASS (zot_inspector_parent_class)->finalize (object);
}

static void
zot_inspector_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  ZotInspector *self = ZOT_INSPECTOR (object);

  switch (prop_id)
    {
    case PROP_MANAGER:
      g_value_set_object (value, self->manager);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_inspector_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  ZotInspector *self = ZOT_INSPECTOR (object);

  switch (prop_id)
    {
    case PROP_MANAGER:
      zot_inspector_set_manager (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
zot_inspector_class_init (ZotInspectorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = zot_inspector_dispose;
  object_class->finalize = zot_inspector_finalize;
  object_class->get_property = zot_inspector_get_property;
  object_class->set_property = zot_inspector_set_property;

  widget_class->map = zot_inspector_map;
  widget_class->unmap = zot_inspector_unmap;

  properties [PROP_MANAGER] =
    g_param_spec_object ("manager", NULL, NULL,
                         ZOT_TYPE_EXTENSION_MANAGER,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/zot/Zot/ui/zot-inspector.ui");
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, box);
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, extension_dropdown);
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, search_entry);
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, stack);
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, events_scroller);
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, events_list);
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, traffic_scroller);
  gtk_widget_class_bind_template_child (widget_class, ZotInspector, traffic_list);
  gtk_widget_class_bind_template_callback (widget_class, on_extension_dropdown_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_entry_search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_clear_button_clicked_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "inspector");
}

static void
zot_inspector_init (ZotInspector *self)
{
  g_autoptr(GtkListItemFactory) events_factory = NULL;
  g_autoptr(GtkListItemFactory) frames_factory = NULL;
  g_autoptr(GtkNoSelection) events_selection = NULL;
  g_autoptr(GtkNoSelection) frames_selection = NULL;

  self->extension_names = gtk_string_list_new (NULL);
  /* Translators: the first item of the inspector's list of extensions: show the events of all of
   * them */
  gtk_string_list_append (self->extension_names, _("All extensions"));

  gtk_widget_init_template (GTK_WIDGET (self));

  self->queued_events = g_ptr_array_new_with_free_func (g_object_unref);
  self->queued_frames = g_ptr_array_new_with_free_func (g_object_unref);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  self->events = g_list_store_new (ZOT_TYPE_INSPECTOR_ENTRY);
  self->frames = g_list_store_new (ZOT_TYPE_INSPECTOR_ENTRY);
  self->filter = gtk_custom_filter_new (filter_func, self, NULL);
  self->events_filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->events)),
                                                     g_object_ref (GTK_FILTER (self->filter)));
  self->frames_filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->frames)),
                                                     g_object_ref (GTK_FILTER (self->filter)));

  events_selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->events_filtered)));
  frames_selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->frames_filtered)));
  events_factory = factory_new (ZOT_TYPE_INSPECTOR_EVENT_ROW);
  frames_factory = factory_new (ZOT_TYPE_INSPECTOR_FRAME_ROW);
  gtk_list_view_set_model (self->events_list, GTK_SELECTION_MODEL (events_selection));
  gtk_list_view_set_factory (self->events_list, events_factory);
  gtk_list_view_set_model (self->traffic_list, GTK_SELECTION_MODEL (frames_selection));
  gtk_list_view_set_factory (self->traffic_list, frames_factory);

  gtk_drop_down_set_model (self->extension_dropdown, G_LIST_MODEL (self->extension_names));
  gtk_drop_down_set_selected (self->extension_dropdown, 0);
  /* Translators: the name screen readers give the inspector's choice of
   * extension, whose events it shows */
  zot_accessible_label_drop_down (self->extension_dropdown, _("Extension"));

  self->manager_signals = g_signal_group_new (ZOT_TYPE_EXTENSION_MANAGER);
  g_signal_group_connect_object (self->manager_signals, "lifecycle-event",
                                 G_CALLBACK (on_lifecycle_event_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->manager_signals, "extension-reloaded",
                                 G_CALLBACK (on_extension_reloaded_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->manager_signals, "extension-restarted",
                                 G_CALLBACK (on_extension_restarted_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->manager_signals, "extension-gave-up",
                                 G_CALLBACK (on_extension_gave_up_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->manager_signals, "items-changed",
                                 G_CALLBACK (on_manager_items_changed_cb), self, G_CONNECT_SWAPPED);
}

GtkWidget *
zot_inspector_new (void)
{
  return g_object_new (ZOT_TYPE_INSPECTOR, NULL);
}

/**
 * zot_inspector_set_manager:
 * @manager: (nullable): whose events and traffic to show
 *
 * Lifecycle events are recorded from now on; frames while the inspector
 * is mapped.
 */
void
zot_inspector_set_manager (ZotInspector        *self,
                           ZotExtensionManager *manager)
{
  g_return_if_fail (ZOT_IS_INSPECTOR (self));
  g_return_if_fail (manager == NULL || ZOT_IS_EXTENSION_MANAGER (manager));

  if (self->manager == manager)
    return;

  stop_tracing (self);
  g_set_object (&self->manager, manager);
  g_signal_group_set_target (self->manager_signals, manager);

  if (manager != NULL)
    {
      guint n_items = g_list_model_get_n_items (G_LIST_MODEL (manager));
      on_manager_items_changed_cb (self, 0, 0, n_items, G_LIST_MODEL (manager));
    }

  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    start_tracing (self);

  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MANAGER]);
}

ZotExtensionManager *
zot_inspector_get_manager (ZotInspector *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR (self), NULL);
  return self->manager;
}

/**
 * zot_inspector_clear:
 *
 * Forgets every row shown so far.
 */
void
zot_inspector_clear (ZotInspector *self)
{
  g_return_if_fail (ZOT_IS_INSPECTOR (self));

  g_ptr_array_set_size (self->queued_events, 0);
  g_ptr_array_set_size (self->queued_frames, 0);
  g_list_store_remove_all (self->events);
  g_list_store_remove_all (self->frames);
}

/**
 * _zot_inspector_get_events:
 *
 * Returns: (transfer none): the event rows that pass the filters
 */
GListModel *
_zot_inspector_get_events (ZotInspector *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR (self), NULL);
  return G_LIST_MODEL (self->events_filtered);
}

/**
 * _zot_inspector_get_traffic:
 *
 * Returns: (transfer none): the frame rows that pass the filters
 */
GListModel *
_zot_inspector_get_traffic (ZotInspector *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR (self), NULL);
  return G_LIST_MODEL (self->frames_filtered);
}

/**
 * _zot_inspector_set_filter:
 * @extension: (nullable): an extension's name, or %NULL for all
 * @search: (nullable): text to look for in the type or the line
 *
 * Sets the filter widgets as a user would, and filters at once.
 */
void
_zot_inspector_set_filter (ZotInspector *self,
                           const char   *extension,
                           const char   *search)
{
  guint n_items;
  guint selected = 0;

  g_return_if_fail (ZOT_IS_INSPECTOR (self));

  n_items = g_list_model_get_n_items (G_LIST_MODEL (self->extension_names));
  for (guint i = 1; extension != NULL && i < n_items; i++)
    if (g_strcmp0 (gtk_string_list_get_string (self->extension_names, i), extension) == 0)
      selected = i;
  gtk_drop_down_set_selected (self->extension_dropdown, selected);

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), search ? search : "");
  /* ::search-changed comes after a delay; the tests do not wait for it. */
  on_search_entry_search_changed_cb (self, self->search_entry);
}

gboolean
_zot_inspector_is_tracing (ZotInspector *self)
{
  g_return_val_if_fail (ZOT_IS_INSPECTOR (self), FALSE);
  return self->tracing;
}

/**
 * _zot_inspector_copy:
 *
 * What a row's "Copy" button does: the raw line, or the pretty-printed
 * event, onto the clipboard.
 */
void
_zot_inspector_copy (ZotInspector      *self,
                     ZotInspectorEntry *entry)
{
  g_return_if_fail (ZOT_IS_INSPECTOR (self));
  g_return_if_fail (ZOT_IS_INSPECTOR_ENTRY (entry));

  _zot_inspector_entry_copy (entry, gtk_widget_get_clipboard (GTK_WIDGET (self)));
}

/**
 * _zot_inspector_flush:
 *
 * Shows the rows still waiting for their batch.
 */
void
_zot_inspector_flush (ZotInspector *self)
{
  g_return_if_fail (ZOT_IS_INSPECTOR (self));

  g_clear_handle_id (&self->flush_source, g_source_remove);
  flush_cb (self);
}
