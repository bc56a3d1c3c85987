/* zot-ext-event.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "zot-ext"

#include "zot-ext-private.h"

/**
 * ZotExtEvent:
 *
 * One lifecycle notification the extension subscribed to with
 * [method@ZotExt.Extension.subscribe], delivered by the
 * [signal@ZotExt.Extension::event] signal.
 *
 * Notifications are observational and best-effort: handlers run on the
 * read loop, so they should be quick (hand long work to an idle or a
 * thread of your own, or later interceptors wait).
 */
struct _ZotExtEvent
{
  GObject     parent_instance;

  char       *name;
  JsonObject *frame;
};

G_DEFINE_FINAL_TYPE (ZotExtEvent, zot_ext_event, G_TYPE_OBJECT)

static void
zot_ext_event_finalize (GObject *object)
{
  ZotExtEvent *self = (ZotExtEvent *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->frame, json_object_unref);

  G_OBJECT_CLASS (zot_ext_event_parent_class)->finalize (object);
}

static void
zot_ext_event_class_init (ZotExtEventClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = zot_ext_event_finalize;
}

static void
zot_ext_event_init (ZotExtEvent *self)
{
}

ZotExtEvent *
_zot_ext_event_new (JsonObject *frame)
{
  ZotExtEvent *self = g_object_new (ZOT_EXT_TYPE_EVENT, NULL);

  self->frame = json_object_ref (frame);
  self->name = g_strdup (json_object_get_string_member_with_default (frame, "event", ""));
  return self;
}

/**
 * zot_ext_event_get_name:
 * @self: a #ZotExtEvent
 *
 * Gets the event name, such as `turn_end`.
 *
 * Returns: the event name, such as `turn_end`
 */
const char *
zot_ext_event_get_name (ZotExtEvent *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), NULL);

  return self->name;
}

/**
 * zot_ext_event_get_sequence:
 * @self: a #ZotExtEvent
 *
 * Gets the host's notification counter, or 0 when absent.
 *
 * Returns: the host's notification counter, or 0 when absent
 */
gint64
zot_ext_event_get_sequence (ZotExtEvent *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), 0);

  return zot_ext_event_get_int (self, "sequence", 0);
}

/**
 * zot_ext_event_get_json:
 * @self: a #ZotExtEvent
 *
 * Gets the whole frame as JSON.
 *
 * Returns: (transfer full): the whole frame as JSON
 */
char *
zot_ext_event_get_json (ZotExtEvent *self)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), NULL);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, self->frame);
  return json_to_string (node, FALSE);
}

/**
 * zot_ext_event_get_object: (skip)
 * @self: a #ZotExtEvent
 *
 * Gets the whole frame.
 *
 * Returns: (transfer none): the whole frame
 */
JsonObject *
zot_ext_event_get_object (ZotExtEvent *self)
{
  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), NULL);

  return self->frame;
}

/**
 * zot_ext_event_has_member:
 * @self: a #ZotExtEvent
 * @member: a field of the frame
 *
 * Absent fields differ from false and zero ones (`executed`,
 * `message_count`, …); this tells them apart.
 *
 * Returns: whether the frame has @member
 */
gboolean
zot_ext_event_has_member (ZotExtEvent *self,
                          const char  *member)
{
  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), FALSE);
  g_return_val_if_fail (member != NULL, FALSE);

  return json_object_has_member (self->frame, member);
}

/**
 * zot_ext_event_get_string:
 * @self: a #ZotExtEvent
 * @member: a field of the frame
 *
 * Gets the string value of @member, or %NULL when it is absent or not a
 * string.
 *
 * Returns: (nullable): the string value of @member, or %NULL when it is
 *   absent or not a string
 */
const char *
zot_ext_event_get_string (ZotExtEvent *self,
                          const char  *member)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), NULL);
  g_return_val_if_fail (member != NULL, NULL);

  node = json_object_get_member (self->frame, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/**
 * zot_ext_event_get_int:
 * @self: a #ZotExtEvent
 * @member: a field of the frame
 * @default_value: what to return when @member is absent or not a number
 *
 * Gets the integer value of @member.
 *
 * Returns: the integer value of @member
 */
gint64
zot_ext_event_get_int (ZotExtEvent *self,
                       const char  *member,
                       gint64       default_value)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), default_value);
  g_return_val_if_fail (member != NULL, default_value);

  node = json_object_get_member (self->frame, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return default_value;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (node);
  return default_value;
}

/**
 * zot_ext_event_get_boolean:
 * @self: a #ZotExtEvent
 * @member: a field of the frame
 * @default_value: what to return when @member is absent or not a boolean
 *
 * Gets the boolean value of @member.
 *
 * Returns: the boolean value of @member
 */
gboolean
zot_ext_event_get_boolean (ZotExtEvent *self,
                           const char  *member,
                           gboolean     default_value)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), default_value);
  g_return_val_if_fail (member != NULL, default_value);

  node = json_object_get_member (self->frame, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return default_value;
  return json_node_get_boolean (node);
}

/**
 * zot_ext_event_get_member_json:
 * @self: a #ZotExtEvent
 * @member: a field of the frame
 *
 * Gets @member as JSON (for objects such as `tool_args` and `result`), or
 * %NULL when absent.
 *
 * Returns: (transfer full) (nullable): @member as JSON (for objects such
 *   as `tool_args` and `result`), or %NULL when absent
 */
char *
zot_ext_event_get_member_json (ZotExtEvent *self,
                               const char  *member)
{
  JsonNode *node;

  g_return_val_if_fail (ZOT_EXT_IS_EVENT (self), NULL);
  g_return_val_if_fail (member != NULL, NULL);

  node = json_object_get_member (self->frame, member);
  if (node == NULL)
    return NULL;
  return json_to_string (node, FALSE);
}
