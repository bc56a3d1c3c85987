/* zot-manager-events.c — lifecycle events to the extensions (PROTOCOL.md §6).
 *
 * Every event gets the next sequence number of this manager, is shown to
 * ::lifecycle-event, and is serialized once for all of its subscribers.
 */
#define G_LOG_DOMAIN "zot-protocol"

#include "config.h"

#include <string.h>

#include "zot-extension-manager-private.h"
#include "zot-extension-meter-private.h"
#include "zot-extension-private.h"

void
zot_extension_manager_set_session_id (ZotExtensionManager *self,
                                      const char          *session_id)
{
  g_return_if_fail (ZOT_IS_EXTENSION_MANAGER (self));
  g_return_if_fail (session_id != NULL);

  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  g_clear_pointer (&self->event_common, g_free);
}

const char *
zot_extension_manager_get_session_id (ZotExtensionManager *self)
{
  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), NULL);
  return self->session_id;
}

void
_zot_manager_copy_member_into (JsonObject *object,
                               const char *member,
                               JsonNode   *node,
                               gpointer    user_data)
{
  json_object_set_member (user_data, member, json_node_copy (node));
}

static void
append_json_string (GString    *out,
                    const char *value)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), value);
  g_autofree char *text = json_to_string (node, FALSE);

  g_string_append (out, text);
}

/* The members every event carries between its name and its sequence,
 * escaped once per session and directory rather than once per event. */
static const char *
event_common_members (ZotExtensionManager *self)
{
  if (self->event_common == NULL)
    {
      GString *text = g_string_new (",\"session_id\":");

      append_json_string (text, self->session_id);
      g_string_append (text, ",\"cwd\":");
      append_json_string (text, self->cwd);
      g_string_append (text, ",\"sequence\":");
      self->event_common = g_string_free (text, FALSE);
    }

  return self->event_common;
}

/* Decimal digits of @value at the end of @buffer; printf showed in the
 * fan-out profile. */
static const char *
format_unsigned (char     buffer[24],
                 guint64  value)
{
  char *p = buffer + 23;

  *p = '\0';
  do
    {
      *--p = (char) ('0' + value % 10);
      value /= 10;
    }
  while (value > 0);

  return p;
}

/* `{"type":"event","event":NAME,"session_id":…,"cwd":…,"sequence":N,…payload}`
 * and a newline. Events are the busiest frames the host writes, so the line
 * is written around the payload's own serialization instead of building
 * (and deep-copying into) a second object only to serialize it. */
static GBytes *
event_line (ZotExtensionManager *self,
            const char          *name,
            guint64              sequence,
            JsonObject          *payload)
{
  GString *line = g_string_sized_new (256);
  char number[24];

  g_string_append (line, "{\"type\":\"event\",\"event\":");
  if (strspn (name, "abcdefghijklmnopqrstuvwxyz_") == strlen (name))
    {
      g_string_append_c (line, '"');
      g_string_append (line, name);
      g_string_append_c (line, '"');
    }
  else
    append_json_string (line, name);
  g_string_append (line, event_common_members (self));
  g_string_append (line, format_unsigned (number, sequence));

  if (payload != NULL && json_object_get_size (payload) > 0)
    {
      g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), payload);
      gsize brace = line->len;

      if (self->event_generator == NULL)
        self->event_generator = json_generator_new ();
      json_generator_set_root (self->event_generator, root);
      json_generator_to_gstring (self->event_generator, line);
      json_generator_set_root (self->event_generator, NULL);

      /* The payload's opening brace becomes the separator after sequence. */
      g_assert (line->str[brace] == '{');
      line->str[brace] = ',';
    }
  else
    g_string_append_c (line, '}');

  g_string_append_c (line, '\n');
  return g_string_free_to_bytes (line);
}

static JsonObject *
event_frame (ZotExtensionManager *self,
             const char          *name,
             guint64              sequence,
             JsonObject          *payload)
{
  JsonObject *frame = json_object_new ();

  json_object_set_string_member (frame, "type", "event");
  json_object_set_string_member (frame, "event", name);
  json_object_set_string_member (frame, "session_id", self->session_id);
  json_object_set_string_member (frame, "cwd", self->cwd);
  json_object_set_int_member (frame, "sequence", (gint64) sequence);
  if (payload != NULL)
    json_object_foreach_member (payload, _zot_manager_copy_member_into, frame);

  return frame;
}

/* Whether @payload replaces a common member, which the quick line cannot
 * do. Walking the few members costs less than five hash lookups. */
static gboolean
payload_overrides (JsonObject *payload)
{
  JsonObjectIter iter;
  const char *member;

  json_object_iter_init (&iter, payload);
  while (json_object_iter_next (&iter, &member, NULL))
    {
      switch (member[0])
        {
        case 't':
          if (strcmp (member, "type") == 0)
            return TRUE;
          break;
        case 'e':
          if (strcmp (member, "event") == 0)
            return TRUE;
          break;
        case 's':
          if (strcmp (member, "session_id") == 0 || strcmp (member, "sequence") == 0)
            return TRUE;
          break;
        case 'c':
          if (strcmp (member, "cwd") == 0)
            return TRUE;
          break;
        default:
          break;
        }
    }

  return FALSE;
}

static GBytes *
frame_line (JsonObject *frame)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), frame);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  GString *text = g_string_new (NULL);

  json_generator_set_root (generator, node);
  json_generator_to_gstring (generator, text);
  g_string_append_c (text, '\n');
  return g_string_free_to_bytes (text);
}

/**
 * _zot_manager_event_bytes:
 * @name: the event name
 * @sequence: its number
 * @payload: (nullable): its members beyond the common ones
 *
 * Returns: (transfer full): the `event` frame as its subscribers get it,
 *   newline included: written around the payload's own serialization,
 *   unless the payload replaces a common member
 */
GBytes *
_zot_manager_event_bytes (ZotExtensionManager *self,
                          const char          *name,
                          guint64              sequence,
                          JsonObject          *payload)
{
  if (payload != NULL && payload_overrides (payload))
    {
      g_autoptr(JsonObject) frame = event_frame (self, name, sequence, payload);

      return frame_line (frame);
    }

  return event_line (self, name, sequence, payload);
}

/**
 * zot_extension_manager_emit_event:
 * @name: the event name (PROTOCOL.md §6)
 * @payload: (nullable): the members beyond the common ones; a `session_id`
 *   or `cwd` here replaces the manager's (a subagent's events carry the
 *   conversation they were started in)
 *
 * Numbers the event, shows it to the ::lifecycle-event handlers and queues
 * it, serialized once, for every running extension subscribed to it.
 * Never waits for an extension; an extension whose queue is full is
 * disconnected by its channel.
 *
 * Returns: the event's sequence number
 */
guint64
zot_extension_manager_emit_event (ZotExtensionManager *self,
                                  const char          *name,
                                  JsonObject          *payload)
{
  static guint turn_start_id;
  g_autoptr(GBytes) line = NULL;
  guint64 sequence;
  guint id;

  g_return_val_if_fail (ZOT_IS_EXTENSION_MANAGER (self), 0);
  g_return_val_if_fail (name != NULL, 0);
  sequence = ++self->sequence;
  id = zot_lifecycle_event_id (name);
  if (turn_start_id == 0)
    turn_start_id = zot_lifecycle_event_id ("turn_start");

  for (guint i = 0; i < self->extensions->len; i++)
    {
      ZotExtension *extension = g_ptr_array_index (self->extensions, i);
      ZotFrameChannel *channel = _zot_extension_event_channel (extension, id, name);
      g_autoptr(GError) error = NULL;

      /* The meter's "last turn" is the one this starts. */
      if (id == turn_start_id)
        _zot_extension_meter_begin_turn (extension);

      if (channel == NULL)
        continue;

      if (line == NULL)
        line = _zot_manager_event_bytes (self, name, sequence, payload);

      if (!zot_frame_channel_send_bytes (channel, line, ZOT_FRAME_NONE, &error))
        zot_extension_log (extension, "event %s (sequence %" G_GUINT64_FORMAT ") not delivered: %s",
                           name, sequence, error->message);
    }

  if (g_signal_has_handler_pending (self, _zot_manager_signals[ZOT_MANAGER_LIFECYCLE_EVENT],
                                    0, FALSE))
    {
      g_autoptr(JsonObject) frame = event_frame (self, name, sequence, payload);

      g_signal_emit (self, _zot_manager_signals[ZOT_MANAGER_LIFECYCLE_EVENT], 0, name, frame);
    }

  return sequence;
}
